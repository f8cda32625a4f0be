// The runner's logits against a double-precision reference of the llama forward pass computed
// here from the same file (RMSNorm, RoPE on adjacent pairs, grouped-query causal attention,
// SwiGLU, untied output), on the CPU (attention by mul_mat + soft_max and by flash_attn_ext) and
// on OpenCL0 when present (flash attention where it supports it), for every position of a
// 20-token sequence evaluated in batches of 7.
// Bounds: max |ours - ref| <= 1e-5 * max |ref| with an F32 KV cache on the CPU (float rounding
// over 2 layers of 64 dims; measured 1.1e-6), 1e-4 on OpenCL0 (its own sum order and exp), and
// 2e-3 with the F16 cache (F16 keeps 11 significant bits of K and V; measured 8e-4).
#include "llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_TOK = 20, MAXD = 256 };

static struct ggml_context * g_data;   // the file's tensors with data (test only, one thread)

static double w(const char * fmt, int il, int64_t i0, int64_t i1) {
    char name[GGML_MAX_NAME];
    snprintf(name, sizeof(name), fmt, il);
    struct ggml_tensor * t = ggml_get_tensor(g_data, name);
    if (!t) return 0.0;   // an absent bias
    const char * p = (const char *) t->data + i0 * (int64_t) t->nb[0] + i1 * (int64_t) t->nb[1];
    return t->type == GGML_TYPE_F16 ? ggml_fp16_to_fp32(*(const ggml_fp16_t *) p) : *(const float *) p;
}

static bool has(const char * name) { return ggml_get_tensor(g_data, name) != NULL; }

// y[o] = sum_i W[o][i] x[i] (+ b[o]); W stored as ne0 = in, ne1 = out
static void matvec(const char * wfmt, const char * bfmt, int il, const double * x, int in, double * y, int out) {
    for (int o = 0; o < out; o++) {
        double s = 0;
        for (int i = 0; i < in; i++) s += w(wfmt, il, i, o) * x[i];
        y[o] = s + (bfmt ? w(bfmt, il, o, 0) : 0.0);
    }
}

static void rmsnorm(const double * x, int n, const char * wfmt, int il, double eps, double * y) {
    double ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    double r = 1.0 / sqrt(ss / n + eps);
    for (int i = 0; i < n; i++) y[i] = x[i] * r * w(wfmt, il, i, 0);
}

static void rope(double * v, int n_heads, int hd, int n_rot, int pos, double base) {
    for (int h = 0; h < n_heads; h++) {
        for (int i = 0; i < n_rot; i += 2) {
            double th = pos * pow(base, -(double) i / n_rot);
            double a = v[h * hd + i], b = v[h * hd + i + 1];
            v[h * hd + i]     = a * cos(th) - b * sin(th);
            v[h * hd + i + 1] = a * sin(th) + b * cos(th);
        }
    }
}

// logits[N_TOK][V] of the tokens by the reference
static bool reference(const struct llm_hparams * hp, const int32_t * tok, double * logits) {
    const int E = (int) hp->n_embd, H = (int) hp->n_head, HK = (int) hp->n_head_kv, hd = E / H, EK = hd * HK;
    const int F = (int) hp->n_ff, V = (int) hp->n_vocab;
    if (E > MAXD || F > MAXD) return false;
    static double x[N_TOK][MAXD], K[16][N_TOK][MAXD], Vv[16][N_TOK][MAXD];
    if (hp->n_layer > 16) return false;
    for (int t = 0; t < N_TOK; t++)
        for (int i = 0; i < E; i++) x[t][i] = w("token_embd.weight", 0, i, tok[t]);
    for (int il = 0; il < (int) hp->n_layer; il++) {
        double q[N_TOK][MAXD], cur[MAXD], att[MAXD], tmp[MAXD], g[MAXD], u[MAXD];
        for (int t = 0; t < N_TOK; t++) {
            rmsnorm(x[t], E, "blk.%d.attn_norm.weight", il, hp->norm_eps, cur);
            matvec("blk.%d.attn_q.weight", "blk.%d.attn_q.bias", il, cur, E, q[t], E);
            matvec("blk.%d.attn_k.weight", "blk.%d.attn_k.bias", il, cur, E, K[il][t], EK);
            matvec("blk.%d.attn_v.weight", "blk.%d.attn_v.bias", il, cur, E, Vv[il][t], EK);
            rope(q[t], H, hd, (int) hp->n_rot, t, hp->rope_base);
            rope(K[il][t], HK, hd, (int) hp->n_rot, t, hp->rope_base);
        }
        for (int t = 0; t < N_TOK; t++) {
            for (int h = 0; h < H; h++) {
                int hk = h / (H / HK);
                double s[N_TOK], mx = -INFINITY, sum = 0;
                for (int j = 0; j <= t; j++) {
                    double d = 0;
                    for (int i = 0; i < hd; i++) d += q[t][h * hd + i] * K[il][j][hk * hd + i];
                    s[j] = d / sqrt((double) hd);
                    mx = fmax(mx, s[j]);
                }
                for (int j = 0; j <= t; j++) { s[j] = exp(s[j] - mx); sum += s[j]; }
                for (int i = 0; i < hd; i++) {
                    double a = 0;
                    for (int j = 0; j <= t; j++) a += s[j] / sum * Vv[il][j][hk * hd + i];
                    att[h * hd + i] = a;
                }
            }
            matvec("blk.%d.attn_output.weight", NULL, il, att, E, tmp, E);
            for (int i = 0; i < E; i++) x[t][i] += tmp[i];
            rmsnorm(x[t], E, "blk.%d.ffn_norm.weight", il, hp->norm_eps, cur);
            matvec("blk.%d.ffn_gate.weight", NULL, il, cur, E, g, F);
            matvec("blk.%d.ffn_up.weight", NULL, il, cur, E, u, F);
            for (int i = 0; i < F; i++) g[i] = g[i] / (1.0 + exp(-g[i])) * u[i];
            matvec("blk.%d.ffn_down.weight", NULL, il, g, F, tmp, E);
            for (int i = 0; i < E; i++) x[t][i] += tmp[i];
        }
    }
    const char * out = has("output.weight") ? "output.weight" : "token_embd.weight";
    for (int t = 0; t < N_TOK; t++) {
        double cur[MAXD];
        rmsnorm(x[t], E, "output_norm.weight", 0, hp->norm_eps, cur);
        matvec(out, NULL, 0, cur, E, logits + (size_t) t * V, V);
    }
    return true;
}

static int check(const char * model, const char * device, enum ggml_type kv_type, int flash_attn, double bound) {
    struct llm_context * lctx = llm_context_new_ext(model, device, 2, 64, 7, kv_type, flash_attn);
    if (!lctx) { printf("FAIL %s: no context\n", device); return 1; }
    const int V = (int) lctx->model->hp.n_vocab;
    int32_t tok[N_TOK];
    for (int i = 0; i < N_TOK; i++) tok[i] = (int32_t) ((i * 53 + 7) % V);
    double * ref = malloc(sizeof(double) * (size_t) V * N_TOK);
    int fail = 1;
    if (ref && reference(&lctx->model->hp, tok, ref) && llm_eval(lctx, tok, N_TOK, true)) {
        double max_ref = 0, max_diff = 0;
        for (size_t i = 0; i < (size_t) V * N_TOK; i++) {
            max_ref = fmax(max_ref, fabs(ref[i]));
            double d = fabs(ref[i] - lctx->logits[i]);
            max_diff = isfinite(d) ? fmax(max_diff, d) : INFINITY;
        }
        fail = !(max_ref > 0.1 && max_diff <= bound * max_ref);
        printf("%s %s, KV %s, %s: max |ref| %.3f, max diff %.2e (bound %.2e)\n", fail ? "FAIL" : "ok  ", device,
               ggml_type_name(kv_type), lctx->flash_attn ? "flash_attn_ext" : "mul_mat + soft_max", max_ref, max_diff,
               bound * max_ref);
    } else {
        printf("FAIL %s: evaluation\n", device);
    }
    free(ref);
    llm_context_free(lctx);
    return fail;
}

int main(int argc, char ** argv) {
    int failures = 0;
    for (int a = 1; a < argc; a++) {
        printf("%s\n", argv[a]);
        struct gguf_init_params ip = { .no_alloc = false, .ctx = &g_data };
        struct gguf_context * g = gguf_init_from_file(argv[a], ip);
        if (!g) { printf("FAIL cannot read %s\n", argv[a]); failures++; continue; }
        for (int fa = 0; fa <= 1; fa++) {
            failures += check(argv[a], "CPU", GGML_TYPE_F32, fa, 1e-5);
            failures += check(argv[a], "CPU", GGML_TYPE_F16, fa, 2e-3);
        }
        if (ggml_backend_dev_by_name("OpenCL0")) {
            failures += check(argv[a], "OpenCL0", GGML_TYPE_F32, -1, 1e-4);
            failures += check(argv[a], "OpenCL0", GGML_TYPE_F16, -1, 2e-3);
        } else {
            printf("skip OpenCL0: no such device\n");
        }
        gguf_free(g);
        ggml_free(g_data);
        g_data = NULL;
    }
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
