// Writes a tiny random-weight llama GGUF with our own GGUF writer, for the runner's tests:
//   gen-tiny-llama OUT.gguf [f32|f16|q4_1] [arch]
// 2 blocks, 64 dims, 4 heads with 2 KV heads, FFN 96, context 128, a byte-level BPE vocabulary
// (3 special tokens, the 256 byte tokens, a few merges), untied output. The matrices are F32, F16
// or Q4_1 (the first argument); norms and embeddings F32. Deterministic (fixed seed).
#include "ggml.h"
#include "gguf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char * dup_n(const char * s, size_t n) {   // strndup is not C11
    char * d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}


int llm_byte_char(uint8_t b, char out[4]);

enum { N_LAYER = 2, N_EMBD = 64, N_HEAD = 4, N_HEAD_KV = 2, N_FF = 96, N_CTX = 128 };

static uint64_t rng = 0x1234567887654321ull;
static float uniform(void) {   // [-1, 1)
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float) ((rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

static struct ggml_tensor * add(struct ggml_context * ctx, struct gguf_context * g, enum ggml_type type,
                                const char * name, int64_t ne0, int64_t ne1, float scale, float offset) {
    struct ggml_tensor * t = ne1 > 0 ? ggml_new_tensor_2d(ctx, type, ne0, ne1) : ggml_new_tensor_1d(ctx, type, ne0);
    if (!t) return NULL;
    ggml_set_name(t, name);
    int64_t n = ggml_nelements(t);
    float * q = type == GGML_TYPE_Q4_1 ? malloc(sizeof(float) * (size_t) n) : NULL;   // quantized at the end
    if (type == GGML_TYPE_Q4_1 && !q) return NULL;
    for (int64_t i = 0; i < n; i++) {
        float v = offset + scale * uniform();
        if (q) q[i] = v;
        else if (type == GGML_TYPE_F16) ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(v);
        else ((float *) t->data)[i] = v;
    }
    if (q) {
        ggml_quantize_chunk(type, q, t->data, 0, ggml_nrows(t), t->ne[0], NULL);
        free(q);
    }
    gguf_add_tensor(g, t);
    return t;
}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: gen-tiny-llama OUT.gguf [f32|f16|q4_1] [arch]\n");
        return 1;
    }
    enum ggml_type wt = argc > 2 && strcmp(argv[2], "f16") == 0 ? GGML_TYPE_F16 :
                        argc > 2 && strcmp(argv[2], "q4_1") == 0 ? GGML_TYPE_Q4_1 : GGML_TYPE_F32;
    const char * arch = argc > 3 ? argv[3] : "llama";

    // vocabulary: specials, bytes, merges
    static const char * merges[] = { "Ġ t", "h e", "Ġt he", "i n", "Ġ a", "e r", "o n", "Ġ s", "r e", "a n", "Ġ w", "o r" };
    const int n_merges = (int) (sizeof(merges) / sizeof(merges[0]));
    const int n_vocab = 3 + 256 + n_merges;
    char ** tok = calloc((size_t) n_vocab, sizeof(char *));
    int32_t * types = calloc((size_t) n_vocab, sizeof(int32_t));
    if (!tok || !types) return 1;
    const char * specials[] = { "<|endoftext|>", "<|im_start|>", "<|im_end|>" };
    for (int i = 0; i < 3; i++) { tok[i] = dup_n(specials[i], strlen(specials[i])); types[i] = 3; }
    for (int b = 0; b < 256; b++) {
        tok[3 + b] = calloc(5, 1);
        if (!tok[3 + b]) return 1;
        llm_byte_char((uint8_t) b, tok[3 + b]);
        types[3 + b] = 1;
    }
    for (int i = 0; i < n_merges; i++) {
        char * m = dup_n(merges[i], strlen(merges[i]));
        if (!m) return 1;
        char * sp = strchr(m, ' ');
        memmove(sp, sp + 1, strlen(sp));
        tok[3 + 256 + i] = m;
        types[3 + 256 + i] = 1;
    }

    struct gguf_context * g = gguf_init_empty();
    char key[128];
    gguf_set_val_str(g, "general.architecture", arch);
    gguf_set_val_str(g, "general.name", "tiny random llama (tests)");
#define KEY(name) (snprintf(key, sizeof(key), "%s.%s", arch, name), key)
    gguf_set_val_u32(g, KEY("context_length"), N_CTX);
    gguf_set_val_u32(g, KEY("embedding_length"), N_EMBD);
    gguf_set_val_u32(g, KEY("block_count"), N_LAYER);
    gguf_set_val_u32(g, KEY("feed_forward_length"), N_FF);
    gguf_set_val_u32(g, KEY("attention.head_count"), N_HEAD);
    gguf_set_val_u32(g, KEY("attention.head_count_kv"), N_HEAD_KV);
    gguf_set_val_f32(g, KEY("attention.layer_norm_rms_epsilon"), 1e-5f);
    gguf_set_val_f32(g, KEY("rope.freq_base"), 10000.0f);
    gguf_set_val_u32(g, KEY("rope.dimension_count"), N_EMBD / N_HEAD);
    gguf_set_val_str(g, "tokenizer.ggml.model", "gpt2");
    gguf_set_val_str(g, "tokenizer.ggml.pre", "smollm");
    gguf_set_arr_str(g, "tokenizer.ggml.tokens", (const char **) tok, (size_t) n_vocab);
    gguf_set_arr_data(g, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, (size_t) n_vocab);
    gguf_set_arr_str(g, "tokenizer.ggml.merges", merges, (size_t) n_merges);
    gguf_set_val_u32(g, "tokenizer.ggml.eos_token_id", 0);
    gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", 0);

    const int64_t hd = N_EMBD / N_HEAD, n_embd_kv = hd * N_HEAD_KV;
    struct ggml_init_params ip = { .mem_size = 8u << 20, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!ctx) return 1;
    const float s = 0.3f;
    bool ok = add(ctx, g, GGML_TYPE_F32, "token_embd.weight", N_EMBD, n_vocab, 1.0f, 0.0f) &&
              add(ctx, g, GGML_TYPE_F32, "output_norm.weight", N_EMBD, 0, 0.2f, 1.0f) &&
              add(ctx, g, wt, "output.weight", N_EMBD, n_vocab, s, 0.0f);
    for (int il = 0; il < N_LAYER && ok; il++) {
        char name[GGML_MAX_NAME];
#define W(type, fmt, ne0, ne1, sc, off) (snprintf(name, sizeof(name), fmt, il), add(ctx, g, type, name, ne0, ne1, sc, off) != NULL)
        ok = W(GGML_TYPE_F32, "blk.%d.attn_norm.weight", N_EMBD, 0, 0.2f, 1.0f) &&
             W(wt, "blk.%d.attn_q.weight", N_EMBD, N_EMBD, s, 0.0f) &&
             W(wt, "blk.%d.attn_k.weight", N_EMBD, n_embd_kv, s, 0.0f) &&
             W(wt, "blk.%d.attn_v.weight", N_EMBD, n_embd_kv, s, 0.0f) &&
             W(wt, "blk.%d.attn_output.weight", N_EMBD, N_EMBD, s, 0.0f) &&
             W(GGML_TYPE_F32, "blk.%d.ffn_norm.weight", N_EMBD, 0, 0.2f, 1.0f) &&
             W(wt, "blk.%d.ffn_gate.weight", N_EMBD, N_FF, s, 0.0f) &&
             W(wt, "blk.%d.ffn_up.weight", N_EMBD, N_FF, s, 0.0f) &&
             W(wt, "blk.%d.ffn_down.weight", N_FF, N_EMBD, s, 0.0f);
        if (ok && strcmp(arch, "qwen2") == 0) {
            ok = W(GGML_TYPE_F32, "blk.%d.attn_q.bias", N_EMBD, 0, 0.1f, 0.0f) &&
                 W(GGML_TYPE_F32, "blk.%d.attn_k.bias", n_embd_kv, 0, 0.1f, 0.0f) &&
                 W(GGML_TYPE_F32, "blk.%d.attn_v.bias", n_embd_kv, 0, 0.1f, 0.0f);
        }
#undef W
    }
    ok = ok && gguf_write_to_file(g, argv[1], false);
    if (!ok) fprintf(stderr, "error: cannot write %s\n", argv[1]);
    gguf_free(g);
    ggml_free(ctx);
    for (int i = 0; i < n_vocab; i++) free(tok[i]);
    free(tok);
    free(types);
    return ok ? 0 : 1;
}
