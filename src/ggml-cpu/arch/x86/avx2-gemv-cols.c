// AVX2 + FMA + F16C few-columns matrix product (the gemv_cols and gemv_cols_h slots of
// cpu-kernels.h): A rows times 1 .. GGML_MM_COLS_MAX rows of B, every weight read from memory once.
// gemv_cols_h reads its first nh rows of B as F16 (widened as they load, like A): the k blocks
// then hold twice the k for the same bytes, and moving B from L2 to L1 (21 of the 32 bytes per
// cycle that L2 delivers, with float B in 3 x 4 tiles) halves; measured 1.1 - 1.2x at 8 and 16
// rows of B with F16 weights (docs/cpu-perf.md).
//
// With 5 .. 16 rows of B this product is bound by the FMA units, not by memory, on an AVX2 core
// (docs/cpu-perf.md). k is cut into blocks of B (nb rows x kb floats, CK_B_BYTES) that stay in
// L2 while every row of the thread's chunk passes through the block. Within a block, CK_R = 3
// rows of A are multiplied with the B rows CK_G = 4 at a time (12 accumulators: more than the
// 8 FMAs in flight that two 4-cycle FMA pipes need), widened (F16/BF16) as they are loaded: the
// first group reads the rows' block from memory (prefetched CK_PF_TILES tiles ahead: the runs
// of one block are too short for the hardware prefetcher), the other groups from L1. The
// prefetches of the next tile's rows are spread over all the groups of a tile (each group
// takes its share of the rows), so that the memory stream is even rather than in bursts of a
// group: 1.1x at 5 and 6 rows of B, the same elsewhere. The accumulators of a row are reduced
// together by one tree of horizontal adds. With 5 or 6 rows of B (all float or all F16) the rows
// go in 2 x 5 / 2 x 6 tiles in one pass instead (10 / 12 accumulators): A is widened once per
// 5 or 6 FMAs instead of once per 3 and 2 (3 + 2 passes), which is what bound those passes:
// 1.2 - 1.25x in L2, 1.08 - 1.16x streaming (docs/cpu-perf.md, wave 7). With 6 rows of B and
// F16/BF16 weights, 4 x 3 tiles twice instead (B read from L2 a third less often than by 2 x 6:
// 1.13x through the op, wave 9); the 3 x 4 and 2 x G loops run a cache line of A per iteration
// (the prefetch test once per line; 1.03x at 8 rows of B in L2); with 5 rows of B, k blocks of
// 20 KB of B (in L1: 1.13x with A in L2, 1.06x streaming). Measured in wave 9 and not kept:
// 4 x 3 + 4 x 2 and 3 x 5 (B loads folded into the FMAs) at 5 rows of B, 4 x 3 passes at 7 and 8
// (0.9 - 1.0x), the 2 x 5 tile's prefetch 2, 4 or 8 rows ahead (the same).
// Measured on an AVX2 Zen core (1 thread, CPU time) and slower: 2 x 4 tiles with k blocks of
// 2048 (B in L2; 8 accumulators), the same with B blocks of 16 KB, B blocks of 32 KB (in L1:
// 0.8x, the short runs of A cost more than B's L2 loads) or 1 MB, no prefetch (0.85x), a
// prefetch 4 tiles ahead or into L2 only, widening the rows once into a float buffer, and the
// tile written with accumulator arrays (the compiler spilled them and folded the B loads into
// every FMA); B packed per k block into an L1-sized buffer (16 KB; A then streams in runs of
// 1 - 2 KB per row: 0.8x streaming and 0.85x in L2 at 5 .. 16 rows of B, prefetching 1, 2 or 4
// tiles ahead alike).

#include "x86-kernels.h"
#include "ggml-impl.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <math.h>

#define CK_R        3          // rows of A per tile
#define CK_G        4          // rows of B per pass over the tile
#define CK_B_BYTES  (128*1024) // bytes of B per k block (a quarter of L2: long runs of A per block)
#define CK_B_BYTES5 (20*1024)  // the same for the 2 x 5 tile with F16/BF16 weights (B in L1)
#define CK_KB_MIN   256        // k per block at least (fewer: the reductions dominate)
#define CK_KB_MAX   16384
#define CK_PF_TILES 1          // tiles of A prefetched ahead

#define CK_PF_HINT _MM_HINT_T0

#define CK_INLINE GGML_KERNEL_INLINE

// keeps v in a register: without it the compiler folds the load of a B vector into every FMA
// that uses it (one load per FMA instead of one per CK_R FMAs)
#define CK_IN_REG(v) __asm__("" : "+x"(v))

// 8 consecutive elements of type `type` as floats
GGML_TARGET_AVX2 CK_INLINE __m256 ck_load8(enum ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_F16:
            return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *) p));
        case GGML_TYPE_BF16:
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *) p)), 16));
        default:
            return _mm256_loadu_ps((const float *)(const void *) p);
    }
}

// 8 consecutive elements of a B row as floats: F16 (BH) or F32, from element k of row p
GGML_TARGET_AVX2 CK_INLINE __m256 ck_loadb(const bool BH, const void * p, int64_t k) {
    if (BH) {
        return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)((const ggml_fp16_t *) p + k)));
    }
    return _mm256_loadu_ps((const float *) p + k);
}

// element k of a B row as a float
GGML_TARGET_AVX2 CK_INLINE float ck_elemb(const bool BH, const void * p, int64_t k) {
    if (BH) {
        return _cvtsh_ss(((const ggml_fp16_t *) p)[k]);
    }
    return ((const float *) p)[k];
}

// the end of one row r of a tile: v[m] (the reduced sums for the G rows of B up to kb8) gets the
// k tail kb8 .. kb (fewer than 8 elements), then goes to out[m*ldo] (added when add)
GGML_TARGET_AVX2 CK_INLINE void ck_finish_row(enum ggml_type type, const bool BH, const int G, int64_t kb8, int64_t kb,
                                              const char * a_row, int64_t es, const void * const * b, float * v,
                                              float * out, int64_t ldo, bool add) {
    if (kb8 < kb) {
        float tail[8];
        ggml_mm_load_f32(type, a_row + kb8*es, es, kb - kb8, tail);
        for (int m = 0; m < G; m++) {
            for (int64_t kt = kb8; kt < kb; kt++) {
                v[m] += tail[kt - kb8]*ck_elemb(BH, b[m], kt);
            }
        }
    }
    for (int m = 0; m < G; m++) {
        out[m*ldo] = add ? out[m*ldo] + v[m] : v[m];
    }
}

// lane j = the sum of the 8 lanes of v[j], j < 4
GGML_TARGET_AVX2 CK_INLINE __m128 ck_reduce4(__m256 v0, __m256 v1, __m256 v2, __m256 v3) {
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(v0, v1), _mm256_hadd_ps(v2, v3));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

// one k step of 8 at element k: R rows of A (widened) times G rows of B into s
#define CK_STEP(k)                                                  \
    do {                                                            \
        __m256 av[CK_R];                                            \
        _Pragma("GCC unroll 4")                                     \
        for (int r = 0; r < R; r++) {                               \
            av[r] = ck_load8(type, a0 + r*s_r + (k)*es);            \
        }                                                           \
        _Pragma("GCC unroll 4")                                     \
        for (int m = 0; m < G; m++) {                               \
            __m256 bv = ck_loadb(BH, b[m], (k));                    \
            CK_IN_REG(bv);                                          \
            _Pragma("GCC unroll 4")                                 \
            for (int r = 0; r < R; r++) {                           \
                s[r][m] = _mm256_fmadd_ps(av[r], bv, s[r][m]);      \
            }                                                       \
        }                                                           \
    } while (0)

// out[m*ldo + r] (=|+=) dot(A row r, b[m]) over k < kb for r < R, m < G; A row r at a0 + r*s_r
// (type `type`), b[m] floats; the k tail past the last multiple of 8 element by element. PF is a
// mask of rows: the same block of those rows at pf is prefetched, a cache line per row as A's
// lines go.
GGML_TARGET_AVX2 CK_INLINE void ck_tile(enum ggml_type type, const bool BH, const int R, const int G, const int PF, int64_t kb,
                                        const char * a0, int64_t s_r, const void * const * b, float * out,
                                        int64_t ldo, bool add, const char * pf) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    const int64_t kb8 = kb & ~(int64_t) 7;
    const int64_t cl  = 64/es; // elements of A per cache line
    __m256 s[CK_R][CK_G];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
        for (int m = 0; m < G; m++) {
            s[r][m] = _mm256_setzero_ps();
        }
    }
    int64_t k = 0;
    for (; k + cl <= kb8; k += cl) {
        if (PF) {
#pragma GCC unroll 4
            for (int r = 0; r < R; r++) {
                if (PF & (1 << r)) {
                    _mm_prefetch(pf + r*s_r + k*es, CK_PF_HINT);
                }
            }
        }
#pragma GCC unroll 4
        for (int64_t kk = k; kk < k + cl; kk += 8) {
            CK_STEP(kk);
        }
    }
    for (; k < kb8; k += 8) {
        CK_STEP(k);
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++) {
        const __m256 z = _mm256_setzero_ps();
        float v[4];
        _mm_storeu_ps(v, ck_reduce4(s[r][0], G > 1 ? s[r][1] : z, G > 2 ? s[r][2] : z, G > 3 ? s[r][3] : z));
        ck_finish_row(type, BH, G, kb8, kb, a0 + r*s_r, es, b, v, out + r, ldo, add);
    }
}

// The main tile, 3 rows of A x 4 rows of B, written out with named accumulators: through the
// generic tile's arrays the compiler spills some of the 12 accumulators to the stack. (The
// edge tiles, fewer rows or B rows, use the generic ck_tile.)
#define CK_STEP34(k)                                                            \
    do {                                                                        \
        __m256 x0 = ck_load8(type, a0 + (k)*es); CK_IN_REG(x0);                 \
        __m256 x1 = ck_load8(type, a0 + s_r + (k)*es); CK_IN_REG(x1);           \
        __m256 x2 = ck_load8(type, a0 + 2*s_r + (k)*es); CK_IN_REG(x2);         \
        __m256 y = ck_loadb(BH, b0, (k)); CK_IN_REG(y);                     \
        c00 = _mm256_fmadd_ps(x0, y, c00);                                      \
        c10 = _mm256_fmadd_ps(x1, y, c10);                                      \
        c20 = _mm256_fmadd_ps(x2, y, c20);                                      \
        y = ck_loadb(BH, b1, (k)); CK_IN_REG(y);                            \
        c01 = _mm256_fmadd_ps(x0, y, c01);                                      \
        c11 = _mm256_fmadd_ps(x1, y, c11);                                      \
        c21 = _mm256_fmadd_ps(x2, y, c21);                                      \
        y = ck_loadb(BH, b2, (k)); CK_IN_REG(y);                            \
        c02 = _mm256_fmadd_ps(x0, y, c02);                                      \
        c12 = _mm256_fmadd_ps(x1, y, c12);                                      \
        c22 = _mm256_fmadd_ps(x2, y, c22);                                      \
        y = ck_loadb(BH, b3, (k)); CK_IN_REG(y);                            \
        c03 = _mm256_fmadd_ps(x0, y, c03);                                      \
        c13 = _mm256_fmadd_ps(x1, y, c13);                                      \
        c23 = _mm256_fmadd_ps(x2, y, c23);                                      \
    } while (0)

// the 3 x 4 case of ck_tile (same contract)
GGML_TARGET_AVX2 CK_INLINE void ck_tile34(enum ggml_type type, const bool BH, const int PF, int64_t kb, const char * a0,
                                          int64_t s_r, const void * const * b, float * out, int64_t ldo, bool add,
                                          const char * pf) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    const int64_t kb8 = kb & ~(int64_t) 7;
    const void * b0 = b[0], * b1 = b[1], * b2 = b[2], * b3 = b[3];
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c02 = c00, c03 = c00;
    __m256 c10 = c00, c11 = c00, c12 = c00, c13 = c00;
    __m256 c20 = c00, c21 = c00, c22 = c00, c23 = c00;
    const int64_t cl = 64/es; // elements of A per cache line
    int64_t k = 0;
    for (; k + cl <= kb8; k += cl) {
        if (PF & 1) {
            _mm_prefetch(pf + k*es, CK_PF_HINT);
        }
        if (PF & 2) {
            _mm_prefetch(pf + s_r + k*es, CK_PF_HINT);
        }
        if (PF & 4) {
            _mm_prefetch(pf + 2*s_r + k*es, CK_PF_HINT);
        }
#pragma GCC unroll 8
        for (int64_t kk = k; kk < k + cl; kk += 8) {
            CK_STEP34(kk);
        }
    }
    for (; k < kb8; k += 8) {
        CK_STEP34(k);
    }
    const __m256 * acc[3][4] = { { &c00, &c01, &c02, &c03 }, { &c10, &c11, &c12, &c13 }, { &c20, &c21, &c22, &c23 } };
    for (int r = 0; r < 3; r++) {
        float v[4];
        _mm_storeu_ps(v, ck_reduce4(*acc[r][0], *acc[r][1], *acc[r][2], *acc[r][3]));
        ck_finish_row(type, BH, 4, kb8, kb, a0 + r*s_r, es, b, v, out + r, ldo, add);
    }
}

// 2 rows of A x G = 5 or 6 rows of B in one pass (10 or 12 accumulators): A widened once per
// G FMAs of a row instead of once per 3 and 2 (3 + 2 passes at G = 5) or 3 + 3 (G = 6)
#define CK_FMA2(j)                                                              \
    do {                                                                        \
        if (G > (j)) {                                                          \
            __m256 y = ck_loadb(BH, b##j, k); CK_IN_REG(y);                     \
            d0##j = _mm256_fmadd_ps(x0, y, d0##j);                              \
            d1##j = _mm256_fmadd_ps(x1, y, d1##j);                              \
        }                                                                       \
    } while (0)

// one k step of 8 of the 2 x G tile
#define CK_STEP2(k)                                                             \
    do {                                                                        \
        __m256 x0 = ck_load8(type, a0 + (k)*es); CK_IN_REG(x0);                 \
        __m256 x1 = ck_load8(type, a0 + s_r + (k)*es); CK_IN_REG(x1);           \
        CK_FMA2(0); CK_FMA2(1); CK_FMA2(2); CK_FMA2(3); CK_FMA2(4); CK_FMA2(5); \
    } while (0)

// the 2 x G case of ck_tile (same contract; PF: rows 0 and 1 of pf)
GGML_TARGET_AVX2 CK_INLINE void ck_tile2(enum ggml_type type, const bool BH, const int G, const bool PF, int64_t kb,
                                         const char * a0, int64_t s_r, const void * const * b, float * out,
                                         int64_t ldo, bool add, const char * pf) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    const int64_t kb8 = kb & ~(int64_t) 7;
    const void * b0 = b[0], * b1 = b[1], * b2 = b[2], * b3 = b[3], * b4 = b[4];
    const void * b5 = G > 5 ? b[5] : b[4];
    __m256 d00 = _mm256_setzero_ps(), d01 = d00, d02 = d00, d03 = d00, d04 = d00, d05 = d00;
    __m256 d10 = d00, d11 = d00, d12 = d00, d13 = d00, d14 = d00, d15 = d00;
    const int64_t cl = 64/es; // elements of A per cache line
    int64_t k0 = 0;
    for (; k0 + cl <= kb8; k0 += cl) {
        if (PF) {
            _mm_prefetch(pf + k0*es, CK_PF_HINT);
            _mm_prefetch(pf + s_r + k0*es, CK_PF_HINT);
        }
#pragma GCC unroll 8
        for (int64_t k = k0; k < k0 + cl; k += 8) {
            CK_STEP2(k);
        }
    }
    for (int64_t k = k0; k < kb8; k += 8) {
        CK_STEP2(k);
    }
    const __m256 z = _mm256_setzero_ps();
    float v[2][8];
    _mm_storeu_ps(v[0], ck_reduce4(d00, d01, d02, d03));
    _mm_storeu_ps(v[0] + 4, ck_reduce4(d04, G > 5 ? d05 : z, z, z));
    _mm_storeu_ps(v[1], ck_reduce4(d10, d11, d12, d13));
    _mm_storeu_ps(v[1] + 4, ck_reduce4(d14, G > 5 ? d15 : z, z, z));
    for (int r = 0; r < 2; r++) {
        ck_finish_row(type, BH, G, kb8, kb, a0 + r*s_r, es, b, v[r], out + r, ldo, add);
    }
}

#define CK_FMA43(r)                                                             \
    do {                                                                        \
        __m256 x = ck_load8(type, a0 + (r)*s_r + k*es); CK_IN_REG(x);           \
        e##r##0 = _mm256_fmadd_ps(x, y0, e##r##0);                              \
        e##r##1 = _mm256_fmadd_ps(x, y1, e##r##1);                              \
        if (G > 2) e##r##2 = _mm256_fmadd_ps(x, y2, e##r##2);                   \
    } while (0)

// one k step of 8 of the 4 x G tile
#define CK_STEP4(k)                                                             \
    do {                                                                        \
        __m256 y0 = ck_loadb(BH, b0, k); CK_IN_REG(y0);                         \
        __m256 y1 = ck_loadb(BH, b1, k); CK_IN_REG(y1);                         \
        __m256 y2 = ck_loadb(BH, b2, k); CK_IN_REG(y2);                         \
        CK_FMA43(0); CK_FMA43(1); CK_FMA43(2); CK_FMA43(3);                     \
    } while (0)

// 4 rows of A x G = 2 or 3 rows of B (12 accumulators, the G vectors of B in registers): per 12
// FMAs 4 widenings and 3 float B loads, B read from L2 a third less often than by 2 x 6 tiles
// (same contract as ck_tile; PF: a mask of rows 0 .. 3 of pf)
GGML_TARGET_AVX2 CK_INLINE void ck_tile4(enum ggml_type type, const bool BH, const int G, const int PF, int64_t kb,
                                         const char * a0, int64_t s_r, const void * const * b, float * out,
                                         int64_t ldo, bool add, const char * pf) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    const int64_t kb8 = kb & ~(int64_t) 7;
    const void * b0 = b[0], * b1 = b[1], * b2 = G > 2 ? b[2] : b[1];
    __m256 e00 = _mm256_setzero_ps(), e01 = e00, e02 = e00;
    __m256 e10 = e00, e11 = e00, e12 = e00;
    __m256 e20 = e00, e21 = e00, e22 = e00;
    __m256 e30 = e00, e31 = e00, e32 = e00;
    for (int64_t k = 0; k < kb8; k += 8) {
        if (PF && ((k*es) & 63) == 0) {
            if (PF & 1) _mm_prefetch(pf + k*es, CK_PF_HINT);
            if (PF & 2) _mm_prefetch(pf + s_r + k*es, CK_PF_HINT);
            if (PF & 4) _mm_prefetch(pf + 2*s_r + k*es, CK_PF_HINT);
            if (PF & 8) _mm_prefetch(pf + 3*s_r + k*es, CK_PF_HINT);
        }
        CK_STEP4(k);
    }
    const __m256 z = _mm256_setzero_ps();
    float v[4][4];
    _mm_storeu_ps(v[0], ck_reduce4(e00, e01, G > 2 ? e02 : z, z));
    _mm_storeu_ps(v[1], ck_reduce4(e10, e11, G > 2 ? e12 : z, z));
    _mm_storeu_ps(v[2], ck_reduce4(e20, e21, G > 2 ? e22 : z, z));
    _mm_storeu_ps(v[3], ck_reduce4(e30, e31, G > 2 ? e32 : z, z));
    for (int r = 0; r < 4; r++) {
        ck_finish_row(type, BH, G, kb8, kb, a0 + r*s_r, es, b, v[r], out + r, ldo, add);
    }
}

// the passes of ck_rows4 over nb rows of B: of 3 rows, the last 4 or 2 rows in passes of 2
static int ck_passes4(int nb, int * g) {
    int n = 0;
    for (int m = 0; m < nb; m += g[n++]) {
        g[n] = nb - m >= 3 && nb - m != 4 ? 3 : 2;
    }
    return n;
}

// rows 0 .. nn - 1 of A from a0 in 4-row tiles against float rows of B in passes of 3 and 2;
// pass p of the n passes prefetches rows p, p + n, ... of the next tile, so that the memory
// stream is even (all 4 rows in the first pass: bursts that two threads' streams together do
// not get from memory; docs/cpu-perf.md, issue 19); answers the rows done (nn rounded down to 4)
GGML_TARGET_AVX2 CK_INLINE int64_t ck_rows4(enum ggml_type type, int64_t kb, const char * a0, int64_t s_r,
                                            const void * const * bk, int nh, int nb, int64_t nn, float * out,
                                            int64_t ldo, bool add) {
    if (nh != 0) {
        return 0;
    }
    int g[GGML_MM_COLS_MAX];
    const int n_pass = ck_passes4(nb, g);
    int64_t i = 0;
    for (; i + 4 <= nn; i += 4) {
        const char * ai = a0 + i*s_r;
        const char * pf = i + 8 <= nn ? ai + 4*s_r : NULL;
        float *      o  = out + i;
        for (int p = 0, m = 0; p < n_pass; m += g[p++]) {
            int mask = 0;
            for (int r = p; pf != NULL && r < 4; r += n_pass) {
                mask |= 1 << r;
            }
            if (g[p] == 3) ck_tile4(type, false, 3, mask, kb, ai, s_r, bk + m, o + m*ldo, ldo, add, pf);
            else           ck_tile4(type, false, 2, mask, kb, ai, s_r, bk + m, o + m*ldo, ldo, add, pf);
        }
    }
    return i;
}

// R rows of A from a0 against every row of B: the first nh rows (F16) CK_G at a time, then the
// float rows CK_G at a time (the last five as 3 + 2); pf (NULL: none) is the next tile's rows, of
// which pass p of the n_pass passes prefetches rows p, p + n_pass, ...
GGML_TARGET_AVX2 CK_INLINE void ck_rows(enum ggml_type type, const int R, int64_t kb, const char * a0, int64_t s_r,
                                        const void * const * bk, int nh, int nb, float * out, int64_t ldo, bool add,
                                        const char * pf) {
    const int n_pass = (nh + CK_G - 1)/CK_G + (nb - nh + CK_G - 1)/CK_G;
    for (int m = 0, pass = 0, g = 0; m < nb; m += g, pass++) {
        const bool bh = m < nh;
        // five rows left: 3 + 2, not 4 + 1 (a pass of one row of B is bound by widening A)
        const int left = bh ? nh - m : nb - m;
        g = left == CK_G + 1 ? CK_G - 1 : MIN(CK_G, left);
        int mask = 0;
        if (pf != NULL) {
            for (int r = pass; r < CK_R; r += n_pass) {
                mask |= 1 << r;
            }
        }
        const void * const * bm = bk + m;
        float * om = out + m*ldo;
        if (bh) {
            switch (g) {
                case 4:
                    if (R == 3) {
                        ck_tile34(type, true, mask, kb, a0, s_r, bm, om, ldo, add, pf);
                    } else {
                        ck_tile(type, true, R, 4, mask, kb, a0, s_r, bm, om, ldo, add, pf);
                    }
                    break;
                case 3:  ck_tile(type, true, R, 3, mask, kb, a0, s_r, bm, om, ldo, add, pf); break;
                case 2:  ck_tile(type, true, R, 2, mask, kb, a0, s_r, bm, om, ldo, add, pf); break;
                default: ck_tile(type, true, R, 1, mask, kb, a0, s_r, bm, om, ldo, add, pf); break;
            }
        } else {
            switch (g) {
                case 4:
                    if (R == 3) {
                        ck_tile34(type, false, mask, kb, a0, s_r, bm, om, ldo, add, pf);
                    } else {
                        ck_tile(type, false, R, 4, mask, kb, a0, s_r, bm, om, ldo, add, pf);
                    }
                    break;
                case 3:  ck_tile(type, false, R, 3, mask, kb, a0, s_r, bm, om, ldo, add, pf); break;
                case 2:  ck_tile(type, false, R, 2, mask, kb, a0, s_r, bm, om, ldo, add, pf); break;
                default: ck_tile(type, false, R, 1, mask, kb, a0, s_r, bm, om, ldo, add, pf); break;
            }
        }
    }
}

// rows 0 .. nn - 1 of A from a0 in 2 x nb tiles (nb = 5 or 6, the rows of B all F16 or all float),
// the next tile's rows prefetched; answers the rows done (nn rounded down to even)
GGML_TARGET_AVX2 CK_INLINE int64_t ck_rows2(enum ggml_type type, int64_t kb, const char * a0, int64_t s_r,
                                            const void * const * bk, int nh, int nb, int64_t nn, float * out,
                                            int64_t ldo, bool add) {
    if (nh != 0 && nh != nb) {
        return 0;
    }
    const bool bh = nh == nb;
    int64_t i = 0;
    for (; i + 2 <= nn; i += 2) {
        const char * ai = a0 + i*s_r;
        const char * pf = i + 4 <= nn ? ai + 2*s_r : NULL;
        float *      o  = out + i;
        if (pf == NULL) {
            if (bh) {
                if (nb == 5) ck_tile2(type, true, 5, false, kb, ai, s_r, bk, o, ldo, add, NULL);
                else         ck_tile2(type, true, 6, false, kb, ai, s_r, bk, o, ldo, add, NULL);
            } else {
                if (nb == 5) ck_tile2(type, false, 5, false, kb, ai, s_r, bk, o, ldo, add, NULL);
                else         ck_tile2(type, false, 6, false, kb, ai, s_r, bk, o, ldo, add, NULL);
            }
        } else if (bh) {
            if (nb == 5) ck_tile2(type, true, 5, true, kb, ai, s_r, bk, o, ldo, add, pf);
            else         ck_tile2(type, true, 6, true, kb, ai, s_r, bk, o, ldo, add, pf);
        } else {
            if (nb == 5) ck_tile2(type, false, 5, true, kb, ai, s_r, bk, o, ldo, add, pf);
            else         ck_tile2(type, false, 6, true, kb, ai, s_r, bk, o, ldo, add, pf);
        }
    }
    return i;
}

// k per block: B's block (nh rows of F16, the others float) within `bytes`, a multiple of 64
static int64_t ck_block_k(int nh, int nb, size_t bytes) {
    const size_t  per_k = (size_t) nh*sizeof(ggml_fp16_t) + (size_t)(nb - nh)*sizeof(float);
    const int64_t kb    = (int64_t)(bytes/per_k) & ~(int64_t) 63;
    return MAX((int64_t) CK_KB_MIN, MIN((int64_t) CK_KB_MAX, kb));
}

// rows b[m] of B: F16 for m < nh, float for the others
GGML_TARGET_AVX2 CK_INLINE void ck_run(enum ggml_type type, const struct ggml_mm_src * a, int64_t n0, int64_t nn,
                                       int64_t K, const void * const * b, int nh, int nb, float * out, int64_t ldo) {
    const int64_t es  = (int64_t) ggml_mm_type_size(type);
    // 5 rows of B (the 2 x 5 tile reads 32 bytes of B per 2 FMAs): B kept in L1 rather than L2,
    // 1.06x with F16 weights through the op, 1.02x BF16 (docs/cpu-perf.md, wave 9); 6 rows (4 x 3
    // tiles) measured 0.9x with it
    const bool    l1  = nb == 5 && type != GGML_TYPE_F32;
    const int64_t kbs = ck_block_k(nh, nb, l1 ? CK_B_BYTES5 : CK_B_BYTES);
    for (int64_t k0 = 0; k0 < K; k0 += kbs) {
        const int64_t kb  = MIN(kbs, K - k0);
        const bool    add = k0 > 0;
        const void * bk[GGML_MM_COLS_MAX];
        for (int m = 0; m < nb; m++) {
            bk[m] = (const char *) b[m] + (size_t) k0*(m < nh ? sizeof(ggml_fp16_t) : sizeof(float));
        }
        const char * a0 = a->data + n0*a->s_r + k0*es;
        int64_t i = 0;
        if (nb == 6 && type != GGML_TYPE_F32) {
            // 4 x 3 twice: 1.15x the 2 x 6 tile with F16 weights, streaming (docs/cpu-perf.md, wave 9)
            i = ck_rows4(type, kb, a0, a->s_r, bk, nh, nb, nn, out, ldo, add); // 1 - 3 last rows below
        }
        if (i == 0 && (nb == 5 || nb == 6)) {
            i = ck_rows2(type, kb, a0, a->s_r, bk, nh, nb, nn, out, ldo, add); // an odd last row below
        }
        for (; i + CK_R <= nn; i += CK_R) {
            const int64_t ip = i + CK_PF_TILES*CK_R;
            const char *  pf = CK_PF_TILES > 0 && ip + CK_R <= nn ? a0 + ip*a->s_r : NULL;
            ck_rows(type, CK_R, kb, a0 + i*a->s_r, a->s_r, bk, nh, nb, out + i, ldo, add, pf);
        }
        switch (nn - i) {
            case 3: ck_rows(type, 3, kb, a0 + i*a->s_r, a->s_r, bk, nh, nb, out + i, ldo, add, NULL); break;
            case 2: ck_rows(type, 2, kb, a0 + i*a->s_r, a->s_r, bk, nh, nb, out + i, ldo, add, NULL); break;
            case 1: ck_rows(type, 1, kb, a0 + i*a->s_r, a->s_r, bk, nh, nb, out + i, ldo, add, NULL); break;
            default: break;
        }
    }
}

// rows of B outside 1 .. GGML_MM_COLS_MAX: the op never asks for it; NaN results and a message
static bool ck_nb_ok(const char * fn, int nb, float * out, int64_t nn, int64_t ldo) {
    if (nb >= 1 && nb <= GGML_MM_COLS_MAX) {
        return true;
    }
    GGML_LOG_ERROR("%s: %d rows of B (1 .. %d)\n", fn, nb, GGML_MM_COLS_MAX);
    for (int m = 0; m < nb; m++) {
        for (int64_t i = 0; i < nn; i++) {
            out[m*ldo + i] = NAN;
        }
    }
    return false;
}

// the weight type as a compile-time constant of ck_run
GGML_TARGET_AVX2 static void ck_dispatch(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K, const void * const * b, int nh,
                        int nb, float * out, int64_t ldo) {
    switch (a->type) {
        case GGML_TYPE_F16:  ck_run(GGML_TYPE_F16,  a, n0, nn, K, b, nh, nb, out, ldo); break;
        case GGML_TYPE_BF16: ck_run(GGML_TYPE_BF16, a, n0, nn, K, b, nh, nb, out, ldo); break;
        case GGML_TYPE_F32:  ck_run(GGML_TYPE_F32,  a, n0, nn, K, b, nh, nb, out, ldo); break;
        default:             ggml_mm_unknown_type(a->type, out, nn, nb, ldo); break;
    }
}

GGML_TARGET_AVX2 void ggml_cpu_gemv_cols_avx2(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                              const float * const * b, int nb, float * out, int64_t ldo) {
    if (!ck_nb_ok(__func__, nb, out, nn, ldo)) {
        return;
    }
    const void * bv[GGML_MM_COLS_MAX];
    for (int m = 0; m < nb; m++) {
        bv[m] = b[m];
    }
    ck_dispatch(a, n0, nn, K, bv, 0, nb, out, ldo);
}

GGML_TARGET_AVX2 void ggml_cpu_gemv_cols_h_avx2(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                                const float * const * b, const ggml_fp16_t * const * bh, int nh,
                                                int nb, float * out, int64_t ldo) {
    if (!ck_nb_ok(__func__, nb, out, nn, ldo)) {
        return;
    }
    const void * bv[GGML_MM_COLS_MAX];
    for (int m = 0; m < nb; m++) {
        bv[m] = m < nh ? (const void *) bh[m] : (const void *) b[m];
    }
    ck_dispatch(a, n0, nn, K, bv, MAX(0, MIN(nh, nb)), nb, out, ldo);
}

#else

typedef int ggml_avx2_gemv_cols_unused;

#endif // GGML_CPU_X86
