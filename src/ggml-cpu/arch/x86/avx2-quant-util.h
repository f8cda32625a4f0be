#pragma once

// Internal to arch/x86/: small AVX2 helpers shared by the dot products of the IQ, ternary, FP4
// and Q3_K formats (avx2-quant-iq.c, avx2-quant-ternary.c, avx2-quant-fp4.c, avx2-quant-q3k.c) and
// by the K-quant decode and Q2_K/Q3_K prompt kernels (avx2-quant-gemv-k.c, avx2-quant-tile-k23.c).

#include "avx2-quant.h"

#if GGML_CPU_X86
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

GGML_TARGET_AVX2 static inline __m256i qu_load256(const void * p) {
    return _mm256_loadu_si256((const __m256i *) p);
}

GGML_TARGET_AVX2 static inline int qu_hsum_i32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

GGML_TARGET_AVX2 static inline float qu_hsum_ps(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// 32 sign bits (bit j for element j) as 32 bytes: -1 where the bit is set, +1 elsewhere
GGML_TARGET_AVX2 static inline __m256i qu_signs_pm1(uint32_t bits) {
    const __m256i rep = _mm256_shuffle_epi8(_mm256_set1_epi32((int) bits),
        _mm256_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll, 0x0101010101010101ll, 0));
    const __m256i bit = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(rep, bit), bit);
    return _mm256_or_si256(set, _mm256_set1_epi8(1));
}

// 16 int16 sums of adjacent products of unsigned u (0..127) and signed a, times two int16 scales
// (lo for elements 0..15, hi for 16..31), widened to 8 int32
GGML_TARGET_AVX2 static inline __m256i qu_dot_scaled(__m256i u, __m256i a, int lo, int hi) {
    const __m256i sc = _mm256_set_m128i(_mm_set1_epi16((short) hi), _mm_set1_epi16((short) lo));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, a), sc);
}

// the same for signed w (|w| <= 127 or -128 only with |a| <= 127): |w| times a with w's sign
GGML_TARGET_AVX2 static inline __m256i qu_dot_scaled_i8(__m256i w, __m256i a, int lo, int hi) {
    return qu_dot_scaled(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w), lo, hi);
}
#endif
