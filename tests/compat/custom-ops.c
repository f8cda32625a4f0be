// Compatibility program: user-defined ops, as programs of the ggml family write them.
// ggml_map_custom1/2/3 (and _inplace) with callbacks that split rows by ith/nth, GGML_N_TASKS_MAX,
// ggml_custom_4d with an argument list, the GGML_TENSOR_*_OP_LOCALS macros inside the callbacks,
// computed with ggml_graph_compute_with_ctx on several threads.

#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "custom-ops:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            n_failed++;                                                         \
        }                                                                       \
    } while (0)

static atomic_int max_nth_seen;
static atomic_int calls;

static void note_thread(int ith, int nth) {
    GGML_ASSERT(ith >= 0 && ith < nth);
    atomic_fetch_add(&calls, 1);
    int prev = atomic_load(&max_nth_seen);
    while (nth > prev && !atomic_compare_exchange_weak(&max_nth_seen, &prev, nth)) {
    }
}

// dst = a*a + userdata (a float offset), rows split between threads
static void custom1_square(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * userdata) {
    note_thread(ith, nth);
    const float offset = *(const float *) userdata;
    const struct ggml_tensor * src0 = a;
    GGML_TENSOR_UNARY_OP_LOCALS
    GGML_ASSERT(ne00 == ne0 && ne01 == ne1);
    const int64_t per = (ne01 + nth - 1) / nth;
    const int64_t r0 = per * ith;
    const int64_t r1 = r0 + per < ne01 ? r0 + per : ne01;
    for (int64_t r = r0; r < r1; r++) {
        const float * x = (const float *) ((const char *) src0->data + r * nb01);
        float * y = (float *) ((char *) dst->data + r * nb1);
        for (int64_t i = 0; i < ne00; i++) {
            y[i] = x[i] * x[i] + offset;
        }
    }
}

// dst = a - b (same shapes)
static void custom2_sub(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b, int ith,
        int nth, void * userdata) {
    GGML_UNUSED(userdata);
    note_thread(ith, nth);
    const struct ggml_tensor * src0 = a;
    const struct ggml_tensor * src1 = b;
    GGML_TENSOR_BINARY_OP_LOCALS
    for (int64_t r = ith; r < ne01; r += nth) {
        for (int64_t i = 0; i < ne00; i++) {
            const float x = *(const float *) ((const char *) src0->data + r * nb01 + i * nb00);
            const float z = *(const float *) ((const char *) src1->data + r * nb11 + i * nb10);
            *(float *) ((char *) dst->data + r * nb1 + i * nb0) = x - z;
        }
    }
}

// dst = a*b + c
static void custom3_fma(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b,
        const struct ggml_tensor * c, int ith, int nth, void * userdata) {
    GGML_UNUSED(userdata);
    note_thread(ith, nth);
    const int64_t n = ggml_nelements(dst);
    for (int64_t i = ith; i < n; i += nth) {
        ((float *) dst->data)[i] = ((const float *) a->data)[i] * ((const float *) b->data)[i] + ((const float *) c->data)[i];
    }
}

// dst[i, j] = sum over the args of arg[i, j], plus the index i
static void custom_sum_args(struct ggml_tensor * dst, int ith, int nth, void * userdata) {
    GGML_UNUSED(userdata);
    note_thread(ith, nth);
    const int64_t n = ggml_nelements(dst);
    for (int64_t i = ith; i < n; i += nth) {
        float acc = (float) (i % dst->ne[0]);
        for (int s = 0; s < GGML_MAX_SRC && dst->src[s] != NULL; s++) {
            acc += ((const float *) dst->src[s]->data)[i];
        }
        ((float *) dst->data)[i] = acc;
    }
}

int main(void) {
    struct ggml_init_params params = { 8 * 1024 * 1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);

    enum { NE0 = 10, NE1 = 7 };
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, NE0, NE1);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, NE0, NE1);
    struct ggml_tensor * c = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, NE0, NE1);
    for (int i = 0; i < NE0 * NE1; i++) {
        ggml_set_f32_1d(a, i, 0.1f * (float) i - 2.0f);
        ggml_set_f32_1d(b, i, 1.5f - 0.05f * (float) i);
        ggml_set_f32_1d(c, i, (float) (i % 3));
    }

    float offset = 0.5f;
    struct ggml_tensor * sq   = ggml_map_custom1(ctx, a, custom1_square, GGML_N_TASKS_MAX, &offset);
    struct ggml_tensor * diff = ggml_map_custom2(ctx, sq, b, custom2_sub, 2, NULL);
    struct ggml_tensor * fma3 = ggml_map_custom3(ctx, diff, b, c, custom3_fma, 1, NULL);
    struct ggml_tensor * args[3] = { a, b, fma3 };
    struct ggml_tensor * sum = ggml_custom_4d(ctx, GGML_TYPE_F32, NE0, NE1, 1, 1, args, 3, custom_sum_args,
            GGML_N_TASKS_MAX, NULL);
    CHECK(sq != NULL && diff != NULL && fma3 != NULL && sum != NULL, "custom op constructors returned NULL");
    if (sum == NULL) {
        ggml_free(ctx);
        printf("custom-ops: FAILED\n");
        return 1;
    }
    CHECK(sq->op == GGML_OP_MAP_CUSTOM1 && diff->op == GGML_OP_MAP_CUSTOM2 && fma3->op == GGML_OP_MAP_CUSTOM3,
            "ops %s %s %s", ggml_op_name(sq->op), ggml_op_name(diff->op), ggml_op_name(fma3->op));
    CHECK(sum->op == GGML_OP_CUSTOM, "custom_4d op %s", ggml_op_name(sum->op));

    // in place on a copy of c: c2 = c2^2 + offset, the result is a view of c2
    struct ggml_tensor * c2 = ggml_dup_tensor(ctx, c);
    memcpy(c2->data, c->data, ggml_nbytes(c));
    struct ggml_tensor * sq_in = ggml_map_custom1_inplace(ctx, c2, custom1_square, 2, &offset);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, sum);
    ggml_build_forward_expand(gf, sq_in);

    atomic_store(&max_nth_seen, 0);
    atomic_store(&calls, 0);
    enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, 4);
    CHECK(st == GGML_STATUS_SUCCESS, "compute: %s", ggml_status_to_string(st));
    CHECK(atomic_load(&calls) >= 5, "callbacks called %d times", atomic_load(&calls));
    CHECK(atomic_load(&max_nth_seen) >= 2 && atomic_load(&max_nth_seen) <= 4, "at most %d threads seen",
            atomic_load(&max_nth_seen));

    double max_err = 0.0;
    for (int i = 0; i < NE0 * NE1; i++) {
        const double av = 0.1 * i - 2.0, bv = 1.5 - 0.05 * i, cv = i % 3;
        const double sq_ref = av * av + 0.5;
        const double fma_ref = (sq_ref - bv) * bv + cv;
        const double sum_ref = (i % NE0) + av + bv + fma_ref;
        max_err = fmax(max_err, fabs(ggml_get_f32_1d(sq, i) - sq_ref));
        max_err = fmax(max_err, fabs(ggml_get_f32_1d(fma3, i) - fma_ref));
        max_err = fmax(max_err, fabs(ggml_get_f32_1d(sum, i) - sum_ref));
        max_err = fmax(max_err, fabs(ggml_get_f32_1d(c2, i) - (cv * cv + 0.5)));
    }
    CHECK(max_err < 1e-4, "max error %g", max_err);
    CHECK(sq_in->data == c2->data, "the in-place op does not write into its input");

    ggml_free(ctx);
    printf("custom-ops: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
