// Op constructors for normalization, matrix products, convolution, pooling and sorting.
//
// Each constructor only builds a graph node (see docs/op-params.md for what a node stores).
// Where the ggml family asserts, these log the offending shapes/types and return NULL.

#include "ggml-ops-internal.h"

#include <limits.h>
#include <math.h>

// true when n is a whole multiple of d (d > 0): the broadcast rule; guards against empty dims
static inline bool ggml_ops_multiple(int64_t n, int64_t d) {
    return d > 0 && n % d == 0;
}

//
// normalization
//

static struct ggml_tensor * ggml_ops_norm_impl(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, enum ggml_op op, float eps, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, eps);
    return ggml_ops_node(result, op, a, NULL, NULL);
}

struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ggml_ops_norm_impl(__func__, ctx, a, GGML_OP_NORM, eps, false);
}

struct ggml_tensor * ggml_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ggml_ops_norm_impl(__func__, ctx, a, GGML_OP_NORM, eps, true);
}

struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ggml_ops_norm_impl(__func__, ctx, a, GGML_OP_RMS_NORM, eps, false);
}

struct ggml_tensor * ggml_rms_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ggml_ops_norm_impl(__func__, ctx, a, GGML_OP_RMS_NORM, eps, true);
}

struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ggml_ops_norm_impl(__func__, ctx, a, GGML_OP_L2_NORM, eps, false);
}

struct ggml_tensor * ggml_l2_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return ggml_ops_norm_impl(__func__, ctx, a, GGML_OP_L2_NORM, eps, true);
}

static struct ggml_tensor * ggml_ops_group_norm_impl(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, int n_groups, float eps, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    if (n_groups < 1 || n_groups > a->ne[2]) {
        GGML_LOG_ERROR("%s: n_groups = %d must be in 1..ne[2] of a " GGML_OPS_NE_FMT "\n",
                func, n_groups, GGML_OPS_NE_ARGS(a));
        return NULL;
    }
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, n_groups);
    ggml_set_op_params_f32(result, 1, eps);
    return ggml_ops_node(result, GGML_OP_GROUP_NORM, a, NULL, NULL);
}

struct ggml_tensor * ggml_group_norm(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps) {
    return ggml_ops_group_norm_impl(__func__, ctx, a, n_groups, eps, false);
}

struct ggml_tensor * ggml_group_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps) {
    return ggml_ops_group_norm_impl(__func__, ctx, a, n_groups, eps, true);
}

//
// matrix products
//

struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(a->ne[0] == b->ne[0] && ggml_ops_multiple(b->ne[2], a->ne[2]) && ggml_ops_multiple(b->ne[3], a->ne[3]),
            "cannot multiply a " GGML_OPS_NE_FMT " (%s) by b " GGML_OPS_NE_FMT " (%s): need a->ne[0] == b->ne[0]"
            " and b->ne[2], b->ne[3] multiples of a->ne[2], a->ne[3]",
            GGML_OPS_NE_ARGS(a), ggml_type_name(a->type), GGML_OPS_NE_ARGS(b), ggml_type_name(b->type));
    GGML_OPS_CHECK(!ggml_is_transposed(a), "a " GGML_OPS_NE_FMT " is transposed (nb = [%zu, %zu]); make it contiguous first",
            GGML_OPS_NE_ARGS(a), a->nb[0], a->nb[1]);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, a->ne[1], b->ne[1], b->ne[2], b->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) GGML_PREC_DEFAULT);
    return ggml_ops_node(result, GGML_OP_MUL_MAT, a, b, NULL);
}

void ggml_mul_mat_set_hint(struct ggml_tensor * a, enum ggml_op_hint hint) {
    if (a == NULL || a->op != GGML_OP_MUL_MAT) {
        GGML_LOG_ERROR("%s: node is %s, not MUL_MAT\n", __func__, a ? ggml_op_name(a->op) : "NULL");
        return;
    }
    if (hint != GGML_HINT_NONE && hint != GGML_HINT_SRC0_IS_HADAMARD) {
        GGML_LOG_ERROR("%s: unknown hint %d\n", __func__, (int) hint);
        return;
    }
    ggml_set_op_params_i32(a, 1, (int32_t) hint);
}

void ggml_mul_mat_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    if (a == NULL) {
        GGML_LOG_ERROR("%s: argument 'a' is NULL\n", __func__);
        return;
    }
    if (a->op != GGML_OP_MUL_MAT) {
        GGML_LOG_ERROR("%s: node is %s, not MUL_MAT\n", __func__, ggml_op_name(a->op));
        return;
    }
    if (prec != GGML_PREC_DEFAULT && prec != GGML_PREC_F32) {
        GGML_LOG_ERROR("%s: unknown precision %d\n", __func__, (int) prec);
        return;
    }
    ggml_set_op_params_i32(a, 0, (int32_t) prec);
}

struct ggml_tensor * ggml_out_prod(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(a->ne[1] == b->ne[1] && ggml_ops_multiple(b->ne[2], a->ne[2]) && ggml_ops_multiple(b->ne[3], a->ne[3]),
            "cannot take the outer product of a " GGML_OPS_NE_FMT " (%s) and b " GGML_OPS_NE_FMT " (%s): need"
            " a->ne[1] == b->ne[1] and b->ne[2], b->ne[3] multiples of a->ne[2], a->ne[3]",
            GGML_OPS_NE_ARGS(a), ggml_type_name(a->type), GGML_OPS_NE_ARGS(b), ggml_type_name(b->type));
    GGML_OPS_CHECK(!ggml_is_transposed(a), "a " GGML_OPS_NE_FMT " is transposed (nb = [%zu, %zu])",
            GGML_OPS_NE_ARGS(a), a->nb[0], a->nb[1]);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, a->ne[0], b->ne[0], b->ne[2], b->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_OUT_PROD, a, b, NULL);
}

//
// convolution
//

// Output length of a convolution, as the family computes it (C division). Returns false, with
// *out untouched, when stride or dilation is not positive or the arithmetic would overflow.
static bool ggml_ops_conv_out(int64_t in, int64_t k, int s, int p, int d, int64_t * out) {
    if (s < 1 || d < 1 || in < 1 || k < 1 || (k - 1) > INT64_MAX / 4 / d || in > INT64_MAX / 4) {
        return false;
    }
    *out = (in + 2*(int64_t) p - (int64_t) d*(k - 1) - 1)/s + 1;
    return true;
}

struct ggml_tensor * ggml_im2col(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D, enum ggml_type dst_type) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(dst_type == GGML_TYPE_F32 || dst_type == GGML_TYPE_F16,
            "dst_type must be F32 or F16, got %s (%d)", ggml_type_is_valid(dst_type) ? ggml_type_name(dst_type) : "invalid",
            (int) dst_type);
    if (is_2D) {
        GGML_OPS_CHECK(a->ne[2] == b->ne[2], "channels differ: kernel a " GGML_OPS_NE_FMT " has ne[2] = %lld,"
                " data b " GGML_OPS_NE_FMT " has ne[2] = %lld", GGML_OPS_NE_ARGS(a), (long long) a->ne[2],
                GGML_OPS_NE_ARGS(b), (long long) b->ne[2]);
    } else {
        GGML_OPS_CHECK(a->ne[1] == b->ne[1] && b->ne[3] == 1, "1-D: need kernel a " GGML_OPS_NE_FMT " and data b "
                GGML_OPS_NE_FMT " with a->ne[1] == b->ne[1] and b->ne[3] == 1", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    }

    int64_t OW = 0;
    int64_t OH = 1;
    const bool ok_w = ggml_ops_conv_out(b->ne[0], a->ne[0], s0, p0, d0, &OW);
    const bool ok_h = !is_2D || ggml_ops_conv_out(b->ne[1], a->ne[1], s1, p1, d1, &OH);
    GGML_OPS_CHECK(ok_w && ok_h && OW >= 1 && OH >= 1,
            "data b " GGML_OPS_NE_FMT " too small for kernel a " GGML_OPS_NE_FMT " or bad parameters"
            " (s = %d, %d, p = %d, %d, d = %d, %d, is_2D = %d): output %lld x %lld",
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a), s0, s1, p0, p1, d0, d1, (int) is_2D,
            (long long) OW, (long long) OH);

    const int64_t ne[4] = {
        is_2D ? a->ne[2]*a->ne[1]*a->ne[0] : a->ne[1]*a->ne[0],
        OW,
        is_2D ? OH : b->ne[2],
        is_2D ? b->ne[3] : 1,
    };
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, dst_type, 4, ne);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[7] = { s0, s1, p0, p1, d0, d1, is_2D ? 1 : 0 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_IM2COL, a, b, NULL);
}

// The family's composite: im2col, one matrix product with the flattened kernel, then the
// [OW, OH, N, OC] product is permuted to [OW, OH, OC, N] and made contiguous.
struct ggml_tensor * ggml_conv_2d(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int s0, int s1, int p0, int p1, int d0, int d1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);

    // [IC*KH*KW, OW, OH, N]
    struct ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, s1, p0, p1, d0, d1, true, a->type);
    GGML_OPS_CHECK(cols != NULL, "im2col of kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT " failed",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));

    struct ggml_tensor * cols2d = ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3]*cols->ne[2]*cols->ne[1]);
    struct ggml_tensor * krn2d  = cols2d ? ggml_reshape_2d(ctx, a, a->ne[0]*a->ne[1]*a->ne[2], a->ne[3]) : NULL;
    GGML_OPS_CHECK(krn2d != NULL, "cannot flatten kernel " GGML_OPS_NE_FMT " (it must be contiguous)",
            GGML_OPS_NE_ARGS(a));

    // [N*OH*OW, OC]
    struct ggml_tensor * prod = ggml_mul_mat(ctx, cols2d, krn2d);
    GGML_OPS_CHECK(prod != NULL, "matrix product for kernel " GGML_OPS_NE_FMT " failed", GGML_OPS_NE_ARGS(a));

    struct ggml_tensor * r4 = ggml_reshape_4d(ctx, prod, cols->ne[1], cols->ne[2], cols->ne[3], a->ne[3]);
    struct ggml_tensor * rp = r4 ? ggml_permute(ctx, r4, 0, 1, 3, 2) : NULL;
    struct ggml_tensor * result = rp ? ggml_cont(ctx, rp) : NULL;
    GGML_OPS_CHECK(result != NULL, "cannot arrange the product as [OW, OH, OC, N] = [%lld, %lld, %lld, %lld]",
            (long long) cols->ne[1], (long long) cols->ne[2], (long long) a->ne[3], (long long) cols->ne[3]);
    return result;
}

struct ggml_tensor * ggml_conv_2d_direct(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int s0, int s1, int p0, int p1, int d0, int d1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(a->ne[2] == b->ne[2], "channels differ: kernel a " GGML_OPS_NE_FMT " vs data b " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));

    int64_t OW = 0;
    int64_t OH = 0;
    const bool ok = ggml_ops_conv_out(b->ne[0], a->ne[0], s0, p0, d0, &OW) &&
                    ggml_ops_conv_out(b->ne[1], a->ne[1], s1, p1, d1, &OH);
    GGML_OPS_CHECK(ok && OW >= 1 && OH >= 1,
            "data b " GGML_OPS_NE_FMT " too small for kernel a " GGML_OPS_NE_FMT " or bad parameters"
            " (s = %d, %d, p = %d, %d, d = %d, %d): output %lld x %lld",
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a), s0, s1, p0, p1, d0, d1, (long long) OW, (long long) OH);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, OW, OH, a->ne[3], b->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[6] = { s0, s1, p0, p1, d0, d1 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_CONV_2D, a, b, NULL);
}

//
// pooling
//

// The family computes the pooled length in float: (in + 2*p - k)/s + 1, truncated.
static bool ggml_ops_pool_out(int64_t in, int k, int s, float p, int64_t * out) {
    if (k < 1 || s < 1 || !isfinite(p)) {
        return false;
    }
    const float v = ((float) in + 2*p - (float) k)/(float) s + 1;
    if (!(v >= 1.0f) || v > 4e18f) {
        return false;
    }
    *out = (int64_t) v;
    return true;
}

struct ggml_tensor * ggml_pool_2d(
        struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op,
        int k0, int k1, int s0, int s1, float p0, float p1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK((int) op >= 0 && op < GGML_OP_POOL_COUNT, "unknown pooling op %d", (int) op);
    GGML_OPS_CHECK(fabsf(p0) < 1e9f && fabsf(p1) < 1e9f, "padding (%g, %g) out of range", (double) p0, (double) p1);

    int64_t OW = 0;
    int64_t OH = 0;
    const bool ok = ggml_ops_pool_out(a->ne[0], k0, s0, p0, &OW) && ggml_ops_pool_out(a->ne[1], k1, s1, p1, &OH);
    GGML_OPS_CHECK(ok, "a " GGML_OPS_NE_FMT " too small for kernel %d x %d or bad parameters"
            " (s = %d, %d, p = %g, %g)", GGML_OPS_NE_ARGS(a), k0, k1, s0, s1, (double) p0, (double) p1);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, OW, OH, a->ne[2], a->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[7] = { (int32_t) op, k0, k1, s0, s1, (int32_t) p0, (int32_t) p1 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_POOL_2D, a, NULL, NULL);
}

//
// sorting
//

struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(order == GGML_SORT_ORDER_ASC || order == GGML_SORT_ORDER_DESC, "unknown sort order %d", (int) order);
    GGML_OPS_CHECK(a->ne[0] <= INT32_MAX, "rows of a " GGML_OPS_NE_FMT " are too long for I32 indices",
            GGML_OPS_NE_ARGS(a));

    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, GGML_TYPE_I32, GGML_MAX_DIMS, a->ne);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) order);
    return ggml_ops_node(result, GGML_OP_ARGSORT, a, NULL, NULL);
}

struct ggml_tensor * ggml_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(k >= 1 && k <= a->ne[0], "k = %d must be in 1..ne[0] of a " GGML_OPS_NE_FMT,
            k, GGML_OPS_NE_ARGS(a));

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_I32, k, a->ne[1], a->ne[2], a->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_TOP_K, a, NULL, NULL);
}
