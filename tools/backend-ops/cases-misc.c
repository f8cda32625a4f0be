// Cases of issue 22's "misc" group, after the shape and view families of the ggml family's
// test-backend-ops: CUMSUM, TRI, FILL, DIAG, ROLL, circular PAD, PAD_REFLECT_1D,
// TIMESTEP_EMBEDDING, POOL_1D, and ggml_argsort_top_k (an ARGSORT node seen through a view).

#include "bops.h"

//
// generic one-input build: a = t[0] ne[0] (layout i[8], distinct values per row when i[10]);
// i[9] selects the constructor, i[0..7] and f[0] its parameters
//

enum misc_kind { MISC_CUMSUM, MISC_TRI, MISC_FILL, MISC_FILL_INPLACE, MISC_DIAG, MISC_ROLL, MISC_PAD_CIRC,
                 MISC_PAD_EXT_CIRC, MISC_REFLECT, MISC_TIMESTEP, MISC_POOL_1D, MISC_ARGSORT_TOP_K };

static struct ggml_tensor * build_misc(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[8],
            c->i[10] ? BOP_FILL_DISTINCT : BOP_FILL_UNIFORM, c->lo, c->hi);
    if (a == NULL) {
        return NULL;
    }
    const int32_t * p = c->i;
    switch ((enum misc_kind) c->i[9]) {
        case MISC_CUMSUM:       return ggml_cumsum(g->ctx, a);
        case MISC_TRI:          return ggml_tri(g->ctx, a, (enum ggml_tri_type) p[0]);
        case MISC_FILL:         return ggml_fill(g->ctx, a, c->f[0]);
        case MISC_FILL_INPLACE: return ggml_fill_inplace(g->ctx, a, c->f[0]);
        case MISC_DIAG:         return ggml_diag(g->ctx, a);
        case MISC_ROLL:         return ggml_roll(g->ctx, a, p[0], p[1], p[2], p[3]);
        case MISC_PAD_CIRC:     return ggml_pad_circular(g->ctx, a, p[0], p[1], p[2], p[3]);
        case MISC_PAD_EXT_CIRC: return ggml_pad_ext_circular(g->ctx, a, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
        case MISC_REFLECT:      return ggml_pad_reflect_1d(g->ctx, a, p[0], p[1]);
        case MISC_TIMESTEP:     return ggml_timestep_embedding(g->ctx, a, p[0], p[1]);
        case MISC_POOL_1D:      return ggml_pool_1d(g->ctx, a, (enum ggml_op_pool) p[0], p[1], p[2], p[3]);
        case MISC_ARGSORT_TOP_K: {
            // the view is not computed: make it a node of its own so that its values are compared
            struct ggml_tensor * top = ggml_argsort_top_k(g->ctx, a, p[0]);
            return top != NULL ? ggml_cont(g->ctx, top) : NULL;
        }
    }
    return NULL;
}

static struct bop_case * add_misc(struct bop_cases * list, enum ggml_op op, enum misc_kind kind, enum ggml_type type,
        const int64_t ne[4], enum bop_layout layout, const int32_t params[8], const char * extra) {
    struct bop_case * c = bops_add(list, ggml_op_name(op), build_misc, "type=%s,ne=%s,layout=%s%s%s", bops_tname(type),
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

static bool cases_cumsum_tri_fill(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 10, 5, 4, 3 }, { 127, 5, 4, 3 }, { 128, 5, 4, 3 }, { 128, 128, 4, 4 },
                                         { 255, 5, 4, 3 }, { 256, 5, 4, 3 }, { 511, 5, 4, 3 }, { 2048, 16, 5, 4 } };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        for (int l = 0; l < 2; l++) {
            if (add_misc(list, GGML_OP_CUMSUM, MISC_CUMSUM, GGML_TYPE_F32, shapes[s], l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT,
                         NULL, "") == NULL) {
                return false;
            }
        }
    }
    static const char * tri_names[] = { "upper_diag", "upper", "lower_diag", "lower" };
    static const int64_t squares[][4] = { { 8, 8, 4, 16 }, { 1, 1, 1, 1 }, { 33, 33, 2, 1 }, { 100, 100, 2, 2 } };
    for (int t = 0; t < 4; t++) {
        for (size_t s = 0; s < sizeof(squares)/sizeof(squares[0]); s++) {
            const int32_t p[8] = { t };
            char extra[32];
            snprintf(extra, sizeof(extra), "tri=%s", tri_names[t]);
            if (add_misc(list, GGML_OP_TRI, MISC_TRI, GGML_TYPE_F32, squares[s], s == 2 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT,
                         p, extra) == NULL) {
                return false;
            }
        }
    }
    static const float values[] = { 0.5f, -152.0f, 3.25f };
    static const int64_t fill_shapes[][4] = { { 10, 10, 4, 3 }, { 303, 207, 11, 3 }, { 800, 600, 4, 4 } };
    for (int t = 0; t < 2; t++) {
        const enum ggml_type type = t ? GGML_TYPE_F16 : GGML_TYPE_F32;
        for (size_t s = 0; s < 3; s++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                char extra[48];
                snprintf(extra, sizeof(extra), "c=%g,inplace=%d", (double) values[s], inplace);
                struct bop_case * c = add_misc(list, GGML_OP_FILL, inplace ? MISC_FILL_INPLACE : MISC_FILL, type,
                        fill_shapes[s], BOP_LAYOUT_CONT, NULL, extra);
                if (c == NULL) {
                    return false;
                }
                c->f[0] = values[s];
            }
        }
    }
    return true;
}

static bool cases_diag_roll(struct bop_cases * list) {
    static const int64_t diag_shapes[][4] = { { 10, 1, 4, 3 }, { 79, 1, 19, 13 }, { 256, 1, 8, 16 } };
    for (size_t s = 0; s < 3; s++) {
        for (int t = 0; t < 2; t++) {
            if (add_misc(list, GGML_OP_DIAG, MISC_DIAG, t ? GGML_TYPE_F16 : GGML_TYPE_F32, diag_shapes[s],
                         s == 1 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT, NULL, "") == NULL) {
                return false;
            }
        }
    }
    static const int32_t shifts[][4] = { { 0, 1, 0, 0 }, { 1, 0, 0, 0 }, { -3, 2, -1, 1 }, { 7, -4, 3, 0 }, { 0, 0, 0, 0 } };
    const int64_t ne[4] = { 10, 5, 4, 3 };
    for (size_t k = 0; k < sizeof(shifts)/sizeof(shifts[0]); k++) {
        for (int t = 0; t < 2; t++) {
            const int32_t p[8] = { shifts[k][0], shifts[k][1], shifts[k][2], shifts[k][3] };
            char extra[64];
            snprintf(extra, sizeof(extra), "shifts=[%d,%d,%d,%d]", p[0], p[1], p[2], p[3]);
            if (add_misc(list, GGML_OP_ROLL, MISC_ROLL, t ? GGML_TYPE_F16 : GGML_TYPE_F32, ne,
                         k == 2 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT, p, extra) == NULL) {
                return false;
            }
        }
    }
    return true;
}

static bool cases_pads(struct bop_cases * list) {
    // circular padding (right side only and both sides), over a plain and a strided source
    static const int32_t pads[][8] = {
        { 1, 2, 3, 4, 0, 0, 0, 0 }, { 0, 1, 0, 2, 0, 3, 0, 4 }, { 2, 3, 1, 0, 0, 2, 1, 1 }, { 5, 5, 4, 4, 0, 0, 0, 0 },
    };
    const int64_t ne[4] = { 8, 6, 3, 2 };
    for (int l = 0; l < 2; l++) {
        const enum bop_layout layout = l ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT;
        if (add_misc(list, GGML_OP_PAD, MISC_PAD_CIRC, GGML_TYPE_F32, ne, layout, pads[0], "circular,p=[1,2,3,4]") == NULL) {
            return false;
        }
        for (size_t k = 1; k < sizeof(pads)/sizeof(pads[0]); k++) {
            char extra[96];
            snprintf(extra, sizeof(extra), "circular,lp_rp=[%d,%d,%d,%d,%d,%d,%d,%d]", pads[k][0], pads[k][1], pads[k][2],
                     pads[k][3], pads[k][4], pads[k][5], pads[k][6], pads[k][7]);
            if (add_misc(list, GGML_OP_PAD, MISC_PAD_EXT_CIRC, GGML_TYPE_F32, ne, layout, pads[k], extra) == NULL) {
                return false;
            }
        }
    }
    // reflection: the family's 1-d and 3-d shapes, paddings up to ne0 - 1
    static const int64_t rshapes[][4] = { { 512, 1, 1, 1 }, { 512, 34, 2, 1 }, { 3000, 384, 4, 1 }, { 10, 2, 1, 1 } };
    static const int32_t rpads[][2] = { { 3, 4 }, { 10, 9 }, { 0, 7 }, { 9, 9 } };
    for (size_t s = 0; s < sizeof(rshapes)/sizeof(rshapes[0]); s++) {
        const int32_t p[8] = { rpads[s][0], rpads[s][1] };
        char extra[32];
        snprintf(extra, sizeof(extra), "p0=%d,p1=%d", p[0], p[1]);
        if (add_misc(list, GGML_OP_PAD_REFLECT_1D, MISC_REFLECT, GGML_TYPE_F32, rshapes[s],
                     s == 1 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT, p, extra) == NULL) {
            return false;
        }
    }
    // reflection edge paddings: none, one, ne0 - 1 on either side, on strided and permuted sources
    static const int32_t epads[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { 16, 0 }, { 0, 16 }, { 16, 16 } };
    static const int64_t eshape[4] = { 17, 3, 2, 2 };
    for (size_t k = 0; k < sizeof(epads)/sizeof(epads[0]); k++) {
        for (int l = 0; l < 3; l++) {
            const enum bop_layout layout = l == 0 ? BOP_LAYOUT_CONT : l == 1 ? BOP_LAYOUT_PAD : BOP_LAYOUT_PERM;
            const int32_t p[8] = { epads[k][0], epads[k][1] };
            char extra[32];
            snprintf(extra, sizeof(extra), "p0=%d,p1=%d", p[0], p[1]);
            if (add_misc(list, GGML_OP_PAD_REFLECT_1D, MISC_REFLECT, GGML_TYPE_F32, eshape, layout, p, extra) == NULL) {
                return false;
            }
        }
    }
    // perf: the family's suite shape
    static const int64_t pshape[4] = { 512, 34, 2, 1 };
    const int32_t pp[8] = { 10, 9 };
    struct bop_case * c = add_misc(list, GGML_OP_PAD_REFLECT_1D, MISC_REFLECT, GGML_TYPE_F32, pshape, BOP_LAYOUT_CONT, pp,
                                   "p0=10,p1=9");
    if (c == NULL) {
        return false;
    }
    c->modes = BOP_MODE_PERF;
    return true;
}

static bool cases_timestep(struct bop_cases * list) {
    static const int32_t dims[][2] = { { 320, 10000 }, { 129, 10000 }, { 64, 1000 }, { 1, 100 } };
    static const int64_t n[] = { 2, 12, 7, 3 };
    for (size_t k = 0; k < sizeof(dims)/sizeof(dims[0]); k++) {
        const int64_t ne[4] = { n[k], 1, 1, 1 };
        const int32_t p[8] = { dims[k][0], dims[k][1] };
        char extra[48];
        snprintf(extra, sizeof(extra), "dim=%d,max_period=%d", p[0], p[1]);
        struct bop_case * c = add_misc(list, GGML_OP_TIMESTEP_EMBEDDING, MISC_TIMESTEP, GGML_TYPE_F32, ne, BOP_LAYOUT_CONT,
                p, extra);
        if (c == NULL) {
            return false;
        }
        c->lo = 0.0; // timesteps of diffusion models: 0 .. 1000
        c->hi = 1000.0;
    }
    return true;
}

static bool cases_pool_top_k(struct bop_cases * list) {
    // the family's pool_1d cases: kernel, stride and padding sweeps over F32 and F16 sources
    static const int32_t ksp[][3] = { { 1, 1, 0 }, { 3, 1, 0 }, { 3, 2, 1 }, { 5, 3, 2 }, { 2, 2, 0 }, { 4, 1, 3 } };
    const int64_t ne[4] = { 10, 3, 2, 1 };
    for (int pop = 0; pop < 2; pop++) {
        for (size_t k = 0; k < sizeof(ksp)/sizeof(ksp[0]); k++) {
            for (int t = 0; t < 2; t++) {
                const int32_t p[8] = { pop ? GGML_OP_POOL_AVG : GGML_OP_POOL_MAX, ksp[k][0], ksp[k][1], ksp[k][2] };
                char extra[48];
                snprintf(extra, sizeof(extra), "pool=%s,k0=%d,s0=%d,p0=%d", pop ? "avg" : "max", p[1], p[2], p[3]);
                if (add_misc(list, GGML_OP_POOL_1D, MISC_POOL_1D, t ? GGML_TYPE_F16 : GGML_TYPE_F32, ne,
                             k == 3 ? BOP_LAYOUT_PAD : BOP_LAYOUT_CONT, p, extra) == NULL) {
                    return false;
                }
            }
        }
    }
    // ggml_argsort_top_k: distinct values so that the order is unique
    static const int64_t tshapes[][4] = { { 16, 10, 10, 10 }, { 60, 10, 10, 10 }, { 1023, 2, 1, 3 }, { 8, 1, 1, 1 } };
    static const int32_t ks[] = { 4, 1, 100, 8 };
    for (size_t s = 0; s < sizeof(tshapes)/sizeof(tshapes[0]); s++) {
        const int32_t p[8] = { ks[s] };
        char extra[16];
        snprintf(extra, sizeof(extra), "k=%d", p[0]);
        struct bop_case * c = add_misc(list, GGML_OP_CONT, MISC_ARGSORT_TOP_K, GGML_TYPE_F32, tshapes[s], BOP_LAYOUT_CONT,
                p, extra);
        if (c == NULL) {
            return false;
        }
        snprintf(c->op, sizeof(c->op), "ARGSORT_TOP_K");
        c->i[10] = 1; // distinct values: the order is unique
    }
    return true;
}

// Shapes and layouts the cases above lack, for backends that tile rows over work-groups (OpenCL):
// transposed and permuted sources, single long rows of many tiles (with values of one sign, so a
// running sum that drifts shows), a row of one element, every plain type of DIAG, FILL of one element
// and of odd sizes, transposed and many timesteps.
static bool cases_misc_layouts(struct bop_cases * list) {
    static const int64_t cs_shapes[][4] = { { 1, 7, 3, 1 }, { 65537, 1, 1, 1 }, { 300, 33, 2, 1 }, { 1000, 3, 1, 2 } };
    static const enum bop_layout cs_layouts[] = { BOP_LAYOUT_CONT, BOP_LAYOUT_CONT, BOP_LAYOUT_TRANS, BOP_LAYOUT_PERM };
    for (size_t s = 0; s < sizeof(cs_shapes)/sizeof(cs_shapes[0]); s++) {
        struct bop_case * c = add_misc(list, GGML_OP_CUMSUM, MISC_CUMSUM, GGML_TYPE_F32, cs_shapes[s], cs_layouts[s], NULL,
                s == 1 ? "positive" : "");
        if (c == NULL) {
            return false;
        }
        if (s == 1) {
            c->lo = 0.0;
        }
    }
    const int64_t sq[4] = { 37, 37, 3, 2 };
    for (int t = 0; t < 4; t++) {
        const int32_t p[8] = { t };
        char extra[16];
        snprintf(extra, sizeof(extra), "tri=%d", t);
        if (add_misc(list, GGML_OP_TRI, MISC_TRI, GGML_TYPE_F32, sq, t % 2 ? BOP_LAYOUT_PERM : BOP_LAYOUT_TRANS, p,
                     extra) == NULL) {
            return false;
        }
    }
    static const enum ggml_type diag_types[] = { GGML_TYPE_BF16, GGML_TYPE_I32, GGML_TYPE_I16, GGML_TYPE_I8, GGML_TYPE_I64 };
    for (size_t t = 0; t < sizeof(diag_types)/sizeof(diag_types[0]); t++) {
        const int64_t ne[4] = { 45, 1, 3, 2 };
        if (add_misc(list, GGML_OP_DIAG, MISC_DIAG, diag_types[t], ne, t == 0 ? BOP_LAYOUT_PERM : BOP_LAYOUT_CONT, NULL,
                     "") == NULL) {
            return false;
        }
    }
    static const int64_t fill_shapes[][4] = { { 1, 1, 1, 1 }, { 67, 5, 3, 2 } };
    for (size_t s = 0; s < 2; s++) {
        struct bop_case * c = add_misc(list, GGML_OP_FILL, s ? MISC_FILL_INPLACE : MISC_FILL, s ? GGML_TYPE_F32 : GGML_TYPE_F16,
                fill_shapes[s], BOP_LAYOUT_CONT, NULL, s ? "c=-7.5,inplace=1" : "c=-7.5,inplace=0");
        if (c == NULL) {
            return false;
        }
        c->f[0] = -7.5f;
    }
    static const int32_t ts[][2] = { { 257, 10000 }, { 2, 10 } };
    static const int64_t n_ts[] = { 1000, 5 };
    for (size_t k = 0; k < 2; k++) {
        const int64_t ne[4] = { n_ts[k], 1, 1, 1 };
        const int32_t p[8] = { ts[k][0], ts[k][1] };
        char extra[48];
        snprintf(extra, sizeof(extra), "dim=%d,max_period=%d", p[0], p[1]);
        struct bop_case * c = add_misc(list, GGML_OP_TIMESTEP_EMBEDDING, MISC_TIMESTEP, GGML_TYPE_F32, ne,
                k ? BOP_LAYOUT_TRANS : BOP_LAYOUT_PAD, p, extra);
        if (c == NULL) {
            return false;
        }
        c->lo = 0.0;
        c->hi = 1000.0;
    }
    // timed only: many rows of a few tiles, and few long rows
    static const int64_t cs_big[][4] = { { 4096, 512, 1, 1 }, { 262144, 8, 1, 1 } };
    for (size_t s = 0; s < 2; s++) {
        if (!bops_perf_only(list, add_misc(list, GGML_OP_CUMSUM, MISC_CUMSUM, GGML_TYPE_F32, cs_big[s], BOP_LAYOUT_CONT, NULL,
                                           "") != NULL)) {
            return false;
        }
    }
    return true;
}

bool bops_cases_misc(struct bop_cases * list) {
    return cases_cumsum_tri_fill(list) && cases_diag_roll(list) && cases_pads(list) && cases_timestep(list) &&
           cases_pool_top_k(list) && cases_misc_layouts(list);
}
