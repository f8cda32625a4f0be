// MUL_MAT fast paths (host side: ocl-matmul-tiled.c). kernels/common.cl comes first.
//
// dst(n, m, i2, i3) = sum_k a(k, n, i2 / (B2/A2), i3 / (B3/A3)) * b(k, m, i2, i3) for a [K, N, A2, A3],
// b [K, M, B2, B3], dst [N, M, B2, B3] F32. The host guarantees that the rows of a and b are
// contiguous along k (nb[0] is the element size) and that every offset and stride is a multiple of
// the element size; rows, matrices and batches may have any other stride (views, permutations).
// Work dimension 2 runs over the batches i2 + B2*i3.
//
// Two kernel families, picked by the host per device type:
//
//   mm_dot_*, mv_dot_*  CPU devices (PoCL): no local memory, which is only cache there. A work-item
//       computes a DOT_RM x DOT_RN block of dst (GEMV: MV_RN values of one column m) with 16-wide
//       vectors along k, so that the K loop is DOT_RM + DOT_RN vector loads and DOT_RM*DOT_RN
//       vector FMAs held in registers; the lanes are summed once at the end.
//   mm_loc_*, mv_loc_*  GPUs: a work-group computes a LOC_T x LOC_T tile of dst, staging LOC_TK-deep
//       slices of a and b in local memory (transposed so that each work-item reads its LOC_R x LOC_R
//       register block with consecutive work-items on consecutive addresses); GEMV: a work-group
//       per value, work-items striding k and summing in local memory.
//
// Kernel names: <family>_<type of a>_<type of b>, types f32, f16, bf16 (a and b converted to float
// on load; F16 through vload_half, so cl_khr_fp16 is not needed).

// a*b + c may be one fused multiply-add (PoCL's mad() is a separate multiply and add)
#pragma OPENCL FP_CONTRACT ON
#define MAD(x, y, z) ((x)*(y) + (z))

#define UNROLL _Pragma("unroll")

#ifndef DOT_RM
#define DOT_RM 6
#endif
#ifndef DOT_RN
#define DOT_RN 4
#endif
#ifndef MV_RN
#define MV_RN  4
#endif

#define LOC_T  64               // dst tile (n and m) of a work-group
#define LOC_TK 16               // k depth of a staged slice
#define LOC_W  16               // work-group is LOC_W x LOC_W
#define LOC_R  (LOC_T / LOC_W)  // register block per work-item (LOC_R x LOC_R)
#define LOC_LD (LOC_T + 1)      // row pitch of the local slices (padded: the loads' stores hit distinct banks)

#define MV_LOC_W 64             // work-group of the GPU GEMV

// 16 consecutive elements k = 16*kk .. 16*kk + 15 of a row of type t (a compile-time constant
// after inlining, so the switch folds away)
inline float16 ld16(const __global char * row, long kk, const int t) {
    if (t == T_F16) {
        return vload_half16(kk, (const __global half *) row);
    }
    if (t == T_BF16) {
        return as_float16(convert_uint16(vload16(kk, (const __global ushort *) row)) << 16);
    }
    return vload16(kk, (const __global float *) row);
}

inline float4 ld4(const __global char * row, long kk, const int t) {
    if (t == T_F16) {
        return vload_half4(kk, (const __global half *) row);
    }
    if (t == T_BF16) {
        return as_float4(convert_uint4(vload4(kk, (const __global ushort *) row)) << 16);
    }
    return vload4(kk, (const __global float *) row);
}

inline float ld1(const __global char * row, long k, const int t) {
    if (t == T_F16) {
        return vload_half(k, (const __global half *) row);
    }
    if (t == T_BF16) {
        return bf16_to_f32(((const __global ushort *) row)[k]);
    }
    return ((const __global float *) row)[k];
}

inline float hsum16(float16 v) {
    const float8 h = v.lo + v.hi;
    const float4 q = h.lo + h.hi;
    const float2 d = q.lo + q.hi;
    return d.x + d.y;
}

// byte offsets of matrix (i2, i3) of a (broadcast), b and dst; batch = i2 + B2*i3
inline void batch_offsets(const tdesc ad, const tdesc bd, const tdesc dd, long batch,
                          ulong * oa, ulong * ob, ulong * od) {
    const long i2 = batch % bd.ne[2];
    const long i3 = batch / bd.ne[2];
    const long a2 = i2 / (bd.ne[2] / ad.ne[2]);
    const long a3 = i3 / (bd.ne[3] / ad.ne[3]);
    *oa = ad.offs + a2*ad.nb[2] + a3*ad.nb[3];
    *ob = bd.offs + i2*bd.nb[2] + i3*bd.nb[3];
    *od = dd.offs + i2*dd.nb[2] + i3*dd.nb[3];
}

//
// CPU: register-blocked dot products
//

// Out-of-range rows are clamped to the last one (their results are not stored), so the K loop
// has no branches.
__attribute__((always_inline))
inline void mm_dot(const __global char * a, const tdesc ad, const __global char * b, const tdesc bd,
                   __global char * dst, const tdesc dd, const int ta, const int tb) {
    const long N = ad.ne[1];
    const long M = bd.ne[1];
    const long K = ad.ne[0];
    const long n0 = get_global_id(0) * DOT_RN;
    const long m0 = get_global_id(1) * DOT_RM;
    if (n0 >= N || m0 >= M) {
        return;
    }
    ulong oa, ob, od;
    batch_offsets(ad, bd, dd, get_global_id(2), &oa, &ob, &od);

    const __global char * pa[DOT_RN];
    const __global char * pb[DOT_RM];
    UNROLL for (int j = 0; j < DOT_RN; j++) {
        pa[j] = a + oa + min(n0 + j, N - 1) * ad.nb[1];
    }
    UNROLL for (int i = 0; i < DOT_RM; i++) {
        pb[i] = b + ob + min(m0 + i, M - 1) * bd.nb[1];
    }

    float16 acc[DOT_RM][DOT_RN];
    UNROLL for (int i = 0; i < DOT_RM; i++) {
        UNROLL for (int j = 0; j < DOT_RN; j++) {
            acc[i][j] = (float16) 0.0f;
        }
    }
    const long kv = K / 16;
    for (long kk = 0; kk < kv; kk++) {
        float16 va[DOT_RN], vb[DOT_RM];
        UNROLL for (int j = 0; j < DOT_RN; j++) {
            va[j] = ld16(pa[j], kk, ta);
        }
        UNROLL for (int i = 0; i < DOT_RM; i++) {
            vb[i] = ld16(pb[i], kk, tb);
        }
        UNROLL for (int i = 0; i < DOT_RM; i++) {
            UNROLL for (int j = 0; j < DOT_RN; j++) {
                acc[i][j] = MAD(vb[i], va[j], acc[i][j]);
            }
        }
    }
    float r[DOT_RM][DOT_RN];
    UNROLL for (int i = 0; i < DOT_RM; i++) {
        UNROLL for (int j = 0; j < DOT_RN; j++) {
            r[i][j] = hsum16(acc[i][j]);
        }
    }
    for (long k = kv * 16; k < K; k++) {
        float xa[DOT_RN], xb[DOT_RM];
        UNROLL for (int j = 0; j < DOT_RN; j++) {
            xa[j] = ld1(pa[j], k, ta);
        }
        UNROLL for (int i = 0; i < DOT_RM; i++) {
            xb[i] = ld1(pb[i], k, tb);
        }
        UNROLL for (int i = 0; i < DOT_RM; i++) {
            UNROLL for (int j = 0; j < DOT_RN; j++) {
                r[i][j] = MAD(xb[i], xa[j], r[i][j]);
            }
        }
    }
    UNROLL for (int i = 0; i < DOT_RM; i++) {
        UNROLL for (int j = 0; j < DOT_RN; j++) {
            if (m0 + i < M && n0 + j < N) {
                *(__global float *) (dst + od + (n0 + j)*dd.nb[0] + (m0 + i)*dd.nb[1]) = r[i][j];
            }
        }
    }
}

// GEMV (and small M): MV_RN values dst(n0 .. n0 + MV_RN - 1, m) per work-item
__attribute__((always_inline))
inline void mv_dot(const __global char * a, const tdesc ad, const __global char * b, const tdesc bd,
                   __global char * dst, const tdesc dd, const int ta, const int tb) {
    const long N = ad.ne[1];
    const long K = ad.ne[0];
    const long n0 = get_global_id(0) * MV_RN;
    const long m = get_global_id(1);
    if (n0 >= N || m >= bd.ne[1]) {
        return;
    }
    ulong oa, ob, od;
    batch_offsets(ad, bd, dd, get_global_id(2), &oa, &ob, &od);

    const __global char * pa[MV_RN];
    UNROLL for (int j = 0; j < MV_RN; j++) {
        pa[j] = a + oa + min(n0 + j, N - 1) * ad.nb[1];
    }
    const __global char * pb = b + ob + m*bd.nb[1];

    float16 acc[MV_RN];
    UNROLL for (int j = 0; j < MV_RN; j++) {
        acc[j] = (float16) 0.0f;
    }
    const long kv = K / 16;
    for (long kk = 0; kk < kv; kk++) {
        const float16 vb = ld16(pb, kk, tb);
        UNROLL for (int j = 0; j < MV_RN; j++) {
            acc[j] = MAD(vb, ld16(pa[j], kk, ta), acc[j]);
        }
    }
    float r[MV_RN];
    UNROLL for (int j = 0; j < MV_RN; j++) {
        r[j] = hsum16(acc[j]);
    }
    for (long k = kv * 16; k < K; k++) {
        const float xb = ld1(pb, k, tb);
        UNROLL for (int j = 0; j < MV_RN; j++) {
            r[j] = MAD(xb, ld1(pa[j], k, ta), r[j]);
        }
    }
    UNROLL for (int j = 0; j < MV_RN; j++) {
        if (n0 + j < N) {
            *(__global float *) (dst + od + (n0 + j)*dd.nb[0] + m*dd.nb[1]) = r[j];
        }
    }
}

//
// GPU: local-memory tiles
//

// Work-group (LOC_W x LOC_W) computes the LOC_T x LOC_T tile of dst at group (gn, gm); work-item
// (tx, ty) owns n = n0 + tx + LOC_W*j, m = m0 + ty + LOC_W*i (strided so that neighbours read
// neighbouring local words). Out-of-range elements load as 0 and are not stored.
__attribute__((always_inline))
inline void mm_loc(const __global char * a, const tdesc ad, const __global char * b, const tdesc bd,
                   __global char * dst, const tdesc dd, const int ta, const int tb,
                   __local float * la, __local float * lb) {
    const long N = ad.ne[1];
    const long M = bd.ne[1];
    const long K = ad.ne[0];
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty*LOC_W + tx;
    const long n0 = get_group_id(0) * LOC_T;
    const long m0 = get_group_id(1) * LOC_T;
    ulong oa, ob, od;
    batch_offsets(ad, bd, dd, get_group_id(2), &oa, &ob, &od);

    float acc[LOC_R][LOC_R];
    UNROLL for (int i = 0; i < LOC_R; i++) {
        UNROLL for (int j = 0; j < LOC_R; j++) {
            acc[i][j] = 0.0f;
        }
    }
    // loading: item tid reads k = k0 + tid % LOC_TK of rows tid / LOC_TK + r*(LOC_W*LOC_W/LOC_TK)
    const int lk = tid % LOC_TK;
    const int lr = tid / LOC_TK;
    const int rstep = LOC_W*LOC_W / LOC_TK;

    for (long k0 = 0; k0 < K; k0 += LOC_TK) {
        const long k = k0 + lk;
        for (int r = lr; r < LOC_T; r += rstep) {
            const long n = n0 + r;
            const long m = m0 + r;
            la[lk*LOC_LD + r] = (n < N && k < K) ? ld1(a + oa + n*ad.nb[1], k, ta) : 0.0f;
            lb[lk*LOC_LD + r] = (m < M && k < K) ? ld1(b + ob + m*bd.nb[1], k, tb) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        UNROLL for (int kk = 0; kk < LOC_TK; kk++) {
            float xa[LOC_R], xb[LOC_R];
            UNROLL for (int j = 0; j < LOC_R; j++) {
                xa[j] = la[kk*LOC_LD + tx + LOC_W*j];
            }
            UNROLL for (int i = 0; i < LOC_R; i++) {
                xb[i] = lb[kk*LOC_LD + ty + LOC_W*i];
            }
            UNROLL for (int i = 0; i < LOC_R; i++) {
                UNROLL for (int j = 0; j < LOC_R; j++) {
                    acc[i][j] = MAD(xb[i], xa[j], acc[i][j]);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    UNROLL for (int i = 0; i < LOC_R; i++) {
        const long m = m0 + ty + LOC_W*i;
        UNROLL for (int j = 0; j < LOC_R; j++) {
            const long n = n0 + tx + LOC_W*j;
            if (m < M && n < N) {
                *(__global float *) (dst + od + n*dd.nb[0] + m*dd.nb[1]) = acc[i][j];
            }
        }
    }
}

// GEMV on GPUs: work-group (MV_LOC_W items) per value dst(n, m): items stride k by 4*MV_LOC_W
// (4 consecutive values each), then a tree sum in local memory
__attribute__((always_inline))
inline void mv_loc(const __global char * a, const tdesc ad, const __global char * b, const tdesc bd,
                   __global char * dst, const tdesc dd, const int ta, const int tb, __local float * red) {
    const long K = ad.ne[0];
    const long n = get_group_id(0);
    const long m = get_group_id(1);
    const int lid = get_local_id(0);
    ulong oa, ob, od;
    batch_offsets(ad, bd, dd, get_group_id(2), &oa, &ob, &od);
    const __global char * pa = a + oa + n*ad.nb[1];
    const __global char * pb = b + ob + m*bd.nb[1];

    float4 acc = (float4) 0.0f;
    const long kv = K / 4;
    for (long kk = lid; kk < kv; kk += MV_LOC_W) {
        acc = MAD(ld4(pb, kk, tb), ld4(pa, kk, ta), acc);
    }
    float s = (acc.x + acc.y) + (acc.z + acc.w);
    for (long k = kv*4 + lid; k < K; k += MV_LOC_W) {
        s = MAD(ld1(pb, k, tb), ld1(pa, k, ta), s);
    }
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = MV_LOC_W/2; w > 0; w >>= 1) {
        if (lid < w) {
            red[lid] += red[lid + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        *(__global float *) (dst + od + n*dd.nb[0] + m*dd.nb[1]) = red[0];
    }
}

//
// the kernels, one per (family, type of a, type of b)
//

#define MM_ARGS __global const char * a, const tdesc ad, __global const char * b, const tdesc bd, \
                __global char * dst, const tdesc dd

#define DEFINE_KERNELS(na, ta, nb, tb) \
    __kernel void mm_dot_##na##_##nb(MM_ARGS) { mm_dot(a, ad, b, bd, dst, dd, ta, tb); } \
    __kernel void mv_dot_##na##_##nb(MM_ARGS) { mv_dot(a, ad, b, bd, dst, dd, ta, tb); } \
    __kernel __attribute__((reqd_work_group_size(LOC_W, LOC_W, 1))) \
    void mm_loc_##na##_##nb(MM_ARGS) { \
        __local float la[LOC_TK*LOC_LD]; \
        __local float lb[LOC_TK*LOC_LD]; \
        mm_loc(a, ad, b, bd, dst, dd, ta, tb, la, lb); \
    } \
    __kernel __attribute__((reqd_work_group_size(MV_LOC_W, 1, 1))) \
    void mv_loc_##na##_##nb(MM_ARGS) { \
        __local float red[MV_LOC_W]; \
        mv_loc(a, ad, b, bd, dst, dd, ta, tb, red); \
    }

DEFINE_KERNELS(f32,  T_F32,  f32, T_F32)
DEFINE_KERNELS(f16,  T_F16,  f32, T_F32)
DEFINE_KERNELS(bf16, T_BF16, f32, T_F32)
DEFINE_KERNELS(f32,  T_F32,  f16, T_F16)
DEFINE_KERNELS(f16,  T_F16,  f16, T_F16)
DEFINE_KERNELS(bf16, T_BF16, f16, T_F16)
DEFINE_KERNELS(f32,  T_F32,  bf16, T_BF16)
DEFINE_KERNELS(f16,  T_F16,  bf16, T_BF16)
DEFINE_KERNELS(bf16, T_BF16, bf16, T_BF16)
