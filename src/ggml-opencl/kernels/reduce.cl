// Reductions: SUM, SUM_ROWS, MEAN (one work-group per row), ARGMAX (one work-group per row).

// row r of a (rows are (i1, i2, i3) in row-major order)
void row_index(long r, const tdesc d, long * i1, long * i2, long * i3) {
    *i1 = r % d.ne[1]; r /= d.ne[1];
    *i2 = r % d.ne[2];
    *i3 = r / d.ne[2];
}

// dst(0, i1, i2, i3) = sum (or mean) of row (i1, i2, i3) of a
__kernel void k_sum_rows(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int mean,
                         __local float * buf) {
    const long r = get_group_id(0);
    long i1, i2, i3;
    row_index(r, ad, &i1, &i2, &i3);
    const __global char * row = TPTR(a, ad, 0, i1, i2, i3);
    float s = 0.0f;
    for (long i0 = get_local_id(0); i0 < ad.ne[0]; i0 += get_local_size(0)) {
        s += load_f(row + i0*ad.nb[0], ad.type);
    }
    s = wg_sum(s, buf);
    if (get_local_id(0) == 0) {
        store_f(TPTR(dst, dd, 0, i1, i2, i3), dd.type, mean ? s / (float) ad.ne[0] : s);
    }
}

// SUM_ROWS / MEAN with one work-item per row (CPU devices, where the work-group reduction of
// k_sum_rows costs barriers): rows of contiguous F32 or F16 values at element strides s1, s2, s3
// from element oa, summed in 16 partial sums
__kernel void k_sum_rows_vec(__global const char * a, ulong oa, int at, long ne0, long s1, long s2, long s3,
                             __global char * dst, tdesc dd, int mean) {
    const long r = get_global_id(0);
    const long i1 = r % dd.ne[1];
    const long i2 = (r / dd.ne[1]) % dd.ne[2];
    const long i3 = r / (dd.ne[1]*dd.ne[2]);
    if (i3 >= dd.ne[3]) {
        return;
    }
    const ulong o = oa + i1*s1 + i2*s2 + i3*s3;
    const __global float * pf = (const __global float *) a + o;
    const __global half  * ph = (const __global half *) a + o;
    const long n16 = ne0 / 16;
    float16 acc = 0.0f;
    float s = 0.0f;
    // one loop per type: a type test inside the loop keeps PoCL from vectorizing it
    if (at == T_F16) {
        for (long k = 0; k < n16; k++) {
            acc += vload_half16(k, ph);
        }
        for (long k = n16*16; k < ne0; k++) {
            s += vload_half(k, ph);
        }
    } else {
        for (long k = 0; k < n16; k++) {
            acc += vload16(k, pf);
        }
        for (long k = n16*16; k < ne0; k++) {
            s += pf[k];
        }
    }
    const float8 a8 = acc.lo + acc.hi;
    const float4 a4 = a8.lo + a8.hi;
    s += (a4.x + a4.y) + (a4.z + a4.w);
    store_f(TPTR(dst, dd, 0, i1, i2, i3), dd.type, mean ? s / (float) ne0 : s);
}

// one work-group for the whole tensor
__kernel void k_sum(__global const char * a, tdesc ad, __global char * dst, tdesc dd, __local float * buf) {
    const long n = nelements(ad);
    float s = 0.0f;
    for (long i = get_local_id(0); i < n; i += get_local_size(0)) {
        long i0, i1, i2, i3;
        unravel(i, ad.ne, &i0, &i1, &i2, &i3);
        s += load_f(TPTR(a, ad, i0, i1, i2, i3), ad.type);
    }
    s = wg_sum(s, buf);
    if (get_local_id(0) == 0) {
        store_f(TPTR(dst, dd, 0, 0, 0, 0), dd.type, s);
    }
}

// dst(r) = index of the maximum of row r; ties go to the last index, NaN never wins (as the
// reference: v >= best)
__kernel void k_argmax(__global const char * a, tdesc ad, __global char * dst, tdesc dd,
                       __local float * vbuf, __local int * ibuf) {
    const long r = get_group_id(0);
    const int lid = get_local_id(0);
    const int n = get_local_size(0);
    long i1, i2, i3;
    row_index(r, ad, &i1, &i2, &i3);
    const __global char * row = TPTR(a, ad, 0, i1, i2, i3);
    float best = -INFINITY;
    int best_i = -1;
    for (long i0 = lid; i0 < ad.ne[0]; i0 += n) {
        const float v = load_f(row + i0*ad.nb[0], ad.type);
        if (v >= best) {
            best = v;
            best_i = (int) i0;
        }
    }
    vbuf[lid] = best;
    ibuf[lid] = best_i;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n/2; s > 0; s >>= 1) {
        if (lid < s) {
            const float v2 = vbuf[lid + s];
            const int   j2 = ibuf[lid + s];
            // the pair (value, index) wins by value, then by the larger index; -1 = nothing found
            if (j2 >= 0 && (ibuf[lid] < 0 || v2 > vbuf[lid] || (v2 == vbuf[lid] && j2 > ibuf[lid]))) {
                vbuf[lid] = v2;
                ibuf[lid] = j2;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        *(__global int *) TPTR(dst, dd, r, 0, 0, 0) = ibuf[0] < 0 ? 0 : ibuf[0];
    }
}

// SUM_ROWS / MEAN on GPUs (!cpu_kernels): a work-group per row of contiguous F32 or F16 values at
// element strides s1, s2, s3 from element oa (the arguments of k_sum_rows_vec and a local buffer),
// item k, k + L, ... of the row to work-item k (coalesced), one loop per type, a local-memory tree
__kernel void k_sum_rows_g(__global const char * a, ulong oa, int at, long ne0, long s1, long s2, long s3,
                           __global char * dst, tdesc dd, int mean, __local float * buf) {
    const long r = get_group_id(0);
    const uint lid = get_local_id(0);
    const uint L = get_local_size(0);
    const long i1 = r % dd.ne[1];
    const long i2 = (r / dd.ne[1]) % dd.ne[2];
    const long i3 = r / (dd.ne[1]*dd.ne[2]);
    const ulong o = oa + i1*s1 + i2*s2 + i3*s3;
    const uint n = (uint) ne0;
    float s = 0.0f;
    if (at == T_F16) {
        const __global half * ph = (const __global half *) a + o;
        for (uint k = lid; k < n; k += L) {
            s += vload_half(k, ph);
        }
    } else {
        const __global float * pf = (const __global float *) a + o;
        for (uint k = lid; k < n; k += L) {
            s += pf[k];
        }
    }
    s = wg_sum(s, buf);
    if (lid == 0) {
        store_f(TPTR(dst, dd, 0, i1, i2, i3), dd.type, mean ? s / (float) ne0 : s);
    }
}
