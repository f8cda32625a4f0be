#pragma once

// Double-precision reference for single graph nodes.
//
// The reference computes ONE node from the host data of its sources, in double precision, with
// plain loops written for clarity rather than speed. It shares no code with any backend: it only
// reads a node's sources, op and op_params (laid out as docs/op-params.md describes) and calls
// the query and fp16/bf16 conversion functions of ggml.h. Every backend is checked against it.
//
// Conventions
//   * Results are the mathematically exact values in double: they are NOT rounded to the node's
//     type, except for the pure data-movement ops (DUP, CONT, CPY, SET, SET_ROWS, IM2COL, GET_ROWS,
//     REPEAT, CONCAT, PAD, views), whose values are converted to the node's type as storing them
//     would (float -> integer conversion truncates toward zero), so those can be compared exactly.
//   * Where the family's CPU code computes something in float, the reference uses the exact
//     formula (e.g. softplus = log(1 + e^x) for every x, K*Q with Q not rounded to K's type).
//   * Index outputs (ARGMAX, ARGSORT, TOP_K) are written as doubles holding the integer indices.
//     ARGMAX resolves ties to the LAST maximal index (as the family's CPU code does); ARGSORT and
//     TOP_K keep the lower index first among equal values.
//   * POOL_2D AVG divides by k0*k1 (padding counted), as every backend of the family does; MAX
//     over a window with no in-bounds element gives -FLT_MAX.

#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Computes `node` from its sources. Sources (node->src[i]) must have host-readable data with
// their own ne/nb strides (views, permuted and non-contiguous tensors are all allowed) and types
// F32, F16, BF16, F64, I32, I64 (I8/I16 where it makes sense). Nodes that read their own memory
// must have host-readable data too, holding the values from before the node is computed:
//   - NONE, RESHAPE, VIEW, PERMUTE, TRANSPOSE: the output is the node's own contents read
//     through its own ne/nb (node->data);
//   - SET_ROWS: the rows not written keep the node's current contents (node->data, or when that
//     is NULL, node->view_src->data + node->view_offs, read with the node's ne/nb).
// In-place variants need nothing special: their source 0 is the tensor they overwrite.
// Writes ggml_nelements(node) doubles to out in row-major order of node->ne
// (index i0 + ne0*(i1 + ne1*(i2 + ne2*i3))).
// Returns false (and writes an explanation to err, if err != NULL) for ops/types it does not
// cover and for inconsistent nodes (shapes, missing sources, out-of-range indices).
bool ggml_ref_compute(const struct ggml_tensor * node, double * out, char * err, size_t err_size);

// Whether ggml_ref_compute covers this node's op (and unary/glu sub-op, rope mode, pool op) and
// the types of its sources and result. A true answer does not validate shapes.
bool ggml_ref_supports(const struct ggml_tensor * node);

// The ops covered, for tools that iterate over them: *n receives the count.
const enum ggml_op * ggml_ref_ops(int * n);
// Every unary op (GGML_UNARY_OP_*) and glu op (GGML_GLU_OP_*) below the COUNT values is covered.
bool ggml_ref_unary_covered(enum ggml_unary_op op);
bool ggml_ref_glu_covered(enum ggml_glu_op op);

// Element (i0, i1, i2, i3) of t, read at t->data + i0*nb0 + i1*nb1 + i2*nb2 + i3*nb3, for the
// types F32, F16, BF16, F64, I8, I16, I32, I64 (NAN for any other type or NULL data). The
// indices must be inside t->ne.
double ggml_ref_get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3);

// Quantized types the reference reads through the type's own dequantization (to_float), as a
// source of the ops that take quantized data: MUL_MAT and MUL_MAT_ID weights, GET_ROWS rows, and
// DUP/CONT/CPY to a readable type. The reference is then exact for the dequantized values.
bool ggml_ref_type_dequantizable(enum ggml_type type);
// Like ggml_ref_get, also reading dequantizable types (i0 is an element index within the row).
double ggml_ref_get_q(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3);
// Row (i1, i2, i3) of t, all t->ne[0] values, into out (each quantized block dequantized once).
void ggml_ref_row_q(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3, double * out);

// Normalized mean squared error: sum (ref - got)^2 / sum ref^2 over n elements.
// Elements where both sides hold the same non-finite value (both NaN, or the same infinity) count
// as equal and are left out; any other non-finite value on either side gives INFINITY.
// When the reference is all zeros the result is the plain mean squared error sum got^2 / n.
double ggml_ref_nmse(const double * ref, const float * got, int64_t n);

//
// Internal to the reference library (tests/ref/*.c define GGML_REF_INTERNAL).
//
#ifdef GGML_REF_INTERNAL

#include <string.h>

// Writes "fmt" to err (when not NULL) and returns false.
#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
bool ggml_ref_fail(char * err, size_t err_size, const char * fmt, ...);

// Types ggml_ref_get can read.
bool ggml_ref_type_readable(enum ggml_type type);
// Like ggml_ref_need_src, also admitting a dequantizable source (whose rows are whole blocks).
bool ggml_ref_need_src_q(const struct ggml_tensor * node, int i, char * err, size_t err_size);
// v converted to `type` and back, as storing it in a tensor of that type would.
double ggml_ref_round_to_type(enum ggml_type type, double v);

// Whether a node of this op may have a quantized result: the data movement ops DUP, CONT, CPY
// and SET_ROWS, whose values are stored as the type stores them (ggml_ref_round_row_to_type), and
// CONCAT (blocks copied: the sources' values).
bool ggml_ref_q_result_op(enum ggml_op op);
// The n values of one row (whole blocks for a quantized type) replaced by what storing them in
// `type` and reading them back gives: quantized with the type's reference quantizer
// (from_float_ref) and dequantized; other types element by element (ggml_ref_round_to_type).
// false for a quantized type without a reference quantizer.
bool ggml_ref_round_row_to_type(enum ggml_type type, double * row, int64_t n);

// Source i of node must exist, have data and a readable type; otherwise fails with a message.
bool ggml_ref_need_src(const struct ggml_tensor * node, int i, char * err, size_t err_size);

static inline int32_t ggml_ref_param_i32(const struct ggml_tensor * t, int i) {
    int32_t v;
    memcpy(&v, (const char *) t->op_params + i*sizeof(int32_t), sizeof(v));
    return v;
}

static inline float ggml_ref_param_f32(const struct ggml_tensor * t, int i) {
    float v;
    memcpy(&v, (const char *) t->op_params + i*sizeof(float), sizeof(v));
    return v;
}

static inline int64_t ggml_ref_nel(const struct ggml_tensor * t) {
    return t->ne[0]*t->ne[1]*t->ne[2]*t->ne[3];
}

// Row-major index of (i0, i1, i2, i3) in a tensor of t's shape.
static inline int64_t ggml_ref_idx(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return i0 + t->ne[0]*(i1 + t->ne[1]*(i2 + t->ne[2]*i3));
}

// Inverse of ggml_ref_idx.
static inline void ggml_ref_unravel(const struct ggml_tensor * t, int64_t i, int64_t idx[4]) {
    idx[0] = i % t->ne[0]; i /= t->ne[0];
    idx[1] = i % t->ne[1]; i /= t->ne[1];
    idx[2] = i % t->ne[2]; i /= t->ne[2];
    idx[3] = i;
}

static inline bool ggml_ref_same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

// Element i (row-major over t->ne) of t.
static inline double ggml_ref_get_flat(const struct ggml_tensor * t, int64_t i) {
    int64_t idx[4];
    ggml_ref_unravel(t, i, idx);
    return ggml_ref_get(t, idx[0], idx[1], idx[2], idx[3]);
}

// ALiBi slope of head h out of n_head for max_bias (1 when max_bias <= 0), as the family defines it.
double ggml_ref_alibi_slope(float max_bias, int64_t n_head, int64_t h);

// Element i (row-major over t->ne) of t, quantized types included.
static inline double ggml_ref_get_flat_q(const struct ggml_tensor * t, int64_t i) {
    int64_t idx[4];
    ggml_ref_unravel(t, i, idx);
    return ggml_ref_get_q(t, idx[0], idx[1], idx[2], idx[3]);
}

// One entry point per op family; each handles the ops listed in ref-core.c's dispatch.
bool ggml_ref_op_elementwise(const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_unary      (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_glu        (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_reduce     (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_shape      (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_rows       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_norm       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_matmul     (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_softmax    (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_rope       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_conv       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_attn       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_sort       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_moe        (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_misc       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_backward   (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_seq        (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_shape2     (const struct ggml_tensor * node, double * out, char * err, size_t err_size);
bool ggml_ref_op_dsv4       (const struct ggml_tensor * node, double * out, char * err, size_t err_size);

#endif // GGML_REF_INTERNAL

#ifdef __cplusplus
}
#endif
