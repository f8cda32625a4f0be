// Reference: FLASH_ATTN_EXT (scale, mask, ALiBi, logit softcap, GQA broadcast, sinks).

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>
#include <stdlib.h>

// src: q [DK, N, H, B], k [DK, KV, Hk, Bk], v [DV, KV, Hv, Bv], mask [KV, >= N, m2, m3] or NULL,
// sinks [H] or NULL; f32[0] = scale, f32[1] = max_bias, f32[2] = logit_softcap.
// For query row (i1, head h, i3), with kv heads h / (H/Hk) (and likewise for v and dim 3):
//   s_j = softcap*tanh(scale*(q . k_j)/softcap)   (scale*(q . k_j) when softcap == 0)
//         + slope(h)*mask(j, i1, h % m2, i3 % m3)
//   result(:, h, i1, i3) = sum_j e^{s_j} v_j / (sum_j e^{s_j} + e^{sink_h}); 0 when every s_j is
//   -inf and there is no sink.
bool ggml_ref_op_attn(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    for (int i = 0; i < 3; i++) {
        // k and v may be a quantized cache, read dequantized
        if (!(i == 0 ? ggml_ref_need_src(node, i, err, err_size) : ggml_ref_need_src_q(node, i, err, err_size))) {
            return false;
        }
    }
    const struct ggml_tensor * q     = node->src[0];
    const struct ggml_tensor * k     = node->src[1];
    const struct ggml_tensor * v     = node->src[2];
    const struct ggml_tensor * mask  = node->src[3];
    const struct ggml_tensor * sinks = node->src[4];
    if (mask != NULL && !ggml_ref_need_src(node, 3, err, err_size)) {
        return false;
    }
    if (sinks != NULL && !ggml_ref_need_src(node, 4, err, err_size)) {
        return false;
    }

    const int64_t DK = q->ne[0], N = q->ne[1], H = q->ne[2], B = q->ne[3];
    const int64_t DV = v->ne[0], KV = k->ne[1];
    if (k->ne[0] != DK || v->ne[1] != KV || k->ne[2] == 0 || v->ne[2] == 0 || k->ne[3] == 0 || v->ne[3] == 0 ||
        H % k->ne[2] != 0 || H % v->ne[2] != 0 || B % k->ne[3] != 0 || B % v->ne[3] != 0 ||
        node->ne[0] != DV || node->ne[1] != H || node->ne[2] != N || node->ne[3] != B) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_EXT: inconsistent shapes (q [%lld, %lld, %lld, %lld], "
                "k [%lld, %lld, %lld, %lld], v [%lld, %lld, %lld, %lld])",
                (long long) q->ne[0], (long long) q->ne[1], (long long) q->ne[2], (long long) q->ne[3],
                (long long) k->ne[0], (long long) k->ne[1], (long long) k->ne[2], (long long) k->ne[3],
                (long long) v->ne[0], (long long) v->ne[1], (long long) v->ne[2], (long long) v->ne[3]);
    }
    if (mask != NULL && (mask->ne[0] != KV || mask->ne[1] < N || mask->ne[2] == 0 || mask->ne[3] == 0 ||
                         H % mask->ne[2] != 0 || B % mask->ne[3] != 0)) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_EXT: mask [%lld, %lld, %lld, %lld] does not fit %lld kv, %lld rows",
                (long long) mask->ne[0], (long long) mask->ne[1], (long long) mask->ne[2], (long long) mask->ne[3],
                (long long) KV, (long long) N);
    }
    if (sinks != NULL && ggml_ref_nel(sinks) < H) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_EXT: %lld sinks for %lld heads", (long long) ggml_ref_nel(sinks), (long long) H);
    }

    const double scale    = ggml_ref_param_f32(node, 0);
    const float  max_bias = ggml_ref_param_f32(node, 1);
    const double softcap  = ggml_ref_param_f32(node, 2);
    const int64_t rk2 = H / k->ne[2], rk3 = B / k->ne[3];
    const int64_t rv2 = H / v->ne[2], rv3 = B / v->ne[3];

    // plain malloc: the reference must keep working while tests inject allocation faults
    double * s = malloc((size_t) (KV > 0 ? KV : 1) * sizeof(double));
    if (s == NULL) {
        return ggml_ref_fail(err, err_size, "FLASH_ATTN_EXT: out of memory");
    }
    for (int64_t i3 = 0; i3 < B; i3++) {
        for (int64_t h = 0; h < H; h++) {
            const double slope = ggml_ref_alibi_slope(max_bias, H, h);
            const double sink  = sinks != NULL ? ggml_ref_get_flat(sinks, h) : -INFINITY;
            for (int64_t i1 = 0; i1 < N; i1++) {
                double m = sink;
                for (int64_t j = 0; j < KV; j++) {
                    double dot = 0.0;
                    for (int64_t d = 0; d < DK; d++) {
                        dot += ggml_ref_get(q, d, i1, h, i3) * ggml_ref_get_q(k, d, j, h / rk2, i3 / rk3);
                    }
                    double x = dot*scale;
                    if (softcap != 0.0) {
                        x = softcap*tanh(x/softcap);
                    }
                    if (mask != NULL) {
                        x += slope*ggml_ref_get(mask, j, i1, h % mask->ne[2], i3 % mask->ne[3]);
                    }
                    s[j] = x;
                    m = x > m ? x : m;
                }
                double * o = out + ggml_ref_idx(node, 0, h, i1, i3);
                for (int64_t d = 0; d < DV; d++) {
                    o[d] = 0.0;
                }
                if (m == -INFINITY) {
                    continue; // nothing to attend to
                }
                double sum = sinks != NULL ? exp(sink - m) : 0.0;
                for (int64_t j = 0; j < KV; j++) {
                    if (s[j] == -INFINITY) {
                        continue; // masked out
                    }
                    const double w = exp(s[j] - m);
                    sum += w;
                    for (int64_t d = 0; d < DV; d++) {
                        o[d] += w*ggml_ref_get_q(v, d, j, h / rv2, i3 / rv3);
                    }
                }
                for (int64_t d = 0; d < DV; d++) {
                    o[d] /= sum;
                }
            }
        }
    }
    free(s);
    return true;
}
