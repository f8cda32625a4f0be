// backend-ops cases: data movement. DUP, CONT (of permuted views, with new shapes), CPY and cast
// between types (into contiguous and strided destinations), SET, GET_ROWS, SET_ROWS (I32 and I64
// indices), REPEAT, CONCAT, PAD, ARANGE, DIAG_MASK_INF / DIAG_MASK_ZERO.

#include "bops.h"

static const enum ggml_type copy_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32 };
#define N_COPY_TYPES 4

// integer inputs get a range with many distinct values (floats keep the default [-1, 1])
static void int_range(struct bop_case * c, enum ggml_type type) {
    if (type == GGML_TYPE_I32) {
        c->lo = -1000.0;
        c->hi = 1000.0;
    }
}

//
// DUP: t[0], ne[0], i[0] = layout, i[1] = inplace
//

static struct ggml_tensor * build_dup(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[0], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    return c->i[1] ? ggml_dup_inplace(g->ctx, a) : ggml_dup(g->ctx, a);
}

//
// CONT: a contiguous base of shape ne[0] permuted by i[0..3]; i[4] = 0: cont, 1: cont_1d,
// 2: cont_2d(ne[1][0], ne[1][1]), 4: cont_4d(ne[1])
//

static struct ggml_tensor * build_cont(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * base = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    if (base == NULL) {
        return NULL;
    }
    struct ggml_tensor * a = ggml_permute(g->ctx, base, c->i[0], c->i[1], c->i[2], c->i[3]);
    if (a == NULL) {
        return NULL;
    }
    switch (c->i[4]) {
        case 1:  return ggml_cont_1d(g->ctx, a, ggml_nelements(a));
        case 2:  return ggml_cont_2d(g->ctx, a, c->ne[1][0], c->ne[1][1]);
        case 4:  return ggml_cont_4d(g->ctx, a, c->ne[1][0], c->ne[1][1], c->ne[1][2], c->ne[1][3]);
        default: return ggml_cont(g->ctx, a);
    }
}

//
// CPY: a = t[0] of shape ne[0] (layout i[0]) into b = t[1] of shape ne[1] (layout i[1]);
// i[2] = 1: ggml_cast(a, t[1]) instead
//

static struct ggml_tensor * build_cpy(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[0], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    if (c->i[2]) {
        return ggml_cast(g->ctx, a, c->t[1]);
    }
    struct ggml_tensor * b = bops_input(g, c->t[1], c->ne[1], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    return b != NULL ? ggml_cpy(g->ctx, a, b) : NULL;
}

static bool add_cpy(struct bop_cases * list, enum ggml_type ta, enum ggml_type tb, const int64_t na[4], const int64_t nb[4],
        enum bop_layout la, enum bop_layout lb, bool cast) {
    struct bop_case * c = cast
        ? bops_add(list, ggml_op_name(GGML_OP_CPY), build_cpy, "type_src=%s,type_dst=%s,ne=%s,layout_src=%s,cast",
                bops_tname(ta), bops_tname(tb), bops_ne_str(na), bops_layout_name(la))
        : bops_add(list, ggml_op_name(GGML_OP_CPY), build_cpy, "type_src=%s,type_dst=%s,ne_src=%s,ne_dst=%s,layout_src=%s,layout_dst=%s",
                bops_tname(ta), bops_tname(tb), bops_ne_str(na), bops_ne_str(nb), bops_layout_name(la), bops_layout_name(lb));
    if (c == NULL) {
        return false;
    }
    c->t[0] = ta;
    c->t[1] = tb;
    bops_ne(c->ne[0], na[0], na[1], na[2], na[3]);
    bops_ne(c->ne[1], nb[0], nb[1], nb[2], nb[3]);
    c->i[0] = la;
    c->i[1] = lb;
    c->i[2] = cast;
    if (ta == GGML_TYPE_I32 || tb == GGML_TYPE_I32) {
        // integers (and floats that truncate to them) must stay exact in every float type
        c->lo = -200.0;
        c->hi = 200.0;
    }
    return true;
}

static bool cases_copy(struct bop_cases * list) {
    static const int64_t sh[4] = { 10, 5, 4, 3 };
    static const int64_t sh_big[4] = { 1027, 6, 2, 1 };
    static const int64_t sh_flat[4] = { 600, 1, 1, 1 }; // sh reshaped
    bool ok = true;

    for (int t = 0; t < N_COPY_TYPES; t++) {
        for (int l = 0; l < BOP_LAYOUT_COUNT; l++) {
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_DUP), build_dup, "type=%s,ne=%s,layout=%s",
                    bops_tname(copy_types[t]), bops_ne_str(sh), bops_layout_name((enum bop_layout) l));
            if (c == NULL) {
                return false;
            }
            c->t[0] = copy_types[t];
            bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
            c->i[0] = l;
            int_range(c, copy_types[t]);
        }
    }
    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_DUP), build_dup, "type=f32,ne=%s,inplace=1", bops_ne_str(sh));
    if (c == NULL) {
        return false;
    }
    c->t[0] = GGML_TYPE_F32;
    bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
    c->i[1] = 1;

    // CONT of permuted views, some with a new shape
    static const struct { int ax[4]; int mode; int64_t ne[4]; } conts[] = {
        { { 0, 2, 1, 3 }, 0, { 0 } }, { { 1, 0, 2, 3 }, 0, { 0 } }, { { 2, 0, 1, 3 }, 0, { 0 } },
        { { 3, 2, 1, 0 }, 0, { 0 } }, { { 1, 2, 3, 0 }, 0, { 0 } }, { { 0, 1, 3, 2 }, 0, { 0 } },
        { { 1, 0, 2, 3 }, 1, { 0 } }, { { 0, 2, 1, 3 }, 2, { 50, 12, 1, 1 } }, { { 2, 1, 0, 3 }, 4, { 3, 20, 5, 2 } },
    };
    for (int t = 0; t < N_COPY_TYPES; t++) {
        for (size_t k = 0; k < sizeof(conts)/sizeof(conts[0]); k++) {
            c = bops_add(list, ggml_op_name(GGML_OP_CONT), build_cont, "type=%s,ne=%s,permute=[%d,%d,%d,%d],shape=%s",
                    bops_tname(copy_types[t]), bops_ne_str(sh), conts[k].ax[0], conts[k].ax[1], conts[k].ax[2], conts[k].ax[3],
                    conts[k].mode == 0 ? "same" : conts[k].mode == 1 ? "1d" : bops_ne_str(conts[k].ne));
            if (c == NULL) {
                return false;
            }
            c->t[0] = copy_types[t];
            int_range(c, copy_types[t]);
            bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
            for (int i = 0; i < 4; i++) {
                c->i[i] = conts[k].ax[i];
                c->ne[1][i] = conts[k].ne[i];
            }
            c->i[4] = conts[k].mode;
        }
    }

    // CPY between every pair of float types, then integer conversions
    static const enum ggml_type ftypes[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh_big, sh_big, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh, BOP_LAYOUT_PERM, BOP_LAYOUT_CONT, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh, BOP_LAYOUT_TRANS, BOP_LAYOUT_CONT, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh, BOP_LAYOUT_CONT, BOP_LAYOUT_PAD, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh, BOP_LAYOUT_PAD, BOP_LAYOUT_PERM, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh_flat, BOP_LAYOUT_PERM, BOP_LAYOUT_CONT, false);
            ok = ok && add_cpy(list, ftypes[a], ftypes[b], sh, sh, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, true);
        }
    }
    ok = ok && add_cpy(list, GGML_TYPE_I32, GGML_TYPE_I32, sh, sh, BOP_LAYOUT_PERM, BOP_LAYOUT_CONT, false);
    ok = ok && add_cpy(list, GGML_TYPE_F32, GGML_TYPE_I32, sh, sh, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
    ok = ok && add_cpy(list, GGML_TYPE_I32, GGML_TYPE_F32, sh, sh, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false);
    ok = ok && add_cpy(list, GGML_TYPE_I32, GGML_TYPE_F32, sh, sh, BOP_LAYOUT_TRANS, BOP_LAYOUT_PAD, false);
    return ok;
}

//
// SET: a = t[0] ne[0], b = t[0] ne[1]; i[0] = form (0: set, 1: set_1d, 2: set_2d), i[1] = inplace,
// i[2] = element offset of b in a, i[3] = row of a where b starts
//

static struct ggml_tensor * build_set(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input_c(g, c->t[0], c->ne[1]);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const size_t offset = (size_t) c->i[2]*a->nb[0] + (size_t) c->i[3]*a->nb[1];
    const bool inplace = c->i[1] != 0;
    switch (c->i[0]) {
        case 1:  return inplace ? ggml_set_1d_inplace(g->ctx, a, b, offset) : ggml_set_1d(g->ctx, a, b, offset);
        case 2:  return inplace ? ggml_set_2d_inplace(g->ctx, a, b, a->nb[1], offset) : ggml_set_2d(g->ctx, a, b, a->nb[1], offset);
        default:
            return inplace ? ggml_set_inplace(g->ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset)
                           : ggml_set(g->ctx, a, b, a->nb[1], a->nb[2], a->nb[3], offset);
    }
}

static bool cases_set(struct bop_cases * list) {
    static const struct { int form; int64_t a[4], b[4]; int col, row; } sets[] = {
        { 0, { 10, 5, 4, 3 }, { 4, 3, 4, 3 }, 2, 1 },
        { 0, { 10, 5, 4, 3 }, { 10, 5, 2, 1 }, 0, 0 },
        { 1, { 64, 3, 1, 1 }, { 20, 1, 1, 1 }, 30, 1 },
        { 2, { 16, 9, 1, 1 }, { 5, 4, 1, 1 }, 7, 3 },
    };
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_I32 };
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        for (size_t k = 0; k < sizeof(sets)/sizeof(sets[0]); k++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_SET), build_set,
                        "type=%s,form=%s,ne_a=%s,ne_b=%s,at=[%d,%d],inplace=%d", bops_tname(types[t]),
                        sets[k].form == 0 ? "4d" : sets[k].form == 1 ? "1d" : "2d",
                        bops_ne_str(sets[k].a), bops_ne_str(sets[k].b), sets[k].col, sets[k].row, inplace);
                if (c == NULL) {
                    return false;
                }
                c->t[0] = types[t];
                bops_ne(c->ne[0], sets[k].a[0], sets[k].a[1], sets[k].a[2], sets[k].a[3]);
                bops_ne(c->ne[1], sets[k].b[0], sets[k].b[1], sets[k].b[2], sets[k].b[3]);
                c->i[0] = sets[k].form;
                c->i[1] = inplace;
                c->i[2] = sets[k].col;
                c->i[3] = sets[k].row;
                if (types[t] == GGML_TYPE_I32) {
                    c->lo = -1000.0;
                    c->hi = 1000.0;
                }
            }
        }
    }
    return true;
}

//
// GET_ROWS: a = t[0] ne[0] (layout i[0]), indices I32 [ne[1][0], a->ne2, a->ne3]
// SET_ROWS: a = t[0] ne[0] (layout i[3]), rows t[2] [a->ne0, ne[1][0], a->ne2, a->ne3] (layout i[1]),
//           indices t[1] [ne[1][0], i[0], i[2]] distinct per (i2, i3)
//

static struct ggml_tensor * build_get_rows(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[0], BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t nb[4] = { c->ne[1][0], c->ne[0][2], c->ne[0][3], 1 };
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_I32, nb, BOP_LAYOUT_CONT, BOP_FILL_INDEX, 0.0, (double) c->ne[0][1]);
    return a != NULL && b != NULL ? ggml_get_rows(g->ctx, a, b) : NULL;
}

static struct ggml_tensor * build_set_rows(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[3], BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t nb[4] = { c->ne[0][0], c->ne[1][0], c->ne[0][2], c->ne[0][3] };
    struct ggml_tensor * b = bops_input(g, c->t[2], nb, (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t nc[4] = { c->ne[1][0], c->i[0], c->i[2], 1 };
    struct ggml_tensor * idx = bops_input(g, c->t[1], nc, BOP_LAYOUT_CONT, BOP_FILL_ROWPERM, 0.0, (double) c->ne[0][1]);
    return a != NULL && b != NULL && idx != NULL ? ggml_set_rows(g->ctx, a, b, idx) : NULL;
}

static bool cases_rows(struct bop_cases * list) {
    static const struct { int64_t a[4]; int64_t k; } gets[] = {
        { { 256, 32, 1, 1 }, 12 }, { { 7, 20, 3, 2 }, 5 }, { { 33, 9, 2, 1 }, 9 }, { { 4096, 4, 1, 1 }, 1 },
    };
    for (int t = 0; t < N_COPY_TYPES; t++) {
        for (size_t k = 0; k < sizeof(gets)/sizeof(gets[0]); k++) {
            for (int l = 0; l < 2; l++) {
                const enum bop_layout layout = l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
                struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_GET_ROWS), build_get_rows,
                        "type=%s,ne_a=%s,n_rows=%lld,layout=%s", bops_tname(copy_types[t]), bops_ne_str(gets[k].a),
                        (long long) gets[k].k, bops_layout_name(layout));
                if (c == NULL) {
                    return false;
                }
                c->t[0] = copy_types[t];
                bops_ne(c->ne[0], gets[k].a[0], gets[k].a[1], gets[k].a[2], gets[k].a[3]);
                c->ne[1][0] = gets[k].k;
                c->i[0] = layout;
                int_range(c, copy_types[t]);
            }
        }
    }

    // SET_ROWS: destination [n, rows, m2, m3], k rows written per plane, indices broadcast c2 x c3
    static const struct { int64_t a[4]; int64_t k; int c2, c3; } sets[] = {
        { { 64, 20, 1, 1 }, 5, 1, 1 }, { { 7, 12, 4, 2 }, 3, 2, 1 }, { { 33, 9, 3, 2 }, 9, 3, 2 }, { { 1025, 6, 1, 1 }, 2, 1, 1 },
    };
    static const enum ggml_type dst_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    static const enum ggml_type idx_types[] = { GGML_TYPE_I64, GGML_TYPE_I32 };
    for (size_t t = 0; t < 3; t++) {
        for (size_t it = 0; it < 2; it++) {
            for (size_t k = 0; k < sizeof(sets)/sizeof(sets[0]); k++) {
                for (int l = 0; l < 2; l++) {
                    const enum bop_layout layout = l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
                    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_SET_ROWS), build_set_rows,
                            "type=%s,type_idx=%s,ne_dst=%s,n_rows=%lld,idx_bcast=[%d,%d],layout=%s",
                            bops_tname(dst_types[t]), bops_tname(idx_types[it]), bops_ne_str(sets[k].a),
                            (long long) sets[k].k, sets[k].c2, sets[k].c3, bops_layout_name(layout));
                    if (c == NULL) {
                        return false;
                    }
                    c->t[0] = dst_types[t];
                    c->t[1] = idx_types[it];
                    bops_ne(c->ne[0], sets[k].a[0], sets[k].a[1], sets[k].a[2], sets[k].a[3]);
                    c->ne[1][0] = sets[k].k;
                    c->i[0] = sets[k].c2;
                    c->i[1] = layout;
                    c->i[2] = sets[k].c3;
                    c->i[3] = layout;
                }
            }
        }
    }
    // F16 and BF16 source rows (the constructor once refused all but F32); the reference has no
    // quantized SET_ROWS results, so quantized destinations are not in the table
    static const enum ggml_type src_types[] = { GGML_TYPE_F16, GGML_TYPE_BF16 };
    static const enum ggml_type dst_types2[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    for (size_t st = 0; st < 2; st++) {
        for (size_t t = 0; t < sizeof(dst_types2)/sizeof(dst_types2[0]); t++) {
            for (int l = 0; l < 2; l++) {
                const enum bop_layout layout = l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
                const int64_t a[4] = { 256, 11, 2, 3 };
                struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_SET_ROWS), build_set_rows,
                        "type=%s,type_src=%s,type_idx=i64,ne_dst=%s,n_rows=7,idx_bcast=[2,3],layout=%s",
                        bops_tname(dst_types2[t]), bops_tname(src_types[st]), bops_ne_str(a), bops_layout_name(layout));
                if (c == NULL) {
                    return false;
                }
                c->t[0] = dst_types2[t];
                c->t[1] = GGML_TYPE_I64;
                c->t[2] = src_types[st];
                bops_ne(c->ne[0], a[0], a[1], a[2], a[3]);
                c->ne[1][0] = 7;
                c->i[0] = 2;
                c->i[1] = layout;
                c->i[2] = 3;
                c->i[3] = layout;
            }
        }
    }
    return true;
}

//
// REPEAT (t[0], ne[0] -> ne[1], layout i[0]), CONCAT (ne[0], ne[1], dim i[0], layouts i[1], i[2]),
// PAD (ne[0], i[0..7] = lp0, rp0, ..., i[8] = layout, i[9] = right-only form)
//

static struct ggml_tensor * build_repeat(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[0], BOP_FILL_UNIFORM, c->lo, c->hi);
    return a != NULL ? ggml_repeat_4d(g->ctx, a, c->ne[1][0], c->ne[1][1], c->ne[1][2], c->ne[1][3]) : NULL;
}

static struct ggml_tensor * build_concat(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[2], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = bops_input(g, c->t[0], c->ne[1], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    return a != NULL && b != NULL ? ggml_concat(g->ctx, a, b, c->i[0]) : NULL;
}

static struct ggml_tensor * build_pad(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[8], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    if (c->i[9]) {
        return ggml_pad(g->ctx, a, c->i[1], c->i[3], c->i[5], c->i[7]);
    }
    return ggml_pad_ext(g->ctx, a, c->i[0], c->i[1], c->i[2], c->i[3], c->i[4], c->i[5], c->i[6], c->i[7]);
}

static bool cases_repeat_concat_pad(struct bop_cases * list) {
    static const struct { int64_t a[4], to[4]; } reps[] = {
        { { 3, 2, 1, 1 }, { 6, 4, 3, 2 } }, { { 10, 5, 4, 3 }, { 10, 5, 4, 3 } }, { { 1, 5, 1, 3 }, { 7, 10, 2, 3 } },
        { { 33, 1, 2, 1 }, { 66, 3, 2, 2 } },
    };
    for (int t = 0; t < N_COPY_TYPES; t++) {
        for (size_t k = 0; k < sizeof(reps)/sizeof(reps[0]); k++) {
            for (int l = 0; l < 2; l++) {
                const enum bop_layout layout = l ? BOP_LAYOUT_PERM : BOP_LAYOUT_CONT;
                struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_REPEAT), build_repeat, "type=%s,ne=%s,to=%s,layout=%s",
                        bops_tname(copy_types[t]), bops_ne_str(reps[k].a), bops_ne_str(reps[k].to), bops_layout_name(layout));
                if (c == NULL) {
                    return false;
                }
                c->t[0] = copy_types[t];
                int_range(c, copy_types[t]);
                bops_ne(c->ne[0], reps[k].a[0], reps[k].a[1], reps[k].a[2], reps[k].a[3]);
                bops_ne(c->ne[1], reps[k].to[0], reps[k].to[1], reps[k].to[2], reps[k].to[3]);
                c->i[0] = layout;
            }
        }
    }

    static const int64_t sh[4] = { 10, 5, 4, 3 };
    for (int t = 0; t < N_COPY_TYPES; t++) {
        for (int dim = 0; dim < 4; dim++) {
            for (int l = 0; l < 2; l++) {
                int64_t nb[4] = { sh[0], sh[1], sh[2], sh[3] };
                nb[dim] = dim + 2;
                const enum bop_layout lb = l ? BOP_LAYOUT_PERM : BOP_LAYOUT_CONT;
                const enum bop_layout la = l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
                struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_CONCAT), build_concat,
                        "type=%s,ne_a=%s,ne_b=%s,dim=%d,layout_a=%s,layout_b=%s", bops_tname(copy_types[t]),
                        bops_ne_str(sh), bops_ne_str(nb), dim, bops_layout_name(la), bops_layout_name(lb));
                if (c == NULL) {
                    return false;
                }
                c->t[0] = copy_types[t];
                int_range(c, copy_types[t]);
                bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
                bops_ne(c->ne[1], nb[0], nb[1], nb[2], nb[3]);
                c->i[0] = dim;
                c->i[1] = lb;
                c->i[2] = la;
            }
        }
    }

    static const struct { int p[8]; int right_only; int layout; } pads[] = {
        { { 0, 1, 0, 2, 0, 0, 0, 3 }, 1, BOP_LAYOUT_CONT }, { { 2, 1, 1, 0, 0, 2, 1, 1 }, 0, BOP_LAYOUT_CONT },
        { { 3, 3, 2, 2, 1, 1, 0, 0 }, 0, BOP_LAYOUT_PERM }, { { 0, 5, 0, 0, 0, 0, 0, 0 }, 1, BOP_LAYOUT_PAD },
    };
    static const enum ggml_type pad_types[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (size_t t = 0; t < 2; t++) {
        for (size_t k = 0; k < sizeof(pads)/sizeof(pads[0]); k++) {
            const int * p = pads[k].p;
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_PAD), build_pad,
                    "type=%s,ne=%s,pad=[%d,%d,%d,%d,%d,%d,%d,%d],layout=%s", bops_tname(pad_types[t]), bops_ne_str(sh),
                    p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], bops_layout_name((enum bop_layout) pads[k].layout));
            if (c == NULL) {
                return false;
            }
            c->t[0] = pad_types[t];
            bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
            for (int i = 0; i < 8; i++) {
                c->i[i] = p[i];
            }
            c->i[8] = pads[k].layout;
            c->i[9] = pads[k].right_only;
        }
    }
    return true;
}

//
// ARANGE (f[0..2] = start, stop, step) and DIAG_MASK_INF / DIAG_MASK_ZERO (ne[0], i[0] = n_past,
// i[1] = inplace, i[2] = op)
//

static struct ggml_tensor * build_arange(struct bop_graph * g, const struct bop_case * c) {
    return ggml_arange(g->ctx, c->f[0], c->f[1], c->f[2]);
}

static struct ggml_tensor * build_diag_mask(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    if (a == NULL) {
        return NULL;
    }
    if (c->i[2] == GGML_OP_DIAG_MASK_INF) {
        return c->i[1] ? ggml_diag_mask_inf_inplace(g->ctx, a, c->i[0]) : ggml_diag_mask_inf(g->ctx, a, c->i[0]);
    }
    return c->i[1] ? ggml_diag_mask_zero_inplace(g->ctx, a, c->i[0]) : ggml_diag_mask_zero(g->ctx, a, c->i[0]);
}

static bool cases_misc(struct bop_cases * list) {
    static const float ranges[][3] = { { 0.0f, 10.0f, 1.0f }, { -3.5f, 7.25f, 0.37f }, { 100.0f, 2150.0f, 1.0f }, { -1.0f, 1.0f, 0.0625f } };
    for (size_t k = 0; k < sizeof(ranges)/sizeof(ranges[0]); k++) {
        struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_ARANGE), build_arange, "start=%g,stop=%g,step=%g",
                (double) ranges[k][0], (double) ranges[k][1], (double) ranges[k][2]);
        if (c == NULL) {
            return false;
        }
        c->f[0] = ranges[k][0];
        c->f[1] = ranges[k][1];
        c->f[2] = ranges[k][2];
    }

    static const enum ggml_op ops[] = { GGML_OP_DIAG_MASK_INF, GGML_OP_DIAG_MASK_ZERO };
    static const int64_t shapes[][4] = { { 10, 10, 3, 1 }, { 17, 5, 2, 2 } };
    for (size_t o = 0; o < 2; o++) {
        for (size_t s = 0; s < 2; s++) {
            for (int n_past = 0; n_past <= 5; n_past += 5) {
                for (int inplace = 0; inplace < 2; inplace++) {
                    struct bop_case * c = bops_add(list, ggml_op_name(ops[o]), build_diag_mask, "type=f32,ne=%s,n_past=%d,inplace=%d",
                            bops_ne_str(shapes[s]), n_past, inplace);
                    if (c == NULL) {
                        return false;
                    }
                    c->t[0] = GGML_TYPE_F32;
                    bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
                    c->i[0] = n_past;
                    c->i[1] = inplace;
                    c->i[2] = ops[o];
                }
            }
        }
    }
    return true;
}

static bool cases_perf(struct bop_cases * list) {
    static const int64_t big[4] = { 4096, 512, 1, 1 };
    static const int64_t heads[4] = { 128, 512, 32, 1 };
    bool ok = true;
    ok = ok && bops_perf_only(list, add_cpy(list, GGML_TYPE_F32, GGML_TYPE_F16, big, big, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false));
    ok = ok && bops_perf_only(list, add_cpy(list, GGML_TYPE_F32, GGML_TYPE_F32, heads, heads, BOP_LAYOUT_PERM, BOP_LAYOUT_CONT, false));
    ok = ok && bops_perf_only(list, add_cpy(list, GGML_TYPE_F16, GGML_TYPE_F32, big, big, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false));

    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_GET_ROWS), build_get_rows, "type=f16,ne_a=[4096,2000,1,1],n_rows=512");
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    c->t[0] = GGML_TYPE_F16;
    bops_ne(c->ne[0], 4096, 2000, 1, 1);
    c->ne[1][0] = 512;

    c = bops_add(list, ggml_op_name(GGML_OP_SET_ROWS), build_set_rows, "type=f16,type_idx=i64,ne_dst=[4096,1024,1,1],n_rows=64");
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    c->t[0] = GGML_TYPE_F16;
    c->t[1] = GGML_TYPE_I64;
    bops_ne(c->ne[0], 4096, 1024, 1, 1);
    c->ne[1][0] = 64;
    c->i[0] = c->i[2] = 1;
    return ok;
}

bool bops_cases_shape(struct bop_cases * list) {
    return cases_copy(list) && cases_set(list) && cases_rows(list) && cases_repeat_concat_pad(list) && cases_misc(list) &&
           cases_perf(list);
}
