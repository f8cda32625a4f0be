#pragma once

// Row-level vector helpers of the CPU kernels, one implementation per SIMD level (portable C,
// AVX2+FMA+F16C, AVX-512; the vec member of each level's table, cpu-kernels.h), chosen at run time.
//
// A kernel fetches the table once per forward call and calls its members on contiguous rows:
//     const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
//     vf->add_f32(n, z, x, y);
// Unless a line says otherwise: n >= 0 (n == 0 does nothing), rows are plain float arrays with no
// alignment requirement, and the output may alias an input exactly (in-place), but must not
// partially overlap one.
//
// Accuracy of the activations (checked at every level by tests/test-cpu-vec.c): the relative
// error against the exact value for the float input is at most
//     exp, soft_max          2e-7
//     expm1                  2e-7
//     tanh                   3e-7
//     sigmoid, silu          3e-7
//     gelu_quick             3e-7 + 8e-8*|1.702x|
//     gelu                   3e-7 + 2e-7*|2u|, u = sqrt(2/pi)(x + 0.044715x^3)
//     gelu_erf               5e-7 (portable level: 3e-7 + 2e-7*x^2/2)
// for every result of magnitude >= 1e-30. Smaller results are within 2e-5 relative (or the bound
// above, if larger) or FLT_MIN absolute. The |z| terms come from rounding the argument z of the
// exponential, which no float formula avoids. NaN gives NaN; infinities give the function's limits
// (or NaN where the exact formula has inf*0, as silu(-inf)). The portable level uses the C library
// (expf, expm1f, tanhf, erfcf) in the same formulas; the SIMD levels use the approximations
// described in arch/x86/x86-vec-common.h.

#include "ggml.h"
#include "ggml-impl.h"
#include "ggml-cpu-isa.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ggml_vec_funcs {
    enum ggml_cpu_isa_level level; // the SIMD level of these implementations

    // element-wise binary: z[i] = x[i] op y[i] (IEEE results, exact as float arithmetic)
    void (*add_f32)(int64_t n, float * z, const float * x, const float * y);
    void (*sub_f32)(int64_t n, float * z, const float * x, const float * y);
    void (*mul_f32)(int64_t n, float * z, const float * x, const float * y);
    void (*div_f32)(int64_t n, float * z, const float * x, const float * y);

    // y[i] = x[i]*s + b (a product and a sum, each rounded)
    void (*scale_f32)(int64_t n, float * y, const float * x, float s, float b);
    // y[i] += x[i]*v (fused multiply-add on the SIMD levels)
    void (*mad_f32)(int64_t n, float * y, const float * x, float v);
    // y[i] = min(max(x[i], lo), hi); NaN stays NaN
    void (*clamp_f32)(int64_t n, float * y, const float * x, float lo, float hi);
    // y[i] = x[i] > 0 ? x[i] : slope*x[i]
    void (*leaky_relu_f32)(int64_t n, float * y, const float * x, float slope);

    // sum of x[i]*y[i] with float accumulators (several partial sums, combined in double)
    float   (*dot_f32)(int64_t n, const float * x, const float * y);
    // sum of x[i], accumulated in double
    double  (*sum_f32)(int64_t n, const float * x);
    // sum of x[i]^2, accumulated in double
    double  (*sumsq_f32)(int64_t n, const float * x);
    // the largest x[i], NaN ignored; -INFINITY when n == 0 or every element is NaN
    float   (*max_f32)(int64_t n, const float * x);
    // the LAST index holding the largest x[i] (NaN ignored); 0 when there is none
    int64_t (*argmax_f32)(int64_t n, const float * x);

    // activations: y[i] = f(x[i]), with the errors listed at the top of this file
    void (*exp_f32)       (int64_t n, float * y, const float * x); // e^x
    void (*expm1_f32)     (int64_t n, float * y, const float * x); // e^x - 1, accurate near 0
    void (*tanh_f32)      (int64_t n, float * y, const float * x); // tanh x
    void (*sigmoid_f32)   (int64_t n, float * y, const float * x); // 1/(1 + e^-x)
    void (*silu_f32)      (int64_t n, float * y, const float * x); // x/(1 + e^-x)
    void (*gelu_f32)      (int64_t n, float * y, const float * x); // 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
    void (*gelu_quick_f32)(int64_t n, float * y, const float * x); // x/(1 + e^(-1.702x))
    void (*gelu_erf_f32)  (int64_t n, float * y, const float * x); // 0.5x(1 + erf(x/sqrt 2))
    // y[i] = e^(x[i] - m); returns the sum of the y[i] (accumulated in double)
    double (*soft_max_f32)(int64_t n, float * y, const float * x, float m);
    // y[i] = silu(x[i])*g[i] in one pass (SWIGLU), within silu's bound plus 6e-8; y may be x or g
    void (*swiglu_f32)(int64_t n, float * y, const float * x, const float * g);

    // simple maps, exact (NaN: relu, step and sgn give 0, the others NaN)
    void (*relu_f32)       (int64_t n, float * y, const float * x); // x > 0 ? x : 0
    void (*abs_f32)        (int64_t n, float * y, const float * x); // |x|
    void (*neg_f32)        (int64_t n, float * y, const float * x); // -x
    void (*sgn_f32)        (int64_t n, float * y, const float * x); // 1, -1 or 0
    void (*step_f32)       (int64_t n, float * y, const float * x); // x > 0 ? 1 : 0
    void (*sqr_f32)        (int64_t n, float * y, const float * x); // x*x
    void (*sqrt_f32)       (int64_t n, float * y, const float * x); // correctly rounded sqrt
    void (*hardsigmoid_f32)(int64_t n, float * y, const float * x); // min(max((x + 3)/6, 0), 1)
    void (*hardswish_f32)  (int64_t n, float * y, const float * x); // x*hardsigmoid(x)
    void (*floor_f32)      (int64_t n, float * y, const float * x);
    void (*ceil_f32)       (int64_t n, float * y, const float * x);
    void (*round_f32)      (int64_t n, float * y, const float * x); // halves away from zero (roundf)
    void (*trunc_f32)      (int64_t n, float * y, const float * x);

    // conversions between contiguous rows (round to nearest even; NaN stays NaN)
    void (*f16_to_f32) (int64_t n, float * y, const ggml_fp16_t * x);
    void (*f32_to_f16) (int64_t n, ggml_fp16_t * y, const float * x);
    void (*bf16_to_f32)(int64_t n, float * y, const ggml_bf16_t * x);
    void (*f32_to_bf16)(int64_t n, ggml_bf16_t * y, const float * x);
};

// The table of the level in use (ggml_cpu_isa()), or of the portable level when use_ref is true.
const struct ggml_vec_funcs * ggml_vec_get(bool use_ref);

// The table of `level`, capped at ggml_cpu_isa() (so never one this CPU cannot run). For tests
// that compare the levels.
const struct ggml_vec_funcs * ggml_vec_get_level(enum ggml_cpu_isa_level level);

//
// Strided rows of the float types (F32, F16, BF16). Strides are in bytes.
//

static inline bool ggml_vec_is_float_type(enum ggml_type type) {
    return type == GGML_TYPE_F32 || type == GGML_TYPE_F16 || type == GGML_TYPE_BF16;
}

// y[i] = element i of the row at x (n elements of `type`, `stride` bytes apart) as float
void ggml_vec_load_f32(const struct ggml_vec_funcs * vf, enum ggml_type type, const void * x, size_t stride,
        int64_t n, float * y);
// element i of the row at y (n elements of `type`, `stride` bytes apart) = x[i] rounded to `type`
void ggml_vec_store_f32(const struct ggml_vec_funcs * vf, enum ggml_type type, void * y, size_t stride,
        int64_t n, const float * x);

// One element of type F32, F16 or BF16 (other types: 0).
static inline float ggml_vec_load_elem(enum ggml_type type, const void * p) {
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

// Copies n elements of es bytes (1, 2, 4, 8 or any other size) from src (snb bytes apart) to dst
// (dnb bytes apart), bit for bit. Exact aliasing (dst == src, same strides) is allowed.
static inline void ggml_vec_copy_elems(void * dst, size_t dnb, const void * src, size_t snb, int64_t n, size_t es) {
    char       * d = (char *) dst;
    const char * s = (const char *) src;
    if (dnb == es && snb == es) {
        if (d != s && n > 0) {
            memmove(d, s, (size_t) n*es);
        }
        return;
    }
    switch (es) {
        case 1: for (int64_t i = 0; i < n; i++) memcpy(d + (size_t) i*dnb, s + (size_t) i*snb, 1); break;
        case 2: for (int64_t i = 0; i < n; i++) memcpy(d + (size_t) i*dnb, s + (size_t) i*snb, 2); break;
        case 4: for (int64_t i = 0; i < n; i++) memcpy(d + (size_t) i*dnb, s + (size_t) i*snb, 4); break;
        case 8: for (int64_t i = 0; i < n; i++) memcpy(d + (size_t) i*dnb, s + (size_t) i*snb, 8); break;
        default:
            for (int64_t i = 0; i < n; i++) {
                memmove(d + (size_t) i*dnb, s + (size_t) i*snb, es);
            }
            break;
    }
}

// Sets n elements of es bytes (nb bytes apart) to all-zero bits (0 for every float and integer type).
static inline void ggml_vec_zero_elems(void * dst, size_t nb, int64_t n, size_t es) {
    char * d = (char *) dst;
    if (nb == es) {
        if (n > 0) {
            memset(d, 0, (size_t) n*es);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        memset(d + (size_t) i*nb, 0, es);
    }
}

//
// Work split for element-wise kernels
//

// The elements [*start, *end) of a tensor of nrows rows of ne0 elements (flattened index
// row*ne0 + i0) that thread ith of nth computes: whole rows when they share out evenly enough
// (or are short), else equal parts cut at multiples of 16 elements (64 bytes of F32).
static inline void ggml_vec_split_elements(int64_t nrows, int64_t ne0, int ith, int nth, int64_t * start, int64_t * end) {
    if (nrows % nth == 0 || nrows >= 8*nth || ne0 < 64) {
        int64_t r0, r1;
        const int64_t per  = nrows / nth;
        const int64_t rest = nrows % nth;
        r0 = ith*per + (ith < rest ? ith : rest);
        r1 = r0 + per + (ith < rest ? 1 : 0);
        *start = r0*ne0;
        *end   = r1*ne0;
        return;
    }
    const int64_t total  = nrows*ne0;
    const int64_t blocks = (total + 15) / 16;
    const int64_t b0 = blocks*ith / nth;
    const int64_t b1 = blocks*(ith + 1) / nth;
    *start = b0*16 < total ? b0*16 : total;
    *end   = b1*16 < total ? b1*16 : total;
}

// Row r of a tensor with ne[1..3] as (i1, i2, i3).
static inline void ggml_vec_row_index(const int64_t ne[4], int64_t r, int64_t * i1, int64_t * i2, int64_t * i3) {
    *i1 = r % ne[1];
    r  /= ne[1];
    *i2 = r % ne[2];
    *i3 = r / ne[2];
}

#ifdef __cplusplus
}
#endif
