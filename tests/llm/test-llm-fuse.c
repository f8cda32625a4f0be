// The fused Q/K/V and gate/up weights (tools/llm/llm-fuse.c) against the separate ones, on every
// device present (CPU, OpenCL0), flash attention on and off:
//  - the fused model really is fused (every layer has wqkv and ffn_gate_up), the unfused is not,
//    and a meta device never fuses;
//  - a prompt in two batches (7 + 6 tokens, every position's logits) and then 22 tokens one at a
//    time (the kept one-token graph rebuilt at 32 positions) give the SAME BITS fused and unfused:
//    each output row of the fused product is the same row's dot product with the same quantized
//    activation, computed by the same kernel (row counts are multiples of the kernels' row tiles),
//    RoPE and the cache writes read the same values through strided views, and SwiGLU applies the
//    same vector function to the same halves.
// Arguments: model files (tiny random models, or the real SmolLM2 file: then the CPU only).
#include "llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_PROMPT = 13, N_BATCH = 7, N_GEN = 22, N_CTX = 64 };

static int failures = 0;

// every layer fused (want) or none
static bool fused_as(const struct llm_model * m, bool want) {
    for (uint32_t il = 0; il < m->hp.n_layer; il++) {
        const struct llm_layer * l = &m->layers[il];
        const bool f = l->wqkv != NULL && l->ffn_gate_up != NULL && ((l->bq != NULL) == (l->bqkv != NULL));
        const bool none = l->wqkv == NULL && l->bqkv == NULL && l->ffn_gate_up == NULL;
        if (want ? !f : !none) return false;
    }
    return true;
}

// the logits of the prompt's positions and of each generated token: [(N_PROMPT + N_GEN) * V]
static float * run(const char * model, const char * device, int fuse, int flash_attn, int * n_vocab) {
    struct llm_context * lctx = llm_context_new_fuse(model, device, 2, N_CTX, N_BATCH, GGML_TYPE_F16, flash_attn, fuse);
    if (!lctx) {
        printf("FAIL %s on %s (fuse %d): no context\n", model, device, fuse);
        failures++;
        return NULL;
    }
    if (!fused_as(lctx->model, fuse != 0)) {
        printf("FAIL %s on %s: the model is %sfused\n", model, device, fuse ? "not " : "");
        failures++;
    }
    const int V = (int) lctx->model->hp.n_vocab;
    *n_vocab = V;
    float * out = malloc(sizeof(float) * (size_t) V * (N_PROMPT + N_GEN));
    int32_t tokens[N_PROMPT + N_GEN];
    for (int i = 0; i < N_PROMPT + N_GEN; i++) tokens[i] = (int32_t) ((i * 131 + 7) % V);
    bool ok = out && llm_eval(lctx, tokens, N_PROMPT, true);
    if (ok) memcpy(out, lctx->logits, sizeof(float) * (size_t) V * N_PROMPT);
    for (int i = N_PROMPT; ok && i < N_PROMPT + N_GEN; i++) {
        ok = llm_eval(lctx, &tokens[i], 1, false);
        if (ok) memcpy(out + (size_t) i * V, lctx->logits, sizeof(float) * (size_t) V);
    }
    llm_context_free(lctx);
    if (!ok) {
        printf("FAIL %s on %s (fuse %d): the evaluation failed\n", model, device, fuse);
        failures++;
        free(out);
        return NULL;
    }
    return out;
}

static void check(const char * model, const char * device, int flash_attn) {
    int V = 0;
    float * fused = run(model, device, 1, flash_attn, &V);
    float * plain = run(model, device, 0, flash_attn, &V);
    if (fused && plain) {
        const size_t n = (size_t) V * (N_PROMPT + N_GEN);
        double max_abs = 0, max_diff = 0;
        size_t n_diff = 0;
        for (size_t i = 0; i < n; i++) {
            max_abs = fmax(max_abs, fabs(plain[i]));
            max_diff = fmax(max_diff, fabs((double) fused[i] - plain[i]));
            n_diff += memcmp(&fused[i], &plain[i], sizeof(float)) != 0;
        }
        // never on zeros: the logits must be O(1)
        const bool ok = n_diff == 0 && max_abs > 0.1 && isfinite(max_abs);
        printf("%s %s on %s, flash attention %s: %zu of %zu logits differ (max diff %.2e, max |logit| %.3f)\n",
               ok ? "ok  " : "FAIL", model, device, flash_attn ? "on" : "off", n_diff, n, max_diff, max_abs);
        failures += !ok;
    }
    free(fused);
    free(plain);
}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test-llm-fuse MODEL.gguf...\n");
        return 1;
    }
    const bool has_ocl = ggml_backend_dev_by_name("OpenCL0") != NULL;
    if (!has_ocl) {
        printf("OpenCL0 absent: the CPU only\n");
    }
    for (int a = 1; a < argc; a++) {
        // the real model: CPU only (OpenCL0 on PoCL takes minutes for it)
        const bool tiny = strstr(argv[a], "tiny") != NULL;
        for (int fa = 1; fa >= 0; fa--) {
            check(argv[a], "CPU", fa);
            if (has_ocl && tiny) {
                check(argv[a], "OpenCL0", fa);
            }
        }
        if (tiny) {
            // a meta device keeps the separate weights (its row splits would mix heads and halves)
            struct llm_context * lctx = llm_context_new_fuse(argv[a], "meta:CPU,CPU", 2, N_CTX, N_BATCH, GGML_TYPE_F16, -1, 1);
            const bool ok = lctx && fused_as(lctx->model, false);
            printf("%s %s on meta:CPU,CPU: not fused\n", ok ? "ok  " : "FAIL", argv[a]);
            failures += !ok;
            llm_context_free(lctx);
        }
    }
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
