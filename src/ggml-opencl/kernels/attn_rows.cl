// FLASH_ATTN_EXT for CPU devices (host side: ocl-op-attn-rows.c): one work-item per (query row,
// head, i3) with the whole output row in registers, so no local memory and no barriers (on PoCL a
// barrier spills every work-item's registers). K and V F16 with contiguous rows, head size D
// (DK = DV, a multiple of 16, at most ROWS_MAX_D) known at build time per kernel; Q F32 with
// contiguous rows; mask F16 or F32; dst F32. Same semantics as k_flash_attn (attn.cl): score
// s_j = scale*(q . k_j), soft-capped when softcap != 0, plus slope(h)*mask(j, i1); an online
// softmax over the keys, the sink of head h counted in the sum.

#define ROWS_MAX_D 256

__attribute__((always_inline))
inline void attn_rows(__global const char * q, const tdesc qd, __global const char * k, const tdesc kd,
                      __global const char * v, const tdesc vd, __global const char * m, const tdesc md,
                      __global const char * s, const tdesc sd, __global char * dst, const tdesc dd,
                      float scale, float max_bias, float m0, float m1, int n_head_log2, float softcap,
                      int has_mask, int has_sinks, const int D) {
    const long N = qd.ne[1], H = qd.ne[2], B = qd.ne[3];
    const long KV = kd.ne[1];
    long g = get_global_id(0);
    if (g >= N*H*B) {
        return;
    }
    const long i1 = g % N; g /= N;
    const long h  = g % H;
    const long i3 = g / H;
    const long hk = h / (H / kd.ne[2]), k3 = i3 / (B / kd.ne[3]);
    const long hv = h / (H / vd.ne[2]), v3 = i3 / (B / vd.ne[3]);
    const float slope = alibi_slope(h, max_bias, m0, m1, n_head_log2);
    const __global char * mrow = has_mask ? TPTR(m, md, 0, i1, h % md.ne[2], i3 % md.ne[3]) : m;
    const __global float * qrow = (const __global float *) TPTR(q, qd, 0, i1, h, i3);
    const int nv = D / 16;
    float16 qv[ROWS_MAX_D / 16], o[ROWS_MAX_D / 16];
    for (int c = 0; c < nv; c++) {
        qv[c] = vload16(c, qrow) * scale;
        o[c] = (float16) 0.0f;
    }
    float M = has_sinks ? load_f(TPTR(s, sd, h, 0, 0, 0), sd.type) : -INFINITY;
    float S = has_sinks ? 1.0f : 0.0f;
    const __global char * kbase = k + kd.offs + hk*kd.nb[2] + k3*kd.nb[3];
    const __global char * vbase = v + vd.offs + hv*vd.nb[2] + v3*vd.nb[3];
    for (long j = 0; j < KV; j++) {
        float x = 0.0f;
        if (has_mask) {
            x = slope * load_f(mrow + j*md.nb[0], md.type);
            if (x == -INFINITY) {
                continue; // masked key: weight 0
            }
        }
        const __global half * krow = (const __global half *) (kbase + j*kd.nb[1]);
        float16 acc = (float16) 0.0f;
        for (int c = 0; c < nv; c++) {
            acc = fma(qv[c], vload_half16(c, krow), acc);
        }
        const float8 hh = acc.lo + acc.hi;
        const float4 qq = hh.lo + hh.hi;
        float sc = (qq.x + qq.y) + (qq.z + qq.w);
        if (softcap != 0.0f) {
            sc = softcap*tanh(sc/softcap);
        }
        sc += x;
        if (sc == -INFINITY) {
            continue;
        }
        const __global half * vrow = (const __global half *) (vbase + j*vd.nb[1]);
        if (sc > M) {
            const float alpha = M == -INFINITY ? 0.0f : exp(M - sc);
            M = sc;
            S = S*alpha + 1.0f;
            for (int c = 0; c < nv; c++) {
                o[c] = fma(o[c], (float16) alpha, vload_half16(c, vrow));
            }
        } else {
            const float p = exp(sc - M);
            S += p;
            for (int c = 0; c < nv; c++) {
                o[c] = fma(vload_half16(c, vrow), (float16) p, o[c]);
            }
        }
    }
    const float inv = (S > 0.0f && M != -INFINITY) ? 1.0f / S : 0.0f;
    __global float * out = (__global float *) TPTR(dst, dd, 0, h, i1, i3);
    for (int c = 0; c < nv; c++) {
        vstore16(o[c] * inv, c, out);
    }
}

#define ATTN_ROWS_ARGS __global const char * q, tdesc qd, __global const char * k, tdesc kd, \
    __global const char * v, tdesc vd, __global const char * m, tdesc md, __global const char * s, tdesc sd, \
    __global char * dst, tdesc dd, float scale, float max_bias, float m0, float m1, int n_head_log2, float softcap, \
    int has_mask, int has_sinks

#define DEFINE_ATTN_ROWS(D) \
    __kernel void k_attn_rows_##D(ATTN_ROWS_ARGS) { \
        attn_rows(q, qd, k, kd, v, vd, m, md, s, sd, dst, dd, scale, max_bias, m0, m1, n_head_log2, softcap, \
                  has_mask, has_sinks, D); \
    }

DEFINE_ATTN_ROWS(64)
DEFINE_ATTN_ROWS(128)
