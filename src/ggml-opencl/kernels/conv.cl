// IM2COL (1-D and 2-D), POOL_2D (max, avg) and a direct CONV_2D. One work-item per result element.

// 2-D: kernel [KW, KH, IC, OC], data [IW, IH, IC, N] -> [IC*KH*KW, OW, OH, N]
// 1-D: kernel [KW, IC, OC],     data [IW, IC, N]     -> [IC*KW, OW, N]
// dst(ic*KH*KW + kh*KW + kw, ow, oh, n) = data(ow*s0 + kw*d0 - p0, oh*s1 + kh*d1 - p1, ic, n), 0 outside
__kernel void k_im2col(__global const char * b, tdesc bd, __global char * dst, tdesc dd,
                       int KW, int KH, int s0, int s1, int p0, int p1, int d0, int d1, int is_2d) {
    const long i = get_global_id(0);
    if (i >= nelements(dd)) {
        return;
    }
    long row, ow, oh, n;
    unravel(i, dd.ne, &row, &ow, &oh, &n);
    if (!is_2d) {
        n = oh; // 1-D: [IC*KW, OW, N]
        oh = 0;
    }
    const long kw = row % KW;
    const long kh = (row / KW) % KH;
    const long ic = row / ((long) KW*KH);
    const long iw = ow*s0 + kw*d0 - p0;
    const long ih = oh*s1 + kh*d1 - p1;
    const long IW = bd.ne[0];
    const long IH = is_2d ? bd.ne[1] : 1;
    __global char * out = is_2d ? TPTR(dst, dd, row, ow, oh, n) : TPTR(dst, dd, row, ow, n, 0);
    if (iw < 0 || iw >= IW || ih < 0 || ih >= IH) {
        store_f(out, dd.type, 0.0f);
        return;
    }
    const __global char * in = is_2d ? TPTR(b, bd, iw, ih, ic, n) : TPTR(b, bd, iw, ic, n, 0);
    copy_elem(out, dd.type, in, bd.type);
}

// op: 0 = max, 1 = avg (divides by k0*k1, padding counted); max over no element gives -FLT_MAX
__kernel void k_pool_2d(__global const char * a, tdesc ad, __global char * dst, tdesc dd,
                        int op, int k0, int k1, int s0, int s1, int p0, int p1) {
    const long i = get_global_id(0);
    if (i >= nelements(dd)) {
        return;
    }
    long ox, oy, c, n;
    unravel(i, dd.ne, &ox, &oy, &c, &n);
    float acc = op == 0 ? -FLT_MAX : 0.0f;
    for (int ky = 0; ky < k1; ky++) {
        const long y = oy*s1 - p1 + ky;
        if (y < 0 || y >= ad.ne[1]) {
            continue;
        }
        for (int kx = 0; kx < k0; kx++) {
            const long x = ox*s0 - p0 + kx;
            if (x < 0 || x >= ad.ne[0]) {
                continue;
            }
            const float v = load_f(TPTR(a, ad, x, y, c, n), ad.type);
            acc = op == 0 ? fmax(acc, v) : acc + v;
        }
    }
    if (op == 1) {
        acc /= (float) (k0*k1);
    }
    store_f(TPTR(dst, dd, ox, oy, c, n), dd.type, acc);
}

// kernel [KW, KH, IC, OC], data [W, H, IC, N] -> dst [OW, OH, OC, N]
__kernel void k_conv_2d(__global const char * k, tdesc kd, __global const char * b, tdesc bd,
                        __global char * dst, tdesc dd, int s0, int s1, int p0, int p1, int d0, int d1) {
    const long i = get_global_id(0);
    if (i >= nelements(dd)) {
        return;
    }
    long ox, oy, oc, n;
    unravel(i, dd.ne, &ox, &oy, &oc, &n);
    float sum = 0.0f;
    for (long ic = 0; ic < kd.ne[2]; ic++) {
        for (long ky = 0; ky < kd.ne[1]; ky++) {
            const long y = oy*s1 + ky*d1 - p1;
            if (y < 0 || y >= bd.ne[1]) {
                continue;
            }
            for (long kx = 0; kx < kd.ne[0]; kx++) {
                const long x = ox*s0 + kx*d0 - p0;
                if (x < 0 || x >= bd.ne[0]) {
                    continue;
                }
                sum += load_f(TPTR(k, kd, kx, ky, ic, oc), kd.type) * load_f(TPTR(b, bd, x, y, ic, n), bd.type);
            }
        }
    }
    store_f(TPTR(dst, dd, ox, oy, oc, n), dd.type, sum);
}
