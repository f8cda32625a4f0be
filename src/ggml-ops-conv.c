// Op constructors of the family's convolutions beyond ggml_conv_2d / ggml_im2col (ggml-ops-nn.c):
// 1-D, depthwise, transposed and 3-D forms.
//
// The composites (conv_1d, conv_1d_dw, conv_2d_dw, conv_3d and the _ph / _sk_p0 / _s1_ph
// shortcuts) build the same graphs as the family: an im2col node, one matrix product and
// reshapes, so a program that walks the graph finds the nodes it expects. The im2col result is
// F16 for an F16 kernel and F32 otherwise (as ggml_conv_2d here; the family makes it F16 for any
// kernel but BF16). The others are single nodes with the family's op_params layout.
// Where the family asserts, these log the offending shapes and return NULL.

#include "ggml-ops-internal.h"

#include <limits.h>

// Output length of a convolution as the family computes it: (in + 2p - d(k - 1) - 1)/s + 1 with C
// division. false when stride or dilation is below 1 or a size is out of the range where the
// arithmetic is exact.
static bool conv_out_len(int64_t in, int64_t k, int s, int p, int d, int64_t * out) {
    if (s < 1 || d < 1 || in < 1 || k < 1 || in > INT32_MAX*(int64_t) 1024 || k > INT32_MAX) {
        return false;
    }
    *out = (in + 2*(int64_t) p - (int64_t) d*(k - 1) - 1)/s + 1;
    return true;
}

// the im2col result type of the composites
static enum ggml_type conv_cols_type(const struct ggml_tensor * a) {
    return a->type == GGML_TYPE_F16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
}

//
// 1-D
//

struct ggml_tensor * ggml_conv_1d(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int p0, int d0) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);

    // [IC*K, OL, N]
    struct ggml_tensor * cols = ggml_im2col(ctx, a, b, s0, 0, p0, 0, d0, 0, false, conv_cols_type(a));
    GGML_OPS_CHECK(cols != NULL, "im2col of kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT " failed"
            " (s0 = %d, p0 = %d, d0 = %d)", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b), s0, p0, d0);
    struct ggml_tensor * cols2d = ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[2]*cols->ne[1]);
    struct ggml_tensor * krn2d  = cols2d ? ggml_reshape_2d(ctx, a, a->ne[0]*a->ne[1], a->ne[2]) : NULL;
    GGML_OPS_CHECK(krn2d != NULL, "cannot flatten kernel " GGML_OPS_NE_FMT " (it must be contiguous, ne[3] == 1)",
            GGML_OPS_NE_ARGS(a));
    // [N*OL, OC]
    struct ggml_tensor * prod = ggml_mul_mat(ctx, cols2d, krn2d);
    struct ggml_tensor * result = prod ? ggml_reshape_3d(ctx, prod, cols->ne[1], a->ne[2], cols->ne[2]) : NULL;
    GGML_OPS_CHECK(result != NULL, "matrix product for kernel " GGML_OPS_NE_FMT " failed", GGML_OPS_NE_ARGS(a));
    return result;
}

struct ggml_tensor * ggml_conv_1d_ph(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s, int d) {
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->ne[0] / 2 <= INT_MAX, "kernel " GGML_OPS_NE_FMT " too long", GGML_OPS_NE_ARGS(a));
    return ggml_conv_1d(ctx, a, b, s, (int) (a->ne[0] / 2), d);
}

struct ggml_tensor * ggml_conv_1d_dw(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int p0, int d0) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);

    // every channel its own 1-channel signal: [L, 1, C, N]
    struct ggml_tensor * b4 = ggml_reshape_4d(ctx, b, b->ne[0], 1, b->ne[1], b->ne[2]);
    GGML_OPS_CHECK(b4 != NULL, "cannot view data " GGML_OPS_NE_FMT " as one-channel signals (it must be contiguous)",
            GGML_OPS_NE_ARGS(b));
    // [K, OL, C]
    struct ggml_tensor * cols = ggml_im2col(ctx, a, b4, s0, 0, p0, 0, d0, 0, false, conv_cols_type(a));
    GGML_OPS_CHECK(cols != NULL, "im2col of kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT " failed"
            " (the kernel must be [K, 1, C] and the data [L, C])", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    // [OL, 1, C]
    struct ggml_tensor * prod = ggml_mul_mat(ctx, cols, a);
    struct ggml_tensor * result = prod ? ggml_reshape_3d(ctx, prod, prod->ne[0], prod->ne[2], 1) : NULL;
    GGML_OPS_CHECK(result != NULL, "matrix product for kernel " GGML_OPS_NE_FMT " failed", GGML_OPS_NE_ARGS(a));
    return result;
}

struct ggml_tensor * ggml_conv_1d_dw_ph(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int d0) {
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->ne[0] / 2 <= INT_MAX, "kernel " GGML_OPS_NE_FMT " too long", GGML_OPS_NE_ARGS(a));
    return ggml_conv_1d_dw(ctx, a, b, s0, (int) (a->ne[0] / 2), d0);
}

struct ggml_tensor * ggml_conv_transpose_1d(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int p0, int d0) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(b->ne[2] == 1 && b->ne[3] == 1, "data b " GGML_OPS_NE_FMT " must be a matrix [L, IC]",
            GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(a->ne[2] == b->ne[1] && a->ne[3] == 1, "kernel a " GGML_OPS_NE_FMT " must be [K, OC, IC]"
            " with IC = b->ne[1] (data b " GGML_OPS_NE_FMT ")", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(p0 == 0 && d0 == 1, "only padding 0 and dilation 1 are defined (got p0 = %d, d0 = %d)", p0, d0);
    GGML_OPS_CHECK(s0 >= 1, "stride %d must be at least 1", s0);
    GGML_OPS_CHECK(a->ne[0] >= 1 && b->ne[0] >= 1 && b->ne[0] <= INT32_MAX && a->ne[0] <= INT32_MAX,
            "kernel " GGML_OPS_NE_FMT " or data " GGML_OPS_NE_FMT " has no or too many positions",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));

    const int64_t OL = (b->ne[0] - 1)*s0 + a->ne[0];
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, OL, a->ne[1], b->ne[2], 1);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[3] = { s0, p0, d0 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_CONV_TRANSPOSE_1D, a, b, NULL);
}

//
// 2-D
//

struct ggml_tensor * ggml_conv_transpose_2d_p0(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int stride) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(a->ne[3] == b->ne[2], "kernel a " GGML_OPS_NE_FMT " must be [KW, KH, OC, IC] with IC = b->ne[2]"
            " (data b " GGML_OPS_NE_FMT ")", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(stride >= 1, "stride %d must be at least 1", stride);
    GGML_OPS_CHECK(a->ne[0] >= 1 && a->ne[1] >= 1 && b->ne[0] >= 1 && b->ne[1] >= 1 &&
            b->ne[0] <= INT32_MAX && b->ne[1] <= INT32_MAX && a->ne[0] <= INT32_MAX && a->ne[1] <= INT32_MAX,
            "kernel " GGML_OPS_NE_FMT " or data " GGML_OPS_NE_FMT " has no or too many positions",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));

    const int64_t OW = (b->ne[0] - 1)*stride + a->ne[0];
    const int64_t OH = (b->ne[1] - 1)*stride + a->ne[1];
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, OW, OH, a->ne[2], b->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, stride);
    return ggml_ops_node(result, GGML_OP_CONV_TRANSPOSE_2D, a, b, NULL);
}

struct ggml_tensor * ggml_conv_2d_sk_p0(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->ne[0] <= INT_MAX && a->ne[1] <= INT_MAX, "kernel " GGML_OPS_NE_FMT " too large", GGML_OPS_NE_ARGS(a));
    return ggml_conv_2d(ctx, a, b, (int) a->ne[0], (int) a->ne[1], 0, 0, 1, 1);
}

struct ggml_tensor * ggml_conv_2d_s1_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->ne[0] <= INT_MAX && a->ne[1] <= INT_MAX, "kernel " GGML_OPS_NE_FMT " too large", GGML_OPS_NE_ARGS(a));
    return ggml_conv_2d(ctx, a, b, 1, 1, (int) (a->ne[0] / 2), (int) (a->ne[1] / 2), 1, 1);
}

struct ggml_tensor * ggml_conv_2d_dw(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int s0, int s1, int p0, int p1, int d0, int d1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);

    // kernel and data as one-channel images: [KW, KH, 1, C] and [W, H, 1, C*N]
    struct ggml_tensor * a1 = ggml_reshape_4d(ctx, a, a->ne[0], a->ne[1], 1, a->ne[2]*a->ne[3]);
    struct ggml_tensor * b1 = a1 ? ggml_reshape_4d(ctx, b, b->ne[0], b->ne[1], 1, b->ne[2]*b->ne[3]) : NULL;
    GGML_OPS_CHECK(b1 != NULL, "cannot view kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT " per channel"
            " (both must be contiguous)", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    // [KH*KW, OW, OH, C*N]
    struct ggml_tensor * cols = ggml_im2col(ctx, a1, b1, s0, s1, p0, p1, d0, d1, true, conv_cols_type(a));
    GGML_OPS_CHECK(cols != NULL, "im2col of kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT " failed",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    // [KH*KW, OH*OW, C, N] against [KH*KW, 1, C, 1]: one row of products per channel
    struct ggml_tensor * cols4 = ggml_reshape_4d(ctx, cols, cols->ne[0], cols->ne[2]*cols->ne[1], b->ne[2], b->ne[3]);
    struct ggml_tensor * krn4  = cols4 ? ggml_reshape_4d(ctx, a1, a1->ne[0]*a1->ne[1], a1->ne[2], a1->ne[3], 1) : NULL;
    struct ggml_tensor * prod  = krn4 ? ggml_mul_mat(ctx, krn4, cols4) : NULL;
    struct ggml_tensor * result = prod ? ggml_reshape_4d(ctx, prod, cols->ne[1], cols->ne[2], b->ne[2], b->ne[3]) : NULL;
    GGML_OPS_CHECK(result != NULL, "depthwise product of kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT
            " failed (the kernel must be [KW, KH, 1, C] with C = b->ne[2])", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    return result;
}

struct ggml_tensor * ggml_conv_2d_dw_direct(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int stride0, int stride1, int pad0, int pad1, int dilation0, int dilation1) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(a->ne[2] == 1 && a->ne[3] == b->ne[2], "kernel a " GGML_OPS_NE_FMT " must be [KW, KH, 1, C]"
            " with C = b->ne[2] (data b " GGML_OPS_NE_FMT ")", GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    GGML_OPS_CHECK(ggml_blck_size(b->type) == 1, "data b must be a plain (not block-quantized) type, got %s",
            ggml_type_name(b->type));

    int64_t OW = 0;
    int64_t OH = 0;
    const bool ok = conv_out_len(b->ne[0], a->ne[0], stride0, pad0, dilation0, &OW) &&
                    conv_out_len(b->ne[1], a->ne[1], stride1, pad1, dilation1, &OH);
    GGML_OPS_CHECK(ok && OW >= 1 && OH >= 1, "data b " GGML_OPS_NE_FMT " too small for kernel a " GGML_OPS_NE_FMT
            " or bad parameters (s = %d, %d, p = %d, %d, d = %d, %d)", GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a),
            stride0, stride1, pad0, pad1, dilation0, dilation1);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, b->type, OW, OH, b->ne[2], b->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    if (ggml_is_contiguous_channels(b)) {
        // channels adjacent in memory (CWHN), as the data: same bytes, other strides
        const size_t ts = ggml_type_size(result->type);
        result->nb[0] = (size_t) result->ne[2]*ts;
        result->nb[1] = (size_t) result->ne[0]*result->nb[0];
        result->nb[2] = ts;
    }
    const int32_t params[6] = { stride0, stride1, pad0, pad1, dilation0, dilation1 };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_CONV_2D_DW, a, b, NULL);
}

//
// 3-D
//

struct ggml_tensor * ggml_im2col_3d(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int64_t IC,
        int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2, enum ggml_type dst_type) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(dst_type == GGML_TYPE_F32 || dst_type == GGML_TYPE_F16,
            "dst_type must be F32 or F16, got %s (%d)", ggml_type_is_valid(dst_type) ? ggml_type_name(dst_type) : "invalid",
            (int) dst_type);
    GGML_OPS_CHECK(IC >= 1 && IC <= INT32_MAX, "IC = %lld must be in 1 .. INT32_MAX", (long long) IC);

    int64_t OW = 0, OH = 0, OD = 0;
    const bool ok = conv_out_len(b->ne[0], a->ne[0], s0, p0, d0, &OW) &&
                    conv_out_len(b->ne[1], a->ne[1], s1, p1, d1, &OH) &&
                    conv_out_len(b->ne[2], a->ne[2], s2, p2, d2, &OD);
    GGML_OPS_CHECK(ok && OW >= 1 && OH >= 1 && OD >= 1, "data b " GGML_OPS_NE_FMT " too small for kernel a "
            GGML_OPS_NE_FMT " or bad parameters (s = %d, %d, %d, p = %d, %d, %d, d = %d, %d, %d)",
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a), s0, s1, s2, p0, p1, p2, d0, d1, d2);

    // b->ne[3] holds N images of IC channels (a remainder is ignored, as in the family)
    const int64_t N = b->ne[3] / IC;
    int64_t K = 0;
    GGML_OPS_CHECK(ggml_ops_count4(a->ne[0], a->ne[1], a->ne[2], IC, &K), "kernel " GGML_OPS_NE_FMT
            " x IC = %lld is too large", GGML_OPS_NE_ARGS(a), (long long) IC);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, dst_type, K, OW, OH, OD*N);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[10] = { s0, s1, s2, p0, p1, p2, d0, d1, d2, (int32_t) IC };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_IM2COL_3D, a, b, NULL);
}

struct ggml_tensor * ggml_conv_3d(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int64_t IC,
        int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(IC >= 1 && a->ne[3] % IC == 0 && b->ne[3] % IC == 0 && b->ne[3] >= IC,
            "kernel a " GGML_OPS_NE_FMT " and data b " GGML_OPS_NE_FMT " must hold whole groups of IC = %lld channels in ne[3]",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b), (long long) IC);

    // [IC*KD*KH*KW, OW, OH, N*OD]
    struct ggml_tensor * cols = ggml_im2col_3d(ctx, a, b, IC, s0, s1, s2, p0, p1, p2, d0, d1, d2, conv_cols_type(a));
    GGML_OPS_CHECK(cols != NULL, "im2col_3d of kernel " GGML_OPS_NE_FMT " and data " GGML_OPS_NE_FMT " failed",
            GGML_OPS_NE_ARGS(a), GGML_OPS_NE_ARGS(b));
    const int64_t OC = a->ne[3] / IC;
    const int64_t N  = b->ne[3] / IC;
    const int64_t OD = cols->ne[3] / N;

    struct ggml_tensor * cols2d = ggml_reshape_2d(ctx, cols, cols->ne[0], cols->ne[3]*cols->ne[2]*cols->ne[1]);
    struct ggml_tensor * krn2d  = cols2d ? ggml_reshape_2d(ctx, a, a->ne[0]*a->ne[1]*a->ne[2]*IC, OC) : NULL;
    GGML_OPS_CHECK(krn2d != NULL, "cannot flatten kernel " GGML_OPS_NE_FMT " (it must be contiguous)", GGML_OPS_NE_ARGS(a));
    // [N*OD*OH*OW, OC] -> [OH*OW, OD, N, OC] -> [OH*OW, OD, OC, N] -> [OW, OH, OD, OC*N]
    struct ggml_tensor * prod = ggml_mul_mat(ctx, cols2d, krn2d);
    struct ggml_tensor * r4   = prod ? ggml_reshape_4d(ctx, prod, cols->ne[1]*cols->ne[2], OD, N, OC) : NULL;
    struct ggml_tensor * rp   = r4 ? ggml_permute(ctx, r4, 0, 1, 3, 2) : NULL;
    struct ggml_tensor * rc   = rp ? ggml_cont(ctx, rp) : NULL;
    struct ggml_tensor * result = rc ? ggml_reshape_4d(ctx, rc, cols->ne[1], cols->ne[2], OD, OC*N) : NULL;
    GGML_OPS_CHECK(result != NULL, "matrix product for kernel " GGML_OPS_NE_FMT " failed", GGML_OPS_NE_ARGS(a));
    return result;
}

struct ggml_tensor * ggml_conv_3d_direct(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2,
        int n_channels, int n_batch, int n_channels_out) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK_ARG(b);
    GGML_OPS_CHECK(n_channels >= 1 && n_batch >= 1 && n_channels_out >= 1,
            "n_channels = %d, n_batch = %d and n_channels_out = %d must be at least 1", n_channels, n_batch, n_channels_out);
    GGML_OPS_CHECK(a->ne[3] == (int64_t) n_channels*n_channels_out && b->ne[3] == (int64_t) n_channels*n_batch,
            "kernel a " GGML_OPS_NE_FMT " needs ne[3] = n_channels*n_channels_out = %lld and data b " GGML_OPS_NE_FMT
            " ne[3] = n_channels*n_batch = %lld", GGML_OPS_NE_ARGS(a), (long long) n_channels*n_channels_out,
            GGML_OPS_NE_ARGS(b), (long long) n_channels*n_batch);

    int64_t OW = 0, OH = 0, OD = 0;
    const bool ok = conv_out_len(b->ne[0], a->ne[0], s0, p0, d0, &OW) &&
                    conv_out_len(b->ne[1], a->ne[1], s1, p1, d1, &OH) &&
                    conv_out_len(b->ne[2], a->ne[2], s2, p2, d2, &OD);
    GGML_OPS_CHECK(ok && OW >= 1 && OH >= 1 && OD >= 1, "data b " GGML_OPS_NE_FMT " too small for kernel a "
            GGML_OPS_NE_FMT " or bad parameters (s = %d, %d, %d, p = %d, %d, %d, d = %d, %d, %d)",
            GGML_OPS_NE_ARGS(b), GGML_OPS_NE_ARGS(a), s0, s1, s2, p0, p1, p2, d0, d1, d2);

    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, OW, OH, OD,
            (int64_t) n_channels_out*n_batch);
    if (result == NULL) {
        return NULL;
    }
    const int32_t params[12] = { s0, s1, s2, p0, p1, p2, d0, d1, d2, n_channels, n_batch, n_channels_out };
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_CONV_3D, a, b, NULL);
}
