// Issue 22's small ops (ocl-op-misc2.c): CUMSUM, TRI, FILL, DIAG, TIMESTEP_EMBEDDING, UPSCALE.
// Every kernel reads and writes through the tensors' strides (views, permutations, padding).

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// x / y rounded once to float, as the host's float division. The nearest-neighbour picks of
// UPSCALE truncate such quotients, so a division that is off by an ulp (OpenCL 1.2 allows 2.5)
// could pick the neighbouring pixel. A float quotient computed in double and rounded to float
// is the correctly rounded one (double has more than 2*24 + 2 bits).
float div_rn(float x, float y) {
#if defined(cl_khr_fp64)
    return (float) ((double) x / (double) y);
#else
    return x / y;
#endif
}

// (i1, i2, i3) of row r of a tensor of shape ne (rows in row-major order)
void misc2_row(long r, const tdesc d, long * i1, long * i2, long * i3) {
    *i1 = r % d.ne[1]; r /= d.ne[1];
    *i2 = r % d.ne[2];
    *i3 = r / d.ne[2];
}

//
// CUMSUM: one work-group per row. The row is walked in tiles of get_local_size(0) chunks of
// `chunk` adjacent elements, one chunk per work-item: each item sums its chunk, the chunk sums
// are scanned in local memory, and each item writes its chunk's running sums offset by the sum
// of everything before it. The sum of the earlier tiles is carried with a compensation term so
// that long rows do not drift. chunk = 1 makes adjacent items read adjacent elements (GPUs);
// longer chunks spend fewer barriers per element (CPU devices run a work-group as a loop).
// F32 only (ocl-op-misc2.c): plain loads and stores, no type switch per element.
//
__kernel void k_cumsum(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int chunk,
                       __local float * buf) {
    const int lid = get_local_id(0);
    const int n = get_local_size(0);
    const long ne0 = dd.ne[0];
    long i1, i2, i3;
    misc2_row(get_group_id(0), dd, &i1, &i2, &i3);
    const __global char * arow = TPTR(a, ad, 0, i1, i2, i3);
    __global char * drow = TPTR(dst, dd, 0, i1, i2, i3);
    float carry = 0.0f, comp = 0.0f;
    for (long base = 0; base < ne0; base += (long) n*chunk) {
        const long c0 = min(base + (long) lid*chunk, ne0), c1 = min(c0 + chunk, ne0);
        float part = 0.0f;
        for (long i0 = c0; i0 < c1; i0++) {
            part += *(const __global float *) (arow + i0*ad.nb[0]);
        }
        buf[lid] = part;
        barrier(CLK_LOCAL_MEM_FENCE);
        // inclusive scan (Hillis-Steele): after the step of `off`, buf[k] sums the 2*off chunks up to k
        for (int off = 1; off < n; off *= 2) {
            const float t = lid >= off ? buf[lid - off] : 0.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
            buf[lid] += t;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        const float before = (carry - comp) + (lid > 0 ? buf[lid - 1] : 0.0f);
        float run = 0.0f;
        for (long i0 = c0; i0 < c1; i0++) {
            run += *(const __global float *) (arow + i0*ad.nb[0]);
            *(__global float *) (drow + i0*dd.nb[0]) = before + run;
        }
        // Kahan: carry + tile total, the lost low bits kept in comp
        const float y = buf[n - 1] - comp;
        const float t = carry + y;
        comp = (t - carry) - y;
        carry = t;
        barrier(CLK_LOCAL_MEM_FENCE); // everyone has read buf before the next tile overwrites it
    }
}

// CUMSUM on CPU devices, rows of unit stride: a work-item per row, 16 values at a time (their
// running sums by 4 shifted additions), the sum of the earlier blocks carried with a compensation
// term as in k_cumsum
__kernel void k_cumsum_rows(__global const char * a, tdesc ad, __global char * dst, tdesc dd) {
    long i1, i2, i3;
    misc2_row(get_global_id(0), dd, &i1, &i2, &i3);
    const __global float * x = (const __global float *) TPTR(a, ad, 0, i1, i2, i3);
    __global float * z = (__global float *) TPTR(dst, dd, 0, i1, i2, i3);
    const long ne0 = dd.ne[0];
    const float16 zero = (float16) 0.0f;
    float carry = 0.0f, comp = 0.0f;
    long j = 0;
    for (; j + 16 <= ne0; j += 16) {
        float16 v = vload16(0, x + j);
        v += shuffle2(v, zero, (uint16) (16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14));
        v += shuffle2(v, zero, (uint16) (16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13));
        v += shuffle2(v, zero, (uint16) (16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
        v += shuffle2(v, zero, (uint16) (16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7));
        vstore16(v + (carry - comp), 0, z + j);
        const float y = v.sf - comp;
        const float t = carry + y;
        comp = (t - carry) - y;
        carry = t;
    }
    float run = 0.0f;
    for (; j < ne0; j++) {
        run += x[j];
        z[j] = (carry - comp) + run;
    }
}

//
// element-wise, over the result's shape (ggml_ocl_launch_shape)
//

// TRI: a's element where the triangle keeps it, else 0 (type: enum ggml_tri_type)
__kernel void k_tri(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int type) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    bool keep;
    switch (type) {
        case 0:  keep = i0 >= i1; break; // UPPER_DIAG
        case 1:  keep = i0 >  i1; break; // UPPER
        case 2:  keep = i0 <= i1; break; // LOWER_DIAG
        default: keep = i0 <  i1; break; // LOWER
    }
    __global char * p = TPTR(dst, dd, i0, i1, i2, i3);
    if (keep) {
        copy_elem(p, dd.type, TPTR(a, ad, i0, i1, i2, i3), ad.type);
    } else {
        store_f(p, dd.type, 0.0f);
    }
}

__kernel void k_fill(__global char * dst, tdesc dd, float value) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    store_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, value);
}

// DIAG: a [n, 1, ne2, ne3] on the diagonal of each [n, n] matrix (bit-exact copies), zeros elsewhere
__kernel void k_diag(__global const char * a, tdesc ad, __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    __global char * p = TPTR(dst, dd, i0, i1, i2, i3);
    if (i0 == i1) {
        copy_elem(p, dd.type, TPTR(a, ad, i1, 0, i2, i3), ad.type);
    } else {
        store_f(p, dd.type, 0.0f); // 0 in every type has all-zero bytes
    }
}

// TIMESTEP_EMBEDDING: row i1 of the result for timestep a[i1]: cos(t*f_j) at j < dim/2,
// sin(t*f_j) at j + dim/2, f_j = max_period^(-j/(dim/2)); 0 in the last column of an odd dim
__kernel void k_timestep(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int dim, int max_period) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const int n_half = dim / 2;
    const int j = i0 < n_half ? (int) i0 : (int) i0 - n_half;
    float v = 0.0f;
    if (j < n_half) {
        const float t = load_f(TPTR(a, ad, i1, 0, 0, 0), ad.type);
        const float arg = t * exp(-log((float) max_period) * (float) j / (float) n_half);
        v = i0 < n_half ? cos(arg) : sin(arg);
    }
    store_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, v);
}

//
// UPSCALE, the CPU backend's arithmetic in float (so that the nearest picks are the same):
// sf = result size / source size per dim (align corners: (n - 1)/(n_a - 1) in dims 0 and 1,
// computed by the host), po the pixel-centre offset (0.5, or 0 with align corners)
//

long clampi(long i, long n) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

long nearest_src(long i, float sf, long n) {
    return clampi((long) div_rn((float) i, sf), n);
}

// Keys' cubic convolution weights (a = -0.75) of the 4 taps around a point t in [0, 1) past tap 1
void cubic_weights(float t, float w[4]) {
    const float A = -0.75f;
    const float x0 = t + 1.0f, x1 = t, x2 = 1.0f - t, x3 = 2.0f - t;
    w[0] = ((A*x0 - 5.0f*A)*x0 + 8.0f*A)*x0 - 4.0f*A;
    w[1] = ((A + 2.0f)*x1 - (A + 3.0f))*x1*x1 + 1.0f;
    w[2] = ((A + 2.0f)*x2 - (A + 3.0f))*x2*x2 + 1.0f;
    w[3] = ((A*x3 - 5.0f*A)*x3 + 8.0f*A)*x3 - 4.0f*A;
}

// UPSCALE nearest by an integer factor k in dim 0, rows of unit stride (CPU devices, ocl-op-misc2.c
// checks): a work-item per result row, its source row picked once, each source value stored k
// times (the same picks as k_upscale: truncating i0 / k computed in float is i0 div k below 2^24)
__kernel void k_upscale_nearest_rows(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int k,
                                     float sf1, float sf2, float sf3) {
    long i1, i2, i3;
    misc2_row(get_global_id(0), dd, &i1, &i2, &i3);
    const __global float * s = (const __global float *) TPTR(a, ad, 0, nearest_src(i1, sf1, ad.ne[1]),
                                                            nearest_src(i2, sf2, ad.ne[2]), nearest_src(i3, sf3, ad.ne[3]));
    __global float * d = (__global float *) TPTR(dst, dd, 0, i1, i2, i3);
    const long n0 = ad.ne[0];
    long j = 0;
    if (k == 2) {
        const uint16 twice = (uint16) (0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
        for (; j + 8 <= n0; j += 8) {
            vstore16(shuffle(vload8(0, s + j), twice), 0, d + 2*j);
        }
    }
    for (; j < n0; j++) {
        const float v = s[j];
        for (int r = 0; r < k; r++) {
            d[j*k + r] = v;
        }
    }
}

// UPSCALE is F32 only (ocl-op-misc2.c): plain loads, no type switch per tap
#define A_AT(x, y) (*(const __global float *) TPTR(a, ad, (x), (y), j2, j3))

// mode: 0 nearest, 1 bilinear, 2 bicubic; antialias only with bilinear
__kernel void k_upscale(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int mode, int antialias,
                        float sf0, float sf1, float sf2, float sf3, float po) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long n0 = ad.ne[0], n1 = ad.ne[1];
    const long j2 = nearest_src(i2, sf2, ad.ne[2]);
    const long j3 = nearest_src(i3, sf3, ad.ne[3]);
    float v;
    if (mode == 0) {
        v = A_AT(nearest_src(i0, sf0, n0), nearest_src(i1, sf1, n1));
    } else if (mode == 1 && antialias) {
        // a tent filter as wide as one result pixel when shrinking (at least one source pixel)
        const float s1 = fmax(1.0f, div_rn(1.0f, sf1)), s0 = fmax(1.0f, div_rn(1.0f, sf0));
        const float y = div_rn((float) i1 + po, sf1), x = div_rn((float) i0 + po, sf0);
        const long y_lo = max((long) (y - s1 + po), 0L), y_hi = min((long) (y + s1 + po), n1);
        const long x_lo = max((long) (x - s0 + po), 0L), x_hi = min((long) (x + s0 + po), n0);
        float sum = 0.0f, wsum = 0.0f;
        for (long sy = y_lo; sy < y_hi; sy++) {
            const float wy = fmax(1.0f - fabs(div_rn((float) sy - y + po, s1)), 0.0f);
            for (long sx = x_lo; sx < x_hi; sx++) {
                const float w = fmax(1.0f - fabs(div_rn((float) sx - x + po, s0)), 0.0f) * wy;
                if (w > 0.0f) {
                    sum += w * A_AT(sx, sy);
                    wsum += w;
                }
            }
        }
        v = wsum > 0.0f ? sum / wsum : 0.0f;
    } else if (mode == 1) {
        const float y = div_rn((float) i1 + po, sf1) - po, x = div_rn((float) i0 + po, sf0) - po;
        const long y0 = clampi((long) floor(y), n1), y1 = clampi((long) floor(y) + 1, n1);
        const long x0 = clampi((long) floor(x), n0), x1 = clampi((long) floor(x) + 1, n0);
        const float dy = fmin(fmax(y - (float) y0, 0.0f), 1.0f);
        const float dx = fmin(fmax(x - (float) x0, 0.0f), 1.0f);
        const float top = A_AT(x0, y0)*(1.0f - dx) + A_AT(x1, y0)*dx;
        const float bot = A_AT(x0, y1)*(1.0f - dx) + A_AT(x1, y1)*dx;
        v = top*(1.0f - dy) + bot*dy;
    } else {
        const float y = div_rn((float) i1 + po, sf1) - po, x = div_rn((float) i0 + po, sf0) - po;
        const long yb = (long) floor(y), xb = (long) floor(x);
        float wy[4], wx[4];
        cubic_weights(y - (float) yb, wy);
        cubic_weights(x - (float) xb, wx);
        v = 0.0f;
        for (int r = 0; r < 4; r++) {
            const long sy = clampi(yb - 1 + r, n1);
            float row = 0.0f;
            for (int c = 0; c < 4; c++) {
                row += wx[c] * A_AT(clampi(xb - 1 + c, n0), sy);
            }
            v += wy[r] * row;
        }
    }
    *(__global float *) TPTR(dst, dd, i0, i1, i2, i3) = v;
}
