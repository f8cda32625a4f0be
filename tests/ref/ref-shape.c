// Reference: data movement and shape ops.
//   views (NONE RESHAPE VIEW PERMUTE TRANSPOSE), DUP CONT CPY, ACC SET, REPEAT CONCAT PAD,
//   ARANGE, DIAG_MASK_INF DIAG_MASK_ZERO

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

// The node's own contents read through its own strides.
static bool ref_view(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (node->data == NULL) {
        return ggml_ref_fail(err, err_size, "%s: the node has no host data to read", ggml_op_desc(node));
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = ggml_ref_get_flat(node, i);
    }
    return true;
}

// DUP, CONT, CPY: element i of source 0 (row-major; a quantized source dequantized) becomes
// element i of the result, converted to the result's type.
static bool ref_copy(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src_q(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    if (ggml_ref_nel(a) != ggml_ref_nel(node)) {
        return ggml_ref_fail(err, err_size, "%s: source has %lld elements, the result %lld", ggml_op_desc(node),
                (long long) ggml_ref_nel(a), (long long) ggml_ref_nel(node));
    }
    if (!ggml_is_quantized(node->type) || a->type == node->type) {
        // a quantized type copied to itself keeps its blocks: the values are the source's
        for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
            out[i] = ggml_is_quantized(node->type) ? ggml_ref_get_flat_q(a, i) : ggml_ref_round_to_type(node->type, ggml_ref_get_flat_q(a, i));
        }
        return true;
    }
    // into a quantized type: row by row, as the type's quantizer stores them
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = ggml_ref_get_flat_q(a, i);
    }
    for (int64_t r = 0; node->ne[0] > 0 && r < ggml_ref_nel(node)/node->ne[0]; r++) {
        if (!ggml_ref_round_row_to_type(node->type, out + r*node->ne[0], node->ne[0])) {
            return ggml_ref_fail(err, err_size, "%s: no reference quantizer for %s", ggml_op_desc(node), ggml_type_name(node->type));
        }
    }
    return true;
}

// ACC, SET: the result is a, with the view (b's shape, byte strides nb1 nb2 nb3, byte offset)
// of a contiguous copy of a incremented by (ACC) or replaced with (SET) b.
static bool ref_acc_set(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "%s: result shape differs from source 0", ggml_op_desc(node));
    }
    const int64_t nb1 = ggml_ref_param_i32(node, 0);
    const int64_t nb2 = ggml_ref_param_i32(node, 1);
    const int64_t nb3 = ggml_ref_param_i32(node, 2);
    const int64_t off = ggml_ref_param_i32(node, 3);
    const int64_t es  = (int64_t) ggml_type_size(a->type);
    if (nb1 < 0 || nb2 < 0 || nb3 < 0 || off < 0 || es <= 0) {
        return ggml_ref_fail(err, err_size, "%s: negative strides or offset in op_params", ggml_op_desc(node));
    }
    const int64_t n = ggml_ref_nel(a);
    for (int64_t i = 0; i < n; i++) {
        out[i] = ggml_ref_get_flat(a, i);
    }
    for (int64_t i3 = 0; i3 < b->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < b->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < b->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < b->ne[0]; i0++) {
                    const int64_t byte = off + i0*es + i1*nb1 + i2*nb2 + i3*nb3;
                    if (byte % es != 0 || byte/es >= n) {
                        return ggml_ref_fail(err, err_size, "%s: element (%lld, %lld, %lld, %lld) of b lands at byte %lld, "
                                "outside a (%lld bytes) or not on an element", ggml_op_desc(node),
                                (long long) i0, (long long) i1, (long long) i2, (long long) i3, (long long) byte, (long long) (n*es));
                    }
                    const double v = ggml_ref_get(b, i0, i1, i2, i3);
                    if (node->op == GGML_OP_ACC) {
                        out[byte/es] += v;
                    } else {
                        out[byte/es] = ggml_ref_round_to_type(node->type, v);
                    }
                }
            }
        }
    }
    return true;
}

static bool ref_repeat(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] == 0 ? node->ne[d] != 0 : node->ne[d] % a->ne[d] != 0) {
            return ggml_ref_fail(err, err_size, "REPEAT: a->ne[%d] = %lld does not divide the result's %lld",
                    d, (long long) a->ne[d], (long long) node->ne[d]);
        }
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        int64_t idx[4];
        ggml_ref_unravel(node, i, idx);
        const double v = ggml_ref_get(a, idx[0] % a->ne[0], idx[1] % a->ne[1], idx[2] % a->ne[2], idx[3] % a->ne[3]);
        out[i] = ggml_ref_round_to_type(node->type, v);
    }
    return true;
}

// (quantized a and b: blocks copied, so the values are theirs, dequantized)
static bool ref_concat(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src_q(node, 0, err, err_size) || !ggml_ref_need_src_q(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    const int dim = ggml_ref_param_i32(node, 0);
    if (dim < 0 || dim >= GGML_MAX_DIMS) {
        return ggml_ref_fail(err, err_size, "CONCAT: dim %d out of range", dim);
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        const bool ok = d == dim ? node->ne[d] == a->ne[d] + b->ne[d]
                                 : (node->ne[d] == a->ne[d] && node->ne[d] == b->ne[d]);
        if (!ok) {
            return ggml_ref_fail(err, err_size, "CONCAT: shapes do not concatenate along dim %d", dim);
        }
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        int64_t idx[4];
        ggml_ref_unravel(node, i, idx);
        double v;
        if (idx[dim] < a->ne[dim]) {
            v = ggml_ref_get_q(a, idx[0], idx[1], idx[2], idx[3]);
        } else {
            idx[dim] -= a->ne[dim];
            v = ggml_ref_get_q(b, idx[0], idx[1], idx[2], idx[3]);
        }
        out[i] = ggml_is_quantized(node->type) ? v : ggml_ref_round_to_type(node->type, v);
    }
    return true;
}

// PAD: i32[0..7] = lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3; zeros outside a. A non-zero i32[8]
// selects the family's circular mode (the source repeats around the borders).
static bool ref_pad(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    int64_t lp[4], rp[4];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        lp[d] = ggml_ref_param_i32(node, 2*d);
        rp[d] = ggml_ref_param_i32(node, 2*d + 1);
        if (lp[d] < 0 || rp[d] < 0 || node->ne[d] != a->ne[d] + lp[d] + rp[d]) {
            return ggml_ref_fail(err, err_size, "PAD: dim %d: result %lld != %lld + %lld + %lld", d,
                    (long long) node->ne[d], (long long) a->ne[d], (long long) lp[d], (long long) rp[d]);
        }
    }
    const bool circular = ggml_ref_param_i32(node, 8) != 0;
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        int64_t idx[4];
        ggml_ref_unravel(node, i, idx);
        bool inside = true;
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            idx[d] -= lp[d];
            if (circular && a->ne[d] > 0) {
                idx[d] = ((idx[d] % a->ne[d]) + a->ne[d]) % a->ne[d];
            }
            if (idx[d] < 0 || idx[d] >= a->ne[d]) {
                inside = false;
            }
        }
        out[i] = inside ? ggml_ref_round_to_type(node->type, ggml_ref_get(a, idx[0], idx[1], idx[2], idx[3])) : 0.0;
    }
    return true;
}

// ARANGE: f32[0] = start, f32[1] = stop, f32[2] = step; element i = start + i*step.
static bool ref_arange(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const double start = ggml_ref_param_f32(node, 0);
    const double stop  = ggml_ref_param_f32(node, 1);
    const double step  = ggml_ref_param_f32(node, 2);
    // the count is ceil((stop - start)/step); the family evaluates it in float, accept either
    const int64_t n_exact = step != 0.0 ? (int64_t) ceil((stop - start) / step) : -1;
    const int64_t n_float = step != 0.0 ? (int64_t) ceilf((float) ((float) stop - (float) start) / (float) step) : -1;
    if (step == 0.0 || (ggml_ref_nel(node) != n_exact && ggml_ref_nel(node) != n_float)) {
        return ggml_ref_fail(err, err_size, "ARANGE: %lld elements for start %g, stop %g, step %g",
                (long long) ggml_ref_nel(node), start, stop, step);
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = start + (double) i*step;
    }
    return true;
}

// DIAG_MASK_INF/ZERO: element (i0, i1, ...) with i0 > n_past + i1 becomes -inf / 0.
static bool ref_diag_mask(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "%s: result shape differs from source 0", ggml_op_desc(node));
    }
    const int64_t n_past = ggml_ref_param_i32(node, 0);
    const double value = node->op == GGML_OP_DIAG_MASK_INF ? -INFINITY : 0.0;
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        int64_t idx[4];
        ggml_ref_unravel(node, i, idx);
        out[i] = idx[0] > n_past + idx[1] ? value : ggml_ref_get(a, idx[0], idx[1], idx[2], idx[3]);
    }
    return true;
}

bool ggml_ref_op_shape(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    switch (node->op) {
        case GGML_OP_NONE:
        case GGML_OP_RESHAPE:
        case GGML_OP_VIEW:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return ref_view(node, out, err, err_size);
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
            return ref_copy(node, out, err, err_size);
        case GGML_OP_ACC:
        case GGML_OP_SET:
            return ref_acc_set(node, out, err, err_size);
        case GGML_OP_REPEAT:
            return ref_repeat(node, out, err, err_size);
        case GGML_OP_CONCAT:
            return ref_concat(node, out, err, err_size);
        case GGML_OP_PAD:
            return ref_pad(node, out, err, err_size);
        case GGML_OP_ARANGE:
            return ref_arange(node, out, err, err_size);
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            return ref_diag_mask(node, out, err, err_size);
        default:
            return ggml_ref_fail(err, err_size, "%s: not a shape op", ggml_op_desc(node));
    }
}
