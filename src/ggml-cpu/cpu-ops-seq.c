// CPU kernels of issue 22's "seq" group: SSM_CONV, SSM_SCAN, RWKV_WKV6, GATED_LINEAR_ATTN,
// RWKV_WKV7, SOLVE_TRI and GATED_DELTA_NET (semantics as tests/ref/ref-seq.c).
//
// The recurrences are sequential in time but independent per (sequence, head): the threads
// share out those pairs, and each walks its pairs' tokens in order, keeping the state in the
// result's state slot and updating it row by row with the vector helpers (ggml-cpu-vec.h).
// SSM_CONV splits channels, SOLVE_TRI (batch, block of columns) pairs.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"
#include "cpu-ops-fused.h"

#include <math.h>
#include <string.h>

// columns of the right-hand side one SOLVE_TRI work unit substitutes together
#define SEQ_SOLVE_COLS 64

static inline const float * seq_f32p(const struct ggml_tensor * t, size_t offset) {
    return (const float *) ((const char *) t->data + offset);
}

static inline float seq_f32_at(const struct ggml_tensor * t, size_t offset) {
    float v;
    memcpy(&v, (const char *) t->data + offset, sizeof(v));
    return v;
}

static bool seq_all_f32(const struct ggml_tensor * op, int n_src) {
    if (op->type != GGML_TYPE_F32 || !ggml_is_contiguous(op)) {
        return false;
    }
    for (int i = 0; i < n_src; i++) {
        if (op->src[i] == NULL || op->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

static bool seq_packed01(const struct ggml_tensor * t) {
    return t->nb[0] == sizeof(float) && t->nb[1] == (size_t) t->ne[0]*sizeof(float);
}

//
// shape checks: exactly what each kernel relies on
//

static bool ssm_conv_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 2)) {
        return false;
    }
    const struct ggml_tensor * sx = op->src[0], * c = op->src[1];
    return c->ne[0] >= 1 && c->ne[2] == 1 && c->ne[3] == 1 && sx->ne[3] == 1 && sx->ne[1] == c->ne[1] &&
           op->ne[0] == c->ne[1] && op->ne[1] == sx->ne[0] - c->ne[0] + 1 && op->ne[2] == sx->ne[2] && op->ne[3] == 1;
}

static bool ssm_scan_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 6) || op->src[6] == NULL || op->src[6]->type != GGML_TYPE_I32) {
        return false;
    }
    const struct ggml_tensor * s = op->src[0], * x = op->src[1], * dt = op->src[2], * A = op->src[3];
    const struct ggml_tensor * B = op->src[4], * C = op->src[5], * ids = op->src[6];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    const int64_t nc = s->ne[0], nr = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    return K >= 1 && ggml_is_contiguous(s) && ggml_is_contiguous(dt) && ggml_is_contiguous(A) && seq_packed01(x) &&
           seq_packed01(B) && seq_packed01(C) && ggml_is_contiguous(ids) &&
           s->ne[1] == nr && s->ne[2] == nh && s->ne[3] >= 1 &&
           dt->ne[0] == nh && dt->ne[1] == nt && dt->ne[2] == ns && dt->ne[3] == 1 &&
           A->ne[1] == nh && A->ne[2] == 1 && A->ne[3] == 1 && (A->ne[0] == 1 || (A->ne[0] == nc && K == 1)) &&
           ggml_are_same_shape(B, C) && B->ne[0] == nc && B->ne[1] >= 1 && nh % B->ne[1] == 0 && B->ne[2] == nt &&
           B->ne[3] == ns && ids->ne[0] == ns && ggml_nelements(ids) == ns &&
           ggml_nelements(op) == ggml_nelements(x) + K*nc*nr*nh*ns;
}

// WKV6 (n_tok = 5 token tensors counting tf's slot), GLA (4), WKV7 (6): the token tensors
// [S, H, T] contiguous, the state S*S*H*n_seqs contiguous, n_seqs dividing T
static bool rwkv_ok(const struct ggml_tensor * op, int n_src, int state_src) {
    if (!seq_all_f32(op, n_src)) {
        return false;
    }
    const struct ggml_tensor * t0 = op->src[0], * st = op->src[state_src];
    const int64_t S = t0->ne[0], H = t0->ne[1], T = t0->ne[2], n_seqs = st->ne[1];
    for (int i = 0; i < n_src; i++) {
        const struct ggml_tensor * t = op->src[i];
        if (!ggml_is_contiguous(t)) {
            return false;
        }
        if (i == state_src || (op->op == GGML_OP_RWKV_WKV6 && i == 3)) {
            continue;
        }
        if (t->ne[0] != S || t->ne[1] != H || t->ne[2] != T || t->ne[3] != 1) {
            return false;
        }
    }
    if (op->op == GGML_OP_RWKV_WKV6 && ggml_nelements(op->src[3]) != S*H) {
        return false;
    }
    return n_seqs >= 1 && T % n_seqs == 0 && ggml_nelements(st) == S*S*H*n_seqs && op->ne[0] == S*H &&
           op->ne[1] == T + S*n_seqs && op->ne[2] == 1 && op->ne[3] == 1;
}

static bool solve_tri_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 2)) {
        return false;
    }
    const struct ggml_tensor * a = op->src[0], * b = op->src[1];
    return a->ne[0] == a->ne[1] && b->ne[1] == a->ne[1] && b->ne[2] == a->ne[2] && b->ne[3] == a->ne[3] &&
           ggml_are_same_shape(op, b);
}

static bool gdn_ok(const struct ggml_tensor * op) {
    if (!seq_all_f32(op, 6)) {
        return false;
    }
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2];
    const struct ggml_tensor * g = op->src[3], * beta = op->src[4], * st = op->src[5];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], ns = v->ne[3];
    return K >= 1 && ggml_is_contiguous_rows(q) && ggml_is_contiguous_rows(k) && ggml_is_contiguous_rows(v) &&
           ggml_is_contiguous(g) && ggml_is_contiguous(beta) && ggml_is_contiguous(st) && ggml_are_same_shape(q, k) &&
           q->ne[0] == S && q->ne[1] >= 1 && H % q->ne[1] == 0 && q->ne[2] == T && q->ne[3] >= 1 && ns % q->ne[3] == 0 &&
           (g->ne[0] == 1 || g->ne[0] == S) && g->ne[1] == H && g->ne[2] == T && g->ne[3] == ns &&
           beta->ne[0] == 1 && beta->ne[1] == H && beta->ne[2] == T && beta->ne[3] == ns &&
           st->ne[0] == S && st->ne[1] == S && st->ne[2] == H && st->ne[3] == ns &&
           op->ne[0] == S*H && op->ne[1] == T*ns + K*S*ns && op->ne[2] == 1 && op->ne[3] == 1;
}

bool ggml_cpu_seq_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_SSM_CONV:          return ssm_conv_ok(op);
        case GGML_OP_SSM_SCAN:          return ssm_scan_ok(op);
        case GGML_OP_RWKV_WKV6:         return rwkv_ok(op, 6, 5);
        case GGML_OP_GATED_LINEAR_ATTN: return rwkv_ok(op, 5, 4);
        case GGML_OP_RWKV_WKV7:         return rwkv_ok(op, 7, 6);
        case GGML_OP_SOLVE_TRI:         return solve_tri_ok(op);
        case GGML_OP_GATED_DELTA_NET:   return gdn_ok(op);
        default:                        return false;
    }
}

// floats of per-thread scratch (each slice starts on its own cache line)
static int64_t seq_scratch_floats(const struct ggml_tensor * op) {
    int64_t n = 0;
    switch (op->op) {
        case GGML_OP_SSM_SCAN:
            n = op->src[0]->ne[0]; // the per-state decays of Mamba-1
            break;
        case GGML_OP_GATED_DELTA_NET: {
            const int64_t S = op->src[2]->ne[0];
            n = 3*S + (ggml_get_op_params_i32(op, 0) > 1 ? S*S : 0); // exp(g), e^g k, e^g q; the state
            break;
        }
        default:
            return 0;
    }
    const int64_t line = GGML_CPU_CACHE_LINE / (int64_t) sizeof(float);
    return (n + line - 1) / line * line;
}

size_t ggml_cpu_seq_work_size(const struct ggml_tensor * op, int n_threads) {
    return (size_t) seq_scratch_floats(op)*sizeof(float)*(size_t) n_threads;
}

// independent work units of the node
static int64_t seq_units(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_SSM_CONV:          return op->ne[0];
        case GGML_OP_SSM_SCAN:          return op->src[1]->ne[1]*op->src[1]->ne[3];
        case GGML_OP_RWKV_WKV6:
        case GGML_OP_GATED_LINEAR_ATTN: return op->src[0]->ne[1]*op->src[op->op == GGML_OP_RWKV_WKV6 ? 5 : 4]->ne[1];
        case GGML_OP_RWKV_WKV7:         return op->src[0]->ne[1]*op->src[6]->ne[1];
        case GGML_OP_SOLVE_TRI:
            return op->ne[2]*op->ne[3]*((op->ne[0] + SEQ_SOLVE_COLS - 1)/SEQ_SOLVE_COLS);
        case GGML_OP_GATED_DELTA_NET:   return op->src[2]->ne[1]*op->src[2]->ne[3];
        default:                        return 1;
    }
}

int ggml_cpu_seq_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const int64_t units = seq_units(op);
    return units < n_threads ? (int) (units < 1 ? 1 : units) : n_threads;
}

//
// SSM_CONV: out[r, t, s] = sum_i sx[t + i, r, s]*c[i, r]
//

static void ssm_conv_run(const struct ggml_tensor * op, int64_t r0, int64_t r1) {
    const struct ggml_tensor * sx = op->src[0], * c = op->src[1];
    const int64_t nc = c->ne[0];
    const bool packed = sx->nb[0] == sizeof(float) && c->nb[0] == sizeof(float);
    // channel by channel: each reads its row of sx once, front to back
    for (int64_t s = 0; s < op->ne[2]; s++) {
        for (int64_t r = r0; r < r1; r++) {
            const size_t xo = (size_t) r*sx->nb[1] + (size_t) s*sx->nb[2];
            const size_t co = (size_t) r*c->nb[1];
            char * out = (char *) op->data + (size_t) r*op->nb[0] + (size_t) s*op->nb[2];
            for (int64_t t = 0; t < op->ne[1]; t++) {
                float sum = 0.0f;
                if (packed) {
                    const float * xp = seq_f32p(sx, xo) + t, * cp = seq_f32p(c, co);
                    for (int64_t i = 0; i < nc; i++) {
                        sum += xp[i]*cp[i];
                    }
                } else {
                    for (int64_t i = 0; i < nc; i++) {
                        sum += seq_f32_at(sx, xo + (size_t) (t + i)*sx->nb[0])*seq_f32_at(c, co + (size_t) i*c->nb[0]);
                    }
                }
                memcpy(out + (size_t) t*op->nb[1], &sum, sizeof(sum));
            }
        }
    }
}

//
// SSM_SCAN
//

// log(1 + e^x); above 20 the family takes x itself (they differ by less than 2e-9)
static inline float seq_softplus(float x) {
    return x > 20.0f ? x : log1pf(expf(x));
}

// The row updates below are single fused loops (the compiler vectorizes them): out, the state
// row and the token's values never overlap. Heads are short (64..128): the sums keep 8 float
// partial sums, one per vector lane, rather than calling the general dot product, whose final
// reduction costs as much as a head's products.

#define SEQ_LANES 8

static inline float seq_lanes_sum(const float acc[SEQ_LANES]) {
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static inline float seq_dot(int64_t n, const float * restrict x, const float * restrict y) {
    float acc[SEQ_LANES] = { 0 };
    int64_t i = 0;
    for (; i + SEQ_LANES <= n; i += SEQ_LANES) {
        for (int l = 0; l < SEQ_LANES; l++) {
            acc[l] += x[i + l]*y[i + l];
        }
    }
    float tail = 0.0f;
    for (; i < n; i++) {
        tail += x[i]*y[i];
    }
    return seq_lanes_sum(acc) + tail;
}

// Mamba-2 row, in place: row = row*dA + b*xdt, returns row . c
static inline float scan_row(int64_t n, float * restrict row, float dA, const float * restrict b, float xdt,
        const float * restrict c) {
    float acc[SEQ_LANES] = { 0 };
    int64_t i = 0;
    for (; i + SEQ_LANES <= n; i += SEQ_LANES) {
        for (int l = 0; l < SEQ_LANES; l++) {
            const float v = row[i + l]*dA + b[i + l]*xdt;
            row[i + l] = v;
            acc[l] += v*c[i + l];
        }
    }
    float tail = 0.0f;
    for (; i < n; i++) {
        row[i] = row[i]*dA + b[i]*xdt;
        tail += row[i]*c[i];
    }
    return seq_lanes_sum(acc) + tail;
}

// One (sequence i3, head h) pair: every token in order. The state lives in the result's slot 0
// (read from s's row s_row before the first token); decay: nc floats of scratch (Mamba-1).
static void ssm_scan_unit(const struct ggml_vec_funcs * vf, const struct ggml_tensor * op, int64_t i3, int64_t h,
        int64_t s_row, float * decay) {
    const struct ggml_tensor * s = op->src[0], * x = op->src[1], * dt = op->src[2], * A = op->src[3];
    const struct ggml_tensor * B = op->src[4], * C = op->src[5];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    const int64_t nc = s->ne[0], nr = x->ne[0], nh = x->ne[1], nt = x->ne[2], ns = x->ne[3];
    const int64_t g = h / (nh / B->ne[1]); // heads share a group in runs of nh/ng
    const bool scalar_decay = A->ne[0] == 1; // Mamba-2: one decay per head
    const int64_t head_floats = nc*nr;

    float * y_base = (float *) op->data;
    float * states = y_base + nr*nh*nt*ns;
    float * st = states + (i3*nh + h)*head_floats;
    const float * st_in = seq_f32p(s, (size_t) s_row*s->nb[3] + (size_t) h*s->nb[2]);
    const float * a_h = seq_f32p(A, (size_t) h*A->nb[1]);
    memcpy(st, st_in, (size_t) head_floats*sizeof(float)); // then updated in place
    for (int64_t t = 0; t < nt; t++) {
        const float dsp = seq_softplus(seq_f32_at(dt, h*dt->nb[0] + t*dt->nb[1] + i3*dt->nb[2]));
        const float * xp = seq_f32p(x, t*x->nb[2] + i3*x->nb[3]) + h*nr;
        const float * bp = seq_f32p(B, t*B->nb[2] + i3*B->nb[3]) + g*nc;
        const float * cp = seq_f32p(C, t*C->nb[2] + i3*C->nb[3]) + g*nc;
        float * y = y_base + ((i3*nt + t)*nh + h)*nr;
        float dA = 0.0f;
        if (scalar_decay) {
            dA = expf(dsp*a_h[0]);
        } else {
            for (int64_t i = 0; i < nc; i++) {
                decay[i] = dsp*a_h[i];
            }
            vf->exp_f32(nc, decay, decay);
        }
        // state = prev*dA + B*(x*dt); y = state . C
        for (int64_t i1 = 0; i1 < nr; i1++) {
            float * row = st + i1*nc;
            const float xdt = xp[i1]*dsp;
            if (scalar_decay) {
                y[i1] = scan_row(nc, row, dA, bp, xdt, cp);
            } else {
                for (int64_t i = 0; i < nc; i++) {
                    row[i] = row[i]*decay[i] + bp[i]*xdt;
                }
                y[i1] = seq_dot(nc, row, cp);
            }
        }
        const int64_t slot = nt - 1 - t;
        if (K > 1 && slot > 0 && slot < K) {
            memcpy(states + ((slot*ns + i3)*nh + h)*head_floats, st, (size_t) head_floats*sizeof(float));
        }
    }
}

static enum ggml_status ssm_scan_forward(const struct ggml_compute_params * params, const struct ggml_vec_funcs * vf,
        const struct ggml_tensor * op, float * scratch) {
    const struct ggml_tensor * s = op->src[0], * ids = op->src[6];
    const int64_t nh = op->src[1]->ne[1], ns = op->src[1]->ne[3];
    const int32_t * rows = (const int32_t *) ids->data;
    for (int64_t i = 0; i < ns; i++) {
        if (rows[i] < 0 || rows[i] >= s->ne[3]) {
            if (params->ith == 0) {
                GGML_LOG_ERROR("%s: node '%s': ids[%lld] = %d is outside the %lld states of '%s'\n", __func__, op->name,
                        (long long) i, rows[i], (long long) s->ne[3], s->name);
            }
            return GGML_STATUS_FAILED;
        }
    }
    int64_t u0, u1;
    ggml_cpu_split_range(nh*ns, params->ith, params->nth, &u0, &u1);
    for (int64_t u = u0; u < u1; u++) {
        ssm_scan_unit(vf, op, u / nh, u % nh, rows[u / nh], scratch);
    }
    return GGML_STATUS_SUCCESS;
}

//
// RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7: per (sequence, head) an S x S state; tokens of sequence
// q are T/n_seqs consecutive ones. Outputs [S*H, T] first, then the states [S*S*H, n_seqs].
//

struct rwkv_unit {
    int64_t S, C, t0, t1; // head size, S*H, the tokens of the sequence
    float * state;        // S x S, in the result
    float * out;          // row of token t0, head h (next token: + C)
    size_t  tok;          // offset of (token t0, head h) in the token tensors, in floats
};

static struct rwkv_unit rwkv_unit_of(const struct ggml_tensor * op, int state_src, int64_t u) {
    const struct ggml_tensor * t0 = op->src[0], * st = op->src[state_src];
    const int64_t S = t0->ne[0], H = t0->ne[1], T = t0->ne[2], n_seqs = st->ne[1];
    const int64_t seq = u / H, h = u % H, per_seq = T / n_seqs;
    struct rwkv_unit w;
    w.S = S;
    w.C = S*H;
    w.t0 = seq*per_seq;
    w.t1 = w.t0 + per_seq;
    w.state = (float *) op->data + T*w.C + (seq*H + h)*S*S;
    w.out = (float *) op->data + w.t0*w.C + h*S;
    w.tok = (size_t) (w.t0*w.C + h*S);
    memcpy(w.state, seq_f32p(st, (size_t) ((seq*H + h)*S*S)*sizeof(float)), (size_t) (S*S)*sizeof(float));
    return w;
}

static void wkv6_row(int64_t n, float * restrict out, float * restrict row, const float * restrict v, float r, float d,
        float k) {
    for (int64_t j = 0; j < n; j++) {
        out[j] += r*row[j];
        row[j] = row[j]*d + k*v[j];
    }
}

static void gla_row(int64_t n, float * restrict out, float * restrict row, const float * restrict v, float g, float k,
        float q) {
    for (int64_t j = 0; j < n; j++) {
        row[j] = row[j]*g + k*v[j];
        out[j] += q*row[j];
    }
}

// returns the new row . r
static float wkv7_row(int64_t n, float * restrict row, const float * restrict w, const float * restrict k,
        const float * restrict b, const float * restrict r, float v, float sa) {
    float acc[SEQ_LANES] = { 0 };
    int64_t j = 0;
    for (; j + SEQ_LANES <= n; j += SEQ_LANES) {
        for (int l = 0; l < SEQ_LANES; l++) {
            const float e = row[j + l]*w[j + l] + v*k[j + l] + sa*b[j + l];
            row[j + l] = e;
            acc[l] += e*r[j + l];
        }
    }
    float tail = 0.0f;
    for (; j < n; j++) {
        row[j] = row[j]*w[j] + v*k[j] + sa*b[j];
        tail += row[j]*r[j];
    }
    return seq_lanes_sum(acc) + tail;
}

// row = row*gate + delta*k, gate per element (eg) or one value (eg == NULL)
static void gdn_row(int64_t n, float * restrict row, const float * restrict eg, float gate, const float * restrict k,
        float delta) {
    if (eg != NULL) {
        for (int64_t i = 0; i < n; i++) {
            row[i] = row[i]*eg[i] + delta*k[i];
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            row[i] = row[i]*gate + delta*k[i];
        }
    }
}

// state[i][j] = state[i][j]*td_i + k_i*v_j; out_j = sum_i r_i*(tf_i*k_i*v_j + old state[i][j])
static void wkv6_unit(const struct ggml_vec_funcs * vf, const struct ggml_tensor * op, int64_t u) {
    struct rwkv_unit w = rwkv_unit_of(op, 5, u);
    const float * k = seq_f32p(op->src[0], 0), * v = seq_f32p(op->src[1], 0), * r = seq_f32p(op->src[2], 0);
    const float * tf = seq_f32p(op->src[3], 0) + (w.tok % (size_t) w.C), * td = seq_f32p(op->src[4], 0);
    for (int64_t t = w.t0; t < w.t1; t++, w.out += w.C, w.tok += (size_t) w.C) {
        const float * kt = k + w.tok, * vt = v + w.tok, * rt = r + w.tok, * dt = td + w.tok;
        float bonus = 0.0f;
        for (int64_t i = 0; i < w.S; i++) {
            bonus += rt[i]*tf[i]*kt[i];
        }
        memset(w.out, 0, (size_t) w.S*sizeof(float));
        for (int64_t i = 0; i < w.S; i++) {
            wkv6_row(w.S, w.out, w.state + i*w.S, vt, rt[i], dt[i], kt[i]);
        }
        vf->mad_f32(w.S, w.out, vt, bonus);
    }
}

// state[i][j] = state[i][j]*g_i + k_i*v_j; out_j = scale*sum_i q_i*state[i][j]
static void gla_unit(const struct ggml_tensor * op, int64_t u) {
    struct rwkv_unit w = rwkv_unit_of(op, 4, u);
    const float scale = ggml_get_op_params_f32(op, 0);
    const float * k = seq_f32p(op->src[0], 0), * v = seq_f32p(op->src[1], 0);
    const float * q = seq_f32p(op->src[2], 0), * g = seq_f32p(op->src[3], 0);
    for (int64_t t = w.t0; t < w.t1; t++, w.out += w.C, w.tok += (size_t) w.C) {
        const float * kt = k + w.tok, * vt = v + w.tok, * qt = q + w.tok, * gt = g + w.tok;
        memset(w.out, 0, (size_t) w.S*sizeof(float));
        for (int64_t i = 0; i < w.S; i++) {
            gla_row(w.S, w.out, w.state + i*w.S, vt, gt[i], kt[i], qt[i]*scale);
        }
    }
}

// row i (value index) of the state, over j (key index):
// state[i][j] = state[i][j]*w_j + v_i*k_j + (sum_j' a_j'*state[i][j'])*b_j; out_i = sum_j state[i][j]*r_j
static void wkv7_unit(const struct ggml_tensor * op, int64_t u) {
    struct rwkv_unit w = rwkv_unit_of(op, 6, u);
    const float * r = seq_f32p(op->src[0], 0), * wd = seq_f32p(op->src[1], 0), * k = seq_f32p(op->src[2], 0);
    const float * v = seq_f32p(op->src[3], 0), * a = seq_f32p(op->src[4], 0), * b = seq_f32p(op->src[5], 0);
    for (int64_t t = w.t0; t < w.t1; t++, w.out += w.C, w.tok += (size_t) w.C) {
        const float * rt = r + w.tok, * wt = wd + w.tok, * kt = k + w.tok;
        const float * vt = v + w.tok, * at = a + w.tok, * bt = b + w.tok;
        for (int64_t i = 0; i < w.S; i++) {
            float * row = w.state + i*w.S;
            w.out[i] = wkv7_row(w.S, row, wt, kt, bt, rt, vt[i], seq_dot(w.S, at, row));
        }
    }
}

//
// SOLVE_TRI: forward substitution, a block of columns of X at a time:
// X[r, :] = (B[r, :] - sum_{t<r} A[r, t]*X[t, :]) / A[r, r]
//

static void solve_tri_unit(const struct ggml_vec_funcs * vf, const struct ggml_tensor * op, int64_t u) {
    const struct ggml_tensor * a = op->src[0], * b = op->src[1];
    const int64_t n = a->ne[0], m = op->ne[0];
    const int64_t n_blocks = (m + SEQ_SOLVE_COLS - 1)/SEQ_SOLVE_COLS;
    const int64_t batch = u / n_blocks, c0 = (u % n_blocks)*SEQ_SOLVE_COLS;
    const int64_t w = m - c0 < SEQ_SOLVE_COLS ? m - c0 : SEQ_SOLVE_COLS;
    const int64_t i2 = batch % op->ne[2], i3 = batch / op->ne[2];
    const size_t a_off = (size_t) i2*a->nb[2] + (size_t) i3*a->nb[3];
    const size_t b_off = (size_t) i2*b->nb[2] + (size_t) i3*b->nb[3] + (size_t) c0*b->nb[0];
    char * x_base = (char *) op->data + (size_t) i2*op->nb[2] + (size_t) i3*op->nb[3] + (size_t) c0*sizeof(float);
    for (int64_t r = 0; r < n; r++) {
        float * xr = (float *) (x_base + (size_t) r*op->nb[1]);
        for (int64_t c = 0; c < w; c++) {
            xr[c] = seq_f32_at(b, b_off + (size_t) r*b->nb[1] + (size_t) c*b->nb[0]);
        }
        const size_t a_row = a_off + (size_t) r*a->nb[1];
        for (int64_t t = 0; t < r; t++) {
            const float art = seq_f32_at(a, a_row + (size_t) t*a->nb[0]);
            if (art != 0.0f) {
                vf->mad_f32(w, xr, (const float *) (x_base + (size_t) t*op->nb[1]), -art);
            }
        }
        const float diag = seq_f32_at(a, a_row + (size_t) r*a->nb[0]);
        for (int64_t c = 0; c < w; c++) {
            xr[c] /= diag;
        }
    }
}

//
// GATED_DELTA_NET: per (sequence, head) the state M[j][i] = S[i][j] (row j contiguous over the key
// index i). Per token: M[j] *= exp(g); delta_j = (v_j - M[j].k)*beta; M[j] += delta_j*k;
// out_j = M[j].q/sqrt(S). Computed in three passes over a row: the gated products come from the
// old row (M[j].(e^g k), M[j].(e^g q)), out_j = M[j].(e^g q) + delta_j*(k.q), then the update.
//

static void gdn_unit(const struct ggml_vec_funcs * vf, const struct ggml_tensor * op, int64_t u, float * scratch) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2];
    const struct ggml_tensor * g = op->src[3], * beta = op->src[4], * st = op->src[5];
    const int64_t K = ggml_get_op_params_i32(op, 0);
    const int64_t S = v->ne[0], H = v->ne[1], T = v->ne[2], ns = v->ne[3];
    const int64_t h = u % H, seq = u / H;
    const int64_t hq = h % q->ne[1], sq = seq / (ns / q->ne[3]); // q, k heads tiled, sequences grouped
    const bool per_key_gate = g->ne[0] == S;
    const float scale = 1.0f / sqrtf((float) S);

    float * out_base = (float *) op->data;
    float * state_base = out_base + S*H*T*ns;
    const int64_t snap_floats = S*S*H*ns;
    float * eg = scratch, * ek = scratch + S, * eq = scratch + 2*S;
    float * m = K > 1 ? scratch + 3*S : state_base + (seq*H + h)*S*S;
    memcpy(m, seq_f32p(st, (size_t) seq*st->nb[3] + (size_t) h*st->nb[2]), (size_t) (S*S)*sizeof(float));

    for (int64_t t = 0; t < T; t++) {
        const float * qt = seq_f32p(q, (size_t) sq*q->nb[3] + (size_t) t*q->nb[2] + (size_t) hq*q->nb[1]);
        const float * kt = seq_f32p(k, (size_t) sq*k->nb[3] + (size_t) t*k->nb[2] + (size_t) hq*k->nb[1]);
        const float * vt = seq_f32p(v, (size_t) seq*v->nb[3] + (size_t) t*v->nb[2] + (size_t) h*v->nb[1]);
        const float * gt = seq_f32p(g, (size_t) seq*g->nb[3] + (size_t) t*g->nb[2] + (size_t) h*g->nb[1]);
        const float bt = seq_f32_at(beta, (size_t) seq*beta->nb[3] + (size_t) t*beta->nb[2] + (size_t) h*beta->nb[1]);
        float * out = out_base + ((seq*T + t)*H + h)*S;
        float decay = 1.0f;
        const float * gk = kt, * gq = qt;
        if (per_key_gate) {
            vf->exp_f32(S, eg, gt);
            vf->mul_f32(S, ek, eg, kt);
            vf->mul_f32(S, eq, eg, qt);
            gk = ek;
            gq = eq;
        } else {
            decay = expf(gt[0]);
        }
        const float kq = vf->dot_f32(S, kt, qt);
        for (int64_t j = 0; j < S; j++) {
            float * row = m + j*S;
            const float dk = seq_dot(S, row, gk)*decay;
            const float dq = seq_dot(S, row, gq)*decay;
            const float delta = (vt[j] - dk)*bt;
            gdn_row(S, row, per_key_gate ? eg : NULL, decay, kt, delta);
            out[j] = (dq + delta*kq)*scale;
        }
        const int64_t slot = T - 1 - t;
        if (K > 1 && slot < K) {
            memcpy(state_base + slot*snap_floats + (seq*H + h)*S*S, m, (size_t) (S*S)*sizeof(float));
        }
    }
    if (K > 1 && T == 0) {
        memcpy(state_base + (seq*H + h)*S*S, m, (size_t) (S*S)*sizeof(float));
    }
}

//
// entry point
//

enum ggml_status ggml_cpu_seq_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (!ggml_cpu_seq_supports(op)) {
        if (params->ith == 0) {
            ggml_cpu_log_unsupported(__func__, -1, op);
        }
        return GGML_STATUS_FAILED;
    }
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    const int64_t per_thread = seq_scratch_floats(op);
    if (per_thread > 0 && (params->wdata == NULL || params->wsize < (size_t) (per_thread*params->nth)*sizeof(float))) {
        if (params->ith == 0) {
            GGML_LOG_ERROR("%s: node '%s': work buffer too small\n", __func__, op->name);
        }
        return GGML_STATUS_FAILED;
    }
    float * scratch = per_thread > 0 ? (float *) params->wdata + params->ith*per_thread : NULL;
    if (op->op == GGML_OP_SSM_SCAN) {
        return ssm_scan_forward(params, vf, op, scratch);
    }
    int64_t u0, u1;
    ggml_cpu_split_range(seq_units(op), params->ith, params->nth, &u0, &u1);
    if (op->op == GGML_OP_SSM_CONV) {
        if (ggml_cpu_ssm_conv_tiled_applies(op)) {
            ggml_cpu_ssm_conv_tiled(vf, op, params->ith, params->nth); // cpu-ops-ssm-conv.c
            return GGML_STATUS_SUCCESS;
        }
        ssm_conv_run(op, u0, u1);
        return GGML_STATUS_SUCCESS;
    }
    for (int64_t u = u0; u < u1; u++) {
        switch (op->op) {
            case GGML_OP_RWKV_WKV6:         wkv6_unit(vf, op, u);           break;
            case GGML_OP_GATED_LINEAR_ATTN: gla_unit(op, u);                break;
            case GGML_OP_RWKV_WKV7:         wkv7_unit(op, u);               break;
            case GGML_OP_SOLVE_TRI:         solve_tri_unit(vf, op, u);      break;
            case GGML_OP_GATED_DELTA_NET:   gdn_unit(vf, op, u, scratch);   break;
            default:                        return GGML_STATUS_FAILED;
        }
    }
    return GGML_STATUS_SUCCESS;
}
