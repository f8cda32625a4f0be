// AVX2 dot products of the grid formats against Q8_K activations: IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_XXS, IQ3_S, IQ1_S, IQ1_M (the quant slots of the AVX2 table, cpu-kernels.h).
//
// Per 32 elements the grid points named by the block's indices are gathered into one vector of
// 32 unsigned bytes (four 8-byte or eight 4-byte grid rows). The signs are not applied to the
// grid but to the activations (_mm256_sign_epi8 with a +-1 vector: four entries of a table of
// spread 7-bit sign codes, or 32 raw sign bits spread by a shuffle), so
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

// The IQ2/IQ3 7-bit sign codes: 7 sign bits plus an 8th that makes the count of minus signs even
// (the definition ggml_ksigns_iq2xs is generated from). IQ_SIGN_MASK(c) spreads the 8 signs of
// code c over 8 bytes, 0xff (-1) for minus and 0x01 for plus, ready for _mm256_sign_epi8; the
// compiler builds the 128-entry table from the definition.
#define IQ_PARITY7(c)     ((((c) >> 0) ^ ((c) >> 1) ^ ((c) >> 2) ^ ((c) >> 3) ^ ((c) >> 4) ^ ((c) >> 5) ^ ((c) >> 6)) & 1)
#define IQ_SIGNS8(c)      ((c) | (IQ_PARITY7(c) << 7))
#define IQ_SIGN_BYTE(c, j) ((((IQ_SIGNS8(c) >> (j)) & 1) ? 0xFFull : 0x01ull) << (8*(j)))
#define IQ_SIGN_MASK(c)   (IQ_SIGN_BYTE(c, 0) | IQ_SIGN_BYTE(c, 1) | IQ_SIGN_BYTE(c, 2) | IQ_SIGN_BYTE(c, 3) | \
                           IQ_SIGN_BYTE(c, 4) | IQ_SIGN_BYTE(c, 5) | IQ_SIGN_BYTE(c, 6) | IQ_SIGN_BYTE(c, 7))
#define IQ_SIGN_MASK4(c)  IQ_SIGN_MASK(c), IQ_SIGN_MASK((c) + 1), IQ_SIGN_MASK((c) + 2), IQ_SIGN_MASK((c) + 3)
#define IQ_SIGN_MASK16(c) IQ_SIGN_MASK4(c), IQ_SIGN_MASK4((c) + 4), IQ_SIGN_MASK4((c) + 8), IQ_SIGN_MASK4((c) + 12)

static const uint64_t iq_sign_masks[128] = {
    IQ_SIGN_MASK16(0),  IQ_SIGN_MASK16(16), IQ_SIGN_MASK16(32), IQ_SIGN_MASK16(48),
    IQ_SIGN_MASK16(64), IQ_SIGN_MASK16(80), IQ_SIGN_MASK16(96), IQ_SIGN_MASK16(112),
};

// +-1 bytes for four 7-bit sign codes c0 .. c3 (elements 0..7, 8..15, 16..23, 24..31)
GGML_TARGET_AVX2 static inline __m256i iq_signs4(unsigned c0, unsigned c1, unsigned c2, unsigned c3) {
    return _mm256_set_epi64x((long long) iq_sign_masks[c3], (long long) iq_sign_masks[c2],
                             (long long) iq_sign_masks[c1], (long long) iq_sign_masks[c0]);
}

// Each format's sub-block function returns 8 int32 partial sums of sub-block ib (32 elements,
// a = its activations) times the sub-block's integer scale; IQ_DOT_BLOCKS runs two sub-blocks per
// step into two accumulators (independent chains) and accumulates d * d_activation * (sum) in float.
#define IQ_DOT_BLOCKS(block_t, sub_fn, scale_fn, factor)                                          \
    const block_t * x = vx;                                                                      \
    const block_q8_K * y = vy;                                                                   \
    __m256 accf = _mm256_setzero_ps();                                                           \
    for (int i = 0; i < n/QK_K; i++) {                                                           \
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();                    \
        for (int ib = 0; ib < QK_K/32; ib += 2) {                                                \
            acc0 = _mm256_add_epi32(acc0, sub_fn(&x[i], y[i].qs + 32*ib, ib));                   \
            acc1 = _mm256_add_epi32(acc1, sub_fn(&x[i], y[i].qs + 32*ib + 32, ib + 1));          \
        }                                                                                        \
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(scale_fn(&x[i]))*y[i].d);                    \
        accf = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(_mm256_add_epi32(acc0, acc1)), accf);       \
    }                                                                                            \
    *s = (factor)*qu_hsum_ps(accf);

static inline ggml_fp16_t iq2_xxs_d(const block_iq2_xxs * b) { return b->d; }
static inline ggml_fp16_t iq2_xs_d(const block_iq2_xs * b)   { return b->d; }
static inline ggml_fp16_t iq2_s_d(const block_iq2_s * b)     { return b->d; }
static inline ggml_fp16_t iq3_xxs_d(const block_iq3_xxs * b) { return b->d; }
static inline ggml_fp16_t iq3_s_d(const block_iq3_s * b)     { return b->d; }
static inline ggml_fp16_t iq1_s_d(const block_iq1_s * b)     { return b->d; }

// 8 int32 sums of g*a over 32 elements (g unsigned), times the scale ls
GGML_TARGET_AVX2 static inline __m256i iq_dot_u(__m256i g, __m256i a, int ls) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(g, a), _mm256_set1_epi16((short) ls));
}

GGML_TARGET_AVX2 static inline __m256i iq2_xxs_sub(const block_iq2_xxs * b, const int8_t * a, int ib) {
    uint32_t aux[2];
    memcpy(aux, b->qs + 4*ib, sizeof(aux));
    const uint8_t * idx = (const uint8_t *) aux;
    const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xxs_grid[idx[3]]), iq_row8(ggml_iq2xxs_grid[idx[2]]),
                                        iq_row8(ggml_iq2xxs_grid[idx[1]]), iq_row8(ggml_iq2xxs_grid[idx[0]]));
    const __m256i sg = iq_signs4(aux[1] & 127, (aux[1] >> 7) & 127, (aux[1] >> 14) & 127, (aux[1] >> 21) & 127);
    return iq_dot_u(g, _mm256_sign_epi8(qu_load256(a), sg), 2*(int) (aux[1] >> 28) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_xxs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq2_xxs, iq2_xxs_sub, iq2_xxs_d, 0.125f)
}

GGML_TARGET_AVX2 static inline __m256i iq2_xs_sub(const block_iq2_xs * b, const int8_t * a, int ib) {
    const uint16_t * q = b->qs + 4*ib;
    const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xs_grid[q[3] & 511]), iq_row8(ggml_iq2xs_grid[q[2] & 511]),
                                        iq_row8(ggml_iq2xs_grid[q[1] & 511]), iq_row8(ggml_iq2xs_grid[q[0] & 511]));
    const __m256i as = _mm256_sign_epi8(qu_load256(a), iq_signs4(q[0] >> 9, q[1] >> 9, q[2] >> 9, q[3] >> 9));
    const int sc = b->scales[ib];
    return qu_dot_scaled(g, as, 2*(sc & 15) + 1, 2*(sc >> 4) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_xs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq2_xs, iq2_xs_sub, iq2_xs_d, 0.125f)
}

GGML_TARGET_AVX2 static inline __m256i iq2_s_sub(const block_iq2_s * b, const int8_t * a, int ib) {
    const uint8_t * qs = b->qs + 4*ib;
    const int qh = b->qh[ib];
    const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2s_grid[qs[3] | ((qh << 2) & 0x300)]),
                                        iq_row8(ggml_iq2s_grid[qs[2] | ((qh << 4) & 0x300)]),
                                        iq_row8(ggml_iq2s_grid[qs[1] | ((qh << 6) & 0x300)]),
                                        iq_row8(ggml_iq2s_grid[qs[0] | ((qh << 8) & 0x300)]));
    uint32_t sb;
    memcpy(&sb, b->qs + QK_K/8 + 4*ib, sizeof(sb));
    const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
    const int sc = b->scales[ib];
    return qu_dot_scaled(g, as, 2*(sc & 15) + 1, 2*(sc >> 4) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq2_s, iq2_s_sub, iq2_s_d, 0.125f)
}

GGML_TARGET_AVX2 static inline __m256i iq3_xxs_sub(const block_iq3_xxs * b, const int8_t * a, int ib) {
    const uint8_t * q = b->qs + 8*ib;
    uint32_t aux;
    memcpy(&aux, b->qs + QK_K/4 + 4*ib, sizeof(aux));
    const __m256i g = _mm256_set_epi32(iq_row4(ggml_iq3xxs_grid[q[7]]), iq_row4(ggml_iq3xxs_grid[q[6]]),
                                       iq_row4(ggml_iq3xxs_grid[q[5]]), iq_row4(ggml_iq3xxs_grid[q[4]]),
                                       iq_row4(ggml_iq3xxs_grid[q[3]]), iq_row4(ggml_iq3xxs_grid[q[2]]),
                                       iq_row4(ggml_iq3xxs_grid[q[1]]), iq_row4(ggml_iq3xxs_grid[q[0]]));
    const __m256i sg = iq_signs4(aux & 127, (aux >> 7) & 127, (aux >> 14) & 127, (aux >> 21) & 127);
    return iq_dot_u(g, _mm256_sign_epi8(qu_load256(a), sg), 2*(int) (aux >> 28) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq3_xxs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq3_xxs, iq3_xxs_sub, iq3_xxs_d, 0.25f)
}

GGML_TARGET_AVX2 static inline __m256i iq3_s_sub(const block_iq3_s * b, const int8_t * a, int ib) {
    const uint8_t * q = b->qs + 8*ib;
    const int qh = b->qh[ib];
    const __m256i g = _mm256_set_epi32(
        iq_row4(ggml_iq3s_grid[q[7] | ((qh << 1) & 0x100)]), iq_row4(ggml_iq3s_grid[q[6] | ((qh << 2) & 0x100)]),
        iq_row4(ggml_iq3s_grid[q[5] | ((qh << 3) & 0x100)]), iq_row4(ggml_iq3s_grid[q[4] | ((qh << 4) & 0x100)]),
        iq_row4(ggml_iq3s_grid[q[3] | ((qh << 5) & 0x100)]), iq_row4(ggml_iq3s_grid[q[2] | ((qh << 6) & 0x100)]),
        iq_row4(ggml_iq3s_grid[q[1] | ((qh << 7) & 0x100)]), iq_row4(ggml_iq3s_grid[q[0] | ((qh << 8) & 0x100)]));
    uint32_t sb;
    memcpy(&sb, b->signs + 4*ib, sizeof(sb));
    const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
    const int sc = b->scales[ib/2];
    return iq_dot_u(g, as, 2*((ib & 1) ? sc >> 4 : sc & 15) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq3_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq3_s, iq3_s_sub, iq3_s_d, 1.0f)
}

// 8*grid + delta for four 8-element grid rows of IQ1 (grid values -1, 0, 1; delta +-1 per row)
GGML_TARGET_AVX2 static inline __m256i iq1_levels(int i0, int i1, int i2, int i3, __m256i delta) {
    const __m256i g = _mm256_set_epi64x(iq_row8((const uint8_t *) ggml_iq1s_grid[i3]), iq_row8((const uint8_t *) ggml_iq1s_grid[i2]),
                                        iq_row8((const uint8_t *) ggml_iq1s_grid[i1]), iq_row8((const uint8_t *) ggml_iq1s_grid[i0]));
    return _mm256_add_epi8(_mm256_sign_epi8(_mm256_set1_epi8(8), g), delta);
}

GGML_TARGET_AVX2 static inline __m256i iq1_s_sub(const block_iq1_s * b, const int8_t * a, int ib) {
    const uint8_t * q = b->qs + 4*ib;
    const int qh = b->qh[ib];
    const __m256i delta = _mm256_set1_epi8((qh & 0x8000) ? -1 : 1);
    const __m256i v = iq1_levels(q[0] | ((qh << 8) & 0x700), q[1] | ((qh << 5) & 0x700),
                                 q[2] | ((qh << 2) & 0x700), q[3] | ((qh >> 1) & 0x700), delta);
    const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(v, v), _mm256_sign_epi8(qu_load256(a), v));
    return _mm256_madd_epi16(p, _mm256_set1_epi16((short) (2*((qh >> 12) & 7) + 1)));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq1_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq1_s, iq1_s_sub, iq1_s_d, 0.125f)
}

GGML_TARGET_AVX2 static inline __m256i iq1_m_sub(const block_iq1_m * b, const int8_t * a, int ib) {
    const uint8_t * q = b->qs + 4*ib;
    // nibble l of qh[0..1]: bits 0..2 extend index l, bit 3 is the sign of row l's delta
    uint16_t h;
    memcpy(&h, b->qh + 2*ib, sizeof(h));
    const __m256i bit = _mm256_set_epi64x(0x8000, 0x0800, 0x0080, 0x0008);
    const __m256i minus = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(h), bit), bit);
    const __m256i delta = _mm256_or_si256(minus, _mm256_set1_epi8(1));
    const __m256i v = iq1_levels(q[0] | ((h << 8) & 0x700), q[1] | ((h << 4) & 0x700),
                                 q[2] | (h & 0x700), q[3] | ((h >> 4) & 0x700), delta);
    uint16_t sc;
    memcpy(&sc, b->scales + 2*(ib/2), sizeof(sc));
    const int s6 = sc >> (6*(ib & 1));
    return qu_dot_scaled_i8(v, qu_load256(a), 2*(s6 & 7) + 1, 2*((s6 >> 3) & 7) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq1_m_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq1_m, iq1_m_sub, ggml_iq1_m_scale, 0.125f)
}

#else

typedef int ggml_avx2_quant_iq_unused;

#endif // GGML_CPU_X86
