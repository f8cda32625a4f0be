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
// prep_fn may compute the block's grid indices into idx first (in vectors, for the formats whose
// index bits are spread over two fields).
#define IQ_DOT_BLOCKS(block_t, prep_fn, sub_fn, scale_fn, factor)                                 \
    const block_t * x = vx;                                                                      \
    const block_q8_K * y = vy;                                                                   \
    __m256 accf = _mm256_setzero_ps();                                                           \
    for (int i = 0; i < n/QK_K; i++) {                                                           \
        uint16_t idx[64];                                                                        \
        prep_fn(&x[i], idx);                                                                     \
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();                    \
        for (int ib = 0; ib < QK_K/32; ib += 2) {                                                \
            acc0 = _mm256_add_epi32(acc0, sub_fn(&x[i], idx, y[i].qs + 32*ib, ib));              \
            acc1 = _mm256_add_epi32(acc1, sub_fn(&x[i], idx, y[i].qs + 32*ib + 32, ib + 1));     \
        }                                                                                        \
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(scale_fn(&x[i]))*y[i].d);                    \
        accf = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(_mm256_add_epi32(acc0, acc1)), accf);       \
    }                                                                                            \
    *s = (factor)*qu_hsum_ps(accf);

#define IQ_NO_PREP(b, idx) ((void) (b), (void) (idx))

static inline ggml_fp16_t iq2_xxs_d(const block_iq2_xxs * b) { return b->d; }
static inline ggml_fp16_t iq2_xs_d(const block_iq2_xs * b)   { return b->d; }
static inline ggml_fp16_t iq2_s_d(const block_iq2_s * b)     { return b->d; }
static inline ggml_fp16_t iq3_xxs_d(const block_iq3_xxs * b) { return b->d; }
static inline ggml_fp16_t iq3_s_d(const block_iq3_s * b)     { return b->d; }

// 8 int32 sums of g*a over 32 elements (g unsigned), times the scale ls
GGML_TARGET_AVX2 static inline __m256i iq_dot_u(__m256i g, __m256i a, int ls) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(g, a), _mm256_set1_epi16((short) ls));
}

GGML_TARGET_AVX2 static inline __m256i iq2_xxs_sub(const block_iq2_xxs * b, const uint16_t * idx_unused, const int8_t * a, int ib) {
    (void) idx_unused;
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
    IQ_DOT_BLOCKS(block_iq2_xxs, IQ_NO_PREP, iq2_xxs_sub, iq2_xxs_d, 0.125f)
}

GGML_TARGET_AVX2 static inline __m256i iq2_xs_sub(const block_iq2_xs * b, const uint16_t * idx_unused, const int8_t * a, int ib) {
    (void) idx_unused;
    const uint16_t * q = b->qs + 4*ib;
    const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xs_grid[q[3] & 511]), iq_row8(ggml_iq2xs_grid[q[2] & 511]),
                                        iq_row8(ggml_iq2xs_grid[q[1] & 511]), iq_row8(ggml_iq2xs_grid[q[0] & 511]));
    const __m256i as = _mm256_sign_epi8(qu_load256(a), iq_signs4(q[0] >> 9, q[1] >> 9, q[2] >> 9, q[3] >> 9));
    const int sc = b->scales[ib];
    return qu_dot_scaled(g, as, 2*(sc & 15) + 1, 2*(sc >> 4) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_xs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq2_xs, IQ_NO_PREP, iq2_xs_sub, iq2_xs_d, 0.125f)
}

// the 32 grid indices of an IQ2_S block: qs[k] | ((qh[k/4] >> 2*(k%4)) & 3) << 8, 16 at a time
// (qh[k/4] in int16 lane k, its bits 2*(k%4) moved to 8..9 by a multiply)
GGML_TARGET_AVX2 static inline void iq2_s_prep(const block_iq2_s * b, uint16_t * idx) {
    const __m128i qh = _mm_loadl_epi64((const __m128i *)(const void *) b->qh);
    const __m256i mul = _mm256_set1_epi64x(0x0004001000400100ll);
    const __m256i m = _mm256_set1_epi16(0x300);
    for (int h = 0; h < 2; h++) {
        const __m128i ctl = _mm_add_epi8(_mm_set_epi64x(0x0303030302020202ll, 0x0101010100000000ll), _mm_set1_epi8((char) (4*h)));
        const __m256i hi = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qh, ctl));
        const __m256i q  = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *) (b->qs + 16*h)));
        _mm256_storeu_si256((__m256i *)(void *) (idx + 16*h), _mm256_or_si256(q, _mm256_and_si256(_mm256_mullo_epi16(hi, mul), m)));
    }
}

GGML_TARGET_AVX2 static inline __m256i iq2_s_sub(const block_iq2_s * b, const uint16_t * idx, const int8_t * a, int ib) {
    const uint16_t * k = idx + 4*ib;
    const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2s_grid[k[3]]), iq_row8(ggml_iq2s_grid[k[2]]),
                                        iq_row8(ggml_iq2s_grid[k[1]]), iq_row8(ggml_iq2s_grid[k[0]]));
    uint32_t sb;
    memcpy(&sb, b->qs + QK_K/8 + 4*ib, sizeof(sb));
    const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
    const int sc = b->scales[ib];
    return qu_dot_scaled(g, as, 2*(sc & 15) + 1, 2*(sc >> 4) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq2_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq2_s, iq2_s_prep, iq2_s_sub, iq2_s_d, 0.125f)
}

GGML_TARGET_AVX2 static inline __m256i iq3_xxs_sub(const block_iq3_xxs * b, const uint16_t * idx_unused, const int8_t * a, int ib) {
    (void) idx_unused;
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
    IQ_DOT_BLOCKS(block_iq3_xxs, IQ_NO_PREP, iq3_xxs_sub, iq3_xxs_d, 0.25f)
}

// the 64 grid indices of an IQ3_S block: qs[k] | ((qh[k/8] >> (k%8)) & 1) << 8, 16 at a time
// (qh[k/8] in int16 lane k, its bit k%8 moved to 8 by a multiply)
GGML_TARGET_AVX2 static inline void iq3_s_prep(const block_iq3_s * b, uint16_t * idx) {
    const __m128i qh = _mm_loadl_epi64((const __m128i *)(const void *) b->qh);
    const __m256i mul = _mm256_set_epi16(2, 4, 8, 16, 32, 64, 128, 256, 2, 4, 8, 16, 32, 64, 128, 256);
    const __m256i m = _mm256_set1_epi16(0x100);
    for (int h = 0; h < 4; h++) {
        const __m128i ctl = _mm_set_epi64x(0x0101010101010101ll*(2*h + 1), 0x0101010101010101ll*(2*h));
        const __m256i hi = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qh, ctl));
        const __m256i q  = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *) (b->qs + 16*h)));
        _mm256_storeu_si256((__m256i *)(void *) (idx + 16*h), _mm256_or_si256(q, _mm256_and_si256(_mm256_mullo_epi16(hi, mul), m)));
    }
}

GGML_TARGET_AVX2 static inline __m256i iq3_s_sub(const block_iq3_s * b, const uint16_t * idx, const int8_t * a, int ib) {
    const uint16_t * k = idx + 8*ib;
    const __m256i g = _mm256_set_epi32(iq_row4(ggml_iq3s_grid[k[7]]), iq_row4(ggml_iq3s_grid[k[6]]),
                                       iq_row4(ggml_iq3s_grid[k[5]]), iq_row4(ggml_iq3s_grid[k[4]]),
                                       iq_row4(ggml_iq3s_grid[k[3]]), iq_row4(ggml_iq3s_grid[k[2]]),
                                       iq_row4(ggml_iq3s_grid[k[1]]), iq_row4(ggml_iq3s_grid[k[0]]));
    uint32_t sb;
    memcpy(&sb, b->signs + 4*ib, sizeof(sb));
    const __m256i as = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(sb));
    const int sc = b->scales[ib/2];
    return iq_dot_u(g, as, 2*((ib & 1) ? sc >> 4 : sc & 15) + 1);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq3_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    IQ_DOT_BLOCKS(block_iq3_s, iq3_s_prep, iq3_s_sub, iq3_s_d, 1.0f)
}

// 8*grid + delta for four 8-element grid rows of IQ1 (grid values -1, 0, 1; delta +-1 per row)
GGML_TARGET_AVX2 static inline __m256i iq1_levels(const uint16_t * idx, __m256i delta) {
    const __m256i g = _mm256_set_epi64x(iq_row8((const uint8_t *) ggml_iq1s_grid[idx[3]]), iq_row8((const uint8_t *) ggml_iq1s_grid[idx[2]]),
                                        iq_row8((const uint8_t *) ggml_iq1s_grid[idx[1]]), iq_row8((const uint8_t *) ggml_iq1s_grid[idx[0]]));
    return _mm256_add_epi8(_mm256_sign_epi8(_mm256_set1_epi8(8), g), delta);
}

// The 32 11-bit grid indices of an IQ1 block, qs[k] | (3 high bits) << 8, computed 16 at a time:
// hi16 holds in int16 lane k the word whose bits give index k's high bits, and the lane's bits
// are moved to 8..10 by a multiply (left shifts) or a high multiply (right shifts).
GGML_TARGET_AVX2 static inline void iq1_store_indices(const uint8_t * qs, __m256i hi0, __m256i hi1, __m256i mul_lo, __m256i mul_hi,
                                                      uint16_t * idx) {
    const __m256i m = _mm256_set1_epi16(0x700);
    const __m256i h0 = _mm256_and_si256(_mm256_or_si256(_mm256_mullo_epi16(hi0, mul_lo), _mm256_mulhi_epu16(hi0, mul_hi)), m);
    const __m256i h1 = _mm256_and_si256(_mm256_or_si256(_mm256_mullo_epi16(hi1, mul_lo), _mm256_mulhi_epu16(hi1, mul_hi)), m);
    const __m256i q0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *) qs));
    const __m256i q1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *) (qs + 16)));
    _mm256_storeu_si256((__m256i *)(void *) idx, _mm256_or_si256(q0, h0));
    _mm256_storeu_si256((__m256i *)(void *) (idx + 16), _mm256_or_si256(q1, h1));
}

// the 32 grid indices of an IQ1_S block: index 4*ib + l takes bits 3l .. 3l + 2 of qh[ib], to
// bits 8..10 by << 8, << 5, << 2, >> 1 (each 64-bit lane of hi0 / hi1: its qh word 4 times)
GGML_TARGET_AVX2 static inline void iq1_s_prep(const block_iq1_s * b, uint16_t * idx) {
    const __m256i mul_lo = _mm256_set1_epi64x(0x0000000400200100ll);
    const __m256i mul_hi = _mm256_set1_epi64x((long long) 0x8000000000000000ull);
    const __m256i rep = _mm256_set_epi64x(0x0908090809080908ll, 0x0100010001000100ll, 0x0908090809080908ll, 0x0100010001000100ll);
    const __m128i qh = _mm_loadu_si128((const __m128i *)(const void *) b->qh);
    const __m256i hi0 = _mm256_shuffle_epi8(_mm256_cvtepu16_epi64(qh), rep);
    const __m256i hi1 = _mm256_shuffle_epi8(_mm256_cvtepu16_epi64(_mm_srli_si128(qh, 8)), rep);
    iq1_store_indices(b->qs, hi0, hi1, mul_lo, mul_hi, idx);
}

GGML_TARGET_AVX2 static inline __m256i iq1_s_sub(const block_iq1_s * b, const uint16_t * idx, const int8_t * a, int ib) {
    const int qh = b->qh[ib];
    const __m256i v = iq1_levels(idx + 4*ib, _mm256_set1_epi8((qh & 0x8000) ? -1 : 1));
    const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(v, v), _mm256_sign_epi8(qu_load256(a), v));
    return _mm256_madd_epi16(p, _mm256_set1_epi16((short) (2*((qh >> 12) & 7) + 1)));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq1_s_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq1_s * x = vx;
    const block_q8_K * y = vy;
    __m256 accf = _mm256_setzero_ps();
    for (int i = 0; i < n/QK_K; i++) {
        uint16_t idx[32];
        iq1_s_prep(&x[i], idx);
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib += 2) {
            acc0 = _mm256_add_epi32(acc0, iq1_s_sub(&x[i], idx, y[i].qs + 32*ib, ib));
            acc1 = _mm256_add_epi32(acc1, iq1_s_sub(&x[i], idx, y[i].qs + 32*ib + 32, ib + 1));
        }
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*y[i].d);
        accf = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(_mm256_add_epi32(acc0, acc1)), accf);
    }
    *s = 0.125f*qu_hsum_ps(accf);
}

// the fp16 scale of an IQ1_M block, its nibbles in the top 4 bits of the four scale words (as
// ggml_iq1_m_scale; inline here, a call per block would spill the vector registers)
static inline ggml_fp16_t iq1_m_scale(const block_iq1_m * b) {
    uint16_t sc[4];
    memcpy(sc, b->scales, sizeof(sc));
    return (ggml_fp16_t) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
}

// sub-block ib of IQ1_M: idx its 4 grid indices, drow the delta signs of its 4 rows (0xff minus,
// 0 plus), sc the block's 16 scales (int16) with sc[k] in both 128-bit halves for k in half h
GGML_TARGET_AVX2 static inline __m256i iq1_m_sub(const uint16_t * idx, const uint8_t * drow, __m256i sch, const int8_t * a, int ib) {
    int d4;
    memcpy(&d4, drow + 4*ib, sizeof(d4));
    const __m256i delta = _mm256_or_si256(_mm256_cvtepi8_epi64(_mm_cvtsi32_si128(d4)), _mm256_set1_epi8(1));
    const __m256i v = iq1_levels(idx + 4*ib, delta);
    // int16 lanes of the low half: scale 2ib, of the high half: 2ib + 1 (bytes 4j .. 4j + 3, j = ib%4)
    const int j = ib & 3;
    const __m256i ctl = _mm256_set_m128i(_mm_set1_epi16((short) (0x0100*(4*j + 3) + 4*j + 2)),
                                         _mm_set1_epi16((short) (0x0100*(4*j + 1) + 4*j)));
    const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(v, v), _mm256_sign_epi8(qu_load256(a), v));
    return _mm256_madd_epi16(p, _mm256_shuffle_epi8(sch, ctl));
}

// an IQ1_M block's 32 grid indices (idx), the delta signs of its 32 rows (drow: 0xff minus, 0
// plus) and its 16 scales 2*s + 1 as int16, scales 0..7 in both halves of *sc_lo, 8..15 of *sc_hi
GGML_TARGET_AVX2 static inline void iq1_m_prep(const block_iq1_m * b, uint16_t * idx, uint8_t * drow, __m256i * sc_lo,
        __m256i * sc_hi) {
    // index k takes bits 0..2 of nibble k of qh (byte k/2), its row's delta sign bit 3: with the
    // byte in both halves of int16 lane k, << 8 (even k) or << 4 (odd k) brings them to bits 8..10, 11
    const __m256i mul_nib = _mm256_set1_epi32(0x00100100);
    const __m128i dup0 = _mm_set_epi64x(0x0707060605050404ll, 0x0303020201010000ll);
    const __m128i dup1 = _mm_add_epi8(dup0, _mm_set1_epi8(8));
    // scale k (0..15) is bits 3*(k%4) .. + 2 of scales word k/4: to bits 8..10 by << 8, << 5, << 2, >> 1
    const __m256i mul_lo = _mm256_set1_epi64x(0x0000000400200100ll);
    const __m256i mul_hi = _mm256_set1_epi64x((long long) 0x8000000000000000ull);
    const __m256i rep = _mm256_set_epi64x(0x0908090809080908ll, 0x0100010001000100ll, 0x0908090809080908ll, 0x0100010001000100ll);
    const __m256i m7 = _mm256_set1_epi16(0x700), m8 = _mm256_set1_epi16(0x800);
    const __m128i qh = _mm_loadu_si128((const __m128i *)(const void *) b->qh);
    const __m256i b0 = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qh, dup0));
    const __m256i b1 = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qh, dup1));
    const __m256i t0 = _mm256_mullo_epi16(_mm256_or_si256(b0, _mm256_slli_epi16(b0, 8)), mul_nib);
    const __m256i t1 = _mm256_mullo_epi16(_mm256_or_si256(b1, _mm256_slli_epi16(b1, 8)), mul_nib);
    const __m256i q0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *) b->qs));
    const __m256i q1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *) (b->qs + 16)));
    _mm256_storeu_si256((__m256i *)(void *) idx, _mm256_or_si256(q0, _mm256_and_si256(t0, m7)));
    _mm256_storeu_si256((__m256i *)(void *) (idx + 16), _mm256_or_si256(q1, _mm256_and_si256(t1, m7)));
    const __m256i dm = _mm256_packs_epi16(_mm256_cmpeq_epi16(_mm256_and_si256(t0, m8), m8), _mm256_cmpeq_epi16(_mm256_and_si256(t1, m8), m8));
    _mm256_storeu_si256((__m256i *)(void *) drow, _mm256_permute4x64_epi64(dm, 0xD8));
    const __m256i sw = _mm256_shuffle_epi8(_mm256_cvtepu16_epi64(_mm_loadl_epi64((const __m128i *)(const void *) b->scales)), rep);
    const __m256i sv = _mm256_srli_epi16(_mm256_and_si256(_mm256_or_si256(_mm256_mullo_epi16(sw, mul_lo), _mm256_mulhi_epu16(sw, mul_hi)), m7), 8);
    const __m256i sc = _mm256_or_si256(_mm256_slli_epi16(sv, 1), _mm256_set1_epi16(1));
    *sc_lo = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(sc));
    *sc_hi = _mm256_broadcastsi128_si256(_mm256_extracti128_si256(sc, 1));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq1_m_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq1_m * x = vx;
    const block_q8_K * y = vy;
    __m256 accf = _mm256_setzero_ps();
    for (int i = 0; i < n/QK_K; i++) {
        uint16_t idx[32];
        uint8_t drow[32];
        __m256i sc_lo, sc_hi;
        iq1_m_prep(&x[i], idx, drow, &sc_lo, &sc_hi);
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib += 2) {
            const __m256i sch = ib < 4 ? sc_lo : sc_hi;
            acc0 = _mm256_add_epi32(acc0, iq1_m_sub(idx, drow, sch, y[i].qs + 32*ib, ib));
            acc1 = _mm256_add_epi32(acc1, iq1_m_sub(idx, drow, sch, y[i].qs + 32*ib + 32, ib + 1));
        }
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(iq1_m_scale(&x[i]))*y[i].d);
        accf = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(_mm256_add_epi32(acc0, acc1)), accf);
    }
    *s = 0.125f*qu_hsum_ps(accf);
}

// The prompt tiles (the tile slot of cpu-kernels.h) of the grid formats: 1 row x up to 8
// columns. A super-block's 8 sub-blocks are taken apart once per row into levels (the grid
// values with their signs, |w| <= 62; IQ1: 8*grid + delta, |w| <= 9) stored as unsigned bytes
// w + 64, and int16 scale vectors (the scale of elements 0..15 in the low 128 bits, of 16..31 in
// the high), and serve every column: per 32 weights and column one activation load, one maddubs
// (pairs at most 2*126*128), one madd by the scales and one add. The offset comes off once per
// super-block and column: 64 times the Q8_K bsums (sums of 16 activations) dotted with the 16
// scales. The integer sums equal the dot products' above. One column (decode) goes to the dot
// product.

struct iqt_block {
    __m256i w[QK_K/32];  // levels of sub-block ib plus 64 (unsigned)
    __m256i sc[QK_K/32]; // its int16 scales (elements 0..15 | 16..31)
    int16_t g16[16];     // the same scales per 16-element group, in order
    float   d;           // the block scale times the format's factor
};

enum iqt_kind { IQT_IQ2_XXS, IQT_IQ2_XS, IQT_IQ2_S, IQT_IQ3_XXS, IQT_IQ3_S, IQT_IQ1_S, IQT_IQ1_M };

#define IQT_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// sub-block ib's scales: lo for its elements 0..15, hi for 16..31
IQT_INLINE void iqt_scales(struct iqt_block * u, int ib, int lo, int hi) {
    u->sc[ib] = _mm256_set_m128i(_mm_set1_epi16((short) hi), _mm_set1_epi16((short) lo));
    u->g16[2*ib] = (int16_t) lo;
    u->g16[2*ib + 1] = (int16_t) hi;
}

IQT_INLINE size_t iqt_xsize(enum iqt_kind k) {
    switch (k) {
        case IQT_IQ2_XXS: return sizeof(block_iq2_xxs);
        case IQT_IQ2_XS:  return sizeof(block_iq2_xs);
        case IQT_IQ2_S:   return sizeof(block_iq2_s);
        case IQT_IQ3_XXS: return sizeof(block_iq3_xxs);
        case IQT_IQ3_S:   return sizeof(block_iq3_s);
        case IQT_IQ1_S:   return sizeof(block_iq1_s);
        case IQT_IQ1_M:   return sizeof(block_iq1_m);
    }
    return 0;
}

IQT_INLINE void iqt_unpack_levels(enum iqt_kind k, const void * blk, struct iqt_block * u) {
    uint16_t idx[64];
    switch (k) {
        case IQT_IQ2_XXS: {
            const block_iq2_xxs * b = blk;
            for (int ib = 0; ib < QK_K/32; ib++) {
                uint32_t aux[2];
                memcpy(aux, b->qs + 4*ib, sizeof(aux));
                const uint8_t * q = (const uint8_t *) aux;
                const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xxs_grid[q[3]]), iq_row8(ggml_iq2xxs_grid[q[2]]),
                                                    iq_row8(ggml_iq2xxs_grid[q[1]]), iq_row8(ggml_iq2xxs_grid[q[0]]));
                u->w[ib] = _mm256_sign_epi8(g, iq_signs4(aux[1] & 127, (aux[1] >> 7) & 127, (aux[1] >> 14) & 127,
                                                         (aux[1] >> 21) & 127));
                const int ls = 2*(int) (aux[1] >> 28) + 1;
                iqt_scales(u, ib, ls, ls);
            }
            u->d = 0.125f*q_fp16_avx2(b->d);
            return;
        }
        case IQT_IQ2_XS: {
            const block_iq2_xs * b = blk;
            for (int ib = 0; ib < QK_K/32; ib++) {
                const uint16_t * q = b->qs + 4*ib;
                const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2xs_grid[q[3] & 511]), iq_row8(ggml_iq2xs_grid[q[2] & 511]),
                                                    iq_row8(ggml_iq2xs_grid[q[1] & 511]), iq_row8(ggml_iq2xs_grid[q[0] & 511]));
                u->w[ib] = _mm256_sign_epi8(g, iq_signs4(q[0] >> 9, q[1] >> 9, q[2] >> 9, q[3] >> 9));
                const int sc = b->scales[ib];
                iqt_scales(u, ib, 2*(sc & 15) + 1, 2*(sc >> 4) + 1);
            }
            u->d = 0.125f*q_fp16_avx2(b->d);
            return;
        }
        case IQT_IQ2_S: {
            const block_iq2_s * b = blk;
            iq2_s_prep(b, idx);
            for (int ib = 0; ib < QK_K/32; ib++) {
                const uint16_t * q = idx + 4*ib;
                const __m256i g = _mm256_set_epi64x(iq_row8(ggml_iq2s_grid[q[3]]), iq_row8(ggml_iq2s_grid[q[2]]),
                                                    iq_row8(ggml_iq2s_grid[q[1]]), iq_row8(ggml_iq2s_grid[q[0]]));
                uint32_t sb;
                memcpy(&sb, b->qs + QK_K/8 + 4*ib, sizeof(sb));
                u->w[ib] = _mm256_sign_epi8(g, qu_signs_pm1(sb));
                const int sc = b->scales[ib];
                iqt_scales(u, ib, 2*(sc & 15) + 1, 2*(sc >> 4) + 1);
            }
            u->d = 0.125f*q_fp16_avx2(b->d);
            return;
        }
        case IQT_IQ3_XXS: {
            const block_iq3_xxs * b = blk;
            for (int ib = 0; ib < QK_K/32; ib++) {
                const uint8_t * q = b->qs + 8*ib;
                uint32_t aux;
                memcpy(&aux, b->qs + QK_K/4 + 4*ib, sizeof(aux));
                const __m256i g = _mm256_set_epi32(iq_row4(ggml_iq3xxs_grid[q[7]]), iq_row4(ggml_iq3xxs_grid[q[6]]),
                                                   iq_row4(ggml_iq3xxs_grid[q[5]]), iq_row4(ggml_iq3xxs_grid[q[4]]),
                                                   iq_row4(ggml_iq3xxs_grid[q[3]]), iq_row4(ggml_iq3xxs_grid[q[2]]),
                                                   iq_row4(ggml_iq3xxs_grid[q[1]]), iq_row4(ggml_iq3xxs_grid[q[0]]));
                u->w[ib] = _mm256_sign_epi8(g, iq_signs4(aux & 127, (aux >> 7) & 127, (aux >> 14) & 127, (aux >> 21) & 127));
                const int ls = 2*(int) (aux >> 28) + 1;
                iqt_scales(u, ib, ls, ls);
            }
            u->d = 0.25f*q_fp16_avx2(b->d);
            return;
        }
        case IQT_IQ3_S: {
            const block_iq3_s * b = blk;
            iq3_s_prep(b, idx);
            for (int ib = 0; ib < QK_K/32; ib++) {
                const uint16_t * q = idx + 8*ib;
                const __m256i g = _mm256_set_epi32(iq_row4(ggml_iq3s_grid[q[7]]), iq_row4(ggml_iq3s_grid[q[6]]),
                                                   iq_row4(ggml_iq3s_grid[q[5]]), iq_row4(ggml_iq3s_grid[q[4]]),
                                                   iq_row4(ggml_iq3s_grid[q[3]]), iq_row4(ggml_iq3s_grid[q[2]]),
                                                   iq_row4(ggml_iq3s_grid[q[1]]), iq_row4(ggml_iq3s_grid[q[0]]));
                uint32_t sb;
                memcpy(&sb, b->signs + 4*ib, sizeof(sb));
                u->w[ib] = _mm256_sign_epi8(g, qu_signs_pm1(sb));
                const int sc = b->scales[ib/2];
                const int ls = 2*((ib & 1) ? sc >> 4 : sc & 15) + 1;
                iqt_scales(u, ib, ls, ls);
            }
            u->d = q_fp16_avx2(b->d);
            return;
        }
        case IQT_IQ1_S: {
            const block_iq1_s * b = blk;
            iq1_s_prep(b, idx);
            for (int ib = 0; ib < QK_K/32; ib++) {
                const int qh = b->qh[ib];
                u->w[ib] = iq1_levels(idx + 4*ib, _mm256_set1_epi8((qh & 0x8000) ? -1 : 1));
                const int ls = 2*((qh >> 12) & 7) + 1;
                iqt_scales(u, ib, ls, ls);
            }
            u->d = 0.125f*q_fp16_avx2(b->d);
            return;
        }
        case IQT_IQ1_M: {
            const block_iq1_m * b = blk;
            uint8_t drow[32];
            __m256i sc_lo, sc_hi;
            iq1_m_prep(b, idx, drow, &sc_lo, &sc_hi);
            for (int ib = 0; ib < QK_K/32; ib++) {
                int d4;
                memcpy(&d4, drow + 4*ib, sizeof(d4));
                const __m256i delta = _mm256_or_si256(_mm256_cvtepi8_epi64(_mm_cvtsi32_si128(d4)), _mm256_set1_epi8(1));
                u->w[ib] = iq1_levels(idx + 4*ib, delta);
                const int j = ib & 3;
                const __m256i ctl = _mm256_set_m128i(_mm_set1_epi16((short) (0x0100*(4*j + 3) + 4*j + 2)),
                                                     _mm_set1_epi16((short) (0x0100*(4*j + 1) + 4*j)));
                u->sc[ib] = _mm256_shuffle_epi8(ib < 4 ? sc_lo : sc_hi, ctl);
            }
            _mm256_storeu_si256((__m256i *)(void *) u->g16, _mm256_permute2x128_si256(sc_lo, sc_hi, 0x20));
            u->d = 0.125f*q_fp16_avx2(iq1_m_scale(b));
            return;
        }
    }
}

// the block's levels (offset by 64) and scales
IQT_INLINE void iqt_unpack(enum iqt_kind k, const void * blk, struct iqt_block * u) {
    iqt_unpack_levels(k, blk, u);
    const __m256i off = _mm256_set1_epi8(64);
    for (int ib = 0; ib < QK_K/32; ib++) {
        u->w[ib] = _mm256_add_epi8(u->w[ib], off);
    }
}

// one row x C columns over nb super-blocks: s[c*bs] = dot(row x, column c)
IQT_INLINE void iqt_row(enum iqt_kind k, int C, int nb, float * s, size_t bs, const char * x, const char * y, size_t by) {
    __m256 acc[8];
    for (int c = 0; c < C; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        struct iqt_block u;
        iqt_unpack(k, x + (size_t) i*iqt_xsize(k), &u);
        const block_q8_K * yb[8];
        __m256i p[8];
        for (int c = 0; c < C; c++) {
            yb[c] = (const block_q8_K *)(const void *) (y + (size_t) c*by) + i;
            p[c] = _mm256_setzero_si256();
        }
        for (int ib = 0; ib < QK_K/32; ib++) {
            const __m256i w = u.w[ib], sc = u.sc[ib];
            for (int c = 0; c < C; c++) {
                p[c] = _mm256_add_epi32(p[c], _mm256_madd_epi16(_mm256_maddubs_epi16(w, qu_load256(yb[c]->qs + 32*ib)), sc));
            }
        }
        const __m256i g16 = _mm256_loadu_si256((const __m256i *)(const void *) u.g16);
        for (int c = 0; c < C; c++) {
            const __m256i o = _mm256_slli_epi32(_mm256_madd_epi16(qu_load256(yb[c]->bsums), g16), 6);
            acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(u.d*yb[c]->d), _mm256_cvtepi32_ps(_mm256_sub_epi32(p[c], o)), acc[c]);
        }
    }
    for (int c = 0; c < C; c++) {
        s[(size_t) c*bs] = qu_hsum_ps(acc[c]);
    }
}

IQT_INLINE void iqt_tile(enum iqt_kind k, ggml_vec_dot_t dot, int n, float * s, size_t bs, const void * vx, size_t bx,
        const void * vy, size_t by, int nr, int nc) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK_K;
    for (int r = 0; r < nr; r++) {
        const char * xr = x + (size_t) r*bx;
        if (nc == 1) {
            dot(n, s + r, 0, xr, 0, y, 0, 1);
            continue;
        }
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            iqt_row(k, 8, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            iqt_row(k, 4, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            iqt_row(k, 2, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            iqt_row(k, 1, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
    }
}

#define IQT_DEFINE(name, kind) \
    GGML_TARGET_AVX2 void ggml_cpu_q_tile_##name##_avx2(int n, float * s, size_t bs, const void * x, size_t bx, \
            const void * y, size_t by, int nr, int nc) { \
        iqt_tile(kind, ggml_cpu_q_dot_##name##_avx2, n, s, bs, x, bx, y, by, nr, nc); \
    }

IQT_DEFINE(iq2_xxs, IQT_IQ2_XXS)
IQT_DEFINE(iq2_xs, IQT_IQ2_XS)
IQT_DEFINE(iq2_s, IQT_IQ2_S)
IQT_DEFINE(iq3_xxs, IQT_IQ3_XXS)
IQT_DEFINE(iq3_s, IQT_IQ3_S)
IQT_DEFINE(iq1_s, IQT_IQ1_S)
IQT_DEFINE(iq1_m, IQT_IQ1_M)

// The prompt path through a panel (the unpack and tile_panel slots of cpu-kernels.h): the levels
// and scales of the tile above, written once per weight row and product into one layout for all
// seven formats, then read by one kernel for every group of columns. The sub-block scale vectors
// are rebuilt from g16 by a shuffle per sub-block and row (not per column). Same integer sums,
// same float operations in the same order as iqt_row: bit-identical to the tiles.

struct iqp_block {
    uint8_t w[QK_K];     // levels plus 64 (unsigned), sub-block ib at 32*ib
    int16_t g16[16];     // the scale of each 16-element group
    float   d;           // the block scale times the format's factor
    uint8_t pad[GGML_CPU_QPANEL_BLOCK - QK_K - 32 - sizeof(float)];
};
_Static_assert(sizeof(struct iqp_block) == GGML_CPU_QPANEL_BLOCK, "the panel block's size is the slot's");

IQT_INLINE void iqp_unpack(enum iqt_kind k, int n, void * panel, const void * vx, size_t bx, int nr) {
    const int nb = n/QK_K;
    struct iqp_block * p = panel;
    for (int r = 0; r < nr; r++) {
        const char * xr = (const char *) vx + (size_t) r*bx;
        for (int i = 0; i < nb; i++, p++) {
            struct iqt_block u;
            iqt_unpack(k, xr + (size_t) i*iqt_xsize(k), &u);
            for (int ib = 0; ib < QK_K/32; ib++) {
                _mm256_storeu_si256((__m256i *)(void *) (p->w + 32*ib), u.w[ib]);
            }
            memcpy(p->g16, u.g16, sizeof(p->g16));
            p->d = u.d;
        }
    }
}

// rows of the panel (R <= IQP_ROWS, each nb blocks) x C columns: the columns' activations of a
// super-block stay in L1 for the R rows
#define IQP_ROWS 8

IQT_INLINE void iqp_rows(int R, int C, int nb, float * s, size_t bs, const struct iqp_block * p, const char * y, size_t by) {
    __m256 acc[IQP_ROWS][8];
    for (int r = 0; r < R; r++) {
        for (int c = 0; c < C; c++) {
            acc[r][c] = _mm256_setzero_ps();
        }
    }
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb[8];
        for (int c = 0; c < C; c++) {
            yb[c] = (const block_q8_K *)(const void *) (y + (size_t) c*by) + i;
        }
        for (int r = 0; r < R; r++) {
            const struct iqp_block * u = p + (size_t) r*nb + i;
            const __m256i g16 = _mm256_loadu_si256((const __m256i *)(const void *) u->g16);
            const __m256i glo = _mm256_permute2x128_si256(g16, g16, 0x00), ghi = _mm256_permute2x128_si256(g16, g16, 0x11);
            __m256i q[8];
            for (int c = 0; c < C; c++) {
                q[c] = _mm256_setzero_si256();
            }
            for (int ib = 0; ib < QK_K/32; ib++) {
                const int j = ib & 3;
                const __m256i ctl = _mm256_set_m128i(_mm_set1_epi16((short) (0x0100*(4*j + 3) + 4*j + 2)),
                                                     _mm_set1_epi16((short) (0x0100*(4*j + 1) + 4*j)));
                const __m256i sc = _mm256_shuffle_epi8(ib < 4 ? glo : ghi, ctl);
                const __m256i w = qu_load256(u->w + 32*ib);
                for (int c = 0; c < C; c++) {
                    q[c] = _mm256_add_epi32(q[c], _mm256_madd_epi16(_mm256_maddubs_epi16(w, qu_load256(yb[c]->qs + 32*ib)), sc));
                }
            }
            for (int c = 0; c < C; c++) {
                const __m256i o = _mm256_slli_epi32(_mm256_madd_epi16(qu_load256(yb[c]->bsums), g16), 6);
                acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(u->d*yb[c]->d), _mm256_cvtepi32_ps(_mm256_sub_epi32(q[c], o)), acc[r][c]);
            }
        }
    }
    for (int r = 0; r < R; r++) {
        for (int c = 0; c < C; c++) {
            s[(size_t) c*bs + r] = qu_hsum_ps(acc[r][c]);
        }
    }
}

GGML_TARGET_AVX2 static void iqp_rows_c(int R, int C, int nb, float * s, size_t bs, const struct iqp_block * p, const char * y,
        size_t by) {
    switch (C) {
        case 8: iqp_rows(R, 8, nb, s, bs, p, y, by); return;
        case 4: iqp_rows(R, 4, nb, s, bs, p, y, by); return;
        case 2: iqp_rows(R, 2, nb, s, bs, p, y, by); return;
        default: iqp_rows(R, 1, nb, s, bs, p, y, by); return;
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_panel_grid_avx2(int n, float * s, size_t bs, const void * panel, const void * vy, size_t by,
        int nr, int nc) {
    const int nb = n/QK_K;
    const struct iqp_block * p = panel;
    const char * y = vy;
    for (int r = 0; r < nr; r += IQP_ROWS) {
        const int R = nr - r < IQP_ROWS ? nr - r : IQP_ROWS;
        const struct iqp_block * pr = p + (size_t) r*nb;
        for (int c = 0; c < nc;) {
            const int C = nc - c >= 8 ? 8 : nc - c >= 4 ? 4 : nc - c >= 2 ? 2 : 1;
            iqp_rows_c(R, C, nb, s + (size_t) c*bs + r, bs, pr, y + (size_t) c*by, by);
            c += C;
        }
    }
}

#define IQP_DEFINE(name, kind) \
    GGML_TARGET_AVX2 void ggml_cpu_q_unpack_##name##_avx2(int n, void * panel, const void * x, size_t bx, int nr) { \
        iqp_unpack(kind, n, panel, x, bx, nr); \
    }

IQP_DEFINE(iq2_xxs, IQT_IQ2_XXS)
IQP_DEFINE(iq2_xs, IQT_IQ2_XS)
IQP_DEFINE(iq2_s, IQT_IQ2_S)
IQP_DEFINE(iq3_xxs, IQT_IQ3_XXS)
IQP_DEFINE(iq3_s, IQT_IQ3_S)
IQP_DEFINE(iq1_s, IQT_IQ1_S)
IQP_DEFINE(iq1_m, IQT_IQ1_M)

#else

typedef int ggml_avx2_quant_iq_unused;

#endif // GGML_CPU_X86
