// Portable integer dot products of TQ1_0 and TQ2_0 against Q8_K activations (quant slots of the
// portable table): per super-block the exact int32 sum of trit value (-1, 0, 1) * activation
// level, times d * d_activation. TQ1_0's n-th trit of byte q is the top third of q * 3^n mod 256,
// as in the format's dequantization.

#include "portable-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

// trit n (0..4) of a TQ1_0 byte as -1, 0, 1
static inline int tq1_trit(uint8_t q, int n) {
    static const uint8_t pow3[5] = { 1, 3, 9, 27, 81 };
    const uint8_t s = (uint8_t) (q*pow3[n]);
    return (((int) s*3) >> 8) - 1;
}

void ggml_cpu_q_dot_tq1_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_tq1_0 * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        int32_t isum = 0;
        // bytes 0..31: element 32n + m; bytes 32..47: 160 + 16n + m; qh 0..3: 240 + 4n + j
        for (int t = 0; t < 5; t++, a += 32) {
            for (int m = 0; m < 32; m++) {
                isum += tq1_trit(x[i].qs[m], t)*a[m];
            }
        }
        for (int t = 0; t < 5; t++, a += 16) {
            for (int m = 0; m < 16; m++) {
                isum += tq1_trit(x[i].qs[32 + m], t)*a[m];
            }
        }
        for (int t = 0; t < 4; t++, a += 4) {
            for (int j = 0; j < 4; j++) {
                isum += tq1_trit(x[i].qh[j], t)*a[j];
            }
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = sum;
}

void ggml_cpu_q_dot_tq2_0_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_tq2_0 * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const int8_t * a = y[i].qs;
        int32_t isum = 0;
        // byte 32h + m, bits 2t: element 128h + 32t + m
        for (int h = 0; h < 2; h++) {
            for (int t = 0; t < 4; t++, a += 32) {
                for (int m = 0; m < 32; m++) {
                    isum += (((x[i].qs[32*h + m] >> (2*t)) & 3) - 1)*a[m];
                }
            }
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = sum;
}
