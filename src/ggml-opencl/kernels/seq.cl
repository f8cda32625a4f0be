// Sequence-model ops (issue 22's "seq" group): SSM_CONV, SSM_SCAN, SOLVE_TRI, GATED_DELTA_NET,
// RWKV_WKV6, GATED_LINEAR_ATTN and RWKV_WKV7. Semantics: tests/ref/ref-seq.c.
//
// Every source is F32 and read through its descriptor (rows of unit element stride where a kernel
// says so; the host checks); the result is a fresh, contiguous F32 tensor. The recurrences are
// split into their independent parts, one work-item each: a state row of a (sequence, head) for SSM_SCAN, a column of the S x S state for the
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

// SSM_CONV: dst[r, t, s] = sum_{i < d_conv} sx[t + i, r, s]*c[i, r]. NDRange (t, r, s) when t_major
// (neighbouring work-items read neighbouring values of sx's rows), else (r, t, s) for few tokens;
// dim 0 rounded up to the work-group size.
__kernel void k_ssm_conv(__global const char * sx, tdesc sxd, __global const char * c, tdesc cd,
                         __global char * dst, tdesc dd, int t_major) {
    const long t = get_global_id(t_major ? 0 : 1), r = get_global_id(t_major ? 1 : 0), s = get_global_id(2);
    if (t >= dd.ne[1] || r >= dd.ne[0]) {
        return;
    }
    float sum = 0.0f;
    for (long i = 0; i < cd.ne[0]; i++) {
        sum += F32_AT(sx, sxd, t + i, r, s, 0)*F32_AT(c, cd, i, r, 0, 0);
    }
    *(__global float *) TPTR(dst, dd, r, t, s, 0) = sum;
}

// the four lanes' sum (the inner loops below keep 4 partial sums, one per lane of a float4)
float sum4(float4 v) {
    return (v.x + v.z) + (v.y + v.w);
}

// SSM_SCAN, one work-item per (row i1 of head_dim, head h, sequence q). The state row
// (d_state = nc values) starts as s[., i1, h, ids[q]] and lives in slot 0 of the result's states;
// per token: d = softplus(dt), state = state*exp(d*A) + B*x*d, y = state . C. Slot k (0 < k < K)
// gets the state after token n_tokens - 1 - k. An id outside s gives NaN outputs and states.
// B, C and A have unit element strides (the host checks): the row is walked 4 values at a time.
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
    const long nc4 = nc & ~3L;
    const __global float * ah = (const __global float *) TPTR(A, ad, 0, h, 0, 0);
    for (long t = 0; t < nt; t++) {
        const float d  = softplus_f(F32_AT(dt, dtd, h, t, q, 0));
        const float xdt = F32_AT(x, xd, i1, h, t, q)*d;
        const float dA = exp(d*ah[0]);
        const __global float * bp = (const __global float *) TPTR(B, bd, 0, g, t, q);
        const __global float * cp = (const __global float *) TPTR(C, cd, 0, g, t, q);
        float4 acc4 = 0.0f;
        for (long i0 = 0; i0 < nc4; i0 += 4) {
            const float4 decay = scalar_decay ? (float4) (dA) : exp(d*vload4(0, ah + i0));
            const float4 v = vload4(0, st + i0)*decay + vload4(0, bp + i0)*xdt;
            vstore4(v, 0, st + i0);
            acc4 += v*vload4(0, cp + i0);
        }
        float acc = sum4(acc4);
        for (long i0 = nc4; i0 < nc; i0++) {
            const float decay = scalar_decay ? dA : exp(d*ah[i0]);
            const float v = st[i0]*decay + bp[i0]*xdt;
            st[i0] = v;
            acc += v*cp[i0];
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
// One pass gives the gated column's products with k and q (and k . q), the second updates it:
// out_j = (S'.q + delta*(k.q))/sqrt(S) with S' the gated column. q, k and g rows have unit
// element strides (the host checks); 4 values at a time.
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
    const long n_out = S*H*T*ns, snap_floats = S*S*H*ns, S4 = S & ~3L;
    const float scale = 1.0f / sqrt((float) S);
    const bool per_key_gate = gd.ne[0] != 1;
    __global float * out = out_f32(dst, dd);
    __global float * m = out + n_out + (sq*H + h)*S*S + j*S;
    for (long i = 0; i < S; i++) {
        m[i] = F32_AT(s0, sd, i, j, h, sq);
    }
    for (long t = 0; t < T; t++) {
        const __global float * kp = (const __global float *) TPTR(k, kd, 0, hk, t, sk);
        const __global float * qp = (const __global float *) TPTR(q, qd, 0, hk, t, sk);
        const __global float * gp = (const __global float *) TPTR(g, gd, 0, h, t, sq);
        const float decay0 = exp(gp[0]);
        float4 dk4 = 0.0f, dq4 = 0.0f, kq4 = 0.0f;
        for (long i = 0; i < S4; i += 4) {
            const float4 decay = per_key_gate ? exp(vload4(0, gp + i)) : (float4) (decay0);
            const float4 e = vload4(0, m + i)*decay, ki = vload4(0, kp + i), qi = vload4(0, qp + i);
            vstore4(e, 0, m + i);
            dk4 += e*ki;
            dq4 += e*qi;
            kq4 += ki*qi;
        }
        float dk = sum4(dk4), dq = sum4(dq4), kq = sum4(kq4);
        for (long i = S4; i < S; i++) {
            const float e = m[i]*(per_key_gate ? exp(gp[i]) : decay0);
            m[i] = e;
            dk += e*kp[i];
            dq += e*qp[i];
            kq += kp[i]*qp[i];
        }
        const float delta = (F32_AT(v, vd, j, h, t, sq) - dk)*F32_AT(beta, betad, 0, h, t, sq);
        for (long i = 0; i < S4; i += 4) {
            vstore4(vload4(0, m + i) + vload4(0, kp + i)*delta, 0, m + i);
        }
        for (long i = S4; i < S; i++) {
            m[i] += kp[i]*delta;
        }
        out[((sq*T + t)*H + h)*S + j] = (dq + delta*kq)*scale;
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

// The same three with 4 state columns (or values) per work-item, for S % 4 == 0 and token rows of
// unit element stride (the host checks): the state and v rows are walked as float4.

__kernel void k_rwkv_wkv6_x4(__global const char * k, tdesc kd, __global const char * v, tdesc vd,
                             __global const char * r, tdesc rd, __global const char * tf, tdesc tfd,
                             __global const char * td, tdesc tdd, __global const char * s0, tdesc sd,
                             __global char * dst, tdesc dd) {
    const long S = kd.ne[0], H = kd.ne[1], n_seqs = sd.ne[1], C = S*H, per_seq = kd.ne[2] / n_seqs;
    const long gid = get_global_id(0);
    if (gid >= (S/4)*H*n_seqs) {
        return;
    }
    const long j0 = 4*(gid % (S/4)), h = (gid / (S/4)) % H, q = gid / ((S/4)*H);
    __global float * out = out_f32(dst, dd);
    __global float * st = out + kd.ne[2]*C + (q*H + h)*S*S + j0;
    const __global float * s_in = (const __global float *) (s0 + sd.offs) + (q*H + h)*S*S + j0;
    const __global float * tfh = (const __global float *) (tf + tfd.offs) + h*S;
    for (long i = 0; i < S; i++) {
        vstore4(vload4(0, s_in + i*S), 0, st + i*S);
    }
    for (long t = q*per_seq; t < (q + 1)*per_seq; t++) {
        const float4 v4 = vload4(0, (const __global float *) TPTR(v, vd, j0, h, t, 0));
        const __global float * kp = (const __global float *) TPTR(k, kd, 0, h, t, 0);
        const __global float * rp = (const __global float *) TPTR(r, rd, 0, h, t, 0);
        const __global float * dp = (const __global float *) TPTR(td, tdd, 0, h, t, 0);
        float4 o = 0.0f;
        for (long i = 0; i < S; i++) {
            const float4 kv = kp[i]*v4;
            const float4 old = vload4(0, st + i*S);
            o += rp[i]*(tfh[i]*kv + old);
            vstore4(old*dp[i] + kv, 0, st + i*S);
        }
        vstore4(o, 0, out + t*C + h*S + j0);
    }
}

__kernel void k_gated_linear_attn_x4(__global const char * k, tdesc kd, __global const char * v, tdesc vd,
                                     __global const char * qt, tdesc qd, __global const char * g, tdesc gd,
                                     __global const char * s0, tdesc sd, __global char * dst, tdesc dd, float scale) {
    const long S = kd.ne[0], H = kd.ne[1], n_seqs = sd.ne[1], C = S*H, per_seq = kd.ne[2] / n_seqs;
    const long gid = get_global_id(0);
    if (gid >= (S/4)*H*n_seqs) {
        return;
    }
    const long j0 = 4*(gid % (S/4)), h = (gid / (S/4)) % H, q = gid / ((S/4)*H);
    __global float * out = out_f32(dst, dd);
    __global float * st = out + kd.ne[2]*C + (q*H + h)*S*S + j0;
    const __global float * s_in = (const __global float *) (s0 + sd.offs) + (q*H + h)*S*S + j0;
    for (long i = 0; i < S; i++) {
        vstore4(vload4(0, s_in + i*S), 0, st + i*S);
    }
    for (long t = q*per_seq; t < (q + 1)*per_seq; t++) {
        const float4 v4 = vload4(0, (const __global float *) TPTR(v, vd, j0, h, t, 0));
        const __global float * kp = (const __global float *) TPTR(k, kd, 0, h, t, 0);
        const __global float * qp = (const __global float *) TPTR(qt, qd, 0, h, t, 0);
        const __global float * gp = (const __global float *) TPTR(g, gd, 0, h, t, 0);
        float4 o = 0.0f;
        for (long i = 0; i < S; i++) {
            const float4 e = vload4(0, st + i*S)*gp[i] + kp[i]*v4;
            vstore4(e, 0, st + i*S);
            o += qp[i]*e;
        }
        vstore4(scale*o, 0, out + t*C + h*S + j0);
    }
}

// a row i of the state per work-item, as k_rwkv_wkv7, the row walked as float4
__kernel void k_rwkv_wkv7_x4(__global const char * r, tdesc rd, __global const char * w, tdesc wd,
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
    for (long j = 0; j < S; j += 4) {
        vstore4(vload4(0, s_in + j), 0, st + j);
    }
    for (long t = t0; t < t1; t++) {
        const __global float * ap = (const __global float *) TPTR(a, ad, 0, h, t, 0);
        const __global float * wp = (const __global float *) TPTR(w, wd, 0, h, t, 0);
        const __global float * kp = (const __global float *) TPTR(k, kd, 0, h, t, 0);
        const __global float * bp = (const __global float *) TPTR(b, bd, 0, h, t, 0);
        const __global float * rp = (const __global float *) TPTR(r, rd, 0, h, t, 0);
        float4 sa4 = 0.0f;
        for (long j = 0; j < S; j += 4) {
            sa4 += vload4(0, ap + j)*vload4(0, st + j);
        }
        const float sa = sum4(sa4);
        const float vi = F32_AT(v, vd, i, h, t, 0);
        float4 o = 0.0f;
        for (long j = 0; j < S; j += 4) {
            const float4 e = vload4(0, st + j)*vload4(0, wp + j) + vi*vload4(0, kp + j) + sa*vload4(0, bp + j);
            vstore4(e, 0, st + j);
            o += vload4(0, rp + j)*e;
        }
        out[t*C + h*S + i] = sum4(o);
    }
}

// SOLVE_TRI with 4 columns of X per work-item (m % 4 == 0): the rows of X walked as float4
__kernel void k_solve_tri_x4(__global const char * a, tdesc ad, __global const char * b, tdesc bd,
                             __global char * dst, tdesc dd) {
    const long m4 = dd.ne[0]/4, n = ad.ne[0];
    const long gid = get_global_id(0);
    if (gid >= m4*dd.ne[2]*dd.ne[3]) {
        return;
    }
    const long c0 = 4*(gid % m4), i2 = (gid / m4) % dd.ne[2], i3 = gid / (m4*dd.ne[2]);
    __global char * x = TPTR(dst, dd, c0, 0, i2, i3);
    for (long r = 0; r < n; r++) {
        const __global char * arow = TPTR(a, ad, 0, r, i2, i3);
        const __global char * brow = TPTR(b, bd, c0, r, i2, i3);
        float4 sum = (float4) (*(const __global float *) brow, *(const __global float *) (brow + bd.nb[0]),
                               *(const __global float *) (brow + 2*bd.nb[0]), *(const __global float *) (brow + 3*bd.nb[0]));
        for (long t = 0; t < r; t++) {
            sum -= *(const __global float *) (arow + t*ad.nb[0])*vload4(0, (const __global float *) (x + t*dd.nb[1]));
        }
        vstore4(sum / *(const __global float *) (arow + r*ad.nb[0]), 0, (__global float *) (x + r*dd.nb[1]));
    }
}
