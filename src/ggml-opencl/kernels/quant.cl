// Quantized weights (ocl-quant.c): MUL_MAT with a quantized a and GET_ROWS from a quantized
// table (CPY / SET_ROWS into quantized types: quant_store.cl). The blocks are read straight from the weights and
// dequantized in registers, 32 values at a time; no F32 copy of the weights is ever made.
// Formats (docs/quantization.md), blocks of 32 values:
//   Q4_0 {half d; uchar qs[16]}                  v = (nibble - 8) * d
//   Q4_1 {half d, m; uchar qs[16]}               v = nibble * d + m
//   Q5_0 {half d; uchar qh[4]; uchar qs[16]}     v = ((nibble | fifth bit << 4) - 16) * d
//   Q5_1 {half d, m; uchar qh[4]; uchar qs[16]}  v = (nibble | fifth bit << 4) * d + m
//   Q8_0 {half d; char qs[32]}                   v = q * d
//   MXFP4 {uchar e; uchar qs[16]}                v = E2M1 value of the nibble * 2^(e - 128)
// (value j < 16: low nibble of qs[j], value j + 16: its high nibble; fifth bit of value j: bit j
// of the little-endian 32-bit qh), and super-blocks of 256 values in 8 groups of 32:
//   Q4_K {half d, dmin; uchar scales[12]; uchar qs[128]}               v = d*sc*nibble - dmin*mn
//   Q5_K {half d, dmin; uchar scales[12]; uchar qh[32]; uchar qs[128]} the same with a fifth bit
//   Q6_K {uchar ql[128]; uchar qh[64]; char scales[16]; half d}      v = d*scale*(6-bit q - 32)
// with 6-bit sc, mn per group packed in scales[12] (groups 0-3: low 6 bits of bytes g and g+4;
// groups 4-7: nibbles of byte g+4 and the top 2 bits of bytes g-4 and g).

#define QK 32

// groups of 32 values per block
int qgroups(int t) {
    return t == T_Q4_K || t == T_Q5_K || t == T_Q6_K ? 8 : 1;
}

uint load_u32_bytes(const __global uchar * p) {
    return (uint) p[0] | ((uint) p[1] << 8) | ((uint) p[2] << 16) | ((uint) p[3] << 24);
}

float half_at(const __global uchar * p) {
    return vload_half(0, (const __global half *) p);
}

// 2^(e - 127) / 2 (E8M0, with e = 0 and 1 giving the subnormal halves)
float e8m0_half(uint e) {
    return as_float(e < 2 ? 0x00200000u << e : (e - 1) << 23);
}

__constant float mxfp4_values[16] = { 0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12 };

// 6-bit scale and min of group g of a Q4_K / Q5_K block
void k_scale_min(const __global uchar * q, int g, float * sc, float * mn) {
    if (g < 4) {
        *sc = (float) (q[g] & 63);
        *mn = (float) (q[g + 4] & 63);
    } else {
        *sc = (float) ((q[g + 4] & 15) | ((q[g - 4] >> 6) << 4));
        *mn = (float) ((q[g + 4] >> 4) | ((q[g] >> 6) << 4));
    }
}

// the 32 values of group s of a row (s-th run of 32 values) of type t into v
void dequant32(const __global uchar * row, int t, long s, float v[QK]) {
    const int ng = qgroups(t);
    const __global uchar * p = row + (s / ng) * qblock_bytes(t);
    const int g = (int) (s % ng);
    if (t == T_Q8_0) {
        const float d = half_at(p);
        const __global char * q = (const __global char *) (p + 2);
        for (int j = 0; j < QK; j++) {
            v[j] = (float) q[j] * d;
        }
    } else if (t == T_MXFP4) {
        const float d = e8m0_half(p[0]);
        for (int j = 0; j < QK/2; j++) {
            v[j]        = mxfp4_values[p[1 + j] & 15] * d;
            v[j + QK/2] = mxfp4_values[p[1 + j] >> 4] * d;
        }
    } else if (t == T_Q4_K || t == T_Q5_K) {
        float sc, mn;
        k_scale_min(p + 4, g, &sc, &mn);
        const float d = half_at(p) * sc;
        const float m = half_at(p + 2) * mn;
        const __global uchar * qh = p + 16;
        const __global uchar * qs = p + (t == T_Q5_K ? 48 : 16) + 32*(g/2);
        const int shift = (g & 1) * 4;
        for (int j = 0; j < QK; j++) {
            const uint hb = t == T_Q5_K ? ((qh[j] >> g) & 1u) << 4 : 0u;
            v[j] = d * (float) (((qs[j] >> shift) & 15u) | hb) - m;
        }
    } else if (t == T_Q6_K) {
        const float d = half_at(p + 208);
        const int h = g / 4, k = g % 4;
        const __global uchar * ql = p + 64*h + 32*(k & 1);
        const __global uchar * qh = p + 128 + 32*h;
        const __global char * scales = (const __global char *) (p + 192) + 8*h + 2*k;
        const int lshift = (k / 2) * 4, hshift = 2*k;
        for (int j = 0; j < QK; j++) {
            const int q = (int) (((ql[j] >> lshift) & 15u) | (((qh[j] >> hshift) & 3u) << 4)) - 32;
            v[j] = d * (float) scales[j / 16] * (float) q;
        }
    } else {
        const float d = half_at(p);
        const bool has_min = t == T_Q4_1 || t == T_Q5_1;
        const float m = has_min ? half_at(p + 2) : 0.0f;
        const bool five = t == T_Q5_0 || t == T_Q5_1;
        const uint qh = five ? load_u32_bytes(p + (has_min ? 4 : 2)) : 0u;
        const __global uchar * qs = p + (has_min ? 4 : 2) + (five ? 4 : 0);
        const float offs = has_min ? 0.0f : (five ? 16.0f : 8.0f);
        for (int j = 0; j < QK/2; j++) {
            const uint b = qs[j];
            const uint lo = (b & 15u) | (((qh >> j) & 1u) << 4);
            const uint hi = (b >> 4) | (((qh >> (j + 16)) & 1u) << 4);
            v[j]        = ((float) lo - offs) * d + m;
            v[j + QK/2] = ((float) hi - offs) * d + m;
        }
    }
}

// dst(n, m, i2, i3) = sum_k a(k, n, i2 / (B2/A2), i3 / (B3/A3)) * b(k, m, i2, i3): one work-group
// per result element, its work-items taking every local_size-th block of the row
__kernel void k_mul_mat_q(__global const uchar * a, tdesc ad, __global const char * b, tdesc bd,
                          __global char * dst, tdesc dd, __local float * scratch) {
    const long g = get_group_id(0);
    const long n = g % dd.ne[0];
    const long r = g / dd.ne[0];
    const long m = r % dd.ne[1];
    const long i23 = r / dd.ne[1];
    const long i2 = i23 % dd.ne[2];
    const long i3 = i23 / dd.ne[2];
    const long a2 = i2 / (dd.ne[2] / ad.ne[2]);
    const long a3 = i3 / (dd.ne[3] / ad.ne[3]);
    const __global uchar * row = a + ad.offs + n*ad.nb[1] + a2*ad.nb[2] + a3*ad.nb[3];
    const long nblk = ad.ne[0] / QK;
    float acc = 0.0f;
    float v[QK];
    for (long blk = get_local_id(0); blk < nblk; blk += get_local_size(0)) {
        dequant32(row, ad.type, blk, v);
        const long k0 = blk*QK;
        if (bd.type == T_F32 && bd.nb[0] == 4) {
            const __global float * x = (const __global float *) TPTR(b, bd, k0, m, i2, i3);
            for (int j = 0; j < QK; j++) {
                acc = fma(v[j], x[j], acc);
            }
        } else {
            for (int j = 0; j < QK; j++) {
                acc = fma(v[j], load_f(TPTR(b, bd, k0 + j, m, i2, i3), bd.type), acc);
            }
        }
    }
    const float s = wg_sum(acc, scratch);
    if (get_local_id(0) == 0) {
        store_f(TPTR(dst, dd, n, m, i2, i3), dd.type, s);
    }
}

// dst(i0, i1, i2, i3) = a(i0, idx(i1, i2, i3), i2 % a.ne2, i3 % a.ne3), a quantized; rows
// outside a give 0. One work-item per 32 values of dst.
__kernel void k_get_rows_q(__global const uchar * a, tdesc ad, __global const char * idx, tdesc id,
                           __global char * dst, tdesc dd) {
    const long ng = dd.ne[0] / QK;
    long it = get_global_id(0);
    if (it >= ng * dd.ne[1] * dd.ne[2] * dd.ne[3]) {
        return;
    }
    const long s = it % ng; it /= ng;
    const long i1 = it % dd.ne[1]; it /= dd.ne[1];
    const long i2 = it % dd.ne[2];
    const long i3 = it / dd.ne[2];
    const long r = load_idx(TPTR(idx, id, i1, i2, i3, 0), id.type);
    float v[QK];
    if (r < 0 || r >= ad.ne[1]) {
        for (int j = 0; j < QK; j++) {
            v[j] = 0.0f;
        }
    } else {
        const __global uchar * row = a + ad.offs + r*ad.nb[1] + bmod(i2, ad.ne[2], dd.ne[2])*ad.nb[2] + bmod(i3, ad.ne[3], dd.ne[3])*ad.nb[3];
        dequant32(row, ad.type, s, v);
    }
    for (int j = 0; j < QK; j++) {
        store_f(TPTR(dst, dd, s*QK + j, i1, i2, i3), dd.type, v[j]);
    }
}

// CPY / DUP / CONT of a quantized tensor: into a float tensor of the same shape (dequantized; one
// work-item per 32 values), or into one of the same type (the blocks copied; one work-item per
// block): dim 0 whole blocks stored contiguously on both sides, dims 1-3 any strides (permutations)
__kernel void k_cpy_from_q(__global const uchar * a, tdesc ad, __global char * dst, tdesc dd) {
    const long ng = dd.ne[0] / QK;
    long it = get_global_id(0);
    if (it >= ng * dd.ne[1] * dd.ne[2] * dd.ne[3]) {
        return;
    }
    const long s = it % ng; it /= ng;
    const long i1 = it % dd.ne[1]; it /= dd.ne[1];
    const long i2 = it % dd.ne[2];
    const long i3 = it / dd.ne[2];
    float v[QK];
    dequant32(a + ad.offs + i1*ad.nb[1] + i2*ad.nb[2] + i3*ad.nb[3], ad.type, s, v);
    for (int j = 0; j < QK; j++) {
        store_f(TPTR(dst, dd, s*QK + j, i1, i2, i3), dd.type, v[j]);
    }
}

__kernel void k_cpy_q_blocks(__global const uchar * a, tdesc ad, __global uchar * dst, tdesc dd, int bvalues) {
    const int bytes = qblock_bytes(ad.type);
    const long nb0 = dd.ne[0] / bvalues;
    long it = get_global_id(0);
    if (it >= nb0 * dd.ne[1] * dd.ne[2] * dd.ne[3]) {
        return;
    }
    const long b = it % nb0; it /= nb0;
    const long i1 = it % dd.ne[1]; it /= dd.ne[1];
    const long i2 = it % dd.ne[2];
    const long i3 = it / dd.ne[2];
    const __global uchar * p = a + ad.offs + i1*ad.nb[1] + i2*ad.nb[2] + i3*ad.nb[3] + b*bytes;
    __global uchar * q = dst + dd.offs + i1*dd.nb[1] + i2*dd.nb[2] + i3*dd.nb[3] + b*bytes;
    for (int j = 0; j < bytes; j++) {
        q[j] = p[j];
    }
}
