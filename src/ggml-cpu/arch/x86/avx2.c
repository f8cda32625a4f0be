// The AVX2 (+FMA, F16C) table of the CPU kernels (cpu-kernels.h, docs/cpu-kernels.md): the attention,
// conv and rope kernels of this level, and the table that gathers them with the row helpers
// (avx2-vec.c) and the matrix-product kernel set (avx2-gemm.c).

#include "x86-kernels.h"
#include "avx2-quant.h"
#include "ggml-impl.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

//
// FLASH_ATTN_EXT: dot products of up to GGML_CPU_ATTN_ROWS query rows with one K row, and
// accumulation of one V row into as many accumulators; K/V rows of type F32, F16 or BF16. The row
// count is a compile-time constant in each instance, so the accumulators stay in registers.
//

GGML_TARGET_AVX2 static inline float fa_hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// 8 elements of type t widened to float
GGML_TARGET_AVX2 static inline __m256 fa_load8(const void * y, int64_t i, enum ggml_type t) {
    if (t == GGML_TYPE_F32) {
        return _mm256_loadu_ps((const float *) y + i);
    }
    const __m128i h = _mm_loadu_si128((const __m128i *) ((const uint16_t *) y + i));
    return t == GGML_TYPE_F16 ? _mm256_cvtph_ps(h) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

__attribute__((always_inline)) GGML_TARGET_AVX2 static inline void fa_dot_avx2_n(const int nr, int64_t n,
        const float * const * q, const void * y, enum ggml_type ty, float * out) {
    __m256 a[GGML_CPU_ATTN_ROWS];
    for (int r = 0; r < nr; r++) {
        a[r] = _mm256_setzero_ps();
    }
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 kv = fa_load8(y, i, ty);
        for (int r = 0; r < nr; r++) {
            a[r] = _mm256_fmadd_ps(_mm256_loadu_ps(q[r] + i), kv, a[r]);
        }
    }
    for (int r = 0; r < nr; r++) {
        float t = fa_hsum256(a[r]);
        for (int64_t j = i; j < n; j++) {
            t += q[r][j]*ggml_vec_load_elem(ty, (const char *) y + j*ggml_type_size(ty));
        }
        out[r] = t;
    }
}
__attribute__((always_inline)) GGML_TARGET_AVX2 static inline void fa_axpy_avx2_n(const int nr, int64_t n,
        const float * w, const void * x, enum ggml_type tx, float * const * acc) {
    __m256 vw[GGML_CPU_ATTN_ROWS];
    for (int r = 0; r < nr; r++) {
        vw[r] = _mm256_set1_ps(w[r]);
    }
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 xv = fa_load8(x, i, tx);
        for (int r = 0; r < nr; r++) {
            _mm256_storeu_ps(acc[r] + i, _mm256_fmadd_ps(xv, vw[r], _mm256_loadu_ps(acc[r] + i)));
        }
    }
    for (; i < n; i++) {
        const float xv = ggml_vec_load_elem(tx, (const char *) x + i*ggml_type_size(tx));
        for (int r = 0; r < nr; r++) {
            acc[r][i] += w[r]*xv;
        }
    }
}

#define ATTN_INSTANCE(NR) \
    GGML_TARGET_AVX2 static void attn_dot_avx2_##NR(int64_t n, const float * const * q, const void * y, enum ggml_type t, float * out) { \
        fa_dot_avx2_n(NR, n, q, y, t, out); } \
    GGML_TARGET_AVX2 static void attn_axpy_avx2_##NR(int64_t n, const float * w, const void * x, enum ggml_type t, float * const * acc) { \
        fa_axpy_avx2_n(NR, n, w, x, t, acc); }
ATTN_INSTANCE(1)
ATTN_INSTANCE(2)
ATTN_INSTANCE(3)
ATTN_INSTANCE(4)
#undef ATTN_INSTANCE

// CONV_2D tile (ggml_cpu_conv2d_tile_fn)
GGML_TARGET_AVX2 static void conv2d_tile_avx2(int64_t K, const float * const w[4], const float * colsT, int64_t P, int64_t p0, float out[4][16]) {
    __m256 a[4][2];
    for (int o = 0; o < 4; o++) {
        a[o][0] = _mm256_setzero_ps();
        a[o][1] = _mm256_setzero_ps();
    }
    const float * c = colsT + p0;
    for (int64_t k = 0; k < K; k++, c += P) {
        const __m256 v0 = _mm256_loadu_ps(c), v1 = _mm256_loadu_ps(c + 8);
        for (int o = 0; o < 4; o++) {
            const __m256 wk = _mm256_broadcast_ss(&w[o][k]);
            a[o][0] = _mm256_fmadd_ps(wk, v0, a[o][0]);
            a[o][1] = _mm256_fmadd_ps(wk, v1, a[o][1]);
        }
    }
    for (int o = 0; o < 4; o++) {
        _mm256_storeu_ps(out[o], a[o][0]);
        _mm256_storeu_ps(out[o] + 8, a[o][1]);
    }
}

// ROPE rotations (ggml_cpu_rope_normal_fn, ggml_cpu_rope_half_fn)
GGML_TARGET_AVX2 static void rope_normal_avx2(int64_t n, const float * x, float * y, const float * cc, const float * ss) {
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256 v = _mm256_loadu_ps(x + j);
        const __m256 w = _mm256_permute_ps(v, 0xB1); // swap the two members of each pair
        _mm256_storeu_ps(y + j, _mm256_fmadd_ps(v, _mm256_loadu_ps(cc + j), _mm256_mul_ps(w, _mm256_loadu_ps(ss + j))));
    }
    for (; j < n; j += 2) {
        const float x0 = x[j], x1 = x[j + 1];
        y[j]     = x0*cc[j] + x1*ss[j];
        y[j + 1] = x1*cc[j + 1] + x0*ss[j + 1];
    }
}
GGML_TARGET_AVX2 static void rope_half_avx2(int64_t n, int64_t half, const float * x, float * y, const float * c, const float * s) {
    int64_t p = 0;
    for (; p + 8 <= n; p += 8) {
        const __m256 x0 = _mm256_loadu_ps(x + p), x1 = _mm256_loadu_ps(x + p + half);
        const __m256 vc = _mm256_loadu_ps(c + p), vs = _mm256_loadu_ps(s + p);
        _mm256_storeu_ps(y + p,        _mm256_fmsub_ps(x0, vc, _mm256_mul_ps(x1, vs)));
        _mm256_storeu_ps(y + p + half, _mm256_fmadd_ps(x0, vs, _mm256_mul_ps(x1, vc)));
    }
    for (; p < n; p++) {
        const float x0 = x[p], x1 = x[p + half];
        y[p]        = x0*c[p] - x1*s[p];
        y[p + half] = x0*s[p] + x1*c[p];
    }
}

const struct ggml_cpu_kernels ggml_cpu_kernels_avx2 = {
    .level       = GGML_CPU_ISA_AVX2,
    .name        = "avx2",
    .vec         = &ggml_cpu_vec_avx2,
    .mm          = &ggml_cpu_mm_avx2,
    .gemv_cols   = ggml_cpu_gemv_cols_avx2,
    .gemv_cols_h = ggml_cpu_gemv_cols_h_avx2,
    .attn_dot    = { NULL, attn_dot_avx2_1, attn_dot_avx2_2, attn_dot_avx2_3, attn_dot_avx2_4 },
    .attn_axpy   = { NULL, attn_axpy_avx2_1, attn_axpy_avx2_2, attn_axpy_avx2_3, attn_axpy_avx2_4 },
    .conv2d_tile = conv2d_tile_avx2,
    .rope_normal = rope_normal_avx2,
    .rope_half   = rope_half_avx2,
    .fwht        = ggml_cpu_fwht_avx2,
    .quant       = GGML_CPU_QUANT_AVX2_SLOTS, // avx2-quant.c; the other types: portable's
};

#else

// nothing to build on other architectures (ISO C wants a declaration in every file)
typedef int ggml_avx2_table_unused;

#endif // GGML_CPU_X86
