// OUT_PROD: a [P, K, A2, A3], b [Q, K, B2, B3] (B2 % A2 == 0, B3 % A3 == 0) -> dst [P, Q, B2, B3],
// dst(i, j, i2, i3) = sum_k a(i, k, i2 / (B2/A2), i3 / (B3/A3)) * b(j, k, i2, i3).
// One work-item per result element.
__kernel void k_out_prod(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                         __global char * dst, tdesc dd) {
    const long g = get_global_id(0);
    if (g >= nelements(dd)) {
        return;
    }
    long i, j, i2, i3;
    unravel(g, dd.ne, &i, &j, &i2, &i3);
    const __global char * pa = TPTR(a, ad, i, 0, i2 / (bd.ne[2] / ad.ne[2]), i3 / (bd.ne[3] / ad.ne[3]));
    const __global char * pb = TPTR(b, bd, j, 0, i2, i3);
    float sum = 0.0f;
    for (long k = 0; k < ad.ne[1]; k++) {
        sum += load_f(pa + k*ad.nb[1], ad.type) * load_f(pb + k*bd.nb[1], bd.type);
    }
    store_f(TPTR(dst, dd, i, j, i2, i3), dd.type, sum);
}
