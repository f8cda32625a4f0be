// Quantized weights on the OpenCL device (kernels/quant.cl, GGML_OCL_PROG_QUANT): MUL_MAT with a
// quantized a (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, MXFP4; b F32, F16 or BF16, any
// strides; result F32), GET_ROWS from a table of those types (I32 or I64 indices; result F32, F16
// or BF16), and CPY / SET_ROWS from F32, F16 or BF16 into every one of those types (quantized on
// the device as the reference quantizers do: kernels/quant_store.cl), and CPY / DUP / CONT of a
// tensor of those types into a float one (dequantized) or one of its own type (blocks copied).
// The blocks are dequantized in registers inside the kernels. MUL_MAT_ID (any weights) is routed here too and runs on ocl-quant-mm.c's kernels.
// The op dispatcher (ocl-ops.c) routes a node here when ggml_ocl_quant_claims says so; the other
// quantized types and ops stay unsupported.

#include "ggml-opencl-impl.h"

#define QUANT_LOCAL 64

static bool type_supported(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q4_0:
        case GGML_TYPE_Q4_1:
        case GGML_TYPE_Q5_0:
        case GGML_TYPE_Q5_1:
        case GGML_TYPE_Q8_0:
        case GGML_TYPE_Q4_K:
        case GGML_TYPE_Q5_K:
        case GGML_TYPE_Q6_K:
        case GGML_TYPE_MXFP4:
            return true;
        default:
            return false;
    }
}

// the device quantizes into every type it reads (quant_store.cl)
static bool type_quantizable(enum ggml_type t) {
    return type_supported(t);
}

// CPY / DUP / CONT whose source is quantized (dequantized, or its blocks copied)
static bool copy_from_quant(const struct ggml_tensor * op) {
    return (op->op == GGML_OP_CPY || op->op == GGML_OP_DUP || op->op == GGML_OP_CONT) && op->src[0] != NULL &&
           ggml_is_quantized(op->src[0]->type);
}

enum ggml_ocl_prog ggml_ocl_quant_program(const struct ggml_tensor * op) {
    if (copy_from_quant(op)) {
        return GGML_OCL_PROG_QUANT;
    }
    switch (op->op) {
        case GGML_OP_MUL_MAT_ID:
            return GGML_OCL_PROG_QUANT_MM;
        case GGML_OP_CPY:
        case GGML_OP_SET_ROWS:
            return GGML_OCL_PROG_QUANT_STORE;
        default:
            return GGML_OCL_PROG_QUANT;
    }
}

bool ggml_ocl_quant_claims(const struct ggml_tensor * op) {
    if (op->op == GGML_OP_MUL_MAT_ID || copy_from_quant(op)) {
        return true;
    }
    if ((op->op == GGML_OP_CPY || op->op == GGML_OP_SET_ROWS) && ggml_is_quantized(op->type)) {
        return true;
    }
    return (op->op == GGML_OP_MUL_MAT || op->op == GGML_OP_GET_ROWS) && op->src[0] != NULL &&
           ggml_is_quantized(op->src[0]->type);
}

// a quantized destination: whole blocks along dim 0, stored contiguously
static bool dst_quantizable(const struct ggml_tensor * t) {
    return type_quantizable(t->type) && t->ne[0] % ggml_blck_size(t->type) == 0 && t->nb[0] == ggml_type_size(t->type);
}

// the quantized operand: whole blocks along dim 0, stored contiguously
static bool blocks_plain(const struct ggml_tensor * a) {
    return type_supported(a->type) && a->ne[0] % ggml_blck_size(a->type) == 0 &&
           a->nb[0] == ggml_type_size(a->type) && a->ne[2] > 0 && a->ne[3] > 0;
}

bool ggml_ocl_quant_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a != NULL && copy_from_quant(op)) {
        // the same shape; a float result, or the same type with its blocks contiguous along dim 0
        const bool same = a->ne[0] == op->ne[0] && a->ne[1] == op->ne[1] && a->ne[2] == op->ne[2] && a->ne[3] == op->ne[3];
        const bool into = ggml_ocl_type_is_float(op->type) ||
                          (op->type == a->type && op->nb[0] == ggml_type_size(op->type));
        return same && into && blocks_plain(a);
    }
    if (a == NULL || b == NULL) {
        return false;
    }
    if (op->op == GGML_OP_MUL_MAT_ID) {
        return ggml_ocl_quant_mm_id_supports(op);
    }
    if (op->op == GGML_OP_CPY) {
        return ggml_ocl_type_is_float(a->type) && dst_quantizable(op) && a->ne[0] == op->ne[0] &&
               a->ne[1] == op->ne[1] && a->ne[2] == op->ne[2] && a->ne[3] == op->ne[3];
    }
    if (op->op == GGML_OP_SET_ROWS) {
        // a: rows to write, b: indices
        return ggml_ocl_type_is_float(a->type) && dst_quantizable(op) && (b->type == GGML_TYPE_I32 || b->type == GGML_TYPE_I64) &&
               op->ne[0] == a->ne[0] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3] && b->ne[0] == a->ne[1] &&
               b->ne[3] == 1 && b->ne[1] > 0 && b->ne[2] > 0 && a->ne[2] % b->ne[1] == 0 && a->ne[3] % b->ne[2] == 0;
    }
    if (!blocks_plain(a)) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_MUL_MAT:
            return ggml_ocl_type_is_float(b->type) && op->type == GGML_TYPE_F32 && a->ne[0] == b->ne[0] &&
                   b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
                   op->ne[0] == a->ne[1] && op->ne[1] == b->ne[1] && op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
        case GGML_OP_GET_ROWS:
            return (b->type == GGML_TYPE_I32 || b->type == GGML_TYPE_I64) && ggml_ocl_type_is_float(op->type) &&
                   op->ne[0] == a->ne[0] && op->ne[1] == b->ne[0] && op->ne[2] == b->ne[1] && op->ne[3] == b->ne[2] &&
                   b->ne[3] == 1 && b->ne[1] % a->ne[2] == 0 && b->ne[2] % a->ne[3] == 0;
        default:
            return false;
    }
}

enum ggml_status ggml_ocl_quant_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    struct ggml_ocl_args a;
    if (op->op == GGML_OP_MUL_MAT_ID) {
        return ggml_ocl_quant_mm_id(be, op);
    }
    if (op->op == GGML_OP_MUL_MAT) {
        if (ggml_ocl_quant_mm_supports(be->dev, op)) {
            return ggml_ocl_quant_mm(be, op);
        }
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT, "k_mul_mat_q")) {
            return GGML_STATUS_FAILED;
        }
        const size_t local = ggml_ocl_wg_size(be->dev, QUANT_LOCAL);
        ggml_ocl_arg_tensor(&a, op->src[0]);
        ggml_ocl_arg_tensor(&a, op->src[1]);
        ggml_ocl_arg_tensor(&a, op);
        ggml_ocl_arg_local(&a, local * sizeof(float));
        return ggml_ocl_launch_groups(&a, (size_t) ggml_nelements(op), local);
    }
    if (op->op == GGML_OP_GET_ROWS) {
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT, "k_get_rows_q")) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, op->src[0]);
        ggml_ocl_arg_tensor(&a, op->src[1]);
        ggml_ocl_arg_tensor(&a, op);
        // one work-item per 32 values
        return ggml_ocl_launch_items(&a, (size_t) (ggml_nelements(op) / 32), ggml_ocl_wg_size(be->dev, QUANT_LOCAL));
    }
    if (copy_from_quant(op)) {
        const bool blocks = op->type == op->src[0]->type;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT, blocks ? "k_cpy_q_blocks" : "k_cpy_from_q")) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, op->src[0]);
        ggml_ocl_arg_tensor(&a, op);
        const int64_t bv = ggml_blck_size(op->src[0]->type);
        if (blocks) {
            ggml_ocl_arg_i32(&a, (int32_t) bv);
        }
        // a work-item per block, or per 32 values
        const size_t items = (size_t) (ggml_nelements(op) / (blocks ? bv : 32));
        return ggml_ocl_launch_items(&a, items, ggml_ocl_wg_size(be->dev, QUANT_LOCAL));
    }
    if (op->op == GGML_OP_CPY || op->op == GGML_OP_SET_ROWS) {
        const bool set = op->op == GGML_OP_SET_ROWS;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_STORE, set ? "k_set_rows_q" : "k_cpy_to_q")) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, op->src[0]);
        if (set) {
            ggml_ocl_arg_tensor(&a, op->src[1]);
        }
        ggml_ocl_arg_tensor(&a, op);
        // one work-item per block of the rows written
        const struct ggml_tensor * rows = set ? op->src[0] : op;
        const size_t n_blocks = (size_t) (ggml_nelements(rows) / ggml_blck_size(op->type));
        return ggml_ocl_launch_items(&a, n_blocks, ggml_ocl_wg_size(be->dev, QUANT_LOCAL));
    }
    GGML_LOG_ERROR("%s: op %s has no quantized kernel\n", __func__, ggml_op_desc(op));
    return GGML_STATUS_FAILED;
}
