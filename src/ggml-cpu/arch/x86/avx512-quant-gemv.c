// AVX-512 decode kernels (the gemv slot of cpu-kernels.h) of the 32-element formats Q4_0, Q4_1,
// Q5_0, Q5_1, Q8_0, IQ4_NL and MXFP4: s[r] = dot(weight row r, one activation row) for nr consecutive
// rows. The structure of the AVX2 ones (avx2-quant-gemv.c: rows i, i + q, i + 2q, i + 3q in
// lockstep, the last nr % 4 rows one at a time with a software prefetch, the activation row
// prepared once per call and segment) with 512-bit steps:
//   - a group is 16 blocks; a "quad" register holds 4 blocks' 16 nibble bytes (block 4j + L in
//     128-bit lane L: one broadcast load and 3 masked broadcast loads), so one and / shift + and
//     gives elements 0..15 and 16..31 of 4 blocks, each against a prepared activation register;
//   - the Q5 high bits of 4 blocks are two 64-bit masks built in general registers from the 4 qh
//     words, added as 0x10 by one masked byte add per 64 weights (no bit-to-byte expansion);
//   - with VNNI the weights are unsigned (Q4_0 + 8, Q5_0 + 16, Q8_0 and IQ4_NL + 128: IQ4_NL's
//     table is looked up already offset), vpdpbusd takes them straight to int32, and the offset
//     times the block's activation sum (prepared once) is subtracted from the exact block sum;
//     without VNNI the 4/5-bit levels go through vpmaddubsw + vpmaddwd, Q8_0 and IQ4_NL through
//     |w| times a with w's sign (vpmaddubsw would overflow on the +128 offset);
//   - the 4 quads' partial sums fold to 16 block sums by unpacks (lane 4L + j: block 4j + L), the
//     16 fp16 scales of the weights come from 16 masked dword broadcasts in that lane order, and
//     one fmadd per group scales them (Q4_1 / Q5_1: one more for m_w * s_a).
//   - MXFP4 is IQ4_NL with its own table (ggml_kvalues_mxfp4) and an E8M0 scale byte: the 16
//     bytes go into the exponent fields of 16 floats at half their value (zg_e8m0_half).
// The integer block sums are exact (as vec_dot's); only the order of the float additions
// differs from the AVX2 kernels (16 lanes, each summing its own block of every group).
// The kernels themselves are in avx512-quant-gemv-32.h, once for AVX512BW and once for VNNI.

#include "avx512-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum zg_kind { ZG_Q4_0, ZG_Q4_1, ZG_Q5_0, ZG_Q5_1, ZG_Q8_0, ZG_IQ4_NL, ZG_MXFP4 };

#define ZG_GROUP   16   // blocks reduced together (4 quads of 4 blocks)
#define ZG_SEG     256  // blocks of activation prepared at a time; longer rows take segments
#define ZG_PF      2048 // software prefetch distance of the single rows after the runs, bytes
#define ZG_STREAMS 4    // distant runs of rows in lockstep (avx2-quant-gemv.c, QG_STREAMS)

#define ZG_INLINE GGML_TARGET_AVX512 GGML_KERNEL_INLINE

// the activation row of one segment in the loop's layout
struct zg_act {
    __m512i lo[ZG_SEG/4];          // quad j of group g: elements 0..15 of blocks 16g + 4j + L in lane L
    __m512i hi[ZG_SEG/4];          // elements 16..31
    __m512  d[ZG_SEG/ZG_GROUP];    // activation scales, lane p: block zg_lane_block(p) of the group
    __m512  s[ZG_SEG/ZG_GROUP];    // Q4_1 / Q5_1: the Q8_1 blocks' s = d*sum(q), same lanes
    __m512i o[ZG_SEG/ZG_GROUP];    // the weights' offset times sum(q), same lanes
};

ZG_INLINE size_t zg_xsize(enum zg_kind k) {
    switch (k) {
        case ZG_Q4_0:   return sizeof(block_q4_0);
        case ZG_Q4_1:   return sizeof(block_q4_1);
        case ZG_Q5_0:   return sizeof(block_q5_0);
        case ZG_Q5_1:   return sizeof(block_q5_1);
        case ZG_Q8_0:   return sizeof(block_q8_0);
        case ZG_IQ4_NL: return sizeof(block_iq4_nl);
        case ZG_MXFP4:  return sizeof(block_mxfp4);
    }
    return 0;
}

ZG_INLINE size_t zg_qs_off(enum zg_kind k) {
    switch (k) {
        case ZG_Q4_0:   return offsetof(block_q4_0, qs);
        case ZG_Q4_1:   return offsetof(block_q4_1, qs);
        case ZG_Q5_0:   return offsetof(block_q5_0, qs);
        case ZG_Q5_1:   return offsetof(block_q5_1, qs);
        case ZG_Q8_0:   return offsetof(block_q8_0, qs);
        case ZG_IQ4_NL: return offsetof(block_iq4_nl, qs);
        case ZG_MXFP4:  return offsetof(block_mxfp4, qs);
    }
    return 0;
}

ZG_INLINE size_t zg_qh_off(enum zg_kind k) {
    return k == ZG_Q5_0 ? offsetof(block_q5_0, qh) : offsetof(block_q5_1, qh);
}

// the types with a min (m_w*s_a per block, Q8_1 activations)
ZG_INLINE bool zg_has_min(enum zg_kind k) {
    return k == ZG_Q4_1 || k == ZG_Q5_1;
}

ZG_INLINE size_t zg_ysize(enum zg_kind k) {
    return zg_has_min(k) ? sizeof(block_q8_1) : sizeof(block_q8_0);
}

// what the unsigned weight levels exceed the format's levels by (vnni: the signed formats are
// made unsigned too)
ZG_INLINE int zg_offset(enum zg_kind k, bool vnni) {
    switch (k) {
        case ZG_Q4_0:   return 8;
        case ZG_Q5_0:   return 16;
        case ZG_Q8_0:
        case ZG_IQ4_NL:
        case ZG_MXFP4:  return vnni ? 128 : 0;
        default:        return 0;
    }
}

// the block of a group whose sum lands in lane p of the folded vector
ZG_INLINE int zg_lane_block(int p) {
    return 4*(p & 3) + (p >> 2);
}

ZG_INLINE float zg_h2f(const char * p) {
    ggml_fp16_t h;
    memcpy(&h, p, sizeof(h));
    return _cvtsh_ss(h);
}

ZG_INLINE uint32_t zg_u32(const char * p) {
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

ZG_INLINE __m128i zg_load128(const char * p) {
    return _mm_loadu_si128((const __m128i *)(const void *) p);
}

// ng groups of activation blocks at y (Q8_0, or Q8_1 for Q4_1 / Q5_1; nv of them exist, the
// others are zeros) into act
ZG_INLINE void zg_prepare(enum zg_kind k, bool vnni, const char * y, int ng, int nv, struct zg_act * act) {
    const size_t ysz = zg_ysize(k);
    const size_t qo = zg_has_min(k) ? offsetof(block_q8_1, qs) : offsetof(block_q8_0, qs);
    const int off = zg_offset(k, vnni);
    for (int g = 0; g < ng; g++) {
        float d[ZG_GROUP], sa[ZG_GROUP];
        int32_t o[ZG_GROUP];
        for (int p = 0; p < ZG_GROUP; p++) {
            const int b = g*ZG_GROUP + zg_lane_block(p);
            const char * yb = y + (size_t) b*ysz;
            d[p] = b < nv ? zg_h2f(yb) : 0.0f;
            sa[p] = b < nv && zg_has_min(k) ? zg_h2f(yb + 2) : 0.0f;
            int32_t sum = 0;
            for (int i = 0; i < 32 && b < nv && off != 0; i++) {
                sum += (int8_t) yb[qo + (size_t) i];
            }
            o[p] = off*sum;
        }
        act->d[g] = _mm512_loadu_ps(d);
        act->s[g] = _mm512_loadu_ps(sa);
        act->o[g] = _mm512_loadu_si512((const void *) o);
        for (int j = 0; j < 4; j++) {
            __m128i l[4], h[4];
            for (int L = 0; L < 4; L++) {
                const int b = g*ZG_GROUP + 4*j + L;
                const char * q = y + (size_t) b*ysz + qo;
                l[L] = b < nv ? zg_load128(q) : _mm_setzero_si128();
                h[L] = b < nv ? zg_load128(q + 16) : _mm_setzero_si128();
            }
            act->lo[4*g + j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(l[1], l[0])),
                                                  _mm256_set_m128i(l[3], l[2]), 1);
            act->hi[4*g + j] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(h[1], h[0])),
                                                  _mm256_set_m128i(h[3], h[2]), 1);
        }
    }
}

// 16 bytes at byte off of blocks b0 .. b0 + 3 (xg: the group, xsz apart) into lanes 0..3; blocks
// from nv on are not read (zeros). b0 < nv.
ZG_INLINE __m512i zg_quad_bytes(const char * xg, size_t xsz, int b0, int nv, size_t off) {
    __m512i w = _mm512_broadcast_i32x4(zg_load128(xg + (size_t) b0*xsz + off));
    if (b0 + 1 >= nv) {
        return _mm512_maskz_mov_epi32(0x000F, w);
    }
    w = _mm512_mask_broadcast_i32x4(w, 0x00F0, zg_load128(xg + (size_t) (b0 + 1)*xsz + off));
    if (b0 + 2 >= nv) {
        return _mm512_maskz_mov_epi32(0x00FF, w);
    }
    w = _mm512_mask_broadcast_i32x4(w, 0x0F00, zg_load128(xg + (size_t) (b0 + 2)*xsz + off));
    if (b0 + 3 >= nv) {
        return _mm512_maskz_mov_epi32(0x0FFF, w);
    }
    return _mm512_mask_broadcast_i32x4(w, 0xF000, zg_load128(xg + (size_t) (b0 + 3)*xsz + off));
}

// the Q5 high bits of blocks b0 .. b0 + 3 (those from nv on: 0) as byte masks of the quad
// layout: *klo for elements 0..15 of each block, *khi for 16..31
ZG_INLINE void zg_quad_high(enum zg_kind k, const char * xg, int b0, int nv, __mmask64 * klo, __mmask64 * khi) {
    const size_t xsz = zg_xsize(k);
    uint64_t lo = 0, hi = 0;
    for (int L = 0; L < 4; L++) {
        if (b0 + L < nv) {
            const uint64_t q = zg_u32(xg + (size_t) (b0 + L)*xsz + zg_qh_off(k));
            lo |= (q & 0xFFFFu) << (16*L);
            hi |= (q >> 16) << (16*L);
        }
    }
    *klo = (__mmask64) lo;
    *khi = (__mmask64) hi;
}

// the weight levels of a quad (blocks b0 .. b0 + 3 of the group at xg, b0 < nv) as bytes:
// *lo elements 0..15, *hi 16..31 of each block; unsigned (offset zg_offset) except Q8_0, IQ4_NL
// and MXFP4 without vnni
ZG_INLINE void zg_quad_levels(enum zg_kind k, bool vnni, const char * xg, int b0, int nv, __m512i * lo, __m512i * hi) {
    const size_t xsz = zg_xsize(k), qo = zg_qs_off(k);
    if (k == ZG_Q8_0) {
        *lo = zg_quad_bytes(xg, xsz, b0, nv, qo);
        *hi = zg_quad_bytes(xg, xsz, b0, nv, qo + 16);
        if (vnni) {
            *lo = _mm512_xor_si512(*lo, _mm512_set1_epi8((char) 0x80));
            *hi = _mm512_xor_si512(*hi, _mm512_set1_epi8((char) 0x80));
        }
        return;
    }
    const __m512i w = zg_quad_bytes(xg, xsz, b0, nv, qo);
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    *lo = _mm512_and_si512(w, m4);
    *hi = _mm512_and_si512(_mm512_srli_epi16(w, 4), m4);
    if (k == ZG_Q5_0 || k == ZG_Q5_1) {
        __mmask64 klo, khi;
        zg_quad_high(k, xg, b0, nv, &klo, &khi);
        const __m512i ten = _mm512_set1_epi8(0x10);
        *lo = _mm512_mask_add_epi8(*lo, klo, *lo, ten);
        *hi = _mm512_mask_add_epi8(*hi, khi, *hi, ten);
    } else if (k == ZG_IQ4_NL || k == ZG_MXFP4) {
        // the 16 levels in every lane; with vnni offset by 128 (unsigned)
        const __m128i v = _mm_xor_si128(zg_load128((const char *) (k == ZG_MXFP4 ? ggml_kvalues_mxfp4 : ggml_kvalues_iq4nl)),
                                        _mm_set1_epi8((char) (vnni ? 0x80 : 0)));
        const __m512i t = _mm512_broadcast_i32x4(v);
        *lo = _mm512_shuffle_epi8(t, *lo);
        *hi = _mm512_shuffle_epi8(t, *hi);
    }
}

// 16 int32 lanes of 4 quads (lane L of quad j: 4 partial sums of block 4j + L) folded to one
// vector: lane 4L + j holds block 4j + L's sum
ZG_INLINE __m512i zg_fold32(__m512i a, __m512i b) {
    return _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
}

ZG_INLINE __m512i zg_reduce(__m512i q0, __m512i q1, __m512i q2, __m512i q3) {
    const __m512i a = zg_fold32(q0, q1), c = zg_fold32(q2, q3);
    return _mm512_add_epi32(_mm512_unpacklo_epi64(a, c), _mm512_unpackhi_epi64(a, c));
}

// the dwords at the start of the group's blocks (fp16 d, and m after it for Q4_1 / Q5_1) in the
// lane order of zg_reduce; blocks from nv on: 0
ZG_INLINE __m512i zg_words(const char * xg, size_t xsz, int nv) {
    __m512i r = _mm512_setzero_si512();
    for (int p = 0; p < ZG_GROUP; p++) {
        const int b = zg_lane_block(p);
        if (b < nv) {
            r = _mm512_mask_set1_epi32(r, (__mmask16) (1u << p), (int) zg_u32(xg + (size_t) b*xsz));
        }
    }
    return r;
}

// MXFP4: the E8M0 byte at the start of each dword of w (zg_words) as 2^(e - 128), exactly: the
// byte in the exponent field ((e - 1) << 23), e = 0 and 1 the subnormals 0x00200000 << e
ZG_INLINE __m512 zg_e8m0_half(__m512i w) {
    const __m512i e = _mm512_and_si512(w, _mm512_set1_epi32(0xFF));
    const __m512i normal = _mm512_slli_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(1)), 23);
    const __mmask16 small = _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(2), e);
    const __m512i sub = _mm512_add_epi32(_mm512_set1_epi32(0x00200000), _mm512_slli_epi32(e, 21)); // e = 0, 1
    return _mm512_castsi512_ps(_mm512_mask_mov_epi32(normal, small, sub));
}

#define ZV_VNNI 0
#define ZV_T    GGML_TARGET_AVX512
#define ZV(name) name##_avx512
#include "avx512-quant-gemv-32.h"
#undef ZV_VNNI
#undef ZV_T
#undef ZV

#define ZV_VNNI 1
#define ZV_T    GGML_TARGET_AVX512_VNNI
#define ZV(name) name##_avx512_vnni
#include "avx512-quant-gemv-32.h"
#undef ZV_VNNI
#undef ZV_T
#undef ZV

#else

typedef int ggml_avx512_quant_gemv_unused;

#endif // GGML_CPU_X86
