#pragma once

// Test-only stand-in for <immintrin.h> (tests/avx512-emu/, docs/cpu-kernels.md "How the AVX-512
// paths are tested"): the AVX-512 kernel sources are compiled a second time with this directory
// first on the include path, so that their `#include <immintrin.h>` reaches SIMDe, which
// implements the _mm*_ intrinsics in portable C (SIMDE_ENABLE_NATIVE_ALIASES keeps Intel's names).
// GGML_CPU_SIMD_EMULATED (ggml-cpu-isa.h) drops the target attributes, so no AVX-512 instruction
// is emitted and the kernels run on any x86-64 CPU.
//
// SIMDe releases differ in what they cover (Debian 12 ships 0.7.4, which lacks masked loads, the
// reductions and the 512-bit F16 conversions, among others): every intrinsic below is defined
// only when SIMDe did not already define it. They follow Intel's descriptions of the instructions;
// masked loads and stores touch only the lanes their mask selects, as the hardware does.

#ifndef GGML_CPU_SIMD_EMULATED
#    error "tests/avx512-emu/include/immintrin.h is for the emulated AVX-512 build only"
#endif

#ifndef SIMDE_ENABLE_NATIVE_ALIASES
#    define SIMDE_ENABLE_NATIVE_ALIASES
#endif

#include <simde/x86/avx512.h>
#include <simde/x86/f16c.h>
#include <simde/x86/fma.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef simde__mmask8  __mmask8;
typedef simde__mmask16 __mmask16;
typedef simde__mmask32 __mmask32;
typedef simde__mmask64 __mmask64;

#ifndef _MM_FROUND_NO_EXC
#    define _MM_FROUND_NO_EXC SIMDE_MM_FROUND_NO_EXC
#endif

// lanes of a vector as a plain array and back
#define EMU_GET(type, arr, v) type arr[sizeof(v)/sizeof(type)]; memcpy(arr, &(v), sizeof(v))
#define EMU_PUT(vtype, arr)   vtype r_; memcpy(&r_, arr, sizeof(r_)); return r_

// IEEE binary16 <-> binary32 as F16C converts (round to nearest even, NaN payload kept and quieted)
static inline float emu_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t x;
    if (e == 0x1f) {
        x = sign | 0x7f800000u | (m << 13) | (m != 0 ? 0x400000u : 0u);
    } else if (e == 0) {
        const float v = (float) m*5.9604644775390625e-8f; // m * 2^-24, exact
        memcpy(&x, &v, sizeof(x));
        x |= sign;
    } else {
        x = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, sizeof(f));
    return f;
}

static inline uint16_t emu_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    const uint16_t sign = (uint16_t) ((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) {
        return (uint16_t) (sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x47800000u) { // 65536 and above, infinity
        return (uint16_t) (sign | 0x7c00u);
    }
    if (ax < 0x38800000u) { // below 2^-14: a subnormal half (or zero), in units of 2^-24
        return (uint16_t) (sign | (uint16_t) rintf(fabsf(f)*16777216.0f));
    }
    uint32_t r = ax - 0x38000000u; // exponent bias 127 -> 15
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t) (sign | (r >> 13));
}

#ifndef _mm256_maskz_loadu_epi16
static inline __m256i emu_mm256_maskz_loadu_epi16(__mmask16 k, const void * p) {
    int16_t a[16];
    for (int i = 0; i < 16; i++) {
        a[i] = 0;
        if ((k >> i) & 1) {
            memcpy(&a[i], (const char *) p + 2*i, 2);
        }
    }
    EMU_PUT(__m256i, a);
}
#    define _mm256_maskz_loadu_epi16(k, p) emu_mm256_maskz_loadu_epi16((k), (p))
#endif

#ifndef _mm512_maskz_loadu_ps
static inline __m512 emu_mm512_maskz_loadu_ps(__mmask16 k, const void * p) {
    float a[16];
    for (int i = 0; i < 16; i++) {
        a[i] = 0.0f;
        if ((k >> i) & 1) {
            memcpy(&a[i], (const char *) p + 4*i, 4);
        }
    }
    EMU_PUT(__m512, a);
}
#    define _mm512_maskz_loadu_ps(k, p) emu_mm512_maskz_loadu_ps((k), (p))
#endif

#ifndef _mm512_mask_storeu_ps
static inline void emu_mm512_mask_storeu_ps(void * p, __mmask16 k, __m512 v) {
    EMU_GET(float, a, v);
    for (int i = 0; i < 16; i++) {
        if ((k >> i) & 1) {
            memcpy((char *) p + 4*i, &a[i], 4);
        }
    }
}
#    define _mm512_mask_storeu_ps(p, k, v) emu_mm512_mask_storeu_ps((p), (k), (v))
#endif

#ifndef _mm512_cvtepi32_epi16
static inline __m256i emu_mm512_cvtepi32_epi16(__m512i v) {
    EMU_GET(int32_t, a, v);
    int16_t r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = (int16_t) (uint16_t) ((uint32_t) a[i] & 0xffffu);
    }
    EMU_PUT(__m256i, r);
}
#    define _mm512_cvtepi32_epi16(v) emu_mm512_cvtepi32_epi16(v)
#endif

#ifndef _mm512_cvtepu16_epi32
static inline __m512i emu_mm512_cvtepu16_epi32(__m256i v) {
    EMU_GET(uint16_t, a, v);
    int32_t r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = a[i];
    }
    EMU_PUT(__m512i, r);
}
#    define _mm512_cvtepu16_epi32(v) emu_mm512_cvtepu16_epi32(v)
#endif

#ifndef _mm512_cvtph_ps
static inline __m512 emu_mm512_cvtph_ps(__m256i v) {
    EMU_GET(uint16_t, a, v);
    float r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = emu_f16_to_f32(a[i]);
    }
    EMU_PUT(__m512, r);
}
#    define _mm512_cvtph_ps(v) emu_mm512_cvtph_ps(v)
#endif

#ifndef _mm512_cvtps_ph
// only round-to-nearest-even is emulated, the mode every kernel here asks for
static inline __m256i emu_mm512_cvtps_ph(__m512 v, int imm) {
    (void) imm;
    EMU_GET(float, a, v);
    uint16_t r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = emu_f32_to_f16(a[i]);
    }
    EMU_PUT(__m256i, r);
}
#    define _mm512_cvtps_ph(v, imm) emu_mm512_cvtps_ph((v), (imm))
#endif

#ifndef _mm512_cvtps_pd
static inline __m512d emu_mm512_cvtps_pd(__m256 v) {
    EMU_GET(float, a, v);
    double r[8];
    for (int i = 0; i < 8; i++) {
        r[i] = a[i];
    }
    EMU_PUT(__m512d, r);
}
#    define _mm512_cvtps_pd(v) emu_mm512_cvtps_pd(v)
#endif

#ifndef _mm512_extractf32x8_ps
static inline __m256 emu_mm512_extractf32x8_ps(__m512 v, int hi) {
    EMU_GET(float, a, v);
    EMU_PUT(__m256, a + (hi & 1)*8);
}
#    define _mm512_extractf32x8_ps(v, imm) emu_mm512_extractf32x8_ps((v), (imm))
#endif

#ifndef _mm512_shuffle_f32x4
// 128-bit lanes: two of a (chosen by imm bits 0-3), then two of b (bits 4-7)
static inline __m512 emu_mm512_shuffle_f32x4(__m512 a, __m512 b, int imm) {
    EMU_GET(float, x, a);
    EMU_GET(float, y, b);
    float r[16];
    for (int l = 0; l < 4; l++) {
        const float * src = (l < 2 ? x : y) + 4*((imm >> (2*l)) & 3);
        memcpy(r + 4*l, src, 4*sizeof(float));
    }
    EMU_PUT(__m512, r);
}
#    define _mm512_shuffle_f32x4(a, b, imm) emu_mm512_shuffle_f32x4((a), (b), (imm))
#endif

#ifndef _mm512_permute_ps
// within each 128-bit lane, element j takes element (imm >> 2j) & 3 of the same lane
static inline __m512 emu_mm512_permute_ps(__m512 v, int imm) {
    EMU_GET(float, a, v);
    float r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = a[(i & ~3) + ((imm >> (2*(i & 3))) & 3)];
    }
    EMU_PUT(__m512, r);
}
#    define _mm512_permute_ps(v, imm) emu_mm512_permute_ps((v), (imm))
#endif

// the reductions add (or compare) halves, then quarters, ..., as the compilers expand them
#ifndef _mm512_reduce_add_ps
static inline float emu_mm512_reduce_add_ps(__m512 v) {
    EMU_GET(float, a, v);
    for (int w = 8; w >= 1; w /= 2) {
        for (int i = 0; i < w; i++) {
            a[i] = a[i] + a[i + w];
        }
    }
    return a[0];
}
#    define _mm512_reduce_add_ps(v) emu_mm512_reduce_add_ps(v)
#endif

#ifndef _mm512_reduce_max_ps
static inline float emu_mm512_reduce_max_ps(__m512 v) {
    EMU_GET(float, a, v);
    for (int w = 8; w >= 1; w /= 2) {
        for (int i = 0; i < w; i++) {
            a[i] = a[i] > a[i + w] ? a[i] : a[i + w]; // maxps: the second operand unless a > b
        }
    }
    return a[0];
}
#    define _mm512_reduce_max_ps(v) emu_mm512_reduce_max_ps(v)
#endif

#ifndef _mm512_reduce_add_pd
static inline double emu_mm512_reduce_add_pd(__m512d v) {
    EMU_GET(double, a, v);
    for (int w = 4; w >= 1; w /= 2) {
        for (int i = 0; i < w; i++) {
            a[i] = a[i] + a[i + w];
        }
    }
    return a[0];
}
#    define _mm512_reduce_add_pd(v) emu_mm512_reduce_add_pd(v)
#endif

#ifndef _mm512_reduce_add_epi32
static inline int emu_mm512_reduce_add_epi32(__m512i v) {
    EMU_GET(int32_t, a, v);
    uint32_t s = 0;
    for (int i = 0; i < 16; i++) {
        s += (uint32_t) a[i];
    }
    return (int) s;
}
#    define _mm512_reduce_add_epi32(v) emu_mm512_reduce_add_epi32(v)
#endif

//
// Replaced whatever SIMDe provides: SIMDe 0.7.4 computes these differently from the hardware
// (found by the emulated test-cpu-vec): fmadd as a*b + c with two roundings instead of one, scalef
// through exp2(floor(b)), which overflows to inf for b = 128 where a*2^b is finite, and flushes
// subnormals; roundscale with a wrong scale on its 256-bit path (floor(-1.04) = -1.5); abs_ps
// kept the sign of -0.
//

#define EMU_FMA_PS(name, ea, eb, ec) \
    static inline __m512 emu_##name(__m512 a, __m512 b, __m512 c) { \
        EMU_GET(float, x, a); EMU_GET(float, y, b); EMU_GET(float, z, c); \
        float r[16]; \
        for (int i = 0; i < 16; i++) { r[i] = fmaf(ea x[i], y[i], ec z[i]); } \
        EMU_PUT(__m512, r); \
    }
EMU_FMA_PS(mm512_fmadd_ps,  +, +, +)
EMU_FMA_PS(mm512_fmsub_ps,  +, +, -)
EMU_FMA_PS(mm512_fnmadd_ps, -, +, +)
EMU_FMA_PS(mm512_fnmsub_ps, -, +, -)
#undef EMU_FMA_PS
#undef _mm512_fmadd_ps
#undef _mm512_fmsub_ps
#undef _mm512_fnmadd_ps
#undef _mm512_fnmsub_ps
#define _mm512_fmadd_ps(a, b, c)  emu_mm512_fmadd_ps((a), (b), (c))
#define _mm512_fmsub_ps(a, b, c)  emu_mm512_fmsub_ps((a), (b), (c))
#define _mm512_fnmadd_ps(a, b, c) emu_mm512_fnmadd_ps((a), (b), (c))
#define _mm512_fnmsub_ps(a, b, c) emu_mm512_fnmsub_ps((a), (b), (c))

static inline __m512d emu_mm512_fmadd_pd(__m512d a, __m512d b, __m512d c) {
    EMU_GET(double, x, a);
    EMU_GET(double, y, b);
    EMU_GET(double, z, c);
    double r[8];
    for (int i = 0; i < 8; i++) {
        r[i] = fma(x[i], y[i], z[i]);
    }
    EMU_PUT(__m512d, r);
}
#undef _mm512_fmadd_pd
#define _mm512_fmadd_pd(a, b, c) emu_mm512_fmadd_pd((a), (b), (c))

// a * 2^floor(b), rounded once (vscalefps; no denormal flushing, MXCSR's defaults)
static inline float emu_scalef(float a, float b) {
    if (isnan(a) || isnan(b)) {
        return a + b;
    }
    if (isinf(b)) {
        if (b > 0) {
            return a == 0.0f ? NAN : copysignf(INFINITY, a);
        }
        return isinf(a) ? NAN : copysignf(0.0f, a);
    }
    const float fb = floorf(b);
    const int   e  = fb > 400.0f ? 400 : (fb < -400.0f ? -400 : (int) fb);
    return ldexpf(a, e);
}
static inline __m512 emu_mm512_scalef_ps(__m512 a, __m512 b) {
    EMU_GET(float, x, a);
    EMU_GET(float, y, b);
    float r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = emu_scalef(x[i], y[i]);
    }
    EMU_PUT(__m512, r);
}
#undef _mm512_scalef_ps
#define _mm512_scalef_ps(a, b) emu_mm512_scalef_ps((a), (b))

// round(x * 2^M) / 2^M with M = imm[7:4] and the rounding of imm[1:0] (imm[2]: MXCSR's, nearest)
static inline __m512 emu_mm512_roundscale_ps(__m512 v, int imm) {
    EMU_GET(float, x, v);
    const int M = (imm >> 4) & 15, mode = (imm & 4) ? 0 : (imm & 3);
    float r[16];
    for (int i = 0; i < 16; i++) {
        const float s = ldexpf(x[i], M);
        const float q = mode == 0 ? rintf(s) : mode == 1 ? floorf(s) : mode == 2 ? ceilf(s) : truncf(s);
        r[i] = isinf(x[i]) || isnan(x[i]) ? x[i] + x[i] : ldexpf(q, -M);
    }
    EMU_PUT(__m512, r);
}
#undef _mm512_roundscale_ps
#define _mm512_roundscale_ps(v, imm) emu_mm512_roundscale_ps((v), (imm))

static inline __m512 emu_mm512_abs_ps(__m512 v) {
    EMU_GET(uint32_t, x, v);
    for (int i = 0; i < 16; i++) {
        x[i] &= 0x7fffffffu;
    }
    EMU_PUT(__m512, x);
}
#undef _mm512_abs_ps
#define _mm512_abs_ps(v) emu_mm512_abs_ps(v)

//
// Missing from SIMDe 0.7.4, used by the quantized kernels (avx512-quant*.c)
//

#ifndef _cvtsh_ss
#    define _cvtsh_ss(h) emu_f16_to_f32((uint16_t) (h))
#endif

#ifndef _mm512_cvtepi32_ps
static inline __m512 emu_mm512_cvtepi32_ps(__m512i v) {
    EMU_GET(int32_t, a, v);
    float r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = (float) a[i]; // round to nearest even, as MXCSR's default
    }
    EMU_PUT(__m512, r);
}
#    define _mm512_cvtepi32_ps(v) emu_mm512_cvtepi32_ps(v)
#endif

#ifndef _mm512_cvtepi16_epi32
static inline __m512i emu_mm512_cvtepi16_epi32(__m256i v) {
    EMU_GET(int16_t, a, v);
    int32_t r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = a[i];
    }
    EMU_PUT(__m512i, r);
}
#    define _mm512_cvtepi16_epi32(v) emu_mm512_cvtepi16_epi32(v)
#endif

#ifndef _mm512_cvtepi8_epi32
static inline __m512i emu_mm512_cvtepi8_epi32(__m128i v) {
    EMU_GET(int8_t, a, v);
    int32_t r[16];
    for (int i = 0; i < 16; i++) {
        r[i] = a[i];
    }
    EMU_PUT(__m512i, r);
}
#    define _mm512_cvtepi8_epi32(v) emu_mm512_cvtepi8_epi32(v)
#endif

// SIMDe 0.7.4 declares this alias with four parameters (the function takes two)
#undef _mm512_madd_epi16
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16((a), (b))
