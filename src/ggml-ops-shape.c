// Layout op constructors: copies and casts, cont, reshape, strided views, permute/transpose,
// row gather/scatter, set/acc into a view, concat, pad and arange. Views share the memory of
// their source; every view is bounds-checked so that no byte it addresses lies outside it.

#include "ggml-ops-internal.h"

// Bytes from the first to one past the last byte addressed by a tensor of this type, shape and
// strides (0 when it has no elements). False when a stride product overflows.
static bool ops_extent(enum ggml_type type, const int64_t ne[GGML_MAX_DIMS], const size_t nb[GGML_MAX_DIMS],
        size_t * extent) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (ne[i] < 0) {
            return false;
        }
        if (ne[i] == 0) {
            *extent = 0;
            return true;
        }
    }
    const int64_t blck = ggml_blck_size(type);
    if (blck <= 0) {
        return false;
    }
    // a block type spans ne0/blck whole blocks in dim 0; a plain type one element plus (ne0-1) strides
    size_t total = blck == 1 ? ggml_type_size(type) : 0;
    const size_t n0 = blck == 1 ? (size_t)(ne[0] - 1) : (size_t)(ne[0] / blck);
    const size_t s0 = blck == 1 ? nb[0] : ggml_type_size(type);
    if (n0 != 0 && s0 > (SIZE_MAX - total) / n0) {
        return false;
    }
    total += n0 * s0;
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        const size_t n = (size_t)(ne[i] - 1);
        if (n != 0 && nb[i] > (SIZE_MAX - total) / n) {
            return false;
        }
        total += n * nb[i];
    }
    *extent = total;
    return true;
}

// Checks that a view of `a` with this shape, strides and byte offset stays inside a's memory;
// logs (naming func) and returns false when it does not.
static bool ops_view_fits(const char * func, const struct ggml_tensor * a, enum ggml_type type,
        const int64_t ne[GGML_MAX_DIMS], const size_t nb[GGML_MAX_DIMS], size_t offset) {
    const size_t a_size = ggml_nbytes(a);
    size_t extent = 0;
    if (!ops_extent(type, ne, nb, &extent)) {
        GGML_LOG_ERROR("%s: view [%lld, %lld, %lld, %lld] with strides [%zu, %zu, %zu, %zu] is invalid or too large\n",
                func, (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3],
                nb[0], nb[1], nb[2], nb[3]);
        return false;
    }
    if (offset > a_size || extent > a_size - offset) {
        GGML_LOG_ERROR("%s: view [%lld, %lld, %lld, %lld] with strides [%zu, %zu, %zu, %zu] at offset %zu "
                "addresses %zu bytes, beyond the %zu bytes of '%s' " GGML_OPS_NE_FMT "\n",
                func, (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3],
                nb[0], nb[1], nb[2], nb[3], offset, extent, a_size, a->name, GGML_OPS_NE_ARGS(a));
        return false;
    }
    return true;
}

//
// cpy, cast, cont
//

struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(ggml_nelements(a) == ggml_nelements(b),
            "a " GGML_OPS_NE_FMT " and b " GGML_OPS_NE_FMT " must have the same number of elements",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    struct ggml_tensor * result = ggml_view_tensor(ctx, b);
    GGML_OPS_CHECK(result != NULL, "cannot create the result tensor");
    if (b->name[0] != '\0') {
        ggml_format_name(result, "%s (copy of %s)", b->name, a->name);
    } else {
        ggml_format_name(result, "%s (copy)", a->name);
    }
    return ggml_ops_node(result, GGML_OP_CPY, a, b, NULL);
}

struct ggml_tensor * ggml_cast(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_type type) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(ggml_type_is_valid(type), "invalid type id %d", (int) type);
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, type, GGML_MAX_DIMS, a->ne);
    if (result == NULL) {
        return NULL;
    }
    ggml_format_name(result, "%s (copy)", a->name);
    // a CPY whose destination is the node itself
    return ggml_ops_node(result, GGML_OP_CPY, a, result, NULL);
}

struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    struct ggml_tensor * result = ggml_ops_like(__func__, ctx, a, false);
    if (result == NULL) {
        return NULL;
    }
    ggml_format_name(result, "%s (cont)", a->name);
    return ggml_ops_node(result, GGML_OP_CONT, a, NULL, NULL);
}

static struct ggml_tensor * ops_cont_4d(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    int64_t n = 0;
    GGML_OPS_CHECK_F(func, ggml_ops_count4(ne0, ne1, ne2, ne3, &n) && n == ggml_nelements(a),
            "shape [%lld, %lld, %lld, %lld] does not hold the %lld elements of a " GGML_OPS_NE_FMT,
            (long long) ne0, (long long) ne1, (long long) ne2, (long long) ne3,
            (long long) ggml_nelements(a), GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * result = ggml_ops_new_4d(func, ctx, a->type, ne0, ne1, ne2, ne3);
    if (result == NULL) {
        return NULL;
    }
    ggml_format_name(result, "%s (cont)", a->name);
    return ggml_ops_node(result, GGML_OP_CONT, a, NULL, NULL);
}

struct ggml_tensor * ggml_cont_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    return ops_cont_4d(__func__, ctx, a, ne0, 1, 1, 1);
}

struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    return ops_cont_4d(__func__, ctx, a, ne0, ne1, 1, 1);
}

struct ggml_tensor * ggml_cont_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2) {
    return ops_cont_4d(__func__, ctx, a, ne0, ne1, ne2, 1);
}

struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    return ops_cont_4d(__func__, ctx, a, ne0, ne1, ne2, ne3);
}

//
// reshape: a contiguous view of a with a new shape
//

static struct ggml_tensor * ops_reshape(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        int n_dims, const int64_t ne[GGML_MAX_DIMS]) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_F(func, ggml_is_contiguous(a), "a " GGML_OPS_NE_FMT " is not contiguous", GGML_OPS_NE_ARGS(a));
    int64_t n = 0;
    GGML_OPS_CHECK_F(func, ggml_ops_count4(ne[0], ne[1], ne[2], ne[3], &n) && n == ggml_nelements(a),
            "shape [%lld, %lld, %lld, %lld] does not hold the %lld elements of a " GGML_OPS_NE_FMT,
            (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3],
            (long long) ggml_nelements(a), GGML_OPS_NE_ARGS(a));
    struct ggml_tensor * result = ggml_new_tensor_impl(ctx, a->type, n_dims, ne, a, 0);
    GGML_OPS_CHECK_F(func, result != NULL, "cannot create the result tensor");
    ggml_format_name(result, "%s (reshaped)", a->name);
    return ggml_ops_node(result, GGML_OP_RESHAPE, a, NULL, NULL);
}

struct ggml_tensor * ggml_reshape(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(b);
    // only b's shape matters, so b may be non-contiguous
    return ops_reshape(__func__, ctx, a, GGML_MAX_DIMS, b->ne);
}

struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, 1, 1, 1 };
    return ops_reshape(__func__, ctx, a, 1, ne);
}

struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, 1, 1 };
    return ops_reshape(__func__, ctx, a, 2, ne);
}

struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, ne2, 1 };
    return ops_reshape(__func__, ctx, a, 3, ne);
}

struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, ne2, ne3 };
    return ops_reshape(__func__, ctx, a, 4, ne);
}

//
// strided views
//

// nb[1..3] may be 0 to take the contiguous default for that dimension.
static struct ggml_tensor * ops_view(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        int n_dims, const int64_t ne_in[GGML_MAX_DIMS], const size_t nb_in[GGML_MAX_DIMS], size_t offset) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    int64_t ne[GGML_MAX_DIMS] = { 1, 1, 1, 1 };
    for (int i = 0; i < n_dims; i++) {
        GGML_OPS_CHECK_F(func, ne_in[i] >= 0, "ne%d = %lld is negative", i, (long long) ne_in[i]);
        ne[i] = ne_in[i];
    }
    const int64_t blck = ggml_blck_size(a->type);
    GGML_OPS_CHECK_F(func, blck > 0 && ne[0] % blck == 0, "ne0 = %lld is not a multiple of the block size of %s",
            (long long) ne[0], ggml_type_name(a->type));

    size_t nb[GGML_MAX_DIMS];
    nb[0] = ggml_type_size(a->type);
    nb[1] = nb[0] * (size_t)(ne[0] / blck);
    nb[2] = nb[1] * (size_t) ne[1];
    nb[3] = nb[2] * (size_t) ne[2];
    for (int i = 1; i < n_dims; i++) {
        nb[i] = nb_in[i];
    }
    // the family's defaults for the dimensions a view_Nd leaves out
    if (n_dims == 2) {
        nb[2] = nb[1] * (size_t) ne[1];
        nb[3] = nb[2];
    } else if (n_dims == 3) {
        nb[3] = nb[2] * (size_t) ne[2];
    }

    if (!ops_view_fits(func, a, a->type, ne, nb, offset)) {
        return NULL;
    }
    struct ggml_tensor * result = ggml_new_tensor_impl(ctx, a->type, n_dims, ne, a, offset);
    GGML_OPS_CHECK_F(func, result != NULL, "cannot create the view");
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = nb[i];
    }
    ggml_format_name(result, "%s (view)", a->name);
    ggml_set_op_params(result, &offset, sizeof(offset));
    return ggml_ops_node(result, GGML_OP_VIEW, a, NULL, NULL);
}

struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, 1, 1, 1 };
    const size_t  nb[GGML_MAX_DIMS] = { 0, 0, 0, 0 };
    return ops_view(__func__, ctx, a, 1, ne, nb, offset);
}

struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
        size_t nb1, size_t offset) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, 1, 1 };
    const size_t  nb[GGML_MAX_DIMS] = { 0, nb1, 0, 0 };
    return ops_view(__func__, ctx, a, 2, ne, nb, offset);
}

struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2,
        size_t nb1, size_t nb2, size_t offset) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, ne2, 1 };
    const size_t  nb[GGML_MAX_DIMS] = { 0, nb1, nb2, 0 };
    return ops_view(__func__, ctx, a, 3, ne, nb, offset);
}

struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
        size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    const int64_t ne[GGML_MAX_DIMS] = { ne0, ne1, ne2, ne3 };
    const size_t  nb[GGML_MAX_DIMS] = { 0, nb1, nb2, nb3 };
    return ops_view(__func__, ctx, a, 4, ne, nb, offset);
}

//
// permute, transpose
//

struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1, int axis2, int axis3) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    const int axes[GGML_MAX_DIMS] = { axis0, axis1, axis2, axis3 };
    int seen = 0;
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (axes[i] >= 0 && axes[i] < GGML_MAX_DIMS) {
            seen |= 1 << axes[i];
        }
    }
    GGML_OPS_CHECK(seen == (1 << GGML_MAX_DIMS) - 1, "axes (%d, %d, %d, %d) are not a permutation of 0..3",
            axis0, axis1, axis2, axis3);
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    GGML_OPS_CHECK(result != NULL, "cannot create the view");
    // axis i of a becomes axis axes[i] of the result
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[axes[i]] = a->ne[i];
        result->nb[axes[i]] = a->nb[i];
    }
    ggml_format_name(result, "%s (permuted)", a->name);
    ggml_set_op_params(result, axes, sizeof(axes));
    return ggml_ops_node(result, GGML_OP_PERMUTE, a, NULL, NULL);
}

struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    GGML_OPS_CHECK(result != NULL, "cannot create the view");
    result->ne[0] = a->ne[1];
    result->ne[1] = a->ne[0];
    result->nb[0] = a->nb[1];
    result->nb[1] = a->nb[0];
    ggml_format_name(result, "%s (transposed)", a->name);
    return ggml_ops_node(result, GGML_OP_TRANSPOSE, a, NULL, NULL);
}

//
// rows
//

struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(b->type == GGML_TYPE_I32, "indices b must be I32, not %s", ggml_type_name(b->type));
    GGML_OPS_CHECK(a->ne[2] == b->ne[1] && a->ne[3] == b->ne[2] && b->ne[3] == 1,
            "indices b " GGML_OPS_NE_FMT " do not match a " GGML_OPS_NE_FMT " (need b = [k, a->ne2, a->ne3, 1])",
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a));
    const enum ggml_type type = a->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, type, a->ne[0], b->ne[0], b->ne[1], b->ne[2]);
    if (result == NULL) {
        return NULL;
    }
    return ggml_ops_node(result, GGML_OP_GET_ROWS, a, b, NULL);
}

struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(c);
    GGML_OPS_CHECK(a->ne[0] == b->ne[0] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3],
            "rows b " GGML_OPS_NE_FMT " do not match a " GGML_OPS_NE_FMT " in dims 0, 2, 3",
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(c->ne[1] > 0 && c->ne[2] > 0 && b->ne[1] == c->ne[0] && b->ne[2] % c->ne[1] == 0 &&
            b->ne[3] % c->ne[2] == 0 && c->ne[3] == 1,
            "indices c " GGML_OPS_NE_FMT " do not match rows b " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(c), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16 || b->type == GGML_TYPE_BF16,
            "rows b must be F32, F16 or BF16, not %s", ggml_type_name(b->type));
    GGML_OPS_CHECK(c->type == GGML_TYPE_I64 || c->type == GGML_TYPE_I32,
            "indices c must be I64 or I32, not %s", ggml_type_name(c->type));
    GGML_OPS_CHECK(ggml_is_contiguous_rows(a) && ggml_is_contiguous_rows(b), "rows of a and b must be contiguous");
    struct ggml_tensor * result = ggml_view_tensor(ctx, a);
    GGML_OPS_CHECK(result != NULL, "cannot create the view");
    // the family's source order: rows, indices, then the destination
    return ggml_ops_node(result, GGML_OP_SET_ROWS, b, c, a);
}

//
// set, acc: op_params i32[0..3] = nb1, nb2, nb3, offset; i32[4] = inplace
//

static struct ggml_tensor * ops_set_acc(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1, size_t nb2, size_t nb3, size_t offset,
        bool inplace, enum ggml_op op) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_ARG_F(func, b);
    GGML_OPS_CHECK_F(func, ggml_nelements(b) <= ggml_nelements(a),
            "b " GGML_OPS_NE_FMT " has more elements than a " GGML_OPS_NE_FMT, GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a));
    if (op == GGML_OP_ACC) {
        GGML_OPS_CHECK_F(func, ggml_is_contiguous(a), "a " GGML_OPS_NE_FMT " is not contiguous", GGML_OPS_NE_ARGS(a));
        GGML_OPS_CHECK_F(func, a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32,
                "a (%s) and b (%s) must be F32", ggml_type_name(a->type), ggml_type_name(b->type));
    }
    // the parameters are stored as int32; the family also limits SET's offset to below 1 GiB
    const size_t max_offset = op == GGML_OP_SET ? ((size_t) 1 << 30) - 1 : (size_t) INT32_MAX;
    GGML_OPS_CHECK_F(func, nb1 <= INT32_MAX && nb2 <= INT32_MAX && nb3 <= INT32_MAX && offset <= max_offset,
            "strides (%zu, %zu, %zu) or offset %zu out of range", nb1, nb2, nb3, offset);
    const size_t nb[GGML_MAX_DIMS] = { ggml_type_size(a->type), nb1, nb2, nb3 };
    if (!ops_view_fits(func, a, a->type, b->ne, nb, offset)) {
        return NULL;
    }
    // the region written must not overlap itself: two elements of b landing on one place would
    // leave the result to the order of the writes
    size_t extent = (size_t) b->ne[0] * nb[0];
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (b->ne[i] > 1) {
            GGML_OPS_CHECK_F(func, nb[i] >= extent, "the target view of b " GGML_OPS_NE_FMT " with strides (%zu, %zu, %zu) "
                    "overlaps itself in dim %d", GGML_OPS_NE_ARGS(b), nb1, nb2, nb3, i);
            extent += nb[i] * (size_t) (b->ne[i] - 1);
        }
    }
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[5] = { (int32_t) nb1, (int32_t) nb2, (int32_t) nb3, (int32_t) offset, inplace ? 1 : 0 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, op, a, b, NULL);
}

struct ggml_tensor * ggml_acc(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return ops_set_acc(__func__, ctx, a, b, nb1, nb2, nb3, offset, false, GGML_OP_ACC);
}

struct ggml_tensor * ggml_acc_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return ops_set_acc(__func__, ctx, a, b, nb1, nb2, nb3, offset, true, GGML_OP_ACC);
}

struct ggml_tensor * ggml_set(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return ops_set_acc(__func__, ctx, a, b, nb1, nb2, nb3, offset, false, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    return ops_set_acc(__func__, ctx, a, b, nb1, nb2, nb3, offset, true, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t offset) {
    GGML_OPS_CHECK_ARG(a);
    return ops_set_acc(__func__, ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset, false, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_1d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t offset) {
    GGML_OPS_CHECK_ARG(a);
    return ops_set_acc(__func__, ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset, true, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1, size_t offset) {
    GGML_OPS_CHECK_ARG(a);
    return ops_set_acc(__func__, ctx, a, b, nb1, a->nb[2], a->nb[3], offset, false, GGML_OP_SET);
}

struct ggml_tensor * ggml_set_2d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1, size_t offset) {
    GGML_OPS_CHECK_ARG(a);
    return ops_set_acc(__func__, ctx, a, b, nb1, a->nb[2], a->nb[3], offset, true, GGML_OP_SET);
}

//
// concat, pad, arange
//

struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(dim >= 0 && dim < GGML_MAX_DIMS, "dim = %d is not in [0, %d)", dim, GGML_MAX_DIMS);
    GGML_OPS_CHECK(a->type == b->type, "a (%s) and b (%s) must have the same type",
            ggml_type_name(a->type), ggml_type_name(b->type));
    int64_t ne[GGML_MAX_DIMS];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (d == dim) {
            ne[d] = a->ne[d] + b->ne[d];
            continue;
        }
        GGML_OPS_CHECK(a->ne[d] == b->ne[d], "a " GGML_OPS_NE_FMT " and b " GGML_OPS_NE_FMT
                " differ in dim %d (concatenating along dim %d)", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b), d, dim);
        ne[d] = a->ne[d];
    }
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, a->type, GGML_MAX_DIMS, ne);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, dim);
    return ggml_ops_node(result, GGML_OP_CONCAT, a, b, NULL);
}

static struct ggml_tensor * ops_pad(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        const int pads[2*GGML_MAX_DIMS]) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    int64_t ne[GGML_MAX_DIMS];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        GGML_OPS_CHECK_F(func, pads[2*d] >= 0 && pads[2*d + 1] >= 0, "padding (%d, %d) of dim %d is negative",
                pads[2*d], pads[2*d + 1], d);
        ne[d] = a->ne[d] + pads[2*d] + pads[2*d + 1];
    }
    struct ggml_tensor * result = ggml_ops_new(func, ctx, a->type, GGML_MAX_DIMS, ne);
    if (result == NULL) {
        return NULL;
    }
    for (int i = 0; i < 2*GGML_MAX_DIMS; i++) {
        ggml_set_op_params_i32(result, i, pads[i]);
    }
    return ggml_ops_node(result, GGML_OP_PAD, a, NULL, NULL);
}

struct ggml_tensor * ggml_pad(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3) {
    const int pads[2*GGML_MAX_DIMS] = { 0, p0, 0, p1, 0, p2, 0, p3 };
    return ops_pad(__func__, ctx, a, pads);
}

struct ggml_tensor * ggml_pad_ext(struct ggml_context * ctx, struct ggml_tensor * a,
        int lp0, int rp0, int lp1, int rp1, int lp2, int rp2, int lp3, int rp3) {
    const int pads[2*GGML_MAX_DIMS] = { lp0, rp0, lp1, rp1, lp2, rp2, lp3, rp3 };
    return ops_pad(__func__, ctx, a, pads);
}

struct ggml_tensor * ggml_arange(struct ggml_context * ctx, float start, float stop, float step) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK(isfinite(start) && isfinite(stop) && isfinite(step) && step > 0.0f && stop > start,
            "start = %g, stop = %g, step = %g: need finite values with stop > start and step > 0",
            (double) start, (double) stop, (double) step);
    const float n = ceilf((stop - start) / step);
    GGML_OPS_CHECK(n >= 1.0f && n < 9.0e18f, "start = %g, stop = %g, step = %g give %g elements",
            (double) start, (double) stop, (double) step, (double) n);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, (int64_t) n, 1, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, start);
    ggml_set_op_params_f32(result, 1, stop);
    ggml_set_op_params_f32(result, 2, step);
    return ggml_ops_node(result, GGML_OP_ARANGE, NULL, NULL, NULL);
}
