// Portable quantized dot products (the quant slots of the portable table, see cpu-kernels.h).
//
// The 32-element formats (Q4_0 ... Q8_0, IQ4_NL) have integer kernels: per block the integer dot
// of the levels, times the two scales, as the family computes them; so do Q3_K, the IQ, ternary
// and FP4 formats (the files named below). Q2_K, Q4_K, Q5_K and Q6_K go
// through one generic kernel: both rows are dequantized 256 elements at a time with the format's
// own to_float and dotted in double. It is slow but exact to float rounding, and it is what the
// SIMD levels are compared against. nrc > 1 (several rows per call) is not used by this backend:
// every kernel computes s[0] only (ggml_get_type_traits_cpu reports nrows = 1).

#include "portable-quant.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"

#include <string.h>

#define QCHUNK 256

void ggml_cpu_q_dot_generic(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc,
        enum ggml_type tx) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const struct ggml_type_traits * trx = ggml_get_type_traits(tx);
    const enum ggml_type ty = ggml_cpu_kernels_portable.quant[tx].vec_dot_type;
    const struct ggml_type_traits * try_ = ggml_get_type_traits(ty);
    float xf[QCHUNK], yf[QCHUNK];
    double sum = 0.0;
    const char * px = x;
    const char * py = y;
    for (int i = 0; i < n; ) {
        const int c = n - i >= QCHUNK ? QCHUNK : n - i;
        trx->to_float(px, xf, c);
        try_->to_float(py, yf, c);
        for (int j = 0; j < c; j++) {
            sum += (double) xf[j]*(double) yf[j];
        }
        px += (size_t) (c/trx->blck_size)*trx->type_size;
        py += (size_t) (c/try_->blck_size)*try_->type_size;
        i  += c;
    }
    *s = (float) sum;
}

#define GENERIC_DOT(t, T) \
    void ggml_cpu_q_dot_##t##_portable(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by, int nrc) { \
        ggml_cpu_q_dot_generic(n, s, bs, x, bx, y, by, nrc, GGML_TYPE_##T); \
    }
GENERIC_DOT(q2_K, Q2_K) GENERIC_DOT(q4_K, Q4_K) GENERIC_DOT(q5_K, Q5_K) GENERIC_DOT(q6_K, Q6_K)
// Q3_K, the IQ formats, TQ1_0/TQ2_0 and MXFP4/NVFP4 have integer kernels in portable-quant-q3k.c,
// portable-quant-iq.c, portable-quant-ternary.c and portable-quant-fp4.c

// 5th bit of element j (0..31) of a Q5 block, as 16 or 0
static inline int q5_high(uint32_t qh, int j) {
    return (int) ((qh >> j) & 1u) << 4;
}

void ggml_cpu_q_dot_q4_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q4_0 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK8_0; i++) {
        int acc = 0;
        for (int j = 0; j < QK8_0/2; j++) {
            acc += ((x[i].qs[j] & 0x0F) - 8)*y[i].qs[j] + ((x[i].qs[j] >> 4) - 8)*y[i].qs[j + QK8_0/2];
        }
        sum += (float) acc*GGML_FP16_TO_FP32(x[i].d)*GGML_FP16_TO_FP32(y[i].d);
    }
    *s = sum;
}

void ggml_cpu_q_dot_q4_1_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q4_1 * x = vx;
    const block_q8_1 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK8_1; i++) {
        int acc = 0;
        for (int j = 0; j < QK8_1/2; j++) {
            acc += (x[i].qs[j] & 0x0F)*y[i].qs[j] + (x[i].qs[j] >> 4)*y[i].qs[j + QK8_1/2];
        }
        sum += (float) acc*GGML_FP16_TO_FP32(x[i].d)*GGML_FP16_TO_FP32(y[i].d) +
               GGML_FP16_TO_FP32(x[i].m)*GGML_FP16_TO_FP32(y[i].s);
    }
    *s = sum;
}

void ggml_cpu_q_dot_q5_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q5_0 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK8_0; i++) {
        uint32_t qh;
        memcpy(&qh, x[i].qh, sizeof(qh));
        int acc = 0;
        for (int j = 0; j < QK8_0/2; j++) {
            acc += (((x[i].qs[j] & 0x0F) | q5_high(qh, j)) - 16)*y[i].qs[j] +
                   (((x[i].qs[j] >> 4) | q5_high(qh, j + 16)) - 16)*y[i].qs[j + QK8_0/2];
        }
        sum += (float) acc*GGML_FP16_TO_FP32(x[i].d)*GGML_FP16_TO_FP32(y[i].d);
    }
    *s = sum;
}

void ggml_cpu_q_dot_q5_1_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q5_1 * x = vx;
    const block_q8_1 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK8_1; i++) {
        uint32_t qh;
        memcpy(&qh, x[i].qh, sizeof(qh));
        int acc = 0;
        for (int j = 0; j < QK8_1/2; j++) {
            acc += ((x[i].qs[j] & 0x0F) | q5_high(qh, j))*y[i].qs[j] +
                   ((x[i].qs[j] >> 4) | q5_high(qh, j + 16))*y[i].qs[j + QK8_1/2];
        }
        sum += (float) acc*GGML_FP16_TO_FP32(x[i].d)*GGML_FP16_TO_FP32(y[i].d) +
               GGML_FP16_TO_FP32(x[i].m)*GGML_FP16_TO_FP32(y[i].s);
    }
    *s = sum;
}

void ggml_cpu_q_dot_q8_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q8_0 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK8_0; i++) {
        int acc = 0;
        for (int j = 0; j < QK8_0; j++) {
            acc += x[i].qs[j]*y[i].qs[j];
        }
        sum += (float) acc*GGML_FP16_TO_FP32(x[i].d)*GGML_FP16_TO_FP32(y[i].d);
    }
    *s = sum;
}

void ggml_cpu_q_dot_iq4_nl_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq4_nl * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK8_0; i++) {
        int acc = 0;
        for (int j = 0; j < QK8_0/2; j++) {
            acc += ggml_kvalues_iq4nl[x[i].qs[j] & 0x0F]*y[i].qs[j] + ggml_kvalues_iq4nl[x[i].qs[j] >> 4]*y[i].qs[j + QK8_0/2];
        }
        sum += (float) acc*GGML_FP16_TO_FP32(x[i].d)*GGML_FP16_TO_FP32(y[i].d);
    }
    *s = sum;
}

void ggml_cpu_q_from_float_q8_0(const float * x, void * y, int64_t k) { quantize_row_q8_0_ref(x, y, k); }
void ggml_cpu_q_from_float_q8_1(const float * x, void * y, int64_t k) { quantize_row_q8_1_ref(x, y, k); }
void ggml_cpu_q_from_float_q8_K(const float * x, void * y, int64_t k) { quantize_row_q8_K_ref(x, y, k); }
