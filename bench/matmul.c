// bench/matmul: the CPU backend's matrix product beside OpenBLAS, measured in the same run.
//
//   matmul [quick]        (quick: sizes up to 1024 and the 4096 x 4096 matrix-vector case only)
//
// Cases: F32 square products n = 256 .. 4096 (peer: cblas_sgemm), F16 weights x F32 activations
// (peer: cblas_sgemm on F32 data of the same shape), and the matrix-vector products (M = 1,
// K = 4096, N = 14336 and N = 4096) with F32/F16/BF16 weights (peer: cblas_sgemv, F32 weights),
// each with 1 and 2 threads. Ours runs through the public API (a graph with one MUL_MAT node,
// ggml_graph_plan + ggml_graph_compute on a thread pool of n threads), so the figure includes
// the framework.
//
// Method (shared/ANCHORS.md): every block of runs happens in a fresh child process (this program
// re-executed with OPENBLAS_NUM_THREADS set, so that the two libraries' thread pools never share
// a process), the contenders' blocks alternate, the order reversing every round (N_ROUNDS blocks
// each), each block starts with a warm-up call, and the figure is the median over all timed
// calls. For GEMV a third contender, a plain multi-stream read of as many bytes as our weights,
// gives the memory bandwidth the kernel competes with. GEMM: GFLOP/s = 2*M*N*K / time.
// GEMV: GB/s of weights = bytes of the weight matrix / time.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"
#include "bench-timing.h"

#include <cblas.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_ROUNDS 5 // blocks per library and case
#define MAX_RUNS 64

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static float frand(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 11) * (1.0/9007199254740992.0)) * 2.0f - 1.0f;
}

static void fill_f32(float * x, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        x[i] = frand();
    }
}

// memory read bandwidth: nth threads each sum their part of a large array (the ceiling of a GEMV)
struct read_part {
    const float * x;
    int64_t       n;
    float         sum;
};

static void * read_part_main(void * arg) {
    // integer XOR of 8-byte words over 8 streams at once (as the matrix-vector kernels read
    // several rows at a time): cheaper than any dot product, so the loop waits on memory only
    struct read_part * p = arg;
    const uint64_t * w   = (const uint64_t *)(const void *) p->x;
    const int64_t    len = p->n/2/8 & ~(int64_t) 7; // words per stream
    uint64_t acc[8] = {0};
    for (int64_t i = 0; i < len; i += 8) {
        for (int s = 0; s < 8; s++) {
            const uint64_t * q = w + s*len + i;
            acc[s] ^= q[0] ^ q[1] ^ q[2] ^ q[3] ^ q[4] ^ q[5] ^ q[6] ^ q[7];
        }
    }
    uint64_t r = 0;
    for (int j = 0; j < 8; j++) {
        r ^= acc[j];
    }
    p->sum = (float)(r & 0xff);
    return NULL;
}

static double read_once(const float * x, int64_t n, int nth) {
    pthread_t        th[8];
    struct read_part part[8];
    nth = nth > 8 ? 8 : nth;
    const double t0 = now_s();
    for (int i = 0; i < nth; i++) {
        part[i].x   = x + n/nth*i;
        part[i].n   = n/nth;
        part[i].sum = 0.0f;
        if (i > 0 && pthread_create(&th[i], NULL, read_part_main, &part[i]) != 0) {
            return NAN;
        }
    }
    read_part_main(&part[0]);
    for (int i = 1; i < nth; i++) {
        pthread_join(th[i], NULL);
    }
    const double t = now_s() - t0;
    if (part[0].sum == 12345.0f) { // keeps the sums alive
        fprintf(stderr, " ");
    }
    return t;
}

// one timed block in this (child) process: prints the seconds of each call on one line
static int child_main(const char * lib, const char * type_name, int64_t M, int64_t N, int64_t K, int nth, int reps) {
    enum ggml_type type = GGML_TYPE_F32;
    if (strcmp(type_name, "f16") == 0) {
        type = GGML_TYPE_F16;
    } else if (strcmp(type_name, "bf16") == 0) {
        type = GGML_TYPE_BF16;
    }
    double t[MAX_RUNS];
    reps = reps < 1 ? 1 : (reps > MAX_RUNS ? MAX_RUNS : reps);

    if (strcmp(lib, "read") == 0) {
        float * X = malloc((size_t)(N*K)*sizeof(float));
        if (!X) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        fill_f32(X, N*K);
        for (int r = -1; r < reps; r++) {
            const double tr = read_once(X, N*K, nth);
            if (r >= 0) {
                t[r] = tr;
            }
        }
        free(X);
    } else if (strcmp(lib, "openblas") == 0) {
        openblas_set_num_threads(nth);
        float * A = malloc((size_t)(N*K)*sizeof(float)); // [N][K]
        float * B = malloc((size_t)(M*K)*sizeof(float)); // [M][K]
        float * C = malloc((size_t)(M*N)*sizeof(float)); // [M][N]
        if (!A || !B || !C) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        fill_f32(A, N*K);
        fill_f32(B, M*K);
        for (int r = -1; r < reps; r++) {
            const double t0 = now_s();
            if (M == 1) {
                cblas_sgemv(CblasRowMajor, CblasNoTrans, (int) N, (int) K, 1.0f, A, (int) K, B, 1, 0.0f, C, 1);
            } else {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) M, (int) N, (int) K, 1.0f, B, (int) K, A, (int) K, 0.0f, C, (int) N);
            }
            if (r >= 0) {
                t[r] = now_s() - t0;
            }
        }
        free(A); free(B); free(C);
    } else {
        const size_t bytes = ggml_row_size(type, K)*(size_t) N + (size_t)(M*K + M*N)*sizeof(float) + 16*1024*1024;
        struct ggml_init_params ip = { bytes, NULL, false };
        struct ggml_context * ctx = ggml_init(ip);
        if (ctx == NULL) {
            fprintf(stderr, "ggml_init failed\n");
            return 1;
        }
        struct ggml_tensor * a = ggml_new_tensor_2d(ctx, type, K, N);
        struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, M);
        float * tmp = malloc((size_t) K*sizeof(float));
        if (!a || !b || !tmp) {
            fprintf(stderr, "allocation failed\n");
            return 1;
        }
        for (int64_t i = 0; i < N; i++) {
            fill_f32(tmp, K);
            char * row = (char *) a->data + i*a->nb[1];
            if (type == GGML_TYPE_F16) {
                ggml_fp32_to_fp16_row(tmp, (ggml_fp16_t *)(void *) row, K);
            } else if (type == GGML_TYPE_BF16) {
                ggml_fp32_to_bf16_row(tmp, (ggml_bf16_t *)(void *) row, K);
            } else {
                memcpy(row, tmp, (size_t) K*sizeof(float));
            }
        }
        fill_f32((float *) b->data, M*K);
        struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, c);
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
        struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
        struct ggml_cplan plan = ggml_graph_plan(gf, nth, tp);
        uint8_t * work = plan.work_size ? malloc(plan.work_size) : NULL;
        plan.work_data = work;
        for (int r = -1; r < reps; r++) {
            const double t0 = now_s();
            const enum ggml_status st = ggml_graph_compute(gf, &plan);
            if (st != GGML_STATUS_SUCCESS) {
                fprintf(stderr, "ggml_graph_compute failed: %d\n", (int) st);
                return 1;
            }
            if (r >= 0) {
                t[r] = now_s() - t0;
            }
        }
        // spot check of a few results against a double-precision dot product
        double worst = 0.0;
        for (int s = 0; s < 16; s++) {
            const int64_t m = (int64_t)(rng_state % (uint64_t) M), n = (int64_t)((rng_state >> 20) % (uint64_t) N);
            frand();
            double ref = 0.0, mag = 0.0;
            for (int64_t k = 0; k < K; k++) {
                const double av = ggml_get_f32_nd(a, (int) k, (int) n, 0, 0);
                const double bv = ((const float *) b->data)[m*K + k];
                ref += av*bv;
                mag += fabs(av*bv);
            }
            const double got = ((const float *) c->data)[m*N + n];
            const double e = fabs(got - ref)/(mag > 0 ? mag : 1.0);
            worst = e > worst ? e : worst;
        }
        if (worst > 1e-5) {
            fprintf(stderr, "ours: wrong result (relative error %.3g)\n", worst);
            return 1;
        }
        free(work);
        ggml_threadpool_free(tp);
        ggml_free(ctx);
        free(tmp);
    }
    for (int r = 0; r < reps; r++) {
        printf("%.9f ", t[r]);
    }
    printf("\n");
    return 0;
}

// runs one block in a child; appends its times to times[*n]
static int run_block(const char * self, const char * lib, const char * type, int64_t M, int64_t N, int64_t K,
                     int nth, int reps, double * times, int * n) {
    int fd[2];
    if (pipe(fd) != 0) {
        return -1;
    }
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDOUT_FILENO);
        char sM[32], sN[32], sK[32], sT[16], sR[16];
        snprintf(sM, sizeof(sM), "%lld", (long long) M);
        snprintf(sN, sizeof(sN), "%lld", (long long) N);
        snprintf(sK, sizeof(sK), "%lld", (long long) K);
        snprintf(sT, sizeof(sT), "%d", nth);
        snprintf(sR, sizeof(sR), "%d", reps);
        setenv("OPENBLAS_NUM_THREADS", sT, 1);
        char * const argv[] = { (char *) self, (char *) "--child", (char *) lib, (char *) type, sM, sN, sK, sT, sR, NULL };
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    FILE * f = fdopen(fd[0], "r");
    double v;
    while (f && fscanf(f, "%lf", &v) == 1) {
        if (*n < MAX_RUNS*N_ROUNDS) {
            times[(*n)++] = v;
        }
    }
    if (f) {
        fclose(f);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

struct bench_case {
    const char * label;
    const char * type;  // weights of ours: f32, f16, bf16 (OpenBLAS always F32)
    int64_t M, N, K;
};

// median seconds of ours, of OpenBLAS and (when t_read is not NULL) of a plain read of as many
// bytes as our weights, for one case and thread count
static void measure(const char * self, const struct bench_case * c, int nth, double * t_ours, double * t_blas, double * t_read) {
    const bool gemv = c->M == 1;
    const double work = gemv ? (double)(c->N*c->K)*4.0/20e9 : 2.0*(double) c->M*(double) c->N*(double) c->K/(nth*90e9);
    int reps = (int) ceil(0.25/work);
    reps = reps < 2 ? 2 : (reps > MAX_RUNS ? MAX_RUNS : reps);
    static double to[MAX_RUNS*N_ROUNDS], tb[MAX_RUNS*N_ROUNDS], tr[MAX_RUNS*N_ROUNDS];
    int no = 0, nb = 0, nr = 0;
    const int n_libs = t_read ? 3 : 2;
    // the contenders take turns and the order reverses every round, so that a drifting
    // background load hurts all of them alike
    for (int r = 0; r < N_ROUNDS; r++) {
        for (int j = 0; j < n_libs; j++) {
            const int lib = (r % 2 == 0) ? j : n_libs - 1 - j;
            int rc = 0;
            if (lib == 0) {
                rc = run_block(self, "ours", c->type, c->M, c->N, c->K, nth, reps, to, &no);
            } else if (lib == 1) {
                rc = run_block(self, "openblas", "f32", c->M, c->N, c->K, nth, reps, tb, &nb);
            } else {
                const int64_t k_read = strcmp(c->type, "f32") == 0 ? c->K : c->K/2; // as many bytes as our weights
                rc = run_block(self, "read", "f32", 1, c->N, k_read, nth, reps, tr, &nr);
            }
            if (rc != 0) {
                fprintf(stderr, "matmul: a block of %s failed (%s)\n", lib == 0 ? "ours" : lib == 1 ? "OpenBLAS" : "read", c->label);
            }
        }
    }
    *t_ours = median(to, no);
    *t_blas = median(tb, nb);
    if (t_read) {
        *t_read = median(tr, nr);
    }
}

int main(int argc, char ** argv) {
    if (argc == 9 && strcmp(argv[1], "--child") == 0) {
        return child_main(argv[2], argv[3], atoll(argv[4]), atoll(argv[5]), atoll(argv[6]), atoi(argv[7]), atoi(argv[8]));
    }
    const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;

    static const struct bench_case gemm[] = {
        { "F32 256",          "f32",  256,  256,  256  },
        { "F32 512",          "f32",  512,  512,  512  },
        { "F32 1024",         "f32",  1024, 1024, 1024 },
        { "F32 2048",         "f32",  2048, 2048, 2048 },
        { "F32 4096",         "f32",  4096, 4096, 4096 },
        { "F16w x F32 1024",  "f16",  1024, 1024, 1024 },
        { "F16w x F32 2048",  "f16",  2048, 2048, 2048 },
        { "F16w x F32 4096",  "f16",  4096, 4096, 4096 },
        { "BF16w x F32 2048", "bf16", 2048, 2048, 2048 },
    };
    static const struct bench_case gemv[] = {
        { "F32 4096x14336",  "f32",  1, 14336, 4096 },
        { "F16 4096x14336",  "f16",  1, 14336, 4096 },
        { "BF16 4096x14336", "bf16", 1, 14336, 4096 },
        { "F32 4096x4096",   "f32",  1, 4096,  4096 },
        { "F16 4096x4096",   "f16",  1, 4096,  4096 },
        { "BF16 4096x4096",  "bf16", 1, 4096,  4096 },
    };

    // openblas_get_config() starts with the library's name ("OpenBLAS 0.3.21 ...")
    printf("bench/matmul: ours = ggml_graph_compute (MUL_MAT node, thread pool of n threads); peer = %s\n",
           openblas_get_config());
    printf("medians over %d alternating blocks per contender, each in its own process after a warm-up call\n\n", N_ROUNDS);

    printf("GEMM (M = N = K; F16w/BF16w: ours with F16/BF16 weights, OpenBLAS sgemm on F32)\n");
    printf("%-18s %3s %14s %18s %7s\n", "case", "thr", "ours GFLOP/s", "OpenBLAS GFLOP/s", "ratio");
    for (size_t i = 0; i < sizeof(gemm)/sizeof(gemm[0]); i++) {
        if (quick && gemm[i].M > 1024) {
            continue;
        }
        for (int nth = 1; nth <= 2; nth++) {
            double to, tb;
            measure(argv[0], &gemm[i], nth, &to, &tb, NULL);
            const double flop = 2.0*(double) gemm[i].M*(double) gemm[i].N*(double) gemm[i].K;
            printf("%-18s %3d %14.1f %18.1f %7.2f\n", gemm[i].label, nth, flop/to*1e-9, flop/tb*1e-9, tb/to);
            fflush(stdout);
        }
    }

    printf("\nGEMV (M = 1; GB/s of weights read; OpenBLAS sgemv reads F32 weights; ratio = ours/OpenBLAS in GB/s;\n"
           "read = threads reading as many bytes as our weights, 8 streams each, measured in turn with the others)\n");
    printf("%-18s %3s %14s %18s %7s %10s %10s %12s\n", "case", "thr", "ours GB/s", "OpenBLAS GB/s", "ratio", "read GB/s", "ours/read", "ours GFLOP/s");
    for (size_t i = 0; i < sizeof(gemv)/sizeof(gemv[0]); i++) {
        if (quick && gemv[i].N > 4096) {
            continue;
        }
        for (int nth = 1; nth <= 2; nth++) {
            double to, tb, trd;
            measure(argv[0], &gemv[i], nth, &to, &tb, &trd);
            const double es = strcmp(gemv[i].type, "f32") == 0 ? 4.0 : 2.0;
            const double w_ours = (double) gemv[i].N*(double) gemv[i].K*es;
            const double w_blas = (double) gemv[i].N*(double) gemv[i].K*4.0;
            const double flop = 2.0*(double) gemv[i].N*(double) gemv[i].K;
            printf("%-18s %3d %14.1f %18.1f %7.2f %10.1f %10.2f %12.1f\n", gemv[i].label, nth, w_ours/to*1e-9, w_blas/tb*1e-9,
                   (w_ours/to)/(w_blas/tb), w_ours/trd*1e-9, trd/to, flop/to*1e-9);
            fflush(stdout);
        }
    }
    return 0;
}
