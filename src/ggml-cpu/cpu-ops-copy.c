// CPU kernels of the copy family: DUP, CPY, CONT (element i of the source to element i of the
// result in row-major order, converting types), GET_ROWS, SET_ROWS and PAD.
//
// Conversions: F32, F16 and BF16 among themselves through float rows; any pair of F32, F16,
// BF16, F64, I8, I16, I32, I64 through double (float -> integer truncates toward zero and
// saturates, NaN gives 0); a type to itself bit for bit (quantized types too, by whole rows of
// blocks, or block by block between shapes that differ, e.g. permuted); F32 to a quantized type
// with a quantizer and a quantized type to F32, by whole rows of the same shape. Sources and
// results may have any strides and different shapes.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"
#include "cpu-stream-store.h"

#include <math.h>
#include <string.h>

#define COPY_CHUNK 512

// below this many elements one thread computes the node
#define COPY_MIN_ELEMS 16384

static inline char * copy_row_ptr(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

static bool copy_plain_type(enum ggml_type type) {
    return (int) type >= 0 && type < GGML_TYPE_COUNT && ggml_blck_size(type) == 1 && ggml_type_size(type) > 0;
}

// types converted element by element (through double when not float to float)
static bool copy_numeric_type(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
        case GGML_TYPE_F64:
        case GGML_TYPE_I8:
        case GGML_TYPE_I16:
        case GGML_TYPE_I32:
        case GGML_TYPE_I64:
            return true;
        default:
            return false;
    }
}

static double copy_read(enum ggml_type type, const char * p) {
    switch (type) {
        case GGML_TYPE_F32:  { float       v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_F16:  { ggml_fp16_t v; memcpy(&v, p, sizeof(v)); return GGML_FP16_TO_FP32(v); }
        case GGML_TYPE_BF16: { ggml_bf16_t v; memcpy(&v, p, sizeof(v)); return GGML_BF16_TO_FP32(v); }
        case GGML_TYPE_F64:  { double      v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I8:   { int8_t      v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I16:  { int16_t     v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I32:  { int32_t     v; memcpy(&v, p, sizeof(v)); return v; }
        case GGML_TYPE_I64:  { int64_t     v; memcpy(&v, p, sizeof(v)); return (double) v; }
        default:             return 0.0;
    }
}

// float -> integer: truncation toward zero, saturated, NaN -> 0 (always defined)
static double copy_to_int(double v, double lo, double hi) {
    if (isnan(v)) {
        return 0.0;
    }
    v = trunc(v);
    return v < lo ? lo : (v > hi ? hi : v);
}

static void copy_write(enum ggml_type type, char * p, double v) {
    switch (type) {
        case GGML_TYPE_F32:  { const float       x = (float) v;                     memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_F16:  { const ggml_fp16_t x = GGML_FP32_TO_FP16((float) v);  memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_BF16: { const ggml_bf16_t x = GGML_FP32_TO_BF16((float) v);  memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_F64:  { const double      x = v;                             memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I8:   { const int8_t  x = (int8_t)  copy_to_int(v, INT8_MIN, INT8_MAX);   memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I16:  { const int16_t x = (int16_t) copy_to_int(v, INT16_MIN, INT16_MAX); memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I32:  { const int32_t x = (int32_t) copy_to_int(v, INT32_MIN, INT32_MAX); memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I64:  {
            // the largest double below 2^63 is the upper bound
            const int64_t x = (int64_t) copy_to_int(v, -9223372036854775808.0, 9223372036854774784.0);
            memcpy(p, &x, sizeof(x));
        } break;
        default: break;
    }
}

// n elements from src (type st, snb bytes apart) to dst (type dt, dnb bytes apart)
static void copy_convert(const struct ggml_vec_funcs * vf, enum ggml_type dt, char * dst, size_t dnb,
        enum ggml_type st, const char * src, size_t snb, int64_t n) {
    if (dt == st) {
        ggml_vec_copy_elems(dst, dnb, src, snb, n, ggml_type_size(dt));
        return;
    }
    if (ggml_vec_is_float_type(dt) && ggml_vec_is_float_type(st)) {
        // straight into / out of an aligned contiguous F32 row when there is one
        if (dt == GGML_TYPE_F32 && dnb == sizeof(float) && (uintptr_t) dst % sizeof(float) == 0) {
            ggml_vec_load_f32(vf, st, src, snb, n, (float *) dst);
            return;
        }
        if (st == GGML_TYPE_F32 && snb == sizeof(float) && (uintptr_t) src % sizeof(float) == 0) {
            ggml_vec_store_f32(vf, dt, dst, dnb, n, (const float *) src);
            return;
        }
        float buf[COPY_CHUNK];
        for (int64_t c = 0; c < n; c += COPY_CHUNK) {
            const int64_t m = n - c < COPY_CHUNK ? n - c : COPY_CHUNK;
            ggml_vec_load_f32(vf, st, src + c*snb, snb, m, buf);
            ggml_vec_store_f32(vf, dt, dst + c*dnb, dnb, m, buf);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        copy_write(dt, dst + i*dnb, copy_read(st, src + i*snb));
    }
}

//
// DUP, CPY, CONT
//

static bool rows_quant_ok(const struct ggml_tensor * q, const struct ggml_tensor * f, bool to_float);
static void quantize_float_row(const struct ggml_vec_funcs * vf, enum ggml_type q_type, char * q_row,
        enum ggml_type f_type, const char * f_row, size_t f_nb0, int64_t n);

static bool dup_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * src = op->src[0];
    if (src == NULL || ggml_nelements(src) != ggml_nelements(op)) {
        return false;
    }
    if (copy_numeric_type(src->type) && copy_numeric_type(op->type)) {
        return true;
    }
    // F32 -> a quantized type with a quantizer, a quantized type -> F32: whole rows, same shape
    if (ggml_are_same_shape(src, op) && (rows_quant_ok(op, src, false) || rows_quant_ok(src, op, true))) {
        return true;
    }
    if (src->type != op->type || (int) src->type < 0 || src->type >= GGML_TYPE_COUNT || ggml_blck_size(src->type) <= 0) {
        return false;
    }
    if (copy_plain_type(src->type)) {
        return true;
    }
    // a block type: whole buffers, or rows of whole blocks (same shape: row by row; permuted or
    // reshaped: block by block in the row-major order of both)
    if (ggml_is_contiguous(src) && ggml_is_contiguous(op)) {
        return true;
    }
    const int64_t blck = ggml_blck_size(src->type);
    const size_t  ts   = ggml_type_size(src->type);
    return src->ne[0] % blck == 0 && op->ne[0] % blck == 0 && src->nb[0] == ts && op->nb[0] == ts;
}

// advances a row-major index of a tensor of shape ne by len elements (len <= ne[0] - idx[0])
static inline void copy_advance(int64_t idx[4], const int64_t ne[4], int64_t len) {
    idx[0] += len;
    for (int d = 0; d < 3 && idx[d] == ne[d]; d++) {
        idx[d] = 0;
        idx[d + 1]++;
    }
}

static inline void copy_unravel(int64_t i, const int64_t ne[4], int64_t idx[4]) {
    idx[0] = i % ne[0]; i /= ne[0];
    idx[1] = i % ne[1]; i /= ne[1];
    idx[2] = i % ne[2];
    idx[3] = i / ne[2];
}

// Same type and shape, the source permuted so that its contiguous dim is d (1, 2 or 3) rather
// than 0 (a transpose, or e.g. permute [2,1,0,3]): tiles of COPY_TILE x COPY_TILE elements in the
// plane of dims 0 and d, so that the lines read across the source's dim 0 are reused from cache
// for a whole tile instead of one element each; the other two dims index the tiles' planes.
#define COPY_TILE 32

static void copy_transposed(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_tensor * src, int d) {
    const size_t  es  = ggml_type_size(dst->type);
    const int64_t ne0 = dst->ne[0];
    int o[2], k = 0; // the two dims other than 0 and d
    for (int dd = 1; dd < 4; dd++) {
        if (dd != d) {
            o[k++] = dd;
        }
    }
    const int64_t ntd = (dst->ne[d] + COPY_TILE - 1) / COPY_TILE;
    int64_t u0, u1;
    ggml_cpu_split_range(ntd*dst->ne[o[0]]*dst->ne[o[1]], params->ith, params->nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[4] = { 0, 0, 0, 0 };
        const int64_t jb = (u % ntd)*COPY_TILE;
        const int64_t je = jb + COPY_TILE < dst->ne[d] ? jb + COPY_TILE : dst->ne[d];
        idx[o[0]] = (u / ntd) % dst->ne[o[0]];
        idx[o[1]] = u / (ntd*dst->ne[o[0]]);
        for (int64_t i0b = 0; i0b < ne0; i0b += COPY_TILE) {
            const int64_t m = ne0 - i0b < COPY_TILE ? ne0 - i0b : COPY_TILE;
            for (int64_t j = jb; j < je; j++) {
                idx[d] = j;
                ggml_vec_copy_elems(copy_row_ptr(dst, idx[1], idx[2], idx[3]) + i0b*es, es,
                        copy_row_ptr(src, idx[1], idx[2], idx[3]) + i0b*src->nb[0], src->nb[0], m, es);
            }
        }
    }
}

// the dim (1..3) along which src's elements are adjacent, when it is not dim 0; 0 otherwise
static int copy_contiguous_dim(const struct ggml_tensor * src, size_t es) {
    if (src->nb[0] == es) {
        return 0;
    }
    for (int d = 1; d < 4; d++) {
        if (src->nb[d] == es && src->ne[d] > 1) {
            return d;
        }
    }
    return 0;
}

// Same block type, shapes that differ (a permuted source or destination): the blocks in the
// row-major order of both tensors, a run at a time (a run ends where a row of either ends); rows
// are whole blocks with nb[0] the block size (dup_supports).
static void copy_blocks_walk(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_tensor * src) {
    const int64_t blck = ggml_blck_size(dst->type);
    const size_t  ts   = ggml_type_size(dst->type);
    const int64_t sne[4] = { src->ne[0]/blck, src->ne[1], src->ne[2], src->ne[3] };
    const int64_t dne[4] = { dst->ne[0]/blck, dst->ne[1], dst->ne[2], dst->ne[3] };
    int64_t start, end;
    ggml_vec_split_elements(ggml_nrows(dst), dne[0], params->ith, params->nth, &start, &end);
    if (start >= end || sne[0] <= 0) {
        return;
    }
    int64_t is[4], id[4];
    copy_unravel(start, sne, is);
    copy_unravel(start, dne, id);
    for (int64_t pos = start; pos < end; ) {
        int64_t len = end - pos;
        len = sne[0] - is[0] < len ? sne[0] - is[0] : len;
        len = dne[0] - id[0] < len ? dne[0] - id[0] : len;
        memmove(copy_row_ptr(dst, id[1], id[2], id[3]) + id[0]*ts, copy_row_ptr(src, is[1], is[2], is[3]) + is[0]*ts,
                (size_t) len*ts);
        copy_advance(is, sne, len);
        copy_advance(id, dne, len);
        pos += len;
    }
}

// whether the bytes of a and b may overlap (the span from the first to the last byte of each)
static bool copy_overlap(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    const uintptr_t a0 = (uintptr_t) a->data, b0 = (uintptr_t) b->data;
    return a0 < b0 + ggml_nbytes(b) && b0 < a0 + ggml_nbytes(a);
}

static void dup_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst, const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * src = dst->src[0];
    const int64_t n = ggml_nelements(dst);
    if (n == 0) {
        return;
    }
    // in place onto itself (dup_inplace): nothing to move
    if (src->data == dst->data && src->type == dst->type && ggml_are_same_shape(src, dst) && ggml_are_same_stride(src, dst)) {
        return;
    }
    const int    ith = params->ith;
    const int    nth = params->nth;
    const size_t es  = ggml_type_size(dst->type);

    if (src->type == dst->type && ggml_is_contiguous(src) && ggml_is_contiguous(dst)) {
        // one block of bytes, cut at cache lines
        const size_t  size   = ggml_nbytes(dst);
        const int64_t blocks = (int64_t) ((size + 63) / 64);
        int64_t b0, b1;
        ggml_cpu_split_range(blocks, ith, nth, &b0, &b1);
        const size_t o0 = (size_t) b0*64;
        const size_t o1 = (size_t) b1*64 < size ? (size_t) b1*64 : size;
        if (o1 > o0) {
            memmove((char *) dst->data + o0, (const char *) src->data + o0, o1 - o0);
        }
        return;
    }
    if (src->type != dst->type && (ggml_is_quantized(src->type) || ggml_is_quantized(dst->type))) {
        // F32, F16 or BF16 -> quantized and quantized -> F32, same shape: whole rows through the
        // type's quantizer / to_float
        int64_t r0, r1;
        ggml_cpu_split_range(ggml_nrows(dst), ith, nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            int64_t i1, i2, i3;
            ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
            if (ggml_is_quantized(dst->type)) {
                quantize_float_row(vf, dst->type, copy_row_ptr(dst, i1, i2, i3), src->type, copy_row_ptr(src, i1, i2, i3),
                        src->nb[0], dst->ne[0]);
            } else {
                ggml_get_type_traits(src->type)->to_float(copy_row_ptr(src, i1, i2, i3),
                        (float *)(void *) copy_row_ptr(dst, i1, i2, i3), dst->ne[0]);
            }
        }
        return;
    }
    if ((!copy_plain_type(dst->type) || !copy_plain_type(src->type)) && !ggml_are_same_shape(src, dst)) {
        copy_blocks_walk(params, dst, src);
        return;
    }
    if (!copy_plain_type(dst->type) || !copy_plain_type(src->type)) {
        // same block type and shape: whole rows
        const size_t row = ggml_row_size(dst->type, dst->ne[0]);
        int64_t r0, r1;
        ggml_cpu_split_range(ggml_nrows(dst), ith, nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            int64_t i1, i2, i3;
            ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
            memmove(copy_row_ptr(dst, i1, i2, i3), copy_row_ptr(src, i1, i2, i3), row);
        }
        return;
    }

    if (src->type == dst->type && ggml_are_same_shape(src, dst) && dst->nb[0] == es) {
        const int d = copy_contiguous_dim(src, es);
        if (d != 0) {
            copy_transposed(params, dst, src, d);
            return;
        }
    }

    // walk both tensors in row-major order, a segment at a time (a segment ends where a row of
    // either tensor ends)
    int64_t start, end;
    ggml_vec_split_elements(ggml_nrows(dst), dst->ne[0], ith, nth, &start, &end);
    if (start >= end) {
        return;
    }
    // contiguous segments of a result larger than the caches (a permuted copy that keeps dim 0):
    // streaming stores, which save the read of every line written (cpu-stream-store.h)
    const bool stream = GGML_CPU_HAS_STREAM_STORE && src->type == dst->type && src->nb[0] == es && dst->nb[0] == es &&
                        ggml_nbytes(dst) >= GGML_CPU_STREAM_MIN_BYTES && !copy_overlap(src, dst);
    int64_t is[4], id[4];
    copy_unravel(start, src->ne, is);
    copy_unravel(start, dst->ne, id);
    for (int64_t pos = start; pos < end; ) {
        int64_t len = end - pos;
        len = src->ne[0] - is[0] < len ? src->ne[0] - is[0] : len;
        len = dst->ne[0] - id[0] < len ? dst->ne[0] - id[0] : len;
        const char * sp = copy_row_ptr(src, is[1], is[2], is[3]) + is[0]*src->nb[0];
        char       * dp = copy_row_ptr(dst, id[1], id[2], id[3]) + id[0]*dst->nb[0];
        if (stream) {
            ggml_cpu_stream_copy(dp, sp, (size_t) len*es);
        } else {
            copy_convert(vf, dst->type, dp, dst->nb[0], src->type, sp, src->nb[0], len);
        }
        copy_advance(is, src->ne, len);
        copy_advance(id, dst->ne, len);
        pos += len;
    }
    if (stream) {
        ggml_cpu_stream_fence();
    }
}

//
// GET_ROWS: a [n, rows, ne2, ne3], b (I32/I64 indices) [k, m2, m3] -> [n, k, m2, m3]; quantized a
// dequantizes into F32 rows (SET_ROWS: F32 rows quantize into a quantized destination)
//

// SET_ROWS into a quantized row from F16/BF16 rows: converted to F32 this many elements at a time
#define SET_ROWS_CHUNK 1024

// a row of n elements of a float type (F32, F16 or BF16, elements f_nb0 apart) quantized into
// q_row: F32 rows directly, the others converted whole blocks at a time through a float buffer
static void quantize_float_row(const struct ggml_vec_funcs * vf, enum ggml_type q_type, char * q_row,
        enum ggml_type f_type, const char * f_row, size_t f_nb0, int64_t n) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(q_type);
    if (f_type == GGML_TYPE_F32) {
        tr->from_float_ref((const float *)(const void *) f_row, q_row, n);
        return;
    }
    float buf[SET_ROWS_CHUNK];
    const int64_t chunk = (SET_ROWS_CHUNK / tr->blck_size)*tr->blck_size;
    for (int64_t e = 0; e < n; e += chunk) {
        const int64_t m = n - e < chunk ? n - e : chunk;
        ggml_vec_load_f32(vf, f_type, f_row + e*f_nb0, f_nb0, m, buf);
        tr->from_float_ref(buf, q_row + (size_t) (e / tr->blck_size)*tr->type_size, m);
    }
}

static bool index_type_ok(enum ggml_type type) {
    return type == GGML_TYPE_I32 || type == GGML_TYPE_I64;
}

static inline int64_t read_index(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2) {
    const char * p = (const char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2];
    if (t->type == GGML_TYPE_I32) {
        int32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    int64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

// quantized rows: dequantized to F32 (GET_ROWS) or quantized from F32, F16 or BF16 (SET_ROWS) by
// whole rows of blocks, the quantized side's rows contiguous
static bool rows_quant_ok(const struct ggml_tensor * q, const struct ggml_tensor * f, bool to_float) {
    const bool f_ok = to_float ? f->type == GGML_TYPE_F32 : ggml_vec_is_float_type(f->type);
    if ((int) q->type < 0 || q->type >= GGML_TYPE_COUNT || !ggml_is_quantized(q->type) || !f_ok) {
        return false;
    }
    const struct ggml_type_traits * tr = ggml_get_type_traits(q->type);
    return (to_float ? tr->to_float != NULL : tr->from_float_ref != NULL) && q->ne[0] % tr->blck_size == 0 &&
        q->nb[0] == tr->type_size && f->nb[0] == ggml_type_size(f->type) && tr->blck_size <= SET_ROWS_CHUNK;
}

static bool get_rows_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL || b == NULL || !index_type_ok(b->type)) {
        return false;
    }
    const bool types = (ggml_vec_is_float_type(a->type) && ggml_vec_is_float_type(op->type)) ||
        (a->type == op->type && copy_plain_type(a->type)) || rows_quant_ok(a, op, true);
    return types && op->ne[0] == a->ne[0] && op->ne[1] == b->ne[0] && op->ne[2] == b->ne[1] && op->ne[3] == b->ne[2] &&
        b->ne[3] == 1 && a->ne[2] > 0 && a->ne[3] > 0 && b->ne[1] % a->ne[2] == 0 && b->ne[2] % a->ne[3] == 0;
}

static enum ggml_status get_rows_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
        const int64_t idx = read_index(b, i1, i2, i3);
        if (idx < 0 || idx >= a->ne[1]) {
            GGML_LOG_ERROR("%s: node '%s': index %lld at (%lld, %lld, %lld) of '%s' is outside the %lld rows of '%s'\n",
                    __func__, dst->name, (long long) idx, (long long) i1, (long long) i2, (long long) i3, b->name,
                    (long long) a->ne[1], a->name);
            return GGML_STATUS_FAILED;
        }
        const char * ar = copy_row_ptr(a, idx, i2 % a->ne[2], i3 % a->ne[3]);
        if (ggml_is_quantized(a->type)) {
            ggml_get_type_traits(a->type)->to_float(ar, (float *)(void *) copy_row_ptr(dst, i1, i2, i3), dst->ne[0]);
            continue;
        }
        copy_convert(vf, dst->type, copy_row_ptr(dst, i1, i2, i3), dst->nb[0], a->type, ar, a->nb[0], dst->ne[0]);
    }
    return GGML_STATUS_SUCCESS;
}

//
// SET_ROWS: src0 = b (rows) [n, k, m2, m3], src1 = c (I32/I64 indices) [k, c2, c3], the result is a
// view of a [n, rows, m2, m3]; row i of b in (i2, i3) goes to row c(i, i2 % c2, i3 % c3) of a.
// When an index repeats within one (i2, i3), one thread gives the last of those rows (as the
// reference does); several threads may give any of them.
//

static bool set_rows_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * b = op->src[0];
    const struct ggml_tensor * c = op->src[1];
    if (b == NULL || c == NULL || !index_type_ok(c->type)) {
        return false;
    }
    const bool types = (ggml_vec_is_float_type(b->type) && ggml_vec_is_float_type(op->type)) ||
        (b->type == op->type && copy_plain_type(b->type)) || rows_quant_ok(op, b, false);
    return types && op->ne[0] == b->ne[0] && op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3] && c->ne[0] == b->ne[1] &&
        c->ne[3] == 1 && c->ne[1] > 0 && c->ne[2] > 0 && b->ne[2] % c->ne[1] == 0 && b->ne[3] % c->ne[2] == 0;
}

static enum ggml_status set_rows_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * b = dst->src[0];
    const struct ggml_tensor * c = dst->src[1];
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(b), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t i, i2, i3;
        ggml_vec_row_index(b->ne, r, &i, &i2, &i3);
        const int64_t idx = read_index(c, i, i2 % c->ne[1], i3 % c->ne[2]);
        if (idx < 0 || idx >= dst->ne[1]) {
            GGML_LOG_ERROR("%s: node '%s': index %lld for row %lld of (%lld, %lld) is outside the %lld rows of the destination\n",
                    __func__, dst->name, (long long) idx, (long long) i, (long long) i2, (long long) i3, (long long) dst->ne[1]);
            return GGML_STATUS_FAILED;
        }
        if (ggml_is_quantized(dst->type)) {
            quantize_float_row(vf, dst->type, copy_row_ptr(dst, idx, i2, i3), b->type, copy_row_ptr(b, i, i2, i3), b->nb[0],
                    b->ne[0]);
            continue;
        }
        copy_convert(vf, dst->type, copy_row_ptr(dst, idx, i2, i3), dst->nb[0], b->type, copy_row_ptr(b, i, i2, i3),
                b->nb[0], b->ne[0]);
    }
    return GGML_STATUS_SUCCESS;
}

//
// PAD: i32[0..7] = lp0, rp0, ..., lp3, rp3; zeros outside a; i32[8] != 0: circular (a repeats)
//

static bool pad_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL || a->type != op->type || !copy_plain_type(op->type)) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        const int32_t lp = ggml_get_op_params_i32(op, 2*d);
        const int32_t rp = ggml_get_op_params_i32(op, 2*d + 1);
        if (lp < 0 || rp < 0 || op->ne[d] != a->ne[d] + lp + rp) {
            return false;
        }
    }
    return true;
}

static void pad_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const size_t es       = ggml_type_size(dst->type);
    const bool   circular = ggml_get_op_params_i32(dst, 8) != 0;
    int64_t lp[4];
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        lp[d] = ggml_get_op_params_i32(dst, 2*d);
    }
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t idx[4] = { 0, 0, 0, 0 };
        ggml_vec_row_index(dst->ne, r, &idx[1], &idx[2], &idx[3]);
        char * yr = copy_row_ptr(dst, idx[1], idx[2], idx[3]);
        bool inside = a->ne[0] > 0;
        int64_t j[4] = { 0, 0, 0, 0 };
        for (int d = 1; d < GGML_MAX_DIMS; d++) {
            j[d] = idx[d] - lp[d];
            if (circular && a->ne[d] > 0) {
                j[d] = ((j[d] % a->ne[d]) + a->ne[d]) % a->ne[d];
            }
            inside = inside && j[d] >= 0 && j[d] < a->ne[d];
        }
        if (!inside) {
            ggml_vec_zero_elems(yr, dst->nb[0], dst->ne[0], es);
            continue;
        }
        const char * ar = copy_row_ptr(a, j[1], j[2], j[3]);
        if (circular) {
            for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
                const int64_t s = (((i0 - lp[0]) % a->ne[0]) + a->ne[0]) % a->ne[0];
                memcpy(yr + i0*dst->nb[0], ar + s*a->nb[0], es);
            }
            continue;
        }
        ggml_vec_zero_elems(yr, dst->nb[0], lp[0], es);
        ggml_vec_copy_elems(yr + lp[0]*dst->nb[0], dst->nb[0], ar, a->nb[0], a->ne[0], es);
        ggml_vec_zero_elems(yr + (lp[0] + a->ne[0])*dst->nb[0], dst->nb[0], dst->ne[0] - lp[0] - a->ne[0], es);
    }
}

//
// family entry points
//

bool ggml_cpu_copy_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_DUP:
        case GGML_OP_CPY:
        case GGML_OP_CONT:
            return dup_supports(op);
        case GGML_OP_GET_ROWS:
            return get_rows_supports(op);
        case GGML_OP_SET_ROWS:
            return set_rows_supports(op);
        case GGML_OP_PAD:
            return pad_supports(op);
        default:
            return false;
    }
}

size_t ggml_cpu_copy_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op);
    GGML_UNUSED(n_threads);
    return 0;
}

int ggml_cpu_copy_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const struct ggml_tensor * moved = op->op == GGML_OP_SET_ROWS ? op->src[0] : op;
    const int64_t n = moved != NULL ? ggml_nelements(moved) : 0;
    return n < COPY_MIN_ELEMS ? 1 : n_threads;
}

enum ggml_status ggml_cpu_copy_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    if (!ggml_cpu_copy_supports(op)) {
        if (params->ith == 0) {
            GGML_LOG_ERROR("%s: cannot compute %s (node '%s', type %s, shape [%lld, %lld, %lld, %lld])\n", __func__,
                    ggml_op_desc(op), op->name, ggml_type_name(op->type),
                    (long long) op->ne[0], (long long) op->ne[1], (long long) op->ne[2], (long long) op->ne[3]);
        }
        return GGML_STATUS_FAILED;
    }
    switch (op->op) {
        case GGML_OP_GET_ROWS:
            return get_rows_forward(params, op, vf);
        case GGML_OP_SET_ROWS:
            return set_rows_forward(params, op, vf);
        case GGML_OP_PAD:
            pad_forward(params, op);
            return GGML_STATUS_SUCCESS;
        default:
            dup_forward(params, op, vf);
            return GGML_STATUS_SUCCESS;
    }
}
