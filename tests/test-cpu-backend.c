// The CPU backend object, device and registry: registration, device properties, proc
// addresses, thread settings, supports_op and errors for unsupported nodes, a mixed graph checked
// node by node against the double-precision reference, graph plans, the abort callback, a user
// thread pool, and ggml_graph_compute_with_ctx with a context too small for the work buffer.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "ggml-ref.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//
// registry and device
//

// the "model name" of /proc/cpuinfo, parsed here independently ("" when absent)
static void read_model_name(char * out, size_t size) {
    out[0] = '\0';
    FILE * f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char * colon = strchr(line, ':');
        if (strstr(line, "model name") == line && colon != NULL) {
            char * v = colon + 1;
            while (*v == ' ' || *v == '\t') v++;
            v[strcspn(v, "\n")] = '\0';
            size_t n = strlen(v);
            while (n > 0 && (v[n-1] == ' ' || v[n-1] == '\t')) v[--n] = '\0';
            snprintf(out, size, "%s", v);
            break;
        }
    }
    fclose(f);
}

static void test_registry(void) {
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("CPU");
    TEST_CHECK(reg != NULL);
    TEST_CHECK(reg == ggml_backend_cpu_reg());
    if (reg == NULL) {
        return;
    }
    bool listed = false;
    for (size_t i = 0; i < ggml_backend_reg_count(); i++) {
        listed = listed || ggml_backend_reg_get(i) == reg;
    }
    TEST_CHECK(listed);
    TEST_CHECK(strcmp(ggml_backend_reg_name(reg), "CPU") == 0);
    TEST_CHECK(ggml_backend_reg_dev_count(reg) == 1);

    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
    TEST_CHECK(dev != NULL);
    TEST_CHECK(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) == dev);
    TEST_CHECK(ggml_backend_dev_by_name("CPU") == dev);
    TEST_CHECK(ggml_backend_dev_backend_reg(dev) == reg);

    struct ggml_backend_dev_props props;
    ggml_backend_dev_get_props(dev, &props);
    TEST_CHECK(strcmp(props.name, "CPU") == 0);
    TEST_CHECK(props.type == GGML_BACKEND_DEVICE_TYPE_CPU);
    TEST_CHECK(props.device_id == NULL);
    TEST_CHECK(!props.caps.async && !props.caps.host_buffer && props.caps.buffer_from_host_ptr && !props.caps.events);
    char model[256];
    read_model_name(model, sizeof(model));
    TEST_CHECK_MSG(strcmp(props.description, model[0] ? model : "CPU") == 0, "description '%s', /proc/cpuinfo '%s'", props.description, model);
    TEST_CHECK(strcmp(ggml_backend_dev_description(dev), props.description) == 0);

    const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    TEST_CHECK(props.memory_total == (size_t) pages * (size_t) psize);
    TEST_CHECK(props.memory_free > 0 && props.memory_free <= props.memory_total);

    TEST_CHECK(ggml_backend_dev_buffer_type(dev) == ggml_backend_cpu_buffer_type());
    TEST_CHECK(ggml_backend_dev_host_buffer_type(dev) == NULL);
    TEST_CHECK(ggml_backend_dev_supports_buft(dev, ggml_backend_cpu_buffer_type()));

    // wrapping host memory
    static float host[64];
    ggml_backend_buffer_t hb = ggml_backend_dev_buffer_from_host_ptr(dev, host, sizeof(host), sizeof(host));
    TEST_CHECK(hb != NULL);
    if (hb != NULL) {
        TEST_CHECK(ggml_backend_buffer_get_base(hb) == (void *) host);
        TEST_CHECK(ggml_backend_buffer_get_size(hb) == sizeof(host));
        TEST_CHECK(ggml_backend_buffer_is_host(hb));
        ggml_backend_buffer_free(hb);
    }

    // proc addresses
    TEST_CHECK(ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads") != NULL);
    TEST_CHECK(ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback") != NULL);
    TEST_CHECK(ggml_backend_reg_get_proc_address(reg, "no_such_function") == NULL);
    ggml_backend_dev_get_extra_bufts_t extra = (ggml_backend_dev_get_extra_bufts_t)
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts");
    TEST_CHECK(extra != NULL && extra(dev) != NULL && extra(dev)[0] == NULL);
    ggml_backend_get_features_t get_features = (ggml_backend_get_features_t)
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features");
    TEST_CHECK(get_features != NULL);
    if (get_features != NULL) {
        bool avx2 = false, sse3 = false;
        int n = 0;
        for (struct ggml_backend_feature * f = get_features(reg); f->name != NULL && n < 64; f++, n++) {
            avx2 = avx2 || strcmp(f->name, "AVX2") == 0;
            sse3 = sse3 || strcmp(f->name, "SSE3") == 0;
            TEST_CHECK(f->value != NULL);
        }
        TEST_CHECK(n < 64);
        TEST_CHECK(avx2 == (ggml_cpu_has_avx2() == 1));
        TEST_CHECK(sse3 == (ggml_cpu_has_sse3() == 1));
    }

    // the feature probes agree with /proc/cpuinfo's flags (x86 Linux)
#if defined(__x86_64__)
    FILE * f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[8192];
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "flags", 5) == 0) {
                TEST_CHECK(ggml_cpu_has_avx2() == (strstr(line, " avx2") != NULL));
                TEST_CHECK(ggml_cpu_has_fma() == (strstr(line, " fma") != NULL));
                TEST_CHECK(ggml_cpu_has_f16c() == (strstr(line, " f16c") != NULL));
                TEST_CHECK(ggml_cpu_has_avx512() == (strstr(line, " avx512f") != NULL));
                TEST_CHECK(ggml_cpu_has_ssse3() == (strstr(line, " ssse3") != NULL));
                break;
            }
        }
        fclose(f);
    }
    TEST_CHECK(ggml_cpu_has_neon() == 0 && ggml_cpu_has_sve() == 0 && ggml_cpu_get_sve_cnt() == 0);
#endif
    TEST_CHECK(ggml_cpu_has_llamafile() == 0);
}

static void test_backend_object(void) {
    ggml_backend_t b = ggml_backend_cpu_init();
    TEST_CHECK(b != NULL);
    if (b == NULL) {
        return;
    }
    TEST_CHECK(ggml_backend_is_cpu(b));
    TEST_CHECK(!ggml_backend_is_cpu(NULL));
    TEST_CHECK(strcmp(ggml_backend_name(b), "CPU") == 0);
    TEST_CHECK(ggml_backend_get_device(b) == ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0));
    TEST_CHECK(ggml_backend_get_default_buffer_type(b) == ggml_backend_cpu_buffer_type());

    ggml_backend_t b2 = ggml_backend_dev_init(ggml_backend_get_device(b), NULL);
    TEST_CHECK(b2 != NULL && ggml_backend_is_cpu(b2));
    ggml_backend_t b3 = ggml_backend_init_by_name("CPU", NULL);
    TEST_CHECK(b3 != NULL && ggml_backend_is_cpu(b3));
    ggml_backend_free(b2);
    ggml_backend_free(b3);

    test_log_capture_begin();
    ggml_backend_cpu_set_n_threads(b, 0);
    ggml_backend_cpu_set_n_threads(NULL, 2);
    ggml_backend_cpu_set_abort_callback(NULL, NULL, NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();

    ggml_backend_set_n_threads_t set_n = (ggml_backend_set_n_threads_t)
        ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_set_n_threads");
    if (set_n != NULL) {
        set_n(b, 3);
    }
    ggml_backend_free(b);
}

//
// graphs on the backend
//

static void fill_random(struct ggml_tensor * t) {
    const int64_t n = ggml_nelements(t);
    float * tmp = malloc((size_t) n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        tmp[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    ggml_backend_tensor_set(t, tmp, 0, (size_t) n * sizeof(float));
    free(tmp);
}

// NMSE of node's (host) data against the reference; +inf when the reference fails
static double node_nmse(const struct ggml_tensor * node) {
    const int64_t n = ggml_nelements(node);
    double * ref = malloc((size_t) n * sizeof(double));
    float  * got = malloc((size_t) n * sizeof(float));
    char err[256];
    double e = INFINITY;
    if (ggml_ref_compute(node, ref, err, sizeof(err))) {
        // read through the node's strides in row-major order
        for (int64_t i3 = 0, k = 0; i3 < node->ne[3]; i3++)
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++)
        for (int64_t i1 = 0; i1 < node->ne[1]; i1++)
        for (int64_t i0 = 0; i0 < node->ne[0]; i0++, k++) {
            got[k] = (float) ggml_ref_get(node, i0, i1, i2, i3);
        }
        e = ggml_ref_nmse(ref, got, n);
    } else {
        printf("  reference failed for %s: %s\n", node->name, err);
    }
    free(ref);
    free(got);
    return e;
}

struct mixed_graph {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_cgraph  * graph;
    struct ggml_tensor  * out;
};

// a small network touching the unary, binary, copy, reduce and matmul families
static bool build_mixed(struct mixed_graph * m, ggml_backend_t backend) {
    struct ggml_init_params ip = { 64*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    m->ctx = ggml_init(ip);
    if (m->ctx == NULL) {
        return false;
    }
    struct ggml_context * ctx = m->ctx;
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 48, 33);   // weights [k, n]
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 48, 7);    // input   [k, m]
    struct ggml_tensor * bias = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 33);
    ggml_set_name(w, "w"); ggml_set_name(x, "x"); ggml_set_name(bias, "bias");

    struct ggml_tensor * y = ggml_mul_mat(ctx, w, x);                 // [33, 7]
    struct ggml_tensor * z = ggml_add(ctx, y, bias);                  // broadcast
    struct ggml_tensor * s = ggml_silu(ctx, z);
    struct ggml_tensor * t = ggml_cont(ctx, ggml_transpose(ctx, s));  // [7, 33]
    struct ggml_tensor * u = ggml_mul(ctx, t, t);
    struct ggml_tensor * r = ggml_sum_rows(ctx, u);                   // [1, 33]
    m->out = ggml_scale(ctx, r, 0.5f);
    ggml_set_name(m->out, "out");

    m->graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(m->graph, m->out);
    m->buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    if (m->buf == NULL) {
        return false;
    }
    fill_random(w);
    fill_random(x);
    fill_random(bias);
    return true;
}

static void free_mixed(struct mixed_graph * m) {
    ggml_backend_buffer_free(m->buf);
    ggml_free(m->ctx);
}

static void check_mixed(struct mixed_graph * m, const char * what) {
    for (int i = 0; i < ggml_graph_n_nodes(m->graph); i++) {
        struct ggml_tensor * node = ggml_graph_node(m->graph, i);
        const double e = node_nmse(node);
        TEST_CHECK_MSG(e < 1e-10, "%s: node %d %s (%s): nmse %g", what, i, node->name, ggml_op_desc(node), e);
    }
}

static bool g_abort_now;
static int  g_abort_polls;
static bool abort_cb(void * data) {
    GGML_UNUSED(data);
    g_abort_polls++;
    return g_abort_now;
}

static void test_compute(void) {
    ggml_backend_t b = ggml_backend_cpu_init();
    struct mixed_graph m;
    TEST_CHECK(build_mixed(&m, b));

    for (int n = 1; n <= 3; n++) {
        ggml_backend_cpu_set_n_threads(b, n);
        for (int i = 0; i < ggml_graph_n_nodes(m.graph); i++) {
            TEST_CHECK_MSG(ggml_backend_supports_op(b, ggml_graph_node(m.graph, i)), "node %d %s", i, ggml_op_desc(ggml_graph_node(m.graph, i)));
        }
        const enum ggml_status st = ggml_backend_graph_compute(b, m.graph);
        TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "%d threads: status %d", n, (int) st);
        char what[32];
        snprintf(what, sizeof(what), "%d threads", n);
        check_mixed(&m, what);
    }

    // graph plans
    float first[33], second[33];
    ggml_backend_tensor_get(m.out, first, 0, sizeof(first));
    ggml_backend_tensor_memset(m.out, 0, 0, sizeof(first));
    ggml_backend_graph_plan_t plan = ggml_backend_graph_plan_create(b, m.graph);
    TEST_CHECK(plan != NULL);
    if (plan != NULL) {
        TEST_CHECK(ggml_backend_graph_plan_compute(b, plan) == GGML_STATUS_SUCCESS);
        ggml_backend_graph_plan_free(b, plan);
    }
    ggml_backend_tensor_get(m.out, second, 0, sizeof(second));
    TEST_CHECK(memcmp(first, second, sizeof(first)) == 0);

    // abort callback: polled after every node; true stops the graph
    ggml_backend_set_abort_callback_t set_abort = (ggml_backend_set_abort_callback_t)
        ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "ggml_backend_set_abort_callback");
    TEST_CHECK(set_abort != NULL);
    if (set_abort != NULL) {
        set_abort(b, abort_cb, NULL);
        g_abort_now = false;
        g_abort_polls = 0;
        TEST_CHECK(ggml_backend_graph_compute(b, m.graph) == GGML_STATUS_SUCCESS);
        int computed = 0;
        for (int i = 0; i < ggml_graph_n_nodes(m.graph); i++) {
            const enum ggml_op op = ggml_graph_node(m.graph, i)->op;
            computed += !(op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_VIEW || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE);
        }
        TEST_CHECK_MSG(g_abort_polls == computed, "%d polls for %d computed nodes", g_abort_polls, computed);
        g_abort_now = true;
        g_abort_polls = 0;
        ggml_backend_tensor_memset(m.out, 0, 0, sizeof(first));
        TEST_CHECK(ggml_backend_graph_compute(b, m.graph) == GGML_STATUS_ABORTED);
        TEST_CHECK(g_abort_polls == 1);
        ggml_backend_tensor_get(m.out, second, 0, sizeof(second));
        TEST_CHECK(second[0] == 0.0f && second[32] == 0.0f); // the last node never ran
        ggml_backend_cpu_set_abort_callback(b, NULL, NULL);
    }

    // a thread pool of the user's
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(2);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    ggml_backend_cpu_set_threadpool(b, tp);
    ggml_backend_tensor_memset(m.out, 0, 0, sizeof(first));
    TEST_CHECK(ggml_backend_graph_compute(b, m.graph) == GGML_STATUS_SUCCESS);
    check_mixed(&m, "user threadpool");
    ggml_backend_cpu_set_threadpool(b, NULL);
    ggml_threadpool_free(tp);

    // reference mode computes the same
    ggml_backend_cpu_set_use_ref(b, true);
    TEST_CHECK(ggml_backend_graph_compute(b, m.graph) == GGML_STATUS_SUCCESS);
    check_mixed(&m, "use_ref");

    free_mixed(&m);
    ggml_backend_free(b);
}

static void test_unsupported(void) {
    ggml_backend_t b = ggml_backend_cpu_init();
    struct ggml_init_params ip = { 16*ggml_tensor_overhead() + 2*ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * good = ggml_sqr(ctx, a);
    // an op no CPU family computes, wired by hand
    struct ggml_tensor * bad = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    bad->op = GGML_OP_WIN_PART;
    bad->src[0] = good;
    ggml_set_name(bad, "unsupported_node");
    // a type the unary family does not take
    struct ggml_tensor * ai = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 16);
    struct ggml_tensor * bad_type = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 16);
    bad_type->op = GGML_OP_LOG;
    bad_type->src[0] = ai;

    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, bad);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, b);
    TEST_CHECK(buf != NULL);
    float ones[16];
    for (int i = 0; i < 16; i++) ones[i] = 3.0f;
    ggml_backend_tensor_set(a, ones, 0, sizeof(ones));
    ggml_backend_tensor_memset(good, 0, 0, sizeof(ones));

    TEST_CHECK(ggml_backend_supports_op(b, good));
    TEST_CHECK(!ggml_backend_supports_op(b, bad));
    TEST_CHECK(!ggml_backend_supports_op(b, bad_type));
    TEST_CHECK(!ggml_backend_offload_op(b, good));

    test_log_capture_begin();
    const enum ggml_status st = ggml_backend_graph_compute(b, g);
    const bool named = strstr(test_log_text(), "unsupported_node") != NULL;
    test_log_capture_end();
    TEST_CHECK_MSG(st == GGML_STATUS_FAILED, "status %d", (int) st);
    TEST_CHECK(named);
    // checked before anything ran: the supported node before it is still zero
    float got[16];
    ggml_backend_tensor_get(good, got, 0, sizeof(got));
    TEST_CHECK(got[0] == 0.0f && got[15] == 0.0f);

    // the backend is fine afterwards
    struct ggml_cgraph * g2 = ggml_new_graph(ctx);
    ggml_build_forward_expand(g2, good);
    TEST_CHECK(ggml_backend_graph_compute(b, g2) == GGML_STATUS_SUCCESS);
    ggml_backend_tensor_get(good, got, 0, sizeof(got));
    TEST_CHECK(got[0] == 9.0f && got[15] == 9.0f);

    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(b);
}

// builds y = mul_mat(w, x) in ctx; returns the graph (NULL when ctx is too small)
static struct ggml_cgraph * build_matmul(struct ggml_context * ctx, struct ggml_tensor ** y) {
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
    if (w == NULL || x == NULL) {
        return NULL;
    }
    for (int i = 0; i < 64*64; i++) {
        ((float *) w->data)[i] = (float) ((i*7) % 13) - 6.0f;
        ((float *) x->data)[i] = (float) ((i*5) % 11) * 0.25f - 1.0f;
    }
    *y = ggml_mul_mat(ctx, w, x);
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    if (*y == NULL || g == NULL) {
        return NULL;
    }
    ggml_build_forward_expand(g, *y);
    return g;
}

static void test_compute_with_ctx(void) {
    // measure what the tensors and graph take, then give a context only that much
    struct ggml_init_params big = { 1 << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(big);
    struct ggml_tensor * y = NULL;
    struct ggml_cgraph * g = build_matmul(ctx, &y);
    const size_t used = ggml_used_mem(ctx);
    struct ggml_cplan plan = ggml_graph_plan(g, 2, NULL);
    ggml_free(ctx);
    if (plan.work_size == 0) {
        printf("  mul_mat needs no work buffer here; the ALLOC_FAILED case is not reached\n");
    }

    struct ggml_init_params small = { used + 64, NULL, false };
    ctx = ggml_init(small);
    g = build_matmul(ctx, &y);
    TEST_CHECK(g != NULL);
    if (g != NULL && plan.work_size > 0) {
        test_log_capture_begin();
        const enum ggml_status st = ggml_graph_compute_with_ctx(ctx, g, 2);
        test_log_capture_end();
        TEST_CHECK_MSG(st == GGML_STATUS_ALLOC_FAILED, "status %d", (int) st);
    }
    ggml_free(ctx);

    // with room: computed, and right
    struct ggml_init_params enough = { used + plan.work_size + 4096, NULL, false };
    ctx = ggml_init(enough);
    g = build_matmul(ctx, &y);
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, g, 2) == GGML_STATUS_SUCCESS);
    TEST_CHECK(node_nmse(y) < 1e-10);
    // an independent spot check: y[i, j] = sum_k w[k, i] x[k, j]
    double want = 0;
    for (int k = 0; k < 64; k++) {
        want += (double) (((k + 64*5)*7) % 13 - 6) * ((double) (((k + 64*9)*5) % 11) * 0.25 - 1.0);
    }
    TEST_CHECK(fabs(ggml_get_f32_nd(y, 5, 9, 0, 0) - want) < 1e-3);
    ggml_free(ctx);
}

// out of memory: backend creation, pools and the work buffer fail cleanly (ASan checks leaks)
static void test_out_of_memory(void) {
    test_log_capture_begin();
    for (int k = 1; k <= 3; k++) {
        test_alloc_fault_set(k);
        ggml_backend_t b = ggml_backend_cpu_init();
        test_alloc_fault_set(0);
        TEST_CHECK(k > 2 || b == NULL);
        ggml_backend_free(b);
        struct ggml_threadpool_params p = ggml_threadpool_params_default(3);
        test_alloc_fault_set(k);
        struct ggml_threadpool * tp = ggml_threadpool_new(&p);
        test_alloc_fault_set(0);
        TEST_CHECK(k > 2 || tp == NULL);
        ggml_threadpool_free(tp);
    }
    test_log_capture_end();

    // the backend's work buffer cannot grow: ALLOC_FAILED, and the next try works
    ggml_backend_t b = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(b, 1); // no pool to create: the first allocation is the work buffer
    struct ggml_init_params ip = { 1 << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * y = NULL;
    struct ggml_cgraph * g = build_matmul(ctx, &y);
    struct ggml_cplan plan = ggml_graph_plan(g, 1, NULL);
    if (plan.work_size > 0) {
        test_log_capture_begin();
        test_alloc_fault_set(1);
        const enum ggml_status st = ggml_backend_graph_compute(b, g);
        test_alloc_fault_set(0);
        test_log_capture_end();
        TEST_CHECK_MSG(st == GGML_STATUS_ALLOC_FAILED, "status %d", (int) st);
    }
    TEST_CHECK(ggml_backend_graph_compute(b, g) == GGML_STATUS_SUCCESS);
    TEST_CHECK(node_nmse(y) < 1e-10);
    ggml_free(ctx);
    ggml_backend_free(b);
}

int main(void) {
    test_rng_init();
    test_registry();
    test_backend_object();
    test_compute();
    test_unsupported();
    test_compute_with_ctx();
    test_out_of_memory();
    return test_finish("test-cpu-backend");
}
