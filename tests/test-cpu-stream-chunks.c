// Large memory-bound nodes: SWIGLU results of a million elements or more are computed in chunks
// the threads take in turn, and permuted F32 copies of 32 MiB or more are written with streaming
// stores (src/ggml-cpu/cpu-stream-store.h).
//   * ggml_cpu_stream_copy itself: every length 0..300 at every destination alignment 0..31 gives
//     the bytes memcpy gives and touches nothing around them.
//   * SWIGLU, split and one-tensor swapped form, [4096, 301] (an odd row count), 1..4 threads:
//     within 1e-5 of max |value| of silu(x)*g in double precision, every thread count giving the
//     1-thread result bit for bit.
//   * CPY of a permuted [8192, 512, 2] F32 source (permute 0,2,1,3), into an aligned destination
//     and into one 4 bytes off alignment, 1 and 2 threads: every element exact.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-stream-store.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_stream_copy(void) {
    enum { MAXN = 300, PAD = 64 };
    unsigned char src[MAXN + 32], dst[PAD + 32 + MAXN + PAD], want[sizeof(dst)];
    for (size_t i = 0; i < sizeof(src); i++) {
        src[i] = (unsigned char) (i*37u + 11u);
    }
    int bad = 0;
    for (int off = 0; off < 32; off++) {
        for (int n = 0; n <= MAXN; n++) {
            memset(dst, 0xa5, sizeof(dst));
            memset(want, 0xa5, sizeof(want));
            memcpy(want + PAD + off, src + (off*7) % 32, (size_t) n);
            ggml_cpu_stream_copy(dst + PAD + off, src + (off*7) % 32, (size_t) n);
            ggml_cpu_stream_fence();
            bad += memcmp(dst, want, sizeof(dst)) != 0;
        }
    }
    TEST_CHECK_MSG(bad == 0, "ggml_cpu_stream_copy: %d of %d (offset, length) pairs differ from memcpy", bad, 32*(MAXN + 1));
}

static bool compute(struct ggml_cgraph * gf, int n_threads) {
    struct ggml_cplan plan = ggml_graph_plan(gf, n_threads, NULL);
    if (plan.n_threads <= 0) {
        return false;
    }
    void * work = plan.work_size > 0 ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    const bool ok = (plan.work_size == 0 || work != NULL) && ggml_graph_compute(gf, &plan) == GGML_STATUS_SUCCESS;
    free(work);
    return ok;
}

static void test_swiglu(void) {
    enum { NC = 4096, NR = 301 };
    struct ggml_init_params ip = { (size_t) 6*NC*NR*sizeof(float) + 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * x  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, NC, NR);
    struct ggml_tensor * g  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, NC, NR);
    struct ggml_tensor * gx = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2*NC, NR); // [g | x] per row
    float * want = malloc(sizeof(float)*NC*NR);
    if (!TEST_CHECK(x && g && gx && want)) {
        free(want);
        ggml_free(ctx);
        return;
    }
    float * xd = x->data, * gd = g->data, * gxd = gx->data;
    for (int i = 0; i < NC*NR; i++) {
        xd[i] = (float) test_rand_uniform(-6.0, 6.0);
        gd[i] = (float) test_rand_uniform(-2.0, 2.0);
    }
    for (int r = 0; r < NR; r++) {
        memcpy(gxd + (size_t) r*2*NC,      gd + (size_t) r*NC, NC*sizeof(float));
        memcpy(gxd + (size_t) r*2*NC + NC, xd + (size_t) r*NC, NC*sizeof(float));
    }
    struct ggml_tensor * outs[2] = { ggml_swiglu_split(ctx, x, g), ggml_swiglu_swapped(ctx, gx) };
    for (int f = 0; f < 2; f++) {
        const char * form = f == 0 ? "split" : "swapped";
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, outs[f]);
        if (!TEST_CHECK(compute(gf, 1))) {
            continue;
        }
        const float * y = outs[f]->data;
        memcpy(want, y, sizeof(float)*NC*NR);
        double mx = 0.0, err = 0.0;
        for (int i = 0; i < NC*NR; i++) {
            const double xv = xd[i], ref = xv/(1.0 + exp(-xv))*gd[i];
            mx  = fmax(mx, fabs(ref));
            err = fmax(err, fabs((double) y[i] - ref));
        }
        TEST_CHECK_MSG(mx > 1.0 && err <= 1e-5*mx, "SWIGLU %s, 1 thread vs double: error %g of max %g", form, err, mx);
        for (int n = 2; n <= 4; n++) {
            memset(outs[f]->data, 0xff, ggml_nbytes(outs[f]));
            TEST_CHECK(compute(gf, n));
            TEST_CHECK_MSG(memcmp(outs[f]->data, want, sizeof(float)*NC*NR) == 0,
                    "SWIGLU %s, %d threads: differs from the 1-thread result", form, n);
        }
    }
    free(want);
    ggml_free(ctx);
}

static void test_permuted_copy(void) {
    enum { N0 = 8192, N1 = 512, N2 = 2 };
    const size_t n = (size_t) N0*N1*N2;
    struct ggml_init_params ip = { 3*n*sizeof(float) + 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, N0, N1, N2);
    struct ggml_tensor * buf = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) n + 16);
    if (!TEST_CHECK(a != NULL && buf != NULL)) {
        ggml_free(ctx);
        return;
    }
    float * ad = a->data;
    for (size_t i = 0; i < n; i++) {
        ad[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    struct ggml_tensor * p = ggml_permute(ctx, a, 0, 2, 1, 3); // [N0, N2, N1]
    for (int k = 0; k < 2; k++) {
        const size_t off = k == 0 ? 0 : sizeof(float); // an aligned destination, then one 4 bytes off
        struct ggml_tensor * d = ggml_view_3d(ctx, buf, N0, N2, N1, N0*sizeof(float), (size_t) N0*N2*sizeof(float), off);
        struct ggml_tensor * c = ggml_cpy(ctx, p, d);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, c);
        for (int nt = 1; nt <= 2; nt++) {
            memset(buf->data, 0xff, ggml_nbytes(buf));
            if (!TEST_CHECK(compute(gf, nt))) {
                continue;
            }
            const float * y = (const float *) (const void *) ((const char *) buf->data + off);
            size_t bad = 0;
            for (int i1 = 0; i1 < N1; i1++) {
                for (int i2 = 0; i2 < N2; i2++) {
                    // y[i1][i2][:] = a[i2][i1][:]
                    bad += memcmp(y + ((size_t) i1*N2 + i2)*N0, ad + ((size_t) i2*N1 + i1)*N0, N0*sizeof(float)) != 0;
                }
            }
            TEST_CHECK_MSG(bad == 0, "permuted copy (destination offset %zu, %d threads): %zu rows wrong", off, nt, bad);
            // the bytes around the destination are untouched
            const unsigned char * raw = buf->data;
            bool around = true;
            for (size_t b = 0; b < off; b++) {
                around = around && raw[b] == 0xff;
            }
            for (size_t b = off + n*sizeof(float); b < ggml_nbytes(buf); b++) {
                around = around && raw[b] == 0xff;
            }
            TEST_CHECK_MSG(around, "permuted copy (destination offset %zu, %d threads): wrote outside the destination", off, nt);
        }
    }
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    test_stream_copy();
    test_swiglu();
    test_permuted_copy();
    return test_finish("test-cpu-stream-chunks");
}
