// CPU kernels of the unary family: UNARY (every ggml_unary_op), GLU (one-tensor, swapped and split
// forms), LEAKY_RELU, CLAMP, SCALE, SQR, SQRT, LOG, SIN, COS, ARANGE, FILL.
//
// Every op maps rows of floats to rows of floats. F32 rows with contiguous, aligned elements are
// passed to the row functions in place; other rows (F16, BF16, strided views) go through stack
// buffers of UNARY_CHUNK floats. Sources and result may have any strides and any of the float
// types; the result may be the source itself (in-place variants, CLAMP).

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"

#include <math.h>
#include <string.h>

#define UNARY_CHUNK 512

// below these element counts one thread computes the node (waking more costs more than it saves)
#define UNARY_MIN_LIGHT 8192 // a few instructions per element
#define UNARY_MIN_HEAVY 1024 // exponentials, logarithms, sines

struct unary_op {
    const struct ggml_vec_funcs * vf;
    float p[4];
    int   glu;  // enum ggml_glu_op (GLU only)
    // y[0..n) = f(x[0..n)) for n <= UNARY_CHUNK; y may be x
    void (*row)(const struct unary_op * u, int64_t n, float * y, const float * x);
};

// F32 whose elements can be read as a float array (contiguous in dim 0, aligned)
static bool unary_f32_rows(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float) &&
        (((uintptr_t) t->data | t->nb[1] | t->nb[2] | t->nb[3]) % sizeof(float)) == 0;
}

static inline char * unary_row_ptr(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

//
// row functions
//

#define UNARY_ROW_VF(name, member)                                                          \
    static void name(const struct unary_op * u, int64_t n, float * y, const float * x) {    \
        u->vf->member(n, y, x);                                                             \
    }

UNARY_ROW_VF(row_abs,         abs_f32)
UNARY_ROW_VF(row_sgn,         sgn_f32)
UNARY_ROW_VF(row_neg,         neg_f32)
UNARY_ROW_VF(row_step,        step_f32)
UNARY_ROW_VF(row_tanh,        tanh_f32)
UNARY_ROW_VF(row_relu,        relu_f32)
UNARY_ROW_VF(row_sigmoid,     sigmoid_f32)
UNARY_ROW_VF(row_gelu,        gelu_f32)
UNARY_ROW_VF(row_gelu_quick,  gelu_quick_f32)
UNARY_ROW_VF(row_silu,        silu_f32)
UNARY_ROW_VF(row_hardswish,   hardswish_f32)
UNARY_ROW_VF(row_hardsigmoid, hardsigmoid_f32)
UNARY_ROW_VF(row_exp,         exp_f32)
UNARY_ROW_VF(row_expm1,       expm1_f32)
UNARY_ROW_VF(row_gelu_erf,    gelu_erf_f32)
UNARY_ROW_VF(row_floor,       floor_f32)
UNARY_ROW_VF(row_ceil,        ceil_f32)
UNARY_ROW_VF(row_round,       round_f32)
UNARY_ROW_VF(row_trunc,       trunc_f32)
UNARY_ROW_VF(row_sqr,         sqr_f32)
UNARY_ROW_VF(row_sqrt,        sqrt_f32)

#undef UNARY_ROW_VF

static void row_scale(const struct unary_op * u, int64_t n, float * y, const float * x) {
    u->vf->scale_f32(n, y, x, u->p[0], u->p[1]);
}

static void row_clamp(const struct unary_op * u, int64_t n, float * y, const float * x) {
    u->vf->clamp_f32(n, y, x, u->p[0], u->p[1]);
}

static void row_leaky_relu(const struct unary_op * u, int64_t n, float * y, const float * x) {
    u->vf->leaky_relu_f32(n, y, x, u->p[0]);
}

static void row_log(const struct unary_op * u, int64_t n, float * y, const float * x) {
    GGML_UNUSED(u);
    for (int64_t i = 0; i < n; i++) {
        y[i] = logf(x[i]);
    }
}

static void row_sin(const struct unary_op * u, int64_t n, float * y, const float * x) {
    GGML_UNUSED(u);
    for (int64_t i = 0; i < n; i++) {
        y[i] = sinf(x[i]);
    }
}

static void row_cos(const struct unary_op * u, int64_t n, float * y, const float * x) {
    GGML_UNUSED(u);
    for (int64_t i = 0; i < n; i++) {
        y[i] = cosf(x[i]);
    }
}

// log(1 + e^x), written so that e^x never overflows
static void row_softplus(const struct unary_op * u, int64_t n, float * y, const float * x) {
    GGML_UNUSED(u);
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v > 0.0f ? v + log1pf(expf(-v)) : log1pf(expf(v));
    }
}

static void row_elu(const struct unary_op * u, int64_t n, float * y, const float * x) {
    float t[UNARY_CHUNK];
    u->vf->expm1_f32(n, t, x);
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i] > 0.0f ? x[i] : t[i];
    }
}

// p = alpha_n, alpha_p, beta, eps: x > 0 ? alpha_p x^2 + beta x : (expm1(min(x, eps)) - x) alpha_n + beta x
static void row_xielu(const struct unary_op * u, int64_t n, float * y, const float * x) {
    const float alpha_n = u->p[0], alpha_p = u->p[1], beta = u->p[2], eps = u->p[3];
    float t[UNARY_CHUNK];
    // t = min(x, eps) (a NaN x stays NaN here, and the result is NaN either way)
    u->vf->clamp_f32(n, t, x, -INFINITY, eps);
    u->vf->expm1_f32(n, t, t);
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v > 0.0f ? alpha_p*v*v + beta*v : (t[i] - v)*alpha_n + beta*v;
    }
}

// the row function of an element-wise op; false for ops and sub-ops this family does not know
static bool unary_prepare(const struct ggml_tensor * op, const struct ggml_vec_funcs * vf, struct unary_op * u) {
    memset(u, 0, sizeof(*u));
    u->vf = vf;
    switch (op->op) {
        case GGML_OP_SQR:  u->row = row_sqr;  return true;
        case GGML_OP_SQRT: u->row = row_sqrt; return true;
        case GGML_OP_LOG:  u->row = row_log;  return true;
        case GGML_OP_SIN:  u->row = row_sin;  return true;
        case GGML_OP_COS:  u->row = row_cos;  return true;
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
            u->p[0] = ggml_get_op_params_f32(op, 0);
            u->p[1] = ggml_get_op_params_f32(op, 1);
            u->row  = op->op == GGML_OP_SCALE ? row_scale : row_clamp;
            return true;
        case GGML_OP_LEAKY_RELU:
            u->p[0] = ggml_get_op_params_f32(op, 0);
            u->row  = row_leaky_relu;
            return true;
        case GGML_OP_UNARY:
            break;
        default:
            return false;
    }
    switch ((enum ggml_unary_op) ggml_get_op_params_i32(op, 0)) {
        case GGML_UNARY_OP_ABS:         u->row = row_abs;         return true;
        case GGML_UNARY_OP_SGN:         u->row = row_sgn;         return true;
        case GGML_UNARY_OP_NEG:         u->row = row_neg;         return true;
        case GGML_UNARY_OP_STEP:        u->row = row_step;        return true;
        case GGML_UNARY_OP_TANH:        u->row = row_tanh;        return true;
        case GGML_UNARY_OP_ELU:         u->row = row_elu;         return true;
        case GGML_UNARY_OP_RELU:        u->row = row_relu;        return true;
        case GGML_UNARY_OP_SIGMOID:     u->row = row_sigmoid;     return true;
        case GGML_UNARY_OP_GELU:        u->row = row_gelu;        return true;
        case GGML_UNARY_OP_GELU_QUICK:  u->row = row_gelu_quick;  return true;
        case GGML_UNARY_OP_SILU:        u->row = row_silu;        return true;
        case GGML_UNARY_OP_HARDSWISH:   u->row = row_hardswish;   return true;
        case GGML_UNARY_OP_HARDSIGMOID: u->row = row_hardsigmoid; return true;
        case GGML_UNARY_OP_EXP:         u->row = row_exp;         return true;
        case GGML_UNARY_OP_EXPM1:       u->row = row_expm1;       return true;
        case GGML_UNARY_OP_SOFTPLUS:    u->row = row_softplus;    return true;
        case GGML_UNARY_OP_GELU_ERF:    u->row = row_gelu_erf;    return true;
        case GGML_UNARY_OP_FLOOR:       u->row = row_floor;       return true;
        case GGML_UNARY_OP_CEIL:        u->row = row_ceil;        return true;
        case GGML_UNARY_OP_ROUND:       u->row = row_round;       return true;
        case GGML_UNARY_OP_TRUNC:       u->row = row_trunc;       return true;
        case GGML_UNARY_OP_XIELU:
            for (int i = 0; i < 4; i++) {
                u->p[i] = ggml_get_op_params_f32(op, 1 + i);
            }
            u->row = row_xielu;
            return true;
        default:
            return false;
    }
}

// cheap ops: those whose row function is a handful of instructions per element
static bool unary_is_light(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
        case GGML_OP_LEAKY_RELU:
        case GGML_OP_ARANGE:
        case GGML_OP_FILL:
            return true;
        case GGML_OP_UNARY:
            switch ((enum ggml_unary_op) ggml_get_op_params_i32(op, 0)) {
                case GGML_UNARY_OP_ABS:
                case GGML_UNARY_OP_SGN:
                case GGML_UNARY_OP_NEG:
                case GGML_UNARY_OP_STEP:
                case GGML_UNARY_OP_RELU:
                case GGML_UNARY_OP_HARDSWISH:
                case GGML_UNARY_OP_HARDSIGMOID:
                case GGML_UNARY_OP_FLOOR:
                case GGML_UNARY_OP_CEIL:
                case GGML_UNARY_OP_ROUND:
                case GGML_UNARY_OP_TRUNC:
                    return true;
                default:
                    return false;
            }
        default:
            return false;
    }
}

//
// element-wise maps
//

static void unary_map(const struct ggml_compute_params * params, struct ggml_tensor * dst, const struct unary_op * u) {
    const struct ggml_tensor * src = dst->src[0];
    const int64_t ne0   = dst->ne[0];
    const int64_t nrows = ggml_nrows(dst);
    if (ne0 == 0 || nrows == 0) {
        return;
    }
    int64_t start, end;
    ggml_vec_split_elements(nrows, ne0, params->ith, params->nth, &start, &end);

    const bool x_direct = unary_f32_rows(src);
    const bool y_direct = unary_f32_rows(dst);
    float bx[UNARY_CHUNK];
    float by[UNARY_CHUNK];

    for (int64_t pos = start; pos < end; ) {
        const int64_t r  = pos / ne0;
        const int64_t c0 = pos - r*ne0;
        const int64_t c1 = ne0 < c0 + (end - pos) ? ne0 : c0 + (end - pos);
        int64_t i1, i2, i3;
        ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
        const char * xr = unary_row_ptr(src, i1, i2, i3);
        char       * yr = unary_row_ptr(dst, i1, i2, i3);
        for (int64_t c = c0; c < c1; c += UNARY_CHUNK) {
            const int64_t m = c1 - c < UNARY_CHUNK ? c1 - c : UNARY_CHUNK;
            const float * xp = bx;
            if (x_direct) {
                xp = (const float *) xr + c;
            } else {
                ggml_vec_load_f32(u->vf, src->type, xr + c*src->nb[0], src->nb[0], m, bx);
            }
            float * yp = y_direct ? (float *) yr + c : by;
            u->row(u, m, yp, xp);
            if (!y_direct) {
                ggml_vec_store_f32(u->vf, dst->type, yr + c*dst->nb[0], dst->nb[0], m, by);
            }
        }
        pos += c1 - c0;
    }
}

//
// GLU: y = act(x)*g
//

static void glu_row(const struct unary_op * u, int64_t n, float * y, const float * x, const float * g) {
    const struct ggml_vec_funcs * vf = u->vf;
    switch ((enum ggml_glu_op) u->glu) {
        case GGML_GLU_OP_REGLU:       vf->relu_f32(n, y, x);       break;
        case GGML_GLU_OP_GEGLU:       vf->gelu_f32(n, y, x);       break;
        case GGML_GLU_OP_SWIGLU:      vf->swiglu_f32(n, y, x, g);  return;
        case GGML_GLU_OP_GEGLU_ERF:   vf->gelu_erf_f32(n, y, x);   break;
        case GGML_GLU_OP_GEGLU_QUICK: vf->gelu_quick_f32(n, y, x); break;
        case GGML_GLU_OP_SWIGLU_OAI: {
            // x capped at limit, g clamped to [-limit, limit]: x*sigmoid(alpha x)*(g + 1)
            const float alpha = u->p[0], limit = u->p[1];
            float t[UNARY_CHUNK];
            for (int64_t i = 0; i < n; i++) {
                const float xc = x[i] > limit ? limit : x[i];
                t[i] = alpha*xc;
            }
            vf->sigmoid_f32(n, t, t);
            for (int64_t i = 0; i < n; i++) {
                const float xc = x[i] > limit ? limit : x[i];
                const float gc = g[i] > limit ? limit : (g[i] < -limit ? -limit : g[i]);
                y[i] = xc*t[i]*(gc + 1.0f);
            }
            return;
        }
        default:
            return;
    }
    vf->mul_f32(n, y, y, g);
}

// GLU results at least this large are cut into chunks of GLU_CHUNK_ELEMS that the threads take
// in turn (a thread that starts late or is preempted takes fewer instead of finishing last)
#define GLU_DYNAMIC_MIN  ((int64_t) 1 << 20)
#define GLU_CHUNK_ELEMS  ((int64_t) 1 << 16)

struct glu_args {
    const struct ggml_tensor * a, * gt;
    struct ggml_tensor       * dst;
    const struct unary_op    * u;
    int64_t nc, x_off, g_off;
    bool    x_direct, g_direct, y_direct;
};

// elements [start, end) of the result (row-major)
static void glu_range(const struct glu_args * ga, int64_t start, int64_t end) {
    const struct ggml_tensor * a   = ga->a;
    const struct ggml_tensor * gt  = ga->gt;
    struct ggml_tensor       * dst = ga->dst;
    const struct unary_op    * u   = ga->u;
    const int64_t nc = ga->nc;
    float bx[UNARY_CHUNK];
    float bg[UNARY_CHUNK];
    float by[UNARY_CHUNK];

    for (int64_t pos = start; pos < end; ) {
        const int64_t r  = pos / nc;
        const int64_t c0 = pos - r*nc;
        const int64_t c1 = nc < c0 + (end - pos) ? nc : c0 + (end - pos);
        int64_t i1, i2, i3;
        ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
        const char * xr = unary_row_ptr(a,  i1, i2, i3) + ga->x_off*a->nb[0];
        const char * gr = unary_row_ptr(gt, i1, i2, i3) + ga->g_off*gt->nb[0];
        char       * yr = unary_row_ptr(dst, i1, i2, i3);
        for (int64_t c = c0; c < c1; c += UNARY_CHUNK) {
            const int64_t m = c1 - c < UNARY_CHUNK ? c1 - c : UNARY_CHUNK;
            const float * xp = bx;
            const float * gp = bg;
            if (ga->x_direct) {
                xp = (const float *) xr + c;
            } else {
                ggml_vec_load_f32(u->vf, a->type, xr + c*a->nb[0], a->nb[0], m, bx);
            }
            if (ga->g_direct) {
                gp = (const float *) gr + c;
            } else {
                ggml_vec_load_f32(u->vf, gt->type, gr + c*gt->nb[0], gt->nb[0], m, bg);
            }
            float * yp = ga->y_direct ? (float *) yr + c : by;
            glu_row(u, m, yp, xp, gp);
            if (!ga->y_direct) {
                ggml_vec_store_f32(u->vf, dst->type, yr + c*dst->nb[0], dst->nb[0], m, by);
            }
        }
        pos += c1 - c0;
    }
}

static void glu_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst, const struct unary_op * u) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t nc    = dst->ne[0];
    const int64_t nrows = ggml_nrows(dst);
    if (nc == 0 || nrows == 0) {
        return;
    }
    const bool swapped = ggml_get_op_params_i32(dst, 1) != 0;
    struct glu_args ga = {
        .a     = a,
        .gt    = b != NULL ? b : a,
        .dst   = dst,
        .u     = u,
        .nc    = nc,
        // element offsets of x and g in a's rows (one-tensor form)
        .x_off = b == NULL && swapped ? nc : 0,
        .g_off = b == NULL && !swapped ? nc : 0,
    };
    ga.x_direct = unary_f32_rows(a);
    ga.g_direct = unary_f32_rows(ga.gt);
    ga.y_direct = unary_f32_rows(dst);

    const int64_t total = nrows*nc;
    if (params->nth > 1 && total >= GLU_DYNAMIC_MIN) {
        const int64_t n_chunks = (total + GLU_CHUNK_ELEMS - 1) / GLU_CHUNK_ELEMS;
        for (int64_t k = ggml_cpu_chunk_next(params->threadpool); k < n_chunks; k = ggml_cpu_chunk_next(params->threadpool)) {
            const int64_t e = (k + 1)*GLU_CHUNK_ELEMS;
            glu_range(&ga, k*GLU_CHUNK_ELEMS, e < total ? e : total);
        }
    } else {
        int64_t start, end;
        ggml_vec_split_elements(nrows, nc, params->ith, params->nth, &start, &end);
        glu_range(&ga, start, end);
    }
}

//
// ARANGE, FILL: no source data
//

// element i of the (flattened) result = start + i*step (ARANGE) or value (FILL)
static void unary_generate(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_vec_funcs * vf, double value, double step) {
    const int64_t ne0   = dst->ne[0];
    const int64_t nrows = ggml_nrows(dst);
    if (ne0 == 0 || nrows == 0) {
        return;
    }
    int64_t start, end;
    ggml_vec_split_elements(nrows, ne0, params->ith, params->nth, &start, &end);
    float buf[UNARY_CHUNK];
    for (int64_t pos = start; pos < end; ) {
        const int64_t r  = pos / ne0;
        const int64_t c0 = pos - r*ne0;
        const int64_t c1 = ne0 < c0 + (end - pos) ? ne0 : c0 + (end - pos);
        int64_t i1, i2, i3;
        ggml_vec_row_index(dst->ne, r, &i1, &i2, &i3);
        char * yr = unary_row_ptr(dst, i1, i2, i3);
        for (int64_t c = c0; c < c1; c += UNARY_CHUNK) {
            const int64_t m = c1 - c < UNARY_CHUNK ? c1 - c : UNARY_CHUNK;
            for (int64_t k = 0; k < m; k++) {
                buf[k] = (float) (value + (double) (r*ne0 + c + k)*step);
            }
            ggml_vec_store_f32(vf, dst->type, yr + c*dst->nb[0], dst->nb[0], m, buf);
        }
        pos += c1 - c0;
    }
}

//
// family entry points
//

static bool unary_float_map_ok(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    return a != NULL && ggml_vec_is_float_type(a->type) && ggml_vec_is_float_type(op->type) &&
        ggml_are_same_shape(a, op);
}

static bool glu_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const int32_t g = ggml_get_op_params_i32(op, 0);
    if (a == NULL || g < 0 || g >= GGML_GLU_OP_COUNT ||
        !ggml_vec_is_float_type(a->type) || !ggml_vec_is_float_type(op->type)) {
        return false;
    }
    if (b != NULL) {
        return ggml_vec_is_float_type(b->type) && ggml_are_same_shape(a, b) && ggml_are_same_shape(a, op);
    }
    // an odd row length leaves a's last element unused, as in the family
    return op->ne[0] == a->ne[0]/2 && op->ne[1] == a->ne[1] && op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
}

bool ggml_cpu_unary_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_ARANGE:
        case GGML_OP_FILL:
            return ggml_vec_is_float_type(op->type);
        case GGML_OP_GLU:
            return glu_supports(op);
        case GGML_OP_UNARY: {
            const int32_t u = ggml_get_op_params_i32(op, 0);
            return u >= 0 && u < GGML_UNARY_OP_COUNT && unary_float_map_ok(op);
        }
        case GGML_OP_LEAKY_RELU:
        case GGML_OP_CLAMP:
        case GGML_OP_SCALE:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_SIN:
        case GGML_OP_COS:
            return unary_float_map_ok(op);
        default:
            return false;
    }
}

size_t ggml_cpu_unary_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op);
    GGML_UNUSED(n_threads);
    return 0;
}

int ggml_cpu_unary_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const int64_t min = unary_is_light(op) ? UNARY_MIN_LIGHT : UNARY_MIN_HEAVY;
    return ggml_nelements(op) < min ? 1 : n_threads;
}

enum ggml_status ggml_cpu_unary_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    switch (op->op) {
        case GGML_OP_ARANGE:
            unary_generate(params, op, vf, ggml_get_op_params_f32(op, 0), ggml_get_op_params_f32(op, 2));
            return GGML_STATUS_SUCCESS;
        case GGML_OP_FILL:
            unary_generate(params, op, vf, ggml_get_op_params_f32(op, 0), 0.0);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_GLU: {
            struct unary_op u;
            memset(&u, 0, sizeof(u));
            u.vf   = vf;
            u.glu  = ggml_get_op_params_i32(op, 0);
            u.p[0] = ggml_get_op_params_f32(op, 2); // SWIGLU_OAI alpha
            u.p[1] = ggml_get_op_params_f32(op, 3); // SWIGLU_OAI limit
            if (!glu_supports(op)) {
                GGML_LOG_ERROR("%s: cannot compute %s (node '%s')\n", __func__, ggml_op_desc(op), op->name);
                return GGML_STATUS_FAILED;
            }
            glu_forward(params, op, &u);
            return GGML_STATUS_SUCCESS;
        }
        default: {
            struct unary_op u;
            if (!unary_prepare(op, vf, &u) || !unary_float_map_ok(op)) {
                GGML_LOG_ERROR("%s: cannot compute %s (node '%s', type %s)\n", __func__, ggml_op_desc(op), op->name,
                        ggml_type_name(op->type));
                return GGML_STATUS_FAILED;
            }
            unary_map(params, op, &u);
            return GGML_STATUS_SUCCESS;
        }
    }
}
