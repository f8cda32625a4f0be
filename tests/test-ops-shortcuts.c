// The family's shortcut constructors (expm1, softplus, floor, ceil, round, trunc, xielu,
// swiglu_oai): node contents, and values on the CPU backend against the double reference.

#include "test-common.h"
#include "ggml-cpu.h"
#include "ggml-ref.h"
#include "ggml-impl.h"

#include <stdlib.h>

typedef struct ggml_tensor * (*unary_fn)(struct ggml_context *, struct ggml_tensor *);

static void check_against_reference(struct ggml_context * ctx, struct ggml_tensor * node, const char * what) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, node);
    TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gf, 2) == GGML_STATUS_SUCCESS, "%s: compute", what);
    const int64_t n = ggml_nelements(node);
    double * ref = malloc(n * sizeof(double));
    char err[256] = "";
    TEST_CHECK_MSG(ggml_ref_compute(node, ref, err, sizeof(err)), "%s: reference: %s", what, err);
    const double nmse = ggml_ref_nmse(ref, (const float *) node->data, n);
    TEST_CHECK_MSG(nmse < 1e-10, "%s: nmse %g against the reference (bound 1e-10)", what, nmse);
    free(ref);
}

int main(void) {
    test_rng_init();
    struct ggml_init_params p = { 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(p);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 37, 5);
    for (int64_t i = 0; i < ggml_nelements(x); i++) {
        ((float *) x->data)[i] = (float) test_rand_uniform(-4.0, 4.0);
    }

    const struct { const char * name; unary_fn fn, fn_inplace; enum ggml_unary_op op; } cases[] = {
        { "expm1",    ggml_expm1,    ggml_expm1_inplace,    GGML_UNARY_OP_EXPM1    },
        { "softplus", ggml_softplus, ggml_softplus_inplace, GGML_UNARY_OP_SOFTPLUS },
        { "floor",    ggml_floor,    ggml_floor_inplace,    GGML_UNARY_OP_FLOOR    },
        { "ceil",     ggml_ceil,     ggml_ceil_inplace,     GGML_UNARY_OP_CEIL     },
        { "round",    ggml_round,    ggml_round_inplace,    GGML_UNARY_OP_ROUND    },
        { "trunc",    ggml_trunc,    ggml_trunc_inplace,    GGML_UNARY_OP_TRUNC    },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ggml_tensor * t = cases[i].fn(ctx, x);
        struct ggml_tensor * ti = cases[i].fn_inplace(ctx, ggml_dup(ctx, x));
        TEST_CHECK_MSG(t && t->op == GGML_OP_UNARY && ggml_get_unary_op(t) == cases[i].op && t->src[0] == x && t->view_src == NULL,
                "%s: node", cases[i].name);
        TEST_CHECK_MSG(ti && ti->view_src != NULL && ggml_get_unary_op(ti) == cases[i].op, "%s_inplace: node", cases[i].name);
        if (t != NULL) {
            check_against_reference(ctx, t, cases[i].name);
        }
    }

    struct ggml_tensor * xi = ggml_xielu(ctx, x, 0.8f, 0.6f, 0.5f, -1e-6f);
    TEST_CHECK(xi && ggml_get_unary_op(xi) == GGML_UNARY_OP_XIELU && ggml_get_op_params_f32(xi, 1) == 0.8f &&
               ggml_get_op_params_f32(xi, 4) == -1e-6f);
    if (xi != NULL) {
        check_against_reference(ctx, xi, "xielu");
    }

    struct ggml_tensor * g = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 37, 5);
    for (int64_t i = 0; i < ggml_nelements(g); i++) {
        ((float *) g->data)[i] = (float) test_rand_uniform(-9.0, 9.0);
    }
    struct ggml_tensor * so = ggml_swiglu_oai(ctx, x, g, 1.702f, 7.0f);
    TEST_CHECK(so && so->op == GGML_OP_GLU && ggml_get_glu_op(so) == GGML_GLU_OP_SWIGLU_OAI && so->src[1] == g &&
               ggml_get_op_params_f32(so, 2) == 1.702f && ggml_get_op_params_f32(so, 3) == 7.0f);
    if (so != NULL) {
        check_against_reference(ctx, so, "swiglu_oai (split)");
    }
    struct ggml_tensor * x2 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 38, 3);
    for (int64_t i = 0; i < ggml_nelements(x2); i++) {
        ((float *) x2->data)[i] = (float) test_rand_uniform(-9.0, 9.0);
    }
    struct ggml_tensor * so1 = ggml_swiglu_oai(ctx, x2, NULL, 1.702f, 7.0f);
    TEST_CHECK(so1 && so1->ne[0] == 19 && so1->src[1] == NULL);
    if (so1 != NULL) {
        check_against_reference(ctx, so1, "swiglu_oai (one tensor)");
    }

    test_log_capture_begin();
    TEST_CHECK(ggml_floor(ctx, NULL) == NULL && ggml_xielu(NULL, x, 1, 1, 1, 1) == NULL);
    TEST_CHECK(ggml_swiglu_oai(ctx, x, x2, 1.0f, 1.0f) == NULL); // shapes differ
    TEST_CHECK(test_log_error_count() >= 3);
    test_log_capture_end();

    ggml_free(ctx);
    return test_finish("test-ops-shortcuts");
}
