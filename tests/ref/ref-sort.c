// Reference: ARGSORT (ASC, DESC) and TOP_K; equal values keep the lower index first.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>
#include <stdlib.h>

struct ref_item {
    double  v;
    int64_t i;
};

// ascending by value, NaN last, then by index
static int ref_cmp_asc(const void * pa, const void * pb) {
    const struct ref_item * a = pa;
    const struct ref_item * b = pb;
    const bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) {
        return na ? 1 : -1;
    }
    if (!na && a->v != b->v) {
        return a->v < b->v ? -1 : 1;
    }
    return a->i < b->i ? -1 : (a->i > b->i);
}

// descending by value, NaN last, then by index
static int ref_cmp_desc(const void * pa, const void * pb) {
    const struct ref_item * a = pa;
    const struct ref_item * b = pb;
    const bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) {
        return na ? 1 : -1;
    }
    if (!na && a->v != b->v) {
        return a->v > b->v ? -1 : 1;
    }
    return a->i < b->i ? -1 : (a->i > b->i);
}

// ARGSORT: i32[0] = order, result I32 shaped like a. TOP_K: result [k, ne1, ne2, ne3] with the
// indices of the k largest of each row, largest first.
bool ggml_ref_op_sort(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const bool top_k = node->op == GGML_OP_TOP_K;
    bool desc = true;
    if (top_k) {
        if (node->ne[0] > a->ne[0] || node->ne[1] != a->ne[1] || node->ne[2] != a->ne[2] || node->ne[3] != a->ne[3]) {
            return ggml_ref_fail(err, err_size, "TOP_K: k = %lld for rows of %lld", (long long) node->ne[0], (long long) a->ne[0]);
        }
    } else {
        const int order = ggml_ref_param_i32(node, 0);
        if (order != GGML_SORT_ORDER_ASC && order != GGML_SORT_ORDER_DESC) {
            return ggml_ref_fail(err, err_size, "ARGSORT: order %d", order);
        }
        desc = order == GGML_SORT_ORDER_DESC;
        if (!ggml_ref_same_shape(node, a)) {
            return ggml_ref_fail(err, err_size, "ARGSORT: result shape differs from source 0");
        }
    }
    const int64_t n = a->ne[0];
    // plain malloc: the reference must keep working while tests inject allocation faults
    struct ref_item * items = malloc((size_t) (n > 0 ? n : 1) * sizeof(*items));
    if (items == NULL) {
        return ggml_ref_fail(err, err_size, "%s: out of memory", ggml_op_desc(node));
    }
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < n; i0++) {
                    items[i0].v = ggml_ref_get(a, i0, i1, i2, i3);
                    items[i0].i = i0;
                }
                qsort(items, (size_t) n, sizeof(*items), desc ? ref_cmp_desc : ref_cmp_asc);
                for (int64_t i0 = 0; i0 < node->ne[0]; i0++) {
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = (double) items[i0].i;
                }
            }
        }
    }
    free(items);
    return true;
}
