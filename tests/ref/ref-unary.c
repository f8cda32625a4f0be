// Reference: UNARY (all ggml_unary_op) and GLU (all ggml_glu_op, one-tensor and split forms).

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>

#define REF_SQRT_2_OVER_PI 0.79788456080286535587989211986876
#define REF_GELU_COEF_A    0.044715
#define REF_GELU_QUICK     1.702

static double ref_sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

static double ref_gelu_tanh(double x) {
    return 0.5*x*(1.0 + tanh(REF_SQRT_2_OVER_PI*x*(1.0 + REF_GELU_COEF_A*x*x)));
}

static double ref_gelu_erf(double x) {
    return 0.5*x*(1.0 + erf(x / sqrt(2.0)));
}

static double ref_gelu_quick(double x) {
    return x*ref_sigmoid(REF_GELU_QUICK*x);
}

static double ref_silu(double x) {
    return x*ref_sigmoid(x);
}

// log(1 + e^x) without overflow for large x
static double ref_softplus(double x) {
    return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

static double ref_hardsigmoid(double x) {
    const double y = (x + 3.0) / 6.0;
    return y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
}

// params: the node's f32[1..4] = alpha_n, alpha_p, beta, eps (as the family stores them)
static double ref_xielu(double x, const double p[4]) {
    const double alpha_n = p[0], alpha_p = p[1], beta = p[2], eps = p[3];
    if (x > 0.0) {
        return alpha_p*x*x + beta*x;
    }
    const double xm = x < eps ? x : eps;
    return (expm1(xm) - x)*alpha_n + beta*x;
}

static bool ref_unary_fn(enum ggml_unary_op op, double x, const double p[4], double * r) {
    switch (op) {
        case GGML_UNARY_OP_ABS:         *r = fabs(x); break;
        case GGML_UNARY_OP_SGN:         *r = x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); break;
        case GGML_UNARY_OP_NEG:         *r = -x; break;
        case GGML_UNARY_OP_STEP:        *r = x > 0.0 ? 1.0 : 0.0; break;
        case GGML_UNARY_OP_TANH:        *r = tanh(x); break;
        case GGML_UNARY_OP_ELU:         *r = x > 0.0 ? x : expm1(x); break;
        case GGML_UNARY_OP_RELU:        *r = x > 0.0 ? x : 0.0; break;
        case GGML_UNARY_OP_SIGMOID:     *r = ref_sigmoid(x); break;
        case GGML_UNARY_OP_GELU:        *r = ref_gelu_tanh(x); break;
        case GGML_UNARY_OP_GELU_QUICK:  *r = ref_gelu_quick(x); break;
        case GGML_UNARY_OP_SILU:        *r = ref_silu(x); break;
        case GGML_UNARY_OP_HARDSWISH:   *r = x*ref_hardsigmoid(x); break;
        case GGML_UNARY_OP_HARDSIGMOID: *r = ref_hardsigmoid(x); break;
        case GGML_UNARY_OP_EXP:         *r = exp(x); break;
        case GGML_UNARY_OP_EXPM1:       *r = expm1(x); break;
        case GGML_UNARY_OP_SOFTPLUS:    *r = ref_softplus(x); break;
        case GGML_UNARY_OP_GELU_ERF:    *r = ref_gelu_erf(x); break;
        case GGML_UNARY_OP_XIELU:       *r = ref_xielu(x, p); break;
        case GGML_UNARY_OP_FLOOR:       *r = floor(x); break;
        case GGML_UNARY_OP_CEIL:        *r = ceil(x); break;
        case GGML_UNARY_OP_ROUND:       *r = round(x); break; // halves away from zero, like roundf
        case GGML_UNARY_OP_TRUNC:       *r = trunc(x); break;
        default:                        return false;
    }
    return true;
}

bool ggml_ref_op_unary(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    if (!ggml_ref_same_shape(node, a)) {
        return ggml_ref_fail(err, err_size, "%s: result shape differs from source 0", ggml_op_desc(node));
    }
    const enum ggml_unary_op op = (enum ggml_unary_op) ggml_ref_param_i32(node, 0);
    const double p[4] = {
        ggml_ref_param_f32(node, 1), ggml_ref_param_f32(node, 2),
        ggml_ref_param_f32(node, 3), ggml_ref_param_f32(node, 4),
    };
    double probe;
    if (!ref_unary_fn(op, 0.0, p, &probe)) {
        return ggml_ref_fail(err, err_size, "UNARY: unknown unary op %d", (int) op);
    }
    for (int64_t i = 0; i < ggml_ref_nel(a); i++) {
        ref_unary_fn(op, ggml_ref_get_flat(a, i), p, &out[i]);
    }
    return true;
}

// x: the activated half, g: the gate
static bool ref_glu_fn(enum ggml_glu_op op, double x, double g, double alpha, double limit, double * r) {
    switch (op) {
        case GGML_GLU_OP_REGLU:       *r = (x > 0.0 ? x : 0.0)*g; break;
        case GGML_GLU_OP_GEGLU:       *r = ref_gelu_tanh(x)*g; break;
        case GGML_GLU_OP_SWIGLU:      *r = ref_silu(x)*g; break;
        case GGML_GLU_OP_GEGLU_ERF:   *r = ref_gelu_erf(x)*g; break;
        case GGML_GLU_OP_GEGLU_QUICK: *r = ref_gelu_quick(x)*g; break;
        case GGML_GLU_OP_SWIGLU_OAI: {
            // x capped above at limit, g clamped to [-limit, limit]; x*sigmoid(alpha*x)*(g + 1)
            const double xc = x > limit ? limit : x;
            const double gc = g > limit ? limit : (g < -limit ? -limit : g);
            *r = xc*ref_sigmoid(alpha*xc)*(gc + 1.0);
        } break;
        default:
            return false;
    }
    return true;
}

bool ggml_ref_op_glu(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    const enum ggml_glu_op op = (enum ggml_glu_op) ggml_ref_param_i32(node, 0);
    const bool   swapped = ggml_ref_param_i32(node, 1) != 0;
    const double alpha   = ggml_ref_param_f32(node, 2);
    const double limit   = ggml_ref_param_f32(node, 3);
    double probe;
    if (!ref_glu_fn(op, 0.0, 0.0, alpha, limit, &probe)) {
        return ggml_ref_fail(err, err_size, "GLU: unknown glu op %d", (int) op);
    }
    if (b != NULL) {
        if (!ggml_ref_need_src(node, 1, err, err_size)) {
            return false;
        }
        if (!ggml_ref_same_shape(a, b) || !ggml_ref_same_shape(node, a)) {
            return ggml_ref_fail(err, err_size, "GLU (split): a, b and the result must have the same shape");
        }
    } else {
        // x and g are the first two runs of ne0 elements of each row; an odd a->ne0 leaves one unused
        if (node->ne[0] != a->ne[0]/2 || node->ne[1] != a->ne[1] || node->ne[2] != a->ne[2] || node->ne[3] != a->ne[3]) {
            return ggml_ref_fail(err, err_size, "GLU: the result must be a with half the row length (a->ne0 = %lld, result ne0 = %lld)",
                    (long long) a->ne[0], (long long) node->ne[0]);
        }
    }
    const int64_t nc = node->ne[0];
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < node->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < nc; i0++) {
                    double x, g;
                    if (b != NULL) {
                        x = ggml_ref_get(a, i0, i1, i2, i3);
                        g = ggml_ref_get(b, i0, i1, i2, i3);
                    } else {
                        x = ggml_ref_get(a, i0 + (swapped ? nc : 0), i1, i2, i3);
                        g = ggml_ref_get(a, i0 + (swapped ? 0 : nc), i1, i2, i3);
                    }
                    ref_glu_fn(op, x, g, alpha, limit, &out[ggml_ref_idx(node, i0, i1, i2, i3)]);
                }
            }
        }
    }
    return true;
}
