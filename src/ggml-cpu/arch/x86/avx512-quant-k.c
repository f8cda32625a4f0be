// AVX-512 dot products of the 256-element formats (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS) against
// Q8_K activations (see avx512-quant.h). Per super-block the 256 weight levels are unpacked into
// four 512-bit vectors of unsigned bytes in element order, and the scales into 16 int16 values,
// one per group of 16 elements; the core (avx512-quant-k.h, once per instruction set) then sums
// sc_g * (u_g . a_g) in int32:
//   AVX512BW: _mm512_maddubs_epi16 (a pair is at most 2*63*127, in int16), then _mm512_madd_epi16
//             with the group's scale;
//   VNNI:     _mm512_dpbusd_epi32 per 4 bytes, then _mm512_mullo_epi32 with the group's scale.
// The constant part of each format comes from Q8_K's bsums, as the family defines the formats:
//   Q2_K: d*dy*sum sc_g (u_g . a_g) - dmin*dy*sum m_g bsum_g        (4-bit scale and min per 16)
//   Q3_K: d*dy*sum sc_g (u_g . a_g - 4 bsum_g), u = 2 low bits + 4*(high bit)   (signed 6-bit scales)
//   Q4_K, Q5_K: d*dy*sum sc_j (u_j . a_j) - dmin*dy*sum m_j bsum_j  (6-bit scale and min per 32)
//   Q6_K: d*dy*sum sc_g (u_g . a_g - 32 bsum_g)                       (int8 scales per 16)
//   IQ4_XS: d*dy*sum (ls_j - 32) (v_j . a_j), v = the non-linear values: |v| with a signed like v

#include "avx512-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <string.h>

GGML_TARGET_AVX512 static inline float zk_fp16(ggml_fp16_t h) {
    return _cvtsh_ss(h);
}

GGML_TARGET_AVX512 static inline __m256i zk_load256(const void * p) {
    return _mm256_loadu_si256((const __m256i *) p);
}

GGML_TARGET_AVX512 static inline __m512i zk_join(__m256i lo, __m256i hi) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// the 6-bit scale and min of sub-block j of a Q4_K/Q5_K block
static inline void zk_scale_min(int j, const uint8_t * q, int * d, int * m) {
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

// the signed 6-bit scale of group j of a Q3_K block
static inline int zk_q3_scale(const uint8_t * s, int j) {
    const int lo = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    const int hi = (s[8 + j%4] >> (2*(j/4))) & 3;
    return (lo | (hi << 4)) - 32;
}

#define QV_VNNI 0
#define QV_T    GGML_TARGET_AVX512
#define QV(name) name##_avx512
#include "avx512-quant-k.h"
#undef QV_VNNI
#undef QV_T
#undef QV

#define QV_VNNI 1
#define QV_T    GGML_TARGET_AVX512_VNNI
#define QV(name) name##_avx512_vnni
#include "avx512-quant-k.h"
#undef QV_VNNI
#undef QV_T
#undef QV

#else

typedef int ggml_avx512_quant_k_unused;

#endif // GGML_CPU_X86
