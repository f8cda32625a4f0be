// Compatibility program: the "backend mode" of the ggml family as seed-001 era programs write it.
// Weights live in a no_alloc context whose tensors get a backend buffer from
// ggml_backend_alloc_ctx_tensors; the graph is built in a second no_alloc context over a static
// buffer (that context is freed before the graph is used, which is fine because the graph lives in
// the static buffer), a graph allocator on the backend's default buffer type places the compute
// tensors, and ggml_backend_graph_compute runs it. The older ggml_tallocr pattern (one buffer,
// tensors placed by hand) is exercised too.
//
// The same program runs on the CPU backend and on every other device the registry lists, and
// every result is checked against a double-precision reference computed here.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "simple-backend:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
            n_failed++;                                                           \
        }                                                                         \
    } while (0)

enum { K = 19, M = 6, N = 5 };

struct simple_model {
    struct ggml_tensor * a; // [K, M]
    struct ggml_tensor * b; // [K, N]
    ggml_backend_t backend;
    ggml_backend_buffer_t buffer;
    struct ggml_context * ctx;
};

static float value_a(int i, int k) { return 0.125f * (float) ((3 * i + 5 * k) % 9) - 0.5f; }
static float value_b(int j, int k) { return 0.25f * (float) ((7 * j + k) % 5) - 0.375f; }

static void load_model(struct simple_model * model, const float * a, const float * b) {
    const int num_tensors = 2;
    struct ggml_init_params params = {
        /*.mem_size   =*/ ggml_tensor_overhead() * num_tensors,
        /*.mem_buffer =*/ NULL,
        /*.no_alloc   =*/ true,
    };
    model->ctx = ggml_init(params);
    GGML_ASSERT(model->ctx != NULL);

    model->a = ggml_new_tensor_2d(model->ctx, GGML_TYPE_F32, K, M);
    model->b = ggml_new_tensor_2d(model->ctx, GGML_TYPE_F32, K, N);
    GGML_ASSERT(model->a != NULL && model->b != NULL);

    model->buffer = ggml_backend_alloc_ctx_tensors(model->ctx, model->backend);
    GGML_ASSERT(model->buffer != NULL);

    ggml_backend_tensor_set(model->a, a, 0, ggml_nbytes(model->a));
    ggml_backend_tensor_set(model->b, b, 0, ggml_nbytes(model->b));
}

static struct ggml_cgraph * build_graph(const struct simple_model * model) {
    static size_t buf_size = 0;
    static uint8_t * buf = NULL;
    if (buf == NULL) {
        buf_size = ggml_tensor_overhead() * GGML_DEFAULT_GRAPH_SIZE + ggml_graph_overhead();
        buf = malloc(buf_size);
        GGML_ASSERT(buf != NULL);
    }

    struct ggml_init_params params0 = {
        /*.mem_size   =*/ buf_size,
        /*.mem_buffer =*/ buf,
        /*.no_alloc   =*/ true, // tensors are placed later by ggml_gallocr_alloc_graph
    };
    struct ggml_context * ctx0 = ggml_init(params0);
    GGML_ASSERT(ctx0 != NULL);

    struct ggml_cgraph * gf = ggml_new_graph(ctx0);

    // (a b^T) then softmax over each row of the result, scaled by 1/sqrt(K)
    struct ggml_tensor * result = ggml_mul_mat(ctx0, model->a, model->b);
    result = ggml_soft_max_ext(ctx0, result, NULL, 1.0f / sqrtf((float) K), 0.0f);
    ggml_set_name(result, "result");
    ggml_build_forward_expand(gf, result);

    // the graph and its tensors live in buf, which outlives the context
    ggml_free(ctx0);
    return gf;
}

static struct ggml_tensor * compute(const struct simple_model * model, ggml_gallocr_t allocr) {
    struct ggml_cgraph * gf = build_graph(model);
    GGML_ASSERT(ggml_gallocr_alloc_graph(allocr, gf));

    if (ggml_backend_is_cpu(model->backend)) {
        ggml_backend_cpu_set_n_threads(model->backend, 2);
    }
    enum ggml_status st = ggml_backend_graph_compute(model->backend, gf);
    CHECK(st == GGML_STATUS_SUCCESS, "ggml_backend_graph_compute on %s: %s", ggml_backend_name(model->backend),
            ggml_status_to_string(st));

    return ggml_graph_node(gf, -1);
}

static void reference(const float * a, const float * b, double * out) {
    for (int j = 0; j < N; j++) {
        double row[M];
        double mx = -INFINITY;
        for (int i = 0; i < M; i++) {
            double acc = 0.0;
            for (int k = 0; k < K; k++) {
                acc += (double) a[i * K + k] * (double) b[j * K + k];
            }
            row[i] = acc / sqrt((double) K);
            mx = row[i] > mx ? row[i] : mx;
        }
        double sum = 0.0;
        for (int i = 0; i < M; i++) {
            row[i] = exp(row[i] - mx);
            sum += row[i];
        }
        for (int i = 0; i < M; i++) {
            out[j * M + i] = row[i] / sum;
        }
    }
}

static void run_on(ggml_backend_t backend) {
    float a[M * K], b[N * K];
    for (int i = 0; i < M; i++) for (int k = 0; k < K; k++) a[i * K + k] = value_a(i, k);
    for (int j = 0; j < N; j++) for (int k = 0; k < K; k++) b[j * K + k] = value_b(j, k);
    double ref[N * M];
    reference(a, b, ref);

    struct simple_model model = { 0 };
    model.backend = backend;
    load_model(&model, a, b);

    // measure with a worst-case graph first, as such programs do
    ggml_gallocr_t allocr = ggml_gallocr_new(ggml_backend_get_default_buffer_type(model.backend));
    GGML_ASSERT(allocr != NULL);
    CHECK(ggml_gallocr_reserve(allocr, build_graph(&model)), "ggml_gallocr_reserve");
    const size_t mem_size = ggml_gallocr_get_buffer_size(allocr, 0);
    CHECK(mem_size > 0 && mem_size >= (size_t) (M * N) * sizeof(float), "compute buffer of %zu bytes", mem_size);

    struct ggml_tensor * result = compute(&model, allocr);
    CHECK(result != NULL && result->ne[0] == M && result->ne[1] == N, "result shape");
    CHECK(strcmp(ggml_get_name(result), "result") == 0, "result name '%s'", ggml_get_name(result));

    float out[N * M];
    ggml_backend_tensor_get(result, out, 0, ggml_nbytes(result));
    double max_err = 0.0;
    for (int i = 0; i < N * M; i++) {
        double err = fabs((double) out[i] - ref[i]);
        max_err = err > max_err ? err : max_err;
    }
    CHECK(max_err < 1e-5, "%s: max error %g", ggml_backend_name(backend), max_err);

    // a second compute with the same allocator reuses its buffer
    result = compute(&model, allocr);
    ggml_backend_tensor_get(result, out, 0, ggml_nbytes(result));
    CHECK(fabs((double) out[0] - ref[0]) < 1e-5, "%s: second compute gives %g, expected %g", ggml_backend_name(backend),
            out[0], ref[0]);
    CHECK(ggml_gallocr_get_buffer_size(allocr, 0) == mem_size, "the compute buffer grew on a same-size graph");

    ggml_gallocr_free(allocr);
    ggml_backend_buffer_free(model.buffer);
    ggml_free(model.ctx);
}

// Older programs: one buffer of the backend, tensors placed with a linear allocator.
static void run_tallocr(ggml_backend_t backend) {
    struct ggml_init_params params = { 4 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    struct ggml_tensor * y = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);

    size_t size = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        size += GGML_PAD(ggml_backend_get_alignment(backend) + ggml_nbytes(t), ggml_backend_get_alignment(backend));
    }
    ggml_backend_buffer_t buffer = ggml_backend_alloc_buffer(backend, size);
    GGML_ASSERT(buffer != NULL);
    struct ggml_tallocr talloc = ggml_tallocr_new(buffer);
    CHECK(ggml_tallocr_alloc(&talloc, x) == GGML_STATUS_SUCCESS, "tallocr x");
    CHECK(ggml_tallocr_alloc(&talloc, y) == GGML_STATUS_SUCCESS, "tallocr y");
    CHECK(x->buffer == buffer && y->buffer == buffer, "tensors not in the buffer");
    CHECK(x->data != y->data, "tensors share memory");

    float xs[10], ys[10];
    for (int i = 0; i < 10; i++) {
        xs[i] = (float) i - 4.5f;
        ys[i] = 100.0f + (float) i;
    }
    ggml_backend_tensor_set(x, xs, 0, sizeof(xs));
    ggml_backend_tensor_set(y, ys, 0, sizeof(ys));
    float back[10];
    ggml_backend_tensor_get(x, back, 0, sizeof(back));
    CHECK(memcmp(back, xs, sizeof(xs)) == 0, "x did not round-trip");
    ggml_backend_tensor_get(y, back, 0, sizeof(back));
    CHECK(memcmp(back, ys, sizeof(ys)) == 0, "y did not round-trip (overlap with x?)");

    ggml_backend_buffer_free(buffer);
    ggml_free(ctx);
}

int main(void) {
    ggml_backend_t backend = ggml_backend_cpu_init();
    GGML_ASSERT(backend != NULL);
    run_on(backend);
    run_tallocr(backend);
    ggml_backend_free(backend);

    // the same program on every other device (OpenCL when present)
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU) {
            continue;
        }
        ggml_backend_t other = ggml_backend_dev_init(dev, NULL);
        if (other == NULL) {
            printf("simple-backend: %s could not be initialized, skipped\n", ggml_backend_dev_name(dev));
            continue;
        }
        printf("simple-backend: also on %s\n", ggml_backend_name(other));
        run_on(other);
        run_tallocr(other);
        ggml_backend_free(other);
    }

    printf("simple-backend: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
