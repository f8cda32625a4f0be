// AVX2 quantized tiles of the 32-element formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, MXFP4): up to
// GGML_CPU_QTILE_ROWS weight rows by GGML_CPU_QTILE_COLS activation columns per call (the tile
// slot of cpu-kernels.h). Each weight block is unpacked to int8 once per call and dotted with
// every column's activation block, and each activation block is loaded once for all rows, so the
// unpacking is shared across columns (prompt) and the loads of several rows overlap (decode).
//
// The arithmetic per block pair: maddubs of |w| with sign(w)*a for the signed levels (Q8_0,
// IQ4_NL); of the unsigned levels u with a for the others, Q4_0 / Q5_0 subtracting
// maddubs(offset, a) (u - 8 or u - 16: the same int16 sums, two sign operations fewer); madd to
// int32, scaled in float by d_w*d_a; the min of Q4_1/Q5_1 adds m_w*s_a, spread over the 8 lanes
// (an exact /8). The integer sums equal the vec_dot kernels' (avx2-quant.c). MXFP4 is IQ4_NL with
// the E2M1 table (ggml_kvalues_mxfp4, the values doubled) and the E8M0 scale at half its value.
// The register tiles are 4 rows x 1 column (decode), 4 rows x 8 columns (prompt: the four rows
// share each register, see "The prompt tile of 4 rows" below) and 1 row x 8 columns (prompt
// edges of fewer than 4 rows); other shapes are split into those and smaller ones.

#include "avx2-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"
#include "ggml-cpu/arch/quant-fp4-scales.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

enum qt_kind { QT_Q4_0, QT_Q4_1, QT_Q5_0, QT_Q5_1, QT_Q8_0, QT_IQ4_NL, QT_MXFP4 };

#define QT_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

QT_INLINE float qt_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

QT_INLINE bool qt_has_min(enum qt_kind k) {
    return k == QT_Q4_1 || k == QT_Q5_1;
}

QT_INLINE size_t qt_xsize(enum qt_kind k) {
    switch (k) {
        case QT_Q4_0:   return sizeof(block_q4_0);
        case QT_Q4_1:   return sizeof(block_q4_1);
        case QT_Q5_0:   return sizeof(block_q5_0);
        case QT_Q5_1:   return sizeof(block_q5_1);
        case QT_Q8_0:   return sizeof(block_q8_0);
        case QT_IQ4_NL: return sizeof(block_iq4_nl);
        case QT_MXFP4:  return sizeof(block_mxfp4);
    }
    return 0;
}

// 16 packed bytes to 32 nibbles: element j < 16 is the low nibble of byte j, j >= 16 the high one
QT_INLINE __m256i qt_nibbles(const uint8_t * qs) {
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *) qs);
    const __m256i w = _mm256_set_m128i(_mm_srli_epi16(b, 4), b);
    return _mm256_and_si256(w, _mm256_set1_epi8(0x0F));
}

// the 32 bits of qh as 32 bytes: 0x10 where bit j is set, 0 elsewhere
QT_INLINE __m256i qt_high_bits(const uint8_t * qh4) {
    uint32_t qh;
    memcpy(&qh, qh4, sizeof(qh));
    const __m256i rep = _mm256_shuffle_epi8(_mm256_set1_epi32((int) qh),
        _mm256_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll, 0x0101010101010101ll, 0));
    const __m256i bit = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(rep, bit), bit);
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

// an fp16 scale broadcast to 8 floats (a word broadcast and one conversion)
QT_INLINE __m256 qt_scale(const ggml_fp16_t * h) {
    return _mm256_cvtph_ps(_mm_set1_epi16((short) *h));
}

// the constant that Q4_0 / Q5_0 subtract from their unsigned levels (0: the type has none)
QT_INLINE int qt_offset(enum qt_kind k) {
    return k == QT_Q4_0 ? 8 : k == QT_Q5_0 ? 16 : 0;
}

// the 16 int8 levels of the table formats (IQ4_NL, MXFP4) in both lanes
QT_INLINE __m256i qt_table(enum qt_kind k) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *) (k == QT_MXFP4 ? ggml_kvalues_mxfp4 : ggml_kvalues_iq4nl));
    return _mm256_set_m128i(v, v);
}

// one weight block: its 32 levels and scale (and min). Q4_0 / Q5_0 give their unsigned levels
// (the offset is applied through the activations, see qt_body); Q8_0 / IQ4_NL / MXFP4 signed ones
// (iq4_vals: qt_table).
QT_INLINE __m256i qt_unpack(enum qt_kind k, const void * blk, __m256i iq4_vals, __m256 * d, __m256 * m) {
    switch (k) {
        case QT_Q4_0: {
            const block_q4_0 * b = blk;
            *d = qt_scale(&b->d);
            return qt_nibbles(b->qs);
        }
        case QT_Q4_1: {
            const block_q4_1 * b = blk;
            *d = qt_scale(&b->d);
            *m = _mm256_mul_ps(qt_scale(&b->m), _mm256_set1_ps(0.125f));
            return qt_nibbles(b->qs);
        }
        case QT_Q5_0: {
            const block_q5_0 * b = blk;
            *d = qt_scale(&b->d);
            return _mm256_or_si256(qt_nibbles(b->qs), qt_high_bits(b->qh));
        }
        case QT_Q5_1: {
            const block_q5_1 * b = blk;
            *d = qt_scale(&b->d);
            *m = _mm256_mul_ps(qt_scale(&b->m), _mm256_set1_ps(0.125f));
            return _mm256_or_si256(qt_nibbles(b->qs), qt_high_bits(b->qh));
        }
        case QT_Q8_0: {
            const block_q8_0 * b = blk;
            *d = qt_scale(&b->d);
            return _mm256_loadu_si256((const __m256i *)(const void *) b->qs);
        }
        case QT_IQ4_NL: {
            const block_iq4_nl * b = blk;
            *d = qt_scale(&b->d);
            return _mm256_shuffle_epi8(iq4_vals, qt_nibbles(b->qs));
        }
        case QT_MXFP4: {
            const block_mxfp4 * b = blk;
            *d = _mm256_set1_ps(ggml_cpu_e8m0_half(b->e));
            return _mm256_shuffle_epi8(iq4_vals, qt_nibbles(b->qs));
        }
    }
    return _mm256_setzero_si256();
}

// one activation block of column c: levels, scale, the block sum term of Q8_1 (s/1, spread as the
// weights' min is), and for the offset types the int16 pair sums of offset*a
struct qt_col {
    __m256i a, off;
    __m256  d, s;
};

QT_INLINE void qt_col_load(enum qt_kind k, const char * yb, struct qt_col * col) {
    col->off = _mm256_setzero_si256();
    col->s = _mm256_setzero_ps();
    if (qt_has_min(k)) {
        const block_q8_1 * b = (const block_q8_1 *)(const void *) yb;
        col->a = _mm256_loadu_si256((const __m256i *)(const void *) b->qs);
        col->d = qt_scale(&b->d);
        col->s = qt_scale(&b->s);
    } else {
        const block_q8_0 * b = (const block_q8_0 *)(const void *) yb;
        col->a = _mm256_loadu_si256((const __m256i *)(const void *) b->qs);
        col->d = qt_scale(&b->d);
    }
    if (qt_offset(k) != 0) {
        col->off = _mm256_maddubs_epi16(_mm256_set1_epi8((char) qt_offset(k)), col->a);
    }
}

// acc += the product of one weight block (w, dx, mx) with one activation block
QT_INLINE __m256 qt_pair(enum qt_kind k, __m256i w, __m256 dx, __m256 mx, const struct qt_col * col, __m256 acc) {
    __m256i p16;
    if (qt_offset(k) != 0 || qt_has_min(k)) {
        p16 = _mm256_maddubs_epi16(w, col->a); // unsigned levels: at most 2*31*127 per pair
        if (qt_offset(k) != 0) {
            p16 = _mm256_sub_epi16(p16, col->off);
        }
    } else {
        p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(col->a, w));
    }
    const __m256 p = _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, _mm256_set1_epi16(1)));
    acc = _mm256_fmadd_ps(_mm256_mul_ps(dx, col->d), p, acc);
    if (qt_has_min(k)) {
        acc = _mm256_fmadd_ps(mx, col->s, acc);
    }
    return acc;
}

// R rows x C columns over nb blocks: s[c*bs + r] = dot(row r of x, column c of y). Rows are
// processed one after the other within a block so that few registers are live: with one column
// its block is loaded once for all rows; with several, each row reloads them from L1.
QT_INLINE void qt_body(enum qt_kind k, int R, int C, int nb, float * s, size_t bs, const char * x, size_t bx,
        const char * y, size_t by) {
    const size_t xsz = qt_xsize(k);
    const size_t ysz = qt_has_min(k) ? sizeof(block_q8_1) : sizeof(block_q8_0);
    const __m256i iq4_vals = qt_table(k);
    __m256 acc[4][8];
    for (int r = 0; r < R; r++) {
        for (int c = 0; c < C; c++) {
            acc[r][c] = _mm256_setzero_ps();
        }
    }
    for (int i = 0; i < nb; i++) {
        struct qt_col col0;
        if (C == 1) {
            qt_col_load(k, y + (size_t) i*ysz, &col0);
        }
        for (int r = 0; r < R; r++) {
            if (C == 1 && R > 1) {
                // the rows are R short interleaved streams, which the hardware prefetcher follows
                // poorly: fetch the same block of the next R rows (the next call's)
                _mm_prefetch(x + (size_t) (r + R)*bx + (size_t) i*xsz, _MM_HINT_T0);
            }
            __m256 dx, mx = _mm256_setzero_ps();
            const __m256i w = qt_unpack(k, x + (size_t) r*bx + (size_t) i*xsz, iq4_vals, &dx, &mx);
            for (int c = 0; c < C; c++) {
                struct qt_col col;
                if (C == 1) {
                    col = col0;
                } else {
                    qt_col_load(k, y + (size_t) c*by + (size_t) i*ysz, &col);
                }
                acc[r][c] = qt_pair(k, w, dx, mx, &col, acc[r][c]);
            }
        }
    }
    for (int r = 0; r < R; r++) {
        for (int c = 0; c < C; c++) {
            s[(size_t) c*bs + (size_t) r] = qt_hsum(acc[r][c]);
        }
    }
}

//
// The prompt tile of 4 rows: the four rows' levels of a block share each register, 8 bytes per
// row (lanes 2r and 2r+1 after madd hold row r), and the column's 8 matching activation bytes are
// broadcast to all four rows. Per block and column that is 4 maddubs, one madd (4 for Q8_0 and
// IQ4_NL, whose int16 pair sums cannot be added), one conversion and one or two FMAs for four
// rows, instead of the same sequence per row, and no horizontal sums until the end.
//   Q4_1 / Q5_1: unsigned levels, 4 maddubs summed in int16 (at most 4*2*31*128 = 31744).
//   Q4_0 / Q5_0: the signed levels u - 8 / u - 16 as |w| times a with w's sign (<= 4*2*16*128).
//   Q8_0 / IQ4_NL: the same signed product, each group widened to int32 on its own.
//   MXFP4: the signed product summed in int16 as Q4_0's (levels within +-12: <= 4*2*12*128).
// Register g of a row holds the elements qt4_elem[g]..+7 of the block: for the nibble formats the
// low and high nibbles of the packed bytes 0..7 and 8..15, for Q8_0 the bytes in order.
//

QT_INLINE int qt4_elem(enum qt_kind k, int g) {
    static const int nib[4] = { 0, 16, 8, 24 };
    return k == QT_Q8_0 ? 8*g : nib[g];
}

QT_INLINE __m128i qt4_load128(const char * p) {
    return _mm_loadu_si128((const __m128i *)(const void *) p);
}

// the fifth bits of the four rows' block (qh at offset qh_off): bit j of qh is element j's, so
// byte b of qh serves register {0, 2, 1, 3}[b]; 0x10 where set
QT_INLINE void qt4_high_bits(const char * x, size_t bx, size_t qh_off, __m256i w[4]) {
    uint32_t qh[4];
    for (int r = 0; r < 4; r++) {
        memcpy(&qh[r], x + (size_t) r*bx + qh_off, sizeof(uint32_t));
    }
    const __m256i h = _mm256_set_epi64x((long long) qh[3], (long long) qh[2], (long long) qh[1], (long long) qh[0]);
    const __m256i bit = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    static const int reg_of_byte[4] = { 0, 2, 1, 3 };
    for (int b = 0; b < 4; b++) {
        const long long lo = (long long) (0x0101010101010101ull*(unsigned) b);
        const long long hi = (long long) (0x0101010101010101ull*(unsigned) (b + 8));
        const __m256i rep = _mm256_shuffle_epi8(h, _mm256_set_epi64x(hi, lo, hi, lo));
        const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(rep, bit), bit);
        w[reg_of_byte[b]] = _mm256_or_si256(w[reg_of_byte[b]], _mm256_and_si256(set, _mm256_set1_epi8(0x10)));
    }
}

// the four rows' block: levels in the 4 registers described above (unsigned for Q4_1 / Q5_1,
// signed otherwise), scales [d0 d0 d1 d1 ...] and, for Q4_1 / Q5_1, mins [m0 m0 m1 m1 ...]/2
// (each row's min term is split over its two lanes)
QT_INLINE void qt4_unpack(enum qt_kind k, const char * x, size_t bx, __m256i iq4_vals, __m256i w[4], __m256 * dw,
        __m256 * mw) {
    if (k == QT_MXFP4) {
        const float d0 = ggml_cpu_e8m0_half((uint8_t) x[0]), d1 = ggml_cpu_e8m0_half((uint8_t) x[bx]);
        const float d2 = ggml_cpu_e8m0_half((uint8_t) x[2*bx]), d3 = ggml_cpu_e8m0_half((uint8_t) x[3*bx]);
        *dw = _mm256_setr_ps(d0, d0, d1, d1, d2, d2, d3, d3);
        *mw = _mm256_setzero_ps();
    }
    if (k != QT_MXFP4) {
        uint32_t dm[4];
        for (int r = 0; r < 4; r++) {
            // every other block starts with d (fp16); Q4_1 / Q5_1 follow it with m
            uint16_t d;
            memcpy(&d, x + (size_t) r*bx, sizeof(d));
            dm[r] = (uint32_t) d | (uint32_t) d << 16;
            if (qt_has_min(k)) {
                memcpy(&dm[r], x + (size_t) r*bx, sizeof(uint32_t));
            }
        }
        const __m256 f = _mm256_cvtph_ps(_mm_set_epi32((int) dm[3], (int) dm[2], (int) dm[1], (int) dm[0]));
        *dw = _mm256_moveldup_ps(f);
        *mw = _mm256_mul_ps(_mm256_movehdup_ps(f), _mm256_set1_ps(0.5f));
    }
    if (k == QT_Q8_0) {
        const __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *) (x + 0*bx + offsetof(block_q8_0, qs)));
        const __m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *) (x + 1*bx + offsetof(block_q8_0, qs)));
        const __m256i r2 = _mm256_loadu_si256((const __m256i *)(const void *) (x + 2*bx + offsetof(block_q8_0, qs)));
        const __m256i r3 = _mm256_loadu_si256((const __m256i *)(const void *) (x + 3*bx + offsetof(block_q8_0, qs)));
        const __m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
        const __m256i t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
        w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
        w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
        w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
        w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
        return;
    }
    size_t qs_off = 0;
    switch (k) {
        case QT_Q4_0:   qs_off = offsetof(block_q4_0, qs); break;
        case QT_Q4_1:   qs_off = offsetof(block_q4_1, qs); break;
        case QT_Q5_0:   qs_off = offsetof(block_q5_0, qs); break;
        case QT_Q5_1:   qs_off = offsetof(block_q5_1, qs); break;
        case QT_IQ4_NL: qs_off = offsetof(block_iq4_nl, qs); break;
        case QT_MXFP4:  qs_off = offsetof(block_mxfp4, qs); break;
        case QT_Q8_0:   break;
    }
    const __m128i q0 = qt4_load128(x + 0*bx + qs_off), q1 = qt4_load128(x + 1*bx + qs_off);
    const __m128i q2 = qt4_load128(x + 2*bx + qs_off), q3 = qt4_load128(x + 3*bx + qs_off);
    const __m256i g0 = _mm256_set_m128i(_mm_unpacklo_epi64(q2, q3), _mm_unpacklo_epi64(q0, q1));
    const __m256i g1 = _mm256_set_m128i(_mm_unpackhi_epi64(q2, q3), _mm_unpackhi_epi64(q0, q1));
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    w[0] = _mm256_and_si256(g0, m4);
    w[1] = _mm256_and_si256(_mm256_srli_epi16(g0, 4), m4);
    w[2] = _mm256_and_si256(g1, m4);
    w[3] = _mm256_and_si256(_mm256_srli_epi16(g1, 4), m4);
    if (k == QT_Q5_0) {
        qt4_high_bits(x, bx, offsetof(block_q5_0, qh), w);
    } else if (k == QT_Q5_1) {
        qt4_high_bits(x, bx, offsetof(block_q5_1, qh), w);
    }
    for (int g = 0; g < 4; g++) {
        if (k == QT_IQ4_NL || k == QT_MXFP4) {
            w[g] = _mm256_shuffle_epi8(iq4_vals, w[g]);
        } else if (qt_offset(k) != 0) {
            w[g] = _mm256_sub_epi8(w[g], _mm256_set1_epi8((char) qt_offset(k)));
        }
    }
}

// 4 rows x C columns (C <= 8) over nb blocks, s[c*bs + r]
QT_INLINE void qt4_body(enum qt_kind k, int C, int nb, float * s, size_t bs, const char * x, size_t bx,
        const char * y, size_t by) {
    const size_t xsz = qt_xsize(k);
    const bool   q81 = qt_has_min(k);
    const size_t ysz = q81 ? sizeof(block_q8_1) : sizeof(block_q8_0);
    const size_t yqs = q81 ? offsetof(block_q8_1, qs) : offsetof(block_q8_0, qs);
    const __m256i iq4_vals = qt_table(k);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[8];
    for (int c = 0; c < C; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        __m256i w[4], wabs[4];
        __m256 dw, mw;
        qt4_unpack(k, x + (size_t) i*xsz, bx, iq4_vals, w, &dw, &mw);
        if (!q81) {
            for (int g = 0; g < 4; g++) {
                wabs[g] = _mm256_sign_epi8(w[g], w[g]);
            }
        }
        for (int c = 0; c < C; c++) {
            const char * yb = y + (size_t) c*by + (size_t) i*ysz;
            __m256i a[4];
            for (int g = 0; g < 4; g++) {
                int64_t a8;
                memcpy(&a8, yb + yqs + qt4_elem(k, g), sizeof(a8));
                a[g] = _mm256_set1_epi64x(a8);
            }
            __m256i p32;
            if (q81) {
                __m256i p16 = _mm256_maddubs_epi16(w[0], a[0]);
                for (int g = 1; g < 4; g++) {
                    p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(w[g], a[g]));
                }
                p32 = _mm256_madd_epi16(p16, ones);
            } else if (k == QT_Q4_0 || k == QT_Q5_0 || k == QT_MXFP4) {
                __m256i p16 = _mm256_maddubs_epi16(wabs[0], _mm256_sign_epi8(a[0], w[0]));
                for (int g = 1; g < 4; g++) {
                    p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(wabs[g], _mm256_sign_epi8(a[g], w[g])));
                }
                p32 = _mm256_madd_epi16(p16, ones);
            } else {
                p32 = _mm256_madd_epi16(_mm256_maddubs_epi16(wabs[0], _mm256_sign_epi8(a[0], w[0])), ones);
                for (int g = 1; g < 4; g++) {
                    p32 = _mm256_add_epi32(p32,
                        _mm256_madd_epi16(_mm256_maddubs_epi16(wabs[g], _mm256_sign_epi8(a[g], w[g])), ones));
                }
            }
            const __m256 p = _mm256_cvtepi32_ps(p32);
            acc[c] = _mm256_fmadd_ps(_mm256_mul_ps(dw, qt_scale((const ggml_fp16_t *)(const void *) yb)), p, acc[c]);
            if (q81) {
                acc[c] = _mm256_fmadd_ps(mw, qt_scale(&((const block_q8_1 *)(const void *) yb)->s), acc[c]);
            }
        }
    }
    for (int c = 0; c < C; c++) {
        float v[8];
        _mm256_storeu_ps(v, acc[c]);
        for (int r = 0; r < 4; r++) {
            s[(size_t) c*bs + (size_t) r] = v[2*r] + v[2*r + 1];
        }
    }
}

// any nr <= GGML_CPU_QTILE_ROWS rows x nc <= GGML_CPU_QTILE_COLS columns: one column through the
// 4 x 1 register tile (decode), several row by row through 1 x 8 / 4 / 2 / 1 tiles (prompt: the
// unpacked weight block serves up to 8 columns, whose int sums stay in registers)
QT_INLINE void qt_tile(enum qt_kind k, int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by,
        int nr, int nc) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK8_0;
    if (nc == 1) {
        if (nr == 4) {
            qt_body(k, 4, 1, nb, s, bs, x, bx, y, by);
        } else {
            for (int r = 0; r < nr; r++) {
                qt_body(k, 1, 1, nb, s + r, bs, x + (size_t) r*bx, bx, y, by);
            }
        }
        return;
    }
    if (nr == 4) {
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            qt4_body(k, 8, nb, s + (size_t) c*bs, bs, x, bx, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            qt4_body(k, 4, nb, s + (size_t) c*bs, bs, x, bx, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            qt4_body(k, 2, nb, s + (size_t) c*bs, bs, x, bx, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            qt4_body(k, 1, nb, s + (size_t) c*bs, bs, x, bx, y + (size_t) c*by, by);
        }
        return;
    }
    for (int r = 0; r < nr; r++) {
        const char * xr = x + (size_t) r*bx;
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            qt_body(k, 1, 8, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            qt_body(k, 1, 4, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            qt_body(k, 1, 2, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            qt_body(k, 1, 1, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by);
        }
    }
}

#define QT_DEFINE(name, kind) \
    GGML_TARGET_AVX2 void ggml_cpu_q_tile_##name##_avx2(int n, float * s, size_t bs, const void * x, size_t bx, \
            const void * y, size_t by, int nr, int nc) { \
        qt_tile(kind, n, s, bs, x, bx, y, by, nr, nc); \
    }

QT_DEFINE(q4_0, QT_Q4_0)
QT_DEFINE(q4_1, QT_Q4_1)
QT_DEFINE(q5_0, QT_Q5_0)
QT_DEFINE(q5_1, QT_Q5_1)
QT_DEFINE(q8_0, QT_Q8_0)
QT_DEFINE(iq4_nl, QT_IQ4_NL)
QT_DEFINE(mxfp4, QT_MXFP4)

#else

typedef int ggml_avx2_quant_tile_unused;

#endif // GGML_CPU_X86
