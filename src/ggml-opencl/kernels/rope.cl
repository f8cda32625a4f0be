// ROPE in every mode of the family: NORMAL (pairs 2p, 2p+1), NEOX (p, p + n_dims/2), MROPE and
// IMROPE (NEOX pairs, the position taken per section), VISION (p, p + n_dims, the whole row,
// the frequency exponent restarting per section); frequency factors; YaRN.
// One work-item per rotated pair (it reads both members before writing: in place is safe) or per
// element past the rotated ones (copied).

#define MODE_NORMAL 0
#define MODE_NEOX   2
#define MODE_MROPE  8
#define MODE_VISION 24
#define MODE_IMROPE 40

// 1 below low, 0 above high, linear in between
float yarn_ramp(float low, float high, long p) {
    const float y = ((float) p - low) / fmax(0.001f, high - low);
    return 1.0f - clamp(y, 0.0f, 1.0f);
}

// cos and sin of pair p's angle at `position`, scaled by the attention factor: the base angle
// position * theta_scale^e (e: p, or p's index in its section for the multi-section modes),
// divided by the frequency factor, then YaRN's mix of the interpolated and extrapolated angles
void rope_cos_sin(float position, long e, long p, float log2_theta_scale, float freq_scale, float ext_factor,
                  float attn_factor, float corr0, float corr1, const __global char * ff, tdesc fd, int has_ff,
                  float * c, float * s) {
    float theta_extrap = position*exp2((float) e*log2_theta_scale);
    if (has_ff) {
        theta_extrap /= load_f(TPTR(ff, fd, p, 0, 0, 0), fd.type);
    }
    const float theta_interp = freq_scale*theta_extrap;
    float theta = theta_interp;
    float mscale = attn_factor;
    if (ext_factor != 0.0f) {
        const float mix = yarn_ramp(corr0, corr1, p)*ext_factor;
        theta = theta_interp*(1.0f - mix) + theta_extrap*mix;
        mscale *= 1.0f + 0.1f*log(1.0f/freq_scale);
    }
    *c = cos(theta)*mscale;
    *s = sin(theta)*mscale;
}

__kernel void k_rope(__global const char * a, tdesc ad, __global const char * pos, tdesc pd,
                     __global const char * ff, tdesc fd, __global char * dst, tdesc dd,
                     int n_dims, int mode, float freq_scale, float ext_factor, float attn_factor,
                     float corr0, float corr1, float log2_theta_scale,
                     int sec0, int sec1, int sec2, int sec3, int has_ff) {
    const long ne0 = ad.ne[0];
    const long n_pairs = mode == MODE_VISION ? ne0/2 : n_dims/2;
    const long slots = ne0 - n_pairs; // the pairs, then the elements after the rotated ones
    const long n_rows = ad.ne[1]*ad.ne[2]*ad.ne[3];
    const long g = get_global_id(0);
    if (g >= slots*n_rows) {
        return;
    }
    const long slot = g % slots;
    long r = g / slots;
    const long i1 = r % ad.ne[1]; r /= ad.ne[1];
    const long i2 = r % ad.ne[2];
    const long i3 = r / ad.ne[2];

    if (slot >= n_pairs) {
        const long i0 = 2*n_pairs + (slot - n_pairs);
        copy_elem(TPTR(dst, dd, i0, i1, i2, i3), dd.type, TPTR(a, ad, i0, i1, i2, i3), ad.type);
        return;
    }
    const long p = slot;
    const bool multi = mode == MODE_MROPE || mode == MODE_IMROPE || mode == MODE_VISION;

    // which position (t, h, w, e) and which exponent this pair uses
    int which = 0;
    long exponent = p;
    if (multi) {
        const long sect_dims = sec0 + sec1 + sec2 + sec3;
        const long sector = p % sect_dims;
        if (mode == MODE_IMROPE) {
            if (sector % 3 == 1 && sector < 3*sec1) {
                which = 1;
            } else if (sector % 3 == 2 && sector < 3*sec2) {
                which = 2;
            } else if (sector % 3 == 0 && sector < 3*sec0) {
                which = 0;
            } else {
                which = 3;
            }
        } else if (sector >= sec0 && sector < sec0 + sec1) {
            which = 1;
        } else if (sector >= sec0 + sec1 && sector < sec0 + sec1 + sec2) {
            which = 2;
        } else if (sector >= sec0 + sec1 + sec2) {
            which = 3;
        }
        if (mode == MODE_VISION) {
            // the exponent counts from the last pair where this position's section started
            const long starts[4] = { 0, sec0, sec0 + sec1, sec0 + sec1 + sec2 };
            long last = -1;
            for (long q = p; q >= 0 && last < 0; q--) {
                const long sq = q % sect_dims;
                int restarted = -1;
                for (int k = 0; k < 4 && restarted < 0; k++) {
                    if (sq == starts[k]) {
                        restarted = k;
                    }
                }
                if (restarted == which) {
                    last = q;
                }
            }
            exponent = last >= 0 ? p - last : p;
        }
    }
    const float position = (float) load_idx(TPTR(pos, pd, i2 + which*ad.ne[2], 0, 0, 0), pd.type);
    float c, s;
    rope_cos_sin(position, exponent, p, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1,
                 ff, fd, has_ff, &c, &s);

    long j0, j1;
    if (mode == MODE_NORMAL) {
        j0 = 2*p; j1 = 2*p + 1;
    } else if (mode == MODE_VISION) {
        j0 = p;   j1 = p + n_dims;
    } else {
        j0 = p;   j1 = p + n_dims/2;
    }
    const float x0 = load_f(TPTR(a, ad, j0, i1, i2, i3), ad.type);
    const float x1 = load_f(TPTR(a, ad, j1, i1, i2, i3), ad.type);
    store_f(TPTR(dst, dd, j0, i1, i2, i3), dd.type, x0*c - x1*s);
    store_f(TPTR(dst, dd, j1, i1, i2, i3), dd.type, x0*s + x1*c);
}

// NORMAL and NEOX modes (the host checks): the same result as k_rope, with one work-item per
// (slot, i2 + ne2*i3) looping over dim 1 (the heads), which share the position: the angle, its
// sine and cosine are computed once per token instead of once per head. A 2-D launch over
// (slots, ne2*ne3), so no divisions per element.
__kernel void k_rope_heads(__global const char * a, tdesc ad, __global const char * pos, tdesc pd,
                           __global const char * ff, tdesc fd, __global char * dst, tdesc dd,
                           int n_dims, int mode, float freq_scale, float ext_factor, float attn_factor,
                           float corr0, float corr1, float log2_theta_scale,
                           int sec0, int sec1, int sec2, int sec3, int has_ff) {
    const long n_pairs = n_dims/2;
    const long slot = get_global_id(0);
    const long z = get_global_id(1);
    const long i2 = z % ad.ne[2];
    const long i3 = z / ad.ne[2];
    if (slot >= ad.ne[0] - n_pairs) {
        return;
    }
    if (slot >= n_pairs) {
        const long i0 = 2*n_pairs + (slot - n_pairs);
        for (long i1 = 0; i1 < ad.ne[1]; i1++) {
            copy_elem(TPTR(dst, dd, i0, i1, i2, i3), dd.type, TPTR(a, ad, i0, i1, i2, i3), ad.type);
        }
        return;
    }
    const long p = slot;
    const float position = (float) load_idx(TPTR(pos, pd, i2, 0, 0, 0), pd.type);
    float c, s;
    rope_cos_sin(position, p, p, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1,
                 ff, fd, has_ff, &c, &s);
    const long j0 = mode == MODE_NORMAL ? 2*p : p;
    const long j1 = mode == MODE_NORMAL ? 2*p + 1 : p + n_pairs;
    const __global char * pa0 = TPTR(a, ad, j0, 0, i2, i3);
    const __global char * pa1 = TPTR(a, ad, j1, 0, i2, i3);
    __global char * pd0 = TPTR(dst, dd, j0, 0, i2, i3);
    __global char * pd1 = TPTR(dst, dd, j1, 0, i2, i3);
    if (ad.type == T_F32 && dd.type == T_F32) {
        for (long i1 = 0; i1 < ad.ne[1]; i1++) {
            const float x0 = *(const __global float *) (pa0 + i1*ad.nb[1]);
            const float x1 = *(const __global float *) (pa1 + i1*ad.nb[1]);
            *(__global float *) (pd0 + i1*dd.nb[1]) = x0*c - x1*s;
            *(__global float *) (pd1 + i1*dd.nb[1]) = x0*s + x1*c;
        }
        return;
    }
    for (long i1 = 0; i1 < ad.ne[1]; i1++) {
        const float x0 = load_f(pa0 + i1*ad.nb[1], ad.type);
        const float x1 = load_f(pa1 + i1*ad.nb[1], ad.type);
        store_f(pd0 + i1*dd.nb[1], dd.type, x0*c - x1*s);
        store_f(pd1 + i1*dd.nb[1], dd.type, x0*s + x1*c);
    }
}

// NORMAL and NEOX modes with F32 rows of unit element stride and n_dims == ne0 a multiple of 32 (the
// host checks): a work-item per (16 pairs, i2 + ne2*i3) computes the 16 angles, sines and cosines
// once as vectors and rotates those pairs of every head (dim 1) with vector loads; NORMAL's
// interleaved pairs are split and joined again with shuffles.
__kernel void k_rope_vec(__global const char * a, tdesc ad, __global const char * pos, tdesc pd,
                         __global const char * ff, tdesc fd, __global char * dst, tdesc dd,
                         int n_dims, int mode, float freq_scale, float ext_factor, float attn_factor,
                         float corr0, float corr1, float log2_theta_scale,
                         int sec0, int sec1, int sec2, int sec3, int has_ff) {
    const long n_pairs = n_dims/2;
    const long p0 = get_global_id(0) * 16;
    const long z = get_global_id(1);
    const long i2 = z % ad.ne[2];
    const long i3 = z / ad.ne[2];
    const float16 p = (float16) (0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f,
                                 8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f) + (float) p0;
    const float position = (float) load_idx(TPTR(pos, pd, i2, 0, 0, 0), pd.type);
    float16 theta_extrap = position*exp2(p*log2_theta_scale);
    if (has_ff) {
        float f[16];
        for (int k = 0; k < 16; k++) {
            f[k] = load_f(TPTR(ff, fd, p0 + k, 0, 0, 0), fd.type);
        }
        theta_extrap /= vload16(0, f);
    }
    const float16 theta_interp = freq_scale*theta_extrap;
    float16 theta = theta_interp;
    float mscale = attn_factor;
    if (ext_factor != 0.0f) {
        const float16 y = (p - corr0) / fmax(0.001f, corr1 - corr0);
        const float16 mix = (1.0f - clamp(y, 0.0f, 1.0f))*ext_factor;
        theta = theta_interp*(1.0f - mix) + theta_extrap*mix;
        mscale *= 1.0f + 0.1f*log(1.0f/freq_scale);
    }
    const float16 c = cos(theta)*mscale;
    const float16 s = sin(theta)*mscale;
    const __global char * ra = TPTR(a, ad, 0, 0, i2, i3);
    __global char * rd = TPTR(dst, dd, 0, 0, i2, i3);
    if (mode == MODE_NEOX) {
        for (long i1 = 0; i1 < ad.ne[1]; i1++) {
            const __global float * x = (const __global float *) (ra + i1*ad.nb[1]);
            __global float * y = (__global float *) (rd + i1*dd.nb[1]);
            const float16 x0 = vload16(0, x + p0);
            const float16 x1 = vload16(0, x + p0 + n_pairs);
            vstore16(x0*c - x1*s, 0, y + p0);
            vstore16(x0*s + x1*c, 0, y + p0 + n_pairs);
        }
        return;
    }
    const uint16 even = (uint16) (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const uint16 lo = (uint16) (0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    for (long i1 = 0; i1 < ad.ne[1]; i1++) {
        const __global float * x = (const __global float *) (ra + i1*ad.nb[1]) + 2*p0;
        __global float * y = (__global float *) (rd + i1*dd.nb[1]) + 2*p0;
        const float16 u = vload16(0, x);
        const float16 v = vload16(1, x);
        const float16 x0 = shuffle2(u, v, even);
        const float16 x1 = shuffle2(u, v, even + 1);
        const float16 r0 = x0*c - x1*s;
        const float16 r1 = x0*s + x1*c;
        vstore16(shuffle2(r0, r1, lo), 0, y);
        vstore16(shuffle2(r0, r1, lo + 8), 1, y);
    }
}

// NORMAL and NEOX modes on GPUs (!cpu_kernels; the host checks the mode): a work-item per (slot,
// i1, i2 + ne2*i3), a 3-D launch with dim 0 over the slots rounded up to the work-group size, so
// consecutive work-items take consecutive pairs of one row (coalesced) and every pair of every
// head is a work-item: no loop over the heads or over 16-pair chunks (which left a generation
// step's few hundred pairs to two work-items). The angle is computed per head (cheap on a GPU).
// Slots past the pairs copy the elements after the rotated ones.
__kernel void k_rope_pairs(__global const char * a, tdesc ad, __global const char * pos, tdesc pd,
                           __global const char * ff, tdesc fd, __global char * dst, tdesc dd,
                           int n_dims, int mode, float freq_scale, float ext_factor, float attn_factor,
                           float corr0, float corr1, float log2_theta_scale,
                           int sec0, int sec1, int sec2, int sec3, int has_ff) {
    const long n_pairs = n_dims/2;
    const long slot = get_global_id(0);
    const long i1 = get_global_id(1);
    const long z = get_global_id(2);
    if (slot >= ad.ne[0] - n_pairs) {
        return;
    }
    const long i2 = ad.ne[3] == 1 ? z : z % ad.ne[2];
    const long i3 = ad.ne[3] == 1 ? 0 : z / ad.ne[2];
    if (slot >= n_pairs) {
        const long i0 = 2*n_pairs + (slot - n_pairs);
        copy_elem(TPTR(dst, dd, i0, i1, i2, i3), dd.type, TPTR(a, ad, i0, i1, i2, i3), ad.type);
        return;
    }
    const long p = slot;
    const float position = (float) load_idx(TPTR(pos, pd, i2, 0, 0, 0), pd.type);
    float c, s;
    rope_cos_sin(position, p, p, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1,
                 ff, fd, has_ff, &c, &s);
    const long j0 = mode == MODE_NORMAL ? 2*p : p;
    const long j1 = mode == MODE_NORMAL ? 2*p + 1 : p + n_pairs;
    const __global char * pa0 = TPTR(a, ad, j0, i1, i2, i3);
    const __global char * pa1 = TPTR(a, ad, j1, i1, i2, i3);
    __global char * pd0 = TPTR(dst, dd, j0, i1, i2, i3);
    __global char * pd1 = TPTR(dst, dd, j1, i1, i2, i3);
    if (ad.type == T_F32 && dd.type == T_F32) {
        const float x0 = *(const __global float *) pa0;
        const float x1 = *(const __global float *) pa1;
        *(__global float *) pd0 = x0*c - x1*s;
        *(__global float *) pd1 = x0*s + x1*c;
        return;
    }
    const float x0 = load_f(pa0, ad.type);
    const float x1 = load_f(pa1, ad.type);
    store_f(pd0, dd.type, x0*c - x1*s);
    store_f(pd1, dd.type, x0*s + x1*c);
}
