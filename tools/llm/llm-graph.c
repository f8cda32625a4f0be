// The llama decoder graph with the public API: get_rows embeddings, pre-norm attention with
// grouped-query heads (the K/V heads broadcast over the query heads by mul_mat), RoPE, the KV cache,
// causal masking, SwiGLU FFN, final norm, logits of the last position only unless asked.
#include "llm.h"

#include <math.h>

#define LLM_GRAPH_NODES_PER_LAYER 64

size_t llm_graph_size(const struct llm_model * model);
size_t llm_graph_size(const struct llm_model * model) {
    return 1024 + (size_t) model->hp.n_layer * LLM_GRAPH_NODES_PER_LAYER;
}

static struct ggml_tensor * norm(struct ggml_context * ctx, struct ggml_tensor * x, struct ggml_tensor * w, float eps) {
    return ggml_mul(ctx, ggml_rms_norm(ctx, x, eps), w);
}

static struct ggml_tensor * linear(struct ggml_context * ctx, struct ggml_tensor * w, struct ggml_tensor * b,
                                   struct ggml_tensor * x) {
    struct ggml_tensor * y = ggml_mul_mat(ctx, w, x);
    return b ? ggml_add(ctx, y, b) : y;
}

static struct ggml_tensor * attention(struct ggml_context * ctx, struct ggml_cgraph * gf, const struct llm_model * m,
                                      const struct llm_kv_cache * kv, int il, struct ggml_tensor * cur,
                                      struct ggml_tensor * pos, struct ggml_tensor * mask, struct ggml_tensor * kv_rows,
                                      int n_tokens, int n_past, int n_kv) {
    const struct llm_hparams * hp = &m->hp;
    const struct llm_layer * l = &m->layers[il];
    const int64_t hd = hp->n_embd / hp->n_head;
    const int64_t n_embd_kv = hd * hp->n_head_kv;

    struct ggml_tensor * q, * k, * v;
    if (l->wqkv) {
        // one product; Q, K and V are views of its rows (RoPE and the cache writes take strided views)
        struct ggml_tensor * qkv = linear(ctx, l->wqkv, l->bqkv, cur);       // [n_q + n_k + n_v, n_tokens]
        const size_t fs = sizeof(float);
        q = ggml_view_3d(ctx, qkv, hd, hp->n_head, n_tokens, hd * fs, qkv->nb[1], 0);
        k = ggml_view_3d(ctx, qkv, hd, hp->n_head_kv, n_tokens, hd * fs, qkv->nb[1], (size_t) hp->n_embd * fs);
        v = ggml_view_2d(ctx, qkv, n_embd_kv, n_tokens, qkv->nb[1], (size_t) (hp->n_embd + n_embd_kv) * fs);
    } else {
        q = ggml_reshape_3d(ctx, linear(ctx, l->wq, l->bq, cur), hd, hp->n_head, n_tokens);
        k = ggml_reshape_3d(ctx, linear(ctx, l->wk, l->bk, cur), hd, hp->n_head_kv, n_tokens);
        v = linear(ctx, l->wv, l->bv, cur);
    }
    q = ggml_rope_ext(ctx, q, pos, NULL, (int) hp->n_rot, GGML_ROPE_TYPE_NORMAL, (int) hp->n_ctx_train,
                      hp->rope_base, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    k = ggml_rope_ext(ctx, k, pos, NULL, (int) hp->n_rot, GGML_ROPE_TYPE_NORMAL, (int) hp->n_ctx_train,
                      hp->rope_base, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);

    // store this batch's K and V in the cache; the copies come first in the graph's order
    struct ggml_tensor * kc = kv->k[il], * vc = kv->v[il];
    if (kv_rows) {
        // rows chosen by an input: the graph does not depend on the position
        ggml_build_forward_expand(gf, ggml_set_rows(ctx, kc, ggml_reshape_2d(ctx, k, n_embd_kv, n_tokens), kv_rows));
        ggml_build_forward_expand(gf, ggml_set_rows(ctx, vc, v, kv_rows));
    } else {
        ggml_build_forward_expand(gf, ggml_cpy(ctx, ggml_reshape_2d(ctx, k, n_embd_kv, n_tokens),
                                               ggml_view_2d(ctx, kc, n_embd_kv, n_tokens, kc->nb[1], (size_t) n_past * kc->nb[1])));
        ggml_build_forward_expand(gf, ggml_cpy(ctx, v,
                                               ggml_view_2d(ctx, vc, n_embd_kv, n_tokens, vc->nb[1], (size_t) n_past * vc->nb[1])));
    }

    const size_t es = ggml_element_size(kc);
    struct ggml_tensor * K = ggml_permute(ctx, ggml_view_3d(ctx, kc, hd, hp->n_head_kv, n_kv, hd * es, kc->nb[1], 0), 0, 2, 1, 3);
    struct ggml_tensor * Q = ggml_permute(ctx, q, 0, 2, 1, 3);               // [hd, n_tokens, n_head]
    if (mask) {
        struct ggml_tensor * Vf = ggml_permute(ctx, ggml_view_3d(ctx, vc, hd, hp->n_head_kv, n_kv, hd * es, vc->nb[1], 0), 0, 2, 1, 3);
        struct ggml_tensor * o = ggml_flash_attn_ext(ctx, Q, K, Vf, mask, 1.0f / sqrtf((float) hd), 0.0f, 0.0f);
        return ggml_mul_mat(ctx, l->wo, ggml_reshape_2d(ctx, o, hp->n_embd, n_tokens));  // o: [hd, n_head, n_tokens]
    }
    struct ggml_tensor * V = ggml_cont(ctx, ggml_permute(ctx, ggml_view_3d(ctx, vc, hd, hp->n_head_kv, n_kv, hd * es, vc->nb[1], 0), 1, 2, 0, 3));

    struct ggml_tensor * kq = ggml_mul_mat(ctx, K, Q);                         // [n_kv, n_tokens, n_head]
    kq = ggml_scale(ctx, kq, 1.0f / sqrtf((float) hd));
    kq = ggml_diag_mask_inf(ctx, kq, n_past);
    kq = ggml_soft_max(ctx, kq);
    struct ggml_tensor * kqv = ggml_mul_mat(ctx, V, kq);                       // [hd, n_tokens, n_head]
    struct ggml_tensor * merged = ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), hp->n_embd, n_tokens);
    return ggml_mul_mat(ctx, l->wo, merged);
}

struct ggml_cgraph * llm_build_graph(struct ggml_context * ctx, const struct llm_model * m,
                                     const struct llm_kv_cache * kv, int n_tokens, int n_past, bool all_logits,
                                     bool flash_attn) {
    return llm_build_graph_ext(ctx, m, kv, n_tokens, n_past, n_past + n_tokens, all_logits, flash_attn, false);
}

struct ggml_cgraph * llm_build_graph_ext(struct ggml_context * ctx, const struct llm_model * m,
                                         const struct llm_kv_cache * kv, int n_tokens, int n_past, int n_kv,
                                         bool all_logits, bool flash_attn, bool kv_by_rows) {
    const struct llm_hparams * hp = &m->hp;
    // without flash attention the causal mask (diag_mask_inf) hides nothing past the last token
    if (n_kv < n_past + n_tokens || (uint32_t) n_kv > kv->n_ctx || (!flash_attn && (kv_by_rows || n_kv != n_past + n_tokens))) {
        return NULL;
    }
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, llm_graph_size(m), false);
    struct ggml_tensor * tokens = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n_tokens);
    struct ggml_tensor * pos    = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n_tokens);
    if (!gf || !tokens || !pos) {
        return NULL;
    }
    ggml_set_name(tokens, "inp_tokens");
    ggml_set_input(tokens);
    ggml_set_name(pos, "inp_pos");
    ggml_set_input(pos);
    struct ggml_tensor * mask = NULL;
    if (flash_attn) {
        mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, n_kv, n_tokens);
        if (!mask) {
            return NULL;
        }
        ggml_set_name(mask, "inp_mask");
        ggml_set_input(mask);
    }
    struct ggml_tensor * kv_rows = NULL;
    if (kv_by_rows) {
        kv_rows = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, n_tokens);
        if (!kv_rows) {
            return NULL;
        }
        ggml_set_name(kv_rows, "inp_kv_rows");
        ggml_set_input(kv_rows);
    }

    struct ggml_tensor * x = ggml_get_rows(ctx, m->tok_embd, tokens);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        const struct llm_layer * l = &m->layers[il];
        struct ggml_tensor * cur = norm(ctx, x, l->attn_norm, hp->norm_eps);
        x = ggml_add(ctx, x, attention(ctx, gf, m, kv, (int) il, cur, pos, mask, kv_rows, n_tokens, n_past, n_kv));
        cur = norm(ctx, x, l->ffn_norm, hp->norm_eps);
        if (l->ffn_gate_up) {
            cur = ggml_swiglu(ctx, ggml_mul_mat(ctx, l->ffn_gate_up, cur));   // silu(first half) * second half
        } else {
            cur = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, l->ffn_gate, cur), ggml_mul_mat(ctx, l->ffn_up, cur));
        }
        x = ggml_add(ctx, x, ggml_mul_mat(ctx, l->ffn_down, cur));
    }
    if (!all_logits && n_tokens > 1) {
        x = ggml_view_2d(ctx, x, hp->n_embd, 1, x->nb[1], (size_t) (n_tokens - 1) * x->nb[1]);
    }
    x = norm(ctx, x, m->out_norm, hp->norm_eps);
    struct ggml_tensor * logits = ggml_mul_mat(ctx, m->output, x);
    if (!logits) {
        return NULL;
    }
    ggml_set_name(logits, "logits");
    ggml_set_output(logits);
    ggml_build_forward_expand(gf, logits);
    return gf;
}
