// Op constructors for attention: causal masks, soft_max, rotary embeddings, flash attention.
//
// Each constructor only builds a graph node (see docs/op-params.md for what a node stores).
// Where the ggml family asserts, these log the offending shapes/types and return NULL.

#include "ggml-ops-internal.h"

#include <math.h>

// true when n is a whole multiple of d (d > 0): the broadcast rule; guards against empty dims
static inline bool ggml_ops_multiple(int64_t n, int64_t d) {
    return d > 0 && n % d == 0;
}

#define GGML_OPS_PI_F 3.14159265358979323846f

//
// diag_mask_inf / diag_mask_zero
//

static struct ggml_tensor * ggml_ops_diag_mask_impl(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, enum ggml_op op, int n_past, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_i32(result, 0, n_past);
    return ggml_ops_node(result, op, a, NULL, NULL);
}

struct ggml_tensor * ggml_diag_mask_inf(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return ggml_ops_diag_mask_impl(__func__, ctx, a, GGML_OP_DIAG_MASK_INF, n_past, false);
}

struct ggml_tensor * ggml_diag_mask_inf_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return ggml_ops_diag_mask_impl(__func__, ctx, a, GGML_OP_DIAG_MASK_INF, n_past, true);
}

struct ggml_tensor * ggml_diag_mask_zero(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return ggml_ops_diag_mask_impl(__func__, ctx, a, GGML_OP_DIAG_MASK_ZERO, n_past, false);
}

struct ggml_tensor * ggml_diag_mask_zero_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past) {
    return ggml_ops_diag_mask_impl(__func__, ctx, a, GGML_OP_DIAG_MASK_ZERO, n_past, true);
}

//
// soft_max
//

static struct ggml_tensor * ggml_ops_soft_max_impl(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, struct ggml_tensor * mask, float scale, float max_bias, bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    if (!ggml_is_contiguous(a)) {
        GGML_LOG_ERROR("%s: a " GGML_OPS_NE_FMT " is not contiguous\n", func, GGML_OPS_NE_ARGS(a));
        return NULL;
    }
    if (mask != NULL) {
        if (mask->type != GGML_TYPE_F16 && mask->type != GGML_TYPE_F32) {
            GGML_LOG_ERROR("%s: mask type %s is neither F16 nor F32\n", func, ggml_type_name(mask->type));
            return NULL;
        }
        if (!ggml_is_contiguous(mask)) {
            GGML_LOG_ERROR("%s: mask " GGML_OPS_NE_FMT " is not contiguous\n", func, GGML_OPS_NE_ARGS(mask));
            return NULL;
        }
        if (mask->ne[0] != a->ne[0] || mask->ne[1] < a->ne[1] ||
            !ggml_ops_multiple(a->ne[2], mask->ne[2]) || !ggml_ops_multiple(a->ne[3], mask->ne[3])) {
            GGML_LOG_ERROR("%s: mask " GGML_OPS_NE_FMT " does not fit a " GGML_OPS_NE_FMT ": need mask->ne[0] == a->ne[0],"
                    " mask->ne[1] >= a->ne[1], and a->ne[2], a->ne[3] multiples of mask->ne[2], mask->ne[3]\n",
                    func, GGML_OPS_NE_ARGS(mask), GGML_OPS_NE_ARGS(a));
            return NULL;
        }
    }
    if (max_bias > 0.0f && mask == NULL) {
        GGML_LOG_ERROR("%s: max_bias = %g (ALiBi) needs a mask\n", func, (double) max_bias);
        return NULL;
    }

    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, scale);
    ggml_set_op_params_f32(result, 1, max_bias);
    return ggml_ops_node(result, GGML_OP_SOFT_MAX, a, mask, NULL);
}

struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_ops_soft_max_impl(__func__, ctx, a, NULL, 1.0f, 0.0f, false);
}

struct ggml_tensor * ggml_soft_max_inplace(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_ops_soft_max_impl(__func__, ctx, a, NULL, 1.0f, 0.0f, true);
}

struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
        float scale, float max_bias) {
    return ggml_ops_soft_max_impl(__func__, ctx, a, mask, scale, max_bias, false);
}

struct ggml_tensor * ggml_soft_max_ext_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
        float scale, float max_bias) {
    return ggml_ops_soft_max_impl(__func__, ctx, a, mask, scale, max_bias, true);
}

// Attaches (or, with sinks == NULL, detaches) per-head sink logits to node `a` at src[slot];
// a->src[heads_src]->ne[2] is the head count the sinks must match.
static void ggml_ops_add_sinks(const char * func, struct ggml_tensor * a, struct ggml_tensor * sinks,
        enum ggml_op op, int slot, int heads_src) {
    if (a == NULL) {
        GGML_LOG_ERROR("%s: argument 'a' is NULL\n", func);
        return;
    }
    if (a->op != op) {
        GGML_LOG_ERROR("%s: node is %s, not %s\n", func, ggml_op_name(a->op), ggml_op_name(op));
        return;
    }
    if (sinks == NULL) {
        a->src[slot] = NULL;
        return;
    }
    const struct ggml_tensor * heads = a->src[heads_src];
    if (a->src[slot] != NULL) {
        GGML_LOG_ERROR("%s: the node already has sinks\n", func);
        return;
    }
    if (sinks->type != GGML_TYPE_F32 || heads == NULL || sinks->ne[0] != heads->ne[2]) {
        GGML_LOG_ERROR("%s: sinks " GGML_OPS_NE_FMT " (%s) must be F32 with ne[0] == %lld (the head count)\n",
                func, GGML_OPS_NE_ARGS(sinks), ggml_type_name(sinks->type), heads ? (long long) heads->ne[2] : -1LL);
        return;
    }
    a->src[slot] = sinks;
}

void ggml_soft_max_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    ggml_ops_add_sinks(__func__, a, sinks, GGML_OP_SOFT_MAX, 2, 0);
}

//
// rope
//

static struct ggml_tensor * ggml_ops_rope_impl(const char * func, struct ggml_context * ctx,
        struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, const int * sections, int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow,
        bool inplace) {
    GGML_OPS_CHECK_ARG_F(func, ctx);
    GGML_OPS_CHECK_ARG_F(func, a);
    GGML_OPS_CHECK_ARG_F(func, b);
    if (mode & 1) {
        GGML_LOG_ERROR("%s: mode %d: bit 0 is no longer supported\n", func, mode);
        return NULL;
    }
    if (n_dims <= 0 || n_dims % 2 != 0 || n_dims > a->ne[0]) {
        GGML_LOG_ERROR("%s: n_dims = %d must be even, positive and <= ne[0] of a " GGML_OPS_NE_FMT "\n",
                func, n_dims, GGML_OPS_NE_ARGS(a));
        return NULL;
    }
    const bool mrope = (mode & GGML_ROPE_TYPE_MROPE) != 0;
    const int64_t n_pos = mrope ? 4*a->ne[2] : a->ne[2];
    if (b->type != GGML_TYPE_I32 || !ggml_is_vector(b) || b->ne[0] != n_pos) {
        GGML_LOG_ERROR("%s: positions b " GGML_OPS_NE_FMT " (%s) must be an I32 vector of %lld%s for a " GGML_OPS_NE_FMT "\n",
                func, GGML_OPS_NE_ARGS(b), ggml_type_name(b->type), (long long) n_pos,
                mrope ? " (4 per token for MROPE modes)" : "", GGML_OPS_NE_ARGS(a));
        return NULL;
    }
    if (c != NULL && (c->type != GGML_TYPE_F32 || c->ne[0] < n_dims/2)) {
        GGML_LOG_ERROR("%s: freq factors c " GGML_OPS_NE_FMT " (%s) must be F32 with ne[0] >= n_dims/2 = %d\n",
                func, GGML_OPS_NE_ARGS(c), ggml_type_name(c->type), n_dims/2);
        return NULL;
    }

    struct ggml_tensor * result = ggml_ops_like(func, ctx, a, inplace);
    if (result == NULL) {
        return NULL;
    }
    int32_t params[16] = { 0, n_dims, mode, 0, n_ctx_orig }; // [15]: offset (ggml_rope_set_offset)
    memcpy(params +  5, &freq_base,   sizeof(float));
    memcpy(params +  6, &freq_scale,  sizeof(float));
    memcpy(params +  7, &ext_factor,  sizeof(float));
    memcpy(params +  8, &attn_factor, sizeof(float));
    memcpy(params +  9, &beta_fast,   sizeof(float));
    memcpy(params + 10, &beta_slow,   sizeof(float));
    // sections only mean something to the MROPE family of modes; other modes store zeros
    for (int i = 0; i < GGML_MROPE_SECTIONS; i++) {
        params[11 + i] = (mrope && sections != NULL) ? sections[i] : 0;
    }
    ggml_set_op_params(result, params, sizeof(params));
    return ggml_ops_node(result, GGML_OP_ROPE, a, b, c);
}

struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims, int mode) {
    return ggml_ops_rope_impl(__func__, ctx, a, b, NULL, n_dims, NULL, mode, 0,
            10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f, false);
}

struct ggml_tensor * ggml_rope_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims, int mode) {
    return ggml_ops_rope_impl(__func__, ctx, a, b, NULL, n_dims, NULL, mode, 0,
            10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f, true);
}

struct ggml_tensor * ggml_rope_ext(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return ggml_ops_rope_impl(__func__, ctx, a, b, c, n_dims, NULL, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, false);
}

struct ggml_tensor * ggml_rope_ext_inplace(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return ggml_ops_rope_impl(__func__, ctx, a, b, c, n_dims, NULL, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, true);
}

struct ggml_tensor * ggml_rope_multi(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, int sections[GGML_MROPE_SECTIONS], int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    if (sections == NULL && (mode & GGML_ROPE_TYPE_MROPE)) {
        GGML_LOG_ERROR("%s: argument 'sections' is NULL\n", __func__);
        return NULL;
    }
    return ggml_ops_rope_impl(__func__, ctx, a, b, c, n_dims, sections, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, false);
}

struct ggml_tensor * ggml_rope_multi_inplace(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
        int n_dims, int sections[GGML_MROPE_SECTIONS], int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    if (sections == NULL && (mode & GGML_ROPE_TYPE_MROPE)) {
        GGML_LOG_ERROR("%s: argument 'sections' is NULL\n", __func__);
        return NULL;
    }
    return ggml_ops_rope_impl(__func__, ctx, a, b, c, n_dims, sections, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, true);
}

struct ggml_tensor * ggml_rope_custom(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int n_dims, int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return ggml_ops_rope_impl(__func__, ctx, a, b, NULL, n_dims, NULL, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, false);
}

struct ggml_tensor * ggml_rope_custom_inplace(
        struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
        int n_dims, int mode, int n_ctx_orig,
        float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow) {
    return ggml_ops_rope_impl(__func__, ctx, a, b, NULL, n_dims, NULL, mode, n_ctx_orig,
            freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow, true);
}

struct ggml_tensor * ggml_rope_set_offset(struct ggml_tensor * a, int n_offs) {
    GGML_OPS_CHECK_ARG(a);
    GGML_OPS_CHECK(a->op == GGML_OP_ROPE || a->op == GGML_OP_ROPE_BACK,
            "node is %s, not ROPE or ROPE_BACK", ggml_op_name(a->op));
    const int n_dims = ggml_get_op_params_i32(a, 1);
    const int mode   = ggml_get_op_params_i32(a, 2);
    GGML_OPS_CHECK(mode != GGML_ROPE_TYPE_VISION, "the VISION mode has no offset");
    GGML_OPS_CHECK(n_offs >= 0 && n_offs % 2 == 0 && (int64_t) n_offs + n_dims <= a->ne[0],
            "offset %d must be even, >= 0 and leave n_dims = %d within rows of %lld",
            n_offs, n_dims, (long long) a->ne[0]);
    ggml_set_op_params_i32(a, 15, n_offs);
    return a;
}

// YaRN: the dimension at which a rotation of n_rot full turns spans the original context.
static float ggml_ops_yarn_corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base) {
    return n_dims * logf(n_ctx_orig / (n_rot * 2 * GGML_OPS_PI_F)) / (2 * logf(base));
}

void ggml_rope_yarn_corr_dims(int n_dims, int n_ctx_orig, float freq_base, float beta_fast, float beta_slow, float dims[2]) {
    if (dims == NULL) {
        GGML_LOG_ERROR("%s: argument 'dims' is NULL\n", __func__);
        return;
    }
    const float start = floorf(ggml_ops_yarn_corr_dim(n_dims, n_ctx_orig, beta_fast, freq_base));
    const float end   = ceilf (ggml_ops_yarn_corr_dim(n_dims, n_ctx_orig, beta_slow, freq_base));
    dims[0] = MAX(0.0f, start);
    dims[1] = MIN((float) (n_dims - 1), end);
}

//
// flash attention
//

struct ggml_tensor * ggml_flash_attn_ext(
        struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k, struct ggml_tensor * v,
        struct ggml_tensor * mask, float scale, float max_bias, float logit_softcap) {
    GGML_OPS_CHECK_ARG(ctx);
    GGML_OPS_CHECK_ARG(q);
    GGML_OPS_CHECK_ARG(k);
    GGML_OPS_CHECK_ARG(v);
    GGML_OPS_CHECK(k->ne[0] == q->ne[0] && ggml_ops_multiple(q->ne[2], k->ne[2]) && q->ne[3] == k->ne[3],
            "q " GGML_OPS_NE_FMT " and k " GGML_OPS_NE_FMT " do not match: need equal ne[0] and ne[3],"
            " and q's head count a multiple of k's", GGML_OPS_NE_ARGS(q), GGML_OPS_NE_ARGS(k));
    GGML_OPS_CHECK(v->ne[1] == k->ne[1] && v->ne[2] == k->ne[2] && v->ne[3] == q->ne[3],
            "v " GGML_OPS_NE_FMT " does not match k " GGML_OPS_NE_FMT ": need the same n_kv, kv heads and ne[3]",
            GGML_OPS_NE_ARGS(v), GGML_OPS_NE_ARGS(k));
    if (mask != NULL) {
        GGML_OPS_CHECK(mask->type == GGML_TYPE_F16 || mask->type == GGML_TYPE_F32,
                "mask type %s is neither F16 nor F32", ggml_type_name(mask->type));
        GGML_OPS_CHECK(ggml_is_contiguous(mask), "mask " GGML_OPS_NE_FMT " is not contiguous", GGML_OPS_NE_ARGS(mask));
        GGML_OPS_CHECK(mask->ne[0] == k->ne[1] && mask->ne[1] >= q->ne[1] &&
                ggml_ops_multiple(q->ne[2], mask->ne[2]) && ggml_ops_multiple(q->ne[3], mask->ne[3]),
                "mask " GGML_OPS_NE_FMT " does not fit q " GGML_OPS_NE_FMT " and k " GGML_OPS_NE_FMT ": need ne[0] == n_kv,"
                " ne[1] >= n_batch, and q->ne[2], q->ne[3] multiples of mask->ne[2], mask->ne[3]",
                GGML_OPS_NE_ARGS(mask), GGML_OPS_NE_ARGS(q), GGML_OPS_NE_ARGS(k));
    }
    GGML_OPS_CHECK(!(max_bias > 0.0f) || mask != NULL, "max_bias = %g (ALiBi) needs a mask", (double) max_bias);

    // the result is permuted: [n_embd_v, n_head, n_batch, ne3]
    struct ggml_tensor * result = ggml_ops_new_4d(__func__, ctx, GGML_TYPE_F32, v->ne[0], q->ne[2], q->ne[1], q->ne[3]);
    if (result == NULL) {
        return NULL;
    }
    ggml_set_op_params_f32(result, 0, scale);
    ggml_set_op_params_f32(result, 1, max_bias);
    ggml_set_op_params_f32(result, 2, logit_softcap);
    ggml_set_op_params_i32(result, 3, (int32_t) GGML_PREC_DEFAULT);
    ggml_ops_node(result, GGML_OP_FLASH_ATTN_EXT, q, k, v);
    result->src[3] = mask;
    return result;
}

void ggml_flash_attn_ext_set_prec(struct ggml_tensor * a, enum ggml_prec prec) {
    if (a == NULL) {
        GGML_LOG_ERROR("%s: argument 'a' is NULL\n", __func__);
        return;
    }
    if (a->op != GGML_OP_FLASH_ATTN_EXT) {
        GGML_LOG_ERROR("%s: node is %s, not FLASH_ATTN_EXT\n", __func__, ggml_op_name(a->op));
        return;
    }
    if (prec != GGML_PREC_DEFAULT && prec != GGML_PREC_F32) {
        GGML_LOG_ERROR("%s: unknown precision %d\n", __func__, (int) prec);
        return;
    }
    ggml_set_op_params_i32(a, 3, (int32_t) prec);
}

enum ggml_prec ggml_flash_attn_ext_get_prec(const struct ggml_tensor * a) {
    if (a == NULL || a->op != GGML_OP_FLASH_ATTN_EXT) {
        GGML_LOG_ERROR("%s: %s\n", __func__, a == NULL ? "argument 'a' is NULL" : "node is not FLASH_ATTN_EXT");
        return GGML_PREC_DEFAULT;
    }
    return (enum ggml_prec) ggml_get_op_params_i32(a, 3);
}

void ggml_flash_attn_ext_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks) {
    ggml_ops_add_sinks(__func__, a, sinks, GGML_OP_FLASH_ATTN_EXT, 4, 0);
}
