// Portable integer dot products of the IQ formats against Q8_K activations: IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M, IQ4_XS (quant slots of the portable table).
//
// No float buffers: per sub-block the integer sum of grid value * sign * activation level, times
// the sub-block's integer scale (odd: 2*ls + 1, IQ4_XS: ls - 32), summed exactly in int32 per
// super-block; the common factor (1/8, 1/4) and d * d_activation are applied once in float.
// IQ1_S/IQ1_M levels are grid + delta (delta = +-1/8), taken as the integer 8*grid +- 1 with a
// final 1/8. The AVX2 kernels (arch/x86/avx2-quant-iq.c) compute the same integer sums.

#include "portable-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#include <string.h>

// sum over 8 elements of grid[j] * (+-1 by bit j of signs) * a[j]
static inline int iq_dot8(const uint8_t * grid, uint8_t signs, const int8_t * a) {
    int s = 0;
    for (int j = 0; j < 8; j++) {
        const int p = grid[j]*a[j];
        s += (signs >> j) & 1 ? -p : p;
    }
    return s;
}

// the same for two 4-element grid rows (IQ3): signs bits 0..3 for g1, 4..7 for g2
static inline int iq_dot4x2(const uint8_t * g1, const uint8_t * g2, uint8_t signs, const int8_t * a) {
    int s = 0;
    for (int j = 0; j < 4; j++) {
        const int p1 = g1[j]*a[j], p2 = g2[j]*a[j + 4];
        s += (signs >> j) & 1 ? -p1 : p1;
        s += (signs >> (j + 4)) & 1 ? -p2 : p2;
    }
    return s;
}

void ggml_cpu_q_dot_iq2_xxs_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq2_xxs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++) {
            uint32_t aux[2];
            memcpy(aux, x[i].qs + 4*ib, sizeof(aux));
            const uint8_t * idx = (const uint8_t *) aux;
            int bsum = 0;
            for (int l = 0; l < 4; l++, a += 8) {
                bsum += iq_dot8(ggml_iq2xxs_grid[idx[l]], ggml_ksigns_iq2xs[(aux[1] >> (7*l)) & 127], a);
            }
            isum += (2*(int32_t) (aux[1] >> 28) + 1)*bsum;
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = 0.125f*sum;
}

void ggml_cpu_q_dot_iq2_xs_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq2_xs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++) {
            int half[2] = { 0, 0 };
            for (int l = 0; l < 4; l++, a += 8) {
                const uint16_t q = x[i].qs[4*ib + l];
                half[l/2] += iq_dot8(ggml_iq2xs_grid[q & 511], ggml_ksigns_iq2xs[q >> 9], a);
            }
            isum += (2*(x[i].scales[ib] & 15) + 1)*half[0] + (2*(x[i].scales[ib] >> 4) + 1)*half[1];
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = 0.125f*sum;
}

void ggml_cpu_q_dot_iq2_s_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq2_s * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * qs = x[i].qs;
        const uint8_t * sg = x[i].qs + QK_K/8;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++, qs += 4, sg += 4) {
            int half[2] = { 0, 0 };
            for (int l = 0; l < 4; l++, a += 8) {
                const int idx = qs[l] | (((x[i].qh[ib] >> (2*l)) & 3) << 8);
                half[l/2] += iq_dot8(ggml_iq2s_grid[idx], sg[l], a);
            }
            isum += (2*(x[i].scales[ib] & 15) + 1)*half[0] + (2*(x[i].scales[ib] >> 4) + 1)*half[1];
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = 0.125f*sum;
}

void ggml_cpu_q_dot_iq3_xxs_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq3_xxs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++) {
            uint32_t aux;
            memcpy(&aux, x[i].qs + QK_K/4 + 4*ib, sizeof(aux));
            int bsum = 0;
            for (int l = 0; l < 4; l++, a += 8, q += 2) {
                bsum += iq_dot4x2(ggml_iq3xxs_grid[q[0]], ggml_iq3xxs_grid[q[1]], ggml_ksigns_iq2xs[(aux >> (7*l)) & 127], a);
            }
            isum += (2*(int32_t) (aux >> 28) + 1)*bsum;
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = 0.25f*sum;
}

void ggml_cpu_q_dot_iq3_s_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq3_s * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++) {
            const int qh = x[i].qh[ib];
            int bsum = 0;
            for (int l = 0; l < 4; l++, a += 8, q += 2) {
                const int i1 = q[0] | (((qh >> (2*l)) & 1) << 8), i2 = q[1] | (((qh >> (2*l + 1)) & 1) << 8);
                bsum += iq_dot4x2(ggml_iq3s_grid[i1], ggml_iq3s_grid[i2], x[i].signs[4*ib + l], a);
            }
            const int sc = x[i].scales[ib/2];
            isum += (2*((ib & 1) ? sc >> 4 : sc & 15) + 1)*bsum;
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = sum;
}

// sum over 8 elements of (8*grid[j] + delta) * a[j], delta = +-1
static inline int iq1_dot8(const int8_t * grid, int delta, const int8_t * a) {
    int s = 0;
    for (int j = 0; j < 8; j++) {
        s += (8*grid[j] + delta)*a[j];
    }
    return s;
}

void ggml_cpu_q_dot_iq1_s_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq1_s * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++, q += 4) {
            const int qh = x[i].qh[ib];
            const int delta = (qh & 0x8000) ? -1 : 1;
            int bsum = 0;
            for (int l = 0; l < 4; l++, a += 8) {
                bsum += iq1_dot8(ggml_iq1s_grid[q[l] | (((qh >> (3*l)) & 7) << 8)], delta, a);
            }
            isum += (2*((qh >> 12) & 7) + 1)*bsum;
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = 0.125f*sum;
}

void ggml_cpu_q_dot_iq1_m_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq1_m * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        uint16_t sc[4];
        memcpy(sc, x[i].scales, sizeof(sc));
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++, q += 4) {
            int half[2] = { 0, 0 };
            for (int l = 0; l < 4; l++, a += 8) {
                const int h = x[i].qh[2*ib + l/2] >> (4*(l%2));
                half[l/2] += iq1_dot8(ggml_iq1s_grid[q[l] | ((h & 7) << 8)], (h & 8) ? -1 : 1, a);
            }
            const int s6 = sc[ib/2] >> (6*(ib & 1));
            isum += (2*(s6 & 7) + 1)*half[0] + (2*((s6 >> 3) & 7) + 1)*half[1];
        }
        sum += GGML_FP16_TO_FP32(ggml_iq1_m_scale(&x[i]))*y[i].d*(float) isum;
    }
    *s = 0.125f*sum;
}

void ggml_cpu_q_dot_iq4_xs_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq4_xs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        int32_t isum = 0;
        for (int ib = 0; ib < QK_K/32; ib++, q += 16, a += 32) {
            const int ls = ((x[i].scales_l[ib/2] >> (4*(ib%2))) & 0xF) | (((x[i].scales_h >> (2*ib)) & 3) << 4);
            int bsum = 0;
            for (int j = 0; j < 16; j++) {
                bsum += ggml_kvalues_iq4nl[q[j] & 0xF]*a[j] + ggml_kvalues_iq4nl[q[j] >> 4]*a[j + 16];
            }
            isum += (ls - 32)*bsum;
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = sum;
}
