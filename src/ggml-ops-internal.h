#pragma once

// Small helpers shared by the op-constructor sources (src/ggml-ops-*.c). Internal only.
// Every helper logs through GGML_LOG_ERROR naming the calling op and returns NULL on failure.

#include "ggml-impl.h"

#ifdef __cplusplus
extern "C" {
#endif

// printf format and arguments for the four dimensions of a tensor: "[ne0, ne1, ne2, ne3]"
#define GGML_OPS_NE_FMT "[%lld, %lld, %lld, %lld]"
#define GGML_OPS_NE_ARGS(t) (long long) (t)->ne[0], (long long) (t)->ne[1], (long long) (t)->ne[2], (long long) (t)->ne[3]

// Returns NULL from the calling function, logging "<func>: argument '<arg>' is NULL", when arg is NULL.
#define GGML_OPS_CHECK_ARG(arg) GGML_OPS_CHECK_ARG_F(__func__, arg)

// Same as GGML_OPS_CHECK_ARG, naming the function `func` (for static helpers shared by public wrappers).
#define GGML_OPS_CHECK_ARG_F(func, arg) do {                                \
        if ((arg) == NULL) {                                                \
            GGML_LOG_ERROR("%s: argument '%s' is NULL\n", (func), #arg);    \
            return NULL;                                                    \
        }                                                                   \
    } while (0)

// Returns NULL from the calling function, logging "<func>: <printf message>", when cond is false.
#define GGML_OPS_CHECK(cond, ...) GGML_OPS_CHECK_F(__func__, cond, __VA_ARGS__)

// Same as GGML_OPS_CHECK, naming the function `func`.
#define GGML_OPS_CHECK_F(func, cond, ...) do {                              \
        if (!(cond)) {                                                      \
            ggml_error_report_func(GGML_ERROR_OK, (func), __VA_ARGS__);     \
            return NULL;                                                    \
        }                                                                   \
    } while (0)

// New contiguous result tensor; on failure (context full, bad shape) logs "<func>: cannot create the result tensor" and returns NULL.
static inline struct ggml_tensor * ggml_ops_new(const char * func, struct ggml_context * ctx,
        enum ggml_type type, int n_dims, const int64_t * ne) {
    struct ggml_tensor * t = ggml_new_tensor_impl(ctx, type, n_dims, ne, NULL, 0);
    if (t == NULL) {
        GGML_LOG_ERROR("%s: cannot create the result tensor\n", func);
    }
    return t;
}

// Same as ggml_ops_new with a 4-d shape given as four numbers.
static inline struct ggml_tensor * ggml_ops_new_4d(const char * func, struct ggml_context * ctx,
        enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return ggml_ops_new(func, ctx, type, 4, ne);
}

// Result shaped like a: a view of a when inplace (ggml_view_tensor), else a new tensor (ggml_dup_tensor); NULL + log on failure.
static inline struct ggml_tensor * ggml_ops_like(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, bool inplace) {
    struct ggml_tensor * t = inplace ? ggml_view_tensor(ctx, a) : ggml_dup_tensor(ctx, a);
    if (t == NULL) {
        GGML_LOG_ERROR("%s: cannot create the result tensor\n", func);
    }
    return t;
}

// Sets the node's op and sources 0..2 (pass NULL for unused ones) and returns the node.
static inline struct ggml_tensor * ggml_ops_node(struct ggml_tensor * t, enum ggml_op op,
        struct ggml_tensor * s0, struct ggml_tensor * s1, struct ggml_tensor * s2) {
    t->op     = op;
    t->src[0] = s0;
    t->src[1] = s1;
    t->src[2] = s2;
    return t;
}

// Product ne0*ne1*ne2*ne3 into *n; false when a factor is negative or the product overflows int64.
static inline bool ggml_ops_count4(int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, int64_t * n) {
    const int64_t f[4] = { ne0, ne1, ne2, ne3 };
    int64_t p = 1;
    for (int i = 0; i < 4; i++) {
        if (f[i] < 0) {
            return false;
        }
        if (f[i] != 0 && p > INT64_MAX / f[i]) {
            return false;
        }
        p *= f[i];
    }
    *n = p;
    return true;
}

#ifdef __cplusplus
}
#endif
