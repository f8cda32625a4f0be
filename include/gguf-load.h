// Loading the tensor data of a GGUF file fast (this library's extension; not in the family's headers).
//
// Two ways, both after reading the metadata with gguf_init_from_file(fname, { .no_alloc = true,
// .ctx = &ctx_data }) (ctx_data then holds the tensors without data):
//
// 1. Map the file and use the tensor data where it lies, without copying (CPU):
//      struct gguf_file_map * map = gguf_file_map_open(fname);
//      ggml_backend_buffer_t buf  = gguf_map_tensors(gctx, ctx_data, map);
//    The buffer (a host buffer of ggml_backend_cpu_buffer_from_ptr) must be freed before the map.
//    The mapping is private: writing to a tensor changes the memory, never the file.
//
// 2. Read the data into tensors that are already allocated in any backend buffer (e.g. with
//    ggml_backend_alloc_ctx_tensors(ctx_data, backend)), in large sequential chunks:
//      gguf_load_tensors(gctx, ctx_data, fname, 0, progress, user_data);
//
// See docs/gguf.md and examples/gguf-load.c.

#pragma once

#include "ggml.h"
#include "ggml-backend.h"
#include "gguf.h"

#ifdef  __cplusplus
extern "C" {
#endif

    struct gguf_file_map;

    // maps the whole file read-only (copy-on-write); NULL (logged) on failure
    GGML_API struct gguf_file_map * gguf_file_map_open(const char * fname);
    GGML_API void                   gguf_file_map_free(struct gguf_file_map * map);
    GGML_API const void *           gguf_file_map_data(const struct gguf_file_map * map);
    GGML_API size_t                 gguf_file_map_size(const struct gguf_file_map * map);

    // wraps the mapped data section as a CPU host buffer and points every tensor of ctx_data (made
    // by gguf_init_* with no_alloc) at its data there; NULL (logged) when the map does not hold
    // the file gctx was read from, or a tensor of ctx_data is unknown to gctx or already allocated
    GGML_API ggml_backend_buffer_t gguf_map_tensors(const struct gguf_context * gctx, struct ggml_context * ctx_data,
                                                    const struct gguf_file_map * map);

    // called after each chunk with the fraction loaded (0..1]; returning false cancels the load
    typedef bool (*gguf_progress_callback_t)(float progress, void * user_data);

    // reads the data of every tensor of ctx_data (allocated in any backend buffer) from the file,
    // in chunks of chunk_size bytes (0: 64 MiB); a tensor in host memory is read into directly,
    // others through a staging buffer and ggml_backend_tensor_set. false (logged) on failure or
    // cancellation.
    GGML_API bool gguf_load_tensors(const struct gguf_context * gctx, struct ggml_context * ctx_data,
                                    const char * fname, size_t chunk_size,
                                    gguf_progress_callback_t progress, void * user_data);

#ifdef  __cplusplus
}
#endif
