#pragma once

// OUT_PROD with a quantized src0 (cpu-ops-outprod-quant.c), reached from the matrix-product
// family's four functions (cpu-ops-matmul.c) whenever ggml_cpu_out_prod_q_applies(op).

#include "ggml-cpu-impl.h"

bool             ggml_cpu_out_prod_q_applies  (const struct ggml_tensor * op);
bool             ggml_cpu_out_prod_q_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_out_prod_q_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_out_prod_q_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_out_prod_q_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);
