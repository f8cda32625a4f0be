// Portable integer dot products of Q1_0 and Q2_0 against Q8_0 activations (quant slots of the
// portable table). A Q1_0 block (128 signs, one scale) spans four Q8_0 blocks, a Q2_0 block (64
// levels 0..3 meaning -1..2, one scale) two: each Q8_0 block's integer sum is exact, then scaled
// by d_weight*d_activation.

#include "portable-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

// sum over 32 elements of (bit set ? a : -a), bits j of qs[j/8]
static inline int q1_sum32(const uint8_t * qs, const int8_t * a) {
    int s = 0;
    for (int j = 0; j < 32; j++) {
        s += (qs[j/8] >> (j%8)) & 1 ? a[j] : -a[j];
    }
    return s;
}

// sum over 32 elements of (level - 1)*a, levels in bits 2*(j%4) of qs[j/4]
static inline int q2_sum32(const uint8_t * qs, const int8_t * a) {
    int s = 0;
    for (int j = 0; j < 32; j++) {
        s += (((qs[j/4] >> (2*(j%4))) & 3) - 1)*a[j];
    }
    return s;
}

void ggml_cpu_q_dot_q1_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q1_0 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK1_0; i++) {
        const float dx = GGML_FP16_TO_FP32(x[i].d);
        for (int k = 0; k < QK1_0/QK8_0; k++) {
            const block_q8_0 * yb = &y[i*(QK1_0/QK8_0) + k];
            sum += dx*GGML_FP16_TO_FP32(yb->d)*(float) q1_sum32(x[i].qs + k*(QK8_0/8), yb->qs);
        }
    }
    *s = sum;
}

void ggml_cpu_q_dot_q2_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q2_0 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK2_0; i++) {
        const float dx = GGML_FP16_TO_FP32(x[i].d);
        for (int k = 0; k < QK2_0/QK8_0; k++) {
            const block_q8_0 * yb = &y[i*(QK2_0/QK8_0) + k];
            sum += dx*GGML_FP16_TO_FP32(yb->d)*(float) q2_sum32(x[i].qs + k*(QK8_0/4), yb->qs);
        }
    }
    *s = sum;
}
