// The decode slots (gemv) of Q2_K and Q3_K on raw blocks rather than quantized Gaussian rows, at
// every level this CPU runs: the AVX2 kernels take the low level bits in place, times 1, 4 or 16
// with the scales times 16, 4 or 1 (avx2-quant-gemv-k.c), so the largest products are the cases
// to see; and so are they for Q4_K, Q5_K, Q6_K (levels up to 63 through vpmaddubsw on AVX-512):
//   - every byte random (levels, high bits, scales and mins of every value);
//   - every level and every scale at its maximum (Q2_K level 3, scale 15, min 15; Q3_K level 3
//     with the high bit, scale 31; Q4_K / Q5_K levels 15 / 31, scale and min 63; Q6_K level 31,
//     scale 127) and at the minimum (Q3_K level -4, scale -32; Q4_K / Q5_K level 0 with scale and
//     min 63; Q6_K level -32, scale -127), against activations of -128 and 127 in runs (a
//     maddubs pair at its largest);
//   - 1 .. 9 rows (the 4-row lockstep and the single rows after it), 1 and 5 super-blocks.
// Each output against the double dot of the dequantized rows (2e-5 of the sum of |products|) and
// against the portable vec_dot.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd_u32(void) {
    g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (g_rng >> 32);
}

enum fill { FILL_RANDOM, FILL_MAX, FILL_MIN };

// Q8_K: float d, int8 qs[256], int16 bsums[16] (the sums of 16 qs each)
enum { Q8K_BYTES = 4 + 256 + 32 };

static void fill_q8k(uint8_t * b, enum fill f) {
    const float d = 1e-2f*(float) (1 + rnd_u32() % 100);
    int8_t qs[256];
    for (int i = 0; i < 256; i++) {
        // runs of -128 and of 127 (the two maddubs inputs of a pair alike), or anything
        qs[i] = f == FILL_RANDOM ? (int8_t) (rnd_u32() & 0xFF) : (i/32 + (int) (rnd_u32() % 2)) % 2 ? 127 : -128;
    }
    memcpy(b, &d, 4);
    memcpy(b + 4, qs, 256);
    for (int k = 0; k < 16; k++) {
        int16_t s = 0;
        for (int i = 0; i < 16; i++) {
            s = (int16_t) (s + qs[16*k + i]);
        }
        memcpy(b + 260 + 2*k, &s, 2);
    }
}

static void put_f16(uint8_t * p, float v) {
    const ggml_fp16_t h = ggml_fp32_to_fp16(v);
    memcpy(p, &h, 2);
}

// Q2_K: scales[16] (scale | min << 4), qs[64], d, dmin; Q3_K: hmask[32], qs[64], scales[12], d;
// Q4_K: d, dmin, scales[12], qs[128]; Q5_K: d, dmin, scales[12], qh[32], qs[128]; Q6_K: ql[128],
// qh[64], scales[16] (int8), d
static void fill_block(enum ggml_type t, uint8_t * b, enum fill f) {
    const size_t n = ggml_type_size(t);
    const bool q45 = t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K;
    const size_t nf16 = t == GGML_TYPE_Q2_K || q45 ? 2 : 1; // d (and dmin)
    const size_t lead = q45 ? 4 : 0, bytes = n - 2*nf16;
    for (size_t i = 0; i < bytes; i++) {
        b[lead + i] = f == FILL_RANDOM ? (uint8_t) rnd_u32() : f == FILL_MAX ? 0xFF : 0x00;
    }
    if (t == GGML_TYPE_Q2_K && f == FILL_MIN) {
        memset(b, 0x0F, 16); // scale 15, min 0, every level 0
    }
    if (q45 && f == FILL_MIN) {
        memset(b + 4, 0xFF, 12); // every scale and min 63, every level 0
    }
    if (t == GGML_TYPE_Q6_K && f != FILL_RANDOM) {
        memset(b + 192, f == FILL_MAX ? 0x7F : 0x81, 16); // scales 127 (levels 31) / -127 (levels -32)
    }
    const float d = 1e-3f*(float) (1 + rnd_u32() % 1000);
    uint8_t * pd = q45 ? b : b + bytes;
    put_f16(pd, d);
    if (nf16 == 2) {
        put_f16(pd + 2, 0.5f*d);
    }
}

static double ref_dot(enum ggml_type t, const void * x, const void * y, int64_t k, double * sabs) {
    float * xf = malloc((size_t) k*sizeof(float));
    float * yf = malloc((size_t) k*sizeof(float));
    double s = 0.0, a = 0.0;
    TEST_CHECK(xf != NULL && yf != NULL);
    if (xf != NULL && yf != NULL) {
        ggml_get_type_traits(t)->to_float(x, xf, k);
        ggml_get_type_traits(GGML_TYPE_Q8_K)->to_float(y, yf, k);
        for (int64_t i = 0; i < k; i++) {
            s += (double) xf[i]*yf[i];
            a += fabs((double) xf[i]*yf[i]);
        }
    }
    free(xf);
    free(yf);
    *sabs = a;
    return s;
}

static int check_type(const struct ggml_cpu_kernels * kt, enum ggml_type t, const char * lv, int nsb, enum fill f) {
    const struct ggml_cpu_quant_kernels * q = &kt->quant[t];
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    enum { NR = 9 };
    const int64_t K = 256*(int64_t) nsb;
    const size_t row = ggml_row_size(t, K);
    uint8_t * x = malloc(row*NR);
    uint8_t * y = malloc((size_t) Q8K_BYTES*(size_t) nsb);
    TEST_CHECK(x != NULL && y != NULL);
    if (x == NULL || y == NULL || q->gemv == NULL || q->vec_dot_type != GGML_TYPE_Q8_K) {
        free(x);
        free(y);
        return 0;
    }
    for (int r = 0; r < NR; r++) {
        for (int i = 0; i < nsb; i++) {
            // FILL_MIN rows alternate with maximum rows: both extremes in one lockstep
            fill_block(t, x + r*row + (size_t) i*ggml_type_size(t), f == FILL_MIN && r % 2 ? FILL_MAX : f);
        }
    }
    for (int i = 0; i < nsb; i++) {
        fill_q8k(y + (size_t) i*Q8K_BYTES, f);
    }
    for (int nr = 1; nr <= NR; nr++) {
        float out[NR + 1];
        for (int r = 0; r <= NR; r++) {
            out[r] = NAN;
        }
        q->gemv((int) K, out, x, row, y, nr);
        for (int r = 0; r < nr; r++) {
            double sabs;
            const double ref = ref_dot(t, x + r*row, y, K, &sabs);
            float sp = NAN;
            kp->quant[t].vec_dot((int) K, &sp, 0, x + r*row, 0, y, 0, 1);
            const double tol = 2e-5*sabs + 1e-30;
            TEST_CHECK_MSG(isfinite(out[r]) && fabs(out[r] - ref) <= tol,
                           "[%s] %s %d super-blocks fill %d gemv nr=%d row %d: %.9g vs double %.9g (tol %.3g)", lv,
                           ggml_type_name(t), nsb, (int) f, nr, r, (double) out[r], ref, tol);
            TEST_CHECK_MSG(fabs((double) out[r] - sp) <= 2.0*tol, "[%s] %s gemv row %d: %.9g vs portable %.9g",
                           lv, ggml_type_name(t), r, (double) out[r], (double) sp);
        }
        TEST_CHECK_MSG(isnan(out[nr]), "[%s] %s gemv nr=%d wrote past its rows", lv, ggml_type_name(t), nr);
    }
    free(x);
    free(y);
    return 1;
}

int main(void) {
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        const char * lv = ggml_cpu_isa_name((enum ggml_cpu_isa_level) level);
        if (level > (int) top) {
            printf("test-cpu-quant-gemv-k23: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n", lv);
            continue;
        }
        const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level);
        int n = 0;
        const enum ggml_type types[] = { GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K };
        for (size_t ti = 0; ti < sizeof(types)/sizeof(types[0]); ti++) {
            for (int f = FILL_RANDOM; f <= FILL_MIN; f++) {
                for (int rep = 0; rep < 4; rep++) {
                    n += check_type(kt, types[ti], lv, 1, (enum fill) f);
                    n += check_type(kt, types[ti], lv, 5, (enum fill) f);
                }
            }
        }
        printf("test-cpu-quant-gemv-k23: [%s] %d decode cases of Q2_K .. Q6_K checked\n", lv, n);
    }
    return test_finish("test-cpu-quant-gemv-k23");
}
