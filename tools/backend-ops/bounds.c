// backend-ops: default error bounds per op family and type (docs/backend-ops.md lists them).
//
// The reference computes in double and does not round intermediate values, so a bound covers the
// backend's float arithmetic plus the rounding of its result (and, for mixed-precision ops, of
// intermediate values) to the node's type. "Precision" below is the least precise float type
// among the node and its float sources: F32 < F16 < BF16 (quantized types count as BF16).

#include "bops.h"

#include <string.h>

enum bops_family {
    BOPS_FAM_COPY,    // pure data movement: values must be identical after conversion to the node's type
    BOPS_FAM_INDEX,   // integer results
    BOPS_FAM_ELEM,    // element-wise arithmetic and unary functions
    BOPS_FAM_ROW,     // per-row reductions and normalizations (sum, norms, soft_max, rope)
    BOPS_FAM_MATMUL,  // products, convolutions
    BOPS_FAM_ATTN,    // flash attention
};

// bound[family][precision]: precision 0 = F32, 1 = F16, 2 = BF16
static const double bops_bounds[][3] = {
    [BOPS_FAM_COPY]   = { 0.0,  0.0,  0.0  },
    [BOPS_FAM_INDEX]  = { 0.0,  0.0,  0.0  },
    [BOPS_FAM_ELEM]   = { 1e-7, 1e-6, 5e-5 },
    [BOPS_FAM_ROW]    = { 1e-6, 1e-5, 1e-4 },
    [BOPS_FAM_MATMUL] = { 1e-6, 5e-4, 5e-4 },
    [BOPS_FAM_ATTN]   = { 1e-5, 5e-4, 5e-4 },
};

static enum bops_family bops_family_of(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_NONE:
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
        case GGML_OP_SET:
        case GGML_OP_RESHAPE:
        case GGML_OP_VIEW:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
        case GGML_OP_GET_ROWS:
        case GGML_OP_SET_ROWS:
        case GGML_OP_REPEAT:
        case GGML_OP_CONCAT:
        case GGML_OP_PAD:
        case GGML_OP_IM2COL:
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
        case GGML_OP_WIN_PART:
        case GGML_OP_WIN_UNPART:
        case GGML_OP_GET_REL_POS:
            return BOPS_FAM_COPY;
        case GGML_OP_ARGMAX:
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K:
            return BOPS_FAM_INDEX;
        case GGML_OP_SUM:
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
        case GGML_OP_GROUP_NORM:
        case GGML_OP_SOFT_MAX:
        case GGML_OP_ROPE:
            return BOPS_FAM_ROW;
        case GGML_OP_MUL_MAT:
        case GGML_OP_MUL_MAT_ID:
        case GGML_OP_OUT_PROD:
        case GGML_OP_CONV_2D:
            return BOPS_FAM_MATMUL;
        case GGML_OP_FLASH_ATTN_EXT:
            return BOPS_FAM_ATTN;
        default:
            return BOPS_FAM_ELEM;
    }
}

static int bops_precision_rank(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F16:  return 1;
        case GGML_TYPE_BF16: return 2;
        default:
            // quantized weights: the activations are quantized too (Q8_0 / Q8_1 / Q8_K), so the
            // family's bound for quantized products, 5e-4; data movement stays exact (0)
            return (int) type >= 0 && type < GGML_TYPE_COUNT && ggml_is_quantized(type) ? 2 : 0;
    }
}

double bops_default_bound(const struct ggml_tensor * node) {
    int prec = bops_precision_rank(node->type);
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        // masks hold exact input values that nothing needs to round: their type does not count
        const bool is_mask = (node->op == GGML_OP_SOFT_MAX && i == 1) || (node->op == GGML_OP_FLASH_ATTN_EXT && i == 3);
        if (node->src[i] != NULL && !is_mask) {
            const int p = bops_precision_rank(node->src[i]->type);
            prec = p > prec ? p : prec;
        }
    }
    return bops_bounds[bops_family_of(node)][prec];
}

enum bop_cmp bops_default_cmp(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_ARGMAX:  return BOP_CMP_EXACT;
        case GGML_OP_ARGSORT: return BOP_CMP_SORT;
        case GGML_OP_TOP_K:   return BOP_CMP_SORT;
        default:              return BOP_CMP_NMSE;
    }
}
