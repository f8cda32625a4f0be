// F16 -> F16 unary functions on OpenCL0 through exact tables (src/ggml-opencl/ocl-unary-table.c):
// for all 65536 F16 inputs, the device's result equals the function computed in double and
// rounded to the nearest F16 (ties to even) bit for bit; NaN inputs give NaN (payloads not
// compared), infinities the function's limit. GELU_ERF takes the table on every device; the
// other functions with a table (SILU GELU GELU_QUICK SIGMOID TANH EXP) only on GPU devices, so
// they are checked exactly there and skipped on CPU devices (backend-ops bounds them). The
// rounding here is independent of the library's: the nearest of three F16 candidates.
// No OpenCL device: skipped (77), or failed with GGML_TEST_REQUIRE_OPENCL.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "test-common.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N_F16 65536

static double fn(enum ggml_unary_op op, double x) {
    const double sig = 1.0 / (1.0 + exp(-x));
    switch (op) {
        case GGML_UNARY_OP_GELU_ERF:   return 0.5*x*(1.0 + erf(x / sqrt(2.0)));
        case GGML_UNARY_OP_SILU:       return x*sig;
        case GGML_UNARY_OP_GELU:       return 0.5*x*(1.0 + tanh(0.79788456080286535587989211986876*x*(1.0 + 0.044715*x*x)));
        case GGML_UNARY_OP_GELU_QUICK: return x / (1.0 + exp(-1.702*x));
        case GGML_UNARY_OP_SIGMOID:    return sig;
        case GGML_UNARY_OP_TANH:       return tanh(x);
        case GGML_UNARY_OP_EXP:        return exp(x);
        default:                       return NAN;
    }
}

static double h2d(uint16_t h) {
    return (double) ggml_fp16_to_fp32((ggml_fp16_t) h);
}

// the F16 nearest to r (finite), ties to the even bits
static uint16_t nearest_f16(double r) {
    if (fabs(r) >= 65520.0) {
        return r > 0 ? 0x7c00 : 0xfc00;
    }
    const uint16_t h0 = (uint16_t) ggml_fp32_to_fp16((float) r);
    uint16_t best = h0;
    double best_d = fabs(h2d(h0) - r);
    for (int k = -1; k <= 1; k += 2) {
        const uint16_t h = (uint16_t) (h0 + k);
        if ((h & 0x7c00) == 0x7c00 || ((h ^ h0) & 0x8000) != 0) {
            continue; // not past inf / NaN, nor across the sign
        }
        const double d = fabs(h2d(h) - r);
        if (d < best_d || (d == best_d && (h & 1) == 0)) {
            best = h;
            best_d = d;
        }
    }
    if (r == 0.0) {
        best = signbit(r) ? 0x8000 : 0x0000;
    }
    return best;
}

static uint16_t expected(enum ggml_unary_op op, uint16_t in) {
    const double x = h2d(in);
    if (isinf(x)) {
        const bool pos = x > 0;
        switch (op) {
            case GGML_UNARY_OP_SIGMOID: return pos ? 0x3c00 : 0x0000;
            case GGML_UNARY_OP_TANH:    return pos ? 0x3c00 : 0xbc00;
            case GGML_UNARY_OP_EXP:     return pos ? 0x7c00 : 0x0000;
            default:                    return pos ? 0x7c00 : 0x8000;
        }
    }
    return nearest_f16(fn(op, x));
}

static void check_op(ggml_backend_t be, enum ggml_unary_op op, const uint16_t * in, uint16_t * out) {
    struct ggml_init_params ip = { 4*ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    ggml_backend_buffer_t buf = NULL;
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F16, N_F16);
    struct ggml_tensor * y = ggml_unary(ctx, x, op);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (TEST_CHECK(buf != NULL)) {
        ggml_backend_tensor_set(x, in, 0, ggml_nbytes(x));
        if (TEST_CHECK(ggml_backend_graph_compute(be, gf) == GGML_STATUS_SUCCESS)) {
            ggml_backend_tensor_get(y, out, 0, ggml_nbytes(y));
            int bad = 0;
            for (int i = 0; i < N_F16; i++) {
                const bool nan_in = (in[i] & 0x7c00) == 0x7c00 && (in[i] & 0x3ff) != 0;
                const bool nan_out = (out[i] & 0x7c00) == 0x7c00 && (out[i] & 0x3ff) != 0;
                const uint16_t want = nan_in ? 0 : expected(op, in[i]);
                if (nan_in ? !nan_out : out[i] != want) {
                    if (bad++ < 5) {
                        printf("  %s: input 0x%04x (%g): got 0x%04x, want 0x%04x\n", ggml_unary_op_name(op),
                               in[i], h2d(in[i]), out[i], want);
                    }
                }
            }
            TEST_CHECK_MSG(bad == 0, "%s: %d of %d F16 inputs not correctly rounded", ggml_unary_op_name(op), bad, N_F16);
            printf("%s: %d of %d inputs differ\n", ggml_unary_op_name(op), bad, N_F16);
        }
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
}

int main(void) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("OpenCL0");
    if (dev == NULL) {
        if (getenv("GGML_TEST_REQUIRE_OPENCL") != NULL) {
            printf("test-opencl-f16-table: FAILED: no OpenCL device, and GGML_TEST_REQUIRE_OPENCL is set\n");
            return 1;
        }
        printf("test-opencl-f16-table: no OpenCL device: skipped\n");
        return 77;
    }
    const bool gpu = ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_GPU;
    ggml_backend_t be = ggml_backend_dev_init(dev, NULL);
    uint16_t * in = malloc(N_F16 * sizeof(uint16_t));
    uint16_t * out = malloc(N_F16 * sizeof(uint16_t));
    if (TEST_CHECK(be != NULL) && TEST_CHECK(in != NULL && out != NULL)) {
        for (int i = 0; i < N_F16; i++) {
            in[i] = (uint16_t) i;
        }
        const enum ggml_unary_op ops[] = {
            GGML_UNARY_OP_GELU_ERF, GGML_UNARY_OP_SILU, GGML_UNARY_OP_GELU, GGML_UNARY_OP_GELU_QUICK,
            GGML_UNARY_OP_SIGMOID, GGML_UNARY_OP_TANH, GGML_UNARY_OP_EXP,
        };
        for (size_t k = 0; k < sizeof(ops)/sizeof(ops[0]); k++) {
            if (k == 0 || gpu) {
                check_op(be, ops[k], in, out);
            }
        }
    }
    free(in);
    free(out);
    if (be != NULL) {
        ggml_backend_free(be);
    }
    return test_finish("test-opencl-f16-table");
}
