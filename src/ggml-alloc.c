// Linear tensor allocator (ggml_tallocr) and allocation of every tensor of a context in backend
// buffers (ggml_backend_alloc_ctx_tensors*). The graph allocator is in ggml-alloc-graph.c.

#include "ggml-alloc.h"
#include "ggml-alloc-impl.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <string.h>

static bool is_pow2(size_t x) {
    return x != 0 && (x & (x - 1)) == 0;
}

//
// tallocr
//

struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer) {
    struct ggml_tallocr talloc = { NULL, NULL, 0, 0 };
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return talloc;
    }
    void * base        = ggml_backend_buffer_get_base(buffer);
    const size_t align = ggml_backend_buffer_get_alignment(buffer);
    if (!is_pow2(align)) {
        GGML_LOG_ERROR("%s: buffer %s has alignment %zu, not a power of two\n", __func__, ggml_backend_buffer_name(buffer), align);
        return talloc;
    }
    talloc.buffer    = buffer;
    talloc.base      = base;
    talloc.alignment = align;
    // first offset at which base + offset is aligned
    talloc.offset    = (align - ((uintptr_t) base & (align - 1))) & (align - 1);
    return talloc;
}

enum ggml_status ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * tensor) {
    if (talloc == NULL || tensor == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, talloc == NULL ? "talloc" : "tensor");
        return GGML_STATUS_FAILED;
    }
    if (talloc->buffer == NULL || !is_pow2(talloc->alignment)) {
        GGML_LOG_ERROR("%s: allocator for tensor '%s' has no buffer\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    const size_t buf_size = ggml_backend_buffer_get_size(talloc->buffer);
    const size_t need     = ggml_backend_buffer_get_alloc_size(talloc->buffer, tensor);
    const size_t avail    = talloc->offset <= buf_size ? buf_size - talloc->offset : 0;
    const size_t size     = need > SIZE_MAX - talloc->alignment ? SIZE_MAX : GGML_PAD(need, talloc->alignment);

    // the padding after the last tensor need not fit: only its own bytes do
    if (need > avail || talloc->base == NULL) {
        GGML_LOG_ERROR("%s: not enough space in buffer %s (size %zu) for tensor '%s': needed %zu bytes, available %zu\n",
                __func__, ggml_backend_buffer_name(talloc->buffer), buf_size, tensor->name, need, avail);
        return GGML_STATUS_ALLOC_FAILED;
    }
    void * addr = (char *) talloc->base + talloc->offset;
    const enum ggml_status st = ggml_backend_tensor_alloc(talloc->buffer, tensor, addr);
    if (st == GGML_STATUS_SUCCESS) {
        talloc->offset = size > avail ? buf_size : talloc->offset + size;
    }
    return st;
}

//
// all tensors of a context
//

// a tensor that needs memory of its own
static bool ctx_tensor_needs_memory(const struct ggml_tensor * t) {
    return t->data == NULL && t->buffer == NULL && t->view_src == NULL;
}

struct buffer_list {
    ggml_backend_buffer_t * bufs;
    size_t n;
    size_t cap;
};

static bool buffer_list_push(struct buffer_list * list, ggml_backend_buffer_t buf) {
    if (list->n == list->cap) {
        ggml_backend_buffer_t * bufs = ggml_grow_array(list->bufs, &list->cap, list->n + 1, sizeof(*bufs), 4);
        if (bufs == NULL) {
            return false;
        }
        list->bufs = bufs;
    }
    list->bufs[list->n++] = buf;
    return true;
}

// Undoes what the allocation of tensors [first, last) did: their buffer and data (also of views
// that point into freed buffers) are cleared.
static void ctx_undo(struct ggml_context * ctx, const struct buffer_list * list) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        for (size_t i = 0; i < list->n; i++) {
            if (t->buffer == list->bufs[i]) {
                t->buffer = NULL;
                t->data   = NULL;
                break;
            }
        }
    }
}

// Allocates one buffer of size bytes for the tensors [first, last) of ctx (last NULL: to the end)
// and places them in it; views among them are initialized.
static bool ctx_alloc_range(struct ggml_context * ctx, ggml_backend_buffer_type_t buft, size_t size,
        struct ggml_tensor * first, struct ggml_tensor * last, struct buffer_list * list) {
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, size);
    if (buf == NULL) {
        GGML_ERROR_DEFAULT(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_alloc_ctx_tensors_from_buft: failed to allocate %s buffer of size %zu\n",
                ggml_backend_buft_name(buft), size);
        return false;
    }
    if (!buffer_list_push(list, buf)) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_alloc_ctx_tensors_from_buft: out of memory\n");
        ggml_backend_buffer_free(buf);
        return false;
    }
    struct ggml_tallocr talloc = ggml_tallocr_new(buf);
    for (struct ggml_tensor * t = first; t != last; t = ggml_get_next_tensor(ctx, t)) {
        enum ggml_status st = GGML_STATUS_SUCCESS;
        if (ctx_tensor_needs_memory(t)) {
            st = ggml_tallocr_alloc(&talloc, t);
        } else if (t->view_src != NULL && t->buffer == NULL && t->data == NULL) {
            if (t->view_src->buffer == NULL) {
                GGML_LOG_ERROR("ggml_backend_alloc_ctx_tensors_from_buft: view '%s' of tensor '%s' which has no buffer\n",
                        t->name, t->view_src->name);
                return false;
            }
            st = ggml_backend_view_init(t);
        }
        if (st != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("ggml_backend_alloc_ctx_tensors_from_buft: cannot place tensor '%s': %s\n", t->name, ggml_status_to_string(st));
            return false;
        }
    }
    return true;
}

// Walks the context as the allocation does: calls range(first, last, size) for each buffer
// needed. Returns false when a callback fails.
typedef bool (*ctx_range_fn)(void * ud, struct ggml_tensor * first, struct ggml_tensor * last, size_t size);

static bool ctx_walk(struct ggml_context * ctx, ggml_backend_buffer_type_t buft, ctx_range_fn range, void * ud) {
    const size_t align    = ggml_backend_buft_get_alignment(buft);
    const size_t max_size = ggml_backend_buft_get_max_size(buft);

    struct ggml_tensor * first = ggml_get_first_tensor(ctx);
    size_t cur = 0;
    for (struct ggml_tensor * t = first; t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (!ctx_tensor_needs_memory(t)) {
            continue;
        }
        const size_t need = ggml_backend_buft_get_alloc_size(buft, t);
        if (need > SIZE_MAX - align) {
            GGML_LOG_ERROR("ggml_backend_alloc_ctx_tensors_from_buft: tensor '%s' needs %zu bytes: too large\n", t->name, need);
            return false;
        }
        const size_t size = GGML_PAD(need, align);
        // the range so far is full: it gets a buffer, and t starts the next one
        if (cur > 0 && (size > max_size || cur > max_size - size)) {
            if (!range(ud, first, t, cur)) {
                return false;
            }
            first = t;
            cur   = 0;
        }
        if (size > SIZE_MAX - cur) {
            GGML_LOG_ERROR("ggml_backend_alloc_ctx_tensors_from_buft: total size overflows\n");
            return false;
        }
        cur += size;
    }
    if (cur > 0) {
        return range(ud, first, NULL, cur);
    }
    return true;
}

struct size_walk {
    size_t total;
};

static bool size_range(void * ud, struct ggml_tensor * first, struct ggml_tensor * last, size_t size) {
    struct size_walk * w = ud;
    GGML_UNUSED(first);
    GGML_UNUSED(last);
    if (size > SIZE_MAX - w->total) {
        return false;
    }
    w->total += size;
    return true;
}

struct alloc_walk {
    struct ggml_context      * ctx;
    ggml_backend_buffer_type_t buft;
    struct buffer_list         list;
};

static bool alloc_range(void * ud, struct ggml_tensor * first, struct ggml_tensor * last, size_t size) {
    struct alloc_walk * w = ud;
    return ctx_alloc_range(w->ctx, w->buft, size, first, last, &w->list);
}

static bool ctx_check_args(struct ggml_context * ctx, ggml_backend_buffer_type_t buft, const char * func) {
    if (ctx == NULL || buft == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", func, ctx == NULL ? "ctx" : "buft");
        return false;
    }
    if (!ggml_get_no_alloc(ctx)) {
        GGML_LOG_ERROR("%s: the context was not created with no_alloc = true: its tensors already have memory\n", func);
        return false;
    }
    if (!is_pow2(ggml_backend_buft_get_alignment(buft))) {
        GGML_LOG_ERROR("%s: buffer type %s has alignment %zu, not a power of two\n", func,
                ggml_backend_buft_name(buft), ggml_backend_buft_get_alignment(buft));
        return false;
    }
    return true;
}

size_t ggml_backend_alloc_ctx_tensors_from_buft_size(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    if (!ctx_check_args(ctx, buft, __func__)) {
        return 0;
    }
    struct size_walk w = { 0 };
    if (!ctx_walk(ctx, buft, size_range, &w)) {
        return 0;
    }
    return w.total;
}

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    if (!ctx_check_args(ctx, buft, __func__)) {
        return NULL;
    }
    if (ggml_backend_buft_is_meta(buft)) {
        return ggml_backend_meta_alloc_ctx_tensors_from_buft(ctx, buft); // devices hold only their slices
    }
    struct alloc_walk w = { ctx, buft, { NULL, 0, 0 } };
    bool ok = ctx_walk(ctx, buft, alloc_range, &w);

    ggml_backend_buffer_t result = NULL;
    if (ok && w.list.n == 1) {
        result = w.list.bufs[0];
    } else if (ok && w.list.n > 1) {
        result = ggml_backend_multi_buffer_alloc_buffer(w.list.bufs, w.list.n);
        if (result == NULL) {
            GGML_LOG_ERROR("%s: cannot bundle %zu buffers in a multi-buffer\n", __func__, w.list.n);
            ok = false;
        }
    }
    if (!ok) {
        ctx_undo(ctx, &w.list);
        for (size_t i = 0; i < w.list.n; i++) {
            ggml_backend_buffer_free(w.list.bufs[i]);
        }
        result = NULL;
    }
    // w.list.n == 0: nothing needed memory; NULL without an error, as in the ggml family
    ggml_free_mem(w.list.bufs);
    return result;
}

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return NULL;
    }
    return ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_get_default_buffer_type(backend));
}
