// Reference: issue 22's "seq" group, the sequence-model ops. Every recurrence is evaluated in
// double, state included; element (i0, i1, i2, i3) of a source is read with ggml_ref_get.
//   SSM_CONV           out[r, t, s] = sum_{i < d_conv} sx[t + i, r, s]*c[i, r]
//   SSM_SCAN           i32[0] = K. Per sequence q (state row ids[q] of s) and head h, for each token:
//                      d = softplus(dt[h, t, q]), state[i0, i1] = state[i0, i1]*exp(d*A[i0 or 0, h])
//                      + B[i0, g, t, q]*x[i1, h, t, q]*d, y[i1, h, t, q] = sum_i0 state[i0, i1]*C[i0, g, t, q]
//                      with g = h/(n_head/n_group). Result: y, then slot k (k < K) = the state after
//                      token n_tokens - 1 - k. Slots k >= n_tokens (K > 1) are never written: refused.
//   RWKV_WKV6          state[i][j] = state[i][j]*td_i + k_i*v_j, out_j = sum_i r_i*(tf_i*k_i*v_j + old state[i][j])
//   GATED_LINEAR_ATTN  f32[0] = scale; state[i][j] = state[i][j]*g_i + k_i*v_j, out_j = scale*sum_i q_i*state[i][j]
//   RWKV_WKV7          sa_i = sum_j a_j*state[i][j]; state[i][j] = state[i][j]*w_j + v_i*k_j + sa_i*b_j;
//                      out_i = sum_j r_j*state[i][j]
//                      (these three: tokens [S, H, T], sequence q owns tokens q*T/n_seqs ..; state
//                      element (h, i, j) of sequence q at flat index q*S*S*H + h*S*S + i*S + j;
//                      result rows: the T outputs [S*H], then the final states)
//   SOLVE_TRI          X with A X = B for the lower triangle of A (A[t, r] = a[t, r], i0 = column):
//                      X[c, r] = (b[c, r] - sum_{t < r} a[t, r]*X[c, t]) / a[r, r]
//   GATED_DELTA_NET    i32[0] = K. Per sequence q and head h, S[i][j] over key i and value j (stored at
//                      state[i, j, h, q]); per token: S[i][j] *= exp(g[i or 0]); delta_j = (v_j -
//                      sum_i S[i][j]*k_i)*beta; S[i][j] += k_i*delta_j; out_j = sum_i S[i][j]*q_i/sqrt(S).
//                      q, k of head h % H_k, sequence q/(n_seqs/n_seqs_k). Result: outputs
//                      [S, H, T, n_seqs], then slot k = the state k tokens back (S[i][j] at j*S + i).

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <math.h>
#include <stdlib.h>

static bool ref_need(const struct ggml_tensor * node, int n, char * err, size_t err_size) {
    for (int i = 0; i < n; i++) {
        if (!ggml_ref_need_src(node, i, err, err_size)) {
            return false;
        }
    }
    return true;
}

static double ref_softplus(double x) {
    return x > 700.0 ? x : log1p(exp(x));
}

static bool ref_ssm_conv(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * sx = node->src[0], * c = node->src[1];
    if (c->ne[0] < 1 || sx->ne[1] != c->ne[1] || node->ne[0] != c->ne[1] || node->ne[1] != sx->ne[0] - c->ne[0] + 1 ||
        node->ne[2] != sx->ne[2]) {
        return ggml_ref_fail(err, err_size, "SSM_CONV: inconsistent shapes");
    }
    for (int64_t s = 0; s < node->ne[2]; s++) {
        for (int64_t t = 0; t < node->ne[1]; t++) {
            for (int64_t r = 0; r < node->ne[0]; r++) {
                double sum = 0.0;
                for (int64_t i = 0; i < c->ne[0]; i++) {
                    sum += ggml_ref_get(sx, t + i, r, s, 0)*ggml_ref_get(c, i, r, 0, 0);
                }
                out[ggml_ref_idx(node, r, t, s, 0)] = sum;
            }
        }
    }
    return true;
}

static bool ref_ssm_scan(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * s = node->src[0], * x = node->src[1], * dt = node->src[2], * A = node->src[3];
    const struct ggml_tensor * B = node->src[4], * C = node->src[5], * ids = node->src[6];
    const int64_t K = ggml_ref_param_i32(node, 0);
    const int64_t nc = s->ne[0], nr = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3], ng = B->ne[1];
    const int64_t nx = nr*nh*nt*ns, head = nc*nr;
    if (K < 1 || ng < 1 || nh % ng != 0 || ggml_ref_nel(node) != nx + K*head*nh*ns || (A->ne[0] != 1 && A->ne[0] != nc)) {
        return ggml_ref_fail(err, err_size, "SSM_SCAN: inconsistent shapes");
    }
    if (K > 1 && K > nt) {
        return ggml_ref_fail(err, err_size, "SSM_SCAN: slots %lld .. %lld are not written (only %lld tokens)",
                (long long) nt, (long long) K - 1, (long long) nt);
    }
    double * st = malloc((size_t) head*sizeof(double));
    if (st == NULL) {
        return ggml_ref_fail(err, err_size, "SSM_SCAN: out of memory");
    }
    for (int64_t q = 0; q < ns; q++) {
        const double row = ggml_ref_get(ids, q, 0, 0, 0);
        if (!(row >= 0 && row < (double) s->ne[3])) {
            free(st);
            return ggml_ref_fail(err, err_size, "SSM_SCAN: ids[%lld] = %g outside [0, %lld)", (long long) q, row,
                    (long long) s->ne[3]);
        }
        for (int64_t h = 0; h < nh; h++) {
            const int64_t g = h / (nh / ng);
            for (int64_t i1 = 0; i1 < nr; i1++) {
                for (int64_t i0 = 0; i0 < nc; i0++) {
                    st[i1*nc + i0] = ggml_ref_get(s, i0, i1, h, (int64_t) row);
                }
            }
            for (int64_t t = 0; t < nt; t++) {
                const double d = ref_softplus(ggml_ref_get(dt, h, t, q, 0));
                for (int64_t i1 = 0; i1 < nr; i1++) {
                    const double xd = ggml_ref_get(x, i1, h, t, q)*d;
                    double y = 0.0;
                    for (int64_t i0 = 0; i0 < nc; i0++) {
                        const double a = ggml_ref_get(A, A->ne[0] == 1 ? 0 : i0, h, 0, 0);
                        double * v = &st[i1*nc + i0];
                        *v = *v*exp(d*a) + ggml_ref_get(B, i0, g, t, q)*xd;
                        y += *v*ggml_ref_get(C, i0, g, t, q);
                    }
                    out[((q*nt + t)*nh + h)*nr + i1] = y;
                }
                const int64_t slot = nt - 1 - t;
                if (slot < K) {
                    for (int64_t i = 0; i < head; i++) {
                        out[nx + ((slot*ns + q)*nh + h)*head + i] = st[i];
                    }
                }
            }
            if (nt == 0) {
                for (int64_t i = 0; i < head; i++) {
                    out[nx + (q*nh + h)*head + i] = st[i];
                }
            }
        }
    }
    free(st);
    return true;
}

// WKV6, GLA, WKV7: the sources in the node's order, the state being the last one
static bool ref_rwkv(const struct ggml_tensor * node, int n_src, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * t0 = node->src[0], * state = node->src[n_src - 1];
    const int64_t S = t0->ne[0], H = t0->ne[1], T = t0->ne[2], n_seqs = state->ne[1], C = S*H;
    if (n_seqs < 1 || T % n_seqs != 0 || ggml_ref_nel(state) != S*S*H*n_seqs || node->ne[0] != C ||
        node->ne[1] != T + S*n_seqs) {
        return ggml_ref_fail(err, err_size, "%s: inconsistent shapes", ggml_op_name(node->op));
    }
    double * st = malloc((size_t) (S*S)*sizeof(double));
    if (st == NULL) {
        return ggml_ref_fail(err, err_size, "%s: out of memory", ggml_op_name(node->op));
    }
    const double scale = node->op == GGML_OP_GATED_LINEAR_ATTN ? ggml_ref_param_f32(node, 0) : 1.0;
    for (int64_t q = 0; q < n_seqs; q++) {
        for (int64_t h = 0; h < H; h++) {
            const int64_t base = q*S*S*H + h*S*S;
            for (int64_t i = 0; i < S*S; i++) {
                st[i] = ggml_ref_get_flat(state, base + i);
            }
            for (int64_t t = q*(T/n_seqs); t < (q + 1)*(T/n_seqs); t++) {
                double * o = out + t*C + h*S;
                switch (node->op) {
                    case GGML_OP_RWKV_WKV6: {
                        // k, v, r, tf, td
                        const struct ggml_tensor * k = node->src[0], * v = node->src[1], * r = node->src[2];
                        for (int64_t j = 0; j < S; j++) {
                            o[j] = 0.0;
                        }
                        for (int64_t i = 0; i < S; i++) {
                            const double ki = ggml_ref_get(k, i, h, t, 0), ri = ggml_ref_get(r, i, h, t, 0);
                            const double tf = ggml_ref_get_flat(node->src[3], h*S + i);
                            const double td = ggml_ref_get(node->src[4], i, h, t, 0);
                            for (int64_t j = 0; j < S; j++) {
                                const double kv = ki*ggml_ref_get(v, j, h, t, 0);
                                o[j] += ri*(tf*kv + st[i*S + j]);
                                st[i*S + j] = st[i*S + j]*td + kv;
                            }
                        }
                        break;
                    }
                    case GGML_OP_GATED_LINEAR_ATTN: {
                        // k, v, q, g
                        for (int64_t j = 0; j < S; j++) {
                            o[j] = 0.0;
                        }
                        for (int64_t i = 0; i < S; i++) {
                            const double ki = ggml_ref_get(node->src[0], i, h, t, 0);
                            const double qi = ggml_ref_get(node->src[2], i, h, t, 0);
                            const double gi = ggml_ref_get(node->src[3], i, h, t, 0);
                            for (int64_t j = 0; j < S; j++) {
                                st[i*S + j] = st[i*S + j]*gi + ki*ggml_ref_get(node->src[1], j, h, t, 0);
                                o[j] += scale*qi*st[i*S + j];
                            }
                        }
                        break;
                    }
                    default: {
                        // r, w, k, v, a, b
                        for (int64_t i = 0; i < S; i++) {
                            double sa = 0.0;
                            for (int64_t j = 0; j < S; j++) {
                                sa += ggml_ref_get(node->src[4], j, h, t, 0)*st[i*S + j];
                            }
                            const double vi = ggml_ref_get(node->src[3], i, h, t, 0);
                            double acc = 0.0;
                            for (int64_t j = 0; j < S; j++) {
                                double * e = &st[i*S + j];
                                *e = *e*ggml_ref_get(node->src[1], j, h, t, 0) + vi*ggml_ref_get(node->src[2], j, h, t, 0) +
                                     sa*ggml_ref_get(node->src[5], j, h, t, 0);
                                acc += *e*ggml_ref_get(node->src[0], j, h, t, 0);
                            }
                            o[i] = acc;
                        }
                        break;
                    }
                }
            }
            for (int64_t i = 0; i < S*S; i++) {
                out[T*C + base + i] = st[i];
            }
        }
    }
    free(st);
    return true;
}

static bool ref_solve_tri(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * a = node->src[0], * b = node->src[1];
    const int64_t n = a->ne[0], m = b->ne[0];
    if (a->ne[1] != n || b->ne[1] != n || b->ne[2] != a->ne[2] || b->ne[3] != a->ne[3] || !ggml_ref_same_shape(node, b)) {
        return ggml_ref_fail(err, err_size, "SOLVE_TRI: inconsistent shapes");
    }
    for (int64_t i3 = 0; i3 < node->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < node->ne[2]; i2++) {
            for (int64_t c = 0; c < m; c++) {
                for (int64_t r = 0; r < n; r++) {
                    double sum = ggml_ref_get(b, c, r, i2, i3);
                    for (int64_t t = 0; t < r; t++) {
                        sum -= ggml_ref_get(a, t, r, i2, i3)*out[ggml_ref_idx(node, c, t, i2, i3)];
                    }
                    out[ggml_ref_idx(node, c, r, i2, i3)] = sum / ggml_ref_get(a, r, r, i2, i3);
                }
            }
        }
    }
    return true;
}

static bool ref_gated_delta_net(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    const struct ggml_tensor * q = node->src[0], * k = node->src[1], * v = node->src[2];
    const struct ggml_tensor * g = node->src[3], * beta = node->src[4], * state = node->src[5];
    const int64_t K = ggml_ref_param_i32(node, 0);
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], ns = v->ne[3];
    if (K < 1 || q->ne[1] < 1 || H % q->ne[1] != 0 || q->ne[3] < 1 || ns % q->ne[3] != 0 || q->ne[0] != S ||
        !ggml_ref_same_shape(q, k) || (g->ne[0] != 1 && g->ne[0] != S) || node->ne[0] != S*H ||
        node->ne[1] != T*ns + K*S*ns) {
        return ggml_ref_fail(err, err_size, "GATED_DELTA_NET: inconsistent shapes");
    }
    if (K > 1 && K > T) {
        return ggml_ref_fail(err, err_size, "GATED_DELTA_NET: slots %lld .. %lld are not written (only %lld tokens)",
                (long long) T, (long long) K - 1, (long long) T);
    }
    double * m = malloc((size_t) (S*S)*sizeof(double)); // m[i*S + j] = S[i][j]
    if (m == NULL) {
        return ggml_ref_fail(err, err_size, "GATED_DELTA_NET: out of memory");
    }
    const int64_t n_out = S*H*T*ns;
    const double scale = 1.0 / sqrt((double) S);
    for (int64_t sq = 0; sq < ns; sq++) {
        for (int64_t h = 0; h < H; h++) {
            const int64_t hk = h % q->ne[1], sk = sq / (ns / q->ne[3]);
            for (int64_t i = 0; i < S; i++) {
                for (int64_t j = 0; j < S; j++) {
                    m[i*S + j] = ggml_ref_get(state, i, j, h, sq);
                }
            }
            for (int64_t t = 0; t < T; t++) {
                const double bt = ggml_ref_get(beta, 0, h, t, sq);
                for (int64_t i = 0; i < S; i++) {
                    const double decay = exp(ggml_ref_get(g, g->ne[0] == 1 ? 0 : i, h, t, sq));
                    for (int64_t j = 0; j < S; j++) {
                        m[i*S + j] *= decay;
                    }
                }
                for (int64_t j = 0; j < S; j++) {
                    double kv = 0.0;
                    for (int64_t i = 0; i < S; i++) {
                        kv += m[i*S + j]*ggml_ref_get(k, i, hk, t, sk);
                    }
                    const double delta = (ggml_ref_get(v, j, h, t, sq) - kv)*bt;
                    double o = 0.0;
                    for (int64_t i = 0; i < S; i++) {
                        m[i*S + j] += ggml_ref_get(k, i, hk, t, sk)*delta;
                        o += m[i*S + j]*ggml_ref_get(q, i, hk, t, sk);
                    }
                    out[((sq*T + t)*H + h)*S + j] = o*scale;
                }
                const int64_t slot = T - 1 - t;
                if (slot < K) {
                    double * dst = out + n_out + slot*S*S*H*ns + (sq*H + h)*S*S;
                    for (int64_t i = 0; i < S; i++) {
                        for (int64_t j = 0; j < S; j++) {
                            dst[j*S + i] = m[i*S + j];
                        }
                    }
                }
            }
            if (T == 0) {
                double * dst = out + n_out + (sq*H + h)*S*S;
                for (int64_t i = 0; i < S; i++) {
                    for (int64_t j = 0; j < S; j++) {
                        dst[j*S + i] = m[i*S + j];
                    }
                }
            }
        }
    }
    free(m);
    return true;
}

bool ggml_ref_op_seq(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    switch (node->op) {
        case GGML_OP_SSM_CONV:
            return ref_need(node, 2, err, err_size) && ref_ssm_conv(node, out, err, err_size);
        case GGML_OP_SSM_SCAN:
            return ref_need(node, 7, err, err_size) && ref_ssm_scan(node, out, err, err_size);
        case GGML_OP_RWKV_WKV6:
            return ref_need(node, 6, err, err_size) && ref_rwkv(node, 6, out, err, err_size);
        case GGML_OP_GATED_LINEAR_ATTN:
            return ref_need(node, 5, err, err_size) && ref_rwkv(node, 5, out, err, err_size);
        case GGML_OP_RWKV_WKV7:
            return ref_need(node, 7, err, err_size) && ref_rwkv(node, 7, out, err, err_size);
        case GGML_OP_SOLVE_TRI:
            return ref_need(node, 2, err, err_size) && ref_solve_tri(node, out, err, err_size);
        case GGML_OP_GATED_DELTA_NET:
            return ref_need(node, 6, err, err_size) && ref_gated_delta_net(node, out, err, err_size);
        default:
            return ggml_ref_fail(err, err_size, "op %s is not in the seq group", ggml_op_name(node->op));
    }
}
