#pragma once

// Internal to arch/x86/ (and the emulated-kernel tests): the AVX-512 quantized dot products
// (avx512-quant*.c). Two sets: the AVX512F/BW/VL kernels (the AVX-512 table's quant member) and
// the AVX512-VNNI kernels (_mm512_dpbusd_epi32), which cpu-kernels.c lays over the AVX-512 table
// only when ggml_cpu_isa_avx512_vnni() says the CPU has VNNI. Slots left empty inherit the AVX2
// kernels.

#include "x86-kernels.h"

#if GGML_CPU_X86

// the VNNI slots (NULL vec_dot: keep the AVX-512 kernel)
extern const struct ggml_cpu_quant_kernels ggml_cpu_quant_avx512_vnni[GGML_TYPE_COUNT];

// dst[t] = src[t] for every slot src fills (a slot is one unit: vec_dot with its activation type)
static inline void ggml_cpu_quant_overlay(struct ggml_cpu_quant_kernels * dst, const struct ggml_cpu_quant_kernels * src) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (src[t].vec_dot != NULL) {
            dst[t].vec_dot      = src[t].vec_dot;
            dst[t].vec_dot_type = src[t].vec_dot_type;
        }
    }
}

#define GGML_CPU_QUANT_AVX512_SLOTS { 0 }

#endif
