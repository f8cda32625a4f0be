// Data movement: CPY/DUP/CONT, GET_ROWS, SET_ROWS, REPEAT, CONCAT, PAD, ACC/SET, DIAG_MASK_*.
// One work-item per element, launched over a tensor's shape (elem_of) except k_cpy (flat
// indices); values keep their bits when the types are equal (copy_elem).

// element i (row-major) of src goes to element i (row-major) of dst; the shapes may differ
__kernel void k_cpy(__global const char * src, tdesc sd, __global char * dst, tdesc dd) {
    const long i = get_global_id(0);
    if (i >= nelements(dd)) {
        return;
    }
    long s0, s1, s2, s3, d0, d1, d2, d3;
    unravel(i, sd.ne, &s0, &s1, &s2, &s3);
    unravel(i, dd.ne, &d0, &d1, &d2, &d3);
    copy_elem(TPTR(dst, dd, d0, d1, d2, d3), dd.type, TPTR(src, sd, s0, s1, s2, s3), sd.type);
}

// the same for equal shapes (any strides), without the divisions of the flat indices
__kernel void k_cpy_shape(__global const char * src, tdesc sd, __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    copy_elem(TPTR(dst, dd, i0, i1, i2, i3), dd.type, TPTR(src, sd, i0, i1, i2, i3), sd.type);
}

// dst(i0, i1, i2, i3) = a(i0, idx(i1, i2, i3), i2 % a.ne2, i3 % a.ne3); rows outside a give 0
__kernel void k_get_rows(__global const char * a, tdesc ad, __global const char * idx, tdesc id,
                         __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long r = load_idx(TPTR(idx, id, i1, i2, i3, 0), id.type);
    __global char * p = TPTR(dst, dd, i0, i1, i2, i3);
    if (r < 0 || r >= ad.ne[1]) {
        store_f(p, dd.type, 0.0f);
        return;
    }
    copy_elem(p, dd.type, TPTR(a, ad, i0, r, bmod(i2, ad.ne[2], dd.ne[2]), bmod(i3, ad.ne[3], dd.ne[3])), ad.type);
}

// row i of b in (i2, i3) goes to row idx(i, i2 % idx.ne1, i3 % idx.ne2) of dst; rows outside
// dst are skipped
__kernel void k_set_rows(__global const char * b, tdesc bd, __global const char * idx, tdesc id,
                         __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(bd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long r = load_idx(TPTR(idx, id, i1, bmod(i2, id.ne[1], bd.ne[2]), bmod(i3, id.ne[2], bd.ne[3]), 0), id.type);
    if (r < 0 || r >= dd.ne[1]) {
        return;
    }
    copy_elem(TPTR(dst, dd, i0, r, i2, i3), dd.type, TPTR(b, bd, i0, i1, i2, i3), bd.type);
}

__kernel void k_repeat(__global const char * a, tdesc ad, __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    copy_elem(TPTR(dst, dd, i0, i1, i2, i3), dd.type,
              TPTR(a, ad, bmod(i0, ad.ne[0], dd.ne[0]), bmod(i1, ad.ne[1], dd.ne[1]),
                   bmod(i2, ad.ne[2], dd.ne[2]), bmod(i3, ad.ne[3], dd.ne[3])), ad.type);
}

__kernel void k_concat(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                       __global char * dst, tdesc dd, int dim) {
    long idx[4];
    if (!elem_of(dd, &idx[0], &idx[1], &idx[2], &idx[3])) {
        return;
    }
    __global char * p = TPTR(dst, dd, idx[0], idx[1], idx[2], idx[3]);
    if (idx[dim] < ad.ne[dim]) {
        copy_elem(p, dd.type, TPTR(a, ad, idx[0], idx[1], idx[2], idx[3]), ad.type);
    } else {
        idx[dim] -= ad.ne[dim];
        copy_elem(p, dd.type, TPTR(b, bd, idx[0], idx[1], idx[2], idx[3]), bd.type);
    }
}

// lp: left padding of each dim; circular: the source repeats around its borders
__kernel void k_pad(__global const char * a, tdesc ad, __global char * dst, tdesc dd,
                    int lp0, int lp1, int lp2, int lp3, int circular) {
    long idx[4];
    if (!elem_of(dd, &idx[0], &idx[1], &idx[2], &idx[3])) {
        return;
    }
    __global char * p = TPTR(dst, dd, idx[0], idx[1], idx[2], idx[3]);
    const int lp[4] = { lp0, lp1, lp2, lp3 };
    long s[4];
    bool inside = true;
    for (int d = 0; d < 4; d++) {
        s[d] = idx[d] - lp[d];
        if (circular && ad.ne[d] > 0) {
            s[d] = ((s[d] % ad.ne[d]) + ad.ne[d]) % ad.ne[d];
        }
        inside = inside && s[d] >= 0 && s[d] < ad.ne[d];
    }
    if (inside) {
        copy_elem(p, dd.type, TPTR(a, ad, s[0], s[1], s[2], s[3]), ad.type);
    } else {
        store_f(p, dd.type, 0.0f);
    }
}

// ACC (is_acc) / SET on a contiguous dst that already holds a: the view (b's shape, strides
// nb1 nb2 nb3, byte offset off) of dst is incremented by / set to b
__kernel void k_acc(__global const char * b, tdesc bd, __global char * dst, tdesc dd,
                    long nb1, long nb2, long nb3, long off, int is_acc) {
    long i0, i1, i2, i3;
    if (!elem_of(bd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long byte = off + i0*dd.nb[0] + i1*nb1 + i2*nb2 + i3*nb3;
    __global char * p = dst + dd.offs + byte;
    const __global char * q = TPTR(b, bd, i0, i1, i2, i3);
    if (is_acc) {
        store_f(p, dd.type, load_f(p, dd.type) + load_f(q, bd.type));
    } else {
        copy_elem(p, dd.type, q, bd.type);
    }
}

// element (i0, i1, ...) with i0 > n_past + i1 becomes value (-inf or 0)
__kernel void k_diag_mask(__global const char * a, tdesc ad, __global char * dst, tdesc dd, int n_past, float value) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    __global char * p = TPTR(dst, dd, i0, i1, i2, i3);
    if (i0 > n_past + i1) {
        store_f(p, dd.type, value);
    } else {
        copy_elem(p, dd.type, TPTR(a, ad, i0, i1, i2, i3), ad.type);
    }
}

// 16 values of a row from s to d (F32 or F16 each, unit element stride; n values left in the row)
void row16_f(__global char * d, int dt, const __global char * s, int st, long n) {
    if (n >= 16) {
        const float16 v = st == T_F16 ? vload_half16(0, (const __global half *) s) : vload16(0, (const __global float *) s);
        if (dt == T_F16) {
            vstore_half16_rte(v, 0, (__global half *) d);
        } else {
            vstore16(v, 0, (__global float *) d);
        }
        return;
    }
    for (long k = 0; k < n; k++) {
        const float v = st == T_F16 ? vload_half(k, (const __global half *) s) : ((const __global float *) s)[k];
        if (dt == T_F16) {
            vstore_half_rte(v, k, (__global half *) d);
        } else {
            ((__global float *) d)[k] = v;
        }
    }
}

// GET_ROWS with F32/F16 rows of unit element stride at both ends (the host checks): a 2-D launch
// over (16-value chunks of a row, dst rows); a row index outside a gives zeros
__kernel void k_get_rows_vec(__global const char * a, tdesc ad, __global const char * idx, tdesc id,
                             __global char * dst, tdesc dd) {
    const long i0 = get_global_id(0) * 16;
    long r = get_global_id(1);
    const long i1 = r % dd.ne[1]; r /= dd.ne[1];
    const long i2 = r % dd.ne[2];
    const long i3 = r / dd.ne[2];
    const long src_row = load_idx(TPTR(idx, id, i1, i2, i3, 0), id.type);
    __global char * p = TPTR(dst, dd, i0, i1, i2, i3);
    const long n = dd.ne[0] - i0;
    if (src_row < 0 || src_row >= ad.ne[1]) {
        for (long k = 0; k < min(n, 16L); k++) {
            store_f(p + k*dd.nb[0], dd.type, 0.0f);
        }
        return;
    }
    row16_f(p, dd.type, TPTR(a, ad, i0, src_row, bmod(i2, ad.ne[2], dd.ne[2]), bmod(i3, ad.ne[3], dd.ne[3])), ad.type, n);
}

// SET_ROWS with F32/F16 rows of unit element stride at both ends (the host checks): a 2-D launch
// over (16-value chunks of a row of b, rows of b); an index outside dst's rows writes nothing
__kernel void k_set_rows_vec(__global const char * b, tdesc bd, __global const char * idx, tdesc id,
                             __global char * dst, tdesc dd) {
    const long i0 = get_global_id(0) * 16;
    long r = get_global_id(1);
    const long i1 = r % bd.ne[1]; r /= bd.ne[1];
    const long i2 = r % bd.ne[2];
    const long i3 = r / bd.ne[2];
    const long dst_row = load_idx(TPTR(idx, id, i1, bmod(i2, id.ne[1], bd.ne[2]), bmod(i3, id.ne[2], bd.ne[3]), 0), id.type);
    if (dst_row < 0 || dst_row >= dd.ne[1]) {
        return;
    }
    row16_f(TPTR(dst, dd, i0, dst_row, i2, i3), dd.type, TPTR(b, bd, i0, i1, i2, i3), bd.type, bd.ne[0] - i0);
}

// CPY between tensors of one shape with F32/F16 rows of unit element stride at any row strides
// (views, permutations of dims 1-3, padded rows): as k_get_rows_vec, row for row
__kernel void k_cpy_rows_vec(__global const char * a, tdesc ad, __global char * dst, tdesc dd) {
    const long i0 = get_global_id(0) * 16;
    long r = get_global_id(1);
    const long i1 = r % dd.ne[1]; r /= dd.ne[1];
    const long i2 = r % dd.ne[2];
    const long i3 = r / dd.ne[2];
    row16_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, TPTR(a, ad, i0, i1, i2, i3), ad.type, dd.ne[0] - i0);
}

// GPU shapes (!cpu_kernels) of k_get_rows_vec, k_set_rows_vec and k_cpy_rows_vec: one value per
// work-item over ggml_ocl_launch_shape's 3-D launch (i0 rounded up to the work-group size, i1,
// i2 + ne2*i3), so consecutive work-items move consecutive values of a row (coalesced loads and
// stores) and there is no division per value; F32/F16 rows of unit element stride (host checks).
float ld_row_f(const __global char * p, int t, long i) {
    return t == T_F16 ? vload_half(i, (const __global half *) p) : ((const __global float *) p)[i];
}

void st_row_f(__global char * p, int t, long i, float v) {
    if (t == T_F16) {
        vstore_half_rte(v, i, (__global half *) p);
    } else {
        ((__global float *) p)[i] = v;
    }
}

__kernel void k_get_rows_g(__global const char * a, tdesc ad, __global const char * idx, tdesc id,
                           __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long src_row = load_idx(TPTR(idx, id, i1, i2, i3, 0), id.type);
    __global char * p = TPTR(dst, dd, 0, i1, i2, i3);
    if (src_row < 0 || src_row >= ad.ne[1]) {
        st_row_f(p, dd.type, i0, 0.0f);
        return;
    }
    st_row_f(p, dd.type, i0, ld_row_f(TPTR(a, ad, 0, src_row, bmod(i2, ad.ne[2], dd.ne[2]), bmod(i3, ad.ne[3], dd.ne[3])), ad.type, i0));
}

// launched over b's shape
__kernel void k_set_rows_g(__global const char * b, tdesc bd, __global const char * idx, tdesc id,
                           __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(bd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long dst_row = load_idx(TPTR(idx, id, i1, bmod(i2, id.ne[1], bd.ne[2]), bmod(i3, id.ne[2], bd.ne[3]), 0), id.type);
    if (dst_row < 0 || dst_row >= dd.ne[1]) {
        return;
    }
    st_row_f(TPTR(dst, dd, 0, dst_row, i2, i3), dd.type, i0, ld_row_f(TPTR(b, bd, 0, i1, i2, i3), bd.type, i0));
}

__kernel void k_cpy_rows_g(__global const char * a, tdesc ad, __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    st_row_f(TPTR(dst, dd, 0, i1, i2, i3), dd.type, i0, ld_row_f(TPTR(a, ad, 0, i1, i2, i3), ad.type, i0));
}
