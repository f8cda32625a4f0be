// The 4-bit float formats: MXFP4 (32 E2M1 values sharing an E8M0 power-of-two scale) and NVFP4
// (64 values in 4 groups of 16, each with an unsigned E4M3 scale); quantization and
// dequantization of both. The E2M1 values are kept doubled (integers), so the
// scales are decoded at half their value.

#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#include <math.h>

GGML_QUANTS_NO_CONTRACT

// E8M0 exponent byte -> 2^(e-127) / 2, including the subnormal halves of e = 0 and 1
static float e8m0_to_fp32_half(uint8_t e) {
    const uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

// unsigned E4M3 (bias 7, no sign; 0x7f, the NaN code, reads as 0; bit 7 is ignored) -> value / 2
static float ue4m3_to_fp32_half(uint8_t x) {
    if (x == 0 || x == 0x7f) {
        return 0.0f;
    }
    const int exp = (x >> 3) & 0xf;
    const int man = x & 7;
    const float v = exp == 0 ? ldexpf((float) man, -9) : ldexpf(1.0f + (float) man / 8.0f, exp - 7);
    return v * 0.5f;
}

static int best_index_mxfp4(float x, float e) {
    int   best     = 0;
    float best_err = fabsf((float) ggml_kvalues_mxfp4[0] * e - x);
    for (int i = 1; i < 16; i++) {
        const float err = fabsf((float) ggml_kvalues_mxfp4[i] * e - x);
        if (err < best_err) {
            best     = i;
            best_err = err;
        }
    }
    return best;
}

void quantize_row_mxfp4_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_mxfp4 * y = vy;
    for (int64_t i = 0; i < k / QK_MXFP4; i++, x += QK_MXFP4) {
        float amax = 0.0f;
        for (int j = 0; j < QK_MXFP4; j++) {
            amax = fmaxf(amax, fabsf(x[j]));
        }
        // the largest E2M1 magnitude is 6 = 1.5 * 2^2: the shared exponent is floor(log2(amax)) - 2
        const uint8_t e = amax > 0.0f ? (uint8_t)(int)(floorf(log2f(amax)) - 2.0f + 127.0f) : 0;
        const float   d = e8m0_to_fp32_half(e);
        y[i].e = e;
        for (int j = 0; j < QK_MXFP4/2; j++) {
            const int q0 = best_index_mxfp4(x[j], d);
            const int q1 = best_index_mxfp4(x[j + QK_MXFP4/2], d);
            y[i].qs[j] = (uint8_t)(q0 | (q1 << 4));
        }
    }
}

void dequantize_row_mxfp4(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_mxfp4 * x = vx;
    for (int64_t i = 0; i < k / QK_MXFP4; i++, y += QK_MXFP4) {
        const float d = e8m0_to_fp32_half(x[i].e);
        for (int j = 0; j < QK_MXFP4/2; j++) {
            y[j]              = d * (float) ggml_kvalues_mxfp4[x[i].qs[j] & 0x0f];
            y[j + QK_MXFP4/2] = d * (float) ggml_kvalues_mxfp4[x[i].qs[j] >> 4];
        }
    }
}

void dequantize_row_nvfp4(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_nvfp4 * x = vx;
    for (int64_t i = 0; i < k / QK_NVFP4; i++) {
        for (int s = 0; s < QK_NVFP4 / QK_NVFP4_SUB; s++, y += QK_NVFP4_SUB) {
            const float d = ue4m3_to_fp32_half(x[i].d[s]);
            const uint8_t * qs = x[i].qs + s * (QK_NVFP4_SUB / 2);
            for (int j = 0; j < QK_NVFP4_SUB/2; j++) {
                y[j]                  = d * (float) ggml_kvalues_mxfp4[qs[j] & 0x0f];
                y[j + QK_NVFP4_SUB/2] = d * (float) ggml_kvalues_mxfp4[qs[j] >> 4];
            }
        }
    }
}

// value -> unsigned E4M3 as the family rounds it: 0 for NaN and values <= 0, at most 448 (0x7e);
// normal values keep the top 3 mantissa bits rounded half up by the 4th (a carry moves the
// exponent); below 2^-6 the 3-bit subnormal count of 2^-9, rounded half up and capped at 7
static uint8_t fp32_to_ue4m3(float x) {
    if (!(x > 0.0f)) {
        return 0;
    }
    x = x > 448.0f ? 448.0f : x;
    uint32_t bits;
    memcpy(&bits, &x, sizeof(bits));
    int exp = (int) ((bits >> 23) & 0xff) - 127 + 7;
    if (exp <= 0) {
        const int man = (int) (x * 512.0f + 0.5f);
        return (uint8_t) (man > 7 ? 7 : (man < 1 ? 0 : man));
    }
    if (exp >= 15) {
        return 0x7e;
    }
    int man = (int) ((bits >> 20) & 7) + (int) ((bits >> 19) & 1);
    if (man > 7) {
        man = 0;
        if (++exp >= 15) {
            return 0x7e;
        }
    }
    return (uint8_t) ((exp << 3) | man);
}

void quantize_row_nvfp4_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_nvfp4 * y = vy;
    for (int64_t i = 0; i < k / QK_NVFP4; i++) {
        for (int s = 0; s < QK_NVFP4 / QK_NVFP4_SUB; s++, x += QK_NVFP4_SUB) {
            float amax = 0.0f;
            for (int j = 0; j < QK_NVFP4_SUB; j++) {
                amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
            }
            // the largest E2M1 magnitude, 6, meets amax
            const uint8_t ue = fp32_to_ue4m3(amax / 6.0f);
            const float   d  = ue4m3_to_fp32_half(ue);
            y[i].d[s] = ue;
            uint8_t * qs = y[i].qs + s * (QK_NVFP4_SUB / 2);
            for (int j = 0; j < QK_NVFP4_SUB/2; j++) {
                const int q0 = best_index_mxfp4(x[j], d);
                const int q1 = best_index_mxfp4(x[j + QK_NVFP4_SUB/2], d);
                qs[j] = (uint8_t)(q0 | (q1 << 4));
            }
        }
    }
}
