// Row-level vector helpers for AVX-512 (F, BW, DQ, VL; 16 lanes): the struct ggml_vec_funcs of that level (contract in
// ggml-cpu-vec.h, approximations in x86-vec-common.h, layout in docs/cpu-kernels.md).

#include "x86-vec-common.h"

#if GGML_CPU_X86

//
// ======================== AVX-512 (16 lanes) ========================
//

#define S16(v) _mm512_set1_ps(v)

T5 static inline __m512 v16_exp_finish(__m512 n, __m512 r) {
    __m512 p = S16(C_E7);
    p = _mm512_fmadd_ps(p, r, S16(C_E6));
    p = _mm512_fmadd_ps(p, r, S16(C_E5));
    p = _mm512_fmadd_ps(p, r, S16(C_E4));
    p = _mm512_fmadd_ps(p, r, S16(C_E3));
    p = _mm512_fmadd_ps(p, r, S16(0.5f));
    p = _mm512_fmadd_ps(p, r, S16(1.0f));
    p = _mm512_fmadd_ps(p, r, S16(1.0f));
    return _mm512_scalef_ps(p, n); // p*2^n, rounding once into subnormals / overflowing to inf
}

T5 static inline __m512 v16_exp(__m512 x) {
    x = _mm512_min_ps(S16(C_EXP_HI), x);
    x = _mm512_max_ps(S16(C_EXP_LO), x);
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, S16(C_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, S16(C_LN2_HI), x);
    r = _mm512_fnmadd_ps(n, S16(C_LN2_LO), r);
    return v16_exp_finish(n, r);
}

// e^x with results below FLT_MIN flushed to 0 (see C_EXP_TINY)
T5 static inline __m512 v16_exp_ftz(__m512 x) {
    const __mmask16 tiny = _mm512_cmp_ps_mask(x, S16(C_EXP_TINY), _CMP_LT_OQ); // false for NaN
    return _mm512_maskz_mov_ps((__mmask16) ~tiny, v16_exp(_mm512_max_ps(S16(C_EXP_TINY), x)));
}

T5 static inline __m512 v16_exp_hilo(__m512 h, __m512 l) {
    h = _mm512_max_ps(S16(C_EXP_LO), h);
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(_mm512_add_ps(h, l), S16(C_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, S16(C_LN2_HI), h);
    r = _mm512_fnmadd_ps(n, S16(C_LN2_LO), r);
    r = _mm512_add_ps(r, l);
    return v16_exp_finish(n, r);
}

T5 static inline __m512 v16_expm1(__m512 x) {
    const __mmask16 small = _mm512_cmp_ps_mask(_mm512_abs_ps(x), S16(1.0f), _CMP_LT_OQ);
    __m512 q = S16(C_M11);
    q = _mm512_fmadd_ps(q, x, S16(C_M10));
    q = _mm512_fmadd_ps(q, x, S16(C_M9));
    q = _mm512_fmadd_ps(q, x, S16(C_M8));
    q = _mm512_fmadd_ps(q, x, S16(C_M7));
    q = _mm512_fmadd_ps(q, x, S16(C_M6));
    q = _mm512_fmadd_ps(q, x, S16(C_M5));
    q = _mm512_fmadd_ps(q, x, S16(C_M4));
    q = _mm512_fmadd_ps(q, x, S16(C_M3));
    q = _mm512_fmadd_ps(q, x, S16(C_M2));
    q = _mm512_fmadd_ps(q, x, S16(1.0f));
    const __m512 poly = _mm512_mul_ps(q, x);
    const __m512 big  = _mm512_sub_ps(v16_exp(x), S16(1.0f));
    return _mm512_mask_blend_ps(small, big, poly);
}

T5 static inline __m512 v16_tanh(__m512 x) {
    const __m512 ax = _mm512_min_ps(S16(10.0f), _mm512_abs_ps(x));
    const __m512 t  = v16_expm1(_mm512_add_ps(ax, ax));
    const __m512 r  = _mm512_div_ps(t, _mm512_add_ps(t, S16(2.0f)));
    return _mm512_or_ps(r, _mm512_and_ps(S16(-0.0f), x));
}

T5 static inline __m512 v16_sigmoid(__m512 x) {
    const __m512 e = v16_exp(_mm512_or_ps(x, S16(-0.0f)));
    const __m512 s = _mm512_div_ps(S16(1.0f), _mm512_add_ps(S16(1.0f), e));
    return _mm512_mask_mul_ps(s, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), e, s);
}

T5 static inline __m512 v16_silu(__m512 x) {
    return _mm512_mul_ps(x, v16_sigmoid(x));
}

T5 static inline __m512 v16_gelu(__m512 x) {
    const __m512 x2 = _mm512_mul_ps(x, x);
    return _mm512_mul_ps(x, v16_sigmoid(_mm512_mul_ps(x, _mm512_fmadd_ps(S16(C_GELU_K1), x2, S16(C_GELU_K0)))));
}

T5 static inline __m512 v16_gelu_quick(__m512 x) {
    return _mm512_mul_ps(x, v16_sigmoid(_mm512_mul_ps(x, S16(C_GELU_Q))));
}

T5 static inline __m512 v16_gelu_erf(__m512 x) {
    const __m512 a = _mm512_mul_ps(_mm512_abs_ps(x), S16(C_SQRT1_2));
    const __m512 t = _mm512_div_ps(S16(1.0f), _mm512_fmadd_ps(S16(0.5f), a, S16(1.0f)));
    __m512 p = S16(C_ERF9);
    p = _mm512_fmadd_ps(p, t, S16(C_ERF8));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF7));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF6));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF5));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF4));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF3));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF2));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF1));
    p = _mm512_fmadd_ps(p, t, S16(C_ERF0));
    const __m512 x2 = _mm512_mul_ps(x, x);
    const __m512 hi = _mm512_mul_ps(x2, S16(0.5f));
    const __m512 lo = _mm512_mul_ps(_mm512_fmsub_ps(x, x, x2), S16(0.5f));
    const __mmask16 big = _mm512_cmp_ps_mask(a, S16(10.0f), _CMP_GT_OQ);
    __m512 ec = _mm512_mul_ps(t, v16_exp_hilo(_mm512_xor_ps(hi, S16(-0.0f)), _mm512_sub_ps(p, lo)));
    ec = _mm512_mask_blend_ps(big, ec, _mm512_setzero_ps());
    const __m512 half = _mm512_mul_ps(_mm512_mul_ps(S16(0.5f), x), ec);
    const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LE_OQ);
    const __m512 r = _mm512_mask_blend_ps(neg, _mm512_sub_ps(x, half), half);
    const __mmask16 pos_big = big & _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    return _mm512_mask_blend_ps(pos_big, r, x);
}

T5 static inline __m512 v16_relu(__m512 x) { return _mm512_max_ps(x, _mm512_setzero_ps()); }
T5 static inline __m512 v16_abs(__m512 x) { return _mm512_abs_ps(x); }
T5 static inline __m512 v16_neg(__m512 x) { return _mm512_xor_ps(S16(-0.0f), x); }
T5 static inline __m512 v16_sqr(__m512 x) { return _mm512_mul_ps(x, x); }
T5 static inline __m512 v16_sqrt(__m512 x) { return _mm512_sqrt_ps(x); }
T5 static inline __m512 v16_floor(__m512 x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
T5 static inline __m512 v16_ceil(__m512 x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
T5 static inline __m512 v16_trunc(__m512 x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }

T5 static inline __m512 v16_step(__m512 x) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), S16(1.0f));
}

T5 static inline __m512 v16_sgn(__m512 x) {
    const __m512 pos = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), S16(1.0f));
    const __m512 neg = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), S16(1.0f));
    return _mm512_sub_ps(pos, neg);
}

T5 static inline __m512 v16_round(__m512 x) {
    const __m512 t   = v16_trunc(x);
    const __m512 d   = _mm512_abs_ps(_mm512_sub_ps(x, t));
    const __m512 one = _mm512_or_ps(S16(1.0f), _mm512_and_ps(S16(-0.0f), x));
    return _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(d, S16(0.5f), _CMP_GE_OQ), t, one);
}

T5 static inline __m512 v16_hardsigmoid(__m512 x) {
    const __m512 v = _mm512_div_ps(_mm512_add_ps(x, S16(3.0f)), S16(6.0f));
    return _mm512_min_ps(S16(1.0f), _mm512_max_ps(_mm512_setzero_ps(), v));
}

T5 static inline __m512 v16_hardswish(__m512 x) { return _mm512_mul_ps(x, v16_hardsigmoid(x)); }

#define V16_ADD(a, b) _mm512_add_ps(a, b)
#define V16_SUB(a, b) _mm512_sub_ps(a, b)
#define V16_MUL(a, b) _mm512_mul_ps(a, b)
#define V16_DIV(a, b) _mm512_div_ps(a, b)

VEC_BIN(a5_add, T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, V16_ADD, +)
VEC_BIN(a5_sub, T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, V16_SUB, -)
VEC_BIN(a5_mul, T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, V16_MUL, *)
VEC_BIN(a5_div, T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, V16_DIV, /)

VEC_MAP(a5_exp,         T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_exp)
VEC_MAP(a5_expm1,       T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_expm1)
VEC_MAP(a5_tanh,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_tanh)
VEC_MAP(a5_sigmoid,     T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_sigmoid)
VEC_MAP(a5_silu,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_silu)
VEC_MAP(a5_gelu,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_gelu)
VEC_MAP(a5_gelu_quick,  T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_gelu_quick)
VEC_MAP(a5_gelu_erf,    T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_gelu_erf)
VEC_MAP(a5_relu,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_relu)
VEC_MAP(a5_abs,         T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_abs)
VEC_MAP(a5_neg,         T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_neg)
VEC_MAP(a5_sgn,         T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_sgn)
VEC_MAP(a5_step,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_step)
VEC_MAP(a5_sqr,         T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_sqr)
VEC_MAP(a5_sqrt,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_sqrt)
VEC_MAP(a5_hardsigmoid, T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_hardsigmoid)
VEC_MAP(a5_hardswish,   T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_hardswish)
VEC_MAP(a5_floor,       T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_floor)
VEC_MAP(a5_ceil,        T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_ceil)
VEC_MAP(a5_round,       T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_round)
VEC_MAP(a5_trunc,       T5, 16, _mm512_loadu_ps, _mm512_storeu_ps, v16_trunc)

T5 static void a5_scale(int64_t n, float * y, const float * x, float s, float b) {
    const __m512 vs = S16(s), vb = S16(b);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(y + i, _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), vs), vb));
    }
    for (; i < n; i++) {
        y[i] = x[i]*s + b;
    }
}

T5 static void a5_mad(int64_t n, float * y, const float * x, float v) {
    const __m512 vv = S16(v);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(y + i, _mm512_fmadd_ps(_mm512_loadu_ps(x + i), vv, _mm512_loadu_ps(y + i)));
    }
    for (; i < n; i++) {
        y[i] = fmaf(x[i], v, y[i]);
    }
}

T5 static void a5_clamp(int64_t n, float * y, const float * x, float lo, float hi) {
    const __m512 vlo = S16(lo), vhi = S16(hi);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(y + i, _mm512_max_ps(vlo, _mm512_min_ps(vhi, _mm512_loadu_ps(x + i))));
    }
    for (; i < n; i++) {
        const float r = x[i] > hi ? hi : x[i];
        y[i] = r < lo ? lo : r;
    }
}

T5 static void a5_leaky_relu(int64_t n, float * y, const float * x, float slope) {
    const __m512 vs = S16(slope);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        const __mmask16 pos = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
        _mm512_storeu_ps(y + i, _mm512_mask_blend_ps(pos, _mm512_mul_ps(v, vs), v));
    }
    for (; i < n; i++) {
        y[i] = x[i] > 0.0f ? x[i] : slope*x[i];
    }
}

// the two halves of a float vector widened to double
T5 static inline __m512d v16_lo_pd(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
T5 static inline __m512d v16_hi_pd(__m512 v) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)); }

T5 static float a5_dot(int64_t n, const float * x, const float * y) {
    __m512 acc[4] = { _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps() };
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        for (int k = 0; k < 4; k++) {
            acc[k] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16*k), _mm512_loadu_ps(y + i + 16*k), acc[k]);
        }
    }
    for (; i + 16 <= n; i += 16) {
        acc[0] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i), acc[0]);
    }
    double s = 0.0;
    for (; i < n; i++) {
        s += (double) x[i]*y[i];
    }
    __m512d d = _mm512_setzero_pd();
    for (int k = 0; k < 4; k++) {
        d = _mm512_add_pd(d, _mm512_add_pd(v16_lo_pd(acc[k]), v16_hi_pd(acc[k])));
    }
    return (float) (s + _mm512_reduce_add_pd(d));
}

T5 static double a5_sum(int64_t n, const float * x) {
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        a0 = _mm512_add_pd(a0, v16_lo_pd(v));
        a1 = _mm512_add_pd(a1, v16_hi_pd(v));
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    for (; i < n; i++) {
        s += x[i];
    }
    return s;
}

T5 static double a5_sumsq(int64_t n, const float * x) {
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512  v  = _mm512_loadu_ps(x + i);
        const __m512d d0 = v16_lo_pd(v);
        const __m512d d1 = v16_hi_pd(v);
        a0 = _mm512_fmadd_pd(d0, d0, a0);
        a1 = _mm512_fmadd_pd(d1, d1, a1);
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    for (; i < n; i++) {
        s += (double) x[i]*x[i];
    }
    return s;
}

T5 static float a5_max(int64_t n, const float * x) {
    __m512 acc = S16(-INFINITY);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        acc = _mm512_max_ps(_mm512_loadu_ps(x + i), acc); // a NaN element leaves acc
    }
    float m = _mm512_reduce_max_ps(acc);
    for (; i < n; i++) {
        m = x[i] > m ? x[i] : m;
    }
    return m;
}

T5 static double a5_soft_max(int64_t n, float * y, const float * x, float m) {
    const __m512 vm = S16(m);
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 e = v16_exp_ftz(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm));
        _mm512_storeu_ps(y + i, e);
        a0 = _mm512_add_pd(a0, v16_lo_pd(e));
        a1 = _mm512_add_pd(a1, v16_hi_pd(e));
    }
    double s = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
    if (i < n) {
        float t[16] = { 0 };
        memcpy(t, x + i, (size_t) (n - i)*sizeof(float));
        _mm512_storeu_ps(t, v16_exp_ftz(_mm512_sub_ps(_mm512_loadu_ps(t), vm)));
        for (int64_t k = 0; k < n - i; k++) {
            y[i + k] = t[k];
            s += t[k];
        }
    }
    return s;
}

T5 static void a5_f16_to_f32(int64_t n, float * y, const ggml_fp16_t * x) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm512_storeu_ps(y + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (x + i))));
    }
    for (; i < n; i++) {
        y[i] = GGML_FP16_TO_FP32(x[i]);
    }
}

T5 static void a5_f32_to_f16(int64_t n, ggml_fp16_t * y, const float * x) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        _mm256_storeu_si256((__m256i *) (y + i),
                _mm512_cvtps_ph(_mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    for (; i < n; i++) {
        y[i] = GGML_FP32_TO_FP16(x[i]);
    }
}

T5 static void a5_bf16_to_f32(int64_t n, float * y, const ggml_bf16_t * x) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *) (x + i)));
        _mm512_storeu_ps(y + i, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
    }
    for (; i < n; i++) {
        y[i] = GGML_BF16_TO_FP32(x[i]);
    }
}

T5 static void a5_f32_to_bf16(int64_t n, ggml_bf16_t * y, const float * x) {
    const __m512i one  = _mm512_set1_epi32(1);
    const __m512i half = _mm512_set1_epi32(0x7fff);
    const __m512i absm = _mm512_set1_epi32(0x7fffffff);
    const __m512i inf  = _mm512_set1_epi32(0x7f800000);
    const __m512i qbit = _mm512_set1_epi32(64);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i u       = _mm512_castps_si512(_mm512_loadu_ps(x + i));
        const __m512i lsb     = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
        const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, half), lsb), 16);
        const __m512i quiet   = _mm512_or_si512(_mm512_srli_epi32(u, 16), qbit);
        const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, absm), inf);
        const __m512i r       = _mm512_mask_blend_epi32(is_nan, rounded, quiet);
        _mm256_storeu_si256((__m256i *) (y + i), _mm512_cvtepi32_epi16(r));
    }
    for (; i < n; i++) {
        y[i] = GGML_FP32_TO_BF16(x[i]);
    }
}

const struct ggml_vec_funcs ggml_cpu_vec_avx512 = {
    .level           = GGML_CPU_ISA_AVX512,
    .add_f32         = a5_add,
    .sub_f32         = a5_sub,
    .mul_f32         = a5_mul,
    .div_f32         = a5_div,
    .scale_f32       = a5_scale,
    .mad_f32         = a5_mad,
    .clamp_f32       = a5_clamp,
    .leaky_relu_f32  = a5_leaky_relu,
    .dot_f32         = a5_dot,
    .sum_f32         = a5_sum,
    .sumsq_f32       = a5_sumsq,
    .max_f32         = a5_max,
    // argmax_f32: NULL, so AVX2's (finding the index is not worth a wider version)
    .exp_f32         = a5_exp,
    .expm1_f32       = a5_expm1,
    .tanh_f32        = a5_tanh,
    .sigmoid_f32     = a5_sigmoid,
    .silu_f32        = a5_silu,
    .gelu_f32        = a5_gelu,
    .gelu_quick_f32  = a5_gelu_quick,
    .gelu_erf_f32    = a5_gelu_erf,
    .soft_max_f32    = a5_soft_max,
    .relu_f32        = a5_relu,
    .abs_f32         = a5_abs,
    .neg_f32         = a5_neg,
    .sgn_f32         = a5_sgn,
    .step_f32        = a5_step,
    .sqr_f32         = a5_sqr,
    .sqrt_f32        = a5_sqrt,
    .hardsigmoid_f32 = a5_hardsigmoid,
    .hardswish_f32   = a5_hardswish,
    .floor_f32       = a5_floor,
    .ceil_f32        = a5_ceil,
    .round_f32       = a5_round,
    .trunc_f32       = a5_trunc,
    .f16_to_f32      = a5_f16_to_f32,
    .f32_to_f16      = a5_f32_to_f16,
    .bf16_to_f32     = a5_bf16_to_f32,
    .f32_to_bf16     = a5_f32_to_bf16,
};

#else

// nothing to build on other architectures (ISO C wants a declaration in every file)
typedef int ggml_avx512_vec_unused;

#endif // GGML_CPU_X86
