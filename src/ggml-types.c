// Element types: the type-traits table (names, block sizes, block byte sizes), size queries,
// fp16 / bf16 conversions and row-data validation.

#include "ggml-impl.h"
#include "ggml-quants.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#    include <cpuid.h>
#    include <immintrin.h>
#    include <stdatomic.h>
#    define GGML_TYPES_X86_F16C 1
#endif

//
// fp16 (IEEE 754 binary16) scalar conversions: pure bit manipulation, exact
//

static inline uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

float ggml_compute_fp16_to_fp32(ggml_fp16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp  = (h >> 10) & 0x1fu;
    uint32_t       mant = h & 0x3ffu;

    if (exp == 0x1f) {
        // Inf, or NaN: payload kept, quiet bit set (what the F16C instruction does too)
        return f32_from_bits(sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0));
    }
    if (exp == 0) {
        if (mant == 0) {
            return f32_from_bits(sign);
        }
        // subnormal half: value = mant * 2^-24, a normal float; shift the leading one into bit 10
        int32_t e = -14;
        while ((mant & 0x400u) == 0) {
            mant <<= 1;
            e--;
        }
        mant &= 0x3ffu;
        return f32_from_bits(sign | ((uint32_t)(e + 127) << 23) | (mant << 13));
    }
    return f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
}

ggml_fp16_t ggml_compute_fp32_to_fp16(float f) {
    const uint32_t u    = f32_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a    = u & 0x7fffffffu;

    if (a > 0x7f800000u) {
        // NaN: quiet, upper payload bits kept (matches VCVTPS2PH)
        return (ggml_fp16_t)(sign | 0x7e00u | ((a & 0x7fffffu) >> 13));
    }
    if (a >= 0x477ff000u) {
        // >= 65520, the midpoint between 65504 (largest half, odd mantissa) and 2^16: Inf
        return (ggml_fp16_t)(sign | 0x7c00u);
    }
    if (a >= 0x38800000u) {
        // normal half (2^-14 and up); a carry out of the mantissa bumps the exponent, as it should
        uint32_t h   = ((a >> 23) - 112u) << 10 | ((a & 0x7fffffu) >> 13);
        uint32_t rem = a & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
            h++;
        }
        return (ggml_fp16_t)(sign | h);
    }
    if (a <= 0x33000000u) {
        // <= 2^-25: at most half of the smallest subnormal, rounds to (signed) zero
        return (ggml_fp16_t) sign;
    }
    // subnormal half: value in units of 2^-24 is m * 2^(E+1); shift right by -(E+1) in [14, 24]
    const uint32_t m     = (a & 0x7fffffu) | 0x800000u;
    const int32_t  e     = (int32_t)(a >> 23) - 127;
    const uint32_t shift = (uint32_t)(-(e + 1));
    uint32_t q    = m >> shift;
    uint32_t rem  = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) {
        q++;
    }
    return (ggml_fp16_t)(sign | q);
}

float ggml_fp16_to_fp32(ggml_fp16_t x) {
    return ggml_compute_fp16_to_fp32(x);
}

ggml_fp16_t ggml_fp32_to_fp16(float x) {
    return ggml_compute_fp32_to_fp16(x);
}

//
// fp16 row conversions: F16C when the running CPU has it (bit-identical to the scalar code:
// round-to-nearest-even given explicitly, NaNs quieted the same way), else the scalar loop
//

#ifdef GGML_TYPES_X86_F16C
// CPUID leaf 1: ECX bit 27 OSXSAVE, 28 AVX, 29 F16C; the OS must also save the YMM state (XCR0
// bits 1 and 2). Queried once; concurrent first calls store the same value.
static bool cpu_has_f16c(void) {
    static atomic_int cached = 0; // 0 unknown, 1 no, 2 yes
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v == 0) {
        unsigned int eax, ebx, ecx, edx;
        bool ok = false;
        if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
            const unsigned int need = (1u << 27) | (1u << 28) | (1u << 29);
            if ((ecx & need) == need) {
                uint32_t xcr0_lo, xcr0_hi;
                __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
                (void) xcr0_hi;
                ok = (xcr0_lo & 6u) == 6u;
            }
        }
        v = ok ? 2 : 1;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v == 2;
}

__attribute__((target("avx,f16c")))
static int64_t fp16_to_fp32_f16c(const ggml_fp16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(x + i));
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(h));
    }
    return i;
}

__attribute__((target("avx,f16c")))
static int64_t fp32_to_fp16_f16c(const float * x, ggml_fp16_t * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(void *)(y + i), h);
    }
    return i;
}
#endif

// false (after logging) when a row call cannot proceed; n <= 0 is a no-op
static bool row_args_ok(const char * func, const void * x, const void * y, int64_t n) {
    if (n <= 0) {
        return false;
    }
    if (x == NULL || y == NULL) {
        GGML_LOG_ERROR("%s: NULL %s pointer for %lld elements\n", func, x == NULL ? "source" : "destination",
                       (long long) n);
        return false;
    }
    return true;
}

void ggml_fp16_to_fp32_row(const ggml_fp16_t * x, float * y, int64_t n) {
    if (!row_args_ok(__func__, x, y, n)) {
        return;
    }
    int64_t i = 0;
#ifdef GGML_TYPES_X86_F16C
    if (n >= 8 && cpu_has_f16c()) {
        i = fp16_to_fp32_f16c(x, y, n);
    }
#endif
    for (; i < n; i++) {
        y[i] = ggml_compute_fp16_to_fp32(x[i]);
    }
}

void ggml_fp32_to_fp16_row(const float * x, ggml_fp16_t * y, int64_t n) {
    if (!row_args_ok(__func__, x, y, n)) {
        return;
    }
    int64_t i = 0;
#ifdef GGML_TYPES_X86_F16C
    if (n >= 8 && cpu_has_f16c()) {
        i = fp32_to_fp16_f16c(x, y, n);
    }
#endif
    for (; i < n; i++) {
        y[i] = ggml_compute_fp32_to_fp16(x[i]);
    }
}

//
// bf16
//

ggml_bf16_t ggml_fp32_to_bf16(float x) {
    return ggml_compute_fp32_to_bf16(x);
}

float ggml_bf16_to_fp32(ggml_bf16_t x) {
    return ggml_compute_bf16_to_fp32(x);
}

void ggml_bf16_to_fp32_row(const ggml_bf16_t * x, float * y, int64_t n) {
    if (!row_args_ok(__func__, x, y, n)) {
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        y[i] = ggml_compute_bf16_to_fp32(x[i]);
    }
}

void ggml_fp32_to_bf16_row_ref(const float * x, ggml_bf16_t * y, int64_t n) {
    if (!row_args_ok(__func__, x, y, n)) {
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        y[i] = ggml_compute_fp32_to_bf16(x[i]);
    }
}

// Branch-free form of ggml_compute_fp32_to_bf16 that the compiler vectorizes. Deliberately not
// VCVTNEPS2BF16: that instruction flushes subnormals to zero, so it would differ from _ref.
void ggml_fp32_to_bf16_row(const float * x, ggml_bf16_t * y, int64_t n) {
    if (!row_args_ok(__func__, x, y, n)) {
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        const uint32_t u       = f32_bits(x[i]);
        const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        const uint32_t quiet   = (u >> 16) | 64u;
        const bool     is_nan  = (u & 0x7fffffffu) > 0x7f800000u;
        y[i].bits = (uint16_t)(is_nan ? quiet : rounded);
    }
}

//
// to_float / from_float_ref adapters with the exact ggml_to_float_t / ggml_from_float_t types
// (calling through a cast function pointer of another type would be undefined behaviour)
//

static void f32_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) {
    if (row_args_ok(__func__, x, y, k)) {
        memcpy(y, x, (size_t) k * sizeof(float));
    }
}

static void f32_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    if (row_args_ok(__func__, x, y, k)) {
        memcpy(y, x, (size_t) k * sizeof(float));
    }
}

static void f16_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) {
    ggml_fp16_to_fp32_row((const ggml_fp16_t *) x, y, k);
}

static void f16_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_fp32_to_fp16_row(x, (ggml_fp16_t *) y, k);
}

static void bf16_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) {
    ggml_bf16_to_fp32_row((const ggml_bf16_t *) x, y, k);
}

static void bf16_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) {
    ggml_fp32_to_bf16_row_ref(x, (ggml_bf16_t *) y, k);
}

// Quantized rows: the element count must be a whole number of blocks.
static bool quant_row_args_ok(const char * func, const void * x, const void * y, int64_t k, int64_t blck) {
    if (!row_args_ok(func, x, y, k)) {
        return false;
    }
    if (k % blck != 0) {
        GGML_LOG_ERROR("%s: %lld elements is not a multiple of the block size %lld\n", func, (long long) k,
                       (long long) blck);
        return false;
    }
    return true;
}

#define QUANT_TO_FLOAT(t, blck)                                                                    \
    static void t##_to_float(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k) { \
        if (quant_row_args_ok(__func__, x, y, k, blck)) {                                          \
            dequantize_row_##t(x, y, k);                                                           \
        }                                                                                          \
    }
#define QUANT_FROM_FLOAT(t, blck)                                                                    \
    static void t##_from_float(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { \
        if (quant_row_args_ok(__func__, x, y, k, blck)) {                                            \
            quantize_row_##t##_ref(x, y, k);                                                         \
        }                                                                                            \
    }
#define QUANT_BOTH(t, blck) QUANT_TO_FLOAT(t, blck) QUANT_FROM_FLOAT(t, blck)

QUANT_BOTH(q4_0, 32)
QUANT_BOTH(q4_1, 32)
QUANT_BOTH(q5_0, 32)
QUANT_BOTH(q5_1, 32)
QUANT_BOTH(q8_0, 32)
QUANT_BOTH(q8_1, 32)
QUANT_BOTH(q2_K, QK_K)
QUANT_BOTH(q3_K, QK_K)
QUANT_BOTH(q4_K, QK_K)
QUANT_BOTH(q5_K, QK_K)
QUANT_BOTH(q6_K, QK_K)
QUANT_BOTH(q8_K, QK_K)
QUANT_TO_FLOAT(iq2_xxs, QK_K)
QUANT_TO_FLOAT(iq2_xs, QK_K)
QUANT_TO_FLOAT(iq2_s, QK_K)
QUANT_TO_FLOAT(iq3_xxs, QK_K)
QUANT_TO_FLOAT(iq3_s, QK_K)
QUANT_TO_FLOAT(iq1_s, QK_K)
QUANT_TO_FLOAT(iq1_m, QK_K)
QUANT_BOTH(iq4_nl, 32)
QUANT_BOTH(iq4_xs, QK_K)
QUANT_BOTH(tq1_0, QK_K)
QUANT_BOTH(tq2_0, QK_K)
QUANT_BOTH(mxfp4, 32)
QUANT_BOTH(nvfp4, 64)
QUANT_BOTH(q1_0, 128)
QUANT_BOTH(q2_0, 64)

//
// type traits
//
// Block sizes and block byte sizes are the ggml family's (ggml-common.h block structs), so that
// tensors and files interoperate. Quantized types convert through ggml-quants*.c (to_float for
// every type, from_float_ref where a quantizer exists). The integer types and F64 have none either: there is no lossless float conversion to offer for
// I64/F64, and the ops that need integer conversions do them themselves. Removed ids (4, 5,
// 31..33, 36..38) are left zeroed: blck_size 0 marks an id that is not a type.
//

#define TRAITS_QUANT(name_, blck_, size_) \
    { .type_name = (name_), .blck_size = (blck_), .type_size = (size_), .is_quantized = true }
#define TRAITS_QUANT_TO(name_, blck_, size_, t_) \
    { .type_name = (name_), .blck_size = (blck_), .type_size = (size_), .is_quantized = true, \
      .to_float = t_##_to_float }
#define TRAITS_QUANT_BOTH(name_, blck_, size_, t_) \
    { .type_name = (name_), .blck_size = (blck_), .type_size = (size_), .is_quantized = true, \
      .to_float = t_##_to_float, .from_float_ref = t_##_from_float }

static const struct ggml_type_traits type_traits[GGML_TYPE_COUNT] = {
    [GGML_TYPE_F32] = {
        .type_name      = "f32",
        .blck_size      = 1,
        .type_size      = sizeof(float),
        .is_quantized   = false,
        .to_float       = f32_to_float,
        .from_float_ref = f32_from_float,
    },
    [GGML_TYPE_F16] = {
        .type_name      = "f16",
        .blck_size      = 1,
        .type_size      = sizeof(ggml_fp16_t),
        .is_quantized   = false,
        .to_float       = f16_to_float,
        .from_float_ref = f16_from_float,
    },
    //                                     name       elems  bytes per block
    [GGML_TYPE_Q4_0]    = TRAITS_QUANT_BOTH("q4_0",    32,    2 + 16, q4_0),
    [GGML_TYPE_Q4_1]    = TRAITS_QUANT_BOTH("q4_1",    32,    2 + 2 + 16, q4_1),
    [GGML_TYPE_Q5_0]    = TRAITS_QUANT_BOTH("q5_0",    32,    2 + 4 + 16, q5_0),
    [GGML_TYPE_Q5_1]    = TRAITS_QUANT_BOTH("q5_1",    32,    2 + 2 + 4 + 16, q5_1),
    [GGML_TYPE_Q8_0]    = TRAITS_QUANT_BOTH("q8_0",    32,    2 + 32, q8_0),
    [GGML_TYPE_Q8_1]    = TRAITS_QUANT_BOTH("q8_1",    32,    2 + 2 + 32, q8_1),
    [GGML_TYPE_Q2_K]    = TRAITS_QUANT_BOTH("q2_K",    QK_K,  QK_K/16 + QK_K/4 + 2 + 2, q2_K),
    [GGML_TYPE_Q3_K]    = TRAITS_QUANT_BOTH("q3_K",    QK_K,  QK_K/8 + QK_K/4 + 12 + 2, q3_K),
    [GGML_TYPE_Q4_K]    = TRAITS_QUANT_BOTH("q4_K",    QK_K,  2 + 2 + 12 + QK_K/2, q4_K),
    [GGML_TYPE_Q5_K]    = TRAITS_QUANT_BOTH("q5_K",    QK_K,  2 + 2 + 12 + QK_K/8 + QK_K/2, q5_K),
    [GGML_TYPE_Q6_K]    = TRAITS_QUANT_BOTH("q6_K",    QK_K,  QK_K/2 + QK_K/4 + QK_K/16 + 2, q6_K),
    [GGML_TYPE_Q8_K]    = TRAITS_QUANT_BOTH("q8_K",    QK_K,  4 + QK_K + 2*(QK_K/16), q8_K),
    [GGML_TYPE_IQ2_XXS] = TRAITS_QUANT_TO("iq2_xxs", QK_K,  2 + 2*(QK_K/8), iq2_xxs),
    [GGML_TYPE_IQ2_XS]  = TRAITS_QUANT_TO("iq2_xs",  QK_K,  2 + 2*(QK_K/8) + QK_K/32, iq2_xs),
    [GGML_TYPE_IQ3_XXS] = TRAITS_QUANT_TO("iq3_xxs", QK_K,  2 + 3*(QK_K/8), iq3_xxs),
    [GGML_TYPE_IQ1_S]   = TRAITS_QUANT_TO("iq1_s",   QK_K,  2 + QK_K/8 + QK_K/16, iq1_s),
    [GGML_TYPE_IQ4_NL]  = TRAITS_QUANT_BOTH("iq4_nl",  32,    2 + 16, iq4_nl),
    [GGML_TYPE_IQ3_S]   = TRAITS_QUANT_TO("iq3_s",   QK_K,  2 + 13*(QK_K/32) + QK_K/64, iq3_s),
    [GGML_TYPE_IQ2_S]   = TRAITS_QUANT_TO("iq2_s",   QK_K,  2 + QK_K/4 + QK_K/16, iq2_s),
    [GGML_TYPE_IQ4_XS]  = TRAITS_QUANT_BOTH("iq4_xs",  QK_K,  2 + 2 + QK_K/64 + QK_K/2, iq4_xs),
    [GGML_TYPE_I8]  = { .type_name = "i8",  .blck_size = 1, .type_size = sizeof(int8_t)  },
    [GGML_TYPE_I16] = { .type_name = "i16", .blck_size = 1, .type_size = sizeof(int16_t) },
    [GGML_TYPE_I32] = { .type_name = "i32", .blck_size = 1, .type_size = sizeof(int32_t) },
    [GGML_TYPE_I64] = { .type_name = "i64", .blck_size = 1, .type_size = sizeof(int64_t) },
    [GGML_TYPE_F64] = { .type_name = "f64", .blck_size = 1, .type_size = sizeof(double)  },
    [GGML_TYPE_IQ1_M]   = TRAITS_QUANT_TO("iq1_m",   QK_K,  QK_K/8 + QK_K/16 + QK_K/32, iq1_m),
    [GGML_TYPE_BF16] = {
        .type_name      = "bf16",
        .blck_size      = 1,
        .type_size      = sizeof(ggml_bf16_t),
        .is_quantized   = false,
        .to_float       = bf16_to_float,
        .from_float_ref = bf16_from_float,
    },
    [GGML_TYPE_TQ1_0]   = TRAITS_QUANT_BOTH("tq1_0",   QK_K,  (QK_K - 4*(QK_K/64))/5 + QK_K/64 + 2, tq1_0),
    [GGML_TYPE_TQ2_0]   = TRAITS_QUANT_BOTH("tq2_0",   QK_K,  QK_K/4 + 2, tq2_0),
    [GGML_TYPE_MXFP4]   = TRAITS_QUANT_BOTH("mxfp4",   32,    1 + 16, mxfp4),
    [GGML_TYPE_NVFP4]   = TRAITS_QUANT_BOTH("nvfp4",   64,    64/16 + 64/2, nvfp4),
    [GGML_TYPE_Q1_0]    = TRAITS_QUANT_BOTH("q1_0",    128,   2 + 128/8, q1_0),

    [GGML_TYPE_Q2_0]    = TRAITS_QUANT_BOTH("q2_0",    64,    2 + 64/4, q2_0),

    // removed ids keep an entry of zeros with the family's names, so that programs looping over
    // every id (skipping block size 0) see what they see with the family's library
    [4]  = { .type_name = "DEPRECATED" },
    [5]  = { .type_name = "DEPRECATED" },
    [31] = { .type_name = "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking" },
    [32] = { .type_name = "TYPE_Q4_0_4_8 REMOVED, use Q4_0 with runtime repacking" },
    [33] = { .type_name = "TYPE_Q4_0_8_8 REMOVED, use Q4_0 with runtime repacking" },
    [36] = { .type_name = "TYPE_IQ4_NL_4_4 REMOVED, use IQ4_NL with runtime repacking" },
    [37] = { .type_name = "TYPE_IQ4_NL_4_8 REMOVED, use IQ4_NL with runtime repacking" },
    [38] = { .type_name = "TYPE_IQ4_NL_8_8 REMOVED, use IQ4_NL with runtime repacking" },
};

_Static_assert(GGML_TYPE_COUNT == 43, "type table covers ids 0..42");

bool ggml_type_is_valid(enum ggml_type type) {
    // compare as int: an out-of-range value may be negative
    const int t = (int) type;
    return t >= 0 && t < GGML_TYPE_COUNT && type_traits[t].blck_size > 0;
}

// Traits of a valid type, or NULL after logging "<func>: invalid type <id>".
static const struct ggml_type_traits * traits_or_log(const char * func, enum ggml_type type) {
    if (!ggml_type_is_valid(type)) {
        GGML_LOG_ERROR("%s: invalid type id %d (not a type, or a removed one)\n", func, (int) type);
        return NULL;
    }
    return &type_traits[type];
}

// The table entry of any id in [0, GGML_TYPE_COUNT) (removed ids: zeros, no log), or NULL after
// logging "<func>: invalid type <id>" for ids outside the enum.
static const struct ggml_type_traits * traits_in_range(const char * func, enum ggml_type type) {
    const int t = (int) type;
    if (t < 0 || t >= GGML_TYPE_COUNT) {
        GGML_LOG_ERROR("%s: invalid type id %d (not a type)\n", func, t);
        return NULL;
    }
    return &type_traits[t];
}

const struct ggml_type_traits * ggml_get_type_traits(enum ggml_type type) {
    return traits_in_range(__func__, type);
}

int64_t ggml_blck_size(enum ggml_type type) {
    const struct ggml_type_traits * tt = traits_in_range(__func__, type);
    return tt ? tt->blck_size : 0;
}

size_t ggml_type_size(enum ggml_type type) {
    const struct ggml_type_traits * tt = traits_in_range(__func__, type);
    return tt ? tt->type_size : 0;
}

size_t ggml_row_size(enum ggml_type type, int64_t ne) {
    const struct ggml_type_traits * tt = traits_or_log(__func__, type);
    if (tt == NULL) {
        return 0;
    }
    if (ne < 0 || ne % tt->blck_size != 0) {
        GGML_LOG_ERROR("%s: %lld elements of type %s: must be a non-negative multiple of the block size %lld\n",
                       __func__, (long long) ne, tt->type_name, (long long) tt->blck_size);
        return 0;
    }
    const uint64_t nblocks = (uint64_t)(ne / tt->blck_size);
    if (nblocks > SIZE_MAX / tt->type_size) {
        GGML_LOG_ERROR("%s: %lld elements of type %s: size overflows size_t\n",
                       __func__, (long long) ne, tt->type_name);
        return 0;
    }
    return (size_t) nblocks * tt->type_size;
}

double ggml_type_sizef(enum ggml_type type) {
    const struct ggml_type_traits * tt = traits_or_log(__func__, type);
    return tt ? (double) tt->type_size / (double) tt->blck_size : 0.0;
}

const char * ggml_type_name(enum ggml_type type) {
    // used inside error messages, so no log of its own; never NULL
    const int t = (int) type;
    return t >= 0 && t < GGML_TYPE_COUNT && type_traits[t].type_name != NULL ? type_traits[t].type_name : "NONE";
}

bool ggml_is_quantized(enum ggml_type type) {
    const struct ggml_type_traits * tt = traits_in_range(__func__, type);
    return tt ? tt->is_quantized : false;
}

//
// row data validation
//

// Index of the first element whose exponent field is all ones (NaN or Inf), or n if none.
// Elements are read with memcpy: file data need not be aligned.
static size_t find_nonfinite_u16(const uint8_t * p, size_t n, uint16_t exp_mask) {
    for (size_t i = 0; i < n; i++) {
        uint16_t v;
        memcpy(&v, p + i*sizeof(v), sizeof(v));
        if ((v & exp_mask) == exp_mask) {
            return i;
        }
    }
    return n;
}

static size_t find_nonfinite_u32(const uint8_t * p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, p + i*sizeof(v), sizeof(v));
        if ((v & 0x7f800000u) == 0x7f800000u) {
            return i;
        }
    }
    return n;
}

static size_t find_nonfinite_u64(const uint8_t * p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, p + i*sizeof(v), sizeof(v));
        if ((v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
            return i;
        }
    }
    return n;
}

bool ggml_validate_row_data(enum ggml_type type, const void * data, size_t nbytes) {
    const struct ggml_type_traits * tt = traits_or_log(__func__, type);
    if (tt == NULL) {
        return false;
    }
    if (nbytes % tt->type_size != 0) {
        GGML_LOG_ERROR("%s: %zu bytes is not a multiple of the %s block size (%zu bytes)\n",
                       __func__, nbytes, tt->type_name, tt->type_size);
        return false;
    }
    if (nbytes == 0) {
        return true;
    }
    if (data == NULL) {
        GGML_LOG_ERROR("%s: NULL data for %zu bytes of %s\n", __func__, nbytes, tt->type_name);
        return false;
    }

    const uint8_t * p = (const uint8_t *) data;
    const size_t    n = nbytes / tt->type_size;
    size_t bad = n;
    switch (type) {
        case GGML_TYPE_F16:  bad = find_nonfinite_u16(p, n, 0x7c00u); break;
        case GGML_TYPE_BF16: bad = find_nonfinite_u16(p, n, 0x7f80u); break;
        case GGML_TYPE_F32:  bad = find_nonfinite_u32(p, n);          break;
        case GGML_TYPE_F64:  bad = find_nonfinite_u64(p, n);          break;
        default:
            // integer types: any bit pattern is a value; quantized types: every block scale finite
            if (tt->is_quantized) {
                return ggml_validate_quant_row_data(type, data, n);
            }
            break;
    }
    if (bad < n) {
        GGML_LOG_ERROR("%s: %s data has a NaN or Inf value at element %zu of %zu\n",
                       __func__, tt->type_name, bad, n);
        return false;
    }
    return true;
}

//
// file types of older model formats
//

enum ggml_type ggml_ftype_to_ggml_type(enum ggml_ftype ftype) {
    switch (ftype) {
        case GGML_FTYPE_ALL_F32:        return GGML_TYPE_F32;
        case GGML_FTYPE_MOSTLY_F16:     return GGML_TYPE_F16;
        case GGML_FTYPE_MOSTLY_BF16:    return GGML_TYPE_BF16;
        case GGML_FTYPE_MOSTLY_Q4_0:    return GGML_TYPE_Q4_0;
        case GGML_FTYPE_MOSTLY_Q4_1:    return GGML_TYPE_Q4_1;
        case GGML_FTYPE_MOSTLY_Q5_0:    return GGML_TYPE_Q5_0;
        case GGML_FTYPE_MOSTLY_Q5_1:    return GGML_TYPE_Q5_1;
        case GGML_FTYPE_MOSTLY_Q8_0:    return GGML_TYPE_Q8_0;
        case GGML_FTYPE_MOSTLY_Q1_0:    return GGML_TYPE_Q1_0;
        case GGML_FTYPE_MOSTLY_Q2_0:    return GGML_TYPE_Q2_0;
        case GGML_FTYPE_MOSTLY_MXFP4:   return GGML_TYPE_MXFP4;
        case GGML_FTYPE_MOSTLY_NVFP4:   return GGML_TYPE_NVFP4;
        case GGML_FTYPE_MOSTLY_Q2_K:    return GGML_TYPE_Q2_K;
        case GGML_FTYPE_MOSTLY_Q3_K:    return GGML_TYPE_Q3_K;
        case GGML_FTYPE_MOSTLY_Q4_K:    return GGML_TYPE_Q4_K;
        case GGML_FTYPE_MOSTLY_Q5_K:    return GGML_TYPE_Q5_K;
        case GGML_FTYPE_MOSTLY_Q6_K:    return GGML_TYPE_Q6_K;
        case GGML_FTYPE_MOSTLY_IQ2_XXS: return GGML_TYPE_IQ2_XXS;
        case GGML_FTYPE_MOSTLY_IQ2_XS:  return GGML_TYPE_IQ2_XS;
        case GGML_FTYPE_MOSTLY_IQ2_S:   return GGML_TYPE_IQ2_S;
        case GGML_FTYPE_MOSTLY_IQ3_XXS: return GGML_TYPE_IQ3_XXS;
        case GGML_FTYPE_MOSTLY_IQ3_S:   return GGML_TYPE_IQ3_S;
        case GGML_FTYPE_MOSTLY_IQ1_S:   return GGML_TYPE_IQ1_S;
        case GGML_FTYPE_MOSTLY_IQ1_M:   return GGML_TYPE_IQ1_M;
        case GGML_FTYPE_MOSTLY_IQ4_NL:  return GGML_TYPE_IQ4_NL;
        case GGML_FTYPE_MOSTLY_IQ4_XS:  return GGML_TYPE_IQ4_XS;
        case GGML_FTYPE_UNKNOWN:
        case GGML_FTYPE_MOSTLY_Q4_1_SOME_F16:
            break; // no single weight type
    }
    GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "%s: file type %d has no single weight type", __func__, (int) ftype);
    return GGML_TYPE_COUNT;
}
