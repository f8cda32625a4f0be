// The OpenCL backend through the public API: the registry and its devices, device buffers (not
// host memory), blocking and asynchronous transfers with real data, copies between CPU and
// OpenCL buffers, events between two streams, wrapped host memory, the pinned host buffer type,
// graphs computed on the device (also with GGML_OPENCL_PROFILE=1: the per-kernel table printed at
// free) and with the scheduler next to the CPU, a kernel program that
// fails to build (logged, its ops unsupported, the rest working), the on-disk program cache, and
// the loadable module libggml-opencl.so.
//
//   test-opencl                       everything above; with no OpenCL device it checks that nothing
//                                     aborts and reports itself skipped (exit 77), or failed when
//                                     GGML_TEST_REQUIRE_OPENCL is set (CI, where PoCL is installed)
//   test-opencl --expect-no-devices   run with OpenCL made unavailable (OCL_ICD_VENDORS=/nonexistent,
//                                     GGML_OPENCL_DISABLE=1 or GGML_OPENCL_LIBRARY=/nonexistent/...):
//                                     the registry lists no devices, nothing aborts, the CPU works
//
// Expected values are computed here in double precision from the inputs, never by the library.

#define _GNU_SOURCE // setenv, mkdtemp

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "test-common.h"

#ifdef GGML_TEST_OPENCL_BUILT
#    include "ggml-opencl.h"
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_RAND 4096

// the exit code ctest counts as "skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt)
#define TEST_SKIP_RETURN_CODE 77

static float g_rand[N_RAND];

static void fill_rand(void) {
    for (int i = 0; i < N_RAND; i++) {
        g_rand[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
}

static inline bool arrays_equal(const float * a, const float * b, size_t n) {
    return memcmp(a, b, n*sizeof(float)) == 0;
}

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params p = { 64*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    return ggml_init(p);
}

// a graph of one or a few nodes computed on backend with every tensor in its default buffer type
struct test_graph {
    struct ggml_context * ctx;
    struct ggml_cgraph * gf;
    ggml_backend_buffer_t buf;
};

static inline void test_graph_free(struct test_graph * g) {
    if (g->buf) {
        ggml_backend_buffer_free(g->buf);
    }
    if (g->ctx) {
        ggml_free(g->ctx);
    }
    memset(g, 0, sizeof(*g));
}

//
// no devices: OpenCL made unavailable
//

static float cpu_add_check(void) {
    // the CPU still computes: 2 + 3 element-wise
    ggml_backend_t cpu = ggml_backend_cpu_init();
    TEST_CHECK(cpu != NULL);
    if (cpu == NULL) {
        return 0.0f;
    }
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * c = ggml_add(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    float va[8], vb[8], vc[8];
    for (int i = 0; i < 8; i++) {
        va[i] = g_rand[i];
        vb[i] = g_rand[100 + i];
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));
    TEST_CHECK(ggml_backend_graph_compute(cpu, gf) == GGML_STATUS_SUCCESS);
    ggml_backend_tensor_get(c, vc, 0, sizeof(vc));
    float err = 0.0f;
    for (int i = 0; i < 8; i++) {
        err = fmaxf(err, fabsf(vc[i] - (va[i] + vb[i])));
    }
    TEST_CHECK_MSG(err == 0.0f, "CPU add off by %g", err);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    return err;
}

// reason_expected: the registry is first touched here, so its INFO line telling why is captured
static void test_no_devices(bool reason_expected) {
    (void) reason_expected; // only read when OpenCL is built
    test_log_capture_begin();
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("OpenCL");
#ifdef GGML_TEST_OPENCL_BUILT
    TEST_CHECK(reg != NULL);
    TEST_CHECK(reg == NULL || ggml_backend_reg_dev_count(reg) == 0);
    ggml_backend_t b = ggml_backend_opencl_init();
    TEST_CHECK(b == NULL);
    if (b) {
        ggml_backend_free(b);
    }
    TEST_CHECK(ggml_backend_opencl_buffer_type() == NULL);
    TEST_CHECK(ggml_backend_opencl_host_buffer_type() == NULL);
    TEST_CHECK(!ggml_backend_is_opencl(NULL));
#else
    (void) reg;
#endif
    TEST_CHECK(ggml_backend_dev_by_name("OpenCL0") == NULL);
    ggml_backend_t b0 = ggml_backend_init_by_name("OpenCL0", NULL);
    TEST_CHECK(b0 == NULL);
    if (b0) {
        ggml_backend_free(b0);
    }
    TEST_CHECK(ggml_backend_dev_count() >= 1);
    // the best backend is then the CPU
    ggml_backend_t best = ggml_backend_init_best();
    TEST_CHECK(best != NULL && ggml_backend_dev_type(ggml_backend_get_device(best)) == GGML_BACKEND_DEVICE_TYPE_CPU);
    if (best) {
        ggml_backend_free(best);
    }
    test_log_capture_end();
#ifdef GGML_TEST_OPENCL_BUILT
    // the reason is told once, at INFO level, not as an error
    TEST_CHECK_MSG(!reason_expected || strstr(test_log_text(), "no OpenCL platform") != NULL ||
                   strstr(test_log_text(), "GGML_OPENCL_DISABLE") != NULL || strstr(test_log_text(), "no OpenCL loader") != NULL,
                   "log: %s", test_log_text());
#endif
    cpu_add_check();
}

#ifdef GGML_TEST_OPENCL_BUILT

//
// devices
//

static ggml_backend_dev_t g_dev;

static void test_enumeration(void) {
    ggml_backend_reg_t reg = ggml_backend_opencl_reg();
    TEST_CHECK(reg != NULL && strcmp(ggml_backend_reg_name(reg), "OpenCL") == 0);
    TEST_CHECK(ggml_backend_reg_by_name("OpenCL") == reg);
    const size_t n = ggml_backend_reg_dev_count(reg);
    TEST_CHECK(n >= 1);
    for (size_t i = 0; i < n; i++) {
        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, i);
        char want[32];
        snprintf(want, sizeof(want), "OpenCL%zu", i);
        TEST_CHECK_MSG(dev != NULL && strcmp(ggml_backend_dev_name(dev), want) == 0, "device %zu named %s", i,
            dev ? ggml_backend_dev_name(dev) : "(null)");
        TEST_CHECK(ggml_backend_dev_by_name(want) == dev);
        TEST_CHECK(ggml_backend_dev_backend_reg(dev) == reg);
        // a GPU driver's device is a GPU, any other OpenCL device (PoCL's CPU device) an accelerator
        const enum ggml_backend_dev_type type = ggml_backend_dev_type(dev);
        TEST_CHECK(type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_ACCEL);
        struct ggml_backend_dev_props props;
        ggml_backend_dev_get_props(dev, &props);
        TEST_CHECK(props.type == type);
        TEST_CHECK(props.name != NULL && strcmp(props.name, want) == 0);
        TEST_CHECK(props.description != NULL && props.description[0] != '\0');
        TEST_CHECK(props.memory_total > 0 && props.memory_free <= props.memory_total);
        TEST_CHECK(props.caps.async && props.caps.events && props.caps.host_buffer && props.caps.buffer_from_host_ptr);
        printf("  %s: %s (%zu MiB)\n", props.name, props.description, props.memory_total >> 20);
    }
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_reg_dev_get(reg, n) == NULL); // logged, no crash
    test_log_capture_end();
    g_dev = ggml_backend_reg_dev_get(reg, 0);

    // the best backend is the first GPU; an accelerator (PoCL's CPU device) is never picked: with
    // no GPU it is the CPU backend. By name, the accelerator is there like any device.
    ggml_backend_t best = ggml_backend_init_best();
    ggml_backend_dev_t gpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    TEST_CHECK(best != NULL && ggml_backend_dev_type(ggml_backend_get_device(best)) != GGML_BACKEND_DEVICE_TYPE_ACCEL);
    TEST_CHECK(best != NULL && ggml_backend_get_device(best) ==
        (gpu != NULL ? gpu : ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)));
    if (best) {
        ggml_backend_free(best);
    }
    if (ggml_backend_dev_type(g_dev) == GGML_BACKEND_DEVICE_TYPE_ACCEL) {
        TEST_CHECK(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_ACCEL) != NULL);
        ggml_backend_t by_name = ggml_backend_init_by_name("OpenCL0", NULL);
        TEST_CHECK(by_name != NULL && ggml_backend_get_device(by_name) == g_dev);
        if (by_name) {
            ggml_backend_free(by_name);
        }
    }
    ggml_backend_t b = ggml_backend_opencl_init();
    TEST_CHECK(b != NULL && ggml_backend_is_opencl(b) && strcmp(ggml_backend_name(b), "OpenCL0") == 0);
    TEST_CHECK(ggml_backend_get_device(b) == g_dev);
    TEST_CHECK(ggml_backend_get_default_buffer_type(b) == ggml_backend_opencl_buffer_type());
    if (b) {
        ggml_backend_free(b);
    }
    ggml_backend_t cpu = ggml_backend_cpu_init();
    TEST_CHECK(!ggml_backend_is_opencl(cpu));
    ggml_backend_free(cpu);
}

//
// buffers and transfers
//

static void test_buffers(void) {
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(g_dev);
    TEST_CHECK(!ggml_backend_buft_is_host(buft));
    const size_t align = ggml_backend_buft_get_alignment(buft);
    TEST_CHECK(align >= 128 && (align & (align - 1)) == 0);
    TEST_CHECK(ggml_backend_buft_get_max_size(buft) > 0);
    TEST_CHECK(ggml_backend_buft_get_device(buft) == g_dev);
    TEST_CHECK(ggml_backend_dev_supports_buft(g_dev, buft));
    TEST_CHECK(!ggml_backend_dev_supports_buft(g_dev, ggml_backend_cpu_buffer_type()));

    // an impossible allocation fails cleanly
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_buft_alloc_buffer(buft, SIZE_MAX/2) == NULL);
    test_log_capture_end();
    TEST_CHECK(test_log_error_count() > 0);

    size_t free0, total;
    ggml_backend_dev_memory(g_dev, &free0, &total);

    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * t  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 100, 30);
    struct ggml_tensor * t2 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 100, 30);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    TEST_CHECK(buf != NULL);
    if (buf == NULL) {
        ggml_free(ctx);
        return;
    }
    TEST_CHECK(!ggml_backend_buffer_is_host(buf));
    TEST_CHECK(ggml_backend_buffer_get_base(buf) != NULL);
    TEST_CHECK(t->buffer == buf && t->data != NULL && t2->data != NULL);
    TEST_CHECK(((uintptr_t) t2->data - (uintptr_t) ggml_backend_buffer_get_base(buf)) % align == 0);
    size_t free1;
    ggml_backend_dev_memory(g_dev, &free1, &total);
    TEST_CHECK_MSG(free1 + ggml_backend_buffer_get_size(buf) == free0, "free %zu -> %zu", free0, free1);

    // whole and partial set/get
    const size_t n = 3000;
    float got[3000];
    ggml_backend_tensor_set(t, g_rand, 0, n*sizeof(float));
    memset(got, 0, sizeof(got));
    ggml_backend_tensor_get(t, got, 0, n*sizeof(float));
    TEST_CHECK(arrays_equal(got, g_rand, n));
    ggml_backend_tensor_set(t, g_rand + 3000, 40*sizeof(float), 7*sizeof(float));
    ggml_backend_tensor_get(t, got, 0, n*sizeof(float));
    TEST_CHECK(arrays_equal(got, g_rand, 40) && arrays_equal(got + 40, g_rand + 3000, 7) && arrays_equal(got + 47, g_rand + 47, n - 47));
    float part[5];
    ggml_backend_tensor_get(t, part, 1000*sizeof(float), sizeof(part));
    TEST_CHECK(arrays_equal(part, g_rand + 1000, 5));

    // out of range: logged, nothing written
    test_log_capture_begin();
    ggml_backend_tensor_set(t, g_rand, (n - 2)*sizeof(float), 4*sizeof(float));
    test_log_capture_end();
    TEST_CHECK(test_log_error_count() > 0);

    // memset and clear
    ggml_backend_tensor_memset(t, 0x3f, 8*sizeof(float), 4*sizeof(float));
    ggml_backend_tensor_get(t, got, 0, 16*sizeof(float));
    unsigned char bytes[16];
    memcpy(bytes, got + 8, sizeof(bytes));
    bool all = true;
    for (int i = 0; i < 16; i++) {
        all = all && bytes[i] == 0x3f;
    }
    TEST_CHECK(all && arrays_equal(got, g_rand, 8) && got[12] != got[11]);

    // 2-D transfers: every third row of 10 floats
    float rows[4*10];
    for (int i = 0; i < 40; i++) {
        rows[i] = (float) (i + 1);
    }
    ggml_backend_tensor_set_2d(t2, rows, 0, 10*sizeof(float), 4, 3*100*sizeof(float), 10*sizeof(float));
    float back[4*10];
    memset(back, 0, sizeof(back));
    ggml_backend_tensor_get_2d(t2, back, 0, 10*sizeof(float), 4, 3*100*sizeof(float), 10*sizeof(float));
    TEST_CHECK(arrays_equal(back, rows, 40));
    float one;
    ggml_backend_tensor_get(t2, &one, (3*100 + 9)*sizeof(float), sizeof(float));
    TEST_CHECK(one == 20.0f);

    // copies OpenCL -> OpenCL (same buffer), CPU -> OpenCL, OpenCL -> CPU
    ggml_backend_tensor_set(t, g_rand, 0, n*sizeof(float));
    ggml_backend_tensor_copy(t, t2);
    ggml_backend_tensor_get(t2, got, 0, n*sizeof(float));
    TEST_CHECK(arrays_equal(got, g_rand, n));

    struct ggml_context * cctx = new_ctx();
    struct ggml_tensor * c = ggml_new_tensor_2d(cctx, GGML_TYPE_F32, 100, 30);
    ggml_backend_buffer_t cpu_buf = ggml_backend_alloc_ctx_tensors_from_buft(cctx, ggml_backend_cpu_buffer_type());
    TEST_CHECK(cpu_buf != NULL && ggml_backend_buffer_is_host(cpu_buf));
    if (cpu_buf != NULL) {
        memcpy(c->data, g_rand + 500, n*sizeof(float));
        ggml_backend_tensor_copy(c, t);
        ggml_backend_tensor_get(t, got, 0, n*sizeof(float));
        TEST_CHECK(arrays_equal(got, g_rand + 500, n));
        ggml_backend_tensor_copy(t2, c);
        TEST_CHECK(arrays_equal(c->data, g_rand, n));
        ggml_backend_buffer_free(cpu_buf);
    }
    ggml_free(cctx);

    ggml_backend_buffer_clear(buf, 0);
    ggml_backend_tensor_get(t2, got, 0, n*sizeof(float));
    bool zero = true;
    for (size_t i = 0; i < n; i++) {
        zero = zero && got[i] == 0.0f;
    }
    TEST_CHECK(zero);

    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    size_t free2;
    ggml_backend_dev_memory(g_dev, &free2, &total);
    TEST_CHECK(free2 == free0);
}

//
// computing: a graph whose result is checked against values computed here
//

// y = silu(a*b + c) summed over rows, then scaled: a [64, 8], b [64, 8] broadcast row of c [64, 1]
static struct test_graph build_small_graph(ggml_backend_t backend, struct ggml_tensor ** in, struct ggml_tensor ** out) {
    struct test_graph g = { new_ctx(), NULL, NULL };
    struct ggml_tensor * a = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 64, 8);
    struct ggml_tensor * b = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 64, 8);
    struct ggml_tensor * c = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 64, 1);
    ggml_set_input(a);
    ggml_set_input(b);
    ggml_set_input(c);
    struct ggml_tensor * y = ggml_scale(g.ctx, ggml_sum_rows(g.ctx, ggml_silu(g.ctx, ggml_add(g.ctx, ggml_mul(g.ctx, a, b), c))), 0.5f);
    ggml_set_output(y);
    g.gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(g.gf, y);
    if (backend != NULL) {
        g.buf = ggml_backend_alloc_ctx_tensors(g.ctx, backend);
    }
    in[0] = a; in[1] = b; in[2] = c;
    *out = y;
    return g;
}

static void small_graph_expect(double * want) {
    for (int r = 0; r < 8; r++) {
        double s = 0.0;
        for (int i = 0; i < 64; i++) {
            const double x = (double) g_rand[r*64 + i]*g_rand[1024 + r*64 + i] + g_rand[2048 + i];
            s += x / (1.0 + exp(-x));
        }
        want[r] = 0.5*s;
    }
}

static double max_rel_err(const float * got, const double * want, int n) {
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        if (isnan(got[i])) {
            return INFINITY;
        }
        e = fmax(e, fabs(got[i] - want[i]) / fmax(1.0, fabs(want[i])));
    }
    return e;
}

static void test_compute(void) {
    ggml_backend_t be = ggml_backend_dev_init(g_dev, NULL);
    TEST_CHECK(be != NULL);
    if (be == NULL) {
        return;
    }
    struct ggml_tensor * in[3], * y;
    struct test_graph g = build_small_graph(be, in, &y);
    TEST_CHECK(g.buf != NULL);
    if (g.buf != NULL) {
        ggml_backend_tensor_set(in[0], g_rand, 0, 512*sizeof(float));
        ggml_backend_tensor_set(in[1], g_rand + 1024, 0, 512*sizeof(float));
        ggml_backend_tensor_set(in[2], g_rand + 2048, 0, 64*sizeof(float));
        for (int i = 0; i < ggml_graph_n_nodes(g.gf); i++) {
            TEST_CHECK_MSG(ggml_backend_supports_op(be, ggml_graph_node(g.gf, i)), "node %d not supported", i);
        }
        TEST_CHECK(ggml_backend_graph_compute(be, g.gf) == GGML_STATUS_SUCCESS);
        float got[8];
        double want[8];
        ggml_backend_tensor_get(y, got, 0, sizeof(got));
        small_graph_expect(want);
        const double e = max_rel_err(got, want, 8);
        TEST_CHECK_MSG(e < 1e-5, "small graph: max relative error %g (got %g, want %g)", e, got[0], want[0]);
    }
    test_graph_free(&g);

    // an op the device does not compute (Q2_K weights) is refused before anything runs
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q2_K, 256, 4);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 2);
    struct ggml_tensor * m = ggml_mul_mat(ctx, q, x);
    TEST_CHECK(!ggml_backend_supports_op(be, m));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, m);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_graph_compute(be, gf) == GGML_STATUS_FAILED);
    test_log_capture_end();
    TEST_CHECK(strstr(test_log_text(), "not supported") != NULL);
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    ggml_backend_free(be);
}

// GGML_OPENCL_PROFILE=1: the small graph still computes right on a profiling queue, and freeing
// the backend prints the per-kernel table (stderr captured in a temporary file)
static void test_profile(void) {
    setenv("GGML_OPENCL_PROFILE", "1", 1);
    ggml_backend_t be = ggml_backend_dev_init(g_dev, NULL);
    unsetenv("GGML_OPENCL_PROFILE");
    TEST_CHECK(be != NULL);
    if (be == NULL) {
        return;
    }
    struct ggml_tensor * in[3], * y;
    struct test_graph g = build_small_graph(be, in, &y);
    TEST_CHECK(g.buf != NULL);
    if (g.buf != NULL) {
        ggml_backend_tensor_set(in[0], g_rand, 0, 512*sizeof(float));
        ggml_backend_tensor_set(in[1], g_rand + 1024, 0, 512*sizeof(float));
        ggml_backend_tensor_set(in[2], g_rand + 2048, 0, 64*sizeof(float));
        for (int r = 0; r < 3; r++) {
            TEST_CHECK(ggml_backend_graph_compute(be, g.gf) == GGML_STATUS_SUCCESS);
        }
        float got[8];
        double want[8];
        ggml_backend_tensor_get(y, got, 0, sizeof(got));
        small_graph_expect(want);
        const double e = max_rel_err(got, want, 8);
        TEST_CHECK_MSG(e < 1e-5, "profiled small graph: max relative error %g", e);
    }
    test_graph_free(&g);
    FILE * tmp = tmpfile();
    const int saved = dup(fileno(stderr));
    TEST_CHECK(tmp != NULL && saved >= 0);
    if (tmp == NULL || saved < 0) {
        ggml_backend_free(be);
        if (tmp != NULL) {
            fclose(tmp);
        }
        return;
    }
    fflush(stderr);
    dup2(fileno(tmp), fileno(stderr));
    ggml_backend_free(be);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    char text[4096];
    rewind(tmp);
    const size_t n = fread(text, 1, sizeof(text) - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    // 3 runs of each of the 5 nodes
    TEST_CHECK_MSG(strstr(text, "GGML_OPENCL_PROFILE OpenCL0: 15 kernel runs") != NULL, "profile table: %s", text);
    TEST_CHECK_MSG(strstr(text, "SUM_ROWS") != NULL && strstr(text, "MUL ") != NULL, "profile table: %s", text);
}

//
// asynchronous transfers, events, copies between streams
//

static void test_async_and_events(void) {
    ggml_backend_t s1 = ggml_backend_dev_init(g_dev, NULL);
    ggml_backend_t s2 = ggml_backend_dev_init(g_dev, NULL);
    TEST_CHECK(s1 != NULL && s2 != NULL);
    if (s1 == NULL || s2 == NULL) {
        if (s1) ggml_backend_free(s1);
        if (s2) ggml_backend_free(s2);
        return;
    }
    struct ggml_tensor * in[3], * y;
    struct test_graph g = build_small_graph(s1, in, &y);
    struct ggml_context * ctx2 = new_ctx();
    struct ggml_tensor * y2 = ggml_new_tensor_2d(ctx2, GGML_TYPE_F32, 1, 8);
    ggml_backend_buffer_t buf2 = ggml_backend_alloc_ctx_tensors(ctx2, s2);
    TEST_CHECK(g.buf != NULL && buf2 != NULL);
    if (g.buf == NULL || buf2 == NULL) {
        goto done;
    }

    // inputs queued asynchronously from memory that stays valid until the synchronization
    float * host = malloc(2048*sizeof(float) + 64*sizeof(float));
    memcpy(host, g_rand, 512*sizeof(float));
    memcpy(host + 1024, g_rand + 1024, 512*sizeof(float));
    memcpy(host + 2048, g_rand + 2048, 64*sizeof(float));
    ggml_backend_tensor_set_async(s1, in[0], host, 0, 512*sizeof(float));
    ggml_backend_tensor_set_async(s1, in[1], host + 1024, 0, 512*sizeof(float));
    ggml_backend_tensor_set_async(s1, in[2], host + 2048, 0, 64*sizeof(float));
    TEST_CHECK(ggml_backend_graph_compute_async(s1, g.gf) == GGML_STATUS_SUCCESS);

    // stream 2 copies the result once stream 1 has computed it (event), then reads it back
    ggml_backend_event_t ev = ggml_backend_event_new(g_dev);
    TEST_CHECK(ev != NULL);
    if (ev != NULL) {
        ggml_backend_event_record(ev, s1);
        ggml_backend_event_wait(s2, ev);
        ggml_backend_tensor_copy_async(s1, s2, y, y2);
        float got[8] = { 0 };
        ggml_backend_tensor_get_async(s2, y2, got, 0, sizeof(got));
        ggml_backend_synchronize(s2);
        ggml_backend_event_synchronize(ev);
        double want[8];
        small_graph_expect(want);
        const double e = max_rel_err(got, want, 8);
        TEST_CHECK_MSG(e < 1e-5, "result through an event and a stream copy: max relative error %g", e);

        // an event recorded again marks the newer point
        ggml_backend_tensor_set_async(s1, in[2], host + 2048, 0, 64*sizeof(float));
        ggml_backend_event_record(ev, s1);
        ggml_backend_event_synchronize(ev);
        ggml_backend_event_free(ev);
    }
    ggml_backend_synchronize(s1);
    free(host);

done:
    if (buf2) {
        ggml_backend_buffer_free(buf2);
    }
    ggml_free(ctx2);
    test_graph_free(&g);
    ggml_backend_free(s1);
    ggml_backend_free(s2);
}

//
// wrapped host memory and pinned host buffers
//

static void test_host_memory(void) {
    // buffer_from_host_ptr: tensors placed at the caller's addresses, the data read through the device
    const size_t size = 64*1024;
    void * mem = NULL;
    TEST_CHECK(posix_memalign(&mem, 4096, size) == 0);
    memset(mem, 0, size);
    memcpy((char *) mem + 4096, g_rand, 1000*sizeof(float));
    ggml_backend_buffer_t hbuf = ggml_backend_dev_buffer_from_host_ptr(g_dev, mem, size, size);
    TEST_CHECK(hbuf != NULL);
    ggml_backend_t be = ggml_backend_dev_init(g_dev, NULL);
    if (hbuf != NULL && be != NULL) {
        TEST_CHECK(ggml_backend_buffer_get_base(hbuf) == mem);
        TEST_CHECK(ggml_backend_supports_buft(be, ggml_backend_buffer_get_type(hbuf)));
        struct ggml_context * ctx = new_ctx();
        struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
        struct ggml_tensor * r = ggml_scale(ctx, w, -2.0f);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, r);
        TEST_CHECK(ggml_backend_tensor_alloc(hbuf, w, (char *) mem + 4096) == GGML_STATUS_SUCCESS);
        ggml_backend_buffer_t rbuf = ggml_backend_alloc_ctx_tensors(ctx, be);
        float got[1000];
        ggml_backend_tensor_get(w, got, 0, sizeof(got));
        TEST_CHECK(arrays_equal(got, g_rand, 1000));
        TEST_CHECK(ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS);
        ggml_backend_tensor_get(r, got, 0, sizeof(got));
        bool ok = true;
        for (int i = 0; i < 1000; i++) {
            ok = ok && got[i] == -2.0f*g_rand[i];
        }
        TEST_CHECK(ok);
        if (rbuf) {
            ggml_backend_buffer_free(rbuf);
        }
        ggml_free(ctx);
    }
    if (hbuf) {
        ggml_backend_buffer_free(hbuf);
    }
    free(mem);

    // the pinned host buffer type: host memory the CPU can use, copied to and from the device
    ggml_backend_buffer_type_t pinned = ggml_backend_dev_host_buffer_type(g_dev);
    TEST_CHECK(pinned != NULL && pinned == ggml_backend_opencl_host_buffer_type());
    if (pinned != NULL && be != NULL) {
        TEST_CHECK(ggml_backend_buft_is_host(pinned));
        ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
        TEST_CHECK(cpu_dev != NULL && ggml_backend_dev_supports_buft(cpu_dev, pinned));
        struct ggml_context * ctx = new_ctx();
        struct ggml_tensor * h = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 777);
        ggml_backend_buffer_t pbuf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, pinned);
        struct ggml_context * dctx = new_ctx();
        struct ggml_tensor * d = ggml_new_tensor_1d(dctx, GGML_TYPE_F32, 777);
        ggml_backend_buffer_t dbuf = ggml_backend_alloc_ctx_tensors(dctx, be);
        TEST_CHECK(pbuf != NULL && dbuf != NULL && ggml_backend_buffer_is_host(pbuf));
        if (pbuf != NULL && dbuf != NULL) {
            memcpy(h->data, g_rand + 7, 777*sizeof(float)); // plain host memory
            ggml_backend_tensor_copy(h, d);
            float got[777];
            ggml_backend_tensor_get(d, got, 0, sizeof(got));
            TEST_CHECK(arrays_equal(got, g_rand + 7, 777));
            ggml_backend_tensor_set(d, g_rand + 9, 0, 777*sizeof(float));
            ggml_backend_tensor_copy(d, h);
            TEST_CHECK(arrays_equal(h->data, g_rand + 9, 777));
        }
        if (pbuf) ggml_backend_buffer_free(pbuf);
        if (dbuf) ggml_backend_buffer_free(dbuf);
        ggml_free(ctx);
        ggml_free(dctx);
    }
    if (be) {
        ggml_backend_free(be);
    }
}

//
// the scheduler with OpenCL first and the CPU as fallback
//

static void test_sched_mode(bool parallel) {
    ggml_backend_t gpu = ggml_backend_dev_init(g_dev, NULL);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    TEST_CHECK(gpu != NULL && cpu != NULL);
    if (gpu == NULL || cpu == NULL) {
        if (gpu) ggml_backend_free(gpu);
        if (cpu) ggml_backend_free(cpu);
        return;
    }
    ggml_backend_t backends[2] = { gpu, cpu };
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, 2, 256, parallel);
    TEST_CHECK(sched != NULL);
    // parallel (pipeline) mode: the same graph three times with new inputs, without waiting in
    // between except to read the result
    const int n_runs = parallel ? 3 : 1;
    for (int run = 0; run < n_runs && sched != NULL; run++) {
        struct ggml_tensor * in[3], * y;
        struct test_graph g = build_small_graph(NULL, in, &y);
        // the inputs start on the CPU (the scheduler's default for graph inputs); the computing
        // nodes are pinned to OpenCL but the last one, back on the CPU: two splits, copies to the
        // device and back
        const int n_nodes = ggml_graph_n_nodes(g.gf);
        for (int i = 0; i < n_nodes; i++) {
            ggml_backend_sched_set_tensor_backend(sched, ggml_graph_node(g.gf, i), i < n_nodes - 1 ? gpu : cpu);
        }
        if (ggml_backend_sched_alloc_graph(sched, g.gf)) {
            // run r scales the first input by (r + 1)
            float a[512];
            for (int i = 0; i < 512; i++) {
                a[i] = g_rand[i]*(float) (run + 1);
            }
            ggml_backend_tensor_set(in[0], a, 0, sizeof(a));
            ggml_backend_tensor_set(in[1], g_rand + 1024, 0, 512*sizeof(float));
            ggml_backend_tensor_set(in[2], g_rand + 2048, 0, 64*sizeof(float));
            TEST_CHECK(ggml_backend_sched_graph_compute_async(sched, g.gf) == GGML_STATUS_SUCCESS);
            TEST_CHECK(ggml_backend_sched_get_tensor_backend(sched, y) == cpu);
            TEST_CHECK(ggml_backend_sched_get_tensor_backend(sched, ggml_graph_node(g.gf, 0)) == gpu);
            TEST_CHECK_MSG(ggml_backend_sched_get_n_splits(sched) >= 2, "%d splits", ggml_backend_sched_get_n_splits(sched));
            ggml_backend_sched_synchronize(sched);
            float got[8];
            double want[8];
            ggml_backend_tensor_get(y, got, 0, sizeof(got));
            for (int r = 0; r < 8; r++) {
                double sum = 0.0;
                for (int i = 0; i < 64; i++) {
                    const double x = (double) a[r*64 + i]*g_rand[1024 + r*64 + i] + g_rand[2048 + i];
                    sum += x / (1.0 + exp(-x));
                }
                want[r] = 0.5*sum;
            }
            TEST_CHECK_MSG(max_rel_err(got, want, 8) < 1e-5, "sched (parallel %d, run %d): max relative error %g",
                parallel, run, max_rel_err(got, want, 8));
        } else {
            TEST_CHECK_MSG(false, "the scheduler could not allocate the graph");
        }
        ggml_backend_sched_reset(sched);
        test_graph_free(&g);
    }
    if (sched) {
        ggml_backend_sched_free(sched);
    }
    ggml_backend_free(gpu);
    ggml_backend_free(cpu);
}

static void test_sched(void) {
    test_sched_mode(false);
    test_sched_mode(true);
}

//
// a kernel program that does not build, and the disk cache
//

typedef void (*set_source_fn)(const char * name, const char * source);

static struct ggml_tensor * rms_node(struct ggml_context * ctx, struct ggml_tensor ** a) {
    *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 32, 4);
    return ggml_rms_norm(ctx, *a, 1e-6f);
}

// computes rms_norm and add on a fresh backend; *rms_ok / *add_ok: the results are right
static void run_rms_and_add(bool * rms_ok, bool * add_ok) {
    *rms_ok = *add_ok = false;
    ggml_backend_t be = ggml_backend_dev_init(g_dev, NULL);
    if (be == NULL) {
        return;
    }
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a;
    struct ggml_tensor * r = rms_node(ctx, &a);
    struct ggml_tensor * s = ggml_add(ctx, a, a);
    const bool rms_supported = ggml_backend_supports_op(be, r);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    if (rms_supported) {
        ggml_build_forward_expand(gf, r);
    }
    ggml_build_forward_expand(gf, s);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (buf != NULL) {
        ggml_backend_tensor_set(a, g_rand, 0, 128*sizeof(float));
        if (ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS) {
            float got[128];
            ggml_backend_tensor_get(s, got, 0, sizeof(got));
            *add_ok = true;
            for (int i = 0; i < 128; i++) {
                *add_ok = *add_ok && got[i] == 2.0f*g_rand[i];
            }
            if (rms_supported) {
                ggml_backend_tensor_get(r, got, 0, sizeof(got));
                double e = 0.0;
                for (int row = 0; row < 4; row++) {
                    double ss = 0.0;
                    for (int i = 0; i < 32; i++) {
                        ss += (double) g_rand[row*32 + i]*g_rand[row*32 + i];
                    }
                    const double sc = 1.0/sqrt(ss/32 + 1e-6);
                    for (int i = 0; i < 32; i++) {
                        e = fmax(e, fabs(got[row*32 + i] - g_rand[row*32 + i]*sc));
                    }
                }
                *rms_ok = e < 1e-5;
            }
        }
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    ggml_backend_free(be);
}

static void test_failed_build(void) {
    set_source_fn set_source = test_opencl_set_program_source;
    struct ggml_context * ctx = new_ctx();
    struct ggml_tensor * a;
    struct ggml_tensor * r = rms_node(ctx, &a);

    set_source("norm", "__kernel void k_norm(__global float * x) { this is not OpenCL C; }\n");
    test_log_capture_begin();
    TEST_CHECK(!ggml_backend_dev_supports_op(g_dev, r));
    TEST_CHECK(!ggml_backend_dev_supports_op(g_dev, r)); // asked again: no rebuild, no new message
    test_log_capture_end();
    TEST_CHECK(test_log_error_count() >= 1);
    TEST_CHECK_MSG(strstr(test_log_text(), "'norm'") != NULL && strstr(test_log_text(), "CL_BUILD_PROGRAM_FAILURE") != NULL,
        "log: %s", test_log_text());
    const char * first = strstr(test_log_text(), "building OpenCL program");
    TEST_CHECK(first != NULL && strstr(first + 1, "building OpenCL program") == NULL);

    // the rest of the device works; rms_norm is left to other backends
    bool rms_ok, add_ok;
    run_rms_and_add(&rms_ok, &add_ok);
    TEST_CHECK(add_ok && !rms_ok);

    // the embedded source is back: rms_norm builds and computes
    set_source("norm", NULL);
    TEST_CHECK(ggml_backend_dev_supports_op(g_dev, r));
    run_rms_and_add(&rms_ok, &add_ok);
    TEST_CHECK(add_ok && rms_ok);
    ggml_free(ctx);
}

static int count_cache_files(const char * dir) {
    DIR * d = opendir(dir);
    if (d == NULL) {
        return 0;
    }
    int n = 0;
    struct dirent * e;
    while ((e = readdir(d)) != NULL) {
        n += strncmp(e->d_name, "norm-", 5) == 0 && strstr(e->d_name, ".bin") != NULL;
    }
    closedir(d);
    return n;
}

static void test_disk_cache(void) {
    set_source_fn set_source = test_opencl_set_program_source;
    char tmpl[] = "/tmp/test-opencl-cache-XXXXXX";
    char * root = mkdtemp(tmpl);
    TEST_CHECK(root != NULL);
    if (root == NULL) {
        return;
    }
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/ggml-opencl", root);
    const char * old_xdg = getenv("XDG_CACHE_HOME");
    char * saved = old_xdg ? strdup(old_xdg) : NULL;
    setenv("XDG_CACHE_HOME", root, 1);

    // off by default: nothing is written
    unsetenv("GGML_OPENCL_CACHE");
    set_source("norm", NULL); // drops the built program: the next use builds it again
    bool rms_ok, add_ok;
    run_rms_and_add(&rms_ok, &add_ok);
    TEST_CHECK(rms_ok && count_cache_files(dir) == 0);

    setenv("GGML_OPENCL_CACHE", "1", 1);
    set_source("norm", NULL);
    run_rms_and_add(&rms_ok, &add_ok);
    TEST_CHECK(rms_ok);
    TEST_CHECK_MSG(count_cache_files(dir) == 1, "%d cached programs in %s", count_cache_files(dir), dir);
    // built again from the cached binary: same file, same results
    set_source("norm", NULL);
    run_rms_and_add(&rms_ok, &add_ok);
    TEST_CHECK(rms_ok && add_ok && count_cache_files(dir) == 1);
    unsetenv("GGML_OPENCL_CACHE");

    // clean up
    DIR * d = opendir(dir);
    if (d != NULL) {
        struct dirent * e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] != '.') {
                char p[1024];
                snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
                remove(p);
            }
        }
        closedir(d);
    }
    rmdir(dir);
    rmdir(root);
    if (saved) {
        setenv("XDG_CACHE_HOME", saved, 1);
        free(saved);
    } else {
        unsetenv("XDG_CACHE_HOME");
    }
}

//
// the loadable module
//

static void test_module(void) {
#ifdef GGML_TEST_OPENCL_MODULE
    void * h = dlopen(GGML_TEST_OPENCL_MODULE, RTLD_NOW | RTLD_LOCAL);
    TEST_CHECK_MSG(h != NULL, "dlopen(%s): %s", GGML_TEST_OPENCL_MODULE, dlerror());
    if (h == NULL) {
        return;
    }
    ggml_backend_reg_t (*init)(void) = NULL;
    int (*score)(void) = NULL;
    void * p_init  = dlsym(h, "ggml_backend_init");
    void * p_score = dlsym(h, "ggml_backend_score");
    memcpy(&init, &p_init, sizeof(init));
    memcpy(&score, &p_score, sizeof(score));
    TEST_CHECK(init != NULL && score != NULL);
    if (init != NULL && score != NULL) {
        TEST_CHECK(score() > 0);
        ggml_backend_reg_t reg = init();
        TEST_CHECK(reg != NULL && reg != ggml_backend_opencl_reg());
        if (reg != NULL) {
            TEST_CHECK(strcmp(ggml_backend_reg_name(reg), "OpenCL") == 0);
            TEST_CHECK(ggml_backend_reg_dev_count(reg) == ggml_backend_reg_dev_count(ggml_backend_opencl_reg()));
            // the module's device computes too
            ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
            ggml_backend_t be = dev ? ggml_backend_dev_init(dev, NULL) : NULL;
            TEST_CHECK(be != NULL);
            if (be != NULL) {
                struct ggml_tensor * in[3], * y;
                struct test_graph g = build_small_graph(be, in, &y);
                if (g.buf != NULL) {
                    ggml_backend_tensor_set(in[0], g_rand, 0, 512*sizeof(float));
                    ggml_backend_tensor_set(in[1], g_rand + 1024, 0, 512*sizeof(float));
                    ggml_backend_tensor_set(in[2], g_rand + 2048, 0, 64*sizeof(float));
                    TEST_CHECK(ggml_backend_graph_compute(be, g.gf) == GGML_STATUS_SUCCESS);
                    float got[8];
                    double want[8];
                    ggml_backend_tensor_get(y, got, 0, sizeof(got));
                    small_graph_expect(want);
                    TEST_CHECK_MSG(max_rel_err(got, want, 8) < 1e-5, "module: max relative error %g", max_rel_err(got, want, 8));
                }
                test_graph_free(&g);
                ggml_backend_free(be);
            }
        }
    }
    // loading the module while OpenCL is built in keeps the built-in registry: its devices are
    // not listed twice (logged)
    const size_t n_reg = ggml_backend_reg_count(), n_dev = ggml_backend_dev_count();
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_load(GGML_TEST_OPENCL_MODULE) == ggml_backend_opencl_reg());
    TEST_CHECK_MSG(strstr(test_log_text(), "already registered") != NULL, "log: %s", test_log_text());
    test_log_capture_end();
    TEST_CHECK(ggml_backend_reg_count() == n_reg && ggml_backend_dev_count() == n_dev);
    // the module's devices and contexts stay with the module: it is not unloaded while they live
    (void) h;
#endif
}

#endif // GGML_TEST_OPENCL_BUILT

int main(int argc, char ** argv) {
    test_rng_init();
    fill_rand();
    const bool expect_none = argc > 1 && strcmp(argv[1], "--expect-no-devices") == 0;
    if (expect_none) {
        test_no_devices(true);
        return test_finish("test-opencl (no devices)");
    }
#ifndef GGML_TEST_OPENCL_BUILT
    printf("test-opencl: the library was built without OpenCL (GGML_OPENCL=OFF or no OpenCL found): only the CPU is checked\n");
    cpu_add_check();
    if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
        printf("test-opencl: FAILED: GGML_TEST_REQUIRE_OPENCL is set but the library was built without OpenCL\n");
        return 1;
    }
#else
    if (ggml_backend_reg_dev_count(ggml_backend_opencl_reg()) == 0) {
        test_no_devices(false);
        const int rc = test_finish("test-opencl");
        if (rc != 0) {
            return rc;
        }
        if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
            printf("test-opencl: FAILED: no OpenCL device, and GGML_TEST_REQUIRE_OPENCL is set (is PoCL installed?)\n");
            return 1;
        }
        printf("test-opencl: no OpenCL device on this machine (install pocl-opencl-icd): skipped\n");
        return TEST_SKIP_RETURN_CODE;
    }
    test_enumeration();
    test_buffers();
    test_compute();
    test_profile();
    test_async_and_events();
    test_host_memory();
    test_sched();
    test_failed_build();
    test_disk_cache();
    test_module();
#endif
    return test_finish("test-opencl");
}
