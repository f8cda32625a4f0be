// MUL_MAT on OpenCL devices: the entry points the rest of the backend calls (declared in
// ggml-opencl-impl.h) and the program kernels/matmul.cl (GGML_OCL_PROG_MATMUL).
//
// This version is the simple, correct baseline: one work-item per result element (k_mul_mat),
// any float type (F32, F16, BF16) for a and b, any strides, broadcasting of a over b's dims 2 and
// 3. It is meant to be replaced as a whole by a tiled kernel (local memory, register blocking);
// the contract a replacement must keep:
//
//   bool ggml_ocl_mul_mat_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op)
//       op->op == GGML_OP_MUL_MAT; true exactly for the nodes ggml_ocl_mul_mat computes. Cheap, no
//       logging. The dispatcher (ocl-ops.c) additionally requires that kernels/matmul.cl builds.
//
//   bool ggml_ocl_mul_mat(struct ggml_ocl_backend * be, src0, src1, dst)
//       Enqueues the product on be->queue without waiting (the queue is in order: the kernels of
//       the previous nodes are done before it runs, the next nodes' kernels after). Returns false
//       on failure, after logging what failed (GGML_LOG_ERROR).
//
// Helpers: ggml_ocl_args_begin / ggml_ocl_arg_* / ggml_ocl_launch_* (ocl-launch.c) set the
// arguments of a kernel from ggml tensors (a tensor is passed as its cl_mem and a tdesc: offset,
// ne, nb, type; see kernels/common.cl) and enqueue it; ggml_ocl_wg_size picks a work-group size
// the device allows. The test cases are `backend-ops test -b OpenCL0 -o MUL_MAT`.

#include "ggml-opencl-impl.h"
#include "ocl-matmul-tiled.h"

bool ggml_ocl_mul_mat_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (op->op != GGML_OP_MUL_MAT || a == NULL || b == NULL) {
        return false;
    }
    if (!ggml_ocl_type_is_float(a->type) || !ggml_ocl_type_is_float(b->type) || op->type != GGML_TYPE_F32) {
        return false;
    }
    return a->ne[0] == b->ne[0] && a->ne[2] > 0 && a->ne[3] > 0 && b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
           op->ne[0] == a->ne[1] && op->ne[1] == b->ne[1] && op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
}

bool ggml_ocl_mul_mat(struct ggml_ocl_backend * be, const struct ggml_tensor * src0, const struct ggml_tensor * src1,
                      struct ggml_tensor * dst) {
    // the fast paths (ocl-matmul-tiled.c) first; this kernel for the layouts they leave
    if (ggml_ocl_mul_mat_tiled_supports(be->dev, dst)) {
        return ggml_ocl_mul_mat_tiled(be, src0, src1, dst);
    }
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, dst, GGML_OCL_PROG_MATMUL, "k_mul_mat")) {
        return false;
    }
    ggml_ocl_arg_tensor(&a, src0);
    ggml_ocl_arg_tensor(&a, src1);
    ggml_ocl_arg_tensor(&a, dst);
    return ggml_ocl_launch_items(&a, (size_t) ggml_nelements(dst), ggml_ocl_wg_size(be->dev, 64)) == GGML_STATUS_SUCCESS;
}
