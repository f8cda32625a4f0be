// Shared by every program of the OpenCL backend (prepended to each kernels/<name>.cl).
//
// Tensors reach a kernel as (buffer, tdesc): the cl_mem of the tensor's buffer and its layout,
// element (i0, i1, i2, i3) being at byte offs + i0*nb[0] + i1*nb[1] + i2*nb[2] + i3*nb[3]. The
// element type is a run-time value (enum ggml_type), the same for every work-item, so one kernel
// serves F32, F16, BF16 and the integer types; arithmetic is done in float. F16 is read and
// written with vload_half / vstore_half_rte, which every OpenCL device has (cl_khr_fp16 is only
// needed for half arithmetic).

// keep in sync with ggml_ocl_tdesc in ggml-opencl-impl.h
typedef struct {
    ulong offs;
    long  ne[4];
    long  nb[4];
    int   type;
    int   pad_;
} tdesc;

// enum ggml_type values
#define T_F32  0
#define T_F16  1
#define T_I8   24
#define T_I16  25
#define T_I32  26
#define T_I64  27
#define T_BF16 30
#define T_Q4_0  2
#define T_Q4_1  3
#define T_Q5_0  6
#define T_Q5_1  7
#define T_Q8_0  8
#define T_Q4_K  12
#define T_Q5_K  13
#define T_Q6_K  14
#define T_MXFP4 39

#define TPTR(buf, d, i0, i1, i2, i3) \
    ((buf) + (d).offs + (i0)*(d).nb[0] + (i1)*(d).nb[1] + (i2)*(d).nb[2] + (i3)*(d).nb[3])

float bf16_to_f32(ushort h) {
    return as_float(((uint) h) << 16);
}

// round to nearest even; NaN stays a quiet NaN (as ggml's conversion)
ushort f32_to_bf16(float f) {
    const uint u = as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return (ushort) ((u >> 16) | 64u);
    }
    return (ushort) ((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
}

float load_f(const __global char * p, int t) {
    switch (t) {
        case T_F32:  return *(const __global float *) p;
        case T_F16:  return vload_half(0, (const __global half *) p);
        case T_BF16: return bf16_to_f32(*(const __global ushort *) p);
        case T_I32:  return (float) *(const __global int *) p;
        case T_I16:  return (float) *(const __global short *) p;
        case T_I8:   return (float) *(const __global char *) p;
        case T_I64:  return (float) *(const __global long *) p;
        default:     return NAN;
    }
}

// float to integer conversions truncate toward zero and saturate (NaN becomes 0)
void store_f(__global char * p, int t, float v) {
    switch (t) {
        case T_F32:  *(__global float *) p = v; break;
        case T_F16:  vstore_half_rte(v, 0, (__global half *) p); break;
        case T_BF16: *(__global ushort *) p = f32_to_bf16(v); break;
        case T_I32:  *(__global int *) p = convert_int_sat_rtz(v); break;
        case T_I16:  *(__global short *) p = convert_short_sat_rtz(v); break;
        case T_I8:   *(__global char *) p = convert_char_sat_rtz(v); break;
        case T_I64:  *(__global long *) p = convert_long_sat_rtz(v); break;
        default:     break;
    }
}

// an index (rows, positions) stored as I32 or I64
long load_idx(const __global char * p, int t) {
    return t == T_I64 ? *(const __global long *) p : (long) *(const __global int *) p;
}

int type_size(int t) {
    switch (t) {
        case T_F32: case T_I32:  return 4;
        case T_F16: case T_BF16: case T_I16: return 2;
        case T_I8:  return 1;
        case T_I64: return 8;
        default:    return 0;
    }
}

// copies one element, converting when the types differ (bit-exact when they are equal)
void copy_elem(__global char * dst, int dt, const __global char * src, int st) {
    if (dt == st) {
        switch (type_size(st)) {
            case 4: *(__global uint   *) dst = *(const __global uint   *) src; return;
            case 2: *(__global ushort *) dst = *(const __global ushort *) src; return;
            case 1: *dst = *src; return;
            case 8: *(__global ulong  *) dst = *(const __global ulong  *) src; return;
            default: return;
        }
    }
    if (dt == T_I32 && st == T_I64) {
        *(__global int *) dst = convert_int_sat(*(const __global long *) src);
        return;
    }
    if (dt == T_I64 && st == T_I32) {
        *(__global long *) dst = (long) *(const __global int *) src;
        return;
    }
    store_f(dst, dt, load_f(src, st));
}

// (i0, i1, i2, i3) of the row-major flat index i over ne
void unravel(long i, const long ne[4], long * i0, long * i1, long * i2, long * i3) {
    *i0 = i % ne[0]; i /= ne[0];
    *i1 = i % ne[1]; i /= ne[1];
    *i2 = i % ne[2];
    *i3 = i / ne[2];
}

// The element (i0, i1, i2, i3) of a work-item launched over the shape d->ne by
// ggml_ocl_launch_shape: NDRange dims 0 and 1 are i0 and i1 (dim 0 rounded up to the work-group
// size), dim 2 is i2 + ne2*i3. false for the items past ne0.
bool elem_of(const tdesc d, long * i0, long * i1, long * i2, long * i3) {
    *i0 = get_global_id(0);
    *i1 = get_global_id(1);
    const long z = get_global_id(2);
    if (d.ne[3] == 1) {
        *i2 = z;
        *i3 = 0;
    } else {
        *i2 = z % d.ne[2];
        *i3 = z / d.ne[2];
    }
    return *i0 < d.ne[0];
}

// i modulo n for broadcasting a dim of n elements over one of `full`: no division in the
// common cases (not broadcast, or broadcast from a single element)
long bmod(long i, long n, long full) {
    return n == full ? i : (n == 1 ? 0 : i % n);
}

long nelements(const tdesc d) {
    return d.ne[0]*d.ne[1]*d.ne[2]*d.ne[3];
}

// work-group reductions over local memory (every work-item must call them; buf has
// get_local_size(0) elements; the result is returned to every work-item)
float wg_sum(float v, __local float * buf) {
    const int lid = get_local_id(0);
    const int n = get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    buf[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n/2; s > 0; s >>= 1) {
        if (lid < s) {
            buf[lid] += buf[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return buf[0];
}

float wg_max(float v, __local float * buf) {
    const int lid = get_local_id(0);
    const int n = get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    buf[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n/2; s > 0; s >>= 1) {
        if (lid < s) {
            buf[lid] = fmax(buf[lid], buf[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return buf[0];
}

// bytes of one block (32 values; 256 for the K types) of the quantized types above (quant.cl, quant_store.cl)
int qblock_bytes(int t) {
    switch (t) {
        case T_Q4_0:  return 18;
        case T_Q4_1:  return 20;
        case T_Q5_0:  return 22;
        case T_Q5_1:  return 24;
        case T_Q8_0:  return 34;
        case T_MXFP4: return 17;
        case T_Q4_K:  return 144;
        case T_Q5_K:  return 176;
        case T_Q6_K:  return 210;
        default:      return 0;
    }
}

// e^r for |r| <= ln2/2 by its Taylor series to r^7 (truncation below 3e-9 relative): the part
// vexp16 and vexp16_ftz share
float16 vexp16_taylor(float16 r) {
    float16 p = 1.0f/5040.0f;
    p = p * r + 1.0f/720.0f;
    p = p * r + 1.0f/120.0f;
    p = p * r + 1.0f/24.0f;
    p = p * r + 1.0f/6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p;
}

// e^x of 16 values in plain vector arithmetic (PoCL calls the library's exp once per value, which
// bounds the element-wise ops): x = n ln2 + r with |r| <= ln2/2 (ln2 in two parts, the first with
// few bits so that n*LN2_HI is exact), e^r by its Taylor series to r^7 (truncation below 3e-9
// relative), 2^n applied in two halves so that results from the denormals up to overflow (inf) come
// out right. Relative error a few float ulp (tests/ref bounds); NaN stays NaN.
float16 vexp16(float16 x) {
    const float16 xc = fmin(fmax(x, -104.0f), 89.0f);
    // round to nearest by the 1.5*2^23 trick: n's integer value lands in the low mantissa bits
    const float16 big = xc * 1.44269504088896341f + 12582912.0f;
    const float16 n = big - 12582912.0f;
    const float16 r = (xc - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
    const float16 p = vexp16_taylor(r);
    const int16 ni = as_int16(big) - 0x4B400000;
    const int16 n1 = ni >> 1;
    const float16 s1 = as_float16((n1 + 127) << 23);
    const float16 s2 = as_float16((ni - n1 + 127) << 23);
    return select(p * s1 * s2, x, x != x);
}

// vexp16 for soft_max (arguments <= 0, results divided by a sum >= 1): results below float's
// normal range (x < -87) are 0 and 2^n is applied at once. vexp16 reaches those results through
// denormal arithmetic, which doubled the time of a soft_max whose mask holds -inf (PoCL on x86);
// what is lost is below 1.6e-38 of the result. Same arithmetic as vexp16 otherwise; NaN stays NaN.
float16 vexp16_ftz(float16 x) {
    const float16 xc = select(x, (float16) -87.0f, x < -87.0f);
    const float16 big = xc * 1.44269504088896341f + 12583039.0f;
    const float16 n = big - 12583039.0f;
    const float16 r = (xc - n * 0.693145751953125f) - n * 1.42860682030941723212e-6f;
    const float16 p = vexp16_taylor(r);
    return select(p * as_float16(as_int16(big) << 23), (float16) 0.0f, x < -87.0f);
}

// e^x of 16 values for results stored as F16 (11 bits): half the work of vexp16. x = (n + f) ln2,
// |f| <= 1/2, 2^f by a degree-4 fit of relative error 2.9e-6 (fitted to minimise the largest
// relative error, the constant term kept at 1), 2^n applied at once: x is clamped to [-87, 88],
// where 2^n stays a normal float, so that intermediate results of SILU or GELU reach far past the
// F16 range. n + 127 lands in the low mantissa bits of `big` (1.5*2^23 + 127 trick), and shifted
// left by 23 it is 2^n's bit pattern. Relative error below 1e-5 (F16's half unit: 4.9e-4).
float16 vexp16_h(float16 x) {
    // written as selects so that a NaN passes through (fmin / fmax would replace it)
    float16 xc = select(x, (float16) -87.0f, x < -87.0f);
    xc = select(xc, (float16) 88.0f, xc > 88.0f);
    const float16 big = xc * 1.44269504088896341f + 12583039.0f;
    const float16 f = xc * 1.44269504088896341f - (big - 12583039.0f);
    float16 p = 0.009582853f;
    p = p * f + 0.055906426f;
    p = p * f + 0.24024099f;
    p = p * f + 0.69312418f;
    p = p * f + 1.0f;
    return p * as_float16(as_int16(big) << 23);
}

// GELU_ERF of 16 values for results stored as F16: as vgelu_erf16 with P of degree 5 (fitted over
// z in [0, 4.6], error 6.2e-6 in the exponent, so erfc's relative error stays near 1e-5; past
// z = 4.6 the negative side is below F16's smallest denormal anyway) and vexp16_h
float16 vgelu_erf16_h(float16 x) {
    const float16 z = fabs(x) * 0.70710678118654752440f;
    const float16 t = 1.0f / (1.0f + 0.5f * z);
    float16 q = 0.21901608f;
    q = q * t - 0.67562079f;
    q = q * t + 0.42972532f;
    q = q * t + 0.28330249f;
    q = q * t + 1.00906050f;
    q = q * t - 1.26547742f;
    const float16 erfc = t * vexp16_h(q - z * z);
    return x * select(0.5f * erfc, 1.0f - 0.5f * erfc, x >= 0.0f);
}

// 0.5*(1 + erf(x/sqrt(2))) * x (GELU_ERF) of 16 values: erfc(z), z = |x|/sqrt(2), by the Chebyshev
// fit t*exp(-z^2 + P(t)), t = 1/(1 + z/2), P of degree 9 (Numerical Recipes' erfcc: relative error
// below 1.2e-7 for every z >= 0), so the negative side, where the result is x*erfc(z)/2, keeps its
// relative accuracy too
float16 vgelu_erf16(float16 x) {
    const float16 z = fabs(x) * 0.70710678118654752440f;
    const float16 t = 1.0f / (1.0f + 0.5f * z);
    float16 q = 0.17087277f;
    q = q * t - 0.82215223f;
    q = q * t + 1.48851587f;
    q = q * t - 1.13520398f;
    q = q * t + 0.27886807f;
    q = q * t - 0.18628806f;
    q = q * t + 0.09678418f;
    q = q * t + 0.37409196f;
    q = q * t + 1.00002368f;
    q = q * t - 1.26551223f;
    const float16 erfc = t * vexp16(q - z * z);
    return x * select(0.5f * erfc, 1.0f - 0.5f * erfc, x >= 0.0f);
}

// the ALiBi slope of head h (1 without a bias): m0^(h+1) for the first n_head_log2 heads, then
// m1^(2(h - n_head_log2) + 1)
float alibi_slope(long h, float max_bias, float m0, float m1, int n_head_log2) {
    if (!(max_bias > 0.0f)) { // NaN too, as the kernels had it
        return 1.0f;
    }
    return h < n_head_log2 ? pown(m0, (int) h + 1) : pown(m1, 2*((int) h - n_head_log2) + 1);
}
