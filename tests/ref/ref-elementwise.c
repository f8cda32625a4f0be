// Reference: element-wise ops with a scalar formula.
//   ADD SUB MUL DIV (b broadcast over a), ADD1, SQR SQRT LOG SIN COS, SCALE, CLAMP, LEAKY_RELU

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

static bool ref_binary(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "%s: result shape differs from source 0", ggml_op_desc(node));
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (b->ne[d] == 0 ? a->ne[d] != 0 : a->ne[d] % b->ne[d] != 0) {
            return ggml_ref_fail(err, err_size, "%s: b->ne[%d] = %lld does not divide a->ne[%d] = %lld",
                    ggml_op_desc(node), d, (long long) b->ne[d], d, (long long) a->ne[d]);
        }
    }
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    const double x = ggml_ref_get(a, i0, i1, i2, i3);
                    const double y = ggml_ref_get(b, i0 % b->ne[0], i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
                    double r;
                    switch (node->op) {
                        case GGML_OP_ADD: r = x + y; break;
                        case GGML_OP_SUB: r = x - y; break;
                        case GGML_OP_MUL: r = x * y; break;
                        default:          r = x / y; break;
                    }
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = r;
                }
            }
        }
    }
    return true;
}

static bool ref_add1(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (!ggml_ref_same_shape(node, a) || ggml_ref_nel(b) != 1) {
        return ggml_ref_fail(err, err_size, "ADD1: the result must have a's shape and b one element");
    }
    const double y = ggml_ref_get(b, 0, 0, 0, 0);
    for (int64_t i = 0; i < ggml_ref_nel(a); i++) {
        out[i] = ggml_ref_get_flat(a, i) + y;
    }
    return true;
}

// Ops of one source with the result shaped like it.
static bool ref_map(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "%s: result shape differs from source 0", ggml_op_desc(node));
    }
    const double p0 = ggml_ref_param_f32(node, 0);
    const double p1 = ggml_ref_param_f32(node, 1);
    for (int64_t i = 0; i < ggml_ref_nel(a); i++) {
        const double x = ggml_ref_get_flat(a, i);
        double r;
        switch (node->op) {
            case GGML_OP_SQR:        r = x*x; break;
            case GGML_OP_SQRT:       r = sqrt(x); break;
            case GGML_OP_LOG:        r = log(x); break;
            case GGML_OP_SIN:        r = sin(x); break;
            case GGML_OP_COS:        r = cos(x); break;
            case GGML_OP_SCALE:      r = x*p0 + p1; break;                  // s, bias
            case GGML_OP_CLAMP:      r = x > p1 ? p1 : x; r = r < p0 ? p0 : r; break; // max(min(x, max), min)
            case GGML_OP_LEAKY_RELU: r = x > 0.0 ? x : p0*x; break;          // negative slope
            default:
                return ggml_ref_fail(err, err_size, "%s: not an element-wise op", ggml_op_desc(node));
        }
        out[i] = r;
    }
    return true;
}

bool ggml_ref_op_elementwise(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    switch (node->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return ref_binary(node, out, err, err_size);
        case GGML_OP_ADD1:
            return ref_add1(node, out, err, err_size);
        default:
            return ref_map(node, out, err, err_size);
    }
}
