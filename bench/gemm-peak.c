// bench/gemm-peak: the CPU backend's F32 GEMM (square MUL_MAT, n = 512 .. 2048) as a fraction of
// the FMA peak of as many cores, the peak measured in the same run.
//
//   gemm-peak [rounds] [cpu|wall] [threads...] [-- sizes...]     (defaults: 5 cpu 1 2 -- 512 1024 1536 2048)
//
// The peak: each of nth threads runs 12 independent chains of FMAs on registers (ymm, or zmm
// where the CPU has AVX-512F), more chains than latency x pipes on any current core, so the FMA
// pipes are the only limit. GEMM: GFLOP/s = 2 n^3 / time, ours through the public API (one
// MUL_MAT node, ggml_graph_plan + ggml_graph_compute on a thread pool: the framework included).
// Each round times the peak and every size in turn, the order reversing every round; figures are
// medians over the rounds, and every product is spot-checked against double sums.
//
// Clocks: `cpu` (the default) divides the process CPU time by the thread count, i.e. the figures
// are per CPU-second actually given to the process; with 1 thread this is what the kernel costs
// on a shared machine. `wall` is the wall clock; 2-thread figures mean something only on a quiet
// machine (on a loaded one the second thread waits for a core, in both clocks: CPU time counts
// its spinning at the barriers).

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"
#include "bench-timing.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#define MAX_ROUNDS  32
#define MAX_THREADS 16
#define MAX_SIZES   16

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static float frand(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (float)((double)(g_rng >> 11)*(1.0/9007199254740992.0))*2.0f - 1.0f;
}

//
// the FMA peak
//

#define PEAK_ITERS (1 << 22)

struct peak_arg {
    double flops;
    float  sink;
};

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"))) static void peak_avx2(struct peak_arg * p) {
    __m256 acc[12];
    const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++) {
        acc[i] = _mm256_set1_ps((float) i);
    }
    for (int it = 0; it < PEAK_ITERS; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) {
            acc[i] = _mm256_fmadd_ps(acc[i], x, y);
        }
    }
    __m256 s = acc[0];
    for (int i = 1; i < 12; i++) {
        s = _mm256_add_ps(s, acc[i]);
    }
    float v[8];
    _mm256_storeu_ps(v, s);
    p->sink  = v[0] + v[7];
    p->flops = (double) PEAK_ITERS*12*8*2;
}

__attribute__((target("avx512f"))) static void peak_avx512(struct peak_arg * p) {
    __m512 acc[12];
    const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++) {
        acc[i] = _mm512_set1_ps((float) i);
    }
    for (int it = 0; it < PEAK_ITERS; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) {
            acc[i] = _mm512_fmadd_ps(acc[i], x, y);
        }
    }
    __m512 s = acc[0];
    for (int i = 1; i < 12; i++) {
        s = _mm512_add_ps(s, acc[i]);
    }
    p->sink  = _mm512_reduce_add_ps(s);
    p->flops = (double) PEAK_ITERS*12*16*2;
}
#endif

static void * peak_main(void * vp) {
    struct peak_arg * p = vp;
    p->flops = 0.0;
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_cpu_supports("avx512f")) {
        peak_avx512(p);
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        peak_avx2(p);
    }
#endif
    return NULL;
}

// GFLOP/s of nth threads running the FMA loop at once (0 where no FMA loop exists for this CPU)
static double fma_peak(int nth) {
    pthread_t       th[MAX_THREADS];
    struct peak_arg arg[MAX_THREADS];
    const double t0 = now_s();
    for (int i = 1; i < nth; i++) {
        if (pthread_create(&th[i], NULL, peak_main, &arg[i]) != 0) {
            return 0.0;
        }
    }
    peak_main(&arg[0]);
    double flops = arg[0].flops;
    for (int i = 1; i < nth; i++) {
        pthread_join(th[i], NULL);
        flops += arg[i].flops;
    }
    const double t = (now_s() - t0)/(g_clock == CLOCK_MONOTONIC ? 1.0 : (double) nth);
    if (arg[0].sink == 12345.0f) { // keeps the loop alive
        fprintf(stderr, " ");
    }
    return flops/t*1e-9;
}

//
// the GEMM
//

struct gemm_case {
    int64_t              n;
    struct ggml_tensor * a, * b, * c;
    struct ggml_cgraph * gf;
    struct ggml_cplan    plan;
    void *               work;
};

// largest |got - ref| / sum|a*b| over a few results
static double spot_check(const struct gemm_case * g) {
    double worst = 0.0;
    const int64_t n = g->n;
    const float * a = g->a->data, * b = g->b->data, * c = g->c->data;
    for (int s = 0; s < 16; s++) {
        frand();
        const int64_t i = (int64_t)(g_rng % (uint64_t) n), j = (int64_t)((g_rng >> 24) % (uint64_t) n);
        double ref = 0.0, mag = 0.0;
        for (int64_t k = 0; k < n; k++) {
            const double p = (double) a[j*n + k]*(double) b[i*n + k];
            ref += p;
            mag += fabs(p);
        }
        const double e = fabs((double) c[i*n + j] - ref)/(mag > 0 ? mag : 1.0);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static int run_threads(int nth, int rounds, const int64_t * sizes, int n_sizes) {
    struct gemm_case g[MAX_SIZES];
    size_t bytes = 1024*1024;
    for (int i = 0; i < n_sizes; i++) {
        bytes += (size_t)(3*sizes[i]*sizes[i])*sizeof(float) + 4*ggml_tensor_overhead() + ggml_graph_overhead() + 3*64;
    }
    struct ggml_init_params ip = { bytes, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    if (ctx == NULL || tp == NULL) {
        fprintf(stderr, "gemm-peak: out of memory\n");
        ggml_free(ctx);
        if (tp) {
            ggml_threadpool_free(tp);
        }
        return 1;
    }
    int rc = 0;
    int made = 0;
    for (int i = 0; i < n_sizes && rc == 0; i++, made++) {
        const int64_t n = sizes[i];
        g[i].n = n;
        g[i].a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
        g[i].b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
        g[i].work = NULL;
        if (g[i].a == NULL || g[i].b == NULL) {
            fprintf(stderr, "gemm-peak: out of memory\n");
            rc = 1;
            break;
        }
        for (int64_t j = 0; j < n*n; j++) {
            ((float *) g[i].a->data)[j] = frand();
            ((float *) g[i].b->data)[j] = frand();
        }
        g[i].c  = ggml_mul_mat(ctx, g[i].a, g[i].b);
        g[i].gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(g[i].gf, g[i].c);
        g[i].plan = ggml_graph_plan(g[i].gf, nth, tp);
        g[i].work = g[i].plan.work_size ? malloc(g[i].plan.work_size) : NULL;
        g[i].plan.work_data = g[i].work;
        if (g[i].plan.work_size && g[i].work == NULL) {
            fprintf(stderr, "gemm-peak: out of memory\n");
            rc = 1;
        }
    }

    static double t_peak[MAX_ROUNDS], t_gemm[MAX_SIZES][MAX_ROUNDS];
    const double  div = g_clock == CLOCK_MONOTONIC ? 1.0 : (double) nth;
    for (int r = -1; r < rounds && rc == 0; r++) { // round -1: warm-up
        for (int j = 0; j <= n_sizes && rc == 0; j++) {
            const int idx = r % 2 ? n_sizes - j : j; // 0: the peak, 1..: the sizes
            if (idx == 0) {
                const double p = fma_peak(nth);
                if (r >= 0) {
                    t_peak[r] = p;
                }
                continue;
            }
            struct gemm_case * c = &g[idx - 1];
            const double t0 = now_s();
            if (ggml_graph_compute(c->gf, &c->plan) != GGML_STATUS_SUCCESS) {
                fprintf(stderr, "gemm-peak: ggml_graph_compute failed\n");
                rc = 1;
                break;
            }
            const double t = (now_s() - t0)/div;
            if (r >= 0) {
                t_gemm[idx - 1][r] = 2.0*(double) c->n*(double) c->n*(double) c->n/t*1e-9;
            }
        }
    }
    if (rc == 0) {
        const double peak = median(t_peak, rounds);
        printf("%d thread%s: FMA peak %.1f GFLOP/s\n", nth, nth > 1 ? "s" : " ", peak);
        for (int i = 0; i < n_sizes; i++) {
            const double e = spot_check(&g[i]);
            if (!(e < 1e-5)) {
                fprintf(stderr, "gemm-peak: n = %lld: wrong result (relative error %.3g)\n", (long long) g[i].n, e);
                rc = 1;
            }
            const double gf = median(t_gemm[i], rounds);
            printf("  %5lld^3  %7.1f GFLOP/s  %5.3f of the peak  (min %.3f, max %.3f)\n", (long long) g[i].n, gf,
                   peak > 0 ? gf/peak : 0.0, peak > 0 ? t_gemm[i][0]/peak : 0.0, peak > 0 ? t_gemm[i][rounds - 1]/peak : 0.0);
        }
        fflush(stdout);
    }
    for (int i = 0; i < made; i++) {
        free(g[i].work);
    }
    ggml_threadpool_free(tp);
    ggml_free(ctx);
    return rc;
}

int main(int argc, char ** argv) {
    int     rounds = 5;
    int     threads[MAX_THREADS] = { 1, 2 };
    int     n_threads = 2;
    int64_t sizes[MAX_SIZES] = { 512, 1024, 1536, 2048 };
    int     n_sizes = 4;
    int     ai = 1;
    g_clock = CLOCK_PROCESS_CPUTIME_ID; // this bench's default (wall time on request)
    if (ai < argc && strcmp(argv[ai], "--") != 0) {
        rounds = atoi(argv[ai++]);
    }
    if (ai < argc && strcmp(argv[ai], "--") != 0) {
        if (strcmp(argv[ai], "wall") == 0) {
            g_clock = CLOCK_MONOTONIC;
        } else if (strcmp(argv[ai], "cpu") != 0) {
            fprintf(stderr, "gemm-peak: clock must be cpu or wall\n");
            return 2;
        }
        ai++;
    }
    if (ai < argc && strcmp(argv[ai], "--") != 0) {
        n_threads = 0;
        for (; ai < argc && strcmp(argv[ai], "--") != 0 && n_threads < MAX_THREADS; ai++) {
            threads[n_threads++] = atoi(argv[ai]);
        }
    }
    if (ai < argc && strcmp(argv[ai], "--") == 0) {
        ai++;
        n_sizes = 0;
        for (; ai < argc && n_sizes < MAX_SIZES; ai++) {
            sizes[n_sizes++] = atoll(argv[ai]);
        }
    }
    int ok = rounds >= 1 && rounds <= MAX_ROUNDS && n_threads >= 1 && n_sizes >= 1;
    for (int i = 0; i < n_threads; i++) {
        ok = ok && threads[i] >= 1 && threads[i] <= MAX_THREADS;
    }
    for (int i = 0; i < n_sizes; i++) {
        ok = ok && sizes[i] >= 1 && sizes[i] <= 16384;
    }
    if (!ok) {
        fprintf(stderr, "usage: gemm-peak [rounds 1..%d] [cpu|wall] [threads 1..%d ...] [-- sizes ...]\n", MAX_ROUNDS, MAX_THREADS);
        return 2;
    }
    printf("gemm-peak: F32 MUL_MAT n^3, median of %d rounds, %s time%s; AVX-512F %s\n", rounds,
           g_clock == CLOCK_MONOTONIC ? "wall" : "process CPU", g_clock == CLOCK_MONOTONIC ? "" : " / threads",
           ggml_cpu_has_avx512() ? "yes" : "no");
    int rc = 0;
    for (int i = 0; i < n_threads && rc == 0; i++) {
        rc = run_threads(threads[i], rounds, sizes, n_sizes);
    }
    return rc;
}
