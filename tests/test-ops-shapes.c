// Op constructors of the element-wise and layout families: what each node stores (op, type,
// shape, strides, sources, op_params as in docs/op-params.md), views sharing memory, permute
// and transpose strides, broadcasting rules, and op/unary/glu names.

#include "test-common.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

static struct ggml_context * new_ctx(size_t size) {
    struct ggml_init_params p = { size, NULL, false };
    return ggml_init(p);
}

// fills an F32 tensor (any strides) with distinct non-zero values: 1 + i*0.25 - (i%3)
static void fill_f32(struct ggml_tensor * t) {
    int64_t i = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++, i++) {
        float * p = (float *)((char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3]);
        *p = 1.0f + 0.25f*(float) i - (float)(i % 3);
    }
}

static float at(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return *(const float *)((const char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3]);
}

static bool has_ne(const struct ggml_tensor * t, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    return t != NULL && t->ne[0] == n0 && t->ne[1] == n1 && t->ne[2] == n2 && t->ne[3] == n3;
}

// strides of a freshly made contiguous tensor
static bool has_contig_nb(const struct ggml_tensor * t) {
    if (t == NULL) {
        return false;
    }
    size_t nb0 = ggml_type_size(t->type);
    size_t nb1 = nb0*(size_t)(t->ne[0]/ggml_blck_size(t->type));
    size_t nb2 = nb1*(size_t) t->ne[1];
    size_t nb3 = nb2*(size_t) t->ne[2];
    return t->nb[0] == nb0 && t->nb[1] == nb1 && t->nb[2] == nb2 && t->nb[3] == nb3;
}

// a node that owns new memory (not a view)
static bool is_fresh(const struct ggml_tensor * t) {
    return t != NULL && t->view_src == NULL && t->data != NULL && has_contig_nb(t);
}

// a view of `a`'s memory at byte offset offs (a itself not a view)
static bool is_view_of(const struct ggml_tensor * t, const struct ggml_tensor * a, size_t offs) {
    return t != NULL && t->view_src == a && t->view_offs == offs && t->data == (char *) a->data + offs;
}

static bool srcs(const struct ggml_tensor * t, const struct ggml_tensor * s0, const struct ggml_tensor * s1,
        const struct ggml_tensor * s2) {
    return t != NULL && t->src[0] == s0 && t->src[1] == s1 && t->src[2] == s2 && t->src[3] == NULL;
}

// ---------------------------------------------------------------------------------------------

static void test_names(void) {
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_NONE), "NONE") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_ADD), "ADD") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_MUL_MAT), "MUL_MAT") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_SET_ROWS), "SET_ROWS") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_LEAKY_RELU), "LEAKY_RELU") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_DSV4_HC_POST), "DSV4_HC_POST") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_UNARY), "UNARY") == 0);
    TEST_CHECK(strcmp(ggml_op_name(GGML_OP_GLU), "GLU") == 0);
    TEST_CHECK(strcmp(ggml_op_symbol(GGML_OP_ADD), "x+y") == 0);
    TEST_CHECK(strcmp(ggml_op_symbol(GGML_OP_MUL_MAT), "X*Y") == 0);
    TEST_CHECK(strcmp(ggml_op_symbol(GGML_OP_SCALE), "x*v") == 0);
    TEST_CHECK(strcmp(ggml_op_symbol(GGML_OP_ACC), "view(x,nb,offset)+=y->x") == 0);
    TEST_CHECK(strcmp(ggml_op_symbol(GGML_OP_GLU), "glu(x)") == 0);
    TEST_CHECK(strcmp(ggml_unary_op_name(GGML_UNARY_OP_ABS), "ABS") == 0);
    TEST_CHECK(strcmp(ggml_unary_op_name(GGML_UNARY_OP_GELU_ERF), "GELU_ERF") == 0);
    TEST_CHECK(strcmp(ggml_unary_op_name(GGML_UNARY_OP_TRUNC), "TRUNC") == 0);
    TEST_CHECK(strcmp(ggml_glu_op_name(GGML_GLU_OP_SWIGLU), "SWIGLU") == 0);
    TEST_CHECK(strcmp(ggml_glu_op_name(GGML_GLU_OP_GEGLU_QUICK), "GEGLU_QUICK") == 0);

    // every id has its own upper-case name and a symbol
    const char * placeholder = ggml_op_name(GGML_OP_COUNT);
    TEST_CHECK(placeholder != NULL);
    for (int i = 0; i < GGML_OP_COUNT; i++) {
        const char * n = ggml_op_name((enum ggml_op) i);
        const char * s = ggml_op_symbol((enum ggml_op) i);
        TEST_CHECK_MSG(n != NULL && s != NULL && strcmp(n, placeholder) != 0 && strcmp(s, placeholder) != 0,
                "op %d has no name or symbol", i);
        for (const char * c = n; c != NULL && *c; c++) {
            if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) {
                TEST_CHECK_MSG(false, "op name %s is not upper-case", n);
                break;
            }
        }
        for (int j = 0; j < i; j++) {
            if (strcmp(n, ggml_op_name((enum ggml_op) j)) == 0) {
                TEST_CHECK_MSG(false, "ops %d and %d share the name %s", i, j, n);
            }
        }
    }
    const char * uplace = ggml_unary_op_name(GGML_UNARY_OP_COUNT);
    for (int i = 0; i < GGML_UNARY_OP_COUNT; i++) {
        const char * n = ggml_unary_op_name((enum ggml_unary_op) i);
        TEST_CHECK_MSG(n != NULL && strcmp(n, uplace) != 0, "unary op %d has no name", i);
        for (int j = 0; j < i; j++) {
            TEST_CHECK(strcmp(n, ggml_unary_op_name((enum ggml_unary_op) j)) != 0);
        }
    }
    const char * gplace = ggml_glu_op_name(GGML_GLU_OP_COUNT);
    for (int i = 0; i < GGML_GLU_OP_COUNT; i++) {
        const char * n = ggml_glu_op_name((enum ggml_glu_op) i);
        TEST_CHECK_MSG(n != NULL && strcmp(n, gplace) != 0, "glu op %d has no name", i);
    }

    // out of range: a placeholder, never NULL
    TEST_CHECK(ggml_op_name((enum ggml_op) -1) != NULL);
    TEST_CHECK(ggml_op_name((enum ggml_op) 100000) != NULL);
    TEST_CHECK(ggml_op_symbol((enum ggml_op) -7) != NULL);
    TEST_CHECK(ggml_op_symbol(GGML_OP_COUNT) != NULL);
    TEST_CHECK(ggml_unary_op_name((enum ggml_unary_op) -1) != NULL && uplace != NULL);
    TEST_CHECK(ggml_glu_op_name((enum ggml_glu_op) 1000) != NULL && gplace != NULL);
    TEST_CHECK(strcmp(ggml_op_desc(NULL), "") != 0);

    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 2);
    fill_f32(a);
    TEST_CHECK(strcmp(ggml_op_desc(a), "NONE") == 0);
    TEST_CHECK(strcmp(ggml_op_desc(ggml_add(ctx, a, a)), "ADD") == 0);
    TEST_CHECK(strcmp(ggml_op_desc(ggml_relu(ctx, a)), "RELU") == 0);
    TEST_CHECK(strcmp(ggml_op_desc(ggml_swiglu(ctx, a)), "SWIGLU") == 0);
    TEST_CHECK(ggml_get_unary_op(ggml_tanh(ctx, a)) == GGML_UNARY_OP_TANH);
    TEST_CHECK(ggml_get_glu_op(ggml_geglu(ctx, a)) == GGML_GLU_OP_GEGLU);

    // a corrupt op id in a node still gives a printable description
    struct ggml_tensor * u = ggml_relu(ctx, a);
    ggml_set_op_params_i32(u, 0, 9999);
    TEST_CHECK(ggml_op_desc(u) != NULL);

    test_log_capture_begin();
    TEST_CHECK(ggml_get_unary_op(a) == GGML_UNARY_OP_COUNT);
    TEST_CHECK(ggml_get_glu_op(a) == GGML_GLU_OP_COUNT);
    TEST_CHECK(ggml_get_unary_op(NULL) == GGML_UNARY_OP_COUNT);
    TEST_CHECK(ggml_get_glu_op(NULL) == GGML_GLU_OP_COUNT);
    TEST_CHECK(test_log_error_count() == 4);
    test_log_capture_end();
    ggml_free(ctx);
}

// ---------------------------------------------------------------------------------------------

typedef struct ggml_tensor * (*op1_fn)(struct ggml_context *, struct ggml_tensor *);
typedef struct ggml_tensor * (*op2_fn)(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *);

static void test_map1(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 3, 2);
    struct ggml_tensor * h = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 4, 6);
    fill_f32(a);
    const struct { op1_fn fn; op1_fn fn_inplace; enum ggml_op op; } cases[] = {
        { ggml_dup,  ggml_dup_inplace,  GGML_OP_DUP  },
        { ggml_sqr,  ggml_sqr_inplace,  GGML_OP_SQR  },
        { ggml_sqrt, ggml_sqrt_inplace, GGML_OP_SQRT },
        { ggml_log,  ggml_log_inplace,  GGML_OP_LOG  },
        { ggml_sin,  ggml_sin_inplace,  GGML_OP_SIN  },
        { ggml_cos,  ggml_cos_inplace,  GGML_OP_COS  },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        struct ggml_tensor * r = cases[i].fn(ctx, a);
        TEST_CHECK_MSG(r && r->op == cases[i].op && r->type == GGML_TYPE_F32 && has_ne(r, 5, 3, 2, 1) &&
                is_fresh(r) && r->data != a->data && srcs(r, a, NULL, NULL), "case %zu", i);
        struct ggml_tensor * v = cases[i].fn_inplace(ctx, a);
        TEST_CHECK_MSG(v && v->op == cases[i].op && has_ne(v, 5, 3, 2, 1) && is_view_of(v, a, 0) &&
                srcs(v, a, NULL, NULL) && ggml_are_same_stride(v, a), "inplace case %zu", i);
        struct ggml_tensor * rh = cases[i].fn(ctx, h);
        TEST_CHECK(rh && rh->type == GGML_TYPE_F16 && has_ne(rh, 4, 6, 1, 1));
    }
    // an inplace op on a transposed tensor keeps its strides
    struct ggml_tensor * t = ggml_transpose(ctx, a);
    struct ggml_tensor * v = ggml_sqr_inplace(ctx, t);
    TEST_CHECK(v && v->view_src == a && ggml_are_same_stride(v, t) && ggml_is_transposed(v));
    ggml_free(ctx);
}

// b shapes that add (and sub, mul, div) accept over a = [6, 4, 3, 2], and shapes they reject
static void test_broadcast(void) {
    struct ggml_context * ctx = new_ctx(4 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 6, 4, 3, 2);
    fill_f32(a);
    const int64_t ok_shapes[][4] = {
        { 6, 4, 3, 2 }, { 6, 1, 1, 1 }, { 1, 1, 1, 1 }, { 1, 4, 1, 1 }, { 3, 2, 3, 1 }, { 2, 4, 1, 2 }, { 6, 4, 1, 2 },
    };
    const int64_t bad_shapes[][4] = {
        { 4, 4, 3, 2 }, { 6, 3, 3, 2 }, { 12, 4, 3, 2 }, { 6, 4, 3, 4 }, { 5, 1, 1, 1 }, { 6, 8, 1, 1 },
    };
    const struct { op2_fn fn; op2_fn fn_inplace; enum ggml_op op; } ops[] = {
        { ggml_add, ggml_add_inplace, GGML_OP_ADD },
        { ggml_sub, ggml_sub_inplace, GGML_OP_SUB },
        { ggml_mul, ggml_mul_inplace, GGML_OP_MUL },
        { ggml_div, ggml_div_inplace, GGML_OP_DIV },
    };
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        for (size_t s = 0; s < sizeof(ok_shapes)/sizeof(ok_shapes[0]); s++) {
            struct ggml_tensor * b = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ok_shapes[s]);
            struct ggml_tensor * r = ops[o].fn(ctx, a, b);
            TEST_CHECK_MSG(r && r->op == ops[o].op && has_ne(r, 6, 4, 3, 2) && r->type == GGML_TYPE_F32 &&
                    is_fresh(r) && srcs(r, a, b, NULL), "op %s shape %zu", ggml_op_name(ops[o].op), s);
            struct ggml_tensor * v = ops[o].fn_inplace(ctx, a, b);
            TEST_CHECK_MSG(v && v->op == ops[o].op && is_view_of(v, a, 0) && srcs(v, a, b, NULL),
                    "inplace op %s shape %zu", ggml_op_name(ops[o].op), s);
        }
        test_log_capture_begin();
        for (size_t s = 0; s < sizeof(bad_shapes)/sizeof(bad_shapes[0]); s++) {
            struct ggml_tensor * b = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, bad_shapes[s]);
            const int before = test_log_error_count();
            TEST_CHECK_MSG(ops[o].fn(ctx, a, b) == NULL && ops[o].fn_inplace(ctx, a, b) == NULL &&
                    test_log_error_count() == before + 2, "op %s accepted bad shape %zu", ggml_op_name(ops[o].op), s);
        }
        // broadcasting is one-way: a smaller a does not grow to b
        struct ggml_tensor * row = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 6);
        TEST_CHECK(ops[o].fn(ctx, row, a) == NULL);
        test_log_capture_end();
    }

    // random shapes: b dims that divide a's are accepted, any non-divisor rejected
    for (int iter = 0; iter < 50; iter++) {
        int64_t na[4], nb_ok[4], nb_bad[4];
        for (int d = 0; d < 4; d++) {
            const int64_t f = test_rand_int(1, 3), g = test_rand_int(1, 3);
            na[d] = f*g;
            nb_ok[d] = test_rand_int(0, 1) ? f : na[d];
            nb_bad[d] = nb_ok[d];
        }
        const int d = (int) test_rand_int(0, 3);
        nb_bad[d] = na[d] + 1; // never divides na[d] (> na[d])
        struct ggml_tensor * ta = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, na);
        struct ggml_tensor * tb = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, nb_ok);
        struct ggml_tensor * tc = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, nb_bad);
        struct ggml_tensor * r = ggml_mul(ctx, ta, tb);
        TEST_CHECK(r && ggml_are_same_shape(r, ta));
        test_log_capture_begin();
        TEST_CHECK(ggml_mul(ctx, ta, tc) == NULL && test_log_error_count() == 1);
        test_log_capture_end();
    }
    ggml_free(ctx);
}

static void test_add_variants(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a16 = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 8, 3);
    struct ggml_tensor * row = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * q   = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 2);
    struct ggml_tensor * qrow = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    fill_f32(row);

    struct ggml_tensor * r = ggml_add_cast(ctx, a16, row, GGML_TYPE_F32);
    TEST_CHECK(r && r->op == GGML_OP_ADD && r->type == GGML_TYPE_F32 && has_ne(r, 8, 3, 1, 1) && is_fresh(r) &&
            srcs(r, a16, row, NULL));
    r = ggml_add_cast(ctx, q, qrow, GGML_TYPE_F16);
    TEST_CHECK(r && r->type == GGML_TYPE_F16 && has_ne(r, 64, 2, 1, 1));

    // add1: b is a one-element tensor
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2);
    struct ggml_tensor * s = ggml_new_f32(ctx, 2.5f);
    fill_f32(a);
    r = ggml_add1(ctx, a, s);
    TEST_CHECK(r && r->op == GGML_OP_ADD1 && has_ne(r, 4, 3, 2, 1) && is_fresh(r) && srcs(r, a, s, NULL));
    r = ggml_add1_inplace(ctx, a, s);
    TEST_CHECK(r && r->op == GGML_OP_ADD1 && is_view_of(r, a, 0) && srcs(r, a, s, NULL));
    ggml_free(ctx);
}

static void test_scale_clamp_leaky(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 5);
    fill_f32(a);

    struct ggml_tensor * r = ggml_scale(ctx, a, 1.75f);
    TEST_CHECK(r && r->op == GGML_OP_SCALE && is_fresh(r) && has_ne(r, 7, 5, 1, 1) && srcs(r, a, NULL, NULL));
    TEST_CHECK(r && ggml_get_op_params_f32(r, 0) == 1.75f && ggml_get_op_params_f32(r, 1) == 0.0f);
    r = ggml_scale_inplace(ctx, a, -3.0f);
    TEST_CHECK(r && is_view_of(r, a, 0) && ggml_get_op_params_f32(r, 0) == -3.0f);
    r = ggml_scale_bias(ctx, a, 2.5f, -1.25f);
    TEST_CHECK(r && r->op == GGML_OP_SCALE && is_fresh(r) &&
            ggml_get_op_params_f32(r, 0) == 2.5f && ggml_get_op_params_f32(r, 1) == -1.25f);
    r = ggml_scale_bias_inplace(ctx, a, 0.5f, 4.0f);
    TEST_CHECK(r && is_view_of(r, a, 0) && ggml_get_op_params_f32(r, 0) == 0.5f && ggml_get_op_params_f32(r, 1) == 4.0f);

    r = ggml_clamp(ctx, a, -0.5f, 3.25f);
    TEST_CHECK(r && r->op == GGML_OP_CLAMP && r->view_src == a && has_ne(r, 7, 5, 1, 1) && srcs(r, a, NULL, NULL));
    TEST_CHECK(r && ggml_get_op_params_f32(r, 0) == -0.5f && ggml_get_op_params_f32(r, 1) == 3.25f);

    r = ggml_leaky_relu(ctx, a, 0.125f, false);
    TEST_CHECK(r && r->op == GGML_OP_LEAKY_RELU && is_fresh(r) && ggml_get_op_params_f32(r, 0) == 0.125f &&
            srcs(r, a, NULL, NULL));
    r = ggml_leaky_relu(ctx, a, 0.03f, true);
    TEST_CHECK(r && r->op == GGML_OP_LEAKY_RELU && is_view_of(r, a, 0) && ggml_get_op_params_f32(r, 0) == 0.03f);
    ggml_free(ctx);
}

static void test_unary(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 6, 2, 3);
    fill_f32(a);
    const struct { op1_fn fn; op1_fn fn_inplace; enum ggml_unary_op op; } cases[] = {
        { ggml_abs,         ggml_abs_inplace,        GGML_UNARY_OP_ABS         },
        { ggml_sgn,         ggml_sgn_inplace,        GGML_UNARY_OP_SGN         },
        { ggml_neg,         ggml_neg_inplace,        GGML_UNARY_OP_NEG         },
        { ggml_step,        ggml_step_inplace,       GGML_UNARY_OP_STEP        },
        { ggml_tanh,        ggml_tanh_inplace,       GGML_UNARY_OP_TANH        },
        { ggml_elu,         ggml_elu_inplace,        GGML_UNARY_OP_ELU         },
        { ggml_relu,        ggml_relu_inplace,       GGML_UNARY_OP_RELU        },
        { ggml_sigmoid,     ggml_sigmoid_inplace,    GGML_UNARY_OP_SIGMOID     },
        { ggml_gelu,        ggml_gelu_inplace,       GGML_UNARY_OP_GELU        },
        { ggml_gelu_erf,    ggml_gelu_erf_inplace,   GGML_UNARY_OP_GELU_ERF    },
        { ggml_gelu_quick,  ggml_gelu_quick_inplace, GGML_UNARY_OP_GELU_QUICK  },
        { ggml_silu,        ggml_silu_inplace,       GGML_UNARY_OP_SILU        },
        { ggml_exp,         ggml_exp_inplace,        GGML_UNARY_OP_EXP         },
        { ggml_hardswish,   NULL,                    GGML_UNARY_OP_HARDSWISH   },
        { ggml_hardsigmoid, NULL,                    GGML_UNARY_OP_HARDSIGMOID },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        struct ggml_tensor * r = cases[i].fn(ctx, a);
        TEST_CHECK_MSG(r && r->op == GGML_OP_UNARY && ggml_get_op_params_i32(r, 0) == (int32_t) cases[i].op &&
                is_fresh(r) && has_ne(r, 6, 2, 3, 1) && r->type == a->type && srcs(r, a, NULL, NULL),
                "unary %s", ggml_unary_op_name(cases[i].op));
        TEST_CHECK(r && strcmp(ggml_op_desc(r), ggml_unary_op_name(cases[i].op)) == 0);
        if (cases[i].fn_inplace) {
            struct ggml_tensor * v = cases[i].fn_inplace(ctx, a);
            TEST_CHECK_MSG(v && v->op == GGML_OP_UNARY && ggml_get_unary_op(v) == cases[i].op &&
                    is_view_of(v, a, 0) && srcs(v, a, NULL, NULL), "inplace unary %s", ggml_unary_op_name(cases[i].op));
        }
    }
    for (int op = 0; op < GGML_UNARY_OP_COUNT; op++) {
        struct ggml_tensor * r = ggml_unary(ctx, a, (enum ggml_unary_op) op);
        struct ggml_tensor * v = ggml_unary_inplace(ctx, a, (enum ggml_unary_op) op);
        TEST_CHECK(r && (int) ggml_get_unary_op(r) == op && is_fresh(r));
        TEST_CHECK(v && (int) ggml_get_unary_op(v) == op && is_view_of(v, a, 0));
    }
    // rows need only be contiguous: a view of every other row is fine
    struct ggml_tensor * rows = ggml_view_2d(ctx, a, 6, 3, 2*a->nb[1], 0);
    struct ggml_tensor * r = ggml_relu(ctx, rows);
    TEST_CHECK(r && has_ne(r, 6, 3, 1, 1) && is_fresh(r));
    ggml_free(ctx);
}

static void test_glu(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 10, 3, 2);
    struct ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 10, 3, 2);
    fill_f32(a);
    fill_f32(b);
    const struct { op1_fn one; op1_fn swapped; op2_fn split; enum ggml_glu_op op; } cases[] = {
        { ggml_reglu,       ggml_reglu_swapped,       ggml_reglu_split,       GGML_GLU_OP_REGLU       },
        { ggml_geglu,       ggml_geglu_swapped,       ggml_geglu_split,       GGML_GLU_OP_GEGLU       },
        { ggml_swiglu,      ggml_swiglu_swapped,      ggml_swiglu_split,      GGML_GLU_OP_SWIGLU      },
        { ggml_geglu_erf,   ggml_geglu_erf_swapped,   ggml_geglu_erf_split,   GGML_GLU_OP_GEGLU_ERF   },
        { ggml_geglu_quick, ggml_geglu_quick_swapped, ggml_geglu_quick_split, GGML_GLU_OP_GEGLU_QUICK },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        struct ggml_tensor * r = cases[i].one(ctx, a);
        TEST_CHECK_MSG(r && r->op == GGML_OP_GLU && has_ne(r, 5, 3, 2, 1) && is_fresh(r) && srcs(r, a, NULL, NULL) &&
                ggml_get_op_params_i32(r, 0) == (int32_t) cases[i].op && ggml_get_op_params_i32(r, 1) == 0,
                "glu %s", ggml_glu_op_name(cases[i].op));
        struct ggml_tensor * s = cases[i].swapped(ctx, a);
        TEST_CHECK(s && has_ne(s, 5, 3, 2, 1) && ggml_get_glu_op(s) == cases[i].op && ggml_get_op_params_i32(s, 1) == 1);
        struct ggml_tensor * p = cases[i].split(ctx, a, b);
        TEST_CHECK(p && has_ne(p, 10, 3, 2, 1) && is_fresh(p) && srcs(p, a, b, NULL) &&
                ggml_get_glu_op(p) == cases[i].op && ggml_get_op_params_i32(p, 1) == 0);
        TEST_CHECK(p && strcmp(ggml_op_desc(p), ggml_glu_op_name(cases[i].op)) == 0);
    }
    for (int op = 0; op < GGML_GLU_OP_COUNT; op++) {
        struct ggml_tensor * g = ggml_glu(ctx, a, (enum ggml_glu_op) op, op % 2 == 1);
        TEST_CHECK(g && (int) ggml_get_glu_op(g) == op && ggml_get_op_params_i32(g, 1) == (op % 2) && has_ne(g, 5, 3, 2, 1));
        struct ggml_tensor * gs = ggml_glu_split(ctx, a, b, (enum ggml_glu_op) op);
        TEST_CHECK(gs && (int) ggml_get_glu_op(gs) == op && gs->src[1] == b && has_ne(gs, 10, 3, 2, 1));
    }
    // F16 input keeps its type
    struct ggml_tensor * h = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 8, 4);
    struct ggml_tensor * r = ggml_swiglu(ctx, h);
    TEST_CHECK(r && r->type == GGML_TYPE_F16 && has_ne(r, 4, 4, 1, 1));
    ggml_free(ctx);
}

static void test_reductions_repeat(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 4, 3, 2);
    struct ggml_tensor * h = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 5, 4, 3);
    fill_f32(a);

    struct ggml_tensor * r = ggml_sum(ctx, a);
    TEST_CHECK(r && r->op == GGML_OP_SUM && r->type == GGML_TYPE_F32 && has_ne(r, 1, 1, 1, 1) && is_fresh(r) &&
            srcs(r, a, NULL, NULL));
    r = ggml_sum(ctx, h);
    TEST_CHECK(r && r->type == GGML_TYPE_F16);
    r = ggml_sum_rows(ctx, a);
    TEST_CHECK(r && r->op == GGML_OP_SUM_ROWS && has_ne(r, 1, 4, 3, 2) && is_fresh(r) && srcs(r, a, NULL, NULL));
    r = ggml_sum_rows(ctx, h);
    TEST_CHECK(r && r->type == GGML_TYPE_F16 && has_ne(r, 1, 4, 3, 1));
    r = ggml_mean(ctx, h);
    TEST_CHECK(r && r->op == GGML_OP_MEAN && r->type == GGML_TYPE_F32 && has_ne(r, 1, 4, 3, 1) && srcs(r, h, NULL, NULL));
    struct ggml_tensor * m = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 9, 7);
    r = ggml_argmax(ctx, m);
    TEST_CHECK(r && r->op == GGML_OP_ARGMAX && r->type == GGML_TYPE_I32 && has_ne(r, 7, 1, 1, 1) && srcs(r, m, NULL, NULL));

    struct ggml_tensor * small = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 2, 1, 3, 1);
    struct ggml_tensor * big   = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 4, 5, 3, 2);
    r = ggml_repeat(ctx, small, big);
    TEST_CHECK(r && r->op == GGML_OP_REPEAT && r->type == GGML_TYPE_F32 && has_ne(r, 4, 5, 3, 2) && is_fresh(r) &&
            srcs(r, small, NULL, NULL));
    r = ggml_repeat_4d(ctx, small, 6, 2, 9, 4);
    TEST_CHECK(r && r->op == GGML_OP_REPEAT && has_ne(r, 6, 2, 9, 4) && srcs(r, small, NULL, NULL));
    test_log_capture_begin();
    TEST_CHECK(ggml_repeat(ctx, big, small) == NULL);
    TEST_CHECK(ggml_repeat_4d(ctx, small, 3, 2, 9, 4) == NULL);
    TEST_CHECK(ggml_repeat_4d(ctx, small, 4, 2, 4, 4) == NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();
    ggml_free(ctx);
}

// ---------------------------------------------------------------------------------------------

static void test_cpy_cast_cont(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 12);
    fill_f32(a);
    ggml_set_name(a, "src");
    ggml_set_name(b, "dst");

    struct ggml_tensor * r = ggml_cpy(ctx, a, b);
    TEST_CHECK(r && r->op == GGML_OP_CPY && r->type == GGML_TYPE_F16 && has_ne(r, 12, 1, 1, 1) &&
            is_view_of(r, b, 0) && srcs(r, a, b, NULL));
    TEST_CHECK(r && strcmp(r->name, "dst (copy of src)") == 0);
    struct ggml_tensor * b2 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 2);
    r = ggml_cpy(ctx, a, b2);
    TEST_CHECK(r && strcmp(r->name, "src (copy)") == 0 && is_view_of(r, b2, 0));

    r = ggml_cast(ctx, a, GGML_TYPE_F16);
    TEST_CHECK(r && r->op == GGML_OP_CPY && r->type == GGML_TYPE_F16 && has_ne(r, 4, 3, 1, 1) && is_fresh(r) &&
            srcs(r, a, r, NULL) && strcmp(r->name, "src (copy)") == 0);

    struct ggml_tensor * t = ggml_transpose(ctx, a);
    r = ggml_cont(ctx, t);
    TEST_CHECK(r && r->op == GGML_OP_CONT && has_ne(r, 3, 4, 1, 1) && is_fresh(r) && ggml_is_contiguous(r) &&
            srcs(r, t, NULL, NULL) && strcmp(r->name, "src (transposed) (cont)") == 0);
    r = ggml_cont_1d(ctx, t, 12);
    TEST_CHECK(r && r->op == GGML_OP_CONT && has_ne(r, 12, 1, 1, 1) && is_fresh(r) && srcs(r, t, NULL, NULL));
    r = ggml_cont_2d(ctx, t, 2, 6);
    TEST_CHECK(r && has_ne(r, 2, 6, 1, 1) && is_fresh(r));
    r = ggml_cont_3d(ctx, t, 2, 3, 2);
    TEST_CHECK(r && has_ne(r, 2, 3, 2, 1) && is_fresh(r));
    r = ggml_cont_4d(ctx, t, 1, 2, 3, 2);
    TEST_CHECK(r && has_ne(r, 1, 2, 3, 2) && is_fresh(r) && strstr(r->name, "(cont)") != NULL);
    ggml_free(ctx);
}

static void test_reshape(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 4);
    fill_f32(a);
    ggml_set_name(a, "w");

    struct ggml_tensor * r = ggml_reshape_2d(ctx, a, 8, 3);
    TEST_CHECK(r && r->op == GGML_OP_RESHAPE && has_ne(r, 8, 3, 1, 1) && has_contig_nb(r) && is_view_of(r, a, 0) &&
            srcs(r, a, NULL, NULL) && strcmp(r->name, "w (reshaped)") == 0);
    TEST_CHECK(r && at(r, 1, 2, 0, 0) == at(a, 5, 2, 0, 0)); // flat index 17
    r = ggml_reshape_1d(ctx, a, 24);
    TEST_CHECK(r && has_ne(r, 24, 1, 1, 1) && is_view_of(r, a, 0) && at(r, 13, 0, 0, 0) == at(a, 1, 2, 0, 0));
    r = ggml_reshape_3d(ctx, a, 2, 3, 4);
    TEST_CHECK(r && has_ne(r, 2, 3, 4, 1) && has_contig_nb(r) && is_view_of(r, a, 0));
    r = ggml_reshape_4d(ctx, a, 2, 2, 3, 2);
    TEST_CHECK(r && has_ne(r, 2, 2, 3, 2) && has_contig_nb(r) && is_view_of(r, a, 0));
    TEST_CHECK(r && at(r, 1, 1, 2, 1) == at(a, 5, 3, 0, 0)); // flat index 23
    struct ggml_tensor * shape = ggml_new_tensor_3d(ctx, GGML_TYPE_I8, 3, 2, 4);
    r = ggml_reshape(ctx, a, ggml_transpose(ctx, shape)); // only b's shape counts
    TEST_CHECK(r && has_ne(r, 2, 3, 4, 1) && r->type == GGML_TYPE_F32 && is_view_of(r, a, 0));

    // reshaping a contiguous view keeps pointing into the root tensor
    struct ggml_tensor * v = ggml_view_1d(ctx, a, 12, 6*4*2);
    r = ggml_reshape_2d(ctx, v, 3, 4);
    TEST_CHECK(r && r->view_src == a && r->view_offs == 48 && r->data == (char *) a->data + 48 &&
            at(r, 0, 0, 0, 0) == at(a, 0, 2, 0, 0));

    test_log_capture_begin();
    TEST_CHECK(ggml_reshape_2d(ctx, a, 5, 5) == NULL);
    TEST_CHECK(ggml_reshape_2d(ctx, ggml_transpose(ctx, a), 4, 6) == NULL);
    TEST_CHECK(ggml_reshape_1d(ctx, a, -24) == NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();
    ggml_free(ctx);
}

static void test_views(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 6, 2);
    fill_f32(a);
    ggml_set_name(a, "kv");
    const size_t es = sizeof(float);

    struct ggml_tensor * v = ggml_view_1d(ctx, a, 5, 3*es);
    TEST_CHECK(v && v->op == GGML_OP_VIEW && has_ne(v, 5, 1, 1, 1) && has_contig_nb(v) && is_view_of(v, a, 3*es) &&
            srcs(v, a, NULL, NULL) && strcmp(v->name, "kv (view)") == 0);
    size_t offs = 0;
    if (v) {
        memcpy(&offs, v->op_params, sizeof(offs));
    }
    TEST_CHECK(offs == 3*es);
    TEST_CHECK(v && at(v, 0, 0, 0, 0) == at(a, 3, 0, 0, 0) && at(v, 4, 0, 0, 0) == at(a, 7, 0, 0, 0));

    // 3x4 block starting at (2, 1) of the first matrix, keeping a's row stride
    v = ggml_view_2d(ctx, a, 3, 4, a->nb[1], a->nb[1] + 2*es);
    TEST_CHECK(v && has_ne(v, 3, 4, 1, 1) && v->nb[0] == es && v->nb[1] == a->nb[1] && v->nb[2] == 4*a->nb[1] &&
            v->nb[3] == v->nb[2] && is_view_of(v, a, a->nb[1] + 2*es));
    TEST_CHECK(v && at(v, 2, 3, 0, 0) == at(a, 4, 4, 0, 0) && at(v, 0, 1, 0, 0) == at(a, 2, 2, 0, 0));

    // every other column of both matrices: nb0 stays the element size, nb1 = 2 elements
    v = ggml_view_3d(ctx, a, 1, 4, 2, 2*es, a->nb[2], es);
    TEST_CHECK(v && has_ne(v, 1, 4, 2, 1) && v->nb[1] == 2*es && v->nb[2] == a->nb[2] && v->nb[3] == 2*a->nb[2]);
    TEST_CHECK(v && at(v, 0, 3, 1, 0) == at(a, 7, 0, 1, 0));

    v = ggml_view_4d(ctx, a, 8, 3, 1, 2, 2*a->nb[1], a->nb[2], a->nb[2], a->nb[1]);
    TEST_CHECK(v && has_ne(v, 8, 3, 1, 2) && v->nb[1] == 2*a->nb[1] && v->nb[3] == a->nb[2] &&
            at(v, 6, 2, 0, 1) == at(a, 6, 5, 1, 0));

    // the last bytes of a exactly: accepted
    v = ggml_view_1d(ctx, a, 4, ggml_nbytes(a) - 4*es);
    TEST_CHECK(v && at(v, 3, 0, 0, 0) == at(a, 7, 5, 1, 0));
    v = ggml_view_2d(ctx, a, 8, 12, a->nb[1], 0);
    TEST_CHECK(v && has_ne(v, 8, 12, 1, 1));
    v = ggml_view_2d(ctx, a, 2, 12, a->nb[1], 6*es); // strided: its furthest byte is a's last
    TEST_CHECK(v && v->nb[1] == a->nb[1] && at(v, 1, 11, 0, 0) == at(a, 7, 5, 1, 0));

    // view of a view resolves to the root and adds the offsets
    struct ggml_tensor * inner = ggml_view_1d(ctx, a, 48, a->nb[2]);
    v = ggml_view_2d(ctx, inner, 4, 2, 8*es, 2*es);
    TEST_CHECK(v && v->view_src == a && v->view_offs == a->nb[2] + 2*es && v->src[0] == inner &&
            v->data == (char *) a->data + a->nb[2] + 2*es && at(v, 3, 1, 0, 0) == at(a, 5, 1, 1, 0));

    // empty views
    v = ggml_view_1d(ctx, a, 0, ggml_nbytes(a));
    TEST_CHECK(v && has_ne(v, 0, 1, 1, 1));

    // quantized: whole blocks only
    struct ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 3);
    v = ggml_view_2d(ctx, q, 32, 3, q->nb[1], ggml_type_size(GGML_TYPE_Q8_0));
    TEST_CHECK(v && has_ne(v, 32, 3, 1, 1) && v->nb[0] == ggml_type_size(GGML_TYPE_Q8_0) && v->nb[1] == q->nb[1]);
    ggml_free(ctx);
}

static void test_permute_transpose(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 2, 3, 4, 5);
    fill_f32(a);
    ggml_set_name(a, "x");

    struct ggml_tensor * p = ggml_permute(ctx, a, 1, 2, 3, 0);
    TEST_CHECK(p && p->op == GGML_OP_PERMUTE && has_ne(p, 5, 2, 3, 4) && is_view_of(p, a, 0) && srcs(p, a, NULL, NULL));
    TEST_CHECK(p && p->nb[1] == a->nb[0] && p->nb[2] == a->nb[1] && p->nb[3] == a->nb[2] && p->nb[0] == a->nb[3]);
    TEST_CHECK(p && ggml_get_op_params_i32(p, 0) == 1 && ggml_get_op_params_i32(p, 1) == 2 &&
            ggml_get_op_params_i32(p, 2) == 3 && ggml_get_op_params_i32(p, 3) == 0);
    TEST_CHECK(p && ggml_is_permuted(p) && !ggml_is_contiguous(p) && strcmp(p->name, "x (permuted)") == 0);
    TEST_CHECK(p && at(p, 4, 1, 2, 3) == at(a, 1, 2, 3, 4) && at(p, 0, 0, 1, 2) == at(a, 0, 1, 2, 0));

    p = ggml_permute(ctx, a, 0, 2, 1, 3);
    TEST_CHECK(p && has_ne(p, 2, 4, 3, 5) && p->nb[1] == a->nb[2] && p->nb[2] == a->nb[1] && ggml_is_permuted(p) &&
            !ggml_is_transposed(p) && at(p, 1, 3, 2, 4) == at(a, 1, 2, 3, 4));
    p = ggml_permute(ctx, a, 0, 1, 2, 3);
    TEST_CHECK(p && ggml_are_same_shape(p, a) && ggml_are_same_stride(p, a) && !ggml_is_permuted(p));

    struct ggml_tensor * t = ggml_transpose(ctx, a);
    TEST_CHECK(t && t->op == GGML_OP_TRANSPOSE && has_ne(t, 3, 2, 4, 5) && t->nb[0] == a->nb[1] &&
            t->nb[1] == a->nb[0] && t->nb[2] == a->nb[2] && t->nb[3] == a->nb[3] && is_view_of(t, a, 0) &&
            srcs(t, a, NULL, NULL));
    TEST_CHECK(t && ggml_is_transposed(t) && ggml_is_permuted(t) && strcmp(t->name, "x (transposed)") == 0);
    TEST_CHECK(t && at(t, 2, 1, 3, 4) == at(a, 1, 2, 3, 4));
    struct ggml_tensor * tt = ggml_transpose(ctx, t);
    TEST_CHECK(tt && ggml_are_same_stride(tt, a) && !ggml_is_transposed(tt) && tt->view_src == a && tt->src[0] == t);
    ggml_free(ctx);
}

static void test_rows(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 4, 10, 2, 3);
    struct ggml_tensor * idx = ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 5, 2, 3);
    for (int i = 0; i < 30; i++) {
        ggml_set_i32_1d(idx, i, (i*7) % 10);
    }
    struct ggml_tensor * r = ggml_get_rows(ctx, a, idx);
    TEST_CHECK(r && r->op == GGML_OP_GET_ROWS && r->type == GGML_TYPE_F32 && has_ne(r, 4, 5, 2, 3) && is_fresh(r) &&
            srcs(r, a, idx, NULL));
    struct ggml_tensor * ai = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 10);
    struct ggml_tensor * i1 = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 7);
    r = ggml_get_rows(ctx, ai, i1);
    TEST_CHECK(r && r->type == GGML_TYPE_I32 && has_ne(r, 3, 7, 1, 1));

    struct ggml_tensor * rows = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 4, 5, 2, 3);
    struct ggml_tensor * c64  = ggml_new_tensor_3d(ctx, GGML_TYPE_I64, 5, 1, 3);
    fill_f32(rows);
    r = ggml_set_rows(ctx, a, rows, c64);
    TEST_CHECK(r && r->op == GGML_OP_SET_ROWS && r->type == GGML_TYPE_F16 && has_ne(r, 4, 10, 2, 3) &&
            is_view_of(r, a, 0) && srcs(r, rows, c64, a));
    struct ggml_tensor * c32 = ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 5, 2, 1);
    r = ggml_set_rows(ctx, a, rows, c32);
    TEST_CHECK(r && r->view_src == a && r->src[1] == c32);
    ggml_free(ctx);
}

static void test_set_acc(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 6, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, 2);
    fill_f32(a);
    fill_f32(b);
    const size_t off = a->nb[1] + 2*sizeof(float);

    const struct {
        struct ggml_tensor * (*fn)(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, size_t, size_t, size_t, size_t);
        enum ggml_op op; bool inplace;
    } cases[] = {
        { ggml_set, GGML_OP_SET, false }, { ggml_set_inplace, GGML_OP_SET, true },
        { ggml_acc, GGML_OP_ACC, false }, { ggml_acc_inplace, GGML_OP_ACC, true },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        struct ggml_tensor * r = cases[i].fn(ctx, a, b, a->nb[1], a->nb[2], a->nb[3], off);
        TEST_CHECK_MSG(r && r->op == cases[i].op && has_ne(r, 6, 4, 1, 1) && r->type == GGML_TYPE_F32 &&
                srcs(r, a, b, NULL) && (cases[i].inplace ? is_view_of(r, a, 0) : is_fresh(r)), "case %zu", i);
        TEST_CHECK(r && ggml_get_op_params_i32(r, 0) == (int32_t) a->nb[1] && ggml_get_op_params_i32(r, 1) == (int32_t) a->nb[2] &&
                ggml_get_op_params_i32(r, 2) == (int32_t) a->nb[3] && ggml_get_op_params_i32(r, 3) == (int32_t) off &&
                ggml_get_op_params_i32(r, 4) == (cases[i].inplace ? 1 : 0));
    }
    struct ggml_tensor * v = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
    struct ggml_tensor * r = ggml_set_1d(ctx, a, v, 4*sizeof(float));
    TEST_CHECK(r && r->op == GGML_OP_SET && is_fresh(r) && ggml_get_op_params_i32(r, 0) == (int32_t) a->nb[1] &&
            ggml_get_op_params_i32(r, 3) == 16 && ggml_get_op_params_i32(r, 4) == 0);
    r = ggml_set_1d_inplace(ctx, a, v, 0);
    TEST_CHECK(r && is_view_of(r, a, 0) && ggml_get_op_params_i32(r, 4) == 1);
    r = ggml_set_2d(ctx, a, b, 2*a->nb[1], 8);
    TEST_CHECK(r && ggml_get_op_params_i32(r, 0) == (int32_t)(2*a->nb[1]) && ggml_get_op_params_i32(r, 1) == (int32_t) a->nb[2] &&
            ggml_get_op_params_i32(r, 3) == 8 && is_fresh(r));
    r = ggml_set_2d_inplace(ctx, a, b, a->nb[1], 0);
    TEST_CHECK(r && is_view_of(r, a, 0) && ggml_get_op_params_i32(r, 4) == 1);
    // the written block may end on a's last byte
    r = ggml_set_2d(ctx, a, b, a->nb[1], 2*a->nb[1] + 3*sizeof(float));
    TEST_CHECK(r != NULL);
    ggml_free(ctx);
}

static void test_concat_pad_arange(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 3, 4, 2, 2);
    fill_f32(a);
    for (int dim = 0; dim < 4; dim++) {
        int64_t ne[4] = { 3, 4, 2, 2 };
        ne[dim] = 5;
        struct ggml_tensor * b = ggml_new_tensor(ctx, GGML_TYPE_F32, 4, ne);
        struct ggml_tensor * r = ggml_concat(ctx, a, b, dim);
        int64_t want[4] = { 3, 4, 2, 2 };
        want[dim] += 5;
        TEST_CHECK_MSG(r && r->op == GGML_OP_CONCAT && has_ne(r, want[0], want[1], want[2], want[3]) && is_fresh(r) &&
                srcs(r, a, b, NULL) && ggml_get_op_params_i32(r, 0) == dim, "concat dim %d", dim);
    }

    struct ggml_tensor * r = ggml_pad(ctx, a, 1, 2, 0, 3);
    TEST_CHECK(r && r->op == GGML_OP_PAD && has_ne(r, 4, 6, 2, 5) && is_fresh(r) && srcs(r, a, NULL, NULL));
    const int32_t want_pad[8] = { 0, 1, 0, 2, 0, 0, 0, 3 };
    for (int i = 0; i < 8; i++) {
        TEST_CHECK(r && ggml_get_op_params_i32(r, i) == want_pad[i]);
    }
    r = ggml_pad_ext(ctx, a, 1, 2, 3, 4, 0, 1, 2, 0);
    TEST_CHECK(r && r->op == GGML_OP_PAD && has_ne(r, 6, 11, 3, 4) && is_fresh(r));
    const int32_t want_ext[8] = { 1, 2, 3, 4, 0, 1, 2, 0 };
    for (int i = 0; i < 8; i++) {
        TEST_CHECK(r && ggml_get_op_params_i32(r, i) == want_ext[i]);
    }

    r = ggml_arange(ctx, 0.0f, 5.0f, 2.0f);
    TEST_CHECK(r && r->op == GGML_OP_ARANGE && r->type == GGML_TYPE_F32 && has_ne(r, 3, 1, 1, 1) && is_fresh(r) &&
            srcs(r, NULL, NULL, NULL));
    TEST_CHECK(r && ggml_get_op_params_f32(r, 0) == 0.0f && ggml_get_op_params_f32(r, 1) == 5.0f &&
            ggml_get_op_params_f32(r, 2) == 2.0f);
    r = ggml_arange(ctx, 1.0f, 2.0f, 0.3f);
    TEST_CHECK(r && has_ne(r, 4, 1, 1, 1));
    r = ggml_arange(ctx, -3.5f, 4.5f, 1.0f);
    TEST_CHECK(r && has_ne(r, 8, 1, 1, 1));
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    test_names();
    test_map1();
    test_broadcast();
    test_add_variants();
    test_scale_clamp_leaky();
    test_unary();
    test_glu();
    test_reductions_repeat();
    test_cpy_cast_cont();
    test_reshape();
    test_views();
    test_permute_transpose();
    test_rows();
    test_set_acc();
    test_concat_pad_arange();
    return test_finish("test-ops-shapes");
}
