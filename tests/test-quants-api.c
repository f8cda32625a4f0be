// The quantization API around the formats: ggml_validate_row_data on quantized rows (accepts
// every valid row, refuses a NaN or Inf block scale and names it), ggml_quantize_chunk with bad
// arguments and with types that have no quantizer (log, 0 bytes), ggml_quantize_requires_imatrix,
// ggml_quantize_init / _free, and the type traits' row functions on bad element counts.

#include "ggml.h"
#include "ggml-quants.h"
#include "test-common.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct scale_field {
    enum ggml_type type;
    size_t         off;  // of an fp16 scale in the block
};

static const struct scale_field fp16_scales[] = {
    { GGML_TYPE_Q4_0, offsetof(block_q4_0, d) },       { GGML_TYPE_Q4_1, offsetof(block_q4_1, m) },
    { GGML_TYPE_Q5_0, offsetof(block_q5_0, d) },       { GGML_TYPE_Q5_1, offsetof(block_q5_1, d) },
    { GGML_TYPE_Q8_0, offsetof(block_q8_0, d) },       { GGML_TYPE_Q8_1, offsetof(block_q8_1, d) },
    { GGML_TYPE_Q2_K, offsetof(block_q2_K, dmin) },    { GGML_TYPE_Q3_K, offsetof(block_q3_K, d) },
    { GGML_TYPE_Q4_K, offsetof(block_q4_K, d) },       { GGML_TYPE_Q5_K, offsetof(block_q5_K, dmin) },
    { GGML_TYPE_Q6_K, offsetof(block_q6_K, d) },       { GGML_TYPE_IQ2_XXS, offsetof(block_iq2_xxs, d) },
    { GGML_TYPE_IQ2_XS, offsetof(block_iq2_xs, d) },   { GGML_TYPE_IQ2_S, offsetof(block_iq2_s, d) },
    { GGML_TYPE_IQ3_XXS, offsetof(block_iq3_xxs, d) }, { GGML_TYPE_IQ3_S, offsetof(block_iq3_s, d) },
    { GGML_TYPE_IQ1_S, offsetof(block_iq1_s, d) },     { GGML_TYPE_IQ4_NL, offsetof(block_iq4_nl, d) },
    { GGML_TYPE_IQ4_XS, offsetof(block_iq4_xs, d) },   { GGML_TYPE_TQ1_0, offsetof(block_tq1_0, d) },
    { GGML_TYPE_TQ2_0, offsetof(block_tq2_0, d) },     { GGML_TYPE_Q1_0, offsetof(block_q1_0, d) },
    { GGML_TYPE_Q2_0, offsetof(block_q2_0, d) },
};

#define N_PER_ROW 512
#define N_ROWS    3

static void fill_gauss(float * x, int64_t n, double scale) {
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float) (scale * test_rand_uniform(-1.0, 1.0));
    }
}

// every row our quantizers write is valid; zero blocks of every quantized type are valid
static void test_validate_accepts(void) {
    float x[N_PER_ROW * N_ROWS];
    static uint8_t q[N_PER_ROW * N_ROWS * 4];
    test_log_capture_begin();
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const enum ggml_type type = (enum ggml_type) t;
        if (!ggml_type_is_valid(type) || !ggml_is_quantized(type)) {
            continue;
        }
        memset(q, 0, sizeof(q));
        const size_t rb = ggml_row_size(type, N_PER_ROW);
        TEST_CHECK_MSG(ggml_validate_row_data(type, q, rb * N_ROWS), "%s: zero blocks", ggml_type_name(type));
        if (ggml_quants_row_w(type) == NULL) {
            continue;
        }
        for (int s = -6; s <= 4; s += 2) {
            fill_gauss(x, N_PER_ROW * N_ROWS, pow(10.0, s));
            const size_t w = ggml_quantize_chunk(type, x, q, 0, N_ROWS, N_PER_ROW, NULL);
            TEST_CHECK_MSG(w == rb * N_ROWS && ggml_validate_row_data(type, q, w), "%s: quantized row at 1e%d",
                           ggml_type_name(type), s);
        }
    }
    TEST_CHECK(test_log_error_count() == 0);
    test_log_capture_end();
}

// a NaN or Inf scale in any block is refused, with a log naming the block
static void test_validate_refuses(void) {
    static uint8_t q[4 * 300];
    static const ggml_fp16_t bad[] = { 0x7c00, 0xfc00, 0x7e00, 0x7c01 };
    for (size_t i = 0; i < sizeof(fp16_scales) / sizeof(fp16_scales[0]); i++) {
        const struct scale_field * f = &fp16_scales[i];
        const size_t bs = ggml_type_size(f->type);
        for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
            memset(q, 0, sizeof(q));
            memcpy(q + 2*bs + f->off, &bad[b], sizeof(bad[b]));
            test_log_capture_begin();
            TEST_CHECK_MSG(!ggml_validate_row_data(f->type, q, 4*bs), "%s: scale 0x%04x accepted",
                           ggml_type_name(f->type), bad[b]);
            TEST_CHECK(test_log_error_count() == 1 && strstr(test_log_text(), "block 2 of 4") != NULL);
            test_log_capture_end();
        }
    }
    // Q8_K: float scale
    block_q8_K k8[2];
    memset(k8, 0, sizeof(k8));
    k8[1].d = NAN;
    test_log_capture_begin();
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_Q8_K, k8, sizeof(k8)));
    k8[1].d = INFINITY;
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_Q8_K, k8, sizeof(k8)));
    TEST_CHECK(test_log_error_count() == 2);
    test_log_capture_end();
    // IQ1_M: the scale is the top nibbles of the four scale words; 0x7c00 there is Inf
    block_iq1_m m1[1];
    memset(m1, 0, sizeof(m1));
    const uint16_t words[4] = { 0x0000, 0x0000, 0xc000, 0x7000 }; // nibbles 0, 0, c, 7 -> 0x7c00
    memcpy(m1[0].scales, words, sizeof(words));
    test_log_capture_begin();
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_IQ1_M, m1, sizeof(m1)));
    TEST_CHECK(test_log_error_count() == 1);
    test_log_capture_end();
    // MXFP4: the E8M0 NaN code 0xff is refused, every other exponent accepted; NVFP4: every
    // UE4M3 scale byte decodes to a finite value
    uint8_t fp4[36 * 2];
    memset(fp4, 0xfe, sizeof(fp4));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_MXFP4, fp4, 17 * 4));
    fp4[17 * 3] = 0xff;
    test_log_capture_begin();
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_MXFP4, fp4, 17 * 4));
    TEST_CHECK(test_log_error_count() == 1 && strstr(test_log_text(), "block 3 of 4") != NULL);
    test_log_capture_end();
    memset(fp4, 0xff, sizeof(fp4));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_NVFP4, fp4, 36 * 2));
    // Q8_1: the level sum s is not a scale and may overflow (the family does not check it)
    block_q8_1 q81[1];
    memset(q81, 0, sizeof(q81));
    q81[0].s = 0x7c00;
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_Q8_1, q81, sizeof(q81)));
}

static void test_chunk_bad_args(void) {
    float x[256 * 2];
    uint8_t q[256 * 2 * 4];
    fill_gauss(x, 512, 1.0);
    struct { enum ggml_type type; const float * src; void * dst; int64_t start, nrows, n_per_row; } cases[] = {
        { GGML_TYPE_Q4_0,  x,    q,    16, 1, 256 },  // start not on a row
        { GGML_TYPE_Q4_0,  x,    q,    0,  1, 250 },  // row not a whole number of blocks
        { GGML_TYPE_Q4_K,  x,    q,    0,  1, 128 },  // row shorter than a super-block
        { GGML_TYPE_Q4_0,  NULL, q,    0,  1, 256 },
        { GGML_TYPE_Q4_0,  x,    NULL, 0,  1, 256 },
        { GGML_TYPE_Q4_0,  x,    q,    0, -1, 256 },
        { GGML_TYPE_Q4_0,  x,    q,   -256, 1, 256 },
        { GGML_TYPE_Q4_0,  x,    q,    0,  1, 0 },
        { (enum ggml_type) 4,   x, q,  0,  1, 256 },  // removed id
        { (enum ggml_type) 99,  x, q,  0,  1, 256 },
        { (enum ggml_type) -1,  x, q,  0,  1, 256 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        test_log_capture_begin();
        const size_t w = ggml_quantize_chunk(cases[i].type, cases[i].src, cases[i].dst, cases[i].start,
                                             cases[i].nrows, cases[i].n_per_row, NULL);
        TEST_CHECK_MSG(w == 0 && test_log_error_count() >= 1, "bad chunk case %zu: %zu bytes", i, w);
        test_log_capture_end();
    }
    // no quantizer yet: IQ1/IQ2/IQ3 answer 0 with a log, never crash
    const enum ggml_type none[] = { GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS,
                                    GGML_TYPE_IQ3_S, GGML_TYPE_IQ1_S, GGML_TYPE_IQ1_M };
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        ggml_quantize_init(none[i]);
        float im[256];
        for (int j = 0; j < 256; j++) {
            im[j] = 1.0f;
        }
        test_log_capture_begin();
        TEST_CHECK_MSG(ggml_quantize_chunk(none[i], x, q, 0, 1, 256, im) == 0 && test_log_error_count() == 1 &&
                           strstr(test_log_text(), "not implemented") != NULL,
                       "%s: no quantizer", ggml_type_name(none[i]));
        test_log_capture_end();
    }
    ggml_quantize_free();
    // zero rows: nothing written, no error
    test_log_capture_begin();
    TEST_CHECK(ggml_quantize_chunk(GGML_TYPE_Q4_0, x, q, 256, 0, 256, NULL) == 0);
    TEST_CHECK(test_log_error_count() == 0);
    test_log_capture_end();
    // the second row lands at its own offset; F16 / BF16 / F32 go through the same entry point
    uint8_t whole[2 * 144];
    TEST_CHECK(ggml_quantize_chunk(GGML_TYPE_Q4_K, x, whole, 0, 2, 256, NULL) == 2 * 144);
    uint8_t second[2 * 144];
    memset(second, 0xa5, sizeof(second));
    TEST_CHECK(ggml_quantize_chunk(GGML_TYPE_Q4_K, x, second, 256, 1, 256, NULL) == 144);
    TEST_CHECK(memcmp(second + 144, whole + 144, 144) == 0 && second[0] == 0xa5);
    ggml_fp16_t h[256];
    TEST_CHECK(ggml_quantize_chunk(GGML_TYPE_F16, x, h, 0, 1, 256, NULL) == 512);
    TEST_CHECK(h[3] == ggml_fp32_to_fp16(x[3]));
}

static void test_requires_imatrix(void) {
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const bool want = t == GGML_TYPE_IQ2_XXS || t == GGML_TYPE_IQ2_XS || t == GGML_TYPE_IQ1_S;
        TEST_CHECK_MSG(ggml_quantize_requires_imatrix((enum ggml_type) t) == want, "requires_imatrix(%d)", t);
    }
}

// the traits' row functions refuse a count that is not a whole number of blocks, and NULL
static void test_traits_bad_rows(void) {
    float   x[64] = { 1.0f };
    uint8_t q[64];
    const struct ggml_type_traits * tt = ggml_get_type_traits(GGML_TYPE_Q4_0);
    test_log_capture_begin();
    memset(q, 0x5a, sizeof(q));
    tt->from_float_ref(x, q, 31);
    tt->to_float(q, x, 33);
    tt->to_float(NULL, x, 32);
    TEST_CHECK(test_log_error_count() == 3 && q[0] == 0x5a && x[0] == 1.0f);
    test_log_capture_end();
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const struct ggml_type_traits * tr = ggml_get_type_traits((enum ggml_type) t);
        if (tr && tr->is_quantized) {
            TEST_CHECK_MSG(tr->to_float != NULL, "%s has to_float", tr->type_name);
            TEST_CHECK_MSG((tr->from_float_ref != NULL) == (ggml_quants_row_w((enum ggml_type) t) != NULL),
                           "%s: from_float_ref where a quantizer exists", tr->type_name);
        }
    }
}

int main(void) {
    test_rng_init();
    test_validate_accepts();
    test_validate_refuses();
    test_chunk_bad_args();
    test_requires_imatrix();
    test_traits_bad_rows();
    return test_finish("test-quants-api");
}
