// Sweeps over every op constructor of ggml.h with inputs it was not designed for:
//   1. types: each tensor argument in turn takes every tensor type (same shape where the type's
//      block size allows);
//   2. empty dimensions: each dimension of each argument in turn is 0;
//   3. absurd dimensions: each dimension of each argument in turn is as large as a tensor of
//      about 2^61 bytes allows (in a no_alloc context), so that every size computation of the
//      constructor and of the graph allocator meets values near the overflow limits.
// Every call must either give NULL with a logged error or a well-formed node (no negative
// extent, a byte size that does not overflow, no error logged). Well-formed nodes of sweeps 1 and
// 2 are then computed on the CPU: the computation must succeed or fail with a logged error
// (GGML_STATUS_FAILED for an op/type combination the CPU does not take), and never crash or read
// out of bounds (ASan). Index inputs hold values in and out of range. Nodes of sweep 3 go through
// ggml_gallocr_reserve, which must refuse them with a logged error.
//
// Each constructor's sweep runs in a child process, so that a crash names the constructor and
// the other sweeps still run. NULL arguments, full contexts and hand-picked mismatches are tested
// by test-ops-arg-checks.c and test-ops-nn.c.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-common.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char * __asan_default_options(void);
const char * __asan_default_options(void) {
    return "allocator_may_return_null=1";
}

typedef struct ggml_tensor tensor;
typedef tensor * (*op_fn)(struct ggml_context * ctx, tensor ** t);

#define W(name, call) \
    static tensor * w_##name(struct ggml_context * ctx, tensor ** t) { (void) t; return call; }

#define A t[0]
#define B t[1]
#define C t[2]
#define D t[3]

W(dup, ggml_dup(ctx, A))                                W(dup_inplace, ggml_dup_inplace(ctx, A))
W(add, ggml_add(ctx, A, B))                             W(add_inplace, ggml_add_inplace(ctx, A, B))
W(add_cast, ggml_add_cast(ctx, A, B, GGML_TYPE_F32))    W(add1, ggml_add1(ctx, A, B))
W(add1_inplace, ggml_add1_inplace(ctx, A, B))
W(acc, ggml_acc(ctx, A, B, A->nb[1], A->nb[2], A->nb[3], 0))
W(acc_inplace, ggml_acc_inplace(ctx, A, B, A->nb[1], A->nb[2], A->nb[3], 0))
W(sub, ggml_sub(ctx, A, B))                             W(sub_inplace, ggml_sub_inplace(ctx, A, B))
W(mul, ggml_mul(ctx, A, B))                             W(mul_inplace, ggml_mul_inplace(ctx, A, B))
W(div, ggml_div(ctx, A, B))                             W(div_inplace, ggml_div_inplace(ctx, A, B))
W(sqr, ggml_sqr(ctx, A))                                W(sqr_inplace, ggml_sqr_inplace(ctx, A))
W(sqrt, ggml_sqrt(ctx, A))                              W(sqrt_inplace, ggml_sqrt_inplace(ctx, A))
W(log, ggml_log(ctx, A))                                W(log_inplace, ggml_log_inplace(ctx, A))
W(sin, ggml_sin(ctx, A))                                W(sin_inplace, ggml_sin_inplace(ctx, A))
W(cos, ggml_cos(ctx, A))                                W(cos_inplace, ggml_cos_inplace(ctx, A))
W(sum, ggml_sum(ctx, A))                                W(sum_rows, ggml_sum_rows(ctx, A))
W(mean, ggml_mean(ctx, A))                              W(argmax, ggml_argmax(ctx, A))
W(repeat, ggml_repeat(ctx, A, B))                       W(repeat_4d, ggml_repeat_4d(ctx, A, A->ne[0], 4, A->ne[2], 2))
W(concat, ggml_concat(ctx, A, B, 1))
W(abs, ggml_abs(ctx, A))                                W(abs_inplace, ggml_abs_inplace(ctx, A))
W(sgn, ggml_sgn(ctx, A))                                W(sgn_inplace, ggml_sgn_inplace(ctx, A))
W(neg, ggml_neg(ctx, A))                                W(neg_inplace, ggml_neg_inplace(ctx, A))
W(step, ggml_step(ctx, A))                              W(step_inplace, ggml_step_inplace(ctx, A))
W(tanh, ggml_tanh(ctx, A))                              W(tanh_inplace, ggml_tanh_inplace(ctx, A))
W(elu, ggml_elu(ctx, A))                                W(elu_inplace, ggml_elu_inplace(ctx, A))
W(relu, ggml_relu(ctx, A))                              W(relu_inplace, ggml_relu_inplace(ctx, A))
W(leaky_relu, ggml_leaky_relu(ctx, A, 0.1f, false))     W(leaky_relu_inplace, ggml_leaky_relu(ctx, A, 0.1f, true))
W(sigmoid, ggml_sigmoid(ctx, A))                        W(sigmoid_inplace, ggml_sigmoid_inplace(ctx, A))
W(gelu, ggml_gelu(ctx, A))                              W(gelu_inplace, ggml_gelu_inplace(ctx, A))
W(gelu_erf, ggml_gelu_erf(ctx, A))                      W(gelu_erf_inplace, ggml_gelu_erf_inplace(ctx, A))
W(gelu_quick, ggml_gelu_quick(ctx, A))                  W(gelu_quick_inplace, ggml_gelu_quick_inplace(ctx, A))
W(silu, ggml_silu(ctx, A))                              W(silu_inplace, ggml_silu_inplace(ctx, A))
W(hardswish, ggml_hardswish(ctx, A))                    W(hardsigmoid, ggml_hardsigmoid(ctx, A))
W(exp, ggml_exp(ctx, A))                                W(exp_inplace, ggml_exp_inplace(ctx, A))
W(unary, ggml_unary(ctx, A, GGML_UNARY_OP_SOFTPLUS))    W(unary_inplace, ggml_unary_inplace(ctx, A, GGML_UNARY_OP_EXPM1))
W(glu, ggml_glu(ctx, A, GGML_GLU_OP_SWIGLU_OAI, false)) W(glu_split, ggml_glu_split(ctx, A, B, GGML_GLU_OP_GEGLU))
W(reglu, ggml_reglu(ctx, A))                            W(reglu_swapped, ggml_reglu_swapped(ctx, A))
W(geglu, ggml_geglu(ctx, A))                            W(geglu_swapped, ggml_geglu_swapped(ctx, A))
W(swiglu, ggml_swiglu(ctx, A))                          W(swiglu_swapped, ggml_swiglu_swapped(ctx, A))
W(geglu_erf, ggml_geglu_erf(ctx, A))                    W(geglu_erf_swapped, ggml_geglu_erf_swapped(ctx, A))
W(geglu_quick, ggml_geglu_quick(ctx, A))                W(geglu_quick_swapped, ggml_geglu_quick_swapped(ctx, A))
W(reglu_split, ggml_reglu_split(ctx, A, B))             W(geglu_split, ggml_geglu_split(ctx, A, B))
W(swiglu_split, ggml_swiglu_split(ctx, A, B))           W(geglu_erf_split, ggml_geglu_erf_split(ctx, A, B))
W(geglu_quick_split, ggml_geglu_quick_split(ctx, A, B))
W(norm, ggml_norm(ctx, A, 1e-5f))                       W(norm_inplace, ggml_norm_inplace(ctx, A, 1e-5f))
W(rms_norm, ggml_rms_norm(ctx, A, 1e-5f))               W(rms_norm_inplace, ggml_rms_norm_inplace(ctx, A, 1e-5f))
W(group_norm, ggml_group_norm(ctx, A, 3, 1e-5f))        W(group_norm_inplace, ggml_group_norm_inplace(ctx, A, 3, 1e-5f))
W(l2_norm, ggml_l2_norm(ctx, A, 1e-5f))                 W(l2_norm_inplace, ggml_l2_norm_inplace(ctx, A, 1e-5f))
W(mul_mat, ggml_mul_mat(ctx, A, B))                     W(out_prod, ggml_out_prod(ctx, A, B))
W(scale, ggml_scale(ctx, A, 0.5f))                      W(scale_inplace, ggml_scale_inplace(ctx, A, 0.5f))
W(scale_bias, ggml_scale_bias(ctx, A, 0.5f, 1.0f))      W(scale_bias_inplace, ggml_scale_bias_inplace(ctx, A, 0.5f, 1.0f))
W(set, ggml_set(ctx, A, B, A->nb[1], A->nb[2], A->nb[3], 0))
W(set_inplace, ggml_set_inplace(ctx, A, B, A->nb[1], A->nb[2], A->nb[3], 0))
W(set_1d, ggml_set_1d(ctx, A, B, 0))                    W(set_1d_inplace, ggml_set_1d_inplace(ctx, A, B, 0))
W(set_2d, ggml_set_2d(ctx, A, B, A->nb[1], 0))          W(set_2d_inplace, ggml_set_2d_inplace(ctx, A, B, A->nb[1], 0))
W(cpy, ggml_cpy(ctx, A, B))                             W(cast, ggml_cast(ctx, A, GGML_TYPE_F16))
W(cont, ggml_cont(ctx, A))                              W(cont_1d, ggml_cont_1d(ctx, A, ggml_nelements(A)))
W(cont_2d, ggml_cont_2d(ctx, A, A->ne[0], A->ne[1] * A->ne[2] * A->ne[3]))
W(cont_3d, ggml_cont_3d(ctx, A, A->ne[0], A->ne[1], A->ne[2] * A->ne[3]))
W(cont_4d, ggml_cont_4d(ctx, A, A->ne[0], A->ne[1], A->ne[2], A->ne[3]))
W(reshape, ggml_reshape(ctx, A, B))                     W(reshape_1d, ggml_reshape_1d(ctx, A, ggml_nelements(A)))
W(reshape_2d, ggml_reshape_2d(ctx, A, A->ne[0], A->ne[1] * A->ne[2] * A->ne[3]))
W(reshape_3d, ggml_reshape_3d(ctx, A, A->ne[0], A->ne[1], A->ne[2] * A->ne[3]))
W(reshape_4d, ggml_reshape_4d(ctx, A, A->ne[0], A->ne[1], A->ne[2], A->ne[3]))
W(view_1d, ggml_view_1d(ctx, A, A->ne[0], 0))
W(view_2d, ggml_view_2d(ctx, A, A->ne[0], 2, A->nb[1], 0))
W(view_3d, ggml_view_3d(ctx, A, A->ne[0], 2, 2, A->nb[1], A->nb[2], 0))
W(view_4d, ggml_view_4d(ctx, A, A->ne[0], 2, 2, 1, A->nb[1], A->nb[2], A->nb[3], 0))
W(permute, ggml_permute(ctx, A, 2, 0, 3, 1))            W(transpose, ggml_transpose(ctx, A))
W(get_rows, ggml_get_rows(ctx, A, B))                   W(set_rows, ggml_set_rows(ctx, A, B, C))
W(diag_mask_inf, ggml_diag_mask_inf(ctx, A, 2))         W(diag_mask_inf_inplace, ggml_diag_mask_inf_inplace(ctx, A, 2))
W(diag_mask_zero, ggml_diag_mask_zero(ctx, A, 2))       W(diag_mask_zero_inplace, ggml_diag_mask_zero_inplace(ctx, A, 2))
W(soft_max, ggml_soft_max(ctx, A))                      W(soft_max_inplace, ggml_soft_max_inplace(ctx, A))
W(soft_max_ext, ggml_soft_max_ext(ctx, A, B, 0.5f, 0.0f))
W(soft_max_ext_inplace, ggml_soft_max_ext_inplace(ctx, A, B, 0.5f, 8.0f))
W(rope, ggml_rope(ctx, A, B, (int) A->ne[0], GGML_ROPE_TYPE_NORMAL))
W(rope_inplace, ggml_rope_inplace(ctx, A, B, (int) A->ne[0], GGML_ROPE_TYPE_NEOX))
W(rope_ext, ggml_rope_ext(ctx, A, B, C, (int) A->ne[0], GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.5f, 1.0f, 32.0f, 1.0f))
W(rope_ext_inplace, ggml_rope_ext_inplace(ctx, A, B, NULL, (int) A->ne[0], 0, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f))
static tensor * w_rope_multi(struct ggml_context * ctx, tensor ** t) {
    int sections[GGML_MROPE_SECTIONS] = { 4, 2, 2, 0 };
    return ggml_rope_multi(ctx, A, B, NULL, (int) A->ne[0], sections, GGML_ROPE_TYPE_MROPE, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
}
W(clamp, ggml_clamp(ctx, A, -0.5f, 0.5f))
W(im2col, ggml_im2col(ctx, A, B, 1, 1, 1, 1, 1, 1, true, GGML_TYPE_F32))
W(im2col_1d, ggml_im2col(ctx, A, B, 2, 0, 1, 0, 1, 0, false, GGML_TYPE_F16))
W(conv_2d, ggml_conv_2d(ctx, A, B, 1, 1, 1, 1, 1, 1))   W(conv_2d_direct, ggml_conv_2d_direct(ctx, A, B, 2, 1, 0, 1, 1, 2))
W(pool_2d_max, ggml_pool_2d(ctx, A, GGML_OP_POOL_MAX, 3, 3, 2, 2, 1.0f, 1.0f))
W(pool_2d_avg, ggml_pool_2d(ctx, A, GGML_OP_POOL_AVG, 2, 2, 2, 2, 0.0f, 0.0f))
W(pad, ggml_pad(ctx, A, 1, 2, 0, 1))                    W(pad_ext, ggml_pad_ext(ctx, A, 1, 0, 2, 3, 0, 1, 1, 0))
W(argsort, ggml_argsort(ctx, A, GGML_SORT_ORDER_DESC))  W(top_k, ggml_top_k(ctx, A, 4))
W(flash_attn_ext, ggml_flash_attn_ext(ctx, A, B, C, D, 0.125f, 0.0f, 0.0f))
W(flash_attn_ext_softcap, ggml_flash_attn_ext(ctx, A, B, C, NULL, 0.125f, 0.0f, 30.0f))

// ggml_arange has no tensor argument; the sweeps have nothing to vary, but the node is computed
static tensor * w_arange_dummy(struct ggml_context * ctx, tensor ** t) {
    (void) t;
    return ggml_arange(ctx, -3.0f, 5.0f, 0.25f);
}

#undef A
#undef B
#undef C
#undef D

struct input {
    enum ggml_type type;
    int64_t ne[4];
};

struct spec {
    const char * name;
    op_fn fn;
    int n_in;
    struct input in[4];
};

#define F32_(a, b, c, d) { GGML_TYPE_F32, { a, b, c, d } }
#define F16_(a, b, c, d) { GGML_TYPE_F16, { a, b, c, d } }
#define I32_(a, b, c, d) { GGML_TYPE_I32, { a, b, c, d } }
#define I64_(a, b, c, d) { GGML_TYPE_I64, { a, b, c, d } }
#define STD   F32_(256, 4, 3, 2)
#define ROW   F32_(256, 1, 3, 1)
#define SCAL  F32_(1, 1, 1, 1)
#define BLK   F32_(256, 2, 1, 1)
#define SQ    F32_(16, 16, 3, 1)
#define NONE  F32_(1, 1, 1, 1)

#define S0(n)          { #n, w_##n, 0, { NONE, NONE, NONE, NONE } }
#define S1(n)          { #n, w_##n, 1, { STD, NONE, NONE, NONE } }
#define S1X(n, a)      { #n, w_##n, 1, { a, NONE, NONE, NONE } }
#define S2(n, b)       { #n, w_##n, 2, { STD, b, NONE, NONE } }
#define S2X(n, a, b)   { #n, w_##n, 2, { a, b, NONE, NONE } }
#define S3X(n, a, b, c) { #n, w_##n, 3, { a, b, c, NONE } }
#define S4X(n, a, b, c, d) { #n, w_##n, 4, { a, b, c, d } }

static const struct spec SPECS[] = {
    S1(dup), S1(dup_inplace), S2(add, STD), S2(add_inplace, ROW), S2X(add_cast, F16_(256, 4, 3, 2), ROW),
    S2(add1, SCAL), S2(add1_inplace, SCAL), S2(acc, BLK), S2(acc_inplace, BLK),
    S2(sub, STD), S2(sub_inplace, ROW), S2(mul, ROW), S2(mul_inplace, STD), S2(div, STD), S2(div_inplace, SCAL),
    S1(sqr), S1(sqr_inplace), S1(sqrt), S1(sqrt_inplace), S1(log), S1(log_inplace),
    S1(sin), S1(sin_inplace), S1(cos), S1(cos_inplace), S1(sum), S1(sum_rows), S1(mean),
    S1X(argmax, F32_(256, 4, 1, 1)), S2X(repeat, ROW, STD), S1X(repeat_4d, ROW), S2(concat, STD),
    S1(abs), S1(abs_inplace), S1(sgn), S1(sgn_inplace), S1(neg), S1(neg_inplace), S1(step), S1(step_inplace),
    S1(tanh), S1(tanh_inplace), S1(elu), S1(elu_inplace), S1(relu), S1(relu_inplace),
    S1(leaky_relu), S1(leaky_relu_inplace), S1(sigmoid), S1(sigmoid_inplace), S1(gelu), S1(gelu_inplace),
    S1(gelu_erf), S1(gelu_erf_inplace), S1(gelu_quick), S1(gelu_quick_inplace), S1(silu), S1(silu_inplace),
    S1(hardswish), S1(hardsigmoid), S1(exp), S1(exp_inplace), S1(unary), S1(unary_inplace),
    S1(glu), S2(glu_split, STD), S1(reglu), S1(reglu_swapped), S1(geglu), S1(geglu_swapped),
    S1(swiglu), S1(swiglu_swapped), S1(geglu_erf), S1(geglu_erf_swapped), S1(geglu_quick), S1(geglu_quick_swapped),
    S2(reglu_split, STD), S2(geglu_split, STD), S2(swiglu_split, STD), S2(geglu_erf_split, STD), S2(geglu_quick_split, STD),
    S1(norm), S1(norm_inplace), S1(rms_norm), S1(rms_norm_inplace), S1(group_norm), S1(group_norm_inplace),
    S1(l2_norm), S1(l2_norm_inplace),
    S2X(mul_mat, F32_(256, 8, 3, 2), F32_(256, 4, 3, 2)), S2X(out_prod, F32_(8, 256, 1, 1), F32_(6, 256, 1, 1)),
    S1(scale), S1(scale_inplace), S1(scale_bias), S1(scale_bias_inplace),
    S2(set, BLK), S2(set_inplace, BLK), S2(set_1d, BLK), S2(set_1d_inplace, BLK), S2(set_2d, BLK), S2(set_2d_inplace, BLK),
    S2(cpy, F16_(256, 4, 3, 2)), S1(cast), S1(cont), S1(cont_1d), S1(cont_2d), S1(cont_3d), S1(cont_4d),
    S2(reshape, F32_(256, 24, 1, 1)), S1(reshape_1d), S1(reshape_2d), S1(reshape_3d), S1(reshape_4d),
    S1(view_1d), S1(view_2d), S1(view_3d), S1(view_4d), S1(permute), S1(transpose),
    S2X(get_rows, F32_(256, 10, 1, 1), I32_(5, 1, 1, 1)),
    S3X(set_rows, F32_(256, 10, 1, 1), F32_(256, 5, 1, 1), I64_(5, 1, 1, 1)),
    S1X(diag_mask_inf, SQ), S1X(diag_mask_inf_inplace, SQ), S1X(diag_mask_zero, SQ), S1X(diag_mask_zero_inplace, SQ),
    S1(soft_max), S1(soft_max_inplace),
    S2X(soft_max_ext, F32_(32, 4, 2, 1), F16_(32, 4, 1, 1)), S2X(soft_max_ext_inplace, F32_(32, 4, 2, 1), F32_(32, 4, 1, 1)),
    S2X(rope, F32_(64, 3, 4, 1), I32_(4, 1, 1, 1)), S2X(rope_inplace, F16_(64, 3, 4, 1), I32_(4, 1, 1, 1)),
    S3X(rope_ext, F32_(64, 3, 4, 1), I32_(4, 1, 1, 1), F32_(32, 1, 1, 1)),
    S2X(rope_ext_inplace, F32_(64, 3, 4, 1), I32_(4, 1, 1, 1)),
    S2X(rope_multi, F32_(16, 3, 4, 1), I32_(16, 1, 1, 1)),
    S1(clamp),
    S2X(im2col, F32_(3, 3, 2, 4), F32_(16, 16, 2, 1)), S2X(im2col_1d, F16_(3, 2, 4, 1), F32_(20, 2, 3, 1)),
    S2X(conv_2d, F16_(3, 3, 2, 4), F32_(16, 16, 2, 1)), S2X(conv_2d_direct, F32_(3, 3, 2, 4), F32_(16, 16, 2, 1)),
    S1X(pool_2d_max, SQ), S1X(pool_2d_avg, SQ), S1(pad), S1(pad_ext), S1(argsort), S1(top_k),
    S4X(flash_attn_ext, F32_(64, 4, 2, 1), F16_(64, 32, 2, 1), F16_(64, 32, 2, 1), F16_(32, 4, 1, 1)),
    S3X(flash_attn_ext_softcap, F32_(64, 4, 2, 1), F16_(64, 32, 2, 1), F16_(64, 32, 2, 1)),
    S0(arange_dummy),
};

//
// sweep state (per child process)
//

static int g_cases;
static int g_bad;
static ggml_backend_t g_cpu;
// each computation in a child process of its own (after a crash of the constructor's sweep)
static bool g_isolate_compute;

static void bad_case(const char * op, const char * what, const char * detail) {
    g_bad++;
    fprintf(stderr, "  %s, %s: %s\n", op, what, detail);
}

// values of every type: floats in [-2, 2], integers in [-3, 40] (partly out of range as indices),
// arbitrary bytes for quantized types
static void fill(tensor * t, uint64_t * seed) {
    const int64_t n = ggml_nelements(t);
    uint8_t * d = t->data;
    for (int64_t i = 0; i < n || (ggml_is_quantized(t->type) && (size_t) i < ggml_nbytes(t)); i++) {
        *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const uint32_t r = (uint32_t) (*seed >> 33);
        const float f = (float) (r % 4001) / 1000.0f - 2.0f;
        switch (t->type) {
            case GGML_TYPE_F32:  ((float *) d)[i] = f; break;
            case GGML_TYPE_F16:  ((ggml_fp16_t *) d)[i] = ggml_fp32_to_fp16(f); break;
            case GGML_TYPE_BF16: ((ggml_bf16_t *) d)[i] = ggml_fp32_to_bf16(f); break;
            case GGML_TYPE_F64:  ((double *) d)[i] = f; break;
            case GGML_TYPE_I8:   ((int8_t *) d)[i] = (int8_t) (r % 44) - 3; break;
            case GGML_TYPE_I16:  ((int16_t *) d)[i] = (int16_t) (r % 44) - 3; break;
            case GGML_TYPE_I32:  ((int32_t *) d)[i] = (int32_t) (r % 44) - 3; break;
            case GGML_TYPE_I64:  ((int64_t *) d)[i] = (int64_t) (r % 44) - 3; break;
            default:             d[i] = (uint8_t) r; break;
        }
    }
}

// a node must have non-negative extents and a byte size that does not overflow
static bool well_formed(const tensor * r, char * why, size_t why_size) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (r->ne[i] < 0) {
            snprintf(why, why_size, "ne[%d] = %lld", i, (long long) r->ne[i]);
            return false;
        }
    }
    const int64_t blck = ggml_blck_size(r->type);
    // a permuted view of a quantized tensor may have blocks along another dimension (as in the family)
    if (blck <= 0 || (r->view_src == NULL && r->ne[0] % blck != 0)) {
        snprintf(why, why_size, "type %d, ne0 %lld is not whole blocks", (int) r->type, (long long) r->ne[0]);
        return false;
    }
    if (r->view_src == NULL) {
        size_t bytes = ggml_type_size(r->type);
        uint64_t n = (uint64_t) (r->ne[0] / blck);
        for (int i = 1; i < GGML_MAX_DIMS; i++) {
            if (__builtin_mul_overflow(n, (uint64_t) r->ne[i], &n)) {
                snprintf(why, why_size, "element count overflows");
                return false;
            }
        }
        if (__builtin_mul_overflow(bytes, (size_t) n, &bytes)) {
            snprintf(why, why_size, "byte size overflows");
            return false;
        }
    }
    return true;
}

// Calls the constructor on the inputs; checks "NULL with an error" or "a well-formed node without
// an error". Returns the node (NULL when refused).
static tensor * construct(const struct spec * sp, struct ggml_context * ctx, tensor ** in, const char * what) {
    g_cases++;
    test_log_capture_begin();
    ggml_clear_last_error();
    tensor * r = sp->fn(ctx, in);
    const int errs = test_log_error_count();
    const enum ggml_error_code code = ggml_last_error();
    test_log_capture_end();
    char why[160];
    if (r == NULL) {
        if (errs == 0) {
            bad_case(sp->name, what, "NULL without a logged error");
        }
        if (code != GGML_ERROR_INVALID_ARGUMENT) {
            snprintf(why, sizeof(why), "NULL with last error %s, not invalid argument", ggml_error_code_name(code));
            bad_case(sp->name, what, why);
        }
        return NULL;
    }
    if (errs > 0) {
        snprintf(why, sizeof(why), "a node and %d logged errors: %.100s", errs, test_log_text());
        bad_case(sp->name, what, why);
    }
    if (!well_formed(r, why, sizeof(why))) {
        bad_case(sp->name, what, why);
        return NULL;
    }
    return r;
}

// computes r on the CPU: success, or a failure with a logged error
static void compute(const struct spec * sp, struct ggml_context * ctx, tensor * r, const char * what) {
    if (getenv("OPS_VERBOSE") != NULL) {
        fprintf(stderr, "computing %s, %s\n", sp->name, what);
    }
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 64, false);
    if (gf == NULL) {
        bad_case(sp->name, what, "no room for the graph");
        return;
    }
    ggml_build_forward_expand(gf, r);
    pid_t pid = -1;
    if (g_isolate_compute) {
        fflush(stderr);
        pid = fork();
        if (pid > 0) {
            int ws = 0;
            waitpid(pid, &ws, 0);
            if (WIFSIGNALED(ws) || (WIFEXITED(ws) && WEXITSTATUS(ws) != 0)) {
                char why[96];
                snprintf(why, sizeof(why), "CRASH: the computation %s %d", WIFSIGNALED(ws) ? "was killed by signal" : "exited with status",
                        WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
                bad_case(sp->name, what, why);
            }
            return;
        }
    }
    test_log_capture_begin();
    ggml_clear_last_error();
    const enum ggml_status st = ggml_backend_graph_compute(g_cpu, gf);
    const int errs = test_log_error_count();
    const enum ggml_error_code code = ggml_last_error();
    test_log_capture_end();
    if (st != GGML_STATUS_SUCCESS && code == GGML_ERROR_OK) {
        bad_case(sp->name, "compute", "compute failed without setting the last error");
    }
    if (st != GGML_STATUS_SUCCESS && errs == 0) {
        char why[96];
        snprintf(why, sizeof(why), "compute failed (status %d) without a logged error", (int) st);
        bad_case(sp->name, what, why);
    }
    if (pid == 0) {
        _exit(0); // the failure (if any) was printed by this child; the parent sees no crash
    }
}

static tensor * new_input(struct ggml_context * ctx, enum ggml_type type, const int64_t ne[4], uint64_t * seed) {
    test_log_capture_begin();
    tensor * t = ggml_new_tensor(ctx, type, 4, ne);
    test_log_capture_end();
    if (t != NULL && t->data != NULL) {
        fill(t, seed);
    }
    return t;
}

// the inputs of sp, with input k changed to type `type` and dimension `dim` to `dim_val` (dim -1:
// no change). False when such an input cannot exist (the type's blocks do not divide ne0).
static bool make_inputs(const struct spec * sp, struct ggml_context * ctx, int k, enum ggml_type type, int dim, int64_t dim_val,
        tensor ** in, uint64_t * seed) {
    for (int i = 0; i < 4; i++) {
        in[i] = NULL;
    }
    for (int i = 0; i < sp->n_in; i++) {
        int64_t ne[4];
        memcpy(ne, sp->in[i].ne, sizeof(ne));
        enum ggml_type ty = sp->in[i].type;
        if (i == k) {
            ty = type;
            if (dim >= 0) {
                ne[dim] = dim_val;
            }
        }
        in[i] = new_input(ctx, ty, ne, seed);
        if (in[i] == NULL) {
            return false;
        }
    }
    return true;
}

// the largest extent for dimension dim of input k such that the tensor has about 2^61 bytes
static int64_t absurd_extent(const struct spec * sp, int k, int dim) {
    const struct input * in = &sp->in[k];
    double other = (double) ggml_type_size(in->type) / (double) ggml_blck_size(in->type);
    for (int i = 0; i < 4; i++) {
        if (i != dim) {
            other *= (double) in->ne[i];
        }
    }
    double e = ldexp(1.0, 61) / other;
    int64_t v = (int64_t) e;
    const int64_t blck = ggml_blck_size(in->type);
    if (dim == 0) {
        v -= v % (blck * 256);
    }
    return v > 0 ? v : 1;
}

static const enum ggml_type ALL_TYPES[] = {
    GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F64, GGML_TYPE_I8, GGML_TYPE_I16, GGML_TYPE_I32, GGML_TYPE_I64,
    GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0, GGML_TYPE_Q8_1,
    GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_Q8_K,
    GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ1_S, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ3_S,
    GGML_TYPE_IQ2_S, GGML_TYPE_IQ4_XS, GGML_TYPE_IQ1_M, GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0, GGML_TYPE_MXFP4,
    GGML_TYPE_NVFP4, GGML_TYPE_Q1_0, GGML_TYPE_Q2_0,
};

static void sweep(const struct spec * sp) {
    struct ggml_context * ctx = NULL;
    uint64_t seed = 12345;
    tensor * in[4];
    char what[128];
    struct ggml_init_params p = { (size_t) 64 << 20, NULL, false };
    ctx = ggml_init(p);
    struct ggml_init_params np = { 64 * ggml_tensor_overhead() + ggml_graph_overhead_custom(64, false), NULL, true };
    struct ggml_context * nctx = ggml_init(np);
    if (ctx == NULL || nctx == NULL) {
        bad_case(sp->name, "setup", "no context");
        return;
    }

    // the good input first: it must work
    if (make_inputs(sp, ctx, -1, GGML_TYPE_F32, -1, 0, in, &seed)) {
        tensor * r = construct(sp, ctx, in, "good input");
        if (r == NULL) {
            bad_case(sp->name, "good input", "refused");
        } else {
            compute(sp, ctx, r, "good input");
        }
    }

    // 1. every type for every argument
    for (int k = 0; k < sp->n_in; k++) {
        for (size_t ti = 0; ti < sizeof(ALL_TYPES) / sizeof(ALL_TYPES[0]); ti++) {
            if (ALL_TYPES[ti] == sp->in[k].type) {
                continue;
            }
            ggml_reset(ctx);
            if (!make_inputs(sp, ctx, k, ALL_TYPES[ti], -1, 0, in, &seed)) {
                continue;
            }
            snprintf(what, sizeof(what), "argument %d as %s", k, ggml_type_name(ALL_TYPES[ti]));
            tensor * r = construct(sp, ctx, in, what);
            if (r != NULL) {
                compute(sp, ctx, r, what);
            }
        }
    }
    // 2. empty dimensions
    for (int k = 0; k < sp->n_in; k++) {
        for (int d = 0; d < 4; d++) {
            ggml_reset(ctx);
            if (!make_inputs(sp, ctx, k, sp->in[k].type, d, 0, in, &seed)) {
                continue;
            }
            snprintf(what, sizeof(what), "argument %d with ne[%d] = 0", k, d);
            tensor * r = construct(sp, ctx, in, what);
            if (r != NULL) {
                compute(sp, ctx, r, what);
            }
        }
    }
    // 3. absurd dimensions (no data): construct, then the allocator must refuse the graph
    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    for (int k = 0; k < sp->n_in; k++) {
        for (int d = 0; d < 4; d++) {
            ggml_reset(nctx);
            const int64_t v = absurd_extent(sp, k, d);
            if (!make_inputs(sp, nctx, k, sp->in[k].type, d, v, in, &seed)) {
                continue;
            }
            snprintf(what, sizeof(what), "argument %d with ne[%d] = %lld", k, d, (long long) v);
            tensor * r = construct(sp, nctx, in, what);
            if (r == NULL || galloc == NULL) {
                continue;
            }
            struct ggml_cgraph * gf = ggml_new_graph_custom(nctx, 64, false);
            if (gf == NULL) {
                continue;
            }
            ggml_build_forward_expand(gf, r);
            g_cases++;
            test_log_capture_begin();
            ggml_clear_last_error();
            const bool ok = ggml_gallocr_reserve(galloc, gf);
            const int errs = test_log_error_count();
            const enum ggml_error_code code = ggml_last_error();
            test_log_capture_end();
            if (!ok && code == GGML_ERROR_OK) {
                bad_case(sp->name, what, "the allocator failed without setting the last error");
            }
            if (ok && ggml_gallocr_get_buffer_size(galloc, 0) < ggml_nbytes(r)) {
                bad_case(sp->name, what, "the allocator reserved less than the node needs");
            } else if (!ok && errs == 0) {
                bad_case(sp->name, what, "the allocator failed without a logged error");
            }
            // reserving 2^61 bytes succeeded? then the memory is the machine's business, not ours
        }
    }
    ggml_gallocr_free(galloc);
    ggml_free(nctx);
    ggml_free(ctx);
}

struct child_report {
    int cases;
    int bad;
};

int main(void) {
    test_rng_init();
    const int n_specs = (int) (sizeof(SPECS) / sizeof(SPECS[0]));
    long total_cases = 0;
    // OPS_ONLY=<name>: sweep one constructor in this process (for a debugger)
    const char * only = getenv("OPS_ONLY");
    if (only != NULL) {
        for (int i = 0; i < n_specs; i++) {
            if (strcmp(SPECS[i].name, only) == 0) {
                g_cpu = ggml_backend_cpu_init();
                ggml_backend_cpu_set_n_threads(g_cpu, 2);
                sweep(&SPECS[i]);
                ggml_backend_free(g_cpu);
                TEST_CHECK_MSG(g_bad == 0, "%s: %d of %d cases went wrong", only, g_bad, g_cases);
            }
        }
        return test_finish("test-ops-input-sweep");
    }
    for (int i = 0; i < n_specs; i++) {
        int fds[2];
        if (pipe(fds) != 0) {
            TEST_CHECK_MSG(false, "pipe failed");
            break;
        }
        fflush(stdout);
        fflush(stderr);
        const pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            g_cpu = ggml_backend_cpu_init();
            ggml_backend_cpu_set_n_threads(g_cpu, 2);
            sweep(&SPECS[i]);
            ggml_backend_free(g_cpu);
            struct child_report rep = { g_cases, g_bad };
            const ssize_t w = write(fds[1], &rep, sizeof(rep));
            _exit(w == (ssize_t) sizeof(rep) ? 0 : 3);
        }
        close(fds[1]);
        struct child_report rep = { 0, 0 };
        const ssize_t got = pid > 0 ? read(fds[0], &rep, sizeof(rep)) : -1;
        close(fds[0]);
        int ws = 0;
        if (pid > 0) {
            waitpid(pid, &ws, 0);
        }
        const bool clean_exit = pid > 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && got == (ssize_t) sizeof(rep);
        TEST_CHECK_MSG(clean_exit, "%s: the sweep process %s %d; sweeping again with every computation in a process of its own",
                SPECS[i].name, WIFSIGNALED(ws) ? "was killed by signal" : "exited with status", WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
        if (!clean_exit && !g_isolate_compute) {
            // once more, each computation in a child, to name every case that crashes
            g_isolate_compute = true;
            i--;
            continue;
        }
        g_isolate_compute = false;
        if (clean_exit) {
            TEST_CHECK_MSG(rep.bad == 0, "%s: %d of %d cases went wrong (listed above)", SPECS[i].name, rep.bad, rep.cases);
        }
        total_cases += rep.cases;
    }
    printf("bad-input cases (op constructors: types, empty and absurd shapes): %ld over %d constructors\n", total_cases, n_specs);
    return test_finish("test-ops-input-sweep");
}
