// Training: why the family's test-backend-ops grad mode fails its CPY, SCALE (with a bias) and
// EXPM1 cases for any float32 library (docs/compatibility.md, "The family's grad mode").
//
// For each, on the program's shapes and data ranges: the gradient ggml_build_backward_expand
// gives is the exact one (CPY: 1, SCALE: the scale, EXPM1: exp(x), +inf exactly where exp(x)
// exceeds FLT_MAX); the program's estimate, (f(x + eps) - f(x - eps)) / (2 eps) of the float
// loss sum(out), taken from our forward graph equals the estimate an ideal library would give
// (the exact loss, rounded once to float) within two float steps of the loss; and that ideal
// estimate already misses the program's bound (mean |gn - ga| / |gn + ga| <= 1e-4): the loss is
// a float near 2^11..2^14, whose steps are 2^-12..2^-10, and 2 eps is 0.2, so the estimate is a
// whole number of those steps over 0.2, never the exact gradient.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ggml_tensor tensor;

// the family's metric over n elements
static double family_maa(const float * gn, const float * ga, int64_t n) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += fabsf((gn[i] - ga[i])/(gn[i] + ga[i]));
    }
    return s/(double) n;
}

static float loss_of(struct ggml_context * ctx, struct ggml_cgraph * gf, const tensor * loss) {
    if (ggml_graph_compute_with_ctx(ctx, gf, 1) != GGML_STATUS_SUCCESS) {
        return NAN;
    }
    return *(const float *) loss->data;
}

// the ideal library's loss before rounding: sum_j(scale*x_j + bias) in double
static double exact_loss(const float * x, int64_t n, double scale, double bias) {
    double s = 0.0;
    for (int64_t j = 0; j < n; j++) {
        s += scale*(double) x[j] + bias;
    }
    return s;
}

struct lin_case {
    const char * name;
    int64_t ne[4];
    int perm[4];      // CPY: the source is a permuted view of the parameter (identity: none)
    bool transpose;   // CPY: the source is the transposed parameter
    bool scale_op;    // SCALE with a bias instead of CPY
    float lo, hi;     // the program's data range
};

// CPY and SCALE: out = scale*x + bias element by element, loss = sum(out)
static void check_linear(const struct lin_case * c) {
    struct ggml_init_params ip = { 32*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    tensor * x = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, c->ne[0], c->ne[1], c->ne[2], c->ne[3]);
    ggml_set_param(x);
    const int64_t n = ggml_nelements(x);
    float * xd = (float *) x->data;
    const double scale = c->scale_op ? 2.0 : 1.0, bias = c->scale_op ? 1.0 : 0.0;
    // the program's data, redrawn until the loss is at least 2^11 (most draws): the regime in
    // which it fails; a smaller loss has finer steps and may pass
    for (int tries = 0; tries < 100; tries++) {
        for (int64_t i = 0; i < n; i++) {
            xd[i] = (float) test_rand_uniform(c->lo, c->hi);
        }
        if (fabs(exact_loss(xd, n, scale, bias)) >= 2048.0) {
            break;
        }
    }
    tensor * out;
    if (c->scale_op) {
        out = ggml_scale_bias(ctx, x, (float) scale, (float) bias);
    } else {
        tensor * src = c->transpose ? ggml_transpose(ctx, x) : ggml_permute(ctx, x, c->perm[0], c->perm[1], c->perm[2], c->perm[3]);
        out = ggml_cpy(ctx, src, ggml_new_tensor(ctx, GGML_TYPE_F32, 4, src->ne));
    }
    tensor * loss = ggml_sum(ctx, out);
    ggml_set_loss(loss);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 64, true);
    ggml_build_forward_expand(gf, loss);
    struct ggml_cgraph * gb = ggml_graph_dup(ctx, gf, true);
    ggml_build_backward_expand(ctx, gb, NULL);
    ggml_graph_reset(gb);
    const tensor * g = ggml_graph_get_grad(gb, x);
    if (!TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gb, 2) == GGML_STATUS_SUCCESS && g != NULL &&
                g->type == GGML_TYPE_F32 && ggml_are_same_shape(g, x), "%s: no gradient", c->name)) {
        ggml_free(ctx);
        return;
    }
    float * ga = malloc((size_t) n*sizeof(float));
    float * gn = malloc((size_t) n*sizeof(float));
    float * gi = malloc((size_t) n*sizeof(float));
    if (!TEST_CHECK(ga != NULL && gn != NULL && gi != NULL)) {
        free(ga); free(gn); free(gi);
        ggml_free(ctx);
        return;
    }
    // through a permutation the gradient is a permuted view: read it element by element
    for (int64_t i3 = 0, i = 0; i3 < x->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < x->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < x->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < x->ne[0]; i0++, i++) {
                    ga[i] = ggml_get_f32_nd(g, (int) i0, (int) i1, (int) i2, (int) i3);
                }
            }
        }
    }
    int n_inexact = 0;
    for (int64_t i = 0; i < n; i++) {
        n_inexact += ga[i] != (float) scale;
    }
    TEST_CHECK_MSG(n_inexact == 0, "%s: %d gradient elements differ from %g", c->name, n_inexact, scale);

    // the program's estimate (test-backend-ops.cpp, eval_grad, grad_precise() false), from our
    // graph and from the ideal loss
    const float eps = 0.1f;
    const double s0 = exact_loss(xd, n, scale, bias);
    const float l0 = (float) s0;
    // a float step of the loss (the largest of the four values' binades)
    const float step = nextafterf(fabsf(l0) + 1.0f, INFINITY) - (fabsf(l0) + 1.0f);
    int n_equal = 0, n_far = 0;
    for (int64_t i = 0; i < n; i++) {
        const float v = xd[i];
        // the ideal loss, rounded once: the exact sum with x_i moved to the float the program sets
        const float xu = v + eps, xdn = v - eps;
        xd[i] = xu;
        const float fu = loss_of(ctx, gf, loss), fiu = (float) (s0 + scale*((double) xu - v));
        xd[i] = xdn;
        const float fd = loss_of(ctx, gf, loss), fid = (float) (s0 + scale*((double) xdn - v));
        xd[i] = v;
        gn[i] = (fu - fd)/(2.0f*eps);
        gi[i] = (fiu - fid)/(2.0f*eps);
        n_equal += gn[i] == gi[i];
        // our loss and the ideal one may differ by a step each (our sum is formed in another order)
        n_far += fabsf(gn[i] - gi[i]) > 2.01f*step/(2.0f*eps);
    }
    const double maa_ours = family_maa(gn, ga, n), maa_ideal = family_maa(gi, ga, n);
    printf("%s: loss %.3f (float step %g): estimate equal to the ideal library's in %d of %lld elements; "
           "MAA ours %.3e, ideal %.3e (bound 1e-4)\n", c->name, (double) l0, (double) step, n_equal, (long long) n,
           maa_ours, maa_ideal);
    TEST_CHECK_MSG(n_far == 0, "%s: %d estimates more than two loss steps from the ideal library's", c->name, n_far);
    if (fabsf(l0) >= 2048.0f) {
        TEST_CHECK_MSG(maa_ideal > 1e-4, "%s: the ideal library's estimate passes (MAA %.3e)", c->name, maa_ideal);
    }
    free(ga); free(gn); free(gi);
    ggml_free(ctx);
}

// EXPM1 on the program's f32 range [-150, 150]: the gradient exp(x) is +inf above log(FLT_MAX)
// (88.72) in float32, and the program reports any non-finite gradient element as a failure
static void check_expm1(void) {
    struct ggml_init_params ip = { 8*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    tensor * x = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 128, 2, 2, 2);
    ggml_set_param(x);
    const int64_t n = ggml_nelements(x);
    float * xd = (float *) x->data;
    for (int64_t i = 0; i < n; i++) {
        xd[i] = (float) test_rand_uniform(-150.0, 150.0);
    }
    xd[0] = 88.8f; // at least one element above the threshold, as in practically every draw
    tensor * loss = ggml_sum(ctx, ggml_expm1(ctx, x));
    ggml_set_loss(loss);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 64, true);
    ggml_build_forward_expand(gf, loss);
    struct ggml_cgraph * gb = ggml_graph_dup(ctx, gf, true);
    ggml_build_backward_expand(ctx, gb, NULL);
    ggml_graph_reset(gb);
    const tensor * g = ggml_graph_get_grad(gb, x);
    if (!TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gb, 2) == GGML_STATUS_SUCCESS && g != NULL && ggml_is_contiguous(g),
                "expm1: no gradient")) {
        ggml_free(ctx);
        return;
    }
    const float * ga = (const float *) g->data;
    int n_inf = 0, n_wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        const double e = exp((double) xd[i]);
        if (e > FLT_MAX) {
            n_inf++;
            n_wrong += !(isinf(ga[i]) && ga[i] > 0.0f);
        } else {
            n_wrong += !(fabs((double) ga[i] - e) <= 1e-6*e + FLT_MIN); // below FLT_MIN: subnormal or flushed
        }
    }
    printf("expm1: %d of %lld gradient elements are +inf (x > %.4f), as exp(x) is in float32\n", n_inf, (long long) n,
           log((double) FLT_MAX));
    TEST_CHECK_MSG(n_wrong == 0, "expm1: %d gradient elements differ from exp(x) (rel 1e-6, or +inf above FLT_MAX)", n_wrong);
    TEST_CHECK(n_inf >= 1);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    // the shapes of failing cases of the family's run (docs/compatibility.md); CPY's data range
    // is [-150, 150], SCALE's [-1, 1]
    static const struct lin_case cases[] = {
        { "cpy permute [0,2,1,3]", { 256, 2, 3, 4 }, { 0, 2, 1, 3 }, false, false, -150.0f, 150.0f },
        { "cpy transpose",         { 256, 4, 3, 3 }, { 0, 1, 2, 3 }, true,  false, -150.0f, 150.0f },
        { "cpy permute [3,2,1,0]", {  32, 5, 7, 3 }, { 3, 2, 1, 0 }, false, false, -150.0f, 150.0f },
        { "scale 2, bias 1",       {  10, 10, 10, 10 }, { 0, 1, 2, 3 }, false, true, -1.0f, 1.0f },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        check_linear(&cases[i]);
    }
    check_expm1();
    return test_finish("test-training-family-fd");
}
