// Reductions (kernels/reduce.cl): SUM, SUM_ROWS, MEAN, ARGMAX; and sorting (kernels/sort.cl):
// ARGSORT, TOP_K, a bitonic sort of each row in local memory, for rows whose length rounded up
// to a power of two fits the device's work-group size limit and local memory (longer rows are
// not supported: they run on another backend).

#include "ggml-opencl-impl.h"

#define REDUCE_LOCAL 64
#define SORT_LOCAL   256

static int64_t n_rows(const struct ggml_tensor * t) {
    return t->ne[1]*t->ne[2]*t->ne[3];
}

bool ggml_ocl_reduce_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL || !ggml_ocl_type_is_float(a->type)) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_SUM:
            return ggml_ocl_type_is_float(op->type) && ggml_nelements(op) == 1;
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            return ggml_ocl_type_is_float(op->type) && op->ne[0] == 1 && op->ne[1] == a->ne[1] &&
                   op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
        case GGML_OP_ARGMAX:
            return op->type == GGML_TYPE_I32 && ggml_nelements(op) == n_rows(a) && ggml_is_contiguous(op) &&
                   a->ne[0] > 0 && a->ne[0] <= INT32_MAX;
        default:
            return false;
    }
}

// SUM_ROWS / MEAN by k_sum_rows_vec (a work-item per row) on CPU devices, for many rows, and by
// k_sum_rows_g (a work-group per row) on GPUs: rows of contiguous F32 or F16 values at
// element-aligned strides
static bool sum_rows_by_row(const struct ggml_ocl_device * d, const struct ggml_tensor * a) {
    if ((d->cpu_kernels && n_rows(a) < 16) || (!d->cpu_kernels && a->ne[0] > INT32_MAX) ||
        (a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16)) {
        return false;
    }
    const size_t ts = ggml_type_size(a->type);
    return a->nb[0] == ts && a->nb[1] % ts == 0 && a->nb[2] % ts == 0 && a->nb[3] % ts == 0 && (uintptr_t) a->data % ts == 0;
}

static enum ggml_status run_sum_rows_vec(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    const size_t ts = ggml_type_size(src->type);
    const bool gpu = !be->dev->cpu_kernels;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_REDUCE, gpu ? "k_sum_rows_g" : "k_sum_rows_vec")) {
        return GGML_STATUS_FAILED;
    }
    cl_mem mem = NULL;
    size_t offs = 0;
    if (!ggml_ocl_tensor_mem(src, a.kname, &mem, &offs)) {
        return GGML_STATUS_FAILED;
    }
    const cl_ulong o = offs / ts;
    ggml_ocl_arg_raw(&a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(&a, sizeof(o), &o);
    ggml_ocl_arg_i32(&a, (int32_t) src->type);
    ggml_ocl_arg_i64(&a, src->ne[0]);
    ggml_ocl_arg_i64(&a, (int64_t) (src->nb[1] / ts));
    ggml_ocl_arg_i64(&a, (int64_t) (src->nb[2] / ts));
    ggml_ocl_arg_i64(&a, (int64_t) (src->nb[3] / ts));
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, op->op == GGML_OP_MEAN);
    const size_t rows = (size_t) n_rows(src);
    if (gpu) {
        const size_t local = ggml_ocl_wg_size(be->dev, 256);
        ggml_ocl_arg_local(&a, local*sizeof(float));
        return ggml_ocl_launch_groups(&a, rows, local);
    }
    return ggml_ocl_launch_nd(&a, 1, &rows, NULL);
}

enum ggml_status ggml_ocl_reduce_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    const size_t local = ggml_ocl_wg_size(be->dev, REDUCE_LOCAL);
    struct ggml_ocl_args a;
    switch (op->op) {
        case GGML_OP_SUM:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_REDUCE, "k_sum")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, src);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_local(&a, local*sizeof(float));
            return ggml_ocl_launch_groups(&a, 1, local);
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            if (sum_rows_by_row(be->dev, src)) {
                return run_sum_rows_vec(be, op);
            }
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_REDUCE, "k_sum_rows")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, src);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_i32(&a, op->op == GGML_OP_MEAN);
            ggml_ocl_arg_local(&a, local*sizeof(float));
            return ggml_ocl_launch_groups(&a, (size_t) n_rows(src), local);
        case GGML_OP_ARGMAX:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_REDUCE, "k_argmax")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, src);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_local(&a, local*sizeof(float));
            ggml_ocl_arg_local(&a, local*sizeof(cl_int));
            return ggml_ocl_launch_groups(&a, (size_t) n_rows(src), local);
        default:
            GGML_LOG_ERROR("%s: op %s is not a reduction\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}

// the row length rounded up to a power of two
static int64_t sort_width(const struct ggml_tensor * a) {
    int64_t p = 1;
    while (p < a->ne[0]) {
        p *= 2;
    }
    return p;
}

bool ggml_ocl_sort_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL || !ggml_ocl_type_is_float(a->type) || op->type != GGML_TYPE_I32 || a->ne[0] <= 0) {
        return false;
    }
    if (a->ne[0] > (int64_t) d->max_wg || (uint64_t) sort_width(a) > d->max_wg ||
        (uint64_t) sort_width(a)*(sizeof(cl_float) + sizeof(cl_int)) > d->local_mem) {
        return false;
    }
    if (op->op == GGML_OP_ARGSORT) {
        const int order = ggml_get_op_params_i32(op, 0);
        return (order == GGML_SORT_ORDER_ASC || order == GGML_SORT_ORDER_DESC) &&
               op->ne[0] == a->ne[0] && op->ne[1] == a->ne[1] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
    }
    if (op->op == GGML_OP_TOP_K) {
        return op->ne[0] <= a->ne[0] && op->ne[1] == a->ne[1] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
    }
    return false;
}

enum ggml_status ggml_ocl_sort_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    const int64_t P = sort_width(src);
    const bool desc = op->op == GGML_OP_TOP_K || ggml_get_op_params_i32(op, 0) == GGML_SORT_ORDER_DESC;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_SORT, "k_argsort")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, src);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, desc);
    ggml_ocl_arg_i32(&a, (int32_t) P);
    ggml_ocl_arg_local(&a, (size_t) P*sizeof(cl_float));
    ggml_ocl_arg_local(&a, (size_t) P*sizeof(cl_int));
    return ggml_ocl_launch_groups(&a, (size_t) n_rows(src), ggml_ocl_wg_size(be->dev, SORT_LOCAL));
}
