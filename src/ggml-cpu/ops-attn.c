// CPU kernel of the attn family: FLASH_ATTN_EXT. Semantics as docs/op-params.md and
// tests/ref/ref-attn.c:
//   q [DK, N, H, B] F32; k [DK, KV, Hk, Bk], v [DV, KV, Hv, Bv] F32, F16 or BF16 (heads and dim 3
//   broadcast: H % Hk == 0 ...); mask [KV, >= N, m2, m3] F16/F32 or NULL; sinks F32 [H] or NULL;
//   result F32 [DV, H, N, B] (permuted).
//   s_j = softcap*tanh(scale*q.k_j/softcap) (scale*q.k_j without softcap) + slope(h)*mask_j
//   out = sum_j e^{s_j} v_j / (sum_j e^{s_j} + e^{sink_h}), 0 when every s_j is -inf (no sink).
//
// One query row (i1, h, i3) at a time, keys in blocks of FA_BLOCK: the block's scores (q.k by SIMD
// dot products, K widened on the fly; keys whose mask is -inf are skipped without a dot product),
// then the running maximum is raised once per block (rescaling the accumulator and the running
// sum), the block's weights are exponentiated together and the V rows accumulated by SIMD axpy.
// Rows are handed out to threads in chunks, query rows of one head next to each other so that
// consecutive rows reuse the same K/V rows from cache.

#include "ops-nn-simd.h"

#include <math.h>
#include <string.h>

#define FA_BLOCK 64

static bool fa_kv_type_ok(const struct ggml_tensor * t) {
    return t != NULL && ggml_vec_is_float_type(t->type) && t->nb[0] == ggml_type_size(t->type);
}

static bool fa_divides(int64_t d, int64_t n) {
    return d > 0 && n % d == 0;
}

bool ggml_cpu_attn_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * q     = op->src[0];
    const struct ggml_tensor * k     = op->src[1];
    const struct ggml_tensor * v     = op->src[2];
    const struct ggml_tensor * mask  = op->src[3];
    const struct ggml_tensor * sinks = op->src[4];
    if (op->op != GGML_OP_FLASH_ATTN_EXT || q == NULL || q->type != GGML_TYPE_F32 || !fa_kv_type_ok(k) || !fa_kv_type_ok(v)) {
        return false;
    }
    if (op->type != GGML_TYPE_F32 || op->nb[0] != sizeof(float)) {
        return false;
    }
    const int64_t H = q->ne[2], B = q->ne[3], KV = k->ne[1];
    if (k->ne[0] != q->ne[0] || v->ne[1] != KV || !fa_divides(k->ne[2], H) || !fa_divides(v->ne[2], H) ||
        !fa_divides(k->ne[3], B) || !fa_divides(v->ne[3], B)) {
        return false;
    }
    if (op->ne[0] != v->ne[0] || op->ne[1] != H || op->ne[2] != q->ne[1] || op->ne[3] != B) {
        return false;
    }
    if (mask != NULL) {
        if ((mask->type != GGML_TYPE_F16 && mask->type != GGML_TYPE_F32) || mask->nb[0] != ggml_type_size(mask->type)) {
            return false;
        }
        if (mask->ne[0] != KV || mask->ne[1] < q->ne[1] || !fa_divides(mask->ne[2], H) || !fa_divides(mask->ne[3], B)) {
            return false;
        }
    }
    if (sinks != NULL && (sinks->type != GGML_TYPE_F32 || !ggml_is_contiguous(sinks) || ggml_nelements(sinks) < H)) {
        return false;
    }
    return true;
}

// per-thread scratch: q row [DK], accumulator [DV], scores [FA_BLOCK], mask values [FA_BLOCK]
static size_t fa_thread_bytes(int64_t dk, int64_t dv) {
    return GGML_PAD((size_t) dk*sizeof(float), GGML_CPU_CACHE_LINE) + GGML_PAD((size_t) dv*sizeof(float), GGML_CPU_CACHE_LINE) +
           2*GGML_PAD(FA_BLOCK*sizeof(float), GGML_CPU_CACHE_LINE);
}

size_t ggml_cpu_attn_work_size(const struct ggml_tensor * op, int n_threads) {
    return fa_thread_bytes(op->src[0]->ne[0], op->src[2]->ne[0])*(size_t) n_threads;
}

int ggml_cpu_attn_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const int64_t rows = op->ne[1]*op->ne[2]*op->ne[3];
    return rows < 1 ? 1 : (rows < n_threads ? (int) rows : n_threads);
}

struct fa_ctx {
    const struct ggml_tensor * q, * k, * v, * mask, * sinks;
    struct ggml_tensor * dst;
    nn_vf vf;
    float scale, max_bias, softcap;
    float * qbuf, * acc, * s, * mbuf;
};

static void fa_row(const struct fa_ctx * c, int64_t i1, int64_t h, int64_t i3) {
    const struct ggml_tensor * q = c->q, * k = c->k, * v = c->v, * mask = c->mask;
    const nn_vf   vf  = c->vf;
    const int64_t DK = q->ne[0], DV = v->ne[0], KV = k->ne[1];
    const int64_t H  = q->ne[2], B = q->ne[3];

    ggml_vec_load_f32(vf, GGML_TYPE_F32, (const char *) q->data + i1*q->nb[1] + h*q->nb[2] + i3*q->nb[3], q->nb[0], DK, c->qbuf);

    const char * kbase = (const char *) k->data + (h / (H / k->ne[2]))*k->nb[2] + (i3 / (B / k->ne[3]))*k->nb[3];
    const char * vbase = (const char *) v->data + (h / (H / v->ne[2]))*v->nb[2] + (i3 / (B / v->ne[3]))*v->nb[3];
    const char * mrow  = NULL;
    float slope = 1.0f;
    if (mask != NULL) {
        mrow  = (const char *) mask->data + i1*mask->nb[1] + (h % mask->ne[2])*mask->nb[2] + (i3 % mask->ne[3])*mask->nb[3];
        slope = nn_alibi_slope(c->max_bias, H, h);
    }

    float * acc = c->acc;
    float * s   = c->s;
    memset(acc, 0, (size_t) DV*sizeof(float));
    float M = -INFINITY; // running maximum
    float S = 0.0f;      // running sum of e^{s_j - M}

    for (int64_t j0 = 0; j0 < KV; j0 += FA_BLOCK) {
        const int64_t nb = KV - j0 < FA_BLOCK ? KV - j0 : FA_BLOCK;
        if (mrow != NULL) {
            const size_t es = ggml_type_size(mask->type);
            ggml_vec_load_f32(vf, mask->type, mrow + j0*es, es, nb, c->mbuf);
        }
        float bmax = -INFINITY;
        for (int64_t jj = 0; jj < nb; jj++) {
            const float mv = mrow != NULL ? slope*c->mbuf[jj] : 0.0f;
            if (mv == -INFINITY) {
                s[jj] = -INFINITY;
                continue;
            }
            float x = nn_dot(vf, DK, c->qbuf, kbase + (j0 + jj)*k->nb[1], k->type)*c->scale;
            if (c->softcap != 0.0f) {
                x = c->softcap*tanhf(x/c->softcap);
            }
            x += mv;
            s[jj] = x;
            bmax = x > bmax ? x : bmax;
        }
        if (bmax == -INFINITY) {
            continue; // the whole block is masked
        }
        if (bmax > M) {
            if (M != -INFINITY) {
                const float r = expf(M - bmax);
                vf->scale_f32(DV, acc, acc, r, 0.0f);
                S *= r;
            }
            M = bmax;
        }
        S += (float) vf->soft_max_f32(nb, s, s, M);
        for (int64_t jj = 0; jj < nb; jj++) {
            if (s[jj] != 0.0f) {
                nn_axpy(vf, DV, s[jj], vbase + (j0 + jj)*v->nb[1], v->type, acc);
            }
        }
    }

    if (c->sinks != NULL) {
        const float sink = ((const float *) c->sinks->data)[h];
        if (sink > -INFINITY) {
            if (sink > M) {
                const float r = M == -INFINITY ? 0.0f : expf(M - sink);
                vf->scale_f32(DV, acc, acc, r, 0.0f);
                S *= r;
                M = sink;
            }
            S += expf(sink - M);
        }
    }

    float * out = (float *) ((char *) c->dst->data + h*c->dst->nb[1] + i1*c->dst->nb[2] + i3*c->dst->nb[3]);
    if (S > 0.0f) {
        vf->scale_f32(DV, out, acc, 1.0f/S, 0.0f);
    } else {
        memset(out, 0, (size_t) DV*sizeof(float)); // nothing to attend to
    }
}

enum ggml_status ggml_cpu_attn_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    struct fa_ctx c;
    c.q     = op->src[0];
    c.k     = op->src[1];
    c.v     = op->src[2];
    c.mask  = op->src[3];
    c.sinks = op->src[4];
    c.dst   = op;
    c.vf    = ggml_vec_get(params->use_ref);
    c.scale    = ggml_get_op_params_f32(op, 0);
    c.max_bias = ggml_get_op_params_f32(op, 1);
    c.softcap  = ggml_get_op_params_f32(op, 2);

    const int64_t DK = c.q->ne[0], DV = c.v->ne[0];
    char * w = (char *) params->wdata + (size_t) params->ith*fa_thread_bytes(DK, DV);
    c.qbuf = (float *) w; w += GGML_PAD((size_t) DK*sizeof(float), GGML_CPU_CACHE_LINE);
    c.acc  = (float *) w; w += GGML_PAD((size_t) DV*sizeof(float), GGML_CPU_CACHE_LINE);
    c.s    = (float *) w; w += GGML_PAD(FA_BLOCK*sizeof(float), GGML_CPU_CACHE_LINE);
    c.mbuf = (float *) w;

    // rows r = i1 + N*(h + H*i3), handed out in chunks
    const int64_t N = c.q->ne[1], H = c.q->ne[2];
    const int64_t rows = N*H*c.q->ne[3];
    int64_t chunk = rows / ((int64_t) params->nth*4);
    chunk = chunk < 1 ? 1 : chunk;
    if (rows / chunk >= INT32_MAX) {
        chunk = rows / (INT32_MAX/2) + 1; // chunk numbers are ints
    }
    const int64_t n_chunks = (rows + chunk - 1) / chunk;
    for (int64_t ch = ggml_cpu_chunk_next(params->threadpool); ch < n_chunks; ch = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t r1 = (ch + 1)*chunk < rows ? (ch + 1)*chunk : rows;
        for (int64_t r = ch*chunk; r < r1; r++) {
            fa_row(&c, r % N, (r / N) % H, r / (N*H));
        }
    }
    return GGML_STATUS_SUCCESS;
}
