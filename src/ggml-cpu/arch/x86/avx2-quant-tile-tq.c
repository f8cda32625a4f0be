// AVX2 register tiles of the ternary formats TQ1_0 and TQ2_0 against Q8_K activations (the tile
// slot of cpu-kernels.h; the arithmetic of avx2-quant-ternary.c's dot products).
//
// The dot products spend most of their work taking the trits apart: TQ2_0 a shift and a mask per
// 32 weights, TQ1_0 about eight byte operations (the base-3 digit of a fixed-point byte). In the
// prompt case one row's digits of a super-block are extracted once and serve up to 8 columns:
// per 32 weights and column one activation load, one maddubs and one int16 add remain. The int16
// pair sums of a super-block stay below 8*2*2*127 (TQ2_0) and 10*2*2*127 (TQ1_0), and the
// -sum(a) term comes from the Q8_K bsums as in the dot products, so the integer sums are the
// same. One column (decode) goes to the dot products row by row.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

#define TT_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE
#define TT_COLS   8

enum tt_kind { TT_TQ1_0, TT_TQ2_0 };

// s*3 modulo 256 in every byte
TT_INLINE __m256i tt_times3(__m256i s) {
    return _mm256_add_epi8(s, _mm256_add_epi8(s, s));
}

// the top base-3 digit (0, 1, 2) of every byte s
TT_INLINE __m256i tt_digit(__m256i s) {
    const __m256i ge86  = _mm256_cmpeq_epi8(_mm256_max_epu8(s, _mm256_set1_epi8(86)), s);
    const __m256i ge171 = _mm256_cmpeq_epi8(_mm256_max_epu8(s, _mm256_set1_epi8((char) 171)), s);
    return _mm256_sub_epi8(_mm256_setzero_si256(), _mm256_add_epi8(ge86, ge171));
}

// p[c] += the digits t (32 of them, for activation bytes at offset off of each column's block)
// times column c's activations
TT_INLINE void tt_step(int C, __m256i t, const block_q8_K * const yb[TT_COLS], int off, __m256i p[TT_COLS]) {
    for (int c = 0; c < C; c++) {
        p[c] = _mm256_add_epi16(p[c], _mm256_maddubs_epi16(t, qu_load256(yb[c]->qs + off)));
    }
}

// the int16 pair sums of one super-block of TQ1_0 (its digits in avx2-quant-ternary.c's order)
// with C columns
TT_INLINE void tt_block_tq1(int C, const block_tq1_0 * x, const block_q8_K * const yb[TT_COLS], __m256i p[TT_COLS]) {
    __m256i q = qu_load256(x->qs);
    for (int d = 0; d < 5; d++) {
        tt_step(C, tt_digit(q), yb, 32*d, p);
        q = tt_times3(q);
    }
    const __m128i q16 = _mm_loadu_si128((const __m128i *)(const void *) (x->qs + 32));
    const __m256i q01 = _mm256_set_m128i(_mm256_castsi256_si128(tt_times3(_mm256_castsi128_si256(q16))), q16);
    const __m256i q23 = tt_times3(tt_times3(q01));
    const __m256i q4  = tt_times3(tt_times3(q23));
    uint32_t qh;
    memcpy(&qh, x->qh, sizeof(qh));
    const __m128i h0 = _mm_set1_epi32((int) qh);
    const __m128i h1 = _mm256_castsi256_si128(tt_times3(_mm256_castsi128_si256(h0)));
    const __m128i h2 = _mm256_castsi256_si128(tt_times3(_mm256_castsi128_si256(h1)));
    const __m128i h3 = _mm256_castsi256_si128(tt_times3(_mm256_castsi128_si256(h2)));
    const __m128i hh = _mm_blend_epi32(_mm_blend_epi32(h0, h1, 0x2), _mm_blend_epi32(h2, h3, 0x8), 0xC);
    const __m256i qt = _mm256_set_m128i(hh, _mm256_castsi256_si128(q4));
    tt_step(C, tt_digit(q01), yb, 160, p);
    tt_step(C, tt_digit(q23), yb, 192, p);
    tt_step(C, tt_digit(qt), yb, 224, p);
}

// the same for TQ2_0: byte 32*h + m, bits 2*n hold element 128*h + 32*n + m
TT_INLINE void tt_block_tq2(int C, const block_tq2_0 * x, const block_q8_K * const yb[TT_COLS], __m256i p[TT_COLS]) {
    const __m256i m3 = _mm256_set1_epi8(3);
    for (int h = 0; h < 2; h++) {
        const __m256i q = qu_load256(x->qs + 32*h);
        tt_step(C, _mm256_and_si256(q, m3), yb, 128*h, p);
        tt_step(C, _mm256_and_si256(_mm256_srli_epi16(q, 2), m3), yb, 128*h + 32, p);
        tt_step(C, _mm256_and_si256(_mm256_srli_epi16(q, 4), m3), yb, 128*h + 64, p);
        tt_step(C, _mm256_and_si256(_mm256_srli_epi16(q, 6), m3), yb, 128*h + 96, p);
    }
}

// one row x C columns over nb super-blocks: s[c*bs] = dot(row x, column c)
TT_INLINE void tt_row(enum tt_kind k, int C, int nb, float * s, size_t bs, const char * x, const char * y, size_t by) {
    const __m256i ones = _mm256_set1_epi16(1);
    const size_t xsz = k == TT_TQ1_0 ? sizeof(block_tq1_0) : sizeof(block_tq2_0);
    __m256 acc[TT_COLS];
    for (int c = 0; c < C; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb[TT_COLS];
        __m256i p[TT_COLS];
        for (int c = 0; c < C; c++) {
            yb[c] = (const block_q8_K *)(const void *) (y + (size_t) c*by) + i;
            p[c] = _mm256_setzero_si256();
        }
        const char * xb = x + (size_t) i*xsz;
        ggml_fp16_t dh;
        if (k == TT_TQ1_0) {
            tt_block_tq1(C, (const block_tq1_0 *)(const void *) xb, yb, p);
            dh = ((const block_tq1_0 *)(const void *) xb)->d;
        } else {
            tt_block_tq2(C, (const block_tq2_0 *)(const void *) xb, yb, p);
            dh = ((const block_tq2_0 *)(const void *) xb)->d;
        }
        const float dx = q_fp16_avx2(dh);
        for (int c = 0; c < C; c++) {
            const __m256i is = _mm256_sub_epi32(_mm256_madd_epi16(p[c], ones),
                                                _mm256_madd_epi16(qu_load256(yb[c]->bsums), ones));
            acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(dx*yb[c]->d), _mm256_cvtepi32_ps(is), acc[c]);
        }
    }
    for (int c = 0; c < C; c++) {
        s[(size_t) c*bs] = qu_hsum_ps(acc[c]);
    }
}

TT_INLINE void tt_tile(enum tt_kind k, int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by,
        int nr, int nc) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK_K;
    for (int r = 0; r < nr; r++) {
        const char * xr = x + (size_t) r*bx;
        int c = 0;
        if (nc == 1) {
            // decode: the dot product (no digits to share)
            if (k == TT_TQ1_0) {
                ggml_cpu_q_dot_tq1_0_avx2(n, s + r, 0, xr, 0, y, 0, 1);
            } else {
                ggml_cpu_q_dot_tq2_0_avx2(n, s + r, 0, xr, 0, y, 0, 1);
            }
            continue;
        }
        for (; c + 8 <= nc; c += 8) {
            tt_row(k, 8, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            tt_row(k, 4, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            tt_row(k, 2, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            tt_row(k, 1, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_tq1_0_avx2(int n, float * s, size_t bs, const void * x, size_t bx, const void * y,
        size_t by, int nr, int nc) {
    tt_tile(TT_TQ1_0, n, s, bs, x, bx, y, by, nr, nc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_tq2_0_avx2(int n, float * s, size_t bs, const void * x, size_t bx, const void * y,
        size_t by, int nr, int nc) {
    tt_tile(TT_TQ2_0, n, s, bs, x, bx, y, by, nr, nc);
}

#else

typedef int ggml_avx2_quant_tile_tq_unused;

#endif // GGML_CPU_X86
