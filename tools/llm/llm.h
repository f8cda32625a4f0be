// ggml-llm: a llama-architecture model runner built on the public ggml API (not part of libggml).
// One concern per file: llm-model.c (loading), llm-kv-cache.c, llm-graph.c, llm-context.c
// (evaluation), llm-tokenizer.c, llm-sampler.c, llm-chat.c, main.c (the CLI). See docs/llm.md.
#pragma once

#include "ggml.h"
#include "ggml-backend.h"
#include "gguf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LLM_MAX_LAYERS 256

// prints "error: WHAT[: the library's last error message]" on one line to stderr
void llm_print_error(const char * what);

struct llm_hparams {
    uint32_t n_vocab, n_ctx_train, n_embd, n_layer, n_head, n_head_kv, n_ff, n_rot;
    float    norm_eps, rope_base;
};

struct llm_layer {
    struct ggml_tensor * attn_norm, * wq, * wk, * wv, * wo;
    struct ggml_tensor * bq, * bk, * bv;       // optional (Qwen2-style biases)
    struct ggml_tensor * ffn_norm, * ffn_gate, * ffn_up, * ffn_down;
    // fused at load time (llm-fuse.c), NULL when not: wqkv = [wq; wk; wv] rows (bqkv the biases
    // likewise), ffn_gate_up = [ffn_gate; ffn_up] rows; the parts above then lie inside them
    struct ggml_tensor * wqkv, * bqkv, * ffn_gate_up;
};

struct llm_model {
    struct llm_hparams hp;
    struct gguf_context * gguf;
    struct ggml_context * ctx_w;           // the weights (metadata from the file)
    ggml_backend_buffer_t buf_w;
    struct ggml_tensor * tok_embd, * out_norm, * output; // output == tok_embd when tied
    struct llm_layer layers[LLM_MAX_LAYERS];
    struct ggml_context * ctx_fused;       // the fused weights (NULL when none)
    ggml_backend_buffer_t buf_fused;
};

// loads the model's hyperparameters and weights into a buffer of buft (WEIGHTS usage); NULL and
// one logged line on any error (missing file, corrupt file, unknown architecture, missing key)
struct llm_model * llm_model_load(const char * fname, ggml_backend_buffer_type_t buft);
// the same on dev's buffer type, with Q/K/V and gate/up fused into one weight each where the
// device computes the fused graph (llm-fuse.c) and fuse is true
struct llm_model * llm_model_load_ext(const char * fname, ggml_backend_dev_t dev, bool fuse);
void               llm_model_free(struct llm_model * model);

// llm-fuse.c: plans the fused weights of m (bound, not yet allocated) for dev: every layer whose
// Q/K/V (gate/up) have one type and row length gets wqkv (ffn_gate_up), in m->ctx_fused; false
// (logged) on out of memory. No fusion on a meta device (its row splits would mix heads and the
// gate/up halves) nor where dev refuses an op of the fused graph.
bool llm_fuse_plan(struct llm_model * m, ggml_backend_dev_t dev);
// allocates the fused weights in a buffer of buft (WEIGHTS usage) and places the parts inside
// them, so that loading the parts fills the fused weights; false (logged) on failure
bool llm_fuse_place(struct llm_model * m, ggml_backend_buffer_type_t buft);
// whether fusion is asked for: false when the environment sets GGML_LLM_FUSE=0
bool llm_fuse_enabled(void);

struct llm_kv_cache {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor *  k[LLM_MAX_LAYERS], * v[LLM_MAX_LAYERS]; // [n_embd_kv, n_ctx]
    uint32_t n_ctx;
};

bool llm_kv_cache_init(struct llm_kv_cache * kv, const struct llm_hparams * hp, uint32_t n_ctx,
                       enum ggml_type type, ggml_backend_buffer_type_t buft);
void llm_kv_cache_free(struct llm_kv_cache * kv);

// the graph of n_tokens tokens at positions n_past..n_past+n_tokens-1; the inputs are named
// "inp_tokens" (I32 [n_tokens]) and "inp_pos" (I32 [n_tokens]); the output "logits" holds
// [n_vocab, all ? n_tokens : 1]
// With flash_attn the attention is one flash_attn_ext per layer and the graph has one more input,
// "inp_mask" (F16 [n_past + n_tokens, n_tokens]: 0 where a token may attend, -inf elsewhere).
struct ggml_cgraph * llm_build_graph(struct ggml_context * ctx, const struct llm_model * model,
                                     const struct llm_kv_cache * kv, int n_tokens, int n_past, bool all_logits,
                                     bool flash_attn);
// The same attending over the first n_kv >= n_past + n_tokens cache positions (the mask hides
// those after each token). With kv_by_rows (flash_attn only) the new K and V rows go to the
// positions in the input "inp_kv_rows" (I64 [n_tokens]) by set_rows, so that the graph depends on
// n_kv alone and one-token graphs are reused from position to position.
struct ggml_cgraph * llm_build_graph_ext(struct ggml_context * ctx, const struct llm_model * model,
                                         const struct llm_kv_cache * kv, int n_tokens, int n_past, int n_kv,
                                         bool all_logits, bool flash_attn, bool kv_by_rows);

struct llm_context {
    struct llm_model *   model;
    struct llm_kv_cache  kv;
    ggml_backend_t       backends[2];
    int                  n_backends;
    ggml_backend_sched_t sched;
    void *               graph_mem;
    size_t               graph_mem_size;
    int                  n_past, n_batch;
    bool                 flash_attn;
    float *              logits;        // [n_vocab * n_logits] of the last evaluation
    // the one-token graph kept for the next tokens (flash attention with set_rows): it attends over
    // tok_n_kv positions, lives in tok_ctx (on graph_mem) and stays allocated in the scheduler
    bool                  kv_by_rows;    // the device computes SET_ROWS into the cache
    struct ggml_context * tok_ctx;
    struct ggml_cgraph *  tok_graph;
    int                   tok_n_kv;
    struct llm_graph_io { // a graph's inputs and output, looked up by name once
        struct ggml_tensor * tokens, * pos, * kv_rows, * mask, * logits;
    } tok_io;
};

// forgets the kept one-token graph (before graph_mem or the scheduler are used for another graph)
void llm_context_drop_token_graph(struct llm_context * lctx);

// a device by name (CPU, OpenCL0, ...), or "meta:DEV1,DEV2[,...]": a meta device over those
// devices with the model split tensor-parallel by tensor name (llm-meta.c); NULL when unknown
ggml_backend_dev_t llm_device_by_name(const char * name);

// device: a device name as for llm_device_by_name; NULL and one logged line when unknown
struct llm_context * llm_context_new(const char * fname, const char * device, int n_threads,
                                     uint32_t n_ctx, int n_batch);
// the same with the KV cache's type chosen (F16 by default; F32 for the tests' reference checks)
// and flash attention: 1 on, 0 off, -1 (the default) where the device supports flash_attn_ext
struct llm_context * llm_context_new_ext(const char * fname, const char * device, int n_threads,
                                         uint32_t n_ctx, int n_batch, enum ggml_type kv_type, int flash_attn);
// the same choosing the fused Q/K/V and gate/up weights: 1 where the device allows, 0 never,
// -1 (the default of the others) unless GGML_LLM_FUSE=0
struct llm_context * llm_context_new_fuse(const char * fname, const char * device, int n_threads,
                                          uint32_t n_ctx, int n_batch, enum ggml_type kv_type, int flash_attn,
                                          int fuse);
void                 llm_context_free(struct llm_context * lctx);
// evaluates tokens (in batches of n_batch) after the cache; the logits of the last token (or of
// every token when all_logits) are in lctx->logits
bool llm_eval(struct llm_context * lctx, const int32_t * tokens, int n_tokens, bool all_logits);

// --verbose (llm-report.c): the device table; the model's shape, where each layer's weights and KV
// cache went and how the scheduler places a one-token graph
void llm_print_devices(FILE * f);
void llm_print_placement(FILE * f, struct llm_context * lctx);

// tokenizer (byte-level BPE)
struct llm_vocab;
struct llm_vocab * llm_vocab_load(const struct gguf_context * gguf);
void               llm_vocab_free(struct llm_vocab * vocab);
// tokens of text (special tokens written as text are parsed when parse_special); returns the
// count, or -1 when it exceeds max
int                llm_tokenize(const struct llm_vocab * vocab, const char * text, bool parse_special,
                                int32_t * out, int max);
// the bytes of one token (for byte-level BPE, the token's characters mapped back to bytes)
int                llm_token_to_bytes(const struct llm_vocab * vocab, int32_t token, char * out, int max);
int32_t            llm_vocab_eos(const struct llm_vocab * vocab);
int32_t            llm_vocab_bos(const struct llm_vocab * vocab);   // -1 when none / not added
int                llm_vocab_size(const struct llm_vocab * vocab);

// sampling
struct llm_sampler_params {
    float    temp, top_p, min_p, repeat_penalty;
    int      top_k, repeat_last_n;
    uint64_t seed;
};
struct llm_sampler;
struct llm_sampler * llm_sampler_new(struct llm_sampler_params p, int n_vocab);
void                 llm_sampler_free(struct llm_sampler * s);
int32_t              llm_sample(struct llm_sampler * s, const float * logits, const int32_t * history, int n_history);

// chat template (ChatML): the prompt text for one user message, the assistant's turn opened
char * llm_chat_apply(const char * user_message);
