// The quantize tool (tools/quantize) on a small synthetic llama-like F32 model with Gaussian
// weights: the family's type mix (Q4_K_M: output Q6_K, attn_v and ffn_down Q6_K in the layers of
// use_more_bits, norms F32), the keys it sets, every tensor valid, the dequantized weights within
// each type's error bound of the originals, an imatrix changing the mix as the family's does
// (Q4_0: the first ffn_down layers Q4_1), a quantized input refused without --allow-requantize,
// and the output read equal by the gguf Python package (when installed).

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"
#include "test-gguf-canon.h"

#include "ggml.h"
#include "gguf.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N_LAYER = 8, N_EMBD = 256, N_KV = 64, N_FF = 512, N_VOCAB = 64 };

static char g_tool[1024];

static double gauss(void) {
    const double u1 = test_rand_uniform(1e-12, 1.0), u2 = test_rand_uniform(0.0, 1.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static void add(struct ggml_context * ctx, struct gguf_context * g, const char * name, int64_t ne0, int64_t ne1) {
    struct ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ne0, ne1) : ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne0);
    ggml_set_name(t, name);
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        ((float *) t->data)[i] = ne1 > 0 ? (float) (0.02 * gauss()) : 1.0f + (float) (0.1 * gauss());
    }
    gguf_add_tensor(g, t);
}

static void write_model(const char * fname) {
    struct ggml_init_params ip = { 64u << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct gguf_context * g = gguf_init_empty();
    gguf_set_val_str(g, "general.architecture", "llama");
    gguf_set_val_u32(g, "llama.block_count", N_LAYER);
    gguf_set_val_u32(g, "llama.attention.head_count", 4);
    gguf_set_val_u32(g, "llama.attention.head_count_kv", 4);
    add(ctx, g, "token_embd.weight", N_EMBD, N_VOCAB);
    for (int l = 0; l < N_LAYER; l++) {
        char n[64];
        snprintf(n, sizeof(n), "blk.%d.attn_norm.weight", l);   add(ctx, g, n, N_EMBD, 0);
        snprintf(n, sizeof(n), "blk.%d.attn_q.weight", l);      add(ctx, g, n, N_EMBD, N_KV);
        snprintf(n, sizeof(n), "blk.%d.attn_v.weight", l);      add(ctx, g, n, N_EMBD, N_KV);
        snprintf(n, sizeof(n), "blk.%d.ffn_up.weight", l);      add(ctx, g, n, N_EMBD, N_FF / 8);
        snprintf(n, sizeof(n), "blk.%d.ffn_down.weight", l);    add(ctx, g, n, N_FF, 16);
    }
    add(ctx, g, "output_norm.weight", N_EMBD, 0);
    add(ctx, g, "output.weight", N_EMBD, N_VOCAB);
    TEST_CHECK(gguf_write_to_file(g, fname, false));
    gguf_free(g);
    ggml_free(ctx);
}

static int run_tool(const char * args) {
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "'%s' %s > /dev/null 2>&1", g_tool, args);
    const int status = system(cmd);
    return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool use_more_bits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

// relative RMS error bound of a type on Gaussian rows
static double error_bound(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_Q8_0: return 0.01;
        case GGML_TYPE_Q6_K: return 0.03;
        case GGML_TYPE_Q5_0: case GGML_TYPE_Q5_1: case GGML_TYPE_Q5_K: return 0.06;
        case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q4_K: return 0.12;
        default: return 0.0;
    }
}

static void check_output(const char * in, const char * out, enum ggml_type expected(const char *, int)) {
    struct ggml_context * ci = NULL, * co = NULL;
    struct gguf_init_params pi = { false, &ci }, po = { false, &co };
    struct gguf_context * gi = gguf_init_from_file(in, pi);
    struct gguf_context * go = gguf_init_from_file(out, po);
    TEST_CHECK(gi != NULL && go != NULL);
    if (gi == NULL || go == NULL) {
        gguf_free(gi); gguf_free(go); ggml_free(ci); ggml_free(co);
        return;
    }
    TEST_CHECK(gguf_get_n_tensors(go) == gguf_get_n_tensors(gi) && gguf_get_n_kv(go) == gguf_get_n_kv(gi) + 2);
    TEST_CHECK(gguf_get_val_u32(go, gguf_find_key(go, "general.quantization_version")) == 2);
    TEST_CHECK(strcmp(gguf_get_val_str(go, gguf_find_key(go, "general.architecture")), "llama") == 0);
    for (int64_t i = 0; i < gguf_get_n_tensors(go); i++) {
        const char * name = gguf_get_tensor_name(go, i);
        struct ggml_tensor * a = ggml_get_tensor(ci, name);
        struct ggml_tensor * b = ggml_get_tensor(co, name);
        int layer = -1;
        sscanf(name, "blk.%d.", &layer);
        const enum ggml_type want = expected(name, layer);
        TEST_CHECK_MSG(b != NULL && b->type == want, "%s: %s, expected %s", name, b ? ggml_type_name(b->type) : "missing",
                       ggml_type_name(want));
        if (a == NULL || b == NULL) continue;
        TEST_CHECK_MSG(ggml_validate_row_data(b->type, b->data, ggml_nbytes(b)), "%s: invalid data", name);
        if (b->type == GGML_TYPE_F32) {
            TEST_CHECK_MSG(memcmp(a->data, b->data, ggml_nbytes(a)) == 0, "%s: changed", name);
            continue;
        }
        const int64_t n = ggml_nelements(a);
        float * deq = malloc((size_t) n * sizeof(float));
        ggml_get_type_traits(b->type)->to_float(b->data, deq, n);
        double err = 0, ref = 0;
        for (int64_t k = 0; k < n; k++) {
            const double x = ((float *) a->data)[k];
            err += (deq[k] - x) * (deq[k] - x);
            ref += x * x;
        }
        const double rel = sqrt(err / ref);
        TEST_CHECK_MSG(ref > 0 && rel < error_bound(b->type), "%s (%s): relative RMS error %.4f > %.4f", name,
                       ggml_type_name(b->type), rel, error_bound(b->type));
        free(deq);
    }
    gguf_free(gi); gguf_free(go); ggml_free(ci); ggml_free(co);
}

static enum ggml_type expect_q4_k_m(const char * name, int layer) {
    if (strstr(name, "norm")) return GGML_TYPE_F32;
    if (strcmp(name, "output.weight") == 0) return GGML_TYPE_Q6_K;
    if (strstr(name, "attn_v") || strstr(name, "ffn_down")) {
        // ffn_down has 512 columns (K-quant blocks fit); attn_v 256
        return use_more_bits(layer, N_LAYER) ? GGML_TYPE_Q6_K : GGML_TYPE_Q4_K;
    }
    return GGML_TYPE_Q4_K;
}

static enum ggml_type expect_q4_0_imatrix(const char * name, int layer) {
    if (strstr(name, "norm")) return GGML_TYPE_F32;
    if (strcmp(name, "output.weight") == 0) return GGML_TYPE_Q6_K;
    if (strstr(name, "ffn_down") && layer < N_LAYER / 8) return GGML_TYPE_Q4_1;
    return GGML_TYPE_Q4_0;
}

static void write_imatrix(const char * fname) {
    // GGUF imatrix: sums of squared activations and counts for each ffn_down and attn_q
    struct ggml_init_params ip = { 8u << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct gguf_context * g = gguf_init_empty();
    for (int l = 0; l < N_LAYER; l++) {
        char n[96];
        snprintf(n, sizeof(n), "blk.%d.ffn_down.weight.in_sum2", l);
        struct ggml_tensor * s = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, N_FF, 1);
        ggml_set_name(s, n);
        for (int i = 0; i < N_FF; i++) ((float *) s->data)[i] = (float) (10.0 * (1.0 + (i % 7)));
        snprintf(n, sizeof(n), "blk.%d.ffn_down.weight.counts", l);
        struct ggml_tensor * c = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1, 1);
        ggml_set_name(c, n);
        ((float *) c->data)[0] = 10.0f;
        gguf_add_tensor(g, s);
        gguf_add_tensor(g, c);
    }
    TEST_CHECK(gguf_write_to_file(g, fname, false));
    gguf_free(g);
    ggml_free(ctx);
}

int main(int argc, char ** argv) {
    (void) argc;
    // the tool is built beside the tests: <build>/tools/quantize/quantize
    const char * slash = strrchr(argv[0], '/');
    snprintf(g_tool, sizeof(g_tool), "%.*s/../tools/quantize/quantize", slash ? (int) (slash - argv[0]) : 1, slash ? argv[0] : ".");
    if (access(g_tool, X_OK) != 0) {
        fprintf(stderr, "test-gguf-quantize: the quantize tool is not built (%s)\n", g_tool);
        return 1;
    }
    test_rng_init();
    char in[64], out[64], out2[64], imx[64], args[512];
    const int pid = (int) getpid();
    snprintf(in, sizeof(in), "quant-in-%d.gguf", pid);
    snprintf(out, sizeof(out), "quant-out-%d.gguf", pid);
    snprintf(out2, sizeof(out2), "quant-out2-%d.gguf", pid);
    snprintf(imx, sizeof(imx), "quant-imatrix-%d.gguf", pid);
    write_model(in);

    snprintf(args, sizeof(args), "%s %s Q4_K_M --threads 2", in, out);
    TEST_CHECK(run_tool(args) == 0);
    check_output(in, out, expect_q4_k_m);
    struct gguf_init_params pm = { true, NULL };
    struct gguf_context * g = gguf_init_from_file(out, pm);
    TEST_CHECK(g != NULL && gguf_get_val_u32(g, gguf_find_key(g, "general.file_type")) == 15);
    gguf_free(g);

    // the package reads the output as we do
    char cmd[2048];
    const char * here = __FILE__;
    snprintf(cmd, sizeof(cmd), "python3 '%.*s/data/gguf/canon-dump.py' '%s'", (int) (strrchr(here, '/') - here), here, out);
    FILE * p = popen(cmd, "r");
    struct canon_text py = { 0 };
    char line[4096];
    while (p != NULL && fgets(line, sizeof(line), p) != NULL) canon_printf(&py, "%s", line);
    const int status = p != NULL ? pclose(p) : -1;
    const int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 0) {
        struct ggml_context * cd = NULL;
        struct gguf_init_params pa = { false, &cd };
        g = gguf_init_from_file(out, pa);
        char * ours = g != NULL ? canon_dump(g, cd) : NULL;
        TEST_CHECK_MSG(ours != NULL && py.s != NULL && strcmp(ours, py.s) == 0, "the gguf package reads the output differently");
        free(ours);
        gguf_free(g);
        ggml_free(cd);
    } else {
        printf("note: the gguf Python package check is skipped (exit %d)\n", code);
    }
    free(py.s);

    // a quantized input is refused unless asked for
    snprintf(args, sizeof(args), "%s %s Q8_0", out, out2);
    TEST_CHECK(run_tool(args) == 1);
    TEST_CHECK(access(out2, F_OK) != 0);
    snprintf(args, sizeof(args), "%s %s NOT_A_TYPE", in, out2);
    TEST_CHECK(run_tool(args) == 2);
    snprintf(args, sizeof(args), "/nonexistent.gguf %s Q8_0", out2);
    TEST_CHECK(run_tool(args) == 1);

    // with an importance matrix, Q4_0 keeps the first ffn_down layers in Q4_1
    write_imatrix(imx);
    snprintf(args, sizeof(args), "%s %s Q4_0 --imatrix %s --threads 3", in, out2, imx);
    TEST_CHECK(run_tool(args) == 0);
    check_output(in, out2, expect_q4_0_imatrix);

    remove(in);
    remove(out);
    remove(out2);
    remove(imx);
    return test_finish("test-gguf-quantize");
}
