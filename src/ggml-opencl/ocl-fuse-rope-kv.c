// Fusion of a layer's attention inputs (ocl-fuse.c asks): ROPE of K, SET_ROWS of the roped K into
// the K cache, SET_ROWS of V into the V cache, ROPE of Q, in this order with only views between
// them (the order of the model runner's graphs for a generated token), run as one kernel
// (k_rope_kv_vec on CPU devices, k_rope_kv_pairs on GPU-shaped ones, kernels/rope.cl): one
// launch instead of four, and the roped K goes straight into the cache rows without its F32
// intermediate. Checked exactly; anything else computes node by node:
// - both ROPEs NORMAL or NEOX with the same parameters and positions, every dim of a head rotated,
//   no frequency factors, F32 with rows of unit element stride, results contiguous, ne3 == 1;
//   on CPU devices the head a multiple of 32 wide (k_rope_vec's condition);
// - the roped K read by the K store only (directly or through a contiguous reshape), by no later
//   node nor view, and not a graph output;
// - the stores: rows of the K and V heads' width (V as many heads of the same width), F32 rows of
//   unit element stride, F32 or F16 caches, one index tensor (I32 or I64) of a value per token;
// - what the kernel writes (Q's result and the caches) overlaps nothing it reads, except Q's
//   result on Q itself (in place, as the separate kernel allows).

#include "ggml-opencl-impl.h"

#include <math.h>
#include <string.h>

#define ROPE_KV_LOCAL 64

static bool skippable(const struct ggml_tensor * node) {
    if (node == NULL || (node->flags & GGML_TENSOR_FLAG_COMPUTE) == 0 || ggml_nelements(node) == 0) {
        return true;
    }
    switch (node->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;
        default:
            return false;
    }
}

// the index of the next node after j that computes, -1 when none
static int next_computing(struct ggml_cgraph * g, int j) {
    const int n = ggml_graph_n_nodes(g);
    for (j++; j < n; j++) {
        if (!skippable(ggml_graph_node(g, j))) {
            return j;
        }
    }
    return -1;
}

static bool f32_unit_rows(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float) && t->ne[3] == 1;
}

static bool rope_fits(const struct ggml_ocl_device * d, const struct ggml_tensor * r) {
    const struct ggml_tensor * a = r->src[0];
    const int n_dims = ggml_get_op_params_i32(r, 1);
    const int mode   = ggml_get_op_params_i32(r, 2);
    return r->op == GGML_OP_ROPE && a != NULL && r->src[2] == NULL && ggml_ocl_rope_supports(d, r) &&
           (mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX) && n_dims == a->ne[0] &&
           n_dims % (d->cpu_kernels ? 32 : 2) == 0 && f32_unit_rows(a) && f32_unit_rows(r) && ggml_is_contiguous(r);
}

// the cache side of a SET_ROWS: F32 / F16 rows of unit element stride, 2-D
static bool cache_fits(const struct ggml_tensor * st, int64_t width) {
    return (st->type == GGML_TYPE_F32 || st->type == GGML_TYPE_F16) && st->nb[0] == ggml_type_size(st->type) &&
           st->ne[0] == width && st->ne[2] == 1 && st->ne[3] == 1;
}

struct rope_kv {
    struct ggml_tensor * rk, * sk, * sv, * rq;
    int last; // index of the last node of the group (rq)
};

static bool rope_kv_fits(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i, struct rope_kv * f) {
    const struct ggml_ocl_device * d = be->dev;
    f->rk = ggml_graph_node(g, i);
    if (f->rk == NULL || skippable(f->rk) || !rope_fits(d, f->rk)) {
        return false;
    }
    const int isk = next_computing(g, i);
    const int isv = isk < 0 ? -1 : next_computing(g, isk);
    f->last = isv < 0 ? -1 : next_computing(g, isv);
    if (f->last < 0) {
        return false;
    }
    f->sk = ggml_graph_node(g, isk);
    f->sv = ggml_graph_node(g, isv);
    f->rq = ggml_graph_node(g, f->last);
    struct ggml_tensor * rk = f->rk, * sk = f->sk, * sv = f->sv, * rq = f->rq;
    if (sk->op != GGML_OP_SET_ROWS || sv->op != GGML_OP_SET_ROWS || !rope_fits(d, rq) ||
        memcmp(rk->op_params, rq->op_params, sizeof(rk->op_params)) != 0 || rk->src[1] != rq->src[1]) {
        return false;
    }
    // the K store reads the roped K (or its contiguous reshape) and nothing else does
    const struct ggml_tensor * kin = sk->src[0];
    const int64_t hd = rk->ne[0], n_tok = rk->ne[2], width = hd * rk->ne[1];
    if (!(kin == rk || (kin->view_src == rk && kin->view_offs == 0 && ggml_is_contiguous(kin))) ||
        kin->ne[0] != width || kin->ne[1] != n_tok || kin->ne[2] != 1 || kin->ne[3] != 1 ||
        (rk->flags & GGML_TENSOR_FLAG_OUTPUT) != 0 || (kin->flags & GGML_TENSOR_FLAG_OUTPUT) != 0 ||
        ggml_ocl_fuse_read_after(g, isk + 1, rk)) {
        return false;
    }
    // Q's tokens and the stores' rows and indices
    const struct ggml_tensor * v = sv->src[0], * idx = sk->src[1];
    if (rq->ne[0] != hd || rq->ne[2] != n_tok || sv->src[1] != idx || idx == NULL ||
        (idx->type != GGML_TYPE_I32 && idx->type != GGML_TYPE_I64) || !ggml_is_contiguous(idx) ||
        ggml_nelements(idx) != n_tok || idx->ne[0] != n_tok || !f32_unit_rows(v) || v->ne[0] % hd != 0 || v->ne[1] != n_tok || v->ne[2] != 1 ||
        !cache_fits(sk, width) || !cache_fits(sv, v->ne[0])) {
        return false;
    }
    // what the kernel writes against what it reads
    const struct ggml_tensor * reads[5] = { rq->src[0], rk->src[0], v, rk->src[1], idx };
    const struct ggml_tensor * writes[3] = { rq, sk, sv };
    for (int w = 0; w < 3; w++) {
        for (int r = 0; r < 5; r++) {
            const bool q_in_place = w == 0 && r == 0 && ggml_ocl_same_memory(rq, rq->src[0]) &&
                                    memcmp(rq->nb, rq->src[0]->nb, sizeof(rq->nb)) == 0;
            if (ggml_ocl_fuse_overlap(writes[w], reads[r]) && !q_in_place) {
                return false;
            }
        }
    }
    return !ggml_ocl_fuse_overlap(sk, sv) && !ggml_ocl_fuse_overlap(sk, rq) && !ggml_ocl_fuse_overlap(sv, rq) &&
           ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ROPE);
}

static double corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * log((double) n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * log(base));
}

static enum ggml_status run_rope_kv(struct ggml_ocl_backend * be, const struct rope_kv * f) {
    const struct ggml_tensor * rk = f->rk;
    const int   n_dims      = ggml_get_op_params_i32(rk, 1);
    const int   mode        = ggml_get_op_params_i32(rk, 2);
    const int   n_ctx_orig  = ggml_get_op_params_i32(rk, 4);
    const float freq_base   = ggml_get_op_params_f32(rk, 5);
    // the YaRN range and theta scale as ggml_ocl_rope_compute derives them
    const double start = floor(corr_dim(n_dims, n_ctx_orig, ggml_get_op_params_f32(rk, 9), freq_base));
    const double end   = ceil (corr_dim(n_dims, n_ctx_orig, ggml_get_op_params_f32(rk, 10), freq_base));
    const float corr0 = (float) (start > 0.0 ? start : 0.0);
    const float corr1 = (float) (end < n_dims - 1 ? end : n_dims - 1);
    const float log2_theta_scale = (float) (-2.0 / n_dims * log2((double) freq_base));

    const bool gpu = !be->dev->cpu_kernels;
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, rk, GGML_OCL_PROG_ROPE, gpu ? "k_rope_kv_pairs" : "k_rope_kv_vec")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, f->rq->src[0]);
    ggml_ocl_arg_tensor(&a, f->rq);
    ggml_ocl_arg_tensor(&a, rk->src[0]);
    ggml_ocl_arg_tensor(&a, f->sk);
    ggml_ocl_arg_tensor(&a, f->sv->src[0]);
    ggml_ocl_arg_tensor(&a, f->sv);
    ggml_ocl_arg_tensor(&a, rk->src[1]);
    ggml_ocl_arg_tensor(&a, f->sk->src[1]);
    ggml_ocl_arg_i32(&a, n_dims);
    ggml_ocl_arg_i32(&a, mode);
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(rk, 6));
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(rk, 7));
    ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(rk, 8));
    ggml_ocl_arg_f32(&a, corr0);
    ggml_ocl_arg_f32(&a, corr1);
    ggml_ocl_arg_f32(&a, log2_theta_scale);
    const size_t n_pairs = (size_t) n_dims / 2, n_tok = (size_t) rk->ne[2];
    if (gpu) {
        const int64_t hd = rk->ne[0];
        const size_t heads = (size_t) (f->rq->ne[1] + rk->ne[1] + f->sv->src[0]->ne[0] / hd);
        const size_t l0 = ggml_ocl_wg_size(be->dev, n_pairs < ROPE_KV_LOCAL ? n_pairs : ROPE_KV_LOCAL);
        const size_t global[3] = { (n_pairs + l0 - 1) / l0 * l0, heads, n_tok };
        const size_t local[3] = { l0, 1, 1 };
        return ggml_ocl_launch_nd(&a, 3, global, local);
    }
    const size_t global[3] = { n_pairs / 16, n_tok, 3 };
    return ggml_ocl_launch_nd(&a, 3, global, NULL);
}

int ggml_ocl_fuse_rope_kv(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i, enum ggml_status * status) {
    struct rope_kv f;
    if (!rope_kv_fits(be, g, i, &f)) {
        return 0;
    }
    *status = run_rope_kv(be, &f);
    return f.last - i + 1;
}
