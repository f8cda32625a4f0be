#pragma once

// Helpers shared by the nn kernel families (ops-norm.c, ops-rope.c, ops-attn.c, ops-conv.c) that
// the row helpers of ggml-cpu-vec.h do not provide: single elements of the float types, the ALiBi
// slope, and dot products / axpy whose second row is F16 or BF16 (widened on the fly, so that
// flash attention reads K and V rows without a conversion pass). F32 rows go to the vec table.
// The SIMD variants use function attributes only (no -march flags needed) and are picked by the
// level of the vec table in use.
//
// Everything here is static: each including file gets its own copy of what it uses.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-isa.h"
#include "ggml-cpu-vec.h"

#include <math.h>
#include <stdint.h>

#if GGML_CPU_X86
#    include <immintrin.h>
#endif

#if defined(__GNUC__)
#    define NN_UNUSED_FN __attribute__((unused))
#else
#    define NN_UNUSED_FN
#endif

typedef const struct ggml_vec_funcs * nn_vf;

// One element of type F32, F16 or BF16 (other types: 0).
static inline float nn_load_elem(enum ggml_type type, const void * p) {
    switch (type) {
        case GGML_TYPE_F32: {
            float v;
            memcpy(&v, p, sizeof(v));
            return v;
        }
        case GGML_TYPE_F16: {
            ggml_fp16_t h;
            memcpy(&h, p, sizeof(h));
            return GGML_FP16_TO_FP32(h);
        }
        case GGML_TYPE_BF16: {
            ggml_bf16_t h;
            memcpy(&h, p, sizeof(h));
            return GGML_BF16_TO_FP32(h);
        }
        default:
            return 0.0f;
    }
}

// ALiBi slope of head h out of n_head (1 when max_bias <= 0), the family's definition.
static inline float nn_alibi_slope(float max_bias, int64_t n_head, int64_t h) {
    if (!(max_bias > 0.0f)) {
        return 1.0f;
    }
    int64_t n_head_log2 = 1;
    while (n_head_log2*2 <= n_head) {
        n_head_log2 *= 2;
    }
    const double m0 = pow(2.0, -(double) max_bias / (double) n_head_log2);
    const double m1 = pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);
    return (float) (h < n_head_log2 ? pow(m0, (double) (h + 1)) : pow(m1, (double) (2*(h - n_head_log2) + 1)));
}

// mask of the first n (< 16) lanes
#define NN_MASK16(n) ((__mmask16) ((1u << (n)) - 1))

//
// dot products and axpy with a second row of type F16 or BF16
//

#if GGML_CPU_X86

GGML_TARGET_AVX2 static inline float nn_hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// 8 / 16 elements widened to float
GGML_TARGET_AVX2 static inline __m256 nn_load8(const void * p, enum ggml_type t) {
    const __m128i h = _mm_loadu_si128((const __m128i *) p);
    return t == GGML_TYPE_F16 ? _mm256_cvtph_ps(h) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
GGML_TARGET_AVX512 static inline __m512 nn_load16(const void * p, enum ggml_type t) {
    const __m256i h = _mm256_loadu_si256((const __m256i *) p);
    return t == GGML_TYPE_F16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
GGML_TARGET_AVX512 static inline __m512 nn_load16_tail(const void * p, enum ggml_type t, int64_t n) {
    const __m256i h = _mm256_maskz_loadu_epi16(NN_MASK16(n), p);
    return t == GGML_TYPE_F16 ? _mm512_cvtph_ps(h) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

GGML_TARGET_AVX2 static float nn_dot_h_avx2(int64_t n, const float * x, const void * y, enum ggml_type ty) {
    const uint16_t * yh = (const uint16_t *) y;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i),     nn_load8(yh + i, ty),     a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), nn_load8(yh + i + 8, ty), a1);
    }
    for (; i + 8 <= n; i += 8) {
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), nn_load8(yh + i, ty), a0);
    }
    float s = nn_hsum256(_mm256_add_ps(a0, a1));
    for (; i < n; i++) {
        s += x[i]*nn_load_elem(ty, yh + i);
    }
    return s;
}
GGML_TARGET_AVX512 static float nn_dot_h_avx512(int64_t n, const float * x, const void * y, enum ggml_type ty) {
    const uint16_t * yh = (const uint16_t *) y;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i),      nn_load16(yh + i, ty),      a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), nn_load16(yh + i + 16, ty), a1);
    }
    for (; i + 16 <= n; i += 16) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), nn_load16(yh + i, ty), a0);
    }
    if (i < n) {
        a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(NN_MASK16(n - i), x + i), nn_load16_tail(yh + i, ty, n - i), a1);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
}
GGML_TARGET_AVX2 static void nn_axpy_h_avx2(int64_t n, float a, const void * x, enum ggml_type tx, float * y) {
    const uint16_t * xh = (const uint16_t *) x;
    const __m256 va = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(nn_load8(xh + i, tx), va, _mm256_loadu_ps(y + i)));
    }
    for (; i < n; i++) {
        y[i] += a*nn_load_elem(tx, xh + i);
    }
}
GGML_TARGET_AVX512 static void nn_axpy_h_avx512(int64_t n, float a, const void * x, enum ggml_type tx, float * y) {
    const uint16_t * xh = (const uint16_t *) x;
    const __m512 va = _mm512_set1_ps(a);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(y + i, _mm512_fmadd_ps(nn_load16(xh + i, tx), va, _mm512_loadu_ps(y + i)));
    }
    if (i < n) {
        const __mmask16 k = NN_MASK16(n - i);
        _mm512_mask_storeu_ps(y + i, k, _mm512_fmadd_ps(nn_load16_tail(xh + i, tx, n - i), va, _mm512_maskz_loadu_ps(k, y + i)));
    }
}

#endif // GGML_CPU_X86

// sum x[i]*y[i]: x F32, y of type ty (F32, F16 or BF16), contiguous
static NN_UNUSED_FN float nn_dot(nn_vf vf, int64_t n, const float * x, const void * y, enum ggml_type ty) {
    if (ty == GGML_TYPE_F32) {
        return vf->dot_f32(n, x, (const float *) y);
    }
#if GGML_CPU_X86
    if (vf->level >= GGML_CPU_ISA_AVX512) return nn_dot_h_avx512(n, x, y, ty);
    if (vf->level >= GGML_CPU_ISA_AVX2)   return nn_dot_h_avx2(n, x, y, ty);
#endif
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += (double) x[i]*nn_load_elem(ty, (const uint16_t *) y + i);
    }
    return (float) s;
}

// y[i] += a*x[i]: x of type tx (F32, F16 or BF16), contiguous
static NN_UNUSED_FN void nn_axpy(nn_vf vf, int64_t n, float a, const void * x, enum ggml_type tx, float * y) {
    if (tx == GGML_TYPE_F32) {
        vf->mad_f32(n, y, (const float *) x, a);
        return;
    }
#if GGML_CPU_X86
    if (vf->level >= GGML_CPU_ISA_AVX512) { nn_axpy_h_avx512(n, a, x, tx, y); return; }
    if (vf->level >= GGML_CPU_ISA_AVX2)   { nn_axpy_h_avx2(n, a, x, tx, y);   return; }
#endif
    for (int64_t i = 0; i < n; i++) {
        y[i] += a*nn_load_elem(tx, (const uint16_t *) x + i);
    }
}
