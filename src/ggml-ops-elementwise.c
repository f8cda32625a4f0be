// Element-wise op constructors: dup, binary arithmetic with broadcasting, math functions,
// scale/clamp, unary activations, GLU, and repeat (reductions are in ggml-ops-reduce.c). Each one
// only builds a graph node; bad input is logged and gives NULL (see docs/op-params.md for what
// each node stores).

#include "ggml-ops-internal.h"

// rows are densely packed (dims 2 and 3 follow dim 1 without gaps, elements of a row adjacent)
static bool ops_is_padded_1d(const struct ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) &&
           t->nb[2] == t->nb[1]*(size_t) t->ne[1] &&
           t->nb[3] == t->nb[2]*(size_t) t->ne[2];
}

// one source, same shape and type as a, no parameters
static struct ggml_tensor * ops_map1(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, enum ggml_op op, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, op, a, NULL, NULL);
}

// b broadcast over a (a->ne[i] % b->ne[i] == 0), result shaped like a
static struct ggml_tensor * ops_binary(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, struct ggml_tensor * b, enum ggml_op op, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_ARG_F(func, b);
    GGML_OPS_CHECK_F(func, ggml_can_repeat(b, a),
            "b " GGML_OPS_NE_FMT " cannot be broadcast to a " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, op, a, b, NULL);
}

//
// dup
//

struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_DUP, false);
}

struct ggml_tensor * ggml_dup_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_DUP, true);
}

//
// binary arithmetic
//

struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_ADD, false);
}

struct ggml_tensor * ggml_add_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_ADD, true);
}

struct ggml_tensor * ggml_add_cast(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        enum ggml_type type) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    // the family only broadcasts whole rows here: b's row length must equal a's
    GGML_OPS_CHECK(b->ne[0] == a->ne[0] && ggml_can_repeat(b, a),
            "b " GGML_OPS_NE_FMT " cannot be broadcast row-wise to a " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(ggml_is_quantized(a->type) || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16,
            "a has type %s; only quantized, F16 and BF16 inputs are supported", ggml_type_name(a->type));
    GGML_OPS_CHECK(ggml_type_is_valid(type), "invalid result type id %d", (int) type);
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, type, GGML_MAX_DIMS, a->ne);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_ADD, a, b, NULL);
}

static struct ggml_tensor * ops_add1(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, struct ggml_tensor * b, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_ARG_F(func, b);
    GGML_OPS_CHECK_F(func, ggml_is_scalar(b), "b " GGML_OPS_NE_FMT " is not a scalar", GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK_F(func, ops_is_padded_1d(a), "a " GGML_OPS_NE_FMT " must have densely packed rows",
            GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_ADD1, a, b, NULL);
}

struct ggml_tensor * ggml_add1(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_add1(__func__, ctx, a, b, false);
}

struct ggml_tensor * ggml_add1_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_add1(__func__, ctx, a, b, true);
}

struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_SUB, false);
}

struct ggml_tensor * ggml_sub_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_SUB, true);
}

struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_MUL, false);
}

struct ggml_tensor * ggml_mul_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_MUL, true);
}

struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_DIV, false);
}

struct ggml_tensor * ggml_div_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ops_binary(__func__, ctx, a, b, GGML_OP_DIV, true);
}

//
// element-wise math
//

struct ggml_tensor * ggml_sqr(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_SQR, false);
}

struct ggml_tensor * ggml_sqr_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_SQR, true);
}

struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_SQRT, false);
}

struct ggml_tensor * ggml_sqrt_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_SQRT, true);
}

struct ggml_tensor * ggml_log(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_LOG, false);
}

struct ggml_tensor * ggml_log_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_LOG, true);
}

struct ggml_tensor * ggml_sin(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_SIN, false);
}

struct ggml_tensor * ggml_sin_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_SIN, true);
}

struct ggml_tensor * ggml_cos(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_COS, false);
}

struct ggml_tensor * ggml_cos_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_map1(__func__, ctx, a, GGML_OP_COS, true);
}

//
// scale, clamp, leaky_relu
//

static struct ggml_tensor * ops_scale(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, float s, float bias, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_F(func, ops_is_padded_1d(a), "a " GGML_OPS_NE_FMT " must have densely packed rows",
            GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, s);
    ggml_set_op_params_f32(result, 1, bias);
    return ggml_ops_node(result, GGML_OP_SCALE, a, NULL, NULL);
}

struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return ops_scale(__func__, ctx, a, s, 0.0f, false);
}

struct ggml_tensor * ggml_scale_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return ops_scale(__func__, ctx, a, s, 0.0f, true);
}

struct ggml_tensor * ggml_scale_bias(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    return ops_scale(__func__, ctx, a, s, b, false);
}

struct ggml_tensor * ggml_scale_bias_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    return ops_scale(__func__, ctx, a, s, b, true);
}

// As in the family, the result is a view of a (the op writes into a's memory).
struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(min <= max, "min = %g must not exceed max = %g (nor be NaN)", (double) min, (double) max);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, true);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, min);
    ggml_set_op_params_f32(result, 1, max);
    return ggml_ops_node(result, GGML_OP_CLAMP, a, NULL, NULL);
}

struct ggml_tensor * ggml_leaky_relu(struct ggml_context * ctx, struct ggml_tensor * a, float negative_slope, bool inplace) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, negative_slope);
    return ggml_ops_node(result, GGML_OP_LEAKY_RELU, a, NULL, NULL);
}

//
// unary activations (GGML_OP_UNARY, i32[0] = enum ggml_unary_op)
//

static struct ggml_tensor * ops_unary(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, enum ggml_unary_op op, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_F(func, (int) op >= 0 && (int) op < (int) GGML_UNARY_OP_COUNT, "invalid unary op id %d", (int) op);
    // the elements of a row must be adjacent; rows, planes and batches may have any strides
    GGML_OPS_CHECK_F(func, ggml_is_contiguous_rows(a), "a " GGML_OPS_NE_FMT " (nb[0] = %zu) must have contiguous rows",
            GGML_OPS_NE_ARGS(a), a->nb[0]);
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) op);
    return ggml_ops_node(result, GGML_OP_UNARY, a, NULL, NULL);
}

struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return ops_unary(__func__, ctx, a, op, false);
}

struct ggml_tensor * ggml_unary_inplace(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    return ops_unary(__func__, ctx, a, op, true);
}

#define OPS_UNARY_PAIR(name, OP)                                                                  \
    struct ggml_tensor * ggml_##name(struct ggml_context * ctx, struct ggml_tensor * a) {         \
        return ops_unary(__func__, ctx, a, GGML_UNARY_OP_##OP, false);                            \
    }                                                                                             \
    struct ggml_tensor * ggml_##name##_inplace(struct ggml_context * ctx, struct ggml_tensor * a) { \
        return ops_unary(__func__, ctx, a, GGML_UNARY_OP_##OP, true);                             \
    }

OPS_UNARY_PAIR(abs,        ABS)
OPS_UNARY_PAIR(sgn,        SGN)
OPS_UNARY_PAIR(neg,        NEG)
OPS_UNARY_PAIR(step,       STEP)
OPS_UNARY_PAIR(tanh,       TANH)
OPS_UNARY_PAIR(elu,        ELU)
OPS_UNARY_PAIR(relu,       RELU)
OPS_UNARY_PAIR(sigmoid,    SIGMOID)
OPS_UNARY_PAIR(gelu,       GELU)
OPS_UNARY_PAIR(gelu_erf,   GELU_ERF)
OPS_UNARY_PAIR(gelu_quick, GELU_QUICK)
OPS_UNARY_PAIR(silu,       SILU)
OPS_UNARY_PAIR(exp,        EXP)
OPS_UNARY_PAIR(expm1,      EXPM1)
OPS_UNARY_PAIR(softplus,   SOFTPLUS)
OPS_UNARY_PAIR(floor,      FLOOR)
OPS_UNARY_PAIR(ceil,       CEIL)
OPS_UNARY_PAIR(round,      ROUND)
OPS_UNARY_PAIR(trunc,      TRUNC)

#undef OPS_UNARY_PAIR

// hardswish and hardsigmoid have no _inplace form in the public API
struct ggml_tensor * ggml_hardswish(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(__func__, ctx, a, GGML_UNARY_OP_HARDSWISH, false);
}

struct ggml_tensor * ggml_hardsigmoid(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ops_unary(__func__, ctx, a, GGML_UNARY_OP_HARDSIGMOID, false);
}

// xIELU: parameters in f32[1..4] (alpha_n, alpha_p, beta, eps), as the family stores them
struct ggml_tensor * ggml_xielu(struct ggml_context * ctx, struct ggml_tensor * a,
        float alpha_n, float alpha_p, float beta, float eps) {
    struct ggml_tensor * result = ops_unary(__func__, ctx, a, GGML_UNARY_OP_XIELU, false);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 1, alpha_n);
    ggml_set_op_params_f32(result, 2, alpha_p);
    ggml_set_op_params_f32(result, 3, beta);
    ggml_set_op_params_f32(result, 4, eps);
    return result;
}

//
// gated linear units (GGML_OP_GLU, i32[0] = enum ggml_glu_op, i32[1] = swapped)
//

static struct ggml_tensor * ops_glu(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, struct ggml_tensor * b, bool split, enum ggml_glu_op op, bool swapped) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    if (split) {
        GGML_OPS_CHECK_ARG_F(func, b);
    }
    GGML_OPS_CHECK_F(func, (int) op >= 0 && (int) op < (int) GGML_GLU_OP_COUNT, "invalid glu op id %d", (int) op);
    GGML_OPS_CHECK_F(func, ggml_is_contiguous_1(a), "a " GGML_OPS_NE_FMT " must have contiguous rows",
            GGML_OPS_NE_ARGS(a));
    if (b != NULL) {
        GGML_OPS_CHECK_F(func, ggml_is_contiguous_1(b), "b " GGML_OPS_NE_FMT " must have contiguous rows",
                GGML_OPS_NE_ARGS(b));
        GGML_OPS_CHECK_F(func, ggml_are_same_shape(a, b), "a " GGML_OPS_NE_FMT " and b " GGML_OPS_NE_FMT
                " must have the same shape", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
        GGML_OPS_CHECK_F(func, a->type == b->type, "a (%s) and b (%s) must have the same type",
                ggml_type_name(a->type), ggml_type_name(b->type));
    }
    // one-tensor form: each row holds both halves, the result keeps one
    int64_t ne[GGML_MAX_DIMS] = { b != NULL ? a->ne[0] : a->ne[0] / 2, a->ne[1], a->ne[2], a->ne[3] };
    struct ggml_tensor * result = ggml_ops_new(func, ctx, a->type, GGML_MAX_DIMS, ne);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) op);
    ggml_set_op_params_i32(result, 1, swapped ? 1 : 0);
    return ggml_ops_node(result, GGML_OP_GLU, a, b, NULL);
}

struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped) {
    return ops_glu(__func__, ctx, a, NULL, false, op, swapped);
}

struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        enum ggml_glu_op op) {
    return ops_glu(__func__, ctx, a, b, true, op, false);
}

#define OPS_GLU_FAMILY(name, OP)                                                                         \
    struct ggml_tensor * ggml_##name(struct ggml_context * ctx, struct ggml_tensor * a) {                \
        return ops_glu(__func__, ctx, a, NULL, false, GGML_GLU_OP_##OP, false);                          \
    }                                                                                                    \
    struct ggml_tensor * ggml_##name##_swapped(struct ggml_context * ctx, struct ggml_tensor * a) {      \
        return ops_glu(__func__, ctx, a, NULL, false, GGML_GLU_OP_##OP, true);                           \
    }                                                                                                    \
    struct ggml_tensor * ggml_##name##_split(struct ggml_context * ctx, struct ggml_tensor * a,          \
            struct ggml_tensor * b) {                                                                    \
        return ops_glu(__func__, ctx, a, b, true, GGML_GLU_OP_##OP, false);                              \
    }

OPS_GLU_FAMILY(reglu,       REGLU)
OPS_GLU_FAMILY(geglu,       GEGLU)
OPS_GLU_FAMILY(swiglu,      SWIGLU)
OPS_GLU_FAMILY(geglu_erf,   GEGLU_ERF)
OPS_GLU_FAMILY(geglu_quick, GEGLU_QUICK)

#undef OPS_GLU_FAMILY

// the gpt-oss variant: x clamped to limit, g to [-limit, limit], x*sigmoid(alpha*x)*(g + 1);
// b NULL selects the one-tensor form
struct ggml_tensor * ggml_swiglu_oai(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        float alpha, float limit) {
    struct ggml_tensor * result = ops_glu(__func__, ctx, a, b, b != NULL, GGML_GLU_OP_SWIGLU_OAI, false);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 2, alpha);
    ggml_set_op_params_f32(result, 3, limit);
    return result;
}

//
// repeat
//

struct ggml_tensor * ggml_repeat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(ggml_can_repeat(a, b), "a " GGML_OPS_NE_FMT " cannot be repeated to the shape of b " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, a->type, GGML_MAX_DIMS, b->ne);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_REPEAT, a, NULL, NULL);
}

struct ggml_tensor * ggml_repeat_4d(struct ggml_context * ctx, struct ggml_tensor * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, ne2, ne3 };
    bool ok = true;
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        ok = ok && ne[i] >= 0;
    }
    // an empty a repeats to any shape (as in the family); otherwise each target divides evenly
    if (ok && !ggml_is_empty(a)) {
        for (int i = 0; i < GGML_MAX_DIMS; i++) {
            ok = ok && ne[i] % a->ne[i] == 0;
        }
    }
    GGML_OPS_CHECK(ok, "a " GGML_OPS_NE_FMT " cannot be repeated to [%lld, %lld, %lld, %lld]",
            GGML_OPS_NE_ARGS(a), (long long) ne0, (long long) ne1, (long long) ne2, (long long) ne3);
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, a->type, GGML_MAX_DIMS, ne);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_REPEAT, a, NULL, NULL);
}
