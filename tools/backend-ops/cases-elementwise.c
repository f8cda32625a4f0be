// backend-ops cases: binary element-wise ops (ADD, SUB, MUL, DIV with broadcasting), ADD1, ACC,
// SCALE, CLAMP, LEAKY_RELU and the element-wise math ops SQR, SQRT, LOG, SIN, COS.

#include "bops.h"

#include <stdbool.h>

static const enum ggml_type float_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
#define N_FLOAT_TYPES 3

//
// ADD, SUB, MUL, DIV
// t[0], t[1]: types of a, b; ne[0], ne[1]: shapes; i[0] = op, i[1] = inplace, i[2], i[3] = layouts
//

static struct ggml_tensor * build_binary(struct bop_graph * g, const struct bop_case * c) {
    const enum ggml_op op = (enum ggml_op) c->i[0];
    const bool inplace = c->i[1] != 0;
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[2], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = op == GGML_OP_DIV
        ? bops_input(g, c->t[1], c->ne[1], (enum bop_layout) c->i[3], BOP_FILL_AWAY, 0.5, 2.0)
        : bops_input(g, c->t[1], c->ne[1], (enum bop_layout) c->i[3], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    switch (op) {
        case GGML_OP_ADD: return inplace ? ggml_add_inplace(g->ctx, a, b) : ggml_add(g->ctx, a, b);
        case GGML_OP_SUB: return inplace ? ggml_sub_inplace(g->ctx, a, b) : ggml_sub(g->ctx, a, b);
        case GGML_OP_MUL: return inplace ? ggml_mul_inplace(g->ctx, a, b) : ggml_mul(g->ctx, a, b);
        case GGML_OP_DIV: return inplace ? ggml_div_inplace(g->ctx, a, b) : ggml_div(g->ctx, a, b);
        default:          return NULL;
    }
}

static bool add_binary(struct bop_cases * list, enum ggml_op op, enum ggml_type ta, enum ggml_type tb,
        const int64_t na[4], const int64_t nb[4], enum bop_layout la, enum bop_layout lb, bool inplace) {
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_binary,
            "type_a=%s,type_b=%s,ne_a=%s,ne_b=%s,layout_a=%s,layout_b=%s,inplace=%d",
            bops_tname(ta), bops_tname(tb), bops_ne_str(na), bops_ne_str(nb),
            bops_layout_name(la), bops_layout_name(lb), inplace ? 1 : 0);
    if (c == NULL) {
        return false;
    }
    c->t[0] = ta;
    c->t[1] = tb;
    bops_ne(c->ne[0], na[0], na[1], na[2], na[3]);
    bops_ne(c->ne[1], nb[0], nb[1], nb[2], nb[3]);
    c->i[0] = op;
    c->i[1] = inplace;
    c->i[2] = la;
    c->i[3] = lb;
    return true;
}

static bool cases_binary(struct bop_cases * list) {
    static const enum ggml_op ops[] = { GGML_OP_ADD, GGML_OP_SUB, GGML_OP_MUL, GGML_OP_DIV };
    // a's shape, then the b shapes broadcast over it
    static const int64_t shape_a[4] = { 10, 5, 4, 3 };
    static const int64_t shapes_b[][4] = {
        { 10, 5, 4, 3 }, { 10, 1, 1, 1 }, { 10, 5, 1, 1 }, { 10, 5, 4, 1 }, { 1, 5, 1, 3 }, { 1, 1, 1, 1 }, { 5, 5, 2, 3 },
    };
    // sizes that exercise vector loops and their tails
    static const int64_t big[][4] = { { 33, 7, 3, 2 }, { 1027, 3, 2, 1 }, { 4096, 2, 1, 1 } };
    bool ok = true;
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        const enum ggml_op op = ops[o];
        for (int t = 0; t < N_FLOAT_TYPES; t++) {
            const enum ggml_type ta = float_types[t];
            for (size_t s = 0; s < sizeof(shapes_b)/sizeof(shapes_b[0]); s++) {
                ok = ok && add_binary(list, op, ta, ta, shape_a, shapes_b[s], BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
            }
            if (ta != GGML_TYPE_F32) {
                // half-precision a with an F32 b
                ok = ok && add_binary(list, op, ta, GGML_TYPE_F32, shape_a, shape_a, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
                ok = ok && add_binary(list, op, ta, GGML_TYPE_F32, shape_a, shapes_b[1], BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
            }
            for (size_t s = 0; s < sizeof(big)/sizeof(big[0]); s++) {
                const int64_t row[4] = { big[s][0], 1, 1, 1 };
                ok = ok && add_binary(list, op, ta, ta, big[s], big[s], BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
                ok = ok && add_binary(list, op, ta, ta, big[s], row, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
            }
            // non-contiguous operands
            ok = ok && add_binary(list, op, ta, ta, shape_a, shape_a, BOP_LAYOUT_PAD, BOP_LAYOUT_PAD, false);
            ok = ok && add_binary(list, op, ta, ta, shape_a, shape_a, BOP_LAYOUT_PERM, BOP_LAYOUT_CONT, false);
            ok = ok && add_binary(list, op, ta, ta, shape_a, shape_a, BOP_LAYOUT_CONT, BOP_LAYOUT_PERM, false);
            ok = ok && add_binary(list, op, ta, ta, shape_a, shapes_b[2], BOP_LAYOUT_TRANS, BOP_LAYOUT_PAD, false);
        }
        ok = ok && add_binary(list, op, GGML_TYPE_F32, GGML_TYPE_F32, shape_a, shape_a, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, true);
        ok = ok && add_binary(list, op, GGML_TYPE_F32, GGML_TYPE_F32, shape_a, shapes_b[1], BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, true);
        ok = ok && add_binary(list, op, GGML_TYPE_F32, GGML_TYPE_F32, shape_a, shapes_b[3], BOP_LAYOUT_PAD, BOP_LAYOUT_CONT, true);
        ok = ok && add_binary(list, op, GGML_TYPE_F16, GGML_TYPE_F16, shape_a, shapes_b[2], BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, true);
    }
    return ok;
}

//
// ADD1: t[0], t[1] = types of a and the scalar b; ne[0] = a; i[1] = inplace
//

static struct ggml_tensor * build_add1(struct bop_graph * g, const struct bop_case * c) {
    static const int64_t scalar[4] = { 1, 1, 1, 1 };
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input_c(g, c->t[1], scalar);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    return c->i[1] ? ggml_add1_inplace(g->ctx, a, b) : ggml_add1(g->ctx, a, b);
}

//
// ACC: a = ne[0], b = ne[1] placed at element offset i[0] (row i[2]) of a; i[1] = inplace
//

static struct ggml_tensor * build_acc(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input_c(g, c->t[1], c->ne[1]);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const size_t offset = (size_t) c->i[0]*a->nb[0] + (size_t) c->i[2]*a->nb[1];
    return c->i[1] ? ggml_acc_inplace(g->ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset)
                   : ggml_acc(g->ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset);
}

//
// SCALE (f[0] = s, f[1] = bias, i[0] = with bias), CLAMP (f[0], f[1]), LEAKY_RELU (f[0]) and the
// math ops (i[0] = op): t[0] type, ne[0] shape, i[1] = inplace, i[2] = layout
//

static struct ggml_tensor * build_math(struct bop_graph * g, const struct bop_case * c) {
    const bool inplace = c->i[1] != 0;
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[2], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    switch ((enum ggml_op) c->i[0]) {
        case GGML_OP_SQR:   return inplace ? ggml_sqr_inplace(g->ctx, a)  : ggml_sqr(g->ctx, a);
        case GGML_OP_SQRT:  return inplace ? ggml_sqrt_inplace(g->ctx, a) : ggml_sqrt(g->ctx, a);
        case GGML_OP_LOG:   return inplace ? ggml_log_inplace(g->ctx, a)  : ggml_log(g->ctx, a);
        case GGML_OP_SIN:   return inplace ? ggml_sin_inplace(g->ctx, a)  : ggml_sin(g->ctx, a);
        case GGML_OP_COS:   return inplace ? ggml_cos_inplace(g->ctx, a)  : ggml_cos(g->ctx, a);
        case GGML_OP_SCALE:
            if (c->i[3]) {
                return inplace ? ggml_scale_bias_inplace(g->ctx, a, c->f[0], c->f[1]) : ggml_scale_bias(g->ctx, a, c->f[0], c->f[1]);
            }
            return inplace ? ggml_scale_inplace(g->ctx, a, c->f[0]) : ggml_scale(g->ctx, a, c->f[0]);
        case GGML_OP_CLAMP:      return ggml_clamp(g->ctx, a, c->f[0], c->f[1]);
        case GGML_OP_LEAKY_RELU: return ggml_leaky_relu(g->ctx, a, c->f[0], inplace);
        default:                 return NULL;
    }
}

static struct bop_case * add_math(struct bop_cases * list, enum ggml_op op, enum ggml_type type, const int64_t ne[4],
        enum bop_layout layout, bool inplace, double lo, double hi, const char * extra) {
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_math, "type=%s,ne=%s,layout=%s,inplace=%d%s",
            bops_tname(type), bops_ne_str(ne), bops_layout_name(layout), inplace ? 1 : 0, extra);
    if (c != NULL) {
        c->t[0] = type;
        bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
        c->i[0] = op;
        c->i[1] = inplace;
        c->i[2] = layout;
        c->lo = lo;
        c->hi = hi;
    }
    return c;
}

static bool cases_math(struct bop_cases * list) {
    static const struct { enum ggml_op op; double lo, hi; } ops[] = {
        { GGML_OP_SQR, -2.0, 2.0 }, { GGML_OP_SQRT, 0.01, 4.0 }, { GGML_OP_LOG, 0.01, 8.0 },
        { GGML_OP_SIN, -6.0, 6.0 }, { GGML_OP_COS, -6.0, 6.0 },
    };
    static const int64_t shapes[][4] = { { 10, 5, 4, 3 }, { 1027, 3, 1, 1 } };
    bool ok = true;
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        for (int t = 0; t < N_FLOAT_TYPES; t++) {
            for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
                ok = ok && add_math(list, ops[o].op, float_types[t], shapes[s], BOP_LAYOUT_CONT, false, ops[o].lo, ops[o].hi, "");
            }
            ok = ok && add_math(list, ops[o].op, float_types[t], shapes[0], BOP_LAYOUT_PAD, false, ops[o].lo, ops[o].hi, "");
            ok = ok && add_math(list, ops[o].op, float_types[t], shapes[0], BOP_LAYOUT_PERM, false, ops[o].lo, ops[o].hi, "");
        }
        ok = ok && add_math(list, ops[o].op, GGML_TYPE_F32, shapes[0], BOP_LAYOUT_CONT, true, ops[o].lo, ops[o].hi, "");
    }

    // SCALE, with and without bias
    static const int64_t sh[4] = { 10, 5, 4, 3 };
    for (int t = 0; t < N_FLOAT_TYPES; t++) {
        for (int bias = 0; bias < 2; bias++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                struct bop_case * c = add_math(list, GGML_OP_SCALE, float_types[t], sh, BOP_LAYOUT_CONT, inplace, -1.0, 1.0,
                        bias ? ",s=2.5,b=-0.75" : ",s=2.5");
                if (c == NULL) {
                    return false;
                }
                c->i[3] = bias;
                c->f[0] = 2.5f;
                c->f[1] = -0.75f;
            }
        }
        struct bop_case * c = add_math(list, GGML_OP_SCALE, float_types[t], sh, BOP_LAYOUT_ROWS, false, -1.0, 1.0, ",s=-0.5");
        if (c == NULL) {
            return false;
        }
        c->f[0] = -0.5f;
    }
    const int64_t big[4] = { 4099, 2, 1, 1 };
    struct bop_case * c = add_math(list, GGML_OP_SCALE, GGML_TYPE_F32, big, BOP_LAYOUT_CONT, false, -1.0, 1.0, ",s=0.125,b=1");
    if (c == NULL) {
        return false;
    }
    c->i[3] = 1;
    c->f[0] = 0.125f;
    c->f[1] = 1.0f;

    // CLAMP (the family's clamp is in place: the result is a view of a)
    for (int t = 0; t < N_FLOAT_TYPES; t++) {
        for (int l = 0; l < 2; l++) {
            c = add_math(list, GGML_OP_CLAMP, float_types[t], sh, l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT, true, -1.0, 1.0,
                    ",min=-0.5,max=0.25");
            if (c == NULL) {
                return false;
            }
            c->f[0] = -0.5f;
            c->f[1] = 0.25f;
        }
    }

    // LEAKY_RELU
    for (int t = 0; t < N_FLOAT_TYPES; t++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            c = add_math(list, GGML_OP_LEAKY_RELU, float_types[t], sh, BOP_LAYOUT_CONT, inplace, -2.0, 2.0, ",slope=0.1");
            if (c == NULL) {
                return false;
            }
            c->f[0] = 0.1f;
        }
    }
    c = add_math(list, GGML_OP_LEAKY_RELU, GGML_TYPE_F32, sh, BOP_LAYOUT_PERM, false, -2.0, 2.0, ",slope=-0.3");
    if (c == NULL) {
        return false;
    }
    c->f[0] = -0.3f;
    return ok;
}

static bool cases_add1_acc(struct bop_cases * list) {
    static const struct { enum ggml_type a, b; } add1_types[] = {
        { GGML_TYPE_F32, GGML_TYPE_F32 }, { GGML_TYPE_F16, GGML_TYPE_F32 }, { GGML_TYPE_F16, GGML_TYPE_F16 },
        { GGML_TYPE_BF16, GGML_TYPE_F32 },
    };
    static const int64_t sh[4] = { 10, 5, 4, 3 };
    for (size_t t = 0; t < sizeof(add1_types)/sizeof(add1_types[0]); t++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_ADD1), build_add1, "type_a=%s,type_b=%s,ne=%s,inplace=%d",
                    bops_tname(add1_types[t].a), bops_tname(add1_types[t].b), bops_ne_str(sh), inplace);
            if (c == NULL) {
                return false;
            }
            c->t[0] = add1_types[t].a;
            c->t[1] = add1_types[t].b;
            bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
            c->i[1] = inplace;
        }
    }

    // ACC: b placed inside a at (col, row) of every plane
    static const struct { int64_t a[4], b[4]; int col, row; } acc[] = {
        { { 10, 5, 4, 3 }, { 10, 5, 4, 3 }, 0, 0 },
        { { 10, 5, 4, 3 }, { 4, 3, 4, 3 }, 2, 1 },
        { { 17, 9, 2, 1 }, { 5, 2, 2, 1 }, 11, 6 },
    };
    for (size_t k = 0; k < sizeof(acc)/sizeof(acc[0]); k++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_ACC), build_acc, "type=f32,ne_a=%s,ne_b=%s,at=[%d,%d],inplace=%d",
                    bops_ne_str(acc[k].a), bops_ne_str(acc[k].b), acc[k].col, acc[k].row, inplace);
            if (c == NULL) {
                return false;
            }
            c->t[0] = c->t[1] = GGML_TYPE_F32;
            bops_ne(c->ne[0], acc[k].a[0], acc[k].a[1], acc[k].a[2], acc[k].a[3]);
            bops_ne(c->ne[1], acc[k].b[0], acc[k].b[1], acc[k].b[2], acc[k].b[3]);
            c->i[0] = acc[k].col;
            c->i[1] = inplace;
            c->i[2] = acc[k].row;
        }
    }
    return true;
}

static bool cases_perf(struct bop_cases * list) {
    static const int64_t big[4] = { 4096, 512, 1, 1 };
    static const int64_t row[4] = { 4096, 1, 1, 1 };
    bool ok = true;
    ok = ok && bops_perf_only(list, add_binary(list, GGML_OP_ADD, GGML_TYPE_F32, GGML_TYPE_F32, big, big, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false));
    ok = ok && bops_perf_only(list, add_binary(list, GGML_OP_MUL, GGML_TYPE_F32, GGML_TYPE_F32, big, row, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false));
    ok = ok && bops_perf_only(list, add_binary(list, GGML_OP_ADD, GGML_TYPE_F16, GGML_TYPE_F16, big, big, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false));
    ok = ok && bops_perf_only(list, add_math(list, GGML_OP_SQR, GGML_TYPE_F32, big, BOP_LAYOUT_CONT, false, -1.0, 1.0, "") != NULL);
    struct bop_case * c = add_math(list, GGML_OP_SCALE, GGML_TYPE_F32, big, BOP_LAYOUT_CONT, false, -1.0, 1.0, ",s=0.5");
    if (c != NULL) {
        c->f[0] = 0.5f;
    }
    return bops_perf_only(list, ok && c != NULL);
}

bool bops_cases_elementwise(struct bop_cases * list) {
    return cases_binary(list) && cases_add1_acc(list) && cases_math(list) && cases_perf(list);
}
