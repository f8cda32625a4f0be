// AVX-512 decode kernel (the gemv slot of cpu-kernels.h) of IQ4_XS x Q8_K: s[r] = dot(weight row
// r, one activation row) for nr consecutive rows; the row order of avx512-quant-gemv.c (rows i,
// i + q, i + 2q, i + 3q in lockstep, the last nr % 4 rows one at a time with a software
// prefetch), the activation row prepared once per call and segment.
//
// A super-block's 128 nibble bytes are two 64-byte loads, each holding 4 sub-blocks of 32 weights
// in its 4 lanes of 128 bits: one and / shift + and and two vpshufb through the 16 levels give
// elements 0..15 and 16..31 of the 4 sub-blocks, against activations prepared in the same layout.
//   - VNNI: the levels are looked up offset by +128 (unsigned) and vpdpbusd starts from the
//     prepared -128*sum(a) of each sub-block (Q8_K's bsums), so its int32 lanes are exact sums of
//     level times activation;
//   - AVX512BW: |level| times a with the level's sign, vpmaddubsw + vpmaddwd per half;
//   - the 8 six-bit scales are spread to bytes in a general register, widened to one int32 per
//     lane (vpshufb + vpmovsxbd) and multiplied in (vpmulld); the 16 lanes of the super-block are
//     converted and scaled by d_w*d_a with one fmadd.
// Exact integer sums per super-block as vec_dot; the float additions are in another order (16
// lanes over the super-blocks, one horizontal sum at the end). The kernel itself is in
// avx512-quant-gemv-k.h, once for AVX512BW and once for VNNI.

#include "avx512-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ZX_SEG     32   // super-blocks of activation prepared at a time (8192 elements)
#define ZX_PF      2048 // software prefetch distance of the single rows after the runs, bytes
#define ZX_STREAMS 4    // distant runs of rows in lockstep

#define ZX_INLINE GGML_TARGET_AVX512 GGML_KERNEL_INLINE

// the activation row of one segment in the loop's layout
struct zx_act {
    __m512i lo[2*ZX_SEG];  // half v of super-block i: elements 0..15 of sub-block 4v + L in lane L
    __m512i hi[2*ZX_SEG];  // elements 16..31
    __m512i neg[2*ZX_SEG]; // VNNI: -128*sum of sub-block 4v + L in dword 4L, 0 in the others
    float   d[ZX_SEG];
};

ZX_INLINE __m128i zx_load128(const void * p) {
    return _mm_loadu_si128((const __m128i *) p);
}

ZX_INLINE __m512i zx_join4(__m128i a, __m128i b, __m128i c, __m128i d) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(b, a)), _mm256_set_m128i(d, c), 1);
}

// nb super-blocks of Q8_K activations into act
ZX_INLINE void zx_prepare(const block_q8_K * y, int nb, struct zx_act * act) {
    for (int i = 0; i < nb; i++) {
        act->d[i] = y[i].d;
        for (int v = 0; v < 2; v++) {
            const int8_t * q = y[i].qs + 128*v;
            act->lo[2*i + v] = zx_join4(zx_load128(q), zx_load128(q + 32), zx_load128(q + 64), zx_load128(q + 96));
            act->hi[2*i + v] = zx_join4(zx_load128(q + 16), zx_load128(q + 48), zx_load128(q + 80), zx_load128(q + 112));
            int32_t neg[16] = { 0 };
            for (int L = 0; L < 4; L++) {
                const int j = 4*v + L;
                neg[4*L] = -128*((int32_t) y[i].bsums[2*j] + y[i].bsums[2*j + 1]);
            }
            act->neg[2*i + v] = _mm512_loadu_si512((const void *) neg);
        }
    }
}

// the 8 scales (ls - 32) of an IQ4_XS super-block as int8 in the low 8 bytes: nibble j of
// scales_l and bit pair j of scales_h are spread to byte j in a general register
ZX_INLINE __m128i zx_iq4xs_scales(const block_iq4_xs * b) {
    uint32_t sl;
    memcpy(&sl, b->scales_l, sizeof(sl));
    uint64_t lo = sl;
    lo = (lo | lo << 16) & 0x0000FFFF0000FFFFull;
    lo = (lo | lo << 8)  & 0x00FF00FF00FF00FFull;
    lo = (lo | lo << 4)  & 0x0F0F0F0F0F0F0F0Full;
    uint64_t hi = b->scales_h;
    hi = (hi | hi << 24) & 0x000000FF000000FFull;
    hi = (hi | hi << 12) & 0x000F000F000F000Full;
    hi = (hi | hi << 6)  & 0x0303030303030303ull;
    return _mm_sub_epi8(_mm_cvtsi64_si128((long long) (lo | hi << 4)), _mm_set1_epi8(32));
}

// scales of sub-blocks 4v .. 4v + 3 as 16 int32 (sub-block 4v + L in the 4 dwords of lane L)
ZX_INLINE __m512i zx_scales_half(__m128i sc8, int v) {
    const __m128i pat = v == 0 ? _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3) :
                                 _mm_setr_epi8(4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
    return _mm512_cvtepi8_epi32(_mm_shuffle_epi8(sc8, pat));
}

#define ZV_VNNI 0
#define ZV_T    GGML_TARGET_AVX512
#define ZV(name) name##_avx512
#include "avx512-quant-gemv-k.h"
#undef ZV_VNNI
#undef ZV_T
#undef ZV

#define ZV_VNNI 1
#define ZV_T    GGML_TARGET_AVX512_VNNI
#define ZV(name) name##_avx512_vnni
#include "avx512-quant-gemv-k.h"
#undef ZV_VNNI
#undef ZV_T
#undef ZV

#else

typedef int ggml_avx512_quant_gemv_k_unused;

#endif // GGML_CPU_X86
