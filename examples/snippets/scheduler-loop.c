// docs snippet: docs/scheduler.md 1
// docs/scheduler.md's usage loop, compiled and run on OpenCL0 (the "gpu" of the snippet: any
// device with its own memory) and the CPU: each batch is a small graph, out = sum_rows(x*x + x),
// whose node x*x is placed on the device; the result is checked against doubles every batch.
// Exit code 77 (skipped) without an OpenCL device, a failure if GGML_TEST_REQUIRE_OPENCL is set.
#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { COLS = 64, ROWS = 16, n_batches = 3 };

static struct ggml_context * g_ctx;   // the context of the current batch's graph
static struct ggml_tensor  * input, * node, * out;
static float data[COLS*ROWS];
static const size_t size = sizeof(data);

static struct ggml_cgraph * build_graph(int batch) {
    (void) batch; // every batch has the same shape here; its data differs
    ggml_free(g_ctx);
    struct ggml_init_params p = { .mem_size = 16*ggml_tensor_overhead() + ggml_graph_overhead(), .mem_buffer = NULL, .no_alloc = true };
    g_ctx = ggml_init(p);
    if (g_ctx == NULL) {
        return NULL;
    }
    input = ggml_new_tensor_2d(g_ctx, GGML_TYPE_F32, COLS, ROWS);
    ggml_set_input(input);
    node = ggml_sqr(g_ctx, input);
    out = ggml_sum_rows(g_ctx, ggml_add(g_ctx, node, input));
    ggml_set_output(out);
    struct ggml_cgraph * gf = ggml_new_graph(g_ctx);
    ggml_build_forward_expand(gf, out);
    return gf;
}

int main(void) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
    if (dev == NULL) {
        if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
            printf("scheduler-loop: FAILED: no OpenCL device, and GGML_TEST_REQUIRE_OPENCL is set\n");
            return 1;
        }
        printf("scheduler-loop: no OpenCL device: skipped\n");
        return 77;
    }
    ggml_backend_t gpu = ggml_backend_dev_init(dev, NULL);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_cgraph * worst_case_graph = build_graph(0);
    if (gpu == NULL || cpu == NULL || worst_case_graph == NULL) {
        return 1;
    }
    int failures = 0;

ggml_backend_t backends[] = { gpu, cpu };              // priority order; the CPU comes last
ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false);
if (sched == NULL) {
    return 1;
}

ggml_backend_sched_reserve(sched, worst_case_graph);   // optional: size the buffers once

for (int batch = 0; batch < n_batches; batch++) {
    ggml_backend_sched_reset(sched);                   // forget the previous graph
    for (int i = 0; i < COLS*ROWS; i++) {
        data[i] = (float) ((i*7 + batch*13) % 23) / 11.0f - 1.0f;
    }
    struct ggml_cgraph * gf = build_graph(batch);
    ggml_backend_sched_set_tensor_backend(sched, node, gpu);   // optional placement
    ggml_backend_sched_alloc_graph(sched, gf);         // assign, split, allocate
    ggml_backend_tensor_set(input, data, 0, size);     // fill the inputs
    ggml_backend_sched_graph_compute(sched, gf);       // run (and wait)
    float got[ROWS];
    ggml_backend_tensor_get(out, got, 0, sizeof(got));
    double worst = 0.0;
    for (int r = 0; r < ROWS; r++) {
        double want = 0.0;
        for (int c = 0; c < COLS; c++) {
            const double v = data[r*COLS + c];
            want += v*v + v;
        }
        worst = fmax(worst, fabs(got[r] - want) / (1.0 + fabs(want)));
    }
    failures += worst <= 1e-5 && ggml_backend_sched_get_tensor_backend(sched, node) == gpu ? 0 : 1;
    printf("scheduler-loop: batch %d: %d splits, max relative error %.2e (bound 1e-5)\n", batch,
        ggml_backend_sched_get_n_splits(sched), worst);
}
ggml_backend_sched_free(sched);                        // before the backends

    ggml_backend_free(gpu);
    ggml_backend_free(cpu);
    ggml_free(g_ctx);
    printf("scheduler-loop: %s\n", failures == 0 ? "passed" : "FAILED");
    return failures == 0 ? 0 : 1;
}
