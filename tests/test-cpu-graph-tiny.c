// Graphs made only of tiny nodes (each below every op's split threshold) run on thread 0 alone
// and never wake the pool's workers. A chain of such nodes (ROPE [128,8,1], ADD, MUL by a
// broadcast row, SCALE) must give, through ggml_graph_plan + ggml_graph_compute on pools of 2..4
// threads and through ggml_backend_graph_compute with 1..4 threads, the 1-thread result bit for
// bit, and that result must match a double-precision forward pass within 1e-5 of max |value|.
// A pool whose workers sleep (poll 0) is left asleep by the tiny graph and still wakes for a
// graph with a split node, whose result must then be right (checked several times in a row).

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HD     128 // head size (the rotated dimensions)
#define HEADS  8
#define LAYERS 6
#define POS    11
#define BIG    (256 * 256) // the split node's elements

struct inputs {
    float x[HD * HEADS], b[LAYERS][HD * HEADS], w[LAYERS][HD];
    float p[BIG], q[BIG];
};

struct graph {
    struct ggml_context * ctx;
    struct ggml_cgraph  * tiny, * split;
    struct ggml_tensor  * out_tiny, * out_split;
};

static void fill(float * x, int n, double lo, double hi) {
    for (int i = 0; i < n; i++) {
        x[i] = (float) test_rand_uniform(lo, hi);
    }
}

static struct ggml_tensor * input(struct ggml_context * ctx, int64_t n0, int64_t n1, const float * v) {
    struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n0, n1);
    if (t != NULL) {
        memcpy(t->data, v, (size_t) (n0 * n1) * sizeof(float));
    }
    return t;
}

static bool build(struct graph * g, const struct inputs * in) {
    struct ggml_init_params ip = { 4 * 1024 * 1024 + 2 * BIG * sizeof(float) * 2, NULL, false };
    g->ctx = ggml_init(ip);
    if (g->ctx == NULL) {
        return false;
    }
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
    if (pos == NULL) {
        return false;
    }
    ((int32_t *) pos->data)[0] = POS;
    struct ggml_tensor * cur = input(ctx, HD, HEADS, in->x);
    for (int l = 0; l < LAYERS && cur != NULL; l++) {
        struct ggml_tensor * r = ggml_rope_ext(ctx, ggml_reshape_3d(ctx, cur, HD, HEADS, 1), pos, NULL, HD, 0, 0,
                                               10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        r   = ggml_reshape_2d(ctx, r, HD, HEADS);
        r   = ggml_add(ctx, r, input(ctx, HD, HEADS, in->b[l]));
        r   = ggml_mul(ctx, r, input(ctx, HD, 1, in->w[l]));
        cur = ggml_scale(ctx, r, 0.75f);
    }
    g->out_tiny  = cur;
    g->out_split = ggml_add(ctx, input(ctx, 256, 256, in->p), input(ctx, 256, 256, in->q));
    g->tiny      = ggml_new_graph(ctx);
    g->split     = ggml_new_graph(ctx);
    if (g->out_tiny == NULL || g->out_split == NULL || g->tiny == NULL || g->split == NULL) {
        return false;
    }
    ggml_build_forward_expand(g->tiny, g->out_tiny);
    ggml_build_forward_expand(g->split, g->out_split);
    return true;
}

static void reference(const struct inputs * in, double * y) {
    for (int i = 0; i < HD * HEADS; i++) {
        y[i] = in->x[i];
    }
    for (int l = 0; l < LAYERS; l++) {
        for (int h = 0; h < HEADS; h++) {
            double * v = y + h * HD;
            for (int i = 0; i < HD; i += 2) {
                const double theta = POS * pow(10000.0, -(double) i / HD);
                const double x0 = v[i], x1 = v[i + 1];
                v[i]     = x0 * cos(theta) - x1 * sin(theta);
                v[i + 1] = x0 * sin(theta) + x1 * cos(theta);
            }
            for (int i = 0; i < HD; i++) {
                v[i] = (v[i] + in->b[l][h * HD + i]) * in->w[l][i] * 0.75;
            }
        }
    }
}

static bool compute_plan(struct ggml_cgraph * gf, struct ggml_threadpool * tp, int n_threads) {
    struct ggml_cplan plan = ggml_graph_plan(gf, n_threads, tp);
    if (plan.n_threads <= 0) {
        return false;
    }
    void * work = plan.work_size > 0 ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    const bool ok = (plan.work_size == 0 || work != NULL) && ggml_graph_compute(gf, &plan) == GGML_STATUS_SUCCESS;
    free(work);
    return ok;
}

static void sleep_ms(int ms) {
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

// waits (up to ~10 s) until n workers sleep
static bool wait_sleeping(struct ggml_threadpool * tp, int n) {
    for (int i = 0; i < 2000; i++) {
        if (test_cpu_threadpool_n_sleeping(tp) == n) {
            return true;
        }
        sleep_ms(5);
    }
    return false;
}

static void poison(struct ggml_tensor * t) {
    memset(t->data, 0xff, ggml_nbytes(t)); // NaN: a result left unwritten shows
}

int main(void) {
    test_rng_init();
    struct inputs * in = malloc(sizeof(*in));
    double * ref = malloc(sizeof(double) * HD * HEADS);
    float * want = malloc(sizeof(float) * HD * HEADS);
    struct graph g = { 0 };
    if (!TEST_CHECK(in && ref && want)) {
        return test_finish("test-cpu-graph-tiny");
    }
    fill(in->x, HD * HEADS, -1.0, 1.0);
    for (int l = 0; l < LAYERS; l++) {
        fill(in->b[l], HD * HEADS, -0.5, 0.5);
        fill(in->w[l], HD, 0.8, 1.6);
    }
    fill(in->p, BIG, -1.0, 1.0);
    fill(in->q, BIG, -1.0, 1.0);
    reference(in, ref);

    if (TEST_CHECK(build(&g, in))) {
        TEST_CHECK(compute_plan(g.tiny, NULL, 1));
        memcpy(want, g.out_tiny->data, sizeof(float) * HD * HEADS);
        double mx = 0.0, err = 0.0;
        for (int i = 0; i < HD * HEADS; i++) {
            mx  = fmax(mx, fabs(ref[i]));
            err = fmax(err, fabs((double) want[i] - ref[i]));
        }
        TEST_CHECK_MSG(mx > 0.1 && err <= 1e-5 * mx, "1 thread vs double: error %g of max %g", err, mx);

        // pools of 2..4 threads, the family-perf driver's way (plan with the pool, then compute)
        for (int n = 2; n <= 4; n++) {
            struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n);
            struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
            if (!TEST_CHECK(tp != NULL)) {
                continue;
            }
            int bad = 0;
            for (int it = 0; it < 50; it++) {
                poison(g.out_tiny);
                if (!compute_plan(g.tiny, tp, n) || memcmp(g.out_tiny->data, want, sizeof(float) * HD * HEADS) != 0) {
                    bad++;
                }
            }
            TEST_CHECK_MSG(bad == 0, "pool of %d: %d of 50 computations differ from the 1-thread result", n, bad);
            ggml_threadpool_free(tp);
        }
        // the backend with 1..4 threads
        ggml_backend_t cpu = ggml_backend_cpu_init();
        if (TEST_CHECK(cpu != NULL)) {
            for (int n = 1; n <= 4; n++) {
                ggml_backend_cpu_set_n_threads(cpu, n);
                int bad = 0;
                for (int it = 0; it < 50; it++) {
                    poison(g.out_tiny);
                    if (ggml_backend_graph_compute(cpu, g.tiny) != GGML_STATUS_SUCCESS ||
                        memcmp(g.out_tiny->data, want, sizeof(float) * HD * HEADS) != 0) {
                        bad++;
                    }
                }
                TEST_CHECK_MSG(bad == 0, "backend, %d threads: %d of 50 computations differ from the 1-thread result", n, bad);
            }
            ggml_backend_free(cpu);
        }

        // a pool whose workers sleep after every job: the tiny graph leaves them asleep, the split
        // graph wakes them (several times, each after they went back to sleep)
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(3);
        tpp.poll = 0;
        struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
        if (TEST_CHECK(tp != NULL)) {
            int bad_tiny = 0, bad_split = 0, woken = 0;
            for (int round = 0; round < 5; round++) {
                if (!TEST_CHECK(wait_sleeping(tp, 2))) {
                    break;
                }
                poison(g.out_tiny);
                if (!compute_plan(g.tiny, tp, 3) || memcmp(g.out_tiny->data, want, sizeof(float) * HD * HEADS) != 0) {
                    bad_tiny++;
                }
                woken += test_cpu_threadpool_n_sleeping(tp) != 2;
                poison(g.out_split);
                if (!compute_plan(g.split, tp, 3)) {
                    bad_split++;
                    continue;
                }
                const float * o = g.out_split->data;
                for (int i = 0; i < BIG; i++) {
                    if (o[i] != in->p[i] + in->q[i]) {
                        bad_split++;
                        break;
                    }
                }
            }
            TEST_CHECK_MSG(bad_tiny == 0, "sleeping pool: %d tiny computations wrong", bad_tiny);
            TEST_CHECK_MSG(woken == 0, "sleeping pool: the tiny graph woke a worker %d times", woken);
            TEST_CHECK_MSG(bad_split == 0, "sleeping pool: %d split computations wrong", bad_split);
            ggml_threadpool_free(tp);
        }
        ggml_free(g.ctx);
    }
    free(in);
    free(ref);
    free(want);
    return test_finish("test-cpu-graph-tiny");
}
