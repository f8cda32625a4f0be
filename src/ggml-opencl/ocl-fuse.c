// Kernel fusion on the graph (ocl-ops.c asks before each node): RMS_NORM whose result feeds only
// the next node, a MUL by a weight (the model's `norm(x) * w`), runs as one kernel
// (k_vrms_norm_mul of eltwise_vec.cl), one launch and one pass over the rows fewer; with the ADD
// that makes its input just before (the residual sum, stored as well), as k_vadd_rms_norm_mul. The pattern is
// checked exactly; anything else (the norm's result used by a later node or kept as an output,
// another layout) runs node by node. GPU-shaped devices (!cpu_kernels) run the fusions on
// k_gnorm_rows (a work-group per row), the kernel of their unfused RMS_NORM. The fused kernel
// repeats the separate kernels' arithmetic, so fused and unfused results are equal.
// A quantized product of few columns (decode) and the SWIGLU of its rows' halves (the model's fused
// gate/up weight) run as one GEMV (mvq_swiglu_* / mvg_swiglu_*, ocl-quant-mm.c) that writes only
// silu(gate) * up, with the SWIGLU kernel's arithmetic of the same device shape: equal results.
// A layer's ROPE(K), K and V cache stores and ROPE(Q): ocl-fuse-rope-kv.c.
// GGML_OPENCL_FUSION=0 turns fusion off (measurements, comparisons).

#include "ggml-opencl-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdlib.h>
#include <string.h>

static bool fusion_enabled(void) {
    const char * e = getenv("GGML_OPENCL_FUSION");
    return e == NULL || strcmp(e, "0") != 0;
}

bool ggml_ocl_fuse_read_after(const struct ggml_cgraph * g, int from, const struct ggml_tensor * t) {
    const int n = ggml_graph_n_nodes((struct ggml_cgraph *) g);
    for (int j = from; j < n; j++) {
        const struct ggml_tensor * node = ggml_graph_node((struct ggml_cgraph *) g, j);
        if (node == NULL) {
            continue;
        }
        if (node->view_src == t) {
            return true;
        }
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            const struct ggml_tensor * s = node->src[k];
            if (s != NULL && (s == t || s->view_src == t)) {
                return true;
            }
        }
    }
    return false;
}

static bool computes(const struct ggml_tensor * node) {
    return node != NULL && (node->flags & GGML_TENSOR_FLAG_COMPUTE) != 0 && ggml_nelements(node) > 0;
}

// node i RMS_NORM and node i + 1 the MUL of its result (src0) by w, both on the row kernels
static bool rms_norm_mul_fits(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i) {
    if (i + 1 >= ggml_graph_n_nodes(g)) {
        return false;
    }
    const struct ggml_tensor * norm = ggml_graph_node(g, i);
    const struct ggml_tensor * mul  = ggml_graph_node(g, i + 1);
    if (!computes(norm) || !computes(mul) || norm->op != GGML_OP_RMS_NORM || mul->op != GGML_OP_MUL ||
        mul->src[0] != norm || mul->src[1] == norm || (norm->flags & GGML_TENSOR_FLAG_OUTPUT) != 0) {
        return false;
    }
    return ggml_ocl_eltwise_vec_takes(be->dev, norm) && ggml_ocl_eltwise_vec_takes(be->dev, mul) &&
           ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ELTWISE_VEC) && !ggml_ocl_fuse_read_after(g, i + 2, norm);
}

static void arg_floats(struct ggml_ocl_args * a, const struct ggml_tensor * t) {
    cl_mem mem = NULL;
    size_t offs = 0;
    if (!ggml_ocl_tensor_mem(t, a->kname, &mem, &offs) || offs % sizeof(float) != 0) {
        a->failed = true;
        a->n += 2;
        return;
    }
    const cl_ulong o = offs / sizeof(float);
    ggml_ocl_arg_raw(a, sizeof(mem), &mem);
    ggml_ocl_arg_raw(a, sizeof(o), &o);
}

static enum ggml_status run_rms_norm_mul(struct ggml_ocl_backend * be, struct ggml_tensor * norm, struct ggml_tensor * mul) {
    const struct ggml_tensor * w = mul->src[1];
    if (!be->dev->cpu_kernels) {
        return ggml_ocl_norm_rows_gpu(be, norm, "k_grms_norm_mul", 0, norm->src[0], NULL, NULL, w, mul, ggml_get_op_params_f32(norm, 0));
    }
    struct ggml_ocl_args args;
    if (!ggml_ocl_args_begin(&args, be, norm, GGML_OCL_PROG_ELTWISE_VEC, "k_vrms_norm_mul")) {
        return GGML_STATUS_FAILED;
    }
    arg_floats(&args, norm->src[0]);
    arg_floats(&args, w);
    // w is one row for all rows or has the rows' shape (ggml_ocl_eltwise_vec_takes)
    ggml_ocl_arg_i64(&args, ggml_nelements(w) == w->ne[0] ? 0 : w->ne[0]);
    arg_floats(&args, mul);
    ggml_ocl_arg_i64(&args, norm->ne[0]);
    ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(norm, 0));
    const size_t rows = (size_t) (norm->ne[1] * norm->ne[2] * norm->ne[3]);
    return ggml_ocl_launch_nd(&args, 1, &rows, NULL);
}

// node i an ADD on the row kernels whose result is node i + 1's input, an RMS_NORM that
// rms_norm_mul_fits with node i + 2 (the sum itself may be read later: it is stored)
static bool add_rms_norm_mul_fits(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i) {
    if (i + 2 >= ggml_graph_n_nodes(g)) {
        return false;
    }
    const struct ggml_tensor * add  = ggml_graph_node(g, i);
    const struct ggml_tensor * norm = ggml_graph_node(g, i + 1);
    return computes(add) && add->op == GGML_OP_ADD && norm->src[0] == add && ggml_ocl_eltwise_vec_takes(be->dev, add) &&
           rms_norm_mul_fits(be, g, i + 1);
}

static enum ggml_status run_add_rms_norm_mul(struct ggml_ocl_backend * be, struct ggml_tensor * add, struct ggml_tensor * norm,
                                             struct ggml_tensor * mul) {
    const struct ggml_tensor * b = add->src[1];
    const struct ggml_tensor * w = mul->src[1];
    if (!be->dev->cpu_kernels) {
        return ggml_ocl_norm_rows_gpu(be, norm, "k_gadd_rms_norm_mul", 0, add->src[0], b, add, w, mul, ggml_get_op_params_f32(norm, 0));
    }
    struct ggml_ocl_args args;
    if (!ggml_ocl_args_begin(&args, be, norm, GGML_OCL_PROG_ELTWISE_VEC, "k_vadd_rms_norm_mul")) {
        return GGML_STATUS_FAILED;
    }
    // b and w are one row for all rows or have the rows' shape (ggml_ocl_eltwise_vec_takes)
    arg_floats(&args, add->src[0]);
    arg_floats(&args, b);
    ggml_ocl_arg_i64(&args, ggml_nelements(b) == b->ne[0] ? 0 : b->ne[0]);
    arg_floats(&args, add);
    arg_floats(&args, w);
    ggml_ocl_arg_i64(&args, ggml_nelements(w) == w->ne[0] ? 0 : w->ne[0]);
    arg_floats(&args, mul);
    ggml_ocl_arg_i64(&args, norm->ne[0]);
    ggml_ocl_arg_f32(&args, ggml_get_op_params_f32(norm, 0));
    const size_t rows = (size_t) (norm->ne[1] * norm->ne[2] * norm->ne[3]);
    return ggml_ocl_launch_nd(&args, 1, &rows, NULL);
}

bool ggml_ocl_fuse_overlap(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    if (ggml_tensor_data_buffer(a) != ggml_tensor_data_buffer(b)) {
        return false;
    }
    const char * pa = a->data, * pb = b->data;
    return pa < pb + ggml_nbytes(b) && pb < pa + ggml_nbytes(a);
}

// node i a quantized MUL_MAT of few columns on the GEMV and node i + 1 the SWIGLU of its rows'
// halves on the row kernels (one source, not swapped); the product read by nothing else and not
// an output; the result not over the product's inputs (the fused kernel reads them while writing)
static bool mm_swiglu_fits(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i) {
    if (i + 1 >= ggml_graph_n_nodes(g)) {
        return false;
    }
    const struct ggml_tensor * mm  = ggml_graph_node(g, i);
    const struct ggml_tensor * glu = ggml_graph_node(g, i + 1);
    if (!computes(mm) || !computes(glu) || mm->op != GGML_OP_MUL_MAT || glu->op != GGML_OP_GLU ||
        ggml_get_op_params_i32(glu, 0) != GGML_GLU_OP_SWIGLU || ggml_get_op_params_i32(glu, 1) != 0 ||
        glu->src[0] != mm || glu->src[1] != NULL || (mm->flags & GGML_TENSOR_FLAG_OUTPUT) != 0 ||
        !ggml_is_quantized(mm->src[0]->type)) {
        return false;
    }
    return ggml_ocl_eltwise_vec_takes(be->dev, glu) && ggml_ocl_program_ready(be->dev, GGML_OCL_PROG_ELTWISE_VEC) &&
           ggml_ocl_quant_mm_swiglu_takes(be->dev, mm, glu) && !ggml_ocl_fuse_overlap(glu, mm->src[0]) &&
           !ggml_ocl_fuse_overlap(glu, mm->src[1]) && !ggml_ocl_fuse_read_after(g, i + 2, mm);
}

int ggml_ocl_fuse(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i, enum ggml_status * status) {
    if (!fusion_enabled()) {
        return 0;
    }
    if (add_rms_norm_mul_fits(be, g, i)) {
        *status = run_add_rms_norm_mul(be, ggml_graph_node(g, i), ggml_graph_node(g, i + 1), ggml_graph_node(g, i + 2));
        return 3;
    }
    if (rms_norm_mul_fits(be, g, i)) {
        *status = run_rms_norm_mul(be, ggml_graph_node(g, i), ggml_graph_node(g, i + 1));
        return 2;
    }
    if (mm_swiglu_fits(be, g, i)) {
        *status = ggml_ocl_quant_mm_swiglu(be, ggml_graph_node(g, i), ggml_graph_node(g, i + 1));
        return 2;
    }
    return ggml_ocl_fuse_rope_kv(be, g, i, status);
}
