// Op dispatch of the OpenCL backend: which kernel family computes each op, supports_op, and the
// graph executor (enqueues the kernels of every node in order on the backend's in-order queue and
// returns without waiting; ggml_backend_synchronize waits).

#include "ggml-opencl-impl.h"

#include <string.h>

enum ocl_family {
    OCL_FAMILY_UNSUPPORTED = 0,
    OCL_FAMILY_NONE,     // views: nothing to compute
    OCL_FAMILY_ELTWISE,
    OCL_FAMILY_COPY,
    OCL_FAMILY_REDUCE,
    OCL_FAMILY_SORT,
    OCL_FAMILY_NORM,
    OCL_FAMILY_ROPE,
    OCL_FAMILY_CONV,
    OCL_FAMILY_ATTN,
    OCL_FAMILY_MATMUL,
    OCL_FAMILY_OUTPROD,
    OCL_FAMILY_MISC2,
    OCL_FAMILY_SEQ,
    OCL_FAMILY_COUNT,
};

static const unsigned char op_family[GGML_OP_COUNT] = {
    [GGML_OP_NONE]           = OCL_FAMILY_NONE,
    [GGML_OP_RESHAPE]        = OCL_FAMILY_NONE,
    [GGML_OP_VIEW]           = OCL_FAMILY_NONE,
    [GGML_OP_PERMUTE]        = OCL_FAMILY_NONE,
    [GGML_OP_TRANSPOSE]      = OCL_FAMILY_NONE,

    [GGML_OP_UNARY]          = OCL_FAMILY_ELTWISE,
    [GGML_OP_GLU]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_LEAKY_RELU]     = OCL_FAMILY_ELTWISE,
    [GGML_OP_CLAMP]          = OCL_FAMILY_ELTWISE,
    [GGML_OP_SCALE]          = OCL_FAMILY_ELTWISE,
    [GGML_OP_SQR]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_SQRT]           = OCL_FAMILY_ELTWISE,
    [GGML_OP_LOG]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_SIN]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_COS]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_ARANGE]         = OCL_FAMILY_ELTWISE,
    [GGML_OP_ADD]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_SUB]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_MUL]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_DIV]            = OCL_FAMILY_ELTWISE,
    [GGML_OP_ADD1]           = OCL_FAMILY_ELTWISE,
    [GGML_OP_ADD_ID]         = OCL_FAMILY_ELTWISE,

    [GGML_OP_DUP]            = OCL_FAMILY_COPY,
    [GGML_OP_CPY]            = OCL_FAMILY_COPY,
    [GGML_OP_CONT]           = OCL_FAMILY_COPY,
    [GGML_OP_GET_ROWS]       = OCL_FAMILY_COPY,
    [GGML_OP_SET_ROWS]       = OCL_FAMILY_COPY,
    [GGML_OP_REPEAT]         = OCL_FAMILY_COPY,
    [GGML_OP_CONCAT]         = OCL_FAMILY_COPY,
    [GGML_OP_PAD]            = OCL_FAMILY_COPY,
    [GGML_OP_ACC]            = OCL_FAMILY_COPY,
    [GGML_OP_SET]            = OCL_FAMILY_COPY,
    [GGML_OP_DIAG_MASK_INF]  = OCL_FAMILY_COPY,
    [GGML_OP_DIAG_MASK_ZERO] = OCL_FAMILY_COPY,

    [GGML_OP_SUM]            = OCL_FAMILY_REDUCE,
    [GGML_OP_SUM_ROWS]       = OCL_FAMILY_REDUCE,
    [GGML_OP_MEAN]           = OCL_FAMILY_REDUCE,
    [GGML_OP_ARGMAX]         = OCL_FAMILY_REDUCE,
    [GGML_OP_ARGSORT]        = OCL_FAMILY_SORT,
    [GGML_OP_TOP_K]          = OCL_FAMILY_SORT,

    [GGML_OP_NORM]           = OCL_FAMILY_NORM,
    [GGML_OP_RMS_NORM]       = OCL_FAMILY_NORM,
    [GGML_OP_L2_NORM]        = OCL_FAMILY_NORM,
    [GGML_OP_GROUP_NORM]     = OCL_FAMILY_NORM,
    [GGML_OP_SOFT_MAX]       = OCL_FAMILY_NORM,

    [GGML_OP_ROPE]           = OCL_FAMILY_ROPE,

    [GGML_OP_IM2COL]         = OCL_FAMILY_CONV,
    [GGML_OP_CONV_2D]        = OCL_FAMILY_CONV,
    [GGML_OP_POOL_2D]        = OCL_FAMILY_CONV,

    [GGML_OP_FLASH_ATTN_EXT] = OCL_FAMILY_ATTN,

    [GGML_OP_MUL_MAT]        = OCL_FAMILY_MATMUL,
    [GGML_OP_OUT_PROD]       = OCL_FAMILY_OUTPROD,

    [GGML_OP_CUMSUM]             = OCL_FAMILY_MISC2,
    [GGML_OP_TRI]                = OCL_FAMILY_MISC2,
    [GGML_OP_FILL]               = OCL_FAMILY_MISC2,
    [GGML_OP_DIAG]               = OCL_FAMILY_MISC2,
    [GGML_OP_TIMESTEP_EMBEDDING] = OCL_FAMILY_MISC2,
    [GGML_OP_UPSCALE]            = OCL_FAMILY_MISC2,
    [GGML_OP_SSM_CONV]        = OCL_FAMILY_SEQ,
    [GGML_OP_SSM_SCAN]        = OCL_FAMILY_SEQ,
    [GGML_OP_SOLVE_TRI]       = OCL_FAMILY_SEQ,
    [GGML_OP_GATED_DELTA_NET] = OCL_FAMILY_SEQ,
    [GGML_OP_RWKV_WKV6]       = OCL_FAMILY_SEQ,
    [GGML_OP_GATED_LINEAR_ATTN] = OCL_FAMILY_SEQ,
    [GGML_OP_RWKV_WKV7]       = OCL_FAMILY_SEQ,
};

static enum ggml_status matmul_compute(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    return ggml_ocl_mul_mat(be, op->src[0], op->src[1], op) ? GGML_STATUS_SUCCESS : GGML_STATUS_FAILED;
}

struct ocl_family_def {
    const char *       name;
    enum ggml_ocl_prog prog;
    bool             (*supports)(const struct ggml_ocl_device * d, const struct ggml_tensor * op);
    enum ggml_status (*compute) (struct ggml_ocl_backend * be, struct ggml_tensor * op);
};

static const struct ocl_family_def families[OCL_FAMILY_COUNT] = {
    [OCL_FAMILY_ELTWISE] = { "eltwise", GGML_OCL_PROG_ELTWISE, ggml_ocl_eltwise_supports,  ggml_ocl_eltwise_compute },
    [OCL_FAMILY_COPY]    = { "copy",    GGML_OCL_PROG_COPY,    ggml_ocl_copy_supports,     ggml_ocl_copy_compute    },
    [OCL_FAMILY_REDUCE]  = { "reduce",  GGML_OCL_PROG_REDUCE,  ggml_ocl_reduce_supports,   ggml_ocl_reduce_compute  },
    [OCL_FAMILY_SORT]    = { "sort",    GGML_OCL_PROG_SORT,    ggml_ocl_sort_supports,     ggml_ocl_sort_compute    },
    [OCL_FAMILY_NORM]    = { "norm",    GGML_OCL_PROG_NORM,    ggml_ocl_norm_supports,     ggml_ocl_norm_compute    },
    [OCL_FAMILY_ROPE]    = { "rope",    GGML_OCL_PROG_ROPE,    ggml_ocl_rope_supports,     ggml_ocl_rope_compute    },
    [OCL_FAMILY_CONV]    = { "conv",    GGML_OCL_PROG_CONV,    ggml_ocl_conv_supports,     ggml_ocl_conv_compute    },
    [OCL_FAMILY_ATTN]    = { "attn",    GGML_OCL_PROG_ATTN,    ggml_ocl_attn_supports,     ggml_ocl_attn_compute    },
    [OCL_FAMILY_MATMUL]  = { "matmul",  GGML_OCL_PROG_MATMUL,  ggml_ocl_mul_mat_supports,  matmul_compute           },
    [OCL_FAMILY_OUTPROD] = { "outprod", GGML_OCL_PROG_OUTPROD, ggml_ocl_outprod_supports,  ggml_ocl_outprod_compute },
    [OCL_FAMILY_MISC2]   = { "misc2",   GGML_OCL_PROG_MISC2,   ggml_ocl_misc2_supports,    ggml_ocl_misc2_compute   },
    [OCL_FAMILY_SEQ]     = { "seq",     GGML_OCL_PROG_SEQ,     ggml_ocl_seq_supports,      ggml_ocl_seq_compute     },
};

static enum ocl_family family_of(const struct ggml_tensor * op) {
    if ((int) op->op < 0 || op->op >= GGML_OP_COUNT) {
        return OCL_FAMILY_UNSUPPORTED;
    }
    return (enum ocl_family) op_family[op->op];
}

// every source of a computed node must be a type the kernels can address
static bool sources_plain(const struct ggml_tensor * op) {
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const struct ggml_tensor * s = op->src[i];
        if (s != NULL && !ggml_ocl_type_is_plain(s->type)) {
            return false;
        }
    }
    return ggml_ocl_type_is_plain(op->type);
}

bool ggml_ocl_supports_op(struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    if (d == NULL || op == NULL) {
        return false;
    }
    const enum ocl_family fam = family_of(op);
    if (fam == OCL_FAMILY_NONE) {
        return true;
    }
    if (ggml_ocl_quant_claims(op)) {
        return ggml_ocl_quant_supports(d, op) && ggml_ocl_program_ready(d, ggml_ocl_quant_program(op));
    }
    if (fam == OCL_FAMILY_UNSUPPORTED || !sources_plain(op)) {
        return false;
    }
    const struct ocl_family_def * f = &families[fam];
    // the cheap checks first, the program build (once per device) last
    return f->supports(d, op) && ggml_ocl_program_ready(d, f->prog);
}

static bool node_is_noop(const struct ggml_tensor * node) {
    return family_of(node) == OCL_FAMILY_NONE || (node->flags & GGML_TENSOR_FLAG_COMPUTE) == 0 || ggml_nelements(node) == 0;
}

static void log_unsupported(const struct ggml_ocl_backend * be, int i, const struct ggml_tensor * node) {
    struct ggml_msg m;
    ggml_msg_init(&m);
    ggml_msg_append(&m, "%s: %s: node %d ('%s'): op %s with result %s [%lld, %lld, %lld, %lld] is not supported",
        __func__, be->name, i, node->name, ggml_op_desc(node), ggml_type_name(node->type),
        (long long) node->ne[0], (long long) node->ne[1], (long long) node->ne[2], (long long) node->ne[3]);
    for (int j = 0; j < GGML_MAX_SRC; j++) {
        const struct ggml_tensor * s = node->src[j];
        if (s != NULL) {
            ggml_msg_append(&m, ", src%d %s [%lld, %lld, %lld, %lld]", j, ggml_type_name(s->type),
                (long long) s->ne[0], (long long) s->ne[1], (long long) s->ne[2], (long long) s->ne[3]);
        }
    }
    ggml_error_report(GGML_ERROR_UNSUPPORTED, "%s\n", m.text);
}

enum ggml_status ggml_ocl_graph_compute(struct ggml_ocl_backend * be, struct ggml_cgraph * graph) {
    const int n_nodes = ggml_graph_n_nodes(graph);
    // check everything first: an unsupported node fails the graph before anything is queued
    for (int i = 0; i < n_nodes; i++) {
        struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (node != NULL && !node_is_noop(node) && !ggml_ocl_supports_op(be->dev, node)) {
            log_unsupported(be, i, node);
            return GGML_STATUS_FAILED;
        }
    }
    enum ggml_status status = GGML_STATUS_SUCCESS;
    for (int i = 0; i < n_nodes && status == GGML_STATUS_SUCCESS; i++) {
        struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (node == NULL || node_is_noop(node)) {
            continue;
        }
        const int fused = ggml_ocl_fuse(be, graph, i, &status);
        if (fused > 0) {
            if (status != GGML_STATUS_SUCCESS) {
                GGML_LOG_ERROR("%s: %s: nodes %d-%d (fused, from '%s', %s) failed; the graph stops here\n",
                    __func__, be->name, i, i + fused - 1, node->name, ggml_op_desc(node));
            }
            i += fused - 1;
            continue;
        }
        status = ggml_ocl_quant_claims(node) ? ggml_ocl_quant_compute(be, node) : families[family_of(node)].compute(be, node);
        if (status != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("%s: %s: node %d ('%s', %s) failed; the graph stops here\n",
                __func__, be->name, i, node->name, ggml_op_desc(node));
        }
    }
    // start the queued work now; the caller synchronizes when it needs the results
    if (!GGML_OCL_OK(clFlush(be->queue), "clFlush") && status == GGML_STATUS_SUCCESS) {
        status = GGML_STATUS_FAILED;
    }
    return status;
}
