// Op constructors of issue 22's "dsv4" group: LIGHTNING_INDEXER and the hyper-connection ops
// DSV4_HC_COMB / _PRE / _POST. Shapes, sources and op_params as the ggml family lays them out;
// bad input gives NULL and a logged message.

#include "ggml-ops-internal.h"

// the largest stream count DSV4_HC_COMB accepts (the family's model uses 4; kernels keep a
// hc x hc matrix on the stack)
#define DSV4_HC_MAX 16

static bool dsv4_is_f32(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32;
}

struct ggml_tensor * ggml_lightning_indexer(struct ggml_context * ctx, struct ggml_tensor * q,
        struct ggml_tensor * k, struct ggml_tensor * weights, struct ggml_tensor * mask) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(q);
    GGML_OPS_CHECK_ARG(k);
    GGML_OPS_CHECK_ARG(weights);
    GGML_OPS_CHECK_ARG(mask);
    GGML_OPS_CHECK(dsv4_is_f32(q) && dsv4_is_f32(weights), "q and weights must be F32, not %s and %s",
            ggml_type_name(q->type), ggml_type_name(weights->type));
    GGML_OPS_CHECK(mask->type == GGML_TYPE_F16, "mask must be F16, not %s", ggml_type_name(mask->type));
    GGML_OPS_CHECK((int) k->type >= 0 && k->type < GGML_TYPE_COUNT && ggml_blck_size(k->type) > 0,
            "k has an invalid type %d", (int) k->type);
    GGML_OPS_CHECK(q->ne[0] == k->ne[0] && k->ne[1] == 1 && q->ne[3] == k->ne[3],
            "k " GGML_OPS_NE_FMT " must be [q->ne[0], 1, n_kv, q->ne[3]] for q " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(k), GGML_OPS_NE_ARGS(q));
    GGML_OPS_CHECK(k->ne[0] % ggml_blck_size(k->type) == 0, "k rows (%lld) must be whole blocks of %s",
            (long long) k->ne[0], ggml_type_name(k->type));
    GGML_OPS_CHECK(weights->ne[0] == q->ne[1] && weights->ne[1] == q->ne[2] && weights->ne[2] == 1 &&
            weights->ne[3] == q->ne[3],
            "weights " GGML_OPS_NE_FMT " must be [q->ne[1], q->ne[2], 1, q->ne[3]] for q " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(weights), GGML_OPS_NE_ARGS(q));
    GGML_OPS_CHECK(mask->ne[0] == k->ne[2] && mask->ne[1] == q->ne[2] && mask->ne[2] == 1 && mask->ne[3] > 0 &&
            q->ne[3] % mask->ne[3] == 0,
            "mask " GGML_OPS_NE_FMT " must be [n_kv, q->ne[2], 1, a divisor of q->ne[3]] for q " GGML_OPS_NE_FMT
            " and k " GGML_OPS_NE_FMT, GGML_OPS_NE_ARGS(mask), GGML_OPS_NE_ARGS(q), GGML_OPS_NE_ARGS(k));
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, k->ne[2], q->ne[2], 1, q->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    result->src[3] = mask;
    return ggml_ops_node(result, GGML_OP_LIGHTNING_INDEXER, q, k, weights);
}

struct ggml_tensor * ggml_dsv4_hc_comb(struct ggml_context * ctx, struct ggml_tensor * mixes,
        struct ggml_tensor * scale, struct ggml_tensor * base, float eps, int32_t n_iter) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(mixes);
    GGML_OPS_CHECK_ARG(scale);
    GGML_OPS_CHECK_ARG(base);
    GGML_OPS_CHECK(dsv4_is_f32(mixes) && dsv4_is_f32(scale) && dsv4_is_f32(base),
            "mixes, scale and base must be F32, not %s, %s and %s", ggml_type_name(mixes->type),
            ggml_type_name(scale->type), ggml_type_name(base->type));
    GGML_OPS_CHECK(n_iter > 0, "n_iter must be positive, not %d", (int) n_iter);
    int64_t hc = 0;
    for (int64_t h = 1; h <= DSV4_HC_MAX; h++) {
        if ((2 + h)*h == mixes->ne[0]) {
            hc = h;
        }
    }
    GGML_OPS_CHECK(hc > 0, "mixes->ne[0] = %lld must be (2 + hc)*hc for hc in 1..%d", (long long) mixes->ne[0],
            DSV4_HC_MAX);
    GGML_OPS_CHECK(mixes->ne[2] == 1 && mixes->ne[3] == 1, "mixes " GGML_OPS_NE_FMT " must be 2-d",
            GGML_OPS_NE_ARGS(mixes));
    GGML_OPS_CHECK(scale->ne[0] >= 3 && ggml_nelements(scale) == scale->ne[0], "scale " GGML_OPS_NE_FMT
            " must be a vector of at least 3", GGML_OPS_NE_ARGS(scale));
    GGML_OPS_CHECK(base->ne[0] == mixes->ne[0] && ggml_nelements(base) == base->ne[0],
            "base " GGML_OPS_NE_FMT " must be a vector of mixes->ne[0] = %lld", GGML_OPS_NE_ARGS(base),
            (long long) mixes->ne[0]);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, hc, hc, mixes->ne[1], 1);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, eps);
    ggml_set_op_params_i32(result, 1, n_iter);
    return ggml_ops_node(result, GGML_OP_DSV4_HC_COMB, mixes, scale, base);
}

struct ggml_tensor * ggml_dsv4_hc_pre(struct ggml_context * ctx, struct ggml_tensor * x,
        struct ggml_tensor * weights) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(x);
    GGML_OPS_CHECK_ARG(weights);
    GGML_OPS_CHECK(dsv4_is_f32(x) && dsv4_is_f32(weights), "x and weights must be F32, not %s and %s",
            ggml_type_name(x->type), ggml_type_name(weights->type));
    GGML_OPS_CHECK(x->ne[1] > 0 && x->ne[3] == 1, "x " GGML_OPS_NE_FMT " must be [n_embd, hc > 0, n_tokens, 1]",
            GGML_OPS_NE_ARGS(x));
    GGML_OPS_CHECK(weights->ne[0] == x->ne[1] && weights->ne[1] == x->ne[2] && weights->ne[2] == 1 &&
            weights->ne[3] == 1, "weights " GGML_OPS_NE_FMT " must be [hc, n_tokens] for x " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(weights), GGML_OPS_NE_ARGS(x));
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, x->ne[0], x->ne[2], 1, 1);
    return result ? ggml_ops_node(result, GGML_OP_DSV4_HC_PRE, x, weights, NULL) : NULL;
}

struct ggml_tensor * ggml_dsv4_hc_post(struct ggml_context * ctx, struct ggml_tensor * x,
        struct ggml_tensor * residual, struct ggml_tensor * post, struct ggml_tensor * comb) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(x);
    GGML_OPS_CHECK_ARG(residual);
    GGML_OPS_CHECK_ARG(post);
    GGML_OPS_CHECK_ARG(comb);
    GGML_OPS_CHECK(dsv4_is_f32(x) && dsv4_is_f32(residual) && dsv4_is_f32(post) && dsv4_is_f32(comb),
            "x, residual, post and comb must be F32, not %s, %s, %s and %s", ggml_type_name(x->type),
            ggml_type_name(residual->type), ggml_type_name(post->type), ggml_type_name(comb->type));
    const int64_t n_embd = x->ne[0], n_tokens = x->ne[1], hc = residual->ne[1];
    GGML_OPS_CHECK(x->ne[2] == 1 && x->ne[3] == 1, "x " GGML_OPS_NE_FMT " must be 2-d", GGML_OPS_NE_ARGS(x));
    GGML_OPS_CHECK(hc > 0 && residual->ne[0] == n_embd && residual->ne[2] == n_tokens && residual->ne[3] == 1,
            "residual " GGML_OPS_NE_FMT " must be [n_embd, hc > 0, n_tokens, 1] for x " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(residual), GGML_OPS_NE_ARGS(x));
    GGML_OPS_CHECK(post->ne[0] == hc && post->ne[1] == n_tokens && post->ne[2] == 1 && post->ne[3] == 1,
            "post " GGML_OPS_NE_FMT " must be [hc, n_tokens] = [%lld, %lld]", GGML_OPS_NE_ARGS(post),
            (long long) hc, (long long) n_tokens);
    GGML_OPS_CHECK(comb->ne[0] == hc && comb->ne[1] == hc && comb->ne[2] == n_tokens && comb->ne[3] == 1,
            "comb " GGML_OPS_NE_FMT " must be [hc, hc, n_tokens] = [%lld, %lld, %lld]", GGML_OPS_NE_ARGS(comb),
            (long long) hc, (long long) hc, (long long) n_tokens);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, n_embd, hc, n_tokens, 1);
    if (result == NULL) {
        return NULL;
    }
    result->src[3] = comb;
    return ggml_ops_node(result, GGML_OP_DSV4_HC_POST, x, residual, post);
}
