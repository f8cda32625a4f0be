#pragma once

// Internals of the CPU matrix-product family (cpu-ops-matmul.c): a packed, cache-blocked GEMM and a
// streaming matrix-vector kernel, with one kernel set per SIMD level.
//
// Both ops reduce to one form. C is an M x N block of floats, row m at c + m*ldc:
//     C[m][n] = sum_k B(m, k) * A(n, k)
// A(n, k) and B(m, k) are read through byte strides (struct ggml_mm_src), so MUL_MAT (A = the
// weights, rows along k) and OUT_PROD (A read with n contiguous) and any permuted view share
// the same code. The vector direction of the micro-kernels is n (C's contiguous direction); the
// kernels broadcast B.
//
// Packing (per thread, in the work buffer):
//   * A block: up to MM_NC columns x MM_KC k, as panels of NR columns laid out [k][NR] (zero-padded
//     past the last column); F16/BF16 converted to F32 here. The block sits in L3; each panel is
//     brought to L1 once per B block and stays there while every B micro-panel of it passes.
//   * B block: up to MM_MC rows as micro-panels of MR rows laid out [MR][MM_KC] (row i at
//     i*MM_KC, zero rows past the end), kept in L2 and streamed through L1 by the micro-kernel.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-isa.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// k depth of a packed block (also the row stride of a packed B micro-panel)
#define GGML_MM_KC      256
// most columns of A in one packed block (a multiple of every kernel's NR)
#define GGML_MM_NC      512
// most rows of B in one packed block (kept in L2; a multiple of every kernel's MR)
#define GGML_MM_MC      240
// largest register tile of any kernel set
#define GGML_MM_MR_MAX  16
#define GGML_MM_NR_MAX  64
// matrix-vector path: up to this many rows of B (activations)
#define GGML_MM_GEMV_M  4

// One operand: element (r, k) is at data + r*s_r + k*s_k (bytes), of type F32, F16 or BF16.
struct ggml_mm_src {
    const char *   data;
    enum ggml_type type;
    int64_t        s_r;
    int64_t        s_k;
};

// C[0..MR)[0..NR) (row stride ldc) = (acc ? C + : ) B-panel x A-panel over kc steps.
typedef void (*ggml_mm_kernel_fn)(int64_t kc, const float * bp, const float * ap, float * c, int64_t ldc, bool acc);
// Packs columns n0..n0+nn of A, k0..k0+kc, as ceil(nn/NR) panels [kc][NR] (panel p at ap + p*kc*NR).
typedef void (*ggml_mm_pack_a_fn)(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t k0, int64_t kc, float * ap);
// Matrix-vector: out[m*ldo + i] = dot(A row n0+i, b[m]) for i < nn, m < nb; A rows contiguous
// along k (s_k = element size), b[m] K contiguous floats.
typedef void (*ggml_mm_gemv_fn)(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                const float * const * b, int nb, float * out, int64_t ldo);

struct ggml_mm_kernels {
    const char *      name;
    int               mr;   // rows of C per micro-tile (B rows)
    int               nr;   // columns of C per micro-tile (A columns)
    ggml_mm_kernel_fn kernel;
    ggml_mm_pack_a_fn pack_a;
    ggml_mm_gemv_fn   gemv;
};

// The kernel set of each level is the mm member of that level's struct ggml_cpu_kernels
// (cpu-kernels.h; sources under arch/).

// Floats of per-thread scratch that ggml_mm_gemm_block needs.
#define GGML_MM_GEMM_SCRATCH ((size_t) GGML_MM_NC*GGML_MM_KC + (size_t) GGML_MM_MC*GGML_MM_KC + \
                              (size_t) GGML_MM_MR_MAX*GGML_MM_NR_MAX + 64)

// C (mm x nn at c, row stride ldc) = B rows m0..m0+mm times A columns n0..n0+nn, over k in [0, K).
// nn <= GGML_MM_NC. scratch: GGML_MM_GEMM_SCRATCH floats, 64-byte aligned.
void ggml_mm_gemm_block(const struct ggml_mm_kernels * kr, const struct ggml_mm_src * a, const struct ggml_mm_src * b,
                        int64_t m0, int64_t mm, int64_t n0, int64_t nn, int64_t K,
                        float * c, int64_t ldc, float * scratch);

//
// shared helpers for the kernel files
//

// Generic packers, any strides and types (the SIMD sets use them for edges and odd layouts).
void ggml_mm_pack_a_generic(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t k0, int64_t kc, int nr, float * ap);
// B rows m0..m0+mr (mr <= MR), k0..k0+kc into bp[i*GGML_MM_KC + k]; rows mr..MR-1 zeroed.
void ggml_mm_pack_b(const struct ggml_mm_src * b, int64_t m0, int64_t mr, int64_t k0, int64_t kc, int MR, float * bp);

// n elements starting at p, `stride` bytes apart, of type `type`, converted to floats.
void ggml_mm_load_f32(enum ggml_type type, const char * p, int64_t stride, int64_t n, float * out);

// Element size of the types this family computes; 0 for any other type. ggml_cpu_matmul_supports
// admits only these three, so no other type reaches the kernels; should one do so anyway, the
// loaders below log an error and produce NaN (never zeros that look like a result).
static inline size_t ggml_mm_type_size(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:  return sizeof(float);
        case GGML_TYPE_F16:  return sizeof(ggml_fp16_t);
        case GGML_TYPE_BF16: return sizeof(ggml_bf16_t);
        default:             return 0;
    }
}

// The defensive path for a type no kernel reads: logs the error and fills the nn x nb results
// (out[m*ldo + i]) with NaN.
void ggml_mm_unknown_type(enum ggml_type type, float * out, int64_t nn, int nb, int64_t ldo);

#ifdef __cplusplus
}
#endif
