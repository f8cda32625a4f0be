// The AVX-512 table of the CPU kernels (cpu-kernels.h, docs/cpu-kernels.md): the attention,
// conv and rope kernels of this level, and the table that gathers them with the row helpers
// (avx512-vec.c) and the matrix-product kernel set (avx512-gemm.c).

#include "x86-kernels.h"
#include "avx512-quant.h"
#include "ggml-impl.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

// mask of the first n (< 16) lanes
#define FA_MASK16(n) ((__mmask16) ((1u << (n)) - 1))

//
// FLASH_ATTN_EXT: dot products of up to GGML_CPU_ATTN_ROWS query rows with one K row, and
// accumulation of one V row into as many accumulators; K/V rows of type F32, F16 or BF16. The row
// count is a compile-time constant in each instance, so the accumulators stay in registers.
//

// 16 elements of type t widened to float (the tail variant reads only n < 16 of them)
GGML_TARGET_AVX512 static inline __m512 fa_widen16(__m256i h, enum ggml_type t) {
    return t == GGML_TYPE_F16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
GGML_TARGET_AVX512 static inline __m512 fa_load16(const void * y, int64_t i, enum ggml_type t) {
    if (t == GGML_TYPE_F32) {
        return _mm512_loadu_ps((const float *) y + i);
    }
    return fa_widen16(_mm256_loadu_si256((const __m256i *) ((const uint16_t *) y + i)), t);
}
GGML_TARGET_AVX512 static inline __m512 fa_load16_tail(const void * y, int64_t i, enum ggml_type t, int64_t n) {
    if (t == GGML_TYPE_F32) {
        return _mm512_maskz_loadu_ps(FA_MASK16(n), (const float *) y + i);
    }
    return fa_widen16(_mm256_maskz_loadu_epi16(FA_MASK16(n), (const uint16_t *) y + i), t);
}

__attribute__((always_inline)) GGML_TARGET_AVX512 static inline void fa_dot_avx512_n(const int nr, int64_t n,
        const float * const * q, const void * y, enum ggml_type ty, float * out) {
    __m512 a[GGML_CPU_ATTN_ROWS];
    for (int r = 0; r < nr; r++) {
        a[r] = _mm512_setzero_ps();
    }
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 kv = fa_load16(y, i, ty);
        for (int r = 0; r < nr; r++) {
            a[r] = _mm512_fmadd_ps(_mm512_loadu_ps(q[r] + i), kv, a[r]);
        }
    }
    if (i < n) {
        const __m512 kv = fa_load16_tail(y, i, ty, n - i);
        for (int r = 0; r < nr; r++) {
            a[r] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(FA_MASK16(n - i), q[r] + i), kv, a[r]);
        }
    }
    for (int r = 0; r < nr; r++) {
        out[r] = _mm512_reduce_add_ps(a[r]);
    }
}
__attribute__((always_inline)) GGML_TARGET_AVX512 static inline void fa_axpy_avx512_n(const int nr, int64_t n,
        const float * w, const void * x, enum ggml_type tx, float * const * acc) {
    __m512 vw[GGML_CPU_ATTN_ROWS];
    for (int r = 0; r < nr; r++) {
        vw[r] = _mm512_set1_ps(w[r]);
    }
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 xv = fa_load16(x, i, tx);
        for (int r = 0; r < nr; r++) {
            _mm512_storeu_ps(acc[r] + i, _mm512_fmadd_ps(xv, vw[r], _mm512_loadu_ps(acc[r] + i)));
        }
    }
    if (i < n) {
        const __mmask16 k = FA_MASK16(n - i);
        const __m512 xv = fa_load16_tail(x, i, tx, n - i);
        for (int r = 0; r < nr; r++) {
            _mm512_mask_storeu_ps(acc[r] + i, k, _mm512_fmadd_ps(xv, vw[r], _mm512_maskz_loadu_ps(k, acc[r] + i)));
        }
    }
}

#define ATTN_INSTANCE(NR) \
    GGML_TARGET_AVX512 static void attn_dot_avx512_##NR(int64_t n, const float * const * q, const void * y, enum ggml_type t, float * out) { \
        fa_dot_avx512_n(NR, n, q, y, t, out); } \
    GGML_TARGET_AVX512 static void attn_axpy_avx512_##NR(int64_t n, const float * w, const void * x, enum ggml_type t, float * const * acc) { \
        fa_axpy_avx512_n(NR, n, w, x, t, acc); }
ATTN_INSTANCE(1)
ATTN_INSTANCE(2)
ATTN_INSTANCE(3)
ATTN_INSTANCE(4)
#undef ATTN_INSTANCE

// CONV_2D tile (ggml_cpu_conv2d_tile_fn)
GGML_TARGET_AVX512 static void conv2d_tile_avx512(int64_t K, const float * const w[4], const float * colsT, int64_t P, int64_t p0, float out[4][16]) {
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    const float * c = colsT + p0;
    for (int64_t k = 0; k < K; k++, c += P) {
        const __m512 v = _mm512_loadu_ps(c);
        a0 = _mm512_fmadd_ps(_mm512_set1_ps(w[0][k]), v, a0);
        a1 = _mm512_fmadd_ps(_mm512_set1_ps(w[1][k]), v, a1);
        a2 = _mm512_fmadd_ps(_mm512_set1_ps(w[2][k]), v, a2);
        a3 = _mm512_fmadd_ps(_mm512_set1_ps(w[3][k]), v, a3);
    }
    _mm512_storeu_ps(out[0], a0);
    _mm512_storeu_ps(out[1], a1);
    _mm512_storeu_ps(out[2], a2);
    _mm512_storeu_ps(out[3], a3);
}

// ROPE rotations (ggml_cpu_rope_normal_fn, ggml_cpu_rope_half_fn)
GGML_TARGET_AVX512 static void rope_normal_avx512(int64_t n, const float * x, float * y, const float * cc, const float * ss) {
    for (int64_t j = 0; j < n; j += 16) {
        const __mmask16 k = n - j >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << (n - j)) - 1);
        const __m512 v = _mm512_maskz_loadu_ps(k, x + j);
        const __m512 w = _mm512_permute_ps(v, 0xB1);
        _mm512_mask_storeu_ps(y + j, k, _mm512_fmadd_ps(v, _mm512_maskz_loadu_ps(k, cc + j),
                                                        _mm512_mul_ps(w, _mm512_maskz_loadu_ps(k, ss + j))));
    }
}
GGML_TARGET_AVX512 static void rope_half_avx512(int64_t n, int64_t half, const float * x, float * y, const float * c, const float * s) {
    for (int64_t p = 0; p < n; p += 16) {
        const __mmask16 k = n - p >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << (n - p)) - 1);
        const __m512 x0 = _mm512_maskz_loadu_ps(k, x + p), x1 = _mm512_maskz_loadu_ps(k, x + p + half);
        const __m512 vc = _mm512_maskz_loadu_ps(k, c + p), vs = _mm512_maskz_loadu_ps(k, s + p);
        _mm512_mask_storeu_ps(y + p,        k, _mm512_fmsub_ps(x0, vc, _mm512_mul_ps(x1, vs)));
        _mm512_mask_storeu_ps(y + p + half, k, _mm512_fmadd_ps(x0, vs, _mm512_mul_ps(x1, vc)));
    }
}

const struct ggml_cpu_kernels ggml_cpu_kernels_avx512 = {
    .level       = GGML_CPU_ISA_AVX512,
    .name        = "avx512",
    .vec         = &ggml_cpu_vec_avx512,
    .mm          = &ggml_cpu_mm_avx512,
    .gemv_cols   = ggml_cpu_gemv_cols_avx512,
    .attn_dot    = { NULL, attn_dot_avx512_1, attn_dot_avx512_2, attn_dot_avx512_3, attn_dot_avx512_4 },
    .attn_axpy   = { NULL, attn_axpy_avx512_1, attn_axpy_avx512_2, attn_axpy_avx512_3, attn_axpy_avx512_4 },
    .conv2d_tile = conv2d_tile_avx512,
    .rope_normal = rope_normal_avx512,
    .rope_half   = rope_half_avx512,
    .quant       = GGML_CPU_QUANT_AVX512_SLOTS, // avx512-quant*.c; the VNNI ones are laid over by cpu-kernels.c
};

#else

// nothing to build on other architectures (ISO C wants a declaration in every file)
typedef int ggml_avx512_table_unused;

#endif // GGML_CPU_X86
