// NORM, RMS_NORM, L2_NORM (one work-group per row), GROUP_NORM (one work-group per group and
// i3), SOFT_MAX (one work-group per row).

#define N_NORM 0
#define N_RMS  1
#define N_L2   2

__kernel void k_norm(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int op, float eps,
                     __local float * buf) {
    long r = get_group_id(0);
    const long i1 = r % ad.ne[1]; r /= ad.ne[1];
    const long i2 = r % ad.ne[2];
    const long i3 = r / ad.ne[2];
    const long n = ad.ne[0];
    const int L = get_local_size(0);
    const __global char * row = TPTR(a, ad, 0, i1, i2, i3);
    __global char * out = TPTR(dst, dd, 0, i1, i2, i3);

    float shift = 0.0f;
    float scale;
    if (op == N_NORM) {
        float s = 0.0f;
        for (long i0 = get_local_id(0); i0 < n; i0 += L) {
            s += load_f(row + i0*ad.nb[0], ad.type);
        }
        shift = wg_sum(s, buf) / (float) n;
        // second pass on the centered values: no cancellation
        float v = 0.0f;
        for (long i0 = get_local_id(0); i0 < n; i0 += L) {
            const float x = load_f(row + i0*ad.nb[0], ad.type) - shift;
            v += x*x;
        }
        scale = rsqrt(wg_sum(v, buf) / (float) n + eps);
    } else {
        float s2 = 0.0f;
        for (long i0 = get_local_id(0); i0 < n; i0 += L) {
            const float x = load_f(row + i0*ad.nb[0], ad.type);
            s2 += x*x;
        }
        s2 = wg_sum(s2, buf);
        scale = op == N_RMS ? rsqrt(s2 / (float) n + eps) : 1.0f / fmax(sqrt(s2), eps);
    }
    // every item reads its elements before writing them (the result may be a in place)
    for (long i0 = get_local_id(0); i0 < n; i0 += L) {
        const float x = load_f(row + i0*ad.nb[0], ad.type);
        store_f(out + i0*dd.nb[0], dd.type, (x - shift)*scale);
    }
}

// channels (dim 2) in groups of per_group; group g of i3 normalized over ne0*ne1*channels elements
__kernel void k_group_norm(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int per_group, float eps,
                           __local float * buf) {
    const long g = get_group_id(0);
    const long n_groups = (ad.ne[2] + per_group - 1) / per_group;
    const long i3 = g / n_groups;
    const long c0 = (g % n_groups)*per_group;
    const long c1 = min(c0 + per_group, ad.ne[2]);
    const long plane = ad.ne[0]*ad.ne[1];
    const long n = plane*(c1 - c0);
    const int L = get_local_size(0);
    if (n <= 0) {
        return; // uniform across the group: no barrier is skipped by a part of it
    }
    float s = 0.0f;
    for (long i = get_local_id(0); i < n; i += L) {
        const long c = c0 + i / plane, j = i % plane;
        s += load_f(TPTR(a, ad, j % ad.ne[0], j / ad.ne[0], c, i3), ad.type);
    }
    const float mean = wg_sum(s, buf) / (float) n;
    float v = 0.0f;
    for (long i = get_local_id(0); i < n; i += L) {
        const long c = c0 + i / plane, j = i % plane;
        const float x = load_f(TPTR(a, ad, j % ad.ne[0], j / ad.ne[0], c, i3), ad.type) - mean;
        v += x*x;
    }
    const float scale = rsqrt(wg_sum(v, buf) / (float) n + eps);
    for (long i = get_local_id(0); i < n; i += L) {
        const long c = c0 + i / plane, j = i % plane;
        const long i0 = j % ad.ne[0], i1 = j / ad.ne[0];
        const float x = load_f(TPTR(a, ad, i0, i1, c, i3), ad.type);
        store_f(TPTR(dst, dd, i0, i1, c, i3), dd.type, (x - mean)*scale);
    }
}

// SOFT_MAX of row (i1, i2, i3): w = a*scale + slope(i2)*mask(i0, i1, i2 % m2, i3 % m3);
// result = exp(w - max) / (sum exp(w - max) + exp(sink - max)), the sink term only with sinks
__kernel void k_soft_max(__global const char * a, tdesc ad, __global const char * m, tdesc md,
                         __global const char * s, tdesc sd, __global char * dst, tdesc dd,
                         float scale, float max_bias, float m0, float m1, int n_head_log2,
                         int has_mask, int has_sinks, __local float * buf) {
    long r = get_group_id(0);
    const long i1 = r % ad.ne[1]; r /= ad.ne[1];
    const long i2 = r % ad.ne[2];
    const long i3 = r / ad.ne[2];
    const long n = ad.ne[0];
    const int L = get_local_size(0);

    const float slope = alibi_slope(i2, max_bias, m0, m1, n_head_log2);
    const __global char * row = TPTR(a, ad, 0, i1, i2, i3);
    const __global char * mrow = has_mask ? TPTR(m, md, 0, i1, i2 % md.ne[2], i3 % md.ne[3]) : m;
    __global char * out = TPTR(dst, dd, 0, i1, i2, i3);
    const float sink = has_sinks ? load_f(TPTR(s, sd, i2, 0, 0, 0), sd.type) : -INFINITY;

#define SM_W(i0) (load_f(row + (i0)*ad.nb[0], ad.type)*scale + (has_mask ? slope*load_f(mrow + (i0)*md.nb[0], md.type) : 0.0f))

    float mx = -INFINITY;
    for (long i0 = get_local_id(0); i0 < n; i0 += L) {
        mx = fmax(mx, SM_W(i0));
    }
    mx = fmax(wg_max(mx, buf), sink);
    float sum = 0.0f;
    for (long i0 = get_local_id(0); i0 < n; i0 += L) {
        sum += exp(SM_W(i0) - mx);
    }
    sum = wg_sum(sum, buf);
    if (has_sinks) {
        sum += exp(sink - mx);
    }
    const float inv = 1.0f / sum;
    for (long i0 = get_local_id(0); i0 < n; i0 += L) {
        store_f(out + i0*dd.nb[0], dd.type, exp(SM_W(i0) - mx)*inv);
    }
#undef SM_W
}
