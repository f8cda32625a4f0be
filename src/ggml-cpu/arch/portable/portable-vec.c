// Row-level vector helpers in plain C: the portable level's struct ggml_vec_funcs (see
// ggml-cpu-vec.h for the contract and docs/cpu-kernels.md for the layout). The C library's
// expf, expm1f, tanhf and erfcf carry the activations.

#include "portable-kernels.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

// 2u = x*(K0 + K1*x^2) for u = sqrt(2/pi)*(x + 0.044715x^3)
#define GELU_K0             1.59576912160573071f
#define GELU_K1             0.0713548162726008f
#define GELU_QUICK_COEF     1.702f

//
// portable binary and affine maps
//

static void p_add(int64_t n, float * z, const float * x, const float * y) { for (int64_t i = 0; i < n; i++) z[i] = x[i] + y[i]; }
static void p_sub(int64_t n, float * z, const float * x, const float * y) { for (int64_t i = 0; i < n; i++) z[i] = x[i] - y[i]; }
static void p_mul(int64_t n, float * z, const float * x, const float * y) { for (int64_t i = 0; i < n; i++) z[i] = x[i] * y[i]; }
static void p_div(int64_t n, float * z, const float * x, const float * y) { for (int64_t i = 0; i < n; i++) z[i] = x[i] / y[i]; }

static void p_scale(int64_t n, float * y, const float * x, float s, float b) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i]*s + b;
    }
}

static void p_mad(int64_t n, float * y, const float * x, float v) {
    for (int64_t i = 0; i < n; i++) {
        y[i] += x[i]*v;
    }
}

static void p_clamp(int64_t n, float * y, const float * x, float lo, float hi) {
    for (int64_t i = 0; i < n; i++) {
        float r = x[i] > hi ? hi : x[i];
        y[i] = r < lo ? lo : r;
    }
}

static void p_leaky_relu(int64_t n, float * y, const float * x, float slope) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i] > 0.0f ? x[i] : slope*x[i];
    }
}

//
// portable reductions
//

static float p_dot(int64_t n, const float * x, const float * y) {
    // independent partial sums, as the SIMD levels have
    float acc[8] = { 0 };
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int k = 0; k < 8; k++) {
            acc[k] += x[i + k]*y[i + k];
        }
    }
    double s = 0.0;
    for (; i < n; i++) {
        s += (double) x[i]*y[i];
    }
    for (int k = 0; k < 8; k++) {
        s += acc[k];
    }
    return (float) s;
}

static double p_sum(int64_t n, const float * x) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += x[i];
    }
    return s;
}

static double p_sumsq(int64_t n, const float * x) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += (double) x[i]*x[i];
    }
    return s;
}

static float p_max(int64_t n, const float * x) {
    float m = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] > m) {
            m = x[i];
        }
    }
    return m;
}

static int64_t p_argmax(int64_t n, const float * x) {
    float   m   = -INFINITY;
    int64_t idx = 0;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] >= m) {
            m   = x[i];
            idx = i;
        }
    }
    return idx;
}

//
// portable activations (C library)
//

static void p_exp(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = expf(x[i]); }
static void p_expm1(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = expm1f(x[i]); }
static void p_tanh(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = tanhf(x[i]); }

// 1/(1 + e^-x) without overflow: e = e^-|x|, then 1/(1 + e) or e/(1 + e)
static inline float p_sigmoid1(float x) {
    const float e = expf(-fabsf(x));
    const float s = 1.0f/(1.0f + e);
    return x < 0.0f ? e*s : s;
}

static void p_sigmoid(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = p_sigmoid1(x[i]);
    }
}

static void p_silu(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i]*p_sigmoid1(x[i]);
    }
}

static void p_swiglu(int64_t n, float * y, const float * x, const float * g) {
    for (int64_t i = 0; i < n; i++) {
        const float s = x[i]*p_sigmoid1(x[i]);
        y[i] = s*g[i];
    }
}

// 0.5*(1 + tanh(u)) = sigmoid(2u): no cancellation for negative x
static void p_gelu(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v*p_sigmoid1(v*(GELU_K0 + GELU_K1*(v*v)));
    }
}

static void p_gelu_quick(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i]*p_sigmoid1(GELU_QUICK_COEF*x[i]);
    }
}

static void p_gelu_erf(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = 0.5f*x[i]*erfcf(-x[i]*0.70710678118654752440f);
    }
}

static double p_soft_max(int64_t n, float * y, const float * x, float m) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        y[i] = expf(x[i] - m);
        s += y[i];
    }
    return s;
}

//
// portable simple maps
//

static void p_relu(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f; }
static void p_abs(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = fabsf(x[i]); }
static void p_neg(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = -x[i]; }
static void p_step(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? 1.0f : 0.0f; }
static void p_sqr(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = x[i]*x[i]; }
static void p_sqrt(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = sqrtf(x[i]); }
static void p_floor(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = floorf(x[i]); }
static void p_ceil(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = ceilf(x[i]); }
static void p_round(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = roundf(x[i]); }
static void p_trunc(int64_t n, float * y, const float * x) { for (int64_t i = 0; i < n; i++) y[i] = truncf(x[i]); }

static void p_sgn(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i] > 0.0f ? 1.0f : (x[i] < 0.0f ? -1.0f : 0.0f);
    }
}

static void p_hardsigmoid(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        const float v = (x[i] + 3.0f)/6.0f;
        y[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
}

static void p_hardswish(int64_t n, float * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        const float v = (x[i] + 3.0f)/6.0f;
        y[i] = x[i]*(v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v));
    }
}

//
// portable conversions (ggml.h's row functions are exact)
//

static void p_f16_to_f32(int64_t n, float * y, const ggml_fp16_t * x) {
    if (n > 0) {
        ggml_fp16_to_fp32_row(x, y, n);
    }
}

static void p_f32_to_f16(int64_t n, ggml_fp16_t * y, const float * x) {
    if (n > 0) {
        ggml_fp32_to_fp16_row(x, y, n);
    }
}

static void p_bf16_to_f32(int64_t n, float * y, const ggml_bf16_t * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = GGML_BF16_TO_FP32(x[i]);
    }
}

static void p_f32_to_bf16(int64_t n, ggml_bf16_t * y, const float * x) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = GGML_FP32_TO_BF16(x[i]);
    }
}

const struct ggml_vec_funcs ggml_cpu_vec_portable = {
    .level           = GGML_CPU_ISA_PORTABLE,
    .add_f32         = p_add,
    .sub_f32         = p_sub,
    .mul_f32         = p_mul,
    .div_f32         = p_div,
    .scale_f32       = p_scale,
    .mad_f32         = p_mad,
    .clamp_f32       = p_clamp,
    .leaky_relu_f32  = p_leaky_relu,
    .dot_f32         = p_dot,
    .sum_f32         = p_sum,
    .sumsq_f32       = p_sumsq,
    .max_f32         = p_max,
    .argmax_f32      = p_argmax,
    .exp_f32         = p_exp,
    .expm1_f32       = p_expm1,
    .tanh_f32        = p_tanh,
    .sigmoid_f32     = p_sigmoid,
    .silu_f32        = p_silu,
    .swiglu_f32      = p_swiglu,
    .gelu_f32        = p_gelu,
    .gelu_quick_f32  = p_gelu_quick,
    .gelu_erf_f32    = p_gelu_erf,
    .soft_max_f32    = p_soft_max,
    .relu_f32        = p_relu,
    .abs_f32         = p_abs,
    .neg_f32         = p_neg,
    .sgn_f32         = p_sgn,
    .step_f32        = p_step,
    .sqr_f32         = p_sqr,
    .sqrt_f32        = p_sqrt,
    .hardsigmoid_f32 = p_hardsigmoid,
    .hardswish_f32   = p_hardswish,
    .floor_f32       = p_floor,
    .ceil_f32        = p_ceil,
    .round_f32       = p_round,
    .trunc_f32       = p_trunc,
    .f16_to_f32      = p_f16_to_f32,
    .f32_to_f16      = p_f32_to_f16,
    .bf16_to_f32     = p_bf16_to_f32,
    .f32_to_bf16     = p_f32_to_bf16,
};
