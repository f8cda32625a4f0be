// The mixture-of-experts ops (ggml_mul_mat_id, ggml_add_id, ggml_argsort_top_k): the
// constructors' result shapes, types and sources as in the ggml family, every shape or type they
// cannot take giving NULL with a logged error; and the CPU backend's results for every weight type it computes, with 1, 2
// and 3 threads and in reference mode, against the double-precision reference (tests/ref) from
// the dequantized weights. An expert id out of range fails the graph instead of aborting.

#include "test-common.h"
#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-ref.h"
#include "ggml-impl.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static struct ggml_tensor * t3(struct ggml_context * ctx, enum ggml_type type, int64_t n0, int64_t n1, int64_t n2) {
    return ggml_new_tensor_3d(ctx, type, n0, n1, n2);
}

// a bad call: NULL and at least one logged error
static void expect_rejected(struct ggml_tensor * r, const char * what) {
    TEST_CHECK_MSG(r == NULL, "%s: accepted", what);
}

static void test_mul_mat_id_shapes(struct ggml_context * ctx) {
    // 8 experts of 32 x 16 (Q8_0 blocks are 32 wide), 6 tokens, 2 experts each
    struct ggml_tensor * as  = t3(ctx, GGML_TYPE_Q8_0, 32, 16, 8);
    struct ggml_tensor * b   = t3(ctx, GGML_TYPE_F32, 32, 2, 6);
    struct ggml_tensor * b1  = t3(ctx, GGML_TYPE_F32, 32, 1, 6);   // one row broadcast to both experts
    struct ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 6);

    struct ggml_tensor * r = ggml_mul_mat_id(ctx, as, b, ids);
    TEST_CHECK(r != NULL);
    if (r != NULL) {
        TEST_CHECK(r->type == GGML_TYPE_F32 && r->op == GGML_OP_MUL_MAT_ID);
        TEST_CHECK(r->ne[0] == 16 && r->ne[1] == 2 && r->ne[2] == 6 && r->ne[3] == 1);
        TEST_CHECK(r->src[0] == as && r->src[1] == b && r->src[2] == ids);
    }
    r = ggml_mul_mat_id(ctx, as, b1, ids);
    TEST_CHECK(r != NULL && r->ne[1] == 2);

    test_log_capture_begin();
    expect_rejected(ggml_mul_mat_id(NULL, as, b, ids), "NULL context");
    expect_rejected(ggml_mul_mat_id(ctx, NULL, b, ids), "NULL as");
    expect_rejected(ggml_mul_mat_id(ctx, as, NULL, ids), "NULL b");
    expect_rejected(ggml_mul_mat_id(ctx, as, b, NULL), "NULL ids");
    expect_rejected(ggml_mul_mat_id(ctx, as, b, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2, 6)), "F32 ids");
    expect_rejected(ggml_mul_mat_id(ctx, as, t3(ctx, GGML_TYPE_F32, 64, 2, 6), ids), "ne[0] differs");
    expect_rejected(ggml_mul_mat_id(ctx, as, t3(ctx, GGML_TYPE_F32, 32, 2, 5), ids), "token count differs");
    expect_rejected(ggml_mul_mat_id(ctx, as, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 32, 2, 6, 2), ids), "4-d b");
    expect_rejected(ggml_mul_mat_id(ctx, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 32, 16, 8, 2), b, ids), "4-d as");
    expect_rejected(ggml_mul_mat_id(ctx, as, b, ggml_new_tensor_3d(ctx, GGML_TYPE_I32, 2, 6, 2)), "3-d ids");
    expect_rejected(ggml_mul_mat_id(ctx, as, t3(ctx, GGML_TYPE_F32, 32, 3, 6), ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 4, 6)),
            "3 rows of b do not divide 4 experts");
    struct ggml_tensor * asf = t3(ctx, GGML_TYPE_F32, 16, 32, 8);
    expect_rejected(ggml_mul_mat_id(ctx, ggml_transpose(ctx, asf), b, ids), "transposed as");
    TEST_CHECK(test_log_error_count() >= 12);
    test_log_capture_end();
}

static void test_add_id_shapes(struct ggml_context * ctx) {
    struct ggml_tensor * a    = t3(ctx, GGML_TYPE_F32, 16, 2, 6);
    struct ggml_tensor * bias = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 16, 8);
    struct ggml_tensor * ids  = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 6);

    struct ggml_tensor * r = ggml_add_id(ctx, a, bias, ids);
    TEST_CHECK(r != NULL);
    if (r != NULL) {
        TEST_CHECK(r->type == GGML_TYPE_F32 && r->op == GGML_OP_ADD_ID && r != a && r->view_src == NULL);
        TEST_CHECK(ggml_are_same_shape(r, a));
        TEST_CHECK(r->src[0] == a && r->src[1] == bias && r->src[2] == ids);
    }

    test_log_capture_begin();
    expect_rejected(ggml_add_id(NULL, a, bias, ids), "NULL context");
    expect_rejected(ggml_add_id(ctx, NULL, bias, ids), "NULL a");
    expect_rejected(ggml_add_id(ctx, a, NULL, ids), "NULL b");
    expect_rejected(ggml_add_id(ctx, a, bias, NULL), "NULL ids");
    expect_rejected(ggml_add_id(ctx, a, bias, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2, 6)), "F32 ids");
    expect_rejected(ggml_add_id(ctx, a, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 15, 8), ids), "bias width");
    expect_rejected(ggml_add_id(ctx, a, bias, ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 6)), "ids ne[0]");
    expect_rejected(ggml_add_id(ctx, a, bias, ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 5)), "ids ne[1]");
    TEST_CHECK(test_log_error_count() >= 8);
    test_log_capture_end();
}

static void test_argsort_top_k(struct ggml_context * ctx) {
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 3);
    struct ggml_tensor * r = ggml_argsort_top_k(ctx, a, 2);
    TEST_CHECK(r != NULL);
    if (r != NULL) {
        // a view of the descending argsort: k columns with the argsort's row stride
        TEST_CHECK(r->type == GGML_TYPE_I32 && r->ne[0] == 2 && r->ne[1] == 3 && r->view_src != NULL);
        TEST_CHECK(r->view_src->op == GGML_OP_ARGSORT && r->nb[1] == 8*sizeof(int32_t));
        TEST_CHECK(ggml_get_op_params_i32(r->view_src, 0) == GGML_SORT_ORDER_DESC);
    }
    test_log_capture_begin();
    expect_rejected(ggml_argsort_top_k(ctx, a, 0), "k = 0");
    expect_rejected(ggml_argsort_top_k(ctx, a, 9), "k > ne0");
    expect_rejected(ggml_argsort_top_k(ctx, NULL, 1), "NULL a");
    TEST_CHECK(test_log_error_count() >= 3);
    test_log_capture_end();
}

// a context with no room left: NULL and a message, not an abort
static void test_full_context(void) {
    struct ggml_init_params ip = { 4 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx == NULL) {
        return;
    }
    struct ggml_tensor * as  = t3(ctx, GGML_TYPE_F32, 8, 4, 3);
    struct ggml_tensor * b   = t3(ctx, GGML_TYPE_F32, 8, 1, 2);
    struct ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 2);
    struct ggml_tensor * r   = ggml_mul_mat_id(ctx, as, b, ids);
    TEST_CHECK(r != NULL);
    test_log_capture_begin();
    expect_rejected(ggml_mul_mat_id(ctx, as, b, ids), "full context (mul_mat_id)");
    expect_rejected(ggml_add_id(ctx, r, t3(ctx, GGML_TYPE_F32, 4, 3, 1), ids), "full context (add_id)");
    TEST_CHECK(test_log_error_count() >= 2);
    test_log_capture_end();
    ggml_free(ctx);
}

//
// CPU results against the reference
//

static void log_quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) level; (void) text; (void) user;
}

static float rnd_gauss(void) {
    const double u1 = test_rand_uniform(1e-12, 1.0), u2 = test_rand_uniform(0.0, 1.0);
    return (float) (sqrt(-2.0*log(u1))*cos(6.283185307179586*u2));
}

// rows of weights of type t (n elements in all): quantized Gaussian values where the type has a
// quantizer, else random blocks that ggml_validate_row_data accepts (dequantize-only formats) of
// magnitude 0.5 .. 8
static bool fill_weights(struct ggml_tensor * w) {
    const enum ggml_type t = w->type;
    const int64_t n = ggml_nelements(w);
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    float * x = malloc((size_t) n*sizeof(float));
    if (x == NULL) {
        return false;
    }
    for (int64_t i = 0; i < n; i++) {
        x[i] = rnd_gauss();
    }
    bool ok = true;
    if (t == GGML_TYPE_F32) {
        memcpy(w->data, x, (size_t) n*sizeof(float));
    } else if (tr->from_float_ref != NULL) {
        tr->from_float_ref(x, w->data, n);
    } else {
        ggml_log_set(log_quiet, NULL); // refused candidates are logged by ggml_validate_row_data
        for (int64_t b = 0; b < n/tr->blck_size && ok; b++) {
            uint8_t * blk = (uint8_t *) w->data + b*tr->type_size;
            int tries = 0;
            // random scales span the F16 range: keep blocks of magnitude ~1 so that no block
            // dominates a sum (as quantized Gaussian rows are)
            float vals[256];
            bool good = false;
            while (!good && ++tries < 100000) {
                for (size_t j = 0; j < tr->type_size; j++) {
                    blk[j] = (uint8_t) test_rand_u64();
                }
                if (tr->blck_size > 256 || !ggml_validate_row_data(t, blk, tr->type_size)) {
                    continue;
                }
                tr->to_float(blk, vals, tr->blck_size);
                float amax = 0.0f;
                for (int64_t i = 0; i < tr->blck_size; i++) {
                    amax = fmaxf(amax, fabsf(vals[i]));
                }
                good = amax >= 0.5f && amax <= 8.0f;
            }
            ok = good;
        }
        ggml_log_set(NULL, NULL);
    }
    free(x);
    return ok;
}

static void fill_uniform(struct ggml_tensor * t) {
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        ((float *) t->data)[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
}

// each token's n_used experts: distinct, random (the first n_used of a shuffled list)
static void fill_ids(struct ggml_tensor * ids, int64_t n_expert) {
    int32_t perm[64];
    for (int64_t t = 0; t < ids->ne[1]; t++) {
        for (int64_t x = 0; x < n_expert; x++) {
            perm[x] = (int32_t) x;
        }
        for (int64_t x = n_expert - 1; x > 0; x--) {
            const int64_t j = test_rand_int(0, x);
            const int32_t tmp = perm[x];
            perm[x] = perm[j];
            perm[j] = tmp;
        }
        memcpy((char *) ids->data + t*ids->nb[1], perm, (size_t) ids->ne[0]*sizeof(int32_t));
    }
}

// NMSE of node's F32 result against the reference; negative when the reference fails
static double node_nmse(const struct ggml_tensor * node) {
    const int64_t n = ggml_nelements(node);
    double * ref = malloc((size_t) n*sizeof(double));
    char err[256] = "";
    double e = -1.0;
    if (ref != NULL && ggml_ref_compute(node, ref, err, sizeof(err))) {
        e = ggml_ref_nmse(ref, (const float *) node->data, n);
    } else {
        TEST_CHECK_MSG(false, "reference: %s", err);
    }
    free(ref);
    return e;
}

// the family's bounds: 5e-4 for quantized and half-precision weights, 1e-6 for F32
static double bound_for(enum ggml_type t) {
    return t == GGML_TYPE_F32 ? 1e-6 : 5e-4;
}

struct mmid_shape { int64_t K, N, n_expert, n_used, n_b, n_tok; };

static const struct mmid_shape k_shapes[] = {
    { 256, 16,  4, 1, 1,  1 },
    { 256, 24,  8, 2, 2,  5 },
    { 256, 16,  8, 4, 1, 33 }, // b broadcast over the used experts
    { 512, 72, 32, 8, 8, 13 }, // more rows than a chunk, many experts
};

// mul_mat_id of type t for one shape, on the CPU backend with n_threads (use_ref: portable code)
static void check_mul_mat_id(ggml_backend_t cpu, enum ggml_type t, const struct mmid_shape * s, int n_threads, bool use_ref) {
    const size_t mem = (size_t) (s->K*s->N*s->n_expert + s->K*s->n_b*s->n_tok + s->N*s->n_used*s->n_tok)*sizeof(float)*2 +
                       (size_t) 16*ggml_tensor_overhead() + (1u << 20);
    struct ggml_init_params ip = { mem, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * as  = ggml_new_tensor_3d(ctx, t, s->K, s->N, s->n_expert);
    struct ggml_tensor * b   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, s->K, s->n_b, s->n_tok);
    struct ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, s->n_used, s->n_tok);
    struct ggml_tensor * out = ggml_mul_mat_id(ctx, as, b, ids);
    if (!TEST_CHECK(out != NULL)) {
        ggml_free(ctx);
        return;
    }
    if (!ggml_backend_supports_op(cpu, out)) {
        ggml_free(ctx);
        return; // the caller checks which types must be supported
    }
    TEST_CHECK_MSG(fill_weights(as), "%s: no valid weights", ggml_type_name(t));
    fill_uniform(b);
    fill_ids(ids, s->n_expert);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_cpu_set_n_threads(cpu, n_threads);
    ggml_backend_cpu_set_use_ref(cpu, use_ref);
    const enum ggml_status st = ggml_backend_graph_compute(cpu, gf);
    TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "%s K=%lld: compute failed", ggml_type_name(t), (long long) s->K);
    if (st == GGML_STATUS_SUCCESS) {
        const double e = node_nmse(out);
        TEST_CHECK_MSG(e >= 0.0 && e <= bound_for(t), "mul_mat_id %s K=%lld N=%lld experts=%lld used=%lld n_b=%lld tokens=%lld"
                " threads=%d%s: nmse %.3e > %.1e", ggml_type_name(t), (long long) s->K, (long long) s->N,
                (long long) s->n_expert, (long long) s->n_used, (long long) s->n_b, (long long) s->n_tok, n_threads,
                use_ref ? " (ref)" : "", e, bound_for(t));
    }
    ggml_free(ctx);
}

static void test_mul_mat_id_compute(void) {
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (!TEST_CHECK(cpu != NULL)) {
        return;
    }
    int n_types = 0;
    for (int ti = 0; ti < GGML_TYPE_COUNT; ti++) {
        const enum ggml_type t = (enum ggml_type) ti;
        const struct ggml_type_traits * tr = ggml_get_type_traits(t);
        if (tr->blck_size == 0 || tr->type_size == 0) {
            continue; // removed type ids
        }
        const bool float_w = t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
        const bool quant_w = ggml_is_quantized(t) && ggml_get_type_traits_cpu(t)->vec_dot != NULL;
        if (!float_w && !quant_w) {
            continue;
        }
        // every type the CPU's MUL_MAT computes must be computed by MUL_MAT_ID too
        struct ggml_init_params ip = { 8*ggml_tensor_overhead(), NULL, true };
        struct ggml_context * c0 = ggml_init(ip);
        struct ggml_tensor * w  = ggml_new_tensor_3d(c0, t, 256, 16, 4);
        struct ggml_tensor * mm = ggml_mul_mat(c0, ggml_view_2d(c0, w, 256, 16, w->nb[1], 0), ggml_new_tensor_2d(c0, GGML_TYPE_F32, 256, 2));
        struct ggml_tensor * mi = ggml_mul_mat_id(c0, w, ggml_new_tensor_3d(c0, GGML_TYPE_F32, 256, 1, 2), ggml_new_tensor_2d(c0, GGML_TYPE_I32, 2, 2));
        const bool mm_ok = mm != NULL && ggml_backend_supports_op(cpu, mm);
        const bool mi_ok = mi != NULL && ggml_backend_supports_op(cpu, mi);
        ggml_free(c0);
        TEST_CHECK_MSG(mm_ok == mi_ok, "%s: MUL_MAT supported %d, MUL_MAT_ID %d", ggml_type_name(t), mm_ok, mi_ok);
        if (!mi_ok) {
            continue;
        }
        n_types++;
        for (size_t si = 0; si < sizeof(k_shapes)/sizeof(k_shapes[0]); si++) {
            check_mul_mat_id(cpu, t, &k_shapes[si], si % 2 ? 2 : 3, false);
        }
        check_mul_mat_id(cpu, t, &k_shapes[1], 1, true);
    }
    TEST_CHECK_MSG(n_types >= 20, "only %d weight types computed", n_types);
    ggml_backend_free(cpu);
}

// add_id against the reference; an out-of-range id (in either op) fails the graph
static void test_add_id_and_bad_ids(void) {
    struct ggml_init_params ip = { 4u << 20, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a    = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 40, 3, 7);
    struct ggml_tensor * bias = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 40, 6);
    struct ggml_tensor * ids  = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 7);
    fill_uniform(a);
    fill_uniform(bias);
    fill_ids(ids, 6);
    struct ggml_tensor * out = ggml_add_id(ctx, a, bias, ids);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, gf, 2) == GGML_STATUS_SUCCESS);
    const double e = node_nmse(out);
    TEST_CHECK_MSG(e >= 0.0 && e <= 1e-12, "add_id: nmse %.3e", e);

    ((int32_t *) ids->data)[4] = 6;
    test_log_capture_begin();
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, gf, 2) != GGML_STATUS_SUCCESS);
    TEST_CHECK(test_log_error_count() >= 1);
    test_log_capture_end();

    struct ggml_tensor * as = ggml_new_tensor_3d(ctx, GGML_TYPE_Q8_0, 256, 64, 6);
    struct ggml_tensor * b  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 256, 3, 7);
    TEST_CHECK(fill_weights(as));
    fill_uniform(b);
    struct ggml_tensor * mo = ggml_mul_mat_id(ctx, as, b, ids);
    struct ggml_cgraph * g2 = ggml_new_graph(ctx);
    ggml_build_forward_expand(g2, mo);
    for (int nt = 1; nt <= 2; nt++) {
        ((int32_t *) ids->data)[4] = -1;
        test_log_capture_begin();
        TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, g2, nt) != GGML_STATUS_SUCCESS, "bad id, %d threads", nt);
        TEST_CHECK(strstr(test_log_text(), "outside") != NULL);
        test_log_capture_end();
        fill_ids(ids, 6); // and the same graph computes again
        TEST_CHECK(ggml_graph_compute_with_ctx(ctx, g2, nt) == GGML_STATUS_SUCCESS);
        const double e2 = node_nmse(mo);
        TEST_CHECK_MSG(e2 >= 0.0 && e2 <= 5e-4, "mul_mat_id after a bad id: nmse %.3e", e2);
    }
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    struct ggml_init_params ip = { 64 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx != NULL) {
        test_mul_mat_id_shapes(ctx);
        test_add_id_shapes(ctx);
        test_argsort_top_k(ctx);
        ggml_free(ctx);
    }
    test_full_context();
    test_mul_mat_id_compute();
    test_add_id_and_bad_ids();
    return test_finish("test-ops-moe");
}
