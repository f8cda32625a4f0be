// Compatibility program: gguf.h, the GGUF reader/writer of the ggml family (see docs/gguf.md).
//
// How model files are written and read by programs of the family: a gguf context with key/value
// metadata and tensors, written to a file, read back with gguf_init_from_file into a ggml context
// that holds the tensor data, and looked up by key and by tensor name.

#define _POSIX_C_SOURCE 200809L // getpid

#include "ggml.h"
#include "gguf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "gguf-roundtrip:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            n_failed++;                                                            \
        }                                                                          \
    } while (0)

int main(void) {
    char fname[64];
    snprintf(fname, sizeof(fname), "compat-gguf-%d.gguf", (int) getpid());

    // write
    {
        struct ggml_init_params params = { 1024 * 1024, NULL, false };
        struct ggml_context * ctx = ggml_init(params);
        GGML_ASSERT(ctx != NULL);
        struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);
        struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 7);
        ggml_set_name(w, "layer.weight");
        ggml_set_name(b, "layer.bias");
        for (int i = 0; i < 15; i++) ((float *) w->data)[i] = 0.5f * (float) i - 3.0f;
        for (int i = 0; i < 7; i++) ((ggml_fp16_t *) b->data)[i] = ggml_fp32_to_fp16((float) i / 4.0f);

        struct gguf_context * g = gguf_init_empty();
        gguf_set_val_str(g, "general.architecture", "toy");
        gguf_set_val_u32(g, "toy.block_count", 12);
        gguf_set_val_f32(g, "toy.rope.freq_base", 10000.0f);
        gguf_add_tensor(g, w);
        gguf_add_tensor(g, b);
        CHECK(gguf_write_to_file(g, fname, false), "gguf_write_to_file");
        gguf_free(g);
        ggml_free(ctx);
    }

    // read
    struct ggml_context * data_ctx = NULL;
    struct gguf_init_params params = { /*.no_alloc =*/ false, /*.ctx =*/ &data_ctx };
    struct gguf_context * g = gguf_init_from_file(fname, params);
    CHECK(g != NULL && data_ctx != NULL, "gguf_init_from_file");
    if (g != NULL) {
        CHECK(gguf_get_n_kv(g) == 3, "%lld keys", (long long) gguf_get_n_kv(g));
        const int64_t arch = gguf_find_key(g, "general.architecture");
        CHECK(arch >= 0 && strcmp(gguf_get_val_str(g, arch), "toy") == 0, "architecture");
        const int64_t nb = gguf_find_key(g, "toy.block_count");
        CHECK(nb >= 0 && gguf_get_val_u32(g, nb) == 12, "block_count");
        CHECK(gguf_find_key(g, "no.such.key") < 0, "unknown key found");
        CHECK(gguf_get_n_tensors(g) == 2, "%lld tensors", (long long) gguf_get_n_tensors(g));
        const int64_t tb = gguf_find_tensor(g, "layer.bias");
        CHECK(tb >= 0 && gguf_get_tensor_type(g, tb) == GGML_TYPE_F16, "bias tensor");

        struct ggml_tensor * w = ggml_get_tensor(data_ctx, "layer.weight");
        CHECK(w != NULL && w->ne[0] == 5 && w->ne[1] == 3, "weight tensor");
        if (w != NULL) {
            for (int i = 0; i < 15; i++) {
                CHECK(((float *) w->data)[i] == 0.5f * (float) i - 3.0f, "weight[%d]", i);
            }
        }
        struct ggml_tensor * b = ggml_get_tensor(data_ctx, "layer.bias");
        CHECK(b != NULL && ggml_fp16_to_fp32(((ggml_fp16_t *) b->data)[6]) == 1.5f, "bias data");
        gguf_free(g);
    }
    if (data_ctx != NULL) {
        ggml_free(data_ctx);
    }
    remove(fname);

    printf("gguf-roundtrip: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
