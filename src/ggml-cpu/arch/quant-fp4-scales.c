// The unsigned E4M3 scales of NVFP4 at half their value (quant-fp4-scales.h), built by the
// compiler from the format's definition: exponent e (bits 3..6, bias 7), mantissa m (bits 0..2),
// e = 0 subnormal (m/8 * 2^-6), else (1 + m/8) * 2^(e - 7); 0x7f (the NaN code) reads as 0 and
// bit 7 is ignored, as in the format's dequantization (src/ggml-quants-fp4.c).

#include "ggml-cpu/arch/quant-fp4-scales.h"

// value / 2 of byte x: (8 + m) * 2^(e - 11) for e >= 1, m * 2^-10 for e = 0
#define UE4M3_P2(k)     ((k) >= 0 ? (float) (1 << ((k) < 0 ? 0 : (k))) : 1.0f/(float) (1 << ((k) > 0 ? 0 : -(k))))
#define UE4M3_E(x)      (((x) >> 3) & 15)
#define UE4M3_M(x)      ((x) & 7)
#define UE4M3_HALF(x)   ((x) == 0x7f ? 0.0f : UE4M3_E(x) == 0 ? (float) UE4M3_M(x)/1024.0f : \
                         (float) (8 + UE4M3_M(x))*UE4M3_P2(UE4M3_E(x) - 11))
#define UE4M3_8(x)      UE4M3_HALF(x), UE4M3_HALF((x) + 1), UE4M3_HALF((x) + 2), UE4M3_HALF((x) + 3), \
                        UE4M3_HALF((x) + 4), UE4M3_HALF((x) + 5), UE4M3_HALF((x) + 6), UE4M3_HALF((x) + 7)
#define UE4M3_64(x)     UE4M3_8(x), UE4M3_8((x) + 8), UE4M3_8((x) + 16), UE4M3_8((x) + 24), \
                        UE4M3_8((x) + 32), UE4M3_8((x) + 40), UE4M3_8((x) + 48), UE4M3_8((x) + 56)

const float ggml_cpu_ue4m3_half_table[256] = {
    UE4M3_64(0), UE4M3_64(64), UE4M3_64(128), UE4M3_64(192),
};
