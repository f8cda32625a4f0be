#pragma once

// Adjacent nodes the CPU graph walker computes as one (ggml-cpu-graph.c): RMS_NORM followed by a
// MUL of its result (the norm's weight). The fused kernel writes both results with the same
// vector functions in the same order as the two nodes, so it equals them bit for bit.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"

// whether mul (the next computed node after norm) can be computed together with norm
bool ggml_cpu_fused_rms_norm_mul_applies(const struct ggml_tensor * norm, const struct ggml_tensor * mul);
// computes norm and mul; threads split the rows as the norm's n_tasks says
void ggml_cpu_fused_rms_norm_mul_forward(const struct ggml_compute_params * params, struct ggml_tensor * norm,
                                         struct ggml_tensor * mul);

// SSM_CONV (cpu-ops-ssm-conv.c): the op in tiles of channels x tokens (every packed F32 case; the
// seq family's forward calls it) and, fused with the nodes after it, silu(conv + bias) or
// silu(conv): the ADD's second operand a bias of one F32 per channel, the SILU of the ADD (or of
// the conv). Equal to the separate nodes bit for bit. add may be NULL.
bool ggml_cpu_ssm_conv_tiled_applies(const struct ggml_tensor * conv);
void ggml_cpu_ssm_conv_tiled(const struct ggml_vec_funcs * vf, const struct ggml_tensor * conv, int ith, int nth);
bool ggml_cpu_fused_ssm_conv_applies(const struct ggml_tensor * conv, const struct ggml_tensor * add,
                                     const struct ggml_tensor * silu);
void ggml_cpu_fused_ssm_conv_forward(const struct ggml_compute_params * params, struct ggml_tensor * conv,
                                     struct ggml_tensor * add, struct ggml_tensor * silu);
