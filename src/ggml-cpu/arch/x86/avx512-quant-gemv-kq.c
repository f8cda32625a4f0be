// AVX-512 decode kernels (the gemv slot of cpu-kernels.h) of the K-quants Q2_K, Q3_K, Q4_K, Q5_K
// and Q6_K against Q8_K: s[r] = dot(weight row r, one activation row) for nr consecutive rows; the
// row order of avx512-quant-gemv.c (rows i, i + q, i + 2q, i + 3q in lockstep, the last nr % 4 rows
// one at a time with a software prefetch), the activation row prepared once per call and segment.
//
// Per super-block and row the 256 weight levels become four 512-bit vectors of unsigned bytes
// straight from 512-bit loads (and / shift, no byte permutation); each 128-bit lane of a vector is
// one group of 16 elements (Q2_K, Q3_K, Q6_K: the scale's group; Q4_K, Q5_K: half a sub-block),
// and the activations are prepared in the same order (two 32-element chunks per vector, zk_chunk):
//   Q4_K, Q5_K: one 64-byte qs load holds chunks 2w, 2w + 2 (low nibbles) and 2w + 1, 2w + 3 (high);
//               Q5_K's fifth bits: one vptestmb of the broadcast qh and a masked byte add per vector;
//   Q6_K:       one 64-byte ql load holds chunks 4h, 4h + 1 (low nibbles), 4h + 2, 4h + 3 (high);
//               the two high bits: a variable 16-bit shift of the broadcast qh and one vpternlogd;
//   Q2_K, Q3_K: the 64 qs bytes hold chunks j and 4 + j at bits 2j; Q3_K's high bit as Q5_K's.
// The integer part:
//   - VNNI: vpdpbusd of the levels with the activations (4 int32 partial sums per group);
//     AVX512BW: vpmaddubsw + vpmaddwd by ones (levels <= 63: a pair stays within int16);
//   - the four vectors' sums fold to 16 group sums (lane p: vector p % 4, 128-bit lane p / 4), the
//     fixed offsets (Q3_K: -4, Q6_K: -32, times the group's bsum) are added from the prepared
//     activation, and one vpmulld by the 16 scales (spread once per super-block by a vpshufb and a
//     widening move) gives exact int32 products;
//   - the mins (Q2_K, Q4_K, Q5_K) are one vpmaddwd of the mins with Q8_K's bsums (Q4_K/Q5_K: sums of
//     bsum pairs, prepared), kept in their own accumulator;
//   - floats: one conversion and one fmadd by d_w*d_a per super-block (and one for the mins).
// The integer sums per super-block are those of vec_dot; the float additions are in another order
// (16 lanes over the super-blocks, the mins apart, one horizontal sum at the end). The kernels
// themselves are in avx512-quant-gemv-kq.h, once for AVX512BW and once for VNNI.

#include "avx512-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum zk_kind { ZK_Q2_K, ZK_Q3_K, ZK_Q4_K, ZK_Q5_K, ZK_Q6_K };

#define ZK_SEG     32   // super-blocks of activation prepared at a time (8192 elements)
#define ZK_PF      2048 // software prefetch distance of the single rows after the runs, bytes
#define ZK_STREAMS 4    // distant runs of rows in lockstep

#define ZK_INLINE GGML_TARGET_AVX512 GGML_KERNEL_INLINE

// the activation row of one segment in the loop's layout
struct zk_act {
    __m512i a[4*ZK_SEG];  // super-block i, weight vector v: a[4i + v], chunks zk_chunk(k, v) and + zk_delta(k)
    __m512i off[ZK_SEG];  // Q3_K / Q6_K: -4 / -32 times the bsum of lane p's group
    __m256i bs[ZK_SEG];   // Q2_K: the 16 bsums; Q4_K / Q5_K: the 8 sums of bsum pairs (low half)
    float   d[ZK_SEG];
};

// the first 32-element chunk of weight vector v (bytes 0..31), the second being that + zk_delta
ZK_INLINE int zk_chunk(enum zk_kind k, int v) {
    switch (k) {
        case ZK_Q6_K: return 2*v;
        case ZK_Q4_K:
        case ZK_Q5_K: return 4*(v >> 1) + (v & 1);
        default:      return v;
    }
}

ZK_INLINE int zk_delta(enum zk_kind k) {
    return k == ZK_Q6_K ? 1 : k == ZK_Q2_K || k == ZK_Q3_K ? 4 : 2;
}

// the group of 16 elements in 128-bit lane L of weight vector v
ZK_INLINE int zk_group(enum zk_kind k, int v, int L) {
    return 2*(zk_chunk(k, v) + (L >> 1)*zk_delta(k)) + (L & 1);
}

// the group whose sum lands in lane p of the folded vector (zk_fold)
ZK_INLINE int zk_lane_group(enum zk_kind k, int p) {
    return zk_group(k, p & 3, p >> 2);
}

// the byte index of lane p's scale among 16 scale bytes: the group (Q2_K, Q3_K, Q6_K) or its
// sub-block (Q4_K, Q5_K)
ZK_INLINE __m128i zk_scale_index(enum zk_kind k) {
    const int sh = k == ZK_Q4_K || k == ZK_Q5_K ? 1 : 0;
#define ZK_I(p) (char) (zk_lane_group(k, p) >> sh)
    return _mm_setr_epi8(ZK_I(0), ZK_I(1), ZK_I(2), ZK_I(3), ZK_I(4), ZK_I(5), ZK_I(6), ZK_I(7),
                         ZK_I(8), ZK_I(9), ZK_I(10), ZK_I(11), ZK_I(12), ZK_I(13), ZK_I(14), ZK_I(15));
#undef ZK_I
}

ZK_INLINE __m256i zk_load256(const void * p) {
    return _mm256_loadu_si256((const __m256i *) p);
}

ZK_INLINE __m512i zk_load512(const void * p) {
    return _mm512_loadu_si512(p);
}

// nb super-blocks of Q8_K activations into act
ZK_INLINE void zk_prepare(enum zk_kind k, const block_q8_K * y, int nb, struct zk_act * act) {
    const int mul = k == ZK_Q3_K ? -4 : k == ZK_Q6_K ? -32 : 0;
    for (int i = 0; i < nb; i++) {
        act->d[i] = y[i].d;
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) {
            const int c = zk_chunk(k, v);
            act->a[4*i + v] = _mm512_inserti64x4(_mm512_castsi256_si512(zk_load256(y[i].qs + 32*c)),
                                                 zk_load256(y[i].qs + 32*(c + zk_delta(k))), 1);
        }
        int32_t off[16];
        for (int p = 0; p < 16; p++) {
            off[p] = mul*y[i].bsums[zk_lane_group(k, p)];
        }
        act->off[i] = _mm512_loadu_si512((const void *) off);
        if (k == ZK_Q2_K) {
            act->bs[i] = zk_load256(y[i].bsums);
        } else {
            int16_t pairs[16] = { 0 };
            for (int j = 0; j < 8; j++) {
                pairs[j] = (int16_t) (y[i].bsums[2*j] + y[i].bsums[2*j + 1]);
            }
            act->bs[i] = zk_load256(pairs);
        }
    }
}

// 64 bytes: bit b0 in the first 32, bit b1 in the last 32 (the vptestmb selectors)
ZK_INLINE __m512i zk_bits(int b0, int b1) {
    return _mm512_inserti64x4(_mm512_set1_epi8((char) (1 << b0)), _mm256_set1_epi8((char) (1 << b1)), 1);
}

// the 256 levels of one super-block as unsigned bytes in the four vectors of the kind's layout
ZK_INLINE void zk_levels(enum zk_kind k, const void * xb, __m512i u[4]) {
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    const __m512i m3 = _mm512_set1_epi8(0x03);
    if (k == ZK_Q4_K || k == ZK_Q5_K) {
        const uint8_t * qs = k == ZK_Q4_K ? ((const block_q4_K *) xb)->qs : ((const block_q5_K *) xb)->qs;
#pragma GCC unroll 4
        for (int w = 0; w < 2; w++) {
            const __m512i q = zk_load512(qs + 64*w);
            u[2*w]     = _mm512_and_si512(q, m4);
            u[2*w + 1] = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
        }
        if (k == ZK_Q5_K) {
            // the fifth bit of element l of chunk c is bit c of qh[l]
            const __m512i qh = _mm512_broadcast_i64x4(zk_load256(((const block_q5_K *) xb)->qh));
            const __m512i b4 = _mm512_set1_epi8(0x10);
#pragma GCC unroll 4
            for (int v = 0; v < 4; v++) {
                const int c = zk_chunk(k, v);
                u[v] = _mm512_mask_add_epi8(u[v], _mm512_test_epi8_mask(qh, zk_bits(c, c + 2)), u[v], b4);
            }
        }
    } else if (k == ZK_Q6_K) {
        const block_q6_K * b = xb;
        const __m512i m30 = _mm512_set1_epi8(0x30);
#pragma GCC unroll 4
        for (int h = 0; h < 2; h++) {
            const __m512i q = zk_load512(b->ql + 64*h);
            const __m512i qh = _mm512_broadcast_i64x4(zk_load256(b->qh + 32*h));
            // chunk 4h + t takes bits 2t, 2t + 1 of qh, moved to bits 4, 5 (what crosses a byte
            // lands outside the 0x30 mask)
            const __m512i h01 = _mm512_sllv_epi16(qh, _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1));
            const __m512i h23 = _mm512_srlv_epi16(qh, _mm512_inserti64x4(_mm512_set1_epi16(0), _mm256_set1_epi16(2), 1));
            // lo | (hb & 0x30)
            u[2*h]     = _mm512_ternarylogic_epi32(_mm512_and_si512(q, m4), h01, m30, 0xF8);
            u[2*h + 1] = _mm512_ternarylogic_epi32(_mm512_and_si512(_mm512_srli_epi16(q, 4), m4), h23, m30, 0xF8);
        }
    } else {
        const uint8_t * qs = k == ZK_Q2_K ? ((const block_q2_K *) xb)->qs : ((const block_q3_K *) xb)->qs;
        const __m512i q = zk_load512(qs);
#pragma GCC unroll 4
        for (int j = 0; j < 4; j++) {
            u[j] = _mm512_and_si512(j == 0 ? q : _mm512_srli_epi16(q, 2*j), m3);
        }
        if (k == ZK_Q3_K) {
            // the third bit of element l of chunk c is bit c of hmask[l]: level + 4
            const __m512i hm = _mm512_broadcast_i64x4(zk_load256(((const block_q3_K *) xb)->hmask));
            const __m512i b2 = _mm512_set1_epi8(0x04);
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                u[j] = _mm512_mask_add_epi8(u[j], _mm512_test_epi8_mask(hm, zk_bits(j, j + 4)), u[j], b2);
            }
        }
    }
}

// the 12 scale bytes of Q4_K / Q5_K to [8 scales | 8 mins] (6 bits each, in sub-block order):
// scales 0..3 = u0 & 0x3F, 4..7 = (u2 & 0x0F) | (u0 >> 2 & 0x30); mins 0..3 = u1 & 0x3F,
// 4..7 = (u2 >> 4 & 0x0F) | (u1 >> 2 & 0x30), u0, u1, u2 the three dwords of a 16-byte load (the
// fourth is the first qs bytes of the block)
ZK_INLINE __m128i zk_scales_q45(const uint8_t * q) {
    const __m128i s = _mm_loadu_si128((const __m128i *) (const void *) q);
    const __m128i a = _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 1, 2, 0)); // u0 u2 u1 u2
    const __m128i h = _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 1, 0, 0)); // u0 u0 u1 u1
    const __m128i lo = _mm_and_si128(_mm_srlv_epi32(a, _mm_setr_epi32(0, 0, 0, 4)),
                                     _mm_setr_epi32(0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F));
    const __m128i hi = _mm_and_si128(_mm_srli_epi32(h, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
    return _mm_or_si128(lo, hi);
}

// the 16 signed 6-bit scales of Q3_K (minus 32) in group order: low nibble of byte g (g < 8) or
// high nibble of byte g - 8, bits 2(g/4), 2(g/4) + 1 of byte 8 + g%4 above it
ZK_INLINE __m128i zk_scales_q3(const uint8_t * s) {
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m128i l8 = _mm_loadl_epi64((const __m128i *) (const void *) s);
    const __m128i lo = _mm_unpacklo_epi64(_mm_and_si128(l8, m4), _mm_and_si128(_mm_srli_epi16(l8, 4), m4));
    uint32_t h4;
    memcpy(&h4, s + 8, sizeof(h4));
    const __m128i hi = _mm_and_si128(_mm_srlv_epi32(_mm_set1_epi32((int) h4), _mm_setr_epi32(0, 2, 4, 6)), _mm_set1_epi8(3));
    return _mm_sub_epi8(_mm_or_si128(lo, _mm_slli_epi16(hi, 4)), _mm_set1_epi8(32));
}

// 16 int32 lanes of the four vectors' partial sums (lane L of vector j: 4 sums of one group)
// folded to one vector whose lane 4L + j holds the group's sum
ZK_INLINE __m512i zk_fold(const __m512i q[4]) {
    const __m512i a = _mm512_add_epi32(_mm512_unpacklo_epi32(q[0], q[1]), _mm512_unpackhi_epi32(q[0], q[1]));
    const __m512i c = _mm512_add_epi32(_mm512_unpacklo_epi32(q[2], q[3]), _mm512_unpackhi_epi32(q[2], q[3]));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(a, c), _mm512_unpackhi_epi64(a, c));
}

ZK_INLINE float zk_hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

ZK_INLINE size_t zk_xsize(enum zk_kind k) {
    switch (k) {
        case ZK_Q2_K: return sizeof(block_q2_K);
        case ZK_Q3_K: return sizeof(block_q3_K);
        case ZK_Q4_K: return sizeof(block_q4_K);
        case ZK_Q5_K: return sizeof(block_q5_K);
        case ZK_Q6_K: return sizeof(block_q6_K);
    }
    return 0;
}

#define ZV_VNNI 0
#define ZV_T    GGML_TARGET_AVX512
#define ZV(name) name##_avx512
#include "avx512-quant-gemv-kq.h"
#undef ZV_VNNI
#undef ZV_T
#undef ZV

#define ZV_VNNI 1
#define ZV_T    GGML_TARGET_AVX512_VNNI
#define ZV(name) name##_avx512_vnni
#include "avx512-quant-gemv-kq.h"
#undef ZV_VNNI
#undef ZV_T
#undef ZV

#else

typedef int ggml_avx512_quant_gemv_kq_unused;

#endif // GGML_CPU_X86
