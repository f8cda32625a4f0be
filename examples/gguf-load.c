// Loading the weights of a GGUF file, both fast ways (docs/gguf.md):
//   1. map the file and use the tensor data where it lies (CPU, no copy);
//   2. read the data in large chunks into tensors allocated by a backend, with a progress callback.
//
// Usage: gguf-load [FILE.gguf]   (without a file it writes a small one first and checks the values)

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "gguf.h"
#include "gguf-load.h"

#include <stdio.h>
#include <string.h>

static bool show_progress(float progress, void * user_data) {
    int * last_percent = user_data;
    const int percent = (int) (progress * 100.0f);
    if (percent / 25 != *last_percent / 25) {   // a line every 25 %
        printf("  loaded %3d %%\n", percent);
    }
    *last_percent = percent;
    return true;                                  // false would cancel the load
}

// a small model file: one F32 matrix whose element i is i / 4
static bool write_demo_file(const char * fname) {
    struct ggml_init_params ip = { 1 << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (ctx == NULL) {
        return false;
    }
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 16);
    ggml_set_name(w, "demo.weight");
    for (int i = 0; i < 64 * 16; i++) {
        ((float *) w->data)[i] = (float) i / 4.0f;
    }
    struct gguf_context * g = gguf_init_empty();
    gguf_set_val_str(g, "general.architecture", "demo");
    gguf_add_tensor(g, w);
    const bool ok = gguf_write_to_file(g, fname, false);
    gguf_free(g);
    ggml_free(ctx);
    return ok;
}

int main(int argc, char ** argv) {
    const char * fname = argc > 1 ? argv[1] : "gguf-load-demo.gguf";
    if (argc <= 1 && !write_demo_file(fname)) {
        return 1;
    }

    // the metadata, and a ggml context with the tensors but no data (no_alloc)
    struct ggml_context * ctx_map = NULL;
    struct gguf_init_params params = { /*.no_alloc =*/ true, /*.ctx =*/ &ctx_map };
    struct gguf_context * gctx = gguf_init_from_file(fname, params);
    if (gctx == NULL) {
        return 1;
    }
    printf("%s: %lld tensors, data at offset %zu\n", fname, (long long) gguf_get_n_tensors(gctx), gguf_get_data_offset(gctx));

    // 1. mapped: the tensors point into the file's pages, nothing is copied
    struct gguf_file_map * map = gguf_file_map_open(fname);
    ggml_backend_buffer_t buf_map = map != NULL ? gguf_map_tensors(gctx, ctx_map, map) : NULL;
    if (buf_map == NULL) {
        return 1;
    }
    struct ggml_tensor * first = ggml_get_first_tensor(ctx_map);
    printf("mapped: '%s' [%lld x %lld] %s at %p\n", first->name, (long long) first->ne[0],
           (long long) first->ne[1], ggml_type_name(first->type), first->data);

    // 2. chunked: tensors allocated by a backend (here the CPU; a GPU backend the same way)
    ggml_backend_t backend = ggml_backend_cpu_init();
    struct ggml_context * ctx_dev = NULL;
    struct gguf_init_params params_dev = { true, &ctx_dev };
    struct gguf_context * gctx_dev = gguf_init_from_file(fname, params_dev);
    ggml_backend_buffer_t buf_dev = gctx_dev != NULL ? ggml_backend_alloc_ctx_tensors(ctx_dev, backend) : NULL;
    int last_percent = -1;
    const bool loaded = buf_dev != NULL &&
        gguf_load_tensors(gctx_dev, ctx_dev, fname, /*chunk_size =*/ 0, show_progress, &last_percent);

    // both hold the same bytes
    bool same = loaded;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx_dev); same && t != NULL; t = ggml_get_next_tensor(ctx_dev, t)) {
        float v[4];
        ggml_backend_tensor_get(t, v, 0, sizeof(v));
        same = memcmp(v, ggml_get_tensor(ctx_map, t->name)->data, sizeof(v)) == 0;
    }
    if (argc <= 1) {
        same = same && ((float *) first->data)[5] == 1.25f;
    }
    printf("chunked load: %s\n", same ? "same data as the mapping" : "FAILED");

    ggml_backend_buffer_free(buf_dev);   // buffers first, then the contexts and the mapping
    ggml_backend_free(backend);
    ggml_free(ctx_dev);
    gguf_free(gctx_dev);
    ggml_backend_buffer_free(buf_map);
    gguf_file_map_free(map);
    ggml_free(ctx_map);
    gguf_free(gctx);
    if (argc <= 1) {
        remove(fname);
    }
    return same ? 0 : 1;
}
