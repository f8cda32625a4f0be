#pragma once

// The set of live buffers (ggml-backend-live.c): buffers made by ggml_backend_buffer_init and not
// yet freed. Compute and copy paths consult it before they first read a buffer object.

#include "ggml-backend.h"

#include <stdbool.h>

// false (nothing added) when out of memory
bool ggml_backend_buffer_live_add(ggml_backend_buffer_t buffer);
void ggml_backend_buffer_live_remove(ggml_backend_buffer_t buffer);

// one lookup, under the set's lock
bool ggml_backend_buffer_is_live(ggml_backend_buffer_t buffer);

// many lookups under one lock: lock, has_locked as often as needed, unlock
void ggml_backend_buffer_live_lock(void);
bool ggml_backend_buffer_live_has_locked(ggml_backend_buffer_t buffer);
void ggml_backend_buffer_live_unlock(void);

// false (logged, naming func) when a node or source of the graph is NULL, lies in a freed buffer,
// or (need_data) has no memory; ggml-backend.c
bool ggml_backend_graph_tensors_ready(const struct ggml_cgraph * cgraph, bool need_data, const char * func);
