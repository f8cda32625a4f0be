// ggml_build_backward_expand: appends to a forward graph the nodes that compute the gradient of
// the loss (the tensors flagged GGML_TENSOR_FLAG_LOSS) with respect to every trainable parameter
// (GGML_TENSOR_FLAG_PARAM), by reverse-mode differentiation over the graph's nodes.
//
// The gradient of a node is kept in cgraph->grads at the node's hash slot; a node with a
// gradient accumulator (cgraph->grad_accs: the loss, or what the caller passes) accumulates into
// it in place. The rules per op are the family's (which ops have gradients, and through which
// sources), plus CUMSUM, DIAG, TRI and SOFT_MAX's sinks, which the family lacks; an op with no rule is logged and its
// sources get no gradient from it.

#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

struct bw_state {
    struct ggml_context * ctx;
    struct ggml_cgraph  * g;
    bool                * needed; // per hash slot: the tensor's gradient is wanted
    bool                  ok;     // false after a constructor failed
};

// slot of t when t is in the graph and needs a gradient, else GGML_HASHSET_FULL
static size_t bw_slot_needing(const struct bw_state * st, const struct ggml_tensor * t) {
    if (t == NULL) {
        return GGML_HASHSET_FULL;
    }
    const struct ggml_hash_set * hs = &st->g->visited_hash_set;
    const size_t i = ggml_hash_find(hs, t);
    if (i == GGML_HASHSET_FULL || !ggml_bitset_get(hs->used, i) || !st->needed[i]) {
        return GGML_HASHSET_FULL;
    }
    return i;
}

// stores the new gradient of slot i and adds it to the graph
static void bw_store(struct bw_state * st, size_t i, struct ggml_tensor * grad) {
    if (grad == NULL) {
        st->ok = false;
        return;
    }
    st->g->grads[i] = grad;
    ggml_format_name(grad, "grad for %s", st->g->visited_hash_set.keys[i]->name);
    ggml_build_forward_expand(st->g, grad);
}

enum bw_mode {
    BW_ADD,  // gradient += t
    BW_SUB,  // gradient -= t
    BW_ADD1, // gradient += t (a scalar, broadcast over the source)
};

static void bw_accumulate(struct bw_state * st, const struct ggml_tensor * src, struct ggml_tensor * t, enum bw_mode mode) {
    const size_t i = bw_slot_needing(st, src);
    if (i == GGML_HASHSET_FULL) {
        return;
    }
    if (t == NULL) {
        st->ok = false;
        return;
    }
    struct ggml_context * ctx = st->ctx;
    struct ggml_tensor * prev = st->g->grads[i];
    const bool inplace = st->g->grad_accs[i] != NULL; // accumulators are updated in place
    struct ggml_tensor * src_key = st->g->visited_hash_set.keys[i];
    struct ggml_tensor * next = NULL;
    switch (mode) {
        case BW_ADD:
            next = prev == NULL ? t : inplace ? ggml_add_inplace(ctx, prev, t) : ggml_add(ctx, prev, t);
            break;
        case BW_SUB:
            next = prev == NULL ? ggml_neg(ctx, t) : inplace ? ggml_sub_inplace(ctx, prev, t) : ggml_sub(ctx, prev, t);
            break;
        case BW_ADD1:
            next = prev == NULL ? ggml_repeat(ctx, t, src_key) : inplace ? ggml_add1_inplace(ctx, prev, t) : ggml_add1(ctx, prev, t);
            break;
    }
    bw_store(st, i, next);
}

// the gradient of a view: t added into a zero tensor shaped like src at the view's place
static void bw_accumulate_view(struct bw_state * st, const struct ggml_tensor * src, struct ggml_tensor * t,
        size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    const size_t i = bw_slot_needing(st, src);
    if (i == GGML_HASHSET_FULL) {
        return;
    }
    struct ggml_context * ctx = st->ctx;
    struct ggml_tensor * prev = st->g->grads[i];
    struct ggml_tensor * next;
    if (prev != NULL) {
        next = st->g->grad_accs[i] != NULL ? ggml_acc_inplace(ctx, prev, t, nb1, nb2, nb3, offset)
                                           : ggml_acc(ctx, prev, t, nb1, nb2, nb3, offset);
    } else {
        struct ggml_tensor * zero = ggml_scale(ctx, st->g->visited_hash_set.keys[i], 0.0f);
        next = zero != NULL ? ggml_acc(ctx, zero, t, nb1, nb2, nb3, offset) : NULL;
    }
    bw_store(st, i, next);
}

static void bw_unary(struct bw_state * st, struct ggml_tensor * node, struct ggml_tensor * grad) {
    struct ggml_context * ctx = st->ctx;
    struct ggml_tensor * x = node->src[0];
    switch (ggml_get_unary_op(node)) {
        case GGML_UNARY_OP_ABS:      bw_accumulate(st, x, ggml_mul(ctx, ggml_sgn(ctx, x), grad), BW_ADD); break;
        case GGML_UNARY_OP_NEG:      bw_accumulate(st, x, grad, BW_SUB); break;
        case GGML_UNARY_OP_RELU:     bw_accumulate(st, x, ggml_mul(ctx, ggml_step(ctx, x), grad), BW_ADD); break;
        case GGML_UNARY_OP_SILU:     bw_accumulate(st, x, ggml_silu_back(ctx, grad, x), BW_ADD); break;
        case GGML_UNARY_OP_EXP:      bw_accumulate(st, x, ggml_mul(ctx, node, grad), BW_ADD); break;
        case GGML_UNARY_OP_EXPM1:    bw_accumulate(st, x, ggml_mul(ctx, grad, ggml_exp(ctx, x)), BW_ADD); break;
        case GGML_UNARY_OP_SOFTPLUS: bw_accumulate(st, x, ggml_mul(ctx, grad, ggml_sigmoid(ctx, x)), BW_ADD); break;
        case GGML_UNARY_OP_SGN:
        case GGML_UNARY_OP_STEP:
            break; // piecewise constant: no gradient
        default:
            GGML_LOG_ERROR("ggml_build_backward_expand: no gradient for unary op %s (node '%s')\n",
                    ggml_unary_op_name(ggml_get_unary_op(node)), node->name);
            break;
    }
}

// d(a x b)/da = out_prod(b, grad) summed over the broadcast of a; d/db = out_prod(a, grad^T)
static void bw_mul_mat(struct bw_state * st, struct ggml_tensor * node, struct ggml_tensor * grad) {
    struct ggml_context * ctx = st->ctx;
    struct ggml_tensor * a = node->src[0];
    struct ggml_tensor * b = node->src[1];
    if (bw_slot_needing(st, a) != GGML_HASHSET_FULL) {
        struct ggml_tensor * t = ggml_out_prod(ctx, b, grad);
        if (t != NULL && !ggml_are_same_shape(t, a)) {
            if (t->ne[3] != 1 || a->ne[2] == 0 || t->ne[2] % a->ne[2] != 0) {
                GGML_LOG_ERROR("ggml_build_backward_expand: MUL_MAT '%s': no gradient for a broadcast over dim 3\n", node->name);
                st->ok = false;
                return;
            }
            // the broadcast copies of a along dim 2 become a new dim 3 that repeat_back sums
            const int64_t nr2 = t->ne[2] / a->ne[2];
            t = ggml_view_4d(ctx, t, a->ne[0], a->ne[1], a->ne[2], nr2, t->nb[1], t->nb[2]*nr2, t->nb[2], 0);
            t = t != NULL ? ggml_repeat_back(ctx, t, a) : NULL;
        }
        bw_accumulate(st, a, t, BW_ADD);
    }
    if (bw_slot_needing(st, b) != GGML_HASHSET_FULL) {
        bw_accumulate(st, b, ggml_out_prod(ctx, a, ggml_transpose(ctx, grad)), BW_ADD);
    }
}

// SOFT_MAX's sinks (a rule the family lacks): with y_i = exp(w_i)/(sum_j exp(w_j) + exp(s_h)),
// dy_i/ds_h = -y_i*p with p = exp(s_h)/(...) = 1 - sum_j y_j, so each row adds
// -p*dot(dy, y) to its head's sink; the rows of a head are those of all i1 and i3.
static void bw_soft_max_sinks(struct bw_state * st, struct ggml_tensor * node, struct ggml_tensor * grad) {
    struct ggml_tensor * sinks = node->src[2];
    if (bw_slot_needing(st, sinks) == GGML_HASHSET_FULL) {
        return;
    }
    const int64_t n1 = node->ne[1], n2 = node->ne[2], n3 = node->ne[3];
    if (ggml_nelements(sinks) != n2) {
        GGML_LOG_ERROR("ggml_build_backward_expand: SOFT_MAX '%s': no gradient for %lld sinks of %lld heads\n",
                node->name, (long long) ggml_nelements(sinks), (long long) n2);
        return;
    }
    struct ggml_context * ctx = st->ctx;
    struct ggml_tensor * dot  = ggml_sum_rows(ctx, ggml_mul(ctx, grad, node));            // [1, n1, n2, n3]
    struct ggml_tensor * p    = ggml_scale_bias(ctx, ggml_sum_rows(ctx, node), -1.0f, 1.0f);
    struct ggml_tensor * rows = ggml_reshape_3d(ctx, ggml_mul(ctx, dot, p), n1, n2, n3);
    struct ggml_tensor * per  = ggml_reshape_2d(ctx, ggml_sum_rows(ctx, rows), n2, n3); // summed over i1
    if (n3 > 1) {
        per = ggml_reshape_2d(ctx, ggml_sum_rows(ctx, ggml_cont(ctx, ggml_transpose(ctx, per))), n2, 1);
    }
    bw_accumulate(st, sinks, ggml_reshape(ctx, per, sinks), BW_SUB);
}

static void bw_node(struct bw_state * st, struct ggml_tensor * node) {
    struct ggml_tensor * grad = ggml_graph_get_grad(st->g, node);
    if (grad == NULL) {
        return;
    }
    struct ggml_context * ctx = st->ctx;
    struct ggml_tensor * s0 = node->src[0];
    struct ggml_tensor * s1 = node->src[1];
    const bool need1 = bw_slot_needing(st, s1) != GGML_HASHSET_FULL;
    switch (node->op) {
        case GGML_OP_DUP:
            bw_accumulate(st, s0, grad, BW_ADD);
            break;
        case GGML_OP_ADD:
            bw_accumulate(st, s0, grad, BW_ADD);
            if (need1) {
                bw_accumulate(st, s1, ggml_are_same_shape(s0, s1) ? grad : ggml_repeat_back(ctx, grad, s1), BW_ADD);
            }
            break;
        case GGML_OP_ADD1:
            bw_accumulate(st, s0, grad, BW_ADD);
            if (need1) {
                // d/db of a + b (b a scalar) is the sum of grad (the family takes the row mean here)
                bw_accumulate(st, s1, ggml_sum(ctx, grad), BW_ADD);
            }
            break;
        case GGML_OP_ACC: {
            bw_accumulate(st, s0, grad, BW_ADD);
            if (need1) {
                const int32_t * p = node->op_params;
                struct ggml_tensor * v = ggml_view_4d(ctx, grad, s1->ne[0], s1->ne[1], s1->ne[2], s1->ne[3],
                        (size_t) p[0], (size_t) p[1], (size_t) p[2], (size_t) p[3]);
                bw_accumulate(st, s1, v != NULL ? ggml_reshape(ctx, ggml_cont(ctx, v), s1) : NULL, BW_ADD);
            }
        } break;
        case GGML_OP_SET: {
            // b written over a region of a: a's gradient is grad with that region zeroed, b's the region
            const int32_t * p = node->op_params;
            struct ggml_tensor * v = ggml_view_4d(ctx, grad, s1->ne[0], s1->ne[1], s1->ne[2], s1->ne[3],
                    (size_t) p[0], (size_t) p[1], (size_t) p[2], (size_t) p[3]);
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                struct ggml_tensor * hole = v != NULL ? ggml_acc(ctx, grad, ggml_neg(ctx, v), (size_t) p[0], (size_t) p[1],
                        (size_t) p[2], (size_t) p[3]) : NULL;
                bw_accumulate(st, s0, hole, BW_ADD);
            }
            if (need1) {
                bw_accumulate(st, s1, v != NULL ? ggml_reshape(ctx, ggml_cont(ctx, v), s1) : NULL, BW_ADD);
            }
        } break;
        case GGML_OP_SUB:
            bw_accumulate(st, s0, grad, BW_ADD);
            if (need1) {
                bw_accumulate(st, s1, grad, BW_SUB);
            }
            break;
        case GGML_OP_MUL:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_mul(ctx, grad, s1), BW_ADD);
            }
            if (need1) {
                struct ggml_tensor * t = ggml_mul(ctx, s0, grad);
                bw_accumulate(st, s1, t != NULL && !ggml_are_same_shape(s0, s1) ? ggml_repeat_back(ctx, t, s1) : t, BW_ADD);
            }
            break;
        case GGML_OP_DIV:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_div(ctx, grad, s1), BW_ADD);
            }
            if (need1) {
                bw_accumulate(st, s1, ggml_mul(ctx, grad, ggml_div(ctx, node, s1)), BW_SUB);
            }
            break;
        case GGML_OP_SQR:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_scale(ctx, ggml_mul(ctx, s0, grad), 2.0f), BW_ADD);
            }
            break;
        case GGML_OP_SQRT:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_scale(ctx, ggml_div(ctx, grad, node), 0.5f), BW_ADD);
            }
            break;
        case GGML_OP_LOG:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_div(ctx, grad, s0), BW_ADD);
            }
            break;
        case GGML_OP_SIN:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_mul(ctx, grad, ggml_cos(ctx, s0)), BW_ADD);
            }
            break;
        case GGML_OP_COS:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_mul(ctx, grad, ggml_sin(ctx, s0)), BW_SUB);
            }
            break;
        case GGML_OP_SUM:
            bw_accumulate(st, s0, grad, BW_ADD1);
            break;
        case GGML_OP_SUM_ROWS:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_repeat(ctx, grad, s0), BW_ADD);
            }
            break;
        case GGML_OP_MEAN:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_scale(ctx, grad, 1.0f/(float) s0->ne[0]), BW_ADD1);
            }
            break;
        case GGML_OP_REPEAT:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_repeat_back(ctx, grad, s0), BW_ADD);
            }
            break;
        case GGML_OP_REPEAT_BACK:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_repeat(ctx, grad, s0), BW_ADD);
            }
            break;
        case GGML_OP_RMS_NORM:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_rms_norm_back(ctx, grad, s0, ggml_get_op_params_f32(node, 0)), BW_ADD);
            }
            break;
        case GGML_OP_MUL_MAT:
            bw_mul_mat(st, node, grad);
            break;
        case GGML_OP_SCALE:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_scale(ctx, grad, ggml_get_op_params_f32(node, 0)), BW_ADD);
            }
            break;
        case GGML_OP_CPY: // the target's old values do not reach the result
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_reshape(ctx, grad, s0), BW_ADD);
            }
            break;
        case GGML_OP_CONT:
        case GGML_OP_RESHAPE:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                struct ggml_tensor * c = ggml_is_contiguous(grad) ? grad : ggml_cont(ctx, grad);
                bw_accumulate(st, s0, c != NULL && !ggml_are_same_shape(c, s0) ? ggml_reshape(ctx, c, s0) : c, BW_ADD);
            }
            break;
        case GGML_OP_VIEW: {
            size_t offset;
            memcpy(&offset, node->op_params, sizeof(offset));
            bw_accumulate_view(st, s0, grad, node->nb[1], node->nb[2], node->nb[3], offset);
        } break;
        case GGML_OP_PERMUTE: {
            int back[4];
            for (int k = 0; k < 4; k++) {
                back[node->op_params[k] & 3] = k; // the inverse permutation
            }
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_permute(ctx, grad, back[0], back[1], back[2], back[3]), BW_ADD);
            }
        } break;
        case GGML_OP_TRANSPOSE:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_transpose(ctx, grad), BW_ADD);
            }
            break;
        case GGML_OP_GET_ROWS:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_get_rows_back(ctx, grad, s1, s0), BW_ADD);
            }
            break;
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_diag_mask_zero(ctx, grad, node->op_params[0]), BW_ADD);
            }
            break;
        case GGML_OP_SOFT_MAX:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_soft_max_ext_back(ctx, grad, node, ggml_get_op_params_f32(node, 0),
                        ggml_get_op_params_f32(node, 1)), BW_ADD);
            }
            if (need1) {
                GGML_LOG_ERROR("ggml_build_backward_expand: SOFT_MAX '%s': no gradient for the mask\n", node->name);
            }
            bw_soft_max_sinks(st, node, grad);
            break;
        case GGML_OP_ROPE:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                // the same op_params, rotating by the opposite angles
                const int32_t * p = node->op_params;
                int sections[GGML_MROPE_SECTIONS];
                memcpy(sections, p + 11, sizeof(sections));
                float f[6];
                memcpy(f, p + 5, sizeof(f));
                struct ggml_tensor * back = grad->ne[2] == s1->ne[0]
                    ? ggml_rope_ext_back(ctx, grad, s1, node->src[2], p[1], p[2], p[4], f[0], f[1], f[2], f[3], f[4], f[5])
                    : ggml_rope_multi_back(ctx, grad, s1, node->src[2], p[1], sections, p[2], p[4], f[0], f[1], f[2], f[3], f[4], f[5]);
                bw_accumulate(st, s0, back, BW_ADD);
            }
            break;
        case GGML_OP_IM2COL:
            // the data's gradient (the kernel only gives the shape)
            if (need1) {
                const int32_t * p = node->op_params;
                bw_accumulate(st, s1, ggml_im2col_back(ctx, grad, s0, s1->ne, p[0], p[1], p[2], p[3], p[4], p[5], p[6] == 1),
                        BW_ADD);
            }
            break;
        case GGML_OP_POOL_2D:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                const int32_t * p = node->op_params;
                bw_accumulate(st, s0, ggml_pool_2d_back(ctx, grad, s0, (enum ggml_op_pool) p[0], p[1], p[2], p[3], p[4],
                        (float) p[5], (float) p[6]), BW_ADD);
            }
            break;
        // three rules the family lacks (its backward pass aborts on these ops), each a composition of
        // ops that have CPU kernels
        case GGML_OP_CUMSUM:
            // y_i = sum_{j<=i} x_j along dim 0: dx_i = sum_{j>=i} dy_j = row total - cumsum(dy)_i + dy_i
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                struct ggml_tensor * total = ggml_repeat(ctx, ggml_sum_rows(ctx, grad), grad);
                bw_accumulate(st, s0, ggml_add(ctx, ggml_sub(ctx, total, ggml_cumsum(ctx, grad)), grad), BW_ADD);
            }
            break;
        case GGML_OP_DIAG:
            // y[i, i] = x[i] (x one row per matrix): dx[i] = dy[i, i], read through a view that steps
            // one row and one element at a time
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                struct ggml_tensor * d = ggml_view_4d(ctx, grad, 1, grad->ne[1], grad->ne[2], grad->ne[3],
                        grad->nb[1] + grad->nb[0], grad->nb[2], grad->nb[3], 0);
                bw_accumulate(st, s0, ggml_reshape(ctx, ggml_cont(ctx, d), s0), BW_ADD);
            }
            break;
        case GGML_OP_TRI:
            // a fixed triangle of x is kept: dx is the same triangle of dy
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_tri(ctx, grad, (enum ggml_tri_type) ggml_get_op_params_i32(node, 0)), BW_ADD);
            }
            break;
        case GGML_OP_UNARY:
            bw_unary(st, node, grad);
            break;
        case GGML_OP_CROSS_ENTROPY_LOSS:
            if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                bw_accumulate(st, s0, ggml_cross_entropy_loss_back(ctx, grad, s0, s1), BW_ADD);
            }
            if (need1) {
                GGML_LOG_ERROR("ggml_build_backward_expand: CROSS_ENTROPY_LOSS '%s': no gradient for the labels\n", node->name);
            }
            break;
        case GGML_OP_GLU:
            if (ggml_get_glu_op(node) == GGML_GLU_OP_SWIGLU && s1 != NULL) {
                if (bw_slot_needing(st, s0) != GGML_HASHSET_FULL) {
                    bw_accumulate(st, s0, ggml_silu_back(ctx, ggml_mul(ctx, grad, s1), s0), BW_ADD);
                }
                if (need1) {
                    bw_accumulate(st, s1, ggml_mul(ctx, ggml_silu(ctx, s0), grad), BW_ADD);
                }
            } else {
                GGML_LOG_ERROR("ggml_build_backward_expand: no gradient for %s (node '%s'; only split SWIGLU has one)\n",
                        ggml_op_desc(node), node->name);
            }
            break;
        case GGML_OP_NONE:
            break; // parameters: nothing below them
        default:
            GGML_LOG_ERROR("ggml_build_backward_expand: no gradient for op %s (node '%s')\n", ggml_op_desc(node), node->name);
            break;
    }
}

// which nodes need a gradient: the parameters, the losses, and every float node that depends on
// a parameter (through a source that carries a gradient)
static bool bw_mark_needed(struct bw_state * st, struct ggml_tensor ** grad_accs, int n_nodes) {
    struct ggml_cgraph * g = st->g;
    for (int i = 0; i < n_nodes; i++) {
        struct ggml_tensor * node = g->nodes[i];
        if (node->type == GGML_TYPE_I32) {
            continue;
        }
        bool needs = (node->flags & (GGML_TENSOR_FLAG_PARAM | GGML_TENSOR_FLAG_LOSS)) != 0;
        for (int j = 0; j < GGML_MAX_SRC && !needs; j++) {
            // sources whose gradient cannot reach the result
            const bool ignored =
                (j == 0 && (node->op == GGML_OP_IM2COL || node->op == GGML_OP_IM2COL_BACK)) ||
                (j == 0 && node->op == GGML_OP_UNARY &&
                    (ggml_get_unary_op(node) == GGML_UNARY_OP_SGN || ggml_get_unary_op(node) == GGML_UNARY_OP_STEP)) ||
                (j == 1 && (node->op == GGML_OP_CPY || node->op == GGML_OP_GET_ROWS ||
                            node->op == GGML_OP_GET_ROWS_BACK || node->op == GGML_OP_ROPE));
            if (node->src[j] != NULL && !ignored && bw_slot_needing(st, node->src[j]) != GGML_HASHSET_FULL) {
                needs = true;
            }
        }
        if (!needs) {
            continue;
        }
        if (node->view_src != NULL && node->op != GGML_OP_CPY && node->op != GGML_OP_VIEW && node->op != GGML_OP_RESHAPE &&
            node->op != GGML_OP_PERMUTE && node->op != GGML_OP_TRANSPOSE) {
            GGML_LOG_ERROR("ggml_build_backward_expand: node '%s' (%s) is computed in place; in-place ops have no gradient\n",
                    node->name, ggml_op_desc(node));
            return false;
        }
        const size_t slot = ggml_hash_find(&g->visited_hash_set, node);
        if (slot == GGML_HASHSET_FULL || !ggml_bitset_get(g->visited_hash_set.used, slot)) {
            GGML_LOG_ERROR("ggml_build_backward_expand: node '%s' is not in the graph's hash set\n", node->name);
            return false;
        }
        if (grad_accs != NULL && grad_accs[i] != NULL) {
            g->grad_accs[slot] = grad_accs[i];
            g->grads[slot]     = grad_accs[i];
        } else if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            struct ggml_tensor * acc = ggml_new_tensor(st->ctx, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
            if (acc == NULL) {
                GGML_LOG_ERROR("ggml_build_backward_expand: no room for the loss gradient of '%s'\n", node->name);
                return false;
            }
            g->grad_accs[slot] = acc;
            g->grads[slot]     = acc;
        }
        st->needed[slot] = true;
    }
    return true;
}

void ggml_build_backward_expand(struct ggml_context * ctx, struct ggml_cgraph * cgraph, struct ggml_tensor ** grad_accs) {
    if (ctx == NULL || cgraph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, ctx == NULL ? "ctx" : "cgraph");
        return;
    }
    if (cgraph->grads == NULL || cgraph->grad_accs == NULL) {
        GGML_LOG_ERROR("%s: the graph has no room for gradients (create it with ggml_new_graph_custom(..., grads = true))\n", __func__);
        return;
    }
    const int n_nodes = cgraph->n_nodes;
    bool any_param = false, any_loss = false;
    for (int i = 0; i < n_nodes; i++) {
        any_param = any_param || (cgraph->nodes[i]->flags & GGML_TENSOR_FLAG_PARAM);
        any_loss  = any_loss  || (cgraph->nodes[i]->flags & GGML_TENSOR_FLAG_LOSS);
    }
    if (!any_param || !any_loss) {
        GGML_LOG_ERROR("%s: the graph has no %s (see %s)\n", __func__, !any_param ? "trainable parameter" : "loss",
                !any_param ? "ggml_set_param" : "ggml_set_loss");
        return;
    }
    const size_t hs = cgraph->visited_hash_set.size;
    memset(cgraph->grads,     0, hs*sizeof(struct ggml_tensor *));
    memset(cgraph->grad_accs, 0, hs*sizeof(struct ggml_tensor *));
    struct bw_state st = { ctx, cgraph, calloc(hs, sizeof(bool)), true };
    if (st.needed == NULL) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return;
    }
    if (bw_mark_needed(&st, grad_accs, n_nodes)) {
        for (int i = n_nodes - 1; i >= 0 && st.ok; i--) {
            bw_node(&st, cgraph->nodes[i]);
        }
        if (!st.ok) {
            GGML_LOG_ERROR("%s: a gradient node could not be created (context full?); the gradients are incomplete\n", __func__);
        }
    }
    free(st.needed);
}
