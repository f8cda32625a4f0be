// OUT_PROD (kernels/outprod.cl): F32, F16, BF16 sources, any strides, a broadcast over b's dims
// 2 and 3; the result is F32.

#include "ggml-opencl-impl.h"

bool ggml_ocl_outprod_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (op->op != GGML_OP_OUT_PROD || a == NULL || b == NULL || op->type != GGML_TYPE_F32 ||
        !ggml_ocl_type_is_float(a->type) || !ggml_ocl_type_is_float(b->type)) {
        return false;
    }
    return a->ne[1] == b->ne[1] && a->ne[2] > 0 && a->ne[3] > 0 && b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
           op->ne[0] == a->ne[0] && op->ne[1] == b->ne[0] && op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
}

enum ggml_status ggml_ocl_outprod_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_OUTPROD, "k_out_prod")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op);
    return ggml_ocl_launch_items(&a, (size_t) ggml_nelements(op), ggml_ocl_wg_size(be->dev, 64));
}
