// The CPU executor leaves out the barrier before a node that is independent of every node since
// the last barrier (ggml-cpu-graph-sched.c). Random graphs of matrix products (F32 and Q8_0
// weights: dynamic chunks, work memory, the quantized product's own barrier), adds, muls,
// RMS_NORM (+ MUL, fused), scales and SwiGLU, each node reading either the latest results or
// older ones (so that runs of independent nodes form), allocated by the graph allocator (which
// reuses memory: write-after-read hazards) and computed on the CPU backend: with 2, 3 and 4
// threads every output equals the 1-thread result bit for bit, and the outputs are finite and not
// all zero. The schedules of these graphs must leave some barriers out.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-graph-sched.h"
#include "test-common.h"

#include <math.h>
#include <string.h>

#define D        64
#define N_W      6
#define N_NODES  40
#define N_OUT    6
#define N_GRAPHS 24

struct rgraph {
    struct ggml_context * ctx;
    ggml_backend_buffer_t wbuf;
    struct ggml_cgraph  * gf;
    struct ggml_tensor  * x;
    struct ggml_tensor  * out[N_OUT];
};

static struct ggml_tensor * pick(struct ggml_tensor ** avail, int n_avail) {
    // mostly one of the latest results, sometimes an older one
    const int back = test_rand_uniform(0, 1) < 0.6 ? (int) test_rand_int(0, n_avail < 3 ? n_avail - 1 : 2)
                                                    : (int) test_rand_int(0, n_avail - 1);
    return avail[n_avail - 1 - back];
}

static bool rgraph_build(struct rgraph * g, ggml_backend_t cpu, int rows) {
    struct ggml_init_params ip = { 256 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    g->ctx = ggml_init(ip);
    if (g->ctx == NULL) {
        return false;
    }
    struct ggml_context * ctx = g->ctx;
    struct ggml_tensor * w[N_W];
    for (int k = 0; k < N_W; k++) {
        w[k] = ggml_new_tensor_2d(ctx, k % 2 ? GGML_TYPE_Q8_0 : GGML_TYPE_F32, D, D);
    }
    struct ggml_tensor * nw = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, D);
    g->x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, D, rows);
    ggml_set_input(g->x);
    g->wbuf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    if (g->wbuf == NULL) {
        return false;
    }
    float buf[D * D];
    for (int k = 0; k < N_W; k++) {
        for (int i = 0; i < D * D; i++) {
            buf[i] = (float) test_rand_uniform(-0.15, 0.15); // a product's gain stays below 1
        }
        if (w[k]->type == GGML_TYPE_F32) {
            ggml_backend_tensor_set(w[k], buf, 0, sizeof(buf));
        } else {
            char q[D * D * 2];
            const size_t n = ggml_quantize_chunk(GGML_TYPE_Q8_0, buf, q, 0, D, D, NULL);
            ggml_backend_tensor_set(w[k], q, 0, n);
        }
    }
    for (int i = 0; i < D; i++) {
        buf[i] = (float) test_rand_uniform(0.5, 1.5);
    }
    ggml_backend_tensor_set(nw, buf, 0, D * sizeof(float));

    struct ggml_tensor * avail[N_NODES + 1];
    int n_avail = 0;
    avail[n_avail++] = g->x;
    for (int i = 0; i < N_NODES; i++) {
        struct ggml_tensor * a = pick(avail, n_avail);
        struct ggml_tensor * b = pick(avail, n_avail);
        struct ggml_tensor * r;
        switch (test_rand_int(0, 6)) {
            case 0: case 1: r = ggml_mul_mat(ctx, w[test_rand_int(0, N_W - 1)], a); break;
            // every op keeps the values bounded (products and SwiGLU take one normed factor)
            case 2: r = ggml_scale(ctx, ggml_add(ctx, a, b), 0.5f); break;
            case 3: r = ggml_mul(ctx, ggml_rms_norm(ctx, a, 1e-5f), nw); break;
            case 4: r = ggml_scale(ctx, ggml_mul(ctx, ggml_rms_norm(ctx, a, 1e-5f), b), 0.5f); break;
            case 5: r = ggml_swiglu_split(ctx, ggml_rms_norm(ctx, a, 1e-5f), b); break;
            default: r = ggml_rms_norm(ctx, ggml_add(ctx, a, b), 1e-5f); break;
        }
        avail[n_avail++] = r;
    }
    g->gf = ggml_new_graph(ctx);
    for (int k = 0; k < N_OUT; k++) {
        // the last node and some others (only outputs keep their memory)
        g->out[k] = k == 0 ? avail[n_avail - 1] : avail[test_rand_int(1, n_avail - 1)];
        ggml_set_output(g->out[k]);
        ggml_build_forward_expand(g->gf, g->out[k]);
    }
    return true;
}

static int g_elided = 0, g_barriers = 0;

static bool compute(ggml_backend_t cpu, struct rgraph * g, int n_threads, const float * x, int rows, float * out) {
    ggml_backend_cpu_set_n_threads(cpu, n_threads);
    ggml_backend_tensor_set(g->x, x, 0, (size_t) D * rows * sizeof(float));
    bool ok = ggml_backend_graph_compute(cpu, g->gf) == GGML_STATUS_SUCCESS;
    if (ok) {
        for (int k = 0; k < N_OUT; k++) {
            ggml_backend_tensor_get(g->out[k], out + (size_t) k * D * rows, 0, (size_t) D * rows * sizeof(float));
        }
        if (n_threads == 2) {
            // the schedule this compute used (while the allocation is in place)
            struct ggml_cpu_sched s;
            memset(&s, 0, sizeof(s));
            if (TEST_CHECK(ggml_cpu_sched_build(&s, g->gf, 2, false, true, "test"))) {
                g_elided   += s.n_elided;
                g_barriers += s.n_barriers;
            }
            ggml_cpu_sched_free(&s);
        }
    }
    return ok;
}

int main(void) {
    test_rng_init();
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (!TEST_CHECK(cpu != NULL)) {
        return test_finish("test-cpu-graph-elide");
    }
    for (int gi = 0; gi < N_GRAPHS; gi++) {
        const int rows = gi % 2 ? 1 : 3;
        struct rgraph g;
        memset(&g, 0, sizeof(g));
        if (!TEST_CHECK(rgraph_build(&g, cpu, rows))) {
            break;
        }
        ggml_gallocr_t ga = ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu));
        if (!TEST_CHECK(ga != NULL && ggml_gallocr_alloc_graph(ga, g.gf))) {
            ggml_gallocr_free(ga);
            ggml_backend_buffer_free(g.wbuf);
            ggml_free(g.ctx);
            break;
        }
        float x[D * 3];
        for (int i = 0; i < D * rows; i++) {
            x[i] = (float) test_rand_uniform(-1.0, 1.0);
        }
        static float ref[N_OUT * D * 3], got[N_OUT * D * 3];
        const size_t n_out = (size_t) N_OUT * D * rows;
        if (TEST_CHECK(compute(cpu, &g, 1, x, rows, ref))) {
            bool finite = true, nonzero = false;
            for (size_t i = 0; i < n_out; i++) {
                finite  = finite && isfinite(ref[i]);
                nonzero = nonzero || ref[i] != 0.0f;
            }
            TEST_CHECK_MSG(finite && nonzero, "graph %d: 1-thread outputs finite %d, not all zero %d", gi, finite, nonzero);
            for (int nt = 2; nt <= 4; nt++) {
                if (TEST_CHECK(compute(cpu, &g, nt, x, rows, got))) {
                    TEST_CHECK_MSG(memcmp(ref, got, n_out * sizeof(float)) == 0,
                                   "graph %d (%d rows): %d threads differ from 1 thread", gi, rows, nt);
                }
            }
        }
        ggml_gallocr_free(ga);
        ggml_backend_buffer_free(g.wbuf);
        ggml_free(g.ctx);
    }
    printf("2-thread schedules: %d barriers kept, %d left out by the dependency rule\n", g_barriers, g_elided);
    TEST_CHECK_MSG(g_elided > 0, "no barrier was left out");
    ggml_backend_free(cpu);
    return test_finish("test-cpu-graph-elide");
}
