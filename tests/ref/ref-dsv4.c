// Reference: issue 22's "dsv4" group, everything in double.
//   LIGHTNING_INDEXER  q [D, H, T, S], k [D, 1, KV, S] (any readable type), w [H, T, 1, S],
//                      mask F16 [KV, T, 1, S']: out[j, t, 0, s] = sum_h max(q[:, h, t, s].k[:, 0, j, s], 0)
//                      * w[h, t, 0, s] + mask[j, t, 0, s mod S']
//   DSV4_HC_COMB       f32[0] = eps, i32[1] = n_iter; out [hc, hc, T]: c[d, s] = softmax over d of
//                      (mixes[2hc + d + hc*s, t]*scale[2] + base[2hc + d + hc*s]) + eps; then divide
//                      each c[d, :] by eps + its sum; then n_iter - 1 times: each c[:, s] by eps + its
//                      sum, each c[d, :] by eps + its sum
//   DSV4_HC_PRE        out[i, t] = sum_h x[i, h, t]*w[h, t]
//   DSV4_HC_POST       out[i, d, t] = x[i, t]*post[d, t] + sum_s residual[i, s, t]*comb[d, s, t]

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>
#include <stdlib.h>

static bool ref_indexer(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * q = node->src[0], * k = node->src[1], * w = node->src[2], * m = node->src[3];
    const int64_t D = q->ne[0], H = q->ne[1], T = q->ne[2], S = q->ne[3], KV = k->ne[2];
    if (m->ne[3] <= 0 || ggml_ref_nel(node) != KV*T*S) {
        return ggml_ref_fail(err, err_size, "LIGHTNING_INDEXER: inconsistent shapes");
    }
    double * kr = malloc((size_t) (D > 0 ? D : 1)*sizeof(double));
    if (kr == NULL) {
        return ggml_ref_fail(err, err_size, "LIGHTNING_INDEXER: out of memory");
    }
    for (int64_t s = 0; s < S; s++) {
        for (int64_t j = 0; j < KV; j++) {
            for (int64_t i = 0; i < D; i++) {
                kr[i] = ggml_ref_get_q(k, i, 0, j, s);
            }
            for (int64_t t = 0; t < T; t++) {
                double score = 0.0;
                for (int64_t h = 0; h < H; h++) {
                    double qk = 0.0;
                    for (int64_t i = 0; i < D; i++) {
                        qk += ggml_ref_get(q, i, h, t, s)*kr[i];
                    }
                    score += (qk > 0.0 ? qk : 0.0)*ggml_ref_get(w, h, t, 0, s);
                }
                out[ggml_ref_idx(node, j, t, 0, s)] = score + ggml_ref_get(m, j, t, 0, s % m->ne[3]);
            }
        }
    }
    free(kr);
    return true;
}

// divides c[d + hc*s] by eps plus the sum over the other index: over_dst sums each column s over d
static void ref_hc_normalize(double * c, int64_t hc, double eps, bool over_dst) {
    for (int64_t a = 0; a < hc; a++) {
        double sum = eps;
        for (int64_t b = 0; b < hc; b++) {
            sum += over_dst ? c[b + hc*a] : c[a + hc*b];
        }
        for (int64_t b = 0; b < hc; b++) {
            if (over_dst) {
                c[b + hc*a] /= sum;
            } else {
                c[a + hc*b] /= sum;
            }
        }
    }
}

static bool ref_hc_comb(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * mixes = node->src[0], * scale = node->src[1], * base = node->src[2];
    const int64_t hc = node->ne[0], off = 2*hc;
    const double eps = ggml_ref_param_f32(node, 0);
    const int32_t n_iter = ggml_ref_param_i32(node, 1);
    double * c = malloc((size_t) (hc > 0 ? hc*hc : 1)*sizeof(double));
    if (c == NULL) {
        return ggml_ref_fail(err, err_size, "DSV4_HC_COMB: out of memory");
    }
    const double sc = ggml_ref_get(scale, 2, 0, 0, 0);
    for (int64_t t = 0; t < node->ne[2]; t++) {
        for (int64_t s = 0; s < hc; s++) {
            double mx = -INFINITY, sum = 0.0;
            for (int64_t d = 0; d < hc; d++) {
                const int64_t i = d + hc*s;
                c[i] = ggml_ref_get(mixes, off + i, t, 0, 0)*sc + ggml_ref_get(base, off + i, 0, 0, 0);
                mx = fmax(mx, c[i]);
            }
            for (int64_t d = 0; d < hc; d++) {
                c[d + hc*s] = exp(c[d + hc*s] - mx);
                sum += c[d + hc*s];
            }
            for (int64_t d = 0; d < hc; d++) {
                c[d + hc*s] = c[d + hc*s]/sum + eps;
            }
        }
        ref_hc_normalize(c, hc, eps, false);
        for (int32_t it = 1; it < n_iter; it++) {
            ref_hc_normalize(c, hc, eps, true);
            ref_hc_normalize(c, hc, eps, false);
        }
        for (int64_t s = 0; s < hc; s++) {
            for (int64_t d = 0; d < hc; d++) {
                out[ggml_ref_idx(node, d, s, t, 0)] = c[d + hc*s];
            }
        }
    }
    free(c);
    return true;
}

bool ggml_ref_op_dsv4(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const int n_src = node->op == GGML_OP_DSV4_HC_PRE ? 2 : node->op == GGML_OP_DSV4_HC_COMB ? 3 : 4;
    for (int i = 0; i < n_src; i++) {
        // the indexer's K may be quantized
        const bool ok = node->op == GGML_OP_LIGHTNING_INDEXER && i == 1 ? ggml_ref_need_src_q(node, i, err, err_size)
                                                                         : ggml_ref_need_src(node, i, err, err_size);
        if (!ok) {
            return false;
        }
    }
    const struct ggml_tensor * a = node->src[0], * b = node->src[1], * c = node->src[2], * d = node->src[3];
    switch (node->op) {
        case GGML_OP_LIGHTNING_INDEXER:
            return ref_indexer(node, out, err, err_size);
        case GGML_OP_DSV4_HC_COMB:
            return ref_hc_comb(node, out, err, err_size);
        case GGML_OP_DSV4_HC_PRE:
            for (int64_t t = 0; t < node->ne[1]; t++) {
                for (int64_t i = 0; i < node->ne[0]; i++) {
                    double sum = 0.0;
                    for (int64_t h = 0; h < a->ne[1]; h++) {
                        sum += ggml_ref_get(a, i, h, t, 0)*ggml_ref_get(b, h, t, 0, 0);
                    }
                    out[ggml_ref_idx(node, i, t, 0, 0)] = sum;
                }
            }
            return true;
        case GGML_OP_DSV4_HC_POST:
            for (int64_t t = 0; t < node->ne[2]; t++) {
                for (int64_t dd = 0; dd < node->ne[1]; dd++) {
                    for (int64_t i = 0; i < node->ne[0]; i++) {
                        double sum = ggml_ref_get(a, i, t, 0, 0)*ggml_ref_get(c, dd, t, 0, 0);
                        for (int64_t s = 0; s < node->ne[1]; s++) {
                            sum += ggml_ref_get(b, i, s, t, 0)*ggml_ref_get(d, dd, s, t, 0);
                        }
                        out[ggml_ref_idx(node, i, dd, t, 0)] = sum;
                    }
                }
            }
            return true;
        default:
            return ggml_ref_fail(err, err_size, "op %s is not in the dsv4 group", ggml_op_name(node->op));
    }
}
