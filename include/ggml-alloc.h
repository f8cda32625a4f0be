#pragma once

// Allocators that place tensors in backend buffers.
//
// - ggml_tallocr: a linear (bump) allocator over one existing buffer.
// - ggml_gallocr: the graph allocator. It plans one compute buffer per buffer type for a graph,
//   reusing the memory of tensors whose last consumer has run and computing element-wise ops in
//   place where that is safe, then assigns every tensor of the graph an address in that buffer.
// - ggml_backend_alloc_ctx_tensors*: allocate every tensor of a no_alloc context in new buffers.
//
// Names and signatures follow the ggml family. Unlike the family, nothing here aborts: running
// out of space or memory is logged and reported as GGML_STATUS_ALLOC_FAILED / false / NULL, and
// nothing is leaked on those paths.

#include "ggml.h"

#ifdef  __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct      ggml_backend_buffer * ggml_backend_buffer_t;
typedef struct             ggml_backend * ggml_backend_t;

// Linear tensor allocator over one buffer; tensors are placed one after the other, aligned to
// the buffer's alignment. There is no free.
struct ggml_tallocr {
    ggml_backend_buffer_t buffer;
    void * base;
    size_t alignment;
    size_t offset;
};

// A NULL buffer gives an allocator whose every alloc fails.
GGML_API struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer);
// GGML_STATUS_ALLOC_FAILED (logged) when the tensor does not fit in what is left of the buffer.
GGML_API enum ggml_status    ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor);

// Graph allocator
/*
  Example usage:
    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());

    // optional: reserve with a worst-case graph so that later graphs need no reallocation
    ggml_gallocr_reserve(galloc, build_graph(max_batch));

    struct ggml_cgraph * graph = build_graph(batch);
    if (!ggml_gallocr_alloc_graph(galloc, graph)) { ... out of memory ... }

    printf("compute buffer size: %zu bytes\n", ggml_gallocr_get_buffer_size(galloc, 0));

    ggml_backend_graph_compute(backend, graph);
*/

// Tensor flags the graph allocator honours:
//   ggml_set_input():  input tensors are allocated first, at addresses that no other tensor of
//                      the graph shares
//   ggml_set_output(): output tensors are never freed and never overwritten by later nodes
// Tensors that already have memory (data or buffer set) are left where they are.

typedef struct ggml_gallocr * ggml_gallocr_t;

// NULL (logged) on bad arguments or out of memory
GGML_API ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft);
GGML_API ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs);
GGML_API void           ggml_gallocr_free(ggml_gallocr_t galloc);

// Plans the graph and allocates the buffers it needs (does not assign addresses to the graph's
// tensors). Call it with a worst-case graph to avoid reallocations later. Not required with a
// single buffer: ggml_gallocr_alloc_graph reserves by itself when needed.
// node_buffer_ids / leaf_buffer_ids give the buffer index of each node / leaf (NULL: buffer 0).
// Buffers only grow: a buffer that already holds the plan is kept.
// Returns false (logged) when planning or a buffer allocation fails; a buffer that had to grow is
// then left unallocated (size 0) until a later reserve or alloc_graph succeeds.
GGML_API bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph);
GGML_API bool ggml_gallocr_reserve_n(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids);
// Plans like ggml_gallocr_reserve_n and writes to sizes[i] the size buffer i would get, without
// allocating anything. On failure every size is 0.
GGML_API void ggml_gallocr_reserve_n_size(
    ggml_gallocr_t galloc,
    struct ggml_cgraph * graph,
    const int * node_buffer_ids,
    const int * leaf_buffer_ids,
    size_t * sizes);

// Assigns memory to every tensor of the graph. With a single buffer, a graph that does not fit
// the last reservation is reserved again automatically. With several buffers it returns false
// (logged) in that case, or when the graph has another number of nodes or leafs than the last one
// reserved (the buffer ids are taken by position from that reservation): call ggml_gallocr_reserve_n
// first. False also on allocation failure.
// Tensors placed by an earlier call of this allocator are placed again; tensors with memory from
// anywhere else are left alone. Addresses stay valid until the allocator is freed, its buffers
// grow, or it allocates another graph; a graph allocated by a freed allocator must be rebuilt (its
// tensors still point into the freed buffers).
GGML_API bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph);

// size of buffer buffer_id (0 when not allocated; a buffer shared by several ids counts once,
// at its first id)
GGML_API size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id);

// Utils
// Allocates every tensor of a no_alloc context that has no memory yet, in one buffer of buft, or
// in several bundled in one multi-buffer when the buffer type's max size demands it.
// Returns NULL when nothing needs memory (all allocated or zero-sized) or on failure (logged;
// nothing is left allocated).
// The _size variant returns the total size those buffers would have.
GGML_API size_t                       ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);
// uses the backend's default buffer type
GGML_API struct ggml_backend_buffer * ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend);

#ifdef  __cplusplus
}
#endif
