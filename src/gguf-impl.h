#pragma once

// Internal representation of a gguf_context, shared by the key/value store (gguf-kv.c), the
// tensor table (gguf-tensors.c), the reader (gguf-read.c) and the writer (gguf-write.c).

#include "ggml-impl.h"
#include "gguf.h"

#include <stdint.h>

// one key/value pair; a scalar is an array of one element that is not flagged is_array
struct gguf_kv {
    char *         key;
    enum gguf_type type;      // element type (never GGUF_TYPE_ARRAY)
    bool           is_array;
    size_t         n;         // number of elements
    void *         data;      // n * gguf_type_size(type) bytes; NULL for strings or n == 0
    char **        strs;      // n strings (type GGUF_TYPE_STRING)
};

struct gguf_tensor_info {
    struct ggml_tensor t;     // name, type, ne, nb; data/buffer: where the writer reads from
    uint64_t           offset; // in the data section
};

struct gguf_context {
    uint32_t version;
    size_t   alignment;

    struct gguf_kv * kv;
    int64_t          n_kv;
    int64_t          cap_kv;

    struct gguf_tensor_info * info;
    int64_t                   n_tensors;
    int64_t                   cap_tensors;

    size_t offset;    // start of the data section in the file read
    size_t size;      // bytes of the data section (each tensor padded)
    void * data;      // the data section when it was read into memory
};

// bytes of one element of a key/value type; 0 for STRING, ARRAY and invalid types
size_t gguf_type_size(enum gguf_type type);

static inline uint64_t gguf_pad(uint64_t x, uint64_t align) {
    return (x + align - 1) / align * align;
}

// kv store internals
bool gguf_kv_valid_id(const struct gguf_context * ctx, int64_t key_id, const char * func);
void gguf_kv_clear(struct gguf_kv * kv);
// a standalone pair with a copy of key and room for n elements (strings: n NULL pointers)
bool gguf_kv_init(struct gguf_kv * kv, const char * key, enum gguf_type type, bool is_array, size_t n);
// moves kv to the end of ctx's pairs (the key must not exist); on failure kv is cleared
bool gguf_kv_push(struct gguf_context * ctx, struct gguf_kv * kv);
// recomputes ctx->alignment from general.alignment and the tensor offsets after it
void gguf_update_alignment(struct gguf_context * ctx);

// tensor table internals
void gguf_recompute_offsets(struct gguf_context * ctx, int64_t from);
bool gguf_tensor_shape_valid(const char * name, enum ggml_type type, const int64_t * ne, const char * what);
void gguf_tensor_fill(struct ggml_tensor * t, const char * name, enum ggml_type type, const int64_t * ne);
bool gguf_tensor_info_push(struct gguf_context * ctx, const struct ggml_tensor * t, uint64_t offset);

// metadata serialization: a growable byte buffer
struct gguf_buf {
    uint8_t * data;
    size_t    size;
    size_t    cap;
    bool      failed;
};
bool gguf_write_meta(const struct gguf_context * ctx, struct gguf_buf * buf);
void gguf_buf_free(struct gguf_buf * buf);
