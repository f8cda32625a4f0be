// Op constructors of issue 22's "shape2" group: UPSCALE (ggml_upscale, ggml_upscale_ext,
// ggml_interpolate), the segment-anything ops WIN_PART, WIN_UNPART, GET_REL_POS, ADD_REL_POS,
// COL2IM_1D, IM2COL_BACK and FLASH_ATTN_BACK.
// Shapes, op_params and sources as the ggml family lays them out; where the family asserts, these
// return NULL with a logged message.

#include "ggml-ops-internal.h"

#include <stdint.h>

//
// UPSCALE
//

#define SHAPE2_MODE_MASK  0xFFu
#define SHAPE2_FLAG_MASK  ((uint32_t) GGML_SCALE_FLAG_ALIGN_CORNERS | (uint32_t) GGML_SCALE_FLAG_ANTIALIAS)

static struct ggml_tensor * ops_interpolate(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, uint32_t mode) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_F(func, a->type == GGML_TYPE_F32, "a must be F32, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK_F(func, (mode & SHAPE2_MODE_MASK) < GGML_SCALE_MODE_COUNT, "invalid scale mode %u",
            (unsigned) (mode & SHAPE2_MODE_MASK));
    GGML_OPS_CHECK_F(func, (mode & ~(SHAPE2_MODE_MASK | SHAPE2_FLAG_MASK)) == 0, "unknown scale flags 0x%x",
            (unsigned) (mode & ~(SHAPE2_MODE_MASK | SHAPE2_FLAG_MASK)));
    GGML_OPS_CHECK_F(func, !(mode & GGML_SCALE_FLAG_ANTIALIAS) || (mode & SHAPE2_MODE_MASK) == GGML_SCALE_MODE_BILINEAR,
            "the antialias flag needs the bilinear mode");
    GGML_OPS_CHECK_F(func, a->ne[0] > 0 && a->ne[1] > 0 && a->ne[2] > 0 && a->ne[3] > 0,
            "a " GGML_OPS_NE_FMT " has an empty dimension: nothing to interpolate from", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK_F(func, ne0 > 0 && ne1 > 0 && ne2 > 0 && ne3 > 0,
            "the target shape [%lld, %lld, %lld, %lld] must be positive",
            (long long) ne0, (long long) ne1, (long long) ne2, (long long) ne3);
    struct ggml_tensor * result = ggml_ops_new_4d(func, ctx, GGML_TYPE_F32, ne0, ne1, ne2, ne3);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) mode);
    return ggml_ops_node(result, GGML_OP_UPSCALE, a, NULL, NULL);
}

struct ggml_tensor * ggml_interpolate(struct ggml_context * ctx, struct ggml_tensor * a,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, uint32_t mode) {
    return ops_interpolate(__func__, ctx, a, ne0, ne1, ne2, ne3, mode);
}

struct ggml_tensor * ggml_upscale(struct ggml_context * ctx, struct ggml_tensor * a, int scale_factor,
        enum ggml_scale_mode mode) {
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(scale_factor > 1, "scale_factor %d must be > 1", scale_factor);
    GGML_OPS_CHECK(a->ne[0] <= INT64_MAX / scale_factor && a->ne[1] <= INT64_MAX / scale_factor,
            "a " GGML_OPS_NE_FMT " times %d overflows", GGML_OPS_NE_ARGS(a), scale_factor);
    return ops_interpolate(__func__, ctx, a, a->ne[0]*scale_factor, a->ne[1]*scale_factor, a->ne[2], a->ne[3],
            (uint32_t) mode);
}

struct ggml_tensor * ggml_upscale_ext(struct ggml_context * ctx, struct ggml_tensor * a,
        int ne0, int ne1, int ne2, int ne3, enum ggml_scale_mode mode) {
    return ops_interpolate(__func__, ctx, a, ne0, ne1, ne2, ne3, (uint32_t) mode);
}

//
// segment-anything: windows and relative positions
//

struct ggml_tensor * ggml_win_part(struct ggml_context * ctx, struct ggml_tensor * a, int w) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32, "a must be F32, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(a->ne[3] == 1, "a " GGML_OPS_NE_FMT " must be 3-d (ne[3] == 1)", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(w > 0, "window size %d must be positive", w);
    const int64_t npx = (a->ne[1] + w - 1) / w;
    const int64_t npy = (a->ne[2] + w - 1) / w;
    GGML_OPS_CHECK(npx*npy <= INT32_MAX, "too many windows (%lld x %lld)", (long long) npx, (long long) npy);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, a->ne[0], w, w, npx*npy);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[3] = { (int32_t) npx, (int32_t) npy, w };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_WIN_PART, a, NULL, NULL);
}

struct ggml_tensor * ggml_win_unpart(struct ggml_context * ctx, struct ggml_tensor * a, int w0, int h0, int w) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32, "a must be F32, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(w > 0 && w0 > 0 && h0 > 0, "window size %d and target %d x %d must be positive", w, w0, h0);
    GGML_OPS_CHECK(a->ne[1] == w && a->ne[2] == w, "a " GGML_OPS_NE_FMT " must hold %d x %d windows",
            GGML_OPS_NE_ARGS(a), w, w);
    const int64_t npx = ((int64_t) w0 + w - 1) / w;
    const int64_t npy = ((int64_t) h0 + w - 1) / w;
    GGML_OPS_CHECK(a->ne[3] >= npx*npy, "a " GGML_OPS_NE_FMT " has fewer than the %lld windows of %d x %d",
            GGML_OPS_NE_ARGS(a), (long long) (npx*npy), w0, h0);
    const int64_t ne[3] = { a->ne[0], w0, h0 };
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, GGML_TYPE_F32, 3, ne);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, w);
    return ggml_ops_node(result, GGML_OP_WIN_UNPART, a, NULL, NULL);
}

struct ggml_tensor * ggml_get_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a, int qh, int kh) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16 || a->type == GGML_TYPE_F32,
            "a must be F16, BF16 or F32, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(qh == kh && qh > 0, "qh = %d and kh = %d must be equal and positive", qh, kh);
    GGML_OPS_CHECK(a->ne[1] == 2*(int64_t) qh - 1 && a->ne[2] == 1 && a->ne[3] == 1,
            "a " GGML_OPS_NE_FMT " must be a matrix of 2*%d - 1 rows", GGML_OPS_NE_ARGS(a), qh);
    const int64_t ne[3] = { a->ne[0], kh, qh };
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, GGML_TYPE_F16, 3, ne);
    return result ? ggml_ops_node(result, GGML_OP_GET_REL_POS, a, NULL, NULL) : NULL;
}

static struct ggml_tensor * ops_add_rel_pos(const char * func, struct ggml_context * ctx, struct ggml_tensor * a,
        struct ggml_tensor * pw, struct ggml_tensor * ph, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_ARG_F(func, pw);
    GGML_OPS_CHECK_ARG_F(func, ph);
    GGML_OPS_CHECK_F(func, a->type == GGML_TYPE_F32 && pw->type == GGML_TYPE_F32 && ph->type == GGML_TYPE_F32,
            "a, pw and ph must be F32 (are %s, %s, %s)", ggml_type_name(a->type), ggml_type_name(pw->type),
            ggml_type_name(ph->type));
    GGML_OPS_CHECK_F(func, ggml_are_same_shape(pw, ph), "pw " GGML_OPS_NE_FMT " and ph " GGML_OPS_NE_FMT
            " must have the same shape", GGML_OPS_NE_ARGS(pw), GGML_OPS_NE_ARGS(ph));
    GGML_OPS_CHECK_F(func, ggml_is_contiguous(a) && ggml_is_contiguous(pw) && ggml_is_contiguous(ph),
            "a, pw and ph must be contiguous");
    GGML_OPS_CHECK_F(func, a->ne[0] == pw->ne[0]*pw->ne[0] && a->ne[1] == pw->ne[1]*pw->ne[2] &&
            a->ne[2] == pw->ne[3] && a->ne[3] == 1,
            "a " GGML_OPS_NE_FMT " must be [K*K, Q1*Q2, B, 1] for pw " GGML_OPS_NE_FMT " = [K, Q1, Q2, B]",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(pw));
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, inplace ? 1 : 0);
    return ggml_ops_node(result, GGML_OP_ADD_REL_POS, a, pw, ph);
}

struct ggml_tensor * ggml_add_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a,
        struct ggml_tensor * pw, struct ggml_tensor * ph) {
    return ops_add_rel_pos(__func__, ctx, a, pw, ph, false);
}

struct ggml_tensor * ggml_add_rel_pos_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
        struct ggml_tensor * pw, struct ggml_tensor * ph) {
    return ops_add_rel_pos(__func__, ctx, a, pw, ph, true);
}

//
// COL2IM_1D and IM2COL_BACK
//

struct ggml_tensor * ggml_col2im_1d(struct ggml_context * ctx, struct ggml_tensor * a, int s0, int oc, int p0) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16,
            "a must be F32, F16 or BF16, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(a->ne[2] == 1 && a->ne[3] == 1, "a " GGML_OPS_NE_FMT " must be a matrix [K*OC, T_in]", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(s0 > 0 && oc > 0 && p0 >= 0, "stride %d, channels %d, padding %d: need s0, oc > 0 and p0 >= 0", s0, oc, p0);
    GGML_OPS_CHECK(a->ne[0] % oc == 0 && a->ne[0] > 0, "a->ne[0] = %lld is not a positive multiple of oc = %d",
            (long long) a->ne[0], oc);
    GGML_OPS_CHECK(a->ne[1] > 0, "a has no columns");
    const int64_t k = a->ne[0] / oc;
    GGML_OPS_CHECK(a->ne[1] - 1 <= (INT64_MAX - k) / s0, "a " GGML_OPS_NE_FMT " with stride %d overflows", GGML_OPS_NE_ARGS(a), s0);
    const int64_t t_out = (a->ne[1] - 1)*s0 + k - 2*(int64_t) p0;
    GGML_OPS_CHECK(t_out > 0, "padding %d crops the whole signal of %lld samples", p0, (long long) ((a->ne[1] - 1)*s0 + k));
    const int64_t ne[2] = { t_out, oc };
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, a->type, 2, ne);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[3] = { s0, oc, p0 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_COL2IM_1D, a, NULL, NULL);
}

struct ggml_tensor * ggml_im2col_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int64_t * ne, int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK_ARG(ne);
    GGML_OPS_CHECK(a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16,
            "a (the gradient of im2col's result) must be F32, F16 or BF16, not %s", ggml_type_name(a->type));
    GGML_OPS_CHECK(ne[0] > 0 && ne[1] > 0 && ne[2] > 0 && ne[3] > 0, "the input shape [%lld, %lld, %lld, %lld] must be positive",
            (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3]);
    GGML_OPS_CHECK(s0 > 0 && d0 > 0 && p0 >= 0 && (!is_2D || (s1 > 0 && d1 > 0 && p1 >= 0)),
            "strides (%d, %d) and dilations (%d, %d) must be positive, paddings (%d, %d) >= 0", s0, s1, d0, d1, p0, p1);
    // kernel b [KW, KH, IC, OC] (1-D: [KW, IC, OC]); gradient a [IC*KH*KW, OW, OH, N] (1-D: [IC*KW, OW, N])
    const int64_t kw = b->ne[0], kh = is_2D ? b->ne[1] : 1;
    const int64_t ic = is_2D ? ne[2] : ne[1], n = is_2D ? ne[3] : ne[2];
    GGML_OPS_CHECK(a->ne[0] == ic*kh*kw, "a " GGML_OPS_NE_FMT " rows must hold IC*KH*KW = %lld*%lld*%lld values",
            GGML_OPS_NE_ARGS(a), (long long) ic, (long long) kh, (long long) kw);
    GGML_OPS_CHECK(is_2D ? a->ne[3] == n : (a->ne[2] == n && a->ne[3] == 1 && ne[3] == 1),
            "a " GGML_OPS_NE_FMT " and the input shape [%lld, %lld, %lld, %lld] disagree on the batch",
            GGML_OPS_NE_ARGS(a), (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3]);
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, GGML_TYPE_F32, 4, ne);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[7] = { s0, s1, p0, p1, d0, d1, is_2D ? 1 : 0 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_IM2COL_BACK, a, b, NULL);
}

//
// FLASH_ATTN_BACK
//

struct ggml_tensor * ggml_flash_attn_back(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
        struct ggml_tensor * v, struct ggml_tensor * d, bool masked) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(q);
    GGML_OPS_CHECK_ARG(k);
    GGML_OPS_CHECK_ARG(v);
    GGML_OPS_CHECK_ARG(d);
    GGML_OPS_CHECK(q->type == GGML_TYPE_F32 && k->type == GGML_TYPE_F32 && v->type == GGML_TYPE_F32 && d->type == GGML_TYPE_F32,
            "q, k, v and d must be F32 (are %s, %s, %s, %s)", ggml_type_name(q->type), ggml_type_name(k->type),
            ggml_type_name(v->type), ggml_type_name(d->type));
    const int64_t dim = q->ne[0], n = q->ne[1], m = k->ne[1], h = q->ne[2], hkv = k->ne[2], b = q->ne[3];
    GGML_OPS_CHECK(k->ne[0] == dim && k->ne[3] == b, "k " GGML_OPS_NE_FMT " must be [D, M, Hkv, B] for q " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(k), GGML_OPS_NE_ARGS(q));
    GGML_OPS_CHECK(v->ne[0] == m && v->ne[1] == dim && v->ne[2] == hkv && v->ne[3] == b,
            "v " GGML_OPS_NE_FMT " must be [M, D, Hkv, B] = [%lld, %lld, %lld, %lld]", GGML_OPS_NE_ARGS(v),
            (long long) m, (long long) dim, (long long) hkv, (long long) b);
    GGML_OPS_CHECK(ggml_are_same_shape(d, q), "d " GGML_OPS_NE_FMT " must have q's shape " GGML_OPS_NE_FMT,
            GGML_OPS_NE_ARGS(d), GGML_OPS_NE_ARGS(q));
    GGML_OPS_CHECK(hkv > 0 && h % hkv == 0, "q's %lld heads are not a multiple of k's %lld", (long long) h, (long long) hkv);
    GGML_OPS_CHECK(m >= n && dim > 0 && n > 0, "need D, N > 0 and at least as many keys (%lld) as queries (%lld)",
            (long long) m, (long long) n);
    const size_t tsize = sizeof(float);
    const size_t offs_k = GGML_PAD((size_t) ggml_nelements(q)*tsize, GGML_MEM_ALIGN);
    const size_t offs_v = offs_k + GGML_PAD((size_t) ggml_nelements(k)*tsize, GGML_MEM_ALIGN);
    const size_t end    = offs_v + GGML_PAD((size_t) ggml_nelements(v)*tsize, GGML_MEM_ALIGN);
    const int64_t ne[1] = { (int64_t) ((end + tsize - 1) / tsize) };
    struct ggml_tensor * result = ggml_ops_new(__func__, ctx, GGML_TYPE_F32, 1, ne);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, masked ? 1 : 0);
    result->src[3] = d;
    return ggml_ops_node(result, GGML_OP_FLASH_ATTN_BACK, q, k, v);
}
