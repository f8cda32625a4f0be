// Training: the gradients ggml_build_backward_expand builds, computed on the CPU backend, against
// central finite differences of the forward graph (the family's "grad" mode in test-backend-ops
// does the same), for every op whose gradient the family defines; plus the constructors of the
// training ops refusing bad input with NULL and a logged error.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <string.h>

#define MAX_PARAMS 4

typedef struct ggml_tensor tensor;

struct grad_case {
    const char * name;
    tensor * (*build)(struct ggml_context * ctx);
};

// a new F32 tensor with values uniform in [lo, hi]; a parameter when param
static tensor * input(struct ggml_context * ctx, int64_t n0, int64_t n1, int64_t n2, int64_t n3,
        double lo, double hi, bool param) {
    tensor * t = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, n0, n1, n2, n3);
    float * d = (float *) t->data;
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        d[i] = (float) test_rand_uniform(lo, hi);
    }
    if (param) {
        ggml_set_param(t);
    }
    return t;
}

// a parameter with |values| in [0.1, 1] (random signs): away from the kinks of abs and relu
static tensor * away(struct ggml_context * ctx, int64_t n0, int64_t n1) {
    tensor * t = input(ctx, n0, n1, 1, 1, 0.1, 1.0, true);
    float * d = (float *) t->data;
    for (int64_t i = 0; i < n0*n1; i++) {
        d[i] = test_rand_uniform(0.0, 1.0) < 0.5 ? -d[i] : d[i];
    }
    return t;
}

#define P(ctx, n0, n1, n2, n3) input(ctx, n0, n1, n2, n3, -1.0, 1.0, true)
#define C(ctx, n0, n1, n2, n3) input(ctx, n0, n1, n2, n3, -1.0, 1.0, false)

static tensor * b_add(struct ggml_context * c)   { return ggml_add(c, P(c, 5, 4, 3, 2), P(c, 5, 1, 3, 1)); }
// SET: b over rows 1..2 of each plane of a (a's gradient is zero there, b's is that region of grad)
static tensor * b_set(struct ggml_context * c) {
    tensor * a = P(c, 6, 5, 4, 1);
    return ggml_mul(c, ggml_set(c, a, P(c, 6, 2, 4, 1), a->nb[1], a->nb[2], a->nb[3], a->nb[1]), C(c, 6, 5, 4, 1));
}
static tensor * b_sub(struct ggml_context * c)   { return ggml_sub(c, P(c, 5, 4, 3, 1), P(c, 5, 4, 3, 1)); }
static tensor * b_mul(struct ggml_context * c)   { return ggml_mul(c, P(c, 5, 4, 3, 2), P(c, 5, 4, 1, 1)); }
static tensor * b_div(struct ggml_context * c)   { return ggml_div(c, P(c, 5, 4, 3, 1), input(c, 5, 4, 3, 1, 0.5, 2.0, true)); }
static tensor * b_add1(struct ggml_context * c)  { return ggml_add1(c, P(c, 5, 4, 1, 1), P(c, 1, 1, 1, 1)); }
static tensor * b_sqr(struct ggml_context * c)   { return ggml_sqr(c, P(c, 7, 3, 2, 1)); }
static tensor * b_sqrt(struct ggml_context * c)  { return ggml_sqrt(c, input(c, 7, 3, 1, 1, 0.5, 2.0, true)); }
static tensor * b_log(struct ggml_context * c)   { return ggml_log(c, input(c, 7, 3, 1, 1, 0.5, 2.0, true)); }
static tensor * b_sin(struct ggml_context * c)   { return ggml_sin(c, P(c, 7, 3, 1, 1)); }
static tensor * b_cos(struct ggml_context * c)   { return ggml_cos(c, P(c, 7, 3, 1, 1)); }
static tensor * b_sum(struct ggml_context * c)   { return ggml_sqr(c, ggml_sum(c, P(c, 7, 3, 2, 1))); }
static tensor * b_sum_rows(struct ggml_context * c) { return ggml_sqr(c, ggml_sum_rows(c, P(c, 7, 3, 2, 1))); }
static tensor * b_mean(struct ggml_context * c)  { return ggml_sqr(c, ggml_mean(c, P(c, 7, 3, 2, 1))); }
static tensor * b_repeat(struct ggml_context * c) {
    return ggml_mul(c, ggml_repeat(c, P(c, 3, 1, 2, 1), C(c, 6, 4, 2, 2)), C(c, 6, 4, 2, 2));
}
static tensor * b_repeat_back(struct ggml_context * c) {
    return ggml_sqr(c, ggml_repeat_back(c, P(c, 6, 4, 2, 2), C(c, 3, 2, 1, 1)));
}
static tensor * b_rms_norm(struct ggml_context * c) { return ggml_mul(c, ggml_rms_norm(c, P(c, 8, 3, 2, 1), 1e-5f), C(c, 8, 3, 2, 1)); }
static tensor * b_mul_mat(struct ggml_context * c) { return ggml_sqr(c, ggml_mul_mat(c, P(c, 6, 5, 2, 1), P(c, 6, 4, 2, 1))); }
static tensor * b_mul_mat_bcast(struct ggml_context * c) { return ggml_sqr(c, ggml_mul_mat(c, P(c, 6, 5, 1, 1), P(c, 6, 4, 3, 1))); }
static tensor * b_scale(struct ggml_context * c) { return ggml_sqr(c, ggml_scale(c, P(c, 7, 3, 1, 1), 0.75f)); }
static tensor * b_cpy(struct ggml_context * c) {
    tensor * x = P(c, 6, 4, 1, 1);
    return ggml_sqr(c, ggml_cpy(c, ggml_sin(c, x), C(c, 6, 4, 1, 1)));
}
static tensor * b_cont_transpose(struct ggml_context * c) {
    return ggml_mul(c, ggml_cont(c, ggml_transpose(c, P(c, 6, 4, 1, 1))), C(c, 4, 6, 1, 1));
}
static tensor * b_reshape_permute(struct ggml_context * c) {
    tensor * x = ggml_reshape_4d(c, P(c, 24, 2, 1, 1), 4, 6, 2, 1);
    return ggml_mul(c, ggml_cont(c, ggml_permute(c, x, 2, 0, 1, 3)), C(c, 6, 2, 4, 1));
}
static tensor * b_view(struct ggml_context * c) {
    tensor * x = P(c, 8, 6, 1, 1);
    tensor * v = ggml_view_2d(c, x, 3, 4, x->nb[1], 2*x->nb[1] + 1*sizeof(float));
    return ggml_sqr(c, ggml_cont(c, v));
}
static tensor * b_get_rows(struct ggml_context * c) {
    tensor * x = P(c, 5, 6, 1, 1);
    tensor * idx = ggml_new_tensor_1d(c, GGML_TYPE_I32, 7);
    const int32_t rows[7] = { 3, 0, 5, 3, 1, 3, 0 };
    memcpy(idx->data, rows, sizeof(rows));
    return ggml_mul(c, ggml_get_rows(c, x, idx), C(c, 5, 7, 1, 1));
}
static tensor * b_soft_max(struct ggml_context * c) {
    return ggml_mul(c, ggml_soft_max_ext(c, P(c, 7, 4, 2, 1), NULL, 0.5f, 0.0f), C(c, 7, 4, 2, 1));
}
// ALiBi: a mask scaled by a slope per head (max_bias 8, 2 heads); the mask has no gradient, so
// SOFT_MAX_BACK gets max_bias and computes dx as without it
static tensor * b_soft_max_alibi(struct ggml_context * c) {
    return ggml_mul(c, ggml_soft_max_ext(c, P(c, 7, 4, 2, 1), C(c, 7, 4, 1, 1), 0.5f, 8.0f), C(c, 7, 4, 2, 1));
}
// rules beyond the family's: CUMSUM (rows of 9, strided by a permute), DIAG, TRI
static tensor * b_cumsum(struct ggml_context * c) {
    return ggml_mul(c, ggml_cumsum(c, ggml_permute(c, P(c, 4, 9, 3, 1), 1, 0, 2, 3)), C(c, 9, 4, 3, 1));
}
static tensor * b_diag(struct ggml_context * c) { return ggml_mul(c, ggml_diag(c, P(c, 6, 1, 3, 2)), C(c, 6, 6, 3, 2)); }
static tensor * b_tri(struct ggml_context * c) {
    return ggml_mul(c, ggml_tri(c, P(c, 5, 5, 2, 1), GGML_TRI_TYPE_LOWER), C(c, 5, 5, 2, 1));
}
static tensor * b_diag_mask(struct ggml_context * c) {
    return ggml_mul(c, ggml_soft_max(c, ggml_diag_mask_inf(c, P(c, 5, 5, 2, 1), 1)), C(c, 5, 5, 2, 1));
}
static tensor * b_rope(struct ggml_context * c, int mode) {
    tensor * pos = ggml_new_tensor_1d(c, GGML_TYPE_I32, 3*(mode == GGML_ROPE_TYPE_MROPE ? 4 : 1));
    for (int64_t i = 0; i < ggml_nelements(pos); i++) {
        ((int32_t *) pos->data)[i] = (int32_t) (7*i + 3);
    }
    tensor * x = P(c, 16, 2, 3, 1);
    tensor * r;
    if (mode == GGML_ROPE_TYPE_MROPE) {
        int sections[GGML_MROPE_SECTIONS] = { 2, 2, 2, 0 };
        r = ggml_rope_multi(c, x, pos, NULL, 12, sections, mode, 64, 100.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    } else {
        r = ggml_rope_ext(c, x, pos, NULL, 12, mode, 64, 100.0f, 0.5f, 1.0f, 1.0f, 32.0f, 1.0f);
    }
    return ggml_mul(c, r, C(c, 16, 2, 3, 1));
}
static tensor * b_rope_normal(struct ggml_context * c) { return b_rope(c, GGML_ROPE_TYPE_NORMAL); }
static tensor * b_rope_neox(struct ggml_context * c)   { return b_rope(c, GGML_ROPE_TYPE_NEOX); }
static tensor * b_rope_mrope(struct ggml_context * c)  { return b_rope(c, GGML_ROPE_TYPE_MROPE); }
static tensor * b_pool(struct ggml_context * c, enum ggml_op_pool op) {
    tensor * x = P(c, 7, 6, 2, 1);
    // distinct values 0.05 apart in random order: a step of h = 0.01 never changes a window's maximum
    float * d = (float *) x->data;
    const int64_t n = ggml_nelements(x);
    for (int64_t i = 0; i < n; i++) {
        d[i] = 0.05f*(float) (i - n/2);
    }
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = test_rand_int(0, i);
        const float t = d[i]; d[i] = d[j]; d[j] = t;
    }
    return ggml_mul(c, ggml_pool_2d(c, x, op, 3, 2, 2, 1, 1, 0), C(c, 4, 5, 2, 1));
}
static tensor * b_pool_max(struct ggml_context * c) { return b_pool(c, GGML_OP_POOL_MAX); }
static tensor * b_pool_avg(struct ggml_context * c) { return b_pool(c, GGML_OP_POOL_AVG); }
static tensor * b_abs(struct ggml_context * c)  { return ggml_mul(c, ggml_abs(c, away(c, 9, 2)), C(c, 9, 2, 1, 1)); }
static tensor * b_neg(struct ggml_context * c)  { return ggml_mul(c, ggml_neg(c, P(c, 9, 2, 1, 1)), C(c, 9, 2, 1, 1)); }
static tensor * b_relu(struct ggml_context * c) { return ggml_mul(c, ggml_relu(c, away(c, 9, 2)), C(c, 9, 2, 1, 1)); }
static tensor * b_silu(struct ggml_context * c) { return ggml_mul(c, ggml_silu(c, P(c, 9, 2, 1, 1)), C(c, 9, 2, 1, 1)); }
static tensor * b_exp(struct ggml_context * c)  { return ggml_mul(c, ggml_exp(c, P(c, 9, 2, 1, 1)), C(c, 9, 2, 1, 1)); }
static tensor * b_swiglu(struct ggml_context * c) {
    return ggml_mul(c, ggml_swiglu_split(c, P(c, 8, 3, 1, 1), P(c, 8, 3, 1, 1)), C(c, 8, 3, 1, 1));
}
static tensor * b_cross_entropy(struct ggml_context * c) {
    tensor * labels = ggml_soft_max(c, C(c, 10, 4, 2, 1));
    return ggml_cross_entropy_loss(c, P(c, 10, 4, 2, 1), labels);
}
static tensor * b_chain(struct ggml_context * c) {
    // a small two-layer network: the gradients flow through several ops into shared parameters
    tensor * w1 = P(c, 6, 5, 1, 1);
    tensor * w2 = P(c, 5, 4, 1, 1);
    tensor * x  = C(c, 6, 3, 1, 1);
    tensor * h  = ggml_silu(c, ggml_mul_mat(c, w1, x));
    tensor * y  = ggml_mul_mat(c, w2, ggml_rms_norm(c, h, 1e-5f));
    return ggml_cross_entropy_loss(c, ggml_add(c, y, ggml_scale(c, ggml_mul_mat(c, w2, h), 0.5f)), ggml_soft_max(c, C(c, 4, 3, 1, 1)));
}

static const struct grad_case cases[] = {
    { "add", b_add }, { "sub", b_sub }, { "mul", b_mul }, { "div", b_div }, { "add1", b_add1 }, { "sqr", b_sqr },
    { "sqrt", b_sqrt }, { "log", b_log }, { "sin", b_sin }, { "cos", b_cos }, { "sum", b_sum }, { "sum_rows", b_sum_rows },
    { "mean", b_mean }, { "set", b_set }, { "repeat", b_repeat }, { "repeat_back", b_repeat_back }, { "rms_norm", b_rms_norm },
    { "mul_mat", b_mul_mat }, { "mul_mat broadcast", b_mul_mat_bcast }, { "scale", b_scale }, { "cpy", b_cpy },
    { "cont transpose", b_cont_transpose }, { "reshape permute", b_reshape_permute }, { "view", b_view },
    { "get_rows", b_get_rows }, { "soft_max", b_soft_max }, { "soft_max alibi", b_soft_max_alibi }, { "diag_mask_inf", b_diag_mask }, { "abs", b_abs },
    { "neg", b_neg }, { "relu", b_relu }, { "silu", b_silu }, { "exp", b_exp }, { "swiglu", b_swiglu },
    { "cross_entropy_loss", b_cross_entropy }, { "rope normal (YaRN)", b_rope_normal }, { "rope neox (YaRN)", b_rope_neox },
    { "rope mrope", b_rope_mrope }, { "pool_2d max", b_pool_max }, { "pool_2d avg", b_pool_avg }, { "cumsum", b_cumsum }, { "diag", b_diag }, { "tri", b_tri }, { "two layers", b_chain },
};

static float loss_of(struct ggml_context * ctx, struct ggml_cgraph * gf, const tensor * loss) {
    if (ggml_graph_compute_with_ctx(ctx, gf, 2) != GGML_STATUS_SUCCESS) {
        return NAN;
    }
    return *(const float *) loss->data;
}

static void check_case(const struct grad_case * gc) {
    struct ggml_init_params ip = { 64*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    tensor * out = gc->build(ctx);
    if (!TEST_CHECK_MSG(out != NULL, "%s: the forward graph could not be built", gc->name)) {
        ggml_free(ctx);
        return;
    }
    tensor * loss = ggml_is_scalar(out) ? out : ggml_sum(ctx, out);
    ggml_set_loss(loss);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 2048, true);
    ggml_build_forward_expand(gf, loss);
    struct ggml_cgraph * gb = ggml_graph_dup(ctx, gf, true);
    ggml_build_backward_expand(ctx, gb, NULL);
    ggml_graph_reset(gb);
    TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gb, 2) == GGML_STATUS_SUCCESS, "%s: backward graph failed", gc->name);

    // the analytic gradients, taken before the finite differences recompute the forward graph
    int n_checked = 0;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        tensor * p = ggml_graph_node(gf, i);
        if (!(p->flags & GGML_TENSOR_FLAG_PARAM)) {
            continue;
        }
        const tensor * g = ggml_graph_get_grad(gb, p);
        if (!TEST_CHECK_MSG(g != NULL && g->type == GGML_TYPE_F32 && ggml_are_same_shape(g, p),
                    "%s: parameter %d has no usable gradient", gc->name, i)) {
            continue;
        }
        const int64_t n = ggml_nelements(p);
        float analytic[256];
        const int64_t n_cmp = n < 256 ? n : 256;
        for (int64_t k = 0; k < n_cmp; k++) { // through the strides: a gradient may be a view (transpose)
            const int64_t i0 = k % p->ne[0], i1 = k/p->ne[0] % p->ne[1], i2 = k/(p->ne[0]*p->ne[1]) % p->ne[2];
            const int64_t i3 = k/(p->ne[0]*p->ne[1]*p->ne[2]);
            analytic[k] = *(const float *) ((const char *) g->data + i0*g->nb[0] + i1*g->nb[1] + i2*g->nb[2] + i3*g->nb[3]);
        }

        // central differences of the loss; h balances truncation and float rounding
        const float h = 1e-2f;
        double err2 = 0.0, ref2 = 0.0;
        float * x = (float *) p->data;
        for (int64_t k = 0; k < n_cmp; k++) {
            const float v = x[k];
            x[k] = v + h;
            const float lp = loss_of(ctx, gf, loss);
            x[k] = v - h;
            const float lm = loss_of(ctx, gf, loss);
            x[k] = v;
            const double numeric = ((double) lp - (double) lm)/(2.0*h);
            err2 += (numeric - analytic[k])*(numeric - analytic[k]);
            ref2 += numeric*numeric;
        }
        const double nmse = ref2 > 0.0 ? err2/ref2 : err2;
        TEST_CHECK_MSG(ref2 > 0.0, "%s: parameter %d: all finite differences are zero (vacuous)", gc->name, i);
        TEST_CHECK_MSG(nmse <= 1e-4, "%s: parameter %d: gradient nmse %.3e against finite differences", gc->name, i, nmse);
        n_checked++;
    }
    TEST_CHECK_MSG(n_checked > 0, "%s: no parameter checked", gc->name);
    ggml_free(ctx);
}

// training op constructors: NULL and a logged error for bad input, never an abort
static void check_constructors(void) {
    struct ggml_init_params ip = { 1024*1024, NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);
    tensor * p7 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 7);
    tensor * p2 = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2);
    tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
    test_log_capture_begin();
    TEST_CHECK(ggml_silu_back(ctx, a, b) == NULL);
    TEST_CHECK(ggml_rms_norm_back(ctx, a, b, 1e-5f) == NULL);
    TEST_CHECK(ggml_soft_max_ext_back(ctx, a, b, 1.0f, 0.0f) == NULL);
    TEST_CHECK(ggml_repeat_back(ctx, a, b) == NULL);
    TEST_CHECK(ggml_count_equal(ctx, a, b) == NULL);
    TEST_CHECK(ggml_cross_entropy_loss(ctx, a, b) == NULL);
    TEST_CHECK(ggml_cross_entropy_loss_back(ctx, a, a, a) == NULL); // the gradient must be a scalar
    TEST_CHECK(ggml_get_rows_back(ctx, a, a, a) == NULL);           // indices must be I32
    TEST_CHECK(ggml_opt_step_sgd(ctx, a, a, p2) == NULL);           // not a parameter
    TEST_CHECK(ggml_silu_back(ctx, NULL, a) == NULL);
    ggml_set_param(a);
    TEST_CHECK(ggml_opt_step_sgd(ctx, a, a, p7) == NULL);           // 7 values for SGD
    TEST_CHECK(ggml_opt_step_adamw(ctx, a, a, a, a, p2) == NULL);   // 2 values for AdamW
    TEST_CHECK(ggml_opt_step_adamw(ctx, a, b, a, a, p7) == NULL);   // shapes
    const int n_errors = test_log_error_count();
    test_log_capture_end();
    TEST_CHECK(n_errors >= 13);

    test_log_capture_begin();
    tensor * r = ggml_get_rows_back(ctx, a, idx, b);
    test_log_capture_end();
    TEST_CHECK(r == NULL); // row lengths differ (4 vs 5)

    // valid calls: the family's shapes and op_params
    r = ggml_get_rows_back(ctx, a, idx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 9));
    TEST_CHECK(r != NULL && r->op == GGML_OP_GET_ROWS_BACK && r->ne[0] == 4 && r->ne[1] == 9 && r->type == GGML_TYPE_F32);
    r = ggml_soft_max_ext_back_inplace(ctx, a, a, 0.5f, 0.0f);
    float scale = 0.0f;
    if (r != NULL) {
        memcpy(&scale, r->op_params, sizeof(scale));
    }
    TEST_CHECK(r != NULL && r->view_src == a && scale == 0.5f);
    r = ggml_count_equal(ctx, idx, idx);
    TEST_CHECK(r != NULL && r->type == GGML_TYPE_I64 && ggml_nelements(r) == 1);
    r = ggml_opt_step_adamw(ctx, a, a, a, a, p7);
    TEST_CHECK(r != NULL && r->view_src == a && r->src[4] == p7);
    r = ggml_repeat_back(ctx, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 6, 2, 2), a);
    TEST_CHECK(r != NULL && ggml_are_same_shape(r, a));
    ggml_free(ctx);
}

// ggml_graph_reset on a graph allocated in a backend buffer, as the family's grad mode and ggml-opt
// use it: the loss gradient becomes 1 and every other gradient 0 whatever they held before (it once
// skipped every tensor with a buffer, so the family's grad mode saw stale gradients)
static void check_reset_in_buffer(void) {
    struct ggml_init_params ip = { 1024*1024, NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (!TEST_CHECK(ctx != NULL && cpu != NULL)) {
        ggml_backend_free(cpu);
        ggml_free(ctx);
        return;
    }
    tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 5);
    ggml_set_param(x);
    tensor * loss = ggml_sum(ctx, ggml_sqr(ctx, x));
    ggml_set_loss(loss);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 64, true);
    ggml_build_forward_expand(gf, loss);
    struct ggml_cgraph * gb = ggml_graph_dup(ctx, gf, true);
    ggml_build_backward_expand(ctx, gb, NULL);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
    tensor * gx = ggml_graph_get_grad(gb, x);
    tensor * gl = ggml_graph_get_grad_acc(gb, loss);
    if (TEST_CHECK(buf != NULL && gx != NULL && gl != NULL)) {
        const float xv[5] = { 0.5f, -1.25f, 2.0f, 3.5f, -0.75f }, junk[5] = { 7, 7, 7, 7, 7 };
        ggml_backend_tensor_set(x, xv, 0, sizeof(xv));
        ggml_backend_tensor_set(gl, junk, 0, sizeof(float));
        for (int i = 0; i < ggml_graph_n_nodes(gb); i++) { // stale values in every gradient accumulator
            tensor * acc = ggml_graph_get_grad_acc(gb, ggml_graph_node(gb, i));
            if (acc != NULL && acc != gl && ggml_nelements(acc) <= 5) {
                ggml_backend_tensor_set(acc, junk, 0, ggml_nbytes(acc));
            }
        }
        ggml_graph_reset(gb);
        float one = 0.0f, g[5] = { 0 };
        ggml_backend_tensor_get(gl, &one, 0, sizeof(one));
        TEST_CHECK_MSG(one == 1.0f, "graph_reset: the loss gradient is %g, not 1", (double) one);
        TEST_CHECK(ggml_backend_graph_compute(cpu, gb) == GGML_STATUS_SUCCESS);
        ggml_backend_tensor_get(gx, g, 0, sizeof(g));
        for (int i = 0; i < 5; i++) {
            TEST_CHECK_MSG(g[i] == 2.0f*xv[i], "graph_reset: d loss/dx[%d] = %g, expected %g", i, (double) g[i],
                    (double) (2.0f*xv[i]));
        }
    }
    ggml_backend_buffer_free(buf);
    ggml_backend_free(cpu);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    check_constructors();
    check_reset_in_buffer();
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        check_case(&cases[i]);
    }
    return test_finish("test-training");
}
