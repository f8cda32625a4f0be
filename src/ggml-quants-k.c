// The K-quant super-block formats Q2_K ... Q6_K and Q8_K (256 elements, sub-blocks of 16 or 32
// with quantized scales): dequantization bit-exact with the family's reference, and quantizers
// that follow the family's algorithms (scale search per sub-block, then the sub-block scales
// quantized against one super-block scale), optionally weighted by an importance matrix.

#include "ggml-quants.h"

#include <math.h>

GGML_QUANTS_NO_CONTRACT

#define FP16(x) GGML_FP32_TO_FP16(x)
#define F32(h)  GGML_FP16_TO_FP32(h)

#define GROUP_MAX_EPS 1e-15f

static int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// weights of a row for the importance-weighted quantizers: qw[j] * sqrt(sigma2 + x[j]^2)
static float sigma2_of(const float * x, int n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        s += x[j] * x[j];
    }
    return s / (float) n;
}

// pack 2-bit levels: byte l of each 32-byte group holds elements l, l+32, l+64, l+96
static void pack_2bit(const uint8_t * L, uint8_t * qs) {
    for (int j = 0; j < QK_K; j += 128) {
        for (int l = 0; l < 32; l++) {
            qs[j/4 + l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
        }
    }
}

//
// Q2_K: 16 sub-blocks of 16, 2-bit levels, 4-bit scale and 4-bit min per sub-block
//

static void quantize_block_q2_K(const float * x, block_q2_K * y, const float * qw, float sigma2) {
    uint8_t L[QK_K], Laux[16];
    float   w[16], sw[QK_K/16], scales[QK_K/16], mins[QK_K/16];
    float   max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < QK_K/16; j++) {
        const float * xb = x + 16*j;
        sw[j] = 0.0f;
        for (int l = 0; l < 16; l++) {
            w[l] = qw ? qw[16*j + l] * sqrtf(sigma2 + xb[l] * xb[l]) : fabsf(xb[l]);
            sw[j] += w[l];
        }
        scales[j] = qw ? ggml_quant_search_asym(16, 3, xb, w, L + 16*j, &mins[j], Laux, -0.9f, 0.05f, 36, false)
                       : ggml_quant_search_asym(16, 3, xb, w, L + 16*j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
        max_scale = fmaxf(max_scale, scales[j]);
        max_min   = fmaxf(max_min, mins[j]);
    }
    if (qw) {
        // the 4-bit scales and mins weighted by how much their sub-block matters
        uint8_t Ls[QK_K/16], Lm[QK_K/16];
        const float d = ggml_quant_search_pos(QK_K/16, 15, scales, sw, Ls);
        const float m = ggml_quant_search_pos(QK_K/16, 15, mins, sw, Lm);
        for (int j = 0; j < QK_K/16; j++) {
            y->scales[j] = (uint8_t)(Ls[j] | (Lm[j] << 4));
        }
        y->d    = FP16(d);
        y->dmin = FP16(m);
    } else if (max_scale > 0.0f) {
        const float iscale = 15.0f / max_scale;
        for (int j = 0; j < QK_K/16; j++) {
            y->scales[j] = (uint8_t) clampi(ggml_nearest_int(iscale * scales[j]), 0, 15);
        }
        y->d = FP16(max_scale / 15.0f);
    } else {
        memset(y->scales, 0, sizeof(y->scales));
        y->d = FP16(0.0f);
    }
    if (qw) {
        // scales and mins set above
    } else if (max_min > 0.0f) {
        const float iscale = 15.0f / max_min;
        for (int j = 0; j < QK_K/16; j++) {
            y->scales[j] |= (uint8_t)(clampi(ggml_nearest_int(iscale * mins[j]), 0, 15) << 4);
        }
        y->dmin = FP16(max_min / 15.0f);
    } else {
        y->dmin = FP16(0.0f);
    }
    // requantize against the stored scales
    for (int j = 0; j < QK_K/16; j++) {
        const float d = F32(y->d) * (float) (y->scales[j] & 0xF);
        if (!d) {
            continue;
        }
        const float dm = F32(y->dmin) * (float) (y->scales[j] >> 4);
        for (int l = 0; l < 16; l++) {
            L[16*j + l] = (uint8_t) clampi(ggml_nearest_int((x[16*j + l] + dm) / d), 0, 3);
        }
    }
    pack_2bit(L, y->qs);
}

void quantize_row_q2_K_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_q2_K * y = vy;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float * xb = x + i*QK_K;
        quantize_block_q2_K(xb, &y[i], qw ? qw + i*QK_K : NULL, qw ? sigma2_of(xb, QK_K) : 0.0f);
    }
}

void quantize_row_q2_K_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_q2_K_w(x, y, k, NULL);
}

void dequantize_row_q2_K(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q2_K * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d), min = F32(x[i].dmin);
        const uint8_t * q = x[i].qs;
        int is = 0;
        for (int n = 0; n < QK_K; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int half = 0; half < 2; half++) {
                    const uint8_t sc = x[i].scales[is++];
                    const float dl = d * (float) (sc & 0xF), ml = min * (float) (sc >> 4);
                    for (int l = 0; l < 16; l++) {
                        *y++ = dl * (float) ((q[16*half + l] >> shift) & 3) - ml;
                    }
                }
            }
        }
    }
}

//
// Q3_K: 16 sub-blocks of 16, 3-bit levels (2 low bits + a high-bit mask), 6-bit signed scales
//

static int q3_K_scale(const uint8_t * s, int j) {
    const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    const int hi = (s[8 + j%4] >> (2*(j/4))) & 3;
    return (lo | (hi << 4)) - 32;
}

static void quantize_block_q3_K(const float * x, block_q3_K * y, const float * qw, float sigma2) {
    uint8_t L[QK_K];
    float   w[16], sw[QK_K/16], scales[QK_K/16];
    float   max_scale = 0.0f, amax = 0.0f;
    for (int j = 0; j < QK_K/16; j++) {
        const float * xb = x + 16*j;
        sw[j] = 0.0f;
        if (qw) {
            for (int l = 0; l < 16; l++) {
                w[l] = qw[16*j + l] * sqrtf(sigma2 + xb[l] * xb[l]);
                sw[j] += w[l];
            }
        }
        // no imatrix: the family's reference (one start scale, then refinement)
        scales[j] = qw ? ggml_quant_search_sym(16, 4, xb, w, L + 16*j, 9, true)
                       : ggml_quant_search_sym(16, 4, xb, NULL, L + 16*j, 0, true);
        if (fabsf(scales[j]) > amax) {
            amax      = fabsf(scales[j]);
            max_scale = scales[j];
        }
    }
    memset(y->scales, 0, sizeof(y->scales));
    uint8_t Ls[QK_K/16];
    float   d_block = 0.0f;
    if (qw && max_scale) {
        // the 6-bit signed scales weighted by how much their sub-block matters
        d_block = ggml_quant_search_sym(QK_K/16, 32, scales, sw, Ls, 9, true);
    } else if (max_scale) {
        const float iscale = -32.0f / max_scale;
        for (int j = 0; j < QK_K/16; j++) {
            Ls[j] = (uint8_t)(clampi(ggml_nearest_int(iscale * scales[j]), -32, 31) + 32);
        }
        d_block = 1.0f / iscale;
    }
    if (max_scale) {
        for (int j = 0; j < QK_K/16; j++) {
            const int l = Ls[j];
            if (j < 8) {
                y->scales[j] = (uint8_t)(l & 0xF);
            } else {
                y->scales[j - 8] |= (uint8_t)((l & 0xF) << 4);
            }
            y->scales[j%4 + 8] |= (uint8_t)((l >> 4) << (2*(j/4)));
        }
        y->d = FP16(d_block);
    } else {
        y->d = FP16(0.0f);
    }
    for (int j = 0; j < QK_K/16; j++) {
        const float d = F32(y->d) * (float) q3_K_scale(y->scales, j);
        if (!d) {
            continue;
        }
        for (int l = 0; l < 16; l++) {
            L[16*j + l] = (uint8_t)(clampi(ggml_nearest_int(x[16*j + l] / d), -4, 3) + 4);
        }
    }
    memset(y->hmask, 0, sizeof(y->hmask));
    for (int j = 0; j < QK_K; j++) {
        if (L[j] > 3) {
            y->hmask[j % (QK_K/8)] |= (uint8_t)(1u << (j / (QK_K/8)));
            L[j] -= 4;
        }
    }
    pack_2bit(L, y->qs);
}

void quantize_row_q3_K_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_q3_K * y = vy;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float * xb = x + i*QK_K;
        quantize_block_q3_K(xb, &y[i], qw ? qw + i*QK_K : NULL, qw ? 2.0f * sigma2_of(xb, QK_K) : 0.0f);
    }
}

void quantize_row_q3_K_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_q3_K_w(x, y, k, NULL);
}

void dequantize_row_q3_K(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q3_K * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d_all = F32(x[i].d);
        const uint8_t * q  = x[i].qs;
        const uint8_t * hm = x[i].hmask;
        int     is = 0;
        uint8_t m  = 1;
        for (int n = 0; n < QK_K; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int half = 0; half < 2; half++) {
                    const float dl = d_all * (float) q3_K_scale(x[i].scales, is++);
                    for (int l = 0; l < 16; l++) {
                        const int v = ((q[16*half + l] >> shift) & 3) - ((hm[16*half + l] & m) ? 0 : 4);
                        *y++ = dl * (float) v;
                    }
                }
            }
        }
    }
}

//
// Q4_K / Q5_K: 8 sub-blocks of 32, 6-bit scales and mins packed in 12 bytes
//

static void get_scale_min_k4(int j, const uint8_t * q, uint8_t * d, uint8_t * m) {
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t)((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t)((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// the scale search and scale packing of Q4_K and Q5_K; L receives levels in [0, nmax]
static void quantize_scales_k4(const float * x, int nmax, const float * qw, uint8_t * L, uint8_t * packed,
                               ggml_fp16_t * dh, ggml_fp16_t * dminh) {
    uint8_t Laux[32];
    float   w[32], sw[QK_K/32], scales[QK_K/32], mins[QK_K/32];
    float   max_scale = 0.0f, max_min = 0.0f;
    const float sigma2 = qw ? 2.0f * sigma2_of(x, QK_K) : 0.0f;
    for (int j = 0; j < QK_K/32; j++) {
        const float * xb = x + 32*j;
        float sum_x2 = 0.0f;
        for (int l = 0; l < 32; l++) {
            sum_x2 += xb[l] * xb[l];
        }
        const float av_x = sqrtf(sum_x2 / 32.0f);
        sw[j] = 0.0f;
        for (int l = 0; l < 32; l++) {
            w[l] = qw ? qw[32*j + l] * sqrtf(sigma2 + xb[l] * xb[l]) : av_x + fabsf(xb[l]);
            sw[j] += w[l];
        }
        scales[j] = qw ? ggml_quant_search_asym(32, nmax, xb, w, L + 32*j, &mins[j], Laux, -0.9f, 0.05f, 36, false)
                  : nmax == 15
            ? ggml_quant_search_asym(32, nmax, xb, w, L + 32*j, &mins[j], Laux, -1.0f, 0.1f, 20, false)
            : ggml_quant_search_asym(32, nmax, xb, w, L + 32*j, &mins[j], Laux, -0.5f, 0.1f, 15, false);
        max_scale = fmaxf(max_scale, scales[j]);
        max_min   = fmaxf(max_min, mins[j]);
    }
    // 6-bit scales and mins: with weights, fitted to the sub-blocks' total weights
    uint8_t Ls[QK_K/32], Lm[QK_K/32];
    float   d_all = max_scale / 63.0f, m_all = max_min / 63.0f;
    if (qw) {
        d_all = ggml_quant_search_pos(QK_K/32, 63, scales, sw, Ls);
        m_all = ggml_quant_search_pos(QK_K/32, 63, mins, sw, Lm);
    } else {
        const float inv_scale = max_scale > 0.0f ? 63.0f / max_scale : 0.0f;
        const float inv_min   = max_min   > 0.0f ? 63.0f / max_min   : 0.0f;
        for (int j = 0; j < QK_K/32; j++) {
            Ls[j] = (uint8_t) clampi(ggml_nearest_int(inv_scale * scales[j]), 0, 63);
            Lm[j] = (uint8_t) clampi(ggml_nearest_int(inv_min * mins[j]), 0, 63);
        }
    }
    memset(packed, 0, K_SCALE_SIZE);
    for (int j = 0; j < QK_K/32; j++) {
        const int ls = Ls[j], lm = Lm[j];
        if (j < 4) {
            packed[j]     = (uint8_t) ls;
            packed[j + 4] = (uint8_t) lm;
        } else {
            packed[j + 4]  = (uint8_t)((ls & 0xF) | ((lm & 0xF) << 4));
            packed[j - 4] |= (uint8_t)((ls >> 4) << 6);
            packed[j]     |= (uint8_t)((lm >> 4) << 6);
        }
    }
    *dh    = FP16(d_all);
    *dminh = FP16(m_all);
    for (int j = 0; j < QK_K/32; j++) {
        uint8_t sc, m;
        get_scale_min_k4(j, packed, &sc, &m);
        const float d = F32(*dh) * (float) sc;
        if (!d) {
            continue;
        }
        const float dm = F32(*dminh) * (float) m;
        for (int l = 0; l < 32; l++) {
            L[32*j + l] = (uint8_t) clampi(ggml_nearest_int((x[32*j + l] + dm) / d), 0, nmax);
        }
    }
}

void quantize_row_q4_K_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_q4_K * y = vy;
    uint8_t L[QK_K];
    for (int64_t i = 0; i < k / QK_K; i++) {
        quantize_scales_k4(x + i*QK_K, 15, qw ? qw + i*QK_K : NULL, L, y[i].scales, &y[i].d, &y[i].dmin);
        uint8_t * q = y[i].qs;
        for (int j = 0; j < QK_K; j += 64, q += 32) {
            for (int l = 0; l < 32; l++) {
                q[l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 4));
            }
        }
    }
}

void quantize_row_q4_K_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_q4_K_w(x, y, k, NULL);
}

void quantize_row_q5_K_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_q5_K * y = vy;
    uint8_t L[QK_K];
    for (int64_t i = 0; i < k / QK_K; i++) {
        quantize_scales_k4(x + i*QK_K, 31, qw ? qw + i*QK_K : NULL, L, y[i].scales, &y[i].d, &y[i].dmin);
        uint8_t * ql = y[i].qs;
        memset(y[i].qh, 0, sizeof(y[i].qh));
        uint8_t m1 = 1, m2 = 2;
        for (int n = 0; n < QK_K; n += 64, ql += 32, m1 <<= 2, m2 <<= 2) {
            for (int j = 0; j < 32; j++) {
                int l1 = L[n + j], l2 = L[n + j + 32];
                if (l1 > 15) {
                    l1 -= 16;
                    y[i].qh[j] |= m1;
                }
                if (l2 > 15) {
                    l2 -= 16;
                    y[i].qh[j] |= m2;
                }
                ql[j] = (uint8_t)(l1 | (l2 << 4));
            }
        }
    }
}

void quantize_row_q5_K_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_q5_K_w(x, y, k, NULL);
}

void dequantize_row_q4_K(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q4_K * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d), min = F32(x[i].dmin);
        const uint8_t * q = x[i].qs;
        for (int j = 0, is = 0; j < QK_K; j += 64, q += 32, is += 2) {
            uint8_t sc, m;
            get_scale_min_k4(is, x[i].scales, &sc, &m);
            const float d1 = d * (float) sc, m1 = min * (float) m;
            get_scale_min_k4(is + 1, x[i].scales, &sc, &m);
            const float d2 = d * (float) sc, m2 = min * (float) m;
            for (int l = 0; l < 32; l++) {
                *y++ = d1 * (float) (q[l] & 0xF) - m1;
            }
            for (int l = 0; l < 32; l++) {
                *y++ = d2 * (float) (q[l] >> 4) - m2;
            }
        }
    }
}

void dequantize_row_q5_K(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q5_K * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d), min = F32(x[i].dmin);
        const uint8_t * ql = x[i].qs;
        const uint8_t * qh = x[i].qh;
        uint8_t u1 = 1, u2 = 2;
        for (int j = 0, is = 0; j < QK_K; j += 64, ql += 32, is += 2, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            get_scale_min_k4(is, x[i].scales, &sc, &m);
            const float d1 = d * (float) sc, m1 = min * (float) m;
            get_scale_min_k4(is + 1, x[i].scales, &sc, &m);
            const float d2 = d * (float) sc, m2 = min * (float) m;
            for (int l = 0; l < 32; l++) {
                *y++ = d1 * (float) ((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
            }
            for (int l = 0; l < 32; l++) {
                *y++ = d2 * (float) ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
            }
        }
    }
}

//
// Q6_K: 16 sub-blocks of 16, 6-bit levels (4 low + 2 high bits), 8-bit signed scales
//

void quantize_row_q6_K_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_q6_K * y = vy;
    uint8_t L[QK_K];
    float   scales[QK_K/16];
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float max_scale = 0.0f, amax = 0.0f;
        for (int ib = 0; ib < QK_K/16; ib++) {
            const float * xb = x + 16*ib;
            // the family weights Q6_K by the importance alone (6 bits leave little to trade)
            scales[ib] = ggml_quant_search_sym(16, 32, xb, qw ? qw + i*QK_K + 16*ib : NULL, L + 16*ib, 9,
                                               qw != NULL);
            if (fabsf(scales[ib]) > amax) {
                amax      = fabsf(scales[ib]);
                max_scale = scales[ib];
            }
        }
        if (amax < GROUP_MAX_EPS) {
            memset(&y[i], 0, sizeof(y[i]));
            continue;
        }
        const float iscale = -128.0f / max_scale;
        y[i].d = FP16(1.0f / iscale);
        for (int ib = 0; ib < QK_K/16; ib++) {
            y[i].scales[ib] = (int8_t) clampi(ggml_nearest_int(iscale * scales[ib]), -128, 127);
        }
        for (int j = 0; j < QK_K/16; j++) {
            const float d = F32(y[i].d) * (float) y[i].scales[j];
            if (!d) {
                continue;
            }
            for (int l = 0; l < 16; l++) {
                L[16*j + l] = (uint8_t)(clampi(ggml_nearest_int(x[16*j + l] / d), -32, 31) + 32);
            }
        }
        uint8_t * ql = y[i].ql;
        uint8_t * qh = y[i].qh;
        for (int j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
            for (int l = 0; l < 32; l++) {
                const uint8_t q1 = L[j + l] & 0xF, q2 = L[j + l + 32] & 0xF;
                const uint8_t q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
                ql[l]      = (uint8_t)(q1 | (q3 << 4));
                ql[l + 32] = (uint8_t)(q2 | (q4 << 4));
                qh[l] = (uint8_t)((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4) |
                                  ((L[j + l + 96] >> 4) << 6));
            }
        }
    }
}

void quantize_row_q6_K_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_q6_K_w(x, y, k, NULL);
}

void dequantize_row_q6_K(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q6_K * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t  * sc = x[i].scales;
        for (int n = 0; n < QK_K; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xF)      | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((ql[l] >> 4)       | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((ql[l + 32] >> 4)  | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l]      = d * (float) sc[is + 0] * (float) q1;
                y[l + 32] = d * (float) sc[is + 2] * (float) q2;
                y[l + 64] = d * (float) sc[is + 4] * (float) q3;
                y[l + 96] = d * (float) sc[is + 6] * (float) q4;
            }
        }
    }
}

//
// Q8_K: the activation format of the K-quant dot products (float scale, 8-bit levels, sums of 16)
//

void quantize_row_q8_K_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q8_K * y = vy;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float max = 0.0f, amax = 0.0f;
        for (int j = 0; j < QK_K; j++) {
            const float ax = fabsf(x[j]);
            if (ax > amax) {
                amax = ax;
                max  = x[j];
            }
        }
        if (!amax) {
            memset(&y[i], 0, sizeof(y[i]));
            continue;
        }
        const float iscale = -127.0f / max;
        for (int j = 0; j < QK_K; j++) {
            const int v = ggml_nearest_int(iscale * x[j]);
            y[i].qs[j] = (int8_t)(v < 127 ? v : 127);
        }
        for (int j = 0; j < QK_K/16; j++) {
            int sum = 0;
            for (int l = 0; l < 16; l++) {
                sum += y[i].qs[16*j + l];
            }
            y[i].bsums[j] = (int16_t) sum;
        }
        y[i].d = 1.0f / iscale;
    }
}

void dequantize_row_q8_K(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q8_K * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++, y += QK_K) {
        for (int j = 0; j < QK_K; j++) {
            y[j] = x[i].d * (float) x[i].qs[j];
        }
    }
}
