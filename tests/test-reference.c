// Checks the double-precision reference (tests/ref) against hand-computed results for every op it
// covers. Nodes are built by hand (op, sources, op_params as docs/op-params.md lays them out), so
// this test depends only on contexts, tensors and views. Expected values are worked out by hand
// (the arithmetic is in the comments) or were computed independently with another tool and are
// written here as literals; strided/permuted inputs must give the same results as contiguous ones.

#include "ggml.h"
#include "ggml-ref.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ggml_context * g_ctx;

#define NEG_INF (-INFINITY)

//
// helpers
//

static void tset(struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v) {
    char * p = (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
    switch (t->type) {
        case GGML_TYPE_F32:  { float       x = (float) v;                      memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_F16:  { ggml_fp16_t x = ggml_fp32_to_fp16((float) v);   memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_BF16: { ggml_bf16_t x = ggml_fp32_to_bf16((float) v);   memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_F64:  { double      x = v;                              memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I8:   { int8_t      x = (int8_t) v;                     memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I16:  { int16_t     x = (int16_t) v;                    memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I32:  { int32_t     x = (int32_t) v;                    memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I64:  { int64_t     x = (int64_t) v;                    memcpy(p, &x, sizeof(x)); } break;
        default: break;
    }
}

// fills t (any layout) with v in row-major order of t->ne
static void fill(struct ggml_tensor * t, const double * v) {
    int64_t k = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        tset(t, i0, i1, i2, i3, v[k++]);
    }
}

static struct ggml_tensor * mk(enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, const double * v) {
    struct ggml_tensor * t = ggml_new_tensor_4d(g_ctx, type, ne0, ne1, ne2, ne3);
    if (t != NULL && v != NULL) {
        fill(t, v);
    }
    return t;
}

// a node built by hand: a new tensor with op and sources set
static struct ggml_tensor * mk_node(enum ggml_op op, enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
        struct ggml_tensor * s0, struct ggml_tensor * s1, struct ggml_tensor * s2) {
    struct ggml_tensor * t = ggml_new_tensor_4d(g_ctx, type, ne0, ne1, ne2, ne3);
    if (t != NULL) {
        t->op = op;
        t->src[0] = s0;
        t->src[1] = s1;
        t->src[2] = s2;
    }
    return t;
}

static void p_i32(struct ggml_tensor * t, int i, int32_t v) {
    if (t != NULL && i >= 0 && i < (int) (GGML_MAX_OP_PARAMS/sizeof(int32_t))) {
        t->op_params[i] = v;
    }
}

static void p_f32(struct ggml_tensor * t, int i, float v) {
    int32_t bits;
    memcpy(&bits, &v, sizeof(bits));
    p_i32(t, i, bits);
}

// A copy of the 2-D tensor t stored transposed: the result is a TRANSPOSE view with t's shape
// and values whose memory is column-major.
static struct ggml_tensor * strided_T(const struct ggml_tensor * t) {
    struct ggml_tensor * phys = mk(t->type, t->ne[1], t->ne[0], 1, 1, NULL);
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        tset(phys, i1, i0, 0, 0, ggml_ref_get(t, i0, i1, 0, 0));
    }
    return ggml_transpose(g_ctx, phys);
}

// A copy of t (up to 3-D) inside a larger buffer: rows padded by 3 elements, offset by 1.
static struct ggml_tensor * strided_pad(const struct ggml_tensor * t) {
    struct ggml_tensor * phys = mk(t->type, t->ne[0] + 3, t->ne[1], t->ne[2], 1, NULL);
    struct ggml_tensor * v = ggml_view_3d(g_ctx, phys, t->ne[0], t->ne[1], t->ne[2], phys->nb[1], phys->nb[2], phys->nb[0]);
    for (int64_t i2 = 0; i2 < phys->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < phys->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < phys->ne[0]; i0++) {
        tset(phys, i0, i1, i2, 0, 1000.0 + (double) i0); // garbage around the view
    }
    for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        tset(v, i0, i1, i2, 0, ggml_ref_get(t, i0, i1, i2, 0));
    }
    return v;
}

static double * compute(const char * what, const struct ggml_tensor * node) {
    if (!TEST_CHECK_MSG(node != NULL, "%s: node is NULL", what)) {
        return NULL;
    }
    double * out = malloc((size_t) ggml_nelements(node) * sizeof(double) + 1);
    char err[512] = "";
    const bool ok = ggml_ref_compute(node, out, err, sizeof(err));
    if (!TEST_CHECK_MSG(ok, "%s: ggml_ref_compute failed: %s", what, err)) {
        free(out);
        return NULL;
    }
    return out;
}

// computes node and compares with the expected values: relative tolerance tol, infinities exact
static void expect(const char * what, const struct ggml_tensor * node, const double * exp, double tol) {
    double * out = compute(what, node);
    if (out == NULL) {
        return;
    }
    const int64_t n = ggml_nelements(node);
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        const bool ok = isinf(exp[i]) ? out[i] == exp[i] : fabs(out[i] - exp[i]) <= tol*(1.0 + fabs(exp[i]));
        if (!ok) {
            bad = i;
        }
    }
    TEST_CHECK_MSG(bad < 0, "%s: element %lld is %.17g, expected %.17g", what,
            (long long) bad, bad >= 0 ? out[bad] : 0.0, bad >= 0 ? exp[bad] : 0.0);
    free(out);
}

// the two nodes must give the same results (a strided input against a contiguous one)
static void expect_same(const char * what, const struct ggml_tensor * x, const struct ggml_tensor * y) {
    double * a = compute(what, x);
    double * b = compute(what, y);
    if (a != NULL && b != NULL && TEST_CHECK_MSG(ggml_nelements(x) == ggml_nelements(y), "%s: sizes differ", what)) {
        int64_t bad = -1;
        for (int64_t i = 0; i < ggml_nelements(x) && bad < 0; i++) {
            if (!(fabs(a[i] - b[i]) <= 1e-12*(1.0 + fabs(a[i])) || (isinf(a[i]) && a[i] == b[i]))) {
                bad = i;
            }
        }
        TEST_CHECK_MSG(bad < 0, "%s: strided and contiguous differ at %lld", what, (long long) bad);
    }
    free(a);
    free(b);
}

static void expect_fail(const char * what, const struct ggml_tensor * node) {
    double out[64];
    char err[256] = "";
    const bool ok = ggml_ref_compute(node, out, err, sizeof(err));
    TEST_CHECK_MSG(!ok && err[0] != '\0', "%s: expected a failure with a message (ok = %d)", what, (int) ok);
}

#define TOL 1e-12

//
// element-wise
//

static void test_binary(void) {
    const double av[6] = { 1, 2, 3, 4, 5, 6 };
    struct ggml_tensor * a  = mk(GGML_TYPE_F32, 3, 2, 1, 1, av);
    struct ggml_tensor * b1 = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 10, 20, 30 });
    struct ggml_tensor * b2 = mk(GGML_TYPE_F16, 1, 2, 1, 1, (const double[]) { 2, 4 });

    expect("add (b row broadcast over rows)", mk_node(GGML_OP_ADD, GGML_TYPE_F32, 3, 2, 1, 1, a, b1, NULL),
            (const double[]) { 11, 22, 33, 14, 25, 36 }, TOL);
    expect("sub", mk_node(GGML_OP_SUB, GGML_TYPE_F32, 3, 2, 1, 1, a, b1, NULL),
            (const double[]) { -9, -18, -27, -6, -15, -24 }, TOL);
    expect("mul (b column broadcast, F16)", mk_node(GGML_OP_MUL, GGML_TYPE_F32, 3, 2, 1, 1, a, b2, NULL),
            (const double[]) { 2, 4, 6, 16, 20, 24 }, TOL);
    expect("div", mk_node(GGML_OP_DIV, GGML_TYPE_F32, 3, 2, 1, 1, a, b2, NULL),
            (const double[]) { 0.5, 1, 1.5, 1, 1.25, 1.5 }, TOL);

    // broadcast over dims 2 and 3: b [1,1,1,2] = {10, 100}
    struct ggml_tensor * a4 = mk(GGML_TYPE_F32, 1, 1, 2, 2, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * b4 = mk(GGML_TYPE_F32, 1, 1, 1, 2, (const double[]) { 10, 100 });
    expect("add (broadcast dims 2, 3)", mk_node(GGML_OP_ADD, GGML_TYPE_F32, 1, 1, 2, 2, a4, b4, NULL),
            (const double[]) { 11, 12, 103, 104 }, TOL);

    // strided a and b give the same results
    expect_same("add strided", mk_node(GGML_OP_ADD, GGML_TYPE_F32, 3, 2, 1, 1, a, b1, NULL),
            mk_node(GGML_OP_ADD, GGML_TYPE_F32, 3, 2, 1, 1, strided_T(a), strided_pad(b1), NULL));
    expect("div strided", mk_node(GGML_OP_DIV, GGML_TYPE_F32, 3, 2, 1, 1, strided_pad(a), strided_T(b2), NULL),
            (const double[]) { 0.5, 1, 1.5, 1, 1.25, 1.5 }, TOL);

    expect_fail("add, b does not divide a", mk_node(GGML_OP_ADD, GGML_TYPE_F32, 3, 2, 1, 1, a,
            mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 1, 2 }), NULL));
    expect_fail("add, missing b", mk_node(GGML_OP_ADD, GGML_TYPE_F32, 3, 2, 1, 1, a, NULL, NULL));

    struct ggml_tensor * s = mk(GGML_TYPE_F16, 1, 1, 1, 1, (const double[]) { 0.5 });
    expect("add1", mk_node(GGML_OP_ADD1, GGML_TYPE_F32, 3, 2, 1, 1, a, s, NULL),
            (const double[]) { 1.5, 2.5, 3.5, 4.5, 5.5, 6.5 }, TOL);
}

static void test_acc_set(void) {
    double av[12];
    for (int i = 0; i < 12; i++) {
        av[i] = i + 1;
    }
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 4, 3, 1, 1, av);
    struct ggml_tensor * b = mk(GGML_TYPE_F32, 2, 2, 1, 1, (const double[]) { 100, 200, 300, 400 });
    // view of a: rows of 16 bytes, starting at element 1 -> (1,0) (2,0) (1,1) (2,1)
    for (int k = 0; k < 2; k++) {
        const enum ggml_op op = k == 0 ? GGML_OP_ACC : GGML_OP_SET;
        struct ggml_tensor * n = mk_node(op, GGML_TYPE_F32, 4, 3, 1, 1, a, b, NULL);
        p_i32(n, 0, 16); p_i32(n, 1, 48); p_i32(n, 2, 48); p_i32(n, 3, 4); p_i32(n, 4, 0);
        if (op == GGML_OP_ACC) {
            expect("acc", n, (const double[]) { 1, 102, 203, 4, 5, 306, 407, 8, 9, 10, 11, 12 }, TOL);
        } else {
            expect("set", n, (const double[]) { 1, 100, 200, 4, 5, 300, 400, 8, 9, 10, 11, 12 }, TOL);
        }
    }
    struct ggml_tensor * n = mk_node(GGML_OP_SET, GGML_TYPE_F32, 4, 3, 1, 1, a, b, NULL);
    p_i32(n, 0, 16); p_i32(n, 1, 48); p_i32(n, 2, 48); p_i32(n, 3, 40);
    expect_fail("set outside a", n);
}

static void test_map(void) {
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 1.5, -2, 3 });
    expect("sqr", mk_node(GGML_OP_SQR, GGML_TYPE_F32, 3, 1, 1, 1, a, NULL, NULL), (const double[]) { 2.25, 4, 9 }, TOL);
    struct ggml_tensor * b = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 2.25, 4, 9 });
    expect("sqrt", mk_node(GGML_OP_SQRT, GGML_TYPE_F32, 3, 1, 1, 1, b, NULL, NULL), (const double[]) { 1.5, 2, 3 }, TOL);
    struct ggml_tensor * c = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 1, 2, 4 });
    expect("log", mk_node(GGML_OP_LOG, GGML_TYPE_F32, 3, 1, 1, 1, c, NULL, NULL),
            (const double[]) { 0, 0.6931471805599453, 1.3862943611198906 }, TOL);
    struct ggml_tensor * d = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 0.5, -1 });
    expect("sin", mk_node(GGML_OP_SIN, GGML_TYPE_F32, 2, 1, 1, 1, d, NULL, NULL),
            (const double[]) { 0.479425538604203, -0.8414709848078965 }, TOL);
    struct ggml_tensor * e = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 0.5, 2 });
    expect("cos", mk_node(GGML_OP_COS, GGML_TYPE_F32, 2, 1, 1, 1, e, NULL, NULL),
            (const double[]) { 0.8775825618903728, -0.4161468365471424 }, TOL);

    struct ggml_tensor * f = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 1, -2, 0.5 });
    struct ggml_tensor * n = mk_node(GGML_OP_SCALE, GGML_TYPE_F32, 3, 1, 1, 1, f, NULL, NULL);
    p_f32(n, 0, 2.0f); p_f32(n, 1, 1.0f);
    expect("scale with bias (2x + 1)", n, (const double[]) { 3, -3, 2 }, TOL);
    n = mk_node(GGML_OP_SCALE, GGML_TYPE_F32, 3, 1, 1, 1, f, NULL, NULL);
    p_f32(n, 0, -0.5f);
    expect("scale", n, (const double[]) { -0.5, 1, -0.25 }, TOL);

    struct ggml_tensor * g = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { -2, 0.5, 3 });
    n = mk_node(GGML_OP_CLAMP, GGML_TYPE_F32, 3, 1, 1, 1, g, NULL, NULL);
    p_f32(n, 0, -1.0f); p_f32(n, 1, 1.0f);
    expect("clamp [-1, 1]", n, (const double[]) { -1, 0.5, 1 }, TOL);
    n = mk_node(GGML_OP_LEAKY_RELU, GGML_TYPE_F32, 3, 1, 1, 1, g, NULL, NULL);
    p_f32(n, 0, 0.125f);
    expect("leaky_relu 0.125", n, (const double[]) { -0.25, 0.5, 3 }, TOL);
}

static struct ggml_tensor * unary_node(struct ggml_tensor * a, enum ggml_unary_op op) {
    struct ggml_tensor * n = mk_node(GGML_OP_UNARY, a->type == GGML_TYPE_F16 ? GGML_TYPE_F16 : GGML_TYPE_F32,
            a->ne[0], a->ne[1], a->ne[2], a->ne[3], a, NULL, NULL);
    p_i32(n, 0, (int32_t) op);
    return n;
}

static void test_unary(void) {
    // exactly representable inputs; values of the smooth functions computed independently
    struct ggml_tensor * x = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { -1.5, -0.5, 0.5, 2.5 });
    static const struct { enum ggml_unary_op op; double v[4]; } smooth[] = {
        { GGML_UNARY_OP_TANH,        { -0.9051482536448664, -0.46211715726000974, 0.46211715726000974, 0.98661429815143031 } },
        { GGML_UNARY_OP_ELU,         { -0.77686983985157021, -0.39346934028736658, 0.5, 2.5 } },
        { GGML_UNARY_OP_SIGMOID,     { 0.18242552380635635, 0.37754066879814541, 0.62245933120185459, 0.92414181997875655 } },
        { GGML_UNARY_OP_GELU,        { -0.10042842301976707, -0.15428599017485606, 0.34571400982514394, 2.4849157339100012 } },
        { GGML_UNARY_OP_GELU_QUICK,  { -0.10833780155292341, -0.14961156339361989, 0.35038843660638014, 2.4650138349514301 } },
        { GGML_UNARY_OP_SILU,        { -0.27363828570953452, -0.1887703343990727, 0.3112296656009273, 2.3103545499468914 } },
        { GGML_UNARY_OP_HARDSWISH,   { -0.375, -0.20833333333333334, 0.29166666666666669, 2.2916666666666665 } },
        { GGML_UNARY_OP_HARDSIGMOID, { 0.25, 0.41666666666666669, 0.58333333333333337, 0.91666666666666663 } },
        { GGML_UNARY_OP_EXP,         { 0.22313016014842982, 0.60653065971263342, 1.6487212707001282, 12.182493960703473 } },
        { GGML_UNARY_OP_EXPM1,       { -0.77686983985157021, -0.39346934028736658, 0.64872127070012819, 11.182493960703473 } },
        { GGML_UNARY_OP_SOFTPLUS,    { 0.20141327798275241, 0.47407698418010669, 0.97407698418010669, 2.5788897342925496 } },
        { GGML_UNARY_OP_GELU_ERF,    { -0.10021080190328713, -0.15426876936299344, 0.34573123063700656, 2.4844758366855597 } },
    };
    for (size_t k = 0; k < sizeof(smooth)/sizeof(smooth[0]); k++) {
        char what[64];
        snprintf(what, sizeof(what), "unary %s", ggml_unary_op_name(smooth[k].op));
        expect(what, unary_node(x, smooth[k].op), smooth[k].v, 1e-12);
    }
    // XIELU with alpha_n 0.75, alpha_p 0.625, beta 0.5, eps -0.25 (f32[1..4]):
    //   x > 0: 0.625x^2 + 0.5x (0.5 -> 0.40625, 2.5 -> 5.15625); else (expm1(min(x, eps)) - x)*0.75 + 0.5x
    //   (-0.125 lies between eps and 0: expm1 takes eps)
    struct ggml_tensor * xx = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { -1.5, -0.125, 0.5, 2.5 });
    struct ggml_tensor * n = unary_node(xx, GGML_UNARY_OP_XIELU);
    p_f32(n, 1, 0.75f); p_f32(n, 2, 0.625f); p_f32(n, 3, 0.5f); p_f32(n, 4, -0.25f);
    expect("unary xielu", n, (const double[]) { -0.20765237988867769, -0.13464941269644634, 0.40625, 5.15625 }, 1e-12);

    // piecewise ops by hand
    struct ggml_tensor * y = mk(GGML_TYPE_F16, 5, 1, 1, 1, (const double[]) { -2.5, -0.5, 0, 1.5, 2.5 });
    static const struct { enum ggml_unary_op op; double v[5]; } piece[] = {
        { GGML_UNARY_OP_ABS,   { 2.5, 0.5, 0, 1.5, 2.5 } },
        { GGML_UNARY_OP_SGN,   { -1, -1, 0, 1, 1 } },
        { GGML_UNARY_OP_NEG,   { 2.5, 0.5, 0, -1.5, -2.5 } },
        { GGML_UNARY_OP_STEP,  { 0, 0, 0, 1, 1 } },
        { GGML_UNARY_OP_RELU,  { 0, 0, 0, 1.5, 2.5 } },
        { GGML_UNARY_OP_FLOOR, { -3, -1, 0, 1, 2 } },
        { GGML_UNARY_OP_CEIL,  { -2, 0, 0, 2, 3 } },
        { GGML_UNARY_OP_ROUND, { -3, -1, 0, 2, 3 } }, // halves away from zero
        { GGML_UNARY_OP_TRUNC, { -2, 0, 0, 1, 2 } },
    };
    for (size_t k = 0; k < sizeof(piece)/sizeof(piece[0]); k++) {
        char what[64];
        snprintf(what, sizeof(what), "unary %s (F16)", ggml_unary_op_name(piece[k].op));
        expect(what, unary_node(y, piece[k].op), piece[k].v, 0.0);
    }
    expect_same("unary silu strided", unary_node(x, GGML_UNARY_OP_SILU), unary_node(strided_pad(x), GGML_UNARY_OP_SILU));

    struct ggml_tensor * bad = unary_node(x, GGML_UNARY_OP_COUNT);
    expect_fail("unary op out of range", bad);
    TEST_CHECK(!ggml_ref_supports(bad));
}

static void test_glu(void) {
    // row [x0, x1, g0, g1] = [-1, 2, 3, 0.5]; swapped: x = [3, 0.5], g = [-1, 2]
    struct ggml_tensor * a  = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { -1, 2, 3, 0.5 });
    struct ggml_tensor * xs = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { -1, 2 });
    struct ggml_tensor * gs = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 3, 0.5 });
    static const struct { enum ggml_glu_op op; double v[2]; double sw[2]; } cases[] = {
        { GGML_GLU_OP_REGLU,       { 0, 1 },                                          { -3, 1 } },
        { GGML_GLU_OP_GEGLU,       { -0.47642402817516971, 0.97729884704388748 },     { -2.9963626079182268, 0.69142801965028788 } },
        { GGML_GLU_OP_SWIGLU,      { -0.80682426410998531, 0.88079707797788231 },     { -2.8577223804673002, 0.62245933120185459 } },
        { GGML_GLU_OP_GEGLU_ERF,   { -0.47596576179437122, 0.97724986805182079 },     { -2.9959503059051098, 0.69146246127401312 } },
        { GGML_GLU_OP_GEGLU_QUICK, { -0.46261270220153611, 0.96782931157210417 },     { -2.981928690292214, 0.70077687321276028 } },
        // alpha 1.5, limit 1.5: x capped at 1.5, g clamped to [-1.5, 1.5]; x*sigmoid(1.5x)*(g + 1)
        { GGML_GLU_OP_SWIGLU_OAI,  { -0.45606380951589087, 2.0354637039770038 },      { 0, 0.84897337396924122 } },
    };
    for (size_t k = 0; k < sizeof(cases)/sizeof(cases[0]); k++) {
        for (int form = 0; form < 3; form++) {
            struct ggml_tensor * n = form < 2 ? mk_node(GGML_OP_GLU, GGML_TYPE_F32, 2, 1, 1, 1, a, NULL, NULL)
                                              : mk_node(GGML_OP_GLU, GGML_TYPE_F32, 2, 1, 1, 1, xs, gs, NULL);
            p_i32(n, 0, (int32_t) cases[k].op);
            p_i32(n, 1, form == 1);
            p_f32(n, 2, 1.5f);
            p_f32(n, 3, 1.5f);
            char what[80];
            snprintf(what, sizeof(what), "glu %s (%s)", ggml_glu_op_name(cases[k].op),
                    form == 0 ? "one tensor" : form == 1 ? "swapped" : "split");
            expect(what, n, form == 1 ? cases[k].sw : cases[k].v, 1e-12);
        }
    }
    // two rows: the second row [0.5, -2, 1, 4] -> reglu [0.5, 0], swapped [0.5*1... ] = relu([1,4])*[0.5,-2] = [0.5, -8]
    struct ggml_tensor * a2 = mk(GGML_TYPE_F32, 4, 2, 1, 1, (const double[]) { -1, 2, 3, 0.5, 0.5, -2, 1, 4 });
    struct ggml_tensor * n = mk_node(GGML_OP_GLU, GGML_TYPE_F32, 2, 2, 1, 1, strided_pad(a2), NULL, NULL);
    p_i32(n, 0, GGML_GLU_OP_REGLU); p_i32(n, 1, 1);
    expect("glu reglu swapped, 2 strided rows", n, (const double[]) { -3, 1, 0.5, -8 }, TOL);
}

//
// reductions, shapes, views, rows
//

static void test_reduce(void) {
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    expect("sum", mk_node(GGML_OP_SUM, GGML_TYPE_F32, 1, 1, 1, 1, a, NULL, NULL), (const double[]) { 21 }, TOL);
    expect("sum_rows", mk_node(GGML_OP_SUM_ROWS, GGML_TYPE_F32, 1, 2, 1, 1, a, NULL, NULL), (const double[]) { 6, 15 }, TOL);
    expect("mean", mk_node(GGML_OP_MEAN, GGML_TYPE_F32, 1, 2, 1, 1, a, NULL, NULL), (const double[]) { 2, 5 }, TOL);
    expect("sum_rows of transposed a", mk_node(GGML_OP_SUM_ROWS, GGML_TYPE_F32, 1, 2, 1, 1, strided_T(a), NULL, NULL),
            (const double[]) { 6, 15 }, TOL);
    // ties resolve to the last maximal index, as the family's CPU code does
    struct ggml_tensor * b = mk(GGML_TYPE_F32, 4, 2, 1, 1, (const double[]) { 1, 5, 5, 2, -1, 7, 0, 3 });
    expect("argmax", mk_node(GGML_OP_ARGMAX, GGML_TYPE_I32, 2, 1, 1, 1, b, NULL, NULL), (const double[]) { 2, 1 }, 0.0);
}

static void test_shape(void) {
    struct ggml_tensor * r = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 1, 2 });
    expect("repeat [2,1] -> [4,3]", mk_node(GGML_OP_REPEAT, GGML_TYPE_F32, 4, 3, 1, 1, r, NULL, NULL),
            (const double[]) { 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2 }, 0.0);
    expect_fail("repeat to a non-multiple", mk_node(GGML_OP_REPEAT, GGML_TYPE_F32, 3, 1, 1, 1, r, NULL, NULL));

    struct ggml_tensor * a = mk(GGML_TYPE_F32, 2, 2, 1, 1, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * b = mk(GGML_TYPE_F32, 1, 2, 1, 1, (const double[]) { 9, 8 });
    struct ggml_tensor * n = mk_node(GGML_OP_CONCAT, GGML_TYPE_F32, 3, 2, 1, 1, a, b, NULL);
    p_i32(n, 0, 0);
    expect("concat dim 0", n, (const double[]) { 1, 2, 9, 3, 4, 8 }, 0.0);
    struct ggml_tensor * c = mk(GGML_TYPE_F32, 2, 2, 1, 1, (const double[]) { 3, 4, 5, 6 });
    n = mk_node(GGML_OP_CONCAT, GGML_TYPE_F32, 2, 3, 1, 1, r, c, NULL);
    p_i32(n, 0, 1);
    expect("concat dim 1", n, (const double[]) { 1, 2, 3, 4, 5, 6 }, 0.0);

    // pad: [1, 2] with lp0 1, rp0 2, lp1 1 -> [5, 2]
    n = mk_node(GGML_OP_PAD, GGML_TYPE_F32, 5, 2, 1, 1, r, NULL, NULL);
    p_i32(n, 0, 1); p_i32(n, 1, 2); p_i32(n, 2, 1); p_i32(n, 3, 0);
    expect("pad_ext", n, (const double[]) { 0, 0, 0, 0, 0, 0, 1, 2, 0, 0 }, 0.0);

    n = mk_node(GGML_OP_ARANGE, GGML_TYPE_F32, 3, 1, 1, 1, NULL, NULL, NULL);
    p_f32(n, 0, 1.0f); p_f32(n, 1, 2.5f); p_f32(n, 2, 0.5f);
    expect("arange 1..2.5 step 0.5", n, (const double[]) { 1, 1.5, 2 }, 0.0);

    double v9[9];
    for (int i = 0; i < 9; i++) {
        v9[i] = i + 1;
    }
    struct ggml_tensor * m = mk(GGML_TYPE_F32, 3, 3, 1, 1, v9);
    n = mk_node(GGML_OP_DIAG_MASK_INF, GGML_TYPE_F32, 3, 3, 1, 1, m, NULL, NULL);
    p_i32(n, 0, 0);
    expect("diag_mask_inf n_past 0", n, (const double[]) { 1, NEG_INF, NEG_INF, 4, 5, NEG_INF, 7, 8, 9 }, 0.0);
    n = mk_node(GGML_OP_DIAG_MASK_INF, GGML_TYPE_F32, 3, 3, 1, 1, m, NULL, NULL);
    p_i32(n, 0, 1);
    expect("diag_mask_inf n_past 1", n, (const double[]) { 1, 2, NEG_INF, 4, 5, 6, 7, 8, 9 }, 0.0);
    n = mk_node(GGML_OP_DIAG_MASK_ZERO, GGML_TYPE_F32, 3, 3, 1, 1, m, NULL, NULL);
    p_i32(n, 0, 0);
    expect("diag_mask_zero", n, (const double[]) { 1, 0, 0, 4, 5, 0, 7, 8, 9 }, 0.0);
}

static void test_views_copies(void) {
    struct ggml_tensor * t = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    expect("leaf (NONE)", t, (const double[]) { 1, 2, 3, 4, 5, 6 }, 0.0);
    struct ggml_tensor * tt = ggml_transpose(g_ctx, t);
    expect("transpose", tt, (const double[]) { 1, 4, 2, 5, 3, 6 }, 0.0);
    expect("view_2d (2x2 from element 1)", ggml_view_2d(g_ctx, t, 2, 2, t->nb[1], t->nb[0]),
            (const double[]) { 2, 3, 5, 6 }, 0.0);
    expect("reshape_2d", ggml_reshape_2d(g_ctx, t, 2, 3), (const double[]) { 1, 2, 3, 4, 5, 6 }, 0.0);
    struct ggml_tensor * t3 = mk(GGML_TYPE_F32, 2, 1, 3, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    // permute(0, 2, 1, 3) of [2,1,3] is [2,3,1]: same row-major values
    expect("permute", ggml_permute(g_ctx, t3, 0, 2, 1, 3), (const double[]) { 1, 2, 3, 4, 5, 6 }, 0.0);
    // permute(1, 0, 2, 3) of [2,1,3]: [1,2,3] element (0, j, k) = t3(j, 0, k)
    expect("permute (transposing)", ggml_permute(g_ctx, t3, 1, 0, 2, 3), (const double[]) { 1, 2, 3, 4, 5, 6 }, 0.0);

    expect("dup of a transposed view", mk_node(GGML_OP_DUP, GGML_TYPE_F32, 2, 3, 1, 1, tt, NULL, NULL),
            (const double[]) { 1, 4, 2, 5, 3, 6 }, 0.0);
    expect("cont to 1-D", mk_node(GGML_OP_CONT, GGML_TYPE_F32, 6, 1, 1, 1, tt, NULL, NULL),
            (const double[]) { 1, 4, 2, 5, 3, 6 }, 0.0);

    // cpy converts to the destination's type: F16 rounding (65519 -> 65504), I32 truncation
    struct ggml_tensor * f = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { 0.1, -2.7, 3.5, 65519 });
    struct ggml_tensor * d16 = mk(GGML_TYPE_F16, 2, 2, 1, 1, NULL);
    expect("cpy F32 -> F16", mk_node(GGML_OP_CPY, GGML_TYPE_F16, 2, 2, 1, 1, f, d16, NULL),
            (const double[]) { 0.0999755859375, -2.69921875, 3.5, 65504 }, 0.0);
    struct ggml_tensor * g = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { 0.1, -2.7, 3.5, 7.9 });
    expect("cpy F32 -> I32", mk_node(GGML_OP_CPY, GGML_TYPE_I32, 4, 1, 1, 1, g, mk(GGML_TYPE_I32, 4, 1, 1, 1, NULL), NULL),
            (const double[]) { 0, -2, 3, 7 }, 0.0);
    expect("cpy F32 -> BF16", mk_node(GGML_OP_CPY, GGML_TYPE_BF16, 1, 1, 1, 1,
            mk(GGML_TYPE_F32, 1, 1, 1, 1, (const double[]) { 0.1 }), mk(GGML_TYPE_BF16, 1, 1, 1, 1, NULL), NULL),
            (const double[]) { 0.10009765625 }, 0.0);
    expect_fail("cpy with different counts", mk_node(GGML_OP_CPY, GGML_TYPE_F32, 3, 1, 1, 1, g, NULL, NULL));
}

static void test_rows(void) {
    struct ggml_tensor * a = mk(GGML_TYPE_F16, 2, 3, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * idx = mk(GGML_TYPE_I32, 3, 1, 1, 1, (const double[]) { 2, 0, 2 });
    expect("get_rows", mk_node(GGML_OP_GET_ROWS, GGML_TYPE_F32, 2, 3, 1, 1, a, idx, NULL),
            (const double[]) { 5, 6, 1, 2, 5, 6 }, 0.0);
    expect("get_rows from a transposed a", mk_node(GGML_OP_GET_ROWS, GGML_TYPE_F32, 2, 3, 1, 1, strided_T(a), idx, NULL),
            (const double[]) { 5, 6, 1, 2, 5, 6 }, 0.0);
    // a [1, 2, 2]: a(0, r, i2) = 1 + r + 2*i2; indices [[1, 0], [0, 0]] per i2
    struct ggml_tensor * a3 = mk(GGML_TYPE_F32, 1, 2, 2, 1, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * i3 = mk(GGML_TYPE_I32, 2, 2, 1, 1, (const double[]) { 1, 0, 0, 0 });
    expect("get_rows 3-D", mk_node(GGML_OP_GET_ROWS, GGML_TYPE_F32, 1, 2, 2, 1, a3, i3, NULL),
            (const double[]) { 2, 1, 3, 3 }, 0.0);
    struct ggml_tensor * bad = mk(GGML_TYPE_I32, 1, 1, 1, 1, (const double[]) { 3 });
    expect_fail("get_rows index out of range", mk_node(GGML_OP_GET_ROWS, GGML_TYPE_F32, 2, 1, 1, 1, a, bad, NULL));

    // set_rows into F16 a [2, 4] = 1..8: rows 3 and 1 get b's rows (converted to F16)
    struct ggml_tensor * base = mk(GGML_TYPE_F16, 2, 4, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6, 7, 8 });
    struct ggml_tensor * rows = mk(GGML_TYPE_F32, 2, 2, 1, 1, (const double[]) { 0.1, 0.2, 10, 20 });
    struct ggml_tensor * c64 = mk(GGML_TYPE_I64, 2, 1, 1, 1, (const double[]) { 3, 1 });
    struct ggml_tensor * n = ggml_view_tensor(g_ctx, base);
    n->op = GGML_OP_SET_ROWS; n->src[0] = rows; n->src[1] = c64;
    expect("set_rows (I64 indices, F16 target)", n,
            (const double[]) { 1, 2, 10, 20, 5, 6, 0.0999755859375, 0.199951171875 }, 0.0);
    // indices broadcast over dim 2: b [1, 1, 2] with c [1, 1] = {2}: row 2 of both planes
    struct ggml_tensor * base3 = mk(GGML_TYPE_F32, 1, 3, 2, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * rows3 = mk(GGML_TYPE_F32, 1, 1, 2, 1, (const double[]) { -7, -8 });
    struct ggml_tensor * c32 = mk(GGML_TYPE_I32, 1, 1, 1, 1, (const double[]) { 2 });
    n = ggml_view_tensor(g_ctx, base3);
    n->op = GGML_OP_SET_ROWS; n->src[0] = rows3; n->src[1] = c32;
    expect("set_rows (I32 indices broadcast)", n, (const double[]) { 1, 2, -7, 4, 5, -8 }, 0.0);
    // a node without data of its own reads a's rows through view_src + view_offs
    struct ggml_tensor copy = *n;
    copy.data = NULL;
    copy.view_src = base3;
    copy.view_offs = 0;
    expect("set_rows through view_src", &copy, (const double[]) { 1, 2, -7, 4, 5, -8 }, 0.0);
}

//
// norms, matmul, softmax
//

static void test_norm(void) {
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { 1, 2, 3, 4 });
    // mean 2.5, var 1.25: (x - 2.5)/sqrt(1.25) = +-0.4472135954999579, +-1.3416407864998738
    struct ggml_tensor * n = mk_node(GGML_OP_NORM, GGML_TYPE_F32, 4, 1, 1, 1, a, NULL, NULL);
    p_f32(n, 0, 0.0f);
    expect("norm", n, (const double[]) { -1.3416407864998738, -0.4472135954999579, 0.4472135954999579, 1.3416407864998738 }, TOL);
    // eps 0.25: divide by sqrt(1.5) -> multiply by 0.8164965809277261
    n = mk_node(GGML_OP_NORM, GGML_TYPE_F32, 4, 1, 1, 1, strided_pad(a), NULL, NULL);
    p_f32(n, 0, 0.25f);
    expect("norm eps 0.25 (strided)", n,
            (const double[]) { -1.5*0.8164965809277261, -0.5*0.8164965809277261, 0.5*0.8164965809277261, 1.5*0.8164965809277261 }, TOL);

    struct ggml_tensor * b = mk(GGML_TYPE_F32, 2, 2, 1, 1, (const double[]) { 3, 4, -6, 8 });
    // rms: mean square 12.5 -> /3.5355339059327378; row 2: mean square 50 -> /7.0710678118654755
    n = mk_node(GGML_OP_RMS_NORM, GGML_TYPE_F32, 2, 2, 1, 1, b, NULL, NULL);
    expect("rms_norm", n, (const double[]) { 0.848528137423857, 1.131370849898476, -0.848528137423857, 1.131370849898476 }, TOL);
    n = mk_node(GGML_OP_L2_NORM, GGML_TYPE_F32, 2, 2, 1, 1, b, NULL, NULL);
    expect("l2_norm", n, (const double[]) { 0.6, 0.8, -0.6, 0.8 }, TOL);
    n = mk_node(GGML_OP_L2_NORM, GGML_TYPE_F32, 2, 2, 1, 1, b, NULL, NULL);
    p_f32(n, 0, 10.0f); // |row 0| = 5 < eps: divide by 10; |row 1| = 10: divide by 10
    expect("l2_norm eps 10", n, (const double[]) { 0.3, 0.4, -0.6, 0.8 }, TOL);

    // group norm: 3 channels of [2,1], 2 groups -> channels {0, 1} and {2}
    struct ggml_tensor * g = mk(GGML_TYPE_F32, 2, 1, 3, 1, (const double[]) { 1, 2, 3, 4, 10, 20 });
    n = mk_node(GGML_OP_GROUP_NORM, GGML_TYPE_F32, 2, 1, 3, 1, g, NULL, NULL);
    p_i32(n, 0, 2); p_f32(n, 1, 0.0f);
    expect("group_norm", n, (const double[]) { -1.3416407864998738, -0.4472135954999579, 0.4472135954999579,
            1.3416407864998738, -1, 1 }, TOL);
}

static void test_matmul(void) {
    // a(k, n): n0 = [1,2,3], n1 = [4,5,6]; b(k, m): m0 = [7,8,9], m1 = [10,11,12]
    // out(n, m) = a_n . b_m: (0,0) 50, (1,0) 122, (0,1) 68, (1,1) 167
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * b = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { 7, 8, 9, 10, 11, 12 });
    const double exp[4] = { 50, 122, 68, 167 };
    expect("mul_mat 2x3 by 3x2", mk_node(GGML_OP_MUL_MAT, GGML_TYPE_F32, 2, 2, 1, 1, a, b, NULL), exp, TOL);
    expect("mul_mat transposed a, padded b", mk_node(GGML_OP_MUL_MAT, GGML_TYPE_F32, 2, 2, 1, 1, strided_T(a), strided_pad(b), NULL), exp, TOL);
    struct ggml_tensor * a16 = mk(GGML_TYPE_F16, 3, 2, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * b16 = mk(GGML_TYPE_BF16, 3, 2, 1, 1, (const double[]) { 7, 8, 9, 10, 11, 12 });
    expect("mul_mat F16 x BF16", mk_node(GGML_OP_MUL_MAT, GGML_TYPE_F32, 2, 2, 1, 1, a16, b16, NULL), exp, TOL);

    // broadcast: a planes [1,2], [3,4]; b planes [1,1], [2,0], [0,1], [1,-1]: planes 0,1 use a0, 2,3 use a1
    const double bv[8] = { 1, 1, 2, 0, 0, 1, 1, -1 };
    struct ggml_tensor * a2 = mk(GGML_TYPE_F32, 2, 1, 2, 1, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * b2 = mk(GGML_TYPE_F32, 2, 1, 4, 1, bv);
    expect("mul_mat broadcast dim 2", mk_node(GGML_OP_MUL_MAT, GGML_TYPE_F32, 1, 1, 4, 1, a2, b2, NULL),
            (const double[]) { 3, 2, 4, -1 }, TOL);
    struct ggml_tensor * a3 = mk(GGML_TYPE_F32, 2, 1, 1, 2, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * b3 = mk(GGML_TYPE_F32, 2, 1, 1, 4, bv);
    expect("mul_mat broadcast dim 3", mk_node(GGML_OP_MUL_MAT, GGML_TYPE_F32, 1, 1, 1, 4, a3, b3, NULL),
            (const double[]) { 3, 2, 4, -1 }, TOL);
    expect_fail("mul_mat, K differs", mk_node(GGML_OP_MUL_MAT, GGML_TYPE_F32, 1, 1, 4, 1, a, b2, NULL));

    // out_prod: a(i, k) rows k: [1,2], [3,4], [5,6]; b(j, k): [1,0], [0,1], [1,1]
    // out(i, j) = sum_k a(i,k) b(j,k): (0,0) 1+5 = 6, (1,0) 2+6 = 8, (0,1) 3+5 = 8, (1,1) 4+6 = 10
    struct ggml_tensor * oa = mk(GGML_TYPE_F32, 2, 3, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * ob = mk(GGML_TYPE_F32, 2, 3, 1, 1, (const double[]) { 1, 0, 0, 1, 1, 1 });
    expect("out_prod", mk_node(GGML_OP_OUT_PROD, GGML_TYPE_F32, 2, 2, 1, 1, oa, ob, NULL), (const double[]) { 6, 8, 8, 10 }, TOL);
    expect("out_prod strided", mk_node(GGML_OP_OUT_PROD, GGML_TYPE_F32, 2, 2, 1, 1, strided_T(oa), strided_pad(ob), NULL),
            (const double[]) { 6, 8, 8, 10 }, TOL);
}

static struct ggml_tensor * softmax_node(struct ggml_tensor * a, struct ggml_tensor * mask, struct ggml_tensor * sinks,
        float scale, float max_bias) {
    struct ggml_tensor * n = mk_node(GGML_OP_SOFT_MAX, GGML_TYPE_F32, a->ne[0], a->ne[1], a->ne[2], a->ne[3], a, mask, sinks);
    p_f32(n, 0, scale);
    p_f32(n, 1, max_bias);
    return n;
}

static void test_softmax(void) {
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 1, 2, 3 });
    const double sm[3] = { 0.090030573170380462, 0.24472847105479767, 0.6652409557748219 };
    expect("soft_max [1,2,3]", softmax_node(a, NULL, NULL, 1.0f, 0.0f), sm, 1e-12);
    expect("soft_max [1,2,3] strided", softmax_node(strided_pad(a), NULL, NULL, 1.0f, 0.0f), sm, 1e-12);

    // scale 0.5 and mask [0, -inf, 0]: softmax of [0.5, -inf, 1.5]
    struct ggml_tensor * b = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 1, 7, 3 });
    struct ggml_tensor * m = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 0, NEG_INF, 0 });
    expect("soft_max scale + mask", softmax_node(b, m, NULL, 0.5f, 0.0f),
            (const double[]) { 0.26894142136999516, 0, 0.7310585786300049 }, 1e-12);

    // mask rows: a [2,2] rows [1,2]; mask [2,3] rows [0,0], [0,-inf], [5,5] (row 2 unused)
    struct ggml_tensor * c = mk(GGML_TYPE_F32, 2, 2, 1, 1, (const double[]) { 1, 2, 1, 2 });
    struct ggml_tensor * m2 = mk(GGML_TYPE_F16, 2, 3, 1, 1, (const double[]) { 0, 0, 0, NEG_INF, 5, 5 });
    expect("soft_max mask per row (F16, taller mask)", softmax_node(c, m2, NULL, 1.0f, 0.0f),
            (const double[]) { 0.2689414213699951, 0.7310585786300049, 1, 0 }, 1e-12);

    // ALiBi over 3 heads, max_bias 8: n_head_log2 = 2, m0 = 2^-4, m1 = 2^-2;
    // slopes: h0 m0 = 1/16, h1 m0^2 = 1/256, h2 m1 = 1/4. Rows [1, 1] + slope*[0, 16] (mask shared by heads)
    struct ggml_tensor * d = mk(GGML_TYPE_F32, 2, 1, 3, 1, (const double[]) { 1, 1, 1, 1, 1, 1 });
    struct ggml_tensor * m3 = mk(GGML_TYPE_F16, 2, 1, 1, 1, (const double[]) { 0, 16 });
    expect("soft_max ALiBi", softmax_node(d, m3, NULL, 1.0f, 8.0f),
            (const double[]) { 0.2689414213699951, 0.7310585786300049, 0.48438008427698442, 0.51561991572301569,
                               0.017986209962091559, 0.98201379003790845 }, 1e-12);

    // per-head masks broadcast over 4 heads: mask [2,1,2,1] head 0 [0,0], head 1 [0,-inf]; head h uses h % 2
    struct ggml_tensor * a4 = mk(GGML_TYPE_F32, 2, 1, 4, 1, (const double[]) { 1, 2, 1, 2, 1, 2, 1, 2 });
    struct ggml_tensor * mh = mk(GGML_TYPE_F32, 2, 1, 2, 1, (const double[]) { 0, 0, 0, NEG_INF });
    expect("soft_max per-head mask broadcast", softmax_node(a4, mh, NULL, 1.0f, 0.0f),
            (const double[]) { 0.2689414213699951, 0.7310585786300049, 1, 0, 0.2689414213699951, 0.7310585786300049, 1, 0 }, 1e-12);

    // sinks: head 0 sink 0 -> [e, e^2]/(1 + e + e^2); head 1 sink -inf -> plain softmax
    struct ggml_tensor * e = mk(GGML_TYPE_F32, 2, 1, 2, 1, (const double[]) { 1, 2, 1, 2 });
    struct ggml_tensor * sk = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 0, NEG_INF });
    expect("soft_max sinks", softmax_node(e, NULL, sk, 1.0f, 0.0f),
            (const double[]) { 0.24472847105479764, 0.6652409557748219, 0.2689414213699951, 0.7310585786300049 }, 1e-12);

    struct ggml_tensor * big = mk(GGML_TYPE_F32, 4, 3, 1, 1, (const double[]) { 1, -2, 3, 0.5, 2, 2, -1, 4, 0, 1, 7, -3 });
    expect_same("soft_max transposed input", softmax_node(big, NULL, NULL, 0.7f, 0.0f),
            softmax_node(strided_T(big), NULL, NULL, 0.7f, 0.0f));
    expect_fail("soft_max mask too narrow", softmax_node(c, a, NULL, 1.0f, 0.0f));
}

//
// rope
//

static struct ggml_tensor * rope_node(struct ggml_tensor * a, struct ggml_tensor * pos, struct ggml_tensor * ff,
        int n_dims, int mode, int n_ctx_orig, float freq_scale, float ext_factor, float attn_factor, const int * sections) {
    struct ggml_tensor * n = mk_node(GGML_OP_ROPE, a->type, a->ne[0], a->ne[1], a->ne[2], a->ne[3], a, pos, ff);
    p_i32(n, 1, n_dims); p_i32(n, 2, mode); p_i32(n, 4, n_ctx_orig);
    p_f32(n, 5, 10000.0f); p_f32(n, 6, freq_scale); p_f32(n, 7, ext_factor); p_f32(n, 8, attn_factor);
    p_f32(n, 9, 32.0f); p_f32(n, 10, 1.0f);
    for (int k = 0; k < 4; k++) {
        p_i32(n, 11 + k, sections ? sections[k] : 0);
    }
    return n;
}

// (x0, x1) rotated by angle t, scaled by m
static void rot(double x0, double x1, double t, double m, double * y0, double * y1) {
    *y0 = m*(x0*cos(t) - x1*sin(t));
    *y1 = m*(x0*sin(t) + x1*cos(t));
}

static void test_rope(void) {
    struct ggml_tensor * x = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * p2 = mk(GGML_TYPE_I32, 1, 1, 1, 1, (const double[]) { 2 });
    double e[4];

    // n_dims 4, base 10000: theta_scale = 10000^(-2/4) = 0.01; position 2 -> angles 2 and 0.02
    rot(1, 2, 2.0, 1, &e[0], &e[1]);
    rot(3, 4, 0.02, 1, &e[2], &e[3]);
    expect("rope normal", rope_node(x, p2, NULL, 4, GGML_ROPE_TYPE_NORMAL, 0, 1, 0, 1, NULL), e, 1e-12);

    // NEOX pairs (0, 2) by 2 and (1, 3) by 0.02
    rot(1, 3, 2.0, 1, &e[0], &e[2]);
    rot(2, 4, 0.02, 1, &e[1], &e[3]);
    expect("rope neox", rope_node(x, p2, NULL, 4, GGML_ROPE_TYPE_NEOX, 0, 1, 0, 1, NULL), e, 1e-12);

    // n_dims 2: one pair rotated by 2, dims 2 and 3 copied; attn_factor 2 scales the rotated pair
    rot(1, 2, 2.0, 2, &e[0], &e[1]);
    e[2] = 3; e[3] = 4;
    expect("rope n_dims 2, attn_factor 2", rope_node(x, p2, NULL, 2, GGML_ROPE_TYPE_NORMAL, 0, 1, 0, 2, NULL), e, 1e-12);

    // freq factors [1, 2]: the second angle is divided by 2
    struct ggml_tensor * ff = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 1, 2 });
    rot(1, 2, 2.0, 1, &e[0], &e[1]);
    rot(3, 4, 0.01, 1, &e[2], &e[3]);
    expect("rope freq factors", rope_node(x, p2, ff, 4, GGML_ROPE_TYPE_NORMAL, 0, 1, 0, 1, NULL), e, 1e-12);

    // YaRN: position 3, n_ctx_orig 4096, beta_fast 32, beta_slow 1, n_dims 4:
    //   corr dims = floor(4 ln(4096/(64 pi))/(2 ln 1e4)) = floor(0.6545) = 0, ceil(1.4071) = 2
    //   ramp(p) = 1 - clamp(p/2): p0 1, p1 0.5; ext_factor 1 -> mix = ramp
    //   p0: theta = extrapolated = 3; p1: 0.5*(0.5*0.03) + 0.5*0.03 = 0.0225
    //   magnitude 1 + 0.1 ln(1/freq_scale) = 1 + 0.1 ln 2
    struct ggml_tensor * p3 = mk(GGML_TYPE_I32, 1, 1, 1, 1, (const double[]) { 3 });
    const double ms = 1.0 + 0.1*0.6931471805599453;
    rot(1, 2, 3.0, ms, &e[0], &e[1]);
    rot(3, 4, 0.0225, ms, &e[2], &e[3]);
    expect("rope YaRN", rope_node(x, p3, NULL, 4, GGML_ROPE_TYPE_NORMAL, 4096, 0.5f, 1.0f, 1.0f, NULL), e, 1e-12);
    // freq_scale 0.5 without YaRN: angles halved, no magnitude change
    rot(1, 2, 1.5, 1, &e[0], &e[1]);
    rot(3, 4, 0.015, 1, &e[2], &e[3]);
    expect("rope freq_scale", rope_node(x, p3, NULL, 4, GGML_ROPE_TYPE_NORMAL, 4096, 0.5f, 0.0f, 1.0f, NULL), e, 1e-12);

    // multi-section: positions t 3, h 5, w 7, e 9
    struct ggml_tensor * p4 = mk(GGML_TYPE_I32, 4, 1, 1, 1, (const double[]) { 3, 5, 7, 9 });
    // MROPE sections [1,1,0,0], neox pairs: p0 sector 0 -> t: 3; p1 sector 1 -> h: 5*0.01
    const int s1100[4] = { 1, 1, 0, 0 };
    rot(1, 3, 3.0, 1, &e[0], &e[2]);
    rot(2, 4, 0.05, 1, &e[1], &e[3]);
    expect("rope mrope", rope_node(x, p4, NULL, 4, GGML_ROPE_TYPE_MROPE, 0, 1, 0, 1, s1100), e, 1e-12);
    // MROPE sections [0,1,1,0]: p0 sector 0 -> h: 5; p1 sector 1 -> w: 7*0.01
    const int s0110[4] = { 0, 1, 1, 0 };
    rot(1, 3, 5.0, 1, &e[0], &e[2]);
    rot(2, 4, 0.07, 1, &e[1], &e[3]);
    expect("rope mrope sections [0,1,1,0]", rope_node(x, p4, NULL, 4, GGML_ROPE_TYPE_MROPE, 0, 1, 0, 1, s0110), e, 1e-12);
    // IMROPE sections [0,1,1,0]: p0 sector 0 (t needs sector < 0) -> e: 9; p1 sector 1 -> h: 5*0.01
    rot(1, 3, 9.0, 1, &e[0], &e[2]);
    rot(2, 4, 0.05, 1, &e[1], &e[3]);
    expect("rope imrope", rope_node(x, p4, NULL, 4, GGML_ROPE_TYPE_IMROPE, 0, 1, 0, 1, s0110), e, 1e-12);
    // VISION, n_dims 2 = ne0/2, sections [1,1,0,0]: pairs (0,2) and (1,3); each section restarts
    // the frequency exponent: p0 -> t: 3, p1 -> h: 5 (not 5*theta_scale)
    rot(1, 3, 3.0, 1, &e[0], &e[2]);
    rot(2, 4, 5.0, 1, &e[1], &e[3]);
    expect("rope vision", rope_node(x, p4, NULL, 2, GGML_ROPE_TYPE_VISION, 0, 1, 0, 1, s1100), e, 1e-12);

    // MROPE over 2 positions: the positions tensor holds t t h h w w e e = 3 1 5 2 7 0 9 0
    struct ggml_tensor * x2 = mk(GGML_TYPE_F32, 4, 1, 2, 1, (const double[]) { 1, 2, 3, 4, 1, 2, 3, 4 });
    struct ggml_tensor * p8 = mk(GGML_TYPE_I32, 8, 1, 1, 1, (const double[]) { 3, 1, 5, 2, 7, 0, 9, 0 });
    double em[8];
    rot(1, 3, 3.0, 1, &em[0], &em[2]);
    rot(2, 4, 0.05, 1, &em[1], &em[3]);
    rot(1, 3, 1.0, 1, &em[4], &em[6]);
    rot(2, 4, 0.02, 1, &em[5], &em[7]);
    expect("rope mrope 2 positions", rope_node(x2, p8, NULL, 4, GGML_ROPE_TYPE_MROPE, 0, 1, 0, 1, s1100), em, 1e-12);

    // rows and positions: [2 dims, 2 heads, 2 positions] with positions {1, 2}: heads share the angle
    struct ggml_tensor * y = mk(GGML_TYPE_F32, 2, 2, 2, 1, (const double[]) { 1, 2, 3, 4, 5, 6, 7, 8 });
    struct ggml_tensor * p12 = mk(GGML_TYPE_I32, 2, 1, 1, 1, (const double[]) { 1, 2 });
    double e8[8];
    rot(1, 2, 1.0, 1, &e8[0], &e8[1]);
    rot(3, 4, 1.0, 1, &e8[2], &e8[3]);
    rot(5, 6, 2.0, 1, &e8[4], &e8[5]);
    rot(7, 8, 2.0, 1, &e8[6], &e8[7]);
    expect("rope heads x positions", rope_node(y, p12, NULL, 2, GGML_ROPE_TYPE_NORMAL, 0, 1, 0, 1, NULL), e8, 1e-12);
    expect("rope heads x positions (strided)", rope_node(strided_pad(y), p12, NULL, 2, GGML_ROPE_TYPE_NORMAL, 0, 1, 0, 1, NULL), e8, 1e-12);

    struct ggml_tensor * bad = rope_node(x, p2, NULL, 4, 1, 0, 1, 0, 1, NULL);
    expect_fail("rope mode 1", bad);
    TEST_CHECK(!ggml_ref_supports(bad));
    expect_fail("rope odd n_dims", rope_node(x, p2, NULL, 3, GGML_ROPE_TYPE_NORMAL, 0, 1, 0, 1, NULL));
}

//
// convolution family
//

static void test_conv(void) {
    double img[32];
    for (int i = 0; i < 32; i++) {
        img[i] = i + 1; // img(x, y, c) = 1 + x + 4y + 16c
    }
    // im2col 2-D, 3x3 image 1..9, 2x2 kernel, stride 1: patches [1,2,4,5] [2,3,5,6] [4,5,7,8] [5,6,8,9]
    struct ggml_tensor * im = mk(GGML_TYPE_F32, 3, 3, 1, 1, img);
    struct ggml_tensor * k22 = mk(GGML_TYPE_F16, 2, 2, 1, 1, NULL); // shape only
    for (int k = 0; k < 2; k++) {
        const enum ggml_type t = k == 0 ? GGML_TYPE_F32 : GGML_TYPE_F16;
        struct ggml_tensor * n = mk_node(GGML_OP_IM2COL, t, 4, 2, 2, 1, k22, im, NULL);
        p_i32(n, 0, 1); p_i32(n, 1, 1); p_i32(n, 2, 0); p_i32(n, 3, 0); p_i32(n, 4, 1); p_i32(n, 5, 1); p_i32(n, 6, 1);
        expect(k == 0 ? "im2col 2-D" : "im2col 2-D to F16", n,
                (const double[]) { 1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9 }, 0.0);
    }
    // stride 2, padding 1: windows start at -1 and 1 in both directions
    struct ggml_tensor * n = mk_node(GGML_OP_IM2COL, GGML_TYPE_F32, 4, 2, 2, 1, k22, im, NULL);
    p_i32(n, 0, 2); p_i32(n, 1, 2); p_i32(n, 2, 1); p_i32(n, 3, 1); p_i32(n, 4, 1); p_i32(n, 5, 1); p_i32(n, 6, 1);
    expect("im2col 2-D stride 2 pad 1", n, (const double[]) { 0, 0, 0, 1, 0, 0, 2, 3, 0, 4, 0, 7, 5, 6, 8, 9 }, 0.0);
    // 1-D: [1,2,3,4], kernel 2, stride 2, padding 1 -> [0,1] [2,3] [4,0]
    struct ggml_tensor * s1 = mk(GGML_TYPE_F32, 4, 1, 1, 1, img);
    struct ggml_tensor * k2 = mk(GGML_TYPE_F32, 2, 1, 1, 1, NULL);
    n = mk_node(GGML_OP_IM2COL, GGML_TYPE_F32, 2, 3, 1, 1, k2, s1, NULL);
    p_i32(n, 0, 2); p_i32(n, 2, 1); p_i32(n, 4, 1); p_i32(n, 6, 0);
    expect("im2col 1-D", n, (const double[]) { 0, 1, 2, 3, 4, 0 }, 0.0);
    // 1-D with 2 channels [1..4], [5..8], kernel 2, stride 2: [1,2,5,6] [3,4,7,8]
    struct ggml_tensor * s2 = mk(GGML_TYPE_F32, 4, 2, 1, 1, img);
    struct ggml_tensor * k2c = mk(GGML_TYPE_F32, 2, 2, 1, 1, NULL);
    n = mk_node(GGML_OP_IM2COL, GGML_TYPE_F32, 4, 2, 1, 1, k2c, s2, NULL);
    p_i32(n, 0, 2); p_i32(n, 4, 1); p_i32(n, 6, 0);
    expect("im2col 1-D 2 channels", n, (const double[]) { 1, 2, 5, 6, 3, 4, 7, 8 }, 0.0);

    // conv_2d, 3x3 kernel k(kx, ky) = 1 + kx + 3ky over the 4x4 image 1..16, no padding:
    // out(0,0) = [1,2,3].[1,2,3] + [4,5,6].[5,6,7] + [7,8,9].[9,10,11] = 14 + 92 + 242 = 348,
    // each step in x adds sum(k) = 45, each step in y adds 4*45 = 180
    double kv[9];
    for (int i = 0; i < 9; i++) {
        kv[i] = i + 1;
    }
    struct ggml_tensor * img1 = mk(GGML_TYPE_F32, 4, 4, 1, 1, img);
    struct ggml_tensor * ker1 = mk(GGML_TYPE_F32, 3, 3, 1, 1, kv);
    n = mk_node(GGML_OP_CONV_2D, GGML_TYPE_F32, 2, 2, 1, 1, ker1, img1, NULL);
    p_i32(n, 0, 1); p_i32(n, 1, 1); p_i32(n, 4, 1); p_i32(n, 5, 1);
    expect("conv_2d 3x3 over 4x4", n, (const double[]) { 348, 393, 528, 573 }, TOL);
    // 2 input and 2 output channels, kernel ((7kx + 3ky + 5ic + 11oc) mod 9) - 4 (computed independently)
    static const double k2v[36] = { -4, 3, 1, -1, -3, 4, 2, 0, -2, 1, -1, -3, 4, 2, 0, -2, -4, 3,
                                    -2, -4, 3, 1, -1, -3, 4, 2, 0, 3, 1, -1, -3, 4, 2, 0, -2, -4 };
    struct ggml_tensor * img2 = mk(GGML_TYPE_F32, 4, 4, 2, 1, img);
    struct ggml_tensor * ker2 = mk(GGML_TYPE_F16, 3, 3, 2, 2, k2v);
    n = mk_node(GGML_OP_CONV_2D, GGML_TYPE_F32, 2, 2, 2, 1, ker2, img2, NULL);
    p_i32(n, 0, 2); p_i32(n, 1, 2); p_i32(n, 2, 1); p_i32(n, 3, 1); p_i32(n, 4, 1); p_i32(n, 5, 1);
    expect("conv_2d 2->2 channels stride 2 pad 1", n, (const double[]) { 9, 47, -57, 3, -23, -55, -42, -6 }, TOL);
    n = mk_node(GGML_OP_CONV_2D, GGML_TYPE_F32, 2, 2, 2, 1, ker2, img2, NULL);
    p_i32(n, 0, 1); p_i32(n, 1, 1); p_i32(n, 2, 1); p_i32(n, 3, 1); p_i32(n, 4, 2); p_i32(n, 5, 2);
    expect("conv_2d dilation 2 pad 1", n, (const double[]) { 2, -52, 2, 115, -54, 47, 116, 87 }, TOL);

    // max pool where the maximum is not the last element of the window: 3x3 [5 1 2; 0 3 6; 4 8 7], k 2, s 1
    struct ggml_tensor * pm = mk(GGML_TYPE_F16, 3, 3, 1, 1, (const double[]) { 5, 1, 2, 0, 3, 6, 4, 8, 7 });
    n = mk_node(GGML_OP_POOL_2D, GGML_TYPE_F32, 2, 2, 1, 1, pm, NULL, NULL);
    p_i32(n, 0, GGML_OP_POOL_MAX); p_i32(n, 1, 2); p_i32(n, 2, 2); p_i32(n, 3, 1); p_i32(n, 4, 1);
    expect("pool_2d max 3x3", n, (const double[]) { 5, 6, 8, 8 }, 0.0);

    // pool_2d over the 4x4 image 1..16
    struct ggml_tensor * pool_in = mk(GGML_TYPE_F32, 4, 4, 2, 1, img);
    static const struct { int op, pad; int64_t ow; double v[9]; } pools[] = {
        { GGML_OP_POOL_MAX, 0, 2, { 6, 8, 14, 16 } },
        { GGML_OP_POOL_AVG, 0, 2, { 3.5, 5.5, 11.5, 13.5 } },
        // padding 1: windows start at -1, 1, 3; AVG divides by k0*k1 = 4 (padding counted)
        { GGML_OP_POOL_MAX, 1, 3, { 1, 3, 4, 9, 11, 12, 13, 15, 16 } },
        { GGML_OP_POOL_AVG, 1, 3, { 0.25, 1.25, 1, 3.5, 8.5, 5, 3.25, 7.25, 4 } },
    };
    for (size_t k = 0; k < sizeof(pools)/sizeof(pools[0]); k++) {
        const int64_t ow = pools[k].ow;
        n = mk_node(GGML_OP_POOL_2D, GGML_TYPE_F32, ow, ow, 2, 1, pool_in, NULL, NULL);
        p_i32(n, 0, pools[k].op); p_i32(n, 1, 2); p_i32(n, 2, 2); p_i32(n, 3, 2); p_i32(n, 4, 2);
        p_i32(n, 5, pools[k].pad); p_i32(n, 6, pools[k].pad);
        // the second channel is the first plus 16
        double e[18];
        for (int64_t i = 0; i < ow*ow; i++) {
            e[i] = pools[k].v[i];
            e[ow*ow + i] = pools[k].v[i] + 16;
        }
        if (pools[k].op == GGML_OP_POOL_AVG && pools[k].pad == 1) {
            // AVG with padding: the +16 only applies to the in-bounds elements
            static const double cnt[9] = { 1, 2, 1, 2, 4, 2, 1, 2, 1 };
            for (int64_t i = 0; i < 9; i++) {
                e[9 + i] = pools[k].v[i] + 16*cnt[i]/4;
            }
        }
        char what[64];
        snprintf(what, sizeof(what), "pool_2d %s pad %d", pools[k].op == GGML_OP_POOL_MAX ? "max" : "avg", pools[k].pad);
        expect(what, n, e, TOL);
    }
}

//
// sorting
//

static void test_sort(void) {
    struct ggml_tensor * a = mk(GGML_TYPE_F32, 4, 2, 1, 1, (const double[]) { 3, 1, 2, 1, -1, 5, 5, 0 });
    struct ggml_tensor * n = mk_node(GGML_OP_ARGSORT, GGML_TYPE_I32, 4, 2, 1, 1, a, NULL, NULL);
    p_i32(n, 0, GGML_SORT_ORDER_ASC);
    expect("argsort asc (ties: lower index first)", n, (const double[]) { 1, 3, 2, 0, 0, 3, 1, 2 }, 0.0);
    n = mk_node(GGML_OP_ARGSORT, GGML_TYPE_I32, 4, 2, 1, 1, strided_T(a), NULL, NULL);
    p_i32(n, 0, GGML_SORT_ORDER_DESC);
    expect("argsort desc (strided)", n, (const double[]) { 0, 2, 1, 3, 1, 2, 3, 0 }, 0.0);
    n = mk_node(GGML_OP_TOP_K, GGML_TYPE_I32, 2, 2, 1, 1, a, NULL, NULL);
    expect("top_k 2", n, (const double[]) { 0, 2, 1, 2 }, 0.0);
    n = mk_node(GGML_OP_TOP_K, GGML_TYPE_I32, 5, 2, 1, 1, a, NULL, NULL);
    expect_fail("top_k larger than the row", n);
}

//
// flash attention
//

static struct ggml_tensor * fa_node(struct ggml_tensor * q, struct ggml_tensor * k, struct ggml_tensor * v,
        struct ggml_tensor * mask, struct ggml_tensor * sinks, float scale, float max_bias, float softcap) {
    struct ggml_tensor * n = mk_node(GGML_OP_FLASH_ATTN_EXT, GGML_TYPE_F32, v->ne[0], q->ne[2], q->ne[1], q->ne[3], q, k, v);
    n->src[3] = mask;
    n->src[4] = sinks;
    p_f32(n, 0, scale); p_f32(n, 1, max_bias); p_f32(n, 2, softcap);
    return n;
}

static void test_flash_attn(void) {
    // q(d, row, head): head 0 rows [1,0], [0,1]; head 1 rows [0.5,0.5], [1,-1]; one kv head (GQA)
    // k rows [1,0], [0,1], [1,1]; v rows [1,2,3], [4,5,6], [-1,0,1]; mask rows [0,0,-inf], [0,-1,0]
    // Results computed independently; layout [DV, head, row].
    struct ggml_tensor * q = mk(GGML_TYPE_F32, 2, 2, 2, 1, (const double[]) { 1, 0, 0, 1, 0.5, 0.5, 1, -1 });
    struct ggml_tensor * k = mk(GGML_TYPE_F16, 2, 3, 1, 1, (const double[]) { 1, 0, 0, 1, 1, 1 });
    struct ggml_tensor * v = mk(GGML_TYPE_F16, 3, 3, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6, -1, 0, 1 });
    struct ggml_tensor * m = mk(GGML_TYPE_F16, 3, 2, 1, 1, (const double[]) { 0, 0, NEG_INF, 0, -1, 0 });
    struct ggml_tensor * s = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 0.5, -1 });

    static const double fa_plain[12] = {
        0.93078615047559454, 1.9307861504755945, 2.930786150475595, 1.1315303969419883, 2.1315303969419883, 3.1315303969419879,
        1.3836517311905507, 2.3836517311905507, 3.3836517311905512, 0.94457939824054593, 1.9445793982405459, 2.9445793982405459 };
    static const double fa_mask_cap_sinks[12] = {
        1.3156623938915508, 1.9305166116895518, 2.545370829487553, 2.1863889849137603, 3.0609445788792646, 3.9355001728447689,
        0.36252393276172862, 1.0247521869281113, 1.6869804410944942, 0.4755121141222331, 1.3614529755415075, 2.2473938369607818 };
    static const double fa_alibi[12] = {
        2.1326220063944361, 3.1326220063944361, 4.1326220063944366, 2.5, 3.5, 4.5,
        1.321389346198337, 2.3213893461983366, 3.3213893461983375, 0.9423583048217381, 1.9423583048217381, 2.9423583048217381 };

    expect("flash_attn_ext scale 0.5", fa_node(q, k, v, NULL, NULL, 0.5f, 0.0f, 0.0f), fa_plain, 1e-12);
    expect("flash_attn_ext mask + softcap 2 + sinks", fa_node(q, k, v, m, s, 0.5f, 0.0f, 2.0f), fa_mask_cap_sinks, 1e-12);
    expect("flash_attn_ext ALiBi max_bias 8", fa_node(q, k, v, m, NULL, 0.5f, 8.0f, 0.0f), fa_alibi, 1e-12);

    // the same k/v repeated for both heads (no GQA) and a strided q give the same results
    struct ggml_tensor * k2 = mk(GGML_TYPE_F32, 2, 3, 2, 1, (const double[]) { 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1 });
    struct ggml_tensor * v2 = mk(GGML_TYPE_F32, 3, 3, 2, 1, (const double[]) { 1, 2, 3, 4, 5, 6, -1, 0, 1, 1, 2, 3, 4, 5, 6, -1, 0, 1 });
    expect("flash_attn_ext without GQA, strided q", fa_node(strided_pad(q), k2, v2, m, s, 0.5f, 0.0f, 2.0f), fa_mask_cap_sinks, 1e-12);

    // GQA with 2 kv heads for 4 query heads: heads 0, 1 use kv head 0 (= k, v above), heads 2, 3
    // kv head 1 with keys 2k (as if scale were 1) and values v + 10 (the weights sum to 1: + 10)
    static const double fa_scale1[12] = {
        0.62144961398785448, 1.6214496139878545, 2.6214496139878545, 0.91848033342837876, 1.9184803334283786, 2.9184803334283789,
        1.4223187982515184, 2.4223187982515184, 3.422318798251518, 0.78063477740154597, 1.7806347774015461, 2.7806347774015459 };
    struct ggml_tensor * q4 = mk(GGML_TYPE_F32, 2, 2, 4, 1, (const double[]) { 1, 0, 0, 1, 0.5, 0.5, 1, -1, 1, 0, 0, 1, 0.5, 0.5, 1, -1 });
    struct ggml_tensor * k4 = mk(GGML_TYPE_F32, 2, 3, 2, 1, (const double[]) { 1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 2, 2 });
    struct ggml_tensor * v4 = mk(GGML_TYPE_F32, 3, 3, 2, 1, (const double[]) { 1, 2, 3, 4, 5, 6, -1, 0, 1, 11, 12, 13, 14, 15, 16, 9, 10, 11 });
    double e4[24];
    for (int i1 = 0; i1 < 2; i1++) {
        for (int h = 0; h < 4; h++) {
            for (int d = 0; d < 3; d++) {
                const int src = d + 3*(h % 2 + 2*i1);
                e4[d + 3*(h + 4*i1)] = h < 2 ? fa_plain[src] : fa_scale1[src] + 10;
            }
        }
    }
    expect("flash_attn_ext GQA 4 heads on 2 kv heads", fa_node(q4, k4, v4, NULL, NULL, 0.5f, 0.0f, 0.0f), e4, 1e-12);

    // every kv masked and no sink: zeros
    struct ggml_tensor * mall = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { NEG_INF, NEG_INF, NEG_INF, NEG_INF, NEG_INF, NEG_INF });
    expect("flash_attn_ext fully masked", fa_node(q, k, v, mall, NULL, 0.5f, 0.0f, 0.0f),
            (const double[]) { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 0.0);
    expect_fail("flash_attn_ext q/k width differ", fa_node(q, v, v, NULL, NULL, 1.0f, 0.0f, 0.0f));
}

//
// issue 22's shape2 group: UPSCALE, WIN_PART / WIN_UNPART, GET_REL_POS, ADD_REL_POS, COL2IM_1D,
// IM2COL_BACK
//

static struct ggml_tensor * upscale_node(struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, uint32_t mode) {
    struct ggml_tensor * t = mk_node(GGML_OP_UPSCALE, GGML_TYPE_F32, ne0, ne1, ne2, 1, a, NULL, NULL);
    p_i32(t, 0, (int32_t) mode);
    return t;
}

static void test_shape2(void) {
    // nearest x2: i/2
    struct ggml_tensor * a3 = mk(GGML_TYPE_F32, 3, 1, 1, 1, (const double[]) { 1, 2, 3 });
    expect("upscale nearest", upscale_node(a3, 6, 1, 1, GGML_SCALE_MODE_NEAREST), (const double[]) { 1, 1, 2, 2, 3, 3 }, TOL);
    // bilinear, half-pixel centres: x = (i + 0.5)/2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to [0, 1]
    struct ggml_tensor * a2 = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 0, 4 });
    expect("upscale bilinear", upscale_node(a2, 4, 1, 1, GGML_SCALE_MODE_BILINEAR), (const double[]) { 0, 1, 3, 4 }, TOL);
    // align corners: x = i*(2 - 1)/(3 - 1)
    expect("upscale bilinear align", upscale_node(a2, 3, 1, 1, GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ALIGN_CORNERS),
            (const double[]) { 0, 2, 4 }, TOL);
    // bicubic (a = -0.75) at x = -0.25: taps -2..1 clamped read 0, 0, 0, 4; the last weight is
    // K(1.25) = a*1.25^3 - 5a*1.25^2 + 8a*1.25 - 4a = -0.10546875, so 4*K = -0.421875. At x = 0.25:
    // 4*(K(0.75) + K(1.75)) = 4*(0.26171875 - 0.03515625) = 0.90625; the other two by symmetry
    expect("upscale bicubic", upscale_node(a2, 4, 1, 1, GGML_SCALE_MODE_BICUBIC),
            (const double[]) { -0.421875, 0.90625, 3.09375, 4.421875 }, TOL);
    // antialiased shrink 4 -> 2: support 2, centres x = 1 and 3; weights 1 - |j + 0.5 - x|/2 over
    // the windows [0, 3) and [1, 4): (0.75*1 + 0.75*2 + 0.25*3)/1.75 = 12/7, (0.25*2 + 0.75*3 + 0.75*4)/1.75 = 23/7
    struct ggml_tensor * a4 = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { 1, 2, 3, 4 });
    expect("upscale antialias", upscale_node(a4, 2, 1, 1, GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS),
            (const double[]) { 12.0/7.0, 23.0/7.0 }, TOL);
    // dim 2 is always nearest: 3 -> 2 picks trunc(i/(2/3)) = 0, 1
    struct ggml_tensor * az = mk(GGML_TYPE_F32, 1, 1, 3, 1, (const double[]) { 5, 6, 7 });
    expect("upscale dim 2", upscale_node(az, 1, 1, 2, GGML_SCALE_MODE_BICUBIC), (const double[]) { 5, 6 }, TOL);
    // a transposed source gives the same as a contiguous one
    struct ggml_tensor * m = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { 1, -2, 3, 4, 0.5, -6 });
    expect_same("upscale strided", upscale_node(m, 7, 5, 1, GGML_SCALE_MODE_BICUBIC),
            upscale_node(strided_T(m), 7, 5, 1, GGML_SCALE_MODE_BICUBIC));

    // windows of 2 over a [1, 3, 2] image a(x, y) = 1 + x + 3y: window 0 holds x 0..1, window 1 x 2 and padding
    struct ggml_tensor * img = mk(GGML_TYPE_F32, 1, 3, 2, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * wp = mk_node(GGML_OP_WIN_PART, GGML_TYPE_F32, 1, 2, 2, 2, img, NULL, NULL);
    p_i32(wp, 0, 2);
    p_i32(wp, 1, 1);
    p_i32(wp, 2, 2);
    expect("win_part", wp, (const double[]) { 1, 2, 4, 5, 3, 0, 6, 0 }, 0.0);
    struct ggml_tensor * wins = mk(GGML_TYPE_F32, 1, 2, 2, 2, (const double[]) { 1, 2, 4, 5, 3, 0, 6, 0 });
    struct ggml_tensor * wu = mk_node(GGML_OP_WIN_UNPART, GGML_TYPE_F32, 1, 3, 2, 1, wins, NULL, NULL);
    p_i32(wu, 0, 2);
    expect("win_unpart", wu, (const double[]) { 1, 2, 3, 4, 5, 6 }, 0.0);

    // out[k, q] = a[(2 - 1 - k) + q]
    struct ggml_tensor * rp = mk(GGML_TYPE_F16, 1, 3, 1, 1, (const double[]) { 10, 20, 30 });
    expect("get_rel_pos", mk_node(GGML_OP_GET_REL_POS, GGML_TYPE_F16, 1, 2, 2, 1, rp, NULL, NULL),
            (const double[]) { 20, 10, 30, 20 }, 0.0);
    // out[kw + 2*kh] = a + pw[kw] + ph[kh]
    struct ggml_tensor * ra = mk(GGML_TYPE_F32, 4, 1, 1, 1, (const double[]) { 1, 2, 3, 4 });
    struct ggml_tensor * pw = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 10, 20 });
    struct ggml_tensor * ph = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 100, 200 });
    expect("add_rel_pos", mk_node(GGML_OP_ADD_REL_POS, GGML_TYPE_F32, 4, 1, 1, 1, ra, pw, ph),
            (const double[]) { 111, 122, 213, 224 }, 0.0);

    // overlap-add of K = 2 taps per column, stride 1: out[t] = sum of a[k, j] with j + k = t - (-p0)
    struct ggml_tensor * cols = mk(GGML_TYPE_F32, 2, 3, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * c2i = mk_node(GGML_OP_COL2IM_1D, GGML_TYPE_F32, 4, 1, 1, 1, cols, NULL, NULL);
    p_i32(c2i, 0, 1);
    p_i32(c2i, 1, 1);
    p_i32(c2i, 2, 0);
    expect("col2im_1d", c2i, (const double[]) { 1, 2 + 3, 4 + 5, 6 }, 0.0);
    struct ggml_tensor * c2c = mk_node(GGML_OP_COL2IM_1D, GGML_TYPE_F32, 2, 1, 1, 1, cols, NULL, NULL);
    p_i32(c2c, 0, 1);
    p_i32(c2c, 1, 1);
    p_i32(c2c, 2, 1);
    expect("col2im_1d cropped", c2c, (const double[]) { 5, 9 }, 0.0);
    // the adjoint of a 1-d im2col with KW = 3, stride 2, padding 1 over 4 samples (OW = 2): column
    // element (kx, ox) goes to x = 2*ox - 1 + kx: x = -1 (dropped), 0, 1 from ox = 0, x = 1, 2, 3 from ox = 1
    struct ggml_tensor * g2 = mk(GGML_TYPE_F32, 3, 2, 1, 1, (const double[]) { 1, 2, 3, 4, 5, 6 });
    struct ggml_tensor * kern = mk(GGML_TYPE_F32, 3, 1, 1, 1, NULL);
    struct ggml_tensor * ib = mk_node(GGML_OP_IM2COL_BACK, GGML_TYPE_F32, 4, 1, 1, 1, g2, kern, NULL);
    p_i32(ib, 0, 2);
    p_i32(ib, 2, 1);
    p_i32(ib, 4, 1);
    expect("im2col_back 1-d", ib, (const double[]) { 2, 3 + 4, 5, 6 }, 0.0);
}

//
// library helpers: element access, coverage, nmse, errors
//

static void test_helpers(void) {
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F64,
                                            GGML_TYPE_I8, GGML_TYPE_I16, GGML_TYPE_I32, GGML_TYPE_I64 };
    for (size_t k = 0; k < sizeof(types)/sizeof(types[0]); k++) {
        struct ggml_tensor * t = mk(types[k], 2, 2, 1, 1, (const double[]) { -3, 5, 7, -100 });
        const bool ok = ggml_ref_get(t, 0, 0, 0, 0) == -3 && ggml_ref_get(t, 1, 0, 0, 0) == 5 &&
                        ggml_ref_get(t, 0, 1, 0, 0) == 7 && ggml_ref_get(t, 1, 1, 0, 0) == -100;
        TEST_CHECK_MSG(ok, "ggml_ref_get %s", ggml_type_name(types[k]));
    }
    struct ggml_tensor * h = mk(GGML_TYPE_F16, 1, 1, 1, 1, (const double[]) { 0.1 });
    TEST_CHECK(ggml_ref_get(h, 0, 0, 0, 0) == 0.0999755859375);
    struct ggml_tensor * q = ggml_new_tensor_1d(g_ctx, GGML_TYPE_Q4_0, 32);
    TEST_CHECK(isnan(ggml_ref_get(q, 0, 0, 0, 0)));

    int n_ops = 0;
    const enum ggml_op * ops = ggml_ref_ops(&n_ops);
    bool has_fa = false, has_glu = false;
    for (int i = 0; i < n_ops; i++) {
        has_fa  |= ops[i] == GGML_OP_FLASH_ATTN_EXT;
        has_glu |= ops[i] == GGML_OP_GLU;
    }
    TEST_CHECK(n_ops >= 73 && has_fa && has_glu); // 53 + issue 22's misc (8) and training (12) ops
    TEST_CHECK(ggml_ref_unary_covered(GGML_UNARY_OP_TRUNC) && !ggml_ref_unary_covered(GGML_UNARY_OP_COUNT));
    TEST_CHECK(ggml_ref_glu_covered(GGML_GLU_OP_SWIGLU_OAI) && !ggml_ref_glu_covered(GGML_GLU_OP_COUNT));

    struct ggml_tensor * a = mk(GGML_TYPE_F32, 2, 1, 1, 1, (const double[]) { 1, 2 });
    TEST_CHECK(ggml_ref_supports(mk_node(GGML_OP_ADD, GGML_TYPE_F32, 2, 1, 1, 1, a, a, NULL)));
    TEST_CHECK(!ggml_ref_supports(NULL));
    // a user callback: never computable by the reference
    struct ggml_tensor * cum = mk_node(GGML_OP_MAP_CUSTOM1, GGML_TYPE_F32, 2, 1, 1, 1, a, NULL, NULL);
    TEST_CHECK(!ggml_ref_supports(cum));
    expect_fail("unsupported op MAP_CUSTOM1", cum);
    // CUMSUM (now covered) on a known row: 1, 1 + 2
    struct ggml_tensor * cs = mk_node(GGML_OP_CUMSUM, GGML_TYPE_F32, 2, 1, 1, 1, a, NULL, NULL);
    double cs_out[2] = { 0, 0 };
    TEST_CHECK(ggml_ref_supports(cs) && ggml_ref_compute(cs, cs_out, NULL, 0) && cs_out[0] == 1.0 && cs_out[1] == 3.0);
    struct ggml_tensor * qa = mk_node(GGML_OP_SQR, GGML_TYPE_F32, 32, 1, 1, 1, q, NULL, NULL);
    TEST_CHECK(!ggml_ref_supports(qa));
    expect_fail("quantized source", qa);
    struct ggml_tensor * nodata = ggml_new_tensor_1d(g_ctx, GGML_TYPE_F32, 2);
    nodata->data = NULL;
    expect_fail("source without data", mk_node(GGML_OP_SQR, GGML_TYPE_F32, 2, 1, 1, 1, nodata, NULL, NULL));
    double out[2];
    TEST_CHECK(!ggml_ref_compute(NULL, out, NULL, 0)); // no err buffer: no crash
    TEST_CHECK(!ggml_ref_compute(a, NULL, NULL, 0));

    // nmse
    const double r[3] = { 1, 2, 2 };
    TEST_CHECK(ggml_ref_nmse(r, (const float[]) { 1, 2, 2 }, 3) == 0.0);
    TEST_CHECK(fabs(ggml_ref_nmse(r, (const float[]) { 1, 2, 2.5f }, 3) - 0.25/9.0) < 1e-15);
    const double z[2] = { 0, 0 };
    TEST_CHECK(ggml_ref_nmse(z, (const float[]) { 0, 0 }, 2) == 0.0);
    TEST_CHECK(fabs(ggml_ref_nmse(z, (const float[]) { 0.5f, 0 }, 2) - 0.125) < 1e-15);
    const double ri[2] = { NEG_INF, 1 };
    TEST_CHECK(ggml_ref_nmse(ri, (const float[]) { -INFINITY, 1 }, 2) == 0.0);
    TEST_CHECK(isinf(ggml_ref_nmse(ri, (const float[]) { 0, 1 }, 2)));
    TEST_CHECK(isinf(ggml_ref_nmse(r, (const float[]) { 1, NAN, 2 }, 3)));
}

int main(void) {
    struct ggml_init_params params = { 16*1024*1024, NULL, false };
    g_ctx = ggml_init(params);
    if (!TEST_CHECK(g_ctx != NULL)) {
        return test_finish("test-reference");
    }
    test_binary();
    test_acc_set();
    test_map();
    test_unary();
    test_glu();
    test_reduce();
    test_shape();
    test_views_copies();
    test_rows();
    test_norm();
    test_matmul();
    test_softmax();
    test_rope();
    test_conv();
    test_sort();
    test_flash_attn();
    test_shape2();
    test_helpers();
    ggml_free(g_ctx);
    return test_finish("test-reference");
}
