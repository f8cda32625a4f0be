// The IQ formats: dequantization of every one (IQ2_XXS/XS/S, IQ3_XXS/S, IQ1_S/M, IQ4_NL/XS),
// bit-exact with the family's reference, and the quantizers of IQ4_NL and IQ4_XS (non-linear
// 4-bit values with a searched scale, optionally weighted by an importance matrix). The
// quantizers of IQ1/IQ2/IQ3 (grid searches) are not implemented yet.

#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#include <math.h>

GGML_QUANTS_NO_CONTRACT

#define F32(h)  GGML_FP16_TO_FP32(h)
#define FP16(x) GGML_FP32_TO_FP16(x)

#define IQ1S_DELTA 0.125f
#define IQ1M_DELTA 0.125f
#define GROUP_MAX_EPS 1e-15f

static float sign_of(uint8_t signs, int j) {
    return (signs >> j) & 1 ? -1.0f : 1.0f;
}

void dequantize_row_iq2_xxs(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq2_xxs * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        for (int ib32 = 0; ib32 < QK_K/32; ib32++) {
            uint32_t aux[2];
            memcpy(aux, x[i].qs + 4*ib32, sizeof(aux));
            const uint8_t * idx = (const uint8_t *) aux;
            const float db = d * (0.5f + (float) (aux[1] >> 28)) * 0.25f;
            for (int l = 0; l < 4; l++) {
                const uint8_t * grid  = ggml_iq2xxs_grid[idx[l]];
                const uint8_t   signs = ggml_ksigns_iq2xs[(aux[1] >> (7*l)) & 127];
                for (int j = 0; j < 8; j++) {
                    y[j] = db * (float) grid[j] * sign_of(signs, j);
                }
                y += 8;
            }
        }
    }
}

void dequantize_row_iq2_xs(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq2_xs * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        for (int ib32 = 0; ib32 < QK_K/32; ib32++) {
            const float db[2] = {
                d * (0.5f + (float) (x[i].scales[ib32] & 0xf)) * 0.25f,
                d * (0.5f + (float) (x[i].scales[ib32] >> 4)) * 0.25f,
            };
            for (int l = 0; l < 4; l++) {
                const uint16_t  q     = x[i].qs[4*ib32 + l];
                const uint8_t * grid  = ggml_iq2xs_grid[q & 511];
                const uint8_t   signs = ggml_ksigns_iq2xs[q >> 9];
                for (int j = 0; j < 8; j++) {
                    y[j] = db[l/2] * (float) grid[j] * sign_of(signs, j);
                }
                y += 8;
            }
        }
    }
}

void dequantize_row_iq2_s(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq2_s * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        const uint8_t * qs    = x[i].qs;
        const uint8_t * signs = x[i].qs + QK_K/8;
        for (int ib32 = 0; ib32 < QK_K/32; ib32++, qs += 4, signs += 4) {
            const float db[2] = {
                d * (0.5f + (float) (x[i].scales[ib32] & 0xf)) * 0.25f,
                d * (0.5f + (float) (x[i].scales[ib32] >> 4)) * 0.25f,
            };
            for (int l = 0; l < 4; l++) {
                const int       idx  = qs[l] | (((x[i].qh[ib32] >> (2*l)) & 3) << 8);
                const uint8_t * grid = ggml_iq2s_grid[idx];
                for (int j = 0; j < 8; j++) {
                    y[j] = db[l/2] * (float) grid[j] * sign_of(signs[l], j);
                }
                y += 8;
            }
        }
    }
}

void dequantize_row_iq3_xxs(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq3_xxs * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        const uint8_t * qs  = x[i].qs;
        const uint8_t * sas = x[i].qs + QK_K/4;
        for (int ib32 = 0; ib32 < QK_K/32; ib32++, qs += 8) {
            uint32_t aux;
            memcpy(&aux, sas + 4*ib32, sizeof(aux));
            const float db = d * (0.5f + (float) (aux >> 28)) * 0.5f;
            for (int l = 0; l < 4; l++) {
                const uint8_t   signs = ggml_ksigns_iq2xs[(aux >> (7*l)) & 127];
                const uint8_t * g1    = ggml_iq3xxs_grid[qs[2*l + 0]];
                const uint8_t * g2    = ggml_iq3xxs_grid[qs[2*l + 1]];
                for (int j = 0; j < 4; j++) {
                    y[j]     = db * (float) g1[j] * sign_of(signs, j);
                    y[j + 4] = db * (float) g2[j] * sign_of(signs, j + 4);
                }
                y += 8;
            }
        }
    }
}

void dequantize_row_iq3_s(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq3_s * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        const uint8_t * qs    = x[i].qs;
        const uint8_t * signs = x[i].signs;
        for (int ib32 = 0; ib32 < QK_K/32; ib32++, qs += 8, signs += 4) {
            const uint8_t sc = x[i].scales[ib32/2];
            const float   db = d * (float) (1 + 2*((ib32 % 2) ? (sc >> 4) : (sc & 0xf)));
            const uint8_t qh = x[i].qh[ib32];
            for (int l = 0; l < 4; l++) {
                const uint8_t * g1 = ggml_iq3s_grid[qs[2*l + 0] | (((qh >> (2*l + 0)) & 1) << 8)];
                const uint8_t * g2 = ggml_iq3s_grid[qs[2*l + 1] | (((qh >> (2*l + 1)) & 1) << 8)];
                for (int j = 0; j < 4; j++) {
                    y[j]     = db * (float) g1[j] * sign_of(signs[l], j);
                    y[j + 4] = db * (float) g2[j] * sign_of(signs[l], j + 4);
                }
                y += 8;
            }
        }
    }
}

void dequantize_row_iq1_s(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq1_s * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        const uint8_t * qs = x[i].qs;
        for (int ib = 0; ib < QK_K/32; ib++, qs += 4) {
            const uint16_t qh    = x[i].qh[ib];
            const float    dl    = d * (float) (2*((qh >> 12) & 7) + 1);
            const float    delta = qh & 0x8000 ? -IQ1S_DELTA : IQ1S_DELTA;
            for (int l = 0; l < 4; l++) {
                const int8_t * grid = ggml_iq1s_grid[qs[l] | (((qh >> (3*l)) & 7) << 8)];
                for (int j = 0; j < 8; j++) {
                    y[j] = dl * ((float) grid[j] + delta);
                }
                y += 8;
            }
        }
    }
}

ggml_fp16_t ggml_iq1_m_scale(const block_iq1_m * b) {
    uint16_t sc[4];
    memcpy(sc, b->scales, sizeof(sc));
    return (ggml_fp16_t)((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
}

void dequantize_row_iq1_m(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq1_m * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        uint16_t sc[4];
        memcpy(sc, x[i].scales, sizeof(sc));
        const float d = F32(ggml_iq1_m_scale(&x[i]));
        const uint8_t * qs = x[i].qs;
        const uint8_t * qh = x[i].qh;
        for (int ib = 0; ib < QK_K/32; ib++, qs += 4, qh += 2) {
            const float dl[2] = {
                d * (float) (2*((sc[ib/2] >> (6*(ib%2) + 0)) & 7) + 1),
                d * (float) (2*((sc[ib/2] >> (6*(ib%2) + 3)) & 7) + 1),
            };
            for (int l = 0; l < 4; l++) {
                const uint8_t h     = (uint8_t)(qh[l/2] >> (4*(l%2)));
                const int     idx   = qs[l] | ((h & 7) << 8);
                const float   delta = h & 0x08 ? -IQ1M_DELTA : IQ1M_DELTA;
                const int8_t * grid = ggml_iq1s_grid[idx];
                for (int j = 0; j < 8; j++) {
                    y[j] = dl[l/2] * ((float) grid[j] + delta);
                }
                y += 8;
            }
        }
    }
}

//
// IQ4_NL / IQ4_XS
//

void dequantize_row_iq4_nl(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq4_nl * x = vx;
    for (int64_t i = 0; i < k / QK4_NL; i++, y += QK4_NL) {
        const float d = F32(x[i].d);
        for (int j = 0; j < QK4_NL/2; j++) {
            y[j]            = d * (float) ggml_kvalues_iq4nl[x[i].qs[j] & 0xf];
            y[j + QK4_NL/2] = d * (float) ggml_kvalues_iq4nl[x[i].qs[j] >> 4];
        }
    }
}

void dequantize_row_iq4_xs(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_iq4_xs * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        const uint8_t * qs = x[i].qs;
        for (int ib = 0; ib < QK_K/32; ib++, qs += 16, y += 32) {
            const int ls = ((x[i].scales_l[ib/2] >> (4*(ib%2))) & 0xf) | (((x[i].scales_h >> (2*ib)) & 3) << 4);
            const float dl = d * (float) (ls - 32);
            for (int j = 0; j < 16; j++) {
                y[j]      = dl * (float) ggml_kvalues_iq4nl[qs[j] & 0xf];
                y[j + 16] = dl * (float) ggml_kvalues_iq4nl[qs[j] >> 4];
            }
        }
    }
}

// Best scale of one group of 32 for the non-linear values: start from the largest magnitude
// mapped to the most negative value, then try 2*ntry+1 nearby scales; L receives the indices.
static float iq4_group_scale(const float * xb, const float * w, uint8_t * L, int ntry) {
    const int8_t * values = ggml_kvalues_iq4nl;
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 32; j++) {
        if (fabsf(xb[j]) > amax) {
            amax = fabsf(xb[j]);
            max  = xb[j];
        }
    }
    if (amax < GROUP_MAX_EPS) {
        memset(L, 0, 32);
        return 0.0f;
    }
    float d  = -max / (float) values[0];
    float id = 1.0f / d;
    float sumqx = 0.0f, sumq2 = 0.0f;
    for (int j = 0; j < 32; j++) {
        const int l = ggml_quant_best_index_int8(16, values, id * xb[j]);
        L[j] = (uint8_t) l;
        const float q = (float) values[l];
        sumqx += w[j] * q * xb[j];
        sumq2 += w[j] * q * q;
    }
    d = sumq2 > 0.0f ? sumqx / sumq2 : 0.0f;
    float best = d * sumqx;
    for (int itry = -ntry; itry <= ntry; itry++) {
        id = ((float) itry + (float) values[0]) / max;
        sumqx = sumq2 = 0.0f;
        uint8_t Lt[32];
        for (int j = 0; j < 32; j++) {
            const int l = ggml_quant_best_index_int8(16, values, id * xb[j]);
            Lt[j] = (uint8_t) l;
            const float q = (float) values[l];
            sumqx += w[j] * q * xb[j];
            sumq2 += w[j] * q * q;
        }
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
            d    = sumqx / sumq2;
            best = d * sumqx;
            memcpy(L, Lt, 32);
        }
    }
    return d;
}

static void iq4_weights(const float * xb, const float * qw, float sigma2, float * w) {
    for (int j = 0; j < 32; j++) {
        w[j] = qw ? qw[j] * sqrtf(sigma2 + xb[j] * xb[j]) : xb[j] * xb[j];
    }
}

static void iq4_pack(const uint8_t * L, uint8_t * qs) {
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t)(L[j] | (L[j + 16] << 4));
    }
}

void quantize_row_iq4_nl_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_iq4_nl * y = vy;
    float   w[32];
    uint8_t L[32];
    for (int64_t i = 0; i < k / QK4_NL; i++) {
        const float * xb = x + i*QK4_NL;
        float sigma2 = 0.0f;
        for (int j = 0; j < 32; j++) {
            sigma2 += xb[j] * xb[j];
        }
        sigma2 *= 2.0f / 32.0f;
        iq4_weights(xb, qw ? qw + i*QK4_NL : NULL, sigma2, w);
        const float d = iq4_group_scale(xb, w, L, 7);
        y[i].d = FP16(d);
        // the indices for the searched scale itself (as the family does; not its fp16 rounding)
        const float id = d ? 1.0f / d : 0.0f;
        for (int j = 0; j < 32; j++) {
            L[j] = (uint8_t) ggml_quant_best_index_int8(16, ggml_kvalues_iq4nl, id * xb[j]);
        }
        iq4_pack(L, y[i].qs);
    }
}

void quantize_row_iq4_nl_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_iq4_nl_w(x, y, k, NULL);
}

void quantize_row_iq4_xs_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    block_iq4_xs * y = vy;
    float   w[32], scales[QK_K/32];
    uint8_t L[QK_K];
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float * xs = x + i*QK_K;
        float sigma2 = 0.0f;
        for (int j = 0; j < QK_K; j++) {
            sigma2 += xs[j] * xs[j];
        }
        sigma2 *= 2.0f / (float) QK_K;
        float max_scale = 0.0f, amax_scale = 0.0f;
        for (int ib = 0; ib < QK_K/32; ib++) {
            iq4_weights(xs + 32*ib, qw ? qw + i*QK_K + 32*ib : NULL, sigma2, w);
            scales[ib] = iq4_group_scale(xs + 32*ib, w, L + 32*ib, 7);
            if (fabsf(scales[ib]) > amax_scale) {
                amax_scale = fabsf(scales[ib]);
                max_scale  = scales[ib];
            }
        }
        const float d  = -max_scale / 32.0f;
        const float id = d ? 1.0f / d : 0.0f;
        y[i].d = FP16(d);
        y[i].scales_h = 0;
        memset(y[i].scales_l, 0, sizeof(y[i].scales_l));
        for (int ib = 0; ib < QK_K/32; ib++) {
            int l = ggml_nearest_int(id * scales[ib]);
            l = l < -32 ? -32 : (l > 31 ? 31 : l);
            const float dl  = d * (float) l;
            const float idl = dl ? 1.0f / dl : 0.0f;
            for (int j = 0; j < 32; j++) {
                L[32*ib + j] = (uint8_t) ggml_quant_best_index_int8(16, ggml_kvalues_iq4nl, idl * xs[32*ib + j]);
            }
            l += 32;
            y[i].scales_l[ib/2] |= (uint8_t)((l & 0xf) << (4*(ib%2)));
            y[i].scales_h       |= (uint16_t)((l >> 4) << (2*ib));
            iq4_pack(L + 32*ib, y[i].qs + 16*ib);
        }
    }
}

void quantize_row_iq4_xs_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    quantize_row_iq4_xs_w(x, y, k, NULL);
}
