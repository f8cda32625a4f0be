// MUL_MAT fast paths of the OpenCL backend: host side of kernels/mul_mat_tiled.cl.
//
// Two kernel families, chosen per device (docs/opencl-matmul.md has the measurements):
//   dot    CPU devices (PoCL): each work-item keeps a DOT_RM x DOT_RN block of dst in registers and
//          runs the K loop on 16-wide vectors; no local memory (on a CPU it is only more cache
//          traffic). M == 1 uses the GEMV kernel mv_dot (MV_RN rows of a per work-item).
//   local  GPUs: 64 x 64 tiles of dst per 16 x 16 work-group, k slices staged in local memory,
//          4 x 4 register blocks per work-item; small M uses mv_loc (a work-group per value).
// GGML_OPENCL_MATMUL=dot|local forces a family (for tests and measurements), =simple turns the
// fast paths off (ggml_ocl_mul_mat then runs its simple kernel).

#include "ocl-matmul-tiled.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// keep in sync with kernels/mul_mat_tiled.cl
#define DOT_RM   6
#define DOT_RN   4
#define MV_RN    4
#define LOC_T    64
#define LOC_W    16
#define LOC_TK   16
#define MV_LOC_W 64

// work-group shapes of the dot kernels, measured on PoCL (2 cores); shrunk for small problems so
// that every core gets work-groups
#define DOT_WG0  4
#define DOT_WG1  8
#define MV_WG    16
#define MIN_GROUPS 16

// GPUs: products with at most this many columns of b use the GEMV kernel
#define LOC_MV_MAX_M 4

enum tiled_family { FAM_MM_DOT, FAM_MV_DOT, FAM_MM_LOC, FAM_MV_LOC, FAM_COUNT };

enum tiled_mode { MODE_AUTO, MODE_OFF, MODE_DOT, MODE_LOCAL };

// kernel names by family, type of a, type of b (index: 0 F32, 1 F16, 2 BF16); the kernel cache of
// a backend keeps these pointers, so they must be string literals
#define KNAMES(fam) {                                                   \
    { fam "_f32_f32",  fam "_f32_f16",  fam "_f32_bf16"  },             \
    { fam "_f16_f32",  fam "_f16_f16",  fam "_f16_bf16"  },             \
    { fam "_bf16_f32", fam "_bf16_f16", fam "_bf16_bf16" } }

static const char * const kernel_names[FAM_COUNT][3][3] = {
    [FAM_MM_DOT] = KNAMES("mm_dot"),
    [FAM_MV_DOT] = KNAMES("mv_dot"),
    [FAM_MM_LOC] = KNAMES("mm_loc"),
    [FAM_MV_LOC] = KNAMES("mv_loc"),
};

static int type_index(enum ggml_type t) {
    switch (t) {
        case GGML_TYPE_F32:  return 0;
        case GGML_TYPE_F16:  return 1;
        case GGML_TYPE_BF16: return 2;
        default:             return -1;
    }
}

static enum tiled_mode mode_from_env(void) {
    const char * e = getenv("GGML_OPENCL_MATMUL");
    if (e == NULL || e[0] == '\0' || strcmp(e, "auto") == 0) {
        return MODE_AUTO;
    }
    if (strcmp(e, "simple") == 0) {
        return MODE_OFF;
    }
    if (strcmp(e, "dot") == 0) {
        return MODE_DOT;
    }
    if (strcmp(e, "local") == 0) {
        return MODE_LOCAL;
    }
    return MODE_AUTO;
}

static bool local_fits(const struct ggml_ocl_device * d) {
    return d->max_wg >= (size_t) LOC_W*LOC_W && d->local_mem >= (cl_ulong) 2*LOC_TK*(LOC_T + 1)*sizeof(float) + 1024;
}

// the family for this device: local-memory tiles on GPUs (and accelerators), register blocks on
// CPU devices, where local memory is ordinary cached memory
static bool use_local(const struct ggml_ocl_device * d, enum tiled_mode mode) {
    if (mode == MODE_DOT || !local_fits(d)) {
        return false;
    }
    return mode == MODE_LOCAL || !d->cpu_kernels;
}

// rows contiguous along k; every stride and the offset multiples of the element size
static bool layout_ok(const struct ggml_tensor * t, bool rows_contiguous) {
    const size_t ts = ggml_type_size(t->type);
    if (ts == 0 || (rows_contiguous && t->nb[0] != ts)) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t->nb[i] % ts != 0) {
            return false;
        }
    }
    // device buffers sit at an aligned (fake) base address, so this is the offset's alignment
    return (uintptr_t) t->data % ts == 0;
}

bool ggml_ocl_mul_mat_tiled_supports(struct ggml_ocl_device * d, const struct ggml_tensor * op) {
    if (d == NULL || op == NULL || op->op != GGML_OP_MUL_MAT) {
        return false;
    }
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL || b == NULL || op->type != GGML_TYPE_F32 || type_index(a->type) < 0 || type_index(b->type) < 0) {
        return false;
    }
    if (a->ne[0] != b->ne[0] || a->ne[2] <= 0 || a->ne[3] <= 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0 ||
        op->ne[0] != a->ne[1] || op->ne[1] != b->ne[1] || op->ne[2] != b->ne[2] || op->ne[3] != b->ne[3]) {
        return false;
    }
    if (!layout_ok(a, true) || !layout_ok(b, true) || !layout_ok(op, false)) {
        return false;
    }
    if (mode_from_env() == MODE_OFF) {
        return false;
    }
    return ggml_ocl_program_ready(d, GGML_OCL_PROG_MATMUL_TILED);
}

// Enqueues the kernel of a (arguments set) over a 3-D range. false on failure: logged, except
// for the errors in `quiet` (0 for none), which are only returned in *err.
static bool enqueue(struct ggml_ocl_args * a, const size_t global[3], const size_t local[3], cl_int quiet, cl_int * err_out) {
    const char * node_name = a->node != NULL ? a->node->name : "?";
    *err_out = CL_SUCCESS;
    if (a->kernel == NULL || a->failed) {
        GGML_LOG_ERROR("%s: %s: node '%s' (MUL_MAT): kernel %s cannot run (see above)\n",
            __func__, a->be->name, node_name, a->kname);
        return false;
    }
    if (a->err != CL_SUCCESS) {
        GGML_LOG_ERROR("%s: %s: node '%s' (MUL_MAT): kernel %s: clSetKernelArg(%u) failed: %s (%d)\n",
            __func__, a->be->name, node_name, a->kname, a->bad_index, ggml_ocl_errstr(a->err), (int) a->err);
        return false;
    }
    if (global[0] == 0 || global[1] == 0 || global[2] == 0) {
        return true;
    }
    cl_event ev;
    const cl_int err = clEnqueueNDRangeKernel(a->be->queue, a->kernel, 3, NULL, global, local, 0, NULL,
                                              ggml_ocl_profile_slot(a->be, &ev));
    if (err == CL_SUCCESS) {
        ggml_ocl_profile_launched(a->be, a->node, a->kname, ev);
    }
    *err_out = err;
    if (err != CL_SUCCESS && err != quiet) {
        GGML_LOG_ERROR("%s: %s: node '%s' (MUL_MAT): kernel %s over %zu x %zu x %zu items in groups of %zu x %zu: "
            "clEnqueueNDRangeKernel failed: %s (%d)\n", __func__, a->be->name, node_name, a->kname,
            global[0], global[1], global[2], local[0], local[1], ggml_ocl_errstr(err), (int) err);
    }
    return err == CL_SUCCESS;
}

static size_t div_up(size_t x, size_t y) {
    return (x + y - 1) / y;
}

static size_t round_up(size_t x, size_t y) {
    return div_up(x, y) * y;
}

static bool set_args(struct ggml_ocl_args * a, struct ggml_ocl_backend * be, enum tiled_family fam,
                     const struct ggml_tensor * src0, const struct ggml_tensor * src1, struct ggml_tensor * dst) {
    const char * name = kernel_names[fam][type_index(src0->type)][type_index(src1->type)];
    if (!ggml_ocl_args_begin(a, be, dst, GGML_OCL_PROG_MATMUL_TILED, name)) {
        return false;
    }
    ggml_ocl_arg_tensor(a, src0);
    ggml_ocl_arg_tensor(a, src1);
    ggml_ocl_arg_tensor(a, dst);
    return true;
}

static bool run_dot(struct ggml_ocl_backend * be, const struct ggml_tensor * src0, const struct ggml_tensor * src1,
                    struct ggml_tensor * dst, size_t batches) {
    const size_t N = (size_t) dst->ne[0];
    const size_t M = (size_t) dst->ne[1];
    struct ggml_ocl_args a;
    size_t global[3], local[3] = { 1, 1, 1 };
    if (M == 1) {
        const size_t items = div_up(N, MV_RN);
        local[0] = MV_WG;
        while (local[0] > 1 && div_up(items, local[0]) * batches < MIN_GROUPS) {
            local[0] /= 2;
        }
        global[0] = round_up(items, local[0]);
        global[1] = 1;
        if (!set_args(&a, be, FAM_MV_DOT, src0, src1, dst)) {
            return false;
        }
    } else {
        const size_t items0 = div_up(N, DOT_RN);
        const size_t items1 = div_up(M, DOT_RM);
        local[0] = DOT_WG0;
        local[1] = DOT_WG1;
        while ((local[0] > 1 || local[1] > 1) && div_up(items0, local[0]) * div_up(items1, local[1]) * batches < MIN_GROUPS) {
            if (local[1] >= local[0]) {
                local[1] /= 2;
            } else {
                local[0] /= 2;
            }
        }
        global[0] = round_up(items0, local[0]);
        global[1] = round_up(items1, local[1]);
        if (!set_args(&a, be, FAM_MM_DOT, src0, src1, dst)) {
            return false;
        }
    }
    global[2] = batches;
    cl_int err;
    return enqueue(&a, global, local, 0, &err);
}

// *ran is false when the device refused the local kernels' work-group size (their registers or
// local memory do not fit): nothing is logged and the caller runs the dot kernels instead
static bool run_local(struct ggml_ocl_backend * be, const struct ggml_tensor * src0, const struct ggml_tensor * src1,
                      struct ggml_tensor * dst, size_t batches, bool * ran) {
    const size_t N = (size_t) dst->ne[0];
    const size_t M = (size_t) dst->ne[1];
    const bool mv = M <= LOC_MV_MAX_M;
    struct ggml_ocl_args a;
    *ran = false;
    if (!set_args(&a, be, mv ? FAM_MV_LOC : FAM_MM_LOC, src0, src1, dst)) {
        return false;
    }
    size_t global[3], local[3];
    if (mv) {
        global[0] = N * MV_LOC_W;
        global[1] = M;
        local[0] = MV_LOC_W;
        local[1] = 1;
    } else {
        global[0] = div_up(N, LOC_T) * LOC_W;
        global[1] = div_up(M, LOC_T) * LOC_W;
        local[0] = LOC_W;
        local[1] = LOC_W;
    }
    global[2] = batches;
    local[2] = 1;
    cl_int err;
    if (enqueue(&a, global, local, CL_INVALID_WORK_GROUP_SIZE, &err)) {
        *ran = true;
        return true;
    }
    return err == CL_INVALID_WORK_GROUP_SIZE;
}

bool ggml_ocl_mul_mat_tiled(struct ggml_ocl_backend * be, const struct ggml_tensor * src0, const struct ggml_tensor * src1,
                            struct ggml_tensor * dst) {
    if (be == NULL || src0 == NULL || src1 == NULL || dst == NULL || type_index(src0->type) < 0 || type_index(src1->type) < 0) {
        GGML_LOG_ERROR("%s: missing backend or tensor, or unsupported types\n", __func__);
        return false;
    }
    if (ggml_nelements(dst) == 0) {
        return true;
    }
    const size_t batches = (size_t) dst->ne[2] * (size_t) dst->ne[3];
    if (use_local(be->dev, mode_from_env())) {
        bool ran = false;
        if (!run_local(be, src0, src1, dst, batches, &ran)) {
            return false;
        }
        if (ran) {
            return true;
        }
    }
    return run_dot(be, src0, src1, dst, batches);
}
