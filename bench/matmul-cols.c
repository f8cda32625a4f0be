// bench/matmul-cols: the CPU backend's matrix-vector and few-columns matrix products (MUL_MAT of
// an N x K weight matrix with M = 1 .. 16 activation rows) as GB/s of weights, beside the memory
// read bandwidth measured in the same run.
//
//   matmul-cols [threads] [N] [K] [rounds] [cpu]      (defaults: 2 4096 14336 7)
//
// With `cpu`, every time is the process's CPU time (all threads) instead of the wall clock: on a
// machine shared with other work the wall clock measures the scheduler as much as the kernel,
// while the CPU time of a one-thread run is what the kernel costs (the read then gives the
// bandwidth one core reaches while it runs).
//
// For each weight type (F32, F16, BF16) the weights are made once; each round then times, in
// turn, a plain read of as many bytes as the weights (8 streams of 64-bit XORs per thread: no
// arithmetic a memory-bound kernel could hide behind) and ours at every M of the list, the order
// reversing every round. Figures are medians over the rounds. GB/s of weights = bytes of the
// weight matrix / time: a kernel that reads every weight once from memory and keeps up with the
// memory reaches the read figure (ours/read = 1). Results are spot-checked against double sums.
// Ours runs through the public API (one MUL_MAT node, ggml_graph_plan + ggml_graph_compute on
// a thread pool), so the figures include the framework.

#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE // madvise (bench-mem.h)

#include "ggml.h"
#include "ggml-cpu.h"
#include "bench-timing.h"
#include "bench-mem.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ROUNDS 32
#define MAX_THREADS 16

static const int k_ms[] = { 1, 2, 3, 4, 5, 6, 8, 12, 16 };
#define N_MS ((int)(sizeof(k_ms)/sizeof(k_ms[0])))

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static float frand(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (float)((double)(g_rng >> 11)*(1.0/9007199254740992.0))*2.0f - 1.0f;
}

struct read_part {
    const uint64_t * w;
    int64_t          n; // words
    uint64_t         x;
};

static void * read_part_main(void * arg) {
    struct read_part * p = arg;
    const int64_t len = p->n/8 & ~(int64_t) 7; // words per stream
    uint64_t acc[8] = {0};
    for (int64_t i = 0; i < len; i += 8) {
        for (int s = 0; s < 8; s++) {
            const uint64_t * q = p->w + s*len + i;
            acc[s] ^= q[0] ^ q[1] ^ q[2] ^ q[3] ^ q[4] ^ q[5] ^ q[6] ^ q[7];
        }
    }
    p->x = acc[0] ^ acc[1] ^ acc[2] ^ acc[3] ^ acc[4] ^ acc[5] ^ acc[6] ^ acc[7];
    return NULL;
}

// seconds to read `bytes` of buf with nth threads
static double read_once(const void * buf, size_t bytes, int nth) {
    pthread_t        th[MAX_THREADS];
    struct read_part part[MAX_THREADS];
    const int64_t    words = (int64_t)(bytes/8);
    const double     t0 = now_s();
    for (int i = 0; i < nth; i++) {
        part[i].w = (const uint64_t *) buf + words/nth*i;
        part[i].n = words/nth;
        part[i].x = 0;
        if (i > 0 && pthread_create(&th[i], NULL, read_part_main, &part[i]) != 0) {
            return NAN;
        }
    }
    read_part_main(&part[0]);
    for (int i = 1; i < nth; i++) {
        pthread_join(th[i], NULL);
    }
    const double t = now_s() - t0;
    if (part[0].x == 0x123456789ull) { // keeps the reads alive
        fprintf(stderr, " ");
    }
    return t;
}

// largest |got - ref| / sum|a*b| over a few results of c = a x b (M rows)
static double spot_check(const struct ggml_tensor * a, const struct ggml_tensor * b, const struct ggml_tensor * c, int64_t M) {
    double worst = 0.0;
    for (int s = 0; s < 8; s++) {
        const int64_t m = (int64_t)(g_rng % (uint64_t) M), n = (int64_t)((g_rng >> 20) % (uint64_t) a->ne[1]);
        frand();
        double ref = 0.0, mag = 0.0;
        for (int64_t k = 0; k < a->ne[0]; k++) {
            const double p = (double) ggml_get_f32_nd(a, (int) k, (int) n, 0, 0)*((const float *) b->data)[m*b->ne[0] + k];
            ref += p;
            mag += fabs(p);
        }
        const double e = fabs(((const float *) c->data)[m*c->ne[0] + n] - ref)/(mag > 0 ? mag : 1.0);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static int bench_type(enum ggml_type type, int nth, int64_t N, int64_t K, int rounds, const void * rbuf) {
    int64_t msum = 0;
    for (int i = 0; i < N_MS; i++) {
        msum += k_ms[i];
    }
    const size_t  wbytes = ggml_row_size(type, K)*(size_t) N;
    const size_t  bytes = wbytes + (size_t)(msum*K + msum*N)*sizeof(float) + 64*ggml_tensor_overhead() +
                          ggml_graph_overhead()*N_MS + 1024*1024;
    struct ggml_init_params ip = { bytes, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    float * tmp = malloc((size_t) K*sizeof(float));
    if (ctx == NULL || tmp == NULL) {
        fprintf(stderr, "matmul-cols: out of memory\n");
        ggml_free(ctx);
        free(tmp);
        return 1;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, type, K, N);
    if (a == NULL) {
        fprintf(stderr, "matmul-cols: out of memory\n");
        ggml_free(ctx);
        free(tmp);
        return 1;
    }
    for (int64_t i = 0; i < N; i++) {
        for (int64_t k = 0; k < K; k++) {
            tmp[k] = frand();
        }
        char * row = (char *) a->data + i*a->nb[1];
        if (type == GGML_TYPE_F16) {
            ggml_fp32_to_fp16_row(tmp, (ggml_fp16_t *)(void *) row, K);
        } else if (type == GGML_TYPE_BF16) {
            ggml_fp32_to_bf16_row(tmp, (ggml_bf16_t *)(void *) row, K);
        } else {
            memcpy(row, tmp, (size_t) K*sizeof(float));
        }
    }
    free(tmp);

    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    struct ggml_cgraph * gf[N_MS];
    struct ggml_tensor * bt[N_MS], * ct[N_MS];
    struct ggml_cplan    plan[N_MS];
    void *               work[N_MS];
    for (int i = 0; i < N_MS; i++) {
        bt[i] = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, k_ms[i]);
        if (bt[i] == NULL) {
            fprintf(stderr, "matmul-cols: out of memory\n");
            return 1;
        }
        for (int64_t j = 0; j < K*k_ms[i]; j++) {
            ((float *) bt[i]->data)[j] = frand();
        }
        ct[i] = ggml_mul_mat(ctx, a, bt[i]);
        gf[i] = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf[i], ct[i]);
        plan[i] = ggml_graph_plan(gf[i], nth, tp);
        work[i] = plan[i].work_size ? malloc(plan[i].work_size) : NULL;
        plan[i].work_data = work[i];
    }

    static double t_read[MAX_ROUNDS], t_ours[N_MS][MAX_ROUNDS];
    int rc = 0;
    for (int r = -1; r < rounds && rc == 0; r++) { // round -1: warm-up
        for (int j = 0; j <= N_MS; j++) {
            const int  idx = r % 2 ? N_MS - j : j; // 0: the read, 1..N_MS: ours
            double     t;
            if (idx == 0) {
                t = read_once(rbuf, wbytes, nth);
            } else {
                const double t0 = now_s();
                if (ggml_graph_compute(gf[idx - 1], &plan[idx - 1]) != GGML_STATUS_SUCCESS) {
                    fprintf(stderr, "matmul-cols: ggml_graph_compute failed\n");
                    rc = 1;
                    break;
                }
                t = now_s() - t0;
            }
            if (r >= 0) {
                if (idx == 0) {
                    t_read[r] = t;
                } else {
                    t_ours[idx - 1][r] = t;
                }
            }
        }
    }
    if (rc == 0) {
        const double rd = (double) wbytes/median(t_read, rounds)*1e-9;
        printf("%-5s read %6.1f GB/s |", ggml_type_name(type), rd);
        for (int i = 0; i < N_MS; i++) {
            const double e = spot_check(a, bt[i], ct[i], k_ms[i]);
            if (e > 1e-5) {
                fprintf(stderr, "matmul-cols: M=%d: wrong result (relative error %.3g)\n", k_ms[i], e);
                rc = 1;
            }
            const double gbs = (double) wbytes/median(t_ours[i], rounds)*1e-9;
            printf(" %5.1f %4.2f |", gbs, gbs/rd);
        }
        printf("\n");
        fflush(stdout);
    }
    for (int i = 0; i < N_MS; i++) {
        free(work[i]);
    }
    ggml_threadpool_free(tp);
    ggml_free(ctx);
    return rc;
}

int main(int argc, char ** argv) {
    const int     nth    = argc > 1 ? atoi(argv[1]) : 2;
    const int64_t N      = argc > 2 ? atoll(argv[2]) : 4096;
    const int64_t K      = argc > 3 ? atoll(argv[3]) : 14336;
    const int     rounds = argc > 4 ? atoi(argv[4]) : 7;
    if (argc > 5 && strcmp(argv[5], "cpu") == 0) {
        g_clock = CLOCK_PROCESS_CPUTIME_ID;
    }
    if (nth < 1 || nth > MAX_THREADS || N < 1 || K < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: matmul-cols [threads 1..%d] [N] [K] [rounds 1..%d]\n", MAX_THREADS, MAX_ROUNDS);
        return 2;
    }
    const size_t rbytes = (size_t)(N*K)*sizeof(float);
    char * rbuf = bench_alloc_big(rbytes);
    if (rbuf == NULL) {
        fprintf(stderr, "matmul-cols: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < rbytes; i++) {
        rbuf[i] = (char)(i*131u);
    }
    printf("matmul-cols: N = %lld, K = %lld, %d threads, median of %d rounds, %s time; per M: GB/s of weights, ours/read\n",
           (long long) N, (long long) K, nth, rounds, g_clock == CLOCK_MONOTONIC ? "wall" : "CPU");
    printf("%-5s %14s  |", "type", "");
    for (int i = 0; i < N_MS; i++) {
        printf("   M=%-2d    |", k_ms[i]);
    }
    printf("\n");
    int rc = 0;
    rc |= bench_type(GGML_TYPE_F32,  nth, N, K, rounds, rbuf);
    rc |= bench_type(GGML_TYPE_F16,  nth, N, K, rounds, rbuf);
    rc |= bench_type(GGML_TYPE_BF16, nth, N, K, rounds, rbuf);
    free(rbuf);
    return rc;
}
