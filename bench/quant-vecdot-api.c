// bench/quant-vecdot-api: vec_dot GB/s of weights per quantized type at 1 thread through the
// public API only (ggml.h, ggml-cpu.h: ggml_get_type_traits_cpu), so that the same source builds
// against the family's library as well and the two can be compared in alternating runs:
//
//   quant-vecdot-api [MiB of weights] [type name]      (defaults: 8, every type)
//
// against the family's CPU backend (not part of the build; its headers and libraries from a
// build of the family's sources):
//   cc -O2 -std=c11 -I<family>/ggml/include bench/quant-vecdot-api.c -L<build>/bin -lggml-base
//      -lggml-cpu -lm -Wl,-rpath,<build>/bin -o /tmp/quant-vecdot-family      (one command line)
//
// Method as bench/quant-vecdot: rows of K = 4096 copied to about the given size, one activation
// row quantized by the library's own from_float, process CPU time, median of 5 after a warm-up.
// Weights: types with a reference quantizer (and not IQ1/IQ2/IQ3, whose quantizers need an
// importance matrix in the family's library) from Gaussian values, the others random blocks that
// ggml_validate_row_data accepts.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"
#include "bench-timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_ROUNDS 5
#define K_ROW    4096

static unsigned long long g_rng = 0x853C49E6748FEA9Bull;

static unsigned rnd_u32(void) {
    g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
    return (unsigned) (g_rng >> 33);
}

static float rnd_gauss(void) {
    const double u1 = (rnd_u32() + 1.0)/2147483649.0, u2 = rnd_u32()/2147483648.0;
    return (float) (sqrt(-2.0*log(u1))*cos(6.283185307179586*u2));
}

static void log_quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) level; (void) text; (void) user;
}

static int is_grid_type(enum ggml_type t) {
    return t == GGML_TYPE_IQ2_XXS || t == GGML_TYPE_IQ2_XS || t == GGML_TYPE_IQ2_S || t == GGML_TYPE_IQ3_XXS ||
           t == GGML_TYPE_IQ3_S || t == GGML_TYPE_IQ1_S || t == GGML_TYPE_IQ1_M;
}

static int make_row(enum ggml_type t, unsigned char * row, float * tmp) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    if (tr->from_float_ref != NULL && !is_grid_type(t)) {
        for (int i = 0; i < K_ROW; i++) {
            tmp[i] = rnd_gauss();
        }
        tr->from_float_ref(tmp, row, K_ROW);
        return 1;
    }
    int ok = 1;
    ggml_log_set(log_quiet, NULL);
    for (int b = 0; b < K_ROW/(int) tr->blck_size && ok; b++) {
        unsigned char * blk = row + (size_t) b*tr->type_size;
        for (int tries = 0; ; tries++) {
            for (size_t j = 0; j < tr->type_size; j++) {
                blk[j] = (unsigned char) rnd_u32();
            }
            if (ggml_validate_row_data(t, blk, tr->type_size)) {
                break;
            }
            if (tries > 1000) {
                ok = 0;
                break;
            }
        }
    }
    ggml_log_set(NULL, NULL);
    return ok;
}

int main(int argc, char ** argv) {
    const double mib = argc > 1 ? atof(argv[1]) : 8.0;
    const char * only = argc > 2 ? argv[2] : NULL;
    if (!(mib >= 0.25 && mib <= 4096.0)) {
        fprintf(stderr, "usage: quant-vecdot-api [MiB of weights, 0.25 .. 4096] [type name]\n");
        return 1;
    }
    ggml_cpu_init();
    float * tmp = malloc(K_ROW*sizeof(float));
    for (int t = 0; t < GGML_TYPE_COUNT && tmp != NULL; t++) {
        const struct ggml_type_traits * tr = ggml_get_type_traits((enum ggml_type) t);
        const struct ggml_type_traits_cpu * tc = ggml_get_type_traits_cpu((enum ggml_type) t);
        const char * name = ggml_type_name((enum ggml_type) t);
        if (tr == NULL || tc == NULL || tc->vec_dot == NULL || !tr->is_quantized || tr->blck_size == 0 ||
            K_ROW % tr->blck_size != 0 || (only != NULL && (name == NULL || strcmp(name, only) != 0))) {
            continue;
        }
        const size_t rs = ggml_row_size((enum ggml_type) t, K_ROW);
        const long n_rows = (long) (mib*1048576.0/(double) rs) + 1;
        unsigned char * w = malloc((size_t) n_rows*rs);
        void * act = malloc(ggml_row_size(tc->vec_dot_type, K_ROW));
        const struct ggml_type_traits_cpu * ta = ggml_get_type_traits_cpu(tc->vec_dot_type);
        if (w == NULL || act == NULL || ta->from_float == NULL || !make_row((enum ggml_type) t, w, tmp)) {
            free(w);
            free(act);
            continue;
        }
        for (long r = 1; r < n_rows; r++) {
            memcpy(w + r*rs, w, rs);
        }
        for (int i = 0; i < K_ROW; i++) {
            tmp[i] = rnd_gauss();
        }
        ta->from_float(tmp, act, K_ROW);
        double ts[N_ROUNDS];
        volatile float sink = 0.0f;
        for (int round = -1; round < N_ROUNDS; round++) {
            const double t0 = cpu_s();
            float acc = 0.0f;
            for (long r = 0; r < n_rows; r++) {
                float s;
                tc->vec_dot(K_ROW, &s, 0, w + r*rs, 0, act, 0, 1);
                acc += s;
            }
            const double dt = cpu_s() - t0;
            sink += acc;
            if (round >= 0) {
                ts[round] = dt;
            }
        }
        (void) sink;
        qsort(ts, N_ROUNDS, sizeof(double), cmp_double);
        printf("%s %.2f\n", name, (double) n_rows*(double) rs/ts[N_ROUNDS/2]*1e-9);
        fflush(stdout);
        free(w);
        free(act);
    }
    free(tmp);
    return 0;
}
