// Graph overhead: a chain of 1000 adds of 16 floats, computed again and again on the CPU backend.
// Each node does almost no arithmetic, so the time per node is what the framework costs (thread
// wake-up, the barrier between nodes, dispatch). The peer measured in the same run is the bare
// work: the same 1000 adds as a plain C loop on one thread, the floor no framework can beat.
//
//   graph-overhead [n_nodes] [repetitions]     (default 1000 and 2000)

#include "bench-timing.h" // first: it selects POSIX for clock_gettime

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char ** argv) {
    const int n_nodes = argc > 1 ? atoi(argv[1]) : 1000;
    const int reps    = argc > 2 ? atoi(argv[2]) : 2000;
    if (n_nodes < 1 || reps < 1) {
        fprintf(stderr, "usage: %s [n_nodes >= 1] [repetitions >= 1]\n", argv[0]);
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
    return 0;
}
