// Sequence-model ops (kernels/seq.cl): SSM_CONV, SSM_SCAN, SOLVE_TRI, GATED_DELTA_NET, RWKV_WKV6,
// GATED_LINEAR_ATTN and RWKV_WKV7, F32 only, every shape the op constructors make (sources
// through their strides where the constructors allow views). Semantics: tests/ref/ref-seq.c.

#include "ggml-opencl-impl.h"

#define SEQ_LOCAL 64

static bool seq_all_f32(const struct ggml_tensor * op, int n_src) {
    if (op->type != GGML_TYPE_F32 || !ggml_is_contiguous(op)) {
        return false;
    }
    for (int i = 0; i < n_src; i++) {
        if (op->src[i] == NULL || op->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

static bool ssm_conv_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 2)) {
        return false;
    }
    const struct ggml_tensor * sx = op->src[0], * c = op->src[1];
    return c->ne[0] >= 1 && c->ne[2] == 1 && c->ne[3] == 1 && sx->ne[3] == 1 && sx->ne[1] == c->ne[1] &&
           op->ne[0] == c->ne[1] && op->ne[1] == sx->ne[0] - c->ne[0] + 1 && op->ne[2] == sx->ne[2] && op->ne[3] == 1;
}

static bool ssm_scan_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 6) || op->src[6] == NULL || op->src[6]->type != GGML_TYPE_I32) {
        return false;
    }
    const struct ggml_tensor * s = op->src[0], * x = op->src[1], * dt = op->src[2], * A = op->src[3];
    const struct ggml_tensor * B = op->src[4], * C = op->src[5], * ids = op->src[6];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    const int64_t nc = s->ne[0], nr = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    return K >= 1 && s->ne[1] == nr && s->ne[2] == nh && s->ne[3] >= 1 &&
           dt->ne[0] == nh && dt->ne[1] == nt && dt->ne[2] == ns && dt->ne[3] == 1 &&
           A->ne[1] == nh && A->ne[2] == 1 && A->ne[3] == 1 && (A->ne[0] == 1 || (A->ne[0] == nc && K == 1)) &&
           ggml_are_same_shape(B, C) && B->ne[0] == nc && B->ne[1] >= 1 && nh % B->ne[1] == 0 && B->ne[2] == nt &&
           B->ne[3] == ns && ids->ne[0] == ns && ggml_nelements(ids) == ns &&
           ggml_nelements(op) == ggml_nelements(x) + K*nc*nr*nh*ns && K <= INT32_MAX &&
           A->nb[0] == sizeof(float) && B->nb[0] == sizeof(float) && C->nb[0] == sizeof(float);
}

static bool solve_tri_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 2)) {
        return false;
    }
    const struct ggml_tensor * a = op->src[0], * b = op->src[1];
    return a->ne[0] == a->ne[1] && b->ne[1] == a->ne[1] && b->ne[2] == a->ne[2] && b->ne[3] == a->ne[3] &&
           ggml_are_same_shape(op, b);
}

static bool gdn_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 6)) {
        return false;
    }
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2];
    const struct ggml_tensor * g = op->src[3], * beta = op->src[4], * st = op->src[5];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], ns = v->ne[3];
    // rows of q, k and g walked with unit stride
    return K >= 1 && ggml_are_same_shape(q, k) && q->nb[0] == sizeof(float) && k->nb[0] == sizeof(float) &&
           g->nb[0] == sizeof(float) &&
           q->ne[0] == S && q->ne[1] >= 1 && H % q->ne[1] == 0 && q->ne[2] == T && q->ne[3] >= 1 && ns % q->ne[3] == 0 &&
           (g->ne[0] == 1 || g->ne[0] == S) && g->ne[1] == H && g->ne[2] == T && g->ne[3] == ns &&
           beta->ne[0] == 1 && beta->ne[1] == H && beta->ne[2] == T && beta->ne[3] == ns &&
           st->ne[0] == S && st->ne[1] == S && st->ne[2] == H && st->ne[3] == ns &&
           op->ne[0] == S*H && op->ne[1] == T*ns + K*S*ns && op->ne[2] == 1 && op->ne[3] == 1;
}

// WKV6 (6 sources, tf in slot 3), GLA (5), WKV7 (7): token tensors [S, H, T], the state last,
// contiguous, S*S*H*n_seqs elements with n_seqs dividing T; tf (WKV6) contiguous, S*H elements
static bool rwkv_ok(const struct ggml_tensor * op, int n_src) {
    if (!seq_all_f32(op, n_src)) {
        return false;
    }
    const struct ggml_tensor * t0 = op->src[0], * st = op->src[n_src - 1];
    const int64_t S = t0->ne[0], H = t0->ne[1], T = t0->ne[2], n_seqs = st->ne[1];
    for (int i = 0; i < n_src - 1; i++) {
        const struct ggml_tensor * t = op->src[i];
        if (op->op == GGML_OP_RWKV_WKV6 && i == 3) {
            if (!ggml_is_contiguous(t) || ggml_nelements(t) != S*H) {
                return false;
            }
        } else if (t->ne[0] != S || t->ne[1] != H || t->ne[2] != T || t->ne[3] != 1) {
            return false;
        }
    }
    return ggml_is_contiguous(st) && n_seqs >= 1 && T % n_seqs == 0 && ggml_nelements(st) == S*S*H*n_seqs &&
           op->ne[0] == S*H && op->ne[1] == T + S*n_seqs && op->ne[2] == 1 && op->ne[3] == 1;
}

bool ggml_ocl_seq_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    (void) d;
    switch (op->op) {
        case GGML_OP_SSM_CONV:          return ssm_conv_ok(op);
        case GGML_OP_SSM_SCAN:          return ssm_scan_ok(op);
        case GGML_OP_SOLVE_TRI:         return solve_tri_ok(op);
        case GGML_OP_GATED_DELTA_NET:   return gdn_ok(op);
        case GGML_OP_RWKV_WKV6:         return rwkv_ok(op, 6);
        case GGML_OP_GATED_LINEAR_ATTN: return rwkv_ok(op, 5);
        case GGML_OP_RWKV_WKV7:         return rwkv_ok(op, 7);
        default:                        return false;
    }
}

enum seq_param { SEQ_PARAM_NONE, SEQ_PARAM_K, SEQ_PARAM_SCALE };

// the node's sources 0 .. n-1 and the node, then op_params[0] as K (int) or a scale (float)
static enum ggml_status run_items(struct ggml_ocl_backend * be, struct ggml_tensor * op, const char * kname, int n_src,
                                  enum seq_param param, int64_t n_items) {
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_SEQ, kname)) {
        return GGML_STATUS_FAILED;
    }
    for (int i = 0; i < n_src; i++) {
        ggml_ocl_arg_tensor(&a, op->src[i]);
    }
    ggml_ocl_arg_tensor(&a, op);
    if (param == SEQ_PARAM_K) {
        ggml_ocl_arg_i32(&a, ggml_get_op_params_i32(op, 0));
    } else if (param == SEQ_PARAM_SCALE) {
        ggml_ocl_arg_f32(&a, ggml_get_op_params_f32(op, 0));
    }
    return ggml_ocl_launch_items(&a, (size_t) n_items, ggml_ocl_wg_size(be->dev, SEQ_LOCAL));
}

enum ggml_status ggml_ocl_seq_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_SSM_CONV: {
            struct ggml_ocl_args a;
            if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_SEQ, "k_ssm_conv")) {
                return GGML_STATUS_FAILED;
            }
            ggml_ocl_arg_tensor(&a, op->src[0]);
            ggml_ocl_arg_tensor(&a, op->src[1]);
            ggml_ocl_arg_tensor(&a, op);
            // tokens along dim 0 for prompts, channels for a few tokens (generation)
            const bool t_major = op->ne[1] >= 16;
            ggml_ocl_arg_i32(&a, t_major);
            const size_t local = ggml_ocl_wg_size(be->dev, SEQ_LOCAL);
            const size_t n0 = (size_t) (t_major ? op->ne[1] : op->ne[0]), n1 = (size_t) (t_major ? op->ne[0] : op->ne[1]);
            const size_t global[3] = { (n0 + local - 1) / local * local, n1, (size_t) op->ne[2] };
            const size_t lsize[3] = { local, 1, 1 };
            return ggml_ocl_launch_nd(&a, 3, global, lsize);
        }
        case GGML_OP_SSM_SCAN: {
            const struct ggml_tensor * x = op->src[1];
            return run_items(be, op, "k_ssm_scan", 7, SEQ_PARAM_K, x->ne[0]*x->ne[1]*x->ne[3]);
        }
        case GGML_OP_SOLVE_TRI: {
            // 4 columns per work-item where they divide
            const bool x4 = op->ne[0] % 4 == 0;
            return run_items(be, op, x4 ? "k_solve_tri_x4" : "k_solve_tri", 2, SEQ_PARAM_NONE,
                             (x4 ? op->ne[0]/4 : op->ne[0])*op->ne[2]*op->ne[3]);
        }
        case GGML_OP_GATED_DELTA_NET: {
            const struct ggml_tensor * v = op->src[2];
            return run_items(be, op, "k_gated_delta_net", 6, SEQ_PARAM_K, v->ne[0]*v->ne[1]*v->ne[3]);
        }
        case GGML_OP_RWKV_WKV6:
        case GGML_OP_GATED_LINEAR_ATTN:
        case GGML_OP_RWKV_WKV7: {
            // a work-item per (state row or column, head, sequence); 4 of them per work-item (_x4)
            // when S % 4 == 0 and the token rows have unit stride
            const int n_src = op->op == GGML_OP_RWKV_WKV6 ? 6 : op->op == GGML_OP_GATED_LINEAR_ATTN ? 5 : 7;
            const struct ggml_tensor * t0 = op->src[0], * st = op->src[n_src - 1];
            bool x4 = t0->ne[0] % 4 == 0;
            for (int i = 0; i < n_src - 1; i++) {
                x4 = x4 && op->src[i]->nb[0] == sizeof(float);
            }
            const char * kname = op->op == GGML_OP_RWKV_WKV6 ? (x4 ? "k_rwkv_wkv6_x4" : "k_rwkv_wkv6") :
                                 op->op == GGML_OP_GATED_LINEAR_ATTN ? (x4 ? "k_gated_linear_attn_x4" : "k_gated_linear_attn") :
                                 (x4 ? "k_rwkv_wkv7_x4" : "k_rwkv_wkv7");
            const int64_t per_item = x4 && op->op != GGML_OP_RWKV_WKV7 ? 4 : 1;
            return run_items(be, op, kname, n_src, op->op == GGML_OP_GATED_LINEAR_ATTN ? SEQ_PARAM_SCALE : SEQ_PARAM_NONE,
                             t0->ne[0]/per_item*t0->ne[1]*st->ne[1]);
        }
        default:
            GGML_LOG_ERROR("%s: op %s is not a sequence op\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
