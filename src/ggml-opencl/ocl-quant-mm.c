// Fast MUL_MAT with quantized weights (kernels/quant_mm.cl, GGML_OCL_PROG_QUANT_MM): one kernel
// per weight type with the blocks decoded into vector registers; a GEMV (4 rows of one column per
// work-item) for few columns, a register-blocked kernel (6 columns x 2 rows per work-item) for
// many. ocl-quant.c calls it first and keeps its general kernel (any b type and layout) for the
// rest. MUL_MAT_ID (quantized, F32, F16 or BF16 expert weights, F32 activations): the GEMV kernel
// with each (expert slot, token)'s weights chosen by its id for few tokens; for prompts the pairs are
// grouped by expert on the device (k_mmid_group, into the backend's scratch memory) and the blocked
// kernel multiplies each expert's rows with MMQ_RM of its pairs at a time. On GPUs (not
// cpu_kernels) the few-column products run on mvg_<type> / mvg_id_<type> instead: MVG_LANES
// work-items per row reading neighbouring blocks, MVG_ROWS rows per work-group.

#include "ggml-opencl-impl.h"

#include <stdint.h>

// keep in sync with kernels/quant_mm.cl
#define MVQ_RN 4
#define MMQ_RM 6
#define MMQ_RN 2
#define MVG_LANES 16
#define MVG_ROWS 4
#define MVG_WG (MVG_LANES*MVG_ROWS)

// products with at most this many columns use the GEMV kernel (each column decodes the weights
// again; above it the blocked kernel's reuse pays)
#define MVQ_MAX_M 2

// work-group of the GEMV and of the blocked kernel, shrunk while there are fewer groups than this
#define QMM_WG 16
#define QMM_MIN_GROUPS 16

struct qmm_names {
    enum ggml_type type;
    const char * mv;
    const char * mm;
    const char * mv_id;
    const char * mm_id;
    const char * mvg;    // GPU shape of mv
    const char * mvg_id; // GPU shape of mv_id
};

// the float types serve MUL_MAT_ID only (MUL_MAT with float weights is ocl-matmul.c's)
static const struct qmm_names qmm_kernels[] = {
    { GGML_TYPE_Q4_0,  "mvq_q4_0",  "mmq_q4_0",  "mvq_id_q4_0",  "mmq_id_q4_0", "mvg_q4_0",  "mvg_id_q4_0" },
    { GGML_TYPE_Q4_1,  "mvq_q4_1",  "mmq_q4_1",  "mvq_id_q4_1",  "mmq_id_q4_1", "mvg_q4_1",  "mvg_id_q4_1" },
    { GGML_TYPE_Q5_0,  "mvq_q5_0",  "mmq_q5_0",  "mvq_id_q5_0",  "mmq_id_q5_0", "mvg_q5_0",  "mvg_id_q5_0" },
    { GGML_TYPE_Q5_1,  "mvq_q5_1",  "mmq_q5_1",  "mvq_id_q5_1",  "mmq_id_q5_1", "mvg_q5_1",  "mvg_id_q5_1" },
    { GGML_TYPE_Q8_0,  "mvq_q8_0",  "mmq_q8_0",  "mvq_id_q8_0",  "mmq_id_q8_0", "mvg_q8_0",  "mvg_id_q8_0" },
    { GGML_TYPE_Q4_K,  "mvq_q4_k",  "mmq_q4_k",  "mvq_id_q4_k",  "mmq_id_q4_k", "mvg_q4_k",  "mvg_id_q4_k" },
    { GGML_TYPE_Q5_K,  "mvq_q5_k",  "mmq_q5_k",  "mvq_id_q5_k",  "mmq_id_q5_k", "mvg_q5_k",  "mvg_id_q5_k" },
    { GGML_TYPE_Q6_K,  "mvq_q6_k",  "mmq_q6_k",  "mvq_id_q6_k",  "mmq_id_q6_k", "mvg_q6_k",  "mvg_id_q6_k" },
    { GGML_TYPE_MXFP4, "mvq_mxfp4", "mmq_mxfp4", "mvq_id_mxfp4",  "mmq_id_mxfp4", "mvg_mxfp4", "mvg_id_mxfp4" },
    { GGML_TYPE_F32,   NULL,        NULL,        "mvq_id_f32",  "mmq_id_f32", NULL,        "mvg_id_f32" },
    { GGML_TYPE_F16,   NULL,        NULL,        "mvq_id_f16",  "mmq_id_f16", NULL,        "mvg_id_f16" },
    { GGML_TYPE_BF16,  NULL,        NULL,        "mvq_id_bf16",  "mmq_id_bf16", NULL,        "mvg_id_bf16" },
};

static const struct qmm_names * names_of(enum ggml_type t) {
    for (size_t i = 0; i < sizeof(qmm_kernels)/sizeof(qmm_kernels[0]); i++) {
        if (qmm_kernels[i].type == t) {
            return &qmm_kernels[i];
        }
    }
    return NULL;
}

static bool multiple_of(const struct ggml_tensor * t, size_t align) {
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (t->nb[i] % align != 0) {
            return false;
        }
    }
    // device buffers sit at an aligned (fake) base address, so this is the offset's alignment
    return (uintptr_t) t->data % align == 0;
}

bool ggml_ocl_quant_mm_supports(struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (op->op != GGML_OP_MUL_MAT || a == NULL || b == NULL || names_of(a->type) == NULL || names_of(a->type)->mv == NULL) {
        return false;
    }
    // the general kernel's conditions (ggml_ocl_quant_supports) hold; here only the layout: a's
    // blocks 2-byte aligned (the half scales), b F32 rows contiguous and 4-byte aligned, dst F32
    if (b->type != GGML_TYPE_F32 || b->nb[0] != sizeof(float) || op->type != GGML_TYPE_F32 ||
        a->ne[0] % 32 != 0 || a->nb[0] != ggml_type_size(a->type) || !multiple_of(a, 2) ||
        !multiple_of(b, sizeof(float)) || !multiple_of(op, sizeof(float)) || op->nb[0] != sizeof(float)) {
        return false;
    }
    return ggml_ocl_program_ready(d, GGML_OCL_PROG_QUANT_MM);
}

static size_t div_up(size_t x, size_t y) {
    return (x + y - 1) / y;
}

// whether the few-column products take the GPU-shaped kernels (mvg_*) on this device
static bool use_mvg(const struct ggml_ocl_device * d) {
    return !d->cpu_kernels && d->max_wg >= MVG_WG;
}

enum ggml_status ggml_ocl_quant_mm(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct qmm_names * names = names_of(op->src[0]->type);
    if (names == NULL || names->mv == NULL) {
        GGML_LOG_ERROR("%s: no fast kernel for %s weights\n", __func__, ggml_type_name(op->src[0]->type));
        return GGML_STATUS_FAILED;
    }
    if (ggml_nelements(op) == 0) {
        return GGML_STATUS_SUCCESS;
    }
    const size_t N = (size_t) op->ne[0];
    const size_t M = (size_t) op->ne[1];
    const size_t batches = (size_t) op->ne[2] * (size_t) op->ne[3];
    const bool mv = M <= MVQ_MAX_M;
    if (mv && use_mvg(be->dev)) {
        struct ggml_ocl_args a;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_MM, names->mvg)) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, op->src[0]);
        ggml_ocl_arg_tensor(&a, op->src[1]);
        ggml_ocl_arg_tensor(&a, op);
        const size_t global[3] = { div_up(N, MVG_ROWS) * MVG_WG, M, batches };
        const size_t local[3]  = { MVG_WG, 1, 1 };
        return ggml_ocl_launch_nd(&a, 3, global, local);
    }
    const size_t items0 = div_up(N, mv ? MVQ_RN : MMQ_RN);
    const size_t items1 = mv ? M : div_up(M, MMQ_RM);
    size_t local0 = ggml_ocl_wg_size(be->dev, QMM_WG);
    while (local0 > 1 && div_up(items0, local0) * items1 * batches < QMM_MIN_GROUPS) {
        local0 /= 2;
    }
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_MM, mv ? names->mv : names->mm)) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op);
    const size_t global[3] = { div_up(items0, local0) * local0, items1, batches };
    const size_t local[3]  = { local0, 1, 1 };
    return ggml_ocl_launch_nd(&a, 3, global, local);
}

bool ggml_ocl_quant_mm_id_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * as  = op->src[0];
    const struct ggml_tensor * b   = op->src[1];
    const struct ggml_tensor * ids = op->src[2];
    if (op->op != GGML_OP_MUL_MAT_ID || as == NULL || b == NULL || ids == NULL || names_of(as->type) == NULL) {
        return false;
    }
    // whole 32-value groups along k; rows aligned for the vector loads (the half scales, or the
    // float elements)
    const size_t align = as->type == GGML_TYPE_F32 ? 4 : 2;
    if (as->ne[0] % 32 != 0 || as->nb[0] != ggml_type_size(as->type) || !multiple_of(as, align) ||
        b->type != GGML_TYPE_F32 || b->nb[0] != sizeof(float) || !multiple_of(b, sizeof(float)) ||
        ids->type != GGML_TYPE_I32 || op->type != GGML_TYPE_F32 || op->nb[0] != sizeof(float) ||
        !multiple_of(op, sizeof(float))) {
        return false;
    }
    return as->ne[3] == 1 && b->ne[3] == 1 && ids->ne[2] == 1 && ids->ne[3] == 1 && b->ne[1] > 0 &&
           as->ne[0] == b->ne[0] && ids->ne[1] == b->ne[2] && ids->ne[0] % b->ne[1] == 0 &&
           op->ne[0] == as->ne[1] && op->ne[1] == ids->ne[0] && op->ne[2] == b->ne[2] && op->ne[3] == 1;
}

// the pairs grouped by expert (k_mmid_group), then mmq_id_<type> over (row pairs, chunks)
static enum ggml_status mm_id_grouped(struct ggml_ocl_backend * be, struct ggml_tensor * op, const struct qmm_names * names) {
    const int64_t n_expert = op->src[0]->ne[2];
    const size_t n_pairs = (size_t) op->ne[1] * (size_t) op->ne[2];
    cl_mem g = ggml_ocl_scratch(be, ((size_t) n_expert*3 + 2 + n_pairs) * sizeof(cl_int));
    if (g == NULL) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_MM, "k_mmid_group")) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[2]);
    ggml_ocl_arg_raw(&a, sizeof(g), &g);
    ggml_ocl_arg_i64(&a, n_expert);
    ggml_ocl_arg_tensor(&a, op);
    const size_t one = 1;
    enum ggml_status st = ggml_ocl_launch_nd(&a, 1, &one, NULL);
    if (st != GGML_STATUS_SUCCESS) {
        return st;
    }
    const size_t items0 = div_up((size_t) op->ne[0], MMQ_RN);
    const size_t chunks = div_up(n_pairs, MMQ_RM) + (size_t) n_expert; // at least the chunks there are
    size_t local0 = ggml_ocl_wg_size(be->dev, QMM_WG);
    while (local0 > 1 && div_up(items0, local0) * chunks < QMM_MIN_GROUPS) {
        local0 /= 2;
    }
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_MM, names->mm_id)) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_raw(&a, sizeof(g), &g);
    ggml_ocl_arg_i64(&a, n_expert);
    ggml_ocl_arg_tensor(&a, op);
    const size_t global[2] = { div_up(items0, local0) * local0, chunks };
    const size_t local[2]  = { local0, 1 };
    return ggml_ocl_launch_nd(&a, 2, global, local);
}

enum ggml_status ggml_ocl_quant_mm_id(struct ggml_ocl_backend * be, struct ggml_tensor * op) {
    const struct qmm_names * names = names_of(op->src[0]->type);
    if (names == NULL) {
        GGML_LOG_ERROR("%s: no MUL_MAT_ID kernel for %s weights\n", __func__, ggml_type_name(op->src[0]->type));
        return GGML_STATUS_FAILED;
    }
    if (ggml_nelements(op) == 0) {
        return GGML_STATUS_SUCCESS;
    }
    // prompts: grouped by expert when an expert gets 2 pairs or more on average
    if (op->ne[2] > MVQ_MAX_M && op->ne[1]*op->ne[2] >= 2*op->src[0]->ne[2] && op->ne[1]*op->ne[2] <= INT32_MAX) {
        return mm_id_grouped(be, op, names);
    }
    const size_t n_used = (size_t) op->ne[1];
    const size_t n_tok  = (size_t) op->ne[2];
    if (use_mvg(be->dev)) {
        struct ggml_ocl_args a;
        if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_MM, names->mvg_id)) {
            return GGML_STATUS_FAILED;
        }
        ggml_ocl_arg_tensor(&a, op->src[0]);
        ggml_ocl_arg_tensor(&a, op->src[1]);
        ggml_ocl_arg_tensor(&a, op->src[2]);
        ggml_ocl_arg_tensor(&a, op);
        const size_t global[3] = { div_up((size_t) op->ne[0], MVG_ROWS) * MVG_WG, n_used, n_tok };
        const size_t local[3]  = { MVG_WG, 1, 1 };
        return ggml_ocl_launch_nd(&a, 3, global, local);
    }
    const size_t items0 = div_up((size_t) op->ne[0], MVQ_RN);
    size_t local0 = ggml_ocl_wg_size(be->dev, QMM_WG);
    while (local0 > 1 && div_up(items0, local0) * n_used * n_tok < QMM_MIN_GROUPS) {
        local0 /= 2;
    }
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, op, GGML_OCL_PROG_QUANT_MM, names->mv_id)) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, op->src[0]);
    ggml_ocl_arg_tensor(&a, op->src[1]);
    ggml_ocl_arg_tensor(&a, op->src[2]);
    ggml_ocl_arg_tensor(&a, op);
    const size_t global[3] = { div_up(items0, local0) * local0, n_used, n_tok };
    const size_t local[3]  = { local0, 1, 1 };
    return ggml_ocl_launch_nd(&a, 3, global, local);
}

// ---- the GEMV with SWIGLU fused (ocl-fuse.c finds the pattern)

struct qmm_swiglu_names {
    enum ggml_type type;
    const char * mv;  // CPU shape: mvq with k_vswiglu's silu
    const char * mvg; // GPU shape: mvg with k_gswiglu4 / k_gswiglu1's silu
};

static const struct qmm_swiglu_names qmm_swiglu_kernels[] = {
    { GGML_TYPE_Q4_0,  "mvq_swiglu_q4_0",  "mvg_swiglu_q4_0" },
    { GGML_TYPE_Q4_1,  "mvq_swiglu_q4_1",  "mvg_swiglu_q4_1" },
    { GGML_TYPE_Q5_0,  "mvq_swiglu_q5_0",  "mvg_swiglu_q5_0" },
    { GGML_TYPE_Q5_1,  "mvq_swiglu_q5_1",  "mvg_swiglu_q5_1" },
    { GGML_TYPE_Q8_0,  "mvq_swiglu_q8_0",  "mvg_swiglu_q8_0" },
    { GGML_TYPE_Q4_K,  "mvq_swiglu_q4_k",  "mvg_swiglu_q4_k" },
    { GGML_TYPE_Q5_K,  "mvq_swiglu_q5_k",  "mvg_swiglu_q5_k" },
    { GGML_TYPE_Q6_K,  "mvq_swiglu_q6_k",  "mvg_swiglu_q6_k" },
    { GGML_TYPE_MXFP4, "mvq_swiglu_mxfp4", "mvg_swiglu_mxfp4" },
};

static const struct qmm_swiglu_names * swiglu_names_of(enum ggml_type t) {
    for (size_t i = 0; i < sizeof(qmm_swiglu_kernels)/sizeof(qmm_swiglu_kernels[0]); i++) {
        if (qmm_swiglu_kernels[i].type == t) {
            return &qmm_swiglu_kernels[i];
        }
    }
    return NULL;
}

bool ggml_ocl_quant_mm_swiglu_takes(struct ggml_ocl_device * d, const struct ggml_tensor * mm, const struct ggml_tensor * glu) {
    // the unfused product must be the GEMV of the same shape as the SWIGLU kernel (mvq with the
    // CPU-shaped element-wise kernels, mvg with the GPU-shaped ones)
    if (mm->op != GGML_OP_MUL_MAT || mm->src[0] == NULL || swiglu_names_of(mm->src[0]->type) == NULL ||
        !ggml_ocl_quant_mm_supports(d, mm) || use_mvg(d) == d->cpu_kernels) {
        return false;
    }
    return mm->ne[1] <= MVQ_MAX_M && mm->ne[2] == 1 && mm->ne[3] == 1 && mm->ne[0] % 2 == 0 && glu->type == GGML_TYPE_F32 &&
           glu->ne[0] == mm->ne[0] / 2 && glu->ne[1] == mm->ne[1] && glu->ne[2] == 1 && glu->ne[3] == 1 &&
           ggml_is_contiguous(glu) && multiple_of(glu, sizeof(float));
}

static bool offset_aligned16(const struct ggml_tensor * t) {
    cl_mem mem = NULL;
    size_t offs = 0;
    return ggml_ocl_tensor_mem(t, __func__, &mem, &offs) && offs % 16 == 0;
}

enum ggml_status ggml_ocl_quant_mm_swiglu(struct ggml_ocl_backend * be, const struct ggml_tensor * mm, struct ggml_tensor * glu) {
    const struct qmm_swiglu_names * names = swiglu_names_of(mm->src[0]->type);
    if (names == NULL) {
        GGML_LOG_ERROR("%s: no fused kernel for %s weights\n", __func__, ggml_type_name(mm->src[0]->type));
        return GGML_STATUS_FAILED;
    }
    const size_t nc = (size_t) glu->ne[0];
    const size_t M = (size_t) glu->ne[1];
    struct ggml_ocl_args a;
    if (!ggml_ocl_args_begin(&a, be, glu, GGML_OCL_PROG_QUANT_MM, use_mvg(be->dev) ? names->mvg : names->mv)) {
        return GGML_STATUS_FAILED;
    }
    ggml_ocl_arg_tensor(&a, mm->src[0]);
    ggml_ocl_arg_tensor(&a, mm->src[1]);
    ggml_ocl_arg_tensor(&a, glu);
    if (use_mvg(be->dev)) {
        // float4 silu where the unfused SWIGLU takes k_gswiglu4 (ocl-op-eltwise-vec.c's condition)
        const bool v4 = nc % 4 == 0 && offset_aligned16(mm) && offset_aligned16(glu);
        ggml_ocl_arg_i32(&a, v4);
        const size_t global[3] = { div_up(nc, MVG_ROWS) * MVG_WG, M, 1 };
        const size_t local[3]  = { MVG_WG, 1, 1 };
        return ggml_ocl_launch_nd(&a, 3, global, local);
    }
    const size_t items0 = div_up(nc, MVQ_RN);
    size_t local0 = ggml_ocl_wg_size(be->dev, QMM_WG);
    while (local0 > 1 && div_up(items0, local0) * M < QMM_MIN_GROUPS) {
        local0 /= 2;
    }
    const size_t global[3] = { div_up(items0, local0) * local0, M, 1 };
    const size_t local[3]  = { local0, 1, 1 };
    return ggml_ocl_launch_nd(&a, 3, global, local);
}
