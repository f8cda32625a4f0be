// Op constructors for mixture-of-experts layers: the choice of each token's experts (the top k
// of its router's row), the indirect matrix product (each token's activations multiplied by the
// experts it selected) and the per-expert bias addition.
//
// Same contract as the other ggml-ops-*.c files: build a node only; where the ggml family
// asserts, log the offending shapes/types and return NULL.

#include "ggml-ops-internal.h"

// as: [k, n, n_expert, 1] (one weight matrix per expert), b: [k, n_b, n_tokens, 1],
// ids: I32 [n_used, n_tokens, 1, 1] -> F32 [n, n_used, n_tokens, 1] with
// result[:, e, t] = as[:, :, ids[e, t]] * b[:, e % n_b, t]   (n_b divides n_used: broadcast)
struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as,
        struct ggml_tensor * b, struct ggml_tensor * ids) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(as);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(ids);
    GGML_OPS_CHECK(ids->type == GGML_TYPE_I32, "expert ids must be I32, not %s", ggml_type_name(ids->type));
    GGML_OPS_CHECK(!ggml_is_transposed(as), "expert weights as " GGML_OPS_NE_FMT " are transposed (nb = [%zu, %zu]);"
            " make them contiguous first", GGML_OPS_NE_ARGS(as), as->nb[0], as->nb[1]);
    GGML_OPS_CHECK(as->ne[3] == 1 && b->ne[3] == 1 && ids->ne[2] == 1 && ids->ne[3] == 1,
            "need 3-d expert weights as " GGML_OPS_NE_FMT ", 3-d activations b " GGML_OPS_NE_FMT
            " and 2-d ids " GGML_OPS_NE_FMT, GGML_OPS_NE_ARGS(as), GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(ids));
    GGML_OPS_CHECK(as->ne[0] == b->ne[0], "expert weights as " GGML_OPS_NE_FMT " (%s) and activations b "
            GGML_OPS_NE_FMT " differ in ne[0]", GGML_OPS_NE_ARGS(as), ggml_type_name(as->type), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(ids->ne[1] == b->ne[2], "ids " GGML_OPS_NE_FMT " need one expert list per token of b "
            GGML_OPS_NE_FMT " (ids->ne[1] == b->ne[2])", GGML_OPS_NE_ARGS(ids), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(b->ne[1] > 0 && ids->ne[0] % b->ne[1] == 0, "b " GGML_OPS_NE_FMT " cannot be broadcast to the"
            " %lld experts used per token (b->ne[1] must divide ids->ne[0])", GGML_OPS_NE_ARGS(b), (long long) ids->ne[0]);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, as->ne[1], ids->ne[0], b->ne[2], 1);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_MUL_MAT_ID, as, b, ids);
}

// a: [n, n_used, n_tokens, ...], b: [n, n_expert] (one bias row per expert), ids: I32 [n_used, n_tokens]
// -> shaped like a, with result[:, i1, i2] = a[:, i1, i2] + b[:, ids[i1, i2]]
struct ggml_tensor * ggml_add_id(struct ggml_context * ctx, struct ggml_tensor * a,
        struct ggml_tensor * b, struct ggml_tensor * ids) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(ids);
    GGML_OPS_CHECK(ids->type == GGML_TYPE_I32, "expert ids must be I32, not %s", ggml_type_name(ids->type));
    GGML_OPS_CHECK(a->ne[0] == b->ne[0], "a " GGML_OPS_NE_FMT " and bias rows b " GGML_OPS_NE_FMT " differ in ne[0]",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(a->ne[1] == ids->ne[0] && a->ne[2] == ids->ne[1], "ids " GGML_OPS_NE_FMT " must give one bias"
            " row per row of a " GGML_OPS_NE_FMT " (ids->ne[0] == a->ne[1], ids->ne[1] == a->ne[2])",
            GGML_OPS_NE_ARGS(ids), GGML_OPS_NE_ARGS(a));

    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_ADD_ID, a, b, ids);
}

// The indices of the k largest elements of each row, largest first (the router's choice of
// experts): the first k columns of ggml_argsort(a, DESC), a view with the argsort's strides.
struct ggml_tensor * ggml_argsort_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(k >= 1 && k <= a->ne[0], "k = %d must be in 1..ne[0] of a " GGML_OPS_NE_FMT, k, GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * sorted = ggml_argsort(ctx, a, GGML_SORT_ORDER_DESC);
    if (sorted == NULL) {
        return NULL;
    }
    struct ggml_tensor * result = ggml_view_4d(ctx, sorted, k, sorted->ne[1], sorted->ne[2], sorted->ne[3],
            sorted->nb[1], sorted->nb[2], sorted->nb[3], 0);
    GGML_OPS_CHECK(result != NULL, "cannot create the view of the sorted indices");
    return result;
}
