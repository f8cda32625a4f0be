// Reference: GET_ROWS and SET_ROWS.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

static bool ref_index_type_ok(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_I32 || t->type == GGML_TYPE_I64;
}

// GET_ROWS: a [n, rows, ne2, ne3], b indices [k, m2, m3] -> [n, k, m2, m3];
// result(i0, i1, i2, i3) = a(i0, b(i1, i2, i3), i2, i3) (a's dims 2, 3 broadcast when smaller; a
// quantized a dequantized).
static bool ref_get_rows(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src_q(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (!ref_index_type_ok(b)) {
        return ggml_ref_fail(err, err_size, "GET_ROWS: indices of type %s", ggml_type_name(b->type));
    }
    if (node->ne[0] != a->ne[0] || node->ne[1] != b->ne[0] || node->ne[2] != b->ne[1] || node->ne[3] != b->ne[2] ||
        b->ne[3] != 1 || a->ne[2] == 0 || a->ne[3] == 0 || b->ne[1] % a->ne[2] != 0 || b->ne[2] % a->ne[3] != 0) {
        return ggml_ref_fail(err, err_size, "GET_ROWS: inconsistent shapes (a [%lld, %lld, %lld, %lld], b [%lld, %lld, %lld, %lld])",
                (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2], (long long) a->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3]);
    }
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < node->ne[1]; i1++) {
                const double rd = ggml_ref_get(b, i1, i2, i3, 0);
                const int64_t r = (int64_t) rd;
                if (r < 0 || r >= a->ne[1]) {
                    return ggml_ref_fail(err, err_size, "GET_ROWS: index %lld at (%lld, %lld, %lld) is outside [0, %lld)",
                            (long long) r, (long long) i1, (long long) i2, (long long) i3, (long long) a->ne[1]);
                }
                for (int64_t i0 = 0; i0 < node->ne[0]; i0++) {
                    const double v = ggml_ref_get_q(a, i0, r, i2 % a->ne[2], i3 % a->ne[3]);
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = ggml_ref_round_to_type(node->type, v);
                }
            }
        }
    }
    return true;
}

// SET_ROWS: the node is a view of a; src[0] = b (rows to write) [n, k, m2, m3], src[1] = c
// (indices) [k, c2, c3] with c2 | m2, c3 | m3. Row i of b in (i2, i3) goes to row
// c(i, i2 % c2, i3 % c3) of a in (i2, i3). The other rows keep a's (the node's) contents.
static bool ref_set_rows(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * b = node->src[0];
    const struct ggml_tensor * c = node->src[1];
    if (!ref_index_type_ok(c)) {
        return ggml_ref_fail(err, err_size, "SET_ROWS: indices of type %s", ggml_type_name(c->type));
    }
    if (node->ne[0] != b->ne[0] || node->ne[2] != b->ne[2] || node->ne[3] != b->ne[3] || c->ne[0] != b->ne[1] ||
        c->ne[3] != 1 || c->ne[1] == 0 || c->ne[2] == 0 || b->ne[2] % c->ne[1] != 0 || b->ne[3] % c->ne[2] != 0) {
        return ggml_ref_fail(err, err_size, "SET_ROWS: inconsistent shapes (result [%lld, %lld, %lld, %lld], b [%lld, %lld, %lld, %lld], "
                "c [%lld, %lld, %lld, %lld])",
                (long long) node->ne[0], (long long) node->ne[1], (long long) node->ne[2], (long long) node->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3],
                (long long) c->ne[0], (long long) c->ne[1], (long long) c->ne[2], (long long) c->ne[3]);
    }

    // the current contents of a, read with the node's layout
    struct ggml_tensor base = *node;
    if (base.data == NULL && node->view_src != NULL && node->view_src->data != NULL) {
        base.data = (char *) node->view_src->data + node->view_offs;
    }
    if (base.data == NULL) {
        return ggml_ref_fail(err, err_size, "SET_ROWS: neither the node nor its view_src has host data");
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = ggml_ref_get_flat_q(&base, i);
    }

    for (int64_t i3 = 0; i3 < b->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < b->ne[2]; i2++) {
            for (int64_t i = 0; i < b->ne[1]; i++) {
                const int64_t r = (int64_t) ggml_ref_get(c, i, i2 % c->ne[1], i3 % c->ne[2], 0);
                if (r < 0 || r >= node->ne[1]) {
                    return ggml_ref_fail(err, err_size, "SET_ROWS: index %lld for row %lld of (%lld, %lld) is outside [0, %lld)",
                            (long long) r, (long long) i, (long long) i2, (long long) i3, (long long) node->ne[1]);
                }
                double * row = out + ggml_ref_idx(node, 0, r, i2, i3);
                for (int64_t i0 = 0; i0 < b->ne[0]; i0++) {
                    row[i0] = ggml_ref_get(b, i0, i, i2, i3);
                }
                // stored as the node's type stores a row (a quantized row by its quantizer)
                if (!ggml_ref_round_row_to_type(node->type, row, b->ne[0])) {
                    return ggml_ref_fail(err, err_size, "SET_ROWS: no reference quantizer for %s", ggml_type_name(node->type));
                }
            }
        }
    }
    return true;
}

bool ggml_ref_op_rows(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (node->op == GGML_OP_GET_ROWS) {
        return ref_get_rows(node, out, err, err_size);
    }
    return ref_set_rows(node, out, err, err_size);
}
