#define _GNU_SOURCE // posix_spawn, setenv

// CPU kernels of the nn families (norm, rope, attn, conv) against the double-precision reference.
//
// Every case builds one node with the public op constructors on a CPU context, computes it with
// ggml_graph_compute_with_ctx on 1 and on 2 threads and compares it with ggml_ref_compute by the
// normalized mean squared error, with a bound stated per op and type (NMSE_* below).
//
// SIMD levels: the level is chosen once per process (ggml_cpu_isa), so when GGML_CPU_ISA is not
// set this program re-executes itself three times, with GGML_CPU_ISA=portable, avx2 and avx512
// (a level the CPU lacks falls back to the best it has), and fails when any run fails. With
// GGML_CPU_ISA set it runs the cases once, at that level.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-ref.h"
#include "test-common.h"

#include "ggml-cpu/ggml-cpu-impl.h"
#include "ggml-cpu/ggml-cpu-isa.h"

#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char ** environ;

// NMSE bounds. Kernels compute in float with float accumulators; the reference is exact.
#define NMSE_F32      1e-10 // F32 results of F32 (or F16/BF16-valued) inputs
#define NMSE_F16_OUT  2e-7  // results stored as F16 (one rounding to 11 bits per element)
#define NMSE_BF16_OUT 5e-6  // results stored as BF16 (one rounding to 8 bits per element)
#define NMSE_EXACT    0.0   // data movement (IM2COL): the reference rounds to the result type too

typedef struct ggml_tensor tensor;

static struct ggml_context * g_ctx;

// range of the values rnd4 fills new tensors with
static double g_lo = -1.0, g_hi = 1.0;

//
// helpers
//

static void fill_uniform(tensor * t, double lo, double hi) {
    const int64_t n = ggml_nelements(t);
    for (int64_t i = 0; i < n; i++) {
        const double v = test_rand_uniform(lo, hi);
        switch (t->type) {
            case GGML_TYPE_F32:  ((float *) t->data)[i] = (float) v; break;
            case GGML_TYPE_F16:  ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16((float) v); break;
            case GGML_TYPE_BF16: ((ggml_bf16_t *) t->data)[i] = ggml_fp32_to_bf16((float) v); break;
            case GGML_TYPE_I32:  ((int32_t *) t->data)[i] = (int32_t) floor(v); break;
            default: break;
        }
    }
}

static tensor * rnd4(enum ggml_type type, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    tensor * t = ggml_new_tensor_4d(g_ctx, type, n0, n1, n2, n3);
    if (t != NULL) {
        fill_uniform(t, g_lo, g_hi);
    }
    return t;
}

static void set_f(tensor * t, int64_t i, float v) {
    if (t->type == GGML_TYPE_F16) {
        ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(v);
    } else {
        ((float *) t->data)[i] = v;
    }
}

// a [n0, n1, n2, n3] view whose dims 0 and 1 are swapped in memory: elements of a row are not
// adjacent (made by permuting a contiguous [n1, n0, n2, n3] tensor)
static tensor * rnd4_transposed(enum ggml_type type, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    tensor * t = rnd4(type, n1, n0, n2, n3);
    return t ? ggml_transpose(g_ctx, t) : NULL;
}

// a [n0, n1, n2, n3] view into a larger tensor: rows padded by `pad` elements, an offset of
// one row
static tensor * rnd4_padded(enum ggml_type type, int64_t n0, int64_t n1, int64_t n2, int64_t n3, int64_t pad) {
    tensor * big = rnd4(type, n0 + pad, n1 + 1, n2, n3);
    if (big == NULL) {
        return NULL;
    }
    return ggml_view_4d(g_ctx, big, n0, n1, n2, n3, big->nb[1], big->nb[2], big->nb[3], big->nb[1]);
}

// Computes `node` on n_threads and compares it with the reference.
static void check_node(const char * label, tensor * node, double bound, int n_threads) {
    if (!TEST_CHECK_MSG(node != NULL, "%s: constructor returned NULL", label)) {
        return;
    }
    if (!TEST_CHECK_MSG(ggml_ref_supports(node), "%s: not covered by the reference", label)) {
        return;
    }
    const int64_t n = ggml_nelements(node);
    double * ref = malloc((size_t) (n > 0 ? n : 1)*sizeof(double));
    float  * got = malloc((size_t) (n > 0 ? n : 1)*sizeof(float));
    char err[256];
    // the reference first: in-place nodes overwrite their source
    const bool ref_ok = ref != NULL && got != NULL && ggml_ref_compute(node, ref, err, sizeof(err));
    if (!TEST_CHECK_MSG(ref_ok, "%s: reference failed: %s", label, err)) {
        free(ref);
        free(got);
        return;
    }
    TEST_CHECK_MSG(ggml_cpu_op_supports(node), "%s: CPU supports_op is false", label);

    struct ggml_cgraph * gf = ggml_new_graph(g_ctx);
    ggml_build_forward_expand(gf, node);
    const enum ggml_status st = ggml_graph_compute_with_ctx(g_ctx, gf, n_threads);
    if (TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "%s (%d threads): compute status %d", label, n_threads, (int) st)) {
        int64_t i = 0;
        for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
            for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
                for (int64_t i1 = 0; i1 < node->ne[1]; i1++) {
                    for (int64_t i0 = 0; i0 < node->ne[0]; i0++) {
                        got[i++] = (float) ggml_ref_get(node, i0, i1, i2, i3);
                    }
                }
            }
        }
        const double e = ggml_ref_nmse(ref, got, n);
        TEST_CHECK_MSG(e <= bound, "%s (%d threads, %s): NMSE %.3g > %.3g", label, n_threads,
                ggml_cpu_isa_name(ggml_cpu_isa()), e, bound);
    }
    free(ref);
    free(got);
}

// Runs build(arg) once per thread count (1, 2) on a fresh context, so in-place cases start
// from fresh data each time.
typedef tensor * (*build_fn)(const void * arg);

static void run_case(const char * label, build_fn build, const void * arg, double bound) {
    for (int nth = 1; nth <= 2; nth++) {
        ggml_reset(g_ctx);
        tensor * node = build(arg);
        check_node(label, node, bound, nth);
    }
}

//
// norm family
//

struct norm_case {
    enum ggml_op op;
    int64_t ne[4];
    int layout;     // 0 contiguous, 1 transposed rows, 2 padded rows, 3 in place
    float eps;
    int n_groups;
    enum ggml_type type; // of the data and the result (0 = F32)
};

static tensor * build_norm(const void * arg) {
    const struct norm_case * c = arg;
    // off-centre data: the mean is not 0
    g_lo = -0.5; g_hi = 1.5;
    tensor * a;
    switch (c->layout) {
        case 1:  a = rnd4_transposed(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3]); break;
        case 2:  a = rnd4_padded(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3], 5); break;
        default: a = rnd4(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3]); break;
    }
    g_lo = -1.0; g_hi = 1.0;
    if (a == NULL) {
        return NULL;
    }
    const bool ip = c->layout == 3;
    switch (c->op) {
        case GGML_OP_NORM:       return ip ? ggml_norm_inplace(g_ctx, a, c->eps)     : ggml_norm(g_ctx, a, c->eps);
        case GGML_OP_RMS_NORM:   return ip ? ggml_rms_norm_inplace(g_ctx, a, c->eps) : ggml_rms_norm(g_ctx, a, c->eps);
        case GGML_OP_L2_NORM:    return ip ? ggml_l2_norm_inplace(g_ctx, a, c->eps)  : ggml_l2_norm(g_ctx, a, c->eps);
        case GGML_OP_GROUP_NORM: return ip ? ggml_group_norm_inplace(g_ctx, a, c->n_groups, c->eps)
                                           : ggml_group_norm(g_ctx, a, c->n_groups, c->eps);
        case GGML_OP_DIAG_MASK_INF:  return ip ? ggml_diag_mask_inf_inplace(g_ctx, a, c->n_groups)
                                               : ggml_diag_mask_inf(g_ctx, a, c->n_groups);
        case GGML_OP_DIAG_MASK_ZERO: return ip ? ggml_diag_mask_zero_inplace(g_ctx, a, c->n_groups)
                                               : ggml_diag_mask_zero(g_ctx, a, c->n_groups);
        default: return NULL;
    }
}

static void test_norms(void) {
    static const enum ggml_op row_ops[] = { GGML_OP_NORM, GGML_OP_RMS_NORM, GGML_OP_L2_NORM };
    static const int64_t shapes[][4] = { { 64, 5, 3, 2 }, { 1000, 3, 1, 1 }, { 7, 2, 2, 2 }, { 1, 4, 1, 1 }, { 33, 1, 2, 3 } };
    char label[160];
    for (size_t o = 0; o < sizeof(row_ops)/sizeof(row_ops[0]); o++) {
        for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
            for (int layout = 0; layout < 4; layout++) {
                struct norm_case c = { row_ops[o], { shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3] }, layout, 1e-5f, 0, GGML_TYPE_F32 };
                if (row_ops[o] == GGML_OP_L2_NORM && s == 3) {
                    c.eps = 2.0f; // eps larger than the norm of a 1-element row
                }
                snprintf(label, sizeof(label), "%s [%lld,%lld,%lld,%lld] layout %d", ggml_op_name(c.op),
                        (long long) c.ne[0], (long long) c.ne[1], (long long) c.ne[2], (long long) c.ne[3], layout);
                run_case(label, build_norm, &c, NMSE_F32);
            }
        }
    }
    static const struct { int64_t ne[4]; int g; } gn[] = {
        { { 5, 4, 6, 2 }, 3 }, { { 5, 4, 6, 2 }, 4 }, { { 16, 8, 32, 1 }, 32 }, { { 3, 3, 7, 1 }, 2 }, { { 40, 1, 4, 2 }, 1 },
    };
    for (size_t i = 0; i < sizeof(gn)/sizeof(gn[0]); i++) {
        for (int layout = 0; layout < 4; layout++) {
            struct norm_case c = { GGML_OP_GROUP_NORM, { gn[i].ne[0], gn[i].ne[1], gn[i].ne[2], gn[i].ne[3] }, layout, 1e-6f, gn[i].g, GGML_TYPE_F32 };
            snprintf(label, sizeof(label), "GROUP_NORM [%lld,%lld,%lld,%lld] groups %d layout %d",
                    (long long) c.ne[0], (long long) c.ne[1], (long long) c.ne[2], (long long) c.ne[3], c.n_groups, layout);
            run_case(label, build_norm, &c, NMSE_F32);
        }
    }
    // F16 / BF16 data and results
    static const enum ggml_op all_ops[] = { GGML_OP_NORM, GGML_OP_RMS_NORM, GGML_OP_L2_NORM, GGML_OP_GROUP_NORM,
                                            GGML_OP_DIAG_MASK_INF, GGML_OP_DIAG_MASK_ZERO };
    for (int t = 0; t < 2; t++) {
        const enum ggml_type type = t == 0 ? GGML_TYPE_F16 : GGML_TYPE_BF16;
        for (size_t o = 0; o < sizeof(all_ops)/sizeof(all_ops[0]); o++) {
            for (int layout = 0; layout < 4; layout++) {
                const bool diag = all_ops[o] == GGML_OP_DIAG_MASK_INF || all_ops[o] == GGML_OP_DIAG_MASK_ZERO;
                struct norm_case c = { all_ops[o], { 37, 3, 4, 2 }, layout, 1e-5f, all_ops[o] == GGML_OP_GROUP_NORM ? 3 : 1, type };
                snprintf(label, sizeof(label), "%s %s layout %d", ggml_op_name(c.op), ggml_type_name(type), layout);
                run_case(label, build_norm, &c, diag ? NMSE_F32 : (t == 0 ? NMSE_F16_OUT : NMSE_BF16_OUT));
            }
        }
    }
    static const int n_pasts[] = { 0, 2, -1, 100 };
    for (int op = 0; op < 2; op++) {
        for (size_t p = 0; p < sizeof(n_pasts)/sizeof(n_pasts[0]); p++) {
            for (int layout = 0; layout < 4; layout++) {
                struct norm_case c = { op == 0 ? GGML_OP_DIAG_MASK_INF : GGML_OP_DIAG_MASK_ZERO, { 9, 6, 3, 2 }, layout, 0.0f, n_pasts[p], GGML_TYPE_F32 };
                snprintf(label, sizeof(label), "%s n_past %d layout %d", ggml_op_name(c.op), n_pasts[p], layout);
                run_case(label, build_norm, &c, NMSE_F32);
            }
        }
    }
}

struct softmax_case {
    int64_t ne[4];
    enum ggml_type mask_type; // GGML_TYPE_COUNT: no mask
    int64_t mask_ne1, mask_ne2, mask_ne3;
    float scale, max_bias;
    bool sinks, inplace, causal;
    enum ggml_type type; // of the data and the result (0 = F32)
};

static tensor * build_softmax(const void * arg) {
    const struct softmax_case * c = arg;
    tensor * a = rnd4(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3]);
    if (a == NULL) {
        return NULL;
    }
    fill_uniform(a, -4.0, 4.0);
    tensor * mask = NULL;
    if (c->mask_type != GGML_TYPE_COUNT) {
        mask = rnd4(c->mask_type, c->ne[0], c->mask_ne1, c->mask_ne2, c->mask_ne3);
        if (mask == NULL) {
            return NULL;
        }
        if (c->causal) {
            for (int64_t i3 = 0; i3 < mask->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < mask->ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < mask->ne[1]; i1++) {
                        for (int64_t i0 = 0; i0 < mask->ne[0]; i0++) {
                            if (i0 > i1 + 1) {
                                set_f(mask, i0 + mask->ne[0]*(i1 + mask->ne[1]*(i2 + mask->ne[2]*i3)), -INFINITY);
                            }
                        }
                    }
                }
            }
        }
    }
    tensor * r = c->inplace ? ggml_soft_max_ext_inplace(g_ctx, a, mask, c->scale, c->max_bias)
                            : ggml_soft_max_ext(g_ctx, a, mask, c->scale, c->max_bias);
    if (r != NULL && c->sinks) {
        tensor * s = rnd4(GGML_TYPE_F32, c->ne[2], 1, 1, 1);
        fill_uniform(s, -2.0, 3.0);
        ggml_soft_max_add_sinks(r, s);
    }
    return r;
}

static void test_softmax(void) {
    const enum ggml_type none = GGML_TYPE_COUNT;
    const struct softmax_case cases[] = {
        { { 16, 4, 1, 1 },    none,          0, 0, 0, 1.0f,   0.0f, false, false, false, GGML_TYPE_F32 },
        { { 1000, 3, 2, 1 },  none,          0, 0, 0, 0.5f,   0.0f, false, true,  false, GGML_TYPE_F32 },
        { { 37, 5, 6, 2 },    GGML_TYPE_F32, 5, 1, 1, 0.125f, 0.0f, false, false, true,  GGML_TYPE_F32 },
        { { 37, 5, 6, 2 },    GGML_TYPE_F16, 8, 1, 1, 0.125f, 0.0f, false, false, true,  GGML_TYPE_F32 },
        { { 37, 5, 6, 2 },    GGML_TYPE_F16, 5, 6, 2, 1.0f,   0.0f, false, false, false, GGML_TYPE_F32 },
        { { 37, 5, 6, 2 },    GGML_TYPE_F32, 5, 3, 1, 1.0f,   0.0f, true,  false, true,  GGML_TYPE_F32 },
        { { 64, 7, 6, 1 },    GGML_TYPE_F32, 7, 1, 1, 0.3f,   8.0f, false, false, true,  GGML_TYPE_F32 }, // ALiBi, 6 heads
        { { 64, 7, 5, 2 },    GGML_TYPE_F16, 9, 5, 1, 0.3f,   4.0f, true,  false, false, GGML_TYPE_F32 },
        { { 3, 2, 4, 1 },     none,          0, 0, 0, 2.0f,   0.0f, true,  true,  false, GGML_TYPE_F32 },
        { { 130, 3, 4, 3 },   GGML_TYPE_F16, 3, 2, 3, 0.7f,   2.0f, true,  true,  true,  GGML_TYPE_F32 },
        { { 37, 5, 6, 2 },    GGML_TYPE_F16, 8, 3, 1, 0.125f, 4.0f, true,  false, true,  GGML_TYPE_F16  },
        { { 64, 3, 2, 1 },    none,          0, 0, 0, 1.0f,   0.0f, false, true,  false, GGML_TYPE_BF16 },
    };
    char label[160];
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        const struct softmax_case * c = &cases[i];
        snprintf(label, sizeof(label), "SOFT_MAX #%zu %s [%lld,%lld,%lld,%lld] mask %s scale %g max_bias %g sinks %d",
                i, ggml_type_name(c->type), (long long) c->ne[0], (long long) c->ne[1], (long long) c->ne[2], (long long) c->ne[3],
                c->mask_type == none ? "none" : ggml_type_name(c->mask_type), (double) c->scale, (double) c->max_bias, c->sinks);
        const double bound = c->type == GGML_TYPE_F16 ? NMSE_F16_OUT : c->type == GGML_TYPE_BF16 ? NMSE_BF16_OUT : NMSE_F32;
        run_case(label, build_softmax, c, bound);
    }
}

//
// rope
//

struct rope_case {
    enum ggml_type type;
    int64_t ne[4];
    int n_dims, mode;
    int sections[4];
    bool ff, yarn, inplace;
    int layout; // 0 contiguous, 1 padded rows, 2 transposed (dims 0 and 1 swapped in memory)
    bool seq;   // consecutive positions (runs, a repeat and a jump) instead of random ones
};

static tensor * build_rope(const void * arg) {
    const struct rope_case * c = arg;
    tensor * a;
    switch (c->layout) {
        case 1:  a = rnd4_padded(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3], 8); break;
        case 2:  a = rnd4_transposed(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3]); break;
        default: a = rnd4(c->type, c->ne[0], c->ne[1], c->ne[2], c->ne[3]); break;
    }
    const bool multi = (c->mode & GGML_ROPE_TYPE_MROPE) != 0;
    tensor * pos = ggml_new_tensor_1d(g_ctx, GGML_TYPE_I32, (multi ? 4 : 1)*c->ne[2]);
    if (a == NULL || pos == NULL) {
        return NULL;
    }
    fill_uniform(pos, 0.0, 3000.0);
    if (c->seq) {
        // the cache advances by rotation along runs of consecutive positions: runs longer than
        // its restart interval (64), a repeated position, a jump backwards, large positions, and
        // at the end positions whose angles leave the range of the cache's own cos/sin (2^20 quadrants)
        int32_t * pd = (int32_t *) pos->data;
        for (int64_t i = 0; i < c->ne[2]; i++) {
            pd[i] = (int32_t) (i < 150 ? 20000 + i : (i == 150 ? 20149 : (i >= 290 ? 3000000 + 5*i : 7 + i)));
        }
    }
    tensor * ff = NULL;
    const int n_pairs = c->mode == GGML_ROPE_TYPE_VISION ? c->n_dims : c->n_dims/2;
    if (c->ff) {
        ff = ggml_new_tensor_1d(g_ctx, GGML_TYPE_F32, n_pairs);
        if (ff == NULL) {
            return NULL;
        }
        fill_uniform(ff, 0.5, 4.0);
    }
    const float freq_base   = c->yarn ? 500000.0f : 10000.0f;
    const float freq_scale  = c->yarn ? 0.25f : 1.0f;
    const float ext_factor  = c->yarn ? 1.0f : 0.0f;
    const float attn_factor = c->yarn ? 1.1f : 1.0f;
    const int   n_ctx_orig  = c->yarn ? 4096 : 0;
    if (multi) {
        int sec[4] = { c->sections[0], c->sections[1], c->sections[2], c->sections[3] };
        return ggml_rope_multi(g_ctx, a, pos, ff, c->n_dims, sec, c->mode, n_ctx_orig,
                freq_base, freq_scale, ext_factor, attn_factor, 32.0f, 1.0f);
    }
    if (c->inplace) {
        return ggml_rope_ext_inplace(g_ctx, a, pos, ff, c->n_dims, c->mode, n_ctx_orig,
                freq_base, freq_scale, ext_factor, attn_factor, 32.0f, 1.0f);
    }
    return ggml_rope_ext(g_ctx, a, pos, ff, c->n_dims, c->mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, 32.0f, 1.0f);
}

static void test_rope(void) {
    static const struct { int64_t ne0, ne1, ne2, ne3; int n_dims; } shapes[] = {
        { 64, 4, 5, 1, 64 }, { 128, 2, 3, 2, 32 }, { 10, 3, 4, 1, 6 }, { 80, 2, 7, 1, 80 },
    };
    static const int modes[] = { GGML_ROPE_TYPE_NORMAL, GGML_ROPE_TYPE_NEOX };
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    char label[200];
    for (size_t t = 0; t < 3; t++) {
        for (size_t m = 0; m < 2; m++) {
            for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
                for (int v = 0; v < 4; v++) { // bit 0: freq factors, bit 1: YaRN
                    const int layout = (int) ((s + (size_t) v) % 3);
                    struct rope_case c = { types[t], { shapes[s].ne0, shapes[s].ne1, shapes[s].ne2, shapes[s].ne3 },
                        shapes[s].n_dims, modes[m], { 0, 0, 0, 0 }, (v & 1) != 0, (v & 2) != 0, v == 3 && layout == 0, layout, false };
                    snprintf(label, sizeof(label), "ROPE %s mode %d [%lld,%lld,%lld,%lld] n_dims %d ff %d yarn %d layout %d inplace %d",
                            ggml_type_name(c.type), c.mode, (long long) c.ne[0], (long long) c.ne[1], (long long) c.ne[2],
                            (long long) c.ne[3], c.n_dims, c.ff, c.yarn, c.layout, c.inplace);
                    run_case(label, build_rope, &c, c.type == GGML_TYPE_F16 ? NMSE_F16_OUT : c.type == GGML_TYPE_BF16 ? NMSE_BF16_OUT : NMSE_F32);
                }
            }
        }
    }
    // consecutive positions (the cache's recurrence), 300 tokens, both single-position modes
    for (size_t m = 0; m < 2; m++) {
        for (int v = 0; v < 4; v++) {
            struct rope_case c = { GGML_TYPE_F32, { 64, 2, 300, 1 }, 64, modes[m], { 0, 0, 0, 0 }, (v & 1) != 0,
                (v & 2) != 0, false, 0, true };
            snprintf(label, sizeof(label), "ROPE F32 mode %d consecutive positions ff %d yarn %d", c.mode, c.ff, c.yarn);
            run_case(label, build_rope, &c, NMSE_F32);
        }
    }
    // multi-section modes
    static const struct { int mode; int64_t ne0; int n_dims; int sec[4]; } multi[] = {
        { GGML_ROPE_TYPE_MROPE,  128, 128, { 16, 24, 24, 0 } },
        { GGML_ROPE_TYPE_MROPE,   20,  16, {  2,  3,  3, 0 } },
        { GGML_ROPE_TYPE_MROPE,   64,  64, {  8,  8,  8, 8 } },
        { GGML_ROPE_TYPE_IMROPE, 128, 128, { 24, 20, 20, 0 } },
        { GGML_ROPE_TYPE_IMROPE,  36,  32, {  6,  5,  5, 0 } },
        { GGML_ROPE_TYPE_VISION,  64,  32, { 16, 16,  0, 0 } },
        { GGML_ROPE_TYPE_VISION,  40,  20, {  4,  6,  0, 0 } },
    };
    for (size_t t = 0; t < 3; t++) {
        for (size_t i = 0; i < sizeof(multi)/sizeof(multi[0]); i++) {
            for (int v = 0; v < 4; v++) {
                const int layout = (int) ((i + (size_t) v) % 3);
                struct rope_case c = { types[t], { multi[i].ne0, 3, 5, 1 }, multi[i].n_dims, multi[i].mode,
                    { multi[i].sec[0], multi[i].sec[1], multi[i].sec[2], multi[i].sec[3] }, (v & 1) != 0, (v & 2) != 0, false, layout, false };
                snprintf(label, sizeof(label), "ROPE %s mode %d ne0 %lld n_dims %d sections %d,%d,%d,%d ff %d yarn %d layout %d",
                        ggml_type_name(c.type), c.mode, (long long) c.ne[0], c.n_dims, c.sections[0], c.sections[1],
                        c.sections[2], c.sections[3], c.ff, c.yarn, c.layout);
                run_case(label, build_rope, &c, c.type == GGML_TYPE_F16 ? NMSE_F16_OUT : c.type == GGML_TYPE_BF16 ? NMSE_BF16_OUT : NMSE_F32);
            }
        }
    }
}

//
// flash attention
//

struct fa_case {
    int64_t dk, dv, n_q, n_kv, n_head, n_head_kv, ne3;
    enum ggml_type kv_type;
    enum ggml_type mask_type; // GGML_TYPE_COUNT: none
    int64_t mask_ne2, mask_ne3;
    int mask_kind;            // 0 random, 1 causal, 2 causal with fully masked rows
    float max_bias, softcap;
    bool sinks, permuted;
    enum ggml_type q_type;
};

static tensor * build_fa(const void * arg) {
    const struct fa_case * c = arg;
    tensor * q, * k, * v;
    if (c->permuted) {
        // heads and rows swapped in memory, as a view of a [D, H, N, B] tensor
        tensor * q0 = rnd4(c->q_type, c->dk, c->n_head, c->n_q, c->ne3);
        tensor * k0 = rnd4(c->kv_type, c->dk, c->n_head_kv, c->n_kv, c->ne3);
        tensor * v0 = rnd4(c->kv_type, c->dv, c->n_head_kv, c->n_kv, c->ne3);
        if (q0 == NULL || k0 == NULL || v0 == NULL) {
            return NULL;
        }
        q = ggml_permute(g_ctx, q0, 0, 2, 1, 3);
        k = ggml_permute(g_ctx, k0, 0, 2, 1, 3);
        v = ggml_permute(g_ctx, v0, 0, 2, 1, 3);
    } else {
        q = rnd4(c->q_type, c->dk, c->n_q, c->n_head, c->ne3);
        k = rnd4(c->kv_type, c->dk, c->n_kv, c->n_head_kv, c->ne3);
        v = rnd4(c->kv_type, c->dv, c->n_kv, c->n_head_kv, c->ne3);
    }
    if (q == NULL || k == NULL || v == NULL) {
        return NULL;
    }
    tensor * mask = NULL;
    if (c->mask_type != GGML_TYPE_COUNT) {
        const int64_t n_q_pad = c->n_q + 3;
        mask = rnd4(c->mask_type, c->n_kv, n_q_pad, c->mask_ne2, c->mask_ne3);
        if (mask == NULL) {
            return NULL;
        }
        if (c->mask_kind != 0) {
            for (int64_t i3 = 0; i3 < mask->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < mask->ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < mask->ne[1]; i1++) {
                        for (int64_t i0 = 0; i0 < mask->ne[0]; i0++) {
                            const int64_t idx = i0 + mask->ne[0]*(i1 + mask->ne[1]*(i2 + mask->ne[2]*i3));
                            bool masked = i0 > c->n_kv - c->n_q + i1;
                            if (c->mask_kind == 2 && (i1 % 3 == 1)) {
                                masked = true; // every column of this row
                            }
                            set_f(mask, idx, masked ? -INFINITY : 0.0f);
                        }
                    }
                }
            }
        }
    }
    tensor * r = ggml_flash_attn_ext(g_ctx, q, k, v, mask, 1.0f/sqrtf((float) c->dk), c->max_bias, c->softcap);
    if (r != NULL && c->sinks) {
        tensor * s = rnd4(GGML_TYPE_F32, c->n_head, 1, 1, 1);
        fill_uniform(s, -1.0, 2.0);
        ggml_flash_attn_ext_add_sinks(r, s);
    }
    return r;
}

static void test_flash_attn(void) {
    const enum ggml_type none = GGML_TYPE_COUNT;
    const enum ggml_type F32 = GGML_TYPE_F32, F16 = GGML_TYPE_F16, BF16 = GGML_TYPE_BF16;
    const struct fa_case cases[] = {
        //  dk   dv  n_q n_kv  H  Hk B  kv    mask  m2 m3 kind bias softcap sinks perm q
        {  64,  64,  1,  37, 4, 4, 1, F32,  none, 1, 1, 0, 0.0f,  0.0f, false, false, F32 },
        {  64,  64,  7, 130, 4, 2, 1, F16,  F16,  1, 1, 1, 0.0f,  0.0f, false, false, F32 },
        { 128, 128, 13, 257, 4, 1, 1, F16,  F16,  1, 1, 2, 0.0f,  0.0f, false, false, F32 },
        {  48,  32,  5,  70, 6, 3, 2, F32,  F32,  6, 2, 0, 0.0f,  0.0f, false, false, F32 },
        {  40,  40,  4,  33, 8, 2, 1, F16,  F16,  1, 1, 1, 8.0f,  0.0f, false, false, F32 }, // ALiBi
        {  64,  64,  6, 100, 4, 4, 1, F32,  F16,  2, 1, 1, 0.0f, 30.0f, false, false, F32 }, // softcap
        {  32,  16,  3,  65, 4, 2, 1, F16,  F32,  1, 1, 2, 0.0f,  0.0f, true,  false, F32 }, // sinks
        {  80,  80,  9,  45, 4, 2, 2, F16,  F16,  4, 2, 1, 0.0f,  0.0f, false, true,  F32 }, // permuted views
        {  64,  64,  2,  19, 2, 1, 1, BF16, F16,  1, 1, 0, 0.0f,  0.0f, false, false, F32 },
        {   5,   7,  3,  11, 3, 3, 1, F32,  none, 1, 1, 0, 0.0f,  0.0f, true,  true,  F32 },
        { 128,  64,  1, 600, 8, 2, 1, F16,  F16,  1, 1, 1, 5.0f, 20.0f, true,  false, F32 },
        {  64,  48,  5,  90, 4, 2, 1, F16,  F16,  1, 1, 1, 0.0f,  0.0f, true,  false, F16 }, // F16 q
        {  32,  32,  3,  40, 2, 2, 1, BF16, none, 1, 1, 0, 0.0f,  0.0f, false, true,  BF16 }, // BF16 q
    };
    char label[200];
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        const struct fa_case * c = &cases[i];
        snprintf(label, sizeof(label), "FLASH_ATTN_EXT #%zu dk %lld dv %lld q %lld kv %lld heads %lld/%lld %s mask %s",
                i, (long long) c->dk, (long long) c->dv, (long long) c->n_q, (long long) c->n_kv,
                (long long) c->n_head, (long long) c->n_head_kv, ggml_type_name(c->kv_type),
                c->mask_type == none ? "none" : ggml_type_name(c->mask_type));
        run_case(label, build_fa, c, NMSE_F32);
    }
}

//
// convolution family
//

struct conv_case {
    enum ggml_op op;
    int64_t kne[4], dne[4];       // kernel and data shapes (1-D IM2COL: kne[3], dne[3] = 1)
    enum ggml_type ktype, dtype, out_type;
    int s0, s1, p0, p1, d0, d1;
    bool is_2d, transposed_data;
    int pool_op, k0, k1;          // POOL_2D: op and kernel (strides s0, s1; padding p0, p1)
};

static tensor * build_conv(const void * arg) {
    const struct conv_case * c = arg;
    tensor * b = c->transposed_data ? rnd4_transposed(c->dtype, c->dne[0], c->dne[1], c->dne[2], c->dne[3])
                                    : rnd4(c->dtype, c->dne[0], c->dne[1], c->dne[2], c->dne[3]);
    if (b == NULL) {
        return NULL;
    }
    if (c->op == GGML_OP_POOL_2D) {
        return ggml_pool_2d(g_ctx, b, (enum ggml_op_pool) c->pool_op, c->k0, c->k1, c->s0, c->s1, (float) c->p0, (float) c->p1);
    }
    tensor * k = rnd4(c->ktype, c->kne[0], c->kne[1], c->kne[2], c->kne[3]);
    if (k == NULL) {
        return NULL;
    }
    if (c->op == GGML_OP_IM2COL) {
        if (!c->is_2d) {
            k = ggml_reshape_3d(g_ctx, k, c->kne[0], c->kne[1], c->kne[2]);
        }
        return ggml_im2col(g_ctx, k, b, c->s0, c->s1, c->p0, c->p1, c->d0, c->d1, c->is_2d, c->out_type);
    }
    return ggml_conv_2d_direct(g_ctx, k, b, c->s0, c->s1, c->p0, c->p1, c->d0, c->d1);
}

static void test_conv(void) {
    const enum ggml_type F32 = GGML_TYPE_F32, F16 = GGML_TYPE_F16, BF16 = GGML_TYPE_BF16;
    const enum ggml_op IM2COL = GGML_OP_IM2COL, CONV = GGML_OP_CONV_2D, POOL = GGML_OP_POOL_2D;
    const int MAX = GGML_OP_POOL_MAX, AVG = GGML_OP_POOL_AVG;
    const struct conv_case cases[] = {
        // op      kernel          data             ktype dtype out  s0 s1 p0 p1 d0 d1 2d     transp pool k0 k1
        { IM2COL, { 3, 3, 4, 2 }, {  9,  7, 4, 2 }, F16, F32, F32, 1, 1, 1, 1, 1, 1, true,  false, 0, 0, 0 },
        { IM2COL, { 3, 3, 4, 2 }, {  9,  7, 4, 2 }, F16, F32, F16, 1, 1, 1, 1, 1, 1, true,  false, 0, 0, 0 },
        { IM2COL, { 3, 2, 3, 1 }, { 11,  9, 3, 1 }, F32, F32, F32, 2, 1, 1, 0, 1, 2, true,  true,  0, 0, 0 },
        { IM2COL, { 5, 5, 2, 1 }, {  6,  6, 2, 1 }, F16, F16, F32, 3, 3, 2, 2, 1, 1, true,  false, 0, 0, 0 },
        { IM2COL, { 5, 5, 2, 1 }, {  6,  6, 2, 1 }, F16, F16, F16, 3, 3, 2, 2, 1, 1, true,  false, 0, 0, 0 },
        { IM2COL, { 3, 4, 2, 1 }, { 20,  4, 2, 1 }, F16, F32, F32, 2, 0, 1, 0, 2, 0, false, false, 0, 0, 0 },
        { IM2COL, { 3, 4, 2, 1 }, { 20,  4, 2, 1 }, F16, F32, F16, 2, 0, 1, 0, 2, 0, false, true,  0, 0, 0 },
        { IM2COL, { 1, 3, 1, 1 }, { 17,  3, 1, 1 }, F32, BF16, F32, 1, 0, 0, 0, 1, 0, false, false, 0, 0, 0 },
        // direct 2-D convolution
        { CONV,   { 3, 3, 4, 5 }, { 10,  8, 4, 2 }, F32, F32, F32, 1, 1, 1, 1, 1, 1, true,  false, 0, 0, 0 },
        { CONV,   { 3, 3, 4, 5 }, { 10,  8, 4, 2 }, F16, F32, F32, 2, 1, 0, 2, 1, 2, true,  false, 0, 0, 0 },
        { CONV,   { 1, 1, 8, 3 }, {  5,  4, 8, 1 }, F32, F32, F32, 1, 1, 0, 0, 1, 1, true,  false, 0, 0, 0 },
        { CONV,   { 3, 3,16,16 }, { 16, 16,16, 1 }, F32, F32, F32, 1, 1, 1, 1, 1, 1, true,  false, 0, 0, 0 },
        { CONV,   { 2, 3, 3, 4 }, {  7,  6, 3, 2 }, F16, F32, F32, 1, 2, 1, 1, 2, 1, true,  true,  0, 0, 0 },
        { CONV,   { 5, 3, 2, 3 }, {  4,  4, 2, 1 }, F32, F16, F32, 1, 1, 3, 2, 1, 1, true,  false, 0, 0, 0 },
        { CONV,   { 3, 3,37, 9 }, { 13, 11,37, 1 }, F16, F32, F32, 1, 1, 1, 1, 1, 1, true,  false, 0, 0, 0 },
        { CONV,   { 3, 3,120,5 }, {  6,  5,120,1 }, F32, F32, F32, 1, 1, 1, 1, 1, 1, true,  false, 0, 0, 0 }, // 32-position tiles
        { CONV,   { 3, 3,256,3 }, {  5,  4,256,2 }, BF16, F32, F32, 2, 1, 1, 1, 1, 1, true, true,  0, 0, 0 }, // 16-position tiles
        { CONV,   { 4, 4, 2, 6 }, { 70, 33, 2, 1 }, F32, F32, F32, 3, 2, 2, 1, 2, 1, true,  false, 0, 0, 0 }, // runs across rows
        // the GEMM path: channel blocks, several position tiles, a short last register tile
        { CONV,   { 4, 4,128,70 }, { 20, 20,128, 2 }, F16, F32, F32, 1, 1, 1, 2, 1, 1, true,  true,  0, 0, 0 },
        { CONV,   { 2, 2, 64,130}, {  9,  7, 64, 1 }, F32, F32, F32, 1, 1, 0, 3, 2, 1, true,  false, 0, 0, 0 },
        // padding wider than a run of positions (issue 22: lo past the run zeroed the next run's cells)
        { CONV,   { 1, 2, 1, 1 }, {  1,133, 1, 1 }, F32, F32, F32, 1, 1, 5, 1, 1, 1, true,  false, 0, 0, 0 },
        { CONV,   { 3, 2, 2, 3 }, {  2, 66, 2, 1 }, F16, F32, F32, 3, 1, 7, 2, 2, 3, true,  true,  0, 0, 0 },
        // pooling
        { POOL,   { 0, 0, 0, 0 }, {  9,  8, 3, 2 }, F32, F32, F32, 2, 1, 1, 0, 0, 0, true,  false, MAX, 3, 2 },
        { POOL,   { 0, 0, 0, 0 }, {  9,  8, 3, 2 }, F32, F32, F32, 2, 1, 1, 0, 0, 0, true,  false, AVG, 3, 2 },
        { POOL,   { 0, 0, 0, 0 }, {  8,  6, 2, 1 }, F32, F32, F32, 2, 2, 0, 0, 0, 0, true,  false, MAX, 2, 2 },
        { POOL,   { 0, 0, 0, 0 }, {  8,  6, 2, 1 }, F32, F32, F32, 2, 2, 0, 0, 0, 0, true,  false, AVG, 2, 2 },
        { POOL,   { 0, 0, 0, 0 }, {  7,  5, 4, 1 }, F32, F32, F32, 1, 1, 1, 1, 0, 0, true,  true,  MAX, 3, 3 },
        { POOL,   { 0, 0, 0, 0 }, { 10,  7, 2, 2 }, F32, F16, F32, 3, 2, 2, 1, 0, 0, true,  false, AVG, 4, 3 },
        { POOL,   { 0, 0, 0, 0 }, { 10,  7, 2, 2 }, F32, F16, F32, 3, 2, 2, 1, 0, 0, true,  true,  MAX, 4, 3 },
    };
    char label[200];
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        const struct conv_case * c = &cases[i];
        snprintf(label, sizeof(label), "%s #%zu data [%lld,%lld,%lld,%lld] %s -> %s s %d,%d p %d,%d d %d,%d",
                ggml_op_name(c->op), i, (long long) c->dne[0], (long long) c->dne[1], (long long) c->dne[2],
                (long long) c->dne[3], ggml_type_name(c->dtype), ggml_type_name(c->out_type),
                c->s0, c->s1, c->p0, c->p1, c->d0, c->d1);
        const double bound = c->op == IM2COL ? NMSE_EXACT : NMSE_F32;
        run_case(label, build_conv, c, bound);
    }
}

//
// supports() tells the truth for what it refuses
//

static void test_supports(void) {
    ggml_reset(g_ctx);
    tensor * a   = rnd4(GGML_TYPE_F32, 8, 2, 3, 1);
    tensor * a16 = rnd4(GGML_TYPE_F16, 8, 2, 3, 1);
    tensor * ai  = ggml_new_tensor_4d(g_ctx, GGML_TYPE_I32, 8, 2, 3, 1);

    // norm family: float types; masks F32/F16
    tensor * n = ggml_norm(g_ctx, ai, 1e-5f);
    TEST_CHECK(n != NULL && !ggml_cpu_op_supports(n));
    n = ggml_norm(g_ctx, a16, 1e-5f);
    TEST_CHECK(n != NULL && ggml_cpu_op_supports(n));
    tensor * sm = ggml_soft_max(g_ctx, a);
    TEST_CHECK(sm != NULL && ggml_cpu_op_supports(sm));
    if (sm != NULL) {
        sm->src[1] = ggml_new_tensor_4d(g_ctx, GGML_TYPE_I32, 8, 2, 1, 1); // not a mask type
        TEST_CHECK(!ggml_cpu_op_supports(sm));
    }
    tensor * dm = ggml_diag_mask_inf(g_ctx, ai, 0);
    TEST_CHECK(dm != NULL && !ggml_cpu_op_supports(dm));

    // rope: unknown modes, VISION needs ne0 == 2*n_dims
    tensor * pos = ggml_new_tensor_1d(g_ctx, GGML_TYPE_I32, 3);
    tensor * r = ggml_rope(g_ctx, a, pos, 8, 4);
    TEST_CHECK(r != NULL && !ggml_cpu_op_supports(r));
    r = ggml_rope(g_ctx, a, pos, 8, GGML_ROPE_TYPE_NEOX);
    TEST_CHECK(r != NULL && ggml_cpu_op_supports(r));
    tensor * pos4 = ggml_new_tensor_1d(g_ctx, GGML_TYPE_I32, 12);
    int sec[4] = { 2, 2, 0, 0 };
    r = ggml_rope_multi(g_ctx, a, pos4, NULL, 8, sec, GGML_ROPE_TYPE_VISION, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    TEST_CHECK(r != NULL && !ggml_cpu_op_supports(r)); // ne0 8 != 2*8
    r = ggml_rope(g_ctx, ai, pos, 8, 0);
    TEST_CHECK(r != NULL && !ggml_cpu_op_supports(r));

    // flash attention: K/V of a float type with adjacent elements
    tensor * q  = rnd4(GGML_TYPE_F32, 16, 3, 2, 1);
    tensor * ki = ggml_new_tensor_4d(g_ctx, GGML_TYPE_I32, 16, 5, 2, 1);
    tensor * k  = rnd4(GGML_TYPE_F16, 16, 5, 2, 1);
    tensor * fa = ggml_flash_attn_ext(g_ctx, q, ki, k, NULL, 1.0f, 0.0f, 0.0f);
    TEST_CHECK(fa != NULL && !ggml_cpu_op_supports(fa));
    fa = ggml_flash_attn_ext(g_ctx, q, k, k, NULL, 1.0f, 0.0f, 0.0f);
    TEST_CHECK(fa != NULL && ggml_cpu_op_supports(fa));
    tensor * kt = ggml_view_4d(g_ctx, rnd4(GGML_TYPE_F16, 5, 16, 2, 1), 16, 5, 2, 1, 5*2, 5*16*2, 5*16*2*2, 0);
    if (kt != NULL) {
        const size_t t = kt->nb[0]; kt->nb[0] = kt->nb[1]; kt->nb[1] = t; // elements of a row 10 bytes apart
        fa = ggml_flash_attn_ext(g_ctx, q, kt, k, NULL, 1.0f, 0.0f, 0.0f);
        TEST_CHECK(fa != NULL && !ggml_cpu_op_supports(fa));
    }

    // conv family
    tensor * img = rnd4(GGML_TYPE_F32, 9, 9, 2, 1);
    tensor * pl = ggml_pool_2d(g_ctx, ggml_new_tensor_4d(g_ctx, GGML_TYPE_I32, 9, 9, 2, 1), GGML_OP_POOL_MAX, 2, 2, 2, 2, 0, 0);
    TEST_CHECK(pl != NULL && !ggml_cpu_op_supports(pl));
    tensor * kern_i = ggml_new_tensor_4d(g_ctx, GGML_TYPE_I32, 3, 3, 2, 4);
    tensor * cv = ggml_conv_2d_direct(g_ctx, kern_i, img, 1, 1, 0, 0, 1, 1);
    TEST_CHECK(cv != NULL && !ggml_cpu_op_supports(cv));
    tensor * kern = rnd4(GGML_TYPE_F32, 3, 3, 2, 4);
    cv = ggml_conv_2d_direct(g_ctx, kern, img, 1, 1, 0, 0, 1, 1);
    TEST_CHECK(cv != NULL && ggml_cpu_op_supports(cv));
    tensor * ic = ggml_im2col(g_ctx, kern, img, 1, 1, 0, 0, 1, 1, true, GGML_TYPE_F32);
    TEST_CHECK(ic != NULL && ggml_cpu_op_supports(ic));
    if (ic != NULL) {
        ic->op_params[0] = 0; // stride 0: never made by the constructor
        TEST_CHECK(!ggml_cpu_op_supports(ic));
    }
}

//
// empty tensors: nothing to compute, and nothing may crash
//

static void check_empty(const char * label, tensor * node) {
    if (!TEST_CHECK_MSG(node != NULL, "%s: constructor returned NULL", label)) {
        return;
    }
    TEST_CHECK_MSG(ggml_cpu_op_supports(node), "%s: CPU supports_op is false", label);
    for (int nth = 1; nth <= 2; nth++) {
        struct ggml_cgraph * gf = ggml_new_graph(g_ctx);
        ggml_build_forward_expand(gf, node);
        const enum ggml_status st = ggml_graph_compute_with_ctx(g_ctx, gf, nth);
        TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "%s (%d threads): status %d", label, nth, (int) st);
    }
}

static void test_empty(void) {
    ggml_reset(g_ctx);
    check_empty("NORM rows of 0", ggml_norm(g_ctx, rnd4(GGML_TYPE_F32, 0, 3, 1, 1), 1e-5f));
    check_empty("RMS_NORM no rows", ggml_rms_norm(g_ctx, rnd4(GGML_TYPE_F32, 8, 0, 2, 1), 1e-5f));
    check_empty("SOFT_MAX no rows", ggml_soft_max(g_ctx, rnd4(GGML_TYPE_F32, 8, 0, 1, 1)));
    check_empty("GROUP_NORM empty planes", ggml_group_norm(g_ctx, rnd4(GGML_TYPE_F32, 0, 4, 4, 1), 2, 1e-6f));
    check_empty("DIAG_MASK_INF no rows", ggml_diag_mask_inf(g_ctx, rnd4(GGML_TYPE_F32, 5, 0, 1, 1), 0));
    check_empty("ROPE no tokens", ggml_rope(g_ctx, rnd4(GGML_TYPE_F32, 8, 2, 0, 1), ggml_new_tensor_1d(g_ctx, GGML_TYPE_I32, 0), 8, 0));
    check_empty("FLASH_ATTN_EXT no queries", ggml_flash_attn_ext(g_ctx, rnd4(GGML_TYPE_F32, 16, 0, 2, 1),
            rnd4(GGML_TYPE_F16, 16, 5, 1, 1), rnd4(GGML_TYPE_F16, 16, 5, 1, 1), NULL, 1.0f, 0.0f, 0.0f));
    check_empty("FLASH_ATTN_EXT no heads", ggml_flash_attn_ext(g_ctx, rnd4(GGML_TYPE_F32, 16, 3, 0, 1),
            rnd4(GGML_TYPE_F16, 16, 5, 1, 1), rnd4(GGML_TYPE_F16, 16, 5, 1, 1), NULL, 1.0f, 0.0f, 0.0f));
    tensor * fa0 = ggml_flash_attn_ext(g_ctx, rnd4(GGML_TYPE_F32, 16, 3, 2, 1),
            rnd4(GGML_TYPE_F16, 16, 0, 1, 1), rnd4(GGML_TYPE_F16, 16, 0, 1, 1), NULL, 1.0f, 0.0f, 0.0f);
    check_empty("FLASH_ATTN_EXT no keys", fa0);
    if (fa0 != NULL) {
        bool zero = true;
        for (int64_t i = 0; i < ggml_nelements(fa0); i++) {
            zero = zero && ((const float *) fa0->data)[i] == 0.0f;
        }
        TEST_CHECK_MSG(zero, "FLASH_ATTN_EXT without keys: the result must be 0");
    }
    check_empty("CONV_2D no images", ggml_conv_2d_direct(g_ctx, rnd4(GGML_TYPE_F16, 3, 3, 2, 4), rnd4(GGML_TYPE_F32, 6, 6, 2, 0),
            1, 1, 0, 0, 1, 1));
    check_empty("CONV_2D no output channels", ggml_conv_2d_direct(g_ctx, rnd4(GGML_TYPE_F16, 3, 3, 2, 0), rnd4(GGML_TYPE_F32, 6, 6, 2, 1),
            1, 1, 0, 0, 1, 1));
    check_empty("IM2COL no images", ggml_im2col(g_ctx, rnd4(GGML_TYPE_F16, 3, 3, 2, 4), rnd4(GGML_TYPE_F32, 6, 6, 2, 0),
            1, 1, 0, 0, 1, 1, true, GGML_TYPE_F16));
    check_empty("POOL_2D no channels", ggml_pool_2d(g_ctx, rnd4(GGML_TYPE_F32, 6, 6, 0, 1), GGML_OP_POOL_AVG, 2, 2, 2, 2, 0, 0));
}

//
// driver
//

static int run_all(void) {
    g_ctx = ggml_init((struct ggml_init_params) { .mem_size = 64*1024*1024, .mem_buffer = NULL, .no_alloc = false });
    if (!TEST_CHECK(g_ctx != NULL)) {
        return test_finish("test-cpu-nn");
    }
    printf("SIMD level: %s\n", ggml_cpu_isa_name(ggml_cpu_isa()));
    test_norms();
    test_softmax();
    test_rope();
    test_flash_attn();
    test_conv();
    test_supports();
    test_empty();
    ggml_free(g_ctx);
    char name[64];
    snprintf(name, sizeof(name), "test-cpu-nn (%s)", ggml_cpu_isa_name(ggml_cpu_isa()));
    return test_finish(name);
}

int main(int argc, char ** argv) {
    (void) argc;
    test_rng_init();
    const char * isa = getenv("GGML_CPU_ISA");
    if (isa != NULL && isa[0] != '\0') {
        return run_all();
    }
    // one run per SIMD level, with the same seed
    static const char * const levels[] = { "portable", "avx2", "avx512" };
    char seed[32];
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long) test_rng_seed());
    setenv("TEST_SEED", seed, 1);
    int failed = 0;
    for (int i = 0; i < 3; i++) {
        setenv("GGML_CPU_ISA", levels[i], 1);
        fflush(stdout);
        pid_t pid;
        char * child_argv[] = { argv[0], NULL };
        int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child_argv, environ);
        int status = 0;
        if (rc != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("test-cpu-nn: the run with GGML_CPU_ISA=%s failed\n", levels[i]);
            failed++;
        }
    }
    printf("test-cpu-nn: %d passed, %d failed (SIMD levels)\n", 3 - failed, failed);
    return failed == 0 ? 0 : 1;
}
