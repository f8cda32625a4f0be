// libFuzzer target for the GGUF reader: the input is read as a GGUF file from memory (with the
// tensor data and without), through a callback that returns at most 3 bytes per call, and what
// is read is used: every key through its getter, the metadata serialized again, and a file
// read with its data written back and read again. Nothing may crash, leak, hang or abort.

#include "ggml.h"
#include "gguf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) text;
    (void) user_data;
}

struct source {
    const uint8_t * data;
    size_t          size;
};

static size_t read_small(void * userdata, void * output, uint64_t offset, size_t len) {
    const struct source * s = userdata;
    if (offset >= s->size) {
        return 0;
    }
    size_t n = s->size - (size_t) offset;
    n = n < len ? n : len;
    n = n < 3 ? n : 3;
    memcpy(output, s->data + offset, n);
    return n;
}

static void use(const struct gguf_context * g) {
    for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
        const enum gguf_type t = gguf_get_kv_type(g, i);
        (void) gguf_get_key(g, i);
        if (t == GGUF_TYPE_ARRAY) {
            const size_t n = gguf_get_arr_n(g, i);
            if (gguf_get_arr_type(g, i) == GGUF_TYPE_STRING) {
                for (size_t j = 0; j < n; j++) {
                    (void) strlen(gguf_get_arr_str(g, i, j));
                }
            } else {
                (void) gguf_get_arr_data(g, i);
            }
        } else if (t == GGUF_TYPE_STRING) {
            (void) strlen(gguf_get_val_str(g, i));
        } else {
            (void) gguf_get_val_data(g, i);
            (void) gguf_get_val_u32(g, i); // often the wrong type: must log, not abort
        }
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        (void) gguf_get_tensor_ne(g, i);
        (void) gguf_get_tensor_size(g, i);
        (void) gguf_find_tensor(g, gguf_get_tensor_name(g, i));
    }
    const size_t meta = gguf_get_meta_size(g);
    if (meta > 0 && meta < ((size_t) 1 << 24)) {
        void * buf = malloc(meta);
        if (buf != NULL) {
            gguf_get_meta_data(g, buf);
            free(buf);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    ggml_log_set(quiet_log, NULL);

    struct gguf_init_params meta_only = { true, NULL };
    struct gguf_context * g = gguf_init_from_buffer(data, size, meta_only);
    if (g != NULL) {
        use(g);
        gguf_free(g);
    }

    struct source src = { data, size };
    g = gguf_init_from_callback(read_small, &src, 0, size, meta_only);
    gguf_free(g);

    // with the data: the tensors are created and the context can be written out and read again
    struct ggml_context * ctx = NULL;
    struct gguf_init_params with_data = { false, &ctx };
    g = gguf_init_from_buffer(data, size, with_data);
    if (g != NULL) {
        FILE * f = tmpfile();
        if (f != NULL) {
            if (gguf_write_to_file_ptr(g, f, false)) {
                rewind(f);
                struct gguf_context * again = gguf_init_from_file_ptr(f, meta_only);
                if (again != NULL) {
                    use(again);
                    gguf_free(again);
                }
            }
            fclose(f);
        }
        gguf_free(g);
    }
    ggml_free(ctx);
    ggml_log_set(NULL, NULL);
    return 0;
}
