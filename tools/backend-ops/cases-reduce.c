// backend-ops cases: reductions and index results. SUM, SUM_ROWS, MEAN, ARGMAX, ARGSORT (both
// orders, with and without ties) and TOP_K.

#include "bops.h"

#include <stdio.h>

//
// SUM, SUM_ROWS, MEAN: t[0], ne[0], i[0] = op, i[1] = layout
//

static struct ggml_tensor * build_reduce(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    switch ((enum ggml_op) c->i[0]) {
        case GGML_OP_SUM:      return ggml_sum(g->ctx, a);
        case GGML_OP_SUM_ROWS: return ggml_sum_rows(g->ctx, a);
        case GGML_OP_MEAN:     return ggml_mean(g->ctx, a);
        default:               return NULL;
    }
}

//
// ARGMAX (i[0] = GGML_OP_ARGMAX), ARGSORT (i[1] = order), TOP_K (i[2] = k): t[0], ne[0], i[3] = fill
//

static struct ggml_tensor * build_index(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], BOP_LAYOUT_CONT, (enum bop_fill) c->i[3], -1.0, 1.0);
    if (a == NULL) {
        return NULL;
    }
    switch ((enum ggml_op) c->i[0]) {
        case GGML_OP_ARGMAX:  return ggml_argmax(g->ctx, a);
        case GGML_OP_ARGSORT: return ggml_argsort(g->ctx, a, (enum ggml_sort_order) c->i[1]);
        case GGML_OP_TOP_K:   return ggml_top_k(g->ctx, a, c->i[2]);
        default:              return NULL;
    }
}

static struct bop_case * add_index(struct bop_cases * list, enum ggml_op op, enum ggml_type type, const int64_t ne[4],
        enum bop_fill fill, const char * extra) {
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_index, "type=%s,ne=%s,%s%s", bops_tname(type),
            bops_ne_str(ne), fill == BOP_FILL_TIES ? "ties" : "distinct", extra);
    if (c != NULL) {
        c->t[0] = type;
        bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
        c->i[0] = op;
        c->i[3] = fill;
    }
    return c;
}

bool bops_cases_reduce(struct bop_cases * list) {
    static const enum ggml_op ops[] = { GGML_OP_SUM, GGML_OP_SUM_ROWS, GGML_OP_MEAN };
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    // { 37, 20, 3, 1 }: many rows of 16-value chunks and a tail (the one-work-item-per-row paths)
    static const int64_t shapes[][4] = { { 10, 5, 4, 3 }, { 1027, 7, 1, 1 }, { 33, 1, 1, 1 }, { 37, 20, 3, 1 } };
    for (size_t o = 0; o < 3; o++) {
        for (size_t t = 0; t < 3; t++) {
            for (size_t s = 0; s < 4; s++) {
                for (int l = 0; l < 3; l++) {
                    if (l > 0 && s != 0 && s != 3) {
                        continue; // non-contiguous layouts on the first and last shapes only
                    }
                    const enum bop_layout layout = l == 0 ? BOP_LAYOUT_CONT : l == 1 ? BOP_LAYOUT_PAD : BOP_LAYOUT_PERM;
                    struct bop_case * c = bops_add(list, ggml_op_name(ops[o]), build_reduce, "type=%s,ne=%s,layout=%s",
                            bops_tname(types[t]), bops_ne_str(shapes[s]), bops_layout_name(layout));
                    if (c == NULL) {
                        return false;
                    }
                    c->t[0] = types[t];
                    bops_ne(c->ne[0], shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3]);
                    c->i[0] = ops[o];
                    c->i[1] = layout;
                }
            }
        }
    }

    // ARGMAX on matrices (distinct values: the reference's tie rule is not the op's contract)
    static const int64_t mats[][4] = { { 100, 10, 1, 1 }, { 1027, 4, 1, 1 }, { 5, 32, 1, 1 } };
    for (size_t t = 0; t < 2; t++) {
        for (size_t s = 0; s < 3; s++) {
            if (add_index(list, GGML_OP_ARGMAX, types[t], mats[s], BOP_FILL_DISTINCT, "") == NULL) {
                return false;
            }
        }
    }

    // ARGSORT: rows of power-of-two and other lengths, both orders, distinct values and ties
    static const int64_t rows[][4] = { { 16, 10, 3, 1 }, { 1000, 3, 1, 1 }, { 7, 4, 2, 2 }, { 256, 2, 1, 1 } };
    for (size_t t = 0; t < 3; t++) {
        for (size_t s = 0; s < 4; s++) {
            if (types[t] == GGML_TYPE_BF16 && rows[s][0] > 256) {
                continue; // distinct values are only exact in BF16 for short rows
            }
            for (int order = 0; order < 2; order++) {
                for (int ties = 0; ties < 2; ties++) {
                    struct bop_case * c = add_index(list, GGML_OP_ARGSORT, types[t], rows[s],
                            ties ? BOP_FILL_TIES : BOP_FILL_DISTINCT, order == GGML_SORT_ORDER_ASC ? ",order=asc" : ",order=desc");
                    if (c == NULL) {
                        return false;
                    }
                    c->i[1] = order;
                }
            }
        }
    }

    // TOP_K: k from 1 to the whole row
    static const struct { int64_t ne[4]; int k; } tops[] = {
        { { 100, 5, 2, 1 }, 1 }, { { 100, 5, 2, 1 }, 7 }, { { 100, 5, 2, 1 }, 100 }, { { 1000, 3, 1, 1 }, 40 },
        { { 17, 4, 1, 1 }, 16 }, { { 100, 5, 2, 1 }, 2 }, { { 100, 5, 2, 1 }, 31 }, { { 100, 5, 2, 1 }, 32 },
        { { 100, 5, 2, 1 }, 33 }, { { 100, 5, 2, 1 }, 99 }, { { 1000, 3, 1, 1 }, 100 }, { { 1000, 3, 1, 1 }, 300 }, { { 32, 3, 1, 1 }, 32 },
        { { 33, 3, 1, 1 }, 32 }, { { 1, 2, 1, 1 }, 1 },
    };
    for (size_t t = 0; t < 2; t++) {
        for (size_t s = 0; s < sizeof(tops)/sizeof(tops[0]); s++) {
            for (int ties = 0; ties < 2; ties++) {
                char extra[32];
                snprintf(extra, sizeof(extra), ",k=%d", tops[s].k);
                struct bop_case * c = add_index(list, GGML_OP_TOP_K, types[t], tops[s].ne, ties ? BOP_FILL_TIES : BOP_FILL_DISTINCT, extra);
                if (c == NULL) {
                    return false;
                }
                c->i[2] = tops[s].k;
            }
        }
    }

    // perf
    static const int64_t big[4] = { 4096, 512, 1, 1 };
    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_SUM_ROWS), build_reduce, "type=f32,ne=%s", bops_ne_str(big));
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    c->t[0] = GGML_TYPE_F32;
    bops_ne(c->ne[0], big[0], big[1], big[2], big[3]);
    c->i[0] = GGML_OP_SUM_ROWS;
    static const int64_t sort[4] = { 1024, 256, 1, 1 };
    c = add_index(list, GGML_OP_ARGSORT, GGML_TYPE_F32, sort, BOP_FILL_DISTINCT, ",order=desc");
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    c->i[1] = GGML_SORT_ORDER_DESC;
    static const int64_t vocab[4] = { 32000, 4, 1, 1 };
    c = add_index(list, GGML_OP_TOP_K, GGML_TYPE_F32, vocab, BOP_FILL_DISTINCT, ",k=40");
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    c->i[2] = 40;
    // the family's suite shape: one short row, k = 1
    static const int64_t short_row[4] = { 1000, 1, 1, 1 };
    c = add_index(list, GGML_OP_TOP_K, GGML_TYPE_F32, short_row, BOP_FILL_DISTINCT, ",k=1");
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    c->i[2] = 1;
    return true;
}
