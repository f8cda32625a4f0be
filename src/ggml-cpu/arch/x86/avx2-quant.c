// AVX2 quantized dot products of the 32-element formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL)
// against their Q8_0 / Q8_1 activations (the quant slots of the AVX2 table, cpu-kernels.h).
//
// Per block the 32 weight levels are unpacked into one vector of int8; the integer dot with the
// activation levels is _mm256_maddubs_epi16 of |w| with sign(w)*a (a pair of products stays in
// int16: |w| <= 128 and |a| <= 127, as the Q8 quantizers never write -128: 2*128*127 = 32512),
// widened with _mm256_madd_epi16 and scaled by d_w*d_a in float. Same sums as the portable
// kernels; only the float accumulation order differs.

#include "avx2-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

GGML_TARGET_AVX2 static inline float q_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// 8 int32 sums of w[i]*a[i] over 32 signed int8 pairs, as floats
GGML_TARGET_AVX2 static inline __m256 q_dot_i8(__m256i w, __m256i a) {
    const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w));
    return _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, _mm256_set1_epi16(1)));
}

// the same for unsigned w (0 .. 31)
GGML_TARGET_AVX2 static inline __m256 q_dot_u8(__m256i w, __m256i a) {
    const __m256i p16 = _mm256_maddubs_epi16(w, a);
    return _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, _mm256_set1_epi16(1)));
}

// 16 packed bytes to 32 nibbles: element j < 16 is the low nibble of byte j, j >= 16 the high one
GGML_TARGET_AVX2 static inline __m256i q_nibbles(const uint8_t * qs) {
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *) qs);
    const __m128i lo = _mm_and_si128(b, _mm_set1_epi8(0x0F));
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
    return _mm256_set_m128i(hi, lo);
}

// the 32 bits of qh as 32 bytes: 0x10 where bit j is set, 0 elsewhere
GGML_TARGET_AVX2 static inline __m256i q_high_bits(const uint8_t * qh4) {
    uint32_t qh;
    memcpy(&qh, qh4, sizeof(qh));
    const __m256i rep = _mm256_shuffle_epi8(_mm256_set1_epi32((int) qh),
        _mm256_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll, 0x0101010101010101ll, 0));
    const __m256i bit = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(rep, bit), bit);
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

GGML_TARGET_AVX2 static inline __m256i q_load32(const int8_t * p) {
    return _mm256_loadu_si256((const __m256i *)(const void *) p);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q4_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q4_0 * x = vx;
    const block_q8_0 * y = vy;
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK8_0; i++) {
        const __m256i w = _mm256_sub_epi8(q_nibbles(x[i].qs), _mm256_set1_epi8(8));
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*q_fp16_avx2(y[i].d));
        acc = _mm256_fmadd_ps(d, q_dot_i8(w, q_load32(y[i].qs)), acc);
    }
    *s = q_hsum(acc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q4_1_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q4_1 * x = vx;
    const block_q8_1 * y = vy;
    __m256 acc = _mm256_setzero_ps();
    float  mins = 0.0f;
    for (int i = 0; i < n/QK8_1; i++) {
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*q_fp16_avx2(y[i].d));
        acc = _mm256_fmadd_ps(d, q_dot_u8(q_nibbles(x[i].qs), q_load32(y[i].qs)), acc);
        mins += q_fp16_avx2(x[i].m)*q_fp16_avx2(y[i].s);
    }
    *s = q_hsum(acc) + mins;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q5_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q5_0 * x = vx;
    const block_q8_0 * y = vy;
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK8_0; i++) {
        const __m256i w = _mm256_sub_epi8(_mm256_or_si256(q_nibbles(x[i].qs), q_high_bits(x[i].qh)), _mm256_set1_epi8(16));
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*q_fp16_avx2(y[i].d));
        acc = _mm256_fmadd_ps(d, q_dot_i8(w, q_load32(y[i].qs)), acc);
    }
    *s = q_hsum(acc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q5_1_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q5_1 * x = vx;
    const block_q8_1 * y = vy;
    __m256 acc = _mm256_setzero_ps();
    float  mins = 0.0f;
    for (int i = 0; i < n/QK8_1; i++) {
        const __m256i w = _mm256_or_si256(q_nibbles(x[i].qs), q_high_bits(x[i].qh));
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*q_fp16_avx2(y[i].d));
        acc = _mm256_fmadd_ps(d, q_dot_u8(w, q_load32(y[i].qs)), acc);
        mins += q_fp16_avx2(x[i].m)*q_fp16_avx2(y[i].s);
    }
    *s = q_hsum(acc) + mins;
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q8_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q8_0 * x = vx;
    const block_q8_0 * y = vy;
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK8_0; i++) {
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*q_fp16_avx2(y[i].d));
        acc = _mm256_fmadd_ps(d, q_dot_i8(q_load32(x[i].qs), q_load32(y[i].qs)), acc);
    }
    *s = q_hsum(acc);
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_iq4_nl_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq4_nl * x = vx;
    const block_q8_0 * y = vy;
    const __m128i  v128 = _mm_loadu_si128((const __m128i *)(const void *) ggml_kvalues_iq4nl);
    const __m256i  vals = _mm256_set_m128i(v128, v128);
    __m256 acc = _mm256_setzero_ps();
    for (int i = 0; i < n/QK8_0; i++) {
        const __m256i w = _mm256_shuffle_epi8(vals, q_nibbles(x[i].qs));
        const __m256 d = _mm256_set1_ps(q_fp16_avx2(x[i].d)*q_fp16_avx2(y[i].d));
        acc = _mm256_fmadd_ps(d, q_dot_i8(w, q_load32(y[i].qs)), acc);
    }
    *s = q_hsum(acc);
}

// The activation quantizers (Q8_0, Q8_1, Q8_K) are in avx2-quant-q8.c.

#else

typedef int ggml_avx2_quant_unused;

#endif // GGML_CPU_X86
