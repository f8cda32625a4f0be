// The main demo: one transformer block (RMS norm, attention with RoPE, SwiGLU MLP) computed on
// every device the registry knows, through the scheduler, with the results of each device checked
// against the CPU's; then the abort-free contract: bad calls that the family's library would die
// on, each answered with a message and a NULL / false / error status.
//
//   demo [n_tokens]      (default 64)

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_EMBD = 512, N_HEAD = 8, N_HEAD_KV = 4, N_FF = 1536, HEAD_DIM = N_EMBD / N_HEAD };

struct block_weights {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buffer;
    struct ggml_tensor * x, * pos;                 // inputs: activations, token positions
    struct ggml_tensor * attn_norm, * wq, * wk, * wv, * wo;
    struct ggml_tensor * ffn_norm, * w_gate, * w_up, * w_down;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static float rand_uniform(float lo, float hi) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (float)((rng_state >> 11) * (1.0 / 9007199254740992.0));
}

static void fill_random(struct ggml_tensor * t, float lo, float hi) {
    const int64_t n = ggml_nelements(t);
    float * f32 = malloc(n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        f32[i] = rand_uniform(lo, hi);
    }
    if (t->type == GGML_TYPE_F16) {
        ggml_fp16_t * f16 = malloc(n * sizeof(ggml_fp16_t));
        ggml_fp32_to_fp16_row(f32, f16, n);
        ggml_backend_tensor_set(t, f16, 0, ggml_nbytes(t));
        free(f16);
    } else {
        ggml_backend_tensor_set(t, f32, 0, ggml_nbytes(t));
    }
    free(f32);
}

// Weights (F16 matrices, F32 norms) and inputs in one buffer of the given type, as a model loader
// would leave them; the same values on every call.
static bool weights_init(struct block_weights * w, int n_tokens, ggml_backend_buffer_type_t buft) {
    rng_state = 0x9e3779b97f4a7c15ULL;
    struct ggml_init_params params = { 16 * ggml_tensor_overhead(), NULL, true };
    w->ctx = ggml_init(params);
    if (w->ctx == NULL) {
        return false;
    }
    w->x         = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F32, N_EMBD, n_tokens);
    w->pos       = ggml_new_tensor_1d(w->ctx, GGML_TYPE_I32, n_tokens);
    w->attn_norm = ggml_new_tensor_1d(w->ctx, GGML_TYPE_F32, N_EMBD);
    w->wq        = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_EMBD, N_EMBD);
    w->wk        = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_EMBD, HEAD_DIM * N_HEAD_KV);
    w->wv        = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_EMBD, HEAD_DIM * N_HEAD_KV);
    w->wo        = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_EMBD, N_EMBD);
    w->ffn_norm  = ggml_new_tensor_1d(w->ctx, GGML_TYPE_F32, N_EMBD);
    w->w_gate    = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_EMBD, N_FF);
    w->w_up      = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_EMBD, N_FF);
    w->w_down    = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F16, N_FF, N_EMBD);

    w->buffer = ggml_backend_alloc_ctx_tensors_from_buft(w->ctx, buft);
    if (w->buffer == NULL) {
        return false;
    }
    ggml_backend_buffer_set_usage(w->buffer, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);

    const float scale = 1.0f / sqrtf((float) N_EMBD);
    fill_random(w->x, -1.0f, 1.0f);
    fill_random(w->attn_norm, 0.8f, 1.2f);
    fill_random(w->ffn_norm, 0.8f, 1.2f);
    struct ggml_tensor * mats[] = { w->wq, w->wk, w->wv, w->wo, w->w_gate, w->w_up, w->w_down };
    for (size_t i = 0; i < sizeof(mats) / sizeof(mats[0]); i++) {
        fill_random(mats[i], -2.0f * scale, 2.0f * scale);
    }
    int32_t * pos = malloc(n_tokens * sizeof(int32_t));
    for (int i = 0; i < n_tokens; i++) {
        pos[i] = i;
    }
    ggml_backend_tensor_set(w->pos, pos, 0, n_tokens * sizeof(int32_t));
    free(pos);
    return true;
}

// The block as a graph; every op constructor returns NULL on bad shapes, and NULL propagates.
static struct ggml_tensor * build_block(struct ggml_context * ctx, const struct block_weights * w, int n_tokens) {
    struct ggml_tensor * h = ggml_mul(ctx, ggml_rms_norm(ctx, w->x, 1e-5f), w->attn_norm);

    struct ggml_tensor * q = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w->wq, h), HEAD_DIM, N_HEAD, n_tokens);
    struct ggml_tensor * k = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w->wk, h), HEAD_DIM, N_HEAD_KV, n_tokens);
    struct ggml_tensor * v = ggml_reshape_3d(ctx, ggml_mul_mat(ctx, w->wv, h), HEAD_DIM, N_HEAD_KV, n_tokens);
    q = ggml_rope_ext(ctx, q, w->pos, NULL, HEAD_DIM, GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    k = ggml_rope_ext(ctx, k, w->pos, NULL, HEAD_DIM, GGML_ROPE_TYPE_NEOX, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);

    // [head_dim, tokens, heads]: attention over the tokens of each head, causal
    q = ggml_permute(ctx, q, 0, 2, 1, 3);
    k = ggml_permute(ctx, k, 0, 2, 1, 3);
    v = ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3)); // [tokens, head_dim, heads_kv]

    // grouped-query attention: mul_mat broadcasts the N_HEAD_KV heads of k and v over the N_HEAD query heads
    struct ggml_tensor * kq = ggml_mul_mat(ctx, k, q);    // [tokens_k, tokens_q, heads]
    kq = ggml_diag_mask_inf(ctx, kq, 0);
    kq = ggml_soft_max_ext(ctx, kq, NULL, 1.0f / sqrtf((float) HEAD_DIM), 0.0f);
    struct ggml_tensor * kqv = ggml_mul_mat(ctx, v, kq);  // [head_dim, tokens_q, heads]
    kqv = ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), N_EMBD, n_tokens);

    struct ggml_tensor * x1 = ggml_add(ctx, w->x, ggml_mul_mat(ctx, w->wo, kqv));

    h = ggml_mul(ctx, ggml_rms_norm(ctx, x1, 1e-5f), w->ffn_norm);
    struct ggml_tensor * ff = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, w->w_gate, h), ggml_mul_mat(ctx, w->w_up, h));
    struct ggml_tensor * out = ggml_add(ctx, x1, ggml_mul_mat(ctx, w->w_down, ff));
    if (out != NULL) {
        ggml_set_output(out);
    }
    return out;
}

// Computes the block with a scheduler over {backend, CPU} (or the CPU alone) and copies the result out.
static bool run_block(ggml_backend_t backend, ggml_backend_t cpu, const struct block_weights * w,
                      int n_tokens, float * result, double * ms) {
    ggml_backend_t backends[2] = { backend, cpu };
    const int n_backends = backend == cpu ? 1 : 2;

    const size_t graph_size = 256;
    struct ggml_init_params params = { graph_size * ggml_tensor_overhead() + ggml_graph_overhead_custom(graph_size, false), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        return false;
    }
    bool ok = false;
    ggml_backend_sched_t sched = NULL;
    struct ggml_tensor * out = build_block(ctx, w, n_tokens);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, graph_size, false);
    if (out == NULL || gf == NULL) {
        goto done;
    }
    ggml_build_forward_expand(gf, out);

    sched = ggml_backend_sched_new(backends + (n_backends == 1 ? 1 : 0), NULL, n_backends, graph_size, false);
    if (sched == NULL || !ggml_backend_sched_alloc_graph(sched, gf)) {
        goto done;
    }
    // a first run warms up (thread pool, kernel compilation), then the median of five
    enum { RUNS = 5 };
    double t[RUNS];
    for (int r = -1; r < RUNS; r++) {
        const int64_t t0 = ggml_time_us();
        if (ggml_backend_sched_graph_compute(sched, gf) != GGML_STATUS_SUCCESS) {
            goto done;
        }
        if (r >= 0) {
            t[r] = (ggml_time_us() - t0) / 1000.0;
        }
    }
    for (int i = 1; i < RUNS; i++) { // insertion sort of five values
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            const double x = t[j]; t[j] = t[j - 1]; t[j - 1] = x;
        }
    }
    *ms = t[RUNS / 2];
    ggml_backend_tensor_get(out, result, 0, ggml_nbytes(out));
    printf("    %d nodes, %d splits, %.2f ms (median of %d runs)\n", ggml_graph_n_nodes(gf),
           ggml_backend_sched_get_n_splits(sched), *ms, RUNS);
    ok = true;
done:
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    return ok;
}

static void demo_devices(int n_tokens) {
    printf("== devices\n");
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        size_t free_mem, total_mem;
        ggml_backend_dev_memory(dev, &free_mem, &total_mem);
        const enum ggml_backend_dev_type type = ggml_backend_dev_type(dev);
        // ACCEL: a device with its own memory that ggml_backend_init_best does not pick (PoCL's)
        const char * type_name = type == GGML_BACKEND_DEVICE_TYPE_CPU ? "CPU" : type == GGML_BACKEND_DEVICE_TYPE_GPU ? "GPU" :
                                 type == GGML_BACKEND_DEVICE_TYPE_IGPU ? "IGPU" : type == GGML_BACKEND_DEVICE_TYPE_ACCEL ? "ACCEL" : "other";
        printf("  %-10s %-5s %-48.48s %6zu MiB\n", ggml_backend_dev_name(dev), type_name, ggml_backend_dev_description(dev),
            total_mem >> 20);
    }

    struct block_weights w = { 0 };
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (cpu == NULL || !weights_init(&w, n_tokens, ggml_backend_cpu_buffer_type())) {
        printf("  cannot set up the CPU backend and the weights\n");
        goto done;
    }
    const size_t n_out = (size_t) N_EMBD * n_tokens;
    float * reference = malloc(n_out * sizeof(float));
    float * result = malloc(n_out * sizeof(float));
    double ms;

    printf("\n== one transformer block (%d tokens, %d dims, %d heads, F16 weights) on each device\n", n_tokens, N_EMBD, N_HEAD);
    ggml_backend_cpu_set_n_threads(cpu, 2);
    printf("  CPU (2 threads)\n");
    if (!run_block(cpu, cpu, &w, n_tokens, reference, &ms)) {
        printf("    failed\n");
        goto done_buffers;
    }
    ggml_backend_cpu_set_n_threads(cpu, 1);
    printf("  CPU (1 thread)\n");
    if (run_block(cpu, cpu, &w, n_tokens, result, &ms)) {
        double max_diff = 0.0;
        for (size_t i = 0; i < n_out; i++) {
            max_diff = fmax(max_diff, fabs((double) result[i] - reference[i]));
        }
        printf("    max |difference| to 2 threads: %.3g\n", max_diff);
    }
    ggml_backend_cpu_set_n_threads(cpu, 2);

    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU) {
            continue;
        }
        ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
        if (backend == NULL) {
            continue;
        }
        // the weights live on the device: the scheduler runs there what the device supports
        struct block_weights dw = { 0 };
        printf("  %s + CPU (weights in %s memory)\n", ggml_backend_name(backend), ggml_backend_name(backend));
        if (weights_init(&dw, n_tokens, ggml_backend_get_default_buffer_type(backend)) &&
            run_block(backend, cpu, &dw, n_tokens, result, &ms)) {
            double err = 0.0, norm = 0.0;
            for (size_t j = 0; j < n_out; j++) {
                err  += ((double) result[j] - reference[j]) * ((double) result[j] - reference[j]);
                norm += (double) reference[j] * reference[j];
            }
            printf("    normalized squared error to the CPU: %.3g\n", err / norm);
        } else {
            printf("    failed (see the log above)\n");
        }
        ggml_backend_buffer_free(dw.buffer);
        ggml_free(dw.ctx);
        ggml_backend_free(backend);
    }
done_buffers:
    free(reference);
    free(result);
done:
    ggml_backend_buffer_free(w.buffer);
    ggml_free(w.ctx);
    ggml_backend_free(cpu);
}

static void log_indented(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level != GGML_LOG_LEVEL_CONT) {
        fputs("      log: ", stdout);
    }
    fputs(text, stdout);
}

// Each call below kills a process that uses the family's library; here each returns.
static void demo_abort_free(void) {
    printf("\n== abort-free: bad calls answered, not fatal\n");
    ggml_log_set(log_indented, NULL);

    struct ggml_init_params params = { 1024 * 1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 32);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 48, 8);

    printf("  ggml_mul_mat of [64, 32] and [48, 8] (inner sizes differ)\n");
    printf("    -> %s\n", ggml_mul_mat(ctx, a, b) == NULL ? "NULL" : "a tensor?!");

    printf("  ggml_add with a NULL operand\n");
    printf("    -> %s\n", ggml_add(ctx, a, NULL) == NULL ? "NULL" : "a tensor?!");

    printf("  ggml_reshape_2d of 2048 elements to [100, 100]\n");
    printf("    -> %s\n", ggml_reshape_2d(ctx, a, 100, 100) == NULL ? "NULL" : "a tensor?!");

    printf("  a tensor larger than the context\n");
    printf("    -> %s\n", ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1 << 20) == NULL ? "NULL" : "a tensor?!");

    ggml_backend_t cpu = ggml_backend_cpu_init();
    printf("  a CPU buffer of %zu bytes\n", (size_t) SIZE_MAX / 2);
    ggml_backend_buffer_t huge = ggml_backend_alloc_buffer(cpu, SIZE_MAX / 2);
    printf("    -> %s\n", huge == NULL ? "NULL" : "a buffer?!");

    struct ggml_context * nctx = ggml_init((struct ggml_init_params) { 8 * ggml_tensor_overhead() + ggml_graph_overhead_custom(2, false), NULL, true });
    struct ggml_tensor * t = ggml_new_tensor_1d(nctx, GGML_TYPE_F32, 16);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(nctx, cpu);
    float data[32] = { 0 };
    printf("  ggml_backend_tensor_set of 32 floats into a tensor of 16\n");
    ggml_backend_tensor_set(t, data, 0, sizeof(data));
    printf("    -> nothing written\n");

    printf("  computing a graph that overflowed its size (3 nodes into a graph of 2)\n");
    struct ggml_cgraph * small = ggml_new_graph_custom(nctx, 2, false);
    struct ggml_tensor * y = ggml_scale(nctx, ggml_sqr(nctx, ggml_neg(nctx, t)), 2.0f);
    ggml_build_forward_expand(small, y);
    enum ggml_status status = ggml_backend_graph_compute(cpu, small);
    printf("    -> %s\n", ggml_status_to_string(status));

    ggml_backend_buffer_free(buf);
    ggml_free(nctx);
    ggml_backend_free(cpu);
    ggml_free(ctx);
    ggml_log_set(NULL, NULL);
    printf("  the process is still here.\n");
}

int main(int argc, char ** argv) {
    int n_tokens = argc > 1 ? atoi(argv[1]) : 64;
    if (n_tokens < 1 || n_tokens > 4096) {
        fprintf(stderr, "usage: %s [n_tokens in 1..4096]\n", argv[0]);
        return 1;
    }
    demo_devices(n_tokens);
    demo_abort_free();
    return 0;
}
