// backend-ops cases: quantized tensors and the mixture-of-experts ops.
//   MUL_MAT with quantized weights, MUL_MAT_ID (every weight type: F32, F16, BF16 and every
//   quantized type), ADD_ID, OUT_PROD of quantized a, CONCAT of quantized tensors, GET_ROWS of quantized rows, CPY of a quantized tensor to F32 and of
//   F32 into every type with a quantizer, SET_ROWS into a quantized tensor, DUP of a quantized
//   tensor and CONT of a permuted one (whole blocks moved).
// Quantized inputs are random F32 quantized with the type's reference quantizer (data.c); the
// reference reads them dequantized, so the bound (5e-4 for products, exact for data movement)
// covers only the backend's own arithmetic: activations quantized to Q8_0 / Q8_1 / Q8_K, float
// sums. Every type with a dequantizer gets cases; a backend reports the types it lacks as not
// supported.
//
// Sampling: the types most models use (COMMON below) run every shape; every other type runs a
// rotating sample of the shapes, so that each shape meets many types and a run stays short.

#include "bops.h"

#include <string.h>

static bool quant_type_usable(enum ggml_type t) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    return ggml_is_quantized(t) && tr->blck_size > 0 && tr->type_size > 0 && tr->to_float != NULL &&
           tr->blck_size <= 256;
}

static bool quant_type_common(enum ggml_type t) {
    return t == GGML_TYPE_Q4_0 || t == GGML_TYPE_Q8_0 || t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K;
}

// the weight types of the products: F32, F16, BF16, then every usable quantized type
static int weight_types(enum ggml_type * out) {
    int n = 0;
    out[n++] = GGML_TYPE_F32;
    out[n++] = GGML_TYPE_F16;
    out[n++] = GGML_TYPE_BF16;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (quant_type_usable((enum ggml_type) t)) {
            out[n++] = (enum ggml_type) t;
        }
    }
    return n;
}

// whether sample s of n_shapes runs for the type at position ti of the list
static bool sampled(enum ggml_type t, int ti, int s, int n_shapes) {
    if (!ggml_is_quantized(t) || quant_type_common(t)) {
        return true;
    }
    return s == ti % n_shapes || s == (ti + n_shapes/2) % n_shapes;
}

//
// MUL_MAT with quantized weights: a = t[0] ne[0], b = F32 ne[1]
//

static struct ggml_tensor * build_qmatmul(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_F32, c->ne[1], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    return a != NULL && b != NULL ? ggml_mul_mat(g->ctx, a, b) : NULL;
}

// the types with a decode kernel of their own in the GPU backends (OpenCL's mvq / mvg)
static bool quant_type_decoded(enum ggml_type t) {
    return t == GGML_TYPE_Q4_0 || t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_0 || t == GGML_TYPE_Q5_1 ||
           t == GGML_TYPE_Q8_0 || t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q5_K || t == GGML_TYPE_Q6_K ||
           t == GGML_TYPE_MXFP4;
}

// Decode products shaped like a small model's (SmolLM2-135M: n_embd 576, ff 1536, KV rows 192,
// output 49152 rows in Q8_0): k = 576 (768 for 256-value blocks) or 1536, one or two columns, row
// counts that are and are not multiples of a work-group's rows.
// one MUL_MAT case: a of type t and shape na against F32 b of shape nb
static bool add_qmatmul(struct bop_cases * list, enum ggml_type t, const int64_t na[4], const int64_t nb[4]) {
    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_MUL_MAT), build_qmatmul,
            "type_a=%s,type_b=f32,ne_a=%s,ne_b=%s", bops_tname(t), bops_ne_str(na), bops_ne_str(nb));
    if (c == NULL) {
        return false;
    }
    c->t[0] = t;
    memcpy(c->ne[0], na, 4*sizeof(na[0]));
    memcpy(c->ne[1], nb, 4*sizeof(nb[0]));
    return true;
}

static bool cases_qmatmul_decode(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    static const struct { int64_t k, m, n, a2, b2; } mm[] = {
        { 576, 576, 1, 1, 1 }, { 576, 960, 1, 1, 1 }, { 576, 3072, 1, 1, 1 }, { 1536, 576, 1, 1, 1 },
        { 576, 37, 2, 1, 3 },  { 576, 49152, 1, 1, 1 },
    };
    for (int ti = 3; ti < n_types; ti++) {
        if (!quant_type_decoded(types[ti])) {
            continue;
        }
        for (size_t s = 0; s < sizeof(mm)/sizeof(mm[0]); s++) {
            if (mm[s].m == 49152 && types[ti] != GGML_TYPE_Q8_0) {
                continue; // the output matrix: one type is enough
            }
            const int64_t k = mm[s].k % ggml_blck_size(types[ti]) == 0 ? mm[s].k : 768;
            const int64_t na[4] = { k, mm[s].m, mm[s].a2, 1 };
            const int64_t nb[4] = { k, mm[s].n, mm[s].b2, 1 };
            if (!add_qmatmul(list, types[ti], na, nb)) {
                return false;
            }
        }
    }
    return true;
}

static bool cases_qmatmul(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    // k, rows of a, rows of b, a's batch, b's batch (decode, few columns, prompt, broadcast)
    static const struct { int64_t k, m, n, a2, b2; } mm[] = {
        { 256, 16, 1, 1, 1 }, { 256, 16, 8, 1, 1 }, { 512, 33, 35, 1, 1 }, { 256, 16, 9, 2, 6 },
    };
    const int ns = (int) (sizeof(mm)/sizeof(mm[0]));
    for (int ti = 3; ti < n_types; ti++) { // the float types have their own MUL_MAT cases
        for (int s = 0; s < ns; s++) {
            if (!sampled(types[ti], ti, s, ns)) {
                continue;
            }
            const int64_t na[4] = { mm[s].k, mm[s].m, mm[s].a2, 1 };
            const int64_t nb[4] = { mm[s].k, mm[s].n, mm[s].b2, 1 };
            if (!add_qmatmul(list, types[ti], na, nb)) {
                return false;
            }
        }
    }
    return cases_qmatmul_decode(list, types, n_types);
}

//
// MUL_MAT_ID: as = t[0] [k, m, i[0] experts], b = F32 [k, i[2], n_tok], ids I32 [i[1] used, n_tok]
// (each token's experts distinct); i[3] = n_tok
//

static struct ggml_tensor * build_mul_mat_id(struct bop_graph * g, const struct bop_case * c) {
    const int64_t n_expert = c->i[0], n_used = c->i[1], n_b = c->i[2], n_tok = c->i[3];
    const int64_t na[4] = { c->ne[0][0], c->ne[0][1], n_expert, 1 };
    const int64_t nb[4] = { c->ne[0][0], n_b, n_tok, 1 };
    const int64_t ni[4] = { n_used, n_tok, 1, 1 };
    struct ggml_tensor * as  = bops_input(g, c->t[0], na, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b   = bops_input(g, GGML_TYPE_F32, nb, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * ids = bops_input(g, GGML_TYPE_I32, ni, BOP_LAYOUT_CONT, BOP_FILL_ROWPERM, 0.0, (double) n_expert);
    return as != NULL && b != NULL && ids != NULL ? ggml_mul_mat_id(g->ctx, as, b, ids) : NULL;
}

// one MUL_MAT_ID case: n_expert matrices of type t, [k, m] each, n_used of them per token for
// n_tok tokens; n_b == 1 with several used experts broadcasts one activation row ("bcast")
static bool add_mul_mat_id(struct bop_cases * list, enum ggml_type t, int n_expert, int n_used, int n_b, int n_tok,
                           int64_t m, int64_t k) {
    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_MUL_MAT_ID), build_mul_mat_id,
            "type_a=%s,type_b=f32,n_mats=%d,n_used=%d,b=%s,m=%lld,n=%d,k=%lld", bops_tname(t),
            n_expert, n_used, n_b == 1 && n_used > 1 ? "bcast" : "full", (long long) m, n_tok, (long long) k);
    if (c == NULL) {
        return false;
    }
    c->t[0] = t;
    bops_ne(c->ne[0], k, m, 1, 1);
    c->i[0] = n_expert;
    c->i[1] = n_used;
    c->i[2] = n_b;
    c->i[3] = n_tok;
    return true;
}

static bool cases_mul_mat_id(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    // experts, used per token, rows of b per token (1: broadcast to every used expert), tokens
    static const struct { int n_expert, n_used, n_b, n_tok; } sh[] = {
        { 4, 1, 1, 1 }, { 4, 2, 2, 5 }, { 8, 4, 1, 32 }, { 32, 8, 8, 129 }, { 16, 4, 4, 32 }, { 8, 2, 1, 129 },
    };
    const int ns = (int) (sizeof(sh)/sizeof(sh[0]));
    for (int ti = 0; ti < n_types; ti++) {
        for (int s = 0; s < ns; s++) {
            if (!sampled(types[ti], ti, s, ns)) {
                continue;
            }
            if (!add_mul_mat_id(list, types[ti], sh[s].n_expert, sh[s].n_used, sh[s].n_b, sh[s].n_tok, 32, 256)) {
                return false;
            }
        }
    }
    // decode (one or two tokens) with long rows and a row count off the work-group multiples
    static const struct { int n_expert, n_used, n_b, n_tok; } dec[] = { { 8, 2, 2, 1 }, { 8, 2, 1, 2 } };
    for (int ti = 0; ti < n_types; ti++) {
        if (ggml_is_quantized(types[ti]) && !quant_type_decoded(types[ti])) {
            continue;
        }
        for (size_t s = 0; s < sizeof(dec)/sizeof(dec[0]); s++) {
            if (!add_mul_mat_id(list, types[ti], dec[s].n_expert, dec[s].n_used, dec[s].n_b, dec[s].n_tok, 37, 1536)) {
                return false;
            }
        }
    }
    return true;
}

//
// ADD_ID: a F32 [n, i[1] used, i[3] tokens], b F32 [n, i[0] experts], ids [used, tokens]
//

static struct ggml_tensor * build_add_id(struct bop_graph * g, const struct bop_case * c) {
    const int64_t n = c->ne[0][0];
    const int64_t na[4] = { n, c->i[1], c->i[3], 1 };
    const int64_t nb[4] = { n, c->i[0], 1, 1 };
    const int64_t ni[4] = { c->i[1], c->i[3], 1, 1 };
    struct ggml_tensor * a   = bops_input(g, GGML_TYPE_F32, na, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b   = bops_input(g, GGML_TYPE_F32, nb, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * ids = bops_input(g, GGML_TYPE_I32, ni, BOP_LAYOUT_CONT, BOP_FILL_ROWPERM, 0.0, (double) c->i[0]);
    return a != NULL && b != NULL && ids != NULL ? ggml_add_id(g->ctx, a, b, ids) : NULL;
}

static bool cases_add_id(struct bop_cases * list) {
    static const struct { int64_t n; int n_expert, n_used, n_tok; } sh[] = {
        { 32, 4, 2, 1 }, { 129, 8, 4, 7 }, { 2880, 32, 4, 5 },
    };
    for (size_t s = 0; s < sizeof(sh)/sizeof(sh[0]); s++) {
        struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_ADD_ID), build_add_id,
                "n=%lld,n_experts=%d,n_used=%d,n_tokens=%d", (long long) sh[s].n, sh[s].n_expert, sh[s].n_used, sh[s].n_tok);
        if (c == NULL) {
            return false;
        }
        bops_ne(c->ne[0], sh[s].n, 1, 1, 1);
        c->i[0] = sh[s].n_expert;
        c->i[1] = sh[s].n_used;
        c->i[3] = sh[s].n_tok;
    }
    return true;
}

//
// GET_ROWS of quantized rows (F32 result): a = t[0] ne[0], ne[1][0] rows picked per plane;
// CPY of a quantized tensor into F32 (dequantization): a = t[0] ne[0]
//

static struct ggml_tensor * build_qget_rows(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t nb[4] = { c->ne[1][0], c->ne[0][2], c->ne[0][3], 1 };
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_I32, nb, BOP_LAYOUT_CONT, BOP_FILL_INDEX, 0.0, (double) c->ne[0][1]);
    return a != NULL && b != NULL ? ggml_get_rows(g->ctx, a, b) : NULL;
}

static struct ggml_tensor * build_qcpy(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = a != NULL ? ggml_new_tensor(g->ctx, GGML_TYPE_F32, 4, a->ne) : NULL;
    return a != NULL && b != NULL ? ggml_cpy(g->ctx, a, b) : NULL;
}

// CPY of F32 (t[1], also F16 or BF16; layout i[1]) into a quantized tensor: a = ne[0], into t[0]
static struct ggml_tensor * build_qcpy_to(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[1], c->ne[0], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = a != NULL ? ggml_new_tensor(g->ctx, c->t[0], 4, a->ne) : NULL;
    return a != NULL && b != NULL ? ggml_cpy(g->ctx, a, b) : NULL;
}

// SET_ROWS: destination t[0] ne[0] (quantized), F32 rows [ne0, ne[1][0], ne2, ne3], I64 indices
static struct ggml_tensor * build_qset_rows(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t nb[4] = { c->ne[0][0], c->ne[1][0], c->ne[0][2], c->ne[0][3] };
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_F32, nb, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t ni[4] = { c->ne[1][0], c->ne[0][2], c->ne[0][3], 1 };
    struct ggml_tensor * idx = bops_input(g, GGML_TYPE_I64, ni, BOP_LAYOUT_CONT, BOP_FILL_ROWPERM, 0.0, (double) c->ne[0][1]);
    return a != NULL && b != NULL && idx != NULL ? ggml_set_rows(g->ctx, a, b, idx) : NULL;
}

// DUP of a quantized tensor (i[0] = 0), CONT of its dims 1 and 2 swapped (i[0] = 1)
static struct ggml_tensor * build_qdup(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    if (c->i[0] == 0) {
        return ggml_dup(g->ctx, a);
    }
    struct ggml_tensor * p = ggml_permute(g->ctx, a, 0, 2, 1, 3);
    return p != NULL ? ggml_cont(g->ctx, p) : NULL;
}

// CPY of a quantized tensor into the same type, the source permuted [0,3,1,2] and the destination
// [0,2,1,3] (the family's case: the shapes differ, the blocks move in row-major order)
static struct ggml_tensor * build_qcpy_perm(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * ap = a != NULL ? ggml_permute(g->ctx, a, 0, 3, 1, 2) : NULL;
    struct ggml_tensor * d = ap != NULL ? ggml_new_tensor(g->ctx, c->t[0], 4, ap->ne) : NULL;
    struct ggml_tensor * dp = d != NULL ? ggml_permute(g->ctx, d, 0, 2, 1, 3) : NULL;
    return dp != NULL ? ggml_cpy(g->ctx, ap, dp) : NULL;
}

static bool cases_qstore(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    for (int ti = 3; ti < n_types; ti++) {
        const enum ggml_type t = types[ti];
        const int64_t na[4] = { 256, 6, 2, 1 };
        for (int mode = 0; mode < 2; mode++) {
            struct bop_case * c = bops_add(list, ggml_op_name(mode ? GGML_OP_CONT : GGML_OP_DUP), build_qdup,
                    "type=%s,ne=%s%s", bops_tname(t), bops_ne_str(na), mode ? ",permute=[0,2,1,3]" : "");
            if (c == NULL) {
                return false;
            }
            c->t[0] = t;
            memcpy(c->ne[0], na, sizeof(na));
            c->i[0] = mode;
        }
        const int64_t np[4] = { ggml_blck_size(t)*(1 + ti % 3), 2, 3, 4 };
        struct bop_case * cp = bops_add(list, ggml_op_name(GGML_OP_CPY), build_qcpy_perm,
                "type_src=%s,type_dst=%s,ne_src=%s,permute_src=[0,3,1,2],permute_dst=[0,2,1,3]", bops_tname(t), bops_tname(t),
                bops_ne_str(np));
        if (cp == NULL) {
            return false;
        }
        cp->t[0] = t;
        memcpy(cp->ne[0], np, sizeof(np));
        if (ggml_get_type_traits(t)->from_float_ref == NULL) {
            continue; // no quantizer: nothing is stored into this type
        }
        const int64_t nc[4] = { 512, 3, 2, 1 };
        struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_CPY), build_qcpy_to, "type_src=f32,type_dst=%s,ne=%s",
                bops_tname(t), bops_ne_str(nc));
        if (c == NULL) {
            return false;
        }
        c->t[0] = t;
        memcpy(c->ne[0], nc, sizeof(nc));
        c->lo = -4.0;
        c->hi = 3.0;
        // F16 and BF16 sources (the family's suite: once read as F32 rows, giving inf and NaN), one
        // contiguous and one with dims 1 and 2 swapped
        for (int k = 0; k < 2; k++) {
            const enum ggml_type ts = k ? GGML_TYPE_BF16 : GGML_TYPE_F16;
            const enum bop_layout l = (ti + k) % 2 ? BOP_LAYOUT_PERM : BOP_LAYOUT_CONT;
            c = bops_add(list, ggml_op_name(GGML_OP_CPY), build_qcpy_to, "type_src=%s,type_dst=%s,ne=%s,layout=%s",
                    bops_tname(ts), bops_tname(t), bops_ne_str(nc), bops_layout_name(l));
            if (c == NULL) {
                return false;
            }
            c->t[0] = t;
            c->t[1] = ts;
            c->i[1] = l;
            memcpy(c->ne[0], nc, sizeof(nc));
            c->lo = -4.0;
            c->hi = 3.0;
        }
        const int64_t ns[4] = { 256, 10, 2, 1 };
        c = bops_add(list, ggml_op_name(GGML_OP_SET_ROWS), build_qset_rows, "type=%s,type_idx=i64,ne_dst=%s,n_rows=3",
                bops_tname(t), bops_ne_str(ns));
        if (c == NULL) {
            return false;
        }
        c->t[0] = t;
        memcpy(c->ne[0], ns, sizeof(ns));
        c->ne[1][0] = 3;
    }
    return true;
}

static bool cases_qrows(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    for (int ti = 3; ti < n_types; ti++) {
        const int64_t na[4] = { 256, 10, 2, 1 };
        struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_GET_ROWS), build_qget_rows,
                "type=%s,ne_a=%s,n_rows=4", bops_tname(types[ti]), bops_ne_str(na));
        if (c == NULL) {
            return false;
        }
        c->t[0] = types[ti];
        memcpy(c->ne[0], na, sizeof(na));
        c->ne[1][0] = 4;
        // a wide range: the scales of every block differ a lot
        c->lo = -30.0;
        c->hi = 30.0;

        const int64_t nc[4] = { 512, 3, 2, 1 };
        c = bops_add(list, ggml_op_name(GGML_OP_CPY), build_qcpy, "type_src=%s,type_dst=f32,ne=%s",
                bops_tname(types[ti]), bops_ne_str(nc));
        if (c == NULL) {
            return false;
        }
        c->t[0] = types[ti];
        memcpy(c->ne[0], nc, sizeof(nc));
        c->lo = -0.5;
        c->hi = 0.25;
    }
    return true;
}

//
// OUT_PROD of a quantized a = t[0] ne[0] ([m, k, a2, a3], rows of whole blocks) and F32 b = ne[1]
// ([n, k, b2, b3]; i[1]: its layout), as training through quantized weights computes it
//

static struct ggml_tensor * build_qout_prod(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_F32, c->ne[1], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    return a != NULL && b != NULL ? ggml_out_prod(g->ctx, a, b) : NULL;
}

static bool cases_qout_prod(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    // m, k, n, a's batch, b's batch (a broadcast over b's), b's layout
    static const struct { int64_t m, k, n, a2, a3, b2, b3; enum bop_layout lb; } sh[] = {
        { 256, 1, 1, 1, 1, 1, 1, BOP_LAYOUT_CONT }, { 256, 16, 33, 2, 1, 2, 1, BOP_LAYOUT_CONT },
        { 512, 7, 5, 2, 1, 4, 2, BOP_LAYOUT_CONT }, { 256, 9, 40, 1, 1, 1, 1, BOP_LAYOUT_TRANS },
    };
    const int ns = (int) (sizeof(sh)/sizeof(sh[0]));
    for (int ti = 3; ti < n_types; ti++) {
        for (int s = 0; s < ns; s++) {
            if (!sampled(types[ti], ti, s, ns) || sh[s].m % ggml_blck_size(types[ti]) != 0) {
                continue;
            }
            const int64_t na[4] = { sh[s].m, sh[s].k, sh[s].a2, sh[s].a3 };
            const int64_t nb[4] = { sh[s].n, sh[s].k, sh[s].b2, sh[s].b3 };
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_OUT_PROD), build_qout_prod,
                    "type_a=%s,type_b=f32,ne_a=%s,ne_b=%s,layout_b=%s", bops_tname(types[ti]), bops_ne_str(na),
                    bops_ne_str(nb), bops_layout_name(sh[s].lb));
            if (c == NULL) {
                return false;
            }
            c->t[0] = types[ti];
            memcpy(c->ne[0], na, sizeof(na));
            memcpy(c->ne[1], nb, sizeof(nb));
            c->i[1] = sh[s].lb;
        }
    }
    return true;
}

//
// CONCAT of two quantized tensors of the same type: a = ne[0], b = ne[1] along dim i[0], b's
// layout i[1] (contiguous or dims 1 and 2 swapped); the blocks are copied
//

static struct ggml_tensor * build_qconcat(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = bops_input(g, c->t[0], c->ne[1], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    return a != NULL && b != NULL ? ggml_concat(g->ctx, a, b, (int) c->i[0]) : NULL;
}

static bool cases_qconcat(struct bop_cases * list, const enum ggml_type * types, int n_types) {
    for (int ti = 3; ti < n_types; ti++) {
        const int64_t bs = ggml_blck_size(types[ti]);
        for (int dim = 0; dim < 4; dim++) {
            if (!sampled(types[ti], ti, dim, 4) && dim != (ti + 1) % 4) {
                continue;
            }
            const int64_t na[4] = { 2*bs, 3, 2, 2 };
            int64_t nb[4] = { 2*bs, 3, 2, 2 };
            nb[dim] = dim == 0 ? bs : dim + 1;
            const enum bop_layout lb = (ti + dim) % 2 ? BOP_LAYOUT_PERM : BOP_LAYOUT_CONT;
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_CONCAT), build_qconcat,
                    "type=%s,ne_a=%s,ne_b=%s,dim=%d,layout_b=%s", bops_tname(types[ti]), bops_ne_str(na), bops_ne_str(nb), dim,
                    bops_layout_name(lb));
            if (c == NULL) {
                return false;
            }
            c->t[0] = types[ti];
            memcpy(c->ne[0], na, sizeof(na));
            memcpy(c->ne[1], nb, sizeof(nb));
            c->i[0] = dim;
            c->i[1] = lb;
        }
    }
    return true;
}

bool bops_cases_quant(struct bop_cases * list) {
    enum ggml_type types[GGML_TYPE_COUNT + 3];
    const int n_types = weight_types(types);
    return cases_qmatmul(list, types, n_types) && cases_mul_mat_id(list, types, n_types) && cases_add_id(list) &&
           cases_qrows(list, types, n_types) && cases_qstore(list, types, n_types) && cases_qout_prod(list, types, n_types) &&
           cases_qconcat(list, types, n_types);
}
