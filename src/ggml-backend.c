// The wrapper layer of the backend API: buffer types, buffers, tensor data access, backends
// (streams). Events and devices are in ggml-backend-dev.c.
//
// Every public function checks its arguments, supplies the documented default for interface
// members a backend leaves NULL, and reports bad input through the log and its return value.
// Nothing here aborts. The scheduler, the registry, the allocators, graph copy/compare and the
// CPU buffer type live in their own files.

#include "ggml-backend-impl.h"
#include "ggml-backend-live.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

//
// buffer type
//

const char * ggml_backend_buft_name(ggml_backend_buffer_type_t buft) {
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return "NULL";
    }
    if (buft->iface.get_name == NULL) {
        return "unnamed";
    }
    return buft->iface.get_name(buft);
}

ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return NULL;
    }
    if (size == 0) {
        // an empty buffer that needs nothing from the backend: every member of iface is NULL
        struct ggml_backend_buffer_i empty_iface;
        memset(&empty_iface, 0, sizeof(empty_iface));
        return ggml_backend_buffer_init(buft, empty_iface, NULL, 0);
    }
    if (buft->iface.alloc_buffer == NULL) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: buffer type %s cannot allocate buffers\n", __func__, ggml_backend_buft_name(buft));
        return NULL;
    }
    ggml_backend_buffer_t buffer = buft->iface.alloc_buffer(buft, size);
    if (buffer == NULL) {
        GGML_ERROR_DEFAULT(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate a %s buffer of %zu bytes\n", __func__, ggml_backend_buft_name(buft), size);
    }
    return buffer;
}

size_t ggml_backend_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return 0;
    }
    if (buft->iface.get_alignment == NULL) {
        return 1;
    }
    return buft->iface.get_alignment(buft);
}

size_t ggml_backend_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return 0;
    }
    if (buft->iface.get_max_size == NULL) {
        return SIZE_MAX;
    }
    return buft->iface.get_max_size(buft);
}

size_t ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", __func__);
        return 0;
    }
    const size_t nbytes = ggml_nbytes(tensor);
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL (tensor '%s')\n", __func__, tensor->name);
        return nbytes;
    }
    if (buft->iface.get_alloc_size == NULL) {
        return nbytes;
    }
    const size_t size = buft->iface.get_alloc_size(buft, tensor);
    if (size < nbytes) {
        // a backend bug; never let a tensor get less memory than its data needs
        GGML_LOG_ERROR("%s: buffer type %s reports %zu bytes for tensor '%s' of %zu bytes; using %zu\n",
                __func__, ggml_backend_buft_name(buft), size, tensor->name, nbytes, nbytes);
        return nbytes;
    }
    return size;
}

bool ggml_backend_buft_is_host(ggml_backend_buffer_type_t buft) {
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return false;
    }
    if (buft->iface.is_host == NULL) {
        return false;
    }
    return buft->iface.is_host(buft);
}

ggml_backend_dev_t ggml_backend_buft_get_device(ggml_backend_buffer_type_t buft) {
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return NULL;
    }
    return buft->device;
}

//
// buffer
//

ggml_backend_buffer_t ggml_backend_buffer_init(
               ggml_backend_buffer_type_t buft,
        struct ggml_backend_buffer_i      iface,
               void *                     context,
               size_t                     size) {
    ggml_backend_buffer_t buffer = (ggml_backend_buffer_t) ggml_calloc(1, sizeof(struct ggml_backend_buffer));
    if (buffer == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory allocating a buffer object\n", __func__);
        return NULL;
    }
    buffer->iface   = iface;
    buffer->buft    = buft;
    buffer->context = context;
    buffer->size    = size;
    buffer->usage   = GGML_BACKEND_BUFFER_USAGE_ANY;
    if (!ggml_backend_buffer_live_add(buffer)) {
        GGML_LOG_ERROR("%s: out of memory registering a buffer object\n", __func__);
        ggml_free_mem(buffer);
        return NULL;
    }
    return buffer;
}

const char * ggml_backend_buffer_name(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return "NULL";
    }
    if (buffer->buft == NULL) {
        return "unknown";
    }
    return ggml_backend_buft_name(buffer->buft);
}

void ggml_backend_buffer_free(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        return;
    }
    ggml_backend_buffer_live_remove(buffer);
    if (buffer->iface.free_buffer != NULL) {
        buffer->iface.free_buffer(buffer);
    }
    ggml_free_mem(buffer);
}

size_t ggml_backend_buffer_get_size(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return 0;
    }
    return buffer->size;
}

void * ggml_backend_buffer_get_base(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return NULL;
    }
    if (buffer->size == 0) {
        return NULL;
    }
    if (buffer->iface.get_base == NULL) {
        GGML_LOG_ERROR("%s: %s buffer has no base address\n", __func__, ggml_backend_buffer_name(buffer));
        return NULL;
    }
    void * base = buffer->iface.get_base(buffer);
    if (base == NULL) {
        GGML_LOG_ERROR("%s: %s buffer of %zu bytes returned a NULL base\n", __func__, ggml_backend_buffer_name(buffer), buffer->size);
    }
    return base;
}

enum ggml_status ggml_backend_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor) {
    if (buffer == NULL || tensor == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, buffer == NULL ? "buffer" : "tensor");
        return GGML_STATUS_FAILED;
    }
    // a backend must never be handed a tensor whose memory belongs to another buffer
    const struct ggml_tensor * owner = tensor->view_src != NULL ? tensor->view_src : tensor;
    if (owner->buffer != NULL && owner->buffer != buffer) {
        GGML_LOG_ERROR("%s: tensor '%s' belongs to buffer %s, not to %s\n", __func__, tensor->name,
                ggml_backend_buffer_name(owner->buffer), ggml_backend_buffer_name(buffer));
        return GGML_STATUS_FAILED;
    }
    const char * base = ggml_backend_buffer_get_base(buffer);
    const char * data = tensor->data;
    if (data == NULL || (base != NULL &&
            (data < base || (size_t)(data - base) > buffer->size || ggml_nbytes(tensor) > buffer->size - (size_t)(data - base)))) {
        GGML_LOG_ERROR("%s: tensor '%s' (data %p, %zu bytes) is not inside buffer %s [%p, +%zu)\n", __func__, tensor->name,
                tensor->data, ggml_nbytes(tensor), ggml_backend_buffer_name(buffer), (const void *) base, buffer->size);
        return GGML_STATUS_FAILED;
    }
    if (buffer->iface.init_tensor == NULL) {
        return GGML_STATUS_SUCCESS;
    }
    return buffer->iface.init_tensor(buffer, tensor);
}

size_t ggml_backend_buffer_get_alignment(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return 0;
    }
    return ggml_backend_buft_get_alignment(buffer->buft);
}

size_t ggml_backend_buffer_get_max_size(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return 0;
    }
    return ggml_backend_buft_get_max_size(buffer->buft);
}

size_t ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return tensor != NULL ? ggml_nbytes(tensor) : 0;
    }
    return ggml_backend_buft_get_alloc_size(buffer->buft, tensor);
}

void ggml_backend_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return;
    }
    if (buffer->size == 0) {
        return;
    }
    if (buffer->iface.clear == NULL) {
        GGML_LOG_ERROR("%s: %s buffer cannot be cleared\n", __func__, ggml_backend_buffer_name(buffer));
        return;
    }
    buffer->iface.clear(buffer, value);
}

bool ggml_backend_buffer_is_host(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return false;
    }
    if (buffer->buft == NULL) {
        return false;
    }
    return ggml_backend_buft_is_host(buffer->buft);
}

void ggml_backend_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return;
    }
    if (usage != GGML_BACKEND_BUFFER_USAGE_ANY && usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS &&
        usage != GGML_BACKEND_BUFFER_USAGE_COMPUTE) {
        GGML_LOG_ERROR("%s: invalid usage %d\n", __func__, (int) usage);
        return;
    }
    buffer->usage = usage;
    if (ggml_backend_buffer_is_multi_buffer(buffer)) {
        ggml_backend_multi_buffer_set_usage(buffer, usage);
    }
}

enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return GGML_BACKEND_BUFFER_USAGE_ANY;
    }
    return buffer->usage;
}

ggml_backend_buffer_type_t ggml_backend_buffer_get_type(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return NULL;
    }
    return buffer->buft;
}

void ggml_backend_buffer_reset(ggml_backend_buffer_t buffer) {
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: buffer is NULL\n", __func__);
        return;
    }
    if (buffer->iface.reset != NULL) {
        buffer->iface.reset(buffer);
    }
}

bool ggml_backend_buffer_copy_tensor(const struct ggml_tensor * src, struct ggml_tensor * dst) {
    if (src == NULL || dst == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, src == NULL ? "src" : "dst");
        return false;
    }
    ggml_backend_buffer_t dst_buf = ggml_tensor_data_buffer(dst);
    if (dst_buf == NULL || dst_buf->iface.cpy_tensor == NULL) {
        return false;
    }
    return dst_buf->iface.cpy_tensor(dst_buf, src, dst);
}

//
// tensor placement
//

// true when [addr, addr + size) lies inside the buffer's memory (integer arithmetic: the addresses
// need not be host pointers)
static bool buffer_contains(ggml_backend_buffer_t buffer, const void * addr, size_t size) {
    const uintptr_t base = (uintptr_t) ggml_backend_buffer_get_base(buffer);
    const uintptr_t a    = (uintptr_t) addr;
    const size_t    bsz  = buffer->size;
    if (size == 0 && bsz == 0) {
        return true;
    }
    if (base == 0 || a < base) {
        return false;
    }
    const uintptr_t off = a - base;
    return off <= bsz && size <= bsz - off;
}

enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr) {
    if (buffer == NULL || tensor == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, buffer == NULL ? "buffer" : "tensor");
        return GGML_STATUS_FAILED;
    }
    if (tensor->buffer != NULL || tensor->data != NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' already has memory (buffer %p, data %p)\n",
                __func__, tensor->name, (void *) tensor->buffer, tensor->data);
        return GGML_STATUS_FAILED;
    }
    if (tensor->view_src != NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is a view; use ggml_backend_view_init\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    const size_t size = ggml_backend_buffer_get_alloc_size(buffer, tensor);
    if (!buffer_contains(buffer, addr, size)) {
        GGML_LOG_ERROR("%s: tensor '%s' (%zu bytes) at %p does not fit in %s buffer [%p, +%zu)\n",
                __func__, tensor->name, size, addr, ggml_backend_buffer_name(buffer),
                ggml_backend_buffer_get_base(buffer), buffer->size);
        return GGML_STATUS_FAILED;
    }

    tensor->buffer = buffer;
    tensor->data   = addr;
    enum ggml_status status = ggml_backend_buffer_init_tensor(buffer, tensor);
    if (status != GGML_STATUS_SUCCESS) {
        GGML_LOG_ERROR("%s: %s buffer failed to initialize tensor '%s' (%s)\n",
                __func__, ggml_backend_buffer_name(buffer), tensor->name, ggml_status_to_string(status));
        tensor->buffer = NULL;
        tensor->data   = NULL;
    }
    return status;
}

enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", __func__);
        return GGML_STATUS_FAILED;
    }
    const struct ggml_tensor * vs = tensor->view_src;
    if (vs == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is not a view\n", __func__, tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (vs->buffer == NULL || vs->data == NULL) {
        GGML_LOG_ERROR("%s: view '%s' of '%s': the viewed tensor has no memory\n", __func__, tensor->name, vs->name);
        return GGML_STATUS_FAILED;
    }
    void * data = (void *) ((uintptr_t) vs->data + tensor->view_offs);
    if (!buffer_contains(vs->buffer, data, ggml_nbytes(tensor))) {
        GGML_LOG_ERROR("%s: view '%s' (offset %zu, %zu bytes) lies outside the %s buffer of '%s'\n",
                __func__, tensor->name, tensor->view_offs, ggml_nbytes(tensor), ggml_backend_buffer_name(vs->buffer), vs->name);
        return GGML_STATUS_FAILED;
    }
    // a view created after its source was allocated may already carry the source's buffer;
    // initializing it again is harmless
    if (tensor->buffer != NULL && tensor->buffer != vs->buffer) {
        GGML_LOG_ERROR("%s: view '%s' is in buffer %s but its source '%s' is in buffer %s\n", __func__, tensor->name,
                ggml_backend_buffer_name(tensor->buffer), vs->name, ggml_backend_buffer_name(vs->buffer));
        return GGML_STATUS_FAILED;
    }
    ggml_backend_buffer_t old_buffer = tensor->buffer;
    void * old_data = tensor->data;
    tensor->buffer = vs->buffer;
    tensor->data   = data;
    enum ggml_status status = ggml_backend_buffer_init_tensor(tensor->buffer, tensor);
    if (status != GGML_STATUS_SUCCESS) {
        GGML_LOG_ERROR("%s: %s buffer failed to initialize view '%s' (%s)\n",
                __func__, ggml_backend_buffer_name(tensor->buffer), tensor->name, ggml_status_to_string(status));
        tensor->buffer = old_buffer;
        tensor->data   = old_data;
    }
    return status;
}

//
// tensor data access
//

// The buffer holding a tensor's data, or NULL (logged) when the tensor cannot be accessed through
// a buffer: NULL tensor, no buffer, no data, or data outside its buffer.
static ggml_backend_buffer_t tensor_buffer_checked(const char * func, const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", func);
        return NULL;
    }
    ggml_backend_buffer_t buf = ggml_tensor_data_buffer(tensor);
    if (buf == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' has no buffer\n", func, tensor->name);
        return NULL;
    }
    if (!ggml_backend_buffer_is_live(buf)) {
        GGML_LOG_ERROR("%s: the buffer of tensor '%s' has been freed\n", func, tensor->name);
        return NULL;
    }
    if (tensor->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' is not allocated (data is NULL)\n", func, tensor->name);
        return NULL;
    }
    if (!buffer_contains(buf, tensor->data, ggml_nbytes(tensor))) {
        GGML_LOG_ERROR("%s: tensor '%s' (data %p, %zu bytes) is not inside its %s buffer [%p, +%zu)\n",
                func, tensor->name, tensor->data, ggml_nbytes(tensor), ggml_backend_buffer_name(buf),
                ggml_backend_buffer_get_base(buf), buf->size);
        return NULL;
    }
    return buf;
}

// Checks one set/get/memset request. Returns the tensor's buffer, or NULL when nothing must be
// done: bad arguments (logged) or an empty range (silent).
static ggml_backend_buffer_t tensor_io_check(const char * func, const struct ggml_tensor * tensor,
        const void * data, bool need_data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", func);
        return NULL;
    }
    if (size == 0 || n_copies == 0) {
        return NULL;
    }
    ggml_backend_buffer_t buf = tensor_buffer_checked(func, tensor);
    if (buf == NULL) {
        return NULL;
    }
    if (need_data && data == NULL) {
        GGML_LOG_ERROR("%s: data pointer is NULL (tensor '%s', %zu bytes)\n", func, tensor->name, size);
        return NULL;
    }
    // the last byte touched is at offset + (n_copies - 1)*stride_tensor + size; compute without overflow
    const size_t nbytes = ggml_nbytes(tensor);
    size_t end = offset;
    bool ok = true;
    if (n_copies > 1) {
        if (stride_tensor != 0 && n_copies - 1 > (SIZE_MAX - end) / stride_tensor) {
            ok = false;
        } else {
            end += (n_copies - 1) * stride_tensor;
        }
    }
    ok = ok && size <= SIZE_MAX - end && end + size <= nbytes;
    if (!ok) {
        GGML_LOG_ERROR("%s: range out of bounds: offset %zu + size %zu (copies %zu, stride %zu) exceeds tensor '%s' of %zu bytes\n",
                func, offset, size, n_copies, stride_tensor, tensor->name, nbytes);
        return NULL;
    }
    return buf;
}

void ggml_backend_tensor_set(struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, 1, 0);
    if (buf == NULL) {
        return;
    }
    if (buf->iface.set_tensor == NULL) {
        GGML_LOG_ERROR("%s: %s buffer cannot set tensor data\n", __func__, ggml_backend_buffer_name(buf));
        return;
    }
    buf->iface.set_tensor(buf, tensor, data, offset, size);
}

void ggml_backend_tensor_get(const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, 1, 0);
    if (buf == NULL) {
        return;
    }
    if (buf->iface.get_tensor == NULL) {
        GGML_LOG_ERROR("%s: %s buffer cannot get tensor data\n", __func__, ggml_backend_buffer_name(buf));
        return;
    }
    buf->iface.get_tensor(buf, tensor, data, offset, size);
}

void ggml_backend_tensor_memset(struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, NULL, false, offset, size, 1, 0);
    if (buf == NULL) {
        return;
    }
    if (buf->iface.memset_tensor == NULL) {
        GGML_LOG_ERROR("%s: %s buffer cannot memset tensor data\n", __func__, ggml_backend_buffer_name(buf));
        return;
    }
    buf->iface.memset_tensor(buf, tensor, value, offset, size);
}

void ggml_backend_tensor_set_2d(struct ggml_tensor * tensor, const void * data, size_t offset, size_t size,
        size_t n_copies, size_t stride_tensor, size_t stride_data) {
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, n_copies, stride_tensor);
    if (buf == NULL) {
        return;
    }
    if (buf->iface.set_tensor_2d != NULL) {
        buf->iface.set_tensor_2d(buf, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    if (buf->iface.set_tensor == NULL) {
        GGML_LOG_ERROR("%s: %s buffer cannot set tensor data\n", __func__, ggml_backend_buffer_name(buf));
        return;
    }
    for (size_t i = 0; i < n_copies; i++) {
        buf->iface.set_tensor(buf, tensor, (const char *) data + i*stride_data, offset + i*stride_tensor, size);
    }
}

void ggml_backend_tensor_get_2d(const struct ggml_tensor * tensor, void * data, size_t offset, size_t size,
        size_t n_copies, size_t stride_tensor, size_t stride_data) {
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, n_copies, stride_tensor);
    if (buf == NULL) {
        return;
    }
    if (buf->iface.get_tensor_2d != NULL) {
        buf->iface.get_tensor_2d(buf, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    if (buf->iface.get_tensor == NULL) {
        GGML_LOG_ERROR("%s: %s buffer cannot get tensor data\n", __func__, ggml_backend_buffer_name(buf));
        return;
    }
    for (size_t i = 0; i < n_copies; i++) {
        buf->iface.get_tensor(buf, tensor, (char *) data + i*stride_data, offset + i*stride_tensor, size);
    }
}

// true when the backend may be handed this buffer's tensors for asynchronous access
static bool backend_async_ok(ggml_backend_t backend, ggml_backend_buffer_t buf) {
    return buf->buft != NULL && ggml_backend_supports_buft(backend, buf->buft);
}

void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return;
    }
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, 1, 0);
    if (buf == NULL) {
        return;
    }
    if (backend->iface.set_tensor_async == NULL || !backend_async_ok(backend, buf)) {
        ggml_backend_synchronize(backend);
        ggml_backend_tensor_set(tensor, data, offset, size);
        return;
    }
    backend->iface.set_tensor_async(backend, tensor, data, offset, size);
}

void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return;
    }
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, 1, 0);
    if (buf == NULL) {
        return;
    }
    if (backend->iface.get_tensor_async == NULL || !backend_async_ok(backend, buf)) {
        ggml_backend_synchronize(backend);
        ggml_backend_tensor_get(tensor, data, offset, size);
        return;
    }
    backend->iface.get_tensor_async(backend, tensor, data, offset, size);
}

void ggml_backend_tensor_set_2d_async(ggml_backend_t backend, struct ggml_tensor * tensor, const void * data, size_t offset,
        size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return;
    }
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, n_copies, stride_tensor);
    if (buf == NULL) {
        return;
    }
    if (backend->iface.set_tensor_2d_async != NULL && backend_async_ok(backend, buf)) {
        backend->iface.set_tensor_2d_async(backend, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    for (size_t i = 0; i < n_copies; i++) {
        ggml_backend_tensor_set_async(backend, tensor, (const char *) data + i*stride_data, offset + i*stride_tensor, size);
    }
}

void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const struct ggml_tensor * tensor, void * data, size_t offset,
        size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return;
    }
    ggml_backend_buffer_t buf = tensor_io_check(__func__, tensor, data, true, offset, size, n_copies, stride_tensor);
    if (buf == NULL) {
        return;
    }
    if (backend->iface.get_tensor_2d_async != NULL && backend_async_ok(backend, buf)) {
        backend->iface.get_tensor_2d_async(backend, tensor, data, offset, size, n_copies, stride_tensor, stride_data);
        return;
    }
    for (size_t i = 0; i < n_copies; i++) {
        ggml_backend_tensor_get_async(backend, tensor, (char *) data + i*stride_data, offset + i*stride_tensor, size);
    }
}

//
// tensor copy
//

// Checks a copy request; false (logged) when it cannot be done. A tensor with data but no buffer
// (allocated in a context's own memory) counts as host memory.
static bool tensor_copy_check(const char * func, const struct ggml_tensor * src, const struct ggml_tensor * dst) {
    if (src == NULL || dst == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", func, src == NULL ? "src" : "dst");
        return false;
    }
    if (!ggml_tensors_same_layout(src, dst)) {
        GGML_LOG_ERROR("%s: cannot copy '%s' (%s [%lld, %lld, %lld, %lld]) to '%s' (%s [%lld, %lld, %lld, %lld]): different layouts\n",
                func, src->name, ggml_type_name(src->type),
                (long long) src->ne[0], (long long) src->ne[1], (long long) src->ne[2], (long long) src->ne[3],
                dst->name, ggml_type_name(dst->type),
                (long long) dst->ne[0], (long long) dst->ne[1], (long long) dst->ne[2], (long long) dst->ne[3]);
        return false;
    }
    const struct ggml_tensor * ts[2] = { src, dst };
    for (int i = 0; i < 2; i++) {
        const struct ggml_tensor * t = ts[i];
        ggml_backend_buffer_t buf = ggml_tensor_data_buffer(t);
        if (t->data == NULL) {
            GGML_LOG_ERROR("%s: %s tensor '%s' is not allocated\n", func, i == 0 ? "source" : "destination", t->name);
            return false;
        }
        if (buf != NULL && tensor_buffer_checked(func, t) == NULL) {
            return false;
        }
    }
    return true;
}

void ggml_backend_tensor_copy(const struct ggml_tensor * src, struct ggml_tensor * dst) {
    if (!tensor_copy_check(__func__, src, dst)) {
        return;
    }
    if (src == dst) {
        return;
    }
    const size_t nbytes = ggml_nbytes(src);
    if (nbytes == 0) {
        return;
    }
    const bool src_host = ggml_tensor_in_host_memory(src);
    const bool dst_host = ggml_tensor_in_host_memory(dst);
    const bool dst_has_buffer = ggml_tensor_data_buffer(dst) != NULL;
    if (src_host && !dst_has_buffer) {
        // both in plain host memory
        if (src->data != dst->data) {
            memmove(dst->data, src->data, nbytes);
        }
    } else if (src_host) {
        ggml_backend_tensor_set(dst, src->data, 0, nbytes);
    } else if (dst_host) {
        ggml_backend_tensor_get(src, dst->data, 0, nbytes);
    } else if (!ggml_backend_buffer_copy_tensor(src, dst)) {
        // neither buffer can do it: stage the data in host memory
        void * tmp = ggml_malloc(nbytes);
        if (tmp == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory staging %zu bytes to copy '%s' to '%s'\n", __func__, nbytes, src->name, dst->name);
            return;
        }
        ggml_backend_tensor_get(src, tmp, 0, nbytes);
        ggml_backend_tensor_set(dst, tmp, 0, nbytes);
        ggml_free_mem(tmp);
    }
}

void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    if (backend_src == NULL || backend_dst == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, backend_src == NULL ? "backend_src" : "backend_dst");
        return;
    }
    if (!tensor_copy_check(__func__, src, dst)) {
        return;
    }
    if (src == dst || ggml_nbytes(src) == 0) {
        return;
    }
    const bool in_buffers = ggml_tensor_data_buffer(src) != NULL &&
                            ggml_tensor_data_buffer(dst) != NULL;
    if (backend_dst->iface.cpy_tensor_async != NULL && in_buffers &&
        backend_dst->iface.cpy_tensor_async(backend_src, backend_dst, src, dst)) {
        return;
    }
    // no asynchronous path: wait for both streams, then copy
    ggml_backend_synchronize(backend_src);
    ggml_backend_synchronize(backend_dst);
    ggml_backend_tensor_copy(src, dst);
}

//
// backend (stream)
//

ggml_guid_t ggml_backend_guid(ggml_backend_t backend) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return NULL;
    }
    return backend->guid;
}

// Name getters (of buffer types, buffers, backends, devices, registries) all answer a NULL object
// the same way: the printable string "NULL" and a logged error.
const char * ggml_backend_name(ggml_backend_t backend) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return "NULL";
    }
    if (backend->iface.get_name == NULL) {
        return "unnamed";
    }
    return backend->iface.get_name(backend);
}

void ggml_backend_free(ggml_backend_t backend) {
    if (backend == NULL) {
        return;
    }
    if (backend->iface.free == NULL) {
        GGML_LOG_ERROR("%s: backend %s cannot be freed\n", __func__, ggml_backend_name(backend));
        return;
    }
    ggml_backend_sticky_error_forget(backend);
    backend->iface.free(backend);
}

ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return NULL;
    }
    if (backend->device == NULL) {
        GGML_LOG_ERROR("%s: backend %s has no device\n", __func__, ggml_backend_name(backend));
        return NULL;
    }
    return ggml_backend_dev_buffer_type(backend->device);
}

ggml_backend_buffer_t ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size) {
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(backend);
    if (buft == NULL) {
        return NULL;
    }
    return ggml_backend_buft_alloc_buffer(buft, size);
}

size_t ggml_backend_get_alignment(ggml_backend_t backend) {
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(backend);
    return buft != NULL ? ggml_backend_buft_get_alignment(buft) : 0;
}

size_t ggml_backend_get_max_size(ggml_backend_t backend) {
    ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(backend);
    return buft != NULL ? ggml_backend_buft_get_max_size(buft) : 0;
}

void ggml_backend_synchronize(ggml_backend_t backend) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return;
    }
    if (backend->iface.synchronize != NULL) {
        backend->iface.synchronize(backend);
    }
    // a device error kept for later becomes the last error; graph_compute will return it
    (void) ggml_backend_sticky_error_check(backend, __func__, false);
}

ggml_backend_graph_plan_t ggml_backend_graph_plan_create(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    if (backend == NULL || cgraph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, backend == NULL ? "backend" : "cgraph");
        return NULL;
    }
    if (backend->iface.graph_plan_create == NULL) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: backend %s does not support graph plans\n", __func__, ggml_backend_name(backend));
        return NULL;
    }
    if (cgraph->overflow) {
        GGML_LOG_ERROR("%s: the graph overflowed its size when it was built; it is incomplete\n", __func__);
        return NULL;
    }
    return backend->iface.graph_plan_create(backend, cgraph);
}

void ggml_backend_graph_plan_free(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return;
    }
    if (plan == NULL) {
        return;
    }
    if (backend->iface.graph_plan_free == NULL) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: backend %s does not support graph plans\n", __func__, ggml_backend_name(backend));
        return;
    }
    backend->iface.graph_plan_free(backend, plan);
}

enum ggml_status ggml_backend_graph_plan_compute(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    if (backend == NULL || plan == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, backend == NULL ? "backend" : "plan");
        return GGML_STATUS_FAILED;
    }
    if (backend->iface.graph_plan_compute == NULL) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: backend %s does not support graph plans\n", __func__, ggml_backend_name(backend));
        return GGML_STATUS_FAILED;
    }
    if (ggml_backend_sticky_error_check(backend, __func__, true)) {
        return GGML_STATUS_FAILED;
    }
    return backend->iface.graph_plan_compute(backend, plan);
}

// What is wrong with one tensor of a graph, found under the live-buffer lock and logged after it
enum graph_tensor_fault { GRAPH_TENSOR_OK, GRAPH_TENSOR_NULL, GRAPH_TENSOR_UNALLOCATED, GRAPH_TENSOR_FREED };

// `last_live` caches the last two buffers found live: a node's tensors mostly sit in one or two
// (the weights' and the compute buffer).
static enum graph_tensor_fault graph_tensor_check(const struct ggml_tensor * t, bool need_data, ggml_backend_buffer_t last_live[2]) {
    if (need_data && t->data == NULL && ggml_nbytes(t) != 0) {
        return GRAPH_TENSOR_UNALLOCATED;
    }
    ggml_backend_buffer_t buf = ggml_tensor_data_buffer(t);
    if (buf != NULL && buf != last_live[0] && buf != last_live[1]) {
        if (!ggml_backend_buffer_live_has_locked(buf)) {
            return GRAPH_TENSOR_FREED;
        }
        last_live[1] = last_live[0];
        last_live[0] = buf;
    }
    return GRAPH_TENSOR_OK;
}

// Every tensor a node reads or writes must have memory (need_data), or a backend would
// dereference NULL, in a buffer that has not been freed, or the backend would read the freed
// buffer object. One pass, under the live-buffer lock; the error is logged after it (a log
// callback may free buffers).
bool ggml_backend_graph_tensors_ready(const struct ggml_cgraph * cgraph, bool need_data, const char * func) {
    enum graph_tensor_fault fault = GRAPH_TENSOR_OK;
    int bad_node = -1, bad_src = -1;
    ggml_backend_buffer_t last_live[2] = { NULL, NULL };
    ggml_backend_buffer_live_lock();
    for (int i = 0; i < cgraph->n_nodes && fault == GRAPH_TENSOR_OK; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        bad_node = i;
        if (node == NULL) {
            fault = GRAPH_TENSOR_NULL;
            break;
        }
        fault = graph_tensor_check(node, need_data, last_live);
        for (int j = 0; j < GGML_MAX_SRC && fault == GRAPH_TENSOR_OK; j++) {
            if (node->src[j] != NULL) {
                bad_src = j;
                fault = graph_tensor_check(node->src[j], need_data, last_live);
            }
        }
        if (fault == GRAPH_TENSOR_OK) {
            bad_src = -1;
        }
    }
    ggml_backend_buffer_live_unlock();
    if (fault == GRAPH_TENSOR_OK) {
        return true;
    }
    const struct ggml_tensor * node = cgraph->nodes[bad_node];
    if (fault == GRAPH_TENSOR_NULL) {
        GGML_LOG_ERROR("%s: node %d is NULL\n", func, bad_node);
        return false;
    }
    const struct ggml_tensor * t = bad_src >= 0 ? node->src[bad_src] : node;
    char what[192];
    if (bad_src >= 0) {
        snprintf(what, sizeof(what), "source %d '%s' of node %d", bad_src, t->name, bad_node);
    } else {
        snprintf(what, sizeof(what), "node %d", bad_node);
    }
    if (fault == GRAPH_TENSOR_UNALLOCATED) {
        GGML_LOG_ERROR("%s: %s '%s' (%s) is not allocated\n", func, what, node->name, ggml_op_desc(node));
    } else {
        GGML_LOG_ERROR("%s: the buffer of %s '%s' has been freed\n", func, what, node->name);
    }
    return false;
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    if (backend == NULL || cgraph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, backend == NULL ? "backend" : "cgraph");
        return GGML_STATUS_FAILED;
    }
    if (cgraph->overflow) {
        GGML_LOG_ERROR("%s: the graph overflowed its size (%d) when it was built; it is incomplete\n", __func__, cgraph->size);
        return GGML_STATUS_FAILED;
    }
    if (cgraph->n_nodes < 0 || (cgraph->n_nodes > 0 && cgraph->nodes == NULL)) {
        GGML_LOG_ERROR("%s: invalid graph (%d nodes)\n", __func__, cgraph->n_nodes);
        return GGML_STATUS_FAILED;
    }
    if (backend->iface.graph_compute == NULL) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: backend %s cannot compute graphs\n", __func__, ggml_backend_name(backend));
        return GGML_STATUS_FAILED;
    }
    if (!ggml_backend_graph_tensors_ready(cgraph, true, "ggml_backend_graph_compute")) {
        return GGML_STATUS_FAILED;
    }
    // an earlier device error: the graph's inputs may be wrong, so it is not computed
    if (ggml_backend_sticky_error_check(backend, __func__, true)) {
        return GGML_STATUS_FAILED;
    }
    return backend->iface.graph_compute(backend, cgraph);
}

enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    enum ggml_status status = ggml_backend_graph_compute_async(backend, cgraph);
    if (backend != NULL) {
        ggml_backend_synchronize(backend);
        // a device error while the graph ran is this graph's failure
        if (status == GGML_STATUS_SUCCESS && ggml_backend_sticky_error_check(backend, __func__, true)) {
            status = GGML_STATUS_FAILED;
        }
    }
    return status;
}

bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return false;
    }
    return ggml_backend_dev_supports_op(backend->device, op);
}

bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return false;
    }
    return ggml_backend_dev_supports_buft(backend->device, buft);
}

bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return false;
    }
    return ggml_backend_dev_offload_op(backend->device, op);
}

ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend) {
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: backend is NULL\n", __func__);
        return NULL;
    }
    return backend->device;
}
