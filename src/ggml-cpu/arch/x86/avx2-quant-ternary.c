// AVX2 dot products of the ternary formats TQ1_0 and TQ2_0 against Q8_K activations (the quant
// slots of the AVX2 table, cpu-kernels.h).
//
// Both take the trits as unsigned digits t in {0, 1, 2} (value t - 1): the dot is
// sum t*a - sum a, the first with maddubs, the second from Q8_K's bsums.
// TQ1_0 keeps five trits per byte as a fixed-point fraction of 3^5: the n-th digit is the top
// "third" of (q * 3^n mod 256), i.e. (3*s) >> 8 for s = q*3^n mod 256, which is 0, 1 or 2 as
// s < 86, 86 <= s < 171, s >= 171. The byte products are byte additions (s*3 = s + s + s, mod
// 256), the digit is two unsigned compares.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

// s*3 modulo 256 in every byte
GGML_TARGET_AVX2 static inline __m256i tq_times3(__m256i s) {
    return _mm256_add_epi8(s, _mm256_add_epi8(s, s));
}

// the top base-3 digit (0, 1, 2) of every byte s
GGML_TARGET_AVX2 static inline __m256i tq_digit(__m256i s) {
    const __m256i ge86  = _mm256_cmpeq_epi8(_mm256_max_epu8(s, _mm256_set1_epi8(86)), s);
    const __m256i ge171 = _mm256_cmpeq_epi8(_mm256_max_epu8(s, _mm256_set1_epi8((char) 171)), s);
    return _mm256_sub_epi8(_mm256_setzero_si256(), _mm256_add_epi8(ge86, ge171));
}

// 8 int32 partial sums of t*a - a over a block: the digits' int16 pair sums minus Q8_K's bsums
GGML_TARGET_AVX2 static inline __m256 tq_block_sum(__m256i p16, const block_q8_K * y) {
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i d = _mm256_sub_epi32(_mm256_madd_epi16(p16, ones), _mm256_madd_epi16(qu_load256(y->bsums), ones));
    return _mm256_cvtepi32_ps(d);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_tq1_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_tq1_0 * x = vx;
    const block_q8_K * y = vy;
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        __m256i p16 = _mm256_setzero_si256(); // int16 pair sums: at most 8 vectors of 2*2*127 each
        // bytes 0..31: digit n is element 32*n + m
        __m256i q = qu_load256(x[i].qs);
        for (int d = 0; d < 5; d++, a += 32) {
            p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(tq_digit(q), qu_load256(a)));
            q = tq_times3(q);
        }
        // bytes 32..47: digit n is element 160 + 16*n + m; qh 0..3: digit n is element 240 + 4*n + j
        const __m128i q16 = _mm_loadu_si128((const __m128i *)(const void *) (x[i].qs + 32));
        const __m256i q01 = _mm256_set_m128i(_mm256_castsi256_si128(tq_times3(_mm256_castsi128_si256(q16))), q16);
        const __m256i q23 = tq_times3(tq_times3(q01));
        const __m256i q4  = tq_times3(tq_times3(q23));
        uint32_t qh;
        memcpy(&qh, x[i].qh, sizeof(qh));
        const __m128i h0 = _mm_set1_epi32((int) qh);
        const __m128i h1 = _mm256_castsi256_si128(tq_times3(_mm256_castsi128_si256(h0)));
        const __m128i h2 = _mm256_castsi256_si128(tq_times3(_mm256_castsi128_si256(h1)));
        const __m128i h3 = _mm256_castsi256_si128(tq_times3(_mm256_castsi128_si256(h2)));
        const __m128i hh = _mm_blend_epi32(_mm_blend_epi32(h0, h1, 0x2), _mm_blend_epi32(h2, h3, 0x8), 0xC);
        const __m256i qt = _mm256_set_m128i(hh, _mm256_castsi256_si128(q4));
        p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(tq_digit(q01), qu_load256(a)));
        p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(tq_digit(q23), qu_load256(a + 32)));
        p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(tq_digit(qt), qu_load256(a + 64)));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(q_fp16_avx2(x[i].d)*y[i].d), tq_block_sum(p16, &y[i]), acc);
    }
    *s = qu_hsum_ps(acc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_tq2_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_tq2_0 * x = vx;
    const block_q8_K * y = vy;
    const __m256i m3 = _mm256_set1_epi8(3);
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        __m256i p16 = _mm256_setzero_si256();
        // byte 32*h + m, bits 2*n: element 128*h + 32*n + m
        for (int h = 0; h < 2; h++) {
            const __m256i q = qu_load256(x[i].qs + 32*h);
            for (int d = 0; d < 4; d++, a += 32) {
                const __m256i t = _mm256_and_si256(_mm256_srli_epi16(q, 2*d), m3);
                p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(t, qu_load256(a)));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(q_fp16_avx2(x[i].d)*y[i].d), tq_block_sum(p16, &y[i]), acc);
    }
    *s = qu_hsum_ps(acc);
}

#else

typedef int ggml_avx2_quant_ternary_unused;

#endif // GGML_CPU_X86
