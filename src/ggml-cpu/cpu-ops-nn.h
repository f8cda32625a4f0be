#pragma once

// Small helpers shared by the nn kernel families (cpu-ops-norm.c, cpu-ops-rope.c, cpu-ops-attn.c,
// cpu-ops-conv.c) that the row helpers of ggml-cpu-vec.h do not provide.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef const struct ggml_vec_funcs * nn_vf;

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
