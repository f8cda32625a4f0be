// AVX-512 kernel set of the matrix-product family: a 12 x 32 register-tiled micro-kernel
// (24 zmm accumulators), an A packer that converts and transposes 16 x 16 blocks in registers,
// and the streaming matrix-vector kernel. Compiled through function attributes, so a build
// without -march flags still has it; chosen at run time by ggml_cpu_isa().

#include "x86-kernels.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

#define MM_Z_MR 12
#define MM_Z_NR 32

#define MM_INLINE GGML_KERNEL_INLINE

GGML_TARGET_AVX512 static void mm_kernel_avx512(int64_t kc, const float * restrict bp, const float * restrict ap,
                                                float * restrict c, int64_t ldc, bool acc) {
    __m512 r0[MM_Z_MR];
    __m512 r1[MM_Z_MR];
#pragma GCC unroll 16
    for (int i = 0; i < MM_Z_MR; i++) {
        r0[i] = _mm512_setzero_ps();
        r1[i] = _mm512_setzero_ps();
    }
    // the C tile is read or written at the end: start fetching it now (rows are far apart)
#pragma GCC unroll 16
    for (int i = 0; i < MM_Z_MR; i++) {
        _mm_prefetch((const char *)(c + i*ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + i*ldc + 16), _MM_HINT_T0);
    }
    for (int64_t k = 0; k < kc; k++) {
        const __m512 a0 = _mm512_loadu_ps(ap + k*MM_Z_NR);
        const __m512 a1 = _mm512_loadu_ps(ap + k*MM_Z_NR + 16);
#pragma GCC unroll 16
        for (int i = 0; i < MM_Z_MR; i++) {
            const __m512 bv = _mm512_set1_ps(bp[i*GGML_MM_KC + k]);
            r0[i] = _mm512_fmadd_ps(a0, bv, r0[i]);
            r1[i] = _mm512_fmadd_ps(a1, bv, r1[i]);
        }
    }
    if (acc) {
        // every load of C before the first store (rows a multiple of 4 KiB apart: see avx2-gemm.c)
#pragma GCC unroll 16
        for (int i = 0; i < MM_Z_MR; i++) {
            r0[i] = _mm512_add_ps(_mm512_loadu_ps(c + i*ldc),      r0[i]);
            r1[i] = _mm512_add_ps(_mm512_loadu_ps(c + i*ldc + 16), r1[i]);
        }
        __asm__ volatile("" ::: "memory");
#pragma GCC unroll 16
        for (int i = 0; i < MM_Z_MR; i++) {
            _mm512_storeu_ps(c + i*ldc,      r0[i]);
            _mm512_storeu_ps(c + i*ldc + 16, r1[i]);
        }
    } else {
#pragma GCC unroll 16
        for (int i = 0; i < MM_Z_MR; i++) {
            float * crow = c + i*ldc;
            _mm512_storeu_ps(crow,      r0[i]);
            _mm512_storeu_ps(crow + 16, r1[i]);
        }
    }
}

// 16 consecutive elements (or the first `n` of them, the rest zero) as floats
GGML_TARGET_AVX512 MM_INLINE __m512 mm_load16(enum ggml_type type, const char * p, __mmask16 m) {
    switch (type) {
        case GGML_TYPE_F16:
            return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
        case GGML_TYPE_BF16:
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
        default:
            return _mm512_maskz_loadu_ps(m, p);
    }
}

// v[0..15] (rows) -> v[c] = column c
GGML_TARGET_AVX512 MM_INLINE void mm_transpose16(__m512 v[16]) {
    __m512 t[16];
    for (int i = 0; i < 16; i += 2) {
        t[i]     = _mm512_unpacklo_ps(v[i], v[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(v[i], v[i + 1]);
    }
    __m512 u[16];
    for (int i = 0; i < 16; i += 4) {
        const __m512d t0 = _mm512_castps_pd(t[i]),     t1 = _mm512_castps_pd(t[i + 1]);
        const __m512d t2 = _mm512_castps_pd(t[i + 2]), t3 = _mm512_castps_pd(t[i + 3]);
        u[i]     = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
        u[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
        u[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
        u[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
    }
    // u[4g + j], 128-bit lane L: rows 4g..4g+3 of column 4L + j; transpose the 4 x 4 lanes
    for (int j = 0; j < 4; j++) {
        const __m512 s0 = _mm512_shuffle_f32x4(u[j],     u[4 + j],  0x44);
        const __m512 s1 = _mm512_shuffle_f32x4(u[j],     u[4 + j],  0xEE);
        const __m512 s2 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x44);
        const __m512 s3 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xEE);
        v[j]      = _mm512_shuffle_f32x4(s0, s2, 0x88);
        v[4 + j]  = _mm512_shuffle_f32x4(s0, s2, 0xDD);
        v[8 + j]  = _mm512_shuffle_f32x4(s1, s3, 0x88);
        v[12 + j] = _mm512_shuffle_f32x4(s1, s3, 0xDD);
    }
}

// rows of A contiguous along k: 16 rows x 16 k at a time, converted and transposed in registers
GGML_TARGET_AVX512 MM_INLINE void mm_pack_a_rows(enum ggml_type type, const struct ggml_mm_src * a, int64_t n0, int64_t nn,
                                                 int64_t k0, int64_t kc, float * ap) {
    const int64_t es = (int64_t) ggml_mm_type_size(type);
    for (int64_t p0 = 0; p0 < nn; p0 += MM_Z_NR) {
        float * dst = ap + (p0/MM_Z_NR)*kc*MM_Z_NR;
        for (int h = 0; h < MM_Z_NR/16; h++) {
            const int64_t r0  = p0 + h*16;
            const int64_t cnt = MAX((int64_t) 0, MIN((int64_t) 16, nn - r0));
            const char * base = a->data + (n0 + r0)*a->s_r + k0*es;
            for (int64_t k = 0; k < kc; k += 16) {
                const int64_t   kn = MIN((int64_t) 16, kc - k);
                const __mmask16 m  = (__mmask16)((1u << kn) - 1u);
                __m512 v[16];
                for (int i = 0; i < 16; i++) {
                    v[i] = i < cnt ? mm_load16(type, base + i*a->s_r + k*es, m) : _mm512_setzero_ps();
                }
                mm_transpose16(v);
                float * d = dst + k*MM_Z_NR + h*16;
                for (int64_t j = 0; j < kn; j++) {
                    _mm512_storeu_ps(d + j*MM_Z_NR, v[j]);
                }
            }
        }
    }
}

GGML_TARGET_AVX512 static void mm_pack_a_avx512(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t k0, int64_t kc, float * ap) {
    if (a->s_k == (int64_t) ggml_mm_type_size(a->type)) {
        switch (a->type) {
            case GGML_TYPE_F32:  mm_pack_a_rows(GGML_TYPE_F32,  a, n0, nn, k0, kc, ap); return;
            case GGML_TYPE_F16:  mm_pack_a_rows(GGML_TYPE_F16,  a, n0, nn, k0, kc, ap); return;
            case GGML_TYPE_BF16: mm_pack_a_rows(GGML_TYPE_BF16, a, n0, nn, k0, kc, ap); return;
            default: break;
        }
    }
    ggml_mm_pack_a_generic(a, n0, nn, k0, kc, MM_Z_NR, ap);
}

//
// matrix-vector
//

// R rows of A against NB rows of B (both constants in every instance, so that the R x NB
// accumulators stay in registers). Several rows at once keep several memory streams in flight.
// 16-bit weights (half the bytes per converted vector) get an explicit prefetch into L2 a little
// ahead of each row: measured 5-10% more weight bandwidth on F16/BF16, none on F32.
GGML_TARGET_AVX512 MM_INLINE void mm_gemv_tile(enum ggml_type type, const int R, const int NB, const char * row0, int64_t s_r,
                                               int64_t K, const float * const * b, float * out, int64_t ldo) {
    const int64_t es = (int64_t) ggml_mm_type_size(type);
    __m512 s[8][GGML_MM_GEMV_M];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
        for (int m = 0; m < NB; m++) {
            s[r][m] = _mm512_setzero_ps();
        }
    }
    int64_t k = 0;
    for (; k + 32 <= K; k += 32) {
        __m512 b0[GGML_MM_GEMV_M], b1[GGML_MM_GEMV_M];
#pragma GCC unroll 4
        for (int m = 0; m < NB; m++) {
            b0[m] = _mm512_loadu_ps(b[m] + k);
            b1[m] = _mm512_loadu_ps(b[m] + k + 16);
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            if (type != GGML_TYPE_F32) {
                _mm_prefetch(row0 + r*s_r + k*es + 1024, _MM_HINT_T1);
            }
            const __m512 a0 = mm_load16(type, row0 + r*s_r + k*es, 0xFFFF);
            const __m512 a1 = mm_load16(type, row0 + r*s_r + (k + 16)*es, 0xFFFF);
#pragma GCC unroll 4
            for (int m = 0; m < NB; m++) {
                s[r][m] = _mm512_fmadd_ps(a0, b0[m], s[r][m]);
                s[r][m] = _mm512_fmadd_ps(a1, b1[m], s[r][m]);
            }
        }
    }
    for (; k < K; k += 16) {
        const __mmask16 mk = K - k >= 16 ? (__mmask16) 0xFFFF : (__mmask16)((1u << (K - k)) - 1u);
        __m512 bv[GGML_MM_GEMV_M];
#pragma GCC unroll 4
        for (int m = 0; m < NB; m++) {
            bv[m] = _mm512_maskz_loadu_ps(mk, b[m] + k);
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const __m512 av = mm_load16(type, row0 + r*s_r + k*es, mk);
#pragma GCC unroll 4
            for (int m = 0; m < NB; m++) {
                s[r][m] = _mm512_fmadd_ps(av, bv[m], s[r][m]);
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
        for (int m = 0; m < NB; m++) {
            out[m*ldo + r] = _mm512_reduce_add_ps(s[r][m]);
        }
    }
}

GGML_TARGET_AVX512 MM_INLINE void mm_gemv_rows(enum ggml_type type, const int NB, const struct ggml_mm_src * a, int64_t n0,
                                               int64_t nn, int64_t K, const float * const * b, float * out, int64_t ldo) {
    const char * base = a->data + n0*a->s_r;
    int64_t i = 0;
    if (NB == 1 && type != GGML_TYPE_F32) {
        // 16-bit weights: eight streams (measured faster than four; F32 is not)
        for (; i + 8 <= nn; i += 8) {
            mm_gemv_tile(type, 8, NB, base + i*a->s_r, a->s_r, K, b, out + i, ldo);
        }
    }
    for (; i + 4 <= nn; i += 4) {
        mm_gemv_tile(type, 4, NB, base + i*a->s_r, a->s_r, K, b, out + i, ldo);
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

GGML_TARGET_AVX512 static void mm_gemv_avx512(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                              const float * const * b, int nb, float * out, int64_t ldo) {
    switch (a->type) {
        case GGML_TYPE_F16:  MM_GEMV_CASES(GGML_TYPE_F16);  break;
        case GGML_TYPE_BF16: MM_GEMV_CASES(GGML_TYPE_BF16); break;
        case GGML_TYPE_F32:  MM_GEMV_CASES(GGML_TYPE_F32);  break;
        default:             ggml_mm_unknown_type(a->type, out, nn, nb, ldo); break;
    }
}

const struct ggml_mm_kernels ggml_cpu_mm_avx512 = {
    /*.name   =*/ "avx512",
    /*.mr     =*/ MM_Z_MR,
    /*.nr     =*/ MM_Z_NR,
    /*.kernel =*/ mm_kernel_avx512,
    /*.pack_a =*/ mm_pack_a_avx512,
    /*.gemv   =*/ mm_gemv_avx512,
};

#endif // GGML_CPU_X86
