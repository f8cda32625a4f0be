// libFuzzer target for the backend loader: the input is written to a file named libggml-fuzz.so
// and given to ggml_backend_load, and it is used as a path (inside a scratch directory) for
// ggml_backend_load and ggml_backend_load_all_from_path. Nothing may crash, leak or register a
// backend.
//
// A bare name (no '/') is never tried: dlopen would search the system's library directories.
// Inputs that start with the ELF magic are not loaded: a corrupted ELF file is parsed (and its
// constructors run) by the system's dynamic loader before the library sees anything, so what it
// does is the dynamic loader's business. tests/test-backend-reg.c loads real broken modules.

#define _POSIX_C_SOURCE 200809L // mkdtemp

#include "ggml-backend.h"
#include "ggml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

static char g_dir[256];

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) text;
    (void) user_data;
}

static void remove_scratch_dir(void) {
    if (g_dir[0] != '\0') {
        rmdir(g_dir);
    }
}

static bool scratch_dir(void) {
    if (g_dir[0] != '\0') {
        return true;
    }
    const char * tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof(g_dir), "%s/ggml-fuzz-load-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(g_dir) == NULL) {
        g_dir[0] = '\0';
        return false;
    }
    atexit(remove_scratch_dir);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (!scratch_dir()) {
        abort();
    }
    ggml_log_set(quiet_log, NULL);
    const size_t n_reg = ggml_backend_reg_count();

    // 1. the bytes as a module file
    const bool elf = size >= 4 && memcmp(data, "\x7f" "ELF", 4) == 0;
    char path[512];
    snprintf(path, sizeof(path), "%s/libggml-fuzz.so", g_dir);
    if (!elf) {
        FILE * f = fopen(path, "wb");
        if (f != NULL) {
            fwrite(data, 1, size, f);
            fclose(f);
            ggml_backend_reg_t reg = ggml_backend_load(path);
            if (reg != NULL) {
                fprintf(stderr, "FINDING: a file that is not a shared library was loaded as a backend\n");
                abort();
            }
            // the directory now holds one libggml-*.so that is not a library
            ggml_backend_load_all_from_path(g_dir);
            unlink(path);
        }
    }

    // 2. the bytes as a path inside the scratch directory (relative parts, long names, odd bytes)
    char name[4096 + 512];
    size_t n = size < 4096 ? size : 4096;
    int len = snprintf(name, sizeof(name), "%s/", g_dir);
    memcpy(name + len, data, n);
    name[len + n] = '\0';
    if (strstr(name + len, "..") == NULL) { // stay inside the scratch directory
        ggml_backend_reg_t reg = ggml_backend_load(name);
        if (reg != NULL) {
            ggml_backend_unload(reg);
        }
        ggml_backend_load_all_from_path(name);
    }
    if (ggml_backend_reg_count() != n_reg) {
        fprintf(stderr, "FINDING: the registry changed from %zu to %zu backends\n", n_reg, ggml_backend_reg_count());
        abort();
    }
    ggml_log_set(NULL, NULL);
    return 0;
}
