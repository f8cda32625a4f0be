// The meta device when things go wrong, beside the scheduler, and on a device whose memory is
// not host memory:
// - bad arguments to ggml_backend_meta_device;
// - split-state callbacks that return garbage (extents that do not add up, a bad axis, too many
//   segments, negative extents, axis-0 slices that cut a quantization block): logged, the data
//   access refused, graph_compute fails, nothing leaks;
// - host allocation fault injection over a whole meta program (every N until none is hit): a
//   clean failure with a log, or the right numbers;
// - a meta device over the two TEST devices (deferred async copies, not host memory): split and
//   partial tensors (built-in all-reduce through device copies), then a device that fails
//   mid-graph and a device buffer that cannot be allocated;
// - the scheduler with a meta device beside the CPU backend;
// - GGML_META_DEBUG=1 traces states and reductions.

#define _POSIX_C_SOURCE 200809L

#include "ggml-impl.h"
#include "test-backend.h"
#include "test-control.h"
#include "test-common.h"
#include "test-meta-util.h"

#include <stdlib.h>

static ggml_backend_dev_t g_cpu;

// --- bad arguments ---

static void test_bad_args(void) {
    ggml_backend_dev_t devs[17];
    for (int i = 0; i < 17; i++) {
        devs[i] = g_cpu;
    }
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_meta_device(NULL, 1, NULL, NULL) == NULL);
    TEST_CHECK(ggml_backend_meta_device(devs, 0, NULL, NULL) == NULL);
    TEST_CHECK(ggml_backend_meta_device(devs, 17, NULL, NULL) == NULL);
    ggml_backend_dev_t with_null[2] = { g_cpu, NULL };
    TEST_CHECK(ggml_backend_meta_device(with_null, 2, NULL, NULL) == NULL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 2, NULL, NULL);
    ggml_backend_dev_t nested[2] = { md, g_cpu };
    TEST_CHECK(md != NULL && ggml_backend_meta_device(nested, 2, NULL, NULL) == NULL);
    TEST_CHECK(test_log_error_count() >= 5);
    test_log_capture_end();
    TEST_CHECK(md != NULL && ggml_backend_dev_backend_reg(md) == NULL);
}

// --- garbage from the callback ---

static int g_garbage_kind;

static struct ggml_backend_meta_split_state garbage_state(const struct ggml_tensor * t, void * ud) {
    (void) ud;
    struct ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    if (strcmp(t->name, "w") != 0) {
        return s;
    }
    switch (g_garbage_kind) {
        case 0: s.axis = GGML_BACKEND_SPLIT_AXIS_1; s.ne[0] = 3; s.ne[1] = 3; break;            // adds up to 6, not 8
        case 1: s.axis = (enum ggml_backend_meta_split_axis) 42; break;                         // no such axis
        case 2: s.axis = GGML_BACKEND_SPLIT_AXIS_1; s.n_segments = 200; break;                  // too many segments
        case 3: s.axis = GGML_BACKEND_SPLIT_AXIS_1; s.ne[0] = -2; s.ne[1] = 10; break;          // negative extent
        case 4: s.axis = GGML_BACKEND_SPLIT_AXIS_0; s.ne[0] = 16; s.ne[1] = 48; break;          // cuts a Q8_0 block
        default: s.axis = GGML_BACKEND_SPLIT_AXIS_UNKNOWN; break;                                // internal value
    }
    return s;
}

static void test_garbage_callback(void) {
    ggml_backend_dev_t devs[2] = { g_cpu, g_cpu };
    for (g_garbage_kind = 0; g_garbage_kind < 6; g_garbage_kind++) {
        ggml_backend_dev_t md = ggml_backend_meta_device(devs, 2, garbage_state, &g_garbage_kind);
        ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
        struct ggml_context * w = mu_ctx(8), * c = mu_ctx(8);
        struct ggml_tensor * wt = ggml_new_tensor_2d(w, g_garbage_kind == 4 ? GGML_TYPE_Q8_0 : GGML_TYPE_F32, 64, 8);
        ggml_set_name(wt, "w");
        struct ggml_tensor * x = mu_leaf(w, "x", GGML_TYPE_F32, 64, 2);
        // the context allocator asks for the states at once: refused
        test_log_capture_begin();
        TEST_CHECK_MSG(ggml_backend_alloc_ctx_tensors_from_buft(w, ggml_backend_dev_buffer_type(md)) == NULL,
                "garbage %d: allocation refused", g_garbage_kind);
        TEST_CHECK(test_log_error_count() > 0);
        TEST_CHECK_MSG(ggml_last_error() == GGML_ERROR_INVALID_ARGUMENT, "garbage %d: last error %s", g_garbage_kind,
                ggml_error_code_name(ggml_last_error()));
        test_log_capture_end();
        // placed one by one, the state is asked on first use: data access and compute refused
        ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(md), 1 << 16);
        char * base = ggml_backend_buffer_get_base(buf);
        TEST_CHECK(ggml_backend_tensor_alloc(buf, wt, base) == GGML_STATUS_SUCCESS);
        TEST_CHECK(ggml_backend_tensor_alloc(buf, x, base + 8192) == GGML_STATUS_SUCCESS);
        ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        struct ggml_cgraph * gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, ggml_mul_mat(c, wt, x));
        ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_dev_buffer_type(md));
        TEST_CHECK(ggml_gallocr_alloc_graph(ga, gf));

        test_log_capture_begin();
        uint8_t data[64 * 8 * 4] = {0};
        ggml_backend_tensor_set(wt, data, 0, ggml_nbytes(wt));
        const int errs_set = test_log_error_count();
        const enum ggml_status st = ggml_backend_graph_compute(backend, gf);
        TEST_CHECK_MSG(errs_set > 0, "garbage %d: the write is refused with a log", g_garbage_kind);
        TEST_CHECK_MSG(st != GGML_STATUS_SUCCESS, "garbage %d: compute fails", g_garbage_kind);
        TEST_CHECK(test_log_error_count() > errs_set);
        test_log_capture_end();

        ggml_gallocr_free(ga);
        ggml_backend_buffer_free(buf);
        ggml_free(w);
        ggml_free(c);
        ggml_backend_free(backend);
    }
}

// --- the CPU registry's communication hooks ---

static void test_cpu_comm_hooks(void) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(g_cpu);
    ggml_backend_comm_init_t init = (ggml_backend_comm_init_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_init");
    ggml_backend_comm_free_t fr = (ggml_backend_comm_free_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_free");
    ggml_backend_comm_allreduce_tensor_t ar =
        (ggml_backend_comm_allreduce_tensor_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_allreduce_tensor");
    if (!TEST_CHECK(init != NULL && fr != NULL && ar != NULL)) {
        return;
    }
    ggml_backend_t bs[3] = { ggml_backend_cpu_init(), ggml_backend_cpu_init(), ggml_backend_cpu_init() };
    void * comm = init(bs, 3);
    TEST_CHECK(comm != NULL);
    struct ggml_context * ctx = mu_ctx(8);
    struct ggml_tensor * ts[3];
    for (int j = 0; j < 3; j++) {
        ts[j] = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
    float v[3][5], expect[5] = {0};
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 5; i++) {
            v[j][i] = mu_value(50 + (uint64_t) j, i);
            expect[i] += v[j][i];
        }
        ggml_backend_tensor_set(ts[j], v[j], 0, sizeof(v[j]));
    }
    TEST_CHECK(ar(comm, ts));
    for (int j = 0; j < 3; j++) {
        float got[5];
        ggml_backend_tensor_get(ts[j], got, 0, sizeof(got));
        TEST_CHECK_MSG(memcmp(got, expect, sizeof(got)) == 0, "CPU all-reduce: device %d holds the sum", j);
    }
    fr(comm);
    // a backend that is not the CPU's: no communicator (the meta device then reduces by itself)
    ggml_backend_t mixed[2] = { bs[0], test_backend_init() };
    TEST_CHECK(init(mixed, 2) == NULL);
    ggml_backend_free(mixed[1]);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    for (int j = 0; j < 3; j++) {
        ggml_backend_free(bs[j]);
    }
}

// --- writes into split tensors ---

static void test_split_writes(void) {
    ggml_backend_dev_t devs[2] = { g_cpu, g_cpu };
    struct mu_splits sp;
    memset(&sp, 0, sizeof(sp));
    sp.n_devs = 2;
    mu_rule_split(&sp, "cache", GGML_BACKEND_SPLIT_AXIS_1, 6, 1, (const double[]){ 1, 2 });
    mu_rule_split(&sp, "w_src", GGML_BACKEND_SPLIT_AXIS_1, 6, 1, (const double[]){ 1, 2 });
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 2, mu_get_split_state, &sp);
    ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
    struct ggml_context * w = mu_ctx(8), * c = mu_ctx(32);
    struct ggml_tensor * cache = mu_leaf(w, "cache", GGML_TYPE_F32, 4, 6);
    struct ggml_tensor * src = mu_leaf(w, "w_src", GGML_TYPE_F32, 4, 6);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(w, ggml_backend_dev_buffer_type(md));
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    mu_fill(w, 17);
    // refused: in place on a split tensor, a copy into a view of one
    TEST_CHECK(!ggml_backend_dev_supports_op(md, ggml_scale_inplace(c, cache, 2.0f)));
    TEST_CHECK(!ggml_backend_dev_supports_op(md, ggml_cpy(c, src, ggml_view_2d(c, cache, 4, 6, cache->nb[1], 0))));
    // computed: a copy into the whole split tensor from one split alike (each device its slice)
    struct ggml_tensor * cp = ggml_cpy(c, ggml_scale(c, src, 3.0f), cache);
    TEST_CHECK(ggml_backend_dev_supports_op(md, cp));
    struct ggml_cgraph * gf = ggml_new_graph(c);
    ggml_build_forward_expand(gf, cp);
    ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_dev_buffer_type(md));
    TEST_CHECK(ggml_gallocr_alloc_graph(ga, gf));
    TEST_CHECK(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS);
    float a[24], b[24];
    ggml_backend_tensor_get(src, a, 0, sizeof(a));
    ggml_backend_tensor_get(cache, b, 0, sizeof(b));
    bool same = true;
    for (int i = 0; i < 24; i++) {
        same = same && b[i] == 3.0f * a[i];
    }
    TEST_CHECK_MSG(same, "the copy into the split cache reads back whole");
    ggml_gallocr_free(ga);
    ggml_backend_buffer_free(buf);
    ggml_free(w);
    ggml_free(c);
    ggml_backend_free(backend);
}

// --- host allocation faults over a meta program ---

static const struct mu_block g_small = { 32, 4, 48, 3 };

static void test_alloc_faults(void) {
    ggml_backend_dev_t devs[3] = { g_cpu, g_cpu, g_cpu };
    struct mu_splits sp;
    mu_block_splits(&sp, 3, &g_small, NULL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 3, mu_get_split_state, &sp);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    int64_t n_ref = 0;
    float * ref = mu_run_once(cpu, ggml_backend_cpu_buffer_type(), mu_build_block, &g_small, 9, &n_ref);
    ggml_backend_free(cpu);
    setenv("GGML_META_COMM", "0", 1); // the built-in reduction allocates too
    int n_failed_clean = 0, n_ok = 0;
    for (long n = 1; n < 100000; n++) {
        test_log_capture_begin();
        test_alloc_fault_set(n);
        ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
        float * out = NULL;
        int64_t n_out = 0;
        if (backend != NULL) {
            out = mu_run_once(backend, ggml_backend_dev_buffer_type(md), mu_build_block, &g_small, 9, &n_out);
            ggml_backend_free(backend);
        }
        const long used = test_alloc_fault_count();
        test_alloc_fault_set(0);
        const int errs = test_log_error_count();
        test_log_capture_end();
        if (out != NULL && errs == 0) {
            const double e = mu_nmse(out, ref, n_ref);
            TEST_CHECK_MSG(n_out == n_ref && e < 1e-10, "fault %ld: success with wrong numbers (%.3e)", n, e);
            n_ok++;
        } else {
            // a failure, or a data write that failed (tensor_set has no status): logged either way
            TEST_CHECK_MSG(errs > 0, "fault %ld: a failure without a log", n);
            n_failed_clean++;
        }
        free(out);
        if (used < n) {
            break; // the run reached no n-th allocation: every point has been tried
        }
    }
    unsetenv("GGML_META_COMM");
    printf("  alloc faults: %d clean failures, %d successes\n", n_failed_clean, n_ok);
    TEST_CHECK(n_failed_clean > 10 && n_ok >= 1);
    free(ref);
}

// --- a meta device over the TEST devices ---

static struct ggml_tensor * build_test_graph(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * a = mu_leaf(w, "t_split", GGML_TYPE_F32, 8, 6);
    struct ggml_tensor * g = mu_leaf(w, "t_gain", GGML_TYPE_F32, 8, 1);
    struct ggml_tensor * p = mu_leaf(w, "t_part", GGML_TYPE_F32, 8, 6);
    struct ggml_tensor * h = ggml_mul(c, a, g);                 // stays split
    h = ggml_scale(c, h, 0.25f);
    return ggml_scale(c, ggml_add(c, h, p), 2.0f);              // gather + all-reduce
}

static void test_on_test_devices(void) {
    test_backend_reset_config();
    struct test_backend_stats st0, st1;
    test_backend_get_stats(&st0);
    ggml_backend_dev_t devs[2] = { test_backend_dev(0), test_backend_dev(1) };
    struct mu_splits sp;
    memset(&sp, 0, sizeof(sp));
    sp.n_devs = 2;
    mu_rule_split(&sp, "t_split", GGML_BACKEND_SPLIT_AXIS_1, 6, 1, (const double[]){ 2, 1 });
    mu_rule_axis(&sp, "t_part", GGML_BACKEND_SPLIT_AXIS_PARTIAL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 2, mu_get_split_state, &sp);
    ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    int64_t n_ref = 0, n_out = 0;
    float * ref = mu_run_once(cpu, ggml_backend_cpu_buffer_type(), build_test_graph, NULL, 3, &n_ref);
    float * out = mu_run_once(backend, ggml_backend_dev_buffer_type(md), build_test_graph, NULL, 3, &n_out);
    if (TEST_CHECK(out != NULL && ref != NULL && n_out == n_ref)) {
        TEST_CHECK_MSG(mu_nmse(out, ref, n_ref) < 1e-10, "TEST x2: normalized error %.3e", mu_nmse(out, ref, n_ref));
    }
    free(out);

    // a device that fails mid-graph
    test_backend_set_op_supported(GGML_OP_SCALE, false);
    test_log_capture_begin();
    out = mu_run_once(backend, ggml_backend_dev_buffer_type(md), build_test_graph, NULL, 3, &n_out);
    TEST_CHECK(out == NULL && test_log_error_count() > 0);
    test_log_capture_end();
    test_backend_reset_config();

    // a device buffer that cannot be allocated: the meta buffer fails whole, nothing kept
    test_backend_set_alloc_fail(2);
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(md), 4096) == NULL);
    TEST_CHECK(test_log_error_count() > 0);
    test_log_capture_end();
    test_backend_reset_config();

    ggml_backend_free(backend);
    ggml_backend_free(cpu);
    free(ref);
    test_backend_get_stats(&st1);
    TEST_CHECK(st1.buffers_alive == st0.buffers_alive && st1.backends_alive == st0.backends_alive);
    TEST_CHECK(st1.n_bad_access == 0);
}

// --- the scheduler with a meta device beside the CPU ---

static void test_scheduler(void) {
    ggml_backend_dev_t devs[3] = { g_cpu, g_cpu, g_cpu };
    struct mu_splits sp;
    memset(&sp, 0, sizeof(sp));
    sp.n_devs = 3;
    mu_rule_split(&sp, "wa", GGML_BACKEND_SPLIT_AXIS_1, 40, 1, NULL);
    mu_rule_split(&sp, "wb", GGML_BACKEND_SPLIT_AXIS_0, 40, 1, NULL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 3, mu_get_split_state, &sp);
    ggml_backend_t meta = ggml_backend_dev_init(md, NULL);
    ggml_backend_t cpu = ggml_backend_cpu_init();

    float out[2][12 * 4];
    for (int pass = 0; pass < 2; pass++) { // 0: one CPU device, 1: scheduler [meta, CPU]
        struct ggml_context * wm = mu_ctx(8), * wc = mu_ctx(8), * c = mu_ctx(64);
        struct ggml_tensor * wa = mu_leaf(wm, "wa", GGML_TYPE_F32, 16, 40);
        struct ggml_tensor * wb = mu_leaf(wm, "wb", GGML_TYPE_F32, 40, 24);
        struct ggml_tensor * wl = mu_leaf(wc, "wl", GGML_TYPE_F32, 24, 12); // on the CPU only
        ggml_backend_buffer_type_t bt = pass ? ggml_backend_dev_buffer_type(md) : ggml_backend_cpu_buffer_type();
        ggml_backend_buffer_t bm = ggml_backend_alloc_ctx_tensors_from_buft(wm, bt);
        ggml_backend_buffer_t bc = ggml_backend_alloc_ctx_tensors_from_buft(wc, ggml_backend_cpu_buffer_type());
        ggml_backend_buffer_set_usage(bm, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        ggml_backend_buffer_set_usage(bc, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        mu_fill(wm, 11);
        mu_fill(wc, 11);
        struct ggml_tensor * x = mu_leaf(c, "x_in", GGML_TYPE_F32, 16, 4);
        ggml_set_input(x);
        struct ggml_tensor * h = ggml_mul_mat(c, wb, ggml_silu(c, ggml_mul_mat(c, wa, x)));
        struct ggml_tensor * y = ggml_mul_mat(c, wl, ggml_rms_norm(c, h, 1e-5f));
        ggml_set_output(y);
        struct ggml_cgraph * gf = ggml_new_graph(c);
        ggml_build_forward_expand(gf, y);
        ggml_backend_t bs[2] = { pass ? meta : cpu, cpu };
        ggml_backend_sched_t sched = ggml_backend_sched_new(pass ? bs : bs + 1, NULL, pass ? 2 : 1, 256, false);
        TEST_CHECK(ggml_backend_sched_alloc_graph(sched, gf));
        float xin[16 * 4];
        for (int i = 0; i < 64; i++) {
            xin[i] = mu_value(1234, i);
        }
        ggml_backend_tensor_set(x, xin, 0, sizeof(xin));
        TEST_CHECK(ggml_backend_sched_graph_compute(sched, gf) == GGML_STATUS_SUCCESS);
        ggml_backend_tensor_get(y, out[pass], 0, sizeof(out[pass]));
        if (pass) {
            TEST_CHECK(ggml_backend_sched_get_tensor_backend(sched, h) == meta);
            TEST_CHECK(ggml_backend_sched_get_tensor_backend(sched, y) == cpu);
            TEST_CHECK(ggml_backend_sched_get_n_splits(sched) >= 2);
        }
        ggml_backend_sched_free(sched);
        ggml_backend_buffer_free(bm);
        ggml_backend_buffer_free(bc);
        ggml_free(wm);
        ggml_free(wc);
        ggml_free(c);
    }
    const double e = mu_nmse(out[1], out[0], 12 * 4);
    TEST_CHECK_MSG(e < 1e-10, "scheduler: normalized error %.3e", e);
    ggml_backend_free(meta);
    ggml_backend_free(cpu);
}

// --- the debug trace ---

static void test_debug_trace(void) {
    ggml_backend_dev_t devs[2] = { g_cpu, g_cpu };
    struct mu_splits sp;
    mu_block_splits(&sp, 2, &g_small, NULL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 2, mu_get_split_state, &sp);
    ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
    setenv("GGML_META_DEBUG", "1", 1);
    test_log_capture_begin();
    int64_t n_out = 0;
    float * out = mu_run_once(backend, ggml_backend_dev_buffer_type(md), mu_build_block, &g_small, 9, &n_out);
    const char * log = test_log_text();
    TEST_CHECK(out != NULL);
    TEST_CHECK(strstr(log, "all-reduce 'attn_out'") != NULL && strstr(log, "all-reduce 'ffn_out'") != NULL);
    TEST_CHECK(strstr(log, "wq") != NULL && strstr(log, "AXIS_1") != NULL && strstr(log, "PARTIAL") != NULL);
    test_log_capture_end();
    unsetenv("GGML_META_DEBUG");
    free(out);
    ggml_backend_free(backend);
}

int main(void) {
    g_cpu = ggml_backend_dev_by_name("CPU");
    test_bad_args();
    test_garbage_callback();
    test_on_test_devices();
    test_scheduler();
    test_split_writes();
    test_cpu_comm_hooks();
    test_debug_trace();
    test_alloc_faults();
    return test_finish("test-meta-faults");
}
