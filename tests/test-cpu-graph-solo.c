// The graph executor leaves out the barrier between two nodes that thread 0 runs alone (both
// with n_tasks 1). A graph alternating such runs with split nodes (runs that read a split node's
// output, split nodes that read a run's output, two flash-attention nodes in a row that both pull
// chunks from the counter thread 0 resets between them) must give, with 2, 3 and 4 threads, the
// 1-thread result bit for bit, and the 1-thread result must match a double-precision forward
// pass within 2e-3 of max |value| (the flash-attention nodes round Q, K and V to F16). An abort
// requested inside a run stops every thread at the run's end (no deadlock) with ABORTED.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W      256   // the small chain's width (n_tasks 1: below every op's split threshold)
#define ROWS   256   // the split node: W x ROWS elements
#define NKV    8
#define LAYERS 12

struct inputs {
    float xs[LAYERS][W], ws[LAYERS][W], big[W * ROWS], k[NKV * W], v[NKV * W];
};

struct graph {
    struct ggml_context * ctx;
    struct ggml_cgraph  * gf;
    struct ggml_tensor  * xs[LAYERS], * ws[LAYERS], * big, * k, * v, * out_s, * out_b;
};

static void fill(float * x, int n, double lo, double hi) {
    for (int i = 0; i < n; i++) {
        x[i] = (float) test_rand_uniform(lo, hi);
    }
}

static struct ggml_tensor * flash(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * k,
                                  struct ggml_tensor * v) {
    struct ggml_tensor * q = ggml_reshape_4d(ctx, s, W, 1, 1, 1);
    struct ggml_tensor * o = ggml_flash_attn_ext(ctx, q, k, v, NULL, 1.0f / 16.0f, 0.0f, 0.0f);
    return ggml_reshape_1d(ctx, o, W);
}

static bool build(struct graph * g, const struct inputs * in) {
    struct ggml_init_params ip = { .mem_size = 64 * 1024 * 1024, .mem_buffer = NULL, .no_alloc = false };
    g->ctx = ggml_init(ip);
    if (!g->ctx) {
        return false;
    }
    struct ggml_context * ctx = g->ctx;
    g->big = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, W, ROWS);
    g->k   = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, W, NKV, 1, 1);
    g->v   = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, W, NKV, 1, 1);
    memcpy(g->big->data, in->big, sizeof(in->big));
    ggml_fp32_to_fp16_row(in->k, g->k->data, NKV * W);
    ggml_fp32_to_fp16_row(in->v, g->v->data, NKV * W);
    struct ggml_tensor * s = NULL, * b = g->big;
    for (int l = 0; l < LAYERS; l++) {
        g->xs[l] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, W);
        g->ws[l] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, W);
        memcpy(g->xs[l]->data, in->xs[l], sizeof(in->xs[l]));
        memcpy(g->ws[l]->data, in->ws[l], sizeof(in->ws[l]));
        // a run of nodes on thread 0 alone
        s = s ? ggml_add(ctx, s, g->xs[l]) : g->xs[l];
        s = ggml_mul(ctx, s, g->ws[l]);
        s = ggml_rms_norm(ctx, s, 1e-5f);
        s = ggml_mul(ctx, s, g->ws[l]);
        if (l % 3 == 0) {
            s = flash(ctx, flash(ctx, s, g->k, g->v), g->k, g->v); // two chunked nodes in a row
        }
        // a split node reading the run's result, then a run reading the split node's result
        b = ggml_add(ctx, b, s);
        s = ggml_add(ctx, s, ggml_view_1d(ctx, b, W, (size_t) (l % ROWS) * b->nb[1]));
    }
    g->out_s = s;
    g->out_b = b;
    g->gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(g->gf, s);
    ggml_build_forward_expand(g->gf, b);
    return true;
}

// the same forward pass in double; K and V (and Q inside flash attention) rounded to F16 as stored
static double f16r(double x) {
    return ggml_fp16_to_fp32(ggml_fp32_to_fp16((float) x));
}

static void reference(const struct inputs * in, double * s, double * b) {
    for (int i = 0; i < W * ROWS; i++) {
        b[i] = in->big[i];
    }
    for (int l = 0; l < LAYERS; l++) {
        double ss = 0.0;
        for (int i = 0; i < W; i++) {
            s[i] = ((l ? s[i] : 0.0) + in->xs[l][i]) * in->ws[l][i];
            ss += s[i] * s[i];
        }
        const double r = 1.0 / sqrt(ss / W + 1e-5);
        for (int i = 0; i < W; i++) {
            s[i] = s[i] * r * in->ws[l][i];
        }
        for (int f = 0; l % 3 == 0 && f < 2; f++) {
            double sc[NKV], mx = -INFINITY, sum = 0.0, o[W];
            for (int j = 0; j < NKV; j++) {
                sc[j] = 0.0;
                for (int i = 0; i < W; i++) {
                    sc[j] += f16r(s[i]) * f16r(in->k[j * W + i]);
                }
                sc[j] /= 16.0;
                mx = sc[j] > mx ? sc[j] : mx;
            }
            for (int j = 0; j < NKV; j++) {
                sc[j] = exp(sc[j] - mx);
                sum += sc[j];
            }
            for (int i = 0; i < W; i++) {
                o[i] = 0.0;
                for (int j = 0; j < NKV; j++) {
                    o[i] += sc[j] * f16r(in->v[j * W + i]);
                }
            }
            for (int i = 0; i < W; i++) {
                s[i] = o[i] / sum;
            }
        }
        for (int row = 0; row < ROWS; row++) {
            for (int i = 0; i < W; i++) {
                b[row * W + i] += s[i];
            }
        }
        for (int i = 0; i < W; i++) {
            s[i] += b[(l % ROWS) * W + i];
        }
    }
}

static bool compute(struct graph * g, struct ggml_threadpool * tp, int n_threads, ggml_abort_callback abort_cb,
                    void * abort_data, enum ggml_status * status) {
    struct ggml_cplan plan = ggml_graph_plan(g->gf, n_threads, tp);
    if (plan.n_threads <= 0) {
        return false;
    }
    void * work = plan.work_size > 0 ? malloc(plan.work_size) : NULL;
    if (plan.work_size > 0 && work == NULL) {
        return false;
    }
    plan.work_data           = work;
    plan.abort_callback      = abort_cb;
    plan.abort_callback_data = abort_data;
    *status = ggml_graph_compute(g->gf, &plan);
    free(work);
    return true;
}

// every computed tensor set to NaN (the graph's nodes; views share their source's data)
static void poison(struct ggml_cgraph * gf) {
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        struct ggml_tensor * t = ggml_graph_node(gf, i);
        memset(t->data, 0xff, ggml_nbytes(t));
    }
}

struct abort_at {
    int calls, at;
};

static bool abort_cb(void * data) {
    struct abort_at * a = data;
    return ++a->calls >= a->at;
}

int main(void) {
    test_rng_init();
    struct inputs * in = malloc(sizeof(*in));
    double * rs = malloc(sizeof(double) * W), * rb = malloc(sizeof(double) * W * ROWS);
    float * want_s = malloc(sizeof(float) * W), * want_b = malloc(sizeof(float) * W * ROWS);
    struct graph g = { 0 };
    if (!TEST_CHECK(in && rs && rb && want_s && want_b)) {
        return test_finish("test-cpu-graph-solo");
    }
    for (int l = 0; l < LAYERS; l++) {
        fill(in->xs[l], W, -1.0, 1.0);
        fill(in->ws[l], W, 0.5, 1.5);
    }
    fill(in->big, W * ROWS, -1.0, 1.0);
    fill(in->k, NKV * W, -1.0, 1.0);
    fill(in->v, NKV * W, -1.0, 1.0);
    reference(in, rs, rb);

    if (TEST_CHECK(build(&g, in))) {
        enum ggml_status st = GGML_STATUS_FAILED;
        // one thread: a barrier after every node
        TEST_CHECK(compute(&g, NULL, 1, NULL, NULL, &st) && st == GGML_STATUS_SUCCESS);
        memcpy(want_s, g.out_s->data, sizeof(float) * W);
        memcpy(want_b, g.out_b->data, sizeof(float) * W * ROWS);
        double mx = 0.0, err = 0.0, mxb = 0.0, errb = 0.0;
        for (int i = 0; i < W; i++) {
            mx  = fmax(mx, fabs(rs[i]));
            err = fmax(err, fabs(want_s[i] - rs[i]));
        }
        for (int i = 0; i < W * ROWS; i++) {
            mxb  = fmax(mxb, fabs(rb[i]));
            errb = fmax(errb, fabs(want_b[i] - rb[i]));
        }
        TEST_CHECK_MSG(mx > 0.1 && err <= 2e-3 * mx, "1 thread vs double: chain error %g of max %g", err, mx);
        TEST_CHECK_MSG(mxb > 0.1 && errb <= 2e-3 * mxb, "1 thread vs double: split error %g of max %g", errb, mxb);

        for (int n = 2; n <= 4; n++) {
            struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n);
            struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
            if (!TEST_CHECK(tp != NULL)) {
                continue;
            }
            int bad = 0;
            for (int it = 0; it < 40; it++) {
                poison(g.gf); // a node left unwritten shows as NaN
                if (!compute(&g, tp, n, NULL, NULL, &st) || st != GGML_STATUS_SUCCESS ||
                    memcmp(g.out_s->data, want_s, sizeof(float) * W) != 0 ||
                    memcmp(g.out_b->data, want_b, sizeof(float) * W * ROWS) != 0) {
                    bad++;
                }
            }
            TEST_CHECK_MSG(bad == 0, "%d threads: %d of 40 computations differ from the 1-thread result", n, bad);
            // an abort at every node position: every thread stops (no deadlock) with ABORTED
            struct abort_at count = { 0, 1 << 30 }; // counts the polls: one per computed node
            TEST_CHECK(compute(&g, tp, n, abort_cb, &count, &st) && st == GGML_STATUS_SUCCESS && count.calls > 10);
            int not_aborted = 0;
            for (int at = 1; at <= count.calls; at += 2) {
                struct abort_at a = { 0, at };
                if (!compute(&g, tp, n, abort_cb, &a, &st) || st != GGML_STATUS_ABORTED) {
                    not_aborted++;
                }
            }
            TEST_CHECK_MSG(not_aborted == 0, "%d threads: %d aborted computations did not report ABORTED", n, not_aborted);
            ggml_threadpool_free(tp);
        }
        ggml_free(g.ctx);
    }
    free(in);
    free(rs);
    free(rb);
    free(want_s);
    free(want_b);
    return test_finish("test-cpu-graph-solo");
}
