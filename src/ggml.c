// Contexts (memory arenas of objects), tensor creation, views, names and flags.

#include "ggml-impl.h"

//
// contexts
//

struct ggml_context * ggml_init(struct ggml_init_params params) {
    size_t mem_size = params.mem_size;
    if (mem_size == 0) {
        mem_size = GGML_MEM_ALIGN; // allowed: a context that only ever holds nothing
    }
    if (params.mem_buffer == NULL && mem_size > SIZE_MAX / 2) {
        GGML_LOG_ERROR("%s: mem_size %zu is too large\n", __func__, params.mem_size);
        return NULL;
    }

    struct ggml_context * ctx = ggml_malloc(sizeof(struct ggml_context));
    if (ctx == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate the context\n", __func__);
        return NULL;
    }

    void * buffer = params.mem_buffer;
    if (buffer == NULL) {
        buffer = ggml_aligned_malloc(GGML_PAD(mem_size, GGML_MEM_ALIGN));
        if (buffer == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate %zu bytes for the context's memory pool\n", __func__, mem_size);
            ggml_free_mem(ctx);
            return NULL;
        }
    } else if (((uintptr_t) buffer) % GGML_MEM_ALIGN != 0) {
        GGML_LOG_ERROR("%s: mem_buffer %p is not aligned to %d bytes\n", __func__, buffer, GGML_MEM_ALIGN);
        ggml_free_mem(ctx);
        return NULL;
    }

    *ctx = (struct ggml_context) {
        .mem_size         = mem_size,
        .mem_buffer       = buffer,
        .mem_buffer_owned = params.mem_buffer == NULL,
        .no_alloc         = params.no_alloc,
        .n_objects        = 0,
        .objects_begin    = NULL,
        .objects_end      = NULL,
    };
    return ctx;
}

void ggml_reset(struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    ctx->n_objects     = 0;
    ctx->objects_begin = NULL;
    ctx->objects_end   = NULL;
}

void ggml_free(struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    if (ctx->mem_buffer_owned) {
        ggml_aligned_free(ctx->mem_buffer, ctx->mem_size);
    }
    ggml_free_mem(ctx);
}

size_t ggml_used_mem(const struct ggml_context * ctx) {
    if (ctx == NULL || ctx->objects_end == NULL) {
        return 0;
    }
    return ctx->objects_end->offs + ctx->objects_end->size;
}

bool ggml_get_no_alloc(struct ggml_context * ctx) {
    return ctx ? ctx->no_alloc : false;
}

void ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc) {
    if (ctx) {
        ctx->no_alloc = no_alloc;
    }
}

void * ggml_get_mem_buffer(const struct ggml_context * ctx) {
    return ctx ? ctx->mem_buffer : NULL;
}

size_t ggml_get_mem_size(const struct ggml_context * ctx) {
    return ctx ? ctx->mem_size : 0;
}

size_t ggml_get_max_tensor_size(const struct ggml_context * ctx) {
    size_t max_size = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        size_t bytes = ggml_nbytes(t);
        max_size = MAX(max_size, bytes);
    }
    return max_size;
}

// Appends an object of `size` bytes (rounded up to GGML_MEM_ALIGN) to the arena.
struct ggml_object * ggml_new_object(struct ggml_context * ctx, enum ggml_object_type type, size_t size) {
    struct ggml_object * obj_cur = ctx->objects_end;
    const size_t cur_end = obj_cur == NULL ? 0 : obj_cur->offs + obj_cur->size;

    if (size > SIZE_MAX - GGML_MEM_ALIGN - GGML_OBJECT_SIZE - cur_end) {
        GGML_LOG_ERROR("%s: object size %zu is too large\n", __func__, size);
        return NULL;
    }
    const size_t size_needed = GGML_PAD(size, GGML_MEM_ALIGN);

    if (cur_end + size_needed + GGML_OBJECT_SIZE > ctx->mem_size) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: not enough space in the context's memory pool (needed %zu, available %zu)\n",
                __func__, cur_end + size_needed + GGML_OBJECT_SIZE, ctx->mem_size);
        return NULL;
    }

    struct ggml_object * obj_new = (struct ggml_object *)((char *) ctx->mem_buffer + cur_end);
    *obj_new = (struct ggml_object) {
        .offs = cur_end + GGML_OBJECT_SIZE,
        .size = size_needed,
        .next = NULL,
        .type = type,
    };

    if (obj_cur != NULL) {
        obj_cur->next = obj_new;
    } else {
        ctx->objects_begin = obj_new;
    }
    ctx->objects_end = obj_new;
    ctx->n_objects++;
    return obj_new;
}

void * ggml_new_buffer(struct ggml_context * ctx, size_t nbytes) {
    GGML_CHECK_RET(ctx != NULL, NULL, "ctx is NULL");
    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_WORK_BUFFER, nbytes);
    if (obj == NULL) {
        return NULL;
    }
    return (char *) ctx->mem_buffer + obj->offs;
}

void ggml_print_object(const struct ggml_object * obj) {
    if (obj == NULL) {
        return;
    }
    GGML_LOG_INFO(" - ggml_object: type = %d, offset = %zu, size = %zu, next = %p\n",
            (int) obj->type, obj->offs, obj->size, (const void *) obj->next);
}

void ggml_print_objects(const struct ggml_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    GGML_LOG_INFO("%s: objects in context %p:\n", __func__, (const void *) ctx);
    for (struct ggml_object * obj = ctx->objects_begin; obj != NULL; obj = obj->next) {
        ggml_print_object(obj);
    }
    GGML_LOG_INFO("%s: --- end ---\n", __func__);
}

size_t ggml_tensor_overhead(void) {
    return GGML_OBJECT_SIZE + GGML_PAD(GGML_TENSOR_SIZE, GGML_MEM_ALIGN);
}

//
// tensors
//

// bytes of a contiguous tensor of this shape, or SIZE_MAX when the shape is invalid or overflows
static size_t ggml_contiguous_size(enum ggml_type type, const int64_t * ne) {
    const int64_t blck = ggml_blck_size(type);
    if (blck <= 0 || ne[0] % blck != 0) {
        return SIZE_MAX;
    }
    size_t size = ggml_type_size(type);
    int64_t n = ne[0] / blck;
    if (n != 0 && size > SIZE_MAX / (size_t) n) {
        return SIZE_MAX;
    }
    size *= (size_t) n;
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (ne[i] != 0 && size > (SIZE_MAX / 2) / (size_t) ne[i]) {
            return SIZE_MAX;
        }
        size *= (size_t) ne[i];
    }
    return size;
}

struct ggml_tensor * ggml_new_tensor_impl(
        struct ggml_context * ctx,
        enum ggml_type        type,
        int                   n_dims,
        const int64_t       * ne,
        struct ggml_tensor  * view_src,
        size_t                view_offs) {
    GGML_CHECK_RET(ctx != NULL, NULL, "ctx is NULL");
    GGML_CHECK_RET(ne != NULL, NULL, "ne is NULL");
    GGML_CHECK_RET(ggml_type_is_valid(type), NULL, "invalid type id %d", (int) type);
    GGML_CHECK_RET(n_dims >= 1 && n_dims <= GGML_MAX_DIMS, NULL, "n_dims = %d is not in [1, %d]", n_dims, GGML_MAX_DIMS);

    int64_t shape[GGML_MAX_DIMS] = { 1, 1, 1, 1 };
    for (int i = 0; i < n_dims; i++) {
        GGML_CHECK_RET(ne[i] >= 0, NULL, "ne[%d] = %lld is negative", i, (long long) ne[i]);
        shape[i] = ne[i];
    }
    GGML_CHECK_RET(shape[0] % ggml_blck_size(type) == 0, NULL,
            "ne[0] = %lld is not a multiple of the block size %lld of type %s",
            (long long) shape[0], (long long) ggml_blck_size(type), ggml_type_name(type));

    const size_t data_size = ggml_contiguous_size(type, shape);
    GGML_CHECK_RET(data_size != SIZE_MAX, NULL, "tensor of type %s and shape [%lld, %lld, %lld, %lld] is too large",
            ggml_type_name(type), (long long) shape[0], (long long) shape[1], (long long) shape[2], (long long) shape[3]);

    // a view of a view shares the memory of the innermost tensor
    if (view_src != NULL && view_src->view_src != NULL) {
        view_offs += view_src->view_offs;
        view_src   = view_src->view_src;
    }
    if (view_src != NULL) {
        const size_t src_size = ggml_nbytes(view_src);
        GGML_CHECK_RET(view_offs <= src_size && data_size <= src_size - view_offs, NULL,
                "view of %zu bytes at offset %zu does not fit in tensor '%s' of %zu bytes",
                data_size, view_offs, view_src->name, src_size);
    }

    void * data = NULL;
    if (view_src != NULL && view_src->data != NULL) {
        data = (char *) view_src->data + view_offs;
    }

    size_t obj_alloc_size = 0;
    if (view_src == NULL && !ctx->no_alloc) {
        obj_alloc_size = data_size;
    }
    GGML_CHECK_RET(obj_alloc_size <= SIZE_MAX - GGML_TENSOR_SIZE - GGML_MEM_ALIGN, NULL, "tensor too large");

    struct ggml_object * obj_new = ggml_new_object(ctx, GGML_OBJECT_TYPE_TENSOR, GGML_TENSOR_SIZE + obj_alloc_size);
    if (obj_new == NULL) {
        return NULL;
    }

    struct ggml_tensor * result = (struct ggml_tensor *)((char *) ctx->mem_buffer + obj_new->offs);
    memset(result, 0, sizeof(*result));
    result->type      = type;
    result->buffer    = NULL; // as in the family: a view gets its buffer from ggml_backend_view_init
    result->op        = GGML_OP_NONE;
    result->view_src  = view_src;
    result->view_offs = view_offs;
    result->data      = obj_alloc_size > 0 ? (void *)(result + 1) : data;

    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[i] = shape[i];
    }
    result->nb[0] = ggml_type_size(type);
    result->nb[1] = result->nb[0] * (size_t)(result->ne[0] / ggml_blck_size(type));
    for (int i = 2; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = result->nb[i - 1] * (size_t) result->ne[i - 1];
    }
    return result;
}

struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, enum ggml_type type, int n_dims, const int64_t * ne) {
    return ggml_new_tensor_impl(ctx, type, n_dims, ne, NULL, 0);
}

struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0) {
    return ggml_new_tensor(ctx, type, 1, &ne0);
}

struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = { ne0, ne1 };
    return ggml_new_tensor(ctx, type, 2, ne);
}

struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2) {
    const int64_t ne[3] = { ne0, ne1, ne2 };
    return ggml_new_tensor(ctx, type, 3, ne);
}

struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type,
        int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return ggml_new_tensor(ctx, type, 4, ne);
}

struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src) {
    GGML_CHECK_RET(src != NULL, NULL, "src is NULL");
    return ggml_new_tensor(ctx, src->type, GGML_MAX_DIMS, src->ne);
}

struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src) {
    GGML_CHECK_RET(src != NULL, NULL, "src is NULL");
    // the view's own contiguous extent may exceed src when src is strided; check against the
    // memory src addresses instead, then copy src's strides
    struct ggml_tensor * result = ggml_new_tensor_impl(ctx, src->type, 1, (const int64_t[]){ 0 }, src, 0);
    if (result == NULL) {
        return NULL;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        result->ne[i] = src->ne[i];
        result->nb[i] = src->nb[i];
    }
    ggml_format_name(result, "%s (view)", src->name);
    return result;
}

struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx) {
    if (ctx == NULL) {
        return NULL;
    }
    for (struct ggml_object * obj = ctx->objects_begin; obj != NULL; obj = obj->next) {
        if (obj->type == GGML_OBJECT_TYPE_TENSOR) {
            return (struct ggml_tensor *)((char *) ctx->mem_buffer + obj->offs);
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_get_next_tensor(const struct ggml_context * ctx, struct ggml_tensor * tensor) {
    if (ctx == NULL || tensor == NULL) {
        return NULL;
    }
    struct ggml_object * obj = (struct ggml_object *)((char *) tensor - GGML_OBJECT_SIZE);
    for (obj = obj->next; obj != NULL; obj = obj->next) {
        if (obj->type == GGML_OBJECT_TYPE_TENSOR) {
            return (struct ggml_tensor *)((char *) ctx->mem_buffer + obj->offs);
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name) {
    if (ctx == NULL || name == NULL) {
        return NULL;
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (strcmp(t->name, name) == 0) {
            return t;
        }
    }
    return NULL;
}

void ggml_unravel_index(const struct ggml_tensor * tensor, int64_t i, int64_t * i0, int64_t * i1, int64_t * i2, int64_t * i3) {
    if (tensor == NULL) {
        return;
    }
    const int64_t ne0 = tensor->ne[0], ne1 = tensor->ne[1], ne2 = tensor->ne[2];
    int64_t c3 = 0, c2 = 0, c1 = 0, c0 = 0;
    if (ne0 > 0 && ne1 > 0 && ne2 > 0) {
        c3 = i / (ne2*ne1*ne0);
        c2 = (i - c3*ne2*ne1*ne0) / (ne1*ne0);
        c1 = (i - c3*ne2*ne1*ne0 - c2*ne1*ne0) / ne0;
        c0 =  i - c3*ne2*ne1*ne0 - c2*ne1*ne0 - c1*ne0;
    }
    if (i0) *i0 = c0;
    if (i1) *i1 = c1;
    if (i2) *i2 = c2;
    if (i3) *i3 = c3;
}

void * ggml_get_data(const struct ggml_tensor * tensor) {
    return tensor ? tensor->data : NULL;
}

float * ggml_get_data_f32(const struct ggml_tensor * tensor) {
    GGML_CHECK_RET(tensor != NULL, NULL, "tensor is NULL");
    GGML_CHECK_RET(tensor->type == GGML_TYPE_F32, NULL, "tensor '%s' has type %s, not f32", tensor->name, ggml_type_name(tensor->type));
    return (float *) tensor->data;
}

//
// names and flags
//

const char * ggml_get_name(const struct ggml_tensor * tensor) {
    return tensor ? tensor->name : NULL;
}

struct ggml_tensor * ggml_set_name(struct ggml_tensor * tensor, const char * name) {
    if (tensor == NULL) {
        return NULL;
    }
    if (name == NULL) {
        tensor->name[0] = '\0';
        return tensor;
    }
    size_t i;
    for (i = 0; i < sizeof(tensor->name) - 1 && name[i] != '\0'; i++) {
        tensor->name[i] = name[i];
    }
    tensor->name[i] = '\0';
    return tensor;
}

struct ggml_tensor * ggml_format_name(struct ggml_tensor * tensor, const char * fmt, ...) {
    if (tensor == NULL || fmt == NULL) {
        return tensor;
    }
    char buf[GGML_MAX_NAME];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    memcpy(tensor->name, buf, sizeof(buf));
    return tensor;
}

void ggml_set_input(struct ggml_tensor * tensor) {
    if (tensor) {
        tensor->flags |= GGML_TENSOR_FLAG_INPUT;
    }
}

void ggml_set_output(struct ggml_tensor * tensor) {
    if (tensor) {
        tensor->flags |= GGML_TENSOR_FLAG_OUTPUT;
    }
}

void ggml_set_param(struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return;
    }
    if (tensor->op != GGML_OP_NONE) {
        GGML_LOG_ERROR("%s: tensor '%s' is the result of an op (%s) and cannot be a parameter\n",
                __func__, tensor->name, ggml_op_name(tensor->op));
        return;
    }
    tensor->flags |= GGML_TENSOR_FLAG_PARAM;
}

void ggml_set_loss(struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return;
    }
    if (!ggml_is_scalar(tensor) || tensor->type != GGML_TYPE_F32) {
        GGML_LOG_ERROR("%s: a loss must be an f32 scalar (tensor '%s')\n", __func__, tensor->name);
        return;
    }
    tensor->flags |= GGML_TENSOR_FLAG_LOSS;
}
