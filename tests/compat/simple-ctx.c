// Compatibility program: the "context mode" a newcomer to the ggml family writes first. Tensors
// live in one context whose arena is sized by hand (data + tensor overheads + graph overhead +
// a little slack), the graph is built in that same context and computed on the CPU with
// ggml_graph_compute_with_ctx, which takes its work buffer from the context too.
//
// Only public headers, only the calls such programs make; every result is checked against
// numbers worked out by hand or in double precision here.

#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "simple-ctx:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            n_failed++;                                                       \
        }                                                                     \
    } while (0)

// The classic 4x2 by 3x2 example: result = B * A^T, laid out with ne0 = rows of A.
static void test_small_matmul(int n_threads) {
    const int rows_A = 4, cols_A = 2;
    const int rows_B = 3, cols_B = 2;
    const float matrix_A[4 * 2] = {
        2, 8,
        5, 1,
        4, 2,
        8, 6,
    };
    const float matrix_B[3 * 2] = {
        10, 5,
        9, 9,
        5, 4,
    };
    // worked out by hand: out[j][i] = dot(row i of A, row j of B)
    const float expected[3 * 4] = {
        60, 55, 50, 110,
        90, 54, 54, 126,
        42, 29, 28, 64,
    };

    size_t ctx_size = 0;
    ctx_size += rows_A * cols_A * ggml_type_size(GGML_TYPE_F32);
    ctx_size += rows_B * cols_B * ggml_type_size(GGML_TYPE_F32);
    ctx_size += rows_A * rows_B * ggml_type_size(GGML_TYPE_F32);
    ctx_size += 3 * ggml_tensor_overhead();
    ctx_size += ggml_graph_overhead();
    ctx_size += 1024; // the slack such programs leave for the work buffer

    struct ggml_init_params params = {
        /*.mem_size   =*/ ctx_size,
        /*.mem_buffer =*/ NULL,
        /*.no_alloc   =*/ false,
    };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);

    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols_A, rows_A);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols_B, rows_B);
    GGML_ASSERT(a != NULL && b != NULL);
    memcpy(a->data, matrix_A, ggml_nbytes(a));
    memcpy(b->data, matrix_B, ggml_nbytes(b));

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    struct ggml_tensor * result = ggml_mul_mat(ctx, a, b);
    CHECK(gf != NULL && result != NULL, "graph or node not created");
    if (gf == NULL || result == NULL) {
        ggml_free(ctx);
        return;
    }
    ggml_build_forward_expand(gf, result);

    enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, n_threads);
    CHECK(st == GGML_STATUS_SUCCESS, "ggml_graph_compute_with_ctx with %d threads: %s (context of %zu bytes)",
            n_threads, ggml_status_to_string(st), ctx_size);

    struct ggml_tensor * out = ggml_graph_node(gf, -1);
    CHECK(out == result, "last node is not the result");
    CHECK(out->ne[0] == rows_A && out->ne[1] == rows_B, "shape %lld x %lld", (long long) out->ne[0], (long long) out->ne[1]);
    if (st == GGML_STATUS_SUCCESS) {
        const float * data = (const float *) out->data;
        for (int i = 0; i < rows_A * rows_B; i++) {
            CHECK(data[i] == expected[i], "element %d: %g, expected %g", i, data[i], expected[i]);
        }
    }
    ggml_free(ctx);
}

// Odd sizes, several threads, a graph of several nodes; reference in double precision.
static void test_larger_graph(int n_threads) {
    enum { K = 37, M = 13, N = 9 };

    size_t ctx_size = 16 * 1024 * 1024;
    struct ggml_init_params params = { ctx_size, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);

    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N);
    struct ggml_tensor * bias = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, M);
    ggml_set_name(w, "w");
    ggml_set_name(x, "x");

    for (int i = 0; i < M; i++) {
        for (int k = 0; k < K; k++) {
            ggml_set_f32_nd(w, k, i, 0, 0, 0.05f * (float) ((i * 7 + k * 3) % 11) - 0.2f);
        }
        ggml_set_f32_1d(bias, i, 0.25f * (float) i - 1.0f);
    }
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < K; k++) {
            ggml_set_f32_nd(x, k, j, 0, 0, 0.1f * (float) ((j * 5 + k) % 7) - 0.3f);
        }
    }

    // y = relu(w x + bias) * 0.5
    struct ggml_tensor * y = ggml_mul_mat(ctx, w, x);
    y = ggml_add(ctx, y, bias);
    y = ggml_relu(ctx, y);
    y = ggml_scale(ctx, y, 0.5f);
    ggml_set_name(y, "y");

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    CHECK(ggml_graph_n_nodes(gf) == 4, "graph has %d nodes", ggml_graph_n_nodes(gf));
    CHECK(ggml_graph_get_tensor(gf, "y") == y, "ggml_graph_get_tensor(\"y\")");

    enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, n_threads);
    CHECK(st == GGML_STATUS_SUCCESS, "compute: %s", ggml_status_to_string(st));

    double max_err = 0.0;
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < M; i++) {
            double acc = 0.0;
            for (int k = 0; k < K; k++) {
                acc += (double) ggml_get_f32_nd(w, k, i, 0, 0) * (double) ggml_get_f32_nd(x, k, j, 0, 0);
            }
            acc += (double) ggml_get_f32_1d(bias, i);
            double ref = acc > 0.0 ? 0.5 * acc : 0.0;
            double got = ggml_get_f32_nd(y, i, j, 0, 0);
            double err = fabs(got - ref);
            max_err = err > max_err ? err : max_err;
        }
    }
    CHECK(max_err < 1e-5, "max error %g with %d threads", max_err, n_threads);
    ggml_free(ctx);
}

// The example of the family's header: f(x) = a*x^2 + b at x = 2 with scalar helpers.
static void test_scalar_function(void) {
    struct ggml_init_params params = {
        .mem_size   = 16 * 1024 * 1024,
        .mem_buffer = NULL,
    };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);

    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    ggml_set_param(x);

    struct ggml_tensor * a  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    struct ggml_tensor * b  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    struct ggml_tensor * x2 = ggml_mul(ctx, x, x);
    struct ggml_tensor * f  = ggml_add(ctx, ggml_mul(ctx, a, x2), b);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, f);

    ggml_set_f32(x, 2.0f);
    ggml_set_f32(a, 3.0f);
    ggml_set_f32(b, 4.0f);

    enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, GGML_DEFAULT_N_THREADS);
    CHECK(st == GGML_STATUS_SUCCESS, "compute: %s", ggml_status_to_string(st));
    CHECK(ggml_get_f32_1d(f, 0) == 16.0f, "f = %g, expected 16", ggml_get_f32_1d(f, 0));
    CHECK((x->flags & GGML_TENSOR_FLAG_PARAM) != 0, "ggml_set_param did not flag x");
    ggml_free(ctx);
}

int main(void) {
    ggml_time_init();
    const int64_t t0 = ggml_time_us();

    test_small_matmul(1);
    test_small_matmul(4);
    test_larger_graph(1);
    test_larger_graph(3);
    test_scalar_function();

    CHECK(ggml_time_us() >= t0, "time went backwards");
    printf("simple-ctx: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
