// The backend registry and dynamic loading: enumeration, lookups by name and type, loading the
// test module (tests/modules/test-module.c) and computing with it, unloading and reloading, the
// choice of the best-scored variant by ggml_backend_load_all_from_path, and the refusal of broken
// modules (no entry point, NULL registry, wrong API version, not a shared library, score 0).
//
// The module directory comes from argv[1], else from the compile definition TEST_MODULES_DIR
// (set by tests/modules/CMakeLists.txt).

#define _POSIX_C_SOURCE 200809L // setenv, unsetenv

#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-impl.h"
#include "ggml.h"
#include "test-common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char * g_dir;

static void module_path(char * out, size_t size, const char * file) {
    snprintf(out, size, "%s/%s", g_dir, file);
}

// calls a module's proc address that returns a string / an int (the test module's extensions)
static const char * module_variant(ggml_backend_reg_t reg) {
    void * p = ggml_backend_reg_get_proc_address(reg, "testmod_variant");
    if (p == NULL) {
        return NULL;
    }
    const char * (*fn)(void);
    memcpy(&fn, &p, sizeof(fn));
    return fn();
}

static int module_live_objects(ggml_backend_reg_t reg) {
    void * p = ggml_backend_reg_get_proc_address(reg, "testmod_live_objects");
    if (p == NULL) {
        return -1;
    }
    int (*fn)(void);
    memcpy(&fn, &p, sizeof(fn));
    return fn();
}

static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) text;
    (void) user_data;
}

static bool log_has(const char * needle) {
    return strstr(test_log_text(), needle) != NULL;
}

//
// arguments that are NULL, out of range or unknown: NULL / 0 and a log line, never a crash
//

static void test_bad_arguments(void) {
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();

    test_log_capture_begin();
    TEST_CHECK(strcmp(ggml_backend_reg_name(NULL), "NULL") == 0);
    TEST_CHECK(ggml_backend_reg_dev_count(NULL) == 0);
    TEST_CHECK(ggml_backend_reg_dev_get(NULL, 0) == NULL);
    TEST_CHECK(ggml_backend_reg_get_proc_address(NULL, "x") == NULL);
    TEST_CHECK(ggml_backend_reg_by_name(NULL) == NULL);
    TEST_CHECK(ggml_backend_dev_by_name(NULL) == NULL);
    TEST_CHECK(ggml_backend_init_by_name(NULL, NULL) == NULL);
    TEST_CHECK(ggml_backend_load(NULL) == NULL);
    TEST_CHECK(ggml_backend_load("") == NULL);
    ggml_backend_unload(NULL);
    ggml_backend_register(NULL);
    ggml_backend_device_register(NULL);
    TEST_CHECK_MSG(test_log_error_count() == 12, "12 errors expected, got %d:\n%s", test_log_error_count(), test_log_text());
    test_log_capture_end();

    test_log_capture_begin();
    TEST_CHECK(ggml_backend_reg_get(n_reg) == NULL);
    TEST_CHECK(ggml_backend_reg_get(SIZE_MAX) == NULL);
    TEST_CHECK(ggml_backend_dev_get(n_dev) == NULL);
    TEST_CHECK(test_log_error_count() == 3);
    TEST_CHECK(log_has("out of range"));
    test_log_capture_end();

    // unknown names: NULL and a message naming what was asked for
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_reg_by_name("no-such-backend") == NULL);
    TEST_CHECK(ggml_backend_dev_by_name("no-such-device") == NULL);
    TEST_CHECK(log_has("no-such-backend"));
    TEST_CHECK(log_has("no-such-device"));
    TEST_CHECK(ggml_backend_init_by_name("no-such-thing", NULL) == NULL);
    TEST_CHECK(ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_META, NULL) == NULL);
    TEST_CHECK(test_log_error_count() >= 2);
    TEST_CHECK(log_has("no-such-thing"));
    test_log_capture_end();

    TEST_CHECK(ggml_backend_reg_count() == n_reg);
    TEST_CHECK(ggml_backend_dev_count() == n_dev);
}

//
// a program-registered backend (no module): register, duplicate, enumerate, unregister
//

static const char * fake_reg_name(ggml_backend_reg_t reg) {
    (void) reg;
    return "FakeReg";
}
static size_t fake_reg_dev_count(ggml_backend_reg_t reg) {
    (void) reg;
    return 0;
}
static ggml_backend_dev_t fake_reg_dev_get(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    (void) index;
    return NULL;
}

static void test_program_registered(void) {
    static struct ggml_backend_reg fake = {
        GGML_BACKEND_API_VERSION,
        { fake_reg_name, fake_reg_dev_count, fake_reg_dev_get, NULL },
        NULL,
    };
    static struct ggml_backend_reg fake_old = {
        GGML_BACKEND_API_VERSION - 1,
        { fake_reg_name, fake_reg_dev_count, fake_reg_dev_get, NULL },
        NULL,
    };
    const size_t n_reg = ggml_backend_reg_count();

    ggml_backend_register(&fake);
    ggml_backend_register(&fake); // a duplicate is ignored
    TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
    TEST_CHECK(ggml_backend_reg_get(n_reg) == &fake);
    TEST_CHECK(ggml_backend_reg_by_name("fakereg") == &fake);
    TEST_CHECK(ggml_backend_reg_dev_count(&fake) == 0);
    TEST_CHECK(ggml_backend_reg_get_proc_address(&fake, "anything") == NULL); // no get_proc_address: quiet NULL

    test_log_capture_begin();
    ggml_backend_register(&fake_old);
    TEST_CHECK(test_log_error_count() == 1);
    TEST_CHECK(log_has("API version"));
    test_log_capture_end();
    TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);

    ggml_backend_unload(&fake); // unregisters; there is no library to close
    TEST_CHECK(ggml_backend_reg_count() == n_reg);
    test_log_capture_begin();
    TEST_CHECK(ggml_backend_reg_by_name("FakeReg") == NULL);
    ggml_backend_unload(&fake); // not registered any more
    TEST_CHECK(test_log_error_count() == 1);
    test_log_capture_end();
}

//
// computing c = a + b on the module's device, with b broadcast along dimension 1
//

static void test_compute(ggml_backend_reg_t reg, ggml_backend_dev_t dev) {
    ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
    if (!TEST_CHECK(backend != NULL)) {
        return;
    }
    TEST_CHECK(ggml_backend_get_device(backend) == dev);
    TEST_CHECK(strcmp(ggml_backend_name(backend), "TestMod") == 0);
    TEST_CHECK(module_live_objects(reg) == 1);

    struct ggml_init_params ip = { 16 * ggml_tensor_overhead() + 2 * ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    const int64_t ne0 = 13, ne1 = 6, ne2 = 2;
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, ne0, ne1, ne2);
    struct ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, ne0, 1, ne2);
    struct ggml_tensor * c = ggml_add(ctx, a, b);
    struct ggml_tensor * m = ggml_mul(ctx, a, a);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    TEST_CHECK(ggml_backend_dev_supports_op(dev, c));
    TEST_CHECK(!ggml_backend_dev_supports_op(dev, m));

    // one buffer of the device's own memory, tensors placed by hand at aligned offsets
    ggml_backend_buffer_type_t buft = ggml_backend_dev_buffer_type(dev);
    const size_t align = ggml_backend_buft_get_alignment(buft);
    struct ggml_tensor * ts[4] = { a, b, c, m };
    size_t offs[4];
    size_t total = 0;
    for (int i = 0; i < 4; i++) {
        offs[i] = total;
        total += (ggml_backend_buft_get_alloc_size(buft, ts[i]) + align - 1) / align * align;
    }
    ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(backend, total);
    TEST_CHECK(buf != NULL);
    TEST_CHECK(module_live_objects(reg) == 2);
    TEST_CHECK(!ggml_backend_buffer_is_host(buf));
    char * base = ggml_backend_buffer_get_base(buf);
    for (int i = 0; i < 4; i++) {
        TEST_CHECK(ggml_backend_tensor_alloc(buf, ts[i], base + offs[i]) == GGML_STATUS_SUCCESS);
    }

    float va[13 * 6 * 2], vb[13 * 2], vc[13 * 6 * 2];
    for (int i = 0; i < ne0 * ne1 * ne2; i++) {
        va[i] = (float) test_rand_uniform(-4.0, 4.0);
    }
    for (int i = 0; i < ne0 * ne2; i++) {
        vb[i] = (float) test_rand_uniform(-4.0, 4.0);
    }
    ggml_backend_tensor_set(a, va, 0, sizeof(va));
    ggml_backend_tensor_set(b, vb, 0, sizeof(vb));
    memset(vc, 0, sizeof(vc));
    TEST_CHECK(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS);
    ggml_backend_tensor_get(c, vc, 0, sizeof(vc));

    int n_bad = 0;
    for (int64_t i2 = 0; i2 < ne2; i2++) {
        for (int64_t i1 = 0; i1 < ne1; i1++) {
            for (int64_t i0 = 0; i0 < ne0; i0++) {
                const double want = (double) va[(i2*ne1 + i1)*ne0 + i0] + (double) vb[i2*ne0 + i0];
                const double got  = vc[(i2*ne1 + i1)*ne0 + i0];
                if (got != (double)(float) want) {
                    n_bad++;
                }
            }
        }
    }
    TEST_CHECK_MSG(n_bad == 0, "%d of %d sums differ", n_bad, (int)(ne0 * ne1 * ne2));

    // a graph with an op the device lacks fails cleanly
    struct ggml_cgraph * gm = ggml_new_graph(ctx);
    if (TEST_CHECK(gm != NULL)) {
        ggml_build_forward_expand(gm, m);
        test_log_capture_begin();
        TEST_CHECK(ggml_backend_graph_compute(backend, gm) == GGML_STATUS_FAILED);
        test_log_capture_end();
    }

    ggml_backend_buffer_free(buf);
    TEST_CHECK(module_live_objects(reg) == 1);
    ggml_backend_free(backend);
    TEST_CHECK(module_live_objects(reg) == 0);
    ggml_free(ctx);
}

//
// load, enumerate, compute, unload, load again
//

static void test_load_unload(void) {
    char path[4096];
    module_path(path, sizeof(path), "libggml-testmod.so");
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();

    for (int round = 0; round < 2; round++) {
        ggml_backend_reg_t reg = ggml_backend_load(path);
        if (!TEST_CHECK_MSG(reg != NULL, "round %d: cannot load %s", round, path)) {
            return;
        }
        TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
        TEST_CHECK(ggml_backend_dev_count() == n_dev + 1);
        TEST_CHECK(ggml_backend_reg_get(n_reg) == reg);
        TEST_CHECK(strcmp(ggml_backend_reg_name(reg), "TESTMOD") == 0);
        TEST_CHECK(ggml_backend_reg_by_name("testmod") == reg);
        TEST_CHECK(ggml_backend_reg_by_name("TestMod") == reg);
        TEST_CHECK(ggml_backend_reg_dev_count(reg) == 1);

        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
        TEST_CHECK(dev != NULL);
        TEST_CHECK(ggml_backend_dev_get(n_dev) == dev);
        TEST_CHECK(ggml_backend_dev_by_name("testmod0") == dev);
        TEST_CHECK(ggml_backend_dev_by_name("TESTMOD0") == dev);
        TEST_CHECK(ggml_backend_dev_backend_reg(dev) == reg);
        TEST_CHECK(ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_GPU);
        TEST_CHECK(strcmp(ggml_backend_dev_name(dev), "TestMod0") == 0);
        const char * variant = module_variant(reg);
        TEST_CHECK(variant != NULL && strcmp(variant, "base") == 0);
        TEST_CHECK(ggml_backend_reg_get_proc_address(reg, "no_such_function") == NULL);

        test_log_capture_begin();
        TEST_CHECK(ggml_backend_reg_dev_get(reg, 1) == NULL);
        TEST_CHECK(test_log_error_count() == 1);
        test_log_capture_end();

        // loading the same library again gives the same registry, registered once
        TEST_CHECK(ggml_backend_load(path) == reg);
        TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
        TEST_CHECK(ggml_backend_dev_count() == n_dev + 1);

        // the module's device is the first GPU unless a real one is registered before it
        if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU) == dev) {
            ggml_backend_t best = ggml_backend_init_best();
            TEST_CHECK(best != NULL && ggml_backend_get_device(best) == dev);
            ggml_backend_free(best);
            ggml_backend_t by_type = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_GPU, NULL);
            TEST_CHECK(by_type != NULL && ggml_backend_get_device(by_type) == dev);
            ggml_backend_free(by_type);
        }
        // by device name, and by backend name (its first device)
        ggml_backend_t by_name = ggml_backend_init_by_name("TESTMOD0", NULL);
        TEST_CHECK(by_name != NULL && ggml_backend_get_device(by_name) == dev);
        ggml_backend_free(by_name);
        by_name = ggml_backend_init_by_name("testmod", NULL);
        TEST_CHECK(by_name != NULL && ggml_backend_get_device(by_name) == dev);
        ggml_backend_free(by_name);

        test_compute(reg, dev);

        ggml_backend_unload(reg);
        TEST_CHECK(ggml_backend_reg_count() == n_reg);
        TEST_CHECK(ggml_backend_dev_count() == n_dev);
        test_log_capture_begin();
        TEST_CHECK(ggml_backend_reg_by_name("TESTMOD") == NULL);
        TEST_CHECK(ggml_backend_dev_by_name("TestMod0") == NULL);
        test_log_capture_end();
    }
}

//
// a module that registers itself from ggml_backend_init: loaded once, and it stays loaded (the
// registry keeps the library handle) until unloaded
//

static void test_self_registering(void) {
    char path[4096];
    module_path(path, sizeof(path), "extra/libggml-selfreg.so");
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();

    for (int round = 0; round < 2; round++) {
        ggml_backend_reg_t reg = ggml_backend_load(path);
        if (!TEST_CHECK_MSG(reg != NULL, "cannot load %s", path)) {
            return;
        }
        TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
        TEST_CHECK(ggml_backend_dev_count() == n_dev + 1);
        // the library must still be mapped: these call into it
        TEST_CHECK(strcmp(ggml_backend_reg_name(reg), "SELFREG") == 0);
        TEST_CHECK(ggml_backend_reg_by_name("selfreg") == reg);
        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
        TEST_CHECK(dev != NULL && strcmp(ggml_backend_dev_name(dev), "TestMod0") == 0);
        ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
        TEST_CHECK(backend != NULL);
        ggml_backend_free(backend);
        ggml_backend_unload(reg);
        TEST_CHECK(ggml_backend_reg_count() == n_reg);
        TEST_CHECK(ggml_backend_dev_count() == n_dev);
    }
}

//
// broken modules: a logged error naming the file, NULL, no crash, nothing registered
//

static void test_bad_modules(void) {
    static const struct { const char * file; const char * reason; } cases[] = {
        { "libggml-noinit.so",              "ggml_backend_init"     },
        { "libggml-nullinit.so",            "returned NULL"         },
        { "libggml-badversion.so",          "API version"           },
        { "libggml-bogus.so",               "failed to load"        },
        { "libggml-testmod-unsupported.so", "not supported"         },
        { "libggml-does-not-exist.so",      "failed to load"        },
    };
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[4096];
        module_path(path, sizeof(path), cases[i].file);
        test_log_capture_begin();
        ggml_backend_reg_t reg = ggml_backend_load(path);
        TEST_CHECK_MSG(reg == NULL, "%s was accepted", cases[i].file);
        TEST_CHECK_MSG(test_log_error_count() >= 1, "%s: no error logged", cases[i].file);
        TEST_CHECK_MSG(log_has(path), "%s: the message does not name the file:\n%s", cases[i].file, test_log_text());
        TEST_CHECK_MSG(log_has(cases[i].reason), "%s: the message does not say '%s':\n%s",
            cases[i].file, cases[i].reason, test_log_text());
        test_log_capture_end();
        TEST_CHECK(ggml_backend_reg_count() == n_reg);
        TEST_CHECK(ggml_backend_dev_count() == n_dev);
    }
}

//
// directory search: the best-scored variant wins, broken files are skipped with a reason
//

static ggml_backend_reg_t loaded_testmod(void) {
    test_log_capture_begin();
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("testmod");
    test_log_capture_end();
    return reg;
}

static void test_load_all(void) {
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();
    char path[4096];

    unsetenv("GGML_BACKEND_PATH");
    unsetenv("GGML_BACKEND_DIR");

    test_log_capture_begin();
    ggml_backend_load_all_from_path(g_dir);
    test_log_capture_end();
    // every file that was not loaded is accounted for
    TEST_CHECK(log_has("libggml-testmod.so (score 10)"));
    TEST_CHECK(log_has("libggml-testmod-unsupported.so: score 0"));
    TEST_CHECK(log_has("libggml-bogus.so: cannot load"));
    TEST_CHECK(log_has("libggml-noinit.so: it does not export ggml_backend_init"));
    TEST_CHECK(log_has("libggml-nullinit.so: ggml_backend_init() returned NULL"));
    TEST_CHECK(log_has("libggml-badversion.so: backend API version"));
    if (test_n_failed() > 0) {
        printf("log of ggml_backend_load_all_from_path:\n%s", test_log_text());
    }
    TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
    TEST_CHECK(ggml_backend_dev_count() == n_dev + 1);
    ggml_backend_reg_t reg = loaded_testmod();
    if (TEST_CHECK(reg != NULL)) {
        const char * variant = module_variant(reg);
        TEST_CHECK_MSG(variant != NULL && strcmp(variant, "fast") == 0, "variant %s loaded, fast expected", variant);
    }

    // again: the backend is registered already, nothing more is loaded
    test_log_capture_begin();
    ggml_backend_load_all_from_path(g_dir);
    TEST_CHECK(log_has("already registered"));
    test_log_capture_end();
    TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
    if (reg != NULL) {
        ggml_backend_unload(reg);
    }
    TEST_CHECK(ggml_backend_reg_count() == n_reg);

    // GGML_BACKEND_PATH names one file, loaded before (and so instead of) any directory match
    module_path(path, sizeof(path), "libggml-testmod.so");
    setenv("GGML_BACKEND_PATH", path, 1);
    test_log_capture_begin();
    ggml_backend_load_all_from_path(g_dir);
    test_log_capture_end();
    unsetenv("GGML_BACKEND_PATH");
    reg = loaded_testmod();
    if (TEST_CHECK(reg != NULL)) {
        const char * variant = module_variant(reg);
        TEST_CHECK_MSG(variant != NULL && strcmp(variant, "base") == 0, "variant %s loaded, base expected", variant);
        ggml_backend_unload(reg);
    }
    TEST_CHECK(ggml_backend_reg_count() == n_reg);

    // GGML_BACKEND_DIR adds a directory to the default search (ggml_backend_load_all)
    setenv("GGML_BACKEND_DIR", g_dir, 1);
    test_log_capture_begin();
    ggml_backend_load_all();
    test_log_capture_end();
    unsetenv("GGML_BACKEND_DIR");
    reg = loaded_testmod();
    if (TEST_CHECK(reg != NULL)) {
        const char * variant = module_variant(reg);
        TEST_CHECK(variant != NULL && strcmp(variant, "fast") == 0);
        ggml_backend_unload(reg);
    }
    TEST_CHECK(ggml_backend_reg_count() == n_reg);
    TEST_CHECK(ggml_backend_dev_count() == n_dev);

    // a directory that does not exist: a warning, nothing loaded
    test_log_capture_begin();
    ggml_backend_load_all_from_path("/nonexistent/ggml-backend-dir");
    TEST_CHECK(log_has("/nonexistent/ggml-backend-dir"));
    test_log_capture_end();
    TEST_CHECK(ggml_backend_reg_count() == n_reg);
}

//
// out of memory at each allocation of a load / a directory scan: a clean failure or a success,
// never a crash, a leak (LeakSanitizer) or a half-registered backend
//

static void test_out_of_memory(void) {
    char path[4096];
    module_path(path, sizeof(path), "libggml-testmod.so");
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();

    ggml_log_set(quiet_log, NULL);
    int n_failed_loads = 0;
    for (long n = 1; n <= 4; n++) {
        test_alloc_fault_set(n);
        ggml_backend_reg_t reg = ggml_backend_load(path);
        test_alloc_fault_set(0);
        if (reg == NULL) {
            n_failed_loads++;
            TEST_CHECK(ggml_backend_reg_count() == n_reg);
        } else {
            TEST_CHECK(ggml_backend_reg_count() == n_reg + 1);
            ggml_backend_unload(reg);
        }
    }
    int n_full_scans = 0;
    for (long n = 1; n <= 64; n++) {
        test_alloc_fault_set(n);
        ggml_backend_load_all_from_path(g_dir);
        const bool fired = test_alloc_fault_count() >= n;
        test_alloc_fault_set(0);
        ggml_backend_reg_t reg = loaded_testmod();
        if (reg != NULL) {
            ggml_backend_unload(reg);
        }
        if (!fired) {
            n_full_scans++;
            TEST_CHECK(reg != NULL); // no allocation failed: the scan must have loaded the module
        }
    }
    ggml_log_set(NULL, NULL);
    TEST_CHECK(n_failed_loads >= 1); // the path copy is allocated: its failure was seen
    TEST_CHECK(n_full_scans >= 1);   // the scan needs fewer than 64 allocations
    TEST_CHECK(ggml_backend_reg_count() == n_reg);
    TEST_CHECK(ggml_backend_dev_count() == n_dev);
}

//
// enumeration from other threads while a module is loaded and unloaded
//

struct reader_state {
    atomic_int * stop;
};

static void * reader_thread(void * arg) {
    struct reader_state * st = arg;
    while (!atomic_load(st->stop)) {
        const size_t n = ggml_backend_dev_count();
        for (size_t i = 0; i < n; i++) {
            // the device may be gone by now (NULL + a log line); a present one must be usable
            ggml_backend_dev_t dev = ggml_backend_dev_get(i);
            (void) dev;
        }
        const size_t nr = ggml_backend_reg_count();
        for (size_t i = 0; i < nr; i++) {
            ggml_backend_reg_t reg = ggml_backend_reg_get(i);
            (void) reg;
        }
        ggml_backend_dev_by_name("TestMod0");
    }
    return NULL;
}

static void test_threads(void) {
    char path[4096];
    module_path(path, sizeof(path), "libggml-testmod.so");
    const size_t n_reg = ggml_backend_reg_count();

    ggml_log_set(quiet_log, NULL);
    atomic_int stop = 0;
    struct reader_state st[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        st[i].stop = &stop;
        pthread_create(&th[i], NULL, reader_thread, &st[i]);
    }
    int n_loaded = 0;
    for (int i = 0; i < 20; i++) {
        ggml_backend_reg_t reg = ggml_backend_load(path);
        n_loaded += reg != NULL;
        if (reg != NULL) {
            ggml_backend_unload(reg);
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
    }
    ggml_log_set(NULL, NULL);
    TEST_CHECK(n_loaded == 20);
    TEST_CHECK(ggml_backend_reg_count() == n_reg);
}

int main(int argc, char ** argv) {
#ifdef TEST_MODULES_DIR
    g_dir = TEST_MODULES_DIR;
#endif
    if (argc > 1) {
        g_dir = argv[1];
    }
    if (g_dir == NULL) {
        fprintf(stderr, "test-backend-reg: no module directory (argv[1] or TEST_MODULES_DIR)\n");
        TEST_CHECK(g_dir != NULL);
        return test_finish("test-backend-reg");
    }
    test_rng_init();

    // the built-in backends are registered on first use and are all consistent
    const size_t n_reg = ggml_backend_reg_count();
    const size_t n_dev = ggml_backend_dev_count();
    printf("%zu built-in backends, %zu devices\n", n_reg, n_dev);
    for (size_t i = 0; i < n_reg; i++) {
        ggml_backend_reg_t reg = ggml_backend_reg_get(i);
        TEST_CHECK(reg != NULL && ggml_backend_reg_name(reg) != NULL);
        TEST_CHECK(ggml_backend_reg_by_name(ggml_backend_reg_name(reg)) == reg);
    }
    for (size_t i = 0; i < n_dev; i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        TEST_CHECK(dev != NULL && ggml_backend_dev_by_name(ggml_backend_dev_name(dev)) != NULL);
    }

    test_bad_arguments();
    test_program_registered();
    test_load_unload();
    test_self_registering();
    test_bad_modules();
    test_load_all();
    test_out_of_memory();
    test_threads();

    TEST_CHECK(ggml_backend_reg_count() == n_reg);
    TEST_CHECK(ggml_backend_dev_count() == n_dev);
    return test_finish("test-backend-reg");
}
