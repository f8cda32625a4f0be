// Op constructors of issue 22's "misc" group: CUMSUM, TRI, FILL, DIAG, ROLL, circular PAD,
// PAD_REFLECT_1D, TIMESTEP_EMBEDDING. Shapes, op_params and sources as the ggml family lays them
// out (docs/op-params.md); bad input gives NULL and a logged message.

#include "ggml-ops-internal.h"

#include <stdlib.h>

struct ggml_tensor * ggml_cumsum(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32, "a must be F32, not %s", ggml_type_name(a->type));
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    return result ? ggml_ops_node(result, GGML_OP_CUMSUM, a, NULL, NULL) : NULL;
}

struct ggml_tensor * ggml_tri(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_tri_type type) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32, "a must be F32, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(a->ne[0] == a->ne[1], "a " GGML_OPS_NE_FMT " must hold square matrices", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK((int) type >= GGML_TRI_TYPE_UPPER_DIAG && (int) type <= GGML_TRI_TYPE_LOWER,
            "invalid triangle type %d", (int) type);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) type);
    return ggml_ops_node(result, GGML_OP_TRI, a, NULL, NULL);
}

static struct ggml_tensor * ops_fill(const char * func, struct ggml_context * ctx, struct ggml_tensor * a, float c,
        bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_F(func, a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16,
            "a must be F32 or F16, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK_F(func, ggml_is_contiguous(a), "a " GGML_OPS_NE_FMT " must be contiguous", GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, c);
    return ggml_ops_node(result, GGML_OP_FILL, a, NULL, NULL);
}

struct ggml_tensor * ggml_fill(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    return ops_fill(__func__, ctx, a, c, false);
}

struct ggml_tensor * ggml_fill_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float c) {
    return ops_fill(__func__, ctx, a, c, true);
}

struct ggml_tensor * ggml_diag(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->ne[1] == 1, "a " GGML_OPS_NE_FMT " must be one row per matrix (ne[1] == 1)", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(!ggml_is_quantized(a->type), "a must not be quantized (%s)", ggml_type_name(a->type));
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, a->type, a->ne[0], a->ne[0], a->ne[2], a->ne[3]);
    return result ? ggml_ops_node(result, GGML_OP_DIAG, a, NULL, NULL) : NULL;
}

struct ggml_tensor * ggml_roll(struct ggml_context * ctx, struct ggml_tensor * a,
        int shift0, int shift1, int shift2, int shift3) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(!ggml_is_quantized(a->type) && a->nb[0] == ggml_type_size(a->type),
            "a (%s, nb[0] = %zu) must have adjacent elements of a plain type", ggml_type_name(a->type), a->nb[0]);
    const int shifts[GGML_MAX_DIMS] = { shift0, shift1, shift2, shift3 };
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        GGML_OPS_CHECK(llabs((long long) shifts[d]) < a->ne[d], "shift %d of dim %d must be smaller than %lld in magnitude",
                shifts[d], d, (long long) a->ne[d]);
    }
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    if (result == NULL) {
        return NULL;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        ggml_set_op_params_i32(result, d, shifts[d]);
    }
    return ggml_ops_node(result, GGML_OP_ROLL, a, NULL, NULL);
}

struct ggml_tensor * ggml_pad_ext_circular(struct ggml_context * ctx, struct ggml_tensor * a,
        int lp0, int rp0, int lp1, int rp1, int lp2, int rp2, int lp3, int rp3) {
    GGML_OPS_CHECK_ARG(a);
    const int pads[2*GGML_MAX_DIMS] = { lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3 };
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        GGML_OPS_CHECK(a->ne[d] > 0 || (pads[2*d] == 0 && pads[2*d + 1] == 0),
                "dim %d of a is empty: nothing to repeat into its padding", d);
    }
    struct ggml_tensor * result = ggml_pad_ext(ctx, a, lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3);
    if (result == NULL) {
        GGML_LOG_ERROR("%s: see the message above\n", __func__);
        return NULL;
    }
    ggml_set_op_params_i32(result, 8, 1); // the family's circular flag of PAD
    return result;
}

struct ggml_tensor * ggml_pad_circular(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3) {
    return ggml_pad_ext_circular(ctx, a, 0, p0, 0, p1, 0, p2, 0, p3);
}

struct ggml_tensor * ggml_pad_reflect_1d(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32, "a must be F32, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(p0 >= 0 && p1 >= 0 && p0 < a->ne[0] && p1 < a->ne[0],
            "paddings (%d, %d) must be >= 0 and below ne[0] = %lld", p0, p1, (long long) a->ne[0]);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, a->type, a->ne[0] + p0 + p1, a->ne[1], a->ne[2], a->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, p0);
    ggml_set_op_params_i32(result, 1, p1);
    return ggml_ops_node(result, GGML_OP_PAD_REFLECT_1D, a, NULL, NULL);
}

struct ggml_tensor * ggml_timestep_embedding(struct ggml_context * ctx, struct ggml_tensor * timesteps,
        int dim, int max_period) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(timesteps);
    GGML_OPS_CHECK(timesteps->type == GGML_TYPE_F32, "timesteps must be F32, not %s", ggml_type_name(timesteps->type));
    GGML_OPS_CHECK(ggml_is_vector(timesteps), "timesteps " GGML_OPS_NE_FMT " must be a vector", GGML_OPS_NE_ARGS(timesteps));
    GGML_OPS_CHECK(dim > 0 && max_period > 0, "dim = %d and max_period = %d must be positive", dim, max_period);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, dim, timesteps->ne[0], 1, 1);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, dim);
    ggml_set_op_params_i32(result, 1, max_period);
    return ggml_ops_node(result, GGML_OP_TIMESTEP_EMBEDDING, timesteps, NULL, NULL);
}

struct ggml_tensor * ggml_pool_1d(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op,
        int k0, int s0, int p0) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG, "invalid pool op %d", (int) op);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16, "a must be F32 or F16, not %s",
            ggml_type_name(a->type));
    GGML_OPS_CHECK(k0 > 0 && s0 > 0 && p0 >= 0, "kernel %d, stride %d, padding %d: need k0, s0 > 0 and p0 >= 0", k0, s0, p0);
    const int64_t span = a->ne[0] + 2*(int64_t) p0 - k0;
    GGML_OPS_CHECK(span >= 0, "kernel %d is wider than the padded rows (%lld + 2*%d)", k0, (long long) a->ne[0], p0);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, span/s0 + 1, a->ne[1], a->ne[2], a->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[4] = { (int32_t) op, k0, s0, p0 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_POOL_1D, a, NULL, NULL);
}
