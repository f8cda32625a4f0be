// User-defined ops (ggml_map_custom1..3, ggml_custom_4d, ggml_custom_inplace) built and run on
// the CPU backend with 1 and 2 threads, and their bad-input paths.

#include "test-common.h"
#include "ggml-cpu.h"

#include <stdatomic.h>
#include <string.h>

static atomic_int g_calls;

// each thread handles the rows ith, ith + nth, ...
static void square_rows(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * ud) {
    const float offset = *(const float *) ud;
    atomic_fetch_add(&g_calls, 1);
    for (int64_t r = ith; r < ggml_nrows(dst); r += nth) {
        const float * x = (const float *)((const char *) a->data + r*a->nb[1]);
        float * y = (float *)((char *) dst->data + r*dst->nb[1]);
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            y[i] = x[i]*x[i] + offset;
        }
    }
}

static void weighted_sum(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b,
                         const struct ggml_tensor * c, int ith, int nth, void * ud) {
    (void) ud;
    const int64_t n = ggml_nelements(dst);
    for (int64_t i = ith; i < n; i += nth) {
        ((float *) dst->data)[i] = ((const float *) a->data)[i] + 2.0f*((const float *) b->data)[i] - ((const float *) c->data)[i];
    }
}

static void outer(struct ggml_tensor * dst, int ith, int nth, void * ud) {
    (void) ud;
    const struct ggml_tensor * u = dst->src[0];
    const struct ggml_tensor * v = dst->src[1];
    for (int64_t j = ith; j < dst->ne[1]; j += nth) {
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            ((float *) dst->data)[j*dst->ne[0] + i] = ((const float *) u->data)[i] * ((const float *) v->data)[j];
        }
    }
}

static void fill_random(struct ggml_tensor * t) {
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        ((float *) t->data)[i] = (float) test_rand_uniform(-2.0, 2.0);
    }
}

static void run(int n_threads) {
    struct ggml_init_params p = { 8*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(p);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 9);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 9);
    struct ggml_tensor * c = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 9);
    struct ggml_tensor * u = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
    struct ggml_tensor * v = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 3);
    fill_random(a); fill_random(b); fill_random(c); fill_random(u); fill_random(v);

    float offset = 0.5f;
    struct ggml_tensor * sq = ggml_map_custom1(ctx, a, square_rows, GGML_N_TASKS_MAX, &offset);
    struct ggml_tensor * ws = ggml_map_custom3(ctx, a, b, c, weighted_sum, 1, NULL);
    struct ggml_tensor * args[2] = { u, v };
    struct ggml_tensor * op = ggml_custom_4d(ctx, GGML_TYPE_F32, 5, 3, 1, 1, args, 2, outer, GGML_N_TASKS_MAX, NULL);
    TEST_CHECK(sq && ws && op && sq->op == GGML_OP_MAP_CUSTOM1 && op->op == GGML_OP_CUSTOM && op->src[1] == v);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, sq);
    ggml_build_forward_expand(gf, ws);
    ggml_build_forward_expand(gf, op);
    atomic_store(&g_calls, 0);
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, gf, n_threads) == GGML_STATUS_SUCCESS);
    TEST_CHECK_MSG(atomic_load(&g_calls) == n_threads, "custom1 with all tasks ran on %d threads, expected %d", atomic_load(&g_calls), n_threads);

    bool ok = true;
    for (int64_t i = 0; i < ggml_nelements(a); i++) {
        const float x = ((float *) a->data)[i];
        ok = ok && ((float *) sq->data)[i] == x*x + 0.5f;
        ok = ok && ((float *) ws->data)[i] == x + 2.0f*((float *) b->data)[i] - ((float *) c->data)[i];
    }
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 5; i++) {
            ok = ok && ((float *) op->data)[j*5 + i] == ((float *) u->data)[i] * ((float *) v->data)[j];
        }
    }
    TEST_CHECK_MSG(ok, "custom op results with %d threads", n_threads);
    ggml_free(ctx);
}

static void bad_input(void) {
    struct ggml_init_params p = { 1024*1024, NULL, true };
    struct ggml_context * ctx = ggml_init(p);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * args[GGML_MAX_SRC + 1] = { a };
    test_log_capture_begin();
    TEST_CHECK(ggml_map_custom1(ctx, NULL, square_rows, 1, NULL) == NULL);
    TEST_CHECK(ggml_map_custom1(ctx, a, NULL, 1, NULL) == NULL);
    TEST_CHECK(ggml_map_custom1(ctx, a, square_rows, 0, NULL) == NULL);
    TEST_CHECK(ggml_map_custom3(ctx, a, a, NULL, weighted_sum, 1, NULL) == NULL);
    TEST_CHECK(ggml_custom_4d(ctx, GGML_TYPE_F32, 4, 1, 1, 1, args, GGML_MAX_SRC + 1, outer, 1, NULL) == NULL);
    TEST_CHECK(ggml_custom_4d(ctx, GGML_TYPE_F32, 4, 1, 1, 1, args, 2, outer, 1, NULL) == NULL); // args[1] is NULL
    TEST_CHECK(ggml_custom_4d(ctx, GGML_TYPE_F32, 4, 1, 1, 1, NULL, 1, outer, 1, NULL) == NULL);
    TEST_CHECK(ggml_custom_inplace(ctx, a, args, GGML_MAX_SRC, outer, 1, NULL) == NULL);
    TEST_CHECK(test_log_error_count() == 8);
    test_log_capture_end();
    struct ggml_tensor * ip = ggml_custom_inplace(ctx, a, args, 1, outer, 2, NULL);
    TEST_CHECK(ip != NULL && ip->view_src == a && ip->src[0] == a && ip->src[1] == a);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    run(1);
    run(2);
    bad_input();
    return test_finish("test-custom-ops");
}
