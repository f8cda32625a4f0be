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

// the 16 signed scales (-32 .. 31) of a Q3_K block: low 4 bits from bytes 0..7, high 2 bits from 8..11
static inline void q3k_scales(const uint8_t * s, int * out) {
    for (int j = 0; j < 16; j++) {
        const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
        const int hi = (s[8 + j%4] >> (2*(j/4))) & 3;
        out[j] = (lo | (hi << 4)) - 32;
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q3_K_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q3_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m3 = _mm256_set1_epi8(3);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int sc[16];
        q3k_scales(x[i].scales, sc);
        const __m256i hm = qu_load256(x[i].hmask);
        const int8_t * a = y[i].qs;
        __m256i acc = _mm256_setzero_si256();
        int offs = 0;
        for (int g = 0; g < 16; g++) {
            offs += sc[g]*y[i].bsums[g];
        }
        // bytes 32h + l of qs, bits 2j, with hmask bit 4h + j: element 128h + 32j + l (group 8h + 2j + l/16)
        for (int h = 0; h < 2; h++) {
            const __m256i q = qu_load256(x[i].qs + 32*h);
            for (int j = 0; j < 4; j++, a += 32) {
                const int b = 4*h + j;
                const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q, 2*j), m3);
                const __m256i hb = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hm, b), _mm256_set1_epi8(1)), 2);
                const int g = 8*h + 2*j;
                acc = _mm256_add_epi32(acc, qu_dot_scaled(_mm256_or_si256(lo, hb), qu_load256(a), sc[g], sc[g + 1]));
            }
        }
        sum += q_fp16_avx2(x[i].d)*y[i].d*(float) (qu_hsum_i32(acc) - 4*offs);
    }
    *s = sum;
}

#else

typedef int ggml_avx2_quant_q3k_unused;

#endif // GGML_CPU_X86
