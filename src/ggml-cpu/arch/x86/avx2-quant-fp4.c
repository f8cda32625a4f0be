// AVX2 dot products of the 4-bit float formats against Q8_0 activations: MXFP4 (32 E2M1 values,
// one E8M0 scale) and NVFP4 (64 values, an unsigned E4M3 scale per 16) (the quant slots of the
// AVX2 table, cpu-kernels.h).
//
// The E2M1 values are kept doubled as int8 (ggml_kvalues_mxfp4: 0, +-1 ... +-12) and looked up
// with a byte shuffle, as the IQ4_NL kernel does; the scales are decoded at half their value, as
// in the format's dequantization (ggml-quants-fp4.c), so the products are the same.
// An NVFP4 block spans two Q8_0 blocks; each half of a 32-element vector has its own scale.
// The NVFP4 prompt tile is at the end (nvfp4_row).

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"
#include "ggml-cpu/arch/quant-fp4-scales.h"

#if GGML_CPU_X86

GGML_TARGET_AVX2 static inline __m256i fp4_values(void) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *) ggml_kvalues_mxfp4);
    return _mm256_set_m128i(v, v);
}

// 8 int32 sums of adjacent products of the signed levels w and the activations a
GGML_TARGET_AVX2 static inline __m256i fp4_dot(__m256i w, __m256i a) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w)), _mm256_set1_epi16(1));
}

// one MXFP4 block times its Q8_0 block, scaled, added to acc
GGML_TARGET_AVX2 static inline __m256 mxfp4_block(const block_mxfp4 * x, const block_q8_0 * y, __m256i vals, __m256 acc) {
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *) x->qs);
    const __m256i w = _mm256_shuffle_epi8(vals, _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(b, 4), m4), _mm_and_si128(b, m4)));
    const __m256 d = _mm256_set1_ps(ggml_cpu_e8m0_half(x->e)*q_fp16_avx2(y->d));
    return _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(fp4_dot(w, qu_load256(y->qs))), acc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_mxfp4_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_mxfp4 * x = vx;
    const block_q8_0 * y = vy;
    const __m256i vals = fp4_values();
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    const int nb = n/QK_MXFP4;
    int i = 0;
    for (; i + 1 < nb; i += 2) { // two blocks per step, two independent accumulators
        acc0 = mxfp4_block(&x[i], &y[i], vals, acc0);
        acc1 = mxfp4_block(&x[i + 1], &y[i + 1], vals, acc1);
    }
    if (i < nb) {
        acc0 = mxfp4_block(&x[i], &y[i], vals, acc0);
    }
    *s = qu_hsum_ps(_mm256_add_ps(acc0, acc1));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_nvfp4_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_nvfp4 * x = vx;
    const block_q8_0 * y = vy;
    const __m256i vals = fp4_values();
    const __m128i m4 = _mm_set1_epi8(0x0F);
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK_NVFP4; i++) {
        for (int h = 0; h < 2; h++) {
            // bytes 16h .. 16h + 15 hold sub-blocks 2h and 2h + 1: low nibbles elements 0..7, high 8..15
            const __m128i b  = _mm_loadu_si128((const __m128i *)(const void *) (x[i].qs + 16*h));
            const __m128i lo = _mm_and_si128(b, m4), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m4);
            const __m256i w  = _mm256_shuffle_epi8(vals, _mm256_set_m128i(_mm_unpackhi_epi64(lo, hi), _mm_unpacklo_epi64(lo, hi)));
            const block_q8_0 * yb = &y[2*i + h];
            const float dy = q_fp16_avx2(yb->d);
            const __m256 d = _mm256_set_m128(_mm_set1_ps(ggml_cpu_ue4m3_half(x[i].d[2*h + 1])*dy), _mm_set1_ps(ggml_cpu_ue4m3_half(x[i].d[2*h])*dy));
            acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(fp4_dot(w, qu_load256(yb->qs))), acc);
        }
    }
    *s = qu_hsum_ps(acc);
}

// NVFP4's prompt tile (the tile slot of cpu-kernels.h): 1 row x up to 8 columns. A block's 64
// levels are looked up once per row (two vectors, each the two 16-element sub-blocks of one Q8_0
// block of activations) with their 4 scales as float vectors [s_lo x4 | s_hi x4], and serve every
// column: per 32 weights and column a load, a sign, a maddubs, a madd, a conversion and two float
// operations (vec_dot unpacks and decodes the scales again for every output). The integer sums
// per sub-block are vec_dot's. One column (decode) goes to vec_dot.
GGML_TARGET_AVX2 GGML_KERNEL_INLINE void nvfp4_row(int C, int nb, float * s, size_t bs, const block_nvfp4 * x,
        const char * y, size_t by) {
    const __m256i vals = fp4_values();
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[8];
    for (int c = 0; c < C; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        for (int h = 0; h < 2; h++) {
            const __m128i b  = _mm_loadu_si128((const __m128i *)(const void *) (x[i].qs + 16*h));
            const __m128i lo = _mm_and_si128(b, m4), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m4);
            const __m256i w  = _mm256_shuffle_epi8(vals, _mm256_set_m128i(_mm_unpackhi_epi64(lo, hi), _mm_unpacklo_epi64(lo, hi)));
            const __m256i wa = _mm256_sign_epi8(w, w);
            const __m256 dw = _mm256_set_m128(_mm_set1_ps(ggml_cpu_ue4m3_half(x[i].d[2*h + 1])),
                                              _mm_set1_ps(ggml_cpu_ue4m3_half(x[i].d[2*h])));
            for (int c = 0; c < C; c++) {
                const block_q8_0 * yb = (const block_q8_0 *)(const void *) (y + (size_t) c*by) + 2*i + h;
                const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(wa, _mm256_sign_epi8(qu_load256(yb->qs), w)), ones);
                acc[c] = _mm256_fmadd_ps(_mm256_mul_ps(dw, _mm256_set1_ps(q_fp16_avx2(yb->d))), _mm256_cvtepi32_ps(p), acc[c]);
            }
        }
    }
    for (int c = 0; c < C; c++) {
        s[(size_t) c*bs] = qu_hsum_ps(acc[c]);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_nvfp4_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy,
        size_t by, int nr, int nc) {
    const char * y = vy;
    const int nb = n/QK_NVFP4;
    for (int r = 0; r < nr; r++) {
        const block_nvfp4 * xr = (const block_nvfp4 *)(const void *) ((const char *) vx + (size_t) r*bx);
        if (nc == 1) {
            ggml_cpu_q_dot_nvfp4_avx2(n, s + r, 0, xr, 0, y, 0, 1);
            continue;
        }
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            nvfp4_row(8, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            nvfp4_row(4, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            nvfp4_row(2, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            nvfp4_row(1, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
    }
}

#else

typedef int ggml_avx2_quant_fp4_unused;

#endif // GGML_CPU_X86
