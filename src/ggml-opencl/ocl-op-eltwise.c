// Element-wise family (kernels/eltwise.cl): UNARY (every ggml_unary_op), GLU (every ggml_glu_op,
// one- and two-tensor forms), SQR SQRT LOG SIN COS, SCALE, CLAMP, LEAKY_RELU, ADD SUB MUL DIV with
// broadcasting, ADD1, ADD_ID, ARANGE. F32, F16 and BF16 in any combination, any strides.

#include "ggml-opencl-impl.h"

// k_unary op codes beyond the ggml_unary_op values (kernels/eltwise.cl)
enum {
    U_SQR = 100, U_SQRT, U_LOG, U_SIN, U_COS, U_SCALE, U_CLAMP, U_LEAKY_RELU,
};

#define ELT_LOCAL 256

static bool same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

static bool src_float(const struct ggml_tensor * op, int i) {
    return op->src[i] != NULL && ggml_ocl_type_is_float(op->src[i]->type);
}

bool ggml_ocl_eltwise_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    if (!ggml_ocl_type_is_float(op->type)) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_UNARY: {
            const int u = ggml_get_op_params_i32(op, 0);
            return u >= 0 && u < GGML_UNARY_OP_COUNT && src_float(op, 0) && same_shape(op, op->src[0]);
        }
        case GGML_OP_GLU: {
            const int g = ggml_get_op_params_i32(op, 0);
            if (g < 0 || g >= GGML_GLU_OP_COUNT || !src_float(op, 0)) {
                return false;
            }
            const struct ggml_tensor * a = op->src[0];
            if (op->src[1] != NULL) {
                return src_float(op, 1) && same_shape(a, op->src[1]) && same_shape(op, a);
            }
            // an odd row's last element is unused (x and gate are its first 2*ne0 values)
            return a->ne[0] / 2 == op->ne[0] && a->ne[1] == op->ne[1] && a->ne[2] == op->ne[2] && a->ne[3] == op->ne[3];
        }
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_SIN:
        case GGML_OP_COS:
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
        case GGML_OP_LEAKY_RELU:
            return src_float(op, 0) && same_shape(op, op->src[0]);
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV: {
            if (!src_float(op, 0) || !src_float(op, 1) || !same_shape(op, op->src[0])) {
                return false;
            }
            for (int i = 0; i < GGML_MAX_DIMS; i++) {
                if (op->src[1]->ne[i] <= 0 || op->src[0]->ne[i] % op->src[1]->ne[i] != 0) {
                    return false;
                }
            }
            return true;
        }
        case GGML_OP_ADD1:
            return src_float(op, 0) && src_float(op, 1) && ggml_nelements(op->src[1]) == 1 && same_shape(op, op->src[0]);
        case GGML_OP_ARANGE:
            return ggml_nelements(op) == op->ne[0];
        case GGML_OP_ADD_ID: {
            // a [n, used, tokens], b [n, experts], ids I32 [used, tokens]
            const struct ggml_tensor * a   = op->src[0];
            const struct ggml_tensor * b   = op->src[1];
            const struct ggml_tensor * ids = op->src[2];
            return src_float(op, 0) && src_float(op, 1) && ids != NULL && ids->type == GGML_TYPE_I32 &&
                   same_shape(op, a) && a->ne[3] == 1 && b->ne[0] == a->ne[0] && b->ne[2] == 1 && b->ne[3] == 1 &&
                   ids->ne[0] >= a->ne[1] && ids->ne[1] >= a->ne[2];
        }
        default:
            return false;
    }
}

// a contiguous F32 or F16 tensor at an element-aligned offset (the flat kernels)
static bool flat(const struct ggml_tensor * t) {
    return (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16) && ggml_is_contiguous(t);
}

// t's cl_mem, its offset in elements, and its type code
static void arg_flat(struct ggml_ocl_args * a, const struct ggml_tensor * t) {
    cl_mem mem = NULL;
    size_t offs = 0;
    const size_t ts = ggml_type_size(t->type);
    if (!ggml_ocl_tensor_mem(t, a->kname, &mem, &offs) || offs % ts != 0) {
        a->failed = true;
        a->n += 3;
        return;
    }
    const cl_ulong o = offs / ts;
    ggml_ocl_arg_raw(a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(a, sizeof(o), &o);
    ggml_ocl_arg_i32(a, (int32_t) t->type);
}

// the kernel of eltwise.cl with code's function fixed at compile time, else the one taking any code
static const char * unary_flat_kernel(int code) {
    switch (code) {
        case GGML_UNARY_OP_ABS:        return "k_unary_flat_abs";
        case GGML_UNARY_OP_NEG:        return "k_unary_flat_neg";
        case GGML_UNARY_OP_TANH:       return "k_unary_flat_tanh";
        case GGML_UNARY_OP_RELU:       return "k_unary_flat_relu";
        case GGML_UNARY_OP_SIGMOID:    return "k_unary_flat_sigmoid";
        case GGML_UNARY_OP_GELU:       return "k_unary_flat_gelu";
        case GGML_UNARY_OP_GELU_QUICK: return "k_unary_flat_gelu_quick";
        case GGML_UNARY_OP_SILU:       return "k_unary_flat_silu";
        case GGML_UNARY_OP_EXP:        return "k_unary_flat_exp";
        case GGML_UNARY_OP_GELU_ERF:   return "k_unary_flat_gelu_erf";
        case U_SQR:                    return "k_unary_flat_sqr";
        case U_SQRT:                   return "k_unary_flat_sqrt";
        case U_LOG:                    return "k_unary_flat_log";
        case U_SIN:                    return "k_unary_flat_sin";
        case U_COS:                    return "k_unary_flat_cos";
        case U_SCALE:                  return "k_unary_flat_scale";
        default:                       return "k_unary_flat";
    }
}

// the variant at F16 precision of the exp-based functions (an F16 destination needs 11 bits), or NULL
static const char * unary_flat_kernel_f16(int code) {
    switch (code) {
        case GGML_UNARY_OP_SIGMOID:    return "k_unary_flat_sigmoid_h";
        case GGML_UNARY_OP_GELU:       return "k_unary_flat_gelu_h";
        case GGML_UNARY_OP_GELU_QUICK: return "k_unary_flat_gelu_quick_h";
        case GGML_UNARY_OP_SILU:       return "k_unary_flat_silu_h";
        case GGML_UNARY_OP_EXP:        return "k_unary_flat_exp_h";
        case GGML_UNARY_OP_GELU_ERF:   return "k_unary_flat_gelu_erf_h";
        default:                       return NULL;
    }
}

// F16 -> F16 through the function's exact table (ocl-unary-table.c); false when there is none
static bool run_unary_table(struct ggml_ocl_backend * be, struct ggml_tensor * op, int code, enum ggml_status * st) {
    if (op->type != GGML_TYPE_F16 || op->src[0]->type != GGML_TYPE_F16 || !ggml_ocl_unary_table_has(code)) {
        return false;
    }
    // on a CPU device (PoCL) a look-up per value costs about what SILU or GELU compute, so there
    // only GELU_ERF, whose erf costs more, takes the table (docs/opencl.md, wave 7)
    if (!(be->dev->cl_type & CL_DEVICE_TYPE_GPU) && code != GGML_UNARY_OP_GELU_ERF) {
        return false;
    }
    cl_mem table = ggml_ocl_unary_table(be, code);
    if (table == NULL) {
        return false;
    }
    // GPUs: a value per work-item (k_unary_table_g); the item count fits in 32 bits (run_unary_flat)
    const bool gpu = !be->dev->cpu_kernels;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, gpu ? "k_unary_table_g" : "k_unary_table_h")) {
        *st = GGML_STATUS_FAILED;
        return true;
    }
    cl_mem mem = NULL;
    size_t offs = 0;
    bool ok = ggml_ocl_tensor_mem(op->src[0], "k_unary_table_h", &mem, &offs) && offs % 2 == 0;
    const cl_ulong os = offs / 2;
    ggml_ocl_arg_raw(&a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(&a, sizeof(os), &os);
    ok = ggml_ocl_tensor_mem(op, "k_unary_table_h", &mem, &offs) && offs % 2 == 0 && ok;
    const cl_ulong od = offs / 2;
    ggml_ocl_arg_raw(&a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(&a, sizeof(od), &od);
    if (gpu) {
        ggml_ocl_arg_raw(&a, sizeof(cl_uint), &(cl_uint) { (cl_uint) ggml_nelements(op) });
    } else {
        ggml_ocl_arg_i64(&a, ggml_nelements(op));
    }
    ggml_ocl_arg_raw(&a, sizeof(table), &table);
    if (!ok) {
        a.failed = true;
    }
    if (gpu) {
        *st = ggml_ocl_launch_items(&a, (size_t) ggml_nelements(op), ggml_ocl_wg_size(be->dev, ELT_LOCAL));
        return true;
    }
    const size_t items = (size_t) ((ggml_nelements(op) + 31) / 32);
    *st = ggml_ocl_launch_nd(&a, 1, &items, NULL);
    return true;
}

static enum ggml_status run_unary_flat(struct ggml_ocl_backend * be, struct ggml_tensor * op, int code, const float p[4]) {
    enum ggml_status st = GGML_STATUS_SUCCESS;
    const bool gpu = !be->dev->cpu_kernels && ggml_nelements(op) <= (int64_t) UINT32_MAX;
    if ((gpu || be->dev->cpu_kernels) && run_unary_table(be, op, code, &st)) {
        return st;
    }
    if (gpu) {
        // a value per work-item (k_unary_g)
        struct ggml_ocl_args a;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, "k_unary_g")) {
            return GGML_STATUS_FAILED;
        }
        arg_flat(&a, op->src[0]);
        arg_flat(&a, op);
        ggml_ocl_arg_raw(&a, sizeof(cl_uint), &(cl_uint) { (cl_uint) ggml_nelements(op) });
        ggml_ocl_arg_i32(&a, code);
        for (int i = 0; i < 4; i++) {
            ggml_ocl_arg_f32(&a, p[i]);
        }
        return ggml_ocl_launch_items(&a, (size_t) ggml_nelements(op), ggml_ocl_wg_size(be->dev, ELT_LOCAL));
    }
    const char * kname = op->type == GGML_TYPE_F16 ? unary_flat_kernel_f16(code) : NULL;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, kname != NULL ? kname : unary_flat_kernel(code))) {
        return GGML_STATUS_FAILED;
    }
    arg_flat(&a, op->src[0]);
    arg_flat(&a, op);
    ggml_ocl_arg_i64(&a, ggml_nelements(op));
    ggml_ocl_arg_i32(&a, code);
    for (int i = 0; i < 4; i++) {
        ggml_ocl_arg_f32(&a, p[i]);
    }
    const size_t items = (size_t) ((ggml_nelements(op) + 31) / 32);
    return ggml_ocl_launch_nd(&a, 1, &items, NULL);
}

static enum ggml_status run_unary(struct ggml_ocl_backend * be, struct ggml_tensor * op, int code, const float p[4]) {
    if (flat(op) && flat(op->src[0])) {
        return run_unary_flat(be, op, code, p);
    }
    const bool f32 = op->type == GGML_TYPE_F32 && op->src[0]->type == GGML_TYPE_F32;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, f32 ? "k_unary_f32" : "k_unary")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, code);
    for (int i = 0; i < 4; i++) {
        ggml_ocl_arg_f32(&a, p[i]);
    }
    return ggml_ocl_launch_shape(&a, op);
}

// b of a's shape, or one row broadcast over a's rows
static bool binary_flat(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    return flat(op) && flat(a) && flat(b) && same_shape(op, a) &&
           (same_shape(a, b) || (b->ne[0] == a->ne[0] && ggml_nelements(b) == b->ne[0]));
}

static enum ggml_status run_binary_flat(struct ggml_ocl_backend * be, struct ggml_tensor * op, int code) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    struct ggml_ocl_args args;
    if (!be->dev->cpu_kernels && ggml_nelements(op) <= (int64_t) UINT32_MAX) {
        // GPUs: a value per work-item (k_binary_g)
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE, "k_binary_g")) {
            return GGML_STATUS_FAILED;
        }
        arg_flat(&args, a);
        arg_flat(&args, b);
        ggml_ocl_arg_raw(&args, sizeof(cl_uint), &(cl_uint) { (cl_uint) ggml_nelements(b) });
        arg_flat(&args, op);
        ggml_ocl_arg_raw(&args, sizeof(cl_uint), &(cl_uint) { (cl_uint) ggml_nelements(op) });
        ggml_ocl_arg_i32(&args, code);
        return ggml_ocl_launch_items(&args, (size_t) ggml_nelements(op), ggml_ocl_wg_size(be->dev, ELT_LOCAL));
    }
    if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE, "k_binary_flat")) {
        return GGML_STATUS_FAILED;
    }
    arg_flat(&args, a);
    arg_flat(&args, b);
    ggml_ocl_arg_i32(&args, same_shape(a, b) ? 1 : 0);
    arg_flat(&args, op);
    ggml_ocl_arg_i64(&args, op->ne[0]);
    ggml_ocl_arg_i32(&args, code);
    const size_t global[2] = { (size_t) (op->ne[0] + 15) / 16, (size_t) (op->ne[1] * op->ne[2] * op->ne[3]) };
    return ggml_ocl_launch_nd(&args, 2, global, NULL);
}

static enum ggml_status run_binary(struct ggml_ocl_backend * be, struct ggml_tensor * op, int code) {
    if (binary_flat(op)) {
        return run_binary_flat(be, op, code);
    }
    const bool f32 = op->type == GGML_TYPE_F32 && op->src[0]->type == GGML_TYPE_F32 && op->src[1]->type == GGML_TYPE_F32;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, f32 ? "k_binary_f32" : "k_binary")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, code);
    return ggml_ocl_launch_shape(&a, op);
}

static enum ggml_status run_glu(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, "k_glu")) {
        return GGML_STATUS_FAILED;
    }
    const bool has_b = op->src[1] != NULL;
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor_opt(&a, op->src[1], op->src[0]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0));
    ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 1) != 0);
    ggml_ocl_arg_i32(&a, has_b);
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 2));
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 3));
    return ggml_ocl_launch_shape(&a, op);
}

static enum ggml_status run_add_id(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, "k_add_id")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op->src[2]);
    ggml_ocl_arg_tensor(&a, op);
    return ggml_ocl_launch_shape(&a, op);
}

static enum ggml_status run_arange(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ELTWISE, "k_arange")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 0));
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 2));
    return ggml_ocl_launch_items(&a, (size_t) op->ne[0], ggml_ocl_wg_size(be->dev, ELT_LOCAL));
}

enum ggml_status ggml_ocl_eltwise_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    if (ggml_ocl_eltwise_vec_takes(be->dev, op) && ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ELTWISE_VEC)) {
        return ggml_ocl_eltwise_vec(be, op);
    }
    float p[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    switch (op->op) {
        case GGML_OP_UNARY:
            // XIELU: alpha_n, alpha_p, beta, eps in f32[1..4]
            for (int i = 0; i < 4; i++) {
                p[i] = ggml_get_op_params_f32(op, (uint32_t) i + 1);
            }
            return run_unary(be, op, ggml_get_op_params_i32(op, 0), p);
        case GGML_OP_SQR:  return run_unary(be, op, U_SQR, p);
        case GGML_OP_SQRT: return run_unary(be, op, U_SQRT, p);
        case GGML_OP_LOG:  return run_unary(be, op, U_LOG, p);
        case GGML_OP_SIN:  return run_unary(be, op, U_SIN, p);
        case GGML_OP_COS:  return run_unary(be, op, U_COS, p);
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
        case GGML_OP_LEAKY_RELU:
            p[0] = ggml_get_op_params_f32(op, 0);
            p[1] = ggml_get_op_params_f32(op, 1);
            return run_unary(be, op, op->op == GGML_OP_SCALE ? U_SCALE : op->op == GGML_OP_CLAMP ? U_CLAMP : U_LEAKY_RELU, p);
        case GGML_OP_ADD:
        case GGML_OP_ADD1: return run_binary(be, op, 0);
        case GGML_OP_SUB:  return run_binary(be, op, 1);
        case GGML_OP_MUL:  return run_binary(be, op, 2);
        case GGML_OP_DIV:  return run_binary(be, op, 3);
        case GGML_OP_GLU:  return run_glu(be, op);
        case GGML_OP_ARANGE: return run_arange(be, op);
        case GGML_OP_ADD_ID: return run_add_id(be, op);
        default:
            GGML_LOG_ERROR("%s: op %s is not an element-wise op\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
