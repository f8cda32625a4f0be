// Kernel fusion on OpenCL0 (src/ggml-opencl/ocl-fuse.c): RMS_NORM followed by a MUL of its result
// by a weight runs as one kernel, and so does an ADD in front of them (the model's residual sum,
// which a later node reads: here an ADD of the result and the sum). For rows of 576 (the model's width), 100 (not a multiple of the
// 16-wide vectors) and 16 values, a weight row broadcast over the rows or a weight of the rows'
// shape:
// * fused == unfused bit for bit: the same graph computed with fusion and with
//   GGML_OPENCL_FUSION=0 (read at each graph_compute);
// * both against the double-precision reference, max relative error <= 1e-5 of the row's
//   largest |value|;
// * the pattern is checked: when the norm's result is also read by a later node (here an ADD)
//   or is kept as a graph output, the graph computes node by node and both results are right;
// * that fusion happened: with GGML_OPENCL_PROFILE=1 the profile table (printed at backend free,
//   stderr captured) lists k_vrms_norm_mul (k_vadd_rms_norm_mul with the ADD) for the fusable
//   graphs and not for the others.
// The fused kernel exists for CPU devices (PoCL); on a GPU device the pattern is not fused and
// the comparisons still run. No OpenCL device: skipped (77), or failed with
// GGML_TEST_REQUIRE_OPENCL.

#define _GNU_SOURCE // setenv, fileno

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EPS_NORM 1e-6f

enum use_kind {
    USE_MUL_ONLY,  // fusable
    USE_LATER_ADD, // the norm also feeds a later ADD: not fusable
    USE_OUTPUT,    // the norm is a graph output: not fusable
    USE_ADD_FIRST, // sum = x + b (b one row) feeds the norm, out2 = out + sum: fusable, 3 nodes
};

struct fcase {
    int64_t ne0, rows;
    bool    w_full; // w has the rows' shape (else one row)
    enum use_kind use;
};

static ggml_backend_dev_t g_dev;

// out = rms_norm(x) * w (and, for USE_LATER_ADD, out2 = out + rms_norm(x)) in double; for
// USE_ADD_FIRST x is the float sum, and out2 = out + x
static void reference(const struct fcase * c, const float * x, const float * w, double * out, double * out2) {
    for (int64_t r = 0; r < c->rows; r++) {
        double ss = 0.0;
        for (int64_t k = 0; k < c->ne0; k++) {
            ss += (double) x[r*c->ne0 + k] * x[r*c->ne0 + k];
        }
        const double s = 1.0 / sqrt(ss / (double) c->ne0 + EPS_NORM);
        for (int64_t k = 0; k < c->ne0; k++) {
            const double n = x[r*c->ne0 + k] * s;
            out[r*c->ne0 + k]  = n * w[(c->w_full ? r*c->ne0 : 0) + k];
            out2[r*c->ne0 + k] = out[r*c->ne0 + k] + (c->use == USE_ADD_FIRST ? x[r*c->ne0 + k] : n);
        }
    }
}

static double max_rel_err(const float * got, const double * want, int64_t ne0, int64_t rows) {
    double worst = 0.0;
    for (int64_t r = 0; r < rows; r++) {
        double mag = 1e-30;
        for (int64_t k = 0; k < ne0; k++) {
            mag = fmax(mag, fabs(want[r*ne0 + k]));
        }
        for (int64_t k = 0; k < ne0; k++) {
            const double e = fabs((double) got[r*ne0 + k] - want[r*ne0 + k]) / mag;
            worst = isnan(e) ? INFINITY : fmax(worst, e);
        }
    }
    return worst;
}

// computes the case's graph on a new backend; the result (out, and out2 for USE_LATER_ADD) into
// got / got2; the profile table, when profile is set, into table
static bool run_case(const struct fcase * c, const float * x, const float * b, const float * w, float * got, float * got2,
                     bool profile, char * table, size_t table_len) {
    if (profile) {
        setenv("GGML_OPENCL_PROFILE", "1", 1);
    }
    ggml_backend_t be = ggml_backend_dev_init(g_dev, NULL);
    unsetenv("GGML_OPENCL_PROFILE");
    if (!TEST_CHECK(be != NULL)) {
        return false;
    }
    struct ggml_init_params ip = { 16*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    bool ok = false;
    if (!TEST_CHECK(ctx != NULL)) {
        goto done;
    }
    struct ggml_tensor * tx = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c->ne0, c->rows);
    struct ggml_tensor * tw = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c->ne0, c->w_full ? c->rows : 1);
    struct ggml_tensor * tb = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, c->ne0);
    struct ggml_tensor * ts = c->use == USE_ADD_FIRST ? ggml_add(ctx, tx, tb) : tx;
    struct ggml_tensor * tn = ggml_rms_norm(ctx, ts, EPS_NORM);
    struct ggml_tensor * to = ggml_mul(ctx, tn, tw);
    struct ggml_tensor * t2 = c->use == USE_LATER_ADD ? ggml_add(ctx, to, tn) : c->use == USE_ADD_FIRST ? ggml_add(ctx, to, ts) : NULL;
    ggml_set_output(to);
    if (c->use == USE_OUTPUT) {
        ggml_set_output(tn);
    }
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, t2 != NULL ? t2 : to);
    buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!TEST_CHECK(buf != NULL)) {
        goto done;
    }
    ggml_backend_tensor_set(tx, x, 0, ggml_nbytes(tx));
    ggml_backend_tensor_set(tw, w, 0, ggml_nbytes(tw));
    ggml_backend_tensor_set(tb, b, 0, ggml_nbytes(tb));
    if (!TEST_CHECK(ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS)) {
        goto done;
    }
    ggml_backend_tensor_get(to, got, 0, ggml_nbytes(to));
    if (t2 != NULL) {
        ggml_backend_tensor_get(t2, got2, 0, ggml_nbytes(t2));
    }
    ok = true;
done:
    if (buf != NULL) {
        ggml_backend_buffer_free(buf);
    }
    if (ctx != NULL) {
        ggml_free(ctx);
    }
    if (!profile) {
        ggml_backend_free(be);
        return ok;
    }
    // the table is printed when the backend is freed: capture stderr around the free
    FILE * tmp = tmpfile();
    const int saved = dup(fileno(stderr));
    if (!TEST_CHECK(tmp != NULL && saved >= 0)) {
        ggml_backend_free(be);
        if (tmp != NULL) {
            fclose(tmp);
        }
        if (saved >= 0) {
            close(saved);
        }
        return false;
    }
    fflush(stderr);
    dup2(fileno(tmp), fileno(stderr));
    ggml_backend_free(be);
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    rewind(tmp);
    const size_t n = fread(table, 1, table_len - 1, tmp);
    table[n] = '\0';
    fclose(tmp);
    return ok;
}

static void run_fcase(const struct fcase * c, bool cpu_device) {
    const int64_t n = c->ne0 * c->rows;
    float  * x    = malloc((size_t) n * sizeof(float));
    float  * w    = malloc((size_t) n * sizeof(float));
    float  * b    = malloc((size_t) c->ne0 * sizeof(float));
    float  * s    = malloc((size_t) n * sizeof(float));
    float  * f    = malloc((size_t) n * sizeof(float));
    float  * u    = malloc((size_t) n * sizeof(float));
    float  * f2   = malloc((size_t) n * sizeof(float));
    float  * u2   = malloc((size_t) n * sizeof(float));
    double * want = malloc((size_t) n * sizeof(double));
    double * want2 = malloc((size_t) n * sizeof(double));
    char table[4096];
    char desc[96];
    snprintf(desc, sizeof(desc), "[%lld x %lld], w %s, %s", (long long) c->ne0, (long long) c->rows,
             c->w_full ? "full" : "one row", c->use == USE_MUL_ONLY ? "fusable" : c->use == USE_LATER_ADD ? "norm read later" :
             c->use == USE_OUTPUT ? "norm an output" : "add + norm + mul");
    if (!TEST_CHECK_MSG(x && w && b && s && f && u && f2 && u2 && want && want2, "%s: out of memory", desc)) {
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        x[i] = (float) test_rand_uniform(-2.0, 2.0) * (float) (1 + i / c->ne0 % 3);
        w[i] = (float) test_rand_uniform(0.5, 1.5);
    }
    for (int64_t k = 0; k < c->ne0; k++) {
        b[k] = (float) test_rand_uniform(-1.0, 1.0);
    }
    for (int64_t i = 0; i < n; i++) {
        s[i] = c->use == USE_ADD_FIRST ? x[i] + b[i % c->ne0] : x[i];
    }
    reference(c, s, w, want, want2);
    // fused (when the pattern allows), profiled
    if (!run_case(c, x, b, w, f, f2, true, table, sizeof(table))) {
        TEST_CHECK_MSG(false, "%s: fused run failed", desc);
        goto done;
    }
    setenv("GGML_OPENCL_FUSION", "0", 1);
    const bool ok = run_case(c, x, b, w, u, u2, false, NULL, 0);
    unsetenv("GGML_OPENCL_FUSION");
    if (!TEST_CHECK_MSG(ok, "%s: unfused run failed", desc)) {
        goto done;
    }
    // the CPU-shaped fused kernel, or the GPU-shaped one's launch name (GGML_OPENCL_KERNELS=gpu, GPUs)
    const char * kernel = c->use == USE_ADD_FIRST ? "k_vadd_rms_norm_mul" : "k_vrms_norm_mul";
    const char * gpu_kernel = c->use == USE_ADD_FIRST ? "k_gadd_rms_norm_mul" : "k_grms_norm_mul";
    const bool fused = strstr(table, kernel) != NULL || strstr(table, gpu_kernel) != NULL;
    const bool fusable = c->use == USE_MUL_ONLY || c->use == USE_ADD_FIRST;
    (void) cpu_device;
    TEST_CHECK_MSG(fused == fusable, "%s: fused kernel %s (profile: %s)", desc,
                   fused ? "used" : "not used", table);
    TEST_CHECK_MSG(memcmp(f, u, (size_t) n * sizeof(float)) == 0, "%s: fused and unfused results differ", desc);
    const double e = max_rel_err(f, want, c->ne0, c->rows);
    TEST_CHECK_MSG(e <= 1e-5, "%s: max relative error %g against the double reference", desc, e);
    if (c->use == USE_LATER_ADD || c->use == USE_ADD_FIRST) {
        TEST_CHECK_MSG(memcmp(f2, u2, (size_t) n * sizeof(float)) == 0, "%s: the later ADD differs", desc);
        const double e2 = max_rel_err(f2, want2, c->ne0, c->rows);
        TEST_CHECK_MSG(e2 <= 1e-5, "%s: later ADD: max relative error %g", desc, e2);
    }
    printf("%s: fused %s, max rel err %.3g\n", desc, fused ? "yes" : "no", e);
done:
    free(x);
    free(w);
    free(b);
    free(s);
    free(f);
    free(u);
    free(f2);
    free(u2);
    free(want);
    free(want2);
}

int main(void) {
    test_rng_init();
    g_dev = ggml_backend_dev_by_name("OpenCL0");
    if (g_dev == NULL) {
        if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
            printf("test-opencl-fusion: FAILED: no OpenCL device, and GGML_TEST_REQUIRE_OPENCL is set (is PoCL installed?)\n");
            return 1;
        }
        printf("test-opencl-fusion: no OpenCL device: skipped\n");
        return 77;
    }
    // both kernel shapes fuse (the ACCEL type is how PoCL's CPU device shows)
    const bool cpu_device = ggml_backend_dev_type(g_dev) != GGML_BACKEND_DEVICE_TYPE_GPU;
    printf("device: %s (%s device)\n", ggml_backend_dev_description(g_dev), cpu_device ? "CPU" : "GPU");
    const struct fcase cases[] = {
        { 576, 7, false, USE_MUL_ONLY },
        { 100, 5, false, USE_MUL_ONLY },
        { 16, 3, true, USE_MUL_ONLY },
        { 576, 4, true, USE_MUL_ONLY },
        { 576, 7, false, USE_LATER_ADD },
        { 100, 5, true, USE_OUTPUT },
        { 576, 6, false, USE_ADD_FIRST },
        { 100, 3, true, USE_ADD_FIRST },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        run_fcase(&cases[i], cpu_device);
    }
    return test_finish("test-opencl-fusion");
}
