// Evaluation: the device's backend (and the CPU for what it cannot run) under a scheduler that
// is reserved once for the largest batch; then batches of the prompt and one token per graph.
#include "llm.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t llm_graph_size(const struct llm_model * model);

void llm_print_error(const char * what) {
    char reason[512];
    snprintf(reason, sizeof(reason), "%s", ggml_last_error() != GGML_ERROR_OK ? ggml_last_error_message() : "");
    size_t n = strlen(reason);
    for (size_t i = 0; i < n; i++) {
        if (reason[i] == '\n') reason[i] = ' ';   // one line
    }
    while (n > 0 && reason[n - 1] == ' ') reason[--n] = 0;
    if (n > 0 && reason[n - 1] == ':') {
        reason[0] = 0;   // a fragment of a message logged in pieces: says nothing
        n = 0;
    }
    fprintf(stderr, n > 0 ? "error: %s: %s\n" : "error: %s\n", what, reason);
}

// One-token graphs attend over a multiple of this many cache positions (the mask hides the rest),
// so that the graph is built and allocated once per LLM_TOKEN_GRAPH_KV positions, not per token.
#define LLM_TOKEN_GRAPH_KV 32

void llm_context_drop_token_graph(struct llm_context * lctx) {
    if (lctx->tok_graph && lctx->sched) {
        ggml_backend_sched_reset(lctx->sched);
    }
    ggml_free(lctx->tok_ctx);
    lctx->tok_ctx   = NULL;
    lctx->tok_graph = NULL;
    lctx->tok_n_kv  = 0;
}

void llm_context_free(struct llm_context * lctx) {
    if (!lctx) {
        return;
    }
    llm_context_drop_token_graph(lctx);
    ggml_backend_sched_free(lctx->sched);
    llm_kv_cache_free(&lctx->kv);
    llm_model_free(lctx->model);
    for (int i = 0; i < lctx->n_backends; i++) {
        ggml_backend_free(lctx->backends[i]);
    }
    free(lctx->graph_mem);
    free(lctx->logits);
    free(lctx);
}

static struct ggml_context * graph_ctx(struct llm_context * lctx) {
    struct ggml_init_params ip = { .mem_size = lctx->graph_mem_size, .mem_buffer = lctx->graph_mem, .no_alloc = true };
    return ggml_init(ip);
}

struct llm_context * llm_context_new(const char * fname, const char * device, int n_threads, uint32_t n_ctx, int n_batch) {
    return llm_context_new_ext(fname, device, n_threads, n_ctx, n_batch, GGML_TYPE_F16, -1);
}

// whether the device computes flash_attn_ext with this model's shapes and the cache's type
static bool device_has_flash_attn(ggml_backend_dev_t dev, const struct llm_model * m, enum ggml_type kv_type) {
    struct ggml_init_params ip = { .mem_size = 8 * ggml_tensor_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * ctx = ggml_init(ip);
    if (!ctx) return false;
    const int64_t hd = m->hp.n_embd / m->hp.n_head;
    struct ggml_tensor * q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, hd, 4, m->hp.n_head);
    struct ggml_tensor * k = ggml_new_tensor_3d(ctx, kv_type, hd, 8, m->hp.n_head_kv);
    struct ggml_tensor * v = ggml_new_tensor_3d(ctx, kv_type, hd, 8, m->hp.n_head_kv);
    struct ggml_tensor * mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 8, 4);
    struct ggml_tensor * o = q && k && v && mask ? ggml_flash_attn_ext(ctx, q, k, v, mask, 1.0f, 0.0f, 0.0f) : NULL;
    bool ok = o && ggml_backend_dev_supports_op(dev, o);
    ggml_free(ctx);
    return ok;
}

// whether the device writes cache rows by set_rows (rows F32 into the cache's type, I64 indices)
static bool device_has_set_rows(ggml_backend_dev_t dev, const struct llm_kv_cache * kv) {
    struct ggml_init_params ip = { .mem_size = 8 * ggml_tensor_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * ctx = ggml_init(ip);
    if (!ctx) return false;
    const int64_t w = kv->k[0]->ne[0];
    struct ggml_tensor * cache = ggml_new_tensor_2d(ctx, kv->k[0]->type, w, 8);
    struct ggml_tensor * rows  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, w, 1);
    struct ggml_tensor * idx   = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 1);
    struct ggml_tensor * o = cache && rows && idx ? ggml_set_rows(ctx, cache, rows, idx) : NULL;
    bool ok = o && ggml_backend_dev_supports_op(dev, o);
    ggml_free(ctx);
    return ok;
}

struct llm_context * llm_context_new_ext(const char * fname, const char * device, int n_threads, uint32_t n_ctx,
                                         int n_batch, enum ggml_type kv_type, int flash_attn) {
    return llm_context_new_fuse(fname, device, n_threads, n_ctx, n_batch, kv_type, flash_attn, -1);
}

struct llm_context * llm_context_new_fuse(const char * fname, const char * device, int n_threads, uint32_t n_ctx,
                                          int n_batch, enum ggml_type kv_type, int flash_attn, int fuse) {
    ggml_backend_dev_t dev = llm_device_by_name(device);
    if (!dev) {
        if (strncmp(device, "meta:", 5) == 0) {
            return NULL;   // llm_device_by_name said why
        }
        fprintf(stderr, "error: unknown device '%s' (see --verbose for the device table)\n", device);
        return NULL;
    }
    struct llm_context * lctx = calloc(1, sizeof(*lctx));
    if (!lctx) {
        fprintf(stderr, "error: out of memory\n");
        return NULL;
    }
    lctx->backends[0] = ggml_backend_dev_init(dev, NULL);
    if (!lctx->backends[0]) {
        llm_print_error("cannot start the device");
        llm_context_free(lctx);
        return NULL;
    }
    lctx->n_backends = 1;
    bool dev_is_cpu = ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU;
    if (!dev_is_cpu) {
        lctx->backends[1] = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
        if (!lctx->backends[1]) {
            fprintf(stderr, "error: cannot start the CPU backend\n");
            llm_context_free(lctx);
            return NULL;
        }
        lctx->n_backends = 2;
    }
    ggml_backend_cpu_set_n_threads(lctx->backends[dev_is_cpu ? 0 : 1], n_threads);

    lctx->model = llm_model_load_ext(fname, dev, fuse > 0 || (fuse < 0 && llm_fuse_enabled()));
    if (!lctx->model) {
        llm_context_free(lctx);
        return NULL;
    }
    if (n_ctx == 0 || n_ctx > lctx->model->hp.n_ctx_train) {
        n_ctx = lctx->model->hp.n_ctx_train;
    }
    if (n_batch <= 0 || (uint32_t) n_batch > n_ctx) {
        n_batch = (int) n_ctx;
    }
    lctx->n_batch = n_batch;
    lctx->flash_attn = flash_attn > 0 || (flash_attn < 0 && device_has_flash_attn(dev, lctx->model, kv_type));
    if (!llm_kv_cache_init(&lctx->kv, &lctx->model->hp, n_ctx, kv_type, ggml_backend_dev_buffer_type(dev))) {
        llm_context_free(lctx);
        return NULL;
    }
    size_t gsize = llm_graph_size(lctx->model);
    lctx->graph_mem_size = ggml_tensor_overhead() * gsize + ggml_graph_overhead_custom(gsize, false);
    lctx->graph_mem = malloc(lctx->graph_mem_size);
    lctx->sched = ggml_backend_sched_new(lctx->backends, NULL, lctx->n_backends, gsize, false);
    if (!lctx->graph_mem || !lctx->sched) {
        fprintf(stderr, "error: cannot create the scheduler\n");
        llm_context_free(lctx);
        return NULL;
    }
    // reserve once for the largest graph: a full batch at the end of the context
    struct ggml_context * ctx = graph_ctx(lctx);
    struct ggml_cgraph * gf = ctx ? llm_build_graph(ctx, lctx->model, &lctx->kv, n_batch, (int) n_ctx - n_batch, false,
                                                    lctx->flash_attn) : NULL;
    ggml_clear_last_error();
    bool ok = gf && ggml_backend_sched_reserve(lctx->sched, gf);
    ggml_free(ctx);
    if (!ok) {
        llm_print_error("cannot reserve the compute buffers");
        llm_context_free(lctx);
        return NULL;
    }
    lctx->kv_by_rows = lctx->flash_attn && device_has_set_rows(dev, &lctx->kv);
    return lctx;
}

// the causal mask over n_kv cache positions: token i (at position n_past + i) attends to
// positions 0 .. n_past + i
static bool set_mask(struct ggml_tensor * mask, int n_past, int n, int n_kv) {
    ggml_fp16_t * m = malloc(sizeof(ggml_fp16_t) * (size_t) n_kv * (size_t) n);
    if (!m) return false;
    const ggml_fp16_t zero = ggml_fp32_to_fp16(0.0f), ninf = ggml_fp32_to_fp16(-INFINITY);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n_kv; j++) {
            m[(size_t) i * n_kv + j] = j <= n_past + i ? zero : ninf;
        }
    }
    ggml_backend_tensor_set(mask, m, 0, sizeof(ggml_fp16_t) * (size_t) n_kv * (size_t) n);
    free(m);
    return true;
}

static struct llm_graph_io graph_io(struct ggml_cgraph * gf) {
    struct llm_graph_io io = {
        .tokens  = ggml_graph_get_tensor(gf, "inp_tokens"),
        .pos     = ggml_graph_get_tensor(gf, "inp_pos"),
        .kv_rows = ggml_graph_get_tensor(gf, "inp_kv_rows"),
        .mask    = ggml_graph_get_tensor(gf, "inp_mask"),
        .logits  = ggml_graph_get_tensor(gf, "logits"),
    };
    return io;
}

// the graph's inputs for n tokens at n_past (attending over n_kv positions)
static bool set_inputs(struct llm_context * lctx, const struct llm_graph_io * io, const int32_t * tokens, int n, int n_kv) {
    int32_t * pos  = malloc(sizeof(int32_t) * (size_t) n);
    int64_t * rows = malloc(sizeof(int64_t) * (size_t) n);
    bool ok = pos && rows;
    if (ok) {
        for (int i = 0; i < n; i++) {
            pos[i]  = lctx->n_past + i;
            rows[i] = lctx->n_past + i;
        }
        ggml_backend_tensor_set(io->tokens, tokens, 0, sizeof(int32_t) * (size_t) n);
        ggml_backend_tensor_set(io->pos, pos, 0, sizeof(int32_t) * (size_t) n);
        if (io->kv_rows) {
            ggml_backend_tensor_set(io->kv_rows, rows, 0, sizeof(int64_t) * (size_t) n);
        }
        ok = !lctx->flash_attn || set_mask(io->mask, lctx->n_past, n, n_kv);
    }
    free(pos);
    free(rows);
    return ok;
}

// The one-token graph over the current tok_n_kv window, built and allocated when the window grows
// (or first); NULL on failure (logged by the caller).
static struct ggml_cgraph * token_graph(struct llm_context * lctx) {
    int n_kv = (lctx->n_past + 1 + LLM_TOKEN_GRAPH_KV - 1) / LLM_TOKEN_GRAPH_KV * LLM_TOKEN_GRAPH_KV;
    if ((uint32_t) n_kv > lctx->kv.n_ctx) {
        n_kv = (int) lctx->kv.n_ctx;
    }
    if (lctx->tok_graph && lctx->tok_n_kv == n_kv) {
        return lctx->tok_graph;
    }
    llm_context_drop_token_graph(lctx);
    lctx->tok_ctx = graph_ctx(lctx);
    if (!lctx->tok_ctx) {
        return NULL;
    }
    struct ggml_cgraph * gf = llm_build_graph_ext(lctx->tok_ctx, lctx->model, &lctx->kv, 1, lctx->n_past, n_kv, false,
                                                  true, true);
    ggml_backend_sched_reset(lctx->sched);
    if (!gf || !ggml_backend_sched_alloc_graph(lctx->sched, gf)) {
        llm_context_drop_token_graph(lctx);
        return NULL;
    }
    lctx->tok_graph = gf;
    lctx->tok_n_kv  = n_kv;
    lctx->tok_io    = graph_io(gf);
    return gf;
}

static bool eval_batch(struct llm_context * lctx, const int32_t * tokens, int n, bool all_logits, float * logits_out) {
    ggml_clear_last_error();
    struct ggml_context * ctx = NULL;
    struct ggml_cgraph * gf = NULL;
    struct llm_graph_io io = { 0 };
    int n_kv = lctx->n_past + n;
    if (n == 1 && lctx->kv_by_rows) {
        gf = token_graph(lctx);
        n_kv = lctx->tok_n_kv;
        io = lctx->tok_io;
    } else {
        llm_context_drop_token_graph(lctx);
        ctx = graph_ctx(lctx);
        if (!ctx) {
            return false;
        }
        gf = llm_build_graph(ctx, lctx->model, &lctx->kv, n, lctx->n_past, all_logits, lctx->flash_attn);
        ggml_backend_sched_reset(lctx->sched);
        if (gf && !ggml_backend_sched_alloc_graph(lctx->sched, gf)) {
            gf = NULL;
        }
        if (gf) {
            io = graph_io(gf);
        }
    }
    bool ok = false;
    if (gf) {
        if (!set_inputs(lctx, &io, tokens, n, n_kv)) {
            ggml_free(ctx);
            fprintf(stderr, "error: out of memory\n");
            return false;
        }
        if (ggml_backend_sched_graph_compute(lctx->sched, gf) == GGML_STATUS_SUCCESS) {
            ggml_backend_tensor_get(io.logits, logits_out, 0, ggml_nbytes(io.logits));
            ok = true;
        }
    }
    if (!ok) {
        llm_print_error("the evaluation failed");
        if (!ctx) {
            llm_context_drop_token_graph(lctx);
        }
    }
    ggml_free(ctx);
    return ok;
}

bool llm_eval(struct llm_context * lctx, const int32_t * tokens, int n_tokens, bool all_logits) {
    const int n_vocab = (int) lctx->model->hp.n_vocab;
    if (n_tokens <= 0) {
        return true;
    }
    if ((uint32_t) (lctx->n_past + n_tokens) > lctx->kv.n_ctx) {
        fprintf(stderr, "error: %d tokens do not fit in the context (%d used of %u)\n", n_tokens, lctx->n_past,
                lctx->kv.n_ctx);
        return false;
    }
    float * logits = malloc(sizeof(float) * (size_t) n_vocab * (size_t) (all_logits ? n_tokens : 1));
    if (!logits) {
        fprintf(stderr, "error: out of memory\n");
        return false;
    }
    for (int i = 0; i < n_tokens; i += lctx->n_batch) {
        int n = n_tokens - i < lctx->n_batch ? n_tokens - i : lctx->n_batch;
        float * out = all_logits ? logits + (size_t) i * n_vocab : logits;
        if (!eval_batch(lctx, tokens + i, n, all_logits, out)) {
            free(logits);
            return false;
        }
        lctx->n_past += n;
    }
    free(lctx->logits);
    lctx->logits = logits;
    return true;
}
