// Reference: NORM, RMS_NORM, L2_NORM (per row) and GROUP_NORM (groups of channels, dim 2).

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

// NORM:     (x - mean) / sqrt(var + eps)
// RMS_NORM: x / sqrt(mean(x^2) + eps)
// L2_NORM:  x / max(sqrt(sum(x^2)), eps)
static bool ref_row_norm(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const double eps = ggml_ref_param_f32(node, 0);
    const int64_t n = a->ne[0];
    if (n == 0) {
        return true;
    }
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                double sum = 0.0;
                double sum2 = 0.0;
                for (int64_t i0 = 0; i0 < n; i0++) {
                    const double x = ggml_ref_get(a, i0, i1, i2, i3);
                    sum  += x;
                    sum2 += x*x;
                }
                double shift = 0.0;
                double scale;
                switch (node->op) {
                    case GGML_OP_NORM: {
                        shift = sum / (double) n;
                        double var = 0.0; // second pass for accuracy
                        for (int64_t i0 = 0; i0 < n; i0++) {
                            const double d = ggml_ref_get(a, i0, i1, i2, i3) - shift;
                            var += d*d;
                        }
                        scale = 1.0 / sqrt(var / (double) n + eps);
                    } break;
                    case GGML_OP_RMS_NORM:
                        scale = 1.0 / sqrt(sum2 / (double) n + eps);
                        break;
                    case GGML_OP_L2_NORM: {
                        const double norm = sqrt(sum2);
                        scale = 1.0 / (norm > eps ? norm : eps);
                    } break;
                    default:
                        return ggml_ref_fail(err, err_size, "%s: not a row norm", ggml_op_desc(node));
                }
                for (int64_t i0 = 0; i0 < n; i0++) {
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = (ggml_ref_get(a, i0, i1, i2, i3) - shift)*scale;
                }
            }
        }
    }
    return true;
}

// GROUP_NORM: i32[0] = n_groups, f32[1] = eps. Channels (dim 2) are cut into groups of
// ceil(C/n_groups) (the last may be shorter); each group of each i3 is normalized over all its
// ne0*ne1*channels elements like NORM.
static bool ref_group_norm(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const int64_t n_groups = ggml_ref_param_i32(node, 0);
    const double eps = ggml_ref_param_f32(node, 1);
    if (n_groups <= 0) {
        return ggml_ref_fail(err, err_size, "GROUP_NORM: n_groups = %lld", (long long) n_groups);
    }
    const int64_t C = a->ne[2];
    const int64_t per_group = (C + n_groups - 1) / n_groups;
    for (int64_t g = 0; g < n_groups; g++) {
        const int64_t c0 = g*per_group;
        const int64_t c1 = c0 + per_group < C ? c0 + per_group : C;
        if (c0 >= c1) {
            continue;
        }
        const double count = (double) (a->ne[0]*a->ne[1]*(c1 - c0));
        for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
            double sum = 0.0;
            for (int64_t i2 = c0; i2 < c1; i2++) {
                for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                    for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                        sum += ggml_ref_get(a, i0, i1, i2, i3);
                    }
                }
            }
            const double mean = sum / count;
            double var = 0.0;
            for (int64_t i2 = c0; i2 < c1; i2++) {
                for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                    for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                        const double d = ggml_ref_get(a, i0, i1, i2, i3) - mean;
                        var += d*d;
                    }
                }
            }
            const double scale = 1.0 / sqrt(var / count + eps);
            for (int64_t i2 = c0; i2 < c1; i2++) {
                for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                    for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                        out[ggml_ref_idx(node, i0, i1, i2, i3)] = (ggml_ref_get(a, i0, i1, i2, i3) - mean)*scale;
                    }
                }
            }
        }
    }
    return true;
}

bool ggml_ref_op_norm(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    if (!ggml_ref_same_shape(node, node->src[0])) {
        return ggml_ref_fail(err, err_size, "%s: result shape differs from source 0", ggml_op_desc(node));
    }
    if (node->op == GGML_OP_GROUP_NORM) {
        return ref_group_norm(node, out, err, err_size);
    }
    return ref_row_norm(node, out, err, err_size);
}
