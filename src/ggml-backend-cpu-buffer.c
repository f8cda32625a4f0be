// Host-memory buffers that every build has: the "CPU" buffer type, "CPU_Mapped" buffers over
// memory the caller owns, and the multi-buffer that bundles several buffers into one.

#include "ggml-backend-host-buffer.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdint.h>
#include <string.h>

//
// host buffers: tensor->data is a host pointer, so data access is plain memory access
//

static void host_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    (void) buffer;
    memset((char *) tensor->data + offset, value, size);
}

static void host_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy((char *) tensor->data + offset, data, size);
}

static void host_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy(data, (const char *) tensor->data + offset, size);
}

static bool host_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    (void) buffer;
    ggml_backend_buffer_t src_buf = ggml_tensor_data_buffer(src);
    if (src_buf == NULL || !ggml_backend_buffer_is_host(src_buf) || ggml_nbytes(src) != ggml_nbytes(dst)) {
        return false;
    }
    if (src->data != dst->data) {
        memmove(dst->data, src->data, ggml_nbytes(src));
    }
    return true;
}

static void host_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    void * base = buffer->iface.get_base(buffer);
    if (base != NULL) {
        memset(base, value, buffer->size);
    }
}

struct ggml_backend_buffer_i ggml_backend_host_buffer_iface(
        void   (*free_buffer)(ggml_backend_buffer_t buffer),
        void * (*get_base)   (ggml_backend_buffer_t buffer)) {
    struct ggml_backend_buffer_i iface = {
        /* .free_buffer   = */ free_buffer,
        /* .get_base      = */ get_base,
        /* .init_tensor   = */ NULL,
        /* .memset_tensor = */ host_buffer_memset_tensor,
        /* .set_tensor    = */ host_buffer_set_tensor,
        /* .get_tensor    = */ host_buffer_get_tensor,
        /* .set_tensor_2d = */ NULL,
        /* .get_tensor_2d = */ NULL,
        /* .cpy_tensor    = */ host_buffer_cpy_tensor,
        /* .clear         = */ host_buffer_clear,
        /* .reset         = */ NULL,
    };
    return iface;
}

//
// CPU buffers: the context is the memory
//

static void * cpu_buffer_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void cpu_buffer_free(ggml_backend_buffer_t buffer) {
    ggml_aligned_free(buffer->context, buffer->size);
}

//
// CPU buffer types
//

static const char * cpu_buft_get_name(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return "CPU";
}

static const char * cpu_mapped_buft_get_name(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return "CPU_Mapped";
}

static ggml_backend_buffer_t cpu_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    // no object can be larger than PTRDIFF_MAX; refuse before asking the allocator
    if (size > (size_t) PTRDIFF_MAX - GGML_MEM_ALIGN_HOST) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes: larger than any host object can be\n", __func__, size);
        return NULL;
    }
    void * data = ggml_aligned_malloc(size);
    if (data == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate %zu bytes of host memory\n", __func__, size);
        return NULL;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, ggml_backend_host_buffer_iface(cpu_buffer_free, cpu_buffer_get_base), data, size);
    if (buffer == NULL) {
        ggml_aligned_free(data, size);
        return NULL;
    }
    return buffer;
}

static size_t cpu_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return GGML_MEM_ALIGN_HOST;
}

static bool cpu_buft_is_host(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return true;
}

// The CPU device is defined with the CPU backend; these types are shared by every device that
// uses plain host memory, so they name no device.
static struct ggml_backend_buffer_type cpu_buffer_type = {
    /* .iface = */ {
        /* .get_name       = */ cpu_buft_get_name,
        /* .alloc_buffer   = */ cpu_buft_alloc_buffer,
        /* .get_alignment  = */ cpu_buft_get_alignment,
        /* .get_max_size   = */ NULL,
        /* .get_alloc_size = */ NULL,
        /* .is_host        = */ cpu_buft_is_host,
    },
    /* .device  = */ NULL,
    /* .context = */ NULL,
};

static struct ggml_backend_buffer_type cpu_mapped_buffer_type = {
    /* .iface = */ {
        /* .get_name       = */ cpu_mapped_buft_get_name,
        /* .alloc_buffer   = */ cpu_buft_alloc_buffer,
        /* .get_alignment  = */ cpu_buft_get_alignment,
        /* .get_max_size   = */ NULL,
        /* .get_alloc_size = */ NULL,
        /* .is_host        = */ cpu_buft_is_host,
    },
    /* .device  = */ NULL,
    /* .context = */ NULL,
};

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    return &cpu_buffer_type;
}

ggml_backend_buffer_t ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size) {
    if (ptr == NULL) {
        GGML_LOG_ERROR("%s: ptr is NULL (size %zu)\n", __func__, size);
        return NULL;
    }
    if (size > UINTPTR_MAX - (uintptr_t) ptr) {
        GGML_LOG_ERROR("%s: the range [%p, +%zu) wraps around the address space\n", __func__, ptr, size);
        return NULL;
    }
    return ggml_backend_buffer_init(&cpu_mapped_buffer_type, ggml_backend_host_buffer_iface(NULL, cpu_buffer_get_base), ptr, size);
}

//
// multi-buffer
//

struct multi_buffer_context {
    ggml_backend_buffer_t * buffers;
    size_t n_buffers;
};

static void multi_buffer_free(ggml_backend_buffer_t buffer) {
    struct multi_buffer_context * ctx = (struct multi_buffer_context *) buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_free(ctx->buffers[i]);
    }
    ggml_free_mem(ctx->buffers);
    ggml_free_mem(ctx);
}

static void multi_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct multi_buffer_context * ctx = (struct multi_buffer_context *) buffer->context;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_clear(ctx->buffers[i], value);
    }
}

static const struct ggml_backend_buffer_i multi_buffer_iface = {
    /* .free_buffer   = */ multi_buffer_free,
    /* .get_base      = */ NULL,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ NULL,
    /* .set_tensor    = */ NULL,
    /* .get_tensor    = */ NULL,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ NULL,
    /* .clear         = */ multi_buffer_clear,
    /* .reset         = */ NULL,
};

ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers) {
    if (buffers == NULL || n_buffers == 0) {
        GGML_LOG_ERROR("%s: no buffers given\n", __func__);
        return NULL;
    }
    size_t total = 0;
    for (size_t i = 0; i < n_buffers; i++) {
        if (buffers[i] == NULL) {
            GGML_LOG_ERROR("%s: buffer %zu is NULL\n", __func__, i);
            return NULL;
        }
        total += buffers[i]->size;
    }
    struct multi_buffer_context * ctx = (struct multi_buffer_context *) ggml_calloc(1, sizeof(*ctx));
    ggml_backend_buffer_t * copy = (ggml_backend_buffer_t *) ggml_calloc(n_buffers, sizeof(ggml_backend_buffer_t));
    if (ctx == NULL || copy == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        ggml_free_mem(ctx);
        ggml_free_mem(copy);
        return NULL;
    }
    memcpy(copy, buffers, n_buffers * sizeof(ggml_backend_buffer_t));
    ctx->buffers   = copy;
    ctx->n_buffers = n_buffers;

    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buffers[0]->buft, multi_buffer_iface, ctx, total);
    if (buffer == NULL) {
        ggml_free_mem(copy);
        ggml_free_mem(ctx);
        return NULL;
    }
    return buffer;
}

bool ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer) {
    return buffer != NULL && buffer->iface.free_buffer == multi_buffer_free;
}

void ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    if (!ggml_backend_buffer_is_multi_buffer(buffer)) {
        GGML_LOG_ERROR("%s: not a multi-buffer\n", __func__);
        return;
    }
    struct multi_buffer_context * ctx = (struct multi_buffer_context *) buffer->context;
    buffer->usage = usage;
    for (size_t i = 0; i < ctx->n_buffers; i++) {
        ggml_backend_buffer_set_usage(ctx->buffers[i], usage);
    }
}
