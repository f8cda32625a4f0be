// AVX2 quantized tiles of Q2_K and Q3_K against Q8_K activations (the tile slot of cpu-kernels.h):
// up to GGML_CPU_QTILE_ROWS weight rows by GGML_CPU_QTILE_COLS columns per call, the prompt case
// as 1 row x 8 columns (then 4, 2, 1). A weight super-block is unpacked once per step of 32
// elements (2-bit levels, Q3_K's high bit, the two group scales) and that serves every column of
// the tile; per (row, column) the int32 sums stay in a vector. The level offsets (Q2_K's mins,
// Q3_K's -4) are one madd of 16 int16 factors with Q8_K's 16 bsums, as in avx2-quant-tile-k.c.

#include "avx2-quant.h"
#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

enum qt23_kind { QT23_Q2_K, QT23_Q3_K };

#define QT23_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// keeps the compiler from reassociating the unrolled steps' sums into a tree (avx2-quant-tile-k.c)
#if defined(__GNUC__)
#define QT23_KEEP(v) __asm__("" : "+x"(v))
#else
#define QT23_KEEP(v) ((void) 0)
#endif

// per super-block of a row: the 16 group scales (int16), the 16 int16 factors of the bsums, and
// the float scales of the integer sum and of the bsum term (subtracted)
struct qt23_row {
    int16_t sc[16];
    __m256i bfac;
    float   d, dmin;
};

QT23_INLINE void qt23_row_prep(enum qt23_kind k, const void * blk, struct qt23_row * w) {
    if (k == QT23_Q2_K) {
        // byte g of scales: low nibble the scale of group g, high nibble its min
        const block_q2_K * b = blk;
        const __m128i s8 = _mm_loadu_si128((const __m128i *)(const void *) b->scales);
        const __m128i m4 = _mm_set1_epi8(0x0F);
        _mm256_storeu_si256((__m256i *)(void *) w->sc, _mm256_cvtepu8_epi16(_mm_and_si128(s8, m4)));
        w->bfac = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s8, 4), m4));
        w->d = q_fp16_avx2(b->d);
        w->dmin = q_fp16_avx2(b->dmin);
    } else {
        // 16 signed 6-bit scales: low 4 bits from bytes 0..7 (group j < 8 the low nibble of byte j,
        // j >= 8 the high nibble of byte j - 8), high 2 bits from byte 8 + j%4, bits 2*(j/4); the
        // level offset of -4: -4 * sum_g sc_g * bsum_g, folded as dmin = 4*d
        const block_q3_K * b = blk;
        uint32_t u[3];
        memcpy(u, b->scales, sizeof(u));
        const uint32_t m4 = 0x0F0F0F0Fu, m2 = 0x30303030u;
        const __m128i s8 = _mm_sub_epi8(_mm_set_epi32((int) (((u[1] >> 4) & m4) | ((u[2] >> 2) & m2)),
                                                      (int) (((u[0] >> 4) & m4) | (u[2] & m2)),
                                                      (int) ((u[1] & m4) | ((u[2] << 2) & m2)),
                                                      (int) ((u[0] & m4) | ((u[2] << 4) & m2))),
                                        _mm_set1_epi8(32));
        w->bfac = _mm256_cvtepi8_epi16(s8);
        _mm256_storeu_si256((__m256i *)(void *) w->sc, w->bfac);
        w->d = q_fp16_avx2(b->d);
        w->dmin = 4.0f*w->d;
    }
}

// step j (0..7): the 32 unsigned levels meeting activation bytes 32*j .. 32*j + 31 (bits 2*(j%4)
// of qs bytes 32*(j/4) .., Q3_K's hmask bit j moved to bit 2) and their int16 scales (group 2j for
// the low 16, 2j + 1 for the high 16)
QT23_INLINE __m256i qt23_levels(enum qt23_kind k, const void * blk, const struct qt23_row * w, int j, __m256i * scale) {
    const uint8_t * qs = k == QT23_Q2_K ? ((const block_q2_K *) blk)->qs : ((const block_q3_K *) blk)->qs;
    const __m256i q = qu_load256(qs + 32*(j/4));
    const int sh = 2*(j%4);
    __m256i u = _mm256_and_si256(sh ? _mm256_srli_epi16(q, sh) : q, _mm256_set1_epi8(3));
    if (k == QT23_Q3_K) {
        // 16-bit shifts keep bit 2 within its byte
        const __m256i hm = qu_load256(((const block_q3_K *) blk)->hmask);
        const __m256i hb = j < 2 ? _mm256_slli_epi16(hm, 2 - j) : j > 2 ? _mm256_srli_epi16(hm, j - 2) : hm;
        u = _mm256_or_si256(u, _mm256_and_si256(hb, _mm256_set1_epi8(4)));
    }
    *scale = _mm256_set_m128i(_mm_set1_epi16(w->sc[2*j + 1]), _mm_set1_epi16(w->sc[2*j]));
    return u;
}

// one weight row (x) against C columns (y, stride by), results at s[c*bs]
QT23_INLINE void qt23_body(enum qt23_kind k, int C, int nb, float * s, size_t bs, const char * x, const char * y,
        size_t by) {
    const size_t xsz = k == QT23_Q2_K ? sizeof(block_q2_K) : sizeof(block_q3_K);
    __m256 acc[8];
    for (int c = 0; c < C; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        struct qt23_row w;
        const void * xb = x + (size_t) i*xsz;
        const block_q8_K * yb[8];
        qt23_row_prep(k, xb, &w);
        for (int c = 0; c < C; c++) {
            yb[c] = (const block_q8_K *)(const void *) (y + (size_t) c*by) + i;
        }
        __m256i isum[8];
        for (int c = 0; c < C; c++) {
            isum[c] = _mm256_setzero_si256();
        }
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            __m256i scale;
            const __m256i u = qt23_levels(k, xb, &w, j, &scale);
            for (int c = 0; c < C; c++) {
                const __m256i a = qu_load256(yb[c]->qs + 32*j);
                isum[c] = _mm256_add_epi32(isum[c], _mm256_madd_epi16(_mm256_maddubs_epi16(u, a), scale));
                QT23_KEEP(isum[c]);
            }
        }
        for (int c = 0; c < C; c++) {
            const float dy = yb[c]->d;
            const __m256i offs = _mm256_madd_epi16(w.bfac, qu_load256(yb[c]->bsums));
            acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(w.d*dy), _mm256_cvtepi32_ps(isum[c]), acc[c]);
            acc[c] = _mm256_fnmadd_ps(_mm256_set1_ps(w.dmin*dy), _mm256_cvtepi32_ps(offs), acc[c]);
        }
    }
    for (int c = 0; c < C; c++) {
        s[(size_t) c*bs] = qu_hsum_ps(acc[c]);
    }
}

// any nr x nc: row by row, the columns through 1 x 8 / 4 / 2 / 1 tiles
QT23_INLINE void qt23_tile(enum qt23_kind k, int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy,
        size_t by, int nr, int nc) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK_K;
    for (int r = 0; r < nr; r++) {
        const char * xr = x + (size_t) r*bx;
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            qt23_body(k, 8, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            qt23_body(k, 4, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            qt23_body(k, 2, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            qt23_body(k, 1, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_q2_K_avx2(int n, float * s, size_t bs, const void * x, size_t bx, const void * y,
        size_t by, int nr, int nc) {
    qt23_tile(QT23_Q2_K, n, s, bs, x, bx, y, by, nr, nc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_q3_K_avx2(int n, float * s, size_t bs, const void * x, size_t bx, const void * y,
        size_t by, int nr, int nc) {
    qt23_tile(QT23_Q3_K, n, s, bs, x, bx, y, by, nr, nc);
}

#else

typedef int ggml_avx2_quant_tile_k23_unused;

#endif // GGML_CPU_X86
