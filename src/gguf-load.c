// Fast loading of GGUF tensor data (include/gguf-load.h): a private file mapping wrapped as a
// CPU host buffer without copying, or sequential chunked reads into tensors of any backend buffer.

#include "gguf-impl.h"
#include "gguf-load.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct gguf_file_map {
    void * addr;
    size_t size;
};

struct gguf_file_map * gguf_file_map_open(const char * fname) {
    GGML_CHECK_RET(fname != NULL, NULL, "fname is NULL");
    const int fd = open(fname, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        GGML_LOG_ERROR("%s: cannot open '%s': %s\n", __func__, fname, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0 || (uint64_t) st.st_size > SIZE_MAX) {
        GGML_LOG_ERROR("%s: '%s' is empty or its size is unknown\n", __func__, fname);
        close(fd);
        return NULL;
    }
    struct gguf_file_map * map = ggml_calloc(1, sizeof(*map));
    if (map == NULL) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        close(fd);
        return NULL;
    }
    map->size = (size_t) st.st_size;
    // private and writable: a tensor written to changes only this process's copy of the page
    map->addr = mmap(NULL, map->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    const int err = errno;
    close(fd);
    if (map->addr == MAP_FAILED) {
        GGML_LOG_ERROR("%s: cannot map '%s' (%zu bytes): %s\n", __func__, fname, map->size, strerror(err));
        ggml_free_mem(map);
        return NULL;
    }
    // the data is read once, front to back, while the model loads
    madvise(map->addr, map->size, MADV_WILLNEED);
    return map;
}

void gguf_file_map_free(struct gguf_file_map * map) {
    if (map == NULL) {
        return;
    }
    munmap(map->addr, map->size);
    ggml_free_mem(map);
}

const void * gguf_file_map_data(const struct gguf_file_map * map) {
    return map != NULL ? map->addr : NULL;
}

size_t gguf_file_map_size(const struct gguf_file_map * map) {
    return map != NULL ? map->size : 0;
}

// the gguf tensor info matching a tensor of ctx_data (same name, type and shape), or NULL (logged)
static const struct gguf_tensor_info * matching_info(const struct gguf_context * gctx, const struct ggml_tensor * t,
                                                     const char * func) {
    const int64_t id = gguf_find_tensor(gctx, t->name);
    if (id < 0) {
        GGML_LOG_ERROR("%s: tensor '%s' is not in the GGUF file\n", func, t->name);
        return NULL;
    }
    const struct gguf_tensor_info * ti = &gctx->info[id];
    if (ti->t.type != t->type || !ggml_are_same_shape(&ti->t, t) || !ggml_is_contiguous(t)) {
        GGML_LOG_ERROR("%s: tensor '%s' differs in type or shape from the file's, or is not contiguous\n", func, t->name);
        return NULL;
    }
    return ti;
}

// bytes of the data section that the source holds (the last tensor's padding may be missing)
static size_t data_bytes_needed(const struct gguf_context * gctx) {
    if (gctx->n_tensors == 0) {
        return 0;
    }
    const struct gguf_tensor_info * last = &gctx->info[gctx->n_tensors - 1];
    return (size_t) last->offset + ggml_nbytes(&last->t);
}

ggml_backend_buffer_t gguf_map_tensors(const struct gguf_context * gctx, struct ggml_context * ctx_data,
                                       const struct gguf_file_map * map) {
    GGML_CHECK_RET(gctx != NULL && ctx_data != NULL && map != NULL, NULL, "gctx, ctx_data or map is NULL");
    const size_t need = data_bytes_needed(gctx);
    if (map->size < 4 || memcmp(map->addr, GGUF_MAGIC, 4) != 0 || gctx->offset > map->size ||
        need > map->size - gctx->offset) {
        GGML_LOG_ERROR("%s: the mapped file (%zu bytes) does not hold the GGUF data described (%zu + %zu bytes)\n",
                       __func__, map->size, gctx->offset, need);
        return NULL;
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx_data); t != NULL; t = ggml_get_next_tensor(ctx_data, t)) {
        if (t->data != NULL || t->buffer != NULL) {
            GGML_LOG_ERROR("%s: tensor '%s' already has data (read the metadata with no_alloc = true)\n", __func__, t->name);
            return NULL;
        }
        if (matching_info(gctx, t, __func__) == NULL) {
            return NULL;
        }
    }
    char * base = (char *) map->addr + gctx->offset;
    const size_t size = map->size - gctx->offset;
    ggml_backend_buffer_t buf = ggml_backend_cpu_buffer_from_ptr(base, size);
    if (buf == NULL) {
        return NULL;
    }
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx_data); t != NULL; t = ggml_get_next_tensor(ctx_data, t)) {
        const struct gguf_tensor_info * ti = matching_info(gctx, t, __func__);
        if (ggml_backend_tensor_alloc(buf, t, base + ti->offset) != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("%s: cannot place tensor '%s' in the mapped buffer\n", __func__, t->name);
            // undo: the tensors placed so far would point into a freed buffer
            for (struct ggml_tensor * u = ggml_get_first_tensor(ctx_data); u != t; u = ggml_get_next_tensor(ctx_data, u)) {
                u->data   = NULL;
                u->buffer = NULL;
            }
            ggml_backend_buffer_free(buf);
            return NULL;
        }
    }
    return buf;
}

struct load_item {
    struct ggml_tensor * t;
    uint64_t             file_offset;
    size_t               nbytes;
};

static int compare_items(const void * a, const void * b) {
    const struct load_item * x = a;
    const struct load_item * y = b;
    return x->file_offset < y->file_offset ? -1 : x->file_offset > y->file_offset;
}

// reads exactly n bytes at off; false on a short read or an error
static bool pread_full(int fd, void * dst, size_t n, uint64_t off) {
    size_t done = 0;
    while (done < n) {
        const ssize_t got = pread(fd, (char *) dst + done, n - done, (off_t) (off + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return false;
        }
        done += (size_t) got;
    }
    return true;
}

bool gguf_load_tensors(const struct gguf_context * gctx, struct ggml_context * ctx_data, const char * fname,
                       size_t chunk_size, gguf_progress_callback_t progress, void * user_data) {
    GGML_CHECK_RET(gctx != NULL && ctx_data != NULL && fname != NULL, false, "gctx, ctx_data or fname is NULL");
    if (chunk_size == 0) {
        chunk_size = (size_t) 64 << 20;
    }
    size_t n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx_data); t != NULL; t = ggml_get_next_tensor(ctx_data, t)) {
        n++;
    }
    struct load_item * items = ggml_calloc(n > 0 ? n : 1, sizeof(*items));
    if (items == NULL) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return false;
    }
    uint64_t total = 0;
    bool ok = true;
    bool need_stage = false;
    size_t k = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx_data); ok && t != NULL; t = ggml_get_next_tensor(ctx_data, t)) {
        const struct gguf_tensor_info * ti = matching_info(gctx, t, __func__);
        if (ti == NULL) {
            ok = false;
        } else if (t->buffer == NULL && t->data == NULL) {
            GGML_LOG_ERROR("%s: tensor '%s' is not allocated (e.g. ggml_backend_alloc_ctx_tensors)\n", __func__, t->name);
            ok = false;
        } else {
            items[k].t           = t;
            items[k].file_offset = (uint64_t) gctx->offset + ti->offset;
            items[k].nbytes      = ggml_nbytes(t);
            total += items[k].nbytes;
            need_stage = need_stage || (t->buffer != NULL && !ggml_backend_buffer_is_host(t->buffer));
            k++;
        }
    }
    const int fd = ok ? open(fname, O_RDONLY | O_CLOEXEC) : -1;
    if (ok && fd < 0) {
        GGML_LOG_ERROR("%s: cannot open '%s': %s\n", __func__, fname, strerror(errno));
        ok = false;
    }
    char * stage = NULL;
    if (ok && need_stage) {
        stage = ggml_malloc(chunk_size);
        if (stage == NULL) {
            GGML_LOG_ERROR("%s: out of memory for a staging buffer of %zu bytes\n", __func__, chunk_size);
            ok = false;
        }
    }
    if (ok) {
        // in file order: the reads go front to back
        qsort(items, k, sizeof(*items), compare_items);
#if defined(POSIX_FADV_SEQUENTIAL)
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    uint64_t done = 0;
    for (size_t i = 0; ok && i < k; i++) {
        struct ggml_tensor * t = items[i].t;
        const bool host = t->buffer == NULL || ggml_backend_buffer_is_host(t->buffer);
        for (size_t off = 0; ok && off < items[i].nbytes; off += chunk_size) {
            const size_t len = items[i].nbytes - off < chunk_size ? items[i].nbytes - off : chunk_size;
            char * dst = host ? (char *) t->data + off : stage;
            if (!pread_full(fd, dst, len, items[i].file_offset + off)) {
                GGML_LOG_ERROR("%s: '%s': read error or end of file at offset %" PRIu64 " (tensor '%s')\n",
                               __func__, fname, items[i].file_offset + off, t->name);
                ok = false;
                break;
            }
            if (!host) {
                ggml_backend_tensor_set(t, stage, off, len);
            }
            done += len;
            if (progress != NULL && !progress(total > 0 ? (float) ((double) done / (double) total) : 1.0f, user_data)) {
                GGML_LOG_ERROR("%s: cancelled by the progress callback\n", __func__);
                ok = false;
            }
        }
    }
    if (ok && k == 0 && progress != NULL) {
        progress(1.0f, user_data);
    }
    if (fd >= 0) {
        close(fd);
    }
    ggml_free_mem(stage);
    ggml_free_mem(items);
    return ok;
}
