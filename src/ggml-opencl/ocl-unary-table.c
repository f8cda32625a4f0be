// Exact F16 -> F16 unary functions through a 65536-entry table per function: entry i is the
// function of the F16 value with bits i, computed in double and rounded to F16 once (to nearest,
// ties to even), so a kernel that writes table[bits] gives the correctly rounded result. The
// table is uploaded once per backend and function, on first use, and freed with the backend.

#include "ggml-opencl-impl.h"

#include <math.h>

#define T_SQRT_2_OVER_PI 0.79788456080286535587989211986876
#define T_GELU_COEF_A    0.044715
#define T_GELU_QUICK     1.702

static double t_sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

// f(x) in double for a finite or infinite x; false for a function without a table
static bool table_fn(int op, double x, double * r) {
    if (isinf(x)) {
        // the limits (the formulas give inf*0 = NaN at -inf)
        const bool pos = x > 0.0;
        switch (op) {
            case GGML_UNARY_OP_TANH:       *r = pos ? 1.0 : -1.0; return true;
            case GGML_UNARY_OP_SIGMOID:    *r = pos ? 1.0 : 0.0; return true;
            case GGML_UNARY_OP_EXP:        *r = pos ? x : 0.0; return true;
            case GGML_UNARY_OP_GELU:
            case GGML_UNARY_OP_GELU_QUICK:
            case GGML_UNARY_OP_SILU:
            case GGML_UNARY_OP_GELU_ERF:   *r = pos ? x : -0.0; return true;
            default:                       return false;
        }
    }
    switch (op) {
        case GGML_UNARY_OP_TANH:       *r = tanh(x); return true;
        case GGML_UNARY_OP_SIGMOID:    *r = t_sigmoid(x); return true;
        case GGML_UNARY_OP_EXP:        *r = exp(x); return true;
        case GGML_UNARY_OP_GELU:       *r = 0.5*x*(1.0 + tanh(T_SQRT_2_OVER_PI*x*(1.0 + T_GELU_COEF_A*x*x))); return true;
        case GGML_UNARY_OP_GELU_QUICK: *r = x*t_sigmoid(T_GELU_QUICK*x); return true;
        case GGML_UNARY_OP_SILU:       *r = x*t_sigmoid(x); return true;
        case GGML_UNARY_OP_GELU_ERF:   *r = 0.5*x*(1.0 + erf(x / sqrt(2.0))); return true;
        default:                       return false;
    }
}

bool ggml_ocl_unary_table_has(int op) {
    double r;
    return table_fn(op, 1.0, &r);
}

static double half_to_double(uint16_t h) {
    const int e = (h >> 10) & 0x1f;
    const int m = h & 0x3ff;
    double v;
    if (e == 0) {
        v = ldexp((double) m, -24);
    } else if (e == 31) {
        v = m != 0 ? NAN : INFINITY;
    } else {
        v = ldexp((double) (m | 0x400), e - 25);
    }
    return (h & 0x8000) ? -v : v;
}

// x rounded to F16 once: to nearest, ties to even (nearbyint in the default rounding mode)
uint16_t ggml_ocl_double_to_half(double x) {
    const uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x)) {
        return 0x7e00;
    }
    const double a = fabs(x);
    if (isinf(a)) {
        return sign | 0x7c00;
    }
    int e = 0;
    (void) frexp(a, &e); // a = f*2^e, f in [0.5, 1): the F16 exponent is e-1
    if (a == 0.0 || e - 1 < -14) {
        // subnormal range: units of 2^-24; 1024 units is the smallest normal, which the bits give too
        return sign | (uint16_t) nearbyint(ldexp(a, 24));
    }
    double q = nearbyint(ldexp(a, 11 - e)); // 11 significant bits: [1024, 2048]
    if (q == 2048.0) {
        q = 1024.0;
        e++;
    }
    if (e - 1 > 15) {
        return sign | 0x7c00;
    }
    return sign | (uint16_t) (((e - 1 + 15) << 10) | ((int) q - 1024));
}

bool ggml_ocl_unary_table_fill(int op, uint16_t * table) {
    if (!ggml_ocl_unary_table_has(op)) {
        return false;
    }
    for (uint32_t i = 0; i < 65536; i++) {
        const double x = half_to_double((uint16_t) i);
        double r = NAN;
        if (isnan(x)) {
            table[i] = (uint16_t) (i | 0x0200); // NaN stays NaN (quiet, same sign and payload)
            continue;
        }
        (void) table_fn(op, x, &r);
        table[i] = ggml_ocl_double_to_half(r);
    }
    return true;
}

cl_mem ggml_ocl_unary_table(struct ggml_ocl_backend * be, int op) {
    if (op < 0 || op >= GGML_UNARY_OP_COUNT || !ggml_ocl_unary_table_has(op) || be->unary_table_failed[op]) {
        return NULL;
    }
    if (be->unary_tables[op] != NULL) {
        return be->unary_tables[op];
    }
    be->unary_table_failed[op] = true; // until it is there: a failure is not retried at every node
    cl_context ctx = ggml_ocl_device_context(be->dev);
    if (ctx == NULL) {
        return NULL;
    }
    uint16_t * host = ggml_malloc(65536 * sizeof(uint16_t));
    if (host == NULL) {
        return NULL;
    }
    (void) ggml_ocl_unary_table_fill(op, host);
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(ctx, CL_MEM_READ_ONLY, 65536 * sizeof(uint16_t), NULL, &err);
    if (err == CL_SUCCESS && mem != NULL) {
        err = clEnqueueWriteBuffer(be->queue, mem, CL_TRUE, 0, 65536 * sizeof(uint16_t), host, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            GGML_OCL_OK(clReleaseMemObject(mem), "clReleaseMemObject");
            mem = NULL;
        }
    }
    ggml_free_mem(host);
    if (err != CL_SUCCESS || mem == NULL) {
        GGML_LOG_WARN("%s: %s: F16 table of unary op %d not available (%s, %d): the computed kernel runs\n",
                      __func__, be->name, op, ggml_ocl_errstr(err), (int) err);
        return NULL;
    }
    be->unary_tables[op] = mem;
    be->unary_table_failed[op] = false;
    return mem;
}
