// Driver of scripts/quant-rmse-peer.sh: round-trip RMSE of the quantizers on Gaussian rows,
// with and without a (log-normal) importance matrix, through the ggml.h API only, so that the
// same source builds against this library and against the family's. Deterministic data: the
// two builds see identical rows. Output: one line per type, with a hash of the quantized bytes
// (without and with the imatrix) so that the script can tell which quantizers agree bit for bit.

#include "ggml.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N_PER_ROW 4096
#define N_ROWS    64

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double uniform01(void) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return ((double) (rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void) {
    return sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01());
}

static uint64_t fnv1a(const void * p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ ((const uint8_t *) p)[i]) * 0x100000001b3ull;
    }
    return h;
}

static uint64_t last_hash;

static double rmse(enum ggml_type type, const float * x, const float * im, const float * w, float * y, void * q) {
    const size_t n = (size_t) N_PER_ROW * N_ROWS;
    if (ggml_quantize_chunk(type, x, q, 0, N_ROWS, N_PER_ROW, im) != ggml_row_size(type, N_PER_ROW) * N_ROWS) {
        return NAN;
    }
    last_hash = fnv1a(q, ggml_row_size(type, N_PER_ROW) * N_ROWS);
    ggml_get_type_traits(type)->to_float(q, y, (int64_t) n);
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = (double) y[i] - (double) x[i], wi = w ? w[i % N_PER_ROW] : 1.0;
        num += wi * e * e;
        den += wi;
    }
    return sqrt(num / den);
}

int main(void) {
    static const enum ggml_type types[] = {
        GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0,
        GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,
        GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4, GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0,
        GGML_TYPE_Q1_0, GGML_TYPE_Q2_0,
    };
    const size_t n = (size_t) N_PER_ROW * N_ROWS;
    float * x = malloc(n * sizeof(float)), * y = malloc(n * sizeof(float)), * im = malloc(N_PER_ROW * sizeof(float));
    void  * q = malloc(n * sizeof(float));
    if (!x || !y || !im || !q) {
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = (float) gauss();
    }
    for (int i = 0; i < N_PER_ROW; i++) {
        im[i] = (float) exp(1.5 * gauss());
    }
    printf("%-8s %10s %10s %12s %12s %16s %16s\n", "type", "rmse", "rmse_imat", "wrmse", "wrmse_imat", "hash",
           "hash_imat");
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        ggml_quantize_init(types[t]);
        const double r  = rmse(types[t], x, NULL, NULL, y, q);
        const uint64_t h = last_hash;
        const double ri = rmse(types[t], x, im, NULL, y, q);
        const uint64_t hi = last_hash;
        printf("%-8s %10.6f %10.6f %12.6f %12.6f %016llx %016llx\n", ggml_type_name(types[t]), r, ri,
               rmse(types[t], x, NULL, im, y, q), rmse(types[t], x, im, im, y, q), (unsigned long long) h,
               (unsigned long long) hi);
    }
    ggml_quantize_free();
    free(x), free(y), free(im), free(q);
    return 0;
}
