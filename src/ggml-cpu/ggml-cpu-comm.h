#pragma once

// The CPU registry's communication hooks for the meta device ("ggml_backend_comm_*").

#include "ggml-backend.h"

void * ggml_backend_cpu_comm_init(ggml_backend_t * backends, size_t n_backends);
void   ggml_backend_cpu_comm_free(void * comm_ctx);
bool   ggml_backend_cpu_comm_allreduce_tensor(void * comm_ctx, struct ggml_tensor ** tensors);
