// Checks the CPU row helpers (src/ggml-cpu/ggml-cpu-vec.h) at every SIMD level this CPU runs
// (portable, AVX2, AVX-512; the levels above GGML_CPU_ISA or the CPU are skipped and reported):
//   - activations against double-precision formulas with the error bounds the header states,
//     on dense sweeps and on special values (NaN, infinities, signed zeros, tiny and huge inputs);
//   - exact operations (arithmetic, simple maps, conversions) bit for bit against scalar C;
//   - reductions against double sums, ARGMAX tie and NaN rules, every length 0..70 (vector tails)
//     and the in-place (aliased) forms.

#include "ggml.h"
#include "ggml-cpu/ggml-cpu-vec.h"
#include "test-common.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef void (*map_fn)(int64_t, float *, const float *);

static double ref_sigmoid(double x) { return 1.0/(1.0 + exp(-x)); }
static double ref_silu(double x) { return x*ref_sigmoid(x); }
static double ref_gelu_quick(double x) { return x*ref_sigmoid(1.702*x); }
// 0.5x(1 + tanh u) written as x*sigmoid(2u), which double evaluates without cancellation
static double ref_gelu(double x) { return x*ref_sigmoid(2.0*0.79788456080286535588*x*(1.0 + 0.044715*x*x)); }
static double ref_gelu_erf(double x) { return 0.5*x*erfc(-x/sqrt(2.0)); }

static bool same_float(float a, float b) {
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

//
// activations: relative error against the stated bounds
//

struct act_case {
    const char * name;
    map_fn       fn;
    double     (*ref)(double);
    double       lo, hi;     // sweep range
    double       bound;      // relative error bound
    double       arg_coef;   // the bound grows by arg_coef*|argument of the exponential| ...
    double     (*arg)(double); // ... given by this (NULL: constant bound)
};

static double arg_gelu(double x) { return fabs(2.0*0.79788456080286535588*x*(1.0 + 0.044715*x*x)); }
static double arg_gelu_quick(double x) { return fabs(1.702*x); }
static double arg_erf(double x) { return x*x/2.0; }

static void check_activation(const struct ggml_vec_funcs * vf, const struct act_case * c, float * x, float * y, int n) {
    double max_err = 0.0, max_excess = 0.0;
    float  at = 0.0f;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            if (pass == 0) {
                x[i] = (float) (c->lo + (c->hi - c->lo)*i/(n - 1.0));
            } else {
                // magnitudes from 1e-30 to 1, both signs
                x[i] = (float) ((i % 2 ? -1.0 : 1.0)*pow(10.0, -30.0 + 30.0*i/(n - 1.0)));
            }
        }
        c->fn(n, y, x);
        for (int i = 0; i < n; i++) {
            const double r = c->ref(x[i]);
            const double e     = fabs((y[i] - r)/r);
            const double bound = c->bound + (c->arg != NULL ? c->arg_coef*c->arg(x[i]) : 0.0);
            if (fabs(r) < 1e-30) {
                // below the bounds' range: 2e-5 relative (or the bound, if larger), or FLT_MIN absolute
                if (fabs(y[i] - r) > fmax(FLT_MIN, fmax(2e-5, bound)*fabs(r))) {
                    max_excess = INFINITY;
                    at = x[i];
                }
                continue;
            }
            if (e > max_err) {
                max_err = e;
            }
            if (e/bound > max_excess) {
                max_excess = e/bound;
                at = x[i];
            }
        }
    }
    TEST_CHECK_MSG(max_excess <= 1.0, "[%s] %s: error %.3g times its bound (worst at x = %.9g); max relative error %.3g",
            ggml_cpu_isa_name(vf->level), c->name, max_excess, (double) at, max_err);
}

static void test_activations(const struct ggml_vec_funcs * vf) {
    const bool portable = vf->level == GGML_CPU_ISA_PORTABLE;
    const struct act_case cases[] = {
        { "exp",        vf->exp_f32,        exp,            -103.0, 88.7, 2e-7, 0, NULL },
        { "expm1",      vf->expm1_f32,      expm1,          -20.0,  20.0, 2e-7, 0, NULL },
        { "tanh",       vf->tanh_f32,       tanh,           -12.0,  12.0, 3e-7, 0, NULL },
        { "sigmoid",    vf->sigmoid_f32,    ref_sigmoid,    -87.0,  40.0, 3e-7, 0, NULL },
        { "silu",       vf->silu_f32,       ref_silu,       -85.0,  40.0, 3e-7, 0, NULL },
        { "gelu_quick", vf->gelu_quick_f32, ref_gelu_quick, -50.0,  30.0, 3e-7, 8e-8, arg_gelu_quick },
        { "gelu",       vf->gelu_f32,       ref_gelu,       -11.0,  12.0, 3e-7, 2e-7, arg_gelu },
        { "gelu_erf",   vf->gelu_erf_f32,   ref_gelu_erf,   -13.0,  12.0, portable ? 3e-7 : 5e-7,
            portable ? 2e-7 : 0.0, portable ? arg_erf : NULL },
    };
    const int n = 200003;
    float * x = malloc(n*sizeof(float));
    float * y = malloc(n*sizeof(float));
    if (!TEST_CHECK(x != NULL && y != NULL)) {
        free(x);
        free(y);
        return;
    }
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        check_activation(vf, &cases[i], x, y, n);
    }

    // special values, through every function, in a row long enough for the vector path
    const float sp[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, 1e30f, -1e30f, 200.0f, -200.0f,
        FLT_MAX, -FLT_MAX, 88.5f, -87.5f, -103.5f, 1.0f, -1.0f };
    const int ns = (int) (sizeof(sp)/sizeof(sp[0]));
    float r[64];
    struct { const char * name; map_fn fn; float expect[18]; } sv[] = {
        { "exp",     vf->exp_f32,     { NAN, INFINITY, 0.0f, 1.0f, 1.0f, 1.0f, 1.0f, INFINITY, 0.0f, INFINITY, 0.0f,
                                        INFINITY, 0.0f, expf(88.5f), expf(-87.5f), expf(-103.5f), expf(1.0f), expf(-1.0f) } },
        { "expm1",   vf->expm1_f32,   { NAN, INFINITY, -1.0f, 0.0f, -0.0f, 1e-40f, -1e-40f, INFINITY, -1.0f, INFINITY, -1.0f,
                                        INFINITY, -1.0f, expm1f(88.5f), -1.0f, -1.0f, expm1f(1.0f), expm1f(-1.0f) } },
        { "tanh",    vf->tanh_f32,    { NAN, 1.0f, -1.0f, 0.0f, -0.0f, 1e-40f, -1e-40f, 1.0f, -1.0f, 1.0f, -1.0f,
                                        1.0f, -1.0f, 1.0f, -1.0f, -1.0f, tanhf(1.0f), tanhf(-1.0f) } },
        { "sigmoid", vf->sigmoid_f32, { NAN, 1.0f, 0.0f, 0.5f, 0.5f, 0.5f, 0.5f, 1.0f, 0.0f, 1.0f, 0.0f,
                                        1.0f, 0.0f, 1.0f, (float) ref_sigmoid(-87.5), (float) ref_sigmoid(-103.5),
                                        (float) ref_sigmoid(1.0), (float) ref_sigmoid(-1.0) } },
        { "silu",    vf->silu_f32,    { NAN, INFINITY, NAN, 0.0f, -0.0f, 5e-41f, -5e-41f, 1e30f, -0.0f, 200.0f, -0.0f,
                                        FLT_MAX, -0.0f, 88.5f, (float) ref_silu(-87.5), (float) ref_silu(-103.5),
                                        (float) ref_silu(1.0), (float) ref_silu(-1.0) } },
        { "gelu",    vf->gelu_f32,    { NAN, INFINITY, NAN, 0.0f, -0.0f, 5e-41f, -5e-41f, 1e30f, -0.0f, 200.0f, -0.0f,
                                        FLT_MAX, -0.0f, 88.5f, -0.0f, -0.0f, (float) ref_gelu(1.0), (float) ref_gelu(-1.0) } },
        { "gelu_erf", vf->gelu_erf_f32, { NAN, INFINITY, NAN, 0.0f, -0.0f, 5e-41f, -5e-41f, 1e30f, -0.0f, 200.0f, -0.0f,
                                        FLT_MAX, -0.0f, 88.5f, -0.0f, -0.0f, (float) ref_gelu_erf(1.0), (float) ref_gelu_erf(-1.0) } },
    };
    for (size_t k = 0; k < sizeof(sv)/sizeof(sv[0]); k++) {
        // twice: lanes of a full vector and of a tail
        float in[64];
        for (int i = 0; i < 64; i++) {
            in[i] = sp[i % ns];
        }
        sv[k].fn(64, r, in);
        for (int i = 0; i < 64; i++) {
            const float e = sv[k].expect[i % ns];
            const float g = r[i];
            bool ok;
            if (isnan(e)) {
                ok = isnan(g);
            } else if (isinf(e)) {
                ok = g == e;
            } else if (fabsf(e) < FLT_MIN) {
                ok = fabsf(g - e) <= FLT_MIN; // zeros and subnormal results: absolute error
            } else {
                ok = fabs((double) g - e) <= 1e-6*fabs(e);
            }
            TEST_CHECK_MSG(ok, "[%s] %s(%g) = %.9g, expected %.9g", ggml_cpu_isa_name(vf->level), sv[k].name,
                    (double) in[i], (double) g, (double) e);
        }
    }
    free(x);
    free(y);
}

//
// exact operations
//

static float s_add(float a, float b) { return a + b; }
static float s_sub(float a, float b) { return a - b; }
static float s_mul(float a, float b) { return a * b; }
static float s_div(float a, float b) { return a / b; }

static float s_relu(float x) { return x > 0.0f ? x : 0.0f; }
static float s_abs(float x) { return fabsf(x); }
static float s_neg(float x) { return -x; }
static float s_sgn(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
static float s_step(float x) { return x > 0.0f ? 1.0f : 0.0f; }
static float s_sqr(float x) { return x*x; }
static float s_sqrt(float x) { return sqrtf(x); }
static float s_hsig(float x) { const float v = (x + 3.0f)/6.0f; return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }
static float s_hswish(float x) { return x*s_hsig(x); }

static void fill_random(float * x, int n, double lo, double hi) {
    for (int i = 0; i < n; i++) {
        x[i] = (float) test_rand_uniform(lo, hi);
    }
}

static void test_exact(const struct ggml_vec_funcs * vf) {
    const char * lv = ggml_cpu_isa_name(vf->level);
    enum { N = 71 };
    float x[N], y[N], z[N], w[N];

    struct { const char * name; void (*fn)(int64_t, float *, const float *, const float *); float (*s)(float, float); } bin[] = {
        { "add", vf->add_f32, s_add }, { "sub", vf->sub_f32, s_sub }, { "mul", vf->mul_f32, s_mul }, { "div", vf->div_f32, s_div },
    };
    for (size_t k = 0; k < sizeof(bin)/sizeof(bin[0]); k++) {
        bool ok = true;
        for (int n = 0; n <= N; n++) {
            fill_random(x, N, -10.0, 10.0);
            fill_random(y, N, 0.5, 3.0);
            for (int i = 0; i < N; i++) {
                z[i] = -12345.0f; // beyond n must stay untouched
            }
            bin[k].fn(n, z, x, y);
            for (int i = 0; i < N; i++) {
                ok = ok && same_float(z[i], i < n ? bin[k].s(x[i], y[i]) : -12345.0f);
            }
            // in place: z = x op z
            memcpy(w, y, sizeof(w));
            bin[k].fn(n, w, x, w);
            for (int i = 0; i < n; i++) {
                ok = ok && same_float(w[i], bin[k].s(x[i], y[i]));
            }
        }
        TEST_CHECK_MSG(ok, "[%s] %s differs from scalar float arithmetic", lv, bin[k].name);
    }

    struct { const char * name; map_fn fn; float (*s)(float); } maps[] = {
        { "relu", vf->relu_f32, s_relu }, { "abs", vf->abs_f32, s_abs }, { "neg", vf->neg_f32, s_neg },
        { "sgn", vf->sgn_f32, s_sgn }, { "step", vf->step_f32, s_step }, { "sqr", vf->sqr_f32, s_sqr },
        { "sqrt", vf->sqrt_f32, s_sqrt }, { "hardsigmoid", vf->hardsigmoid_f32, s_hsig },
        { "hardswish", vf->hardswish_f32, s_hswish }, { "floor", vf->floor_f32, floorf }, { "ceil", vf->ceil_f32, ceilf },
        { "round", vf->round_f32, roundf }, { "trunc", vf->trunc_f32, truncf },
    };
    const float sp[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f,
        -0.49999997f, 8388607.5f, -8388607.5f, 16777216.0f, 1e-40f, -3.0f, 3.0f };
    const int nsp = (int) (sizeof(sp)/sizeof(sp[0]));
    for (size_t k = 0; k < sizeof(maps)/sizeof(maps[0]); k++) {
        bool ok = true;
        int bad = -1;
        for (int n = 0; n <= N; n++) {
            for (int i = 0; i < N; i++) {
                x[i] = i % 3 == 0 ? sp[(i/3 + n) % nsp] : (float) test_rand_uniform(-6.0, 6.0);
            }
            maps[k].fn(n, y, x);
            memcpy(w, x, sizeof(w));
            maps[k].fn(n, w, w);
            for (int i = 0; i < n; i++) {
                if (!same_float(y[i], maps[k].s(x[i])) || !same_float(w[i], y[i])) {
                    ok = false;
                    bad = i;
                }
            }
            if (!ok) {
                TEST_CHECK_MSG(false, "[%s] %s(%.9g) = %.9g, expected %.9g", lv, maps[k].name, (double) x[bad],
                        (double) y[bad], (double) maps[k].s(x[bad]));
                break;
            }
        }
        TEST_CHECK(ok);
    }

    // scale, clamp, leaky_relu: exact; mad: within one rounding of the fused result
    bool ok_scale = true, ok_clamp = true, ok_leaky = true, ok_mad = true;
    for (int n = 0; n <= N; n++) {
        fill_random(x, N, -5.0, 5.0);
        x[0] = NAN;
        vf->scale_f32(n, y, x, 1.7f, -0.3f);
        for (int i = 0; i < n; i++) {
            ok_scale = ok_scale && same_float(y[i], x[i]*1.7f + -0.3f);
        }
        vf->clamp_f32(n, y, x, -1.25f, 2.0f);
        for (int i = 0; i < n; i++) {
            const float c = x[i] > 2.0f ? 2.0f : x[i];
            ok_clamp = ok_clamp && same_float(y[i], c < -1.25f ? -1.25f : c);
        }
        vf->leaky_relu_f32(n, y, x, 0.1f);
        for (int i = 0; i < n; i++) {
            ok_leaky = ok_leaky && same_float(y[i], x[i] > 0.0f ? x[i] : 0.1f*x[i]);
        }
        fill_random(y, N, -5.0, 5.0);
        memcpy(w, y, sizeof(w));
        x[0] = 1.0f;
        vf->mad_f32(n, w, x, 0.75f);
        for (int i = 0; i < n; i++) {
            const double e = (double) y[i] + (double) x[i]*0.75;
            ok_mad = ok_mad && fabs(w[i] - e) <= 1.2e-7*(fabs(y[i]) + fabs(x[i]*0.75)) + 1e-30;
        }
    }
    TEST_CHECK_MSG(ok_scale, "[%s] scale differs from x*s + b", lv);
    TEST_CHECK_MSG(ok_clamp, "[%s] clamp differs", lv);
    TEST_CHECK_MSG(ok_leaky, "[%s] leaky_relu differs", lv);
    TEST_CHECK_MSG(ok_mad, "[%s] mad differs from y + x*v by more than a rounding", lv);
}

//
// reductions
//

static void test_reductions(const struct ggml_vec_funcs * vf) {
    const char * lv = ggml_cpu_isa_name(vf->level);
    enum { N = 1000 };
    static float x[N], y[N], e[N];
    for (int n = 0; n <= 72; n++) {
        if (n == 72) {
            n = 999; // and one long row
        }
        fill_random(x, N, -2.0, 3.0);
        fill_random(y, N, -1.0, 1.0);
        double sd = 0.0, ss = 0.0, sq = 0.0, sa = 0.0;
        for (int i = 0; i < n; i++) {
            sd += (double) x[i]*y[i];
            sa += fabs((double) x[i]*y[i]);
            ss += x[i];
            sq += (double) x[i]*x[i];
        }
        TEST_CHECK_MSG(fabs(vf->dot_f32(n, x, y) - sd) <= 1e-5*sa + 1e-30, "[%s] dot n=%d", lv, n);
        TEST_CHECK_MSG(fabs(vf->sum_f32(n, x) - ss) <= 1e-12*(fabs(ss) + n), "[%s] sum n=%d", lv, n);
        TEST_CHECK_MSG(fabs(vf->sumsq_f32(n, x) - sq) <= 1e-12*sq + 1e-30, "[%s] sumsq n=%d", lv, n);

        // max and argmax: ties to the last index, NaN ignored
        float m = -INFINITY;
        int64_t am = 0;
        if (n > 3) {
            x[n/2] = 7.0f;
            x[n - 2] = 7.0f;
            x[1] = NAN;
        }
        for (int i = 0; i < n; i++) {
            if (x[i] >= m) {
                m  = x[i];
                am = i;
            }
        }
        TEST_CHECK_MSG(same_float(vf->max_f32(n, x), m), "[%s] max n=%d: %g, expected %g", lv, n, (double) vf->max_f32(n, x), (double) m);
        TEST_CHECK_MSG(vf->argmax_f32(n, x) == am, "[%s] argmax n=%d: %lld, expected %lld", lv, n,
                (long long) vf->argmax_f32(n, x), (long long) am);

        // soft_max: e^(x - m) and the sum
        const float mx = 3.0f;
        const double s = vf->soft_max_f32(n, e, x, mx);
        double se = 0.0;
        bool ok = true;
        for (int i = 0; i < n; i++) {
            const double r = exp((double) (x[i] - mx)); // the difference is taken in float
            if (isnan(x[i])) {
                ok = ok && isnan(e[i]);
                continue;
            }
            ok = ok && fabs(e[i] - r) <= 2e-7*r;
            se += e[i];
        }
        TEST_CHECK_MSG(ok, "[%s] soft_max values n=%d", lv, n);
        TEST_CHECK_MSG(n <= 3 ? fabs(s - se) <= 1e-12*se : isnan(s), "[%s] soft_max sum n=%d", lv, n);
    }
    // all NaN, all -inf, empty
    float t[20];
    for (int i = 0; i < 20; i++) {
        t[i] = NAN;
    }
    TEST_CHECK(vf->argmax_f32(20, t) == 0);
    TEST_CHECK(vf->max_f32(20, t) == -INFINITY);
    for (int i = 0; i < 20; i++) {
        t[i] = -INFINITY;
    }
    TEST_CHECK(vf->argmax_f32(20, t) == 19);
    TEST_CHECK(vf->max_f32(0, t) == -INFINITY);
    TEST_CHECK(vf->argmax_f32(0, t) == 0);
}

//
// conversions: bit for bit against ggml.h's scalar conversions
//

static void test_conversions(const struct ggml_vec_funcs * vf) {
    const char * lv = ggml_cpu_isa_name(vf->level);
    enum { N = 67 };
    float x[N], y[N];
    ggml_fp16_t h[N];
    ggml_bf16_t b[N];
    const float sp[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 65504.0f, 65520.0f, 1e-8f, -6e-8f, 3e-5f, 1e-40f,
        FLT_MAX, -FLT_MAX, 1.00048828125f, 1.001953125f, 0.333333343f, 3.38953139e38f };
    bool ok16 = true, okb = true, ok16b = true, okbb = true;
    for (int n = 0; n <= N; n++) {
        for (int i = 0; i < N; i++) {
            x[i] = i % 2 ? sp[(i/2 + n) % (int) (sizeof(sp)/sizeof(sp[0]))] : (float) test_rand_uniform(-70000.0, 70000.0)*
                (float) pow(10.0, -(double) (i % 9));
        }
        vf->f32_to_f16(n, h, x);
        vf->f32_to_bf16(n, b, x);
        for (int i = 0; i < n; i++) {
            const ggml_fp16_t eh = ggml_fp32_to_fp16(x[i]);
            const ggml_bf16_t eb = ggml_fp32_to_bf16(x[i]);
            ok16 = ok16 && (isnan(x[i]) ? isnan(ggml_fp16_to_fp32(h[i])) : h[i] == eh);
            okb  = okb  && (isnan(x[i]) ? isnan(ggml_bf16_to_fp32(b[i])) : b[i].bits == eb.bits);
        }
        vf->f16_to_f32(n, y, h);
        for (int i = 0; i < n; i++) {
            ok16b = ok16b && same_float(y[i], ggml_fp16_to_fp32(h[i]));
        }
        vf->bf16_to_f32(n, y, b);
        for (int i = 0; i < n; i++) {
            okbb = okbb && same_float(y[i], ggml_bf16_to_fp32(b[i]));
        }
    }
    TEST_CHECK_MSG(ok16, "[%s] f32_to_f16 differs from ggml_fp32_to_fp16", lv);
    TEST_CHECK_MSG(okb, "[%s] f32_to_bf16 differs from ggml_fp32_to_bf16", lv);
    TEST_CHECK_MSG(ok16b, "[%s] f16_to_f32 differs from ggml_fp16_to_fp32", lv);
    TEST_CHECK_MSG(okbb, "[%s] bf16_to_f32 differs from ggml_bf16_to_fp32", lv);

    // strided rows through the load/store helpers
    ggml_fp16_t hs[2*N];
    ggml_vec_store_f32(vf, GGML_TYPE_F16, hs, 2*sizeof(ggml_fp16_t), N, x);
    ggml_vec_load_f32(vf, GGML_TYPE_F16, hs, 2*sizeof(ggml_fp16_t), N, y);
    bool ok = true;
    for (int i = 0; i < N; i++) {
        ok = ok && same_float(y[i], ggml_fp16_to_fp32(ggml_fp32_to_fp16(x[i])));
    }
    TEST_CHECK_MSG(ok, "[%s] strided F16 load/store", lv);
}

// swiglu_f32 against silu(x)*g in double, with silu's bound plus the product's rounding: every
// length 0..300 (vector tails and the two-vector steps), special values in x and g in every other
// length (the SIMD levels take a faster path for vectors without NaN, infinities and large
// magnitudes: both paths are checked), in place on x and on g, and nothing written past n
static void test_swiglu(const struct ggml_vec_funcs * vf) {
    enum { N = 301 };
    static float x[N], g[N], y[N], w[N];
    const float sp[] = { NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -90.0f, 95.0f, -103.5f, 1e30f };
    const int nsp = (int) (sizeof(sp)/sizeof(sp[0]));
    const double bound = 3e-7 + 6e-8;
    bool ok = true;
    int bad = -1;
    for (int n = 0; n < N && ok; n++) {
        const bool special = n % 2 == 1;
        for (int i = 0; i < N; i++) {
            x[i] = special && i % 7 == 3 ? sp[(i + n) % nsp] : (float) test_rand_uniform(-12.0, 12.0);
            g[i] = special && i % 11 == 5 ? sp[(i + 2*n) % nsp] : (float) test_rand_uniform(-3.0, 3.0);
            y[i] = -12345.0f;
        }
        vf->swiglu_f32(n, y, x, g);
        for (int i = 0; i < N && ok; i++) {
            if (i >= n) {
                ok = y[i] == -12345.0f;
                continue;
            }
            const double r = ref_silu(x[i])*g[i];
            if (isnan(r)) {
                ok = isnan(y[i]);
            } else if (fabs(r) > FLT_MAX) {
                ok = isinf(y[i]) && (y[i] > 0) == (r > 0);
            } else if (fabs(r) < 1e-30) {
                ok = fabs(y[i] - r) <= fmax(FLT_MIN, 2e-5*fabs(r));
            } else {
                ok = fabs((y[i] - r)/r) <= bound;
            }
        }
        memcpy(w, x, sizeof(w));
        vf->swiglu_f32(n, w, w, g);
        for (int i = 0; i < n && ok; i++) {
            ok = same_float(w[i], y[i]);
        }
        memcpy(w, g, sizeof(w));
        vf->swiglu_f32(n, w, x, w);
        for (int i = 0; i < n && ok; i++) {
            ok = same_float(w[i], y[i]);
        }
        bad = n;
    }
    TEST_CHECK_MSG(ok, "[%s] swiglu: wrong result or write past the row (n = %d)", ggml_cpu_isa_name(vf->level), bad);
}

int main(void) {
    test_rng_init();
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        if (level > (int) top) {
            printf("test-cpu-vec: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n",
                    ggml_cpu_isa_name((enum ggml_cpu_isa_level) level));
            continue;
        }
        const struct ggml_vec_funcs * vf = ggml_vec_get_level((enum ggml_cpu_isa_level) level);
        TEST_CHECK(vf != NULL && (int) vf->level == level);
        test_activations(vf);
        test_exact(vf);
        test_swiglu(vf);
        test_reductions(vf);
        test_conversions(vf);
    }
    TEST_CHECK(ggml_vec_get(true)->level == GGML_CPU_ISA_PORTABLE);
    TEST_CHECK(ggml_vec_get(false)->level == top);
    return test_finish("test-cpu-vec");
}
