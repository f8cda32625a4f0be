// Data movement family (kernels/copy.cl): DUP, CPY, CONT (any combination of F32, F16, BF16, I8,
// I16, I32, I64, any shapes with the same element count), GET_ROWS and SET_ROWS (I32 or I64
// indices), REPEAT, CONCAT, PAD (zeros or circular), ACC and SET, DIAG_MASK_INF / DIAG_MASK_ZERO.

#include "ggml-opencl-impl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define COPY_LOCAL 256

static bool same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

static bool is_index(const struct ggml_tensor * t) {
    return t != NULL && (t->type == GGML_TYPE_I32 || t->type == GGML_TYPE_I64);
}

// ACC / SET: every element of b's view lands on an element inside dst
static bool acc_view_fits(const struct ggml_tensor * op) {
    const struct ggml_tensor * b = op->src[1];
    const int64_t es  = (int64_t) ggml_type_size(op->type);
    const int64_t nb1 = ggml_get_op_params_i32(op, 0);
    const int64_t nb2 = ggml_get_op_params_i32(op, 1);
    const int64_t nb3 = ggml_get_op_params_i32(op, 2);
    const int64_t off = ggml_get_op_params_i32(op, 3);
    if (es <= 0 || nb1 < 0 || nb2 < 0 || nb3 < 0 || off < 0 || off % es || nb1 % es || nb2 % es || nb3 % es) {
        return false;
    }
    if (ggml_nelements(b) == 0) {
        return true;
    }
    const int64_t last = off + (b->ne[0] - 1)*es + (b->ne[1] - 1)*nb1 + (b->ne[2] - 1)*nb2 + (b->ne[3] - 1)*nb3;
    return last + es <= (int64_t) ggml_nbytes(op);
}

bool ggml_ocl_copy_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
            return ggml_nelements(a) == ggml_nelements(op);
        case GGML_OP_GET_ROWS:
            return is_index(b) && op->ne[0] == a->ne[0] && op->ne[1] == b->ne[0] && op->ne[2] == b->ne[1] &&
                   op->ne[3] == b->ne[2] && b->ne[3] == 1 && a->ne[2] > 0 && a->ne[3] > 0 &&
                   b->ne[1] % a->ne[2] == 0 && b->ne[2] % a->ne[3] == 0;
        case GGML_OP_SET_ROWS:
            // a: rows to write, b: indices
            return is_index(b) && op->ne[0] == a->ne[0] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3] &&
                   b->ne[0] == a->ne[1] && b->ne[3] == 1 && b->ne[1] > 0 && b->ne[2] > 0 &&
                   a->ne[2] % b->ne[1] == 0 && a->ne[3] % b->ne[2] == 0;
        case GGML_OP_REPEAT:
            for (int i = 0; i < GGML_MAX_DIMS; i++) {
                if (a->ne[i] <= 0 || op->ne[i] % a->ne[i] != 0) {
                    return false;
                }
            }
            return true;
        case GGML_OP_CONCAT: {
            const int dim = ggml_get_op_params_i32(op, 0);
            if (b == NULL || dim < 0 || dim >= GGML_MAX_DIMS) {
                return false;
            }
            for (int i = 0; i < GGML_MAX_DIMS; i++) {
                const bool ok = i == dim ? op->ne[i] == a->ne[i] + b->ne[i] : (op->ne[i] == a->ne[i] && op->ne[i] == b->ne[i]);
                if (!ok) {
                    return false;
                }
            }
            return true;
        }
        case GGML_OP_PAD:
            for (int i = 0; i < GGML_MAX_DIMS; i++) {
                const int lp = ggml_get_op_params_i32(op, 2*i);
                const int rp = ggml_get_op_params_i32(op, 2*i + 1);
                if (lp < 0 || rp < 0 || op->ne[i] != a->ne[i] + lp + rp) {
                    return false;
                }
            }
            return true;
        case GGML_OP_ACC:
        case GGML_OP_SET:
            return b != NULL && same_shape(op, a) && ggml_is_contiguous(op) && acc_view_fits(op) &&
                   (op->op == GGML_OP_SET || ggml_ocl_type_is_float(op->type));
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            return same_shape(op, a) && ggml_ocl_type_is_float(op->type) && ggml_ocl_type_is_float(a->type);
        default:
            return false;
    }
}

// F32 or F16 with unit element stride and element-aligned rows: k_get_rows_vec / k_cpy_rows_vec
static bool rows_vec_ok(const struct ggml_tensor * t) {
    if (t->type != GGML_TYPE_F32 && t->type != GGML_TYPE_F16) {
        return false;
    }
    const size_t ts = ggml_type_size(t->type);
    return t->nb[0] == ts && t->nb[1] % ts == 0 && t->nb[2] % ts == 0 && t->nb[3] % ts == 0 &&
           (uintptr_t) t->data % ts == 0 && t->ne[0] > 0;
}

// a 2-D launch over (16-value chunks of a row, rows of `over`)
static enum ggml_status launch_rows_vec(struct ggml_ocl_args * a, const struct ggml_tensor * over) {
    const size_t global[2] = { (size_t) (over->ne[0] + 15) / 16, (size_t) (over->ne[1]*over->ne[2]*over->ne[3]) };
    if (global[1] == 0) {
        return GGML_STATUS_SUCCESS;
    }
    return ggml_ocl_launch_nd(a, 2, global, NULL);
}

static enum ggml_status run_cpy(struct ggml_ocl_backend * be, struct ggml_tensor * node, const struct ggml_tensor * src,
                                struct ggml_tensor * dst) {
    // equal shapes: over the shape (row by row when the rows are F32/F16 with unit stride);
    // otherwise element i to element i through flat indices
    const bool shaped = same_shape(src, dst);
    struct ggml_ocl_args a;
    if (shaped && rows_vec_ok(src) && rows_vec_ok(dst)) {
        const bool gpu = !be->dev->cpu_kernels;
        if (!ggml_ocl_args_begin(&a, be, node, GGML_OCL_PROG_COPY, gpu ? "k_cpy_rows_g" : "k_cpy_rows_vec")) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, src);
        ggml_ocl_arg_tensor(&a, dst);
        return gpu ? ggml_ocl_launch_shape(&a, dst) : launch_rows_vec(&a, dst);
    }
    if (!ggml_ocl_args_begin(&a, be, node, GGML_OCL_PROG_COPY, shaped ? "k_cpy_shape" : "k_cpy")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, src);
    ggml_ocl_arg_tensor(&a, dst);
    return shaped ? ggml_ocl_launch_shape(&a, dst)
                  : ggml_ocl_launch_items(&a, (size_t) ggml_nelements(dst), ggml_ocl_wg_size(be->dev, COPY_LOCAL));
}

// over the shape of `over`
static enum ggml_status run_rows(struct ggml_ocl_backend * be, struct ggml_tensor * op, const char * kname,
                                 const struct ggml_tensor * over) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_COPY, kname)) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op);
    if (strcmp(kname, "k_get_rows_vec") == 0 || strcmp(kname, "k_set_rows_vec") == 0) {
        return launch_rows_vec(&a, over);
    }
    return ggml_ocl_launch_shape(&a, over);
}

static enum ggml_status run_acc(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    if (!ggml_ocl_same_memory(src, op)) {
        // the result starts as a copy of a
        const enum ggml_status st = src->type == op->type && ggml_is_contiguous(src)
            ? ggml_ocl_copy_tensor_bytes(be, src, op)
            : run_cpy(be, op, src, op);
        if (st != GGML_STATUS_SUCCESS) {
            return st;
        }
    }
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_COPY, "k_acc")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i64(&a, ggml_get_op_params_i32(op, 0));
    ggml_ocl_arg_i64(&a, ggml_get_op_params_i32(op, 1));
    ggml_ocl_arg_i64(&a, ggml_get_op_params_i32(op, 2));
    ggml_ocl_arg_i64(&a, ggml_get_op_params_i32(op, 3));
    ggml_ocl_arg_i32(&a, op->op == GGML_OP_ACC);
    return ggml_ocl_launch_shape(&a, op->src[1]);
}

enum ggml_status ggml_ocl_copy_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    if (ggml_ocl_eltwise_vec_takes(be->dev, op) && ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ELTWISE_VEC)) {
        return ggml_ocl_eltwise_vec(be, op); // contiguous F32 / F16 copies
    }
    struct ggml_ocl_args a;
    switch (op->op) {
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
            // CPY: the node is a view of the destination src[1]
            return run_cpy(be, op, op->src[0], op);
        // F32/F16 rows: 16 values per work-item on CPU devices, one per work-item on GPUs
        case GGML_OP_GET_ROWS:
            return run_rows(be, op, !(rows_vec_ok(op->src[0]) && rows_vec_ok(op)) ? "k_get_rows" :
                                    be->dev->cpu_kernels ? "k_get_rows_vec" : "k_get_rows_g", op);
        case GGML_OP_SET_ROWS:
            return run_rows(be, op, !(rows_vec_ok(op->src[0]) && rows_vec_ok(op)) ? "k_set_rows" :
                                    be->dev->cpu_kernels ? "k_set_rows_vec" : "k_set_rows_g", op->src[0]);
        case GGML_OP_ACC:
        case GGML_OP_SET:
            return run_acc(be, op);
        case GGML_OP_REPEAT:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_COPY, "k_repeat")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op);
            return ggml_ocl_launch_shape(&a, op);
        case GGML_OP_CONCAT:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_COPY, "k_concat")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op->src[1]);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0));
            return ggml_ocl_launch_shape(&a, op);
        case GGML_OP_PAD:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_COPY, "k_pad")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op);
            for (int i = 0; i < GGML_MAX_DIMS; i++) {
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, (uint32_t) (2*i)));
            }
            ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 8) != 0);
            return ggml_ocl_launch_shape(&a, op);
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_COPY, "k_diag_mask")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0));
            ggml_ocl_arg_f32(&a, op->op == GGML_OP_DIAG_MASK_INF ? -INFINITY : 0.0f);
            return ggml_ocl_launch_shape(&a, op);
        default:
            GGML_LOG_ERROR("%s: op %s is not a data movement op\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
