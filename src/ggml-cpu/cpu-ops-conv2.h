#pragma once

// The second half of the conv family (cpu-ops-conv2.c): IM2COL_3D, CONV_3D, CONV_2D_DW,
// CONV_TRANSPOSE_1D, CONV_TRANSPOSE_2D. cpu-ops-conv.c's family entry points hand these ops on.

#include "ggml-cpu-impl.h"

bool             ggml_cpu_conv2_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_conv2_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_conv2_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_conv2_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);
