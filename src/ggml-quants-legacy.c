// The legacy block formats Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1 (32 elements per block): reference
// quantization (bit-exact with the family's and with gguf.quants) and dequantization, plus the
// importance-weighted quantizers of the 4- and 5-bit ones.

#include "ggml-quants.h"

#include <float.h>
#include <math.h>

GGML_QUANTS_NO_CONTRACT

#define FP16(x) GGML_FP32_TO_FP16(x)
#define F32(h)  GGML_FP16_TO_FP32(h)

// the signed value of largest magnitude (the first one on ties)
static float signed_absmax(const float * x, int n) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < n; j++) {
        if (amax < fabsf(x[j])) {
            amax = fabsf(x[j]);
            max  = x[j];
        }
    }
    return max;
}

static void min_max(const float * x, int n, float * mn, float * mx) {
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int j = 0; j < n; j++) {
        lo = x[j] < lo ? x[j] : lo;
        hi = x[j] > hi ? x[j] : hi;
    }
    *mn = lo;
    *mx = hi;
}

static void pack_nibbles(const uint8_t * L, uint8_t * qs, int half) {
    for (int j = 0; j < half; j++) {
        qs[j] = (uint8_t)((L[j] & 0x0F) | ((L[half + j] & 0x0F) << 4));
    }
}

static uint32_t fifth_bits(const uint8_t * L, int n) {
    uint32_t qh = 0;
    for (int j = 0; j < n; j++) {
        qh |= (uint32_t)((L[j] >> 4) & 1u) << j;
    }
    return qh;
}

//
// reference quantizers
//

// symmetric 4/5-bit: the largest magnitude maps to level 0 (value -2^(bits-1))
static void quantize_sym_block(const float * x, uint8_t * L, ggml_fp16_t * dh, int nlev) {
    const float max = signed_absmax(x, QK4_0);
    const float d   = max / (float) -(nlev / 2);
    const float id  = d ? 1.0f / d : 0.0f;
    *dh = FP16(d);
    const float off = (float) (nlev / 2) + 0.5f;
    for (int j = 0; j < QK4_0; j++) {
        const int q = (int8_t)(x[j] * id + off);
        L[j] = (uint8_t)(q < nlev - 1 ? q : nlev - 1);
    }
}

// asymmetric 4/5-bit: min..max over nlev levels
static void quantize_asym_block(const float * x, uint8_t * L, ggml_fp16_t * dh, ggml_fp16_t * mh, int nlev) {
    float min, max;
    min_max(x, QK4_1, &min, &max);
    const float d  = (max - min) / (float) (nlev - 1);
    const float id = d ? 1.0f / d : 0.0f;
    *dh = FP16(d);
    *mh = FP16(min);
    for (int j = 0; j < QK4_1; j++) {
        const int q = (int8_t)((x[j] - min) * id + 0.5f);
        L[j] = (uint8_t)(q < nlev - 1 ? q : nlev - 1);
    }
}

void quantize_row_q4_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q4_0 * y = vy;
    uint8_t L[QK4_0];
    for (int64_t i = 0; i < k / QK4_0; i++) {
        quantize_sym_block(x + i*QK4_0, L, &y[i].d, 16);
        pack_nibbles(L, y[i].qs, QK4_0/2);
    }
}

void quantize_row_q5_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q5_0 * y = vy;
    uint8_t L[QK5_0];
    for (int64_t i = 0; i < k / QK5_0; i++) {
        quantize_sym_block(x + i*QK5_0, L, &y[i].d, 32);
        pack_nibbles(L, y[i].qs, QK5_0/2);
        const uint32_t qh = fifth_bits(L, QK5_0);
        memcpy(y[i].qh, &qh, sizeof(qh));
    }
}

void quantize_row_q4_1_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q4_1 * y = vy;
    uint8_t L[QK4_1];
    for (int64_t i = 0; i < k / QK4_1; i++) {
        quantize_asym_block(x + i*QK4_1, L, &y[i].d, &y[i].m, 16);
        pack_nibbles(L, y[i].qs, QK4_1/2);
    }
}

void quantize_row_q5_1_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q5_1 * y = vy;
    uint8_t L[QK5_1];
    for (int64_t i = 0; i < k / QK5_1; i++) {
        quantize_asym_block(x + i*QK5_1, L, &y[i].d, &y[i].m, 32);
        pack_nibbles(L, y[i].qs, QK5_1/2);
        const uint32_t qh = fifth_bits(L, QK5_1);
        memcpy(y[i].qh, &qh, sizeof(qh));
    }
}

// 8-bit symmetric, round half away from zero; returns the sum of the levels
static int quantize_q8_block(const float * x, int8_t * qs, float * dout) {
    float amax = 0.0f;
    for (int j = 0; j < QK8_0; j++) {
        amax = fmaxf(amax, fabsf(x[j]));
    }
    const float d  = amax / 127.0f;
    const float id = d ? 1.0f / d : 0.0f;
    int sum = 0;
    for (int j = 0; j < QK8_0; j++) {
        qs[j] = (int8_t) roundf(x[j] * id);
        sum += qs[j];
    }
    *dout = d;
    return sum;
}

void quantize_row_q8_0_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q8_0 * y = vy;
    for (int64_t i = 0; i < k / QK8_0; i++) {
        float d;
        quantize_q8_block(x + i*QK8_0, y[i].qs, &d);
        y[i].d = FP16(d);
    }
}

void quantize_row_q8_1_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k) {
    block_q8_1 * y = vy;
    for (int64_t i = 0; i < k / QK8_1; i++) {
        float d;
        const int sum = quantize_q8_block(x + i*QK8_1, y[i].qs, &d);
        y[i].d = FP16(d);
        y[i].s = FP16((float) sum * d);
    }
}

//
// importance-weighted quantizers: weight of element j is qw[j] * sqrt(sigma2 + x[j]^2), sigma2
// the row's mean square, and the scale (and offset) minimise the weighted squared error
//

static float row_sigma2(const float * x, int64_t n) {
    double s = 0.0;
    for (int64_t j = 0; j < n; j++) {
        s += (double) x[j] * x[j];
    }
    return (float) (s / (double) n);
}

static void block_weights(const float * x, const float * qw, float sigma2, float * w, int n) {
    for (int j = 0; j < n; j++) {
        w[j] = qw[j] * sqrtf(sigma2 + x[j] * x[j]);
    }
}

// one block: levels L and the scale (and for the asymmetric formats the offset, returned in *m)
static float sym_w_block(const float * xb, const float * qw, float sigma2, int nlev, uint8_t * L) {
    float w[QK4_0];
    block_weights(xb, qw, sigma2, w, QK4_0);
    return ggml_quant_search_sym(QK4_0, nlev / 2, xb, w, L, 9, true);
}

static float asym_w_block(const float * xb, const float * qw, float sigma2, int nlev, uint8_t * L, float * m) {
    float   w[QK4_1];
    uint8_t Laux[QK4_1];
    block_weights(xb, qw, sigma2, w, QK4_1);
    float min;
    const float d = ggml_quant_search_asym(QK4_1, nlev - 1, xb, w, L, &min, Laux, -0.9f, 0.025f, 72, false);
    *m = -min;
    return d;
}

void quantize_row_q4_0_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    if (!qw) {
        quantize_row_q4_0_ref(x, vy, k);
        return;
    }
    block_q4_0 * y = vy;
    const float sigma2 = row_sigma2(x, k);
    uint8_t L[QK4_0];
    for (int64_t i = 0; i < k / QK4_0; i++) {
        y[i].d = FP16(sym_w_block(x + i*QK4_0, qw + i*QK4_0, sigma2, 16, L));
        pack_nibbles(L, y[i].qs, QK4_0/2);
    }
}

void quantize_row_q5_0_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    if (!qw) {
        quantize_row_q5_0_ref(x, vy, k);
        return;
    }
    block_q5_0 * y = vy;
    const float sigma2 = row_sigma2(x, k);
    uint8_t L[QK5_0];
    for (int64_t i = 0; i < k / QK5_0; i++) {
        y[i].d = FP16(sym_w_block(x + i*QK5_0, qw + i*QK5_0, sigma2, 32, L));
        pack_nibbles(L, y[i].qs, QK5_0/2);
        const uint32_t qh = fifth_bits(L, QK5_0);
        memcpy(y[i].qh, &qh, sizeof(qh));
    }
}

void quantize_row_q4_1_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    if (!qw) {
        quantize_row_q4_1_ref(x, vy, k);
        return;
    }
    block_q4_1 * y = vy;
    const float sigma2 = row_sigma2(x, k);
    uint8_t L[QK4_1];
    for (int64_t i = 0; i < k / QK4_1; i++) {
        float m;
        y[i].d = FP16(asym_w_block(x + i*QK4_1, qw + i*QK4_1, sigma2, 16, L, &m));
        y[i].m = FP16(m);
        pack_nibbles(L, y[i].qs, QK4_1/2);
    }
}

void quantize_row_q5_1_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT vy, int64_t k, const float * qw) {
    if (!qw) {
        quantize_row_q5_1_ref(x, vy, k);
        return;
    }
    block_q5_1 * y = vy;
    const float sigma2 = row_sigma2(x, k);
    uint8_t L[QK5_1];
    for (int64_t i = 0; i < k / QK5_1; i++) {
        float m;
        y[i].d = FP16(asym_w_block(x + i*QK5_1, qw + i*QK5_1, sigma2, 32, L, &m));
        y[i].m = FP16(m);
        pack_nibbles(L, y[i].qs, QK5_1/2);
        const uint32_t qh = fifth_bits(L, QK5_1);
        memcpy(y[i].qh, &qh, sizeof(qh));
    }
}

//
// dequantization
//

void dequantize_row_q4_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q4_0 * x = vx;
    for (int64_t i = 0; i < k / QK4_0; i++, y += QK4_0) {
        const float d = F32(x[i].d);
        for (int j = 0; j < QK4_0/2; j++) {
            y[j]           = (float) ((x[i].qs[j] & 0x0F) - 8) * d;
            y[j + QK4_0/2] = (float) ((x[i].qs[j] >> 4) - 8) * d;
        }
    }
}

void dequantize_row_q4_1(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q4_1 * x = vx;
    for (int64_t i = 0; i < k / QK4_1; i++, y += QK4_1) {
        const float d = F32(x[i].d), m = F32(x[i].m);
        for (int j = 0; j < QK4_1/2; j++) {
            y[j]           = (float) (x[i].qs[j] & 0x0F) * d + m;
            y[j + QK4_1/2] = (float) (x[i].qs[j] >> 4) * d + m;
        }
    }
}

void dequantize_row_q5_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q5_0 * x = vx;
    for (int64_t i = 0; i < k / QK5_0; i++, y += QK5_0) {
        const float d = F32(x[i].d);
        uint32_t qh;
        memcpy(&qh, x[i].qh, sizeof(qh));
        for (int j = 0; j < QK5_0/2; j++) {
            const int h0 = (int) ((qh >> j) & 1u) << 4;
            const int h1 = (int) ((qh >> (j + 16)) & 1u) << 4;
            y[j]           = (float) (((x[i].qs[j] & 0x0F) | h0) - 16) * d;
            y[j + QK5_0/2] = (float) (((x[i].qs[j] >> 4) | h1) - 16) * d;
        }
    }
}

void dequantize_row_q5_1(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q5_1 * x = vx;
    for (int64_t i = 0; i < k / QK5_1; i++, y += QK5_1) {
        const float d = F32(x[i].d), m = F32(x[i].m);
        uint32_t qh;
        memcpy(&qh, x[i].qh, sizeof(qh));
        for (int j = 0; j < QK5_1/2; j++) {
            const int h0 = (int) ((qh >> j) & 1u) << 4;
            const int h1 = (int) ((qh >> (j + 16)) & 1u) << 4;
            y[j]           = (float) ((x[i].qs[j] & 0x0F) | h0) * d + m;
            y[j + QK5_1/2] = (float) ((x[i].qs[j] >> 4) | h1) * d + m;
        }
    }
}

void dequantize_row_q8_0(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q8_0 * x = vx;
    for (int64_t i = 0; i < k / QK8_0; i++, y += QK8_0) {
        const float d = F32(x[i].d);
        for (int j = 0; j < QK8_0; j++) {
            y[j] = (float) x[i].qs[j] * d;
        }
    }
}

void dequantize_row_q8_1(const void * GGML_RESTRICT vx, float * GGML_RESTRICT y, int64_t k) {
    const block_q8_1 * x = vx;
    for (int64_t i = 0; i < k / QK8_1; i++, y += QK8_1) {
        const float d = F32(x[i].d);
        for (int j = 0; j < QK8_1; j++) {
            y[j] = (float) x[i].qs[j] * d;
        }
    }
}
