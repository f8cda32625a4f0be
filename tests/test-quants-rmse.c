// Round-trip error of the quantizers on Gaussian rows (mean 0, sigma 1): RMSE of
// dequantize(quantize(x)) - x, computed in double, against a stated bound per type; with an
// importance matrix (random positive weights per column) the weighted RMSE must not be worse
// than without one (the point of the weights), and the plain RMSE must stay within the bound.
//
// The bounds are about 5% above what these quantizers measure (see docs/quantization.md for the
// figures and the family's quantizers on the same data); a quantizer that regresses fails here.

#include "ggml.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N_PER_ROW 4096
#define N_ROWS    16

struct bound {
    enum ggml_type type;
    double         rmse;      // bound on plain RMSE without imatrix (sigma = 1)
    bool           weighted;  // the quantizer uses the importance matrix
};

static const struct bound bounds[] = {
    { GGML_TYPE_Q4_0,   0.090, true  },
    { GGML_TYPE_Q4_1,   0.082, true  },
    { GGML_TYPE_Q5_0,   0.045, true  },
    { GGML_TYPE_Q5_1,   0.040, true  },
    { GGML_TYPE_Q8_0,   0.0057, false },
    { GGML_TYPE_Q8_1,   0.0057, false },
    { GGML_TYPE_Q2_K,   0.31, true  },
    { GGML_TYPE_Q3_K,   0.16, true  },
    { GGML_TYPE_Q4_K,   0.075, true  },
    { GGML_TYPE_Q5_K,   0.038, true  },
    { GGML_TYPE_Q6_K,   0.0187, true  },
    { GGML_TYPE_Q8_K,   0.0074, false },
    { GGML_TYPE_IQ4_NL, 0.080, true  },
    { GGML_TYPE_IQ4_XS, 0.081, true  },
    { GGML_TYPE_MXFP4,  0.121, false },
    { GGML_TYPE_TQ1_0,  0.85, false },
    { GGML_TYPE_TQ2_0,  0.85, false },
};

static double gauss(void) {
    const double u1 = test_rand_uniform(1e-12, 1.0), u2 = test_rand_uniform(0.0, 1.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

// RMSE over all rows, weighted by w per column (NULL: unweighted)
static double round_trip(enum ggml_type type, const float * x, const float * imatrix, const float * w) {
    const size_t rb = ggml_row_size(type, N_PER_ROW);
    uint8_t * q = malloc(rb * N_ROWS);
    float   * y = malloc(sizeof(float) * N_PER_ROW * N_ROWS);
    double num = 0.0, den = 0.0;
    if (TEST_CHECK(q && y) &&
        TEST_CHECK(ggml_quantize_chunk(type, x, q, 0, N_ROWS, N_PER_ROW, imatrix) == rb * N_ROWS)) {
        ggml_get_type_traits(type)->to_float(q, y, (int64_t) N_PER_ROW * N_ROWS);
        for (int64_t i = 0; i < (int64_t) N_PER_ROW * N_ROWS; i++) {
            const double e  = (double) y[i] - (double) x[i];
            const double wi = w ? w[i % N_PER_ROW] : 1.0;
            num += wi * e * e;
            den += wi;
        }
    }
    free(q), free(y);
    return den > 0.0 ? sqrt(num / den) : INFINITY;
}

int main(int argc, char ** argv) {
    (void) argv;
    const bool print = argc > 1; // any argument: print the figures (for docs/quantization.md)
    test_rng_init();
    float * x  = malloc(sizeof(float) * N_PER_ROW * N_ROWS);
    float * im = malloc(sizeof(float) * N_PER_ROW);
    if (!TEST_CHECK(x && im)) {
        return test_finish("test-quants-rmse");
    }
    for (int64_t i = 0; i < (int64_t) N_PER_ROW * N_ROWS; i++) {
        x[i] = (float) gauss();
    }
    for (int i = 0; i < N_PER_ROW; i++) {
        im[i] = (float) exp(1.5 * gauss()); // log-normal: a few columns matter much more
    }
    for (size_t t = 0; t < sizeof(bounds) / sizeof(bounds[0]); t++) {
        const struct bound * b = &bounds[t];
        const char * name = ggml_type_name(b->type);
        const double plain    = round_trip(b->type, x, NULL, NULL);
        const double plain_w  = round_trip(b->type, x, NULL, im);
        const double imat     = round_trip(b->type, x, im, NULL);
        const double imat_w   = round_trip(b->type, x, im, im);
        if (print) {
            printf("%-8s rmse %.5f  with imatrix %.5f  weighted rmse: without %.5f with %.5f\n", name, plain, imat,
                   plain_w, imat_w);
        }
        TEST_CHECK_MSG(plain <= b->rmse, "%s: rmse %.5f above the bound %.5f", name, plain, b->rmse);
        TEST_CHECK_MSG(imat <= b->rmse * 1.25, "%s: rmse with imatrix %.5f above 1.25 x the bound %.5f", name, imat,
                       b->rmse);
        if (b->weighted) {
            TEST_CHECK_MSG(imat_w < plain_w, "%s: weighted rmse with imatrix %.5f not below without %.5f", name,
                           imat_w, plain_w);
        } else {
            TEST_CHECK_MSG(imat_w == plain_w, "%s: imatrix changed a quantizer that does not use one", name);
        }
    }
    free(x), free(im);
    return test_finish("test-quants-rmse");
}
