// backend-ops perf and support modes.
//
// perf: one warm-up run, then runs until about 0.2 s have passed (at least 3); the median time
// per run is reported with GFLOP/s for compute-bound ops (matrix products, convolutions,
// attention) and GB/s (bytes read + written) for the others, beside the backend's copy bandwidth
// (a 64 MiB tensor copy inside its own buffer, measured once per backend) and the ratio to it.

#include "bops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOPS_PERF_MAX_RUNS 10000
#define BOPS_PERF_TARGET_US 200000

double bops_node_flops(const struct ggml_tensor * node) {
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    switch (node->op) {
        case GGML_OP_MUL_MAT:
            // every output element is a dot product of length a->ne[0]
            return 2.0 * (double) a->ne[0] * (double) ggml_nelements(node);
        case GGML_OP_OUT_PROD:
            return 2.0 * (double) a->ne[1] * (double) ggml_nelements(node);
        case GGML_OP_CONV_2D:
            // kernel [KW, KH, IC, OC]: KW*KH*IC multiply-adds per output element
            return 2.0 * (double) a->ne[0] * (double) a->ne[1] * (double) a->ne[2] * (double) ggml_nelements(node);
        case GGML_OP_FLASH_ATTN_EXT: {
            // q [DK, n_batch, n_head, ne3], k [DK, n_kv, ...], v [DV, n_kv, ...]
            const struct ggml_tensor * v = node->src[2];
            return 2.0 * (double) a->ne[1] * (double) a->ne[2] * (double) a->ne[3] * (double) b->ne[1] *
                   (double) (a->ne[0] + v->ne[0]);
        }
        default:
            return 0.0;
    }
}

static double bops_graph_flops(struct ggml_cgraph * graph) {
    double f = 0.0;
    for (int i = 0; i < ggml_graph_n_nodes(graph); i++) {
        f += bops_node_flops(ggml_graph_node(graph, i));
    }
    return f;
}

static double bops_graph_bytes(struct ggml_cgraph * graph) {
    double bytes = 0.0;
    for (int i = 0; i < ggml_graph_n_nodes(graph); i++) {
        const struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (bops_is_view_op(node->op)) {
            continue;
        }
        bytes += (double) ggml_nbytes(node);
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (node->src[s] != NULL) {
                bytes += (double) ggml_nbytes(node->src[s]);
            }
        }
    }
    return bytes;
}

// read + written bytes per second of a 64 MiB copy between two tensors of the backend's buffer
// type (best of 5 after a warm-up); 0 when it cannot be measured. perf runs on one thread: the
// figure is kept for the backend it was measured on.
static double bops_copy_gbs(ggml_backend_t backend) {
    static ggml_backend_t measured = NULL;
    static double gbs = 0.0;
    if (backend == measured) {
        return gbs;
    }
    measured = backend;
    gbs = 0.0;
    struct ggml_init_params ip = { 2*ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    if (ctx == NULL) {
        return gbs;
    }
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16 << 20);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16 << 20);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    if (buf != NULL) {
        ggml_backend_buffer_clear(buf, 1);
        ggml_backend_tensor_copy(a, b);
        int64_t best = INT64_MAX;
        for (int r = 0; r < 5; r++) {
            const int64_t t0 = ggml_time_us();
            ggml_backend_tensor_copy(a, b);
            const int64_t dt = ggml_time_us() - t0;
            best = dt < best ? dt : best;
        }
        gbs = 2.0 * (double) ggml_nbytes(a) / (double) (best > 0 ? best : 1) / 1e3;
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    return gbs;
}

static int bops_cmp_i64(const void * a, const void * b) {
    const int64_t x = *(const int64_t *) a;
    const int64_t y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

bool bops_run_perf(ggml_backend_t backend, const struct bop_case * c, const struct bop_options * opt, bool * timed) {
    *timed = false;
    struct bop_graph g;
    char err[256] = "";
    bool ok = false;
    ggml_backend_buffer_t buf = NULL;
    int64_t * times = NULL;

    struct ggml_tensor * out = bops_graph_build(&g, c, err, sizeof(err));
    struct ggml_cgraph * graph = out != NULL ? ggml_new_graph_custom(g.ctx, 256, false) : NULL;
    if (graph == NULL) {
        printf("  %s(%s): FAIL (%s)\n", c->op, c->params, out == NULL ? err : "cannot create the graph");
        goto done;
    }
    ggml_build_forward_expand(graph, out);
    for (int i = 0; i < ggml_graph_n_nodes(graph); i++) {
        if (!ggml_backend_supports_op(backend, ggml_graph_node(graph, i))) {
            printf("  %s(%s): not supported\n", c->op, c->params);
            ok = true;
            goto done;
        }
    }
    buf = ggml_backend_alloc_ctx_tensors(g.ctx, backend);
    if (buf == NULL) {
        printf("  %s(%s): FAIL (allocation failed)\n", c->op, c->params);
        goto done;
    }
    struct bop_rng rng;
    bops_rng_seed(&rng, opt->seed, c->op, c->params);
    for (int i = 0; i < g.n_inputs; i++) {
        const size_t size = ggml_nbytes(g.inputs[i].t);
        void * data = calloc(size > 0 ? size : 1, 1);
        const bool filled = data != NULL && bops_fill(&rng, &g.inputs[i], data);
        if (filled && size > 0) {
            ggml_backend_tensor_set(g.inputs[i].t, data, 0, size);
        }
        free(data);
        if (!filled) {
            printf("  %s(%s): FAIL (cannot generate the inputs)\n", c->op, c->params);
            goto done;
        }
    }

    enum ggml_status st = ggml_backend_graph_compute(backend, graph); // warm-up
    if (st != GGML_STATUS_SUCCESS) {
        printf("  %s(%s): FAIL (compute returned %s)\n", c->op, c->params, ggml_status_to_string(st));
        goto done;
    }
    times = malloc(sizeof(int64_t) * BOPS_PERF_MAX_RUNS);
    if (times == NULL) {
        goto done;
    }
    int n_runs = 0;
    int64_t total = 0;
    while (n_runs < BOPS_PERF_MAX_RUNS && (n_runs < 3 || total < BOPS_PERF_TARGET_US)) {
        const int64_t t0 = ggml_time_us();
        st = ggml_backend_graph_compute(backend, graph);
        const int64_t dt = ggml_time_us() - t0;
        if (st != GGML_STATUS_SUCCESS) {
            printf("  %s(%s): FAIL (compute returned %s)\n", c->op, c->params, ggml_status_to_string(st));
            goto done;
        }
        times[n_runs++] = dt;
        total += dt;
    }
    qsort(times, (size_t) n_runs, sizeof(int64_t), bops_cmp_i64);
    // the clock counts whole microseconds: the median is printed as such (a run under 1 us counts
    // as 0.5 us for the rate)
    const int64_t median = times[n_runs/2];
    const double median_us = median > 0 ? (double) median : 0.5;
    const double flops = bops_graph_flops(graph);
    if (flops > 0.0) {
        printf("  %s(%s): %d runs, %8lld us/run, %8.2f GFLOP/s\n", c->op, c->params, n_runs, (long long) median,
                flops / median_us / 1e3);
    } else {
        const double gbs = bops_graph_bytes(graph) / median_us / 1e3;
        const double copy = bops_copy_gbs(backend);
        printf("  %s(%s): %d runs, %8lld us/run, %8.2f GB/s (copy %.2f GB/s, %.2fx)\n", c->op, c->params, n_runs,
                (long long) median, gbs, copy, copy > 0.0 ? gbs / copy : 0.0);
    }
    ok = true;
    *timed = true;

done:
    fflush(stdout);
    free(times);
    if (buf != NULL) {
        ggml_backend_buffer_free(buf);
    }
    bops_graph_free(&g);
    return ok;
}

bool bops_case_supported(ggml_backend_dev_t dev, const struct bop_case * c, bool * built) {
    struct bop_graph g;
    char err[256];
    bool yes = false;
    *built = false;
    struct ggml_tensor * out = bops_graph_build(&g, c, err, sizeof(err));
    struct ggml_cgraph * graph = out != NULL ? ggml_new_graph_custom(g.ctx, 256, false) : NULL;
    if (graph != NULL) {
        *built = true;
        ggml_build_forward_expand(graph, out);
        yes = true;
        for (int i = 0; i < ggml_graph_n_nodes(graph) && yes; i++) {
            yes = ggml_backend_dev_supports_op(dev, ggml_graph_node(graph, i));
        }
    }
    bops_graph_free(&g);
    return yes;
}
