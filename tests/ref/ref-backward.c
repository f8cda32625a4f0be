// Reference: the training ops. REPEAT_BACK, SILU_BACK, RMS_NORM_BACK, GET_ROWS_BACK,
// SOFT_MAX_BACK, POOL_2D_BACK, COUNT_EQUAL, CROSS_ENTROPY_LOSS(_BACK), OPT_STEP_ADAMW, OPT_STEP_SGD.
// Each is the exact derivative (or update rule) written out in double from its definition.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

// REPEAT_BACK: each element of the result sums the elements of a that repeat it
static bool ref_repeat_back(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    for (int d = 0; d < 4; d++) {
        if (node->ne[d] == 0 || a->ne[d] % node->ne[d] != 0) {
            return ggml_ref_fail(err, err_size, "REPEAT_BACK: source dim %d (%lld) is not a multiple of %lld",
                    d, (long long) a->ne[d], (long long) node->ne[d]);
        }
    }
    const int64_t n = ggml_ref_nel(node);
    for (int64_t i = 0; i < n; i++) {
        out[i] = 0.0;
    }
    const int64_t na = ggml_ref_nel(a);
    for (int64_t i = 0; i < na; i++) {
        int64_t idx[4];
        ggml_ref_unravel(a, i, idx);
        out[ggml_ref_idx(node, idx[0] % node->ne[0], idx[1] % node->ne[1], idx[2] % node->ne[2], idx[3] % node->ne[3])] +=
            ggml_ref_get(a, idx[0], idx[1], idx[2], idx[3]);
    }
    return true;
}

// per-row operations on same-shaped sources: op(row of src0, row of src1 ...) -> row of out
static bool ref_rows_same_shape(const struct ggml_tensor * node, int n_src, char * err, size_t err_size) {
    for (int i = 0; i < n_src; i++) {
        if (!ggml_ref_need_src(node, i, err, err_size)) {
            return false;
        }
        if (!ggml_ref_same_shape(node, node->src[i])) {
            return ggml_ref_fail(err, err_size, "%s: source %d has another shape than the result", ggml_op_desc(node), i);
        }
    }
    return true;
}

// d/dx [x * sigmoid(x)] = s * (1 + x * (1 - s))
static bool ref_silu_back(const struct ggml_tensor * node, double * out) {
    const int64_t n = ggml_ref_nel(node);
    for (int64_t i = 0; i < n; i++) {
        const double dy = ggml_ref_get_flat(node->src[0], i);
        const double x  = ggml_ref_get_flat(node->src[1], i);
        const double s  = 1.0/(1.0 + exp(-x));
        out[i] = dy*s*(1.0 + x*(1.0 - s));
    }
    return true;
}

// y = x * r with r = (sum(x^2)/n + eps)^(-1/2): dx_j = r*dy_j - x_j * r^3 * sum(x*dy) / n
// SOFT_MAX_BACK (y = softmax(scale*x + slope*mask)): dx_j = scale * y_j * (dy_j - sum(y*dy))
static bool ref_row_back(const struct ggml_tensor * node, double * out) {
    const struct ggml_tensor * dy = node->src[0];
    const struct ggml_tensor * x  = node->src[1];
    const int64_t n = node->ne[0];
    const double p = ggml_ref_param_f32(node, 0); // eps or scale
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < node->ne[1]; i1++) {
                double sxx = 0.0, sxdy = 0.0;
                for (int64_t i0 = 0; i0 < n; i0++) {
                    const double xv = ggml_ref_get(x, i0, i1, i2, i3);
                    sxx  += xv*xv;
                    sxdy += xv*ggml_ref_get(dy, i0, i1, i2, i3);
                }
                const double r = node->op == GGML_OP_RMS_NORM_BACK ? 1.0/sqrt(sxx/(double) n + p) : 0.0;
                for (int64_t i0 = 0; i0 < n; i0++) {
                    const double xv  = ggml_ref_get(x, i0, i1, i2, i3);
                    const double dyv = ggml_ref_get(dy, i0, i1, i2, i3);
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = node->op == GGML_OP_RMS_NORM_BACK
                        ? r*dyv - xv*r*r*r*sxdy/(double) n
                        : p*xv*(dyv - sxdy);
                }
            }
        }
    }
    return true;
}

// GET_ROWS_BACK: row b[i] of the result accumulates row i of a (of any type the reference reads or
// dequantizes)
static bool ref_get_rows_back(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src_q(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (a->ne[0] != node->ne[0] || a->ne[1] < b->ne[0]) {
        return ggml_ref_fail(err, err_size, "GET_ROWS_BACK: shapes of a and the result do not match");
    }
    const int64_t n = ggml_ref_nel(node);
    for (int64_t i = 0; i < n; i++) {
        out[i] = 0.0;
    }
    for (int64_t i = 0; i < b->ne[0]; i++) {
        const double r = ggml_ref_get(b, i, 0, 0, 0);
        if (!(r >= 0.0 && r < (double) node->ne[1])) {
            return ggml_ref_fail(err, err_size, "GET_ROWS_BACK: index %g is out of range", r);
        }
        for (int64_t k = 0; k < node->ne[0]; k++) {
            out[ggml_ref_idx(node, k, (int64_t) r, 0, 0)] += ggml_ref_get_q(a, k, i, 0, 0);
        }
    }
    return true;
}

// POOL_2D_BACK: the output gradient to the first maximum of each window (MAX), or spread over the
// window's in-bounds elements divided by k0*k1 (AVG)
static bool ref_pool_2d_back(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * g  = node->src[0];
    const struct ggml_tensor * af = node->src[1];
    const int op = ggml_ref_param_i32(node, 0);
    const int64_t k0 = ggml_ref_param_i32(node, 1), k1 = ggml_ref_param_i32(node, 2);
    const int64_t s0 = ggml_ref_param_i32(node, 3), s1 = ggml_ref_param_i32(node, 4);
    const int64_t p0 = ggml_ref_param_i32(node, 5), p1 = ggml_ref_param_i32(node, 6);
    if (!ggml_ref_same_shape(node, af) || g->ne[2] != node->ne[2] || g->ne[3] != node->ne[3] ||
        (op != GGML_OP_POOL_MAX && op != GGML_OP_POOL_AVG)) {
        return ggml_ref_fail(err, err_size, "POOL_2D_BACK: bad shapes or pool op");
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = 0.0;
    }
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t oy = 0; oy < g->ne[1]; oy++) {
                for (int64_t ox = 0; ox < g->ne[0]; ox++) {
                    const double d = ggml_ref_get(g, ox, oy, i2, i3);
                    int64_t bx = -1, by = -1;
                    double best = 0.0;
                    for (int64_t y = oy*s1 - p1; y < oy*s1 - p1 + k1; y++) {
                        for (int64_t x = ox*s0 - p0; x < ox*s0 - p0 + k0; x++) {
                            if (x < 0 || y < 0 || x >= node->ne[0] || y >= node->ne[1]) {
                                continue;
                            }
                            if (op == GGML_OP_POOL_AVG) {
                                out[ggml_ref_idx(node, x, y, i2, i3)] += d/(double) (k0*k1);
                            } else if (bx < 0 || ggml_ref_get(af, x, y, i2, i3) > best) {
                                bx = x; by = y;
                                best = ggml_ref_get(af, x, y, i2, i3);
                            }
                        }
                    }
                    if (bx >= 0) {
                        out[ggml_ref_idx(node, bx, by, i2, i3)] += d;
                    }
                }
            }
        }
    }
    return true;
}

static bool ref_count_equal(const struct ggml_tensor * node, double * out) {
    const struct ggml_tensor * a = node->src[0];
    int64_t count = 0;
    for (int64_t i = 0; i < ggml_ref_nel(a); i++) {
        count += ggml_ref_get_flat(a, i) == ggml_ref_get_flat(node->src[1], i);
    }
    out[0] = (double) count;
    return true;
}

// log(sum(exp(x))) of row (i1, i2, i3) of t, stable
static double ref_log_sum_exp(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    double max = -INFINITY;
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        const double v = ggml_ref_get(t, i0, i1, i2, i3);
        max = v > max ? v : max;
    }
    double s = 0.0;
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        s += exp(ggml_ref_get(t, i0, i1, i2, i3) - max);
    }
    return max + log(s);
}

// loss = -1/rows * sum_rows sum_i b_i * (a_i - lse(a));  back: d/rows * (softmax(a) - b)
static bool ref_cross_entropy(const struct ggml_tensor * node, double * out) {
    const bool back = node->op == GGML_OP_CROSS_ENTROPY_LOSS_BACK;
    const struct ggml_tensor * a = node->src[back ? 1 : 0];
    const struct ggml_tensor * b = node->src[back ? 2 : 1];
    const double rows = (double) (a->ne[1]*a->ne[2]*a->ne[3]);
    const double d = back ? ggml_ref_get(node->src[0], 0, 0, 0, 0) : 0.0;
    double sum = 0.0;
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                const double lse = ref_log_sum_exp(a, i1, i2, i3);
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    const double x = ggml_ref_get(a, i0, i1, i2, i3);
                    const double y = ggml_ref_get(b, i0, i1, i2, i3);
                    if (back) {
                        out[ggml_ref_idx(a, i0, i1, i2, i3)] = d/rows*(exp(x - lse) - y);
                    } else {
                        sum += y*(x - lse);
                    }
                }
            }
        }
    }
    if (!back) {
        out[0] = rows > 0.0 ? -sum/rows : 0.0;
    }
    return true;
}

// the parameter after one step: SGD w*(1 - alpha*wd) - alpha*g; AdamW with the moments updated
// first: m' = b1*m + (1-b1)*g, v' = b2*v + (1-b2)*g^2, w*(1 - alpha*wd) - alpha*m'*b1h/(sqrt(v'*b2h) + eps)
static bool ref_opt_step(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const bool adamw = node->op == GGML_OP_OPT_STEP_ADAMW;
    const struct ggml_tensor * pt = node->src[adamw ? 4 : 2];
    if (!ggml_ref_need_src(node, adamw ? 4 : 2, err, err_size) || ggml_ref_nel(pt) != (adamw ? 7 : 2)) {
        return ggml_ref_fail(err, err_size, "%s: bad optimizer parameters", ggml_op_desc(node));
    }
    double p[7];
    for (int i = 0; i < (adamw ? 7 : 2); i++) {
        p[i] = ggml_ref_get_flat(pt, i);
    }
    const double alpha = p[0];
    const double keep = 1.0 - alpha*(adamw ? p[4] : p[1]);
    const int64_t n = ggml_ref_nel(node);
    for (int64_t i = 0; i < n; i++) {
        const double w = ggml_ref_get_flat(node->src[0], i);
        const double g = ggml_ref_get_flat(node->src[1], i);
        if (!adamw) {
            out[i] = w*keep - alpha*g;
            continue;
        }
        const double m = p[1]*ggml_ref_get_flat(node->src[2], i) + (1.0 - p[1])*g;
        const double v = p[2]*ggml_ref_get_flat(node->src[3], i) + (1.0 - p[2])*g*g;
        out[i] = w*keep - alpha*m*p[5]/(sqrt(v*p[6]) + p[3]);
    }
    return true;
}

bool ggml_ref_op_backward(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    switch (node->op) {
        case GGML_OP_REPEAT_BACK:
            return ggml_ref_need_src(node, 0, err, err_size) && ref_repeat_back(node, out, err, err_size);
        case GGML_OP_SILU_BACK:
            return ref_rows_same_shape(node, 2, err, err_size) && ref_silu_back(node, out);
        case GGML_OP_RMS_NORM_BACK:
        case GGML_OP_SOFT_MAX_BACK:
            // max_bias (f32[1]) only scales softmax's mask, which has no gradient: dx does not depend on it
            return ref_rows_same_shape(node, 2, err, err_size) && ref_row_back(node, out);
        case GGML_OP_GET_ROWS_BACK:
            return ref_get_rows_back(node, out, err, err_size);
        case GGML_OP_POOL_2D_BACK:
            return ref_pool_2d_back(node, out, err, err_size);
        case GGML_OP_COUNT_EQUAL:
            if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
                return false;
            }
            if (!ggml_ref_same_shape(node->src[0], node->src[1])) {
                return ggml_ref_fail(err, err_size, "COUNT_EQUAL: sources differ in shape");
            }
            return ref_count_equal(node, out);
        case GGML_OP_CROSS_ENTROPY_LOSS:
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK: {
            const int n_src = node->op == GGML_OP_CROSS_ENTROPY_LOSS ? 2 : 3;
            for (int i = 0; i < n_src; i++) {
                if (!ggml_ref_need_src(node, i, err, err_size)) {
                    return false;
                }
            }
            if (!ggml_ref_same_shape(node->src[n_src - 2], node->src[n_src - 1])) {
                return ggml_ref_fail(err, err_size, "%s: logits and labels differ in shape", ggml_op_desc(node));
            }
            return ref_cross_entropy(node, out);
        }
        case GGML_OP_OPT_STEP_ADAMW:
        case GGML_OP_OPT_STEP_SGD:
            return ref_rows_same_shape(node, node->op == GGML_OP_OPT_STEP_ADAMW ? 4 : 2, err, err_size) &&
                   ref_opt_step(node, out, err, err_size);
        default:
            return ggml_ref_fail(err, err_size, "op %s is not a training op", ggml_op_name(node->op));
    }
}
