// Reduction op constructors: sum, sum_rows, mean, argmax. Each one only builds a graph node; bad
// input is logged and gives NULL (see docs/op-params.md for what each node stores).

#include "ggml-ops-internal.h"

#include <stdint.h>

struct ggml_tensor * ggml_sum(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, a->type, 1, 1, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_SUM, a, NULL, NULL);
}

struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, a->type, 1, a->ne[1], a->ne[2], a->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_SUM_ROWS, a, NULL, NULL);
}

struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, 1, a->ne[1], a->ne[2], a->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_MEAN, a, NULL, NULL);
}

struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(ggml_is_matrix(a), "a " GGML_OPS_NE_FMT " must be a matrix", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(a->ne[0] <= INT32_MAX, "rows of %lld elements are too long for I32 indices", (long long) a->ne[0]);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_I32, a->ne[1], 1, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_ARGMAX, a, NULL, NULL);
}
