// Graph overhead: a chain of 1000 adds of 16 floats, computed again and again on the CPU backend.
// Each node does almost no arithmetic, so the time per node is what the framework costs (thread
// wake-up, the barrier between nodes, dispatch). The peer measured in the same run is the bare
// work: the same 1000 adds as a plain C loop on one thread, the floor no framework can beat.
// Then the latency of a graph of ONE tiny node (ROPE [128,8,1], ADD [16]), each compute timed on
// its own (wall clock, median of many), through ggml_backend_graph_compute and through
// ggml_graph_plan + ggml_graph_compute on a thread pool (the family-perf driver's way), with 1
// and 2 threads: what a decode step's small nodes pay when they wake (or do not wake) a worker.
//
//   graph-overhead [n_nodes] [repetitions] [one-node computes]   (default 1000, 2000 and 3000)

#define _POSIX_C_SOURCE 200809L

#include "bench-timing.h" // first: it selects POSIX for clock_gettime

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROW = 16 };

// microseconds per node of the plain loop: x = x + b, n_nodes times
static double bare_loop_us(int n_nodes, int reps) {
    float x[ROW], b[ROW];
    for (int i = 0; i < ROW; i++) {
        x[i] = 0.0f;
        b[i] = 1e-3f * (float)(i + 1);
    }
    const int64_t t0 = ggml_time_us();
    for (int r = 0; r < reps; r++) {
        for (int n = 0; n < n_nodes; n++) {
            for (int i = 0; i < ROW; i++) {
                x[i] += b[i];
            }
            __asm__ volatile("" : : "r"(x) : "memory"); // keep every pass
        }
    }
    const int64_t t1 = ggml_time_us();
    if (x[0] < 0.0f) {
        printf("unexpected\n");
    }
    return (double)(t1 - t0) / ((double) reps * n_nodes);
}

// microseconds per node of the graph on the CPU backend with n_threads; 0 on failure
static double graph_us(int n_nodes, int reps, int n_threads) {
    const size_t graph_size = (size_t) n_nodes + 16;
    struct ggml_init_params params = {
        (n_nodes + 16) * ggml_tensor_overhead() + ggml_graph_overhead_custom(graph_size, false), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_gallocr_t galloc = NULL;
    double result = 0.0;
    if (ctx == NULL || cpu == NULL) {
        goto done;
    }
    ggml_backend_cpu_set_n_threads(cpu, n_threads);

    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ROW);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ROW);
    ggml_set_input(x);
    ggml_set_input(b);
    struct ggml_tensor * cur = x;
    for (int i = 0; i < n_nodes; i++) {
        cur = ggml_add(ctx, cur, b);
    }
    ggml_set_output(cur);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, graph_size, false);
    ggml_build_forward_expand(gf, cur);

    galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
    if (galloc == NULL || !ggml_gallocr_alloc_graph(galloc, gf)) {
        goto done;
    }
    float init[ROW];
    for (int i = 0; i < ROW; i++) {
        init[i] = 1e-3f * (float)(i + 1);
    }
    ggml_backend_tensor_set(x, init, 0, sizeof(init));
    ggml_backend_tensor_set(b, init, 0, sizeof(init));

    // warm-up, then the median of several blocks
    if (ggml_backend_graph_compute(cpu, gf) != GGML_STATUS_SUCCESS) {
        goto done;
    }
    enum { BLOCKS = 7 };
    double per_node[BLOCKS];
    const int block_reps = reps / BLOCKS > 0 ? reps / BLOCKS : 1;
    for (int k = 0; k < BLOCKS; k++) {
        const int64_t t0 = ggml_time_us();
        for (int r = 0; r < block_reps; r++) {
            ggml_backend_graph_compute(cpu, gf);
        }
        per_node[k] = (double)(ggml_time_us() - t0) / ((double) block_reps * n_nodes);
    }
    float out[ROW];
    ggml_backend_tensor_get(cur, out, 0, sizeof(out));
    const float expect = init[ROW - 1] * (float)(n_nodes + 1);
    if (out[ROW - 1] < 0.99f * expect || out[ROW - 1] > 1.01f * expect) {
        printf("wrong result: %g, expected %g\n", out[ROW - 1], expect);
        goto done;
    }
    result = median(per_node, BLOCKS);
done:
    ggml_gallocr_free(galloc);
    ggml_backend_free(cpu);
    ggml_free(ctx);
    return result;
}

static double wall_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec*1e6 + (double) ts.tv_nsec*1e-3;
}

// Median microseconds of one compute of a one-node graph (rope: ROPE [128,8,1], else ADD [16])
// with n_threads; via_plan: ggml_graph_plan + ggml_graph_compute on a pool, else the backend.
// 0 on failure.
static double one_node_us(bool rope, bool via_plan, int n_threads, int n_computes) {
    struct ggml_init_params params = { 16*ggml_tensor_overhead() + ggml_graph_overhead() + 64*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    double * t = malloc((size_t) n_computes*sizeof(double));
    ggml_backend_t cpu = NULL;
    struct ggml_threadpool * tp = NULL;
    void * work = NULL;
    double result = 0.0;
    if (ctx == NULL || t == NULL) {
        goto done;
    }
    struct ggml_tensor * out;
    if (rope) {
        struct ggml_tensor * a   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 128, 8, 1);
        struct ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
        for (int i = 0; i < 128*8; i++) {
            ((float *) a->data)[i] = 1e-3f*(float) (i % 97) - 0.05f;
        }
        ((int32_t *) pos->data)[0] = 7;
        out = ggml_rope_ext(ctx, a, pos, NULL, 128, 0, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    } else {
        struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ROW);
        for (int i = 0; i < ROW; i++) {
            ((float *) a->data)[i] = 1e-3f*(float) (i + 1);
        }
        out = ggml_add(ctx, a, a);
    }
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    struct ggml_cplan plan;
    if (via_plan) {
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
        tp = ggml_threadpool_new(&tpp);
        if (tp == NULL) {
            goto done;
        }
        plan = ggml_graph_plan(gf, n_threads, tp);
        work = plan.work_size ? malloc(plan.work_size) : NULL;
        plan.work_data = work;
    } else {
        cpu = ggml_backend_cpu_init();
        if (cpu == NULL) {
            goto done;
        }
        ggml_backend_cpu_set_n_threads(cpu, n_threads);
    }
    for (int r = -10; r < n_computes; r++) {
        const double t0 = wall_us();
        const enum ggml_status st = via_plan ? ggml_graph_compute(gf, &plan) : ggml_backend_graph_compute(cpu, gf);
        if (st != GGML_STATUS_SUCCESS) {
            goto done;
        }
        if (r >= 0) {
            t[r] = wall_us() - t0;
        }
    }
    result = median(t, n_computes);
done:
    free(work);
    ggml_threadpool_free(tp);
    ggml_backend_free(cpu);
    ggml_free(ctx);
    free(t);
    return result;
}

int main(int argc, char ** argv) {
    const int n_nodes = argc > 1 ? atoi(argv[1]) : 1000;
    const int reps    = argc > 2 ? atoi(argv[2]) : 2000;
    const int n_one   = argc > 3 ? atoi(argv[3]) : 3000;
    if (n_nodes < 1 || reps < 1 || n_one < 1) {
        fprintf(stderr, "usage: %s [n_nodes >= 1] [repetitions >= 1] [one-node computes >= 1]\n", argv[0]);
        return 1;
    }
    ggml_log_set(NULL, NULL);
    const double bare = bare_loop_us(n_nodes, reps);
    printf("graph overhead: a chain of %d adds of %d floats, median of 7 blocks\n", n_nodes, ROW);
    printf("  %-28s %8.3f us/node\n", "plain C loop (the floor)", bare);
    for (int t = 1; t <= 2; t++) {
        const double us = graph_us(n_nodes, reps, t);
        if (us <= 0.0) {
            printf("  CPU backend, %d thread(s): failed\n", t);
            return 1;
        }
        printf("  CPU backend, %d thread%s        %8.3f us/node   (%.0fx the floor)\n", t, t == 1 ? ": " : "s:", us, us / bare);
    }
    printf("one-node graph, wall clock per compute, median of %d\n", n_one);
    for (int k = 0; k < 4; k++) {
        const bool rope = k < 2, via_plan = k % 2 == 1;
        printf("  %-4s %-28s", rope ? "ROPE" : "ADD", via_plan ? "graph_plan + graph_compute" : "backend_graph_compute");
        for (int t = 1; t <= 2; t++) {
            const double us = one_node_us(rope, via_plan, t, n_one);
            if (us <= 0.0) {
                printf("  failed\n");
                return 1;
            }
            printf("  %d thread%s %7.2f us", t, t == 1 ? ": " : "s:", us);
        }
        printf("\n");
    }
    return 0;
}
