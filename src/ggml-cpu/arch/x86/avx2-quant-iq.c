// AVX2 dot products of the grid formats against Q8_K activations: IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (the quant slots of the AVX2 table, cpu-kernels.h).
//
// Per 32 elements the grid points named by the block's indices are gathered into one vector of
// 32 unsigned bytes (four 8-byte or eight 4-byte grid rows). The signs are not applied to the
// grid but to the activations (_mm256_sign_epi8 with a +-1 vector spread from 32 sign bits), so
// maddubs can take the grid values as its unsigned side. The sub-block scales are odd integers
// (2*ls + 1) applied with madd_epi16; the common factor (1/8, 1/4) goes into the final float.
// IQ1_S/IQ1_M: each level is grid + delta with delta = +-1/8, taken as the integer 8*grid +- 1
// (|v| <= 9) and a final factor 1/8, so no activation sums are needed.
// Integer sums are exact; the products with d and the activation scale are in float.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

static inline long long iq_row8(const uint8_t * row) {
    long long v;
    memcpy(&v, row, sizeof(v));
    return v;
}

static inline int iq_row4(const uint8_t * row) {
    int v;
    memcpy(&v, row, sizeof(v));
    return v;
}

// the 8 sign bits of four 7-bit sign codes (bits 7*l .. 7*l + 6 of c), one byte per code
static inline uint32_t iq_ksigns4(uint32_t c) {
    return (uint32_t) ggml_ksigns_iq2xs[c & 127] | (uint32_t) ggml_ksigns_iq2xs[(c >> 7) & 127] << 8 |
           (uint32_t) ggml_ksigns_iq2xs[(c >> 14) & 127] << 16 | (uint32_t) ggml_ksigns_iq2xs[(c >> 21) & 127] << 24;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_xxs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq2_xxs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32) {
            uint32_t aux[2];
            memcpy(aux, x[i].qs + 4*ib, sizeof(aux));
            const uint8_t * idx = (const uint8_t *) aux;
            const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xxs_grid[idx[3]]), iq_row8(ggml_iq2xxs_grid[idx[2]]),
                                                iq_row8(ggml_iq2xxs_grid[idx[1]]), iq_row8(ggml_iq2xxs_grid[idx[0]]));
            const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(iq_ksigns4(aux[1])));
            const int ls = 2*(int) (aux[1] >> 28) + 1;
            acc = _mm256_add_epi32(acc, qu_dot_scaled(g, as, ls, ls));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = 0.125f*sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_xs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq2_xs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32) {
            const uint16_t * q = x[i].qs + 4*ib;
            const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xs_grid[q[3] & 511]), iq_row8(ggml_iq2xs_grid[q[2] & 511]),
                                                iq_row8(ggml_iq2xs_grid[q[1] & 511]), iq_row8(ggml_iq2xs_grid[q[0] & 511]));
            const uint32_t sb = (uint32_t) ggml_ksigns_iq2xs[q[0] >> 9] | (uint32_t) ggml_ksigns_iq2xs[q[1] >> 9] << 8 |
                                (uint32_t) ggml_ksigns_iq2xs[q[2] >> 9] << 16 | (uint32_t) ggml_ksigns_iq2xs[q[3] >> 9] << 24;
            const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
            const int sc = x[i].scales[ib];
            acc = _mm256_add_epi32(acc, qu_dot_scaled(g, as, 2*(sc & 15) + 1, 2*(sc >> 4) + 1));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = 0.125f*sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq2_s * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * qs = x[i].qs;
        const uint8_t * sg = x[i].qs + QK_K/8;
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32, qs += 4, sg += 4) {
            const int qh = x[i].qh[ib];
            const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2s_grid[qs[3] | ((qh << 2) & 0x300)]),
                                                iq_row8(ggml_iq2s_grid[qs[2] | ((qh << 4) & 0x300)]),
                                                iq_row8(ggml_iq2s_grid[qs[1] | ((qh << 6) & 0x300)]),
                                                iq_row8(ggml_iq2s_grid[qs[0] | ((qh << 8) & 0x300)]));
            uint32_t sb;
            memcpy(&sb, sg, sizeof(sb));
            const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
            const int sc = x[i].scales[ib];
            acc = _mm256_add_epi32(acc, qu_dot_scaled(g, as, 2*(sc & 15) + 1, 2*(sc >> 4) + 1));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = 0.125f*sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq3_xxs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq3_xxs * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32, q += 8) {
            uint32_t aux;
            memcpy(&aux, x[i].qs + QK_K/4 + 4*ib, sizeof(aux));
            const __m256i g = _mm256_set_epi32(iq_row4(ggml_iq3xxs_grid[q[7]]), iq_row4(ggml_iq3xxs_grid[q[6]]),
                                               iq_row4(ggml_iq3xxs_grid[q[5]]), iq_row4(ggml_iq3xxs_grid[q[4]]),
                                               iq_row4(ggml_iq3xxs_grid[q[3]]), iq_row4(ggml_iq3xxs_grid[q[2]]),
                                               iq_row4(ggml_iq3xxs_grid[q[1]]), iq_row4(ggml_iq3xxs_grid[q[0]]));
            const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(iq_ksigns4(aux)));
            const int ls = 2*(int) (aux >> 28) + 1;
            acc = _mm256_add_epi32(acc, qu_dot_scaled(g, as, ls, ls));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = 0.25f*sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq3_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq3_s * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32, q += 8) {
            const int qh = x[i].qh[ib];
            const __m256i g = _mm256_set_epi32(
                iq_row4(ggml_iq3s_grid[q[7] | ((qh << 1) & 0x100)]), iq_row4(ggml_iq3s_grid[q[6] | ((qh << 2) & 0x100)]),
                iq_row4(ggml_iq3s_grid[q[5] | ((qh << 3) & 0x100)]), iq_row4(ggml_iq3s_grid[q[4] | ((qh << 4) & 0x100)]),
                iq_row4(ggml_iq3s_grid[q[3] | ((qh << 5) & 0x100)]), iq_row4(ggml_iq3s_grid[q[2] | ((qh << 6) & 0x100)]),
                iq_row4(ggml_iq3s_grid[q[1] | ((qh << 7) & 0x100)]), iq_row4(ggml_iq3s_grid[q[0] | ((qh << 8) & 0x100)]));
            uint32_t sb;
            memcpy(&sb, x[i].signs + 4*ib, sizeof(sb));
            const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
            const int sc = x[i].scales[ib/2];
            const int ls = 2*((ib & 1) ? sc >> 4 : sc & 15) + 1;
            acc = _mm256_add_epi32(acc, qu_dot_scaled(g, as, ls, ls));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = sum;
}

// 8*grid + delta for four 8-element grid rows of IQ1 (grid values -1, 0, 1; delta +-1 per row)
GGML_TARGET_AVX2 static inline __m256i iq1_levels(int i0, int i1, int i2, int i3, __m256i delta) {
    const __m256i g = _mm256_set_epi64x(iq_row8((const uint8_t *) ggml_iq1s_grid[i3]), iq_row8((const uint8_t *) ggml_iq1s_grid[i2]),
                                        iq_row8((const uint8_t *) ggml_iq1s_grid[i1]), iq_row8((const uint8_t *) ggml_iq1s_grid[i0]));
    return _mm256_add_epi8(_mm256_sign_epi8(_mm256_set1_epi8(8), g), delta);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq1_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq1_s * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32, q += 4) {
            const int qh = x[i].qh[ib];
            const __m256i delta = _mm256_set1_epi8((qh & 0x8000) ? -1 : 1);
            const __m256i v = iq1_levels(q[0] | ((qh << 8) & 0x700), q[1] | ((qh << 5) & 0x700),
                                         q[2] | ((qh << 2) & 0x700), q[3] | ((qh >> 1) & 0x700), delta);
            const int ls = 2*((qh >> 12) & 7) + 1;
            acc = _mm256_add_epi32(acc, qu_dot_scaled_i8(v, qu_load256(a), ls, ls));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = 0.125f*sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq1_m_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq1_m * x = vx;
    const block_q8_K * y = vy;
    const long long plus = 0x0101010101010101ll, minus = -1ll;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        const uint8_t * q = x[i].qs;
        const uint8_t * qh = x[i].qh;
        uint16_t sc[4];
        memcpy(sc, x[i].scales, sizeof(sc));
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++, a += 32, q += 4, qh += 2) {
            // nibble l of qh[0..1]: bits 0..2 extend index l, bit 3 is the sign of row l's delta
            const int h0 = qh[0], h1 = qh[1];
            const __m256i delta = _mm256_set_epi64x(h1 & 0x80 ? minus : plus, h1 & 0x08 ? minus : plus,
                                                    h0 & 0x80 ? minus : plus, h0 & 0x08 ? minus : plus);
            const __m256i v = iq1_levels(q[0] | ((h0 << 8) & 0x700), q[1] | ((h0 << 4) & 0x700),
                                         q[2] | ((h1 << 8) & 0x700), q[3] | ((h1 << 4) & 0x700), delta);
            const int s6 = sc[ib/2] >> (6*(ib & 1));
            acc = _mm256_add_epi32(acc, qu_dot_scaled_i8(v, qu_load256(a), 2*(s6 & 7) + 1, 2*((s6 >> 3) & 7) + 1));
        }
        sum += q_fp16_avx2(ggml_iq1_m_scale(&x[i]))*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = 0.125f*sum;
}

#else

typedef int ggml_avx2_quant_iq_unused;

#endif // GGML_CPU_X86
