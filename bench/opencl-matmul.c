// bench/opencl-matmul: the OpenCL backend's MUL_MAT beside CLBlast (a tuned OpenCL BLAS) on the
// same OpenCL device with the same data, and beside our CPU backend.
//
//   opencl-matmul [quick]       (quick: one block per library, sizes up to 1024, no GEMV)
//
// Cases: F32 square products n = 256, 512, 1024, 2048; F16 weights x F32 activations (ours reads
// the F16 weights with vload_half, no cl_khr_fp16 needed; CLBlast runs sgemm on the same values
// in F32, having no mixed-type GEMM); the matrix-vector product M = 1, K = 4096, N = 14336 (F32
// and F16 weights; CLBlast: sgemv).
//
// Ours goes through the public API only: device "OpenCL0", tensors allocated in its buffer type, a
// graph with one MUL_MAT node, ggml_backend_graph_compute + ggml_backend_synchronize. The CPU
// backend runs the same graph with as many threads as the machine has cores. CLBlast is called on
// its own context and queue on the device of the same name, in two forms: "NT" computes exactly
// our product from the same buffers (C = B * A^T, both operands row-major along k), "NN" is given
// A already transposed (its preferred layout, one transposition less inside CLBlast); the ratio
// is taken against the faster of the two.
//
// Method (shared/ANCHORS.md): each block of timed calls runs in a fresh process (this program
// re-executed), so no two thread pools or OpenCL runtimes share a process; blocks alternate
// ours / CLBlast NT / CLBlast NN / CPU, the order reversed every round; each block starts with a
// warm-up call (kernel compilation happens there) and checks 16 results against a
// double-precision dot product; the figure is the median of all timed calls.
// GFLOP/s = 2*M*N*K / time.

#define _POSIX_C_SOURCE 200809L

#ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 120
#endif
#include <clblast_c.h>

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "bench-timing.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_ROUNDS 3  // blocks per library and case
#define MAX_RUNS 32

//
// data: the same in every process (a fixed-seed generator)
//

struct problem {
    int64_t M, N, K;
    bool f16;       // ours gets F16 weights; the others their F32 values
    float * A;      // [N][K] weights (F16-rounded when f16)
    float * B;      // [M][K]
};

static uint64_t g_rng;

static float frand(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (float) ((double) (g_rng >> 11) * (1.0/9007199254740992.0)) * 2.0f - 1.0f;
}

static bool problem_init(struct problem * p, int64_t M, int64_t N, int64_t K, bool f16) {
    p->M = M;
    p->N = N;
    p->K = K;
    p->f16 = f16;
    p->A = malloc((size_t) (N*K) * sizeof(float));
    p->B = malloc((size_t) (M*K) * sizeof(float));
    if (p->A == NULL || p->B == NULL) {
        fprintf(stderr, "opencl-matmul: out of memory\n");
        return false;
    }
    g_rng = 0x9E3779B97F4A7C15ull;
    for (int64_t i = 0; i < N*K; i++) {
        p->A[i] = frand();
        if (f16) {
            p->A[i] = ggml_fp16_to_fp32(ggml_fp32_to_fp16(p->A[i]));
        }
    }
    for (int64_t i = 0; i < M*K; i++) {
        p->B[i] = frand();
    }
    return true;
}

static void problem_free(struct problem * p) {
    free(p->A);
    free(p->B);
}

// worst relative error of 16 entries of C [M][N] against double-precision dot products
static double spot_check(const struct problem * p, const float * C) {
    double worst = 0.0;
    for (int s = 0; s < 16; s++) {
        const int64_t m = (s * 7919) % p->M;
        const int64_t n = (s * 104729 + 13) % p->N;
        double ref = 0.0, mag = 0.0;
        for (int64_t k = 0; k < p->K; k++) {
            const double x = (double) p->A[n*p->K + k] * (double) p->B[m*p->K + k];
            ref += x;
            mag += fabs(x);
        }
        const double e = fabs((double) C[m*p->N + n] - ref) / (mag > 0.0 ? mag : 1.0);
        worst = e > worst ? e : worst;
    }
    return worst;
}

//
// children: one block of timed calls each; print the seconds of each call on one line
//

static int print_times(const double * t, int reps, double err, const char * who) {
    if (!(err <= 1e-5)) {
        fprintf(stderr, "opencl-matmul: %s: wrong result (relative error %.3g)\n", who, err);
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        printf("%.9f ", t[r]);
    }
    printf("\n");
    return 0;
}

// ours (OpenCL0) or the CPU backend: a one-node graph on the backend's own buffers
static int child_ggml(const char * lib, const struct problem * p, int reps) {
    ggml_backend_t backend = NULL;
    if (strcmp(lib, "ours") == 0) {
        ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
        backend = dev != NULL ? ggml_backend_dev_init(dev, NULL) : NULL;
    } else {
        backend = ggml_backend_cpu_init();
        if (backend != NULL) {
            ggml_backend_cpu_set_n_threads(backend, (int) sysconf(_SC_NPROCESSORS_ONLN));
        }
    }
    if (backend == NULL) {
        fprintf(stderr, "opencl-matmul: %s: no backend\n", lib);
        return 1;
    }
    struct ggml_init_params ip = { 8*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    const enum ggml_type ta = p->f16 ? GGML_TYPE_F16 : GGML_TYPE_F32;
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, ta, p->K, p->N);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, p->K, p->M);
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    float * C = malloc((size_t) (p->M*p->N) * sizeof(float));
    ggml_fp16_t * A16 = p->f16 ? malloc((size_t) (p->N*p->K) * sizeof(ggml_fp16_t)) : NULL;
    if (buf == NULL || C == NULL || (p->f16 && A16 == NULL)) {
        fprintf(stderr, "opencl-matmul: %s: allocation failed\n", lib);
        return 1;
    }
    if (p->f16) {
        ggml_fp32_to_fp16_row(p->A, A16, p->N*p->K);
        ggml_backend_tensor_set(a, A16, 0, ggml_nbytes(a));
    } else {
        ggml_backend_tensor_set(a, p->A, 0, ggml_nbytes(a));
    }
    ggml_backend_tensor_set(b, p->B, 0, ggml_nbytes(b));
    double t[MAX_RUNS];
    for (int r = -1; r < reps; r++) {
        const double t0 = now_s();
        const enum ggml_status st = ggml_backend_graph_compute(backend, gf);
        ggml_backend_synchronize(backend);
        if (st != GGML_STATUS_SUCCESS) {
            fprintf(stderr, "opencl-matmul: %s: graph compute failed (%d)\n", lib, (int) st);
            return 1;
        }
        if (r >= 0) {
            t[r] = now_s() - t0;
        }
    }
    ggml_backend_tensor_get(c, C, 0, ggml_nbytes(c));
    const int ret = print_times(t, reps, spot_check(p, C), lib);
    free(A16);
    free(C);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(backend);
    return ret;
}

// the OpenCL device called `name` (the first device when none is)
static cl_device_id find_device(const char * name) {
    cl_platform_id plats[16];
    cl_uint np = 0;
    cl_device_id first = NULL;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) {
        return NULL;
    }
    for (cl_uint i = 0; i < np && i < 16; i++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) {
            continue;
        }
        for (cl_uint j = 0; j < nd && j < 16; j++) {
            char dn[256] = "";
            clGetDeviceInfo(devs[j], CL_DEVICE_NAME, sizeof(dn) - 1, dn, NULL);
            if (first == NULL) {
                first = devs[j];
            }
            if (strcmp(dn, name) == 0) {
                return devs[j];
            }
        }
    }
    return first;
}

static int child_clblast(const char * form, const char * dev_name, const struct problem * p, int reps) {
    const bool nn = strcmp(form, "clblast-nn") == 0;
    cl_device_id dev = find_device(dev_name);
    cl_int err = CL_SUCCESS;
    cl_context ctx = dev != NULL ? clCreateContext(NULL, 1, &dev, NULL, NULL, &err) : NULL;
    cl_command_queue q = ctx != NULL ? clCreateCommandQueue(ctx, dev, 0, &err) : NULL;
    if (q == NULL) {
        fprintf(stderr, "opencl-matmul: %s: no OpenCL device/queue (%d)\n", form, (int) err);
        return 1;
    }
    const int64_t M = p->M, N = p->N, K = p->K;
    float * A = p->A;
    float * At = NULL;
    if (nn) { // A^T [K][N]
        At = malloc((size_t) (N*K) * sizeof(float));
        if (At == NULL) {
            return 1;
        }
        for (int64_t n = 0; n < N; n++) {
            for (int64_t k = 0; k < K; k++) {
                At[k*N + n] = p->A[n*K + k];
            }
        }
        A = At;
    }
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t) (N*K) * sizeof(float), A, &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t) (M*K) * sizeof(float), p->B, &err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t) (M*N) * sizeof(float), NULL, &err);
    float * C = malloc((size_t) (M*N) * sizeof(float));
    if (a == NULL || b == NULL || c == NULL || C == NULL) {
        fprintf(stderr, "opencl-matmul: %s: allocation failed\n", form);
        return 1;
    }
    double t[MAX_RUNS];
    for (int r = -1; r < reps; r++) {
        const double t0 = now_s();
        CLBlastStatusCode st;
        if (M == 1) {
            st = CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, (size_t) N, (size_t) K, 1.0f, a, 0, (size_t) K,
                              b, 0, 1, 0.0f, c, 0, 1, &q, NULL);
        } else {
            st = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, nn ? CLBlastTransposeNo : CLBlastTransposeYes,
                              (size_t) M, (size_t) N, (size_t) K, 1.0f, b, 0, (size_t) K, a, 0, nn ? (size_t) N : (size_t) K,
                              0.0f, c, 0, (size_t) N, &q, NULL);
        }
        clFinish(q);
        if (st != CLBlastSuccess) {
            fprintf(stderr, "opencl-matmul: %s: CLBlast status %d\n", form, (int) st);
            return 1;
        }
        if (r >= 0) {
            t[r] = now_s() - t0;
        }
    }
    clEnqueueReadBuffer(q, c, CL_TRUE, 0, (size_t) (M*N) * sizeof(float), C, 0, NULL, NULL);
    const int ret = print_times(t, reps, spot_check(p, C), form);
    free(C);
    free(At);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return ret;
}

// the device behind OpenCL0: its name on one line (nothing when there is none)
static int child_probe(void) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
    if (dev == NULL) {
        return 1;
    }
    printf("%s\n", ggml_backend_dev_description(dev));
    return 0;
}

static int child_main(int argc, char ** argv) {
    // --child probe | --child <lib> <device name> M N K f16 reps
    if (strcmp(argv[2], "probe") == 0) {
        return child_probe();
    }
    if (argc != 9) {
        return 2;
    }
    const char * lib = argv[2];
    struct problem p;
    if (!problem_init(&p, atoll(argv[4]), atoll(argv[5]), atoll(argv[6]), atoi(argv[7]) != 0)) {
        return 1;
    }
    int reps = atoi(argv[8]);
    reps = reps < 1 ? 1 : (reps > MAX_RUNS ? MAX_RUNS : reps);
    const int ret = strncmp(lib, "clblast", 7) == 0 ? child_clblast(lib, argv[3], &p, reps) : child_ggml(lib, &p, reps);
    problem_free(&p);
    return ret;
}

//
// parent: never touches OpenCL itself (a forked OpenCL runtime does not survive), only starts
// children and collects their output
//

// runs a child with args; its stdout into out (NUL-terminated); true when it exited with 0
static bool run_child(char * const args[], char * out, size_t out_size) {
    int fd[2];
    if (pipe(fd) != 0) {
        return false;
    }
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return false;
    }
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDOUT_FILENO);
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < out_size && (r = read(fd[0], out + n, out_size - 1 - n)) > 0) {
        n += (size_t) r;
    }
    out[n] = '\0';
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

struct bench_case {
    const char * label;
    int64_t M, N, K;
    bool f16;
};

enum { LIB_OURS, LIB_NT, LIB_NN, LIB_CPU, LIB_COUNT };
static const char * const lib_names[LIB_COUNT] = { "ours", "clblast-nt", "clblast-nn", "cpu" };

// median seconds per library (NAN when it failed or does not apply)
static void measure(const char * self, const char * dev_name, const struct bench_case * c, int rounds, double med[LIB_COUNT]) {
    static double times[LIB_COUNT][MAX_RUNS*N_ROUNDS];
    int n[LIB_COUNT] = { 0 };
    const double flop = 2.0*(double) c->M*(double) c->N*(double) c->K;
    // about a second per block at the expected speed of each library
    const double expect[LIB_COUNT] = { 60e9, 6e9, 6e9, 60e9 };
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < LIB_COUNT; i++) {
            const int lib = round % 2 == 0 ? i : LIB_COUNT - 1 - i;
            if (lib == LIB_NN && c->M == 1) {
                continue; // one GEMV form only
            }
            int reps = (int) ceil(1.0 / (flop / expect[lib]));
            reps = reps < 2 ? 2 : (reps > 10 ? 10 : reps);
            char sM[32], sN[32], sK[32], sF[8], sR[16];
            snprintf(sM, sizeof(sM), "%lld", (long long) c->M);
            snprintf(sN, sizeof(sN), "%lld", (long long) c->N);
            snprintf(sK, sizeof(sK), "%lld", (long long) c->K);
            snprintf(sF, sizeof(sF), "%d", c->f16 ? 1 : 0);
            snprintf(sR, sizeof(sR), "%d", reps);
            char * const args[] = { (char *) self, (char *) "--child", (char *) lib_names[lib], (char *) dev_name,
                                    sM, sN, sK, sF, sR, NULL };
            char out[4096];
            if (!run_child(args, out, sizeof(out))) {
                fprintf(stderr, "opencl-matmul: %s block failed (%s)\n", lib_names[lib], c->label);
                continue;
            }
            char * s = out;
            char * end;
            for (double v = strtod(s, &end); end != s && n[lib] < MAX_RUNS*N_ROUNDS; v = strtod(s, &end)) {
                times[lib][n[lib]++] = v;
                s = end;
            }
        }
    }
    for (int i = 0; i < LIB_COUNT; i++) {
        med[i] = median(times[i], n[i]);
    }
}

int main(int argc, char ** argv) {
    if (argc >= 3 && strcmp(argv[1], "--child") == 0) {
        return child_main(argc, argv);
    }
    const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;

    char dev_name[512];
    char * const probe[] = { argv[0], (char *) "--child", (char *) "probe", NULL };
    if (!run_child(probe, dev_name, sizeof(dev_name)) || dev_name[0] == '\0') {
        printf("opencl-matmul: no OpenCL device (OpenCL0): nothing to measure\n");
        return 0;
    }
    dev_name[strcspn(dev_name, "\n")] = '\0';

    static const struct bench_case cases[] = {
        { "F32 256",              256,  256,   256,  false },
        { "F32 512",              512,  512,   512,  false },
        { "F32 1024",             1024, 1024,  1024, false },
        { "F32 2048",             2048, 2048,  2048, false },
        { "F16w x F32 1024",      1024, 1024,  1024, true  },
        { "F16w x F32 2048",      2048, 2048,  2048, true  },
        { "GEMV F32 4096x14336",  1,    14336, 4096, false },
        { "GEMV F16 4096x14336",  1,    14336, 4096, true  },
    };
    const int rounds = quick ? 1 : N_ROUNDS;
    printf("bench/opencl-matmul: OpenCL0 = %s; CPU backend with %ld threads\n", dev_name, sysconf(_SC_NPROCESSORS_ONLN));
    if (rounds == 1) {
        printf("one block per library (quick run), in its own process after a warm-up call\n");
    } else {
        printf("medians over %d alternating blocks per library, each in its own process after a warm-up call\n", rounds);
    }
    printf("CLBlast NT = the same product from the same buffers; NN = A given pre-transposed; ratio = ours / faster CLBlast\n\n");
    printf("%-22s %12s %12s %12s %8s %12s\n", "case (GFLOP/s)", "ours OpenCL", "CLBlast NT", "CLBlast NN", "ratio", "ours CPU");
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        const struct bench_case * c = &cases[i];
        if (quick && (c->M > 1024 || c->M == 1)) {
            continue;
        }
        double med[LIB_COUNT];
        measure(argv[0], dev_name, c, rounds, med);
        const double flop = 2.0*(double) c->M*(double) c->N*(double) c->K;
        double g[LIB_COUNT];
        for (int l = 0; l < LIB_COUNT; l++) {
            g[l] = flop / med[l] * 1e-9;
        }
        const double best = isnan(g[LIB_NN]) || g[LIB_NT] > g[LIB_NN] ? g[LIB_NT] : g[LIB_NN];
        char nn[32] = "-"; // no NN form for GEMV
        if (!isnan(g[LIB_NN])) {
            snprintf(nn, sizeof(nn), "%.1f", g[LIB_NN]);
        }
        printf("%-22s %12.1f %12.1f %12s %8.2f %12.1f", c->label, g[LIB_OURS], g[LIB_NT], nn, g[LIB_OURS] / best, g[LIB_CPU]);
        if (c->M == 1) {
            const double bytes = (double) c->N*(double) c->K*(c->f16 ? 2.0 : 4.0);
            printf("   (ours %.1f GB/s of weights)", bytes / med[LIB_OURS] * 1e-9);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
