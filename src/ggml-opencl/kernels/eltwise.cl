// Element-wise kernels: unary functions, GLU, binary ops with broadcasting, ARANGE.
// One work-item per result element, launched over the result's shape (elem_of).

// op codes of k_unary: enum ggml_unary_op values (0..21), then the plain ops
#define U_ABS          0
#define U_SGN          1
#define U_NEG          2
#define U_STEP         3
#define U_TANH         4
#define U_ELU          5
#define U_RELU         6
#define U_SIGMOID      7
#define U_GELU         8
#define U_GELU_QUICK   9
#define U_SILU        10
#define U_HARDSWISH   11
#define U_HARDSIGMOID 12
#define U_EXP         13
#define U_EXPM1       14
#define U_SOFTPLUS    15
#define U_GELU_ERF    16
#define U_XIELU       17
#define U_FLOOR       18
#define U_CEIL        19
#define U_ROUND       20
#define U_TRUNC       21
#define U_SQR        100
#define U_SQRT       101
#define U_LOG        102
#define U_SIN        103
#define U_COS        104
#define U_SCALE      105 // p0*x + p1
#define U_CLAMP      106 // min p0, max p1
#define U_LEAKY_RELU 107 // slope p0

#define SQRT_2_OVER_PI 0.79788456080286535587989211986876f
#define GELU_COEF_A    0.044715f
#define GELU_QUICK     1.702f
#define SQRT_1_2       0.70710678118654752440f

float sigmoid_f(float x) {
    return 1.0f / (1.0f + exp(-x));
}

float gelu_tanh_f(float x) {
    return 0.5f*x*(1.0f + tanh(SQRT_2_OVER_PI*x*(1.0f + GELU_COEF_A*x*x)));
}

float gelu_erf_f(float x) {
    return 0.5f*x*(1.0f + erf(x*SQRT_1_2));
}

float gelu_quick_f(float x) {
    return x*sigmoid_f(GELU_QUICK*x);
}

float silu_f(float x) {
    return x / (1.0f + exp(-x));
}

float hardsigmoid_f(float x) {
    return clamp((x + 3.0f) / 6.0f, 0.0f, 1.0f);
}

float unary_f(int op, float x, float p0, float p1, float p2, float p3) {
    switch (op) {
        case U_ABS:         return fabs(x);
        case U_SGN:         return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
        case U_NEG:         return -x;
        case U_STEP:        return x > 0.0f ? 1.0f : 0.0f;
        case U_TANH:        return tanh(x);
        case U_ELU:         return x > 0.0f ? x : expm1(x);
        case U_RELU:        return x > 0.0f ? x : 0.0f;
        case U_SIGMOID:     return sigmoid_f(x);
        case U_GELU:        return gelu_tanh_f(x);
        case U_GELU_QUICK:  return gelu_quick_f(x);
        case U_SILU:        return silu_f(x);
        case U_HARDSWISH:   return x*hardsigmoid_f(x);
        case U_HARDSIGMOID: return hardsigmoid_f(x);
        case U_EXP:         return exp(x);
        case U_EXPM1:       return expm1(x);
        case U_SOFTPLUS:    return x > 0.0f ? x + log1p(exp(-x)) : log1p(exp(x));
        case U_GELU_ERF:    return gelu_erf_f(x);
        case U_XIELU: {
            // p0..p3 = alpha_n, alpha_p, beta, eps
            if (x > 0.0f) {
                return p1*x*x + p2*x;
            }
            const float xm = fmin(x, p3);
            return (expm1(xm) - x)*p0 + p2*x;
        }
        case U_FLOOR:       return floor(x);
        case U_CEIL:        return ceil(x);
        case U_ROUND:       return round(x);
        case U_TRUNC:       return trunc(x);
        case U_SQR:         return x*x;
        case U_SQRT:        return sqrt(x);
        case U_LOG:         return log(x);
        case U_SIN:         return sin(x);
        case U_COS:         return cos(x);
        case U_SCALE:       return x*p0 + p1;
        case U_CLAMP: {
            // max(min(x, hi), lo) with NaN passing through, as the reference
            float r = x > p1 ? p1 : x;
            return r < p0 ? p0 : r;
        }
        case U_LEAKY_RELU:  return x > 0.0f ? x : p0*x;
        default:            return NAN;
    }
}

__kernel void k_unary(__global const char * src, tdesc sd, __global char * dst, tdesc dd,
                      int op, float p0, float p1, float p2, float p3) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const float x = load_f(TPTR(src, sd, i0, i1, i2, i3), sd.type);
    store_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, unary_f(op, x, p0, p1, p2, p3));
}

// the same with F32 source and result: direct loads and stores (no per-element type dispatch)
__kernel void k_unary_f32(__global const char * src, tdesc sd, __global char * dst, tdesc dd,
                          int op, float p0, float p1, float p2, float p3) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const float x = *(const __global float *) TPTR(src, sd, i0, i1, i2, i3);
    *(__global float *) TPTR(dst, dd, i0, i1, i2, i3) = unary_f(op, x, p0, p1, p2, p3);
}

// the 16 values from element i of a contiguous F32 or F16 array (offset os in elements), n in all
float16 load16_flat(const __global char * p, ulong os, int t, long i, long n) {
    if (i + 16 <= n) {
        return t == T_F16 ? vload_half16(0, (const __global half *) p + os + i) : vload16(0, (const __global float *) p + os + i);
    }
    float v[16];
    for (int k = 0; k < 16; k++) {
        const long j = min(i + k, n - 1);
        v[k] = t == T_F16 ? vload_half(j, (const __global half *) p + os) : ((const __global float *) p + os)[j];
    }
    return vload16(0, v);
}

void store16_flat(__global char * p, ulong os, int t, long i, long n, float16 v) {
    if (i + 16 <= n) {
        if (t == T_F16) {
            vstore_half16_rte(v, 0, (__global half *) p + os + i);
        } else {
            vstore16(v, 0, (__global float *) p + os + i);
        }
        return;
    }
    float w[16];
    vstore16(v, 0, w);
    for (long k = i; k < n; k++) {
        if (t == T_F16) {
            vstore_half_rte(w[k - i], k, (__global half *) p + os);
        } else {
            ((__global float *) p + os)[k] = w[k - i];
        }
    }
}

// unary_f on 16 values at once: the common ops as vector expressions (the same formulas; one
// branch per 16 values instead of a switch per value), the others value by value
float16 unary_v(int op, float16 x, float p0, float p1, float p2, float p3) {
    switch (op) {
        case U_ABS:        return fabs(x);
        case U_NEG:        return -x;
        case U_TANH:       return tanh(x);
        case U_RELU:       return select((float16) 0.0f, x, x > 0.0f);
        case U_SIGMOID:    return 1.0f / (1.0f + vexp16(-x));
        // 0.5*(1 + tanh(y)) = 1/(1 + e^(-2y)): one exp, no cancellation for negative y
        case U_GELU:       return x / (1.0f + vexp16(-2.0f*SQRT_2_OVER_PI*x*(1.0f + GELU_COEF_A*x*x)));
        case U_GELU_QUICK: return x / (1.0f + vexp16(-(GELU_QUICK*x)));
        case U_SILU:       return x / (1.0f + vexp16(-x));
        case U_EXP:        return vexp16(x);
        case U_GELU_ERF:   return vgelu_erf16(x);
        case U_SQR:        return x*x;
        case U_SQRT:       return sqrt(x);
        case U_LOG:        return log(x);
        case U_SIN:        return sin(x);
        case U_COS:        return cos(x);
        case U_SCALE:      return x*p0 + p1;
        default: {
            // component by component (a private array here slows the whole kernel on PoCL)
            float16 y;
            y.s0 = unary_f(op, x.s0, p0, p1, p2, p3); y.s1 = unary_f(op, x.s1, p0, p1, p2, p3);
            y.s2 = unary_f(op, x.s2, p0, p1, p2, p3); y.s3 = unary_f(op, x.s3, p0, p1, p2, p3);
            y.s4 = unary_f(op, x.s4, p0, p1, p2, p3); y.s5 = unary_f(op, x.s5, p0, p1, p2, p3);
            y.s6 = unary_f(op, x.s6, p0, p1, p2, p3); y.s7 = unary_f(op, x.s7, p0, p1, p2, p3);
            y.s8 = unary_f(op, x.s8, p0, p1, p2, p3); y.s9 = unary_f(op, x.s9, p0, p1, p2, p3);
            y.sa = unary_f(op, x.sa, p0, p1, p2, p3); y.sb = unary_f(op, x.sb, p0, p1, p2, p3);
            y.sc = unary_f(op, x.sc, p0, p1, p2, p3); y.sd = unary_f(op, x.sd, p0, p1, p2, p3);
            y.se = unary_f(op, x.se, p0, p1, p2, p3); y.sf = unary_f(op, x.sf, p0, p1, p2, p3);
            return y;
        }
    }
}

// k_unary over contiguous F32 / F16 tensors of the same number of elements: 32 values per
// work-item, 16 at a time (a work-item per element spends most of its time being scheduled on CPU devices).
// k_unary_flat takes any op code; k_unary_flat_<NAME> has the function fixed at compile time (the
// switch over every function costs PoCL 2-3x on SQR: 0.83-0.89 ms against 0.37-0.40 ms of process
// CPU time for [4096, 512]). The last, partial, 32 values go value by value through unary_f.
#define UNARY_FLAT_KERNEL(NAME, EXPR) \
__kernel void NAME(__global const char * src, ulong os, int st, __global char * dst, ulong od, int dt, long n, \
                   int op, float p0, float p1, float p2, float p3) { \
    const long i = get_global_id(0) * 32; \
    const __global float * sf = (const __global float *) src + os; \
    const __global half  * sh = (const __global half *) src + os; \
    __global float * df = (__global float *) dst + od; \
    __global half  * dh = (__global half *) dst + od; \
    if (i + 32 <= n) { \
        for (int h = 0; h < 2; h++) { \
            const float16 x = st == T_F16 ? vload_half16(h, sh + i) : vload16(h, sf + i); \
            const float16 y = EXPR; \
            if (dt == T_F16) { \
                vstore_half16_rte(y, h, dh + i); \
            } else { \
                vstore16(y, h, df + i); \
            } \
        } \
        return; \
    } \
    for (long k = i; k < n; k++) { \
        const float y = unary_f(op, st == T_F16 ? vload_half(k, sh) : sf[k], p0, p1, p2, p3); \
        if (dt == T_F16) { \
            vstore_half_rte(y, k, dh); \
        } else { \
            df[k] = y; \
        } \
    } \
}

UNARY_FLAT_KERNEL(k_unary_flat, unary_v(op, x, p0, p1, p2, p3))
UNARY_FLAT_KERNEL(k_unary_flat_abs, fabs(x))
UNARY_FLAT_KERNEL(k_unary_flat_neg, -x)
UNARY_FLAT_KERNEL(k_unary_flat_tanh, tanh(x))
UNARY_FLAT_KERNEL(k_unary_flat_relu, select((float16) 0.0f, x, x > 0.0f))
UNARY_FLAT_KERNEL(k_unary_flat_sigmoid, 1.0f / (1.0f + vexp16(-x)))
UNARY_FLAT_KERNEL(k_unary_flat_gelu, x / (1.0f + vexp16(-2.0f*SQRT_2_OVER_PI*x*(1.0f + GELU_COEF_A*x*x))))
UNARY_FLAT_KERNEL(k_unary_flat_gelu_quick, x / (1.0f + vexp16(-(GELU_QUICK*x))))
UNARY_FLAT_KERNEL(k_unary_flat_silu, x / (1.0f + vexp16(-x)))
UNARY_FLAT_KERNEL(k_unary_flat_exp, vexp16(x))
UNARY_FLAT_KERNEL(k_unary_flat_gelu_erf, vgelu_erf16(x))
// F16 destinations: the functions at F16 precision (vexp16_h), about half the arithmetic
UNARY_FLAT_KERNEL(k_unary_flat_sigmoid_h, 1.0f / (1.0f + vexp16_h(-x)))
UNARY_FLAT_KERNEL(k_unary_flat_gelu_h, x / (1.0f + vexp16_h(-2.0f*SQRT_2_OVER_PI*x*(1.0f + GELU_COEF_A*x*x))))
UNARY_FLAT_KERNEL(k_unary_flat_gelu_quick_h, x / (1.0f + vexp16_h(-(GELU_QUICK*x))))
UNARY_FLAT_KERNEL(k_unary_flat_silu_h, x / (1.0f + vexp16_h(-x)))
UNARY_FLAT_KERNEL(k_unary_flat_exp_h, vexp16_h(x))
UNARY_FLAT_KERNEL(k_unary_flat_gelu_erf_h, vgelu_erf16_h(x))
UNARY_FLAT_KERNEL(k_unary_flat_sqr, x*x)
UNARY_FLAT_KERNEL(k_unary_flat_sqrt, sqrt(x))
UNARY_FLAT_KERNEL(k_unary_flat_log, log(x))
UNARY_FLAT_KERNEL(k_unary_flat_sin, sin(x))
UNARY_FLAT_KERNEL(k_unary_flat_cos, cos(x))
UNARY_FLAT_KERNEL(k_unary_flat_scale, x*p0 + p1)

// F16 -> F16 unary function by table (ocl-unary-table.c): dst = table[bits of src], 32 values per
// work-item; exact, since each entry is the function rounded to F16 once
__kernel void k_unary_table_h(__global const ushort * src, ulong os, __global ushort * dst, ulong od, long n,
                              __global const ushort * table) {
    const long i = get_global_id(0) * 32;
    const __global ushort * s = src + os + i;
    __global ushort * d = dst + od + i;
    if (i + 32 <= n) {
        // whole vectors in and out; the 16 look-ups of a vector are independent loads
        for (int h = 0; h < 2; h++) {
            const ushort16 x = vload16(h, s);
            const ushort16 y = (ushort16) (table[x.s0], table[x.s1], table[x.s2], table[x.s3],
                                           table[x.s4], table[x.s5], table[x.s6], table[x.s7],
                                           table[x.s8], table[x.s9], table[x.sa], table[x.sb],
                                           table[x.sc], table[x.sd], table[x.se], table[x.sf]);
            vstore16(y, h, d);
        }
        return;
    }
    for (long k = 0; k < n - i; k++) {
        d[k] = table[s[k]];
    }
}

// GPU shapes (!cpu_kernels) of k_unary_flat and k_unary_table_h: one value per work-item, so
// consecutive work-items read and write consecutive values (coalesced) and there are n of them;
// the function's switch is the same for every work-item (no divergence). F32 or F16 each end.
__kernel void k_unary_g(__global const char * src, ulong os, int st, __global char * dst, ulong od, int dt, uint n,
                        int op, float p0, float p1, float p2, float p3) {
    const uint i = get_global_id(0);
    if (i >= n) {
        return;
    }
    const float x = st == T_F16 ? vload_half(i, (const __global half *) src + os) : ((const __global float *) src + os)[i];
    const float y = unary_f(op, x, p0, p1, p2, p3);
    if (dt == T_F16) {
        vstore_half_rte(y, i, (__global half *) dst + od);
    } else {
        ((__global float *) dst + od)[i] = y;
    }
}

__kernel void k_unary_table_g(__global const ushort * src, ulong os, __global ushort * dst, ulong od, uint n,
                              __global const ushort * table) {
    const uint i = get_global_id(0);
    if (i < n) {
        dst[od + i] = table[src[os + i]];
    }
}

// ops of k_binary
#define B_ADD 0
#define B_SUB 1
#define B_MUL 2
#define B_DIV 3

// dst = a op b, b broadcast over a (b->ne[i] divides a->ne[i])
__kernel void k_binary(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                       __global char * dst, tdesc dd, int op) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const float x = load_f(TPTR(a, ad, i0, i1, i2, i3), ad.type);
    const float y = load_f(TPTR(b, bd, bmod(i0, bd.ne[0], dd.ne[0]), bmod(i1, bd.ne[1], dd.ne[1]),
                                bmod(i2, bd.ne[2], dd.ne[2]), bmod(i3, bd.ne[3], dd.ne[3])), bd.type);
    float r;
    switch (op) {
        case B_ADD: r = x + y; break;
        case B_SUB: r = x - y; break;
        case B_MUL: r = x * y; break;
        default:    r = x / y; break;
    }
    store_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, r);
}

__kernel void k_binary_f32(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                           __global char * dst, tdesc dd, int op) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const float x = *(const __global float *) TPTR(a, ad, i0, i1, i2, i3);
    const float y = *(const __global float *) TPTR(b, bd, bmod(i0, bd.ne[0], dd.ne[0]), bmod(i1, bd.ne[1], dd.ne[1]),
                                                   bmod(i2, bd.ne[2], dd.ne[2]), bmod(i3, bd.ne[3], dd.ne[3]));
    float r;
    switch (op) {
        case B_ADD: r = x + y; break;
        case B_SUB: r = x - y; break;
        case B_MUL: r = x * y; break;
        default:    r = x / y; break;
    }
    *(__global float *) TPTR(dst, dd, i0, i1, i2, i3) = r;
}

// k_binary over contiguous F32 / F16 tensors, b of a's shape or one row of ne0 values broadcast
// over every row (b_rows 0): 16 values per work-item of a row
__kernel void k_binary_flat(__global const char * a, ulong oa, int at, __global const char * b, ulong ob, int bt, int b_rows,
                            __global char * dst, ulong od, int dt, long ne0, int op) {
    const long j = get_global_id(0) * 16;
    const long r = get_global_id(1);
    if (j >= ne0) {
        return;
    }
    const float16 x = load16_flat(a, oa + r*ne0, at, j, ne0);
    const float16 y = load16_flat(b, ob + (b_rows ? r*ne0 : 0), bt, j, ne0);
    float16 z;
    switch (op) {
        case B_ADD: z = x + y; break;
        case B_SUB: z = x - y; break;
        case B_MUL: z = x * y; break;
        default:    z = x / y; break;
    }
    store16_flat(dst, od + r*ne0, dt, j, ne0, z);
}

// GPU shape (!cpu_kernels) of k_binary_flat: a value per work-item over the flat index (coalesced);
// b has a's shape (b_n == n) or is one row of b_n values repeated over every row
__kernel void k_binary_g(__global const char * a, ulong oa, int at, __global const char * b, ulong ob, int bt, uint b_n,
                         __global char * dst, ulong od, int dt, uint n, int op) {
    const uint i = get_global_id(0);
    if (i >= n) {
        return;
    }
    const uint j = b_n == n ? i : i % b_n;
    const float x = at == T_F16 ? vload_half(i, (const __global half *) a + oa) : ((const __global float *) a + oa)[i];
    const float y = bt == T_F16 ? vload_half(j, (const __global half *) b + ob) : ((const __global float *) b + ob)[j];
    float z;
    switch (op) {
        case B_ADD: z = x + y; break;
        case B_SUB: z = x - y; break;
        case B_MUL: z = x * y; break;
        default:    z = x / y; break;
    }
    if (dt == T_F16) {
        vstore_half_rte(z, i, (__global half *) dst + od);
    } else {
        ((__global float *) dst + od)[i] = z;
    }
}

// GLU: enum ggml_glu_op values
#define G_REGLU       0
#define G_GEGLU       1
#define G_SWIGLU      2
#define G_SWIGLU_OAI  3
#define G_GEGLU_ERF   4
#define G_GEGLU_QUICK 5

float glu_f(int op, float x, float g, float alpha, float limit) {
    switch (op) {
        case G_REGLU:       return (x > 0.0f ? x : 0.0f)*g;
        case G_GEGLU:       return gelu_tanh_f(x)*g;
        case G_SWIGLU:      return silu_f(x)*g;
        case G_GEGLU_ERF:   return gelu_erf_f(x)*g;
        case G_GEGLU_QUICK: return gelu_quick_f(x)*g;
        case G_SWIGLU_OAI: {
            const float xc = x > limit ? limit : x;
            const float gc = g > limit ? limit : (g < -limit ? -limit : g);
            return xc*sigmoid_f(alpha*xc)*(gc + 1.0f);
        }
        default: return NAN;
    }
}

// split form (has_b): x from a, gate from b; otherwise both halves of each row of a
__kernel void k_glu(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                    __global char * dst, tdesc dd, int op, int swapped, int has_b, float alpha, float limit) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    float x, g;
    if (has_b) {
        x = load_f(TPTR(a, ad, i0, i1, i2, i3), ad.type);
        g = load_f(TPTR(b, bd, i0, i1, i2, i3), bd.type);
    } else {
        const long nc = dd.ne[0];
        x = load_f(TPTR(a, ad, i0 + (swapped ? nc : 0), i1, i2, i3), ad.type);
        g = load_f(TPTR(a, ad, i0 + (swapped ? 0 : nc), i1, i2, i3), ad.type);
    }
    store_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, glu_f(op, x, g, alpha, limit));
}

__kernel void k_arange(__global char * dst, tdesc dd, float start, float step) {
    const long i = get_global_id(0);
    if (i >= dd.ne[0]) {
        return;
    }
    store_f(TPTR(dst, dd, i, 0, 0, 0), dd.type, start + (float) i*step);
}

// ADD_ID: dst[i0, i1, i2] = a[i0, i1, i2] + b[i0, ids[i1, i2]] (a bias per selected expert); an id
// outside b's rows adds nothing
__kernel void k_add_id(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                       __global const char * ids, tdesc id, __global char * dst, tdesc dd) {
    long i0, i1, i2, i3;
    if (!elem_of(dd, &i0, &i1, &i2, &i3)) {
        return;
    }
    const long e = load_idx(TPTR(ids, id, i1, i2, 0, 0), id.type);
    float r = load_f(TPTR(a, ad, i0, i1, i2, i3), ad.type);
    if (e >= 0 && e < bd.ne[1]) {
        r += load_f(TPTR(b, bd, i0, e, 0, 0), bd.type);
    }
    store_f(TPTR(dst, dd, i0, i1, i2, i3), dd.type, r);
}
