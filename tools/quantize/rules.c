// Which type each tensor gets, following the family's rules (llama.cpp's quantize): only the
// weight matrices are quantized; the output (and tied embedding) matrix keeps 6 bits; attn_v and
// ffn_down get more bits in some layers for the _M and _L mixes; row lengths that do not fit
// the block size fall back to a type that fits.

#include "quantize.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct ftype_info FTYPES[] = {
    { "F32",       FTYPE_ALL_F32,   GGML_TYPE_F32,    "no quantization: 32-bit floats" },
    { "F16",       FTYPE_F16,       GGML_TYPE_F16,    "16-bit floats" },
    { "BF16",      FTYPE_BF16,      GGML_TYPE_BF16,   "bfloat16" },
    { "Q4_0",      FTYPE_Q4_0,      GGML_TYPE_Q4_0,   "4.5 bits per weight" },
    { "Q4_1",      FTYPE_Q4_1,      GGML_TYPE_Q4_1,   "5.0 bpw" },
    { "Q5_0",      FTYPE_Q5_0,      GGML_TYPE_Q5_0,   "5.5 bpw" },
    { "Q5_1",      FTYPE_Q5_1,      GGML_TYPE_Q5_1,   "6.0 bpw" },
    { "Q8_0",      FTYPE_Q8_0,      GGML_TYPE_Q8_0,   "8.5 bpw" },
    { "Q2_K",      FTYPE_Q2_K,      GGML_TYPE_Q2_K,   "Q2_K, attn_v Q3/4_K, ffn_down and attn_output Q3_K" },
    { "Q2_K_S",    FTYPE_Q2_K_S,    GGML_TYPE_Q2_K,   "Q2_K, first ffn_down layers Q4_K" },
    { "Q3_K_S",    FTYPE_Q3_K_S,    GGML_TYPE_Q3_K,   "Q3_K everywhere" },
    { "Q3_K_M",    FTYPE_Q3_K_M,    GGML_TYPE_Q3_K,   "Q3_K, attn_v Q4/5_K, ffn_down Q4/5_K, attn_output Q4_K" },
    { "Q3_K_L",    FTYPE_Q3_K_L,    GGML_TYPE_Q3_K,   "Q3_K, attn_v, ffn_down and attn_output Q5_K" },
    { "Q4_K_S",    FTYPE_Q4_K_S,    GGML_TYPE_Q4_K,   "Q4_K, first attn_v and ffn_down layers Q5_K" },
    { "Q4_K_M",    FTYPE_Q4_K_M,    GGML_TYPE_Q4_K,   "Q4_K, half of attn_v and ffn_down Q6_K" },
    { "Q5_K_S",    FTYPE_Q5_K_S,    GGML_TYPE_Q5_K,   "Q5_K everywhere" },
    { "Q5_K_M",    FTYPE_Q5_K_M,    GGML_TYPE_Q5_K,   "Q5_K, half of attn_v and ffn_down Q6_K" },
    { "Q6_K",      FTYPE_Q6_K,      GGML_TYPE_Q6_K,   "6.56 bpw" },
    { "IQ4_NL",    FTYPE_IQ4_NL,    GGML_TYPE_IQ4_NL, "4.5 bpw, non-linear" },
    { "IQ4_XS",    FTYPE_IQ4_XS,    GGML_TYPE_IQ4_XS, "4.25 bpw, non-linear" },
    { "TQ1_0",     FTYPE_TQ1_0,     GGML_TYPE_TQ1_0,  "1.69 bpw ternary" },
    { "TQ2_0",     FTYPE_TQ2_0,     GGML_TYPE_TQ2_0,  "2.06 bpw ternary" },
    { "MXFP4_MOE", FTYPE_MXFP4_MOE, GGML_TYPE_MXFP4,  "MXFP4 experts, Q8_0 elsewhere" },
};

const struct ftype_info * ftype_by_name(const char * name) {
    for (size_t i = 0; i < sizeof(FTYPES) / sizeof(FTYPES[0]); i++) {
        if (strcasecmp(name, FTYPES[i].name) == 0) {
            return &FTYPES[i];
        }
    }
    return NULL;
}

void ftype_print_all(void) {
    for (size_t i = 0; i < sizeof(FTYPES) / sizeof(FTYPES[0]); i++) {
        fprintf(stderr, "  %-10s %s\n", FTYPES[i].name, FTYPES[i].description);
    }
}

enum category { CAT_TOKEN_EMBD, CAT_OUTPUT, CAT_ATTN_V, CAT_ATTN_K, CAT_ATTN_OUTPUT, CAT_FFN_DOWN, CAT_OTHER };

static enum category categorize(const char * name) {
    if (strcmp(name, "output.weight") == 0) return CAT_OUTPUT;
    if (strcmp(name, "token_embd.weight") == 0 || strcmp(name, "per_layer_token_embd.weight") == 0) return CAT_TOKEN_EMBD;
    // the fused and low-rank forms count as attn_v: they hold the values too
    if (strstr(name, "attn_qkv.weight") || strstr(name, "attn_kv_b.weight") || strstr(name, "attn_v.weight")) return CAT_ATTN_V;
    if (strstr(name, "attn_k.weight")) return CAT_ATTN_K;
    if (strstr(name, "attn_output.weight")) return CAT_ATTN_OUTPUT;
    if (strstr(name, "ffn_down")) return CAT_FFN_DOWN;
    return CAT_OTHER;
}

static uint32_t arch_u32(const struct gguf_context * g, const char * arch, const char * suffix, uint32_t def) {
    char key[256];
    snprintf(key, sizeof(key), "%s.%s", arch, suffix);
    const int64_t id = gguf_find_key(g, key);
    if (id < 0) {
        return def;
    }
    switch (gguf_get_kv_type(g, id)) {
        case GGUF_TYPE_UINT32: return gguf_get_val_u32(g, id);
        case GGUF_TYPE_INT32:  return (uint32_t) gguf_get_val_i32(g, id);
        case GGUF_TYPE_ARRAY:  // per-layer values: the first
            if (gguf_get_arr_type(g, id) == GGUF_TYPE_UINT32 && gguf_get_arr_n(g, id) > 0) {
                return ((const uint32_t *) gguf_get_arr_data(g, id))[0];
            }
            return def;
        default: return def;
    }
}

void model_info_init(struct model_info * mi, const struct gguf_context * g, bool has_imatrix) {
    memset(mi, 0, sizeof(*mi));
    const int64_t a = gguf_find_key(g, "general.architecture");
    const char * arch = a >= 0 && gguf_get_kv_type(g, a) == GGUF_TYPE_STRING ? gguf_get_val_str(g, a) : "";
    mi->n_head    = (int) arch_u32(g, arch, "attention.head_count", 1);
    mi->n_head_kv = (int) arch_u32(g, arch, "attention.head_count_kv", (uint32_t) mi->n_head);
    mi->n_expert  = (int) arch_u32(g, arch, "expert_count", 0);
    mi->has_imatrix = has_imatrix;
    mi->has_output = gguf_find_tensor(g, "output.weight") >= 0;
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const enum category c = categorize(gguf_get_tensor_name(g, i));
        mi->n_attn_v   += c == CAT_ATTN_V;
        mi->n_ffn_down += c == CAT_FFN_DOWN;
    }
}

static bool ends_with(const char * s, const char * suffix) {
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

// the family quantizes weight matrices only, and not those that are tiny or index-like
static bool allows_quantization(const char * name, int n_dims) {
    if (n_dims < 2 || !ends_with(name, "weight")) {
        return false;
    }
    static const char * const keep[] = {
        "_norm.weight", "ffn_gate_inp.weight", "altup", "laurel", "per_layer_model_proj", "ssm_conv1d",
        "shortconv.conv.weight", "time_mix_", "attn_rel_b.weight", ".position_embd", ".rel_pos", ".patch_embd",
        ".patch_merger",
    };
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
        if (strstr(name, keep[i]) != NULL) {
            return false;
        }
    }
    return strcmp(name, "position_embd.weight") != 0 && strcmp(name, "token_types.weight") != 0;
}

static bool use_more_bits(int i_layer, int n_layers) {
    return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

// the layer of a tensor: its position among the tensors of its category, or (mixtures of
// experts, whose expert tensors are not in layer order) the number in "blk.N."
static int layer_of(const struct model_info * mi, const char * name, int counter) {
    int layer = counter;
    if (mi->n_expert > 1 && sscanf(name, "blk.%d.", &layer) != 1) {
        layer = counter;
    }
    return layer;
}

static enum ggml_type mix_rules(const struct ftype_info * ft, const struct model_info * mi, struct rule_state * rs,
                                const char * name, const int64_t * ne, enum ggml_type t) {
    const enum model_ftype f = ft->ftype;
    const enum category cat = categorize(name);
    const int n_gqa = mi->n_head_kv > 0 ? mi->n_head / mi->n_head_kv : 1;

    if (cat == CAT_OUTPUT || (!mi->has_output && cat == CAT_TOKEN_EMBD)) {
        if (f == FTYPE_MXFP4_MOE || ne[0] % ggml_blck_size(t) != 0) {
            return GGML_TYPE_Q8_0;
        }
        return t != GGML_TYPE_Q8_0 ? GGML_TYPE_Q6_K : t;
    }
    if (f == FTYPE_MXFP4_MOE) {
        return ne[2] > 1 ? GGML_TYPE_MXFP4 : GGML_TYPE_Q8_0;
    }
    if (cat == CAT_TOKEN_EMBD) {
        return f == FTYPE_TQ1_0 || f == FTYPE_TQ2_0 ? GGML_TYPE_Q4_K : t;
    }
    if (cat == CAT_ATTN_V) {
        const int i = rs->i_attn_v++;
        if (f == FTYPE_Q2_K) t = n_gqa >= 4 ? GGML_TYPE_Q4_K : GGML_TYPE_Q3_K;
        else if (f == FTYPE_Q2_K_S && n_gqa >= 4) t = GGML_TYPE_Q4_K;
        else if (f == FTYPE_Q3_K_M) t = i < 2 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
        else if (f == FTYPE_Q3_K_L) t = GGML_TYPE_Q5_K;
        else if ((f == FTYPE_IQ4_NL || f == FTYPE_IQ4_XS) && n_gqa >= 4) t = GGML_TYPE_Q5_K;
        else if ((f == FTYPE_Q4_K_M || f == FTYPE_Q5_K_M) && use_more_bits(i, mi->n_attn_v)) t = GGML_TYPE_Q6_K;
        else if (f == FTYPE_Q4_K_S && i < 4) t = GGML_TYPE_Q5_K;
        if (mi->n_expert == 8) t = GGML_TYPE_Q8_0;
        return t;
    }
    if (cat == CAT_ATTN_K) {
        return mi->n_expert == 8 ? GGML_TYPE_Q8_0 : t;
    }
    if (cat == CAT_FFN_DOWN) {
        const int i = layer_of(mi, name, rs->i_ffn_down++);
        const int n = mi->n_ffn_down;
        if (f == FTYPE_Q2_K) t = GGML_TYPE_Q3_K;
        else if (f == FTYPE_Q2_K_S) { if (i < n / 8) t = GGML_TYPE_Q4_K; }
        else if (f == FTYPE_Q3_K_M) t = i < n / 16 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
        else if (f == FTYPE_Q3_K_L) t = GGML_TYPE_Q5_K;
        else if (f == FTYPE_Q4_K_M) { if (use_more_bits(i, n)) t = GGML_TYPE_Q6_K; }
        else if (i < n / 8 && (f == FTYPE_IQ4_NL || f == FTYPE_IQ4_XS) && !mi->has_imatrix) t = GGML_TYPE_Q5_K;
        else if (f == FTYPE_Q5_K_M && use_more_bits(i, n)) t = GGML_TYPE_Q6_K;
        else if (f == FTYPE_Q4_K_S && i < n / 8) t = GGML_TYPE_Q5_K;
        else if ((f == FTYPE_Q4_0 || f == FTYPE_Q5_0) && mi->has_imatrix && i < n / 8) {
            t = f == FTYPE_Q4_0 ? GGML_TYPE_Q4_1 : GGML_TYPE_Q5_1;
        }
        return t;
    }
    if (cat == CAT_ATTN_OUTPUT) {
        if (mi->n_expert == 8) {
            if (f == FTYPE_Q2_K || f == FTYPE_Q3_K_S || f == FTYPE_Q3_K_M || f == FTYPE_IQ4_NL || f == FTYPE_Q4_K_S ||
                f == FTYPE_Q4_K_M || f == FTYPE_IQ4_XS) {
                t = GGML_TYPE_Q5_K;
            }
        } else if (f == FTYPE_Q2_K) t = GGML_TYPE_Q3_K;
        else if (f == FTYPE_Q3_K_M) t = GGML_TYPE_Q4_K;
        else if (f == FTYPE_Q3_K_L) t = GGML_TYPE_Q5_K;
        return t;
    }
    return t;
}

// a type whose block fits the row length, as the family falls back
static enum ggml_type fallback(struct rule_state * rs, int64_t ncols, enum ggml_type t) {
    if (ncols % ggml_blck_size(t) == 0) {
        return t;
    }
    enum ggml_type r;
    switch (t) {
        case GGML_TYPE_IQ4_XS: r = GGML_TYPE_IQ4_NL; break;
        case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: case GGML_TYPE_TQ1_0: case GGML_TYPE_TQ2_0: r = GGML_TYPE_Q4_0; break;
        case GGML_TYPE_Q4_K: r = GGML_TYPE_Q5_0; break;
        case GGML_TYPE_Q5_K: r = GGML_TYPE_Q5_1; break;
        case GGML_TYPE_Q6_K: r = GGML_TYPE_Q8_0; break;
        default:             r = GGML_TYPE_F16; break;
    }
    if (ncols % ggml_blck_size(r) != 0) {
        r = GGML_TYPE_F16;
    }
    rs->n_fallback++;
    return r;
}

enum ggml_type choose_type(const struct ftype_info * ft, const struct model_info * mi, struct rule_state * rs,
                           const char * name, const int64_t * ne, int n_dims, enum ggml_type src_type, bool pure) {
    if (!allows_quantization(name, n_dims)) {
        return src_type;
    }
    enum ggml_type t = ft->default_type;
    if (!ggml_is_quantized(t)) {
        return t;
    }
    if (!pure) {
        t = mix_rules(ft, mi, rs, name, ne, t);
    }
    return fallback(rs, ne[0], t);
}
