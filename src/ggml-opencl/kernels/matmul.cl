// MUL_MAT, the simple kernel: one work-item per result element, the dot product read through the
// tensors' strides (any type the common loads handle, any layout). Replaceable by a tiled kernel:
// see ocl-matmul.c.
//
// a [K, N, A2, A3], b [K, M, B2, B3] (B2 % A2 == 0, B3 % A3 == 0) -> dst [N, M, B2, B3]:
// dst(n, m, i2, i3) = sum_k a(k, n, i2 / (B2/A2), i3 / (B3/A3)) * b(k, m, i2, i3)
__kernel void k_mul_mat(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                        __global char * dst, tdesc dd) {
    const long i = get_global_id(0);
    if (i >= nelements(dd)) {
        return;
    }
    long n, m, i2, i3;
    unravel(i, dd.ne, &n, &m, &i2, &i3);
    const long a2 = i2 / (bd.ne[2] / ad.ne[2]);
    const long a3 = i3 / (bd.ne[3] / ad.ne[3]);
    const __global char * pa = TPTR(a, ad, 0, n, a2, a3);
    const __global char * pb = TPTR(b, bd, 0, m, i2, i3);
    float sum = 0.0f;
    for (long k = 0; k < ad.ne[0]; k++) {
        sum += load_f(pa + k*ad.nb[0], ad.type) * load_f(pb + k*bd.nb[0], bd.type);
    }
    store_f(TPTR(dst, dd, n, m, i2, i3), dd.type, sum);
}
