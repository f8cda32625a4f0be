// Compatibility program: comparing two backends node by node, as the family's op test tool does.
//   seed-001 programs:        ggml_backend_compare_graph_backend(b1, b2, graph, callback, user_data)
//   current-release programs: ggml_backend_compare_graph_backend(b1, b2, graph, callback, user_data,
//                                                                 test_nodes, num_test_nodes)
// The graph's tensors (inputs and op results alike) are allocated with
// ggml_backend_alloc_ctx_tensors on the first backend after the graph is built, inputs are filled
// with ggml_backend_tensor_set, and the callback reads both results with ggml_backend_tensor_get.
// The reference backend is a CPU backend in reference mode (ggml_backend_cpu_set_use_ref).

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "compare:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, "\n");                                           \
            n_failed++;                                                      \
        }                                                                    \
    } while (0)

struct callback_data {
    int    n_called;
    int    last_index;
    double max_nmse;
    bool   saw_final;
    const struct ggml_tensor * final_node;
};

static double nmse(const float * a, const float * b, size_t n) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double) a[i] - (double) b[i];
        num += d * d;
        den += (double) a[i] * (double) a[i];
    }
    return den > 0.0 ? num / den : num;
}

static bool compare_cb(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2, void * user_data) {
    struct callback_data * cd = (struct callback_data *) user_data;
    cd->n_called++;
    cd->last_index = node_index;
    if (strcmp(t1->name, t2->name) != 0 || ggml_nelements(t1) != ggml_nelements(t2) || t1->type != GGML_TYPE_F32) {
        fprintf(stderr, "compare: node %d: %s vs %s\n", node_index, t1->name, t2->name);
        cd->max_nmse = INFINITY;
        return true;
    }
    const size_t n = (size_t) ggml_nelements(t1);
    float * a = malloc(n * sizeof(float));
    float * b = malloc(n * sizeof(float));
    GGML_ASSERT(a != NULL && b != NULL);
    ggml_backend_tensor_get(t1, a, 0, ggml_nbytes(t1));
    ggml_backend_tensor_get(t2, b, 0, ggml_nbytes(t2));
    double e = nmse(a, b, n);
    cd->max_nmse = e > cd->max_nmse ? e : cd->max_nmse;
    if (t1 == cd->final_node) {
        cd->saw_final = true;
    }
    free(a);
    free(b);
    return true;
}

struct test_graph {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_cgraph * gf;
    struct ggml_tensor * out;
    struct ggml_tensor * mid;
};

static struct test_graph build(ggml_backend_t backend1) {
    struct test_graph tg;
    struct ggml_init_params params = {
        /*.mem_size   =*/ ggml_tensor_overhead() * 64 + ggml_graph_overhead(),
        /*.mem_buffer =*/ NULL,
        /*.no_alloc   =*/ true,
    };
    tg.ctx = ggml_init(params);
    GGML_ASSERT(tg.ctx != NULL);

    struct ggml_tensor * a = ggml_new_tensor_2d(tg.ctx, GGML_TYPE_F32, 33, 12);
    struct ggml_tensor * b = ggml_new_tensor_2d(tg.ctx, GGML_TYPE_F32, 33, 5);
    ggml_set_name(a, "a");
    ggml_set_name(b, "b");

    struct ggml_tensor * mm = ggml_mul_mat(tg.ctx, a, b);   // [12, 5]
    ggml_set_name(mm, "mm");
    struct ggml_tensor * t = ggml_cont(tg.ctx, ggml_transpose(tg.ctx, mm)); // [5, 12]
    ggml_set_name(t, "t");
    struct ggml_tensor * g = ggml_gelu(tg.ctx, t);
    ggml_set_name(g, "g");
    struct ggml_tensor * s = ggml_soft_max(tg.ctx, g);
    ggml_set_name(s, "s");
    tg.mid = g;
    tg.out = s;

    // allocate every tensor of the context, op results included, on the first backend
    tg.buf = ggml_backend_alloc_ctx_tensors(tg.ctx, backend1);
    GGML_ASSERT(tg.buf != NULL);

    float * data = malloc(33 * 12 * sizeof(float));
    GGML_ASSERT(data != NULL);
    for (int i = 0; i < 33 * 12; i++) {
        data[i] = (float) sin(0.37 * i) * 0.8f;
    }
    ggml_backend_tensor_set(a, data, 0, ggml_nbytes(a));
    for (int i = 0; i < 33 * 5; i++) {
        data[i] = (float) cos(0.21 * i + 0.5) * 0.6f;
    }
    ggml_backend_tensor_set(b, data, 0, ggml_nbytes(b));
    free(data);

    tg.gf = ggml_new_graph_custom(tg.ctx, 64, false);
    ggml_build_forward_expand(tg.gf, tg.out);
    return tg;
}

static void free_graph(struct test_graph * tg) {
    ggml_backend_buffer_free(tg->buf);
    ggml_free(tg->ctx);
}

static void compare_pair(ggml_backend_t backend1, ggml_backend_t backend2) {
    printf("compare: %s vs %s\n", ggml_backend_name(backend1), ggml_backend_name(backend2));

    // seed 001: every node, one by one
    {
        struct test_graph tg = build(backend1);
        struct callback_data cd = { 0, -1, 0.0, false, tg.out };
        bool ok = ggml_backend_compare_graph_backend(backend1, backend2, tg.gf, compare_cb, &cd);
        CHECK(ok, "5-arg compare failed");
        // mul_mat, cont, gelu, soft_max (the transpose view is not handed over)
        CHECK(cd.n_called >= 4, "callback called %d times", cd.n_called);
        CHECK(cd.saw_final, "final node not compared");
        CHECK(cd.max_nmse < 1e-7, "max NMSE %g", cd.max_nmse);
        free_graph(&tg);
    }

    // current release, no node list: the same per-node comparison
    {
        struct test_graph tg = build(backend1);
        struct callback_data cd = { 0, -1, 0.0, false, tg.out };
        bool ok = ggml_backend_compare_graph_backend(backend1, backend2, tg.gf, compare_cb, &cd, NULL, 0);
        CHECK(ok, "7-arg compare without nodes failed");
        CHECK(cd.n_called >= 4 && cd.saw_final, "callback called %d times", cd.n_called);
        CHECK(cd.max_nmse < 1e-7, "max NMSE %g", cd.max_nmse);
        free_graph(&tg);
    }

    // current release, whole graph computed, only the listed nodes compared
    {
        struct test_graph tg = build(backend1);
        struct callback_data cd = { 0, -1, 0.0, false, tg.out };
        struct ggml_tensor * nodes[2] = { tg.mid, tg.out };
        bool ok = ggml_backend_compare_graph_backend(backend1, backend2, tg.gf, compare_cb, &cd, nodes, 2);
        CHECK(ok, "7-arg compare with nodes failed");
        CHECK(cd.n_called == 2, "callback called %d times, expected 2", cd.n_called);
        CHECK(cd.saw_final && cd.last_index == ggml_graph_n_nodes(tg.gf) - 1, "last index %d", cd.last_index);
        CHECK(cd.max_nmse < 1e-7, "max NMSE %g", cd.max_nmse);
        free_graph(&tg);
    }

    // the const-qualified list the family's prototype names works as well
    {
        struct test_graph tg = build(backend1);
        struct callback_data cd = { 0, -1, 0.0, false, tg.out };
        const struct ggml_tensor * const nodes[1] = { tg.out };
        bool ok = ggml_backend_compare_graph_backend(backend1, backend2, tg.gf, compare_cb, &cd, nodes, 1);
        CHECK(ok && cd.n_called == 1 && cd.saw_final, "const node list: ok %d, %d calls", (int) ok, cd.n_called);
        free_graph(&tg);
    }
}

int main(void) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_t cpu_ref = ggml_backend_cpu_init();
    GGML_ASSERT(cpu != NULL && cpu_ref != NULL);
    ggml_backend_cpu_set_use_ref(cpu_ref, true);
    ggml_backend_cpu_set_n_threads(cpu, 3);

    compare_pair(cpu, cpu_ref);

    // every other device against the CPU reference, as the op test tool does
    ggml_backend_load_all();
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU) {
            continue;
        }
        ggml_backend_t other = ggml_backend_dev_init(dev, NULL);
        if (other != NULL) {
            compare_pair(other, cpu_ref);
            ggml_backend_free(other);
        }
    }

    ggml_backend_free(cpu_ref);
    ggml_backend_free(cpu);

    printf("compare: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
