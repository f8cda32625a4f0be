// Cases for the CPU backend's shortcuts of composite patterns, after the family's test-backend-ops
// (test_mul_mat_hadamard, test_ssm_conv_bias_silu):
//   MUL_MAT_HADAMARD: MUL_MAT carrying GGML_HINT_SRC0_IS_HADAMARD with A the Sylvester Hadamard
//     matrix scaled by 1/sqrt(n) (the CPU backend then transforms B instead of multiplying), and with
//     A not a Hadamard matrix or scaled otherwise (the backend must notice and multiply, or scale by
//     what A holds); the reference is the product either way.
//   SSM_CONV_BIAS_SILU: silu(ssm_conv(sx, c) + bias), which the CPU backend computes as one node.

#include "bops.h"

#include <math.h>
#include <stdio.h>

//
// MUL_MAT_HADAMARD: a = [n, n, t[0]..] filled per i[0] (0: H/sqrt(n), 1: uniform, 2: H unscaled),
// b = ne[1] (layout i[1])
//

static struct ggml_tensor * build_mm_hadamard(struct bop_graph * g, const struct bop_case * c) {
    const int64_t n = c->ne[0][0];
    const double s = c->i[0] == 2 ? 1.0 : (double) (1.0f/sqrtf((float) n));
    struct ggml_tensor * a = c->i[0] == 1 ? bops_input(g, GGML_TYPE_F32, c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -1.0, 1.0)
                                          : bops_input(g, GGML_TYPE_F32, c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_HADAMARD, -s, s);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_F32, c->ne[1], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    struct ggml_tensor * t = ggml_mul_mat(g->ctx, a, b);
    if (t != NULL) {
        ggml_mul_mat_set_hint(t, GGML_HINT_SRC0_IS_HADAMARD);
    }
    return t;
}

static bool add_mm_hadamard(struct bop_cases * list, int64_t n, int64_t m, int64_t b2, int64_t b3, int fill,
                            enum bop_layout lb, bool perf) {
    static const char * fills[3] = { "hadamard", "uniform", "hadamard-unscaled" };
    const int64_t na[4] = { n, n, 1, 1 }, nb[4] = { n, m, b2, b3 };
    struct bop_case * c = bops_add(list, "MUL_MAT_HADAMARD", build_mm_hadamard, "n=%lld,m=%lld,bs=[%lld,%lld],a=%s,layout_b=%s",
            (long long) n, (long long) m, (long long) b2, (long long) b3, fills[fill], bops_layout_name(lb));
    if (c == NULL) {
        return false;
    }
    bops_ne(c->ne[0], na[0], na[1], na[2], na[3]);
    bops_ne(c->ne[1], nb[0], nb[1], nb[2], nb[3]);
    c->i[0] = fill;
    c->i[1] = lb;
    if (perf) {
        c->modes = BOP_MODE_PERF;
    }
    return true;
}

static bool cases_mm_hadamard(struct bop_cases * list) {
    // the family's shapes (n, columns, batches), then the transform's own edges: n below one
    // vector (1, 2, 4), one vector (8), an odd count of stages after the first vector (16, 64)
    static const struct { int64_t n, m, b2, b3; } sh[] = {
        { 128, 1, 1, 1 }, { 64, 1, 1, 1 }, { 256, 1, 1, 1 }, { 512, 1, 1, 1 }, { 128, 32, 1, 1 }, { 128, 4, 2, 3 },
        { 256, 512, 1, 1 }, { 32, 1, 1, 1 }, { 1024, 1, 1, 1 },
        { 1, 3, 1, 1 }, { 2, 3, 1, 1 }, { 4, 5, 1, 1 }, { 8, 3, 1, 1 }, { 16, 7, 1, 1 }, { 64, 9, 1, 1 },
    };
    for (size_t k = 0; k < sizeof(sh)/sizeof(sh[0]); k++) {
        if (!add_mm_hadamard(list, sh[k].n, sh[k].m, sh[k].b2, sh[k].b3, 0, BOP_LAYOUT_CONT, false)) {
            return false;
        }
    }
    // B through strided rows; A not Hadamard (the product), A = H unscaled (scale 1)
    return add_mm_hadamard(list, 128, 6, 2, 1, 0, BOP_LAYOUT_PAD, false) &&
           add_mm_hadamard(list, 64, 5, 1, 1, 1, BOP_LAYOUT_CONT, false) &&
           add_mm_hadamard(list, 128, 4, 2, 1, 1, BOP_LAYOUT_CONT, false) &&
           add_mm_hadamard(list, 64, 5, 1, 1, 2, BOP_LAYOUT_CONT, false) &&
           // the family's perf shapes
           add_mm_hadamard(list, 64, 2048, 1, 1, 0, BOP_LAYOUT_CONT, true) &&
           add_mm_hadamard(list, 128, 2048, 1, 1, 0, BOP_LAYOUT_CONT, true) &&
           add_mm_hadamard(list, 256, 2048, 1, 1, 0, BOP_LAYOUT_CONT, true) &&
           add_mm_hadamard(list, 512, 2048, 1, 1, 0, BOP_LAYOUT_CONT, true);
}

//
// SSM_CONV_BIAS_SILU: sx = ne[0], c = ne[1], i[0]: with the bias ADD
//

static struct ggml_tensor * build_ssm_conv_bias_silu(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * sx = bops_input_c(g, GGML_TYPE_F32, c->ne[0]);
    struct ggml_tensor * w  = bops_input_c(g, GGML_TYPE_F32, c->ne[1]);
    if (sx == NULL || w == NULL) {
        return NULL;
    }
    struct ggml_tensor * out = ggml_ssm_conv(g->ctx, sx, w);
    if (out != NULL && c->i[0]) {
        struct ggml_tensor * bias = bops_input_c(g, GGML_TYPE_F32, (const int64_t[4]) { out->ne[0], 1, 1, 1 });
        out = bias != NULL ? ggml_add(g->ctx, out, bias) : NULL;
    }
    return out != NULL ? ggml_silu(g->ctx, out) : NULL;
}

static bool add_ssm_conv_bias_silu(struct bop_cases * list, const int64_t na[4], const int64_t nb[4], bool bias, bool perf) {
    struct bop_case * c = bops_add(list, "SSM_CONV_BIAS_SILU", build_ssm_conv_bias_silu, "type=f32,ne_a=%s,ne_b=%s,fuse_bias=%d",
            bops_ne_str(na), bops_ne_str(nb), (int) bias);
    if (c == NULL) {
        return false;
    }
    bops_ne(c->ne[0], na[0], na[1], na[2], na[3]);
    bops_ne(c->ne[1], nb[0], nb[1], nb[2], nb[3]);
    c->i[0] = bias;
    if (perf) {
        c->modes = BOP_MODE_PERF;
    }
    return true;
}

static bool cases_ssm_conv_bias_silu(struct bop_cases * list) {
    // the family's shapes (one token, two, four sequences, 64 tokens, 64 tokens in 4 sequences),
    // with a channel count that leaves a partial channel tile of the fused kernel (1000 = 31 x 32 + 8)
    static const int64_t d_convs[] = { 3, 4, 9 }, d_inners[] = { 1024, 1000 };
    for (size_t a = 0; a < 3; a++) {
        for (size_t b = 0; b < 2; b++) {
            for (int bias = 0; bias < 2; bias++) {
                const int64_t dc = d_convs[a], di = d_inners[b];
                const int64_t shapes[5][4] = { { dc, di, 1, 1 }, { 2*dc, di, 1, 1 }, { dc, di, 4, 1 },
                                               { dc - 1 + 64, di, 1, 1 }, { dc - 1 + 67, di, 4, 1 } };
                for (int k = 0; k < 5; k++) {
                    if (!add_ssm_conv_bias_silu(list, shapes[k], (const int64_t[4]) { dc, di, 1, 1 }, bias, false)) {
                        return false;
                    }
                }
            }
        }
    }
    // the family's perf shapes: prefill and generation
    return add_ssm_conv_bias_silu(list, (const int64_t[4]) { 515, 3328, 1, 1 }, (const int64_t[4]) { 4, 3328, 1, 1 }, true, true) &&
           add_ssm_conv_bias_silu(list, (const int64_t[4]) { 4, 3328, 1, 1 }, (const int64_t[4]) { 4, 3328, 1, 1 }, true, true);
}

bool bops_cases_fastpath(struct bop_cases * list) {
    return cases_mm_hadamard(list) && cases_ssm_conv_bias_silu(list);
}
