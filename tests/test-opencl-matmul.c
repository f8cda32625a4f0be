// MUL_MAT on the OpenCL device (OpenCL0) through the public backend API, against the
// double-precision reference (tests/ref): both kernel families of the fast path (GGML_OPENCL_MATMUL
// = dot: register blocks, the CPU choice; = local: local-memory tiles, the GPU choice), a = F32,
// F16, BF16 and b = F32, F16, BF16; shapes that are not multiples of any tile (1, 7, 33, 65, 130,
// 257), K from 1 to 600, GEMV (M = 1), broadcasting of a over dims 2 and 3, padded rows, offset
// views and permuted tensors (rows contiguous), and operands whose rows are not contiguous
// (permuted so that dim 0 is strided, and a transposed b): the simple kernel's job.
//
// Routing is checked too: with the simple kernel replaced by one that writes NaN (the backend's
// test hook GGML_TEST_OPENCL_SET_PROGRAM_SOURCE), every layout the fast path claims must
// still be right and strided rows must come out NaN; with the fast path's program made unbuildable,
// everything must still be right (the simple kernel takes over).
//
// Bound: sum (ref - got)^2 / sum mag^2 <= 1e-10 for every type, where mag is the product of |a|
// and |b| (so a dot product that cancels to near zero is judged by the size of its terms). The
// inputs are the exact values of the stored F16/BF16 numbers on both sides, so the only error is
// the float accumulation over K <= 600 (about 1e-13 measured).
//
// With no OpenCL device the test reports itself skipped (exit 77), or fails when
// GGML_TEST_REQUIRE_OPENCL is set (CI on a machine where PoCL is installed).

#define _GNU_SOURCE // setenv

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-ref.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMSE_MAX 1e-10

enum layout {
    L_CONT,   // contiguous
    L_PAD,    // rows padded (nb1 > K * type size) and the view starts 3 elements into its buffer
    L_PERM,   // dims 1 and 2 swapped: rows contiguous, nb1 > nb2
    L_STRIDED, // dim 0 strided by D2 elements (rows not contiguous, nb0 < nb1); needs D2 >= 2
    L_TRANS,   // transposed (nb0 > nb1; ggml_mul_mat accepts it for b only)
    L_COUNT,
};

static const char * const layout_names[L_COUNT] = { "contiguous", "padded", "permuted", "strided", "transposed" };

struct mm_case {
    enum ggml_type ta, tb;
    int64_t K, N, M;
    int64_t A2, A3, B2, B3;
    enum layout la, lb;
};

static void case_str(const struct mm_case * c, char * buf, size_t size) {
    snprintf(buf, size, "a %s [%lld, %lld, %lld, %lld] %s, b %s [%lld, %lld, %lld, %lld] %s",
        ggml_type_name(c->ta), (long long) c->K, (long long) c->N, (long long) c->A2, (long long) c->A3, layout_names[c->la],
        ggml_type_name(c->tb), (long long) c->K, (long long) c->M, (long long) c->B2, (long long) c->B3, layout_names[c->lb]);
}

// the base tensor holding the data, and the operand [K, R, D2, D3] made from it
static struct ggml_tensor * make_operand(struct ggml_context * ctx, enum ggml_type t, int64_t K, int64_t R, int64_t D2, int64_t D3,
                                         enum layout l, struct ggml_tensor ** base) {
    const size_t ts = ggml_type_size(t);
    switch (l) {
        case L_CONT:
            *base = ggml_new_tensor_4d(ctx, t, K, R, D2, D3);
            return *base;
        case L_PAD: {
            *base = ggml_new_tensor_4d(ctx, t, K + 5, R, D2, D3);
            // 3 elements in, so that rows start at no particular alignment
            return ggml_view_4d(ctx, *base, K, R, D2, D3, (*base)->nb[1], (*base)->nb[2], (*base)->nb[3], 3*ts);
        }
        case L_PERM:
            *base = ggml_new_tensor_4d(ctx, t, K, D2, R, D3);
            return ggml_permute(ctx, *base, 0, 2, 1, 3);
        case L_STRIDED:
            *base = ggml_new_tensor_4d(ctx, t, D2, K, R, D3);
            return ggml_permute(ctx, *base, 2, 0, 1, 3);
        case L_TRANS:
            *base = ggml_new_tensor_4d(ctx, t, R, K, D2, D3);
            return ggml_transpose(ctx, *base);
        default:
            return NULL;
    }
}

static void fill(struct ggml_tensor * t, void * data) {
    const int64_t n = ggml_nelements(t);
    for (int64_t i = 0; i < n; i++) {
        const float v = (float) test_rand_uniform(-1.0, 1.0);
        switch (t->type) {
            case GGML_TYPE_F32:  ((float *) data)[i] = v; break;
            case GGML_TYPE_F16:  ((ggml_fp16_t *) data)[i] = ggml_fp32_to_fp16(v); break;
            case GGML_TYPE_BF16: ((ggml_bf16_t *) data)[i] = ggml_fp32_to_bf16(v); break;
            default: break;
        }
    }
}

// replaces every element of t (a base tensor, contiguous) by its absolute value, exactly
static void abs_values(struct ggml_tensor * t) {
    const int64_t n = ggml_nelements(t);
    for (int64_t i = 0; i < n; i++) {
        switch (t->type) {
            case GGML_TYPE_F32:  ((float *) t->data)[i] = fabsf(((float *) t->data)[i]); break;
            case GGML_TYPE_F16:  ((ggml_fp16_t *) t->data)[i] &= 0x7fff; break;
            case GGML_TYPE_BF16: ((ggml_bf16_t *) t->data)[i].bits &= 0x7fff; break;
            default: break;
        }
    }
}

// the mul_mat node of c in ctx (base tensors returned)
static struct ggml_tensor * build(struct ggml_context * ctx, const struct mm_case * c, struct ggml_tensor ** base_a,
                                  struct ggml_tensor ** base_b) {
    struct ggml_tensor * a = make_operand(ctx, c->ta, c->K, c->N, c->A2, c->A3, c->la, base_a);
    struct ggml_tensor * b = make_operand(ctx, c->tb, c->K, c->M, c->B2, c->B3, c->lb, base_b);
    return a != NULL && b != NULL ? ggml_mul_mat(ctx, a, b) : NULL;
}

// Computes c on backend; returns the NMSE against the reference (INFINITY when anything fails,
// NAN handling as ggml_ref_nmse). *ok is false when the run itself failed (already reported).
static double run_case(ggml_backend_t backend, const struct mm_case * c, bool * ok) {
    *ok = false;
    char desc[256];
    case_str(c, desc, sizeof(desc));
    const size_t ta = ggml_type_size(c->ta), tb = ggml_type_size(c->tb);
    const size_t bytes_a = (size_t) ((c->K + 5) * c->N * c->A2 * c->A3) * ta;
    const size_t bytes_b = (size_t) ((c->K + 5) * c->M * c->B2 * c->B3) * tb;
    const size_t bytes_d = (size_t) (c->N * c->M * c->B2 * c->B3) * sizeof(float);

    // host copy: the reference reads it
    struct ggml_init_params hp = { bytes_a + bytes_b + bytes_d + 16*ggml_tensor_overhead() + 4096, NULL, false };
    struct ggml_context * hctx = ggml_init(hp);
    // device copy
    struct ggml_init_params dp = { 16*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * dctx = ggml_init(dp);
    double * ref = NULL;
    float * got = NULL;
    ggml_backend_buffer_t buf = NULL;
    double nmse = INFINITY;

    struct ggml_tensor * hba = NULL, * hbb = NULL, * dba = NULL, * dbb = NULL;
    struct ggml_tensor * hnode = hctx ? build(hctx, c, &hba, &hbb) : NULL;
    struct ggml_tensor * dnode = dctx ? build(dctx, c, &dba, &dbb) : NULL;
    if (!TEST_CHECK_MSG(hnode != NULL && dnode != NULL, "%s: building the graph failed", desc)) {
        goto done;
    }
    fill(hba, hba->data);
    fill(hbb, hbb->data);
    const int64_t n = ggml_nelements(hnode);
    ref = malloc((size_t) n * sizeof(double));
    got = malloc((size_t) n * sizeof(float));
    char err[256] = "";
    if (!TEST_CHECK_MSG(ref != NULL && got != NULL && ggml_ref_compute(hnode, ref, err, sizeof(err)), "%s: reference: %s", desc, err)) {
        goto done;
    }

    buf = ggml_backend_alloc_ctx_tensors(dctx, backend);
    if (!TEST_CHECK_MSG(buf != NULL, "%s: device allocation failed", desc)) {
        goto done;
    }
    ggml_backend_tensor_set(dba, hba->data, 0, ggml_nbytes(dba));
    ggml_backend_tensor_set(dbb, hbb->data, 0, ggml_nbytes(dbb));
    struct ggml_cgraph * gf = ggml_new_graph(dctx);
    ggml_build_forward_expand(gf, dnode);
    if (!TEST_CHECK_MSG(ggml_backend_graph_compute(backend, gf) == GGML_STATUS_SUCCESS, "%s: compute failed", desc)) {
        goto done;
    }
    ggml_backend_tensor_get(dnode, got, 0, (size_t) n * sizeof(float));
    // the error is measured against the magnitude of the products (the reference of |a|·|b|),
    // so that cancellation inside one dot product cannot make a correct result fail
    abs_values(hba);
    abs_values(hbb);
    double * mag = malloc((size_t) n * sizeof(double));
    if (mag != NULL && ggml_ref_compute(hnode, mag, err, sizeof(err))) {
        double num = 0.0, den = 0.0;
        for (int64_t i = 0; i < n; i++) {
            num += ((double) got[i] - ref[i]) * ((double) got[i] - ref[i]);
            den += mag[i] * mag[i];
        }
        nmse = den > 0.0 ? num / den : num;
        *ok = true;
    } else {
        TEST_CHECK_MSG(false, "%s: magnitude reference: %s", desc, err);
    }
    free(mag);

done:
    if (buf) {
        ggml_backend_buffer_free(buf);
    }
    free(ref);
    free(got);
    if (hctx) {
        ggml_free(hctx);
    }
    if (dctx) {
        ggml_free(dctx);
    }
    return nmse;
}

static double g_worst = 0.0;

static void check_case(ggml_backend_t backend, const struct mm_case * c, const char * mode) {
    bool ok;
    const double nmse = run_case(backend, c, &ok);
    if (!ok) {
        return;
    }
    char desc[256];
    case_str(c, desc, sizeof(desc));
    TEST_CHECK_MSG(nmse <= NMSE_MAX, "[%s] %s: NMSE %g > %g", mode, desc, nmse, NMSE_MAX);
    if (nmse > g_worst && isfinite(nmse)) {
        g_worst = nmse;
    }
}

static const int64_t dims[] = { 1, 7, 33, 65, 130, 257 };
static const int64_t ks[]   = { 1, 7, 16, 33, 100, 257, 600 };
#define N_DIMS ((int) (sizeof(dims)/sizeof(dims[0])))
#define N_KS   ((int) (sizeof(ks)/sizeof(ks[0])))

static struct mm_case simple_case(enum ggml_type ta, enum ggml_type tb, int64_t K, int64_t N, int64_t M) {
    struct mm_case c = { ta, tb, K, N, M, 1, 1, 1, 1, L_CONT, L_CONT };
    return c;
}

// every shape pair for F32; a sample of them for the other type pairs
static void test_shapes(ggml_backend_t backend, const char * mode) {
    const enum ggml_type types[3] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    int idx = 0;
    for (int ia = 0; ia < 3; ia++) {
        for (int ib = 0; ib < 3; ib++) {
            for (int in = 0; in < N_DIMS; in++) {
                for (int im = 0; im < N_DIMS; im++) {
                    idx++;
                    const bool all = ia == 0 && ib == 0;
                    // other type pairs: the diagonal plus M = 1
                    if (!all && in != im && dims[im] != 1) {
                        continue;
                    }
                    const int64_t K = ks[(idx * 5 + in + im) % N_KS];
                    struct mm_case c = simple_case(types[ia], types[ib], K, dims[in], dims[im]);
                    check_case(backend, &c, mode);
                }
            }
        }
    }
    // every K with one odd shape, and the GEMV of a larger matrix
    for (int ik = 0; ik < N_KS; ik++) {
        struct mm_case c = simple_case(GGML_TYPE_F32, GGML_TYPE_F32, ks[ik], 65, 33);
        check_case(backend, &c, mode);
        c = simple_case(GGML_TYPE_F16, GGML_TYPE_F32, ks[ik], 130, 7);
        check_case(backend, &c, mode);
    }
    struct mm_case gemv = simple_case(GGML_TYPE_F16, GGML_TYPE_F32, 600, 1000, 1);
    check_case(backend, &gemv, mode);
    gemv.ta = GGML_TYPE_F32;
    check_case(backend, &gemv, mode);
}

// broadcasting of a over b's dims 2 and 3, and the layouts
static void test_batches_layouts(ggml_backend_t backend, const char * mode) {
    const struct mm_case cases[] = {
        { GGML_TYPE_F32, GGML_TYPE_F32, 33, 7, 65, 2, 3, 4, 3, L_CONT, L_CONT },
        { GGML_TYPE_F16, GGML_TYPE_F32, 100, 33, 7, 1, 1, 3, 2, L_CONT, L_CONT },
        { GGML_TYPE_F32, GGML_TYPE_F32, 257, 65, 1, 2, 1, 6, 2, L_CONT, L_CONT },
        { GGML_TYPE_F32, GGML_TYPE_F32, 65, 33, 130, 1, 1, 1, 1, L_PAD, L_PAD },
        { GGML_TYPE_F16, GGML_TYPE_F16, 33, 65, 7, 2, 1, 2, 1, L_PAD, L_CONT },
        { GGML_TYPE_F32, GGML_TYPE_F32, 33, 65, 33, 3, 1, 3, 2, L_PERM, L_PERM },
        { GGML_TYPE_BF16, GGML_TYPE_F32, 100, 7, 65, 1, 1, 4, 1, L_CONT, L_PERM },
        { GGML_TYPE_F32, GGML_TYPE_F32, 7, 33, 1, 2, 2, 2, 2, L_PERM, L_PAD },
        { GGML_TYPE_F32, GGML_TYPE_F32, 33, 65, 7, 2, 1, 2, 1, L_STRIDED, L_CONT },
        { GGML_TYPE_F16, GGML_TYPE_F32, 65, 7, 33, 3, 1, 3, 1, L_STRIDED, L_STRIDED },
        { GGML_TYPE_F32, GGML_TYPE_F32, 65, 33, 7, 1, 1, 1, 1, L_CONT, L_TRANS },
        { GGML_TYPE_F16, GGML_TYPE_F16, 7, 33, 1, 1, 1, 1, 1, L_PAD, L_TRANS },
    };
    for (size_t i = 0; i < sizeof(cases)/sizeof(cases[0]); i++) {
        check_case(backend, &cases[i], mode);
    }
}

typedef void (*set_source_fn)(const char * name, const char * source);

// k_mul_mat writing NaN: whatever the simple kernel computes shows up
static const char * const nan_matmul_source =
    "__kernel void k_mul_mat(__global const char * a, tdesc ad, __global const char * b, tdesc bd,\n"
    "                        __global char * dst, tdesc dd) {\n"
    "    const long i = get_global_id(0);\n"
    "    if (i < nelements(dd)) {\n"
    "        long n, m, i2, i3;\n"
    "        unravel(i, dd.ne, &n, &m, &i2, &i3);\n"
    "        *(__global float *) TPTR(dst, dd, n, m, i2, i3) = NAN;\n"
    "    }\n"
    "}\n";

static void test_routing(ggml_backend_dev_t dev, set_source_fn set_source) {
    // 1. the simple kernel writes NaN: the fast path's layouts stay right, transposed a is NaN
    set_source("matmul", nan_matmul_source);
    ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
    TEST_CHECK(backend != NULL);
    if (backend != NULL) {
        const char * modes[2] = { "dot", "local" };
        for (int i = 0; i < 2; i++) {
            setenv("GGML_OPENCL_MATMUL", modes[i], 1);
            for (int l = L_CONT; l < L_STRIDED; l++) {
                struct mm_case c = { GGML_TYPE_F16, GGML_TYPE_F32, 100, 65, 33, 2, 1, 4, 1, (enum layout) l, (enum layout) l };
                check_case(backend, &c, "routing: simple kernel NaN");
                c.M = 1;
                check_case(backend, &c, "routing: simple kernel NaN");
            }
            const struct mm_case strided[2] = {
                { GGML_TYPE_F32, GGML_TYPE_F32, 33, 7, 7, 2, 1, 2, 1, L_STRIDED, L_CONT },
                { GGML_TYPE_F32, GGML_TYPE_F32, 33, 7, 7, 1, 1, 1, 1, L_CONT, L_TRANS },
            };
            for (int j = 0; j < 2; j++) {
                bool ok;
                const double nmse = run_case(backend, &strided[j], &ok);
                TEST_CHECK_MSG(ok && !isfinite(nmse), "[%s] %s rows should go to the (NaN) simple kernel: NMSE %g", modes[i],
                    layout_names[j == 0 ? L_STRIDED : L_TRANS], nmse);
            }
        }
        // GGML_OPENCL_MATMUL=simple turns the fast path off
        setenv("GGML_OPENCL_MATMUL", "simple", 1);
        bool ok;
        struct mm_case s = simple_case(GGML_TYPE_F32, GGML_TYPE_F32, 33, 7, 7);
        const double nmse = run_case(backend, &s, &ok);
        TEST_CHECK_MSG(ok && !isfinite(nmse), "GGML_OPENCL_MATMUL=simple should use the (NaN) simple kernel: NMSE %g", nmse);
        unsetenv("GGML_OPENCL_MATMUL");
        ggml_backend_free(backend);
    }
    set_source("matmul", NULL);

    // 2. the fast path's program does not build: logged once, the simple kernel computes
    printf("building a deliberately broken mul_mat_tiled program (the driver may print compiler errors)\n");
    fflush(stdout);
    set_source("mul_mat_tiled", "this is not OpenCL C\n");
    backend = ggml_backend_dev_init(dev, NULL);
    TEST_CHECK(backend != NULL);
    if (backend != NULL) {
        test_log_capture_begin();
        struct mm_case c = { GGML_TYPE_F16, GGML_TYPE_F32, 100, 65, 33, 2, 1, 4, 1, L_CONT, L_PERM };
        check_case(backend, &c, "fast path unbuildable");
        c.M = 1;
        check_case(backend, &c, "fast path unbuildable");
        test_log_capture_end();
        TEST_CHECK_MSG(test_log_error_count() >= 1 && strstr(test_log_text(), "mul_mat_tiled") != NULL,
            "the failed build should be logged: %s", test_log_text());
        ggml_backend_free(backend);
    }
    set_source("mul_mat_tiled", NULL);
}

int main(void) {
    test_rng_init();
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
    if (dev == NULL) {
        if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
            printf("test-opencl-matmul: FAILED: no OpenCL device, and GGML_TEST_REQUIRE_OPENCL is set (is PoCL installed?)\n");
            return 1;
        }
        printf("test-opencl-matmul: no OpenCL device: skipped\n");
        return 77; // ctest's SKIP_RETURN_CODE (tests/CMakeLists.txt)
    }
    printf("device: %s\n", ggml_backend_dev_description(dev));

    const char * modes[3] = { "auto", "dot", "local" };
    for (int i = 0; i < 3; i++) {
        setenv("GGML_OPENCL_MATMUL", modes[i], 1);
        ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
        if (!TEST_CHECK(backend != NULL)) {
            continue;
        }
        test_shapes(backend, modes[i]);
        test_batches_layouts(backend, modes[i]);
        ggml_backend_free(backend);
    }
    unsetenv("GGML_OPENCL_MATMUL");
    printf("largest NMSE: %.3g (bound %g)\n", g_worst, NMSE_MAX);

    test_routing(dev, test_opencl_set_program_source);
    return test_finish("test-opencl-matmul");
}
