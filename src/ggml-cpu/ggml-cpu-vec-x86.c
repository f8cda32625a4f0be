// Row-level vector helpers for x86: the AVX2 (+FMA, F16C) and AVX-512 tables of ggml-cpu-vec.h.
//
// Every function carries a target attribute, so the file builds without -march flags and the
// tables are only used when ggml_cpu_isa() says the CPU runs them.
//
// The approximations (error bounds in ggml-cpu-vec.h, checked by tests/test-cpu-eltwise.c):
//   exp(x)   = 2^n * e^r with n = round(x/ln 2), r = x - n ln2 (two-part ln 2, |r| <= ln2/2) and
//              e^r a degree-7 Taylor polynomial (truncation below 6e-9); the inputs are clamped to
//              [-104, 88.8], just beyond where the float result becomes 0 or infinite.
//   expm1(x) = the degree-11 Taylor polynomial for |x| < 1, exp(x) - 1 elsewhere.
//   tanh(x)  = sign(x) * t/(t + 2) with t = expm1(2|x|) (|x| clamped at 10, where tanh is 1.0f).
//   sigmoid(x) = 1/(1 + e) for x >= 0, e/(1 + e) for x < 0, with e = exp(-|x|) (never overflows);
//              silu = x*sigmoid(x), gelu_quick = x*sigmoid(1.702x), gelu = x*sigmoid(2u) (which is
//              0.5x(1 + tanh u) without its cancellation for negative x).
//   gelu_erf: erfc(a) = t*exp(-a^2 + P(t)), t = 1/(1 + a/2), with the 10-term Chebyshev fit P of
//              Numerical Recipes (erfcc, fractional error < 1.2e-7), a^2 = x^2/2 carried as hi + lo
//              so the exponent loses nothing; 0.5x*erfc(|x|/sqrt 2) for x <= 0, x - that for x > 0.
//
// Tails shorter than a vector go through a zero-padded buffer, so they get the same arithmetic as
// the full vectors (and no masked memory access that a sanitizer could misread).

#include "ggml-cpu-vec.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

#if GGML_CPU_X86

#include <immintrin.h>

#define T2 GGML_TARGET_AVX2
#define T5 GGML_TARGET_AVX512

// exp
#define C_EXP_HI  88.8f
#define C_EXP_LO  (-104.0f)
// softmax flushes e^x below FLT_MIN (x < ln(FLT_MIN)) to 0: a subnormal result costs ~15x the
// time on these CPUs, masked rows (-inf) would hit that path constantly, and a softmax term below
// FLT_MIN is below the precision of the sum anyway
#define C_EXP_TINY (-87.3365f)
#define C_LOG2E   1.44269504088896341f
#define C_LN2_HI  0.693147182464599609375f  // ln 2 rounded to float
#define C_LN2_LO  (-1.904654299957768e-09f)  // ln 2 - C_LN2_HI
#define C_E7      1.98412698e-4f             // 1/7!
#define C_E6      1.38888889e-3f             // 1/6!
#define C_E5      8.33333333e-3f             // 1/5!
#define C_E4      4.16666667e-2f             // 1/4!
#define C_E3      1.66666667e-1f             // 1/3!
// expm1 (1/k! for k = 2..11)
#define C_M2      0.5f
#define C_M3      1.66666667e-1f
#define C_M4      4.16666667e-2f
#define C_M5      8.33333333e-3f
#define C_M6      1.38888889e-3f
#define C_M7      1.98412698e-4f
#define C_M8      2.48015873e-5f
#define C_M9      2.75573192e-6f
#define C_M10     2.75573192e-7f
#define C_M11     2.50521084e-8f
// gelu: 2*sqrt(2/pi) and 2*sqrt(2/pi)*0.044715; gelu_quick
#define C_GELU_K0 1.59576912160573071f
#define C_GELU_K1 0.0713548162726008f
#define C_GELU_Q  1.702f
#define C_SQRT1_2 0.70710678118654752440f
// erfc fit, highest power first
#define C_ERF9    0.17087277f
#define C_ERF8    (-0.82215223f)
#define C_ERF7    1.48851587f
#define C_ERF6    (-1.13520398f)
#define C_ERF5    0.27886807f
#define C_ERF4    (-0.18628806f)
#define C_ERF3    0.09678418f
#define C_ERF2    0.37409196f
#define C_ERF1    1.00002368f
#define C_ERF0    (-1.26551223f)

// Row drivers shared by both levels. FN maps one vector; VOP combines two; SOP is the scalar
// operator for the tail of the binary ops (exact IEEE operations, the same as the vector ones).
#define VEC_MAP(NAME, TGT, W, LD, ST, FN)                                       \
    TGT static void NAME(int64_t n, float * y, const float * x) {              \
        int64_t i = 0;                                                         \
        for (; i + (W) <= n; i += (W)) {                                       \
            ST(y + i, FN(LD(x + i)));                                          \
        }                                                                      \
        if (i < n) {                                                           \
            float t[W];                                                        \
            memset(t, 0, sizeof(t));                                           \
            memcpy(t, x + i, (size_t) (n - i)*sizeof(float));                  \
            ST(t, FN(LD(t)));                                                  \
            memcpy(y + i, t, (size_t) (n - i)*sizeof(float));                  \
        }                                                                      \
    }

#define VEC_BIN(NAME, TGT, W, LD, ST, VOP, SOP)                                \
    TGT static void NAME(int64_t n, float * z, const float * x, const float * y) { \
        int64_t i = 0;                                                         \
        for (; i + 4*(W) <= n; i += 4*(W)) {                                   \
            ST(z + i,         VOP(LD(x + i),         LD(y + i)));              \
            ST(z + i + (W),   VOP(LD(x + i + (W)),   LD(y + i + (W))));        \
            ST(z + i + 2*(W), VOP(LD(x + i + 2*(W)), LD(y + i + 2*(W))));      \
            ST(z + i + 3*(W), VOP(LD(x + i + 3*(W)), LD(y + i + 3*(W))));      \
        }                                                                      \
        for (; i + (W) <= n; i += (W)) {                                       \
            ST(z + i, VOP(LD(x + i), LD(y + i)));                              \
        }                                                                      \
        for (; i < n; i++) {                                                   \
            z[i] = x[i] SOP y[i];                                              \
        }                                                                      \
    }

//
// ======================== AVX2 (8 lanes) ========================
//

#define S8(v) _mm256_set1_ps(v)

T2 static inline __m256 v8_exp_finish(__m256 n, __m256 r) {
    __m256 p = S8(C_E7);
    p = _mm256_fmadd_ps(p, r, S8(C_E6));
    p = _mm256_fmadd_ps(p, r, S8(C_E5));
    p = _mm256_fmadd_ps(p, r, S8(C_E4));
    p = _mm256_fmadd_ps(p, r, S8(C_E3));
    p = _mm256_fmadd_ps(p, r, S8(0.5f));
    p = _mm256_fmadd_ps(p, r, S8(1.0f));
    p = _mm256_fmadd_ps(p, r, S8(1.0f));
    // 2^n as two factors, so that every n in [-152, 128] gives normal factors and the final
    // product rounds once into the subnormal range or overflows to infinity as it should
    const __m256i ni   = _mm256_cvtps_epi32(n);
    const __m256i n1   = _mm256_srai_epi32(ni, 1);
    const __m256i n2   = _mm256_sub_epi32(ni, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256  s1   = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const __m256  s2   = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

// min/max keep a NaN x when x is their second operand
T2 static inline __m256 v8_exp(__m256 x) {
    x = _mm256_min_ps(S8(C_EXP_HI), x);
    x = _mm256_max_ps(S8(C_EXP_LO), x);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, S8(C_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, S8(C_LN2_HI), x);
    r = _mm256_fnmadd_ps(n, S8(C_LN2_LO), r);
    return v8_exp_finish(n, r);
}

// e^(h + l) for h <= 0 large and |l| small, without rounding h + l first
// e^x with results below FLT_MIN flushed to 0 (see C_EXP_TINY)
T2 static inline __m256 v8_exp_ftz(__m256 x) {
    const __m256 tiny = _mm256_cmp_ps(x, S8(C_EXP_TINY), _CMP_LT_OQ); // false for NaN
    return _mm256_andnot_ps(tiny, v8_exp(_mm256_max_ps(S8(C_EXP_TINY), x)));
}

T2 static inline __m256 v8_exp_hilo(__m256 h, __m256 l) {
    h = _mm256_max_ps(S8(C_EXP_LO), h);
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(_mm256_add_ps(h, l), S8(C_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, S8(C_LN2_HI), h);
    r = _mm256_fnmadd_ps(n, S8(C_LN2_LO), r);
    r = _mm256_add_ps(r, l);
    return v8_exp_finish(n, r);
}

T2 static inline __m256 v8_expm1(__m256 x) {
    const __m256 ax    = _mm256_andnot_ps(S8(-0.0f), x);
    const __m256 small = _mm256_cmp_ps(ax, S8(1.0f), _CMP_LT_OQ);
    __m256 q = S8(C_M11);
    q = _mm256_fmadd_ps(q, x, S8(C_M10));
    q = _mm256_fmadd_ps(q, x, S8(C_M9));
    q = _mm256_fmadd_ps(q, x, S8(C_M8));
    q = _mm256_fmadd_ps(q, x, S8(C_M7));
    q = _mm256_fmadd_ps(q, x, S8(C_M6));
    q = _mm256_fmadd_ps(q, x, S8(C_M5));
    q = _mm256_fmadd_ps(q, x, S8(C_M4));
    q = _mm256_fmadd_ps(q, x, S8(C_M3));
    q = _mm256_fmadd_ps(q, x, S8(C_M2));
    q = _mm256_fmadd_ps(q, x, S8(1.0f));
    const __m256 poly = _mm256_mul_ps(q, x);
    const __m256 big  = _mm256_sub_ps(v8_exp(x), S8(1.0f));
    return _mm256_blendv_ps(big, poly, small);
}

T2 static inline __m256 v8_tanh(__m256 x) {
    const __m256 sign = S8(-0.0f);
    __m256 ax = _mm256_andnot_ps(sign, x);
    ax = _mm256_min_ps(S8(10.0f), ax);
    const __m256 t = v8_expm1(_mm256_add_ps(ax, ax));
    const __m256 r = _mm256_div_ps(t, _mm256_add_ps(t, S8(2.0f)));
    return _mm256_or_ps(r, _mm256_and_ps(sign, x));
}

// 1/(1 + e^-x) as s = 1/(1 + e) with e = e^-|x|, and e*s for negative x: e never overflows
T2 static inline __m256 v8_sigmoid(__m256 x) {
    const __m256 e = v8_exp(_mm256_or_ps(x, S8(-0.0f)));
    const __m256 s = _mm256_div_ps(S8(1.0f), _mm256_add_ps(S8(1.0f), e));
    return _mm256_blendv_ps(s, _mm256_mul_ps(e, s), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
}

T2 static inline __m256 v8_silu(__m256 x) {
    return _mm256_mul_ps(x, v8_sigmoid(x));
}

// 0.5x(1 + tanh u) = x*sigmoid(2u), 2u = x*(K0 + K1*x^2)
T2 static inline __m256 v8_gelu(__m256 x) {
    const __m256 x2 = _mm256_mul_ps(x, x);
    return _mm256_mul_ps(x, v8_sigmoid(_mm256_mul_ps(x, _mm256_fmadd_ps(S8(C_GELU_K1), x2, S8(C_GELU_K0)))));
}

T2 static inline __m256 v8_gelu_quick(__m256 x) {
    return _mm256_mul_ps(x, v8_sigmoid(_mm256_mul_ps(x, S8(C_GELU_Q))));
}

T2 static inline __m256 v8_gelu_erf(__m256 x) {
    const __m256 a = _mm256_mul_ps(_mm256_andnot_ps(S8(-0.0f), x), S8(C_SQRT1_2));
    const __m256 t = _mm256_div_ps(S8(1.0f), _mm256_fmadd_ps(S8(0.5f), a, S8(1.0f)));
    __m256 p = S8(C_ERF9);
    p = _mm256_fmadd_ps(p, t, S8(C_ERF8));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF7));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF6));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF5));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF4));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF3));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF2));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF1));
    p = _mm256_fmadd_ps(p, t, S8(C_ERF0));
    // a^2 = x^2/2 = hi + lo exactly (from x, not from the rounded a)
    const __m256 x2  = _mm256_mul_ps(x, x);
    const __m256 hi  = _mm256_mul_ps(x2, S8(0.5f));
    const __m256 lo  = _mm256_mul_ps(_mm256_fmsub_ps(x, x, x2), S8(0.5f));
    const __m256 big = _mm256_cmp_ps(a, S8(10.0f), _CMP_GT_OQ); // erfc(a) < 3e-45 there
    __m256 ec = _mm256_mul_ps(t, v8_exp_hilo(_mm256_xor_ps(hi, S8(-0.0f)), _mm256_sub_ps(p, lo)));
    ec = _mm256_andnot_ps(big, ec);
    const __m256 half = _mm256_mul_ps(_mm256_mul_ps(S8(0.5f), x), ec);
    const __m256 neg  = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OQ);
    __m256 r = _mm256_blendv_ps(_mm256_sub_ps(x, half), half, neg);
    // +inf: x, not inf - inf*0
    const __m256 pos_big = _mm256_and_ps(big, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
    return _mm256_blendv_ps(r, x, pos_big);
}

T2 static inline __m256 v8_relu(__m256 x) { return _mm256_max_ps(x, _mm256_setzero_ps()); } // NaN -> 0
T2 static inline __m256 v8_abs(__m256 x) { return _mm256_andnot_ps(S8(-0.0f), x); }
T2 static inline __m256 v8_neg(__m256 x) { return _mm256_xor_ps(S8(-0.0f), x); }
T2 static inline __m256 v8_sqr(__m256 x) { return _mm256_mul_ps(x, x); }
T2 static inline __m256 v8_sqrt(__m256 x) { return _mm256_sqrt_ps(x); }
T2 static inline __m256 v8_floor(__m256 x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
T2 static inline __m256 v8_ceil(__m256 x) { return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
T2 static inline __m256 v8_trunc(__m256 x) { return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }

T2 static inline __m256 v8_step(__m256 x) {
    return _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ), S8(1.0f));
}

T2 static inline __m256 v8_sgn(__m256 x) {
    const __m256 pos = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ), S8(1.0f));
    const __m256 neg = _mm256_and_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ), S8(1.0f));
    return _mm256_sub_ps(pos, neg);
}

// x - trunc(x) is exact; a fraction of at least one half moves one away from zero
T2 static inline __m256 v8_round(__m256 x) {
    const __m256 t   = v8_trunc(x);
    const __m256 d   = _mm256_andnot_ps(S8(-0.0f), _mm256_sub_ps(x, t));
    const __m256 one = _mm256_or_ps(S8(1.0f), _mm256_and_ps(S8(-0.0f), x));
    // a blend, not t + 0: that would turn -0 into +0
    return _mm256_blendv_ps(t, _mm256_add_ps(t, one), _mm256_cmp_ps(d, S8(0.5f), _CMP_GE_OQ));
}

T2 static inline __m256 v8_hardsigmoid(__m256 x) {
    const __m256 v = _mm256_div_ps(_mm256_add_ps(x, S8(3.0f)), S8(6.0f));
    return _mm256_min_ps(S8(1.0f), _mm256_max_ps(_mm256_setzero_ps(), v));
}

T2 static inline __m256 v8_hardswish(__m256 x) { return _mm256_mul_ps(x, v8_hardsigmoid(x)); }

#define V8_ADD(a, b) _mm256_add_ps(a, b)
#define V8_SUB(a, b) _mm256_sub_ps(a, b)
#define V8_MUL(a, b) _mm256_mul_ps(a, b)
#define V8_DIV(a, b) _mm256_div_ps(a, b)

VEC_BIN(a2_add, T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, V8_ADD, +)
VEC_BIN(a2_sub, T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, V8_SUB, -)
VEC_BIN(a2_mul, T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, V8_MUL, *)
VEC_BIN(a2_div, T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, V8_DIV, /)

VEC_MAP(a2_exp,         T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_exp)
VEC_MAP(a2_expm1,       T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_expm1)
VEC_MAP(a2_tanh,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_tanh)
VEC_MAP(a2_sigmoid,     T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_sigmoid)
VEC_MAP(a2_silu,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_silu)
VEC_MAP(a2_gelu,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_gelu)
VEC_MAP(a2_gelu_quick,  T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_gelu_quick)
VEC_MAP(a2_gelu_erf,    T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_gelu_erf)
VEC_MAP(a2_relu,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_relu)
VEC_MAP(a2_abs,         T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_abs)
VEC_MAP(a2_neg,         T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_neg)
VEC_MAP(a2_sgn,         T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_sgn)
VEC_MAP(a2_step,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_step)
VEC_MAP(a2_sqr,         T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_sqr)
VEC_MAP(a2_sqrt,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_sqrt)
VEC_MAP(a2_hardsigmoid, T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_hardsigmoid)
VEC_MAP(a2_hardswish,   T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_hardswish)
VEC_MAP(a2_floor,       T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_floor)
VEC_MAP(a2_ceil,        T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_ceil)
VEC_MAP(a2_round,       T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_round)
VEC_MAP(a2_trunc,       T2, 8, _mm256_loadu_ps, _mm256_storeu_ps, v8_trunc)

T2 static void a2_scale(int64_t n, float * y, const float * x, float s, float b) {
    const __m256 vs = S8(s), vb = S8(b);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), vs), vb));
    }
    for (; i < n; i++) {
        y[i] = x[i]*s + b;
    }
}

T2 static void a2_mad(int64_t n, float * y, const float * x, float v) {
    const __m256 vv = S8(v);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(_mm256_loadu_ps(x + i), vv, _mm256_loadu_ps(y + i)));
    }
    for (; i < n; i++) {
        y[i] = fmaf(x[i], v, y[i]);
    }
}

T2 static void a2_clamp(int64_t n, float * y, const float * x, float lo, float hi) {
    const __m256 vlo = S8(lo), vhi = S8(hi);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_max_ps(vlo, _mm256_min_ps(vhi, _mm256_loadu_ps(x + i))));
    }
    for (; i < n; i++) {
        const float r = x[i] > hi ? hi : x[i];
        y[i] = r < lo ? lo : r;
    }
}

T2 static void a2_leaky_relu(int64_t n, float * y, const float * x, float slope) {
    const __m256 vs = S8(slope);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        _mm256_storeu_ps(y + i, _mm256_blendv_ps(_mm256_mul_ps(v, vs), v, _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ)));
    }
    for (; i < n; i++) {
        y[i] = x[i] > 0.0f ? x[i] : slope*x[i];
    }
}

T2 static inline double a2_hsum_pd(__m256d v) {
    double t[4];
    _mm256_storeu_pd(t, v);
    return (t[0] + t[1]) + (t[2] + t[3]);
}

T2 static float a2_dot(int64_t n, const float * x, const float * y) {
    __m256 acc[4] = { _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps() };
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int k = 0; k < 4; k++) {
            acc[k] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8*k), _mm256_loadu_ps(y + i + 8*k), acc[k]);
        }
    }
    for (; i + 8 <= n; i += 8) {
        acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), acc[0]);
    }
    double s = 0.0;
    for (; i < n; i++) {
        s += (double) x[i]*y[i];
    }
    for (int k = 0; k < 4; k++) {
        s += a2_hsum_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(acc[k])));
        s += a2_hsum_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(acc[k], 1)));
    }
    return (float) s;
}

T2 static double a2_sum(int64_t n, const float * x) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    double s = a2_hsum_pd(_mm256_add_pd(a0, a1));
    for (; i < n; i++) {
        s += x[i];
    }
    return s;
}

T2 static double a2_sumsq(int64_t n, const float * x) {
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256  v  = _mm256_loadu_ps(x + i);
        const __m256d d0 = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
        const __m256d d1 = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        a0 = _mm256_fmadd_pd(d0, d0, a0);
        a1 = _mm256_fmadd_pd(d1, d1, a1);
    }
    double s = a2_hsum_pd(_mm256_add_pd(a0, a1));
    for (; i < n; i++) {
        s += (double) x[i]*x[i];
    }
    return s;
}

T2 static float a2_max(int64_t n, const float * x) {
    __m256 acc = S8(-INFINITY);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        acc = _mm256_max_ps(_mm256_loadu_ps(x + i), acc); // a NaN element leaves acc
    }
    float t[8];
    _mm256_storeu_ps(t, acc);
    float m = -INFINITY;
    for (int k = 0; k < 8; k++) {
        m = t[k] > m ? t[k] : m;
    }
    for (; i < n; i++) {
        m = x[i] > m ? x[i] : m;
    }
    return m;
}

// the last index holding the maximum: scan backwards from the end for the first equal element
T2 static int64_t a2_argmax(int64_t n, const float * x) {
    const float  m  = a2_max(n, x);
    const __m256 vm = S8(m);
    int64_t i = n;
    while (i >= 8) {
        i -= 8;
        const int mask = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), vm, _CMP_EQ_OQ));
        if (mask != 0) {
            return i + 31 - __builtin_clz((unsigned) mask);
        }
    }
    while (i > 0) {
        i--;
        if (x[i] == m) {
            return i;
        }
    }
    return 0;
}

T2 static double a2_soft_max(int64_t n, float * y, const float * x, float m) {
    const __m256 vm = S8(m);
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 e = v8_exp_ftz(_mm256_sub_ps(_mm256_loadu_ps(x + i), vm));
        _mm256_storeu_ps(y + i, e);
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    double s = a2_hsum_pd(_mm256_add_pd(a0, a1));
    if (i < n) {
        float t[8] = { 0 };
        memcpy(t, x + i, (size_t) (n - i)*sizeof(float));
        _mm256_storeu_ps(t, v8_exp_ftz(_mm256_sub_ps(_mm256_loadu_ps(t), vm)));
        for (int64_t k = 0; k < n - i; k++) {
            y[i + k] = t[k];
            s += t[k];
        }
    }
    return s;
}

T2 static void a2_f16_to_f32(int64_t n, float * y, const ggml_fp16_t * x) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (x + i))));
    }
    for (; i < n; i++) {
        y[i] = GGML_FP16_TO_FP32(x[i]);
    }
}

T2 static void a2_f32_to_f16(int64_t n, ggml_fp16_t * y, const float * x) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm_storeu_si128((__m128i *) (y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < n; i++) {
        y[i] = GGML_FP32_TO_FP16(x[i]);
    }
}

T2 static void a2_bf16_to_f32(int64_t n, float * y, const ggml_bf16_t * x) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *) (x + i)));
        _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
    }
    for (; i < n; i++) {
        y[i] = GGML_BF16_TO_FP32(x[i]);
    }
}

// round to nearest even on the bits; NaN becomes a quiet NaN (as ggml_compute_fp32_to_bf16)
T2 static void a2_f32_to_bf16(int64_t n, ggml_bf16_t * y, const float * x) {
    const __m256i one  = _mm256_set1_epi32(1);
    const __m256i half = _mm256_set1_epi32(0x7fff);
    const __m256i absm = _mm256_set1_epi32(0x7fffffff);
    const __m256i inf  = _mm256_set1_epi32(0x7f800000);
    const __m256i qbit = _mm256_set1_epi32(64);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i u       = _mm256_castps_si256(_mm256_loadu_ps(x + i));
        const __m256i lsb     = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
        const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, half), lsb), 16);
        const __m256i quiet   = _mm256_or_si256(_mm256_srli_epi32(u, 16), qbit);
        const __m256i is_nan  = _mm256_cmpgt_epi32(_mm256_and_si256(u, absm), inf);
        const __m256i r       = _mm256_blendv_epi8(rounded, quiet, is_nan);
        // 8 values below 65536 in 32-bit lanes -> 8 16-bit values in the low 128 bits
        const __m256i packed  = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
        _mm_storeu_si128((__m128i *) (y + i), _mm256_castsi256_si128(packed));
    }
    for (; i < n; i++) {
        y[i] = GGML_FP32_TO_BF16(x[i]);
    }
}

const struct ggml_vec_funcs ggml_vec_funcs_avx2 = {
    .level           = GGML_CPU_ISA_AVX2,
    .add_f32         = a2_add,
    .sub_f32         = a2_sub,
    .mul_f32         = a2_mul,
    .div_f32         = a2_div,
    .scale_f32       = a2_scale,
    .mad_f32         = a2_mad,
    .clamp_f32       = a2_clamp,
    .leaky_relu_f32  = a2_leaky_relu,
    .dot_f32         = a2_dot,
    .sum_f32         = a2_sum,
    .sumsq_f32       = a2_sumsq,
    .max_f32         = a2_max,
    .argmax_f32      = a2_argmax,
    .exp_f32         = a2_exp,
    .expm1_f32       = a2_expm1,
    .tanh_f32        = a2_tanh,
    .sigmoid_f32     = a2_sigmoid,
    .silu_f32        = a2_silu,
    .gelu_f32        = a2_gelu,
    .gelu_quick_f32  = a2_gelu_quick,
    .gelu_erf_f32    = a2_gelu_erf,
    .soft_max_f32    = a2_soft_max,
    .relu_f32        = a2_relu,
    .abs_f32         = a2_abs,
    .neg_f32         = a2_neg,
    .sgn_f32         = a2_sgn,
    .step_f32        = a2_step,
    .sqr_f32         = a2_sqr,
    .sqrt_f32        = a2_sqrt,
    .hardsigmoid_f32 = a2_hardsigmoid,
    .hardswish_f32   = a2_hardswish,
    .floor_f32       = a2_floor,
    .ceil_f32        = a2_ceil,
    .round_f32       = a2_round,
    .trunc_f32       = a2_trunc,
    .f16_to_f32      = a2_f16_to_f32,
    .f32_to_f16      = a2_f32_to_f16,
    .bf16_to_f32     = a2_bf16_to_f32,
    .f32_to_bf16     = a2_f32_to_bf16,
};

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

const struct ggml_vec_funcs ggml_vec_funcs_avx512 = {
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
    .argmax_f32      = a2_argmax, // finding the index is not worth a wider version
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
typedef int ggml_vec_x86_unused;

#endif // GGML_CPU_X86
