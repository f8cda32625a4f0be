// Reference: reductions SUM, SUM_ROWS, MEAN, ARGMAX.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

bool ggml_ref_op_reduce(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const int64_t n_rows = a->ne[1]*a->ne[2]*a->ne[3];

    switch (node->op) {
        case GGML_OP_SUM: {
            if (ggml_ref_nel(node) != 1) {
                return ggml_ref_fail(err, err_size, "SUM: the result must have one element");
            }
            double s = 0.0;
            for (int64_t i = 0; i < ggml_ref_nel(a); i++) {
                s += ggml_ref_get_flat(a, i);
            }
            out[0] = s;
            return true;
        }
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN: {
            if (node->ne[0] != 1 || node->ne[1] != a->ne[1] || node->ne[2] != a->ne[2] || node->ne[3] != a->ne[3]) {
                return ggml_ref_fail(err, err_size, "%s: the result must be [1, a->ne1, a->ne2, a->ne3]", ggml_op_desc(node));
            }
            for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                        double s = 0.0;
                        for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                            s += ggml_ref_get(a, i0, i1, i2, i3);
                        }
                        if (node->op == GGML_OP_MEAN) {
                            s /= (double) a->ne[0];
                        }
                        out[ggml_ref_idx(node, 0, i1, i2, i3)] = s;
                    }
                }
            }
            return true;
        }
        case GGML_OP_ARGMAX: {
            if (ggml_ref_nel(node) != n_rows) {
                return ggml_ref_fail(err, err_size, "ARGMAX: the result must have one element per row of a");
            }
            if (a->ne[0] == 0) {
                return ggml_ref_fail(err, err_size, "ARGMAX: rows are empty");
            }
            int64_t r = 0;
            for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                        // ties go to the last maximal index, as in the family's CPU code
                        double best = -INFINITY;
                        int64_t best_i = 0;
                        for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                            const double v = ggml_ref_get(a, i0, i1, i2, i3);
                            if (v >= best) {
                                best = v;
                                best_i = i0;
                            }
                        }
                        out[r++] = (double) best_i;
                    }
                }
            }
            return true;
        }
        default:
            return ggml_ref_fail(err, err_size, "%s: not a reduction", ggml_op_desc(node));
    }
}
