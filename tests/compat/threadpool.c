// Compatibility program: explicit CPU planning and thread pools, as llama.cpp-style programs of the
// ggml family use them.
//   struct ggml_threadpool_params p = ggml_threadpool_params_default(n);   (declared in ggml.h)
//   struct ggml_threadpool * tp = ggml_threadpool_new(&p);                  (ggml-cpu.h)
//   struct ggml_cplan plan = ggml_graph_plan(graph, n, tp); plan.work_data = malloc(plan.work_size);
//   ggml_graph_compute(graph, &plan);
//   ggml_backend_cpu_set_threadpool(backend, tp); pause / resume; abort callback.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "threadpool:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            n_failed++;                                                         \
        }                                                                       \
    } while (0)

enum { K = 64, M = 48, N = 20 };

struct problem {
    struct ggml_context * ctx;
    struct ggml_cgraph * gf;
    struct ggml_tensor * out;
    double ref[M * N];
};

// out = (a b^T) + 1, with an F16 weight so that the plan needs a work buffer on most CPUs
static void build(struct problem * p) {
    struct ggml_init_params params = { 8 * 1024 * 1024, NULL, false };
    p->ctx = ggml_init(params);
    GGML_ASSERT(p->ctx != NULL);
    struct ggml_tensor * a = ggml_new_tensor_2d(p->ctx, GGML_TYPE_F16, K, M);
    struct ggml_tensor * b = ggml_new_tensor_2d(p->ctx, GGML_TYPE_F32, K, N);
    ggml_fp16_t * ad = (ggml_fp16_t *) a->data;
    float * bd = (float *) b->data;
    for (int i = 0; i < M * K; i++) {
        ad[i] = ggml_fp32_to_fp16(0.0625f * (float) ((i * 5) % 13) - 0.375f);
    }
    for (int i = 0; i < N * K; i++) {
        bd[i] = 0.125f * (float) ((i * 3) % 7) - 0.25f;
    }
    p->out = ggml_add1(p->ctx, ggml_mul_mat(p->ctx, a, b), ggml_new_f32(p->ctx, 1.0f));
    p->gf = ggml_new_graph(p->ctx);
    ggml_build_forward_expand(p->gf, p->out);

    for (int j = 0; j < N; j++) {
        for (int i = 0; i < M; i++) {
            double acc = 1.0;
            for (int k = 0; k < K; k++) {
                acc += (double) ggml_fp16_to_fp32(ad[i * K + k]) * (double) bd[j * K + k];
            }
            p->ref[j * M + i] = acc;
        }
    }
}

static double max_error(const struct problem * p) {
    double max_err = 0.0;
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < M; i++) {
            // the F32 activations may be rounded to F16 for the dot products
            double err = fabs((double) ggml_get_f32_nd(p->out, i, j, 0, 0) - p->ref[j * M + i]);
            max_err = err > max_err ? err : max_err;
        }
    }
    return max_err;
}

static void test_params(void) {
    struct ggml_threadpool_params p = ggml_threadpool_params_default(3);
    CHECK(p.n_threads == 3, "n_threads %d", p.n_threads);
    CHECK(p.prio == GGML_SCHED_PRIO_NORMAL, "prio %d", (int) p.prio);
    CHECK(!p.strict_cpu && !p.paused, "strict_cpu %d paused %d", (int) p.strict_cpu, (int) p.paused);
    CHECK(p.poll <= 100, "poll %u", p.poll);
    bool any = false;
    for (int i = 0; i < GGML_MAX_N_THREADS; i++) {
        any = any || p.cpumask[i];
    }
    CHECK(!any, "default cpumask is not empty");

    struct ggml_threadpool_params q;
    ggml_threadpool_params_init(&q, 3);
    CHECK(ggml_threadpool_params_match(&p, &q), "default and init differ");
    q.n_threads = 4;
    CHECK(!ggml_threadpool_params_match(&p, &q), "params with other n_threads match");
}

static bool abort_now(void * data) {
    int * calls = (int *) data;
    (*calls)++;
    return true;
}

static void test_plan_compute(void) {
    const int n_threads = 4;
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    CHECK(tp != NULL, "ggml_threadpool_new");
    if (tp == NULL) {
        return;
    }
    CHECK(ggml_threadpool_get_n_threads(tp) >= 1 && ggml_threadpool_get_n_threads(tp) <= n_threads, "pool of %d threads",
            ggml_threadpool_get_n_threads(tp));

    struct problem p;
    build(&p);

    struct ggml_cplan plan = ggml_graph_plan(p.gf, n_threads, tp);
    CHECK(plan.n_threads >= 1 && plan.n_threads <= n_threads, "plan n_threads %d", plan.n_threads);
    CHECK(plan.threadpool == tp, "plan does not use the pool");
    uint8_t * work = NULL;
    if (plan.work_size > 0) {
        work = malloc(plan.work_size);
        GGML_ASSERT(work != NULL);
        plan.work_data = work;
    }
    enum ggml_status st = ggml_graph_compute(p.gf, &plan);
    CHECK(st == GGML_STATUS_SUCCESS, "ggml_graph_compute: %s", ggml_status_to_string(st));
    CHECK(max_error(&p) < 2e-2, "max error %g", max_error(&p));

    // a paused pool resumes when given work
    ggml_threadpool_pause(tp);
    ggml_set_zero(p.out);
    st = ggml_graph_compute(p.gf, &plan);
    CHECK(st == GGML_STATUS_SUCCESS && max_error(&p) < 2e-2, "compute on a paused pool: %s", ggml_status_to_string(st));
    ggml_threadpool_resume(tp);

    // the abort callback stops the computation
    int calls = 0;
    plan.abort_callback = abort_now;
    plan.abort_callback_data = &calls;
    st = ggml_graph_compute(p.gf, &plan);
    CHECK(st == GGML_STATUS_ABORTED, "abort callback: %s", ggml_status_to_string(st));
    CHECK(calls >= 1, "abort callback never called");

    // no pool: one is made for the call
    struct ggml_cplan plan2 = ggml_graph_plan(p.gf, 2, NULL);
    uint8_t * work2 = plan2.work_size > 0 ? malloc(plan2.work_size) : NULL;
    plan2.work_data = work2;
    ggml_set_zero(p.out);
    st = ggml_graph_compute(p.gf, &plan2);
    CHECK(st == GGML_STATUS_SUCCESS && max_error(&p) < 2e-2, "compute without a pool: %s", ggml_status_to_string(st));
    free(work2);

    // the CPU backend on the same pool
    ggml_backend_t backend = ggml_backend_cpu_init();
    GGML_ASSERT(backend != NULL);
    ggml_backend_cpu_set_threadpool(backend, tp);
    ggml_backend_cpu_set_n_threads(backend, n_threads);
    ggml_set_zero(p.out);
    st = ggml_backend_graph_compute(backend, p.gf); // context tensors are host memory the CPU backend can use
    CHECK(st == GGML_STATUS_SUCCESS && max_error(&p) < 2e-2, "backend on the pool: %s", ggml_status_to_string(st));

    // a backend abort callback
    calls = 0;
    ggml_backend_cpu_set_abort_callback(backend, abort_now, &calls);
    st = ggml_backend_graph_compute(backend, p.gf);
    CHECK(st == GGML_STATUS_ABORTED && calls >= 1, "backend abort callback: %s", ggml_status_to_string(st));
    ggml_backend_cpu_set_abort_callback(backend, NULL, NULL);

    ggml_backend_free(backend);
    ggml_threadpool_free(tp);
    free(work);
    ggml_free(p.ctx);
}

int main(void) {
    ggml_cpu_init();
    test_params();
    test_plan_compute();
    printf("threadpool: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
