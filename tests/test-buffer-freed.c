// Using a tensor whose buffer has been freed: computing a graph whose weights' buffer was freed,
// reading, writing and copying such a tensor. Each call must fail with a logged error that says
// the buffer was freed, without reading the freed buffer object (run it in the AddressSanitizer
// build: a read of freed memory aborts there). A freshly allocated buffer works again afterwards.
// The same through the scheduler, whose assignment reads the buffers of the weights.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-backend.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { N = 64 };

struct weights {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * w, * x, * out;
    struct ggml_cgraph * gf;
    float vw[N], vx[N];
};

// out = w*0.5 + x, all in one buffer of the backend
static bool weights_init(struct weights * m, ggml_backend_t backend) {
    memset(m, 0, sizeof(*m));
    struct ggml_init_params p = { ggml_graph_overhead() + 8 * ggml_tensor_overhead(), NULL, true };
    m->ctx = ggml_init(p);
    if (m->ctx == NULL) {
        return false;
    }
    m->w = ggml_new_tensor_1d(m->ctx, GGML_TYPE_F32, N);
    m->x = ggml_new_tensor_1d(m->ctx, GGML_TYPE_F32, N);
    ggml_set_name(m->w, "w");
    m->out = ggml_add(m->ctx, ggml_scale(m->ctx, m->w, 0.5f), m->x);
    m->gf = ggml_new_graph(m->ctx);
    ggml_build_forward_expand(m->gf, m->out);
    m->buf = ggml_backend_alloc_ctx_tensors(m->ctx, backend);
    if (m->buf == NULL) {
        return false;
    }
    for (int i = 0; i < N; i++) {
        m->vw[i] = (float) (i % 13) - 6.25f;
        m->vx[i] = (float) (i % 7) * 0.75f + 1.0f;
    }
    ggml_backend_tensor_set(m->w, m->vw, 0, sizeof(m->vw));
    ggml_backend_tensor_set(m->x, m->vx, 0, sizeof(m->vx));
    return true;
}

static bool weights_out_right(const struct weights * m) {
    float out[N];
    ggml_backend_tensor_get(m->out, out, 0, sizeof(out));
    for (int i = 0; i < N; i++) {
        const double expected = 0.5 * m->vw[i] + m->vx[i];
        if (!(fabs(out[i] - expected) <= 1e-6 * (1.0 + fabs(expected)))) {
            return false;
        }
    }
    return true;
}

// one refused call: an error logged that names the freed buffer
static void expect_freed_error(const char * what, bool refused) {
    const int n_err = test_log_error_count();
    const bool says_freed = strstr(test_log_text(), "freed") != NULL;
    test_log_capture_end();
    TEST_CHECK_MSG(refused && n_err >= 1 && says_freed, "%s: not refused with an error naming the freed buffer", what);
}

static void check_backend(const char * name, ggml_backend_t backend) {
    struct weights m;
    const bool ok = weights_init(&m, backend);
    TEST_CHECK_MSG(ok, "%s: setup", name);
    if (ok) {
        TEST_CHECK_MSG(ggml_backend_graph_compute(backend, m.gf) == GGML_STATUS_SUCCESS && weights_out_right(&m),
                "%s: the graph computes before the buffer is freed", name);

        ggml_backend_buffer_free(m.buf);
        m.buf = NULL;

        test_log_capture_begin();
        expect_freed_error("graph compute", ggml_backend_graph_compute(backend, m.gf) != GGML_STATUS_SUCCESS);

        float got[N];
        for (int i = 0; i < N; i++) {
            got[i] = 42.0f;
        }
        test_log_capture_begin();
        ggml_backend_tensor_get(m.w, got, 0, sizeof(got));
        expect_freed_error("tensor_get", got[0] == 42.0f && got[N - 1] == 42.0f);

        test_log_capture_begin();
        ggml_backend_tensor_set(m.x, m.vx, 0, sizeof(m.vx));
        expect_freed_error("tensor_set", true);

        test_log_capture_begin();
        ggml_backend_tensor_memset(m.x, 0, 0, 8);
        expect_freed_error("tensor_memset", true);

        // a copy from the freed tensor into live host memory
        struct ggml_init_params hp = { 2 * ggml_tensor_overhead() + N * sizeof(float) + 64, NULL, false };
        struct ggml_context * hctx = ggml_init(hp);
        struct ggml_tensor * h = ggml_new_tensor_1d(hctx, GGML_TYPE_F32, N);
        memcpy(h->data, got, sizeof(got));
        test_log_capture_begin();
        ggml_backend_tensor_copy(m.w, h);
        expect_freed_error("tensor_copy", ((const float *) h->data)[0] == 42.0f);
        ggml_free(hctx);

        // new tensors in a new buffer (likely at the freed one's address) work
        struct weights m2;
        TEST_CHECK_MSG(weights_init(&m2, backend) && ggml_backend_graph_compute(backend, m2.gf) == GGML_STATUS_SUCCESS &&
                weights_out_right(&m2), "%s: a graph in a new buffer computes", name);
        ggml_backend_buffer_free(m2.buf);
        if (m2.ctx != NULL) {
            ggml_free(m2.ctx);
        }
    }
    ggml_backend_buffer_free(m.buf);
    if (m.ctx != NULL) {
        ggml_free(m.ctx);
    }
}

// weights in a buffer of their own, the graph placed by a scheduler: freeing the weights' buffer
// makes the next schedule fail (the assignment reads the weights' buffers)
static void check_scheduler(void) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_init_params wp = { 4 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * wctx = ggml_init(wp);
    struct ggml_init_params gp = { ggml_graph_overhead() + 8 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * gctx = ggml_init(gp);
    bool ok = cpu != NULL && wctx != NULL && gctx != NULL;
    ggml_backend_buffer_t wbuf = NULL;
    ggml_backend_sched_t sched = NULL;
    if (ok) {
        struct ggml_tensor * w = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, N);
        ggml_set_name(w, "w");
        wbuf = ggml_backend_alloc_ctx_tensors(wctx, cpu);
        ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        float vw[N];
        for (int i = 0; i < N; i++) {
            vw[i] = (float) (i % 9) - 3.5f;
        }
        ggml_backend_tensor_set(w, vw, 0, sizeof(vw));
        struct ggml_tensor * out = ggml_scale(gctx, w, 2.0f);
        struct ggml_cgraph * gf = ggml_new_graph(gctx);
        ggml_build_forward_expand(gf, out);
        ggml_backend_t backends[1] = { cpu };
        sched = ggml_backend_sched_new(backends, NULL, 1, 64, false);
        ok = wbuf != NULL && sched != NULL && ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS;
        TEST_CHECK_MSG(ok, "scheduler: the graph computes before the weights are freed");
        if (ok) {
            float got[N];
            ggml_backend_tensor_get(out, got, 0, sizeof(got));
            TEST_CHECK(got[3] == 2.0f * vw[3] && got[N - 1] == 2.0f * vw[N - 1]);
            ggml_backend_sched_reset(sched);
            ggml_backend_buffer_free(wbuf);
            wbuf = NULL;
            test_log_capture_begin();
            expect_freed_error("scheduler", ggml_backend_sched_graph_compute(sched, gf) != GGML_STATUS_SUCCESS);
        }
    }
    ggml_backend_sched_free(sched);
    ggml_backend_buffer_free(wbuf);
    if (gctx != NULL) {
        ggml_free(gctx);
    }
    if (wctx != NULL) {
        ggml_free(wctx);
    }
    ggml_backend_free(cpu);
}

int main(void) {
    test_rng_init();
    ggml_backend_t cpu = ggml_backend_cpu_init();
    TEST_CHECK(cpu != NULL);
    if (cpu != NULL) {
        check_backend("CPU", cpu);
        ggml_backend_free(cpu);
    }
    ggml_backend_t tb = test_backend_init();
    TEST_CHECK(tb != NULL);
    if (tb != NULL) {
        check_backend("TEST", tb);
        ggml_backend_free(tb);
    }
    check_scheduler();
    return test_finish("test-buffer-freed");
}
