// ARGSORT and TOP_K: a bitonic sort of each row in local memory (one work-group per row, the row
// padded to a power of two P). The order is total: by value (ascending or descending), NaN after
// every number, equal values by index, padding last; so the result equals a stable sort's.

// whether element (vi, ii) must come after (vj, ij)
bool sort_after(float vi, int ii, float vj, int ij, int n, int desc) {
    const bool pi = ii >= n, pj = ij >= n;
    if (pi != pj) {
        return pi;
    }
    if (pi) {
        return ii > ij;
    }
    const bool ni = isnan(vi), nj = isnan(vj);
    if (ni != nj) {
        return ni;
    }
    if (!ni && vi != vj) {
        return desc ? vi < vj : vi > vj;
    }
    return ii > ij;
}

// dst(0 .. k-1, i1, i2, i3) = the first k indices of the sorted row (k = dst.ne0)
__kernel void k_argsort(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int desc, int P,
                        __local float * val, __local int * idx) {
    const long r = get_group_id(0);
    const int lid = get_local_id(0);
    const int L = get_local_size(0);
    long rr = r;
    const long i1 = rr % ad.ne[1]; rr /= ad.ne[1];
    const long i2 = rr % ad.ne[2];
    const long i3 = rr / ad.ne[2];
    const int n = (int) ad.ne[0];
    const __global char * row = TPTR(a, ad, 0, i1, i2, i3);
    for (int t = lid; t < P; t += L) {
        val[t] = t < n ? load_f(row + t*ad.nb[0], ad.type) : 0.0f;
        idx[t] = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 2; k <= P; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = lid; t < P; t += L) {
                const int u = t ^ j;
                if (u > t) {
                    const bool up = (t & k) == 0;
                    const float vt = val[t], vu = val[u];
                    const int   it = idx[t], iu = idx[u];
                    const bool swap = up ? sort_after(vt, it, vu, iu, n, desc) : sort_after(vu, iu, vt, it, n, desc);
                    if (swap) {
                        val[t] = vu; val[u] = vt;
                        idx[t] = iu; idx[u] = it;
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (int t = lid; t < dd.ne[0]; t += L) {
        *(__global int *) TPTR(dst, dd, t, i1, i2, i3) = idx[t];
    }
}
