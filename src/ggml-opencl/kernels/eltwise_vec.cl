// Element-wise fast paths for contiguous F32 tensors (host side: ocl-op-eltwise-vec.c): 16 values
// per work-item with vload16 / vstore16, a 2-D launch over (16-value chunks of a row, rows), so no
// index arithmetic per element. Pointers are the buffers; offsets and row strides are in floats.
// Every other layout and type goes to the general kernels of eltwise.cl.

#define VB_ADD 0
#define VB_SUB 1
#define VB_MUL 2
#define VB_DIV 3

inline float16 vbin(float16 x, float16 y, int op) {
    switch (op) {
        case VB_ADD: return x + y;
        case VB_SUB: return x - y;
        case VB_MUL: return x * y;
        default:     return x / y;
    }
}

inline float sbin(float x, float y, int op) {
    switch (op) {
        case VB_ADD: return x + y;
        case VB_SUB: return x - y;
        case VB_MUL: return x * y;
        default:     return x / y;
    }
}

// dst row r = a row r (op) b row (r or 0: b_rows is 0 when b is one row broadcast over every row)
__kernel void k_vbinary(__global const float * a, ulong oa, __global const float * b, ulong ob, long b_rows,
                        __global float * d, ulong od, long ne0, int op) {
    const long j = get_global_id(0) * 16;
    const long r = get_global_id(1);
    const __global float * x = a + oa + r*ne0;
    const __global float * y = b + ob + (b_rows ? r*ne0 : 0);
    __global float * z = d + od + r*ne0;
    if (j + 16 <= ne0) {
        vstore16(vbin(vload16(0, x + j), vload16(0, y + j), op), 0, z + j);
    } else {
        for (long k = j; k < ne0; k++) {
            z[k] = sbin(x[k], y[k], op);
        }
    }
}

// dst = a * s + bias
__kernel void k_vscale(__global const float * a, ulong oa, __global float * d, ulong od, long ne0, float s, float bias) {
    const long j = get_global_id(0) * 16;
    const long r = get_global_id(1);
    const __global float * x = a + oa + r*ne0;
    __global float * z = d + od + r*ne0;
    if (j + 16 <= ne0) {
        vstore16(vload16(0, x + j) * s + bias, 0, z + j);
    } else {
        for (long k = j; k < ne0; k++) {
            z[k] = x[k] * s + bias;
        }
    }
}

// SWIGLU: dst row r = silu(x row r) * g row r, x and g rows at their own strides (the halves of one
// tensor's rows, or two tensors)
__kernel void k_vswiglu(__global const float * a, ulong oa, long sa, __global const float * b, ulong ob, long sb,
                        __global float * d, ulong od, long nc) {
    const long j = get_global_id(0) * 16;
    const long r = get_global_id(1);
    const __global float * x = a + oa + r*sa;
    const __global float * g = b + ob + r*sb;
    __global float * z = d + od + r*nc;
    if (j + 16 <= nc) {
        const float16 v = vload16(0, x + j);
        vstore16(v / (1.0f + vexp16(-v)) * vload16(0, g + j), 0, z + j);
    } else {
        for (long k = j; k < nc; k++) {
            z[k] = x[k] / (1.0f + exp(-x[k])) * g[k];
        }
    }
}

// RMS_NORM, one work-item per row (for CPU devices, where a work-group reduction costs barriers):
// dst row = a row / sqrt(mean of squares + eps)
__kernel void k_vrms_norm(__global const float * a, ulong oa, __global float * d, ulong od, long ne0, float eps) {
    const long r = get_global_id(0);
    const __global float * x = a + oa + r*ne0;
    __global float * z = d + od + r*ne0;
    const long n16 = ne0 / 16;
    float16 acc = (float16) 0.0f;
    for (long k = 0; k < n16; k++) {
        const float16 v = vload16(k, x);
        acc = fma(v, v, acc);
    }
    const float8 h = acc.lo + acc.hi;
    const float4 q = h.lo + h.hi;
    float s = (q.x + q.y) + (q.z + q.w);
    for (long k = n16*16; k < ne0; k++) {
        s = fma(x[k], x[k], s);
    }
    const float scale = rsqrt(s / (float) ne0 + eps);
    for (long k = 0; k < n16; k++) {
        vstore16(vload16(k, x) * scale, k, z);
    }
    for (long k = n16*16; k < ne0; k++) {
        z[k] = x[k] * scale;
    }
}

// NORM, one work-item per row (CPU devices): the mean, then the variance of the centered values
// (a second pass: no cancellation), dst row = (a row - mean) / sqrt(variance + eps)
__kernel void k_vnorm(__global const float * a, ulong oa, __global float * d, ulong od, long ne0, float eps) {
    const long r = get_global_id(0);
    const __global float * x = a + oa + r*ne0;
    __global float * z = d + od + r*ne0;
    const long n16 = ne0 / 16;
    float16 acc = (float16) 0.0f;
    for (long k = 0; k < n16; k++) {
        acc += vload16(k, x);
    }
    float8 h = acc.lo + acc.hi;
    float4 q = h.lo + h.hi;
    float s = (q.x + q.y) + (q.z + q.w);
    for (long k = n16*16; k < ne0; k++) {
        s += x[k];
    }
    const float mean = s / (float) ne0;
    acc = (float16) 0.0f;
    for (long k = 0; k < n16; k++) {
        const float16 v = vload16(k, x) - mean;
        acc = fma(v, v, acc);
    }
    h = acc.lo + acc.hi;
    q = h.lo + h.hi;
    float v2 = (q.x + q.y) + (q.z + q.w);
    for (long k = n16*16; k < ne0; k++) {
        const float v = x[k] - mean;
        v2 = fma(v, v, v2);
    }
    const float scale = rsqrt(v2 / (float) ne0 + eps);
    for (long k = 0; k < n16; k++) {
        vstore16((vload16(k, x) - mean) * scale, k, z);
    }
    for (long k = n16*16; k < ne0; k++) {
        z[k] = (x[k] - mean) * scale;
    }
}

// RMS_NORM followed by a MUL by a weight row (w: one row for all rows, or a row per row when
// w_step is ne0), fused by ocl-fuse.c: dst row = (a row * scale) * w row, the products in the
// order of the two separate kernels, so the result is the same bit for bit
__kernel void k_vrms_norm_mul(__global const float * a, ulong oa, __global const float * w, ulong ow, long w_step,
                              __global float * d, ulong od, long ne0, float eps) {
    const long r = get_global_id(0);
    const __global float * x = a + oa + r*ne0;
    const __global float * y = w + ow + r*w_step;
    __global float * z = d + od + r*ne0;
    const long n16 = ne0 / 16;
    float16 acc = (float16) 0.0f;
    for (long k = 0; k < n16; k++) {
        const float16 v = vload16(k, x);
        acc = fma(v, v, acc);
    }
    const float8 h = acc.lo + acc.hi;
    const float4 q = h.lo + h.hi;
    float s = (q.x + q.y) + (q.z + q.w);
    for (long k = n16*16; k < ne0; k++) {
        s = fma(x[k], x[k], s);
    }
    const float scale = rsqrt(s / (float) ne0 + eps);
    for (long k = 0; k < n16; k++) {
        vstore16((vload16(k, x) * scale) * vload16(k, y), k, z);
    }
    for (long k = n16*16; k < ne0; k++) {
        z[k] = (x[k] * scale) * y[k];
    }
}

// ADD, then RMS_NORM of the sum and a MUL by a weight row, fused by ocl-fuse.c: the sum row
// s = a + b (b: one row for all rows when b_step is 0) is stored (the model keeps it as the
// residual), and dst row = (s * scale) * w row, in the separate kernels' order of operations;
// the second pass reads the stored sum (a may be the sum's own memory: ggml_add_inplace)
__kernel void k_vadd_rms_norm_mul(__global const float * a, ulong oa, __global const float * b, ulong ob, long b_step,
                                  __global float * sum, ulong osum, __global const float * w, ulong ow, long w_step,
                                  __global float * d, ulong od, long ne0, float eps) {
    const long r = get_global_id(0);
    const __global float * x = a + oa + r*ne0;
    const __global float * y = b + ob + r*b_step;
    __global float * s = sum + osum + r*ne0;
    const __global float * g = w + ow + r*w_step;
    __global float * z = d + od + r*ne0;
    const long n16 = ne0 / 16;
    float16 acc = (float16) 0.0f;
    for (long k = 0; k < n16; k++) {
        const float16 v = vload16(k, x) + vload16(k, y);
        vstore16(v, k, s);
        acc = fma(v, v, acc);
    }
    const float8 h = acc.lo + acc.hi;
    const float4 q = h.lo + h.hi;
    float ss = (q.x + q.y) + (q.z + q.w);
    for (long k = n16*16; k < ne0; k++) {
        const float v = x[k] + y[k];
        s[k] = v;
        ss = fma(v, v, ss);
    }
    const float scale = rsqrt(ss / (float) ne0 + eps);
    for (long k = 0; k < n16; k++) {
        vstore16((vload16(k, s) * scale) * vload16(k, g), k, z);
    }
    for (long k = n16*16; k < ne0; k++) {
        z[k] = (s[k] * scale) * g[k];
    }
}

// CPY / DUP / CONT between contiguous F32 and F16 tensors of the same number of elements (flat
// order), 16 values per work-item; offsets in elements of each tensor's type
__kernel void k_vcpy(__global const char * src, ulong os, int st, __global char * dst, ulong od, int dt, long n) {
    const long i = get_global_id(0) * 16;
    const __global float * sf = (const __global float *) src + os;
    const __global half  * sh = (const __global half *) src + os;
    __global float * df = (__global float *) dst + od;
    __global half  * dh = (__global half *) dst + od;
    if (i + 16 <= n) {
        const float16 v = st == T_F16 ? vload_half16(0, sh + i) : vload16(0, sf + i);
        if (dt == T_F16) {
            vstore_half16_rte(v, 0, dh + i);
        } else {
            vstore16(v, 0, df + i);
        }
    } else {
        for (long k = i; k < n; k++) {
            const float v = st == T_F16 ? vload_half(k, sh) : sf[k];
            if (dt == T_F16) {
                vstore_half_rte(v, k, dh);
            } else {
                df[k] = v;
            }
        }
    }
}

// SOFT_MAX, one work-item per row (for CPU devices): dst = softmax(a*scale + slope*mask) with an
// optional sink per head. a and dst contiguous F32; the mask F32 or F16 with contiguous rows,
// broadcast over dims 2 and 3 (strides in elements); the weights go through dst, so a is read once.
__kernel void k_vsoft_max(__global const float * a, ulong oa, __global float * d, ulong od,
                          long ne0, long ne1, long ne2,
                          __global const char * m, ulong om, int mt, long ms1, long ms2, long ms3, long mne2, long mne3,
                          int has_mask, __global const float * s, ulong os, int has_sinks,
                          float scale, float max_bias, float m0, float m1, int n_head_log2) {
    long r = get_global_id(0);
    const long i1 = r % ne1;
    const long i2 = (r / ne1) % ne2;
    const long i3 = r / (ne1*ne2);
    const __global float * x = a + oa + r*ne0;
    __global float * z = d + od + r*ne0;
    const float slope = alibi_slope(i2, max_bias, m0, m1, n_head_log2);
    const ulong mo = om + i1*ms1 + (i2 % mne2)*ms2 + (i3 % mne3)*ms3;
    const __global float * mf = (const __global float *) m + mo;
    const __global half  * mh = (const __global half *) m + mo;
    const long n16 = ne0 / 16;
    float16 vmx = (float16) -INFINITY;
    // one loop per mask kind: a type test inside the loop keeps PoCL from vectorizing it
    if (has_mask && mt == T_F16) {
        for (long k = 0; k < n16; k++) {
            const float16 w = fma(vload_half16(k, mh), slope, vload16(k, x) * scale);
            vmx = fmax(vmx, w);
            vstore16(w, k, z);
        }
    } else if (has_mask) {
        for (long k = 0; k < n16; k++) {
            const float16 w = fma(vload16(k, mf), slope, vload16(k, x) * scale);
            vmx = fmax(vmx, w);
            vstore16(w, k, z);
        }
    } else {
        for (long k = 0; k < n16; k++) {
            const float16 w = vload16(k, x) * scale;
            vmx = fmax(vmx, w);
            vstore16(w, k, z);
        }
    }
    const float8 h8 = fmax(vmx.lo, vmx.hi);
    const float4 h4 = fmax(h8.lo, h8.hi);
    float mx = fmax(fmax(h4.x, h4.y), fmax(h4.z, h4.w));
    for (long k = n16*16; k < ne0; k++) {
        float w = x[k] * scale;
        if (has_mask) {
            w += slope * (mt == T_F16 ? vload_half(k, mh) : mf[k]);
        }
        mx = fmax(mx, w);
        z[k] = w;
    }
    const float sink = has_sinks ? s[os + i2] : -INFINITY;
    mx = fmax(mx, sink);
    float16 vsum = (float16) 0.0f;
    for (long k = 0; k < n16; k++) {
        const float16 e = vexp16_ftz(vload16(k, z) - mx);
        vsum += e;
        vstore16(e, k, z);
    }
    const float8 s8 = vsum.lo + vsum.hi;
    const float4 s4 = s8.lo + s8.hi;
    float sum = (s4.x + s4.y) + (s4.z + s4.w);
    for (long k = n16*16; k < ne0; k++) {
        const float e = exp(z[k] - mx);
        sum += e;
        z[k] = e;
    }
    if (has_sinks) {
        sum += exp(sink - mx);
    }
    const float inv = 1.0f / sum;
    for (long k = 0; k < n16; k++) {
        vstore16(vload16(k, z) * inv, k, z);
    }
    for (long k = n16*16; k < ne0; k++) {
        z[k] *= inv;
    }
}

// ---------------------------------------------------------------------------------------------
// GPU shapes (d->cpu_kernels false; host side in ocl-op-eltwise-vec.c). Consecutive work-items
// take consecutive elements, so the loads of a warp cover whole cache lines, and there are about
// n/4 work-items to fill the device. T is float4 when the host has checked that every offset (and
// the row length where rows are used) is a multiple of 4 floats, so the float4 pointers are
// 16-byte aligned and each load is one vector load; otherwise float. Offsets and lengths are in
// units of T; the item counts fit in 32 bits (host check), so the index arithmetic is 32-bit.

// dst = a op b; b has a's shape (b_n == n) or is one row of b_n items repeated over every row
#define GPU_BINARY_KERNEL(NAME, T) \
__kernel void NAME(__global const T * a, ulong oa, __global const T * b, ulong ob, uint b_n, \
                   __global T * d, ulong od, uint n, int op) { \
    const uint i = get_global_id(0); \
    if (i >= n) { \
        return; \
    } \
    const T x = a[oa + i]; \
    const T y = b[ob + (b_n == n ? i : i % b_n)]; \
    T z; \
    switch (op) { \
        case VB_ADD: z = x + y; break; \
        case VB_SUB: z = x - y; break; \
        case VB_MUL: z = x * y; break; \
        default:     z = x / y; break; \
    } \
    d[od + i] = z; \
}
GPU_BINARY_KERNEL(k_gbinary4, float4)
GPU_BINARY_KERNEL(k_gbinary1, float)

// dst = a * s + bias
#define GPU_SCALE_KERNEL(NAME, T) \
__kernel void NAME(__global const T * a, ulong oa, __global T * d, ulong od, uint n, float s, float bias) { \
    const uint i = get_global_id(0); \
    if (i < n) { \
        d[od + i] = a[oa + i] * s + bias; \
    } \
}
GPU_SCALE_KERNEL(k_gscale4, float4)
GPU_SCALE_KERNEL(k_gscale1, float)

// SWIGLU: item i is column i % nc of row i / nc; x and g rows at their own strides sa, sb
#define GPU_SWIGLU_KERNEL(NAME, T) \
__kernel void NAME(__global const T * a, ulong oa, uint sa, __global const T * b, ulong ob, uint sb, \
                   __global T * d, ulong od, uint nc, uint n) { \
    const uint i = get_global_id(0); \
    if (i >= n) { \
        return; \
    } \
    const uint r = i / nc; \
    const uint c = i - r*nc; \
    const T x = a[oa + (ulong) r*sa + c]; \
    const T g = b[ob + (ulong) r*sb + c]; \
    d[od + i] = x / (1.0f + exp(-x)) * g; \
}
GPU_SWIGLU_KERNEL(k_gswiglu4, float4)
GPU_SWIGLU_KERNEL(k_gswiglu1, float)

// CPY / DUP / CONT between contiguous F32 and F16 tensors: 4 values per item (k_gcpy4, offsets
// multiples of 4 elements: every access is one aligned vector load or store, F16 as 4 ushorts
// converted in private memory) or 1 (k_gcpy1); offsets in elements of each tensor's type
__kernel void k_gcpy4(__global const char * src, ulong os, int st, __global char * dst, ulong od, int dt, uint n4) {
    const uint i = get_global_id(0);
    if (i >= n4) {
        return;
    }
    float4 v;
    if (st == T_F16) {
        const ushort4 u = ((const __global ushort4 *) ((const __global ushort *) src + os))[i];
        v = vload_half4(0, (const __private half *) &u);
    } else {
        v = ((const __global float4 *) ((const __global float *) src + os))[i];
    }
    if (dt == T_F16) {
        ushort4 u;
        vstore_half4_rte(v, 0, (__private half *) &u);
        ((__global ushort4 *) ((__global ushort *) dst + od))[i] = u;
    } else {
        ((__global float4 *) ((__global float *) dst + od))[i] = v;
    }
}

__kernel void k_gcpy1(__global const char * src, ulong os, int st, __global char * dst, ulong od, int dt, uint n) {
    const uint i = get_global_id(0);
    if (i >= n) {
        return;
    }
    const float v = st == T_F16 ? vload_half(i, (const __global half *) src + os) : ((const __global float *) src + os)[i];
    if (dt == T_F16) {
        vstore_half_rte(v, i, (__global half *) dst + od);
    } else {
        ((__global float *) dst + od)[i] = v;
    }
}

// RMS_NORM or NORM with a work-group per row: the row's items are spread over the group (item k,
// k + L, ... of the row to work-item k: coalesced) and summed by a local-memory tree (wg_sum).
// Optionally the residual ADD before (has_b: the sum row a + b is stored to s and normalized) and
// the weight MUL after (has_w), fused by ocl-fuse.c; the unfused nodes run this same kernel with
// has_b = has_w = 0 and the MUL on k_gbinary, whose product (x*scale)*w is the fused one. Items
// are float4 whenever ne0 % 4 == 0, aligned (k_gnorm_rows4: float4 pointers) or not
// (k_gnorm_rows4u: vload4), so the sums' order, hence the result, depends on ne0 alone and fused
// and unfused results are equal bit for bit. ne: row length in items; offsets and steps in units
// of P. A row's items are read back by the work-item that read or wrote them first (in place is safe).
#define GN_RMS  0
#define GN_NORM 1
#define LD_IDX(p, k)    (p)[k]
#define ST_IDX(v, k, p) ((p)[k] = (v))
#define LD_V4(p, k)     vload4(k, p)
#define ST_V4(v, k, p)  vstore4(v, k, p)
#define GPU_NORM_KERNEL(NAME, T, P, VW, LD, ST) \
__kernel void NAME(__global const P * a, ulong oa, __global const P * b, ulong ob, ulong b_step, \
                   __global P * s, ulong os, __global const P * w, ulong ow, ulong w_step, \
                   __global P * d, ulong od, uint ne, float n0, float eps, int mode, int has_b, int has_w, \
                   __local float * buf) { \
    const ulong r = get_group_id(0); \
    const uint lid = get_local_id(0); \
    const uint L = get_local_size(0); \
    const ulong row = (ulong) ne*VW; \
    const __global P * x = a + oa + r*row; \
    __global P * z = d + od + r*row; \
    float acc = 0.0f; \
    float mean = 0.0f; \
    if (has_b) { \
        const __global P * y = b + ob + r*b_step; \
        __global P * sr = s + os + r*row; \
        for (uint k = lid; k < ne; k += L) { \
            const T v = LD(x, k) + LD(y, k); \
            ST(v, k, sr); \
            acc += dot(v, v); \
        } \
        x = sr; \
    } else if (mode == GN_NORM) { \
        for (uint k = lid; k < ne; k += L) { \
            acc += dot(LD(x, k), (T) 1.0f); \
        } \
        mean = wg_sum(acc, buf) / n0; \
        acc = 0.0f; \
        for (uint k = lid; k < ne; k += L) { \
            const T v = LD(x, k) - mean; \
            acc += dot(v, v); \
        } \
    } else { \
        for (uint k = lid; k < ne; k += L) { \
            const T v = LD(x, k); \
            acc += dot(v, v); \
        } \
    } \
    const float scale = rsqrt(wg_sum(acc, buf) / n0 + eps); \
    const __global P * g = w + ow + r*w_step; \
    for (uint k = lid; k < ne; k += L) { \
        const T v = (LD(x, k) - mean) * scale; \
        ST(has_w ? v * LD(g, k) : v, k, z); \
    } \
}
GPU_NORM_KERNEL(k_gnorm_rows4, float4, float4, 1, LD_IDX, ST_IDX)
GPU_NORM_KERNEL(k_gnorm_rows4u, float4, float, 4, LD_V4, ST_V4)
GPU_NORM_KERNEL(k_gnorm_rows1, float, float, 1, LD_IDX, ST_IDX)

// SOFT_MAX with a work-group per row (GPU shape; the arguments of k_vsoft_max, a local buffer of
// the group's size and one for the row): the weights w = a*scale + slope*mask are kept in local
// memory when the row fits there (in_local; the host checks), else they go through dst, so a and
// the mask are read once and dst written once; the row's max and sum by local-memory trees, item
// k, k + L, ... of the row to work-item k (coalesced), which alone reads back what it wrote
__kernel void k_gsoft_max(__global const float * a, ulong oa, __global float * d, ulong od,
                          long ne0, long ne1, long ne2,
                          __global const char * m, ulong om, int mt, long ms1, long ms2, long ms3, long mne2, long mne3,
                          int has_mask, __global const float * s, ulong os, int has_sinks,
                          float scale, float max_bias, float m0, float m1, int n_head_log2, __local float * buf,
                          __local float * lrow, int in_local) {
    const long r = get_group_id(0);
    const uint lid = get_local_id(0);
    const uint L = get_local_size(0);
    const long i1 = r % ne1;
    const long i2 = (r / ne1) % ne2;
    const long i3 = r / (ne1*ne2);
    const __global float * x = a + oa + r*ne0;
    __global float * z = d + od + r*ne0;
    const float slope = alibi_slope(i2, max_bias, m0, m1, n_head_log2);
    const ulong mo = om + i1*ms1 + (i2 % mne2)*ms2 + (i3 % mne3)*ms3;
    const __global float * mf = (const __global float *) m + mo;
    const __global half  * mh = (const __global half *) m + mo;
    const uint n = (uint) ne0;
    float mx = -INFINITY;
    for (uint k = lid; k < n; k += L) {
        float v = x[k] * scale;
        if (has_mask) {
            v = fma(mt == T_F16 ? vload_half(k, mh) : mf[k], slope, v);
        }
        if (in_local) {
            lrow[k] = v;
        } else {
            z[k] = v;
        }
        mx = fmax(mx, v);
    }
    const float sink = has_sinks ? s[os + i2] : -INFINITY;
    mx = fmax(wg_max(mx, buf), sink);
    float sum = 0.0f;
    for (uint k = lid; k < n; k += L) {
        const float e = exp((in_local ? lrow[k] : z[k]) - mx);
        if (in_local) {
            lrow[k] = e;
        } else {
            z[k] = e;
        }
        sum += e;
    }
    sum = wg_sum(sum, buf);
    if (has_sinks) {
        sum += exp(sink - mx);
    }
    const float inv = 1.0f / sum;
    for (uint k = lid; k < n; k += L) {
        z[k] = (in_local ? lrow[k] : z[k]) * inv;
    }
}
