// The OpenCL backend's registry, devices and backends (streams).
//
// The registry enumerates every OpenCL platform and device once (thread-safe, on first use).
// No OpenCL loader library, a missing ICD loader configuration, no platform or
// GGML_OPENCL_DISABLE=1 give a registry with no devices (logged once at INFO); the rest of the
// library is unaffected. Contexts (one per
// platform, shared by its devices so that buffers can be copied between them on the device) and
// queues are created when a device is first used.

#include "ggml-opencl-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdio.h>
#include <string.h>

struct ggml_ocl_registry {
    struct ggml_ocl_platform * platforms;
    cl_uint n_platforms;
    struct ggml_ocl_device ** devices;
    size_t n_devices;
};

static struct ggml_ocl_registry g_ocl;
static pthread_once_t g_ocl_once = PTHREAD_ONCE_INIT;
static struct ggml_backend_reg g_ocl_reg;

static const struct ggml_backend_device_i ocl_device_iface;

static bool env_flag(const char * name) {
    const char * v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static void platform_str(cl_platform_id id, cl_platform_info what, char * buf, size_t size) {
    buf[0] = '\0';
    if (clGetPlatformInfo(id, what, size - 1, buf, NULL) != CL_SUCCESS) {
        snprintf(buf, size, "?");
    }
    buf[size - 1] = '\0';
}

static bool registry_add_device(struct ggml_ocl_platform * p, cl_device_id id) {
    struct ggml_ocl_device * d = ggml_calloc(1, sizeof(*d));
    if (d == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        return false;
    }
    if (!ggml_ocl_device_query(d, p, id)) {
        ggml_free_mem(d);
        return false;
    }
    struct ggml_ocl_device ** devs = ggml_realloc(g_ocl.devices, (g_ocl.n_devices + 1)*sizeof(*devs));
    if (devs == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        ggml_free_mem(d);
        return false;
    }
    g_ocl.devices = devs;
    d->index = (int) g_ocl.n_devices;
    snprintf(d->name, sizeof(d->name), "OpenCL%d", d->index);
    pthread_mutex_init(&d->lock, NULL);
    d->dev.iface   = ocl_device_iface;
    d->dev.reg     = &g_ocl_reg;
    d->dev.context = d;
    ggml_ocl_buffer_types_init(d);
    g_ocl.devices[g_ocl.n_devices++] = d;
#ifndef NDEBUG
    GGML_LOG_DEBUG("%s: %s: %s (%s, %s, driver %s), %.0f MiB%s\n", __func__, d->name, d->description, d->vendor,
        d->version, d->driver, (double) d->global_mem / (1024.0*1024.0), d->fp16 ? ", fp16" : "");
#endif
    return true;
}

static void registry_init(void) {
    if (env_flag("GGML_OPENCL_DISABLE")) {
        GGML_LOG_INFO("%s: GGML_OPENCL_DISABLE is set: the OpenCL backend lists no devices\n", __func__);
        return;
    }
    if (!ggml_ocl_api_load()) {
        return;
    }
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &n);
    if (err != CL_SUCCESS || n == 0) {
        // no ICD installed or none configured: a normal situation, not an error
        GGML_LOG_INFO("%s: no OpenCL platform found (%s): the OpenCL backend lists no devices\n",
            __func__, err != CL_SUCCESS ? ggml_ocl_errstr(err) : "0 platforms");
        return;
    }
    cl_platform_id * ids = ggml_calloc(n, sizeof(*ids));
    g_ocl.platforms = ggml_calloc(n, sizeof(*g_ocl.platforms));
    if (ids == NULL || g_ocl.platforms == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        ggml_free_mem(ids);
        ggml_free_mem(g_ocl.platforms);
        g_ocl.platforms = NULL;
        return;
    }
    if (!GGML_OCL_OK(clGetPlatformIDs(n, ids, NULL), "clGetPlatformIDs")) {
        ggml_free_mem(ids);
        return;
    }
    for (cl_uint i = 0; i < n; i++) {
        struct ggml_ocl_platform * p = &g_ocl.platforms[g_ocl.n_platforms];
        p->id = ids[i];
        pthread_mutex_init(&p->lock, NULL);
        platform_str(p->id, CL_PLATFORM_NAME, p->name, sizeof(p->name));
        platform_str(p->id, CL_PLATFORM_VERSION, p->version, sizeof(p->version));

        cl_uint n_dev = 0;
        err = clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, 0, NULL, &n_dev);
        if (err != CL_SUCCESS || n_dev == 0) {
            GGML_LOG_INFO("%s: OpenCL platform '%s' has no devices (%s)\n", __func__, p->name,
                err != CL_SUCCESS ? ggml_ocl_errstr(err) : "0 devices");
            pthread_mutex_destroy(&p->lock);
            continue;
        }
        cl_device_id * dev_ids = ggml_calloc(n_dev, sizeof(*dev_ids));
        p->device_ids = ggml_calloc(n_dev, sizeof(*p->device_ids));
        if (dev_ids == NULL || p->device_ids == NULL || !GGML_OCL_OK(clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, n_dev, dev_ids, NULL), "clGetDeviceIDs")) {
            ggml_free_mem(dev_ids);
            ggml_free_mem(p->device_ids);
            p->device_ids = NULL;
            pthread_mutex_destroy(&p->lock);
            continue;
        }
        for (cl_uint j = 0; j < n_dev; j++) {
            if (registry_add_device(p, dev_ids[j])) {
                p->device_ids[p->n_device_ids++] = dev_ids[j];
            }
        }
        ggml_free_mem(dev_ids);
        if (p->n_device_ids == 0) {
            ggml_free_mem(p->device_ids);
            p->device_ids = NULL;
            pthread_mutex_destroy(&p->lock);
            continue;
        }
        g_ocl.n_platforms++;
    }
    ggml_free_mem(ids);
    if (g_ocl.n_devices == 0) {
        GGML_LOG_INFO("%s: no usable OpenCL device found\n", __func__);
    }
}

static void registry_once(void) {
    pthread_once(&g_ocl_once, registry_init);
}

size_t ggml_ocl_n_devices(void) {
    registry_once();
    return g_ocl.n_devices;
}

struct ggml_ocl_device * ggml_ocl_device_at(size_t i) {
    registry_once();
    return i < g_ocl.n_devices ? g_ocl.devices[i] : NULL;
}

struct ggml_ocl_device * ggml_ocl_device_from_dev(ggml_backend_dev_t dev) {
    if (dev == NULL || dev->iface.get_name != ocl_device_iface.get_name) {
        return NULL;
    }
    return dev->context;
}

//
// backends (streams)
//

static const struct ggml_backend_i ocl_backend_iface;

static ggml_guid_t ocl_guid(void) {
    static ggml_guid guid = { 0x6f, 0x63, 0x6c, 0x2d, 0x67, 0x67, 0x6d, 0x6c, 0x9b, 0x1e, 0x4a, 0x4f, 0x70, 0x65, 0x6e, 0x43 };
    return &guid;
}

struct ggml_ocl_backend * ggml_ocl_backend_ctx(ggml_backend_t backend) {
    if (backend == NULL || backend->iface.get_name != ocl_backend_iface.get_name) {
        return NULL;
    }
    return backend->context;
}

static const char * ocl_backend_get_name(ggml_backend_t backend) {
    struct ggml_ocl_backend * be = backend->context;
    return be->name;
}

static void ocl_backend_free(ggml_backend_t backend) {
    struct ggml_ocl_backend * be = backend->context;
    if (be->queue != NULL) {
        GGML_OCL_OK(clFinish(be->queue), "clFinish");
    }
    if (be->profile != NULL) {
        ggml_ocl_profile_print(be->profile, be->name);
        ggml_ocl_profile_free(be->profile);
    }
    for (int i = 0; i < be->n_kernels; i++) {
        GGML_OCL_OK(clReleaseKernel(be->kernels[i].kernel), "clReleaseKernel");
    }
    ggml_free_mem(be->kernels);
    if (be->scratch != NULL) {
        GGML_OCL_OK(clReleaseMemObject(be->scratch), "clReleaseMemObject");
    }
    for (int i = 0; i < GGML_UNARY_OP_COUNT; i++) {
        if (be->unary_tables[i] != NULL) {
            GGML_OCL_OK(clReleaseMemObject(be->unary_tables[i]), "clReleaseMemObject");
        }
    }
    if (be->queue != NULL) {
        GGML_OCL_OK(clReleaseCommandQueue(be->queue), "clReleaseCommandQueue");
    }
    ggml_ocl_programs_drop(be->dev); // the last stream of the device releases its programs
    ggml_free_mem(be);
    ggml_free_mem(backend);
}

// the tensor's memory when it is in a device buffer of this backend's context
static bool ocl_backend_tensor_at(struct ggml_ocl_backend * be, const struct ggml_tensor * t, size_t offset, size_t size,
                                  const char * func, cl_mem * mem, size_t * at) {
    size_t toff;
    if (!ggml_ocl_tensor_mem(t, func, mem, &toff)) {
        return false;
    }
    ggml_backend_buffer_t buf = ggml_tensor_data_buffer(t);
    const struct ggml_ocl_buffer * b = buf->context;
    if (b->dev->platform != be->dev->platform) {
        GGML_LOG_ERROR("%s: tensor '%s' is in %s, outside the OpenCL context of %s\n", func, t->name, b->dev->name, be->name);
        return false;
    }
    if (offset > b->size - toff || size > b->size - toff - offset) {
        GGML_LOG_ERROR("%s: tensor '%s': bytes [%zu, %zu) lie outside its buffer\n", func, t->name, offset, offset + size);
        return false;
    }
    *at = toff + offset;
    return true;
}

static void ocl_backend_set_tensor_async(ggml_backend_t backend, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    struct ggml_ocl_backend * be = backend->context;
    cl_mem mem;
    size_t at;
    if (size == 0 || !ocl_backend_tensor_at(be, tensor, offset, size, __func__, &mem, &at)) {
        return;
    }
    // non-blocking: the caller keeps data valid until ggml_backend_synchronize
    GGML_OCL_STREAM_OK(backend, clEnqueueWriteBuffer(be->queue, mem, CL_FALSE, at, size, data, 0, NULL, NULL), "clEnqueueWriteBuffer");
}

static void ocl_backend_get_tensor_async(ggml_backend_t backend, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    struct ggml_ocl_backend * be = backend->context;
    cl_mem mem;
    size_t at;
    if (size == 0 || !ocl_backend_tensor_at(be, tensor, offset, size, __func__, &mem, &at)) {
        return;
    }
    GGML_OCL_STREAM_OK(backend, clEnqueueReadBuffer(be->queue, mem, CL_FALSE, at, size, data, 0, NULL, NULL), "clEnqueueReadBuffer");
}

static bool ocl_backend_cpy_tensor_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    struct ggml_ocl_backend * bs = ggml_ocl_backend_ctx(backend_src);
    struct ggml_ocl_backend * bd = ggml_ocl_backend_ctx(backend_dst);
    // only device-to-device copies in one context; host memory could change before the copy ran
    if (bs == NULL || bd == NULL || bs->dev->platform != bd->dev->platform) {
        return false;
    }
    ggml_backend_buffer_t sbuf = ggml_tensor_data_buffer(src);
    ggml_backend_buffer_t dbuf = ggml_tensor_data_buffer(dst);
    if (!ggml_ocl_buffer_is_device(sbuf) || !ggml_ocl_buffer_is_device(dbuf)) {
        return false;
    }
    const size_t n = ggml_nbytes(src);
    cl_mem ms, md;
    size_t os, od;
    if (!ocl_backend_tensor_at(bs, src, 0, n, __func__, &ms, &os) || !ocl_backend_tensor_at(bd, dst, 0, n, __func__, &md, &od)) {
        return false;
    }
    if (bs == bd) {
        return GGML_OCL_OK(clEnqueueCopyBuffer(bs->queue, ms, md, os, od, n, 0, NULL, NULL), "clEnqueueCopyBuffer");
    }
    // the copy runs on the source queue after its work; the destination queue waits for it
    cl_event done = NULL;
    if (!GGML_OCL_OK(clEnqueueCopyBuffer(bs->queue, ms, md, os, od, n, 0, NULL, &done), "clEnqueueCopyBuffer")) {
        return false;
    }
    GGML_OCL_OK(clFlush(bs->queue), "clFlush");
    const bool ok = GGML_OCL_OK(clEnqueueBarrierWithWaitList(bd->queue, 1, &done, NULL), "clEnqueueBarrierWithWaitList");
    GGML_OCL_OK(clReleaseEvent(done), "clReleaseEvent");
    if (!ok) {
        // the copy is queued but the destination cannot wait for it: make it complete now
        GGML_OCL_STREAM_OK(backend_dst, clFinish(bs->queue), "clFinish");
    }
    return true;
}

static void ocl_backend_synchronize(ggml_backend_t backend) {
    struct ggml_ocl_backend * be = backend->context;
    GGML_OCL_STREAM_OK(backend, clFinish(be->queue), "clFinish");
    if (be->profile != NULL) {
        ggml_ocl_profile_collect(be->profile);
    }
}

static enum ggml_status ocl_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct ggml_ocl_backend * be = backend->context;
    bool expected = false;
    if (!atomic_compare_exchange_strong(&be->busy, &expected, true)) {
        GGML_LOG_ERROR("ggml_backend_opencl_graph_compute: %s is already computing a graph "
                       "(one graph at a time per backend: give each thread its own backend)\n", be->name);
        return GGML_STATUS_FAILED;
    }
    const enum ggml_status st = ggml_ocl_graph_compute(be, cgraph);
    atomic_store(&be->busy, false);
    return st;
}

static const struct ggml_backend_i ocl_backend_iface = {
    /* .get_name            = */ ocl_backend_get_name,
    /* .free                = */ ocl_backend_free,
    /* .set_tensor_async    = */ ocl_backend_set_tensor_async,
    /* .get_tensor_async    = */ ocl_backend_get_tensor_async,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ ocl_backend_cpy_tensor_async,
    /* .synchronize         = */ ocl_backend_synchronize,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ ocl_backend_graph_compute,
    /* .event_record        = */ ggml_ocl_event_record,
    /* .event_wait          = */ ggml_ocl_event_wait,
    /* .graph_optimize      = */ NULL,
};

//
// devices
//

static const char * ocl_dev_get_name(ggml_backend_dev_t dev) {
    struct ggml_ocl_device * d = dev->context;
    return d->name;
}

static const char * ocl_dev_get_description(ggml_backend_dev_t dev) {
    struct ggml_ocl_device * d = dev->context;
    return d->description;
}

static void ocl_dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    struct ggml_ocl_device * d = dev->context;
    // OpenCL does not tell the free memory: total minus what this process allocated
    const size_t tot = d->global_mem > SIZE_MAX ? SIZE_MAX : (size_t) d->global_mem;
    const size_t used = atomic_load(&d->allocated);
    *total = tot;
    *free  = used < tot ? tot - used : 0;
}

// A GPU driver's device is a GPU. Every other OpenCL device (a CPU driver such as PoCL, an FPGA or
// other accelerator) is an accelerator: a device with its own memory, reached only through the
// queue, that ggml_backend_init_best and ggml_backend_dev_by_type(GPU) do not pick, so that a
// program asking for "the best device" gets a real GPU, else the CPU backend (docs/opencl.md).
static enum ggml_backend_dev_type ocl_dev_type(const struct ggml_ocl_device * d) {
    return (d->cl_type & CL_DEVICE_TYPE_GPU) != 0 ? GGML_BACKEND_DEVICE_TYPE_GPU : GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

static enum ggml_backend_dev_type ocl_dev_get_type(ggml_backend_dev_t dev) {
    return ocl_dev_type(dev->context);
}

static void ocl_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    struct ggml_ocl_device * d = dev->context;
    props->name        = d->name;
    props->description = d->description;
    props->type        = ocl_dev_type(d);
    props->device_id   = d->pci_id[0] != '\0' ? d->pci_id : NULL;
    ocl_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = true;
    props->caps.host_buffer          = true;
    props->caps.buffer_from_host_ptr = true;
    props->caps.events               = true;
    props->caps.mmap_support         = false;
}

static ggml_backend_t ocl_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    struct ggml_ocl_device * d = dev->context;
    struct ggml_ocl_backend * be = ggml_calloc(1, sizeof(*be));
    ggml_backend_t backend = ggml_calloc(1, sizeof(*backend));
    if (be == NULL || backend == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        ggml_free_mem(be);
        ggml_free_mem(backend);
        return NULL;
    }
    be->dev = d;
    atomic_init(&be->busy, false);
    snprintf(be->name, sizeof(be->name), "%s", d->name);
    if (ggml_ocl_profile_requested()) {
        be->profile = ggml_ocl_profile_new();
    }
    be->queue = ggml_ocl_queue_new(d, be->profile != NULL ? CL_QUEUE_PROFILING_ENABLE : 0);
    if (be->queue == NULL) {
        ggml_ocl_profile_free(be->profile);
        ggml_free_mem(be);
        ggml_free_mem(backend);
        return NULL;
    }
    backend->guid    = ocl_guid();
    backend->iface   = ocl_backend_iface;
    backend->device  = dev;
    backend->context = be;
    ggml_ocl_programs_hold(d);
    return backend;
}

static ggml_backend_buffer_type_t ocl_dev_get_buffer_type(ggml_backend_dev_t dev) {
    struct ggml_ocl_device * d = dev->context;
    return &d->buft;
}

static ggml_backend_buffer_type_t ocl_dev_get_host_buffer_type(ggml_backend_dev_t dev) {
    struct ggml_ocl_device * d = dev->context;
    return &d->buft_host;
}

static ggml_backend_buffer_t ocl_dev_buffer_from_host_ptr(ggml_backend_dev_t dev, void * ptr, size_t size, size_t max_tensor_size) {
    (void) max_tensor_size;
    return ggml_ocl_buffer_from_host_ptr(dev->context, ptr, size);
}

static bool ocl_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    return ggml_ocl_supports_op(dev->context, op);
}

static bool ocl_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    struct ggml_ocl_device * d = dev->context;
    return buft == &d->buft;
}

static const struct ggml_backend_device_i ocl_device_iface = {
    /* .get_name             = */ ocl_dev_get_name,
    /* .get_description      = */ ocl_dev_get_description,
    /* .get_memory           = */ ocl_dev_get_memory,
    /* .get_type             = */ ocl_dev_get_type,
    /* .get_props            = */ ocl_dev_get_props,
    /* .init_backend         = */ ocl_dev_init_backend,
    /* .get_buffer_type      = */ ocl_dev_get_buffer_type,
    /* .get_host_buffer_type = */ ocl_dev_get_host_buffer_type,
    /* .buffer_from_host_ptr = */ ocl_dev_buffer_from_host_ptr,
    /* .supports_op          = */ ocl_dev_supports_op,
    /* .supports_buft        = */ ocl_dev_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ ggml_ocl_event_new,
    /* .event_free           = */ ggml_ocl_event_free,
    /* .event_synchronize    = */ ggml_ocl_event_synchronize,
};

//
// registry
//

static const char * ocl_reg_get_name(ggml_backend_reg_t reg) {
    (void) reg;
    return GGML_OCL_REG_NAME;
}

static size_t ocl_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    return ggml_ocl_n_devices();
}

static ggml_backend_dev_t ocl_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    struct ggml_ocl_device * d = ggml_ocl_device_at(index);
    if (d == NULL) {
        GGML_LOG_ERROR("%s: device index %zu out of range (%zu devices)\n", __func__, index, ggml_ocl_n_devices());
        return NULL;
    }
    return &d->dev;
}

static struct ggml_backend_feature * ocl_get_features(ggml_backend_reg_t reg) {
    (void) reg;
    static struct ggml_backend_feature features[] = {
        { "OPENCL", "1" },
        { NULL, NULL },
    };
    return features;
}

static void * ocl_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    (void) reg;
    if (name == NULL) {
        return NULL;
    }
    if (strcmp(name, "ggml_backend_get_features") == 0) {
        return (void *) ocl_get_features;
    }
    return NULL;
}

// the interface written in place: C11 does not allow a const object as a static initializer
static struct ggml_backend_reg g_ocl_reg = {
    /* .api_version = */ GGML_BACKEND_API_VERSION,
    /* .iface       = */ {
        /* .get_name         = */ ocl_reg_get_name,
        /* .get_device_count = */ ocl_reg_get_device_count,
        /* .get_device       = */ ocl_reg_get_device,
        /* .get_proc_address = */ ocl_reg_get_proc_address,
    },
    /* .context     = */ NULL,
};

ggml_backend_reg_t ggml_backend_opencl_reg(void) {
    registry_once();
    ggml_test_control_register(GGML_TEST_OPENCL_FIRST, ggml_ocl_test_control);
    return &g_ocl_reg;
}

ggml_backend_t ggml_backend_opencl_init(void) {
    struct ggml_ocl_device * d = ggml_ocl_device_at(0);
    if (d == NULL) {
        GGML_LOG_ERROR("%s: no OpenCL device\n", __func__);
        return NULL;
    }
    return ocl_dev_init_backend(&d->dev, NULL);
}

bool ggml_backend_is_opencl(ggml_backend_t backend) {
    return ggml_ocl_backend_ctx(backend) != NULL;
}

ggml_backend_buffer_type_t ggml_backend_opencl_buffer_type(void) {
    struct ggml_ocl_device * d = ggml_ocl_device_at(0);
    return d != NULL ? &d->buft : NULL;
}

ggml_backend_buffer_type_t ggml_backend_opencl_host_buffer_type(void) {
    struct ggml_ocl_device * d = ggml_ocl_device_at(0);
    return d != NULL ? &d->buft_host : NULL;
}

#ifdef GGML_BACKEND_DL
// a module with no OpenCL device cannot do anything on this machine
static int ocl_score(void) {
    return ggml_ocl_n_devices() > 0 ? 10 : 0;
}

// the module's own registry, even when the program also exports a ggml_backend_opencl_reg (a
// library with OpenCL built in): a call to the public name could be bound to that one
static ggml_backend_reg_t ocl_module_reg(void) {
    registry_once();
    return &g_ocl_reg;
}
#endif

GGML_BACKEND_DL_IMPL(ocl_module_reg)
GGML_BACKEND_DL_SCORE_IMPL(ocl_score)
