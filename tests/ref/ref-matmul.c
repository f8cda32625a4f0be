// Reference: MUL_MAT and OUT_PROD (a broadcast over b's dims 2 and 3).

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <stdlib.h>

// MUL_MAT: a [K, N, A2, A3] (any readable type, or quantized: dequantized), b [K, M, B2, B3] with
// A2 | B2, A3 | B3 -> [N, M, B2, B3];
// result(n, m, i2, i3) = sum_k a(k, n, i2 / (B2/A2), i3 / (B3/A3)) * b(k, m, i2, i3).
static bool ref_mul_mat(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (a->ne[0] != b->ne[0] || a->ne[2] == 0 || a->ne[3] == 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0 ||
        node->ne[0] != a->ne[1] || node->ne[1] != b->ne[1] || node->ne[2] != b->ne[2] || node->ne[3] != b->ne[3]) {
        return ggml_ref_fail(err, err_size, "MUL_MAT: inconsistent shapes (a [%lld, %lld, %lld, %lld], b [%lld, %lld, %lld, %lld])",
                (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2], (long long) a->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3]);
    }
    const int64_t r2 = b->ne[2] / a->ne[2];
    const int64_t r3 = b->ne[3] / a->ne[3];
    // one row of a at a time (a quantized row is dequantized once)
    double * arow = malloc(sizeof(double) * (size_t) (a->ne[0] > 0 ? a->ne[0] : 1));
    if (arow == NULL) {
        return ggml_ref_fail(err, err_size, "MUL_MAT: out of memory");
    }
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t n = 0; n < node->ne[0]; n++) {
                ggml_ref_row_q(a, n, i2 / r2, i3 / r3, arow);
                for (int64_t m = 0; m < node->ne[1]; m++) {
                    double s = 0.0;
                    for (int64_t k = 0; k < a->ne[0]; k++) {
                        s += arow[k] * ggml_ref_get(b, k, m, i2, i3);
                    }
                    out[ggml_ref_idx(node, n, m, i2, i3)] = s;
                }
            }
        }
    }
    free(arow);
    return true;
}

// OUT_PROD: a [P, K, A2, A3], b [Q, K, B2, B3] with A2 | B2, A3 | B3 -> [P, Q, B2, B3];
// result(i, j, i2, i3) = sum_k a(i, k, i2 / (B2/A2), i3 / (B3/A3)) * b(j, k, i2, i3).
static bool ref_out_prod(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (a->ne[1] != b->ne[1] || a->ne[2] == 0 || a->ne[3] == 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0 ||
        node->ne[0] != a->ne[0] || node->ne[1] != b->ne[0] || node->ne[2] != b->ne[2] || node->ne[3] != b->ne[3]) {
        return ggml_ref_fail(err, err_size, "OUT_PROD: inconsistent shapes (a [%lld, %lld, %lld, %lld], b [%lld, %lld, %lld, %lld])",
                (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2], (long long) a->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3]);
    }
    const int64_t r2 = b->ne[2] / a->ne[2];
    const int64_t r3 = b->ne[3] / a->ne[3];
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t j = 0; j < node->ne[1]; j++) {
                for (int64_t i = 0; i < node->ne[0]; i++) {
                    double s = 0.0;
                    for (int64_t k = 0; k < a->ne[1]; k++) {
                        s += ggml_ref_get_q(a, i, k, i2 / r2, i3 / r3) * ggml_ref_get(b, j, k, i2, i3);
                    }
                    out[ggml_ref_idx(node, i, j, i2, i3)] = s;
                }
            }
        }
    }
    return true;
}

bool ggml_ref_op_matmul(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (node->op == GGML_OP_MUL_MAT) {
        if (!ggml_ref_need_src_q(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
            return false;
        }
        return ref_mul_mat(node, out, err, err_size);
    }
    if (!ggml_ref_need_src_q(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    return ref_out_prod(node, out, err, err_size);
}
