// GGUF tensor table: tensor infos (name, type, shape, offset in the data section), lookups,
// appending tensors, changing their type, and the offsets that follow from the alignment.

#include "gguf-impl.h"

#include <inttypes.h>

int64_t gguf_get_n_tensors(const struct gguf_context * ctx) {
    GGML_CHECK_RET(ctx != NULL, 0, "ctx is NULL");
    return ctx->n_tensors;
}

int64_t gguf_find_tensor(const struct gguf_context * ctx, const char * name) {
    GGML_CHECK_RET(ctx != NULL && name != NULL, -1, "ctx or name is NULL");
    for (int64_t i = 0; i < ctx->n_tensors; i++) {
        if (strcmp(ctx->info[i].t.name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static const struct gguf_tensor_info * info_at(const struct gguf_context * ctx, int64_t id, const char * func) {
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: ctx is NULL\n", func);
        return NULL;
    }
    if (id < 0 || id >= ctx->n_tensors) {
        GGML_LOG_ERROR("%s: tensor id %" PRId64 " out of range [0, %" PRId64 ")\n", func, id, ctx->n_tensors);
        return NULL;
    }
    return &ctx->info[id];
}

size_t gguf_get_tensor_offset(const struct gguf_context * ctx, int64_t tensor_id) {
    const struct gguf_tensor_info * ti = info_at(ctx, tensor_id, __func__);
    return ti != NULL ? (size_t) ti->offset : 0;
}

const char * gguf_get_tensor_name(const struct gguf_context * ctx, int64_t tensor_id) {
    const struct gguf_tensor_info * ti = info_at(ctx, tensor_id, __func__);
    return ti != NULL ? ti->t.name : NULL;
}

const int64_t * gguf_get_tensor_ne(const struct gguf_context * ctx, int64_t tensor_id) {
    const struct gguf_tensor_info * ti = info_at(ctx, tensor_id, __func__);
    return ti != NULL ? ti->t.ne : NULL;
}

enum ggml_type gguf_get_tensor_type(const struct gguf_context * ctx, int64_t tensor_id) {
    const struct gguf_tensor_info * ti = info_at(ctx, tensor_id, __func__);
    return ti != NULL ? ti->t.type : GGML_TYPE_COUNT;
}

size_t gguf_get_tensor_size(const struct gguf_context * ctx, int64_t tensor_id) {
    const struct gguf_tensor_info * ti = info_at(ctx, tensor_id, __func__);
    return ti != NULL ? ggml_nbytes(&ti->t) : 0;
}

void gguf_recompute_offsets(struct gguf_context * ctx, int64_t from) {
    for (int64_t i = from < 1 ? 1 : from; i < ctx->n_tensors; i++) {
        const struct gguf_tensor_info * prev = &ctx->info[i - 1];
        ctx->info[i].offset = prev->offset + gguf_pad(ggml_nbytes(&prev->t), ctx->alignment);
    }
    if (from <= 0 && ctx->n_tensors > 0) {
        ctx->info[0].offset = 0;
    }
    ctx->size = 0;
    if (ctx->n_tensors > 0) {
        const struct gguf_tensor_info * last = &ctx->info[ctx->n_tensors - 1];
        ctx->size = last->offset + gguf_pad(ggml_nbytes(&last->t), ctx->alignment);
    }
}

void gguf_update_alignment(struct gguf_context * ctx) {
    const int64_t id = gguf_find_key(ctx, GGUF_KEY_GENERAL_ALIGNMENT);
    size_t alignment = GGUF_DEFAULT_ALIGNMENT;
    if (id >= 0 && !ctx->kv[id].is_array && ctx->kv[id].type == GGUF_TYPE_UINT32) {
        uint32_t a;
        memcpy(&a, ctx->kv[id].data, sizeof(a));
        if (a != 0 && (a & (a - 1)) == 0) {
            alignment = a;
        }
    }
    if (alignment != ctx->alignment) {
        ctx->alignment = alignment;
        gguf_recompute_offsets(ctx, 0);
    }
}

// shape, type and size checks shared by the reader and gguf_add_tensor / gguf_set_tensor_type;
// false (logged, naming `what`) when the tensor cannot be stored
bool gguf_tensor_shape_valid(const char * name, enum ggml_type type, const int64_t * ne, const char * what) {
    if ((int) type < 0 || type >= GGML_TYPE_COUNT || ggml_type_size(type) == 0 || ggml_blck_size(type) <= 0) {
        GGML_LOG_ERROR("%s: tensor '%s' has invalid ggml type %d\n", what, name, (int) type);
        return false;
    }
    int64_t nel = 1;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (ne[d] < 0) {
            GGML_LOG_ERROR("%s: tensor '%s' dimension %d is negative (%" PRId64 ")\n", what, name, d, ne[d]);
            return false;
        }
        if (ne[d] != 0 && nel > INT64_MAX / ne[d]) {
            GGML_LOG_ERROR("%s: tensor '%s' has more than INT64_MAX elements\n", what, name);
            return false;
        }
        nel *= ne[d];
    }
    const int64_t blck = ggml_blck_size(type);
    if (ne[0] % blck != 0) {
        GGML_LOG_ERROR("%s: tensor '%s' of type %s has %" PRId64 " elements per row, not a multiple of the block size %" PRId64 "\n",
                       what, name, ggml_type_name(type), ne[0], blck);
        return false;
    }
    // bytes: (nel / blck) * type_size must fit in size_t (and leave room for padding)
    const uint64_t blocks = (uint64_t) (nel / blck);
    if (blocks > (SIZE_MAX / 2) / ggml_type_size(type)) {
        GGML_LOG_ERROR("%s: tensor '%s' is larger than the address space\n", what, name);
        return false;
    }
    return true;
}

// fills t (zeroed) as a contiguous tensor of the given name, type and shape
void gguf_tensor_fill(struct ggml_tensor * t, const char * name, enum ggml_type type, const int64_t * ne) {
    memset(t, 0, sizeof(*t));
    t->type = type;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        t->ne[d] = ne[d];
    }
    t->nb[0] = ggml_type_size(type);
    t->nb[1] = t->nb[0] * (size_t) (t->ne[0] / ggml_blck_size(type));
    for (int d = 2; d < GGML_MAX_DIMS; d++) {
        t->nb[d] = t->nb[d - 1] * (size_t) t->ne[d - 1];
    }
    snprintf(t->name, sizeof(t->name), "%s", name);
}

bool gguf_tensor_info_push(struct gguf_context * ctx, const struct ggml_tensor * t, uint64_t offset) {
    if (ctx->n_tensors == ctx->cap_tensors) {
        const int64_t cap = ctx->cap_tensors == 0 ? 16 : 2 * ctx->cap_tensors;
        struct gguf_tensor_info * info = ggml_realloc(ctx->info, (size_t) cap * sizeof(*info));
        if (info == NULL) {
            GGML_LOG_ERROR("gguf: out of memory for tensor '%s'\n", t->name);
            return false;
        }
        ctx->info        = info;
        ctx->cap_tensors = cap;
    }
    struct gguf_tensor_info * ti = &ctx->info[ctx->n_tensors++];
    ti->t      = *t;
    ti->offset = offset;
    return true;
}

void gguf_add_tensor(struct gguf_context * ctx, const struct ggml_tensor * tensor) {
    GGML_CHECK_RET(ctx != NULL && tensor != NULL, , "ctx or tensor is NULL");
    if (gguf_find_tensor(ctx, tensor->name) >= 0) {
        GGML_LOG_ERROR("%s: duplicate tensor name '%s'\n", __func__, tensor->name);
        return;
    }
    if (memchr(tensor->name, '\0', sizeof(tensor->name)) == NULL) {
        GGML_LOG_ERROR("%s: the tensor name is not terminated\n", __func__);
        return;
    }
    if (!gguf_tensor_shape_valid(tensor->name, tensor->type, tensor->ne, __func__)) {
        return;
    }
    if (!ggml_is_contiguous(tensor)) {
        GGML_LOG_ERROR("%s: tensor '%s' is not contiguous\n", __func__, tensor->name);
        return;
    }
    struct ggml_tensor t;
    gguf_tensor_fill(&t, tensor->name, tensor->type, tensor->ne);
    t.data   = tensor->data;
    t.buffer = tensor->buffer;
    uint64_t offset = 0;
    if (ctx->n_tensors > 0) {
        const struct gguf_tensor_info * last = &ctx->info[ctx->n_tensors - 1];
        offset = last->offset + gguf_pad(ggml_nbytes(&last->t), ctx->alignment);
    }
    if (gguf_tensor_info_push(ctx, &t, offset)) {
        ctx->size = offset + gguf_pad(ggml_nbytes(&t), ctx->alignment);
    }
}

void gguf_set_tensor_type(struct gguf_context * ctx, const char * name, enum ggml_type type) {
    const int64_t id = gguf_find_tensor(ctx, name);
    if (id < 0) {
        GGML_LOG_ERROR("%s: no tensor named '%s'\n", __func__, name != NULL ? name : "(null)");
        return;
    }
    struct gguf_tensor_info * ti = &ctx->info[id];
    if (!gguf_tensor_shape_valid(name, type, ti->t.ne, __func__)) {
        return;
    }
    struct ggml_tensor t;
    gguf_tensor_fill(&t, ti->t.name, type, ti->t.ne);
    t.data   = ti->t.data;
    t.buffer = ti->t.buffer;
    ti->t = t;
    gguf_recompute_offsets(ctx, id + 1);
}

void gguf_set_tensor_data(struct gguf_context * ctx, const char * name, const void * data) {
    const int64_t id = gguf_find_tensor(ctx, name);
    if (id < 0) {
        GGML_LOG_ERROR("%s: no tensor named '%s'\n", __func__, name != NULL ? name : "(null)");
        return;
    }
    ctx->info[id].t.data   = (void *) (uintptr_t) data; // the writer only reads through it
    ctx->info[id].t.buffer = NULL;
}
