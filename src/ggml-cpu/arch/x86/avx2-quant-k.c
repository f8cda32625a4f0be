// AVX2 dot products of the 256-blocks against Q8_K activations (Q4_K, Q5_K, Q6_K, IQ4_XS; the other
// types use the portable kernels for now). Integer sums per super-block as the family defines the formats:
//   Q4_K: d*dy * sum_j sc_j * (q_j . a_j)  -  dmin*dy * sum_j m_j * (sum of a over sub-block j)
//   Q5_K: as Q4_K with the 5th bit of each level from qh
//   Q6_K: d*dy * sum_g sc_g * (u_g . a_g - 32 * sum of a over group g), u = the unsigned 6-bit levels
//   IQ4_XS: d*dy * sum_j (ls_j - 32) * (v_j . a_j), v = the non-linear values of the 4-bit indices
// with the activation sums taken from Q8_K's bsums. The unsigned levels go to maddubs' unsigned
// side (at most 63*127*2 per int16 pair), the scales are applied with madd_epi16.

#include "avx2-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

GGML_TARGET_AVX2 static inline int qk_hsum_i32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

// the 6-bit scale and min of sub-block j of a Q4_K/Q5_K block
static inline void qk_scale_min(int j, const uint8_t * q, int * d, int * m) {
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q4_K_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q4_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int sc[8], mn[8];
        for (int j = 0; j < 8; j++) {
            qk_scale_min(j, x[i].scales, &sc[j], &mn[j]);
        }
        __m256i acc = _mm256_setzero_si256();
        int mins = 0;
        for (int p = 0; p < 4; p++) {
            const __m256i q  = _mm256_loadu_si256((const __m256i *)(const void *) (x[i].qs + 32*p));
            const __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *) (y[i].qs + 64*p));
            const __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *) (y[i].qs + 64*p + 32));
            const __m256i p0 = _mm256_maddubs_epi16(_mm256_and_si256(q, m4), a0);
            const __m256i p1 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), a1);
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p0, _mm256_set1_epi16((short) sc[2*p])));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p1, _mm256_set1_epi16((short) sc[2*p + 1])));
            mins += mn[2*p]*(y[i].bsums[4*p] + y[i].bsums[4*p + 1]) + mn[2*p + 1]*(y[i].bsums[4*p + 2] + y[i].bsums[4*p + 3]);
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qk_hsum_i32(acc) - q_fp16_avx2(x[i].dmin)*y[i].d*(float) mins;
    }
    *s = sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q6_K_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q6_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m3 = _mm256_set1_epi8(0x03);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const uint8_t * ql = x[i].ql;
        const uint8_t * qh = x[i].qh;
        const int8_t  * sc = x[i].scales;
        const int8_t  * a  = y[i].qs;
        __m256i acc = _mm256_setzero_si256();
        int offs = 0;
        for (int h = 0; h < 2; h++, ql += 64, qh += 32, sc += 8, a += 128) {
            const __m256i l0 = _mm256_loadu_si256((const __m256i *)(const void *) ql);
            const __m256i l1 = _mm256_loadu_si256((const __m256i *)(const void *) (ql + 32));
            const __m256i hb = _mm256_loadu_si256((const __m256i *)(const void *) qh);
            __m256i u[4];
            u[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(hb, m3), 4));
            u[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2), m3), 4));
            u[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 4), m3), 4));
            u[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                   _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 6), m3), 4));
            for (int r = 0; r < 4; r++) {
                const __m256i av = _mm256_loadu_si256((const __m256i *)(const void *) (a + 32*r));
                const __m256i p  = _mm256_maddubs_epi16(u[r], av);
                // int16 lanes 0..7 hold elements 0..15 (scale 2r), lanes 8..15 elements 16..31 (2r + 1)
                const __m256i scv = _mm256_set_m128i(_mm_set1_epi16(sc[2*r + 1]), _mm_set1_epi16(sc[2*r]));
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, scv));
                const int g = 8*h + 2*r;
                offs += sc[2*r]*y[i].bsums[g] + sc[2*r + 1]*y[i].bsums[g + 1];
            }
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) (qk_hsum_i32(acc) - 32*offs);
    }
    *s = sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q5_K_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q5_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m1 = _mm256_set1_epi8(0x01);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int sc[8], mn[8];
        for (int j = 0; j < 8; j++) {
            qk_scale_min(j, x[i].scales, &sc[j], &mn[j]);
        }
        const __m256i hb = _mm256_loadu_si256((const __m256i *)(const void *) x[i].qh);
        __m256i acc = _mm256_setzero_si256();
        int mins = 0;
        for (int p = 0; p < 4; p++) {
            const __m256i q  = _mm256_loadu_si256((const __m256i *)(const void *) (x[i].qs + 32*p));
            const __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *) (y[i].qs + 64*p));
            const __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *) (y[i].qs + 64*p + 32));
            // the 5th bit of element l of sub-block 2p is bit 2p of qh[l], of sub-block 2p + 1 bit 2p + 1
            const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2*p), m1), 4);
            const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2*p + 1), m1), 4);
            const __m256i u0 = _mm256_or_si256(_mm256_and_si256(q, m4), h0);
            const __m256i u1 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), h1);
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u0, a0), _mm256_set1_epi16((short) sc[2*p])));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u1, a1), _mm256_set1_epi16((short) sc[2*p + 1])));
            mins += mn[2*p]*(y[i].bsums[4*p] + y[i].bsums[4*p + 1]) + mn[2*p + 1]*(y[i].bsums[4*p + 2] + y[i].bsums[4*p + 3]);
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qk_hsum_i32(acc) - q_fp16_avx2(x[i].dmin)*y[i].d*(float) mins;
    }
    *s = sum;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq4_xs_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq4_xs * x = vx;
    const block_q8_K * y = vy;
    const __m128i v128 = _mm_loadu_si128((const __m128i *)(const void *) ggml_kvalues_iq4nl);
    const __m256i vals = _mm256_set_m128i(v128, v128);
    const __m128i m4   = _mm_set1_epi8(0x0F);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        __m256i acc = _mm256_setzero_si256();
        for (int ib = 0; ib < QK_K/32; ib++) {
            const int ls = ((x[i].scales_l[ib/2] >> (4*(ib%2))) & 0xF) | (((x[i].scales_h >> (2*ib)) & 3) << 4);
            const __m128i b  = _mm_loadu_si128((const __m128i *)(const void *) (x[i].qs + 16*ib));
            const __m256i nb = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(b, 4), m4), _mm_and_si128(b, m4));
            const __m256i w  = _mm256_shuffle_epi8(vals, nb);
            const __m256i a  = _mm256_loadu_si256((const __m256i *)(const void *) (y[i].qs + 32*ib));
            const __m256i p  = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, _mm256_set1_epi16((short) (ls - 32))));
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qk_hsum_i32(acc);
    }
    *s = sum;
}

#else

typedef int ggml_avx2_quant_k_unused;

#endif // GGML_CPU_X86
