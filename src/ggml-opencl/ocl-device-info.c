// OpenCL devices: properties from clGetDeviceInfo, the shared per-platform context, command
// queues, and the names of OpenCL error codes.

#include "ggml-opencl-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_DEVICE_PCI_BUS_INFO_KHR
#    define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
#endif

const char * ggml_ocl_errstr(cl_int err) {
    switch (err) {
#define OCL_ERR(e) case e: return #e
        OCL_ERR(CL_SUCCESS);
        OCL_ERR(CL_DEVICE_NOT_FOUND);
        OCL_ERR(CL_DEVICE_NOT_AVAILABLE);
        OCL_ERR(CL_COMPILER_NOT_AVAILABLE);
        OCL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE);
        OCL_ERR(CL_OUT_OF_RESOURCES);
        OCL_ERR(CL_OUT_OF_HOST_MEMORY);
        OCL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE);
        OCL_ERR(CL_MEM_COPY_OVERLAP);
        OCL_ERR(CL_IMAGE_FORMAT_MISMATCH);
        OCL_ERR(CL_IMAGE_FORMAT_NOT_SUPPORTED);
        OCL_ERR(CL_BUILD_PROGRAM_FAILURE);
        OCL_ERR(CL_MAP_FAILURE);
        OCL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        OCL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        OCL_ERR(CL_COMPILE_PROGRAM_FAILURE);
        OCL_ERR(CL_LINKER_NOT_AVAILABLE);
        OCL_ERR(CL_LINK_PROGRAM_FAILURE);
        OCL_ERR(CL_DEVICE_PARTITION_FAILED);
        OCL_ERR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        OCL_ERR(CL_INVALID_VALUE);
        OCL_ERR(CL_INVALID_DEVICE_TYPE);
        OCL_ERR(CL_INVALID_PLATFORM);
        OCL_ERR(CL_INVALID_DEVICE);
        OCL_ERR(CL_INVALID_CONTEXT);
        OCL_ERR(CL_INVALID_QUEUE_PROPERTIES);
        OCL_ERR(CL_INVALID_COMMAND_QUEUE);
        OCL_ERR(CL_INVALID_HOST_PTR);
        OCL_ERR(CL_INVALID_MEM_OBJECT);
        OCL_ERR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        OCL_ERR(CL_INVALID_IMAGE_SIZE);
        OCL_ERR(CL_INVALID_SAMPLER);
        OCL_ERR(CL_INVALID_BINARY);
        OCL_ERR(CL_INVALID_BUILD_OPTIONS);
        OCL_ERR(CL_INVALID_PROGRAM);
        OCL_ERR(CL_INVALID_PROGRAM_EXECUTABLE);
        OCL_ERR(CL_INVALID_KERNEL_NAME);
        OCL_ERR(CL_INVALID_KERNEL_DEFINITION);
        OCL_ERR(CL_INVALID_KERNEL);
        OCL_ERR(CL_INVALID_ARG_INDEX);
        OCL_ERR(CL_INVALID_ARG_VALUE);
        OCL_ERR(CL_INVALID_ARG_SIZE);
        OCL_ERR(CL_INVALID_KERNEL_ARGS);
        OCL_ERR(CL_INVALID_WORK_DIMENSION);
        OCL_ERR(CL_INVALID_WORK_GROUP_SIZE);
        OCL_ERR(CL_INVALID_WORK_ITEM_SIZE);
        OCL_ERR(CL_INVALID_GLOBAL_OFFSET);
        OCL_ERR(CL_INVALID_EVENT_WAIT_LIST);
        OCL_ERR(CL_INVALID_EVENT);
        OCL_ERR(CL_INVALID_OPERATION);
        OCL_ERR(CL_INVALID_GL_OBJECT);
        OCL_ERR(CL_INVALID_BUFFER_SIZE);
        OCL_ERR(CL_INVALID_MIP_LEVEL);
        OCL_ERR(CL_INVALID_GLOBAL_WORK_SIZE);
        OCL_ERR(CL_INVALID_PROPERTY);
        OCL_ERR(CL_INVALID_IMAGE_DESCRIPTOR);
        OCL_ERR(CL_INVALID_COMPILER_OPTIONS);
        OCL_ERR(CL_INVALID_LINKER_OPTIONS);
        OCL_ERR(CL_INVALID_DEVICE_PARTITION_COUNT);
#undef OCL_ERR
        case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
        default:    return "CL_UNKNOWN_ERROR";
    }
}

bool ggml_ocl_check(cl_int err, const char * func, const char * what) {
    if (err == CL_SUCCESS) {
        return true;
    }
    const bool no_memory = err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE;
    ggml_error_report(no_memory ? GGML_ERROR_OUT_OF_MEMORY : GGML_ERROR_DEVICE, "%s: %s failed: %s (%d)\n",
            func, what, ggml_ocl_errstr(err), (int) err);
    return false;
}

bool ggml_ocl_check_buffer(ggml_backend_buffer_t buffer, cl_int err, const char * func, const char * what) {
    if (err == CL_SUCCESS) {
        return true;
    }
    ggml_backend_buffer_report_device_error(buffer, "%s: %s failed: %s (%d); the contents of buffer %s are undefined",
            func, what, ggml_ocl_errstr(err), (int) err, ggml_backend_buffer_name(buffer));
    return false;
}

bool ggml_ocl_check_stream(ggml_backend_t backend, cl_int err, const char * func, const char * what) {
    if (err == CL_SUCCESS) {
        return true;
    }
    ggml_backend_report_device_error(backend, "%s: %s: %s failed: %s (%d); results of the queued work are undefined",
            func, ggml_backend_name(backend), what, ggml_ocl_errstr(err), (int) err);
    return false;
}

//
// device properties
//

// a string property into buf (always terminated); false when the query fails
static bool dev_str(cl_device_id id, cl_device_info what, char * buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    if (clGetDeviceInfo(id, what, size - 1, buf, &len) != CL_SUCCESS) {
        // too long for buf (or another failure): take what fits
        char * tmp = NULL;
        if (clGetDeviceInfo(id, what, 0, NULL, &len) != CL_SUCCESS || len == 0 || (tmp = ggml_malloc(len + 1)) == NULL) {
            return false;
        }
        if (clGetDeviceInfo(id, what, len, tmp, NULL) != CL_SUCCESS) {
            ggml_free_mem(tmp);
            return false;
        }
        tmp[len] = '\0';
        snprintf(buf, size, "%s", tmp);
        ggml_free_mem(tmp);
        return true;
    }
    buf[size - 1] = '\0';
    // drivers pad some names with spaces
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == ' ') {
        buf[--n] = '\0';
    }
    return true;
}

// whether the device's extension string lists ext (a whole word)
static bool dev_has_ext(cl_device_id id, const char * ext) {
    size_t len = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0) {
        return false;
    }
    char * s = ggml_malloc(len + 1);
    if (s == NULL) {
        return false;
    }
    bool found = false;
    if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, len, s, NULL) == CL_SUCCESS) {
        s[len] = '\0';
        const size_t n = strlen(ext);
        for (const char * p = strstr(s, ext); p != NULL && !found; p = strstr(p + 1, ext)) {
            found = (p == s || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ');
        }
    }
    ggml_free_mem(s);
    return found;
}

// The kernel shapes of CPU devices (PoCL: a few work-items, each over long rows) or of GPUs
// (many work-items, work-group reductions). GGML_OPENCL_KERNELS=cpu|gpu overrides the device
// type: the tests run the GPU kernels on PoCL that way.
static bool kernels_for_cpu(const struct ggml_ocl_device * d) {
    const char * e = getenv("GGML_OPENCL_KERNELS");
    if (e != NULL && strcmp(e, "gpu") == 0) {
        return false;
    }
    if (e != NULL && strcmp(e, "cpu") == 0) {
        return true;
    }
    if (e != NULL && e[0] != '\0') {
        GGML_LOG_WARN("%s: GGML_OPENCL_KERNELS=%s: expected cpu or gpu; using the device type\n", __func__, e);
    }
    return (d->cl_type & CL_DEVICE_TYPE_CPU) != 0;
}

bool ggml_ocl_device_query(struct ggml_ocl_device * d, struct ggml_ocl_platform * p, cl_device_id id) {
    d->platform = p;
    d->id = id;
    dev_str(id, CL_DEVICE_NAME, d->description, sizeof(d->description));
    dev_str(id, CL_DEVICE_VENDOR, d->vendor, sizeof(d->vendor));
    dev_str(id, CL_DEVICE_VERSION, d->version, sizeof(d->version));
    dev_str(id, CL_DRIVER_VERSION, d->driver, sizeof(d->driver));
    if (d->description[0] == '\0') {
        snprintf(d->description, sizeof(d->description), "OpenCL device");
    }

    // "OpenCL <major>.<minor> <vendor-specific>"
    d->cl_major = d->cl_minor = 0;
    if (sscanf(d->version, "OpenCL %d.%d", &d->cl_major, &d->cl_minor) != 2) {
        GGML_LOG_INFO("%s: skipping OpenCL device '%s': unreadable version '%s'\n", __func__, d->description, d->version);
        return false;
    }
    if (d->cl_major < 1 || (d->cl_major == 1 && d->cl_minor < 2)) {
        GGML_LOG_INFO("%s: skipping OpenCL device '%s': OpenCL %d.%d, the backend needs 1.2\n",
            __func__, d->description, d->cl_major, d->cl_minor);
        return false;
    }

    cl_bool available = CL_FALSE, compiler = CL_FALSE, unified = CL_FALSE;
    cl_uint align_bits = 0;
    struct { cl_device_info what; const char * name; void * out; size_t size; } q[] = {
        { CL_DEVICE_TYPE,                 "CL_DEVICE_TYPE",                 &d->cl_type,    sizeof(d->cl_type)    },
        { CL_DEVICE_AVAILABLE,            "CL_DEVICE_AVAILABLE",            &available,     sizeof(available)     },
        { CL_DEVICE_COMPILER_AVAILABLE,   "CL_DEVICE_COMPILER_AVAILABLE",   &compiler,      sizeof(compiler)      },
        { CL_DEVICE_GLOBAL_MEM_SIZE,      "CL_DEVICE_GLOBAL_MEM_SIZE",      &d->global_mem, sizeof(d->global_mem) },
        { CL_DEVICE_MAX_MEM_ALLOC_SIZE,   "CL_DEVICE_MAX_MEM_ALLOC_SIZE",   &d->max_alloc,  sizeof(d->max_alloc)  },
        { CL_DEVICE_LOCAL_MEM_SIZE,       "CL_DEVICE_LOCAL_MEM_SIZE",       &d->local_mem,  sizeof(d->local_mem)  },
        { CL_DEVICE_MAX_WORK_GROUP_SIZE,  "CL_DEVICE_MAX_WORK_GROUP_SIZE",  &d->max_wg,     sizeof(d->max_wg)     },
        { CL_DEVICE_MEM_BASE_ADDR_ALIGN,  "CL_DEVICE_MEM_BASE_ADDR_ALIGN",  &align_bits,    sizeof(align_bits)    },
        { CL_DEVICE_HOST_UNIFIED_MEMORY,  "CL_DEVICE_HOST_UNIFIED_MEMORY",  &unified,       sizeof(unified)       },
    };
    for (size_t i = 0; i < sizeof(q)/sizeof(q[0]); i++) {
        const cl_int err = clGetDeviceInfo(id, q[i].what, q[i].size, q[i].out, NULL);
        if (err != CL_SUCCESS) {
            GGML_LOG_INFO("%s: skipping OpenCL device '%s': clGetDeviceInfo(%s) failed: %s (%d)\n",
                __func__, d->description, q[i].name, ggml_ocl_errstr(err), (int) err);
            return false;
        }
    }
    if (!available) {
        GGML_LOG_INFO("%s: skipping OpenCL device '%s': not available\n", __func__, d->description);
        return false;
    }
    if (!compiler) {
        GGML_LOG_INFO("%s: skipping OpenCL device '%s': it has no OpenCL C compiler\n", __func__, d->description);
        return false;
    }
    if (d->max_wg == 0 || d->max_alloc == 0) {
        GGML_LOG_INFO("%s: skipping OpenCL device '%s': reports no work-group size or memory\n", __func__, d->description);
        return false;
    }
    d->unified_memory = unified == CL_TRUE;
    d->alignment = 128;
    while (d->alignment < align_bits/8 && d->alignment < 4096) {
        d->alignment *= 2;
    }
    d->fp16 = dev_has_ext(id, "cl_khr_fp16");
    d->fp64 = dev_has_ext(id, "cl_khr_fp64");
    d->cpu_kernels = kernels_for_cpu(d);
    // the quantizers (quant_store.cl) promise the CPU's bytes, which needs division and square
    // root rounded correctly; OpenCL allows 2.5 and 3 ulp by default (NVIDIA's driver uses that)
    cl_device_fp_config fp = 0;
    d->exact_div_sqrt = clGetDeviceInfo(id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fp), &fp, NULL) == CL_SUCCESS &&
                        (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    snprintf(d->build_options, sizeof(d->build_options), "-cl-std=CL1.2%s",
             d->exact_div_sqrt ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");

    d->pci_id[0] = '\0';
    if (dev_has_ext(id, "cl_khr_pci_bus_info")) {
        cl_uint pci[4] = { 0, 0, 0, 0 }; // domain, bus, device, function
        if (clGetDeviceInfo(id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(pci), pci, NULL) == CL_SUCCESS) {
            snprintf(d->pci_id, sizeof(d->pci_id), "%04x:%02x:%02x.%x", pci[0], pci[1], pci[2], pci[3]);
        }
    }
    atomic_init(&d->allocated, 0);
    return true;
}

static void CL_CALLBACK ocl_context_notify(const char * errinfo, const void * private_info, size_t cb, void * user_data) {
    (void) private_info;
    (void) cb;
    const struct ggml_ocl_platform * p = user_data;
    GGML_LOG_ERROR("OpenCL (%s): %s\n", p != NULL ? p->name : "?", errinfo != NULL ? errinfo : "error");
}

cl_context ggml_ocl_device_context(struct ggml_ocl_device * d) {
    struct ggml_ocl_platform * p = d->platform;
    pthread_mutex_lock(&p->lock);
    if (p->context == NULL && !p->context_failed) {
        cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties) p->id, 0 };
        cl_int err = CL_SUCCESS;
        p->context = clCreateContext(props, p->n_device_ids, p->device_ids, ocl_context_notify, p, &err);
        if (err != CL_SUCCESS || p->context == NULL) {
            GGML_LOG_ERROR("%s: clCreateContext for platform '%s' (%u devices) failed: %s (%d)\n",
                __func__, p->name, p->n_device_ids, ggml_ocl_errstr(err), (int) err);
            p->context = NULL;
            p->context_failed = true;
        }
    }
    cl_context ctx = p->context;
    pthread_mutex_unlock(&p->lock);
    return ctx;
}

cl_command_queue ggml_ocl_queue_new(struct ggml_ocl_device * d, cl_command_queue_properties props) {
    cl_context ctx = ggml_ocl_device_context(d);
    if (ctx == NULL) {
        return NULL;
    }
    cl_int err = CL_SUCCESS;
    // clCreateCommandQueue is the 1.2 call; the 2.0 replacement is not needed for an in-order queue
    cl_command_queue q = clCreateCommandQueue(ctx, d->id, props, &err);
    if (err != CL_SUCCESS || q == NULL) {
        GGML_LOG_ERROR("%s: clCreateCommandQueue on %s (%s) failed: %s (%d)\n",
            __func__, d->name, d->description, ggml_ocl_errstr(err), (int) err);
        return NULL;
    }
    return q;
}

cl_command_queue ggml_ocl_device_xfer_queue(struct ggml_ocl_device * d) {
    pthread_mutex_lock(&d->lock);
    if (d->xfer_queue == NULL) {
        d->xfer_queue = ggml_ocl_queue_new(d, 0);
    }
    cl_command_queue q = d->xfer_queue;
    pthread_mutex_unlock(&d->lock);
    return q;
}
