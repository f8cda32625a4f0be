// Quantized formats: block layouts (the family's, byte for byte), reference quantizers and
// dequantizers. Internal to the library; the public entry points are the type traits
// (ggml_get_type_traits) and ggml_quantize_chunk / ggml_validate_row_data in ggml.h.
//
// Conventions of every function here:
//   dequantize_row_X (x, y, k):     k elements (a multiple of the block size) from blocks x into y
//   quantize_row_X_ref(x, y, k):     the reference quantization of k elements
//   quantize_row_X_w  (x, y, k, qw): the same with importance weights qw[k] (NULL: as _ref)
// The callers (ggml-quants.c) check the arguments; these functions trust them.
#pragma once

#include "ggml-impl.h"

#include <stdint.h>

// The family's C reference rounds every product and sum separately; a fused multiply-add would
// change the last bit of a dequantized value (GCC honours -std=c11's contraction-off default,
// clang needs this).
#if defined(__clang__)
#    define GGML_QUANTS_NO_CONTRACT _Pragma("STDC FP_CONTRACT OFF")
#else
#    define GGML_QUANTS_NO_CONTRACT
#endif

#define QK1_0 128
#define QK2_0 64
#define QK4_0 32
#define QK4_1 32
#define QK5_0 32
#define QK5_1 32
#define QK8_0 32
#define QK8_1 32
#define QK4_NL 32
#define QK_MXFP4 32
#define QK_NVFP4 64
#define QK_NVFP4_SUB 16
#ifndef QK_K
#    define QK_K 256
#endif
#define K_SCALE_SIZE 12

typedef struct { ggml_fp16_t d; uint8_t qs[QK1_0 / 8]; } block_q1_0;
typedef struct { ggml_fp16_t d; uint8_t qs[QK2_0 / 4]; } block_q2_0;
typedef struct { ggml_fp16_t d; uint8_t qs[QK4_0 / 2]; } block_q4_0;
typedef struct { ggml_fp16_t d; ggml_fp16_t m; uint8_t qs[QK4_1 / 2]; } block_q4_1;
typedef struct { ggml_fp16_t d; uint8_t qh[4]; uint8_t qs[QK5_0 / 2]; } block_q5_0;
typedef struct { ggml_fp16_t d; ggml_fp16_t m; uint8_t qh[4]; uint8_t qs[QK5_1 / 2]; } block_q5_1;
typedef struct { ggml_fp16_t d; int8_t qs[QK8_0]; } block_q8_0;
typedef struct { ggml_fp16_t d; ggml_fp16_t s; int8_t qs[QK8_1]; } block_q8_1;

typedef struct { uint8_t scales[QK_K / 16]; uint8_t qs[QK_K / 4]; ggml_fp16_t d; ggml_fp16_t dmin; } block_q2_K;
typedef struct { uint8_t hmask[QK_K / 8]; uint8_t qs[QK_K / 4]; uint8_t scales[12]; ggml_fp16_t d; } block_q3_K;
typedef struct { ggml_fp16_t d; ggml_fp16_t dmin; uint8_t scales[K_SCALE_SIZE]; uint8_t qs[QK_K / 2]; } block_q4_K;
typedef struct { ggml_fp16_t d; ggml_fp16_t dmin; uint8_t scales[K_SCALE_SIZE]; uint8_t qh[QK_K / 8]; uint8_t qs[QK_K / 2]; } block_q5_K;
typedef struct { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; ggml_fp16_t d; } block_q6_K;
typedef struct { float d; int8_t qs[QK_K]; int16_t bsums[QK_K / 16]; } block_q8_K;

typedef struct { ggml_fp16_t d; uint16_t qs[QK_K / 8]; } block_iq2_xxs;
typedef struct { ggml_fp16_t d; uint16_t qs[QK_K / 8]; uint8_t scales[QK_K / 32]; } block_iq2_xs;
typedef struct { ggml_fp16_t d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t scales[QK_K / 32]; } block_iq2_s;
typedef struct { ggml_fp16_t d; uint8_t qs[3 * QK_K / 8]; } block_iq3_xxs;
typedef struct { ggml_fp16_t d; uint8_t qs[QK_K / 4]; uint8_t qh[QK_K / 32]; uint8_t signs[QK_K / 8]; uint8_t scales[QK_K / 64]; } block_iq3_s;
typedef struct { ggml_fp16_t d; uint8_t qs[QK_K / 8]; uint16_t qh[QK_K / 32]; } block_iq1_s;
typedef struct { uint8_t qs[QK_K / 8]; uint8_t qh[QK_K / 16]; uint8_t scales[QK_K / 32]; } block_iq1_m;
typedef struct { ggml_fp16_t d; uint8_t qs[QK4_NL / 2]; } block_iq4_nl;
typedef struct { ggml_fp16_t d; uint16_t scales_h; uint8_t scales_l[QK_K / 64]; uint8_t qs[QK_K / 2]; } block_iq4_xs;

typedef struct { uint8_t qs[(QK_K - 4 * QK_K / 64) / 5]; uint8_t qh[QK_K / 64]; ggml_fp16_t d; } block_tq1_0;
typedef struct { uint8_t qs[QK_K / 4]; ggml_fp16_t d; } block_tq2_0;

typedef struct { uint8_t e; uint8_t qs[QK_MXFP4 / 2]; } block_mxfp4;
typedef struct { uint8_t d[QK_NVFP4 / QK_NVFP4_SUB]; uint8_t qs[QK_NVFP4 / 2]; } block_nvfp4;

// Round to the nearest integer, ties to even (|x| < 2^22), as the family's quantizers do.
static inline int ggml_nearest_int(float fval) {
    const float val = fval + 12582912.f;
    int32_t i;
    memcpy(&i, &val, sizeof(i));
    return (i & 0x007fffff) - 0x00400000;
}

#define GGML_QUANTS_ROW_FNS(t)                                                                  \
    void dequantize_row_##t (const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k); \
    void quantize_row_##t##_ref(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k);

#define GGML_QUANTS_ROW_W_FN(t) \
    void quantize_row_##t##_w(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k, const float * qw);

// legacy (ggml-quants-legacy.c)
GGML_QUANTS_ROW_FNS(q4_0) GGML_QUANTS_ROW_W_FN(q4_0)
GGML_QUANTS_ROW_FNS(q4_1) GGML_QUANTS_ROW_W_FN(q4_1)
GGML_QUANTS_ROW_FNS(q5_0) GGML_QUANTS_ROW_W_FN(q5_0)
GGML_QUANTS_ROW_FNS(q5_1) GGML_QUANTS_ROW_W_FN(q5_1)
GGML_QUANTS_ROW_FNS(q8_0)
GGML_QUANTS_ROW_FNS(q8_1)
// K (ggml-quants-k.c)
GGML_QUANTS_ROW_FNS(q2_K) GGML_QUANTS_ROW_W_FN(q2_K)
GGML_QUANTS_ROW_FNS(q3_K) GGML_QUANTS_ROW_W_FN(q3_K)
GGML_QUANTS_ROW_FNS(q4_K) GGML_QUANTS_ROW_W_FN(q4_K)
GGML_QUANTS_ROW_FNS(q5_K) GGML_QUANTS_ROW_W_FN(q5_K)
GGML_QUANTS_ROW_FNS(q6_K) GGML_QUANTS_ROW_W_FN(q6_K)
GGML_QUANTS_ROW_FNS(q8_K)
// IQ (ggml-quants-iq.c): dequantization of all, quantization of IQ4 only
void dequantize_row_iq2_xxs(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
void dequantize_row_iq2_xs (const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
void dequantize_row_iq2_s  (const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
void dequantize_row_iq3_xxs(const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
void dequantize_row_iq3_s  (const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
void dequantize_row_iq1_s  (const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
void dequantize_row_iq1_m  (const void * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
GGML_QUANTS_ROW_FNS(iq4_nl) GGML_QUANTS_ROW_W_FN(iq4_nl)
GGML_QUANTS_ROW_FNS(iq4_xs) GGML_QUANTS_ROW_W_FN(iq4_xs)
// FP4 (ggml-quants-fp4.c)
GGML_QUANTS_ROW_FNS(mxfp4)
GGML_QUANTS_ROW_FNS(nvfp4)
// Q1_0 / Q2_0 (ggml-quants-q1q2.c)
GGML_QUANTS_ROW_FNS(q1_0)
GGML_QUANTS_ROW_FNS(q2_0)
// ternary (ggml-quants-ternary.c)
GGML_QUANTS_ROW_FNS(tq1_0)
GGML_QUANTS_ROW_FNS(tq2_0)

// The IQ1_M super-block scale, assembled from the top nibbles of its four scale words.
ggml_fp16_t ggml_iq1_m_scale(const block_iq1_m * b);

// Type-specific validation of quantized rows (the block scales must be finite); the caller has
// checked type, size and pointer. false after logging the first bad block.
bool ggml_validate_quant_row_data(enum ggml_type type, const void * data, size_t nblocks);

// The quantize-with-weights function of a type (NULL: no quantizer yet), and the row functions
// the type traits table points to (NULL: none).
typedef void (*ggml_quantize_row_w_t)(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k, const float * qw);
ggml_quantize_row_w_t ggml_quants_row_w(enum ggml_type type);

// Scale searches shared by the quantizers (ggml-quants-search.c).
// Symmetric: levels L[i] in [0, 2*nmax) (value l - nmax), weights w (NULL: x^2); returns the
// scale minimising sum w (x - scale*(L - nmax))^2 over the candidate scales -(nmax + 0.1 i)/max,
// |i| <= ncand, then (refine) improved one level at a time.
float ggml_quant_search_sym(int n, int nmax, const float * x, const float * w, uint8_t * L, int ncand, bool refine);
// Asymmetric: levels L[i] in [0, nmax], x ~ scale*L - min with min >= 0 returned in *the_min;
// candidates iscale = (rmin + rdelta*i + nmax) / (max - min) for i in [0, nstep]; use_mad
// minimises the weighted absolute instead of squared error. Laux: scratch of n levels.
float ggml_quant_search_asym(int n, int nmax, const float * x, const float * w, uint8_t * L, float * the_min,
                             uint8_t * Laux, float rmin, float rdelta, int nstep, bool use_mad);
// Non-negative values x (block scales or mins) as levels L in [0, nmax] times one scale, weights w:
// returns the scale (0 and all levels 0 when every x is 0).
float ggml_quant_search_pos(int n, int nmax, const float * x, const float * w, uint8_t * L);
// Index of the entry of the sorted table val[n] nearest to x.
int ggml_quant_best_index_int8(int n, const int8_t * val, float x);
