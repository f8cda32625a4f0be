// The ternary formats TQ1_0 (1.6875 bits: five trits per byte, stored as a fixed-point fraction
// of 3^5 so that a multiply by 3 brings each trit to the top) and TQ2_0 (2 bits per trit), both
// 256 elements with one fp16 scale. Quantization and dequantization bit-exact with the family's.

#include "ggml-quants.h"

#include <math.h>

GGML_QUANTS_NO_CONTRACT

#define FP16(x) GGML_FP32_TO_FP16(x)
#define F32(h)  GGML_FP16_TO_FP32(h)

static float absmax(const float * x, int n) {
    float amax = 0.0f;
    for (int j = 0; j < n; j++) {
        amax = fmaxf(amax, fabsf(x[j]));
    }
    return amax;
}

// trit of x in {0, 1, 2} (value -1, 0, 1), rounding half away from zero
static int trit(float x, float id) {
    return (int) lroundf(x * id) + 1;
}

// n trits x[0], x[stride], ... as the top digits of a 5-digit base-3 number scaled to a byte
static uint8_t pack_trits(const float * x, int stride, int n, float id) {
    int q = 0;
    for (int m = 0; m < n; m++) {
        q = q * 3 + trit(x[m * stride], id);
    }
    for (int m = n; m < 5; m++) {
        q *= 3;
    }
    return (uint8_t)((q * 256 + (243 - 1)) / 243);
}

void quantize_row_tq1_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_tq1_0 * y = vy;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d  = absmax(x, QK_K);
        const float id = d ? 1.0f / d : 0.0f;
        y[i].d = FP16(d);
        // bytes 0..31: elements m + 32n; bytes 32..47: 160 + m + 16n; qh[0..3]: 240 + j + 4n
        for (int m = 0; m < 32; m++) {
            y[i].qs[m] = pack_trits(x + m, 32, 5, id);
        }
        x += 160;
        for (int m = 0; m < 16; m++) {
            y[i].qs[32 + m] = pack_trits(x + m, 16, 5, id);
        }
        x += 80;
        for (int j = 0; j < 4; j++) {
            y[i].qh[j] = pack_trits(x + j, 4, 4, id);
        }
        x += 16;
    }
}

static float trit_value(uint8_t q, int n) {
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    const uint8_t  s  = (uint8_t)(q * pow3[n]);
    const int      xi = (int)(((uint16_t) s * 3) >> 8);
    return (float) (xi - 1);
}

void dequantize_row_tq1_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_tq1_0 * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        for (int n = 0; n < 5; n++) {
            for (int m = 0; m < 32; m++) {
                *y++ = trit_value(x[i].qs[m], n) * d;
            }
        }
        for (int n = 0; n < 5; n++) {
            for (int m = 0; m < 16; m++) {
                *y++ = trit_value(x[i].qs[32 + m], n) * d;
            }
        }
        for (int n = 0; n < 4; n++) {
            for (int j = 0; j < 4; j++) {
                *y++ = trit_value(x[i].qh[j], n) * d;
            }
        }
    }
}

void quantize_row_tq2_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_tq2_0 * y = vy;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        const float d  = absmax(x, QK_K);
        const float id = d ? 1.0f / d : 0.0f;
        y[i].d = FP16(d);
        // byte j/4 + m of each 128: elements j + m + 32n at bits 2n
        for (int j = 0; j < QK_K; j += 128) {
            for (int m = 0; m < 32; m++) {
                int q = 0;
                for (int n = 0; n < 4; n++) {
                    q |= (trit(x[j + m + 32*n], id) & 3) << (2*n);
                }
                y[i].qs[j/4 + m] = (uint8_t) q;
            }
        }
    }
}

void dequantize_row_tq2_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_tq2_0 * x = vx;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = F32(x[i].d);
        for (int j = 0; j < QK_K/4; j += 32) {
            for (int n = 0; n < 4; n++) {
                for (int m = 0; m < 32; m++) {
                    *y++ = (float) (((x[i].qs[j + m] >> (2*n)) & 3) - 1) * d;
                }
            }
        }
    }
}
