#pragma once

// MUL_MAT fast paths of the OpenCL backend (ocl-matmul-tiled.c, kernels/mul_mat_tiled.cl):
// register-blocked and local-memory tiled kernels, used by ggml_ocl_mul_mat (ocl-matmul.c) before
// its simple kernel. See docs/opencl-matmul.md.

#include "ggml-opencl-impl.h"

// Whether ggml_ocl_mul_mat_tiled computes this MUL_MAT node on device d: a and b F32, F16 or BF16
// with rows contiguous along k, dst F32, strides and offsets multiples of the element sizes, and
// the program kernels/mul_mat_tiled.cl built (it is built here on first use, so call this from the
// compute path, not from supports_op). Does not log, except for a failed first build.
// GGML_OPENCL_MATMUL=simple makes it false (the simple kernel then computes every node).
bool ggml_ocl_mul_mat_tiled_supports(struct ggml_ocl_device * d, const struct ggml_tensor * op);

// Enqueues dst = mul_mat(src0, src1) on be->queue (no wait). Only for nodes the function above
// accepts. false (logged) on failure.
bool ggml_ocl_mul_mat_tiled(struct ggml_ocl_backend * be, const struct ggml_tensor * src0, const struct ggml_tensor * src1,
                            struct ggml_tensor * dst);
