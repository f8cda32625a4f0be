// AVX2 quantized tiles of the 256-blocks against Q8_K activations (Q4_K, Q5_K, Q6_K, IQ4_XS): up
// to GGML_CPU_QTILE_ROWS weight rows by GGML_CPU_QTILE_COLS columns per call (the tile slot of
// cpu-kernels.h), the formats' integer sums as in the vec_dot kernels (avx2-quant-k.c), with the
// unpacked levels and scales of a weight row shared by the tile's columns. Per super-block and
// (row, column) pair the int32 sums stay in a vector; the block-sum terms (Q4_K/Q5_K mins, Q6_K's
// offset of 32) are one madd of 16 int16 scales with Q8_K's 16 bsums. Register tiles: 4 x 1
// (decode) and 1 x 8 (prompt), other shapes split into those and smaller ones.

#include "avx2-quant.h"
#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

enum qtk_kind { QTK_Q4_K, QTK_Q5_K, QTK_Q6_K, QTK_IQ4_XS };

#define QTK_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// an empty asm that claims to change v: keeps the compiler from reassociating a step's sums into
// a tree over the unrolled steps (which computes every product first and spills them)
#if defined(__GNUC__)
#define QTK_KEEP(v) __asm__("" : "+x"(v))
#else
#define QTK_KEEP(v) ((void) 0)
#endif

QTK_INLINE size_t qtk_xsize(enum qtk_kind k) {
    switch (k) {
        case QTK_Q4_K:   return sizeof(block_q4_K);
        case QTK_Q5_K:   return sizeof(block_q5_K);
        case QTK_Q6_K:   return sizeof(block_q6_K);
        case QTK_IQ4_XS: return sizeof(block_iq4_xs);
    }
    return 0;
}

QTK_INLINE __m256i qtk_load(const void * p) {
    return _mm256_loadu_si256((const __m256i *)(const void *) p);
}

// per row and super-block: the sub-block scales (int16, broadcast from here per step; IQ4_XS's as
// 8 int32 lanes), the 16
// int16 factors of the bsums (mins of Q4_K/Q5_K repeated per half sub-block; Q6_K's group
// scales), the float scale of the integer sum and that of the bsum term
struct qtk_row {
    int16_t sc[16];
    __m256i bfac;
    float   d, dmin;
};

// Q4_K / Q5_K: the 12 packed bytes to 8 scales and 8 mins of 6 bits (sub-block j < 4: low 6 bits
// of bytes j and j + 4; j >= 4: a nibble of byte j + 4 with the top 2 bits of bytes j - 4 and j),
// four bytes at a time
QTK_INLINE void qtk_unpack_scales(const uint8_t * q, struct qtk_row * w) {
    uint32_t u[3], sm[4];
    memcpy(u, q, 12);
    sm[0] = u[0] & 0x3F3F3F3Fu;                                                 // scales 0..3
    sm[1] = (u[2] & 0x0F0F0F0Fu) | (((u[0] >> 6) & 0x03030303u) << 4);         // scales 4..7
    sm[2] = u[1] & 0x3F3F3F3Fu;                                                 // mins 0..3
    sm[3] = ((u[2] >> 4) & 0x0F0F0F0Fu) | (((u[1] >> 6) & 0x03030303u) << 4);  // mins 4..7
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *) sm);
    _mm_storeu_si128((__m128i *)(void *) w->sc, _mm_cvtepu8_epi16(b));
    const __m128i mins2 = _mm_shuffle_epi8(b, _mm_set_epi8(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8));
    w->bfac = _mm256_cvtepu8_epi16(mins2);
}

QTK_INLINE void qtk_row_prep(enum qtk_kind k, const void * blk, struct qtk_row * w) {
    switch (k) {
        case QTK_Q4_K: {
            const block_q4_K * b = blk;
            qtk_unpack_scales(b->scales, w);
            w->d = q_fp16_avx2(b->d);
            w->dmin = q_fp16_avx2(b->dmin);
            break;
        }
        case QTK_Q5_K: {
            const block_q5_K * b = blk;
            qtk_unpack_scales(b->scales, w);
            w->d = q_fp16_avx2(b->d);
            w->dmin = q_fp16_avx2(b->dmin);
            break;
        }
        case QTK_Q6_K: {
            const block_q6_K * b = blk;
            // the offset of 32 of every level: -32 * sum_g sc_g * bsum_g, folded as dmin = 32*d
            w->bfac = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *) b->scales));
            _mm256_storeu_si256((__m256i *)(void *) w->sc, w->bfac);
            w->d = q_fp16_avx2(b->d);
            w->dmin = 32.0f*w->d;
            break;
        }
        case QTK_IQ4_XS: {
            // ls_j - 32 with ls_j = nibble j of scales_l | (bits 2j..2j+1 of scales_h) << 4, as int32
            // lanes (madd broadcasts the low 16 bits of each)
            const block_iq4_xs * b = blk;
            uint32_t l;
            memcpy(&l, b->scales_l, sizeof(l));
            const __m128i l4 = _mm_cvtsi32_si128((int) l);
            const __m128i m4 = _mm_set1_epi8(0x0F);
            const __m128i lo = _mm_unpacklo_epi8(_mm_and_si128(l4, m4), _mm_and_si128(_mm_srli_epi16(l4, 4), m4));
            const __m256i hi = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(b->scales_h),
                    _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)), _mm256_set1_epi32(3));
            const __m256i ls = _mm256_or_si256(_mm256_cvtepu8_epi32(lo), _mm256_slli_epi32(hi, 4));
            _mm256_storeu_si256((__m256i *)(void *) w->sc, _mm256_sub_epi32(ls, _mm256_set1_epi32(32)));
            w->bfac = _mm256_setzero_si256();
            w->d = q_fp16_avx2(b->d);
            w->dmin = 0.0f;
            break;
        }
    }
}

// step j (0..7) of a super-block: the 32 weight levels meeting activation bytes 32*j .. 32*j + 31
// and the int16 scale vector they take; signed levels (IQ4_XS) are returned with their sign moved
// to *sgn for the maddubs trick
QTK_INLINE __m256i qtk_levels(enum qtk_kind k, const void * blk, const struct qtk_row * w, int j, __m256i iq4_vals,
        __m256i * scale, __m256i * sgn) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    switch (k) {
        case QTK_Q4_K:
        case QTK_Q5_K: {
            // sub-block j: nibble (j & 1) of qs bytes 32*(j/2) ..
            const uint8_t * qs = k == QTK_Q4_K ? ((const block_q4_K *) blk)->qs : ((const block_q5_K *) blk)->qs;
            const __m256i q = qtk_load(qs + 32*(j/2));
            __m256i u = _mm256_and_si256(j & 1 ? _mm256_srli_epi16(q, 4) : q, m4);
            if (k == QTK_Q5_K) {
                const __m256i hb = qtk_load(((const block_q5_K *) blk)->qh);
                u = _mm256_or_si256(u, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, j), _mm256_set1_epi8(1)), 4));
            }
            *scale = _mm256_set1_epi16(w->sc[j]);
            return u;
        }
        case QTK_Q6_K: {
            // half h = j/4, quarter r = j%4: low nibbles of ql[64h + 32(r&1)] (high nibbles for r >= 2),
            // bits 2r..2r+1 of qh[32h]; element groups of 16 take scales 8h + 2r and 8h + 2r + 1
            const block_q6_K * b = blk;
            const int h = j/4, r = j%4;
            const __m256i l = qtk_load(b->ql + 64*h + 32*(r & 1));
            const __m256i hb = qtk_load(b->qh + 32*h);
            const __m256i lo = _mm256_and_si256(r >= 2 ? _mm256_srli_epi16(l, 4) : l, m4);
            const __m256i hi = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2*r), _mm256_set1_epi8(3)), 4);
            *scale = _mm256_set_m128i(_mm_set1_epi16(w->sc[8*h + 2*r + 1]), _mm_set1_epi16(w->sc[8*h + 2*r]));
            return _mm256_or_si256(lo, hi);
        }
        case QTK_IQ4_XS: {
            const block_iq4_xs * b = blk;
            const __m128i q = _mm_loadu_si128((const __m128i *)(const void *) (b->qs + 16*j));
            const __m256i nb = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), m4);
            const __m256i v = _mm256_shuffle_epi8(iq4_vals, nb);
            *sgn = v;
            *scale = _mm256_set1_epi16(w->sc[2*j]); // the low half of int32 lane j
            return _mm256_sign_epi8(v, v);
        }
    }
    return _mm256_setzero_si256();
}

// pf > 0: fetch pf bytes ahead of each row's block (no caller now: the decode kernels of these
// types are in avx2-quant-gemv-k.c)
QTK_INLINE void qtk_body(enum qtk_kind k, int R, int C, int nb, float * s, size_t bs, const char * x, size_t bx,
        const char * y, size_t by, size_t pf) {
    const size_t xsz = qtk_xsize(k);
    const __m128i v128 = _mm_loadu_si128((const __m128i *)(const void *) ggml_kvalues_iq4nl);
    const __m256i iq4_vals = _mm256_set_m128i(v128, v128);
    __m256 acc[4][8];
    for (int r = 0; r < R; r++) {
        for (int c = 0; c < C; c++) {
            acc[r][c] = _mm256_setzero_ps();
        }
    }
    for (int i = 0; i < nb; i++) {
        struct qtk_row w[4];
        const void * xb[4];
        const block_q8_K * yb[8];
        for (int r = 0; r < R; r++) {
            xb[r] = x + (size_t) r*bx + (size_t) i*xsz;
            if (C == 1 && R > 1) {
                // R short interleaved streams: fetch this super-block of the next R rows (the next call's)
                for (size_t o = 0; o < xsz; o += 64) {
                    _mm_prefetch((const char *) xb[r] + (size_t) R*bx + o, _MM_HINT_T0);
                }
            }
            if (pf > 0) {
                for (size_t o = 0; o < xsz; o += 64) {
                    _mm_prefetch((const char *) xb[r] + pf + o, _MM_HINT_T0);
                }
            }
            qtk_row_prep(k, xb[r], &w[r]);
        }
        for (int c = 0; c < C; c++) {
            yb[c] = (const block_q8_K *)(const void *) (y + (size_t) c*by) + i;
        }
        __m256i isum[4][8];
        for (int r = 0; r < R; r++) {
            for (int c = 0; c < C; c++) {
                isum[r][c] = _mm256_setzero_si256();
            }
        }
        // the 8 steps of 32 elements, unrolled so that the steps' offsets and shifts are constants
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            for (int r = 0; r < R; r++) {
                __m256i scale, sgn = _mm256_setzero_si256();
                const __m256i u = qtk_levels(k, xb[r], &w[r], j, iq4_vals, &scale, &sgn);
                for (int c = 0; c < C; c++) {
                    __m256i a = qtk_load(yb[c]->qs + 32*j);
                    if (k == QTK_IQ4_XS) {
                        a = _mm256_sign_epi8(a, sgn);
                    }
                    isum[r][c] = _mm256_add_epi32(isum[r][c], _mm256_madd_epi16(_mm256_maddubs_epi16(u, a), scale));
                    QTK_KEEP(isum[r][c]);
                }
            }
        }
        for (int c = 0; c < C; c++) {
            const __m256i bsums = qtk_load(yb[c]->bsums);
            const float dy = yb[c]->d;
            for (int r = 0; r < R; r++) {
                acc[r][c] = _mm256_fmadd_ps(_mm256_set1_ps(w[r].d*dy), _mm256_cvtepi32_ps(isum[r][c]), acc[r][c]);
                if (k != QTK_IQ4_XS) {
                    const __m256i mins = _mm256_madd_epi16(w[r].bfac, bsums);
                    acc[r][c] = _mm256_fnmadd_ps(_mm256_set1_ps(w[r].dmin*dy), _mm256_cvtepi32_ps(mins), acc[r][c]);
                }
            }
        }
    }
    for (int r = 0; r < R; r++) {
        for (int c = 0; c < C; c++) {
            s[(size_t) c*bs + (size_t) r] = qu_hsum_ps(acc[r][c]);
        }
    }
}

// any nr <= GGML_CPU_QTILE_ROWS rows x nc <= GGML_CPU_QTILE_COLS columns: one column through the
// 4 x 1 register tile (decode), several row by row through 1 x 8 / 4 / 2 / 1 tiles (prompt: the
// unpacked weight block serves up to 8 columns, whose int sums stay in registers)
QTK_INLINE void qtk_tile(enum qtk_kind k, int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by,
        int nr, int nc) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK_K;
    if (nc == 1) {
        if (nr == 4) {
            qtk_body(k, 4, 1, nb, s, bs, x, bx, y, by, 0);
        } else {
            for (int r = 0; r < nr; r++) {
                qtk_body(k, 1, 1, nb, s + r, bs, x + (size_t) r*bx, bx, y, by, 0);
            }
        }
        return;
    }
    for (int r = 0; r < nr; r++) {
        const char * xr = x + (size_t) r*bx;
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            qtk_body(k, 1, 8, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by, 0);
        }
        if (c + 4 <= nc) {
            qtk_body(k, 1, 4, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by, 0);
            c += 4;
        }
        if (c + 2 <= nc) {
            qtk_body(k, 1, 2, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by, 0);
            c += 2;
        }
        if (c < nc) {
            qtk_body(k, 1, 1, nb, s + (size_t) c*bs + r, bs, xr, bx, y + (size_t) c*by, by, 0);
        }
    }
}

#define QTK_DEFINE(name, kind) \
    GGML_TARGET_AVX2 void ggml_cpu_q_tile_##name##_avx2(int n, float * s, size_t bs, const void * x, size_t bx, \
            const void * y, size_t by, int nr, int nc) { \
        qtk_tile(kind, n, s, bs, x, bx, y, by, nr, nc); \
    }

QTK_DEFINE(q4_K, QTK_Q4_K)
QTK_DEFINE(q5_K, QTK_Q5_K)
QTK_DEFINE(q6_K, QTK_Q6_K)
QTK_DEFINE(iq4_xs, QTK_IQ4_XS)

#else

typedef int ggml_avx2_quant_tile_k_unused;

#endif // GGML_CPU_X86
