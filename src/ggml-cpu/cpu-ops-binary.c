// CPU kernels of the binary family: ADD, SUB, MUL, DIV and ADD1 (b broadcast over a), ACC and SET
// (b written into a strided view of a copy of a), REPEAT and CONCAT.
//
// The arithmetic ops compute in float for any mix of F32, F16 and BF16 (a, b and the result each
// have their own type, so add_cast's result type works too); F32 rows with contiguous elements
// are used in place, the others go through stack buffers. The result may alias a or b exactly
// (in-place variants). REPEAT, CONCAT and SET move elements bit for bit and take any
// non-quantized type.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"

#include <string.h>

#define BIN_CHUNK 512

// below this many elements one thread computes the node
#define BIN_MIN_ELEMS 8192

static bool bin_f32_rows(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float) &&
        (((uintptr_t) t->data | t->nb[1] | t->nb[2] | t->nb[3]) % sizeof(float)) == 0;
}

static inline char * bin_row_ptr(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

// element types that are moved as plain bytes (one element per type_size bytes)
static bool bin_plain_type(enum ggml_type type) {
    return (int) type >= 0 && type < GGML_TYPE_COUNT && ggml_blck_size(type) == 1 && ggml_type_size(type) > 0;
}

//
// ADD SUB MUL DIV ADD1
//

typedef void (*bin_row_fn)(int64_t n, float * z, const float * x, const float * y);

// b's elements c .. c+m-1 of a row of a, repeated from b's row (ne[0] elements)
static void bin_load_b(const struct ggml_vec_funcs * vf, const struct ggml_tensor * b, const char * brow,
        int64_t c, int64_t m, float * out) {
    const int64_t nb0 = b->ne[0];
    if (nb0 == 1) {
        float v;
        ggml_vec_load_f32(vf, b->type, brow, b->nb[0], 1, &v);
        for (int64_t k = 0; k < m; k++) {
            out[k] = v;
        }
        return;
    }
    for (int64_t k = 0; k < m; ) {
        const int64_t q     = (c + k) % nb0;
        const int64_t piece = m - k < nb0 - q ? m - k : nb0 - q;
        ggml_vec_load_f32(vf, b->type, brow + q*b->nb[0], b->nb[0], piece, out + k);
        k += piece;
    }
}

static bool arith_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL || b == NULL || !ggml_vec_is_float_type(a->type) || !ggml_vec_is_float_type(b->type) ||
        !ggml_vec_is_float_type(op->type) || !ggml_are_same_shape(a, op)) {
        return false;
    }
    if (op->op == GGML_OP_ADD1 && ggml_nelements(b) != 1) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (b->ne[d] == 0 ? a->ne[d] != 0 : a->ne[d] % b->ne[d] != 0) {
            return false;
        }
    }
    return true;
}

static void arith_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    bin_row_fn fn;
    switch (dst->op) {
        case GGML_OP_SUB: fn = vf->sub_f32; break;
        case GGML_OP_MUL: fn = vf->mul_f32; break;
        case GGML_OP_DIV: fn = vf->div_f32; break;
        default:          fn = vf->add_f32; break; // ADD, ADD1
    }
    const int64_t ne0   = dst->ne[0];
    const int64_t nrows = ggml_nrows(dst);
    if (ne0 == 0 || nrows == 0) {
        return;
    }
    int64_t start, end;
    ggml_vec_split_elements(nrows, ne0, params->ith, params->nth, &start, &end);

    const bool a_direct = bin_f32_rows(a);
    const bool b_direct = bin_f32_rows(b) && b->ne[0] == ne0;
    const bool y_direct = bin_f32_rows(dst);
    float ba[BIN_CHUNK];
    float bb[BIN_CHUNK];
    float by[BIN_CHUNK];

    for (int64_t pos = start; pos < end; ) {
        const int64_t r  = pos / ne0;
        const int64_t c0 = pos - r*ne0;
        const int64_t c1 = ne0 < c0 + (end - pos) ? ne0 : c0 + (end - pos);
        int64_t i1, i2, i3;
        ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
        const char * ar = bin_row_ptr(a, i1, i2, i3);
        const char * br = bin_row_ptr(b, i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]);
        char       * yr = bin_row_ptr(dst, i1, i2, i3);
        if (a_direct && b_direct && y_direct) {
            fn(c1 - c0, (float *) yr + c0, (const float *) ar + c0, (const float *) br + c0);
        } else {
            for (int64_t c = c0; c < c1; c += BIN_CHUNK) {
                const int64_t m = c1 - c < BIN_CHUNK ? c1 - c : BIN_CHUNK;
                const float * ap = ba;
                const float * bp = bb;
                if (a_direct) {
                    ap = (const float *) ar + c;
                } else {
                    ggml_vec_load_f32(vf, a->type, ar + c*a->nb[0], a->nb[0], m, ba);
                }
                if (b_direct) {
                    bp = (const float *) br + c;
                } else {
                    bin_load_b(vf, b, br, c, m, bb);
                }
                float * yp = y_direct ? (float *) yr + c : by;
                fn(m, yp, ap, bp);
                if (!y_direct) {
                    ggml_vec_store_f32(vf, dst->type, yr + c*dst->nb[0], dst->nb[0], m, by);
                }
            }
        }
        pos += c1 - c0;
    }
}

//
// ACC, SET: op_params i32[0..3] = nb1, nb2, nb3, offset (bytes of the view of the result)
//

struct accset_view {
    size_t nb[GGML_MAX_DIMS];
    size_t offset;
};

// The view's strides and offset; false when they are negative, misaligned or reach outside dst.
static bool accset_view(const struct ggml_tensor * op, struct accset_view * v) {
    const struct ggml_tensor * b = op->src[1];
    const size_t es = ggml_type_size(op->type);
    int32_t p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = ggml_get_op_params_i32(op, i);
        if (p[i] < 0) {
            return false;
        }
    }
    v->nb[0]  = es;
    v->nb[1]  = (size_t) p[0];
    v->nb[2]  = (size_t) p[1];
    v->nb[3]  = (size_t) p[2];
    v->offset = (size_t) p[3];
    if (v->offset % es != 0) {
        return false;
    }
    if (ggml_nelements(b) == 0) {
        return true;
    }
    // the last byte addressed must lie inside dst; each term is bounded, so no overflow
    const size_t size = ggml_nbytes(op);
    size_t last = v->offset + es;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        const size_t n = (size_t) (b->ne[d] - 1);
        if (n == 0) {
            continue;
        }
        if (v->nb[d] % es != 0 || v->nb[d] > size || n > size || n*v->nb[d] > size) {
            return false;
        }
        last += n*v->nb[d];
        if (last > size) {
            return false;
        }
    }
    return last <= size;
}

static bool accset_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL || b == NULL || a->type != op->type || !ggml_are_same_shape(a, op) || !ggml_is_contiguous(op)) {
        return false;
    }
    if (op->op == GGML_OP_ACC) {
        if (!ggml_vec_is_float_type(op->type) || !ggml_vec_is_float_type(b->type)) {
            return false;
        }
    } else {
        const bool same  = b->type == op->type && bin_plain_type(op->type);
        const bool float_ = ggml_vec_is_float_type(op->type) && ggml_vec_is_float_type(b->type);
        if (!same && !float_) {
            return false;
        }
    }
    struct accset_view v;
    return accset_view(op, &v);
}

static void accset_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_vec_funcs * vf, const struct accset_view * v) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const size_t es  = ggml_type_size(dst->type);
    const int    ith = params->ith;
    const int    nth = params->nth;

    // 1. dst = a (dst is contiguous), unless dst is a itself
    if (dst->data != a->data) {
        int64_t r0, r1;
        ggml_cpu_split_range(ggml_nrows(a), ith, nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            int64_t i1, i2, i3;
            ggml_vec_row_index(a->ne, r, &i1, &i2, &i3);
            ggml_vec_copy_elems(bin_row_ptr(dst, i1, i2, i3), es, bin_row_ptr(a, i1, i2, i3), a->nb[0], a->ne[0], es);
        }
        if (nth > 1) {
            ggml_cpu_barrier(params->threadpool); // every row of dst is written before the view is
        }
    }

    // 2. the view of dst (b's shape) += b or = b, rows of b split across the threads
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(b), ith, nth, &r0, &r1);
    const int64_t n = b->ne[0];
    float bb[BIN_CHUNK];
    float by[BIN_CHUNK];
    for (int64_t r = r0; r < r1; r++) {
        int64_t j1, j2, j3;
        ggml_vec_row_index(b->ne, r, &j1, &j2, &j3);
        const char * br = bin_row_ptr(b, j1, j2, j3);
        char * yr = (char *) dst->data + v->offset + j1*v->nb[1] + j2*v->nb[2] + j3*v->nb[3];
        if (dst->op == GGML_OP_SET && b->type == dst->type) {
            ggml_vec_copy_elems(yr, es, br, b->nb[0], n, es);
            continue;
        }
        for (int64_t c = 0; c < n; c += BIN_CHUNK) {
            const int64_t m = n - c < BIN_CHUNK ? n - c : BIN_CHUNK;
            ggml_vec_load_f32(vf, b->type, br + c*b->nb[0], b->nb[0], m, bb);
            if (dst->op == GGML_OP_ACC) {
                ggml_vec_load_f32(vf, dst->type, yr + c*es, es, m, by);
                vf->add_f32(m, by, by, bb);
                ggml_vec_store_f32(vf, dst->type, yr + c*es, es, m, by);
            } else {
                ggml_vec_store_f32(vf, dst->type, yr + c*es, es, m, bb);
            }
        }
    }
}

//
// REPEAT, CONCAT
//

static bool repeat_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL || a->type != op->type || !bin_plain_type(op->type)) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] == 0 ? op->ne[d] != 0 : op->ne[d] % a->ne[d] != 0) {
            return false;
        }
    }
    return true;
}

static void repeat_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const size_t  es  = ggml_type_size(dst->type);
    const int64_t ne0 = dst->ne[0];
    const int64_t na0 = a->ne[0];
    if (ne0 == 0) {
        return;
    }
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
        const char * ar = bin_row_ptr(a, i1 % a->ne[1], i2 % a->ne[2], i3 % a->ne[3]);
        char       * yr = bin_row_ptr(dst, i1, i2, i3);
        for (int64_t k = 0; k < ne0; k += na0) {
            ggml_vec_copy_elems(yr + k*dst->nb[0], dst->nb[0], ar, a->nb[0], na0, es);
        }
    }
}

// quantized tensors: copied block by block, so every row must be whole blocks laid out contiguously
static bool concat_quant_ok(const struct ggml_tensor * op) {
    if ((int) op->type < 0 || op->type >= GGML_TYPE_COUNT || !ggml_is_quantized(op->type) || ggml_blck_size(op->type) <= 0) {
        return false;
    }
    const int64_t bs = ggml_blck_size(op->type);
    const size_t  ts = ggml_type_size(op->type);
    for (int i = -1; i < 2; i++) {
        const struct ggml_tensor * t = i < 0 ? op : op->src[i];
        if (t->ne[0] % bs != 0 || t->nb[0] != ts) {
            return false;
        }
    }
    return true;
}

static bool concat_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const int32_t dim = ggml_get_op_params_i32(op, 0);
    if (a == NULL || b == NULL || dim < 0 || dim >= GGML_MAX_DIMS || a->type != op->type || b->type != op->type) {
        return false;
    }
    if (!bin_plain_type(op->type) && !concat_quant_ok(op)) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        const bool ok = d == dim ? op->ne[d] == a->ne[d] + b->ne[d] : (op->ne[d] == a->ne[d] && op->ne[d] == b->ne[d]);
        if (!ok) {
            return false;
        }
    }
    return true;
}

static void concat_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int    dim = ggml_get_op_params_i32(dst, 0);
    const size_t es  = ggml_type_size(dst->type);
    const int64_t bs = ggml_blck_size(dst->type); // quantized: elements along dim 0 are copied as blocks
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t idx[4] = { 0, 0, 0, 0 };
        ggml_vec_row_index(dst->ne, r, &idx[1], &idx[2], &idx[3]);
        char * yr = bin_row_ptr(dst, idx[1], idx[2], idx[3]);
        if (dim == 0) {
            ggml_vec_copy_elems(yr, dst->nb[0], bin_row_ptr(a, idx[1], idx[2], idx[3]), a->nb[0], a->ne[0]/bs, es);
            ggml_vec_copy_elems(yr + a->ne[0]/bs*dst->nb[0], dst->nb[0], bin_row_ptr(b, idx[1], idx[2], idx[3]), b->nb[0],
                    b->ne[0]/bs, es);
            continue;
        }
        const struct ggml_tensor * s = a;
        if (idx[dim] >= a->ne[dim]) {
            idx[dim] -= a->ne[dim];
            s = b;
        }
        ggml_vec_copy_elems(yr, dst->nb[0], bin_row_ptr(s, idx[1], idx[2], idx[3]), s->nb[0], dst->ne[0]/bs, es);
    }
}

//
// family entry points
//

bool ggml_cpu_binary_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_ADD1:
            return arith_supports(op);
        case GGML_OP_ACC:
        case GGML_OP_SET:
            return accset_supports(op);
        case GGML_OP_REPEAT:
            return repeat_supports(op);
        case GGML_OP_CONCAT:
            return concat_supports(op);
        default:
            return false;
    }
}

size_t ggml_cpu_binary_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op);
    GGML_UNUSED(n_threads);
    return 0;
}

int ggml_cpu_binary_n_tasks(const struct ggml_tensor * op, int n_threads) {
    // ACC and SET also copy a: count its elements
    int64_t n = ggml_nelements(op);
    if (op->op == GGML_OP_ACC || op->op == GGML_OP_SET) {
        n += op->src[1] != NULL ? ggml_nelements(op->src[1]) : 0;
    }
    return n < BIN_MIN_ELEMS ? 1 : n_threads;
}

enum ggml_status ggml_cpu_binary_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    switch (op->op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_ADD1:
            if (!arith_supports(op)) {
                break;
            }
            arith_forward(params, op, vf);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_ACC:
        case GGML_OP_SET: {
            // checked by every thread alike, before any barrier
            struct accset_view v;
            if (!accset_supports(op) || !accset_view(op, &v)) {
                break;
            }
            accset_forward(params, op, vf, &v);
            return GGML_STATUS_SUCCESS;
        }
        case GGML_OP_REPEAT:
            if (!repeat_supports(op)) {
                break;
            }
            repeat_forward(params, op);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_CONCAT:
            if (!concat_supports(op)) {
                break;
            }
            concat_forward(params, op);
            return GGML_STATUS_SUCCESS;
        default:
            break;
    }
    if (params->ith == 0) {
        GGML_LOG_ERROR("%s: cannot compute %s (node '%s', type %s, shape [%lld, %lld, %lld, %lld])\n", __func__,
                ggml_op_desc(op), op->name, ggml_type_name(op->type),
                (long long) op->ne[0], (long long) op->ne[1], (long long) op->ne[2], (long long) op->ne[3]);
    }
    return GGML_STATUS_FAILED;
}
