// The scheduler over several graphs: reserve then smaller (and growing) graphs without needless
// reallocation, the eval callback (every node asked once, the wanted ones shown, stop), pipeline
// parallelism (rotating input slots, events), graphs split again (after reserve, split_graph, or
// another graph computed without reset). Backends: the CPU and the test backend of
// tests/common/test-backend.h; the graphs are those of test-sched-util.h.

#include "test-sched-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ggml_backend_t g_cpu;
static ggml_backend_t g_t0;

//
// reserve with the largest graph; smaller graphs do not reallocate
//

// the chain over ne1 rows of x (weights of one row, broadcast) followed by `extra` times + x
static struct ggml_cgraph * var_graph(struct su_chain * c, struct su_weights_pair * wp, int64_t ne1, int extra, struct ggml_tensor ** out) {
    su_chain_build_rows(c, wp->w1, wp->w2, ne1);
    struct ggml_tensor * h = c->h[5];
    for (int e = 0; e < extra; e++) {
        h = ggml_add(c->ctx, h, c->x);
    }
    ggml_build_forward_expand(c->gf, h);
    *out = h;
    return c->gf;
}

static bool var_check(struct ggml_tensor * out, const float * x, const float * w1, const float * w2, int64_t ne0, int64_t ne1, int extra) {
    const size_t n = (size_t) (ne0 * ne1);
    float * e = su_chain_out_w(x, w1, w2, n, (size_t) ne0);
    for (int k = 0; k < extra; k++) {
        for (size_t i = 0; i < n; i++) {
            e[i] = e[i] + x[i];
        }
    }
    float * got = su_get(out);
    const bool ok = su_same_bits(got, e, n);
    free(got);
    free(e);
    return ok;
}

static void test_reserve(void) {
    const int64_t ne0 = 128;
    float * w1 = su_rand(ne0, -1, 1);
    float * w2 = su_rand(ne0, -1, 1);
    float * x  = su_rand((size_t) (ne0 * 512), -1, 1);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, 1, w1, w2);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);

    struct su_chain big;
    struct ggml_tensor * out;
    var_graph(&big, &wp, 64, 6, &out);
    size_t sizes[2] = { 0, 0 };
    ggml_backend_sched_reserve_size(sched, big.gf, sizes);
    TEST_CHECK(ggml_backend_sched_get_buffer_size(sched, g_t0) == 0); // reserve_size allocates nothing
    const long n_alloc_before = su_stats().n_alloc;
    TEST_CHECK(ggml_backend_sched_reserve(sched, big.gf));
    const size_t s_dev = ggml_backend_sched_get_buffer_size(sched, g_t0);
    const size_t s_cpu = ggml_backend_sched_get_buffer_size(sched, g_cpu);
    TEST_CHECK(s_dev > 0 && s_cpu > 0);
    TEST_CHECK_MSG(sizes[0] == s_dev && sizes[1] == s_cpu, "reserve_size %zu %zu, reserve %zu %zu", sizes[0], sizes[1], s_dev, s_cpu);
    TEST_CHECK(su_stats().n_alloc == n_alloc_before + 1);
    ggml_free(big.ctx);

    const long n_alloc = su_stats().n_alloc;
    const struct { int64_t ne1; int extra; } cfg[] = { { 8, 0 }, { 64, 6 }, { 1, 3 }, { 33, 2 }, { 64, 0 }, { 2, 6 } };
    for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
        ggml_backend_sched_reset(sched);
        struct su_chain c;
        var_graph(&c, &wp, cfg[i].ne1, cfg[i].extra, &out);
        TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
        su_set(c.x, x);
        TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
        TEST_CHECK_MSG(var_check(out, x, w1, w2, ne0, cfg[i].ne1, cfg[i].extra), "graph %zu: wrong result", i);
        TEST_CHECK_MSG(ggml_backend_sched_get_buffer_size(sched, g_t0) == s_dev && ggml_backend_sched_get_buffer_size(sched, g_cpu) == s_cpu,
                "graph %zu: buffers %zu %zu, reserved %zu %zu", i, ggml_backend_sched_get_buffer_size(sched, g_t0),
                ggml_backend_sched_get_buffer_size(sched, g_cpu), s_dev, s_cpu);
        TEST_CHECK_MSG(su_stats().n_alloc == n_alloc, "graph %zu: %ld new device buffers", i, su_stats().n_alloc - n_alloc);
        ggml_free(c.ctx);
    }

    // a larger graph than reserved grows the buffers (the checks above can fail)
    ggml_backend_sched_reset(sched);
    struct su_chain c;
    var_graph(&c, &wp, 512, 1, &out);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    su_set(c.x, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    TEST_CHECK(var_check(out, x, w1, w2, ne0, 512, 1));
    TEST_CHECK(ggml_backend_sched_get_buffer_size(sched, g_t0) > s_dev);
    TEST_CHECK(su_stats().n_alloc > n_alloc);
    ggml_free(c.ctx);
    ggml_backend_sched_free(sched);

    // without reserve: graphs of one shape growing, then shrinking. Each growth reserves larger
    // buffers (quietly: growing is not an error), shrinking keeps them.
    sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);
    const int64_t rows[]  = { 1, 4, 16, 64, 16, 2, 64 };
    const bool    grows[] = { 1, 1,  1,  1,  0, 0,  0 }; // the compute buffer grows (first: allocated)
    size_t last_size = 0;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        ggml_backend_sched_reset(sched);
        var_graph(&c, &wp, rows[i], 2, &out);
        test_log_capture_begin();
        const bool ok = ggml_backend_sched_alloc_graph(sched, c.gf);
        test_log_capture_end();
        TEST_CHECK(ok);
        TEST_CHECK_MSG(test_log_error_count() == 0, "rows %lld: %s", (long long) rows[i], test_log_text());
        su_set(c.x, x);
        TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
        TEST_CHECK(var_check(out, x, w1, w2, ne0, rows[i], 2));
        const size_t size = ggml_backend_sched_get_buffer_size(sched, g_t0);
        TEST_CHECK_MSG(grows[i] ? size > last_size : size == last_size, "rows %lld: buffer %zu after %zu",
                (long long) rows[i], size, last_size);
        last_size = size;
        ggml_free(c.ctx);
    }
    ggml_backend_sched_free(sched);

    su_weights_free(&wp);
    free(w1); free(w2); free(x);
}

//
// the eval callback
//

struct cb_state {
    struct ggml_cgraph * gf;
    int asked[64];
    int n_asked;
    int n_seen;
    struct ggml_tensor * want[2];
    struct ggml_tensor * stop_at;
    struct ggml_tensor * h[6];
    float * expect[6];
    size_t n;
    int bad_values;
};

static bool eval_cb(struct ggml_tensor * t, bool ask, void * user_data) {
    struct cb_state * s = (struct cb_state *) user_data;
    if (ask) {
        s->n_asked++;
        for (int i = 0; i < ggml_graph_n_nodes(s->gf); i++) {
            if (ggml_graph_node(s->gf, i) == t) {
                s->asked[i]++;
            }
        }
        return t == s->want[0] || t == s->want[1] || t == s->stop_at;
    }
    s->n_seen++;
    for (int k = 1; k <= 5; k++) {
        if (t == s->h[k]) {
            float * got = su_get(t);
            s->bad_values += !su_same_bits(got, s->expect[k], s->n);
            free(got);
        }
    }
    return t != s->stop_at;
}

static void test_eval_callback(void) {
    const int64_t ne0 = 50, ne1 = 3;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    su_set(c.x, x);

    struct cb_state s;
    memset(&s, 0, sizeof(s));
    s.gf = c.gf;
    s.n = n;
    for (int k = 1; k <= 5; k++) {
        s.h[k] = c.h[k];
        s.expect[k] = (float *) malloc(n * sizeof(float));
    }
    su_chain_expect(x, w1, w2, n, s.expect);

    // observe h2 (end of the first TEST split) and h4 (inside the last one)
    s.want[0] = c.h[2];
    s.want[1] = c.h[4];
    ggml_backend_sched_set_eval_callback(sched, eval_cb, &s);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    int n_once = 0;
    for (int i = 0; i < ggml_graph_n_nodes(c.gf); i++) {
        n_once += s.asked[i] == 1;
    }
    TEST_CHECK_MSG(n_once == ggml_graph_n_nodes(c.gf) && s.n_asked == ggml_graph_n_nodes(c.gf),
            "%d of %d nodes asked once, %d questions", n_once, ggml_graph_n_nodes(c.gf), s.n_asked);
    TEST_CHECK(s.n_seen == 2);
    TEST_CHECK(s.bad_values == 0);
    float * out = su_get(c.h[5]);
    TEST_CHECK(su_same_bits(out, s.expect[5], n));
    free(out);

    // returning false at h2 stops the graph: nothing after h2 is asked for or computed
    memset(s.asked, 0, sizeof(s.asked));
    s.n_asked = 0;
    s.n_seen  = 0;
    s.want[0] = s.want[1] = NULL;
    s.stop_at = c.h[2];
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    TEST_CHECK_MSG(s.n_asked == 2 && s.asked[0] == 1 && s.asked[1] == 1, "%d questions", s.n_asked);
    TEST_CHECK(s.n_seen == 1);
    TEST_CHECK(su_stats().n_nodes_computed == 2);
    TEST_CHECK(s.bad_values == 0);

    // without the callback everything runs again
    ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
    test_backend_reset_stats();
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    TEST_CHECK(su_stats().n_nodes_computed == 4);

    for (int k = 1; k <= 5; k++) {
        free(s.expect[k]);
    }
    ggml_free(c.ctx);
    ggml_backend_sched_free(sched);
    su_weights_free(&wp);
    free(w1); free(w2); free(x);
}

//
// pipeline parallelism: n_copies input slots, events
//

static void test_pipeline(void) {
    const int64_t ne0 = 64, ne1 = 16;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, true);
    const int n_copies = ggml_backend_sched_get_n_copies(sched);
    TEST_CHECK(n_copies == 4); // GGML_SCHED_MAX_COPIES, the default

    enum { N_ITER = 13 };
    void * slot_addr[N_ITER];
    int n_wrong = 0;
    test_backend_reset_stats();
    for (int it = 0; it < N_ITER; it++) {
        ggml_backend_sched_reset(sched);
        struct su_chain c;
        su_chain_build(&c, wp.w1, wp.w2);
        TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
        slot_addr[it] = c.x->data;
        su_fill(x, n, -1, 1);
        su_set(c.x, x);
        TEST_CHECK(ggml_backend_sched_graph_compute_async(sched, c.gf) == GGML_STATUS_SUCCESS);
        float * out = (float *) malloc(n * sizeof(float));
        ggml_backend_tensor_get_async(g_t0, c.h[5], out, 0, n * sizeof(float));
        ggml_backend_sched_synchronize(sched);
        float * expect = su_chain_out(x, w1, w2, n);
        n_wrong += !su_same_bits(out, expect, n);
        free(out);
        free(expect);
        ggml_free(c.ctx);
    }
    TEST_CHECK_MSG(n_wrong == 0, "%d of %d iterations wrong", n_wrong, N_ITER);
    // the input takes the copy slots in turn
    int n_rot = 0;
    for (int it = 0; it < N_ITER; it++) {
        bool ok = true;
        for (int j = 1; j < n_copies && it + j < N_ITER; j++) {
            ok = ok && slot_addr[it + j] != slot_addr[it];
        }
        if (it + n_copies < N_ITER) {
            ok = ok && slot_addr[it + n_copies] == slot_addr[it];
        }
        n_rot += ok;
    }
    TEST_CHECK_MSG(n_rot == N_ITER, "input slots do not rotate (%d of %d)", n_rot, N_ITER);
    struct test_backend_stats st = su_stats();
    TEST_CHECK_MSG(st.n_event_record >= 2*N_ITER && st.n_event_sync >= N_ITER, "events: %ld recorded, %ld synchronized",
            st.n_event_record, st.n_event_sync);

    // one graph computed again and again with new inputs
    ggml_backend_sched_reset(sched);
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    n_wrong = 0;
    for (int it = 0; it < 8; it++) {
        su_fill(x, n, -2, 2);
        su_set(c.x, x);
        TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
        float * out = su_get(c.h[5]);
        float * expect = su_chain_out(x, w1, w2, n);
        n_wrong += !su_same_bits(out, expect, n);
        free(out);
        free(expect);
    }
    TEST_CHECK(n_wrong == 0);
    ggml_free(c.ctx);

    ggml_backend_sched_free(sched);
    TEST_CHECK(su_stats().events_alive == 0);
    su_weights_free(&wp);
    free(w1); free(w2); free(x);
}

//
// graphs split before: reserve then compute, split_graph then compute, another graph without reset
//

static void test_resplit(void) {
    const int64_t ne0 = 40, ne1 = 5;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    float * expect = su_chain_out(x, w1, w2, n);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    ggml_backend_t backends[2] = { g_t0, g_cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, false);

    // reserve rewrites the graph's sources to copies; computing the same graph afterwards works
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    TEST_CHECK(ggml_backend_sched_reserve(sched, c.gf));
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));
    su_set(c.x, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(c.h[5]);
    TEST_CHECK(su_same_bits(out, expect, n));
    free(out);

    // allocating the allocated graph again is harmless
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c.gf));

    // after a reset, the same graph can be allocated again
    ggml_backend_sched_reset(sched);
    ggml_backend_sched_split_graph(sched, c.gf);
    TEST_CHECK(ggml_backend_sched_get_n_splits(sched) == 3);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    su_set(c.x, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS);
    out = su_get(c.h[5]);
    TEST_CHECK(su_same_bits(out, expect, n));
    free(out);

    // computing another graph without a reset: warned about, and that graph is computed
    struct su_chain c2;
    su_chain_build(&c2, wp.w1, wp.w2);
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_sched_alloc_graph(sched, c2.gf) == false); // another graph is allocated
    TEST_CHECK(test_log_error_count() == 1);
    const enum ggml_status st = ggml_backend_sched_graph_compute(sched, c2.gf);
    test_log_capture_end();
    TEST_CHECK(st == GGML_STATUS_SUCCESS);
    TEST_CHECK(strstr(test_log_text(), "not the one allocated") != NULL);
    su_set(c2.x, x);
    TEST_CHECK(ggml_backend_sched_graph_compute(sched, c2.gf) == GGML_STATUS_SUCCESS);
    out = su_get(c2.h[5]);
    TEST_CHECK(su_same_bits(out, expect, n));
    free(out);

    ggml_free(c.ctx);
    ggml_free(c2.ctx);
    ggml_backend_sched_free(sched);
    su_weights_free(&wp);
    free(w1); free(w2); free(x); free(expect);
}

int main(void) {
    test_rng_init();
    g_cpu = ggml_backend_cpu_init();
    g_t0  = test_backend_init_dev(0);
    if (g_cpu == NULL || g_t0 == NULL) {
        fprintf(stderr, "cannot create the backends\n");
        return 1;
    }
    const struct test_backend_stats st0 = su_stats();

    test_reserve();
    test_eval_callback();
    test_pipeline();
    test_resplit();

    const struct test_backend_stats st1 = su_stats();
    TEST_CHECK_MSG(st1.buffers_alive == st0.buffers_alive && st1.events_alive == st0.events_alive,
            "leaked %ld TEST buffers, %ld events", st1.buffers_alive - st0.buffers_alive, st1.events_alive - st0.events_alive);
    TEST_CHECK(st1.n_bad_access == 0);
    ggml_backend_free(g_t0);
    ggml_backend_free(g_cpu);
    return test_finish("test-sched-run");
}
