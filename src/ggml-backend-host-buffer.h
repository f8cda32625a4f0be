#pragma once

// Data access for buffers in host memory, written once for every host buffer type: the CPU
// buffers (ggml-backend-cpu-buffer.c) and the OpenCL backend's pinned host buffers. Such a buffer
// supplies how its memory is freed and where it starts; the rest is plain memory access.

#include "ggml-backend-impl.h"

// the interface of a host-memory buffer: tensor access by memset/memcpy on tensor->data, copies
// from any host buffer (size-checked, overlap-safe), clear over [get_base, +size)
GGML_API struct ggml_backend_buffer_i ggml_backend_host_buffer_iface(
        void   (*free_buffer)(ggml_backend_buffer_t buffer),
        void * (*get_base)   (ggml_backend_buffer_t buffer));
