// backend-ops cases: the family's other convolutions. CONV_TRANSPOSE_1D, CONV_TRANSPOSE_2D,
// CONV_2D_DW (direct, also channel-adjacent, and the im2col composite), IM2COL_3D, CONV_3D (direct
// and composite), and the composites CONV_1D (+ _ph), CONV_1D_DW (+ _ph), CONV_2D_SK_P0 and
// CONV_2D_S1_PH. The shape / stride / padding / dilation / type families follow the family's
// test-backend-ops.cpp (test_conv_transpose_1d, test_conv_transpose_2d, test_conv_2d_dw,
// test_im2col_3d, test_conv_3d). Its two large sweeps (IM2COL_3D: 2048 cases, CONV_3D: 256) are
// sampled; BACKEND_OPS_FULL=1 in the environment runs every case.

#include "bops.h"

#include <stdlib.h>
#include <string.h>

static bool full_sweep(void) {
    const char * v = getenv("BACKEND_OPS_FULL");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

// composites end in a reshape or cont of a matrix product: judge them as the product
static double composite_bound(enum ggml_type tk) {
    return tk == GGML_TYPE_F32 ? 1e-6 : 5e-4;
}

// sums over kernel taps in float: the matrix product's bounds
static double sum_bound(enum ggml_type tk, enum ggml_type td) {
    return tk == GGML_TYPE_F32 && td == GGML_TYPE_F32 ? 1e-6 : 5e-4;
}

// a fixed pseudo-random 1 in `every` of the sweep's indices (a multiplicative hash, so that the
// sample meets every value of every parameter, unlike a stride over the nested loops)
static bool sampled(int m, unsigned every) {
    return full_sweep() || (((unsigned) m * 2654435761u) >> 16) % every == 0;
}

static int64_t out_len(int64_t in, int64_t k, int s, int p, int d) {
    return (in + 2*p - d*(k - 1) - 1)/s + 1;
}

//
// CONV_TRANSPOSE_1D / _2D: kernel t[0] ne[0], data F32 ne[1]; i[0] = stride, i[1] = 2-D,
// i[2] = data layout
//

static struct ggml_tensor * build_ct(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input(g, GGML_TYPE_F32, c->ne[1], (enum bop_layout) c->i[2], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    return c->i[1] ? ggml_conv_transpose_2d_p0(g->ctx, a, b, c->i[0]) : ggml_conv_transpose_1d(g->ctx, a, b, c->i[0], 0, 1);
}

static bool add_ct(struct bop_cases * list, bool is_2d, enum ggml_type tk, const int64_t nk[4], const int64_t nd[4],
        int s, enum bop_layout layout) {
    struct bop_case * c = bops_add(list, is_2d ? "CONV_TRANSPOSE_2D" : "CONV_TRANSPOSE_1D", build_ct,
            "type_kernel=%s,ne_kernel=%s,ne_input=%s,s=%d,layout=%s", bops_tname(tk), bops_ne_str(nk), bops_ne_str(nd), s,
            bops_layout_name(layout));
    if (c == NULL) {
        return false;
    }
    c->t[0] = tk;
    bops_ne(c->ne[0], nk[0], nk[1], nk[2], nk[3]);
    bops_ne(c->ne[1], nd[0], nd[1], nd[2], nd[3]);
    c->i[0] = s;
    c->i[1] = is_2d;
    c->i[2] = layout;
    c->bound = sum_bound(tk, GGML_TYPE_F32);
    return true;
}

static bool cases_conv_transpose(struct bop_cases * list) {
    // the family's sweep: Cout, Cin, K, L, s0 (kernel [K, Cout, Cin], input [L, Cin])
    static const int64_t couts[] = { 1, 9 }, cins[] = { 1, 7 }, ks[] = { 1, 3, 1337 }, ls[] = { 1, 2, 13 };
    for (int co = 0; co < 2; co++) {
        for (int ci = 0; ci < 2; ci++) {
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < 3; l++) {
                    for (int s = 1; s <= 3; s++) {
                        const int64_t nk[4] = { ks[k], couts[co], cins[ci], 1 }, nd[4] = { ls[l], cins[ci], 1, 1 };
                        if (!add_ct(list, false, GGML_TYPE_F32, nk, nd, s, BOP_LAYOUT_CONT)) {
                            return false;
                        }
                    }
                }
            }
        }
    }
    static const struct { int64_t d[4], k[4]; int s; } one[] = {
        { { 197, 32, 1, 1 }, { 16, 32, 32, 1 }, 1 },
        { { 3, 2, 1, 1 }, { 2, 3, 2, 1 }, 3 }, { { 3, 2, 1, 1 }, { 2, 3, 2, 1 }, 2 }, { { 3, 2, 1, 1 }, { 2, 3, 2, 1 }, 1 },
        { { 3, 2, 1, 1 }, { 3, 2, 2, 1 }, 2 }, { { 3, 2, 1, 1 }, { 3, 2, 2, 1 }, 1 }, { { 3, 2, 1, 1 }, { 3, 1, 2, 1 }, 1 },
        { { 2, 1, 1, 1 }, { 3, 1, 1, 1 }, 1 },
    };
    for (size_t i = 0; i < sizeof(one)/sizeof(one[0]); i++) {
        if (!add_ct(list, false, GGML_TYPE_F32, one[i].k, one[i].d, one[i].s, BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    // F16 kernels and strided input rows (ours: the family's CPU takes F16 kernels too)
    static const int64_t k16[4] = { 5, 6, 7, 1 }, d16[4] = { 11, 7, 1, 1 };
    if (!add_ct(list, false, GGML_TYPE_F16, k16, d16, 2, BOP_LAYOUT_CONT) ||
        !add_ct(list, false, GGML_TYPE_F32, k16, d16, 3, BOP_LAYOUT_PAD)) {
        return false;
    }

    // 2-D: kernel [KW, KH, Cout, Cin], input [W, H, Cin, N]
    static const struct { int64_t d[4], k[4]; int s; } two[] = {
        { { 3, 2, 3, 1 }, { 2, 2, 1, 3 }, 1 },
        { { 10, 10, 9, 1 }, { 3, 3, 1, 9 }, 2 },
        { { 129, 63, 35, 1 }, { 3, 3, 48, 35 }, 1 },
        { { 7, 5, 4, 3 }, { 3, 2, 5, 4 }, 3 }, // batch of 3 (the family's CPU computes only the first image)
    };
    static const enum ggml_type kt[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; i < sizeof(two)/sizeof(two[0]); i++) {
            // the large one (123 M products in the reference) once per run unless the full sweep
            if (i == 2 && t == 0 && !full_sweep()) {
                continue;
            }
            if (!add_ct(list, true, kt[t], two[i].k, two[i].d, two[i].s, BOP_LAYOUT_CONT)) {
                return false;
            }
        }
    }
    static const int64_t kp[4] = { 2, 3, 2, 3 }, dp[4] = { 6, 5, 3, 2 };
    return add_ct(list, true, GGML_TYPE_F32, kp, dp, 2, BOP_LAYOUT_PAD);
}

//
// CONV_2D_DW: kernel t[0] ne[0] = [KW, KH, 1, C], data F32 ne[1] = [W, H, C, N]; i[0..5] = s0, s1,
// p0, p1, d0, d1, i[6] = 1: direct (CONV_2D_DW), 0: im2col composite, i[7] = channel-adjacent
// (CWHN) operands, as the family's test builds them
//

static struct ggml_tensor * build_dw(struct bop_graph * g, const struct bop_case * c) {
    const int64_t * nk = c->ne[0];
    const int64_t * nd = c->ne[1];
    struct ggml_tensor * a;
    struct ggml_tensor * b;
    if (c->i[7]) {
        const int64_t nkc[4] = { nk[3], nk[2], nk[0], nk[1] };
        const int64_t ndc[4] = { nd[2], nd[0], nd[1], nd[3] };
        a = bops_input_c(g, c->t[0], nkc);
        b = bops_input_c(g, GGML_TYPE_F32, ndc);
        a = a ? ggml_permute(g->ctx, a, 3, 2, 0, 1) : NULL;
        b = b ? ggml_permute(g->ctx, b, 2, 0, 1, 3) : NULL;
    } else {
        a = bops_input_c(g, c->t[0], nk);
        b = bops_input_c(g, GGML_TYPE_F32, nd);
    }
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const int * p = c->i;
    return p[6] ? ggml_conv_2d_dw_direct(g->ctx, a, b, p[0], p[1], p[2], p[3], p[4], p[5])
                : ggml_conv_2d_dw(g->ctx, a, b, p[0], p[1], p[2], p[3], p[4], p[5]);
}

static bool add_dw(struct bop_cases * list, enum ggml_type tk, const int64_t nd[4], int64_t kw, int64_t kh,
        const int p[6], bool direct, bool cwhn) {
    const int64_t nk[4] = { kw, kh, 1, nd[2] };
    struct bop_case * c = bops_add(list, "CONV_2D_DW", build_dw, "type_kernel=%s,ne_kernel=%s,ne_input=%s,s=[%d,%d],"
            "p=[%d,%d],d=[%d,%d],path=%s,cwhn=%d", bops_tname(tk), bops_ne_str(nk), bops_ne_str(nd), p[0], p[1], p[2], p[3],
            p[4], p[5], direct ? "direct" : "im2col", cwhn ? 1 : 0);
    if (c == NULL) {
        return false;
    }
    c->t[0] = tk;
    bops_ne(c->ne[0], nk[0], nk[1], nk[2], nk[3]);
    bops_ne(c->ne[1], nd[0], nd[1], nd[2], nd[3]);
    memcpy(c->i, p, 6*sizeof(int));
    c->i[6] = direct;
    c->i[7] = cwhn;
    c->bound = direct ? sum_bound(tk, GGML_TYPE_F32) : composite_bound(tk);
    return true;
}

static bool cases_conv_2d_dw(struct bop_cases * list) {
    static const struct { int64_t d[4]; int64_t kw, kh; int p[6]; } geo[] = {
        { { 17, 34, 9, 1 }, 3, 3, { 1, 1, 0, 0, 1, 1 } },   // the family's two
        { { 32, 8, 64, 1 }, 3, 3, { 2, 2, 1, 1, 1, 1 } },
        { { 13, 11, 5, 2 }, 5, 3, { 1, 2, 2, 1, 2, 1 } },   // ours: batch, rectangular kernel, dilation
        { { 9, 20, 3, 1 }, 2, 4, { 3, 1, 4, 0, 1, 3 } },    // padding wider than the kernel, stride 3
    };
    static const enum ggml_type kt[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; i < sizeof(geo)/sizeof(geo[0]); i++) {
            for (int cwhn = 0; cwhn < 2; cwhn++) {
                if (!add_dw(list, kt[t], geo[i].d, geo[i].kw, geo[i].kh, geo[i].p, true, cwhn)) {
                    return false;
                }
            }
            if (!add_dw(list, kt[t], geo[i].d, geo[i].kw, geo[i].kh, geo[i].p, false, false)) {
                return false;
            }
        }
    }
    return true;
}

//
// IM2COL_3D: kernel t[0] ne[0] (shape only), data t[1] ne[1], result t[2]; i[0..8] = s0..s2,
// p0..p2, d0..d2, i[9] = IC, i[10] = data layout
//

static struct ggml_tensor * build_im2col_3d(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input(g, c->t[1], c->ne[1], (enum bop_layout) c->i[10], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const int * p = c->i;
    return ggml_im2col_3d(g->ctx, a, b, p[9], p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], c->t[2]);
}

static bool add_im2col_3d(struct bop_cases * list, enum ggml_type tk, enum ggml_type td, enum ggml_type tdst,
        const int64_t nk[4], const int64_t nd[4], int ic, const int p[9], enum bop_layout layout) {
    struct bop_case * c = bops_add(list, "IM2COL_3D", build_im2col_3d, "types=%s/%s/%s,ne_kernel=%s,ne_input=%s,IC=%d,"
            "s=[%d,%d,%d],p=[%d,%d,%d],d=[%d,%d,%d],layout=%s", bops_tname(tk), bops_tname(td), bops_tname(tdst),
            bops_ne_str(nk), bops_ne_str(nd), ic, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], bops_layout_name(layout));
    if (c == NULL) {
        return false;
    }
    c->t[0] = tk;
    c->t[1] = td;
    c->t[2] = tdst;
    bops_ne(c->ne[0], nk[0], nk[1], nk[2], nk[3]);
    bops_ne(c->ne[1], nd[0], nd[1], nd[2], nd[3]);
    memcpy(c->i, p, 9*sizeof(int));
    c->i[9] = ic;
    c->i[10] = layout;
    c->bound = 0.0; // data movement (rounded to the result type): exact
    return true;
}

static bool cases_im2col_3d(struct bop_cases * list) {
    static const int64_t nk[4] = { 3, 3, 3, 1 }, nd[4] = { 10, 10, 10, 9 };
    static const int p1[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    if (!add_im2col_3d(list, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, nk, nd, 3, p1, BOP_LAYOUT_CONT) ||
        !add_im2col_3d(list, GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_F32, nk, nd, 3, p1, BOP_LAYOUT_CONT) ||
        !add_im2col_3d(list, GGML_TYPE_F16, GGML_TYPE_F32, GGML_TYPE_F16, nk, nd, 3, p1, BOP_LAYOUT_CONT) ||
        !add_im2col_3d(list, GGML_TYPE_F16, GGML_TYPE_F16, GGML_TYPE_F16, nk, nd, 3, p1, BOP_LAYOUT_PERM)) {
        return false;
    }
    // the family's sweep: s, p, d in {1, 3}, {0, 3}, {1, 3} per axis, IC 1 or 3, plain or a view
    // (ours: a view into a larger tensor); input [20, 20, 10, 3], kernel [3, 3, 3, 3]; 1 in 16
    static const int64_t sk[4] = { 3, 3, 3, 3 };
    for (int m = 0; m < 2048; m++) {
        if (!sampled(m, 16)) {
            continue;
        }
        int p[9];
        for (int a = 0; a < 3; a++) {
            p[a]     = (m >> (8 - a)) & 1 ? 3 : 1;  // s0..s2
            p[3 + a] = (m >> (5 - a)) & 1 ? 3 : 0;  // p0..p2
            p[6 + a] = (m >> (2 - a)) & 1 ? 3 : 1;  // d0..d2 (bits 2..0)
        }
        const int ic = (m >> 9) & 1 ? 3 : 1;
        const bool view = (m >> 10) & 1;
        // the family's view trims 2 from every dim; here the layout adds gaps instead of trimming
        // ne[3] (trimming it leaves no whole image of 3 channels: an empty result)
        const int64_t nd3[4] = { view ? 18 : 20, view ? 18 : 20, view ? 8 : 10, 3 };
        if (out_len(nd3[0], 3, p[0], p[3], p[6]) < 1 || out_len(nd3[1], 3, p[1], p[4], p[7]) < 1 ||
            out_len(nd3[2], 3, p[2], p[5], p[8]) < 1) {
            continue;
        }
        if (!add_im2col_3d(list, GGML_TYPE_F32, GGML_TYPE_F32, GGML_TYPE_F32, sk, nd3, ic, p,
                view ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    return true;
}

//
// CONV_3D: kernel t[0] ne[0] = [KW, KH, KD, IC*OC], data F32 ne[1] = [W, H, D, IC*N]; i[0..8] =
// s0..s2, p0..p2, d0..d2, i[9..11] = IC, N, OC, i[12] = 1: direct, 0: im2col_3d composite
//

static struct ggml_tensor * build_conv_3d(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input_c(g, GGML_TYPE_F32, c->ne[1]);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const int * p = c->i;
    return p[12] ? ggml_conv_3d_direct(g->ctx, a, b, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11])
                 : ggml_conv_3d(g->ctx, a, b, p[9], p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]);
}

static bool add_conv_3d(struct bop_cases * list, enum ggml_type tk, int n, int ic, int64_t id, int64_t ih, int64_t iw,
        int oc, int64_t kd, int64_t kh, int64_t kw, const int p[9], bool direct) {
    struct bop_case * c = bops_add(list, "CONV_3D", build_conv_3d, "type_kernel=%s,N=%d,IC=%d,D=%lld,H=%lld,W=%lld,OC=%d,"
            "K=[%lld,%lld,%lld],s=[%d,%d,%d],p=[%d,%d,%d],d=[%d,%d,%d],path=%s", bops_tname(tk), n, ic, (long long) id,
            (long long) ih, (long long) iw, oc, (long long) kd, (long long) kh, (long long) kw, p[0], p[1], p[2], p[3], p[4],
            p[5], p[6], p[7], p[8], direct ? "direct" : "im2col");
    if (c == NULL) {
        return false;
    }
    c->t[0] = tk;
    bops_ne(c->ne[0], kw, kh, kd, (int64_t) ic*oc);
    bops_ne(c->ne[1], iw, ih, id, (int64_t) ic*n);
    memcpy(c->i, p, 9*sizeof(int));
    c->i[9] = ic;
    c->i[10] = n;
    c->i[11] = oc;
    c->i[12] = direct;
    c->bound = direct ? sum_bound(tk, GGML_TYPE_F32) : composite_bound(tk);
    return true;
}

static bool cases_conv_3d(struct bop_cases * list) {
    // the family's sweep (kernel type, N, IC, OC, s, p, d; a symmetric 3x3x3 and an asymmetric
    // 5x1x3 kernel each) on a 20x22x18 input; 1 in 4
    static const enum ggml_type kt[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    int m = 0;
    for (int t = 0; t < 2; t++) {
        for (int n = 1; n <= 2; n++) {
            for (int ic = 1; ic <= 3; ic += 2) {
                for (int oc = 1; oc <= 4; oc += 3) {
                    for (int s = 1; s <= 2; s++) {
                        for (int pd = 0; pd <= 1; pd++) {
                            for (int dl = 1; dl <= 2; dl++) {
                                const int ps[9] = { s, s, s, pd, pd, pd, dl, dl, dl };
                                const int pa[9] = { 2, 1, 1, 2, 0, 1, 1, 1, 2 };
                                for (int asym = 0; asym < 2; asym++, m++) {
                                    if (!sampled(m, 4)) {
                                        continue;
                                    }
                                    if (!add_conv_3d(list, kt[t], n, ic, 18, 22, 20, oc, 3, asym ? 1 : 3, asym ? 5 : 3,
                                            asym ? pa : ps, true)) {
                                        return false;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    static const int p1[9] = { 1, 1, 1, 0, 0, 0, 1, 1, 1 };
    static const int pc[9] = { 2, 1, 1, 1, 0, 2, 1, 2, 1 };
    static const int pg[9] = { 1, 2, 1, 1, 1, 0, 1, 1, 2 };
    // ours: the GEMM path (>= 8 output channels, K >= 32): several position tiles, channel blocks
    // split between threads (130 channels), a channel count that is no multiple of the register tile
    if (!add_conv_3d(list, GGML_TYPE_F32, 2, 5, 6, 7, 9, 19, 3, 3, 3, pg, true) ||
        !add_conv_3d(list, GGML_TYPE_F16, 1, 4, 5, 9, 30, 11, 2, 3, 3, pg, true) ||
        !add_conv_3d(list, GGML_TYPE_F32, 1, 2, 4, 5, 6, 130, 3, 3, 3, p1, true) ||
        !add_conv_3d(list, GGML_TYPE_F32, 1, 64, 3, 12, 10, 8, 3, 3, 3, pc, true)) {
        return false;
    }
    for (int t = 0; t < 2; t++) {
        // kernel size 1, and the composite (one image: its result rows are ordered for N = 1 and N > 1 alike)
        if (!add_conv_3d(list, kt[t], 1, 4, 8, 8, 8, 8, 1, 1, 1, p1, true) ||
            !add_conv_3d(list, kt[t], 1, 3, 7, 9, 8, 4, 3, 2, 3, pc, false) ||
            !add_conv_3d(list, kt[t], 2, 2, 6, 5, 7, 3, 2, 3, 2, pc, false)) {
            return false;
        }
    }
    return true;
}

//
// composites: CONV_1D (i[3] = 0, _ph: 1), CONV_1D_DW (2, _ph: 3), CONV_2D sk_p0 (4), s1_ph (5);
// kernel t[0] ne[0], data F32 ne[1], i[0..2] = s0, p0, d0
//

static struct ggml_tensor * build_composite(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * b = bops_input_c(g, GGML_TYPE_F32, c->ne[1]);
    if (a == NULL || b == NULL) {
        return NULL;
    }
    const int * p = c->i;
    switch (p[3]) {
        case 0:  return ggml_conv_1d(g->ctx, a, b, p[0], p[1], p[2]);
        case 1:  return ggml_conv_1d_ph(g->ctx, a, b, p[0], p[2]);
        case 2:  return ggml_conv_1d_dw(g->ctx, a, b, p[0], p[1], p[2]);
        case 3:  return ggml_conv_1d_dw_ph(g->ctx, a, b, p[0], p[2]);
        case 4:  return ggml_conv_2d_sk_p0(g->ctx, a, b);
        default: return ggml_conv_2d_s1_ph(g->ctx, a, b);
    }
}

static bool add_composite(struct bop_cases * list, int form, enum ggml_type tk, const int64_t nk[4], const int64_t nd[4],
        int s0, int p0, int d0) {
    static const char * const names[] = { "CONV_1D", "CONV_1D_PH", "CONV_1D_DW", "CONV_1D_DW_PH", "CONV_2D_SK_P0", "CONV_2D_S1_PH" };
    struct bop_case * c = bops_add(list, names[form], build_composite, "type_kernel=%s,ne_kernel=%s,ne_input=%s,s0=%d,p0=%d,d0=%d",
            bops_tname(tk), bops_ne_str(nk), bops_ne_str(nd), s0, p0, d0);
    if (c == NULL) {
        return false;
    }
    c->t[0] = tk;
    bops_ne(c->ne[0], nk[0], nk[1], nk[2], nk[3]);
    bops_ne(c->ne[1], nd[0], nd[1], nd[2], nd[3]);
    c->i[0] = s0;
    c->i[1] = p0;
    c->i[2] = d0;
    c->i[3] = form;
    c->bound = composite_bound(tk);
    return true;
}

static bool cases_composites(struct bop_cases * list) {
    static const enum ggml_type kt[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    // 1-D: kernel [K, IC, OC], input [L, IC, 1]; depthwise: kernel [K, 1, C], input [L, C]
    static const struct { int64_t k[4], d[4]; int s, p, d_; } c1[] = {
        { { 3, 4, 8, 1 }, { 20, 4, 1, 1 }, 1, 0, 1 },
        { { 3, 4, 8, 1 }, { 20, 4, 1, 1 }, 2, 1, 1 },
        { { 5, 3, 6, 1 }, { 31, 3, 1, 1 }, 1, 2, 2 },
        { { 1, 16, 5, 1 }, { 9, 16, 1, 1 }, 3, 0, 1 },
    };
    static const struct { int64_t k[4], d[4]; int s, p, d_; } dw[] = {
        { { 3, 1, 8, 1 }, { 20, 8, 1, 1 }, 1, 1, 1 },
        { { 5, 1, 3, 1 }, { 17, 3, 1, 1 }, 2, 0, 2 },
    };
    for (int t = 0; t < 2; t++) {
        for (size_t i = 0; i < sizeof(c1)/sizeof(c1[0]); i++) {
            if (!add_composite(list, 0, kt[t], c1[i].k, c1[i].d, c1[i].s, c1[i].p, c1[i].d_) ||
                (i < 2 && !add_composite(list, 1, kt[t], c1[i].k, c1[i].d, c1[i].s, c1[i].k[0]/2, c1[i].d_))) {
                return false;
            }
        }
        for (size_t i = 0; i < sizeof(dw)/sizeof(dw[0]); i++) {
            if (!add_composite(list, 2, kt[t], dw[i].k, dw[i].d, dw[i].s, dw[i].p, dw[i].d_) ||
                !add_composite(list, 3, kt[t], dw[i].k, dw[i].d, dw[i].s, dw[i].k[0]/2, dw[i].d_)) {
                return false;
            }
        }
    }
    // 2-D shortcuts: kernel [KW, KH, IC, OC], input [W, H, IC, N]
    static const int64_t k2[4] = { 4, 4, 3, 6 }, d2[4] = { 16, 12, 3, 1 };
    static const int64_t k3[4] = { 3, 3, 5, 4 }, d3[4] = { 11, 9, 5, 1 };
    for (int t = 0; t < 2; t++) {
        if (!add_composite(list, 4, kt[t], k2, d2, 4, 0, 1) || !add_composite(list, 5, kt[t], k3, d3, 1, 1, 1)) {
            return false;
        }
    }
    return true;
}

// larger perf-only cases after the family's perf list (scaled to run in a moment on one core)
static bool cases_perf(struct bop_cases * list) {
    static const int64_t dwd[4] = { 112, 112, 32, 1 }, ctk[4] = { 3, 3, 8, 16 }, ctd[4] = { 64, 64, 16, 1 };
    static const int dwp[6] = { 1, 1, 1, 1, 1, 1 }, p3[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    bool ok = true;
    ok = ok && bops_perf_only(list, add_dw(list, GGML_TYPE_F32, dwd, 3, 3, dwp, true, false));
    ok = ok && bops_perf_only(list, add_dw(list, GGML_TYPE_F32, dwd, 3, 3, dwp, true, true));
    ok = ok && bops_perf_only(list, add_ct(list, true, GGML_TYPE_F16, ctk, ctd, 1, BOP_LAYOUT_CONT));
    ok = ok && bops_perf_only(list, add_conv_3d(list, GGML_TYPE_F32, 1, 32, 8, 38, 26, 64, 3, 3, 3, p3, true));
    return ok;
}

bool bops_cases_conv(struct bop_cases * list) {
    return cases_composites(list) && cases_conv_transpose(list) && cases_conv_2d_dw(list) && cases_im2col_3d(list) &&
           cases_conv_3d(list) && cases_perf(list);
}
