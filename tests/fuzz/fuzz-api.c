// libFuzzer target: the input bytes are a program of API calls.
//
// The program creates tensors of random types and shapes, applies random op constructors with
// random parameters (most fail, with a logged error, on the shapes they get), and builds a graph
// of every node it made. The graph is then
//   1. allocated by the graph allocator in a CPU buffer and computed on the CPU backend; every
//      node the reference library covers is compared with ggml_ref_compute (a difference beyond a
//      loose bound is a finding);
//   2. built again from the same bytes and run by a scheduler over the TEST backend and the CPU;
//      its nodes must agree with those of run 1.
// Every node is marked as an output, so that no memory is reused and each node can be checked
// from its own sources after the computation. Ops that write into memory they do not own (cpy,
// set_rows, clamp, in-place ops: computing nodes that are views) mark that memory as clobbered;
// nodes that read clobbered memory are not compared.
//
// A finding aborts (libFuzzer then keeps the input); everything else must simply not crash, not
// leak and not trip the sanitizers. fuzz-replay.c feeds saved inputs to this function in a
// normal build.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "ggml-ref.h"
#include "ggml.h"
#include "test-backend.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

#define MAX_POOL   48
#define MAX_NODES  512
#define MAX_ELEMS  (1 << 16)

typedef struct ggml_tensor tensor;

struct reader {
    const uint8_t * p;
    size_t n;
};

static uint8_t rd(struct reader * r) {
    if (r->n == 0) {
        return 0;
    }
    r->n--;
    return *r->p++;
}

// a small extent: mostly 1..8, sometimes 0, 16 or 32
static int64_t rd_dim(struct reader * r) {
    const uint8_t b = rd(r);
    if (b >= 250) {
        return 0;
    }
    if (b >= 240) {
        return 16 << (b & 1);
    }
    return 1 + b % 8;
}

// a small signed integer parameter
static int rd_int(struct reader * r, int lo, int hi) {
    return lo + (int) (rd(r) % (unsigned) (hi - lo + 1));
}

static float rd_float(struct reader * r) {
    return ((float) rd(r) - 128.0f) / 32.0f;
}

struct prog {
    struct ggml_context * ctx;
    tensor * pool[MAX_POOL];
    bool leaf[MAX_POOL];
    int n;
    tensor * clobbered[MAX_POOL]; // roots written by cpy / set_rows
    int n_clobbered;
};

static tensor * pick(struct prog * pg, struct reader * r) {
    return pg->n == 0 ? NULL : pg->pool[rd(r) % pg->n];
}

static tensor * root_of(tensor * t) {
    return t->view_src != NULL ? t->view_src : t;
}

static void clobber(struct prog * pg, tensor * t) {
    if (t != NULL && pg->n_clobbered < MAX_POOL) {
        pg->clobbered[pg->n_clobbered++] = root_of(t);
    }
}

static bool is_clobbered(const struct prog * pg, tensor * t) {
    for (int i = 0; i < pg->n_clobbered; i++) {
        if (root_of(t) == pg->clobbered[i]) {
            return true;
        }
    }
    return false;
}

static void add(struct prog * pg, tensor * t, bool is_leaf) {
    if (t == NULL) {
        return;
    }
    // a computing node that is a view writes into another tensor's memory (cpy, set_rows, clamp
    // and the in-place ops): that memory no longer holds what the nodes reading it saw
    const bool pure_view = t->op == GGML_OP_NONE || t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE ||
                           t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE;
    if (t->view_src != NULL && !pure_view) {
        clobber(pg, t->view_src);
    }
    if (pg->n >= MAX_POOL || ggml_nelements(t) > MAX_ELEMS) {
        return;
    }
    ggml_format_name(t, "p%d", pg->n);
    if (getenv("FUZZ_API_TRACE") != NULL) {
        fprintf(stderr, "  [%d] %s = %s %s [%lld, %lld, %lld, %lld] (%s, %s, %s)%s\n", pg->n, t->name, ggml_op_desc(t),
                ggml_type_name(t->type), (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3],
                t->src[0] ? t->src[0]->name : "-", t->src[1] ? t->src[1]->name : "-", t->src[2] ? t->src[2]->name : "-",
                t->view_src ? " (view)" : "");
    }
    pg->leaf[pg->n] = is_leaf;
    pg->pool[pg->n++] = t;
}

static const enum ggml_type LEAF_TYPES[] = {
    GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32,
    GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
};

static void op_new_leaf(struct prog * pg, struct reader * r) {
    const enum ggml_type type = LEAF_TYPES[rd(r) % (sizeof(LEAF_TYPES) / sizeof(LEAF_TYPES[0]))];
    const int n_dims = rd_int(r, 1, 4);
    int64_t ne[4] = { 1, 1, 1, 1 };
    for (int i = 0; i < n_dims; i++) {
        ne[i] = rd_dim(r);
    }
    if (ggml_is_quantized(type)) {
        ne[0] = 32 * (1 + rd(r) % 2);
    }
    add(pg, ggml_new_tensor(pg->ctx, type, n_dims, ne), true);
}

static void op_unary(struct prog * pg, struct reader * r) {
    tensor * a = pick(pg, r);
    struct ggml_context * ctx = pg->ctx;
    tensor * t = NULL;
    switch (rd(r) % 48) {
        case 0:  t = ggml_dup(ctx, a); break;
        case 1:  t = ggml_sqr(ctx, a); break;
        case 2:  t = ggml_sqrt(ctx, a); break;
        case 3:  t = ggml_log(ctx, a); break;
        case 4:  t = ggml_sin(ctx, a); break;
        case 5:  t = ggml_cos(ctx, a); break;
        case 6:  t = ggml_sum(ctx, a); break;
        case 7:  t = ggml_sum_rows(ctx, a); break;
        case 8:  t = ggml_mean(ctx, a); break;
        case 9:  t = ggml_argmax(ctx, a); break;
        case 10: t = ggml_abs(ctx, a); break;
        case 11: t = ggml_sgn(ctx, a); break;
        case 12: t = ggml_neg(ctx, a); break;
        case 13: t = ggml_step(ctx, a); break;
        case 14: t = ggml_tanh(ctx, a); break;
        case 15: t = ggml_elu(ctx, a); break;
        case 16: t = ggml_relu(ctx, a); break;
        case 17: t = ggml_sigmoid(ctx, a); break;
        case 18: t = ggml_gelu(ctx, a); break;
        case 19: t = ggml_gelu_erf(ctx, a); break;
        case 20: t = ggml_gelu_quick(ctx, a); break;
        case 21: t = ggml_silu(ctx, a); break;
        case 22: t = ggml_hardswish(ctx, a); break;
        case 23: t = ggml_hardsigmoid(ctx, a); break;
        case 24: t = ggml_exp(ctx, a); break;
        case 25: t = ggml_unary(ctx, a, (enum ggml_unary_op) rd_int(r, 0, GGML_UNARY_OP_COUNT)); break;
        case 26: t = ggml_cont(ctx, a); break;
        case 27: t = ggml_transpose(ctx, a); break;
        case 28: t = ggml_norm(ctx, a, 1e-5f); break;
        case 29: t = ggml_rms_norm(ctx, a, 1e-6f); break;
        case 30: t = ggml_l2_norm(ctx, a, 1e-6f); break;
        case 31: t = ggml_soft_max(ctx, a); break;
        case 32: t = ggml_glu(ctx, a, (enum ggml_glu_op) rd_int(r, 0, GGML_GLU_OP_COUNT), rd(r) & 1); break;
        case 33: t = ggml_argsort(ctx, a, (enum ggml_sort_order) rd_int(r, 0, 2)); break;
        case 34: t = ggml_cast(ctx, a, LEAF_TYPES[rd(r) % 7]); break;
        case 35: t = ggml_scale(ctx, a, rd_float(r)); break;
        case 36: t = ggml_scale_bias(ctx, a, rd_float(r), rd_float(r)); break;
        case 37: { const float lo = rd_float(r); t = ggml_clamp(ctx, a, lo, lo + fabsf(rd_float(r))); break; }
        case 38: t = ggml_leaky_relu(ctx, a, rd_float(r), false); break;
        case 39: t = ggml_diag_mask_inf(ctx, a, rd_int(r, -2, 6)); break;
        case 40: t = ggml_diag_mask_zero(ctx, a, rd_int(r, -2, 6)); break;
        case 41: t = ggml_pad(ctx, a, rd_int(r, -1, 3), rd_int(r, -1, 3), rd_int(r, 0, 2), rd_int(r, 0, 1)); break;
        case 42: t = ggml_pad_ext(ctx, a, rd_int(r, -1, 2), rd_int(r, 0, 2), rd_int(r, 0, 2), rd_int(r, 0, 2), 0, rd_int(r, 0, 1), 0, 0); break;
        case 43: t = ggml_top_k(ctx, a, rd_int(r, -1, 8)); break;
        case 44: t = ggml_group_norm(ctx, a, rd_int(r, 0, 4), 1e-6f); break;
        case 45: t = ggml_pool_2d(ctx, a, (enum ggml_op_pool) rd_int(r, 0, 2), rd_int(r, 0, 3), rd_int(r, 0, 3),
                         rd_int(r, 0, 3), rd_int(r, 0, 3), (float) rd_int(r, 0, 2), (float) rd_int(r, 0, 2)); break;
        case 46: t = ggml_repeat_4d(ctx, a, rd_dim(r), rd_dim(r), rd_dim(r), rd_dim(r)); break;
        default: t = ggml_cont_2d(ctx, a, rd_dim(r), rd_dim(r)); break;
    }
    add(pg, t, false);
}

static void op_binary(struct prog * pg, struct reader * r) {
    tensor * a = pick(pg, r);
    tensor * b = pick(pg, r);
    struct ggml_context * ctx = pg->ctx;
    tensor * t = NULL;
    switch (rd(r) % 24) {
        case 0:  t = ggml_add(ctx, a, b); break;
        case 1:  t = ggml_sub(ctx, a, b); break;
        case 2:  t = ggml_mul(ctx, a, b); break;
        case 3:  t = ggml_div(ctx, a, b); break;
        case 4:  t = ggml_mul_mat(ctx, a, b); break;
        case 5:  t = ggml_out_prod(ctx, a, b); break;
        case 6:  t = ggml_concat(ctx, a, b, rd_int(r, -1, 4)); break;
        case 7:  t = ggml_repeat(ctx, a, b); break;
        case 8:  t = ggml_get_rows(ctx, a, b); break;
        case 9:  t = ggml_cpy(ctx, a, b); break;
        case 10: t = ggml_add1(ctx, a, b); break;
        case 11: t = ggml_swiglu_split(ctx, a, b); break;
        case 12: t = ggml_soft_max_ext(ctx, a, b, rd_float(r), rd(r) & 1 ? 0.0f : 8.0f); break;
        case 13: t = ggml_rope(ctx, a, b, 2 * rd_int(r, 0, 4), rd(r) & 1 ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_NORMAL); break;
        case 14: t = ggml_acc(ctx, a, b, a ? a->nb[1] : 0, a ? a->nb[2] : 0, a ? a->nb[3] : 0, (size_t) rd_int(r, 0, 3) * 4); break;
        case 15: t = ggml_set(ctx, a, b, a ? a->nb[1] : 0, a ? a->nb[2] : 0, a ? a->nb[3] : 0, (size_t) rd_int(r, 0, 3) * 4); break;
        case 16: t = ggml_reshape(ctx, a, b); break;
        case 17: t = ggml_im2col(ctx, a, b, rd_int(r, 0, 2), rd_int(r, 0, 2), rd_int(r, 0, 1), rd_int(r, 0, 1),
                         rd_int(r, 0, 2), rd_int(r, 0, 2), rd(r) & 1, rd(r) & 1 ? GGML_TYPE_F16 : GGML_TYPE_F32); break;
        case 18: t = ggml_conv_2d(ctx, a, b, rd_int(r, 1, 2), rd_int(r, 1, 2), rd_int(r, 0, 1), rd_int(r, 0, 1), 1, 1); break;
        case 19: t = ggml_conv_2d_direct(ctx, a, b, rd_int(r, 0, 2), rd_int(r, 1, 2), rd_int(r, 0, 1), rd_int(r, 0, 1), 1, rd_int(r, 0, 2)); break;
        case 20: { tensor * c = pick(pg, r); t = ggml_set_rows(ctx, a, b, c); break; }
        case 21: { tensor * c = pick(pg, r); tensor * m = rd(r) & 1 ? pick(pg, r) : NULL;
                   t = ggml_flash_attn_ext(ctx, a, b, c, m, rd_float(r), 0.0f, rd(r) & 1 ? 0.0f : 20.0f); break; }
        case 22: t = ggml_glu_split(ctx, a, b, (enum ggml_glu_op) rd_int(r, 0, GGML_GLU_OP_COUNT)); break;
        default: t = ggml_add_cast(ctx, a, b, LEAF_TYPES[rd(r) % 7]); break;
    }
    add(pg, t, false);
}

static void op_layout(struct prog * pg, struct reader * r) {
    tensor * a = pick(pg, r);
    struct ggml_context * ctx = pg->ctx;
    tensor * t = NULL;
    const size_t es = a != NULL ? ggml_element_size(a) : 4;
    switch (rd(r) % 10) {
        case 0: t = ggml_reshape_1d(ctx, a, rd_dim(r) * rd_dim(r)); break;
        case 1: t = ggml_reshape_2d(ctx, a, rd_dim(r), rd_dim(r)); break;
        case 2: t = ggml_reshape_3d(ctx, a, rd_dim(r), rd_dim(r), rd_dim(r)); break;
        case 3: t = ggml_reshape_4d(ctx, a, rd_dim(r), rd_dim(r), rd_dim(r), rd_dim(r)); break;
        case 4: t = ggml_view_1d(ctx, a, rd_dim(r), (size_t) rd_int(r, 0, 8) * es); break;
        case 5: t = ggml_view_2d(ctx, a, rd_dim(r), rd_dim(r), (size_t) rd_int(r, 1, 8) * es, (size_t) rd_int(r, 0, 8) * es); break;
        case 6: t = ggml_view_3d(ctx, a, rd_dim(r), rd_dim(r), rd_dim(r), (size_t) rd_int(r, 1, 8) * es,
                        (size_t) rd_int(r, 1, 64) * es, (size_t) rd_int(r, 0, 8) * es); break;
        case 7: t = ggml_permute(ctx, a, rd_int(r, 0, 3), rd_int(r, 0, 3), rd_int(r, 0, 3), rd_int(r, 0, 3)); break;
        case 8: t = ggml_cont_4d(ctx, a, rd_dim(r), rd_dim(r), rd_dim(r), rd_dim(r)); break;
        default: t = ggml_arange(ctx, rd_float(r), rd_float(r) + 4.0f, 0.25f + (float) rd_int(r, 0, 4)); break;
    }
    add(pg, t, false);
}

// Builds the program of `data` in a new context (pg->ctx); false when there is no context.
static bool build(struct prog * pg, const uint8_t * data, size_t size) {
    memset(pg, 0, sizeof(*pg));
    struct ggml_init_params p = { (MAX_POOL * 4 + 64) * ggml_tensor_overhead() + ggml_graph_overhead_custom(MAX_NODES, false), NULL, true };
    pg->ctx = ggml_init(p);
    if (pg->ctx == NULL) {
        return false;
    }
    struct reader r = { data, size };
    for (int step = 0; step < 96 && r.n > 0; step++) {
        const uint8_t op = rd(&r);
        if (pg->n == 0 || op % 8 == 0) {
            op_new_leaf(pg, &r);
        } else if (op % 8 <= 2) {
            op_unary(pg, &r);
        } else if (op % 8 <= 5) {
            op_binary(pg, &r);
        } else {
            op_layout(pg, &r);
        }
    }
    return true;
}

static struct ggml_cgraph * graph_of(struct prog * pg) {
    struct ggml_cgraph * gf = ggml_new_graph_custom(pg->ctx, MAX_NODES, false);
    if (gf == NULL) {
        return NULL;
    }
    for (int i = 0; i < pg->n; i++) {
        if (pg->leaf[i]) {
            ggml_set_input(pg->pool[i]);
        } else {
            ggml_set_output(pg->pool[i]);
            ggml_build_forward_expand(gf, pg->pool[i]);
        }
    }
    // nodes made inside constructors (conv_2d's im2col, ...) too: no memory may be reused
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        ggml_set_output(ggml_graph_node(gf, i));
    }
    return ggml_graph_n_nodes(gf) > 0 && !gf->overflow ? gf : NULL;
}

// the leaf values: the same for both runs; floats are multiples of 1/8 in [-4, 4] (exact in F16
// and BF16), integers in [-2, 12] (partly out of range as indices), quantized blocks arbitrary
static void fill_leafs(struct prog * pg) {
    static uint8_t buf[MAX_ELEMS * 8];
    for (int i = 0; i < pg->n; i++) {
        tensor * t = pg->pool[i];
        if (!pg->leaf[i] || t->buffer == NULL) {
            continue;
        }
        const size_t nb = ggml_nbytes(t);
        const int64_t n = ggml_nelements(t);
        uint32_t h = 2166136261u ^ (uint32_t) i;
        for (int64_t j = 0; j < n || (ggml_is_quantized(t->type) && (size_t) j < nb); j++) {
            h = (h ^ (uint32_t) j) * 16777619u;
            const float f = (float) ((int) (h >> 16) % 65 - 32) / 8.0f;
            switch (t->type) {
                case GGML_TYPE_F32:  ((float *) buf)[j] = f; break;
                case GGML_TYPE_F16:  ((ggml_fp16_t *) buf)[j] = ggml_fp32_to_fp16(f); break;
                case GGML_TYPE_BF16: ((ggml_bf16_t *) buf)[j] = ggml_fp32_to_bf16(f); break;
                case GGML_TYPE_I32:  ((int32_t *) buf)[j] = (int32_t) ((h >> 16) % 15) - 2; break;
                default:             buf[j] = (uint8_t) (h >> 8); break;
            }
        }
        if (nb <= sizeof(buf)) {
            ggml_backend_tensor_set(t, buf, 0, nb);
        }
    }
}

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) text;
    (void) user_data;
}

// tolerance relative to (1 + max |ref|) for a node, from the types it rounds through
static double tolerance(const tensor * t) {
    double tol = t->type == GGML_TYPE_F32 ? 1e-4 : t->type == GGML_TYPE_F16 ? 2e-3 : 1e-2;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const tensor * s = t->src[i];
        if (s == NULL) {
            continue;
        }
        if (s->type == GGML_TYPE_BF16) {
            tol = fmax(tol, 2e-2);
        } else if (s->type == GGML_TYPE_F16) {
            tol = fmax(tol, 4e-3);
        }
    }
    // products and sums round inputs to F16/BF16 inside some kernels, and accumulate
    switch (t->op) {
        case GGML_OP_MUL_MAT:
        case GGML_OP_OUT_PROD:
        case GGML_OP_CONV_2D:
        case GGML_OP_FLASH_ATTN_EXT:
            tol = fmax(tol, 2e-2);
            break;
        default:
            break;
    }
    return tol;
}

static bool reads_clobbered(const struct prog * pg, tensor * t) {
    if (is_clobbered(pg, t)) {
        return true;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] != NULL && is_clobbered(pg, t->src[i])) {
            return true;
        }
    }
    return false;
}

// ops whose results are indices with ties resolved in an unspecified order, or that the
// reference treats differently by design
static bool comparable_op(const tensor * t) {
    switch (t->op) {
        case GGML_OP_ARGSORT:
        case GGML_OP_ARGMAX:
        case GGML_OP_TOP_K:
        case GGML_OP_CPY:
        case GGML_OP_SET_ROWS:
            return false;
        default:
            return true;
    }
}

static double elem(const tensor * t, int64_t j);

static void finding(const char * what, const tensor * t, int64_t j, double ref, double got) {
    fprintf(stderr, "FINDING: %s: node '%s' op %s type %s ne [%lld, %lld, %lld, %lld], element %lld: reference %.9g, got %.9g\n",
            what, t->name, ggml_op_desc(t), ggml_type_name(t->type), (long long) t->ne[0], (long long) t->ne[1],
            (long long) t->ne[2], (long long) t->ne[3], (long long) j, ref, got);
    fprintf(stderr, "  op_params (i32):");
    for (int i = 0; i < 10; i++) {
        fprintf(stderr, " %d", t->op_params[i]);
    }
    fprintf(stderr, "\n");
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] != NULL) {
            const tensor * s = t->src[i];
            fprintf(stderr, "  src%d '%s': op %s type %s ne [%lld, %lld, %lld, %lld] nb [%zu, %zu, %zu, %zu] data %p (node data %p)\n",
                    i, s->name, ggml_op_desc(s), ggml_type_name(s->type), (long long) s->ne[0], (long long) s->ne[1],
                    (long long) s->ne[2], (long long) s->ne[3], s->nb[0], s->nb[1], s->nb[2], s->nb[3], s->data, t->data);
            if (s->data != NULL && s->buffer != NULL && ggml_backend_buffer_is_host(s->buffer)) {
                fprintf(stderr, "   first values:");
                for (int64_t k = 0; k < ggml_nelements(s) && k < 8; k++) {
                    fprintf(stderr, " %g", elem(s, k));
                }
                fprintf(stderr, "\n");
            }
        }
    }
    abort();
}

static double elem(const tensor * t, int64_t j) {
    const int64_t i0 = j % t->ne[0];
    const int64_t i1 = (j / t->ne[0]) % t->ne[1];
    const int64_t i2 = (j / (t->ne[0] * t->ne[1])) % t->ne[2];
    const int64_t i3 = j / (t->ne[0] * t->ne[1] * t->ne[2]);
    // quantized results (DUP/CONT of quantized tensors) are read from their blocks
    return ggml_is_quantized(t->type) ? ggml_ref_get_q(t, i0, i1, i2, i3) : ggml_ref_get(t, i0, i1, i2, i3);
}

static bool same_value(double a, double b, double tol, double scale) {
    if (isnan(a) || isnan(b)) {
        return isnan(a) && isnan(b);
    }
    if (isinf(a) || isinf(b)) {
        // overflow near the limit of the type: either side may round to infinity
        return a == b || fabs(isinf(a) ? b : a) > 6e4;
    }
    return fabs(a - b) <= tol * (1.0 + scale);
}

// true when a source holds NaN, an infinity or a value beyond 1e8 in magnitude: how non-finite
// values propagate is not specified by the family (e.g. a NaN in a flash-attention mask), and
// with huge values the float computation overflows where the double reference does not (scores
// of 1e22 * 1e22), so such nodes are not compared
static bool sources_nonfinite(const tensor * t) {
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const tensor * s = t->src[i];
        if (s == NULL || !(s->type == GGML_TYPE_F32 || s->type == GGML_TYPE_F16 || s->type == GGML_TYPE_BF16)) {
            continue;
        }
        const int64_t n = ggml_nelements(s);
        for (int64_t j = 0; j < n; j++) {
            const double v = elem(s, j);
            if (!isfinite(v) || fabs(v) > 1e8) {
                return true;
            }
        }
    }
    return false;
}

// run 1: every covered node against the reference
static void check_against_reference(struct prog * pg, struct ggml_cgraph * gf) {
    static double ref[MAX_ELEMS];
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        tensor * t = ggml_graph_node(gf, i);
        const int64_t n = ggml_nelements(t);
        if (n <= 0 || n > MAX_ELEMS || !comparable_op(t) || !ggml_ref_supports(t) || reads_clobbered(pg, t) || t->data == NULL ||
                sources_nonfinite(t)) {
            continue;
        }
        if (!ggml_ref_compute(t, ref, NULL, 0)) {
            continue; // out-of-range indices, shapes the reference refuses
        }
        double scale = 0;
        for (int64_t j = 0; j < n; j++) {
            if (isfinite(ref[j])) {
                scale = fmax(scale, fabs(ref[j]));
            }
        }
        const double tol = tolerance(t);
        for (int64_t j = 0; j < n; j++) {
            const double got = elem(t, j);
            if (!same_value(ref[j], got, tol, scale)) {
                finding("CPU result differs from the reference", t, j, ref[j], got);
            }
        }
    }
}

static ggml_backend_t g_cpu;
static ggml_backend_t g_tb;

// run 2 (scheduler over TEST and CPU) node by node against run 1
static void check_against_run1(struct prog * pg1, struct ggml_cgraph * g1, struct prog * pg2, struct ggml_cgraph * g2) {
    static float got2[MAX_ELEMS];
    if (ggml_graph_n_nodes(g1) != ggml_graph_n_nodes(g2)) {
        fprintf(stderr, "FINDING: the same program built twice gave %d and %d nodes\n", ggml_graph_n_nodes(g1), ggml_graph_n_nodes(g2));
        abort();
    }
    for (int i = 0; i < ggml_graph_n_nodes(g1); i++) {
        tensor * a = ggml_graph_node(g1, i);
        tensor * b = ggml_graph_node(g2, i);
        const int64_t n = ggml_nelements(a);
        if (b->type != GGML_TYPE_F32 || n <= 0 || n > MAX_ELEMS || !comparable_op(a) || reads_clobbered(pg1, a) ||
                reads_clobbered(pg2, b) || !ggml_is_contiguous(b) || a->data == NULL || b->buffer == NULL || sources_nonfinite(a)) {
            continue;
        }
        ggml_backend_tensor_get(b, got2, 0, (size_t) n * sizeof(float));
        double scale = 0;
        for (int64_t j = 0; j < n; j++) {
            const double v = elem(a, j);
            if (isfinite(v)) {
                scale = fmax(scale, fabs(v));
            }
        }
        const double tol = tolerance(a);
        for (int64_t j = 0; j < n; j++) {
            const double v = elem(a, j);
            if (!same_value(v, got2[j], tol, scale)) {
                finding("the scheduler (TEST + CPU) and the CPU alone disagree", a, j, v, got2[j]);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    ggml_log_set(quiet_log, NULL);
    if (g_cpu == NULL) {
        g_cpu = ggml_backend_cpu_init();
        g_tb = test_backend_init();
        if (g_cpu == NULL || g_tb == NULL) {
            abort();
        }
        ggml_backend_cpu_set_n_threads(g_cpu, 2);
    }
    struct prog pg1, pg2;
    if (!build(&pg1, data, size)) {
        return 0;
    }
    struct ggml_cgraph * g1 = graph_of(&pg1);
    ggml_gallocr_t galloc = g1 != NULL ? ggml_gallocr_new(ggml_backend_cpu_buffer_type()) : NULL;
    bool ran1 = false;
    if (galloc != NULL && ggml_gallocr_alloc_graph(galloc, g1)) {
        fill_leafs(&pg1);
        ran1 = ggml_backend_graph_compute(g_cpu, g1) == GGML_STATUS_SUCCESS;
        if (ran1) {
            check_against_reference(&pg1, g1);
        }
    }

    // run 2: the same program through the scheduler
    if (ran1 && build(&pg2, data, size)) {
        struct ggml_cgraph * g2 = graph_of(&pg2);
        ggml_backend_t backends[2] = { g_tb, g_cpu };
        ggml_backend_sched_t sched = g2 != NULL ? ggml_backend_sched_new(backends, NULL, 2, MAX_NODES, size % 2 == 1) : NULL;
        if (sched != NULL && ggml_backend_sched_alloc_graph(sched, g2)) {
            fill_leafs(&pg2);
            if (ggml_backend_sched_graph_compute(sched, g2) == GGML_STATUS_SUCCESS) {
                ggml_backend_sched_synchronize(sched);
                check_against_run1(&pg1, g1, &pg2, g2);
            }
        }
        ggml_backend_sched_free(sched);
        ggml_free(pg2.ctx);
    }
    ggml_gallocr_free(galloc);
    ggml_free(pg1.ctx);
    ggml_log_set(NULL, NULL);
    return 0;
}
