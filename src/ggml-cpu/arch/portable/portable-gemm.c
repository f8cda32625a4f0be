// The portable C kernel set of the matrix-product family (layouts in matmul-impl.h): a 4 x 16
// register tile, the generic A packer and a chunked matrix-vector product.

#include "portable-kernels.h"

#include <stdint.h>

#define MM_P_MR 4
#define MM_P_NR 16

static void mm_kernel_portable(int64_t kc, const float * bp, const float * ap, float * c, int64_t ldc, bool acc) {
    float r[MM_P_MR][MM_P_NR];
    for (int i = 0; i < MM_P_MR; i++) {
        for (int j = 0; j < MM_P_NR; j++) {
            r[i][j] = 0.0f;
        }
    }
    for (int64_t k = 0; k < kc; k++) {
        const float * av = ap + k*MM_P_NR;
        for (int i = 0; i < MM_P_MR; i++) {
            const float bv = bp[i*GGML_MM_KC + k];
            for (int j = 0; j < MM_P_NR; j++) {
                r[i][j] += bv*av[j];
            }
        }
    }
    for (int i = 0; i < MM_P_MR; i++) {
        float * crow = c + i*ldc;
        if (acc) {
            for (int j = 0; j < MM_P_NR; j++) {
                crow[j] += r[i][j];
            }
        } else {
            for (int j = 0; j < MM_P_NR; j++) {
                crow[j] = r[i][j];
            }
        }
    }
}

static void mm_pack_a_portable(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t k0, int64_t kc, float * ap) {
    ggml_mm_pack_a_generic(a, n0, nn, k0, kc, MM_P_NR, ap);
}

// A rows converted in chunks so that F16/BF16 weights need no full-row scratch
#define MM_P_CHUNK 256

static void mm_gemv_portable(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                             const float * const * b, int nb, float * out, int64_t ldo) {
    float tmp[MM_P_CHUNK];
    for (int64_t i = 0; i < nn; i++) {
        const char * row = a->data + (n0 + i)*a->s_r;
        float sum[GGML_MM_GEMV_M][4] = {{0}};
        for (int64_t k0 = 0; k0 < K; k0 += MM_P_CHUNK) {
            const int64_t kc = MIN((int64_t) MM_P_CHUNK, K - k0);
            const float * av;
            if (a->type == GGML_TYPE_F32 && ((uintptr_t) row % sizeof(float)) == 0) {
                av = (const float *)(const void *) row + k0;
            } else {
                ggml_mm_load_f32(a->type, row + k0*a->s_k, a->s_k, kc, tmp);
                av = tmp;
            }
            for (int m = 0; m < nb; m++) {
                const float * bv = b[m] + k0;
                int64_t k = 0;
                for (; k + 4 <= kc; k += 4) {
                    sum[m][0] += av[k + 0]*bv[k + 0];
                    sum[m][1] += av[k + 1]*bv[k + 1];
                    sum[m][2] += av[k + 2]*bv[k + 2];
                    sum[m][3] += av[k + 3]*bv[k + 3];
                }
                for (; k < kc; k++) {
                    sum[m][0] += av[k]*bv[k];
                }
            }
        }
        for (int m = 0; m < nb; m++) {
            out[m*ldo + i] = (sum[m][0] + sum[m][1]) + (sum[m][2] + sum[m][3]);
        }
    }
}

const struct ggml_mm_kernels ggml_cpu_mm_portable = {
    /*.name   =*/ "portable",
    /*.mr     =*/ MM_P_MR,
    /*.nr     =*/ MM_P_NR,
    /*.kernel =*/ mm_kernel_portable,
    /*.pack_a =*/ mm_pack_a_portable,
    /*.gemv   =*/ mm_gemv_portable,
};
