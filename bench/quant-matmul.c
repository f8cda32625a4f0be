// bench/quant-matmul: MUL_MAT with quantized weights on the CPU backend, per type.
//
//   quant-matmul [n_threads] [prompt_N]     (defaults: 2 threads, prompt N = 1024)
//
// Decode: M = 1, K = 4096, N = 14336, reported as GB/s of weights read, beside a plain read of as
// many bytes by as many threads measured in the same run (the bandwidth the kernel competes
// with). Prompt: M = 512 columns, K = 4096, N = prompt_N (the N = 14336 takes minutes per
// type on the dequantizing portable kernels; pass it to measure), as GFLOP/s = 2*M*N*K / time.
// Every figure is the median of 5 timed runs after one warm-up, through the public API (one
// MUL_MAT node, ggml_graph_plan + ggml_graph_compute), so it includes the framework.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_RUNS 5

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9*(double) ts.tv_nsec;
}

static int cmp_d(const void * a, const void * b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double * v, int n) {
    qsort(v, (size_t) n, sizeof(double), cmp_d);
    return v[n/2];
}

struct read_arg { const uint64_t * p; size_t n; uint64_t sum; };

static void * read_worker(void * vp) {
    struct read_arg * a = vp;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= a->n; i += 4) {
        s0 += a->p[i]; s1 += a->p[i + 1]; s2 += a->p[i + 2]; s3 += a->p[i + 3];
    }
    a->sum = s0 ^ s1 ^ s2 ^ s3;
    return NULL;
}

// seconds to read `bytes` of buf with nth threads
static double time_read(const void * buf, size_t bytes, int nth) {
    pthread_t th[16];
    struct read_arg args[16];
    const size_t words = bytes/8, per = words/(size_t) nth;
    const double t0 = now_s();
    for (int i = 0; i < nth; i++) {
        args[i] = (struct read_arg) { (const uint64_t *) buf + (size_t) i*per, per, 0 };
        pthread_create(&th[i], NULL, read_worker, &args[i]);
    }
    uint64_t x = 0;
    for (int i = 0; i < nth; i++) {
        pthread_join(th[i], NULL);
        x ^= args[i].sum;
    }
    const double t = now_s() - t0;
    if (x == 42) {
        printf(" ");
    }
    return t;
}

// median seconds of one MUL_MAT of [K, N] weights of type t by [K, M] F32 activations
static double time_mul_mat(enum ggml_type t, int64_t K, int64_t N, int64_t M, int nth, void ** wdata_out, size_t * wbytes) {
    const size_t wb = ggml_row_size(t, K)*(size_t) N;
    struct ggml_init_params ip = { wb + (size_t) (K*M + N*M)*sizeof(float) + 16*ggml_tensor_overhead() + ggml_graph_overhead() + 4096, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (ctx == NULL) {
        return -1.0;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, t, K, N);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
    // weights: a row quantized from a ramp, copied; the content does not change the time
    float * row = malloc((size_t) K*sizeof(float));
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    const size_t rs = ggml_row_size(t, K);
    for (int64_t k = 0; k < K; k++) {
        row[k] = (float) ((k*37) % 101 - 50)/50.0f;
    }
    if (tr->from_float_ref != NULL) {
        tr->from_float_ref(row, a->data, K);
    } else {
        memset(a->data, 0x11, rs); // dequantize-only types: a fixed finite pattern
    }
    for (int64_t n = 1; n < N; n++) {
        memcpy((char *) a->data + (size_t) n*rs, a->data, rs);
    }
    for (int64_t i = 0; i < K*M; i++) {
        ((float *) b->data)[i] = row[i % K];
    }
    free(row);
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    struct ggml_cplan plan = ggml_graph_plan(gf, nth, tp);
    void * work = plan.work_size ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    double ts[N_RUNS];
    double res = -1.0;
    if (tp != NULL && ggml_graph_compute(gf, &plan) == GGML_STATUS_SUCCESS) {
        for (int r = 0; r < N_RUNS; r++) {
            const double t0 = now_s();
            ggml_graph_compute(gf, &plan);
            ts[r] = now_s() - t0;
        }
        res = median(ts, N_RUNS);
    }
    if (wdata_out != NULL) {
        *wdata_out = malloc(wb);
        if (*wdata_out != NULL) {
            memcpy(*wdata_out, a->data, wb);
        }
        *wbytes = wb;
    }
    free(work);
    ggml_threadpool_free(tp);
    ggml_free(ctx);
    return res;
}

int main(int argc, char ** argv) {
    const int nth = argc > 1 ? atoi(argv[1]) : 2;
    const int64_t pn = argc > 2 ? atoll(argv[2]) : 1024;
    if (nth < 1 || nth > 16 || pn < 1) {
        fprintf(stderr, "usage: quant-matmul [n_threads 1..16] [prompt_N]\n");
        return 1;
    }
    const enum ggml_type types[] = {
        GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K,
        GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4,
        GGML_TYPE_TQ2_0, GGML_TYPE_F16,
    };
    const int64_t K = 4096, N = 14336;
    printf("quant-matmul: %d threads; decode M=1 K=%lld N=%lld; prompt M=512 K=%lld N=%lld; medians of %d\n", nth,
           (long long) K, (long long) N, (long long) K, (long long) pn, N_RUNS);
    printf("| type | decode GB/s | memory read GB/s | fraction | prompt GFLOP/s |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(types)/sizeof(types[0]); i++) {
        void * copy = NULL;
        size_t wb = 0;
        const double td = time_mul_mat(types[i], K, N, 1, nth, &copy, &wb);
        double tr[N_RUNS];
        for (int r = 0; copy != NULL && r < N_RUNS; r++) {
            tr[r] = time_read(copy, wb, nth);
        }
        const double tm = copy != NULL ? median(tr, N_RUNS) : -1.0;
        free(copy);
        const double tp = time_mul_mat(types[i], K, pn, 512, nth, NULL, NULL);
        const double gbd = wb/td*1e-9, gbm = wb/tm*1e-9;
        printf("| %s | %.1f | %.1f | %.2f | %.1f |\n", ggml_type_name(types[i]), gbd, gbm, gbd/gbm,
               2.0*512.0*(double) pn*(double) K/tp*1e-9);
        fflush(stdout);
    }
    return 0;
}
