// backend-ops cases: the training ops. REPEAT_BACK, SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK (and
// in place), GET_ROWS_BACK, COUNT_EQUAL, CROSS_ENTROPY_LOSS(_BACK), OPT_STEP_ADAMW, OPT_STEP_SGD,
// on the shapes, layouts and types the family's suite uses for them.

#include "bops.h"

#include <stdio.h>

//
// REPEAT_BACK: t[0]; ne[0] = the repeated source, ne[1] = the result shape; i[0] = layout
//

static struct ggml_tensor * build_repeat_back(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[0], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = bops_input_c(g, c->t[0], c->ne[1]);
    return a != NULL && b != NULL ? ggml_repeat_back(g->ctx, a, b) : NULL;
}

//
// SILU_BACK, RMS_NORM_BACK, SOFT_MAX_BACK: t[0], ne[0]; i[0] = op, i[1] = layout, i[2] = in place;
// f[0] = eps or scale
//

static struct ggml_tensor * build_pair_back(struct bop_graph * g, const struct bop_case * c) {
    const enum bop_layout layout = (enum bop_layout) c->i[1];
    struct ggml_tensor * dy = bops_input(g, c->t[0], c->ne[0], layout, BOP_FILL_UNIFORM, -1.0, 1.0);
    // x of silu / rms_norm; softmax's result y (positive)
    const double lo = c->i[0] == GGML_OP_SOFT_MAX_BACK ? 0.0 : -3.0;
    struct ggml_tensor * x = bops_input(g, c->t[0], c->ne[0], layout, BOP_FILL_UNIFORM, lo, 1.0);
    if (dy == NULL || x == NULL) {
        return NULL;
    }
    switch ((enum ggml_op) c->i[0]) {
        case GGML_OP_SILU_BACK:     return ggml_silu_back(g->ctx, dy, x);
        case GGML_OP_RMS_NORM_BACK: return ggml_rms_norm_back(g->ctx, dy, x, c->f[0]);
        case GGML_OP_SOFT_MAX_BACK:
            return c->i[2] ? ggml_soft_max_ext_back_inplace(g->ctx, dy, x, c->f[0], c->f[1])
                           : ggml_soft_max_ext_back(g->ctx, dy, x, c->f[0], c->f[1]);
        default: return NULL;
    }
}

//
// GET_ROWS_BACK: t[0] = gradient type; ne[0] = [n, rows of the data (c), 1, 1], i[0] = indices
//

static struct ggml_tensor * build_get_rows_back(struct bop_graph * g, const struct bop_case * c) {
    const int64_t n = c->ne[0][0];
    const int64_t n_rows = c->ne[0][1];
    const int64_t ne_a[4] = { n, c->i[0], 1, 1 };
    const int64_t ne_b[4] = { c->i[0], 1, 1, 1 };
    const double range = c->t[0] == GGML_TYPE_I32 ? 1000.0 : 1.0; // integers: more than -1 and 0
    struct ggml_tensor * a = bops_input(g, c->t[0], ne_a, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -range, range);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_I32, ne_b, BOP_LAYOUT_CONT, BOP_FILL_INDEX, 0.0, (double) n_rows);
    struct ggml_tensor * d = bops_input_c(g, GGML_TYPE_F32, c->ne[0]);
    return a != NULL && b != NULL && d != NULL ? ggml_get_rows_back(g->ctx, a, b, d) : NULL;
}

//
// COUNT_EQUAL: ne[0]; i[0] = number of distinct values (fewer: more equal pairs), i[1] = layout
//

static struct ggml_tensor * build_count_equal(struct bop_graph * g, const struct bop_case * c) {
    const enum bop_layout layout = (enum bop_layout) c->i[1];
    struct ggml_tensor * a = bops_input(g, GGML_TYPE_I32, c->ne[0], layout, BOP_FILL_INDEX, 0.0, (double) c->i[0]);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_I32, c->ne[0], layout, BOP_FILL_INDEX, 0.0, (double) c->i[0]);
    return a != NULL && b != NULL ? ggml_count_equal(g->ctx, a, b) : NULL;
}

//
// CROSS_ENTROPY_LOSS (i[0] = 0) and its gradient (i[0] = 1): ne[0]; i[1] = layout
//

static struct ggml_tensor * build_cross_entropy(struct bop_graph * g, const struct bop_case * c) {
    const enum bop_layout layout = (enum bop_layout) c->i[1];
    struct ggml_tensor * logits = bops_input(g, GGML_TYPE_F32, c->ne[0], layout, BOP_FILL_UNIFORM, -4.0, 4.0);
    struct ggml_tensor * labels = bops_input(g, GGML_TYPE_F32, c->ne[0], layout, BOP_FILL_UNIFORM, 0.0, 1.0);
    if (logits == NULL || labels == NULL) {
        return NULL;
    }
    if (c->i[0] == 0) {
        return ggml_cross_entropy_loss(g->ctx, logits, labels);
    }
    static const int64_t one[4] = { 1, 1, 1, 1 };
    struct ggml_tensor * d = bops_input(g, GGML_TYPE_F32, one, BOP_LAYOUT_CONT, BOP_FILL_AWAY, 0.5, 2.0);
    return d != NULL ? ggml_cross_entropy_loss_back(g->ctx, d, logits, labels) : NULL;
}

//
// OPT_STEP_ADAMW (i[0] = 1) and OPT_STEP_SGD (i[0] = 0): ne[0]. The moments are copies (DUP) of
// inputs, since the step overwrites them; the optimizer parameters are random in (0.05, 0.95).
//

static struct ggml_tensor * build_opt_step(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * w = bops_input_c(g, GGML_TYPE_F32, c->ne[0]);
    struct ggml_tensor * grad = bops_input_c(g, GGML_TYPE_F32, c->ne[0]);
    const int64_t ne_p[4] = { c->i[0] ? 7 : 2, 1, 1, 1 };
    struct ggml_tensor * p = bops_input(g, GGML_TYPE_F32, ne_p, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, 0.05, 0.95);
    if (w == NULL || grad == NULL || p == NULL) {
        return NULL;
    }
    ggml_set_param(w);
    if (c->i[0] == 0) {
        return ggml_opt_step_sgd(g->ctx, w, grad, p);
    }
    struct ggml_tensor * m0 = bops_input_c(g, GGML_TYPE_F32, c->ne[0]);
    struct ggml_tensor * v0 = bops_input(g, GGML_TYPE_F32, c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, 0.0, 1.0);
    if (m0 == NULL || v0 == NULL) {
        return NULL;
    }
    struct ggml_tensor * m = ggml_dup(g->ctx, m0);
    struct ggml_tensor * v = ggml_dup(g->ctx, v0);
    return m != NULL && v != NULL ? ggml_opt_step_adamw(g->ctx, w, grad, m, v, p) : NULL;
}

//
// ROPE_BACK through ggml_rope_ext_back / ggml_rope_multi_back: ne[0] = a; i[0] = n_dims, i[1] = mode,
// i[2] = with freq factors; f[0] = ext_factor
//

static struct ggml_tensor * build_rope_back(struct bop_graph * g, const struct bop_case * c) {
    const int mode = c->i[1];
    const bool multi = mode == GGML_ROPE_TYPE_MROPE || mode == GGML_ROPE_TYPE_VISION;
    const int64_t ne_pos[4] = { c->ne[0][2]*(multi ? 4 : 1), 1, 1, 1 };
    struct ggml_tensor * a = bops_input_c(g, GGML_TYPE_F32, c->ne[0]);
    struct ggml_tensor * pos = bops_input(g, GGML_TYPE_I32, ne_pos, BOP_LAYOUT_CONT, BOP_FILL_INDEX, 0.0, 200.0);
    struct ggml_tensor * ff = NULL;
    if (c->i[2]) {
        const int64_t ne_ff[4] = { c->i[0]/2, 1, 1, 1 };
        ff = bops_input(g, GGML_TYPE_F32, ne_ff, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, 0.5, 2.0);
        if (ff == NULL) {
            return NULL;
        }
    }
    if (a == NULL || pos == NULL) {
        return NULL;
    }
    if (!multi) {
        return ggml_rope_ext_back(g->ctx, a, pos, ff, c->i[0], mode, 512, 10000.0f, 1.0f, c->f[0], 1.0f, 32.0f, 1.0f);
    }
    int sections[GGML_MROPE_SECTIONS] = { 8, 4, 4, 0 };
    if (mode == GGML_ROPE_TYPE_VISION) {
        sections[0] = sections[1] = (int) (c->ne[0][0]/4);
        sections[2] = sections[3] = 0;
    }
    return ggml_rope_multi_back(g->ctx, a, pos, ff, c->i[0], sections, mode, 512, 10000.0f, 1.0f, c->f[0], 1.0f, 32.0f, 1.0f);
}

static bool add_rope_back(struct bop_cases * list) {
    static const struct { int64_t ne0; int n_dims, mode; } forms[] = {
        { 64, 64, GGML_ROPE_TYPE_NORMAL }, { 64, 32, GGML_ROPE_TYPE_NORMAL }, { 128, 128, GGML_ROPE_TYPE_NEOX },
        { 80, 64, GGML_ROPE_TYPE_NEOX }, { 64, 32, GGML_ROPE_TYPE_MROPE }, { 64, 32, GGML_ROPE_TYPE_VISION },
    };
    for (size_t k = 0; k < sizeof(forms)/sizeof(forms[0]); k++) {
        for (int ext = 0; ext < 2; ext++) {
            for (int ff = 0; ff < 2; ff++) {
                if (ff && forms[k].mode == GGML_ROPE_TYPE_VISION) {
                    continue;
                }
                struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_ROPE_BACK), build_rope_back,
                        "type=f32,ne=[%lld,4,5,1],n_dims=%d,mode=%d,ext_factor=%d,ff=%d",
                        (long long) forms[k].ne0, forms[k].n_dims, forms[k].mode, ext, ff);
                if (c == NULL) {
                    return false;
                }
                bops_ne(c->ne[0], forms[k].ne0, 4, 5, 1);
                c->i[0] = forms[k].n_dims;
                c->i[1] = forms[k].mode;
                c->i[2] = ff;
                c->f[0] = (float) ext;
                c->bound = 1e-6;
            }
        }
    }
    return true;
}

//
// POOL_2D_BACK: ne[0] = the forward input; i[0] = op, i[1..2] = k, i[3..4] = s, i[5..6] = p
//

static struct ggml_tensor * build_pool_back(struct bop_graph * g, const struct bop_case * c) {
    const int k0 = c->i[1], k1 = c->i[2], s0 = c->i[3], s1 = c->i[4], p0 = c->i[5], p1 = c->i[6];
    const int64_t ne_g[4] = { (c->ne[0][0] + 2*p0 - k0)/s0 + 1, (c->ne[0][1] + 2*p1 - k1)/s1 + 1, c->ne[0][2], c->ne[0][3] };
    struct ggml_tensor * af = bops_input(g, GGML_TYPE_F32, c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_DISTINCT, -1.0, 1.0);
    struct ggml_tensor * dy = bops_input_c(g, GGML_TYPE_F32, ne_g);
    return af != NULL && dy != NULL ?
        ggml_pool_2d_back(g->ctx, dy, af, (enum ggml_op_pool) c->i[0], k0, k1, s0, s1, (float) p0, (float) p1) : NULL;
}

static bool add_pool_back(struct bop_cases * list) {
    static const struct { int k0, k1, s0, s1, p0, p1; } forms[] = {
        { 2, 2, 2, 2, 0, 0 }, { 3, 3, 1, 1, 0, 0 }, { 3, 3, 2, 2, 1, 1 }, { 3, 2, 2, 1, 1, 0 }, { 5, 1, 3, 1, 2, 0 },
    };
    for (int op = 0; op < 2; op++) {
        for (size_t k = 0; k < sizeof(forms)/sizeof(forms[0]); k++) {
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_POOL_2D_BACK), build_pool_back,
                    "type=f32,ne=[10,9,3,2],op=%s,k=%dx%d,s=%d,%d,p=%d,%d", op == GGML_OP_POOL_MAX ? "max" : "avg",
                    forms[k].k0, forms[k].k1, forms[k].s0, forms[k].s1, forms[k].p0, forms[k].p1);
            if (c == NULL) {
                return false;
            }
            bops_ne(c->ne[0], 10, 9, 3, 2);
            c->i[0] = op;
            c->i[1] = forms[k].k0; c->i[2] = forms[k].k1;
            c->i[3] = forms[k].s0; c->i[4] = forms[k].s1;
            c->i[5] = forms[k].p0; c->i[6] = forms[k].p1;
            c->bound = 1e-7;
        }
    }
    return true;
}

static const enum bop_layout backward_layouts[] = { BOP_LAYOUT_CONT, BOP_LAYOUT_PAD, BOP_LAYOUT_PERM };

static bool add_repeat_back(struct bop_cases * list) {
    static const struct { int64_t a[4], b[4]; } shapes[] = {
        { { 10, 5, 4, 3 }, { 10, 5, 4, 3 } }, { { 20, 5, 4, 3 }, { 10, 5, 4, 3 } }, { { 10, 10, 4, 3 }, { 10, 5, 4, 3 } },
        { { 10, 5, 8, 3 }, { 10, 5, 4, 3 } }, { { 10, 5, 4, 6 }, { 10, 5, 4, 3 } }, { { 40, 10, 8, 6 }, { 10, 5, 4, 3 } },
        { { 64, 7, 3, 2 }, { 1, 1, 1, 1 } }, { { 33, 7, 1, 1 }, { 33, 1, 1, 1 } },
    };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        for (size_t l = 0; l < 3; l++) {
            if (l > 0 && s % 3 != 1) {
                continue; // non-contiguous layouts on a few shapes
            }
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_REPEAT_BACK), build_repeat_back, "type=f32,ne_a=%s,ne_b=%s,layout=%s",
                    bops_ne_str(shapes[s].a), bops_ne_str(shapes[s].b), bops_layout_name(backward_layouts[l]));
            if (c == NULL) {
                return false;
            }
            c->t[0] = GGML_TYPE_F32;
            bops_ne(c->ne[0], shapes[s].a[0], shapes[s].a[1], shapes[s].a[2], shapes[s].a[3]);
            bops_ne(c->ne[1], shapes[s].b[0], shapes[s].b[1], shapes[s].b[2], shapes[s].b[3]);
            c->i[0] = backward_layouts[l];
            c->bound = 1e-6; // sums of up to 64 elements
        }
    }
    return true;
}

static bool add_pair_back(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 10, 5, 4, 3 }, { 1027, 3, 1, 1 }, { 64, 1, 1, 1 }, { 5, 7, 3, 2 } };
    // f: eps or scale; max_bias: SOFT_MAX_BACK's ALiBi bias (no effect on dx; the family's suite has 8)
    static const struct { enum ggml_op op; float f; bool inplace; float max_bias; } ops[] = {
        { GGML_OP_SILU_BACK, 0.0f, false, 0.0f },
        { GGML_OP_RMS_NORM_BACK, 1e-6f, false, 0.0f }, { GGML_OP_RMS_NORM_BACK, 1e-3f, false, 0.0f },
        { GGML_OP_SOFT_MAX_BACK, 1.0f, false, 0.0f }, { GGML_OP_SOFT_MAX_BACK, 0.1f, false, 0.0f },
        { GGML_OP_SOFT_MAX_BACK, 1.0f, true, 0.0f }, { GGML_OP_SOFT_MAX_BACK, 0.1f, false, 8.0f },
    };
    for (size_t o = 0; o < sizeof(ops)/sizeof(ops[0]); o++) {
        for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
            for (size_t l = 0; l < 3; l++) {
                if (l > 0 && s != 0) {
                    continue;
                }
                char bias[32] = "";
                if (ops[o].max_bias != 0.0f) {
                    snprintf(bias, sizeof(bias), ",max_bias=%g", (double) ops[o].max_bias);
                }
                struct bop_case * c = bops_add(list, ggml_op_name(ops[o].op), build_pair_back, "type=f32,ne=%s,p=%g%s%s,layout=%s",
                        bops_ne_str(shapes[s]), (double) ops[o].f, bias, ops[o].inplace ? ",inplace" : "",
                        bops_layout_name(backward_layouts[l]));
                if (c == NULL) {
                    return false;
                }
                c->t[0] = GGML_TYPE_F32;
                bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
                c->i[0] = ops[o].op;
                c->i[1] = backward_layouts[l];
                c->i[2] = ops[o].inplace;
                c->f[0] = ops[o].f;
                c->f[1] = ops[o].max_bias;
                c->bound = ops[o].op == GGML_OP_SILU_BACK ? 1e-7 : 1e-6;
            }
        }
    }
    return true;
}

static bool add_get_rows_back(struct bop_cases * list) {
    static const struct { int64_t n, rows; int idx; } shapes[] = { { 10, 5, 3 }, { 256, 16, 40 }, { 7, 1, 5 }, { 1027, 8, 8 } };
    // the gradient's type: F32 and F16 as the family's CPU, BF16, I32 and quantized rows beyond it
    // (the family's suite asks for them all; quantized and BF16 only where n is whole blocks)
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32,
                                            GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_IQ4_NL };
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
            if (shapes[s].n % ggml_blck_size(types[t]) != 0) {
                continue;
            }
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_GET_ROWS_BACK), build_get_rows_back, "type=%s,n=%lld,rows=%lld,idx=%d",
                    bops_tname(types[t]), (long long) shapes[s].n, (long long) shapes[s].rows, shapes[s].idx);
            if (c == NULL) {
                return false;
            }
            c->t[0] = types[t];
            bops_ne(c->ne[0], shapes[s].n, shapes[s].rows, 1, 1);
            c->i[0] = shapes[s].idx;
            c->bound = 1e-7;
        }
    }
    return true;
}

static bool add_count_equal(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 4, 500, 1, 1 }, { 1027, 3, 2, 1 }, { 10, 5, 4, 3 } };
    for (size_t s = 0; s < 3; s++) {
        for (size_t l = 0; l < 3; l++) {
            if (l > 0 && s != 2) {
                continue;
            }
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_COUNT_EQUAL), build_count_equal, "type=i32,ne=%s,layout=%s",
                    bops_ne_str(shapes[s]), bops_layout_name(backward_layouts[l]));
            if (c == NULL) {
                return false;
            }
            bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
            c->i[0] = 3;
            c->i[1] = backward_layouts[l];
            c->bound = 0.0;
        }
    }
    return true;
}

static bool add_cross_entropy(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 10, 5, 4, 3 }, { 30000, 2, 1, 1 }, { 3, 9, 1, 1 }, { 100, 33, 1, 1 } };
    for (int back = 0; back < 2; back++) {
        for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
            for (size_t l = 0; l < 3; l++) {
                if (l > 0 && s != 0) {
                    continue;
                }
                const enum ggml_op op = back ? GGML_OP_CROSS_ENTROPY_LOSS_BACK : GGML_OP_CROSS_ENTROPY_LOSS;
                struct bop_case * c = bops_add(list, ggml_op_name(op), build_cross_entropy, "type=f32,ne=%s,layout=%s",
                        bops_ne_str(shapes[s]), bops_layout_name(backward_layouts[l]));
                if (c == NULL) {
                    return false;
                }
                bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
                c->i[0] = back;
                c->i[1] = backward_layouts[l];
                c->bound = 1e-6;
            }
        }
    }
    return true;
}

static bool add_opt_step(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 10, 5, 4, 3 }, { 1027, 3, 1, 1 }, { 1, 1, 1, 1 } };
    for (int adamw = 0; adamw < 2; adamw++) {
        for (size_t s = 0; s < 3; s++) {
            const enum ggml_op op = adamw ? GGML_OP_OPT_STEP_ADAMW : GGML_OP_OPT_STEP_SGD;
            struct bop_case * c = bops_add(list, ggml_op_name(op), build_opt_step, "type=f32,ne=%s", bops_ne_str(shapes[s]));
            if (c == NULL) {
                return false;
            }
            bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
            c->i[0] = adamw;
            c->bound = 1e-6;
        }
    }
    return true;
}

bool bops_cases_backward(struct bop_cases * list) {
    return add_repeat_back(list) && add_pair_back(list) && add_get_rows_back(list) && add_count_equal(list) &&
           add_cross_entropy(list) && add_opt_step(list) && add_rope_back(list) &&
           add_pool_back(list);
}
