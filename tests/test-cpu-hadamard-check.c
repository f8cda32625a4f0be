// MUL_MAT with GGML_HINT_SRC0_IS_HADAMARD (cpu-ops-hadamard.c) trusts A only after comparing rows 0,
// 1 and n-1 of every matrix with s*H exactly. For n = 1 .. 512 (powers of two), 1 - 3 columns of
// B, 1 and 2 threads, against a double-precision product of the A actually given:
//   - A = H/sqrt(n) and A = 0.75*H: the result is within the product's bound (K*eps*sum|a*b|);
//   - A = H/sqrt(n) with one element of row 0, 1 or n-1 changed (its sign flipped, or NaN) at
//     positions 0, 1, 3, 7, 8, n/2 - 1, n/2, n-1 (those inside the row): the check must refuse it,
//     so the result is the product of the changed A (a transform would miss the change by
//     2|a*b| >= 2/sqrt(n)*0.5, far above the bound); a NaN must reach its column's results.
// B is drawn with |b| in [0.5, 1] so that no change can hide behind a small b.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int parity(int64_t v) {
    int p = 0;
    while (v != 0) {
        p ^= (int) (v & 1);
        v >>= 1;
    }
    return p;
}

// compute MUL_MAT(a, b) with the hint; compare with the double product of a's contents
static void check_case(int64_t n, int64_t m, int n_threads, float s, int64_t bad_row, int64_t bad_col,
                       bool nan_elem, const char * what) {
    struct ggml_init_params ip = { .mem_size = (size_t) (n*n + 4*n*m)*sizeof(float) + 1024*1024,
                                   .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, m);
    float * A = (float *) a->data, * B = (float *) b->data;
    for (int64_t r = 0; r < n; r++) {
        for (int64_t c = 0; c < n; c++) {
            A[r*n + c] = parity(r & c) ? -s : s;
        }
    }
    if (bad_row >= 0) {
        A[bad_row*n + bad_col] = nan_elem ? NAN : -A[bad_row*n + bad_col];
    }
    for (int64_t i = 0; i < n*m; i++) {
        const double u = test_rand_uniform(0.5, 1.0);
        B[i] = (float) (test_rand_u64() & 1 ? -u : u);
    }
    struct ggml_tensor * out = ggml_mul_mat(ctx, a, b);
    ggml_mul_mat_set_hint(out, GGML_HINT_SRC0_IS_HADAMARD);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    if (!TEST_CHECK_MSG(ggml_graph_compute_with_ctx(ctx, gf, n_threads) == GGML_STATUS_SUCCESS, "%s: compute", what)) {
        ggml_free(ctx);
        return;
    }
    const float * C = (const float *) out->data;
    int wrong = 0;
    double worst = 0.0;
    for (int64_t j = 0; j < m; j++) {
        for (int64_t i = 0; i < n; i++) {
            double sum = 0.0, mag = 0.0;
            for (int64_t k = 0; k < n; k++) {
                const double t = (double) A[i*n + k]*(double) B[j*n + k];
                sum += t;
                mag += fabs(t);
            }
            const double got = C[j*n + i];
            if (isnan(sum)) {
                wrong += !isnan(got);
                continue;
            }
            const double err = fabs(got - sum), bound = (double) n*0x1p-23*mag + 1e-30;
            worst = fmax(worst, err/bound);
            wrong += !(err <= bound);
        }
    }
    TEST_CHECK_MSG(wrong == 0, "%s: n=%lld m=%lld threads=%d s=%g bad=(%lld,%lld)%s: %d wrong, worst %.3g of the bound",
                   what, (long long) n, (long long) m, n_threads, (double) s, (long long) bad_row, (long long) bad_col,
                   nan_elem ? " NaN" : "", wrong, worst);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    for (int64_t n = 1; n <= 512; n *= 2) {
        for (int64_t m = 1; m <= 3; m++) {
            for (int nt = 1; nt <= 2; nt++) {
                check_case(n, m, nt, 1.0f/sqrtf((float) n), -1, -1, false, "H/sqrt(n)");
                check_case(n, m, nt, 0.75f, -1, -1, false, "0.75*H");
            }
        }
        const int64_t rows[3] = { 0, n > 1 ? 1 : 0, n - 1 };
        const int64_t cols[8] = { 0, 1, 3, 7, 8, n/2 - 1, n/2, n - 1 };
        for (int ri = 0; ri < 3; ri++) {
            for (int ci = 0; ci < 8; ci++) {
                if (cols[ci] < 0 || cols[ci] >= n) {
                    continue;
                }
                check_case(n, 2, 1 + (ci & 1), 1.0f/sqrtf((float) n), rows[ri], cols[ci], false, "changed");
                if (ci == 0 || ci == 7) {
                    check_case(n, 1, 1, 1.0f/sqrtf((float) n), rows[ri], cols[ci], true, "NaN");
                }
            }
        }
    }
    return test_finish("test-cpu-hadamard-check");
}
