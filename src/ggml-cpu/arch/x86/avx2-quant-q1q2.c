// AVX2 dot products of Q1_0 and Q2_0 against Q8_0 activations (the quant slots of the AVX2 table,
// cpu-kernels.h). Each 32-element Q8_0 block meets 4 bytes of Q1_0 signs or 8 bytes of Q2_0
// levels; its exact int32 sums are scaled by d_weight*d_activation in float.
//
// Q1_0: the 32 bits become +-1 bytes (qu_signs_pm1: -1 where set), so sign(a, that) is -a where
// the weight is +1 and the block sum is its negated sum.
// Q2_0: the 8 bytes hold element j in bits 2*(j%4) of byte j/4. A 64-bit word shifted right by
// 0, 2, 4 and 6 in the four 64-bit lanes puts element 4m+k in byte m of lane k (after & 3); a
// dword permute and a byte shuffle put them back in element order. The levels 0..3 multiply the
// activations unsigned, and the offset of 1 subtracts the activations' pair sums in int16.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

// int32 sums of 8 groups of (bit set ? a : -a) for one Q8_0 block
GGML_TARGET_AVX2 static inline __m256i q1_block_sums(const uint8_t * qs, const int8_t * a) {
    uint32_t bits;
    memcpy(&bits, qs, sizeof(bits));
    const __m256i neg = _mm256_sign_epi8(qu_load256(a), qu_signs_pm1(bits)); // -(w*a)
    const __m256i ones = _mm256_set1_epi8(1);
    return _mm256_madd_epi16(_mm256_maddubs_epi16(ones, neg), _mm256_set1_epi16(-1));
}

// the 32 levels 0..3 of 8 Q2_0 bytes as bytes in element order
GGML_TARGET_AVX2 static inline __m256i q2_levels(const uint8_t * qs) {
    int64_t w;
    memcpy(&w, qs, sizeof(w));
    const __m256i sh = _mm256_srlv_epi64(_mm256_set1_epi64x(w), _mm256_set_epi64x(6, 4, 2, 0));
    const __m256i lv = _mm256_and_si256(sh, _mm256_set1_epi8(3));
    // dwords: the low halves of the four lanes (elements 0..15), then the high halves (16..31)
    const __m256i pr = _mm256_permutevar8x32_epi32(lv, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                           0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm256_shuffle_epi8(pr, order);
}

// int32 sums of 8 groups of (level - 1)*a for one Q8_0 block
GGML_TARGET_AVX2 static inline __m256i q2_block_sums(const uint8_t * qs, const int8_t * a) {
    const __m256i av = qu_load256(a);
    const __m256i p = _mm256_maddubs_epi16(q2_levels(qs), av);           // pairs: |.| <= 2*3*128
    const __m256i o = _mm256_maddubs_epi16(_mm256_set1_epi8(1), av);     // pairs: |.| <= 2*128
    return _mm256_madd_epi16(_mm256_sub_epi16(p, o), _mm256_set1_epi16(1));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q1_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q1_0 * x = vx;
    const block_q8_0 * y = vy;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (int i = 0; i < n/QK1_0; i++, y += 4) {
        const float dx = q_fp16_avx2(x[i].d);
        const __m256i s0 = q1_block_sums(x[i].qs +  0, y[0].qs);
        const __m256i s1 = q1_block_sums(x[i].qs +  4, y[1].qs);
        const __m256i s2 = q1_block_sums(x[i].qs +  8, y[2].qs);
        const __m256i s3 = q1_block_sums(x[i].qs + 12, y[3].qs);
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(y[0].d)), _mm256_cvtepi32_ps(s0), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(y[1].d)), _mm256_cvtepi32_ps(s1), acc1);
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(y[2].d)), _mm256_cvtepi32_ps(s2), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(y[3].d)), _mm256_cvtepi32_ps(s3), acc1);
    }
    *s = qu_hsum_ps(_mm256_add_ps(acc0, acc1));
}

GGML_TARGET_AVX2 void ggml_cpu_q_dot_q2_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q2_0 * x = vx;
    const block_q8_0 * y = vy;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    for (int i = 0; i < n/QK2_0; i++, y += 2) {
        const float dx = q_fp16_avx2(x[i].d);
        const __m256i s0 = q2_block_sums(x[i].qs + 0, y[0].qs);
        const __m256i s1 = q2_block_sums(x[i].qs + 8, y[1].qs);
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(y[0].d)), _mm256_cvtepi32_ps(s0), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(y[1].d)), _mm256_cvtepi32_ps(s1), acc1);
    }
    *s = qu_hsum_ps(_mm256_add_ps(acc0, acc1));
}

#endif
