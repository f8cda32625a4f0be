// Portable integer dot product of Q3_K against Q8_K activations (quant slot of the portable table).
// Level = (2 low bits) + 4*(hmask bit) - 4, a 6-bit signed scale per 16 elements:
//   d * d_activation * sum_g sc_g * sum_{l in g} level_l * a_l
// summed exactly in int32 per super-block, as the AVX2 kernel (arch/x86/avx2-quant-q3k.c) does.

#include "portable-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

void ggml_cpu_q_dot_q3_K_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q3_K * x = vx;
    const block_q8_K * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        const uint8_t * sc = x[i].scales;
        const int8_t  * a  = y[i].qs;
        int32_t isum = 0;
        // byte 32h + l of qs, bits 2j, hmask bit 4h + j: element 128h + 32j + l, group 8h + 2j + l/16
        for (int h = 0; h < 2; h++) {
            const uint8_t * q = x[i].qs + 32*h;
            for (int j = 0; j < 4; j++) {
                for (int half = 0; half < 2; half++, a += 16) {
                    const int g  = 8*h + 2*j + half;
                    const int lo = g < 8 ? (sc[g] & 0xF) : (sc[g - 8] >> 4);
                    const int hi = (sc[8 + g%4] >> (2*(g/4))) & 3;
                    int gsum = 0;
                    for (int l = 0; l < 16; l++) {
                        const int b = 16*half + l;
                        const int v = ((q[b] >> (2*j)) & 3) - ((x[i].hmask[b] >> (4*h + j)) & 1 ? 0 : 4);
                        gsum += v*a[l];
                    }
                    isum += ((lo | (hi << 4)) - 32)*gsum;
                }
            }
        }
        sum += GGML_FP16_TO_FP32(x[i].d)*y[i].d*(float) isum;
    }
    *s = sum;
}
