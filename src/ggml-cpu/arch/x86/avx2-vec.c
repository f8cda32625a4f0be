// Row-level vector helpers for AVX2 (+FMA, F16C; 8 lanes): the struct ggml_vec_funcs of that level (contract in
// ggml-cpu-vec.h, approximations in x86-vec-common.h, layout in docs/cpu-kernels.md).

#include "x86-vec-common.h"

#if GGML_CPU_X86

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

// silu for lanes known to hold |x| <= 87 (no NaN): x/(1 + e^-x) with 2^n of the exponential a
// normal float, so neither the clamps nor the sign split of v8_sigmoid are needed (e^-x <= e^87
// cannot overflow); fewer roundings than x*sigmoid(x)
T2 static inline __m256 v8_silu_inrange(__m256 x) {
    const __m256 t = _mm256_xor_ps(x, S8(-0.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(t, S8(C_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, S8(C_LN2_HI), t);
    r = _mm256_fnmadd_ps(n, S8(C_LN2_LO), r);
    // degree 6, fitted for relative error on |r| <= ln2/2 (3.6e-9; the degree-7 Taylor
    // polynomial of v8_exp: 5.6e-9): one FMA fewer per vector
    __m256 p = S8(1.386377960e-3f);
    p = _mm256_fmadd_ps(p, r, S8(8.367477916e-3f));
    p = _mm256_fmadd_ps(p, r, S8(4.166723788e-2f));
    p = _mm256_fmadd_ps(p, r, S8(1.666653454e-1f));
    p = _mm256_fmadd_ps(p, r, S8(0.5f));
    p = _mm256_fmadd_ps(p, r, S8(1.0f));
    p = _mm256_fmadd_ps(p, r, S8(1.0f));
    const __m256i ni = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    const __m256  e  = _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(ni, 23)));
    return _mm256_div_ps(x, _mm256_add_ps(S8(1.0f), e));
}

// all lanes of a and b within |x| <= 87 (false for NaN)
T2 static inline bool v8_both_inrange(__m256 a, __m256 b) {
    const __m256 lim = S8(87.0f);
    const __m256 ok  = _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(S8(-0.0f), a), lim, _CMP_LE_OQ),
                                     _mm256_cmp_ps(_mm256_andnot_ps(S8(-0.0f), b), lim, _CMP_LE_OQ));
    return _mm256_movemask_ps(ok) == 0xff;
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
// silu two vectors per step (the two exponentials' chains overlap), by v8_silu_inrange where both
// vectors are in range; an element's value so depends on its group of 16 from the row's start
// (either formula within silu's bound): callers that split a row keep the pieces on multiples of 16
T2 static void a2_silu(int64_t n, float * y, const float * x) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 x0 = _mm256_loadu_ps(x + i);
        const __m256 x1 = _mm256_loadu_ps(x + i + 8);
        if (v8_both_inrange(x0, x1)) {
            _mm256_storeu_ps(y + i,     v8_silu_inrange(x0));
            _mm256_storeu_ps(y + i + 8, v8_silu_inrange(x1));
        } else {
            _mm256_storeu_ps(y + i,     v8_silu(x0));
            _mm256_storeu_ps(y + i + 8, v8_silu(x1));
        }
    }
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, v8_silu(_mm256_loadu_ps(x + i)));
    }
    if (i < n) {
        float t[8];
        memset(t, 0, sizeof(t));
        memcpy(t, x + i, (size_t) (n - i)*sizeof(float));
        _mm256_storeu_ps(t, v8_silu(_mm256_loadu_ps(t)));
        memcpy(y + i, t, (size_t) (n - i)*sizeof(float));
    }
}
// silu(x)*g in one pass over the three rows; two vectors per step so that the two exponentials'
// dependency chains overlap
T2 static void a2_swiglu(int64_t n, float * y, const float * x, const float * g) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 x0 = _mm256_loadu_ps(x + i);
        const __m256 x1 = _mm256_loadu_ps(x + i + 8);
        __m256 s0, s1;
        if (v8_both_inrange(x0, x1)) {
            s0 = v8_silu_inrange(x0);
            s1 = v8_silu_inrange(x1);
        } else {
            s0 = v8_silu(x0);
            s1 = v8_silu(x1);
        }
        _mm256_storeu_ps(y + i,     _mm256_mul_ps(s0, _mm256_loadu_ps(g + i)));
        _mm256_storeu_ps(y + i + 8, _mm256_mul_ps(s1, _mm256_loadu_ps(g + i + 8)));
    }
    for (; i + 8 <= n; i += 8) {
        _mm256_storeu_ps(y + i, _mm256_mul_ps(v8_silu(_mm256_loadu_ps(x + i)), _mm256_loadu_ps(g + i)));
    }
    if (i < n) {
        float tx[8], tg[8];
        memset(tx, 0, sizeof(tx));
        memset(tg, 0, sizeof(tg));
        memcpy(tx, x + i, (size_t) (n - i)*sizeof(float));
        memcpy(tg, g + i, (size_t) (n - i)*sizeof(float));
        _mm256_storeu_ps(tx, _mm256_mul_ps(v8_silu(_mm256_loadu_ps(tx)), _mm256_loadu_ps(tg)));
        memcpy(y + i, tx, (size_t) (n - i)*sizeof(float));
    }
}

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

const struct ggml_vec_funcs ggml_cpu_vec_avx2 = {
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
    .swiglu_f32      = a2_swiglu,
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

#else

// nothing to build on other architectures (ISO C wants a declaration in every file)
typedef int ggml_avx2_vec_unused;

#endif // GGML_CPU_X86
