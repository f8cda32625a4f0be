// AVX2 dot product of Q3_K against Q8_K activations (the Q3_K quant slot of the AVX2 table,
// cpu-kernels.h; the other K-quants are in avx2-quant-k.c).
//
// A Q3_K level is (2 low bits) + 4*(hmask bit) - 4 with a 6-bit signed scale per 16 elements:
//   d*dy * sum_g sc_g * (u_g . a_g - 4 * sum of a over group g),  u = low bits | hmask bit << 2
// u (0..7) goes to maddubs' unsigned side, sc_g is applied with madd_epi16, and the activation
// sums come from Q8_K's bsums, as the Q6_K kernel does.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

// the 16 signed scales (-32 .. 31) of a Q3_K block as int8: low 4 bits from bytes 0..7 (scale j < 8
// the low nibble of byte j, j >= 8 the high nibble of byte j - 8), high 2 bits from byte 8 + j%4,
// bits 2*(j/4); four scales per 32-bit word
GGML_TARGET_AVX2 static inline __m128i q3k_scales8(const uint8_t * s) {
    uint32_t w[3];
    memcpy(w, s, sizeof(w));
    const uint32_t m4 = 0x0F0F0F0Fu, m2 = 0x30303030u;
    const __m128i u = _mm_set_epi32((int) (((w[1] >> 4) & m4) | ((w[2] >> 2) & m2)), (int) (((w[0] >> 4) & m4) | (w[2] & m2)),
                                    (int) ((w[1] & m4) | ((w[2] << 2) & m2)), (int) ((w[0] & m4) | ((w[2] << 4) & m2)));
    return _mm_sub_epi8(u, _mm_set1_epi8(32));
}

// bit b of every byte of hm, moved to bit 2 (4 or 0); the 16-bit shifts keep bit 2 within its byte
GGML_TARGET_AVX2 static inline __m256i q3k_high(__m256i hm, int b) {
    const __m256i v = b < 2 ? _mm256_slli_epi16(hm, 2 - b) : b > 2 ? _mm256_srli_epi16(hm, b - 2) : hm;
    return _mm256_and_si256(v, _mm256_set1_epi8(4));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q3_K_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q3_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m3 = _mm256_set1_epi8(3);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const __m256i sc16 = _mm256_cvtepi8_epi16(q3k_scales8(x[i].scales));
        // the -4 of every level: -4 * sum_g sc_g * (sum of a over group g), from the bsums
        __m256i acc = _mm256_slli_epi32(_mm256_madd_epi16(qu_load256(y[i].bsums), sc16), 2);
        acc = _mm256_sub_epi32(_mm256_setzero_si256(), acc);
        const __m256i hm = qu_load256(x[i].hmask);
        const int8_t * a = y[i].qs;
        // bytes 32h + l of qs, bits 2j, with hmask bit 4h + j: element 128h + 32j + l (group 8h + 2j + l/16)
        for (int h = 0; h < 2; h++) {
            // scales 8h .. 8h + 7 (int16) in both 128-bit halves, for in-lane shuffles
            const __m128i sch = h == 0 ? _mm256_castsi256_si128(sc16) : _mm256_extracti128_si256(sc16, 1);
            const __m256i scb = _mm256_broadcastsi128_si256(sch);
            const __m256i q = qu_load256(x[i].qs + 32*h);
            for (int j = 0; j < 4; j++, a += 32) {
                // int16 lanes of the low half: scale 2j, of the high half: scale 2j + 1 (bytes 4j .. 4j + 3)
                const __m256i ctl = _mm256_set_m128i(_mm_set1_epi16((short) (0x0100*(4*j + 3) + 4*j + 2)),
                                                     _mm_set1_epi16((short) (0x0100*(4*j + 1) + 4*j)));
                const __m256i u = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 2*j), m3), q3k_high(hm, 4*h + j));
                const __m256i p = _mm256_maddubs_epi16(u, qu_load256(a));
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, _mm256_shuffle_epi8(scb, ctl)));
            }
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) qu_hsum_i32(acc);
    }
    *s = sum;
}

#else

typedef int ggml_avx2_quant_q3k_unused;

#endif // GGML_CPU_X86
