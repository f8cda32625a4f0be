// Cases of issue 22's "shape2" group, after the ggml family's test-backend-ops (test_upscale,
// test_interpolate) and segment-anything's use of the window and relative-position ops:
// UPSCALE (every mode and flag, up and down, transposed and strided sources), WIN_PART,
// WIN_UNPART, GET_REL_POS, ADD_REL_POS, COL2IM_1D (test_col2im_1d's shapes), IM2COL_BACK and
// FLASH_ATTN_BACK.

#include "bops.h"

//
// one-input ops: a = t[0] ne[0] (layout i[8]); i[9] selects the constructor, i[0..7] its parameters
//

enum shape2_kind { S2_UPSCALE, S2_INTERPOLATE, S2_UPSCALE_EXT, S2_WIN_PART, S2_WIN_UNPART, S2_GET_REL_POS,
                   S2_ADD_REL_POS, S2_ADD_REL_POS_INPLACE, S2_COL2IM_1D };

static struct ggml_tensor * build_shape2(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[8], BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    const int32_t * p = c->i;
    switch ((enum shape2_kind) c->i[9]) {
        case S2_UPSCALE:     return ggml_upscale(g->ctx, a, p[0], (enum ggml_scale_mode) p[1]);
        case S2_INTERPOLATE: return ggml_interpolate(g->ctx, a, p[0], p[1], p[2], p[3], (uint32_t) p[4]);
        case S2_UPSCALE_EXT:
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
            return ggml_upscale_ext(g->ctx, a, p[0], p[1], p[2], p[3], (enum ggml_scale_mode) p[4]);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
        case S2_WIN_PART:    return ggml_win_part(g->ctx, a, p[0]);
        case S2_WIN_UNPART:  return ggml_win_unpart(g->ctx, a, p[0], p[1], p[2]);
        case S2_GET_REL_POS: return ggml_get_rel_pos(g->ctx, a, p[0], p[1]);
        case S2_ADD_REL_POS:
        case S2_ADD_REL_POS_INPLACE: {
            const int64_t ne_p[4] = { p[0], p[1], p[2], p[3] };
            struct ggml_tensor * pw = bops_input_c(g, GGML_TYPE_F32, ne_p);
            struct ggml_tensor * ph = bops_input_c(g, GGML_TYPE_F32, ne_p);
            if (pw == NULL || ph == NULL) {
                return NULL;
            }
            return c->i[9] == S2_ADD_REL_POS ? ggml_add_rel_pos(g->ctx, a, pw, ph) : ggml_add_rel_pos_inplace(g->ctx, a, pw, ph);
        }
        case S2_COL2IM_1D:   return ggml_col2im_1d(g->ctx, a, p[0], p[1], p[2]);
    }
    return NULL;
}

static struct bop_case * add_s2(struct bop_cases * list, enum ggml_op op, enum shape2_kind kind, enum ggml_type type,
        const int64_t ne[4], enum bop_layout layout, const int32_t params[8], const char * extra) {
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_shape2, "type=%s,ne=%s,layout=%s%s%s", bops_tname(type),
            bops_ne_str(ne), bops_layout_name(layout), extra[0] ? "," : "", extra);
    if (c == NULL) {
        return NULL;
    }
    c->t[0] = type;
    bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
    for (int k = 0; k < 8; k++) {
        c->i[k] = params != NULL ? params[k] : 0;
    }
    c->i[8] = layout;
    c->i[9] = kind;
    return c;
}

static const char * mode_name(uint32_t mode) {
    static char buf[4][48];
    static int slot;
    static const char * names[] = { "nearest", "bilinear", "bicubic" };
    char * b = buf[slot++ % 4];
    snprintf(b, sizeof(buf[0]), "%s%s%s", (mode & 0xFF) < 3 ? names[mode & 0xFF] : "?",
             (mode & GGML_SCALE_FLAG_ALIGN_CORNERS) ? "|align_corners" : "",
             (mode & GGML_SCALE_FLAG_ANTIALIAS) ? "|antialias" : "");
    return b;
}

static bool add_interp(struct bop_cases * list, const int64_t ne[4], const int64_t tgt[4], uint32_t mode,
        enum bop_layout layout) {
    const int32_t p[8] = { (int32_t) tgt[0], (int32_t) tgt[1], (int32_t) tgt[2], (int32_t) tgt[3], (int32_t) mode };
    char extra[128];
    snprintf(extra, sizeof(extra), "ne_tgt=%s,mode=%s", bops_ne_str(tgt), mode_name(mode));
    return add_s2(list, GGML_OP_UPSCALE, S2_INTERPOLATE, GGML_TYPE_F32, ne, layout, p, extra) != NULL;
}

static bool cases_upscale(struct bop_cases * list) {
    static const uint32_t modes[] = {
        GGML_SCALE_MODE_NEAREST, GGML_SCALE_MODE_BILINEAR, GGML_SCALE_MODE_BICUBIC,
        GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS,
    };
    for (size_t m = 0; m < sizeof(modes)/sizeof(modes[0]); m++) {
        // ggml_upscale by 2 and 3, plain and transposed (the family's 512 x 512 x 3 x 2, sampled down)
        for (int sf = 2; sf <= 3; sf++) {
            for (int t = 0; t < 2; t++) {
                const int64_t ne[4] = { 61, 47, 3, 2 };
                const int32_t p[8] = { sf, (int32_t) modes[m] };
                char extra[80];
                snprintf(extra, sizeof(extra), "scale_factor=%d,mode=%s", sf, mode_name(modes[m]));
                if (add_s2(list, GGML_OP_UPSCALE, S2_UPSCALE, GGML_TYPE_F32, ne, t ? BOP_LAYOUT_TRANS : BOP_LAYOUT_CONT,
                           p, extra) == NULL) {
                    return false;
                }
            }
        }
        // the family's interpolate shapes: up in every dim, down in every dim
        static const int64_t small[4] = { 2, 5, 7, 11 }, big[4] = { 5, 7, 11, 13 };
        if (!add_interp(list, small, big, modes[m], BOP_LAYOUT_CONT) || !add_interp(list, big, small, modes[m], BOP_LAYOUT_CONT)) {
            return false;
        }
        // non-integer ratios, strided source; a strong shrink (antialias widens its filter)
        static const int64_t src[4] = { 37, 29, 2, 3 }, up[4] = { 50, 41, 2, 3 }, down[4] = { 8, 6, 3, 2 };
        if (!add_interp(list, src, up, modes[m], BOP_LAYOUT_PAD) || !add_interp(list, src, down, modes[m], BOP_LAYOUT_CONT)) {
            return false;
        }
    }
    // align corners: the family's cases (bilinear, bicubic) plus nearest and a strided source
    static const int64_t ac[][2][4] = {
        { { 2, 5, 7, 11 }, { 5, 7, 11, 13 } }, { { 1, 4, 3, 2 }, { 2, 8, 3, 2 } }, { { 4, 1, 3, 2 }, { 1, 1, 3, 2 } },
        { { 33, 17, 2, 1 }, { 64, 9, 2, 1 } },
    };
    static const uint32_t ac_modes[] = { GGML_SCALE_MODE_BILINEAR, GGML_SCALE_MODE_BICUBIC, GGML_SCALE_MODE_NEAREST };
    for (size_t m = 0; m < sizeof(ac_modes)/sizeof(ac_modes[0]); m++) {
        for (size_t k = 0; k < sizeof(ac)/sizeof(ac[0]); k++) {
            if (!add_interp(list, ac[k][0], ac[k][1], ac_modes[m] | GGML_SCALE_FLAG_ALIGN_CORNERS,
                            k == 3 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT)) {
                return false;
            }
        }
    }
    // antialias with a shrink in one dim and a stretch in the other, and align corners
    static const int64_t aa_src[4] = { 40, 9, 2, 2 }, aa_tgt[4] = { 13, 20, 2, 2 };
    if (!add_interp(list, aa_src, aa_tgt, GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS, BOP_LAYOUT_CONT) ||
        !add_interp(list, aa_src, aa_tgt, GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS | GGML_SCALE_FLAG_ALIGN_CORNERS,
                    BOP_LAYOUT_CONT)) {
        return false;
    }
    // permuted and transposed sources, nearest picks at fractional ratios over many work-groups,
    // dims 2 and 3 shrunk and stretched at once
    static const struct { int64_t src[4], tgt[4]; uint32_t mode; enum bop_layout layout; } more[] = {
        { { 7, 10, 3, 2 }, { 10, 7, 5, 1 }, GGML_SCALE_MODE_NEAREST, BOP_LAYOUT_PERM },
        { { 3, 5, 1, 1 }, { 1000, 999, 1, 1 }, GGML_SCALE_MODE_NEAREST, BOP_LAYOUT_CONT },
        { { 37, 29, 2, 3 }, { 20, 50, 2, 3 }, GGML_SCALE_MODE_BILINEAR, BOP_LAYOUT_TRANS },
        { { 16, 9, 4, 2 }, { 33, 17, 2, 2 }, GGML_SCALE_MODE_BICUBIC, BOP_LAYOUT_PERM },
        { { 64, 48, 2, 1 }, { 17, 11, 2, 1 }, GGML_SCALE_MODE_BILINEAR | GGML_SCALE_FLAG_ANTIALIAS, BOP_LAYOUT_TRANS },
        // nearest by an integer factor in dim 0 (the row kernel on CPU devices: 2 with a tail, 4, 1),
        // strided source rows, the other dims stretched and shrunk
        { { 37, 29, 2, 3 }, { 74, 50, 3, 2 }, GGML_SCALE_MODE_NEAREST, BOP_LAYOUT_PAD },
        { { 13, 6, 2, 1 }, { 52, 6, 2, 1 }, GGML_SCALE_MODE_NEAREST, BOP_LAYOUT_PAD },
        { { 9, 4, 1, 2 }, { 9, 7, 2, 1 }, GGML_SCALE_MODE_NEAREST, BOP_LAYOUT_CONT },
    };
    for (size_t k = 0; k < sizeof(more)/sizeof(more[0]); k++) {
        if (!add_interp(list, more[k].src, more[k].tgt, more[k].mode, more[k].layout)) {
            return false;
        }
    }
    // the deprecated ggml_upscale_ext
    const int64_t ne[4] = { 10, 6, 4, 2 };
    const int32_t p[8] = { 25, 9, 5, 3, GGML_SCALE_MODE_BILINEAR };
    if (add_s2(list, GGML_OP_UPSCALE, S2_UPSCALE_EXT, GGML_TYPE_F32, ne, BOP_LAYOUT_CONT, p, "ext,ne_tgt=[25,9,5,3]") == NULL) {
        return false;
    }
    // the family's full size, timed only
    const int64_t big[4] = { 512, 512, 3, 2 };
    for (size_t m = 0; m < sizeof(modes)/sizeof(modes[0]); m++) {
        const int32_t pb[8] = { 2, (int32_t) modes[m] };
        char extra[80];
        snprintf(extra, sizeof(extra), "scale_factor=2,mode=%s", mode_name(modes[m]));
        if (!bops_perf_only(list, add_s2(list, GGML_OP_UPSCALE, S2_UPSCALE, GGML_TYPE_F32, big, BOP_LAYOUT_CONT, pb,
                                         extra) != NULL)) {
            return false;
        }
    }
    return true;
}

static bool cases_windows(struct bop_cases * list) {
    // [C, W, H] into w x w windows: exact fits, padded edges, one window, w = 1
    static const int64_t shapes[][4] = { { 16, 13, 11, 1 }, { 8, 12, 8, 1 }, { 5, 7, 9, 1 }, { 32, 14, 14, 1 } };
    static const int32_t ws[] = { 4, 4, 9, 1 };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        const int32_t p[8] = { ws[s] };
        char extra[16];
        snprintf(extra, sizeof(extra), "w=%d", ws[s]);
        if (add_s2(list, GGML_OP_WIN_PART, S2_WIN_PART, GGML_TYPE_F32, shapes[s], s == 0 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT,
                   p, extra) == NULL) {
            return false;
        }
        // the inverse, from windows of the same geometry
        const int64_t npx = (shapes[s][1] + ws[s] - 1) / ws[s], npy = (shapes[s][2] + ws[s] - 1) / ws[s];
        const int64_t wne[4] = { shapes[s][0], ws[s], ws[s], npx*npy + (s == 1 ? 2 : 0) }; // spare windows are ignored
        const int32_t q[8] = { (int32_t) shapes[s][1], (int32_t) shapes[s][2], ws[s] };
        char extra2[48];
        snprintf(extra2, sizeof(extra2), "w0=%d,h0=%d,w=%d", q[0], q[1], q[2]);
        if (add_s2(list, GGML_OP_WIN_UNPART, S2_WIN_UNPART, GGML_TYPE_F32, wne, s == 2 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT,
                   q, extra2) == NULL) {
            return false;
        }
    }
    return true;
}

static bool cases_rel_pos(struct bop_cases * list) {
    static const enum ggml_type types[] = { GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F32 };
    static const int32_t qs[] = { 1, 5, 14 };
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        for (size_t k = 0; k < sizeof(qs)/sizeof(qs[0]); k++) {
            const int64_t ne[4] = { 12, 2*qs[k] - 1, 1, 1 };
            const int32_t p[8] = { qs[k], qs[k] };
            char extra[32];
            snprintf(extra, sizeof(extra), "qh=%d,kh=%d", qs[k], qs[k]);
            if (add_s2(list, GGML_OP_GET_REL_POS, S2_GET_REL_POS, types[t], ne, k == 1 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT,
                       p, extra) == NULL) {
                return false;
            }
        }
    }
    // a [K*K, Q1*Q2, B], pw = ph [K, Q1, Q2, B] (segment-anything: K = Q1 = Q2 = 14)
    static const int64_t kq[][4] = { { 5, 4, 3, 2 }, { 14, 14, 14, 2 }, { 1, 3, 2, 1 }, { 7, 1, 9, 3 } };
    for (size_t k = 0; k < sizeof(kq)/sizeof(kq[0]); k++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            const int64_t ne[4] = { kq[k][0]*kq[k][0], kq[k][1]*kq[k][2], kq[k][3], 1 };
            const int32_t p[8] = { (int32_t) kq[k][0], (int32_t) kq[k][1], (int32_t) kq[k][2], (int32_t) kq[k][3] };
            char extra[64];
            snprintf(extra, sizeof(extra), "ne_p=%s,inplace=%d", bops_ne_str(kq[k]), inplace);
            if (add_s2(list, GGML_OP_ADD_REL_POS, inplace ? S2_ADD_REL_POS_INPLACE : S2_ADD_REL_POS, GGML_TYPE_F32, ne,
                       BOP_LAYOUT_CONT, p, extra) == NULL) {
                return false;
            }
        }
    }
    return true;
}

static bool cases_col2im(struct bop_cases * list) {
    // test_col2im_1d's shapes: { K, OC, T_in, s0, p0 }
    static const int32_t kk[][5] = {
        { 16, 32, 197, 8, 0 }, { 4, 3, 7, 2, 0 }, { 1, 5, 13, 1, 0 }, { 6, 4, 11, 3, 1 }, { 2, 3, 9, 3, 0 },
        { 5, 4, 11, 2, 0 }, { 8, 4, 13, 4, 2 }, { 4, 3, 1, 2, 0 }, { 16, 1, 197, 8, 0 }, { 1, 5, 13, 3, 0 },
        { 8, 2, 3, 2, 5 },
    };
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        for (size_t k = 0; k < sizeof(kk)/sizeof(kk[0]); k++) {
            const int64_t ne[4] = { (int64_t) kk[k][0]*kk[k][1], kk[k][2], 1, 1 };
            const int32_t p[8] = { kk[k][3], kk[k][1], kk[k][4] };
            char extra[64];
            snprintf(extra, sizeof(extra), "K=%d,OC=%d,s0=%d,p0=%d", kk[k][0], kk[k][1], kk[k][3], kk[k][4]);
            if (add_s2(list, GGML_OP_COL2IM_1D, S2_COL2IM_1D, types[t], ne, k == 5 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT, p,
                       extra) == NULL) {
                return false;
            }
        }
    }
    // the family's memory-bound vocoder stages, timed only
    static const int32_t big[][5] = { { 16, 512, 2048, 8, 0 }, { 4, 128, 65536, 2, 0 } };
    for (size_t k = 0; k < 2; k++) {
        const int64_t ne[4] = { (int64_t) big[k][0]*big[k][1], big[k][2], 1, 1 };
        const int32_t p[8] = { big[k][3], big[k][1], big[k][4] };
        char extra[64];
        snprintf(extra, sizeof(extra), "K=%d,OC=%d,s0=%d,p0=%d", big[k][0], big[k][1], big[k][3], big[k][4]);
        if (!bops_perf_only(list, add_s2(list, GGML_OP_COL2IM_1D, S2_COL2IM_1D, GGML_TYPE_F32, ne, BOP_LAYOUT_CONT, p,
                                         extra) != NULL)) {
            return false;
        }
    }
    return true;
}

//
// IM2COL_BACK: ne[0] = the data's shape, ne[1] = the kernel's, i[0..6] = s0, s1, p0, p1, d0, d1, is_2D,
// t[0] = the gradient's type, t[1] = the kernel's, i[8] = the gradient's layout
//

static int64_t conv_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d) {
    return (n + 2*p - d*(k - 1) - 1) / s + 1;
}

static struct ggml_tensor * build_im2col_back(struct bop_graph * g, const struct bop_case * c) {
    const int32_t * p = c->i;
    const bool is_2d = p[6] != 0;
    const int64_t * dn = c->ne[0], * kn = c->ne[1];
    const int64_t ow = conv_out(dn[0], kn[0], p[0], p[2], p[4]);
    const int64_t oh = is_2d ? conv_out(dn[1], kn[1], p[1], p[3], p[5]) : 1;
    const int64_t gne[4] = {
        is_2d ? dn[2]*kn[1]*kn[0] : dn[1]*kn[0], ow, is_2d ? oh : dn[2], is_2d ? dn[3] : 1,
    };
    struct ggml_tensor * grad = bops_input(g, c->t[0], gne, (enum bop_layout) c->i[8], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * kernel = bops_input_c(g, c->t[1], kn);
    if (grad == NULL || kernel == NULL) {
        return NULL;
    }
    int64_t ne[4] = { dn[0], dn[1], dn[2], dn[3] };
    return ggml_im2col_back(g->ctx, grad, kernel, ne, p[0], p[1], p[2], p[3], p[4], p[5], is_2d);
}

static bool cases_im2col_back(struct bop_cases * list) {
    struct spec {
        int64_t data[4], kernel[4];
        int32_t s0, s1, p0, p1, d0, d1, is_2d;
    };
    static const struct spec specs[] = {
        // 2-d: plain 3x3, strided + padded + dilated, a 1x1 kernel, stride larger than the kernel
        { { 10, 8, 3, 2 }, { 3, 3, 3, 4 }, 1, 1, 1, 1, 1, 1, 1 },
        { { 13, 11, 2, 1 }, { 3, 2, 2, 5 }, 2, 3, 1, 2, 2, 1, 1 },
        { { 7, 6, 4, 2 }, { 1, 1, 4, 3 }, 1, 1, 0, 0, 1, 1, 1 },
        { { 12, 9, 1, 3 }, { 2, 2, 1, 2 }, 3, 3, 0, 1, 1, 1, 1 },
        // 1-d (data [IW, IC, N], kernel [KW, IC, OC])
        { { 20, 3, 2, 1 }, { 5, 3, 4, 1 }, 2, 0, 2, 0, 1, 0, 0 },
        { { 17, 2, 1, 1 }, { 3, 2, 2, 1 }, 1, 0, 0, 0, 3, 0, 0 },
        { { 9, 4, 3, 1 }, { 2, 4, 1, 1 }, 3, 0, 1, 0, 1, 0, 0 },
    };
    for (size_t k = 0; k < sizeof(specs)/sizeof(specs[0]); k++) {
        for (int t = 0; t < 2; t++) {
            const struct spec * sp = &specs[k];
            const enum bop_layout layout = k == 1 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_IM2COL_BACK), build_im2col_back,
                    "type=%s,kernel=%s,data=%s,kernel_ne=%s,s=[%d,%d],p=[%d,%d],d=[%d,%d],is_2D=%d,layout=%s", bops_tname(GGML_TYPE_F32),
                    bops_tname(t ? GGML_TYPE_F16 : GGML_TYPE_F32), bops_ne_str(sp->data), bops_ne_str(sp->kernel), sp->s0, sp->s1,
                    sp->p0, sp->p1, sp->d0, sp->d1, sp->is_2d, bops_layout_name(layout));
            if (c == NULL) {
                return false;
            }
            c->t[0] = GGML_TYPE_F32;
            c->t[1] = t ? GGML_TYPE_F16 : GGML_TYPE_F32;
            bops_ne(c->ne[0], sp->data[0], sp->data[1], sp->data[2], sp->data[3]);
            bops_ne(c->ne[1], sp->kernel[0], sp->kernel[1], sp->kernel[2], sp->kernel[3]);
            const int32_t q[7] = { sp->s0, sp->s1, sp->p0, sp->p1, sp->d0, sp->d1, sp->is_2d };
            for (int j = 0; j < 7; j++) {
                c->i[j] = q[j];
            }
            c->i[8] = layout;
        }
    }
    return true;
}

//
// FLASH_ATTN_BACK: i[0..6] = D, N, M, H, Hkv, B, masked; i[8] = q's layout
//

static struct ggml_tensor * build_flash_attn_back(struct bop_graph * g, const struct bop_case * c) {
    const int32_t * p = c->i;
    const int64_t qne[4] = { p[0], p[1], p[3], p[5] }, kne[4] = { p[0], p[2], p[4], p[5] }, vne[4] = { p[2], p[0], p[4], p[5] };
    struct ggml_tensor * q = bops_input(g, GGML_TYPE_F32, qne, (enum bop_layout) c->i[8], BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * k = bops_input_c(g, GGML_TYPE_F32, kne);
    struct ggml_tensor * v = bops_input_c(g, GGML_TYPE_F32, vne);
    struct ggml_tensor * d = bops_input_c(g, GGML_TYPE_F32, qne);
    if (q == NULL || k == NULL || v == NULL || d == NULL) {
        return NULL;
    }
    return ggml_flash_attn_back(g->ctx, q, k, v, d, p[6] != 0);
}

static bool cases_flash_attn_back(struct bop_cases * list) {
    // { D, N, M, H, Hkv, B }: one head, grouped heads, more keys than queries, a batch
    static const int32_t specs[][6] = {
        { 16, 5, 5, 1, 1, 1 }, { 16, 5, 7, 4, 2, 1 }, { 32, 8, 8, 2, 2, 2 }, { 8, 3, 11, 4, 1, 2 }, { 64, 1, 9, 2, 1, 1 },
    };
    for (size_t k = 0; k < sizeof(specs)/sizeof(specs[0]); k++) {
        for (int masked = 0; masked < 2; masked++) {
            const enum bop_layout layout = k == 2 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
            struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_FLASH_ATTN_BACK), build_flash_attn_back,
                    "D=%d,N=%d,M=%d,H=%d,H_kv=%d,B=%d,masked=%d,layout_q=%s", specs[k][0], specs[k][1], specs[k][2],
                    specs[k][3], specs[k][4], specs[k][5], masked, bops_layout_name(layout));
            if (c == NULL) {
                return false;
            }
            for (int j = 0; j < 6; j++) {
                c->i[j] = specs[k][j];
            }
            c->i[6] = masked;
            c->i[8] = layout;
        }
    }
    return true;
}

bool bops_cases_shape2(struct bop_cases * list) {
    return cases_upscale(list) && cases_windows(list) && cases_rel_pos(list) && cases_col2im(list) &&
           cases_im2col_back(list) && cases_flash_attn_back(list);
}
