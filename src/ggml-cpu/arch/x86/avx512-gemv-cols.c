// AVX-512 few-columns matrix product (the gemv_cols slot of cpu-kernels.h): A rows times
// 1 .. GGML_MM_COLS_MAX rows of B, every weight read from memory once.
//
// The shape of the AVX2 kernel (avx2-gemv-cols.c, where the choices are explained): k blocks of
// CK_KB (the B block in L2), CK_R rows of A against CK_G rows of B at a time, rows widened as they
// are loaded. With 16 lanes and 32 registers the tile is 4 x 4 (16 accumulators, 4 row vectors,
// 1 B vector). Compiled on every x86 build, run only where the CPU has AVX-512: written and built
// on an AVX2 machine, its tests and timings are still to be run on an AVX-512 one.

#include "x86-kernels.h"
#include "ggml-impl.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <math.h>

#define CK_R  4    // rows of A per tile
#define CK_G  4    // rows of B per pass over the tile
#define CK_KB 2048 // k per block

#define CK_INLINE GGML_KERNEL_INLINE

// 16 consecutive elements of type `type` as floats
GGML_TARGET_AVX512 CK_INLINE __m512 ck_load16(enum ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_F16:
            return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *) p));
        case GGML_TYPE_BF16:
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *) p)), 16));
        default:
            return _mm512_loadu_ps((const float *)(const void *) p);
    }
}

// out[m*ldo + r] (=|+=) dot(A row r, b[m]) over k < kb for r < R, m < G; A row r at a0 + r*s_r
// (type `type`), b[m] floats; the k tail past the last multiple of 16 element by element
GGML_TARGET_AVX512 CK_INLINE void ck_tile(enum ggml_type type, const int R, const int G, int64_t kb, const char * a0,
                                          int64_t s_r, const float * const * b, float * out, int64_t ldo, bool add) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    const int64_t kb16 = kb & ~(int64_t) 15;
    __m512 s[CK_R][CK_G];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
        for (int m = 0; m < G; m++) {
            s[r][m] = _mm512_setzero_ps();
        }
    }
    for (int64_t k = 0; k < kb16; k += 16) {
        __m512 av[CK_R];
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            av[r] = ck_load16(type, a0 + r*s_r + k*es);
        }
#pragma GCC unroll 4
        for (int m = 0; m < G; m++) {
            const __m512 bv = _mm512_loadu_ps(b[m] + k);
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) {
                s[r][m] = _mm512_fmadd_ps(av[r], bv, s[r][m]);
            }
        }
    }
    for (int r = 0; r < R; r++) {
        float tail[16];
        if (kb16 < kb) {
            ggml_mm_load_f32(type, a0 + r*s_r + kb16*es, es, kb - kb16, tail);
        }
        for (int m = 0; m < G; m++) {
            float v = _mm512_reduce_add_ps(s[r][m]);
            for (int64_t k = kb16; k < kb; k++) {
                v += tail[k - kb16]*b[m][k];
            }
            out[m*ldo + r] = add ? out[m*ldo + r] + v : v;
        }
    }
}

// R rows of A from a0 against every row of B, CK_G rows at a time
GGML_TARGET_AVX512 CK_INLINE void ck_rows(enum ggml_type type, const int R, int64_t kb, const char * a0, int64_t s_r,
                                          const float * const * bk, int nb, float * out, int64_t ldo, bool add) {
    int m = 0;
    for (; m + CK_G <= nb; m += CK_G) {
        ck_tile(type, R, CK_G, kb, a0, s_r, bk + m, out + m*ldo, ldo, add);
    }
    switch (nb - m) {
        case 3: ck_tile(type, R, 3, kb, a0, s_r, bk + m, out + m*ldo, ldo, add); break;
        case 2: ck_tile(type, R, 2, kb, a0, s_r, bk + m, out + m*ldo, ldo, add); break;
        case 1: ck_tile(type, R, 1, kb, a0, s_r, bk + m, out + m*ldo, ldo, add); break;
        default: break;
    }
}

GGML_TARGET_AVX512 CK_INLINE void ck_run(enum ggml_type type, const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                         const float * const * b, int nb, float * out, int64_t ldo) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    const int64_t kbs = CK_KB;
    for (int64_t k0 = 0; k0 < K; k0 += kbs) {
        const int64_t kb  = MIN(kbs, K - k0);
        const bool    add = k0 > 0;
        const float * bk[GGML_MM_COLS_MAX];
        for (int m = 0; m < nb; m++) {
            bk[m] = b[m] + k0;
        }
        const char * a0 = a->data + n0*a->s_r + k0*es;
        int64_t i = 0;
        for (; i + CK_R <= nn; i += CK_R) {
            ck_rows(type, CK_R, kb, a0 + i*a->s_r, a->s_r, bk, nb, out + i, ldo, add);
        }
        switch (nn - i) {
            case 3: ck_rows(type, 3, kb, a0 + i*a->s_r, a->s_r, bk, nb, out + i, ldo, add); break;
            case 2: ck_rows(type, 2, kb, a0 + i*a->s_r, a->s_r, bk, nb, out + i, ldo, add); break;
            case 1: ck_rows(type, 1, kb, a0 + i*a->s_r, a->s_r, bk, nb, out + i, ldo, add); break;
            default: break;
        }
    }
}

GGML_TARGET_AVX512 void ggml_cpu_gemv_cols_avx512(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                                  const float * const * b, int nb, float * out, int64_t ldo) {
    if (nb < 1 || nb > GGML_MM_COLS_MAX) {
        // outside the slot's contract: the op never asks for it
        GGML_LOG_ERROR("%s: %d rows of B (1 .. %d)\n", __func__, nb, GGML_MM_COLS_MAX);
        for (int m = 0; m < nb; m++) {
            for (int64_t i = 0; i < nn; i++) {
                out[m*ldo + i] = NAN;
            }
        }
        return;
    }
    switch (a->type) {
        case GGML_TYPE_F16:  ck_run(GGML_TYPE_F16,  a, n0, nn, K, b, nb, out, ldo); break;
        case GGML_TYPE_BF16: ck_run(GGML_TYPE_BF16, a, n0, nn, K, b, nb, out, ldo); break;
        case GGML_TYPE_F32:  ck_run(GGML_TYPE_F32,  a, n0, nn, K, b, nb, out, ldo); break;
        default:             ggml_mm_unknown_type(a->type, out, nn, nb, ldo); break;
    }
}

#else

typedef int ggml_avx512_gemv_cols_unused;

#endif // GGML_CPU_X86
