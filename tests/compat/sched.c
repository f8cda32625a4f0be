// Compatibility program: the multi-backend scheduler as both generations of the ggml family's
// programs call it.
//   seed-001 programs:        ggml_backend_sched_new(backends, bufts, n, graph_size, parallel)
//   current-release programs: ggml_backend_sched_new(backends, bufts, n, graph_size, parallel, op_offload)
// Both forms must compile unchanged and give the same numbers. The backends are picked the way
// the family's simple-backend example does: the best device plus a CPU backend (when the best
// device is the CPU, that makes two CPU backends, which must work too).
//
// The graph: weights in a WEIGHTS buffer, an input tensor filled after allocation, a few ops,
// an eval callback watching the nodes; results checked against a double-precision reference.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "sched:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            n_failed++;                                                    \
        }                                                                  \
    } while (0)

enum { D_IN = 24, D_HID = 16, N_TOK = 7 };

struct weights {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * w1;   // [D_IN, D_HID]
    struct ggml_tensor * bias; // [D_HID]
    float w1_data[D_HID * D_IN];
    float bias_data[D_HID];
};

static void load_weights(struct weights * w, ggml_backend_t backend) {
    struct ggml_init_params params = { 2 * ggml_tensor_overhead(), NULL, true };
    w->ctx = ggml_init(params);
    GGML_ASSERT(w->ctx != NULL);
    w->w1   = ggml_new_tensor_2d(w->ctx, GGML_TYPE_F32, D_IN, D_HID);
    w->bias = ggml_new_tensor_1d(w->ctx, GGML_TYPE_F32, D_HID);
    w->buf  = ggml_backend_alloc_ctx_tensors(w->ctx, backend);
    GGML_ASSERT(w->buf != NULL);
    ggml_backend_buffer_set_usage(w->buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);

    for (int i = 0; i < D_HID * D_IN; i++) {
        w->w1_data[i] = 0.02f * (float) ((i * 13) % 17) - 0.15f;
    }
    for (int i = 0; i < D_HID; i++) {
        w->bias_data[i] = 0.1f * (float) (i % 5) - 0.2f;
    }
    ggml_backend_tensor_set(w->w1, w->w1_data, 0, sizeof(w->w1_data));
    ggml_backend_tensor_set(w->bias, w->bias_data, 0, sizeof(w->bias_data));
}

struct graph {
    struct ggml_context * ctx;
    struct ggml_cgraph * gf;
    struct ggml_tensor * inp;
    struct ggml_tensor * out;
};

// out = rms_norm(silu(w1 x + bias)) * 2
static struct graph build(const struct weights * w) {
    struct graph g;
    struct ggml_init_params params = {
        ggml_tensor_overhead() * GGML_DEFAULT_GRAPH_SIZE + ggml_graph_overhead(), NULL, true,
    };
    g.ctx = ggml_init(params);
    GGML_ASSERT(g.ctx != NULL);
    g.gf  = ggml_new_graph(g.ctx);
    g.inp = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, D_IN, N_TOK);
    ggml_set_name(g.inp, "inp");
    ggml_set_input(g.inp);

    struct ggml_tensor * cur = ggml_mul_mat(g.ctx, w->w1, g.inp);
    cur = ggml_add(g.ctx, cur, w->bias);
    cur = ggml_silu(g.ctx, cur);
    cur = ggml_rms_norm(g.ctx, cur, 1e-6f);
    cur = ggml_scale(g.ctx, cur, 2.0f);
    ggml_set_name(cur, "out");
    ggml_set_output(cur);
    g.out = cur;
    ggml_build_forward_expand(g.gf, cur);
    return g;
}

static void input_data(float * x, int salt) {
    for (int i = 0; i < D_IN * N_TOK; i++) {
        x[i] = 0.05f * (float) (((i + salt) * 7) % 23) - 0.5f;
    }
}

static void reference(const struct weights * w, const float * x, double * out) {
    for (int t = 0; t < N_TOK; t++) {
        double h[D_HID];
        double ss = 0.0;
        for (int o = 0; o < D_HID; o++) {
            double acc = w->bias_data[o];
            for (int k = 0; k < D_IN; k++) {
                acc += (double) w->w1_data[o * D_IN + k] * (double) x[t * D_IN + k];
            }
            h[o] = acc / (1.0 + exp(-acc));
            ss += h[o] * h[o];
        }
        const double scale = 1.0 / sqrt(ss / D_HID + 1e-6);
        for (int o = 0; o < D_HID; o++) {
            out[t * D_HID + o] = 2.0 * h[o] * scale;
        }
    }
}

struct eval_counter {
    int asked;
    int seen;
    bool saw_out;
};

static bool eval_cb(struct ggml_tensor * t, bool ask, void * user_data) {
    struct eval_counter * c = (struct eval_counter *) user_data;
    if (ask) {
        c->asked++;
        return true; // we want to see every node
    }
    c->seen++;
    if (strcmp(t->name, "out") == 0) {
        c->saw_out = true;
    }
    return true;
}

static void run_graph(ggml_backend_sched_t sched, const struct weights * w, int salt, bool use_cb, const char * what) {
    struct graph g = build(w);

    struct eval_counter counter = { 0, 0, false };
    ggml_backend_sched_set_eval_callback(sched, use_cb ? eval_cb : NULL, use_cb ? &counter : NULL);

    CHECK(ggml_backend_sched_alloc_graph(sched, g.gf), "%s: alloc_graph", what);
    float x[D_IN * N_TOK];
    input_data(x, salt);
    ggml_backend_tensor_set(g.inp, x, 0, sizeof(x));

    enum ggml_status st = ggml_backend_sched_graph_compute(sched, g.gf);
    CHECK(st == GGML_STATUS_SUCCESS, "%s: compute: %s", what, ggml_status_to_string(st));
    CHECK(ggml_backend_sched_get_n_splits(sched) >= 1, "%s: %d splits", what, ggml_backend_sched_get_n_splits(sched));

    float out[D_HID * N_TOK];
    ggml_backend_tensor_get(g.out, out, 0, sizeof(out));
    double ref[D_HID * N_TOK];
    reference(w, x, ref);
    double max_err = 0.0;
    for (int i = 0; i < D_HID * N_TOK; i++) {
        double err = fabs((double) out[i] - ref[i]);
        max_err = err > max_err ? err : max_err;
    }
    CHECK(max_err < 1e-4, "%s: max error %g", what, max_err);

    if (use_cb) {
        CHECK(counter.asked >= ggml_graph_n_nodes(g.gf), "%s: asked about %d of %d nodes", what, counter.asked,
                ggml_graph_n_nodes(g.gf));
        CHECK(counter.seen >= 1 && counter.saw_out, "%s: callback saw %d nodes (out: %d)", what, counter.seen,
                (int) counter.saw_out);
        ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
    }

    ggml_backend_sched_reset(sched);
    ggml_free(g.ctx);
}

// Inputs in a statically allocated context; the same graph computed several times without
// ggml_backend_sched_alloc_graph (the first compute allocates it), one node pinned to the last
// backend with ggml_backend_sched_set_tensor_backend.
static void run_static_inputs(ggml_backend_sched_t sched, ggml_backend_t * backends, int n_backends,
        const struct weights * w, const char * what) {
    ggml_backend_t last = backends[n_backends - 1];
    struct ggml_init_params ip = { ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx_in = ggml_init(ip);
    GGML_ASSERT(ctx_in != NULL);
    struct ggml_tensor * inp = ggml_new_tensor_2d(ctx_in, GGML_TYPE_F32, D_IN, N_TOK);
    ggml_backend_buffer_t buf_in = ggml_backend_alloc_ctx_tensors(ctx_in, last);
    GGML_ASSERT(buf_in != NULL);

    struct ggml_init_params gp = { ggml_tensor_overhead() * 64 + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(gp);
    GGML_ASSERT(ctx != NULL);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    struct ggml_tensor * lin = ggml_add(ctx, ggml_mul_mat(ctx, w->w1, inp), w->bias);
    struct ggml_tensor * act = ggml_silu(ctx, lin);
    struct ggml_tensor * out = ggml_scale(ctx, ggml_rms_norm(ctx, act, 1e-6f), 2.0f);
    ggml_build_forward_expand(gf, out);
    ggml_backend_sched_set_tensor_backend(sched, act, last);

    float x[D_IN * N_TOK];
    double ref[D_HID * N_TOK];
    float got[D_HID * N_TOK];
    for (int iter = 0; iter < 3; iter++) {
        input_data(x, 100 + iter);
        ggml_backend_tensor_set(inp, x, 0, sizeof(x));
        enum ggml_status st = ggml_backend_sched_graph_compute(sched, gf);
        CHECK(st == GGML_STATUS_SUCCESS, "%s: static inputs, compute %d: %s", what, iter, ggml_status_to_string(st));
        if (iter == 0) {
            CHECK(ggml_backend_sched_get_tensor_backend(sched, act) == last, "%s: pinned node moved to %s", what,
                    ggml_backend_sched_get_tensor_backend(sched, act) ? ggml_backend_name(ggml_backend_sched_get_tensor_backend(sched, act)) : "none");
        }
        ggml_backend_tensor_get(out, got, 0, sizeof(got));
        reference(w, x, ref);
        double max_err = 0.0;
        for (int i = 0; i < D_HID * N_TOK; i++) {
            max_err = fmax(max_err, fabs((double) got[i] - ref[i]));
        }
        CHECK(max_err < 1e-4, "%s: static inputs, compute %d: max error %g", what, iter, max_err);
    }
    ggml_backend_sched_reset(sched);
    ggml_free(ctx);
    ggml_backend_buffer_free(buf_in);
    ggml_free(ctx_in);
}

static void exercise(ggml_backend_sched_t sched, ggml_backend_t * backends, int n_backends, const struct weights * w,
        const char * what) {
    CHECK(sched != NULL, "%s: sched_new returned NULL", what);
    if (sched == NULL) {
        return;
    }
    CHECK(ggml_backend_sched_get_n_backends(sched) == n_backends, "%s: %d backends", what,
            ggml_backend_sched_get_n_backends(sched));
    for (int i = 0; i < n_backends; i++) {
        CHECK(ggml_backend_sched_get_backend(sched, i) == backends[i], "%s: backend %d", what, i);
    }

    // optional: size the compute buffers once with the largest graph
    struct graph worst = build(w);
    CHECK(ggml_backend_sched_reserve(sched, worst.gf), "%s: reserve", what);
    ggml_free(worst.ctx);
    size_t total = 0;
    for (int i = 0; i < n_backends; i++) {
        total += ggml_backend_sched_get_buffer_size(sched, backends[i]);
    }
    CHECK(total > 0, "%s: no compute buffer after reserve", what);

    run_graph(sched, w, 0, false, what);
    run_graph(sched, w, 5, true, what);
    run_graph(sched, w, 11, false, what);
    run_static_inputs(sched, backends, n_backends, w, what);
}

int main(void) {
    ggml_backend_load_all();

    ggml_backend_t backend = ggml_backend_init_best();
    ggml_backend_t cpu_backend = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    GGML_ASSERT(backend != NULL && cpu_backend != NULL);
    printf("sched: best backend %s, with %s\n", ggml_backend_name(backend), ggml_backend_name(cpu_backend));

    ggml_backend_t backends[2] = { backend, cpu_backend };
    const int n_backends = 2;

    struct weights w;
    load_weights(&w, backend);

    // seed 001: five arguments
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, n_backends, GGML_DEFAULT_GRAPH_SIZE, false);
    exercise(sched, backends, n_backends, &w, "5 args");
    ggml_backend_sched_free(sched);

    // current release: op_offload as the sixth argument
    sched = ggml_backend_sched_new(backends, NULL, n_backends, GGML_DEFAULT_GRAPH_SIZE, false, true);
    exercise(sched, backends, n_backends, &w, "6 args, op_offload");
    ggml_backend_sched_free(sched);

    sched = ggml_backend_sched_new(backends, NULL, n_backends, GGML_DEFAULT_GRAPH_SIZE, false, false);
    exercise(sched, backends, n_backends, &w, "6 args, no op_offload");
    ggml_backend_sched_free(sched);

    // pipeline parallelism, explicit buffer types
    ggml_backend_buffer_type_t bufts[2] = {
        ggml_backend_get_default_buffer_type(backend),
        ggml_backend_get_default_buffer_type(cpu_backend),
    };
    sched = ggml_backend_sched_new(backends, bufts, n_backends, GGML_DEFAULT_GRAPH_SIZE, true, true);
    exercise(sched, backends, n_backends, &w, "parallel");
    if (sched != NULL) {
        CHECK(ggml_backend_sched_get_n_copies(sched) >= 1, "%d copies", ggml_backend_sched_get_n_copies(sched));
    }
    ggml_backend_sched_free(sched);

    // the CPU alone, as programs without a GPU pass it
    sched = ggml_backend_sched_new(&cpu_backend, NULL, 1, GGML_DEFAULT_GRAPH_SIZE, false, true);
    {
        struct weights wc;
        load_weights(&wc, cpu_backend);
        exercise(sched, &cpu_backend, 1, &wc, "cpu only");
        ggml_backend_buffer_free(wc.buf);
        ggml_free(wc.ctx);
    }
    ggml_backend_sched_free(sched);

    // the exported seed-form function is what the bare name refers to
    ggml_backend_sched_t (*sched_new_fn)(ggml_backend_t *, ggml_backend_buffer_type_t *, int, size_t, bool) =
        ggml_backend_sched_new;
    sched = sched_new_fn(backends, NULL, n_backends, 256, false);
    exercise(sched, backends, n_backends, &w, "through a function pointer");
    ggml_backend_sched_free(sched);

    ggml_backend_buffer_free(w.buf);
    ggml_free(w.ctx);
    ggml_backend_free(cpu_backend);
    ggml_backend_free(backend);

    printf("sched: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
