// Quantization entry points of ggml.h: ggml_quantize_chunk, ggml_quantize_requires_imatrix,
// ggml_quantize_init / ggml_quantize_free, and the per-type part of ggml_validate_row_data
// (every block scale finite).

#include "ggml-quants.h"

#include <math.h>
#include <stddef.h>

_Static_assert(sizeof(block_q4_0) == 18 && sizeof(block_q4_1) == 20, "legacy 4-bit block sizes");
_Static_assert(sizeof(block_q5_0) == 22 && sizeof(block_q5_1) == 24, "legacy 5-bit block sizes");
_Static_assert(sizeof(block_q8_0) == 34 && sizeof(block_q8_1) == 36, "legacy 8-bit block sizes");
_Static_assert(sizeof(block_q2_K) == 84 && sizeof(block_q3_K) == 110 && sizeof(block_q4_K) == 144, "K block sizes");
_Static_assert(sizeof(block_q5_K) == 176 && sizeof(block_q6_K) == 210 && sizeof(block_q8_K) == 292, "K block sizes");
_Static_assert(sizeof(block_iq2_xxs) == 66 && sizeof(block_iq2_xs) == 74 && sizeof(block_iq2_s) == 82, "IQ2 sizes");
_Static_assert(sizeof(block_iq3_xxs) == 98 && sizeof(block_iq3_s) == 110, "IQ3 block sizes");
_Static_assert(sizeof(block_iq1_s) == 50 && sizeof(block_iq1_m) == 56, "IQ1 block sizes");
_Static_assert(sizeof(block_iq4_nl) == 18 && sizeof(block_iq4_xs) == 136, "IQ4 block sizes");
_Static_assert(sizeof(block_tq1_0) == 54 && sizeof(block_tq2_0) == 66, "ternary block sizes");
_Static_assert(sizeof(block_mxfp4) == 17 && sizeof(block_nvfp4) == 36, "FP4 block sizes");
_Static_assert(sizeof(block_q1_0) == 18 && sizeof(block_q2_0) == 18, "Q1_0 / Q2_0 block sizes");

// adapters for the types without an importance-weighted variant: the weights are not used
#define ROW_W_IGNORING_WEIGHTS(t)                                                                      \
    static void quantize_row_##t##_noweights(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, \
                                             int64_t k, const float * qw) {                            \
        (void) qw;                                                                                     \
        quantize_row_##t##_ref(x, y, k);                                                               \
    }
ROW_W_IGNORING_WEIGHTS(q8_0)
ROW_W_IGNORING_WEIGHTS(q8_1)
ROW_W_IGNORING_WEIGHTS(q8_K)
ROW_W_IGNORING_WEIGHTS(mxfp4)
ROW_W_IGNORING_WEIGHTS(nvfp4)
ROW_W_IGNORING_WEIGHTS(tq1_0)
ROW_W_IGNORING_WEIGHTS(tq2_0)
ROW_W_IGNORING_WEIGHTS(q1_0)
ROW_W_IGNORING_WEIGHTS(q2_0)

ggml_quantize_row_w_t ggml_quants_row_w(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_Q4_0:   return quantize_row_q4_0_w;
        case GGML_TYPE_Q4_1:   return quantize_row_q4_1_w;
        case GGML_TYPE_Q5_0:   return quantize_row_q5_0_w;
        case GGML_TYPE_Q5_1:   return quantize_row_q5_1_w;
        case GGML_TYPE_Q8_0:   return quantize_row_q8_0_noweights;
        case GGML_TYPE_Q8_1:   return quantize_row_q8_1_noweights;
        case GGML_TYPE_Q2_K:   return quantize_row_q2_K_w;
        case GGML_TYPE_Q3_K:   return quantize_row_q3_K_w;
        case GGML_TYPE_Q4_K:   return quantize_row_q4_K_w;
        case GGML_TYPE_Q5_K:   return quantize_row_q5_K_w;
        case GGML_TYPE_Q6_K:   return quantize_row_q6_K_w;
        case GGML_TYPE_Q8_K:   return quantize_row_q8_K_noweights;
        case GGML_TYPE_IQ4_NL: return quantize_row_iq4_nl_w;
        case GGML_TYPE_IQ4_XS: return quantize_row_iq4_xs_w;
        case GGML_TYPE_MXFP4:  return quantize_row_mxfp4_noweights;
        case GGML_TYPE_NVFP4:  return quantize_row_nvfp4_noweights;
        case GGML_TYPE_TQ1_0:  return quantize_row_tq1_0_noweights;
        case GGML_TYPE_TQ2_0:  return quantize_row_tq2_0_noweights;
        case GGML_TYPE_Q1_0:   return quantize_row_q1_0_noweights;
        case GGML_TYPE_Q2_0:   return quantize_row_q2_0_noweights;
        default:               return NULL;
    }
}

// The family's answer: these grid formats give unusable results without an importance matrix.
bool ggml_quantize_requires_imatrix(enum ggml_type type) {
    return type == GGML_TYPE_IQ2_XXS || type == GGML_TYPE_IQ2_XS || type == GGML_TYPE_IQ1_S;
}

// Nothing to prepare: the quantizers implemented here use only constant tables. (The family
// builds search maps for the IQ1/IQ2/IQ3 quantizers here; those are not implemented yet.)
void ggml_quantize_init(enum ggml_type type) {
    (void) type;
}

void ggml_quantize_free(void) {
}

size_t ggml_quantize_chunk(enum ggml_type type, const float * src, void * dst, int64_t start, int64_t nrows,
                           int64_t n_per_row, const float * imatrix) {
    if (!ggml_type_is_valid(type)) {
        GGML_LOG_ERROR("%s: invalid type id %d\n", __func__, (int) type);
        return 0;
    }
    const char * name = ggml_type_name(type);
    const int64_t blck = ggml_blck_size(type);
    if (src == NULL || dst == NULL) {
        GGML_LOG_ERROR("%s: NULL %s for type %s\n", __func__, src == NULL ? "source" : "destination", name);
        return 0;
    }
    if (nrows < 0 || n_per_row <= 0 || n_per_row % blck != 0 || start < 0 || start % n_per_row != 0) {
        GGML_LOG_ERROR("%s: %s: bad chunk (start %lld, %lld rows of %lld): rows must be non-empty multiples of the "
                       "block size %lld and start must be on a row\n", __func__, name, (long long) start,
                       (long long) nrows, (long long) n_per_row, (long long) blck);
        return 0;
    }
    const size_t row_size = ggml_row_size(type, n_per_row);
    if (row_size == 0 || (nrows > 0 && (uint64_t) nrows > SIZE_MAX / row_size)) {
        GGML_LOG_ERROR("%s: %s: chunk size overflows\n", __func__, name);
        return 0;
    }
    const int64_t start_row = start / n_per_row;
    char * out = (char *) dst + (size_t) start_row * row_size;
    const float * in = src + start;

    switch (type) {
        case GGML_TYPE_F32:
            memcpy(out, in, (size_t) nrows * row_size);
            return (size_t) nrows * row_size;
        case GGML_TYPE_F16:
            for (int64_t r = 0; r < nrows; r++) {
                ggml_fp32_to_fp16_row(in + r*n_per_row, (ggml_fp16_t *) (void *) (out + r*row_size), n_per_row);
            }
            return (size_t) nrows * row_size;
        case GGML_TYPE_BF16:
            for (int64_t r = 0; r < nrows; r++) {
                ggml_fp32_to_bf16_row_ref(in + r*n_per_row, (ggml_bf16_t *) (void *) (out + r*row_size), n_per_row);
            }
            return (size_t) nrows * row_size;
        default:
            break;
    }
    const ggml_quantize_row_w_t q = ggml_quants_row_w(type);
    if (q == NULL) {
        GGML_LOG_ERROR("%s: quantization to %s is not implemented (dequantization is)\n", __func__, name);
        return 0;
    }
    for (int64_t r = 0; r < nrows; r++) {
        q(in + r*n_per_row, out + (size_t) r * row_size, n_per_row, imatrix);
    }
    return (size_t) nrows * row_size;
}

//
// validation: every fp16 (or float) scale of every block must be finite
//

static bool fp16_finite(ggml_fp16_t h) {
    return (h & 0x7c00u) != 0x7c00u;
}

// offsets of the fp16 scales in a block of each type (-1: none)
struct scale_fields { int16_t off[2]; };

static struct scale_fields fp16_scales_of(enum ggml_type type) {
    struct scale_fields s = { { -1, -1 } };
    switch (type) {
        case GGML_TYPE_Q4_0:    s.off[0] = offsetof(block_q4_0, d); break;
        case GGML_TYPE_Q4_1:    s.off[0] = offsetof(block_q4_1, d); s.off[1] = offsetof(block_q4_1, m); break;
        case GGML_TYPE_Q5_0:    s.off[0] = offsetof(block_q5_0, d); break;
        case GGML_TYPE_Q5_1:    s.off[0] = offsetof(block_q5_1, d); s.off[1] = offsetof(block_q5_1, m); break;
        case GGML_TYPE_Q8_0:    s.off[0] = offsetof(block_q8_0, d); break;
        case GGML_TYPE_Q8_1:    s.off[0] = offsetof(block_q8_1, d); break; // s may overflow, as the family's
        case GGML_TYPE_Q2_K:    s.off[0] = offsetof(block_q2_K, d); s.off[1] = offsetof(block_q2_K, dmin); break;
        case GGML_TYPE_Q3_K:    s.off[0] = offsetof(block_q3_K, d); break;
        case GGML_TYPE_Q4_K:    s.off[0] = offsetof(block_q4_K, d); s.off[1] = offsetof(block_q4_K, dmin); break;
        case GGML_TYPE_Q5_K:    s.off[0] = offsetof(block_q5_K, d); s.off[1] = offsetof(block_q5_K, dmin); break;
        case GGML_TYPE_Q6_K:    s.off[0] = offsetof(block_q6_K, d); break;
        case GGML_TYPE_IQ2_XXS: s.off[0] = offsetof(block_iq2_xxs, d); break;
        case GGML_TYPE_IQ2_XS:  s.off[0] = offsetof(block_iq2_xs, d); break;
        case GGML_TYPE_IQ2_S:   s.off[0] = offsetof(block_iq2_s, d); break;
        case GGML_TYPE_IQ3_XXS: s.off[0] = offsetof(block_iq3_xxs, d); break;
        case GGML_TYPE_IQ3_S:   s.off[0] = offsetof(block_iq3_s, d); break;
        case GGML_TYPE_IQ1_S:   s.off[0] = offsetof(block_iq1_s, d); break;
        case GGML_TYPE_IQ4_NL:  s.off[0] = offsetof(block_iq4_nl, d); break;
        case GGML_TYPE_IQ4_XS:  s.off[0] = offsetof(block_iq4_xs, d); break;
        case GGML_TYPE_TQ1_0:   s.off[0] = offsetof(block_tq1_0, d); break;
        case GGML_TYPE_TQ2_0:   s.off[0] = offsetof(block_tq2_0, d); break;
        case GGML_TYPE_Q1_0:    s.off[0] = offsetof(block_q1_0, d); break;
        case GGML_TYPE_Q2_0:    s.off[0] = offsetof(block_q2_0, d); break;
        default: break;
    }
    return s;
}

static bool block_scales_finite(enum ggml_type type, const uint8_t * b) {
    if (type == GGML_TYPE_Q8_K) {
        float d;
        memcpy(&d, b + offsetof(block_q8_K, d), sizeof(d));
        return isfinite(d);
    }
    if (type == GGML_TYPE_IQ1_M) {
        block_iq1_m blk;
        memcpy(&blk, b, sizeof(blk));
        return fp16_finite(ggml_iq1_m_scale(&blk));
    }
    if (type == GGML_TYPE_MXFP4) {
        // E8M0: 0xff is the NaN code (the family's validation refuses it; its decoding does not)
        return b[offsetof(block_mxfp4, e)] != 0xff;
    }
    // NVFP4: every UE4M3 scale byte decodes to a finite value
    const struct scale_fields s = fp16_scales_of(type);
    for (int f = 0; f < 2; f++) {
        if (s.off[f] >= 0) {
            ggml_fp16_t h;
            memcpy(&h, b + s.off[f], sizeof(h));
            if (!fp16_finite(h)) {
                return false;
            }
        }
    }
    return true;
}

bool ggml_validate_quant_row_data(enum ggml_type type, const void * data, size_t nblocks) {
    const size_t bs = ggml_type_size(type);
    const uint8_t * p = data;
    for (size_t i = 0; i < nblocks; i++) {
        if (!block_scales_finite(type, p + i*bs)) {
            GGML_LOG_ERROR("%s: %s block %zu of %zu has a NaN or Inf scale\n", __func__, ggml_type_name(type), i,
                           nblocks);
            return false;
        }
    }
    return true;
}
