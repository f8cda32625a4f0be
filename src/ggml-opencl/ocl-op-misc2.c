// Issue 22's small ops on OpenCL (kernels/misc2.cl): CUMSUM (F32), TRI (F32), FILL (F32, F16,
// BF16), DIAG (every type the kernels address), TIMESTEP_EMBEDDING (F32) and UPSCALE (F32;
// nearest, bilinear, bicubic, align-corners, antialias). Sources and results may be views with
// any strides. Semantics as the CPU backend's (src/ggml-cpu/cpu-ops-misc.c, cpu-ops-shape2.c).

#include "ggml-opencl-impl.h"

#define MISC2_SCAN_LOCAL 256 // CUMSUM: the widest work-group
#define MISC2_SCAN_CHUNK 64  // CUMSUM: the most elements per work-item and tile

static bool misc2_same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

static bool upscale_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const uint32_t mode = (uint32_t) ggml_get_op_params_i32(op, 0);
    const uint32_t base = mode & 0xFFu, flags = mode & ~0xFFu;
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || base >= GGML_SCALE_MODE_COUNT ||
        (flags & ~(uint32_t) (GGML_SCALE_FLAG_ALIGN_CORNERS | GGML_SCALE_FLAG_ANTIALIAS)) != 0 ||
        ((flags & GGML_SCALE_FLAG_ANTIALIAS) && base != GGML_SCALE_MODE_BILINEAR)) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] <= 0 || op->ne[d] <= 0) {
            return false;
        }
    }
    return true;
}

bool ggml_ocl_misc2_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_CUMSUM:
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && misc2_same_shape(a, op);
        case GGML_OP_TRI: {
            const int t = ggml_get_op_params_i32(op, 0);
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && misc2_same_shape(a, op) &&
                   a->ne[0] == a->ne[1] && t >= GGML_TRI_TYPE_UPPER_DIAG && t <= GGML_TRI_TYPE_LOWER;
        }
        case GGML_OP_FILL:
            return ggml_ocl_type_is_float(op->type);
        case GGML_OP_DIAG:
            // the dispatcher has checked that the type is one the kernels address
            return op->type == a->type && a->ne[1] == 1 && op->ne[0] == a->ne[0] && op->ne[1] == a->ne[0] &&
                   op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
        case GGML_OP_TIMESTEP_EMBEDDING: {
            const int dim = ggml_get_op_params_i32(op, 0), max_period = ggml_get_op_params_i32(op, 1);
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && dim > 0 && max_period > 0 &&
                   op->ne[0] == dim && op->ne[1] == a->ne[0] && op->ne[2] == 1 && op->ne[3] == 1;
        }
        case GGML_OP_UPSCALE:
            return upscale_supported(op);
        default:
            return false;
    }
}

// rows of unit stride at 4-byte aligned strides
static bool rows_f32(const struct ggml_tensor * t) {
    return t->nb[0] == sizeof(float) && t->nb[1] % sizeof(float) == 0 && t->nb[2] % sizeof(float) == 0 &&
           t->nb[3] % sizeof(float) == 0 && (uintptr_t) t->data % sizeof(float) == 0;
}

static enum ggml_status run_cumsum(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    if (be->dev->cpu_kernels && rows_f32(op->src[0]) && rows_f32(op)) {
        // CPU devices: a work-item per row (k_cumsum_rows)
        struct ggml_ocl_args a;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_MISC2, "k_cumsum_rows")) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, op->src[0]);
        ggml_ocl_arg_tensor(&a, op);
        const size_t rows = (size_t) (op->ne[1]*op->ne[2]*op->ne[3]);
        return ggml_ocl_launch_nd(&a, 1, &rows, NULL);
    }
    // chunks of up to MISC2_SCAN_CHUNK elements per work-item, work-groups of 32 to 256 items:
    // rows of up to 32 elements take one element per item, long rows take several tiles
    const int64_t ne0 = op->ne[0];
    const int64_t n_chunks = (ne0 + MISC2_SCAN_CHUNK - 1) / MISC2_SCAN_CHUNK;
    size_t want = 32;
    while (want < MISC2_SCAN_LOCAL && (int64_t) want < n_chunks) {
        want *= 2;
    }
    const size_t local = ggml_ocl_wg_size(be->dev, want);
    int64_t chunk = (ne0 + (int64_t) local - 1) / (int64_t) local;
    chunk = chunk > MISC2_SCAN_CHUNK ? MISC2_SCAN_CHUNK : chunk;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_MISC2, "k_cumsum")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, (int32_t) chunk);
    ggml_ocl_arg_local(&a, local*sizeof(cl_float));
    return ggml_ocl_launch_groups(&a, (size_t) (op->ne[1]*op->ne[2]*op->ne[3]), local);
}

// nearest, no flags, an integer factor in dim 0 (whose picks i0 div k are exact below 2^24), rows
// of unit stride, a CPU device: k_upscale_nearest_rows, a work-item per row (copy-like)
static bool upscale_by_rows(const struct ggml_ocl_backend * be, const struct ggml_tensor * op, uint32_t mode, float sf0) {
    const struct ggml_tensor * src = op->src[0];
    if (!be->dev->cpu_kernels || mode != GGML_SCALE_MODE_NEAREST ||
        op->ne[0] % src->ne[0] != 0 || op->ne[0] >= ((int64_t) 1 << 24) || op->ne[0] / src->ne[0] > 64 ||
        !rows_f32(src) || !rows_f32(op)) {
        return false;
    }
    return sf0 == (float) (op->ne[0] / src->ne[0]);
}

static enum ggml_status run_upscale(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    const uint32_t mode = (uint32_t) ggml_get_op_params_i32(op, 0);
    // the CPU backend's float scale factors, computed here with the same float operations
    float sf[GGML_MAX_DIMS];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        sf[d] = (float) op->ne[d] / (float) src->ne[d];
    }
    if (upscale_by_rows(be, op, mode, sf[0])) {
        struct ggml_ocl_args a;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_MISC2, "k_upscale_nearest_rows")) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, src);
        ggml_ocl_arg_tensor(&a, op);
        ggml_ocl_arg_i32(&a, (int32_t) (op->ne[0] / src->ne[0]));
        for (int d = 1; d < GGML_MAX_DIMS; d++) {
            ggml_ocl_arg_f32(&a, sf[d]);
        }
        const size_t rows = (size_t) (op->ne[1]*op->ne[2]*op->ne[3]);
        return ggml_ocl_launch_nd(&a, 1, &rows, NULL);
    }
    float po = 0.5f;
    if (mode & GGML_SCALE_FLAG_ALIGN_CORNERS) {
        po = 0.0f;
        for (int d = 0; d < 2; d++) {
            if (op->ne[d] > 1 && src->ne[d] > 1) {
                sf[d] = (float) (op->ne[d] - 1) / (float) (src->ne[d] - 1);
            }
        }
    }
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_MISC2, "k_upscale")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, src);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, (int32_t) (mode & 0xFFu));
    ggml_ocl_arg_i32(&a, (mode & GGML_SCALE_FLAG_ANTIALIAS) != 0);
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        ggml_ocl_arg_f32(&a, sf[d]);
    }
    ggml_ocl_arg_f32(&a, po);
    return ggml_ocl_launch_shape(&a, op);
}

enum ggml_status ggml_ocl_misc2_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    struct ggml_ocl_args a;
    switch (op->op) {
        case GGML_OP_CUMSUM:
            return run_cumsum(be, op);
        case GGML_OP_UPSCALE:
            return run_upscale(be, op);
        case GGML_OP_FILL:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_MISC2, "k_fill")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op);
            ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 0));
            return ggml_ocl_launch_shape(&a, op);
        case GGML_OP_TRI:
        case GGML_OP_DIAG:
        case GGML_OP_TIMESTEP_EMBEDDING:
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_MISC2,
                                     op->op == GGML_OP_TRI ? "k_tri" : op->op == GGML_OP_DIAG ? "k_diag" : "k_timestep")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op);
            if (op->op == GGML_OP_TRI) {
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0));
            } else if (op->op == GGML_OP_TIMESTEP_EMBEDDING) {
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0));
                ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 1));
            }
            return ggml_ocl_launch_shape(&a, op);
        default:
            GGML_LOG_ERROR("%s: op %s is not one of the misc2 ops\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
