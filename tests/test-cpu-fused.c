// The CPU graph walker computes RMS_NORM followed by a MUL of its result as one node
// (cpu-ops-fused.h). For random F32 rows and weights broadcast in each way the MUL allows, with 1,
// 2 and 3 threads: the fused MUL result and the norm's own result equal, bit for bit, the two
// nodes computed in separate graphs (the same vector functions, so the bound is 0), and both are
// within 1e-5 of max |value| of a double-precision reference. Graphs where the fusion must not
// apply (the norm as MUL's second operand, a permuted norm input, a norm result read twice) give
// the reference too.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-5f

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params ip = { .mem_size = 32 * 1024 * 1024, .mem_buffer = NULL, .no_alloc = false };
    return ggml_init(ip);
}

static bool run(struct ggml_context * ctx, struct ggml_tensor * out, int n_threads) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    return ggml_graph_compute_with_ctx(ctx, gf, n_threads) == GGML_STATUS_SUCCESS;
}

// reference: rms_norm(a) * w (w broadcast), a and the result contiguous [ne0, ne1, ne2, ne3]
static void reference(const struct ggml_tensor * a, const struct ggml_tensor * w, double * norm, double * out) {
    const int64_t n = a->ne[0];
    const float * x = a->data, * wv = w->data;
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                const int64_t r = (i3 * a->ne[2] + i2) * a->ne[1] + i1;
                const int64_t wr = ((i3 % w->ne[3]) * w->ne[2] + (i2 % w->ne[2])) * w->ne[1] + (i1 % w->ne[1]);
                double ss = 0.0;
                for (int64_t i = 0; i < n; i++) {
                    ss += (double) x[r * n + i] * x[r * n + i];
                }
                const double s = 1.0 / sqrt(ss / (double) n + EPS);
                for (int64_t i = 0; i < n; i++) {
                    norm[r * n + i] = x[r * n + i] * s;
                    out[r * n + i]  = norm[r * n + i] * wv[wr * n + i];
                }
            }
        }
    }
}

static bool close_to(const float * got, const double * want, int64_t n) {
    double mx = 0.0, err = 0.0;
    for (int64_t i = 0; i < n; i++) {
        mx  = fmax(mx, fabs(want[i]));
        err = fmax(err, fabs(got[i] - want[i]));
        if (!isfinite(got[i])) {
            return false;
        }
    }
    return mx > 0.1 && err <= 1e-5 * mx;
}

static void check_shape(const int64_t ne[4], const int64_t wne[4]) {
    struct ggml_context * ctx = new_ctx();
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    struct ggml_tensor * w = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, wne);
    test_fill_uniform_f32(a, -2.0, 2.0);
    test_fill_uniform_f32(w, 0.5, 1.5);
    const int64_t n = ggml_nelements(a);
    double * rn = malloc(sizeof(double) * (size_t) n), * ro = malloc(sizeof(double) * (size_t) n);
    float * un_norm = malloc(sizeof(float) * (size_t) n), * un_out = malloc(sizeof(float) * (size_t) n);
    if (!TEST_CHECK(rn && ro && un_norm && un_out)) {
        goto done;
    }
    reference(a, w, rn, ro);

    // unfused: the norm in one graph, the MUL of a copy of its result in another
    struct ggml_tensor * norm1 = ggml_rms_norm(ctx, a, EPS);
    TEST_CHECK(run(ctx, norm1, 2));
    memcpy(un_norm, norm1->data, sizeof(float) * (size_t) n);
    struct ggml_tensor * t = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
    memcpy(t->data, un_norm, sizeof(float) * (size_t) n);
    struct ggml_tensor * mul1 = ggml_mul(ctx, t, w);
    TEST_CHECK(run(ctx, mul1, 2));
    memcpy(un_out, mul1->data, sizeof(float) * (size_t) n);
    TEST_CHECK_MSG(close_to(un_out, ro, n), "unfused [%lld %lld %lld %lld] vs double", (long long) ne[0],
                   (long long) ne[1], (long long) ne[2], (long long) ne[3]);

    for (int nt = 1; nt <= 3; nt++) {
        struct ggml_tensor * norm = ggml_rms_norm(ctx, a, EPS);
        struct ggml_tensor * out  = ggml_mul(ctx, norm, w);
        memset(norm->data, 0xff, ggml_nbytes(norm));
        memset(out->data, 0xff, ggml_nbytes(out));
        TEST_CHECK(run(ctx, out, nt));
        TEST_CHECK_MSG(memcmp(out->data, un_out, sizeof(float) * (size_t) n) == 0 &&
                       memcmp(norm->data, un_norm, sizeof(float) * (size_t) n) == 0,
                       "fused != unfused, [%lld %lld %lld %lld] * w [%lld %lld %lld %lld], %d threads",
                       (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3], (long long) wne[0],
                       (long long) wne[1], (long long) wne[2], (long long) wne[3], nt);
    }

    // not fused: w * norm (the norm second); the norm read twice (the fused path writes it anyway)
    struct ggml_tensor * o2 = ggml_mul(ctx, w->ne[1] == ne[1] && w->ne[2] == ne[2] && w->ne[3] == ne[3] ? w : ggml_repeat(ctx, w, a),
                                       ggml_rms_norm(ctx, a, EPS));
    TEST_CHECK(run(ctx, o2, 2) && close_to(o2->data, ro, n));
    struct ggml_tensor * n3 = ggml_rms_norm(ctx, a, EPS);
    struct ggml_tensor * o3 = ggml_add(ctx, ggml_mul(ctx, n3, w), n3);
    TEST_CHECK(run(ctx, o3, 2));
    double * r3 = malloc(sizeof(double) * (size_t) n);
    if (TEST_CHECK(r3 != NULL)) {
        for (int64_t i = 0; i < n; i++) {
            r3[i] = ro[i] + rn[i];
        }
        TEST_CHECK_MSG(close_to(o3->data, r3, n), "mul(norm, w) + norm vs double");
    }
    free(r3);
done:
    free(rn);
    free(ro);
    free(un_norm);
    free(un_out);
    ggml_free(ctx);
}

// a permuted input: the norm reads rows through strides (not fused), compared with the reference
// of the same values made contiguous
static void check_permuted(void) {
    struct ggml_context * ctx = new_ctx();
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 48, 5, 3);
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 48);
    test_fill_uniform_f32(a, -2.0, 2.0);
    test_fill_uniform_f32(w, 0.5, 1.5);
    struct ggml_tensor * p = ggml_permute(ctx, a, 0, 2, 1, 3); // [48, 3, 5]
    struct ggml_tensor * out = ggml_mul(ctx, ggml_rms_norm(ctx, p, EPS), w);
    struct ggml_tensor * c = ggml_cont(ctx, p);
    TEST_CHECK(run(ctx, out, 2) && run(ctx, c, 1));
    const int64_t n = ggml_nelements(a);
    double * rn = malloc(sizeof(double) * (size_t) n), * ro = malloc(sizeof(double) * (size_t) n);
    if (TEST_CHECK(rn && ro)) {
        reference(c, w, rn, ro);
        TEST_CHECK_MSG(close_to(out->data, ro, n), "permuted input vs double");
    }
    free(rn);
    free(ro);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    const int64_t shapes[][2][4] = {
        { { 576, 1, 1, 1 },  { 576, 1, 1, 1 } },  // one token (a model's decode)
        { { 576, 37, 1, 1 }, { 576, 1, 1, 1 } },  // a batch
        { { 64, 6, 4, 2 },   { 64, 1, 4, 1 } },   // weights per channel
        { { 64, 6, 4, 2 },   { 64, 6, 4, 2 } },   // same shape
        { { 33, 9, 2, 3 },   { 33, 9, 1, 3 } },   // odd widths
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        check_shape(shapes[i][0], shapes[i][1]);
    }
    check_permuted();
    return test_finish("test-cpu-fused");
}
