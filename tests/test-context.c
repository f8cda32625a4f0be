// Contexts, tensor creation, views, names, flags, shape queries and element access.

#include "test-common.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

static struct ggml_context * new_ctx(size_t size, bool no_alloc) {
    struct ggml_init_params p = { size, NULL, no_alloc };
    return ggml_init(p);
}

static void test_context_lifecycle(void) {
    struct ggml_context * ctx = new_ctx(1024*1024, false);
    TEST_CHECK(ctx != NULL);
    TEST_CHECK(ggml_used_mem(ctx) == 0);
    TEST_CHECK(ggml_get_mem_size(ctx) == 1024*1024);
    TEST_CHECK(ggml_get_mem_buffer(ctx) != NULL);
    TEST_CHECK(!ggml_get_no_alloc(ctx));

    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 7, 3);
    TEST_CHECK(a != NULL && a->data != NULL);
    TEST_CHECK(ggml_used_mem(ctx) == ggml_tensor_overhead() + GGML_PAD(7*3*4, GGML_MEM_ALIGN));
    TEST_CHECK(ggml_get_max_tensor_size(ctx) == 7*3*4);

    ggml_set_no_alloc(ctx, true);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1000);
    TEST_CHECK(b != NULL && b->data == NULL);
    TEST_CHECK(ggml_get_max_tensor_size(ctx) == 4000);

    ggml_reset(ctx);
    TEST_CHECK(ggml_used_mem(ctx) == 0);
    TEST_CHECK(ggml_get_first_tensor(ctx) == NULL);
    ggml_free(ctx);

    // a caller-supplied arena is used and not freed by ggml_free
    static _Alignas(64) char arena[64*1024];
    struct ggml_init_params p = { sizeof(arena), arena, false };
    ctx = ggml_init(p);
    TEST_CHECK(ctx != NULL);
    a = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 10);
    TEST_CHECK(a != NULL && (char *) a > arena && (char *) a < arena + sizeof(arena));
    ggml_free(ctx);

    // size 0 is allowed and holds nothing
    test_log_capture_begin();
    ctx = new_ctx(0, false);
    TEST_CHECK(ctx != NULL);
    TEST_CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1) == NULL);
    TEST_CHECK(test_log_error_count() == 1);
    ggml_free(ctx);

    // unaligned caller arena, absurd size
    struct ggml_init_params bad = { 1024, arena + 1, false };
    TEST_CHECK(ggml_init(bad) == NULL);
    TEST_CHECK(new_ctx(SIZE_MAX - 10, false) == NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();

    ggml_free(NULL);
    ggml_reset(NULL);
    TEST_CHECK(ggml_used_mem(NULL) == 0);
}

static void test_context_full(void) {
    struct ggml_context * ctx = new_ctx(4096, false);
    test_log_capture_begin();
    int n = 0;
    while (ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64) != NULL) {
        n++;
        if (n > 1000) {
            break;
        }
    }
    TEST_CHECK(n > 0 && n < 1000);
    TEST_CHECK(test_log_error_count() == 1);
    TEST_CHECK(strstr(test_log_text(), "not enough space") != NULL);
    // smaller objects may still fit; the context stays usable
    TEST_CHECK(ggml_used_mem(ctx) <= 4096);
    test_log_capture_end();
    ggml_free(ctx);
}

static void test_tensor_shapes(void) {
    struct ggml_context * ctx = new_ctx(1024*1024, false);
    const int64_t ne[4] = { 5, 4, 3, 2 };
    struct ggml_tensor * t = ggml_new_tensor(ctx, GGML_TYPE_F16, 4, ne);
    TEST_CHECK(t != NULL);
    TEST_CHECK(t->type == GGML_TYPE_F16 && t->op == GGML_OP_NONE && t->buffer == NULL);
    TEST_CHECK(t->nb[0] == 2 && t->nb[1] == 10 && t->nb[2] == 40 && t->nb[3] == 120);
    TEST_CHECK(ggml_nelements(t) == 120 && ggml_nrows(t) == 24 && ggml_nbytes(t) == 240);
    TEST_CHECK(ggml_n_dims(t) == 4 && ggml_is_contiguous(t) && !ggml_is_permuted(t));
    TEST_CHECK(((uintptr_t) t->data) % GGML_MEM_ALIGN == 0);

    struct ggml_tensor * s = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    TEST_CHECK(ggml_is_scalar(s) && ggml_is_vector(s) && ggml_is_matrix(s) && ggml_n_dims(s) == 1);
    struct ggml_tensor * m = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, 2);
    TEST_CHECK(!ggml_is_vector(m) && ggml_is_matrix(m) && ggml_is_3d(m) && ggml_n_dims(m) == 2);

    struct ggml_tensor * e = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 5);
    TEST_CHECK(e != NULL && ggml_is_empty(e) && ggml_nbytes(e) == 0);

    struct ggml_tensor * d = ggml_dup_tensor(ctx, t);
    TEST_CHECK(d != NULL && d != t && d->data != t->data && ggml_are_same_shape(d, t) && ggml_are_same_stride(d, t));

    // a transposed layout, made by hand
    struct ggml_tensor * tr = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, 4);
    tr->ne[0] = 4; tr->ne[1] = 3; tr->nb[0] = 12; tr->nb[1] = 4; tr->nb[2] = tr->nb[3] = 48;
    TEST_CHECK(ggml_is_transposed(tr) && ggml_is_permuted(tr) && !ggml_is_contiguous(tr));
    TEST_CHECK(ggml_nbytes(tr) == 48 && ggml_is_contiguously_allocated(tr));

    // rows with a gap between them: contiguous rows but not contiguous
    struct ggml_tensor * g = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    g->ne[0] = 6;
    TEST_CHECK(!ggml_is_contiguous(g) && ggml_is_contiguous_rows(g) && ggml_nbytes(g) == 3*32 + 24);
    TEST_CHECK(!ggml_is_contiguously_allocated(g));
    struct ggml_tensor * g3 = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 4, 3, 2);
    g3->nb[2] = 64; // gap between matrices only
    TEST_CHECK(ggml_is_contiguous_2(g3) && !ggml_is_contiguous_1(g3) && !ggml_is_contiguous(g3));

    // broadcasting
    struct ggml_tensor * b1 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 1, 3, 1);
    TEST_CHECK(ggml_can_repeat(b1, t));
    struct ggml_tensor * b2 = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 5, 3, 3, 1);
    TEST_CHECK(!ggml_can_repeat(b2, t));
    TEST_CHECK(ggml_can_repeat(e, e) && !ggml_can_repeat(e, t));

    int64_t i0, i1, i2, i3;
    ggml_unravel_index(t, 5*4*3 + 5*4*2 + 5*1 + 3, &i0, &i1, &i2, &i3);
    TEST_CHECK(i0 == 3 && i1 == 1 && i2 == 2 && i3 == 1);
    ggml_free(ctx);
}

static void test_tensor_bad_input(void) {
    struct ggml_context * ctx = new_ctx(1024*1024, false);
    test_log_capture_begin();
    const int64_t ne[2] = { 4, 4 };
    TEST_CHECK(ggml_new_tensor(ctx, (enum ggml_type) 4, 2, ne) == NULL);      // removed type id
    TEST_CHECK(ggml_new_tensor(ctx, (enum ggml_type) 1000, 2, ne) == NULL);
    TEST_CHECK(ggml_new_tensor(ctx, GGML_TYPE_F32, 0, ne) == NULL);
    TEST_CHECK(ggml_new_tensor(ctx, GGML_TYPE_F32, 5, ne) == NULL);
    TEST_CHECK(ggml_new_tensor(ctx, GGML_TYPE_F32, 2, NULL) == NULL);
    TEST_CHECK(ggml_new_tensor(NULL, GGML_TYPE_F32, 2, ne) == NULL);
    TEST_CHECK(ggml_new_tensor_2d(ctx, GGML_TYPE_F32, -1, 4) == NULL);
    TEST_CHECK(ggml_new_tensor_4d(ctx, GGML_TYPE_F32, INT64_MAX/2, INT64_MAX/2, 4, 4) == NULL);
    TEST_CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 33) == NULL);           // not a whole block
    TEST_CHECK(ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) 1 << 40) == NULL); // does not fit
    TEST_CHECK(ggml_dup_tensor(ctx, NULL) == NULL);
    TEST_CHECK(ggml_view_tensor(ctx, NULL) == NULL);
    TEST_CHECK(test_log_error_count() == 12);
    test_log_capture_end();
    ggml_free(ctx);
}

static void test_views(void) {
    struct ggml_context * ctx = new_ctx(1024*1024, false);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4);
    ggml_set_name(a, "a");
    struct ggml_tensor * v = ggml_view_tensor(ctx, a);
    TEST_CHECK(v != NULL && v->view_src == a && v->view_offs == 0 && v->data == a->data);
    TEST_CHECK(ggml_are_same_shape(v, a) && ggml_are_same_stride(v, a));
    TEST_CHECK(strcmp(v->name, "a (view)") == 0);

    // a view at an offset, then a view of that view: resolves to the innermost tensor
    struct ggml_tensor * w = ggml_new_tensor_impl(ctx, GGML_TYPE_F32, 1, (const int64_t[]){ 8 }, a, 32);
    TEST_CHECK(w != NULL && w->view_src == a && w->view_offs == 32 && (char *) w->data == (char *) a->data + 32);
    struct ggml_tensor * ww = ggml_new_tensor_impl(ctx, GGML_TYPE_F32, 1, (const int64_t[]){ 4 }, w, 16);
    TEST_CHECK(ww != NULL && ww->view_src == a && ww->view_offs == 48 && (char *) ww->data == (char *) a->data + 48);

    test_log_capture_begin();
    TEST_CHECK(ggml_new_tensor_impl(ctx, GGML_TYPE_F32, 1, (const int64_t[]){ 8 }, a, 100) == NULL); // past the end
    TEST_CHECK(ggml_new_tensor_impl(ctx, GGML_TYPE_F32, 1, (const int64_t[]){ 1 }, a, SIZE_MAX - 2) == NULL);
    TEST_CHECK(test_log_error_count() == 2);
    test_log_capture_end();
    ggml_free(ctx);
}

static void test_names_and_lookup(void) {
    struct ggml_context * ctx = new_ctx(1024*1024, true);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    struct ggml_tensor * c = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    TEST_CHECK(ggml_set_name(a, "alpha") == a);
    ggml_format_name(b, "layer.%d.%s", 12, "w");
    TEST_CHECK(strcmp(ggml_get_name(b), "layer.12.w") == 0);
    char longname[200];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ggml_set_name(c, longname);
    TEST_CHECK(strlen(c->name) == GGML_MAX_NAME - 1);
    TEST_CHECK(ggml_get_tensor(ctx, "alpha") == a);
    TEST_CHECK(ggml_get_tensor(ctx, "layer.12.w") == b);
    TEST_CHECK(ggml_get_tensor(ctx, "nope") == NULL);
    TEST_CHECK(ggml_get_tensor(ctx, NULL) == NULL);

    // enumeration sees every tensor in creation order, skipping other objects
    void * buf = ggml_new_buffer(ctx, 100);
    TEST_CHECK(buf != NULL);
    struct ggml_tensor * d = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    struct ggml_tensor * seen[8];
    int n = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t && n < 8; t = ggml_get_next_tensor(ctx, t)) {
        seen[n++] = t;
    }
    TEST_CHECK(n == 4 && seen[0] == a && seen[1] == b && seen[2] == c && seen[3] == d);

    ggml_set_input(a);
    ggml_set_output(b);
    ggml_set_param(c);
    TEST_CHECK(a->flags == GGML_TENSOR_FLAG_INPUT && b->flags == GGML_TENSOR_FLAG_OUTPUT && c->flags == GGML_TENSOR_FLAG_PARAM);
    test_log_capture_begin();
    ggml_set_loss(a); // not a scalar
    TEST_CHECK(test_log_error_count() == 1 && !(a->flags & GGML_TENSOR_FLAG_LOSS));
    test_log_capture_end();
    ggml_free(ctx);
}

static void test_element_access(void) {
    struct ggml_context * ctx = new_ctx(1024*1024, false);
    const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32, GGML_TYPE_I16, GGML_TYPE_I8, GGML_TYPE_F64, GGML_TYPE_I64 };
    for (size_t k = 0; k < sizeof(types)/sizeof(types[0]); k++) {
        struct ggml_tensor * t = ggml_new_tensor_3d(ctx, types[k], 3, 4, 2);
        for (int i = 0; i < 24; i++) {
            ggml_set_f32_1d(t, i, (float)(i - 11));
        }
        bool ok = true;
        for (int i = 0; i < 24; i++) {
            ok = ok && ggml_get_f32_1d(t, i) == (float)(i - 11) && ggml_get_i32_1d(t, i) == i - 11;
        }
        TEST_CHECK_MSG(ok, "1d round trip for type %s", ggml_type_name(types[k]));
        TEST_CHECK(ggml_get_f32_nd(t, 2, 3, 1, 0) == (float)(2 + 3*3 + 1*12 - 11));
        ggml_set_i32_nd(t, 1, 2, 1, 0, 42);
        TEST_CHECK(ggml_get_i32_1d(t, 1 + 2*3 + 12) == 42);
        ggml_set_i32(t, -3);
        TEST_CHECK(ggml_get_f32_1d(t, 23) == -3.0f && ggml_get_i32_nd(t, 0, 0, 0, 0) == -3);
        ggml_set_zero(t);
        TEST_CHECK(ggml_get_f32_1d(t, 7) == 0.0f);
    }

    struct ggml_tensor * f = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_f32(f, 1.5f);
    TEST_CHECK(ggml_get_data_f32(f)[3] == 1.5f);
    struct ggml_tensor * h = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 4);
    ggml_set_f32_1d(h, 0, 0.1f);
    TEST_CHECK(fabsf(ggml_get_f32_1d(h, 0) - 0.1f) < 1e-4f && ggml_get_f32_1d(h, 0) != 0.1f); // rounded to half

    struct ggml_tensor * n1 = ggml_new_i32(ctx, 77);
    struct ggml_tensor * n2 = ggml_new_f32(ctx, -2.25f);
    TEST_CHECK(n1 && ggml_get_i32_1d(n1, 0) == 77 && n2 && ggml_get_f32_1d(n2, 0) == -2.25f);

    test_log_capture_begin();
    TEST_CHECK(ggml_get_f32_1d(f, 4) == 0.0f);
    TEST_CHECK(ggml_get_f32_1d(f, -1) == 0.0f);
    TEST_CHECK(ggml_get_i32_nd(f, 0, 1, 0, 0) == 0);
    ggml_set_f32_nd(f, 9, 0, 0, 0, 1.0f);
    TEST_CHECK(ggml_get_f32_1d(NULL, 0) == 0.0f);
    TEST_CHECK(ggml_get_data_f32(h) == NULL);
    struct ggml_tensor * q = ggml_new_tensor_1d(ctx, GGML_TYPE_Q8_0, 32);
    TEST_CHECK(ggml_get_f32_1d(q, 0) == 0.0f); // no element access for block types
    TEST_CHECK(test_log_error_count() == 7);
    test_log_capture_end();

    struct ggml_context * nctx = new_ctx(1024, true);
    test_log_capture_begin();
    TEST_CHECK(ggml_new_i32(nctx, 1) == NULL);
    struct ggml_tensor * nd = ggml_new_tensor_1d(nctx, GGML_TYPE_F32, 4);
    ggml_set_f32(nd, 1.0f);  // no data: logged, nothing written
    TEST_CHECK(test_log_error_count() == 2);
    test_log_capture_end();
    ggml_free(nctx);
    ggml_free(ctx);
}

static void test_misc(void) {
    TEST_CHECK(strstr(ggml_status_to_string(GGML_STATUS_SUCCESS), "success") != NULL);
    TEST_CHECK(strstr(ggml_status_to_string(GGML_STATUS_ALLOC_FAILED), "allocate") != NULL);
    TEST_CHECK(ggml_status_to_string((enum ggml_status) 99) != NULL);
    ggml_guid g1 = { 1, 2, 3 }, g2 = { 1, 2, 3 }, g3 = { 1, 2, 4 };
    TEST_CHECK(ggml_guid_matches(&g1, &g2) && !ggml_guid_matches(&g1, &g3));
    int64_t t0 = ggml_time_us();
    TEST_CHECK(ggml_time_us() >= t0 && ggml_time_ms() >= 0);
    TEST_CHECK(ggml_version() != NULL);
}

// Every allocation of ggml_init can fail: NULL, a log line, and no leak (checked by ASan).
static void test_alloc_faults(void) {
    test_log_capture_begin();
    for (long n = 1; n <= 2; n++) {
        test_alloc_fault_set(n);
        struct ggml_context * ctx = new_ctx(4096, false);
        test_alloc_fault_set(0);
        TEST_CHECK_MSG(ctx == NULL, "ggml_init with allocation %ld failing", n);
        ggml_free(ctx);
    }
    TEST_CHECK(test_log_error_count() == 2);
    test_log_capture_end();
    test_alloc_fault_set(0);
    struct ggml_context * ctx = new_ctx(4096, false);
    TEST_CHECK(ctx != NULL && test_alloc_fault_count() == 2);
    ggml_free(ctx);
}

int main(void) {
    test_context_lifecycle();
    test_context_full();
    test_tensor_shapes();
    test_tensor_bad_input();
    test_views();
    test_names_and_lookup();
    test_element_access();
    test_misc();
    test_alloc_faults();
    return test_finish("test-context");
}
