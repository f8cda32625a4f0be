// Compatibility program: a mixture-of-experts feed-forward step as llama.cpp builds it: router
// logits, the top-k experts per token (ggml_argsort_top_k), the selected experts' weights
// gathered by ggml_mul_mat_id, a per-expert bias added with ggml_add_id, and the weighted sum
// over the selected experts. Checked against a double-precision reference.

#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "moe:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                \
            fprintf(stderr, "\n");                                       \
            n_failed++;                                                  \
        }                                                                \
    } while (0)

enum { N_EMBD = 12, N_FF = 8, N_EXPERT = 5, N_USED = 2, N_TOK = 4 };

static float w_val(int e, int r, int c) { return 0.05f * (float) (((e + 1) * 7 + r * 3 + c) % 13) - 0.3f; }
static float x_val(int t, int c) { return 0.1f * (float) ((t * 5 + c * 3) % 11) - 0.5f; }
static float g_val(int e, int c) { return 0.07f * (float) ((e * 3 + c) % 9) - 0.25f; }
static float b_val(int e, int r) { return 0.01f * (float) (e * 10 + r); }

int main(void) {
    struct ggml_init_params params = { 16 * 1024 * 1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);

    struct ggml_tensor * x     = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, N_EMBD, N_TOK);
    struct ggml_tensor * gate  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, N_EMBD, N_EXPERT);
    struct ggml_tensor * up    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, N_EMBD, N_FF, N_EXPERT);
    struct ggml_tensor * ebias = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, N_FF, N_EXPERT);
    for (int t = 0; t < N_TOK; t++) for (int c = 0; c < N_EMBD; c++) ggml_set_f32_nd(x, c, t, 0, 0, x_val(t, c));
    for (int e = 0; e < N_EXPERT; e++) {
        for (int c = 0; c < N_EMBD; c++) ggml_set_f32_nd(gate, c, e, 0, 0, g_val(e, c));
        for (int r = 0; r < N_FF; r++) {
            for (int c = 0; c < N_EMBD; c++) ggml_set_f32_nd(up, c, r, e, 0, w_val(e, r, c));
            ggml_set_f32_nd(ebias, r, e, 0, 0, b_val(e, r));
        }
    }

    // router: probabilities [N_EXPERT, N_TOK], selected experts [N_USED, N_TOK]
    struct ggml_tensor * probs    = ggml_soft_max(ctx, ggml_mul_mat(ctx, gate, x));
    struct ggml_tensor * selected = ggml_argsort_top_k(ctx, probs, N_USED);
    // weights of the selected experts [1, N_USED, N_TOK]
    struct ggml_tensor * weights = ggml_get_rows(ctx, ggml_reshape_3d(ctx, probs, 1, N_EXPERT, N_TOK), selected);

    // experts: [N_FF, N_USED, N_TOK]
    struct ggml_tensor * xe  = ggml_reshape_3d(ctx, x, N_EMBD, 1, N_TOK);
    struct ggml_tensor * h   = ggml_mul_mat_id(ctx, up, xe, selected);
    h = ggml_add_id(ctx, h, ebias, selected);
    h = ggml_mul(ctx, h, weights);
    // sum over the selected experts
    struct ggml_tensor * out = ggml_add(ctx,
            ggml_view_2d(ctx, h, N_FF, N_TOK, h->nb[2], 0),
            ggml_view_2d(ctx, h, N_FF, N_TOK, h->nb[2], h->nb[1]));
    out = ggml_cont(ctx, out);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, 2);
    CHECK(st == GGML_STATUS_SUCCESS, "compute: %s", ggml_status_to_string(st));

    double max_err = 0.0;
    for (int t = 0; t < N_TOK; t++) {
        double p[N_EXPERT], mx = -INFINITY, sum = 0.0;
        for (int e = 0; e < N_EXPERT; e++) {
            p[e] = 0.0;
            for (int c = 0; c < N_EMBD; c++) p[e] += (double) g_val(e, c) * (double) x_val(t, c);
            mx = p[e] > mx ? p[e] : mx;
        }
        for (int e = 0; e < N_EXPERT; e++) { p[e] = exp(p[e] - mx); sum += p[e]; }
        for (int e = 0; e < N_EXPERT; e++) p[e] /= sum;
        // top two by probability, largest first
        int e0 = 0;
        for (int e = 1; e < N_EXPERT; e++) if (p[e] > p[e0]) e0 = e;
        int e1 = e0 == 0 ? 1 : 0;
        for (int e = 0; e < N_EXPERT; e++) if (e != e0 && p[e] > p[e1]) e1 = e;
        CHECK(ggml_get_i32_nd(selected, 0, t, 0, 0) == e0 && ggml_get_i32_nd(selected, 1, t, 0, 0) == e1,
                "token %d: experts %d %d, expected %d %d", t, ggml_get_i32_nd(selected, 0, t, 0, 0),
                ggml_get_i32_nd(selected, 1, t, 0, 0), e0, e1);
        for (int r = 0; r < N_FF; r++) {
            double ref = 0.0;
            const int es[2] = { e0, e1 };
            for (int k = 0; k < 2; k++) {
                double acc = b_val(es[k], r);
                for (int c = 0; c < N_EMBD; c++) acc += (double) w_val(es[k], r, c) * (double) x_val(t, c);
                ref += p[es[k]] * acc;
            }
            max_err = fmax(max_err, fabs(ggml_get_f32_nd(out, r, t, 0, 0) - ref));
        }
    }
    CHECK(max_err < 1e-5, "max error %g", max_err);

    ggml_free(ctx);
    printf("moe: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
