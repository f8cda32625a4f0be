// Quantized CPU kernels (docs/quantization.md, "CPU kernels"):
//   - ggml_get_type_traits_cpu: the family's activation pairing, empty traits for a bad type,
//     the row conversions of ggml-cpu.h;
//   - every quantized slot's vec_dot at every level this CPU runs (portable, AVX2, AVX-512;
//     levels above the CPU are skipped and reported) against a double dot of the dequantized
//     weight and activation rows, and against the portable kernel;
//   - MUL_MAT with quantized weights through a graph (decode and prompt shapes, a broadcast
//     batch, 2 threads, the level in use and reference mode) against the double-precision product
//     of the dequantized weights and the float activations: normalized squared error <= 5e-4;
//   - GET_ROWS of quantized rows and CPY quantized -> F32 (equal to to_float), SET_ROWS and CPY of
//     F32 rows into every type with a quantizer (bytes equal to from_float_ref).

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
    return (uint32_t) (g_rng >> 33);
}

static float rnd_gauss(void) {
    const double u1 = ((double) rnd_u32() + 1.0)/4294967296.0, u2 = (double) rnd_u32()/4294967296.0;
    return (float) (sqrt(-2.0*log(u1))*cos(6.283185307179586*u2));
}

static void log_quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) level; (void) text; (void) user;
}

// k weights of type t: quantized Gaussian values where the type has a quantizer, else random
// blocks whose scales ggml_validate_row_data accepts (the dequantize-only IQ formats, NVFP4)
static bool make_weights(enum ggml_type t, int64_t k, void * out) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    if (tr->from_float_ref != NULL) {
        float * x = malloc((size_t) k*sizeof(float));
        if (x == NULL) {
            return false;
        }
        for (int64_t i = 0; i < k; i++) {
            x[i] = rnd_gauss();
        }
        tr->from_float_ref(x, out, k);
        free(x);
        return true;
    }
    const int64_t nb = k/tr->blck_size;
    ggml_log_set(log_quiet, NULL); // the refused candidates are logged by ggml_validate_row_data
    for (int64_t b = 0; b < nb; b++) {
        uint8_t * blk = (uint8_t *) out + b*tr->type_size;
        for (int tries = 0; ; tries++) {
            for (size_t j = 0; j < tr->type_size; j++) {
                blk[j] = (uint8_t) rnd_u32();
            }
            if (ggml_validate_row_data(t, blk, tr->type_size)) {
                break;
            }
            if (tries > 1000) {
                ggml_log_set(NULL, NULL);
                return false;
            }
        }
    }
    ggml_log_set(NULL, NULL);
    return true;
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
    }
    free(xf);
    free(yf);
    *sabs = a;
    return s;
}

// Q8_1 activations carry s = d*sum(q) rounded to fp16, and the Q4_1/Q5_1 kernels use it for the
// min term (as the family's do): the reference adds what that rounding changes, m*(s - d*sum(q)).
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
        memcpy(&h[0], xb + 2, 2); // m follows d in both weight blocks
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

static void check_traits(void) {
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_Q4_0)->vec_dot_type == GGML_TYPE_Q8_0);
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_Q4_1)->vec_dot_type == GGML_TYPE_Q8_1);
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_Q4_K)->vec_dot_type == GGML_TYPE_Q8_K);
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_IQ4_NL)->vec_dot_type == GGML_TYPE_Q8_0);
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_F32)->vec_dot != NULL);
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_Q8_0)->from_float != NULL);
    TEST_CHECK(ggml_get_type_traits_cpu(GGML_TYPE_Q8_K)->from_float != NULL);
    const struct ggml_type_traits_cpu * bad = ggml_get_type_traits_cpu(GGML_TYPE_COUNT);
    TEST_CHECK(bad != NULL && bad->vec_dot == NULL && bad->from_float == NULL);

    float a[5] = { 1.5f, -2.25f, 3.0f, 1e-3f, -7.75f }, b[5];
    int32_t ib[5];
    ggml_cpu_fp32_to_fp32(a, b, 5);
    ggml_cpu_fp32_to_i32(a, ib, 5);
    TEST_CHECK(memcmp(a, b, sizeof(a)) == 0);
    TEST_CHECK(ib[0] == 1 && ib[1] == -2 && ib[2] == 3 && ib[3] == 0 && ib[4] == -7);
    // through the traits, as the family's kernel tests call them
    const struct ggml_type_traits_cpu * q = ggml_get_type_traits_cpu(GGML_TYPE_F32);
    float s = 0.0f;
    q->vec_dot(5, &s, 0, a, 0, b, 0, 1);
    TEST_CHECK(fabsf(s - (1.5f*1.5f + 2.25f*2.25f + 9.0f + 1e-6f + 7.75f*7.75f)) < 1e-4f);
}

static int check_vec_dot_level(const struct ggml_cpu_kernels * kt, const char * lv) {
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    const int64_t k = 1024;
    int n_types = 0;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const struct ggml_cpu_quant_kernels * q = &kt->quant[t];
        if (q->vec_dot == NULL) {
            continue;
        }
        n_types++;
        const enum ggml_type vt = q->vec_dot_type;
        TEST_CHECK_MSG(vt == kp->quant[t].vec_dot_type, "[%s] %s: activation type differs from portable's", lv, ggml_type_name((enum ggml_type) t));
        void * x = malloc(ggml_row_size((enum ggml_type) t, k));
        void * y = malloc(ggml_row_size(vt, k));
        float * yf = malloc((size_t) k*sizeof(float));
        TEST_CHECK(x != NULL && y != NULL && yf != NULL);
        if (x != NULL && y != NULL && yf != NULL) {
            for (int rep = 0; rep < 4; rep++) {
                const float scale = rep == 3 ? 1e-3f : 1.0f + (float) rep;
                for (int64_t i = 0; i < k; i++) {
                    yf[i] = scale*rnd_gauss();
                }
                TEST_CHECK_MSG(make_weights((enum ggml_type) t, k, x), "[%s] %s: weights", lv, ggml_type_name((enum ggml_type) t));
                kt->quant[vt].from_float(yf, y, k);
                double sabs;
                const double ref = dot_deq((enum ggml_type) t, x, vt, y, k, &sabs) + q8_1_s_correction((enum ggml_type) t, x, y, k);
                // the whole row, a 256-element prefix and, for the 32-blocks, an odd count of blocks
                const int64_t ns[3] = { k, 256, ggml_blck_size((enum ggml_type) t) == 32 ? 288 : 256 };
                for (int in = 0; in < 3; in++) {
                    const int64_t n = ns[in];
                    float s = NAN, sp = NAN;
                    q->vec_dot((int) n, &s, 0, x, 0, y, 0, 1);
                    kp->quant[t].vec_dot((int) n, &sp, 0, x, 0, y, 0, 1);
                    double r = ref, a = sabs;
                    if (n != k) {
                        r = dot_deq((enum ggml_type) t, x, vt, y, n, &a) + q8_1_s_correction((enum ggml_type) t, x, y, n);
                    }
                    const double tol = 2e-5*a + 1e-30;
                    TEST_CHECK_MSG(isfinite(s) && fabs(s - r) <= tol, "[%s] %s n=%d rep %d: %.9g vs double %.9g (tol %.3g)",
                                   lv, ggml_type_name((enum ggml_type) t), (int) n, rep, (double) s, r, tol);
                    TEST_CHECK_MSG(fabs((double) s - sp) <= 2.0*tol, "[%s] %s n=%d: %.9g vs portable %.9g",
                                   lv, ggml_type_name((enum ggml_type) t), (int) n, (double) s, (double) sp);
                }
            }
        }
        free(x);
        free(y);
        free(yf);
    }
    return n_types;
}

// MUL_MAT of a [K, N, 2, 1] quantized weight by [K, M, 4, 1] F32 activations (weights broadcast
// over dim 2), computed by the CPU graph path
static void check_mul_mat(enum ggml_type t, int64_t M, bool use_ref) {
    const int64_t K = 512, N = 40;
    const size_t mem = ggml_row_size(t, K)*N*2 + (size_t) (K*M*4 + N*M*4)*sizeof(float) + 64*ggml_tensor_overhead() +
                       ggml_graph_overhead() + 8*1024*1024;
    struct ggml_init_params ip = { mem, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx == NULL) {
        return;
    }
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, t, K, N, 2, 1);
    struct ggml_tensor * b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, K, M, 4, 1);
    TEST_CHECK(make_weights(t, K*N*2, a->data));
    float * bf = b->data;
    for (int64_t i = 0; i < K*M*4; i++) {
        bf[i] = rnd_gauss();
    }
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    struct ggml_cplan plan = ggml_graph_plan(gf, 2, NULL);
    plan.use_ref = use_ref;
    uint8_t * work = plan.work_size ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    const enum ggml_status st = ggml_graph_compute(gf, &plan);
    TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "mul_mat %s M=%d: status %d", ggml_type_name(t), (int) M, (int) st);

    float * af = malloc((size_t) (K*N*2)*sizeof(float));
    if (st == GGML_STATUS_SUCCESS && af != NULL) {
        ggml_get_type_traits(t)->to_float(a->data, af, K*N*2);
        double err = 0.0, ref2 = 0.0;
        const float * cf = c->data;
        for (int64_t i2 = 0; i2 < 4; i2++) {
            for (int64_t m = 0; m < M; m++) {
                for (int64_t n = 0; n < N; n++) {
                    const float * ar = af + ((i2/2)*N + n)*K;
                    const float * br = bf + (i2*M + m)*K;
                    double r = 0.0;
                    for (int64_t kk = 0; kk < K; kk++) {
                        r += (double) ar[kk]*br[kk];
                    }
                    const double d = cf[(i2*M + m)*N + n] - r;
                    err += d*d;
                    ref2 += r*r;
                }
            }
        }
        const double nmse = err/(ref2 > 0 ? ref2 : 1.0);
        TEST_CHECK_MSG(nmse <= 5e-4 && ref2 > 0, "mul_mat %s M=%d ref=%d: normalized error %.3g", ggml_type_name(t), (int) M,
                       (int) use_ref, nmse);
    }
    free(af);
    free(work);
    ggml_free(ctx);
}

// GET_ROWS of quantized rows (dequantized, bit for bit as to_float) and SET_ROWS of F32 rows into a
// quantized tensor (bytes as from_float_ref), through a 2-thread graph
static void check_rows(enum ggml_type t) {
    const int64_t K = 512, R = 6;
    struct ggml_init_params ip = { 4*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx == NULL) {
        return;
    }
    const bool quantizer = ggml_get_type_traits(t)->from_float_ref != NULL;
    struct ggml_tensor * a   = ggml_new_tensor_2d(ctx, t, K, R);
    struct ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
    struct ggml_tensor * src = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, 3);
    TEST_CHECK(make_weights(t, K*R, a->data));
    const int32_t rows[3] = { 4, 0, 2 };
    memcpy(idx->data, rows, sizeof(rows));
    for (int64_t i = 0; i < K*3; i++) {
        ((float *) src->data)[i] = rnd_gauss();
    }
    struct ggml_tensor * g = ggml_get_rows(ctx, a, idx);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, g);
    struct ggml_tensor * d = NULL;
    if (quantizer) {
        struct ggml_tensor * dst = ggml_new_tensor_2d(ctx, t, K, R);
        memset(dst->data, 0, ggml_nbytes(dst));
        d = ggml_set_rows(ctx, dst, src, idx);
        ggml_build_forward_expand(gf, d);
    }
    struct ggml_tensor * cq = NULL, * cf = NULL; // CPY F32 -> t, CPY t -> F32
    if (quantizer) {
        cq = ggml_cpy(ctx, src, ggml_new_tensor_2d(ctx, t, K, 3));
        ggml_build_forward_expand(gf, cq);
    }
    cf = ggml_cpy(ctx, a, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, R));
    ggml_build_forward_expand(gf, cf);
    TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gf, 2) == GGML_STATUS_SUCCESS, "get/set_rows %s", ggml_type_name(t));
    const size_t rs = ggml_row_size(t, K);
    float * ref = malloc((size_t) K*sizeof(float));
    uint8_t * q = malloc(rs);
    for (int r = 0; r < 3 && ref != NULL && q != NULL; r++) {
        ggml_get_type_traits(t)->to_float((const char *) a->data + rows[r]*rs, ref, K);
        TEST_CHECK_MSG(memcmp(ref, (const float *) g->data + r*K, (size_t) K*sizeof(float)) == 0, "get_rows %s row %d",
                       ggml_type_name(t), r);
        TEST_CHECK_MSG(memcmp(ref, (const float *) cf->data + rows[r]*K, (size_t) K*sizeof(float)) == 0, "cpy %s -> f32 row %d",
                       ggml_type_name(t), r);
        if (d != NULL) {
            ggml_get_type_traits(t)->from_float_ref((const float *) src->data + r*K, q, K);
            TEST_CHECK_MSG(memcmp(q, (const char *) d->data + rows[r]*rs, rs) == 0, "set_rows %s row %d", ggml_type_name(t), r);
            TEST_CHECK_MSG(memcmp(q, (const char *) cq->data + r*rs, rs) == 0, "cpy f32 -> %s row %d", ggml_type_name(t), r);
        }
    }
    free(ref);
    free(q);
    ggml_free(ctx);
}

int main(void) {
    check_traits();
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        const char * lv = ggml_cpu_isa_name((enum ggml_cpu_isa_level) level);
        if (level > (int) top) {
            printf("test-cpu-quant: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n", lv);
            continue;
        }
        const int n = check_vec_dot_level(ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level), lv);
        printf("test-cpu-quant: [%s] vec_dot of %d quantized types checked\n", lv, n);
        TEST_CHECK_MSG(n >= 24, "[%s] only %d quantized slots", lv, n);
    }
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (kp->quant[t].vec_dot == NULL) {
            continue;
        }
        check_mul_mat((enum ggml_type) t, 1, false);
        check_mul_mat((enum ggml_type) t, 37, false);
        check_mul_mat((enum ggml_type) t, 3, true);
        check_rows((enum ggml_type) t);
    }
    return test_finish("test-cpu-quant");
}
