// CPU kernels of issue 22's "shape2" group: UPSCALE (nearest, bilinear with and without
// antialiasing, bicubic; align-corners), WIN_PART, WIN_UNPART, GET_REL_POS, ADD_REL_POS,
// COL2IM_1D, IM2COL_BACK, FLASH_ATTN_BACK. Semantics as tests/ref/ref-shape2.c. Every kernel
// splits the result's rows (dims 1..3; COL2IM_1D: its elements, as one row can be the whole
// signal; FLASH_ATTN_BACK: the kv heads) over the threads and reads its sources through their
// strides. UPSCALE computes its coordinates in float, as the family's CPU backend does, so that
// the nearest-neighbour picks are the same.

#include "ggml-cpu-impl.h"

#include <math.h>
#include <string.h>

// below this many result elements one thread computes the node
#define SHAPE2_MIN_ELEMS 16384

static inline char * s2_ptr(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

static inline float s2_f32(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    float v;
    memcpy(&v, s2_ptr(t, i0, i1, i2, i3), sizeof(v));
    return v;
}

static inline void s2_set_f32(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    memcpy(s2_ptr(t, i0, i1, i2, i3), &v, sizeof(v));
}

static bool s2_float_type(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

// an element of an F32, F16 or BF16 tensor
static inline float s2_get(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char * p = s2_ptr(t, i0, i1, i2, i3);
    if (t->type == GGML_TYPE_F16) {
        ggml_fp16_t h;
        memcpy(&h, p, sizeof(h));
        return ggml_fp16_to_fp32(h);
    }
    if (t->type == GGML_TYPE_BF16) {
        ggml_bf16_t b;
        memcpy(&b, p, sizeof(b));
        return ggml_bf16_to_fp32(b);
    }
    float f;
    memcpy(&f, p, sizeof(f));
    return f;
}

static inline void s2_set(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    char * p = s2_ptr(t, i0, i1, i2, i3);
    if (t->type == GGML_TYPE_F16) {
        const ggml_fp16_t h = ggml_fp32_to_fp16(v);
        memcpy(p, &h, sizeof(h));
    } else if (t->type == GGML_TYPE_BF16) {
        const ggml_bf16_t b = ggml_fp32_to_bf16(v);
        memcpy(p, &b, sizeof(b));
    } else {
        memcpy(p, &v, sizeof(v));
    }
}

static inline int64_t s2_clamp(int64_t i, int64_t n) {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

static inline float s2_minf(float a, float b) { return a < b ? a : b; }
static inline float s2_maxf(float a, float b) { return a > b ? a : b; }

//
// supports
//

static bool upscale_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const uint32_t mode = (uint32_t) ggml_get_op_params_i32(op, 0);
    const uint32_t base = mode & 0xFFu;
    const uint32_t flags = mode & ~0xFFu;
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || base >= GGML_SCALE_MODE_COUNT) {
        return false;
    }
    if ((flags & ~(uint32_t) (GGML_SCALE_FLAG_ALIGN_CORNERS | GGML_SCALE_FLAG_ANTIALIAS)) != 0) {
        return false;
    }
    if ((flags & GGML_SCALE_FLAG_ANTIALIAS) && base != GGML_SCALE_MODE_BILINEAR) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] <= 0 || op->ne[d] <= 0) {
            return false;
        }
    }
    return true;
}

static bool win_part_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const int32_t npx = ggml_get_op_params_i32(op, 0), npy = ggml_get_op_params_i32(op, 1);
    const int32_t w = ggml_get_op_params_i32(op, 2);
    return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && w > 0 && a->ne[3] == 1 &&
           npx == (a->ne[1] + w - 1) / w && npy == (a->ne[2] + w - 1) / w &&
           op->ne[0] == a->ne[0] && op->ne[1] == w && op->ne[2] == w && op->ne[3] == (int64_t) npx*npy;
}

static bool win_unpart_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const int32_t w = ggml_get_op_params_i32(op, 0);
    if (a->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32 || w <= 0 || op->ne[1] <= 0 || op->ne[2] <= 0) {
        return false;
    }
    const int64_t npx = (op->ne[1] + w - 1) / w, npy = (op->ne[2] + w - 1) / w;
    return a->ne[1] == w && a->ne[2] == w && a->ne[3] >= npx*npy && op->ne[0] == a->ne[0] && op->ne[3] == 1;
}

static bool get_rel_pos_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    return (a->type == GGML_TYPE_F16 || a->type == GGML_TYPE_BF16 || a->type == GGML_TYPE_F32) &&
           op->type == GGML_TYPE_F16 && op->ne[1] == op->ne[2] && op->ne[1] > 0 && op->ne[0] == a->ne[0] &&
           a->ne[1] == 2*op->ne[1] - 1 && op->ne[3] == 1;
}

static bool add_rel_pos_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0], * pw = op->src[1], * ph = op->src[2];
    if (pw == NULL || ph == NULL) {
        return false;
    }
    return a->type == GGML_TYPE_F32 && pw->type == GGML_TYPE_F32 && ph->type == GGML_TYPE_F32 &&
           op->type == GGML_TYPE_F32 && ggml_are_same_shape(a, op) && ggml_are_same_shape(pw, ph) &&
           a->ne[0] == pw->ne[0]*pw->ne[0] && a->ne[1] == pw->ne[1]*pw->ne[2] && a->ne[2] == pw->ne[3] && a->ne[3] == 1;
}

static bool col2im_1d_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const int32_t s0 = ggml_get_op_params_i32(op, 0), oc = ggml_get_op_params_i32(op, 1), p0 = ggml_get_op_params_i32(op, 2);
    if (!s2_float_type(a->type) || op->type != a->type || s0 <= 0 || oc <= 0 || p0 < 0 || a->ne[0] % oc != 0 ||
        a->ne[2] != 1 || a->ne[3] != 1 || a->ne[1] <= 0) {
        return false;
    }
    const int64_t k = a->ne[0] / oc;
    return k > 0 && op->ne[0] == (a->ne[1] - 1)*s0 + k - 2*(int64_t) p0 && op->ne[1] == oc && op->ne[2] == 1 && op->ne[3] == 1;
}

static bool im2col_back_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0], * b = op->src[1];
    if (b == NULL || !s2_float_type(a->type) || op->type != GGML_TYPE_F32) {
        return false;
    }
    const int32_t * p = op->op_params;
    const bool is_2d = p[6] == 1;
    if (p[0] <= 0 || p[4] <= 0 || p[2] < 0 || (is_2d && (p[1] <= 0 || p[5] <= 0 || p[3] < 0))) {
        return false;
    }
    const int64_t kw = b->ne[0], kh = is_2d ? b->ne[1] : 1;
    const int64_t ic = is_2d ? op->ne[2] : op->ne[1], n = is_2d ? op->ne[3] : op->ne[2];
    return a->ne[0] == ic*kh*kw && (is_2d ? a->ne[3] == n : (a->ne[2] == n && a->ne[3] == 1 && op->ne[3] == 1));
}

// byte offsets of grad k and grad v in a FLASH_ATTN_BACK result (grad q starts at 0)
static void fab_offsets(const struct ggml_tensor * op, size_t * offs_k, size_t * offs_v, size_t * end) {
    *offs_k = GGML_PAD((size_t) ggml_nelements(op->src[0])*sizeof(float), GGML_MEM_ALIGN);
    *offs_v = *offs_k + GGML_PAD((size_t) ggml_nelements(op->src[1])*sizeof(float), GGML_MEM_ALIGN);
    *end    = *offs_v + GGML_PAD((size_t) ggml_nelements(op->src[2])*sizeof(float), GGML_MEM_ALIGN);
}

static bool flash_attn_back_supported(const struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2], * d = op->src[3];
    if (k == NULL || v == NULL || d == NULL || q->type != GGML_TYPE_F32 || k->type != GGML_TYPE_F32 ||
        v->type != GGML_TYPE_F32 || d->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32) {
        return false;
    }
    const int64_t dim = q->ne[0], n = q->ne[1], m = k->ne[1], hkv = k->ne[2];
    if (k->ne[0] != dim || k->ne[3] != q->ne[3] || v->ne[0] != m || v->ne[1] != dim || v->ne[2] != hkv ||
        v->ne[3] != q->ne[3] || !ggml_are_same_shape(d, q) || hkv <= 0 || q->ne[2] % hkv != 0 || m < n || n <= 0) {
        return false;
    }
    size_t offs_k, offs_v, end;
    fab_offsets(op, &offs_k, &offs_v, &end);
    return ggml_is_contiguous(op) && ggml_nbytes(op) >= end;
}

bool ggml_cpu_shape2_supports(const struct ggml_tensor * op) {
    if (op->src[0] == NULL) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_UPSCALE:     return upscale_supported(op);
        case GGML_OP_WIN_PART:    return win_part_supported(op);
        case GGML_OP_WIN_UNPART:  return win_unpart_supported(op);
        case GGML_OP_GET_REL_POS: return get_rel_pos_supported(op);
        case GGML_OP_ADD_REL_POS: return add_rel_pos_supported(op);
        case GGML_OP_COL2IM_1D:   return col2im_1d_supported(op);
        case GGML_OP_IM2COL_BACK: return im2col_back_supported(op);
        case GGML_OP_FLASH_ATTN_BACK: return flash_attn_back_supported(op);
        default:                  return false;
    }
}

// FLASH_ATTN_BACK: per thread, the scores and probabilities of one query (2*M floats), cache-line padded
static size_t fab_per_thread(const struct ggml_tensor * op) {
    return GGML_PAD(2*(size_t) op->src[1]->ne[1]*sizeof(float), GGML_CPU_CACHE_LINE);
}

size_t ggml_cpu_shape2_work_size(const struct ggml_tensor * op, int n_threads) {
    return op->op == GGML_OP_FLASH_ATTN_BACK ? fab_per_thread(op)*(size_t) n_threads : 0;
}

int ggml_cpu_shape2_n_tasks(const struct ggml_tensor * op, int n_threads) {
    if (op->op == GGML_OP_FLASH_ATTN_BACK) {
        // threads own whole kv heads (their grad k, grad v and the query heads that use them)
        const int64_t heads = op->src[1]->ne[2]*op->src[1]->ne[3];
        return heads < n_threads ? (int) heads : n_threads;
    }
    return ggml_nelements(op) < SHAPE2_MIN_ELEMS ? 1 : n_threads;
}

//
// UPSCALE
//

struct upscale_geom {
    int mode;
    bool antialias;
    float sf[4];        // result size / source size per dim (align-corners: (n - 1)/(n_a - 1) in dims 0, 1)
    float offset;       // pixel centre offset: 0.5, or 0 with align-corners
};

static struct upscale_geom upscale_geom_of(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const uint32_t mode = (uint32_t) ggml_get_op_params_i32(op, 0);
    struct upscale_geom g;
    g.mode = (int) (mode & 0xFFu);
    g.antialias = (mode & GGML_SCALE_FLAG_ANTIALIAS) != 0;
    g.offset = 0.5f;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        g.sf[d] = (float) op->ne[d] / (float) a->ne[d];
    }
    if (mode & GGML_SCALE_FLAG_ALIGN_CORNERS) {
        g.offset = 0.0f;
        for (int d = 0; d < 2; d++) {
            if (op->ne[d] > 1 && a->ne[d] > 1) {
                g.sf[d] = (float) (op->ne[d] - 1) / (float) (a->ne[d] - 1);
            }
        }
    }
    return g;
}

// the source index a nearest-neighbour pick of result index i reads
static inline int64_t upscale_nearest(int64_t i, float sf, int64_t n) {
    return s2_clamp((int64_t) ((float) i / sf), n);
}

// Keys' cubic convolution weights (a = -0.75) of the 4 taps around a point t in [0, 1) past tap 1
static void bicubic_weights(float t, float w[4]) {
    const float A = -0.75f;
    const float x0 = t + 1.0f, x1 = t, x2 = 1.0f - t, x3 = 2.0f - t;
    w[0] = ((A*x0 - 5.0f*A)*x0 + 8.0f*A)*x0 - 4.0f*A;
    w[1] = ((A + 2.0f)*x1 - (A + 3.0f))*x1*x1 + 1.0f;
    w[2] = ((A + 2.0f)*x2 - (A + 3.0f))*x2*x2 + 1.0f;
    w[3] = ((A*x3 - 5.0f*A)*x3 + 8.0f*A)*x3 - 4.0f*A;
}

static inline float tent(float x) {
    return s2_maxf(1.0f - fabsf(x), 0.0f);
}

static void upscale_row(const struct upscale_geom * g, const struct ggml_tensor * a, struct ggml_tensor * dst,
        int64_t i1, int64_t i2, int64_t i3) {
    const int64_t n0 = a->ne[0], n1 = a->ne[1];
    const int64_t j2 = upscale_nearest(i2, g->sf[2], a->ne[2]);
    const int64_t j3 = upscale_nearest(i3, g->sf[3], a->ne[3]);
    const float po = g->offset;
    if (g->mode == GGML_SCALE_MODE_NEAREST) {
        const int64_t j1 = upscale_nearest(i1, g->sf[1], n1);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            s2_set_f32(dst, i0, i1, i2, i3, s2_f32(a, upscale_nearest(i0, g->sf[0], n0), j1, j2, j3));
        }
    } else if (g->mode == GGML_SCALE_MODE_BILINEAR && g->antialias) {
        // a tent filter as wide as one result pixel when shrinking (at least one source pixel)
        const float support1 = s2_maxf(1.0f, 1.0f / g->sf[1]), support0 = s2_maxf(1.0f, 1.0f / g->sf[0]);
        const float y = ((float) i1 + po) / g->sf[1];
        int64_t y_lo = (int64_t) (y - support1 + po), y_hi = (int64_t) (y + support1 + po);
        y_lo = y_lo < 0 ? 0 : y_lo;
        y_hi = y_hi > n1 ? n1 : y_hi;
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            const float x = ((float) i0 + po) / g->sf[0];
            int64_t x_lo = (int64_t) (x - support0 + po), x_hi = (int64_t) (x + support0 + po);
            x_lo = x_lo < 0 ? 0 : x_lo;
            x_hi = x_hi > n0 ? n0 : x_hi;
            float sum = 0.0f, wsum = 0.0f;
            for (int64_t sy = y_lo; sy < y_hi; sy++) {
                const float wy = tent(((float) sy - y + po) / support1);
                for (int64_t sx = x_lo; sx < x_hi; sx++) {
                    const float wgt = tent(((float) sx - x + po) / support0) * wy;
                    if (wgt > 0.0f) {
                        sum += wgt * s2_f32(a, sx, sy, j2, j3);
                        wsum += wgt;
                    }
                }
            }
            s2_set_f32(dst, i0, i1, i2, i3, wsum > 0.0f ? sum / wsum : 0.0f);
        }
    } else if (g->mode == GGML_SCALE_MODE_BILINEAR) {
        const float y = ((float) i1 + po) / g->sf[1] - po;
        const int64_t y0 = s2_clamp((int64_t) floorf(y), n1), y1 = s2_clamp((int64_t) floorf(y) + 1, n1);
        const float dy = s2_minf(s2_maxf(y - (float) y0, 0.0f), 1.0f);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            const float x = ((float) i0 + po) / g->sf[0] - po;
            const int64_t x0 = s2_clamp((int64_t) floorf(x), n0), x1 = s2_clamp((int64_t) floorf(x) + 1, n0);
            const float dx = s2_minf(s2_maxf(x - (float) x0, 0.0f), 1.0f);
            const float top = s2_f32(a, x0, y0, j2, j3)*(1.0f - dx) + s2_f32(a, x1, y0, j2, j3)*dx;
            const float bot = s2_f32(a, x0, y1, j2, j3)*(1.0f - dx) + s2_f32(a, x1, y1, j2, j3)*dx;
            s2_set_f32(dst, i0, i1, i2, i3, top*(1.0f - dy) + bot*dy);
        }
    } else {
        const float y = ((float) i1 + po) / g->sf[1] - po;
        const int64_t yb = (int64_t) floorf(y);
        float wy[4];
        bicubic_weights(y - (float) yb, wy);
        for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
            const float x = ((float) i0 + po) / g->sf[0] - po;
            const int64_t xb = (int64_t) floorf(x);
            float wx[4];
            bicubic_weights(x - (float) xb, wx);
            float acc = 0.0f;
            for (int r = 0; r < 4; r++) {
                const int64_t sy = s2_clamp(yb - 1 + r, n1);
                float row = 0.0f;
                for (int c = 0; c < 4; c++) {
                    row += wx[c] * s2_f32(a, s2_clamp(xb - 1 + c, n0), sy, j2, j3);
                }
                acc += wy[r] * row;
            }
            s2_set_f32(dst, i0, i1, i2, i3, acc);
        }
    }
}

//
// segment-anything ops
//

static void win_part_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int32_t npx = ggml_get_op_params_i32(dst, 0), w = ggml_get_op_params_i32(dst, 2);
    const int64_t px = i3 % npx, py = i3 / npx;
    const int64_t x = px*w + i1, y = py*w + i2;
    const bool inside = x < a->ne[1] && y < a->ne[2];
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        s2_set_f32(dst, i0, i1, i2, i3, inside ? s2_f32(a, i0, x, y, 0) : 0.0f);
    }
}

static void win_unpart_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int32_t w = ggml_get_op_params_i32(dst, 0);
    const int64_t npx = (dst->ne[1] + w - 1) / w;
    const int64_t win = (i2 / w)*npx + i1 / w;
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        s2_set_f32(dst, i0, i1, i2, i3, s2_f32(a, i0, i1 % w, i2 % w, win));
    }
}

static void get_rel_pos_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int64_t src_row = (dst->ne[1] - 1 - i1) + i2;
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        const char * p = s2_ptr(a, i0, src_row, 0, 0);
        ggml_fp16_t h;
        if (a->type == GGML_TYPE_F16) {
            memcpy(&h, p, sizeof(h));
        } else if (a->type == GGML_TYPE_BF16) {
            ggml_bf16_t b;
            memcpy(&b, p, sizeof(b));
            h = ggml_fp32_to_fp16(ggml_bf16_to_fp32(b));
        } else {
            float f;
            memcpy(&f, p, sizeof(f));
            h = ggml_fp32_to_fp16(f);
        }
        memcpy(s2_ptr(dst, i0, i1, i2, i3), &h, sizeof(h));
    }
}

// one row (q1 + Q1*q2, b) of the result; in place, a and dst are the same memory, element by element
static void add_rel_pos_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const struct ggml_tensor * pw = dst->src[1], * ph = dst->src[2];
    const int64_t k = pw->ne[0];
    const int64_t q1 = i1 % pw->ne[1], q2 = i1 / pw->ne[1];
    for (int64_t kh = 0; kh < k; kh++) {
        const float h = s2_f32(ph, kh, q1, q2, i2);
        for (int64_t kw = 0; kw < k; kw++) {
            const int64_t i0 = kw + k*kh;
            s2_set_f32(dst, i0, i1, i2, i3, s2_f32(a, i0, i1, i2, i3) + h + s2_f32(pw, kw, q1, q2, i2));
        }
    }
}

//
// COL2IM_1D, IM2COL_BACK
//

// elements [e0, e1) of the result (row-major over [T_out, OC]): each gathers its taps
static void col2im_1d_range(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t e0, int64_t e1) {
    const int64_t s0 = ggml_get_op_params_i32(dst, 0), oc = ggml_get_op_params_i32(dst, 1), p0 = ggml_get_op_params_i32(dst, 2);
    const int64_t k = a->ne[0] / oc, t_in = a->ne[1], t_out = dst->ne[0];
    for (int64_t e = e0; e < e1; e++) {
        const int64_t t = e % t_out, c = e / t_out;
        const int64_t pos = t + p0; // in the uncropped signal
        // columns j with 0 <= pos - j*s0 < k
        int64_t j_lo = pos - k + 1 <= 0 ? 0 : (pos - k + s0) / s0;
        int64_t j_hi = pos / s0;
        j_hi = j_hi < t_in - 1 ? j_hi : t_in - 1;
        float sum = 0.0f;
        for (int64_t j = j_lo; j <= j_hi; j++) {
            sum += s2_get(a, c*k + pos - j*s0, j, 0, 0);
        }
        s2_set(dst, t, c, 0, 0, sum);
    }
}

// one row of the data gradient: 2-d (x, y = i1, channel i2, batch i3), 1-d (x, channel i1, batch i2)
static void im2col_back_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int32_t * p = dst->op_params;
    const bool is_2d = p[6] == 1;
    const int64_t s0 = p[0], s1 = p[1], p0 = p[2], p1 = p[3], d0 = p[4], d1 = p[5];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t kw = b->ne[0], kh = is_2d ? b->ne[1] : 1;
    const int64_t ow = a->ne[1], oh = is_2d ? a->ne[2] : 1;
    const int64_t y = is_2d ? i1 : 0, ch = is_2d ? i2 : i1, batch = is_2d ? i3 : i2;
    for (int64_t x = 0; x < dst->ne[0]; x++) {
        float sum = 0.0f;
        for (int64_t ky = 0; ky < kh; ky++) {
            int64_t oy = 0;
            if (is_2d) {
                const int64_t ty = y + p1 - ky*d1;
                if (ty < 0 || ty % s1 != 0 || ty / s1 >= oh) {
                    continue;
                }
                oy = ty / s1;
            }
            for (int64_t kx = 0; kx < kw; kx++) {
                const int64_t tx = x + p0 - kx*d0;
                if (tx < 0 || tx % s0 != 0 || tx / s0 >= ow) {
                    continue;
                }
                const int64_t col = (ch*kh + ky)*kw + kx;
                sum += is_2d ? s2_get(a, col, tx / s0, oy, batch) : s2_get(a, col, tx / s0, batch, 0);
            }
        }
        s2_set_f32(dst, x, i1, i2, i3, sum);
    }
}

//
// FLASH_ATTN_BACK
//

// one query i of head (hq, b), kv head hk: adds its share to grad q (row i), grad k and grad v
static void fab_query(const struct ggml_tensor * op, float * gq, float * gk, float * gv, float * s, float * p,
        int64_t i, int64_t hq, int64_t hk, int64_t b) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2], * d = op->src[3];
    const int64_t dim = q->ne[0], n = q->ne[1], m = k->ne[1];
    const float scale = 1.0f / sqrtf((float) dim);
    const int64_t n_vis = ggml_get_op_params_i32(op, 0) ? (m - n) + i + 1 : m;
    // probabilities of the visible keys
    float smax = -INFINITY;
    for (int64_t j = 0; j < n_vis; j++) {
        float dot = 0.0f;
        for (int64_t c = 0; c < dim; c++) {
            dot += s2_f32(k, c, j, hk, b) * s2_f32(q, c, i, hq, b);
        }
        s[j] = dot*scale;
        smax = s[j] > smax ? s[j] : smax;
    }
    double sum = 0.0;
    for (int64_t j = 0; j < n_vis; j++) {
        p[j] = expf(s[j] - smax);
        sum += p[j];
    }
    const float inv = (float) (1.0 / sum);
    // s becomes dL/dP = v_j . d_i, then dL/dS = P (dL/dP - P . dL/dP) * scale
    float pdp = 0.0f;
    for (int64_t j = 0; j < n_vis; j++) {
        p[j] *= inv;
        float dp = 0.0f;
        for (int64_t c = 0; c < dim; c++) {
            dp += s2_f32(v, j, c, hk, b) * s2_f32(d, c, i, hq, b);
        }
        s[j] = dp;
        pdp += p[j]*dp;
    }
    for (int64_t j = 0; j < n_vis; j++) {
        const float ds = p[j]*(s[j] - pdp)*scale;
        for (int64_t c = 0; c < dim; c++) {
            gq[c + dim*i] += ds*s2_f32(k, c, j, hk, b);
            gk[c + dim*j] += ds*s2_f32(q, c, i, hq, b);
            gv[j + m*c]   += p[j]*s2_f32(d, c, i, hq, b);
        }
    }
}

static void flash_attn_back(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1];
    const int64_t dim = q->ne[0], n = q->ne[1], m = k->ne[1], h = q->ne[2], hkv = k->ne[2];
    size_t offs_k, offs_v, end;
    fab_offsets(op, &offs_k, &offs_v, &end);
    char * base = (char *) op->data;
    if (params->ith == 0) {
        // the alignment gaps between the three gradients (nobody else writes there)
        const size_t nq = (size_t) ggml_nelements(q)*sizeof(float), nk = (size_t) ggml_nelements(k)*sizeof(float);
        memset(base + nq, 0, offs_k - nq);
        memset(base + offs_k + nk, 0, offs_v - offs_k - nk);
        const size_t nv = (size_t) ggml_nelements(op->src[2])*sizeof(float);
        memset(base + offs_v + nv, 0, ggml_nbytes(op) - offs_v - nv);
    }
    float * s = (float *) ((char *) params->wdata + fab_per_thread(op)*(size_t) params->ith);
    float * p = s + m;
    int64_t r0, r1;
    ggml_cpu_split_range(hkv*q->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t hk = r % hkv, b = r / hkv;
        float * gk = (float *) (base + offs_k) + dim*m*r;
        float * gv = (float *) (base + offs_v) + m*dim*r;
        memset(gk, 0, (size_t) (dim*m)*sizeof(float));
        memset(gv, 0, (size_t) (m*dim)*sizeof(float));
        for (int64_t hq = hk; hq < h; hq += hkv) {
            float * gq = (float *) base + dim*n*(hq + h*b);
            memset(gq, 0, (size_t) (dim*n)*sizeof(float));
            for (int64_t i = 0; i < n; i++) {
                fab_query(op, gq, gk, gv, s, p, i, hq, hk, b);
            }
        }
    }
}

enum ggml_status ggml_cpu_shape2_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (!ggml_cpu_shape2_supports(op)) {
        if (params->ith == 0) {
            ggml_cpu_log_unsupported(__func__, -1, op);
        }
        return GGML_STATUS_FAILED;
    }
    int64_t r0, r1;
    if (op->op == GGML_OP_FLASH_ATTN_BACK) {
        if (params->wdata == NULL || params->wsize < fab_per_thread(op)*(size_t) params->nth) {
            if (params->ith == 0) {
                GGML_LOG_ERROR("%s: FLASH_ATTN_BACK '%s': work buffer too small\n", __func__, op->name);
            }
            return GGML_STATUS_FAILED;
        }
        flash_attn_back(params, op);
        return GGML_STATUS_SUCCESS;
    }
    if (op->op == GGML_OP_COL2IM_1D) {
        ggml_cpu_split_range(op->ne[0]*op->ne[1], params->ith, params->nth, &r0, &r1);
        col2im_1d_range(op->src[0], op, r0, r1);
        return GGML_STATUS_SUCCESS;
    }
    ggml_cpu_split_range(op->ne[1]*op->ne[2]*op->ne[3], params->ith, params->nth, &r0, &r1);
    const struct upscale_geom g = op->op == GGML_OP_UPSCALE ? upscale_geom_of(op) : (struct upscale_geom) { 0 };
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i1 = r % op->ne[1];
        const int64_t i2 = (r / op->ne[1]) % op->ne[2];
        const int64_t i3 = r / (op->ne[1]*op->ne[2]);
        switch (op->op) {
            case GGML_OP_UPSCALE:     upscale_row(&g, op->src[0], op, i1, i2, i3);   break;
            case GGML_OP_WIN_PART:    win_part_row(op->src[0], op, i1, i2, i3);      break;
            case GGML_OP_WIN_UNPART:  win_unpart_row(op->src[0], op, i1, i2, i3);    break;
            case GGML_OP_GET_REL_POS: get_rel_pos_row(op->src[0], op, i1, i2, i3);   break;
            case GGML_OP_ADD_REL_POS: add_rel_pos_row(op->src[0], op, i1, i2, i3);   break;
            case GGML_OP_IM2COL_BACK: im2col_back_row(op->src[0], op, i1, i2, i3);   break;
            default:                  return GGML_STATUS_FAILED;
        }
    }
    return GGML_STATUS_SUCCESS;
}
