// Names and symbols of ops, unary ops and GLU ops; the op-parameter getters for UNARY and GLU.
// Every lookup is bounds-checked: an id outside its enum gives a placeholder string, never NULL.

#include "ggml-impl.h"

static const char * const OP_NAMES[GGML_OP_COUNT] = {
    [GGML_OP_NONE]                    = "NONE",
    [GGML_OP_DUP]                     = "DUP",
    [GGML_OP_ADD]                     = "ADD",
    [GGML_OP_ADD_ID]                  = "ADD_ID",
    [GGML_OP_ADD1]                    = "ADD1",
    [GGML_OP_ACC]                     = "ACC",
    [GGML_OP_SUB]                     = "SUB",
    [GGML_OP_MUL]                     = "MUL",
    [GGML_OP_DIV]                     = "DIV",
    [GGML_OP_SQR]                     = "SQR",
    [GGML_OP_SQRT]                    = "SQRT",
    [GGML_OP_LOG]                     = "LOG",
    [GGML_OP_SIN]                     = "SIN",
    [GGML_OP_COS]                     = "COS",
    [GGML_OP_SUM]                     = "SUM",
    [GGML_OP_SUM_ROWS]                = "SUM_ROWS",
    [GGML_OP_CUMSUM]                  = "CUMSUM",
    [GGML_OP_MEAN]                    = "MEAN",
    [GGML_OP_ARGMAX]                  = "ARGMAX",
    [GGML_OP_COUNT_EQUAL]             = "COUNT_EQUAL",
    [GGML_OP_REPEAT]                  = "REPEAT",
    [GGML_OP_REPEAT_BACK]             = "REPEAT_BACK",
    [GGML_OP_CONCAT]                  = "CONCAT",
    [GGML_OP_SILU_BACK]               = "SILU_BACK",
    [GGML_OP_NORM]                    = "NORM",
    [GGML_OP_RMS_NORM]                = "RMS_NORM",
    [GGML_OP_RMS_NORM_BACK]           = "RMS_NORM_BACK",
    [GGML_OP_GROUP_NORM]              = "GROUP_NORM",
    [GGML_OP_L2_NORM]                 = "L2_NORM",
    [GGML_OP_MUL_MAT]                 = "MUL_MAT",
    [GGML_OP_MUL_MAT_ID]              = "MUL_MAT_ID",
    [GGML_OP_OUT_PROD]                = "OUT_PROD",
    [GGML_OP_SCALE]                   = "SCALE",
    [GGML_OP_SET]                     = "SET",
    [GGML_OP_CPY]                     = "CPY",
    [GGML_OP_CONT]                    = "CONT",
    [GGML_OP_RESHAPE]                 = "RESHAPE",
    [GGML_OP_VIEW]                    = "VIEW",
    [GGML_OP_PERMUTE]                 = "PERMUTE",
    [GGML_OP_TRANSPOSE]               = "TRANSPOSE",
    [GGML_OP_GET_ROWS]                = "GET_ROWS",
    [GGML_OP_GET_ROWS_BACK]           = "GET_ROWS_BACK",
    [GGML_OP_SET_ROWS]                = "SET_ROWS",
    [GGML_OP_DIAG]                    = "DIAG",
    [GGML_OP_DIAG_MASK_INF]           = "DIAG_MASK_INF",
    [GGML_OP_DIAG_MASK_ZERO]          = "DIAG_MASK_ZERO",
    [GGML_OP_SOFT_MAX]                = "SOFT_MAX",
    [GGML_OP_SOFT_MAX_BACK]           = "SOFT_MAX_BACK",
    [GGML_OP_ROPE]                    = "ROPE",
    [GGML_OP_ROPE_BACK]               = "ROPE_BACK",
    [GGML_OP_CLAMP]                   = "CLAMP",
    [GGML_OP_CONV_TRANSPOSE_1D]       = "CONV_TRANSPOSE_1D",
    [GGML_OP_IM2COL]                  = "IM2COL",
    [GGML_OP_IM2COL_BACK]             = "IM2COL_BACK",
    [GGML_OP_IM2COL_3D]               = "IM2COL_3D",
    [GGML_OP_COL2IM_1D]               = "COL2IM_1D",
    [GGML_OP_CONV_2D]                 = "CONV_2D",
    [GGML_OP_CONV_3D]                 = "CONV_3D",
    [GGML_OP_CONV_2D_DW]              = "CONV_2D_DW",
    [GGML_OP_CONV_TRANSPOSE_2D]       = "CONV_TRANSPOSE_2D",
    [GGML_OP_POOL_1D]                 = "POOL_1D",
    [GGML_OP_POOL_2D]                 = "POOL_2D",
    [GGML_OP_POOL_2D_BACK]            = "POOL_2D_BACK",
    [GGML_OP_UPSCALE]                 = "UPSCALE",
    [GGML_OP_PAD]                     = "PAD",
    [GGML_OP_PAD_REFLECT_1D]          = "PAD_REFLECT_1D",
    [GGML_OP_ROLL]                    = "ROLL",
    [GGML_OP_ARANGE]                  = "ARANGE",
    [GGML_OP_TIMESTEP_EMBEDDING]      = "TIMESTEP_EMBEDDING",
    [GGML_OP_ARGSORT]                 = "ARGSORT",
    [GGML_OP_TOP_K]                   = "TOP_K",
    [GGML_OP_LEAKY_RELU]              = "LEAKY_RELU",
    [GGML_OP_TRI]                     = "TRI",
    [GGML_OP_FILL]                    = "FILL",
    [GGML_OP_FLASH_ATTN_EXT]          = "FLASH_ATTN_EXT",
    [GGML_OP_FLASH_ATTN_BACK]         = "FLASH_ATTN_BACK",
    [GGML_OP_SSM_CONV]                = "SSM_CONV",
    [GGML_OP_SSM_SCAN]                = "SSM_SCAN",
    [GGML_OP_WIN_PART]                = "WIN_PART",
    [GGML_OP_WIN_UNPART]              = "WIN_UNPART",
    [GGML_OP_GET_REL_POS]             = "GET_REL_POS",
    [GGML_OP_ADD_REL_POS]             = "ADD_REL_POS",
    [GGML_OP_RWKV_WKV6]               = "RWKV_WKV6",
    [GGML_OP_GATED_LINEAR_ATTN]       = "GATED_LINEAR_ATTN",
    [GGML_OP_RWKV_WKV7]               = "RWKV_WKV7",
    [GGML_OP_SOLVE_TRI]               = "SOLVE_TRI",
    [GGML_OP_GATED_DELTA_NET]         = "GATED_DELTA_NET",
    [GGML_OP_LIGHTNING_INDEXER]       = "LIGHTNING_INDEXER",
    [GGML_OP_DSV4_HC_COMB]            = "DSV4_HC_COMB",
    [GGML_OP_DSV4_HC_PRE]             = "DSV4_HC_PRE",
    [GGML_OP_DSV4_HC_POST]            = "DSV4_HC_POST",
    [GGML_OP_UNARY]                   = "UNARY",
    [GGML_OP_MAP_CUSTOM1]             = "MAP_CUSTOM1",
    [GGML_OP_MAP_CUSTOM2]             = "MAP_CUSTOM2",
    [GGML_OP_MAP_CUSTOM3]             = "MAP_CUSTOM3",
    [GGML_OP_CUSTOM]                  = "CUSTOM",
    [GGML_OP_CROSS_ENTROPY_LOSS]      = "CROSS_ENTROPY_LOSS",
    [GGML_OP_CROSS_ENTROPY_LOSS_BACK] = "CROSS_ENTROPY_LOSS_BACK",
    [GGML_OP_OPT_STEP_ADAMW]          = "OPT_STEP_ADAMW",
    [GGML_OP_OPT_STEP_SGD]            = "OPT_STEP_SGD",
    [GGML_OP_GLU]                     = "GLU",
};

_Static_assert(GGML_OP_COUNT == 101, "GGML_OP_COUNT changed: update OP_NAMES and OP_SYMBOLS");

// Symbols used when printing graphs (the SET and CPY arrows are escaped for Graphviz labels).
static const char * const OP_SYMBOLS[GGML_OP_COUNT] = {
    [GGML_OP_NONE]                    = "none",
    [GGML_OP_DUP]                     = "x",
    [GGML_OP_ADD]                     = "x+y",
    [GGML_OP_ADD_ID]                  = "x[i]+y",
    [GGML_OP_ADD1]                    = "x+y",
    [GGML_OP_ACC]                     = "view(x,nb,offset)+=y->x",
    [GGML_OP_SUB]                     = "x-y",
    [GGML_OP_MUL]                     = "x*y",
    [GGML_OP_DIV]                     = "x/y",
    [GGML_OP_SQR]                     = "x^2",
    [GGML_OP_SQRT]                    = "\xe2\x88\x9a" "x",       // square root sign
    [GGML_OP_LOG]                     = "log(x)",
    [GGML_OP_SIN]                     = "sin(x)",
    [GGML_OP_COS]                     = "cos(x)",
    [GGML_OP_SUM]                     = "\xce\xa3" "x",           // capital sigma
    [GGML_OP_SUM_ROWS]                = "\xce\xa3" "x_k",
    [GGML_OP_CUMSUM]                  = "cumsum(x)",
    [GGML_OP_MEAN]                    = "\xce\xa3" "x/n",
    [GGML_OP_ARGMAX]                  = "argmax(x)",
    [GGML_OP_COUNT_EQUAL]             = "count_equal(x)",
    [GGML_OP_REPEAT]                  = "repeat(x)",
    [GGML_OP_REPEAT_BACK]             = "repeat_back(x)",
    [GGML_OP_CONCAT]                  = "concat(x, y)",
    [GGML_OP_SILU_BACK]               = "silu_back(x)",
    [GGML_OP_NORM]                    = "norm(x)",
    [GGML_OP_RMS_NORM]                = "rms_norm(x)",
    [GGML_OP_RMS_NORM_BACK]           = "rms_norm_back(x)",
    [GGML_OP_GROUP_NORM]              = "group_norm(x)",
    [GGML_OP_L2_NORM]                 = "l2_norm(x)",
    [GGML_OP_MUL_MAT]                 = "X*Y",
    [GGML_OP_MUL_MAT_ID]              = "X[i]*Y",
    [GGML_OP_OUT_PROD]                = "X*Y",
    [GGML_OP_SCALE]                   = "x*v",
    [GGML_OP_SET]                     = "y-\\>view(x)",
    [GGML_OP_CPY]                     = "x-\\>y",
    [GGML_OP_CONT]                    = "cont(x)",
    [GGML_OP_RESHAPE]                 = "reshape(x)",
    [GGML_OP_VIEW]                    = "view(x)",
    [GGML_OP_PERMUTE]                 = "permute(x)",
    [GGML_OP_TRANSPOSE]               = "transpose(x)",
    [GGML_OP_GET_ROWS]                = "get_rows(x)",
    [GGML_OP_GET_ROWS_BACK]           = "get_rows_back(x)",
    [GGML_OP_SET_ROWS]                = "set_rows(x)",
    [GGML_OP_DIAG]                    = "diag(x)",
    [GGML_OP_DIAG_MASK_INF]           = "diag_mask_inf(x)",
    [GGML_OP_DIAG_MASK_ZERO]          = "diag_mask_zero(x)",
    [GGML_OP_SOFT_MAX]                = "soft_max(x)",
    [GGML_OP_SOFT_MAX_BACK]           = "soft_max_back(x)",
    [GGML_OP_ROPE]                    = "rope(x)",
    [GGML_OP_ROPE_BACK]               = "rope_back(x)",
    [GGML_OP_CLAMP]                   = "clamp(x)",
    [GGML_OP_CONV_TRANSPOSE_1D]       = "conv_transpose_1d(x)",
    [GGML_OP_IM2COL]                  = "im2col(x)",
    [GGML_OP_IM2COL_BACK]             = "im2col_back(x)",
    [GGML_OP_IM2COL_3D]               = "im2col_3d(x)",
    [GGML_OP_COL2IM_1D]               = "col2im_1d(x)",
    [GGML_OP_CONV_2D]                 = "conv_2d(x)",
    [GGML_OP_CONV_3D]                 = "conv_3d(x)",
    [GGML_OP_CONV_2D_DW]              = "conv_2d_dw(x)",
    [GGML_OP_CONV_TRANSPOSE_2D]       = "conv_transpose_2d(x)",
    [GGML_OP_POOL_1D]                 = "pool_1d(x)",
    [GGML_OP_POOL_2D]                 = "pool_2d(x)",
    [GGML_OP_POOL_2D_BACK]            = "pool_2d_back(x)",
    [GGML_OP_UPSCALE]                 = "upscale(x)",
    [GGML_OP_PAD]                     = "pad(x)",
    [GGML_OP_PAD_REFLECT_1D]          = "pad_reflect_1d(x)",
    [GGML_OP_ROLL]                    = "roll(x)",
    [GGML_OP_ARANGE]                  = "arange(start, stop, step)",
    [GGML_OP_TIMESTEP_EMBEDDING]      = "timestep_embedding(timesteps, dim, max_period)",
    [GGML_OP_ARGSORT]                 = "argsort(x)",
    [GGML_OP_TOP_K]                   = "top_k(x)",
    [GGML_OP_LEAKY_RELU]              = "leaky_relu(x)",
    [GGML_OP_TRI]                     = "tri(x)",
    [GGML_OP_FILL]                    = "fill(x, c)",
    [GGML_OP_FLASH_ATTN_EXT]          = "flash_attn_ext(x)",
    [GGML_OP_FLASH_ATTN_BACK]         = "flash_attn_back(x)",
    [GGML_OP_SSM_CONV]                = "ssm_conv(x)",
    [GGML_OP_SSM_SCAN]                = "ssm_scan(x)",
    [GGML_OP_WIN_PART]                = "win_part(x)",
    [GGML_OP_WIN_UNPART]              = "win_unpart(x)",
    [GGML_OP_GET_REL_POS]             = "get_rel_pos(x)",
    [GGML_OP_ADD_REL_POS]             = "add_rel_pos(x)",
    [GGML_OP_RWKV_WKV6]               = "rwkv_wkv6(k, v, r, tf, td, s)",
    [GGML_OP_GATED_LINEAR_ATTN]       = "gated_linear_attn(k, v, q, gate, s)",
    [GGML_OP_RWKV_WKV7]               = "rwkv_wkv7(r, w, k, v, a, b, s)",
    [GGML_OP_SOLVE_TRI]               = "A X = B, A triangular, solve X",
    [GGML_OP_GATED_DELTA_NET]         = "gated_delta_net(q, k, v, g, beta, s)",
    [GGML_OP_LIGHTNING_INDEXER]       = "lightning_indexer(q, k, weights, mask)",
    [GGML_OP_DSV4_HC_COMB]            = "dsv4_hc_comb(mixes, scale, base)",
    [GGML_OP_DSV4_HC_PRE]             = "dsv4_hc_pre(x, weights)",
    [GGML_OP_DSV4_HC_POST]            = "dsv4_hc_post(x, residual, post, comb)",
    [GGML_OP_UNARY]                   = "unary(x)",
    [GGML_OP_MAP_CUSTOM1]             = "map_custom(x)",
    [GGML_OP_MAP_CUSTOM2]             = "map_custom(x,y)",
    [GGML_OP_MAP_CUSTOM3]             = "map_custom(x,y,z)",
    [GGML_OP_CUSTOM]                  = "custom(x)",
    [GGML_OP_CROSS_ENTROPY_LOSS]      = "cross_entropy_loss(x,y)",
    [GGML_OP_CROSS_ENTROPY_LOSS_BACK] = "cross_entropy_loss_back(x,y)",
    [GGML_OP_OPT_STEP_ADAMW]          = "adamw(x)",
    [GGML_OP_OPT_STEP_SGD]            = "sgd(x)",
    [GGML_OP_GLU]                     = "glu(x)",
};

static const char * const UNARY_OP_NAMES[GGML_UNARY_OP_COUNT] = {
    [GGML_UNARY_OP_ABS]         = "ABS",
    [GGML_UNARY_OP_SGN]         = "SGN",
    [GGML_UNARY_OP_NEG]         = "NEG",
    [GGML_UNARY_OP_STEP]        = "STEP",
    [GGML_UNARY_OP_TANH]        = "TANH",
    [GGML_UNARY_OP_ELU]         = "ELU",
    [GGML_UNARY_OP_RELU]        = "RELU",
    [GGML_UNARY_OP_SIGMOID]     = "SIGMOID",
    [GGML_UNARY_OP_GELU]        = "GELU",
    [GGML_UNARY_OP_GELU_QUICK]  = "GELU_QUICK",
    [GGML_UNARY_OP_SILU]        = "SILU",
    [GGML_UNARY_OP_HARDSWISH]   = "HARDSWISH",
    [GGML_UNARY_OP_HARDSIGMOID] = "HARDSIGMOID",
    [GGML_UNARY_OP_EXP]         = "EXP",
    [GGML_UNARY_OP_EXPM1]       = "EXPM1",
    [GGML_UNARY_OP_SOFTPLUS]    = "SOFTPLUS",
    [GGML_UNARY_OP_GELU_ERF]    = "GELU_ERF",
    [GGML_UNARY_OP_XIELU]       = "XIELU",
    [GGML_UNARY_OP_FLOOR]       = "FLOOR",
    [GGML_UNARY_OP_CEIL]        = "CEIL",
    [GGML_UNARY_OP_ROUND]       = "ROUND",
    [GGML_UNARY_OP_TRUNC]       = "TRUNC",
};

_Static_assert(GGML_UNARY_OP_COUNT == 22, "GGML_UNARY_OP_COUNT changed: update UNARY_OP_NAMES");

static const char * const GLU_OP_NAMES[GGML_GLU_OP_COUNT] = {
    [GGML_GLU_OP_REGLU]       = "REGLU",
    [GGML_GLU_OP_GEGLU]       = "GEGLU",
    [GGML_GLU_OP_SWIGLU]      = "SWIGLU",
    [GGML_GLU_OP_SWIGLU_OAI]  = "SWIGLU_OAI",
    [GGML_GLU_OP_GEGLU_ERF]   = "GEGLU_ERF",
    [GGML_GLU_OP_GEGLU_QUICK] = "GEGLU_QUICK",
};

_Static_assert(GGML_GLU_OP_COUNT == 6, "GGML_GLU_OP_COUNT changed: update GLU_OP_NAMES");

// enums may be signed or unsigned: compare as int against both ends
#define OPS_IN_RANGE(v, count) ((int) (v) >= 0 && (int) (v) < (int) (count))

const char * ggml_op_name(enum ggml_op op) {
    if (!OPS_IN_RANGE(op, GGML_OP_COUNT) || OP_NAMES[op] == NULL) {
        return "(invalid op)";
    }
    return OP_NAMES[op];
}

const char * ggml_op_symbol(enum ggml_op op) {
    if (!OPS_IN_RANGE(op, GGML_OP_COUNT) || OP_SYMBOLS[op] == NULL) {
        return "(invalid op)";
    }
    return OP_SYMBOLS[op];
}

const char * ggml_unary_op_name(enum ggml_unary_op op) {
    if (!OPS_IN_RANGE(op, GGML_UNARY_OP_COUNT) || UNARY_OP_NAMES[op] == NULL) {
        return "(invalid unary op)";
    }
    return UNARY_OP_NAMES[op];
}

const char * ggml_glu_op_name(enum ggml_glu_op op) {
    if (!OPS_IN_RANGE(op, GGML_GLU_OP_COUNT) || GLU_OP_NAMES[op] == NULL) {
        return "(invalid glu op)";
    }
    return GLU_OP_NAMES[op];
}

const char * ggml_op_desc(const struct ggml_tensor * t) {
    if (t == NULL) {
        return "(null)";
    }
    if (t->op == GGML_OP_UNARY) {
        return ggml_unary_op_name((enum ggml_unary_op) ggml_get_op_params_i32(t, 0));
    }
    if (t->op == GGML_OP_GLU) {
        return ggml_glu_op_name((enum ggml_glu_op) ggml_get_op_params_i32(t, 0));
    }
    return ggml_op_name(t->op);
}

// Not a UNARY node: logs and returns GGML_UNARY_OP_COUNT (which names no unary op).
enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: argument 'tensor' is NULL\n", __func__);
        return GGML_UNARY_OP_COUNT;
    }
    if (tensor->op != GGML_OP_UNARY) {
        GGML_LOG_ERROR("%s: tensor '%s' has op %s, not UNARY\n", __func__, tensor->name, ggml_op_name(tensor->op));
        return GGML_UNARY_OP_COUNT;
    }
    return (enum ggml_unary_op) ggml_get_op_params_i32(tensor, 0);
}

// Not a GLU node: logs and returns GGML_GLU_OP_COUNT (which names no GLU op).
enum ggml_glu_op ggml_get_glu_op(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: argument 'tensor' is NULL\n", __func__);
        return GGML_GLU_OP_COUNT;
    }
    if (tensor->op != GGML_OP_GLU) {
        GGML_LOG_ERROR("%s: tensor '%s' has op %s, not GLU\n", __func__, tensor->name, ggml_op_name(tensor->op));
        return GGML_GLU_OP_COUNT;
    }
    return (enum ggml_glu_op) ggml_get_op_params_i32(tensor, 0);
}
