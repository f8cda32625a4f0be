// Compatibility program (PENDING: needs ggml_quantize_chunk / ggml_quantize_requires_imatrix /
// ggml_quantize_init / ggml_quantize_free (ggml.h) and struct ggml_type_traits_cpu /
// ggml_get_type_traits_cpu (ggml-cpu.h), which our headers do not declare yet; and the type scan
// below needs ggml_get_type_traits to return an entry with blck_size 0 for removed ids instead of
// NULL. See docs/compatibility.md).
//
// What quantization tools and the family's quantization tests do: walk every type id up to
// GGML_TYPE_COUNT skipping removed ones by their block size of 0, quantize rows with
// ggml_quantize_chunk, dequantize with the type's to_float, and take dot products with the CPU
// type traits. Errors are bounded by the step size of each format.

#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "quantize:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            n_failed++;                                                       \
        }                                                                     \
    } while (0)

enum { N_PER_ROW = 256, N_ROWS = 3 };

static void type_scan(void) {
    int live = 0;
    for (int i = 0; i < GGML_TYPE_COUNT; i++) {
        const enum ggml_type type = (enum ggml_type) i;
        const struct ggml_type_traits * tt = ggml_get_type_traits(type);
        if (tt->blck_size == 0) {
            continue; // an id the family removed
        }
        live++;
        CHECK(tt->type_name != NULL && ggml_type_size(type) > 0, "type %d", i);
    }
    CHECK(live == 35, "%d live types", live);
}

static void roundtrip(enum ggml_type type, double max_step_frac) {
    float src[N_ROWS * N_PER_ROW];
    for (int i = 0; i < N_ROWS * N_PER_ROW; i++) {
        src[i] = (float) (sin(0.1 * i) * 2.0 + 0.3 * cos(0.037 * i * i));
    }
    CHECK(!ggml_quantize_requires_imatrix(type), "%s requires an importance matrix", ggml_type_name(type));
    const size_t row_size = ggml_row_size(type, N_PER_ROW);
    void * q = malloc(row_size * N_ROWS);
    GGML_ASSERT(q != NULL);
    const size_t written = ggml_quantize_chunk(type, src, q, 0, N_ROWS, N_PER_ROW, NULL);
    CHECK(written == row_size * N_ROWS, "%s: %zu bytes written, expected %zu", ggml_type_name(type), written, row_size * N_ROWS);

    float back[N_ROWS * N_PER_ROW];
    const struct ggml_type_traits * tt = ggml_get_type_traits(type);
    GGML_ASSERT(tt != NULL && tt->to_float != NULL);
    for (int r = 0; r < N_ROWS; r++) {
        tt->to_float((const char *) q + r * row_size, back + r * N_PER_ROW, N_PER_ROW);
    }
    double amax = 0.0, max_err = 0.0;
    for (int i = 0; i < N_ROWS * N_PER_ROW; i++) {
        amax = fmax(amax, fabs(src[i]));
        max_err = fmax(max_err, fabs((double) back[i] - src[i]));
    }
    CHECK(max_err <= max_step_frac * amax, "%s: max error %g for |x| <= %g", ggml_type_name(type), max_err, amax);

    // a dot product through the CPU traits: quantize the other operand to vec_dot_type
    const struct ggml_type_traits_cpu * cpu = ggml_get_type_traits_cpu(type);
    GGML_ASSERT(cpu != NULL && cpu->vec_dot != NULL);
    const struct ggml_type_traits_cpu * cpu_y = ggml_get_type_traits_cpu(cpu->vec_dot_type);
    void * qy = malloc(ggml_row_size(cpu->vec_dot_type, N_PER_ROW));
    GGML_ASSERT(qy != NULL && cpu_y->from_float != NULL);
    float y[N_PER_ROW];
    for (int i = 0; i < N_PER_ROW; i++) y[i] = 0.5f - (float) (i % 7) * 0.1f;
    cpu_y->from_float(y, qy, N_PER_ROW);
    float dot = 0.0f;
    cpu->vec_dot(N_PER_ROW, &dot, 0, q, 0, qy, 0, 1);
    double ref = 0.0, mag = 0.0;
    for (int i = 0; i < N_PER_ROW; i++) {
        ref += (double) src[i] * y[i];
        mag += fabs((double) src[i] * y[i]);
    }
    CHECK(fabs(dot - ref) <= 2.0 * max_step_frac * mag + 1e-3, "%s: dot %g, expected %g", ggml_type_name(type), dot, ref);
    free(qy);
    free(q);
}

int main(void) {
    ggml_cpu_init();
    ggml_quantize_init(GGML_TYPE_Q4_0);
    type_scan();
    roundtrip(GGML_TYPE_Q8_0, 1.0 / 127.0);
    roundtrip(GGML_TYPE_Q4_0, 1.0 / 7.0);
    roundtrip(GGML_TYPE_Q4_K, 1.0 / 7.0);
    roundtrip(GGML_TYPE_Q6_K, 1.0 / 31.0);
    ggml_quantize_free();
    printf("quantize: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
