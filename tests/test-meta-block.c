// The meta device on a transformer block (attention split by heads, MLP column- then
// row-parallel, norms after the reductions): every device combination this machine has, with
// 1, 2, 3, 4 and 16 CPU devices, even and uneven splits, the registry's all-reduce and the
// built-in one. The result must equal a single CPU device's within float rounding: normalized
// error sum((a-b)^2)/sum(b^2) < 1e-10.

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"
#include "test-meta-util.h"
#include "ggml-backend-meta-impl.h"

#include <stdlib.h>

static const struct mu_block g_block = { 128, 16, 192, 7 };
static float * g_ref;
static int64_t g_n_ref;

static void check_block(const char * what, ggml_backend_dev_t * devs, size_t n, const double * weights) {
    struct mu_splits sp;
    mu_block_splits(&sp, n, &g_block, weights);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, n, mu_get_split_state, &sp);
    if (!TEST_CHECK_MSG(md != NULL, "%s: no meta device", what)) {
        return;
    }
    ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
    if (!TEST_CHECK_MSG(backend != NULL, "%s: no backend", what)) {
        return;
    }
    int64_t n_out = 0;
    float * out = mu_run_once(backend, ggml_backend_dev_buffer_type(md), mu_build_block, &g_block, 42, &n_out);
    if (TEST_CHECK_MSG(out != NULL && n_out == g_n_ref, "%s: the block did not compute", what)) {
        const double e = mu_nmse(out, g_ref, n_out);
        TEST_CHECK_MSG(e < 1e-10, "%s: normalized error %.3e", what, e);
        printf("  %-34s nmse %.2e\n", what, e);
    }
    free(out);
    ggml_backend_free(backend);
}

// weights: each device stores only its slices (plus the small mirrored tensors)
static void check_weight_memory(void) {
    ggml_backend_dev_t c = ggml_backend_dev_by_name("CPU");
    ggml_backend_dev_t devs[4] = { c, c, c, c };
    struct mu_splits sp;
    mu_block_splits(&sp, 4, &g_block, NULL);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, 4, mu_get_split_state, &sp);
    struct mu_run r;
    if (TEST_CHECK(mu_run_init(&r, ggml_backend_dev_buffer_type(md), mu_build_block, &g_block, 42))) {
        const size_t whole = ggml_backend_buffer_get_size(r.wbuf);
        for (size_t j = 0; j < 4; j++) {
            const size_t dev = ggml_backend_buffer_get_size(meta_buffer_dev_buffer(r.wbuf, j));
            TEST_CHECK_MSG(dev < whole * 3 / 10, "device %zu holds %zu of %zu weight bytes", j, dev, whole);
            if (j == 0) {
                printf("  weights: %zu bytes whole, %zu on each of 4 devices\n", whole, dev);
            }
        }
    }
    mu_run_free(&r);
}

int main(void) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    g_ref = mu_run_once(cpu, ggml_backend_cpu_buffer_type(), mu_build_block, &g_block, 42, &g_n_ref);
    ggml_backend_free(cpu);
    if (!TEST_CHECK(g_ref != NULL)) {
        return test_finish("test-meta-block");
    }

    check_weight_memory();

    ggml_backend_dev_t c = ggml_backend_dev_by_name("CPU");
    ggml_backend_dev_t devs[16];
    for (int i = 0; i < 16; i++) {
        devs[i] = c;
    }
    const size_t counts[] = { 1, 2, 3, 4, 16 };
    for (size_t i = 0; i < sizeof(counts)/sizeof(counts[0]); i++) {
        char what[64];
        snprintf(what, sizeof(what), "CPU x%zu", counts[i]);
        check_block(what, devs, counts[i], NULL);
    }
    const double uneven2[] = { 3, 1 };
    check_block("CPU x2 uneven 3:1", devs, 2, uneven2);
    const double uneven3[] = { 1, 2, 4 };
    check_block("CPU x3 uneven 1:2:4", devs, 3, uneven3);

    // the built-in reduction (tree over device copies) instead of the CPU registry's
    setenv("GGML_META_COMM", "0", 1);
    check_block("CPU x3 built-in all-reduce", devs, 3, NULL);
    check_block("CPU x4 built-in all-reduce", devs, 4, NULL);
    unsetenv("GGML_META_COMM");

    ggml_backend_dev_t ocl = ggml_backend_dev_by_name("OpenCL0");
    if (ocl != NULL) {
        ggml_backend_dev_t mix[2] = { ocl, c };
        check_block("OpenCL0 + CPU", mix, 2, NULL);
        check_block("OpenCL0 + CPU uneven 1:3", mix, 2, (const double[]){ 1, 3 });
        ggml_backend_dev_t oo[2] = { ocl, ocl };
        check_block("OpenCL0 + OpenCL0", oo, 2, NULL);
        ggml_backend_dev_t ooc[3] = { ocl, c, ocl };
        check_block("OpenCL0 + CPU + OpenCL0", ooc, 3, NULL);
    } else {
        printf("  (no OpenCL0 device: OpenCL combinations skipped)\n");
    }
    free(g_ref);
    return test_finish("test-meta-block");
}
