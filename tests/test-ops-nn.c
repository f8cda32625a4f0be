// Op constructors of src/ggml-ops-nn.c and src/ggml-ops-attn.c: every node stores what
// docs/op-params.md says (op, type, shape, sources, op_params), and every bad input gives NULL
// with a logged error instead of killing the process.

#include "ggml.h"
#include "test-common.h"

#include <math.h>
#include <string.h>

static struct ggml_context * g_ctx;

typedef struct ggml_tensor tensor;

static tensor * new4(enum ggml_type type, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    return ggml_new_tensor_4d(g_ctx, type, n0, n1, n2, n3);
}

static tensor * new1(enum ggml_type type, int64_t n0) {
    return ggml_new_tensor_1d(g_ctx, type, n0);
}

static int32_t pi32(const tensor * t, int i) {
    return t->op_params[i];
}

static float pf32(const tensor * t, int i) {
    float v;
    memcpy(&v, &t->op_params[i], sizeof(v));
    return v;
}

static bool has_ne(const tensor * t, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    return t != NULL && t->ne[0] == n0 && t->ne[1] == n1 && t->ne[2] == n2 && t->ne[3] == n3;
}

static bool same_ne(const tensor * t, const tensor * u) {
    return has_ne(t, u->ne[0], u->ne[1], u->ne[2], u->ne[3]);
}

// a view of t with dims 0 and 1 swapped (what a transpose makes), built without the shape ops
static tensor * transposed_view(tensor * t) {
    tensor * v = ggml_view_tensor(g_ctx, t);
    int64_t ne = v->ne[0]; v->ne[0] = v->ne[1]; v->ne[1] = ne;
    size_t  nb = v->nb[0]; v->nb[0] = v->nb[1]; v->nb[1] = nb;
    return v;
}

static int64_t rnd(int64_t lo, int64_t hi) {
    return test_rand_int(lo, hi);
}

// Runs `call` with the log captured; it must return NULL and log at least one error, whose text
// names `func`.
#define EXPECT_FAIL(func, call) do {                                                           \
        test_log_capture_begin();                                                              \
        tensor * r_ = (call);                                                                  \
        int e_ = test_log_error_count();                                                       \
        bool named_ = strstr(test_log_text(), func) != NULL;                                  \
        test_log_capture_end();                                                                \
        TEST_CHECK_MSG(r_ == NULL && e_ > 0 && named_, "%s: expected NULL + error naming %s,"  \
                " got %p with %d errors", #call, func, (void *) r_, e_);                      \
    } while (0)

// For the void setters: `stmt` must log at least one error.
#define EXPECT_LOGS_ERROR(stmt) do {                                                           \
        test_log_capture_begin();                                                              \
        stmt;                                                                                  \
        int e_ = test_log_error_count();                                                       \
        test_log_capture_end();                                                                \
        TEST_CHECK_MSG(e_ > 0, "%s: expected an error to be logged", #stmt);                  \
    } while (0)

// common checks of a node: op, type, sources
static bool node_is(const tensor * t, enum ggml_op op, enum ggml_type type, const tensor * s0, const tensor * s1,
        const tensor * s2) {
    return t != NULL && t->op == op && t->type == type && t->src[0] == s0 && t->src[1] == s1 && t->src[2] == s2;
}

//
// normalization
//

static void test_norms(void) {
    for (int it = 0; it < 20; it++) {
        const enum ggml_type type = it % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        tensor * a = new4(type, rnd(1, 40), rnd(1, 5), rnd(1, 6), rnd(1, 3));
        const float eps = (float) test_rand_uniform(1e-7, 1e-3);

        struct { tensor * (*fn)(struct ggml_context *, tensor *, float); enum ggml_op op; bool inplace; } cases[] = {
            { ggml_norm,             GGML_OP_NORM,     false },
            { ggml_norm_inplace,     GGML_OP_NORM,     true  },
            { ggml_rms_norm,         GGML_OP_RMS_NORM, false },
            { ggml_rms_norm_inplace, GGML_OP_RMS_NORM, true  },
            { ggml_l2_norm,          GGML_OP_L2_NORM,  false },
            { ggml_l2_norm_inplace,  GGML_OP_L2_NORM,  true  },
        };
        for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
            tensor * r = cases[i].fn(g_ctx, a, eps);
            TEST_CHECK(node_is(r, cases[i].op, type, a, NULL, NULL));
            TEST_CHECK(same_ne(r, a));
            TEST_CHECK(r && pf32(r, 0) == eps);
            TEST_CHECK(r && (cases[i].inplace ? r->view_src == a : r->view_src == NULL));
        }

        const int n_groups = (int) rnd(1, a->ne[2]);
        tensor * g = ggml_group_norm(g_ctx, a, n_groups, eps);
        TEST_CHECK(node_is(g, GGML_OP_GROUP_NORM, type, a, NULL, NULL) && same_ne(g, a));
        TEST_CHECK(g && pi32(g, 0) == n_groups && pf32(g, 1) == eps && g->view_src == NULL);
        tensor * gi = ggml_group_norm_inplace(g_ctx, a, (int) a->ne[2], eps);
        TEST_CHECK(node_is(gi, GGML_OP_GROUP_NORM, type, a, NULL, NULL) && gi->view_src == a);
        TEST_CHECK(gi && pi32(gi, 0) == (int) a->ne[2]);

        EXPECT_FAIL("ggml_group_norm", ggml_group_norm(g_ctx, a, 0, eps));
        EXPECT_FAIL("ggml_group_norm", ggml_group_norm(g_ctx, a, -3, eps));
        EXPECT_FAIL("ggml_group_norm", ggml_group_norm(g_ctx, a, (int) a->ne[2] + 1, eps));
        EXPECT_FAIL("ggml_group_norm_inplace", ggml_group_norm_inplace(g_ctx, a, (int) a->ne[2] + 1, eps));
    }
    EXPECT_FAIL("ggml_norm", ggml_norm(g_ctx, NULL, 1e-5f));
    EXPECT_FAIL("ggml_norm_inplace", ggml_norm_inplace(g_ctx, NULL, 1e-5f));
    EXPECT_FAIL("ggml_rms_norm", ggml_rms_norm(g_ctx, NULL, 1e-5f));
    EXPECT_FAIL("ggml_rms_norm_inplace", ggml_rms_norm_inplace(g_ctx, NULL, 1e-5f));
    EXPECT_FAIL("ggml_l2_norm", ggml_l2_norm(g_ctx, NULL, 1e-5f));
    EXPECT_FAIL("ggml_l2_norm_inplace", ggml_l2_norm_inplace(g_ctx, NULL, 1e-5f));
    EXPECT_FAIL("ggml_group_norm", ggml_group_norm(g_ctx, NULL, 1, 1e-5f));
    EXPECT_FAIL("ggml_rms_norm", ggml_rms_norm(NULL, new1(GGML_TYPE_F32, 4), 1e-5f));
}

//
// matrix products
//

static void test_mul_mat(void) {
    for (int it = 0; it < 30; it++) {
        const int64_t K = rnd(1, 64), N = rnd(1, 9), M = rnd(1, 9);
        const int64_t a2 = rnd(1, 3), a3 = rnd(1, 2), x = rnd(1, 3), y = rnd(1, 2);
        const enum ggml_type ta = it % 3 == 0 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        tensor * a = new4(ta, K, N, a2, a3);
        tensor * b = new4(GGML_TYPE_F32, K, M, a2*x, a3*y);
        tensor * r = ggml_mul_mat(g_ctx, a, b);
        TEST_CHECK_MSG(node_is(r, GGML_OP_MUL_MAT, GGML_TYPE_F32, a, b, NULL) && has_ne(r, N, M, a2*x, a3*y),
                "mul_mat [%lld,%lld,%lld,%lld] x [%lld,%lld,%lld,%lld]", (long long) K, (long long) N, (long long) a2,
                (long long) a3, (long long) K, (long long) M, (long long) (a2*x), (long long) (a3*y));
        TEST_CHECK(r && pi32(r, 0) == GGML_PREC_DEFAULT && r->view_src == NULL);

        ggml_mul_mat_set_prec(r, GGML_PREC_F32);
        TEST_CHECK(r && pi32(r, 0) == GGML_PREC_F32);

        // broadcasting goes one way only: b's batch dims must be multiples of a's
        if (x > 1) {
            EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, b, new4(GGML_TYPE_F32, K, M, a2, a3*y)));
        }
        EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, a, new4(GGML_TYPE_F32, K + 1, M, a2*x, a3*y)));
        EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, new4(ta, K, N, 2, a3), new4(GGML_TYPE_F32, K, M, 3, a3)));
        EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, new4(ta, K, N, a2, 2), new4(GGML_TYPE_F32, K, M, a2, 5)));

        // out_prod: a [m, n], b [p, n] -> [m, p]
        tensor * oa = new4(GGML_TYPE_F32, N, K, a2, a3);
        tensor * ob = new4(GGML_TYPE_F32, M, K, a2*x, a3*y);
        tensor * o = ggml_out_prod(g_ctx, oa, ob);
        TEST_CHECK(node_is(o, GGML_OP_OUT_PROD, GGML_TYPE_F32, oa, ob, NULL) && has_ne(o, N, M, a2*x, a3*y));
        EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, oa, new4(GGML_TYPE_F32, M, K + 1, a2*x, a3*y)));
        EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, new4(GGML_TYPE_F32, N, K, 2, 1), new4(GGML_TYPE_F32, M, K, 3, 1)));
        EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, new4(GGML_TYPE_F32, N, K, 1, 3), new4(GGML_TYPE_F32, M, K, 1, 4)));
    }

    // a quantized weight is accepted (the backend decides what it computes)
    tensor * q = new4(GGML_TYPE_Q4_0, 64, 8, 1, 1);
    tensor * b = new4(GGML_TYPE_F32, 64, 3, 1, 1);
    TEST_CHECK(has_ne(ggml_mul_mat(g_ctx, q, b), 8, 3, 1, 1));

    // transposed a is refused; a transposed b is fine
    tensor * sq = new4(GGML_TYPE_F32, 16, 16, 1, 1);
    EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, transposed_view(sq), sq));
    TEST_CHECK(has_ne(ggml_mul_mat(g_ctx, sq, transposed_view(sq)), 16, 16, 1, 1));
    EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, transposed_view(sq), sq));

    // empty batch dims must not divide by zero
    EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, new4(GGML_TYPE_F32, 4, 4, 0, 1), new4(GGML_TYPE_F32, 4, 4, 2, 1)));
    EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, new4(GGML_TYPE_F32, 4, 4, 1, 0), new4(GGML_TYPE_F32, 4, 4, 1, 2)));

    EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, NULL, b));
    EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(g_ctx, q, NULL));
    EXPECT_FAIL("ggml_mul_mat", ggml_mul_mat(NULL, q, b));
    EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, NULL, b));
    EXPECT_FAIL("ggml_out_prod", ggml_out_prod(g_ctx, b, NULL));

    // set_prec: wrong node, NULL, unknown precision leave op_params alone
    tensor * r = ggml_mul_mat(g_ctx, sq, sq);
    tensor * n = ggml_norm(g_ctx, sq, 0.5f);
    EXPECT_LOGS_ERROR(ggml_mul_mat_set_prec(n, GGML_PREC_F32));
    TEST_CHECK(pf32(n, 0) == 0.5f);
    EXPECT_LOGS_ERROR(ggml_mul_mat_set_prec(NULL, GGML_PREC_F32));
    EXPECT_LOGS_ERROR(ggml_mul_mat_set_prec(r, (enum ggml_prec) 3));
    TEST_CHECK(pi32(r, 0) == GGML_PREC_DEFAULT);
}

//
// soft_max and masks
//

static void test_soft_max(void) {
    for (int it = 0; it < 20; it++) {
        const int64_t n0 = rnd(1, 33), n1 = rnd(1, 7), h = rnd(1, 4), n3 = rnd(1, 2);
        tensor * a = new4(GGML_TYPE_F32, n0, n1, h*2, n3);

        tensor * r = ggml_soft_max(g_ctx, a);
        TEST_CHECK(node_is(r, GGML_OP_SOFT_MAX, GGML_TYPE_F32, a, NULL, NULL) && same_ne(r, a));
        TEST_CHECK(r && pf32(r, 0) == 1.0f && pf32(r, 1) == 0.0f && r->view_src == NULL);
        tensor * ri = ggml_soft_max_inplace(g_ctx, a);
        TEST_CHECK(node_is(ri, GGML_OP_SOFT_MAX, GGML_TYPE_F32, a, NULL, NULL) && ri->view_src == a);

        // F16 mask padded in dim 1, shared by all heads
        const float scale = (float) test_rand_uniform(0.05, 2.0);
        tensor * m16 = new4(GGML_TYPE_F16, n0, n1 + rnd(0, 3), 1, 1);
        tensor * e = ggml_soft_max_ext(g_ctx, a, m16, scale, 0.0f);
        TEST_CHECK(node_is(e, GGML_OP_SOFT_MAX, GGML_TYPE_F32, a, m16, NULL) && same_ne(e, a));
        TEST_CHECK(e && pf32(e, 0) == scale && pf32(e, 1) == 0.0f);

        // F32 mask broadcast over half the heads, with ALiBi
        tensor * m32 = new4(GGML_TYPE_F32, n0, n1, 2, n3);
        tensor * ei = ggml_soft_max_ext_inplace(g_ctx, a, m32, scale, 8.0f);
        TEST_CHECK(node_is(ei, GGML_OP_SOFT_MAX, GGML_TYPE_F32, a, m32, NULL) && ei->view_src == a);
        TEST_CHECK(ei && pf32(ei, 1) == 8.0f);

        EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, new4(GGML_TYPE_I32, n0, n1, 1, 1), 1.0f, 0.0f));
        EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, new4(GGML_TYPE_F16, n0 + 1, n1, 1, 1), 1.0f, 0.0f));
        if (n1 > 1) {
            EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, new4(GGML_TYPE_F16, n0, n1 - 1, 1, 1), 1.0f, 0.0f));
        }
        EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, new4(GGML_TYPE_F16, n0, n1, h*2 + 1, 1), 1.0f, 0.0f));
        EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, new4(GGML_TYPE_F16, n0, n1, 1, n3 + 1), 1.0f, 0.0f));
        EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, NULL, 1.0f, 2.0f));
        EXPECT_FAIL("ggml_soft_max_ext_inplace", ggml_soft_max_ext_inplace(g_ctx, a, NULL, 1.0f, 2.0f));

        // sinks: one F32 logit per head (a->ne[2])
        tensor * sinks = new1(GGML_TYPE_F32, h*2);
        ggml_soft_max_add_sinks(e, sinks);
        TEST_CHECK(e && e->src[2] == sinks);
        EXPECT_LOGS_ERROR(ggml_soft_max_add_sinks(e, new1(GGML_TYPE_F32, h*2)));
        TEST_CHECK(e && e->src[2] == sinks);
        ggml_soft_max_add_sinks(e, NULL);
        TEST_CHECK(e && e->src[2] == NULL);
        EXPECT_LOGS_ERROR(ggml_soft_max_add_sinks(e, new1(GGML_TYPE_F32, h*2 + 1)));
        EXPECT_LOGS_ERROR(ggml_soft_max_add_sinks(e, new1(GGML_TYPE_F16, h*2)));
        TEST_CHECK(e && e->src[2] == NULL);
    }

    tensor * a = new4(GGML_TYPE_F32, 8, 8, 2, 1);
    EXPECT_FAIL("ggml_soft_max", ggml_soft_max(g_ctx, transposed_view(a)));
    EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, transposed_view(new4(GGML_TYPE_F32, 8, 8, 1, 1)), 1.0f, 0.0f));
    EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, a, new4(GGML_TYPE_F16, 8, 8, 0, 1), 1.0f, 0.0f));
    EXPECT_FAIL("ggml_soft_max", ggml_soft_max(g_ctx, NULL));
    EXPECT_FAIL("ggml_soft_max_inplace", ggml_soft_max_inplace(g_ctx, NULL));
    EXPECT_FAIL("ggml_soft_max_ext", ggml_soft_max_ext(g_ctx, NULL, NULL, 1.0f, 0.0f));
    EXPECT_FAIL("ggml_soft_max", ggml_soft_max(NULL, a));

    // sinks on a node that is not SOFT_MAX: nothing changes (not even with sinks == NULL)
    tensor * c = new1(GGML_TYPE_F32, 8);
    tensor * rope = ggml_rope_ext(g_ctx, new4(GGML_TYPE_F32, 8, 2, 3, 1), new1(GGML_TYPE_I32, 3), c,
            8, 0, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    EXPECT_LOGS_ERROR(ggml_soft_max_add_sinks(rope, NULL));
    TEST_CHECK(rope && rope->src[2] == c);
    EXPECT_LOGS_ERROR(ggml_soft_max_add_sinks(NULL, c));

    // diag masks
    struct { tensor * (*fn)(struct ggml_context *, tensor *, int); enum ggml_op op; bool inplace; const char * name; } dm[] = {
        { ggml_diag_mask_inf,          GGML_OP_DIAG_MASK_INF,  false, "ggml_diag_mask_inf" },
        { ggml_diag_mask_inf_inplace,  GGML_OP_DIAG_MASK_INF,  true,  "ggml_diag_mask_inf_inplace" },
        { ggml_diag_mask_zero,         GGML_OP_DIAG_MASK_ZERO, false, "ggml_diag_mask_zero" },
        { ggml_diag_mask_zero_inplace, GGML_OP_DIAG_MASK_ZERO, true,  "ggml_diag_mask_zero_inplace" },
    };
    for (size_t i = 0; i < sizeof(dm)/sizeof(dm[0]); i++) {
        tensor * x = new4(i % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32, rnd(1, 20), rnd(1, 20), rnd(1, 3), 1);
        const int n_past = (int) rnd(0, 10);
        tensor * r = dm[i].fn(g_ctx, x, n_past);
        TEST_CHECK(node_is(r, dm[i].op, x->type, x, NULL, NULL) && same_ne(r, x));
        TEST_CHECK(r && pi32(r, 0) == n_past && (dm[i].inplace ? r->view_src == x : r->view_src == NULL));
        EXPECT_FAIL(dm[i].name, dm[i].fn(g_ctx, NULL, n_past));
    }
}

//
// rope
//

static void check_rope_params(const tensor * r, int n_dims, int mode, int n_ctx_orig, const float f[6], const int * sections) {
    TEST_CHECK(pi32(r, 0) == 0 && pi32(r, 1) == n_dims && pi32(r, 2) == mode && pi32(r, 3) == 0 && pi32(r, 4) == n_ctx_orig);
    for (int i = 0; i < 6; i++) {
        TEST_CHECK_MSG(pf32(r, 5 + i) == f[i], "rope f32[%d] = %g, expected %g", 5 + i, (double) pf32(r, 5 + i), (double) f[i]);
    }
    for (int i = 0; i < GGML_MROPE_SECTIONS; i++) {
        TEST_CHECK_MSG(pi32(r, 11 + i) == (sections ? sections[i] : 0), "rope i32[%d] = %d", 11 + i, pi32(r, 11 + i));
    }
}

static void test_rope(void) {
    for (int it = 0; it < 20; it++) {
        const int64_t hd = 2*rnd(1, 32), n_head = rnd(1, 8), n_tok = rnd(1, 10);
        const enum ggml_type type = it % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        tensor * a = new4(type, hd, n_head, n_tok, 1);
        tensor * pos = new1(GGML_TYPE_I32, n_tok);
        const int n_dims = 2*(int) rnd(1, hd/2);

        const float defaults[6] = { 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f };
        tensor * r = ggml_rope(g_ctx, a, pos, n_dims, GGML_ROPE_TYPE_NORMAL);
        TEST_CHECK(node_is(r, GGML_OP_ROPE, type, a, pos, NULL) && same_ne(r, a) && r->view_src == NULL);
        if (r) check_rope_params(r, n_dims, GGML_ROPE_TYPE_NORMAL, 0, defaults, NULL);
        tensor * ri = ggml_rope_inplace(g_ctx, a, pos, n_dims, GGML_ROPE_TYPE_NEOX);
        TEST_CHECK(node_is(ri, GGML_OP_ROPE, type, a, pos, NULL) && ri->view_src == a);
        if (ri) check_rope_params(ri, n_dims, GGML_ROPE_TYPE_NEOX, 0, defaults, NULL);

        const float f[6] = { 500000.0f, 0.25f, 1.0f, 0.9f, 24.0f, 2.0f };
        tensor * ff = new1(GGML_TYPE_F32, n_dims/2 + rnd(0, 2));
        tensor * e = ggml_rope_ext(g_ctx, a, pos, ff, n_dims, GGML_ROPE_TYPE_NEOX, 4096, f[0], f[1], f[2], f[3], f[4], f[5]);
        TEST_CHECK(node_is(e, GGML_OP_ROPE, type, a, pos, ff) && same_ne(e, a) && e->view_src == NULL);
        if (e) check_rope_params(e, n_dims, GGML_ROPE_TYPE_NEOX, 4096, f, NULL);
        tensor * ei = ggml_rope_ext_inplace(g_ctx, a, pos, NULL, n_dims, 0, 2048, f[0], f[1], f[2], f[3], f[4], f[5]);
        TEST_CHECK(node_is(ei, GGML_OP_ROPE, type, a, pos, NULL) && ei->view_src == a);
        if (ei) check_rope_params(ei, n_dims, 0, 2048, f, NULL);

        // MROPE family: 4 positions per token, sections stored
        const int modes[3] = { GGML_ROPE_TYPE_MROPE, GGML_ROPE_TYPE_VISION, GGML_ROPE_TYPE_IMROPE };
        tensor * pos4 = new1(GGML_TYPE_I32, 4*n_tok);
        for (int m = 0; m < 3; m++) {
            int sections[4] = { (int) rnd(0, 16), (int) rnd(0, 16), (int) rnd(0, 16), (int) rnd(0, 16) };
            tensor * mr = ggml_rope_multi(g_ctx, a, pos4, NULL, n_dims, sections, modes[m], 128000,
                    f[0], f[1], f[2], f[3], f[4], f[5]);
            TEST_CHECK(node_is(mr, GGML_OP_ROPE, type, a, pos4, NULL) && same_ne(mr, a) && mr->view_src == NULL);
            if (mr) check_rope_params(mr, n_dims, modes[m], 128000, f, sections);
            EXPECT_FAIL("ggml_rope_multi", ggml_rope_multi(g_ctx, a, pos, NULL, n_dims, sections, modes[m], 0,
                    f[0], f[1], f[2], f[3], f[4], f[5]));
            EXPECT_FAIL("ggml_rope_ext", ggml_rope_ext(g_ctx, a, pos, NULL, n_dims, modes[m], 0,
                    f[0], f[1], f[2], f[3], f[4], f[5]));
        }
        // rope_multi with a plain mode behaves as rope_ext: one position per token, no sections
        int sec[4] = { 1, 2, 3, 4 };
        tensor * plain = ggml_rope_multi(g_ctx, a, pos, NULL, n_dims, sec, GGML_ROPE_TYPE_NEOX, 0, f[0], f[1], f[2], f[3], f[4], f[5]);
        TEST_CHECK(node_is(plain, GGML_OP_ROPE, type, a, pos, NULL));
        if (plain) check_rope_params(plain, n_dims, GGML_ROPE_TYPE_NEOX, 0, f, NULL);
        EXPECT_FAIL("ggml_rope_multi", ggml_rope_multi(g_ctx, a, pos4, NULL, n_dims, NULL, GGML_ROPE_TYPE_MROPE, 0,
                f[0], f[1], f[2], f[3], f[4], f[5]));

        // bad positions, dims, mode, freq factors
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, new1(GGML_TYPE_I32, n_tok + 1), n_dims, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, new1(GGML_TYPE_F32, n_tok), n_dims, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, ggml_new_tensor_2d(g_ctx, GGML_TYPE_I32, n_tok, 2), n_dims, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, pos, n_dims + 1, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, pos, (int) hd + 2, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, pos, 0, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, pos, -2, 0));
        EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, pos, n_dims, 1));
        EXPECT_FAIL("ggml_rope_inplace", ggml_rope_inplace(g_ctx, a, pos, n_dims, 3));
        EXPECT_FAIL("ggml_rope_ext", ggml_rope_ext(g_ctx, a, pos, new1(GGML_TYPE_F16, n_dims/2), n_dims, 0, 0,
                f[0], f[1], f[2], f[3], f[4], f[5]));
        EXPECT_FAIL("ggml_rope_ext_inplace", ggml_rope_ext_inplace(g_ctx, a, pos, new1(GGML_TYPE_F32, n_dims/2 - 1),
                n_dims, 0, 0, f[0], f[1], f[2], f[3], f[4], f[5]));
    }
    tensor * a = new4(GGML_TYPE_F32, 8, 2, 3, 1);
    tensor * pos = new1(GGML_TYPE_I32, 3);
    EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, NULL, pos, 8, 0));
    EXPECT_FAIL("ggml_rope", ggml_rope(g_ctx, a, NULL, 8, 0));
    EXPECT_FAIL("ggml_rope", ggml_rope(NULL, a, pos, 8, 0));
    EXPECT_FAIL("ggml_rope_ext", ggml_rope_ext(g_ctx, NULL, pos, NULL, 8, 0, 0, 1e4f, 1, 0, 1, 32, 1));
    EXPECT_FAIL("ggml_rope_multi", ggml_rope_multi(g_ctx, a, NULL, NULL, 8, (int[4]){ 1, 1, 1, 1 }, 8, 0, 1e4f, 1, 0, 1, 32, 1));
}

// the family's YaRN correction range, recomputed here in double precision
static void yarn_expect(int n_dims, int n_ctx_orig, double base, double beta_fast, double beta_slow, double out[2]) {
    const double pi = 3.14159265358979323846;
    const double lo = n_dims * log(n_ctx_orig / (beta_fast * 2 * pi)) / (2 * log(base));
    const double hi = n_dims * log(n_ctx_orig / (beta_slow * 2 * pi)) / (2 * log(base));
    out[0] = fmax(0.0, floor(lo));
    out[1] = fmin(n_dims - 1.0, ceil(hi));
}

static void test_yarn(void) {
    const struct { int n_dims, n_ctx; float base, bf, bs; } cases[] = {
        { 128, 4096,   10000.0f,  32.0f, 1.0f },
        {  64, 2048,   10000.0f,  32.0f, 1.0f },
        { 128, 32768, 500000.0f,  32.0f, 1.0f },
        {  96, 8192,  1000000.0f, 16.0f, 2.0f },
        { 128,   16,   10000.0f,  32.0f, 1.0f },  // start clamps to 0
        {  32, 1 << 20,   100.0f, 32.0f, 0.01f }, // end clamps to n_dims - 1
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        float dims[2] = { -7.0f, -7.0f };
        double want[2];
        ggml_rope_yarn_corr_dims(cases[i].n_dims, cases[i].n_ctx, cases[i].base, cases[i].bf, cases[i].bs, dims);
        yarn_expect(cases[i].n_dims, cases[i].n_ctx, cases[i].base, cases[i].bf, cases[i].bs, want);
        TEST_CHECK_MSG(dims[0] == (float) want[0] && dims[1] == (float) want[1],
                "yarn case %zu: got [%g, %g], want [%g, %g]", i, (double) dims[0], (double) dims[1], want[0], want[1]);
    }
    // the 4096-context llama case by hand: 20.95 -> 20, 45.03 -> 46
    float d[2];
    ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 32.0f, 1.0f, d);
    TEST_CHECK(d[0] == 20.0f && d[1] == 46.0f);
    EXPECT_LOGS_ERROR(ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 32.0f, 1.0f, NULL));
}

//
// convolution and pooling
//

// (in + 2p - d(k-1) - 1)/s + 1 for a non-negative numerator
static int64_t conv_len(int64_t in, int64_t k, int s, int p, int d) {
    const int64_t span = d*(k - 1) + 1;
    return (in + 2*p - span)/s + 1;
}

static void test_conv(void) {
    for (int it = 0; it < 25; it++) {
        const int64_t KW = rnd(1, 4), KH = rnd(1, 4), IC = rnd(1, 4), OC = rnd(1, 5), N = rnd(1, 3);
        const int s0 = (int) rnd(1, 3), s1 = (int) rnd(1, 3), p0 = (int) rnd(0, 2), p1 = (int) rnd(0, 2);
        const int d0 = (int) rnd(1, 2), d1 = (int) rnd(1, 2);
        const int64_t W = d0*(KW - 1) + 1 + rnd(0, 12), H = d1*(KH - 1) + 1 + rnd(0, 12);
        const int64_t OW = conv_len(W, KW, s0, p0, d0), OH = conv_len(H, KH, s1, p1, d1);
        const enum ggml_type kt = it % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        tensor * a = new4(kt, KW, KH, IC, OC);
        tensor * b = new4(GGML_TYPE_F32, W, H, IC, N);

        // im2col 2-D
        const enum ggml_type dt = it % 3 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        tensor * c = ggml_im2col(g_ctx, a, b, s0, s1, p0, p1, d0, d1, true, dt);
        TEST_CHECK_MSG(node_is(c, GGML_OP_IM2COL, dt, a, b, NULL) && has_ne(c, IC*KH*KW, OW, OH, N),
                "im2col W=%lld H=%lld K=%lldx%lld s=%d,%d p=%d,%d d=%d,%d", (long long) W, (long long) H,
                (long long) KW, (long long) KH, s0, s1, p0, p1, d0, d1);
        if (c) {
            const int32_t want[7] = { s0, s1, p0, p1, d0, d1, 1 };
            TEST_CHECK(memcmp(c->op_params, want, sizeof(want)) == 0);
        }

        // im2col 1-D: kernel [KW, IC, OC], data [W, IC, N]
        tensor * a1 = new4(kt, KW, IC, OC, 1);
        tensor * b1 = new4(GGML_TYPE_F32, W, IC, N, 1);
        tensor * c1 = ggml_im2col(g_ctx, a1, b1, s0, 0, p0, 0, d0, 0, false, dt);
        TEST_CHECK(node_is(c1, GGML_OP_IM2COL, dt, a1, b1, NULL) && has_ne(c1, IC*KW, OW, N, 1));
        TEST_CHECK(c1 && pi32(c1, 0) == s0 && pi32(c1, 2) == p0 && pi32(c1, 4) == d0 && pi32(c1, 6) == 0);

        // composite conv_2d: [OW, OH, OC, N], contiguous F32
        tensor * cv = ggml_conv_2d(g_ctx, a, b, s0, s1, p0, p1, d0, d1);
        TEST_CHECK_MSG(has_ne(cv, OW, OH, OC, N) && cv->type == GGML_TYPE_F32 && ggml_is_contiguous(cv),
                "conv_2d: got %s", cv ? "wrong shape/type" : "NULL");
        if (cv) {
            // cont <- permute <- reshape <- mul_mat(reshape(im2col(a, b)), reshape(a))
            TEST_CHECK(cv->op == GGML_OP_CONT);
            const tensor * mm = cv->src[0];
            while (mm && mm->op != GGML_OP_MUL_MAT) {
                mm = mm->src[0];
            }
            TEST_CHECK(mm != NULL);
            if (mm) {
                const tensor * ic = mm->src[0];
                while (ic && ic->op != GGML_OP_IM2COL) {
                    ic = ic->src[0];
                }
                TEST_CHECK(ic && ic->src[0] == a && ic->src[1] == b && ic->type == kt);
                TEST_CHECK(mm->src[1] && (mm->src[1] == a || mm->src[1]->src[0] == a || mm->src[1]->view_src == a));
            }
        }

        // direct conv_2d
        tensor * cd = ggml_conv_2d_direct(g_ctx, a, b, s0, s1, p0, p1, d0, d1);
        TEST_CHECK(node_is(cd, GGML_OP_CONV_2D, GGML_TYPE_F32, a, b, NULL) && has_ne(cd, OW, OH, OC, N));
        if (cd) {
            const int32_t want[6] = { s0, s1, p0, p1, d0, d1 };
            TEST_CHECK(memcmp(cd->op_params, want, sizeof(want)) == 0);
        }

        // channel mismatch
        tensor * bad_b = new4(GGML_TYPE_F32, W, H, IC + 1, N);
        EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, a, bad_b, s0, s1, p0, p1, d0, d1, true, dt));
        EXPECT_FAIL("ggml_conv_2d", ggml_conv_2d(g_ctx, a, bad_b, s0, s1, p0, p1, d0, d1));
        EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, a, bad_b, s0, s1, p0, p1, d0, d1));
        EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, a1, new4(GGML_TYPE_F32, W, IC + 1, N, 1), s0, 0, p0, 0, d0, 0, false, dt));
        EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, a1, new4(GGML_TYPE_F32, W, IC, N, 2), s0, 0, p0, 0, d0, 0, false, dt));
    }

    // output sizes: a 5x5 kernel on 4x4 data without padding has no output; with padding 1 it has
    tensor * k5 = new4(GGML_TYPE_F32, 5, 5, 2, 3);
    tensor * x4 = new4(GGML_TYPE_F32, 4, 4, 2, 1);
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k5, x4, 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_conv_2d", ggml_conv_2d(g_ctx, k5, x4, 1, 1, 0, 0, 1, 1));
    EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, k5, x4, 1, 1, 0, 0, 1, 1));
    EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, k5, x4, 1, 1, 1, 0, 1, 1));
    TEST_CHECK(has_ne(ggml_conv_2d_direct(g_ctx, k5, x4, 1, 1, 1, 1, 1, 1), 2, 2, 3, 1));
    TEST_CHECK(has_ne(ggml_conv_2d(g_ctx, k5, x4, 1, 1, 1, 1, 1, 1), 2, 2, 3, 1));
    // dilation 2 makes a 3x3 kernel span 5 pixels
    tensor * k3 = new4(GGML_TYPE_F32, 3, 3, 2, 3);
    TEST_CHECK(has_ne(ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 7, 2, 1), 2, 1, 0, 0, 2, 2, true, GGML_TYPE_F32), 18, 3, 3, 1));
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, x4, 1, 1, 0, 0, 2, 2, true, GGML_TYPE_F32));
    // stride / dilation must be positive where used; 1-D ignores s1, d1
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 0, 1, 0, 0, 1, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 1, 0, 0, 0, 1, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 1, 1, 0, 0, 0, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), -1, 1, 0, 0, 1, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 1, 0, 0, 0, 1, 1));
    EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 1, 1, 0, 0, 1, 0));
    tensor * k1d = new4(GGML_TYPE_F32, 3, 2, 4, 1);
    TEST_CHECK(has_ne(ggml_im2col(g_ctx, k1d, new4(GGML_TYPE_F32, 10, 2, 3, 1), 1, 0, 1, 0, 1, 0, false, GGML_TYPE_F16), 6, 10, 3, 1));
    // destination type must be F32 or F16
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 1, 1, 0, 0, 1, 1, true, GGML_TYPE_I32));
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k3, new4(GGML_TYPE_F32, 9, 9, 2, 1), 1, 1, 0, 0, 1, 1, true, (enum ggml_type) 4));
    // a kernel that cannot be flattened (not contiguous) cannot go through the composite
    tensor * kt = transposed_view(new4(GGML_TYPE_F32, 3, 3, 1, 1));
    tensor * one = new4(GGML_TYPE_F32, 6, 6, 1, 1);
    EXPECT_FAIL("ggml_conv_2d", ggml_conv_2d(g_ctx, kt, one, 1, 1, 0, 0, 1, 1));

    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, NULL, x4, 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_im2col", ggml_im2col(g_ctx, k5, NULL, 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F32));
    EXPECT_FAIL("ggml_conv_2d", ggml_conv_2d(g_ctx, NULL, x4, 1, 1, 0, 0, 1, 1));
    EXPECT_FAIL("ggml_conv_2d", ggml_conv_2d(g_ctx, k5, NULL, 1, 1, 0, 0, 1, 1));
    EXPECT_FAIL("ggml_conv_2d", ggml_conv_2d(NULL, k5, x4, 1, 1, 1, 1, 1, 1));
    EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, NULL, x4, 1, 1, 0, 0, 1, 1));
    EXPECT_FAIL("ggml_conv_2d_direct", ggml_conv_2d_direct(g_ctx, k5, NULL, 1, 1, 0, 0, 1, 1));
}

static void test_pool(void) {
    for (int it = 0; it < 20; it++) {
        const int k0 = (int) rnd(1, 4), k1 = (int) rnd(1, 4), s0 = (int) rnd(1, 3), s1 = (int) rnd(1, 3);
        const int p0 = (int) rnd(0, 1), p1 = (int) rnd(0, 1);
        const int64_t W = k0 + rnd(0, 10), H = k1 + rnd(0, 10), C = rnd(1, 4), N = rnd(1, 2);
        const enum ggml_op_pool op = it % 2 ? GGML_OP_POOL_AVG : GGML_OP_POOL_MAX;
        tensor * a = new4(it % 3 ? GGML_TYPE_F32 : GGML_TYPE_F16, W, H, C, N);
        tensor * r = ggml_pool_2d(g_ctx, a, op, k0, k1, s0, s1, (float) p0, (float) p1);
        TEST_CHECK(node_is(r, GGML_OP_POOL_2D, GGML_TYPE_F32, a, NULL, NULL) &&
                has_ne(r, (W + 2*p0 - k0)/s0 + 1, (H + 2*p1 - k1)/s1 + 1, C, N));
        if (r) {
            const int32_t want[7] = { (int32_t) op, k0, k1, s0, s1, p0, p1 };
            TEST_CHECK(memcmp(r->op_params, want, sizeof(want)) == 0);
        }
    }
    tensor * a = new4(GGML_TYPE_F32, 6, 5, 3, 1);
    // padding is stored truncated to int; the length uses it as a float: (6 + 3 - 2)/2 + 1 = 4.5 -> 4,
    // (5 - 2)/2 + 1 = 2.5 -> 2
    tensor * r = ggml_pool_2d(g_ctx, a, GGML_OP_POOL_AVG, 2, 2, 2, 2, 1.5f, 0.0f);
    TEST_CHECK(has_ne(r, 4, 2, 3, 1) && pi32(r, 5) == 1 && pi32(r, 6) == 0);
    // a 2-wide stride-2 window over 1 element: (1 - 2)/2 + 1 = 0.5 -> no output in float arithmetic
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, new4(GGML_TYPE_F32, 1, 4, 1, 1), GGML_OP_POOL_MAX, 2, 1, 2, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 7, 2, 1, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 2, 6, 1, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 0, 2, 1, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 2, 2, 0, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 2, 2, 1, -1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_COUNT, 2, 2, 1, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, (enum ggml_op_pool) -1, 2, 2, 1, 1, 0, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 2, 2, 1, 1, NAN, 0));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, a, GGML_OP_POOL_MAX, 2, 2, 1, 1, 0, INFINITY));
    EXPECT_FAIL("ggml_pool_2d", ggml_pool_2d(g_ctx, NULL, GGML_OP_POOL_MAX, 2, 2, 1, 1, 0, 0));
}

//
// sorting
//

static void test_sort(void) {
    for (int it = 0; it < 20; it++) {
        tensor * a = new4(it % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32, rnd(1, 50), rnd(1, 4), rnd(1, 3), rnd(1, 2));
        const enum ggml_sort_order order = it % 2 ? GGML_SORT_ORDER_DESC : GGML_SORT_ORDER_ASC;
        tensor * s = ggml_argsort(g_ctx, a, order);
        TEST_CHECK(node_is(s, GGML_OP_ARGSORT, GGML_TYPE_I32, a, NULL, NULL) && same_ne(s, a) && pi32(s, 0) == (int) order);

        const int k = (int) rnd(1, a->ne[0]);
        tensor * t = ggml_top_k(g_ctx, a, k);
        TEST_CHECK(node_is(t, GGML_OP_TOP_K, GGML_TYPE_I32, a, NULL, NULL) && has_ne(t, k, a->ne[1], a->ne[2], a->ne[3]));
        TEST_CHECK(t && t->view_src == NULL);
        TEST_CHECK(has_ne(ggml_top_k(g_ctx, a, (int) a->ne[0]), a->ne[0], a->ne[1], a->ne[2], a->ne[3]));
        EXPECT_FAIL("ggml_top_k", ggml_top_k(g_ctx, a, (int) a->ne[0] + 1));
        EXPECT_FAIL("ggml_top_k", ggml_top_k(g_ctx, a, 0));
        EXPECT_FAIL("ggml_top_k", ggml_top_k(g_ctx, a, -1));
    }
    tensor * a = new4(GGML_TYPE_F32, 8, 2, 1, 1);
    EXPECT_FAIL("ggml_argsort", ggml_argsort(g_ctx, a, (enum ggml_sort_order) 2));
    EXPECT_FAIL("ggml_argsort", ggml_argsort(g_ctx, a, (enum ggml_sort_order) -1));
    EXPECT_FAIL("ggml_argsort", ggml_argsort(g_ctx, NULL, GGML_SORT_ORDER_ASC));
    EXPECT_FAIL("ggml_top_k", ggml_top_k(g_ctx, NULL, 1));
    EXPECT_FAIL("ggml_top_k", ggml_top_k(NULL, a, 1));
}

//
// flash attention
//

static void test_flash_attn(void) {
    for (int it = 0; it < 25; it++) {
        const int64_t D = 16*rnd(1, 8), Dv = it % 3 ? D : 16*rnd(1, 8);
        const int64_t n_head_kv = rnd(1, 4), gqa = rnd(1, 4), n_head = n_head_kv*gqa;
        const int64_t n_batch = rnd(1, 9), n_kv = rnd(1, 64), ne3 = rnd(1, 2);
        tensor * q = new4(GGML_TYPE_F32, D,  n_batch, n_head, ne3);
        tensor * k = new4(GGML_TYPE_F16, D,  n_kv, n_head_kv, ne3);
        tensor * v = new4(GGML_TYPE_F16, Dv, n_kv, n_head_kv, ne3);
        tensor * m = new4(it % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32, n_kv, n_batch + rnd(0, 3), 1, 1);
        const float scale = (float) test_rand_uniform(0.01, 1.0), softcap = it % 4 ? 0.0f : 30.0f;

        tensor * r = ggml_flash_attn_ext(g_ctx, q, k, v, m, scale, 0.0f, softcap);
        TEST_CHECK_MSG(r && r->op == GGML_OP_FLASH_ATTN_EXT && r->type == GGML_TYPE_F32 &&
                has_ne(r, Dv, n_head, n_batch, ne3), "flash_attn_ext D=%lld Dv=%lld heads %lld/%lld",
                (long long) D, (long long) Dv, (long long) n_head, (long long) n_head_kv);
        TEST_CHECK(r && r->src[0] == q && r->src[1] == k && r->src[2] == v && r->src[3] == m && r->src[4] == NULL);
        TEST_CHECK(r && pf32(r, 0) == scale && pf32(r, 1) == 0.0f && pf32(r, 2) == softcap && pi32(r, 3) == GGML_PREC_DEFAULT);
        TEST_CHECK(r && ggml_flash_attn_ext_get_prec(r) == GGML_PREC_DEFAULT);
        ggml_flash_attn_ext_set_prec(r, GGML_PREC_F32);
        TEST_CHECK(r && pi32(r, 3) == GGML_PREC_F32 && ggml_flash_attn_ext_get_prec(r) == GGML_PREC_F32 && pf32(r, 2) == softcap);

        // sinks: one per query head
        tensor * sinks = new1(GGML_TYPE_F32, n_head);
        ggml_flash_attn_ext_add_sinks(r, sinks);
        TEST_CHECK(r && r->src[4] == sinks);
        EXPECT_LOGS_ERROR(ggml_flash_attn_ext_add_sinks(r, sinks));
        ggml_flash_attn_ext_add_sinks(r, NULL);
        TEST_CHECK(r && r->src[4] == NULL);
        EXPECT_LOGS_ERROR(ggml_flash_attn_ext_add_sinks(r, new1(GGML_TYPE_F32, n_head + 1)));
        EXPECT_LOGS_ERROR(ggml_flash_attn_ext_add_sinks(r, new1(GGML_TYPE_F16, n_head)));
        TEST_CHECK(r && r->src[4] == NULL);

        // no mask; a mask broadcast per head and per sequence; ALiBi with a mask
        tensor * r0 = ggml_flash_attn_ext(g_ctx, q, k, v, NULL, scale, 0.0f, 0.0f);
        TEST_CHECK(r0 && r0->src[3] == NULL && has_ne(r0, Dv, n_head, n_batch, ne3));
        tensor * mh = new4(GGML_TYPE_F16, n_kv, n_batch, n_head, ne3);
        TEST_CHECK(has_ne(ggml_flash_attn_ext(g_ctx, q, k, v, mh, scale, 8.0f, 0.0f), Dv, n_head, n_batch, ne3));

        // mismatches
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, new4(GGML_TYPE_F16, D + 16, n_kv, n_head_kv, ne3), v, m, scale, 0, 0));
        if (n_head_kv > 1) {
            // head counts must divide: n_head 2*n_head_kv - 1 is not a multiple of n_head_kv
            EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, new4(GGML_TYPE_F32, D, n_batch, 2*n_head_kv - 1, ne3),
                    k, v, NULL, scale, 0, 0));
        }
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, new4(GGML_TYPE_F16, D, n_kv, n_head_kv, ne3 + 1),
                new4(GGML_TYPE_F16, Dv, n_kv, n_head_kv, ne3 + 1), NULL, scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, new4(GGML_TYPE_F16, Dv, n_kv + 1, n_head_kv, ne3), m, scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, new4(GGML_TYPE_F16, Dv, n_kv, n_head_kv + 1, ne3), m, scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, new4(GGML_TYPE_F16, Dv, n_kv, n_head_kv, ne3 + 1), m, scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, new4(GGML_TYPE_I32, n_kv, n_batch, 1, 1), scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, new4(GGML_TYPE_F16, n_kv + 1, n_batch, 1, 1), scale, 0, 0));
        if (n_batch > 1) {
            EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, new4(GGML_TYPE_F16, n_kv, n_batch - 1, 1, 1), scale, 0, 0));
        }
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, new4(GGML_TYPE_F16, n_kv, n_batch, n_head + 1, 1), scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, new4(GGML_TYPE_F16, n_kv, n_batch, 1, ne3 + 1), scale, 0, 0));
        EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, NULL, scale, 1.0f, 0));
    }
    tensor * q = new4(GGML_TYPE_F32, 32, 4, 4, 1);
    tensor * k = new4(GGML_TYPE_F16, 32, 8, 2, 1);
    tensor * v = new4(GGML_TYPE_F16, 32, 8, 2, 1);
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, transposed_view(new4(GGML_TYPE_F16, 8, 8, 1, 1)), 1, 0, 0));
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, v, new4(GGML_TYPE_F16, 8, 4, 0, 1), 1, 0, 0));
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, new4(GGML_TYPE_F16, 32, 8, 0, 1), v, NULL, 1, 0, 0));
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, NULL, k, v, NULL, 1, 0, 0));
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, NULL, v, NULL, 1, 0, 0));
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(g_ctx, q, k, NULL, NULL, 1, 0, 0));
    EXPECT_FAIL("ggml_flash_attn_ext", ggml_flash_attn_ext(NULL, q, k, v, NULL, 1, 0, 0));

    // precision and sinks on the wrong node, on NULL, with an unknown precision
    tensor * mm = ggml_mul_mat(g_ctx, k, k);
    EXPECT_LOGS_ERROR(ggml_flash_attn_ext_set_prec(mm, GGML_PREC_F32));
    TEST_CHECK(mm && pi32(mm, 3) == 0);
    EXPECT_LOGS_ERROR(ggml_flash_attn_ext_set_prec(NULL, GGML_PREC_F32));
    tensor * r = ggml_flash_attn_ext(g_ctx, q, k, v, NULL, 1, 0, 0);
    EXPECT_LOGS_ERROR(ggml_flash_attn_ext_set_prec(r, (enum ggml_prec) 7));
    TEST_CHECK(r && ggml_flash_attn_ext_get_prec(r) == GGML_PREC_DEFAULT);
    enum ggml_prec p = GGML_PREC_F32;
    EXPECT_LOGS_ERROR(p = ggml_flash_attn_ext_get_prec(NULL));
    TEST_CHECK(p == GGML_PREC_DEFAULT);
    EXPECT_LOGS_ERROR(p = ggml_flash_attn_ext_get_prec(mm));
    EXPECT_LOGS_ERROR(ggml_flash_attn_ext_add_sinks(mm, new1(GGML_TYPE_F32, 4)));
    EXPECT_LOGS_ERROR(ggml_flash_attn_ext_add_sinks(NULL, new1(GGML_TYPE_F32, 4)));
}

int main(void) {
    test_rng_init();
    struct ggml_init_params params = { 64u*1024*1024, NULL, true };
    g_ctx = ggml_init(params);
    if (!TEST_CHECK(g_ctx != NULL)) {
        return test_finish("test-ops-nn");
    }

    test_norms();
    test_mul_mat();
    test_soft_max();
    test_rope();
    test_yarn();
    test_conv();
    test_pool();
    test_sort();
    test_flash_attn();

    ggml_free(g_ctx);
    return test_finish("test-ops-nn");
}
