// The multi-backend scheduler (ggml_backend_sched) on the CPU backend and the in-process test
// backend of tests/common/test-backend.h (memory that is not host memory, only ADD, MUL, SCALE
// and copies, real asynchronous set/get, events), so that splits and copies really happen.
//
// Checked: the assignment and the number of splits and copies of hand-built graphs against
// counts worked out by hand (stated next to each check; copies are counted through the test
// backend's counters); results bit for bit against the host computation and a plain CPU run;
// manual placement; weights pulling their users; op_offload; GGML_SCHED_DEBUG output.
// Reserve, the eval callback, pipeline parallelism and graphs split again are in
// test-sched-run.c; the failure paths (abort-free behaviour) in test-sched-errors.c.

#define _POSIX_C_SOURCE 200809L // setenv, unsetenv

#include "ggml-ref.h"
#include "test-sched-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ggml_backend_t g_cpu;
static ggml_backend_t g_t0;
static ggml_backend_t g_t1;

static ggml_backend_t backend_of(ggml_backend_sched_t sched, struct ggml_tensor * t) {
    return ggml_backend_sched_get_tensor_backend(sched, t);
}

// Runs gf on the CPU backend alone (graph allocator + ggml_backend_graph_compute), no scheduler.
// The allocator stays alive until the next run (or cpu_plain_free) so that results can be read.
static ggml_gallocr_t g_plain_galloc = NULL;

static void cpu_plain_free(void) {
    ggml_gallocr_free(g_plain_galloc);
    g_plain_galloc = NULL;
}

static bool cpu_plain_run(struct ggml_cgraph * gf, struct ggml_tensor * x, const float * xdata) {
    cpu_plain_free();
    g_plain_galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    if (g_plain_galloc == NULL || !ggml_gallocr_alloc_graph(g_plain_galloc, gf)) {
        return false;
    }
    su_set(x, xdata);
    return ggml_backend_graph_compute(g_cpu, gf) == GGML_STATUS_SUCCESS;
}

//
// the chain on [TEST, CPU]: assignment, splits, copies, results
//

static void test_chain(void) {
    const int64_t ne0 = 100, ne1 = 10;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -2, 2);

    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 1024, false);
    TEST_CHECK(sched != NULL);
    TEST_CHECK(ggml_backend_sched_get_n_copies(sched) == 1);

    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));

    // by hand: h1, h2 follow W1, W2 to TEST; h3 (SQR) can only run on the CPU; h4, h5 follow h2
    // to TEST; x is an input, on the CPU.
    TEST_CHECK(backend_of(sched, c.x) == g_cpu);
    TEST_CHECK(backend_of(sched, c.h[1]) == g_t0);
    TEST_CHECK(backend_of(sched, c.h[2]) == g_t0);
    TEST_CHECK(backend_of(sched, c.h[3]) == g_cpu);
    TEST_CHECK(backend_of(sched, c.h[4]) == g_t0);
    TEST_CHECK(backend_of(sched, c.h[5]) == g_t0);
    // splits [h1 h2] TEST (input x), [h3] CPU (input h2), [h4 h5] TEST (input h3; x was
    // already copied to TEST for the first split)
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 3);
    // the nodes read copies where they crossed backends
    TEST_CHECK(c.h[1]->src[0] != c.x);
    TEST_CHECK(c.h[5]->src[1] == c.h[1]->src[0]);
    TEST_CHECK(c.h[3]->src[0] != c.h[2]);
    TEST_CHECK(c.h[4]->src[0] != c.h[3]);

    su_set(c.x, x);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    struct test_backend_stats st = su_stats();
    // the three inputs: x written to TEST (set), h2 read back to the CPU (get), h3 written to
    // TEST (set: TEST's cpy_tensor_async only copies between TEST buffers)
    TEST_CHECK_MSG(st.n_set == 2 && st.n_get == 1 && st.n_cpy_async == 0 && st.n_cpy_tensor == 0,
            "set %ld get %ld cpy_async %ld cpy_tensor %ld", st.n_set, st.n_get, st.n_cpy_async, st.n_cpy_tensor);
    TEST_CHECK(st.n_compute == 2);        // two TEST splits
    TEST_CHECK(st.n_nodes_computed == 4); // h1 h2 h4 h5
    TEST_CHECK(st.n_bad_access == 0);

    float * out = su_get(c.h[5]);
    float * expect = su_chain_out(x, w1, w2, n);
    TEST_CHECK(su_same_bits(out, expect, n));

    // a plain CPU run of the same graph (weights in a CPU buffer) gives the same bits
    struct su_weights_pair wc = su_chain_weights(ggml_backend_cpu_buffer_type(), ne0, ne1, w1, w2);
    struct su_chain cc;
    su_chain_build(&cc, wc.w1, wc.w2);
    TEST_CHECK(cpu_plain_run(cc.gf, cc.x, x));
    float * out_cpu = su_get(cc.h[5]);
    TEST_CHECK(su_same_bits(out, out_cpu, n));

    // computing the allocated graph again with new input data
    su_fill(x, n, -3, 3);
    su_set(c.x, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    free(out);
    free(expect);
    out = su_get(c.h[5]);
    expect = su_chain_out(x, w1, w2, n);
    TEST_CHECK(su_same_bits(out, expect, n));

    free(out); free(expect); free(out_cpu);
    ggml_free(cc.ctx);
    su_weights_free(&wc);
    ggml_free(c.ctx);
    ggml_backend_sched_free(sched);
    su_weights_free(&wp);
    free(w1); free(w2); free(x);
}

//
// layers of MUL_MAT (CPU weights) and ADD, SCALE (TEST weights): many splits, bit for bit
// against a plain CPU run, MUL_MAT nodes checked against the double-precision reference
//

#define N_LAYERS 4

struct layers {
    struct ggml_context * wctx_cpu, * wctx_dev;
    ggml_backend_buffer_t buf_cpu, buf_dev;
    struct ggml_tensor * wm[N_LAYERS], * b[N_LAYERS];
};

static void layers_init(struct layers * L, ggml_backend_buffer_type_t dev_buft, int64_t k, int64_t t, float ** wm_data, float ** b_data) {
    L->wctx_cpu = su_ctx(N_LAYERS);
    L->wctx_dev = su_ctx(N_LAYERS);
    for (int l = 0; l < N_LAYERS; l++) {
        L->wm[l] = ggml_new_tensor_2d(L->wctx_cpu, GGML_TYPE_F32, k, k);
        L->b[l]  = ggml_new_tensor_2d(L->wctx_dev, GGML_TYPE_F32, k, t);
        ggml_format_name(L->wm[l], "wm%d", l);
        ggml_format_name(L->b[l], "b%d", l);
    }
    L->buf_cpu = su_weights(L->wctx_cpu, ggml_backend_cpu_buffer_type());
    L->buf_dev = su_weights(L->wctx_dev, dev_buft);
    for (int l = 0; l < N_LAYERS; l++) {
        su_set(L->wm[l], wm_data[l]);
        su_set(L->b[l], b_data[l]);
    }
}

static void layers_free(struct layers * L) {
    ggml_backend_buffer_free(L->buf_cpu);
    ggml_backend_buffer_free(L->buf_dev);
    ggml_free(L->wctx_cpu);
    ggml_free(L->wctx_dev);
}

static struct ggml_cgraph * layers_graph(struct ggml_context * ctx, const struct layers * L, int64_t k, int64_t t,
        struct ggml_tensor ** x, struct ggml_tensor ** out) {
    *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, t);
    ggml_set_name(*x, "x");
    ggml_set_input(*x);
    struct ggml_tensor * h = *x;
    for (int l = 0; l < N_LAYERS; l++) {
        h = ggml_mul_mat(ctx, L->wm[l], h);
        ggml_format_name(h, "mm%d", l);
        h = ggml_add(ctx, h, L->b[l]);
        ggml_format_name(h, "add%d", l);
        h = ggml_scale(ctx, h, 0.25f);
        ggml_format_name(h, "scale%d", l);
    }
    ggml_set_output(h);
    *out = h;
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, h);
    return gf;
}

struct ref_check {
    int n_checked;
    double worst;
};

// observes every MUL_MAT and checks it against the reference while its sources are still intact
static bool ref_check_cb(struct ggml_tensor * t, bool ask, void * user_data) {
    struct ref_check * rc = (struct ref_check *) user_data;
    if (ask) {
        return t->op == GGML_OP_MUL_MAT;
    }
    const int64_t n = ggml_nelements(t);
    double * ref = (double *) malloc((size_t) n * sizeof(double));
    char err[256];
    if (TEST_CHECK_MSG(ggml_ref_compute(t, ref, err, sizeof(err)), "reference for %s: %s", t->name, err)) {
        const double e = ggml_ref_nmse(ref, (const float *) t->data, n);
        rc->worst = e > rc->worst ? e : rc->worst;
        rc->n_checked++;
    }
    free(ref);
    return true;
}

static void test_layers(void) {
    const int64_t k = 64, t = 8;
    float * wm[N_LAYERS];
    float * bd[N_LAYERS];
    for (int l = 0; l < N_LAYERS; l++) {
        wm[l] = su_rand((size_t) (k*k), -0.2f, 0.2f);
        bd[l] = su_rand((size_t) (k*t), -1, 1);
    }
    float * x = su_rand((size_t) (k*t), -1, 1);

    struct layers Ld, Lc;
    layers_init(&Ld, test_backend_buffer_type(0), k, t, wm, bd);
    layers_init(&Lc, ggml_backend_cpu_buffer_type(), k, t, wm, bd);

    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 1024, false);
    struct ggml_context * ctx = su_ctx(64);
    struct ggml_tensor * gx, * gout;
    struct ggml_cgraph * gf = layers_graph(ctx, &Ld, k, t, &gx, &gout);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    // by hand: each layer is a CPU split (MUL_MAT follows its CPU weight) and a TEST split (ADD
    // follows its TEST weight, SCALE follows the ADD): 2 * N_LAYERS splits
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 2*N_LAYERS);
    su_set(gx, x);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    struct test_backend_stats st = su_stats();
    // copies: every TEST split reads the CPU's MUL_MAT result (N_LAYERS sets); every CPU split
    // but the first reads the previous TEST result (N_LAYERS - 1 gets; x is already on the CPU)
    TEST_CHECK_MSG(st.n_set == N_LAYERS && st.n_get == N_LAYERS - 1, "set %ld get %ld", st.n_set, st.n_get);
    float * out = su_get(gout);

    // plain CPU run: the same bits
    struct ggml_context * ctx_c = su_ctx(64);
    struct ggml_tensor * cx, * cout;
    struct ggml_cgraph * gfc = layers_graph(ctx_c, &Lc, k, t, &cx, &cout);
    TEST_CHECK(cpu_plain_run(gfc, cx, x));
    float * out_cpu = su_get(cout);
    TEST_CHECK(su_same_bits(out, out_cpu, (size_t) (k*t)));

    // the same graph with an eval callback on the MUL_MAT nodes: every one matches the
    // reference, and the result is unchanged
    struct ref_check rc = { 0, 0.0 };
    ggml_backend_sched_set_eval_callback(sched, ref_check_cb, &rc);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
    TEST_CHECK(rc.n_checked == N_LAYERS);
    TEST_CHECK_MSG(rc.worst < 1e-10, "worst MUL_MAT nmse %g", rc.worst);
    float * out2 = su_get(gout);
    TEST_CHECK(su_same_bits(out, out2, (size_t) (k*t)));

    free(out); free(out2); free(out_cpu);
    ggml_free(ctx); ggml_free(ctx_c);
    ggml_backend_sched_free(sched);
    layers_free(&Ld); layers_free(&Lc);
    for (int l = 0; l < N_LAYERS; l++) {
        free(wm[l]); free(bd[l]);
    }
    free(x);
}

//
// manual placement
//

static void test_manual_placement(void) {
    const int64_t ne0 = 64, ne1 = 4;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    float * expect = su_chain_out(x, w1, w2, n);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);

    // h4 pinned to the CPU. Pass 2a carries TEST from h2 but stops at h4 (the CPU); pass 2c
    // then carries the CPU from h4 to h5, and pass 2d from h4 back to h3. So [h1 h2] TEST,
    // [h3 h4 h5] CPU: 2 splits; inputs x (to TEST) and h2 (to the CPU)
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    ggml_backend_sched_set_tensor_backend(sched, c.h[4], g_cpu);
    TEST_CHECK(backend_of(sched, c.h[4]) == g_cpu);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    TEST_CHECK(backend_of(sched, c.h[3]) == g_cpu);
    TEST_CHECK(backend_of(sched, c.h[4]) == g_cpu);
    TEST_CHECK(backend_of(sched, c.h[5]) == g_cpu);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 2);
    su_set(c.x, x);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    struct test_backend_stats st = su_stats();
    TEST_CHECK_MSG(st.n_set == 1 && st.n_get == 1, "set %ld get %ld", st.n_set, st.n_get);
    float * out = su_get(c.h[5]);
    TEST_CHECK(su_same_bits(out, expect, n));
    free(out);
    ggml_free(c.ctx);

    // h1 pinned to the CPU: its weight W1 (on TEST) is copied to the CPU.
    // [h1] CPU (input W1), [h2] TEST (input h1), [h3] CPU (input h2), [h4 h5] TEST (inputs h3, x)
    ggml_backend_sched_reset(sched);
    su_chain_build(&c, wp.w1, wp.w2);
    ggml_backend_sched_set_tensor_backend(sched, c.h[1], g_cpu);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    TEST_CHECK(backend_of(sched, c.h[1]) == g_cpu);
    TEST_CHECK(backend_of(sched, c.h[2]) == g_t0);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 4);
    su_set(c.x, x);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    st = su_stats();
    // gets: W1, h2; sets: h1, h3, x
    TEST_CHECK_MSG(st.n_set == 3 && st.n_get == 2, "set %ld get %ld", st.n_set, st.n_get);
    out = su_get(c.h[5]);
    TEST_CHECK(su_same_bits(out, expect, n));
    free(out);

    // a reset forgets the placement
    ggml_backend_sched_reset(sched);
    TEST_CHECK(backend_of(sched, c.h[1]) == NULL);
    ggml_free(c.ctx);

    ggml_backend_sched_free(sched);
    su_weights_free(&wp);
    free(w1); free(w2); free(x); free(expect);
}

// Two CPU backends share one buffer type. Pass 3 moves nodes to the higher-priority one, except
// a node the user placed.
static void test_two_cpus(void) {
    ggml_backend_t cpu_a = ggml_backend_cpu_init();
    const int64_t ne0 = 32, ne1 = 3;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    float * expect = su_chain_out(x, w1, w2, n);
    struct su_weights_pair wp = su_chain_weights(ggml_backend_cpu_buffer_type(), ne0, ne1, w1, w2);
    ggml_backend_t backends[2] = { cpu_a, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    ggml_backend_sched_set_tensor_backend(sched, c.h[4], g_cpu);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    // by hand: h1..h3 on cpu_a (weights, then pass 2a), h4 where the user put it, h5 picked up
    // from h4 by pass 2c and upgraded to cpu_a by pass 3: 3 splits, no copies (shared memory)
    TEST_CHECK(backend_of(sched, c.h[1]) == cpu_a);
    TEST_CHECK(backend_of(sched, c.h[3]) == cpu_a);
    TEST_CHECK(backend_of(sched, c.h[4]) == g_cpu);
    TEST_CHECK(backend_of(sched, c.h[5]) == cpu_a);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 3);
    TEST_CHECK(c.h[5]->src[0] == c.h[4] && c.h[5]->src[1] == c.x);
    su_set(c.x, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(c.h[5]);
    TEST_CHECK(su_same_bits(out, expect, n));
    // one compute buffer for both (counted at the first backend)
    TEST_CHECK(ggml_backend_sched_get_buffer_size(sched, cpu_a) > 0);
    TEST_CHECK(ggml_backend_sched_get_buffer_size(sched, g_cpu) == 0);
    free(out);
    ggml_free(c.ctx);
    ggml_backend_sched_free(sched);
    su_weights_free(&wp);
    ggml_backend_free(cpu_a);
    free(w1); free(w2); free(x); free(expect);
}

//
// weights pull their users; copies between two devices
//

static void test_weights_pull(void) {
    const int64_t ne = 256;
    float * d0 = su_rand(ne, -1, 1);
    float * d1 = su_rand(ne, -1, 1);
    float * x  = su_rand(ne, -1, 1);

    struct ggml_context * w0ctx = su_ctx(2);
    struct ggml_context * w1ctx = su_ctx(2);
    struct ggml_tensor * W0 = ggml_new_tensor_1d(w0ctx, GGML_TYPE_F32, ne);
    struct ggml_tensor * W1 = ggml_new_tensor_1d(w1ctx, GGML_TYPE_F32, ne);
    ggml_set_name(W0, "W0");
    ggml_set_name(W1, "W1");
    ggml_backend_buffer_t b0 = su_weights(w0ctx, test_backend_buffer_type(0));
    ggml_backend_buffer_t b1 = su_weights(w1ctx, test_backend_buffer_type(1));
    su_set(W0, d0);
    su_set(W1, d1);

    ggml_backend_t backends[3] = { g_t0, g_t1, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 3, 256, false);
    struct ggml_context * ctx = su_ctx(16);
    struct ggml_tensor * gx = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    ggml_set_name(gx, "x");
    ggml_set_input(gx);
    struct ggml_tensor * a = ggml_mul(ctx, gx, W0);       // TEST (W0)
    struct ggml_tensor * b = ggml_add(ctx, a, W1);        // TEST1 (W1)
    struct ggml_tensor * s = ggml_scale(ctx, b, 2.0f);    // TEST1 (follows b)
    struct ggml_tensor * d = ggml_add(ctx, s, W0);        // TEST (W0)
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, d);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    TEST_CHECK(backend_of(sched, a) == g_t0);
    TEST_CHECK(backend_of(sched, b) == g_t1);
    TEST_CHECK(backend_of(sched, s) == g_t1);
    TEST_CHECK(backend_of(sched, d) == g_t0);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 3);
    su_set(gx, x);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    struct test_backend_stats st = su_stats();
    // x set into TEST; a (TEST -> TEST1) and s (TEST1 -> TEST) through cpy_tensor_async
    TEST_CHECK_MSG(st.n_set == 1 && st.n_cpy_async == 2 && st.n_get == 0, "set %ld cpy_async %ld get %ld",
            st.n_set, st.n_cpy_async, st.n_get);
    float * out = su_get(d);
    int bad = 0;
    for (int64_t i = 0; i < ne; i++) {
        const float av = x[i] * d0[i];
        const float bv = av + d1[i];
        const float sv = bv * 2.0f;
        const float dv = sv + d0[i];
        bad += memcmp(&dv, &out[i], sizeof(float)) != 0;
    }
    TEST_CHECK_MSG(bad == 0, "%d values differ", bad);

    // without cpy_tensor_async the copies go through host memory (get + set each)
    ggml_backend_sched_reset(sched);
    test_backend_set_cpy_async(false);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    st = su_stats();
    test_backend_reset_config();
    TEST_CHECK_MSG(st.n_cpy_async == 0 && st.n_cpy_tensor + st.n_get >= 2, "cpy_async %ld cpy_tensor %ld get %ld",
            st.n_cpy_async, st.n_cpy_tensor, st.n_get);
    float * out2 = su_get(d);
    TEST_CHECK(su_same_bits(out, out2, (size_t) ne));

    free(out); free(out2);
    ggml_free(ctx);
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(b0);
    ggml_backend_buffer_free(b1);
    ggml_free(w0ctx);
    ggml_free(w1ctx);
    free(d0); free(d1); free(x);
}

//
// pass 2: non-CPU backends spread first; a CPU node does not pull its neighbours
//

static void test_gpu_expansion(void) {
    const int64_t ne = 48;
    float * wt = su_rand(ne, -1, 1);
    float * wc = su_rand(ne, -1, 1);
    float * x  = su_rand(ne, -1, 1);
    struct ggml_context * wctx_t = su_ctx(1), * wctx_c = su_ctx(1);
    struct ggml_tensor * Wt = ggml_new_tensor_1d(wctx_t, GGML_TYPE_F32, ne);
    struct ggml_tensor * Wc = ggml_new_tensor_1d(wctx_c, GGML_TYPE_F32, ne);
    ggml_backend_buffer_t bt = su_weights(wctx_t, test_backend_buffer_type(0));
    ggml_backend_buffer_t bc = su_weights(wctx_c, ggml_backend_cpu_buffer_type());
    su_set(Wt, wt);
    su_set(Wc, wc);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, false, false);
    struct ggml_context * ctx = su_ctx(8);
    struct ggml_tensor * gx = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    ggml_set_input(gx);
    struct ggml_tensor * a = ggml_mul(ctx, gx, Wt);    // TEST (weights)
    struct ggml_tensor * b = ggml_mul(ctx, a, Wc);     // CPU (weights)
    struct ggml_tensor * c = ggml_scale(ctx, b, 2.0f); // no weights: pass 2a stops at the CPU node b,
                                                       // pass 2b brings TEST up from d
    struct ggml_tensor * d = ggml_add(ctx, c, Wt);     // TEST (weights)
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, d);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    TEST_CHECK(backend_of(sched, a) == g_t0);
    TEST_CHECK(backend_of(sched, b) == g_cpu);
    TEST_CHECK(backend_of(sched, c) == g_t0);
    TEST_CHECK(backend_of(sched, d) == g_t0);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 3); // [a] TEST, [b] CPU, [c d] TEST
    su_set(gx, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(d);
    int bad = 0;
    for (int64_t i = 0; i < ne; i++) {
        const float av = x[i] * wt[i];
        const float bv = av * wc[i];
        const float cv = bv * 2.0f;
        const float dv = cv + wt[i];
        bad += memcmp(&dv, &out[i], sizeof(float)) != 0;
    }
    TEST_CHECK(bad == 0);
    free(out);
    ggml_free(ctx);
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(bt);
    ggml_backend_buffer_free(bc);
    ggml_free(wctx_t);
    ggml_free(wctx_c);
    free(wt); free(wc); free(x);
}

//
// a weight that must be copied in starts a new split (so that the copies of earlier weights can
// be freed) when the split already has inputs
//

static void test_weight_cut(void) {
    const int64_t ne = 24;
    float * wt = su_rand(ne, -1, 1);
    float * wc = su_rand(ne, -1, 1);
    float * x  = su_rand(ne, -1, 1);
    struct ggml_context * wctx_t = su_ctx(1), * wctx_c = su_ctx(1);
    struct ggml_tensor * Wt = ggml_new_tensor_1d(wctx_t, GGML_TYPE_F32, ne);
    struct ggml_tensor * Wc = ggml_new_tensor_1d(wctx_c, GGML_TYPE_F32, ne);
    ggml_backend_buffer_t bt = su_weights(wctx_t, test_backend_buffer_type(0));
    ggml_backend_buffer_t bc = su_weights(wctx_c, ggml_backend_cpu_buffer_type());
    su_set(Wt, wt);
    su_set(Wc, wc);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, false);
    struct ggml_context * ctx = su_ctx(8);
    struct ggml_tensor * gx = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    ggml_set_input(gx);
    struct ggml_tensor * a = ggml_mul(ctx, gx, Wt); // TEST; its split has the input x
    struct ggml_tensor * b = ggml_mul(ctx, a, Wc);  // placed on TEST: Wc is copied in
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, b);
    ggml_backend_sched_set_tensor_backend(sched, b, g_t0);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 2); // [a] TEST (input x), [b] TEST (input Wc)
    su_set(gx, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(b);
    int bad = 0;
    for (int64_t i = 0; i < ne; i++) {
        const float av = x[i] * wt[i];
        const float bv = av * wc[i];
        bad += memcmp(&bv, &out[i], sizeof(float)) != 0;
    }
    TEST_CHECK(bad == 0);
    free(out);
    ggml_free(ctx);
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(bt);
    ggml_backend_buffer_free(bc);
    ggml_free(wctx_t);
    ggml_free(wctx_c);
    free(wt); free(wc); free(x);
}

//
// a tensor copied to another backend stays intact until the copy is made, even when its last
// consumer on its own backend could reuse its memory (here: SCALE in place)
//

static void test_copy_source_lifetime(void) {
    const int64_t ne = 40;
    float * wd = su_rand(ne, -1, 1);
    float * x  = su_rand(ne, -1, 1);
    struct ggml_context * wctx = su_ctx(1);
    struct ggml_tensor * W = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, ne);
    ggml_backend_buffer_t wb = su_weights(wctx, test_backend_buffer_type(0));
    su_set(W, wd);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, false);
    struct ggml_context * ctx = su_ctx(8);
    struct ggml_tensor * gx = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    ggml_set_input(gx);
    struct ggml_tensor * a  = ggml_mul(ctx, gx, W);     // TEST
    struct ggml_tensor * b1 = ggml_scale(ctx, a, 3.0f); // TEST, the last TEST consumer of a
    struct ggml_tensor * c  = ggml_sqr(ctx, a);         // CPU: reads a copy of a
    struct ggml_tensor * d  = ggml_add(ctx, c, b1);     // TEST
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, b1);
    ggml_build_forward_expand(gf, d);
    TEST_CHECK(ggml_graph_node(gf, 1) == b1 && ggml_graph_node(gf, 2) == c);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 3); // [a b1] TEST, [c] CPU, [d] TEST
    su_set(gx, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(d);
    int bad = 0;
    for (int64_t i = 0; i < ne; i++) {
        const float av = x[i] * wd[i];
        const float bv = av * 3.0f;
        const float cv = av * av;
        const float dv = cv + bv;
        bad += memcmp(&dv, &out[i], sizeof(float)) != 0;
    }
    TEST_CHECK_MSG(bad == 0, "%d values differ", bad);
    free(out);
    ggml_free(ctx);
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(wb);
    ggml_free(wctx);
    free(wd); free(x);
}

//
// op_offload: weights in host memory, a device that asks for the op
//

static void test_op_offload(void) {
    const int64_t ne = 64;
    float * wd = su_rand(ne, -1, 1);
    float * x  = su_rand(ne, -1, 1);
    struct ggml_context * wctx = su_ctx(1);
    struct ggml_tensor * W = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, ne);
    ggml_backend_buffer_t wb = su_weights(wctx, ggml_backend_cpu_buffer_type());
    su_set(W, wd);
    ggml_backend_t backends[2] = { g_t0, g_cpu };

    test_backend_set_offload(true);
    for (int variant = 0; variant < 3; variant++) {
        ggml_backend_sched_t sched;
        bool offload;
        if (variant == 0) {
            sched = ggml_backend_sched_new(backends, NULL, 2, 64, false);        // seed form: op_offload on
            offload = true;
        } else if (variant == 1) {
            sched = ggml_backend_sched_new(backends, NULL, 2, 64, false, true);  // newer form
            offload = true;
        } else {
            sched = ggml_backend_sched_new(backends, NULL, 2, 64, false, false);
            offload = false;
        }
        struct ggml_context * ctx = su_ctx(4);
        struct ggml_tensor * gx = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
        ggml_set_input(gx);
        struct ggml_tensor * y = ggml_mul(ctx, gx, W);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, y);
        TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
        TEST_CHECK_MSG(backend_of(sched, y) == (offload ? g_t0 : g_cpu), "variant %d: y on %s", variant,
                ggml_backend_name(backend_of(sched, y)));
        su_set(gx, x);
        TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
        float * out = su_get(y);
        int bad = 0;
        for (int64_t i = 0; i < ne; i++) {
            const float e = x[i] * wd[i];
            bad += memcmp(&e, &out[i], sizeof(float)) != 0;
        }
        TEST_CHECK(bad == 0);
        free(out);
        ggml_free(ctx);
        ggml_backend_sched_free(sched);
    }
    test_backend_reset_config();
    ggml_backend_buffer_free(wb);
    ggml_free(wctx);
    free(wd); free(x);
}

//
// a split with more inputs than GGML_SCHED_MAX_SPLIT_INPUTS (30) is cut in two
//

static void test_many_inputs(void) {
    enum { N_IN = 40, NE = 16 };
    float * wd = su_rand(NE, -1, 1);
    float * xd[N_IN];
    struct ggml_context * wctx = su_ctx(1);
    struct ggml_tensor * W = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, NE);
    ggml_backend_buffer_t wb = su_weights(wctx, test_backend_buffer_type(0));
    su_set(W, wd);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);
    struct ggml_context * ctx = su_ctx(2*N_IN + 4);
    struct ggml_tensor * xs[N_IN];
    struct ggml_tensor * s = NULL;
    for (int i = 0; i < N_IN; i++) {
        xs[i] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, NE);
        ggml_format_name(xs[i], "x%d", i);
        ggml_set_input(xs[i]);
        s = ggml_add(ctx, i == 0 ? W : s, xs[i]); // on TEST: the first follows W, the rest follow it
    }
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, s);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    // every x_i is copied to TEST: 30 inputs in the first split, 10 in the second
    TEST_CHECK_MSG(ggml_backend_sched_get_n_splits(sched) == 2, "%d splits", ggml_backend_sched_get_n_splits(sched));
    for (int i = 0; i < N_IN; i++) {
        xd[i] = su_rand(NE, -1, 1);
        su_set(xs[i], xd[i]);
    }
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    float e[NE];
    memcpy(e, wd, sizeof(e));
    for (int i = 0; i < N_IN; i++) {
        for (int j = 0; j < NE; j++) {
            e[j] = e[j] + xd[i][j];
        }
    }
    float * out = su_get(s);
    TEST_CHECK(su_same_bits(out, e, NE));
    free(out);
    for (int i = 0; i < N_IN; i++) {
        free(xd[i]);
    }
    ggml_free(ctx);
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(wb);
    ggml_free(wctx);
    free(wd);
}

//
// a cache on the device written through a view (as a KV cache is): the CPY into the view runs
// where the cache is, its source is copied there
//

static void test_cache_write(void) {
    const int64_t ne = 16, n_slots = 4;
    struct ggml_context * cctx = su_ctx(1);
    struct ggml_tensor * cache = ggml_new_tensor_2d(cctx, GGML_TYPE_F32, ne, n_slots);
    ggml_set_name(cache, "cache");
    ggml_backend_buffer_t cb = ggml_backend_alloc_ctx_tensors_from_buft(cctx, test_backend_buffer_type(0));
    float * init = su_rand((size_t) (ne*n_slots), -1, 1);
    su_set(cache, init);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, false);
    float * x = su_rand(ne, -1, 1);
    for (int64_t slot = 0; slot < n_slots; slot += 2) {
        ggml_backend_sched_reset(sched);
        struct ggml_context * ctx = su_ctx(8);
        struct ggml_tensor * gx = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
        ggml_set_input(gx);
        struct ggml_tensor * k = ggml_sqr(ctx, gx);                                             // CPU
        struct ggml_tensor * dst = ggml_view_1d(ctx, cache, ne, (size_t) slot * cache->nb[1]);  // TEST (its memory)
        struct ggml_tensor * w = ggml_cpy(ctx, k, dst);                                         // TEST (pre-allocated view)
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, w);
        TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
        TEST_CHECK(backend_of(sched, k) == g_cpu);
        TEST_CHECK(backend_of(sched, w) == g_t0);
        TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 2); // [k] CPU, [w] TEST (input k)
        su_set(gx, x);
        TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
        for (int64_t i = 0; i < ne; i++) {
            init[slot*ne + i] = x[i] * x[i];
        }
        float * got = su_get(cache);
        TEST_CHECK_MSG(su_same_bits(got, init, (size_t) (ne*n_slots)), "slot %lld", (long long) slot);
        free(got);
        ggml_free(ctx);
    }
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(cb);
    ggml_free(cctx);
    free(init); free(x);
}

//
// degenerate graphs: empty, only views
//

static void test_degenerate(void) {
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, true);
    struct ggml_context * ctx = su_ctx(8);
    struct ggml_cgraph * empty = ggml_new_graph(ctx);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, empty) == GGML_STATUS_SUCCESS);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 0);

    // an input seen through a reshape: one split on the CPU, no copies
    ggml_backend_sched_reset(sched);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 12);
    ggml_set_input(x);
    struct ggml_tensor * r = ggml_reshape_2d(ctx, x, 4, 3);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, r);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 1);
    TEST_CHECK(backend_of(sched, r) == g_cpu);
    float xd[12];
    su_fill(xd, 12, -1, 1);
    su_set(x, xd);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(r);
    TEST_CHECK(su_same_bits(out, xd, 12));
    free(out);
    ggml_free(ctx);
    ggml_backend_sched_free(sched);
}

//
// accessors and GGML_SCHED_DEBUG
//

static void test_accessors_and_debug(void) {
    ggml_backend_t backends[3] = { g_t0, g_t1, g_cpu };
    setenv("GGML_SCHED_DEBUG", "2", 1);
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 3, 128, false);
    unsetenv("GGML_SCHED_DEBUG");
    TEST_CHECK(ggml_backend_sched_get_n_backends(sched) == 3);
    TEST_CHECK(ggml_backend_sched_get_backend(sched, 1) == g_t1);
    TEST_CHECK(ggml_backend_sched_get_buffer_type(sched, g_t1) == test_backend_buffer_type(1));
    TEST_CHECK(ggml_backend_sched_get_buffer_type(sched, g_cpu) == ggml_backend_cpu_buffer_type());
    TEST_CHECK(ggml_backend_sched_get_buffer_size(sched, g_t0) == 0);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 0);

    const int64_t ne0 = 8, ne1 = 2;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    test_log_capture_end();
    const char * text = test_log_text();
    TEST_CHECK(test_log_error_count() == 0);
    TEST_CHECK_MSG(strstr(text, "-> 3 splits, 3 inputs copied") != NULL, "debug output:\n%s", text);
    TEST_CHECK(strstr(text, "split 1 on CPU: nodes [2, 3), 1 input: 'h2' from TEST") != NULL);
    TEST_CHECK(strstr(text, "'h3' (f32") != NULL);            // level 2 lists the nodes
    TEST_CHECK(strstr(text, "on TEST [uses weights there]") != NULL);
    ggml_free(c.ctx);
    ggml_backend_sched_free(sched);

    // without the variable: silent
    sched = ggml_backend_sched_new(backends, NULL, 3, 128, false);
    su_chain_build(&c, wp.w1, wp.w2);
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    test_log_capture_end();
    TEST_CHECK(strlen(test_log_text()) == 0);
    ggml_free(c.ctx);
    ggml_backend_sched_free(sched);
    su_weights_free(&wp);
    free(w1); free(w2);
}

int main(void) {
    test_rng_init();
    g_cpu = ggml_backend_cpu_init();
    g_t0  = test_backend_init_dev(0);
    g_t1  = test_backend_init_dev(1);
    if (g_cpu == NULL || g_t0 == NULL || g_t1 == NULL) {
        fprintf(stderr, "cannot create the backends\n");
        return 1;
    }
    ggml_backend_cpu_set_n_threads(g_cpu, 2);
    const struct test_backend_stats st0 = su_stats();

    test_chain();
    test_layers();
    test_manual_placement();
    test_two_cpus();
    test_weights_pull();
    test_gpu_expansion();
    test_copy_source_lifetime();
    test_weight_cut();
    test_op_offload();
    test_many_inputs();
    test_degenerate();
    test_cache_write();
    test_accessors_and_debug();

    cpu_plain_free();
    const struct test_backend_stats st1 = su_stats();
    TEST_CHECK_MSG(st1.buffers_alive == st0.buffers_alive && st1.events_alive == st0.events_alive,
            "leaked %ld TEST buffers, %ld events", st1.buffers_alive - st0.buffers_alive, st1.events_alive - st0.events_alive);
    TEST_CHECK(st1.n_bad_access == 0);

    ggml_backend_free(g_t1);
    ggml_backend_free(g_t0);
    ggml_backend_free(g_cpu);
    return test_finish("test-sched");
}
