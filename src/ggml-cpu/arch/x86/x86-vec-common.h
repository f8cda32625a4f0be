#pragma once

// Shared by the x86 row helpers (avx2-vec.c, avx512-vec.c): constants and row drivers.
//
// Every function of those files carries a target attribute, so they build without -march flags and
// their tables are only used when ggml_cpu_isa() says the CPU runs them.
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

#include "x86-kernels.h"
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

#endif // GGML_CPU_X86
