// AVX-512 quantized dot products of the 32-element formats (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL,
// MXFP4) against their Q8_0 / Q8_1 activations (see avx512-quant.h).
//
// Two blocks per 512-bit vector: their 64 weight levels as int8 (the same unpacking as the AVX2
// kernels, one block per 256-bit half) times the 64 activation levels, summed in int32 per group
// of 4 (lanes 0..7 belong to the first block, 8..15 to the second), converted to float and scaled
// by d_w*d_a of each block. The integer product, in avx512-quant-32.h, included once per ISA:
//   AVX512BW: _mm512_maddubs_epi16 of |w| with sign(w)*a (a pair stays in int16: 2*128*127 <=
//             32767; the Q8 quantizers never write -128), widened by _mm512_madd_epi16;
//   VNNI:     _mm512_dpbusd_epi32 of the same operands, straight to int32.
// An odd last block goes through the same code with a zero second half.

#include "avx512-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

GGML_TARGET_AVX512 static inline float zq_fp16(ggml_fp16_t h) {
    return _cvtsh_ss(h);
}

// E8M0 exponent -> 2^(e-127)/2, the MXFP4 block scale (as dequantize_row_mxfp4)
static inline float zq_e8m0_half(uint8_t e) {
    const uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t) (e - 1) << 23;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

GGML_TARGET_AVX512 static inline __m256i zq_load32(const int8_t * p) {
    return _mm256_loadu_si256((const __m256i *) (const void *) p);
}

// 16 packed bytes to 32 nibbles: element j < 16 is the low nibble of byte j, j >= 16 the high one
GGML_TARGET_AVX512 static inline __m256i zq_nibbles(const uint8_t * qs) {
    const __m128i b  = _mm_loadu_si128((const __m128i *) (const void *) qs);
    const __m128i lo = _mm_and_si128(b, _mm_set1_epi8(0x0F));
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(0x0F));
    return _mm256_set_m128i(hi, lo);
}

// the 32 bits of qh as 32 bytes: 0x10 where bit j is set, 0 elsewhere
GGML_TARGET_AVX512 static inline __m256i zq_high_bits(const uint8_t * qh4) {
    uint32_t qh;
    memcpy(&qh, qh4, sizeof(qh));
    const __mmask32 k = (__mmask32) qh;
    return _mm256_maskz_mov_epi8(k, _mm256_set1_epi8(0x10));
}

// levels through a 16-entry int8 table (IQ4_NL, MXFP4)
GGML_TARGET_AVX512 static inline __m256i zq_lookup(const int8_t * table, const uint8_t * qs) {
    const __m128i t = _mm_loadu_si128((const __m128i *) (const void *) table);
    return _mm256_shuffle_epi8(_mm256_set_m128i(t, t), zq_nibbles(qs));
}

GGML_TARGET_AVX512 static inline __m512i zq_join(__m256i lo, __m256i hi) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

GGML_TARGET_AVX512 static inline __m512 zq_scales(float d0, float d1) {
    return _mm512_insertf32x8(_mm512_set1_ps(d0), _mm256_set1_ps(d1), 1);
}

#define QV_VNNI 0
#define QV_T    GGML_TARGET_AVX512
#define QV(name) name##_avx512
#include "avx512-quant-32.h"
#undef QV_VNNI
#undef QV_T
#undef QV

#define QV_VNNI 1
#define QV_T    GGML_TARGET_AVX512_VNNI
#define QV(name) name##_avx512_vnni
#include "avx512-quant-32.h"
#undef QV_VNNI
#undef QV_T
#undef QV

const struct ggml_cpu_quant_kernels ggml_cpu_quant_avx512_vnni[GGML_TYPE_COUNT] = GGML_CPU_QUANT_AVX512_SLOTS_OF(avx512_vnni);

#else

typedef int ggml_avx512_quant_unused;

#endif // GGML_CPU_X86
