// Reference: issue 22's "shape2" group.
//   UPSCALE      i32[0] = mode | flags. Result index i of dim d maps to the source coordinate
//                c = (i + o)/sf - o, o = 0.5 and sf = ne/ne_a (ALIGN_CORNERS: o = 0 and, in dims 0
//                and 1 when both sizes exceed 1, sf = (ne - 1)/(ne_a - 1)).
//                NEAREST (every dim, and dims 2, 3 of every mode): a[trunc(i/sf)] with sf and the
//                division in float, as the family computes the pick (so that ties round alike).
//                BILINEAR: c clamped to [0, ne_a - 1], linear between floor(c) and the next.
//                BICUBIC: Keys' cubic convolution (a = -0.75) over the 4 taps around c, tap
//                indices clamped to the borders.
//                BILINEAR | ANTIALIAS: centre y = (i + o)/sf, support s = max(1, 1/sf), weight of
//                source pixel j: max(0, 1 - |j + o - y|/s), over the family's window
//                [trunc(y - s + o), trunc(y + s + o)) within the source; weighted mean (0 if none).
//   WIN_PART     i32[0..2] = npx, npy, w; out[c, i1, i2, py*npx + px] = a[c, px*w + i1, py*w + i2, 0]
//                (0 outside a)
//   WIN_UNPART   i32[0] = w; out[c, x, y, 0] = a[c, x % w, y % w, (y / w)*ceil(ne1/w) + x / w]
//   GET_REL_POS  out[c, k, q] = a[c, (ne1 - 1 - k) + q] rounded to F16
//   ADD_REL_POS  out[kw + K*kh, q1 + Q1*q2, b] = a[same] + pw[kw, q1, q2, b] + ph[kh, q1, q2, b]
//   COL2IM_1D    i32[0..2] = s0, OC, p0; a [K*OC, T_in] scattered: a[c*K + k, j] adds to
//                out[j*s0 + k - p0, c] when that lies in [0, T_out) (exact sums, not rounded)
//   IM2COL_BACK  i32[0..6] as IM2COL; the adjoint of IM2COL: a (the gradient of im2col's result)
//                [IC*KH*KW, OW, OH, N] (1-d: [IC*KW, OW, N]); element ((ic*KH + ky)*KW + kx, ox, oy, n)
//                adds to out[ox*s0 - p0 + kx*d0, oy*s1 - p1 + ky*d1, ic, n] when inside; KW, KH from
//                the kernel src[1]
//   FLASH_ATTN_BACK  i32[0] = masked; q [D, N, H, B], k [D, M, Hkv, B], v [M, D, Hkv, B], d [D, N, H, B];
//                per query i of head h (kv head h % Hkv): P = softmax_j(k_j . q_i / sqrt(D)) over the
//                keys j <= M - N + i when masked, all M otherwise; dP_j = v_j . d_i,
//                dS_j = P_j (dP_j - sum P dP) / sqrt(D); grad q_i += sum_j dS_j k_j,
//                grad k_j += dS_j q_i, grad v_j += P_j d_i. The result: grad q, grad k, grad v
//                flat, each at the next multiple of GGML_MEM_ALIGN bytes, zeros between

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>
#include <stdlib.h>

static int64_t ref_clampi(int64_t i, int64_t n) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

struct ref_upscale {
    int mode;
    bool antialias;
    bool align;
    double sf[4];    // exact scale factors (continuous modes)
    float sf_f[4];   // the float ones of the nearest pick
    double o;
};

static struct ref_upscale ref_upscale_geom(const struct ggml_tensor * node) {
    const struct ggml_tensor * a = node->src[0];
    const uint32_t mode = (uint32_t) ggml_ref_param_i32(node, 0);
    struct ref_upscale g;
    g.mode = (int) (mode & 0xFF);
    g.antialias = (mode & GGML_SCALE_FLAG_ANTIALIAS) != 0;
    g.align = (mode & GGML_SCALE_FLAG_ALIGN_CORNERS) != 0;
    g.o = g.align ? 0.0 : 0.5;
    for (int d = 0; d < 4; d++) {
        g.sf[d] = (double) node->ne[d] / (double) a->ne[d];
        g.sf_f[d] = (float) node->ne[d] / (float) a->ne[d];
        if (g.align && d < 2 && node->ne[d] > 1 && a->ne[d] > 1) {
            g.sf[d] = (double) (node->ne[d] - 1) / (double) (a->ne[d] - 1);
            g.sf_f[d] = (float) (node->ne[d] - 1) / (float) (a->ne[d] - 1);
        }
    }
    return g;
}

static int64_t ref_nearest(const struct ref_upscale * g, int d, int64_t i, int64_t n) {
    const float q = (float) i / g->sf_f[d];
    return ref_clampi((int64_t) q, n);
}

static double ref_keys(double x) {
    const double A = -0.75;
    x = fabs(x);
    if (x <= 1.0) {
        return ((A + 2.0)*x - (A + 3.0))*x*x + 1.0;
    }
    if (x < 2.0) {
        return A*x*x*x - 5.0*A*x*x + 8.0*A*x - 4.0*A;
    }
    return 0.0;
}

// the family's antialias window of centre y, support s, in a dim of n pixels
static void ref_aa_window(double y, double s, double o, int64_t n, int64_t * lo, int64_t * hi) {
    *lo = (int64_t) (y - s + o);
    *hi = (int64_t) (y + s + o);
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi > n ? n : *hi;
}

static double ref_upscale_at(const struct ref_upscale * g, const struct ggml_tensor * a,
        int64_t i0, int64_t i1, int64_t j2, int64_t j3) {
    const int64_t n0 = a->ne[0], n1 = a->ne[1];
    if (g->mode == GGML_SCALE_MODE_NEAREST) {
        return ggml_ref_get(a, ref_nearest(g, 0, i0, n0), ref_nearest(g, 1, i1, n1), j2, j3);
    }
    if (g->mode == GGML_SCALE_MODE_BILINEAR && g->antialias) {
        const double x = (i0 + g->o) / g->sf[0], y = (i1 + g->o) / g->sf[1];
        const double s0 = fmax(1.0, 1.0 / g->sf[0]), s1 = fmax(1.0, 1.0 / g->sf[1]);
        int64_t x_lo, x_hi, y_lo, y_hi;
        ref_aa_window(x, s0, g->o, n0, &x_lo, &x_hi);
        ref_aa_window(y, s1, g->o, n1, &y_lo, &y_hi);
        double sum = 0.0, wsum = 0.0;
        for (int64_t sy = y_lo; sy < y_hi; sy++) {
            for (int64_t sx = x_lo; sx < x_hi; sx++) {
                const double w = fmax(0.0, 1.0 - fabs(sx + g->o - x) / s0) * fmax(0.0, 1.0 - fabs(sy + g->o - y) / s1);
                sum += w * ggml_ref_get(a, sx, sy, j2, j3);
                wsum += w;
            }
        }
        return wsum > 0.0 ? sum / wsum : 0.0;
    }
    const double x = (i0 + g->o) / g->sf[0] - g->o, y = (i1 + g->o) / g->sf[1] - g->o;
    if (g->mode == GGML_SCALE_MODE_BILINEAR) {
        const double xc = fmin(fmax(x, 0.0), (double) (n0 - 1)), yc = fmin(fmax(y, 0.0), (double) (n1 - 1));
        const int64_t x0 = (int64_t) floor(xc), y0 = (int64_t) floor(yc);
        const int64_t x1 = ref_clampi(x0 + 1, n0), y1 = ref_clampi(y0 + 1, n1);
        const double tx = xc - x0, ty = yc - y0;
        return (1 - ty)*((1 - tx)*ggml_ref_get(a, x0, y0, j2, j3) + tx*ggml_ref_get(a, x1, y0, j2, j3)) +
               ty*((1 - tx)*ggml_ref_get(a, x0, y1, j2, j3) + tx*ggml_ref_get(a, x1, y1, j2, j3));
    }
    // bicubic
    const int64_t xb = (int64_t) floor(x), yb = (int64_t) floor(y);
    double acc = 0.0;
    for (int64_t ty = yb - 1; ty <= yb + 2; ty++) {
        for (int64_t tx = xb - 1; tx <= xb + 2; tx++) {
            acc += ref_keys(x - tx) * ref_keys(y - ty) * ggml_ref_get(a, ref_clampi(tx, n0), ref_clampi(ty, n1), j2, j3);
        }
    }
    return acc;
}

static bool ref_upscale(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const uint32_t mode = (uint32_t) ggml_ref_param_i32(node, 0);
    if ((mode & 0xFF) >= GGML_SCALE_MODE_COUNT) {
        return ggml_ref_fail(err, err_size, "UPSCALE: invalid mode %u", (unsigned) (mode & 0xFF));
    }
    for (int d = 0; d < 4; d++) {
        if (a->ne[d] <= 0) {
            return ggml_ref_fail(err, err_size, "UPSCALE: empty source dimension %d", d);
        }
    }
    const struct ref_upscale g = ref_upscale_geom(node);
    const int64_t * ne = node->ne;
    for (int64_t i3 = 0; i3 < ne[3]; i3++) {
        const int64_t j3 = ref_nearest(&g, 3, i3, a->ne[3]);
        for (int64_t i2 = 0; i2 < ne[2]; i2++) {
            const int64_t j2 = ref_nearest(&g, 2, i2, a->ne[2]);
            for (int64_t i1 = 0; i1 < ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < ne[0]; i0++) {
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = ref_upscale_at(&g, a, i0, i1, j2, j3);
                }
            }
        }
    }
    return true;
}

static bool ref_win(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const int64_t * ne = node->ne;
    const bool part = node->op == GGML_OP_WIN_PART;
    const int64_t w = ggml_ref_param_i32(node, part ? 2 : 0);
    if (w <= 0) {
        return ggml_ref_fail(err, err_size, "%s: window size %lld", ggml_op_name(node->op), (long long) w);
    }
    const int64_t npx = part ? ggml_ref_param_i32(node, 0) : (ne[1] + w - 1) / w;
    for (int64_t i3 = 0; i3 < ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < ne[0]; i0++) {
                    double v;
                    if (part) {
                        const int64_t x = (i3 % npx)*w + i1, y = (i3 / npx)*w + i2;
                        v = x < a->ne[1] && y < a->ne[2] ? ggml_ref_get(a, i0, x, y, 0) : 0.0;
                    } else {
                        const int64_t win = (i2 / w)*npx + i1 / w;
                        if (win >= a->ne[3]) {
                            return ggml_ref_fail(err, err_size, "WIN_UNPART: window %lld missing", (long long) win);
                        }
                        v = ggml_ref_get(a, i0, i1 % w, i2 % w, win);
                    }
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = v;
                }
            }
        }
    }
    return true;
}

static bool ref_get_rel_pos(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const int64_t * ne = node->ne;
    if (a->ne[1] != 2*ne[1] - 1 || ne[1] != ne[2]) {
        return ggml_ref_fail(err, err_size, "GET_REL_POS: source rows %lld for %lld positions",
                (long long) a->ne[1], (long long) ne[1]);
    }
    for (int64_t i2 = 0; i2 < ne[2]; i2++) {
        for (int64_t i1 = 0; i1 < ne[1]; i1++) {
            for (int64_t i0 = 0; i0 < ne[0]; i0++) {
                const double v = ggml_ref_get(a, i0, ne[1] - 1 - i1 + i2, 0, 0);
                out[ggml_ref_idx(node, i0, i1, i2, 0)] = ggml_ref_round_to_type(node->type, v);
            }
        }
    }
    return true;
}

static bool ref_add_rel_pos(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 1, err, err_size) || !ggml_ref_need_src(node, 2, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0], * pw = node->src[1], * ph = node->src[2];
    const int64_t k = pw->ne[0];
    if (a->ne[0] != k*k || a->ne[1] != pw->ne[1]*pw->ne[2] || a->ne[2] != pw->ne[3] || !ggml_ref_same_shape(pw, ph)) {
        return ggml_ref_fail(err, err_size, "ADD_REL_POS: inconsistent shapes");
    }
    for (int64_t b = 0; b < a->ne[2]; b++) {
        for (int64_t r = 0; r < a->ne[1]; r++) {
            const int64_t q1 = r % pw->ne[1], q2 = r / pw->ne[1];
            for (int64_t kh = 0; kh < k; kh++) {
                for (int64_t kw = 0; kw < k; kw++) {
                    out[ggml_ref_idx(node, kw + k*kh, r, b, 0)] = ggml_ref_get(a, kw + k*kh, r, b, 0) +
                            ggml_ref_get(pw, kw, q1, q2, b) + ggml_ref_get(ph, kh, q1, q2, b);
                }
            }
        }
    }
    return true;
}

static bool ref_col2im_1d(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0];
    const int64_t s0 = ggml_ref_param_i32(node, 0), oc = ggml_ref_param_i32(node, 1), p0 = ggml_ref_param_i32(node, 2);
    if (s0 <= 0 || oc <= 0 || a->ne[0] % oc != 0 || node->ne[1] != oc) {
        return ggml_ref_fail(err, err_size, "COL2IM_1D: bad parameters s0 = %lld, oc = %lld", (long long) s0, (long long) oc);
    }
    const int64_t k = a->ne[0] / oc;
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = 0.0;
    }
    for (int64_t j = 0; j < a->ne[1]; j++) {
        for (int64_t c = 0; c < oc; c++) {
            for (int64_t kk = 0; kk < k; kk++) {
                const int64_t t = j*s0 + kk - p0;
                if (t >= 0 && t < node->ne[0]) {
                    out[ggml_ref_idx(node, t, c, 0, 0)] += ggml_ref_get(a, c*k + kk, j, 0, 0);
                }
            }
        }
    }
    return true;
}

static bool ref_im2col_back(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0], * b = node->src[1];
    if (b == NULL) {
        return ggml_ref_fail(err, err_size, "IM2COL_BACK: no kernel (src[1])");
    }
    const int64_t s0 = ggml_ref_param_i32(node, 0), s1 = ggml_ref_param_i32(node, 1);
    const int64_t p0 = ggml_ref_param_i32(node, 2), p1 = ggml_ref_param_i32(node, 3);
    const int64_t d0 = ggml_ref_param_i32(node, 4), d1 = ggml_ref_param_i32(node, 5);
    const bool is_2d = ggml_ref_param_i32(node, 6) == 1;
    const int64_t kw = b->ne[0], kh = is_2d ? b->ne[1] : 1;
    const int64_t ic_n = is_2d ? node->ne[2] : node->ne[1];
    const int64_t oh = is_2d ? a->ne[2] : 1, n_b = is_2d ? a->ne[3] : a->ne[2];
    if (a->ne[0] != ic_n*kh*kw) {
        return ggml_ref_fail(err, err_size, "IM2COL_BACK: gradient rows %lld != IC*KH*KW", (long long) a->ne[0]);
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = 0.0;
    }
    for (int64_t n = 0; n < n_b; n++) {
        for (int64_t oy = 0; oy < oh; oy++) {
            for (int64_t ox = 0; ox < a->ne[1]; ox++) {
                for (int64_t ic = 0; ic < ic_n; ic++) {
                    for (int64_t ky = 0; ky < kh; ky++) {
                        for (int64_t kx = 0; kx < kw; kx++) {
                            const int64_t x = ox*s0 - p0 + kx*d0;
                            const int64_t y = is_2d ? oy*s1 - p1 + ky*d1 : 0;
                            const int64_t col = (ic*kh + ky)*kw + kx;
                            if (x < 0 || x >= node->ne[0] || y < 0 || (is_2d && y >= node->ne[1])) {
                                continue;
                            }
                            const double g = is_2d ? ggml_ref_get(a, col, ox, oy, n) : ggml_ref_get(a, col, ox, n, 0);
                            out[is_2d ? ggml_ref_idx(node, x, y, ic, n) : ggml_ref_idx(node, x, ic, n, 0)] += g;
                        }
                    }
                }
            }
        }
    }
    return true;
}

static size_t ref_pad_floats(int64_t n) {
    return GGML_PAD((size_t) n*sizeof(float), GGML_MEM_ALIGN) / sizeof(float);
}

static bool ref_flash_attn_back(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    for (int i = 1; i < 4; i++) {
        if (!ggml_ref_need_src(node, i, err, err_size)) {
            return false;
        }
    }
    const struct ggml_tensor * q = node->src[0], * k = node->src[1], * v = node->src[2], * d = node->src[3];
    const int64_t dim = q->ne[0], n = q->ne[1], h = q->ne[2], nb = q->ne[3], m = k->ne[1], hkv = k->ne[2];
    if (hkv <= 0 || h % hkv != 0 || m < n) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_BACK: bad head counts or fewer keys than queries");
    }
    const size_t offs_k = ref_pad_floats(ggml_nelements(q)), offs_v = offs_k + ref_pad_floats(ggml_nelements(k));
    if ((int64_t) (offs_v + ref_pad_floats(ggml_nelements(v))) > ggml_ref_nel(node)) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_BACK: result too small");
    }
    for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
        out[i] = 0.0;
    }
    double * gq = out, * gk = out + offs_k, * gv = out + offs_v;
    const bool masked = ggml_ref_param_i32(node, 0) != 0;
    const double scale = 1.0 / sqrt((double) dim);
    double * p = malloc(2*(size_t) m*sizeof(double));
    if (p == NULL) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_BACK: out of memory");
    }
    double * dp = p + m;
    for (int64_t b = 0; b < nb; b++) {
        for (int64_t hq = 0; hq < h; hq++) {
            const int64_t hk = hq % hkv;
            for (int64_t i = 0; i < n; i++) {
                const int64_t n_vis = masked ? m - n + i + 1 : m;
                double mx = -INFINITY, sum = 0.0, pdp = 0.0;
                for (int64_t j = 0; j < n_vis; j++) {
                    double s = 0.0;
                    for (int64_t c = 0; c < dim; c++) {
                        s += ggml_ref_get(k, c, j, hk, b) * ggml_ref_get(q, c, i, hq, b);
                    }
                    p[j] = s*scale;
                    mx = fmax(mx, p[j]);
                }
                for (int64_t j = 0; j < n_vis; j++) {
                    p[j] = exp(p[j] - mx);
                    sum += p[j];
                }
                for (int64_t j = 0; j < n_vis; j++) {
                    p[j] /= sum;
                    dp[j] = 0.0;
                    for (int64_t c = 0; c < dim; c++) {
                        dp[j] += ggml_ref_get(v, j, c, hk, b) * ggml_ref_get(d, c, i, hq, b);
                    }
                    pdp += p[j]*dp[j];
                }
                for (int64_t j = 0; j < n_vis; j++) {
                    const double ds = p[j]*(dp[j] - pdp)*scale;
                    for (int64_t c = 0; c < dim; c++) {
                        gq[c + dim*(i + n*(hq + h*b))] += ds*ggml_ref_get(k, c, j, hk, b);
                        gk[c + dim*(j + m*(hk + hkv*b))] += ds*ggml_ref_get(q, c, i, hq, b);
                        gv[j + m*(c + dim*(hk + hkv*b))] += p[j]*ggml_ref_get(d, c, i, hq, b);
                    }
                }
            }
        }
    }
    free(p);
    return true;
}

bool ggml_ref_op_shape2(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    switch (node->op) {
        case GGML_OP_UPSCALE:     return ref_upscale(node, out, err, err_size);
        case GGML_OP_WIN_PART:
        case GGML_OP_WIN_UNPART:  return ref_win(node, out, err, err_size);
        case GGML_OP_GET_REL_POS: return ref_get_rel_pos(node, out, err, err_size);
        case GGML_OP_ADD_REL_POS: return ref_add_rel_pos(node, out, err, err_size);
        case GGML_OP_COL2IM_1D:   return ref_col2im_1d(node, out, err, err_size);
        case GGML_OP_IM2COL_BACK: return ref_im2col_back(node, out, err, err_size);
        case GGML_OP_FLASH_ATTN_BACK: return ref_flash_attn_back(node, out, err, err_size);
        default:
            return ggml_ref_fail(err, err_size, "op %s is not in the shape2 group", ggml_op_name(node->op));
    }
}
