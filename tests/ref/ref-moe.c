// Reference: the mixture-of-experts ops MUL_MAT_ID and ADD_ID.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <stdlib.h>

// the expert id at ids(e, t), checked against [0, n); false (with err) when outside
static bool ref_expert_id(const struct ggml_tensor * node, const struct ggml_tensor * ids, int64_t e, int64_t t,
        int64_t n, int64_t * id, char * err, size_t err_size) {
    const double v = ggml_ref_get(ids, e, t, 0, 0);
    if (!(v >= 0.0 && v < (double) n)) {
        return ggml_ref_fail(err, err_size, "%s: id %g at ids(%lld, %lld) is outside [0, %lld)", ggml_op_desc(node),
                v, (long long) e, (long long) t, (long long) n);
    }
    *id = (int64_t) v;
    return true;
}

// MUL_MAT_ID: as [K, N, n_expert] (readable or quantized: dequantized), b [K, n_b, n_tok],
// ids I32 [n_used, n_tok] with n_b | n_used -> [N, n_used, n_tok];
// result(n, e, t) = sum_k as(k, n, ids(e, t)) * b(k, e % n_b, t).
static bool ref_mul_mat_id(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src_q(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size) ||
        !ggml_ref_need_src(node, 2, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * as  = node->src[0];
    const struct ggml_tensor * b   = node->src[1];
    const struct ggml_tensor * ids = node->src[2];
    if (as->ne[0] != b->ne[0] || as->ne[3] != 1 || b->ne[3] != 1 || ids->ne[2] != 1 || ids->ne[3] != 1 ||
        ids->ne[1] != b->ne[2] || b->ne[1] <= 0 || ids->ne[0] % b->ne[1] != 0 || node->ne[0] != as->ne[1] ||
        node->ne[1] != ids->ne[0] || node->ne[2] != b->ne[2] || node->ne[3] != 1) {
        return ggml_ref_fail(err, err_size, "MUL_MAT_ID: inconsistent shapes (as [%lld, %lld, %lld, %lld], b [%lld, %lld, %lld, %lld],"
                " ids [%lld, %lld])", (long long) as->ne[0], (long long) as->ne[1], (long long) as->ne[2], (long long) as->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3],
                (long long) ids->ne[0], (long long) ids->ne[1]);
    }
    const int64_t K = as->ne[0];
    double * arow = malloc(sizeof(double) * (size_t) (2*K > 0 ? 2*K : 1));
    if (arow == NULL) {
        return ggml_ref_fail(err, err_size, "MUL_MAT_ID: out of memory");
    }
    double * brow = arow + K;
    for (int64_t t = 0; t < node->ne[2]; t++) {
        for (int64_t e = 0; e < node->ne[1]; e++) {
            int64_t x = 0;
            if (!ref_expert_id(node, ids, e, t, as->ne[2], &x, err, err_size)) {
                free(arow);
                return false;
            }
            for (int64_t k = 0; k < K; k++) {
                brow[k] = ggml_ref_get(b, k, e % b->ne[1], t, 0);
            }
            for (int64_t n = 0; n < node->ne[0]; n++) {
                ggml_ref_row_q(as, n, x, 0, arow);
                double s = 0.0;
                for (int64_t k = 0; k < K; k++) {
                    s += arow[k] * brow[k];
                }
                out[ggml_ref_idx(node, n, e, t, 0)] = s;
            }
        }
    }
    free(arow);
    return true;
}

// ADD_ID: a [n, n_used, n_tok, ne3], b [n, n_bias], ids I32 [n_used, n_tok] -> a's shape;
// result(i0, i1, i2, i3) = a(i0, i1, i2, i3) + b(i0, ids(i1, i2)).
static bool ref_add_id(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size) ||
        !ggml_ref_need_src(node, 2, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a   = node->src[0];
    const struct ggml_tensor * b   = node->src[1];
    const struct ggml_tensor * ids = node->src[2];
    if (!ggml_ref_same_shape(node, a) || a->ne[0] != b->ne[0] || a->ne[1] != ids->ne[0] || a->ne[2] != ids->ne[1]) {
        return ggml_ref_fail(err, err_size, "ADD_ID: inconsistent shapes (a [%lld, %lld, %lld, %lld], b [%lld, %lld], ids [%lld, %lld])",
                (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2], (long long) a->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) ids->ne[0], (long long) ids->ne[1]);
    }
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                int64_t r = 0;
                if (!ref_expert_id(node, ids, i1, i2, b->ne[1], &r, err, err_size)) {
                    return false;
                }
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = ggml_ref_get(a, i0, i1, i2, i3) + ggml_ref_get(b, i0, r, 0, 0);
                }
            }
        }
    }
    return true;
}

bool ggml_ref_op_moe(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (node->op == GGML_OP_MUL_MAT_ID) {
        return ref_mul_mat_id(node, out, err, err_size);
    }
    return ref_add_id(node, out, err, err_size);
}
