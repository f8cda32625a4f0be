// Checks the CPU kernel tables (src/ggml-cpu/cpu-kernels.h) at every SIMD level this CPU runs
// (levels above GGML_CPU_ISA or the CPU are skipped and reported):
//   - every table is complete after the gap filling (no NULL kernel), names its level, and the
//     matrix-product kernel set's tile fits the driver's limits; every filled quantized slot's activation type has a quantizer;
//   - the attention, conv, rope and Walsh-Hadamard kernels of the table against double-precision sums, for every
//     attention row slot, the three K/V types and lengths with vector tails;
//   - an unknown type cannot reach the matrix-product kernels: ggml_mm_type_size answers 0 for
//     every type but F32/F16/BF16 and the CPU backend refuses MUL_MAT with quantized weights that
//     have no quantized slot (Q8_1, an activation type), admits those that do (Q4_0:
//     cpu-ops-matmul-quant.c).

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static float rnd(void) {
    return (float) test_rand_uniform(-1.0, 1.0);
}

static void check_complete(const struct ggml_cpu_kernels * kt, const char * lv) {
    const struct ggml_vec_funcs * v = kt->vec;
    TEST_CHECK_MSG(kt->name != NULL && v != NULL && kt->mm != NULL, "[%s] table members", lv);
    if (v == NULL || kt->mm == NULL) {
        return;
    }
    const bool vec_ok = v->add_f32 && v->sub_f32 && v->mul_f32 && v->div_f32 && v->scale_f32 && v->mad_f32 &&
        v->clamp_f32 && v->leaky_relu_f32 && v->dot_f32 && v->sum_f32 && v->sumsq_f32 && v->max_f32 &&
        v->argmax_f32 && v->exp_f32 && v->expm1_f32 && v->tanh_f32 && v->sigmoid_f32 && v->silu_f32 &&
        v->gelu_f32 && v->gelu_quick_f32 && v->gelu_erf_f32 && v->soft_max_f32 && v->swiglu_f32 && v->relu_f32 && v->abs_f32 &&
        v->neg_f32 && v->sgn_f32 && v->step_f32 && v->sqr_f32 && v->sqrt_f32 && v->hardsigmoid_f32 &&
        v->hardswish_f32 && v->floor_f32 && v->ceil_f32 && v->round_f32 && v->trunc_f32 && v->f16_to_f32 &&
        v->f32_to_f16 && v->bf16_to_f32 && v->f32_to_bf16;
    TEST_CHECK_MSG(vec_ok, "[%s] a row helper is missing", lv);
    const struct ggml_mm_kernels * mm = kt->mm;
    TEST_CHECK_MSG(mm->kernel && mm->pack_a && mm->gemv && mm->mr >= 1 && mm->mr <= GGML_MM_MR_MAX &&
                   mm->nr >= 1 && mm->nr <= GGML_MM_NR_MAX && GGML_MM_NC % mm->nr == 0,
                   "[%s] matrix-product kernel set (mr %d, nr %d)", lv, mm->mr, mm->nr);
    for (int r = 1; r <= GGML_CPU_ATTN_ROWS; r++) {
        TEST_CHECK_MSG(kt->attn_dot[r] != NULL && kt->attn_axpy[r] != NULL, "[%s] attention slot %d", lv, r);
    }
    TEST_CHECK_MSG(kt->conv2d_tile && kt->rope_normal && kt->rope_half, "[%s] conv/rope kernels", lv);
    TEST_CHECK_MSG(kt->fwht != NULL, "[%s] Walsh-Hadamard transform", lv);
    TEST_CHECK_MSG(kt->gemv_cols != NULL, "[%s] few-columns matrix product", lv);
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (kt->quant[t].vec_dot != NULL) {
            const enum ggml_type vt = kt->quant[t].vec_dot_type;
            TEST_CHECK_MSG(vt < GGML_TYPE_COUNT && kt->quant[vt].from_float != NULL,
                           "[%s] quantized slot %s: activation type without a quantizer", lv, ggml_type_name((enum ggml_type) t));
        }
    }
}

// an element of type t holding (the rounding of) x, and its value back as float
static float store_elem(enum ggml_type t, void * p, float x) {
    switch (t) {
        case GGML_TYPE_F16: {
            const ggml_fp16_t h = ggml_fp32_to_fp16(x);
            memcpy(p, &h, sizeof(h));
            return ggml_fp16_to_fp32(h);
        }
        case GGML_TYPE_BF16: {
            const ggml_bf16_t h = ggml_fp32_to_bf16(x);
            memcpy(p, &h, sizeof(h));
            return ggml_bf16_to_fp32(h);
        }
        default:
            memcpy(p, &x, sizeof(x));
            return x;
    }
}

#define MAXN 300

static void check_attn(const struct ggml_cpu_kernels * kt, const char * lv) {
    static const enum ggml_type types[3] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    static const int lens[] = { 1, 7, 8, 15, 16, 17, 64, 130, MAXN };
    static float q[GGML_CPU_ATTN_ROWS][MAXN], acc[GGML_CPU_ATTN_ROWS][MAXN], acc0[GGML_CPU_ATTN_ROWS][MAXN];
    static float yv[MAXN];
    static char  y[MAXN*4];
    double worst = 0.0;
    for (int ti = 0; ti < 3; ti++) {
        const enum ggml_type t = types[ti];
        for (size_t li = 0; li < sizeof(lens)/sizeof(lens[0]); li++) {
            const int n = lens[li];
            for (int i = 0; i < n; i++) {
                yv[i] = store_elem(t, y + (size_t) i*ggml_type_size(t), rnd());
            }
            for (int nr = 1; nr <= GGML_CPU_ATTN_ROWS; nr++) {
                const float * qp[GGML_CPU_ATTN_ROWS];
                float * ap[GGML_CPU_ATTN_ROWS];
                float w[GGML_CPU_ATTN_ROWS], out[GGML_CPU_ATTN_ROWS];
                for (int r = 0; r < nr; r++) {
                    for (int i = 0; i < n; i++) {
                        q[r][i]   = rnd();
                        acc0[r][i] = acc[r][i] = rnd();
                    }
                    qp[r] = q[r];
                    ap[r] = acc[r];
                    w[r]  = rnd();
                }
                kt->attn_dot[nr](n, qp, y, t, out);
                kt->attn_axpy[nr](n, w, y, t, ap);
                for (int r = 0; r < nr; r++) {
                    double ref = 0.0, mag = 0.0;
                    for (int i = 0; i < n; i++) {
                        ref += (double) q[r][i]*yv[i];
                        mag += fabs((double) q[r][i]*yv[i]);
                    }
                    const double e = fabs(out[r] - ref)/(mag + 1e-30);
                    worst = e > worst ? e : worst;
                    TEST_CHECK_MSG(e <= 1e-6, "[%s] attn_dot[%d] %s n=%d row %d: error %.3g of the magnitude",
                                   lv, nr, ggml_type_name(t), n, r, e);
                    for (int i = 0; i < n; i++) {
                        const double want = (double) acc0[r][i] + (double) w[r]*yv[i];
                        const double ea = fabs(acc[r][i] - want)/(fabs(acc0[r][i]) + fabs((double) w[r]*yv[i]) + 1e-30);
                        TEST_CHECK_MSG(ea <= 1.2e-7, "[%s] attn_axpy[%d] %s n=%d row %d elem %d: error %.3g",
                                       lv, nr, ggml_type_name(t), n, r, i, ea);
                        if (ea > 1.2e-7) {
                            return;
                        }
                    }
                }
            }
        }
    }
    printf("[%s] attention kernels: worst dot error %.3g of the magnitude\n", lv, worst);
}

static void check_conv(const struct ggml_cpu_kernels * kt, const char * lv) {
    enum { K = 37, P = 40 };
    static float wk[4][K], cols[K*P];
    for (int o = 0; o < 4; o++) {
        for (int k = 0; k < K; k++) {
            wk[o][k] = rnd();
        }
    }
    for (int i = 0; i < K*P; i++) {
        cols[i] = rnd();
    }
    const float * const w[4] = { wk[0], wk[1], wk[2], wk[3] };
    for (int p0 = 0; p0 + 16 <= P; p0 += 12) {
        float out[4][16];
        kt->conv2d_tile(K, w, cols, P, p0, out);
        for (int o = 0; o < 4; o++) {
            for (int p = 0; p < 16; p++) {
                double ref = 0.0, mag = 0.0;
                for (int k = 0; k < K; k++) {
                    ref += (double) wk[o][k]*cols[k*P + p0 + p];
                    mag += fabs((double) wk[o][k]*cols[k*P + p0 + p]);
                }
                const double e = fabs(out[o][p] - ref)/mag;
                TEST_CHECK_MSG(e <= 1e-6, "[%s] conv2d_tile p0=%d o=%d p=%d: error %.3g", lv, p0, o, p, e);
                if (e > 1e-6) {
                    return;
                }
            }
        }
    }
}

static void check_rope(const struct ggml_cpu_kernels * kt, const char * lv) {
    static float x[MAXN], y[MAXN], c[MAXN], s[MAXN];
    static const int lens[] = { 2, 6, 8, 16, 18, 34, 128 };
    for (size_t li = 0; li < sizeof(lens)/sizeof(lens[0]); li++) {
        const int n = lens[li];
        for (int i = 0; i < 2*n; i++) {
            x[i] = rnd();
            const double a = 3.0*rnd();
            c[i] = (float) cos(a);
            s[i] = (float) sin(a);
        }
        // NORMAL over n elements (y may be x: checked with a separate y here, in place by the op tests)
        kt->rope_normal(n, x, y, c, s);
        for (int j = 0; j < n; j += 2) {
            const double r0 = (double) x[j]*c[j] + (double) x[j + 1]*s[j];
            const double r1 = (double) x[j + 1]*c[j + 1] + (double) x[j]*s[j + 1];
            TEST_CHECK_MSG(fabs(y[j] - r0) <= 3e-7 && fabs(y[j + 1] - r1) <= 3e-7, "[%s] rope_normal n=%d j=%d", lv, n, j);
        }
        // half pairs (p, p + n) for p < n
        kt->rope_half(n, n, x, y, c, s);
        for (int p = 0; p < n; p++) {
            const double r0 = (double) x[p]*c[p] - (double) x[p + n]*s[p];
            const double r1 = (double) x[p]*s[p] + (double) x[p + n]*c[p];
            TEST_CHECK_MSG(fabs(y[p] - r0) <= 3e-7 && fabs(y[p + n] - r1) <= 3e-7, "[%s] rope_half n=%d p=%d", lv, n, p);
        }
    }
}

// fwht: y = H (s x) against double sums over the Sylvester matrix (|error| <= 1e-6 * sum |s x|:
// log2(n) <= 10 rounded stages), and bit for bit equal to the portable level's, out of place and in
// place, for n = 1 .. 1024 (below one vector, odd and even stage counts after the first vector)
static void check_fwht(const struct ggml_cpu_kernels * kt, const char * lv) {
    enum { FN = 1024 };
    static float x[FN], y[FN], z[FN], w[FN];
    const struct ggml_cpu_kernels * ref = ggml_cpu_kernels_level(GGML_CPU_ISA_PORTABLE);
    for (int n = 1; n <= FN; n *= 2) {
        const float s = n == 4 ? 1.0f : 1.0f/sqrtf((float) n);
        for (int i = 0; i < n; i++) {
            x[i] = rnd();
            w[i] = x[i];
        }
        kt->fwht(n, y, x, s);
        ref->fwht(n, z, x, s);
        kt->fwht(n, w, w, s);
        int bad = 0;
        for (int r = 0; r < n; r++) {
            double want = 0.0, mag = 0.0;
            for (int i = 0; i < n; i++) {
                int odd = 0;
                for (unsigned v = (unsigned) (r & i); v != 0; v &= v - 1) {
                    odd ^= 1;
                }
                const double t = (double) (x[i]*s);
                want += odd ? -t : t;
                mag  += fabs(t);
            }
            if (!(fabs(y[r] - want) <= 1e-6*mag) || memcmp(&y[r], &z[r], sizeof(float)) != 0 ||
                memcmp(&y[r], &w[r], sizeof(float)) != 0) {
                bad++;
            }
        }
        TEST_CHECK_MSG(bad == 0, "[%s] fwht n=%d: %d of %d elements wrong or not the portable level's bits", lv, n, bad, n);
    }
}

// gemv_cols against double sums: every nb 1..GGML_MM_COLS_MAX, the three weight types, K with
// vector tails and across the kernels' k blocks, row counts around their 3/4-row tiles, ldo > nn.
// Bound: |got - ref| <= 1e-5 * sum |a*b| (float accumulation of K terms, K <= 4099).
// gemv_cols_h (where the level has it) the same way, its first nh rows of B from F16 copies
// (nh = 0, 4, nb and nb - 3: passes of F16 rows, of float rows and both mixed); the reference
// uses the F16 values, so the bound is the same (the rounding to F16 is the caller's, checked in
// test-cpu-matmul). A sixth pass: gemv_cols with rows of B one float off their alignment.
static void check_gemv_cols(const struct ggml_cpu_kernels * kt, const char * lv) {
    enum { CK = 4099, CN = 13, CLDO = 16 };
    static unsigned char araw[CN*CK*4];
    static float         afl[CN*CK];
    static float         bm[GGML_MM_COLS_MAX][CK];
    static ggml_fp16_t   bh[GGML_MM_COLS_MAX][CK];
    static float         bhf[GGML_MM_COLS_MAX][CK]; // bh as floats
    static float         out[GGML_MM_COLS_MAX*CLDO];
    static const int     ks[] = { 1, 7, 37, 2053, 4099 };
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    for (size_t ti = 0; ti < 3; ti++) {
        const enum ggml_type t  = types[ti];
        const size_t         es = ggml_type_size(t);
        for (size_t ki = 0; ki < sizeof(ks)/sizeof(ks[0]); ki++) {
            const int K = ks[ki];
            for (int i = 0; i < CN*K; i++) {
                afl[i] = store_elem(t, araw + (size_t) i*es, rnd());
            }
            const float *       bp[GGML_MM_COLS_MAX];
            const ggml_fp16_t * bhp[GGML_MM_COLS_MAX];
            for (int m = 0; m < GGML_MM_COLS_MAX; m++) {
                for (int k = 0; k < K; k++) {
                    bm[m][k]  = rnd();
                    bhf[m][k] = store_elem(GGML_TYPE_F16, &bh[m][k], rnd());
                }
                bp[m]  = bm[m];
                bhp[m] = bh[m];
            }
            const struct ggml_mm_src a = { (const char *) araw, t, (int64_t) es*K, (int64_t) es };
            for (int nb = 1; nb <= GGML_MM_COLS_MAX; nb++) {
                const int nhs[] = { -1, 0, nb < 4 ? nb : 4, nb, nb > 3 ? nb - 3 : 0, -1 }; // -1: gemv_cols
                for (int hi = 0; hi < 6; hi++) {
                    const int nh  = nhs[hi];
                    const int off = hi == 5; // B rows from element 1: not 32-byte aligned
                    if ((nh >= 0 && kt->gemv_cols_h == NULL) || (off && K == CK)) {
                        continue;
                    }
                    const float * bo[GGML_MM_COLS_MAX];
                    for (int m = 0; m < GGML_MM_COLS_MAX; m++) {
                        bo[m] = bm[m] + off;
                    }
                    const int nn = 1 + (nb*5 + hi) % CN; // 1 .. 13 rows, starting at row 13 - nn
                    const int n0 = CN - nn;
                    for (int i = 0; i < GGML_MM_COLS_MAX*CLDO; i++) {
                        out[i] = -12345.0f;
                    }
                    if (nh < 0) {
                        kt->gemv_cols(&a, n0, nn, K, bo, nb, out, CLDO);
                    } else {
                        kt->gemv_cols_h(&a, n0, nn, K, bp, bhp, nh, nb, out, CLDO);
                    }
                    int bad = 0;
                    for (int m = 0; m < nb; m++) {
                        const float * brow = m < nh ? bhf[m] : bm[m] + off;
                        for (int i = 0; i < nn; i++) {
                            double ref = 0.0, mag = 0.0;
                            for (int k = 0; k < K; k++) {
                                const double p = (double) afl[(n0 + i)*K + k]*brow[k];
                                ref += p;
                                mag += fabs(p);
                            }
                            bad += !(fabs(out[m*CLDO + i] - ref) <= 1e-5*mag);
                        }
                        for (int i = nn; i < CLDO; i++) {
                            bad += out[m*CLDO + i] != -12345.0f; // nothing written past nn
                        }
                    }
                    TEST_CHECK_MSG(bad == 0, "[%s] gemv_cols%s %s K=%d nb=%d nh=%d nn=%d: %d wrong", lv, nh < 0 ? "" : "_h",
                                   ggml_type_name(t), K, nb, nh, nn, bad);
                }
            }
        }
    }
}

static void check_types(void) {
    int n_mm = 0;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const size_t es = ggml_mm_type_size((enum ggml_type) t);
        if (t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) {
            TEST_CHECK_MSG(es == ggml_type_size((enum ggml_type) t), "ggml_mm_type_size(%s)", ggml_type_name((enum ggml_type) t));
            n_mm++;
        } else {
            TEST_CHECK_MSG(es == 0, "ggml_mm_type_size(type %d) = %zu, expected 0", t, es);
        }
    }
    TEST_CHECK(n_mm == 3);

    // the CPU backend refuses MUL_MAT with quantized weights without a kernel table slot
    struct ggml_init_params ip = { 16*ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_t be = ggml_backend_cpu_init();
    TEST_CHECK(ctx != NULL && be != NULL);
    if (ctx != NULL && be != NULL) {
        struct ggml_tensor * b  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
        struct ggml_tensor * wn = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_1, 64, 5);
        struct ggml_tensor * wq = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 64, 5);
        struct ggml_tensor * wh = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 5);
        TEST_CHECK(!ggml_backend_supports_op(be, ggml_mul_mat(ctx, wn, b)));
        TEST_CHECK(ggml_backend_supports_op(be, ggml_mul_mat(ctx, wq, b)));
        TEST_CHECK(ggml_backend_supports_op(be, ggml_mul_mat(ctx, wh, b)));
    }
    ggml_backend_free(be);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        const char * lv = ggml_cpu_isa_name((enum ggml_cpu_isa_level) level);
        if (level > (int) top) {
            printf("test-cpu-kernels: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n", lv);
            continue;
        }
        const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level);
        TEST_CHECK_MSG(kt != NULL && (int) kt->level == level && (int) kt->vec->level == level, "[%s] table level", lv);
        check_complete(kt, lv);
        check_attn(kt, lv);
        check_conv(kt, lv);
        check_rope(kt, lv);
        check_fwht(kt, lv);
        check_gemv_cols(kt, lv);
    }
    TEST_CHECK(ggml_cpu_kernels_get(true)->level == GGML_CPU_ISA_PORTABLE);
    TEST_CHECK(ggml_cpu_kernels_get(false)->level == top);
    TEST_CHECK(ggml_cpu_kernels_level(GGML_CPU_ISA_AVX512)->level <= top);
    check_types();
    return test_finish("test-cpu-kernels");
}
