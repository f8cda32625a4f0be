// FLASH_ATTN_EXT (kernels/attn.cl): Q F32/F16/BF16, K and V F32/F16/BF16, mask F32/F16 (broadcast
// over heads and batch), ALiBi, logit softcap, grouped-query heads (K/V heads dividing Q heads),
// sinks. Arithmetic in F32 whatever the precision requested. On CPU devices the common layout
// (Q F32, K/V F16 rows, head size 64 or 128, F32 result) runs on kernels/attn_rows.cl instead: a
// work-item per query row and head, no barriers. On GPUs, when the rows (query rows x heads) are
// too few to fill the device (decode), the keys are split into spans over several work-groups per
// row (k_flash_attn_split, into the backend's scratch memory) and merged by k_flash_attn_merge.

#include "ggml-opencl-impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ATTN_LOCAL 64

// split the keys while there are fewer work-groups than this
#define ATTN_SPLIT_GROUPS 256

// keep in sync with k_flash_attn_tile (kernels/attn.cl): work-group, query rows per group, keys
// per tile, largest head size
#define FA_WG 64
#define FA_Q 16
#define FA_K 32
#define FA_DMAX 128

// strides and offset of t multiples of align, elements contiguous (nb[0] == element size)
static bool rows_aligned(const struct ggml_tensor * t, size_t align) {
    if (t->nb[0] != ggml_type_size(t->type)) {
        return false;
    }
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (t->nb[i] % align != 0) {
            return false;
        }
    }
    return (uintptr_t) t->data % align == 0; // device buffers sit at an aligned (fake) base address
}

// the attn_rows kernel for this node, or NULL
static const char * rows_kernel(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0];
    const struct ggml_tensor * k = op->src[1];
    const struct ggml_tensor * v = op->src[2];
    if (!d->cpu_kernels || q->type != GGML_TYPE_F32 || k->type != GGML_TYPE_F16 ||
        v->type != GGML_TYPE_F16 || op->type != GGML_TYPE_F32 || q->ne[0] != v->ne[0] ||
        !rows_aligned(q, 4) || !rows_aligned(k, 2) || !rows_aligned(v, 2) || !rows_aligned(op, 4)) {
        return NULL;
    }
    switch (q->ne[0]) {
        case 64:  return "k_attn_rows_64";
        case 128: return "k_attn_rows_128";
        default:  return NULL;
    }
}

bool ggml_ocl_attn_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0];
    const struct ggml_tensor * k = op->src[1];
    const struct ggml_tensor * v = op->src[2];
    const struct ggml_tensor * mask  = op->src[3];
    const struct ggml_tensor * sinks = op->src[4];
    if (q == NULL || k == NULL || v == NULL || !ggml_ocl_type_is_float(op->type) || !ggml_ocl_type_is_float(q->type) ||
        !ggml_ocl_type_is_float(k->type) || !ggml_ocl_type_is_float(v->type)) {
        return false;
    }
    const int64_t DK = q->ne[0], N = q->ne[1], H = q->ne[2], B = q->ne[3];
    const int64_t DV = v->ne[0], KV = k->ne[1];
    if (k->ne[0] != DK || v->ne[1] != KV || k->ne[2] <= 0 || v->ne[2] <= 0 || k->ne[3] <= 0 || v->ne[3] <= 0 ||
        H % k->ne[2] != 0 || H % v->ne[2] != 0 || B % k->ne[3] != 0 || B % v->ne[3] != 0 ||
        op->ne[0] != DV || op->ne[1] != H || op->ne[2] != N || op->ne[3] != B || H > INT32_MAX) {
        return false;
    }
    if (mask != NULL && (!ggml_ocl_type_is_float(mask->type) || mask->ne[0] != KV || mask->ne[1] < N ||
                         mask->ne[2] <= 0 || mask->ne[3] <= 0 || H % mask->ne[2] != 0 || B % mask->ne[3] != 0)) {
        return false;
    }
    if (sinks != NULL && (!ggml_ocl_type_is_float(sinks->type) || !ggml_is_contiguous(sinks) || ggml_nelements(sinks) < H)) {
        return false;
    }
    // q row, output row and two work-group scratch arrays in local memory
    const size_t local = ggml_ocl_wg_size(d, ATTN_LOCAL);
    return (uint64_t) (DK + DV + 2*(int64_t) local)*sizeof(float) <= d->local_mem;
}

// the number of key spans per row for n_rows rows of kv keys (1: no split) and their length
static size_t attn_split(size_t n_rows, size_t kv, size_t local, size_t * span) {
    *span = kv;
    if (n_rows == 0 || kv <= local || n_rows >= ATTN_SPLIT_GROUPS) {
        return 1;
    }
    size_t n = (ATTN_SPLIT_GROUPS + n_rows - 1) / n_rows;
    const size_t tiles = (kv + local - 1) / local;
    n = n < tiles ? n : tiles;
    // spans of whole tiles of `local` keys; the last one may be shorter
    *span = (tiles + n - 1) / n * local;
    return (kv + *span - 1) / *span;
}

// whether k_flash_attn_tile takes this node (GPUs, enough query rows, heads that fit), only with
// GGML_OPENCL_ATTN_TILE=1: on an H100 it took 937 us per call of SmolLM2's 512-token prompt where
// k_flash_attn took 801 us, so it is not the default until it is tuned on a GPU
static bool use_tile(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    const char * env = getenv("GGML_OPENCL_ATTN_TILE");
    if (env == NULL || strcmp(env, "1") != 0) {
        return false;
    }
    const int64_t DK = op->src[0]->ne[0], N = op->src[0]->ne[1], DV = op->src[2]->ne[0];
    const uint64_t bytes = (uint64_t) (FA_Q*DK + FA_K*DK + FA_K*DV + FA_Q*FA_K)*sizeof(float);
    return !d->cpu_kernels && N >= FA_Q/2 && DK <= FA_DMAX && DV <= FA_DMAX && ggml_ocl_wg_size(d, FA_WG) == FA_WG &&
           bytes <= d->local_mem;
}

// the arguments every attention kernel starts with: q, k, v, mask, sinks, dst and the op's
// parameters
static void attn_common_args(struct ggml_ocl_args * a, const struct ggml_tensor * op, float max_bias, float m0,
                             float m1, int64_t n_head_log2) {
    const struct ggml_tensor * q = op->src[0];
    ggml_ocl_arg_tensor(a, q);
    ggml_ocl_arg_tensor(a, op->src[1]);
    ggml_ocl_arg_tensor(a, op->src[2]);
    ggml_ocl_arg_tensor_opt(a, op->src[3], q);
    ggml_ocl_arg_tensor_opt(a, op->src[4], q);
    ggml_ocl_arg_tensor(a, op);
    ggml_ocl_arg_f32(a, ggml_get_op_params_f32(op, 0));
    ggml_ocl_arg_f32(a, max_bias);
    ggml_ocl_arg_f32(a, m0);
    ggml_ocl_arg_f32(a, m1);
    ggml_ocl_arg_i32(a, (int32_t) n_head_log2);
    ggml_ocl_arg_f32(a, ggml_get_op_params_f32(op, 2));
    ggml_ocl_arg_i32(a, op->src[3] != NULL);
    ggml_ocl_arg_i32(a, op->src[4] != NULL);
}

enum ggml_status ggml_ocl_attn_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0];
    const size_t local = ggml_ocl_wg_size(be->dev, ATTN_LOCAL);
    const float max_bias = ggml_get_op_params_f32(op, 1);
    const int64_t n_head = q->ne[2];
    int64_t n_head_log2 = 1;
    while (n_head_log2*2 <= n_head) {
        n_head_log2 *= 2;
    }
    const float m0 = (float) pow(2.0, -(double) max_bias / (double) n_head_log2);
    const float m1 = (float) pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);

    const char * rows = rows_kernel(be->dev, op);
    if (rows != NULL && !ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ATTN_ROWS)) {
        rows = NULL;
    }
    const size_t n_rows = (size_t) (q->ne[1]*q->ne[2]*q->ne[3]);
    size_t n_split = 1, span = 0;
    const bool tile = rows == NULL && use_tile(be->dev, op);
    if (rows == NULL && !tile && !be->dev->cpu_kernels) {
        const size_t kv = (size_t) op->src[1]->ne[1];
        n_split = attn_split(n_rows, kv, local, &span);
    }
    cl_mem part = NULL;
    const size_t dv = (size_t) op->src[2]->ne[0];
    if (n_split > 1) {
        part = ggml_ocl_scratch(be, n_rows*n_split*(dv + 2)*sizeof(float));
        if (part == NULL) {
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    struct ggml_ocl_args a;
    if (tile) {
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ATTN, "k_flash_attn_tile")) {
            return GGML_STATUS_FAILED;
        }
        attn_common_args(&a, op, max_bias, m0, m1, n_head_log2);
        ggml_ocl_arg_local(&a, (size_t) (FA_Q*q->ne[0])*sizeof(float));
        ggml_ocl_arg_local(&a, (size_t) (FA_K*q->ne[0])*sizeof(float));
        ggml_ocl_arg_local(&a, (size_t) FA_K*dv*sizeof(float));
        const size_t n_qb = (size_t) ((q->ne[1] + FA_Q - 1) / FA_Q);
        return ggml_ocl_launch_groups(&a, n_qb*(size_t) (q->ne[2]*q->ne[3]), FA_WG);
    }
    const char * kname = rows != NULL ? rows : (n_split > 1 ? "k_flash_attn_split" : "k_flash_attn");
    if (!ggml_ocl_args_begin(&a, be, op, rows != NULL ? GGML_OCL_PROG_ATTN_ROWS : GGML_OCL_PROG_ATTN, kname)) {
        return GGML_STATUS_FAILED;
    }
    attn_common_args(&a, op, max_bias, m0, m1, n_head_log2);
    if (rows != NULL) {
        // one work-item per group: each is a whole row of work, and PoCL spreads groups over cores
        return ggml_ocl_launch_items(&a, n_rows, 1);
    }
    if (n_split > 1) {
        ggml_ocl_arg_raw(&a, sizeof(part), &part);
        ggml_ocl_arg_i64(&a, (int64_t) n_split);
        ggml_ocl_arg_i64(&a, (int64_t) span);
    }
    ggml_ocl_arg_local(&a, (size_t) q->ne[0]*sizeof(float));
    ggml_ocl_arg_local(&a, dv*sizeof(float));
    ggml_ocl_arg_local(&a, local*sizeof(float));
    ggml_ocl_arg_local(&a, local*sizeof(float));
    enum ggml_status st = ggml_ocl_launch_groups(&a, n_rows*n_split, local);
    if (st != GGML_STATUS_SUCCESS || n_split == 1) {
        return st;
    }
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_ATTN, "k_flash_attn_merge")) {
        return GGML_STATUS_FAILED;
    }
    attn_common_args(&a, op, max_bias, m0, m1, n_head_log2);
    ggml_ocl_arg_raw(&a, sizeof(part), &part);
    ggml_ocl_arg_i64(&a, (int64_t) n_split);
    return ggml_ocl_launch_groups(&a, n_rows, local);
}
