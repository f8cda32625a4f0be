// CPU kernels of issue 22's "misc" group: CUMSUM, TRI, DIAG, ROLL, PAD_REFLECT_1D,
// TIMESTEP_EMBEDDING and POOL_1D (FILL is computed by the unary family, circular PAD by the copy family).
// Semantics as tests/ref/ref-misc.c. Every kernel splits the result's rows over the threads and
// reads its sources through their strides.

#include "ggml-cpu-impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

// below this many result elements one thread computes the node
#define MISC_MIN_ELEMS 16384

static inline char * misc_ptr(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

static inline float misc_f32(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    float v;
    memcpy(&v, misc_ptr(t, i0, i1, i2, i3), sizeof(v));
    return v;
}

static inline void misc_set_f32(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    memcpy(misc_ptr(t, i0, i1, i2, i3), &v, sizeof(v));
}

static bool misc_same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

static bool misc_plain(enum ggml_type type) {
    return (int) type >= 0 && type < GGML_TYPE_COUNT && !ggml_is_quantized(type) && ggml_blck_size(type) == 1;
}

bool ggml_cpu_misc_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_CUMSUM:
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && misc_same_shape(a, op);
        case GGML_OP_TRI: {
            const int t = ggml_get_op_params_i32(op, 0);
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && misc_same_shape(a, op) &&
                   a->ne[0] == a->ne[1] && t >= GGML_TRI_TYPE_UPPER_DIAG && t <= GGML_TRI_TYPE_LOWER;
        }
        case GGML_OP_DIAG:
            return misc_plain(a->type) && op->type == a->type && a->ne[1] == 1 && op->ne[0] == a->ne[0] &&
                   op->ne[1] == a->ne[0] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
        case GGML_OP_ROLL:
            return misc_plain(a->type) && op->type == a->type && misc_same_shape(a, op);
        case GGML_OP_PAD_REFLECT_1D: {
            const int p0 = ggml_get_op_params_i32(op, 0), p1 = ggml_get_op_params_i32(op, 1);
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && p0 >= 0 && p1 >= 0 && p0 < a->ne[0] &&
                   p1 < a->ne[0] && op->ne[0] == a->ne[0] + p0 + p1 && op->ne[1] == a->ne[1] && op->ne[2] == a->ne[2] &&
                   op->ne[3] == a->ne[3];
        }
        case GGML_OP_TIMESTEP_EMBEDDING: {
            const int dim = ggml_get_op_params_i32(op, 0), max_period = ggml_get_op_params_i32(op, 1);
            return a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && dim > 0 && max_period > 0 &&
                   op->ne[0] == dim && op->ne[1] == a->ne[0];
        }
        case GGML_OP_POOL_1D: {
            const int pop = ggml_get_op_params_i32(op, 0), k0 = ggml_get_op_params_i32(op, 1);
            const int s0 = ggml_get_op_params_i32(op, 2), p0 = ggml_get_op_params_i32(op, 3);
            return (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && op->type == GGML_TYPE_F32 &&
                   (pop == GGML_OP_POOL_MAX || pop == GGML_OP_POOL_AVG) && k0 > 0 && s0 > 0 && p0 >= 0 &&
                   op->ne[1] == a->ne[1] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
        }
        default:
            return false;
    }
}

size_t ggml_cpu_misc_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op);
    GGML_UNUSED(n_threads);
    return 0;
}

int ggml_cpu_misc_n_tasks(const struct ggml_tensor * op, int n_threads) {
    return ggml_nelements(op) < MISC_MIN_ELEMS ? 1 : n_threads;
}

// row r of the result (over dims 1..3) -> i1, i2, i3
static inline void misc_row(const struct ggml_tensor * t, int64_t r, int64_t * i1, int64_t * i2, int64_t * i3) {
    *i1 = r % t->ne[1];
    *i2 = (r / t->ne[1]) % t->ne[2];
    *i3 = r / (t->ne[1]*t->ne[2]);
}

// a running sum in double: rows of thousands of elements would otherwise drift by many float roundings
static void cumsum_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    double acc = 0.0;
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        acc += misc_f32(a, i0, i1, i2, i3);
        misc_set_f32(dst, i0, i1, i2, i3, (float) acc);
    }
}

static bool tri_keep(int type, int64_t i0, int64_t i1) {
    switch (type) {
        case GGML_TRI_TYPE_UPPER_DIAG: return i0 >= i1;
        case GGML_TRI_TYPE_UPPER:      return i0 >  i1;
        case GGML_TRI_TYPE_LOWER_DIAG: return i0 <= i1;
        default:                       return i0 <  i1;
    }
}

static void tri_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int type = ggml_get_op_params_i32(dst, 0);
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        misc_set_f32(dst, i0, i1, i2, i3, tri_keep(type, i0, i1) ? misc_f32(a, i0, i1, i2, i3) : 0.0f);
    }
}

static void diag_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const size_t es = ggml_type_size(dst->type);
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        memset(misc_ptr(dst, i0, i1, i2, i3), 0, es); // all-zero bytes are 0 in every plain type
    }
    memcpy(misc_ptr(dst, i1, i1, i2, i3), misc_ptr(a, i1, 0, i2, i3), es);
}

// (i - shift) mod n in [0, n)
static inline int64_t roll_src(int64_t i, int shift, int64_t n) {
    int64_t j = (i - shift) % n;
    return j < 0 ? j + n : j;
}

static void roll_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const size_t es = ggml_type_size(dst->type);
    const int64_t j1 = roll_src(i1, ggml_get_op_params_i32(dst, 1), dst->ne[1]);
    const int64_t j2 = roll_src(i2, ggml_get_op_params_i32(dst, 2), dst->ne[2]);
    const int64_t j3 = roll_src(i3, ggml_get_op_params_i32(dst, 3), dst->ne[3]);
    const int s0 = ggml_get_op_params_i32(dst, 0);
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        memcpy(misc_ptr(dst, i0, i1, i2, i3), misc_ptr(a, roll_src(i0, s0, dst->ne[0]), j1, j2, j3), es);
    }
}

static void reflect_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int64_t p0 = ggml_get_op_params_i32(dst, 0);
    const int64_t n = a->ne[0];
    if (a->nb[0] == sizeof(float) && dst->nb[0] == sizeof(float)) {
        // packed rows: the middle is a copy, the edges are reversed copies of src[1..p0] and src[n-1-p1..n-2]
        const int64_t p1 = dst->ne[0] - n - p0;
        const float * src = (const float *) misc_ptr(a, 0, i1, i2, i3);
        float * out = (float *) misc_ptr(dst, 0, i1, i2, i3);
        memcpy(out + p0, src, (size_t) n*sizeof(float));
        for (int64_t i = 0; i < p0; i++) {
            out[i] = src[p0 - i];
        }
        for (int64_t i = 0; i < p1; i++) {
            out[p0 + n + i] = src[n - 2 - i];
        }
        return;
    }
    for (int64_t i0 = 0; i0 < dst->ne[0]; i0++) {
        int64_t j = i0 - p0;
        j = j < 0 ? -j : (j >= n ? 2*(n - 1) - j : j);
        misc_set_f32(dst, i0, i1, i2, i3, misc_f32(a, j, i1, i2, i3));
    }
}

static void timestep_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int dim = ggml_get_op_params_i32(dst, 0);
    const int max_period = ggml_get_op_params_i32(dst, 1);
    const int half = dim / 2;
    const double t = misc_f32(a, i1, 0, 0, 0);
    for (int j = 0; j < half; j++) {
        const double arg = t*exp(-log((double) max_period)*j/half);
        misc_set_f32(dst, j, i1, i2, i3, (float) cos(arg));
        misc_set_f32(dst, j + half, i1, i2, i3, (float) sin(arg));
    }
    if (dim % 2 != 0) {
        misc_set_f32(dst, dim - 1, i1, i2, i3, 0.0f);
    }
}

static void pool_1d_row(const struct ggml_tensor * a, struct ggml_tensor * dst, int64_t i1, int64_t i2, int64_t i3) {
    const int pop = ggml_get_op_params_i32(dst, 0), k0 = ggml_get_op_params_i32(dst, 1);
    const int s0 = ggml_get_op_params_i32(dst, 2), p0 = ggml_get_op_params_i32(dst, 3);
    for (int64_t o = 0; o < dst->ne[0]; o++) {
        const int64_t base = o*s0 - p0;
        float acc = pop == GGML_OP_POOL_MAX ? -FLT_MAX : 0.0f;
        int count = 0;
        for (int k = 0; k < k0; k++) {
            const int64_t j = base + k;
            if (j < 0 || j >= a->ne[0]) {
                continue; // padding is not an element
            }
            const char * p = misc_ptr(a, j, i1, i2, i3);
            float v;
            if (a->type == GGML_TYPE_F32) {
                memcpy(&v, p, sizeof(v));
            } else {
                ggml_fp16_t h;
                memcpy(&h, p, sizeof(h));
                v = ggml_fp16_to_fp32(h);
            }
            acc = pop == GGML_OP_POOL_MAX ? (v > acc ? v : acc) : acc + v;
            count++;
        }
        if (pop == GGML_OP_POOL_AVG) {
            acc = count > 0 ? acc / (float) count : 0.0f;
        }
        misc_set_f32(dst, o, i1, i2, i3, acc);
    }
}

enum ggml_status ggml_cpu_misc_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (!ggml_cpu_misc_supports(op)) {
        if (params->ith == 0) {
            ggml_cpu_log_unsupported(__func__, -1, op);
        }
        return GGML_STATUS_FAILED;
    }
    void (*row)(const struct ggml_tensor *, struct ggml_tensor *, int64_t, int64_t, int64_t);
    switch (op->op) {
        case GGML_OP_CUMSUM:             row = cumsum_row;   break;
        case GGML_OP_TRI:                row = tri_row;      break;
        case GGML_OP_DIAG:               row = diag_row;     break;
        case GGML_OP_ROLL:               row = roll_row;     break;
        case GGML_OP_PAD_REFLECT_1D:     row = reflect_row;  break;
        case GGML_OP_TIMESTEP_EMBEDDING: row = timestep_row; break;
        case GGML_OP_POOL_1D:            row = pool_1d_row;  break;
        default:                         return GGML_STATUS_FAILED;
    }
    int64_t r0, r1;
    ggml_cpu_split_range(op->ne[1]*op->ne[2]*op->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        misc_row(op, r, &i1, &i2, &i3);
        row(op->src[0], op, i1, i2, i3);
    }
    return GGML_STATUS_SUCCESS;
}
