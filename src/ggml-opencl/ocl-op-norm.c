// Normalization family (kernels/norm.cl): NORM, RMS_NORM, L2_NORM, GROUP_NORM and SOFT_MAX (scale,
// mask F32/F16/BF16 broadcast over dims 2 and 3, ALiBi slopes, sinks).

#include "ggml-opencl-impl.h"

#include <math.h>

#define NORM_LOCAL 64

static bool same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

bool ggml_ocl_norm_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL || !ggml_ocl_type_is_float(a->type) || !ggml_ocl_type_is_float(op->type) || !same_shape(op, a)) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
            return true;
        case GGML_OP_GROUP_NORM:
            return ggml_get_op_params_i32(op, 0) > 0;
        case GGML_OP_SOFT_MAX: {
            const struct ggml_tensor * mask  = op->src[1];
            const struct ggml_tensor * sinks = op->src[2];
            if (mask != NULL && (!ggml_ocl_type_is_float(mask->type) || mask->ne[0] != a->ne[0] || mask->ne[1] < a->ne[1] ||
                                 mask->ne[2] <= 0 || mask->ne[3] <= 0 || a->ne[2] % mask->ne[2] != 0 || a->ne[3] % mask->ne[3] != 0)) {
                return false;
            }
            if (sinks != NULL && (!ggml_ocl_type_is_float(sinks->type) || !ggml_is_contiguous(sinks) ||
                                  ggml_nelements(sinks) < a->ne[2])) {
                return false;
            }
            return a->ne[2] <= INT32_MAX;
        }
        default:
            return false;
    }
}

static int64_t n_rows(const struct ggml_tensor * t) {
    return t->ne[1]*t->ne[2]*t->ne[3];
}

static enum ggml_status run_row_norm(struct ggml_ocl_backend * be, struct ggml_tensor * op, int code, size_t local) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_NORM, "k_norm")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, code);
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 0));
    ggml_ocl_arg_local(&a, local*sizeof(float));
    return ggml_ocl_launch_groups(&a, (size_t) n_rows(op), local);
}

static enum ggml_status run_group_norm(struct ggml_ocl_backend * be, struct ggml_tensor * op, size_t local) {
    const int64_t n_groups  = ggml_get_op_params_i32(op, 0);
    const int64_t C         = op->src[0]->ne[2];
    const int64_t per_group = (C + n_groups - 1) / n_groups;
    // groups past the channels are empty (the reference skips them too)
    const int64_t n_real = per_group > 0 ? (C + per_group - 1) / per_group : 0;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_NORM, "k_group_norm")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, (int32_t) per_group);
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 1));
    ggml_ocl_arg_local(&a, local*sizeof(float));
    return ggml_ocl_launch_groups(&a, (size_t) (n_real*op->ne[3]), local);
}

static enum ggml_status run_soft_max(struct ggml_ocl_backend * be, struct ggml_tensor * op, size_t local) {
    const float max_bias = ggml_get_op_params_f32(op, 1);
    const int64_t n_head = op->src[0]->ne[2];
    int64_t n_head_log2 = 1;
    while (n_head_log2*2 <= n_head) {
        n_head_log2 *= 2;
    }
    const float m0 = (float) pow(2.0, -(double) max_bias / (double) n_head_log2);
    const float m1 = (float) pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);

    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_NORM, "k_soft_max")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor_opt(&a, op->src[1], op->src[0]);
    ggml_ocl_arg_tensor_opt(&a, op->src[2], op->src[0]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 0));
    ggml_ocl_arg_f32(&a, max_bias);
    ggml_ocl_arg_f32(&a, m0);
    ggml_ocl_arg_f32(&a, m1);
    ggml_ocl_arg_i32(&a, (int32_t) n_head_log2);
    ggml_ocl_arg_i32(&a, op->src[1] != NULL);
    ggml_ocl_arg_i32(&a, op->src[2] != NULL);
    ggml_ocl_arg_local(&a, local*sizeof(float));
    return ggml_ocl_launch_groups(&a, (size_t) n_rows(op), local);
}

enum ggml_status ggml_ocl_norm_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    if (ggml_ocl_eltwise_vec_takes(be->dev, op) && ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ELTWISE_VEC)) {
        return ggml_ocl_eltwise_vec(be, op);
    }
    // GPUs: groups of 256 (more loads in flight per row); CPU devices: 64 (fewer barrier rounds)
    const size_t local = ggml_ocl_wg_size(be->dev, be->dev->cpu_kernels ? NORM_LOCAL : 256);
    switch (op->op) {
        case GGML_OP_NORM:       return run_row_norm(be, op, 0, local);
        case GGML_OP_RMS_NORM:   return run_row_norm(be, op, 1, local);
        case GGML_OP_L2_NORM:    return run_row_norm(be, op, 2, local);
        case GGML_OP_GROUP_NORM: return run_group_norm(be, op, local);
        case GGML_OP_SOFT_MAX:   return run_soft_max(be, op, local);
        default:
            GGML_LOG_ERROR("%s: op %s is not a normalization\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
