// ROPE (kernels/rope.cl): modes NORMAL, NEOX, MROPE, IMROPE, VISION; optional frequency factors;
// YaRN (ext_factor, attn_factor, beta_fast/slow); F32, F16 and BF16 data; I32 positions.

#include "ggml-opencl-impl.h"

#include <math.h>
#include <stdint.h>

#define ROPE_LOCAL 64

static bool rope_multi(int mode) {
    return mode == GGML_ROPE_TYPE_MROPE || mode == GGML_ROPE_TYPE_IMROPE || mode == GGML_ROPE_TYPE_VISION;
}

bool ggml_ocl_rope_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    const struct ggml_tensor * a   = op->src[0];
    const struct ggml_tensor * pos = op->src[1];
    const struct ggml_tensor * ff  = op->src[2];
    if (a == NULL || pos == NULL || !ggml_ocl_type_is_float(a->type) || !ggml_ocl_type_is_float(op->type) ||
        (pos->type != GGML_TYPE_I32 && pos->type != GGML_TYPE_I64) || !ggml_is_contiguous(pos)) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (op->ne[i] != a->ne[i]) {
            return false;
        }
    }
    const int n_dims = ggml_get_op_params_i32(op, 1);
    const int mode   = ggml_get_op_params_i32(op, 2);
    const bool multi = rope_multi(mode);
    if (mode != GGML_ROPE_TYPE_NORMAL && mode != GGML_ROPE_TYPE_NEOX && !multi) {
        return false;
    }
    if (n_dims <= 0 || n_dims % 2 != 0 || n_dims > a->ne[0]) {
        return false;
    }
    if (mode == GGML_ROPE_TYPE_VISION && 2*(int64_t) n_dims != a->ne[0]) {
        return false;
    }
    if (ggml_get_op_params_i32(op, 15) != 0) {
        return false; // rotated dims offset by ggml_rope_set_offset: not implemented here
    }
    if (multi) {
        int64_t sum = 0;
        for (int k = 0; k < 4; k++) {
            const int s = ggml_get_op_params_i32(op, 11 + (uint32_t) k);
            if (s < 0) {
                return false;
            }
            sum += s;
        }
        if (sum <= 0) {
            return false;
        }
    }
    if (ggml_nelements(pos) < (multi ? 4 : 1)*a->ne[2]) {
        return false;
    }
    const int64_t n_pairs = mode == GGML_ROPE_TYPE_VISION ? a->ne[0]/2 : n_dims/2;
    if (ff != NULL && (!ggml_ocl_type_is_float(ff->type) || !ggml_is_contiguous(ff) || ggml_nelements(ff) < n_pairs)) {
        return false;
    }
    return true;
}

// k_rope_vec: NORMAL / NEOX, F32 rows of unit element stride, every element rotated, 16 pairs per
// work-item
static bool rope_vec_takes(const struct ggml_tensor * op, int mode, int n_dims) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * ends[2] = { a, op };
    if ((mode != GGML_ROPE_TYPE_NORMAL && mode != GGML_ROPE_TYPE_NEOX) || n_dims != a->ne[0] || n_dims % 32 != 0) {
        return false;
    }
    for (int i = 0; i < 2; i++) {
        const struct ggml_tensor * t = ends[i];
        if (t->type != GGML_TYPE_F32 || t->nb[0] != sizeof(float) || t->nb[1] % sizeof(float) != 0 ||
            (uintptr_t) t->data % sizeof(float) != 0) {
            return false;
        }
    }
    return true;
}

static double corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * log((double) n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * log(base));
}

enum ggml_status ggml_ocl_rope_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    const int   n_dims      = ggml_get_op_params_i32(op, 1);
    const int   mode        = ggml_get_op_params_i32(op, 2);
    const int   n_ctx_orig  = ggml_get_op_params_i32(op, 4);
    const float freq_base   = ggml_get_op_params_f32(op, 5);
    const float freq_scale  = ggml_get_op_params_f32(op, 6);
    const float ext_factor  = ggml_get_op_params_f32(op, 7);
    const float attn_factor = ggml_get_op_params_f32(op, 8);
    const float beta_fast   = ggml_get_op_params_f32(op, 9);
    const float beta_slow   = ggml_get_op_params_f32(op, 10);

    // YaRN correction range, in double as the reference
    const double start = floor(corr_dim(n_dims, n_ctx_orig, beta_fast, freq_base));
    const double end   = ceil (corr_dim(n_dims, n_ctx_orig, beta_slow, freq_base));
    const float corr0 = (float) (start > 0.0 ? start : 0.0);
    const float corr1 = (float) (end < n_dims - 1 ? end : n_dims - 1);
    // theta_scale^p is computed as exp2(p*log2(theta_scale)), theta_scale = base^(-2/n_dims)
    const float log2_theta_scale = (float) (-2.0 / n_dims * log2((double) freq_base));

    const int64_t n_pairs = mode == GGML_ROPE_TYPE_VISION ? src->ne[0]/2 : n_dims/2;
    const int64_t slots   = src->ne[0] - n_pairs;
    const int64_t n_items = slots*src->ne[1]*src->ne[2]*src->ne[3];

    // NORMAL and NEOX: a work-item per (slot, token) over the heads (the angle computed once)
    const bool heads = mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX;
    // GPUs: a work-item per pair of every head (k_rope_pairs)
    const bool pairs = heads && !be->dev->cpu_kernels;
    const bool vec = !pairs && rope_vec_takes(op, mode, n_dims);
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ROPE,
                             pairs ? "k_rope_pairs" : vec ? "k_rope_vec" : heads ? "k_rope_heads" : "k_rope")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, src);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor_opt(&a, op->src[2], src);
    ggml_ocl_arg_tensor(&a, op);
    ggml_ocl_arg_i32(&a, n_dims);
    ggml_ocl_arg_i32(&a, mode);
    ggml_ocl_arg_f32(&a, freq_scale);
    ggml_ocl_arg_f32(&a, ext_factor);
    ggml_ocl_arg_f32(&a, attn_factor);
    ggml_ocl_arg_f32(&a, corr0);
    ggml_ocl_arg_f32(&a, corr1);
    ggml_ocl_arg_f32(&a, log2_theta_scale);
    for (int k = 0; k < 4; k++) {
        ggml_ocl_arg_i32(&a, rope_multi(mode) ? ggml_get_op_params_i32(op, 11 + (uint32_t) k) : 0);
    }
    ggml_ocl_arg_i32(&a, op->src[2] != NULL);
    if (pairs) {
        // groups of up to ROPE_LOCAL slots: a 64-wide head (32 pairs) leaves no item idle
        const size_t l0 = ggml_ocl_wg_size(be->dev, slots < ROPE_LOCAL ? (size_t) slots : ROPE_LOCAL);
        const size_t global[3] = { ((size_t) slots + l0 - 1) / l0 * l0, (size_t) src->ne[1], (size_t) (src->ne[2]*src->ne[3]) };
        const size_t local[3] = { l0, 1, 1 };
        return ggml_ocl_launch_nd(&a, 3, global, local);
    }
    if (vec) {
        const size_t global[2] = { (size_t) (n_pairs / 16), (size_t) (src->ne[2]*src->ne[3]) };
        return ggml_ocl_launch_nd(&a, 2, global, NULL);
    }
    if (heads) {
        const size_t l0 = ggml_ocl_wg_size(be->dev, ROPE_LOCAL);
        const size_t global[2] = { ((size_t) slots + l0 - 1) / l0 * l0, (size_t) (src->ne[2]*src->ne[3]) };
        const size_t local[2] = { l0, 1 };
        return ggml_ocl_launch_nd(&a, 2, global, local);
    }
    return ggml_ocl_launch_items(&a, (size_t) n_items, ggml_ocl_wg_size(be->dev, ROPE_LOCAL));
}
