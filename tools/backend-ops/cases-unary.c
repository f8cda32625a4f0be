// backend-ops cases: every unary op (GGML_OP_UNARY) and every gated linear unit (GGML_OP_GLU) in
// its one-tensor, swapped and split forms.

#include "bops.h"

static const enum ggml_type float_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
#define N_FLOAT_TYPES 3

//
// UNARY: t[0] type, ne[0] shape, i[0] = unary op, i[1] = inplace, i[2] = layout
//

static struct ggml_tensor * build_unary(struct bop_graph * g, const struct bop_case * c) {
    const enum ggml_unary_op op = (enum ggml_unary_op) c->i[0];
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[2], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    struct ggml_tensor * t = c->i[1] ? ggml_unary_inplace(g->ctx, a, op) : ggml_unary(g->ctx, a, op);
    if (t != NULL && op == GGML_UNARY_OP_XIELU) {
        // the family's ggml_xielu stores alpha_n, alpha_p, beta, eps in f32[1..4]
        bops_set_param_f32(t, 1, c->f[0]);
        bops_set_param_f32(t, 2, c->f[1]);
        bops_set_param_f32(t, 3, c->f[2]);
        bops_set_param_f32(t, 4, c->f[3]);
    }
    return t;
}

static bool add_unary(struct bop_cases * list, enum ggml_unary_op op, enum ggml_type type, const int64_t ne[4],
        enum bop_layout layout, bool inplace) {
    struct bop_case * c = bops_add(list, ggml_unary_op_name(op), build_unary, "type=%s,ne=%s,layout=%s,inplace=%d",
            bops_tname(type), bops_ne_str(ne), bops_layout_name(layout), inplace ? 1 : 0);
    if (c == NULL) {
        return false;
    }
    c->t[0] = type;
    bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
    c->i[0] = op;
    c->i[1] = inplace;
    c->i[2] = layout;
    // wide enough to reach every kink and saturation of the activations
    c->lo = -5.0;
    c->hi = 5.0;
    if (op == GGML_UNARY_OP_XIELU) {
        c->f[0] = 0.8f;   // alpha_n
        c->f[1] = 0.6f;   // alpha_p
        c->f[2] = 0.5f;   // beta
        c->f[3] = -1e-6f; // eps
    }
    return true;
}

// the exp-based activations over [lo, hi] far past their saturation (exp overflowing to inf and
// underflowing to 0 inside: the device kernels' own exp must give the limits, not NaN)
static bool add_unary_wide(struct bop_cases * list, enum ggml_unary_op op, enum ggml_type type, double lo, double hi) {
    static const int64_t ne[4] = { 1000, 3, 1, 1 };
    struct bop_case * c = bops_add(list, ggml_unary_op_name(op), build_unary, "type=%s,ne=%s,layout=cont,inplace=0,range=[%g,%g]",
            bops_tname(type), bops_ne_str(ne), lo, hi);
    if (c == NULL) {
        return false;
    }
    c->t[0] = type;
    bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
    c->i[0] = op;
    c->i[1] = 0;
    c->i[2] = BOP_LAYOUT_CONT;
    c->lo = lo;
    c->hi = hi;
    return true;
}

static bool cases_unary_wide(struct bop_cases * list) {
    static const enum ggml_unary_op ops[] = {
        GGML_UNARY_OP_SIGMOID, GGML_UNARY_OP_GELU, GGML_UNARY_OP_GELU_QUICK, GGML_UNARY_OP_SILU, GGML_UNARY_OP_GELU_ERF,
    };
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        if (!add_unary_wide(list, ops[o], GGML_TYPE_F32, -150.0, 150.0) || !add_unary_wide(list, ops[o], GGML_TYPE_F16, -150.0, 150.0)) {
            return false;
        }
    }
    // F16: the negative side alone, where the results fall from about 0.2 into F16's denormals (the
    // F16 kernels compute these functions at F16 precision)
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        if (!add_unary_wide(list, ops[o], GGML_TYPE_F16, -20.0, 0.0)) {
            return false;
        }
    }
    // EXP: up to just below float overflow, down past the denormals
    return add_unary_wide(list, GGML_UNARY_OP_EXP, GGML_TYPE_F32, -110.0, 88.0) &&
           add_unary_wide(list, GGML_UNARY_OP_EXP, GGML_TYPE_F16, -30.0, 11.0) &&
           add_unary_wide(list, GGML_UNARY_OP_EXP, GGML_TYPE_F16, -18.0, 0.0);
}

static bool cases_unary(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 128, 5, 3, 2 }, { 7, 3, 2, 1 }, { 1031, 2, 1, 1 } };
    for (int op = 0; op < GGML_UNARY_OP_COUNT; op++) {
        for (int t = 0; t < N_FLOAT_TYPES; t++) {
            for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
                if (!add_unary(list, (enum ggml_unary_op) op, float_types[t], shapes[s], BOP_LAYOUT_CONT, false)) {
                    return false;
                }
            }
            // rows with gaps (the family's unary ops need contiguous rows), and gaps after rows and
            // planes (not ggml_is_contiguous_1: the constructor once refused these)
            if (!add_unary(list, (enum ggml_unary_op) op, float_types[t], shapes[0], BOP_LAYOUT_ROWS, false) ||
                !add_unary(list, (enum ggml_unary_op) op, float_types[t], shapes[0], BOP_LAYOUT_PAD, false)) {
                return false;
            }
        }
        if (!add_unary(list, (enum ggml_unary_op) op, GGML_TYPE_F32, shapes[0], BOP_LAYOUT_CONT, true) ||
            !add_unary(list, (enum ggml_unary_op) op, GGML_TYPE_F16, shapes[1], BOP_LAYOUT_CONT, true)) {
            return false;
        }
    }
    return true;
}

//
// GLU: t[0] type; ne[0] = shape of the result; i[0] = glu op, i[1] = swapped, i[2] = split form,
// i[3] = layout of the inputs, i[4] = one-tensor form with an odd row (a->ne0 = 2*ne0 + 1, the last
// element unused, as the family's ne_a[0] = 5 cases); SWIGLU_OAI: f[0] = alpha, f[1] = limit
//

static struct ggml_tensor * build_glu(struct bop_graph * g, const struct bop_case * c) {
    const enum ggml_glu_op op = (enum ggml_glu_op) c->i[0];
    const enum bop_layout layout = (enum bop_layout) c->i[3];
    struct ggml_tensor * t = NULL;
    if (c->i[2]) {
        struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], layout, BOP_FILL_UNIFORM, c->lo, c->hi);
        struct ggml_tensor * b = bops_input(g, c->t[0], c->ne[0], layout, BOP_FILL_UNIFORM, c->lo, c->hi);
        if (a == NULL || b == NULL) {
            return NULL;
        }
        t = ggml_glu_split(g->ctx, a, b, op);
    } else {
        const int64_t ne[4] = { 2*c->ne[0][0] + (c->i[4] ? 1 : 0), c->ne[0][1], c->ne[0][2], c->ne[0][3] };
        struct ggml_tensor * a = bops_input(g, c->t[0], ne, layout, BOP_FILL_UNIFORM, c->lo, c->hi);
        if (a == NULL) {
            return NULL;
        }
        t = ggml_glu(g->ctx, a, op, c->i[1] != 0);
    }
    if (t != NULL && op == GGML_GLU_OP_SWIGLU_OAI) {
        // the family's ggml_swiglu_oai stores alpha and limit in f32[2], f32[3]
        bops_set_param_f32(t, 2, c->f[0]);
        bops_set_param_f32(t, 3, c->f[1]);
    }
    return t;
}

static struct bop_case * add_glu_case(struct bop_cases * list, enum ggml_glu_op op, enum ggml_type type,
        const int64_t ne[4], bool swapped, bool split, enum bop_layout layout, bool odd) {
    struct bop_case * c = bops_add(list, ggml_glu_op_name(op), build_glu, "type=%s,ne=%s,%s%s,layout=%s%s",
            bops_tname(type), bops_ne_str(ne), split ? "split" : swapped ? "swapped" : "fused", odd ? ",odd" : "",
            bops_layout_name(layout), op == GGML_GLU_OP_SWIGLU_OAI ? ",alpha=1.702,limit=1.5" : "");
    if (c == NULL) {
        return false;
    }
    c->t[0] = type;
    bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
    c->i[0] = op;
    c->i[1] = swapped;
    c->i[2] = split;
    c->i[3] = layout;
    c->lo = -3.0;
    c->hi = 3.0;
    c->f[0] = 1.702f;
    c->f[1] = 1.5f; // small enough that the limit clips part of the inputs
    c->i[4] = odd;
    return c;
}

static bool add_glu(struct bop_cases * list, enum ggml_glu_op op, enum ggml_type type, const int64_t ne[4],
        bool swapped, bool split, enum bop_layout layout) {
    return add_glu_case(list, op, type, ne, swapped, split, layout, false) != NULL;
}

static bool cases_glu(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 64, 5, 3, 2 }, { 7, 3, 1, 1 }, { 1029, 2, 1, 1 } };
    for (int op = 0; op < GGML_GLU_OP_COUNT; op++) {
        for (int t = 0; t < N_FLOAT_TYPES; t++) {
            for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
                for (int form = 0; form < 3; form++) {
                    if (!add_glu(list, (enum ggml_glu_op) op, float_types[t], shapes[s], form == 1, form == 2, BOP_LAYOUT_CONT)) {
                        return false;
                    }
                }
            }
        }
        // non-contiguous inputs (F32)
        // (rows with gaps: the family's GLU needs contiguous rows)
        if (!add_glu(list, (enum ggml_glu_op) op, GGML_TYPE_F32, shapes[0], false, false, BOP_LAYOUT_ROWS) ||
            !add_glu(list, (enum ggml_glu_op) op, GGML_TYPE_F32, shapes[0], true, false, BOP_LAYOUT_ROWS) ||
            !add_glu(list, (enum ggml_glu_op) op, GGML_TYPE_F16, shapes[0], false, true, BOP_LAYOUT_ROWS)) {
            return false;
        }
        // odd rows in the one-tensor form (the family's ne_a = [5,7,11,13]: result ne0 2, a[4] unused)
        static const int64_t odd[4] = { 2, 7, 11, 13 };
        for (int t = 0; t < 2; t++) {
            for (int swapped = 0; swapped < 2; swapped++) {
                if (add_glu_case(list, (enum ggml_glu_op) op, float_types[t], odd, swapped, false,
                        swapped ? BOP_LAYOUT_ROWS : BOP_LAYOUT_CONT, true) == NULL) {
                    return false;
                }
            }
        }
        // longer odd rows, contiguous (a->ne0 = 75: row paths with an odd row stride and a tail)
        static const int64_t odd_long[4] = { 37, 3, 2, 1 };
        for (int swapped = 0; swapped < 2; swapped++) {
            if (add_glu_case(list, (enum ggml_glu_op) op, GGML_TYPE_F32, odd_long, swapped, false, BOP_LAYOUT_CONT, true) == NULL) {
                return false;
            }
        }
    }
    return true;
}

static bool cases_perf(struct bop_cases * list) {
    static const int64_t big[4] = { 4096, 512, 1, 1 };
    static const enum ggml_unary_op ops[] = { GGML_UNARY_OP_SILU, GGML_UNARY_OP_GELU, GGML_UNARY_OP_GELU_ERF, GGML_UNARY_OP_EXP };
    bool ok = true;
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        ok = ok && bops_perf_only(list, add_unary(list, ops[o], GGML_TYPE_F32, big, BOP_LAYOUT_CONT, false));
        ok = ok && bops_perf_only(list, add_unary(list, ops[o], GGML_TYPE_F16, big, BOP_LAYOUT_CONT, false));
    }
    ok = ok && bops_perf_only(list, add_glu(list, GGML_GLU_OP_SWIGLU, GGML_TYPE_F32, big, false, false, BOP_LAYOUT_CONT));
    ok = ok && bops_perf_only(list, add_glu(list, GGML_GLU_OP_SWIGLU, GGML_TYPE_F32, big, false, true, BOP_LAYOUT_CONT));
    return ok;
}

bool bops_cases_unary(struct bop_cases * list) {
    return cases_unary(list) && cases_unary_wide(list) && cases_glu(list) && cases_perf(list);
}
