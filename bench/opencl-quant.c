// Quantized MUL_MAT on OpenCL0: decode (one column) and prompt (32 columns) products with a
// [4096, 4096] weight matrix of F16, Q8_0, Q4_0, Q4_1, Q4_K and Q6_K, beside the device's copy
// bandwidth (ggml_backend_tensor_copy of 64 MiB between two device tensors: a clEnqueueCopyBuffer)
// measured in the same run. Prints ms per product (best wall time, and the median run's process
// CPU time, which other jobs on a shared machine disturb less), GB/s of weights read and GFLOP/s
// (from the wall time). Exits 77 without an OpenCL device.
//
//   bench/opencl-quant [K N]   (default 4096 4096; K a multiple of 32, of 256 for the K types)

#define _POSIX_C_SOURCE 199309L // clock_gettime

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "bench-timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// seconds per run of the graph (best of reps after one warm-up run; *cpu: the process CPU time
// of the median run); < 0 on failure
static double time_graph(ggml_backend_t be, struct ggml_cgraph * gf, int reps, double * cpu) {
    if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS) {
        return -1.0;
    }
    ggml_backend_synchronize(be);
    double best = 1e30;
    double cpus[16];
    reps = reps > 16 ? 16 : reps;
    for (int r = 0; r < reps; r++) {
        const double t0 = now_s();
        const double c0 = cpu_s();
        if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS) {
            return -1.0;
        }
        ggml_backend_synchronize(be);
        const double t = now_s() - t0;
        cpus[r] = cpu_s() - c0;
        best = t < best ? t : best;
    }
    for (int i = 1; i < reps; i++) { // insertion sort for the median
        for (int j = i; j > 0 && cpus[j] < cpus[j - 1]; j--) {
            const double x = cpus[j]; cpus[j] = cpus[j - 1]; cpus[j - 1] = x;
        }
    }
    *cpu = cpus[reps / 2];
    return best;
}

static double copy_bandwidth(ggml_backend_t be) {
    struct ggml_init_params ip = { 4*ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    if (ctx == NULL) {
        return -1.0;
    }
    const int64_t n = 16 << 20; // floats: 64 MiB
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    double gbs = -1.0;
    if (buf != NULL) {
        ggml_backend_buffer_clear(buf, 1);
        ggml_backend_tensor_copy(a, b);
        double best = 1e30;
        for (int r = 0; r < 5; r++) {
            const double t0 = now_s();
            ggml_backend_tensor_copy(a, b);
            const double t = now_s() - t0;
            best = t < best ? t : best;
        }
        gbs = 2.0 * (double) ggml_nbytes(a) / best / 1e9; // read + write
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    return gbs;
}

int main(int argc, char ** argv) {
    const int64_t K = argc > 2 ? atoll(argv[1]) : 4096;
    const int64_t N = argc > 2 ? atoll(argv[2]) : 4096;
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
    if (dev == NULL || K <= 0 || N <= 0 || K % 32 != 0) {
        fprintf(stderr, "opencl-quant: %s\n", dev == NULL ? "no OpenCL device" : "K must be a positive multiple of 32");
        return dev == NULL ? 77 : 2;
    }
    ggml_backend_t be = ggml_backend_dev_init(dev, NULL);
    if (be == NULL) {
        return 1;
    }
    printf("device: %s\n", ggml_backend_dev_description(dev));
    printf("device copy bandwidth (clEnqueueCopyBuffer, 64 MiB): %.2f GB/s\n", copy_bandwidth(be));
    const enum ggml_type types[] = { GGML_TYPE_F16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K };
    const int64_t cols[] = { 1, 32 };
    float * w = malloc((size_t) (K * N) * sizeof(float));
    void  * q = malloc(ggml_row_size(GGML_TYPE_F32, K) * (size_t) N);
    if (w == NULL || q == NULL) {
        return 1;
    }
    srand(1);
    for (int64_t i = 0; i < K * N; i++) {
        w[i] = (float) rand() / (float) RAND_MAX - 0.5f;
    }
    printf("%-6s %6s %10s %10s %10s %10s\n", "type", "cols", "ms", "cpu ms", "GB/s(w)", "GFLOP/s");
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        if (K % ggml_blck_size(types[t]) != 0) {
            continue; // the K types need K a multiple of 256
        }
        if (types[t] == GGML_TYPE_F16) {
            ggml_fp32_to_fp16_row(w, q, K * N);
        } else {
            ggml_quantize_chunk(types[t], w, q, 0, N, K, NULL);
        }
        for (size_t c = 0; c < 2; c++) {
            struct ggml_init_params ip = { 8*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
            struct ggml_context * ctx = ggml_init(ip);
            struct ggml_tensor * a = ggml_new_tensor_2d(ctx, types[t], K, N);
            struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, cols[c]);
            struct ggml_tensor * y = ggml_mul_mat(ctx, a, x);
            struct ggml_cgraph * gf = ggml_new_graph(ctx);
            ggml_build_forward_expand(gf, y);
            ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
            double s = -1.0, cpu = 0.0;
            if (buf != NULL) {
                ggml_backend_tensor_set(a, q, 0, ggml_nbytes(a));
                ggml_backend_tensor_set(x, w, 0, ggml_nbytes(x));
                s = time_graph(be, gf, 5, &cpu);
            }
            if (s > 0.0) {
                printf("%-6s %6lld %10.3f %10.3f %10.2f %10.2f\n", ggml_type_name(types[t]), (long long) cols[c], s * 1e3, cpu * 1e3,
                    (double) ggml_nbytes(a) / s / 1e9, 2.0 * (double) (K * N * cols[c]) / s / 1e9);
            } else {
                printf("%-6s %6lld   failed\n", ggml_type_name(types[t]), (long long) cols[c]);
            }
            if (buf) {
                ggml_backend_buffer_free(buf);
            }
            ggml_free(ctx);
        }
    }
    free(w);
    free(q);
    ggml_backend_free(be);
    return 0;
}
