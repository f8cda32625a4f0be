// Backends (streams), events, devices and the graph utilities, exercised on the TEST backend:
// device queries, graph compute and its error statuses, deferred asynchronous set/get,
// asynchronous copies between streams, events, graph copy (including allocation failures) and
// comparing a graph on two backends.

#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "test-backend.h"
#include "test-common.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int g_errors;
#define ERRORS_OF(stmt) (test_log_capture_begin(), (stmt), g_errors = test_log_error_count(), test_log_capture_end(), g_errors)
#define EXPECT_ERROR(stmt)    TEST_CHECK_MSG(ERRORS_OF(stmt) > 0,  "expected an error from: %s", #stmt)
#define EXPECT_NO_ERROR(stmt) TEST_CHECK_MSG(ERRORS_OF(stmt) == 0, "unexpected error from: %s\n%s", #stmt, test_log_text())

static struct test_backend_stats stats(void) {
    struct test_backend_stats s;
    test_backend_get_stats(&s);
    return s;
}

static void fill_random(float * x, int n) {
    for (int i = 0; i < n; i++) {
        x[i] = (float) test_rand_uniform(0.5, 4.0) * (test_rand_u64() & 1 ? 1.0f : -1.0f);
    }
}

static bool floats_equal(const float * a, const float * b, int n) {
    return memcmp(a, b, (size_t) n * sizeof(float)) == 0;
}

static struct ggml_context * new_ctx(bool no_alloc) {
    struct ggml_init_params p = { 4 << 20, NULL, no_alloc };
    return ggml_init(p);
}

//
// devices
//

static void test_devices(void) {
    ggml_backend_dev_t dev = test_backend_dev(0);
    TEST_CHECK(dev != NULL && test_backend_dev(TEST_BACKEND_N_DEVICES) == NULL);
    TEST_CHECK(strcmp(ggml_backend_dev_name(dev), "TEST") == 0);
    TEST_CHECK(strcmp(ggml_backend_dev_name(test_backend_dev(1)), "TEST1") == 0);
    TEST_CHECK(strlen(ggml_backend_dev_description(dev)) > 0);
    TEST_CHECK(ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_GPU);
    TEST_CHECK(ggml_backend_dev_backend_reg(dev) == test_backend_reg());
    TEST_CHECK(ggml_backend_dev_buffer_type(dev) == test_backend_buffer_type(0));
    ggml_backend_buffer_type_t hb = (ggml_backend_buffer_type_t) 1;
    EXPECT_NO_ERROR(hb = ggml_backend_dev_host_buffer_type(dev));
    TEST_CHECK(hb == NULL);

    size_t free0 = 0, total0 = 0;
    ggml_backend_dev_memory(dev, &free0, &total0);
    TEST_CHECK(total0 == TEST_BACKEND_MEMORY && free0 <= total0);
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(dev), 1 << 20);
    size_t free1 = 0;
    ggml_backend_dev_memory(dev, &free1, NULL); // total not wanted
    TEST_CHECK(free1 == free0 - (1 << 20));
    ggml_backend_buffer_free(buf);

    struct ggml_backend_dev_props props;
    memset(&props, 0x55, sizeof(props));
    ggml_backend_dev_get_props(dev, &props);
    TEST_CHECK(strcmp(props.name, "TEST") == 0);
    TEST_CHECK(props.type == GGML_BACKEND_DEVICE_TYPE_GPU);
    TEST_CHECK(props.memory_total == TEST_BACKEND_MEMORY);
    TEST_CHECK(props.device_id == NULL);
    TEST_CHECK(props.caps.async && props.caps.events && !props.caps.host_buffer && !props.caps.buffer_from_host_ptr);

    // ops and buffer types
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 1);
    struct ggml_tensor * add = ggml_add(ctx, a, b);
    struct ggml_tensor * mm = ggml_mul_mat(ctx, a, a);
    struct ggml_tensor * h = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 8, 4);
    struct ggml_tensor * addh = ggml_add(ctx, h, h);
    TEST_CHECK(add != NULL && mm != NULL && addh != NULL);
    TEST_CHECK(ggml_backend_dev_supports_op(dev, add));
    TEST_CHECK(!ggml_backend_dev_supports_op(dev, mm));
    TEST_CHECK(!ggml_backend_dev_supports_op(dev, addh));
    test_backend_set_op_supported(GGML_OP_ADD, false);
    TEST_CHECK(!ggml_backend_dev_supports_op(dev, add));
    test_backend_set_op_supported(GGML_OP_ADD, true);
    TEST_CHECK(!ggml_backend_dev_offload_op(dev, add));
    test_backend_set_offload(true);
    TEST_CHECK(ggml_backend_dev_offload_op(dev, add));
    test_backend_set_offload(false);
    TEST_CHECK(ggml_backend_dev_supports_buft(dev, test_backend_buffer_type(0)));
    TEST_CHECK(!ggml_backend_dev_supports_buft(dev, test_backend_buffer_type(1)));
    TEST_CHECK(!ggml_backend_dev_supports_buft(dev, ggml_backend_cpu_buffer_type()));

    // not supported by this device
    float host[16];
    ggml_backend_buffer_t hp = (ggml_backend_buffer_t) 1;
    EXPECT_ERROR(hp = ggml_backend_dev_buffer_from_host_ptr(dev, host, sizeof(host), sizeof(host)));
    TEST_CHECK(hp == NULL);

    // NULL arguments
    const char * s = NULL;
    EXPECT_ERROR(s = ggml_backend_dev_name(NULL));
    TEST_CHECK(s != NULL);
    EXPECT_ERROR(s = ggml_backend_dev_description(NULL));
    TEST_CHECK(s != NULL);
    size_t f = 1, t = 1;
    EXPECT_ERROR(ggml_backend_dev_memory(NULL, &f, &t));
    TEST_CHECK(f == 0 && t == 0);
    EXPECT_ERROR(ggml_backend_dev_type(NULL));
    EXPECT_ERROR(ggml_backend_dev_get_props(dev, NULL));
    EXPECT_ERROR(ggml_backend_dev_get_props(NULL, &props));
    TEST_CHECK(props.name == NULL && props.memory_total == 0);
    ggml_backend_reg_t r = (ggml_backend_reg_t) 1;
    EXPECT_ERROR(r = ggml_backend_dev_backend_reg(NULL));
    TEST_CHECK(r == NULL);
    ggml_backend_t be = (ggml_backend_t) 1;
    EXPECT_ERROR(be = ggml_backend_dev_init(NULL, NULL));
    TEST_CHECK(be == NULL);
    EXPECT_ERROR(hb = ggml_backend_dev_buffer_type(NULL));
    TEST_CHECK(hb == NULL);
    EXPECT_ERROR(hb = ggml_backend_dev_host_buffer_type(NULL));
    EXPECT_ERROR(hp = ggml_backend_dev_buffer_from_host_ptr(NULL, host, 4, 4));
    TEST_CHECK(hp == NULL);
    EXPECT_ERROR(hp = ggml_backend_dev_buffer_from_host_ptr(dev, NULL, 4, 4));
    bool ok = true;
    EXPECT_ERROR(ok = ggml_backend_dev_supports_op(NULL, add));
    TEST_CHECK(!ok);
    ok = true;
    EXPECT_ERROR(ok = ggml_backend_dev_supports_op(dev, NULL));
    TEST_CHECK(!ok);
    ok = true;
    EXPECT_ERROR(ok = ggml_backend_dev_supports_buft(dev, NULL));
    TEST_CHECK(!ok);
    ok = true;
    EXPECT_ERROR(ok = ggml_backend_dev_offload_op(NULL, add));
    TEST_CHECK(!ok);

    // a device that implements only the required members
    struct ggml_backend_device bare;
    memset(&bare, 0, sizeof(bare));
    EXPECT_NO_ERROR(hb = ggml_backend_dev_host_buffer_type(&bare));
    TEST_CHECK(hb == NULL);
    ggml_backend_event_t ev = (ggml_backend_event_t) 1;
    EXPECT_NO_ERROR(ev = ggml_backend_event_new(&bare)); // no events: NULL, not an error
    TEST_CHECK(ev == NULL);
    TEST_CHECK(!ggml_backend_dev_offload_op(&bare, add));
    EXPECT_ERROR(be = ggml_backend_dev_init(&bare, "x"));
    TEST_CHECK(be == NULL);

    ggml_free(ctx);
}

//
// backends
//

static void test_backend_basics(void) {
    ggml_backend_t be = test_backend_init();
    TEST_CHECK(be != NULL);
    if (be == NULL) {
        return;
    }
    TEST_CHECK(test_backend_is_test(be));
    TEST_CHECK(ggml_guid_matches(ggml_backend_guid(be), ggml_backend_guid(be)));
    TEST_CHECK(strcmp(ggml_backend_name(be), "TEST") == 0);
    TEST_CHECK(ggml_backend_get_device(be) == test_backend_dev(0));
    TEST_CHECK(ggml_backend_get_default_buffer_type(be) == test_backend_buffer_type(0));
    TEST_CHECK(ggml_backend_get_alignment(be) == TEST_BACKEND_ALIGNMENT);
    TEST_CHECK(ggml_backend_get_max_size(be) == SIZE_MAX);
    ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(be, 4096);
    TEST_CHECK(buf != NULL && ggml_backend_buffer_get_type(buf) == test_backend_buffer_type(0));
    ggml_backend_buffer_free(buf);
    TEST_CHECK(ggml_backend_supports_buft(be, test_backend_buffer_type(0)));
    TEST_CHECK(!ggml_backend_supports_buft(be, ggml_backend_cpu_buffer_type()));

    // set_n_threads through the registry's proc address
    ggml_backend_set_n_threads_t set_n_threads =
        (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(test_backend_reg(), "ggml_backend_set_n_threads");
    TEST_CHECK(set_n_threads != NULL);
    if (set_n_threads != NULL) {
        set_n_threads(be, 3);
        TEST_CHECK(test_backend_get_n_threads(be) == 3);
    }

    // graph plans: this backend has none
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_backend_graph_plan_t plan = (ggml_backend_graph_plan_t) 1;
    EXPECT_ERROR(plan = ggml_backend_graph_plan_create(be, g));
    TEST_CHECK(plan == NULL);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    EXPECT_ERROR(st = ggml_backend_graph_plan_compute(be, (ggml_backend_graph_plan_t) &st));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_NO_ERROR(ggml_backend_graph_plan_free(be, NULL));
    EXPECT_ERROR(ggml_backend_graph_plan_free(be, (ggml_backend_graph_plan_t) &st));
    EXPECT_ERROR(plan = ggml_backend_graph_plan_create(be, NULL));
    TEST_CHECK(plan == NULL);
    ggml_free(ctx);

    // NULL backend
    const char * null_name = NULL;
    EXPECT_ERROR(null_name = ggml_backend_name(NULL));
    TEST_CHECK(null_name != NULL && strcmp(null_name, "NULL") == 0);
    EXPECT_NO_ERROR(ggml_backend_free(NULL));
    ggml_guid_t gid = (ggml_guid_t) 1;
    EXPECT_ERROR(gid = ggml_backend_guid(NULL));
    TEST_CHECK(gid == NULL);
    ggml_backend_buffer_type_t bt = (ggml_backend_buffer_type_t) 1;
    EXPECT_ERROR(bt = ggml_backend_get_default_buffer_type(NULL));
    TEST_CHECK(bt == NULL);
    EXPECT_ERROR(buf = ggml_backend_alloc_buffer(NULL, 16));
    TEST_CHECK(buf == NULL);
    size_t v = 1;
    EXPECT_ERROR(v = ggml_backend_get_alignment(NULL));
    TEST_CHECK(v == 0);
    EXPECT_ERROR(v = ggml_backend_get_max_size(NULL));
    TEST_CHECK(v == 0);
    EXPECT_ERROR(ggml_backend_synchronize(NULL));
    EXPECT_ERROR(st = ggml_backend_graph_compute(NULL, NULL));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    bool ok = true;
    EXPECT_ERROR(ok = ggml_backend_supports_op(NULL, NULL));
    TEST_CHECK(!ok);
    ok = true;
    EXPECT_ERROR(ok = ggml_backend_supports_buft(NULL, ggml_backend_cpu_buffer_type()));
    TEST_CHECK(!ok);
    ok = true;
    EXPECT_ERROR(ok = ggml_backend_offload_op(NULL, NULL));
    TEST_CHECK(!ok);
    ggml_backend_dev_t d = (ggml_backend_dev_t) 1;
    EXPECT_ERROR(d = ggml_backend_get_device(NULL));
    TEST_CHECK(d == NULL);

    ggml_backend_free(be);
    TEST_CHECK(stats().backends_alive == 0);
}

//
// graphs on the TEST backend
//

// a: [8, 4], b: [8, 1] (broadcast); c = a + b; d = c * a; e = scale_bias(d, 0.5, 1); out <- cpy(e)
struct test_graph {
    struct ggml_context * ctx;
    struct ggml_tensor * a, * b, * c, * d, * e, * out, * cpy;
    struct ggml_cgraph * graph;
    ggml_backend_buffer_t buffer;
    float va[32], vb[8];
};

enum { GA = 32, GB = 8 };

static bool test_graph_build(struct test_graph * tg, ggml_backend_buffer_type_t buft) {
    memset(tg, 0, sizeof(*tg));
    tg->ctx = new_ctx(true);
    tg->a = ggml_new_tensor_2d(tg->ctx, GGML_TYPE_F32, 8, 4);
    tg->b = ggml_new_tensor_2d(tg->ctx, GGML_TYPE_F32, 8, 1);
    ggml_set_name(tg->a, "a");
    ggml_set_name(tg->b, "b");
    tg->c = ggml_add(tg->ctx, tg->a, tg->b);
    tg->d = ggml_mul(tg->ctx, tg->c, tg->a);
    tg->e = ggml_scale_bias(tg->ctx, tg->d, 0.5f, 1.0f);
    tg->out = ggml_new_tensor_2d(tg->ctx, GGML_TYPE_F32, 8, 4);
    ggml_set_name(tg->out, "out");
    tg->cpy = ggml_cpy(tg->ctx, tg->e, tg->out);
    if (tg->c == NULL || tg->d == NULL || tg->e == NULL || tg->cpy == NULL) {
        TEST_CHECK_MSG(false, "cannot build the test graph");
        return false;
    }
    tg->graph = ggml_new_graph(tg->ctx);
    ggml_build_forward_expand(tg->graph, tg->cpy);
    TEST_CHECK(ggml_graph_n_nodes(tg->graph) == 4);

    // place every non-view tensor, then the views
    size_t align = ggml_backend_buft_get_alignment(buft);
    size_t total = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(tg->ctx); t != NULL; t = ggml_get_next_tensor(tg->ctx, t)) {
        if (t->view_src == NULL) {
            total += GGML_PAD(ggml_backend_buft_get_alloc_size(buft, t), align);
        }
    }
    tg->buffer = ggml_backend_buft_alloc_buffer(buft, total);
    if (tg->buffer == NULL) {
        TEST_CHECK_MSG(false, "cannot allocate %zu bytes for the test graph", total);
        return false;
    }
    char * p = (char *) ggml_backend_buffer_get_base(tg->buffer);
    for (struct ggml_tensor * t = ggml_get_first_tensor(tg->ctx); t != NULL; t = ggml_get_next_tensor(tg->ctx, t)) {
        if (t->view_src == NULL) {
            TEST_CHECK(ggml_backend_tensor_alloc(tg->buffer, t, p) == GGML_STATUS_SUCCESS);
            p += GGML_PAD(ggml_backend_buft_get_alloc_size(buft, t), align);
        }
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(tg->ctx); t != NULL; t = ggml_get_next_tensor(tg->ctx, t)) {
        if (t->view_src != NULL) {
            TEST_CHECK(ggml_backend_view_init(t) == GGML_STATUS_SUCCESS);
        }
    }
    fill_random(tg->va, GA);
    fill_random(tg->vb, GB);
    ggml_backend_tensor_set(tg->a, tg->va, 0, sizeof(tg->va));
    ggml_backend_tensor_set(tg->b, tg->vb, 0, sizeof(tg->vb));
    float zero[32] = { 0 };
    ggml_backend_tensor_set(tg->out, zero, 0, sizeof(zero));
    return true;
}

static void test_graph_free(struct test_graph * tg) {
    ggml_backend_buffer_free(tg->buffer);
    ggml_free(tg->ctx);
}

// the expected value of out[i], computed here in double precision
static double test_graph_expected(const struct test_graph * tg, int i) {
    const double c = (double) tg->va[i] + (double) tg->vb[i % 8];
    const double d = c * tg->va[i];
    return d * 0.5 + 1.0;
}

static bool test_graph_check(const struct test_graph * tg, const float * out) {
    for (int i = 0; i < GA; i++) {
        const double want = test_graph_expected(tg, i);
        if (fabs(out[i] - want) > 1e-5 * (1.0 + fabs(want))) {
            fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], want);
            return false;
        }
    }
    return true;
}

static void test_graph_compute(void) {
    ggml_backend_t be = test_backend_init();
    struct test_graph tg;
    if (!test_graph_build(&tg, test_backend_buffer_type(0))) {
        test_graph_free(&tg);
        ggml_backend_free(be);
        return;
    }
    long nodes0 = stats().n_nodes_computed;
    enum ggml_status st = GGML_STATUS_FAILED;
    EXPECT_NO_ERROR(st = ggml_backend_graph_compute(be, tg.graph));
    TEST_CHECK(st == GGML_STATUS_SUCCESS);
    TEST_CHECK(stats().n_nodes_computed == nodes0 + 4);
    float out[GA];
    ggml_backend_tensor_get(tg.out, out, 0, sizeof(out));
    TEST_CHECK_MSG(test_graph_check(&tg, out), "TEST backend results differ from the reference");

    // async compute then synchronize gives the same
    float zero[GA] = { 0 };
    ggml_backend_tensor_set(tg.out, zero, 0, sizeof(zero));
    TEST_CHECK(ggml_backend_graph_compute_async(be, tg.graph) == GGML_STATUS_SUCCESS);
    ggml_backend_synchronize(be);
    ggml_backend_tensor_get(tg.out, out, 0, sizeof(out));
    TEST_CHECK(test_graph_check(&tg, out));

    // errors: NULL graph, overflowed graph, unsupported op, tensors in the wrong memory
    EXPECT_ERROR(st = ggml_backend_graph_compute(be, NULL));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    tg.graph->overflow = true;
    EXPECT_ERROR(st = ggml_backend_graph_compute(be, tg.graph));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_ERROR(st = ggml_backend_graph_compute_async(be, tg.graph));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    tg.graph->overflow = false;

    test_backend_set_op_supported(GGML_OP_MUL, false);
    EXPECT_ERROR(st = ggml_backend_graph_compute(be, tg.graph));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    test_backend_set_op_supported(GGML_OP_MUL, true);

    // a node built by hand with an op the backend does not have
    struct ggml_tensor * sub = ggml_new_tensor_2d(tg.ctx, GGML_TYPE_F32, 8, 4);
    sub->op = GGML_OP_SUB;
    sub->src[0] = tg.a;
    sub->src[1] = tg.a;
    struct ggml_cgraph * g2 = ggml_new_graph(tg.ctx);
    ggml_build_forward_expand(g2, sub);
    EXPECT_ERROR(st = ggml_backend_graph_compute(be, g2)); // sub has no memory: refused by the wrapper
    TEST_CHECK(st == GGML_STATUS_FAILED);
    sub->data = tg.c->data;
    sub->buffer = tg.c->buffer;
    EXPECT_ERROR(st = ggml_backend_graph_compute(be, g2)); // refused by the backend
    TEST_CHECK(st == GGML_STATUS_FAILED);

    // the same graph on the second device: its memory is not this device's
    ggml_backend_t be1 = test_backend_init_dev(1);
    long bad = stats().n_bad_access;
    EXPECT_ERROR(st = ggml_backend_graph_compute(be1, tg.graph));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    TEST_CHECK(stats().n_bad_access == bad);
    ggml_backend_free(be1);

    // a graph in host memory
    struct ggml_context * hctx = new_ctx(false);
    struct ggml_tensor * ha = ggml_new_tensor_1d(hctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * hb = ggml_add(hctx, ha, ha);
    struct ggml_cgraph * hg = ggml_new_graph(hctx);
    ggml_build_forward_expand(hg, hb);
    EXPECT_ERROR(st = ggml_backend_graph_compute(be, hg));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    ggml_free(hctx);

    test_graph_free(&tg);
    ggml_backend_free(be);
}

//
// asynchronous access
//

static void test_async(void) {
    enum { N = 32 };
    ggml_backend_t be = test_backend_init();
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(be, ggml_nbytes(t));
    ggml_backend_tensor_alloc(buf, t, ggml_backend_buffer_get_base(buf));

    float src[N], dst[N], peek[N];
    fill_random(src, N);
    float old[N];
    fill_random(old, N);
    ggml_backend_tensor_set(t, old, 0, sizeof(old));

    EXPECT_NO_ERROR(ggml_backend_tensor_set_async(be, t, src, 0, sizeof(src)));
    TEST_CHECK(test_backend_n_pending(be) == 1);
    test_backend_peek(t, peek, 0, sizeof(peek));
    TEST_CHECK_MSG(floats_equal(peek, old, N), "the asynchronous set happened before synchronize");
    ggml_backend_synchronize(be);
    TEST_CHECK(test_backend_n_pending(be) == 0);
    test_backend_peek(t, peek, 0, sizeof(peek));
    TEST_CHECK(floats_equal(peek, src, N));

    for (int i = 0; i < N; i++) {
        dst[i] = -99.0f;
    }
    EXPECT_NO_ERROR(ggml_backend_tensor_get_async(be, t, dst, 0, sizeof(dst)));
    TEST_CHECK(dst[0] == -99.0f && dst[N - 1] == -99.0f);
    ggml_backend_synchronize(be);
    TEST_CHECK(floats_equal(dst, src, N));

    // in order: a set then a get of the same bytes, before one synchronize
    float part[4] = { 1.5f, 2.5f, 3.5f, 4.5f };
    float part_back[4] = { 0, 0, 0, 0 };
    ggml_backend_tensor_set_async(be, t, part, 8, sizeof(part));
    ggml_backend_tensor_get_async(be, t, part_back, 8, sizeof(part_back));
    TEST_CHECK(test_backend_n_pending(be) == 2);
    ggml_backend_synchronize(be);
    TEST_CHECK(floats_equal(part, part_back, 4));

    // 2-D: this backend has no 2-D async member, so the wrapper queues one set per block
    float rows[4] = { 7, 8, 9, 10 };
    ggml_backend_tensor_set_2d_async(be, t, rows, 0, 2*sizeof(float), 2, 16*sizeof(float), 2*sizeof(float));
    TEST_CHECK(test_backend_n_pending(be) == 2);
    ggml_backend_synchronize(be);
    float got[N];
    ggml_backend_tensor_get(t, got, 0, sizeof(got));
    TEST_CHECK(got[0] == 7 && got[1] == 8 && got[16] == 9 && got[17] == 10);
    float rows_back[4] = { 0, 0, 0, 0 };
    ggml_backend_tensor_get_2d_async(be, t, rows_back, 0, 2*sizeof(float), 2, 16*sizeof(float), 2*sizeof(float));
    ggml_backend_synchronize(be);
    TEST_CHECK(floats_equal(rows, rows_back, 4));

    // errors
    EXPECT_ERROR(ggml_backend_tensor_set_async(NULL, t, src, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_get_async(NULL, t, dst, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_set_async(be, t, src, 4, sizeof(src)));
    EXPECT_ERROR(ggml_backend_tensor_get_async(be, t, dst, 0, sizeof(src) + 1));
    EXPECT_ERROR(ggml_backend_tensor_set_async(be, NULL, src, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_set_2d_async(be, t, src, 0, 8, 5, 32, 8));
    TEST_CHECK(test_backend_n_pending(be) == 0);

    // a tensor in host memory: the TEST backend cannot take it, so the wrapper does it at once
    ggml_backend_buffer_t hbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), ggml_nbytes(t));
    struct ggml_tensor * h = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    ggml_backend_tensor_alloc(hbuf, h, ggml_backend_buffer_get_base(hbuf));
    long n_async = stats().n_set_async;
    ggml_backend_tensor_set_async(be, h, src, 0, sizeof(src));
    TEST_CHECK(stats().n_set_async == n_async);
    TEST_CHECK(floats_equal((const float *) h->data, src, N));

    ggml_backend_buffer_free(hbuf);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(be);
}

static void test_copy_async(void) {
    enum { N = 16 };
    ggml_backend_t b0 = test_backend_init_dev(0);
    ggml_backend_t b1 = test_backend_init_dev(1);
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    struct ggml_tensor * y = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    struct ggml_tensor * h = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    ggml_backend_buffer_t bx = ggml_backend_alloc_buffer(b0, ggml_nbytes(x));
    ggml_backend_buffer_t by = ggml_backend_alloc_buffer(b1, ggml_nbytes(y));
    ggml_backend_buffer_t bh = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), ggml_nbytes(h));
    ggml_backend_tensor_alloc(bx, x, ggml_backend_buffer_get_base(bx));
    ggml_backend_tensor_alloc(by, y, ggml_backend_buffer_get_base(by));
    ggml_backend_tensor_alloc(bh, h, ggml_backend_buffer_get_base(bh));

    float v[N], got[N];
    fill_random(v, N);
    // the source's data is still queued on b0: the copy must come after it
    ggml_backend_tensor_set_async(b0, x, v, 0, sizeof(v));
    long n0 = stats().n_cpy_async;
    EXPECT_NO_ERROR(ggml_backend_tensor_copy_async(b0, b1, x, y));
    TEST_CHECK(stats().n_cpy_async == n0 + 1);
    ggml_backend_synchronize(b1);
    ggml_backend_tensor_get(y, got, 0, sizeof(got));
    TEST_CHECK_MSG(floats_equal(got, v, N), "asynchronous copy TEST -> TEST1");

    // without the asynchronous path: synchronize both and copy
    fill_random(v, N);
    ggml_backend_tensor_set_async(b1, y, v, 0, sizeof(v));
    test_backend_set_cpy_async(false);
    EXPECT_NO_ERROR(ggml_backend_tensor_copy_async(b1, b0, y, x));
    test_backend_set_cpy_async(true);
    TEST_CHECK(stats().n_cpy_async == n0 + 1);
    ggml_backend_tensor_get(x, got, 0, sizeof(got));
    TEST_CHECK_MSG(floats_equal(got, v, N), "fallback copy TEST1 -> TEST");

    // host to device and back through the asynchronous API (falls back)
    fill_random(v, N);
    ggml_backend_tensor_set(h, v, 0, sizeof(v));
    ggml_backend_tensor_copy_async(b0, b0, h, x);
    ggml_backend_synchronize(b0);
    ggml_backend_tensor_get(x, got, 0, sizeof(got));
    TEST_CHECK(floats_equal(got, v, N));
    float zero[N] = { 0 };
    ggml_backend_tensor_set(h, zero, 0, sizeof(zero));
    ggml_backend_tensor_copy_async(b0, b0, x, h);
    ggml_backend_synchronize(b0);
    TEST_CHECK(floats_equal((const float *) h->data, v, N));

    // errors
    EXPECT_ERROR(ggml_backend_tensor_copy_async(NULL, b0, x, y));
    EXPECT_ERROR(ggml_backend_tensor_copy_async(b0, b1, x, NULL));
    struct ggml_tensor * small = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N / 2);
    EXPECT_ERROR(ggml_backend_tensor_copy_async(b0, b1, small, y));

    ggml_backend_buffer_free(bx);
    ggml_backend_buffer_free(by);
    ggml_backend_buffer_free(bh);
    ggml_free(ctx);
    ggml_backend_free(b0);
    ggml_backend_free(b1);
}

//
// events
//

static void test_events(void) {
    enum { N = 8 };
    ggml_backend_t b0 = test_backend_init_dev(0);
    ggml_backend_t b1 = test_backend_init_dev(0);
    ggml_backend_event_t ev = ggml_backend_event_new(test_backend_dev(0));
    TEST_CHECK(ev != NULL);
    TEST_CHECK(stats().events_alive == 1);
    if (ev == NULL) {
        ggml_backend_free(b0);
        ggml_backend_free(b1);
        return;
    }
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(b0, ggml_nbytes(t));
    ggml_backend_tensor_alloc(buf, t, ggml_backend_buffer_get_base(buf));

    // record after a queued write; synchronizing the event completes the write
    float v[N], peek[N];
    fill_random(v, N);
    struct test_backend_stats s0 = stats();
    ggml_backend_tensor_set_async(b0, t, v, 0, sizeof(v));
    EXPECT_NO_ERROR(ggml_backend_event_record(ev, b0));
    TEST_CHECK(test_backend_n_pending(b0) == 2);
    EXPECT_NO_ERROR(ggml_backend_event_synchronize(ev));
    TEST_CHECK(test_backend_n_pending(b0) == 0);
    test_backend_peek(t, peek, 0, sizeof(peek));
    TEST_CHECK(floats_equal(peek, v, N));

    // another stream waits for the event: the recording stream's earlier work is done first
    fill_random(v, N);
    ggml_backend_tensor_set_async(b0, t, v, 0, sizeof(v));
    ggml_backend_event_record(ev, b0);
    EXPECT_NO_ERROR(ggml_backend_event_wait(b1, ev));
    TEST_CHECK(test_backend_n_pending(b0) == 0);
    float got[N];
    ggml_backend_tensor_get_async(b1, t, got, 0, sizeof(got));
    ggml_backend_synchronize(b1);
    TEST_CHECK(floats_equal(got, v, N));

    // waiting on the stream that recorded it changes nothing
    ggml_backend_tensor_set_async(b0, t, v, 0, sizeof(v));
    ggml_backend_event_record(ev, b0);
    ggml_backend_event_wait(b0, ev);
    TEST_CHECK(test_backend_n_pending(b0) == 2);
    ggml_backend_synchronize(b0);

    struct test_backend_stats s1 = stats();
    TEST_CHECK(s1.n_event_record == s0.n_event_record + 3);
    TEST_CHECK(s1.n_event_wait == s0.n_event_wait + 2);
    TEST_CHECK(s1.n_event_sync == s0.n_event_sync + 1);

    // an event whose stream is gone can still be synchronized and freed
    ggml_backend_t b2 = test_backend_init_dev(0);
    ggml_backend_event_record(ev, b2);
    ggml_backend_free(b2);
    EXPECT_NO_ERROR(ggml_backend_event_synchronize(ev));

    // errors
    ggml_backend_event_t e2 = (ggml_backend_event_t) 1;
    EXPECT_ERROR(e2 = ggml_backend_event_new(NULL));
    TEST_CHECK(e2 == NULL);
    EXPECT_ERROR(ggml_backend_event_record(NULL, b0));
    EXPECT_ERROR(ggml_backend_event_record(ev, NULL));
    EXPECT_ERROR(ggml_backend_event_synchronize(NULL));
    EXPECT_ERROR(ggml_backend_event_wait(NULL, ev));
    EXPECT_ERROR(ggml_backend_event_wait(b0, NULL));
    EXPECT_NO_ERROR(ggml_backend_event_free(NULL));

    // a backend without event support
    struct ggml_backend plain;
    memset(&plain, 0, sizeof(plain));
    EXPECT_ERROR(ggml_backend_event_record(ev, &plain));
    EXPECT_ERROR(ggml_backend_event_wait(&plain, ev));
    EXPECT_NO_ERROR(ggml_backend_synchronize(&plain)); // no synchronize member: nothing to wait for

    // out of memory creating an event
    for (long n = 1; n <= 2; n++) {
        test_alloc_fault_set(n);
        e2 = ggml_backend_event_new(test_backend_dev(0));
        test_alloc_fault_set(0);
        TEST_CHECK(e2 == NULL);
    }

    ggml_backend_event_free(ev);
    TEST_CHECK(stats().events_alive == 0);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(b0);
    ggml_backend_free(b1);
}

//
// graph copy and comparison
//

static void test_graph_copy(void) {
    ggml_backend_t be0 = test_backend_init_dev(0);
    ggml_backend_t be1 = test_backend_init_dev(1);
    struct test_graph tg;
    if (!test_graph_build(&tg, test_backend_buffer_type(0))) {
        test_graph_free(&tg);
        ggml_backend_free(be0);
        ggml_backend_free(be1);
        return;
    }
    long alive = stats().buffers_alive;

    struct ggml_backend_graph_copy cp = ggml_backend_graph_copy(be1, tg.graph);
    TEST_CHECK(cp.buffer != NULL && cp.graph != NULL && cp.ctx_allocated != NULL && cp.ctx_unallocated != NULL);
    if (cp.graph != NULL) {
        TEST_CHECK(ggml_graph_n_nodes(cp.graph) == ggml_graph_n_nodes(tg.graph));
        TEST_CHECK(ggml_backend_buffer_get_type(cp.buffer) == test_backend_buffer_type(1));
        // the inputs came along
        struct ggml_tensor * a1 = ggml_graph_node(cp.graph, 0)->src[0];
        TEST_CHECK(a1 != NULL && strcmp(a1->name, "a") == 0);
        float got[GA];
        ggml_backend_tensor_get(a1, got, 0, sizeof(got));
        TEST_CHECK(floats_equal(got, tg.va, GA));
        // and it computes on the other device
        TEST_CHECK(ggml_backend_graph_compute(be1, cp.graph) == GGML_STATUS_SUCCESS);
        struct ggml_tensor * out1 = ggml_graph_node(cp.graph, -1);
        ggml_backend_tensor_get(out1, got, 0, sizeof(got));
        TEST_CHECK_MSG(test_graph_check(&tg, got), "the copied graph computes other results");
        ggml_backend_graph_copy_free(cp);
    }
    TEST_CHECK(stats().buffers_alive == alive);

    // the destination cannot allocate: every member NULL, nothing left behind
    test_backend_set_alloc_fail(1);
    EXPECT_ERROR(cp = ggml_backend_graph_copy(be1, tg.graph));
    test_backend_set_alloc_fail(0);
    TEST_CHECK(cp.buffer == NULL && cp.graph == NULL && cp.ctx_allocated == NULL && cp.ctx_unallocated == NULL);
    TEST_CHECK(stats().buffers_alive == alive);
    EXPECT_NO_ERROR(ggml_backend_graph_copy_free(cp));

    // every host allocation of the copy fails in turn
    int n_fail = 0;
    for (long n = 1; n < 64; n++) {
        test_alloc_fault_set(n);
        test_log_capture_begin();
        cp = ggml_backend_graph_copy(be1, tg.graph);
        test_log_capture_end();
        test_alloc_fault_set(0);
        if (cp.graph == NULL) {
            n_fail++;
            TEST_CHECK(cp.buffer == NULL && cp.ctx_allocated == NULL && cp.ctx_unallocated == NULL);
        } else {
            ggml_backend_graph_copy_free(cp);
            break; // the n-th allocation is past the copy's last: done
        }
    }
    TEST_CHECK(n_fail > 0);
    TEST_CHECK(stats().buffers_alive == alive);

    // the device fails to initialize the n-th tensor: during allocation, or later while the
    // views are attached (after the buffer exists)
    int n_init_fail = 0;
    for (long n = 1; n <= 12; n++) {
        test_backend_set_init_tensor_fail(n);
        test_log_capture_begin();
        cp = ggml_backend_graph_copy(be1, tg.graph);
        test_log_capture_end();
        test_backend_set_init_tensor_fail(0);
        if (cp.graph == NULL) {
            n_init_fail++;
            TEST_CHECK(cp.buffer == NULL && cp.ctx_allocated == NULL && cp.ctx_unallocated == NULL);
        } else {
            ggml_backend_graph_copy_free(cp);
        }
        TEST_CHECK_MSG(stats().buffers_alive == alive, "init failure %ld leaked a buffer", n);
    }
    TEST_CHECK(n_init_fail >= 7); // 6 tensors with memory and 1 view

    // bad input
    EXPECT_ERROR(cp = ggml_backend_graph_copy(NULL, tg.graph));
    TEST_CHECK(cp.graph == NULL);
    EXPECT_ERROR(cp = ggml_backend_graph_copy(be1, NULL));
    TEST_CHECK(cp.graph == NULL);
    tg.graph->overflow = true;
    EXPECT_ERROR(cp = ggml_backend_graph_copy(be1, tg.graph));
    TEST_CHECK(cp.graph == NULL);
    tg.graph->overflow = false;
    struct ggml_cgraph * empty = ggml_new_graph(tg.ctx);
    EXPECT_ERROR(cp = ggml_backend_graph_copy(be1, empty));
    TEST_CHECK(cp.graph == NULL);

    // a graph view (no hash set of its own) copies too
    struct ggml_cgraph view = ggml_graph_view(tg.graph, 1, 3);
    cp = ggml_backend_graph_copy(be1, &view);
    TEST_CHECK(cp.graph != NULL && cp.graph != NULL && ggml_graph_n_nodes(cp.graph) == 2);
    ggml_backend_graph_copy_free(cp);

    // a graph in a context's own memory copies to the device
    struct ggml_context * hctx = new_ctx(false);
    struct ggml_tensor * ha = ggml_new_tensor_1d(hctx, GGML_TYPE_F32, 4);
    float hv[4] = { 1.25f, -2.5f, 3.75f, -5.0f };
    memcpy(ha->data, hv, sizeof(hv));
    struct ggml_tensor * hs = ggml_scale(hctx, ha, 2.0f);
    struct ggml_cgraph * hg = ggml_new_graph(hctx);
    ggml_build_forward_expand(hg, hs);
    cp = ggml_backend_graph_copy(be0, hg);
    TEST_CHECK(cp.graph != NULL);
    if (cp.graph != NULL) {
        TEST_CHECK(ggml_backend_graph_compute(be0, cp.graph) == GGML_STATUS_SUCCESS);
        float got[4];
        ggml_backend_tensor_get(ggml_graph_node(cp.graph, 0), got, 0, sizeof(got));
        TEST_CHECK(got[0] == 2.5f && got[1] == -5.0f && got[2] == 7.5f && got[3] == -10.0f);
        ggml_backend_graph_copy_free(cp);
    }
    // an unallocated graph cannot be copied
    struct ggml_context * uctx = new_ctx(true);
    struct ggml_tensor * ua = ggml_new_tensor_1d(uctx, GGML_TYPE_F32, 4);
    struct ggml_cgraph * ug = ggml_new_graph(uctx);
    ggml_build_forward_expand(ug, ggml_scale(uctx, ua, 2.0f));
    EXPECT_ERROR(cp = ggml_backend_graph_copy(be0, ug));
    TEST_CHECK(cp.graph == NULL);
    ggml_free(uctx);
    ggml_free(hctx);

    test_graph_free(&tg);
    ggml_backend_free(be0);
    ggml_backend_free(be1);
}

struct compare_state {
    int n_calls;
    int n_equal;
    int stop_after;  // stop when n_calls reaches this (0: never)
    int last_index;
};

static bool compare_cb(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2, void * user_data) {
    struct compare_state * cs = (struct compare_state *) user_data;
    cs->n_calls++;
    cs->last_index = node_index;
    const size_t n = ggml_nbytes(t1);
    if (n == ggml_nbytes(t2) && n <= 1024) {
        float v1[256], v2[256];
        ggml_backend_tensor_get(t1, v1, 0, n);
        ggml_backend_tensor_get(t2, v2, 0, n);
        bool nonzero = false;
        for (size_t i = 0; i < n / sizeof(float); i++) {
            nonzero = nonzero || v1[i] != 0.0f;
        }
        if (memcmp(v1, v2, n) == 0 && nonzero) {
            cs->n_equal++;
        }
    }
    return cs->stop_after == 0 || cs->n_calls < cs->stop_after;
}

static void test_compare(void) {
    ggml_backend_t be0 = test_backend_init_dev(0);
    ggml_backend_t be1 = test_backend_init_dev(0); // another instance on the same device
    struct test_graph tg;
    if (!test_graph_build(&tg, test_backend_buffer_type(0))) {
        test_graph_free(&tg);
        ggml_backend_free(be0);
        ggml_backend_free(be1);
        return;
    }
    long alive = stats().buffers_alive;

    // seed form: every node, one by one
    struct compare_state cs = { 0, 0, 0, -1 };
    bool ok = false;
    EXPECT_NO_ERROR(ok = ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs));
    TEST_CHECK(ok);
    TEST_CHECK_MSG(cs.n_calls == 4 && cs.n_equal == 4, "calls %d, equal %d", cs.n_calls, cs.n_equal);
    float out[GA];
    ggml_backend_tensor_get(tg.out, out, 0, sizeof(out));
    TEST_CHECK(test_graph_check(&tg, out));

    // the callback stops it
    struct compare_state cs2 = { 0, 0, 2, -1 };
    TEST_CHECK(ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs2));
    TEST_CHECK(cs2.n_calls == 2);

    // current form: only the listed nodes
    struct ggml_tensor * wanted[1] = { tg.e };
    struct compare_state cs3 = { 0, 0, 0, -1 };
    ok = ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs3, wanted, 1);
    TEST_CHECK(ok);
    TEST_CHECK(cs3.n_calls == 1 && cs3.n_equal == 1 && cs3.last_index == 2);
    const struct ggml_tensor * const cwanted[2] = { tg.c, tg.d };
    struct compare_state cs4 = { 0, 0, 0, -1 };
    TEST_CHECK(ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs4, cwanted, 2));
    TEST_CHECK(cs4.n_calls == 2 && cs4.n_equal == 2);
    // NULL list and count 0: the seed behaviour
    struct compare_state cs5 = { 0, 0, 0, -1 };
    TEST_CHECK(ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs5, NULL, 0));
    TEST_CHECK(cs5.n_calls == 4);
    // NULL callback: just runs
    TEST_CHECK(ggml_backend_compare_graph_backend(be0, be1, tg.graph, NULL, NULL));

    // failures
    struct ggml_tensor * foreign[1] = { tg.a }; // a leaf, not a node
    EXPECT_ERROR(ok = ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs3, foreign, 1));
    TEST_CHECK(!ok);
    EXPECT_ERROR(ok = ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs3, NULL, 3));
    TEST_CHECK(!ok);
    EXPECT_ERROR(ok = ggml_backend_compare_graph_backend(be0, be1, NULL, compare_cb, &cs3));
    TEST_CHECK(!ok);
    EXPECT_ERROR(ok = ggml_backend_compare_graph_backend(NULL, be1, tg.graph, compare_cb, &cs3));
    TEST_CHECK(!ok);
    test_backend_set_alloc_fail(1);
    EXPECT_ERROR(ok = ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs3));
    test_backend_set_alloc_fail(0);
    TEST_CHECK(!ok);
    test_backend_set_op_supported(GGML_OP_SCALE, false);
    struct compare_state cs6 = { 0, 0, 0, -1 };
    EXPECT_ERROR(ok = ggml_backend_compare_graph_backend(be0, be1, tg.graph, compare_cb, &cs6));
    test_backend_set_op_supported(GGML_OP_SCALE, true);
    TEST_CHECK(!ok);
    TEST_CHECK(cs6.n_calls == 2); // ADD and MUL were compared before SCALE failed
    TEST_CHECK(stats().buffers_alive == alive);

    test_graph_free(&tg);
    ggml_backend_free(be0);
    ggml_backend_free(be1);
}

// Both call forms of the two macro-dispatched functions compile (checked without calling them:
// sizeof does not evaluate its operand).
static void test_call_forms(void) {
    ggml_backend_t bs[1] = { NULL };
    TEST_CHECK(sizeof(ggml_backend_sched_new(bs, NULL, 1, 16, false)) == sizeof(ggml_backend_sched_t));
    TEST_CHECK(sizeof(ggml_backend_sched_new(bs, NULL, 1, 16, false, true)) == sizeof(ggml_backend_sched_t));
    bool (*cmp)(ggml_backend_t, ggml_backend_t, struct ggml_cgraph *, ggml_backend_eval_callback, void *) =
        ggml_backend_compare_graph_backend;
    TEST_CHECK(cmp != NULL);
}

int main(void) {
    test_rng_init();

    test_devices();
    test_backend_basics();
    test_graph_compute();
    test_async();
    test_copy_async();
    test_events();
    test_graph_copy();
    test_compare();
    test_call_forms();

    struct test_backend_stats s = stats();
    TEST_CHECK_MSG(s.n_bad_access == 0, "the TEST backend caught %ld bad accesses", s.n_bad_access);
    TEST_CHECK_MSG(s.buffers_alive == 0, "%ld TEST buffers leaked", s.buffers_alive);
    TEST_CHECK_MSG(s.backends_alive == 0, "%ld TEST backends leaked", s.backends_alive);
    TEST_CHECK_MSG(s.events_alive == 0, "%ld TEST events leaked", s.events_alive);

    return test_finish("test-backend-objects");
}
