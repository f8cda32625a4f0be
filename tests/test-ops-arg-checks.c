// Bad input to the element-wise and layout op constructors: every constructor returns NULL and
// logs an error for a NULL context or tensor, for a full context, and for shapes, types and
// parameters it cannot take; the same call with good input succeeds, and the process lives.

#include "test-common.h"
#include "ggml-impl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct ggml_tensor * (*wrap_fn)(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *, struct ggml_tensor *);

// a = F32 [8, 4, 3, 2] has strides 4, 32, 128, 384 and 768 bytes
#define NB1 32
#define NB2 128
#define NB3 384

#define W(name, call) \
    static struct ggml_tensor * w_##name(struct ggml_context * ctx, struct ggml_tensor * a, \
            struct ggml_tensor * b, struct ggml_tensor * c) { \
        (void) a; (void) b; (void) c; return call; }

W(dup,               ggml_dup(ctx, a))
W(dup_inplace,       ggml_dup_inplace(ctx, a))
W(add,               ggml_add(ctx, a, b))
W(add_inplace,       ggml_add_inplace(ctx, a, b))
W(add_cast,          ggml_add_cast(ctx, a, b, GGML_TYPE_F32))
W(add1,              ggml_add1(ctx, a, b))
W(add1_inplace,      ggml_add1_inplace(ctx, a, b))
W(sub,               ggml_sub(ctx, a, b))
W(sub_inplace,       ggml_sub_inplace(ctx, a, b))
W(mul,               ggml_mul(ctx, a, b))
W(mul_inplace,       ggml_mul_inplace(ctx, a, b))
W(div,               ggml_div(ctx, a, b))
W(div_inplace,       ggml_div_inplace(ctx, a, b))
W(sqr,               ggml_sqr(ctx, a))
W(sqr_inplace,       ggml_sqr_inplace(ctx, a))
W(sqrt,              ggml_sqrt(ctx, a))
W(sqrt_inplace,      ggml_sqrt_inplace(ctx, a))
W(log,               ggml_log(ctx, a))
W(log_inplace,       ggml_log_inplace(ctx, a))
W(sin,               ggml_sin(ctx, a))
W(sin_inplace,       ggml_sin_inplace(ctx, a))
W(cos,               ggml_cos(ctx, a))
W(cos_inplace,       ggml_cos_inplace(ctx, a))
W(scale,             ggml_scale(ctx, a, 3.0f))
W(scale_inplace,     ggml_scale_inplace(ctx, a, 3.0f))
W(scale_bias,        ggml_scale_bias(ctx, a, 3.0f, 1.0f))
W(scale_bias_inplace, ggml_scale_bias_inplace(ctx, a, 3.0f, 1.0f))
W(clamp,             ggml_clamp(ctx, a, -1.0f, 1.0f))
W(leaky_relu,        ggml_leaky_relu(ctx, a, 0.1f, false))
W(leaky_relu_inplace, ggml_leaky_relu(ctx, a, 0.1f, true))
W(abs,               ggml_abs(ctx, a))
W(abs_inplace,       ggml_abs_inplace(ctx, a))
W(sgn,               ggml_sgn(ctx, a))
W(sgn_inplace,       ggml_sgn_inplace(ctx, a))
W(neg,               ggml_neg(ctx, a))
W(neg_inplace,       ggml_neg_inplace(ctx, a))
W(step,              ggml_step(ctx, a))
W(step_inplace,      ggml_step_inplace(ctx, a))
W(tanh,              ggml_tanh(ctx, a))
W(tanh_inplace,      ggml_tanh_inplace(ctx, a))
W(elu,               ggml_elu(ctx, a))
W(elu_inplace,       ggml_elu_inplace(ctx, a))
W(relu,              ggml_relu(ctx, a))
W(relu_inplace,      ggml_relu_inplace(ctx, a))
W(sigmoid,           ggml_sigmoid(ctx, a))
W(sigmoid_inplace,   ggml_sigmoid_inplace(ctx, a))
W(gelu,              ggml_gelu(ctx, a))
W(gelu_inplace,      ggml_gelu_inplace(ctx, a))
W(gelu_erf,          ggml_gelu_erf(ctx, a))
W(gelu_erf_inplace,  ggml_gelu_erf_inplace(ctx, a))
W(gelu_quick,        ggml_gelu_quick(ctx, a))
W(gelu_quick_inplace, ggml_gelu_quick_inplace(ctx, a))
W(silu,              ggml_silu(ctx, a))
W(silu_inplace,      ggml_silu_inplace(ctx, a))
W(hardswish,         ggml_hardswish(ctx, a))
W(hardsigmoid,       ggml_hardsigmoid(ctx, a))
W(exp,               ggml_exp(ctx, a))
W(exp_inplace,       ggml_exp_inplace(ctx, a))
W(unary,             ggml_unary(ctx, a, GGML_UNARY_OP_SOFTPLUS))
W(unary_inplace,     ggml_unary_inplace(ctx, a, GGML_UNARY_OP_FLOOR))
W(glu,               ggml_glu(ctx, a, GGML_GLU_OP_SWIGLU_OAI, true))
W(glu_split,         ggml_glu_split(ctx, a, b, GGML_GLU_OP_GEGLU))
W(reglu,             ggml_reglu(ctx, a))
W(reglu_swapped,     ggml_reglu_swapped(ctx, a))
W(reglu_split,       ggml_reglu_split(ctx, a, b))
W(geglu,             ggml_geglu(ctx, a))
W(geglu_swapped,     ggml_geglu_swapped(ctx, a))
W(geglu_split,       ggml_geglu_split(ctx, a, b))
W(swiglu,            ggml_swiglu(ctx, a))
W(swiglu_swapped,    ggml_swiglu_swapped(ctx, a))
W(swiglu_split,      ggml_swiglu_split(ctx, a, b))
W(geglu_erf,         ggml_geglu_erf(ctx, a))
W(geglu_erf_swapped, ggml_geglu_erf_swapped(ctx, a))
W(geglu_erf_split,   ggml_geglu_erf_split(ctx, a, b))
W(geglu_quick,       ggml_geglu_quick(ctx, a))
W(geglu_quick_swapped, ggml_geglu_quick_swapped(ctx, a))
W(geglu_quick_split, ggml_geglu_quick_split(ctx, a, b))
W(sum,               ggml_sum(ctx, a))
W(sum_rows,          ggml_sum_rows(ctx, a))
W(mean,              ggml_mean(ctx, a))
W(argmax,            ggml_argmax(ctx, a))
W(repeat,            ggml_repeat(ctx, a, b))
W(repeat_4d,         ggml_repeat_4d(ctx, a, 16, 4, 6, 2))
W(cpy,               ggml_cpy(ctx, a, b))
W(cast,              ggml_cast(ctx, a, GGML_TYPE_F16))
W(cont,              ggml_cont(ctx, a))
W(cont_1d,           ggml_cont_1d(ctx, a, 192))
W(cont_2d,           ggml_cont_2d(ctx, a, 16, 12))
W(cont_3d,           ggml_cont_3d(ctx, a, 2, 12, 8))
W(cont_4d,           ggml_cont_4d(ctx, a, 2, 4, 6, 4))
W(reshape,           ggml_reshape(ctx, a, b))
W(reshape_1d,        ggml_reshape_1d(ctx, a, 192))
W(reshape_2d,        ggml_reshape_2d(ctx, a, 16, 12))
W(reshape_3d,        ggml_reshape_3d(ctx, a, 2, 12, 8))
W(reshape_4d,        ggml_reshape_4d(ctx, a, 2, 4, 6, 4))
W(view_1d,           ggml_view_1d(ctx, a, 10, 8))
W(view_2d,           ggml_view_2d(ctx, a, 4, 3, NB1, 4))
W(view_3d,           ggml_view_3d(ctx, a, 4, 3, 2, NB1, NB2, 4))
W(view_4d,           ggml_view_4d(ctx, a, 4, 3, 2, 2, NB1, NB2, NB3, 4))
W(permute,           ggml_permute(ctx, a, 2, 0, 3, 1))
W(transpose,         ggml_transpose(ctx, a))
W(get_rows,          ggml_get_rows(ctx, a, b))
W(set_rows,          ggml_set_rows(ctx, a, b, c))
W(set,               ggml_set(ctx, a, b, NB1, NB2, NB3, 8))
W(set_inplace,       ggml_set_inplace(ctx, a, b, NB1, NB2, NB3, 8))
W(set_1d,            ggml_set_1d(ctx, a, b, 8))
W(set_1d_inplace,    ggml_set_1d_inplace(ctx, a, b, 8))
W(set_2d,            ggml_set_2d(ctx, a, b, NB1, 8))
W(set_2d_inplace,    ggml_set_2d_inplace(ctx, a, b, NB1, 8))
W(acc,               ggml_acc(ctx, a, b, NB1, NB2, NB3, 8))
W(acc_inplace,       ggml_acc_inplace(ctx, a, b, NB1, NB2, NB3, 8))
W(concat,            ggml_concat(ctx, a, b, 1))
W(pad,               ggml_pad(ctx, a, 1, 0, 2, 3))
W(pad_ext,           ggml_pad_ext(ctx, a, 1, 0, 2, 3, 0, 1, 1, 1))
W(arange,            ggml_arange(ctx, 0.5f, 10.0f, 0.5f))

struct input { enum ggml_type type; int64_t ne[4]; };

#define A_STD   { GGML_TYPE_F32, { 8, 4, 3, 2 } }
#define F16_STD { GGML_TYPE_F16, { 8, 4, 3, 2 } }
#define SCAL    { GGML_TYPE_F32, { 1, 1, 1, 1 } }
#define RESHP   { GGML_TYPE_F32, { 4, 8, 3, 2 } }
#define IDX32   { GGML_TYPE_I32, { 5, 3, 2, 1 } }
#define BLOCK   { GGML_TYPE_F32, { 4, 2, 1, 1 } }
#define ROW3    { GGML_TYPE_F32, { 8, 1, 3, 1 } }
#define ROWS10  { GGML_TYPE_F32, { 8, 10, 3, 2 } }
#define ROWS5   { GGML_TYPE_F32, { 8, 5, 3, 2 } }
#define IDX64   { GGML_TYPE_I64, { 5, 3, 2, 1 } }
#define MAT     { GGML_TYPE_F32, { 8, 4, 1, 1 } }
#define CAT1    { GGML_TYPE_F32, { 8, 7, 3, 2 } }

struct spec {
    const char * name;
    wrap_fn      fn;
    int          n_in;
    struct input in[3];
};

#define S0(name)          { #name, w_##name, 0, { A_STD, A_STD, A_STD } }
#define S1(name)          { #name, w_##name, 1, { A_STD, A_STD, A_STD } }
#define S1X(name, a)      { #name, w_##name, 1, { a, A_STD, A_STD } }
#define S2(name, b)       { #name, w_##name, 2, { A_STD, b, A_STD } }
#define S2X(name, a, b)   { #name, w_##name, 2, { a, b, A_STD } }
#define S3X(name, a, b, c) { #name, w_##name, 3, { a, b, c } }

static const struct spec SPECS[] = {
    S1(dup), S1(dup_inplace),
    S2(add, A_STD), S2(add_inplace, A_STD), S2X(add_cast, F16_STD, ROW3),
    S2(add1, SCAL), S2(add1_inplace, SCAL),
    S2(sub, A_STD), S2(sub_inplace, A_STD), S2(mul, ROW3), S2(mul_inplace, A_STD), S2(div, SCAL), S2(div_inplace, A_STD),
    S1(sqr), S1(sqr_inplace), S1(sqrt), S1(sqrt_inplace), S1(log), S1(log_inplace),
    S1(sin), S1(sin_inplace), S1(cos), S1(cos_inplace),
    S1(scale), S1(scale_inplace), S1(scale_bias), S1(scale_bias_inplace), S1(clamp),
    S1(leaky_relu), S1(leaky_relu_inplace),
    S1(abs), S1(abs_inplace), S1(sgn), S1(sgn_inplace), S1(neg), S1(neg_inplace), S1(step), S1(step_inplace),
    S1(tanh), S1(tanh_inplace), S1(elu), S1(elu_inplace), S1(relu), S1(relu_inplace),
    S1(sigmoid), S1(sigmoid_inplace), S1(gelu), S1(gelu_inplace), S1(gelu_erf), S1(gelu_erf_inplace),
    S1(gelu_quick), S1(gelu_quick_inplace), S1(silu), S1(silu_inplace), S1(hardswish), S1(hardsigmoid),
    S1(exp), S1(exp_inplace), S1(unary), S1(unary_inplace),
    S1(glu), S2(glu_split, A_STD),
    S1(reglu), S1(reglu_swapped), S2(reglu_split, A_STD),
    S1(geglu), S1(geglu_swapped), S2(geglu_split, A_STD),
    S1(swiglu), S1(swiglu_swapped), S2(swiglu_split, A_STD),
    S1(geglu_erf), S1(geglu_erf_swapped), S2(geglu_erf_split, A_STD),
    S1(geglu_quick), S1(geglu_quick_swapped), S2(geglu_quick_split, A_STD),
    S1(sum), S1(sum_rows), S1(mean), S1X(argmax, MAT),
    S2X(repeat, ROW3, A_STD), S1X(repeat_4d, ROW3),
    S2(cpy, F16_STD), S1(cast), S1(cont), S1(cont_1d), S1(cont_2d), S1(cont_3d), S1(cont_4d),
    S2(reshape, RESHP), S1(reshape_1d), S1(reshape_2d), S1(reshape_3d), S1(reshape_4d),
    S1(view_1d), S1(view_2d), S1(view_3d), S1(view_4d), S1(permute), S1(transpose),
    S2(get_rows, IDX32), S3X(set_rows, ROWS10, ROWS5, IDX64),
    S2(set, BLOCK), S2(set_inplace, BLOCK), S2(set_1d, BLOCK), S2(set_1d_inplace, BLOCK),
    S2(set_2d, BLOCK), S2(set_2d_inplace, BLOCK), S2(acc, BLOCK), S2(acc_inplace, BLOCK),
    S2(concat, CAT1), S1(pad), S1(pad_ext), S0(arange),
};

static struct ggml_context * new_ctx(size_t size) {
    struct ggml_init_params p = { size, NULL, false };
    return ggml_init(p);
}

// distinct non-zero values in every float; other types get non-zero bytes
static void fill(struct ggml_tensor * t) {
    if (t->type == GGML_TYPE_F32) {
        float * d = (float *) t->data;
        for (int64_t i = 0; i < ggml_nelements(t); i++) {
            d[i] = 0.5f + 0.125f*(float)(i % 17);
        }
    } else if (t->type == GGML_TYPE_I32 || t->type == GGML_TYPE_I64) {
        for (int64_t i = 0; i < ggml_nelements(t); i++) {
            const int64_t v = (i*3) % 4;
            if (t->type == GGML_TYPE_I32) {
                ((int32_t *) t->data)[i] = (int32_t) v;
            } else {
                ((int64_t *) t->data)[i] = v;
            }
        }
    } else {
        memset(t->data, 0x3c, ggml_nbytes(t));
    }
}

// runs expr with the log captured: it must give NULL and log at least one error
#define EXPECT_FAIL(expr) do {                                                            \
        test_log_capture_begin();                                                         \
        ggml_clear_last_error();                                                          \
        struct ggml_tensor * r_ = (expr);                                                 \
        const int errs_ = test_log_error_count();                                         \
        test_log_capture_end();                                                           \
        TEST_CHECK_MSG(r_ == NULL && errs_ > 0, "%s: expected NULL and an error (got %p, %d errors)", \
                #expr, (void *) r_, errs_);                                               \
        TEST_CHECK_LAST_ERROR(GGML_ERROR_INVALID_ARGUMENT);                               \
    } while (0)

static void test_table(void) {
    struct ggml_context * ctx_in  = new_ctx(1 << 20);
    struct ggml_context * ctx_out = new_ctx(4 << 20);
    struct ggml_context * ctx_full = new_ctx(0); // holds nothing
    TEST_CHECK(ctx_in && ctx_out && ctx_full);

    for (size_t s = 0; s < sizeof(SPECS)/sizeof(SPECS[0]); s++) {
        const struct spec * sp = &SPECS[s];
        struct ggml_tensor * in[3] = { NULL, NULL, NULL };
        ggml_reset(ctx_in);
        ggml_reset(ctx_out);
        for (int i = 0; i < sp->n_in; i++) {
            in[i] = ggml_new_tensor(ctx_in, sp->in[i].type, 4, sp->in[i].ne);
            fill(in[i]);
        }

        // good input works and logs nothing
        test_log_capture_begin();
        struct ggml_tensor * ok = sp->fn(ctx_out, in[0], in[1], in[2]);
        int errs = test_log_error_count();
        test_log_capture_end();
        TEST_CHECK_MSG(ok != NULL && errs == 0, "%s: good input failed (%d errors)", sp->name, errs);

        // NULL context
        test_log_capture_begin();
        ggml_clear_last_error();
        struct ggml_tensor * r = sp->fn(NULL, in[0], in[1], in[2]);
        errs = test_log_error_count();
        const bool named = strstr(test_log_text(), "ctx") != NULL;
        test_log_capture_end();
        TEST_CHECK_MSG(r == NULL && errs > 0 && named, "%s: NULL ctx not rejected", sp->name);
        TEST_CHECK_LAST_ERROR(GGML_ERROR_INVALID_ARGUMENT);

        // each tensor argument NULL in turn
        for (int i = 0; i < sp->n_in; i++) {
            struct ggml_tensor * args[3] = { in[0], in[1], in[2] };
            args[i] = NULL;
            test_log_capture_begin();
            ggml_clear_last_error();
            r = sp->fn(ctx_out, args[0], args[1], args[2]);
            errs = test_log_error_count();
            const char * text = test_log_text();
            const bool says_null = strstr(text, "NULL") != NULL && strstr(text, "ggml_") != NULL;
            test_log_capture_end();
            TEST_CHECK_MSG(r == NULL && errs > 0 && says_null, "%s: NULL argument %d not rejected", sp->name, i);
            TEST_CHECK_LAST_ERROR(GGML_ERROR_INVALID_ARGUMENT);
        }

        // a context with no room
        test_log_capture_begin();
        ggml_clear_last_error();
        r = sp->fn(ctx_full, in[0], in[1], in[2]);
        errs = test_log_error_count();
        test_log_capture_end();
        TEST_CHECK_MSG(r == NULL && errs > 0, "%s: full context not reported", sp->name);
        // the context's memory pool is exhausted
        TEST_CHECK_LAST_ERROR(GGML_ERROR_OUT_OF_MEMORY);
    }
    ggml_free(ctx_in);
    ggml_free(ctx_out);
    ggml_free(ctx_full);
}

// the NULL message names the function and the argument
static void test_null_message(void) {
    struct ggml_context * ctx = new_ctx(1 << 16);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    test_log_capture_begin();
    TEST_CHECK(ggml_add(ctx, a, NULL) == NULL);
    TEST_CHECK(strstr(test_log_text(), "ggml_add: argument 'b' is NULL") != NULL);
    TEST_CHECK(ggml_view_2d(ctx, NULL, 1, 1, 4, 0) == NULL);
    TEST_CHECK(strstr(test_log_text(), "ggml_view_2d: argument 'a' is NULL") != NULL);
    TEST_CHECK(ggml_set_rows(ctx, a, a, NULL) == NULL);
    TEST_CHECK(strstr(test_log_text(), "ggml_set_rows: argument 'c' is NULL") != NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();
    ggml_free(ctx);
}

static void test_elementwise_mismatch(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 4, 3, 2);
    struct ggml_tensor * a16 = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 8, 4, 3, 2);
    struct ggml_tensor * b5  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
    struct ggml_tensor * b2  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 3);
    struct ggml_tensor * big = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 16, 4, 3, 2);
    struct ggml_tensor * s2  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2);
    struct ggml_tensor * at  = ggml_transpose(ctx, a);
    struct ggml_tensor * odd = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 3);
    fill(a);
    fill(big);

    EXPECT_FAIL(ggml_add(ctx, a, b5));
    EXPECT_FAIL(ggml_add(ctx, a, b2));
    EXPECT_FAIL(ggml_add(ctx, a, big));
    EXPECT_FAIL(ggml_add_inplace(ctx, a, b5));
    EXPECT_FAIL(ggml_sub(ctx, a, b2));
    EXPECT_FAIL(ggml_sub_inplace(ctx, a, big));
    EXPECT_FAIL(ggml_mul(ctx, a, b5));
    EXPECT_FAIL(ggml_mul_inplace(ctx, a, b2));
    EXPECT_FAIL(ggml_div(ctx, a, big));
    EXPECT_FAIL(ggml_div_inplace(ctx, a, b5));

    EXPECT_FAIL(ggml_add_cast(ctx, a, s2, GGML_TYPE_F32));                // a F32 is not supported
    EXPECT_FAIL(ggml_add_cast(ctx, a16, b5, GGML_TYPE_F32));              // row length differs
    EXPECT_FAIL(ggml_add_cast(ctx, a16, s2, GGML_TYPE_F32));
    EXPECT_FAIL(ggml_add_cast(ctx, a16, b2, (enum ggml_type) 4));         // removed type id
    EXPECT_FAIL(ggml_add_cast(ctx, a16, b2, GGML_TYPE_COUNT));

    EXPECT_FAIL(ggml_add1(ctx, a, s2));
    EXPECT_FAIL(ggml_add1_inplace(ctx, a, b2));
    EXPECT_FAIL(ggml_add1(ctx, at, ggml_new_f32(ctx, 1.0f)));             // a not densely packed

    EXPECT_FAIL(ggml_scale(ctx, at, 2.0f));
    EXPECT_FAIL(ggml_scale_inplace(ctx, at, 2.0f));
    EXPECT_FAIL(ggml_scale_bias(ctx, at, 2.0f, 1.0f));
    EXPECT_FAIL(ggml_scale_bias_inplace(ctx, at, 2.0f, 1.0f));
    EXPECT_FAIL(ggml_clamp(ctx, a, 2.0f, 1.0f));
    EXPECT_FAIL(ggml_clamp(ctx, a, NAN, 1.0f));

    // unary ops need contiguous rows
    {
        struct ggml_tensor * (*unary_fns[])(struct ggml_context *, struct ggml_tensor *) = {
            ggml_abs, ggml_abs_inplace, ggml_sgn, ggml_sgn_inplace, ggml_neg, ggml_neg_inplace,
            ggml_step, ggml_step_inplace, ggml_tanh, ggml_tanh_inplace, ggml_elu, ggml_elu_inplace,
            ggml_relu, ggml_relu_inplace, ggml_sigmoid, ggml_sigmoid_inplace, ggml_gelu, ggml_gelu_inplace,
            ggml_gelu_erf, ggml_gelu_erf_inplace, ggml_gelu_quick, ggml_gelu_quick_inplace,
            ggml_silu, ggml_silu_inplace, ggml_hardswish, ggml_hardsigmoid, ggml_exp, ggml_exp_inplace,
            ggml_reglu, ggml_reglu_swapped, ggml_geglu, ggml_geglu_swapped, ggml_swiglu, ggml_swiglu_swapped,
            ggml_geglu_erf, ggml_geglu_erf_swapped, ggml_geglu_quick, ggml_geglu_quick_swapped,
        };
        for (size_t i = 0; i < sizeof(unary_fns)/sizeof(unary_fns[0]); i++) {
            test_log_capture_begin();
            struct ggml_tensor * r = unary_fns[i](ctx, at);
            const int errs = test_log_error_count();
            test_log_capture_end();
            TEST_CHECK_MSG(r == NULL && errs > 0, "unary function %zu accepted a transposed input", i);
        }
    }
    EXPECT_FAIL(ggml_unary(ctx, a, GGML_UNARY_OP_COUNT));
    EXPECT_FAIL(ggml_unary(ctx, a, (enum ggml_unary_op) -1));
    EXPECT_FAIL(ggml_unary_inplace(ctx, a, (enum ggml_unary_op) 77));
    EXPECT_FAIL(ggml_unary(ctx, at, GGML_UNARY_OP_RELU));

    // GLU: split halves must match in shape and type, op ids must exist
    struct ggml_tensor * (*split_fns[])(struct ggml_context *, struct ggml_tensor *, struct ggml_tensor *) = {
        ggml_reglu_split, ggml_geglu_split, ggml_swiglu_split, ggml_geglu_erf_split, ggml_geglu_quick_split,
    };
    for (size_t i = 0; i < sizeof(split_fns)/sizeof(split_fns[0]); i++) {
        EXPECT_FAIL(split_fns[i](ctx, a, big));
        EXPECT_FAIL(split_fns[i](ctx, a, a16));
        EXPECT_FAIL(split_fns[i](ctx, at, at));
        EXPECT_FAIL(split_fns[i](ctx, a, at));
    }
    EXPECT_FAIL(ggml_glu(ctx, a, GGML_GLU_OP_COUNT, false));
    EXPECT_FAIL(ggml_glu(ctx, a, (enum ggml_glu_op) -3, true));
    EXPECT_FAIL(ggml_glu(ctx, at, GGML_GLU_OP_REGLU, false));
    EXPECT_FAIL(ggml_glu_split(ctx, a, a, GGML_GLU_OP_COUNT));
    EXPECT_FAIL(ggml_glu_split(ctx, a, NULL, GGML_GLU_OP_SWIGLU));
    EXPECT_FAIL(ggml_glu_split(ctx, a, b2, GGML_GLU_OP_SWIGLU));

    // reductions and repeat
    EXPECT_FAIL(ggml_argmax(ctx, a));
    EXPECT_FAIL(ggml_argmax(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2)));
    EXPECT_FAIL(ggml_repeat(ctx, big, a));
    EXPECT_FAIL(ggml_repeat(ctx, odd, a));
    EXPECT_FAIL(ggml_repeat_4d(ctx, odd, 14, 4, 1, 1));
    EXPECT_FAIL(ggml_repeat_4d(ctx, odd, 7, 3, -1, 1));
    EXPECT_FAIL(ggml_repeat_4d(ctx, a, 8, 4, 3, 3));
    ggml_free(ctx);
}

static void test_shape_mismatch(void) {
    struct ggml_context * ctx = new_ctx(1 << 20);
    struct ggml_tensor * a   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 4, 3, 2);
    struct ggml_tensor * at  = ggml_transpose(ctx, a);
    struct ggml_tensor * b   = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 191);
    struct ggml_tensor * q   = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 3);
    fill(a);
    const size_t nbytes = ggml_nbytes(a); // 768

    EXPECT_FAIL(ggml_cpy(ctx, a, b));
    EXPECT_FAIL(ggml_cpy(ctx, b, a));
    EXPECT_FAIL(ggml_cast(ctx, a, GGML_TYPE_COUNT));
    EXPECT_FAIL(ggml_cast(ctx, a, (enum ggml_type) 32));
    EXPECT_FAIL(ggml_cast(ctx, a, (enum ggml_type) -1));

    EXPECT_FAIL(ggml_cont_1d(ctx, a, 191));
    EXPECT_FAIL(ggml_cont_2d(ctx, a, 16, 13));
    EXPECT_FAIL(ggml_cont_3d(ctx, a, -2, -12, 8));
    EXPECT_FAIL(ggml_cont_4d(ctx, a, INT64_MAX/2, 4, 1, 1));           // product overflows
    EXPECT_FAIL(ggml_cont_4d(ctx, a, (int64_t) 1 << 40, (int64_t) 1 << 40, 0, 1));

    EXPECT_FAIL(ggml_reshape_1d(ctx, at, 192));                          // not contiguous
    EXPECT_FAIL(ggml_reshape_2d(ctx, at, 16, 12));
    EXPECT_FAIL(ggml_reshape_1d(ctx, a, 193));
    EXPECT_FAIL(ggml_reshape_2d(ctx, a, 16, 13));
    EXPECT_FAIL(ggml_reshape_3d(ctx, a, 2, 12, 9));
    EXPECT_FAIL(ggml_reshape_4d(ctx, a, 2, 4, 6, 5));
    EXPECT_FAIL(ggml_reshape_4d(ctx, a, -2, -4, 6, 4));
    EXPECT_FAIL(ggml_reshape(ctx, a, b));
    EXPECT_FAIL(ggml_reshape(ctx, at, a));

    // views: the furthest byte addressed must lie inside a
    EXPECT_FAIL(ggml_view_1d(ctx, a, 192, 4));                            // one element too far
    EXPECT_FAIL(ggml_view_1d(ctx, a, 1, nbytes));
    EXPECT_FAIL(ggml_view_1d(ctx, a, 1, nbytes - 3));
    EXPECT_FAIL(ggml_view_1d(ctx, a, 0, nbytes + 1));
    EXPECT_FAIL(ggml_view_1d(ctx, a, -1, 0));
    EXPECT_FAIL(ggml_view_1d(ctx, a, 4, SIZE_MAX - 8));
    EXPECT_FAIL(ggml_view_2d(ctx, a, 2, 24, NB1, 28));                    // last row starts in, ends past
    EXPECT_FAIL(ggml_view_2d(ctx, a, 2, 13, 2*NB1, 0));                   // stride walks off the end
    EXPECT_FAIL(ggml_view_2d(ctx, a, 4, 3, SIZE_MAX/2, 0));               // stride overflow
    EXPECT_FAIL(ggml_view_2d(ctx, a, 4, -3, NB1, 0));
    EXPECT_FAIL(ggml_view_3d(ctx, a, 8, 4, 7, NB1, NB2, 0));
    EXPECT_FAIL(ggml_view_3d(ctx, a, 8, 4, 2, NB1, 2*NB3, 0));
    EXPECT_FAIL(ggml_view_3d(ctx, a, 8, 4, 6, NB1, NB2, 4));
    EXPECT_FAIL(ggml_view_4d(ctx, a, 8, 4, 3, 3, NB1, NB2, NB3, 0));
    EXPECT_FAIL(ggml_view_4d(ctx, a, 8, 4, 3, 2, NB1, NB2, NB3, 4));
    EXPECT_FAIL(ggml_view_4d(ctx, a, 1, 1, 1, 2, NB1, NB2, nbytes, 0));
    EXPECT_FAIL(ggml_view_4d(ctx, a, 2, 2, 2, 2, SIZE_MAX/4, SIZE_MAX/4, SIZE_MAX/4, 0));
    EXPECT_FAIL(ggml_view_2d(ctx, q, 16, 3, q->nb[1], 0));                // not whole blocks
    EXPECT_FAIL(ggml_view_2d(ctx, q, 32, 3, q->nb[1], q->nb[1]));        // past the last row
    // a view of a strided view must stay inside that view, not just inside the root
    struct ggml_tensor * part = ggml_view_1d(ctx, a, 16, 0);
    EXPECT_FAIL(ggml_view_1d(ctx, part, 17, 0));
    EXPECT_FAIL(ggml_view_1d(ctx, part, 1, 64));

    EXPECT_FAIL(ggml_permute(ctx, a, 0, 0, 1, 2));
    EXPECT_FAIL(ggml_permute(ctx, a, 0, 1, 2, 4));
    EXPECT_FAIL(ggml_permute(ctx, a, -1, 1, 2, 3));
    EXPECT_FAIL(ggml_permute(ctx, a, 3, 3, 3, 3));
    EXPECT_FAIL(ggml_permute(ctx, a, 1, 0, 3, 1));

    // rows
    struct ggml_tensor * idx   = ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 5, 3, 2);
    struct ggml_tensor * idxf  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 5, 3, 2);
    struct ggml_tensor * idx2  = ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 5, 2, 2);
    struct ggml_tensor * idx4  = ggml_new_tensor_4d(ctx, GGML_TYPE_I32, 5, 3, 2, 2);
    struct ggml_tensor * idx64 = ggml_new_tensor_3d(ctx, GGML_TYPE_I64, 5, 3, 2);
    TEST_CHECK(ggml_get_rows(ctx, a, idx) != NULL);
    EXPECT_FAIL(ggml_get_rows(ctx, a, idxf));
    EXPECT_FAIL(ggml_get_rows(ctx, a, idx2));
    EXPECT_FAIL(ggml_get_rows(ctx, a, idx4));
    EXPECT_FAIL(ggml_get_rows(ctx, a, idx64));

    struct ggml_tensor * dst  = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 8, 10, 3, 2);
    struct ggml_tensor * rows = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 5, 3, 2);
    struct ggml_tensor * r16  = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 8, 5, 3, 2);
    struct ggml_tensor * r7   = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 7, 5, 3, 2);
    struct ggml_tensor * c2   = ggml_new_tensor_3d(ctx, GGML_TYPE_I64, 5, 2, 2);
    struct ggml_tensor * c6   = ggml_new_tensor_3d(ctx, GGML_TYPE_I64, 6, 3, 2);
    struct ggml_tensor * c4d  = ggml_new_tensor_4d(ctx, GGML_TYPE_I64, 5, 3, 2, 2);
    TEST_CHECK(ggml_set_rows(ctx, dst, rows, idx64) != NULL);
    TEST_CHECK(ggml_set_rows(ctx, dst, r16, idx64) != NULL); // F16 rows, as in the family
    EXPECT_FAIL(ggml_set_rows(ctx, dst, ggml_new_tensor_4d(ctx, GGML_TYPE_I32, 8, 5, 3, 2), idx64));
    EXPECT_FAIL(ggml_set_rows(ctx, dst, r7, idx64));
    EXPECT_FAIL(ggml_set_rows(ctx, dst, rows, idxf));
    EXPECT_FAIL(ggml_set_rows(ctx, dst, rows, c2));
    EXPECT_FAIL(ggml_set_rows(ctx, dst, rows, c6));
    EXPECT_FAIL(ggml_set_rows(ctx, dst, rows, c4d));
    struct ggml_tensor * sq = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 8, 8, 3, 2);
    EXPECT_FAIL(ggml_set_rows(ctx, ggml_transpose(ctx, sq), rows, idx64)); // rows of a not contiguous

    // set / acc
    struct ggml_tensor * blk  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 2);
    struct ggml_tensor * blk16 = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 4, 2);
    struct ggml_tensor * huge = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 193);
    struct ggml_tensor * a16  = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 8, 4, 3, 2);
    EXPECT_FAIL(ggml_set(ctx, a, huge, NB1, NB2, NB3, 0));
    EXPECT_FAIL(ggml_set(ctx, a, blk, NB1, NB2, NB3, nbytes - 16));      // block runs past the end
    EXPECT_FAIL(ggml_set_inplace(ctx, a, blk, nbytes, NB2, NB3, 0));
    EXPECT_FAIL(ggml_set(ctx, a, blk, (size_t) INT32_MAX + 1, NB2, NB3, 0));
    EXPECT_FAIL(ggml_set(ctx, a, blk, NB1, NB2, NB3, (size_t) 1 << 30));
    EXPECT_FAIL(ggml_set_1d(ctx, a, huge, 0));
    EXPECT_FAIL(ggml_set_1d_inplace(ctx, a, blk, nbytes - 4));
    EXPECT_FAIL(ggml_set_2d(ctx, a, blk, NB1, nbytes - NB1));
    EXPECT_FAIL(ggml_set_2d_inplace(ctx, a, blk, nbytes, 0));
    EXPECT_FAIL(ggml_acc(ctx, a16, blk16, NB1/2, NB2/2, NB3/2, 0));      // F32 only
    EXPECT_FAIL(ggml_acc(ctx, a, blk16, NB1, NB2, NB3, 0));
    EXPECT_FAIL(ggml_acc(ctx, at, blk, NB1, NB2, NB3, 0));               // a not contiguous
    EXPECT_FAIL(ggml_acc(ctx, a, huge, NB1, NB2, NB3, 0));
    EXPECT_FAIL(ggml_acc_inplace(ctx, a, blk, NB1, NB2, NB3, nbytes));

    // concat, pad, arange
    struct ggml_tensor * c1 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 7, 3, 2);
    EXPECT_FAIL(ggml_concat(ctx, a, c1, 0));
    EXPECT_FAIL(ggml_concat(ctx, a, c1, 2));
    EXPECT_FAIL(ggml_concat(ctx, a, c1, 4));
    EXPECT_FAIL(ggml_concat(ctx, a, c1, -1));
    EXPECT_FAIL(ggml_concat(ctx, a, a16, 1));
    EXPECT_FAIL(ggml_pad(ctx, a, -1, 0, 0, 0));
    EXPECT_FAIL(ggml_pad(ctx, a, 0, 0, 0, -8));
    EXPECT_FAIL(ggml_pad_ext(ctx, a, 0, 0, -1, 0, 0, 0, 0, 0));
    EXPECT_FAIL(ggml_pad_ext(ctx, a, 0, 0, 0, 0, 0, 0, 0, -2));
    EXPECT_FAIL(ggml_arange(ctx, 5.0f, 5.0f, 1.0f));
    EXPECT_FAIL(ggml_arange(ctx, 5.0f, 1.0f, 1.0f));
    EXPECT_FAIL(ggml_arange(ctx, 5.0f, 1.0f, -1.0f));
    EXPECT_FAIL(ggml_arange(ctx, 0.0f, 1.0f, 0.0f));
    EXPECT_FAIL(ggml_arange(ctx, 0.0f, 1.0f, -0.5f));
    EXPECT_FAIL(ggml_arange(ctx, NAN, 1.0f, 0.5f));
    EXPECT_FAIL(ggml_arange(ctx, 0.0f, INFINITY, 0.5f));
    EXPECT_FAIL(ggml_arange(ctx, 0.0f, 1.0e30f, 1.0e-30f));             // far too many elements
    ggml_free(ctx);
}

// a context that fills up part-way through building a graph: constructors fail one by one,
// nothing crashes, and what was built before stays valid
static void test_filling_context(void) {
    struct ggml_context * ctx = new_ctx(16*1024);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 8);
    fill(a);
    const float first = ((float *) a->data)[5];
    int built = 0, failed = 0;
    test_log_capture_begin();
    struct ggml_tensor * cur = a;
    for (int i = 0; i < 200; i++) {
        struct ggml_tensor * r = NULL;
        switch (i % 5) {
            case 0: r = ggml_add(ctx, cur, a); break;
            case 1: r = ggml_view_2d(ctx, a, 8, 4, a->nb[1], 8); break;
            case 2: r = ggml_relu_inplace(ctx, a); break;
            case 3: r = ggml_reshape_1d(ctx, a, 128); break;
            case 4: r = ggml_permute(ctx, a, 1, 0, 2, 3); break;
        }
        if (r != NULL) {
            built++;
            if (i % 5 == 0) {
                cur = r;
            }
        } else {
            failed++;
        }
    }
    const int errs = test_log_error_count();
    test_log_capture_end();
    TEST_CHECK(built > 0 && failed > 0 && errs >= failed);
    TEST_CHECK(((float *) a->data)[5] == first);
    TEST_CHECK(ggml_used_mem(ctx) <= ggml_get_mem_size(ctx));
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    test_table();
    test_null_message();
    test_elementwise_mismatch();
    test_shape_mismatch();
    test_filling_context();
    return test_finish("test-ops-arg-checks");
}
