// Fast paths (kernels/eltwise_vec.cl, GGML_OCL_PROG_ELTWISE_VEC) for contiguous F32 tensors: ADD
// SUB MUL DIV (b of the same shape, or one row broadcast over every row), SCALE, SWIGLU (fused
// halves or two tensors), CPY / DUP / CONT between contiguous F32 and F16 tensors, RMS_NORM, NORM
// and SOFT_MAX. Two shapes: on CPU devices (d->cpu_kernels) 16 values per work-item and a
// work-item per row; on GPUs consecutive work-items on consecutive values (float4 where aligned)
// and a work-group per row (the k_g* kernels, eltwise_gpu below).
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
    // the GPU kernels count items in 32 bits
    if (!d->cpu_kernels && (ggml_nelements(op) > (int64_t) UINT32_MAX || (a != NULL && ggml_nelements(a) > (int64_t) UINT32_MAX))) {
        return false;
    }
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
            return same_shape(op, a);
        case GGML_OP_SOFT_MAX:
            return same_shape(op, a) && soft_max_inputs_plain(op);
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
    const bool gpu = !be->dev->cpu_kernels;
    if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, gpu ? "k_gsoft_max" : "k_vsoft_max")) {
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
    if (gpu) {
        // a work-group per row, the row's weights in local memory when they fit in 32 KiB beside
        // the group's buffer (a GPU's 48 KiB then holds one group at least)
        const size_t local = ggml_ocl_wg_size(be->dev, 256);
        const size_t row_bytes = (size_t) op->ne[0]*sizeof(float);
        const bool in_local = row_bytes <= 32768 && row_bytes + local*sizeof(float) + 1024 <= be->dev->local_mem;
        ggml_ocl_arg_local(&args, local*sizeof(float));
        ggml_ocl_arg_local(&args, in_local ? row_bytes : sizeof(float));
        ggml_ocl_arg_i32(&args, in_local);
        return ggml_ocl_launch_groups(&args, rows, local);
    }
    return ggml_ocl_launch_nd(&args, 1, &rows, NULL);
}

//
// GPU shapes
//

#define GPU_LOCAL 256

// whether t's offset in its buffer is a multiple of 16 bytes (a float4 pointer to it is aligned)
static bool aligned16(const struct ggml_tensor * t) {
    cl_mem mem = NULL;
    size_t offs = 0;
    return t != NULL && ggml_ocl_tensor_mem(t, __func__, &mem, &offs) && offs % 16 == 0;
}

// cl_mem of t and its offset in units of v floats (v = 1 or 4; aligned16 checked for 4)
static void arg_floats_v(struct ggml_ocl_args * a, const struct ggml_tensor * t, size_t v) {
    cl_mem mem = NULL;
    size_t offs = 0;
    if (!ggml_ocl_tensor_mem(t, a->kname, &mem, &offs) || offs % (v*sizeof(float)) != 0) {
        a->failed = true;
        a->n += 2;
        return;
    }
    const cl_ulong o = offs / (v*sizeof(float));
    ggml_ocl_arg_raw(a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(a, sizeof(o), &o);
}

static void arg_u32(struct ggml_ocl_args * a, uint64_t v) {
    const cl_uint x = (cl_uint) v;
    ggml_ocl_arg_raw(a, sizeof(x), &x);
}

static void arg_u64(struct ggml_ocl_args * a, uint64_t v) {
    const cl_ulong x = (cl_ulong) v;
    ggml_ocl_arg_raw(a, sizeof(x), &x);
}

static enum ggml_status launch_flat(struct ggml_ocl_args * a, uint64_t items) {
    return ggml_ocl_launch_items(a, (size_t) items, ggml_ocl_wg_size(a->be->dev, GPU_LOCAL));
}

enum ggml_status ggml_ocl_norm_rows_gpu(struct ggml_ocl_backend * be, const struct ggml_tensor * node, const char * label, int mode,
                                        const struct ggml_tensor * a, const struct ggml_tensor * b,
                                        const struct ggml_tensor * sum, const struct ggml_tensor * w,
                                        struct ggml_tensor * dst, float eps) {
    const int64_t ne0 = dst->ne[0];
    const struct ggml_tensor * all[5] = { a, b, sum, w, dst };
    // float4 items whenever ne0 % 4 == 0 (the sums' order then depends on ne0 alone: fused and
    // unfused results agree), through float4 pointers where every tensor is 16-byte aligned
    const bool v4 = ne0 % 4 == 0;
    bool aligned = v4;
    for (int i = 0; i < 5 && aligned; i++) {
        aligned = all[i] == NULL || aligned16(all[i]);
    }
    const size_t v = aligned ? 4 : 1;   // offsets in units of the pointers' type
    const size_t items = v4 ? 4 : 1;    // row length in units of the items
    struct ggml_ocl_args args;
    if (!ggml_ocl_args_begin(&args, be, node, GGML_OCL_PROG_ELTWISE_VEC,
                             aligned ? "k_gnorm_rows4" : v4 ? "k_gnorm_rows4u" : "k_gnorm_rows1")) {
        return GGML_STATUS_FAILED;
    }
    if (label != NULL) {
        args.kname = label;
    }
    // a missing b / sum / w is a's memory (never read or written)
    arg_floats_v(&args, a, v);
    arg_floats_v(&args, b != NULL ? b : a, v);
    arg_u64(&args, b != NULL && ggml_nelements(b) != b->ne[0] ? (uint64_t) ne0 / v : 0);
    arg_floats_v(&args, sum != NULL ? sum : a, v);
    arg_floats_v(&args, w != NULL ? w : a, v);
    arg_u64(&args, w != NULL && ggml_nelements(w) != w->ne[0] ? (uint64_t) ne0 / v : 0);
    arg_floats_v(&args, dst, v);
    arg_u32(&args, (uint64_t) ne0 / items);
    ggml_ocl_arg_f32(&args, (float) ne0);
    ggml_ocl_arg_f32(&args, eps);
    ggml_ocl_arg_i32(&args, mode);
    ggml_ocl_arg_i32(&args, b != NULL);
    ggml_ocl_arg_i32(&args, w != NULL);
    const size_t local = ggml_ocl_wg_size(be->dev, GPU_LOCAL);
    ggml_ocl_arg_local(&args, local*sizeof(float));
    return ggml_ocl_launch_groups(&args, n_rows(dst), local);
}

// the copy kernels' arguments for the source a and the destination op: each one's buffer, its
// offset in elements and its type
static bool arg_copy_ends(struct ggml_ocl_args * args, const struct ggml_tensor * a, const struct ggml_tensor * op) {
    const struct ggml_tensor * ends[2] = { a, op };
    for (int i = 0; i < 2; i++) {
        cl_mem mem = NULL;
        size_t offs = 0;
        if (!ggml_ocl_tensor_mem(ends[i], args->kname, &mem, &offs)) {
            return false;
        }
        const cl_ulong o = offs / ggml_type_size(ends[i]->type);
        ggml_ocl_arg_raw(args, sizeof(mem), &mem);
        ggml_ocl_arg_raw(args, sizeof(o), &o);
        ggml_ocl_arg_i32(args, (int32_t) ends[i]->type);
    }
    return true;
}

static enum ggml_status eltwise_gpu(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const uint64_t n = (uint64_t) ggml_nelements(op);
    struct ggml_ocl_args args;
    if (op->op == GGML_OP_CPY || op->op == GGML_OP_DUP || op->op == GGML_OP_CONT) {
        const bool v4 = n % 4 == 0 && aligned16(a) && aligned16(op);
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, v4 ? "k_gcpy4" : "k_gcpy1")) {
            return GGML_STATUS_FAILED;
        }
        if (!arg_copy_ends(&args, a, op)) {
            return GGML_STATUS_FAILED;
        }
        arg_u32(&args, v4 ? n/4 : n);
        return launch_flat(&args, v4 ? n/4 : n);
    }
    if (op->op == GGML_OP_RMS_NORM || op->op == GGML_OP_NORM) {
        return ggml_ocl_norm_rows_gpu(be, op, NULL, op->op == GGML_OP_NORM ? 1 : 0, a, NULL, NULL, NULL, op,
                                      ggml_get_op_params_f32(op, 0));
    }
    if (op->op == GGML_OP_SOFT_MAX) {
        return run_soft_max_rows(be, op);
    }
    if (op->op == GGML_OP_SCALE) {
        const bool v4 = n % 4 == 0 && aligned16(a) && aligned16(op);
        const size_t v = v4 ? 4 : 1;
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, v4 ? "k_gscale4" : "k_gscale1")) {
            return GGML_STATUS_FAILED;
        }
        arg_floats_v(&args, a, v);
        arg_floats_v(&args, op, v);
        arg_u32(&args, n / v);
        ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(op, 0));
        ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(op, 1));
        return launch_flat(&args, n / v);
    }
    if (op->op == GGML_OP_GLU) {
        const uint64_t nc = (uint64_t) op->ne[0];
        // the rows of x and g: two tensors of op's shape, or the halves [x | g] ([g | x] swapped) of a's rows
        const bool swapped = b == NULL && ggml_get_op_params_i32(op, 1) != 0;
        const uint64_t row = b != NULL ? nc : (uint64_t) a->ne[0];
        const uint64_t off_x = b == NULL && swapped ? nc : 0;
        const uint64_t off_g = b == NULL && !swapped ? nc : 0;
        bool v4 = nc % 4 == 0 && row % 4 == 0 && aligned16(a) && aligned16(op) && (b == NULL || aligned16(b));
        const uint64_t v = v4 ? 4 : 1;
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, v4 ? "k_gswiglu4" : "k_gswiglu1")) {
            return GGML_STATUS_FAILED;
        }
        const struct ggml_tensor * xs[2] = { a, b != NULL ? b : a };
        const uint64_t offs[2] = { off_x, off_g };
        for (int i = 0; i < 2; i++) {
            cl_mem mem = NULL;
            size_t o = 0;
            if (!ggml_ocl_tensor_mem(xs[i], args.kname, &mem, &o)) {
                return GGML_STATUS_FAILED;
            }
            const cl_ulong base = (cl_ulong) ((o / sizeof(float) + offs[i]) / v);
            ggml_ocl_arg_raw(&args, sizeof(mem), &mem);
            ggml_ocl_arg_raw(&args, sizeof(base), &base);
            arg_u32(&args, row / v);
        }
        arg_floats_v(&args, op, v);
        arg_u32(&args, nc / v);
        arg_u32(&args, n / v);
        return launch_flat(&args, n / v);
    }
    const int code = binary_code(op->op);
    if (code < 0) {
        GGML_LOG_ERROR("%s: op %s has no vector kernel\n", __func__, ggml_op_desc(op));
        return GGML_STATUS_FAILED;
    }
    const uint64_t nb = (uint64_t) ggml_nelements(b);
    const bool v4 = n % 4 == 0 && nb % 4 == 0 && aligned16(a) && aligned16(b) && aligned16(op);
    const uint64_t v = v4 ? 4 : 1;
    if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, v4 ? "k_gbinary4" : "k_gbinary1")) {
        return GGML_STATUS_FAILED;
    }
    arg_floats_v(&args, a, v);
    arg_floats_v(&args, b, v);
    arg_u32(&args, nb / v);
    arg_floats_v(&args, op, v);
    arg_u32(&args, n / v);
    ggml_ocl_arg_i32(&args, code);
    return launch_flat(&args, n / v);
}

enum ggml_status ggml_ocl_eltwise_vec(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    if (!be->dev->cpu_kernels) {
        return eltwise_gpu(be, op);
    }
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    struct ggml_ocl_args args;
    if (op->op == GGML_OP_CPY || op->op == GGML_OP_DUP || op->op == GGML_OP_CONT) {
        // CPY: the node is a view of the destination src[1]
        if (!ggml_ocl_args_begin(&args, be, op, GGML_OCL_PROG_ELTWISE_VEC, "k_vcpy")) {
            return GGML_STATUS_FAILED;
        }
        if (!arg_copy_ends(&args, a, op)) {
            return GGML_STATUS_FAILED;
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
