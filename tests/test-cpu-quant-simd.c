// Quantized dot products and activation quantizers of every kernel level this CPU runs
// (portable, AVX2, AVX-512; levels above the CPU are skipped and reported), taken from each
// level's table directly (ggml_cpu_kernels_level), so every ISA path runs in one process:
//   - vec_dot of every slot against a double-precision dot of the dequantized weight and
//     activation rows, and against the portable kernel; block counts 1, 2, 3, 7, 33 and 130;
//     weights quantized from Gaussian rows (types with a quantizer) at three scales and random
//     valid blocks (every type: every index, sign and scale bit pattern); activations at three
//     scales. Bound: |s - ref| <= 2e-5 * sum |x_i*y_i| (float rounding of the per-block products
//     and of their sum; the integer block sums are exact), 4e-5 against portable;
//   - from_float of Q8_0, Q8_1, Q8_K: bytes equal to the reference quantizers on rows of every
//     scale 1e-6 .. 1e4, a zero block, exact halves (both rounding rules) and ties of +-amax;
//   - the kernels' FP4 scale decoding (arch/quant-fp4-scales.h) for all 256 E8M0 and UE4M3 bytes,
//     bit for bit against the dequantization of MXFP4 / NVFP4 blocks.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "ggml-cpu/arch/quant-fp4-scales.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;

static uint32_t rnd_u32(void) {
    g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (g_rng >> 33);
}

static float rnd_gauss(void) {
    const double u1 = ((double) rnd_u32() + 1.0)/4294967296.0, u2 = (double) rnd_u32()/4294967296.0;
    return (float) (sqrt(-2.0*log(u1))*cos(6.283185307179586*u2));
}

static void log_quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) level; (void) text; (void) user;
}

// nb random blocks of type t that ggml_validate_row_data accepts; MXFP4's exponent is kept in
// 2^-17 .. 2^13 so that the float products stay finite
static bool random_blocks(enum ggml_type t, int64_t nb, void * out) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    bool ok = true;
    ggml_log_set(log_quiet, NULL); // refused candidates are logged by ggml_validate_row_data
    for (int64_t b = 0; b < nb && ok; b++) {
        uint8_t * blk = (uint8_t *) out + b*tr->type_size;
        for (int tries = 0; ; tries++) {
            for (size_t j = 0; j < tr->type_size; j++) {
                blk[j] = (uint8_t) rnd_u32();
            }
            if (t == GGML_TYPE_MXFP4) {
                blk[0] = (uint8_t) (110 + rnd_u32() % 31);
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

static double dot_deq(enum ggml_type tx, const void * x, enum ggml_type ty, const void * y, int64_t k, double * sabs) {
    float * xf = malloc((size_t) k*sizeof(float));
    float * yf = malloc((size_t) k*sizeof(float));
    double s = 0.0, a = 0.0;
    if (xf != NULL && yf != NULL) {
        ggml_get_type_traits(tx)->to_float(x, xf, k);
        ggml_get_type_traits(ty)->to_float(y, yf, k);
        for (int64_t i = 0; i < k; i++) {
            s += (double) xf[i]*yf[i];
            a += fabs((double) xf[i]*yf[i]);
        }
    } else {
        s = NAN;
    }
    free(xf);
    free(yf);
    *sabs = a;
    return s;
}

// Q4_1/Q5_1 kernels take the min term from Q8_1's fp16 s = d*sum(q) (as the family's do); the
// reference adds what its rounding changes, m*(s - d*sum(q))
static double q8_1_s_correction(enum ggml_type tx, const void * x, const void * y, int64_t k) {
    if (tx != GGML_TYPE_Q4_1 && tx != GGML_TYPE_Q5_1) {
        return 0.0;
    }
    const size_t bx = ggml_type_size(tx), by = ggml_type_size(GGML_TYPE_Q8_1);
    double corr = 0.0;
    for (int64_t i = 0; i < k/32; i++) {
        const uint8_t * xb = (const uint8_t *) x + i*bx;
        const uint8_t * yb = (const uint8_t *) y + i*by;
        ggml_fp16_t h[3];
        memcpy(&h[0], xb + 2, 2);
        memcpy(&h[1], yb, 2);
        memcpy(&h[2], yb + 2, 2);
        int sum = 0;
        for (int j = 0; j < 32; j++) {
            sum += (int8_t) yb[4 + j];
        }
        corr += (double) ggml_fp16_to_fp32(h[0])*((double) ggml_fp16_to_fp32(h[2]) - (double) ggml_fp16_to_fp32(h[1])*sum);
    }
    return corr;
}

static const int64_t k_block_counts[] = { 1, 2, 3, 7, 33, 130 };
static const int64_t k_max_blocks = 130;

// one type at one level: every block count, weight kind and scale; returns the number of checks
static int check_type(const struct ggml_cpu_kernels * kt, const struct ggml_cpu_kernels * kp, enum ggml_type t, const char * lv) {
    const struct ggml_cpu_quant_kernels * q = &kt->quant[t];
    const enum ggml_type vt = q->vec_dot_type;
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    const int64_t bk = tr->blck_size;
    const int64_t kmax = k_max_blocks*bk;
    void * x = malloc(ggml_row_size(t, kmax));
    void * y = malloc(ggml_row_size(vt, kmax));
    float * f = malloc((size_t) kmax*sizeof(float));
    int n_checks = 0;
    TEST_CHECK_MSG(vt == kp->quant[t].vec_dot_type, "[%s] %s: activation type differs from portable's", lv, ggml_type_name(t));
    TEST_CHECK(x != NULL && y != NULL && f != NULL);
    static const float w_scales[3] = { 1e-2f, 1.0f, 1e2f };
    static const float a_scales[3] = { 37.0f, 1.0f, 1e-3f };
    for (size_t ic = 0; ic < sizeof(k_block_counts)/sizeof(k_block_counts[0]) && x && y && f; ic++) {
        const int64_t k = k_block_counts[ic]*bk;
        for (int rep = 0; rep < 6; rep++) {
            const bool quantized = rep < 3;
            if (quantized && tr->from_float_ref == NULL) {
                continue;
            }
            if (quantized) {
                for (int64_t i = 0; i < k; i++) {
                    f[i] = w_scales[rep]*rnd_gauss();
                }
                tr->from_float_ref(f, x, k);
            } else {
                TEST_CHECK_MSG(random_blocks(t, k/bk, x), "[%s] %s: random blocks", lv, ggml_type_name(t));
            }
            for (int64_t i = 0; i < k; i++) {
                f[i] = a_scales[rep % 3]*rnd_gauss();
            }
            kt->quant[vt].from_float(f, y, k);
            double sabs;
            const double ref = dot_deq(t, x, vt, y, k, &sabs) + q8_1_s_correction(t, x, y, k);
            float s = NAN, sp = NAN;
            q->vec_dot((int) k, &s, 0, x, 0, y, 0, 1);
            kp->quant[t].vec_dot((int) k, &sp, 0, x, 0, y, 0, 1);
            const double tol = 2e-5*sabs + 1e-30;
            TEST_CHECK_MSG(isfinite(s) && fabs(s - ref) <= tol, "[%s] %s blocks=%d %s rep %d: %.9g vs double %.9g (tol %.3g)",
                           lv, ggml_type_name(t), (int) (k/bk), quantized ? "quantized" : "random", rep, (double) s, ref, tol);
            TEST_CHECK_MSG(fabs((double) s - sp) <= 2.0*tol, "[%s] %s blocks=%d rep %d: %.9g vs portable %.9g",
                           lv, ggml_type_name(t), (int) (k/bk), rep, (double) s, (double) sp);
            n_checks++;
        }
    }
    free(x);
    free(y);
    free(f);
    return n_checks;
}

static int check_vec_dot_level(const struct ggml_cpu_kernels * kt, const char * lv) {
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    int n_types = 0, n_checks = 0, n_own = 0;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (kt->quant[t].vec_dot == NULL) {
            continue;
        }
        n_types++;
        n_own += kt->quant[t].vec_dot != kp->quant[t].vec_dot;
        n_checks += check_type(kt, kp, (enum ggml_type) t, lv);
    }
    printf("test-cpu-quant-simd: [%s] vec_dot: %d types (%d with a kernel of their own), %d checks\n", lv, n_types, n_own,
           n_checks);
    return n_types;
}

// rows of Q8 activations: the level's from_float bytes against the reference quantizer's
static void check_from_float_level(const struct ggml_cpu_kernels * kt, const char * lv) {
    static const enum ggml_type types[3] = { GGML_TYPE_Q8_0, GGML_TYPE_Q8_1, GGML_TYPE_Q8_K };
    const int64_t kmax = 17*256;
    float * f = malloc((size_t) kmax*sizeof(float));
    uint8_t * a = malloc(ggml_row_size(GGML_TYPE_Q8_K, kmax) + ggml_row_size(GGML_TYPE_Q8_1, kmax));
    uint8_t * b = malloc(ggml_row_size(GGML_TYPE_Q8_K, kmax) + ggml_row_size(GGML_TYPE_Q8_1, kmax));
    TEST_CHECK(f != NULL && a != NULL && b != NULL);
    int n_rows = 0;
    for (int it = 0; it < 3 && f && a && b; it++) {
        const enum ggml_type t = types[it];
        const struct ggml_type_traits * tr = ggml_get_type_traits(t);
        TEST_CHECK_MSG(kt->quant[t].from_float != NULL, "[%s] %s: no from_float", lv, ggml_type_name(t));
        if (kt->quant[t].from_float == NULL) {
            continue;
        }
        for (int kind = 0; kind < 9; kind++) {
            const int64_t nb = kind % 3 == 0 ? 1 : kind % 3 == 1 ? 3 : 17 * (256/tr->blck_size);
            const int64_t k = nb*tr->blck_size;
            const float scale = kind < 6 ? powf(10.0f, -6.0f + (float) (rnd_u32() % 11)) : 1.0f;
            for (int64_t i = 0; i < k; i++) {
                f[i] = scale*rnd_gauss();
            }
            if (kind >= 6) {
                // block 0 exact halves: Q8_0/1 scale 1 (amax 127), Q8_K iscale 1 (max -127), with a tie +127
                for (int64_t i = 0; i < tr->blck_size; i++) {
                    f[i] = (float) ((int) (i % 200) - 100) + 0.5f;
                }
                f[0] = t == GGML_TYPE_Q8_K ? -127.0f : 127.0f;
                f[tr->blck_size - 1] = -f[0];
                if (nb > 1) {
                    memset(f + tr->blck_size, 0, (size_t) tr->blck_size*sizeof(float)); // a zero block
                }
            }
            const size_t rs = ggml_row_size(t, k);
            memset(a, 0x5A, rs);
            memset(b, 0xA5, rs);
            tr->from_float_ref(f, a, k);
            kt->quant[t].from_float(f, b, k);
            TEST_CHECK_MSG(memcmp(a, b, rs) == 0, "[%s] %s from_float kind %d (%d blocks, scale %g): bytes differ from the reference",
                           lv, ggml_type_name(t), kind, (int) nb, (double) scale);
            n_rows++;
        }
    }
    printf("test-cpu-quant-simd: [%s] from_float: %d rows of Q8_0/Q8_1/Q8_K equal to the reference\n", lv, n_rows);
    free(f);
    free(a);
    free(b);
}

static void check_fp4_scales(void) {
    int bad = 0;
    for (int b = 0; b < 256; b++) {
        // every element's index 1 (E2M1 0.5, kept doubled as 1): to_float gives the half scale
        uint8_t nv[36], mx[17];
        memset(nv, 0x11, sizeof(nv));
        memset(nv, b, 4);
        memset(mx, 0x11, sizeof(mx));
        mx[0] = (uint8_t) b;
        float fn[64], fm[32];
        ggml_get_type_traits(GGML_TYPE_NVFP4)->to_float(nv, fn, 64);
        ggml_get_type_traits(GGML_TYPE_MXFP4)->to_float(mx, fm, 32);
        const float hn = ggml_cpu_ue4m3_half((uint8_t) b), hm = ggml_cpu_e8m0_half((uint8_t) b);
        bad += memcmp(&fn[0], &hn, sizeof(float)) != 0 || memcmp(&fn[63], &hn, sizeof(float)) != 0;
        bad += memcmp(&fm[0], &hm, sizeof(float)) != 0;
    }
    TEST_CHECK_MSG(bad == 0, "FP4 scale decoding: %d of 512 bytes differ from the dequantization", bad);
}

int main(void) {
    check_fp4_scales();
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        const char * lv = ggml_cpu_isa_name((enum ggml_cpu_isa_level) level);
        if (level > (int) top) {
            printf("test-cpu-quant-simd: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n", lv);
            continue;
        }
        const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level);
        const int n = check_vec_dot_level(kt, lv);
        TEST_CHECK_MSG(n >= 22, "[%s] only %d quantized slots", lv, n);
        check_from_float_level(kt, lv);
    }
    return test_finish("test-cpu-quant-simd");
}
