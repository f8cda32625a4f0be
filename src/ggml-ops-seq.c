// Op constructors of issue 22's "seq" group: the sequence-model ops SSM_CONV, SSM_SCAN, RWKV_WKV6,
// GATED_LINEAR_ATTN, RWKV_WKV7, SOLVE_TRI and GATED_DELTA_NET. Shapes, sources and op_params as
// the ggml family lays them out (semantics: tests/ref/ref-seq.c); bad input gives NULL and a
// logged message.

#include "ggml-ops-internal.h"

// every named argument present and F32
static bool seq_f32_args(const char * func, int n, const char * const * names, struct ggml_tensor * const * ts) {
    for (int i = 0; i < n; i++) {
        if (ts[i] == NULL) {
            GGML_LOG_ERROR("%s: argument '%s' is NULL\n", func, names[i]);
            return false;
        }
        if (ts[i]->type != GGML_TYPE_F32) {
            ggml_error_report_func(GGML_ERROR_OK, func, "%s must be F32, not %s", names[i], ggml_type_name(ts[i]->type));
            return false;
        }
    }
    return true;
}

struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c) {
    GGML_OPS_CHECK_ARG(ctx);
    const char * names[] = { "sx", "c" };
    struct ggml_tensor * ts[] = { sx, c };
    if (!seq_f32_args(__func__, 2, names, ts)) {
        return NULL;
    }
    GGML_OPS_CHECK(ggml_is_3d(sx), "sx " GGML_OPS_NE_FMT " must be 3-d", GGML_OPS_NE_ARGS(sx));
    GGML_OPS_CHECK(ggml_is_matrix(c), "c " GGML_OPS_NE_FMT " must be a matrix", GGML_OPS_NE_ARGS(c));
    GGML_OPS_CHECK(sx->ne[1] == c->ne[1], "sx " GGML_OPS_NE_FMT " and c " GGML_OPS_NE_FMT " must have the same ne[1] (d_inner)",
            GGML_OPS_NE_ARGS(sx), GGML_OPS_NE_ARGS(c));
    GGML_OPS_CHECK(c->ne[0] >= 1 && sx->ne[0] >= c->ne[0] - 1,
            "sx rows (%lld) must hold d_conv - 1 = %lld columns and more", (long long) sx->ne[0], (long long) c->ne[0] - 1);
    const int64_t n_t = sx->ne[0] - c->ne[0] + 1;
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, c->ne[1], n_t, sx->ne[2], 1);
    return result ? ggml_ops_node(result, GGML_OP_SSM_CONV, sx, c, NULL) : NULL;
}

// dims 0 and 1 packed (the scan reads each token's [ne0, ne1] block as one array)
static bool seq_packed01(const struct ggml_tensor * t) {
    return t->nb[0] == sizeof(float) && t->nb[1] == (size_t) t->ne[0]*sizeof(float);
}

struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
        struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B, struct ggml_tensor * C,
        struct ggml_tensor * ids, int64_t K) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(ids);
    const char * names[] = { "s", "x", "dt", "A", "B", "C" };
    struct ggml_tensor * ts[] = { s, x, dt, A, B, C };
    if (!seq_f32_args(__func__, 6, names, ts)) {
        return NULL;
    }
    GGML_OPS_CHECK(ids->type == GGML_TYPE_I32, "ids must be I32, not %s", ggml_type_name(ids->type));
    GGML_OPS_CHECK(K >= 1 && K <= INT32_MAX, "K = %lld must be in [1, INT32_MAX]", (long long) K);
    GGML_OPS_CHECK(ggml_is_contiguous(s) && ggml_is_contiguous(dt) && ggml_is_contiguous(A), "s, dt and A must be contiguous");
    GGML_OPS_CHECK(seq_packed01(x) && seq_packed01(B) && seq_packed01(C),
            "x, B and C must have contiguous dims 0 and 1 (only dims 2 and 3 may be strided)");
    const int64_t d_state = s->ne[0], head_dim = x->ne[0], n_head = x->ne[1];
    const int64_t n_tok = x->ne[2], n_seqs = x->ne[3];
    GGML_OPS_CHECK(s->ne[1] == head_dim && s->ne[2] == n_head && s->ne[3] >= 1,
            "s " GGML_OPS_NE_FMT " must be [d_state, %lld, %lld, >= 1]", GGML_OPS_NE_ARGS(s), (long long) head_dim, (long long) n_head);
    GGML_OPS_CHECK(ggml_is_3d(dt) && dt->ne[0] == n_head && dt->ne[1] == n_tok && dt->ne[2] == n_seqs,
            "dt " GGML_OPS_NE_FMT " must be [%lld, %lld, %lld]", GGML_OPS_NE_ARGS(dt), (long long) n_head, (long long) n_tok,
            (long long) n_seqs);
    GGML_OPS_CHECK(ggml_is_matrix(A) && A->ne[1] == n_head && (A->ne[0] == 1 || A->ne[0] == d_state),
            "A " GGML_OPS_NE_FMT " must be [1 or %lld, %lld]", GGML_OPS_NE_ARGS(A), (long long) d_state, (long long) n_head);
    GGML_OPS_CHECK(A->ne[0] == 1 || K == 1, "state snapshots (K = %lld) need a scalar decay per head (A [1, n_head])", (long long) K);
    GGML_OPS_CHECK(ggml_are_same_shape(B, C), "B " GGML_OPS_NE_FMT " and C " GGML_OPS_NE_FMT " must have the same shape",
            GGML_OPS_NE_ARGS(B), GGML_OPS_NE_ARGS(C));
    GGML_OPS_CHECK(B->ne[0] == d_state && B->ne[1] >= 1 && n_head % B->ne[1] == 0 && B->ne[2] == n_tok && B->ne[3] == n_seqs,
            "B " GGML_OPS_NE_FMT " must be [%lld, n_group, %lld, %lld] with n_head %% n_group == 0", GGML_OPS_NE_ARGS(B),
            (long long) d_state, (long long) n_tok, (long long) n_seqs);
    GGML_OPS_CHECK(ggml_is_vector(ids) && ids->ne[0] == n_seqs, "ids " GGML_OPS_NE_FMT " must be a vector of %lld",
            GGML_OPS_NE_ARGS(ids), (long long) n_seqs);
    int64_t n_state = 0;
    GGML_OPS_CHECK(ggml_ops_count4(K, d_state, head_dim*n_head, n_seqs, &n_state) && n_state <= INT64_MAX - ggml_nelements(x),
            "the result's size overflows");
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, ggml_nelements(x) + n_state, 1, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) K);
    ggml_ops_node(result, GGML_OP_SSM_SCAN, s, x, dt);
    result->src[3] = A;
    result->src[4] = B;
    result->src[5] = C;
    result->src[6] = ids;
    return result;
}

// The checks shared by WKV6, GLA and WKV7: n token tensors [S, H, n_tokens] (contiguous, the shape
// of ts[0]) and a state of S*S*H*n_seqs elements (n_seqs = state->ne[1], dividing n_tokens).
static bool seq_rwkv_checks(const char * func, int n, const char * const * names, struct ggml_tensor * const * ts,
        struct ggml_tensor * state) {
    const struct ggml_tensor * t0 = ts[0];
    for (int i = 0; i < n; i++) {
        if (!ggml_is_contiguous(ts[i])) {
            ggml_error_report_func(GGML_ERROR_OK, func, "%s must be contiguous", names[i]);
            return false;
        }
        if (ts[i]->ne[0] != t0->ne[0] || ts[i]->ne[1] != t0->ne[1] || ts[i]->ne[2] != t0->ne[2] || ts[i]->ne[3] != 1) {
            ggml_error_report_func(GGML_ERROR_OK, func, "%s " GGML_OPS_NE_FMT " must be [%lld, %lld, %lld] like %s",
                    names[i], GGML_OPS_NE_ARGS(ts[i]), (long long) t0->ne[0], (long long) t0->ne[1], (long long) t0->ne[2],
                    names[0]);
            return false;
        }
    }
    const int64_t S = t0->ne[0], H = t0->ne[1], T = t0->ne[2], n_seqs = state->ne[1];
    if (!ggml_is_contiguous(state) || n_seqs < 1 || ggml_nelements(state) != S*S*H*n_seqs || T % n_seqs != 0) {
        ggml_error_report_func(GGML_ERROR_OK, func, "state " GGML_OPS_NE_FMT " must be contiguous, [S*S*H = %lld, n_seqs] "
                "with n_seqs dividing n_tokens = %lld", GGML_OPS_NE_ARGS(state), (long long) (S*S*H), (long long) T);
        return false;
    }
    return true;
}

// [S*H, n_tokens + S*n_seqs], the op and its sources
static struct ggml_tensor * seq_rwkv_result(const char * func, struct ggml_context * ctx, enum ggml_op op,
        int n, struct ggml_tensor * const * srcs, const struct ggml_tensor * like, const struct ggml_tensor * state) {
    struct ggml_tensor * result = ggml_ops_new_4d(func, ctx, GGML_TYPE_F32, like->ne[0]*like->ne[1],
            like->ne[2] + like->ne[0]*state->ne[1], 1, 1);
    if (result == NULL) {
        return NULL;
    }
    result->op = op;
    for (int i = 0; i < n; i++) {
        result->src[i] = srcs[i];
    }
    return result;
}

struct ggml_tensor * ggml_rwkv_wkv6(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
        struct ggml_tensor * r, struct ggml_tensor * tf, struct ggml_tensor * td, struct ggml_tensor * state) {
    GGML_OPS_CHECK_ARG(ctx);
    const char * names[] = { "k", "v", "r", "td", "tf", "state" };
    struct ggml_tensor * ts[] = { k, v, r, td, tf, state };
    if (!seq_f32_args(__func__, 6, names, ts) || !seq_rwkv_checks(__func__, 4, names, ts, state)) {
        return NULL;
    }
    GGML_OPS_CHECK(ggml_is_contiguous(tf) && ggml_nelements(tf) == k->ne[0]*k->ne[1],
            "tf " GGML_OPS_NE_FMT " must be contiguous with S*H = %lld elements", GGML_OPS_NE_ARGS(tf),
            (long long) (k->ne[0]*k->ne[1]));
    struct ggml_tensor * srcs[] = { k, v, r, tf, td, state };
    return seq_rwkv_result(__func__, ctx, GGML_OP_RWKV_WKV6, 6, srcs, k, state);
}

struct ggml_tensor * ggml_gated_linear_attn(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
        struct ggml_tensor * q, struct ggml_tensor * g, struct ggml_tensor * state, float scale) {
    GGML_OPS_CHECK_ARG(ctx);
    const char * names[] = { "k", "v", "q", "g", "state" };
    struct ggml_tensor * ts[] = { k, v, q, g, state };
    if (!seq_f32_args(__func__, 5, names, ts) || !seq_rwkv_checks(__func__, 4, names, ts, state)) {
        return NULL;
    }
    struct ggml_tensor * result = seq_rwkv_result(__func__, ctx, GGML_OP_GATED_LINEAR_ATTN, 5, ts, k, state);
    if (result != NULL) {
        ggml_set_op_params_f32(result, 0, scale);
    }
    return result;
}

struct ggml_tensor * ggml_rwkv_wkv7(struct ggml_context * ctx, struct ggml_tensor * r, struct ggml_tensor * w,
        struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * a, struct ggml_tensor * b,
        struct ggml_tensor * state) {
    GGML_OPS_CHECK_ARG(ctx);
    const char * names[] = { "r", "w", "k", "v", "a", "b", "state" };
    struct ggml_tensor * ts[] = { r, w, k, v, a, b, state };
    if (!seq_f32_args(__func__, 7, names, ts) || !seq_rwkv_checks(__func__, 6, names, ts, state)) {
        return NULL;
    }
    return seq_rwkv_result(__func__, ctx, GGML_OP_RWKV_WKV7, 7, ts, k, state);
}

struct ggml_tensor * ggml_solve_tri(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        bool left, bool lower, bool uni) {
    GGML_OPS_CHECK_ARG(ctx);
    const char * names[] = { "a", "b" };
    struct ggml_tensor * ts[] = { a, b };
    if (!seq_f32_args(__func__, 2, names, ts)) {
        return NULL;
    }
    // the family stores no flags in the node: only its one implemented variant can be represented
    GGML_OPS_CHECK(left && lower && !uni, "only left = true, lower = true, uni = false is implemented (as in the family), "
            "not left = %d, lower = %d, uni = %d", (int) left, (int) lower, (int) uni);
    GGML_OPS_CHECK(a->ne[0] == a->ne[1], "a " GGML_OPS_NE_FMT " must hold square matrices", GGML_OPS_NE_ARGS(a));
    GGML_OPS_CHECK(b->ne[1] == a->ne[1] && b->ne[2] == a->ne[2] && b->ne[3] == a->ne[3],
            "b " GGML_OPS_NE_FMT " must be [m, %lld, %lld, %lld] to match a", GGML_OPS_NE_ARGS(b), (long long) a->ne[1],
            (long long) a->ne[2], (long long) a->ne[3]);
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, b->ne[0], b->ne[1], b->ne[2], b->ne[3]);
    return result ? ggml_ops_node(result, GGML_OP_SOLVE_TRI, a, b, NULL) : NULL;
}

struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
        struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta, struct ggml_tensor * state, int64_t K) {
    GGML_OPS_CHECK_ARG(ctx);
    const char * names[] = { "q", "k", "v", "g", "beta", "state" };
    struct ggml_tensor * ts[] = { q, k, v, g, beta, state };
    if (!seq_f32_args(__func__, 6, names, ts)) {
        return NULL;
    }
    GGML_OPS_CHECK(K >= 1 && K <= INT32_MAX, "K = %lld must be in [1, INT32_MAX]", (long long) K);
    GGML_OPS_CHECK(ggml_is_contiguous_rows(q) && ggml_is_contiguous_rows(k) && ggml_is_contiguous_rows(v),
            "q, k and v must have contiguous rows");
    GGML_OPS_CHECK(ggml_is_contiguous(g) && ggml_is_contiguous(beta) && ggml_is_contiguous(state),
            "g, beta and state must be contiguous");
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], n_seqs = v->ne[3];
    GGML_OPS_CHECK(ggml_are_same_shape(q, k), "q " GGML_OPS_NE_FMT " and k " GGML_OPS_NE_FMT " must have the same shape",
            GGML_OPS_NE_ARGS(q), GGML_OPS_NE_ARGS(k));
    GGML_OPS_CHECK(q->ne[0] == S && q->ne[1] >= 1 && H % q->ne[1] == 0 && q->ne[2] == T && q->ne[3] >= 1 &&
            n_seqs % q->ne[3] == 0, "q " GGML_OPS_NE_FMT " must be [%lld, H_k, %lld, n_seqs_k] with H_k dividing %lld and "
            "n_seqs_k dividing %lld", GGML_OPS_NE_ARGS(q), (long long) S, (long long) T, (long long) H, (long long) n_seqs);
    GGML_OPS_CHECK((g->ne[0] == 1 || g->ne[0] == S) && g->ne[1] == H && g->ne[2] == T && g->ne[3] == n_seqs,
            "g " GGML_OPS_NE_FMT " must be [1 or %lld, %lld, %lld, %lld]", GGML_OPS_NE_ARGS(g), (long long) S, (long long) H,
            (long long) T, (long long) n_seqs);
    GGML_OPS_CHECK(beta->ne[0] == 1 && beta->ne[1] == H && beta->ne[2] == T && beta->ne[3] == n_seqs,
            "beta " GGML_OPS_NE_FMT " must be [1, %lld, %lld, %lld]", GGML_OPS_NE_ARGS(beta), (long long) H, (long long) T,
            (long long) n_seqs);
    GGML_OPS_CHECK(state->ne[0] == S && state->ne[1] == S && state->ne[2] == H && state->ne[3] == n_seqs,
            "state " GGML_OPS_NE_FMT " must be [%lld, %lld, %lld, %lld]", GGML_OPS_NE_ARGS(state), (long long) S,
            (long long) S, (long long) H, (long long) n_seqs);
    int64_t rows = 0;
    GGML_OPS_CHECK(ggml_ops_count4(K, S, n_seqs, 1, &rows) && rows <= INT64_MAX - T*n_seqs, "the result's size overflows");
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, S*H, T*n_seqs + rows, 1, 1);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, (int32_t) K);
    ggml_ops_node(result, GGML_OP_GATED_DELTA_NET, q, k, v);
    result->src[3] = g;
    result->src[4] = beta;
    result->src[5] = state;
    return result;
}
