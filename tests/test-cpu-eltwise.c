// Checks the CPU backend's element-wise families (unary, binary, copy, reduce) against the
// double-precision reference (tests/ref): every op is built with the public constructors on a CPU
// context, computed with ggml_graph_compute_with_ctx and compared by NMSE with a bound per op and
// result type:
//     exact data movement and exact arithmetic (copies, conversions, relu, floor, argsort...): 0
//     F32 results of float arithmetic (add, div, scale, sqrt, sums...):                       1e-12
//     F32 results of transcendental functions (exp, tanh, gelu, log, sin...):                 1e-10
//     F16 results: 2e-6 (rounding to F16: 2^-11 relative at most);  BF16 results: 5e-5 (2^-8)
// Cases cover F32/F16/BF16 where the family takes them, non-contiguous inputs (rows with gaps,
// transposed and permuted views), broadcasting shapes, in-place variants, 1 and 2 threads (with
// tensors large enough for the work to be split), and bad inputs (unsupported types, indices out
// of range) that must fail cleanly.
//
// SIMD levels: run without GGML_CPU_ISA, the test first runs itself again under
// GGML_CPU_ISA=portable and GGML_CPU_ISA=avx2 (fork + exec), then runs at the default level
// (AVX-512 where the CPU has it); it fails if either child fails.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-isa.h"
#include "ggml-ref.h"
#include "test-common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define B_EXACT  0.0
#define B_F32    1e-12
#define B_F32_TR 1e-10
#define B_F16    2e-6
#define B_BF16   5e-5

static struct ggml_context * g_ctx;
static const char *          g_isa = "?";

static double bound_for(enum ggml_type type, bool transcendental) {
    switch (type) {
        case GGML_TYPE_F16:  return B_F16;
        case GGML_TYPE_BF16: return B_BF16;
        case GGML_TYPE_F32:  return transcendental ? B_F32_TR : B_F32;
        default:             return B_EXACT;
    }
}

static void ctx_reset(void) {
    ggml_reset(g_ctx);
}

//
// tensors
//

static void tset(struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v) {
    char * p = (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
    switch (t->type) {
        case GGML_TYPE_F32:  { float       x = (float) v;                    memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_F16:  { ggml_fp16_t x = ggml_fp32_to_fp16((float) v); memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_BF16: { ggml_bf16_t x = ggml_fp32_to_bf16((float) v); memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_F64:  { double      x = v;                            memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I8:   { int8_t      x = (int8_t) v;                   memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I16:  { int16_t     x = (int16_t) v;                  memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I32:  { int32_t     x = (int32_t) v;                  memcpy(p, &x, sizeof(x)); } break;
        case GGML_TYPE_I64:  { int64_t     x = (int64_t) v;                  memcpy(p, &x, sizeof(x)); } break;
        default: break;
    }
}

static bool is_int_type(enum ggml_type type) {
    return type == GGML_TYPE_I8 || type == GGML_TYPE_I16 || type == GGML_TYPE_I32 || type == GGML_TYPE_I64;
}

// random values in [lo, hi] (integers for integer types); every 7th value a multiple of 1/2
static void fill_rand(struct ggml_tensor * t, double lo, double hi) {
    int64_t k = 0;
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++, k++) {
        double v = test_rand_uniform(lo, hi);
        if (is_int_type(t->type)) {
            v = floor(v);
        } else if (k % 7 == 3) {
            v = round(2.0*v)/2.0;
        }
        tset(t, i0, i1, i2, i3, v);
    }
}

enum layout {
    L_CONTIG, // a new tensor
    L_GAPS,   // rows contiguous, gaps between rows (a view into a wider tensor)
    L_TRANS,  // dims 0 and 1 transposed (elements of a row apart)
    L_PERM,   // dims permuted (0 <-> 2)
};

// a tensor of shape ne with the given layout, filled with random values in [lo, hi]
static struct ggml_tensor * mk(enum ggml_type type, const int64_t ne[4], enum layout l, double lo, double hi) {
    struct ggml_tensor * t = NULL;
    switch (l) {
        case L_CONTIG:
            t = ggml_new_tensor_4d(g_ctx, type, ne[0], ne[1], ne[2], ne[3]);
            break;
        case L_GAPS: {
            struct ggml_tensor * base = ggml_new_tensor_4d(g_ctx, type, ne[0] + 3, ne[1], ne[2], ne[3]);
            t = ggml_view_4d(g_ctx, base, ne[0], ne[1], ne[2], ne[3], base->nb[1], base->nb[2], base->nb[3],
                    ggml_type_size(type));
            break;
        }
        case L_TRANS: {
            struct ggml_tensor * base = ggml_new_tensor_4d(g_ctx, type, ne[1], ne[0], ne[2], ne[3]);
            t = ggml_transpose(g_ctx, base);
            break;
        }
        case L_PERM: {
            struct ggml_tensor * base = ggml_new_tensor_4d(g_ctx, type, ne[2], ne[1], ne[0], ne[3]);
            t = ggml_permute(g_ctx, base, 2, 1, 0, 3);
            break;
        }
    }
    if (t != NULL) {
        fill_rand(t, lo, hi);
    }
    return t;
}

static struct ggml_tensor * mk4(enum ggml_type type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, enum layout l,
        double lo, double hi) {
    const int64_t ne[4] = { ne0, ne1, ne2, ne3 };
    return mk(type, ne, l, lo, hi);
}

//
// computing and comparing
//

static enum ggml_status compute(struct ggml_tensor * node, int n_threads) {
    struct ggml_cgraph * gf = ggml_new_graph(g_ctx);
    if (gf == NULL) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    ggml_build_forward_expand(gf, node);
    return ggml_graph_compute_with_ctx(g_ctx, gf, n_threads);
}

// Computes node with n_threads and compares it with the reference (taken before computing, as
// in-place nodes overwrite their source). Returns the NMSE (INFINITY on failure).
static double check_node(struct ggml_tensor * node, int n_threads, double bound, const char * fmt, ...)
    __attribute__((format(printf, 4, 5)));

static double check_node(struct ggml_tensor * node, int n_threads, double bound, const char * fmt, ...) {
    char name[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(name, sizeof(name), fmt, args);
    va_end(args);

    if (!TEST_CHECK_MSG(node != NULL, "[%s] %s: the constructor returned NULL", g_isa, name)) {
        return INFINITY;
    }
    // F64 results are read back through float: allow for that rounding
    if (node->type == GGML_TYPE_F64 && bound < 1e-14) {
        bound = 1e-14;
    }
    const int64_t n = ggml_nelements(node);
    double * ref = malloc((size_t) (n > 0 ? n : 1)*sizeof(double));
    float  * got = malloc((size_t) (n > 0 ? n : 1)*sizeof(float));
    double nmse = INFINITY;
    char err[256] = "";
    if (!TEST_CHECK(ref != NULL && got != NULL)) {
        goto done;
    }
    if (!TEST_CHECK_MSG(ggml_ref_compute(node, ref, err, sizeof(err)), "[%s] %s: reference: %s", g_isa, name, err)) {
        goto done;
    }
    const enum ggml_status st = compute(node, n_threads);
    if (!TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "[%s] %s: compute returned %s", g_isa, name, ggml_status_to_string(st))) {
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(node, i, &i0, &i1, &i2, &i3);
        got[i] = (float) ggml_ref_get(node, i0, i1, i2, i3);
    }
    nmse = ggml_ref_nmse(ref, got, n);
    TEST_CHECK_MSG(nmse <= bound, "[%s] %s (%d thread%s): nmse %.3g > %.3g", g_isa, name, n_threads,
            n_threads > 1 ? "s" : "", nmse, bound);
done:
    free(ref);
    free(got);
    return nmse;
}

static const enum ggml_type float_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16 };

// small shapes (one thread does them) and large ones (split across two threads)
static const int64_t shape_small[4] = { 37, 5, 3, 2 };
static const int64_t shape_large[4] = { 523, 7, 3, 1 };

//
// unary family
//

struct unary_case {
    enum ggml_unary_op op;
    double lo, hi;
    bool   tr; // transcendental
};

static const struct unary_case unary_cases[] = {
    { GGML_UNARY_OP_ABS,         -4, 4, false }, { GGML_UNARY_OP_SGN,        -4, 4, false },
    { GGML_UNARY_OP_NEG,         -4, 4, false }, { GGML_UNARY_OP_STEP,       -4, 4, false },
    { GGML_UNARY_OP_TANH,        -5, 5, true  }, { GGML_UNARY_OP_ELU,        -5, 3, true  },
    { GGML_UNARY_OP_RELU,        -4, 4, false }, { GGML_UNARY_OP_SIGMOID,    -8, 8, true  },
    { GGML_UNARY_OP_GELU,        -6, 4, true  }, { GGML_UNARY_OP_GELU_QUICK, -6, 4, true  },
    { GGML_UNARY_OP_SILU,        -8, 6, true  }, { GGML_UNARY_OP_HARDSWISH,  -5, 5, false },
    { GGML_UNARY_OP_HARDSIGMOID, -5, 5, false }, { GGML_UNARY_OP_EXP,        -5, 5, true  },
    { GGML_UNARY_OP_EXPM1,       -3, 3, true  }, { GGML_UNARY_OP_SOFTPLUS,   -8, 8, true  },
    { GGML_UNARY_OP_GELU_ERF,    -6, 4, true  }, { GGML_UNARY_OP_XIELU,      -4, 4, true  },
    { GGML_UNARY_OP_FLOOR,      -10, 10, false }, { GGML_UNARY_OP_CEIL,     -10, 10, false },
    { GGML_UNARY_OP_ROUND,      -10, 10, false }, { GGML_UNARY_OP_TRUNC,    -10, 10, false },
};

static void set_param_f32(struct ggml_tensor * t, int i, float v) {
    memcpy((char *) t->op_params + i*sizeof(float), &v, sizeof(v));
}

static void set_xielu_params(struct ggml_tensor * t) {
    set_param_f32(t, 1, 0.8f);   // alpha_n
    set_param_f32(t, 2, 0.6f);   // alpha_p
    set_param_f32(t, 3, 0.5f);   // beta
    set_param_f32(t, 4, -1e-6f); // eps
}

static void test_unary(void) {
    const int n_ops = (int) (sizeof(unary_cases)/sizeof(unary_cases[0]));
    TEST_CHECK(n_ops == GGML_UNARY_OP_COUNT);
    for (int k = 0; k < n_ops; k++) {
        const struct unary_case * c = &unary_cases[k];
        const char * name = ggml_unary_op_name(c->op);
        for (size_t ti = 0; ti < 3; ti++) {
            const enum ggml_type type = float_types[ti];
            const double b = bound_for(type, c->tr);
            // small contiguous, 1 thread
            ctx_reset();
            struct ggml_tensor * a = mk(type, shape_small, L_CONTIG, c->lo, c->hi);
            struct ggml_tensor * r = ggml_unary(g_ctx, a, c->op);
            if (r != NULL && c->op == GGML_UNARY_OP_XIELU) {
                set_xielu_params(r);
            }
            check_node(r, 1, b, "unary %s %s contig", name, ggml_type_name(type));
            // large, rows with gaps, 2 threads
            ctx_reset();
            a = mk(type, shape_large, L_GAPS, c->lo, c->hi);
            r = ggml_unary(g_ctx, a, c->op);
            if (r != NULL && c->op == GGML_UNARY_OP_XIELU) {
                set_xielu_params(r);
            }
            check_node(r, 2, b, "unary %s %s gaps", name, ggml_type_name(type));
            // in place, large, 2 threads
            ctx_reset();
            a = mk(type, shape_large, L_CONTIG, c->lo, c->hi);
            r = ggml_unary_inplace(g_ctx, a, c->op);
            if (r != NULL && c->op == GGML_UNARY_OP_XIELU) {
                set_xielu_params(r);
            }
            check_node(r, 2, b, "unary %s %s in place", name, ggml_type_name(type));
        }
    }
}

enum map_kind { M_SQR, M_SQRT, M_LOG, M_SIN, M_COS, M_SCALE, M_SCALE_BIAS, M_CLAMP, M_LEAKY, M_COUNT };

static struct ggml_tensor * mk_map(enum map_kind k, struct ggml_tensor * a, bool inplace) {
    switch (k) {
        case M_SQR:        return inplace ? ggml_sqr_inplace(g_ctx, a)  : ggml_sqr(g_ctx, a);
        case M_SQRT:       return inplace ? ggml_sqrt_inplace(g_ctx, a) : ggml_sqrt(g_ctx, a);
        case M_LOG:        return inplace ? ggml_log_inplace(g_ctx, a)  : ggml_log(g_ctx, a);
        case M_SIN:        return inplace ? ggml_sin_inplace(g_ctx, a)  : ggml_sin(g_ctx, a);
        case M_COS:        return inplace ? ggml_cos_inplace(g_ctx, a)  : ggml_cos(g_ctx, a);
        case M_SCALE:      return inplace ? ggml_scale_inplace(g_ctx, a, -1.75f) : ggml_scale(g_ctx, a, -1.75f);
        case M_SCALE_BIAS: return inplace ? ggml_scale_bias_inplace(g_ctx, a, 0.5f, 2.25f) : ggml_scale_bias(g_ctx, a, 0.5f, 2.25f);
        case M_CLAMP:      return ggml_clamp(g_ctx, a, -1.5f, 2.0f); // always in place
        case M_LEAKY:      return ggml_leaky_relu(g_ctx, a, 0.05f, inplace);
        default:           return NULL;
    }
}

static void test_maps(void) {
    static const char * names[M_COUNT] = { "sqr", "sqrt", "log", "sin", "cos", "scale", "scale_bias", "clamp", "leaky_relu" };
    for (int k = 0; k < M_COUNT; k++) {
        const bool   positive = k == M_SQRT || k == M_LOG;
        const double lo = positive ? 0.05 : -4.0;
        const double hi = 4.0;
        const bool   tr = k == M_LOG || k == M_SIN || k == M_COS;
        for (size_t ti = 0; ti < 3; ti++) {
            const enum ggml_type type = float_types[ti];
            const double b = bound_for(type, tr);
            ctx_reset();
            check_node(mk_map((enum map_kind) k, mk(type, shape_small, L_CONTIG, lo, hi), false), 1, b, "%s %s contig",
                    names[k], ggml_type_name(type));
            ctx_reset();
            check_node(mk_map((enum map_kind) k, mk(type, shape_large, L_GAPS, lo, hi), false), 2, b, "%s %s gaps",
                    names[k], ggml_type_name(type));
            ctx_reset();
            check_node(mk_map((enum map_kind) k, mk(type, shape_large, L_CONTIG, lo, hi), true), 2, b, "%s %s in place",
                    names[k], ggml_type_name(type));
        }
        // the ops without a rows-contiguity rule also take transposed sources
        if (k != M_SCALE && k != M_SCALE_BIAS) {
            ctx_reset();
            check_node(mk_map((enum map_kind) k, mk(GGML_TYPE_F32, shape_large, L_TRANS, lo, hi), false), 2,
                    bound_for(GGML_TYPE_F32, tr), "%s F32 transposed", names[k]);
        }
    }
}

static void test_glu(void) {
    for (int op = 0; op < GGML_GLU_OP_COUNT; op++) {
        const char * name = ggml_glu_op_name((enum ggml_glu_op) op);
        for (size_t ti = 0; ti < 3; ti++) {
            const enum ggml_type type = float_types[ti];
            const double b = bound_for(type, op != GGML_GLU_OP_REGLU);
            for (int form = 0; form < 3; form++) { // one-tensor, swapped, split
                for (int large = 0; large < 2; large++) {
                    ctx_reset();
                    const int64_t * s = large ? shape_large : shape_small;
                    struct ggml_tensor * r;
                    if (form < 2) {
                        const int64_t ne[4] = { 2*s[0], s[1], s[2], s[3] };
                        r = ggml_glu(g_ctx, mk(type, ne, large ? L_GAPS : L_CONTIG, -4, 4), (enum ggml_glu_op) op, form == 1);
                    } else {
                        r = ggml_glu_split(g_ctx, mk(type, s, large ? L_GAPS : L_CONTIG, -4, 4), mk(type, s, L_CONTIG, -4, 4),
                                (enum ggml_glu_op) op);
                    }
                    if (r != NULL && op == GGML_GLU_OP_SWIGLU_OAI) {
                        set_param_f32(r, 2, 1.702f); // alpha
                        set_param_f32(r, 3, 2.5f);   // limit (the inputs reach past it)
                    }
                    check_node(r, large ? 2 : 1, b, "glu %s %s %s%s", name, ggml_type_name(type),
                            form == 0 ? "" : (form == 1 ? "swapped" : "split"), large ? " large" : "");
                }
            }
        }
    }
}

static void test_arange_fill(void) {
    ctx_reset();
    check_node(ggml_arange(g_ctx, -3.5f, 20.25f, 0.375f), 1, B_F32, "arange");
    ctx_reset();
    check_node(ggml_arange(g_ctx, 0.0f, 30000.0f, 1.0f), 2, B_F32, "arange large");

    // FILL has no constructor: a node made by hand (f32[0] = the value), F32 and F16
    for (int ti = 0; ti < 2; ti++) {
        ctx_reset();
        struct ggml_tensor * t = ggml_new_tensor_3d(g_ctx, float_types[ti], 300, 41, 2);
        t->op = GGML_OP_FILL;
        set_param_f32(t, 0, -2.625f);
        const enum ggml_status st = compute(t, 2);
        bool ok = st == GGML_STATUS_SUCCESS;
        for (int64_t i = 0; ok && i < ggml_nelements(t); i++) {
            int64_t i0, i1, i2, i3;
            ggml_unravel_index(t, i, &i0, &i1, &i2, &i3);
            ok = ggml_ref_get(t, i0, i1, i2, i3) == -2.625;
        }
        TEST_CHECK_MSG(ok, "[%s] fill %s", g_isa, ggml_type_name(float_types[ti]));
    }
}

//
// binary family
//

enum bin_kind { B_ADD, B_SUB, B_MUL, B_DIV };

static struct ggml_tensor * mk_bin(enum bin_kind k, struct ggml_tensor * a, struct ggml_tensor * b, bool inplace) {
    switch (k) {
        case B_ADD: return inplace ? ggml_add_inplace(g_ctx, a, b) : ggml_add(g_ctx, a, b);
        case B_SUB: return inplace ? ggml_sub_inplace(g_ctx, a, b) : ggml_sub(g_ctx, a, b);
        case B_MUL: return inplace ? ggml_mul_inplace(g_ctx, a, b) : ggml_mul(g_ctx, a, b);
        case B_DIV: return inplace ? ggml_div_inplace(g_ctx, a, b) : ggml_div(g_ctx, a, b);
    }
    return NULL;
}

static void test_binary(void) {
    static const char * names[] = { "add", "sub", "mul", "div" };
    // a type, b type
    static const enum ggml_type combos[][2] = {
        { GGML_TYPE_F32, GGML_TYPE_F32 }, { GGML_TYPE_F16, GGML_TYPE_F32 }, { GGML_TYPE_F16, GGML_TYPE_F16 },
        { GGML_TYPE_BF16, GGML_TYPE_F32 }, { GGML_TYPE_BF16, GGML_TYPE_BF16 },
    };
    // b's shape as divisors of a's: same shape, rows broadcast, one value per row, a repeated pattern within rows
    static const int64_t bdiv[][4] = { { 1, 1, 1, 1 }, { 1, 5, 1, 2 }, { 37, 1, 3, 1 }, { 37, 5, 3, 2 } };
    const int64_t a_ne[4] = { 74, 5, 3, 2 };
    for (int k = 0; k < 4; k++) {
        const double lo_b = k == B_DIV ? 0.5 : -3.0; // divisors away from zero
        for (size_t c = 0; c < sizeof(combos)/sizeof(combos[0]); c++) {
            const enum ggml_type ta = combos[c][0], tb = combos[c][1];
            const double bnd = bound_for(ta, false);
            for (size_t s = 0; s < sizeof(bdiv)/sizeof(bdiv[0]); s++) {
                const int64_t b_ne[4] = { a_ne[0]/bdiv[s][0], a_ne[1]/bdiv[s][1], a_ne[2]/bdiv[s][2], a_ne[3]/bdiv[s][3] };
                ctx_reset();
                check_node(mk_bin((enum bin_kind) k, mk(ta, a_ne, L_CONTIG, -3, 3), mk(tb, b_ne, L_CONTIG, lo_b, 3), false), 1, bnd,
                        "%s %s,%s b [%lld,%lld,%lld,%lld]", names[k], ggml_type_name(ta), ggml_type_name(tb),
                        (long long) b_ne[0], (long long) b_ne[1], (long long) b_ne[2], (long long) b_ne[3]);
                ctx_reset();
                check_node(mk_bin((enum bin_kind) k, mk(ta, a_ne, L_TRANS, -3, 3), mk(tb, b_ne, L_PERM, lo_b, 3), false), 1, bnd,
                        "%s %s,%s transposed a, permuted b [%lld,%lld,%lld,%lld]", names[k], ggml_type_name(ta), ggml_type_name(tb),
                        (long long) b_ne[0], (long long) b_ne[1], (long long) b_ne[2], (long long) b_ne[3]);
            }
            // large, 2 threads: same shape and one row of b broadcast; in place
            const int64_t big[4] = { 1000, 9, 2, 1 };
            const int64_t brow[4] = { 1000, 1, 2, 1 };
            ctx_reset();
            check_node(mk_bin((enum bin_kind) k, mk(ta, big, L_CONTIG, -3, 3), mk(tb, big, L_CONTIG, lo_b, 3), false), 2, bnd,
                    "%s %s,%s large", names[k], ggml_type_name(ta), ggml_type_name(tb));
            ctx_reset();
            check_node(mk_bin((enum bin_kind) k, mk(ta, big, L_GAPS, -3, 3), mk(tb, brow, L_CONTIG, lo_b, 3), true), 2, bnd,
                    "%s %s,%s large in place, b broadcast", names[k], ggml_type_name(ta), ggml_type_name(tb));
        }
        // one long row (split inside the row) with a transposed b
        const int64_t row[4] = { 20000, 1, 1, 1 };
        ctx_reset();
        check_node(mk_bin((enum bin_kind) k, mk(GGML_TYPE_F32, row, L_CONTIG, -3, 3), mk(GGML_TYPE_F32, row, L_CONTIG, lo_b, 3),
                false), 2, B_F32, "%s F32 one long row", names[k]);
    }

    // add_cast: F16/BF16 + F32 -> F32 and -> F16
    static const enum ggml_type cast_to[] = { GGML_TYPE_F32, GGML_TYPE_F16 };
    for (int s = 0; s < 2; s++) {
        for (int t = 0; t < 2; t++) {
            const enum ggml_type ta = s ? GGML_TYPE_BF16 : GGML_TYPE_F16;
            ctx_reset();
            const int64_t b_ne[4] = { 74, 1, 3, 1 };
            check_node(ggml_add_cast(g_ctx, mk(ta, a_ne, L_CONTIG, -3, 3), mk(GGML_TYPE_F32, b_ne, L_CONTIG, -3, 3), cast_to[t]), 1,
                    bound_for(cast_to[t], false), "add_cast %s -> %s", ggml_type_name(ta), ggml_type_name(cast_to[t]));
        }
    }

    // add1: a + one value
    for (size_t ti = 0; ti < 3; ti++) {
        ctx_reset();
        check_node(ggml_add1(g_ctx, mk(float_types[ti], shape_small, L_CONTIG, -3, 3), mk4(GGML_TYPE_F32, 1, 1, 1, 1, L_CONTIG, -3, 3)),
                1, bound_for(float_types[ti], false), "add1 %s", ggml_type_name(float_types[ti]));
        ctx_reset();
        check_node(ggml_add1_inplace(g_ctx, mk(float_types[ti], shape_large, L_CONTIG, -3, 3), mk4(float_types[ti], 1, 1, 1, 1, L_CONTIG, -3, 3)),
                2, bound_for(float_types[ti], false), "add1 %s in place", ggml_type_name(float_types[ti]));
    }
}

static void test_acc_set(void) {
    for (int large = 0; large < 2; large++) {
        const int64_t n0 = large ? 160 : 16, n1 = large ? 70 : 8, n2 = 3;
        const int nt = large ? 2 : 1;
        for (int inplace = 0; inplace < 2; inplace++) {
            // acc: F32 only
            ctx_reset();
            struct ggml_tensor * a = mk4(GGML_TYPE_F32, n0, n1, n2, 1, L_CONTIG, -3, 3);
            struct ggml_tensor * b = mk4(GGML_TYPE_F32, n0/2 + 1, n1/2, 2, 1, L_TRANS, -3, 3);
            const size_t off = (2 + 1*n0)*sizeof(float);
            check_node(inplace ? ggml_acc_inplace(g_ctx, a, b, a->nb[1], a->nb[2], a->nb[3], off)
                               : ggml_acc(g_ctx, a, b, a->nb[1], a->nb[2], a->nb[3], off),
                    nt, B_F32, "acc%s%s", inplace ? " in place" : "", large ? " large" : "");
            // set: every float type and I32, b of the same type
            static const enum ggml_type set_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32 };
            for (int t = 0; t < 4; t++) {
                const enum ggml_type type = set_types[t];
                ctx_reset();
                a = mk4(type, n0, n1, n2, 1, L_CONTIG, -50, 50);
                b = mk4(type, n0/3, n1/2, 2, 1, L_PERM, -50, 50);
                const size_t so = (5 + 2*n0)*ggml_type_size(type);
                // a view with its own row stride: every other row of a
                check_node(inplace ? ggml_set_inplace(g_ctx, a, b, 2*a->nb[1], a->nb[2], a->nb[3], so)
                                   : ggml_set(g_ctx, a, b, 2*a->nb[1], a->nb[2], a->nb[3], so),
                        nt, B_EXACT, "set %s%s%s", ggml_type_name(type), inplace ? " in place" : "", large ? " large" : "");
            }
        }
    }
    // set with another float type for b (converted)
    ctx_reset();
    struct ggml_tensor * sa = mk4(GGML_TYPE_F32, 40, 6, 1, 1, L_CONTIG, -3, 3);
    check_node(ggml_set(g_ctx, sa, mk4(GGML_TYPE_BF16, 20, 3, 1, 1, L_CONTIG, -3, 3), sa->nb[1], sa->nb[2], sa->nb[3], 8*sizeof(float)),
            1, B_EXACT, "set F32 <- BF16");
    // set_1d, set_2d
    ctx_reset();
    struct ggml_tensor * a = mk4(GGML_TYPE_F32, 50, 4, 1, 1, L_CONTIG, -3, 3);
    check_node(ggml_set_1d(g_ctx, a, mk4(GGML_TYPE_F32, 30, 1, 1, 1, L_CONTIG, -3, 3), 17*sizeof(float)), 1, B_EXACT, "set_1d");
    ctx_reset();
    a = mk4(GGML_TYPE_F16, 50, 4, 1, 1, L_CONTIG, -3, 3);
    check_node(ggml_set_2d(g_ctx, a, mk4(GGML_TYPE_F16, 20, 3, 1, 1, L_CONTIG, -3, 3), a->nb[1], 3*sizeof(ggml_fp16_t)), 1,
            B_EXACT, "set_2d F16");
}

static void test_repeat_concat(void) {
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32, GGML_TYPE_I8 };
    for (size_t t = 0; t < sizeof(types)/sizeof(types[0]); t++) {
        const enum ggml_type type = types[t];
        const char * tn = ggml_type_name(type);
        ctx_reset();
        check_node(ggml_repeat_4d(g_ctx, mk4(type, 3, 1, 2, 1, L_CONTIG, -60, 60), 9, 4, 2, 3), 1, B_EXACT, "repeat %s", tn);
        ctx_reset();
        check_node(ggml_repeat_4d(g_ctx, mk4(type, 7, 5, 1, 2, L_TRANS, -60, 60), 700, 10, 3, 2), 2, B_EXACT,
                "repeat %s transposed large", tn);
        for (int dim = 0; dim < 4; dim++) {
            int64_t na[4] = { 6, 5, 4, 3 }, nb[4] = { 6, 5, 4, 3 };
            nb[dim] = 2;
            ctx_reset();
            check_node(ggml_concat(g_ctx, mk(type, na, L_CONTIG, -60, 60), mk(type, nb, L_PERM, -60, 60), dim), 1, B_EXACT,
                    "concat %s dim %d", tn, dim);
        }
    }
    ctx_reset();
    check_node(ggml_concat(g_ctx, mk4(GGML_TYPE_F32, 300, 20, 3, 1, L_TRANS, -3, 3), mk4(GGML_TYPE_F32, 300, 20, 3, 1, L_CONTIG, -3, 3), 1),
            2, B_EXACT, "concat F32 large dim 1");
}

//
// copy family
//

static void test_copies(void) {
    static const enum ggml_type types[] = {
        GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32, GGML_TYPE_I16, GGML_TYPE_I8, GGML_TYPE_I64, GGML_TYPE_F64,
    };
    const int nty = (int) (sizeof(types)/sizeof(types[0]));
    for (int s = 0; s < nty; s++) {
        const enum ggml_type ts = types[s];
        // integers that every type holds, plus fractions for the float sources
        const double lo = is_int_type(ts) ? -100 : -100.75, hi = 100.75;
        ctx_reset();
        check_node(ggml_cont(g_ctx, mk(ts, shape_small, L_PERM, lo, hi)), 1, B_EXACT, "cont %s permuted", ggml_type_name(ts));
        ctx_reset();
        check_node(ggml_dup(g_ctx, mk(ts, shape_large, L_TRANS, lo, hi)), 2, B_EXACT, "dup %s transposed", ggml_type_name(ts));
        for (int d = 0; d < nty; d++) {
            const enum ggml_type td = types[d];
            // a permuted source into a transposed destination of another shape
            ctx_reset();
            struct ggml_tensor * src = mk4(ts, 6, 5, 4, 3, L_PERM, lo, hi);
            struct ggml_tensor * dst = mk4(td, 30, 12, 1, 1, L_TRANS, 0, 0);
            check_node(ggml_cpy(g_ctx, src, dst), 1, B_EXACT, "cpy %s -> %s", ggml_type_name(ts), ggml_type_name(td));
        }
    }
    // float -> integer: truncation toward zero and saturation
    ctx_reset();
    struct ggml_tensor * f = mk4(GGML_TYPE_F32, 8, 1, 1, 1, L_CONTIG, 0, 0);
    const float fv[8] = { 2.7f, -2.7f, 300.0f, -300.0f, 0.5f, -0.5f, 127.9f, -128.9f };
    memcpy(f->data, fv, sizeof(fv));
    check_node(ggml_cast(g_ctx, f, GGML_TYPE_I8), 1, B_EXACT, "cast F32 -> I8 (truncation, saturation)");
    // large conversions, 2 threads, contiguous both sides (the row converters) and other shapes
    for (int s = 0; s < 3; s++) {
        for (int d = 0; d < 3; d++) {
            ctx_reset();
            check_node(ggml_cast(g_ctx, mk(float_types[s], shape_large, L_CONTIG, -3, 3), float_types[d]), 2,
                    B_EXACT, "cast %s -> %s large", ggml_type_name(float_types[s]), ggml_type_name(float_types[d]));
        }
        ctx_reset();
        check_node(ggml_cont_2d(g_ctx, mk(float_types[s], shape_large, L_TRANS, -3, 3), 3*523, 7), 2, B_EXACT,
                "cont_2d %s transposed", ggml_type_name(float_types[s]));
    }
    // transposed sources of several tiles (the tiled copy), every float type
    for (int s = 0; s < 3; s++) {
        ctx_reset();
        check_node(ggml_cont(g_ctx, mk4(float_types[s], 100, 70, 2, 1, L_TRANS, -3, 3)), 2, B_EXACT, "cont %s transposed tiles",
                ggml_type_name(float_types[s]));
    }
    // sources whose contiguous dim is dim 2 (permute [2,1,0,3]): the tiled copy in that plane
    for (int s = 0; s < 3; s++) {
        ctx_reset();
        check_node(ggml_cont(g_ctx, mk4(float_types[s], 70, 3, 100, 2, L_PERM, -3, 3)), 2, B_EXACT, "cont %s permuted tiles",
                ggml_type_name(float_types[s]));
    }
    // dup_inplace: the node is its own source
    ctx_reset();
    check_node(ggml_dup_inplace(g_ctx, mk(GGML_TYPE_F32, shape_small, L_CONTIG, -3, 3)), 1, B_EXACT, "dup in place");

    // a block type: copied bit for bit (whole buffers, or rows of blocks)
    ctx_reset();
    struct ggml_tensor * q  = ggml_new_tensor_2d(g_ctx, GGML_TYPE_Q8_0, 64, 6);
    struct ggml_tensor * qd = ggml_new_tensor_2d(g_ctx, GGML_TYPE_Q8_0, 64, 3);
    for (size_t i = 0; i < ggml_nbytes(q); i++) {
        ((uint8_t *) q->data)[i] = (uint8_t) test_rand_u64();
    }
    // every other row of q into qd
    struct ggml_tensor * qv = ggml_view_2d(g_ctx, q, 64, 3, 2*q->nb[1], q->nb[1]);
    struct ggml_tensor * qc = ggml_cpy(g_ctx, qv, qd);
    TEST_CHECK(compute(qc, 1) == GGML_STATUS_SUCCESS);
    bool same = true;
    for (int r = 0; r < 3; r++) {
        same = same && memcmp((char *) qd->data + r*qd->nb[1], (char *) q->data + (2*r + 1)*q->nb[1], q->nb[1]) == 0;
    }
    TEST_CHECK_MSG(same, "[%s] cpy Q8_0 rows", g_isa);
}

static void test_rows(void) {
    static const enum ggml_type src_types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_I32 };
    for (size_t t = 0; t < 4; t++) {
        for (int large = 0; large < 2; large++) {
            ctx_reset();
            const int64_t n0 = large ? 700 : 10, nr = 20, k = large ? 15 : 7;
            struct ggml_tensor * a = mk4(src_types[t], n0, nr, 3, 1, large ? L_GAPS : L_CONTIG, -50, 50);
            struct ggml_tensor * b = mk4(GGML_TYPE_I32, k, 3, 1, 1, L_CONTIG, 0, nr - 0.01);
            check_node(ggml_get_rows(g_ctx, a, b), large ? 2 : 1, B_EXACT, "get_rows %s%s", ggml_type_name(src_types[t]),
                    large ? " large" : "");
        }
    }
    // I64 indices and a broadcast over dim 2 of a (no constructor makes these: a node by hand)
    for (int large = 0; large < 2; large++) {
        ctx_reset();
        struct ggml_tensor * a = mk4(GGML_TYPE_F16, large ? 900 : 10, 20, 1, 1, L_CONTIG, -3, 3);
        struct ggml_tensor * b = mk4(GGML_TYPE_I64, 7, 3, 2, 1, L_CONTIG, 0, 19.99);
        struct ggml_tensor * r = ggml_new_tensor_4d(g_ctx, GGML_TYPE_F32, a->ne[0], 7, 3, 2);
        r->op     = GGML_OP_GET_ROWS;
        r->src[0] = a;
        r->src[1] = b;
        check_node(r, 2, B_EXACT, "get_rows F16, I64 indices, broadcast%s", large ? " large" : "");
    }
    // an index out of range fails the graph (no crash)
    ctx_reset();
    struct ggml_tensor * a = mk4(GGML_TYPE_F32, 10, 20, 1, 1, L_CONTIG, -3, 3);
    struct ggml_tensor * b = mk4(GGML_TYPE_I32, 4, 1, 1, 1, L_CONTIG, 0, 19);
    ggml_set_i32_1d(b, 2, 20);
    test_log_capture_begin();
    const enum ggml_status st = compute(ggml_get_rows(g_ctx, a, b), 1);
    test_log_capture_end();
    TEST_CHECK_MSG(st == GGML_STATUS_FAILED && test_log_error_count() > 0, "[%s] get_rows out of range: %s", g_isa,
            ggml_status_to_string(st));

    // set_rows: F32 rows into F32/F16/BF16, I64 and I32 indices, broadcast indices
    for (size_t t = 0; t < 3; t++) {
        for (int idx64 = 0; idx64 < 2; idx64++) {
            for (int bc = 0; bc < 2; bc++) {
                ctx_reset();
                const int64_t n0 = 300, rows = 40, k = 6;
                struct ggml_tensor * dst = mk4(float_types[t], n0, rows, 3, 2, L_CONTIG, -3, 3);
                struct ggml_tensor * src = mk4(GGML_TYPE_F32, n0, k, 3, 2, L_CONTIG, -3, 3);
                struct ggml_tensor * idx = ggml_new_tensor_3d(g_ctx, idx64 ? GGML_TYPE_I64 : GGML_TYPE_I32, k, bc ? 1 : 3, bc ? 1 : 2);
                // distinct indices within each (i2, i3)
                for (int64_t i = 0; i < ggml_nelements(idx); i++) {
                    int64_t i0, i1, i2, i3;
                    ggml_unravel_index(idx, i, &i0, &i1, &i2, &i3);
                    tset(idx, i0, i1, i2, i3, (double) ((i0*7 + i1*3 + i2*5) % rows));
                }
                check_node(ggml_set_rows(g_ctx, dst, src, idx), 2, B_EXACT, "set_rows -> %s, %s indices%s",
                        ggml_type_name(float_types[t]), idx64 ? "I64" : "I32", bc ? " broadcast" : "");
            }
        }
    }
}

static void test_pad(void) {
    static const enum ggml_type types[] = { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_I32 };
    for (size_t t = 0; t < 3; t++) {
        ctx_reset();
        check_node(ggml_pad_ext(g_ctx, mk4(types[t], 7, 5, 3, 2, L_PERM, -50, 50), 2, 3, 0, 2, 1, 1, 0, 1), 1, B_EXACT,
                "pad_ext %s permuted", ggml_type_name(types[t]));
        ctx_reset();
        check_node(ggml_pad(g_ctx, mk4(types[t], 500, 20, 2, 1, L_CONTIG, -50, 50), 12, 3, 1, 0), 2, B_EXACT,
                "pad %s large", ggml_type_name(types[t]));
    }
}

//
// reduce family
//

static void test_reduce(void) {
    for (size_t t = 0; t < 3; t++) {
        const enum ggml_type type = float_types[t];
        const char * tn = ggml_type_name(type);
        for (int large = 0; large < 2; large++) {
            const int nt = large ? 2 : 1;
            const int64_t * s = large ? shape_large : shape_small;
            const enum layout l = large ? L_TRANS : L_PERM;
            ctx_reset();
            check_node(ggml_sum(g_ctx, mk(type, s, l, -1, 2)), nt, bound_for(type, false), "sum %s%s", tn, large ? " large" : "");
            ctx_reset();
            check_node(ggml_sum_rows(g_ctx, mk(type, s, l, -1, 2)), nt, bound_for(type, false), "sum_rows %s%s", tn, large ? " large" : "");
            ctx_reset();
            check_node(ggml_mean(g_ctx, mk(type, s, l, -1, 2)), nt, B_F32, "mean %s%s", tn, large ? " large" : "");
        }
        // a sum over many rows on two threads
        ctx_reset();
        check_node(ggml_sum(g_ctx, mk4(type, 100, 400, 1, 1, L_CONTIG, -1, 2)), 2, bound_for(type, false), "sum %s 40000", tn);
        // argmax: ties (values from a small set) go to the last index
        for (int large = 0; large < 2; large++) {
            ctx_reset();
            struct ggml_tensor * a = mk4(type, large ? 3000 : 50, large ? 9 : 30, 1, 1, large ? L_TRANS : L_CONTIG, -5, 5);
            for (int64_t i = 0; i < ggml_nelements(a); i++) {
                int64_t i0, i1, i2, i3;
                ggml_unravel_index(a, i, &i0, &i1, &i2, &i3);
                tset(a, i0, i1, i2, i3, floor(ggml_ref_get(a, i0, i1, i2, i3)));
            }
            check_node(ggml_argmax(g_ctx, a), large ? 2 : 1, B_EXACT, "argmax %s%s", tn, large ? " large" : "");
        }
        // argsort both orders and top_k: ties, -0 and +0, NaN
        for (int large = 0; large < 2; large++) {
            const int64_t n0 = large ? 300 : 37, n1 = large ? 40 : 5;
            // top_k: the insertion (k <= 32), heap (k <= n/8) and full-sort selections and their edges
            const int64_t ks[] = { n0/4, 1, 2, 31, 32, 33, n0 - 1, n0 };
            for (int what = 0; what < 2 + (int) (sizeof(ks)/sizeof(ks[0])); what++) {
                ctx_reset();
                struct ggml_tensor * a = mk4(type, n0, n1, 2, 1, large ? L_CONTIG : L_TRANS, -6, 6);
                for (int64_t i = 0; i < ggml_nelements(a); i += 3) {
                    int64_t i0, i1, i2, i3;
                    ggml_unravel_index(a, i, &i0, &i1, &i2, &i3);
                    const double v = ggml_ref_get(a, i0, i1, i2, i3);
                    tset(a, i0, i1, i2, i3, i % 9 == 0 ? (v > 0 ? 0.0 : -0.0) : (i % 51 == 3 ? NAN : floor(v)));
                }
                struct ggml_tensor * r = what >= 2 ? ggml_top_k(g_ctx, a, (int) ks[what - 2]) :
                    ggml_argsort(g_ctx, a, what == 0 ? GGML_SORT_ORDER_ASC : GGML_SORT_ORDER_DESC);
                check_node(r, large ? 2 : 1, B_EXACT, "%s %s%s k=%lld", what >= 2 ? "top_k" : (what == 0 ? "argsort asc" : "argsort desc"),
                        tn, large ? " large" : "", what >= 2 ? (long long) ks[what - 2] : 0LL);
            }
        }
    }
}

//
// supports() says no, compute fails cleanly
//

static void test_unsupported(void) {
    ctx_reset();
    struct ggml_tensor * q = ggml_new_tensor_2d(g_ctx, GGML_TYPE_Q4_0, 64, 4);
    struct ggml_tensor * f = mk4(GGML_TYPE_F32, 64, 4, 1, 1, L_CONTIG, -1, 1);
    memset(q->data, 0, ggml_nbytes(q));
    struct ggml_tensor * nodes[] = {
        ggml_add(g_ctx, q, f),                                                // arithmetic on a block type
        ggml_cpy(g_ctx, f, ggml_new_tensor_2d(g_ctx, GGML_TYPE_IQ2_XXS, 256, 1)), // quantizing copy, no quantizer
        ggml_exp(g_ctx, mk4(GGML_TYPE_I32, 8, 2, 1, 1, L_CONTIG, 0, 3)),     // unary on integers
        ggml_mean(g_ctx, q),                                                  // a reduction of a block type
    };
    for (size_t i = 0; i < sizeof(nodes)/sizeof(nodes[0]); i++) {
        if (!TEST_CHECK(nodes[i] != NULL)) {
            continue;
        }
        test_log_capture_begin();
        const enum ggml_status st = compute(nodes[i], 2);
        test_log_capture_end();
        TEST_CHECK_MSG(st == GGML_STATUS_FAILED, "[%s] unsupported node %zu (%s): %s", g_isa, i, ggml_op_desc(nodes[i]),
                ggml_status_to_string(st));
    }
}

//
// driver
//

static void run_all(void) {
    test_unary();
    test_maps();
    test_glu();
    test_arange_fill();
    test_binary();
    test_acc_set();
    test_repeat_concat();
    test_copies();
    test_rows();
    test_pad();
    test_reduce();
    test_unsupported();
}

// runs this program again with GGML_CPU_ISA=level; true when it passed
static bool run_child(const char * self, const char * level) {
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        return false;
    }
    if (pid == 0) {
        setenv("GGML_CPU_ISA", level, 1);
        execl(self, self, (char *) NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) {
        return false;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char ** argv) {
    (void) argc;
    const char * isa_env = getenv("GGML_CPU_ISA");
    if (isa_env == NULL || isa_env[0] == '\0') {
        const char * self = strchr(argv[0], '/') != NULL ? argv[0] : "/proc/self/exe";
        static const char * levels[] = { "portable", "avx2" };
        for (int i = 0; i < 2; i++) {
            TEST_CHECK_MSG(run_child(self, levels[i]), "the run with GGML_CPU_ISA=%s failed", levels[i]);
        }
    }
    g_isa = ggml_cpu_isa_name(ggml_cpu_isa());

    test_rng_init();
    struct ggml_init_params ip = { .mem_size = 64u*1024*1024, .mem_buffer = NULL, .no_alloc = false };
    g_ctx = ggml_init(ip);
    if (!TEST_CHECK(g_ctx != NULL)) {
        return test_finish("test-cpu-eltwise");
    }
    printf("test-cpu-eltwise: SIMD level %s\n", g_isa);
    run_all();
    ggml_free(g_ctx);

    char name[64];
    snprintf(name, sizeof(name), "test-cpu-eltwise [%s]", g_isa);
    return test_finish(name);
}
