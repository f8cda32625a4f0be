#pragma once

// Small helpers shared by the nn kernel families (ops-norm.c, ops-rope.c, ops-attn.c,
// ops-conv.c) that the row helpers of ggml-cpu-vec.h do not provide.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-isa.h"
#include "ggml-cpu-vec.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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

// ALiBi slope of head h out of n_head (1 when max_bias <= 0), the family's definition:
// m0 = 2^(-max_bias/n), m1 = 2^(-max_bias/2/n) with n the largest power of two <= n_head;
// heads below n get m0^(h+1), the others m1^(2(h-n)+1).
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
