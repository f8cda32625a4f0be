// Reference: SOFT_MAX with scale, optional mask (F32/F16, broadcast), ALiBi and sinks.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

// SOFT_MAX: src[0] = a, src[1] = mask or NULL, src[2] = sinks or NULL; f32[0] = scale,
// f32[1] = max_bias. Per row (i1, i2, i3) with head h = i2:
//   w_i = a_i*scale + slope(h)*mask(i, i1, i2 % m2, i3 % m3)
//   result_i = exp(w_i) / (sum_j exp(w_j) + exp(sink_h))   (the sink term only with sinks)
bool ggml_ref_op_softmax(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a     = node->src[0];
    const struct ggml_tensor * mask  = node->src[1];
    const struct ggml_tensor * sinks = node->src[2];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "SOFT_MAX: result shape differs from source 0");
    }
    if (mask != NULL) {
        if (!ggml_ref_need_src(node, 1, err, err_size)) {
            return false;
        }
        if (mask->ne[0] != a->ne[0] || mask->ne[1] < a->ne[1] || mask->ne[2] == 0 || mask->ne[3] == 0 ||
            a->ne[2] % mask->ne[2] != 0 || a->ne[3] % mask->ne[3] != 0) {
            return ggml_ref_fail(err, err_size, "SOFT_MAX: mask [%lld, %lld, %lld, %lld] does not fit a [%lld, %lld, %lld, %lld]",
                    (long long) mask->ne[0], (long long) mask->ne[1], (long long) mask->ne[2], (long long) mask->ne[3],
                    (long long) a->ne[0], (long long) a->ne[1], (long long) a->ne[2], (long long) a->ne[3]);
        }
    }
    if (sinks != NULL) {
        if (!ggml_ref_need_src(node, 2, err, err_size)) {
            return false;
        }
        if (ggml_ref_nel(sinks) < a->ne[2]) {
            return ggml_ref_fail(err, err_size, "SOFT_MAX: %lld sinks for %lld heads",
                    (long long) ggml_ref_nel(sinks), (long long) a->ne[2]);
        }
    }
    const double scale    = ggml_ref_param_f32(node, 0);
    const float  max_bias = ggml_ref_param_f32(node, 1);
    const int64_t n = a->ne[0];

    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            const double slope = ggml_ref_alibi_slope(max_bias, a->ne[2], i2);
            const double sink  = sinks != NULL ? ggml_ref_get_flat(sinks, i2) : -INFINITY;
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                double * w = out + ggml_ref_idx(node, 0, i1, i2, i3);
                double m = sink;
                for (int64_t i0 = 0; i0 < n; i0++) {
                    double v = ggml_ref_get(a, i0, i1, i2, i3)*scale;
                    if (mask != NULL) {
                        v += slope*ggml_ref_get(mask, i0, i1, i2 % mask->ne[2], i3 % mask->ne[3]);
                    }
                    w[i0] = v;
                    m = v > m ? v : m;
                }
                double s = sinks != NULL ? exp(sink - m) : 0.0;
                for (int64_t i0 = 0; i0 < n; i0++) {
                    w[i0] = exp(w[i0] - m);
                    s += w[i0];
                }
                for (int64_t i0 = 0; i0 < n; i0++) {
                    w[i0] /= s;
                }
            }
        }
    }
    return true;
}
