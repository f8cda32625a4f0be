// The KV cache: per layer, K and V rows of n_embd_kv values for n_ctx positions, in the device's
// memory (F16 by default).
#include "llm.h"
#include "ggml-alloc.h"

#include <stdio.h>
#include <string.h>

bool llm_kv_cache_init(struct llm_kv_cache * kv, const struct llm_hparams * hp, uint32_t n_ctx,
                       enum ggml_type type, ggml_backend_buffer_type_t buft) {
    memset(kv, 0, sizeof(*kv));
    kv->n_ctx = n_ctx;
    struct ggml_init_params ip = {
        .mem_size = ggml_tensor_overhead() * 2 * hp->n_layer + 1024, .mem_buffer = NULL, .no_alloc = true,
    };
    kv->ctx = ggml_init(ip);
    if (!kv->ctx) {
        fprintf(stderr, "error: out of memory for the KV cache\n");
        return false;
    }
    const int64_t n_embd_kv = (int64_t) hp->n_embd / hp->n_head * hp->n_head_kv;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        kv->k[il] = ggml_new_tensor_2d(kv->ctx, type, n_embd_kv, n_ctx);
        kv->v[il] = ggml_new_tensor_2d(kv->ctx, type, n_embd_kv, n_ctx);
        if (!kv->k[il] || !kv->v[il]) {
            llm_kv_cache_free(kv);
            return false;
        }
        ggml_format_name(kv->k[il], "cache_k_l%u", il);
        ggml_format_name(kv->v[il], "cache_v_l%u", il);
    }
    kv->buf = ggml_backend_alloc_ctx_tensors_from_buft(kv->ctx, buft);
    if (!kv->buf) {
        fprintf(stderr, "error: cannot allocate the KV cache (%u positions)\n", n_ctx);
        llm_kv_cache_free(kv);
        return false;
    }
    ggml_backend_buffer_clear(kv->buf, 0);
    return true;
}

void llm_kv_cache_free(struct llm_kv_cache * kv) {
    ggml_backend_buffer_free(kv->buf);
    ggml_free(kv->ctx);
    memset(kv, 0, sizeof(*kv));
}
