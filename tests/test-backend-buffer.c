// Buffer types, buffers and tensor data access: the CPU buffer types, the TEST backend's private
// memory, zero-size and absurd allocations, tensor placement (tensor_alloc, view_init), bounds
// checks of set/get/memset, copies between buffers in every direction, multi-buffers, and
// allocation failures.

#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "test-backend.h"
#include "test-common.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

// Under ASan a huge malloc must return NULL (as libc does) rather than stop the process, so that
// the library's own out-of-memory path is what gets tested.
const char * __asan_default_options(void);
const char * __asan_default_options(void) {
    return "allocator_may_return_null=1";
}

// runs stmt with the log captured; evaluates to the number of errors it logged
static int g_errors;
#define ERRORS_OF(stmt) (test_log_capture_begin(), (stmt), g_errors = test_log_error_count(), test_log_capture_end(), g_errors)
#define EXPECT_ERROR(stmt)    TEST_CHECK_MSG(ERRORS_OF(stmt) > 0,  "expected an error from: %s", #stmt)
#define EXPECT_NO_ERROR(stmt) TEST_CHECK_MSG(ERRORS_OF(stmt) == 0, "unexpected error from: %s\n%s", #stmt, test_log_text())

static struct ggml_context * new_ctx(bool no_alloc) {
    struct ggml_init_params p = { 1 << 20, NULL, no_alloc };
    return ggml_init(p);
}

static void fill_random(float * x, int n) {
    for (int i = 0; i < n; i++) {
        // never zero, so that a copy that did nothing cannot pass
        x[i] = (float) test_rand_uniform(0.5, 4.0) * (test_rand_u64() & 1 ? 1.0f : -1.0f);
    }
}

static bool floats_equal(const float * a, const float * b, int n) {
    return memcmp(a, b, (size_t) n * sizeof(float)) == 0;
}

static struct test_backend_stats stats(void) {
    struct test_backend_stats s;
    test_backend_get_stats(&s);
    return s;
}

//
// buffer types
//

static void test_cpu_buffer_type(void) {
    ggml_backend_buffer_type_t buft = ggml_backend_cpu_buffer_type();
    TEST_CHECK(buft != NULL);
    TEST_CHECK(buft == ggml_backend_cpu_buffer_type());
    TEST_CHECK(strcmp(ggml_backend_buft_name(buft), "CPU") == 0);
    TEST_CHECK(ggml_backend_buft_get_alignment(buft) == 64);
    TEST_CHECK(ggml_backend_buft_get_max_size(buft) == SIZE_MAX);
    TEST_CHECK(ggml_backend_buft_is_host(buft));
    TEST_CHECK(ggml_backend_buft_get_device(buft) == NULL);

    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 10, 3);
    TEST_CHECK(ggml_backend_buft_get_alloc_size(buft, t) == 120);

    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 1000);
    TEST_CHECK(buf != NULL);
    if (buf != NULL) {
        TEST_CHECK(ggml_backend_buffer_get_size(buf) == 1000);
        void * base = ggml_backend_buffer_get_base(buf);
        TEST_CHECK(base != NULL && (uintptr_t) base % 64 == 0);
        TEST_CHECK(ggml_backend_buffer_is_host(buf));
        TEST_CHECK(strcmp(ggml_backend_buffer_name(buf), "CPU") == 0);
        TEST_CHECK(ggml_backend_buffer_get_type(buf) == buft);
        TEST_CHECK(ggml_backend_buffer_get_alignment(buf) == 64);
        TEST_CHECK(ggml_backend_buffer_get_max_size(buf) == SIZE_MAX);
        TEST_CHECK(ggml_backend_buffer_get_alloc_size(buf, t) == 120);
        TEST_CHECK(!ggml_backend_buffer_is_multi_buffer(buf));

        TEST_CHECK(ggml_backend_buffer_get_usage(buf) == GGML_BACKEND_BUFFER_USAGE_ANY);
        ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        TEST_CHECK(ggml_backend_buffer_get_usage(buf) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        EXPECT_ERROR(ggml_backend_buffer_set_usage(buf, (enum ggml_backend_buffer_usage) 7));
        TEST_CHECK(ggml_backend_buffer_get_usage(buf) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS);

        ggml_backend_buffer_clear(buf, 0x5A);
        bool all = true;
        for (size_t i = 0; i < 1000; i++) {
            all = all && ((uint8_t *) base)[i] == 0x5A;
        }
        TEST_CHECK_MSG(all, "clear did not fill the buffer");
        EXPECT_NO_ERROR(ggml_backend_buffer_reset(buf));
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
}

static void test_test_buffer_type(void) {
    ggml_backend_buffer_type_t buft = test_backend_buffer_type(0);
    TEST_CHECK(strcmp(ggml_backend_buft_name(buft), "TEST") == 0);
    TEST_CHECK(strcmp(ggml_backend_buft_name(test_backend_buffer_type(1)), "TEST1") == 0);
    TEST_CHECK(ggml_backend_buft_get_alignment(buft) == TEST_BACKEND_ALIGNMENT);
    TEST_CHECK(!ggml_backend_buft_is_host(buft)); // from the wrapper's default: iface.is_host is NULL
    TEST_CHECK(ggml_backend_buft_get_device(buft) == test_backend_dev(0));

    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10);
    TEST_CHECK(ggml_backend_buft_get_alloc_size(buft, t) == 40);
    test_backend_set_alloc_pad(256);
    TEST_CHECK(ggml_backend_buft_get_alloc_size(buft, t) == 256);
    test_backend_set_alloc_pad(1);

    test_backend_set_max_size(4096);
    TEST_CHECK(ggml_backend_buft_get_max_size(buft) == 4096);
    ggml_backend_buffer_t big = NULL;
    EXPECT_ERROR(big = ggml_backend_buft_alloc_buffer(buft, 8192));
    TEST_CHECK(big == NULL);
    test_backend_set_max_size(SIZE_MAX);

    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(buft, 4096);
    TEST_CHECK(buf != NULL);
    if (buf != NULL) {
        TEST_CHECK(test_backend_buffer_is_test(buf));
        TEST_CHECK(!ggml_backend_buffer_is_host(buf));
        // the base is a fake address: nothing may read through it
        TEST_CHECK((uintptr_t) ggml_backend_buffer_get_base(buf) >= (uintptr_t) 0x4000000000000000ull);
        TEST_CHECK(stats().buffers_alive == 1);
        ggml_backend_buffer_free(buf);
        TEST_CHECK(stats().buffers_alive == 0);
    }
    ggml_free(ctx);
}

// a buffer type whose alloc_size reports less than the tensor needs (a backend bug)
static size_t short_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * t) {
    (void) buft;
    return ggml_nbytes(t) / 2;
}

static void test_buffer_type_defaults(void) {
    // a buffer type that fills in only what is required
    struct ggml_backend_buffer_type minimal;
    memset(&minimal, 0, sizeof(minimal));
    minimal.iface.get_alignment = NULL;
    TEST_CHECK(ggml_backend_buft_get_max_size(&minimal) == SIZE_MAX);
    TEST_CHECK(!ggml_backend_buft_is_host(&minimal));
    TEST_CHECK(strcmp(ggml_backend_buft_name(&minimal), "unnamed") == 0);
    ggml_backend_buffer_t b = NULL;
    EXPECT_ERROR(b = ggml_backend_buft_alloc_buffer(&minimal, 16));
    TEST_CHECK(b == NULL);

    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 100);
    TEST_CHECK(ggml_backend_buft_get_alloc_size(&minimal, t) == 400);
    minimal.iface.get_alloc_size = short_alloc_size;
    size_t sz = 0;
    EXPECT_ERROR(sz = ggml_backend_buft_get_alloc_size(&minimal, t));
    TEST_CHECK(sz == 400);
    ggml_free(ctx);
}

static void test_zero_size(void) {
    ggml_backend_buffer_type_t bufts[2] = { ggml_backend_cpu_buffer_type(), test_backend_buffer_type(0) };
    for (int i = 0; i < 2; i++) {
        long n_alloc = stats().n_alloc;
        ggml_backend_buffer_t buf = NULL;
        EXPECT_NO_ERROR(buf = ggml_backend_buft_alloc_buffer(bufts[i], 0));
        TEST_CHECK(buf != NULL);
        TEST_CHECK(stats().n_alloc == n_alloc); // the backend was not asked
        if (buf == NULL) {
            continue;
        }
        TEST_CHECK(ggml_backend_buffer_get_size(buf) == 0);
        void * base = (void *) 1;
        EXPECT_NO_ERROR(base = ggml_backend_buffer_get_base(buf));
        TEST_CHECK(base == NULL);
        EXPECT_NO_ERROR(ggml_backend_buffer_clear(buf, 1));
        TEST_CHECK(ggml_backend_buffer_get_type(buf) == bufts[i]);
        TEST_CHECK(ggml_backend_buffer_is_host(buf) == (i == 0));

        // a tensor with data cannot be placed in it
        struct ggml_context * ctx = new_ctx(true);
        struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
        enum ggml_status st = GGML_STATUS_SUCCESS;
        EXPECT_ERROR(st = ggml_backend_tensor_alloc(buf, t, NULL));
        TEST_CHECK(st != GGML_STATUS_SUCCESS);
        TEST_CHECK(t->buffer == NULL && t->data == NULL);
        ggml_free(ctx);

        EXPECT_NO_ERROR(ggml_backend_buffer_free(buf));
    }
}

static void test_absurd_sizes(void) {
    const size_t sizes[3] = { SIZE_MAX / 2, SIZE_MAX, (size_t) 1 << 50 };
    for (int i = 0; i < 3; i++) {
        ggml_backend_buffer_t buf = (ggml_backend_buffer_t) 1;
        EXPECT_ERROR(buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), sizes[i]));
        TEST_CHECK_MSG(buf == NULL, "CPU buffer of %zu bytes", sizes[i]);
        buf = (ggml_backend_buffer_t) 1;
        EXPECT_ERROR(buf = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), sizes[i]));
        TEST_CHECK_MSG(buf == NULL, "TEST buffer of %zu bytes", sizes[i]);
    }
    // more than the device has free
    ggml_backend_buffer_t buf = (ggml_backend_buffer_t) 1;
    EXPECT_ERROR(buf = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), TEST_BACKEND_MEMORY + 1));
    TEST_CHECK(buf == NULL);
    TEST_CHECK(stats().buffers_alive == 0);
}

static void test_alloc_failures(void) {
    // the CPU buffer needs two allocations (memory, object): fail each, leak nothing (LSan checks)
    for (long n = 1; n <= 2; n++) {
        test_alloc_fault_set(n);
        ggml_backend_buffer_t buf = (ggml_backend_buffer_t) 1;
        EXPECT_ERROR(buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 256));
        test_alloc_fault_set(0);
        TEST_CHECK_MSG(buf == NULL, "allocation %ld failed but a buffer was returned", n);
    }
    // the TEST buffer: object, storage, wrapper
    for (long n = 1; n <= 3; n++) {
        test_alloc_fault_set(n);
        ggml_backend_buffer_t buf = (ggml_backend_buffer_t) 1;
        EXPECT_ERROR(buf = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 256));
        test_alloc_fault_set(0);
        TEST_CHECK_MSG(buf == NULL, "allocation %ld failed but a buffer was returned", n);
    }
    TEST_CHECK(stats().buffers_alive == 0);
    // the backend's own fault injection: the 2nd allocation fails, the 1st and 3rd succeed
    test_backend_set_alloc_fail(2);
    ggml_backend_buffer_t b1 = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 64);
    ggml_backend_buffer_t b2 = (ggml_backend_buffer_t) 1;
    EXPECT_ERROR(b2 = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 64));
    ggml_backend_buffer_t b3 = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 64);
    TEST_CHECK(b1 != NULL && b2 == NULL && b3 != NULL);
    ggml_backend_buffer_free(b1);
    ggml_backend_buffer_free(b3);
    TEST_CHECK(stats().buffers_alive == 0);
}

static void test_null_arguments(void) {
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);

    const char * name = NULL;
    EXPECT_ERROR(name = ggml_backend_buft_name(NULL));
    TEST_CHECK(name != NULL && strcmp(name, "NULL") == 0);
    ggml_backend_buffer_t buf = (ggml_backend_buffer_t) 1;
    EXPECT_ERROR(buf = ggml_backend_buft_alloc_buffer(NULL, 16));
    TEST_CHECK(buf == NULL);
    size_t v = 1;
    EXPECT_ERROR(v = ggml_backend_buft_get_alignment(NULL));
    TEST_CHECK(v == 0);
    EXPECT_ERROR(v = ggml_backend_buft_get_max_size(NULL));
    TEST_CHECK(v == 0);
    EXPECT_ERROR(v = ggml_backend_buft_get_alloc_size(NULL, t));
    TEST_CHECK(v == 32);
    EXPECT_ERROR(v = ggml_backend_buft_get_alloc_size(ggml_backend_cpu_buffer_type(), NULL));
    TEST_CHECK(v == 0);
    bool b = true;
    EXPECT_ERROR(b = ggml_backend_buft_is_host(NULL));
    TEST_CHECK(!b);
    ggml_backend_dev_t dev = (ggml_backend_dev_t) 1;
    EXPECT_ERROR(dev = ggml_backend_buft_get_device(NULL));
    TEST_CHECK(dev == NULL);

    EXPECT_ERROR(name = ggml_backend_buffer_name(NULL));
    TEST_CHECK(name != NULL && strcmp(name, "NULL") == 0);
    EXPECT_NO_ERROR(ggml_backend_buffer_free(NULL));
    EXPECT_ERROR(v = ggml_backend_buffer_get_size(NULL));
    TEST_CHECK(v == 0);
    void * p = (void *) 1;
    EXPECT_ERROR(p = ggml_backend_buffer_get_base(NULL));
    TEST_CHECK(p == NULL);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    EXPECT_ERROR(st = ggml_backend_buffer_init_tensor(NULL, t));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_ERROR(v = ggml_backend_buffer_get_alignment(NULL));
    EXPECT_ERROR(v = ggml_backend_buffer_get_max_size(NULL));
    EXPECT_ERROR(v = ggml_backend_buffer_get_alloc_size(NULL, t));
    TEST_CHECK(v == 32);
    EXPECT_ERROR(ggml_backend_buffer_clear(NULL, 0));
    EXPECT_ERROR(b = ggml_backend_buffer_is_host(NULL));
    TEST_CHECK(!b);
    EXPECT_ERROR(ggml_backend_buffer_set_usage(NULL, GGML_BACKEND_BUFFER_USAGE_COMPUTE));
    enum ggml_backend_buffer_usage u = GGML_BACKEND_BUFFER_USAGE_WEIGHTS;
    EXPECT_ERROR(u = ggml_backend_buffer_get_usage(NULL));
    TEST_CHECK(u == GGML_BACKEND_BUFFER_USAGE_ANY);
    ggml_backend_buffer_type_t bt = (ggml_backend_buffer_type_t) 1;
    EXPECT_ERROR(bt = ggml_backend_buffer_get_type(NULL));
    TEST_CHECK(bt == NULL);
    EXPECT_ERROR(ggml_backend_buffer_reset(NULL));

    EXPECT_ERROR(st = ggml_backend_tensor_alloc(NULL, t, NULL));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_ERROR(st = ggml_backend_view_init(NULL));
    TEST_CHECK(st == GGML_STATUS_FAILED);

    float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    EXPECT_ERROR(ggml_backend_tensor_set(NULL, x, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_get(NULL, x, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_memset(NULL, 0, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_copy(NULL, t));
    EXPECT_ERROR(ggml_backend_tensor_copy(t, NULL));
    EXPECT_ERROR(b = ggml_backend_buffer_copy_tensor(NULL, t));
    TEST_CHECK(!b);

    EXPECT_ERROR(buf = ggml_backend_cpu_buffer_from_ptr(NULL, 64));
    TEST_CHECK(buf == NULL);
    EXPECT_ERROR(buf = ggml_backend_multi_buffer_alloc_buffer(NULL, 2));
    TEST_CHECK(buf == NULL);
    TEST_CHECK(!ggml_backend_buffer_is_multi_buffer(NULL));
    ggml_free(ctx);
}

//
// tensor placement
//

// any buffer other than the ones used below
static ggml_backend_buffer_t tbuf_dummy(void) {
    static struct ggml_backend_buffer dummy;
    return &dummy;
}

static void test_tensor_alloc_and_views(void) {
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16); // 64 bytes
    struct ggml_tensor * u = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    ggml_set_name(t, "t");
    ggml_set_name(u, "u");

    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 256);
    char * base = (char *) ggml_backend_buffer_get_base(buf);

    enum ggml_status st = GGML_STATUS_FAILED;
    EXPECT_NO_ERROR(st = ggml_backend_tensor_alloc(buf, t, base));
    TEST_CHECK(st == GGML_STATUS_SUCCESS);
    TEST_CHECK(t->buffer == buf && t->data == base);

    // twice
    EXPECT_ERROR(st = ggml_backend_tensor_alloc(buf, t, base + 64));
    TEST_CHECK(st == GGML_STATUS_FAILED && t->data == base);
    // does not fit: 64 bytes at offset 224 of 256
    EXPECT_ERROR(st = ggml_backend_tensor_alloc(buf, u, base + 224));
    TEST_CHECK(st == GGML_STATUS_FAILED && u->buffer == NULL && u->data == NULL);
    // before the buffer, and NULL
    EXPECT_ERROR(st = ggml_backend_tensor_alloc(buf, u, base - 64));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    EXPECT_ERROR(st = ggml_backend_tensor_alloc(buf, u, NULL));
    TEST_CHECK(st == GGML_STATUS_FAILED);
    // exactly at the end
    EXPECT_NO_ERROR(st = ggml_backend_tensor_alloc(buf, u, base + 192));
    TEST_CHECK(st == GGML_STATUS_SUCCESS);

    // views
    struct ggml_tensor * v = ggml_view_1d(ctx, t, 8, 16);
    TEST_CHECK(v != NULL);
    if (v != NULL) {
        EXPECT_ERROR(st = ggml_backend_tensor_alloc(buf, v, base + 128));
        TEST_CHECK(st == GGML_STATUS_FAILED);
        EXPECT_NO_ERROR(st = ggml_backend_view_init(v));
        TEST_CHECK(st == GGML_STATUS_SUCCESS);
        TEST_CHECK(v->buffer == buf && v->data == base + 16);
        EXPECT_NO_ERROR(st = ggml_backend_view_init(v)); // again: harmless
        TEST_CHECK(st == GGML_STATUS_SUCCESS && v->data == base + 16);

        // data written through the view lands in t
        const float vals[8] = { 9, 8, 7, 6, 5, 4, 3, 2 };
        ggml_backend_tensor_set(v, vals, 0, sizeof(vals));
        float back[16];
        ggml_backend_tensor_get(t, back, 0, sizeof(back));
        TEST_CHECK(floats_equal(back + 4, vals, 8));
    }
    EXPECT_ERROR(st = ggml_backend_view_init(w)); // not a view
    TEST_CHECK(st == GGML_STATUS_FAILED);
    struct ggml_tensor * vw = ggml_view_1d(ctx, w, 4, 0);
    EXPECT_ERROR(st = ggml_backend_view_init(vw)); // view of an unallocated tensor
    TEST_CHECK(st == GGML_STATUS_FAILED && vw->buffer == NULL);

    // a view claiming to extend past the buffer (corrupted offset)
    struct ggml_tensor * vbad = ggml_view_1d(ctx, u, 16, 0);
    if (vbad != NULL) {
        vbad->view_offs = 128;
        void * before = vbad->data;
        EXPECT_ERROR(st = ggml_backend_view_init(vbad));
        TEST_CHECK(st == GGML_STATUS_FAILED && vbad->data == before);
        // a view whose buffer is not its source's
        vbad->view_offs = 0;
        ggml_backend_buffer_t saved = vbad->buffer;
        vbad->buffer = (ggml_backend_buffer_t) tbuf_dummy();
        EXPECT_ERROR(st = ggml_backend_view_init(vbad));
        TEST_CHECK(st == GGML_STATUS_FAILED);
        vbad->buffer = saved;
    }

    // an init_tensor failure leaves the tensor unallocated
    ggml_backend_buffer_t tbuf = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 1024);
    char * tbase = (char *) ggml_backend_buffer_get_base(tbuf);
    test_backend_set_init_tensor_fail(1);
    EXPECT_ERROR(st = ggml_backend_tensor_alloc(tbuf, w, tbase));
    TEST_CHECK(st == GGML_STATUS_FAILED && w->buffer == NULL && w->data == NULL);
    long n_init = stats().n_init_tensor;
    EXPECT_NO_ERROR(st = ggml_backend_tensor_alloc(tbuf, w, tbase));
    TEST_CHECK(st == GGML_STATUS_SUCCESS && w->buffer == tbuf);
    TEST_CHECK(stats().n_init_tensor == n_init + 1);
    EXPECT_NO_ERROR(st = ggml_backend_buffer_init_tensor(tbuf, w));
    TEST_CHECK(st == GGML_STATUS_SUCCESS);

    ggml_backend_buffer_free(tbuf);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
}

//
// data access
//

// a no_alloc context tensor placed at the start of a new buffer of buft
static struct ggml_tensor * new_placed(struct ggml_context * ctx, ggml_backend_buffer_type_t buft, int n, ggml_backend_buffer_t * out) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
    *out = ggml_backend_buft_alloc_buffer(buft, ggml_backend_buft_get_alloc_size(buft, t));
    if (*out == NULL || ggml_backend_tensor_alloc(*out, t, ggml_backend_buffer_get_base(*out)) != GGML_STATUS_SUCCESS) {
        TEST_CHECK_MSG(false, "cannot place a tensor of %d floats in a %s buffer", n, ggml_backend_buft_name(buft));
        return NULL;
    }
    return t;
}

static void test_set_get_memset(ggml_backend_buffer_type_t buft) {
    enum { N = 64 };
    struct ggml_context * ctx = new_ctx(true);
    ggml_backend_buffer_t buf = NULL;
    struct ggml_tensor * t = new_placed(ctx, buft, N, &buf);
    if (t == NULL) {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
        return;
    }
    float src[N], dst[N];
    fill_random(src, N);

    EXPECT_NO_ERROR(ggml_backend_tensor_set(t, src, 0, sizeof(src)));
    memset(dst, 0, sizeof(dst));
    EXPECT_NO_ERROR(ggml_backend_tensor_get(t, dst, 0, sizeof(dst)));
    TEST_CHECK_MSG(floats_equal(src, dst, N), "%s: set/get round trip", ggml_backend_buft_name(buft));

    // partial, at an offset
    float part[5] = { 11, 12, 13, 14, 15 };
    ggml_backend_tensor_set(t, part, 20*sizeof(float), sizeof(part));
    float back[N];
    ggml_backend_tensor_get(t, back, 0, sizeof(back));
    bool ok = true;
    for (int i = 0; i < N; i++) {
        ok = ok && back[i] == (i >= 20 && i < 25 ? part[i - 20] : src[i]);
    }
    TEST_CHECK_MSG(ok, "%s: partial set", ggml_backend_buft_name(buft));
    float got[3];
    ggml_backend_tensor_get(t, got, 21*sizeof(float), sizeof(got));
    TEST_CHECK(got[0] == 12 && got[1] == 13 && got[2] == 14);

    // memset: bytes [8, 16) become 0x3F
    ggml_backend_tensor_memset(t, 0x3F, 8, 8);
    uint8_t bytes[N*4];
    ggml_backend_tensor_get(t, bytes, 0, sizeof(bytes));
    ok = true;
    for (int i = 0; i < N*4; i++) {
        const uint8_t expect = (i >= 8 && i < 16) ? 0x3F : ((const uint8_t *) back)[i];
        ok = ok && bytes[i] == expect;
    }
    TEST_CHECK_MSG(ok, "%s: memset", ggml_backend_buft_name(buft));
    ggml_backend_tensor_set(t, src, 0, sizeof(src)); // restore

    // out of range: nothing changes, nothing is read past the end
    float big[N + 1];
    fill_random(big, N + 1);
    EXPECT_ERROR(ggml_backend_tensor_set(t, big, 0, sizeof(big)));
    EXPECT_ERROR(ggml_backend_tensor_set(t, big, 4, sizeof(src)));
    EXPECT_ERROR(ggml_backend_tensor_set(t, big, sizeof(src) + 4, 4));
    EXPECT_ERROR(ggml_backend_tensor_set(t, big, 8, SIZE_MAX));
    EXPECT_ERROR(ggml_backend_tensor_set(t, big, SIZE_MAX - 2, 4)); // offset + size wraps around
    EXPECT_ERROR(ggml_backend_tensor_memset(t, 0, 4, sizeof(src)));
    EXPECT_ERROR(ggml_backend_tensor_memset(t, 0, SIZE_MAX, 2));
    ggml_backend_tensor_get(t, dst, 0, sizeof(dst));
    TEST_CHECK_MSG(floats_equal(src, dst, N), "%s: out-of-range writes changed the tensor", ggml_backend_buft_name(buft));

    float sentinel[N + 1];
    for (int i = 0; i < N + 1; i++) {
        sentinel[i] = -1234.5f;
    }
    EXPECT_ERROR(ggml_backend_tensor_get(t, sentinel, 0, sizeof(sentinel)));
    EXPECT_ERROR(ggml_backend_tensor_get(t, sentinel, 1, sizeof(src)));
    EXPECT_ERROR(ggml_backend_tensor_get(t, sentinel, SIZE_MAX - 2, 4));
    ok = true;
    for (int i = 0; i < N + 1; i++) {
        ok = ok && sentinel[i] == -1234.5f;
    }
    TEST_CHECK_MSG(ok, "%s: an out-of-range get wrote to the destination", ggml_backend_buft_name(buft));

    // NULL data pointer; empty range
    EXPECT_ERROR(ggml_backend_tensor_set(t, NULL, 0, 4));
    EXPECT_ERROR(ggml_backend_tensor_get(t, NULL, 0, 4));
    EXPECT_NO_ERROR(ggml_backend_tensor_set(t, NULL, 0, 0));
    EXPECT_NO_ERROR(ggml_backend_tensor_get(t, NULL, sizeof(src), 0));
    EXPECT_NO_ERROR(ggml_backend_tensor_memset(t, 0, 0, 0));

    // 2-D access: three rows of 2 floats, every 8 floats in the tensor, every 3 in the data
    float rows[9] = { 1, 2, -1, 3, 4, -1, 5, 6, -1 };
    EXPECT_NO_ERROR(ggml_backend_tensor_set_2d(t, rows, 4*sizeof(float), 2*sizeof(float), 3, 8*sizeof(float), 3*sizeof(float)));
    ggml_backend_tensor_get(t, back, 0, sizeof(back));
    TEST_CHECK(back[4] == 1 && back[5] == 2 && back[12] == 3 && back[13] == 4 && back[20] == 5 && back[21] == 6);
    TEST_CHECK(back[6] == src[6] && back[3] == src[3] && back[14] == src[14]);
    float rows_back[9];
    for (int i = 0; i < 9; i++) {
        rows_back[i] = -7;
    }
    EXPECT_NO_ERROR(ggml_backend_tensor_get_2d(t, rows_back, 4*sizeof(float), 2*sizeof(float), 3, 8*sizeof(float), 3*sizeof(float)));
    TEST_CHECK(rows_back[0] == 1 && rows_back[1] == 2 && rows_back[2] == -7 && rows_back[3] == 3 && rows_back[7] == 6);
    // the last row would end past the tensor
    EXPECT_ERROR(ggml_backend_tensor_set_2d(t, rows, 60*sizeof(float), 2*sizeof(float), 3, 8*sizeof(float), 3*sizeof(float)));
    EXPECT_ERROR(ggml_backend_tensor_get_2d(t, rows_back, 0, 4, SIZE_MAX, SIZE_MAX / 4, 4));

    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
}

static void test_unusable_tensors(void) {
    float x[4] = { 1, 2, 3, 4 };

    // no memory at all
    struct ggml_context * ctx = new_ctx(true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    EXPECT_ERROR(ggml_backend_tensor_set(t, x, 0, sizeof(x)));
    EXPECT_ERROR(ggml_backend_tensor_get(t, x, 0, sizeof(x)));
    EXPECT_ERROR(ggml_backend_tensor_memset(t, 0, 0, sizeof(x)));

    // a buffer but no data
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64);
    t->buffer = buf;
    EXPECT_ERROR(ggml_backend_tensor_set(t, x, 0, sizeof(x)));
    t->buffer = NULL;

    // data in a context, no buffer
    struct ggml_context * ctx2 = new_ctx(false);
    struct ggml_tensor * h = ggml_new_tensor_1d(ctx2, GGML_TYPE_F32, 4);
    EXPECT_ERROR(ggml_backend_tensor_set(h, x, 0, sizeof(x)));

    // a tensor from the wrong buffer: its buffer field names a buffer its data is not in
    ggml_backend_buffer_t other = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64);
    ggml_backend_tensor_alloc(buf, t, ggml_backend_buffer_get_base(buf));
    ggml_backend_tensor_set(t, x, 0, sizeof(x));
    ggml_backend_buffer_clear(other, 0);
    t->buffer = other;
    const float y[4] = { 5, 6, 7, 8 };
    EXPECT_ERROR(ggml_backend_tensor_set(t, y, 0, sizeof(y)));
    float z[4] = { 0, 0, 0, 0 };
    EXPECT_ERROR(ggml_backend_tensor_get(t, z, 0, sizeof(z)));
    TEST_CHECK(z[0] == 0 && z[3] == 0);
    t->buffer = buf;
    ggml_backend_tensor_get(t, z, 0, sizeof(z));
    TEST_CHECK(floats_equal(x, z, 4)); // untouched
    ggml_backend_buffer_t ob = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 64);
    t->buffer = ob; // a CPU tensor claiming to be in TEST memory: the backend must never see it
    long bad = stats().n_bad_access;
    EXPECT_ERROR(ggml_backend_tensor_set(t, y, 0, sizeof(y)));
    EXPECT_ERROR(ggml_backend_tensor_memset(t, 1, 0, sizeof(y)));
    TEST_CHECK(stats().n_bad_access == bad);
    t->buffer = buf;

    ggml_backend_buffer_free(ob);
    ggml_backend_buffer_free(other);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx2);
    ggml_free(ctx);
}

//
// copies
//

static void test_copies(void) {
    enum { N = 48 };
    ggml_backend_buffer_type_t cpu  = ggml_backend_cpu_buffer_type();
    ggml_backend_buffer_type_t tst  = test_backend_buffer_type(0);
    ggml_backend_buffer_type_t tst1 = test_backend_buffer_type(1);
    struct {
        ggml_backend_buffer_type_t from, to;
        bool cpy_tensor;
        const char * what;
    } cases[] = {
        { cpu,  tst,  true,  "CPU -> TEST" },
        { tst,  cpu,  true,  "TEST -> CPU" },
        { tst,  tst,  true,  "TEST -> TEST (cpy_tensor)" },
        { tst,  tst,  false, "TEST -> TEST (through host memory)" },
        { tst,  tst1, true,  "TEST -> TEST1 (cpy_tensor)" },
        { tst1, tst,  false, "TEST1 -> TEST (through host memory)" },
        { cpu,  cpu,  true,  "CPU -> CPU" },
    };
    for (size_t c = 0; c < sizeof(cases)/sizeof(cases[0]); c++) {
        struct ggml_context * ctx = new_ctx(true);
        ggml_backend_buffer_t b1 = NULL, b2 = NULL;
        struct ggml_tensor * a = new_placed(ctx, cases[c].from, N, &b1);
        struct ggml_tensor * b = new_placed(ctx, cases[c].to, N, &b2);
        if (a != NULL && b != NULL) {
            float src[N], dst[N], old[N];
            fill_random(src, N);
            fill_random(old, N);
            ggml_backend_tensor_set(a, src, 0, sizeof(src));
            ggml_backend_tensor_set(b, old, 0, sizeof(old));
            test_backend_set_cpy_tensor(cases[c].cpy_tensor);
            struct test_backend_stats s0 = stats();
            EXPECT_NO_ERROR(ggml_backend_tensor_copy(a, b));
            struct test_backend_stats s1 = stats();
            ggml_backend_tensor_get(b, dst, 0, sizeof(dst));
            TEST_CHECK_MSG(floats_equal(src, dst, N), "%s: copied data differs", cases[c].what);
            if (cases[c].from != cpu && cases[c].to != cpu) {
                if (cases[c].cpy_tensor) {
                    TEST_CHECK_MSG(s1.n_cpy_tensor == s0.n_cpy_tensor + 1, "%s: cpy_tensor not used", cases[c].what);
                } else {
                    TEST_CHECK_MSG(s1.n_get == s0.n_get + 1 && s1.n_set == s0.n_set + 1, "%s: not staged", cases[c].what);
                }
            }

            // mismatched layouts are refused and leave dst alone
            ggml_backend_tensor_set(b, old, 0, sizeof(old));
            struct ggml_tensor * r = ggml_reshape_2d(ctx, a, N/2, 2);
            if (r != NULL) {
                EXPECT_ERROR(ggml_backend_tensor_copy(r, b));
            }
            struct ggml_tensor * shorter = ggml_view_1d(ctx, a, N - 1, 0);
            if (shorter != NULL && ggml_backend_view_init(shorter) == GGML_STATUS_SUCCESS) {
                EXPECT_ERROR(ggml_backend_tensor_copy(shorter, b));
            }
            ggml_backend_tensor_get(b, dst, 0, sizeof(dst));
            TEST_CHECK_MSG(floats_equal(old, dst, N), "%s: a refused copy changed dst", cases[c].what);
            EXPECT_NO_ERROR(ggml_backend_tensor_copy(a, a));
            test_backend_set_cpy_tensor(true);
        }
        ggml_backend_buffer_free(b1);
        ggml_backend_buffer_free(b2);
        ggml_free(ctx);
    }

    // type mismatch
    struct ggml_context * ctx = new_ctx(true);
    ggml_backend_buffer_t b1 = NULL;
    struct ggml_tensor * a = new_placed(ctx, cpu, 8, &b1);
    struct ggml_tensor * i32 = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 8);
    ggml_backend_buffer_t b2 = ggml_backend_buft_alloc_buffer(cpu, 64);
    ggml_backend_tensor_alloc(b2, i32, ggml_backend_buffer_get_base(b2));
    EXPECT_ERROR(ggml_backend_tensor_copy(a, i32));
    // unallocated destination
    struct ggml_tensor * un = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    EXPECT_ERROR(ggml_backend_tensor_copy(a, un));
    ggml_backend_buffer_free(b1);
    ggml_backend_buffer_free(b2);

    // staging buffer allocation fails: reported, dst unchanged
    ggml_backend_buffer_t t1 = NULL, t2 = NULL;
    struct ggml_tensor * x = new_placed(ctx, tst, 8, &t1);
    struct ggml_tensor * y = new_placed(ctx, tst, 8, &t2);
    if (x != NULL && y != NULL) {
        float vx[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
        float vy[8] = { -1, -2, -3, -4, -5, -6, -7, -8 };
        ggml_backend_tensor_set(x, vx, 0, sizeof(vx));
        ggml_backend_tensor_set(y, vy, 0, sizeof(vy));
        test_backend_set_cpy_tensor(false);
        test_alloc_fault_set(1);
        EXPECT_ERROR(ggml_backend_tensor_copy(x, y));
        test_alloc_fault_set(0);
        test_backend_set_cpy_tensor(true);
        float got[8];
        ggml_backend_tensor_get(y, got, 0, sizeof(got));
        TEST_CHECK(floats_equal(got, vy, 8));

        // direct buffer copy, both directions of the result
        bool ok = ggml_backend_buffer_copy_tensor(x, y);
        TEST_CHECK(ok);
        ggml_backend_tensor_get(y, got, 0, sizeof(got));
        TEST_CHECK(floats_equal(got, vx, 8));
        test_backend_set_cpy_tensor(false);
        TEST_CHECK(!ggml_backend_buffer_copy_tensor(x, y));
        test_backend_set_cpy_tensor(true);
    }
    ggml_backend_buffer_free(t1);
    ggml_backend_buffer_free(t2);

    // a tensor with data in a context (no buffer) is host memory to tensor_copy
    struct ggml_context * hctx = new_ctx(false);
    struct ggml_tensor * h = ggml_new_tensor_1d(hctx, GGML_TYPE_F32, 8);
    ggml_backend_buffer_t t3 = NULL;
    struct ggml_tensor * d = new_placed(ctx, tst, 8, &t3);
    if (h != NULL && d != NULL) {
        float * hv = (float *) h->data;
        for (int i = 0; i < 8; i++) {
            hv[i] = 0.25f * (float) (i + 1);
        }
        EXPECT_NO_ERROR(ggml_backend_tensor_copy(h, d));
        float got[8];
        ggml_backend_tensor_get(d, got, 0, sizeof(got));
        TEST_CHECK(floats_equal(got, hv, 8));
        memset(hv, 0, 8 * sizeof(float));
        EXPECT_NO_ERROR(ggml_backend_tensor_copy(d, h));
        TEST_CHECK(floats_equal(got, hv, 8));
    }
    ggml_backend_buffer_free(t3);
    ggml_free(hctx);
    ggml_free(ctx);
}

//
// CPU_Mapped and multi-buffers
//

static void test_from_ptr(void) {
    enum { N = 32 };
    float * mem = (float *) malloc(N * sizeof(float));
    ggml_backend_buffer_t buf = ggml_backend_cpu_buffer_from_ptr(mem, N * sizeof(float));
    TEST_CHECK(buf != NULL);
    if (buf != NULL) {
        TEST_CHECK(strcmp(ggml_backend_buffer_name(buf), "CPU_Mapped") == 0);
        TEST_CHECK(ggml_backend_buffer_is_host(buf));
        TEST_CHECK(ggml_backend_buffer_get_base(buf) == (void *) mem);
        TEST_CHECK(ggml_backend_buffer_get_size(buf) == N * sizeof(float));

        struct ggml_context * ctx = new_ctx(true);
        struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
        TEST_CHECK(ggml_backend_tensor_alloc(buf, t, mem) == GGML_STATUS_SUCCESS);
        float src[N];
        fill_random(src, N);
        ggml_backend_tensor_set(t, src, 0, sizeof(src));
        TEST_CHECK(floats_equal(mem, src, N)); // written straight into the caller's memory
        ggml_backend_buffer_clear(buf, 0);
        TEST_CHECK(mem[0] == 0.0f && mem[N - 1] == 0.0f);
        ggml_backend_buffer_free(buf); // must not free mem
        ggml_free(ctx);
    }
    mem[0] = 1.0f; // still ours (ASan reports a use after free otherwise)
    free(mem);
}

static void test_multi_buffer(void) {
    ggml_backend_buffer_t parts[3] = {
        ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 256),
        ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 512),
        ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 128),
    };
    TEST_CHECK(stats().buffers_alive == 3);
    ggml_backend_buffer_t multi = ggml_backend_multi_buffer_alloc_buffer(parts, 3);
    TEST_CHECK(multi != NULL);
    if (multi != NULL) {
        TEST_CHECK(ggml_backend_buffer_is_multi_buffer(multi));
        TEST_CHECK(!ggml_backend_buffer_is_multi_buffer(parts[0]));
        TEST_CHECK(ggml_backend_buffer_get_size(multi) == 896);
        TEST_CHECK(ggml_backend_buffer_get_type(multi) == test_backend_buffer_type(0));
        ggml_backend_buffer_set_usage(multi, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        for (int i = 0; i < 3; i++) {
            TEST_CHECK(ggml_backend_buffer_get_usage(parts[i]) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        }
        long n_clear = stats().n_clear;
        ggml_backend_buffer_clear(multi, 7);
        TEST_CHECK(stats().n_clear == n_clear + 3);
        EXPECT_ERROR(ggml_backend_multi_buffer_set_usage(parts[0], GGML_BACKEND_BUFFER_USAGE_ANY));
        ggml_backend_buffer_free(multi); // frees the parts
    }
    TEST_CHECK(stats().buffers_alive == 0);

    // out of memory while bundling: the caller keeps the parts
    ggml_backend_buffer_t p2[2] = {
        ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64),
        ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 64),
    };
    for (long n = 1; n <= 3; n++) {
        test_alloc_fault_set(n);
        ggml_backend_buffer_t m = (ggml_backend_buffer_t) 1;
        EXPECT_ERROR(m = ggml_backend_multi_buffer_alloc_buffer(p2, 2));
        test_alloc_fault_set(0);
        TEST_CHECK_MSG(m == NULL, "allocation %ld failed but a multi-buffer was returned", n);
    }
    ggml_backend_buffer_t bad[2] = { p2[0], NULL };
    ggml_backend_buffer_t m = (ggml_backend_buffer_t) 1;
    EXPECT_ERROR(m = ggml_backend_multi_buffer_alloc_buffer(bad, 2));
    TEST_CHECK(m == NULL);
    ggml_backend_buffer_free(p2[0]);
    ggml_backend_buffer_free(p2[1]);
}

int main(void) {
    test_rng_init();

    test_cpu_buffer_type();
    test_test_buffer_type();
    test_buffer_type_defaults();
    test_zero_size();
    test_absurd_sizes();
    test_alloc_failures();
    test_null_arguments();
    test_tensor_alloc_and_views();
    test_set_get_memset(ggml_backend_cpu_buffer_type());
    test_set_get_memset(test_backend_buffer_type(0));
    test_unusable_tensors();
    test_copies();
    test_from_ptr();
    test_multi_buffer();

    struct test_backend_stats s = stats();
    TEST_CHECK_MSG(s.n_bad_access == 0, "the TEST backend caught %ld bad accesses", s.n_bad_access);
    TEST_CHECK_MSG(s.buffers_alive == 0, "%ld TEST buffers leaked", s.buffers_alive);

    return test_finish("test-backend-buffer");
}
