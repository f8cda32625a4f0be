// AVX2 decode kernels (the gemv slot of cpu-kernels.h) of the K-quants Q2_K .. Q6_K and IQ4_XS:
// s[r] = dot(weight row r, one Q8_K activation row) for any number of rows.
//
// The register tiles' 1 x 1 body took 12 - 13.5 ns per super-block (Q4_K: ~33 cycles) on the AVX2
// EPYC of this machine with its rows in L2, compute-bound below the memory read; these kernels
// 7.8 (Q4_K), 9.8 (Q5_K), 8.8 (Q6_K), 9.0 (IQ4_XS) ns. Per super-block and row:
//   - the scales are unpacked in vector registers (dword shuffles, variable shifts, masks), with
//     no store and reload through memory;
//   - a sub-block's scale reaches its int16 products by one byte shuffle of the broadcast scales;
//   - the levels are unsigned; mins (Q2_K, Q4_K, Q5_K) and offsets (Q3_K's 4, Q6_K's 32) are one
//     madd of 16 int16 factors with Q8_K's 16 bsums;
//   - high bits (Q3_K, Q5_K, Q6_K) reach their place by one 16-bit shift and a mask (bits that
//     cross a byte land outside the mask);
//   - the float work is a few conversions and fma per super-block.
// The rows are taken QGK_STREAMS at a time from QGK_STREAMS equal, distant runs of the call's rows
// (row i of each run), in lockstep by super-block: one core draws more bandwidth from several
// distant streams than from one (bench/quant-matmul's reference read), and the activation loads
// are shared by the rows. Q2_K, Q4_K and Q5_K run the rows inside the loop over activation chunks
// (Q4_K 25 -> 23 cycles per super-block and row in L2); on this Zen 3 core the kernels sit near
// their operation count at ~3 vector operations a cycle (docs/quantization.md, "instruction budget").

#include "avx2-quant.h"
#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

enum qgk_kind { QGK_Q4_K, QGK_Q5_K, QGK_Q2_K, QGK_Q3_K, QGK_IQ4_XS, QGK_Q6_K };

#define QGK_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// distant row runs read in lockstep (1 thread, process CPU time, K = 4096, N = 14336, Q4_K / Q5_K:
// 1 stream 10.5 / 11 GB/s, 2 streams 14 / 14, 4 streams 15 / 15, 8 streams 14 / 13; a software
// prefetch made 1 stream faster, 13 GB/s, and 4 streams no faster)
#define QGK_STREAMS 4

// an empty asm that takes and gives v in a register: the compiler finishes v's computation here and
// cannot move it across, which keeps it from hoisting a whole chunk's products ahead of their sums
// (GCC 12 did, spilling them)
#define QGK_KEEP(v) __asm__("" : "+x"(v))

// the 12 scale bytes (as dwords u0, u1, u2 of a 16-byte load) to [8 scales | 8 mins] bytes:
// scales 0..3 = u0 & 0x3F, 4..7 = (u2 & 0x0F) | (u0 >> 2 & 0x30); mins 0..3 = u1 & 0x3F,
// 4..7 = (u2 >> 4 & 0x0F) | (u1 >> 2 & 0x30)
QGK_INLINE __m128i qgk_scales(const uint8_t * q) {
    const __m128i a = _mm_loadu_si128((const __m128i *)(const void *) q);
    const __m128i p = _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 1, 2, 0)); // u0 u2 u1 u2
    const __m128i h = _mm_shuffle_epi32(a, _MM_SHUFFLE(1, 1, 0, 0)); // u0 u0 u1 u1
    const __m128i lo = _mm_and_si128(_mm_srlv_epi32(p, _mm_setr_epi32(0, 0, 0, 4)),
                                     _mm_setr_epi32(0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F));
    const __m128i hi = _mm_and_si128(_mm_srli_epi32(h, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030));
    return _mm_or_si128(lo, hi);
}

// acc += dy * (d * isum - dmin * mins), d and dmin the two F16 values at dm (Q4_K, Q5_K, Q2_K)
QGK_INLINE __m256 qgk_acc_dmin(__m256 acc, const void * dm, __m256i isum, __m256i mins, __m256 dy) {
    uint32_t dw;
    memcpy(&dw, dm, sizeof(dw));
    const __m128 dd = _mm_cvtph_ps(_mm_cvtsi32_si128((int) dw));
    const __m256 dv = _mm256_broadcastss_ps(dd);
    const __m256 mv = _mm256_broadcastss_ps(_mm_movehdup_ps(dd));
    const __m256 t = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mins), mv, _mm256_mul_ps(_mm256_cvtepi32_ps(isum), dv));
    return _mm256_fmadd_ps(t, dy, acc);
}

// Q4_K / Q5_K: R rows (x, x + stride, ...) against y, nb super-blocks each; out[r] their dots.
// Q5_K's fifth bit of sub-block j is bit j of qh, moved to bit 4.
QGK_INLINE void qgk_rows(enum qgk_kind k, int R, int nb, const char * x, size_t stride, const block_q8_K * y,
        float * out) {
    const size_t xsz = k == QGK_Q4_K ? sizeof(block_q4_K) : sizeof(block_q5_K);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m5 = _mm256_set1_epi8(0x10);
    const __m128i dup = _mm_setr_epi8(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
    __m256 acc[QGK_STREAMS];
    for (int r = 0; r < R; r++) {
        acc[r] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb = y + i;
        const char * xb[QGK_STREAMS];
        __m256i sc[QGK_STREAMS], isum[QGK_STREAMS];
        for (int r = 0; r < R; r++) {
            xb[r] = x + (size_t) r*stride + (size_t) i*xsz;
            const uint8_t * scb = k == QGK_Q4_K ? ((const block_q4_K *) xb[r])->scales : ((const block_q5_K *) xb[r])->scales;
            sc[r] = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(qgk_scales(scb)));
            isum[r] = _mm256_setzero_si256();
        }
#pragma GCC unroll 4
        for (int j2 = 0; j2 < 4; j2++) {
            const __m256i ya = qu_load256(yb->qs + 64*j2), yh = qu_load256(yb->qs + 64*j2 + 32);
            const __m256i ml = _mm256_set1_epi16((short) (((4*j2 + 1) << 8) | (4*j2)));
            const __m256i mh = _mm256_set1_epi16((short) (((4*j2 + 3) << 8) | (4*j2 + 2)));
            for (int r = 0; r < R; r++) {
                const uint8_t * qs = k == QGK_Q4_K ? ((const block_q4_K *) xb[r])->qs : ((const block_q5_K *) xb[r])->qs;
                const __m256i q = qu_load256(qs + 32*j2);
                __m256i lo = _mm256_and_si256(q, m4);
                __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
                if (k == QGK_Q5_K) {
                    // bit 2*j2 (2*j2 + 1) of qh to bit 4
                    const __m256i qh = qu_load256(((const block_q5_K *) xb[r])->qh);
                    const int jl = 2*j2, jh = 2*j2 + 1;
                    const __m256i bl = jl < 4 ? _mm256_slli_epi16(qh, 4 - jl) : jl > 4 ? _mm256_srli_epi16(qh, jl - 4) : qh;
                    const __m256i bh = jh < 4 ? _mm256_slli_epi16(qh, 4 - jh) : _mm256_srli_epi16(qh, jh - 4);
                    lo = _mm256_or_si256(lo, _mm256_and_si256(bl, m5));
                    hi = _mm256_or_si256(hi, _mm256_and_si256(bh, m5));
                }
                const __m256i pl = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, ya), _mm256_shuffle_epi8(sc[r], ml));
                const __m256i ph = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, yh), _mm256_shuffle_epi8(sc[r], mh));
                isum[r] = _mm256_add_epi32(isum[r], _mm256_add_epi32(pl, ph));
                QGK_KEEP(isum[r]);
            }
        }
        const __m256i bsums = qu_load256(yb->bsums);
        const __m256 dy = _mm256_set1_ps(yb->d);
        for (int r = 0; r < R; r++) {
            const uint8_t * scb = k == QGK_Q4_K ? ((const block_q4_K *) xb[r])->scales : ((const block_q5_K *) xb[r])->scales;
            const __m256i mn = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(qgk_scales(scb), dup));
            const __m256i mins = _mm256_madd_epi16(mn, bsums);
            acc[r] = qgk_acc_dmin(acc[r], xb[r], isum[r], mins, dy); // d, dmin first in the block
        }
    }
    for (int r = 0; r < R; r++) {
        out[r] = qu_hsum_ps(acc[r]);
    }
}

// Q2_K / Q3_K: level j (0..3) of a qs byte taken in place by one mask, 0x03, 0x0C, 0x30 (j = 0, 1,
// 2: the level times 1, 4, 16), j = 3 by a shift of 2 and the mask 0x30 (times 16): the levels of
// chunk j carry the factor QGK_LF(j), their scales 16 / QGK_LF(j), every product 16 level scale act.
#define QGK_LF(j) ((j) == 0 ? 1 : (j) == 1 ? 4 : 16)

QGK_INLINE __m256i qgk_level_x(__m256i q, int j) {
    const char mask = (char) (j == 0 ? 0x03 : j == 1 ? 0x0C : 0x30);
    return _mm256_and_si256(j == 3 ? _mm256_srli_epi16(q, 2) : q, _mm256_set1_epi8(mask));
}

// one row's 8 partial sums x and 8 partial mins m, interleaved and halved: [x0+x2, m0+m2, x1+x3,
// m1+m3 | x4+x6, ...] (Q2_K)
QGK_INLINE __m256i qgk_sums_xm(__m256i x, __m256i m) {
    return _mm256_add_epi32(_mm256_unpacklo_epi32(x, m), _mm256_unpackhi_epi32(x, m));
}

// four rows' qgk_sums_xm to their whole sums [x0 m0 x1 m1 | x2 m2 x3 m3] (x and m of row r)
QGK_INLINE __m256i qgk_sums_4rows(const __m256i xm[4]) {
    const __m256i e01 = _mm256_add_epi32(_mm256_unpacklo_epi64(xm[0], xm[1]), _mm256_unpackhi_epi64(xm[0], xm[1]));
    const __m256i e23 = _mm256_add_epi32(_mm256_unpacklo_epi64(xm[2], xm[3]), _mm256_unpackhi_epi64(xm[2], xm[3]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(e01, e23, 0x20), _mm256_permute2x128_si256(e01, e23, 0x31));
}

// Q2_K: R rows against y. Half n (qs bytes 32n ..) and level j hold 32 levels meeting activation
// bytes 128n + 32j ..; their first 16 take scale byte 8n + 2j, the others 8n + 2j + 1 (low nibble:
// scale, high nibble: min, the min of each 16 meeting its Q8_K bsum). The levels carry QGK_LF(j)
// (no shift for j < 3), the scales 16 / QGK_LF(j): one 16-bit multiply of the scale bytes by
// 16, 4, 1, 1 per pair of bytes (no carry: 15 x 16 < 256) once per super-block and row; the mins
// are taken as 16 min (the high nibble in place), so the sums carry 16, taken out on the floats.
// The scale of a maddubs result's two 128-bit lanes comes from one byte shuffle of the 16 scales
// (zero high bytes). The rows run inside the loop over the 32-level chunks: each activation chunk
// and scale shuffle mask is loaded once for the R rows.
QGK_INLINE void qgk_rows_q2(int R, int nb, const char * x, size_t stride, const block_q8_K * y, float * out) {
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m128i f16 = _mm_setr_epi16(16, 4, 1, 1, 16, 4, 1, 1);
    const __m256 dys = _mm256_setr_ps(0.0625f, -0.0625f, 0.0625f, -0.0625f, 0.0625f, -0.0625f, 0.0625f, -0.0625f);
    __m256 acc = _mm256_setzero_ps(); // [row 0 sum, row 0 mins, row 1 ..., row 3 mins], see qgk_sums_4rows
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb = y + i;
        const block_q2_K * xb[QGK_STREAMS];
        __m256i sc[QGK_STREAMS], isum[QGK_STREAMS];
        for (int r = 0; r < R; r++) {
            xb[r] = (const block_q2_K *)(const void *) (x + (size_t) r*stride) + i;
            const __m128i scm = _mm_loadu_si128((const __m128i *)(const void *) xb[r]->scales);
            sc[r] = _mm256_broadcastsi128_si256(_mm_mullo_epi16(_mm_and_si128(scm, m4), f16));
            isum[r] = _mm256_setzero_si256();
        }
#pragma GCC unroll 2
        for (int n = 0; n < 2; n++) {
#pragma GCC unroll 4
            for (int j = 0; j < 4; j++) {
                const int is = 8*n + 2*j;
                __m256i ya = qu_load256(yb->qs + 128*n + 32*j);
                __m256i mj = _mm256_setr_epi8(
                        is, -1, is, -1, is, -1, is, -1, is, -1, is, -1, is, -1, is, -1,
                        is + 1, -1, is + 1, -1, is + 1, -1, is + 1, -1, is + 1, -1, is + 1, -1, is + 1, -1, is + 1, -1);
                QGK_KEEP(ya);
                QGK_KEEP(mj);
                for (int r = 0; r < R; r++) {
                    const __m256i u = qgk_level_x(qu_load256(xb[r]->qs + 32*n), j);
                    const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(u, ya), _mm256_shuffle_epi8(sc[r], mj));
                    isum[r] = _mm256_add_epi32(isum[r], p);
                    QGK_KEEP(isum[r]);
                }
            }
        }
        const __m256i bsums = qu_load256(yb->bsums);
        __m256i xm[QGK_STREAMS];
        uint32_t dm[QGK_STREAMS] = { 0 };
        for (int r = 0; r < R; r++) {
            const __m128i scm = _mm_loadu_si128((const __m128i *)(const void *) xb[r]->scales);
            const __m256i mn = _mm256_cvtepu8_epi16(_mm_andnot_si128(m4, scm)); // 16 min
            xm[r] = qgk_sums_xm(isum[r], _mm256_madd_epi16(mn, bsums));
            memcpy(&dm[r], &xb[r]->d, sizeof(dm[r])); // d, dmin last in the block
        }
        for (int r = R; r < QGK_STREAMS; r++) {
            xm[r] = _mm256_setzero_si256();
        }
        // [d0 dmin0 d1 dmin1 | d2 dmin2 d3 dmin3] times dy / 16 and the signs of the sums
        const __m256 dd = _mm256_cvtph_ps(_mm_setr_epi32((int) dm[0], (int) dm[1], (int) dm[2], (int) dm[3]));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(qgk_sums_4rows(xm)), _mm256_mul_ps(dd, _mm256_mul_ps(dys, _mm256_set1_ps(yb->d))), acc);
    }
    float a[8];
    _mm256_storeu_ps(a, acc);
    for (int r = 0; r < R; r++) {
        out[r] = a[2*r] + a[2*r + 1];
    }
}

// Q3_K: R rows against y. Levels v = low2 + 4*hbit - 4 are taken as u = low2 | hbit << 2 (0..7),
// the -4 being -4 * sum_k sc_k * bsum_k, one madd of the 16 signed scales with Q8_K's bsums. Half n
// and level j as Q2_K (activation bytes 128n + 32j .., scales 8n + 2j and + 1 for the two 16s), the
// low two bits in place times QGK_LF(j) (qgk_level_x), the scales times 16 / QGK_LF(j) (one 16-bit
// multiply per super-block and row), so the sums carry 16, taken out on the floats; u times 16 is
// at most 112, so a maddubs pair stays below 2^15. The high bit is bit 4n + j of the hmask bytes,
// moved to bit 2 + log2(QGK_LF(j)) by a 16-bit shift of hmask shared by the chunks that need the
// same one: n = 0 shifts left 2, 3 (j = 1, 3), 4; n = 1 right 2, 1 (j = 1, 3), and none (bits
// crossing a byte land outside the mask). Scale k (6 bits, -32): low nibble of byte k (k < 8) or
// high nibble of byte k - 8, bits 2(k/4) .. of byte 8 + k%4.
QGK_INLINE __m256i qgk_q3_level(__m256i q, __m256i hs, int j) {
    const char hbit = (char) (j == 0 ? 0x04 : j == 1 ? 0x10 : 0x40);
    return _mm256_or_si256(qgk_level_x(q, j), _mm256_and_si256(hs, _mm256_set1_epi8(hbit)));
}

QGK_INLINE void qgk_rows_q3(int R, int nb, const char * x, size_t stride, const block_q8_K * y, float * out) {
    const __m128i m4 = _mm_set1_epi8(0x0F);
    const __m256i f16 = _mm256_setr_epi16(16, 16, 4, 4, 1, 1, 1, 1, 16, 16, 4, 4, 1, 1, 1, 1);
    __m256 acc[QGK_STREAMS];
    for (int r = 0; r < R; r++) {
        acc[r] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb = y + i;
        const __m256i bsums = qu_load256(yb->bsums);
        const __m256 dy = _mm256_set1_ps(yb->d);
        for (int r = 0; r < R; r++) {
            const block_q3_K * xb = (const block_q3_K *)(const void *) (x + (size_t) r*stride) + i;
            const __m128i l8 = _mm_loadl_epi64((const __m128i *)(const void *) xb->scales);
            const __m128i lo = _mm_unpacklo_epi64(_mm_and_si128(l8, m4), _mm_and_si128(_mm_srli_epi16(l8, 4), m4));
            uint32_t h4;
            memcpy(&h4, xb->scales + 8, sizeof(h4));
            const __m128i hi = _mm_and_si128(_mm_srlv_epi32(_mm_set1_epi32((int) h4), _mm_setr_epi32(0, 2, 4, 6)),
                                             _mm_set1_epi8(3));
            const __m128i sc8 = _mm_sub_epi8(_mm_or_si128(lo, _mm_slli_epi16(hi, 4)), _mm_set1_epi8(32));
            const __m256i sc16 = _mm256_cvtepi8_epi16(sc8);
            const __m256i scf = _mm256_mullo_epi16(sc16, f16);
            const __m256i sa = _mm256_permute2x128_si256(scf, scf, 0x00); // scales 0..7 in both lanes
            const __m256i sb = _mm256_permute2x128_si256(scf, scf, 0x11); // scales 8..15
            const __m256i hm = qu_load256(xb->hmask);
            __m256i isum = _mm256_setzero_si256();
#pragma GCC unroll 2
            for (int n = 0; n < 2; n++) {
                const __m256i q = qu_load256(xb->qs + 32*n);
                // hmask shifted for j = 0, j = 1 and 3, j = 2
                const __m256i h0 = n == 0 ? _mm256_slli_epi16(hm, 2) : _mm256_srli_epi16(hm, 2);
                const __m256i h13 = n == 0 ? _mm256_slli_epi16(hm, 3) : _mm256_srli_epi16(hm, 1);
                const __m256i h2 = n == 0 ? _mm256_slli_epi16(hm, 4) : hm;
#pragma GCC unroll 4
                for (int j = 0; j < 4; j++) {
                    const __m256i u = qgk_q3_level(q, j == 0 ? h0 : j == 2 ? h2 : h13, j);
                    const int w = 2*j; // word of the lane's scale in sa (n = 0) or sb (n = 1)
                    const __m256i sj = _mm256_shuffle_epi8(n == 0 ? sa : sb, _mm256_setr_epi8(
                            2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1,
                            2*w, 2*w + 1, 2*w, 2*w + 1, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3,
                            2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3));
                    const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(u, qu_load256(yb->qs + 128*n + 32*j)), sj);
                    isum = _mm256_add_epi32(isum, p);
                }
            }
            isum = _mm256_sub_epi32(isum, _mm256_slli_epi32(_mm256_madd_epi16(sc16, bsums), 6)); // 16 x 4
            // float(16 x) = 16 float(x), and d / 16 is exact (an fp16 value over 16 is a normal float)
            const float d = _cvtsh_ss(xb->d) * 0.0625f;
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(_mm256_set1_ps(d), dy), acc[r]);
        }
    }
    for (int r = 0; r < R; r++) {
        out[r] = qu_hsum_ps(acc[r]);
    }
}

// IQ4_XS: R rows against y. Sub-blocks 2m and 2m + 1 are the 32 qs bytes 32m ..: low nibbles
// elements 0..15 of each, high nibbles 16..31, so the activations of the pair are regrouped once per
// super-block (shared by the R rows) into [0..15 of both | 16..31 of both], with their absolute
// values; the levels are looked up with a byte shuffle, given the activations' signs and multiplied
// by |a| (one vpsignb per 32 levels; |a| <= 128 unsigned, |v| <= 127: no saturation). Scale j:
// nibble j of scales_l with bits 2j, 2j + 1 of scales_h above it, minus 32 (bits of scales_h
// moved to the top of a word by a multiply, then down).
QGK_INLINE void qgk_rows_iq4xs(int R, int nb, const char * x, size_t stride, const block_q8_K * y, float * out) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m128i v128 = _mm_loadu_si128((const __m128i *)(const void *) ggml_kvalues_iq4nl);
    const __m256i kv = _mm256_broadcastsi128_si256(v128);
    __m256 acc[QGK_STREAMS];
    for (int r = 0; r < R; r++) {
        acc[r] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb = y + i;
        const __m256 dy = _mm256_set1_ps(yb->d);
        __m256i al[4], ah[4], ul[4], uh[4];
        for (int m = 0; m < 4; m++) {
            const __m256i a0 = qu_load256(yb->qs + 64*m), a1 = qu_load256(yb->qs + 64*m + 32);
            al[m] = _mm256_permute2x128_si256(a0, a1, 0x20);
            ah[m] = _mm256_permute2x128_si256(a0, a1, 0x31);
            ul[m] = _mm256_abs_epi8(al[m]);
            uh[m] = _mm256_abs_epi8(ah[m]);
        }
        for (int r = 0; r < R; r++) {
            const block_iq4_xs * xb = (const block_iq4_xs *)(const void *) (x + (size_t) r*stride) + i;
            const __m128i v = _mm_loadl_epi64((const __m128i *)(const void *) xb); // d, scales_h, scales_l
            const __m128i l4 = _mm_srli_si128(v, 4);
            const __m128i m4x = _mm_set1_epi8(0x0F);
            const __m128i lo = _mm_unpacklo_epi8(_mm_and_si128(l4, m4x), _mm_and_si128(_mm_srli_epi16(l4, 4), m4x));
            const __m128i hw = _mm_shuffle_epi8(v, _mm_setr_epi8(2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3));
            const __m128i hi = _mm_srli_epi16(_mm_mullo_epi16(hw, _mm_setr_epi16(1 << 14, 1 << 12, 1 << 10, 1 << 8,
                                                                                  1 << 6, 1 << 4, 1 << 2, 1)), 14);
            const __m128i sc = _mm_sub_epi16(_mm_or_si128(_mm_cvtepu8_epi16(lo), _mm_slli_epi16(hi, 4)), _mm_set1_epi16(32));
            const __m256i scb = _mm256_broadcastsi128_si256(sc);
            __m256i isum = _mm256_setzero_si256();
#pragma GCC unroll 4
            for (int m = 0; m < 4; m++) {
                const __m256i q = qu_load256(xb->qs + 32*m);
                const __m256i vl = _mm256_shuffle_epi8(kv, _mm256_and_si256(q, m4));
                const __m256i vh = _mm256_shuffle_epi8(kv, _mm256_and_si256(_mm256_srli_epi16(q, 4), m4));
                const __m256i sm = _mm256_shuffle_epi8(scb, _mm256_setr_epi8(
                        4*m, 4*m + 1, 4*m, 4*m + 1, 4*m, 4*m + 1, 4*m, 4*m + 1, 4*m, 4*m + 1, 4*m, 4*m + 1, 4*m, 4*m + 1,
                        4*m, 4*m + 1, 4*m + 2, 4*m + 3, 4*m + 2, 4*m + 3, 4*m + 2, 4*m + 3, 4*m + 2, 4*m + 3, 4*m + 2,
                        4*m + 3, 4*m + 2, 4*m + 3, 4*m + 2, 4*m + 3, 4*m + 2, 4*m + 3));
                const __m256i pl = _mm256_maddubs_epi16(ul[m], _mm256_sign_epi8(vl, al[m]));
                const __m256i ph = _mm256_maddubs_epi16(uh[m], _mm256_sign_epi8(vh, ah[m]));
                isum = _mm256_add_epi32(isum, _mm256_add_epi32(_mm256_madd_epi16(pl, sm), _mm256_madd_epi16(ph, sm)));
            }
            const __m256 dv = _mm256_broadcastss_ps(_mm_cvtph_ps(v));
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(dv, dy), acc[r]);
        }
    }
    for (int r = 0; r < R; r++) {
        out[r] = qu_hsum_ps(acc[r]);
    }
}

// Q6_K: R rows against y. Half h and quarter t (32 levels meeting activation bytes 128h + 32t ..):
// low nibbles of ql bytes 64h + 32(t & 1) .. (high nibbles for t >= 2) and bits 2t, 2t + 1 of qh
// bytes 32h .., moved to bits 4, 5 by one 16-bit shift (bits crossing a byte land outside the
// 0x30 mask); their two 16s take scales 8h + 2t and + 1. Levels are unsigned (0..63); the -32 is
// -32 * sum_k sc_k * bsum_k, one madd of the 16 signed scales with Q8_K's bsums.
QGK_INLINE void qgk_rows_q6(int R, int nb, const char * x, size_t stride, const block_q8_K * y, float * out) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m6 = _mm256_set1_epi8(0x30);
    __m256 acc[QGK_STREAMS];
    for (int r = 0; r < R; r++) {
        acc[r] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        const block_q8_K * yb = y + i;
        const __m256i bsums = qu_load256(yb->bsums);
        const __m256 dy = _mm256_set1_ps(yb->d);
        for (int r = 0; r < R; r++) {
            const block_q6_K * xb = (const block_q6_K *)(const void *) (x + (size_t) r*stride) + i;
            const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *) xb->scales));
            const __m256i sa = _mm256_permute2x128_si256(sc16, sc16, 0x00); // scales 0..7 in both lanes
            const __m256i sb = _mm256_permute2x128_si256(sc16, sc16, 0x11); // scales 8..15
            __m256i isum = _mm256_setzero_si256();
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __m256i q0 = qu_load256(xb->ql + 64*h);
                const __m256i q1 = qu_load256(xb->ql + 64*h + 32);
                const __m256i qh = qu_load256(xb->qh + 32*h);
#pragma GCC unroll 4
                for (int t = 0; t < 4; t++) {
                    const __m256i ql = t & 1 ? q1 : q0;
                    const __m256i lo = _mm256_and_si256(t >= 2 ? _mm256_srli_epi16(ql, 4) : ql, m4);
                    const __m256i hb = t == 0 ? _mm256_slli_epi16(qh, 4) : t == 1 ? _mm256_slli_epi16(qh, 2) :
                                       t == 2 ? qh : _mm256_srli_epi16(qh, 2);
                    const __m256i u = _mm256_or_si256(lo, _mm256_and_si256(hb, m6));
                    const int w = 2*t;
                    const __m256i sj = _mm256_shuffle_epi8(h == 0 ? sa : sb, _mm256_setr_epi8(
                            2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1, 2*w, 2*w + 1,
                            2*w, 2*w + 1, 2*w, 2*w + 1, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3,
                            2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3, 2*w + 2, 2*w + 3));
                    const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(u, qu_load256(yb->qs + 128*h + 32*t)), sj);
                    isum = _mm256_add_epi32(isum, p);
                }
            }
            isum = _mm256_sub_epi32(isum, _mm256_slli_epi32(_mm256_madd_epi16(sc16, bsums), 5));
            const float d = _cvtsh_ss(xb->d);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(_mm256_set1_ps(d), dy), acc[r]);
        }
    }
    for (int r = 0; r < R; r++) {
        out[r] = qu_hsum_ps(acc[r]);
    }
}

QGK_INLINE void qgk_any_rows(enum qgk_kind k, int R, int nb, const char * x, size_t stride, const block_q8_K * y,
        float * out) {
    if (k == QGK_Q2_K) {
        qgk_rows_q2(R, nb, x, stride, y, out);
    } else if (k == QGK_Q3_K) {
        qgk_rows_q3(R, nb, x, stride, y, out);
    } else if (k == QGK_Q6_K) {
        qgk_rows_q6(R, nb, x, stride, y, out);
    } else if (k == QGK_IQ4_XS) {
        qgk_rows_iq4xs(R, nb, x, stride, y, out);
    } else {
        qgk_rows(k, R, nb, x, stride, y, out);
    }
}

// rows i, i + q, i + 2q, i + 3q together (q = nr/4), then the last nr % 4 rows one by one
QGK_INLINE void qgk_gemv(enum qgk_kind k, int n, float * s, const char * x, size_t bx, const void * vy, int nr) {
    const block_q8_K * y = vy;
    const int nb = n/QK_K;
    const int q = nr/QGK_STREAMS;
    for (int i = 0; i < q; i++) {
        float t[QGK_STREAMS];
        qgk_any_rows(k, QGK_STREAMS, nb, x + (size_t) i*bx, (size_t) q*bx, y, t);
        for (int r = 0; r < QGK_STREAMS; r++) {
            s[i + r*q] = t[r];
        }
    }
    for (int r = QGK_STREAMS*q; r < nr; r++) {
        qgk_any_rows(k, 1, nb, x + (size_t) r*bx, bx, y, s + r);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q4_K_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr) {
    qgk_gemv(QGK_Q4_K, n, s, x, bx, y, nr);
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q5_K_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr) {
    qgk_gemv(QGK_Q5_K, n, s, x, bx, y, nr);
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q2_K_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr) {
    qgk_gemv(QGK_Q2_K, n, s, x, bx, y, nr);
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q3_K_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr) {
    qgk_gemv(QGK_Q3_K, n, s, x, bx, y, nr);
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_iq4_xs_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr) {
    qgk_gemv(QGK_IQ4_XS, n, s, x, bx, y, nr);
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q6_K_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr) {
    qgk_gemv(QGK_Q6_K, n, s, x, bx, y, nr);
}

#else

typedef int ggml_avx2_quant_gemv_k_unused;

#endif // GGML_CPU_X86
