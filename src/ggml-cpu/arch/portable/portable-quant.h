#pragma once

// Internal to the CPU backend: the portable quantized slots (portable-quant.c) and the
// initializer of the portable table's quant member (portable.c).

#include "ggml-cpu/cpu-kernels.h"

void ggml_cpu_q_dot_generic(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc,
        enum ggml_type tx);

#define GGML_CPU_Q_DECL(t) \
    void ggml_cpu_q_dot_##t##_portable(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc);
GGML_CPU_Q_DECL(q4_0) GGML_CPU_Q_DECL(q4_1) GGML_CPU_Q_DECL(q5_0) GGML_CPU_Q_DECL(q5_1) GGML_CPU_Q_DECL(q8_0)
GGML_CPU_Q_DECL(q2_K) GGML_CPU_Q_DECL(q3_K) GGML_CPU_Q_DECL(q4_K) GGML_CPU_Q_DECL(q5_K) GGML_CPU_Q_DECL(q6_K)
GGML_CPU_Q_DECL(iq2_xxs) GGML_CPU_Q_DECL(iq2_xs) GGML_CPU_Q_DECL(iq2_s) GGML_CPU_Q_DECL(iq3_xxs) GGML_CPU_Q_DECL(iq3_s)
GGML_CPU_Q_DECL(iq1_s) GGML_CPU_Q_DECL(iq1_m) GGML_CPU_Q_DECL(iq4_nl) GGML_CPU_Q_DECL(iq4_xs)
GGML_CPU_Q_DECL(tq1_0) GGML_CPU_Q_DECL(tq2_0) GGML_CPU_Q_DECL(mxfp4) GGML_CPU_Q_DECL(nvfp4)
GGML_CPU_Q_DECL(q1_0) GGML_CPU_Q_DECL(q2_0)
#undef GGML_CPU_Q_DECL

void ggml_cpu_q_from_float_q8_0(const float * x, void * y, int64_t k);
void ggml_cpu_q_from_float_q8_1(const float * x, void * y, int64_t k);
void ggml_cpu_q_from_float_q8_K(const float * x, void * y, int64_t k);

#define GGML_CPU_Q_SLOT(T, t, A) [GGML_TYPE_##T] = { GGML_TYPE_##A, ggml_cpu_q_dot_##t##_portable, NULL }

// the activation pairing is the family's: Q8_0 for the 32-blocks without a min, Q8_1 for those
// with one, Q8_K for the 256-blocks
#define GGML_CPU_QUANT_PORTABLE_SLOTS { \
    GGML_CPU_Q_SLOT(Q4_0, q4_0, Q8_0), GGML_CPU_Q_SLOT(Q4_1, q4_1, Q8_1), \
    GGML_CPU_Q_SLOT(Q5_0, q5_0, Q8_0), GGML_CPU_Q_SLOT(Q5_1, q5_1, Q8_1), \
    [GGML_TYPE_Q8_0] = { GGML_TYPE_Q8_0, ggml_cpu_q_dot_q8_0_portable, ggml_cpu_q_from_float_q8_0 }, \
    [GGML_TYPE_Q8_1] = { GGML_TYPE_Q8_1, NULL, ggml_cpu_q_from_float_q8_1 }, \
    [GGML_TYPE_Q8_K] = { GGML_TYPE_Q8_K, NULL, ggml_cpu_q_from_float_q8_K }, \
    GGML_CPU_Q_SLOT(Q2_K, q2_K, Q8_K), GGML_CPU_Q_SLOT(Q3_K, q3_K, Q8_K), GGML_CPU_Q_SLOT(Q4_K, q4_K, Q8_K), \
    GGML_CPU_Q_SLOT(Q5_K, q5_K, Q8_K), GGML_CPU_Q_SLOT(Q6_K, q6_K, Q8_K), \
    GGML_CPU_Q_SLOT(IQ2_XXS, iq2_xxs, Q8_K), GGML_CPU_Q_SLOT(IQ2_XS, iq2_xs, Q8_K), GGML_CPU_Q_SLOT(IQ2_S, iq2_s, Q8_K), \
    GGML_CPU_Q_SLOT(IQ3_XXS, iq3_xxs, Q8_K), GGML_CPU_Q_SLOT(IQ3_S, iq3_s, Q8_K), \
    GGML_CPU_Q_SLOT(IQ1_S, iq1_s, Q8_K), GGML_CPU_Q_SLOT(IQ1_M, iq1_m, Q8_K), \
    GGML_CPU_Q_SLOT(IQ4_NL, iq4_nl, Q8_0), GGML_CPU_Q_SLOT(IQ4_XS, iq4_xs, Q8_K), \
    GGML_CPU_Q_SLOT(TQ1_0, tq1_0, Q8_K), GGML_CPU_Q_SLOT(TQ2_0, tq2_0, Q8_K), \
    GGML_CPU_Q_SLOT(MXFP4, mxfp4, Q8_0), GGML_CPU_Q_SLOT(NVFP4, nvfp4, Q8_0), \
    GGML_CPU_Q_SLOT(Q1_0, q1_0, Q8_0), GGML_CPU_Q_SLOT(Q2_0, q2_0, Q8_0), \
}
