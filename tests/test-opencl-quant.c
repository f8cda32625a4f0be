// Quantized weights on the OpenCL device (OpenCL0): MUL_MAT with a = Q4_0, Q4_1, Q5_0, Q5_1,
// Q8_0, Q4_K, Q5_K, Q6_K, MXFP4 (K rounded up to the block size) and b = F32 or F16 (decode M = 1
// and 2 and prompt M > 2 shapes, which take the GEMV and the blocked kernels of quant_mm.cl, N not
// a multiple of their 4 rows, batches broadcasting a over b's dims 2 and 3, a padded b; b F16
// takes the general kernel of quant.cl), and GET_ROWS from a quantized table, through the public backend API.
//
// The weights are random uniform values in [-1, 1) quantized by ggml_quantize_chunk; the
// reference is the double-precision product of the dequantized weights (the type's to_float)
// with b, so the only error left is the device's float accumulation: NMSE = sum (ref - got)^2 /
// sum mag^2 <= 1e-10, mag being the product of |a| and |b| (1e-13 typical). GET_ROWS must give
// the dequantized values within 1e-6 relative. CPY and SET_ROWS from F32 into every one of those
// types: the device's blocks against ggml_quantize_chunk's for the same rows, bit for bit (at
// most 1% of the blocks may differ, for drivers whose division is not correctly rounded, and
// then no value may be worse than the reference's largest error in its block). supports_op must be false for the quantized types
// that have no kernel yet (Q2_K: MUL_MAT and GET_ROWS). MUL_MAT_ID with Q4_0 / Q6_K experts for a
// prompt (the pairs grouped by expert on the device) and for decoding, ids outside the experts
// included: those (slot, token) results must be zeros, the others within the NMSE bound.
//
// With no OpenCL device the test reports itself skipped (exit 77), or fails when
// GGML_TEST_REQUIRE_OPENCL is set.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMSE_MAX 1e-10

static const enum ggml_type qtypes[] = {
    GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0,
    GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K, GGML_TYPE_MXFP4,
};
#define N_QTYPES ((int) (sizeof(qtypes)/sizeof(qtypes[0])))

struct qcase {
    enum ggml_type ta, tb;
    int64_t K, N, M, A2, B2;
    bool pad_b; // b's rows padded by 4 elements (a view)
};

// random weights [K, rows] quantized to type t into q (ggml_row_size(t, K) * rows bytes), and
// their dequantized values into w (K * rows floats); false when any step fails
static bool make_weights(enum ggml_type t, int64_t K, int64_t rows, void * q, float * w) {
    for (int64_t i = 0; i < K * rows; i++) {
        w[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    const size_t bytes = ggml_quantize_chunk(t, w, q, 0, rows, K, NULL);
    const struct ggml_type_traits * tt = ggml_get_type_traits(t);
    if (bytes != ggml_row_size(t, K) * (size_t) rows || tt == NULL || tt->to_float == NULL) {
        return false;
    }
    tt->to_float(q, w, K * rows);
    return true;
}

static void fill_b(struct ggml_tensor * t, float * vals, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        vals[i] = (float) test_rand_uniform(-1.0, 1.0);
        if (t->type == GGML_TYPE_F16) {
            vals[i] = ggml_fp16_to_fp32(ggml_fp32_to_fp16(vals[i])); // the value the device sees
        }
    }
}

static double g_worst = 0.0;

static int64_t round_up(int64_t k, int64_t bs) {
    return (k + bs - 1) / bs * bs;
}

static void run_mul_mat(ggml_backend_t backend, const struct qcase * c) {
    char desc[160];
    snprintf(desc, sizeof(desc), "mul_mat a %s [%lld, %lld, %lld], b %s [%lld, %lld, %lld]%s", ggml_type_name(c->ta),
        (long long) c->K, (long long) c->N, (long long) c->A2, ggml_type_name(c->tb), (long long) c->K, (long long) c->M,
        (long long) c->B2, c->pad_b ? " padded" : "");
    const int64_t na = c->N * c->A2, nbr = c->M * c->B2, nd = c->N * c->M * c->B2;
    const int64_t kb = c->K + (c->pad_b ? 4 : 0);
    const size_t qbytes = ggml_row_size(c->ta, c->K) * (size_t) na;
    void  * q    = malloc(qbytes);
    float * w    = malloc((size_t) (c->K * na) * sizeof(float));
    float * bv   = malloc((size_t) (kb * nbr) * sizeof(float));
    void  * braw = malloc((size_t) (kb * nbr) * sizeof(float));
    float * got  = malloc((size_t) nd * sizeof(float));
    struct ggml_init_params ip = { 8*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    if (!TEST_CHECK_MSG(q && w && bv && braw && got && ctx, "%s: out of memory", desc) ||
        !TEST_CHECK_MSG(make_weights(c->ta, c->K, na, q, w), "%s: quantizing failed", desc)) {
        goto done;
    }
    struct ggml_tensor * a  = ggml_new_tensor_3d(ctx, c->ta, c->K, c->N, c->A2);
    struct ggml_tensor * bb = ggml_new_tensor_3d(ctx, c->tb, kb, c->M, c->B2);
    struct ggml_tensor * b  = c->pad_b ? ggml_view_3d(ctx, bb, c->K, c->M, c->B2, bb->nb[1], bb->nb[2], 0) : bb;
    struct ggml_tensor * d  = ggml_mul_mat(ctx, a, b);
    buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    if (!TEST_CHECK_MSG(buf != NULL, "%s: device allocation failed", desc)) {
        goto done;
    }
    if (!TEST_CHECK_MSG(ggml_backend_supports_op(backend, d), "%s: supports_op is false", desc)) {
        goto done;
    }
    fill_b(bb, bv, kb * nbr);
    if (c->tb == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(bv, braw, kb * nbr);
    } else {
        memcpy(braw, bv, (size_t) (kb * nbr) * sizeof(float));
    }
    ggml_backend_tensor_set(a, q, 0, qbytes);
    ggml_backend_tensor_set(bb, braw, 0, ggml_nbytes(bb));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, d);
    if (!TEST_CHECK_MSG(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS, "%s: compute failed", desc)) {
        goto done;
    }
    ggml_backend_tensor_get(d, got, 0, (size_t) nd * sizeof(float));
    double num = 0.0, den = 0.0;
    const int64_t bcast = c->B2 / c->A2;
    for (int64_t i2 = 0; i2 < c->B2; i2++) {
        for (int64_t m = 0; m < c->M; m++) {
            for (int64_t n = 0; n < c->N; n++) {
                const float * wr = w + ((i2 / bcast) * c->N + n) * c->K;
                const float * br = bv + (i2 * c->M + m) * kb;
                double ref = 0.0, mag = 0.0;
                for (int64_t k = 0; k < c->K; k++) {
                    ref += (double) wr[k] * br[k];
                    mag += fabs((double) wr[k] * br[k]);
                }
                const double e = (double) got[(i2 * c->M + m) * c->N + n] - ref;
                num += e * e;
                den += mag * mag;
            }
        }
    }
    const double nmse = den > 0.0 ? num / den : num;
    TEST_CHECK_MSG(nmse <= NMSE_MAX, "%s: NMSE %g > %g", desc, nmse, NMSE_MAX);
    if (isfinite(nmse) && nmse > g_worst) {
        g_worst = nmse;
    }
done:
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    if (ctx) {
        ggml_free(ctx);
    }
    free(q);
    free(w);
    free(bv);
    free(braw);
    free(got);
}

// table [K, R, 2] of type t, indices I32 [n, 2] (some outside the table: rows of zeros), F32 out
static void run_get_rows(ggml_backend_t backend, enum ggml_type t) {
    const int64_t K = round_up(96, ggml_blck_size(t)), R = 11, P = 2, n = 6;
    const size_t qbytes = ggml_row_size(t, K) * (size_t) (R * P);
    void  * q   = malloc(qbytes);
    float * w   = malloc((size_t) (K * R * P) * sizeof(float));
    float * got = malloc((size_t) (K * n * P) * sizeof(float));
    int32_t idx[12];
    struct ggml_init_params ip = { 8*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    if (!TEST_CHECK_MSG(q && w && got && ctx, "get_rows %s: out of memory", ggml_type_name(t)) ||
        !TEST_CHECK_MSG(make_weights(t, K, R * P, q, w), "get_rows %s: quantizing failed", ggml_type_name(t))) {
        goto done;
    }
    for (int i = 0; i < n * P; i++) {
        idx[i] = i == 4 ? (int32_t) R : (int32_t) test_rand_int(0, R - 1);
    }
    struct ggml_tensor * a = ggml_new_tensor_3d(ctx, t, K, R, P);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, n, P);
    struct ggml_tensor * d = ggml_get_rows(ctx, a, b);
    buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    if (!TEST_CHECK_MSG(buf != NULL && ggml_backend_supports_op(backend, d), "get_rows %s: allocation or supports_op failed",
                        ggml_type_name(t))) {
        goto done;
    }
    ggml_backend_tensor_set(a, q, 0, qbytes);
    ggml_backend_tensor_set(b, idx, 0, sizeof(idx));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, d);
    if (!TEST_CHECK_MSG(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS, "get_rows %s: compute failed",
                        ggml_type_name(t))) {
        goto done;
    }
    ggml_backend_tensor_get(d, got, 0, (size_t) (K * n * P) * sizeof(float));
    int bad = 0;
    for (int64_t p = 0; p < P; p++) {
        for (int64_t i = 0; i < n; i++) {
            const int32_t r = idx[p * n + i];
            for (int64_t k = 0; k < K; k++) {
                const float ref = r < R ? w[(p * R + r) * K + k] : 0.0f;
                const float g = got[(p * n + i) * K + k];
                bad += !(fabsf(g - ref) <= 1e-6f * fmaxf(1.0f, fabsf(ref)));
            }
        }
    }
    TEST_CHECK_MSG(bad == 0, "get_rows %s: %d values differ from the dequantized table", ggml_type_name(t), bad);
done:
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    if (ctx) {
        ggml_free(ctx);
    }
    free(q);
    free(w);
    free(got);
}

// rows [K, nrows] of type t quantized on the device (dev) against ggml_quantize_chunk of x: the
// blocks bit for bit (the device's quantizers repeat the reference's operations in order; only a
// division, square root or log2 that the driver does not round correctly can move a level, so
// at most 1% of the blocks may differ), and every dequantized value of the device's within the
// reference's own largest error in its block (x 1.01, + 1e-6): a differing block must be as good.
static void check_blocks(enum ggml_type t, const void * dev, const float * x, int64_t K, int64_t nrows, const char * what) {
    const size_t rs = ggml_row_size(t, K);
    const size_t bs = ggml_type_size(t);
    const int64_t bk = ggml_blck_size(t);
    void  * q  = malloc(rs * (size_t) nrows);
    float * dd = malloc((size_t) K * sizeof(float));
    float * dc = malloc((size_t) K * sizeof(float));
    const struct ggml_type_traits * tt = ggml_get_type_traits(t);
    if (!TEST_CHECK_MSG(q && dd && dc && ggml_quantize_chunk(t, x, q, 0, nrows, K, NULL) == rs * (size_t) nrows,
                        "%s %s: reference quantizing failed", what, ggml_type_name(t))) {
        goto done;
    }
    int bad_block = 0, bad_value = 0;
    for (int64_t r = 0; r < nrows; r++) {
        const unsigned char * bd = (const unsigned char *) dev + r * rs;
        const unsigned char * bc = (const unsigned char *) q + r * rs;
        const float * xr = x + r * K;
        tt->to_float(bd, dd, K);
        tt->to_float(bc, dc, K);
        for (int64_t b0 = 0; b0 < K; b0 += bk) {
            bad_block += memcmp(bd + (size_t) (b0 / bk) * bs, bc + (size_t) (b0 / bk) * bs, bs) != 0;
            double worst = 0.0;
            for (int64_t k = b0; k < b0 + bk; k++) {
                worst = fmax(worst, fabs((double) dc[k] - xr[k]));
            }
            for (int64_t k = b0; k < b0 + bk; k++) {
                bad_value += !(fabs((double) dd[k] - xr[k]) <= worst * 1.01 + 1e-6);
            }
        }
    }
    const int n_blocks = (int) (nrows * (K / bk));
    printf("%s %s: %d of %d blocks bit-exact with ggml_quantize_chunk\n", what, ggml_type_name(t), n_blocks - bad_block, n_blocks);
    TEST_CHECK_MSG(bad_block * 100 <= n_blocks && bad_value == 0,
                   "%s %s: %d of %d blocks differ from ggml_quantize_chunk's, %d values beyond its error", what,
                   ggml_type_name(t), bad_block, n_blocks, bad_value);
done:
    free(q);
    free(dd);
    free(dc);
}

// CPY F32 [K, 3, 2] -> t, and SET_ROWS of 5 F32 rows into a t table [K, 8, 2] (indices shared by
// both planes); K = 3 blocks of t
static void run_quantize(ggml_backend_t backend, enum ggml_type t) {
    const int64_t K = 3 * ggml_blck_size(t), R = 3, P = 2, T = 8, S = 5;
    float * x   = malloc((size_t) (K * R * P) * sizeof(float));
    float * xs  = malloc((size_t) (K * S * P) * sizeof(float));
    unsigned char * got  = malloc(ggml_row_size(t, K) * (size_t) (T * P));
    unsigned char * rows = malloc(ggml_row_size(t, K) * (size_t) (S * P));
    const int32_t idx[5] = { 6, 0, 3, 7, 2 };
    struct ggml_init_params ip = { 16*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    if (!TEST_CHECK_MSG(x && xs && got && rows && ctx, "quantize %s: out of memory", ggml_type_name(t))) {
        goto done;
    }
    for (int64_t i = 0; i < K * R * P; i++) {
        x[i] = (float) (test_rand_uniform(-2.0, 1.0) * (double) (1 + (i / 32) % 5)); // groups of unlike scales
    }
    for (int64_t i = 0; i < K * S * P; i++) {
        xs[i] = (float) test_rand_uniform(-1.0, 3.0);
    }
    struct ggml_tensor * src = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, R, P);
    struct ggml_tensor * dq  = ggml_new_tensor_3d(ctx, t, K, R, P);
    struct ggml_tensor * cp  = ggml_cpy(ctx, src, dq);
    struct ggml_tensor * tab = ggml_new_tensor_3d(ctx, t, K, T, P);
    struct ggml_tensor * rs  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, S, P);
    struct ggml_tensor * ix  = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, S);
    struct ggml_tensor * st  = ggml_set_rows(ctx, tab, rs, ix);
    buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    if (!TEST_CHECK_MSG(buf != NULL && ggml_backend_supports_op(backend, cp) && ggml_backend_supports_op(backend, st),
                        "quantize %s: allocation or supports_op failed", ggml_type_name(t))) {
        goto done;
    }
    ggml_backend_tensor_set(src, x, 0, ggml_nbytes(src));
    ggml_backend_tensor_set(rs, xs, 0, ggml_nbytes(rs));
    ggml_backend_tensor_set(ix, idx, 0, sizeof(idx));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, cp);
    ggml_build_forward_expand(gf, st);
    if (!TEST_CHECK_MSG(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS, "quantize %s: compute failed",
                        ggml_type_name(t))) {
        goto done;
    }
    ggml_backend_tensor_get(dq, got, 0, ggml_nbytes(dq));
    check_blocks(t, got, x, K, R * P, "cpy");
    // the rows written, gathered in the order of the source rows
    ggml_backend_tensor_get(tab, got, 0, ggml_nbytes(tab));
    const size_t rsz = ggml_row_size(t, K);
    for (int64_t p = 0; p < P; p++) {
        for (int64_t i = 0; i < S; i++) {
            memcpy(rows + (size_t) (p * S + i) * rsz, got + (size_t) (p * T + idx[i]) * rsz, rsz);
        }
    }
    check_blocks(t, rows, xs, K, S * P, "set_rows");
done:
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    if (ctx) {
        ggml_free(ctx);
    }
    free(x);
    free(xs);
    free(got);
    free(rows);
}

// a quantized type without kernels must not be claimed
// MUL_MAT_ID: experts [K, N, E] of type t, b F32 [K, U, T] (or [K, 1, T] broadcast), ids [U, T]
// with every third id outside the experts (-1 or E)
static void run_mul_mat_id(ggml_backend_t backend, enum ggml_type t, int64_t E, int64_t U, int64_t T, bool bcast) {
    char desc[128];
    snprintf(desc, sizeof(desc), "mul_mat_id %s experts %lld, used %lld, tokens %lld%s", ggml_type_name(t),
        (long long) E, (long long) U, (long long) T, bcast ? ", b broadcast" : "");
    const int64_t K = 256, N = 9, nb1 = bcast ? 1 : U;
    const size_t qbytes = ggml_row_size(t, K) * (size_t) (N * E);
    void  * q   = malloc(qbytes);
    float * w   = malloc((size_t) (K * N * E) * sizeof(float));
    float * bv  = malloc((size_t) (K * nb1 * T) * sizeof(float));
    int   * ids = malloc((size_t) (U * T) * sizeof(int));
    float * got = malloc((size_t) (N * U * T) * sizeof(float));
    struct ggml_init_params ip = { 8*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    if (!TEST_CHECK_MSG(q && w && bv && ids && got && ctx, "%s: out of memory", desc) ||
        !TEST_CHECK_MSG(make_weights(t, K, N * E, q, w), "%s: quantizing failed", desc)) {
        goto done;
    }
    struct ggml_tensor * as = ggml_new_tensor_3d(ctx, t, K, N, E);
    struct ggml_tensor * b  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, K, nb1, T);
    struct ggml_tensor * it = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, U, T);
    struct ggml_tensor * d  = ggml_mul_mat_id(ctx, as, b, it);
    buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
    if (!TEST_CHECK_MSG(buf != NULL, "%s: device allocation failed", desc) ||
        !TEST_CHECK_MSG(ggml_backend_supports_op(backend, d), "%s: supports_op is false", desc)) {
        goto done;
    }
    fill_b(b, bv, K * nb1 * T);
    for (int64_t i = 0; i < U * T; i++) {
        ids[i] = i % 3 == 2 ? (i % 2 ? -1 : (int) E) : (int) test_rand_int(0, E - 1);
    }
    ggml_backend_tensor_set(as, q, 0, qbytes);
    ggml_backend_tensor_set(b, bv, 0, ggml_nbytes(b));
    ggml_backend_tensor_set(it, ids, 0, ggml_nbytes(it));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, d);
    if (!TEST_CHECK_MSG(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS, "%s: compute failed", desc)) {
        goto done;
    }
    ggml_backend_tensor_get(d, got, 0, (size_t) (N * U * T) * sizeof(float));
    double num = 0.0, den = 0.0;
    int64_t bad_nonzero = 0;
    for (int64_t tok = 0; tok < T; tok++) {
        for (int64_t e = 0; e < U; e++) {
            const int x = ids[tok * U + e];
            for (int64_t n = 0; n < N; n++) {
                const float g = got[(tok * U + e) * N + n];
                if (x < 0 || x >= E) {
                    bad_nonzero += g != 0.0f;
                    continue;
                }
                const float * wr = w + (x * N + n) * K;
                const float * br = bv + (tok * nb1 + e % nb1) * K;
                double ref = 0.0, mag = 0.0;
                for (int64_t k = 0; k < K; k++) {
                    ref += (double) wr[k] * br[k];
                    mag += fabs((double) wr[k] * br[k]);
                }
                num += (g - ref) * (g - ref);
                den += mag * mag;
            }
        }
    }
    const double nmse = den > 0.0 ? num / den : num;
    TEST_CHECK_MSG(nmse <= NMSE_MAX, "%s: NMSE %g > %g", desc, nmse, NMSE_MAX);
    TEST_CHECK_MSG(bad_nonzero == 0, "%s: %lld results of ids outside the experts are not zero", desc, (long long) bad_nonzero);
    if (isfinite(nmse) && nmse > g_worst) {
        g_worst = nmse;
    }
done:
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    if (ctx) {
        ggml_free(ctx);
    }
    free(q);
    free(w);
    free(bv);
    free(ids);
    free(got);
}

static void check_unsupported(ggml_backend_dev_t dev) {
    struct ggml_init_params ip = { 8*ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a  = ggml_new_tensor_2d(ctx, GGML_TYPE_Q2_K, 256, 4);
    struct ggml_tensor * b  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 2);
    struct ggml_tensor * i  = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    struct ggml_tensor * mm = ggml_mul_mat(ctx, a, b);
    struct ggml_tensor * gr = ggml_get_rows(ctx, a, i);
    TEST_CHECK_MSG(!ggml_backend_dev_supports_op(dev, mm), "MUL_MAT with Q2_K weights should be unsupported");
    TEST_CHECK_MSG(!ggml_backend_dev_supports_op(dev, gr), "GET_ROWS from Q2_K should be unsupported");
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
    if (dev == NULL) {
        if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
            printf("test-opencl-quant: FAILED: no OpenCL device, and GGML_TEST_REQUIRE_OPENCL is set (is PoCL installed?)\n");
            return 1;
        }
        printf("test-opencl-quant: no OpenCL device: skipped\n");
        return 77;
    }
    printf("device: %s\n", ggml_backend_dev_description(dev));
    ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
    if (!TEST_CHECK(backend != NULL)) {
        return test_finish("test-opencl-quant");
    }
    for (int t = 0; t < N_QTYPES; t++) {
        const int64_t bs = ggml_blck_size(qtypes[t]);
        const struct qcase cases[] = {
            { qtypes[t], GGML_TYPE_F32, 256, 33, 1, 1, 1, false },             // decode
            { qtypes[t], GGML_TYPE_F32, 4096, 16, 1, 1, 1, false },            // a long row
            { qtypes[t], GGML_TYPE_F32, round_up(96, bs), 65, 7, 1, 1, false }, // prompt
            { qtypes[t], GGML_TYPE_F32, round_up(64, bs), 7, 5, 2, 4, true },   // batches, padded b
            { qtypes[t], GGML_TYPE_F16, round_up(160, bs), 9, 3, 1, 1, false },
            { qtypes[t], GGML_TYPE_F32, bs, 1, 1, 1, 1, false },                // one block
            { qtypes[t], GGML_TYPE_F32, round_up(128, bs), 13, 2, 1, 1, false }, // two columns (GEMV kernel)
            { qtypes[t], GGML_TYPE_F32, round_up(192, bs), 14, 3, 3, 3, false }, // three columns, batches
        };
        for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
            run_mul_mat(backend, &cases[i]);
        }
        run_get_rows(backend, qtypes[t]);
        run_quantize(backend, qtypes[t]);
    }
    // prompts (grouped by expert; the second and third grow the scratch memory) and decoding
    run_mul_mat_id(backend, GGML_TYPE_Q4_0, 4, 2, 9, false);
    run_mul_mat_id(backend, GGML_TYPE_Q6_K, 8, 4, 40, true);
    run_mul_mat_id(backend, GGML_TYPE_Q4_0, 16, 4, 300, false);
    run_mul_mat_id(backend, GGML_TYPE_Q4_0, 4, 2, 1, false);
    printf("largest NMSE: %.3g (bound %g)\n", g_worst, NMSE_MAX);
    check_unsupported(dev);
    ggml_backend_free(backend);
    return test_finish("test-opencl-quant");
}
