// Training: SOFT_MAX with sinks (and mask, scale, ALiBi, heads broadcast over the mask) — the
// gradients ggml_build_backward_expand builds, computed on the CPU, against central differences
// of the double-precision forward reference (tests/ref), for two losses: the plain sum of the
// output (the family's test-backend-ops grad mode sums it), and a weighted sum; of the input and,
// where they are a parameter too, of the sinks.
//
// It also pins down why the family's grad mode fails its SOFT_MAX cases with sinks=1 for any
// float library (docs/compatibility.md): with the plain sum, d loss / d a_i = scale*y_i*y_sink is
// small (about 3.5e-4 at scale 0.1) while the loss is about the row count, so the program's
// 4-point difference of the float loss with step 0.1 carries an error of up to about
// 30 float ulps of the loss, a few percent of the gradient. The check below bounds that
// estimate's distance from the exact gradient by exactly this rounding term.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-ref.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ggml_tensor tensor;

struct sm_case {
    int64_t ne[4];         // the mask's shape; a has ne[2]*nr2 heads and ne[3]*nr3 batches
    int64_t nr2, nr3;
    bool mask;
    enum ggml_type m_type; // F32 or F16
    float scale, max_bias;
    bool weighted;         // loss = sum(w*y) with random w, else sum(y)
    bool sinks_param;      // the sinks are a parameter too
};

static void fill_uniform(tensor * t, double lo, double hi) {
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        const float v = (float) test_rand_uniform(lo, hi);
        if (t->type == GGML_TYPE_F16) {
            ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(v);
        } else {
            ((float *) t->data)[i] = v;
        }
    }
}

// the loss in double from the reference forward: sum of w_i*y_i (w NULL: of y_i); NAN on failure
static double ref_loss(const tensor * out, const float * w, double * y) {
    char err[256];
    if (!ggml_ref_compute(out, y, err, sizeof(err))) {
        TEST_CHECK_MSG(false, "reference: %s", err);
        return NAN;
    }
    double l = 0.0;
    for (int64_t i = 0; i < ggml_nelements(out); i++) {
        l += (w != NULL ? (double) w[i] : 1.0)*y[i];
    }
    return l;
}

// central difference of the double loss in one float element; the step actually taken is the
// difference of the two rounded floats
static double ref_diff(const tensor * out, float * x, const float * w, double * y) {
    const float v = *x;
    const float h = 1e-3f;
    const float xp = v + h, xm = v - h;
    *x = xp;
    const double lp = ref_loss(out, w, y);
    *x = xm;
    const double lm = ref_loss(out, w, y);
    *x = v;
    return (lp - lm)/((double) xp - (double) xm);
}

// the family's metric: mean of |gn - ga|/|gn + ga| over the elements
static double maa(const double * gn, const float * ga, int64_t n) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += fabs((gn[i] - ga[i])/(gn[i] + ga[i]));
    }
    return s/(double) n;
}

static float graph_loss(struct ggml_context * ctx, struct ggml_cgraph * gf, const tensor * loss) {
    if (ggml_graph_compute_with_ctx(ctx, gf, 1) != GGML_STATUS_SUCCESS) {
        return NAN;
    }
    return *(const float *) loss->data;
}

// the family's 4-point estimate (test-backend-ops, grad_precise) from our float forward graph,
// and the bound its float rounding allows: each of the four loss values within one ulp
static void check_family_estimate(const char * name, struct ggml_context * ctx, struct ggml_cgraph * gf,
        const tensor * loss, float * x, int64_t n, const double * exact) {
    const float eps = 0.1f;
    int n_outside = 0;
    double worst = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        float f[4];
        const float at[4] = { v + eps, v + 0.5f*eps, v - 0.5f*eps, v - eps };
        for (int k = 0; k < 4; k++) {
            x[i] = at[k];
            f[k] = graph_loss(ctx, gf, loss);
        }
        x[i] = v;
        const double gn = (8.0*f[1] + (double) f[3] - (8.0*f[2] + (double) f[0]))/(6.0*eps);
        const double ulp = nextafterf(fabsf(f[0]), INFINITY) - fabsf(f[0]);
        // rounding: (8 + 1 + 8 + 1) ulps over 6 eps; truncation (5th derivative) far below it here
        const double bound = 18.0*ulp/(6.0*eps) + 1e-6;
        const double d = fabs(gn - exact[i]);
        worst = d/bound > worst ? d/bound : worst;
        n_outside += d > bound;
    }
    TEST_CHECK_MSG(n_outside == 0, "%s: the family's float estimate is off by %.2f x its rounding bound (%d elements outside)",
            name, worst, n_outside);
}

static void check_case(const struct sm_case * c, int idx) {
    char name[64];
    snprintf(name, sizeof(name), "case %d", idx);
    struct ggml_init_params ip = { 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    const int64_t n2 = c->ne[2]*c->nr2, n3 = c->ne[3]*c->nr3;
    tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, c->ne[0], c->ne[1], n2, n3);
    fill_uniform(a, -1.0, 1.0);
    ggml_set_param(a);
    tensor * mask = NULL;
    if (c->mask) {
        mask = ggml_new_tensor_4d(ctx, c->m_type, c->ne[0], c->ne[1], c->ne[2], c->ne[3]);
        fill_uniform(mask, -1.0, 1.0);
    }
    tensor * sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n2);
    fill_uniform(sinks, -1.0, 1.0);
    if (c->sinks_param) {
        ggml_set_param(sinks);
    }
    tensor * out = ggml_soft_max_ext(ctx, a, mask, c->scale, c->max_bias);
    if (!TEST_CHECK_MSG(out != NULL, "%s: soft_max_ext refused", name)) {
        ggml_free(ctx);
        return;
    }
    ggml_soft_max_add_sinks(out, sinks);
    tensor * w = NULL;
    if (c->weighted) {
        w = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, c->ne[0], c->ne[1], n2, n3);
        fill_uniform(w, -1.0, 1.0);
    }
    tensor * loss = ggml_sum(ctx, w != NULL ? ggml_mul(ctx, out, w) : out);
    ggml_set_loss(loss);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 256, true);
    ggml_build_forward_expand(gf, loss);
    struct ggml_cgraph * gb = ggml_graph_dup(ctx, gf, true);
    ggml_build_backward_expand(ctx, gb, NULL);
    ggml_graph_reset(gb);
    if (!TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gb, 2) == GGML_STATUS_SUCCESS, "%s: backward graph failed", name)) {
        ggml_free(ctx);
        return;
    }

    double * y = malloc((size_t) ggml_nelements(out)*sizeof(double));
    const int64_t na = ggml_nelements(a);
    double * gn = malloc((size_t) (na > n2 ? na : n2)*sizeof(double));
    float * ga = malloc((size_t) (na > n2 ? na : n2)*sizeof(float));
    if (!TEST_CHECK(y != NULL && gn != NULL && ga != NULL)) {
        free(y); free(gn); free(ga);
        ggml_free(ctx);
        return;
    }
    const float * wd = w != NULL ? (const float *) w->data : NULL;
    tensor * params[2] = { a, c->sinks_param ? sinks : NULL };
    for (int p = 0; p < 2 && params[p] != NULL; p++) {
        const tensor * g = ggml_graph_get_grad(gb, params[p]);
        if (!TEST_CHECK_MSG(g != NULL && g->type == GGML_TYPE_F32 && ggml_are_same_shape(g, params[p]) && ggml_is_contiguous(g),
                    "%s: parameter %s has no usable gradient", name, p == 0 ? "a" : "sinks")) {
            continue;
        }
        const int64_t n = ggml_nelements(params[p]);
        memcpy(ga, g->data, (size_t) n*sizeof(float));
        double ref2 = 0.0;
        for (int64_t i = 0; i < n; i++) {
            gn[i] = ref_diff(out, (float *) params[p]->data + i, wd, y);
            ref2 += gn[i]*gn[i];
        }
        double max_d = 0.0, max_g = 0.0;
        for (int64_t i = 0; i < n; i++) {
            max_d = fmax(max_d, fabs(gn[i] - ga[i]));
            max_g = fmax(max_g, fabs(gn[i]));
        }
        TEST_CHECK_MSG(ref2 > 0.0, "%s: all differences of %s are zero (vacuous)", name, p == 0 ? "a" : "sinks");
        // float rounding of the gradient itself; a weighted loss has gradient elements near zero,
        // which the family's relative metric cannot judge, so the error is taken against the largest,
        // plus a few float ulps of 1: the row sums the gradient is formed from (dot(w, y), 1 - sum y)
        // are of order 1 and may cancel to a much smaller gradient (a single sink of 16 rows)
        TEST_CHECK_MSG(max_d <= 1e-5*max_g + 2e-7, "%s: gradient of %s: max error %.3e of max %.3e against the reference's differences",
                name, p == 0 ? "a" : "sinks", max_d, max_g);
        if (!c->weighted) { // every element is scale*y_i*y_sink > 0 (a) or -sum(...) < 0 (sinks)
            const double m = maa(gn, ga, n);
            TEST_CHECK_MSG(m <= 1e-5, "%s: gradient of %s: the family's MAA %.3e against the reference's differences",
                    name, p == 0 ? "a" : "sinks", m);
        }
        if (p == 0 && !c->weighted) {
            check_family_estimate(name, ctx, gf, loss, (float *) a->data, n < 300 ? n : 300, gn);
        }
    }
    free(y); free(gn); free(ga);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    // the shapes and parameters of the family's SOFT_MAX sinks=1 grad cases, and weighted losses
    static const struct sm_case cases[] = {
        { { 16, 16, 1, 1 }, 1, 1, false, GGML_TYPE_F32, 1.0f, 0.0f, false, false },
        { { 15, 15, 1, 1 }, 1, 1, false, GGML_TYPE_F32, 0.1f, 0.0f, false, false },
        { { 16, 16, 1, 1 }, 1, 1, true,  GGML_TYPE_F32, 0.1f, 0.0f, false, false },
        { { 16, 16, 1, 3 }, 3, 1, true,  GGML_TYPE_F16, 1.0f, 0.0f, false, false },
        { { 15, 15, 1, 1 }, 2, 3, true,  GGML_TYPE_F32, 1.0f, 8.0f, false, false },
        { { 16, 16, 1, 1 }, 1, 1, true,  GGML_TYPE_F32, 0.1f, 0.0f, true,  false },
        { { 15, 15, 1, 1 }, 2, 3, true,  GGML_TYPE_F16, 1.0f, 8.0f, true,  false },
        // the sinks as parameters (a rule the family lacks)
        { { 16, 16, 1, 3 }, 3, 1, false, GGML_TYPE_F32, 1.0f, 0.0f, false, true  },
        { { 16, 16, 1, 1 }, 1, 1, true,  GGML_TYPE_F32, 0.1f, 0.0f, true,  true  },
        { { 15, 15, 1, 1 }, 2, 3, true,  GGML_TYPE_F16, 1.0f, 8.0f, true,  true  },
        { {  7,  3, 2, 2 }, 2, 1, true,  GGML_TYPE_F32, 0.5f, 8.0f, true,  true  },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        check_case(&cases[i], (int) i);
    }
    return test_finish("test-training-softmax-sinks");
}
