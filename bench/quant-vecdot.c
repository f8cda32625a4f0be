// bench/quant-vecdot: the quantized dot products (vec_dot) of every kernel level this CPU runs,
// per type, at 1 thread, as GB/s of weights read.
//
//   quant-vecdot [MiB of weights]     (default 16)
//
// Each type's weight matrix (rows of K = 4096, about the given size) is dotted row by row with one
// activation row (the type's vec_dot_type, quantized by the level's own from_float), calling the
// level's table directly (ggml_cpu_kernels_level): no graph, no threads. Time is process CPU time
// (CLOCK_PROCESS_CPUTIME_ID), so other processes on the machine disturb it less than wall time;
// the levels alternate within each of 5 rounds and every figure is the median of the 5.
// Then the activation quantizers (from_float of Q8_0, Q8_1, Q8_K) of every level, GB/s of floats.
// The load average is printed before and after: figures taken under load are not final.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "bench-timing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_ROUNDS 5
#define K_ROW    4096

static void print_load(const char * when) {
    char buf[128] = "?";
    FILE * f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fgets(buf, sizeof(buf), f) == NULL) {
            strcpy(buf, "?\n");
        }
        fclose(f);
    }
    printf("load average %s: %s", when, buf);
}

static uint64_t g_rng = 0x853C49E6748FEA9Bull;

static float rnd_gauss(void) {
    g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
    const double u1 = ((double) (g_rng >> 33) + 1.0)/2147483649.0;
    g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
    const double u2 = (double) (g_rng >> 33)/2147483648.0;
    return (float) (sqrt(-2.0*log(u1))*cos(6.283185307179586*u2));
}

static void log_quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) level; (void) text; (void) user;
}

// one row of type t: quantized from Gaussian values, or random blocks the validator accepts
static bool make_row(enum ggml_type t, void * row, float * tmp) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    for (int i = 0; i < K_ROW; i++) {
        tmp[i] = rnd_gauss();
    }
    if (tr->from_float_ref != NULL) {
        tr->from_float_ref(tmp, row, K_ROW);
        return true;
    }
    ggml_log_set(log_quiet, NULL);
    bool ok = true;
    for (int b = 0; b < K_ROW/tr->blck_size && ok; b++) {
        uint8_t * blk = (uint8_t *) row + (size_t) b*tr->type_size;
        for (int tries = 0; ; tries++) {
            for (size_t j = 0; j < tr->type_size; j++) {
                g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
                blk[j] = (uint8_t) (g_rng >> 40);
            }
            if (ggml_validate_row_data(t, blk, tr->type_size)) {
                break;
            }
            if (tries > 1000) {
                ok = false;
                break;
            }
        }
    }
    ggml_log_set(NULL, NULL);
    return ok;
}

int main(int argc, char ** argv) {
    const double mib = argc > 1 ? atof(argv[1]) : 16.0;
    if (!(mib >= 0.25 && mib <= 4096.0)) {
        fprintf(stderr, "usage: quant-vecdot [MiB of weights, 0.25 .. 4096]\n");
        return 1;
    }
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_level(GGML_CPU_ISA_PORTABLE);
    int n_levels = 0;
    const struct ggml_cpu_kernels * levels[3];
    for (int l = GGML_CPU_ISA_PORTABLE; l <= (int) top && l <= GGML_CPU_ISA_AVX512; l++) {
        levels[n_levels++] = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) l);
    }
    printf("quant-vecdot: 1 thread, rows of K=%d, about %.1f MiB of weights per type, process CPU time, medians of %d\n",
           K_ROW, mib, N_ROUNDS);
    print_load("before");
    printf("| type |");
    for (int l = 0; l < n_levels; l++) {
        printf(" %s GB/s |", ggml_cpu_isa_name((enum ggml_cpu_isa_level) l));
    }
    printf(" %s / portable |\n|---|", ggml_cpu_isa_name((enum ggml_cpu_isa_level) (n_levels - 1)));
    for (int l = 0; l <= n_levels; l++) {
        printf("---|");
    }
    printf("\n");
    float * tmp = malloc(K_ROW*sizeof(float));
    for (int t = 0; t < GGML_TYPE_COUNT && tmp != NULL; t++) {
        if (kp->quant[t].vec_dot == NULL) {
            continue;
        }
        const enum ggml_type vt = kp->quant[t].vec_dot_type;
        const size_t rs = ggml_row_size((enum ggml_type) t, K_ROW);
        const int64_t n_rows = (int64_t) (mib*1048576.0/(double) rs) + 1;
        uint8_t * w = malloc((size_t) n_rows*rs);
        void * act = malloc(ggml_row_size(vt, K_ROW));
        if (w == NULL || act == NULL || !make_row((enum ggml_type) t, w, tmp)) {
            fprintf(stderr, "%s: no memory or no valid row\n", ggml_type_name((enum ggml_type) t));
            free(w);
            free(act);
            continue;
        }
        for (int64_t r = 1; r < n_rows; r++) {
            memcpy(w + r*rs, w, rs);
        }
        for (int i = 0; i < K_ROW; i++) {
            tmp[i] = rnd_gauss();
        }
        double ts[3][N_ROUNDS];
        volatile float sink = 0.0f;
        for (int round = -1; round < N_ROUNDS; round++) { // round -1 warms up
            for (int l = 0; l < n_levels; l++) {
                const struct ggml_cpu_quant_kernels * q = &levels[l]->quant[t];
                levels[l]->quant[vt].from_float(tmp, act, K_ROW);
                const double t0 = cpu_s();
                float acc = 0.0f;
                for (int64_t r = 0; r < n_rows; r++) {
                    float s;
                    q->vec_dot(K_ROW, &s, 0, w + r*rs, 0, act, 0, 1);
                    acc += s;
                }
                const double dt = cpu_s() - t0;
                sink += acc;
                if (round >= 0) {
                    ts[l][round] = dt;
                }
            }
        }
        (void) sink;
        printf("| %s |", ggml_type_name((enum ggml_type) t));
        double gb[3];
        for (int l = 0; l < n_levels; l++) {
            qsort(ts[l], N_ROUNDS, sizeof(double), cmp_double);
            gb[l] = (double) n_rows*(double) rs/ts[l][N_ROUNDS/2]*1e-9;
            printf(" %.2f |", gb[l]);
        }
        printf(" %.1f |\n", gb[n_levels - 1]/gb[0]);
        fflush(stdout);
        free(w);
        free(act);
    }
    // the activation quantizers (from_float of the Q8 slots), GB/s of floats read
    static const enum ggml_type acts[3] = { GGML_TYPE_Q8_0, GGML_TYPE_Q8_1, GGML_TYPE_Q8_K };
    void * qbuf = malloc(ggml_row_size(GGML_TYPE_Q8_K, K_ROW) + ggml_row_size(GGML_TYPE_Q8_1, K_ROW));
    printf("\n| activations (from_float) |");
    for (int l = 0; l < n_levels; l++) {
        printf(" %s GB/s |", ggml_cpu_isa_name((enum ggml_cpu_isa_level) l));
    }
    printf("\n|---|");
    for (int l = 0; l < n_levels; l++) {
        printf("---|");
    }
    printf("\n");
    const int reps = (int) (mib*1048576.0/(K_ROW*sizeof(float))) + 1;
    for (int it = 0; it < 3 && tmp != NULL && qbuf != NULL; it++) {
        double ts[3][N_ROUNDS];
        for (int round = -1; round < N_ROUNDS; round++) {
            for (int l = 0; l < n_levels; l++) {
                const double t0 = cpu_s();
                for (int r = 0; r < reps; r++) {
                    levels[l]->quant[acts[it]].from_float(tmp, qbuf, K_ROW);
                }
                if (round >= 0) {
                    ts[l][round] = cpu_s() - t0;
                }
            }
        }
        printf("| %s |", ggml_type_name(acts[it]));
        for (int l = 0; l < n_levels; l++) {
            qsort(ts[l], N_ROUNDS, sizeof(double), cmp_double);
            printf(" %.2f |", (double) reps*K_ROW*sizeof(float)/ts[l][N_ROUNDS/2]*1e-9);
        }
        printf("\n");
    }
    free(qbuf);
    free(tmp);
    print_load("after");
    return 0;
}
