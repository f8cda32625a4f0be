// Reference library core: element access, type conversion, dispatch, coverage and error metric.

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// largest block of a quantized type the reference dequantizes (the K-quants' 256)
#define REF_MAX_BLOCK 256

bool ggml_ref_fail(char * err, size_t err_size, const char * fmt, ...) {
    if (err != NULL && err_size > 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, err_size, fmt, args);
        va_end(args);
    }
    return false;
}

bool ggml_ref_type_readable(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
        case GGML_TYPE_F64:
        case GGML_TYPE_I8:
        case GGML_TYPE_I16:
        case GGML_TYPE_I32:
        case GGML_TYPE_I64:
            return true;
        default:
            return false;
    }
}

bool ggml_ref_type_dequantizable(enum ggml_type type) {
    return (int) type >= 0 && type < GGML_TYPE_COUNT && ggml_is_quantized(type) &&
           ggml_blck_size(type) <= REF_MAX_BLOCK && ggml_get_type_traits(type)->to_float != NULL;
}

double ggml_ref_get_q(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    if (t == NULL || t->data == NULL || !ggml_ref_type_dequantizable(t->type)) {
        return ggml_ref_get(t, i0, i1, i2, i3);
    }
    // the whole block holding element i0, through the type's own dequantization
    const int64_t bs = ggml_blck_size(t->type);
    const char * p = (const char *) t->data
        + (size_t) (i0/bs)*t->nb[0] + (size_t) i1*t->nb[1] + (size_t) i2*t->nb[2] + (size_t) i3*t->nb[3];
    float block[REF_MAX_BLOCK];
    ggml_get_type_traits(t->type)->to_float(p, block, bs);
    return block[i0 % bs];
}

void ggml_ref_row_q(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, double * out) {
    if (t == NULL || t->data == NULL || !ggml_ref_type_dequantizable(t->type)) {
        for (int64_t i0 = 0; t != NULL && i0 < t->ne[0]; i0++) {
            out[i0] = ggml_ref_get(t, i0, i1, i2, i3);
        }
        return;
    }
    const int64_t bs = ggml_blck_size(t->type);
    const char * row = (const char *) t->data + (size_t) i1*t->nb[1] + (size_t) i2*t->nb[2] + (size_t) i3*t->nb[3];
    float block[REF_MAX_BLOCK];
    for (int64_t b0 = 0; b0 < t->ne[0]; b0 += bs) {
        ggml_get_type_traits(t->type)->to_float(row + (size_t) (b0/bs)*t->nb[0], block, bs);
        for (int64_t j = 0; j < bs && b0 + j < t->ne[0]; j++) {
            out[b0 + j] = block[j];
        }
    }
}

double ggml_ref_get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    if (t == NULL || t->data == NULL) {
        return NAN;
    }
    const char * p = (const char *) t->data
        + (size_t) i0*t->nb[0] + (size_t) i1*t->nb[1] + (size_t) i2*t->nb[2] + (size_t) i3*t->nb[3];
    switch (t->type) {
        case GGML_TYPE_F32:  { float       v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_F16:  { ggml_fp16_t v; memcpy(&v, p, sizeof(v)); return ggml_fp16_to_fp32(v); }
        case GGML_TYPE_BF16: { ggml_bf16_t v; memcpy(&v, p, sizeof(v)); return ggml_bf16_to_fp32(v); }
        case GGML_TYPE_F64:  { double      v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I8:   { int8_t      v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I16:  { int16_t     v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I32:  { int32_t     v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I64:  { int64_t     v; memcpy(&v, p, sizeof(v)); return (double) v; }
        default:             return NAN;
    }
}

// float -> integer conversion: truncation toward zero, saturated so that it is always defined.
static double ref_to_int(double v, double lo, double hi) {
    if (isnan(v)) {
        return 0.0;
    }
    v = trunc(v);
    return v < lo ? lo : (v > hi ? hi : v);
}

double ggml_ref_round_to_type(enum ggml_type type, double v) {
    switch (type) {
        case GGML_TYPE_F32:  return (float) v;
        case GGML_TYPE_F16:  return ggml_fp16_to_fp32(ggml_fp32_to_fp16((float) v));
        case GGML_TYPE_BF16: return ggml_bf16_to_fp32(ggml_fp32_to_bf16((float) v));
        case GGML_TYPE_F64:  return v;
        case GGML_TYPE_I8:   return ref_to_int(v, INT8_MIN, INT8_MAX);
        case GGML_TYPE_I16:  return ref_to_int(v, INT16_MIN, INT16_MAX);
        case GGML_TYPE_I32:  return ref_to_int(v, INT32_MIN, INT32_MAX);
        case GGML_TYPE_I64:  return ref_to_int(v, -9223372036854775808.0, 9223372036854774784.0);
        default:             return NAN;
    }
}

bool ggml_ref_need_src(const struct ggml_tensor * node, int i, char * err, size_t err_size) {
    const struct ggml_tensor * s = node->src[i];
    if (s == NULL) {
        return ggml_ref_fail(err, err_size, "%s: source %d is NULL", ggml_op_desc(node), i);
    }
    if (s->data == NULL) {
        return ggml_ref_fail(err, err_size, "%s: source %d ('%s') has no host data", ggml_op_desc(node), i, s->name);
    }
    if (!ggml_ref_type_readable(s->type)) {
        return ggml_ref_fail(err, err_size, "%s: source %d has type %s, which the reference does not read",
                ggml_op_desc(node), i, ggml_type_name(s->type));
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (s->ne[d] < 0) {
            return ggml_ref_fail(err, err_size, "%s: source %d has a negative dimension", ggml_op_desc(node), i);
        }
    }
    return true;
}

bool ggml_ref_q_result_op(enum ggml_op op) {
    return op == GGML_OP_DUP || op == GGML_OP_CONT || op == GGML_OP_CPY || op == GGML_OP_SET_ROWS || op == GGML_OP_CONCAT;
}

bool ggml_ref_round_row_to_type(enum ggml_type type, double * row, int64_t n) {
    if (!ggml_is_quantized(type)) {
        for (int64_t i = 0; i < n; i++) {
            row[i] = ggml_ref_round_to_type(type, row[i]);
        }
        return true;
    }
    const struct ggml_type_traits * tr = ggml_get_type_traits(type);
    if (tr->from_float_ref == NULL || tr->to_float == NULL || tr->blck_size <= 0 || n % tr->blck_size != 0) {
        return false;
    }
    float  * f = malloc(sizeof(float) * (size_t) (n > 0 ? n : 1));
    void   * q = malloc(ggml_row_size(type, n) > 0 ? ggml_row_size(type, n) : 1);
    if (f == NULL || q == NULL) {
        free(f);
        free(q);
        return false;
    }
    for (int64_t i = 0; i < n; i++) {
        f[i] = (float) row[i];
    }
    tr->from_float_ref(f, q, n);
    tr->to_float(q, f, n);
    for (int64_t i = 0; i < n; i++) {
        row[i] = f[i];
    }
    free(f);
    free(q);
    return true;
}

bool ggml_ref_need_src_q(const struct ggml_tensor * node, int i, char * err, size_t err_size) {
    const struct ggml_tensor * s = node->src[i];
    if (s == NULL || !ggml_ref_type_dequantizable(s->type)) {
        return ggml_ref_need_src(node, i, err, err_size);
    }
    if (s->data == NULL) {
        return ggml_ref_fail(err, err_size, "%s: source %d ('%s') has no host data", ggml_op_desc(node), i, s->name);
    }
    if (s->ne[0] % ggml_blck_size(s->type) != 0 || s->nb[0] != ggml_type_size(s->type) || s->ne[1] < 0 ||
        s->ne[2] < 0 || s->ne[3] < 0) {
        return ggml_ref_fail(err, err_size, "%s: source %d (%s) does not hold whole blocks in its rows",
                ggml_op_desc(node), i, ggml_type_name(s->type));
    }
    return true;
}

double ggml_ref_alibi_slope(float max_bias, int64_t n_head, int64_t h) {
    if (!(max_bias > 0.0f)) {
        return 1.0;
    }
    // the largest power of two not above n_head
    int64_t n_head_log2 = 1;
    while (n_head_log2*2 <= n_head) {
        n_head_log2 *= 2;
    }
    const double m0 = pow(2.0, -(double) max_bias / (double) n_head_log2);
    const double m1 = pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);
    return h < n_head_log2 ? pow(m0, (double) (h + 1)) : pow(m1, (double) (2*(h - n_head_log2) + 1));
}

static const enum ggml_op ref_ops[] = {
    GGML_OP_NONE, GGML_OP_DUP, GGML_OP_ADD, GGML_OP_ADD1, GGML_OP_ACC, GGML_OP_SUB, GGML_OP_MUL,
    GGML_OP_DIV, GGML_OP_SQR, GGML_OP_SQRT, GGML_OP_LOG, GGML_OP_SIN, GGML_OP_COS, GGML_OP_SUM,
    GGML_OP_SUM_ROWS, GGML_OP_MEAN, GGML_OP_ARGMAX, GGML_OP_REPEAT, GGML_OP_CONCAT, GGML_OP_NORM,
    GGML_OP_RMS_NORM, GGML_OP_GROUP_NORM, GGML_OP_L2_NORM, GGML_OP_MUL_MAT, GGML_OP_OUT_PROD,
    GGML_OP_SCALE, GGML_OP_SET, GGML_OP_CPY, GGML_OP_CONT, GGML_OP_RESHAPE, GGML_OP_VIEW,
    GGML_OP_PERMUTE, GGML_OP_TRANSPOSE, GGML_OP_GET_ROWS, GGML_OP_SET_ROWS, GGML_OP_DIAG_MASK_INF,
    GGML_OP_DIAG_MASK_ZERO, GGML_OP_SOFT_MAX, GGML_OP_ROPE, GGML_OP_CLAMP, GGML_OP_IM2COL,
    GGML_OP_CONV_2D, GGML_OP_POOL_2D, GGML_OP_PAD, GGML_OP_ARANGE, GGML_OP_ARGSORT, GGML_OP_TOP_K,
    GGML_OP_LEAKY_RELU, GGML_OP_FLASH_ATTN_EXT, GGML_OP_UNARY, GGML_OP_GLU, GGML_OP_MUL_MAT_ID,
    GGML_OP_ADD_ID,
    GGML_OP_CUMSUM, GGML_OP_TRI, GGML_OP_FILL, GGML_OP_DIAG, GGML_OP_ROLL, GGML_OP_PAD_REFLECT_1D,
    GGML_OP_TIMESTEP_EMBEDDING, GGML_OP_POOL_1D,
    // more convolutions (ref-conv.c)
    GGML_OP_IM2COL_3D, GGML_OP_CONV_3D, GGML_OP_CONV_2D_DW, GGML_OP_CONV_TRANSPOSE_1D, GGML_OP_CONV_TRANSPOSE_2D,
    // training (ref-backward.c)
    GGML_OP_REPEAT_BACK, GGML_OP_SILU_BACK, GGML_OP_RMS_NORM_BACK, GGML_OP_GET_ROWS_BACK, GGML_OP_SOFT_MAX_BACK,
    GGML_OP_COUNT_EQUAL, GGML_OP_CROSS_ENTROPY_LOSS, GGML_OP_CROSS_ENTROPY_LOSS_BACK, GGML_OP_OPT_STEP_ADAMW,
    GGML_OP_OPT_STEP_SGD, GGML_OP_ROPE_BACK, GGML_OP_POOL_2D_BACK,
    // sequence models (ref-seq.c)
    GGML_OP_SSM_CONV, GGML_OP_SSM_SCAN, GGML_OP_RWKV_WKV6, GGML_OP_GATED_LINEAR_ATTN, GGML_OP_RWKV_WKV7,
    GGML_OP_SOLVE_TRI, GGML_OP_GATED_DELTA_NET,
    // issue 22's shape2 group (ref-shape2.c)
    GGML_OP_UPSCALE, GGML_OP_WIN_PART, GGML_OP_WIN_UNPART, GGML_OP_GET_REL_POS, GGML_OP_ADD_REL_POS,
    GGML_OP_COL2IM_1D, GGML_OP_IM2COL_BACK, GGML_OP_FLASH_ATTN_BACK,
    // DeepSeek-V4 group (ref-dsv4.c)
    GGML_OP_LIGHTNING_INDEXER, GGML_OP_DSV4_HC_COMB, GGML_OP_DSV4_HC_PRE, GGML_OP_DSV4_HC_POST,
};

const enum ggml_op * ggml_ref_ops(int * n) {
    if (n != NULL) {
        *n = (int) (sizeof(ref_ops)/sizeof(ref_ops[0]));
    }
    return ref_ops;
}

bool ggml_ref_unary_covered(enum ggml_unary_op op) {
    return (int) op >= 0 && op < GGML_UNARY_OP_COUNT;
}

bool ggml_ref_glu_covered(enum ggml_glu_op op) {
    return (int) op >= 0 && op < GGML_GLU_OP_COUNT;
}

static bool ref_op_listed(enum ggml_op op) {
    for (size_t i = 0; i < sizeof(ref_ops)/sizeof(ref_ops[0]); i++) {
        if (ref_ops[i] == op) {
            return true;
        }
    }
    return false;
}

static bool ref_rope_mode_ok(int mode) {
    return mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX || mode == GGML_ROPE_TYPE_MROPE ||
           mode == GGML_ROPE_TYPE_VISION || mode == GGML_ROPE_TYPE_IMROPE;
}

bool ggml_ref_supports(const struct ggml_tensor * node) {
    if (node == NULL || !ref_op_listed(node->op)) {
        return false;
    }
    // quantized data is read (dequantized) as source 0 of the ops that take it
    const bool q_src0 = node->op == GGML_OP_MUL_MAT || node->op == GGML_OP_MUL_MAT_ID || node->op == GGML_OP_GET_ROWS ||
                        node->op == GGML_OP_DUP || node->op == GGML_OP_CONT || node->op == GGML_OP_CPY ||
                        node->op == GGML_OP_OUT_PROD || node->op == GGML_OP_CONCAT ||
                        node->op == GGML_OP_GET_ROWS_BACK;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const struct ggml_tensor * s = node->src[i];
        // the destination of CPY / SET_ROWS (read, if at all, as the node's own contents)
        const bool q_dst = ggml_ref_q_result_op(node->op) && i > 0 && s != NULL && s->type == node->type;
        if (s != NULL && !ggml_ref_type_readable(s->type) && !q_dst &&
            !(i == 0 && q_src0 && ggml_ref_type_dequantizable(s->type)) &&
            !(i == 1 && node->op == GGML_OP_LIGHTNING_INDEXER && ggml_ref_type_dequantizable(s->type)) &&
            !((i == 1 || i == 2) && node->op == GGML_OP_FLASH_ATTN_EXT && ggml_ref_type_dequantizable(s->type))) {
            return false;
        }
    }
    // the result type matters for views (read back), conversions (rounded) and index outputs
    if (!ggml_ref_type_readable(node->type) &&
        !(ggml_ref_q_result_op(node->op) && ggml_ref_type_dequantizable(node->type))) {
        return false;
    }
    switch (node->op) {
        case GGML_OP_UNARY: return ggml_ref_unary_covered((enum ggml_unary_op) ggml_ref_param_i32(node, 0));
        case GGML_OP_GLU:   return ggml_ref_glu_covered((enum ggml_glu_op) ggml_ref_param_i32(node, 0));
        case GGML_OP_ROPE:
        case GGML_OP_ROPE_BACK: return ref_rope_mode_ok(ggml_ref_param_i32(node, 2));
        case GGML_OP_POOL_2D: {
            const int op = ggml_ref_param_i32(node, 0);
            return op == GGML_OP_POOL_MAX || op == GGML_OP_POOL_AVG;
        }
        case GGML_OP_ARGSORT: {
            const int order = ggml_ref_param_i32(node, 0);
            return order == GGML_SORT_ORDER_ASC || order == GGML_SORT_ORDER_DESC;
        }
        default:
            return true;
    }
}

bool ggml_ref_compute(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (err != NULL && err_size > 0) {
        err[0] = '\0';
    }
    if (node == NULL) {
        return ggml_ref_fail(err, err_size, "ggml_ref_compute: node is NULL");
    }
    if (out == NULL) {
        return ggml_ref_fail(err, err_size, "ggml_ref_compute: out is NULL");
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (node->ne[d] < 0) {
            return ggml_ref_fail(err, err_size, "%s: negative dimension %d", ggml_op_desc(node), d);
        }
    }
    if (!ref_op_listed(node->op)) {
        return ggml_ref_fail(err, err_size, "op %s is not covered by the reference", ggml_op_name(node->op));
    }
    if (!ggml_ref_type_readable(node->type) &&
        !(ggml_ref_q_result_op(node->op) && ggml_ref_type_dequantizable(node->type))) {
        return ggml_ref_fail(err, err_size, "%s: result type %s is not covered by the reference",
                ggml_op_desc(node), ggml_type_name(node->type));
    }
    switch (node->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_ADD1:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_SIN:
        case GGML_OP_COS:
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
        case GGML_OP_LEAKY_RELU:
            return ggml_ref_op_elementwise(node, out, err, err_size);
        case GGML_OP_UNARY:
            return ggml_ref_op_unary(node, out, err, err_size);
        case GGML_OP_GLU:
            return ggml_ref_op_glu(node, out, err, err_size);
        case GGML_OP_SUM:
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
        case GGML_OP_ARGMAX:
            return ggml_ref_op_reduce(node, out, err, err_size);
        case GGML_OP_NONE:
        case GGML_OP_RESHAPE:
        case GGML_OP_VIEW:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
        case GGML_OP_ACC:
        case GGML_OP_SET:
        case GGML_OP_REPEAT:
        case GGML_OP_CONCAT:
        case GGML_OP_PAD:
        case GGML_OP_ARANGE:
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            return ggml_ref_op_shape(node, out, err, err_size);
        case GGML_OP_GET_ROWS:
        case GGML_OP_SET_ROWS:
            return ggml_ref_op_rows(node, out, err, err_size);
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
        case GGML_OP_GROUP_NORM:
            return ggml_ref_op_norm(node, out, err, err_size);
        case GGML_OP_MUL_MAT:
        case GGML_OP_OUT_PROD:
            return ggml_ref_op_matmul(node, out, err, err_size);
        case GGML_OP_MUL_MAT_ID:
        case GGML_OP_ADD_ID:
            return ggml_ref_op_moe(node, out, err, err_size);
        case GGML_OP_SOFT_MAX:
            return ggml_ref_op_softmax(node, out, err, err_size);
        case GGML_OP_ROPE:
        case GGML_OP_ROPE_BACK:
            return ggml_ref_op_rope(node, out, err, err_size);
        case GGML_OP_IM2COL:
        case GGML_OP_CONV_2D:
        case GGML_OP_POOL_2D:
        case GGML_OP_IM2COL_3D:
        case GGML_OP_CONV_3D:
        case GGML_OP_CONV_2D_DW:
        case GGML_OP_CONV_TRANSPOSE_1D:
        case GGML_OP_CONV_TRANSPOSE_2D:
            return ggml_ref_op_conv(node, out, err, err_size);
        case GGML_OP_FLASH_ATTN_EXT:
            return ggml_ref_op_attn(node, out, err, err_size);
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K:
            return ggml_ref_op_sort(node, out, err, err_size);
        case GGML_OP_CUMSUM:
        case GGML_OP_TRI:
        case GGML_OP_FILL:
        case GGML_OP_DIAG:
        case GGML_OP_ROLL:
        case GGML_OP_PAD_REFLECT_1D:
        case GGML_OP_TIMESTEP_EMBEDDING:
        case GGML_OP_POOL_1D:
            return ggml_ref_op_misc(node, out, err, err_size);
        case GGML_OP_REPEAT_BACK:
        case GGML_OP_SILU_BACK:
        case GGML_OP_RMS_NORM_BACK:
        case GGML_OP_GET_ROWS_BACK:
        case GGML_OP_SOFT_MAX_BACK:
        case GGML_OP_COUNT_EQUAL:
        case GGML_OP_CROSS_ENTROPY_LOSS:
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK:
        case GGML_OP_OPT_STEP_ADAMW:
        case GGML_OP_OPT_STEP_SGD:
        case GGML_OP_POOL_2D_BACK:
            return ggml_ref_op_backward(node, out, err, err_size);
        case GGML_OP_SSM_CONV:
        case GGML_OP_SSM_SCAN:
        case GGML_OP_RWKV_WKV6:
        case GGML_OP_GATED_LINEAR_ATTN:
        case GGML_OP_RWKV_WKV7:
        case GGML_OP_SOLVE_TRI:
        case GGML_OP_GATED_DELTA_NET:
            return ggml_ref_op_seq(node, out, err, err_size);
        case GGML_OP_UPSCALE:
        case GGML_OP_WIN_PART:
        case GGML_OP_WIN_UNPART:
        case GGML_OP_GET_REL_POS:
        case GGML_OP_ADD_REL_POS:
        case GGML_OP_COL2IM_1D:
        case GGML_OP_IM2COL_BACK:
        case GGML_OP_FLASH_ATTN_BACK:
            return ggml_ref_op_shape2(node, out, err, err_size);
        case GGML_OP_LIGHTNING_INDEXER:
        case GGML_OP_DSV4_HC_COMB:
        case GGML_OP_DSV4_HC_PRE:
        case GGML_OP_DSV4_HC_POST:
            return ggml_ref_op_dsv4(node, out, err, err_size);
        default:
            return ggml_ref_fail(err, err_size, "op %s is not covered by the reference", ggml_op_name(node->op));
    }
}

double ggml_ref_nmse(const double * ref, const float * got, int64_t n) {
    if (ref == NULL || got == NULL || n <= 0) {
        return 0.0;
    }
    double sum_err = 0.0;
    double sum_ref = 0.0;
    int64_t n_finite = 0;
    for (int64_t i = 0; i < n; i++) {
        const double r = ref[i];
        const double g = got[i];
        if (!isfinite(r) || !isfinite(g)) {
            if ((isnan(r) && isnan(g)) || r == g) {
                continue;
            }
            return INFINITY;
        }
        const double d = r - g;
        sum_err += d*d;
        sum_ref += r*r;
        n_finite++;
    }
    if (sum_ref == 0.0) {
        return n_finite > 0 ? sum_err / (double) n_finite : 0.0;
    }
    return sum_err / sum_ref;
}
