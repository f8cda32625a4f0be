// Files we write read equal with the `gguf` Python package: a file with every key/value type
// (empty strings and arrays, Unicode), alignment 64 and tensors of several types is written by
// gguf.h, then printed by tests/data/gguf/canon-dump.py (the package's GGUFReader) and by our own
// reader; the two texts must be the same. Exit 77 (skipped) when python3 or the package is missing.

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"
#include "test-gguf-canon.h"

#include "ggml.h"
#include "gguf.h"

#include <sys/wait.h>
#include <unistd.h>

static void write_file(const char * fname) {
    struct ggml_init_params ip = { 1 << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct gguf_context * g = gguf_init_empty();
    gguf_set_val_u32(g, GGUF_KEY_GENERAL_ALIGNMENT, 64);
    gguf_set_val_str(g, "general.architecture", "interop");
    gguf_set_val_u8(g, "v.u8", 255);
    gguf_set_val_i8(g, "v.i8", -128);
    gguf_set_val_u16(g, "v.u16", 65535);
    gguf_set_val_i16(g, "v.i16", -32768);
    gguf_set_val_u32(g, "v.u32", 4294967295u);
    gguf_set_val_i32(g, "v.i32", INT32_MIN);
    gguf_set_val_f32(g, "v.f32", -0.1f);
    gguf_set_val_u64(g, "v.u64", UINT64_MAX);
    gguf_set_val_i64(g, "v.i64", INT64_MIN);
    gguf_set_val_f64(g, "v.f64", 6.02214076e23);
    gguf_set_val_bool(g, "v.bool", true);
    gguf_set_val_str(g, "v.str", "Ünïcode ✓ 🚀");
    gguf_set_val_str(g, "v.empty", "");
    gguf_set_val_str(g, "schlüssel.ü", "key in Unicode");
    const float f32[3] = { 1.0f, -2.5f, 1e-20f };
    const bool b[4] = { false, true, true, false };
    const int64_t i64[2] = { -1, INT64_MAX };
    const double f64[2] = { 0.1, -1e-300 };
    const char * strs[3] = { "", "tok", "▁token" };
    gguf_set_arr_data(g, "a.f32", GGUF_TYPE_FLOAT32, f32, 3);
    gguf_set_arr_data(g, "a.bool", GGUF_TYPE_BOOL, b, 4);
    gguf_set_arr_data(g, "a.i64", GGUF_TYPE_INT64, i64, 2);
    gguf_set_arr_data(g, "a.f64", GGUF_TYPE_FLOAT64, f64, 2);
    gguf_set_arr_data(g, "a.empty", GGUF_TYPE_INT16, NULL, 0);
    gguf_set_arr_str(g, "a.str", strs, 3);
    gguf_set_arr_str(g, "a.empty_str", NULL, 0);

    struct ggml_tensor * t0 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);
    struct ggml_tensor * t1 = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 4, 1, 2);
    struct ggml_tensor * t2 = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 64, 2);
    struct ggml_tensor * t3 = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
    ggml_set_name(t0, "token_embd.weight");
    ggml_set_name(t1, "blk.0.f16");
    ggml_set_name(t2, "blk.0.q8_0");
    ggml_set_name(t3, "ids");
    for (int i = 0; i < 15; i++) ((float *) t0->data)[i] = (float) i * 0.75f - 4.0f;
    for (int i = 0; i < 8; i++) ((ggml_fp16_t *) t1->data)[i] = ggml_fp32_to_fp16((float) i - 3.5f);
    for (size_t i = 0; i < ggml_nbytes(t2); i++) ((uint8_t *) t2->data)[i] = (uint8_t) (i * 37 + 11);
    for (size_t i = 0; i < ggml_nbytes(t2); i += 34) {
        ((ggml_fp16_t *) ((uint8_t *) t2->data + i))[0] = ggml_fp32_to_fp16(0.01f * (float) (i + 1));
    }
    for (int i = 0; i < 3; i++) ((int32_t *) t3->data)[i] = i * 100000 - 7;
    gguf_add_tensor(g, t0);
    gguf_add_tensor(g, t1);
    gguf_add_tensor(g, t2);
    gguf_add_tensor(g, t3);
    TEST_CHECK(gguf_write_to_file(g, fname, false));
    gguf_free(g);
    ggml_free(ctx);
}

int main(void) {
    char fname[64];
    snprintf(fname, sizeof(fname), "gguf-interop-%d.gguf", (int) getpid());
    write_file(fname);

    const char * here = __FILE__;
    const char * slash = strrchr(here, '/');
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "python3 '%.*s/data/gguf/canon-dump.py' '%s'", (int) (slash - here), here, fname);
    FILE * p = popen(cmd, "r");
    struct canon_text py = { 0 };
    char line[4096];
    while (p != NULL && fgets(line, sizeof(line), p) != NULL) {
        canon_printf(&py, "%s", line);
    }
    const int status = p != NULL ? pclose(p) : -1;
    const int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 77 || code == 127) {
        printf("test-gguf-interop: SKIPPED: %s\n", code == 77 ? "the gguf Python package is not installed (pip install gguf)"
                                                              : "python3 is not installed");
        remove(fname);
        free(py.s);
        return 77;
    }
    TEST_CHECK_MSG(code == 0, "canon-dump.py failed (exit %d)", code);

    struct ggml_context * cd = NULL;
    struct gguf_init_params ip = { false, &cd };
    struct gguf_context * g = gguf_init_from_file(fname, ip);
    TEST_CHECK(g != NULL);
    if (g != NULL && py.s != NULL) {
        char * ours = canon_dump(g, cd);
        TEST_CHECK_MSG(ours != NULL && strcmp(ours, py.s) == 0, "the package reads our file differently\n--- ours:\n%s--- package:\n%s",
                       ours, py.s);
        free(ours);
    }
    gguf_free(g);
    ggml_free(cd);
    free(py.s);
    remove(fname);
    return test_finish("test-gguf-interop");
}
