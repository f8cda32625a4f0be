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
// Then a layer's ROPE(K), SET_ROWS of the roped K and of V into F16 / F32 caches and ROPE(Q) (the
// model runner's decode graph, Q, K and V views of one product's rows): one kernel
// (k_rope_kv_vec, k_rope_kv_pairs with GPU shapes), fused == unfused bit for bit (Q and both
// caches' bytes), Q and the K cache against the double reference (<= 1e-5 of a head's largest
// value; 1e-3 for F16 caches, whose rounding is 2^-11 of the value), the V cache exactly V's rows
// rounded to the cache type at the index's rows and the initial values elsewhere; not fused when
// the roped K is an output or read later, when K and V are stored by two index tensors, and (CPU
// shapes only) for heads not a multiple of 32 wide.
// Then a quantized product of 1-2 columns and the SWIGLU of its rows' halves (the model's gate/up
// product of a decode step): one GEMV (mvq_swiglu_* / mvg_swiglu_*), fused == unfused bit for bit,
// against the double product of the decoded weights (<= 1e-5 of the largest |value|), for rows
// past the last 16-value chunk and row counts not a multiple of 4; not fused for 3 columns, a
// product kept as an output or read later, or a swapped SWIGLU.
// Both kernel shapes fuse (GGML_OPENCL_KERNELS=gpu for the GPU shapes on PoCL; ctest
// test-opencl-fusion-gpu-kernels). No OpenCL device: skipped (77), or failed with
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

// frees the backend; its profile table (printed at the free) captured from stderr into table
static bool free_capturing(ggml_backend_t be, char * table, size_t table_len) {
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
    return true;
}

// a backend on the device; with profile set, one that keeps its kernels' events (profile table)
static ggml_backend_t new_backend(bool profile) {
    if (profile) {
        setenv("GGML_OPENCL_PROFILE", "1", 1);
    }
    ggml_backend_t be = ggml_backend_dev_init(g_dev, NULL);
    unsetenv("GGML_OPENCL_PROFILE");
    return be;
}

// frees a case's buffer and context (either may be NULL) and its backend; a profiled backend's
// table goes into table. false when the table could not be captured
static bool end_case(ggml_backend_t be, ggml_backend_buffer_t buf, struct ggml_context * ctx, bool profile,
                     char * table, size_t table_len) {
    if (buf != NULL) {
        ggml_backend_buffer_free(buf);
    }
    if (ctx != NULL) {
        ggml_free(ctx);
    }
    if (!profile) {
        ggml_backend_free(be);
        return true;
    }
    return free_capturing(be, table, table_len);
}

// computes the case's graph on a new backend; the result (out, and out2 for USE_LATER_ADD) into
// got / got2; the profile table, when profile is set, into table
static bool run_case(const struct fcase * c, const float * x, const float * b, const float * w, float * got, float * got2,
                     bool profile, char * table, size_t table_len) {
    ggml_backend_t be = new_backend(profile);
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
    return end_case(be, buf, ctx, profile, table, table_len) && ok;
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

// ---- ROPE(K), SET_ROWS of K and V into their caches, ROPE(Q) (ocl-fuse-rope-kv.c)

enum rkv_use {
    RKV_FUSABLE,
    RKV_K_OUTPUT,     // the roped K is also a graph output: not fusable
    RKV_K_READ_LATER, // a later SCALE reads the roped K: not fusable
    RKV_TWO_INDICES,  // K and V stored by different index tensors: not fusable
};

struct rkv_case {
    int64_t hd, n_head, n_head_kv, n_tok, n_rows; // n_rows: rows of each cache
    int mode;                                     // GGML_ROPE_TYPE_NORMAL or _NEOX
    enum ggml_type cache_type;                    // F16 or F32
    enum rkv_use use;
};

#define RKV_BASE 10000.0f

// what one run returns: Q roped, both caches' bytes, the SCALE of K (RKV_K_READ_LATER)
struct rkv_out {
    float * q;
    uint8_t * kc, * vc;
    float * k2;
};

static int64_t rkv_width(const struct rkv_case * c) {
    return c->hd * c->n_head_kv;
}

// the model runner's layout: Q, K and V are views of one product's rows; the stores are expanded
// before Q's ROPE, so the graph is ROPE(K), SET_ROWS(K), SET_ROWS(V), ROPE(Q) with views between
static bool run_rkv(const struct rkv_case * c, const float * qkv, const int32_t * pos, const int64_t * rows,
                    const uint8_t * kc0, const uint8_t * vc0, bool profile, char * table, size_t table_len, struct rkv_out * out) {
    ggml_backend_t be = new_backend(profile);
    if (!TEST_CHECK(be != NULL)) {
        return false;
    }
    struct ggml_init_params ip = { 32*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    bool ok = false;
    if (!TEST_CHECK(ctx != NULL)) {
        goto done;
    }
    const int64_t nq = c->hd * c->n_head, nkv = rkv_width(c);
    const size_t fs = sizeof(float);
    struct ggml_tensor * tqkv = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, nq + 2*nkv, c->n_tok);
    struct ggml_tensor * tpos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, c->n_tok);
    struct ggml_tensor * trows = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, c->n_tok);
    struct ggml_tensor * trows2 = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, c->n_tok);
    struct ggml_tensor * kc = ggml_new_tensor_2d(ctx, c->cache_type, nkv, c->n_rows);
    struct ggml_tensor * vc = ggml_new_tensor_2d(ctx, c->cache_type, nkv, c->n_rows);
    struct ggml_tensor * q = ggml_view_3d(ctx, tqkv, c->hd, c->n_head, c->n_tok, c->hd * fs, tqkv->nb[1], 0);
    struct ggml_tensor * k = ggml_view_3d(ctx, tqkv, c->hd, c->n_head_kv, c->n_tok, c->hd * fs, tqkv->nb[1], (size_t) nq * fs);
    struct ggml_tensor * v = ggml_view_2d(ctx, tqkv, nkv, c->n_tok, tqkv->nb[1], (size_t) (nq + nkv) * fs);
    struct ggml_tensor * rq = ggml_rope_ext(ctx, q, tpos, NULL, (int) c->hd, c->mode, 4096, RKV_BASE, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    struct ggml_tensor * rk = ggml_rope_ext(ctx, k, tpos, NULL, (int) c->hd, c->mode, 4096, RKV_BASE, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, ggml_set_rows(ctx, kc, ggml_reshape_2d(ctx, rk, nkv, c->n_tok), trows));
    ggml_build_forward_expand(gf, ggml_set_rows(ctx, vc, v, c->use == RKV_TWO_INDICES ? trows2 : trows));
    ggml_set_output(rq);
    ggml_build_forward_expand(gf, rq);
    struct ggml_tensor * k2 = NULL;
    if (c->use == RKV_K_OUTPUT) {
        ggml_set_output(rk);
    } else if (c->use == RKV_K_READ_LATER) {
        k2 = ggml_scale(ctx, rk, 2.0f);
        ggml_set_output(k2);
        ggml_build_forward_expand(gf, k2);
    }
    buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!TEST_CHECK(buf != NULL)) {
        goto done;
    }
    ggml_backend_tensor_set(tqkv, qkv, 0, ggml_nbytes(tqkv));
    ggml_backend_tensor_set(tpos, pos, 0, ggml_nbytes(tpos));
    ggml_backend_tensor_set(trows, rows, 0, ggml_nbytes(trows));
    ggml_backend_tensor_set(trows2, rows, 0, ggml_nbytes(trows2)); // same values, another tensor
    ggml_backend_tensor_set(kc, kc0, 0, ggml_nbytes(kc));
    ggml_backend_tensor_set(vc, vc0, 0, ggml_nbytes(vc));
    if (!TEST_CHECK(ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS)) {
        goto done;
    }
    ggml_backend_tensor_get(rq, out->q, 0, ggml_nbytes(rq));
    ggml_backend_tensor_get(kc, out->kc, 0, ggml_nbytes(kc));
    ggml_backend_tensor_get(vc, out->vc, 0, ggml_nbytes(vc));
    if (k2 != NULL) {
        ggml_backend_tensor_get(k2, out->k2, 0, ggml_nbytes(k2));
    }
    ok = true;
done:
    return end_case(be, buf, ctx, profile, table, table_len) && ok;
}

// the rotation of head row x (hd values) at position p, in double
static void rope_ref(const struct rkv_case * c, const float * x, double p, double * y) {
    for (int64_t i = 0; i < c->hd/2; i++) {
        const double theta = p * pow((double) RKV_BASE, -2.0 * (double) i / (double) c->hd);
        const int64_t j0 = c->mode == GGML_ROPE_TYPE_NEOX ? i : 2*i;
        const int64_t j1 = c->mode == GGML_ROPE_TYPE_NEOX ? i + c->hd/2 : 2*i + 1;
        y[j0] = x[j0]*cos(theta) - x[j1]*sin(theta);
        y[j1] = x[j0]*sin(theta) + x[j1]*cos(theta);
    }
}

static void cache_to_f32(const struct rkv_case * c, const uint8_t * bytes, float * f, int64_t n) {
    if (c->cache_type == GGML_TYPE_F16) {
        ggml_fp16_to_fp32_row((const ggml_fp16_t *) bytes, f, n);
    } else {
        memcpy(f, bytes, (size_t) n * sizeof(float));
    }
}

// the largest |got - want| over the largest |want| of each head row (hd values)
static double rkv_rel_err(const float * got, const double * want, int64_t n, int64_t hd) {
    double worst = 0.0;
    for (int64_t r = 0; r < n / hd; r++) {
        double mag = 1e-30;
        for (int64_t k = 0; k < hd; k++) {
            mag = fmax(mag, fabs(want[r*hd + k]));
        }
        for (int64_t k = 0; k < hd; k++) {
            const double e = fabs((double) got[r*hd + k] - want[r*hd + k]) / mag;
            worst = isnan(e) ? INFINITY : fmax(worst, e);
        }
    }
    return worst;
}

static void run_rkv_case(const struct rkv_case * c, bool gpu_shapes) {
    const int64_t nq = c->hd * c->n_head, nkv = rkv_width(c), ld = nq + 2*nkv;
    const size_t ts = ggml_type_size(c->cache_type);
    const size_t cache_bytes = (size_t) (nkv * c->n_rows) * ts;
    float * qkv = malloc((size_t) (ld * c->n_tok) * sizeof(float));
    int32_t * pos = malloc((size_t) c->n_tok * sizeof(int32_t));
    int64_t * rows = malloc((size_t) c->n_tok * sizeof(int64_t));
    float * init = malloc((size_t) (nkv * c->n_rows) * sizeof(float));
    uint8_t * kc0 = malloc(cache_bytes), * vc0 = malloc(cache_bytes);
    struct rkv_out f = { malloc((size_t) (nq * c->n_tok) * sizeof(float)), malloc(cache_bytes), malloc(cache_bytes),
                         malloc((size_t) (nkv * c->n_tok) * sizeof(float)) };
    struct rkv_out u = { malloc((size_t) (nq * c->n_tok) * sizeof(float)), malloc(cache_bytes), malloc(cache_bytes),
                         malloc((size_t) (nkv * c->n_tok) * sizeof(float)) };
    double * want_q = malloc((size_t) (nq * c->n_tok) * sizeof(double));
    double * want_k = malloc((size_t) (nkv * c->n_rows) * sizeof(double));
    float * got_k = malloc((size_t) (nkv * c->n_rows) * sizeof(float));
    char table[4096];
    char desc[128];
    static const char * const uses[] = { "fusable", "K an output", "K read later", "two index tensors" };
    snprintf(desc, sizeof(desc), "rope+kv: head %lld, %lld/%lld heads, %lld tokens, %s, %s cache, %s", (long long) c->hd,
             (long long) c->n_head, (long long) c->n_head_kv, (long long) c->n_tok, c->mode == GGML_ROPE_TYPE_NEOX ? "neox" : "normal",
             ggml_type_name(c->cache_type), uses[c->use]);
    if (!TEST_CHECK_MSG(qkv && pos && rows && init && kc0 && vc0 && f.q && f.kc && f.vc && f.k2 && u.q && u.kc && u.vc && u.k2 &&
                        want_q && want_k && got_k, "%s: out of memory", desc)) {
        goto done;
    }
    for (int64_t i = 0; i < ld * c->n_tok; i++) {
        qkv[i] = (float) test_rand_uniform(-2.0, 2.0);
    }
    for (int64_t t = 0; t < c->n_tok; t++) {
        pos[t] = (int32_t) (3 + 5*t);
        rows[t] = (c->n_rows - 1 - 2*t + c->n_rows) % c->n_rows; // distinct rows, not in order
    }
    // the caches start with values that the stores must leave in the other rows
    for (int64_t i = 0; i < nkv * c->n_rows; i++) {
        init[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    if (c->cache_type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(init, (ggml_fp16_t *) kc0, nkv * c->n_rows);
    } else {
        memcpy(kc0, init, cache_bytes);
    }
    memcpy(vc0, kc0, cache_bytes);
    if (!run_rkv(c, qkv, pos, rows, kc0, vc0, true, table, sizeof(table), &f)) {
        TEST_CHECK_MSG(false, "%s: fused run failed", desc);
        goto done;
    }
    setenv("GGML_OPENCL_FUSION", "0", 1);
    const bool ok = run_rkv(c, qkv, pos, rows, kc0, vc0, false, NULL, 0, &u);
    unsetenv("GGML_OPENCL_FUSION");
    if (!TEST_CHECK_MSG(ok, "%s: unfused run failed", desc)) {
        goto done;
    }
    // the CPU-shaped kernel takes heads a multiple of 32 wide (k_rope_vec's condition)
    const bool fusable = c->use == RKV_FUSABLE && (gpu_shapes || c->hd % 32 == 0);
    const bool fused = strstr(table, "k_rope_kv_vec") != NULL || strstr(table, "k_rope_kv_pairs") != NULL;
    TEST_CHECK_MSG(fused == fusable, "%s: fused kernel %s (profile: %s)", desc, fused ? "used" : "not used", table);
    TEST_CHECK_MSG(memcmp(f.q, u.q, (size_t) (nq * c->n_tok) * sizeof(float)) == 0, "%s: fused and unfused Q differ", desc);
    TEST_CHECK_MSG(memcmp(f.kc, u.kc, cache_bytes) == 0, "%s: fused and unfused K caches differ", desc);
    TEST_CHECK_MSG(memcmp(f.vc, u.vc, cache_bytes) == 0, "%s: fused and unfused V caches differ", desc);
    if (c->use == RKV_K_READ_LATER) {
        TEST_CHECK_MSG(memcmp(f.k2, u.k2, (size_t) (nkv * c->n_tok) * sizeof(float)) == 0, "%s: the later SCALE differs", desc);
    }
    // against the double reference: Q and the K rows roped, V's rows copied (the cache's rounding,
    // the same as ggml_fp32_to_fp16_row's), the other rows untouched
    cache_to_f32(c, f.kc, got_k, nkv * c->n_rows);
    for (int64_t i = 0; i < nkv * c->n_rows; i++) {
        want_k[i] = init[i];
    }
    for (int64_t t = 0; t < c->n_tok; t++) {
        for (int64_t h = 0; h < c->n_head; h++) {
            rope_ref(c, qkv + t*ld + h*c->hd, pos[t], want_q + (t*c->n_head + h)*c->hd);
        }
        for (int64_t h = 0; h < c->n_head_kv; h++) {
            rope_ref(c, qkv + t*ld + nq + h*c->hd, pos[t], want_k + rows[t]*nkv + h*c->hd);
        }
        // V's row as the cache type holds it
        if (c->cache_type == GGML_TYPE_F16) {
            ggml_fp32_to_fp16_row(qkv + t*ld + nq + nkv, (ggml_fp16_t *) vc0 + rows[t]*nkv, nkv);
        } else {
            memcpy((float *) vc0 + rows[t]*nkv, qkv + t*ld + nq + nkv, (size_t) nkv * sizeof(float));
        }
    }
    TEST_CHECK_MSG(memcmp(f.vc, vc0, cache_bytes) == 0, "%s: V cache is not V's rows in the index's rows over the initial values", desc);
    const double eq = rkv_rel_err(f.q, want_q, nq * c->n_tok, c->hd);
    const double ek = rkv_rel_err(got_k, want_k, nkv * c->n_rows, c->hd);
    // F16 rounds to 11 significant bits: half an ulp is 2^-11 of the value
    const double bound_k = c->cache_type == GGML_TYPE_F16 ? 1e-3 : 1e-5;
    TEST_CHECK_MSG(eq <= 1e-5, "%s: Q: max relative error %g against the double reference", desc, eq);
    TEST_CHECK_MSG(ek <= bound_k, "%s: K cache: max relative error %g against the double reference (bound %g)", desc, ek, bound_k);
    printf("%s: fused %s, max rel err Q %.3g, K cache %.3g\n", desc, fused ? "yes" : "no", eq, ek);
done:
    free(qkv);
    free(pos);
    free(rows);
    free(init);
    free(kc0);
    free(vc0);
    free(f.q);
    free(f.kc);
    free(f.vc);
    free(f.k2);
    free(u.q);
    free(u.kc);
    free(u.vc);
    free(u.k2);
    free(want_q);
    free(want_k);
    free(got_k);
}

// ---- SWIGLU of a quantized product of few columns (ocl-quant-mm.c's mvq_swiglu_* / mvg_swiglu_*)

enum mgl_use {
    MGL_FUSABLE,
    MGL_MM_OUTPUT,     // the product is also a graph output
    MGL_MM_READ_LATER, // a later SCALE reads the product
    MGL_SWAPPED,       // silu of the second half: not fused
};

struct mgl_case {
    enum ggml_type type;
    int64_t k, nc, m; // weights [k, 2*nc], activations [k, m], result [nc, m]
    enum mgl_use use;
};

static bool run_mgl(const struct mgl_case * c, const void * wq, const float * x, bool profile, char * table, size_t table_len,
                    float * got, float * got2) {
    ggml_backend_t be = new_backend(profile);
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
    struct ggml_tensor * tw = ggml_new_tensor_2d(ctx, c->type, c->k, 2*c->nc);
    struct ggml_tensor * tx = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, c->k, c->m);
    struct ggml_tensor * mm = ggml_mul_mat(ctx, tw, tx);
    struct ggml_tensor * out = c->use == MGL_SWAPPED ? ggml_swiglu_swapped(ctx, mm) : ggml_swiglu(ctx, mm);
    struct ggml_tensor * t2 = c->use == MGL_MM_READ_LATER ? ggml_scale(ctx, mm, 0.5f) : NULL;
    ggml_set_output(out);
    if (c->use == MGL_MM_OUTPUT) {
        ggml_set_output(mm);
    }
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    if (t2 != NULL) {
        ggml_set_output(t2);
        ggml_build_forward_expand(gf, t2);
    }
    buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!TEST_CHECK(buf != NULL)) {
        goto done;
    }
    ggml_backend_tensor_set(tw, wq, 0, ggml_nbytes(tw));
    ggml_backend_tensor_set(tx, x, 0, ggml_nbytes(tx));
    if (!TEST_CHECK(ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS)) {
        goto done;
    }
    ggml_backend_tensor_get(out, got, 0, ggml_nbytes(out));
    if (c->use == MGL_MM_OUTPUT || t2 != NULL) {
        ggml_backend_tensor_get(t2 != NULL ? t2 : mm, got2, 0, ggml_nbytes(mm));
    }
    ok = true;
done:
    return end_case(be, buf, ctx, profile, table, table_len) && ok;
}

static void run_mgl_case(const struct mgl_case * c) {
    const int64_t nw = c->k * 2*c->nc, nx = c->k * c->m, nout = c->nc * c->m;
    const size_t wbytes = ggml_row_size(c->type, c->k) * (size_t) (2*c->nc);
    float * w = malloc((size_t) nw * sizeof(float));
    float * wd = malloc((size_t) nw * sizeof(float));
    void * wq = malloc(wbytes);
    float * x = malloc((size_t) nx * sizeof(float));
    float * f = malloc((size_t) nout * sizeof(float)), * u = malloc((size_t) nout * sizeof(float));
    float * f2 = malloc((size_t) nout * 2 * sizeof(float)), * u2 = malloc((size_t) nout * 2 * sizeof(float));
    double * want = malloc((size_t) nout * sizeof(double));
    char table[4096];
    char desc[128];
    static const char * const uses[] = { "fusable", "product an output", "product read later", "swapped" };
    snprintf(desc, sizeof(desc), "mul_mat+swiglu: %s [%lld x %lld] x %lld columns, %s", ggml_type_name(c->type), (long long) c->k,
             (long long) (2*c->nc), (long long) c->m, uses[c->use]);
    if (!TEST_CHECK_MSG(w && wd && wq && x && f && u && f2 && u2 && want, "%s: out of memory", desc)) {
        goto done;
    }
    for (int64_t i = 0; i < nw; i++) {
        w[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    for (int64_t i = 0; i < nx; i++) {
        x[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    ggml_quantize_chunk(c->type, w, wq, 0, 2*c->nc, c->k, NULL);
    ggml_get_type_traits(c->type)->to_float(wq, wd, nw);
    // the reference: the product of the decoded weights in double, then silu(gate) * up
    double mag = 1e-30;
    for (int64_t m = 0; m < c->m; m++) {
        for (int64_t n = 0; n < c->nc; n++) {
            double p[2] = { 0.0, 0.0 };
            for (int h = 0; h < 2; h++) {
                for (int64_t k = 0; k < c->k; k++) {
                    p[h] += (double) wd[(n + h*c->nc)*c->k + k] * x[m*c->k + k];
                }
            }
            const double gate = c->use == MGL_SWAPPED ? p[1] : p[0], up = c->use == MGL_SWAPPED ? p[0] : p[1];
            want[m*c->nc + n] = gate / (1.0 + exp(-gate)) * up;
            mag = fmax(mag, fabs(want[m*c->nc + n]));
        }
    }
    if (!run_mgl(c, wq, x, true, table, sizeof(table), f, f2)) {
        TEST_CHECK_MSG(false, "%s: fused run failed", desc);
        goto done;
    }
    setenv("GGML_OPENCL_FUSION", "0", 1);
    const bool ok = run_mgl(c, wq, x, false, NULL, 0, u, u2);
    unsetenv("GGML_OPENCL_FUSION");
    if (!TEST_CHECK_MSG(ok, "%s: unfused run failed", desc)) {
        goto done;
    }
    const bool fusable = c->use == MGL_FUSABLE && c->m <= 2;
    const bool fused = strstr(table, "mvq_swiglu_") != NULL || strstr(table, "mvg_swiglu_") != NULL;
    TEST_CHECK_MSG(fused == fusable, "%s: fused kernel %s (profile: %s)", desc, fused ? "used" : "not used", table);
    TEST_CHECK_MSG(memcmp(f, u, (size_t) nout * sizeof(float)) == 0, "%s: fused and unfused results differ", desc);
    if (c->use == MGL_MM_OUTPUT || c->use == MGL_MM_READ_LATER) {
        TEST_CHECK_MSG(memcmp(f2, u2, (size_t) nout * 2 * sizeof(float)) == 0, "%s: the product's other reader differs", desc);
    }
    // F32 dot products of k terms against double: a few float ulp of the largest value per term
    double e = 0.0;
    for (int64_t i = 0; i < nout; i++) {
        const double d = fabs((double) f[i] - want[i]) / mag;
        e = isnan(d) ? INFINITY : fmax(e, d);
    }
    TEST_CHECK_MSG(e <= 1e-5, "%s: max error %g of the largest |value| against the double reference", desc, e);
    printf("%s: fused %s, max rel err %.3g\n", desc, fused ? "yes" : "no", e);
done:
    free(w);
    free(wd);
    free(wq);
    free(x);
    free(f);
    free(u);
    free(f2);
    free(u2);
    free(want);
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
    // GPU-shaped kernels: GPUs, or GGML_OPENCL_KERNELS=gpu (how PoCL runs them)
    const char * shapes = getenv("GGML_OPENCL_KERNELS");
    const bool gpu_shapes = shapes != NULL ? strcmp(shapes, "gpu") == 0 : !cpu_device;
    const struct rkv_case rkv_cases[] = {
        { 64, 9, 3, 1, 8, GGML_ROPE_TYPE_NORMAL, GGML_TYPE_F16, RKV_FUSABLE }, // SmolLM2's decode step
        { 64, 9, 3, 3, 8, GGML_ROPE_TYPE_NORMAL, GGML_TYPE_F16, RKV_FUSABLE },
        { 32, 4, 2, 2, 5, GGML_ROPE_TYPE_NEOX, GGML_TYPE_F32, RKV_FUSABLE },
        { 128, 2, 1, 2, 4, GGML_ROPE_TYPE_NEOX, GGML_TYPE_F16, RKV_FUSABLE },
        { 40, 3, 1, 2, 4, GGML_ROPE_TYPE_NORMAL, GGML_TYPE_F16, RKV_FUSABLE }, // odd head width: GPU shapes only
        { 64, 9, 3, 1, 8, GGML_ROPE_TYPE_NORMAL, GGML_TYPE_F16, RKV_K_OUTPUT },
        { 64, 9, 3, 2, 8, GGML_ROPE_TYPE_NORMAL, GGML_TYPE_F16, RKV_K_READ_LATER },
        { 64, 9, 3, 1, 8, GGML_ROPE_TYPE_NORMAL, GGML_TYPE_F16, RKV_TWO_INDICES },
    };
    for (size_t i = 0; i < sizeof(rkv_cases)/sizeof(rkv_cases[0]); i++) {
        run_rkv_case(&rkv_cases[i], gpu_shapes);
    }
    const struct mgl_case mgl_cases[] = {
        { GGML_TYPE_Q4_1, 576, 1536, 1, MGL_FUSABLE }, // SmolLM2's gate/up product of a decode step
        { GGML_TYPE_Q4_1, 64, 100, 2, MGL_FUSABLE },   // rows past the last 16-value chunk
        { GGML_TYPE_Q8_0, 96, 98, 1, MGL_FUSABLE },    // not a multiple of 4 rows (k_gswiglu1)
        { GGML_TYPE_Q4_K, 256, 36, 2, MGL_FUSABLE },
        { GGML_TYPE_Q4_1, 64, 100, 3, MGL_FUSABLE },   // 3 columns: the blocked product, not fused
        { GGML_TYPE_Q4_1, 64, 100, 1, MGL_MM_OUTPUT },
        { GGML_TYPE_Q4_1, 64, 100, 1, MGL_MM_READ_LATER },
        { GGML_TYPE_Q4_1, 64, 100, 1, MGL_SWAPPED },
    };
    for (size_t i = 0; i < sizeof(mgl_cases)/sizeof(mgl_cases[0]); i++) {
        run_mgl_case(&mgl_cases[i]);
    }
    return test_finish("test-opencl-fusion");
}
