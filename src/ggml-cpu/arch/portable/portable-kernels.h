#pragma once

// Internal to arch/portable/: the pieces the portable table (portable.c) is assembled from. Plain
// C only: what the compiler makes of it for the build's -march. This level runs everywhere and
// is the reference the SIMD levels are tested against; its table has no gaps.

#include "ggml-cpu/cpu-kernels.h"

// row helpers (portable-vec.c)
extern const struct ggml_vec_funcs  ggml_cpu_vec_portable;
// matrix-product kernel set (portable-gemm.c)
extern const struct ggml_mm_kernels ggml_cpu_mm_portable;
