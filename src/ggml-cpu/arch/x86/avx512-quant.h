#pragma once

// Internal to arch/x86/ (and the emulated-kernel tests, tests/avx512-emu/): the AVX-512 quantized
// dot products (avx512-quant.c: the 32-element formats; avx512-quant-k.c: the 256-element ones).
// Every kernel exists twice: for AVX512F/BW/VL (the AVX-512 table's quant member) and for
// AVX512-VNNI (_mm512_dpbusd_epi32), which cpu-kernels.c lays over the AVX-512 table only when
// ggml_cpu_isa_avx512_vnni() says the CPU has VNNI. Slots left empty inherit the AVX2 kernels.

#include "x86-kernels.h"

#if GGML_CPU_X86

#define GGML_CPU_Q_DECL_AVX512(t) \
    void ggml_cpu_q_dot_##t##_avx512(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc); \
    void ggml_cpu_q_dot_##t##_avx512_vnni(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc);
GGML_CPU_Q_DECL_AVX512(q4_0) GGML_CPU_Q_DECL_AVX512(q4_1) GGML_CPU_Q_DECL_AVX512(q5_0) GGML_CPU_Q_DECL_AVX512(q5_1)
GGML_CPU_Q_DECL_AVX512(q8_0) GGML_CPU_Q_DECL_AVX512(iq4_nl) GGML_CPU_Q_DECL_AVX512(mxfp4)
GGML_CPU_Q_DECL_AVX512(q2_K) GGML_CPU_Q_DECL_AVX512(q3_K) GGML_CPU_Q_DECL_AVX512(q4_K) GGML_CPU_Q_DECL_AVX512(q5_K)
GGML_CPU_Q_DECL_AVX512(q6_K) GGML_CPU_Q_DECL_AVX512(iq4_xs)
#undef GGML_CPU_Q_DECL_AVX512

// the decode kernels (avx512-quant-gemv.c; IQ4_XS: avx512-quant-gemv-k.c; Q2_K .. Q6_K:
// avx512-quant-gemv-kq.c)
#define GGML_CPU_Q_GEMV_DECL_AVX512(t) \
    void ggml_cpu_q_gemv_##t##_avx512(int n, float * s, const void * x, size_t bx, const void * y, int nr); \
    void ggml_cpu_q_gemv_##t##_avx512_vnni(int n, float * s, const void * x, size_t bx, const void * y, int nr);
GGML_CPU_Q_GEMV_DECL_AVX512(q4_0) GGML_CPU_Q_GEMV_DECL_AVX512(q4_1) GGML_CPU_Q_GEMV_DECL_AVX512(q5_0)
GGML_CPU_Q_GEMV_DECL_AVX512(q5_1) GGML_CPU_Q_GEMV_DECL_AVX512(q8_0) GGML_CPU_Q_GEMV_DECL_AVX512(iq4_nl)
GGML_CPU_Q_GEMV_DECL_AVX512(iq4_xs) GGML_CPU_Q_GEMV_DECL_AVX512(q2_K) GGML_CPU_Q_GEMV_DECL_AVX512(q3_K)
GGML_CPU_Q_GEMV_DECL_AVX512(q4_K) GGML_CPU_Q_GEMV_DECL_AVX512(q5_K) GGML_CPU_Q_GEMV_DECL_AVX512(q6_K)
GGML_CPU_Q_GEMV_DECL_AVX512(mxfp4)
#undef GGML_CPU_Q_GEMV_DECL_AVX512

// the slots of one instruction set (sfx: avx512 or avx512_vnni)
#define GGML_CPU_QUANT_AVX512_SLOTS_OF(sfx) { \
    [GGML_TYPE_Q4_0]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q4_0_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q4_0_##sfx }, \
    [GGML_TYPE_Q4_1]   = { GGML_TYPE_Q8_1, ggml_cpu_q_dot_q4_1_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q4_1_##sfx }, \
    [GGML_TYPE_Q5_0]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q5_0_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q5_0_##sfx }, \
    [GGML_TYPE_Q5_1]   = { GGML_TYPE_Q8_1, ggml_cpu_q_dot_q5_1_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q5_1_##sfx }, \
    [GGML_TYPE_Q8_0]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q8_0_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q8_0_##sfx }, \
    [GGML_TYPE_IQ4_NL] = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_iq4_nl_##sfx, NULL, NULL, ggml_cpu_q_gemv_iq4_nl_##sfx }, \
    [GGML_TYPE_MXFP4]  = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_mxfp4_##sfx,  NULL, NULL, ggml_cpu_q_gemv_mxfp4_##sfx }, \
    [GGML_TYPE_Q2_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q2_K_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q2_K_##sfx }, \
    [GGML_TYPE_Q3_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q3_K_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q3_K_##sfx }, \
    [GGML_TYPE_Q4_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q4_K_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q4_K_##sfx }, \
    [GGML_TYPE_Q5_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q5_K_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q5_K_##sfx }, \
    [GGML_TYPE_Q6_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q6_K_##sfx,   NULL, NULL, ggml_cpu_q_gemv_q6_K_##sfx }, \
    [GGML_TYPE_IQ4_XS] = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq4_xs_##sfx, NULL, NULL, ggml_cpu_q_gemv_iq4_xs_##sfx }, \
}
#define GGML_CPU_QUANT_AVX512_SLOTS GGML_CPU_QUANT_AVX512_SLOTS_OF(avx512)

// the VNNI slots (avx512-quant.c)
extern const struct ggml_cpu_quant_kernels ggml_cpu_quant_avx512_vnni[GGML_TYPE_COUNT];

// dst[t] = src[t] for every slot src fills (a slot is one unit: vec_dot with its activation type;
// the decode kernel where src has one)
static inline void ggml_cpu_quant_overlay(struct ggml_cpu_quant_kernels * dst, const struct ggml_cpu_quant_kernels * src) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (src[t].vec_dot != NULL) {
            dst[t].vec_dot      = src[t].vec_dot;
            dst[t].vec_dot_type = src[t].vec_dot_type;
        }
        if (src[t].gemv != NULL) {
            dst[t].gemv = src[t].gemv;
        }
    }
}

#endif
