// Bad input to the public functions of ggml-alloc.h, ggml-backend.h and ggml-cpu.h: NULL
// objects, zero, negative and absurd sizes, out-of-range and overflowing offsets for tensor data
// access, tensors from the wrong buffer or backend, unallocated tensors, unknown names and paths,
// out-of-range indices, bad thread counts. Every case runs with the log captured; BAD cases must
// give the documented failure value and log an error, QUIET cases are documented silent answers
// (NULL-tolerant frees, "not found" lookups). Several helpers' tests cover parts of this in more
// depth (test-backend-buffer.c, test-backend-objects.c, test-backend-reg.c, test-sched-errors.c,
// test-alloc.c); this file goes through every function in one place.

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-backend.h"
#include "test-common.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char * __asan_default_options(void);
const char * __asan_default_options(void) {
    return "allocator_may_return_null=1";
}

static int g_cases;
static int g_errs;

static enum ggml_error_code g_code;

#define RUN(stmt) do { test_log_capture_begin(); ggml_clear_last_error(); stmt; g_errs = test_log_error_count(); \
        g_code = ggml_last_error(); test_log_capture_end(); g_cases++; } while (0)
#define BAD(stmt, cond) BAD_CODE(GGML_ERROR_INVALID_ARGUMENT, stmt, cond)
// same, and the last error must carry `code`
#define BAD_CODE(code, stmt, cond) do { RUN(stmt); TEST_CHECK_MSG((cond) && g_errs > 0, \
        "line %d: %s: expected (%s) and a logged error; got %s, %d errors", __LINE__, #stmt, #cond, (cond) ? "true" : "false", g_errs); \
        TEST_CHECK_MSG(g_code == (code), "line %d: %s: last error %s, expected %s", __LINE__, #stmt, \
        ggml_error_code_name(g_code), ggml_error_code_name(code)); } while (0)
#define QUIET(stmt, cond) do { RUN(stmt); TEST_CHECK_MSG((cond), "line %d: %s: expected (%s)", __LINE__, #stmt, #cond); } while (0)

// BAD in a forked child, for cases that have crashed the library: a crash then fails this case
// only. Exit codes: 0 passed, 1 wrong answer, 2 no error logged.
#define BAD_ISOLATED(stmt, cond) do {                                                         \
        fflush(stdout); fflush(stderr);                                                      \
        g_cases++;                                                                           \
        const pid_t pid_ = fork();                                                           \
        if (pid_ == 0) {                                                                     \
            test_log_capture_begin(); stmt; const int e_ = test_log_error_count();           \
            test_log_capture_end();                                                          \
            _exit(!(cond) ? 1 : e_ == 0 ? 2 : 0);                                            \
        }                                                                                    \
        int ws_ = 0;                                                                         \
        if (pid_ > 0) { waitpid(pid_, &ws_, 0); }                                            \
        TEST_CHECK_MSG(pid_ > 0 && WIFEXITED(ws_) && WEXITSTATUS(ws_) == 0,                  \
                "line %d: %s: expected (%s) and a logged error; the child %s %d", __LINE__,  \
                #stmt, #cond, WIFSIGNALED(ws_) ? "was killed by signal" : "exited with",     \
                WIFSIGNALED(ws_) ? WTERMSIG(ws_) : WEXITSTATUS(ws_));                        \
    } while (0)

static ggml_backend_t g_cpu;
static ggml_backend_t g_tb;

static struct ggml_context * ctx_new(size_t size, bool no_alloc) {
    struct ggml_init_params p = { size, NULL, no_alloc };
    return ggml_init(p);
}

static struct test_backend_stats stats(void) {
    struct test_backend_stats s;
    test_backend_get_stats(&s);
    return s;
}

//
// buffer types and buffers
//

static void test_buffers(void) {
    ggml_backend_buffer_type_t cpu_bt = ggml_backend_cpu_buffer_type();
    ggml_backend_buffer_type_t tb_bt = test_backend_buffer_type(0);
    ggml_backend_buffer_t b = (ggml_backend_buffer_t) 1;
    size_t sz = 1;
    const char * s = NULL;

    const size_t absurd[] = { SIZE_MAX, SIZE_MAX - 63, SIZE_MAX / 2 + 1, (size_t) 1 << 52 };
    for (size_t i = 0; i < sizeof(absurd) / sizeof(absurd[0]); i++) {
        BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_backend_buft_alloc_buffer(cpu_bt, absurd[i]), b == NULL);
        BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_backend_buft_alloc_buffer(tb_bt, absurd[i]), b == NULL);
        BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_backend_alloc_buffer(g_cpu, absurd[i]), b == NULL);
        BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_backend_alloc_buffer(g_tb, absurd[i]), b == NULL);
    }
    BAD(b = ggml_backend_alloc_buffer(NULL, 64), b == NULL);
    BAD(b = ggml_backend_buft_alloc_buffer(NULL, 64), b == NULL);
    BAD(s = ggml_backend_buft_name(NULL), s != NULL);
    BAD(sz = ggml_backend_buft_get_alignment(NULL), sz == 0);
    BAD(sz = ggml_backend_buft_get_max_size(NULL), sz == 0);
    BAD(sz = ggml_backend_buft_get_alloc_size(cpu_bt, NULL), sz == 0);
    bool h = true;
    BAD(h = ggml_backend_buft_is_host(NULL), !h);
    ggml_backend_dev_t dev = (ggml_backend_dev_t) 1;
    BAD(dev = ggml_backend_buft_get_device(NULL), dev == NULL);

    // host memory wrapped in a buffer: NULL, empty, absurd
    static _Alignas(64) uint8_t mem[256];
    BAD(b = ggml_backend_cpu_buffer_from_ptr(NULL, 64), b == NULL);
    // regression for finding F2 (fixed): ranges that wrap around the address space were accepted
    BAD(b = ggml_backend_cpu_buffer_from_ptr(mem, SIZE_MAX), b == NULL);
    ggml_backend_buffer_free(b);
    BAD(b = ggml_backend_cpu_buffer_from_ptr((void *) (UINTPTR_MAX - 63), 128), b == NULL); // wraps around
    ggml_backend_buffer_free(b == (ggml_backend_buffer_t) 1 ? NULL : b);
    b = NULL;
    BAD(b = ggml_backend_dev_buffer_from_host_ptr(NULL, mem, 64, 64), b == NULL);
    BAD(b = ggml_backend_dev_buffer_from_host_ptr(ggml_backend_get_device(g_cpu), NULL, 64, 64), b == NULL);
    BAD(b = ggml_backend_dev_buffer_from_host_ptr(ggml_backend_get_device(g_tb), mem, 64, 64), b == NULL); // not supported
    ggml_backend_buffer_free(b == (ggml_backend_buffer_t) 1 ? NULL : b);

    // buffer queries on NULL
    BAD(s = ggml_backend_buffer_name(NULL), s != NULL);
    QUIET(ggml_backend_buffer_free(NULL), true);
    BAD(sz = ggml_backend_buffer_get_size(NULL), sz == 0);
    void * base = (void *) 1;
    BAD(base = ggml_backend_buffer_get_base(NULL), base == NULL);
    BAD(sz = ggml_backend_buffer_get_alignment(NULL), sz == 0);
    BAD(sz = ggml_backend_buffer_get_max_size(NULL), sz == 0);
    BAD(ggml_backend_buffer_clear(NULL, 1), true);
    BAD(h = ggml_backend_buffer_is_host(NULL), !h);
    BAD(ggml_backend_buffer_set_usage(NULL, GGML_BACKEND_BUFFER_USAGE_WEIGHTS), true);
    enum ggml_backend_buffer_usage u = GGML_BACKEND_BUFFER_USAGE_COMPUTE;
    BAD(u = ggml_backend_buffer_get_usage(NULL), u == GGML_BACKEND_BUFFER_USAGE_ANY);
    ggml_backend_buffer_type_t bt = (ggml_backend_buffer_type_t) 1;
    BAD(bt = ggml_backend_buffer_get_type(NULL), bt == NULL);
    BAD(ggml_backend_buffer_reset(NULL), true);

    // an unknown usage value is refused
    ggml_backend_buffer_t cb = ggml_backend_buft_alloc_buffer(cpu_bt, 256);
    BAD(ggml_backend_buffer_set_usage(cb, (enum ggml_backend_buffer_usage) 77), ggml_backend_buffer_get_usage(cb) != (enum ggml_backend_buffer_usage) 77);
    BAD(ggml_backend_buffer_set_usage(cb, (enum ggml_backend_buffer_usage) -1), ggml_backend_buffer_get_usage(cb) != (enum ggml_backend_buffer_usage) -1);
    ggml_backend_buffer_free(cb);
}

//
// tensor placement and data access
//

static void test_tensor_data(void) {
    struct ggml_context * ctx = ctx_new(32 * ggml_tensor_overhead(), true);
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);   // placed in a CPU buffer
    struct ggml_tensor * u = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);   // placed in a TEST buffer
    struct ggml_tensor * n = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);   // never placed
    struct ggml_tensor * big = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1024);
    struct ggml_tensor * other = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * nv = ggml_view_1d(ctx, n, 4, 0);                  // view of an unplaced tensor
    ggml_backend_buffer_t cbuf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 256);
    ggml_backend_buffer_t tbuf = ggml_backend_buft_alloc_buffer(test_backend_buffer_type(0), 256);
    char * cbase = ggml_backend_buffer_get_base(cbuf);
    char * tbase = ggml_backend_buffer_get_base(tbuf);
    enum ggml_status st = GGML_STATUS_SUCCESS;

    BAD(st = ggml_backend_tensor_alloc(cbuf, NULL, cbase), st != GGML_STATUS_SUCCESS);
    BAD(st = ggml_backend_tensor_alloc(cbuf, t, NULL), st != GGML_STATUS_SUCCESS);
    BAD(st = ggml_backend_tensor_alloc(cbuf, t, cbase - 64), st != GGML_STATUS_SUCCESS && t->buffer == NULL);
    BAD(st = ggml_backend_tensor_alloc(cbuf, t, cbase + 200), st != GGML_STATUS_SUCCESS && t->buffer == NULL); // 64 bytes do not fit in 56
    BAD(st = ggml_backend_tensor_alloc(cbuf, big, cbase), st != GGML_STATUS_SUCCESS && big->buffer == NULL);
    BAD(st = ggml_backend_tensor_alloc(cbuf, t, (void *) UINTPTR_MAX), st != GGML_STATUS_SUCCESS);
    BAD(st = ggml_backend_tensor_alloc(tbuf, u, cbase), st != GGML_STATUS_SUCCESS); // an address of another buffer
    QUIET(st = ggml_backend_tensor_alloc(cbuf, t, cbase), st == GGML_STATUS_SUCCESS);
    QUIET(st = ggml_backend_tensor_alloc(tbuf, u, tbase), st == GGML_STATUS_SUCCESS);
    BAD(st = ggml_backend_tensor_alloc(tbuf, t, tbase + 128), st != GGML_STATUS_SUCCESS && t->buffer == cbuf); // already placed
    BAD(st = ggml_backend_view_init(NULL), st != GGML_STATUS_SUCCESS);
    BAD(st = ggml_backend_view_init(t), st != GGML_STATUS_SUCCESS);                 // not a view
    BAD(st = ggml_backend_view_init(nv), st != GGML_STATUS_SUCCESS);                // its source has no memory
    BAD(st = ggml_backend_buffer_init_tensor(cbuf, NULL), st != GGML_STATUS_SUCCESS);
    BAD(st = ggml_backend_buffer_init_tensor(NULL, t), st != GGML_STATUS_SUCCESS);
    // regression for finding F4 (fixed): the wrapper handed a tensor of another buffer to the
    // backend's init_tensor (the TEST backend notices and counts a bad access; a real device would not)
    const long n_bad_init = stats().n_bad_access;
    BAD(st = ggml_backend_buffer_init_tensor(tbuf, t), st != GGML_STATUS_SUCCESS);  // t lives in the CPU buffer
    TEST_CHECK_MSG(stats().n_bad_access == n_bad_init, "F4: ggml_backend_buffer_init_tensor passed a foreign tensor to the backend");

    float x[16], y[16];
    for (int i = 0; i < 16; i++) {
        x[i] = (float) i + 0.5f;
    }
    ggml_backend_tensor_set(t, x, 0, sizeof(x));
    ggml_backend_tensor_set(u, x, 0, sizeof(x));
    const size_t nb = sizeof(x);
    // out-of-range and overflowing offsets: logged, nothing written
    struct ggml_tensor * io[2] = { t, u };
    for (int k = 0; k < 2; k++) {
        struct ggml_tensor * z = io[k];
        const long n_bad0 = stats().n_bad_access;
        BAD(ggml_backend_tensor_set(z, x, 4, nb), true);
        BAD(ggml_backend_tensor_set(z, x, nb, 4), true);
        BAD(ggml_backend_tensor_set(z, x, SIZE_MAX - 2, 4), true);            // offset + size wraps
        BAD(ggml_backend_tensor_set(z, x, 4, SIZE_MAX - 2), true);
        BAD(ggml_backend_tensor_set(z, NULL, 0, 4), true);
        BAD(ggml_backend_tensor_get(z, y, 0, nb + 1), true);
        BAD(ggml_backend_tensor_get(z, y, SIZE_MAX, 1), true);
        BAD(ggml_backend_tensor_get(z, NULL, 0, 4), true);
        BAD(ggml_backend_tensor_memset(z, 0, 1, nb), true);
        BAD(ggml_backend_tensor_memset(z, 0, SIZE_MAX - 1, 2), true);
        // 2-D: the last block or the strides run past the end, n_copies * stride overflows
        BAD(ggml_backend_tensor_set_2d(z, x, 0, 8, 9, 8, 8), true);
        BAD(ggml_backend_tensor_set_2d(z, x, 0, 8, 2, SIZE_MAX / 2, 8), true);
        BAD(ggml_backend_tensor_set_2d(z, x, 0, 8, SIZE_MAX, 8, 8), true);
        BAD(ggml_backend_tensor_get_2d(z, y, 0, 8, 3, 32, SIZE_MAX / 2), true);
        BAD(ggml_backend_tensor_get_2d(z, y, 60, 8, 1, 8, 8), true);
        BAD(ggml_backend_tensor_set_async(g_tb, z, x, 4, nb), true);
        BAD(ggml_backend_tensor_get_async(g_cpu, z, y, SIZE_MAX - 1, 4), true);
        BAD(ggml_backend_tensor_set_2d_async(g_tb, z, x, 0, 8, SIZE_MAX / 4, 8, 8), true);
        BAD(ggml_backend_tensor_get_2d_async(g_tb, z, y, 0, 8, 2, SIZE_MAX, 8), true);
        ggml_backend_synchronize(g_tb);
        memset(y, 0, sizeof(y));
        ggml_backend_tensor_get(z, y, 0, nb);
        TEST_CHECK_MSG(memcmp(x, y, nb) == 0, "tensor %d changed by refused writes", k);
        TEST_CHECK(stats().n_bad_access == n_bad0);
        // zero bytes at the end: nothing to do, nothing wrong
        QUIET(ggml_backend_tensor_set(z, x, nb, 0), true);
        QUIET(ggml_backend_tensor_get(z, y, 0, 0), true);
    }
    // tensors without memory
    BAD(ggml_backend_tensor_set(n, x, 0, 4), true);
    BAD(ggml_backend_tensor_get(n, y, 0, 4), true);
    BAD(ggml_backend_tensor_memset(n, 0, 0, 4), true);
    BAD(ggml_backend_tensor_set(nv, x, 0, 4), true);
    // copies between tensors of different sizes, or without memory
    BAD(ggml_backend_tensor_copy(t, other), true);
    BAD(ggml_backend_tensor_copy(n, u), true);
    BAD(ggml_backend_tensor_copy(u, n), true);
    BAD(ggml_backend_tensor_copy_async(g_tb, g_cpu, n, t), true);
    BAD(ggml_backend_tensor_copy_async(NULL, g_cpu, u, t), true);
    BAD(ggml_backend_tensor_copy_async(g_tb, NULL, u, t), true);
    BAD(ggml_backend_tensor_copy_async(g_tb, g_cpu, u, NULL), true);
    // element access to device memory is refused (its data pointer is not host memory)
    float fv = -1;
    BAD(fv = ggml_get_f32_1d(u, 0), fv == 0.0f);
    BAD(ggml_set_f32_1d(u, 0, 3.0f), true);
    BAD(ggml_set_f32(u, 3.0f), true);
    BAD(ggml_set_zero(u), true);

    ggml_backend_buffer_free(tbuf);
    ggml_backend_buffer_free(cbuf);
    ggml_free(ctx);
}

//
// allocators
//

static void test_allocators(void) {
    struct ggml_context * ctx = ctx_new(ggml_graph_overhead() + 32 * ggml_tensor_overhead(), true);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    // 1 PiB of data: beyond the 47-bit user address space, so no allocation can succeed, not even
    // where the kernel overcommits memory without limit (vm.overcommit_memory=1)
    struct ggml_tensor * huge = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) 1 << 48);
    struct ggml_tensor * c = ggml_scale(ctx, a, 2.0f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    enum ggml_status st = GGML_STATUS_SUCCESS;

    // linear allocator
    struct ggml_tallocr ta;
    BAD(ta = ggml_tallocr_new(NULL), ta.buffer == NULL);
    BAD(st = ggml_tallocr_alloc(&ta, a), st != GGML_STATUS_SUCCESS && a->buffer == NULL);
    BAD(st = ggml_tallocr_alloc(NULL, a), st != GGML_STATUS_SUCCESS);
    ggml_backend_buffer_t small = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), 128);
    ta = ggml_tallocr_new(small);
    BAD(st = ggml_tallocr_alloc(&ta, NULL), st != GGML_STATUS_SUCCESS);
    BAD(st = ggml_tallocr_alloc(&ta, a), st == GGML_STATUS_ALLOC_FAILED && a->buffer == NULL); // 256 > 128
    BAD(st = ggml_tallocr_alloc(&ta, huge), st == GGML_STATUS_ALLOC_FAILED);
    ggml_backend_buffer_free(small);

    // graph allocator
    ggml_gallocr_t ga = (ggml_gallocr_t) 1;
    BAD(ga = ggml_gallocr_new(NULL), ga == NULL);
    ggml_backend_buffer_type_t bts[3] = { ggml_backend_cpu_buffer_type(), NULL, test_backend_buffer_type(0) };
    BAD(ga = ggml_gallocr_new_n(NULL, 2), ga == NULL);
    BAD(ga = ggml_gallocr_new_n(bts, 0), ga == NULL);
    BAD(ga = ggml_gallocr_new_n(bts, -1), ga == NULL);
    BAD(ga = ggml_gallocr_new_n(bts, 2), ga == NULL);          // a NULL buffer type
    QUIET(ggml_gallocr_free(NULL), true);
    ga = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    bool ok = true;
    BAD(ok = ggml_gallocr_reserve(NULL, gf), !ok);
    BAD(ok = ggml_gallocr_reserve(ga, NULL), !ok);
    const int bad_ids[4] = { 5, 5, 5, 5 };
    const int neg_ids[4] = { -1, -1, -1, -1 };
    BAD(ok = ggml_gallocr_reserve_n(ga, gf, bad_ids, NULL), !ok);
    BAD(ok = ggml_gallocr_reserve_n(ga, gf, NULL, neg_ids), !ok);
    size_t sizes[2] = { 7, 7 };
    BAD(ggml_gallocr_reserve_n_size(ga, gf, bad_ids, NULL, sizes), sizes[0] == 0);
    BAD(ggml_gallocr_reserve_n_size(ga, NULL, NULL, NULL, sizes), sizes[0] == 0);
    BAD(ggml_gallocr_reserve_n_size(ga, gf, NULL, NULL, NULL), true);
    BAD(ok = ggml_gallocr_alloc_graph(NULL, gf), !ok);
    BAD(ok = ggml_gallocr_alloc_graph(ga, NULL), !ok);
    size_t sz = 1;
    BAD(sz = ggml_gallocr_get_buffer_size(NULL, 0), sz == 0);
    BAD(sz = ggml_gallocr_get_buffer_size(ga, 1), sz == 0);
    BAD(sz = ggml_gallocr_get_buffer_size(ga, -1), sz == 0);
    // a graph whose tensors need more than any buffer can hold
    struct ggml_tensor * hc = ggml_scale(ctx, huge, 2.0f);
    struct ggml_cgraph * hg = ggml_new_graph_custom(ctx, 8, false);
    ggml_build_forward_expand(hg, hc);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, ok = ggml_gallocr_alloc_graph(ga, hg), !ok);
    QUIET(ok = ggml_gallocr_alloc_graph(ga, gf), ok); // and it recovers
    ggml_gallocr_free(ga);

    // a context's tensors
    ggml_backend_buffer_t b = (ggml_backend_buffer_t) 1;
    BAD(b = ggml_backend_alloc_ctx_tensors(NULL, g_cpu), b == NULL);
    BAD(b = ggml_backend_alloc_ctx_tensors(ctx, NULL), b == NULL);
    BAD(b = ggml_backend_alloc_ctx_tensors_from_buft(ctx, NULL), b == NULL);
    BAD(b = ggml_backend_alloc_ctx_tensors_from_buft(NULL, ggml_backend_cpu_buffer_type()), b == NULL);
    BAD(sz = ggml_backend_alloc_ctx_tensors_from_buft_size(NULL, ggml_backend_cpu_buffer_type()), sz == 0);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type()), b == NULL); // holds 1 PiB
    struct ggml_context * actx = ctx_new(1 << 16, false); // tensors with data: nothing to allocate
    ggml_new_tensor_1d(actx, GGML_TYPE_F32, 4);
    QUIET(b = ggml_backend_alloc_ctx_tensors_from_buft(actx, ggml_backend_cpu_buffer_type()), b == NULL);
    ggml_free(actx);
    ggml_free(ctx);
}

//
// backends, graphs, plans, events
//

static void test_backends(void) {
    struct ggml_context * ctx = ctx_new(ggml_graph_overhead() + 16 * ggml_tensor_overhead() + 4096, false);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    ggml_set_f32(a, 1.0f);
    struct ggml_tensor * c = ggml_scale(ctx, a, 2.0f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    const char * s = NULL;
    size_t sz = 1;
    bool ok = true;

    QUIET(ggml_backend_free(NULL), true);
    ggml_guid_t gd = (ggml_guid_t) 1;
    BAD(gd = ggml_backend_guid(NULL), gd == NULL);
    BAD(s = ggml_backend_name(NULL), s != NULL && strcmp(s, "NULL") == 0); // "NULL", as every name getter
    ggml_backend_buffer_type_t bt = (ggml_backend_buffer_type_t) 1;
    BAD(bt = ggml_backend_get_default_buffer_type(NULL), bt == NULL);
    BAD(sz = ggml_backend_get_alignment(NULL), sz == 0);
    BAD(sz = ggml_backend_get_max_size(NULL), sz == 0);
    BAD(ggml_backend_synchronize(NULL), true);
    BAD(st = ggml_backend_graph_compute(NULL, gf), st == GGML_STATUS_FAILED);
    BAD(st = ggml_backend_graph_compute(g_cpu, NULL), st == GGML_STATUS_FAILED);
    BAD(st = ggml_backend_graph_compute_async(NULL, gf), st == GGML_STATUS_FAILED);
    BAD(st = ggml_backend_graph_compute_async(g_cpu, NULL), st == GGML_STATUS_FAILED);
    ggml_backend_graph_plan_t plan = (ggml_backend_graph_plan_t) 1;
    BAD(plan = ggml_backend_graph_plan_create(NULL, gf), plan == NULL);
    BAD(plan = ggml_backend_graph_plan_create(g_cpu, NULL), plan == NULL);
    BAD_CODE(GGML_ERROR_UNSUPPORTED, plan = ggml_backend_graph_plan_create(g_tb, gf), plan == NULL);  // the TEST backend has no plans
    BAD(st = ggml_backend_graph_plan_compute(g_cpu, NULL), st == GGML_STATUS_FAILED);
    BAD(st = ggml_backend_graph_plan_compute(NULL, NULL), st == GGML_STATUS_FAILED);
    BAD(ggml_backend_graph_plan_free(NULL, NULL), true);
    QUIET(ggml_backend_graph_plan_free(g_cpu, NULL), true);
    BAD(ok = ggml_backend_supports_op(NULL, c), !ok);
    BAD(ok = ggml_backend_supports_op(g_cpu, NULL), !ok);
    BAD(ok = ggml_backend_supports_buft(NULL, ggml_backend_cpu_buffer_type()), !ok);
    BAD(ok = ggml_backend_supports_buft(g_cpu, NULL), !ok);
    BAD(ok = ggml_backend_offload_op(NULL, c), !ok);
    BAD(ok = ggml_backend_offload_op(g_cpu, NULL), !ok);
    ggml_backend_dev_t dev = (ggml_backend_dev_t) 1;
    BAD(dev = ggml_backend_get_device(NULL), dev == NULL);

    // tensors from the wrong place: CPU data on TEST, TEST data on the CPU, no data at all
    BAD(st = ggml_backend_graph_compute(g_tb, gf), st == GGML_STATUS_FAILED);
    struct ggml_context * nctx = ctx_new(ggml_graph_overhead() + 8 * ggml_tensor_overhead(), true);
    struct ggml_tensor * na = ggml_new_tensor_1d(nctx, GGML_TYPE_F32, 16);
    struct ggml_tensor * nc = ggml_scale(nctx, na, 2.0f);
    struct ggml_cgraph * ng = ggml_new_graph(nctx);
    ggml_build_forward_expand(ng, nc);
    BAD(st = ggml_backend_graph_compute(g_cpu, ng), st == GGML_STATUS_FAILED);   // not allocated
    ggml_backend_buffer_t tbuf = ggml_backend_alloc_ctx_tensors(nctx, g_tb);
    const long n_bad0 = stats().n_bad_access;
    // regression for finding F3 (fixed): the CPU dereferenced device addresses (SIGSEGV)
    BAD_ISOLATED(st = ggml_backend_graph_compute(g_cpu, ng), st == GGML_STATUS_FAILED);   // device memory
    TEST_CHECK(stats().n_bad_access == n_bad0);
    struct ggml_cplan cp = ggml_graph_plan(ng, 1, NULL);
    BAD_ISOLATED(st = ggml_graph_compute(ng, &cp), st == GGML_STATUS_FAILED);
    ggml_backend_buffer_free(tbuf);
    ggml_free(nctx);

    // an op the TEST backend does not implement
    struct ggml_tensor * sq = ggml_sqr(ctx, a);
    struct ggml_cgraph * sg = ggml_new_graph_custom(ctx, 8, false);
    ggml_build_forward_expand(sg, sq);
    QUIET(ok = ggml_backend_supports_op(g_tb, sq), !ok);

    // graph copies
    struct ggml_backend_graph_copy cpy;
    BAD(cpy = ggml_backend_graph_copy(NULL, gf), cpy.graph == NULL && cpy.buffer == NULL && cpy.ctx_allocated == NULL);
    BAD(cpy = ggml_backend_graph_copy(g_tb, NULL), cpy.graph == NULL && cpy.buffer == NULL);
    struct ggml_backend_graph_copy zero = { 0 };
    QUIET(ggml_backend_graph_copy_free(zero), true);
    BAD(ok = ggml_backend_compare_graph_backend(NULL, g_tb, gf, NULL, NULL), !ok);
    BAD(ok = ggml_backend_compare_graph_backend(g_cpu, NULL, gf, NULL, NULL), !ok);
    BAD(ok = ggml_backend_compare_graph_backend(g_cpu, g_tb, NULL, NULL, NULL), !ok);
    BAD(ok = ggml_backend_compare_graph_backend_ext(g_cpu, g_tb, gf, NULL, NULL, NULL, 3), !ok); // 3 nodes, no list

    // events
    ggml_backend_event_t ev = (ggml_backend_event_t) 1;
    BAD(ev = ggml_backend_event_new(NULL), ev == NULL);
    QUIET(ev = ggml_backend_event_new(ggml_backend_get_device(g_cpu)), ev == NULL); // the CPU has no events
    QUIET(ggml_backend_event_free(NULL), true);
    BAD(ggml_backend_event_record(NULL, g_tb), true);
    BAD(ggml_backend_event_synchronize(NULL), true);
    BAD(ggml_backend_event_wait(g_tb, NULL), true);
    ev = ggml_backend_event_new(ggml_backend_get_device(g_tb));
    BAD(ggml_backend_event_record(ev, NULL), true);
    BAD(ggml_backend_event_wait(NULL, ev), true);
    BAD(ggml_backend_event_record(ev, g_cpu), true);      // a backend of another device
    ggml_backend_event_free(ev);
    ggml_free(ctx);
}

//
// devices and the registry
//

static void test_registry(void) {
    const char * s = NULL;
    size_t n = 1;
    ggml_backend_dev_t dev = (ggml_backend_dev_t) 1;
    ggml_backend_reg_t reg = (ggml_backend_reg_t) 1;
    ggml_backend_t be = (ggml_backend_t) 1;
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();

    BAD(s = ggml_backend_dev_name(NULL), s == NULL || s != NULL);
    BAD(s = ggml_backend_dev_description(NULL), s == NULL || s != NULL);
    size_t fr = 7, tot = 7;
    BAD(ggml_backend_dev_memory(NULL, &fr, &tot), fr == 0 && tot == 0);
    QUIET(ggml_backend_dev_memory(ggml_backend_get_device(g_cpu), NULL, NULL), true); // nowhere to write: nothing done
    enum ggml_backend_dev_type dt = GGML_BACKEND_DEVICE_TYPE_GPU;
    BAD(dt = ggml_backend_dev_type(NULL), dt == GGML_BACKEND_DEVICE_TYPE_CPU || true);
    struct ggml_backend_dev_props props;
    memset(&props, 0x5a, sizeof(props));
    BAD(ggml_backend_dev_get_props(NULL, &props), true);
    BAD(ggml_backend_dev_get_props(ggml_backend_get_device(g_cpu), NULL), true);
    BAD(reg = ggml_backend_dev_backend_reg(NULL), reg == NULL);
    BAD(be = ggml_backend_dev_init(NULL, NULL), be == NULL);
    ggml_backend_buffer_type_t bt = (ggml_backend_buffer_type_t) 1;
    BAD(bt = ggml_backend_dev_buffer_type(NULL), bt == NULL);
    BAD(bt = ggml_backend_dev_host_buffer_type(NULL), bt == NULL);
    bool ok = true;
    BAD(ok = ggml_backend_dev_supports_op(NULL, NULL), !ok);
    BAD(ok = ggml_backend_dev_supports_op(ggml_backend_get_device(g_cpu), NULL), !ok);
    BAD(ok = ggml_backend_dev_supports_buft(NULL, ggml_backend_cpu_buffer_type()), !ok);
    BAD(ok = ggml_backend_dev_supports_buft(ggml_backend_get_device(g_cpu), NULL), !ok);
    BAD(ok = ggml_backend_dev_offload_op(NULL, NULL), !ok);

    BAD(s = ggml_backend_reg_name(NULL), s != NULL && strcmp(s, "NULL") == 0);
    BAD(n = ggml_backend_reg_dev_count(NULL), n == 0);
    BAD(dev = ggml_backend_reg_dev_get(NULL, 0), dev == NULL);
    BAD(dev = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 1), dev == NULL);
    BAD(dev = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), SIZE_MAX), dev == NULL);
    void * p = (void *) 1;
    BAD(p = ggml_backend_reg_get_proc_address(NULL, "ggml_backend_set_n_threads"), p == NULL);
    BAD(p = ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), NULL), p == NULL);
    QUIET(p = ggml_backend_reg_get_proc_address(ggml_backend_cpu_reg(), "no_such_function"), p == NULL);
    BAD(ggml_backend_register(NULL), true);
    BAD(ggml_backend_device_register(NULL), true);
    BAD(reg = ggml_backend_reg_get(n_reg), reg == NULL);
    BAD(reg = ggml_backend_reg_get(SIZE_MAX), reg == NULL);
    BAD(dev = ggml_backend_dev_get(n_dev), dev == NULL);
    BAD(dev = ggml_backend_dev_get(SIZE_MAX), dev == NULL);
    BAD(reg = ggml_backend_reg_by_name(NULL), reg == NULL);
    QUIET(reg = ggml_backend_reg_by_name("no-such-backend"), reg == NULL); // not found: NULL
    QUIET(reg = ggml_backend_reg_by_name("cpu"), reg == ggml_backend_cpu_reg());  // case-insensitive
    BAD(dev = ggml_backend_dev_by_name(NULL), dev == NULL);
    QUIET(dev = ggml_backend_dev_by_name(""), dev == NULL);
    QUIET(dev = ggml_backend_dev_by_type((enum ggml_backend_dev_type) 99), dev == NULL);
    QUIET(dev = ggml_backend_dev_by_type((enum ggml_backend_dev_type) -1), dev == NULL);
    BAD(be = ggml_backend_init_by_name(NULL, NULL), be == NULL);
    BAD(be = ggml_backend_init_by_name("no-such-device", NULL), be == NULL);
    BAD(be = ggml_backend_init_by_type((enum ggml_backend_dev_type) 99, NULL), be == NULL);
    char longname[5000];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    BAD(be = ggml_backend_init_by_name(longname, NULL), be == NULL);

    // loading: nothing there, not a library, a directory, an absurd path
    BAD(reg = ggml_backend_load(NULL), reg == NULL);
    BAD(reg = ggml_backend_load(""), reg == NULL);
    BAD(reg = ggml_backend_load("/nonexistent-dir-ggml/libggml-x.so"), reg == NULL);
    BAD(reg = ggml_backend_load("/"), reg == NULL);
    BAD(reg = ggml_backend_load("/dev/null"), reg == NULL);
    BAD(reg = ggml_backend_load(longname), reg == NULL);
    BAD(ggml_backend_unload(NULL), true);
    test_log_capture_begin();
    const bool test_registered = ggml_backend_reg_by_name("TEST") != NULL;
    test_log_capture_end();
    if (!test_registered) { // a registry that was never registered
        BAD(ggml_backend_unload(test_backend_reg()), ggml_backend_reg_count() == n_reg);
    }
    QUIET(ggml_backend_load_all_from_path("/nonexistent-dir-ggml"), true);
    QUIET(ggml_backend_load_all_from_path("/dev/null"), true);
    QUIET(ggml_backend_load_all_from_path(longname), true);
    QUIET(ggml_backend_load_all_from_path(NULL), true);   // NULL: the default search paths
    TEST_CHECK(ggml_backend_reg_count() >= n_reg);
    TEST_CHECK(ggml_backend_reg_by_name("CPU") != NULL);
}

//
// the scheduler
//

static void test_sched(void) {
    ggml_backend_t two[2] = { g_tb, g_cpu };
    ggml_backend_sched_t s = (ggml_backend_sched_t) 1;
    BAD(s = ggml_backend_sched_new(NULL, NULL, 1, 64, false), s == NULL);
    BAD(s = ggml_backend_sched_new(two, NULL, -1, 64, false), s == NULL);
    BAD(s = ggml_backend_sched_new(two, NULL, INT_MAX, 64, false), s == NULL);
    BAD(s = ggml_backend_sched_new(two, NULL, 2, SIZE_MAX, false), s == NULL);
    BAD(s = ggml_backend_sched_new(two, NULL, 2, (size_t) 1 << 40, false), s == NULL);
    BAD(s = ggml_backend_sched_new_ext(two, NULL, 2, 0, true, true), s == NULL);
    QUIET(ggml_backend_sched_free(NULL), true);
    s = ggml_backend_sched_new(two, NULL, 2, 64, false);
    TEST_CHECK(s != NULL);
    ggml_backend_t be = (ggml_backend_t) 1;
    BAD(be = ggml_backend_sched_get_backend(s, 2), be == NULL);
    BAD(be = ggml_backend_sched_get_backend(s, INT_MIN), be == NULL);
    BAD(be = ggml_backend_sched_get_backend(NULL, 0), be == NULL);
    int n = -1;
    BAD(n = ggml_backend_sched_get_n_splits(NULL), n == 0);
    BAD(n = ggml_backend_sched_get_n_copies(NULL), n == 0);
    size_t sz = 1;
    BAD(sz = ggml_backend_sched_get_buffer_size(NULL, g_cpu), sz == 0);
    BAD(ggml_backend_sched_set_eval_callback(NULL, NULL, NULL), true);
    size_t sizes[2] = { 1, 1 };
    BAD(ggml_backend_sched_reserve_size(NULL, NULL, sizes), true);
    // a graph larger than the scheduler's graph_size
    struct ggml_context * ctx = ctx_new(ggml_graph_overhead() + 256 * ggml_tensor_overhead(), true);
    struct ggml_tensor * cur = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_input(cur);
    for (int i = 0; i < 100; i++) {
        cur = ggml_scale(ctx, cur, 1.5f);
    }
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 256, false);
    ggml_build_forward_expand(gf, cur);
    bool ok = true;
    BAD(ok = ggml_backend_sched_alloc_graph(s, gf), !ok);
    ggml_backend_sched_reset(s);
    BAD(ok = ggml_backend_sched_reserve(s, gf), !ok);
    ggml_backend_sched_free(s);
    ggml_free(ctx);
}

//
// the CPU backend and thread pools
//

static bool never_abort(void * data) {
    (void) data;
    return false;
}

static void test_cpu(void) {
    bool ok = true;
    QUIET(ok = ggml_backend_is_cpu(NULL), !ok);
    QUIET(ok = ggml_backend_is_cpu(g_tb), !ok);
    BAD(ggml_backend_cpu_set_n_threads(NULL, 2), true);
    BAD(ggml_backend_cpu_set_n_threads(g_tb, 2), true);             // not a CPU backend
    BAD(ggml_backend_cpu_set_n_threads(g_cpu, 0), true);
    BAD(ggml_backend_cpu_set_n_threads(g_cpu, -3), true);
    BAD(ggml_backend_cpu_set_n_threads(g_cpu, GGML_MAX_N_THREADS + 1), true);
    BAD(ggml_backend_cpu_set_n_threads(g_cpu, INT_MAX), true);
    BAD(ggml_backend_cpu_set_threadpool(NULL, NULL), true);
    BAD(ggml_backend_cpu_set_threadpool(g_tb, NULL), true);
    BAD(ggml_backend_cpu_set_abort_callback(NULL, never_abort, NULL), true);
    BAD(ggml_backend_cpu_set_abort_callback(g_tb, never_abort, NULL), true);
    BAD(ggml_backend_cpu_set_use_ref(NULL, true), true);
    BAD(ggml_backend_cpu_set_use_ref(g_tb, true), true);

    // thread pool parameters
    struct ggml_threadpool_params p;
    BAD(ggml_threadpool_params_init(NULL, 4), true);
    QUIET(ok = ggml_threadpool_params_match(NULL, NULL), !ok || ok);
    p = ggml_threadpool_params_default(4);
    QUIET(ok = ggml_threadpool_params_match(&p, NULL), !ok);
    struct ggml_threadpool * tp = (struct ggml_threadpool *) 1;
    BAD(tp = ggml_threadpool_new(NULL), tp == NULL);
    const int bad_n[] = { 0, -1, GGML_MAX_N_THREADS + 1, INT_MAX, INT_MIN };
    for (size_t i = 0; i < sizeof(bad_n) / sizeof(bad_n[0]); i++) {
        p = ggml_threadpool_params_default(4);
        p.n_threads = bad_n[i];
        BAD(tp = ggml_threadpool_new(&p), tp == NULL);
    }
    // out-of-range priority and polling level: refused or clamped (the family documents neither)
    p = ggml_threadpool_params_default(2);
    p.prio = (enum ggml_sched_priority) 99;
    QUIET(tp = ggml_threadpool_new(&p), true);
    ggml_threadpool_free(tp);
    p = ggml_threadpool_params_default(2);
    p.poll = 1000;
    QUIET(tp = ggml_threadpool_new(&p), true);
    ggml_threadpool_free(tp);
    // affinity to every CPU, strict placement on CPUs that may not exist: best effort, no failure
    p = ggml_threadpool_params_default(2);
    memset(p.cpumask, 1, sizeof(p.cpumask));
    p.strict_cpu = true;
    QUIET(tp = ggml_threadpool_new(&p), tp != NULL);
    ggml_threadpool_free(tp);
    QUIET(ggml_threadpool_free(NULL), true);
    int nt = -1;
    BAD(nt = ggml_threadpool_get_n_threads(NULL), nt == 0);
    BAD(ggml_threadpool_pause(NULL), true);
    BAD(ggml_threadpool_resume(NULL), true);
    QUIET(ggml_numa_init((enum ggml_numa_strategy) 99), true);
    QUIET(ggml_numa_init(GGML_NUMA_STRATEGY_COUNT), true);

    // plans
    struct ggml_context * ctx = ctx_new(ggml_graph_overhead() + 8 * ggml_tensor_overhead() + 1024, false);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 16);
    ggml_set_f32(a, 2.0f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, ggml_sqr(ctx, a));
    struct ggml_cplan cp;
    BAD(cp = ggml_graph_plan(NULL, 1, NULL), cp.n_threads <= 0);
    // n_threads <= 0 means the default, as in the family; too many threads are refused or clamped
    QUIET(cp = ggml_graph_plan(gf, 0, NULL), cp.n_threads > 0);
    QUIET(cp = ggml_graph_plan(gf, -1, NULL), cp.n_threads > 0);
    QUIET(cp = ggml_graph_plan(gf, GGML_MAX_N_THREADS + 1, NULL), cp.n_threads <= GGML_MAX_N_THREADS);
    QUIET(cp = ggml_graph_plan(gf, INT_MAX, NULL), cp.n_threads <= GGML_MAX_N_THREADS);
    enum ggml_status st = GGML_STATUS_SUCCESS;
    BAD(st = ggml_graph_compute(NULL, NULL), st == GGML_STATUS_FAILED);
    BAD(st = ggml_graph_compute(gf, NULL), st == GGML_STATUS_FAILED);
    cp = ggml_graph_plan(gf, 1, NULL);
    struct ggml_cplan bad = cp;
    bad.n_threads = 0;
    BAD(st = ggml_graph_compute(gf, &bad), st == GGML_STATUS_FAILED);
    bad = cp;
    bad.n_threads = -5;
    BAD(st = ggml_graph_compute(gf, &bad), st == GGML_STATUS_FAILED);
    bad = cp;
    bad.work_size = 1 << 20; // claims a work buffer but has none
    bad.work_data = NULL;
    BAD(st = ggml_graph_compute(gf, &bad), st == GGML_STATUS_FAILED);
    // a plan made for a graph that later grew: the work buffer is checked again
    struct ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 16, 4);
    struct ggml_tensor * v = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 4);
    if (w != NULL && v != NULL) {
        memset(w->data, 0, ggml_nbytes(w));
        memset(v->data, 0, ggml_nbytes(v));
        struct ggml_cplan small = ggml_graph_plan(gf, 2, NULL);
        ggml_build_forward_expand(gf, ggml_mul_mat(ctx, w, v));
        struct ggml_cplan need = ggml_graph_plan(gf, 2, NULL);
        if (need.work_size > small.work_size) {
            uint8_t * work = small.work_size > 0 ? malloc(small.work_size) : NULL;
            small.work_data = work;
            BAD(st = ggml_graph_compute(gf, &small), st == GGML_STATUS_FAILED);
            free(work);
        }
    }
    BAD(st = ggml_graph_compute_with_ctx(ctx, NULL, 0), st == GGML_STATUS_FAILED);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    g_cpu = ggml_backend_cpu_init();
    g_tb = test_backend_init();
    if (g_cpu == NULL || g_tb == NULL) {
        fprintf(stderr, "cannot create the backends\n");
        return 1;
    }
    const struct test_backend_stats s0 = stats();
    test_buffers();
    test_tensor_data();
    test_allocators();
    test_backends();
    test_registry();
    test_sched();
    test_cpu();
    const struct test_backend_stats s1 = stats();
    TEST_CHECK_MSG(s1.buffers_alive == s0.buffers_alive, "%ld TEST buffers leaked", s1.buffers_alive - s0.buffers_alive);
    TEST_CHECK(s1.n_bad_access == 0);
    ggml_backend_free(g_tb);
    ggml_backend_free(g_cpu);
    printf("bad-input cases (ggml-alloc.h, ggml-backend.h, ggml-cpu.h): %d\n", g_cases);
    return test_finish("test-bad-input-backend");
}
