// Quantized formats against the external reference, the gguf Python package (gguf.quants): the
// fixtures in tests/data/quants/ (scripts/gen-quant-fixtures.py) hold rows of every scale, zero,
// constant and extreme blocks with the package's quantized bytes, and random valid blocks with
// the package's dequantized floats. Ours must equal them exactly: bytes for quantization (through
// from_float_ref and ggml_quantize_chunk), floats bit for bit for dequantization (NaN where the
// package gives NaN). The dequantization of the IQ types also proves the generated grid tables.

#include "ggml.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GGML_TEST_DATA_DIR
#    error "GGML_TEST_DATA_DIR must name tests/data"
#endif

struct fixture {
    uint32_t type, n_per_row, rows_q, rows_d, row_bytes;
    uint8_t * data; // the whole file
    size_t    size;
};

static bool load_fixture(const char * name, struct fixture * fx) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/quants/%s.bin", GGML_TEST_DATA_DIR, name);
    FILE * f = fopen(path, "rb");
    if (!TEST_CHECK_MSG(f != NULL, "cannot open %s", path)) {
        return false;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    fx->data = n > 0 ? malloc((size_t) n) : NULL;
    const bool read_ok = fx->data && fread(fx->data, 1, (size_t) n, f) == (size_t) n;
    fclose(f);
    if (!TEST_CHECK_MSG(read_ok && n >= 24 && memcmp(fx->data, "GQF1", 4) == 0, "%s: bad fixture", path)) {
        free(fx->data);
        return false;
    }
    fx->size = (size_t) n;
    uint32_t h[5];
    memcpy(h, fx->data + 4, sizeof(h));
    fx->type = h[0], fx->n_per_row = h[1], fx->rows_q = h[2], fx->rows_d = h[3], fx->row_bytes = h[4];
    const size_t need = 24 + (size_t) (fx->rows_q + fx->rows_d) * (fx->n_per_row * sizeof(float) + fx->row_bytes);
    if (!TEST_CHECK_MSG(fx->size == need && ggml_row_size((enum ggml_type) fx->type, fx->n_per_row) == fx->row_bytes,
                        "%s: size %zu, want %zu", path, fx->size, need)) {
        free(fx->data);
        return false;
    }
    return true;
}

static bool same_float(float a, float b) {
    if (isnan(a) || isnan(b)) {
        return isnan(a) && isnan(b);
    }
    uint32_t ua, ub;
    memcpy(&ua, &a, sizeof(ua));
    memcpy(&ub, &b, sizeof(ub));
    return ua == ub;
}

static void check_quantize(const char * name, const struct fixture * fx) {
    const enum ggml_type type = (enum ggml_type) fx->type;
    const struct ggml_type_traits * tt = ggml_get_type_traits(type);
    const size_t n = fx->n_per_row, rb = fx->row_bytes;
    float * x = malloc(fx->rows_q * n * sizeof(float));
    const uint8_t * want = fx->data + 24 + fx->rows_q * n * sizeof(float);
    uint8_t * got   = malloc(fx->rows_q * rb);
    uint8_t * chunk = malloc(fx->rows_q * rb);
    if (!TEST_CHECK(x && got && chunk && tt && tt->from_float_ref)) {
        free(x), free(got), free(chunk);
        return;
    }
    memcpy(x, fx->data + 24, fx->rows_q * n * sizeof(float));
    for (uint32_t r = 0; r < fx->rows_q; r++) {
        tt->from_float_ref(x + r*n, got + r*rb, (int64_t) n);
        size_t bad = rb;
        for (size_t i = 0; i < rb; i++) {
            if (got[r*rb + i] != want[r*rb + i]) {
                bad = i;
                break;
            }
        }
        TEST_CHECK_MSG(bad == rb, "%s quantize row %u: byte %zu is 0x%02x, gguf 0x%02x", name, r, bad,
                       bad < rb ? got[r*rb + bad] : 0, bad < rb ? want[r*rb + bad] : 0);
    }
    // the same through ggml_quantize_chunk, in two chunks
    const int64_t half = fx->rows_q / 2;
    const size_t w1 = ggml_quantize_chunk(type, x, chunk, 0, half, (int64_t) n, NULL);
    const size_t w2 = ggml_quantize_chunk(type, x, chunk, half * (int64_t) n, fx->rows_q - half, (int64_t) n, NULL);
    TEST_CHECK_MSG(w1 + w2 == fx->rows_q * rb && memcmp(chunk, want, fx->rows_q * rb) == 0,
                   "%s: ggml_quantize_chunk differs from gguf", name);
    free(x), free(got), free(chunk);
}

static void check_dequantize(const char * name, const struct fixture * fx) {
    const enum ggml_type type = (enum ggml_type) fx->type;
    const struct ggml_type_traits * tt = ggml_get_type_traits(type);
    const size_t n = fx->n_per_row, rb = fx->row_bytes;
    const uint8_t * base = fx->data + 24 + fx->rows_q * (n * sizeof(float) + rb);
    const uint8_t * blocks = base;
    float * want = malloc(fx->rows_d * n * sizeof(float));
    float * got  = malloc(fx->rows_d * n * sizeof(float));
    if (!TEST_CHECK(want && got && tt && tt->to_float)) {
        free(want), free(got);
        return;
    }
    memcpy(want, base + fx->rows_d * rb, fx->rows_d * n * sizeof(float));
    for (uint32_t r = 0; r < fx->rows_d; r++) {
        tt->to_float(blocks + r*rb, got + r*n, (int64_t) n);
        size_t bad = n;
        for (size_t i = 0; i < n; i++) {
            if (!same_float(got[r*n + i], want[r*n + i])) {
                bad = i;
                break;
            }
        }
        TEST_CHECK_MSG(bad == n, "%s dequantize row %u: element %zu is %.9g, gguf %.9g", name, r, bad,
                       bad < n ? (double) got[r*n + bad] : 0.0, bad < n ? (double) want[r*n + bad] : 0.0);
    }
    free(want), free(got);
}

int main(void) {
    static const char * names[] = {
        "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k",
        "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m", "iq4_nl", "iq4_xs",
        "tq1_0", "tq2_0", "mxfp4", "nvfp4",
    };
    int n_q = 0, n_d = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct fixture fx;
        if (!load_fixture(names[i], &fx)) {
            continue;
        }
        if (fx.rows_q) {
            check_quantize(names[i], &fx);
            n_q++;
        }
        if (fx.rows_d) {
            check_dequantize(names[i], &fx);
            n_d++;
        }
        free(fx.data);
    }
    TEST_CHECK_MSG(n_q == 8 && n_d == 23, "%d quantized and %d dequantized types checked, want 8 and 23", n_q, n_d);
    return test_finish("test-quants-reference");
}
