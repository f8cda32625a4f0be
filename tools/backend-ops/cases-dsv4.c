// Cases of issue 22's "dsv4" group, after the ggml family's test-backend-ops (test_lightning_indexer,
// test_dsv4_hc_comb / _pre / _post): the family's shapes and value ranges, every K type it uses,
// mask broadcasting over streams, and strided views of every input.

#include "bops.h"

//
// lightning indexer: i[0..5] = head size, heads, n_kv, tokens, streams, mask streams;
// t[0] = K type; i[6] = layout of every input
//

static struct ggml_tensor * build_indexer(struct bop_graph * g, const struct bop_case * c) {
    const int32_t * p = c->i;
    const enum bop_layout l = (enum bop_layout) p[6];
    const int64_t ne_q[4] = { p[0], p[1], p[3], p[4] }, ne_k[4] = { p[0], 1, p[2], p[4] };
    const int64_t ne_w[4] = { p[1], p[3], 1, p[4] }, ne_m[4] = { p[2], p[3], 1, p[5] };
    struct ggml_tensor * q = bops_input(g, GGML_TYPE_F32, ne_q, l, BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * k = bops_input(g, c->t[0], ne_k, l, BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * w = bops_input(g, GGML_TYPE_F32, ne_w, l, BOP_FILL_UNIFORM, -1.0, 1.0);
    struct ggml_tensor * m = bops_input(g, GGML_TYPE_F16, ne_m, l, BOP_FILL_MASK, -1.0, 1.0);
    if (q == NULL || k == NULL || w == NULL || m == NULL) {
        return NULL;
    }
    return ggml_lightning_indexer(g->ctx, q, k, w, m);
}

static bool add_indexer(struct bop_cases * list, int hsk, int nh, int kv, int nb, int ns, int nm, enum ggml_type tk,
        enum bop_layout layout) {
    struct bop_case * c = bops_add(list, "LIGHTNING_INDEXER", build_indexer,
            "hsk=%d,nh=%d,kv=%d,nb=%d,ns=%d,nm=%d,type_K=%s,layout=%s", hsk, nh, kv, nb, ns, nm, bops_tname(tk),
            bops_layout_name(layout));
    if (c == NULL) {
        return false;
    }
    const int32_t p[7] = { hsk, nh, kv, nb, ns, nm, (int32_t) layout };
    for (int i = 0; i < 7; i++) {
        c->i[i] = p[i];
    }
    c->t[0] = tk;
    // K is read as stored (dequantized, never requantized): a float dot product, the family's bound
    c->bound = 1e-6;
    return true;
}

static bool cases_indexer(struct bop_cases * list) {
    static const enum ggml_type k_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q8_0,
        GGML_TYPE_Q5_1, GGML_TYPE_Q5_0, GGML_TYPE_Q4_1, GGML_TYPE_Q4_0, GGML_TYPE_IQ4_NL };
    const int nk = (int) (sizeof(k_types)/sizeof(k_types[0]));
    // the family's sweep, sampled: every K type at one configuration, then heads, batch sizes and
    // stream/mask broadcasting with one plain and one quantized K type
    for (int t = 0; t < nk; t++) {
        if (!add_indexer(list, 128, 32, 256, 8, 4, 1, k_types[t], BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    static const int streams[][2] = { { 1, 1 }, { 4, 4 }, { 4, 1 }, { 4, 2 } };
    for (int s = 0; s < 4; s++) {
        for (int nh = 32; nh <= 64; nh *= 2) {
            for (int nb = 1; nb <= 33; nb += 32) {
                const enum ggml_type tk = (s + nh/32 + nb) % 2 ? GGML_TYPE_F16 : GGML_TYPE_Q4_0;
                if (!add_indexer(list, 128, nh, 64, nb, streams[s][0], streams[s][1], tk, BOP_LAYOUT_CONT)) {
                    return false;
                }
            }
        }
    }
    // small and odd KV lengths (the family's second sweep)
    static const int kvs[] = { 1, 7, 8, 63, 64, 65 };
    for (int i = 0; i < 6; i++) {
        if (!add_indexer(list, 128, 64, kvs[i], 32, 4, 1, i % 2 ? GGML_TYPE_Q8_0 : GGML_TYPE_F32, BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    // strided (padded rows: float K only) and permuted views of every input, an odd head size
    return add_indexer(list, 128, 8, 19, 5, 2, 1, GGML_TYPE_F32, BOP_LAYOUT_PAD) &&
           add_indexer(list, 128, 8, 19, 5, 2, 2, GGML_TYPE_Q5_1, BOP_LAYOUT_PERM) &&
           add_indexer(list, 128, 4, 7, 3, 3, 1, GGML_TYPE_F16, BOP_LAYOUT_PERM) &&
           add_indexer(list, 40, 3, 11, 6, 1, 1, GGML_TYPE_F32, BOP_LAYOUT_CONT) &&
           add_indexer(list, 1, 1, 1, 1, 1, 1, GGML_TYPE_F32, BOP_LAYOUT_CONT);
}

//
// hyper-connections (hc = 4 streams): i[0] = kind, i[1] = n_embd, i[2] = n_tokens, i[3] = n_iter,
// i[4] = layout of the main input, f[0] = eps. Value ranges as the family's cases.
//

enum hc_kind { HC_COMB, HC_PRE, HC_POST };

#define HC 4

static struct ggml_tensor * build_hc(struct bop_graph * g, const struct bop_case * c) {
    const int64_t E = c->i[1], T = c->i[2];
    const enum bop_layout l = (enum bop_layout) c->i[4];
    switch ((enum hc_kind) c->i[0]) {
        case HC_COMB: {
            const int64_t ne_mix[4] = { (2 + HC)*HC, T, 1, 1 }, ne_s[4] = { 3, 1, 1, 1 }, ne_b[4] = { (2 + HC)*HC, 1, 1, 1 };
            struct ggml_tensor * mixes = bops_input(g, GGML_TYPE_F32, ne_mix, l, BOP_FILL_UNIFORM, -2.0, 2.0);
            struct ggml_tensor * scale = bops_input(g, GGML_TYPE_F32, ne_s, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -0.5, 0.5);
            struct ggml_tensor * base = bops_input(g, GGML_TYPE_F32, ne_b, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -0.25, 0.25);
            return mixes && scale && base ? ggml_dsv4_hc_comb(g->ctx, mixes, scale, base, c->f[0], c->i[3]) : NULL;
        }
        case HC_PRE: {
            const int64_t ne_x[4] = { E, HC, T, 1 }, ne_w[4] = { HC, T, 1, 1 };
            struct ggml_tensor * x = bops_input(g, GGML_TYPE_F32, ne_x, l, BOP_FILL_UNIFORM, -1.0, 1.0);
            struct ggml_tensor * w = bops_input(g, GGML_TYPE_F32, ne_w, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, 0.0, 1.0);
            return x && w ? ggml_dsv4_hc_pre(g->ctx, x, w) : NULL;
        }
        case HC_POST: {
            const int64_t ne_x[4] = { E, T, 1, 1 }, ne_r[4] = { E, HC, T, 1 }, ne_p[4] = { HC, T, 1, 1 };
            const int64_t ne_c[4] = { HC, HC, T, 1 };
            struct ggml_tensor * x = bops_input(g, GGML_TYPE_F32, ne_x, l, BOP_FILL_UNIFORM, -1.0, 1.0);
            struct ggml_tensor * r = bops_input(g, GGML_TYPE_F32, ne_r, l, BOP_FILL_UNIFORM, -1.0, 1.0);
            struct ggml_tensor * p = bops_input(g, GGML_TYPE_F32, ne_p, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, 0.0, 2.0);
            struct ggml_tensor * cb = bops_input(g, GGML_TYPE_F32, ne_c, l, BOP_FILL_UNIFORM, 0.0, 1.0);
            return x && r && p && cb ? ggml_dsv4_hc_post(g->ctx, x, r, p, cb) : NULL;
        }
    }
    return NULL;
}

static bool add_hc(struct bop_cases * list, enum hc_kind kind, int n_embd, int n_tokens, int n_iter, float eps,
        enum bop_layout layout) {
    static const char * names[] = { "DSV4_HC_COMB", "DSV4_HC_PRE", "DSV4_HC_POST" };
    struct bop_case * c = kind == HC_COMB
        ? bops_add(list, names[kind], build_hc, "n_tokens=%d,n_iter=%d,eps=%g,layout=%s", n_tokens, n_iter, (double) eps,
                   bops_layout_name(layout))
        : bops_add(list, names[kind], build_hc, "n_embd=%d,n_tokens=%d,layout=%s", n_embd, n_tokens,
                   bops_layout_name(layout));
    if (c == NULL) {
        return false;
    }
    c->i[0] = kind;
    c->i[1] = n_embd;
    c->i[2] = n_tokens;
    c->i[3] = n_iter;
    c->i[4] = layout;
    c->f[0] = eps;
    return true;
}

static bool cases_hc(struct bop_cases * list) {
    static const int comb[][2] = { { 1, 1 }, { 17, 4 }, { 257, 8 }, { 17, 20 } };
    for (int i = 0; i < 4; i++) {
        if (!add_hc(list, HC_COMB, 0, comb[i][0], comb[i][1], 1e-6f, BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    if (!add_hc(list, HC_COMB, 0, 9, 3, 1e-2f, BOP_LAYOUT_PAD) || !add_hc(list, HC_COMB, 0, 33, 2, 0.0f, BOP_LAYOUT_TRANS)) {
        return false;
    }
    static const int pp[][2] = { { 1, 1 }, { 31, 17 }, { 128, 257 }, { 4096, 21 } };
    for (int kind = HC_PRE; kind <= HC_POST; kind++) {
        for (int i = 0; i < 4; i++) {
            if (!add_hc(list, (enum hc_kind) kind, pp[i][0], pp[i][1], 0, 0.0f, BOP_LAYOUT_CONT)) {
                return false;
            }
        }
        if (!add_hc(list, (enum hc_kind) kind, 31, 5, 0, 0.0f, BOP_LAYOUT_PAD) ||
            !add_hc(list, (enum hc_kind) kind, 7, 6, 0, 0.0f, BOP_LAYOUT_PERM) ||
            !add_hc(list, (enum hc_kind) kind, 9, 3, 0, 0.0f, BOP_LAYOUT_TRANS)) {
            return false;
        }
    }
    return true;
}

bool bops_cases_dsv4(struct bop_cases * list) {
    return cases_indexer(list) && cases_hc(list);
}
