// The runner on tiny random-weight models (made by gen-tiny-llama):
//  - decoding one token at a time with the KV cache equals evaluating the whole sequence at once
//    (70 tokens: the kept one-token graph is rebuilt at 32 and 64 positions and at the context's
//    end, 80), and so does a mix of batches and single tokens (the kept graph dropped and rebuilt);
//  - batch sizes 1, 5 and 64 give the same logits;
//  - OpenCL0 (when present) agrees with the CPU, whole and one token at a time.
// Bound: max |a - b| <= 2e-3 * max |logit| (float sums in a different order; the logits are O(1..10)).
#include "llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_TOK = 70, N_CTX = 80 };

static int failures = 0;

enum eval_mode { WHOLE, ONE_BY_ONE, MIXED };

static float * eval_logits(const char * model, const char * device, int n_batch, enum eval_mode mode, int * n_vocab) {
    struct llm_context * lctx = llm_context_new(model, device, 2, N_CTX, n_batch);
    if (!lctx) return NULL;
    *n_vocab = (int) lctx->model->hp.n_vocab;
    const int V = *n_vocab;
    float * out = malloc(sizeof(float) * (size_t) V * N_TOK);
    int32_t tokens[N_TOK];
    for (int i = 0; i < N_TOK; i++) tokens[i] = (int32_t) ((i * 37 + 11) % V);
    bool ok = out != NULL;
    if (ok && mode != WHOLE) {
        // MIXED: batches of 10 and 5 at 0 and 35, single tokens elsewhere
        for (int i = 0; i < N_TOK && ok;) {
            const int n = mode == MIXED && i == 0 ? 10 : mode == MIXED && i == 35 ? 5 : 1;
            ok = llm_eval(lctx, &tokens[i], n, true);
            if (ok) memcpy(out + (size_t) i * V, lctx->logits, sizeof(float) * (size_t) V * n);
            i += n;
        }
    } else if (ok) {
        ok = llm_eval(lctx, tokens, N_TOK, true);
        if (ok) memcpy(out, lctx->logits, sizeof(float) * (size_t) V * N_TOK);
    }
    llm_context_free(lctx);
    if (!ok) { free(out); return NULL; }
    return out;
}

static void compare(const char * what, const float * a, const float * b, int n, float rel) {
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

static void check_model(const char * model) {
    printf("%s\n", model);
    int V = 0;
    float * full = eval_logits(model, "CPU", 64, WHOLE, &V);
    float * inc  = eval_logits(model, "CPU", 64, ONE_BY_ONE, &V);
    float * mix  = eval_logits(model, "CPU", 64, MIXED, &V);
    float * b5   = eval_logits(model, "CPU", 5, WHOLE, &V);
    float * b1   = eval_logits(model, "CPU", 1, WHOLE, &V);
    if (!full || !inc || !mix || !b5 || !b1) {
        printf("FAIL the evaluation failed\n");
        failures++;
    } else {
        compare("incremental decoding == whole sequence", full, inc, V * N_TOK, 2e-3f);
        compare("batches and single tokens mixed == whole sequence", full, mix, V * N_TOK, 2e-3f);
        compare("batch 5 == batch 64", full, b5, V * N_TOK, 2e-3f);
        compare("batch 1 == batch 64", full, b1, V * N_TOK, 2e-3f);
        if (ggml_backend_dev_by_name("OpenCL0")) {
            float * ocl = eval_logits(model, "OpenCL0", 64, WHOLE, &V);
            float * ocl1 = eval_logits(model, "OpenCL0", 64, ONE_BY_ONE, &V);
            if (!ocl || !ocl1) { printf("FAIL OpenCL0: the evaluation failed\n"); failures++; }
            else {
                compare("OpenCL0 == CPU", full, ocl, V * N_TOK, 1e-2f);
                compare("OpenCL0 one token at a time == CPU", full, ocl1, V * N_TOK, 1e-2f);
            }
            free(ocl);
            free(ocl1);
        } else {
            printf("skip OpenCL0: no such device\n");
        }
    }
    free(full); free(inc); free(mix); free(b5); free(b1);
}

int main(int argc, char ** argv) {
    for (int i = 1; i < argc; i++) check_model(argv[i]);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
