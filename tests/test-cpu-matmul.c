// The CPU backend's matrix-product family (MUL_MAT, OUT_PROD) against the double-precision
// reference: F32/F16/BF16 weights, F32/F16/BF16 activations, odd sizes that are no multiple of
// any tile, K across several packed blocks, broadcasting over dims 2 and 3, permuted, strided
// and transposed views, the matrix-vector shapes (M = 1..5), 1 and 2 threads.
//
// SIMD levels: the test runs its cases at the best level of the machine in this process, then
// re-runs itself once for every lower level (GGML_CPU_ISA=avx2, =portable, set in the child's
// environment; the level is fixed per process). Each child prints its own summary; a child that
// fails makes this process fail. With GGML_CPU_ISA already set, only that level runs.
//
// Error measure: sum (ref - got)^2 / sum mag^2 with mag the product of |a| and |b|, so that a dot
// product cancelling to near zero (random signs) is judged by the size of its terms.
// Error bound. Inputs are exactly representable (F16/BF16 values are converted exactly), so the
// only error is float accumulation: a K-term dot product summed in float (blocked, FMA or not)
// has a relative error around u*sqrt(K) per element for random signs, u = 2^-24, i.e. an NMSE of
// order u^2*K ~ 4e-15*K: ~2e-12 at K = 600. The bound 1e-8 leaves a margin of 1000x and more
// while any lost or duplicated term (NMSE >= ~1/K ~ 2e-3 here) or a wrong element fails by far.

#define _POSIX_C_SOURCE 200809L

#include "test-common.h"
#include "ggml-ref.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-isa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MM_NMSE_MAX 1e-8
// The exception: F16 weights with 5 .. 16 rows of B (the few-columns kernel) may read B rounded
// to F16 (each row scaled by a power of two first, so no overflow and no subnormals; the family
// rounds B to F16 for every F16 product). Each element of B is then within 2^-11 relative, so
// |got - ref| <= 2^-11 * mag per element and the measure above stays below 2^-22 ~ 2.4e-7 (the
// family's bound for F16 products: NMSE 5e-4). Rows whose largest value is beyond 2^+-100 (or
// not finite) are not rounded (MM_NMSE_MAX applies).
#define MM_NMSE_F16B 2.4e-7

static char   g_level[32] = "";
static double g_worst     = 0.0; // largest NMSE seen, printed at the end
static double g_bound     = MM_NMSE_MAX; // the bound check_node applies

static void fill_random(struct ggml_tensor * t) {
    // fills the whole allocation of a contiguous tensor
    const int64_t n = ggml_nelements(t);
    for (int64_t i = 0; i < n; i++) {
        const float v = (float) test_rand_uniform(-1.0, 1.0);
        switch (t->type) {
            case GGML_TYPE_F32:  ((float *) t->data)[i] = v; break;
            case GGML_TYPE_F16:  ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(v); break;
            case GGML_TYPE_BF16: ((ggml_bf16_t *) t->data)[i] = ggml_fp32_to_bf16(v); break;
            default: break;
        }
    }
}

static struct ggml_context * new_ctx(size_t mb) {
    struct ggml_init_params ip = { mb*1024*1024, NULL, false };
    return ggml_init(ip);
}

// Replaces the memory of t's base tensor by absolute values (exactly) and returns a copy of the
// original bytes to put back, or NULL.
static void * abs_base(struct ggml_tensor * t) {
    struct ggml_tensor * base = t->view_src != NULL ? t->view_src : t;
    const size_t bytes = ggml_nbytes(base);
    void * saved = malloc(bytes > 0 ? bytes : 1);
    if (saved == NULL) {
        return NULL;
    }
    memcpy(saved, base->data, bytes);
    const size_t n = bytes / ggml_type_size(base->type);
    for (size_t i = 0; i < n; i++) {
        switch (base->type) {
            case GGML_TYPE_F32:  ((float *) base->data)[i] = fabsf(((float *) base->data)[i]); break;
            case GGML_TYPE_F16:  ((ggml_fp16_t *) base->data)[i] &= 0x7fff; break;
            case GGML_TYPE_BF16: ((ggml_bf16_t *) base->data)[i].bits &= 0x7fff; break;
            default: break;
        }
    }
    return saved;
}

static void restore_base(struct ggml_tensor * t, void * saved) {
    struct ggml_tensor * base = t->view_src != NULL ? t->view_src : t;
    memcpy(base->data, saved, ggml_nbytes(base));
    free(saved);
}

// sum (ref - got)^2 / sum mag^2, where mag is the product of |a| and |b|: a dot product that
// cancels to near zero is judged by the size of its terms, not by its tiny result
static double rel_error(const double * ref, const double * mag, const float * got, int64_t n) {
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < n; i++) {
        num += ((double) got[i] - ref[i]) * ((double) got[i] - ref[i]);
        den += mag[i] * mag[i];
    }
    return den > 0.0 ? num / den : num;
}

// computes node with 1 and 2 threads and compares with the reference
static void check_node(const char * what, struct ggml_context * ctx, struct ggml_tensor * node) {
    if (!TEST_CHECK_MSG(node != NULL, "%s: node not created", what)) {
        return;
    }
    const int64_t n = ggml_nelements(node);
    double * ref = malloc((size_t) (n > 0 ? n : 1)*sizeof(double));
    double * mag = malloc((size_t) (n > 0 ? n : 1)*sizeof(double));
    char err[256] = "";
    if (!TEST_CHECK_MSG(ref != NULL && mag != NULL && ggml_ref_compute(node, ref, err, sizeof(err)), "%s: reference failed: %s", what, err)) {
        free(ref);
        free(mag);
        return;
    }
    const struct ggml_tensor * base0 = node->src[0]->view_src ? node->src[0]->view_src : node->src[0];
    const struct ggml_tensor * base1 = node->src[1]->view_src ? node->src[1]->view_src : node->src[1];
    const bool shared = base0 == base1;
    void * saved0 = abs_base(node->src[0]);
    void * saved1 = shared ? NULL : abs_base(node->src[1]);
    const bool have_mag = saved0 != NULL && (shared || saved1 != NULL) && ggml_ref_compute(node, mag, err, sizeof(err));
    if (saved0 != NULL) {
        restore_base(node->src[0], saved0);
    }
    if (saved1 != NULL) {
        restore_base(node->src[1], saved1);
    }
    if (!TEST_CHECK_MSG(have_mag, "%s: magnitude reference failed: %s", what, err)) {
        free(ref);
        free(mag);
        return;
    }
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, node);
    for (int nth = 1; nth <= 2; nth++) {
        // garbage in the result first, so that an element never written shows
        for (int64_t i = 0; i < n; i++) {
            ((float *) node->data)[i] = 1e6f;
        }
        const enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, nth);
        if (!TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "[%s] %s, %d threads: status %d", g_level, what, nth, (int) st)) {
            continue;
        }
        const double e = rel_error(ref, mag, (const float *) node->data, n);
        g_worst = e > g_worst ? e : g_worst;
        TEST_CHECK_MSG(e <= g_bound, "[%s] %s, %d threads: error %.3g > %.2g", g_level, what, nth, e, g_bound);
    }
    free(ref);
    free(mag);
}

// layouts of the sources
enum {
    L_A_PERM  = 1, // a stored with dims 2 and 3 swapped, then permuted back
    L_A_VIEW  = 2, // a is a view into wider rows (row stride > K)
    L_B_T     = 4, // b stored [M, K] (MUL_MAT) / [K, Q] (OUT_PROD) and transposed
    L_B_PERM  = 8, // b stored with dims 1 and 2 swapped, then permuted back
};

static void layout_name(int layout, char * buf, size_t size) {
    snprintf(buf, size, "%s%s%s%s%s", layout == 0 ? "contiguous" : "",
             layout & L_A_PERM ? "a-permuted " : "", layout & L_A_VIEW ? "a-strided " : "",
             layout & L_B_T ? "b-transposed " : "", layout & L_B_PERM ? "b-permuted " : "");
}

// a [K, N, a2, a3] (possibly non-contiguous)
static struct ggml_tensor * make_a(struct ggml_context * ctx, enum ggml_type t, int64_t ne0, int64_t ne1, int64_t a2, int64_t a3, int layout) {
    if (layout & L_A_PERM) {
        struct ggml_tensor * s = ggml_new_tensor_4d(ctx, t, ne0, ne1, a3, a2);
        fill_random(s);
        return ggml_permute(ctx, s, 0, 1, 3, 2);
    }
    if (layout & L_A_VIEW) {
        struct ggml_tensor * s = ggml_new_tensor_4d(ctx, t, ne0 + 5, ne1, a2, a3);
        fill_random(s);
        return ggml_view_4d(ctx, s, ne0, ne1, a2, a3, s->nb[1], s->nb[2], s->nb[3], 3*ggml_type_size(t));
    }
    struct ggml_tensor * s = ggml_new_tensor_4d(ctx, t, ne0, ne1, a2, a3);
    fill_random(s);
    return s;
}

// b [ne0, ne1, b2, b3] (possibly non-contiguous)
static struct ggml_tensor * make_b(struct ggml_context * ctx, enum ggml_type t, int64_t ne0, int64_t ne1, int64_t b2, int64_t b3, int layout) {
    if (layout & L_B_T) {
        struct ggml_tensor * s = ggml_new_tensor_4d(ctx, t, ne1, ne0, b2, b3);
        fill_random(s);
        return ggml_transpose(ctx, s);
    }
    if (layout & L_B_PERM) {
        struct ggml_tensor * s = ggml_new_tensor_4d(ctx, t, ne0, b2, ne1, b3);
        fill_random(s);
        return ggml_permute(ctx, s, 0, 2, 1, 3);
    }
    struct ggml_tensor * s = ggml_new_tensor_4d(ctx, t, ne0, ne1, b2, b3);
    fill_random(s);
    return s;
}

// the bound of a MUL_MAT (see MM_NMSE_F16B)
static double mul_mat_bound(enum ggml_type ta, int64_t M) {
    return ta == GGML_TYPE_F16 && M >= 5 && M <= 16 ? MM_NMSE_F16B : MM_NMSE_MAX;
}

// row_scale (NULL: none): B's row m multiplied by row_scale[m % 4] (layout 0 only)
static void mul_mat_case_scaled(enum ggml_type ta, enum ggml_type tb, int64_t K, int64_t N, int64_t M,
                                int64_t a2, int64_t a3, int64_t b2, int64_t b3, int layout, const float * row_scale,
                                double bound) {
    struct ggml_context * ctx = new_ctx(64);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = make_a(ctx, ta, K, N, a2, a3, layout);
    struct ggml_tensor * b = make_b(ctx, tb, K, M, b2, b3, layout);
    if (row_scale != NULL && layout == 0 && tb == GGML_TYPE_F32) {
        for (int64_t r = 0; r < M*b2*b3; r++) {
            for (int64_t k = 0; k < K; k++) {
                ((float *) b->data)[r*K + k] *= row_scale[(r % M) % 4];
            }
        }
    }
    struct ggml_tensor * d = ggml_mul_mat(ctx, a, b);
    char lay[96], what[256];
    layout_name(layout, lay, sizeof(lay));
    snprintf(what, sizeof(what), "mul_mat %s x %s K=%lld N=%lld M=%lld a[%lld,%lld] b[%lld,%lld] %s%s",
             ggml_type_name(ta), ggml_type_name(tb), (long long) K, (long long) N, (long long) M,
             (long long) a2, (long long) a3, (long long) b2, (long long) b3, lay, row_scale ? " rows scaled" : "");
    g_bound = bound;
    check_node(what, ctx, d);
    g_bound = MM_NMSE_MAX;
    ggml_free(ctx);
}

static void mul_mat_case(enum ggml_type ta, enum ggml_type tb, int64_t K, int64_t N, int64_t M,
                         int64_t a2, int64_t a3, int64_t b2, int64_t b3, int layout) {
    mul_mat_case_scaled(ta, tb, K, N, M, a2, a3, b2, b3, layout, NULL, mul_mat_bound(ta, M));
}

static void out_prod_case(enum ggml_type ta, enum ggml_type tb, int64_t P, int64_t Q, int64_t K,
                          int64_t a2, int64_t a3, int64_t b2, int64_t b3, int layout) {
    struct ggml_context * ctx = new_ctx(64);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = make_a(ctx, ta, P, K, a2, a3, layout & (L_A_PERM | L_A_VIEW));
    struct ggml_tensor * b = make_b(ctx, tb, Q, K, b2, b3, layout & (L_B_T | L_B_PERM));
    struct ggml_tensor * d = ggml_out_prod(ctx, a, b);
    char lay[96], what[256];
    layout_name(layout, lay, sizeof(lay));
    snprintf(what, sizeof(what), "out_prod %s x %s P=%lld Q=%lld K=%lld a[%lld,%lld] b[%lld,%lld] %s",
             ggml_type_name(ta), ggml_type_name(tb), (long long) P, (long long) Q, (long long) K,
             (long long) a2, (long long) a3, (long long) b2, (long long) b3, lay);
    check_node(what, ctx, d);
    ggml_free(ctx);
}

static const enum ggml_type k_types[3] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };

static void test_mul_mat_shapes(void) {
    // K, N, M: odd sizes around the tiles (12/6/4 rows, 32/16 columns), K across 256-deep blocks
    static const int64_t shapes[][3] = {
        {   1,   1,   1 }, {   7,  33,  65 }, {  33,   7,   1 }, {  65, 130,   7 }, { 600, 257,  33 },
        { 256,  64,  12 }, { 257,  65, 130 }, { 130,   1, 257 }, {  16,  32,  24 }, { 513, 100,   5 },
        { 300, 600,  13 }, {  40,1100,  14 },
    };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        for (int t = 0; t < 3; t++) {
            mul_mat_case(k_types[t], GGML_TYPE_F32, shapes[s][0], shapes[s][1], shapes[s][2], 1, 1, 1, 1, 0);
        }
    }
}

// The blocked GEMM gives the same bits on 1, 2 and 3 threads (the split only chooses which thread
// computes a block; every element sums its k blocks in the same order): shapes across the packed
// blocks of A (512 columns), of B (240 rows) and of k (256), none a multiple of a tile. (The
// error of these shapes' blocking is bounded by test-cpu-mm-kernels.)
static void test_gemm_threads(void) {
    static const int64_t shapes[][3] = { { 600, 530, 253 } }; // K, N, M
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        for (int t = 0; t < 2; t++) {
            const int64_t K = shapes[s][0], N = shapes[s][1], M = shapes[s][2];
            struct ggml_context * ctx = new_ctx(64);
            float * first = malloc((size_t)(N*M)*sizeof(float));
            if (!TEST_CHECK(ctx != NULL && first != NULL)) {
                ggml_free(ctx);
                free(first);
                return;
            }
            struct ggml_tensor * a = make_a(ctx, k_types[t], K, N, 1, 1, 0);
            struct ggml_tensor * b = make_b(ctx, GGML_TYPE_F32, K, M, 1, 1, 0);
            struct ggml_tensor * d = ggml_mul_mat(ctx, a, b);
            struct ggml_cgraph * gf = ggml_new_graph(ctx);
            ggml_build_forward_expand(gf, d);
            for (int nth = 1; nth <= 3; nth++) {
                const enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, nth);
                if (!TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "[%s] gemm threads: status %d", g_level, (int) st)) {
                    break;
                }
                if (nth == 1) {
                    memcpy(first, d->data, (size_t)(N*M)*sizeof(float));
                    continue;
                }
                TEST_CHECK_MSG(memcmp(first, d->data, (size_t)(N*M)*sizeof(float)) == 0,
                               "[%s] gemm %s K=%lld N=%lld M=%lld: %d threads differ from 1 thread", g_level,
                               ggml_type_name(k_types[t]), (long long) K, (long long) N, (long long) M, nth);
            }
            free(first);
            ggml_free(ctx);
        }
    }
}

static void test_mul_mat_gemv(void) {
    // the matrix-vector path: M = 1..4 (and 5, just past it), K with and without vector tails
    static const int64_t shapes[][3] = {
        { 4096, 67, 1 }, { 600, 257, 1 }, { 33, 130, 2 }, { 1, 7, 1 }, { 257, 65, 3 }, { 100, 1, 4 },
        { 31, 300, 4 }, { 520, 40, 5 }, { 15, 1000, 1 },
    };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        for (int t = 0; t < 3; t++) {
            mul_mat_case(k_types[t], GGML_TYPE_F32, shapes[s][0], shapes[s][1], shapes[s][2], 1, 1, 1, 1, 0);
        }
    }
    // activations that must be converted or gathered first
    mul_mat_case(GGML_TYPE_F16,  GGML_TYPE_F16,  300, 70, 1, 1, 1, 1, 1, 0);
    mul_mat_case(GGML_TYPE_F32,  GGML_TYPE_BF16, 301, 33, 2, 1, 1, 1, 1, 0);
    mul_mat_case(GGML_TYPE_BF16, GGML_TYPE_F32,  129, 40, 3, 1, 1, 1, 1, L_B_T);
    mul_mat_case(GGML_TYPE_F16,  GGML_TYPE_F32,  65,  20, 1, 2, 3, 4, 3, L_B_PERM);
}

static void test_mul_mat_cols(void) {
    // the few-columns path: every M from 1 to 17 (1..4 take the GEMV kernel, 5..16 gemv_cols
    // (5..8 with F32 weights), the rest the GEMM),
    // odd K (vector tails; 2053 crosses the kernels' 2048-deep k blocks), N no multiple of the
    // kernels' 3 or 4 row tiles
    static const int64_t ks[] = { 37, 2053 };
    for (int64_t M = 1; M <= 17; M++) {
        for (size_t ki = 0; ki < sizeof(ks)/sizeof(ks[0]); ki++) {
            for (int t = 0; t < 3; t++) {
                mul_mat_case(k_types[t], GGML_TYPE_F32, ks[ki], 53, M, 1, 1, 1, 1, 0);
            }
        }
    }
    // past the k block of 6 rows of B (5440 deep; 4 x 3 tiles with F16/BF16 weights) and of 5 and 7
    for (int64_t M = 5; M <= 7; M++) {
        for (int t = 0; t < 3; t++) {
            mul_mat_case(k_types[t], GGML_TYPE_F32, 5461, 53, M, 1, 1, 1, 1, 0);
        }
    }
    // K a multiple of 8: rows of B used in place when 32-byte aligned (odd K: copied to scratch),
    // 5 and 6 (2 x 5 / 2 x 6 tiles, one pass), 8, 9 (4 + 3 + 2), 13 rows
    static const int64_t ms[] = { 5, 6, 8, 9, 13, 16 };
    for (size_t mi = 0; mi < sizeof(ms)/sizeof(ms[0]); mi++) {
        for (int t = 0; t < 3; t++) {
            mul_mat_case(k_types[t], GGML_TYPE_F32, 2112, 29, ms[mi], 1, 1, 1, 1, 0);
        }
    }
    // 2 x 5 / 2 x 6 tiles: 2, 3 and 4 rows of A (no tile to prefetch, an odd last row)
    for (int64_t n = 2; n <= 4; n++) {
        mul_mat_case(GGML_TYPE_F16, GGML_TYPE_F32, 1029, n, 5, 1, 1, 1, 1, 0);
        mul_mat_case(GGML_TYPE_BF16, GGML_TYPE_F32, 1029, n, 6, 1, 1, 1, 1, 0);
    }
    // row chunks on 2 threads: long chunks, then the last 2 chunks' rows in quarter chunks (N =
    // 1000: 14 x 64 + 6 x 16 + 8 rows; two batches: 6 x 128 + 7 x 32 + 8 rows each), 4 x 3 tiles
    // prefetching the next tile's rows over both passes (6 rows of B)
    for (int64_t M = 5; M <= 16; M += 11) {
        for (int t = 0; t < 3; t++) {
            mul_mat_case(k_types[t], GGML_TYPE_F32, 296, 1000, M, 1, 1, 1, 1, 0);
            mul_mat_case(k_types[t], GGML_TYPE_F32, 296, 1000, M, 1, 1, 2, 1, 0);
        }
    }
    mul_mat_case(GGML_TYPE_F16,  GGML_TYPE_F32, 296, 1000, 6, 1, 1, 1, 1, 0);
    mul_mat_case(GGML_TYPE_BF16, GGML_TYPE_F32, 296, 1000, 6, 1, 1, 2, 1, 0);
    // converted or gathered activations, broadcast batches, a single row of A, K < 8
    mul_mat_case(GGML_TYPE_F16,  GGML_TYPE_F16,  301, 70, 9,  1, 1, 1, 1, 0);
    mul_mat_case(GGML_TYPE_BF16, GGML_TYPE_F32,  129, 40, 7,  1, 1, 1, 1, L_B_T);
    mul_mat_case(GGML_TYPE_F32,  GGML_TYPE_F32,  65,  20, 16, 2, 3, 4, 3, L_B_PERM);
    mul_mat_case(GGML_TYPE_F16,  GGML_TYPE_F32,  4099, 1, 11, 1, 1, 1, 1, 0);
    mul_mat_case(GGML_TYPE_BF16, GGML_TYPE_F32,  5,   31, 12, 1, 1, 1, 1, 0);
}

static void test_mul_mat_cols_f16(void) {
    // F16 weights, B rounded to F16 per row: rows far beyond F16's range (1e5: 65504 is its
    // largest value) and far below its normal range (1e-12), with K = 1 (no averaging of the
    // rounding errors); a row beyond 2^100 keeps the whole batch on float rows (the strict bound)
    static const float big_small[4] = { 1e5f, 1e-12f, 1.0f, 3e4f };
    static const float huge[4]      = { 1.0f, 1e35f, 1.0f, 1.0f };
    static const int64_t ms[] = { 5, 8, 13, 16 };
    for (size_t mi = 0; mi < sizeof(ms)/sizeof(ms[0]); mi++) {
        mul_mat_case_scaled(GGML_TYPE_F16, GGML_TYPE_F32, 1,    29, ms[mi], 1, 1, 1, 1, 0, big_small, MM_NMSE_F16B);
        mul_mat_case_scaled(GGML_TYPE_F16, GGML_TYPE_F32, 1031, 29, ms[mi], 1, 1, 1, 1, 0, big_small, MM_NMSE_F16B);
        mul_mat_case_scaled(GGML_TYPE_F16, GGML_TYPE_F32, 1,    29, ms[mi], 1, 1, 2, 1, 0, huge, MM_NMSE_MAX);
    }
}

static void test_mul_mat_batched(void) {
    // broadcasting of a over b's dims 2 and 3, and non-contiguous layouts
    static const int layouts[] = { 0, L_A_PERM, L_A_VIEW, L_B_T, L_B_PERM, L_A_PERM | L_B_T, L_A_VIEW | L_B_PERM };
    for (size_t l = 0; l < sizeof(layouts)/sizeof(layouts[0]); l++) {
        for (int t = 0; t < 3; t++) {
            mul_mat_case(k_types[t], GGML_TYPE_F32, 33, 20, 17, 2, 3, 4, 3, layouts[l]);
            mul_mat_case(k_types[t], GGML_TYPE_F32, 70, 45, 1, 1, 2, 3, 4, layouts[l]);
        }
        mul_mat_case(GGML_TYPE_F32, GGML_TYPE_F32, 260, 70, 30, 1, 1, 2, 2, layouts[l]);
    }
    // F16/BF16 activations on the GEMM path
    mul_mat_case(GGML_TYPE_F16,  GGML_TYPE_F16,  130, 65, 20, 2, 1, 2, 2, 0);
    mul_mat_case(GGML_TYPE_BF16, GGML_TYPE_BF16, 70,  33, 13, 1, 1, 1, 1, L_B_T);
    mul_mat_case(GGML_TYPE_F32,  GGML_TYPE_F16,  45,  40, 25, 1, 1, 3, 1, L_B_PERM);
}

static void test_out_prod(void) {
    static const int64_t shapes[][3] = { // P, Q, K
        { 1, 1, 1 }, { 7, 33, 5 }, { 65, 13, 130 }, { 130, 70, 257 }, { 33, 1, 40 }, { 600, 20, 9 },
        { 1, 3, 50 }, // P = 1: A rows are contiguous along k, the matrix-vector path
    };
    for (size_t s = 0; s < sizeof(shapes)/sizeof(shapes[0]); s++) {
        for (int t = 0; t < 3; t++) {
            out_prod_case(k_types[t], GGML_TYPE_F32, shapes[s][0], shapes[s][1], shapes[s][2], 1, 1, 1, 1, 0);
        }
    }
    static const int layouts[] = { L_A_PERM, L_A_VIEW, L_B_T, L_B_PERM };
    for (size_t l = 0; l < sizeof(layouts)/sizeof(layouts[0]); l++) {
        for (int t = 0; t < 3; t++) {
            out_prod_case(k_types[t], GGML_TYPE_F32, 20, 17, 33, 2, 1, 4, 3, layouts[l]);
        }
    }
    out_prod_case(GGML_TYPE_F32, GGML_TYPE_F16, 30, 40, 50, 1, 1, 2, 1, 0);
}

static void test_reference_mode(void) {
    // cplan.use_ref: the plain code paths give the same results
    struct ggml_context * ctx = new_ctx(16);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = make_a(ctx, GGML_TYPE_F16, 70, 50, 1, 1, 0);
    struct ggml_tensor * b = make_b(ctx, GGML_TYPE_F32, 70, 30, 1, 1, 0);
    struct ggml_tensor * d = ggml_mul_mat(ctx, a, b);
    const int64_t n = ggml_nelements(d);
    double * ref = malloc((size_t) n*sizeof(double));
    TEST_CHECK(ref != NULL && ggml_ref_compute(d, ref, NULL, 0));
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, d);
    struct ggml_cplan plan = ggml_graph_plan(gf, 2, NULL);
    uint8_t * work = plan.work_size ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    plan.use_ref   = true;
    TEST_CHECK(ggml_graph_compute(gf, &plan) == GGML_STATUS_SUCCESS);
    if (ref != NULL) {
        const double e = ggml_ref_nmse(ref, (const float *) d->data, n);
        TEST_CHECK_MSG(e <= MM_NMSE_MAX, "[%s] reference mode: nmse %.3g", g_level, e);
    }
    free(work);
    free(ref);
    ggml_free(ctx);
}

static void test_unsupported(void) {
    // a source type the family does not compute: planning fails cleanly
    struct ggml_context * ctx = new_ctx(4);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 8, 4);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 3);
    memset(a->data, 0, ggml_nbytes(a));
    memset(b->data, 0, ggml_nbytes(b));
    struct ggml_tensor * d = ggml_mul_mat(ctx, a, b);
    if (d != NULL) {
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, d);
        test_log_capture_begin();
        const enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, 2);
        test_log_capture_end();
        TEST_CHECK(st != GGML_STATUS_SUCCESS);
    }
    ggml_free(ctx);
}

static void test_empty_k(void) {
    // K = 0: every element is an empty sum (when the library accepts such tensors at all)
    struct ggml_context * ctx = new_ctx(4);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    test_log_capture_begin();
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 5);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 3);
    struct ggml_tensor * d = a && b ? ggml_mul_mat(ctx, a, b) : NULL;
    test_log_capture_end();
    if (d != NULL) {
        check_node("mul_mat K = 0", ctx, d);
    }
    ggml_free(ctx);
}

static void run_all(void) {
    test_mul_mat_shapes();
    test_gemm_threads();
    test_mul_mat_gemv();
    test_mul_mat_cols();
    test_mul_mat_cols_f16();
    test_mul_mat_batched();
    test_out_prod();
    test_reference_mode();
    test_unsupported();
    test_empty_k();
}

// re-runs this program with GGML_CPU_ISA=level; true when it passed
static bool run_child(const char * level) {
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        return false;
    }
    if (pid == 0) {
        char seed[32];
        snprintf(seed, sizeof(seed), "%llu", (unsigned long long) test_rng_seed());
        setenv("GGML_CPU_ISA", level, 1);
        setenv("TEST_SEED", seed, 1);
        char * const argv[] = { (char *) "test-cpu-matmul", NULL };
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) {
        return false;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void) {
    test_rng_init();
    const bool child = getenv("GGML_CPU_ISA") != NULL && getenv("GGML_CPU_ISA")[0] != '\0';
    const enum ggml_cpu_isa_level level = ggml_cpu_isa();
    snprintf(g_level, sizeof(g_level), "%s", ggml_cpu_isa_name(level));
    printf("test-cpu-matmul: SIMD level %s\n", g_level);

    run_all();
    printf("test-cpu-matmul: [%s] largest NMSE %.3g (bound %.1g, %.2g for B rounded to F16)\n", g_level, g_worst,
           MM_NMSE_MAX, MM_NMSE_F16B);

    if (!child) {
        for (int l = (int) level - 1; l >= (int) GGML_CPU_ISA_PORTABLE; l--) {
            const char * name = ggml_cpu_isa_name((enum ggml_cpu_isa_level) l);
            TEST_CHECK_MSG(run_child(name), "the run with GGML_CPU_ISA=%s failed", name);
        }
    }
    char name[64] = "test-cpu-matmul";
    if (child) {
        snprintf(name, sizeof(name), "test-cpu-matmul[%s]", g_level);
    }
    return test_finish(name);
}
