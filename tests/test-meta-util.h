#pragma once

// Helpers for the meta-device tests and bench: split-state tables looked up by tensor name,
// deterministic leaf data, a runner that computes one model graph on any backend (weights in a
// static buffer of its buffer type, compute tensors through ggml_gallocr), the normalized error,
// and the transformer block (attention split by heads, MLP column- then row-parallel, norms
// after the reductions).

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- split-state tables ---

#define MU_MAX_RULES 32

struct mu_rule {
    const char * name;  // tensor name (exact)
    struct ggml_backend_meta_split_state st;
};

struct mu_splits {
    size_t         n_devs;
    int            n_rules;
    struct mu_rule rules[MU_MAX_RULES];
};

static inline struct ggml_backend_meta_split_state mu_get_split_state(const struct ggml_tensor * t, void * ud) {
    const struct mu_splits * sp = (const struct mu_splits *) ud;
    for (int i = 0; i < sp->n_rules; i++) {
        if (strcmp(sp->rules[i].name, t->name) == 0) {
            return sp->rules[i].st;
        }
    }
    struct ggml_backend_meta_split_state m;
    memset(&m, 0, sizeof(m));
    m.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    return m;
}

static inline void mu_rule_axis(struct mu_splits * sp, const char * name, enum ggml_backend_meta_split_axis axis) {
    struct mu_rule * r = &sp->rules[sp->n_rules++];
    memset(r, 0, sizeof(*r));
    r->name = name;
    r->st.axis = axis;
}

// splits `total` along axis over the devices in proportion to weights (NULL: equal), in units
// of `unit` (e.g. a head), remainders to the first devices
static inline void mu_rule_split(struct mu_splits * sp, const char * name, enum ggml_backend_meta_split_axis axis,
                          int64_t total, int64_t unit, const double * weights) {
    mu_rule_axis(sp, name, axis);
    struct mu_rule * r = &sp->rules[sp->n_rules - 1];
    const size_t  n = sp->n_devs;
    const int64_t units = total / unit;
    double wsum = 0;
    for (size_t j = 0; j < n; j++) {
        wsum += weights ? weights[j] : 1.0;
    }
    int64_t given = 0;
    for (size_t j = 0; j < n; j++) {
        int64_t u = (int64_t) floor(units * (weights ? weights[j] : 1.0) / wsum);
        r->st.ne[j] = u;
        given += u;
    }
    for (size_t j = 0; given < units; j = (j + 1) % n) {
        r->st.ne[j]++;
        given++;
    }
    for (size_t j = 0; j < n; j++) {
        r->st.ne[j] *= unit;
    }
    r->st.n_segments = 1; // nr left 0 on purpose: read as 1 (the seed's form)
}

// --- data ---

static inline uint64_t mu_hash(const char * s, uint64_t seed) {
    uint64_t h = 1469598103934665603ull ^ seed;
    for (; *s; s++) {
        h = (h ^ (uint8_t) *s) * 1099511628211ull;
    }
    return h;
}

static inline float mu_value(uint64_t h, int64_t i) {
    uint64_t x = h + (uint64_t) i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 31; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 29; x *= 0x94d049bb133111ebull; x ^= x >> 32;
    return (float) ((double) (x >> 11) / (double) (1ull << 53) * 2.0 - 1.0);
}

// fills every tensor of ctx: F32 uniform in [-scale, scale] (names starting with "w" are scaled
// by 1/sqrt(ne0) so that products stay O(1)), I32 with i % 7 ("pos", "ids")
static inline void mu_fill(struct ggml_context * ctx, uint64_t seed) {
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        const int64_t n = ggml_nelements(t);
        if (t->type == GGML_TYPE_F32) {
            float * v = (float *) malloc((size_t) n * sizeof(float) + 1);
            const uint64_t h = mu_hash(t->name, seed);
            const float s = t->name[0] == 'w' ? 1.0f / sqrtf((float) t->ne[0]) : 1.0f;
            for (int64_t i = 0; i < n; i++) {
                v[i] = mu_value(h, i) * s;
            }
            ggml_backend_tensor_set(t, v, 0, ggml_nbytes(t));
            free(v);
        } else if (t->type == GGML_TYPE_I32) {
            int32_t * v = (int32_t *) malloc((size_t) n * sizeof(int32_t) + 1);
            for (int64_t i = 0; i < n; i++) {
                v[i] = (int32_t) (i % 7);
            }
            ggml_backend_tensor_set(t, v, 0, ggml_nbytes(t));
            free(v);
        }
    }
}

// normalized error sum (a-b)^2 / sum b^2
static inline double mu_nmse(const float * a, const float * b, int64_t n) {
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = (double) a[i] - (double) b[i];
        num += d * d;
        den += (double) b[i] * (double) b[i];
    }
    return den > 0 ? num / den : (num > 0 ? INFINITY : 0);
}

// --- running a model ---

// creates leaves in wctx (weights and inputs, named) and ops in cctx; returns the output
typedef struct ggml_tensor * (*mu_build_fn)(struct ggml_context * wctx, struct ggml_context * cctx, const void * ud);

struct mu_run {
    struct ggml_context * wctx;
    struct ggml_context * cctx;
    ggml_backend_buffer_t wbuf;
    ggml_gallocr_t        galloc;
    struct ggml_cgraph *  graph;
    struct ggml_tensor *  out;
};

static inline struct ggml_context * mu_ctx(size_t n) {
    struct ggml_init_params p = { n * ggml_tensor_overhead() + ggml_graph_overhead_custom(2048, false), NULL, true };
    return ggml_init(p);
}

static inline void mu_run_free(struct mu_run * r) {
    ggml_gallocr_free(r->galloc);
    ggml_backend_buffer_free(r->wbuf);
    ggml_free(r->cctx);
    ggml_free(r->wctx);
    memset(r, 0, sizeof(*r));
}

// builds and allocates: leaves in a static buffer of buft (filled from seed), compute through a
// gallocr of buft
static inline bool mu_run_init(struct mu_run * r, ggml_backend_buffer_type_t buft, mu_build_fn build, const void * ud, uint64_t seed) {
    memset(r, 0, sizeof(*r));
    r->wctx = mu_ctx(256);
    r->cctx = mu_ctx(2048);
    r->out = build(r->wctx, r->cctx, ud);
    if (r->out == NULL) {
        return false;
    }
    ggml_set_output(r->out);
    r->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(r->wctx, buft);
    if (r->wbuf == NULL) {
        return false;
    }
    ggml_backend_buffer_set_usage(r->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    mu_fill(r->wctx, seed);
    r->graph = ggml_new_graph_custom(r->cctx, 2048, false);
    ggml_build_forward_expand(r->graph, r->out);
    r->galloc = ggml_gallocr_new(buft);
    return ggml_gallocr_alloc_graph(r->galloc, r->graph);
}

// computes and returns the output (malloc'd), NULL on failure
static inline float * mu_compute(struct mu_run * r, ggml_backend_t backend) {
    if (ggml_backend_graph_compute(backend, r->graph) != GGML_STATUS_SUCCESS) {
        return NULL;
    }
    float * out = (float *) malloc(ggml_nbytes(r->out) + 1);
    ggml_backend_tensor_get(r->out, out, 0, ggml_nbytes(r->out));
    return out;
}

static inline float * mu_run_once(ggml_backend_t backend, ggml_backend_buffer_type_t buft, mu_build_fn build, const void * ud,
                           uint64_t seed, int64_t * n_out) {
    struct mu_run r;
    float * out = NULL;
    if (mu_run_init(&r, buft, build, ud, seed)) {
        out = mu_compute(&r, backend);
        *n_out = ggml_nelements(r.out);
    }
    mu_run_free(&r);
    return out;
}

// --- the transformer block ---

struct mu_block {
    int n_embd;   // D
    int n_head;   // heads of size D / n_head
    int n_ff;     // F
    int n_tokens; // T
};

static inline struct ggml_tensor * mu_leaf(struct ggml_context * ctx, const char * name, enum ggml_type type, int64_t ne0, int64_t ne1) {
    struct ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, type, ne0, ne1) : ggml_new_tensor_1d(ctx, type, ne0);
    ggml_set_name(t, name);
    return t;
}

static inline struct ggml_tensor * mu_build_block(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    const struct mu_block * p = (const struct mu_block *) ud;
    const int D = p->n_embd, H = p->n_head, hd = D / H, F = p->n_ff, T = p->n_tokens;
    struct ggml_tensor * x    = mu_leaf(w, "x", GGML_TYPE_F32, D, T);
    struct ggml_tensor * pos  = mu_leaf(w, "pos", GGML_TYPE_I32, T, 0);
    struct ggml_tensor * mask = mu_leaf(w, "mask", GGML_TYPE_F32, T, T);
    struct ggml_tensor * wq   = mu_leaf(w, "wq", GGML_TYPE_F32, D, D);
    struct ggml_tensor * wk   = mu_leaf(w, "wk", GGML_TYPE_F32, D, D);
    struct ggml_tensor * wv   = mu_leaf(w, "wv", GGML_TYPE_F32, D, D);
    struct ggml_tensor * wo   = mu_leaf(w, "wo", GGML_TYPE_F32, D, D);
    struct ggml_tensor * bq   = mu_leaf(w, "bq", GGML_TYPE_F32, D, 0);
    struct ggml_tensor * g1   = mu_leaf(w, "g1", GGML_TYPE_F32, D, 0);
    struct ggml_tensor * wup  = mu_leaf(w, "wup", GGML_TYPE_F32, D, F);
    struct ggml_tensor * wgt  = mu_leaf(w, "wgate", GGML_TYPE_F32, D, F);
    struct ggml_tensor * wdn  = mu_leaf(w, "wdown", GGML_TYPE_F32, F, D);
    struct ggml_tensor * g2   = mu_leaf(w, "g2", GGML_TYPE_F32, D, 0);

    // attention, heads local to each device
    struct ggml_tensor * q = ggml_add(c, ggml_mul_mat(c, wq, x), bq);
    q = ggml_rope(c, ggml_reshape_3d(c, q, hd, H, T), pos, hd, 0);
    struct ggml_tensor * k = ggml_rope(c, ggml_reshape_3d(c, ggml_mul_mat(c, wk, x), hd, H, T), pos, hd, 0);
    struct ggml_tensor * v = ggml_reshape_3d(c, ggml_mul_mat(c, wv, x), hd, H, T);
    q = ggml_permute(c, q, 0, 2, 1, 3);                       // [hd, T, H]
    k = ggml_permute(c, k, 0, 2, 1, 3);                       // [hd, T, H]
    v = ggml_cont(c, ggml_permute(c, v, 1, 2, 0, 3));         // [T, hd, H]
    struct ggml_tensor * kq = ggml_mul_mat(c, k, q);          // [T, T, H]
    kq = ggml_soft_max_ext(c, kq, mask, 1.0f / sqrtf((float) hd), 0.0f);
    struct ggml_tensor * kqv = ggml_mul_mat(c, v, kq);        // [hd, T, H]
    kqv = ggml_cont(c, ggml_permute(c, kqv, 0, 2, 1, 3));    // [hd, H, T]
    kqv = ggml_reshape_2d(c, kqv, D, T);
    struct ggml_tensor * attn = ggml_mul_mat(c, wo, kqv);     // partial sums
    ggml_set_name(attn, "attn_out");
    struct ggml_tensor * h = ggml_add(c, attn, x);            // needs the reduction
    struct ggml_tensor * hn = ggml_mul(c, ggml_rms_norm(c, h, 1e-5f), g1);

    // MLP: column parallel up/gate, row parallel down
    struct ggml_tensor * up   = ggml_mul_mat(c, wup, hn);
    struct ggml_tensor * gate = ggml_silu(c, ggml_mul_mat(c, wgt, hn));
    struct ggml_tensor * down = ggml_mul_mat(c, wdn, ggml_mul(c, gate, up));
    ggml_set_name(down, "ffn_out");
    struct ggml_tensor * out = ggml_add(c, down, h);
    out = ggml_mul(c, ggml_rms_norm(c, out, 1e-5f), g2);
    ggml_set_name(out, "out");
    return out;
}

// the family's tensor-parallel layout for the block, heads and ff split by weights (NULL: even)
static inline void mu_block_splits(struct mu_splits * sp, size_t n_devs, const struct mu_block * p, const double * weights) {
    memset(sp, 0, sizeof(*sp));
    sp->n_devs = n_devs;
    const int hd = p->n_embd / p->n_head;
    mu_rule_split(sp, "wq", GGML_BACKEND_SPLIT_AXIS_1, p->n_embd, hd, weights);
    mu_rule_split(sp, "wk", GGML_BACKEND_SPLIT_AXIS_1, p->n_embd, hd, weights);
    mu_rule_split(sp, "wv", GGML_BACKEND_SPLIT_AXIS_1, p->n_embd, hd, weights);
    mu_rule_split(sp, "bq", GGML_BACKEND_SPLIT_AXIS_0, p->n_embd, hd, weights);
    mu_rule_split(sp, "wo", GGML_BACKEND_SPLIT_AXIS_0, p->n_embd, hd, weights);
    mu_rule_split(sp, "wup", GGML_BACKEND_SPLIT_AXIS_1, p->n_ff, 1, weights);
    mu_rule_split(sp, "wgate", GGML_BACKEND_SPLIT_AXIS_1, p->n_ff, 1, weights);
    mu_rule_split(sp, "wdown", GGML_BACKEND_SPLIT_AXIS_0, p->n_ff, 1, weights);
}
