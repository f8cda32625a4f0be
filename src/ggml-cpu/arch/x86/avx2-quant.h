#pragma once

// Internal to arch/x86/: the AVX2 quantized dot products (avx2-quant.c, avx2-quant-k.c and the
// avx2-quant-*.c files named below) and the initializer of the
// AVX2 table's quant member (avx2.c). Slots left out inherit the portable kernels.

#include "x86-kernels.h"

#if GGML_CPU_X86
#include <immintrin.h>

// fp16 scale to float with F16C, inline (ggml_compute_fp16_to_fp32 is a call per block); exact
GGML_TARGET_AVX2 static inline float q_fp16_avx2(ggml_fp16_t h) {
    return _cvtsh_ss(h);
}

#define GGML_CPU_Q_DECL_AVX2(t) \
    void ggml_cpu_q_dot_##t##_avx2(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc);
GGML_CPU_Q_DECL_AVX2(q4_0) GGML_CPU_Q_DECL_AVX2(q4_1) GGML_CPU_Q_DECL_AVX2(q5_0) GGML_CPU_Q_DECL_AVX2(q5_1)
GGML_CPU_Q_DECL_AVX2(q8_0) GGML_CPU_Q_DECL_AVX2(iq4_nl) GGML_CPU_Q_DECL_AVX2(q4_K) GGML_CPU_Q_DECL_AVX2(q6_K)
GGML_CPU_Q_DECL_AVX2(q5_K) GGML_CPU_Q_DECL_AVX2(iq4_xs) GGML_CPU_Q_DECL_AVX2(q2_K)
// avx2-quant-q3k.c, avx2-quant-iq.c, avx2-quant-ternary.c, avx2-quant-fp4.c
GGML_CPU_Q_DECL_AVX2(q3_K) GGML_CPU_Q_DECL_AVX2(iq2_xxs) GGML_CPU_Q_DECL_AVX2(iq2_xs) GGML_CPU_Q_DECL_AVX2(iq2_s)
GGML_CPU_Q_DECL_AVX2(iq3_xxs) GGML_CPU_Q_DECL_AVX2(iq3_s) GGML_CPU_Q_DECL_AVX2(iq1_s) GGML_CPU_Q_DECL_AVX2(iq1_m)
GGML_CPU_Q_DECL_AVX2(tq1_0) GGML_CPU_Q_DECL_AVX2(tq2_0) GGML_CPU_Q_DECL_AVX2(mxfp4) GGML_CPU_Q_DECL_AVX2(nvfp4)
// avx2-quant-q1q2.c
GGML_CPU_Q_DECL_AVX2(q1_0) GGML_CPU_Q_DECL_AVX2(q2_0)
#undef GGML_CPU_Q_DECL_AVX2

// activation quantizers (avx2-quant-q8.c): bytes equal to quantize_row_q8_{0,1,K}_ref
void ggml_cpu_q_from_float_q8_0_avx2(const float * x, void * y, int64_t k);
void ggml_cpu_q_from_float_q8_1_avx2(const float * x, void * y, int64_t k);
void ggml_cpu_q_from_float_q8_K_avx2(const float * x, void * y, int64_t k);

// the register tiles (avx2-quant-tile.c, avx2-quant-tile-k.c, MXFP4's in avx2-quant-tile.c)
#define GGML_CPU_QT_DECL_AVX2(t) \
    void ggml_cpu_q_tile_##t##_avx2(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, \
            int nr, int nc);
GGML_CPU_QT_DECL_AVX2(q4_0) GGML_CPU_QT_DECL_AVX2(q4_1) GGML_CPU_QT_DECL_AVX2(q5_0) GGML_CPU_QT_DECL_AVX2(q5_1)
GGML_CPU_QT_DECL_AVX2(q8_0) GGML_CPU_QT_DECL_AVX2(iq4_nl) GGML_CPU_QT_DECL_AVX2(q4_K) GGML_CPU_QT_DECL_AVX2(q5_K)
GGML_CPU_QT_DECL_AVX2(q6_K) GGML_CPU_QT_DECL_AVX2(iq4_xs)
GGML_CPU_QT_DECL_AVX2(q2_K) GGML_CPU_QT_DECL_AVX2(q3_K) // avx2-quant-tile-k23.c
GGML_CPU_QT_DECL_AVX2(mxfp4) GGML_CPU_QT_DECL_AVX2(nvfp4) // avx2-quant-fp4.c: NVFP4's
GGML_CPU_QT_DECL_AVX2(q1_0) // avx2-quant-tile-q1.c
GGML_CPU_QT_DECL_AVX2(tq1_0) GGML_CPU_QT_DECL_AVX2(tq2_0) // avx2-quant-tile-tq.c
GGML_CPU_QT_DECL_AVX2(iq2_xxs) GGML_CPU_QT_DECL_AVX2(iq2_xs) GGML_CPU_QT_DECL_AVX2(iq2_s) // avx2-quant-iq.c
GGML_CPU_QT_DECL_AVX2(iq3_xxs) GGML_CPU_QT_DECL_AVX2(iq3_s) GGML_CPU_QT_DECL_AVX2(iq1_s) GGML_CPU_QT_DECL_AVX2(iq1_m)
#undef GGML_CPU_QT_DECL_AVX2

// the grid formats' prompt panels (avx2-quant-iq.c): one unpack per format, one panel kernel
#define GGML_CPU_QP_DECL_AVX2(t) void ggml_cpu_q_unpack_##t##_avx2(int n, void * panel, const void * x, size_t bx, int nr);
GGML_CPU_QP_DECL_AVX2(iq2_xxs) GGML_CPU_QP_DECL_AVX2(iq2_xs) GGML_CPU_QP_DECL_AVX2(iq2_s)
GGML_CPU_QP_DECL_AVX2(iq3_xxs) GGML_CPU_QP_DECL_AVX2(iq3_s) GGML_CPU_QP_DECL_AVX2(iq1_s) GGML_CPU_QP_DECL_AVX2(iq1_m)
#undef GGML_CPU_QP_DECL_AVX2
void ggml_cpu_q_tile_panel_grid_avx2(int n, float * s, size_t bs, const void * panel, const void * y, size_t by, int nr, int nc);

// the decode kernels (avx2-quant-gemv.c; the K-quants' and IQ4_XS's in avx2-quant-gemv-k.c)
#define GGML_CPU_QG_DECL_AVX2(t) \
    void ggml_cpu_q_gemv_##t##_avx2(int n, float * s, const void * x, size_t bx, const void * y, int nr);
GGML_CPU_QG_DECL_AVX2(q4_0) GGML_CPU_QG_DECL_AVX2(q4_1) GGML_CPU_QG_DECL_AVX2(q5_0) GGML_CPU_QG_DECL_AVX2(q5_1)
GGML_CPU_QG_DECL_AVX2(iq4_nl) GGML_CPU_QG_DECL_AVX2(q8_0) GGML_CPU_QG_DECL_AVX2(q4_K) GGML_CPU_QG_DECL_AVX2(q5_K)
GGML_CPU_QG_DECL_AVX2(q2_K) GGML_CPU_QG_DECL_AVX2(q3_K) GGML_CPU_QG_DECL_AVX2(q6_K) GGML_CPU_QG_DECL_AVX2(iq4_xs)
GGML_CPU_QG_DECL_AVX2(mxfp4)
#undef GGML_CPU_QG_DECL_AVX2

#define GGML_CPU_QUANT_AVX2_SLOTS { \
    [GGML_TYPE_Q4_0]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q4_0_avx2, NULL, ggml_cpu_q_tile_q4_0_avx2, ggml_cpu_q_gemv_q4_0_avx2 }, \
    [GGML_TYPE_Q4_1]   = { GGML_TYPE_Q8_1, ggml_cpu_q_dot_q4_1_avx2, NULL, ggml_cpu_q_tile_q4_1_avx2, ggml_cpu_q_gemv_q4_1_avx2 }, \
    [GGML_TYPE_Q5_0]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q5_0_avx2, NULL, ggml_cpu_q_tile_q5_0_avx2, ggml_cpu_q_gemv_q5_0_avx2 }, \
    [GGML_TYPE_Q5_1]   = { GGML_TYPE_Q8_1, ggml_cpu_q_dot_q5_1_avx2, NULL, ggml_cpu_q_tile_q5_1_avx2, ggml_cpu_q_gemv_q5_1_avx2 }, \
    [GGML_TYPE_Q8_0]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q8_0_avx2, ggml_cpu_q_from_float_q8_0_avx2, ggml_cpu_q_tile_q8_0_avx2, ggml_cpu_q_gemv_q8_0_avx2 }, \
    [GGML_TYPE_IQ4_NL] = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_iq4_nl_avx2, NULL, ggml_cpu_q_tile_iq4_nl_avx2, ggml_cpu_q_gemv_iq4_nl_avx2 }, \
    [GGML_TYPE_Q4_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q4_K_avx2, NULL, ggml_cpu_q_tile_q4_K_avx2, ggml_cpu_q_gemv_q4_K_avx2 }, \
    [GGML_TYPE_Q6_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q6_K_avx2, NULL, ggml_cpu_q_tile_q6_K_avx2, ggml_cpu_q_gemv_q6_K_avx2 }, \
    [GGML_TYPE_Q5_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q5_K_avx2, NULL, ggml_cpu_q_tile_q5_K_avx2, ggml_cpu_q_gemv_q5_K_avx2 }, \
    [GGML_TYPE_IQ4_XS] = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq4_xs_avx2, NULL, ggml_cpu_q_tile_iq4_xs_avx2, ggml_cpu_q_gemv_iq4_xs_avx2 }, \
    [GGML_TYPE_Q2_K]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q2_K_avx2, NULL, ggml_cpu_q_tile_q2_K_avx2, ggml_cpu_q_gemv_q2_K_avx2 }, \
    [GGML_TYPE_Q3_K]    = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_q3_K_avx2, NULL, ggml_cpu_q_tile_q3_K_avx2, ggml_cpu_q_gemv_q3_K_avx2 }, \
    [GGML_TYPE_IQ2_XXS] = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq2_xxs_avx2, NULL, ggml_cpu_q_tile_iq2_xxs_avx2, NULL, \
                            ggml_cpu_q_unpack_iq2_xxs_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_IQ2_XS]  = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq2_xs_avx2, NULL, ggml_cpu_q_tile_iq2_xs_avx2, NULL, \
                            ggml_cpu_q_unpack_iq2_xs_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_IQ2_S]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq2_s_avx2, NULL, ggml_cpu_q_tile_iq2_s_avx2, NULL, \
                            ggml_cpu_q_unpack_iq2_s_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_IQ3_XXS] = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq3_xxs_avx2, NULL, ggml_cpu_q_tile_iq3_xxs_avx2, NULL, \
                            ggml_cpu_q_unpack_iq3_xxs_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_IQ3_S]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq3_s_avx2, NULL, ggml_cpu_q_tile_iq3_s_avx2, NULL, \
                            ggml_cpu_q_unpack_iq3_s_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_IQ1_S]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq1_s_avx2, NULL, ggml_cpu_q_tile_iq1_s_avx2, NULL, \
                            ggml_cpu_q_unpack_iq1_s_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_IQ1_M]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_iq1_m_avx2, NULL, ggml_cpu_q_tile_iq1_m_avx2, NULL, \
                            ggml_cpu_q_unpack_iq1_m_avx2, ggml_cpu_q_tile_panel_grid_avx2 }, \
    [GGML_TYPE_TQ1_0]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_tq1_0_avx2, NULL, ggml_cpu_q_tile_tq1_0_avx2 }, \
    [GGML_TYPE_TQ2_0]   = { GGML_TYPE_Q8_K, ggml_cpu_q_dot_tq2_0_avx2, NULL, ggml_cpu_q_tile_tq2_0_avx2 }, \
    [GGML_TYPE_MXFP4]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_mxfp4_avx2, NULL, ggml_cpu_q_tile_mxfp4_avx2, ggml_cpu_q_gemv_mxfp4_avx2 }, \
    [GGML_TYPE_NVFP4]   = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_nvfp4_avx2, NULL, ggml_cpu_q_tile_nvfp4_avx2 }, \
    [GGML_TYPE_Q1_0]    = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q1_0_avx2, NULL, ggml_cpu_q_tile_q1_0_avx2 }, \
    [GGML_TYPE_Q2_0]    = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q2_0_avx2, NULL }, \
    [GGML_TYPE_Q8_1]    = { GGML_TYPE_Q8_1, NULL, ggml_cpu_q_from_float_q8_1_avx2 }, \
    [GGML_TYPE_Q8_K]    = { GGML_TYPE_Q8_K, NULL, ggml_cpu_q_from_float_q8_K_avx2 }, \
}
#endif
