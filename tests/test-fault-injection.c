// Allocation fault injection over whole programs.
//
// Each program below is a representative use of the library (context and graph building, the
// graph allocator, backend buffers and graph copies, the scheduler, CPU computation, the backend
// registry). The driver runs each one with the N-th host allocation failing (through ggml_test_control),
// for N = 1, 2, 3, ... until a run reaches no N-th allocation, and checks at every N:
//   - the process lives (in fork mode every run is a child process whose exit status is checked);
//   - the program either reports the failure (NULL / false / an error status) or succeeds, and a
//     success gives the right numbers;
//   - a reported failure comes with an error in the log;
//   - nothing leaks: TEST buffers and streams are counted by the test backend; with ASan a run that
//     leaves more host memory in use is checked by LeakSanitizer for unreachable blocks right
//     away (and LeakSanitizer checks the whole process at exit).
// The same is done with the TEST backend's own failures: the N-th device buffer allocation and
// the N-th init_tensor.
//
// Mode: in-process under ASan (so that leaks can be attributed and LeakSanitizer sees them), a
// forked child per run otherwise (so that a crash is a counted failure, not the end of the test).
// FAULT_MODE=fork or FAULT_MODE=inprocess overrides. The module directory for the registry program
// comes from argv[1], TEST_MODULES_DIR, or <executable dir>/../modules.

#define _GNU_SOURCE // readlink, mkdtemp

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "ggml-ref.h"
#include "test-backend.h"
#include "test-common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#    define FI_ASAN 1
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer)
#        define FI_ASAN 1
#    endif
#endif
#ifdef FI_ASAN
// from the sanitizer runtime (declared here: the compiler's sanitizer headers may be missing)
size_t __sanitizer_get_current_allocated_bytes(void);
int    __lsan_do_recoverable_leak_check(void);
#endif

enum prog_result {
    PROG_OK,     // completed, results checked
    PROG_FAILED, // an API call reported a failure
    PROG_WRONG,  // every call claimed success but a result is wrong
};

static const char * g_module_dir;

// the line of the last early exit of a program, for the reports
static int g_exit_line;
#define GOTO_DONE do { g_exit_line = __LINE__; goto done; } while (0)

//
// data helpers
//

// deterministic values, never all zero, exactly representable in F16 (multiples of 1/64 in [-1, 1])
static float val(int i, int salt) {
    const int v = ((i * 37 + salt * 101 + 11) % 129) - 64;
    return (float) (v == 0 ? 17 : v) / 64.0f;
}

static void fill(float * x, int n, int salt) {
    for (int i = 0; i < n; i++) {
        x[i] = val(i, salt);
    }
}

static bool close_to(double expected, double got, double tol) {
    return fabs(expected - got) <= tol * (1.0 + fabs(expected));
}

static struct ggml_context * ctx_new(size_t size, bool no_alloc) {
    struct ggml_init_params p = { size, NULL, no_alloc };
    return ggml_init(p);
}

//
// (a) context, tensors, views and graph building
//

static enum prog_result prog_graph_build(void) {
    enum prog_result res = PROG_FAILED;
    static uint8_t user_arena[1 << 16];
    struct ggml_context * ctx = NULL, * uctx = NULL;

    const int gsize = GGML_DEFAULT_GRAPH_SIZE;
    ctx = ctx_new(ggml_graph_overhead_custom((size_t) gsize, true) * 3 + (size_t) (gsize + 64) * (ggml_tensor_overhead() + 256), false);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 8); // square: its transpose adds to it
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    if (a == NULL || b == NULL) {
        GOTO_DONE;
    }
    ggml_set_name(a, "a");
    ggml_set_param(a);
    // views of every kind
    struct ggml_tensor * v[6] = {
        ggml_view_2d(ctx, a, 4, 2, a->nb[1], 4 * sizeof(float)),
        ggml_reshape_1d(ctx, a, 64),
        ggml_transpose(ctx, a),
        ggml_permute(ctx, ggml_reshape_3d(ctx, a, 2, 4, 8), 1, 2, 0, 3),
        ggml_view_tensor(ctx, a),
        ggml_dup_tensor(ctx, a),
    };
    for (int i = 0; i < 6; i++) {
        if (v[i] == NULL) {
            GOTO_DONE;
        }
    }
    // a full-size graph: a chain of adds filling it exactly (nodes + leafs = size)
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, (size_t) gsize, true);
    if (gf == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * cur = ggml_add(ctx, a, ggml_cont(ctx, v[2]));
    for (int i = 0; cur != NULL && i < gsize - 4; i++) {
        cur = i % 2 ? ggml_add(ctx, cur, a) : ggml_scale(ctx, cur, 0.5f);
    }
    if (cur == NULL) {
        GOTO_DONE;
    }
    ggml_set_name(cur, "last");
    ggml_build_forward_expand(gf, cur);
    // a (a parameter, hence a node), the transpose, cont, the first add and the chain
    if (ggml_graph_n_nodes(gf) != gsize || ggml_graph_get_tensor(gf, "last") != cur) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    struct ggml_cgraph * gd = ggml_graph_dup(ctx, gf, false);
    if (gd == NULL) {
        GOTO_DONE;
    }
    if (ggml_graph_n_nodes(gd) != ggml_graph_n_nodes(gf)) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    // a context over user memory
    struct ggml_init_params up = { sizeof(user_arena), user_arena, false };
    uctx = ggml_init(up);
    if (uctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * u = ggml_new_tensor_1d(uctx, GGML_TYPE_F32, 16);
    if (u == NULL || ggml_get_tensor(uctx, "nothing") != NULL) {
        GOTO_DONE;
    }
    ggml_set_f32(u, 2.5f);
    if (ggml_get_f32_1d(u, 7) != 2.5f) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    res = PROG_OK;
done:
    ggml_free(uctx);
    ggml_free(ctx);
    return res;
}

//
// (b) graph allocator: a transformer-like block on the CPU buffer type, computed on the CPU
//

enum { BD = 64, BH = 4, BHD = 16, BT = 8, BFF = 128 };

struct block {
    struct ggml_context * wctx, * gctx;
    ggml_backend_buffer_t wbuf;
    struct ggml_tensor * wq, * wk, * wv, * wo, * w1, * w2, * w3, * g1, * g2;
    struct ggml_tensor * x, * mask, * out;
    struct ggml_cgraph * gf;
};

static void block_free(struct block * b) {
    ggml_backend_buffer_free(b->wbuf);
    ggml_free(b->gctx);
    ggml_free(b->wctx);
    memset(b, 0, sizeof(*b));
}

static bool block_set_weights(struct block * b) {
    struct ggml_tensor * w[9] = { b->wq, b->wk, b->wv, b->wo, b->w1, b->w2, b->w3, b->g1, b->g2 };
    float * tmp = malloc((size_t) BD * BFF * sizeof(float));
    if (tmp == NULL) {
        return false;
    }
    for (int i = 0; i < 9; i++) {
        const int n = (int) ggml_nelements(w[i]);
        fill(tmp, n, 10 + i);
        for (int j = 0; j < n; j++) {
            tmp[j] *= i < 7 ? 0.25f : 1.0f;
        }
        ggml_backend_tensor_set(w[i], tmp, 0, (size_t) n * sizeof(float));
    }
    free(tmp);
    return true;
}

// builds the weights (allocated in a CPU buffer) and the graph (not allocated); all_outputs marks
// every node as an output, so that no memory is reused and every node can be checked afterwards
static bool block_build(struct block * b, bool all_outputs) {
    memset(b, 0, sizeof(*b));
    b->wctx = ctx_new(16 * ggml_tensor_overhead(), true);
    if (b->wctx == NULL) {
        return false;
    }
    b->wq = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BD, BD);
    b->wk = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BD, BD);
    b->wv = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BD, BD);
    b->wo = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BD, BD);
    b->w1 = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BD, BFF);
    b->w3 = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BD, BFF);
    b->w2 = ggml_new_tensor_2d(b->wctx, GGML_TYPE_F32, BFF, BD);
    b->g1 = ggml_new_tensor_1d(b->wctx, GGML_TYPE_F32, BD);
    b->g2 = ggml_new_tensor_1d(b->wctx, GGML_TYPE_F32, BD);
    b->wbuf = ggml_backend_alloc_ctx_tensors_from_buft(b->wctx, ggml_backend_cpu_buffer_type());
    if (b->wbuf == NULL) {
        return false;
    }
    ggml_backend_buffer_set_usage(b->wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    if (!block_set_weights(b)) {
        return false;
    }

    b->gctx = ctx_new(ggml_graph_overhead() + 96 * ggml_tensor_overhead(), true);
    if (b->gctx == NULL) {
        return false;
    }
    struct ggml_context * ctx = b->gctx;
    b->x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, BD, BT);
    b->mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, BT, BT);
    ggml_set_input(b->x);
    ggml_set_input(b->mask);

    struct ggml_tensor * h = ggml_mul(ctx, ggml_rms_norm(ctx, b->x, 1e-5f), b->g1);
    struct ggml_tensor * q = ggml_permute(ctx, ggml_reshape_3d(ctx, ggml_mul_mat(ctx, b->wq, h), BHD, BH, BT), 0, 2, 1, 3);
    struct ggml_tensor * k = ggml_permute(ctx, ggml_reshape_3d(ctx, ggml_mul_mat(ctx, b->wk, h), BHD, BH, BT), 0, 2, 1, 3);
    struct ggml_tensor * vt = ggml_cont(ctx, ggml_permute(ctx, ggml_reshape_3d(ctx, ggml_mul_mat(ctx, b->wv, h), BHD, BH, BT), 1, 2, 0, 3));
    struct ggml_tensor * kq = ggml_soft_max_ext(ctx, ggml_mul_mat(ctx, k, q), b->mask, 0.25f, 0.0f);
    struct ggml_tensor * kqv = ggml_cont_2d(ctx, ggml_permute(ctx, ggml_mul_mat(ctx, vt, kq), 0, 2, 1, 3), BD, BT);
    struct ggml_tensor * x2 = ggml_add(ctx, b->x, ggml_mul_mat(ctx, b->wo, kqv));
    struct ggml_tensor * h2 = ggml_mul(ctx, ggml_rms_norm(ctx, x2, 1e-5f), b->g2);
    struct ggml_tensor * f = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, b->w1, h2), ggml_mul_mat(ctx, b->w3, h2));
    b->out = ggml_add(ctx, x2, ggml_mul_mat(ctx, b->w2, f));
    if (b->out == NULL) {
        return false;
    }
    ggml_set_output(b->out);
    b->gf = ggml_new_graph(ctx);
    if (b->gf == NULL) {
        return false;
    }
    ggml_build_forward_expand(b->gf, b->out);
    if (all_outputs) {
        for (int i = 0; i < ggml_graph_n_nodes(b->gf); i++) {
            ggml_set_output(ggml_graph_node(b->gf, i));
        }
    }
    return true;
}

static void block_inputs(const struct block * b) {
    float x[BD * BT], m[BT * BT];
    fill(x, BD * BT, 3);
    for (int i = 0; i < BT; i++) {
        for (int j = 0; j < BT; j++) {
            m[i * BT + j] = j <= i ? 0.0f : -INFINITY; // causal
        }
    }
    ggml_backend_tensor_set(b->x, x, 0, sizeof(x));
    ggml_backend_tensor_set(b->mask, m, 0, sizeof(m));
}

static float g_block_golden[BD * BT];

// element i of t in row-major order of its shape, read through its strides
static double get_flat(const struct ggml_tensor * t, int64_t i) {
    const int64_t i0 = i % t->ne[0];
    const int64_t i1 = (i / t->ne[0]) % t->ne[1];
    const int64_t i2 = (i / (t->ne[0] * t->ne[1])) % t->ne[2];
    const int64_t i3 = i / (t->ne[0] * t->ne[1] * t->ne[2]);
    return ggml_ref_get(t, i0, i1, i2, i3);
}

static enum prog_result prog_gallocr(void) {
    enum prog_result res = PROG_FAILED;
    struct block b;
    ggml_gallocr_t galloc = NULL;
    ggml_backend_t cpu = NULL;
    if (!block_build(&b, false)) {
        GOTO_DONE;
    }
    galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    if (galloc == NULL || !ggml_gallocr_reserve(galloc, b.gf) || !ggml_gallocr_alloc_graph(galloc, b.gf)) {
        GOTO_DONE;
    }
    if (ggml_gallocr_get_buffer_size(galloc, 0) == 0) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    block_inputs(&b);
    cpu = ggml_backend_cpu_init();
    if (cpu == NULL) {
        GOTO_DONE;
    }
    ggml_backend_cpu_set_n_threads(cpu, 2);
    if (ggml_backend_graph_compute(cpu, b.gf) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    float out[BD * BT];
    ggml_backend_tensor_get(b.out, out, 0, sizeof(out));
    res = PROG_OK;
    for (int i = 0; i < BD * BT; i++) {
        if (!close_to(g_block_golden[i], out[i], 1e-5)) {
            res = PROG_WRONG;
            break;
        }
    }
done:
    ggml_backend_free(cpu);
    ggml_gallocr_free(galloc);
    block_free(&b);
    return res;
}

// Computes the block once with every node kept, checks every node against the reference library
// and records the output. Returns false when the block cannot be computed at all.
static bool block_golden(void) {
    struct block b;
    bool ok = block_build(&b, true);
    ggml_gallocr_t galloc = ok ? ggml_gallocr_new(ggml_backend_cpu_buffer_type()) : NULL;
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ok = ok && galloc != NULL && cpu != NULL && ggml_gallocr_alloc_graph(galloc, b.gf);
    if (ok) {
        block_inputs(&b);
        ok = ggml_backend_graph_compute(cpu, b.gf) == GGML_STATUS_SUCCESS;
    }
    TEST_CHECK_MSG(ok, "the transformer block cannot be computed without faults");
    int n_checked = 0;
    for (int i = 0; ok && i < ggml_graph_n_nodes(b.gf); i++) {
        struct ggml_tensor * t = ggml_graph_node(b.gf, i);
        if (!ggml_ref_supports(t)) {
            continue;
        }
        const int64_t n = ggml_nelements(t);
        double * ref = malloc((size_t) n * sizeof(double));
        float * got = malloc((size_t) n * sizeof(float));
        char err[256] = "";
        if (ref != NULL && got != NULL && ggml_ref_compute(t, ref, err, sizeof(err))) {
            for (int64_t j = 0; j < n; j++) {
                got[j] = (float) get_flat(t, j);
            }
            const double e = ggml_ref_nmse(ref, got, n);
            TEST_CHECK_MSG(e < 1e-8, "block node %d (%s): nmse %g against the reference", i, ggml_op_desc(t), e);
            n_checked++;
        } else {
            TEST_CHECK_MSG(false, "block node %d (%s): reference failed: %s", i, ggml_op_desc(t), err);
        }
        free(ref);
        free(got);
    }
    if (ok) {
        TEST_CHECK(n_checked >= 10);
        ggml_backend_tensor_get(b.out, g_block_golden, 0, sizeof(g_block_golden));
    }
    ggml_backend_free(cpu);
    ggml_gallocr_free(galloc);
    block_free(&b);
    return ok;
}

// every tensor of a no_alloc context in one buffer, on the CPU and on the TEST buffer types
static enum prog_result prog_alloc_ctx_tensors(void) {
    enum prog_result res = PROG_FAILED;
    ggml_backend_t tb = NULL;
    ggml_backend_buffer_t b1 = NULL, b2 = NULL;
    struct ggml_context * ctx = ctx_new(8 * ggml_tensor_overhead(), true);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * t[4] = {
        ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 33, 7),
        ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 100),
        ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 4, 4, 4),
        ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 5),
    };
    b1 = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
    if (b1 == NULL) {
        GOTO_DONE;
    }
    for (int i = 0; i < 4; i++) {
        if (t[i]->buffer != b1 || t[i]->data == NULL) {
            res = PROG_WRONG;
            GOTO_DONE;
        }
    }
    float x[25], y[25];
    fill(x, 25, 5);
    ggml_backend_tensor_set(t[3], x, 0, sizeof(x));
    ggml_backend_tensor_get(t[3], y, 0, sizeof(y));
    if (memcmp(x, y, sizeof(x)) != 0) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    // the same tensors once more, now in TEST memory
    ggml_free(ctx);
    ctx = ctx_new(8 * ggml_tensor_overhead(), true);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * u = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 5);
    ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 100);
    tb = test_backend_init();
    if (tb == NULL) {
        GOTO_DONE;
    }
    b2 = ggml_backend_alloc_ctx_tensors(ctx, tb);
    if (b2 == NULL) {
        GOTO_DONE;
    }
    ggml_backend_tensor_set(u, x, 0, sizeof(x));
    memset(y, 0, sizeof(y));
    ggml_backend_tensor_get(u, y, 0, sizeof(y));
    res = memcmp(x, y, sizeof(x)) == 0 ? PROG_OK : PROG_WRONG;
done:
    ggml_backend_buffer_free(b2);
    ggml_backend_buffer_free(b1);
    ggml_backend_free(tb);
    ggml_free(ctx);
    return res;
}

//
// (c) backend buffers, data access, graph allocation and compute on the TEST backend, graph copy
//

enum { CA = 16 * 4, CB = 16 };

static double c_expected(const float * a, const float * b, int i) {
    const double c = (double) a[i] + (double) b[i % 16];
    return (c * a[i]) * 0.5 + 1.0;
}

static enum prog_result prog_test_backend(void) {
    enum prog_result res = PROG_FAILED;
    struct ggml_context * wctx = NULL, * gctx = NULL, * hctx = NULL;
    ggml_backend_buffer_t wbuf = NULL;
    ggml_gallocr_t galloc = NULL;
    ggml_backend_t be = NULL;
    struct ggml_backend_graph_copy copy = { 0 };
    float va[CA], vb[CB], out[CA];
    fill(va, CA, 1);
    fill(vb, CB, 2);

    be = test_backend_init();
    if (be == NULL) {
        GOTO_DONE;
    }
    wctx = ctx_new(4 * ggml_tensor_overhead(), true);
    if (wctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, 16, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(wctx, GGML_TYPE_F32, 16, 1);
    wbuf = ggml_backend_alloc_ctx_tensors(wctx, be);
    if (wbuf == NULL) {
        GOTO_DONE;
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));

    // a graph allocated by the graph allocator in TEST memory, computed on the TEST backend
    gctx = ctx_new(ggml_graph_overhead() + 8 * ggml_tensor_overhead(), true);
    if (gctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * e = ggml_scale_bias(gctx, ggml_mul(gctx, ggml_add(gctx, a, b), a), 0.5f, 1.0f);
    struct ggml_cgraph * gf = ggml_new_graph(gctx);
    if (e == NULL || gf == NULL) {
        GOTO_DONE;
    }
    ggml_set_output(e);
    ggml_build_forward_expand(gf, e);
    galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(be));
    if (galloc == NULL || !ggml_gallocr_alloc_graph(galloc, gf)) {
        GOTO_DONE;
    }
    if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    ggml_backend_tensor_get(e, out, 0, sizeof(out));
    for (int i = 0; i < CA; i++) {
        if (!close_to(c_expected(va, vb, i), out[i], 1e-6)) {
            res = PROG_WRONG;
            GOTO_DONE;
        }
    }

    // a host graph copied to the TEST backend with its data, computed there
    hctx = ctx_new(ggml_graph_overhead() + 8 * ggml_tensor_overhead() + 2 * sizeof(va), false);
    if (hctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * ha = ggml_new_tensor_2d(hctx, GGML_TYPE_F32, 16, 4);
    struct ggml_tensor * hb = ggml_new_tensor_2d(hctx, GGML_TYPE_F32, 16, 1);
    if (ha == NULL || hb == NULL) {
        GOTO_DONE;
    }
    memcpy(ha->data, va, sizeof(va));
    memcpy(hb->data, vb, sizeof(vb));
    struct ggml_tensor * he = ggml_scale_bias(hctx, ggml_mul(hctx, ggml_add(hctx, ha, hb), ha), 0.5f, 1.0f);
    struct ggml_cgraph * hg = ggml_new_graph(hctx);
    if (he == NULL || hg == NULL) {
        GOTO_DONE;
    }
    ggml_build_forward_expand(hg, he);
    copy = ggml_backend_graph_copy(be, hg);
    if (copy.graph == NULL) {
        GOTO_DONE;
    }
    if (ggml_backend_graph_compute(be, copy.graph) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    memset(out, 0, sizeof(out));
    ggml_backend_tensor_get(ggml_graph_node(copy.graph, -1), out, 0, sizeof(out));
    for (int i = 0; i < CA; i++) {
        if (!close_to(c_expected(va, vb, i), out[i], 1e-6)) {
            res = PROG_WRONG;
            GOTO_DONE;
        }
    }
    // a copy from TEST memory to host memory and back
    ggml_backend_tensor_copy(e, ha);
    ggml_backend_tensor_copy(ha, a);
    memset(out, 0, sizeof(out));
    ggml_backend_tensor_get(a, out, 0, sizeof(out));
    res = PROG_OK;
    for (int i = 0; i < CA; i++) {
        if (!close_to(c_expected(va, vb, i), out[i], 1e-6)) {
            res = PROG_WRONG;
            break;
        }
    }
done:
    if (copy.graph != NULL || copy.buffer != NULL) {
        ggml_backend_graph_copy_free(copy);
    }
    ggml_gallocr_free(galloc);
    ggml_backend_buffer_free(wbuf);
    ggml_free(hctx);
    ggml_free(gctx);
    ggml_free(wctx);
    ggml_backend_free(be);
    return res;
}

//
// (d) the scheduler: TEST (preferred) and CPU; adds on TEST, mul_mat on the CPU
//

enum { SK = 16, SR = 4, SN = 8 };

static enum prog_result prog_sched_impl(bool parallel) {
    enum prog_result res = PROG_FAILED;
    ggml_backend_t tb = NULL, cpu = NULL;
    ggml_backend_sched_t sched = NULL;
    struct ggml_context * wctx_t = NULL, * wctx_c = NULL, * gctx = NULL;
    ggml_backend_buffer_t buf_t = NULL, buf_c = NULL;
    float vx[SK * SR], vw1[SK * SR], vwm[SK * SN], out[SN * SR];
    fill(vx, SK * SR, 7);
    fill(vw1, SK * SR, 8);
    fill(vwm, SK * SN, 9);

    tb = test_backend_init();
    cpu = ggml_backend_cpu_init();
    if (tb == NULL || cpu == NULL) {
        GOTO_DONE;
    }
    ggml_backend_cpu_set_n_threads(cpu, 2);
    wctx_t = ctx_new(2 * ggml_tensor_overhead(), true);
    wctx_c = ctx_new(2 * ggml_tensor_overhead(), true);
    if (wctx_t == NULL || wctx_c == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * w1 = ggml_new_tensor_2d(wctx_t, GGML_TYPE_F32, SK, SR);
    struct ggml_tensor * wm = ggml_new_tensor_2d(wctx_c, GGML_TYPE_F32, SK, SN);
    buf_t = ggml_backend_alloc_ctx_tensors(wctx_t, tb);
    buf_c = ggml_backend_alloc_ctx_tensors(wctx_c, cpu);
    if (buf_t == NULL || buf_c == NULL) {
        GOTO_DONE;
    }
    ggml_backend_buffer_set_usage(buf_t, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_buffer_set_usage(buf_c, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_tensor_set(w1, vw1, 0, sizeof(vw1));
    ggml_backend_tensor_set(wm, vwm, 0, sizeof(vwm));

    gctx = ctx_new(ggml_graph_overhead() + 16 * ggml_tensor_overhead(), true);
    if (gctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * x = ggml_new_tensor_2d(gctx, GGML_TYPE_F32, SK, SR);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_add(gctx, x, w1);                   // TEST: w1 lives there
    struct ggml_tensor * z = ggml_mul_mat(gctx, wm, y);               // CPU: TEST has no mul_mat
    struct ggml_tensor * o = ggml_add(gctx, ggml_scale(gctx, z, 0.5f), z);
    struct ggml_cgraph * gf = ggml_new_graph_custom(gctx, 64, false);
    if (o == NULL || gf == NULL) {
        GOTO_DONE;
    }
    ggml_set_output(o);
    ggml_build_forward_expand(gf, o);

    ggml_backend_t backends[2] = { tb, cpu };
    sched = ggml_backend_sched_new(backends, NULL, 2, 64, parallel);
    if (sched == NULL || !ggml_backend_sched_reserve(sched, gf) || !ggml_backend_sched_alloc_graph(sched, gf)) {
        GOTO_DONE;
    }
    ggml_backend_tensor_set(x, vx, 0, sizeof(vx));
    if (ggml_backend_sched_graph_compute(sched, gf) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    ggml_backend_tensor_get(o, out, 0, sizeof(out));
    res = PROG_OK;
    for (int r = 0; r < SR; r++) {
        for (int n = 0; n < SN; n++) {
            double s = 0;
            for (int k = 0; k < SK; k++) {
                s += (double) vwm[n * SK + k] * ((double) vx[r * SK + k] + vw1[r * SK + k]);
            }
            if (!close_to(1.5 * s, out[r * SN + n], 1e-5)) {
                res = PROG_WRONG;
            }
        }
    }
done:
    ggml_backend_sched_free(sched);
    ggml_free(gctx);
    ggml_backend_buffer_free(buf_t);
    ggml_backend_buffer_free(buf_c);
    ggml_free(wctx_t);
    ggml_free(wctx_c);
    ggml_backend_free(cpu);
    ggml_backend_free(tb);
    return res;
}

static enum prog_result prog_sched(void) {
    return prog_sched_impl(false);
}

static enum prog_result prog_sched_parallel(void) {
    return prog_sched_impl(true);
}

//
// (e) CPU computation: the backend, ggml_graph_compute_with_ctx and a plan with a user threadpool
//

enum { EK = 64, EM = 24, EN = 8 };

static bool e_check(const struct ggml_tensor * sm, const float * va, const float * vb, const float * out) {
    (void) sm;
    for (int j = 0; j < EN; j++) {
        double row[EM], mx = -INFINITY, sum = 0;
        for (int i = 0; i < EM; i++) {
            double s = 0;
            for (int k = 0; k < EK; k++) {
                s += (double) va[i * EK + k] * vb[j * EK + k];
            }
            row[i] = s * 0.5;
            mx = row[i] > mx ? row[i] : mx;
        }
        for (int i = 0; i < EM; i++) {
            row[i] = exp(row[i] - mx);
            sum += row[i];
        }
        for (int i = 0; i < EM; i++) {
            if (!close_to(row[i] / sum, out[j * EM + i], 2e-3)) {
                return false;
            }
        }
    }
    return true;
}

static enum prog_result prog_cpu(void) {
    enum prog_result res = PROG_FAILED;
    ggml_backend_t cpu = NULL;
    struct ggml_context * ctx = NULL;
    struct ggml_threadpool * tp = NULL;
    uint8_t * work = NULL;
    static float va[EK * EM], vb[EK * EN], out[EM * EN];
    fill(va, EK * EM, 4);
    fill(vb, EK * EN, 5);

    cpu = ggml_backend_cpu_init();
    if (cpu == NULL) {
        GOTO_DONE;
    }
    ggml_backend_cpu_set_n_threads(cpu, 2);
    ctx = ctx_new(ggml_graph_overhead() + 16 * ggml_tensor_overhead() + ((size_t) 4 << 20), false);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, EK, EM); // F16 weights: B is converted in the work buffer
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, EK, EN);
    if (a == NULL || b == NULL) {
        GOTO_DONE;
    }
    ggml_fp32_to_fp16_row(va, a->data, EK * EM);
    memcpy(b->data, vb, sizeof(vb));
    struct ggml_tensor * sm = ggml_soft_max_ext(ctx, ggml_mul_mat(ctx, a, b), NULL, 0.5f, 0.0f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    if (sm == NULL || gf == NULL) {
        GOTO_DONE;
    }
    ggml_build_forward_expand(gf, sm);

    // 1. the backend
    if (ggml_backend_graph_compute(cpu, gf) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    if (!e_check(sm, va, vb, sm->data)) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    // 2. the work buffer in the context
    memset(sm->data, 0, ggml_nbytes(sm));
    if (ggml_graph_compute_with_ctx(ctx, gf, 2) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    if (!e_check(sm, va, vb, sm->data)) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    // 3. a plan on a threadpool of our own
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(2);
    tp = ggml_threadpool_new(&tpp);
    if (tp == NULL) {
        GOTO_DONE;
    }
    struct ggml_cplan plan = ggml_graph_plan(gf, 2, tp);
    if (plan.n_threads <= 0) {
        GOTO_DONE;
    }
    if (plan.work_size > 0) {
        work = malloc(plan.work_size);
        if (work == NULL) {
            GOTO_DONE;
        }
        plan.work_data = work;
    }
    memset(sm->data, 0, ggml_nbytes(sm));
    if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    memcpy(out, sm->data, sizeof(out));
    res = e_check(sm, va, vb, out) ? PROG_OK : PROG_WRONG;
done:
    free(work);
    ggml_threadpool_free(tp);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    return res;
}

//
// (f) the registry: loading the test module, using its device, unloading; load_all_from_path
//

static enum prog_result prog_registry(void) {
    enum prog_result res = PROG_FAILED;
    char path[1024];
    snprintf(path, sizeof(path), "%s/libggml-testmod.so", g_module_dir);
    ggml_backend_reg_t reg = ggml_backend_load(path);
    ggml_backend_t be = NULL;
    ggml_backend_buffer_t buf = NULL;
    struct ggml_context * ctx = NULL;
    if (reg == NULL) {
        GOTO_DONE;
    }
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
    if (dev == NULL || ggml_backend_dev_by_name("TestMod0") != dev) {
        GOTO_DONE;
    }
    be = ggml_backend_dev_init(dev, NULL);
    if (be == NULL) {
        GOTO_DONE;
    }
    ctx = ctx_new(ggml_graph_overhead() + 4 * ggml_tensor_overhead(), true);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * c = ggml_add(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    if (c == NULL || gf == NULL) {
        GOTO_DONE;
    }
    ggml_build_forward_expand(gf, c);
    buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (buf == NULL) {
        GOTO_DONE;
    }
    float va[8], vb[8], vc[8];
    fill(va, 8, 1);
    fill(vb, 8, 2);
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));
    if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    ggml_backend_tensor_get(c, vc, 0, sizeof(vc));
    for (int i = 0; i < 8; i++) {
        if (vc[i] != va[i] + vb[i]) {
            res = PROG_WRONG;
            GOTO_DONE;
        }
    }
    ggml_backend_buffer_free(buf);
    buf = NULL;
    ggml_backend_free(be);
    be = NULL;
    ggml_backend_unload(reg);
    reg = NULL;
    if (ggml_backend_reg_by_name("TESTMOD") != NULL) {
        res = PROG_WRONG;
        GOTO_DONE;
    }

    // the best variant of every module in the directory (broken ones are refused with a log line)
    ggml_backend_load_all_from_path(g_module_dir);
    reg = ggml_backend_reg_by_name("TESTMOD");
    if (reg == NULL) {
        GOTO_DONE;
    }
    res = PROG_OK;
done:
    ggml_backend_buffer_free(buf);
    ggml_backend_free(be);
    ggml_free(ctx);
    if (reg != NULL) {
        ggml_backend_unload(reg);
    }
    return res;
}

//
// (g) streams: asynchronous set/get, events, copies between streams and through host memory,
//     multi-buffers (a small max buffer size), graph plans on the CPU, comparing two backends
//

enum { GN = 64 };

static enum prog_result prog_streams(void) {
    enum prog_result res = PROG_FAILED;
    ggml_backend_t b0 = NULL, b1 = NULL;
    ggml_backend_event_t ev = NULL;
    ggml_backend_buffer_t buf = NULL, hbuf = NULL;
    struct ggml_context * ctx = NULL;
    float v[GN], got[GN];
    fill(v, GN, 21);

    b0 = test_backend_init_dev(0);
    b1 = test_backend_init_dev(1);
    if (b0 == NULL || b1 == NULL) {
        GOTO_DONE;
    }
    ctx = ctx_new(8 * ggml_tensor_overhead(), true);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    // x and y in TEST, z in TEST1 (all in one multi-buffer per type: max size forces splitting)
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, GN);
    struct ggml_tensor * y = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, GN);
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, GN);
    test_backend_set_max_size(GN * sizeof(float) + 128);
    buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, test_backend_buffer_type(0));
    test_backend_set_max_size(SIZE_MAX);
    if (buf == NULL) {
        GOTO_DONE;
    }
    struct ggml_context * hctx = ctx; // z lives in host memory, placed by hand
    struct ggml_tensor * z = ggml_new_tensor_1d(hctx, GGML_TYPE_F32, GN);
    hbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), ggml_nbytes(z));
    if (hbuf == NULL || z == NULL) {
        GOTO_DONE;
    }
    if (ggml_backend_tensor_alloc(hbuf, z, ggml_backend_buffer_get_base(hbuf)) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    ggml_backend_tensor_set_async(b0, x, v, 0, sizeof(v));
    // regression for finding F1 (fixed): when event_new failed for lack of memory nothing was logged
    ev = ggml_backend_event_new(ggml_backend_get_device(b0));
    if (ev == NULL) {
        GOTO_DONE;
    }
    ggml_backend_event_record(ev, b0);
    ggml_backend_event_wait(b1, ev);
    ggml_backend_tensor_copy_async(b0, b1, x, y);    // TEST -> TEST (one device, two streams)
    ggml_backend_synchronize(b1);
    test_backend_set_cpy_tensor(false);              // buffer copies go through host memory
    ggml_backend_tensor_copy(y, w);
    test_backend_set_cpy_tensor(true);
    ggml_backend_tensor_copy(w, z);                  // TEST -> host
    ggml_backend_event_synchronize(ev);
    memset(got, 0, sizeof(got));
    ggml_backend_tensor_get_async(b1, w, got, 0, sizeof(got));
    ggml_backend_synchronize(b1);
    if (memcmp(got, v, sizeof(v)) != 0 || memcmp(z->data, v, sizeof(v)) != 0) {
        res = PROG_WRONG;
        GOTO_DONE;
    }
    res = PROG_OK;
done:
    // queued copies write into the buffers: finish them before the buffers go
    if (b0 != NULL) {
        ggml_backend_synchronize(b0);
    }
    if (b1 != NULL) {
        ggml_backend_synchronize(b1);
    }
    test_backend_reset_config();
    ggml_backend_event_free(ev);
    ggml_backend_buffer_free(buf);
    ggml_backend_buffer_free(hbuf);
    ggml_free(ctx);
    ggml_backend_free(b1);
    ggml_backend_free(b0);
    return res;
}

struct cmp_state {
    int n_calls;
    bool same;
};

static bool cmp_cb(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2, void * user_data) {
    (void) node_index;
    struct cmp_state * st = user_data;
    st->n_calls++;
    float a[CA], b[CA];
    const size_t n = ggml_nbytes(t1);
    if (n != ggml_nbytes(t2) || n > sizeof(a)) {
        st->same = false;
        return false;
    }
    // the graph on the CPU lives in context memory (no buffer), its copy in a TEST buffer
    if (t1->buffer != NULL) {
        ggml_backend_tensor_get(t1, a, 0, n);
    } else {
        memcpy(a, t1->data, n);
    }
    ggml_backend_tensor_get(t2, b, 0, n);
    for (size_t i = 0; i < n / sizeof(float); i++) {
        if (!close_to(a[i], b[i], 1e-6)) {
            st->same = false;
        }
    }
    return true;
}

static enum prog_result prog_cpu_plans(void) {
    enum prog_result res = PROG_FAILED;
    ggml_backend_t cpu = NULL, tb = NULL;
    struct ggml_context * ctx = NULL;
    ggml_backend_graph_plan_t plan = NULL;
    float va[CA], vb[CB];
    fill(va, CA, 1);
    fill(vb, CB, 2);

    cpu = ggml_backend_cpu_init();
    tb = test_backend_init();
    if (cpu == NULL || tb == NULL) {
        GOTO_DONE;
    }
    ggml_backend_cpu_set_n_threads(cpu, 2);
    ctx = ctx_new(ggml_graph_overhead() + 8 * ggml_tensor_overhead() + 4 * sizeof(va), false);
    if (ctx == NULL) {
        GOTO_DONE;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 1);
    if (a == NULL || b == NULL) {
        GOTO_DONE;
    }
    memcpy(a->data, va, sizeof(va));
    memcpy(b->data, vb, sizeof(vb));
    struct ggml_tensor * e = ggml_scale_bias(ctx, ggml_mul(ctx, ggml_add(ctx, a, b), a), 0.5f, 1.0f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    if (e == NULL || gf == NULL) {
        GOTO_DONE;
    }
    ggml_build_forward_expand(gf, e);
    plan = ggml_backend_graph_plan_create(cpu, gf);
    if (plan == NULL) {
        GOTO_DONE;
    }
    if (ggml_backend_graph_plan_compute(cpu, plan) != GGML_STATUS_SUCCESS) {
        GOTO_DONE;
    }
    for (int i = 0; i < CA; i++) {
        if (!close_to(c_expected(va, vb, i), ((const float *) e->data)[i], 1e-6)) {
            res = PROG_WRONG;
            GOTO_DONE;
        }
    }
    // the graph on the CPU and a copy of it on TEST, node by node
    struct cmp_state st = { 0, true };
    if (!ggml_backend_compare_graph_backend(cpu, tb, gf, cmp_cb, &st)) {
        GOTO_DONE;
    }
    res = st.same && st.n_calls == ggml_graph_n_nodes(gf) ? PROG_OK : PROG_WRONG;
done:
    if (plan != NULL) {
        ggml_backend_graph_plan_free(cpu, plan);
    }
    ggml_free(ctx);
    ggml_backend_free(tb);
    ggml_backend_free(cpu);
    return res;
}

//
// the driver
//

enum fault_kind {
    FAULT_HOST,     // the N-th host allocation (ggml_malloc & co)
    FAULT_TB_ALLOC, // the N-th TEST buffer allocation
    FAULT_TB_INIT,  // the N-th TEST init_tensor
};

static const char * fault_kind_name(enum fault_kind k) {
    switch (k) {
        case FAULT_HOST:     return "host allocation";
        case FAULT_TB_ALLOC: return "TEST buffer allocation";
        case FAULT_TB_INIT:  return "TEST init_tensor";
    }
    return "?";
}

struct run_report {
    int    result;       // enum prog_result
    long   reached;      // calls of the faulted kind made during the run
    int    n_err;        // errors logged
    int    last_error;   // the thread's last error when the program returned (enum ggml_error_code)
    char   last_message[160];
    int    exit_line;    // where the program gave up (0: it did not)
    long   tb_buffers;   // TEST buffers left alive by the run
    long   tb_backends;  // TEST streams left alive by the run
    long   leak_bytes;   // host bytes left allocated by the run (ASan only, else 0)
    char   log[240];     // start of the captured log
};

struct program {
    const char * name;
    enum prog_result (*run)(void);
    bool uses_test_backend;
    bool available;
};

static void run_in_process(const struct program * p, enum fault_kind kind, long n, struct run_report * r) {
    memset(r, 0, sizeof(*r));
    struct test_backend_stats s0, s1;
    test_backend_get_stats(&s0);
#ifdef FI_ASAN
    const size_t bytes0 = __sanitizer_get_current_allocated_bytes();
#endif
    test_log_capture_begin();
    switch (kind) {
        case FAULT_HOST:     test_alloc_fault_set(n); break;
        case FAULT_TB_ALLOC: test_backend_set_alloc_fail(n); break;
        case FAULT_TB_INIT:  test_backend_set_init_tensor_fail(n); break;
    }
    g_exit_line = 0;
    ggml_clear_last_error();
    r->result = (int) p->run();
    r->last_error = (int) ggml_last_error();
    snprintf(r->last_message, sizeof(r->last_message), "%s", ggml_last_error_message());
    r->exit_line = g_exit_line;
    const long host_used = test_alloc_fault_count();
    test_alloc_fault_set(0);
    test_backend_set_alloc_fail(0);
    test_backend_set_init_tensor_fail(0);
    test_log_capture_end();
    test_backend_get_stats(&s1);
#ifdef FI_ASAN
    // More bytes in use than before the run is a leak only when LeakSanitizer finds unreachable
    // blocks: memory that stays reachable is a cache (glibc keeps the thread-control blocks of
    // exited threads until it reuses them). LeakSanitizer prints the blocks with their
    // allocation stacks. Once a leak has been seen, later runs report it again; only the first is
    // attributed.
    static bool leak_seen;
    const size_t bytes1 = __sanitizer_get_current_allocated_bytes();
    if (bytes1 != bytes0 && !leak_seen && __lsan_do_recoverable_leak_check() != 0) {
        leak_seen = true;
        r->leak_bytes = (long) bytes1 - (long) bytes0;
    }
#endif
    switch (kind) {
        case FAULT_HOST:     r->reached = host_used; break;
        case FAULT_TB_ALLOC: r->reached = (s1.n_alloc + s1.n_alloc_failed) - (s0.n_alloc + s0.n_alloc_failed); break;
        case FAULT_TB_INIT:  r->reached = s1.n_init_tensor - s0.n_init_tensor; break;
    }
    r->n_err = test_log_error_count();
    r->tb_buffers = s1.buffers_alive - s0.buffers_alive;
    r->tb_backends = s1.backends_alive - s0.backends_alive;
    snprintf(r->log, sizeof(r->log), "%s", test_log_text());
}

// Runs in a child process; false (with *why) when the child died or did not report.
static bool run_forked(const struct program * p, enum fault_kind kind, long n, struct run_report * r, char * why, size_t why_size) {
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, why_size, "pipe: %s", strerror(errno));
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(why, why_size, "fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        struct run_report rep;
        run_in_process(p, kind, n, &rep);
        const ssize_t w = write(fds[1], &rep, sizeof(rep));
        _exit(w == (ssize_t) sizeof(rep) ? 0 : 3);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof(*r)) {
        const ssize_t k = read(fds[0], (char *) r + got, sizeof(*r) - got);
        if (k <= 0) {
            if (k < 0 && errno == EINTR) {
                continue;
            }
            break;
        }
        got += (size_t) k;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        snprintf(why, why_size, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != sizeof(*r)) {
        snprintf(why, why_size, "exited with status %d without a report", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    return true;
}

static bool g_fork_mode;

struct tally {
    long points;    // runs in which the fault was injected
    long failed;    // ... and the program reported a failure
    long absorbed;  // ... and the program succeeded anyway, with correct results
    long log_only;  // ... and a void call logged the failure, leaving a wrong result
    long bad;       // crashes, silent failures, wrong results without an error, leaks
};

static struct tally g_total;

static void drive(const struct program * p, enum fault_kind kind) {
    struct tally t = { 0 };
    const long limit = 100000;
    long n;
    for (n = 1; n < limit; n++) {
        struct run_report r;
        char why[128] = "";
        bool alive = true;
        if (g_fork_mode) {
            alive = run_forked(p, kind, n, &r, why, sizeof(why));
        } else {
            run_in_process(p, kind, n, &r);
        }
        if (!alive) {
            t.points++;
            t.bad++;
            TEST_CHECK_MSG(false, "%s, %s fault %ld: the process died: %s", p->name, fault_kind_name(kind), n, why);
            continue;
        }
        const bool injected = r.reached >= n;
        bool ok = true;
        if (!injected) {
            // past the last call: the program must have run normally
            TEST_CHECK_MSG(r.result == PROG_OK, "%s, %s fault %ld: not reached, yet the program gave result %d:\n%s",
                    p->name, fault_kind_name(kind), n, r.result, r.log);
        } else {
            t.points++;
            if (r.result == PROG_FAILED) {
                t.failed++;
                ok = TEST_CHECK_MSG(r.n_err > 0, "%s, %s fault %ld: failure reported without an error in the log (the program stopped at line %d)",
                        p->name, fault_kind_name(kind), n, r.exit_line);
                // the failing call's last error names the injected cause
                const enum ggml_error_code want = kind == FAULT_TB_INIT ? GGML_ERROR_DEVICE : GGML_ERROR_OUT_OF_MEMORY;
                ok = TEST_CHECK_MSG(r.last_error == (int) want, "%s, %s fault %ld: last error %s ('%s'), expected %s (line %d)",
                        p->name, fault_kind_name(kind), n, ggml_error_code_name((enum ggml_error_code) r.last_error), r.last_message,
                        ggml_error_code_name(want), r.exit_line) && ok;
            } else if (r.result == PROG_WRONG) {
                if (r.n_err > 0) {
                    t.log_only++;
                } else {
                    ok = TEST_CHECK_MSG(false, "%s, %s fault %ld: wrong result, nothing reported (silent corruption; line %d)",
                            p->name, fault_kind_name(kind), n, r.exit_line);
                }
            } else {
                t.absorbed++;
            }
        }
        ok = TEST_CHECK_MSG(r.tb_buffers == 0 && r.tb_backends == 0, "%s, %s fault %ld: %ld TEST buffers and %ld TEST streams leaked",
                p->name, fault_kind_name(kind), n, r.tb_buffers, r.tb_backends) && ok;
        ok = TEST_CHECK_MSG(r.leak_bytes == 0, "%s, %s fault %ld: %ld bytes of host memory leaked",
                p->name, fault_kind_name(kind), n, r.leak_bytes) && ok;
        if (!ok) {
            t.bad++;
            fprintf(stderr, "  log of that run: %s\n", r.log);
        }
        if (!injected) {
            break;
        }
    }
    TEST_CHECK_MSG(n < limit, "%s: still reaching %s calls after %ld runs", p->name, fault_kind_name(kind), limit);
    printf("  %-16s %-22s %5ld injection points: %ld failures reported, %ld absorbed, %ld reported by log only, %ld bad\n",
            p->name, fault_kind_name(kind), t.points, t.failed, t.absorbed, t.log_only, t.bad);
    g_total.points += t.points;
    g_total.failed += t.failed;
    g_total.absorbed += t.absorbed;
    g_total.log_only += t.log_only;
    g_total.bad += t.bad;
}

static const char * find_module_dir(int argc, char ** argv) {
    if (argc > 1) {
        return argv[1];
    }
#ifdef TEST_MODULES_DIR
    return TEST_MODULES_DIR;
#else
    static char buf[1024];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 32);
    if (n <= 0) {
        return NULL;
    }
    buf[n] = '\0';
    char * slash = strrchr(buf, '/');
    if (slash == NULL) {
        return NULL;
    }
    strcpy(slash, "/../modules");
    return buf;
#endif
}

static bool file_exists(const char * dir, const char * file) {
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    return access(path, R_OK) == 0;
}

int main(int argc, char ** argv) {
    test_rng_init();
    g_module_dir = find_module_dir(argc, argv);
    const char * mode = getenv("FAULT_MODE");
#ifdef FI_ASAN
    g_fork_mode = mode != NULL && strcmp(mode, "fork") == 0;
#else
    g_fork_mode = !(mode != NULL && strcmp(mode, "inprocess") == 0);
#endif
    printf("fault injection, %s mode\n", g_fork_mode ? "fork" : "in-process");

    struct program progs[] = {
        { "graph-build",   prog_graph_build,       false, true },
        { "gallocr-block", prog_gallocr,           false, true },
        { "alloc-ctx",     prog_alloc_ctx_tensors, true,  true },
        { "test-backend",  prog_test_backend,      true,  true },
        { "sched",         prog_sched,             true,  true },
        { "sched-parallel", prog_sched_parallel,   true,  true },
        { "cpu-compute",   prog_cpu,               false, true },
        { "streams",       prog_streams,           true,  true },
        { "cpu-plans",     prog_cpu_plans,         true,  true },
        { "registry",      prog_registry,          false, true },
    };
    const int n_progs = (int) (sizeof(progs) / sizeof(progs[0]));

    if (!block_golden()) {
        progs[1].available = false;
    }
    if (g_module_dir == NULL || !file_exists(g_module_dir, "libggml-testmod.so")) {
        printf("  registry: no test module found (%s); build the target ggml-testmod\n", g_module_dir ? g_module_dir : "no directory");
        TEST_CHECK_MSG(false, "the test module libggml-testmod.so is missing");
        progs[n_progs - 1].available = false;
    }

    // a clean run of each program first: it must succeed, and it initializes what is initialized
    // once per process (CPU features, the registry), so that the fault runs measure leaks exactly
    for (int i = 0; i < n_progs; i++) {
        if (!progs[i].available) {
            continue;
        }
        test_log_capture_begin();
        const enum prog_result r = progs[i].run();
        test_log_capture_end();
        if (!TEST_CHECK_MSG(r == PROG_OK, "%s: fails without any fault (result %d):\n%s", progs[i].name, (int) r, test_log_text())) {
            progs[i].available = false;
        }
    }

    for (int i = 0; i < n_progs; i++) {
        if (!progs[i].available) {
            continue;
        }
        drive(&progs[i], FAULT_HOST);
        if (progs[i].uses_test_backend) {
            drive(&progs[i], FAULT_TB_ALLOC);
            drive(&progs[i], FAULT_TB_INIT);
        }
    }
    printf("total: %ld injection points, %ld failures reported, %ld absorbed, %ld reported by log only, %ld bad\n",
            g_total.points, g_total.failed, g_total.absorbed, g_total.log_only, g_total.bad);
    TEST_CHECK(g_total.bad == 0);
    return test_finish("test-fault-injection");
}
