// Constructors of user-defined ops (CUSTOM, MAP_CUSTOM1..3). The CPU backend runs them; other
// backends say they cannot (supports_op false), so the scheduler places them on the CPU.

#include "ggml-ops-internal.h"

static bool custom_n_tasks_ok(int n_tasks) {
    return n_tasks == GGML_N_TASKS_MAX || n_tasks > 0;
}

// the result of a MAP_CUSTOMn node: a copy of a's shape, or a view of a
static struct ggml_tensor * map_custom_impl(const char * func, struct ggml_context * ctx, enum ggml_op op,
        struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        void (*fun)(void), int n_tasks, void * userdata, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_F(func, fun != NULL, "the function is NULL");
    GGML_OPS_CHECK_F(func, custom_n_tasks_ok(n_tasks), "n_tasks = %d must be positive or GGML_N_TASKS_MAX", n_tasks);

    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    const struct ggml_custom_op_params params = { fun, n_tasks, userdata };
    ggml_set_op_params(result, &params, sizeof(params));
    return ggml_ops_node(result, op, a, b, c);
}

struct ggml_tensor * ggml_map_custom1(struct ggml_context * ctx, struct ggml_tensor * a,
        ggml_custom1_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(__func__, ctx, GGML_OP_MAP_CUSTOM1, a, NULL, NULL, (void (*)(void)) fun, n_tasks, userdata, false);
}

struct ggml_tensor * ggml_map_custom1_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
        ggml_custom1_op_t fun, int n_tasks, void * userdata) {
    return map_custom_impl(__func__, ctx, GGML_OP_MAP_CUSTOM1, a, NULL, NULL, (void (*)(void)) fun, n_tasks, userdata, true);
}

struct ggml_tensor * ggml_map_custom2(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        ggml_custom2_op_t fun, int n_tasks, void * userdata) {
    GGML_OPS_CHECK_ARG(b);
    return map_custom_impl(__func__, ctx, GGML_OP_MAP_CUSTOM2, a, b, NULL, (void (*)(void)) fun, n_tasks, userdata, false);
}

struct ggml_tensor * ggml_map_custom2_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        ggml_custom2_op_t fun, int n_tasks, void * userdata) {
    GGML_OPS_CHECK_ARG(b);
    return map_custom_impl(__func__, ctx, GGML_OP_MAP_CUSTOM2, a, b, NULL, (void (*)(void)) fun, n_tasks, userdata, true);
}

struct ggml_tensor * ggml_map_custom3(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        ggml_custom3_op_t fun, int n_tasks, void * userdata) {
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(c);
    return map_custom_impl(__func__, ctx, GGML_OP_MAP_CUSTOM3, a, b, c, (void (*)(void)) fun, n_tasks, userdata, false);
}

struct ggml_tensor * ggml_map_custom3_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        ggml_custom3_op_t fun, int n_tasks, void * userdata) {
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(c);
    return map_custom_impl(__func__, ctx, GGML_OP_MAP_CUSTOM3, a, b, c, (void (*)(void)) fun, n_tasks, userdata, true);
}

// sets a CUSTOM node's sources from args (after `first` already placed ones) and its parameters
static struct ggml_tensor * custom_finish(struct ggml_tensor * result, int first,
        struct ggml_tensor ** args, int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata) {
    const struct ggml_custom_op_params params = { (void (*)(void)) fun, n_tasks, userdata };
    ggml_set_op_params(result, &params, sizeof(params));
    result->op = GGML_OP_CUSTOM;
    for (int i = 0; i < n_args; i++) {
        result->src[first + i] = args[i]; // checked by the callers
    }
    return result;
}

struct ggml_tensor * ggml_custom_4d(struct ggml_context * ctx, enum ggml_type type,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
        struct ggml_tensor ** args, int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK(fun != NULL, "the function is NULL");
    GGML_OPS_CHECK(n_args >= 0 && n_args <= GGML_MAX_SRC, "n_args = %d is not in [0, %d]", n_args, GGML_MAX_SRC);
    GGML_OPS_CHECK(n_args == 0 || args != NULL, "args is NULL but n_args = %d", n_args);
    GGML_OPS_CHECK(custom_n_tasks_ok(n_tasks), "n_tasks = %d must be positive or GGML_N_TASKS_MAX", n_tasks);
    for (int i = 0; i < n_args; i++) {
        GGML_OPS_CHECK(args[i] != NULL, "args[%d] is NULL", i);
    }
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, type, ne0, ne1, ne2, ne3);
    if (result == NULL) {
        return NULL;
    }
    return custom_finish(result, 0, args, n_args, fun, n_tasks, userdata);
}

struct ggml_tensor * ggml_custom_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
        struct ggml_tensor ** args, int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(fun != NULL, "the function is NULL");
    GGML_OPS_CHECK(n_args >= 0 && n_args <= GGML_MAX_SRC - 1, "n_args = %d is not in [0, %d]", n_args, GGML_MAX_SRC - 1);
    GGML_OPS_CHECK(n_args == 0 || args != NULL, "args is NULL but n_args = %d", n_args);
    GGML_OPS_CHECK(custom_n_tasks_ok(n_tasks), "n_tasks = %d must be positive or GGML_N_TASKS_MAX", n_tasks);
    for (int i = 0; i < n_args; i++) {
        GGML_OPS_CHECK(args[i] != NULL, "args[%d] is NULL", i);
    }
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    if (result == NULL) {
        return NULL;
    }
    result->src[0] = a;
    return custom_finish(result, 1, args, n_args, fun, n_tasks, userdata);
}
