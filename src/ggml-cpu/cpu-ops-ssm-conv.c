// SSM_CONV in tiles, and SSM_CONV + ADD (a bias per channel) + SILU as one node (cpu-ops-fused.h).
//
// out[r, t, s] = sum_i sx[t + i, r, s]*c[i, r]: the result's rows run over channels r, the sources'
// over time t, so a channel-by-channel walk writes the result with a stride of a whole row per
// token. Here the work is cut into tiles of SSMC_CH channels x SSMC_TOK tokens: per channel the
// sums of all the tile's tokens at once, one tap at a time over the adjacent tokens (the row
// helpers' mad_f32: a fused multiply-add on the SIMD levels), into a small buffer laid out like
// the result, then copied out row by row. Each sum is 0 + x0*c0 + x1*c1 + ..., in that order.
//
// The fused node computes a tile as above, then adds the bias and applies silu to the tile's rows
// with the row helpers that the ADD and UNARY nodes use (exact float sums; silu_f32 on pieces of
// the rows that start on multiples of 16, which gives it the groups the whole row gives it, see
// SSMC_CH), so its results equal the three nodes' bit for bit.
// Every result of the chain is written (a later node may read the conv or the sum), but a tensor
// sharing its memory with a later one of the chain (the allocator's in-place reuse) only once, by
// the last.

#include "cpu-ops-fused.h"
#include "ggml-cpu-vec.h"

#include <string.h>

// a multiple of 16: the AVX2 silu row helper's value of an element depends on its group of 16
// from the row's start (avx2-vec.c), so the fused node's pieces of a row must start on one
#define SSMC_CH  32
#define SSMC_TOK 128

// packed source rows (the tiles read them as arrays), a float result with adjacent elements
static bool ssmc_packed(const struct ggml_tensor * conv) {
    const struct ggml_tensor * sx = conv->src[0], * c = conv->src[1];
    return sx != NULL && c != NULL && sx->type == GGML_TYPE_F32 && c->type == GGML_TYPE_F32 &&
           conv->type == GGML_TYPE_F32 && sx->nb[0] == sizeof(float) && c->nb[0] == sizeof(float) &&
           conv->nb[0] == sizeof(float) && sx->nb[1] % sizeof(float) == 0 && c->nb[1] % sizeof(float) == 0 &&
           conv->nb[1] % sizeof(float) == 0;
}

bool ggml_cpu_ssm_conv_tiled_applies(const struct ggml_tensor * conv) {
    return conv->op == GGML_OP_SSM_CONV && ssmc_packed(conv);
}

static int64_t ssmc_units(const struct ggml_tensor * conv, int64_t * n_ch, int64_t * n_tok) {
    *n_ch  = (conv->ne[0] + SSMC_CH - 1)/SSMC_CH;
    *n_tok = (conv->ne[1] + SSMC_TOK - 1)/SSMC_TOK;
    return *n_ch * *n_tok * conv->ne[2];
}

// the conv of unit u into buf[t][ch] (SSMC_CH floats per token); sets the tile's origin and size
static void ssmc_tile(const struct ggml_vec_funcs * vf, const struct ggml_tensor * conv, int64_t u, float buf[SSMC_TOK][SSMC_CH],
                      int64_t * ch0, int64_t * nch, int64_t * t0, int64_t * ntok, int64_t * s) {
    const struct ggml_tensor * sx = conv->src[0], * c = conv->src[1];
    int64_t n_ch, n_tok;
    ssmc_units(conv, &n_ch, &n_tok);
    // the tokens fastest: one channel tile's source rows are read front to back, while in cache
    *t0   = (u % n_tok)*SSMC_TOK;
    *ch0  = ((u / n_tok) % n_ch)*SSMC_CH;
    *s    = u / (n_ch*n_tok);
    *nch  = conv->ne[0] - *ch0 < SSMC_CH ? conv->ne[0] - *ch0 : SSMC_CH;
    *ntok = conv->ne[1] - *t0 < SSMC_TOK ? conv->ne[1] - *t0 : SSMC_TOK;
    const int64_t nc = c->ne[0], nt = *ntok;
    float acc[SSMC_TOK];
    for (int64_t k = 0; k < *nch; k++) {
        const int64_t r = *ch0 + k;
        const float * x = (const float *) (const void *) ((const char *) sx->data + (size_t) r*sx->nb[1] +
                                                          (size_t) *s*sx->nb[2]) + *t0;
        const float * w = (const float *) (const void *) ((const char *) c->data + (size_t) r*c->nb[1]);
        // all the tile's tokens of the channel, one tap at a time (a multiply-add of the row helpers)
        memset(acc, 0, (size_t) nt*sizeof(float));
        for (int64_t i = 0; i < nc; i++) {
            vf->mad_f32(nt, acc, x + i, w[i]);
        }
        for (int64_t j = 0; j < nt; j++) {
            buf[j][k] = acc[j];
        }
    }
}

static float * ssmc_row(const struct ggml_tensor * t, int64_t ch0, int64_t tok, int64_t s) {
    return (float *) (void *) ((char *) t->data + (size_t) tok*t->nb[1] + (size_t) s*t->nb[2]) + ch0;
}

void ggml_cpu_ssm_conv_tiled(const struct ggml_vec_funcs * vf, const struct ggml_tensor * conv, int ith, int nth) {
    int64_t n_ch, n_tok, u0, u1;
    ggml_cpu_split_range(ssmc_units(conv, &n_ch, &n_tok), ith, nth, &u0, &u1);
    float buf[SSMC_TOK][SSMC_CH];
    for (int64_t u = u0; u < u1; u++) {
        int64_t ch0, nch, t0, ntok, s;
        ssmc_tile(vf, conv, u, buf, &ch0, &nch, &t0, &ntok, &s);
        for (int64_t j = 0; j < ntok; j++) {
            memcpy(ssmc_row(conv, ch0, t0 + j, s), buf[j], (size_t) nch*sizeof(float));
        }
    }
}

// a float tensor of conv's shape with adjacent elements along rows
static bool ssmc_like(const struct ggml_tensor * t, const struct ggml_tensor * conv) {
    return t->type == GGML_TYPE_F32 && ggml_are_same_shape(t, conv) && t->nb[0] == sizeof(float) &&
           t->nb[1] % sizeof(float) == 0 && t->data != NULL;
}

bool ggml_cpu_fused_ssm_conv_applies(const struct ggml_tensor * conv, const struct ggml_tensor * add,
                                     const struct ggml_tensor * silu) {
    if (conv == NULL || silu == NULL || !ggml_cpu_ssm_conv_tiled_applies(conv) || silu->op != GGML_OP_UNARY ||
        ggml_get_unary_op(silu) != GGML_UNARY_OP_SILU || silu->src[0] != (add != NULL ? add : conv) ||
        !ssmc_like(silu, conv)) {
        return false;
    }
    if (add == NULL) {
        return true;
    }
    const struct ggml_tensor * bias = add->src[1];
    return add->op == GGML_OP_ADD && add->src[0] == conv && bias != NULL && bias != conv && ssmc_like(add, conv) &&
           bias->type == GGML_TYPE_F32 && bias->ne[0] == conv->ne[0] && bias->ne[1] == 1 && bias->ne[2] == 1 &&
           bias->ne[3] == 1 && bias->nb[0] == sizeof(float) && bias->data != NULL;
}

void ggml_cpu_fused_ssm_conv_forward(const struct ggml_compute_params * params, struct ggml_tensor * conv,
                                     struct ggml_tensor * add, struct ggml_tensor * silu) {
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    const float * bias = add != NULL ? (const float *) add->src[1]->data : NULL;
    // results written by a later tensor of the chain anyway are left to it
    const bool put_conv = conv->data != silu->data && (add == NULL || conv->data != add->data);
    const bool put_add  = add != NULL && add->data != silu->data;
    int64_t n_ch, n_tok, u0, u1;
    ggml_cpu_split_range(ssmc_units(conv, &n_ch, &n_tok), params->ith, params->nth, &u0, &u1);
    float buf[SSMC_TOK][SSMC_CH];
    for (int64_t u = u0; u < u1; u++) {
        int64_t ch0, nch, t0, ntok, s;
        ssmc_tile(vf, conv, u, buf, &ch0, &nch, &t0, &ntok, &s);
        for (int64_t j = 0; j < ntok; j++) {
            float * row = buf[j];
            if (put_conv) {
                memcpy(ssmc_row(conv, ch0, t0 + j, s), row, (size_t) nch*sizeof(float));
            }
            if (bias != NULL) {
                vf->add_f32(nch, row, row, bias + ch0);
                if (put_add) {
                    memcpy(ssmc_row(add, ch0, t0 + j, s), row, (size_t) nch*sizeof(float));
                }
            }
            vf->silu_f32(nch, ssmc_row(silu, ch0, t0 + j, s), row);
        }
    }
}
