// Kernel arguments and launches for the op families.

#include "ggml-opencl-impl.h"
#include "ggml-tensor-helpers.h"

#include <string.h>

bool ggml_ocl_args_begin(struct ggml_ocl_args * a, struct ggml_ocl_backend * be, const struct ggml_tensor * node,
                         enum ggml_ocl_prog prog, const char * kname) {
    memset(a, 0, sizeof(*a));
    a->be    = be;
    a->node  = node;
    a->kname = kname;
    a->kernel = ggml_ocl_get_kernel(be, prog, kname);
    return a->kernel != NULL;
}

void ggml_ocl_arg_raw(struct ggml_ocl_args * a, size_t size, const void * value) {
    if (a->kernel == NULL) {
        return;
    }
    const cl_int err = clSetKernelArg(a->kernel, a->n, size, value);
    if (err != CL_SUCCESS && a->err == CL_SUCCESS) {
        a->err = err;
        a->bad_index = a->n;
    }
    a->n++;
}

void ggml_ocl_arg_i32(struct ggml_ocl_args * a, int32_t v) {
    const cl_int x = v;
    ggml_ocl_arg_raw(a, sizeof(x), &x);
}

void ggml_ocl_arg_i64(struct ggml_ocl_args * a, int64_t v) {
    const cl_long x = v;
    ggml_ocl_arg_raw(a, sizeof(x), &x);
}

void ggml_ocl_arg_f32(struct ggml_ocl_args * a, float v) {
    const cl_float x = v;
    ggml_ocl_arg_raw(a, sizeof(x), &x);
}

void ggml_ocl_arg_local(struct ggml_ocl_args * a, size_t bytes) {
    ggml_ocl_arg_raw(a, bytes, NULL);
}

ggml_ocl_tdesc ggml_ocl_tdesc_of(const struct ggml_tensor * t) {
    ggml_ocl_tdesc d;
    memset(&d, 0, sizeof(d));
    for (int i = 0; i < 4; i++) {
        d.ne[i] = t->ne[i];
        d.nb[i] = (cl_long) t->nb[i];
    }
    d.type = (cl_int) t->type;
    return d;
}

void ggml_ocl_arg_tensor_opt(struct ggml_ocl_args * a, const struct ggml_tensor * t, const struct ggml_tensor * fallback) {
    cl_mem mem = NULL;
    size_t offs = 0;
    ggml_ocl_tdesc d;
    memset(&d, 0, sizeof(d));
    const struct ggml_tensor * m = t != NULL ? t : fallback;
    if (m == NULL || !ggml_ocl_tensor_mem(m, a->kname, &mem, &offs)) {
        a->failed = true;
        a->n += 2;
        return;
    }
    if (t != NULL) {
        d = ggml_ocl_tdesc_of(t);
        d.offs = offs;
    }
    ggml_ocl_arg_raw(a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(a, sizeof(d), &d);
}

void ggml_ocl_arg_tensor(struct ggml_ocl_args * a, const struct ggml_tensor * t) {
    ggml_ocl_arg_tensor_opt(a, t, NULL);
}

static enum ggml_status launch(struct ggml_ocl_args * a, cl_uint dims, const size_t * global, const size_t * local) {
    const char * op_name = a->node != NULL ? ggml_op_desc(a->node) : "?";
    const char * node_name = a->node != NULL ? a->node->name : "?";
    if (a->kernel == NULL || a->failed) {
        GGML_LOG_ERROR("%s: %s: node '%s' (%s): kernel %s cannot run (see above)\n",
            __func__, a->be->name, node_name, op_name, a->kname);
        return GGML_STATUS_FAILED;
    }
    if (a->err != CL_SUCCESS) {
        GGML_LOG_ERROR("%s: %s: node '%s' (%s): kernel %s: clSetKernelArg(%u) failed: %s (%d)\n",
            __func__, a->be->name, node_name, op_name, a->kname, a->bad_index, ggml_ocl_errstr(a->err), (int) a->err);
        return GGML_STATUS_FAILED;
    }
    for (cl_uint i = 0; i < dims; i++) {
        if (global[i] == 0) {
            return GGML_STATUS_SUCCESS; // nothing to compute
        }
    }
    cl_event ev;
    const cl_int err = clEnqueueNDRangeKernel(a->be->queue, a->kernel, dims, NULL, global, local, 0, NULL,
                                              ggml_ocl_profile_slot(a->be, &ev));
    if (err == CL_SUCCESS) {
        ggml_ocl_profile_launched(a->be, a->node, a->kname, ev);
    } else {
        GGML_LOG_ERROR("%s: %s: node '%s' (%s): kernel %s (%zu x %zu x %zu items in groups of %zu): clEnqueueNDRangeKernel failed: %s (%d)\n",
            __func__, a->be->name, node_name, op_name, a->kname, global[0], dims > 1 ? global[1] : 1, dims > 2 ? global[2] : 1,
            local[0], ggml_ocl_errstr(err), (int) err);
        return err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
            ? GGML_STATUS_ALLOC_FAILED : GGML_STATUS_FAILED;
    }
    return GGML_STATUS_SUCCESS;
}

enum ggml_status ggml_ocl_launch_groups(struct ggml_ocl_args * a, size_t n_groups, size_t local) {
    if (local == 0 || n_groups > SIZE_MAX / local) {
        GGML_LOG_ERROR("%s: %s: kernel %s: %zu groups of %zu items is too large\n", __func__, a->be->name, a->kname, n_groups, local);
        return GGML_STATUS_FAILED;
    }
    const size_t global = n_groups*local;
    return launch(a, 1, &global, &local);
}

enum ggml_status ggml_ocl_launch_nd(struct ggml_ocl_args * a, unsigned dims, const size_t * global, const size_t * local) {
    if (dims < 1 || dims > 3) {
        GGML_LOG_ERROR("%s: %s: kernel %s: %u dimensions\n", __func__, a->be->name, a->kname, dims);
        return GGML_STATUS_FAILED;
    }
    return launch(a, (cl_uint) dims, global, local);
}

enum ggml_status ggml_ocl_launch_items(struct ggml_ocl_args * a, size_t n, size_t local) {
    if (local == 0) {
        return GGML_STATUS_FAILED;
    }
    return ggml_ocl_launch_groups(a, (n + local - 1) / local, local);
}

size_t ggml_ocl_wg_size(const struct ggml_ocl_device * d, size_t want) {
    size_t s = 1;
    while (s*2 <= want && s*2 <= d->max_wg) {
        s *= 2;
    }
    return s;
}

bool ggml_ocl_same_memory(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    ggml_backend_buffer_t ba = ggml_tensor_data_buffer(a);
    ggml_backend_buffer_t bb = ggml_tensor_data_buffer(b);
    return ba == bb && a->data == b->data;
}

enum ggml_status ggml_ocl_copy_tensor_bytes(struct ggml_ocl_backend * be, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    cl_mem ms, md;
    size_t os, od;
    const size_t n = ggml_nbytes(src);
    if (!ggml_ocl_tensor_mem(src, __func__, &ms, &os) || !ggml_ocl_tensor_mem(dst, __func__, &md, &od)) {
        return GGML_STATUS_FAILED;
    }
    if (n == 0 || (ms == md && os == od)) {
        return GGML_STATUS_SUCCESS;
    }
    cl_event ev;
    if (!GGML_OCL_OK(clEnqueueCopyBuffer(be->queue, ms, md, os, od, n, 0, NULL, ggml_ocl_profile_slot(be, &ev)), "clEnqueueCopyBuffer")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_profile_launched(be, dst, "clEnqueueCopyBuffer", ev);
    return GGML_STATUS_SUCCESS;
}

enum ggml_status ggml_ocl_launch_shape(struct ggml_ocl_args * a, const struct ggml_tensor * t) {
    const size_t l0 = ggml_ocl_wg_size(a->be->dev, 64);
    const size_t ne0 = (size_t) t->ne[0];
    const size_t global[3] = { (ne0 + l0 - 1) / l0 * l0, (size_t) t->ne[1], (size_t) (t->ne[2]*t->ne[3]) };
    const size_t local[3]  = { l0, 1, 1 };
    return launch(a, 3, global, local);
}
