// Convolution family (kernels/conv.cl): IM2COL (1-D and 2-D), POOL_2D (max, avg), CONV_2D (a
// direct kernel: one work-item per output element, no im2col buffer).

#include "ggml-opencl-impl.h"

#define CONV_LOCAL 64

bool ggml_ocl_conv_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL || !ggml_ocl_type_is_float(op->type)) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_IM2COL: {
            // a: the kernel (only its shape is used), b: the data
            if (b == NULL || !ggml_ocl_type_is_float(b->type)) {
                return false;
            }
            const bool is_2d = ggml_get_op_params_i32(op, 6) == 1;
            const int64_t IC = is_2d ? b->ne[2] : b->ne[1];
            const int64_t KH = is_2d ? a->ne[1] : 1;
            const int64_t N  = is_2d ? b->ne[3] : b->ne[2];
            return a->ne[0] > 0 && KH > 0 && a->ne[0] <= INT32_MAX && KH <= INT32_MAX &&
                   op->ne[0] == IC*KH*a->ne[0] && (is_2d ? op->ne[3] : op->ne[2]) == N && (is_2d || op->ne[3] == 1);
        }
        case GGML_OP_POOL_2D: {
            const int pool = ggml_get_op_params_i32(op, 0);
            return ggml_ocl_type_is_float(a->type) && (pool == GGML_OP_POOL_MAX || pool == GGML_OP_POOL_AVG) &&
                   ggml_get_op_params_i32(op, 1) > 0 && ggml_get_op_params_i32(op, 2) > 0 &&
                   op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
        }
        case GGML_OP_CONV_2D:
            return b != NULL && ggml_ocl_type_is_float(a->type) && ggml_ocl_type_is_float(b->type) &&
                   a->ne[2] == b->ne[2] && op->ne[2] == a->ne[3] && op->ne[3] == b->ne[3];
        default:
            return false;
    }
}

enum ggml_status ggml_ocl_conv_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const size_t local = ggml_ocl_wg_size(be->dev, CONV_LOCAL);
    struct ggml_ocl_args a;
    switch (op->op) {
        case GGML_OP_IM2COL: {
            const bool is_2d = ggml_get_op_params_i32(op, 6) == 1;
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_CONV, "k_im2col")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[1]);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_i32(&a, (int32_t) op->src[0]->ne[0]);
            ggml_ocl_arg_i32(&a, is_2d ? (int32_t) op->src[0]->ne[1] : 1);
            for (uint32_t i = 0; i < 6; i++) {
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, i));
            }
            ggml_ocl_arg_i32(&a, is_2d);
            return ggml_ocl_launch_items(&a, (size_t) ggml_nelements(op), local);
        }
        case GGML_OP_POOL_2D:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_CONV, "k_pool_2d")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0) == GGML_OP_POOL_MAX ? 0 : 1);
            for (uint32_t i = 1; i <= 6; i++) {
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, i));
            }
            return ggml_ocl_launch_items(&a, (size_t) ggml_nelements(op), local);
        case GGML_OP_CONV_2D:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_CONV, "k_conv_2d")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op->src[1]);
            ggml_ocl_arg_tensor(&a, op);
            for (uint32_t i = 0; i < 6; i++) {
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, i));
            }
            return ggml_ocl_launch_items(&a, (size_t) ggml_nelements(op), local);
        default:
            GGML_LOG_ERROR("%s: op %s is not a convolution op\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
