// Fused weights: a layer's Q, K and V weights stored as one [n_embd, n_q + n_k + n_v] weight, and
// its FFN gate and up as one [n_embd, 2 n_ff] weight, so that a layer makes 4 products instead of 7
// (fewer nodes, barriers and activation quantizations per token). Rows of a weight are independent
// (quantized rows are whole blocks), so the parts concatenate bit-exactly: the fused tensor is
// allocated first and each part is placed inside it, then the file's data is read into the parts
// as before (no copy). The graph (llm-graph.c) takes Q/K/V as views of the fused product and
// computes SwiGLU on the fused rows: the family's GLU convention activates the first half.
#include "llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool llm_fuse_enabled(void) {
    const char * e = getenv("GGML_LLM_FUSE");
    return !(e && strcmp(e, "0") == 0);
}

// a plain 2-D weight whose memory in buft is exactly its bytes (so that parts abut)
static bool plain(const struct ggml_tensor * t, ggml_backend_buffer_type_t buft) {
    return t && t->ne[2] == 1 && t->ne[3] == 1 && ggml_is_contiguous(t) &&
           ggml_backend_buft_get_alloc_size(buft, t) == ggml_nbytes(t);
}

// matrices (vec false) whose rows have one length, or vectors (vec true) of any lengths
static bool fusable(struct ggml_tensor * const * parts, int n, bool vec, ggml_backend_buffer_type_t buft) {
    for (int i = 0; i < n; i++) {
        if (!plain(parts[i], buft) || parts[i]->type != parts[0]->type || (vec ? parts[i]->ne[1] != 1 :
                                                                            parts[i]->ne[0] != parts[0]->ne[0])) {
            return false;
        }
    }
    return true;
}

// the Q/K/V biases: none, or three F32 vectors as long as their weights' rows
static bool biases_fusable(const struct llm_layer * l, ggml_backend_buffer_type_t buft) {
    if (!l->bq && !l->bk && !l->bv) {
        return true;
    }
    struct ggml_tensor * b[3] = { l->bq, l->bk, l->bv };
    const struct ggml_tensor * w[3] = { l->wq, l->wk, l->wv };
    for (int i = 0; i < 3; i++) {
        if (!b[i] || b[i]->type != GGML_TYPE_F32 || ggml_n_dims(b[i]) != 1 || b[i]->ne[0] != w[i]->ne[1]) {
            return false;
        }
    }
    return fusable(b, 3, true, buft);
}

// whether dev computes what the fused graph adds: RoPE on strided views of the QKV product, the
// V view written into the cache (set_rows and cpy, F16 and F32 caches), SwiGLU on fused rows
static bool device_takes_fused_graph(ggml_backend_dev_t dev, const struct llm_model * m) {
    const struct llm_hparams * hp = &m->hp;
    const struct llm_layer * l = &m->layers[0];
    const int64_t hd = hp->n_embd / hp->n_head, n_q = l->wq->ne[1], n_k = l->wk->ne[1], n_v = l->wv->ne[1];
    const int64_t n_tok = 4;
    struct ggml_init_params ip = { .mem_size = 32 * ggml_tensor_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * ctx = ggml_init(ip);
    if (!ctx) {
        return false;
    }
    bool ok = true;
    struct ggml_tensor * qkv = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n_q + n_k + n_v, n_tok);
    struct ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n_tok);
    struct ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, n_tok);
    struct ggml_tensor * gu  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2 * hp->n_ff, n_tok);
    ok = qkv && pos && idx && gu;
    struct ggml_tensor * ops[8] = { 0 };
    int n_ops = 0;
    if (ok) {
        struct ggml_tensor * q = ggml_view_3d(ctx, qkv, hd, n_q / hd, n_tok, hd * sizeof(float), qkv->nb[1], 0);
        struct ggml_tensor * k = ggml_view_3d(ctx, qkv, hd, n_k / hd, n_tok, hd * sizeof(float), qkv->nb[1],
                                              (size_t) n_q * sizeof(float));
        struct ggml_tensor * v = ggml_view_2d(ctx, qkv, n_v, n_tok, qkv->nb[1], (size_t) (n_q + n_k) * sizeof(float));
        ops[n_ops++] = ggml_rope_ext(ctx, q, pos, NULL, (int) hp->n_rot, GGML_ROPE_TYPE_NORMAL, (int) hp->n_ctx_train,
                                     hp->rope_base, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        ops[n_ops++] = ggml_rope_ext(ctx, k, pos, NULL, (int) hp->n_rot, GGML_ROPE_TYPE_NORMAL, (int) hp->n_ctx_train,
                                     hp->rope_base, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        const enum ggml_type cache_types[2] = { GGML_TYPE_F16, GGML_TYPE_F32 };
        for (int i = 0; i < 2; i++) {
            struct ggml_tensor * cache = ggml_new_tensor_2d(ctx, cache_types[i], n_v, 2 * n_tok);
            ops[n_ops++] = cache ? ggml_set_rows(ctx, cache, v, idx) : NULL;
            ops[n_ops++] = cache ? ggml_cpy(ctx, v, ggml_view_2d(ctx, cache, n_v, n_tok, cache->nb[1], 0)) : NULL;
        }
        ops[n_ops++] = ggml_swiglu(ctx, gu);
    }
    for (int i = 0; ok && i < n_ops; i++) {
        ok = ops[i] && ggml_backend_dev_supports_op(dev, ops[i]);
    }
    ggml_free(ctx);
    return ok;
}

// the parts concatenated: vectors along axis 0, matrices along their rows (axis 1)
static struct ggml_tensor * fused_tensor(struct ggml_context * ctx, struct ggml_tensor * const * parts, int n, bool vec,
                                         const char * fmt, int il) {
    int64_t rows = 0;
    for (int i = 0; i < n; i++) {
        rows += vec ? parts[i]->ne[0] : parts[i]->ne[1];
    }
    struct ggml_tensor * t = vec ? ggml_new_tensor_1d(ctx, parts[0]->type, rows)
                                 : ggml_new_tensor_2d(ctx, parts[0]->type, parts[0]->ne[0], rows);
    if (t) {
        ggml_format_name(t, fmt, il);
    }
    return t;
}

bool llm_fuse_plan(struct llm_model * m, ggml_backend_dev_t dev) {
    if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_META || !device_takes_fused_graph(dev, m)) {
        return true;   // nothing fused: the model runs as loaded
    }
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);
    struct ggml_init_params ip = { .mem_size = 3 * (size_t) m->hp.n_layer * ggml_tensor_overhead(), .mem_buffer = NULL,
                                   .no_alloc = true };
    m->ctx_fused = ggml_init(ip);
    if (!m->ctx_fused) {
        fprintf(stderr, "error: out of memory\n");
        return false;
    }
    for (uint32_t il = 0; il < m->hp.n_layer; il++) {
        struct llm_layer * l = &m->layers[il];
        struct ggml_tensor * qkv[3] = { l->wq, l->wk, l->wv };
        // the graph's views take n_embd rows of Q, then n_embd_kv of K and of V
        const int64_t n_embd_kv = (int64_t) m->hp.n_embd / m->hp.n_head * m->hp.n_head_kv;
        if (fusable(qkv, 3, false, buft) && biases_fusable(l, buft) && l->wq->ne[1] == (int64_t) m->hp.n_embd &&
            l->wk->ne[1] == n_embd_kv && l->wv->ne[1] == n_embd_kv) {
            l->wqkv = fused_tensor(m->ctx_fused, qkv, 3, false, "blk.%d.attn_qkv.weight", (int) il);
            if (l->bq) {
                struct ggml_tensor * b[3] = { l->bq, l->bk, l->bv };
                l->bqkv = fused_tensor(m->ctx_fused, b, 3, true, "blk.%d.attn_qkv.bias", (int) il);
            }
        }
        struct ggml_tensor * gu[2] = { l->ffn_gate, l->ffn_up };
        if (fusable(gu, 2, false, buft) && l->ffn_gate->ne[1] == l->ffn_up->ne[1]) {
            l->ffn_gate_up = fused_tensor(m->ctx_fused, gu, 2, false, "blk.%d.ffn_gate_up.weight", (int) il);
        }
    }
    return true;
}

// places parts[0..n) one after the other inside t's memory
static bool place_parts(struct ggml_tensor * t, struct ggml_tensor * const * parts, int n) {
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        if (ggml_backend_tensor_alloc(t->buffer, parts[i], (char *) t->data + off) != GGML_STATUS_SUCCESS) {
            return false;
        }
        off += ggml_nbytes(parts[i]);
    }
    return off == ggml_nbytes(t);
}

bool llm_fuse_place(struct llm_model * m, ggml_backend_buffer_type_t buft) {
    if (!m->ctx_fused || !ggml_get_first_tensor(m->ctx_fused)) {
        return true;
    }
    m->buf_fused = ggml_backend_alloc_ctx_tensors_from_buft(m->ctx_fused, buft);
    if (!m->buf_fused) {
        return false;
    }
    ggml_backend_buffer_set_usage(m->buf_fused, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    for (uint32_t il = 0; il < m->hp.n_layer; il++) {
        struct llm_layer * l = &m->layers[il];
        struct ggml_tensor * qkv[3] = { l->wq, l->wk, l->wv }, * b[3] = { l->bq, l->bk, l->bv };
        struct ggml_tensor * gu[2] = { l->ffn_gate, l->ffn_up };
        if ((l->wqkv && !place_parts(l->wqkv, qkv, 3)) || (l->bqkv && !place_parts(l->bqkv, b, 3)) ||
            (l->ffn_gate_up && !place_parts(l->ffn_gate_up, gu, 2))) {
            return false;
        }
    }
    return true;
}
