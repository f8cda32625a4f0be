// The blocked GEMM driver and the generic (any stride, any type) packers of the matrix-product
// family. See matmul-impl.h for the layouts; the kernel sets live under arch/.

#include "matmul-impl.h"
#include "ggml-impl.h"

#include <math.h>
#include <string.h>

void ggml_mm_unknown_type(enum ggml_type type, float * out, int64_t nn, int nb, int64_t ldo) {
    GGML_LOG_ERROR("%s: type %d is not a matrix-product type (supports_op must refuse it)\n", __func__, (int) type);
    for (int m = 0; m < nb; m++) {
        for (int64_t i = 0; i < nn; i++) {
            out[m*ldo + i] = NAN;
        }
    }
}

//
// element conversion
//

void ggml_mm_load_f32(enum ggml_type type, const char * p, int64_t stride, int64_t n, float * out) {
    if (n <= 0) {
        return;
    }
    const int64_t es = (int64_t) ggml_mm_type_size(type);
    if (stride == es) {
        switch (type) {
            case GGML_TYPE_F32:  memcpy(out, p, (size_t) n*sizeof(float)); return;
            case GGML_TYPE_F16:  ggml_fp16_to_fp32_row((const ggml_fp16_t *)(const void *) p, out, n); return;
            case GGML_TYPE_BF16: ggml_bf16_to_fp32_row((const ggml_bf16_t *)(const void *) p, out, n); return;
            default: break;
        }
    }
    switch (type) {
        case GGML_TYPE_F32:
            for (int64_t i = 0; i < n; i++) {
                memcpy(&out[i], p + i*stride, sizeof(float));
            }
            break;
        case GGML_TYPE_F16:
            for (int64_t i = 0; i < n; i++) {
                ggml_fp16_t h;
                memcpy(&h, p + i*stride, sizeof(h));
                out[i] = ggml_fp16_to_fp32(h);
            }
            break;
        case GGML_TYPE_BF16:
            for (int64_t i = 0; i < n; i++) {
                ggml_bf16_t h;
                memcpy(&h, p + i*stride, sizeof(h));
                out[i] = ggml_bf16_to_fp32(h);
            }
            break;
        default:
            // unreachable past ggml_cpu_matmul_supports
            ggml_mm_unknown_type(type, out, n, 1, 0);
            break;
    }
}

//
// generic packers
//

void ggml_mm_pack_a_generic(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t k0, int64_t kc, int nr, float * ap) {
    const int64_t es = (int64_t) ggml_mm_type_size(a->type);
    float tmp[GGML_MM_KC > GGML_MM_NR_MAX ? GGML_MM_KC : GGML_MM_NR_MAX];
    for (int64_t p0 = 0; p0 < nn; p0 += nr) {
        const int64_t cnt = MIN((int64_t) nr, nn - p0);
        float * dst = ap + (p0/nr)*kc*nr;
        const char * base = a->data + (n0 + p0)*a->s_r + k0*a->s_k;
        if (a->s_k == es || a->s_r != es) {
            // column by column (rows of A are contiguous along k, or nothing is contiguous)
            for (int64_t j = 0; j < cnt; j++) {
                ggml_mm_load_f32(a->type, base + j*a->s_r, a->s_k, kc, tmp);
                for (int64_t k = 0; k < kc; k++) {
                    dst[k*nr + j] = tmp[k];
                }
            }
        } else {
            // A contiguous along n (OUT_PROD, transposed views): copy runs of cnt columns per k
            for (int64_t k = 0; k < kc; k++) {
                ggml_mm_load_f32(a->type, base + k*a->s_k, a->s_r, cnt, dst + k*nr);
            }
        }
        if (cnt < nr) {
            for (int64_t k = 0; k < kc; k++) {
                memset(dst + k*nr + cnt, 0, (size_t)(nr - cnt)*sizeof(float));
            }
        }
    }
}

void ggml_mm_pack_b(const struct ggml_mm_src * b, int64_t m0, int64_t mr, int64_t k0, int64_t kc, int MR, float * bp) {
    const int64_t es = (int64_t) ggml_mm_type_size(b->type);
    const char * base = b->data + m0*b->s_r + k0*b->s_k;
    if (b->s_k == es || b->s_r != es) {
        for (int64_t i = 0; i < mr; i++) {
            ggml_mm_load_f32(b->type, base + i*b->s_r, b->s_k, kc, bp + i*GGML_MM_KC);
        }
    } else {
        // B contiguous along m: read mr values per k and scatter them to the rows
        float tmp[GGML_MM_MR_MAX];
        for (int64_t k = 0; k < kc; k++) {
            ggml_mm_load_f32(b->type, base + k*b->s_k, b->s_r, mr, tmp);
            for (int64_t i = 0; i < mr; i++) {
                bp[i*GGML_MM_KC + k] = tmp[i];
            }
        }
    }
    for (int64_t i = mr; i < MR; i++) {
        memset(bp + i*GGML_MM_KC, 0, (size_t) kc*sizeof(float));
    }
}

//
// the driver
//

// Loop order (BLIS's, with the roles of the operands named as in matmul-impl.h): for each k block,
// the A block (up to MM_NC columns, L3) is packed once; for each block of up to MM_MC rows of B,
// those rows are packed as micro-panels (L2); then for each A panel (NR columns x kc, read once
// from L3 and kept in L1) every B micro-panel of the block streams from L2 through the kernel. Per
// k step the kernel then reads MR floats from L2 and the 2 vectors of A from L1, instead of the
// other way round (the A block swept from L2 for every B micro-panel, where 512 x 256 floats did
// not even fit).

void ggml_mm_gemm_block(const struct ggml_mm_kernels * kr, const struct ggml_mm_src * a, const struct ggml_mm_src * b,
                        int64_t m0, int64_t mm, int64_t n0, int64_t nn, int64_t K,
                        float * c, int64_t ldc, float * scratch) {
    const int MR = kr->mr;
    const int NR = kr->nr;
    float * apack = scratch;
    float * bpack = apack + (size_t) GGML_MM_NC*GGML_MM_KC;
    float * tile  = bpack + (size_t) GGML_MM_MC*GGML_MM_KC;
    const int64_t mcb = GGML_MM_MC/MR*MR; // rows of B per packed block, whole micro-panels

    if (K <= 0) {
        for (int64_t i = 0; i < mm; i++) {
            memset(c + i*ldc, 0, (size_t) nn*sizeof(float));
        }
        return;
    }

    for (int64_t k0 = 0; k0 < K; k0 += GGML_MM_KC) {
        const int64_t kc  = MIN((int64_t) GGML_MM_KC, K - k0);
        const bool    acc = k0 > 0;
        kr->pack_a(a, n0, nn, k0, kc, apack);
        for (int64_t i0 = 0; i0 < mm; i0 += mcb) {
            const int64_t mc = MIN(mcb, mm - i0);
            for (int64_t i = 0; i < mc; i += MR) {
                ggml_mm_pack_b(b, m0 + i0 + i, MIN((int64_t) MR, mc - i), k0, kc, MR, bpack + (i/MR)*MR*GGML_MM_KC);
            }
            for (int64_t j = 0; j < nn; j += NR) {
                const int64_t nr = MIN((int64_t) NR, nn - j);
                const float * ap = apack + (j/NR)*kc*NR;
                for (int64_t i = 0; i < mc; i += MR) {
                    const int64_t mr = MIN((int64_t) MR, mc - i);
                    const float * bp = bpack + (i/MR)*MR*GGML_MM_KC;
                    float *       cp = c + (i0 + i)*ldc + j;
                    if (mr == MR && nr == NR) {
                        kr->kernel(kc, bp, ap, cp, ldc, acc);
                        continue;
                    }
                    // edge tile: compute the full tile aside, keep the valid part
                    kr->kernel(kc, bp, ap, tile, NR, false);
                    for (int64_t ii = 0; ii < mr; ii++) {
                        float *       crow = cp + ii*ldc;
                        const float * trow = tile + ii*NR;
                        if (acc) {
                            for (int64_t jj = 0; jj < nr; jj++) {
                                crow[jj] += trow[jj];
                            }
                        } else {
                            memcpy(crow, trow, (size_t) nr*sizeof(float));
                        }
                    }
                }
            }
        }
    }
}
