#pragma once

// FLASH_ATTN_EXT for prompts (many query positions): blocks of query rows times blocks of keys
// through the float GEMM of the matrix-product family (cpu-ops-attn-prompt.c). cpu-ops-attn.c
// hands an op to it when ggml_cpu_attn_prompt_applies() says so.

#include "ggml-cpu-impl.h"

#include <stdbool.h>
#include <stddef.h>

// true for an op that ggml_cpu_attn_supports() accepts with enough query positions for row
// blocks, F32/F16/BF16 K and V whose heads group alike
bool ggml_cpu_attn_prompt_applies(const struct ggml_tensor * op);

// work buffer bytes for n_threads (0 when the op does not apply)
size_t ggml_cpu_attn_prompt_work_size(const struct ggml_tensor * op, int n_threads);

enum ggml_status ggml_cpu_attn_prompt_forward(const struct ggml_compute_params * params, struct ggml_tensor * op);
