// gguf.h: every setter and getter, arrays, key removal and replacement, tensors (add, type change
// and the offsets that follow, data), general.alignment, writing and reading back through every
// way of writing; misuse that the family aborts on (wrong type, id out of range, duplicate names,
// missing file) logs and gives a neutral result; a truncation at every byte and random byte flips
// of a valid file are refused or read, never crash, leak or hang.

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"   // ggml_test_control
#include "gguf.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static void test_scalars(void) {
    struct gguf_context * g = gguf_init_empty();
    TEST_CHECK(g != NULL && gguf_get_n_kv(g) == 0 && gguf_get_version(g) == GGUF_VERSION);
    TEST_CHECK(gguf_get_alignment(g) == GGUF_DEFAULT_ALIGNMENT);
    gguf_set_val_u8(g, "u8", 250);
    gguf_set_val_i8(g, "i8", -120);
    gguf_set_val_u16(g, "u16", 65000);
    gguf_set_val_i16(g, "i16", -32000);
    gguf_set_val_u32(g, "u32", 4000000000u);
    gguf_set_val_i32(g, "i32", -2000000000);
    gguf_set_val_f32(g, "f32", 1.5e-7f);
    gguf_set_val_u64(g, "u64", UINT64_MAX - 3);
    gguf_set_val_i64(g, "i64", INT64_MIN + 5);
    gguf_set_val_f64(g, "f64", -1e300);
    gguf_set_val_bool(g, "bool", true);
    gguf_set_val_str(g, "str", "välue");
    TEST_CHECK(gguf_get_n_kv(g) == 12);
    TEST_CHECK(gguf_get_val_u8(g, gguf_find_key(g, "u8")) == 250);
    TEST_CHECK(gguf_get_val_i8(g, gguf_find_key(g, "i8")) == -120);
    TEST_CHECK(gguf_get_val_u16(g, gguf_find_key(g, "u16")) == 65000);
    TEST_CHECK(gguf_get_val_i16(g, gguf_find_key(g, "i16")) == -32000);
    TEST_CHECK(gguf_get_val_u32(g, gguf_find_key(g, "u32")) == 4000000000u);
    TEST_CHECK(gguf_get_val_i32(g, gguf_find_key(g, "i32")) == -2000000000);
    TEST_CHECK(gguf_get_val_f32(g, gguf_find_key(g, "f32")) == 1.5e-7f);
    TEST_CHECK(gguf_get_val_u64(g, gguf_find_key(g, "u64")) == UINT64_MAX - 3);
    TEST_CHECK(gguf_get_val_i64(g, gguf_find_key(g, "i64")) == INT64_MIN + 5);
    TEST_CHECK(gguf_get_val_f64(g, gguf_find_key(g, "f64")) == -1e300);
    TEST_CHECK(gguf_get_val_bool(g, gguf_find_key(g, "bool")) == true);
    TEST_CHECK(strcmp(gguf_get_val_str(g, gguf_find_key(g, "str")), "välue") == 0);
    TEST_CHECK(gguf_get_kv_type(g, gguf_find_key(g, "f64")) == GGUF_TYPE_FLOAT64);
    TEST_CHECK(*(const int16_t *) gguf_get_val_data(g, gguf_find_key(g, "i16")) == -32000);
    TEST_CHECK(strcmp(gguf_get_key(g, 0), "u8") == 0);
    TEST_CHECK(gguf_find_key(g, "missing") == -1);

    // replacing a key moves it to the end with its new type
    gguf_set_val_str(g, "u8", "now a string");
    TEST_CHECK(gguf_get_n_kv(g) == 12 && gguf_find_key(g, "u8") == 11);
    TEST_CHECK(gguf_get_kv_type(g, 11) == GGUF_TYPE_STRING);
    // a value taken from the pair it replaces
    gguf_set_val_str(g, "u8", gguf_get_val_str(g, 11));
    TEST_CHECK(strcmp(gguf_get_val_str(g, gguf_find_key(g, "u8")), "now a string") == 0);
    TEST_CHECK(gguf_remove_key(g, "i8") == 0 && gguf_get_n_kv(g) == 11 && gguf_find_key(g, "i8") == -1);
    TEST_CHECK(gguf_remove_key(g, "i8") == -1);
    // the key given may be the pair's own string
    TEST_CHECK(gguf_remove_key(g, gguf_get_key(g, 0)) == 0 && gguf_find_key(g, "u16") == -1);
    gguf_set_val_u16(g, "u16", 65000);

    // misuse: logged, neutral results
    test_log_capture_begin();
    const int64_t f32 = gguf_find_key(g, "f32");
    TEST_CHECK(gguf_get_val_u32(g, f32) == 0);
    TEST_CHECK(gguf_get_val_str(g, f32) == NULL);
    TEST_CHECK(gguf_get_val_bool(g, f32) == false);
    TEST_CHECK(gguf_get_val_u8(g, -1) == 0 && gguf_get_val_f64(g, 1000) == 0.0);
    TEST_CHECK(gguf_get_key(g, 99) == NULL);
    TEST_CHECK(gguf_get_kv_type(g, -5) == GGUF_TYPE_COUNT);
    TEST_CHECK(gguf_get_arr_type(g, f32) == GGUF_TYPE_COUNT);
    TEST_CHECK(gguf_get_arr_str(g, f32, 0) == NULL);
    TEST_CHECK(gguf_get_arr_data(g, gguf_find_key(g, "str")) == NULL);
    TEST_CHECK(gguf_get_val_data(g, gguf_find_key(g, "str")) == NULL);
    gguf_set_val_u32(g, NULL, 1);
    gguf_set_val_u32(g, "", 1);
    gguf_set_val_str(g, "x", NULL);
    gguf_set_val_u32(NULL, "x", 1);
    gguf_set_val_u16(g, GGUF_KEY_GENERAL_ALIGNMENT, 64);   // must be u32
    gguf_set_val_u32(g, GGUF_KEY_GENERAL_ALIGNMENT, 48);   // must be a power of 2
    gguf_set_arr_data(g, "bad", GGUF_TYPE_STRING, "x", 1);
    gguf_set_arr_data(g, "bad", GGUF_TYPE_ARRAY, "x", 1);
    gguf_set_arr_data(g, "bad", (enum gguf_type) 99, "x", 1);
    TEST_CHECK(gguf_find_key(g, "x") == -1 && gguf_find_key(g, "bad") == -1 && gguf_find_key(g, "") == -1);
    TEST_CHECK(gguf_find_key(g, GGUF_KEY_GENERAL_ALIGNMENT) == -1);
    TEST_CHECK(gguf_get_n_kv(NULL) == 0 && gguf_find_key(NULL, "a") == -1);
    TEST_CHECK(gguf_type_name((enum gguf_type) 99) == NULL && strcmp(gguf_type_name(GGUF_TYPE_FLOAT32), "f32") == 0);
    test_log_capture_end();
    TEST_CHECK(test_log_error_count() >= 20);
    TEST_CHECK(gguf_get_n_kv(g) == 11);
    gguf_free(g);
    gguf_free(NULL);
}

static void test_arrays(void) {
    struct gguf_context * g = gguf_init_empty();
    const int32_t i32[5] = { -1, 2, -3, 4, INT32_MAX };
    const bool bools[3] = { true, false, true };
    const char * strs[4] = { "a", "", "ü", "last" };
    gguf_set_arr_data(g, "i32", GGUF_TYPE_INT32, i32, 5);
    gguf_set_arr_data(g, "bool", GGUF_TYPE_BOOL, bools, 3);
    gguf_set_arr_data(g, "empty", GGUF_TYPE_FLOAT64, NULL, 0);
    gguf_set_arr_str(g, "strs", strs, 4);
    gguf_set_arr_str(g, "no_strs", NULL, 0);
    const int64_t a = gguf_find_key(g, "i32");
    TEST_CHECK(gguf_get_kv_type(g, a) == GGUF_TYPE_ARRAY && gguf_get_arr_type(g, a) == GGUF_TYPE_INT32);
    TEST_CHECK(gguf_get_arr_n(g, a) == 5 && memcmp(gguf_get_arr_data(g, a), i32, sizeof(i32)) == 0);
    const int64_t b = gguf_find_key(g, "bool");
    TEST_CHECK(gguf_get_arr_n(g, b) == 3 && ((const int8_t *) gguf_get_arr_data(g, b))[1] == 0 &&
               ((const int8_t *) gguf_get_arr_data(g, b))[2] == 1);
    const int64_t s = gguf_find_key(g, "strs");
    TEST_CHECK(gguf_get_arr_type(g, s) == GGUF_TYPE_STRING && gguf_get_arr_n(g, s) == 4);
    TEST_CHECK(strcmp(gguf_get_arr_str(g, s, 2), "ü") == 0 && strcmp(gguf_get_arr_str(g, s, 1), "") == 0);
    TEST_CHECK(gguf_get_arr_n(g, gguf_find_key(g, "empty")) == 0);
    TEST_CHECK(gguf_get_arr_n(g, gguf_find_key(g, "no_strs")) == 0);
    test_log_capture_begin();
    TEST_CHECK(gguf_get_arr_str(g, s, 4) == NULL);
    TEST_CHECK(gguf_get_val_i32(g, a) == 0);   // an array is not a single value
    const char * with_null[2] = { "x", NULL };
    gguf_set_arr_str(g, "with_null", with_null, 2);
    gguf_set_arr_data(g, "null_data", GGUF_TYPE_UINT8, NULL, 3);
    test_log_capture_end();
    TEST_CHECK(gguf_find_key(g, "with_null") == -1 && gguf_find_key(g, "null_data") == -1);

    // gguf_set_kv copies every pair, replacing those that exist
    struct gguf_context * h = gguf_init_empty();
    gguf_set_val_u32(h, "i32", 7);
    gguf_set_val_f32(h, "own", 2.0f);
    gguf_set_kv(h, g);
    TEST_CHECK(gguf_get_n_kv(h) == 6);
    TEST_CHECK(gguf_get_arr_n(h, gguf_find_key(h, "i32")) == 5);
    TEST_CHECK(strcmp(gguf_get_arr_str(h, gguf_find_key(h, "strs"), 3), "last") == 0);
    TEST_CHECK(gguf_get_val_f32(h, gguf_find_key(h, "own")) == 2.0f);
    gguf_set_kv(h, h);
    TEST_CHECK(gguf_get_n_kv(h) == 6);
    gguf_free(h);
    gguf_free(g);
}

static void fill(struct ggml_tensor * t) {
    const int64_t n = ggml_nelements(t);
    for (int64_t i = 0; i < n; i++) {
        if (t->type == GGML_TYPE_F32) {
            ((float *) t->data)[i] = (float) (0.25 * (double) i - 3.0);
        } else if (t->type == GGML_TYPE_F16) {
            ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16((float) i / 8.0f);
        } else if (t->type == GGML_TYPE_I32) {
            ((int32_t *) t->data)[i] = (int32_t) (i * 1000 - 7);
        }
    }
}

static void test_tensors_and_writing(void) {
    struct ggml_init_params ip = { 1 << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 3);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 5);
    struct ggml_tensor * c = ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 2, 3, 4);
    ggml_set_name(a, "a.weight");
    ggml_set_name(b, "b.bias");
    ggml_set_name(c, "c.ids");
    fill(a); fill(b); fill(c);

    struct gguf_context * g = gguf_init_empty();
    gguf_set_val_str(g, "general.architecture", "test");
    gguf_add_tensor(g, a);
    gguf_add_tensor(g, b);
    gguf_add_tensor(g, c);
    test_log_capture_begin();
    gguf_add_tensor(g, a);                                      // duplicate name
    gguf_add_tensor(g, NULL);
    gguf_set_tensor_type(g, "missing", GGML_TYPE_F16);
    gguf_set_tensor_type(g, "a.weight", GGML_TYPE_Q8_0);       // 7 is not a multiple of 32
    gguf_set_tensor_data(g, "missing", a->data);
    TEST_CHECK(gguf_get_tensor_name(g, 3) == NULL && gguf_get_tensor_offset(g, -1) == 0);
    TEST_CHECK(gguf_get_tensor_ne(g, 9) == NULL && gguf_get_tensor_type(g, 9) == GGML_TYPE_COUNT);
    test_log_capture_end();
    TEST_CHECK(test_log_error_count() >= 7);
    TEST_CHECK(gguf_get_n_tensors(g) == 3);
    TEST_CHECK(gguf_find_tensor(g, "b.bias") == 1 && gguf_find_tensor(g, "zz") == -1);
    TEST_CHECK(gguf_get_tensor_offset(g, 0) == 0 && gguf_get_tensor_offset(g, 1) == 96);   // 84 -> 96
    TEST_CHECK(gguf_get_tensor_offset(g, 2) == 128 && gguf_get_tensor_size(g, 2) == 96);
    TEST_CHECK(gguf_get_tensor_ne(g, 2)[2] == 4 && gguf_get_tensor_ne(g, 2)[3] == 1);
    TEST_CHECK(gguf_get_tensor_type(g, 0) == GGML_TYPE_F32);

    // the alignment key changes the offsets of the tensors
    gguf_set_val_u32(g, GGUF_KEY_GENERAL_ALIGNMENT, 64);
    TEST_CHECK(gguf_get_alignment(g) == 64 && gguf_get_tensor_offset(g, 1) == 128 && gguf_get_tensor_offset(g, 2) == 192);
    gguf_remove_key(g, GGUF_KEY_GENERAL_ALIGNMENT);
    TEST_CHECK(gguf_get_alignment(g) == 32 && gguf_get_tensor_offset(g, 2) == 128);
    gguf_set_val_u32(g, GGUF_KEY_GENERAL_ALIGNMENT, 64);

    // a type change moves the offsets after it
    gguf_set_tensor_type(g, "b.bias", GGML_TYPE_F32);
    TEST_CHECK(gguf_get_tensor_size(g, 1) == 20 && gguf_get_tensor_offset(g, 2) == 192);
    gguf_set_tensor_type(g, "b.bias", GGML_TYPE_F16);
    float b32[5];
    for (int i = 0; i < 5; i++) b32[i] = 0;

    char fname[64], fname2[64];
    snprintf(fname, sizeof(fname), "gguf-api-%d.gguf", (int) getpid());
    snprintf(fname2, sizeof(fname2), "gguf-api-%d-b.gguf", (int) getpid());
    TEST_CHECK(gguf_write_to_file(g, fname, false));

    // the second way: metadata only, then the data appended
    TEST_CHECK(gguf_write_to_file(g, fname2, true));
    FILE * f = fopen(fname2, "ab");
    struct ggml_tensor * ts[3] = { a, b, c };
    for (int i = 0; i < 3 && f != NULL; i++) {
        fwrite(ts[i]->data, 1, ggml_nbytes(ts[i]), f);
        const size_t pad = GGML_PAD(ggml_nbytes(ts[i]), 64) - ggml_nbytes(ts[i]);
        const char zeros[64] = { 0 };
        fwrite(zeros, 1, pad, f);
    }
    if (f != NULL) fclose(f);
    size_t meta = gguf_get_meta_size(g);
    TEST_CHECK(meta % 64 == 0 && meta > 0);

    // both files hold the same bytes
    FILE * f1 = fopen(fname, "rb");
    FILE * f2 = fopen(fname2, "rb");
    bool same = f1 != NULL && f2 != NULL;
    long n1 = 0;
    while (same) {
        int x = fgetc(f1), y = fgetc(f2);
        if (x != y) same = false;
        if (x == EOF || y == EOF) break;
        n1++;
    }
    TEST_CHECK_MSG(same && n1 == (long) (meta + 128 + 64 + 128), "write ways differ (%ld bytes)", n1);
    if (f1) fclose(f1);
    if (f2) fclose(f2);

    // read back: data, types, shapes
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { false, &cd };
    struct gguf_context * r = gguf_init_from_file(fname, p);
    TEST_CHECK(r != NULL && cd != NULL);
    if (r != NULL && cd != NULL) {
        TEST_CHECK(gguf_get_alignment(r) == 64 && gguf_get_data_offset(r) == meta);
        for (int i = 0; i < 3; i++) {
            struct ggml_tensor * t = ggml_get_tensor(cd, ts[i]->name);
            TEST_CHECK(t != NULL && t->type == ts[i]->type && ggml_are_same_shape(t, ts[i]) &&
                       memcmp(t->data, ts[i]->data, ggml_nbytes(t)) == 0);
        }
        TEST_CHECK(strcmp(gguf_get_val_str(r, gguf_find_key(r, "general.architecture")), "test") == 0);
    }
    gguf_free(r);
    ggml_free(cd);

    // no_alloc: tensors without data
    cd = NULL;
    struct gguf_init_params pn = { true, &cd };
    r = gguf_init_from_file(fname, pn);
    TEST_CHECK(r != NULL && cd != NULL && ggml_get_tensor(cd, "c.ids") != NULL &&
               ggml_get_tensor(cd, "c.ids")->data == NULL);
    gguf_free(r);
    ggml_free(cd);

    // a tensor whose data lives in a backend buffer is written through the backend
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct ggml_init_params ipn = { 4 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * bctx = ggml_init(ipn);
    struct ggml_tensor * d = ggml_new_tensor_1d(bctx, GGML_TYPE_F32, 11);
    ggml_set_name(d, "d");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(bctx, cpu);
    float dv[11];
    for (int i = 0; i < 11; i++) dv[i] = (float) i * 1.5f - 2.0f;
    ggml_backend_tensor_set(d, dv, 0, sizeof(dv));
    struct gguf_context * g2 = gguf_init_empty();
    gguf_add_tensor(g2, d);
    TEST_CHECK(gguf_write_to_file(g2, fname2, false));
    cd = NULL;
    r = gguf_init_from_file(fname2, p);
    TEST_CHECK(r != NULL && cd != NULL && memcmp(ggml_get_tensor(cd, "d")->data, dv, sizeof(dv)) == 0);
    gguf_free(r);
    ggml_free(cd);
    // a tensor without data cannot be written
    struct ggml_tensor * e = ggml_new_tensor_1d(bctx, GGML_TYPE_F32, 3);
    ggml_set_name(e, "e");
    gguf_add_tensor(g2, e);
    test_log_capture_begin();
    TEST_CHECK(!gguf_write_to_file(g2, fname2, false));
    TEST_CHECK(!gguf_write_to_file(g2, "/nonexistent-dir/x.gguf", false));
    test_log_capture_end();
    gguf_free(g2);
    ggml_backend_buffer_free(buf);
    ggml_free(bctx);
    ggml_backend_free(cpu);

    remove(fname);
    remove(fname2);
    gguf_free(g);
    ggml_free(ctx);
    (void) b32;
}

// a small valid file in memory with a few keys and tensors
static unsigned char * small_file(size_t * size) {
    struct ggml_init_params ip = { 1 << 16, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, 2);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_Q8_0, 32);
    ggml_set_name(a, "a");
    ggml_set_name(b, "b");
    fill(a);
    memset(b->data, 0, ggml_nbytes(b));
    struct gguf_context * g = gguf_init_empty();
    const char * strs[2] = { "x", "yz" };
    const uint16_t u16[3] = { 1, 2, 3 };
    gguf_set_val_str(g, "s", "str");
    gguf_set_arr_str(g, "as", strs, 2);
    gguf_set_arr_data(g, "a16", GGUF_TYPE_UINT16, u16, 3);
    gguf_set_val_f64(g, "f", 0.5);
    gguf_add_tensor(g, a);
    gguf_add_tensor(g, b);
    char fname[64];
    snprintf(fname, sizeof(fname), "gguf-small-%d.gguf", (int) getpid());
    gguf_write_to_file(g, fname, false);
    gguf_free(g);
    ggml_free(ctx);
    FILE * f = fopen(fname, "rb");
    unsigned char * data = malloc(4096);
    *size = f != NULL && data != NULL ? fread(data, 1, 4096, f) : 0;
    if (f) fclose(f);
    remove(fname);
    return data;
}

static void test_corrupt_input(void) {
    size_t size = 0;
    unsigned char * file = small_file(&size);
    TEST_CHECK(file != NULL && size > 100);
    if (file == NULL) return;
    struct gguf_init_params p = { false, NULL };
    struct ggml_context * cd = NULL;
    struct gguf_init_params pc = { false, &cd };

    // every truncation is refused (the last tensor's padding may be missing: Q8_0 of 32 is 34 bytes)
    test_log_capture_begin();
    int accepted = 0;
    for (size_t n = 0; n < size; n++) {
        struct gguf_context * g = gguf_init_from_buffer(file, n, pc);
        if (g != NULL) {
            accepted++;
            TEST_CHECK_MSG(n >= size - 30, "truncated at %zu of %zu and accepted", n, size);
            gguf_free(g);
            ggml_free(cd);
        } else {
            TEST_CHECK(cd == NULL);
        }
    }
    test_log_capture_end();
    TEST_CHECK(accepted <= 30);

    // the refusal names the offset and the field
    test_log_capture_begin();
    TEST_CHECK(gguf_init_from_buffer(file, size / 2, p) == NULL);
    test_log_capture_end();
    TEST_CHECK_MSG(strstr(test_log_text(), "offset") != NULL && strstr(test_log_text(), "truncated") != NULL,
                   "message: %s", test_log_text());

    // a huge count, a huge string length, a bad magic, a bad version, a bad tensor type
    unsigned char * bad = malloc(size);
    struct { size_t at; uint64_t value; int width; const char * what; } edits[] = {
        { 0, 0x46554746, 4, "magic" },             // "FGUF"
        { 4, 1, 4, "version 1" },
        { 4, 0x03000000, 4, "big-endian version" },
        { 8, (uint64_t) 1 << 40, 8, "tensor count" },
        { 16, (uint64_t) -1, 8, "kv count" },
        { 24, (uint64_t) 1 << 62, 8, "key length" },
    };
    test_log_capture_begin();
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        memcpy(bad, file, size);
        memcpy(bad + edits[i].at, &edits[i].value, (size_t) edits[i].width);
        struct gguf_context * g = gguf_init_from_buffer(bad, size, p);
        TEST_CHECK_MSG(g == NULL, "%s accepted", edits[i].what);
        gguf_free(g);
    }
    test_log_capture_end();

    // random byte flips: read or refused, never a crash or a leak (the sanitizer build checks)
    test_rng_init();
    test_log_capture_begin();
    for (int it = 0; it < 3000; it++) {
        memcpy(bad, file, size);
        const int flips = 1 + (int) test_rand_int(0, 3);
        for (int k = 0; k < flips; k++) {
            bad[test_rand_int(0, (int64_t) size - 1)] ^= (unsigned char) (1u << test_rand_int(0, 7));
        }
        cd = NULL;
        struct gguf_context * g = gguf_init_from_buffer(bad, size, pc);
        if (g != NULL) {
            // whatever was read is consistent and can be written again
            for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
                TEST_CHECK(gguf_get_key(g, i) != NULL);
            }
            TEST_CHECK(gguf_get_meta_size(g) > 0);
        }
        gguf_free(g);
        ggml_free(cd);
    }
    test_log_capture_end();
    free(bad);

    // a missing file
    test_log_capture_begin();
    cd = (struct ggml_context *) 1;
    TEST_CHECK(gguf_init_from_file("/nonexistent/model.gguf", pc) == NULL && cd == NULL);
    TEST_CHECK(gguf_init_from_buffer(NULL, 10, p) == NULL);
    TEST_CHECK(gguf_init_from_callback(NULL, NULL, 0, 10, p) == NULL);
    test_log_capture_end();
    TEST_CHECK(strstr(test_log_text(), "/nonexistent/model.gguf") != NULL);
    free(file);
}

// every allocation of reading, writing and setting fails in turn: a NULL / false result, no leak
// (the sanitizer build checks), no crash
static long alloc_fault_count(void) {
    long n = 0;
    ggml_test_control(GGML_TEST_ALLOC_FAULT_COUNT, &n);
    return n;
}

static void test_allocation_failures(void) {
    size_t size = 0;
    unsigned char * file = small_file(&size);
    if (file == NULL) return;
    char fname[64];
    snprintf(fname, sizeof(fname), "gguf-fault-%d.gguf", (int) getpid());
    int failures_seen = 0;
    bool completed = false;
    test_log_capture_begin();
    for (long n = 1; n < 400 && !completed; n++) {
        ggml_test_control(GGML_TEST_ALLOC_FAULT_SET, n);
        struct ggml_context * cd = NULL;
        struct gguf_init_params p = { false, &cd };
        struct gguf_context * g = gguf_init_from_buffer(file, size, p);
        bool ok = g != NULL;
        if (ok) {
            gguf_set_val_str(g, "added", "value");
            const char * strs[2] = { "a", "b" };
            gguf_set_arr_str(g, "added_arr", strs, 2);
            ok = gguf_write_to_file(g, fname, false) && gguf_find_key(g, "added") >= 0 && gguf_find_key(g, "added_arr") >= 0;
            gguf_free(g);
            ggml_free(cd);
        } else {
            TEST_CHECK(cd == NULL);
        }
        completed = ok && alloc_fault_count() < n;   // the n-th allocation was never reached
        failures_seen += !ok;
    }
    ggml_test_control(GGML_TEST_ALLOC_FAULT_SET, 0L);
    test_log_capture_end();
    TEST_CHECK_MSG(completed && failures_seen > 5, "completed %d, %d failing runs", completed, failures_seen);
    remove(fname);
    free(file);
}

int main(void) {
    test_allocation_failures();
    test_scalars();
    test_arrays();
    test_tensors_and_writing();
    test_corrupt_input();
    return test_finish("test-gguf-api");
}
