// The runner on meta devices (tools/llm/llm-meta.c) against one CPU device, on the tiny models:
//  - meta:CPU,CPU and meta:CPU,CPU,CPU (and meta:OpenCL0,CPU when OpenCL0 exists) give the same
//    greedy ids for 16 generated tokens, with flash attention on and off;
//  - every position's logits of a 24-token sequence agree within a bound relative to max |logit|:
//    F32 KV cache 1e-5 (the FFN's partial sums are added in another order), F16 KV cache 2e-3
//    (a K/V value may round to the neighbouring F16), with OpenCL0 in the mix 1e-2 (as llm-runner);
//  - bad meta lists are refused with NULL.
#include "llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_TOK = 24, N_CTX = 64, N_GEN = 16, N_PROMPT = 5 };

static int failures = 0;

static float * all_logits(const char * model, const char * device, enum ggml_type kv, int fa, int * n_vocab) {
    struct llm_context * lctx = llm_context_new_ext(model, device, 2, N_CTX, 7, kv, fa);
    if (!lctx) return NULL;
    const int V = *n_vocab = (int) lctx->model->hp.n_vocab;
    int32_t tokens[N_TOK];
    for (int i = 0; i < N_TOK; i++) tokens[i] = (int32_t) ((i * 37 + 11) % V);
    float * out = malloc(sizeof(float) * (size_t) V * N_TOK);
    bool ok = out && llm_eval(lctx, tokens, N_TOK, true);
    if (ok) memcpy(out, lctx->logits, sizeof(float) * (size_t) V * N_TOK);
    llm_context_free(lctx);
    if (!ok) { free(out); return NULL; }
    return out;
}

static int argmax(const float * x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}

// greedy ids after a fixed prompt; false when the evaluation fails
static bool greedy(const char * model, const char * device, int fa, int32_t * ids) {
    struct llm_context * lctx = llm_context_new_ext(model, device, 2, N_CTX, 64, GGML_TYPE_F16, fa);
    if (!lctx) return false;
    const int V = (int) lctx->model->hp.n_vocab;
    int32_t prompt[N_PROMPT];
    for (int i = 0; i < N_PROMPT; i++) prompt[i] = (int32_t) ((i * 53 + 7) % V);
    bool ok = llm_eval(lctx, prompt, N_PROMPT, false);
    for (int i = 0; i < N_GEN && ok; i++) {
        ids[i] = argmax(lctx->logits, V);
        ok = llm_eval(lctx, &ids[i], 1, false);
    }
    llm_context_free(lctx);
    return ok;
}

static void compare(const char * what, const float * a, const float * b, int n, double rel) {
    double max_abs = 0, max_diff = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i])) { max_diff = INFINITY; break; }
        max_abs = fmax(max_abs, fabs(a[i]));
        max_diff = fmax(max_diff, fabs((double) a[i] - b[i]));
    }
    bool ok = max_abs > 0.1 && max_diff <= rel * max_abs;
    printf("%s %s: max |logit| %.3f, max diff %.2e (bound %.2e)\n", ok ? "ok  " : "FAIL", what, max_abs, max_diff, rel * max_abs);
    failures += !ok;
}

static void check(const char * model, const char * device, double rel_f32) {
    static const struct { enum ggml_type kv; double rel; const char * name; } kvs[] = {
        { GGML_TYPE_F32, 0, "F32 cache" }, { GGML_TYPE_F16, 2e-3, "F16 cache" },
    };
    for (int fa = 0; fa <= 1; fa++) {
        for (size_t k = 0; k < sizeof(kvs) / sizeof(kvs[0]); k++) {
            int V = 0, Vm = 0;
            float * ref = all_logits(model, "CPU", kvs[k].kv, fa, &V);
            float * got = all_logits(model, device, kvs[k].kv, fa, &Vm);
            char what[160];
            snprintf(what, sizeof(what), "%s %s, flash attention %s", device, kvs[k].name, fa ? "on" : "off");
            if (!ref || !got || V != Vm) {
                printf("FAIL %s: the evaluation failed\n", what);
                failures++;
            } else {
                compare(what, ref, got, V * N_TOK, fmax(kvs[k].rel, rel_f32));
            }
            free(ref);
            free(got);
        }
        int32_t a[N_GEN], b[N_GEN];
        bool ok = greedy(model, "CPU", fa, a) && greedy(model, device, fa, b) && memcmp(a, b, sizeof(a)) == 0;
        printf("%s %s greedy ids, flash attention %s:", ok ? "ok  " : "FAIL", device, fa ? "on" : "off");
        for (int i = 0; i < N_GEN; i++) printf(" %d", a[i]);
        printf("\n");
        failures += !ok;
    }
}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test-llm-meta MODEL.gguf...\n");
        return 1;
    }
    static const char * bad[] = { "meta:", "meta:CPU,", "meta:CPU,,CPU", "meta:CPU,NoSuchDevice",
                                  "meta:CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU,CPU" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        bool ok = llm_device_by_name(bad[i]) == NULL;
        printf("%s '%s' refused\n", ok ? "ok  " : "FAIL", bad[i]);
        failures += !ok;
    }
    for (int m = 1; m < argc; m++) {
        printf("%s\n", argv[m]);
        check(argv[m], "meta:CPU,CPU", 1e-5);
        check(argv[m], "meta:CPU,CPU,CPU", 1e-5);
        if (ggml_backend_dev_by_name("OpenCL0")) {
            check(argv[m], "meta:OpenCL0,CPU", 1e-2);
        } else {
            printf("skip meta:OpenCL0,CPU: no OpenCL0 device\n");
        }
    }
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
