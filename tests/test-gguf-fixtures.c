// GGUF files written by the `gguf` Python package (tests/data/gguf/, made by
// scripts/gen-gguf-fixtures.py) read equal to what the package reads (the .expected texts), through
// every entry point (file, FILE *, buffer, callback with small chunks); and a read-then-write
// round trip gives back the input byte for byte.

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"
#include "test-gguf-canon.h"

#include "ggml.h"
#include "gguf.h"

#include <unistd.h>

static const char * const FIXTURES[] = { "kv-all-types", "tensors-align32", "tensors-align64", "nan-f32", "minimal" };

static void data_path(char * out, size_t n, const char * name, const char * ext) {
    // __FILE__ is the absolute path of this source under CMake
    const char * here = __FILE__;
    const char * slash = strrchr(here, '/');
    const int dir_len = slash != NULL ? (int) (slash - here) : 1;
    snprintf(out, n, "%.*s/data/gguf/%s%s", dir_len, slash != NULL ? here : ".", name, ext);
}

struct chunked {
    const unsigned char * data;
    size_t size;
    size_t max_seen;
};

static size_t read_chunk(void * ud, void * out, uint64_t offset, size_t len) {
    struct chunked * c = ud;
    if (len > c->max_seen) {
        c->max_seen = len;
    }
    if (offset >= c->size) {
        return 0;
    }
    const size_t n = c->size - offset < len ? c->size - offset : len;
    memcpy(out, c->data + offset, n);
    return n;
}

static void check_dump(const char * name, const char * how, struct gguf_context * g, struct ggml_context * cd,
                       const char * expected) {
    TEST_CHECK_MSG(g != NULL, "%s: %s: not read", name, how);
    if (g == NULL) {
        return;
    }
    char * got = canon_dump(g, cd);
    const bool same = got != NULL && strcmp(got, expected) == 0;
    TEST_CHECK_MSG(same, "%s: %s: content differs from the gguf package's\n--- ours:\n%s--- package:\n%s",
                   name, how, got != NULL ? got : "(null)", expected);
    free(got);
}

static void test_fixture(const char * name) {
    char path[1024], expected_path[1024];
    data_path(path, sizeof(path), name, ".gguf");
    data_path(expected_path, sizeof(expected_path), name, ".expected");
    size_t file_size = 0, expected_size = 0;
    unsigned char * file = canon_read_file(path, &file_size);
    char * expected = canon_read_file(expected_path, &expected_size);
    TEST_CHECK_MSG(file != NULL && expected != NULL, "%s: fixture missing (%s)", name, path);
    if (file == NULL || expected == NULL) {
        free(file);
        free(expected);
        return;
    }
    char * e = realloc(expected, expected_size + 1);
    expected = e != NULL ? e : expected;
    expected[expected_size] = '\0';

    // from the file name, with the data
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { false, &cd };
    struct gguf_context * g = gguf_init_from_file(path, p);
    check_dump(name, "gguf_init_from_file", g, cd, expected);

    // round trip: the context read, written again, is the same file
    if (g != NULL) {
        char out[64];
        snprintf(out, sizeof(out), "gguf-fixture-%d.gguf", (int) getpid());
        TEST_CHECK(gguf_write_to_file(g, out, false));
        size_t out_size = 0;
        unsigned char * written = canon_read_file(out, &out_size);
        TEST_CHECK_MSG(written != NULL && out_size == file_size && memcmp(written, file, file_size) == 0,
                       "%s: the round trip differs (%zu bytes written, %zu read)", name, out_size, file_size);
        free(written);
        remove(out);
        if (gguf_get_n_tensors(g) > 0) {
            TEST_CHECK_MSG(gguf_get_meta_size(g) == gguf_get_data_offset(g), "%s: meta size %zu, data offset %zu",
                           name, gguf_get_meta_size(g), gguf_get_data_offset(g));
        }
        unsigned char * meta = malloc(gguf_get_meta_size(g));
        if (meta != NULL) {
            gguf_get_meta_data(g, meta);
            TEST_CHECK_MSG(memcmp(meta, file, gguf_get_meta_size(g)) == 0, "%s: gguf_get_meta_data differs", name);
            free(meta);
        }
    }
    gguf_free(g);
    ggml_free(cd);

    // from a FILE * (metadata only)
    FILE * f = fopen(path, "rb");
    TEST_CHECK(f != NULL);
    if (f != NULL) {
        struct gguf_init_params pm = { true, NULL };
        g = gguf_init_from_file_ptr(f, pm);
        TEST_CHECK_MSG(g != NULL, "%s: gguf_init_from_file_ptr", name);
        if (g != NULL) {
            char * a = canon_dump(g, NULL);
            gguf_free(g);
            // the same metadata from the buffer
            g = gguf_init_from_buffer(file, file_size, pm);
            char * b = g != NULL ? canon_dump(g, NULL) : NULL;
            TEST_CHECK_MSG(b != NULL && strcmp(a, b) == 0, "%s: file_ptr and buffer readers differ", name);
            free(a);
            free(b);
            gguf_free(g);
        }
        fclose(f);
    }

    // from a buffer and from a callback limited to 7-byte reads, with the data
    cd = NULL;
    g = gguf_init_from_buffer(file, file_size, p);
    check_dump(name, "gguf_init_from_buffer", g, cd, expected);
    gguf_free(g);
    ggml_free(cd);

    cd = NULL;
    struct chunked c = { file, file_size, 0 };
    g = gguf_init_from_callback(read_chunk, &c, 7, file_size, p);
    check_dump(name, "gguf_init_from_callback", g, cd, expected);
    TEST_CHECK_MSG(c.max_seen <= 7, "%s: the callback was asked for %zu bytes", name, c.max_seen);
    gguf_free(g);
    ggml_free(cd);

    free(file);
    free(expected);
}

int main(void) {
    for (size_t i = 0; i < sizeof(FIXTURES) / sizeof(FIXTURES[0]); i++) {
        test_fixture(FIXTURES[i]);
    }
    return test_finish("test-gguf-fixtures");
}
