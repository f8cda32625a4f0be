// The scheduler never aborts: bad arguments, a graph larger than graph_size, an op no backend
// supports, placements a backend cannot honour, a pre-allocated tensor no backend can use, a
// backend that fails to compute, device and host allocation failures. Each gives a clear log
// message and an error result, leaks nothing, and the scheduler works again after
// ggml_backend_sched_reset.

#include "ggml-impl.h"
#include "test-sched-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// the family's GGML_SCHED_MAX_BACKENDS (not in the public header)
#define GGML_SCHED_MAX_BACKENDS_TEST 16

static ggml_backend_t g_cpu;
static ggml_backend_t g_t0;
static ggml_backend_t g_t1;

// the chain runs correctly on sched (after a reset)
static bool chain_works(ggml_backend_sched_t sched, ggml_backend_buffer_type_t wbuft) {
    const int64_t ne0 = 16, ne1 = 2;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    struct su_weights_pair wp = su_chain_weights(wbuft, ne0, ne1, w1, w2);
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    ggml_backend_sched_reset(sched);
    bool ok = ggml_backend_sched_alloc_graph(sched, c.gf);
    if (ok) {
        su_set(c.x, x);
        ok = ggml_backend_sched_graph_compute(sched, c.gf) == GGML_STATUS_SUCCESS;
    }
    if (ok) {
        float * out = su_get(c.h[5]);
        float * e = su_chain_out(x, w1, w2, n);
        ok = su_same_bits(out, e, n);
        free(out);
        free(e);
    }
    ggml_free(c.ctx);
    su_weights_free(&wp);
    free(w1); free(w2); free(x);
    return ok;
}

// runs f with the log captured; true when it logged at least one error containing `what`
#define EXPECT_ERROR(what, stmt) do {                                                              \
        test_log_capture_begin();                                                                  \
        stmt;                                                                                      \
        test_log_capture_end();                                                                    \
        TEST_CHECK_MSG(test_log_error_count() > 0 && strstr(test_log_text(), (what)) != NULL,      \
                "expected an error containing \"%s\", got:\n%s", (what), test_log_text());         \
    } while (0)

static void test_bad_new(void) {
    ggml_backend_t not_cpu_last[2] = { g_cpu, g_t0 };
    ggml_backend_t dup[2]          = { g_cpu, g_cpu };
    ggml_backend_t with_null[2]    = { NULL, g_cpu };
    ggml_backend_t ok2[2]          = { g_t0, g_cpu };
    ggml_backend_t many[GGML_SCHED_MAX_BACKENDS_TEST + 1];
    for (int i = 0; i < GGML_SCHED_MAX_BACKENDS_TEST + 1; i++) {
        many[i] = g_cpu;
    }
    ggml_backend_sched_t s = NULL;
    EXPECT_ERROR("last backend must be the CPU", s = ggml_backend_sched_new(not_cpu_last, NULL, 2, 64, false));
    TEST_CHECK(s == NULL);
    EXPECT_ERROR("given twice", s = ggml_backend_sched_new(dup, NULL, 2, 64, false));
    TEST_CHECK(s == NULL);
    EXPECT_ERROR("backend 0 is NULL", s = ggml_backend_sched_new(with_null, NULL, 2, 64, false));
    TEST_CHECK(s == NULL);
    EXPECT_ERROR("backends", s = ggml_backend_sched_new(NULL, NULL, 2, 64, false));
    TEST_CHECK(s == NULL);
    EXPECT_ERROR("backends", s = ggml_backend_sched_new(ok2, NULL, 0, 64, false));
    TEST_CHECK(s == NULL);
    EXPECT_ERROR("backends", s = ggml_backend_sched_new(many, NULL, GGML_SCHED_MAX_BACKENDS_TEST + 1, 64, false));
    TEST_CHECK(s == NULL);
    EXPECT_ERROR("graph_size", s = ggml_backend_sched_new(ok2, NULL, 2, 0, false));
    TEST_CHECK(s == NULL);
    // a compute buffer type the backend cannot use
    ggml_backend_buffer_type_t bad_bufts[2] = { ggml_backend_cpu_buffer_type(), NULL };
    EXPECT_ERROR("cannot use its compute buffer type", s = ggml_backend_sched_new(ok2, bad_bufts, 2, 64, false));
    TEST_CHECK(s == NULL);
    // explicit compute buffer types that fit are fine
    ggml_backend_buffer_type_t good_bufts[2] = { test_backend_buffer_type(0), ggml_backend_cpu_buffer_type() };
    s = ggml_backend_sched_new(ok2, good_bufts, 2, 64, false);
    TEST_CHECK(s != NULL);
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_backend_sched_free(s);
}

// every entry point with NULL arguments: logged, no crash
static void test_null_args(void) {
    ggml_backend_t ok2[2] = { g_t0, g_cpu };
    ggml_backend_sched_t s = ggml_backend_sched_new(ok2, NULL, 2, 64, false);
    struct ggml_context * ctx = su_ctx(4);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    size_t sizes[2];

    EXPECT_ERROR("sched is NULL", ggml_backend_sched_reset(NULL));
    EXPECT_ERROR("sched is NULL", TEST_CHECK(ggml_backend_sched_get_n_backends(NULL) == 0));
    EXPECT_ERROR("sched is NULL", TEST_CHECK(ggml_backend_sched_alloc_graph(NULL, NULL) == false));
    EXPECT_ERROR("sched is NULL", TEST_CHECK(ggml_backend_sched_graph_compute(NULL, NULL) == GGML_STATUS_FAILED));
    EXPECT_ERROR("sched is NULL", TEST_CHECK(ggml_backend_sched_reserve(NULL, NULL) == false));
    EXPECT_ERROR("sched is NULL", ggml_backend_sched_synchronize(NULL));
    EXPECT_ERROR("graph is NULL", TEST_CHECK(ggml_backend_sched_alloc_graph(s, NULL) == false));
    EXPECT_ERROR("graph is NULL", TEST_CHECK(ggml_backend_sched_graph_compute(s, NULL) == GGML_STATUS_FAILED));
    EXPECT_ERROR("graph is NULL", TEST_CHECK(ggml_backend_sched_graph_compute_async(s, NULL) == GGML_STATUS_FAILED));
    EXPECT_ERROR("graph is NULL", ggml_backend_sched_split_graph(s, NULL));
    EXPECT_ERROR("measure_graph is NULL", TEST_CHECK(ggml_backend_sched_reserve(s, NULL) == false));
    EXPECT_ERROR("measure_graph is NULL", ggml_backend_sched_reserve_size(s, NULL, sizes));
    EXPECT_ERROR("node is NULL", ggml_backend_sched_set_tensor_backend(s, NULL, g_t0));
    EXPECT_ERROR("node is NULL", TEST_CHECK(ggml_backend_sched_get_tensor_backend(s, NULL) == NULL));
    EXPECT_ERROR("not one of the scheduler's backends", ggml_backend_sched_set_tensor_backend(s, t, g_t1));
    EXPECT_ERROR("not one of the scheduler's backends", TEST_CHECK(ggml_backend_sched_get_buffer_size(s, g_t1) == 0));
    EXPECT_ERROR("not one of the scheduler's backends", TEST_CHECK(ggml_backend_sched_get_buffer_type(s, NULL) == NULL));
    EXPECT_ERROR("index 2", TEST_CHECK(ggml_backend_sched_get_backend(s, 2) == NULL));
    EXPECT_ERROR("index -1", TEST_CHECK(ggml_backend_sched_get_backend(s, -1) == NULL));
    TEST_CHECK(ggml_backend_sched_get_tensor_backend(s, t) == NULL); // never assigned: not an error
    ggml_backend_sched_free(NULL);
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_free(ctx);
    ggml_backend_sched_free(s);
}

static void test_graph_too_large(void) {
    ggml_backend_t ok2[2] = { g_t0, g_cpu };
    // graph_size 16: at most 17 nodes + leafs (the family's limit, ggml_hash_size(16))
    ggml_backend_sched_t s = ggml_backend_sched_new(ok2, NULL, 2, 16, false);
    struct ggml_context * ctx = su_ctx(64);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_set_input(x);
    struct ggml_tensor * h = x;
    for (int i = 0; i < 20; i++) {
        h = ggml_scale(ctx, h, 1.5f);
    }
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, h);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    EXPECT_ERROR("more than the 17", st = ggml_backend_sched_graph_compute(s, gf));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_ERROR("larger graph_size", TEST_CHECK(ggml_backend_sched_alloc_graph(s, gf) == false));
    EXPECT_ERROR("larger graph_size", TEST_CHECK(ggml_backend_sched_reserve(s, gf) == false));
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_free(ctx);
    ggml_backend_sched_free(s);
}

static void test_unsupported_op(void) {
    ggml_backend_t ok2[2] = { g_t0, g_cpu };
    ggml_backend_sched_t s = ggml_backend_sched_new(ok2, NULL, 2, 64, false);
    struct ggml_context * ctx = su_ctx(8);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_set_input(x);
    struct ggml_tensor * a = ggml_scale(ctx, x, 2.0f);
    // a node with an op that neither backend implements (built by hand: the op has no constructor)
    struct ggml_tensor * bad = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    bad->op = GGML_OP_FLASH_ATTN_BACK;
    bad->src[0] = a;
    bad->src[1] = a;
    ggml_set_name(bad, "loss");
    TEST_CHECK(!ggml_backend_supports_op(g_cpu, bad) && !ggml_backend_supports_op(g_t0, bad));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, bad);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    EXPECT_ERROR("no backend of the scheduler supports node 1 'loss'", st = ggml_backend_sched_graph_compute(s, gf));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_ERROR("no backend", TEST_CHECK(ggml_backend_sched_alloc_graph(s, gf) == false));
    EXPECT_ERROR("no backend", TEST_CHECK(ggml_backend_sched_reserve(s, gf) == false));
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_free(ctx);
    ggml_backend_sched_free(s);
}

// placements and pre-allocations a backend cannot honour
static void test_impossible_placement(void) {
    ggml_backend_t ok2[2] = { g_t0, g_cpu };
    ggml_backend_sched_t s = ggml_backend_sched_new(ok2, NULL, 2, 64, false);
    const int64_t ne = 32;
    float * wd = su_rand(ne, -1, 1);

    // SQR placed on TEST by the user
    struct ggml_context * ctx = su_ctx(8);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_sqr(ctx, x);
    ggml_set_name(y, "y");
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    ggml_backend_sched_set_tensor_backend(s, y, g_t0);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    EXPECT_ERROR("by ggml_backend_sched_set_tensor_backend", st = ggml_backend_sched_graph_compute(s, gf));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_free(ctx);

    // a SQR node that already has memory in a TEST buffer: TEST can use the memory but not run
    // the op, the CPU could run it but cannot use the memory
    ctx = su_ctx(8);
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    y = ggml_sqr(ctx, w);
    ggml_set_name(y, "y_prealloc");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, test_backend_buffer_type(0));
    TEST_CHECK(buf != NULL);
    gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    ggml_backend_sched_reset(s);
    EXPECT_ERROR("'y_prealloc' (SQR, f32 [32, 1, 1, 1]) already has memory in a TEST buffer", st = ggml_backend_sched_graph_compute(s, gf));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);

    // a node with memory in a buffer of a device the scheduler does not drive
    ctx = su_ctx(8);
    w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    y = ggml_scale(ctx, w, 3.0f);
    buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, test_backend_buffer_type(1));
    gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    ggml_backend_sched_reset(s);
    EXPECT_ERROR("TEST1 buffer", st = ggml_backend_sched_graph_compute(s, gf));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);

    // a WEIGHT on TEST used by SQR is fine: the weight is copied to the CPU
    struct ggml_context * wctx = su_ctx(1);
    w = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, ne);
    ggml_backend_buffer_t wb = su_weights(wctx, test_backend_buffer_type(0));
    su_set(w, wd);
    ctx = su_ctx(8);
    y = ggml_sqr(ctx, w);
    gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    ggml_backend_sched_reset(s);
    TEST_CHECK(ggml_backend_sched_graph_compute(s, gf) == GGML_STATUS_SUCCESS);
    TEST_CHECK(ggml_backend_sched_get_tensor_backend(s, y) == g_cpu);
    TEST_CHECK(ggml_backend_sched_get_n_splits(s) == 1);
    float * out = su_get(y);
    int bad = 0;
    for (int64_t i = 0; i < ne; i++) {
        const float e = wd[i] * wd[i];
        bad += memcmp(&e, &out[i], sizeof(float)) != 0;
    }
    TEST_CHECK(bad == 0);
    free(out);
    ggml_free(ctx);
    ggml_backend_buffer_free(wb);
    ggml_free(wctx);

    ggml_backend_sched_free(s);
    free(wd);
}

// a backend failing to compute: the status comes back, the next graph works
static void test_compute_failure(void) {
    ggml_backend_t ok2[2] = { g_t0, g_cpu };
    ggml_backend_sched_t s = ggml_backend_sched_new(ok2, NULL, 2, 64, false);
    const int64_t ne0 = 16, ne1 = 2;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    struct su_chain c;
    su_chain_build(&c, wp.w1, wp.w2);
    TEST_CHECK(ggml_backend_sched_alloc_graph(s, c.gf));
    su_set(c.x, x);
    // SCALE (h4, in the last split) disappears from TEST after the graph was planned
    test_backend_set_op_supported(GGML_OP_SCALE, false);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    EXPECT_ERROR("split 2 of 3", st = ggml_backend_sched_graph_compute(s, c.gf));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    test_backend_reset_config();
    // the same allocated graph can be computed again
    TEST_CHECK(ggml_backend_sched_graph_compute(s, c.gf) == GGML_STATUS_SUCCESS);
    float * out = su_get(c.h[5]);
    float * e = su_chain_out(x, w1, w2, n);
    TEST_CHECK(su_same_bits(out, e, n));
    free(out); free(e);
    TEST_CHECK(chain_works(s, test_backend_buffer_type(0)));
    ggml_free(c.ctx);
    su_weights_free(&wp);
    ggml_backend_sched_free(s);
    free(w1); free(w2); free(x);
}

// the device refuses a compute buffer
static void test_device_alloc_failure(void) {
    const struct test_backend_stats st0 = su_stats();
    ggml_backend_t three[3] = { g_t0, g_t1, g_cpu };
    const int64_t ne = 64;
    float * d0 = su_rand(ne, -1, 1);
    float * d1 = su_rand(ne, -1, 1);
    struct ggml_context * w0ctx = su_ctx(1), * w1ctx = su_ctx(1);
    struct ggml_tensor * W0 = ggml_new_tensor_1d(w0ctx, GGML_TYPE_F32, ne);
    struct ggml_tensor * W1 = ggml_new_tensor_1d(w1ctx, GGML_TYPE_F32, ne);
    ggml_backend_buffer_t b0 = su_weights(w0ctx, test_backend_buffer_type(0));
    ggml_backend_buffer_t b1 = su_weights(w1ctx, test_backend_buffer_type(1));
    su_set(W0, d0);
    su_set(W1, d1);

    // a graph needing a compute buffer on both devices: a = W0 * W0 (TEST), b = a + W1 (TEST1)
    for (long fail_at = 1; fail_at <= 2; fail_at++) {
        ggml_backend_sched_t s = ggml_backend_sched_new(three, NULL, 3, 64, false);
        struct ggml_context * ctx = su_ctx(8);
        struct ggml_tensor * a = ggml_mul(ctx, W0, W0);
        struct ggml_tensor * b = ggml_add(ctx, a, W1);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, b);
        const long alive = su_stats().buffers_alive;
        test_backend_set_alloc_fail(fail_at);
        bool ok = true;
        EXPECT_ERROR("failed to allocate", ok = ggml_backend_sched_alloc_graph(s, gf));
        test_backend_reset_config();
        TEST_CHECK_MSG(!ok, "fail_at %ld", fail_at);
        // the first buffer may survive in the allocator for the next attempt, nothing else
        TEST_CHECK_MSG(su_stats().buffers_alive - alive <= fail_at - 1, "fail_at %ld: %ld buffers alive", fail_at,
                su_stats().buffers_alive - alive);
        enum ggml_status st = GGML_STATUS_SUCCESS;
        test_backend_set_alloc_fail(1);
        ggml_backend_sched_reset(s);
        test_log_capture_begin();
        st = ggml_backend_sched_graph_compute(s, gf);
        test_log_capture_end();
        test_backend_reset_config();
        TEST_CHECK(st == GGML_STATUS_ALLOC_FAILED);
        // after a reset, everything works
        ggml_backend_sched_reset(s);
        TEST_CHECK(ggml_backend_sched_graph_compute(s, gf) == GGML_STATUS_SUCCESS);
        float * out = su_get(b);
        int bad = 0;
        for (int64_t i = 0; i < ne; i++) {
            const float e = d0[i] * d0[i] + d1[i];
            bad += memcmp(&e, &out[i], sizeof(float)) != 0;
        }
        TEST_CHECK(bad == 0);
        free(out);
        ggml_free(ctx);
        ggml_backend_sched_free(s);
    }
    ggml_backend_buffer_free(b0);
    ggml_backend_buffer_free(b1);
    ggml_free(w0ctx);
    ggml_free(w1ctx);
    const struct test_backend_stats st1 = su_stats();
    TEST_CHECK_MSG(st1.buffers_alive == st0.buffers_alive, "%ld TEST buffers leaked", st1.buffers_alive - st0.buffers_alive);
    free(d0); free(d1);
}

// every host allocation of a whole scheduler run fails in turn
static void test_host_fault_injection(void) {
    const int64_t ne0 = 16, ne1 = 2;
    const size_t n = (size_t) (ne0 * ne1);
    float * w1 = su_rand(n, -1, 1);
    float * w2 = su_rand(n, -1, 1);
    float * x  = su_rand(n, -1, 1);
    float * e  = su_chain_out(x, w1, w2, n);
    struct su_weights_pair wp = su_chain_weights(test_backend_buffer_type(0), ne0, ne1, w1, w2);
    const struct test_backend_stats st0 = su_stats();
    int n_fail = 0, n_ok = 0, n_silent = 0;
    for (int parallel = 0; parallel <= 1; parallel++) {
        for (long k = 1; k < 2000; k++) {
            struct su_chain c;
            su_chain_build(&c, wp.w1, wp.w2);
            ggml_backend_t b2[2] = { g_t0, g_cpu };
            test_log_capture_begin();
            test_alloc_fault_set(k);
            ggml_backend_sched_t s = ggml_backend_sched_new(b2, NULL, 2, 64, parallel != 0);
            bool ok = s != NULL && ggml_backend_sched_reserve(s, c.gf) && ggml_backend_sched_alloc_graph(s, c.gf);
            if (ok) {
                ggml_backend_tensor_set(c.x, x, 0, n * sizeof(float));
                ok = ggml_backend_sched_graph_compute(s, c.gf) == GGML_STATUS_SUCCESS;
            }
            const long used = test_alloc_fault_count();
            test_alloc_fault_set(0);
            test_log_capture_end();
            const int n_err = test_log_error_count();
            if (ok) {
                // a success must be a correct one, or come with an error message (a copy through
                // host memory that could not get its staging buffer)
                float * out = su_get(c.h[5]);
                if (!su_same_bits(out, e, n) && n_err == 0) {
                    n_silent++;
                }
                free(out);
                n_ok++;
            } else {
                n_fail++;
                TEST_CHECK_MSG(n_err > 0, "fault %ld: failure without an error message", k);
            }
            // the scheduler (when there is one) is still usable
            if (s != NULL) {
                TEST_CHECK_MSG(chain_works(s, test_backend_buffer_type(0)), "fault %ld: the scheduler does not recover", k);
            }
            ggml_backend_sched_free(s);
            ggml_free(c.ctx);
            if (ok && k > used) {
                break; // the fault came after the last allocation: all were covered
            }
        }
    }
    TEST_CHECK(n_silent == 0);
    TEST_CHECK(n_fail > 10);
    TEST_CHECK(n_ok > 0);
    printf("  host fault injection: %d failures reported cleanly, %d runs\n", n_fail, n_fail + n_ok);
    const struct test_backend_stats st1 = su_stats();
    TEST_CHECK(st1.buffers_alive == st0.buffers_alive);
    TEST_CHECK(st1.events_alive == st0.events_alive);
    su_weights_free(&wp);
    free(w1); free(w2); free(x); free(e);
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
    const struct test_backend_stats st0 = su_stats();

    test_bad_new();
    test_null_args();
    test_graph_too_large();
    test_unsupported_op();
    test_impossible_placement();
    test_compute_failure();
    test_device_alloc_failure();
    test_host_fault_injection();

    const struct test_backend_stats st1 = su_stats();
    TEST_CHECK_MSG(st1.buffers_alive == st0.buffers_alive && st1.events_alive == st0.events_alive,
            "leaked %ld TEST buffers, %ld events", st1.buffers_alive - st0.buffers_alive, st1.events_alive - st0.events_alive);
    TEST_CHECK(st1.n_bad_access == 0);
    ggml_backend_free(g_t1);
    ggml_backend_free(g_t0);
    ggml_backend_free(g_cpu);
    return test_finish("test-sched-errors");
}
