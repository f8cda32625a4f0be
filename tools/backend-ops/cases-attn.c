// backend-ops cases: attention. SOFT_MAX (scale, masks F32/F16 with broadcasting, ALiBi, sinks),
// ROPE (NORMAL, NEOX, MROPE, IMROPE, VISION; partial rotation, freq factors, YaRN) and
// FLASH_ATTN_EXT (K/V types, quantized KV caches, GQA, masks, ALiBi, softcap, sinks, precision, strided K/V).

#include "bops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

//
// SOFT_MAX: a F32 ne[0]; i[0] = mask type + 1 (0: none), mask shape ne[1]; i[1] = sinks;
// i[2] = inplace; i[3] = ext form; f[0] = scale, f[1] = max_bias
//

static struct ggml_tensor * build_soft_max(struct bop_graph * g, const struct bop_case * c) {
    struct ggml_tensor * a = bops_input_c(g, c->t[0], c->ne[0]);
    struct ggml_tensor * mask = NULL;
    struct ggml_tensor * sinks = NULL;
    if (a == NULL) {
        return NULL;
    }
    if (c->i[0]) {
        mask = bops_input(g, (enum ggml_type) (c->i[0] - 1), c->ne[1], BOP_LAYOUT_CONT, BOP_FILL_MASK, -1.0, 1.0);
        if (mask == NULL) {
            return NULL;
        }
    }
    if (c->i[1]) {
        const int64_t ns[4] = { c->ne[0][2], 1, 1, 1 };
        sinks = bops_input(g, GGML_TYPE_F32, ns, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -2.0, 2.0);
        if (sinks == NULL) {
            return NULL;
        }
    }
    struct ggml_tensor * t;
    if (!c->i[3]) {
        t = c->i[2] ? ggml_soft_max_inplace(g->ctx, a) : ggml_soft_max(g->ctx, a);
    } else {
        t = c->i[2] ? ggml_soft_max_ext_inplace(g->ctx, a, mask, c->f[0], c->f[1]) : ggml_soft_max_ext(g->ctx, a, mask, c->f[0], c->f[1]);
    }
    if (t != NULL && sinks != NULL) {
        ggml_soft_max_add_sinks(t, sinks);
        if (t->src[2] != sinks) {
            return NULL;
        }
    }
    return t;
}

static struct bop_case * add_soft_max(struct bop_cases * list, enum ggml_type type, const int64_t ne[4], int mask_type,
        const int64_t mne[4], bool sinks, bool inplace, bool ext, float scale, float max_bias) {
    char mask[96] = "none";
    if (mask_type >= 0) {
        snprintf(mask, sizeof(mask), "%s%s", bops_tname((enum ggml_type) mask_type), bops_ne_str(mne));
    }
    struct bop_case * c = ext
        ? bops_add(list, ggml_op_name(GGML_OP_SOFT_MAX), build_soft_max, "type=%s,ne=%s,mask=%s,sinks=%d,scale=%g,max_bias=%g,inplace=%d",
                bops_tname(type), bops_ne_str(ne), mask, sinks ? 1 : 0, (double) scale, (double) max_bias, inplace ? 1 : 0)
        : bops_add(list, ggml_op_name(GGML_OP_SOFT_MAX), build_soft_max, "type=%s,ne=%s,plain,sinks=%d,inplace=%d",
                bops_tname(type), bops_ne_str(ne), sinks ? 1 : 0, inplace ? 1 : 0);
    if (c != NULL) {
        c->t[0] = type;
        bops_ne(c->ne[0], ne[0], ne[1], ne[2], ne[3]);
        if (mask_type >= 0) {
            bops_ne(c->ne[1], mne[0], mne[1], mne[2], mne[3]);
        }
        c->i[0] = mask_type + 1;
        c->i[1] = sinks;
        c->i[2] = inplace;
        c->i[3] = ext;
        c->f[0] = scale;
        c->f[1] = max_bias;
        c->lo = -4.0;
        c->hi = 4.0;
    }
    return c;
}

static bool cases_soft_max(struct bop_cases * list) {
    static const int64_t shapes[][4] = { { 16, 7, 4, 2 }, { 1023, 3, 2, 1 }, { 5, 1, 1, 1 }, { 32, 32, 8, 1 } };
    static const int64_t none[4] = { 0, 0, 0, 0 };
    for (size_t s = 0; s < 4; s++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            if (add_soft_max(list, GGML_TYPE_F32, shapes[s], -1, none, false, inplace, false, 1.0f, 0.0f) == NULL) {
                return false;
            }
        }
    }
    if (add_soft_max(list, GGML_TYPE_F16, shapes[0], -1, none, false, false, false, 1.0f, 0.0f) == NULL) {
        return false;
    }
    static const enum ggml_type mask_types[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (size_t s = 0; s < 4; s++) {
        const int64_t * ne = shapes[s];
        // masks: broadcast over heads and batch, taller than the rows, per head, per head and batch
        const int64_t masks[][4] = {
            { ne[0], ne[1], 1, 1 }, { ne[0], ne[1] + 3, 1, 1 }, { ne[0], ne[1], ne[2], 1 }, { ne[0], ne[1], ne[2], ne[3] },
        };
        for (size_t mt = 0; mt < 2; mt++) {
            for (size_t m = 0; m < 4; m++) {
                if (add_soft_max(list, GGML_TYPE_F32, ne, mask_types[mt], masks[m], false, false, true, 0.5f, 0.0f) == NULL) {
                    return false;
                }
            }
            // ALiBi, sinks, both, in place
            if (add_soft_max(list, GGML_TYPE_F32, ne, mask_types[mt], masks[0], false, false, true, 0.25f, 8.0f) == NULL ||
                add_soft_max(list, GGML_TYPE_F32, ne, mask_types[mt], masks[2], true, false, true, 1.0f, 0.0f) == NULL ||
                add_soft_max(list, GGML_TYPE_F32, ne, mask_types[mt], masks[0], true, false, true, 0.5f, 8.0f) == NULL ||
                add_soft_max(list, GGML_TYPE_F32, ne, mask_types[mt], masks[1], false, true, true, 0.7f, 0.0f) == NULL) {
                return false;
            }
        }
        if (add_soft_max(list, GGML_TYPE_F32, ne, -1, none, false, false, true, 0.3f, 0.0f) == NULL ||
            add_soft_max(list, GGML_TYPE_F32, ne, -1, none, true, false, true, 1.0f, 0.0f) == NULL) {
            return false;
        }
    }
    // a scale that spreads the row over [-120, 120]: exp's arguments far below -87, where the results
    // leave float's normal range
    const int64_t mask_wide[4] = { shapes[1][0], shapes[1][1], 1, 1 };
    return add_soft_max(list, GGML_TYPE_F32, shapes[1], GGML_TYPE_F16, mask_wide, false, false, true, 30.0f, 0.0f) != NULL &&
           add_soft_max(list, GGML_TYPE_F32, shapes[3], -1, none, false, false, true, 30.0f, 0.0f) != NULL;
}

//
// ROPE: a = t[0] ne[0] (layout i[5]); i[0] = n_dims, i[1] = mode, i[2] = n_ctx_orig, i[3] = freq
// factors, i[4] = inplace, i[6..9] = sections, i[10] = simple ggml_rope form, i[11] = offset of the
// rotated dims (ggml_rope_set_offset);
// f[0..5] = freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow
//

static struct ggml_tensor * build_rope(struct bop_graph * g, const struct bop_case * c) {
    const int mode = c->i[1];
    const bool multi = (mode & GGML_ROPE_TYPE_MROPE) != 0;
    struct ggml_tensor * a = bops_input(g, c->t[0], c->ne[0], (enum bop_layout) c->i[5], BOP_FILL_UNIFORM, c->lo, c->hi);
    const int64_t np[4] = { multi ? 4*c->ne[0][2] : c->ne[0][2], 1, 1, 1 };
    struct ggml_tensor * pos = bops_input(g, GGML_TYPE_I32, np, BOP_LAYOUT_CONT, BOP_FILL_INDEX, 0.0, 1024.0);
    struct ggml_tensor * ff = NULL;
    if (a == NULL || pos == NULL) {
        return NULL;
    }
    if (c->i[3]) {
        const int64_t nf[4] = { mode == GGML_ROPE_TYPE_VISION ? c->ne[0][0]/2 : c->i[0]/2, 1, 1, 1 };
        ff = bops_input(g, GGML_TYPE_F32, nf, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, 0.8, 4.0);
        if (ff == NULL) {
            return NULL;
        }
    }
    const float * f = c->f;
    struct ggml_tensor * r;
    if (c->i[10]) {
        r = c->i[4] ? ggml_rope_inplace(g->ctx, a, pos, c->i[0], mode) : ggml_rope(g->ctx, a, pos, c->i[0], mode);
    } else if (multi) {
        int sections[GGML_MROPE_SECTIONS] = { c->i[6], c->i[7], c->i[8], c->i[9] };
        r = c->i[4]
            ? ggml_rope_multi_inplace(g->ctx, a, pos, ff, c->i[0], sections, mode, c->i[2], f[0], f[1], f[2], f[3], f[4], f[5])
            : ggml_rope_multi(g->ctx, a, pos, ff, c->i[0], sections, mode, c->i[2], f[0], f[1], f[2], f[3], f[4], f[5]);
    } else {
        r = c->i[4]
            ? ggml_rope_ext_inplace(g->ctx, a, pos, ff, c->i[0], mode, c->i[2], f[0], f[1], f[2], f[3], f[4], f[5])
            : ggml_rope_ext(g->ctx, a, pos, ff, c->i[0], mode, c->i[2], f[0], f[1], f[2], f[3], f[4], f[5]);
    }
    return r != NULL && c->i[11] != 0 ? ggml_rope_set_offset(r, c->i[11]) : r;
}

struct rope_spec {
    int64_t ne[4];
    int n_dims, mode;
    bool ff, yarn, inplace, simple;
    enum bop_layout layout;
    int sections[4];
};

// n_offs: first rotated element (ggml_rope_set_offset), 0 for none
static bool add_rope_at(struct bop_cases * list, enum ggml_type type, const struct rope_spec * s, int n_offs) {
    const char * mode_name = s->mode == GGML_ROPE_TYPE_NORMAL ? "normal" : s->mode == GGML_ROPE_TYPE_NEOX ? "neox" :
                             s->mode == GGML_ROPE_TYPE_MROPE ? "mrope" : s->mode == GGML_ROPE_TYPE_IMROPE ? "imrope" : "vision";
    char sect[64] = "";
    if (s->mode & GGML_ROPE_TYPE_MROPE) {
        snprintf(sect, sizeof(sect), ",sections=[%d,%d,%d,%d]", s->sections[0], s->sections[1], s->sections[2], s->sections[3]);
    }
    if (n_offs != 0) {
        const size_t len = strlen(sect);
        snprintf(sect + len, sizeof(sect) - len, ",offs=%d", n_offs);
    }
    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_ROPE), build_rope,
            "type=%s,ne=%s,n_dims=%d,mode=%s%s,ff=%d,%s,layout=%s,inplace=%d", bops_tname(type), bops_ne_str(s->ne),
            s->n_dims, mode_name, sect, s->ff ? 1 : 0, s->simple ? "simple" : s->yarn ? "yarn" : "ext",
            bops_layout_name(s->layout), s->inplace ? 1 : 0);
    if (c == NULL) {
        return false;
    }
    c->t[0] = type;
    bops_ne(c->ne[0], s->ne[0], s->ne[1], s->ne[2], s->ne[3]);
    c->i[0] = s->n_dims;
    c->i[1] = s->mode;
    c->i[2] = s->yarn ? 512 : 0;
    c->i[3] = s->ff;
    c->i[4] = s->inplace;
    c->i[5] = s->layout;
    for (int k = 0; k < 4; k++) {
        c->i[6 + k] = s->sections[k];
    }
    c->i[10] = s->simple;
    c->i[11] = n_offs;
    c->f[0] = 10000.0f;                     // freq_base
    c->f[1] = s->yarn ? 0.25f : 1.0f;       // freq_scale
    c->f[2] = s->yarn ? 1.0f : 0.0f;        // ext_factor
    c->f[3] = s->yarn ? 0.9f : 1.0f;        // attn_factor
    c->f[4] = 32.0f;                        // beta_fast
    c->f[5] = 1.0f;                         // beta_slow
    return true;
}

static bool add_rope(struct bop_cases * list, enum ggml_type type, const struct rope_spec * s) {
    return add_rope_at(list, type, s, 0);
}

static bool cases_rope(struct bop_cases * list) {
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    static const int64_t shapes[][4] = { { 64, 4, 5, 1 }, { 80, 3, 7, 2 }, { 128, 2, 3, 1 } };
    for (size_t t = 0; t < 2; t++) {
        for (int m = 0; m < 2; m++) {
            const int mode = m ? GGML_ROPE_TYPE_NEOX : GGML_ROPE_TYPE_NORMAL;
            for (size_t s = 0; s < 3; s++) {
                for (int partial = 0; partial < 2; partial++) {
                    for (int variant = 0; variant < 3; variant++) {
                        struct rope_spec r = { { shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3] },
                            (int) (partial ? shapes[s][0]/2 : shapes[s][0]), mode,
                            variant == 1, variant == 2, false, false, BOP_LAYOUT_CONT, { 0, 0, 0, 0 } };
                        if (!add_rope(list, types[t], &r)) {
                            return false;
                        }
                    }
                }
            }
            struct rope_spec r = { { 64, 4, 5, 1 }, 64, mode, false, false, false, true, BOP_LAYOUT_CONT, { 0, 0, 0, 0 } };
            if (!add_rope(list, types[t], &r)) {
                return false;
            }
            r.simple = false;
            r.inplace = true;
            r.yarn = true;
            if (!add_rope(list, types[t], &r)) {
                return false;
            }
            r.inplace = false;
            r.layout = BOP_LAYOUT_PERM;
            if (!add_rope(list, types[t], &r)) {
                return false;
            }
            r.layout = BOP_LAYOUT_PAD;
            r.ff = true;
            if (!add_rope(list, types[t], &r)) {
                return false;
            }
        }
        // multi-section modes
        static const struct rope_spec multi[] = {
            { { 64, 4, 5, 1 }, 64, GGML_ROPE_TYPE_MROPE,  false, false, false, false, BOP_LAYOUT_CONT, { 8, 12, 12, 0 } },
            { { 64, 4, 5, 1 }, 32, GGML_ROPE_TYPE_MROPE,  false, true,  false, false, BOP_LAYOUT_CONT, { 4, 6, 6, 0 } },
            { { 128, 2, 3, 1 }, 128, GGML_ROPE_TYPE_MROPE, true, false, false, false, BOP_LAYOUT_CONT, { 16, 24, 24, 0 } },
            { { 64, 4, 5, 1 }, 64, GGML_ROPE_TYPE_IMROPE, false, false, false, false, BOP_LAYOUT_CONT, { 8, 12, 12, 0 } },
            { { 64, 4, 5, 1 }, 64, GGML_ROPE_TYPE_IMROPE, false, true,  false, false, BOP_LAYOUT_CONT, { 10, 10, 10, 2 } },
            { { 64, 4, 5, 1 }, 32, GGML_ROPE_TYPE_VISION, false, false, false, false, BOP_LAYOUT_CONT, { 16, 16, 0, 0 } },
            { { 80, 3, 7, 1 }, 40, GGML_ROPE_TYPE_VISION, true,  false, false, false, BOP_LAYOUT_CONT, { 20, 20, 0, 0 } },
            { { 64, 4, 5, 1 }, 32, GGML_ROPE_TYPE_VISION, false, true,  false, false, BOP_LAYOUT_CONT, { 8, 8, 8, 8 } },
        };
        for (size_t k = 0; k < sizeof(multi)/sizeof(multi[0]); k++) {
            if (!add_rope(list, types[t], &multi[k])) {
                return false;
            }
        }
        // rotated dims offset by ggml_rope_set_offset (the family's partial rotation at an offset),
        // and the in-place multi-section form
        static const struct rope_spec offset[] = {
            { { 64, 4, 5, 1 }, 32, GGML_ROPE_TYPE_NORMAL, false, false, false, false, BOP_LAYOUT_CONT, { 0, 0, 0, 0 } },
            { { 64, 4, 5, 1 }, 32, GGML_ROPE_TYPE_NEOX,   true,  true,  false, false, BOP_LAYOUT_CONT, { 0, 0, 0, 0 } },
            { { 80, 3, 7, 1 }, 40, GGML_ROPE_TYPE_NEOX,   false, false, true,  false, BOP_LAYOUT_CONT, { 0, 0, 0, 0 } },
            { { 64, 4, 5, 1 }, 32, GGML_ROPE_TYPE_MROPE,  false, false, false, false, BOP_LAYOUT_PAD,  { 4, 6, 6, 0 } },
            { { 64, 4, 5, 1 }, 64, GGML_ROPE_TYPE_IMROPE, false, false, true,  false, BOP_LAYOUT_CONT, { 8, 12, 12, 0 } },
        };
        static const int offs[] = { 16, 32, 10, 8, 0 };
        for (size_t k = 0; k < sizeof(offset)/sizeof(offset[0]); k++) {
            if (!add_rope_at(list, types[t], &offset[k], offs[k])) {
                return false;
            }
        }
    }
    return true;
}

//
// FLASH_ATTN_EXT: q F32 ne[0] = [D, n_batch, n_head, ne3]; k = t[1] [D, n_kv, n_head_kv, ne3],
// v = t[1] [Dv, n_kv, n_head_kv, ne3] with ne[1] = [Dv, n_kv, n_head_kv, -]; mask t[3] ne[2]
// (i[0] = has mask); i[1] = sinks, i[2] = prec F32, i[6] = layout of k and v;
// f[0] = scale, f[1] = max_bias, f[2] = softcap
//

static struct ggml_tensor * build_fattn(struct bop_graph * g, const struct bop_case * c) {
    const int64_t * q = c->ne[0];
    const int64_t * kv = c->ne[1];
    const int64_t nk[4] = { q[0], kv[1], kv[2], q[3] };
    const int64_t nv[4] = { kv[0], kv[1], kv[2], q[3] };
    const enum bop_layout layout = (enum bop_layout) c->i[6];
    struct ggml_tensor * tq = bops_input(g, GGML_TYPE_F32, q, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * tk = bops_input(g, c->t[1], nk, layout, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * tv = bops_input(g, c->t[1], nv, layout, BOP_FILL_UNIFORM, c->lo, c->hi);
    struct ggml_tensor * mask = NULL;
    if (tq == NULL || tk == NULL || tv == NULL) {
        return NULL;
    }
    if (c->i[0]) {
        mask = bops_input(g, c->t[3], c->ne[2], BOP_LAYOUT_CONT, BOP_FILL_MASK, -1.0, 1.0);
        if (mask == NULL) {
            return NULL;
        }
    }
    struct ggml_tensor * t = ggml_flash_attn_ext(g->ctx, tq, tk, tv, mask, c->f[0], c->f[1], c->f[2]);
    if (t == NULL) {
        return NULL;
    }
    if (c->i[2]) {
        ggml_flash_attn_ext_set_prec(t, GGML_PREC_F32);
    }
    if (c->i[1]) {
        const int64_t ns[4] = { q[2], 1, 1, 1 };
        struct ggml_tensor * sinks = bops_input(g, GGML_TYPE_F32, ns, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, -2.0, 2.0);
        if (sinks == NULL) {
            return NULL;
        }
        ggml_flash_attn_ext_add_sinks(t, sinks);
        if (t->src[4] != sinks) {
            return NULL;
        }
    }
    return t;
}

struct fattn_spec {
    int64_t d, dv, n_kv, n_batch, n_head, n_head_kv, ne3;
    int mask;          // 0: none, 1: F16, 2: F32
    int64_t mask_pad;  // extra mask rows beyond n_batch
    bool mask_heads;   // mask per head (and per ne3)
    float max_bias, softcap;
    bool sinks, prec_f32;
    enum bop_layout layout;
};

static bool add_fattn(struct bop_cases * list, enum ggml_type kv_type, const struct fattn_spec * s, int modes) {
    const int64_t mne[4] = { s->n_kv, s->n_batch + s->mask_pad, s->mask_heads ? s->n_head : 1, s->mask_heads ? s->ne3 : 1 };
    char mask[80] = "none";
    if (s->mask) {
        snprintf(mask, sizeof(mask), "%s%s", s->mask == 1 ? "f16" : "f32", bops_ne_str(mne));
    }
    struct bop_case * c = bops_add(list, ggml_op_name(GGML_OP_FLASH_ATTN_EXT), build_fattn,
            "type_kv=%s,d=%lld,dv=%lld,n_kv=%lld,n_batch=%lld,n_head=%lld,n_head_kv=%lld,ne3=%lld,mask=%s,max_bias=%g,"
            "softcap=%g,sinks=%d,prec=%s,layout_kv=%s", bops_tname(kv_type), (long long) s->d, (long long) s->dv,
            (long long) s->n_kv, (long long) s->n_batch, (long long) s->n_head, (long long) s->n_head_kv, (long long) s->ne3,
            mask, (double) s->max_bias, (double) s->softcap, s->sinks ? 1 : 0, s->prec_f32 ? "f32" : "default",
            bops_layout_name(s->layout));
    if (c == NULL) {
        return false;
    }
    c->modes = modes;
    c->t[1] = kv_type;
    c->t[3] = s->mask == 2 ? GGML_TYPE_F32 : GGML_TYPE_F16;
    bops_ne(c->ne[0], s->d, s->n_batch, s->n_head, s->ne3);
    bops_ne(c->ne[1], s->dv, s->n_kv, s->n_head_kv, 0);
    bops_ne(c->ne[2], mne[0], mne[1], mne[2], mne[3]);
    c->i[0] = s->mask != 0;
    c->i[1] = s->sinks;
    c->i[2] = s->prec_f32;
    c->i[6] = s->layout;
    // with a softcap the logits go through tanh(x/softcap)*softcap: scale them up to reach it
    c->f[0] = (float) (1.0 / sqrt((double) s->d)) * (s->softcap > 0.0f ? 64.0f : 1.0f);
    c->f[1] = s->max_bias;
    c->f[2] = s->softcap;
    return true;
}

static bool cases_fattn(struct bop_cases * list) {
    static const enum ggml_type kv_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    const struct fattn_spec base = { 64, 64, 113, 7, 4, 2, 1, 1, 0, false, 0.0f, 0.0f, false, false, BOP_LAYOUT_CONT };
    for (size_t t = 0; t < 3; t++) {
        struct fattn_spec v[16];
        int n = 0;
        v[n++] = base;
        v[n] = base; v[n].d = v[n].dv = 128; v[n].n_kv = 256; v[n].n_batch = 1; n++;
        v[n] = base; v[n].d = 192; v[n].dv = 128; n++;
        v[n] = base; v[n].d = v[n].dv = 40; v[n].n_head_kv = 4; n++;
        v[n] = base; v[n].n_head_kv = 1; n++;
        v[n] = base; v[n].mask = 0; n++;
        v[n] = base; v[n].mask = 2; n++;
        v[n] = base; v[n].mask_heads = true; v[n].ne3 = 2; n++;
        v[n] = base; v[n].max_bias = 8.0f; n++;
        v[n] = base; v[n].softcap = 30.0f; n++;
        v[n] = base; v[n].sinks = true; n++;
        v[n] = base; v[n].prec_f32 = true; n++;
        v[n] = base; v[n].layout = BOP_LAYOUT_PERM; n++;
        v[n] = base; v[n].n_batch = 32; v[n].mask_pad = 3; v[n].n_kv = 64; n++;
        v[n] = base; v[n].mask = 0; v[n].sinks = true; v[n].n_batch = 1; v[n].ne3 = 3; n++;
        // a small model's decoding step (SmolLM2-135M: 9 heads of 64, 3 KV heads), keys split over
        // several work-groups on GPUs, the last span short
        v[n] = base; v[n].n_kv = 300; v[n].n_batch = 1; v[n].n_head = 9; v[n].n_head_kv = 3; n++;
        for (int k = 0; k < n; k++) {
            if (!add_fattn(list, kv_types[t], &v[k], BOP_MODE_TEST)) {
                return false;
            }
            // the same with a prompt's many query positions (the CPU's blocked prompt path)
            struct fattn_spec p = v[k];
            p.n_batch = 37;
            if (v[k].n_batch == 7 && !add_fattn(list, kv_types[t], &p, BOP_MODE_TEST)) {
                return false;
            }
        }
    }
    // a quantized KV cache (llama.cpp's -ctk / -ctv): the types the family's CPU reads, head sizes
    // of whole blocks; GQA, the mask variants, sinks, a decoding step
    static const enum ggml_type q_types[] = {
        GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL,
    };
    for (size_t t = 0; t < sizeof(q_types)/sizeof(q_types[0]); t++) {
        struct fattn_spec v[8];
        int n = 0;
        v[n++] = base;
        v[n] = base; v[n].d = v[n].dv = 128; v[n].n_kv = 256; v[n].n_batch = 1; v[n].n_head = 8; n++;
        v[n] = base; v[n].d = 192; v[n].dv = 128; n++;
        v[n] = base; v[n].n_head_kv = 1; v[n].mask = 2; n++;
        v[n] = base; v[n].mask = 0; n++;
        v[n] = base; v[n].mask_heads = true; v[n].ne3 = 2; v[n].max_bias = 8.0f; n++;
        v[n] = base; v[n].sinks = true; v[n].softcap = 30.0f; n++;
        v[n] = base; v[n].n_batch = 32; v[n].mask_pad = 3; v[n].n_kv = 64; n++;
        for (int k = 0; k < n; k++) {
            if (!add_fattn(list, q_types[t], &v[k], BOP_MODE_TEST)) {
                return false;
            }
        }
    }
    // perf: a decoding step and a prompt chunk with a long KV cache (F16, GQA)
    const struct fattn_spec p1 = { 128, 128, 4096, 1, 32, 8, 1, 1, 0, false, 0.0f, 0.0f, false, false, BOP_LAYOUT_CONT };
    struct fattn_spec p2 = p1;
    p2.n_batch = 128;
    p2.n_kv = 1024;
    return add_fattn(list, GGML_TYPE_F16, &p1, BOP_MODE_PERF) && add_fattn(list, GGML_TYPE_F16, &p2, BOP_MODE_PERF);
}

static bool cases_perf(struct bop_cases * list) {
    static const int64_t big[4] = { 4096, 512, 1, 1 };
    static const int64_t none[4] = { 0, 0, 0, 0 };
    bool ok = bops_perf_only(list, add_soft_max(list, GGML_TYPE_F32, big, GGML_TYPE_F16, big, false, false, true, 0.125f, 0.0f) != NULL);
    ok = ok && bops_perf_only(list, add_soft_max(list, GGML_TYPE_F32, big, -1, none, false, false, false, 1.0f, 0.0f) != NULL);
    const struct rope_spec r = { { 128, 32, 512, 1 }, 128, GGML_ROPE_TYPE_NEOX, false, false, false, false, BOP_LAYOUT_CONT, { 0, 0, 0, 0 } };
    ok = ok && bops_perf_only(list, add_rope(list, GGML_TYPE_F32, &r));
    return ok;
}

bool bops_cases_attn(struct bop_cases * list) {
    return cases_soft_max(list) && cases_rope(list) && cases_fattn(list) && cases_perf(list);
}
