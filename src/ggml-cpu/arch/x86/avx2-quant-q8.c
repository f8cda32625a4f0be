// AVX2 activation quantizers: F32 rows to Q8_0, Q8_1 and Q8_K (the from_float members of those
// slots in the AVX2 table, cpu-kernels.h). Bytes equal to the reference quantizers
// (quantize_row_q8_{0,1,K}_ref) for finite input: the same float operations in the same order
// per element (amax, d = amax/127, id = 1/d, x*id; Q8_K: iscale = -127/max, x*iscale), with
// roundf's half-away-from-zero rounding rebuilt from truncation for Q8_0/Q8_1 and the
// reference's round-half-even trick (ggml_nearest_int) as _mm256_round_ps for Q8_K. The fp16
// scales go through the library's own conversion.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

GGML_TARGET_AVX2 static inline __m256 q8_abs(__m256 v) {
    return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
}

GGML_TARGET_AVX2 static inline float q8_hmax(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

// roundf: to nearest, halves away from zero (v - trunc(v) is exact)
GGML_TARGET_AVX2 static inline __m256 q8_round_away(__m256 v) {
    const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256 half = _mm256_cmp_ps(q8_abs(_mm256_sub_ps(v, t)), _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    const __m256 step = _mm256_or_ps(_mm256_and_ps(v, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(1.0f));
    return _mm256_add_ps(t, _mm256_and_ps(half, step));
}

// four vectors of 8 int32 (each in -128 .. 127) to 32 int8 in element order
GGML_TARGET_AVX2 static inline __m256i q8_pack(__m256i i0, __m256i i1, __m256i i2, __m256i i3) {
    const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
    return _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// one block of 32: the levels to qs, the level sum returned, the scale d to *dout
GGML_TARGET_AVX2 static inline int q8_block32(const float * x, int8_t * qs, float * dout) {
    __m256 v[4];
    __m256 amax = _mm256_setzero_ps();
    for (int k = 0; k < 4; k++) {
        v[k] = _mm256_loadu_ps(x + 8*k);
        amax = _mm256_max_ps(q8_abs(v[k]), amax); // a NaN element leaves amax as it was, as fmaxf does
    }
    const float d  = q8_hmax(amax)/127.0f;
    const float id = d != 0.0f ? 1.0f/d : 0.0f;
    const __m256 vid = _mm256_set1_ps(id);
    __m256i q[4];
    for (int k = 0; k < 4; k++) {
        q[k] = _mm256_cvtps_epi32(q8_round_away(_mm256_mul_ps(v[k], vid)));
    }
    _mm256_storeu_si256((__m256i *)(void *) qs, q8_pack(q[0], q[1], q[2], q[3]));
    *dout = d;
    return qu_hsum_i32(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
}

GGML_TARGET_AVX2 void ggml_cpu_q_from_float_q8_0_avx2(const float * x, void * vy, int64_t k) {
    block_q8_0 * y = vy;
    for (int64_t i = 0; i < k/QK8_0; i++) {
        float d;
        q8_block32(x + i*QK8_0, y[i].qs, &d);
        y[i].d = GGML_FP32_TO_FP16(d);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_from_float_q8_1_avx2(const float * x, void * vy, int64_t k) {
    block_q8_1 * y = vy;
    for (int64_t i = 0; i < k/QK8_1; i++) {
        float d;
        const int sum = q8_block32(x + i*QK8_1, y[i].qs, &d);
        y[i].d = GGML_FP32_TO_FP16(d);
        y[i].s = GGML_FP32_TO_FP16((float) sum*d);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_from_float_q8_K_avx2(const float * x, void * vy, int64_t k) {
    block_q8_K * y = vy;
    for (int64_t i = 0; i < k/QK_K; i++, x += QK_K) {
        __m256 amax = _mm256_setzero_ps();
        for (int j = 0; j < QK_K; j += 8) {
            amax = _mm256_max_ps(q8_abs(_mm256_loadu_ps(x + j)), amax);
        }
        const float am = q8_hmax(amax);
        if (!(am > 0.0f)) {
            memset(&y[i], 0, sizeof(y[i]));
            continue;
        }
        // the reference keeps the signed value of the first element of largest magnitude
        float max = 0.0f;
        for (int j = 0; j < QK_K; j += 8) {
            const int m = _mm256_movemask_ps(_mm256_cmp_ps(q8_abs(_mm256_loadu_ps(x + j)), _mm256_set1_ps(am), _CMP_EQ_OQ));
            if (m != 0) {
                max = x[j + __builtin_ctz((unsigned) m)];
                break;
            }
        }
        const float iscale = -127.0f/max;
        const __m256 vis = _mm256_set1_ps(iscale);
        const __m256i top = _mm256_set1_epi32(127);
        for (int j = 0; j < QK_K; j += 32) {
            __m256i q[4];
            for (int l = 0; l < 4; l++) {
                const __m256 r = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + j + 8*l), vis), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                q[l] = _mm256_min_epi32(_mm256_cvtps_epi32(r), top);
            }
            const __m256i qb = q8_pack(q[0], q[1], q[2], q[3]);
            _mm256_storeu_si256((__m256i *)(void *) (y[i].qs + j), qb);
            // int32 lanes 0..3: elements 0..15, lanes 4..7: elements 16..31
            const __m256i s32 = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), qb), _mm256_set1_epi16(1));
            const __m128i s2  = _mm_hadd_epi32(_mm256_castsi256_si128(s32), _mm256_extracti128_si256(s32, 1));
            const __m128i s1  = _mm_hadd_epi32(s2, s2);
            y[i].bsums[j/16]     = (int16_t) _mm_cvtsi128_si32(s1);
            y[i].bsums[j/16 + 1] = (int16_t) _mm_extract_epi32(s1, 1);
        }
        y[i].d = 1.0f/iscale;
    }
}

#else

typedef int ggml_avx2_quant_q8_unused;

#endif // GGML_CPU_X86
