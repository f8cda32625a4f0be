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
