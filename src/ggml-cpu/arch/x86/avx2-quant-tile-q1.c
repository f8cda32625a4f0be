// AVX2 prompt tile of Q1_0 (the tile slot of cpu-kernels.h): 1 row x up to 8 columns. A block's
// 128 sign bits are spread to four vectors of +-1 bytes once per row (as the dot product does,
// avx2-quant-q1q2.c: -1 where the bit is set, so sign(a, that) is -(w*a)) and serve every
// column: per 32 weights and column a load, a sign, a maddubs by ones, a madd by -1, a
// conversion and an fmadd, the same exact int32 sums as the dot product. One column (decode)
// goes to the dot product.

#include "avx2-quant-util.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

GGML_TARGET_AVX2 GGML_KERNEL_INLINE void q1t_row(int C, int nb, float * s, size_t bs, const block_q1_0 * x, const char * y,
        size_t by) {
    const __m256i ones8 = _mm256_set1_epi8(1), neg16 = _mm256_set1_epi16(-1);
    __m256 acc[8];
    for (int c = 0; c < C; c++) {
        acc[c] = _mm256_setzero_ps();
    }
    for (int i = 0; i < nb; i++) {
        const float dx = q_fp16_avx2(x[i].d);
        for (int q = 0; q < QK1_0/QK8_0; q++) {
            uint32_t bits;
            memcpy(&bits, x[i].qs + 4*q, sizeof(bits));
            const __m256i sg = qu_signs_pm1(bits);
            for (int c = 0; c < C; c++) {
                const block_q8_0 * yb = (const block_q8_0 *)(const void *) (y + (size_t) c*by) + (QK1_0/QK8_0)*i + q;
                const __m256i neg = _mm256_sign_epi8(qu_load256(yb->qs), sg);
                const __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, neg), neg16);
                acc[c] = _mm256_fmadd_ps(_mm256_set1_ps(dx*q_fp16_avx2(yb->d)), _mm256_cvtepi32_ps(p), acc[c]);
            }
        }
    }
    for (int c = 0; c < C; c++) {
        s[(size_t) c*bs] = qu_hsum_ps(acc[c]);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_tile_q1_0_avx2(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy,
        size_t by, int nr, int nc) {
    const char * y = vy;
    const int nb = n/QK1_0;
    for (int r = 0; r < nr; r++) {
        const block_q1_0 * xr = (const block_q1_0 *)(const void *) ((const char *) vx + (size_t) r*bx);
        if (nc == 1) {
            ggml_cpu_q_dot_q1_0_avx2(n, s + r, 0, xr, 0, y, 0, 1);
            continue;
        }
        int c = 0;
        for (; c + 8 <= nc; c += 8) {
            q1t_row(8, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
        if (c + 4 <= nc) {
            q1t_row(4, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 4;
        }
        if (c + 2 <= nc) {
            q1t_row(2, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
            c += 2;
        }
        if (c < nc) {
            q1t_row(1, nb, s + (size_t) c*bs + r, bs, xr, y + (size_t) c*by, by);
        }
    }
}

#else

typedef int ggml_avx2_quant_tile_q1_unused;

#endif // GGML_CPU_X86
