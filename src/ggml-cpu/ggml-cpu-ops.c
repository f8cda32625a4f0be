// Op dispatch of the CPU backend: which family computes each op, and the four entry points the
// planner and the executor call for any node. Also the custom ops (CUSTOM, MAP_CUSTOM1..3),
// which call a user function and belong to no kernel family.

#include "ggml-cpu-impl.h"

#include <stdio.h>
#include <string.h>

//
// op -> family
//

// unlisted ops are 0 = GGML_CPU_FAMILY_UNSUPPORTED
static const unsigned char op_family[GGML_OP_COUNT] = {
    [GGML_OP_NONE]           = GGML_CPU_FAMILY_NONE,
    [GGML_OP_RESHAPE]        = GGML_CPU_FAMILY_NONE,
    [GGML_OP_VIEW]           = GGML_CPU_FAMILY_NONE,
    [GGML_OP_PERMUTE]        = GGML_CPU_FAMILY_NONE,
    [GGML_OP_TRANSPOSE]      = GGML_CPU_FAMILY_NONE,

    [GGML_OP_UNARY]          = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_GLU]            = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_LEAKY_RELU]     = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_CLAMP]          = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_SCALE]          = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_SQR]            = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_SQRT]           = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_LOG]            = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_SIN]            = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_COS]            = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_ARANGE]         = GGML_CPU_FAMILY_UNARY,
    [GGML_OP_FILL]           = GGML_CPU_FAMILY_UNARY,

    [GGML_OP_ADD]            = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_SUB]            = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_MUL]            = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_DIV]            = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_ADD1]           = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_ACC]            = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_SET]            = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_REPEAT]         = GGML_CPU_FAMILY_BINARY,
    [GGML_OP_CONCAT]         = GGML_CPU_FAMILY_BINARY,

    [GGML_OP_DUP]            = GGML_CPU_FAMILY_COPY,
    [GGML_OP_CPY]            = GGML_CPU_FAMILY_COPY,
    [GGML_OP_CONT]           = GGML_CPU_FAMILY_COPY,
    [GGML_OP_GET_ROWS]       = GGML_CPU_FAMILY_COPY,
    [GGML_OP_SET_ROWS]       = GGML_CPU_FAMILY_COPY,
    [GGML_OP_PAD]            = GGML_CPU_FAMILY_COPY,

    [GGML_OP_SUM]            = GGML_CPU_FAMILY_REDUCE,
    [GGML_OP_SUM_ROWS]       = GGML_CPU_FAMILY_REDUCE,
    [GGML_OP_MEAN]           = GGML_CPU_FAMILY_REDUCE,
    [GGML_OP_ARGMAX]         = GGML_CPU_FAMILY_REDUCE,
    [GGML_OP_ARGSORT]        = GGML_CPU_FAMILY_REDUCE,
    [GGML_OP_TOP_K]          = GGML_CPU_FAMILY_REDUCE,

    [GGML_OP_NORM]           = GGML_CPU_FAMILY_NORM,
    [GGML_OP_RMS_NORM]       = GGML_CPU_FAMILY_NORM,
    [GGML_OP_L2_NORM]        = GGML_CPU_FAMILY_NORM,
    [GGML_OP_GROUP_NORM]     = GGML_CPU_FAMILY_NORM,
    [GGML_OP_SOFT_MAX]       = GGML_CPU_FAMILY_NORM,
    [GGML_OP_DIAG_MASK_INF]  = GGML_CPU_FAMILY_NORM,
    [GGML_OP_DIAG_MASK_ZERO] = GGML_CPU_FAMILY_NORM,

    [GGML_OP_ROPE]           = GGML_CPU_FAMILY_ROPE,
    [GGML_OP_ROPE_BACK]      = GGML_CPU_FAMILY_ROPE,

    [GGML_OP_MUL_MAT]        = GGML_CPU_FAMILY_MATMUL,
    [GGML_OP_OUT_PROD]       = GGML_CPU_FAMILY_MATMUL,

    [GGML_OP_IM2COL]         = GGML_CPU_FAMILY_CONV,
    [GGML_OP_CONV_2D]        = GGML_CPU_FAMILY_CONV,
    [GGML_OP_POOL_2D]        = GGML_CPU_FAMILY_CONV,
    [GGML_OP_IM2COL_3D]         = GGML_CPU_FAMILY_CONV, // these five: cpu-ops-conv2.c
    [GGML_OP_CONV_3D]           = GGML_CPU_FAMILY_CONV,
    [GGML_OP_CONV_2D_DW]        = GGML_CPU_FAMILY_CONV,
    [GGML_OP_CONV_TRANSPOSE_1D] = GGML_CPU_FAMILY_CONV,
    [GGML_OP_CONV_TRANSPOSE_2D] = GGML_CPU_FAMILY_CONV,

    [GGML_OP_FLASH_ATTN_EXT] = GGML_CPU_FAMILY_ATTN,

    [GGML_OP_MUL_MAT_ID]     = GGML_CPU_FAMILY_MOE,
    [GGML_OP_ADD_ID]         = GGML_CPU_FAMILY_MOE,
    [GGML_OP_CUMSUM]             = GGML_CPU_FAMILY_MISC,
    [GGML_OP_TRI]                = GGML_CPU_FAMILY_MISC,
    [GGML_OP_DIAG]               = GGML_CPU_FAMILY_MISC,
    [GGML_OP_ROLL]               = GGML_CPU_FAMILY_MISC,
    [GGML_OP_PAD_REFLECT_1D]     = GGML_CPU_FAMILY_MISC,
    [GGML_OP_TIMESTEP_EMBEDDING] = GGML_CPU_FAMILY_MISC,
    [GGML_OP_POOL_1D]            = GGML_CPU_FAMILY_MISC,
    [GGML_OP_REPEAT_BACK]             = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_SILU_BACK]               = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_RMS_NORM_BACK]           = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_GET_ROWS_BACK]           = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_SOFT_MAX_BACK]           = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_COUNT_EQUAL]             = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_POOL_2D_BACK]            = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_CROSS_ENTROPY_LOSS]      = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_CROSS_ENTROPY_LOSS_BACK] = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_OPT_STEP_ADAMW]          = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_OPT_STEP_SGD]            = GGML_CPU_FAMILY_BACKWARD,
    [GGML_OP_SSM_CONV]                = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_SSM_SCAN]                = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_RWKV_WKV6]               = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_GATED_LINEAR_ATTN]       = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_RWKV_WKV7]               = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_SOLVE_TRI]               = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_GATED_DELTA_NET]         = GGML_CPU_FAMILY_SEQ,
    [GGML_OP_UPSCALE]                 = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_WIN_PART]                = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_WIN_UNPART]              = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_GET_REL_POS]             = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_ADD_REL_POS]             = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_COL2IM_1D]               = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_IM2COL_BACK]             = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_FLASH_ATTN_BACK]         = GGML_CPU_FAMILY_SHAPE2,
    [GGML_OP_LIGHTNING_INDEXER]       = GGML_CPU_FAMILY_DSV4,
    [GGML_OP_DSV4_HC_COMB]            = GGML_CPU_FAMILY_DSV4,
    [GGML_OP_DSV4_HC_PRE]             = GGML_CPU_FAMILY_DSV4,
    [GGML_OP_DSV4_HC_POST]            = GGML_CPU_FAMILY_DSV4,

    [GGML_OP_MAP_CUSTOM1]    = GGML_CPU_FAMILY_CUSTOM,
    [GGML_OP_MAP_CUSTOM2]    = GGML_CPU_FAMILY_CUSTOM,
    [GGML_OP_MAP_CUSTOM3]    = GGML_CPU_FAMILY_CUSTOM,
    [GGML_OP_CUSTOM]         = GGML_CPU_FAMILY_CUSTOM,
};

enum ggml_cpu_family ggml_cpu_op_family(enum ggml_op op) {
    if ((int) op < 0 || op >= GGML_OP_COUNT) {
        return GGML_CPU_FAMILY_UNSUPPORTED;
    }
    return (enum ggml_cpu_family) op_family[op];
}

//
// custom ops
//

static struct ggml_custom_op_params custom_params(const struct ggml_tensor * op) {
    struct ggml_custom_op_params p;
    memcpy(&p, op->op_params, sizeof(p));
    return p;
}

static bool custom_supports(const struct ggml_tensor * op) {
    const struct ggml_custom_op_params p = custom_params(op);
    if (p.fun == NULL) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_MAP_CUSTOM3: if (op->src[2] == NULL) return false; // fall through
        case GGML_OP_MAP_CUSTOM2: if (op->src[1] == NULL) return false; // fall through
        case GGML_OP_MAP_CUSTOM1: return op->src[0] != NULL;
        case GGML_OP_CUSTOM:      return true;
        default:                  return false;
    }
}

static int custom_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const struct ggml_custom_op_params p = custom_params(op);
    if (p.n_tasks == GGML_N_TASKS_MAX || p.n_tasks <= 0) {
        return n_threads;
    }
    return p.n_tasks < n_threads ? p.n_tasks : n_threads;
}

static enum ggml_status custom_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_custom_op_params p = custom_params(op);
    const int ith = params->ith;
    const int nth = params->nth;
    // the stored pointer has the type of its op's callback; converting it back is well defined
    switch (op->op) {
        case GGML_OP_MAP_CUSTOM1:
            ((ggml_cpu_custom1_fn) p.fun)(op, op->src[0], ith, nth, p.userdata);
            break;
        case GGML_OP_MAP_CUSTOM2:
            ((ggml_cpu_custom2_fn) p.fun)(op, op->src[0], op->src[1], ith, nth, p.userdata);
            break;
        case GGML_OP_MAP_CUSTOM3:
            ((ggml_cpu_custom3_fn) p.fun)(op, op->src[0], op->src[1], op->src[2], ith, nth, p.userdata);
            break;
        case GGML_OP_CUSTOM:
            ((ggml_cpu_custom_fn) p.fun)(op, ith, nth, p.userdata);
            break;
        default:
            return GGML_STATUS_FAILED;
    }
    return GGML_STATUS_SUCCESS;
}

//
// dispatch
//

bool ggml_cpu_op_is_noop(const struct ggml_tensor * op) {
    return ggml_cpu_op_family(op->op) == GGML_CPU_FAMILY_NONE;
}

bool ggml_cpu_op_supports(const struct ggml_tensor * op) {
    if (op == NULL) {
        return false;
    }
    switch (ggml_cpu_op_family(op->op)) {
        case GGML_CPU_FAMILY_NONE:   return true;
        case GGML_CPU_FAMILY_UNARY:  return ggml_cpu_unary_supports(op);
        case GGML_CPU_FAMILY_BINARY: return ggml_cpu_binary_supports(op);
        case GGML_CPU_FAMILY_COPY:   return ggml_cpu_copy_supports(op);
        case GGML_CPU_FAMILY_REDUCE: return ggml_cpu_reduce_supports(op);
        case GGML_CPU_FAMILY_NORM:   return ggml_cpu_norm_supports(op);
        case GGML_CPU_FAMILY_ROPE:   return ggml_cpu_rope_supports(op);
        case GGML_CPU_FAMILY_MATMUL: return ggml_cpu_matmul_supports(op);
        case GGML_CPU_FAMILY_CONV:   return ggml_cpu_conv_supports(op);
        case GGML_CPU_FAMILY_ATTN:   return ggml_cpu_attn_supports(op);
        case GGML_CPU_FAMILY_MOE:    return ggml_cpu_moe_supports(op);
        case GGML_CPU_FAMILY_MISC:   return ggml_cpu_misc_supports(op);
        case GGML_CPU_FAMILY_CUSTOM: return custom_supports(op);
        case GGML_CPU_FAMILY_BACKWARD: return ggml_cpu_backward_supports(op);
        case GGML_CPU_FAMILY_SEQ:    return ggml_cpu_seq_supports(op);
        case GGML_CPU_FAMILY_SHAPE2: return ggml_cpu_shape2_supports(op);
        case GGML_CPU_FAMILY_DSV4:     return ggml_cpu_dsv4_supports(op);
        default:                     return false;
    }
}

size_t ggml_cpu_op_work_size(const struct ggml_tensor * op, int n_threads) {
    switch (ggml_cpu_op_family(op->op)) {
        case GGML_CPU_FAMILY_UNARY:  return ggml_cpu_unary_work_size(op, n_threads);
        case GGML_CPU_FAMILY_BINARY: return ggml_cpu_binary_work_size(op, n_threads);
        case GGML_CPU_FAMILY_COPY:   return ggml_cpu_copy_work_size(op, n_threads);
        case GGML_CPU_FAMILY_REDUCE: return ggml_cpu_reduce_work_size(op, n_threads);
        case GGML_CPU_FAMILY_NORM:   return ggml_cpu_norm_work_size(op, n_threads);
        case GGML_CPU_FAMILY_ROPE:   return ggml_cpu_rope_work_size(op, n_threads);
        case GGML_CPU_FAMILY_MATMUL: return ggml_cpu_matmul_work_size(op, n_threads);
        case GGML_CPU_FAMILY_CONV:   return ggml_cpu_conv_work_size(op, n_threads);
        case GGML_CPU_FAMILY_ATTN:   return ggml_cpu_attn_work_size(op, n_threads);
        case GGML_CPU_FAMILY_MOE:    return ggml_cpu_moe_work_size(op, n_threads);
        case GGML_CPU_FAMILY_MISC:   return ggml_cpu_misc_work_size(op, n_threads);
        case GGML_CPU_FAMILY_BACKWARD: return ggml_cpu_backward_work_size(op, n_threads);
        case GGML_CPU_FAMILY_SEQ:    return ggml_cpu_seq_work_size(op, n_threads);
        case GGML_CPU_FAMILY_SHAPE2: return ggml_cpu_shape2_work_size(op, n_threads);
        case GGML_CPU_FAMILY_DSV4:     return ggml_cpu_dsv4_work_size(op, n_threads);
        default:                     return 0;
    }
}

int ggml_cpu_op_n_tasks(const struct ggml_tensor * op, int n_threads) {
    int n;
    switch (ggml_cpu_op_family(op->op)) {
        case GGML_CPU_FAMILY_UNARY:  n = ggml_cpu_unary_n_tasks(op, n_threads);  break;
        case GGML_CPU_FAMILY_BINARY: n = ggml_cpu_binary_n_tasks(op, n_threads); break;
        case GGML_CPU_FAMILY_COPY:   n = ggml_cpu_copy_n_tasks(op, n_threads);   break;
        case GGML_CPU_FAMILY_REDUCE: n = ggml_cpu_reduce_n_tasks(op, n_threads); break;
        case GGML_CPU_FAMILY_NORM:   n = ggml_cpu_norm_n_tasks(op, n_threads);   break;
        case GGML_CPU_FAMILY_ROPE:   n = ggml_cpu_rope_n_tasks(op, n_threads);   break;
        case GGML_CPU_FAMILY_MATMUL: n = ggml_cpu_matmul_n_tasks(op, n_threads); break;
        case GGML_CPU_FAMILY_CONV:   n = ggml_cpu_conv_n_tasks(op, n_threads);   break;
        case GGML_CPU_FAMILY_ATTN:   n = ggml_cpu_attn_n_tasks(op, n_threads);   break;
        case GGML_CPU_FAMILY_MOE:    n = ggml_cpu_moe_n_tasks(op, n_threads);    break;
        case GGML_CPU_FAMILY_MISC:   n = ggml_cpu_misc_n_tasks(op, n_threads);   break;
        case GGML_CPU_FAMILY_CUSTOM: n = custom_n_tasks(op, n_threads);          break;
        case GGML_CPU_FAMILY_BACKWARD: n = ggml_cpu_backward_n_tasks(op, n_threads); break;
        case GGML_CPU_FAMILY_SEQ:    n = ggml_cpu_seq_n_tasks(op, n_threads);    break;
        case GGML_CPU_FAMILY_SHAPE2: n = ggml_cpu_shape2_n_tasks(op, n_threads); break;
        case GGML_CPU_FAMILY_DSV4:     n = ggml_cpu_dsv4_n_tasks(op, n_threads);     break;
        default:                     n = 1;                                      break;
    }
    if (n > n_threads) {
        n = n_threads;
    }
    return n < 1 ? 1 : n;
}

enum ggml_status ggml_cpu_op_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    switch (ggml_cpu_op_family(op->op)) {
        case GGML_CPU_FAMILY_NONE:   return GGML_STATUS_SUCCESS;
        case GGML_CPU_FAMILY_UNARY:  return ggml_cpu_unary_forward(params, op);
        case GGML_CPU_FAMILY_BINARY: return ggml_cpu_binary_forward(params, op);
        case GGML_CPU_FAMILY_COPY:   return ggml_cpu_copy_forward(params, op);
        case GGML_CPU_FAMILY_REDUCE: return ggml_cpu_reduce_forward(params, op);
        case GGML_CPU_FAMILY_NORM:   return ggml_cpu_norm_forward(params, op);
        case GGML_CPU_FAMILY_ROPE:   return ggml_cpu_rope_forward(params, op);
        case GGML_CPU_FAMILY_MATMUL: return ggml_cpu_matmul_forward(params, op);
        case GGML_CPU_FAMILY_CONV:   return ggml_cpu_conv_forward(params, op);
        case GGML_CPU_FAMILY_ATTN:   return ggml_cpu_attn_forward(params, op);
        case GGML_CPU_FAMILY_MOE:    return ggml_cpu_moe_forward(params, op);
        case GGML_CPU_FAMILY_MISC:   return ggml_cpu_misc_forward(params, op);
        case GGML_CPU_FAMILY_CUSTOM: return custom_forward(params, op);
        case GGML_CPU_FAMILY_BACKWARD: return ggml_cpu_backward_forward(params, op);
        case GGML_CPU_FAMILY_SEQ:    return ggml_cpu_seq_forward(params, op);
        case GGML_CPU_FAMILY_SHAPE2: return ggml_cpu_shape2_forward(params, op);
        case GGML_CPU_FAMILY_DSV4:     return ggml_cpu_dsv4_forward(params, op);
        default:
            if (params->ith == 0) {
                ggml_cpu_log_unsupported(__func__, -1, op);
            }
            return GGML_STATUS_FAILED;
    }
}

//
// diagnostics
//

static void describe_tensor(char * buf, size_t size, const char * label, const struct ggml_tensor * t) {
    snprintf(buf, size, "%s %s [%lld, %lld, %lld, %lld]%s", label, ggml_type_name(t->type),
            (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3],
            ggml_is_contiguous(t) ? "" : " (non-contiguous)");
}

void ggml_cpu_log_unsupported(const char * func, int i, const struct ggml_tensor * node) {
    char line[1024];
    char part[192];
    size_t len = 0;

    describe_tensor(part, sizeof(part), "dst", node);
    len += (size_t) snprintf(line + len, sizeof(line) - len, "%s", part);
    for (int s = 0; s < GGML_MAX_SRC && len < sizeof(line); s++) {
        if (node->src[s] == NULL) {
            continue;
        }
        char label[16];
        snprintf(label, sizeof(label), "src%d", s);
        describe_tensor(part, sizeof(part), label, node->src[s]);
        len += (size_t) snprintf(line + len, sizeof(line) - len, ", %s", part);
    }
    const enum ggml_cpu_family fam = ggml_cpu_op_family(node->op);
    ggml_error_report(GGML_ERROR_UNSUPPORTED, "%s: node %d '%s': op %s is not supported by the CPU backend%s (%s)\n",
            func, i, node->name, ggml_op_desc(node),
            fam == GGML_CPU_FAMILY_UNSUPPORTED ? "" : " for these types/shapes", line);
}
