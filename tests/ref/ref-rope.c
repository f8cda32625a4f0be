// Reference: ROPE (NORMAL, NEOX, MROPE, IMROPE, VISION; freq factors; YaRN).

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

#define REF_PI 3.14159265358979323846

// YaRN correction dimension for n_rot rotations over the original context.
static double ref_corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * log((double) n_ctx_orig / (n_rot * 2.0 * REF_PI)) / (2.0 * log(base));
}

// 1 for pairs below `low`, 0 above `high`, linear in between (pair index p).
static double ref_yarn_ramp(double low, double high, int64_t p) {
    const double span = high - low > 0.001 ? high - low : 0.001;
    double y = ((double) p - low) / span;
    y = y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
    return 1.0 - y;
}

struct ref_rope_params {
    int    n_dims, mode, n_ctx_orig;
    double freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;
    int    sections[4];
    double theta_scale;
    double corr[2];
    double sin_sign; // -1 for ROPE_BACK (the transposed rotation)
};

// cos and sin (scaled by the magnitude factor) of angle theta_extrap for pair p
static void ref_rope_yarn(const struct ref_rope_params * rp, double theta_extrap, int64_t p, double * c, double * s) {
    const double theta_interp = rp->freq_scale*theta_extrap;
    double theta  = theta_interp;
    double mscale = rp->attn_factor;
    if (rp->ext_factor != 0.0) {
        const double mix = ref_yarn_ramp(rp->corr[0], rp->corr[1], p)*rp->ext_factor;
        theta   = theta_interp*(1.0 - mix) + theta_extrap*mix;
        mscale *= 1.0 + 0.1*log(1.0/rp->freq_scale);
    }
    *c = cos(theta)*mscale;
    *s = sin(theta)*mscale*rp->sin_sign;
}

// The angle before YaRN and freq factors for pair p, given the positions of the row.
// Multi-section modes pick one of the four positions (t, h, w, e) by the pair's sector; VISION
// restarts the frequency exponent at the start of each section.
static double ref_rope_theta(const struct ref_rope_params * rp, const double pos[4], int64_t p) {
    const bool multi = rp->mode == GGML_ROPE_TYPE_MROPE || rp->mode == GGML_ROPE_TYPE_IMROPE || rp->mode == GGML_ROPE_TYPE_VISION;
    if (!multi) {
        return pos[0]*pow(rp->theta_scale, (double) p);
    }
    const int * sec = rp->sections;
    const int64_t sect_dims = sec[0] + sec[1] + sec[2] + sec[3];
    const int64_t sector = p % sect_dims;
    int which = 0; // 0 t, 1 h, 2 w, 3 e
    if (rp->mode == GGML_ROPE_TYPE_IMROPE) {
        if (sector % 3 == 1 && sector < 3*sec[1]) {
            which = 1;
        } else if (sector % 3 == 2 && sector < 3*sec[2]) {
            which = 2;
        } else if (sector % 3 == 0 && sector < 3*sec[0]) {
            which = 0;
        } else {
            which = 3;
        }
    } else {
        if (sector >= sec[0] && sector < sec[0] + sec[1]) {
            which = 1;
        } else if (sector >= sec[0] + sec[1] && sector < sec[0] + sec[1] + sec[2]) {
            which = 2;
        } else if (sector >= sec[0] + sec[1] + sec[2]) {
            which = 3;
        }
    }
    int64_t exponent = p;
    if (rp->mode == GGML_ROPE_TYPE_VISION) {
        // each position's exponent counts from the last pair where its section started
        // (the family's independent-sections rule: t restarts at sector 0, h at s0, w at s0+s1,
        // e at s0+s1+s2; one restart per pair, checked in that order)
        const int64_t starts[4] = { 0, sec[0], sec[0] + sec[1], sec[0] + sec[1] + sec[2] };
        int64_t last = -1;
        for (int64_t q = p; q >= 0; q--) {
            const int64_t sq = q % sect_dims;
            int restarted = -1;
            for (int k = 0; k < 4; k++) {
                if (sq == starts[k]) {
                    restarted = k;
                    break;
                }
            }
            if (restarted == which) {
                last = q;
                break;
            }
        }
        exponent = last >= 0 ? p - last : p;
    }
    return pos[which]*pow(rp->theta_scale, (double) exponent);
}

bool ggml_ref_op_rope(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size) || !ggml_ref_need_src(node, 1, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a  = node->src[0];
    const struct ggml_tensor * b  = node->src[1];
    const struct ggml_tensor * ff = node->src[2];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "ROPE: result shape differs from source 0");
    }
    if (ff != NULL && !ggml_ref_need_src(node, 2, err, err_size)) {
        return false;
    }

    struct ref_rope_params rp;
    rp.sin_sign    = node->op == GGML_OP_ROPE_BACK ? -1.0 : 1.0;
    rp.n_dims      = ggml_ref_param_i32(node, 1);
    rp.mode        = ggml_ref_param_i32(node, 2);
    rp.n_ctx_orig  = ggml_ref_param_i32(node, 4);
    rp.freq_base   = ggml_ref_param_f32(node, 5);
    rp.freq_scale  = ggml_ref_param_f32(node, 6);
    rp.ext_factor  = ggml_ref_param_f32(node, 7);
    rp.attn_factor = ggml_ref_param_f32(node, 8);
    rp.beta_fast   = ggml_ref_param_f32(node, 9);
    rp.beta_slow   = ggml_ref_param_f32(node, 10);
    for (int k = 0; k < 4; k++) {
        rp.sections[k] = ggml_ref_param_i32(node, 11 + k);
    }

    const int64_t ne0 = a->ne[0];
    const int mode = rp.mode;
    const int n_offs = ggml_ref_param_i32(node, 15); // ggml_rope_set_offset: rotated dims start here
    if (n_offs < 0 || (int64_t) n_offs + rp.n_dims > ne0 || (n_offs != 0 && mode == GGML_ROPE_TYPE_VISION)) {
        return ggml_ref_fail(err, err_size, "ROPE: offset %d with n_dims %d for rows of %lld", n_offs, rp.n_dims, (long long) ne0);
    }
    const bool multi = mode == GGML_ROPE_TYPE_MROPE || mode == GGML_ROPE_TYPE_IMROPE || mode == GGML_ROPE_TYPE_VISION;
    if (mode != GGML_ROPE_TYPE_NORMAL && mode != GGML_ROPE_TYPE_NEOX && !multi) {
        return ggml_ref_fail(err, err_size, "ROPE: mode %d is not covered", mode);
    }
    if (rp.n_dims <= 0 || rp.n_dims % 2 != 0 || rp.n_dims > ne0) {
        return ggml_ref_fail(err, err_size, "ROPE: n_dims %d for rows of %lld", rp.n_dims, (long long) ne0);
    }
    if (mode == GGML_ROPE_TYPE_VISION && 2*(int64_t) rp.n_dims != ne0) {
        return ggml_ref_fail(err, err_size, "ROPE (vision): n_dims %d must be half of ne0 %lld", rp.n_dims, (long long) ne0);
    }
    if (multi) {
        for (int k = 0; k < 4; k++) {
            if (rp.sections[k] < 0) {
                return ggml_ref_fail(err, err_size, "ROPE: negative section %d", rp.sections[k]);
            }
        }
        if (rp.sections[0] + rp.sections[1] + rp.sections[2] + rp.sections[3] <= 0) {
            return ggml_ref_fail(err, err_size, "ROPE: multi-section mode with empty sections");
        }
    }
    if (ggml_ref_nel(b) < (multi ? 4 : 1)*a->ne[2]) {
        return ggml_ref_fail(err, err_size, "ROPE: %lld positions for %lld rows (dim 2)",
                (long long) ggml_ref_nel(b), (long long) a->ne[2]);
    }

    // rotated pairs per row and the distance between the two members of a pair
    const int64_t n_pairs = mode == GGML_ROPE_TYPE_VISION ? ne0/2 : rp.n_dims/2;
    if (ff != NULL && ggml_ref_nel(ff) < n_pairs) {
        return ggml_ref_fail(err, err_size, "ROPE: %lld freq factors for %lld rotated pairs",
                (long long) ggml_ref_nel(ff), (long long) n_pairs);
    }

    rp.theta_scale = pow(rp.freq_base, -2.0/rp.n_dims);
    {
        const double start = floor(ref_corr_dim(rp.n_dims, rp.n_ctx_orig, rp.beta_fast, rp.freq_base));
        const double end   = ceil (ref_corr_dim(rp.n_dims, rp.n_ctx_orig, rp.beta_slow, rp.freq_base));
        rp.corr[0] = start > 0.0 ? start : 0.0;
        rp.corr[1] = end < rp.n_dims - 1 ? end : rp.n_dims - 1;
    }

    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            double pos[4] = { ggml_ref_get_flat(b, i2), 0.0, 0.0, 0.0 };
            if (multi) {
                for (int k = 1; k < 4; k++) {
                    pos[k] = ggml_ref_get_flat(b, i2 + k*a->ne[2]);
                }
            }
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                // dims past the rotated ones are copied (VISION rotates the whole row)
                for (int64_t i0 = 0; i0 < ne0; i0++) {
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = ggml_ref_get(a, i0, i1, i2, i3);
                }
                for (int64_t p = 0; p < n_pairs; p++) {
                    int64_t j0, j1;
                    if (mode == GGML_ROPE_TYPE_NORMAL) {
                        j0 = 2*p;       j1 = 2*p + 1;
                    } else if (mode == GGML_ROPE_TYPE_VISION) {
                        j0 = p;         j1 = p + rp.n_dims;
                    } else {
                        j0 = p;         j1 = p + rp.n_dims/2;
                    }
                    j0 += n_offs;
                    j1 += n_offs;
                    const double f = ff != NULL ? ggml_ref_get_flat(ff, p) : 1.0;
                    double c, s;
                    ref_rope_yarn(&rp, ref_rope_theta(&rp, pos, p)/f, p, &c, &s);
                    const double x0 = ggml_ref_get(a, j0, i1, i2, i3);
                    const double x1 = ggml_ref_get(a, j1, i1, i2, i3);
                    out[ggml_ref_idx(node, j0, i1, i2, i3)] = x0*c - x1*s;
                    out[ggml_ref_idx(node, j1, i1, i2, i3)] = x0*s + x1*c;
                }
            }
        }
    }
    return true;
}
