// FLASH_ATTN_EXT: one work-group per query row (i1, head h, i3), streaming over the keys in
// blocks of the work-group size with an online softmax (running maximum M and sum S; the output
// row accumulates in local memory, each work-item owning the dims d = lid, lid + L, ...).
//
// q [DK, N, H, B], k [DK, KV, Hk, Bk], v [DV, KV, Hv, Bv], mask [KV, >= N, m2, m3] or none,
// sinks [H] or none -> dst [DV, H, N, B]. Score s_j = scale*(q . k_j), soft-capped when
// softcap != 0, plus slope(h)*mask(j, i1, h % m2, i3 % m3); result = sum_j e^{s_j} v_j /
// (sum_j e^{s_j} + e^{sink_h}), 0 when every score is -inf and there is no sink.
//
// Few query rows (decode) on GPUs: k_flash_attn_split runs n_split work-groups per row, each over
// one span of the keys, and writes its unnormalized output with its M and S to a scratch buffer;
// k_flash_attn_merge rescales the spans to the common maximum and adds them (and the sink).
// Many query rows (prompts) on GPUs: k_flash_attn_tile, FA_Q query rows of a head per work-group
// sharing each tile of keys and values in local memory.
#define ATTN_ARGS __global const char * q, tdesc qd, __global const char * k, tdesc kd, \
                  __global const char * v, tdesc vd, __global const char * m, tdesc md, \
                  __global const char * s, tdesc sd, __global char * dst, tdesc dd, \
                  float scale, float max_bias, float m0, float m1, int n_head_log2, float softcap, \
                  int has_mask, int has_sinks

// The online softmax of query row (i1, h, i3) over keys j_begin .. j_end - 1, starting from the
// running maximum *M and sum *S; obuf (DV floats, set to zero here) ends with the unnormalized
// output sum_j e^{s_j - M} v_j. Every work-item of the group calls it (barriers).
inline void attn_span(ATTN_ARGS, long i1, long h, long i3, long j_begin, long j_end, float * Mp, float * Sp,
                      __local float * qbuf, __local float * obuf, __local float * pbuf, __local float * red) {
    const long H = qd.ne[2], B = qd.ne[3];
    const long DK = qd.ne[0], DV = vd.ne[0];
    const int lid = get_local_id(0);
    const int L = get_local_size(0);

    const long hk = h / (H / kd.ne[2]), k3 = i3 / (B / kd.ne[3]);
    const long hv = h / (H / vd.ne[2]), v3 = i3 / (B / vd.ne[3]);
    const float slope = alibi_slope(h, max_bias, m0, m1, n_head_log2);
    const __global char * mrow = has_mask ? TPTR(m, md, 0, i1, h % md.ne[2], i3 % md.ne[3]) : m;

    for (long d = lid; d < DK; d += L) {
        qbuf[d] = load_f(TPTR(q, qd, d, i1, h, i3), qd.type);
    }
    for (long d = lid; d < DV; d += L) {
        obuf[d] = 0.0f;
    }
    float M = *Mp;
    float S = *Sp;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (long j0 = j_begin; j0 < j_end; j0 += L) {
        const long j = j0 + lid;
        float sc = -INFINITY;
        if (j < j_end) {
            const __global char * krow = TPTR(k, kd, 0, j, hk, k3);
            float dot = 0.0f;
            for (long d = 0; d < DK; d++) {
                dot += qbuf[d]*load_f(krow + d*kd.nb[0], kd.type);
            }
            float x = dot*scale;
            if (softcap != 0.0f) {
                x = softcap*tanh(x/softcap);
            }
            if (has_mask) {
                x += slope*load_f(mrow + j*md.nb[0], md.type);
            }
            sc = x;
        }
        const float newM = fmax(M, wg_max(sc, red));
        const float alpha = M == -INFINITY ? 0.0f : exp(M - newM);
        const float p = (sc == -INFINITY || newM == -INFINITY) ? 0.0f : exp(sc - newM);
        pbuf[lid] = p;
        const float psum = wg_sum(p, red); // its barriers also publish pbuf
        S = S*alpha + psum;
        const long nj = min((long) L, j_end - j0);
        for (long d = lid; d < DV; d += L) {
            float acc = obuf[d]*alpha;
            for (long jj = 0; jj < nj; jj++) {
                const float pj = pbuf[jj];
                if (pj != 0.0f) {
                    acc += pj*load_f(TPTR(v, vd, d, j0 + jj, hv, v3), vd.type);
                }
            }
            obuf[d] = acc;
        }
        M = newM;
        barrier(CLK_LOCAL_MEM_FENCE); // pbuf is rewritten by the next block
    }
    *Mp = M;
    *Sp = S;
}

// one work-group per query row (i1, h, i3): the whole key range
__kernel void k_flash_attn(ATTN_ARGS, __local float * qbuf, __local float * obuf, __local float * pbuf, __local float * red) {
    const long N = qd.ne[1], H = qd.ne[2];
    long g = get_group_id(0);
    const long i1 = g % N; g /= N;
    const long h  = g % H;
    const long i3 = g / H;
    float M = has_sinks ? load_f(TPTR(s, sd, h, 0, 0, 0), sd.type) : -INFINITY;
    float S = has_sinks ? 1.0f : 0.0f;
    attn_span(q, qd, k, kd, v, vd, m, md, s, sd, dst, dd, scale, max_bias, m0, m1, n_head_log2, softcap,
              has_mask, has_sinks, i1, h, i3, 0, kd.ne[1], &M, &S, qbuf, obuf, pbuf, red);
    const float inv = (S > 0.0f && M != -INFINITY) ? 1.0f / S : 0.0f;
    for (long d = get_local_id(0); d < vd.ne[0]; d += get_local_size(0)) {
        store_f(TPTR(dst, dd, d, h, i1, i3), dd.type, obuf[d]*inv);
    }
}

// work-group r*n_split + c: row r = i1 + N*(h + H*i3), keys c*span .. (c + 1)*span - 1; writes
// part[(r*n_split + c)*(DV + 2) + 0, 1, 2 ..] = M, S, the unnormalized output (no sink here)
__kernel void k_flash_attn_split(ATTN_ARGS, __global float * part, long n_split, long span,
                                 __local float * qbuf, __local float * obuf, __local float * pbuf, __local float * red) {
    const long N = qd.ne[1], H = qd.ne[2], KV = kd.ne[1], DV = vd.ne[0];
    const long c = get_group_id(0) % n_split;
    long g = get_group_id(0) / n_split;
    const long i1 = g % N; g /= N;
    const long h  = g % H;
    const long i3 = g / H;
    float M = -INFINITY, S = 0.0f;
    attn_span(q, qd, k, kd, v, vd, m, md, s, sd, dst, dd, scale, max_bias, m0, m1, n_head_log2, softcap,
              has_mask, has_sinks, i1, h, i3, min(c*span, KV), min((c + 1)*span, KV), &M, &S, qbuf, obuf, pbuf, red);
    __global float * out = part + get_group_id(0)*(DV + 2);
    if (get_local_id(0) == 0) {
        out[0] = M;
        out[1] = S;
    }
    for (long d = get_local_id(0); d < DV; d += get_local_size(0)) {
        out[2 + d] = obuf[d];
    }
}

// one work-group per row: the n_split spans of k_flash_attn_split (and the sink) rescaled to the
// common maximum and added; each work-item owns the dims lid, lid + L, ...
__kernel void k_flash_attn_merge(ATTN_ARGS, __global const float * part, long n_split) {
    const long N = qd.ne[1], H = qd.ne[2], DV = vd.ne[0];
    const long r = get_group_id(0);
    long g = r;
    const long i1 = g % N; g /= N;
    const long h  = g % H;
    const long i3 = g / H;
    const __global float * p = part + r*n_split*(DV + 2);
    const float sink = has_sinks ? load_f(TPTR(s, sd, h, 0, 0, 0), sd.type) : -INFINITY;
    float M = sink;
    for (long c = 0; c < n_split; c++) {
        M = fmax(M, p[c*(DV + 2)]);
    }
    float S = M == -INFINITY ? 0.0f : (has_sinks ? exp(sink - M) : 0.0f);
    for (long c = 0; c < n_split; c++) {
        const float Mc = p[c*(DV + 2)];
        S += Mc == -INFINITY ? 0.0f : p[c*(DV + 2) + 1]*exp(Mc - M);
    }
    const float inv = (S > 0.0f && M != -INFINITY) ? 1.0f / S : 0.0f;
    for (long d = get_local_id(0); d < DV; d += get_local_size(0)) {
        float acc = 0.0f;
        for (long c = 0; c < n_split; c++) {
            const float Mc = p[c*(DV + 2)];
            if (Mc != -INFINITY) {
                acc += p[c*(DV + 2) + 2 + d]*exp(Mc - M);
            }
        }
        store_f(TPTR(dst, dd, d, h, i1, i3), dd.type, acc*inv);
    }
}

// Prompts on GPUs: a work-group of FA_WG work-items takes FA_Q query rows of one head (i3, h)
// and walks the keys in tiles of FA_K, each tile of K and V loaded once into local memory for all
// its queries. Work-item lid serves query lid / FA_QW: the scores of keys lid % FA_QW + FA_QW*t,
// and the output dims lid % FA_QW + FA_QW*i (private accumulators). DK, DV <= FA_DMAX.
#define FA_WG 64
#define FA_Q 16
#define FA_K 32
#define FA_QW (FA_WG / FA_Q)
#define FA_DMAX 128
#define UNROLL_ATTN _Pragma("unroll")

__kernel __attribute__((reqd_work_group_size(FA_WG, 1, 1)))
void k_flash_attn_tile(ATTN_ARGS, __local float * qs, __local float * ks, __local float * vs) {
    __local float ps[FA_Q*FA_K];
    const long N = qd.ne[1], H = qd.ne[2], B = qd.ne[3];
    const long DK = qd.ne[0], DV = vd.ne[0], KV = kd.ne[1];
    const long n_qb = (N + FA_Q - 1) / FA_Q;
    long g = get_group_id(0);
    const long qb = g % n_qb; g /= n_qb;
    const long h  = g % H;
    const long i3 = g / H;
    const int lid = get_local_id(0);
    const int qi = lid / FA_QW;
    const int lane = lid % FA_QW;
    const long i1 = qb*FA_Q + qi;
    const long i1c = min(i1, N - 1);

    const long hk = h / (H / kd.ne[2]), k3 = i3 / (B / kd.ne[3]);
    const long hv = h / (H / vd.ne[2]), v3 = i3 / (B / vd.ne[3]);
    const float slope = alibi_slope(h, max_bias, m0, m1, n_head_log2);
    const __global char * mrow = has_mask ? TPTR(m, md, 0, i1c, h % md.ne[2], i3 % md.ne[3]) : m;

    for (long e = lid; e < FA_Q*DK; e += FA_WG) {
        const long r = min(qb*FA_Q + e / DK, N - 1);
        qs[e] = load_f(TPTR(q, qd, e % DK, r, h, i3), qd.type);
    }
    float o[FA_DMAX / FA_QW];
    UNROLL_ATTN for (int i = 0; i < FA_DMAX / FA_QW; i++) {
        o[i] = 0.0f;
    }
    float M = has_sinks ? load_f(TPTR(s, sd, h, 0, 0, 0), sd.type) : -INFINITY;
    float S = has_sinks ? 1.0f : 0.0f;

    for (long j0 = 0; j0 < KV; j0 += FA_K) {
        barrier(CLK_LOCAL_MEM_FENCE); // the previous tile is done with ks, vs and ps
        for (long e = lid; e < FA_K*DK; e += FA_WG) {
            const long j = j0 + e / DK;
            ks[e] = j < KV ? load_f(TPTR(k, kd, e % DK, j, hk, k3), kd.type) : 0.0f;
        }
        for (long e = lid; e < FA_K*DV; e += FA_WG) {
            const long j = j0 + e / DV;
            vs[e] = j < KV ? load_f(TPTR(v, vd, e % DV, j, hv, v3), vd.type) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int jj = lane; jj < FA_K; jj += FA_QW) {
            const long j = j0 + jj;
            float x = -INFINITY;
            if (j < KV) {
                float dot = 0.0f;
                for (long d = 0; d < DK; d++) {
                    dot += qs[qi*DK + d]*ks[jj*DK + d];
                }
                x = dot*scale;
                if (softcap != 0.0f) {
                    x = softcap*tanh(x/softcap);
                }
                if (has_mask) {
                    x += slope*load_f(mrow + j*md.nb[0], md.type);
                }
            }
            ps[qi*FA_K + jj] = x;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // every work-item of a query row redoes the row's softmax step (no further barrier)
        float tmax = -INFINITY;
        for (int jj = 0; jj < FA_K; jj++) {
            tmax = fmax(tmax, ps[qi*FA_K + jj]);
        }
        const float newM = fmax(M, tmax);
        if (newM == -INFINITY) {
            continue; // nothing seen yet: no weight to add
        }
        const float alpha = M == -INFINITY ? 0.0f : exp(M - newM);
        S *= alpha;
        UNROLL_ATTN for (int i = 0; i < FA_DMAX / FA_QW; i++) {
            o[i] *= alpha;
        }
        for (int jj = 0; jj < FA_K; jj++) {
            const float sc = ps[qi*FA_K + jj];
            const float p = sc == -INFINITY ? 0.0f : exp(sc - newM);
            S += p;
            UNROLL_ATTN for (int i = 0; i < FA_DMAX / FA_QW; i++) {
                const int d = lane + FA_QW*i;
                if (d < DV) {
                    o[i] = mad(p, vs[jj*DV + d], o[i]);
                }
            }
        }
        M = newM;
    }
    if (i1 < N) {
        const float inv = (S > 0.0f && M != -INFINITY) ? 1.0f / S : 0.0f;
        UNROLL_ATTN for (int i = 0; i < FA_DMAX / FA_QW; i++) {
            const int d = lane + FA_QW*i;
            if (d < DV) {
                store_f(TPTR(dst, dd, d, h, i1, i3), dd.type, o[i]*inv);
            }
        }
    }
}
