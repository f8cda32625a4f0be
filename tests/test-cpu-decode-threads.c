// A quantized MUL_MAT of one activation row (a generated token) on several threads: every thread
// quantizes the row into its own slot of the work buffer instead of thread 0 quantizing it behind
// a barrier (cpu-ops-matmul-quant.c). For the decode weight types (Q4_0, Q4_1, Q8_0, Q4_K, Q6_K) at
// the shapes of SmolLM2's products: 2, 3 and 4 threads give the 1-thread result bit for bit (the
// same quantized bytes and the same kernels: bound 0), and every output is within 3e-3 (measured: 3e-4 to 8e-4) of
// sum |a_k b_k| of a double-precision product of the dequantized weights with the F32 row (the
// activation's 8-bit quantization). A batch of 3 rows (the shared, barrier-separated path) is
// checked the same way. Odd row counts and the fused Q/K/V (960 rows) and gate/up (3072) shapes too.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void check(enum ggml_type type, int64_t k, int64_t n, int64_t m) {
    struct ggml_init_params ip = { .mem_size = 64 * 1024 * 1024, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    float * af = malloc(sizeof(float) * (size_t) (k * n));
    float * ad = malloc(sizeof(float) * (size_t) (k * n));
    float * one = malloc(sizeof(float) * (size_t) (n * m));
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, type, k, n);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, m);
    if (!TEST_CHECK(af && ad && one && a && b)) {
        goto done;
    }
    for (int64_t i = 0; i < k * n; i++) {
        af[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    for (int64_t i = 0; i < k * m; i++) {
        ((float *) b->data)[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    ggml_quantize_chunk(type, af, a->data, 0, n, k, NULL);
    ggml_get_type_traits(type)->to_float(a->data, ad, k * n);

    for (int nt = 1; nt <= 4; nt++) {
        struct ggml_tensor * c = ggml_mul_mat(ctx, a, b); // [n, m]
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, c);
        memset(c->data, 0xff, ggml_nbytes(c));
        if (!TEST_CHECK(ggml_graph_compute_with_ctx(ctx, gf, nt) == GGML_STATUS_SUCCESS)) {
            break;
        }
        const float * got = c->data;
        if (nt == 1) {
            memcpy(one, got, sizeof(float) * (size_t) (n * m));
            double worst = 0.0;
            for (int64_t j = 0; j < m; j++) {
                const float * x = (const float *) b->data + j * k;
                for (int64_t i = 0; i < n; i++) {
                    double ref = 0.0, mag = 0.0;
                    for (int64_t l = 0; l < k; l++) {
                        ref += (double) ad[i * k + l] * x[l];
                        mag += fabs((double) ad[i * k + l] * x[l]);
                    }
                    worst = fmax(worst, fabs(got[j * n + i] - ref) / mag);
                }
            }
            TEST_CHECK_MSG(worst <= 3e-3, "%s [%lld x %lld] x %lld rows: %g of sum |a b| from double",
                           ggml_type_name(type), (long long) n, (long long) k, (long long) m, worst);
        } else {
            TEST_CHECK_MSG(memcmp(got, one, sizeof(float) * (size_t) (n * m)) == 0,
                           "%s [%lld x %lld] x %lld rows, %d threads: not the 1-thread result", ggml_type_name(type),
                           (long long) n, (long long) k, (long long) m, nt);
        }
    }
done:
    free(af);
    free(ad);
    free(one);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    const enum ggml_type types[] = { GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        const int64_t k = ggml_blck_size(types[t]) == 256 ? 1536 : 576;
        check(types[t], k, 192, 1);  // K / V projections
        check(types[t], k, 1536, 1); // FFN gate / up
        check(types[t], k, 200, 3);  // a small batch
    }
    check(GGML_TYPE_Q4_1, 1536, 576, 1); // FFN down
    // odd row counts (the kernels' single rows after their 4 runs fall on other rows for other
    // thread counts), the fused Q/K/V and gate/up shapes, a tail of 1 block
    check(GGML_TYPE_Q4_1, 576, 197, 1);
    check(GGML_TYPE_Q4_1, 576, 960, 1);
    check(GGML_TYPE_Q4_1, 576, 3072, 1);
    check(GGML_TYPE_Q4_1, 544, 131, 1);
    check(GGML_TYPE_Q8_0, 576, 197, 1);
    return test_finish("test-cpu-decode-threads");
}
