// What --verbose prints: the device table, where each layer's weights and KV cache went, and how
// the scheduler splits a one-token graph between the backends.
#include "llm.h"

#include <stdio.h>
#include <string.h>

void llm_print_devices(FILE * f) {
    fprintf(f, "devices:\n");
    fprintf(f, "  %-10s %-6s %12s %12s  %s\n", "name", "type", "free MiB", "total MiB", "description");
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        size_t free_b = 0, total_b = 0;
        ggml_backend_dev_memory(d, &free_b, &total_b);
        enum ggml_backend_dev_type t = ggml_backend_dev_type(d);
        fprintf(f, "  %-10s %-6s %12.0f %12.0f  %s\n", ggml_backend_dev_name(d),
                t == GGML_BACKEND_DEVICE_TYPE_CPU ? "CPU" : t == GGML_BACKEND_DEVICE_TYPE_GPU ? "GPU" :
                t == GGML_BACKEND_DEVICE_TYPE_IGPU ? "iGPU" : t == GGML_BACKEND_DEVICE_TYPE_META ? "meta" : "accel",
                free_b / 1048576.0, total_b / 1048576.0, ggml_backend_dev_description(d));
    }
}

static const char * buffer_name(const struct ggml_tensor * t) {
    return t && t->buffer ? ggml_backend_buffer_name(t->buffer) : "(none)";
}

// the layer's tensors' bytes, and the name of the buffer they share (or "mixed")
static size_t layer_bytes(const struct llm_layer * l, const char ** where) {
    const struct ggml_tensor * ts[] = { l->attn_norm, l->wq, l->wk, l->wv, l->wo, l->bq, l->bk, l->bv,
                                        l->ffn_norm, l->ffn_gate, l->ffn_up, l->ffn_down };
    size_t n = 0;
    *where = NULL;
    for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
        if (!ts[i]) continue;
        n += ggml_nbytes(ts[i]);
        const char * b = buffer_name(ts[i]);
        *where = !*where || strcmp(*where, b) == 0 ? b : "mixed";
    }
    return n;
}

static void print_layers(FILE * f, const struct llm_context * lctx) {
    const struct llm_model * m = lctx->model;
    fprintf(f, "weights (%s):\n", ggml_type_name(m->layers[0].wq ? m->layers[0].wq->type : GGML_TYPE_F32));
    fprintf(f, "  token_embd %-8s %8.2f MiB in %s\n", ggml_type_name(m->tok_embd->type), ggml_nbytes(m->tok_embd) / 1048576.0,
            buffer_name(m->tok_embd));
    // consecutive layers with the same placement and size on one line
    for (uint32_t i = 0; i < m->hp.n_layer;) {
        const char * where;
        size_t bytes = layer_bytes(&m->layers[i], &where);
        const char * kv_where = buffer_name(lctx->kv.k[i]);
        uint32_t j = i + 1;
        for (; j < m->hp.n_layer; j++) {
            const char * w2;
            if (layer_bytes(&m->layers[j], &w2) != bytes || strcmp(w2, where) != 0 ||
                strcmp(buffer_name(lctx->kv.k[j]), kv_where) != 0) {
                break;
            }
        }
        fprintf(f, "  layers %u-%u: %.2f MiB of weights each in %s, KV cache (%s, %.2f MiB each) in %s\n", i, j - 1,
                bytes / 1048576.0, where, ggml_type_name(lctx->kv.k[i]->type),
                (ggml_nbytes(lctx->kv.k[i]) + ggml_nbytes(lctx->kv.v[i])) / 1048576.0, kv_where);
        i = j;
    }
    // one token reads every layer's tensors, the output matrix and one row of the embeddings
    size_t per_token = ggml_nbytes(m->out_norm) + ggml_nbytes(m->output) + m->tok_embd->nb[1];
    for (uint32_t i = 0; i < m->hp.n_layer; i++) {
        const char * where;
        per_token += layer_bytes(&m->layers[i], &where);
    }
    fprintf(f, "  weights read per generated token: %zu bytes\n", per_token);
    fprintf(f, "  output_norm %.2f KiB in %s; output %s%s %.2f MiB in %s\n", ggml_nbytes(m->out_norm) / 1024.0,
            buffer_name(m->out_norm), m->output == m->tok_embd ? "(tied to token_embd) " : "",
            ggml_type_name(m->output->type), ggml_nbytes(m->output) / 1048576.0, buffer_name(m->output));
}

// how the scheduler places a one-token graph: nodes per backend and the number of splits
static void print_schedule(FILE * f, struct llm_context * lctx) {
    llm_context_drop_token_graph(lctx);   // graph_mem and the scheduler serve this graph now
    struct ggml_init_params ip = { .mem_size = lctx->graph_mem_size, .mem_buffer = lctx->graph_mem, .no_alloc = true };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_cgraph * gf = ctx ? llm_build_graph(ctx, lctx->model, &lctx->kv, 1, 0, false, lctx->flash_attn) : NULL;
    ggml_backend_sched_reset(lctx->sched);
    if (gf && ggml_backend_sched_alloc_graph(lctx->sched, gf)) {
        int counts[2] = { 0, 0 };
        for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
            ggml_backend_t b = ggml_backend_sched_get_tensor_backend(lctx->sched, ggml_graph_node(gf, i));
            for (int k = 0; k < lctx->n_backends; k++) {
                counts[k] += b == lctx->backends[k];
            }
        }
        fprintf(f, "one-token graph: %d nodes in %d splits:", ggml_graph_n_nodes(gf),
                ggml_backend_sched_get_n_splits(lctx->sched));
        for (int k = 0; k < lctx->n_backends; k++) {
            fprintf(f, " %d on %s", counts[k], ggml_backend_name(lctx->backends[k]));
        }
        fprintf(f, "; attention by %s; one-token graphs %s\n", lctx->flash_attn ? "flash_attn_ext" : "mul_mat + soft_max",
                lctx->kv_by_rows ? "kept and reused (cache rows by set_rows)" : "rebuilt per token");
    } else {
        fprintf(f, "one-token graph: not placed\n");
    }
    ggml_backend_sched_reset(lctx->sched);
    ggml_free(ctx);
}

void llm_print_placement(FILE * f, struct llm_context * lctx) {
    const struct llm_hparams * hp = &lctx->model->hp;
    fprintf(f, "model: %u layers, %u dims, %u/%u heads, FFN %u, vocabulary %u, context %u of %u\n", hp->n_layer,
            hp->n_embd, hp->n_head, hp->n_head_kv, hp->n_ff, hp->n_vocab, lctx->kv.n_ctx, hp->n_ctx_train);
    print_layers(f, lctx);
    print_schedule(f, lctx);
}
