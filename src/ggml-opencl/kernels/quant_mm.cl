// Fast MUL_MAT with quantized weights, and MUL_MAT_ID with quantized or float weights (host side:
// ocl-quant-mm.c). kernels/common.cl comes first.
//
// dst(n, m, i2, i3) = sum_k a(k, n, a2, a3) * b(k, m, i2, i3), a quantized [K, N, A2, A3] (whole
// blocks, rows and offsets 2-byte aligned), b F32 with contiguous rows (4-byte aligned), dst F32;
// a broadcast over dims 2 and 3; work dimension 2 runs over the batches i2 + B2*i3.
//
// One kernel per weight type (the type is a compile-time constant, so each block decoder below is
// straight-line vector code). The weights are decoded 32 values at a time into two float16
// registers, never stored:
//   mvq_<type>  few columns: a work-item computes MVQ_RN rows of one column; each decoded
//               group meets one 32-value slice of b.
//   mmq_<type>  many columns: a work-item computes an MMQ_RM x MMQ_RN block (MMQ_RM columns of b,
//               MMQ_RN rows of a), so a decoded group is used MMQ_RM times.
//   mvg_<type>  few columns on GPUs: MVG_LANES work-items share a row, lane l taking the groups
//               l, l + MVG_LANES, ... (neighbouring lanes read neighbouring blocks), the partial
//               sums added in local memory; MVG_ROWS rows per work-group.
// Block formats: kernels/quant.cl and docs/quantization.md.

#pragma OPENCL FP_CONTRACT ON
#define MAD(x, y, z) ((x)*(y) + (z))
#define UNROLL _Pragma("unroll")

#define MVQ_RN 4
#define MMQ_RM 6
#define MMQ_RN 2
#define MVG_LANES 16
#define MVG_ROWS 4
#define MVG_WG (MVG_LANES*MVG_ROWS)

inline float hload(const __global uchar * p) {
    return vload_half(0, (const __global half *) p);
}

inline uint u32_at(const __global uchar * p) {
    return (uint) p[0] | ((uint) p[1] << 8) | ((uint) p[2] << 16) | ((uint) p[3] << 24);
}

// the fifth bits of 16 values: bits sh .. sh + 15 of qh, each moved to bit 4
inline uint16 fifth_bits(uint qh, uint sh) {
    const uint16 bit = (uint16) (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) + sh;
    return (((uint16) qh >> bit) & 1u) << 4;
}

// E2M1 nibbles (sign, 2-bit exponent, 1-bit mantissa) as twice their value: 0 1 2 3 4 6 8 12
inline float16 e2m1x2(uchar16 nib) {
    const int16 n = convert_int16(nib);
    const int16 e = (n >> 1) & 3;
    const int16 mant = n & 1;
    const int16 mag = select(mant, (2 | mant) << max(e - 1, 0), e != 0);
    return convert_float16(select(mag, -mag, (n & 8) != 0));
}

// 6-bit scale and min of group g of a Q4_K / Q5_K block (scales: the block's 12 bytes)
inline void kq_scale_min(const __global uchar * q, int g, float * sc, float * mn) {
    if (g < 4) {
        *sc = (float) (q[g] & 63);
        *mn = (float) (q[g + 4] & 63);
    } else {
        *sc = (float) ((q[g + 4] & 15) | ((q[g - 4] >> 6) << 4));
        *mn = (float) ((q[g + 4] >> 4) | ((q[g] >> 6) << 4));
    }
}

// the 32 values of group s of a row: *lo values 0..15, *hi values 16..31
__attribute__((always_inline))
inline void decode32(const __global uchar * row, long s, const int t, float16 * lo, float16 * hi) {
    if (t == T_F32) {
        *lo = vload16(2*s, (const __global float *) row);
        *hi = vload16(2*s + 1, (const __global float *) row);
    } else if (t == T_F16) {
        *lo = vload_half16(2*s, (const __global half *) row);
        *hi = vload_half16(2*s + 1, (const __global half *) row);
    } else if (t == T_BF16) {
        *lo = as_float16(convert_uint16(vload16(2*s, (const __global ushort *) row)) << 16);
        *hi = as_float16(convert_uint16(vload16(2*s + 1, (const __global ushort *) row)) << 16);
    } else if (t == T_Q8_0) {
        const __global uchar * p = row + s*34;
        const float d = hload(p);
        const __global char * q = (const __global char *) (p + 2);
        *lo = convert_float16(vload16(0, q)) * d;
        *hi = convert_float16(vload16(1, q)) * d;
    } else if (t == T_Q4_0 || t == T_Q4_1) {
        const bool m1 = t == T_Q4_1;
        const __global uchar * p = row + s*(m1 ? 20 : 18);
        const float d = hload(p);
        const float m = m1 ? hload(p + 2) : -8.0f*d;
        const uchar16 q = vload16(0, p + (m1 ? 4 : 2));
        *lo = MAD(convert_float16(q & (uchar) 15), d, m);
        *hi = MAD(convert_float16(q >> (uchar) 4), d, m);
    } else if (t == T_Q5_0 || t == T_Q5_1) {
        const bool m1 = t == T_Q5_1;
        const __global uchar * p = row + s*(m1 ? 24 : 22);
        const float d = hload(p);
        const float m = m1 ? hload(p + 2) : -16.0f*d;
        const uint qh = u32_at(p + (m1 ? 4 : 2));
        const uint16 q = convert_uint16(vload16(0, p + (m1 ? 8 : 6)));
        *lo = MAD(convert_float16((q & 15u) | fifth_bits(qh, 0)), d, m);
        *hi = MAD(convert_float16((q >> 4) | fifth_bits(qh, 16)), d, m);
    } else if (t == T_MXFP4) {
        const __global uchar * p = row + s*17;
        const uint e = p[0];
        // 2^(e - 127) / 2: the nibbles decode to twice their value
        const float d = as_float(e < 2 ? 0x00200000u << e : (e - 1) << 23);
        const uchar16 q = vload16(0, p + 1);
        *lo = e2m1x2(q & (uchar) 15) * d;
        *hi = e2m1x2(q >> (uchar) 4) * d;
    } else if (t == T_Q4_K || t == T_Q5_K) {
        const bool five = t == T_Q5_K;
        const __global uchar * p = row + (s >> 3)*(five ? 176 : 144);
        const int g = (int) (s & 7);
        float sc, mn;
        kq_scale_min(p + 4, g, &sc, &mn);
        const float d = hload(p) * sc;
        const float m = -hload(p + 2) * mn;
        const __global uchar * qs = p + (five ? 48 : 16) + 32*(g >> 1);
        const uint shift = (uint) (g & 1) * 4;
        uint16 ql = (convert_uint16(vload16(0, qs)) >> shift) & 15u;
        uint16 qhh = (convert_uint16(vload16(1, qs)) >> shift) & 15u;
        if (five) {
            const __global uchar * qh = p + 16;
            ql  |= ((convert_uint16(vload16(0, qh)) >> (uint) g) & 1u) << 4;
            qhh |= ((convert_uint16(vload16(1, qh)) >> (uint) g) & 1u) << 4;
        }
        *lo = MAD(convert_float16(ql), d, m);
        *hi = MAD(convert_float16(qhh), d, m);
    } else if (t == T_Q6_K) {
        const __global uchar * p = row + (s >> 3)*210;
        const int g = (int) (s & 7);
        const int h = g >> 2, k = g & 3;
        const float d = hload(p + 208);
        const __global uchar * ql = p + 64*h + 32*(k & 1);
        const __global uchar * qh = p + 128 + 32*h;
        const __global char * sc = (const __global char *) (p + 192) + 8*h + 2*k;
        const uint ls = (uint) (k >> 1) * 4, hs = (uint) (2*k);
        const int16 q0 = convert_int16(((convert_uint16(vload16(0, ql)) >> ls) & 15u) | (((convert_uint16(vload16(0, qh)) >> hs) & 3u) << 4)) - 32;
        const int16 q1 = convert_int16(((convert_uint16(vload16(1, ql)) >> ls) & 15u) | (((convert_uint16(vload16(1, qh)) >> hs) & 3u) << 4)) - 32;
        *lo = convert_float16(q0) * (d * (float) sc[0]);
        *hi = convert_float16(q1) * (d * (float) sc[1]);
    }
}

inline float sum16(float16 v) {
    const float8 h = v.lo + v.hi;
    const float4 q = h.lo + h.hi;
    const float2 d = q.lo + q.hi;
    return d.x + d.y;
}

// byte offsets of matrix (i2, i3) of a (broadcast), b and dst; batch = i2 + B2*i3
inline void qbatch_offsets(const tdesc ad, const tdesc bd, const tdesc dd, long batch,
                           ulong * oa, ulong * ob, ulong * od) {
    const long i2 = batch % bd.ne[2];
    const long i3 = batch / bd.ne[2];
    *oa = ad.offs + (i2 / (bd.ne[2] / ad.ne[2]))*ad.nb[2] + (i3 / (bd.ne[3] / ad.ne[3]))*ad.nb[3];
    *ob = bd.offs + i2*bd.nb[2] + i3*bd.nb[3];
    *od = dd.offs + i2*dd.nb[2] + i3*dd.nb[3];
}

// the dot products r[j] of the MVQ_RN rows pa[j] (ns groups of 32) with the F32 column pb
__attribute__((always_inline))
inline void mvq_dots(const __global uchar * const * pa, const __global float * pb, long ns, const int t, float * r) {
    float16 acc[MVQ_RN];
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        acc[j] = (float16) 0.0f;
    }
    for (long s = 0; s < ns; s++) {
        const float16 b0 = vload16(2*s, pb);
        const float16 b1 = vload16(2*s + 1, pb);
        UNROLL for (int j = 0; j < MVQ_RN; j++) {
            float16 lo, hi;
            decode32(pa[j], s, t, &lo, &hi);
            acc[j] = MAD(lo, b0, acc[j]);
            acc[j] = MAD(hi, b1, acc[j]);
        }
    }
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        r[j] = sum16(acc[j]);
    }
}

// MVQ_RN values dst(n0 .. n0 + MVQ_RN - 1, m) per work-item; rows past N are clamped to the last
// one and not stored
__attribute__((always_inline))
inline void mvq(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                __global char * dst, const tdesc dd, const int t) {
    const long N = ad.ne[1];
    const long n0 = get_global_id(0) * MVQ_RN;
    const long m = get_global_id(1);
    if (n0 >= N || m >= bd.ne[1]) {
        return;
    }
    ulong oa, ob, od;
    qbatch_offsets(ad, bd, dd, get_global_id(2), &oa, &ob, &od);
    const __global uchar * pa[MVQ_RN];
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        pa[j] = a + oa + min(n0 + j, N - 1) * ad.nb[1];
    }
    const __global float * pb = (const __global float *) (b + ob + m*bd.nb[1]);
    float r[MVQ_RN];
    mvq_dots(pa, pb, ad.ne[0] / 32, t, r);
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        if (n0 + j < N) {
            *(__global float *) (dst + od + (n0 + j)*dd.nb[0] + m*dd.nb[1]) = r[j];
        }
    }
}

// lane's share of the dot product of row pa (groups lane, lane + MVG_LANES, ...) with pb
__attribute__((always_inline))
inline float mvg_partial(const __global uchar * pa, const __global float * pb, long ns, int lane, const int t) {
    float16 acc = (float16) 0.0f;
    for (long s = lane; s < ns; s += MVG_LANES) {
        float16 lo, hi;
        decode32(pa, s, t, &lo, &hi);
        acc = MAD(lo, vload16(2*s, pb), acc);
        acc = MAD(hi, vload16(2*s + 1, pb), acc);
    }
    return sum16(acc);
}

// the sum of the MVG_LANES partial sums of this work-item's row, valid in lane 0; every
// work-item of the group must call it (barriers)
inline float mvg_row_sum(float part, __local float * red) {
    const int lid = get_local_id(0);
    const int lane = lid % MVG_LANES;
    red[lid] = part;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = MVG_LANES/2; w > 0; w >>= 1) {
        if (lane < w) {
            red[lid] += red[lid + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return red[lid];
}

// dst(n, m) for the MVG_ROWS rows n of work-group 0's index; column m = global id 1, batch =
// global id 2. Rows past N are clamped to the last one and not stored.
__attribute__((always_inline))
inline void mvg(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                __global char * dst, const tdesc dd, const int t, __local float * red) {
    const int lid = get_local_id(0);
    const int lane = lid % MVG_LANES;
    const long N = ad.ne[1];
    const long n = get_group_id(0)*MVG_ROWS + lid / MVG_LANES;
    const long m = get_global_id(1);
    ulong oa, ob, od;
    qbatch_offsets(ad, bd, dd, get_global_id(2), &oa, &ob, &od);
    const __global uchar * pa = a + oa + min(n, N - 1) * ad.nb[1];
    const __global float * pb = (const __global float *) (b + ob + m*bd.nb[1]);
    const float r = mvg_row_sum(mvg_partial(pa, pb, ad.ne[0] / 32, lane, t), red);
    if (lane == 0 && n < N) {
        *(__global float *) (dst + od + n*dd.nb[0] + m*dd.nb[1]) = r;
    }
}

// MUL_MAT_ID as mvq_id in mvg's shape: rows of work-group 0's index, slot e = global id 1, token =
// global id 2
__attribute__((always_inline))
inline void mvg_id(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                   const __global char * ids, const tdesc idd, __global char * dst, const tdesc dd, const int t,
                   __local float * red) {
    const int lid = get_local_id(0);
    const int lane = lid % MVG_LANES;
    const long N = ad.ne[1];
    const long n = get_group_id(0)*MVG_ROWS + lid / MVG_LANES;
    const long e = get_global_id(1);
    const long tok = get_global_id(2);
    const long x = *(const __global int *) TPTR(ids, idd, e, tok, 0, 0);
    const bool valid = x >= 0 && x < ad.ne[2];
    float part = 0.0f;
    if (valid) {
        const __global uchar * pa = a + ad.offs + x*ad.nb[2] + min(n, N - 1) * ad.nb[1];
        const __global float * pb = (const __global float *) (b + bd.offs + (e % bd.ne[1])*bd.nb[1] + tok*bd.nb[2]);
        part = mvg_partial(pa, pb, ad.ne[0] / 32, lane, t);
    }
    const float r = mvg_row_sum(part, red);
    if (lane == 0 && n < N) {
        *(__global float *) (dst + dd.offs + n*dd.nb[0] + e*dd.nb[1] + tok*dd.nb[2]) = r;
    }
}

// an MMQ_RM x MMQ_RN block of dst per work-item (columns m0.., rows n0..); out-of-range rows and
// columns are clamped and not stored
__attribute__((always_inline))
inline void mmq(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                __global char * dst, const tdesc dd, const int t) {
    const long N = ad.ne[1];
    const long M = bd.ne[1];
    const long n0 = get_global_id(0) * MMQ_RN;
    const long m0 = get_global_id(1) * MMQ_RM;
    if (n0 >= N || m0 >= M) {
        return;
    }
    ulong oa, ob, od;
    qbatch_offsets(ad, bd, dd, get_global_id(2), &oa, &ob, &od);
    const __global uchar * pa[MMQ_RN];
    const __global float * pb[MMQ_RM];
    UNROLL for (int j = 0; j < MMQ_RN; j++) {
        pa[j] = a + oa + min(n0 + j, N - 1) * ad.nb[1];
    }
    UNROLL for (int i = 0; i < MMQ_RM; i++) {
        pb[i] = (const __global float *) (b + ob + min(m0 + i, M - 1) * bd.nb[1]);
    }
    // 8-wide accumulators (the two halves of each 16-wide product summed): fewer registers
    float8 acc[MMQ_RM][MMQ_RN];
    UNROLL for (int i = 0; i < MMQ_RM; i++) {
        UNROLL for (int j = 0; j < MMQ_RN; j++) {
            acc[i][j] = (float8) 0.0f;
        }
    }
    const long ns = ad.ne[0] / 32;
    for (long s = 0; s < ns; s++) {
        float16 lo[MMQ_RN], hi[MMQ_RN];
        UNROLL for (int j = 0; j < MMQ_RN; j++) {
            decode32(pa[j], s, t, &lo[j], &hi[j]);
        }
        UNROLL for (int i = 0; i < MMQ_RM; i++) {
            const float16 b0 = vload16(2*s, pb[i]);
            const float16 b1 = vload16(2*s + 1, pb[i]);
            UNROLL for (int j = 0; j < MMQ_RN; j++) {
                float8 x = acc[i][j];
                x = MAD(lo[j].lo, b0.lo, x);
                x = MAD(lo[j].hi, b0.hi, x);
                x = MAD(hi[j].lo, b1.lo, x);
                x = MAD(hi[j].hi, b1.hi, x);
                acc[i][j] = x;
            }
        }
    }
    UNROLL for (int i = 0; i < MMQ_RM; i++) {
        UNROLL for (int j = 0; j < MMQ_RN; j++) {
            if (m0 + i < M && n0 + j < N) {
                const float4 q = acc[i][j].lo + acc[i][j].hi;
                *(__global float *) (dst + od + (n0 + j)*dd.nb[0] + (m0 + i)*dd.nb[1]) = (q.x + q.y) + (q.z + q.w);
            }
        }
    }
}

// MUL_MAT_ID: dst(n, e, tok) = sum_k as(k, n, ids(e, tok)) * b(k, e % b.ne1, tok); as [K, N,
// n_expert], b F32 [K, n_b, n_tok], ids I32 [n_used, n_tok], dst F32 [N, n_used, n_tok]. A
// work-item computes MVQ_RN rows for one (e, tok) (global ids 0, 1, 2); an id outside the experts
// gives zeros.
__attribute__((always_inline))
inline void mvq_id(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                   const __global char * ids, const tdesc idd, __global char * dst, const tdesc dd, const int t) {
    const long N = ad.ne[1];
    const long n0 = get_global_id(0) * MVQ_RN;
    const long e = get_global_id(1);
    const long tok = get_global_id(2);
    if (n0 >= N || e >= idd.ne[0]) {
        return;
    }
    const long x = *(const __global int *) TPTR(ids, idd, e, tok, 0, 0);
    __global char * out = dst + dd.offs + e*dd.nb[1] + tok*dd.nb[2];
    float r[MVQ_RN];
    if (x < 0 || x >= ad.ne[2]) {
        UNROLL for (int j = 0; j < MVQ_RN; j++) {
            r[j] = 0.0f;
        }
    } else {
        const __global uchar * pa[MVQ_RN];
        UNROLL for (int j = 0; j < MVQ_RN; j++) {
            pa[j] = a + ad.offs + x*ad.nb[2] + min(n0 + j, N - 1) * ad.nb[1];
        }
        const __global float * pb = (const __global float *) (b + bd.offs + (e % bd.ne[1])*bd.nb[1] + tok*bd.nb[2]);
        mvq_dots(pa, pb, ad.ne[0] / 32, t, r);
    }
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        if (n0 + j < N) {
            *(__global float *) (out + (n0 + j)*dd.nb[0]) = r[j];
        }
    }
}

// MUL_MAT_ID for many tokens, the (slot, token) pairs grouped by expert so that a decoded group of
// weights serves MMQ_RM pairs of one expert. k_mmid_group (one work-item, before the product)
// writes the grouping into a scratch buffer of ints:
//   cstart[n_expert + 1]  first chunk (of MMQ_RM pairs) of each expert; cstart[n_expert] = chunks
//   pstart[n_expert + 1]  first pair of each expert in list
//   cursor[n_expert]      fill positions
//   list[n_used*n_tok]    the pairs e + n_used*tok, by expert, in token order
// and stores zeros for the pairs whose id is outside the experts.
__kernel void k_mmid_group(__global const char * ids, const tdesc idd, __global int * g, long n_expert,
                           __global char * dst, const tdesc dd) {
    if (get_global_id(0) != 0) {
        return;
    }
    const long n_used = dd.ne[1];
    const long n_tok = dd.ne[2];
    __global int * cstart = g;
    __global int * pstart = g + n_expert + 1;
    __global int * cursor = g + 2*(n_expert + 1);
    __global int * list = g + 2*(n_expert + 1) + n_expert;
    for (long x = 0; x < n_expert; x++) {
        cursor[x] = 0;
    }
    for (long tok = 0; tok < n_tok; tok++) {
        for (long e = 0; e < n_used; e++) {
            const int x = *(const __global int *) TPTR(ids, idd, e, tok, 0, 0);
            if (x >= 0 && x < n_expert) {
                cursor[x]++;
            } else {
                __global char * out = dst + dd.offs + e*dd.nb[1] + tok*dd.nb[2];
                for (long n = 0; n < dd.ne[0]; n++) {
                    *(__global float *) (out + n*dd.nb[0]) = 0.0f;
                }
            }
        }
    }
    int c = 0, p = 0;
    for (long x = 0; x < n_expert; x++) {
        cstart[x] = c;
        pstart[x] = p;
        c += (cursor[x] + MMQ_RM - 1) / MMQ_RM;
        p += cursor[x];
        cursor[x] = pstart[x];
    }
    cstart[n_expert] = c;
    pstart[n_expert] = p;
    for (long tok = 0; tok < n_tok; tok++) {
        for (long e = 0; e < n_used; e++) {
            const int x = *(const __global int *) TPTR(ids, idd, e, tok, 0, 0);
            if (x >= 0 && x < n_expert) {
                list[cursor[x]++] = (int) (e + n_used*tok);
            }
        }
    }
}

// an MMQ_RM x MMQ_RN block per work-item as in mmq: rows n0.. of expert x's weights times
// MMQ_RM of its (slot, token) pairs; work dimension 1 runs over the chunks of every expert (an
// upper bound: items past the last chunk return), found in cstart by bisection
__attribute__((always_inline))
inline void mmq_id(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                   const __global int * g, const long n_expert, __global char * dst, const tdesc dd, const int t) {
    const long N = ad.ne[1];
    const long n0 = get_global_id(0) * MMQ_RN;
    const int c = (int) get_global_id(1);
    const __global int * cstart = g;
    const __global int * pstart = g + n_expert + 1;
    const __global int * list = g + 2*(n_expert + 1) + n_expert;
    if (n0 >= N || c >= cstart[n_expert]) {
        return;
    }
    long lo = 0, hi = n_expert - 1; // the last expert whose first chunk is at most c
    while (lo < hi) {
        const long mid = (lo + hi + 1) / 2;
        if (cstart[mid] <= c) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    const long x = lo;
    const int p0 = pstart[x] + (c - cstart[x]) * MMQ_RM;
    const int p_end = pstart[x + 1];
    const long n_used = dd.ne[1];
    const __global uchar * pa[MMQ_RN];
    const __global float * pb[MMQ_RM];
    long pair[MMQ_RM];
    UNROLL for (int j = 0; j < MMQ_RN; j++) {
        pa[j] = a + ad.offs + x*ad.nb[2] + min(n0 + j, N - 1) * ad.nb[1];
    }
    UNROLL for (int i = 0; i < MMQ_RM; i++) {
        pair[i] = list[min(p0 + i, p_end - 1)];
        const long e = pair[i] % n_used;
        const long tok = pair[i] / n_used;
        pb[i] = (const __global float *) (b + bd.offs + (e % bd.ne[1])*bd.nb[1] + tok*bd.nb[2]);
    }
    float8 acc[MMQ_RM][MMQ_RN];
    UNROLL for (int i = 0; i < MMQ_RM; i++) {
        UNROLL for (int j = 0; j < MMQ_RN; j++) {
            acc[i][j] = (float8) 0.0f;
        }
    }
    const long ns = ad.ne[0] / 32;
    for (long s = 0; s < ns; s++) {
        float16 lo16[MMQ_RN], hi16[MMQ_RN];
        UNROLL for (int j = 0; j < MMQ_RN; j++) {
            decode32(pa[j], s, t, &lo16[j], &hi16[j]);
        }
        UNROLL for (int i = 0; i < MMQ_RM; i++) {
            const float16 b0 = vload16(2*s, pb[i]);
            const float16 b1 = vload16(2*s + 1, pb[i]);
            UNROLL for (int j = 0; j < MMQ_RN; j++) {
                float8 v = acc[i][j];
                v = MAD(lo16[j].lo, b0.lo, v);
                v = MAD(lo16[j].hi, b0.hi, v);
                v = MAD(hi16[j].lo, b1.lo, v);
                v = MAD(hi16[j].hi, b1.hi, v);
                acc[i][j] = v;
            }
        }
    }
    UNROLL for (int i = 0; i < MMQ_RM; i++) {
        const long e = pair[i] % n_used;
        const long tok = pair[i] / n_used;
        __global char * out = dst + dd.offs + e*dd.nb[1] + tok*dd.nb[2];
        UNROLL for (int j = 0; j < MMQ_RN; j++) {
            if (p0 + i < p_end && n0 + j < N) {
                const float4 q = acc[i][j].lo + acc[i][j].hi;
                *(__global float *) (out + (n0 + j)*dd.nb[0]) = (q.x + q.y) + (q.z + q.w);
            }
        }
    }
}

// SWIGLU fused into the few-column product (ocl-quant-mm.c, ocl-fuse.c): p = a x b has 2*nc rows,
// dst(n, m) = silu(p(n, m)) * p(n + nc, m) for the nc rows of dst (one matrix, no batches). The
// rows' dot products are mvq's / mvg's and silu is the SWIGLU kernel's of the same device shape,
// so dst equals the two launches' result bit for bit.

// CPU devices: mvq's work-item over rows n0.. of both halves; silu as k_vswiglu: vexp16 on the
// rows of dst's whole 16-value chunks, exp on the tail
__attribute__((always_inline))
inline void mvq_swiglu(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                       __global char * dst, const tdesc dd, const int t) {
    const long nc = dd.ne[0];
    const long n0 = get_global_id(0) * MVQ_RN;
    const long m = get_global_id(1);
    if (n0 >= nc || m >= bd.ne[1]) {
        return;
    }
    const __global uchar * pg[MVQ_RN];
    const __global uchar * pu[MVQ_RN];
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        pg[j] = a + ad.offs + min(n0 + j, nc - 1) * ad.nb[1];
        pu[j] = a + ad.offs + (nc + min(n0 + j, nc - 1)) * ad.nb[1];
    }
    const __global float * pb = (const __global float *) (b + bd.offs + m*bd.nb[1]);
    float x[16] = { 0.0f }, g[16] = { 0.0f }, y[16];
    mvq_dots(pg, pb, ad.ne[0] / 32, t, x);
    mvq_dots(pu, pb, ad.ne[0] / 32, t, g);
    const float16 xv = vload16(0, x);
    vstore16(xv / (1.0f + vexp16(-xv)) * vload16(0, g), 0, y);
    const long vec_end = nc / 16 * 16;
    __global float * z = (__global float *) (dst + dd.offs + m*dd.nb[1]);
    UNROLL for (int j = 0; j < MVQ_RN; j++) {
        const long n = n0 + j;
        if (n < nc) {
            z[n] = n < vec_end ? y[j] : x[j] / (1.0f + exp(-x[j])) * g[j];
        }
    }
}

// GPUs: mvg's work-group over 4 rows of both halves; silu as k_gswiglu4 (v4: exp on the group's
// four rows as one float4, the rows of one float4 item there) or k_gswiglu1
__attribute__((always_inline))
inline void mvg_swiglu(const __global uchar * a, const tdesc ad, const __global char * b, const tdesc bd,
                       __global char * dst, const tdesc dd, const int t, const int v4, __local float * red) {
    const int lid = get_local_id(0);
    const int lane = lid % MVG_LANES;
    const int row = lid / MVG_LANES;
    const long nc = dd.ne[0];
    const long n0 = get_group_id(0)*MVG_ROWS;
    const long n = n0 + row;
    const long m = get_global_id(1);
    const long ns = ad.ne[0] / 32;
    const __global uchar * pg = a + ad.offs + min(n, nc - 1) * ad.nb[1];
    const __global uchar * pu = a + ad.offs + (nc + min(n, nc - 1)) * ad.nb[1];
    const __global float * pb = (const __global float *) (b + bd.offs + m*bd.nb[1]);
    const float x = mvg_row_sum(mvg_partial(pg, pb, ns, lane, t), red);
    const float g = mvg_row_sum(mvg_partial(pu, pb, ns, lane, t), red);
    __global float * z = (__global float *) (dst + dd.offs + m*dd.nb[1]);
    if (!v4) {
        if (lane == 0 && n < nc) {
            z[n] = x / (1.0f + exp(-x)) * g;
        }
        return;
    }
    barrier(CLK_LOCAL_MEM_FENCE); // every red[lid] read
    if (lane == 0) {
        red[row] = x;
        red[MVG_ROWS + row] = g;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0 && n0 < nc) {
        const float4 xv = vload4(0, red);
        const float4 gv = vload4(1, red);
        vstore4(xv / (1.0f + exp(-xv)) * gv, 0, z + n0);
    }
}

#define QMM_ID_ARGS __global const uchar * a, const tdesc ad, __global const char * b, const tdesc bd, \
                    __global const char * ids, const tdesc idd, __global char * dst, const tdesc dd

#define QMM_GID_ARGS __global const uchar * a, const tdesc ad, __global const char * b, const tdesc bd, \
                     __global const int * g, const long n_expert, __global char * dst, const tdesc dd

#define QMM_ARGS __global const uchar * a, const tdesc ad, __global const char * b, const tdesc bd, \
                 __global char * dst, const tdesc dd

#define DEFINE_QMM(name, t) \
    __kernel void mvq_##name(QMM_ARGS) { mvq(a, ad, b, bd, dst, dd, t); } \
    __kernel void mmq_##name(QMM_ARGS) { mmq(a, ad, b, bd, dst, dd, t); } \
    __kernel void mvq_id_##name(QMM_ID_ARGS) { mvq_id(a, ad, b, bd, ids, idd, dst, dd, t); } \
    __kernel void mmq_id_##name(QMM_GID_ARGS) { mmq_id(a, ad, b, bd, g, n_expert, dst, dd, t); } \
    __kernel __attribute__((reqd_work_group_size(MVG_WG, 1, 1))) \
    void mvg_##name(QMM_ARGS) { __local float red[MVG_WG]; mvg(a, ad, b, bd, dst, dd, t, red); } \
    __kernel __attribute__((reqd_work_group_size(MVG_WG, 1, 1))) \
    void mvg_id_##name(QMM_ID_ARGS) { __local float red[MVG_WG]; mvg_id(a, ad, b, bd, ids, idd, dst, dd, t, red); }

// the SWIGLU-fused GEMVs, for the quantized types
#define DEFINE_QMM_SWIGLU(name, t) \
    __kernel void mvq_swiglu_##name(QMM_ARGS) { mvq_swiglu(a, ad, b, bd, dst, dd, t); } \
    __kernel __attribute__((reqd_work_group_size(MVG_WG, 1, 1))) \
    void mvg_swiglu_##name(QMM_ARGS, const int v4) { __local float red[MVG_WG]; mvg_swiglu(a, ad, b, bd, dst, dd, t, v4, red); }

DEFINE_QMM(q4_0,  T_Q4_0)
DEFINE_QMM(q4_1,  T_Q4_1)
DEFINE_QMM(q5_0,  T_Q5_0)
DEFINE_QMM(q5_1,  T_Q5_1)
DEFINE_QMM(q8_0,  T_Q8_0)
DEFINE_QMM(q4_k,  T_Q4_K)
DEFINE_QMM(q5_k,  T_Q5_K)
DEFINE_QMM(q6_k,  T_Q6_K)
DEFINE_QMM(mxfp4, T_MXFP4)
DEFINE_QMM(f32,   T_F32)
DEFINE_QMM(f16,   T_F16)
DEFINE_QMM(bf16,  T_BF16)

DEFINE_QMM_SWIGLU(q4_0,  T_Q4_0)
DEFINE_QMM_SWIGLU(q4_1,  T_Q4_1)
DEFINE_QMM_SWIGLU(q5_0,  T_Q5_0)
DEFINE_QMM_SWIGLU(q5_1,  T_Q5_1)
DEFINE_QMM_SWIGLU(q8_0,  T_Q8_0)
DEFINE_QMM_SWIGLU(q4_k,  T_Q4_K)
DEFINE_QMM_SWIGLU(q5_k,  T_Q5_K)
DEFINE_QMM_SWIGLU(q6_k,  T_Q6_K)
DEFINE_QMM_SWIGLU(mxfp4, T_MXFP4)
