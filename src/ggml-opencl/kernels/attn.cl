// FLASH_ATTN_EXT: one work-group per query row (i1, head h, i3), streaming over the keys in
// blocks of the work-group size with an online softmax (running maximum M and sum S; the output
// row accumulates in local memory, each work-item owning the dims d = lid, lid + L, ...).
//
// q [DK, N, H, B], k [DK, KV, Hk, Bk], v [DV, KV, Hv, Bv], mask [KV, >= N, m2, m3] or none,
// sinks [H] or none -> dst [DV, H, N, B]. Score s_j = scale*(q . k_j), soft-capped when
// softcap != 0, plus slope(h)*mask(j, i1, h % m2, i3 % m3); result = sum_j e^{s_j} v_j /
// (sum_j e^{s_j} + e^{sink_h}), 0 when every score is -inf and there is no sink.
__kernel void k_flash_attn(__global const char * q, tdesc qd, __global const char * k, tdesc kd,
                           __global const char * v, tdesc vd, __global const char * m, tdesc md,
                           __global const char * s, tdesc sd, __global char * dst, tdesc dd,
                           float scale, float max_bias, float m0, float m1, int n_head_log2, float softcap,
                           int has_mask, int has_sinks,
                           __local float * qbuf, __local float * obuf, __local float * pbuf, __local float * red) {
    const long N = qd.ne[1], H = qd.ne[2], B = qd.ne[3];
    const long DK = qd.ne[0], DV = vd.ne[0], KV = kd.ne[1];
    long g = get_group_id(0);
    const long i1 = g % N; g /= N;
    const long h  = g % H;
    const long i3 = g / H;
    const int lid = get_local_id(0);
    const int L = get_local_size(0);

    const long hk = h / (H / kd.ne[2]), k3 = i3 / (B / kd.ne[3]);
    const long hv = h / (H / vd.ne[2]), v3 = i3 / (B / vd.ne[3]);
    float slope = 1.0f;
    if (max_bias > 0.0f) {
        slope = h < n_head_log2 ? pown(m0, (int) h + 1) : pown(m1, 2*((int) h - n_head_log2) + 1);
    }
    const __global char * mrow = has_mask ? TPTR(m, md, 0, i1, h % md.ne[2], i3 % md.ne[3]) : m;

    for (long d = lid; d < DK; d += L) {
        qbuf[d] = load_f(TPTR(q, qd, d, i1, h, i3), qd.type);
    }
    for (long d = lid; d < DV; d += L) {
        obuf[d] = 0.0f;
    }
    float M = has_sinks ? load_f(TPTR(s, sd, h, 0, 0, 0), sd.type) : -INFINITY;
    float S = has_sinks ? 1.0f : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (long j0 = 0; j0 < KV; j0 += L) {
        const long j = j0 + lid;
        float sc = -INFINITY;
        if (j < KV) {
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
        const long nj = min((long) L, KV - j0);
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
    const float inv = (S > 0.0f && M != -INFINITY) ? 1.0f / S : 0.0f;
    for (long d = lid; d < DV; d += L) {
        store_f(TPTR(dst, dd, d, h, i1, i3), dd.type, obuf[d]*inv);
    }
}
