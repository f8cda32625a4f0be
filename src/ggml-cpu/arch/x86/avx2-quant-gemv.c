// AVX2 decode kernels (the gemv slot of cpu-kernels.h) of Q4_0, Q5_0, Q5_1, IQ4_NL, MXFP4 (Q4_1's and Q8_0's: avx2-quant-gemv-q4_1.c, -q8_0.c): s[r] = dot(weight
// row r, one activation row) for any number of rows, the rows streamed one after the other.
//
// Decode reads every weight byte once, so it should run at memory bandwidth; the register tiles
// did not (about 14 vector operations per 32-element block and row, and 4 interleaved row streams
// that the hardware prefetcher follows poorly). Here, measured on an AVX2 Zen 3 core (design notes
// in docs/cpu-kernels.md, "Quantized decode"):
//   - rows i, i + q, i + 2q, i + 3q (q = nr/4) together, group by group: 4 long contiguous streams
//     (QG_STREAMS below; 4 adjacent interleaved rows streamed at 0.6 of one row), the last rows one
//     at a time with a software prefetch QG_PF bytes ahead;
//   - the activation row is prepared once per call into the layout the loop wants: for the 4-bit
//     types two blocks side by side ([elements 0..15 of both | 16..31 of both]), so that one
//     32-byte weight register holds two blocks' nibbles with a single load + insert and both
//     maddubs read their activations straight from L1; the float scales of 8 blocks in one vector;
//   - 8 blocks' integer sums are reduced to one vector of 8 block sums (hadd), converted and
//     scaled in one step, with the weights' 8 fp16 scales gathered by 32-bit loads and unpacks
//     (a vpgatherdd was slower) and converted by one vcvtph2ps;
//   - the block-sum terms are folded into the prepared activations: Q4_0's -8*sum(a) is an exact
//     int32 per block (the integer sums stay exact, as in vec_dot), Q5_1's min is m_w*s_a with
//     the Q8_1 block's stored s.
// A row's last blocks past its whole groups of 8 are a partial group (zeros in the prepared
// activations where blocks are missing; nothing past the row is read).
// MXFP4 is IQ4_NL with another table (the E2M1 values doubled, ggml_kvalues_mxfp4) and an E8M0
// scale byte instead of the fp16 d: the 8 bytes of a group go into the exponent fields of 8
// floats at half their value, exactly as the format's dequantization (qm_scales).

#include "avx2-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum qg_kind { QG_Q4_0, QG_Q5_0, QG_Q5_1, QG_IQ4_NL, QG_MXFP4 };

#define QG_GROUP 8    // blocks reduced together
#define QG_SEG   256  // blocks of activation prepared at a time (8192 elements); longer rows take segments
#define QG_PF    2048 // software prefetch distance in the weight stream, bytes
// rows taken from this many distant runs of the call's rows, in lockstep by group: one core draws
// more bandwidth from several distant streams than from one (Q8_0 at K = 4096 from memory, 1
// thread, process CPU time: 14.8 GB/s as one prefetched stream, 19.2 as 4; the compute-bound
// types within noise); the last nr % QG_STREAMS rows are one prefetched stream
#define QG_STREAMS 4

#define QG_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// the activation row of one segment in the loop's layout
struct qg_act {
    __m256i lo[QG_SEG/2]; // 4-bit types: elements 0..15 of blocks 2j and 2j+1
    __m256i hi[QG_SEG/2]; // elements 16..31 of the same blocks
    __m256i ulo[QG_SEG/2]; // IQ4_NL, MXFP4: |lo| and |hi| (the signs go onto the table levels)
    __m256i uhi[QG_SEG/2];
    __m256  d[QG_SEG/QG_GROUP];  // activation scales, in the lane order of the reduced sums
    __m256  s[QG_SEG/QG_GROUP];  // Q5_1: the stored s = d*sum(q) of the Q8_1 blocks
    __m256i o[QG_SEG/QG_GROUP];  // Q4_0: 8*sum(q) per block (subtracted from the unsigned sums)
};

QG_INLINE size_t qg_xsize(enum qg_kind k) {
    switch (k) {
        case QG_Q4_0:   return sizeof(block_q4_0);
        case QG_Q5_0:   return sizeof(block_q5_0);
        case QG_Q5_1:   return sizeof(block_q5_1);
        case QG_IQ4_NL: return sizeof(block_iq4_nl);
        case QG_MXFP4:  return sizeof(block_mxfp4);
    }
    return 0;
}

// the types with a min (m_w*s_a per block, Q8_1 activations)
QG_INLINE bool qg_has_min(enum qg_kind k) {
    return k == QG_Q5_1;
}

// the unsigned types' offset (Q4_0: levels - 8, Q5_0: - 16), applied as offset*sum(a) per block
QG_INLINE int qg_offset(enum qg_kind k) {
    return k == QG_Q4_0 ? 8 : k == QG_Q5_0 ? 16 : 0;
}

// offset of the 16 nibble bytes in a weight block, and of the 32 high bits (5-bit types)
QG_INLINE size_t qg_qs_off(enum qg_kind k) {
    switch (k) {
        case QG_Q4_0:   return offsetof(block_q4_0, qs);
        case QG_Q5_0:   return offsetof(block_q5_0, qs);
        case QG_Q5_1:   return offsetof(block_q5_1, qs);
        case QG_IQ4_NL: return offsetof(block_iq4_nl, qs);
        case QG_MXFP4:  return offsetof(block_mxfp4, qs);
    }
    return 0;
}

QG_INLINE size_t qg_qh_off(enum qg_kind k) {
    return k == QG_Q5_0 ? offsetof(block_q5_0, qh) : offsetof(block_q5_1, qh);
}

QG_INLINE size_t qg_ysize(enum qg_kind k) {
    return qg_has_min(k) ? sizeof(block_q8_1) : sizeof(block_q8_0);
}

// the block of a group whose sum lands in lane j of the reduced vector: pairs (2i, 2i+1) are
// reduced with the even blocks in the low lanes
QG_INLINE int qg_lane_block(int j) {
    return j < 4 ? 2*j : 2*(j - 4) + 1;
}

QG_INLINE float qg_h2f(const ggml_fp16_t * h) {
    return _cvtsh_ss(*h);
}

// ng groups of activation blocks (Q8_0, or Q8_1 for Q5_1) into act; only the first nv
// blocks exist (the last group may be partial): the others are zeros, so that whatever a kernel
// puts in their place multiplies to 0
QG_INLINE void qg_prepare(enum qg_kind k, const char * y, int ng, int nv, struct qg_act * act) {
    const size_t ysz = qg_ysize(k);
    for (int g = 0; g < ng; g++) {
        float d[QG_GROUP], sa[QG_GROUP];
        int o[QG_GROUP];
        for (int j = 0; j < QG_GROUP; j++) {
            const int b = g*QG_GROUP + qg_lane_block(j);
            const char * yb = y + (size_t) b*ysz;
            if (b >= nv) {
                d[j] = sa[j] = 0.0f;
                o[j] = 0;
                continue;
            }
            d[j] = qg_h2f((const ggml_fp16_t *)(const void *) yb);
            sa[j] = qg_has_min(k) ? qg_h2f((const ggml_fp16_t *)(const void *) (yb + 2)) : 0.0f;
            int sum = 0;
            if (qg_offset(k) != 0) {
                const int8_t * q = ((const block_q8_0 *)(const void *) yb)->qs;
                for (int i = 0; i < QK8_0; i++) {
                    sum += q[i];
                }
            }
            o[j] = qg_offset(k)*sum;
        }
        act->d[g] = _mm256_loadu_ps(d);
        act->s[g] = _mm256_loadu_ps(sa);
        act->o[g] = _mm256_loadu_si256((const __m256i *)(const void *) o);
    }
    const size_t qo = qg_has_min(k) ? offsetof(block_q8_1, qs) : offsetof(block_q8_0, qs);
    for (int i = 0; i < ng*QG_GROUP/2; i++) {
        const char * a = y + (size_t) (2*i)*ysz + qo;
        const char * b = a + ysz;
        const __m128i z = _mm_setzero_si128();
        const __m128i al = 2*i < nv ? _mm_loadu_si128((const __m128i *)(const void *) a) : z;
        const __m128i ah = 2*i < nv ? _mm_loadu_si128((const __m128i *)(const void *) (a + 16)) : z;
        const __m128i bl = 2*i + 1 < nv ? _mm_loadu_si128((const __m128i *)(const void *) b) : z;
        const __m128i bh = 2*i + 1 < nv ? _mm_loadu_si128((const __m128i *)(const void *) (b + 16)) : z;
        act->lo[i] = _mm256_set_m128i(bl, al);
        act->hi[i] = _mm256_set_m128i(bh, ah);
        if (k == QG_IQ4_NL || k == QG_MXFP4) {
            act->ulo[i] = _mm256_abs_epi8(act->lo[i]);
            act->uhi[i] = _mm256_abs_epi8(act->hi[i]);
        }
    }
}

// the fp16 words at the start of 8 blocks (d, and the m of Q5_1 after it) of the group at xg, in the
// lane order of the reduced sums: *dw the 8 scales, *mw (Q5_1) the 8 mins; blocks from nv on
// are not read (0)
QG_INLINE void qg_scales(enum qg_kind k, const char * xg, int nv, __m256 * dw, __m256 * mw) {
    const size_t xsz = qg_xsize(k);
    __m128i v[QG_GROUP];
    for (int j = 0; j < QG_GROUP; j++) {
        int w = 0;
        if (qg_lane_block(j) < nv) {
            memcpy(&w, xg + (size_t) qg_lane_block(j)*xsz, sizeof(w));
        }
        v[j] = _mm_cvtsi32_si128(w);
    }
    const __m128i lo = _mm_unpacklo_epi64(_mm_unpacklo_epi32(v[0], v[1]), _mm_unpacklo_epi32(v[2], v[3]));
    const __m128i hi = _mm_unpacklo_epi64(_mm_unpacklo_epi32(v[4], v[5]), _mm_unpacklo_epi32(v[6], v[7]));
    if (!qg_has_min(k)) {
        // only the low word of each dword: pack the 8 words into one register
        const __m128i wl = _mm_shuffle_epi8(lo, _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
        const __m128i wh = _mm_shuffle_epi8(hi, _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
        *dw = _mm256_cvtph_ps(_mm_unpacklo_epi64(wl, wh));
        *mw = _mm256_setzero_ps();
        return;
    }
    const __m256i sel = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                         0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    const __m256i p = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), sel), 0xD8);
    *dw = _mm256_cvtph_ps(_mm256_castsi256_si128(p));
    *mw = _mm256_cvtph_ps(_mm256_extracti128_si256(p, 1));
}

// the 8 exact integer block sums of a group of Q4_0 (lane order of qg_lane_block), of which
// the first nv blocks exist (Q5_0, Q5_1 and IQ4_NL: qn_sums)
QG_INLINE __m256i qg_sums_4bit(enum qg_kind k, const char * xg, int nv, const struct qg_act * act, int g) {
    const size_t xsz = qg_xsize(k);
    const size_t qo = qg_qs_off(k);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i p[4];
    for (int j = 0; j < 4; j++) {
        const char * a = xg + (size_t) (2*j)*xsz;
        if (2*j >= nv) {
            p[j] = _mm256_setzero_si256();
            continue;
        }
        const bool two = 2*j + 1 < nv;
        const __m128i wa = _mm_loadu_si128((const __m128i *)(const void *) (a + qo));
        const __m256i w = _mm256_set_m128i(two ? _mm_loadu_si128((const __m128i *)(const void *) (a + xsz + qo)) :
                                                 _mm_setzero_si128(), wa);
        __m256i lo = _mm256_and_si256(w, m4);
        __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), m4);
        // a maddubs lane reaches 2*15*128: the int16 sums below fit
        p[j] = _mm256_add_epi16(_mm256_maddubs_epi16(lo, act->lo[4*g + j]), _mm256_maddubs_epi16(hi, act->hi[4*g + j]));
    }
    const __m256i h = _mm256_hadd_epi16(_mm256_hadd_epi16(p[0], p[1]), _mm256_hadd_epi16(p[2], p[3]));
    return _mm256_madd_epi16(h, ones);
}

QG_INLINE float qg_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// Q5_0, Q5_1 and IQ4_NL have their own group code (qn_*): compute-bound on one core at about 4-5
// cycles per 32 weights, they are short of ALU and shuffle-port slots. On Zen 3 (measured) a
// vphaddw / vphaddd takes 2 cycles, shifts, byte shuffles, unpacks, inserts from registers and
// vcvtph2ps share two ports, blends, logic and adds run on all four, vector loads 2 a cycle. So
// here the 8 block scales come from broadcast loads and word blends (one vcvtph2ps the only
// shuffle), the Q5 high bits of a pair from two broadcast loads and one dword blend, the 8 block
// sums are reduced by unpacks (6 per group) instead of hadds, and the 4 rows of a group go two at
// a time in lockstep, each activation register loaded once for both. Q4_0 keeps the generic code:
// the same changes made it slower there (docs/quantization.md, "Decode kernels of the 32-block
// types, instruction budget").
QG_INLINE bool qn_kind(enum qg_kind k) {
    return k == QG_Q5_0 || k == QG_Q5_1 || k == QG_IQ4_NL || k == QG_MXFP4;
}

// the table-level types: 16 signed int8 levels looked up by the nibbles
QG_INLINE bool qg_table_kind(enum qg_kind k) {
    return k == QG_IQ4_NL || k == QG_MXFP4;
}

// 4 bytes at p, in every dword of an xmm (a load-port broadcast, no shuffle)
QG_INLINE __m128i qn_bcast32(const char * p) {
    return _mm_castps_si128(_mm_broadcast_ss((const float *)(const void *) p));
}

// the 8 fp16 words at byte off of the blocks of a group (blocks from nv on: 0) as floats, in the
// lane order of the reduced sums (blocks 0 2 4 6 1 3 5 7). A word at an even position of the
// result is the low half of a dword loaded at the word, one at an odd position the high half of
// a dword loaded 2 bytes before it: with off = 0 that is inside the block before (odd positions
// hold blocks 2, 6, 3, 7), with off = 2 inside the block itself
QG_INLINE __m256 qn_words(const char * xg, size_t xsz, int nv, size_t off) {
    static const int blk[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };
    __m128i r = _mm_setzero_si128();
    for (int p = 0; p < 8; p++) {
        if (blk[p] >= nv) {
            continue;
        }
        const __m128i v = qn_bcast32(xg + (size_t) blk[p]*xsz + off - (size_t) (p & 1)*2);
        switch (p) {
            case 0: r = _mm_blend_epi16(r, v, 0x01); break;
            case 1: r = _mm_blend_epi16(r, v, 0x02); break;
            case 2: r = _mm_blend_epi16(r, v, 0x04); break;
            case 3: r = _mm_blend_epi16(r, v, 0x08); break;
            case 4: r = _mm_blend_epi16(r, v, 0x10); break;
            case 5: r = _mm_blend_epi16(r, v, 0x20); break;
            case 6: r = _mm_blend_epi16(r, v, 0x40); break;
            default: r = _mm_blend_epi16(r, v, 0x80); break;
        }
    }
    return _mm256_cvtph_ps(r);
}

// the high bits of the block pair (a, a + xsz; the second one only if two) as 0x10 bytes in the
// pair layout: *lo for elements 0..15 of both blocks, *hi for 16..31. A whole pair's two qh words
// come with one 32-byte load at the first (the second's is at byte xsz - 16 of its high lane; the
// load ends inside the second block), the byte shuffles pick each lane's own word
QG_INLINE void qn_high_bits(enum qg_kind k, const char * a, size_t xsz, bool two, __m256i * lo, __m256i * hi) {
    __m256i h, slo, shi;
    if (two) {
        const long long o = (long long) (xsz - 16)*0x0101010101010101ll;
        const long long b1 = 0x0101010101010101ll;
        h = _mm256_loadu_si256((const __m256i *)(const void *) (a + qg_qh_off(k)));
        slo = _mm256_set_epi64x(o + b1, o, b1, 0);
        shi = _mm256_set_epi64x(o + 3*b1, o + 2*b1, 3*b1, 2*b1);
    } else {
        h = _mm256_castps_si256(_mm256_broadcast_ss((const float *)(const void *) (a + qg_qh_off(k))));
        h = _mm256_blend_epi32(h, _mm256_setzero_si256(), 0xF0);
        slo = _mm256_set_epi64x(0x0101010101010101ll, 0, 0x0101010101010101ll, 0);
        shi = _mm256_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll, 0x0303030303030303ll,
                                0x0202020202020202ll);
    }
    const __m256i bit = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    const __m256i ten = _mm256_set1_epi8(0x10);
    const __m256i bl = _mm256_and_si256(_mm256_shuffle_epi8(h, slo), bit);
    const __m256i bh = _mm256_and_si256(_mm256_shuffle_epi8(h, shi), bit);
    *lo = _mm256_and_si256(_mm256_cmpeq_epi8(bl, bit), ten);
    *hi = _mm256_and_si256(_mm256_cmpeq_epi8(bh, bit), ten);
}

// 8 block sums from the 4 pair vectors of a group (q[j]: 4 int32 partial sums of block 2j in the
// low 128 bits, of block 2j + 1 in the high): blocks 0 2 4 6 in the low half, 1 3 5 7 in the high
QG_INLINE __m256i qn_fold32(__m256i q0, __m256i q1) {
    return _mm256_add_epi32(_mm256_unpacklo_epi32(q0, q1), _mm256_unpackhi_epi32(q0, q1));
}

QG_INLINE __m256i qn_fold64(__m256i a, __m256i c) {
    return _mm256_add_epi32(_mm256_unpacklo_epi64(a, c), _mm256_unpackhi_epi64(a, c));
}

QG_INLINE __m256i qn_reduce(__m256i q0, __m256i q1, __m256i q2, __m256i q3) {
    return qn_fold64(qn_fold32(q0, q1), qn_fold32(q2, q3));
}

// the 4 int32 partial sums of each block of the pair at a (block a + xsz only if two) against the
// prepared activation pair i: block a's in the low 128 bits, the other's in the high
QG_INLINE __m256i qn_pair(enum qg_kind k, const char * a, bool two, const struct qg_act * act, int i) {
    const __m256i alo = act->lo[i], ahi = act->hi[i];
    const size_t xsz = qg_xsize(k);
    const size_t qo = qg_qs_off(k);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i ones = _mm256_set1_epi16(1);
    const __m128i wa = _mm_loadu_si128((const __m128i *)(const void *) (a + qo));
    const __m256i w = _mm256_set_m128i(two ? _mm_loadu_si128((const __m128i *)(const void *) (a + xsz + qo)) :
                                             _mm_setzero_si128(), wa);
    __m256i lo = _mm256_and_si256(w, m4);
    __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), m4);
    if (qg_table_kind(k)) {
        // signed levels: |a| (prepared once for all rows) times v with a's sign, one sign per 32
        // levels instead of abs + sign; |a| <= 128 as unsigned and |v| <= 127, so a lane reaches
        // 2*128*127 (no saturation) and the halves are widened to int32 before they are added
        const __m128i v128 = _mm_loadu_si128((const __m128i *)(const void *)
                                             (k == QG_MXFP4 ? ggml_kvalues_mxfp4 : ggml_kvalues_iq4nl));
        const __m256i iq4 = _mm256_set_m128i(v128, v128);
        const __m256i vl = _mm256_shuffle_epi8(iq4, lo), vh = _mm256_shuffle_epi8(iq4, hi);
        const __m256i pl = _mm256_maddubs_epi16(act->ulo[i], _mm256_sign_epi8(vl, alo));
        const __m256i ph = _mm256_maddubs_epi16(act->uhi[i], _mm256_sign_epi8(vh, ahi));
        return _mm256_add_epi32(_mm256_madd_epi16(pl, ones), _mm256_madd_epi16(ph, ones));
    }
    if (k == QG_Q5_0 || k == QG_Q5_1) {
        __m256i bl, bh;
        qn_high_bits(k, a, xsz, two, &bl, &bh);
        lo = _mm256_or_si256(lo, bl);
        hi = _mm256_or_si256(hi, bh);
    }
    // a maddubs lane reaches 2*31*127 (5-bit): the int16 sum of the halves fits
    return _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(lo, alo), _mm256_maddubs_epi16(hi, ahi)), ones);
}

// the 8 exact integer block sums of a group of a nibble type (of which the first nv blocks exist)
QG_INLINE __m256i qn_sums(enum qg_kind k, const char * xg, int nv, const struct qg_act * act, int g) {
    const size_t xsz = qg_xsize(k);
    __m256i q[4];
    for (int j = 0; j < 4; j++) {
        q[j] = 2*j < nv ? qn_pair(k, xg + (size_t) (2*j)*xsz, 2*j + 1 < nv, act, 4*g + j) :
                          _mm256_setzero_si256();
    }
    return qn_reduce(q[0], q[1], q[2], q[3]);
}

// MXFP4: the E8M0 bytes of the group's blocks (the first byte of each; from nv on: 0) as floats
// at half their value, 2^(e - 128), in the lane order of the reduced sums: one dword broadcast per
// block blended into its lane, the byte placed in the exponent field ((e - 1) << 23; e = 0 and 1
// are the subnormals 0x00200000 << e)
QG_INLINE __m256 qm_scales(const char * xg, int nv) {
    __m256i r = _mm256_setzero_si256();
    for (int p = 0; p < QG_GROUP; p++) {
        if (qg_lane_block(p) >= nv) {
            continue;
        }
        const __m256i v = _mm256_castps_si256(_mm256_broadcast_ss((const float *)(const void *)
                                              (xg + (size_t) qg_lane_block(p)*sizeof(block_mxfp4))));
        switch (p) {
            case 0: r = _mm256_blend_epi32(r, v, 0x01); break;
            case 1: r = _mm256_blend_epi32(r, v, 0x02); break;
            case 2: r = _mm256_blend_epi32(r, v, 0x04); break;
            case 3: r = _mm256_blend_epi32(r, v, 0x08); break;
            case 4: r = _mm256_blend_epi32(r, v, 0x10); break;
            case 5: r = _mm256_blend_epi32(r, v, 0x20); break;
            case 6: r = _mm256_blend_epi32(r, v, 0x40); break;
            default: r = _mm256_blend_epi32(r, v, 0x80); break;
        }
    }
    const __m256i e = _mm256_and_si256(r, _mm256_set1_epi32(0xFF));
    const __m256i normal = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(1)), 23);
    const __m256i sub = _mm256_sllv_epi32(_mm256_set1_epi32(0x00200000), e);
    const __m256i small = _mm256_cmpgt_epi32(_mm256_set1_epi32(2), e);
    return _mm256_castsi256_ps(_mm256_blendv_epi8(normal, sub, small));
}

// the 8 weight scales of a group (nv blocks of it exist) as floats, lane order of the sums
QG_INLINE __m256 qn_scales(enum qg_kind k, const char * xg, int nv) {
    return k == QG_MXFP4 ? qm_scales(xg, nv) : qn_words(xg, qg_xsize(k), nv, 0);
}

// one group of a nibble type's row data at xg (nv blocks of it exist) into acc
QG_INLINE __m256 qn_group(enum qg_kind k, const char * xg, int nv, const struct qg_act * act, int g, __m256 acc) {
    const size_t xsz = qg_xsize(k);
    const __m256 dd = _mm256_mul_ps(qn_scales(k, xg, nv), act->d[g]);
    __m256i is = qn_sums(k, xg, nv, act, g);
    if (qg_offset(k) != 0) {
        is = _mm256_sub_epi32(is, act->o[g]);
    }
    acc = _mm256_fmadd_ps(dd, _mm256_cvtepi32_ps(is), acc);
    if (qg_has_min(k)) {
        acc = _mm256_fmadd_ps(qn_words(xg, xsz, nv, 2), act->s[g], acc);
    }
    return acc;
}

// a whole group of 4 rows (xg[t]) into acc[t], two rows at a time and stage by stage over the
// two (their dependency chains side by side in the instruction stream, so that the out-of-order
// window holds both), each activation register loaded once for the two rows. The two halves are
// unrolled: as a loop (GCC 12) they kept acc[] in memory and reloaded the activations from stack
// copies; unrolled, about as many instructions (Q5_0 14.8 -> 14.2 per 32 weights) but 10 - 15%
// faster with the rows in L2 (docs/quantization.md, wave 7)
QG_INLINE void qn_group4(enum qg_kind k, const char * const xg[QG_STREAMS], const struct qg_act * act, int g,
        __m256 acc[QG_STREAMS]) {
    const size_t xsz = qg_xsize(k);
#pragma GCC unroll 2
    for (int t = 0; t < QG_STREAMS; t += 2) {
        const char * x0 = xg[t], * x1 = xg[t + 1];
        __m256i a0, a1, c0, c1;
        {
            const __m256i p0 = qn_pair(k, x0, true, act, 4*g), p1 = qn_pair(k, x1, true, act, 4*g);
            a0 = qn_fold32(p0, qn_pair(k, x0 + 2*xsz, true, act, 4*g + 1));
            a1 = qn_fold32(p1, qn_pair(k, x1 + 2*xsz, true, act, 4*g + 1));
        }
        {
            const __m256i p0 = qn_pair(k, x0 + 4*xsz, true, act, 4*g + 2), p1 = qn_pair(k, x1 + 4*xsz, true, act, 4*g + 2);
            c0 = qn_fold32(p0, qn_pair(k, x0 + 6*xsz, true, act, 4*g + 3));
            c1 = qn_fold32(p1, qn_pair(k, x1 + 6*xsz, true, act, 4*g + 3));
        }
        __m256i is0 = qn_fold64(a0, c0), is1 = qn_fold64(a1, c1);
        if (qg_offset(k) != 0) {
            is0 = _mm256_sub_epi32(is0, act->o[g]);
            is1 = _mm256_sub_epi32(is1, act->o[g]);
        }
        const __m256 ad = act->d[g];
        acc[t] = _mm256_fmadd_ps(_mm256_mul_ps(qn_scales(k, x0, QG_GROUP), ad), _mm256_cvtepi32_ps(is0), acc[t]);
        acc[t + 1] = _mm256_fmadd_ps(_mm256_mul_ps(qn_scales(k, x1, QG_GROUP), ad), _mm256_cvtepi32_ps(is1),
                                     acc[t + 1]);
        if (qg_has_min(k)) {
            acc[t] = _mm256_fmadd_ps(qn_words(x0, xsz, QG_GROUP, 2), act->s[g], acc[t]);
            acc[t + 1] = _mm256_fmadd_ps(qn_words(x1, xsz, QG_GROUP, 2), act->s[g], acc[t + 1]);
        }
    }
}

// one group of row data at xg (nv blocks of it exist) into acc
QG_INLINE __m256 qg_group(enum qg_kind k, const char * xg, int nv, const struct qg_act * act, int g, __m256 acc) {
    if (qn_kind(k)) {
        return qn_group(k, xg, nv, act, g, acc);
    }
    __m256 dw, mw;
    qg_scales(k, xg, nv, &dw, &mw);
    const __m256 dd = _mm256_mul_ps(dw, act->d[g]);
    if (qg_offset(k) != 0) {
        const __m256i is = _mm256_sub_epi32(qg_sums_4bit(k, xg, nv, act, g), act->o[g]);
        return _mm256_fmadd_ps(dd, _mm256_cvtepi32_ps(is), acc);
    }
    acc = _mm256_fmadd_ps(dd, _mm256_cvtepi32_ps(qg_sums_4bit(k, xg, nv, act, g)), acc);
    if (qg_has_min(k)) {
        acc = _mm256_fmadd_ps(mw, act->s[g], acc);
    }
    return acc;
}

QG_INLINE void qg_gemv(enum qg_kind k, int n, float * s, const char * x, size_t bx, const char * y, int nr) {
    const size_t xsz = qg_xsize(k), ysz = qg_ysize(k);
    const int nb = n/QK8_0;
    const int ngs = (nb + QG_GROUP - 1)/QG_GROUP; // groups, the last one possibly partial
    struct qg_act act;
    for (int r = 0; r < nr; r++) {
        s[r] = 0.0f;
    }
    for (int g0 = 0; g0 < ngs; g0 += QG_SEG/QG_GROUP) {
        const int gn = ngs - g0 < QG_SEG/QG_GROUP ? ngs - g0 : QG_SEG/QG_GROUP;
        const int nv = nb - g0*QG_GROUP < gn*QG_GROUP ? nb - g0*QG_GROUP : gn*QG_GROUP; // blocks in the segment
        const int gfull = nv/QG_GROUP, rest = nv % QG_GROUP;
        const char * ys = y + (size_t) g0*QG_GROUP*ysz;
        qg_prepare(k, ys, gn, nv, &act);
        const int q = nr/QG_STREAMS;
        for (int i = 0; i < q; i++) {
            const char * xr[QG_STREAMS];
            __m256 acc[QG_STREAMS];
            for (int t = 0; t < QG_STREAMS; t++) {
                xr[t] = x + (size_t) (i + t*q)*bx + (size_t) g0*QG_GROUP*xsz;
                acc[t] = _mm256_setzero_ps();
            }
            for (int g = 0; g < gfull && qn_kind(k); g++) {
                const char * xg[QG_STREAMS];
                for (int t = 0; t < QG_STREAMS; t++) {
                    xg[t] = xr[t] + (size_t) g*QG_GROUP*xsz;
                }
                qn_group4(k, xg, &act, g, acc);
            }
            for (int g = 0; g < gfull && !qn_kind(k); g++) {
                for (int t = 0; t < QG_STREAMS; t++) {
                    const char * xg = xr[t] + (size_t) g*QG_GROUP*xsz;
                    acc[t] = qg_group(k, xg, QG_GROUP, &act, g, acc[t]);
                }
            }
            for (int t = 0; t < QG_STREAMS; t++) {
                if (rest > 0) {
                    acc[t] = qg_group(k, xr[t] + (size_t) gfull*QG_GROUP*xsz, rest, &act, gfull, acc[t]);
                }
                s[i + t*q] += qg_hsum(acc[t]);
            }
        }
        for (int r = QG_STREAMS*q; r < nr; r++) {
            const char * xr = x + (size_t) r*bx + (size_t) g0*QG_GROUP*xsz;
            __m256 acc = _mm256_setzero_ps();
            for (int g = 0; g < gfull; g++) {
                const char * xg = xr + (size_t) g*QG_GROUP*xsz;
                // the rows of a call follow each other in memory (bx is a row): one stream
                for (size_t o = 0; o < QG_GROUP*xsz; o += 64) {
                    _mm_prefetch(xg + QG_PF + o, _MM_HINT_T0);
                }
                acc = qg_group(k, xg, QG_GROUP, &act, g, acc);
            }
            if (rest > 0) {
                // the row's last blocks: a partial group (nothing past them is read)
                acc = qg_group(k, xr + (size_t) gfull*QG_GROUP*xsz, rest, &act, gfull, acc);
            }
            s[r] += qg_hsum(acc);
        }
    }
}

#define QG_DEFINE(name, kind) \
    GGML_TARGET_AVX2 void ggml_cpu_q_gemv_##name##_avx2(int n, float * s, const void * x, size_t bx, const void * y, \
            int nr) { \
        qg_gemv(kind, n, s, x, bx, y, nr); \
    }

QG_DEFINE(q4_0, QG_Q4_0)
QG_DEFINE(q5_0, QG_Q5_0)
QG_DEFINE(q5_1, QG_Q5_1)
QG_DEFINE(iq4_nl, QG_IQ4_NL)
QG_DEFINE(mxfp4, QG_MXFP4)

#else

typedef int ggml_avx2_quant_gemv_unused;

#endif // GGML_CPU_X86
