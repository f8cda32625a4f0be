// AVX2 + FMA + F16C kernel set of the matrix-product family: a 6 x 16 register-tiled micro-kernel
// (12 ymm accumulators), an A packer transposing 8 x 8 blocks in registers, and the streaming
// matrix-vector kernel. Compiled through function attributes; chosen at run time.

#include "x86-kernels.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

#define MM_Y_MR 6
#define MM_Y_NR 16

#define MM_INLINE GGML_KERNEL_INLINE

GGML_TARGET_AVX2 static void mm_kernel_avx2(int64_t kc, const float * restrict bp, const float * restrict ap,
                                            float * restrict c, int64_t ldc, bool acc) {
    __m256 r0[MM_Y_MR];
    __m256 r1[MM_Y_MR];
#pragma GCC unroll 8
    for (int i = 0; i < MM_Y_MR; i++) {
        r0[i] = _mm256_setzero_ps();
        r1[i] = _mm256_setzero_ps();
    }
    // the C tile is read or written at the end: start fetching it now (rows are far apart)
#pragma GCC unroll 8
    for (int i = 0; i < MM_Y_MR; i++) {
        _mm_prefetch((const char *)(c + i*ldc), _MM_HINT_T0);
    }
    for (int64_t k = 0; k < kc; k++) {
        const __m256 a0 = _mm256_loadu_ps(ap + k*MM_Y_NR);
        const __m256 a1 = _mm256_loadu_ps(ap + k*MM_Y_NR + 8);
#pragma GCC unroll 8
        for (int i = 0; i < MM_Y_MR; i++) {
            const __m256 bv = _mm256_broadcast_ss(bp + i*GGML_MM_KC + k);
            r0[i] = _mm256_fmadd_ps(a0, bv, r0[i]);
            r1[i] = _mm256_fmadd_ps(a1, bv, r1[i]);
        }
    }
    if (acc) {
        // every load of C before the first store: C's rows are often a multiple of 4 KiB apart,
        // and a load behind a store to the same address bits 0..11 would wait for it
#pragma GCC unroll 8
        for (int i = 0; i < MM_Y_MR; i++) {
            r0[i] = _mm256_add_ps(_mm256_loadu_ps(c + i*ldc),     r0[i]);
            r1[i] = _mm256_add_ps(_mm256_loadu_ps(c + i*ldc + 8), r1[i]);
        }
        __asm__ volatile("" ::: "memory");
#pragma GCC unroll 8
        for (int i = 0; i < MM_Y_MR; i++) {
            _mm256_storeu_ps(c + i*ldc,     r0[i]);
            _mm256_storeu_ps(c + i*ldc + 8, r1[i]);
        }
    } else {
#pragma GCC unroll 8
        for (int i = 0; i < MM_Y_MR; i++) {
            float * crow = c + i*ldc;
            _mm256_storeu_ps(crow,     r0[i]);
            _mm256_storeu_ps(crow + 8, r1[i]);
        }
    }
}

// 8 consecutive elements as floats
GGML_TARGET_AVX2 MM_INLINE __m256 mm_load8(enum ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_F16:
            return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *) p));
        case GGML_TYPE_BF16:
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *) p)), 16));
        default:
            return _mm256_loadu_ps((const float *)(const void *) p);
    }
}

// v[0..7] (rows) -> v[c] = column c
GGML_TARGET_AVX2 MM_INLINE void mm_transpose8(__m256 v[8]) {
    __m256 t[8];
    for (int i = 0; i < 8; i += 2) {
        t[i]     = _mm256_unpacklo_ps(v[i], v[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
    }
    __m256 s[8];
    for (int i = 0; i < 8; i += 4) {
        s[i]     = _mm256_shuffle_ps(t[i],     t[i + 2], 0x44);
        s[i + 1] = _mm256_shuffle_ps(t[i],     t[i + 2], 0xEE);
        s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int j = 0; j < 4; j++) {
        v[j]     = _mm256_permute2f128_ps(s[j], s[4 + j], 0x20);
        v[4 + j] = _mm256_permute2f128_ps(s[j], s[4 + j], 0x31);
    }
}

GGML_TARGET_AVX2 MM_INLINE void mm_pack_a_rows(enum ggml_type type, const struct ggml_mm_src * a, int64_t n0, int64_t nn,
                                               int64_t k0, int64_t kc, float * ap) {
    const int64_t es   = (int64_t) ggml_mm_type_size(type);
    const int64_t kc8  = kc & ~(int64_t) 7;
    for (int64_t p0 = 0; p0 < nn; p0 += MM_Y_NR) {
        float * dst = ap + (p0/MM_Y_NR)*kc*MM_Y_NR;
        const int64_t cnt = MIN((int64_t) MM_Y_NR, nn - p0);
        for (int h = 0; h < MM_Y_NR/8; h++) {
            const int64_t r0 = p0 + h*8;
            const int64_t rc = MAX((int64_t) 0, MIN((int64_t) 8, nn - r0));
            const char * base = a->data + (n0 + r0)*a->s_r + k0*es;
            for (int64_t k = 0; k < kc8; k += 8) {
                __m256 v[8];
                for (int i = 0; i < 8; i++) {
                    v[i] = i < rc ? mm_load8(type, base + i*a->s_r + k*es) : _mm256_setzero_ps();
                }
                mm_transpose8(v);
                float * d = dst + k*MM_Y_NR + h*8;
                for (int j = 0; j < 8; j++) {
                    _mm256_storeu_ps(d + j*MM_Y_NR, v[j]);
                }
            }
        }
        // k tail: element by element
        if (kc8 < kc) {
            float tmp[8];
            for (int64_t j = 0; j < MM_Y_NR; j++) {
                if (j < cnt) {
                    ggml_mm_load_f32(type, a->data + (n0 + p0 + j)*a->s_r + (k0 + kc8)*es, es, kc - kc8, tmp);
                }
                for (int64_t k = kc8; k < kc; k++) {
                    dst[k*MM_Y_NR + j] = j < cnt ? tmp[k - kc8] : 0.0f;
                }
            }
        }
    }
}

GGML_TARGET_AVX2 static void mm_pack_a_avx2(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t k0, int64_t kc, float * ap) {
    if (a->s_k == (int64_t) ggml_mm_type_size(a->type)) {
        switch (a->type) {
            case GGML_TYPE_F32:  mm_pack_a_rows(GGML_TYPE_F32,  a, n0, nn, k0, kc, ap); return;
            case GGML_TYPE_F16:  mm_pack_a_rows(GGML_TYPE_F16,  a, n0, nn, k0, kc, ap); return;
            case GGML_TYPE_BF16: mm_pack_a_rows(GGML_TYPE_BF16, a, n0, nn, k0, kc, ap); return;
            default: break;
        }
    }
    ggml_mm_pack_a_generic(a, n0, nn, k0, kc, MM_Y_NR, ap);
}

//
// matrix-vector
//

GGML_TARGET_AVX2 MM_INLINE float mm_hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// R rows of A against NB rows of B (both constants in every instance, so that the R x NB
// accumulators stay in registers). Several rows at once keep several memory streams in flight.
GGML_TARGET_AVX2 MM_INLINE void mm_gemv_tile(enum ggml_type type, const int R, const int NB, const char * row0, int64_t s_r,
                                             int64_t K, const float * const * b, float * out, int64_t ldo) {
    const int64_t es = (int64_t) ggml_mm_type_size(type);
    __m256 s[4][GGML_MM_GEMV_M];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
        for (int m = 0; m < NB; m++) {
            s[r][m] = _mm256_setzero_ps();
        }
    }
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) {
        __m256 bv[GGML_MM_GEMV_M];
#pragma GCC unroll 4
        for (int m = 0; m < NB; m++) {
            bv[m] = _mm256_loadu_ps(b[m] + k);
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const __m256 av = mm_load8(type, row0 + r*s_r + k*es);
#pragma GCC unroll 4
            for (int m = 0; m < NB; m++) {
                s[r][m] = _mm256_fmadd_ps(av, bv[m], s[r][m]);
            }
        }
    }
    for (int r = 0; r < R; r++) {
        float tail[GGML_MM_GEMV_M] = {0};
        if (k < K) {
            float tmp[8];
            ggml_mm_load_f32(type, row0 + r*s_r + k*es, es, K - k, tmp);
            for (int m = 0; m < NB; m++) {
                for (int64_t kk = k; kk < K; kk++) {
                    tail[m] += tmp[kk - k]*b[m][kk];
                }
            }
        }
        for (int m = 0; m < NB; m++) {
            out[m*ldo + r] = mm_hsum8(s[r][m]) + tail[m];
        }
    }
}

// four rows at a time for up to two rows of B, two rows at a time beyond (16 ymm registers)
GGML_TARGET_AVX2 MM_INLINE void mm_gemv_rows(enum ggml_type type, const int NB, const struct ggml_mm_src * a, int64_t n0,
                                             int64_t nn, int64_t K, const float * const * b, float * out, int64_t ldo) {
    const char * base = a->data + n0*a->s_r;
    int64_t i = 0;
    if (NB <= 2) {
        for (; i + 4 <= nn; i += 4) {
            mm_gemv_tile(type, 4, NB, base + i*a->s_r, a->s_r, K, b, out + i, ldo);
        }
    } else {
        for (; i + 2 <= nn; i += 2) {
            mm_gemv_tile(type, 2, NB, base + i*a->s_r, a->s_r, K, b, out + i, ldo);
        }
    }
    for (; i < nn; i++) {
        mm_gemv_tile(type, 1, NB, base + i*a->s_r, a->s_r, K, b, out + i, ldo);
    }
}

#define MM_GEMV_CASES(TYPE)                                                          \
    switch (nb) {                                                                    \
        case 1:  mm_gemv_rows(TYPE, 1, a, n0, nn, K, b, out, ldo); break;            \
        case 2:  mm_gemv_rows(TYPE, 2, a, n0, nn, K, b, out, ldo); break;            \
        case 3:  mm_gemv_rows(TYPE, 3, a, n0, nn, K, b, out, ldo); break;            \
        default: mm_gemv_rows(TYPE, 4, a, n0, nn, K, b, out, ldo); break;            \
    }

GGML_TARGET_AVX2 static void mm_gemv_avx2(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                          const float * const * b, int nb, float * out, int64_t ldo) {
    switch (a->type) {
        case GGML_TYPE_F16:  MM_GEMV_CASES(GGML_TYPE_F16);  break;
        case GGML_TYPE_BF16: MM_GEMV_CASES(GGML_TYPE_BF16); break;
        case GGML_TYPE_F32:  MM_GEMV_CASES(GGML_TYPE_F32);  break;
        default:             ggml_mm_unknown_type(a->type, out, nn, nb, ldo); break;
    }
}

const struct ggml_mm_kernels ggml_cpu_mm_avx2 = {
    /*.name   =*/ "avx2",
    /*.mr     =*/ MM_Y_MR,
    /*.nr     =*/ MM_Y_NR,
    /*.kernel =*/ mm_kernel_avx2,
    /*.pack_a =*/ mm_pack_a_avx2,
    /*.gemv   =*/ mm_gemv_avx2,
};

#endif // GGML_CPU_X86
