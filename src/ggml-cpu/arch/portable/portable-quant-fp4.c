// Portable integer dot products of MXFP4 and NVFP4 against Q8_0 activations (quant slots of the
// portable table): the doubled E2M1 values (ggml_kvalues_mxfp4) times the activation levels,
// summed exactly per 32 (MXFP4) or 16 (NVFP4) elements, times the scale decoded at half its value
// and d_activation. An NVFP4 block spans two Q8_0 blocks.

#include "portable-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include "ggml-quants-tables.h"
#include "ggml-cpu/arch/quant-fp4-scales.h"

// sum over 2*nh elements: low nibbles of q[0..nh-1] with a[0..nh-1], high nibbles with a[nh..2nh-1]
static inline int fp4_dot(const uint8_t * q, const int8_t * a, int nh) {
    int s = 0;
    for (int j = 0; j < nh; j++) {
        s += ggml_kvalues_mxfp4[q[j] & 0xF]*a[j] + ggml_kvalues_mxfp4[q[j] >> 4]*a[j + nh];
    }
    return s;
}

void ggml_cpu_q_dot_mxfp4_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_mxfp4 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_MXFP4; i++) {
        sum += ggml_cpu_e8m0_half(x[i].e)*GGML_FP16_TO_FP32(y[i].d)*(float) fp4_dot(x[i].qs, y[i].qs, QK_MXFP4/2);
    }
    *s = sum;
}

void ggml_cpu_q_dot_nvfp4_portable(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_nvfp4 * x = vx;
    const block_q8_0 * y = vy;
    float sum = 0.0f;
    for (int i = 0; i < n/QK_NVFP4; i++) {
        for (int sb = 0; sb < QK_NVFP4/QK_NVFP4_SUB; sb++) {
            const block_q8_0 * yb = &y[2*i + sb/2];
            const int isum = fp4_dot(x[i].qs + sb*(QK_NVFP4_SUB/2), yb->qs + 16*(sb%2), QK_NVFP4_SUB/2);
            sum += ggml_cpu_ue4m3_half(x[i].d[sb])*GGML_FP16_TO_FP32(yb->d)*(float) isum;
        }
    }
    *s = sum;
}
