#pragma once

// The CPU backend's SIMD kernels: one table per instruction set (docs/cpu-kernels.md).
//
// Every instruction-set-specific line of the backend lives under arch/: arch/portable/ (plain C,
// every machine), arch/x86/avx2*.c, arch/x86/avx512*.c. Each level exports ONE table,
// struct ggml_cpu_kernels, and the op files (cpu-ops-*.c) call through the table they get from
// ggml_cpu_kernels_get(); they hold no intrinsics and make no ISA decision of their own.
//
// A level's table may leave members NULL: cpu-kernels.c fills each gap from the next lower level
// (AVX-512 from AVX2, AVX2 from portable) when it builds the complete tables, once per process.
// The portable table must be complete, except for the quantized slots (see quant below).

#include "ggml.h"
#include "ggml-cpu-isa.h"
#include "ggml-cpu-vec.h"
#include "matmul-impl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// FLASH_ATTN_EXT (cpu-ops-attn.c): most query rows that share one K/V row in a kernel call
#define GGML_CPU_ATTN_ROWS 4

// out[r] = dot(q[r][0..n), y[0..n)) for the nr query rows (nr fixed by the table slot); y of type
// t (F32, F16 or BF16), widened to float.
typedef void (*ggml_cpu_attn_dot_fn)(int64_t n, const float * const * q, const void * y, enum ggml_type t, float * out);
// acc[r][0..n) += w[r] * x[0..n) for the nr rows; x of type t (F32, F16 or BF16).
typedef void (*ggml_cpu_attn_axpy_fn)(int64_t n, const float * w, const void * x, enum ggml_type t, float * const * acc);

// CONV_2D tile (cpu-ops-conv.c): out[o][p] = sum_k w[o][k]*colsT[k*P + p0 + p] for the 4 kernel
// rows w[0..3] (K floats each) and the 16 positions p < 16 (colsT has P >= p0 + 16 columns).
typedef void (*ggml_cpu_conv2d_tile_fn)(int64_t K, const float * const w[4], const float * colsT, int64_t P, int64_t p0,
        float out[4][16]);

// ROPE rotations (cpu-ops-rope.c; y may be x):
// NORMAL: adjacent pairs (j, j+1) over the first n (even) elements, with per-element factors
//     y[j] = x[j]*cc[j] + x[j+1]*ss[j],  y[j+1] = x[j+1]*cc[j+1] + x[j]*ss[j+1]
typedef void (*ggml_cpu_rope_normal_fn)(int64_t n, const float * x, float * y, const float * cc, const float * ss);
// NEOX and the multi-section modes: pairs (p, p + half) for p < n
//     y[p] = x[p]*c[p] - x[p+half]*s[p],  y[p+half] = x[p]*s[p] + x[p+half]*c[p]
typedef void (*ggml_cpu_rope_half_fn)(int64_t n, int64_t half, const float * x, float * y, const float * c, const float * s);

// Walsh-Hadamard transform (MUL_MAT with GGML_HINT_SRC0_IS_HADAMARD, cpu-ops-hadamard.c): y = H (s x)
// for n a power of two, H the Sylvester matrix (H[i][j] = (-1)^popcount(i & j)); x is scaled first,
// then log2(n) butterfly stages (u + v, u - v), pair distance 1, 2, 4, ... Every level gives the
// same bits (each element of each stage one rounded sum). y may be x.
typedef void (*ggml_cpu_fwht_fn)(int64_t n, float * y, const float * x, float s);

// The few-columns matrix product (MUL_MAT with a few rows of B: small batches, speculative
// decoding): out[m*ldo + i] = dot(A row n0+i, b[m]) for i < nn, m < nb, the ggml_mm_gemv_fn
// contract (matmul-impl.h) with nb from 1 to GGML_MM_COLS_MAX. Every weight is read from memory
// once for all nb columns (k-blocked so that the B block stays in L2). cpu-ops-matmul.c uses it
// for 5 .. GGML_MM_COLS_MAX rows; the GEMV kernel (mm->gemv) already does so for 1 .. 4.
#define GGML_MM_COLS_MAX 16
typedef ggml_mm_gemv_fn ggml_cpu_gemv_cols_fn;
// The same product with the first nh rows of B read from copies rounded to F16 (bh[m], m < nh;
// b[m] for the others): half the bytes of B per multiply-add, where an AVX2 core's few-columns
// product is bound by moving B from L2 to L1, at the price of widening B too (worth it in passes
// of 4 rows of B). The caller owns the rounding and its error bound (cpu-ops-matmul.c).
typedef void (*ggml_cpu_gemv_cols_h_fn)(const struct ggml_mm_src * a, int64_t n0, int64_t nn, int64_t K,
                                        const float * const * b, const ggml_fp16_t * const * bh, int nh, int nb,
                                        float * out, int64_t ldo);

// Quantized dot products (the extension point for quantized types; empty today). The signature
// is the family's ggml_vec_dot_t (ggml-cpu.h): s[0] = dot of n elements of the weight row x (the
// slot's type) with the activation row y (of type vec_dot_type, e.g. Q8_0 for Q4_0); bs, bx, by
// and nrc are for kernels that compute several rows at once (nrc == 1: one result).
typedef void (*ggml_cpu_quant_dot_fn)(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by,
        int nrc);
// Activations to the activation type of a slot: k floats (a multiple of the block size) to blocks.
typedef void (*ggml_cpu_quant_from_float_fn)(const float * x, void * y, int64_t k);
// A register tile of the quantized product: s[c*bs + r] = dot(weight row x + r*bx, activation row
// y + c*by) for r < nr <= GGML_CPU_QTILE_ROWS and c < nc <= GGML_CPU_QTILE_COLS (bs in floats, bx
// and by in bytes); the same sums as vec_dot, with weight unpacking and activation loads shared.
#define GGML_CPU_QTILE_ROWS 4
#define GGML_CPU_QTILE_COLS 8
typedef void (*ggml_cpu_quant_tile_fn)(int n, float * s, size_t bs, const void * x, size_t bx, const void * y, size_t by,
        int nr, int nc);
// Decode (one activation column): s[r] = dot(weight row x + r*bx, activation row y) for any nr >= 1,
// the rows streamed in order (MUL_MAT passes a chunk of consecutive rows); reads vec_dot_type.
typedef void (*ggml_cpu_quant_gemv_fn)(int n, float * s, const void * x, size_t bx, const void * y, int nr);
// Prompt products of the formats whose weights cost more to unpack than to multiply (the grid
// formats): nr weight rows of n elements unpacked once into a panel (row r at panel + r*
// GGML_CPU_QPANEL_ROW_BYTES(n), GGML_CPU_QPANEL_BLOCK bytes per 256 weights, the layout private to
// the level's kernels), then s[c*bs + r] = dot(panel row r, activation row y + c*by) for any
// nr >= 1 and nc <= GGML_CPU_QTILE_COLS, as many times as there are column groups. The sums are
// the tile's (same order: bit-identical where the level's tile uses the same unpacking).
#define GGML_CPU_QPANEL_BLOCK 320
#define GGML_CPU_QPANEL_ROW_BYTES(n) ((size_t) ((n)/256)*GGML_CPU_QPANEL_BLOCK)
typedef void (*ggml_cpu_quant_unpack_fn)(int n, void * panel, const void * x, size_t bx, int nr);
typedef void (*ggml_cpu_quant_tile_panel_fn)(int n, float * s, size_t bs, const void * panel, const void * y, size_t by,
        int nr, int nc);

struct ggml_cpu_quant_kernels {
    enum ggml_type               vec_dot_type; // the activation type vec_dot reads (set with vec_dot)
    ggml_cpu_quant_dot_fn        vec_dot;      // NULL: this level has no kernel for the type
    ggml_cpu_quant_from_float_fn from_float;   // for slots that are activation types (Q8_0, Q8_1, Q8_K)
    ggml_cpu_quant_tile_fn       tile;         // optional (NULL: MUL_MAT loops over vec_dot); reads vec_dot_type
    ggml_cpu_quant_gemv_fn       gemv;         // optional decode kernel (NULL: the tile or vec_dot); reads vec_dot_type
    ggml_cpu_quant_unpack_fn     unpack;       // optional, with tile_panel (both or neither): MUL_MAT's prompt
    ggml_cpu_quant_tile_panel_fn tile_panel;   // path where set (else the tile); reads vec_dot_type
};

struct ggml_cpu_kernels {
    enum ggml_cpu_isa_level level;
    const char *            name;

    // row helpers: element-wise ops, activations, reductions, conversions (ggml-cpu-vec.h)
    const struct ggml_vec_funcs *  vec;
    // GEMM micro-kernel, A packer and GEMV of the float types (matmul-impl.h); replaced as a whole
    const struct ggml_mm_kernels * mm;
    // matrix product with up to GGML_MM_COLS_MAX rows of B, F32/F16/BF16 weights (see above)
    ggml_cpu_gemv_cols_fn gemv_cols;
    // optional, and NOT filled from a lower level (a level's own gemv_cols is preferred to a lower
    // level's gemv_cols_h): NULL where the level has none
    ggml_cpu_gemv_cols_h_fn gemv_cols_h;

    // FLASH_ATTN_EXT: slot r (1 .. GGML_CPU_ATTN_ROWS) serves r query rows; slot 0 is unused
    ggml_cpu_attn_dot_fn  attn_dot [GGML_CPU_ATTN_ROWS + 1];
    ggml_cpu_attn_axpy_fn attn_axpy[GGML_CPU_ATTN_ROWS + 1];

    ggml_cpu_conv2d_tile_fn conv2d_tile;

    ggml_cpu_rope_normal_fn rope_normal;
    ggml_cpu_rope_half_fn   rope_half;

    ggml_cpu_fwht_fn fwht;

    // indexed by the weight type (GGML_TYPE_Q4_0 ...); all NULL today. A level fills the slots of
    // the types it has kernels for; gaps come from the lower level like every other member, and
    // an op must refuse (supports_op) a type whose slot stays NULL in the portable table.
    struct ggml_cpu_quant_kernels quant[GGML_TYPE_COUNT];
};

// The complete table of the level in use (ggml_cpu_isa()), or of the portable level when use_ref
// is true. Built once (thread-safe); never NULL.
const struct ggml_cpu_kernels * ggml_cpu_kernels_get(bool use_ref);

// The complete table of `level`, capped at ggml_cpu_isa() (so never one this CPU cannot run).
const struct ggml_cpu_kernels * ggml_cpu_kernels_level(enum ggml_cpu_isa_level level);

//
// Internal: the tables as each level defines them (with gaps), for cpu-kernels.c only.
//
extern const struct ggml_cpu_kernels ggml_cpu_kernels_portable;
#if GGML_CPU_X86
extern const struct ggml_cpu_kernels ggml_cpu_kernels_avx2;
extern const struct ggml_cpu_kernels ggml_cpu_kernels_avx512;
#endif

// *t = own with every gap filled from the complete table `lower`, its row helpers completed into
// *vec (t->vec = vec). cpu-kernels.c builds each level with it; the tests build the emulated
// AVX-512 table with it (tests/avx512-emu/).
void ggml_cpu_kernels_complete(struct ggml_cpu_kernels * t, struct ggml_vec_funcs * vec,
                               const struct ggml_cpu_kernels * own, const struct ggml_cpu_kernels * lower);

#ifdef __cplusplus
}
#endif
