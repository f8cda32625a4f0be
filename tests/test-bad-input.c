// Bad input to the public functions of ggml.h other than the op constructors: contexts, tensor
// creation, names and flags, element access, type queries and conversions, graphs, logging and
// the small utilities. Every case runs with the log captured and checks the documented failure
// value; cases marked BAD must also log an error, cases marked QUIET are NULL-tolerant queries and
// frees that the headers document as answering 0 / false / NULL (or doing nothing) silently.
//
// The op constructors are covered elsewhere: NULL arguments, full contexts and shape/parameter
// mismatches by test-ops-arg-checks.c (element-wise and layout ops) and test-ops-nn.c (nn and
// attention ops); wrong types and absurd shapes for every constructor by test-ops-input-sweep.c.
// ggml-alloc.h, ggml-backend.h and ggml-cpu.h are in test-bad-input-backend.c.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// Under ASan a huge allocation must return NULL (as libc does) instead of stopping the process,
// so that the library's own out-of-memory path is what runs.
const char * __asan_default_options(void);
const char * __asan_default_options(void) {
    return "allocator_may_return_null=1";
}

static int g_cases;
static int g_errs;

static enum ggml_error_code g_code;

#define RUN(stmt) do { test_log_capture_begin(); ggml_clear_last_error(); stmt; g_errs = test_log_error_count(); \
        g_code = ggml_last_error(); test_log_capture_end(); g_cases++; } while (0)
// stmt must leave cond true and log an error
#define BAD(stmt, cond) BAD_CODE(GGML_ERROR_INVALID_ARGUMENT, stmt, cond)
// same, and the last error must carry `code`
#define BAD_CODE(code, stmt, cond) do { RUN(stmt); TEST_CHECK_MSG((cond) && g_errs > 0, \
        "line %d: %s: expected (%s) and a logged error; got %s, %d errors", __LINE__, #stmt, #cond, (cond) ? "true" : "false", g_errs); \
        TEST_CHECK_MSG(g_code == (code), "line %d: %s: last error %s, expected %s", __LINE__, #stmt, \
        ggml_error_code_name(g_code), ggml_error_code_name(code)); } while (0)
// stmt must leave cond true; the documented answer needs no log
#define QUIET(stmt, cond) do { RUN(stmt); TEST_CHECK_MSG((cond), "line %d: %s: expected (%s)", __LINE__, #stmt, #cond); } while (0)

static struct ggml_context * ctx_new(size_t size, bool no_alloc) {
    struct ggml_init_params p = { size, NULL, no_alloc };
    return ggml_init(p);
}

//
// contexts
//

static void test_contexts(void) {
    struct ggml_context * c = NULL;
    struct ggml_init_params p;

    p = (struct ggml_init_params) { SIZE_MAX, NULL, false };
    BAD(c = ggml_init(p), c == NULL);
    p = (struct ggml_init_params) { SIZE_MAX / 2 + 1, NULL, false };
    BAD(c = ggml_init(p), c == NULL);
    // 1 PiB: beyond the 47-bit user address space, so the allocation fails even where the kernel
    // overcommits memory without limit (vm.overcommit_memory=1, seen on a 128 GiB VM where 64 TiB succeeded)
    p = (struct ggml_init_params) { (size_t) 1 << 50, NULL, false };
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, c = ggml_init(p), c == NULL);
    p = (struct ggml_init_params) { (size_t) 1 << 50, NULL, true };  // no_alloc still allocates the arena
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, c = ggml_init(p), c == NULL);
    static _Alignas(64) char arena[4096];
    p = (struct ggml_init_params) { sizeof(arena) - 1, arena + 1, false }; // misaligned user memory
    BAD(c = ggml_init(p), c == NULL);

    // a zero-size context exists and holds nothing
    p = (struct ggml_init_params) { 0, NULL, false };
    QUIET(c = ggml_init(p), c != NULL);
    struct ggml_tensor * t = NULL;
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, t = ggml_new_tensor_1d(c, GGML_TYPE_F32, 1), t == NULL);
    struct ggml_cgraph * g = NULL;
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, g = ggml_new_graph(c), g == NULL);
    void * b = NULL;
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_new_buffer(c, 1), b == NULL);
    ggml_free(c);

    // NULL contexts: frees, resets and queries are silent
    QUIET(ggml_free(NULL), true);
    QUIET(ggml_reset(NULL), true);
    size_t sz = 1;
    QUIET(sz = ggml_used_mem(NULL), sz == 0);
    bool no_alloc = true;
    QUIET(no_alloc = ggml_get_no_alloc(NULL), !no_alloc);
    QUIET(ggml_set_no_alloc(NULL, true), true);
    void * mb = (void *) 1;
    QUIET(mb = ggml_get_mem_buffer(NULL), mb == NULL);
    sz = 1;
    QUIET(sz = ggml_get_mem_size(NULL), sz == 0);
    sz = 1;
    QUIET(sz = ggml_get_max_tensor_size(NULL), sz == 0);
    QUIET(ggml_print_objects(NULL), true);
    QUIET(ggml_print_object(NULL), true);

    // buffers in a context
    c = ctx_new(4096, false);
    BAD(b = ggml_new_buffer(NULL, 16), b == NULL);
    BAD(b = ggml_new_buffer(c, SIZE_MAX), b == NULL);
    BAD(b = ggml_new_buffer(c, SIZE_MAX - 15), b == NULL);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, b = ggml_new_buffer(c, 4097), b == NULL);
    QUIET(b = ggml_new_buffer(c, 0), b != NULL);
    QUIET(sz = ggml_used_mem(c), sz > 0 && sz <= 4096);
    ggml_free(c);
}

//
// tensor creation
//

static void test_new_tensor(void) {
    struct ggml_context * ctx = ctx_new(1 << 16, false);
    struct ggml_context * nctx = ctx_new(1 << 16, true); // no_alloc: shapes whose data could never fit
    struct ggml_tensor * t = NULL;
    const int64_t ne4[4] = { 4, 3, 2, 1 };

    BAD(t = ggml_new_tensor(NULL, GGML_TYPE_F32, 1, ne4), t == NULL);
    BAD(t = ggml_new_tensor(ctx, GGML_TYPE_F32, 0, ne4), t == NULL);
    BAD(t = ggml_new_tensor(ctx, GGML_TYPE_F32, 5, ne4), t == NULL);
    BAD(t = ggml_new_tensor(ctx, GGML_TYPE_F32, -1, ne4), t == NULL);
    BAD(t = ggml_new_tensor(ctx, GGML_TYPE_F32, INT_MAX, ne4), t == NULL);
    BAD(t = ggml_new_tensor(ctx, GGML_TYPE_F32, 2, NULL), t == NULL);
    const enum ggml_type bad_types[] = { GGML_TYPE_COUNT, (enum ggml_type) 4, (enum ggml_type) 5, (enum ggml_type) 31,
                                         (enum ggml_type) 36, (enum ggml_type) -1, (enum ggml_type) 1000 };
    for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
        BAD(t = ggml_new_tensor_1d(ctx, bad_types[i], 4), t == NULL);
        BAD(t = ggml_new_tensor_2d(nctx, bad_types[i], 4, 4), t == NULL);
    }
    // sizes: negative, overflowing, not a multiple of the block size, beyond the context
    BAD(t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, -1), t == NULL);
    BAD(t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, INT64_MIN), t == NULL);
    BAD(t = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 1, 1, 1, -7), t == NULL);
    BAD(t = ggml_new_tensor_1d(nctx, GGML_TYPE_F32, INT64_MAX), t == NULL);
    BAD(t = ggml_new_tensor_2d(nctx, GGML_TYPE_F32, INT64_MAX, 2), t == NULL);
    BAD(t = ggml_new_tensor_2d(nctx, GGML_TYPE_I8, (int64_t) 1 << 40, (int64_t) 1 << 40), t == NULL);
    BAD(t = ggml_new_tensor_4d(nctx, GGML_TYPE_I8, (int64_t) 1 << 16, (int64_t) 1 << 16, (int64_t) 1 << 16, (int64_t) 1 << 16), t == NULL);
    BAD(t = ggml_new_tensor_4d(nctx, GGML_TYPE_F64, (int64_t) 1 << 20, (int64_t) 1 << 20, (int64_t) 1 << 20, 2), t == NULL);
    BAD(t = ggml_new_tensor_1d(nctx, GGML_TYPE_F32, (int64_t) 1 << 62), t == NULL); // 2^64 bytes
    BAD(t = ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 33), t == NULL);
    BAD(t = ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_K, 255), t == NULL);
    BAD(t = ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 31, 2), t == NULL);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1 << 16), t == NULL);         // larger than the context
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) 1 << 40), t == NULL);
    // empty tensors are valid
    QUIET(t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 5), t != NULL && ggml_nbytes(t) == 0 && ggml_is_empty(t));
    QUIET(t = ggml_new_tensor_1d(ctx, GGML_TYPE_Q4_0, 0), t != NULL && ggml_nelements(t) == 0);

    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
    BAD(t = ggml_dup_tensor(ctx, NULL), t == NULL);
    BAD(t = ggml_dup_tensor(NULL, a), t == NULL);
    BAD(t = ggml_view_tensor(ctx, NULL), t == NULL);
    BAD(t = ggml_view_tensor(NULL, a), t == NULL);

    // walking and lookups: NULL-tolerant, unknown names give NULL
    QUIET(t = ggml_get_first_tensor(NULL), t == NULL);
    QUIET(t = ggml_get_next_tensor(NULL, a), t == NULL);
    QUIET(t = ggml_get_next_tensor(ctx, NULL), t == NULL);
    QUIET(t = ggml_get_tensor(ctx, NULL), t == NULL);
    QUIET(t = ggml_get_tensor(NULL, "a"), t == NULL);
    QUIET(t = ggml_get_tensor(ctx, "no such tensor"), t == NULL);
    QUIET(t = ggml_get_tensor(ctx, ""), t != NULL || t == NULL); // unnamed tensors: either answer, no crash

    int64_t i0 = -9, i1 = -9, i2 = -9, i3 = -9;
    QUIET(ggml_unravel_index(NULL, 3, &i0, &i1, &i2, &i3), true);
    QUIET(ggml_unravel_index(a, 5, NULL, NULL, NULL, NULL), true);
    QUIET(ggml_unravel_index(a, 5, &i0, &i1, &i2, &i3), i0 == 1 && i1 == 1 && i2 == 0 && i3 == 0);
    QUIET(ggml_unravel_index(a, -1, &i0, &i1, &i2, &i3), true);
    QUIET(ggml_unravel_index(a, INT64_MAX, &i0, &i1, &i2, &i3), true);
    struct ggml_tensor * empty = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 0, 3);
    QUIET(ggml_unravel_index(empty, 2, &i0, &i1, &i2, &i3), true); // no division by zero

    ggml_free(nctx);
    ggml_free(ctx);
}

//
// names, flags and data pointers
//

static void test_names_flags(void) {
    struct ggml_context * ctx = ctx_new(1 << 16, false);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 4);
    struct ggml_tensor * i32 = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 4);
    struct ggml_tensor * r = NULL;
    const char * s = NULL;

    QUIET(s = ggml_get_name(NULL), s == NULL);
    QUIET(r = ggml_set_name(NULL, "x"), r == NULL);
    QUIET(r = ggml_set_name(a, NULL), r == a && a->name[0] == '\0');
    char longname[300];
    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    QUIET(r = ggml_set_name(a, longname), r == a && strlen(a->name) == GGML_MAX_NAME - 1);
    QUIET(r = ggml_format_name(a, "%s-%d", longname, 7), r == a && strlen(a->name) == GGML_MAX_NAME - 1);
    QUIET(r = ggml_format_name(NULL, "%d", 1), r == NULL);
    // a NULL format through a pointer (the attribute would reject it at compile time)
    struct ggml_tensor * (*fmt_fn)(struct ggml_tensor *, const char *, ...) = ggml_format_name;
    QUIET(r = fmt_fn(a, NULL), r == a);

    QUIET(ggml_set_input(NULL), true);
    QUIET(ggml_set_output(NULL), true);
    QUIET(ggml_set_param(NULL), true);
    QUIET(ggml_set_loss(NULL), true);
    struct ggml_tensor * op = ggml_scale(ctx, a, 2.0f);
    BAD(ggml_set_param(op), !(op->flags & GGML_TENSOR_FLAG_PARAM));
    BAD(ggml_set_loss(a), !(a->flags & GGML_TENSOR_FLAG_LOSS));                 // not a scalar
    struct ggml_tensor * s16 = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, 1);
    BAD(ggml_set_loss(s16), !(s16->flags & GGML_TENSOR_FLAG_LOSS));             // not f32

    void * d = (void *) 1;
    QUIET(d = ggml_get_data(NULL), d == NULL);
    float * f = (float *) 1;
    BAD(f = ggml_get_data_f32(NULL), f == NULL);
    BAD(f = ggml_get_data_f32(i32), f == NULL);

    enum ggml_unary_op uop = GGML_UNARY_OP_ABS;
    BAD(uop = ggml_get_unary_op(NULL), uop == GGML_UNARY_OP_COUNT);
    BAD(uop = ggml_get_unary_op(a), uop == GGML_UNARY_OP_COUNT);
    enum ggml_glu_op gop = GGML_GLU_OP_REGLU;
    BAD(gop = ggml_get_glu_op(NULL), gop == GGML_GLU_OP_COUNT);
    BAD(gop = ggml_get_glu_op(op), gop == GGML_GLU_OP_COUNT);

    // precision and sinks setters on the wrong kind of node
    struct ggml_tensor * mm = ggml_mul_mat(ctx, a, a);
    QUIET(ggml_mul_mat_set_prec(mm, GGML_PREC_F32), true);
    BAD(ggml_mul_mat_set_prec(NULL, GGML_PREC_F32), true);
    BAD(ggml_mul_mat_set_prec(op, GGML_PREC_F32), true);
    BAD(ggml_mul_mat_set_prec(mm, (enum ggml_prec) 3), true);
    BAD(ggml_flash_attn_ext_set_prec(NULL, GGML_PREC_F32), true);
    BAD(ggml_flash_attn_ext_set_prec(mm, GGML_PREC_F32), true);
    enum ggml_prec prec = GGML_PREC_F32;
    BAD(prec = ggml_flash_attn_ext_get_prec(NULL), prec == GGML_PREC_DEFAULT);
    BAD(prec = ggml_flash_attn_ext_get_prec(mm), prec == GGML_PREC_DEFAULT);
    struct ggml_tensor * sm = ggml_soft_max(ctx, a);
    struct ggml_tensor * sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    BAD(ggml_soft_max_add_sinks(NULL, sinks), true);
    BAD(ggml_soft_max_add_sinks(mm, sinks), mm->src[2] == NULL);
    BAD(ggml_soft_max_add_sinks(sm, i32), sm->src[2] == NULL);                  // not f32
    BAD(ggml_flash_attn_ext_add_sinks(NULL, sinks), true);
    BAD(ggml_flash_attn_ext_add_sinks(mm, sinks), mm->src[4] == NULL);
    ggml_free(ctx);
}

//
// element access
//

static void test_element_access(void) {
    struct ggml_context * ctx = ctx_new(1 << 16, false);
    struct ggml_context * nctx = ctx_new(1 << 16, true);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * ai = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 4, 3);
    struct ggml_tensor * q = ggml_new_tensor_1d(ctx, GGML_TYPE_Q8_0, 32);
    struct ggml_tensor * nod = ggml_new_tensor_1d(nctx, GGML_TYPE_F32, 4); // no data
    ggml_set_f32(a, 1.5f);
    ggml_set_i32(ai, 7);
    struct ggml_tensor * r = NULL;
    int32_t iv = -1;
    float fv = -1;

    BAD(r = ggml_new_i32(NULL, 3), r == NULL);
    BAD(r = ggml_new_f32(NULL, 3.0f), r == NULL);
    BAD(r = ggml_new_f32(nctx, 3.0f), r == NULL || r->data == NULL); // no data to write the value into
    QUIET(r = ggml_set_zero(NULL), r == NULL);
    BAD(r = ggml_set_i32(NULL, 1), r == NULL);
    BAD(r = ggml_set_f32(NULL, 1), r == NULL);
    BAD(ggml_set_f32(nod, 2.0f), true);
    BAD(ggml_set_f32(q, 2.0f), true);

    BAD(iv = ggml_get_i32_1d(NULL, 0), iv == 0);
    BAD(iv = ggml_get_i32_1d(ai, -1), iv == 0);
    BAD(iv = ggml_get_i32_1d(ai, 12), iv == 0);
    BAD(iv = ggml_get_i32_1d(ai, INT_MAX), iv == 0);
    BAD(iv = ggml_get_i32_1d(ai, INT_MIN), iv == 0);
    BAD(ggml_set_i32_1d(ai, 12, 99), ggml_get_i32_1d(ai, 11) == 7);
    BAD(ggml_set_i32_1d(ai, -1, 99), ggml_get_i32_1d(ai, 0) == 7);
    BAD(ggml_set_i32_1d(NULL, 0, 99), true);
    BAD(iv = ggml_get_i32_nd(ai, 4, 0, 0, 0), iv == 0);
    BAD(iv = ggml_get_i32_nd(ai, 0, 3, 0, 0), iv == 0);
    BAD(iv = ggml_get_i32_nd(ai, 0, 0, 1, 0), iv == 0);
    BAD(iv = ggml_get_i32_nd(ai, 0, 0, 0, -1), iv == 0);
    BAD(ggml_set_i32_nd(ai, 0, 0, 0, 1, 99), ggml_get_i32_1d(ai, 0) == 7);
    BAD(fv = ggml_get_f32_1d(a, 12), fv == 0.0f);
    BAD(fv = ggml_get_f32_1d(nod, 0), fv == 0.0f);
    BAD(fv = ggml_get_f32_1d(q, 0), fv == 0.0f);
    BAD(fv = ggml_get_f32_nd(a, -1, 0, 0, 0), fv == 0.0f);
    BAD(fv = ggml_get_f32_nd(NULL, 0, 0, 0, 0), fv == 0.0f);
    BAD(ggml_set_f32_1d(a, 100, 9.0f), ggml_get_f32_1d(a, 11) == 1.5f);
    BAD(ggml_set_f32_1d(q, 0, 9.0f), true);
    BAD(ggml_set_f32_nd(a, 0, 3, 0, 0, 9.0f), ggml_get_f32_1d(a, 0) == 1.5f);
    BAD(ggml_set_f32_nd(nod, 0, 0, 0, 0, 9.0f), true);
    // a permuted view: in range by its own shape
    struct ggml_tensor * at = ggml_transpose(ctx, a);
    QUIET(fv = ggml_get_f32_nd(at, 2, 3, 0, 0), fv == 1.5f);
    BAD(fv = ggml_get_f32_nd(at, 3, 2, 0, 0), fv == 0.0f);
    ggml_free(nctx);
    ggml_free(ctx);
}

//
// types, names of enums, conversions, row validation
//

static void test_types(void) {
    int64_t bs = -1;
    size_t sz = 1;
    const char * s = NULL;
    const enum ggml_type bad_types[] = { GGML_TYPE_COUNT, (enum ggml_type) 4, (enum ggml_type) 33, (enum ggml_type) -1, (enum ggml_type) 12345 };
    for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
        const enum ggml_type t = bad_types[i];
        QUIET(bs = ggml_blck_size(t), bs == 0);
        QUIET(sz = ggml_type_size(t), sz == 0);
        BAD(sz = ggml_row_size(t, 32), sz == 0);
        QUIET(s = ggml_type_name(t), s != NULL);
        bool qz = true;
        QUIET(qz = ggml_is_quantized(t), !qz);
        // removed ids inside the enum's range answer with an empty entry (block size 0), as in the
        // family; ids outside the range give NULL
        const struct ggml_type_traits * tr = (const struct ggml_type_traits *) 1;
        const bool in_range = (int) t >= 0 && (int) t < GGML_TYPE_COUNT;
        QUIET(tr = ggml_get_type_traits(t), in_range ? (tr != NULL && tr->blck_size == 0) : tr == NULL);
    }
    BAD(sz = ggml_row_size(GGML_TYPE_Q4_0, 33), sz == 0);          // not whole blocks
    BAD(sz = ggml_row_size(GGML_TYPE_F32, -1), sz == 0);
    BAD(sz = ggml_row_size(GGML_TYPE_F32, INT64_MAX), sz == 0);    // overflows size_t
    BAD(sz = ggml_row_size(GGML_TYPE_F64, (int64_t) 1 << 62), sz == 0);
    QUIET(sz = ggml_row_size(GGML_TYPE_F32, 0), sz == 0);

    QUIET(s = ggml_op_name(GGML_OP_COUNT), s != NULL);
    QUIET(s = ggml_op_name((enum ggml_op) -1), s != NULL);
    QUIET(s = ggml_op_symbol((enum ggml_op) 9999), s != NULL);
    QUIET(s = ggml_unary_op_name(GGML_UNARY_OP_COUNT), s != NULL);
    QUIET(s = ggml_unary_op_name((enum ggml_unary_op) -5), s != NULL);
    QUIET(s = ggml_glu_op_name(GGML_GLU_OP_COUNT), s != NULL);
    QUIET(s = ggml_glu_op_name((enum ggml_glu_op) 77), s != NULL);
    QUIET(s = ggml_op_desc(NULL), s != NULL);
    QUIET(s = ggml_status_to_string((enum ggml_status) 42), s != NULL);
    QUIET(s = ggml_status_to_string((enum ggml_status) -42), s != NULL);

    // row conversions with nothing to convert
    QUIET(ggml_fp16_to_fp32_row(NULL, NULL, 0), true);
    QUIET(ggml_fp32_to_fp16_row(NULL, NULL, 0), true);
    QUIET(ggml_bf16_to_fp32_row(NULL, NULL, 0), true);
    QUIET(ggml_fp32_to_bf16_row(NULL, NULL, 0), true);
    QUIET(ggml_fp32_to_bf16_row_ref(NULL, NULL, 0), true);
    QUIET(ggml_fp16_to_fp32_row(NULL, NULL, -8), true);
    QUIET(ggml_fp32_to_fp16_row(NULL, NULL, -8), true);
    QUIET(ggml_cpu_fp16_to_fp32(NULL, NULL, -3), true);
    QUIET(ggml_cpu_fp32_to_fp16(NULL, NULL, -3), true);
    QUIET(ggml_cpu_bf16_to_fp32(NULL, NULL, -3), true);
    QUIET(ggml_cpu_fp32_to_bf16(NULL, NULL, -3), true);
    // special values keep their meaning
    float f = 0;
    QUIET(f = ggml_fp16_to_fp32(ggml_fp32_to_fp16(NAN)), isnan(f));
    QUIET(f = ggml_fp16_to_fp32(ggml_fp32_to_fp16(1e30f)), isinf(f) && f > 0);
    QUIET(f = ggml_bf16_to_fp32(ggml_fp32_to_bf16(-INFINITY)), isinf(f) && f < 0);
    QUIET(f = ggml_bf16_to_fp32(ggml_fp32_to_bf16(NAN)), isnan(f));

    // row validation
    const float good[4] = { 1, 2, 3, 4 };
    const float nan4[4] = { 1, NAN, 3, 4 };
    const float inf4[4] = { 1, 2, INFINITY, 4 };
    bool v = true;
    BAD(v = ggml_validate_row_data(GGML_TYPE_F32, NULL, 16), !v);
    BAD(v = ggml_validate_row_data(GGML_TYPE_F32, good, 15), !v);          // not whole elements
    BAD(v = ggml_validate_row_data(GGML_TYPE_Q4_0, good, 16), !v);         // not whole blocks
    BAD(v = ggml_validate_row_data(GGML_TYPE_COUNT, good, 16), !v);
    BAD(v = ggml_validate_row_data((enum ggml_type) 4, good, 16), !v);
    BAD(v = ggml_validate_row_data(GGML_TYPE_F32, nan4, 16), !v);
    BAD(v = ggml_validate_row_data(GGML_TYPE_F32, inf4, 16), !v);
    QUIET(v = ggml_validate_row_data(GGML_TYPE_F32, good, 16), v);
    QUIET(v = ggml_validate_row_data(GGML_TYPE_F32, good, 0), v);
    const ggml_fp16_t h_nan[2] = { 0x3c00, 0x7e00 };
    BAD(v = ggml_validate_row_data(GGML_TYPE_F16, h_nan, 4), !v);

    // misc
    bool m = true;
    ggml_guid g1 = { 1 };
    QUIET(m = ggml_guid_matches(NULL, NULL), true);
    QUIET(m = ggml_guid_matches(&g1, NULL), !m);
    FILE * fp = (FILE *) 1;
    BAD(fp = ggml_fopen(NULL, "r"), fp == NULL);
    BAD(fp = ggml_fopen("/tmp/x", NULL), fp == NULL);
    QUIET(fp = ggml_fopen("/nonexistent-dir-ggml/file", "r"), fp == NULL);
    QUIET(s = ggml_version(), s != NULL);
    QUIET(s = ggml_commit(), s != NULL);
    ggml_abort_callback_t prev = NULL;
    QUIET(prev = ggml_set_abort_callback(NULL), true);
    ggml_set_abort_callback(prev);
    float dims[2] = { -1, -1 };
    QUIET(ggml_rope_yarn_corr_dims(0, 0, 0.0f, 0.0f, 0.0f, dims), true);
    QUIET(ggml_rope_yarn_corr_dims(128, 4096, 10000.0f, 32.0f, 1.0f, dims),
            dims[0] >= 0 && dims[1] <= 127 && dims[0] <= dims[1]);
    QUIET(ggml_rope_yarn_corr_dims(-4, -1, -5.0f, NAN, INFINITY, dims), true);
}

//
// logging
//

static void test_logging(void) {
    ggml_log_callback cb = NULL;
    void * ud = NULL;
    QUIET(ggml_log_get(NULL, NULL), true);
    QUIET(ggml_log_get(&cb, NULL), cb != NULL);
    QUIET(ggml_log_get(NULL, &ud), true);
    QUIET(ggml_log_set(NULL, (void *) 1), true);
    ggml_log_get(&cb, &ud);
    QUIET((void) 0, cb != NULL && ud == NULL); // NULL restores the default, whose user data is NULL
}

//
// graphs
//

static void test_graphs(void) {
    struct ggml_context * ctx = ctx_new(1 << 22, false);
    struct ggml_context * tiny = ctx_new(256, false);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    ggml_set_f32(a, 1.0f);
    ggml_set_name(a, "a");
    struct ggml_cgraph * g = NULL;
    size_t sz = 0;

    BAD(g = ggml_new_graph(NULL), g == NULL);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, g = ggml_new_graph(tiny), g == NULL);
    BAD(g = ggml_new_graph_custom(NULL, 16, false), g == NULL);
    BAD(g = ggml_new_graph_custom(ctx, SIZE_MAX, true), g == NULL);
    BAD(g = ggml_new_graph_custom(ctx, (size_t) INT_MAX + 1, false), g == NULL);   // sizes are ints
    BAD(g = ggml_new_graph_custom(ctx, (size_t) 1 << 40, false), g == NULL);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, g = ggml_new_graph_custom(ctx, 1 << 20, false), g == NULL);                // does not fit the context
    QUIET(sz = ggml_graph_overhead_custom(SIZE_MAX, true), sz == 0 || sz == SIZE_MAX || sz > ((size_t) 1 << 40)); // no wrap-around
    QUIET(sz = ggml_graph_overhead_custom((size_t) 1 << 40, false), sz == 0 || sz > ((size_t) 1 << 40));

    // too many nodes: the graph is marked incomplete and cannot be computed
    struct ggml_cgraph * small = ggml_new_graph_custom(ctx, 4, false);
    struct ggml_tensor * cur = a;
    for (int i = 0; i < 8; i++) {
        cur = ggml_scale(ctx, cur, 2.0f);
    }
    BAD(ggml_build_forward_expand(small, cur), ggml_graph_n_nodes(small) <= ggml_graph_size(small));
    enum ggml_status st = GGML_STATUS_SUCCESS;
    BAD(st = ggml_graph_compute_with_ctx(ctx, small, 1), st == GGML_STATUS_FAILED);
    BAD(ggml_build_forward_expand(NULL, cur), true);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 64, false);
    BAD(ggml_build_forward_expand(gf, NULL), ggml_graph_n_nodes(gf) == 0);
    ggml_build_forward_expand(gf, ggml_add(ctx, a, a));
    QUIET(ggml_build_forward_expand(gf, a), true); // a leaf: nothing to add, not an error

    // adding nodes by hand
    struct ggml_cgraph * two = ggml_new_graph_custom(ctx, 2, false);
    ggml_graph_add_node(two, a);
    ggml_graph_add_node(two, a);
    BAD(ggml_graph_add_node(two, a), ggml_graph_n_nodes(two) == 2);
    BAD(ggml_graph_add_node(NULL, a), true);
    BAD(ggml_graph_add_node(gf, NULL), ggml_graph_n_nodes(gf) == 1);

    // lookups
    struct ggml_tensor * t = NULL;
    int n = -1;
    QUIET(n = ggml_graph_size(NULL), n == 0);
    QUIET(n = ggml_graph_n_nodes(NULL), n == 0);
    struct ggml_tensor ** nodes = (struct ggml_tensor **) 1;
    QUIET(nodes = ggml_graph_nodes(NULL), nodes == NULL);
    BAD(t = ggml_graph_node(NULL, 0), t == NULL);
    BAD(t = ggml_graph_node(gf, 1), t == NULL);
    BAD(t = ggml_graph_node(gf, -2), t == NULL);
    BAD(t = ggml_graph_node(gf, INT_MAX), t == NULL);
    BAD(t = ggml_graph_node(gf, INT_MIN), t == NULL);
    QUIET(t = ggml_graph_node(gf, -1), t != NULL);
    QUIET(t = ggml_graph_get_tensor(gf, NULL), t == NULL);
    QUIET(t = ggml_graph_get_tensor(NULL, "a"), t == NULL);
    QUIET(t = ggml_graph_get_tensor(gf, "no such tensor"), t == NULL);
    QUIET(t = ggml_graph_get_grad(gf, a), t == NULL);          // no gradients
    QUIET(t = ggml_graph_get_grad(NULL, a), t == NULL);
    QUIET(t = ggml_graph_get_grad_acc(gf, NULL), t == NULL);

    // copies
    BAD(g = ggml_graph_dup(NULL, gf, false), g == NULL);
    BAD(g = ggml_graph_dup(ctx, NULL, false), g == NULL);
    BAD_CODE(GGML_ERROR_OUT_OF_MEMORY, g = ggml_graph_dup(tiny, gf, false), g == NULL);
    struct ggml_cgraph * big = ggml_new_graph_custom(ctx, 64, false);
    for (int i = 0; i < 10; i++) {
        ggml_build_forward_expand(big, ggml_scale(ctx, a, (float) i));
    }
    struct ggml_cgraph * dst = ggml_new_graph_custom(ctx, 4, false);
    BAD(ggml_graph_cpy(big, dst), ggml_graph_n_nodes(dst) == 0);
    BAD(ggml_graph_cpy(NULL, dst), true);
    BAD(ggml_graph_cpy(big, NULL), true);
    QUIET(ggml_graph_reset(NULL), true);
    QUIET(ggml_graph_reset(gf), true);  // no gradients: nothing to reset
    QUIET(ggml_graph_clear(NULL), true);
    QUIET(ggml_graph_print(NULL), true);
    BAD(ggml_graph_dump_dot(NULL, NULL, "/tmp/ggml-bad-input.dot"), true);
    BAD(ggml_graph_dump_dot(gf, NULL, NULL), true);
    BAD_CODE(GGML_ERROR_IO, ggml_graph_dump_dot(gf, NULL, "/nonexistent-dir-ggml/x.dot"), true);

    // computing what cannot be computed
    BAD(st = ggml_graph_compute_with_ctx(NULL, gf, 1), st == GGML_STATUS_FAILED);
    BAD(st = ggml_graph_compute_with_ctx(ctx, NULL, 1), st == GGML_STATUS_FAILED);
    ggml_free(tiny);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    test_contexts();
    test_new_tensor();
    test_names_flags();
    test_element_access();
    test_types();
    test_logging();
    test_graphs();
    printf("bad-input cases (ggml.h): %d\n", g_cases);
    return test_finish("test-bad-input");
}
