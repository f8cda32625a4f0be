// Quantizing on the device (ocl-quant.c): CPY and SET_ROWS from a float tensor into Q4_0, Q4_1,
// Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K or MXFP4, one work-item per destination block, the way the
// reference quantizers of docs/quantization.md (src/ggml-quants-*.c) do, step for step: the same
// operations in the same order, no contraction into fma (the host builds those without it), the
// scales computed in float and stored rounded to half, so the blocks come out bit for bit equal
// to the CPU's wherever the device's float division, square root and log2 are correctly rounded.
// Block layouts: see quant.cl.

#pragma OPENCL FP_CONTRACT OFF

#define QS 32  // values of a legacy block
#define QKK 256 // values of a K super-block

int qstore_block_values(int t) {
    return t == T_Q4_K || t == T_Q5_K || t == T_Q6_K ? QKK : QS;
}

// round to the nearest integer, ties to even, through the 1.5 * 2^23 trick of the host (the same
// result for |v| < 2^22)
int nearest_int(float v) {
    const float s = v + 12582912.0f;
    return (as_int(s) & 0x007fffff) - 0x00400000;
}

void put_half(__global uchar * p, float v) {
    vstore_half_rte(v, 0, (__global half *) p);
}

float get_half(const __global uchar * p) {
    return vload_half(0, (const __global half *) p);
}

//
// 32-value blocks
//

void quant_q8_0(const float * x, __global uchar * p) {
    float amax = 0.0f;
    for (int j = 0; j < QS; j++) {
        amax = fmax(amax, fabs(x[j]));
    }
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    put_half(p, d);
    __global char * q = (__global char *) (p + 2);
    for (int j = 0; j < QS; j++) {
        q[j] = (char) round(x[j] * id);
    }
}

// Q4_0 / Q5_0 (symmetric, nlev 16 or 32: the value of largest magnitude maps to level 0) and
// Q4_1 / Q5_1 (min .. max over nlev levels); the fifth bits of the 5-bit formats go to qh
void quant_legacy(const float * x, int t, __global uchar * p) {
    const bool asym = t == T_Q4_1 || t == T_Q5_1;
    const bool five = t == T_Q5_0 || t == T_Q5_1;
    const int nlev = five ? 32 : 16;
    float d, m = 0.0f;
    if (!asym) {
        float amax = 0.0f, vmax = 0.0f; // the value of largest magnitude keeps its sign
        for (int j = 0; j < QS; j++) {
            if (fabs(x[j]) > amax) {
                amax = fabs(x[j]);
                vmax = x[j];
            }
        }
        d = vmax / (float) -(nlev / 2);
    } else {
        float lo = INFINITY, hi = -INFINITY;
        for (int j = 0; j < QS; j++) {
            lo = x[j] < lo ? x[j] : lo;
            hi = x[j] > hi ? x[j] : hi;
        }
        d = (hi - lo) / (float) (nlev - 1);
        m = lo;
    }
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    put_half(p, d);
    if (asym) {
        put_half(p + 2, m);
    }
    const float add = asym ? 0.5f : (float) (nlev / 2) + 0.5f;
    __global uchar * qh = p + (asym ? 4 : 2);
    __global uchar * qs = qh + (five ? 4 : 0);
    uint hbits = 0;
    for (int j = 0; j < QS/2; j++) {
        const float a = asym ? (x[j] - m) * id : x[j] * id;
        const float b = asym ? (x[j + QS/2] - m) * id : x[j + QS/2] * id;
        const int lo = min(nlev - 1, (int) (char) (a + add));
        const int hi = min(nlev - 1, (int) (char) (b + add));
        qs[j] = (uchar) ((lo & 15) | ((hi & 15) << 4));
        hbits |= (uint) ((lo >> 4) & 1) << j;
        hbits |= (uint) ((hi >> 4) & 1) << (j + QS/2);
    }
    if (five) {
        for (int k = 0; k < 4; k++) {
            qh[k] = (uchar) (hbits >> (8*k));
        }
    }
}

__constant float mxfp4_levels[16] = { 0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12 };

// 2^(e - 127) / 2 (E8M0, with e = 0 and 1 giving the subnormal halves)
float e8m0_to_half_scale(uint e) {
    return as_float(e < 2 ? 0x00200000u << e : (e - 1) << 23);
}

// the E2M1 level (kept doubled) nearest to x at scale e; the first one on ties
int mxfp4_best(float x, float e) {
    int best = 0;
    float best_err = fabs(mxfp4_levels[0] * e - x);
    for (int i = 1; i < 16; i++) {
        const float err = fabs(mxfp4_levels[i] * e - x);
        if (err < best_err) {
            best = i;
            best_err = err;
        }
    }
    return best;
}

// the shared exponent makes the largest magnitude at most 6 = 1.5 * 2^2
void quant_mxfp4(const float * x, __global uchar * p) {
    float amax = 0.0f;
    for (int j = 0; j < QS; j++) {
        amax = fmax(amax, fabs(x[j]));
    }
    const uchar e = amax > 0.0f ? (uchar) (int) (floor(log2(amax)) - 2.0f + 127.0f) : (uchar) 0;
    const float d = e8m0_to_half_scale(e);
    p[0] = e;
    for (int j = 0; j < QS/2; j++) {
        p[1 + j] = (uchar) (mxfp4_best(x[j], d) | (mxfp4_best(x[j + QS/2], d) << 4));
    }
}

//
// K super-blocks (256 values)
//

// Q4_K / Q5_K scale search of one group of 32 (weights w, no importance matrix): levels into L,
// returns the scale and stores the negated offset in *the_min
float search_asym32(const float * x, const float * w, uchar * L, float * the_min, int nmax, float rmin,
                    float rdelta, int nstep) {
    float mn = x[0], mx = x[0];
    float sum_w = 0.0f, sum_x = 0.0f;
    for (int i = 0; i < 32; i++) {
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (mn > 0.0f) {
        mn = 0.0f;
    }
    if (mx == mn) {
        for (int i = 0; i < 32; i++) {
            L[i] = 0;
        }
        *the_min = -mn;
        return 0.0f;
    }
    float iscale = (float) nmax / (mx - mn);
    float scale = 1.0f / iscale;
    float best = 0.0f;
    for (int i = 0; i < 32; i++) {
        const int l = clamp(nearest_int(iscale * (x[i] - mn)), 0, nmax);
        L[i] = (uchar) l;
        const float diff = scale * (float) l + mn - x[i];
        best += w[i] * (diff * diff);
    }
    uchar Laux[32];
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float) is + (float) nmax) / (mx - mn);
        float sum_l = 0.0f, sum_l2 = 0.0f, sum_xl = 0.0f;
        for (int i = 0; i < 32; i++) {
            const int l = clamp(nearest_int(iscale * (x[i] - mn)), 0, nmax);
            Laux[i] = (uchar) l;
            sum_l += w[i] * (float) l;
            sum_l2 += w[i] * (float) l * (float) l;
            sum_xl += w[i] * (float) l * x[i];
        }
        const float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D <= 0.0f) {
            continue;
        }
        float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
        float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
        if (this_min > 0.0f) {
            this_min = 0.0f;
            this_scale = sum_l2 > 0.0f ? sum_xl / sum_l2 : 0.0f;
        }
        float err = 0.0f;
        for (int i = 0; i < 32; i++) {
            const float diff = this_scale * (float) Laux[i] + this_min - x[i];
            err += w[i] * (diff * diff);
        }
        if (err < best) {
            for (int i = 0; i < 32; i++) {
                L[i] = Laux[i];
            }
            best = err;
            scale = this_scale;
            mn = this_min;
        }
    }
    *the_min = -mn;
    return scale;
}

// Q4_K (nmax 15) and Q5_K (nmax 31): per-group scale search, 6-bit scales and mins against two
// half super-block scales, then the levels requantized against the stored scales
void quant_k4(const float * x, int t, __global uchar * p) {
    const int nmax = t == T_Q5_K ? 31 : 15;
    uchar L[QKK];
    float scales[8], mins[8];
    float max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < 8; j++) {
        const float * xb = x + 32*j;
        float sum_x2 = 0.0f;
        for (int l = 0; l < 32; l++) {
            sum_x2 += xb[l] * xb[l];
        }
        const float av_x = sqrt(sum_x2 / 32.0f);
        float w[32];
        for (int l = 0; l < 32; l++) {
            w[l] = av_x + fabs(xb[l]);
        }
        scales[j] = nmax == 15 ? search_asym32(xb, w, L + 32*j, &mins[j], nmax, -1.0f, 0.1f, 20)
                               : search_asym32(xb, w, L + 32*j, &mins[j], nmax, -0.5f, 0.1f, 15);
        max_scale = fmax(max_scale, scales[j]);
        max_min = fmax(max_min, mins[j]);
    }
    const float inv_scale = max_scale > 0.0f ? 63.0f / max_scale : 0.0f;
    const float inv_min = max_min > 0.0f ? 63.0f / max_min : 0.0f;
    uchar packed[12];
    for (int j = 0; j < 12; j++) {
        packed[j] = 0;
    }
    for (int j = 0; j < 8; j++) {
        const int ls = clamp(nearest_int(inv_scale * scales[j]), 0, 63);
        const int lm = clamp(nearest_int(inv_min * mins[j]), 0, 63);
        if (j < 4) {
            packed[j] = (uchar) ls;
            packed[j + 4] = (uchar) lm;
        } else {
            packed[j + 4] = (uchar) ((ls & 15) | ((lm & 15) << 4));
            packed[j - 4] |= (uchar) ((ls >> 4) << 6);
            packed[j] |= (uchar) ((lm >> 4) << 6);
        }
    }
    put_half(p, max_scale / 63.0f);
    put_half(p + 2, max_min / 63.0f);
    for (int j = 0; j < 12; j++) {
        p[4 + j] = packed[j];
    }
    const float dh = get_half(p), dminh = get_half(p + 2);
    for (int j = 0; j < 8; j++) {
        int sc, m;
        if (j < 4) {
            sc = packed[j] & 63;
            m = packed[j + 4] & 63;
        } else {
            sc = (packed[j + 4] & 15) | ((packed[j - 4] >> 6) << 4);
            m = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
        }
        const float d = dh * (float) sc;
        if (d == 0.0f) {
            continue;
        }
        const float dm = dminh * (float) m;
        for (int l = 0; l < 32; l++) {
            L[32*j + l] = (uchar) clamp(nearest_int((x[32*j + l] + dm) / d), 0, nmax);
        }
    }
    if (t == T_Q4_K) {
        __global uchar * q = p + 16;
        for (int j = 0; j < QKK; j += 64, q += 32) {
            for (int l = 0; l < 32; l++) {
                q[l] = (uchar) (L[j + l] | (L[j + l + 32] << 4));
            }
        }
        return;
    }
    __global uchar * qh = p + 16;
    __global uchar * ql = p + 48;
    for (int j = 0; j < 32; j++) {
        qh[j] = 0;
    }
    uchar m1 = 1, m2 = 2;
    for (int n = 0; n < QKK; n += 64, ql += 32, m1 <<= 2, m2 <<= 2) {
        for (int j = 0; j < 32; j++) {
            int l1 = L[n + j], l2 = L[n + j + 32];
            if (l1 > 15) {
                l1 -= 16;
                qh[j] |= m1;
            }
            if (l2 > 15) {
                l2 -= 16;
                qh[j] |= m2;
            }
            ql[j] = (uchar) (l1 | (l2 << 4));
        }
    }
}

// Q6_K scale search of one group of 16 (no importance matrix: weights x^2, no refinement): the
// largest magnitude maps to -32 first, then the candidates -(32 + 0.1 is) / max, |is| <= 9,
// replace it when strictly better
float search_sym16(const float * x, uchar * L) {
    float amax = 0.0f, mx = 0.0f;
    for (int i = 0; i < 16; i++) {
        const float ax = fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            mx = x[i];
        }
    }
    if (amax < 1e-15f) {
        for (int i = 0; i < 16; i++) {
            L[i] = 0;
        }
        return 0.0f;
    }
    const int nmax = 32, ncand = 9;
    float best_scale = 0.0f, best = 0.0f;
    for (int c = 0; c <= 2*ncand + 1; c++) {
        const int is = c == 0 ? 0 : c - 1 - ncand;
        const float iscale = -((float) nmax + 0.1f * (float) is) / mx;
        float sumlx = 0.0f, suml2 = 0.0f;
        for (int i = 0; i < 16; i++) {
            const int l = clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
            const float wi = x[i] * x[i];
            sumlx += wi * x[i] * (float) l;
            suml2 += wi * (float) l * (float) l;
        }
        if (c == 0 || (suml2 > 0.0f && sumlx * sumlx > best * suml2)) {
            best_scale = suml2 > 0.0f ? sumlx / suml2 : 0.0f;
            best = best_scale * sumlx;
            for (int i = 0; i < 16; i++) {
                L[i] = (uchar) (clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1) + nmax);
            }
        }
    }
    return best_scale;
}

void quant_q6_K(const float * x, __global uchar * p) {
    uchar L[QKK];
    float scales[16];
    float max_scale = 0.0f, amax = 0.0f;
    for (int ib = 0; ib < 16; ib++) {
        scales[ib] = search_sym16(x + 16*ib, L + 16*ib);
        if (fabs(scales[ib]) > amax) {
            amax = fabs(scales[ib]);
            max_scale = scales[ib];
        }
    }
    if (amax < 1e-15f) {
        for (int j = 0; j < 210; j++) {
            p[j] = 0;
        }
        return;
    }
    const float iscale = -128.0f / max_scale;
    put_half(p + 208, 1.0f / iscale);
    const float d_all = get_half(p + 208);
    __global char * sc = (__global char *) (p + 192);
    for (int ib = 0; ib < 16; ib++) {
        sc[ib] = (char) clamp(nearest_int(iscale * scales[ib]), -128, 127);
    }
    for (int j = 0; j < 16; j++) {
        const float d = d_all * (float) sc[j];
        if (d == 0.0f) {
            continue;
        }
        for (int l = 0; l < 16; l++) {
            L[16*j + l] = (uchar) (clamp(nearest_int(x[16*j + l] / d), -32, 31) + 32);
        }
    }
    __global uchar * ql = p;
    __global uchar * qh = p + 128;
    for (int j = 0; j < QKK; j += 128, ql += 64, qh += 32) {
        for (int l = 0; l < 32; l++) {
            const uchar q1 = L[j + l] & 15, q2 = L[j + l + 32] & 15;
            const uchar q3 = L[j + l + 64] & 15, q4 = L[j + l + 96] & 15;
            ql[l] = (uchar) (q1 | (q3 << 4));
            ql[l + 32] = (uchar) (q2 | (q4 << 4));
            qh[l] = (uchar) ((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4) |
                             ((L[j + l + 96] >> 4) << 6));
        }
    }
}

// one block of type t from the values x (QS, or QKK for the K types)
void quant_store_block(const float * x, int t, __global uchar * p) {
    switch (t) {
        case T_Q8_0:  quant_q8_0(x, p); break;
        case T_MXFP4: quant_mxfp4(x, p); break;
        case T_Q4_K:
        case T_Q5_K:  quant_k4(x, t, p); break;
        case T_Q6_K:  quant_q6_K(x, p); break;
        default:      quant_legacy(x, t, p); break;
    }
}

// the block's values from a float row (element i0 .. i0 + n - 1 of row (i1, i2, i3))
void load_block(const __global char * src, const tdesc sd, long i0, long i1, long i2, long i3, int n, float * x) {
    if (sd.type == T_F32 && sd.nb[0] == 4) {
        const __global float * s = (const __global float *) TPTR(src, sd, i0, i1, i2, i3);
        for (int j = 0; j < n; j++) {
            x[j] = s[j];
        }
        return;
    }
    for (int j = 0; j < n; j++) {
        x[j] = load_f(TPTR(src, sd, i0 + j, i1, i2, i3), sd.type);
    }
}

// CPY of a float tensor into a quantized one of the same shape (rows of whole blocks, stored
// contiguously): one work-item per destination block
__kernel void k_cpy_to_q(__global const char * src, tdesc sd, __global uchar * dst, tdesc dd) {
    const int bv = qstore_block_values(dd.type);
    const long nb0 = dd.ne[0] / bv;
    long ib = get_global_id(0);
    if (ib >= nb0 * dd.ne[1] * dd.ne[2] * dd.ne[3]) {
        return;
    }
    const long blk = ib % nb0; ib /= nb0;
    const long i1 = ib % dd.ne[1]; ib /= dd.ne[1];
    const long i2 = ib % dd.ne[2];
    const long i3 = ib / dd.ne[2];
    float x[QKK];
    load_block(src, sd, blk*bv, i1, i2, i3, bv, x);
    quant_store_block(x, dd.type, dst + dd.offs + i1*dd.nb[1] + i2*dd.nb[2] + i3*dd.nb[3] + blk*qblock_bytes(dd.type));
}

// SET_ROWS into a quantized dst: row i of b in (i2, i3) goes to row idx(i, i2 % idx.ne1,
// i3 % idx.ne2) of dst, quantized; one work-item per destination block; rows outside dst are
// skipped
__kernel void k_set_rows_q(__global const char * b, tdesc bd, __global const char * idx, tdesc id,
                           __global uchar * dst, tdesc dd) {
    const int bv = qstore_block_values(dd.type);
    const long nb0 = bd.ne[0] / bv;
    long ib = get_global_id(0);
    if (ib >= nb0 * bd.ne[1] * bd.ne[2] * bd.ne[3]) {
        return;
    }
    const long blk = ib % nb0; ib /= nb0;
    const long i1 = ib % bd.ne[1]; ib /= bd.ne[1];
    const long i2 = ib % bd.ne[2];
    const long i3 = ib / bd.ne[2];
    const long r = load_idx(TPTR(idx, id, i1, bmod(i2, id.ne[1], bd.ne[2]), bmod(i3, id.ne[2], bd.ne[3]), 0), id.type);
    if (r < 0 || r >= dd.ne[1]) {
        return;
    }
    float x[QKK];
    load_block(b, bd, blk*bv, i1, i2, i3, bv, x);
    quant_store_block(x, dd.type, dst + dd.offs + r*dd.nb[1] + i2*dd.nb[2] + i3*dd.nb[3] + blk*qblock_bytes(dd.type));
}
