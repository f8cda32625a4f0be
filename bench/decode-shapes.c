// bench/decode-shapes: one-column quantized products of a small model's shapes (SmolLM2-135M:
// K = 576 or 1536), as GB/s of weights, beside a plain read of the same bytes.
//
//   decode-shapes [n_threads] [clock] [reps]
//       n_threads  default 2
//       clock      "wall" (default) or "cpu": process CPU time (meaningful with 1 thread)
//       reps       timed runs per shape, default 9 (medians)
//       MiB        weights of each shape in all, default 128 (4x a 32 MiB L3); a small figure
//                  (e.g. 1) keeps them in cache and shows whether a kernel is compute-bound
//       shape      only the shape of this name (Q,O K,V gate,up down QKV gate+up output)
//
// A product of 7 - 40 us is too short to time alone (a graph's start costs as much), so each
// shape is one graph of L MUL_MAT nodes, each with its own weights (as the model's layers have),
// L such that the weights take 4x the L3 (so that they come from memory, as in a generated token:
// the model's 97 MB of weights pass once a token). The reference reads the same L buffers of the
// same size, each split over the same threads (no barrier between buffers, so it is the ideal
// stream of these sizes), alternately with the products. fraction = products / read.
// Shapes: Q4_1 576x576 (Q, O), 192x576 (K, V), 1536x576 (gate, up), 576x1536 (down), the fused
// 960x576 (QKV) and 3072x576 (gate+up), and the Q8_0 output 49152x576 (one node: 28 MB).

#define _GNU_SOURCE // pthread_setaffinity_np, CPU_SET

#include "ggml.h"
#include "ggml-cpu.h"
#include "bench-timing.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define DS_X86 1
#else
#define DS_X86 0
#endif

#define DS_MAX_REPS 31
#define DS_MAX_NODES 2048

static bool g_pin = false;

// thread ith of nth on the CPU the library's pinned compute threads use (bench/quant-matmul.c)
static void pin_thread(int ith, int nth) {
#if defined(__linux__)
    if (g_pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(ith == 0 ? nth - 1 : ith - 1, &set);
        pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
#else
    (void) ith; (void) nth;
#endif
}

// a plain read of n bytes (a multiple of 128) with 32-byte loads, 4 in flight
#if DS_X86
__attribute__((target("avx2"))) static uint64_t read_bytes(const uint8_t * p, size_t n) {
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i + 128 <= n; i += 128) {
        s0 = _mm256_add_epi64(s0, _mm256_loadu_si256((const __m256i *)(const void *) (p + i)));
        s1 = _mm256_add_epi64(s1, _mm256_loadu_si256((const __m256i *)(const void *) (p + i + 32)));
        s2 = _mm256_add_epi64(s2, _mm256_loadu_si256((const __m256i *)(const void *) (p + i + 64)));
        s3 = _mm256_add_epi64(s3, _mm256_loadu_si256((const __m256i *)(const void *) (p + i + 96)));
    }
    const __m256i t = _mm256_xor_si256(_mm256_xor_si256(s0, s1), _mm256_xor_si256(s2, s3));
    return (uint64_t) _mm256_extract_epi64(t, 0) ^ (uint64_t) _mm256_extract_epi64(t, 3);
}
#else
static uint64_t read_bytes(const uint8_t * p, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        s += w;
    }
    return s;
}
#endif

// the reference: the same L buffers, thread i reads its share of each one in turn
struct ref_pool {
    int               nth;
    uint8_t        ** bufs;
    int               nbuf;
    size_t            bytes; // of one buffer
    bool              stop;
    uint64_t          sums[16];
    pthread_t         th[16];
    pthread_barrier_t start, done;
};

struct ref_thread { struct ref_pool * p; int ith; };
static struct ref_thread g_ref_threads[16];

static void ref_pass(struct ref_pool * p, int ith) {
    const size_t per = (p->bytes/(size_t) p->nth) & ~(size_t) 127;
    uint64_t s = 0;
    for (int b = 0; b < p->nbuf; b++) {
        s ^= read_bytes(p->bufs[b] + (size_t) ith*per, per);
    }
    p->sums[ith] = s;
}

static void * ref_worker(void * vp) {
    struct ref_thread * t = vp;
    pin_thread(t->ith, t->p->nth);
    for (;;) {
        pthread_barrier_wait(&t->p->start);
        if (t->p->stop) {
            return NULL;
        }
        ref_pass(t->p, t->ith);
        pthread_barrier_wait(&t->p->done);
    }
}

static void ref_start(struct ref_pool * p, int nth, uint8_t ** bufs, int nbuf, size_t bytes) {
    memset(p, 0, sizeof(*p));
    p->nth = nth;
    p->bufs = bufs;
    p->nbuf = nbuf;
    p->bytes = bytes;
    pthread_barrier_init(&p->start, NULL, (unsigned) nth);
    pthread_barrier_init(&p->done, NULL, (unsigned) nth);
    for (int i = 1; i < nth; i++) {
        g_ref_threads[i] = (struct ref_thread) { p, i };
        pthread_create(&p->th[i], NULL, ref_worker, &g_ref_threads[i]);
    }
}

static void ref_stop(struct ref_pool * p) {
    p->stop = true;
    pthread_barrier_wait(&p->start);
    for (int i = 1; i < p->nth; i++) {
        pthread_join(p->th[i], NULL);
    }
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->done);
}

static double ref_time(struct ref_pool * p) {
    const double t0 = now_s();
    pthread_barrier_wait(&p->start);
    ref_pass(p, 0);
    pthread_barrier_wait(&p->done);
    const double t = now_s() - t0;
    uint64_t x = 0;
    for (int i = 0; i < p->nth; i++) {
        x ^= p->sums[i];
    }
    if (x == 42) {
        printf(" ");
    }
    return t;
}

struct shape { const char * name; enum ggml_type type; int64_t N, K; };

// the graph of L products of one shape; returns false (and frees) on failure
struct ds_case {
    struct ggml_context * ctx;
    struct ggml_cgraph  * gf;
    struct ggml_cplan     plan;
    void                * work;
    uint8_t             * bufs[DS_MAX_NODES];
    int                   L;
    size_t                wbytes;
};

static bool ds_init(struct ds_case * c, const struct shape * s, int L, int nth, struct ggml_threadpool * tp) {
    memset(c, 0, sizeof(*c));
    const size_t rs = ggml_row_size(s->type, s->K);
    c->wbytes = rs*(size_t) s->N;
    c->L = L;
    const size_t mem = (size_t) L*(c->wbytes + (size_t) s->N*sizeof(float) + 2*ggml_tensor_overhead() + 512) +
                       (size_t) s->K*sizeof(float) + ggml_graph_overhead_custom(2*(size_t) L + 8, false) + 8192;
    struct ggml_init_params ip = { mem, NULL, false };
    c->ctx = ggml_init(ip);
    if (c->ctx == NULL) {
        return false;
    }
    float * row = malloc((size_t) s->K*sizeof(float));
    if (row == NULL) {
        return false;
    }
    struct ggml_tensor * b = ggml_new_tensor_1d(c->ctx, GGML_TYPE_F32, s->K);
    for (int64_t k = 0; k < s->K; k++) {
        ((float *) b->data)[k] = (float) ((k*29) % 97 - 48)/48.0f;
    }
    c->gf = ggml_new_graph_custom(c->ctx, 2*(size_t) L + 8, false);
    const struct ggml_type_traits * tr = ggml_get_type_traits(s->type);
    for (int l = 0; l < L; l++) {
        struct ggml_tensor * a = ggml_new_tensor_2d(c->ctx, s->type, s->K, s->N);
        if (l == 0) {
            const int64_t nuniq = s->N < 8 ? s->N : 8;
            for (int64_t n = 0; n < nuniq; n++) {
                for (int64_t k = 0; k < s->K; k++) {
                    row[k] = (float) ((k*37 + n*11) % 101 - 50)/50.0f;
                }
                tr->from_float_ref(row, (char *) a->data + (size_t) n*rs, s->K);
            }
            for (int64_t n = nuniq; n < s->N; n++) {
                memcpy((char *) a->data + (size_t) n*rs, (const char *) a->data + (size_t) (n % nuniq)*rs, rs);
            }
        } else {
            memcpy(a->data, c->bufs[0], c->wbytes);
        }
        c->bufs[l] = a->data;
        ggml_build_forward_expand(c->gf, ggml_mul_mat(c->ctx, a, b));
    }
    free(row);
    c->plan = ggml_graph_plan(c->gf, nth, tp);
    c->work = c->plan.work_size ? malloc(c->plan.work_size) : NULL;
    c->plan.work_data = c->work;
    return c->plan.work_size == 0 || c->work != NULL;
}

static void ds_free(struct ds_case * c) {
    free(c->work);
    if (c->ctx != NULL) {
        ggml_free(c->ctx);
    }
    memset(c, 0, sizeof(*c));
}

int main(int argc, char ** argv) {
    const int nth = argc > 1 ? atoi(argv[1]) : 2;
    if (argc > 2 && strcmp(argv[2], "cpu") == 0) {
        g_clock = CLOCK_PROCESS_CPUTIME_ID;
    }
    const int reps = argc > 3 ? atoi(argv[3]) : 9;
    if (nth < 1 || nth > 16 || reps < 1 || reps > DS_MAX_REPS || (argc > 4 && atoi(argv[4]) < 1)) {
        fprintf(stderr, "usage: decode-shapes [n_threads 1..16] [wall|cpu] [reps 1..%d] [MiB] [shape]\n", DS_MAX_REPS);
        return 1;
    }
    ggml_cpu_init();
#if defined(__linux__)
    g_pin = sysconf(_SC_NPROCESSORS_ONLN) >= nth;
#endif
    pin_thread(0, nth);
    const struct shape shapes[] = {
        { "Q,O",      GGML_TYPE_Q4_1, 576, 576 },
        { "K,V",      GGML_TYPE_Q4_1, 192, 576 },
        { "gate,up",  GGML_TYPE_Q4_1, 1536, 576 },
        { "down",     GGML_TYPE_Q4_1, 576, 1536 },
        { "QKV",      GGML_TYPE_Q4_1, 960, 576 },
        { "gate+up",  GGML_TYPE_Q4_1, 3072, 576 },
        { "output",   GGML_TYPE_Q8_0, 49152, 576 },
    };
    const size_t target = (size_t) (argc > 4 ? atoi(argv[4]) : 128) << 20;
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    if (g_pin) {
        for (int i = 0; i < nth; i++) {
            tpp.cpumask[i] = true;
        }
        tpp.strict_cpu = true;
    }
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    if (tp == NULL) {
        fprintf(stderr, "decode-shapes: no threadpool\n");
        return 1;
    }
    printf("decode-shapes: %d threads%s, %s clock, medians of %d; weights of each shape in L copies (%zu MiB)\n", nth,
           g_pin ? " pinned" : "", g_clock == CLOCK_MONOTONIC ? "wall" : "process CPU", reps, target >> 20);
    printf("| shape | type | N x K | KiB | L | us / product | GB/s | read GB/s | fraction |\n|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(shapes)/sizeof(shapes[0]); i++) {
        const struct shape * s = &shapes[i];
        if (argc > 5 && strcmp(argv[5], s->name) != 0) {
            continue;
        }
        const size_t wb = ggml_row_size(s->type, s->K)*(size_t) s->N;
        int L = (int) ((target + wb - 1)/wb);
        L = L < 2 ? 2 : L > DS_MAX_NODES ? DS_MAX_NODES : L;
        struct ds_case c;
        if (!ds_init(&c, s, L, nth, tp)) {
            fprintf(stderr, "decode-shapes: cannot set up %s\n", s->name);
            ds_free(&c);
            continue;
        }
        struct ref_pool ref;
        ref_start(&ref, nth, c.bufs, L, wb);
        double tm[DS_MAX_REPS], tr[DS_MAX_REPS];
        bool ok = ggml_graph_compute(c.gf, &c.plan) == GGML_STATUS_SUCCESS;
        ref_time(&ref);
        for (int r = 0; r < reps && ok; r++) {
            const double t0 = now_s();
            ok = ggml_graph_compute(c.gf, &c.plan) == GGML_STATUS_SUCCESS;
            tm[r] = now_s() - t0;
            tr[r] = ref_time(&ref);
        }
        ref_stop(&ref);
        if (ok) {
            const double t = median_upper(tm, reps), trd = median_upper(tr, reps);
            const double rb = (double) (((wb/(size_t) nth) & ~(size_t) 127)*(size_t) nth);
            const double gb = (double) wb*(double) L/t*1e-9, gbr = rb*(double) L/trd*1e-9;
            printf("| %s | %s | %lld x %lld | %.0f | %d | %.2f | %.1f | %.1f | %.2f |\n", s->name, ggml_type_name(s->type),
                   (long long) s->N, (long long) s->K, (double) wb/1024.0, L, t/(double) L*1e6, gb, gbr, gb/gbr);
        } else {
            fprintf(stderr, "decode-shapes: %s failed\n", s->name);
        }
        fflush(stdout);
        ds_free(&c);
    }
    ggml_threadpool_free(tp);
    return 0;
}
