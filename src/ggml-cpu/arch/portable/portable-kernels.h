#pragma once

// Internal to arch/portable/: the pieces the portable table (portable.c) is assembled from. Plain
// C only: what the compiler makes of it for the build's -march. This level runs everywhere and
// is the reference the SIMD levels are tested against; its table has no gaps.

#include "ggml-cpu/cpu-kernels.h"

// row helpers (portable-vec.c)
extern const struct ggml_vec_funcs  ggml_cpu_vec_portable;
// matrix-product kernel set (portable-gemm.c)
extern const struct ggml_mm_kernels ggml_cpu_mm_portable;
// few-columns matrix product (portable-gemv-cols.c)
void ggml_cpu_gemv_cols_portable(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                 const float * const * b, int nb, float * out, int64_t ldo);
// Walsh-Hadamard transform (portable-fwht.c)
void ggml_cpu_fwht_portable(int64_t n, float * y, const float * x, float s);
