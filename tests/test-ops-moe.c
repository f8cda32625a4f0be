// The mixture-of-experts op constructors (ggml_mul_mat_id, ggml_add_id): result shapes, types
// and sources as in the ggml family; every shape or type they cannot take gives NULL with a
// logged error, never an abort.

#include "test-common.h"
#include "ggml.h"

#include <stddef.h>

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

int main(void) {
    struct ggml_init_params ip = { 64 * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx != NULL) {
        test_mul_mat_id_shapes(ctx);
        test_add_id_shapes(ctx);
        ggml_free(ctx);
    }
    test_full_context();
    return test_finish("test-ops-moe");
}
