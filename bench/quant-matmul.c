// bench/quant-matmul: MUL_MAT with quantized weights on the CPU, per type.
//
//   quant-matmul [n_threads] [prompt_N] [types] [clock]
//       n_threads  default 2
//       prompt_N   weight rows of the prompt case, default 14336; 0: decode only
//       types      comma-separated type names (q4_0,q6_K,...) or "all" (default)
//       clock      "wall" (default) or "cpu": process CPU time (a loaded machine's preemption does
//                  not count; meaningful with 1 thread, where no thread waits at a barrier)
//
// Only the family's public API is used (ggml.h, ggml-cpu.h: one MUL_MAT node, ggml_graph_plan +
// ggml_graph_compute), so the same file built against the family's library measures the
// family's CPU path in its own process (bench/quant-peer.sh does that and joins the tables).
//
// Decode: M = 1 column, K = 4096, N = 14336 weight rows, as GB/s of weights read, beside a plain
// read of the same bytes by as many threads in the same run (the bandwidth the kernel competes
// with: AVX2 loads with a software prefetch where the CPU has AVX2, else a scalar loop) and their
// ratio. The plain read is timed alternately with the decode (each median of N_RUNS). Prompt: M = 512 columns, K = 4096, N = prompt_N, GFLOP/s = 2*M*N*K / time,
// and its fraction of the machine's int8 dot peak measured here (a register-only loop of AVX2
// maddubs, 64 int8 operations each, on every thread, in each thread's CPU time). Types whose
// prompt would take more than about 4 s a run are measured at N = 256 instead (marked *).
// Medians of 5 timed runs after a warm-up.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define QB_X86 1
#else
#define QB_X86 0
#endif

#define N_RUNS 5

static clockid_t g_clock = CLOCK_MONOTONIC;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(g_clock, &ts);
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

static void read_scalar(struct read_arg * a) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= a->n; i += 4) {
        s0 += a->p[i]; s1 += a->p[i + 1]; s2 += a->p[i + 2]; s3 += a->p[i + 3];
    }
    a->sum = s0 ^ s1 ^ s2 ^ s3;
}

#if QB_X86
// the fastest plain read found on an AVX2 core: 32-byte loads, 4 sums, a software prefetch 2 KiB
// ahead (what the decode kernels do; about 10% above the scalar loop there)
__attribute__((target("avx2"))) static void read_avx2(struct read_arg * a) {
    const __m256i * p = (const __m256i *)(const void *) a->p;
    const size_t n = a->n/4;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        _mm_prefetch((const char *) (p + i) + 2048, _MM_HINT_T0);
        _mm_prefetch((const char *) (p + i) + 2048 + 64, _MM_HINT_T0);
        s0 = _mm256_add_epi64(s0, _mm256_loadu_si256(p + i));
        s1 = _mm256_add_epi64(s1, _mm256_loadu_si256(p + i + 1));
        s2 = _mm256_add_epi64(s2, _mm256_loadu_si256(p + i + 2));
        s3 = _mm256_add_epi64(s3, _mm256_loadu_si256(p + i + 3));
    }
    const __m256i t = _mm256_xor_si256(_mm256_xor_si256(s0, s1), _mm256_xor_si256(s2, s3));
    a->sum = (uint64_t) _mm256_extract_epi64(t, 0) ^ (uint64_t) _mm256_extract_epi64(t, 3);
}
#endif

static void * read_worker(void * vp) {
    struct read_arg * a = vp;
#if QB_X86
    if (ggml_cpu_has_avx2()) {
        read_avx2(a);
        return NULL;
    }
#endif
    read_scalar(a);
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

#if QB_X86
// int8 dot throughput: 8 independent maddubs chains in registers (64 int8 operations each); each
// thread times itself in its own CPU time, so other processes' load does not lower the figure
#define QB_PEAK_ITERS 20000000L
struct peak_arg { double seconds; int sink; };

__attribute__((target("avx2"))) static void * peak_worker(void * vp) {
    struct peak_arg * p = vp;
    __m256i a[8];
    const __m256i s = _mm256_set1_epi8(1);
    for (int j = 0; j < 8; j++) {
        a[j] = _mm256_set1_epi16((short) j);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (long i = 0; i < QB_PEAK_ITERS; i++) {
        for (int j = 0; j < 8; j++) {
            a[j] = _mm256_maddubs_epi16(a[j], s);
        }
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    __m256i t = a[0];
    for (int j = 1; j < 8; j++) {
        t = _mm256_add_epi16(t, a[j]);
    }
    p->sink = _mm256_extract_epi16(t, 0);
    p->seconds = (double) (t1.tv_sec - t0.tv_sec) + 1e-9*(double) (t1.tv_nsec - t0.tv_nsec);
    return NULL;
}
#endif

// the int8 dot peak of nth threads, GOP/s (0 where not measured)
static double int8_peak(int nth) {
#if QB_X86
    if (!ggml_cpu_has_avx2()) {
        return 0.0;
    }
    pthread_t th[16];
    struct peak_arg args[16];
    for (int i = 0; i < nth; i++) {
        pthread_create(&th[i], NULL, peak_worker, &args[i]);
    }
    double gops = 0.0;
    for (int i = 0; i < nth; i++) {
        pthread_join(th[i], NULL);
        gops += 64.0*8.0*(double) QB_PEAK_ITERS/args[i].seconds*1e-9;
    }
    return gops;
#else
    (void) nth;
    return 0.0;
#endif
}

struct mm_case {
    struct ggml_context    * ctx;
    struct ggml_cgraph     * gf;
    struct ggml_threadpool * tp;
    struct ggml_cplan        plan;
    void                   * work;
    struct ggml_tensor     * a;
    size_t                   wbytes;
};

static void mm_free(struct mm_case * c) {
    free(c->work);
    if (c->tp != NULL) {
        ggml_threadpool_free(c->tp);
    }
    if (c->ctx != NULL) {
        ggml_free(c->ctx);
    }
    memset(c, 0, sizeof(*c));
}

// one MUL_MAT of [K, N] weights of type t by [K, M] F32 activations, ready to compute
static bool mm_init(struct mm_case * c, enum ggml_type t, int64_t K, int64_t N, int64_t M, int nth) {
    memset(c, 0, sizeof(*c));
    const size_t rs = ggml_row_size(t, K);
    c->wbytes = rs*(size_t) N;
    struct ggml_init_params ip = { c->wbytes + (size_t) (K*M + N*M)*sizeof(float) + 16*ggml_tensor_overhead() +
                                   ggml_graph_overhead() + 4096, NULL, false };
    c->ctx = ggml_init(ip);
    if (c->ctx == NULL) {
        return false;
    }
    c->a = ggml_new_tensor_2d(c->ctx, t, K, N);
    struct ggml_tensor * b = ggml_new_tensor_2d(c->ctx, GGML_TYPE_F32, K, M);
    // weights: a few rows quantized from ramps, repeated; the content does not change the time
    float * row = malloc((size_t) K*sizeof(float));
    if (row == NULL) {
        return false;
    }
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    const int64_t nuniq = N < 8 ? N : 8;
    for (int64_t n = 0; n < nuniq; n++) {
        for (int64_t k = 0; k < K; k++) {
            row[k] = (float) ((k*37 + n*11) % 101 - 50)/50.0f;
        }
        if (tr->from_float_ref != NULL) {
            tr->from_float_ref(row, (char *) c->a->data + (size_t) n*rs, K);
        } else {
            memset((char *) c->a->data + (size_t) n*rs, 0x11, rs); // dequantize-only types: a finite pattern
        }
    }
    for (int64_t n = nuniq; n < N; n++) {
        memcpy((char *) c->a->data + (size_t) n*rs, (const char *) c->a->data + (size_t) (n % nuniq)*rs, rs);
    }
    for (int64_t i = 0; i < K*M; i++) {
        ((float *) b->data)[i] = row[i % K]*(1.0f + 0.001f*(float) (i/K));
    }
    free(row);
    struct ggml_tensor * out = ggml_mul_mat(c->ctx, c->a, b);
    c->gf = ggml_new_graph(c->ctx);
    ggml_build_forward_expand(c->gf, out);
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    c->tp = ggml_threadpool_new(&tpp);
    if (c->tp == NULL) {
        return false;
    }
    c->plan = ggml_graph_plan(c->gf, nth, c->tp);
    c->work = c->plan.work_size ? malloc(c->plan.work_size) : NULL;
    c->plan.work_data = c->work;
    return c->plan.work_size == 0 || c->work != NULL;
}

static double mm_once(struct mm_case * c) {
    const double t0 = now_s();
    if (ggml_graph_compute(c->gf, &c->plan) != GGML_STATUS_SUCCESS) {
        return -1.0;
    }
    return now_s() - t0;
}

// median seconds of N_RUNS after a warm-up (negative on failure)
static double mm_time(struct mm_case * c) {
    double ts[N_RUNS];
    if (mm_once(c) < 0) {
        return -1.0;
    }
    for (int r = 0; r < N_RUNS; r++) {
        ts[r] = mm_once(c);
    }
    return median(ts, N_RUNS);
}

static bool type_selected(const char * list, const char * name) {
    if (strcmp(list, "all") == 0) {
        return true;
    }
    const size_t n = strlen(name);
    for (const char * p = list; (p = strstr(p, name)) != NULL; p += n) {
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) {
            return true;
        }
    }
    return false;
}

int main(int argc, char ** argv) {
    const int nth = argc > 1 ? atoi(argv[1]) : 2;
    const int64_t pn = argc > 2 ? atoll(argv[2]) : 14336;
    const char * list = argc > 3 ? argv[3] : "all";
    if (argc > 4 && strcmp(argv[4], "cpu") == 0) {
        g_clock = CLOCK_PROCESS_CPUTIME_ID;
    }
    if (nth < 1 || nth > 16 || pn < 0) {
        fprintf(stderr, "usage: quant-matmul [n_threads 1..16] [prompt_N] [types|all] [wall|cpu]\n");
        return 1;
    }
    ggml_cpu_init();
    const enum ggml_type types[] = {
        GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K,
        GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4,
        GGML_TYPE_TQ2_0, GGML_TYPE_F16,
    };
    const int64_t K = 4096, N = 14336, PM = 512;
    const double peak = int8_peak(nth);
    printf("quant-matmul: %d threads, %s clock; decode M=1 K=%lld N=%lld; prompt M=%lld K=%lld N=%lld; medians of %d; "
           "int8 dot peak %.1f GOP/s\n", nth, g_clock == CLOCK_MONOTONIC ? "wall" : "process CPU", (long long) K,
           (long long) N, (long long) PM, (long long) K, (long long) pn, N_RUNS, peak);
    printf("| type | decode GB/s | memory read GB/s | fraction | prompt GFLOP/s | of int8 peak |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(types)/sizeof(types[0]); i++) {
        const char * name = ggml_type_name(types[i]);
        if (!type_selected(list, name)) {
            continue;
        }
        struct mm_case c;
        double gbd = -1.0, gbm = -1.0;
        if (mm_init(&c, types[i], K, N, 1, nth)) {
            // decode and plain read alternately, so that both see the same load
            double tr[N_RUNS], tds[N_RUNS];
            bool ok = mm_once(&c) >= 0;
            for (int r = 0; r < N_RUNS && ok; r++) {
                tds[r] = mm_once(&c);
                tr[r] = time_read(c.a->data, c.wbytes, nth);
                ok = tds[r] >= 0;
            }
            const double td = ok ? median(tds, N_RUNS) : -1.0;
            gbd = td > 0 ? (double) c.wbytes/td*1e-9 : -1.0;
            gbm = (double) c.wbytes/median(tr, N_RUNS)*1e-9;
        }
        mm_free(&c);
        // the prompt: probe at N = 256 first; slow kernels stay there
        int64_t n_used = 256;
        double tp = -1.0;
        if (pn > 0 && mm_init(&c, types[i], K, 256, PM, nth)) {
            const double probe = mm_once(&c);
            if (probe >= 0 && probe*(double) pn/256.0 > 4.0) {
                tp = mm_time(&c);
            } else if (probe >= 0) {
                mm_free(&c);
                n_used = pn;
                tp = mm_init(&c, types[i], K, pn, PM, nth) ? mm_time(&c) : -1.0;
            }
        }
        mm_free(&c);
        const double gf = tp > 0 ? 2.0*(double) PM*(double) n_used*(double) K/tp*1e-9 : -1.0;
        if (pn == 0) {
            printf("| %s | %.1f | %.1f | %.2f | - | - |\n", name, gbd, gbm, gbd/gbm);
        } else {
            printf("| %s | %.1f | %.1f | %.2f | %.1f%s | %.2f |\n", name, gbd, gbm, gbd/gbm, gf, n_used != pn ? "*" : "",
                   peak > 0 ? gf/peak : 0.0);
        }
        fflush(stdout);
    }
    return 0;
}
