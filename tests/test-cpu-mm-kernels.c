// The matrix-product kernel set (mm member of struct ggml_cpu_kernels, matmul-impl.h) of every
// level this CPU runs, called directly rather than through MUL_MAT (test-cpu-matmul does that at
// the level in use): the blocked GEMM (ggml_mm_gemm_block with the level's micro-kernel and A
// packer) and the GEMV, for A of type F32, F16 and BF16 read along k (MUL_MAT's weights) or across
// (a transposed view), shapes with tails in every direction and K across the packing depth,
// against double sums of the same (rounded) operands: |error| <= 1e-5 * sum |a*b| + 1e-30.
// tests/avx512-emu/ builds this test once more with the SIMDe-emulated AVX-512 kernels.

#include "ggml.h"
#include "ggml-cpu/cpu-kernels.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// element i of a type-t array holding (the rounding of) x; returns the value stored
static float put(enum ggml_type t, void * p, int64_t i, float x) {
    if (t == GGML_TYPE_F16) {
        ((ggml_fp16_t *) p)[i] = ggml_fp32_to_fp16(x);
        return ggml_fp16_to_fp32(((ggml_fp16_t *) p)[i]);
    }
    if (t == GGML_TYPE_BF16) {
        ((ggml_bf16_t *) p)[i] = ggml_fp32_to_bf16(x);
        return ggml_bf16_to_fp32(((ggml_bf16_t *) p)[i]);
    }
    ((float *) p)[i] = x;
    return x;
}

// C (M x N) = B (M x K, F32) x A (N x K, type t); A along k when !trans, else A stored [K][N]
static void check_gemm(const struct ggml_mm_kernels * mk, const char * lv, enum ggml_type t, bool trans,
                       int64_t M, int64_t N, int64_t K, float * scratch) {
    const size_t es = ggml_type_size(t);
    void  * a  = malloc((size_t) (N*K)*es);
    float * av = malloc((size_t) (N*K)*sizeof(float));
    float * b  = malloc((size_t) (M*K)*sizeof(float));
    float * c  = malloc((size_t) (M*N + 1)*sizeof(float));
    if (!TEST_CHECK(a != NULL && av != NULL && b != NULL && c != NULL)) {
        free(a); free(av); free(b); free(c);
        return;
    }
    for (int64_t n = 0; n < N; n++) {
        for (int64_t k = 0; k < K; k++) {
            const int64_t i = trans ? k*N + n : n*K + k;
            av[n*K + k] = put(t, a, i, (float) test_rand_uniform(-1.0, 1.0));
        }
    }
    for (int64_t i = 0; i < M*K; i++) {
        b[i] = (float) test_rand_uniform(-1.0, 1.0);
    }
    c[M*N] = 12345.0f; // nothing is written past the block
    const struct ggml_mm_src sa = { a, t, trans ? (int64_t) es : K*(int64_t) es, trans ? N*(int64_t) es : (int64_t) es };
    const struct ggml_mm_src sb = { (const char *) b, GGML_TYPE_F32, K*(int64_t) sizeof(float), sizeof(float) };
    ggml_mm_gemm_block(mk, &sa, &sb, 0, M, 0, N, K, c, N, scratch);
    double worst = 0.0;
    for (int64_t m = 0; m < M; m++) {
        for (int64_t n = 0; n < N; n++) {
            double s = 0.0, sa_ = 0.0;
            for (int64_t k = 0; k < K; k++) {
                s   += (double) b[m*K + k]*av[n*K + k];
                sa_ += fabs((double) b[m*K + k]*av[n*K + k]);
            }
            const double e = fabs(c[m*N + n] - s)/(1e-5*sa_ + 1e-30);
            worst = e > worst || isnan(e) ? e : worst;
        }
    }
    TEST_CHECK_MSG(worst <= 1.0 && c[M*N] == 12345.0f, "[%s] gemm %s %s M=%d N=%d K=%d: error %.3g of the bound",
                   lv, ggml_type_name(t), trans ? "transposed" : "rows", (int) M, (int) N, (int) K, worst);
    free(a); free(av); free(b); free(c);
}

// out[m*ldo + i] = dot(A row n0+i, b[m]) for nb rows of B (1 .. GGML_MM_GEMV_M)
static void check_gemv(const struct ggml_mm_kernels * mk, const char * lv, enum ggml_type t, int64_t N, int64_t K, int nb) {
    const size_t es = ggml_type_size(t);
    const int64_t n0 = N > 2 ? 1 : 0, nn = N - n0, ldo = nn + 3;
    void  * a  = malloc((size_t) (N*K)*es);
    float * av = malloc((size_t) (N*K)*sizeof(float));
    float * bv = malloc((size_t) (nb*K)*sizeof(float));
    float * out = malloc((size_t) (nb*ldo)*sizeof(float));
    if (!TEST_CHECK(a != NULL && av != NULL && bv != NULL && out != NULL)) {
        free(a); free(av); free(bv); free(out);
        return;
    }
    for (int64_t i = 0; i < N*K; i++) {
        av[i] = put(t, a, i, (float) test_rand_uniform(-1.0, 1.0));
    }
    const float * brow[GGML_MM_GEMV_M];
    for (int m = 0; m < nb; m++) {
        for (int64_t k = 0; k < K; k++) {
            bv[m*K + k] = (float) test_rand_uniform(-1.0, 1.0);
        }
        brow[m] = bv + m*K;
    }
    for (int64_t i = 0; i < nb*ldo; i++) {
        out[i] = 12345.0f;
    }
    const struct ggml_mm_src sa = { a, t, K*(int64_t) es, (int64_t) es };
    mk->gemv(&sa, n0, nn, K, brow, nb, out, ldo);
    double worst = 0.0;
    bool untouched = true;
    for (int m = 0; m < nb; m++) {
        for (int64_t i = 0; i < nn; i++) {
            double s = 0.0, sa_ = 0.0;
            for (int64_t k = 0; k < K; k++) {
                s   += (double) brow[m][k]*av[(n0 + i)*K + k];
                sa_ += fabs((double) brow[m][k]*av[(n0 + i)*K + k]);
            }
            const double e = fabs(out[m*ldo + i] - s)/(1e-5*sa_ + 1e-30);
            worst = e > worst || isnan(e) ? e : worst;
        }
        for (int64_t i = nn; i < ldo; i++) {
            untouched = untouched && out[m*ldo + i] == 12345.0f;
        }
    }
    TEST_CHECK_MSG(worst <= 1.0 && untouched, "[%s] gemv %s N=%d K=%d nb=%d: error %.3g of the bound%s", lv, ggml_type_name(t),
                   (int) N, (int) K, nb, worst, untouched ? "" : ", wrote past the rows");
    free(a); free(av); free(bv); free(out);
}

int main(void) {
    test_rng_init();
    static const enum ggml_type types[3] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };
    float * scratch = aligned_alloc(64, ((GGML_MM_GEMM_SCRATCH*sizeof(float) + 63)/64)*64);
    if (!TEST_CHECK(scratch != NULL)) {
        return test_finish("test-cpu-mm-kernels");
    }
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        const char * lv = ggml_cpu_isa_name((enum ggml_cpu_isa_level) level);
        if (level > (int) top) {
            printf("test-cpu-mm-kernels: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n", lv);
            continue;
        }
        const struct ggml_mm_kernels * mk = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level)->mm;
        printf("test-cpu-mm-kernels: [%s] kernel set %s (%d x %d tiles)\n", lv, mk->name, mk->mr, mk->nr);
        const int64_t Ms[] = { 1, mk->mr - 1 > 0 ? mk->mr - 1 : 2, 2*mk->mr + 3 };
        const int64_t Ns[] = { 1, mk->nr + 5, 3*mk->nr - 1 };
        const int64_t Ks[] = { 1, 37, GGML_MM_KC + 45 };
        for (int ti = 0; ti < 3; ti++) {
            for (int trans = 0; trans < 2; trans++) {
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        check_gemm(mk, lv, types[ti], trans, Ms[i], Ns[j], Ks[(i + j + trans) % 3], scratch);
                    }
                }
            }
            // rows across a packed block of B (GGML_MM_MC) with a partial micro-panel in the second
            check_gemm(mk, lv, types[ti], ti == 1, GGML_MM_MC + mk->mr + 1, 2*mk->nr + 3, GGML_MM_KC + 45, scratch);
            for (int nb = 1; nb <= GGML_MM_GEMV_M; nb++) {
                check_gemv(mk, lv, types[ti], 1, 5, nb);
                check_gemv(mk, lv, types[ti], 19, 67, nb);
                check_gemv(mk, lv, types[ti], 9, 1000, nb);
            }
        }
    }
    free(scratch);
    return test_finish("test-cpu-mm-kernels");
}
