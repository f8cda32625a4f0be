// GGUF writer: the metadata serialized into memory, then the tensor data streamed to a FILE
// (from host memory or through the tensor's backend buffer), each tensor padded to the alignment.

#include "gguf-impl.h"
#include "ggml-backend.h"

#include <errno.h>

void gguf_buf_free(struct gguf_buf * buf) {
    ggml_free_mem(buf->data);
    memset(buf, 0, sizeof(*buf));
}

static void buf_put(struct gguf_buf * buf, const void * src, size_t n) {
    if (buf->failed || n == 0) {
        return;
    }
    if (n > SIZE_MAX - buf->size) {
        buf->failed = true;
        return;
    }
    if (buf->size + n > buf->cap) {
        size_t cap = buf->cap == 0 ? 4096 : buf->cap;
        while (cap < buf->size + n) {
            cap = cap > SIZE_MAX / 2 ? buf->size + n : 2 * cap;
        }
        uint8_t * data = ggml_realloc(buf->data, cap);
        if (data == NULL) {
            buf->failed = true;
            return;
        }
        buf->data = data;
        buf->cap  = cap;
    }
    memcpy(buf->data + buf->size, src, n);
    buf->size += n;
}

// the file format is little-endian, as are all targets of this library
static void put_u32(struct gguf_buf * b, uint32_t v) { buf_put(b, &v, sizeof(v)); }
static void put_i32(struct gguf_buf * b, int32_t v)  { buf_put(b, &v, sizeof(v)); }
static void put_u64(struct gguf_buf * b, uint64_t v) { buf_put(b, &v, sizeof(v)); }
static void put_i64(struct gguf_buf * b, int64_t v)  { buf_put(b, &v, sizeof(v)); }

static void put_str(struct gguf_buf * b, const char * s) {
    const size_t len = strlen(s);
    put_u64(b, (uint64_t) len);
    buf_put(b, s, len);
}

static void put_padding(struct gguf_buf * b, size_t alignment) {
    static const uint8_t zeros[256] = { 0 };
    size_t n = (size_t) (gguf_pad(b->size, alignment) - b->size);
    while (n > 0) {
        const size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
        buf_put(b, zeros, k);
        n -= k;
    }
}

bool gguf_write_meta(const struct gguf_context * ctx, struct gguf_buf * b) {
    buf_put(b, GGUF_MAGIC, 4);
    put_u32(b, ctx->version);
    put_i64(b, ctx->n_tensors);
    put_i64(b, ctx->n_kv);
    for (int64_t i = 0; i < ctx->n_kv; i++) {
        const struct gguf_kv * kv = &ctx->kv[i];
        put_str(b, kv->key);
        if (kv->is_array) {
            put_i32(b, GGUF_TYPE_ARRAY);
            put_i32(b, (int32_t) kv->type);
            put_u64(b, (uint64_t) kv->n);
        } else {
            put_i32(b, (int32_t) kv->type);
        }
        if (kv->type == GGUF_TYPE_STRING) {
            for (size_t j = 0; j < kv->n; j++) {
                put_str(b, kv->strs[j]);
            }
        } else {
            buf_put(b, kv->data, kv->n * gguf_type_size(kv->type));
        }
    }
    for (int64_t i = 0; i < ctx->n_tensors; i++) {
        const struct gguf_tensor_info * ti = &ctx->info[i];
        put_str(b, ti->t.name);
        const uint32_t n_dims = (uint32_t) ggml_n_dims(&ti->t);
        put_u32(b, n_dims);
        for (uint32_t d = 0; d < n_dims; d++) {
            put_i64(b, ti->t.ne[d]);
        }
        put_i32(b, (int32_t) ti->t.type);
        put_u64(b, ti->offset);
    }
    put_padding(b, ctx->alignment);
    return !b->failed;
}

size_t gguf_get_meta_size(const struct gguf_context * ctx) {
    GGML_CHECK_RET(ctx != NULL, 0, "ctx is NULL");
    struct gguf_buf b = { 0 };
    const bool ok = gguf_write_meta(ctx, &b);
    const size_t size = ok ? b.size : 0;
    gguf_buf_free(&b);
    if (!ok) {
        GGML_LOG_ERROR("%s: out of memory while serializing the metadata\n", __func__);
    }
    return size;
}

void gguf_get_meta_data(const struct gguf_context * ctx, void * data) {
    GGML_CHECK_RET(ctx != NULL && data != NULL, , "ctx or data is NULL");
    struct gguf_buf b = { 0 };
    if (gguf_write_meta(ctx, &b)) {
        memcpy(data, b.data, b.size);
    } else {
        GGML_LOG_ERROR("%s: out of memory while serializing the metadata\n", __func__);
    }
    gguf_buf_free(&b);
}

// writes one tensor's bytes; a tensor in a backend buffer is staged in pieces through host memory
static bool write_tensor_data(const struct gguf_tensor_info * ti, FILE * file) {
    const size_t nbytes = ggml_nbytes(&ti->t);
    if (nbytes == 0) {
        return true;
    }
    if (ti->t.buffer == NULL || ggml_backend_buffer_is_host(ti->t.buffer)) {
        if (ti->t.data == NULL) {
            GGML_LOG_ERROR("gguf_write_to_file: tensor '%s' has no data (gguf_set_tensor_data)\n", ti->t.name);
            return false;
        }
        return fwrite(ti->t.data, 1, nbytes, file) == nbytes;
    }
    const size_t chunk_max = (size_t) 16 << 20;
    const size_t chunk = nbytes < chunk_max ? nbytes : chunk_max;
    void * stage = ggml_malloc(chunk);
    if (stage == NULL) {
        GGML_LOG_ERROR("gguf_write_to_file: out of memory staging tensor '%s'\n", ti->t.name);
        return false;
    }
    bool ok = true;
    for (size_t off = 0; ok && off < nbytes; off += chunk) {
        const size_t n = nbytes - off < chunk ? nbytes - off : chunk;
        ggml_backend_tensor_get(&ti->t, stage, off, n);
        ok = fwrite(stage, 1, n, file) == n;
    }
    ggml_free_mem(stage);
    return ok;
}

bool gguf_write_to_file_ptr(const struct gguf_context * ctx, FILE * file, bool only_meta) {
    GGML_CHECK_RET(ctx != NULL && file != NULL, false, "ctx or file is NULL");
    struct gguf_buf b = { 0 };
    if (!gguf_write_meta(ctx, &b)) {
        GGML_LOG_ERROR("%s: out of memory while serializing the metadata\n", __func__);
        gguf_buf_free(&b);
        return false;
    }
    bool ok = fwrite(b.data, 1, b.size, file) == b.size;
    gguf_buf_free(&b);
    static const uint8_t zeros[256] = { 0 };
    for (int64_t i = 0; ok && !only_meta && i < ctx->n_tensors; i++) {
        const struct gguf_tensor_info * ti = &ctx->info[i];
        if (!write_tensor_data(ti, file)) {
            ok = false;
            break;
        }
        const size_t nbytes = ggml_nbytes(&ti->t);
        size_t pad = (size_t) (gguf_pad(nbytes, ctx->alignment) - nbytes);
        while (ok && pad > 0) {
            const size_t k = pad < sizeof(zeros) ? pad : sizeof(zeros);
            ok = fwrite(zeros, 1, k, file) == k;
            pad -= k;
        }
    }
    if (!ok) {
        GGML_LOG_ERROR("%s: failed to write the GGUF data: %s\n", __func__, strerror(errno));
    }
    return ok;
}

bool gguf_write_to_file(const struct gguf_context * ctx, const char * fname, bool only_meta) {
    GGML_CHECK_RET(ctx != NULL && fname != NULL, false, "ctx or fname is NULL");
    FILE * file = fopen(fname, "wb");
    if (file == NULL) {
        GGML_LOG_ERROR("%s: cannot open '%s' for writing: %s\n", __func__, fname, strerror(errno));
        return false;
    }
    bool ok = gguf_write_to_file_ptr(ctx, file, only_meta);
    if (fclose(file) != 0 && ok) {
        GGML_LOG_ERROR("%s: failed to close '%s': %s\n", __func__, fname, strerror(errno));
        ok = false;
    }
    return ok;
}
