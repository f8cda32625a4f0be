// backend-ops cases: normalization (NORM, RMS_NORM, L2_NORM, GROUP_NORM), MUL_MAT (types,
// broadcasting, strided operands, precision), OUT_PROD, IM2COL (1-D and 2-D), CONV_2D (direct and
// through im2col) and POOL_2D.

#include "bops.h"

#include <stdio.h>

//
// norms: t[0], ne[0], i[0] = op, i[1] = inplace, i[2] = layout, i[3] = n_groups, f[0] = eps
//

static struct ggml_tensor * build_norm(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[2], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    const bool inplace = c->i[1] != 0;
    const float eps = c->f[0];
    switch ((enum ggml_op) c->i[0]) {
        case GGML_OP_NORM:       return inplace ? ggml_norm_inplace(g->ctx, a, eps) : ggml_norm(g->ctx, a, eps);
        case GGML_OP_RMS_NORM:   return inplace ? ggml_rms_norm_inplace(g->ctx, a, eps) : ggml_rms_norm(g->ctx, a, eps);
        case GGML_OP_L2_NORM:    return inplace ? ggml_l2_norm_inplace(g->ctx, a, eps) : ggml_l2_norm(g->ctx, a, eps);
        case GGML_OP_GROUP_NORM:
            return inplace ? ggml_group_norm_inplace(g->ctx, a, c->i[3], eps) : ggml_group_norm(g->ctx, a, c->i[3], eps);
        default:                 return NULL;
    }
}

static struct bop_case * add_norm(struct bop_cases * list, enum ggml_op op, enum ggml_type type, const int64_t ne[4],
        enum bop_layout layout, bool inplace, float eps, int n_groups) {
    char groups[32] = "";
    if (op == GGML_OP_GROUP_NORM) {
        snprintf(groups, sizeof(groups), ",n_groups=%d", n_groups);
    }
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_norm, "type=%s,ne=%s,eps=%g%s,layout=%s,inplace=%d",
            bops_tname(type), bops_ne_str(ne), (double) eps, groups, bops_layout_name(layout), inplace ? 1 : 0);
    if (c != NULL) {
        c->t[0] = type;
        bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
        c->i[0] = op;
        c->i[1] = inplace;
        c->i[2] = layout;
        c->i[3] = n_groups;
        c->f[0] = eps;
        // a mean far from zero, so that the variance is computed around it
        c->lo = -2.0;
        c->hi = 4.0;
    }
    return c;
}

static bool cases_norm(struct bop_cases * list) {
    static const enum ggml_op ops[] = { GGML_OP_NORM, GGML_OP_RMS_NORM, GGML_OP_L2_NORM };
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    static const int64_t shapes[][4] = { { 64, 5, 4, 3 }, { 4097, 3, 1, 1 }, { 7, 1, 1, 1 } };
    for (size_t o = 0; o < 3; o++) {
        const float eps = ops[o] == GGML_OP_L2_NORM ? 1e-12f : 1e-5f;
        for (size_t t = 0; t < 3; t++) {
            for (size_t s = 0; s < 3; s++) {
                if (add_norm(list, ops[o], types[t], shapes[s], BOP_LAYOUT_CONT, false, eps, 0) == NULL) {
                    return false;
                }
            }
        }
        if (add_norm(list, ops[o], GGML_TYPE_F32, shapes[0], BOP_LAYOUT_PAD, false, eps, 0) == NULL ||
            add_norm(list, ops[o], GGML_TYPE_F32, shapes[0], BOP_LAYOUT_PERM, false, eps, 0) == NULL ||
            add_norm(list, ops[o], GGML_TYPE_F32, shapes[0], BOP_LAYOUT_CONT, true, eps, 0) == NULL ||
            add_norm(list, ops[o], GGML_TYPE_F32, shapes[0], BOP_LAYOUT_CONT, false, 0.5f, 0) == NULL) {
            return false;
        }
    }
    static const struct { int64_t ne[4]; int groups; } gn[] = {
        { { 8, 8, 12, 2 }, 3 }, { { 8, 8, 12, 2 }, 4 }, { { 9, 7, 10, 1 }, 4 }, { { 5, 3, 32, 1 }, 32 },
    };
    for (size_t k = 0; k < sizeof(gn)/sizeof(gn[0]); k++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            if (add_norm(list, GGML_OP_GROUP_NORM, GGML_TYPE_F32, gn[k].ne, BOP_LAYOUT_CONT, inplace, 1e-6f, gn[k].groups) == NULL) {
                return false;
            }
        }
    }
    return add_norm(list, GGML_OP_GROUP_NORM, GGML_TYPE_F16, gn[0].ne, BOP_LAYOUT_CONT, false, 1e-6f, 3) != NULL;
}

//
// MUL_MAT: a = t[0] ne[0] (layout i[0]), b = t[1] ne[1] (layout i[1]), i[2] = GGML_PREC_F32
// OUT_PROD: the same without precision
//

static struct ggml_tensor * build_matmul(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[0], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * b = bops_input(g, c->t[1], c->ne[1], (enum bop_layout) c->i[1], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    if (c->i[3] == GGML_OP_OUT_PROD) {
        return ggml_out_prod(g->ctx, a, b);
    }
    struct ggml_tensor * t = ggml_mul_mat(g->ctx, a, b);
    if (t != NULL && c->i[2]) {
        ggml_mul_mat_set_prec(t, GGML_PREC_F32);
    }
    return t;
}

static struct bop_case * add_matmul(struct bop_cases * list, enum ggml_op op, enum ggml_type ta, enum ggml_type tb,
        const int64_t na[4], const int64_t nb[4], enum bop_layout la, enum bop_layout lb, bool prec_f32) {
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_matmul,
            "type_a=%s,type_b=%s,ne_a=%s,ne_b=%s,layout_a=%s,layout_b=%s%s", bops_tname(ta), bops_tname(tb),
            bops_ne_str(na), bops_ne_str(nb), bops_layout_name(la), bops_layout_name(lb), prec_f32 ? ",prec=f32" : "");
    if (c != NULL) {
        c->t[0] = ta;
        c->t[1] = tb;
        bops_ne(c->ne[0], na[0], na[1], na[2], na[3]);
        bops_ne(c->ne[1], nb[0], nb[1], nb[2], nb[3]);
        c->i[0] = la;
        c->i[1] = lb;
        c->i[2] = prec_f32;
        c->i[3] = op;
    }
    return c;
}

static bool cases_matmul(struct bop_cases * list) {
    // k, m (rows of a), n (rows of b), a's batch dims, b's batch dims
    static const struct { int64_t k, m, n, a2, a3, b2, b3; } mm[] = {
        { 256, 16, 1, 1, 1, 1, 1 }, { 256, 16, 8, 1, 1, 1, 1 }, { 129, 67, 13, 1, 1, 1, 1 }, { 96, 128, 32, 1, 1, 1, 1 },
        { 64, 16, 9, 2, 1, 6, 2 }, { 32, 8, 7, 3, 2, 3, 2 }, { 4096, 4, 2, 1, 1, 1, 1 }, { 7, 5, 3, 1, 1, 1, 1 },
    };
    static const struct { enum ggml_type a, b; } types[] = {
        { GGML_TYPE_F32, GGML_TYPE_F32 }, { GGML_TYPE_F16, GGML_TYPE_F32 }, { GGML_TYPE_BF16, GGML_TYPE_F32 },
        { GGML_TYPE_F16, GGML_TYPE_F16 }, { GGML_TYPE_BF16, GGML_TYPE_BF16 },
    };
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        for (size_t s = 0; s < sizeof(mm)/sizeof(mm[0]); s++) {
            const int64_t na[4] = { mm[s].k, mm[s].m, mm[s].a2, mm[s].a3 };
            const int64_t nb[4] = { mm[s].k, mm[s].n, mm[s].b2, mm[s].b3 };
            if (add_matmul(list, GGML_OP_MUL_MAT, types[t].a, types[t].b, na, nb, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false) == NULL) {
                return false;
            }
        }
        // strided operands on a batched shape
        const int64_t na[4] = { 64, 16, 2, 1 };
        const int64_t nb[4] = { 64, 9, 6, 2 };
        if (add_matmul(list, GGML_OP_MUL_MAT, types[t].a, types[t].b, na, nb, BOP_LAYOUT_PAD, BOP_LAYOUT_CONT, false) == NULL ||
            add_matmul(list, GGML_OP_MUL_MAT, types[t].a, types[t].b, na, nb, BOP_LAYOUT_CONT, BOP_LAYOUT_PAD, false) == NULL ||
            add_matmul(list, GGML_OP_MUL_MAT, types[t].a, types[t].b, na, nb, BOP_LAYOUT_PERM, BOP_LAYOUT_CONT, false) == NULL ||
            add_matmul(list, GGML_OP_MUL_MAT, types[t].a, types[t].b, na, nb, BOP_LAYOUT_CONT, BOP_LAYOUT_PERM, false) == NULL) {
            return false;
        }
    }
    const int64_t na[4] = { 129, 67, 1, 1 };
    const int64_t nb[4] = { 129, 13, 1, 1 };
    if (add_matmul(list, GGML_OP_MUL_MAT, GGML_TYPE_F16, GGML_TYPE_F32, na, nb, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, true) == NULL ||
        add_matmul(list, GGML_OP_MUL_MAT, GGML_TYPE_F32, GGML_TYPE_F32, na, nb, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, true) == NULL) {
        return false;
    }
    // the few-columns path with half-precision weights, every n = 2 .. 16: odd k past the CPU
    // kernel's k block (5440 at n = 6 .. 2048 at n = 16) and an odd row count (partial row tiles)
    for (int64_t n = 2; n <= 16; n++) {
        const int64_t fa[4] = { 5461, 37, 1, 1 };
        const int64_t fb[4] = { 5461, n, 1, 1 };
        if (add_matmul(list, GGML_OP_MUL_MAT, GGML_TYPE_F16, GGML_TYPE_F32, fa, fb, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false) == NULL ||
            add_matmul(list, GGML_OP_MUL_MAT, GGML_TYPE_BF16, GGML_TYPE_F32, fa, fb, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false) == NULL) {
            return false;
        }
    }

    // OUT_PROD: a [m, k, a2, a3], b [n, k, b2, b3] -> [m, n, b2, b3]
    static const struct { int64_t m, n, k, a2, a3, b2, b3; } op[] = {
        { 10, 12, 16, 1, 1, 1, 1 }, { 33, 7, 5, 2, 1, 4, 2 }, { 64, 1, 32, 1, 1, 1, 1 }, { 3, 40, 9, 1, 2, 3, 2 },
    };
    static const enum ggml_type op_types[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (size_t t = 0; t < 2; t++) {
        for (size_t s = 0; s < sizeof(op)/sizeof(op[0]); s++) {
            const int64_t a[4] = { op[s].m, op[s].k, op[s].a2, op[s].a3 };
            const int64_t b[4] = { op[s].n, op[s].k, op[s].b2, op[s].b3 };
            if (add_matmul(list, GGML_OP_OUT_PROD, op_types[t], GGML_TYPE_F32, a, b, BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false) == NULL) {
                return false;
            }
        }
        const int64_t a[4] = { 10, 16, 1, 1 };
        const int64_t b[4] = { 12, 16, 1, 1 };
        if (add_matmul(list, GGML_OP_OUT_PROD, op_types[t], GGML_TYPE_F32, a, b, BOP_LAYOUT_CONT, BOP_LAYOUT_TRANS, false) == NULL ||
            add_matmul(list, GGML_OP_OUT_PROD, op_types[t], GGML_TYPE_F32, a, b, BOP_LAYOUT_PAD, BOP_LAYOUT_PAD, false) == NULL) {
            return false;
        }
    }
    return true;
}

//
// IM2COL: kernel t[0] ne[0] (shape only), data t[1] ne[1], result t[2]; i[0..5] = s0, s1, p0, p1,
// d0, d1, i[6] = is_2D, i[9] = layout of the data (0: contiguous)
// CONV_2D: kernel t[0] ne[0], data t[1] ne[1], i[0..5] as above, i[7] = 1: through im2col + mul_mat
//

static struct ggml_tensor * build_conv(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input(g, c->t[1], c->ne[1], (enum bop_layout) c->i[9], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const int * p = c->i;
    if (c->i[8] == GGML_OP_IM2COL) {
        return ggml_im2col(g->ctx, a, b, p[0], p[1], p[2], p[3], p[4], p[5], p[6] != 0, c->t[2]);
    }
    if (c->i[7]) {
        return ggml_conv_2d(g->ctx, a, b, p[0], p[1], p[2], p[3], p[4], p[5]);
    }
    return ggml_conv_2d_direct(g->ctx, a, b, p[0], p[1], p[2], p[3], p[4], p[5]);
}

static struct bop_case * add_conv(struct bop_cases * list, enum ggml_op op, enum ggml_type tk, enum ggml_type td,
        enum ggml_type tdst, const int64_t nk[4], const int64_t nd[4], const int p[7], bool via_im2col) {
    struct bop_case * c = op == GGML_OP_IM2COL
        ? bops_add(list, ggml_op_name(op), build_conv, "type_kernel=%s,type_data=%s,type_dst=%s,ne_kernel=%s,ne_data=%s,"
                "s=[%d,%d],p=[%d,%d],d=[%d,%d],2d=%d", bops_tname(tk), bops_tname(td), bops_tname(tdst), bops_ne_str(nk),
                bops_ne_str(nd), p[0], p[1], p[2], p[3], p[4], p[5], p[6])
        : bops_add(list, ggml_op_name(op), build_conv, "type_kernel=%s,type_data=%s,ne_kernel=%s,ne_data=%s,"
                "s=[%d,%d],p=[%d,%d],d=[%d,%d],path=%s", bops_tname(tk), bops_tname(td), bops_ne_str(nk), bops_ne_str(nd),
                p[0], p[1], p[2], p[3], p[4], p[5], via_im2col ? "im2col" : "direct");
    if (c != NULL) {
        c->t[0] = tk;
        c->t[1] = td;
        c->t[2] = tdst;
        bops_ne(c->ne[0], nk[0], nk[1], nk[2], nk[3]);
        bops_ne(c->ne[1], nd[0], nd[1], nd[2], nd[3]);
        for (int i = 0; i < 7; i++) {
            c->i[i] = p[i];
        }
        c->i[7] = via_im2col;
        c->i[8] = op;
        if (via_im2col) {
            // the last node is a CONT of the product: judge it as a matrix product
            c->bound = tk == GGML_TYPE_F32 ? 1e-6 : 5e-4;
        }
    }
    return c;
}

// output size along one axis (<= 0: no output)
static int64_t conv_out_size(int64_t in, int64_t k, int s, int p, int d) {
    return (in + 2*p - d*(k - 1) - 1)/s + 1;
}

// Whether some output position of an axis reads an input element (not only padding): a geometry
// whose outputs are all padding computes zeros, which no error bound can judge.
static bool conv_axis_reads_input(int64_t n, int64_t k, int s, int p, int d) {
    const int64_t n_out = conv_out_size(n, k, s, p, d);
    for (int64_t o = 0; o < n_out; o++) {
        for (int64_t t = 0; t < k; t++) {
            const int64_t x = o*s - p + t*d;
            if (x >= 0 && x < n) {
                return true;
            }
        }
    }
    return false;
}

// IM2COL alone: kernel widths and heights 1..5, strides, paddings and dilations per axis, on
// rows wider than the CPU kernel's chunk of positions (32), so that a row spans several chunks
// and a thread's range ends inside a row; data F32, F16 and BF16 in every layout (TRANS: the
// elements of a row not adjacent), results F32 and F16; then the 1-D form.
static bool add_im2col_layout(struct bop_cases * list, enum ggml_type td, enum ggml_type tdst, const int64_t nk[4],
        const int64_t nd[4], const int p[7], enum bop_layout layout) {
    struct bop_case * c = bops_add(list, "IM2COL", build_conv, "type_data=%s,type_dst=%s,ne_kernel=%s,ne_data=%s,"
            "s=[%d,%d],p=[%d,%d],d=[%d,%d],2d=%d,layout=%s", bops_tname(td), bops_tname(tdst), bops_ne_str(nk),
            bops_ne_str(nd), p[0], p[1], p[2], p[3], p[4], p[5], p[6], bops_layout_name(layout));
    if (c == NULL) {
        return false;
    }
    c->t[0] = tdst; // the kernel gives only its shape
    c->t[1] = td;
    c->t[2] = tdst;
    bops_ne(c->ne[0], nk[0], nk[1], nk[2], nk[3]);
    bops_ne(c->ne[1], nd[0], nd[1], nd[2], nd[3]);
    for (int i = 0; i < 7; i++) {
        c->i[i] = p[i];
    }
    c->i[8] = GGML_OP_IM2COL;
    c->i[9] = layout;
    return true;
}

static bool cases_im2col_sweep(struct bop_cases * list) {
    static const enum ggml_type tdata[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    static const enum bop_layout lays[] = { BOP_LAYOUT_CONT, BOP_LAYOUT_PAD, BOP_LAYOUT_PERM, BOP_LAYOUT_TRANS };
    int n2 = 0, n1 = 0;
    for (int v = 0; v < 50; v++) {
        const int kw = 1 + v % 5, kh = 1 + (v / 5) % 5;
        const int s0 = 1 + v % 3, s1 = 1 + (v / 3) % 3, d0 = 1 + (v / 5) % 3, d1 = 1 + (v / 2) % 3;
        const int p[7] = { s0, s1, v % 4, (v / 4) % 4, d0, d1, 1 };
        const int64_t nd[4] = { 70 + v % 7, 13 + v % 4, 1 + v % 3, 1 + v % 2 };
        const int64_t nk[4] = { kw, kh, nd[2], 2 };
        if (conv_out_size(nd[0], kw, s0, p[2], d0) <= 0 || conv_out_size(nd[1], kh, s1, p[3], d1) <= 0 ||
            !conv_axis_reads_input(nd[0], kw, s0, p[2], d0) || !conv_axis_reads_input(nd[1], kh, s1, p[3], d1)) {
            continue;
        }
        if (!add_im2col_layout(list, tdata[v % 3], v % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32, nk, nd, p, lays[(v / 3) % 4])) {
            return false;
        }
        n2++;
    }
    for (int v = 0; v < 15; v++) {
        const int kw = 1 + v % 5, s0 = 1 + v % 3, d0 = 1 + (v / 5) % 3;
        const int p[7] = { s0, 0, v % 4, 0, d0, 0, 0 };
        const int64_t nd[4] = { 67 + v, 1 + v % 3, 1 + v % 2, 1 };
        const int64_t nk[4] = { kw, nd[1], 2, 1 };
        if (!add_im2col_layout(list, tdata[v % 3], v % 2 ? GGML_TYPE_F16 : GGML_TYPE_F32, nk, nd, p, lays[v % 4])) {
            return false;
        }
        n1++;
    }
    // the CPU kernel's tiling: channel blocks with a remainder (3x3 over 37 channels: 14, 14, 9),
    // tiles of fewer positions (12x13 kernel), one position a tile (65x64 kernel, 4160 floats
    // per channel), and a result row split between threads with several channel blocks
    static const struct { int64_t k[2], d[4]; int p[7]; enum ggml_type tdst; } tiles[] = {
        { { 3, 3 }, { 40, 9, 37, 1 }, { 1, 1, 1, 1, 1, 1, 1 }, GGML_TYPE_F32 },
        { { 3, 3 }, { 41, 7, 37, 2 }, { 2, 1, 0, 2, 1, 2, 1 }, GGML_TYPE_F16 },
        { { 12, 13 }, { 50, 20, 3, 1 }, { 1, 1, 1, 1, 1, 1, 1 }, GGML_TYPE_F32 },
        { { 65, 64 }, { 70, 66, 1, 1 }, { 1, 1, 0, 0, 1, 1, 1 }, GGML_TYPE_F32 },
        { { 5, 5 }, { 37, 3, 60, 1 }, { 1, 1, 2, 2, 1, 1, 1 }, GGML_TYPE_F32 },
    };
    for (size_t i = 0; i < sizeof(tiles)/sizeof(tiles[0]); i++) {
        const int64_t nk[4] = { tiles[i].k[0], tiles[i].k[1], tiles[i].d[2], 2 };
        if (!add_im2col_layout(list, GGML_TYPE_F32, tiles[i].tdst, nk, tiles[i].d, tiles[i].p, BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    return n2 > 40 && n1 == 15;
}

// Small odd shapes against paddings larger than the kernel, strides and dilations 1..3: output
// rows shorter than a position tile, so that a tile spans many rows, each partly padding. Every
// (stride, dilation) pair of an axis appears; the paddings and shapes rotate with it. The first
// case is the issue-22 finding (W = 1, H = 133, kernel 1x2, p0 = 5: 6 outputs were wrong).
static bool cases_conv_sweep(struct bop_cases * list) {
    static const int64_t data[][4] = { { 1, 133, 2, 1 }, { 3, 37, 3, 2 }, { 5, 19, 1, 1 }, { 7, 11, 2, 1 }, { 2, 66, 3, 1 } };
    static const int64_t kern[][2] = { { 1, 2 }, { 2, 1 }, { 3, 2 }, { 1, 3 } };
    static const int pads[][2] = { { 5, 1 }, { 0, 4 }, { 3, 3 }, { 1, 0 }, { 7, 2 } };
    static const int64_t oc = 3;
    int n = 0;
    for (int sd = 0; sd < 81; sd++) {
        // s0, d0, s1, d1 in 1..3
        const int s0 = 1 + sd % 3, d0 = 1 + (sd / 3) % 3, s1 = 1 + (sd / 9) % 3, d1 = 1 + (sd / 27) % 3;
        const int64_t * dn = data[sd % 5];
        const int64_t * kn = kern[(sd / 5) % 4];
        const int * pd = pads[(sd / 2) % 5];
        const int p[7] = { s0, s1, pd[0], pd[1], d0, d1, 1 };
        if (!conv_axis_reads_input(dn[0], kn[0], s0, pd[0], d0) || !conv_axis_reads_input(dn[1], kn[1], s1, pd[1], d1)) {
            continue;
        }
        const int64_t nk[4] = { kn[0], kn[1], dn[2], oc };
        const enum ggml_type tk = sd % 4 == 3 ? GGML_TYPE_F16 : GGML_TYPE_F32;
        if (add_conv(list, GGML_OP_CONV_2D, tk, GGML_TYPE_F32, GGML_TYPE_F32, nk, dn, p, false) == NULL) {
            return false;
        }
        // every fourth through im2col + mul_mat, and the same geometry as IM2COL alone
        if (sd % 4 == 0 && (add_conv(list, GGML_OP_CONV_2D, tk, GGML_TYPE_F32, GGML_TYPE_F32, nk, dn, p, true) == NULL ||
                            add_conv(list, GGML_OP_IM2COL, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, nk, dn, p, false) == NULL)) {
            return false;
        }
        n++;
    }
    // the case exactly (one channel each, as the family's suite builds it)
    static const int64_t k22[4] = { 1, 2, 1, 1 }, d22[4] = { 1, 133, 1, 1 };
    static const int p22[7] = { 1, 1, 5, 1, 1, 1, 1 };
    return n > 60 && add_conv(list, GGML_OP_CONV_2D, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, k22, d22, p22, false) != NULL;
}

static bool cases_conv(struct bop_cases * list) {
    static const int params2d[][7] = {
        { 1, 1, 0, 0, 1, 1, 1 }, { 2, 2, 1, 1, 1, 1, 1 }, { 1, 2, 2, 0, 2, 1, 1 }, { 3, 1, 1, 2, 1, 2, 1 },
    };
    static const int64_t kernel[4] = { 3, 3, 4, 8 };
    static const int64_t data[4] = { 10, 9, 4, 2 };
    static const enum ggml_type ft[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (size_t td = 0; td < 2; td++) {
        for (size_t tdst = 0; tdst < 2; tdst++) {
            for (size_t k = 0; k < sizeof(params2d)/sizeof(params2d[0]); k++) {
                if (add_conv(list, GGML_OP_IM2COL, ft[tdst], ft[td], ft[tdst], kernel, data, params2d[k], false) == NULL) {
                    return false;
                }
            }
        }
    }
    // 1-D: kernel [K, IC, OC], data [W, IC, N]
    static const int params1d[][7] = { { 1, 0, 0, 0, 1, 0, 0 }, { 2, 0, 1, 0, 1, 0, 0 }, { 1, 0, 2, 0, 2, 0, 0 } };
    static const int64_t kernel1d[4] = { 3, 4, 8, 1 };
    static const int64_t data1d[4] = { 20, 4, 2, 1 };
    for (size_t td = 0; td < 2; td++) {
        for (size_t k = 0; k < sizeof(params1d)/sizeof(params1d[0]); k++) {
            if (add_conv(list, GGML_OP_IM2COL, ft[td], ft[td], ft[td], kernel1d, data1d, params1d[k], false) == NULL) {
                return false;
            }
        }
    }

    static const struct { int64_t k[4], d[4]; int p[7]; } convs[] = {
        { { 3, 3, 4, 5 }, { 10, 9, 4, 2 }, { 1, 1, 0, 0, 1, 1, 1 } },
        { { 3, 3, 4, 5 }, { 10, 9, 4, 2 }, { 2, 2, 1, 1, 1, 1, 1 } },
        { { 1, 1, 8, 4 }, { 7, 6, 8, 1 }, { 1, 1, 0, 0, 1, 1, 1 } },
        { { 5, 3, 2, 3 }, { 16, 8, 2, 1 }, { 2, 1, 2, 1, 1, 2, 1 } },
        { { 3, 3, 16, 16 }, { 12, 12, 16, 1 }, { 1, 1, 1, 1, 1, 1, 1 } },
        // the GEMM path (>= 16 channels, K >= 32): channels not a multiple of the register tile,
        // channel blocks split between threads, several position tiles per image, padding
        { { 3, 3, 40, 70 }, { 23, 17, 40, 2 }, { 1, 2, 2, 1, 1, 2, 1 } },
        { { 2, 2, 64, 130 }, { 9, 7, 64, 1 }, { 1, 1, 0, 3, 2, 1, 1 } },
        { { 4, 4, 128, 20 }, { 20, 20, 128, 1 }, { 1, 1, 1, 1, 1, 1, 1 } },
    };
    for (size_t tk = 0; tk < 2; tk++) {
        for (size_t k = 0; k < sizeof(convs)/sizeof(convs[0]); k++) {
            for (int via = 0; via < 2; via++) {
                if (add_conv(list, GGML_OP_CONV_2D, ft[tk], GGML_TYPE_F32, GGML_TYPE_F32, convs[k].k, convs[k].d, convs[k].p, via) == NULL) {
                    return false;
                }
            }
        }
    }
    return cases_conv_sweep(list) && cases_im2col_sweep(list);
}

//
// POOL_2D: t[0], ne[0], i[0] = op, i[1..6] = k0, k1, s0, s1, p0, p1, i[7] = layout
//

static struct ggml_tensor * build_pool(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[7], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    const int * p = c->i;
    return ggml_pool_2d(g->ctx, a, (enum ggml_op_pool) p[0], p[1], p[2], p[3], p[4], (float) p[5], (float) p[6]);
}

static bool cases_pool(struct bop_cases * list) {
    static const int params[][6] = {
        { 2, 2, 2, 2, 0, 0 }, { 3, 3, 1, 1, 1, 1 }, { 3, 2, 2, 1, 1, 0 }, { 1, 1, 1, 1, 0, 0 }, { 4, 4, 3, 3, 2, 2 },
    };
    static const int64_t sh[4] = { 10, 9, 3, 2 };
    static const enum ggml_type ft[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (size_t t = 0; t < 2; t++) {
        for (int op = 0; op < GGML_OP_POOL_COUNT; op++) {
            for (size_t k = 0; k < sizeof(params)/sizeof(params[0]); k++) {
                for (int l = 0; l < 2; l++) {
                    if (l && (t != 0 || k != 1)) {
                        continue; // one strided case per op
                    }
                    const int * p = params[k];
                    const enum bop_layout layout = l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
                    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_POOL_2D), build_pool,
                            "type=%s,ne=%s,pool=%s,k=[%d,%d],s=[%d,%d],p=[%d,%d],layout=%s", bops_tname(ft[t]), bops_ne_str(sh),
                            op == GGML_OP_POOL_MAX ? "max" : "avg", p[0], p[1], p[2], p[3], p[4], p[5], bops_layout_name(layout));
                    if (c == NULL) {
                        return false;
                    }
                    c->t[0] = ft[t];
                    bops_ne(c->ne[0], sh[0], sh[1], sh[2], sh[3]);
                    c->i[0] = op;
                    for (int i = 0; i < 6; i++) {
                        c->i[1 + i] = p[i];
                    }
                    c->i[7] = layout;
                }
            }
        }
    }
    return true;
}

static bool cases_perf(struct bop_cases * list) {
    static const int64_t big[4] = { 4096, 512, 1, 1 };
    bool ok = bops_perf_only(list, add_norm(list, GGML_OP_RMS_NORM, GGML_TYPE_F32, big, BOP_LAYOUT_CONT, false, 1e-5f, 0) != NULL);
    ok = ok && bops_perf_only(list, add_norm(list, GGML_OP_NORM, GGML_TYPE_F32, big, BOP_LAYOUT_CONT, false, 1e-5f, 0) != NULL);
    // matrix-vector (decoding) and square products, F32 and half-precision weights
    static const struct { int64_t k, m, n; } mm[] = { { 4096, 4096, 1 }, { 4096, 4096, 8 }, { 1024, 1024, 1024 }, { 4096, 1024, 512 } };
    static const enum ggml_type wt[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    for (size_t s = 0; s < sizeof(mm)/sizeof(mm[0]); s++) {
        for (size_t t = 0; t < 3; t++) {
            const int64_t na[4] = { mm[s].k, mm[s].m, 1, 1 };
            const int64_t nb[4] = { mm[s].k, mm[s].n, 1, 1 };
            ok = ok && bops_perf_only(list, add_matmul(list, GGML_OP_MUL_MAT, wt[t], GGML_TYPE_F32, na, nb,
                    BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, false) != NULL);
        }
    }
    static const int p[7] = { 1, 1, 1, 1, 1, 1, 1 };
    static const int64_t k[4] = { 3, 3, 64, 64 };
    static const int64_t d[4] = { 64, 64, 64, 1 };
    ok = ok && bops_perf_only(list, add_conv(list, GGML_OP_CONV_2D, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, k, d, p, false) != NULL);
    ok = ok && bops_perf_only(list, add_conv(list, GGML_OP_CONV_2D, GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_F32, k, d, p, true) != NULL);
    ok = ok && bops_perf_only(list, add_conv(list, GGML_OP_IM2COL, GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_F16, k, d, p, false) != NULL);
    return ok;
}

bool bops_cases_nn(struct bop_cases * list) {
    return cases_norm(list) && cases_matmul(list) && cases_conv(list) && cases_pool(list) && cases_perf(list);
}
