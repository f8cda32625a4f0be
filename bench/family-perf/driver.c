// bench/family-perf/driver: times one case of the issue-19 table through the public API of
// whichever ggml library it is linked with (the family's or ours; the source is the same).
//
//   driver list                          the case names, one per line
//   driver <case> <threads> <reps> [cpu] prints the median of <reps> timed runs in microseconds
//                                        (wall clock; with "cpu": the process's CPU time, which is
//                                        what a loaded machine leaves comparable at 1 thread)
//
// Every case is one graph node computed with ggml_graph_plan + ggml_graph_compute on a thread
// pool of <threads>, after one untimed warm-up run. Inputs are random. run.sh builds this file
// against both libraries and alternates the two processes (see docs/cpu-perf.md).

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"
#include "../bench-timing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 64

static const char * const k_cases[] = {
    "MUL_MAT f16 m=4096 k=14336 n=1",
    "MUL_MAT f16 m=4096 k=14336 n=8",
    "MUL_MAT bf16 m=4096 k=14336 n=8",
    "MUL_MAT f16 m=4096 k=14336 n=16",
    "MUL_MAT f32 m=4096 k=14336 n=1",
    "ROPE mode 0 [128,64,512]",
    "ROPE mode 0 [128,8,512]",
    "ROPE mode 0 [128,8,1]",
    "CPY f32 permuted [8192,512,2] perm 0,2,1,3",
    "CONT [2048,512,16] perm 2,1,0,3 (issue: 64)",
    "IM2COL f16 [64,64,256] 5x5 (issue: 256x256)",
    "CONV_2D [19,19,256,16] x [4,4,256,512] f16 (issue: 4096)",
    "SWIGLU [34816,512]",
    "SWIGLU fused [69632,512] -> [34816,512]",
    "ROPE mode 0 [128,32,1]",
    "CONT [2048,512,4] perm 2,1,0,3",
    "MUL_MAT f16 m=4096 k=14336 n=5",
    "MUL_MAT f16 m=4096 k=14336 n=7",
    "MUL_MAT f16 m=4096 k=14336 n=6",
    "MUL_MAT bf16 m=4096 k=14336 n=5",
    "MUL_MAT bf16 m=4096 k=14336 n=6",
    "MUL_MAT bf16 m=4096 k=14336 n=7",
    "MUL_MAT bf16 m=4096 k=14336 n=16",
};
#define N_CASES ((int) (sizeof(k_cases)/sizeof(k_cases[0])))

static uint64_t g_rng = 0x243F6A8885A308D3ull;
static float frand(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (float) ((double) (g_rng >> 11)*(1.0/9007199254740992.0))*2.0f - 1.0f;
}

static void fill(struct ggml_tensor * t) {
    const int64_t n = ggml_nelements(t);
    float * tmp = malloc((size_t) t->ne[0]*sizeof(float));
    if (tmp == NULL) {
        return;
    }
    for (int64_t r = 0; r < n/t->ne[0]; r++) {
        for (int64_t i = 0; i < t->ne[0]; i++) {
            tmp[i] = frand();
        }
        char * row = (char *) t->data + (size_t) r*ggml_row_size(t->type, t->ne[0]);
        switch (t->type) {
            case GGML_TYPE_F16:  ggml_fp32_to_fp16_row(tmp, (ggml_fp16_t *) (void *) row, t->ne[0]); break;
            case GGML_TYPE_BF16: ggml_fp32_to_bf16_row(tmp, (ggml_bf16_t *) (void *) row, t->ne[0]); break;
            case GGML_TYPE_I32:
                for (int64_t i = 0; i < t->ne[0]; i++) {
                    ((int32_t *) (void *) row)[i] = (int32_t) (r*t->ne[0] + i);
                }
                break;
            default: memcpy(row, tmp, (size_t) t->ne[0]*sizeof(float)); break;
        }
    }
    free(tmp);
}

static struct ggml_tensor * new_t(struct ggml_context * ctx, enum ggml_type type, int64_t a, int64_t b, int64_t c, int64_t d) {
    struct ggml_tensor * t = ggml_new_tensor_4d(ctx, type, a, b, c, d);
    if (t != NULL) {
        fill(t);
    }
    return t;
}

static struct ggml_tensor * build(struct ggml_context * ctx, int c) {
    switch (c) {
        case 0: case 1: case 2: case 3: case 4: {
            const enum ggml_type wt = c == 2 ? GGML_TYPE_BF16 : c == 4 ? GGML_TYPE_F32 : GGML_TYPE_F16;
            const int64_t n = c == 0 || c == 4 ? 1 : c == 3 ? 16 : 8;
            return ggml_mul_mat(ctx, new_t(ctx, wt, 14336, 4096, 1, 1), new_t(ctx, GGML_TYPE_F32, 14336, n, 1, 1));
        }
        case 5: case 6: case 7: {
            const int64_t heads = c == 5 ? 64 : 8, tokens = c == 7 ? 1 : 512;
            struct ggml_tensor * a   = new_t(ctx, GGML_TYPE_F32, 128, heads, tokens, 1);
            struct ggml_tensor * pos = new_t(ctx, GGML_TYPE_I32, tokens, 1, 1, 1);
            return ggml_rope_ext(ctx, a, pos, NULL, 128, 0, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        }
        case 8: {
            struct ggml_tensor * p = ggml_permute(ctx, new_t(ctx, GGML_TYPE_F32, 8192, 512, 2, 1), 0, 2, 1, 3);
            return ggml_cpy(ctx, p, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, p->ne[0], p->ne[1], p->ne[2], p->ne[3]));
        }
        case 9:
            return ggml_cont(ctx, ggml_permute(ctx, new_t(ctx, GGML_TYPE_F32, 2048, 512, 16, 1), 2, 1, 0, 3));
        case 10:
            return ggml_im2col(ctx, new_t(ctx, GGML_TYPE_F16, 5, 5, 256, 1), new_t(ctx, GGML_TYPE_F32, 64, 64, 256, 1),
                               1, 1, 2, 2, 1, 1, true, GGML_TYPE_F16);
        case 11:
            return ggml_conv_2d_direct(ctx, new_t(ctx, GGML_TYPE_F16, 4, 4, 256, 512), new_t(ctx, GGML_TYPE_F32, 19, 19, 256, 16),
                                       1, 1, 0, 0, 1, 1);
        case 12:
            return ggml_swiglu_split(ctx, new_t(ctx, GGML_TYPE_F32, 34816, 512, 1, 1), new_t(ctx, GGML_TYPE_F32, 34816, 512, 1, 1));
        case 13:
            return ggml_swiglu(ctx, new_t(ctx, GGML_TYPE_F32, 69632, 512, 1, 1));
        case 14: {
            struct ggml_tensor * a   = new_t(ctx, GGML_TYPE_F32, 128, 32, 1, 1);
            struct ggml_tensor * pos = new_t(ctx, GGML_TYPE_I32, 1, 1, 1, 1);
            return ggml_rope_ext(ctx, a, pos, NULL, 128, 0, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
        }
        case 15:
            return ggml_cont(ctx, ggml_permute(ctx, new_t(ctx, GGML_TYPE_F32, 2048, 512, 4, 1), 2, 1, 0, 3));
        case 16: case 17:
            return ggml_mul_mat(ctx, new_t(ctx, GGML_TYPE_F16, 14336, 4096, 1, 1),
                                new_t(ctx, GGML_TYPE_F32, 14336, c == 16 ? 5 : 7, 1, 1));
        case 18: case 19: case 20: case 21: case 22: {
            // the few-columns rows the table lacked: F16 n = 6, BF16 n = 5, 6, 7, 16
            static const int64_t k_n[] = { 6, 5, 6, 7, 16 };
            return ggml_mul_mat(ctx, new_t(ctx, c == 18 ? GGML_TYPE_F16 : GGML_TYPE_BF16, 14336, 4096, 1, 1),
                                new_t(ctx, GGML_TYPE_F32, 14336, k_n[c - 18], 1, 1));
        }
        default:
            return NULL;
    }
}

int main(int argc, char ** argv) {
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (int c = 0; c < N_CASES; c++) {
            printf("%s\n", k_cases[c]);
        }
        return 0;
    }
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "cpu") == 0)) {
        fprintf(stderr, "usage: driver list | driver <case 0..%d> <threads> <reps> [cpu]\n", N_CASES - 1);
        return 2;
    }
    if (argc == 5) {
        g_clock = CLOCK_PROCESS_CPUTIME_ID;
    }
    const int c = atoi(argv[1]), nth = atoi(argv[2]), reps = atoi(argv[3]);
    if (c < 0 || c >= N_CASES || nth < 1 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "driver: bad arguments\n");
        return 2;
    }
    struct ggml_init_params ip = { (size_t) 1536*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (ctx == NULL) {
        fprintf(stderr, "driver: ggml_init failed\n");
        return 1;
    }
    struct ggml_tensor * node = build(ctx, c);
    struct ggml_cgraph * gf = node ? ggml_new_graph(ctx) : NULL;
    if (gf == NULL) {
        fprintf(stderr, "driver: building case %d failed\n", c);
        ggml_free(ctx);
        return 1;
    }
    ggml_build_forward_expand(gf, node);
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(nth);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    struct ggml_cplan plan = ggml_graph_plan(gf, nth, tp);
    void * work = plan.work_size ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    double t[MAX_REPS];
    int rc = 0;
    for (int r = -1; r < reps; r++) {
        const double t0 = 1e6*now_s();
        if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS) {
            fprintf(stderr, "driver: compute failed\n");
            rc = 1;
            break;
        }
        if (r >= 0) {
            t[r] = 1e6*now_s() - t0;
        }
    }
    if (rc == 0) {
        qsort(t, (size_t) reps, sizeof(double), cmp_double);
        printf("%.1f\n", reps % 2 ? t[reps/2] : 0.5*(t[reps/2 - 1] + t[reps/2]));
    }
    free(work);
    ggml_threadpool_free(tp);
    ggml_free(ctx);
    return rc;
}
