// Cases of issue 22's "seq" group, after the shapes of the ggml family's test-backend-ops
// (test_ssm_conv, test_ssm_scan, test_rwkv_wkv6/7, test_gla, test_gated_delta_net, test_solve_tri):
// SSM_CONV, SSM_SCAN, RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7, SOLVE_TRI, GATED_DELTA_NET.
// The family's largest shapes (whose double-precision reference takes seconds) are kept as
// perf-only cases; test mode runs them with fewer tokens.

#include "bops.h"

#include <math.h>
#include <stdio.h>

// the state recurrences sum over tokens and heads in float: the family's bound for them
#define SEQ_BOUND 1e-7

//
// SSM_CONV: sx = t[0] ne[0] (layout i[8]), c = t[0] ne[1] (layout i[7])
//

static struct ggml_tensor * build_ssm_conv(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * sx = bops_input(g, GGML_TYPE_F32, c->ne[0], (enum bop_layout) c->i[8], BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * w = bops_input(g, GGML_TYPE_F32, c->ne[1], (enum bop_layout) c->i[7], BOP_FILL_UNIFORM, c->lo, c->hi);
    return sx != NULL && w != NULL ? ggml_ssm_conv(g->ctx, sx, w) : NULL;
}

static bool cases_ssm_conv(struct bop_cases * list) {
    static const int64_t d_convs[] = { 3, 4, 9 }, d_inners[] = { 1024, 1536, 2048 };
    for (size_t a = 0; a < 3; a++) {
        for (size_t b = 0; b < 3; b++) {
            const int64_t dc = d_convs[a], di = d_inners[b];
            // one token, two, four sequences of one, 64 tokens, 64 tokens in 4 sequences
            const int64_t shapes[5][4] = { { dc, di, 1, 1 }, { 2*dc, di, 1, 1 }, { dc, di, 4, 1 },
                                           { dc - 1 + 64, di, 1, 1 }, { dc - 1 + 64, di, 4, 1 } };
            for (int s = 0; s < 5; s++) {
                // every 7th through a strided view of sx (the family's CPU code needs packed rows; ours reads strides)
                const enum bop_layout layout = (a*15 + b*5 + (size_t) s) % 7 == 3 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
                struct bop_case * c = bops_add(list, "SSM_CONV", build_ssm_conv, "type=f32,ne_a=%s,ne_b=%s,layout=%s",
                        bops_ne_str(shapes[s]), bops_ne_str((const int64_t[4]) { dc, di, 1, 1 }), bops_layout_name(layout));
                if (c == NULL) {
                    return false;
                }
                bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
                bops_ne(c->ne[1], dc, di, 1, 1);
                c->i[8] = layout;
                c->bound = SEQ_BOUND;
            }
        }
    }
    // the family's perf shapes: prefill and generation
    static const int64_t perf[][2] = { { 515, 3328 }, { 937, 8192 }, { 4, 3328 } };
    for (size_t k = 0; k < 3; k++) {
        struct bop_case * c = bops_add(list, "SSM_CONV", build_ssm_conv, "type=f32,ne_a=[%lld,%lld,1,1],ne_b=[4,%lld,1,1]",
                (long long) perf[k][0], (long long) perf[k][1], (long long) perf[k][1]);
        if (c == NULL) {
            return false;
        }
        bops_ne(c->ne[0], perf[k][0], perf[k][1], 1, 1);
        bops_ne(c->ne[1], 4, perf[k][1], 1, 1);
        c->modes = BOP_MODE_PERF;
    }
    return true;
}

//
// SSM_SCAN: i[0..7] = d_state, head_dim, n_head, n_group, n_tokens, n_seqs, x/B/C overlap, K;
// i[9] = extra state rows in s beyond n_seqs (ids pick n_seqs distinct rows)
//

static struct ggml_tensor * build_ssm_scan(struct bop_graph * g, const struct bop_case * c) {
    const int64_t ds = c->i[0], hd = c->i[1], nh = c->i[2], ng = c->i[3], nt = c->i[4], ns = c->i[5];
    const int64_t n_rows = ns + c->i[9];
    struct ggml_tensor * s  = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { ds, hd, nh, n_rows }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * dt = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { nh, nt, ns, 1 }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, -1.0, 1.0);
    // negative decays, as Mamba's A = -exp(A_log)
    struct ggml_tensor * A  = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { hd > 1 ? 1 : ds, nh, 1, 1 }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, -1.0, -0.5);
    struct ggml_tensor * ids = bops_input(g, GGML_TYPE_I32, (const int64_t[4]) { ns, 1, 1, 1 }, BOP_LAYOUT_CONT,
            BOP_FILL_ROWPERM, 0.0, (double) n_rows);
    struct ggml_tensor * x, * B, * C;
    if (c->i[6]) {
        // x, B and C as overlapping views of one tensor (the family's xbc_overlap; needs head_dim == d_state)
        struct ggml_tensor * xbc = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { ds, nh, nt, 2*ns }, BOP_LAYOUT_CONT,
                BOP_FILL_UNIFORM, -1.0, 1.0);
        if (xbc == NULL) {
            return NULL;
        }
        x = ggml_view_4d(g->ctx, xbc, hd, nh, nt, ns, xbc->nb[1], xbc->nb[2], xbc->nb[3], xbc->nb[3]);
        B = ggml_view_4d(g->ctx, xbc, ds, ng, nt, ns, xbc->nb[1], xbc->nb[2], xbc->nb[3], 0);
        C = ggml_view_4d(g->ctx, xbc, ds, ng, nt, ns, xbc->nb[1], xbc->nb[2], xbc->nb[3], 2*xbc->nb[3]);
    } else {
        x = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { hd, nh, nt, ns }, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -1.0, 1.0);
        B = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { ds, ng, nt, ns }, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -1.0, 1.0);
        C = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { ds, ng, nt, ns }, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -1.0, 1.0);
    }
    if (s == NULL || dt == NULL || A == NULL || ids == NULL || x == NULL || B == NULL || C == NULL) {
        return NULL;
    }
    return ggml_ssm_scan(g->ctx, s, x, dt, A, B, C, ids, c->i[7]);
}

static bool add_ssm_scan(struct bop_cases * list, const int32_t p[8], int32_t extra_rows, bool perf) {
    struct bop_case * c = bops_add(list, "SSM_SCAN", build_ssm_scan, "type=f32,d_state=%d,head_dim=%d,n_head=%d,n_group=%d,"
            "n_seq_tokens=%d,n_seqs=%d,xbc_overlap=%d,K=%d%s", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
            extra_rows ? ",s_rows+2" : "");
    if (c == NULL) {
        return false;
    }
    for (int k = 0; k < 8; k++) {
        c->i[k] = p[k];
    }
    c->i[9] = extra_rows;
    c->bound = SEQ_BOUND;
    c->modes = perf ? BOP_MODE_PERF : BOP_MODE_TEST;
    return true;
}

static bool cases_ssm_scan(struct bop_cases * list) {
    static const int32_t test[][8] = {
        {  16,   1, 1024, 1, 32, 4, 0, 1 }, // Mamba-1
        { 128,  64,   16, 2, 32, 4, 0, 1 }, // Mamba-2
        { 256,  64,    8, 2, 32, 4, 0, 1 }, // Falcon-H1
        { 128, 128,    4, 4, 16, 2, 1, 1 }, // x, B, C overlapping
        { 128,  80,  128, 1,  8, 1, 0, 1 }, // Nemotron-9B's heads (the family runs 256 and 512 tokens)
        { 128,  64,   80, 8, 12, 2, 0, 1 }, // 8 groups, 2 sequences (the family: 300 tokens)
        { 128,  64,   16, 2,  4, 2, 0, 4 }, // snapshots, K == n_tokens
        { 128,  64,   16, 2,  8, 2, 0, 3 }, // snapshots, n_tokens > K
        {  16,   1,   64, 1,  5, 3, 0, 1 }, // Mamba-1, small, 3 sequences
        {  32,   4,    6, 3,  1, 2, 0, 1 }, // one token, 3 groups
    };
    for (size_t k = 0; k < sizeof(test)/sizeof(test[0]); k++) {
        if (!add_ssm_scan(list, test[k], 0, false)) {
            return false;
        }
    }
    // ids picking rows out of a larger state tensor
    if (!add_ssm_scan(list, test[1], 2, false) || !add_ssm_scan(list, test[8], 2, false)) {
        return false;
    }
    static const int32_t perf[][8] = {
        { 128, 64,  48, 1, 512, 1, 0, 1 }, { 128, 64,  48, 1, 1, 1, 0, 1 },
        { 128, 80, 128, 1, 512, 1, 0, 1 }, { 128, 80, 128, 1, 1, 1, 0, 1 },
    };
    for (size_t k = 0; k < sizeof(perf)/sizeof(perf[0]); k++) {
        if (!add_ssm_scan(list, perf[k], 0, true)) {
            return false;
        }
    }
    return true;
}

//
// RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7: i[0..3] = head_count, head_size, n_seq_tokens, n_seqs
//

static struct ggml_tensor * rwkv_tok(struct bop_graph * g, const struct bop_case * c) {
    const int64_t T = (int64_t) c->i[2]*c->i[3];
    return bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { c->i[1], c->i[0], T, 1 }, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM,
            -1.0, 1.0);
}

static struct ggml_tensor * rwkv_state(struct bop_graph * g, const struct bop_case * c) {
    const int64_t S = c->i[1];
    return bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { S*S*c->i[0], c->i[3], 1, 1 }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, -1.0, 1.0);
}

static struct ggml_tensor * build_wkv6(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * r = rwkv_tok(g, c), * k = rwkv_tok(g, c), * v = rwkv_tok(g, c);
    struct ggml_tensor * tf = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { c->i[1], c->i[0], 1, 1 }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * td = rwkv_tok(g, c), * s = rwkv_state(g, c);
    if (r == NULL || k == NULL || v == NULL || tf == NULL || td == NULL || s == NULL) {
        return NULL;
    }
    return ggml_rwkv_wkv6(g->ctx, k, v, r, tf, td, s);
}

static struct ggml_tensor * build_gla(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * q = rwkv_tok(g, c), * k = rwkv_tok(g, c), * v = rwkv_tok(g, c), * gt = rwkv_tok(g, c);
    struct ggml_tensor * s = rwkv_state(g, c);
    if (q == NULL || k == NULL || v == NULL || gt == NULL || s == NULL) {
        return NULL;
    }
    return ggml_gated_linear_attn(g->ctx, k, v, q, gt, s, (float) pow((double) c->i[1], -0.5));
}

static struct ggml_tensor * build_wkv7(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * r = rwkv_tok(g, c), * w = rwkv_tok(g, c), * k = rwkv_tok(g, c), * v = rwkv_tok(g, c);
    struct ggml_tensor * a = rwkv_tok(g, c), * b = rwkv_tok(g, c), * s = rwkv_state(g, c);
    if (r == NULL || w == NULL || k == NULL || v == NULL || a == NULL || b == NULL || s == NULL) {
        return NULL;
    }
    // as the family's test: a and b normalized, or long sequences overflow
    a = ggml_l2_norm(g->ctx, a, 1e-7f);
    b = ggml_l2_norm(g->ctx, b, 1e-7f);
    return a != NULL && b != NULL ? ggml_rwkv_wkv7(g->ctx, r, w, k, v, a, b, s) : NULL;
}

static bool cases_rwkv(struct bop_cases * list) {
    static const struct { const char * op; bop_build_fn build; } kinds[] = {
        { "RWKV_WKV6", build_wkv6 }, { "GATED_LINEAR_ATTN", build_gla }, { "RWKV_WKV7", build_wkv7 },
    };
    // the family's shapes (32 heads of 64), the longest one perf-only; and small odd ones of ours
    static const int32_t shapes[][4] = { { 32, 64, 1, 1 }, { 32, 64, 1, 4 }, { 32, 64, 32, 1 }, { 32, 64, 32, 4 },
                                         { 3, 8, 5, 2 }, { 1, 1, 7, 1 }, { 32, 64, 128, 4 } };
    const size_t n_shapes = sizeof(shapes)/sizeof(shapes[0]);
    for (size_t k = 0; k < 3; k++) {
        for (size_t s = 0; s < n_shapes; s++) {
            struct bop_case * c = bops_add(list, kinds[k].op, kinds[k].build, "type=f32,head_count=%d,head_size=%d,"
                    "n_seq_tokens=%d,n_seqs=%d", shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
            if (c == NULL) {
                return false;
            }
            for (int j = 0; j < 4; j++) {
                c->i[j] = shapes[s][j];
            }
            c->bound = SEQ_BOUND;
            c->modes = s + 1 == n_shapes ? BOP_MODE_PERF : BOP_MODE_TEST;
        }
    }
    return true;
}

//
// SOLVE_TRI: a = ne[0] (values in [0.1, 1]: only its lower triangle is read; layout i[7]), b = ne[1]
// (layout i[8])
//

static struct ggml_tensor * build_solve_tri(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, GGML_TYPE_F32, c->ne[0], (enum bop_layout) c->i[7], BOP_FILL_UNIFORM, 0.1, 1.0);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_F32, c->ne[1], (enum bop_layout) c->i[8], BOP_FILL_UNIFORM, -1.0, 1.0);
    return a != NULL && b != NULL ? ggml_solve_tri(g->ctx, a, b, true, true, false) : NULL;
}

static bool cases_solve_tri(struct bop_cases * list) {
    static const int64_t shapes[][5] = { // n, m (columns of b), ne2, ne3, perf only
        { 10, 3, 4, 3, 0 }, { 11, 5, 1, 1, 0 }, { 17, 9, 2, 4, 0 }, { 30, 8, 7, 1, 0 }, { 42, 10, 5, 2, 0 },
        { 64, 10, 2, 2, 0 }, { 64, 64, 2, 2, 0 }, { 79, 417, 5, 3, 0 }, { 128, 32, 4, 2, 0 }, { 80, 80, 2, 8, 0 },
        { 80, 79, 2, 8, 0 }, { 80, 81, 2, 8, 0 }, { 84, 32, 4, 4, 0 }, { 95, 40, 8, 8, 0 }, { 100, 41, 4, 4, 0 },
        { 128, 31, 4, 4, 0 }, { 128, 32, 3, 4, 0 }, { 64, 200, 4, 4, 0 }, { 64, 384, 4, 4, 0 }, { 1, 1, 1, 1, 0 },
        { 64, 64, 8, 32, 1 }, { 128, 128, 4, 32, 1 }, { 256, 128, 4, 2, 1 },
    };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        const int64_t * sh = shapes[s];
        const enum bop_layout layout = s % 6 == 4 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
        struct bop_case * c = bops_add(list, "SOLVE_TRI", build_solve_tri, "type=f32,ne_lhs=[%lld,%lld,%lld,%lld],"
                "ne_rhs=[%lld,%lld,%lld,%lld],layout=%s", (long long) sh[0], (long long) sh[0], (long long) sh[2],
                (long long) sh[3], (long long) sh[1], (long long) sh[0], (long long) sh[2], (long long) sh[3],
                bops_layout_name(layout));
        if (c == NULL) {
            return false;
        }
        bops_ne(c->ne[0], sh[0], sh[0], sh[2], sh[3]);
        bops_ne(c->ne[1], sh[1], sh[0], sh[2], sh[3]);
        c->i[8] = layout;
        c->bound = SEQ_BOUND;
        c->modes = sh[4] ? BOP_MODE_PERF : BOP_MODE_TEST;
    }
    return true;
}

//
// GATED_DELTA_NET: i[0..7] = head_count, head_size, n_seq_tokens, n_seqs, v_repeat, permuted, kda, K;
// i[9] = sequences of q and k (0: n_seqs)
//

static struct ggml_tensor * build_gdn(struct bop_graph * g, const struct bop_case * c) {
    const int64_t H = c->i[0], S = c->i[1], T = c->i[2], ns = c->i[3], vr = c->i[4];
    const int64_t ns_qk = c->i[9] > 0 ? c->i[9] : ns;
    const enum bop_layout layout = c->i[5] ? BOP_LAYOUT_PERM : BOP_LAYOUT_CONT;
    struct ggml_tensor * q = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { S, H, T, ns_qk }, layout, BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * k = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { S, H, T, ns_qk }, layout, BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * v = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { S, H*vr, T, ns }, layout, BOP_FILL_UNIFORM, -0.3, 5.0);
    struct ggml_tensor * gate = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { c->i[6] ? S : 1, H*vr, T, ns },
            BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -20.0, -1e-4);
    struct ggml_tensor * beta = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { 1, H*vr, T, ns }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, 0.0, 1.0);
    struct ggml_tensor * state = bops_input(g, GGML_TYPE_F32, (const int64_t[4]) { S, S, H*vr, ns }, BOP_LAYOUT_CONT,
            BOP_FILL_UNIFORM, -1.0, 1.0);
    if (q == NULL || k == NULL || v == NULL || gate == NULL || beta == NULL || state == NULL) {
        return NULL;
    }
    // as in the models (and the family's test): q and k L2-normalized
    q = ggml_l2_norm(g->ctx, q, 1e-6f);
    k = ggml_l2_norm(g->ctx, k, 1e-6f);
    return q != NULL && k != NULL ? ggml_gated_delta_net(g->ctx, q, k, v, gate, beta, state, c->i[7]) : NULL;
}

static bool add_gdn(struct bop_cases * list, const int32_t p[8], int32_t ns_qk, bool perf) {
    struct bop_case * c = bops_add(list, "GATED_DELTA_NET", build_gdn, "type=f32,head_count=%d,head_size=%d,n_seq_tokens=%d,"
            "n_seqs=%d,v_repeat=%d,permuted=%d,kda=%d,K=%d%s", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7],
            ns_qk ? ",qk_seqs=1" : "");
    if (c == NULL) {
        return false;
    }
    for (int k = 0; k < 8; k++) {
        c->i[k] = p[k];
    }
    c->i[9] = ns_qk;
    c->bound = SEQ_BOUND;
    c->modes = perf ? BOP_MODE_PERF : BOP_MODE_TEST;
    return true;
}

static bool cases_gdn(struct bop_cases * list) {
    static const int32_t test[][8] = {
        // the family's: one token; scalar and per-key (KDA) gates, permuted q/k/v, repeated v heads
        { 32, 128, 1, 1, 1, 0, 0, 1 }, { 32, 16, 1, 1, 1, 0, 0, 1 }, { 32, 16, 1, 1, 1, 1, 1, 1 },
        { 32, 16, 1, 1, 1, 0, 1, 1 }, { 16, 64, 1, 2, 1, 0, 0, 1 }, { 4, 64, 4, 1, 1, 0, 0, 1 },
        { 4, 64, 4, 2, 1, 0, 0, 1 }, { 8, 32, 4, 2, 2, 0, 0, 1 }, { 4, 64, 4, 2, 1, 1, 0, 1 },
        { 4, 64, 4, 1, 1, 1, 0, 1 },
        { 4, 64, 1, 1, 1, 0, 1, 1 }, { 4, 64, 1, 2, 1, 0, 1, 1 }, { 4, 16, 1, 2, 1, 0, 1, 1 },
        { 4, 32, 4, 1, 1, 0, 1, 1 }, { 4, 64, 4, 2, 1, 0, 1, 1 }, { 8, 32, 4, 2, 2, 0, 1, 1 },
        { 4, 64, 4, 2, 1, 1, 1, 1 }, { 4, 16, 4, 2, 1, 1, 1, 1 },
        // long sequences (the family's chunked paths)
        { 4, 64, 64, 1, 1, 0, 0, 1 }, { 4, 64, 127, 1, 1, 0, 0, 1 }, { 4, 64, 256, 1, 1, 0, 0, 1 },
        { 4, 64, 65, 1, 1, 0, 0, 1 }, { 4, 64, 100, 1, 1, 0, 0, 1 }, { 4, 64, 200, 1, 1, 0, 0, 1 },
        { 4, 64, 127, 2, 1, 0, 0, 1 }, { 4, 64, 64, 1, 1, 0, 1, 1 }, { 4, 64, 33, 1, 1, 0, 1, 1 },
        { 4, 64, 100, 1, 1, 0, 1, 1 },
        // state snapshots: K == n_tokens, then n_tokens > K
        { 4, 16, 2, 1, 1, 0, 0, 2 }, { 4, 32, 4, 1, 1, 0, 0, 4 }, { 4, 64, 4, 2, 1, 0, 0, 4 },
        { 8, 128, 4, 1, 1, 0, 0, 4 }, { 4, 64, 4, 2, 1, 0, 1, 4 }, { 8, 32, 4, 2, 2, 0, 1, 4 },
        { 4, 32, 8, 1, 1, 0, 0, 3 }, { 4, 64, 16, 2, 1, 0, 0, 4 },
    };
    for (size_t k = 0; k < sizeof(test)/sizeof(test[0]); k++) {
        if (!add_gdn(list, test[k], 0, false)) {
            return false;
        }
    }
    // ours: q and k shared by the sequences (one sequence of q/k for two of v), repeated heads and snapshots
    static const int32_t shared[][8] = { { 4, 32, 3, 2, 2, 0, 1, 2 }, { 2, 16, 5, 4, 1, 1, 0, 1 } };
    for (size_t k = 0; k < 2; k++) {
        if (!add_gdn(list, shared[k], 1, false)) {
            return false;
        }
    }
    static const int32_t perf[][8] = {
        { 32, 128, 1, 1, 1, 0, 0, 1 }, { 16, 64, 1, 1, 1, 0, 0, 1 }, { 32, 128, 1, 1, 1, 0, 1, 1 },
        { 32, 128, 64, 1, 1, 0, 0, 1 }, { 32, 128, 256, 1, 1, 0, 0, 1 }, { 32, 128, 512, 1, 1, 0, 0, 1 },
        { 4, 128, 512, 1, 1, 0, 0, 1 }, { 32, 128, 64, 1, 1, 0, 1, 1 },
    };
    for (size_t k = 0; k < sizeof(perf)/sizeof(perf[0]); k++) {
        if (!add_gdn(list, perf[k], 0, true)) {
            return false;
        }
    }
    return true;
}

//
// Shapes the work-item-per-recurrence kernels of the OpenCL backend (kernels/seq.cl) have and the
// cases above lack: a last, partial work-group (counts not multiples of 64), long sequences, sizes
// that are not powers of two, and views of the sources the constructors accept.
//

static bool cases_seq_devices(struct bop_cases * list) {
    // SSM_CONV: 100 channels (a partial group along dim 0); sx transposed in memory, c padded
    static const int64_t conv[][3] = { { 4, 100, 3 }, { 3, 70, 1 } }; // d_conv, d_inner, n_seqs
    for (size_t k = 0; k < 2; k++) {
        const int64_t dc = conv[k][0], di = conv[k][1], ns = conv[k][2];
        const enum bop_layout lx = k == 0 ? BOP_LAYOUT_TRANS : BOP_LAYOUT_PAD, lc = k == 0 ? BOP_LAYOUT_PAD : BOP_LAYOUT_TRANS;
        const int64_t sx_ne[4] = { dc - 1 + 37, di, ns, 1 }, c_ne[4] = { dc, di, 1, 1 };
        struct bop_case * c = bops_add(list, "SSM_CONV", build_ssm_conv, "type=f32,ne_a=%s,ne_b=%s,layout=%s,layout_b=%s",
                bops_ne_str(sx_ne), bops_ne_str(c_ne), bops_layout_name(lx), bops_layout_name(lc));
        if (c == NULL) {
            return false;
        }
        bops_ne(c->ne[0], sx_ne[0], sx_ne[1], sx_ne[2], sx_ne[3]);
        bops_ne(c->ne[1], c_ne[0], c_ne[1], c_ne[2], c_ne[3]);
        c->i[7] = lc;
        c->i[8] = lx;
        c->bound = SEQ_BOUND;
    }
    // SSM_SCAN: long sequences (Mamba-2 and Mamba-1), snapshots of a long one, odd sizes, overlap
    static const int32_t scan[][8] = {
        { 128, 64, 4, 1, 256, 1, 0, 1 }, { 16, 1, 96, 1, 300, 2, 0, 1 }, { 64, 16, 4, 2, 64, 2, 0, 5 },
        { 48, 24, 5, 1, 40, 3, 0, 1 }, { 64, 64, 4, 2, 40, 3, 1, 2 },
    };
    for (size_t k = 0; k < sizeof(scan)/sizeof(scan[0]); k++) {
        if (!add_ssm_scan(list, scan[k], k == 3 ? 1 : 0, false)) {
            return false;
        }
    }
    // RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7: long sequences of small heads, odd sizes (S % 4 != 0:
    // the one-column kernels)
    static const struct { const char * op; bop_build_fn build; } kinds[] = {
        { "RWKV_WKV6", build_wkv6 }, { "GATED_LINEAR_ATTN", build_gla }, { "RWKV_WKV7", build_wkv7 },
    };
    static const int32_t rwkv[][4] = { { 4, 16, 256, 2 }, { 5, 24, 40, 3 }, { 2, 6, 30, 2 } };
    for (size_t k = 0; k < 3; k++) {
        for (size_t s = 0; s < sizeof(rwkv)/sizeof(rwkv[0]); s++) {
            struct bop_case * c = bops_add(list, kinds[k].op, kinds[k].build, "type=f32,head_count=%d,head_size=%d,"
                    "n_seq_tokens=%d,n_seqs=%d", rwkv[s][0], rwkv[s][1], rwkv[s][2], rwkv[s][3]);
            if (c == NULL) {
                return false;
            }
            for (int j = 0; j < 4; j++) {
                c->i[j] = rwkv[s][j];
            }
            c->bound = SEQ_BOUND;
        }
    }
    // SOLVE_TRI: a as a view (padded, transposed), b permuted; 130 columns (a partial group)
    static const int64_t tri[][4] = { { 37, 70, 3, 2 }, { 20, 130, 2, 1 } }; // n, m, ne2, ne3
    for (size_t k = 0; k < 2; k++) {
        const int64_t * sh = tri[k];
        const enum bop_layout la = k == 0 ? BOP_LAYOUT_PAD : BOP_LAYOUT_TRANS, lb = k == 0 ? BOP_LAYOUT_CONT : BOP_LAYOUT_PERM;
        struct bop_case * c = bops_add(list, "SOLVE_TRI", build_solve_tri, "type=f32,ne_lhs=[%lld,%lld,%lld,%lld],"
                "ne_rhs=[%lld,%lld,%lld,%lld],layout=%s,layout_lhs=%s", (long long) sh[0], (long long) sh[0],
                (long long) sh[2], (long long) sh[3], (long long) sh[1], (long long) sh[0], (long long) sh[2],
                (long long) sh[3], bops_layout_name(lb), bops_layout_name(la));
        if (c == NULL) {
            return false;
        }
        bops_ne(c->ne[0], sh[0], sh[0], sh[2], sh[3]);
        bops_ne(c->ne[1], sh[1], sh[0], sh[2], sh[3]);
        c->i[7] = la;
        c->i[8] = lb;
        c->bound = SEQ_BOUND;
    }
    // GATED_DELTA_NET: a long sequence with snapshots, a head size that is not a power of two,
    // 720 work-items (a partial group)
    static const int32_t gdn[][8] = { { 4, 32, 300, 1, 1, 0, 1, 3 }, { 3, 24, 50, 2, 1, 1, 1, 1 }, { 5, 48, 20, 3, 1, 0, 0, 2 } };
    for (size_t k = 0; k < sizeof(gdn)/sizeof(gdn[0]); k++) {
        if (!add_gdn(list, gdn[k], 0, false)) {
            return false;
        }
    }
    return true;
}

bool bops_cases_seq(struct bop_cases * list) {
    return cases_ssm_conv(list) && cases_ssm_scan(list) && cases_rwkv(list) && cases_solve_tri(list) && cases_gdn(list) &&
           cases_seq_devices(list);
}
