// The portable (plain C) table of the CPU kernels (cpu-kernels.h, docs/cpu-kernels.md): the
// attention, conv and rope kernels of this level, and the table that gathers them with the row
// helpers (portable-vec.c) and the matrix-product kernel set (portable-gemm.c). Complete: the SIMD
// levels' gaps are filled from here.

#include "portable-kernels.h"
#include "portable-quant.h"
#include "ggml-impl.h"

#include <string.h>

//
// FLASH_ATTN_EXT (see the x86 levels for the contract): F32 K rows through the row helper's dot
// product, F16/BF16 rows widened one element at a time and accumulated in double
//

static void fa_dot_portable(int nr, int64_t n, const float * const * q, const void * y, enum ggml_type ty, float * out) {
    if (ty == GGML_TYPE_F32) {
        for (int r = 0; r < nr; r++) {
            out[r] = ggml_cpu_vec_portable.dot_f32(n, q[r], (const float *) y);
        }
        return;
    }
    double a[GGML_CPU_ATTN_ROWS] = { 0.0 };
    const size_t es = ggml_type_size(ty);
    for (int64_t i = 0; i < n; i++) {
        const float kv = ggml_vec_load_elem(ty, (const char *) y + i*es);
        for (int r = 0; r < nr; r++) {
            a[r] += (double) q[r][i]*kv;
        }
    }
    for (int r = 0; r < nr; r++) {
        out[r] = (float) a[r];
    }
}

static void fa_axpy_portable(int nr, int64_t n, const float * w, const void * x, enum ggml_type tx, float * const * acc) {
    const size_t es = ggml_type_size(tx);
    for (int64_t i = 0; i < n; i++) {
        const float xv = ggml_vec_load_elem(tx, (const char *) x + i*es);
        for (int r = 0; r < nr; r++) {
            acc[r][i] += w[r]*xv;
        }
    }
}

#define ATTN_INSTANCE(NR) \
    static void attn_dot_portable_##NR(int64_t n, const float * const * q, const void * y, enum ggml_type t, float * out) { \
        fa_dot_portable(NR, n, q, y, t, out); } \
    static void attn_axpy_portable_##NR(int64_t n, const float * w, const void * x, enum ggml_type t, float * const * acc) { \
        fa_axpy_portable(NR, n, w, x, t, acc); }
ATTN_INSTANCE(1)
ATTN_INSTANCE(2)
ATTN_INSTANCE(3)
ATTN_INSTANCE(4)
#undef ATTN_INSTANCE

// CONV_2D tile (ggml_cpu_conv2d_tile_fn)
static void conv2d_tile_portable(int64_t K, const float * const w[4], const float * colsT, int64_t P, int64_t p0, float out[4][16]) {
    for (int o = 0; o < 4; o++) {
        for (int i = 0; i < 16; i++) {
            out[o][i] = 0.0f;
        }
    }
    const float * c = colsT + p0;
    for (int64_t k = 0; k < K; k++, c += P) {
        for (int o = 0; o < 4; o++) {
            const float wk = w[o][k];
            for (int i = 0; i < 16; i++) {
                out[o][i] += wk*c[i];
            }
        }
    }
}

// ROPE rotations (ggml_cpu_rope_normal_fn, ggml_cpu_rope_half_fn)
static void rope_normal_portable(int64_t n, const float * x, float * y, const float * cc, const float * ss) {
    for (int64_t j = 0; j < n; j += 2) {
        const float x0 = x[j], x1 = x[j + 1];
        y[j]     = x0*cc[j] + x1*ss[j];
        y[j + 1] = x1*cc[j + 1] + x0*ss[j + 1];
    }
}

static void rope_half_portable(int64_t n, int64_t half, const float * x, float * y, const float * c, const float * s) {
    for (int64_t p = 0; p < n; p++) {
        const float x0 = x[p], x1 = x[p + half];
        y[p]        = x0*c[p] - x1*s[p];
        y[p + half] = x0*s[p] + x1*c[p];
    }
}

const struct ggml_cpu_kernels ggml_cpu_kernels_portable = {
    .level       = GGML_CPU_ISA_PORTABLE,
    .name        = "portable",
    .vec         = &ggml_cpu_vec_portable,
    .mm          = &ggml_cpu_mm_portable,
    .gemv_cols   = ggml_cpu_gemv_cols_portable,
    .attn_dot    = { NULL, attn_dot_portable_1, attn_dot_portable_2, attn_dot_portable_3, attn_dot_portable_4 },
    .attn_axpy   = { NULL, attn_axpy_portable_1, attn_axpy_portable_2, attn_axpy_portable_3, attn_axpy_portable_4 },
    .conv2d_tile = conv2d_tile_portable,
    .rope_normal = rope_normal_portable,
    .rope_half   = rope_half_portable,
    .fwht        = ggml_cpu_fwht_portable,
    // quantized dot products (portable-quant.c); a type whose slot is NULL here is refused by
    // supports_op
    .quant       = GGML_CPU_QUANT_PORTABLE_SLOTS,
};
