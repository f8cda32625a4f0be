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

// rope_cos_sin for the 16 pairs p0 .. p0 + 15 of NORMAL / NEOX as vectors (k_rope_vec and
// k_rope_kv_vec share it, so the fused kernel's angles are the separate kernel's)
void rope_cos_sin16(float position, long p0, float log2_theta_scale, float freq_scale, float ext_factor,
                    float attn_factor, float corr0, float corr1, const __global char * ff, tdesc fd, int has_ff,
                    float16 * c, float16 * s) {
    const float16 p = (float16) (0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f,
                                 8.0f, 9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f) + (float) p0;
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
    *c = cos(theta)*mscale;
    *s = sin(theta)*mscale;
}

// pairs p0 .. p0 + 15 of the F32 row x rotated by (c, s): y0 and y1 are the 16 values to store at
// the row's elements rope_at16(.., 0) and rope_at16(.., 1) (NEOX: the pairs' first and second
// members; NORMAL: the 32 interleaved values, split and joined again with shuffles)
void rope_rot16(const __global float * x, long p0, long n_pairs, int mode, const float16 * pc, const float16 * ps,
                float16 * y0, float16 * y1) {
    const float16 c = *pc, s = *ps;
    if (mode == MODE_NEOX) {
        const float16 x0 = vload16(0, x + p0);
        const float16 x1 = vload16(0, x + p0 + n_pairs);
        *y0 = x0*c - x1*s;
        *y1 = x0*s + x1*c;
        return;
    }
    const uint16 even = (uint16) (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const uint16 lo = (uint16) (0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const float16 u = vload16(0, x + 2*p0);
    const float16 v = vload16(1, x + 2*p0);
    const float16 x0 = shuffle2(u, v, even);
    const float16 x1 = shuffle2(u, v, even + 1);
    const float16 r0 = x0*c - x1*s;
    const float16 r1 = x0*s + x1*c;
    *y0 = shuffle2(r0, r1, lo);
    *y1 = shuffle2(r0, r1, lo + 8);
}

long rope_at16(long p0, long n_pairs, int mode, int second) {
    return mode == MODE_NEOX ? p0 + second*n_pairs : 2*p0 + 16*second;
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
    const float position = (float) load_idx(TPTR(pos, pd, i2, 0, 0, 0), pd.type);
    float16 c, s;
    rope_cos_sin16(position, p0, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1, ff, fd, has_ff, &c, &s);
    const __global char * ra = TPTR(a, ad, 0, 0, i2, i3);
    __global char * rd = TPTR(dst, dd, 0, 0, i2, i3);
    for (long i1 = 0; i1 < ad.ne[1]; i1++) {
        float16 y0, y1;
        rope_rot16((const __global float *) (ra + i1*ad.nb[1]), p0, n_pairs, mode, &c, &s, &y0, &y1);
        __global float * y = (__global float *) (rd + i1*dd.nb[1]);
        vstore16(y0, 0, y + rope_at16(p0, n_pairs, mode, 0));
        vstore16(y1, 0, y + rope_at16(p0, n_pairs, mode, 1));
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

// ---- ROPE(Q), ROPE(K) and the stores of K and V into their caches, one launch (ocl-fuse-rope-kv.c)
//
// The four nodes of a layer's attention input: Q and K roped (NORMAL or NEOX, every dim rotated,
// F32 rows of unit element stride, no frequency factors; the host checks), the roped K written
// straight into row idx[t] of the K cache (F32 or F16, rounded to nearest even as SET_ROWS) and
// V's row t copied into row idx[t] of the V cache; an index outside a cache writes nothing, as
// SET_ROWS. The angles and rotations are the separate kernels' (rope_cos_sin16 / rope_rot16 for
// k_rope_vec, rope_cos_sin for k_rope_pairs), so the results are theirs bit for bit.

void st16_f(__global char * p, int t, const float16 * v) {
    if (t == T_F16) {
        vstore_half16_rte(*v, 0, (__global half *) p);
    } else {
        vstore16(*v, 0, (__global float *) p);
    }
}

// CPU devices: a work-item per (16 pairs, token t, part z): z = 0 ropes Q's heads, z = 1 ropes
// K's heads into the cache, z = 2 copies the same 32 values of each head of V
__kernel void k_rope_kv_vec(__global const char * q, tdesc qd, __global char * qo, tdesc qod,
                            __global const char * k, tdesc kd, __global char * kc, tdesc kcd,
                            __global const char * v, tdesc vd, __global char * vc, tdesc vcd,
                            __global const char * pos, tdesc pd, __global const char * idx, tdesc id,
                            int n_dims, int mode, float freq_scale, float ext_factor, float attn_factor,
                            float corr0, float corr1, float log2_theta_scale) {
    const long n_pairs = n_dims/2;
    const long p0 = get_global_id(0) * 16;
    const long t = get_global_id(1);
    const int part = (int) get_global_id(2);
    const long hd = kd.ne[0];
    if (part == 0) {
        const float position = (float) load_idx(TPTR(pos, pd, t, 0, 0, 0), pd.type);
        float16 c, s;
        rope_cos_sin16(position, p0, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1, pos, pd, 0, &c, &s);
        for (long h = 0; h < qd.ne[1]; h++) {
            float16 y0, y1;
            rope_rot16((const __global float *) TPTR(q, qd, 0, h, t, 0), p0, n_pairs, mode, &c, &s, &y0, &y1);
            __global float * y = (__global float *) TPTR(qo, qod, 0, h, t, 0);
            vstore16(y0, 0, y + rope_at16(p0, n_pairs, mode, 0));
            vstore16(y1, 0, y + rope_at16(p0, n_pairs, mode, 1));
        }
        return;
    }
    const long row = load_idx(TPTR(idx, id, t, 0, 0, 0), id.type);
    if (part == 1) {
        if (row < 0 || row >= kcd.ne[1]) {
            return;
        }
        const float position = (float) load_idx(TPTR(pos, pd, t, 0, 0, 0), pd.type);
        float16 c, s;
        rope_cos_sin16(position, p0, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1, pos, pd, 0, &c, &s);
        for (long h = 0; h < kd.ne[1]; h++) {
            float16 y0, y1;
            rope_rot16((const __global float *) TPTR(k, kd, 0, h, t, 0), p0, n_pairs, mode, &c, &s, &y0, &y1);
            st16_f(TPTR(kc, kcd, h*hd + rope_at16(p0, n_pairs, mode, 0), row, 0, 0), kcd.type, &y0);
            st16_f(TPTR(kc, kcd, h*hd + rope_at16(p0, n_pairs, mode, 1), row, 0, 0), kcd.type, &y1);
        }
        return;
    }
    if (row < 0 || row >= vcd.ne[1]) {
        return;
    }
    for (long i0 = 2*p0; i0 < vd.ne[0]; i0 += hd) {
        const __global float * x = (const __global float *) TPTR(v, vd, i0, t, 0, 0);
        const float16 x0 = vload16(0, x), x1 = vload16(1, x);
        st16_f(TPTR(vc, vcd, i0, row, 0, 0), vcd.type, &x0);
        st16_f(TPTR(vc, vcd, i0 + 16, row, 0, 0), vcd.type, &x1);
    }
}

// GPUs: a work-item per (pair, head h, token t) as k_rope_pairs, the heads being Q's, then K's
// (roped into the cache), then V's (the pair's two values copied)
__kernel void k_rope_kv_pairs(__global const char * q, tdesc qd, __global char * qo, tdesc qod,
                              __global const char * k, tdesc kd, __global char * kc, tdesc kcd,
                              __global const char * v, tdesc vd, __global char * vc, tdesc vcd,
                              __global const char * pos, tdesc pd, __global const char * idx, tdesc id,
                              int n_dims, int mode, float freq_scale, float ext_factor, float attn_factor,
                              float corr0, float corr1, float log2_theta_scale) {
    const long n_pairs = n_dims/2;
    const long p = get_global_id(0);
    long h = get_global_id(1);
    const long t = get_global_id(2);
    if (p >= n_pairs) {
        return;
    }
    const long hd = kd.ne[0];
    const long j0 = mode == MODE_NORMAL ? 2*p : p;
    const long j1 = mode == MODE_NORMAL ? 2*p + 1 : p + n_pairs;
    const bool is_q = h < qd.ne[1];
    const bool is_k = !is_q && h < qd.ne[1] + kd.ne[1];
    const long row = is_q ? 0 : load_idx(TPTR(idx, id, t, 0, 0, 0), id.type);
    if (!is_q && !is_k) {
        h -= qd.ne[1] + kd.ne[1];
        if (row < 0 || row >= vcd.ne[1]) {
            return;
        }
        const __global float * x = (const __global float *) TPTR(v, vd, h*hd + 2*p, t, 0, 0);
        store_f(TPTR(vc, vcd, h*hd + 2*p, row, 0, 0), vcd.type, x[0]);
        store_f(TPTR(vc, vcd, h*hd + 2*p + 1, row, 0, 0), vcd.type, x[1]);
        return;
    }
    if (is_k && (row < 0 || row >= kcd.ne[1])) {
        return;
    }
    const float position = (float) load_idx(TPTR(pos, pd, t, 0, 0, 0), pd.type);
    float c, s;
    rope_cos_sin(position, p, p, log2_theta_scale, freq_scale, ext_factor, attn_factor, corr0, corr1, pos, pd, 0, &c, &s);
    if (is_q) {
        const float x0 = *(const __global float *) TPTR(q, qd, j0, h, t, 0);
        const float x1 = *(const __global float *) TPTR(q, qd, j1, h, t, 0);
        *(__global float *) TPTR(qo, qod, j0, h, t, 0) = x0*c - x1*s;
        *(__global float *) TPTR(qo, qod, j1, h, t, 0) = x0*s + x1*c;
        return;
    }
    h -= qd.ne[1];
    const float x0 = *(const __global float *) TPTR(k, kd, j0, h, t, 0);
    const float x1 = *(const __global float *) TPTR(k, kd, j1, h, t, 0);
    const float r0 = x0*c - x1*s;
    const float r1 = x0*s + x1*c;
    store_f(TPTR(kc, kcd, h*hd + j0, row, 0, 0), kcd.type, r0);
    store_f(TPTR(kc, kcd, h*hd + j1, row, 0, 0), kcd.type, r1);
}
