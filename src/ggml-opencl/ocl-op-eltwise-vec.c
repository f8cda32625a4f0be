// Fast paths (kernels/eltwise_vec.cl, GGML_OCL_PROG_ELTWISE_VEC) for contiguous F32 tensors: ADD
// SUB MUL DIV (b of the same shape, or one row broadcast over every row), SCALE, SWIGLU (fused
// halves or two tensors), CPY / DUP / CONT between contiguous F32 and F16 tensors, and on CPU
// devices RMS_NORM, NORM and SOFT_MAX (a work-item per row).
// ggml_ocl_eltwise_compute, ggml_ocl_norm_compute and ggml_ocl_copy_compute try them first; what
// they do not take runs on the general kernels of eltwise.cl, norm.cl and copy.cl.

#include "ggml-opencl-impl.h"

#include <math.h>
#include <stdint.h>

static bool plain_f32(const struct ggml_tensor * t) {
    return t != NULL && t->type == GGML_TYPE_F32 && ggml_is_contiguous(t);
}

static bool same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

// rows of a contiguous tensor
static size_t n_rows(const struct ggml_tensor * t) {
    return (size_t) (t->ne[1] * t->ne[2] * t->ne[3]);
}

// cl_mem of t and its offset in floats (contiguous F32 tensors sit at 4-byte offsets)
static void arg_floats(struct ggml_ocl_args * a, const struct ggml_tensor * t) {
    cl_mem mem = NULL;
    size_t offs = 0;
    if (!ggml_ocl_tensor_mem(t, a->kname, &mem, &offs) || offs % sizeof(float) != 0) {
        a->failed = true;
        a->n += 2;
        return;
    }
    const cl_ulong o = offs / sizeof(float);
    ggml_ocl_arg_raw(a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(a, sizeof(o), &o);
}

static enum ggml_status launch_rows(struct ggml_ocl_args * a, int64_t ne0, size_t rows) {
    const size_t global[2] = { (size_t) (ne0 + 15) / 16, rows };
    return ggml_ocl_launch_nd(a, 2, global, NULL);
}

static int binary_code(enum ggml_op op) {
    switch (op) {
        case GGML_OP_ADD: return 0;
        case GGML_OP_SUB: return 1;
        case GGML_OP_MUL: return 2;
        case GGML_OP_DIV: return 3;
        default:          return -1;
    }
}

static bool plain_f32_f16(const struct ggml_tensor * t) {
    return t != NULL && (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16) && ggml_is_contiguous(t) &&
           (uintptr_t) t->data % ggml_type_size(t->type) == 0;
}

// SOFT_MAX's mask (F32 or F16, contiguous rows at element-aligned strides) and sinks (F32,
// contiguous); the broadcast conditions are ggml_ocl_norm_supports' own
static bool soft_max_inputs_plain(const struct ggml_tensor * op) {
    const struct ggml_tensor * mask  = op->src[1];
    const struct ggml_tensor * sinks = op->src[2];
    if (mask != NULL) {
        const size_t ts = ggml_type_size(mask->type);
        if ((mask->type != GGML_TYPE_F32 && mask->type != GGML_TYPE_F16) || mask->nb[0] != ts ||
            mask->nb[1] % ts != 0 || mask->nb[2] % ts != 0 || mask->nb[3] % ts != 0 || (uintptr_t) mask->data % ts != 0) {
            return false;
        }
    }
    return sinks == NULL || plain_f32(sinks);
}

bool ggml_ocl_eltwise_vec_takes(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (op->op == GGML_OP_CPY || op->op == GGML_OP_DUP || op->op == GGML_OP_CONT) {
        return plain_f32_f16(a) && plain_f32_f16(op) && ggml_nelements(a) == ggml_nelements(op) && ggml_nelements(op) > 0;
    }
    if (!plain_f32(op) || !plain_f32(a) || op->ne[0] <= 0) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return same_shape(op, a) && plain_f32(b) &&
                   (same_shape(b, a) || (b->ne[0] == a->ne[0] && ggml_nelements(b) == b->ne[0]));
        case GGML_OP_SCALE:
            return same_shape(op, a);
        case GGML_OP_RMS_NORM:
        case GGML_OP_NORM:
            return same_shape(op, a) && d->cpu_kernels;
        case GGML_OP_SOFT_MAX:
            return same_shape(op, a) && d->cpu_kernels && soft_max_inputs_plain(op);
        case GGML_OP_GLU:
            if (ggml_get_op_params_i32(op, 0) != GGML_GLU_OP_SWIGLU) {
                return false;
            }
            if (b != NULL) {
                return plain_f32(b) && same_shape(op, a) && same_shape(a, b);
            }
            // an odd row's last element is unused
            return a->ne[0] / 2 == op->ne[0] && a->ne[1] == op->ne[1] && a->ne[2] == op->ne[2] && a->ne[3] == op->ne[3];
        default:
            return false;
    }
}

static enum ggml_status run_soft_max_rows(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * a     = op->src[0];
    const struct ggml_tensor * mask  = op->src[1];
    const struct ggml_tensor * sinks = op->src[2];
    const float max_bias = ggml_get_op_params_f32(op, 1);
    int64_t n_head_log2 = 1;
    while (n_head_log2*2 <= a->ne[2]) {
        n_head_log2 *= 2;
    }
    const float m0 = (float) pow(2.0, -(double) max_bias / (double) n_head_log2);
    const float m1 = (float) pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);

    struct ggml_ocl_args args;
    if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, "k_vsoft_max")) {
        return GGML_STATUS_FAILED;
    }
    arg_floats(&args, a);
    arg_floats(&args, op);
    ggml_ocl_arg_i64(&args, op->ne[0]);
    ggml_ocl_arg_i64(&args, op->ne[1]);
    ggml_ocl_arg_i64(&args, op->ne[2]);
    // a missing mask or sink buffer is a's (never read)
    const struct ggml_tensor * m = mask != NULL ? mask : a;
    const size_t ts = ggml_type_size(m->type);
    cl_mem mem = NULL;
    size_t offs = 0;
    if (!ggml_ocl_tensor_mem(m, args.kname, &mem, &offs)) {
        return GGML_STATUS_FAILED;
    }
    const cl_ulong om = offs / ts;
    ggml_ocl_arg_raw(&args, sizeof(mem), &mem);
    ggml_ocl_arg_raw(&args, sizeof(om), &om);
    ggml_ocl_arg_i32(&args, (int32_t) m->type);
    ggml_ocl_arg_i64(&args, (int64_t) (m->nb[1] / ts));
    ggml_ocl_arg_i64(&args, (int64_t) (m->nb[2] / ts));
    ggml_ocl_arg_i64(&args, (int64_t) (m->nb[3] / ts));
    ggml_ocl_arg_i64(&args, m->ne[2]);
    ggml_ocl_arg_i64(&args, m->ne[3]);
    ggml_ocl_arg_i32(&args, mask != NULL);
    arg_floats(&args, sinks != NULL ? sinks : a);
    ggml_ocl_arg_i32(&args, sinks != NULL);
    ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(op, 0));
    ggml_ocl_arg_f32(&args, max_bias);
    ggml_ocl_arg_f32(&args, m0);
    ggml_ocl_arg_f32(&args, m1);
    ggml_ocl_arg_i32(&args, (int32_t) n_head_log2);
    const size_t rows = n_rows(op);
    return ggml_ocl_launch_nd(&args, 1, &rows, NULL);
}

enum ggml_status ggml_ocl_eltwise_vec(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    struct ggml_ocl_args args;
    if (op->op == GGML_OP_CPY || op->op == GGML_OP_DUP || op->op == GGML_OP_CONT) {
        // CPY: the node is a view of the destination src[1]
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, "k_vcpy")) {
            return GGML_STATUS_FAILED;
        }
        const struct ggml_tensor * ends[2] = { a, op };
        for (int i = 0; i < 2; i++) {
            cl_mem mem = NULL;
            size_t offs = 0;
            if (!ggml_ocl_tensor_mem(ends[i], args.kname, &mem, &offs)) {
                return GGML_STATUS_FAILED;
            }
            const cl_ulong o = offs / ggml_type_size(ends[i]->type);
            ggml_ocl_arg_raw(&args, sizeof(mem), &mem);
            ggml_ocl_arg_raw(&args, sizeof(o), &o);
            ggml_ocl_arg_i32(&args, (int32_t) ends[i]->type);
        }
        ggml_ocl_arg_i64(&args, ggml_nelements(op));
        const size_t items = (size_t) ((ggml_nelements(op) + 15) / 16);
        return ggml_ocl_launch_nd(&args, 1, &items, NULL);
    }
    if (op->op == GGML_OP_RMS_NORM || op->op == GGML_OP_NORM) {
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, op->op == GGML_OP_NORM ? "k_vnorm" : "k_vrms_norm")) {
            return GGML_STATUS_FAILED;
        }
        arg_floats(&args, a);
        arg_floats(&args, op);
        ggml_ocl_arg_i64(&args, op->ne[0]);
        ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(op, 0));
        const size_t rows = n_rows(op);
        return ggml_ocl_launch_nd(&args, 1, &rows, NULL);
    }
    if (op->op == GGML_OP_SOFT_MAX) {
        return run_soft_max_rows(be, op);
    }
    if (op->op == GGML_OP_SCALE) {
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, "k_vscale")) {
            return GGML_STATUS_FAILED;
        }
        arg_floats(&args, a);
        arg_floats(&args, op);
        ggml_ocl_arg_i64(&args, op->ne[0]);
        ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(op, 0));
        ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(op, 1));
        return launch_rows(&args, op->ne[0], n_rows(op));
    }
    if (op->op == GGML_OP_GLU) {
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, "k_vswiglu")) {
            return GGML_STATUS_FAILED;
        }
        const int64_t nc = op->ne[0];
        if (b != NULL) {
            arg_floats(&args, a);
            ggml_ocl_arg_i64(&args, nc);
            arg_floats(&args, b);
            ggml_ocl_arg_i64(&args, nc);
        } else {
            // the rows of a are [x | g], or [g | x] when swapped
            const bool swapped = ggml_get_op_params_i32(op, 1) != 0;
            cl_mem mem = NULL;
            size_t offs = 0;
            if (!ggml_ocl_tensor_mem(a, args.kname, &mem, &offs)) {
                return GGML_STATUS_FAILED;
            }
            const cl_ulong base = offs / sizeof(float);
            const cl_ulong ox = base + (swapped ? (cl_ulong) nc : 0);
            const cl_ulong og = base + (swapped ? 0 : (cl_ulong) nc);
            ggml_ocl_arg_raw(&args, sizeof(mem), &mem);
            ggml_ocl_arg_raw(&args, sizeof(ox), &ox);
            ggml_ocl_arg_i64(&args, a->ne[0]);
            ggml_ocl_arg_raw(&args, sizeof(mem), &mem);
            ggml_ocl_arg_raw(&args, sizeof(og), &og);
            ggml_ocl_arg_i64(&args, a->ne[0]);
        }
        arg_floats(&args, op);
        ggml_ocl_arg_i64(&args, nc);
        return launch_rows(&args, nc, n_rows(op));
    }
    const int code = binary_code(op->op);
    if (code < 0) {
        GGML_LOG_ERROR("%s: op %s has no vector kernel\n", __func__, ggml_op_desc(op));
        return GGML_STATUS_FAILED;
    }
    if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, "k_vbinary")) {
        return GGML_STATUS_FAILED;
    }
    arg_floats(&args, a);
    arg_floats(&args, b);
    ggml_ocl_arg_i64(&args, same_shape(a, b) ? 1 : 0);
    arg_floats(&args, op);
    ggml_ocl_arg_i64(&args, op->ne[0]);
    ggml_ocl_arg_i32(&args, code);
    return launch_rows(&args, op->ne[0], n_rows(op));
}
