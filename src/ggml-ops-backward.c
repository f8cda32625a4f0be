// Op constructors for training: the gradient ops of forward ops (REPEAT_BACK, SILU_BACK,
// RMS_NORM_BACK, GET_ROWS_BACK, SOFT_MAX_BACK, ROPE_BACK), the loss (CROSS_ENTROPY_LOSS and its gradient),
// COUNT_EQUAL (accuracy) and the optimizer steps (OPT_STEP_ADAMW, OPT_STEP_SGD).
//
// Sources and op_params follow the family's layout (docs/op-params.md), so the family's programs
// and backends read them unchanged. Where the family asserts, these log and return NULL.

#include "ggml-ops-internal.h"

// a and b non-NULL with the same shape
#define BACKWARD_CHECK_SAME_SHAPE(a, b)                                                               \
    GGML_OPS_CHECK(ggml_are_same_shape((a), (b)), "%s " GGML_OPS_NE_FMT " and %s " GGML_OPS_NE_FMT      \
            " must have the same shape", #a, GGML_OPS_NE_ARGS(a), #b, GGML_OPS_NE_ARGS(b))

struct ggml_tensor * ggml_repeat_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(ggml_can_repeat(b, a), "a " GGML_OPS_NE_FMT " is not a repeat of b " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, a->type, GGML_MAX_DIMS, b->ne);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_REPEAT_BACK, a, NULL, NULL);
}

struct ggml_tensor * ggml_silu_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    BACKWARD_CHECK_SAME_SHAPE(a, b);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_SILU_BACK, a, b, NULL);
}

struct ggml_tensor * ggml_rms_norm_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, float eps) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    BACKWARD_CHECK_SAME_SHAPE(a, b);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, eps);
    return ggml_ops_node(result, GGML_OP_RMS_NORM_BACK, a, b, NULL);
}

struct ggml_tensor * ggml_get_rows_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        struct ggml_tensor * c) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(c);
    GGML_OPS_CHECK(ggml_is_matrix(a) && ggml_is_matrix(c) && a->ne[0] == c->ne[0],
            "a " GGML_OPS_NE_FMT " and c " GGML_OPS_NE_FMT " must be matrices with the same row length",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(c));
    GGML_OPS_CHECK(ggml_is_vector(b) && b->type == GGML_TYPE_I32, "b " GGML_OPS_NE_FMT " (%s) must be an I32 vector",
            GGML_OPS_NE_ARGS(b), ggml_type_name(b->type));
    GGML_OPS_CHECK(a->ne[1] >= b->ne[0], "a " GGML_OPS_NE_FMT " has fewer rows than b has indices (%lld)",
            GGML_OPS_NE_ARGS(a), (long long) b->ne[0]);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, c->ne[0], c->ne[1], 1, 1);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_GET_ROWS_BACK, a, b, NULL);
}

static struct ggml_tensor * backward_soft_max_impl(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        struct ggml_tensor * b, float scale, float max_bias, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_ARG_F(func, b);
    GGML_OPS_CHECK_F(func, ggml_are_same_shape(a, b), "a " GGML_OPS_NE_FMT " and b " GGML_OPS_NE_FMT " must have the same shape",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, scale);
    ggml_set_op_params_f32(result, 1, max_bias);
    return ggml_ops_node(result, GGML_OP_SOFT_MAX_BACK, a, b, NULL);
}

struct ggml_tensor * ggml_soft_max_ext_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        float scale, float max_bias) {
    return backward_soft_max_impl(__func__, ctx, a, b, scale, max_bias, false);
}

struct ggml_tensor * ggml_soft_max_ext_back_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        float scale, float max_bias) {
    return backward_soft_max_impl(__func__, ctx, a, b, scale, max_bias, true);
}

struct ggml_tensor * ggml_rope_ext_back(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    struct ggml_tensor * result = ggml_rope_ext(ctx, a, b, c, n_dims, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow);
    if (result == NULL) {
        GGML_LOG_ERROR("%s: the rotation could not be built (see above)\n", __func__);
        return NULL;
    }
    result->op = GGML_OP_ROPE_BACK;
    return result;
}

struct ggml_tensor * ggml_rope_multi_back(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, int sections[GGML_MROPE_SECTIONS], int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    struct ggml_tensor * result = ggml_rope_multi(ctx, a, b, c, n_dims, sections, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow);
    if (result == NULL) {
        GGML_LOG_ERROR("%s: the rotation could not be built (see above)\n", __func__);
        return NULL;
    }
    result->op = GGML_OP_ROPE_BACK;
    return result;
}

struct ggml_tensor * ggml_pool_2d_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * af,
        enum ggml_op_pool op, int k0, int k1, int s0, int s1, float p0, float p1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(af);
    GGML_OPS_CHECK(op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG, "unknown pool op %d", (int) op);
    GGML_OPS_CHECK(k0 > 0 && k1 > 0 && s0 > 0 && s1 > 0, "kernel %dx%d and strides %d, %d must be positive", k0, k1, s0, s1);
    GGML_OPS_CHECK(a->ne[2] == af->ne[2] && a->ne[3] == af->ne[3], "a " GGML_OPS_NE_FMT " and af " GGML_OPS_NE_FMT
            " must have the same planes", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(af));
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, GGML_TYPE_F32, GGML_MAX_DIMS, af->ne);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[7] = { (int32_t) op, k0, k1, s0, s1, (int32_t) p0, (int32_t) p1 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_POOL_2D_BACK, a, af, NULL);
}

struct ggml_tensor * ggml_count_equal(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    BACKWARD_CHECK_SAME_SHAPE(a, b);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_I64, 1, 1, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_COUNT_EQUAL, a, b, NULL);
}

struct ggml_tensor * ggml_cross_entropy_loss(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    BACKWARD_CHECK_SAME_SHAPE(a, b);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, a->type, 1, 1, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_CROSS_ENTROPY_LOSS, a, b, NULL);
}

struct ggml_tensor * ggml_cross_entropy_loss_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        struct ggml_tensor * c) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(c);
    GGML_OPS_CHECK(ggml_is_scalar(a), "a " GGML_OPS_NE_FMT " (the loss gradient) must be a scalar", GGML_OPS_NE_ARGS(a));
    BACKWARD_CHECK_SAME_SHAPE(b, c);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, b, false);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_CROSS_ENTROPY_LOSS_BACK, a, b, c);
}

// the parameter's flag and the optimizer-parameter vector: F32 with n elements
static bool backward_opt_checks(const char * func, const struct ggml_tensor * a, const struct ggml_tensor * params, int64_t n) {
    if ((a->flags & GGML_TENSOR_FLAG_PARAM) == 0) {
        ggml_error_report_func(GGML_ERROR_OK, func, "a '%s' is not a parameter (call ggml_set_param first)", a->name);
        return false;
    }
    if (params->type != GGML_TYPE_F32 || ggml_nelements(params) != n) {
        ggml_error_report_func(GGML_ERROR_OK, func, "the optimizer parameters must be F32 with %lld elements, not %s with %lld",
                (long long) n, ggml_type_name(params->type), (long long) ggml_nelements(params));
        return false;
    }
    return true;
}

struct ggml_tensor * ggml_opt_step_adamw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
        struct ggml_tensor * m, struct ggml_tensor * v, struct ggml_tensor * adamw_params) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(grad);
    GGML_OPS_CHECK_ARG(m);
    GGML_OPS_CHECK_ARG(v);
    GGML_OPS_CHECK_ARG(adamw_params);
    BACKWARD_CHECK_SAME_SHAPE(a, grad);
    BACKWARD_CHECK_SAME_SHAPE(a, m);
    BACKWARD_CHECK_SAME_SHAPE(a, v);
    if (!backward_opt_checks(__func__, a, adamw_params, 7)) {
        return NULL;
    }
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, true);
    if (result == NULL) {
        return NULL;
    }
    ggml_ops_node(result, GGML_OP_OPT_STEP_ADAMW, a, grad, m);
    result->src[3] = v;
    result->src[4] = adamw_params;
    return result;
}

struct ggml_tensor * ggml_opt_step_sgd(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
        struct ggml_tensor * sgd_params) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(grad);
    GGML_OPS_CHECK_ARG(sgd_params);
    BACKWARD_CHECK_SAME_SHAPE(a, grad);
    if (!backward_opt_checks(__func__, a, sgd_params, 2)) {
        return NULL;
    }
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, true);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_OPT_STEP_SGD, a, grad, sgd_params);
}
