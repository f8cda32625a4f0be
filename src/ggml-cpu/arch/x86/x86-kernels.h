#pragma once

// Internal to arch/x86/: the pieces each x86 level's table (avx2.c, avx512.c) is assembled from.
// Every function under arch/x86/ carries a target attribute (GGML_TARGET_AVX2 / _AVX512 of
// ggml-cpu-isa.h), so the folder builds without -march flags; cpu-kernels.c hands a table out only
// when ggml_cpu_isa() says the CPU runs it.

#include "ggml-cpu/cpu-kernels.h"

#if GGML_CPU_X86
// row helpers (avx2-vec.c, avx512-vec.c)
extern const struct ggml_vec_funcs  ggml_cpu_vec_avx2;
extern const struct ggml_vec_funcs  ggml_cpu_vec_avx512;
// matrix-product kernel sets (avx2-gemm.c, avx512-gemm.c)
extern const struct ggml_mm_kernels ggml_cpu_mm_avx2;
extern const struct ggml_mm_kernels ggml_cpu_mm_avx512;
// few-columns matrix products (avx2-gemv-cols.c, avx512-gemv-cols.c)
void ggml_cpu_gemv_cols_avx2(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                             const float * const * b, int nb, float * out, int64_t ldo);
void ggml_cpu_gemv_cols_h_avx2(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                               const float * const * b, const ggml_fp16_t * const * bh, int nh, int nb,
                               float * out, int64_t ldo);
// Walsh-Hadamard transform (avx2-fwht.c)
void ggml_cpu_fwht_avx2(int64_t n, float * y, const float * x, float s);
void ggml_cpu_gemv_cols_avx512(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                               const float * const * b, int nb, float * out, int64_t ldo);
#endif
