// Tokens per second of one transformer block (tests/test-meta-util.h: attention split by heads,
// MLP column- then row-parallel) on single devices and on meta devices of two:
//   one CPU device with 2 threads   vs  Meta(CPU,CPU) with 1 thread per device
//   OpenCL0 alone, CPU alone        vs  Meta(OpenCL0,CPU)      (when OpenCL0 exists)
// for decode (1 token) and prompt (128 tokens). For meta devices the time is broken down into
// device compute, all-reduces and gathers (the meta backend's own counters).
//
//   bench/meta-block [n_embd n_head n_ff] [reps]      (default 1024 16 2816, 5 reps)
//
// Each figure is the median of reps timed runs after one warm-up run.

#include "ggml-backend-impl.h"
#include "../src/ggml-backend-meta-graph.h"
#include "../tests/test-meta-util.h"

#include <stdio.h>
#include <stdlib.h>

static int g_reps = 5;

static int cmp_i64(const void * a, const void * b) {
    const int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

// median microseconds per graph; fills the meta breakdown (per run) when backend is a meta one
static int64_t time_block(ggml_backend_t backend, ggml_backend_buffer_type_t buft, const struct mu_block * p,
                          int64_t * us_mean, int64_t * us_compute, int64_t * us_reduce, int64_t * us_gather) {
    struct mu_run r;
    int64_t med = -1;
    if (mu_run_init(&r, buft, mu_build_block, p, 1)) {
        int64_t t[64];
        struct meta_backend * mb = ggml_backend_is_meta(backend) ? (struct meta_backend *) backend->context : NULL;
        bool ok = ggml_backend_graph_compute(backend, r.graph) == GGML_STATUS_SUCCESS; // warm-up
        int64_t c0 = mb ? mb->us_compute : 0, r0 = mb ? mb->us_reduce : 0, g0 = mb ? mb->us_gather : 0;
        for (int i = 0; i < g_reps && ok; i++) {
            const int64_t t0 = ggml_time_us();
            ok = ggml_backend_graph_compute(backend, r.graph) == GGML_STATUS_SUCCESS;
            t[i] = ggml_time_us() - t0;
        }
        if (ok) {
            *us_mean = 0;
            for (int i = 0; i < g_reps; i++) {
                *us_mean += t[i] / g_reps;
            }
            qsort(t, (size_t) g_reps, sizeof(t[0]), cmp_i64);
            med = t[g_reps / 2];
            if (mb != NULL) {
                *us_compute = (mb->us_compute - c0) / g_reps;
                *us_reduce = (mb->us_reduce - r0) / g_reps;
                *us_gather = (mb->us_gather - g0) / g_reps;
            }
        }
    }
    mu_run_free(&r);
    return med;
}

static void row(const char * name, ggml_backend_t backend, ggml_backend_buffer_type_t buft, struct mu_block p) {
    printf("%-34s", name);
    const int tokens[2] = { 1, 128 };
    char split[2][160] = { "", "" };
    for (int k = 0; k < 2; k++) {
        p.n_tokens = tokens[k];
        int64_t c = -1, r = -1, g = -1, mean = 0;
        const int64_t us = time_block(backend, buft, &p, &mean, &c, &r, &g);
        if (us <= 0) {
            printf(" %14s", "failed");
            continue;
        }
        printf(" %10.1f t/s", tokens[k] * 1e6 / (double) us);
        if (c >= 0) {
            snprintf(split[k], sizeof(split[k]), "%s, mean of %.2f ms: compute %.2f, all-reduce %.2f, gather %.2f, other %.2f",
                    k ? "prompt" : "decode", mean / 1e3, c / 1e3, r / 1e3, g / 1e3, (mean - c - r - g) / 1e3);
        }
    }
    printf("\n");
    for (int k = 0; k < 2; k++) {
        if (split[k][0]) {
            printf("    %s\n", split[k]);
        }
    }
}

static void set_threads(ggml_backend_t b, int n) {
    if (ggml_backend_is_cpu(b)) {
        ggml_backend_cpu_set_n_threads(b, n);
    }
}

static struct mu_splits g_sp;

static void meta_row(const char * name, ggml_backend_dev_t * devs, size_t n, const struct mu_block * p, int cpu_threads) {
    mu_block_splits(&g_sp, n, p, NULL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, n, mu_get_split_state, &g_sp);
    ggml_backend_t b = md ? ggml_backend_dev_init(md, NULL) : NULL;
    if (b == NULL) {
        printf("%-34s (no meta backend)\n", name);
        return;
    }
    for (size_t j = 0; j < n; j++) {
        set_threads(ggml_backend_meta_simple_backend(b, j), cpu_threads);
    }
    row(name, b, ggml_backend_dev_buffer_type(md), *p);
    ggml_backend_free(b);
}

int main(int argc, char ** argv) {
    struct mu_block p = { 1024, 16, 2816, 1 };
    if (argc >= 4) {
        p.n_embd = atoi(argv[1]);
        p.n_head = atoi(argv[2]);
        p.n_ff = atoi(argv[3]);
    }
    if (argc >= 5) {
        g_reps = atoi(argv[4]);
    }
    if (g_reps < 1 || g_reps > 64 || p.n_head < 1 || p.n_embd % p.n_head != 0 || p.n_ff < 1) {
        fprintf(stderr, "usage: %s [n_embd n_head n_ff] [reps 1..64]\n", argv[0]);
        return 1;
    }
    ggml_time_init();
    printf("transformer block: n_embd %d, n_head %d, n_ff %d, F32 weights; median of %d runs\n", p.n_embd, p.n_head, p.n_ff, g_reps);
    printf("%-34s %14s %14s\n", "device", "decode (1)", "prompt (128)");

    ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_name("CPU");
    ggml_backend_t cpu = ggml_backend_dev_init(cpu_dev, NULL);
    set_threads(cpu, 2);
    row("CPU, 2 threads", cpu, ggml_backend_cpu_buffer_type(), p);
    set_threads(cpu, 1);
    row("CPU, 1 thread", cpu, ggml_backend_cpu_buffer_type(), p);
    ggml_backend_free(cpu);

    ggml_backend_dev_t cc[2] = { cpu_dev, cpu_dev };
    meta_row("Meta(CPU,CPU), 1 thread each", cc, 2, &p, 1);

    ggml_backend_dev_t ocl = ggml_backend_dev_by_name("OpenCL0");
    if (ocl != NULL) {
        ggml_backend_t ob = ggml_backend_dev_init(ocl, NULL);
        if (ob != NULL) {
            row("OpenCL0", ob, ggml_backend_dev_buffer_type(ocl), p);
            ggml_backend_free(ob);
        }
        ggml_backend_dev_t oc[2] = { ocl, cpu_dev };
        meta_row("Meta(OpenCL0,CPU), CPU 1 thread", oc, 2, &p, 1);
    } else {
        printf("(no OpenCL0 device)\n");
    }
    return 0;
}
