// The 1- and 2-bit block formats Q1_0 (128 signs times the mean magnitude) and Q2_0 (64 levels
// -1, 0, 1, 2 times the largest magnitude): reference quantization and dequantization, as the
// family defines them.

#include "ggml-quants.h"

#include <math.h>

GGML_QUANTS_NO_CONTRACT

void quantize_row_q1_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q1_0 * y = vy;
    for (int64_t i = 0; i < k / QK1_0; i++, x += QK1_0) {
        float sum_abs = 0.0f;
        for (int j = 0; j < QK1_0; j++) {
            sum_abs += fabsf(x[j]);
        }
        y[i].d = GGML_FP32_TO_FP16(sum_abs / (float) QK1_0);
        memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int j = 0; j < QK1_0; j++) {
            if (x[j] >= 0.0f) {
                y[i].qs[j / 8] |= (uint8_t)(1u << (j % 8));
            }
        }
    }
}

void dequantize_row_q1_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q1_0 * x = vx;
    for (int64_t i = 0; i < k / QK1_0; i++, y += QK1_0) {
        const float d = GGML_FP16_TO_FP32(x[i].d);
        for (int j = 0; j < QK1_0; j++) {
            y[j] = (x[i].qs[j / 8] >> (j % 8)) & 1 ? d : -d;
        }
    }
}

void quantize_row_q2_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q2_0 * y = vy;
    for (int64_t i = 0; i < k / QK2_0; i++, x += QK2_0) {
        float amax = 0.0f;
        for (int j = 0; j < QK2_0; j++) {
            amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
        }
        const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        y[i].d = GGML_FP32_TO_FP16(amax);
        memset(y[i].qs, 0, sizeof(y[i].qs));
        for (int j = 0; j < QK2_0; j++) {
            int q = (int) roundf(x[j] * id) + 1;
            q = q < 0 ? 0 : (q > 3 ? 3 : q);
            y[i].qs[j / 4] |= (uint8_t)(q << (2 * (j % 4)));
        }
    }
}

void dequantize_row_q2_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q2_0 * x = vx;
    for (int64_t i = 0; i < k / QK2_0; i++, y += QK2_0) {
        const float d = GGML_FP16_TO_FP32(x[i].d);
        for (int j = 0; j < QK2_0; j++) {
            y[j] = (float) (((x[i].qs[j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
        }
    }
}
