// The meta device op by op, on every device combination this machine has (CPU repeated,
// OpenCL0 + CPU, OpenCL0 + OpenCL0): static tensors of every split state read back whole
// (uneven slices, segments with repeats, partial sums, byte ranges, memset), and single ops
// against one CPU device (normalized error < 1e-10): column/row-parallel products, segmented
// fused weights and views of them, get_rows on a split table, softmax and transposes of split
// tensors, sums of partial sums, ops with no split rule (computed whole after a gather), and a
// static partial tensor reduced in place and used again.

#include "test-common.h"
#include "test-meta-util.h"
#include "ggml-backend-meta.h" // the seed's staging header: declares nothing new, compiles alongside

#include <stdlib.h>

static size_t g_n;                 // devices of the current combination
static struct mu_splits g_sp;      // its split table
static const char * g_combo;

// --- static tensors read back whole ---

static void fill_bytes(uint8_t * p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t) (mu_value(seed, (int64_t) i) * 127 + 128);
    }
}

static void check_readback(ggml_backend_dev_t md) {
    struct ggml_context * ctx = mu_ctx(16);
    struct ggml_tensor * ts[6];
    ts[0] = mu_leaf(ctx, "r_ax0", GGML_TYPE_F32, 13, 5);
    ts[1] = mu_leaf(ctx, "r_ax1", GGML_TYPE_F32, 6, 11);
    ts[2] = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 3, 4 * g_n + 2 * 2 * (g_n + 1), 2);
    ggml_set_name(ts[2], "r_seg");
    ts[3] = mu_leaf(ctx, "r_mir", GGML_TYPE_F32, 7, 3);
    ts[4] = mu_leaf(ctx, "r_part", GGML_TYPE_F32, 9, 4);
    ts[5] = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 2, 3, 4, 2 * g_n + 1);
    ggml_set_name(ts[5], "r_ax3");
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(md));
    if (!TEST_CHECK_MSG(buf != NULL, "%s: static buffer", g_combo)) {
        ggml_free(ctx);
        return;
    }
    ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    for (int i = 0; i < 6; i++) {
        struct ggml_tensor * t = ts[i];
        const size_t nb = ggml_nbytes(t);
        uint8_t * in = malloc(nb), * out = malloc(nb);
        if (t->type == GGML_TYPE_F32) {
            for (int64_t k = 0; k < ggml_nelements(t); k++) {
                ((float *) in)[k] = mu_value(7 + (uint64_t) i, k);
            }
        } else {
            for (int64_t k = 0; k < ggml_nelements(t); k++) {
                ((ggml_fp16_t *) in)[k] = ggml_fp32_to_fp16(mu_value(7 + (uint64_t) i, k));
            }
        }
        ggml_backend_tensor_set(t, in, 0, nb);
        memset(out, 0, nb);
        ggml_backend_tensor_get(t, out, 0, nb);
        TEST_CHECK_MSG(memcmp(in, out, nb) == 0, "%s: %s reads back whole", g_combo, t->name);
        // a byte range, then a write of a range and a memset of another
        const size_t a = nb / 3, len = nb / 3;
        memset(out, 0, nb);
        ggml_backend_tensor_get(t, out, a, len);
        TEST_CHECK_MSG(memcmp(in + a, out, len) == 0, "%s: %s range read", g_combo, t->name);
        uint8_t * patch = malloc(len);
        fill_bytes(patch, len, 99);
        if (t->type == GGML_TYPE_F32) {
            // keep whole floats (the partial sum must stay exact): patch with float values
            for (size_t k = 0; k < len / 4; k++) {
                ((float *) patch)[k] = mu_value(3, (int64_t) k);
            }
        }
        const size_t a4 = a / 4 * 4;
        ggml_backend_tensor_set(t, patch, a4, len / 4 * 4);
        memcpy(in + a4, patch, len / 4 * 4);
        ggml_backend_tensor_memset(t, 0, 0, 8);
        memset(in, 0, 8);
        ggml_backend_tensor_get(t, out, 0, nb);
        TEST_CHECK_MSG(memcmp(in, out, nb) == 0, "%s: %s after a range write and a memset", g_combo, t->name);
        free(patch);
        free(in);
        free(out);
    }
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
}

// --- single ops against one CPU device ---

struct op_case {
    const char * name;
    mu_build_fn  build;
};

static struct ggml_tensor * b_colpar(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    return ggml_mul_mat(c, mu_leaf(w, "w_col", GGML_TYPE_F32, 24, 37), mu_leaf(w, "x", GGML_TYPE_F32, 24, 5));
}

static struct ggml_tensor * b_rowpar(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * h = ggml_mul_mat(c, mu_leaf(w, "w_col", GGML_TYPE_F32, 24, 37), mu_leaf(w, "x", GGML_TYPE_F32, 24, 5));
    return ggml_mul_mat(c, mu_leaf(w, "w_row", GGML_TYPE_F32, 37, 19), ggml_gelu(c, h)); // partial, read whole
}

static struct ggml_tensor * b_partial_sum(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * x = mu_leaf(w, "x", GGML_TYPE_F32, 24, 5);
    struct ggml_tensor * h = ggml_mul_mat(c, mu_leaf(w, "w_col", GGML_TYPE_F32, 24, 37), x);
    struct ggml_tensor * p1 = ggml_mul_mat(c, mu_leaf(w, "w_row", GGML_TYPE_F32, 37, 19), h);
    struct ggml_tensor * p2 = ggml_mul_mat(c, mu_leaf(w, "w_row2", GGML_TYPE_F32, 37, 19), ggml_sqr(c, h));
    return ggml_scale(c, ggml_add(c, p1, p2), 0.5f); // partial + partial, then reduced
}

static struct ggml_tensor * b_segments(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    const int64_t e = (int64_t) (3 * g_n + 1);
    struct ggml_tensor * qkv = ggml_mul_mat(c, mu_leaf(w, "w_qkv", GGML_TYPE_F32, 16, 3 * e), mu_leaf(w, "x", GGML_TYPE_F32, 16, 3));
    // the K part (a view of a split tensor: gathered), scaled, plus the whole fused result
    struct ggml_tensor * k = ggml_view_2d(c, qkv, e, 3, qkv->nb[1], (size_t) e * sizeof(float));
    struct ggml_tensor * ks = ggml_scale(c, ggml_cont(c, k), 2.0f);
    return ggml_concat(c, ks, qkv, 0);
}

static struct ggml_tensor * b_segment_out(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    const int64_t e = (int64_t) (3 * g_n + 1);
    return ggml_silu(c, ggml_mul_mat(c, mu_leaf(w, "w_qkv", GGML_TYPE_F32, 16, 3 * e), mu_leaf(w, "x", GGML_TYPE_F32, 16, 3)));
}

static struct ggml_tensor * b_get_rows(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * rows = ggml_get_rows(c, mu_leaf(w, "tok_embd", GGML_TYPE_F32, 20, 9), mu_leaf(w, "ids", GGML_TYPE_I32, 6, 0));
    return ggml_scale(c, rows, 3.0f);
}

static struct ggml_tensor * b_softmax_t(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * h = ggml_mul_mat(c, mu_leaf(w, "x", GGML_TYPE_F32, 24, 5), mu_leaf(w, "w_col", GGML_TYPE_F32, 24, 37));
    h = ggml_soft_max(c, h);                 // [5, 37] split along axis 1: rows stay whole
    return ggml_cont(c, ggml_transpose(c, h)); // split moves to axis 0
}

static struct ggml_tensor * b_fallback(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * h = ggml_mul_mat(c, mu_leaf(w, "w_col", GGML_TYPE_F32, 24, 37), mu_leaf(w, "x", GGML_TYPE_F32, 24, 5));
    struct ggml_tensor * s = ggml_sum_rows(c, h);       // along the split axis: gathered first
    return ggml_add(c, ggml_soft_max(c, h), s);         // softmax over the split rows: gathered too
}

static struct ggml_tensor * b_static_partial(struct ggml_context * w, struct ggml_context * c, const void * ud) {
    (void) ud;
    struct ggml_tensor * b = mu_leaf(w, "b_part", GGML_TYPE_F32, 24, 0);
    return ggml_add(c, mu_leaf(w, "x", GGML_TYPE_F32, 24, 5), b);
}

static const struct op_case g_cases[] = {
    { "column-parallel mul_mat", b_colpar },
    { "row-parallel mul_mat (partial output)", b_rowpar },
    { "partial + partial", b_partial_sum },
    { "segmented fused weight", b_segment_out },
    { "view of a segmented result", b_segments },
    { "get_rows of a split table", b_get_rows },
    { "softmax, transpose", b_softmax_t },
    { "ops without a split rule", b_fallback },
    { "static partial reduced", b_static_partial },
};

static const double * g_weights; // split proportions of the current combination

static void set_splits(size_t n) {
    memset(&g_sp, 0, sizeof(g_sp));
    g_sp.n_devs = n;
    const double * uneven = g_weights;
    mu_rule_split(&g_sp, "w_col", GGML_BACKEND_SPLIT_AXIS_1, 37, 1, uneven);
    mu_rule_split(&g_sp, "w_row", GGML_BACKEND_SPLIT_AXIS_0, 37, 1, uneven);
    mu_rule_split(&g_sp, "w_row2", GGML_BACKEND_SPLIT_AXIS_0, 37, 1, uneven);
    mu_rule_split(&g_sp, "tok_embd", GGML_BACKEND_SPLIT_AXIS_0, 20, 1, uneven);
    mu_rule_split(&g_sp, "r_ax0", GGML_BACKEND_SPLIT_AXIS_0, 13, 1, uneven);
    mu_rule_split(&g_sp, "r_ax1", GGML_BACKEND_SPLIT_AXIS_1, 11, 1, NULL);
    mu_rule_split(&g_sp, "r_ax3", GGML_BACKEND_SPLIT_AXIS_3, 2 * (int64_t) n + 1, 1, uneven);
    mu_rule_axis(&g_sp, "r_part", GGML_BACKEND_SPLIT_AXIS_PARTIAL);
    mu_rule_axis(&g_sp, "b_part", GGML_BACKEND_SPLIT_AXIS_PARTIAL);
    // fused weight: segment Q (3n+1 rows, once) and segment K/V (3n+1 rows, twice)
    mu_rule_axis(&g_sp, "w_qkv", GGML_BACKEND_SPLIT_AXIS_1);
    struct ggml_backend_meta_split_state * st = &g_sp.rules[g_sp.n_rules - 1].st;
    st->n_segments = 2;
    st->nr[0] = 1;
    st->nr[1] = 2;
    for (size_t j = 0; j < n; j++) {
        st->ne[j] = 3;
        st->ne[n + j] = 3;
    }
    st->ne[0] += 1;
    st->ne[n] += 1;
    // segmented F16 [3, 4n + 4(n+1), 2]: segment of 4 per device once, of 2 per device (+2) twice
    mu_rule_axis(&g_sp, "r_seg", GGML_BACKEND_SPLIT_AXIS_1);
    st = &g_sp.rules[g_sp.n_rules - 1].st;
    st->n_segments = 2;
    st->nr[1] = 2; // nr[0] left 0: one repeat
    for (size_t j = 0; j < n; j++) {
        st->ne[j] = 4;
        st->ne[n + j] = 2;
    }
    st->ne[n] += 2;
}

static void run_combo(const char * combo, ggml_backend_dev_t * devs, size_t n, const double * weights) {
    static const double uneven[16] = { 3, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    g_weights = weights != NULL ? weights : uneven;
    g_combo = combo;
    g_n = n;
    set_splits(n);
    ggml_backend_dev_t md = ggml_backend_meta_device(devs, n, mu_get_split_state, &g_sp);
    if (!TEST_CHECK_MSG(md != NULL, "%s: meta device", combo)) {
        return;
    }
    TEST_CHECK(ggml_backend_dev_type(md) == GGML_BACKEND_DEVICE_TYPE_META);
    TEST_CHECK(ggml_backend_meta_device(devs, n, mu_get_split_state, &g_sp) == md);
    check_readback(md);

    ggml_backend_t backend = ggml_backend_dev_init(md, NULL);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    for (size_t i = 0; i < sizeof(g_cases)/sizeof(g_cases[0]); i++) {
        int64_t n_ref = 0, n_out = 0;
        float * ref = mu_run_once(cpu, ggml_backend_cpu_buffer_type(), g_cases[i].build, NULL, 5, &n_ref);
        struct mu_run r;
        float * out = NULL, * again = NULL;
        if (mu_run_init(&r, ggml_backend_dev_buffer_type(md), g_cases[i].build, NULL, 5)) {
            out = mu_compute(&r, backend);
            again = mu_compute(&r, backend); // a second run must see the same states and data
            n_out = ggml_nelements(r.out);
        }
        mu_run_free(&r);
        if (TEST_CHECK_MSG(ref != NULL && out != NULL && again != NULL && n_out == n_ref, "%s: %s did not compute", combo, g_cases[i].name)) {
            const double e1 = mu_nmse(out, ref, n_ref), e2 = mu_nmse(again, ref, n_ref);
            TEST_CHECK_MSG(e1 < 1e-10 && e2 < 1e-10, "%s: %s: normalized error %.3e / %.3e", combo, g_cases[i].name, e1, e2);
        }
        free(ref);
        free(out);
        free(again);
    }
    ggml_backend_free(cpu);
    ggml_backend_free(backend);
    printf("  %s done\n", combo);
}

int main(void) {
    TEST_CHECK(strcmp(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_PARTIAL), "PARTIAL") == 0);
    TEST_CHECK(strcmp(ggml_backend_meta_split_axis_name(GGML_BACKEND_SPLIT_AXIS_2), "AXIS_2") == 0);

    ggml_backend_dev_t c = ggml_backend_dev_by_name("CPU");
    ggml_backend_dev_t devs[16];
    for (int i = 0; i < 16; i++) {
        devs[i] = c;
    }
    run_combo("CPU x1", devs, 1, NULL);
    run_combo("CPU x2", devs, 2, NULL);
    run_combo("CPU x3", devs, 3, NULL);
    // empty slices: devices 0 and 2 hold nothing of the weights split by proportion
    run_combo("CPU x3 with empty slices", devs, 3, (const double[]){ 0, 1, 0 });
    run_combo("CPU x16", devs, 16, NULL);
    ggml_backend_dev_t ocl = ggml_backend_dev_by_name("OpenCL0");
    if (ocl != NULL) {
        ggml_backend_dev_t mix[2] = { ocl, c };
        run_combo("OpenCL0 + CPU", mix, 2, NULL);
        run_combo("OpenCL0 + CPU with an empty slice", mix, 2, (const double[]){ 0, 1 });
        ggml_backend_dev_t oo[2] = { ocl, ocl };
        run_combo("OpenCL0 + OpenCL0", oo, 2, NULL);
    } else {
        printf("  (no OpenCL0 device: OpenCL combinations skipped)\n");
    }
    return test_finish("test-meta-ops");
}
