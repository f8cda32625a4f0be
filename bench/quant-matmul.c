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
// Decode: M = 1 column, K = 4096, N = 14336 weight rows, as GB/s of weights read. The 33 - 60 MB
// matrices are about the size of a server L3 cache, so that a repeated product would be served
// from it in part: the weights exist in as many copies as make 4x the L3 (sysfs; 32 MiB when
// unknown), at least 2, and each timed run reads the next copy. The reference, measured in the
// same run alternately with the decode (each a median of N_RUNS): a plain read and a copy over a
// buffer of 4x the L3, split over the same number of threads, started before timing and pinned
// as the compute threads are (the calling thread on CPU n_threads - 1, thread i >= 1 on CPU
// i - 1: both libraries' placement with cpumask = CPUs 0 .. n_threads - 1, strict_cpu); its
// buffers get our library's huge-page offer (bench-mem.h; GGML_HUGEPAGES=0 turns it off). The
// read is AVX2 loads (else a scalar loop) from 4 places per thread in lockstep (the fastest plain read
// found; also printed: one stream per thread); the copy is memcpy, counted as bytes read +
// written. fraction = decode / read (4 streams).
// Prompt: M = 512 columns, K = 4096, N = prompt_N, GFLOP/s = 2*M*N*K / time,
// and its fraction of the machine's int8 dot peak measured here (a register-only loop of AVX2
// maddubs, 64 int8 operations each, on every thread, in each thread's CPU time). Types whose
// prompt would take more than about 4 s a run are measured at N = 256 instead (marked *).
// Medians of 5 timed runs after a warm-up.
// Weights: rows quantized from ramps by the type's reference quantizer; the IQ1 / IQ2 / IQ3 types,
// whose quantizers need an importance matrix (and are missing here or there), get random blocks
// of finite scales instead (fill_random_blocks), the same bytes in both libraries' processes.

#define _GNU_SOURCE // pthread_setaffinity_np, CPU_SET

#include "ggml.h"
#include "ggml-cpu.h"
#include "bench-timing.h"
#include "bench-mem.h"

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
#define QB_X86 1
#else
#define QB_X86 0
#endif

#define N_RUNS 5

// the types filled with random blocks, and the byte offset of their fp16 scale (IQ1_M: -1, its
// scale is spread over the top nibbles of the 4 scale words at byte 48)
static int random_fill_d_offset(enum ggml_type t, bool * random) {
    *random = true;
    switch (t) {
        case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ2_S:
        case GGML_TYPE_IQ3_XXS: case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ1_S:
            return 0;
        case GGML_TYPE_IQ1_M:
            return -1;
        default:
            *random = false;
            return 0;
    }
}

// bytes of random blocks of type t (every grid index of these formats is valid), each block's
// scale set to a random fp16 between 2^-11 and 2^-7 (finite, normal); a fixed seed
static void fill_random_blocks(enum ggml_type t, uint8_t * p, size_t bytes, int doff) {
    uint64_t st = 0x9E3779B97F4A7C15ull ^ (uint64_t) t;
    for (size_t i = 0; i < bytes; i++) {
        st = st*6364136223846793005ull + 1442695040888963407ull;
        p[i] = (uint8_t) (st >> 56);
    }
    const size_t bs = ggml_type_size(t);
    for (size_t b = 0; b + bs <= bytes; b += bs) {
        st = st*6364136223846793005ull + 1442695040888963407ull;
        const uint16_t d = (uint16_t) (0x1000 + ((st >> 40) & 0x0FFF));
        if (doff >= 0) {
            memcpy(p + b + (size_t) doff, &d, sizeof(d));
        } else {
            for (int k = 0; k < 4; k++) {
                uint8_t * hi = p + b + 48 + 2*(size_t) k + 1;
                *hi = (uint8_t) ((*hi & 0x0F) | (((d >> (4*k)) & 0x0F) << 4));
            }
        }
    }
}

// a plain read of n 64-bit words from `streams` places at once: the range cut into that many
// equal parts, read in lockstep (one core draws more bandwidth from several distant streams than
// from one: on the AVX2 EPYC of docs/quantization.md 1 stream ~18.5, 2 ~21, 4 ~25 GB/s per core)
struct read_arg { const uint64_t * p; size_t n; int streams; uint64_t sum; };

static void read_scalar(struct read_arg * a) {
    const size_t q = a->n/(size_t) a->streams;
    uint64_t s[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < q; i++) {
        for (int j = 0; j < a->streams; j++) {
            s[j & 3] += a->p[(size_t) j*q + i];
        }
    }
    a->sum = s[0] ^ s[1] ^ s[2] ^ s[3];
}

#if QB_X86
// 32-byte loads, one stream or four, no software prefetch (it made one stream slower here)
__attribute__((target("avx2"))) static void read_avx2(struct read_arg * a) {
    const __m256i * p = (const __m256i *)(const void *) a->p;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    if (a->streams == 4) {
        const size_t q = a->n/16;
        for (size_t i = 0; i < q; i++) {
            s0 = _mm256_add_epi64(s0, _mm256_loadu_si256(p + i));
            s1 = _mm256_add_epi64(s1, _mm256_loadu_si256(p + q + i));
            s2 = _mm256_add_epi64(s2, _mm256_loadu_si256(p + 2*q + i));
            s3 = _mm256_add_epi64(s3, _mm256_loadu_si256(p + 3*q + i));
        }
    } else {
        const size_t n = a->n/4;
        for (size_t i = 0; i + 4 <= n; i += 4) {
            s0 = _mm256_add_epi64(s0, _mm256_loadu_si256(p + i));
            s1 = _mm256_add_epi64(s1, _mm256_loadu_si256(p + i + 1));
            s2 = _mm256_add_epi64(s2, _mm256_loadu_si256(p + i + 2));
            s3 = _mm256_add_epi64(s3, _mm256_loadu_si256(p + i + 3));
        }
    }
    const __m256i t = _mm256_xor_si256(_mm256_xor_si256(s0, s1), _mm256_xor_si256(s2, s3));
    a->sum = (uint64_t) _mm256_extract_epi64(t, 0) ^ (uint64_t) _mm256_extract_epi64(t, 3);
}
#endif

static void read_any(struct read_arg * a) {
#if QB_X86
    if (ggml_cpu_has_avx2()) {
        read_avx2(a);
        return;
    }
#endif
    read_scalar(a);
}

// the last-level (L3) cache of CPU 0 in bytes, from sysfs; 32 MiB where it cannot be read
static size_t l3_bytes(void) {
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE * f = fopen(path, "r");
        if (f == NULL) {
            break;
        }
        int level = 0;
        const bool ok = fscanf(f, "%d", &level) == 1;
        fclose(f);
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!ok || level != 3 || f == NULL) {
            if (f != NULL) {
                fclose(f);
            }
            continue;
        }
        unsigned long v = 0;
        char unit = 0;
        if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
            const size_t bytes = (size_t) v*(unit == 'K' ? 1024u : unit == 'M' ? 1024u*1024u : 1u);
            best = bytes > best ? bytes : best;
        }
        fclose(f);
    }
    return best > 0 ? best : (size_t) 32 << 20;
}

static bool g_pin = false; // pin the threads (when the machine has at least n_threads CPUs)

// thread ith of nth on the CPU the compute threads use (see the header)
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

// the reference: nth threads started once, released together by a barrier for each timed pass
enum ref_op { REF_READ, REF_READ1, REF_COPY, REF_STOP }; // read: 4 streams per thread; read1: one

struct ref_pool {
    int               nth;
    uint8_t         * src, * dst;
    size_t            bytes;  // of src (and dst)
    enum ref_op       op;
    uint64_t          sums[16];
    pthread_t         th[16];
    pthread_barrier_t start, done;
};

struct ref_thread { struct ref_pool * p; int ith; };
static struct ref_thread g_ref_threads[16];

static void ref_pass(struct ref_pool * p, int ith) {
    const size_t per = (p->bytes/(size_t) p->nth) & ~(size_t) 4095;
    const size_t off = (size_t) ith*per;
    if (p->op == REF_READ || p->op == REF_READ1) {
        struct read_arg a = { (const uint64_t *)(const void *) (p->src + off), per/8, p->op == REF_READ ? 4 : 1, 0 };
        read_any(&a);
        p->sums[ith] = a.sum;
    } else {
        memcpy(p->dst + off, p->src + off, per);
    }
}

static void * ref_worker(void * vp) {
    struct ref_thread * t = vp;
    pin_thread(t->ith, t->p->nth);
    for (;;) {
        pthread_barrier_wait(&t->p->start);
        if (t->p->op == REF_STOP) {
            return NULL;
        }
        ref_pass(t->p, t->ith);
        pthread_barrier_wait(&t->p->done);
    }
}

static bool ref_init(struct ref_pool * p, int nth, size_t bytes) {
    memset(p, 0, sizeof(*p));
    p->nth = nth;
    p->bytes = bytes;
    p->src = bench_alloc_big(bytes);
    p->dst = bench_alloc_big(bytes);
    if (p->src == NULL || p->dst == NULL) {
        free(p->src);
        free(p->dst);
        return false;
    }
    for (size_t i = 0; i < bytes; i++) {
        p->src[i] = (uint8_t) (i*131u >> 3);
    }
    memset(p->dst, 1, bytes);
    pthread_barrier_init(&p->start, NULL, (unsigned) nth);
    pthread_barrier_init(&p->done, NULL, (unsigned) nth);
    for (int i = 1; i < nth; i++) {
        g_ref_threads[i] = (struct ref_thread) { p, i };
        pthread_create(&p->th[i], NULL, ref_worker, &g_ref_threads[i]);
    }
    return true;
}

static void ref_free(struct ref_pool * p) {
    p->op = REF_STOP;
    pthread_barrier_wait(&p->start);
    for (int i = 1; i < p->nth; i++) {
        pthread_join(p->th[i], NULL);
    }
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->done);
    free(p->src);
    free(p->dst);
}

// seconds of one pass of op over the reference buffer by all threads (the caller is thread 0)
static double ref_time(struct ref_pool * p, enum ref_op op) {
    p->op = op;
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

// bytes one pass of the reference reads (the threads' equal shares)
static size_t ref_bytes(const struct ref_pool * p) {
    return ((p->bytes/(size_t) p->nth) & ~(size_t) 4095)*(size_t) p->nth;
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

#define MM_MAX_COPIES 16

struct mm_case {
    struct ggml_context    * ctx;
    struct ggml_cgraph     * gf[MM_MAX_COPIES];
    struct ggml_threadpool * tp;
    struct ggml_cplan        plan[MM_MAX_COPIES];
    void                   * work;
    int                      ncopies;
    int                      next;    // the copy the next run reads
    size_t                   wbytes;  // of one copy
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

// ncopies MUL_MATs of [K, N] weights of type t (equal copies) by one [K, M] F32 activation,
// ready to compute; the threads pinned as the header says when g_pin
static bool mm_init(struct mm_case * c, enum ggml_type t, int64_t K, int64_t N, int64_t M, int nth, int ncopies) {
    memset(c, 0, sizeof(*c));
    const size_t rs = ggml_row_size(t, K);
    c->wbytes = rs*(size_t) N;
    c->ncopies = ncopies;
    struct ggml_init_params ip = { (size_t) ncopies*(c->wbytes + (size_t) (N*M)*sizeof(float) + ggml_graph_overhead() +
                                   4*ggml_tensor_overhead() + 256) + (size_t) (K*M)*sizeof(float) + 4*ggml_tensor_overhead() +
                                   4096, NULL, false };
    c->ctx = ggml_init(ip);
    if (c->ctx == NULL) {
        return false;
    }
    struct ggml_tensor * a[MM_MAX_COPIES];
    for (int i = 0; i < ncopies; i++) {
        a[i] = ggml_new_tensor_2d(c->ctx, t, K, N);
    }
    struct ggml_tensor * b = ggml_new_tensor_2d(c->ctx, GGML_TYPE_F32, K, M);
    // weights: a few rows quantized from ramps, repeated; the content does not change the time
    float * row = malloc((size_t) K*sizeof(float));
    if (row == NULL) {
        return false;
    }
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    const int64_t nuniq = N < 8 ? N : 8;
    bool random = false;
    const int doff = random_fill_d_offset(t, &random);
    for (int64_t n = 0; n < nuniq && random; n++) {
        fill_random_blocks(t, (uint8_t *) a[0]->data + (size_t) n*rs, rs, doff);
    }
    for (int64_t n = 0; n < nuniq && !random; n++) {
        for (int64_t k = 0; k < K; k++) {
            row[k] = (float) ((k*37 + n*11) % 101 - 50)/50.0f;
        }
        if (tr->from_float_ref != NULL) {
            tr->from_float_ref(row, (char *) a[0]->data + (size_t) n*rs, K);
        } else {
            memset((char *) a[0]->data + (size_t) n*rs, 0x11, rs); // dequantize-only types: a finite pattern
        }
    }
    for (int64_t n = nuniq; n < N; n++) {
        memcpy((char *) a[0]->data + (size_t) n*rs, (const char *) a[0]->data + (size_t) (n % nuniq)*rs, rs);
    }
    for (int i = 1; i < ncopies; i++) {
        memcpy(a[i]->data, a[0]->data, c->wbytes);
    }
    for (int64_t i = 0; i < K*M; i++) {
        ((float *) b->data)[i] = row[i % K]*(1.0f + 0.001f*(float) (i/K));
    }
    free(row);
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    if (g_pin) {
        for (int i = 0; i < nth; i++) {
            tpp.cpumask[i] = true;
        }
        tpp.strict_cpu = true;
    }
    c->tp = ggml_threadpool_new(&tpp);
    if (c->tp == NULL) {
        return false;
    }
    size_t work = 0;
    for (int i = 0; i < ncopies; i++) {
        c->gf[i] = ggml_new_graph(c->ctx);
        ggml_build_forward_expand(c->gf[i], ggml_mul_mat(c->ctx, a[i], b));
        c->plan[i] = ggml_graph_plan(c->gf[i], nth, c->tp);
        work = c->plan[i].work_size > work ? c->plan[i].work_size : work;
    }
    c->work = work ? malloc(work) : NULL;
    for (int i = 0; i < ncopies; i++) {
        c->plan[i].work_data = c->work;
    }
    return work == 0 || c->work != NULL;
}

// one product, on the next copy of the weights
static double mm_once(struct mm_case * c) {
    const int i = c->next;
    c->next = (c->next + 1) % c->ncopies;
    const double t0 = now_s();
    if (ggml_graph_compute(c->gf[i], &c->plan[i]) != GGML_STATUS_SUCCESS) {
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
        GGML_TYPE_TQ2_0, GGML_TYPE_TQ1_0, GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS,
        GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M, GGML_TYPE_NVFP4, GGML_TYPE_Q1_0, GGML_TYPE_Q2_0, GGML_TYPE_F16,
    };
    const int64_t K = 4096, N = 14336, PM = 512;
#if defined(__linux__)
    g_pin = sysconf(_SC_NPROCESSORS_ONLN) >= nth;
#endif
    pin_thread(0, nth);
    const size_t l3 = l3_bytes();
    struct ref_pool ref;
    if (!ref_init(&ref, nth, 4*l3)) {
        fprintf(stderr, "quant-matmul: cannot allocate the %zu MiB reference buffers\n", 2*4*l3 >> 20);
        return 1;
    }
    const double peak = int8_peak(nth);
    printf("quant-matmul: %d threads%s, %s clock; decode M=1 K=%lld N=%lld (weights in copies of >= 4x the L3 of %zu MiB); "
           "prompt M=%lld K=%lld N=%lld; medians of %d; int8 dot peak %.1f GOP/s\n", nth, g_pin ? " pinned" : "",
           g_clock == CLOCK_MONOTONIC ? "wall" : "process CPU", (long long) K, (long long) N, l3 >> 20, (long long) PM,
           (long long) K, (long long) pn, N_RUNS, peak);
    printf("| type | decode GB/s | read GB/s | 1-stream read GB/s | copy GB/s | fraction | prompt GFLOP/s | of int8 peak |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof(types)/sizeof(types[0]); i++) {
        const char * name = ggml_type_name(types[i]);
        if (!type_selected(list, name)) {
            continue;
        }
        struct mm_case c;
        double gbd = -1.0, gbr = -1.0, gbr1 = -1.0, gbc = -1.0;
        const size_t wb = ggml_row_size(types[i], K)*(size_t) N;
        int nc = (int) ((4*l3 + wb - 1)/wb);
        nc = nc < 2 ? 2 : nc > MM_MAX_COPIES ? MM_MAX_COPIES : nc;
        if (mm_init(&c, types[i], K, N, 1, nth, nc)) {
            // decode, plain read and copy alternately, so that all see the same load
            double tr[N_RUNS], tr1[N_RUNS], tc[N_RUNS], tds[N_RUNS];
            bool ok = mm_once(&c) >= 0;
            ref_time(&ref, REF_READ);
            for (int r = 0; r < N_RUNS && ok; r++) {
                tds[r] = mm_once(&c);
                tr[r] = ref_time(&ref, REF_READ);
                tr1[r] = ref_time(&ref, REF_READ1);
                tc[r] = ref_time(&ref, REF_COPY);
                ok = tds[r] >= 0;
            }
            const double td = ok ? median(tds, N_RUNS) : -1.0;
            gbd = td > 0 ? (double) c.wbytes/td*1e-9 : -1.0;
            gbr = (double) ref_bytes(&ref)/median(tr, N_RUNS)*1e-9;
            gbr1 = (double) ref_bytes(&ref)/median(tr1, N_RUNS)*1e-9;
            gbc = 2.0*(double) ref_bytes(&ref)/median(tc, N_RUNS)*1e-9;
        }
        mm_free(&c);
        // the prompt: probe at N = 256 first; slow kernels stay there
        int64_t n_used = 256;
        double tp = -1.0;
        if (pn > 0 && mm_init(&c, types[i], K, 256, PM, nth, 1)) {
            const double probe = mm_once(&c);
            if (probe >= 0 && probe*(double) pn/256.0 > 4.0) {
                tp = mm_time(&c);
            } else if (probe >= 0) {
                mm_free(&c);
                n_used = pn;
                tp = mm_init(&c, types[i], K, pn, PM, nth, 1) ? mm_time(&c) : -1.0;
            }
        }
        mm_free(&c);
        const double gf = tp > 0 ? 2.0*(double) PM*(double) n_used*(double) K/tp*1e-9 : -1.0;
        if (pn == 0) {
            printf("| %s | %.1f | %.1f | %.1f | %.1f | %.2f | - | - |\n", name, gbd, gbr, gbr1, gbc, gbd/gbr);
        } else {
            printf("| %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f%s | %.2f |\n", name, gbd, gbr, gbr1, gbc, gbd/gbr, gf,
                   n_used != pn ? "*" : "", peak > 0 ? gf/peak : 0.0);
        }
        fflush(stdout);
    }
    ref_free(&ref);
    return 0;
}
