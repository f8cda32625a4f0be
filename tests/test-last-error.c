// The error channel (docs/errors.md): each error is one message in one log callback call, never
// split or interleaved; every failing call leaves the thread's last error with the right code;
// device errors on paths that return nothing stay on the backend and come back from the next
// graph_compute (the TEST backend's transfer fault); the test-control entry point.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "ggml-impl.h" // ggml_test_control
#include "test-backend.h"
#include "test-common.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

//
// a log sink that keeps every callback call
//

#define SINK_MAX 4096

static pthread_mutex_t g_sink_lock = PTHREAD_MUTEX_INITIALIZER;
static int  g_sink_n;
static int  g_sink_errors;
static int  g_sink_cont;
static int  g_sink_bad;      // ERROR texts that are not one whole line
static char g_sink_last[1024];

static void sink_cb(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    pthread_mutex_lock(&g_sink_lock);
    g_sink_n++;
    if (level == GGML_LOG_LEVEL_CONT) {
        g_sink_cont++;
    }
    if (level == GGML_LOG_LEVEL_ERROR) {
        g_sink_errors++;
        const size_t n = strlen(text);
        // one whole message: "<func>: <reason>\n", with its only newline at the end
        if (n < 4 || text[n - 1] != '\n' || memchr(text, '\n', n - 1) != NULL || strstr(text, ": ") == NULL) {
            g_sink_bad++;
        }
        snprintf(g_sink_last, sizeof(g_sink_last), "%s", text);
    }
    pthread_mutex_unlock(&g_sink_lock);
}

static void sink_begin(void) {
    pthread_mutex_lock(&g_sink_lock);
    g_sink_n = g_sink_errors = g_sink_cont = g_sink_bad = 0;
    g_sink_last[0] = '\0';
    pthread_mutex_unlock(&g_sink_lock);
    ggml_log_set(sink_cb, NULL);
}

static void sink_end(void) {
    ggml_log_set(NULL, NULL);
}

static struct ggml_context * ctx_new(size_t size, bool no_alloc) {
    struct ggml_init_params p = { size, NULL, no_alloc };
    return ggml_init(p);
}

//
// one message per error, with its code
//

static void test_one_callback_per_error(void) {
    struct ggml_context * ctx = ctx_new(1 << 20, false);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);

    ggml_clear_last_error();
    TEST_CHECK(ggml_last_error() == GGML_ERROR_OK && strcmp(ggml_last_error_message(), "") == 0);

    sink_begin();
    TEST_CHECK(ggml_mul_mat(ctx, a, b) == NULL);
    sink_end();
    // the old GGML_CHECK_RET sent "func: " as ERROR and the reason as CONT pieces
    TEST_CHECK_MSG(g_sink_n == 1 && g_sink_errors == 1 && g_sink_cont == 0 && g_sink_bad == 0,
            "%d calls, %d errors, %d CONT, %d malformed; last: %s", g_sink_n, g_sink_errors, g_sink_cont, g_sink_bad, g_sink_last);
    TEST_CHECK_MSG(strstr(g_sink_last, "ggml_mul_mat") != NULL, "message: %s", g_sink_last);
    TEST_CHECK(ggml_last_error() == GGML_ERROR_INVALID_ARGUMENT);
    // the kept message is the logged one, without its newline
    char logged[1024];
    snprintf(logged, sizeof(logged), "%s", g_sink_last);
    logged[strcspn(logged, "\n")] = '\0';
    TEST_CHECK_MSG(strcmp(ggml_last_error_message(), logged) == 0, "kept '%s', logged '%s'", ggml_last_error_message(), logged);
    TEST_CHECK(strcmp(ggml_error_code_name(GGML_ERROR_INVALID_ARGUMENT), "invalid argument") == 0);

    // a success leaves the last error as it was; clearing resets it
    TEST_CHECK(ggml_add(ctx, a, a) != NULL);
    TEST_CHECK(ggml_last_error() == GGML_ERROR_INVALID_ARGUMENT);
    ggml_clear_last_error();
    TEST_CHECK(ggml_last_error() == GGML_ERROR_OK && ggml_last_error_message()[0] == '\0');
    ggml_free(ctx);
}

static void test_out_of_memory(void) {
    // the first allocation of ggml_init fails: the code is the cause's, whatever the context says
    ggml_clear_last_error();
    test_log_capture_begin();
    test_alloc_fault_set(1);
    struct ggml_context * ctx = ctx_new(1 << 16, false);
    test_alloc_fault_set(0);
    test_log_capture_end();
    TEST_CHECK(ctx == NULL);
    TEST_CHECK_LAST_ERROR(GGML_ERROR_OUT_OF_MEMORY);

    // once allocations succeed again, a later bad argument is a bad argument
    test_log_capture_begin();
    test_alloc_fault_set(1);
    ctx = ctx_new(1 << 16, false);
    test_alloc_fault_set(0);
    struct ggml_context * ok = ctx_new(1 << 16, false);
    struct ggml_tensor * t = ok ? ggml_new_tensor_1d(ok, GGML_TYPE_F32, -1) : NULL;
    test_log_capture_end();
    TEST_CHECK(ctx == NULL && ok != NULL && t == NULL);
    TEST_CHECK_LAST_ERROR(GGML_ERROR_INVALID_ARGUMENT);
    ggml_free(ok);
}

static void test_unsupported(void) {
    // a result already in TEST memory with an op the TEST device cannot run, and the CPU cannot
    // use TEST memory: the scheduler has no backend for it
    ggml_backend_t tb = test_backend_init();
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_context * ctx = ctx_new(8*ggml_tensor_overhead() + ggml_graph_overhead(), true);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * r = ggml_sqr(ctx, a);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, tb);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, r);
    ggml_backend_t backends[2] = { tb, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 64, false);
    TEST_CHECK(buf != NULL && sched != NULL);

    ggml_clear_last_error();
    sink_begin();
    TEST_CHECK(!ggml_backend_sched_alloc_graph(sched, gf));
    sink_end();
    TEST_CHECK_MSG(g_sink_errors >= 1 && g_sink_cont == 0 && g_sink_bad == 0, "%d errors, %d CONT, %d malformed; last: %s",
            g_sink_errors, g_sink_cont, g_sink_bad, g_sink_last);
    TEST_CHECK_MSG(strstr(ggml_last_error_message(), "'") != NULL, "message: %s", ggml_last_error_message());
    TEST_CHECK_LAST_ERROR(GGML_ERROR_UNSUPPORTED);

    // computed directly on the TEST backend: refused as unsupported
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_graph_compute(tb, gf) == GGML_STATUS_FAILED);
    test_log_capture_end();
    TEST_CHECK_LAST_ERROR(GGML_ERROR_UNSUPPORTED);

    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    ggml_backend_free(tb);
}

//
// threads: the last error is per thread, and messages never interleave
//

#define N_ITER 300

static void * fail_many(void * arg) {
    const bool mul_mat = arg != NULL;
    struct ggml_context * ctx = ctx_new(1 << 16, false);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);
    int wrong = 0;
    for (int i = 0; i < N_ITER; i++) {
        ggml_clear_last_error();
        struct ggml_tensor * r = mul_mat ? ggml_mul_mat(ctx, a, b) : ggml_view_1d(ctx, a, 100, 0);
        const char * want = mul_mat ? "ggml_mul_mat" : "ggml_view";
        if (r != NULL || ggml_last_error() != GGML_ERROR_INVALID_ARGUMENT || strstr(ggml_last_error_message(), want) == NULL) {
            wrong++;
        }
    }
    ggml_free(ctx);
    return (void *) (intptr_t) wrong;
}

static void test_threads(void) {
    sink_begin();
    pthread_t th[2];
    pthread_create(&th[0], NULL, fail_many, (void *) 1);
    pthread_create(&th[1], NULL, fail_many, NULL);
    void * wrong[2];
    pthread_join(th[0], &wrong[0]);
    pthread_join(th[1], &wrong[1]);
    sink_end();
    TEST_CHECK_MSG(wrong[0] == NULL && wrong[1] == NULL, "wrong last errors: %d, %d", (int) (intptr_t) wrong[0], (int) (intptr_t) wrong[1]);
    TEST_CHECK_MSG(g_sink_errors == 2*N_ITER && g_sink_cont == 0 && g_sink_bad == 0, "%d errors (want %d), %d CONT, %d malformed",
            g_sink_errors, 2*N_ITER, g_sink_cont, g_sink_bad);

    // another thread's error is not this thread's
    ggml_clear_last_error();
    test_log_capture_begin();
    pthread_create(&th[0], NULL, fail_many, (void *) 1);
    pthread_join(th[0], NULL);
    test_log_capture_end();
    TEST_CHECK(ggml_last_error() == GGML_ERROR_OK);
}

//
// sticky device errors
//

struct tb_graph {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * a;
    struct ggml_tensor * r;
    struct ggml_cgraph * gf;
};

static bool tb_graph_init(struct tb_graph * g, ggml_backend_t be) {
    g->ctx = ctx_new(8*ggml_tensor_overhead() + ggml_graph_overhead(), true);
    g->a   = ggml_new_tensor_1d(g->ctx, GGML_TYPE_F32, 8);
    g->r   = ggml_scale(g->ctx, g->a, 3.0f);
    g->buf = ggml_backend_alloc_ctx_tensors(g->ctx, be);
    g->gf  = ggml_new_graph(g->ctx);
    ggml_build_forward_expand(g->gf, g->r);
    return g->buf != NULL;
}

static void tb_graph_free(struct tb_graph * g) {
    ggml_backend_buffer_free(g->buf);
    ggml_free(g->ctx);
}

// computes r = 3a from fresh input and checks the result
static bool tb_graph_run_checked(struct tb_graph * g, ggml_backend_t be) {
    float x[8], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = 0.5f + (float) i;
    }
    ggml_backend_tensor_set(g->a, x, 0, sizeof(x));
    if (ggml_backend_graph_compute(be, g->gf) != GGML_STATUS_SUCCESS) {
        return false;
    }
    ggml_backend_tensor_get(g->r, y, 0, sizeof(y));
    bool ok = true;
    for (int i = 0; i < 8; i++) {
        ok = ok && y[i] == 3.0f*x[i];  // exact: small multiples of 0.5
    }
    return ok;
}

static void test_sticky_buffer_error(void) {
    ggml_backend_t be = test_backend_init();
    struct tb_graph g;
    TEST_CHECK(tb_graph_init(&g, be));
    TEST_CHECK(tb_graph_run_checked(&g, be));

    // a set_tensor that fails on the device: the call returns nothing, the error stays
    const float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    ggml_clear_last_error();
    test_log_capture_begin();
    test_backend_set_transfer_fail(1);
    ggml_backend_tensor_set(g.a, x, 0, sizeof(x));
    TEST_CHECK_MSG(strstr(ggml_last_error_message(), "injected") != NULL, "message: %s", ggml_last_error_message());
    TEST_CHECK_LAST_ERROR(GGML_ERROR_DEVICE);
    // the next compute of a backend of that device returns it, and does not compute
    struct test_backend_stats before, after;
    test_backend_get_stats(&before);
    const enum ggml_status st = ggml_backend_graph_compute(be, g.gf);
    test_backend_get_stats(&after);
    test_log_capture_end();
    TEST_CHECK(st == GGML_STATUS_FAILED);
    TEST_CHECK(after.n_compute == before.n_compute);
    TEST_CHECK_MSG(strstr(ggml_last_error_message(), "injected") != NULL, "message: %s", ggml_last_error_message());
    TEST_CHECK_LAST_ERROR(GGML_ERROR_DEVICE);
    // returned once: the following computes work again
    TEST_CHECK(tb_graph_run_checked(&g, be));
    TEST_CHECK(ggml_last_error() == GGML_ERROR_OK);

    tb_graph_free(&g);
    ggml_backend_free(be);
}

static void test_sticky_stream_error(void) {
    ggml_backend_t be = test_backend_init();
    struct tb_graph g;
    TEST_CHECK(tb_graph_init(&g, be));

    // an asynchronous set that fails: synchronize sets the last error and keeps it ...
    const float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    test_log_capture_begin();
    test_backend_set_transfer_fail(1);
    ggml_backend_tensor_set_async(be, g.a, x, 0, sizeof(x));
    ggml_clear_last_error();
    ggml_backend_synchronize(be);
    TEST_CHECK_LAST_ERROR(GGML_ERROR_DEVICE);
    ggml_backend_synchronize(be);
    TEST_CHECK_LAST_ERROR(GGML_ERROR_DEVICE);
    // ... for graph_compute to return
    TEST_CHECK(ggml_backend_graph_compute(be, g.gf) == GGML_STATUS_FAILED);
    test_log_capture_end();
    TEST_CHECK_LAST_ERROR(GGML_ERROR_DEVICE);
    TEST_CHECK(tb_graph_run_checked(&g, be));

    // a stream's error is its own: another stream of the device does not see it, and freeing the
    // stream drops it
    ggml_backend_t other = test_backend_init();
    test_log_capture_begin();
    test_backend_set_transfer_fail(1);
    ggml_backend_tensor_set_async(be, g.a, x, 0, sizeof(x));
    test_log_capture_end();
    TEST_CHECK(tb_graph_run_checked(&g, other));
    ggml_backend_free(be);
    be = test_backend_init();
    TEST_CHECK(tb_graph_run_checked(&g, be));

    tb_graph_free(&g);
    ggml_backend_free(other);
    ggml_backend_free(be);
}

//
// test control
//

static void test_test_control(void) {
    test_log_capture_begin();
    ggml_clear_last_error();
    TEST_CHECK(ggml_test_control(0) == -1);
    TEST_CHECK(ggml_test_control(GGML_TEST_COMPONENT_END) == -1);
    TEST_CHECK(ggml_test_control(GGML_TEST_CPU_FIRST + 99) == -1);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();
    TEST_CHECK_LAST_ERROR(GGML_ERROR_INVALID_ARGUMENT);

    // the core's op counts allocations; the CPU backend's op is reached through its handler
    test_alloc_fault_set(0);
    struct ggml_context * ctx = ctx_new(1024, false);
    TEST_CHECK(test_alloc_fault_count() >= 1);
    ggml_free(ctx);
    test_cpu_threadpool_set_create_limit(-1);
}

int main(void) {
    test_one_callback_per_error();
    test_out_of_memory();
    test_unsupported();
    test_threads();
    test_sticky_buffer_error();
    test_sticky_stream_error();
    test_test_control();
    return test_finish("test-last-error");
}
