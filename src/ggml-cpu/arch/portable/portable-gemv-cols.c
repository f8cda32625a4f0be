// Portable few-columns matrix product (the gemv_cols slot of cpu-kernels.h): each row of A is
// widened to floats one k block at a time and multiplied with every row of B while the block is
// in L1, so the weights are read from memory once for all the columns.

#include "portable-kernels.h"
#include "ggml-impl.h"

#include <math.h>
#include <stdint.h>

#define CK_P_KB 256 // k per block

void ggml_cpu_gemv_cols_portable(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                 const float * const * b, int nb, float * out, int64_t ldo) {
    if (nb < 1 || nb > GGML_MM_COLS_MAX) {
        // outside the slot's contract: the op never asks for it
        GGML_LOG_ERROR("%s: %d rows of B (1 .. %d)\n", __func__, nb, GGML_MM_COLS_MAX);
        for (int m = 0; m < nb; m++) {
            for (int64_t i = 0; i < nn; i++) {
                out[m*ldo + i] = NAN;
            }
        }
        return;
    }
    if (ggml_mm_type_size(a->type) == 0) {
        ggml_mm_unknown_type(a->type, out, nn, nb, ldo);
        return;
    }
    float tmp[CK_P_KB];
    for (int64_t i = 0; i < nn; i++) {
        const char * row = a->data + (n0 + i)*a->s_r;
        float sum[GGML_MM_COLS_MAX][4] = {{0}};
        for (int64_t k0 = 0; k0 < K; k0 += CK_P_KB) {
            const int64_t kc = MIN((int64_t) CK_P_KB, K - k0);
            ggml_mm_load_f32(a->type, row + k0*a->s_k, a->s_k, kc, tmp);
            for (int m = 0; m < nb; m++) {
                const float * bv = b[m] + k0;
                int64_t k = 0;
                for (; k + 4 <= kc; k += 4) {
                    sum[m][0] += tmp[k + 0]*bv[k + 0];
                    sum[m][1] += tmp[k + 1]*bv[k + 1];
                    sum[m][2] += tmp[k + 2]*bv[k + 2];
                    sum[m][3] += tmp[k + 3]*bv[k + 3];
                }
                for (; k < kc; k++) {
                    sum[m][0] += tmp[k]*bv[k];
                }
            }
        }
        for (int m = 0; m < nb; m++) {
            out[m*ldo + i] = (sum[m][0] + sum[m][1]) + (sum[m][2] + sum[m][3]);
        }
    }
}
