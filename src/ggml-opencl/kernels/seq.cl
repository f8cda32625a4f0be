// Sequence-model ops (issue 22's "seq" group): SSM_CONV, SSM_SCAN, SOLVE_TRI, GATED_DELTA_NET,
// RWKV_WKV6, GATED_LINEAR_ATTN and RWKV_WKV7. Semantics: tests/ref/ref-seq.c.
//
// Every source is F32 and read through its descriptor (any strides); the result is a fresh,
// contiguous F32 tensor. The recurrences are split into their independent parts, one work-item
// each: a state row of a (sequence, head) for SSM_SCAN, a column of the S x S state for the
// others. A work-item walks the tokens in order and keeps its part of the state in the result's
// state slot (global memory it alone touches), so no barrier is needed and any size works.

#define F32_AT(buf, d, i0, i1, i2, i3) (*(const __global float *) TPTR(buf, d, i0, i1, i2, i3))

// the result as a float array (fresh tensors start on an aligned offset)
__global float * out_f32(__global char * dst, const tdesc dd) {
    return (__global float *) (dst + dd.offs);
}

// log(1 + e^x); above 20 x itself (the CPU backend's and the family's cut-off)
float softplus_f(float x) {
    return x > 20.0f ? x : log1p(exp(x));
}

// SSM_CONV: dst[r, t, s] = sum_{i < d_conv} sx[t + i, r, s]*c[i, r]; launched over dst's shape
__kernel void k_ssm_conv(__global const char * sx, tdesc sxd, __global const char * c, tdesc cd,
                         __global char * dst, tdesc dd) {
    long r, t, s, i3;
    if (!elem_of(dd, &r, &t, &s, &i3)) {
        return;
    }
    float sum = 0.0f;
    for (long i = 0; i < cd.ne[0]; i++) {
        sum += F32_AT(sx, sxd, t + i, r, s, 0)*F32_AT(c, cd, i, r, 0, 0);
    }
    *(__global float *) TPTR(dst, dd, r, t, s, 0) = sum;
}

// SSM_SCAN, one work-item per (row i1 of head_dim, head h, sequence q). The state row
// (d_state = nc values) starts as s[., i1, h, ids[q]] and lives in slot 0 of the result's states;
// per token: d = softplus(dt), state = state*exp(d*A) + B*x*d, y = state . C. Slot k (0 < k < K)
// gets the state after token n_tokens - 1 - k. An id outside s gives NaN outputs and states.
__kernel void k_ssm_scan(__global const char * s,  tdesc sd,  __global const char * x, tdesc xd,
                         __global const char * dt, tdesc dtd, __global const char * A, tdesc ad,
                         __global const char * B,  tdesc bd,  __global const char * C, tdesc cd,
                         __global const char * ids, tdesc idd, __global char * dst, tdesc dd, int K) {
    const long nc = sd.ne[0], nr = xd.ne[0], nh = xd.ne[1], nt = xd.ne[2], ns = xd.ne[3];
    const long gid = get_global_id(0);
    if (gid >= nr*nh*ns) {
        return;
    }
    const long i1 = gid % nr, h = (gid / nr) % nh, q = gid / (nr*nh);
    const long g = h / (nh / bd.ne[1]);
    const long n_x = nr*nh*nt*ns, head = nc*nr;
    __global float * y = out_f32(dst, dd);
    __global float * st = y + n_x + (q*nh + h)*head + i1*nc;
    const long row = load_idx(TPTR(ids, idd, q, 0, 0, 0), idd.type);
    if (row < 0 || row >= sd.ne[3]) {
        for (long t = 0; t < nt; t++) {
            y[((q*nt + t)*nh + h)*nr + i1] = NAN;
        }
        for (long k = 0; k < K; k++) {
            for (long i0 = 0; i0 < nc; i0++) {
                y[n_x + ((k*ns + q)*nh + h)*head + i1*nc + i0] = NAN;
            }
        }
        return;
    }
    for (long i0 = 0; i0 < nc; i0++) {
        st[i0] = F32_AT(s, sd, i0, i1, h, row);
    }
    const bool scalar_decay = ad.ne[0] == 1;
    for (long t = 0; t < nt; t++) {
        const float d  = softplus_f(F32_AT(dt, dtd, h, t, q, 0));
        const float xdt = F32_AT(x, xd, i1, h, t, q)*d;
        const float dA = scalar_decay ? exp(d*F32_AT(A, ad, 0, h, 0, 0)) : 0.0f;
        const __global char * bp = TPTR(B, bd, 0, g, t, q);
        const __global char * cp = TPTR(C, cd, 0, g, t, q);
        float acc = 0.0f;
        for (long i0 = 0; i0 < nc; i0++) {
            const float decay = scalar_decay ? dA : exp(d*F32_AT(A, ad, i0, h, 0, 0));
            const float v = st[i0]*decay + *(const __global float *) (bp + i0*bd.nb[0])*xdt;
            st[i0] = v;
            acc += v*(*(const __global float *) (cp + i0*cd.nb[0]));
        }
        y[((q*nt + t)*nh + h)*nr + i1] = acc;
        const long slot = nt - 1 - t;
        if (slot > 0 && slot < K) {
            __global float * snap = y + n_x + ((slot*ns + q)*nh + h)*head + i1*nc;
            for (long i0 = 0; i0 < nc; i0++) {
                snap[i0] = st[i0];
            }
        }
    }
}

// SOLVE_TRI, one work-item per (column c of b, i2, i3): forward substitution down the rows,
// X[c, r] = (b[c, r] - sum_{t < r} a[t, r]*X[c, t]) / a[r, r], X kept in dst
__kernel void k_solve_tri(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                          __global char * dst, tdesc dd) {
    const long m = dd.ne[0], n = ad.ne[0];
    const long gid = get_global_id(0);
    if (gid >= m*dd.ne[2]*dd.ne[3]) {
        return;
    }
    const long c = gid % m, i2 = (gid / m) % dd.ne[2], i3 = gid / (m*dd.ne[2]);
    __global char * x = TPTR(dst, dd, c, 0, i2, i3);
    for (long r = 0; r < n; r++) {
        const __global char * arow = TPTR(a, ad, 0, r, i2, i3);
        float sum = F32_AT(b, bd, c, r, i2, i3);
        for (long t = 0; t < r; t++) {
            sum -= *(const __global float *) (arow + t*ad.nb[0])*(*(const __global float *) (x + t*dd.nb[1]));
        }
        *(__global float *) (x + r*dd.nb[1]) = sum / *(const __global float *) (arow + r*ad.nb[0]);
    }
}

// GATED_DELTA_NET, one work-item per (value index j, head h, sequence sq): column j of the state
// S[i][j] over the key index i, stored at j*S + i (as the source state), lives in slot 0 of the
// result's states. Per token: S[i][j] *= exp(g[i or 0]); delta = (v_j - sum_i S[i][j]*k_i)*beta;
// S[i][j] += k_i*delta; out_j = sum_i S[i][j]*q_i/sqrt(S). q and k: head h % H_k, sequence
// sq/(n_seqs/n_seqs_k). Slot k (0 < k < K) gets the state k tokens before the last.
__kernel void k_gated_delta_net(__global const char * q, tdesc qd, __global const char * k, tdesc kd,
                                __global const char * v, tdesc vd, __global const char * g, tdesc gd,
                                __global const char * beta, tdesc betad, __global const char * s0, tdesc sd,
                                __global char * dst, tdesc dd, int K) {
    const long S = vd.ne[0], H = vd.ne[1], T = vd.ne[2], ns = vd.ne[3];
    const long gid = get_global_id(0);
    if (gid >= S*H*ns) {
        return;
    }
    const long j = gid % S, h = (gid / S) % H, sq = gid / (S*H);
    const long hk = h % qd.ne[1], sk = sq / (ns / qd.ne[3]);
    const long n_out = S*H*T*ns, snap_floats = S*S*H*ns;
    const float scale = 1.0f / sqrt((float) S);
    const bool per_key_gate = gd.ne[0] != 1;
    __global float * out = out_f32(dst, dd);
    __global float * m = out + n_out + (sq*H + h)*S*S + j*S;
    for (long i = 0; i < S; i++) {
        m[i] = F32_AT(s0, sd, i, j, h, sq);
    }
    for (long t = 0; t < T; t++) {
        const __global char * kp = TPTR(k, kd, 0, hk, t, sk);
        const __global char * qp = TPTR(q, qd, 0, hk, t, sk);
        const __global char * gp = TPTR(g, gd, 0, h, t, sq);
        const float decay0 = exp(*(const __global float *) gp);
        float dk = 0.0f;
        for (long i = 0; i < S; i++) {
            const float decay = per_key_gate ? exp(*(const __global float *) (gp + i*gd.nb[0])) : decay0;
            const float e = m[i]*decay;
            m[i] = e;
            dk += e*(*(const __global float *) (kp + i*kd.nb[0]));
        }
        const float delta = (F32_AT(v, vd, j, h, t, sq) - dk)*F32_AT(beta, betad, 0, h, t, sq);
        float o = 0.0f;
        for (long i = 0; i < S; i++) {
            const float e = m[i] + (*(const __global float *) (kp + i*kd.nb[0]))*delta;
            m[i] = e;
            o += e*(*(const __global float *) (qp + i*qd.nb[0]));
        }
        out[((sq*T + t)*H + h)*S + j] = o*scale;
        const long slot = T - 1 - t;
        if (slot > 0 && slot < K) {
            __global float * snap = out + n_out + slot*snap_floats + (sq*H + h)*S*S + j*S;
            for (long i = 0; i < S; i++) {
                snap[i] = m[i];
            }
        }
    }
}

// RWKV_WKV6, GATED_LINEAR_ATTN and RWKV_WKV7: token tensors [S, H, T] (sequence q owns tokens
// q*T/n_seqs ..), the state [S*S*H, n_seqs] contiguous (element (i, j) of head h at h*S*S + i*S + j),
// the result: the T outputs [S*H], then the final states (same layout).

// the work-item's (index, head, sequence) and token range; false past the end
bool rwkv_item(const tdesc td, const tdesc sd, long * idx, long * h, long * q, long * t0, long * t1) {
    const long S = td.ne[0], H = td.ne[1], n_seqs = sd.ne[1];
    const long gid = get_global_id(0);
    if (gid >= S*H*n_seqs) {
        return false;
    }
    *idx = gid % S;
    *h = (gid / S) % H;
    *q = gid / (S*H);
    const long per_seq = td.ne[2] / n_seqs;
    *t0 = *q*per_seq;
    *t1 = *t0 + per_seq;
    return true;
}

// RWKV_WKV6 (sources k, v, r, tf, td, state), a work-item per value index j: column j of the state.
// out_j = sum_i r_i*(tf_i*k_i*v_j + S[i][j]); S[i][j] = S[i][j]*td_i + k_i*v_j
__kernel void k_rwkv_wkv6(__global const char * k, tdesc kd, __global const char * v, tdesc vd,
                          __global const char * r, tdesc rd, __global const char * tf, tdesc tfd,
                          __global const char * td, tdesc tdd, __global const char * s0, tdesc sd,
                          __global char * dst, tdesc dd) {
    long j, h, q, t0, t1;
    if (!rwkv_item(kd, sd, &j, &h, &q, &t0, &t1)) {
        return;
    }
    const long S = kd.ne[0], C = S*kd.ne[1];
    __global float * out = out_f32(dst, dd);
    __global float * st = out + kd.ne[2]*C + (q*kd.ne[1] + h)*S*S + j;
    const __global float * s_in = (const __global float *) (s0 + sd.offs) + (q*kd.ne[1] + h)*S*S + j;
    const __global float * tfh = (const __global float *) (tf + tfd.offs) + h*S;
    for (long i = 0; i < S; i++) {
        st[i*S] = s_in[i*S];
    }
    for (long t = t0; t < t1; t++) {
        const float vj = F32_AT(v, vd, j, h, t, 0);
        float o = 0.0f;
        for (long i = 0; i < S; i++) {
            const float kv = F32_AT(k, kd, i, h, t, 0)*vj;
            const float old = st[i*S];
            o += F32_AT(r, rd, i, h, t, 0)*(tfh[i]*kv + old);
            st[i*S] = old*F32_AT(td, tdd, i, h, t, 0) + kv;
        }
        out[t*C + h*S + j] = o;
    }
}

// GATED_LINEAR_ATTN (sources k, v, q, g, state; scale), a work-item per value index j:
// S[i][j] = S[i][j]*g_i + k_i*v_j; out_j = scale*sum_i q_i*S[i][j]
__kernel void k_gated_linear_attn(__global const char * k, tdesc kd, __global const char * v, tdesc vd,
                                  __global const char * qt, tdesc qd, __global const char * g, tdesc gd,
                                  __global const char * s0, tdesc sd, __global char * dst, tdesc dd, float scale) {
    long j, h, q, t0, t1;
    if (!rwkv_item(kd, sd, &j, &h, &q, &t0, &t1)) {
        return;
    }
    const long S = kd.ne[0], C = S*kd.ne[1];
    __global float * out = out_f32(dst, dd);
    __global float * st = out + kd.ne[2]*C + (q*kd.ne[1] + h)*S*S + j;
    const __global float * s_in = (const __global float *) (s0 + sd.offs) + (q*kd.ne[1] + h)*S*S + j;
    for (long i = 0; i < S; i++) {
        st[i*S] = s_in[i*S];
    }
    for (long t = t0; t < t1; t++) {
        const float vj = F32_AT(v, vd, j, h, t, 0);
        float o = 0.0f;
        for (long i = 0; i < S; i++) {
            const float e = st[i*S]*F32_AT(g, gd, i, h, t, 0) + F32_AT(k, kd, i, h, t, 0)*vj;
            st[i*S] = e;
            o += F32_AT(qt, qd, i, h, t, 0)*e;
        }
        out[t*C + h*S + j] = scale*o;
    }
}

// RWKV_WKV7 (sources r, w, k, v, a, b, state), a work-item per value index i: row i of the state.
// sa = sum_j a_j*S[i][j]; S[i][j] = S[i][j]*w_j + v_i*k_j + sa*b_j; out_i = sum_j r_j*S[i][j]
__kernel void k_rwkv_wkv7(__global const char * r, tdesc rd, __global const char * w, tdesc wd,
                          __global const char * k, tdesc kd, __global const char * v, tdesc vd,
                          __global const char * a, tdesc ad, __global const char * b, tdesc bd,
                          __global const char * s0, tdesc sd, __global char * dst, tdesc dd) {
    long i, h, q, t0, t1;
    if (!rwkv_item(rd, sd, &i, &h, &q, &t0, &t1)) {
        return;
    }
    const long S = rd.ne[0], C = S*rd.ne[1];
    __global float * out = out_f32(dst, dd);
    __global float * st = out + rd.ne[2]*C + (q*rd.ne[1] + h)*S*S + i*S;
    const __global float * s_in = (const __global float *) (s0 + sd.offs) + (q*rd.ne[1] + h)*S*S + i*S;
    for (long j = 0; j < S; j++) {
        st[j] = s_in[j];
    }
    for (long t = t0; t < t1; t++) {
        float sa = 0.0f;
        for (long j = 0; j < S; j++) {
            sa += F32_AT(a, ad, j, h, t, 0)*st[j];
        }
        const float vi = F32_AT(v, vd, i, h, t, 0);
        float o = 0.0f;
        for (long j = 0; j < S; j++) {
            const float e = st[j]*F32_AT(w, wd, j, h, t, 0) + vi*F32_AT(k, kd, j, h, t, 0) + sa*F32_AT(b, bd, j, h, t, 0);
            st[j] = e;
            o += F32_AT(r, rd, j, h, t, 0)*e;
        }
        out[t*C + h*S + i] = o;
    }
}
