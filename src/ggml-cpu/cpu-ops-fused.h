#pragma once

// Adjacent nodes the CPU graph walker computes as one (ggml-cpu-graph.c): RMS_NORM followed by a
// MUL of its result (the norm's weight). The fused kernel writes both results with the same
// vector functions in the same order as the two nodes, so it equals them bit for bit.

#include "ggml-cpu-impl.h"

// whether mul (the next computed node after norm) can be computed together with norm
bool ggml_cpu_fused_rms_norm_mul_applies(const struct ggml_tensor * norm, const struct ggml_tensor * mul);
// computes norm and mul; threads split the rows as the norm's n_tasks says
void ggml_cpu_fused_rms_norm_mul_forward(const struct ggml_compute_params * params, struct ggml_tensor * norm,
                                         struct ggml_tensor * mul);
