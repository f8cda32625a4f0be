#pragma once

// Internal interface between the graph allocator (ggml-alloc-graph.c) and its dynamic offset allocator
// (ggml-alloc-dyn.c). Not installed.

#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Ops whose result may be written over the memory of a source with the same layout while the op
// runs. Backend kernels of these ops must therefore work when dst aliases that source (no
// `restrict` on those pointers). The graph allocator computes them in place when it is safe.
GGML_API bool ggml_op_can_inplace(enum ggml_op op);

//
// Dynamic allocator: plans where tensors go inside a virtual buffer made of up to
// GGML_DYN_MAX_CHUNKS chunks (one real backend buffer each). Works on offsets only; it never
// touches memory. Free space of each chunk is a sorted list of blocks; adjacent free blocks are
// merged; allocation takes the best-fitting free block and otherwise grows a chunk at its end.
//

#define GGML_DYN_MAX_CHUNKS 16

struct ggml_dyn_addr {
    int    chunk;  // index of the chunk (backend buffer)
    size_t offset; // byte offset inside the chunk
};

struct ggml_dyn_tallocr;

// alignment: power of two; max_chunk_size: the buffer type's max buffer size (a chunk grows past it
// only for a single larger tensor, or when it is the last chunk allowed). NULL (logged) on failure.
struct ggml_dyn_tallocr * ggml_dyn_tallocr_new(size_t alignment, size_t max_chunk_size);
void   ggml_dyn_tallocr_free (struct ggml_dyn_tallocr * alloc);
// forgets every allocation and every chunk (keeps its own memory for reuse)
void   ggml_dyn_tallocr_reset(struct ggml_dyn_tallocr * alloc);

// The size actually reserved for a request of size bytes: rounded up to the alignment, at least one
// alignment unit (so that every tensor has its own address). 0 when that would overflow.
size_t ggml_dyn_tallocr_block_size(const struct ggml_dyn_tallocr * alloc, size_t size);

// false (logged) when the request cannot be placed or memory for the bookkeeping runs out
bool   ggml_dyn_tallocr_alloc(struct ggml_dyn_tallocr * alloc, size_t size, struct ggml_dyn_addr * addr);
// returns [addr, addr + size) to the free space; false (logged) when the bookkeeping cannot grow or
// the range is already (partly) free
bool   ggml_dyn_tallocr_release(struct ggml_dyn_tallocr * alloc, struct ggml_dyn_addr addr, size_t size);

int    ggml_dyn_tallocr_n_chunks  (const struct ggml_dyn_tallocr * alloc);
// high-water mark of a chunk: the buffer size it needs (0 for chunks that do not exist)
size_t ggml_dyn_tallocr_chunk_size(const struct ggml_dyn_tallocr * alloc, int chunk);

#ifdef __cplusplus
}
#endif
