// Reference: IM2COL (1-D and 2-D), CONV_2D, POOL_2D, and IM2COL_3D, CONV_3D, CONV_2D_DW,
// CONV_TRANSPOSE_1D, CONV_TRANSPOSE_2D.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <float.h>

// IM2COL: src[0] = kernel (only its shape is used), src[1] = data; i32[0..6] = s0, s1, p0, p1,
// d0, d1, is_2D.
//   2-D: kernel [KW, KH, IC, OC], data [IW, IH, IC, N] -> [IC*KH*KW, OW, OH, N]
//   1-D: kernel [KW, IC, OC],     data [IW, IC, N]     -> [IC*KW, OW, N]
// result(ic*KH*KW + kh*KW + kw, ow, oh, n) = data(ow*s0 + kw*d0 - p0, oh*s1 + kh*d1 - p1, ic, n),
// 0 outside the data.
static bool ref_im2col(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * k = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    if (k == NULL) {
        return ggml_ref_fail(err, err_size, "IM2COL: kernel (source 0) is NULL");
    }
    if (!ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const int64_t s0 = ggml_ref_param_i32(node, 0), s1 = ggml_ref_param_i32(node, 1);
    const int64_t p0 = ggml_ref_param_i32(node, 2), p1 = ggml_ref_param_i32(node, 3);
    const int64_t d0 = ggml_ref_param_i32(node, 4), d1 = ggml_ref_param_i32(node, 5);
    const bool is_2d = ggml_ref_param_i32(node, 6) == 1;

    const int64_t N  = is_2d ? b->ne[3] : b->ne[2];
    const int64_t IC = is_2d ? b->ne[2] : b->ne[1];
    const int64_t IH = is_2d ? b->ne[1] : 1;
    const int64_t IW = b->ne[0];
    const int64_t KH = is_2d ? k->ne[1] : 1;
    const int64_t KW = k->ne[0];
    const int64_t OW = node->ne[1];
    const int64_t OH = is_2d ? node->ne[2] : 1;
    const int64_t n_out = is_2d ? node->ne[3] : node->ne[2];
    if (node->ne[0] != IC*KH*KW || n_out != N || (!is_2d && node->ne[3] != 1)) {
        return ggml_ref_fail(err, err_size, "IM2COL: result [%lld, %lld, %lld, %lld] does not fit IC %lld, KH %lld, KW %lld, N %lld",
                (long long) node->ne[0], (long long) node->ne[1], (long long) node->ne[2], (long long) node->ne[3],
                (long long) IC, (long long) KH, (long long) KW, (long long) N);
    }
    for (int64_t in = 0; in < N; in++) {
        for (int64_t oh = 0; oh < OH; oh++) {
            for (int64_t ow = 0; ow < OW; ow++) {
                for (int64_t ic = 0; ic < IC; ic++) {
                    for (int64_t kh = 0; kh < KH; kh++) {
                        for (int64_t kw = 0; kw < KW; kw++) {
                            const int64_t iw = ow*s0 + kw*d0 - p0;
                            const int64_t ih = oh*s1 + kh*d1 - p1;
                            double v = 0.0;
                            if (iw >= 0 && iw < IW && ih >= 0 && ih < IH) {
                                v = is_2d ? ggml_ref_get(b, iw, ih, ic, in) : ggml_ref_get(b, iw, ic, in, 0);
                            }
                            const int64_t row = ic*KH*KW + kh*KW + kw;
                            const int64_t o = is_2d ? ggml_ref_idx(node, row, ow, oh, in) : ggml_ref_idx(node, row, ow, in, 0);
                            out[o] = ggml_ref_round_to_type(node->type, v);
                        }
                    }
                }
            }
        }
    }
    return true;
}

// CONV_2D: kernel [KW, KH, IC, OC], data [W, H, IC, N] -> [OW, OH, OC, N]; i32[0..5] = s0, s1,
// p0, p1, d0, d1; result(ox, oy, oc, n) = sum_{ic, ky, kx} kernel(kx, ky, ic, oc) *
// data(ox*s0 + kx*d0 - p0, oy*s1 + ky*d1 - p1, ic, n) over in-bounds data.
static bool ref_conv_2d(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * k = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    const int64_t s0 = ggml_ref_param_i32(node, 0), s1 = ggml_ref_param_i32(node, 1);
    const int64_t p0 = ggml_ref_param_i32(node, 2), p1 = ggml_ref_param_i32(node, 3);
    const int64_t d0 = ggml_ref_param_i32(node, 4), d1 = ggml_ref_param_i32(node, 5);
    if (k->ne[2] != b->ne[2] || node->ne[2] != k->ne[3] || node->ne[3] != b->ne[3]) {
        return ggml_ref_fail(err, err_size, "CONV_2D: kernel [%lld, %lld, %lld, %lld] and data [%lld, %lld, %lld, %lld] do not fit",
                (long long) k->ne[0], (long long) k->ne[1], (long long) k->ne[2], (long long) k->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3]);
    }
    for (int64_t n = 0; n < node->ne[3]; n++) {
        for (int64_t oc = 0; oc < node->ne[2]; oc++) {
            for (int64_t oy = 0; oy < node->ne[1]; oy++) {
                for (int64_t ox = 0; ox < node->ne[0]; ox++) {
                    double s = 0.0;
                    for (int64_t ic = 0; ic < k->ne[2]; ic++) {
                        for (int64_t ky = 0; ky < k->ne[1]; ky++) {
                            const int64_t y = oy*s1 + ky*d1 - p1;
                            if (y < 0 || y >= b->ne[1]) {
                                continue;
                            }
                            for (int64_t kx = 0; kx < k->ne[0]; kx++) {
                                const int64_t x = ox*s0 + kx*d0 - p0;
                                if (x < 0 || x >= b->ne[0]) {
                                    continue;
                                }
                                s += ggml_ref_get(k, kx, ky, ic, oc) * ggml_ref_get(b, x, y, ic, n);
                            }
                        }
                    }
                    out[ggml_ref_idx(node, ox, oy, oc, n)] = s;
                }
            }
        }
    }
    return true;
}

// POOL_2D: i32[0] = op, [1] = k0, [2] = k1, [3] = s0, [4] = s1, [5] = p0, [6] = p1.
// result(ox, oy, c, n) over the window starting at (ox*s0 - p0, oy*s1 - p1): MAX of the in-bounds
// elements (-FLT_MAX when there are none) or AVG = their sum / (k0*k1).
static bool ref_pool_2d(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const int op = ggml_ref_param_i32(node, 0);
    const int64_t k0 = ggml_ref_param_i32(node, 1), k1 = ggml_ref_param_i32(node, 2);
    const int64_t s0 = ggml_ref_param_i32(node, 3), s1 = ggml_ref_param_i32(node, 4);
    const int64_t p0 = ggml_ref_param_i32(node, 5), p1 = ggml_ref_param_i32(node, 6);
    if (op != GGML_OP_POOL_MAX && op != GGML_OP_POOL_AVG) {
        return ggml_ref_fail(err, err_size, "POOL_2D: pool op %d is not covered", op);
    }
    if (k0 <= 0 || k1 <= 0 || node->ne[2] != a->ne[2] || node->ne[3] != a->ne[3]) {
        return ggml_ref_fail(err, err_size, "POOL_2D: kernel %lldx%lld, or channels/batch differ between a and the result",
                (long long) k0, (long long) k1);
    }
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t oy = 0; oy < node->ne[1]; oy++) {
                for (int64_t ox = 0; ox < node->ne[0]; ox++) {
                    double acc = op == GGML_OP_POOL_MAX ? -FLT_MAX : 0.0;
                    for (int64_t ky = 0; ky < k1; ky++) {
                        const int64_t y = oy*s1 - p1 + ky;
                        if (y < 0 || y >= a->ne[1]) {
                            continue;
                        }
                        for (int64_t kx = 0; kx < k0; kx++) {
                            const int64_t x = ox*s0 - p0 + kx;
                            if (x < 0 || x >= a->ne[0]) {
                                continue;
                            }
                            const double v = ggml_ref_get(a, x, y, i2, i3);
                            if (op == GGML_OP_POOL_MAX) {
                                acc = v > acc ? v : acc;
                            } else {
                                acc += v;
                            }
                        }
                    }
                    if (op == GGML_OP_POOL_AVG) {
                        acc /= (double) (k0*k1);
                    }
                    out[ggml_ref_idx(node, ox, oy, i2, i3)] = acc;
                }
            }
        }
    }
    return true;
}

// IM2COL_3D: kernel [KW, KH, KD, OC*IC] (shape only), data [IW, IH, ID, N*IC] ->
// [IC*KD*KH*KW, OW, OH, N*OD]; i32[0..9] = s0, s1, s2, p0, p1, p2, d0, d1, d2, IC.
// result(((ic*KD + kd)*KH + kh)*KW + kw, ow, oh, n*OD + od) =
// data(ow*s0 + kw*d0 - p0, oh*s1 + kh*d1 - p1, od*s2 + kd*d2 - p2, n*IC + ic), 0 outside.
static bool ref_im2col_3d(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * k = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    int64_t s[3], p[3], d[3];
    for (int i = 0; i < 3; i++) {
        s[i] = ggml_ref_param_i32(node, i);
        p[i] = ggml_ref_param_i32(node, 3 + i);
        d[i] = ggml_ref_param_i32(node, 6 + i);
    }
    const int64_t IC = ggml_ref_param_i32(node, 9);
    if (IC < 1) {
        return ggml_ref_fail(err, err_size, "IM2COL_3D: IC = %lld", (long long) IC);
    }
    const int64_t KW = k->ne[0], KH = k->ne[1], KD = k->ne[2];
    const int64_t N  = b->ne[3] / IC;
    const int64_t OW = node->ne[1], OH = node->ne[2];
    const int64_t OD = N > 0 ? node->ne[3] / N : 0;
    if (node->ne[0] != IC*KD*KH*KW || node->ne[3] != N*OD) {
        return ggml_ref_fail(err, err_size, "IM2COL_3D: result [%lld, %lld, %lld, %lld] does not fit IC %lld, kernel %lldx%lldx%lld, N %lld",
                (long long) node->ne[0], (long long) node->ne[1], (long long) node->ne[2], (long long) node->ne[3],
                (long long) IC, (long long) KW, (long long) KH, (long long) KD, (long long) N);
    }
    for (int64_t n = 0; n < N; n++) {
        for (int64_t od = 0; od < OD; od++) {
            for (int64_t oh = 0; oh < OH; oh++) {
                for (int64_t ow = 0; ow < OW; ow++) {
                    for (int64_t ic = 0; ic < IC; ic++) {
                        for (int64_t kd = 0; kd < KD; kd++) {
                            for (int64_t kh = 0; kh < KH; kh++) {
                                for (int64_t kw = 0; kw < KW; kw++) {
                                    const int64_t x = ow*s[0] + kw*d[0] - p[0];
                                    const int64_t y = oh*s[1] + kh*d[1] - p[1];
                                    const int64_t z = od*s[2] + kd*d[2] - p[2];
                                    double v = 0.0;
                                    if (x >= 0 && x < b->ne[0] && y >= 0 && y < b->ne[1] && z >= 0 && z < b->ne[2]) {
                                        v = ggml_ref_get(b, x, y, z, n*IC + ic);
                                    }
                                    const int64_t row = ((ic*KD + kd)*KH + kh)*KW + kw;
                                    out[ggml_ref_idx(node, row, ow, oh, n*OD + od)] = ggml_ref_round_to_type(node->type, v);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return true;
}

// CONV_3D: kernel [KW, KH, KD, OC*IC], data [IW, IH, ID, N*IC] -> [OW, OH, OD, N*OC];
// i32[0..11] = s0, s1, s2, p0, p1, p2, d0, d1, d2, IC, N, OC.
// result(ox, oy, oz, n*OC + oc) = sum_{ic, kz, ky, kx} kernel(kx, ky, kz, oc*IC + ic) *
// data(ox*s0 + kx*d0 - p0, oy*s1 + ky*d1 - p1, oz*s2 + kz*d2 - p2, n*IC + ic) over in-bounds data.
static bool ref_conv_3d(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * k = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    int64_t s[3], p[3], d[3];
    for (int i = 0; i < 3; i++) {
        s[i] = ggml_ref_param_i32(node, i);
        p[i] = ggml_ref_param_i32(node, 3 + i);
        d[i] = ggml_ref_param_i32(node, 6 + i);
    }
    const int64_t IC = ggml_ref_param_i32(node, 9), N = ggml_ref_param_i32(node, 10), OC = ggml_ref_param_i32(node, 11);
    if (IC < 1 || N < 1 || OC < 1 || k->ne[3] != IC*OC || b->ne[3] != IC*N || node->ne[3] != N*OC) {
        return ggml_ref_fail(err, err_size, "CONV_3D: IC %lld, N %lld, OC %lld do not fit kernel ne[3] %lld, data ne[3] %lld, result ne[3] %lld",
                (long long) IC, (long long) N, (long long) OC, (long long) k->ne[3], (long long) b->ne[3], (long long) node->ne[3]);
    }
    for (int64_t n = 0; n < N; n++) {
        for (int64_t oc = 0; oc < OC; oc++) {
            for (int64_t oz = 0; oz < node->ne[2]; oz++) {
                for (int64_t oy = 0; oy < node->ne[1]; oy++) {
                    for (int64_t ox = 0; ox < node->ne[0]; ox++) {
                        double acc = 0.0;
                        for (int64_t ic = 0; ic < IC; ic++) {
                            for (int64_t kz = 0; kz < k->ne[2]; kz++) {
                                const int64_t z = oz*s[2] + kz*d[2] - p[2];
                                if (z < 0 || z >= b->ne[2]) {
                                    continue;
                                }
                                for (int64_t ky = 0; ky < k->ne[1]; ky++) {
                                    const int64_t y = oy*s[1] + ky*d[1] - p[1];
                                    if (y < 0 || y >= b->ne[1]) {
                                        continue;
                                    }
                                    for (int64_t kx = 0; kx < k->ne[0]; kx++) {
                                        const int64_t x = ox*s[0] + kx*d[0] - p[0];
                                        if (x < 0 || x >= b->ne[0]) {
                                            continue;
                                        }
                                        acc += ggml_ref_get(k, kx, ky, kz, oc*IC + ic) * ggml_ref_get(b, x, y, z, n*IC + ic);
                                    }
                                }
                            }
                        }
                        out[ggml_ref_idx(node, ox, oy, oz, n*OC + oc)] = acc;
                    }
                }
            }
        }
    }
    return true;
}

// CONV_2D_DW: kernel [KW, KH, 1, C], data [W, H, C, N] -> [OW, OH, C, N] (the result's own
// strides, e.g. channel-adjacent); i32[0..5] = s0, s1, p0, p1, d0, d1.
// result(ox, oy, c, n) = sum_{ky, kx} kernel(kx, ky, 0, c) * data(ox*s0 + kx*d0 - p0, oy*s1 + ky*d1 - p1, c, n).
static bool ref_conv_2d_dw(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * k = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    const int64_t s0 = ggml_ref_param_i32(node, 0), s1 = ggml_ref_param_i32(node, 1);
    const int64_t p0 = ggml_ref_param_i32(node, 2), p1 = ggml_ref_param_i32(node, 3);
    const int64_t d0 = ggml_ref_param_i32(node, 4), d1 = ggml_ref_param_i32(node, 5);
    if (k->ne[2] != 1 || k->ne[3] != b->ne[2] || node->ne[2] != b->ne[2] || node->ne[3] != b->ne[3]) {
        return ggml_ref_fail(err, err_size, "CONV_2D_DW: kernel [%lld, %lld, %lld, %lld] and data [%lld, %lld, %lld, %lld] do not fit",
                (long long) k->ne[0], (long long) k->ne[1], (long long) k->ne[2], (long long) k->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3]);
    }
    for (int64_t n = 0; n < node->ne[3]; n++) {
        for (int64_t c = 0; c < node->ne[2]; c++) {
            for (int64_t oy = 0; oy < node->ne[1]; oy++) {
                for (int64_t ox = 0; ox < node->ne[0]; ox++) {
                    double acc = 0.0;
                    for (int64_t ky = 0; ky < k->ne[1]; ky++) {
                        const int64_t y = oy*s1 + ky*d1 - p1;
                        if (y < 0 || y >= b->ne[1]) {
                            continue;
                        }
                        for (int64_t kx = 0; kx < k->ne[0]; kx++) {
                            const int64_t x = ox*s0 + kx*d0 - p0;
                            if (x < 0 || x >= b->ne[0]) {
                                continue;
                            }
                            acc += ggml_ref_get(k, kx, ky, 0, c) * ggml_ref_get(b, x, y, c, n);
                        }
                    }
                    out[ggml_ref_idx(node, ox, oy, c, n)] = ggml_ref_round_to_type(node->type, acc);
                }
            }
        }
    }
    return true;
}

// CONV_TRANSPOSE_1D: kernel [K, OC, IC], data [L, IC] -> [(L - 1)*s0 + K, OC]; i32[0] = s0.
// result(t, oc) = sum over (i, k) with i*s0 + k = t, and ic, of data(i, ic) * kernel(k, oc, ic).
// CONV_TRANSPOSE_2D: kernel [KW, KH, OC, IC], data [W, H, IC, N] -> [OW, OH, OC, N]; i32[0] = s:
// result(tx, ty, oc, n) = sum over x*s + kx = tx, y*s + ky = ty, ic of data(x, y, ic, n) * kernel(kx, ky, oc, ic).
static bool ref_conv_transpose(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * k = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    const bool is_1d = node->op == GGML_OP_CONV_TRANSPOSE_1D;
    const int64_t s  = ggml_ref_param_i32(node, 0);
    const int64_t KW = k->ne[0], KH = is_1d ? 1 : k->ne[1];
    const int64_t OC = is_1d ? k->ne[1] : k->ne[2];
    const int64_t IC = is_1d ? k->ne[2] : k->ne[3];
    const int64_t W  = b->ne[0], H = is_1d ? 1 : b->ne[1];
    const int64_t N  = is_1d ? 1 : b->ne[3];
    const int64_t OW = node->ne[0], OH = is_1d ? 1 : node->ne[1];
    if (s < 1 || (is_1d ? b->ne[1] : b->ne[2]) != IC || OW != (W - 1)*s + KW || OH != (H - 1)*s + KH ||
        (is_1d ? node->ne[1] : node->ne[2]) != OC || (!is_1d && node->ne[3] != N)) {
        return ggml_ref_fail(err, err_size, "%s: kernel [%lld, %lld, %lld, %lld], data [%lld, %lld, %lld, %lld] and stride %lld do not fit the result",
                ggml_op_name(node->op), (long long) k->ne[0], (long long) k->ne[1], (long long) k->ne[2], (long long) k->ne[3],
                (long long) b->ne[0], (long long) b->ne[1], (long long) b->ne[2], (long long) b->ne[3], (long long) s);
    }
    const int64_t n_out = ggml_nelements(node);
    for (int64_t i = 0; i < n_out; i++) {
        out[i] = 0.0;
    }
    for (int64_t n = 0; n < N; n++) {
        for (int64_t oc = 0; oc < OC; oc++) {
            for (int64_t y = 0; y < H; y++) {
                for (int64_t x = 0; x < W; x++) {
                    for (int64_t ky = 0; ky < KH; ky++) {
                        for (int64_t kx = 0; kx < KW; kx++) {
                            double acc = 0.0;
                            for (int64_t ic = 0; ic < IC; ic++) {
                                acc += is_1d ? ggml_ref_get(b, x, ic, 0, 0) * ggml_ref_get(k, kx, oc, ic, 0)
                                             : ggml_ref_get(b, x, y, ic, n) * ggml_ref_get(k, kx, ky, oc, ic);
                            }
                            const int64_t o = is_1d ? ggml_ref_idx(node, x*s + kx, oc, 0, 0)
                                                    : ggml_ref_idx(node, x*s + kx, y*s + ky, oc, n);
                            out[o] += acc;
                        }
                    }
                }
            }
        }
    }
    return true;
}

bool ggml_ref_op_conv(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    switch (node->op) {
        case GGML_OP_IM2COL:  return ref_im2col(node, out, err, err_size);
        case GGML_OP_CONV_2D: return ref_conv_2d(node, out, err, err_size);
        case GGML_OP_IM2COL_3D:  return ref_im2col_3d(node, out, err, err_size);
        case GGML_OP_CONV_3D:    return ref_conv_3d(node, out, err, err_size);
        case GGML_OP_CONV_2D_DW: return ref_conv_2d_dw(node, out, err, err_size);
        case GGML_OP_CONV_TRANSPOSE_1D:
        case GGML_OP_CONV_TRANSPOSE_2D: return ref_conv_transpose(node, out, err, err_size);
        default:              return ref_pool_2d(node, out, err, err_size);
    }
}
