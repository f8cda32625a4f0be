// Loading a llama-architecture GGUF: hyperparameters from the file's keys, weights into a buffer
// of the chosen device (usage WEIGHTS) read with gguf_load_tensors in large chunks.
#include "llm.h"
#include "ggml-alloc.h"
#include "gguf-load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool key_uint(const struct gguf_context * g, const char * arch, const char * name, bool required,
                     uint32_t * out) {
    char key[256];
    snprintf(key, sizeof(key), "%s.%s", arch, name);
    int64_t id = gguf_find_key(g, key);
    if (id < 0) {
        if (required) {
            fprintf(stderr, "error: the model has no key %s\n", key);
        }
        return !required;
    }
    switch (gguf_get_kv_type(g, id)) {
        case GGUF_TYPE_UINT32: *out = gguf_get_val_u32(g, id); return true;
        case GGUF_TYPE_INT32:  *out = (uint32_t) gguf_get_val_i32(g, id); return true;
        case GGUF_TYPE_UINT64: *out = (uint32_t) gguf_get_val_u64(g, id); return true;
        default:
            fprintf(stderr, "error: the model's key %s is not an integer\n", key);
            return false;
    }
}

static bool key_float(const struct gguf_context * g, const char * arch, const char * name, bool required,
                      float * out) {
    char key[256];
    snprintf(key, sizeof(key), "%s.%s", arch, name);
    int64_t id = gguf_find_key(g, key);
    if (id < 0) {
        if (required) {
            fprintf(stderr, "error: the model has no key %s\n", key);
        }
        return !required;
    }
    if (gguf_get_kv_type(g, id) != GGUF_TYPE_FLOAT32) {
        fprintf(stderr, "error: the model's key %s is not a float\n", key);
        return false;
    }
    *out = gguf_get_val_f32(g, id);
    return true;
}

static struct ggml_tensor * weight(const struct llm_model * m, bool required, const char * fmt, int il) {
    char name[GGML_MAX_NAME];
    snprintf(name, sizeof(name), fmt, il);
    struct ggml_tensor * t = ggml_get_tensor(m->ctx_w, name);
    if (!t && required) {
        fprintf(stderr, "error: the model has no tensor %s\n", name);
    }
    return t;
}

static bool read_hparams(struct llm_model * m) {
    const struct gguf_context * g = m->gguf;
    int64_t id = gguf_find_key(g, "general.architecture");
    if (id < 0 || gguf_get_kv_type(g, id) != GGUF_TYPE_STRING) {
        fprintf(stderr, "error: the model has no general.architecture\n");
        return false;
    }
    const char * arch = gguf_get_val_str(g, id);
    if (strcmp(arch, "llama") != 0 && strcmp(arch, "qwen2") != 0) {
        fprintf(stderr, "error: unknown architecture '%s' (supported: llama, qwen2)\n", arch);
        return false;
    }
    struct llm_hparams * hp = &m->hp;
    memset(hp, 0, sizeof(*hp));
    hp->rope_base = 10000.0f;
    if (!key_uint(g, arch, "context_length", true, &hp->n_ctx_train) ||
        !key_uint(g, arch, "embedding_length", true, &hp->n_embd) ||
        !key_uint(g, arch, "block_count", true, &hp->n_layer) ||
        !key_uint(g, arch, "feed_forward_length", true, &hp->n_ff) ||
        !key_uint(g, arch, "attention.head_count", true, &hp->n_head) ||
        !key_float(g, arch, "attention.layer_norm_rms_epsilon", true, &hp->norm_eps) ||
        !key_float(g, arch, "rope.freq_base", false, &hp->rope_base)) {
        return false;
    }
    hp->n_head_kv = hp->n_head;
    if (!key_uint(g, arch, "attention.head_count_kv", false, &hp->n_head_kv)) {
        return false;
    }
    if (hp->n_layer == 0 || hp->n_layer > LLM_MAX_LAYERS || hp->n_head == 0 || hp->n_head_kv == 0 ||
        hp->n_head % hp->n_head_kv != 0 || hp->n_embd % hp->n_head != 0) {
        fprintf(stderr, "error: the model's hyperparameters are inconsistent (layers %u, heads %u/%u, dims %u)\n",
                hp->n_layer, hp->n_head, hp->n_head_kv, hp->n_embd);
        return false;
    }
    hp->n_rot = hp->n_embd / hp->n_head;
    if (!key_uint(g, arch, "rope.dimension_count", false, &hp->n_rot)) {
        return false;
    }
    return true;
}

static bool bind_weights(struct llm_model * m) {
    const struct llm_hparams * hp = &m->hp;
    m->tok_embd = weight(m, true, "token_embd.weight", 0);
    m->out_norm = weight(m, true, "output_norm.weight", 0);
    m->output   = weight(m, false, "output.weight", 0);
    if (!m->output) {
        m->output = m->tok_embd;   // tied embeddings
    }
    if (!m->tok_embd || !m->out_norm) {
        return false;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct llm_layer * l = &m->layers[il];
        int i = (int) il;
        l->attn_norm = weight(m, true, "blk.%d.attn_norm.weight", i);
        l->wq        = weight(m, true, "blk.%d.attn_q.weight", i);
        l->wk        = weight(m, true, "blk.%d.attn_k.weight", i);
        l->wv        = weight(m, true, "blk.%d.attn_v.weight", i);
        l->wo        = weight(m, true, "blk.%d.attn_output.weight", i);
        l->bq        = weight(m, false, "blk.%d.attn_q.bias", i);
        l->bk        = weight(m, false, "blk.%d.attn_k.bias", i);
        l->bv        = weight(m, false, "blk.%d.attn_v.bias", i);
        l->ffn_norm  = weight(m, true, "blk.%d.ffn_norm.weight", i);
        l->ffn_gate  = weight(m, true, "blk.%d.ffn_gate.weight", i);
        l->ffn_up    = weight(m, true, "blk.%d.ffn_up.weight", i);
        l->ffn_down  = weight(m, true, "blk.%d.ffn_down.weight", i);
        if (!l->attn_norm || !l->wq || !l->wk || !l->wv || !l->wo || !l->ffn_norm || !l->ffn_gate ||
            !l->ffn_up || !l->ffn_down) {
            return false;
        }
    }
    const int64_t n_embd_kv = (int64_t) hp->n_embd / hp->n_head * hp->n_head_kv;
    if (m->tok_embd->ne[0] != hp->n_embd || m->layers[0].wk->ne[1] != n_embd_kv ||
        m->layers[0].ffn_up->ne[1] != hp->n_ff || m->output->ne[0] != hp->n_embd) {
        fprintf(stderr, "error: the model's tensor shapes do not match its hyperparameters\n");
        return false;
    }
    m->hp.n_vocab = (uint32_t) m->output->ne[1];
    return true;
}

static struct llm_model * load(const char * fname, ggml_backend_buffer_type_t buft, ggml_backend_dev_t fuse_dev) {
    FILE * f = fopen(fname, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open the model file '%s'\n", fname);
        return NULL;
    }
    fclose(f);
    struct llm_model * m = calloc(1, sizeof(*m));
    if (!m) {
        fprintf(stderr, "error: out of memory\n");
        return NULL;
    }
    struct gguf_init_params params = { .no_alloc = true, .ctx = &m->ctx_w };
    ggml_clear_last_error();
    m->gguf = gguf_init_from_file(fname, params);
    if (!m->gguf) {
        llm_print_error("the model file is not a valid GGUF file");
        llm_model_free(m);
        return NULL;
    }
    if (!read_hparams(m) || !bind_weights(m) || (fuse_dev && !llm_fuse_plan(m, fuse_dev))) {
        llm_model_free(m);
        return NULL;
    }
    // the fused weights first: the parts placed inside them are then left out of buf_w
    if (!llm_fuse_place(m, buft)) {
        llm_print_error("cannot allocate the fused weights in the device's memory");
        llm_model_free(m);
        return NULL;
    }
    m->buf_w = ggml_backend_alloc_ctx_tensors_from_buft(m->ctx_w, buft);
    if (!m->buf_w) {
        llm_print_error("cannot allocate the weights in the device's memory");
        llm_model_free(m);
        return NULL;
    }
    ggml_backend_buffer_set_usage(m->buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    if (!gguf_load_tensors(m->gguf, m->ctx_w, fname, 0, NULL, NULL)) {
        llm_print_error("cannot read the model's weights");
        llm_model_free(m);
        return NULL;
    }
    return m;
}

struct llm_model * llm_model_load(const char * fname, ggml_backend_buffer_type_t buft) {
    return load(fname, buft, NULL);
}

struct llm_model * llm_model_load_ext(const char * fname, ggml_backend_dev_t dev, bool fuse) {
    return load(fname, ggml_backend_dev_buffer_type(dev), fuse ? dev : NULL);
}

void llm_model_free(struct llm_model * m) {
    if (!m) {
        return;
    }
    ggml_backend_buffer_free(m->buf_w);
    ggml_free(m->ctx_w);
    ggml_backend_buffer_free(m->buf_fused);
    ggml_free(m->ctx_fused);
    gguf_free(m->gguf);
    free(m);
}
