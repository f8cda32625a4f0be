#pragma once

// Internal to arch/: the scale decodings of the 4-bit float formats, at half their value as in the
// format's dequantization (src/ggml-quants-fp4.c keeps the E2M1 values doubled), shared by the
// MXFP4 / NVFP4 dot products of every level.

#include <stdint.h>
#include <string.h>

// E8M0 exponent byte -> 2^(e - 127) / 2 (e = 0 and 1 give the subnormal halves)
static inline float ggml_cpu_e8m0_half(uint8_t e) {
    const uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t) (e - 1) << 23;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

// unsigned E4M3 (bias 7; 0x7f, the NaN code, reads as 0; bit 7 is ignored) -> value / 2, for
// every byte (quant-fp4-scales.c; a table: a random scale byte would make branches mispredict)
extern const float ggml_cpu_ue4m3_half_table[256];

static inline float ggml_cpu_ue4m3_half(uint8_t x) {
    return ggml_cpu_ue4m3_half_table[x];
}
