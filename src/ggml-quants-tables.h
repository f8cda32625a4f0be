// Lookup tables of the quantized formats, generated into ggml-quants-tables.c and ggml-quants-grid-iq{1,2,3}.c by
// scripts/gen-quant-tables.py (see there for their source and the --check mode).
#pragma once

#include <stdint.h>

extern const uint8_t ggml_iq2xxs_grid[256][8];
extern const uint8_t ggml_iq2xs_grid[512][8];
extern const uint8_t ggml_iq2s_grid[1024][8];
extern const uint8_t ggml_iq3xxs_grid[256][4];
extern const uint8_t ggml_iq3s_grid[512][4];
extern const int8_t  ggml_iq1s_grid[2048][8];
extern const uint8_t ggml_ksigns_iq2xs[128];
extern const int8_t  ggml_kvalues_iq4nl[16];
extern const int8_t  ggml_kvalues_mxfp4[16];
