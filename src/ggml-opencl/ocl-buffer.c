// Buffers of the OpenCL backend.
//
//   device memory ("OpenCL<i>"): one cl_mem per buffer, seen by ggml at a fake base address (its
//     own 1 TiB window, never dereferenced); tensor data is reached only through the device's
//     transfer queue (blocking calls) or a backend's queue (asynchronous calls).
//   wrapped host memory (buffer_from_host_ptr): a CL_MEM_USE_HOST_PTR cl_mem over the caller's
//     memory, of the device buffer type: tensor->data are the caller's addresses, but the data is
//     still accessed through the queue (the driver may keep a device copy).
//   pinned host memory ("OpenCL<i>_Host"): a CL_MEM_ALLOC_HOST_PTR cl_mem mapped once for its
//     whole life; a host buffer (is_host) that the driver can transfer from and to quickly.

#include "ggml-opencl-impl.h"
#include "ggml-backend-host-buffer.h"
#include "ggml-tensor-helpers.h"

#include <stdio.h>
#include <string.h>

// fake address windows for device buffers: 1 TiB apart, in a range no process maps
#define OCL_WINDOW_BASE  ((uint64_t) 0x5000000000000000ull)
#define OCL_WINDOW_SHIFT 40
static atomic_uint_fast64_t g_next_window;

static void * ocl_buffer_get_base(ggml_backend_buffer_t buffer);

bool ggml_ocl_buffer_is_device(ggml_backend_buffer_t buffer) {
    return buffer != NULL && buffer->iface.get_base == ocl_buffer_get_base;
}

bool ggml_ocl_tensor_mem(const struct ggml_tensor * t, const char * who, cl_mem * mem, size_t * offset) {
    ggml_backend_buffer_t buf = ggml_tensor_data_buffer(t);
    if (!ggml_ocl_buffer_is_device(buf) || t->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' (%s) is not in an OpenCL device buffer (buffer %s)\n",
            who, t->name, ggml_op_desc(t), buf != NULL ? ggml_backend_buffer_name(buf) : "none");
        return false;
    }
    const struct ggml_ocl_buffer * b = buf->context;
    const char * data = t->data;
    const size_t nbytes = ggml_nbytes(t);
    if (data < b->base || (size_t) (data - b->base) > b->size || nbytes > b->size - (size_t) (data - b->base)) {
        GGML_LOG_ERROR("%s: tensor '%s' (%zu bytes at %p) lies outside its buffer %s (%zu bytes at %p)\n",
            who, t->name, nbytes, t->data, ggml_backend_buffer_name(buf), b->size, (void *) b->base);
        return false;
    }
    *mem = b->mem;
    *offset = (size_t) (data - b->base);
    return true;
}

//
// device buffers
//

static void ocl_buffer_free(ggml_backend_buffer_t buffer) {
    struct ggml_ocl_buffer * b = buffer->context;
    if (b->mem != NULL) {
        // the blocking calls and every backend queue sync before the buffer goes away: a pending
        // read/write of a freed buffer is the caller's error, but releasing is still safe (OpenCL
        // keeps the object alive until its commands finish)
        GGML_OCL_OK(clReleaseMemObject(b->mem), "clReleaseMemObject");
    }
    if (b->counted) {
        atomic_fetch_sub(&b->dev->allocated, b->size);
    }
    ggml_free_mem(b);
}

static void * ocl_buffer_get_base(ggml_backend_buffer_t buffer) {
    struct ggml_ocl_buffer * b = buffer->context;
    return b->base;
}

// the tensor's byte offset in the buffer plus offset
static bool ocl_buffer_offset(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, size_t offset, size_t size,
                              const char * func, size_t * out) {
    const struct ggml_ocl_buffer * b = buffer->context;
    const char * data = tensor->data;
    if (data == NULL || data < b->base || (size_t) (data - b->base) > b->size ||
        offset > b->size - (size_t) (data - b->base) || size > b->size - (size_t) (data - b->base) - offset) {
        GGML_LOG_ERROR("%s: tensor '%s': bytes [%zu, %zu) lie outside buffer %s (%zu bytes)\n",
            func, tensor->name, offset, offset + size, ggml_backend_buffer_name(buffer), b->size);
        return false;
    }
    *out = (size_t) (data - b->base) + offset;
    return true;
}

static void ocl_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    struct ggml_ocl_buffer * b = buffer->context;
    size_t at;
    if (size == 0 || !ocl_buffer_offset(buffer, tensor, offset, size, __func__, &at)) {
        return;
    }
    cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
    if (q == NULL) {
        return;
    }
    if (GGML_OCL_BUF_OK(buffer, clEnqueueFillBuffer(q, b->mem, &value, 1, at, size, 0, NULL, NULL), "clEnqueueFillBuffer")) {
        GGML_OCL_BUF_OK(buffer, clFinish(q), "clFinish");
    }
}

static void ocl_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    struct ggml_ocl_buffer * b = buffer->context;
    size_t at;
    if (size == 0 || !ocl_buffer_offset(buffer, tensor, offset, size, __func__, &at)) {
        return;
    }
    cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
    if (q != NULL) {
        GGML_OCL_BUF_OK(buffer, clEnqueueWriteBuffer(q, b->mem, CL_TRUE, at, size, data, 0, NULL, NULL), "clEnqueueWriteBuffer");
    }
}

static void ocl_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    struct ggml_ocl_buffer * b = buffer->context;
    size_t at;
    if (size == 0 || !ocl_buffer_offset(buffer, tensor, offset, size, __func__, &at)) {
        return;
    }
    cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
    if (q != NULL) {
        GGML_OCL_BUF_OK(buffer, clEnqueueReadBuffer(q, b->mem, CL_TRUE, at, size, data, 0, NULL, NULL), "clEnqueueReadBuffer");
    }
}

// n_copies rows of size bytes in one rectangular transfer
static void ocl_buffer_rect(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, bool write,
        size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data, const char * func) {
    struct ggml_ocl_buffer * b = buffer->context;
    size_t at;
    if (size == 0 || n_copies == 0) {
        return;
    }
    const size_t span = (n_copies - 1)*stride_tensor + size;
    if (!ocl_buffer_offset(buffer, tensor, offset, span, func, &at)) {
        return;
    }
    cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
    if (q == NULL) {
        return;
    }
    // the rect calls need pitches >= the row size; otherwise fall back to one call per row
    if (stride_tensor >= size && stride_data >= size) {
        const size_t buf_origin[3]  = { at, 0, 0 };
        const size_t host_origin[3] = { 0, 0, 0 };
        const size_t region[3]      = { size, n_copies, 1 };
        cl_int err = write
            ? clEnqueueWriteBufferRect(q, b->mem, CL_TRUE, buf_origin, host_origin, region, stride_tensor, 0, stride_data, 0, data, 0, NULL, NULL)
            : clEnqueueReadBufferRect (q, b->mem, CL_TRUE, buf_origin, host_origin, region, stride_tensor, 0, stride_data, 0, data, 0, NULL, NULL);
        ggml_ocl_check_buffer(buffer, err, func, write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect");
        return;
    }
    for (size_t i = 0; i < n_copies; i++) {
        char * h = (char *) data + i*stride_data;
        const size_t o = at + i*stride_tensor;
        cl_int err = write ? clEnqueueWriteBuffer(q, b->mem, CL_FALSE, o, size, h, 0, NULL, NULL)
                           : clEnqueueReadBuffer (q, b->mem, CL_FALSE, o, size, h, 0, NULL, NULL);
        if (!ggml_ocl_check_buffer(buffer, err, func, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer")) {
            break;
        }
    }
    ggml_ocl_check_buffer(buffer, clFinish(q), func, "clFinish");
}

static void ocl_buffer_set_tensor_2d(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset,
        size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    ocl_buffer_rect(buffer, tensor, (void *) data, true, offset, size, n_copies, stride_tensor, stride_data, __func__);
}

static void ocl_buffer_get_tensor_2d(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset,
        size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    ocl_buffer_rect(buffer, tensor, data, false, offset, size, n_copies, stride_tensor, stride_data, __func__);
}

static bool ocl_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    struct ggml_ocl_buffer * b = buffer->context;
    const size_t n = ggml_nbytes(src);
    size_t at;
    if (!ocl_buffer_offset(buffer, dst, 0, n, __func__, &at)) {
        return false;
    }
    ggml_backend_buffer_t sbuf = ggml_tensor_data_buffer(src);
    if (ggml_ocl_buffer_is_device(sbuf)) {
        const struct ggml_ocl_buffer * sb = sbuf->context;
        if (sb->dev->platform != b->dev->platform) {
            return false; // different contexts: through the host
        }
        size_t sat;
        if (!ocl_buffer_offset(sbuf, src, 0, n, __func__, &sat)) {
            return false;
        }
        cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
        if (q == NULL) {
            return false;
        }
        if (n > 0 && !(GGML_OCL_OK(clEnqueueCopyBuffer(q, sb->mem, b->mem, sat, at, n, 0, NULL, NULL), "clEnqueueCopyBuffer") &&
                       GGML_OCL_OK(clFinish(q), "clFinish"))) {
            return false;
        }
        return true;
    }
    if (sbuf != NULL && ggml_backend_buffer_is_host(sbuf) && src->data != NULL) {
        ocl_buffer_set_tensor(buffer, dst, src->data, 0, n);
        return true;
    }
    return false;
}

static void ocl_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct ggml_ocl_buffer * b = buffer->context;
    if (b->size == 0) {
        return;
    }
    cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
    if (q == NULL) {
        return;
    }
    if (GGML_OCL_BUF_OK(buffer, clEnqueueFillBuffer(q, b->mem, &value, 1, 0, b->size, 0, NULL, NULL), "clEnqueueFillBuffer")) {
        GGML_OCL_BUF_OK(buffer, clFinish(q), "clFinish");
    }
}

static const struct ggml_backend_buffer_i ocl_buffer_iface = {
    /* .free_buffer   = */ ocl_buffer_free,
    /* .get_base      = */ ocl_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ ocl_buffer_memset_tensor,
    /* .set_tensor    = */ ocl_buffer_set_tensor,
    /* .get_tensor    = */ ocl_buffer_get_tensor,
    /* .set_tensor_2d = */ ocl_buffer_set_tensor_2d,
    /* .get_tensor_2d = */ ocl_buffer_get_tensor_2d,
    /* .cpy_tensor    = */ ocl_buffer_cpy_tensor,
    /* .clear         = */ ocl_buffer_clear,
    /* .reset         = */ NULL,
};

static const char * ocl_buft_get_name(ggml_backend_buffer_type_t buft) {
    struct ggml_ocl_device * d = buft->context;
    return d->buft_name;
}

static ggml_backend_buffer_t ocl_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct ggml_ocl_device * d = buft->context;
    if (size > d->max_alloc) {
        GGML_LOG_ERROR("%s: %s: %zu bytes requested, the device allows at most %llu in one buffer\n",
            __func__, d->name, size, (unsigned long long) d->max_alloc);
        return NULL;
    }
    cl_context ctx = ggml_ocl_device_context(d);
    if (ctx == NULL) {
        return NULL;
    }
    struct ggml_ocl_buffer * b = ggml_calloc(1, sizeof(*b));
    if (b == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        return NULL;
    }
    cl_int err = CL_SUCCESS;
    b->mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != CL_SUCCESS || b->mem == NULL) {
        // the drivers answer an exhausted device with any of these
        ggml_error_report(err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY
                ? GGML_ERROR_OUT_OF_MEMORY : GGML_ERROR_DEVICE,
                "%s: %s: clCreateBuffer of %zu bytes failed: %s (%d)\n", __func__, d->name, size, ggml_ocl_errstr(err), (int) err);
        ggml_free_mem(b);
        return NULL;
    }
    b->dev  = d;
    b->size = size;
    b->counted = true;
    b->base = (char *) (uintptr_t) (OCL_WINDOW_BASE + ((uint64_t) atomic_fetch_add(&g_next_window, 1) << OCL_WINDOW_SHIFT));
    atomic_fetch_add(&d->allocated, size);

    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, ocl_buffer_iface, b, size);
    if (buffer == NULL) {
        ocl_buffer_free(&(struct ggml_backend_buffer) { .context = b });
        return NULL;
    }
    return buffer;
}

static size_t ocl_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    struct ggml_ocl_device * d = buft->context;
    return d->alignment;
}

static size_t ocl_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    struct ggml_ocl_device * d = buft->context;
    return d->max_alloc > SIZE_MAX ? SIZE_MAX : (size_t) d->max_alloc;
}

static bool ocl_buft_is_host(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return false;
}

static const struct ggml_backend_buffer_type_i ocl_buft_iface = {
    /* .get_name       = */ ocl_buft_get_name,
    /* .alloc_buffer   = */ ocl_buft_alloc_buffer,
    /* .get_alignment  = */ ocl_buft_get_alignment,
    /* .get_max_size   = */ ocl_buft_get_max_size,
    /* .get_alloc_size = */ NULL,
    /* .is_host        = */ ocl_buft_is_host,
};

ggml_backend_buffer_t ggml_ocl_buffer_from_host_ptr(struct ggml_ocl_device * d, void * ptr, size_t size) {
    if (ptr == NULL || size == 0) {
        GGML_LOG_ERROR("%s: %s: %s\n", __func__, d->name, ptr == NULL ? "ptr is NULL" : "size is 0");
        return NULL;
    }
    if (size > d->max_alloc) {
        GGML_LOG_ERROR("%s: %s: %zu bytes, the device allows at most %llu in one buffer\n",
            __func__, d->name, size, (unsigned long long) d->max_alloc);
        return NULL;
    }
    cl_context ctx = ggml_ocl_device_context(d);
    if (ctx == NULL) {
        return NULL;
    }
    struct ggml_ocl_buffer * b = ggml_calloc(1, sizeof(*b));
    if (b == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        return NULL;
    }
    cl_int err = CL_SUCCESS;
    b->mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, ptr, &err);
    if (err != CL_SUCCESS || b->mem == NULL) {
        GGML_LOG_ERROR("%s: %s: the driver cannot wrap %zu bytes at %p: clCreateBuffer: %s (%d)\n",
            __func__, d->name, size, ptr, ggml_ocl_errstr(err), (int) err);
        ggml_free_mem(b);
        return NULL;
    }
    b->dev  = d;
    b->size = size;
    b->base = ptr;
    b->counted = false;
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(&d->buft, ocl_buffer_iface, b, size);
    if (buffer == NULL) {
        ocl_buffer_free(&(struct ggml_backend_buffer) { .context = b });
        return NULL;
    }
    return buffer;
}

//
// pinned host buffers
//

static void ocl_host_buffer_free(ggml_backend_buffer_t buffer) {
    struct ggml_ocl_buffer * b = buffer->context;
    cl_command_queue q = ggml_ocl_device_xfer_queue(b->dev);
    if (q != NULL && b->base != NULL) {
        if (GGML_OCL_OK(clEnqueueUnmapMemObject(q, b->mem, b->base, 0, NULL, NULL), "clEnqueueUnmapMemObject")) {
            GGML_OCL_OK(clFinish(q), "clFinish");
        }
    }
    GGML_OCL_OK(clReleaseMemObject(b->mem), "clReleaseMemObject");
    ggml_free_mem(b);
}

static void * ocl_host_buffer_get_base(ggml_backend_buffer_t buffer) {
    struct ggml_ocl_buffer * b = buffer->context;
    return b->base;
}

static const char * ocl_host_buft_get_name(ggml_backend_buffer_type_t buft) {
    struct ggml_ocl_device * d = buft->context;
    return d->buft_host_name;
}

static ggml_backend_buffer_t ocl_host_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct ggml_ocl_device * d = buft->context;
    if (size > d->max_alloc) {
        GGML_LOG_ERROR("%s: %s: %zu bytes requested, the device allows at most %llu in one buffer\n",
            __func__, d->buft_host_name, size, (unsigned long long) d->max_alloc);
        return NULL;
    }
    cl_context ctx = ggml_ocl_device_context(d);
    cl_command_queue q = ctx != NULL ? ggml_ocl_device_xfer_queue(d) : NULL;
    if (q == NULL) {
        return NULL;
    }
    struct ggml_ocl_buffer * b = ggml_calloc(1, sizeof(*b));
    if (b == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        return NULL;
    }
    cl_int err = CL_SUCCESS;
    b->mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &err);
    if (err != CL_SUCCESS || b->mem == NULL) {
        ggml_error_report(err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY
                ? GGML_ERROR_OUT_OF_MEMORY : GGML_ERROR_DEVICE, "%s: %s: clCreateBuffer of %zu pinned bytes failed: %s (%d)\n",
            __func__, d->name, size, ggml_ocl_errstr(err), (int) err);
        ggml_free_mem(b);
        return NULL;
    }
    b->base = clEnqueueMapBuffer(q, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS || b->base == NULL) {
        GGML_LOG_ERROR("%s: %s: mapping %zu pinned bytes failed: %s (%d)\n", __func__, d->name, size, ggml_ocl_errstr(err), (int) err);
        GGML_OCL_OK(clReleaseMemObject(b->mem), "clReleaseMemObject");
        ggml_free_mem(b);
        return NULL;
    }
    b->dev  = d;
    b->size = size;
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, ggml_backend_host_buffer_iface(ocl_host_buffer_free, ocl_host_buffer_get_base), b, size);
    if (buffer == NULL) {
        ocl_host_buffer_free(&(struct ggml_backend_buffer) { .context = b });
        return NULL;
    }
    return buffer;
}

static size_t ocl_host_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return 128;
}

static bool ocl_host_buft_is_host(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return true;
}

static const struct ggml_backend_buffer_type_i ocl_host_buft_iface = {
    /* .get_name       = */ ocl_host_buft_get_name,
    /* .alloc_buffer   = */ ocl_host_buft_alloc_buffer,
    /* .get_alignment  = */ ocl_host_buft_get_alignment,
    /* .get_max_size   = */ ocl_buft_get_max_size,
    /* .get_alloc_size = */ NULL,
    /* .is_host        = */ ocl_host_buft_is_host,
};

void ggml_ocl_buffer_types_init(struct ggml_ocl_device * d) {
    snprintf(d->buft_name, sizeof(d->buft_name), "%s", d->name);
    snprintf(d->buft_host_name, sizeof(d->buft_host_name), "%s_Host", d->name);
    d->buft.iface   = ocl_buft_iface;
    d->buft.device  = &d->dev;
    d->buft.context = d;
    d->buft_host.iface   = ocl_host_buft_iface;
    d->buft_host.device  = &d->dev;
    d->buft_host.context = d;
}

cl_mem ggml_ocl_scratch(struct ggml_ocl_backend * be, size_t bytes) {
    if (be->scratch != NULL && be->scratch_size >= bytes) {
        return be->scratch;
    }
    cl_context ctx = ggml_ocl_device_context(be->dev);
    if (ctx == NULL) {
        return NULL;
    }
    // kernels already enqueued keep the old memory alive until they finish (OpenCL counts them)
    if (be->scratch != NULL) {
        GGML_OCL_OK(clReleaseMemObject(be->scratch), "clReleaseMemObject");
        be->scratch = NULL;
        be->scratch_size = 0;
    }
    const size_t size = bytes < 4096 ? 4096 : bytes + bytes/2;
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    if (err != CL_SUCCESS || mem == NULL) {
        ggml_error_report(err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY
                ? GGML_ERROR_OUT_OF_MEMORY : GGML_ERROR_DEVICE,
                "%s: %s: scratch memory of %zu bytes: clCreateBuffer failed: %s (%d)\n", __func__, be->name, size,
                ggml_ocl_errstr(err), (int) err);
        return NULL;
    }
    be->scratch = mem;
    be->scratch_size = size;
    return mem;
}
