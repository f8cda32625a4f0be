// FLASH_ATTN_EXT for prompts: the semantics of cpu-ops-attn.c, computed in blocks.
//
// Work unit: the G heads of one GQA group (they read the same K and V rows) at P consecutive
// query positions, R = G*P query rows (about FAP_ROWS). Keys are taken in blocks of FAP_KEYS:
//   1. the block's mask values of every row (times the ALiBi slope); a block that every row masks
//      with -inf is skipped whole (the causal upper triangle of a prompt);
//   2. scores S[R][keys] = Q . K^T through the float GEMM (ggml_mm_gemm_block: K rows packed and
//      widened once per block for all R rows, register tiles of the level's kernel set);
//   3. per row: scale, softcap, + mask, the running maximum raised once per block (rescaling the
//      row's accumulator and running sum), the block's weights exponentiated together;
//   4. T[R][DV] = P . V through the same GEMM (V read along its rows), added to the accumulators.
// One-token graphs and short batches keep the row-unit path of cpu-ops-attn.c, which reads every
// K and V row once per 4 query rows without packing.

#include "cpu-ops-attn-prompt.h"
#include "cpu-ops-nn.h"
#include "cpu-kernels.h"
#include "matmul-impl.h"

#include <math.h>
#include <string.h>

#define FAP_ROWS  48 // query rows per unit (heads of a group x positions), about
#define FAP_KEYS  64 // keys per block
#define FAP_MIN_N 16 // fewer query positions: the row-unit path

// heads that share K and V rows: the GQA group when K and V group the heads alike, else one
static int64_t fap_group(const struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2];
    const int64_t G = k->ne[2] == v->ne[2] && k->ne[3] == v->ne[3] ? q->ne[2] / k->ne[2] : 1;
    return G > 0 ? G : 1;
}

// query positions per unit
static int64_t fap_positions(const struct ggml_tensor * op) {
    const int64_t P = FAP_ROWS / fap_group(op);
    return P < 4 ? 4 : P;
}

bool ggml_cpu_attn_prompt_applies(const struct ggml_tensor * op) {
    if (!ggml_cpu_attn_supports(op)) {
        return false;
    }
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2];
    return q->ne[1] >= FAP_MIN_N && v->ne[0] <= GGML_MM_NC && ggml_mm_type_size(k->type) != 0 &&
           ggml_mm_type_size(v->type) != 0 && ggml_mm_type_size(q->type) != 0;
}

static size_t fap_pad(size_t n) {
    return GGML_PAD(n, GGML_CPU_CACHE_LINE);
}

// per-thread scratch: Q rows [R][DK], scores and mask values [R][FAP_KEYS] each, accumulators
// and the block's P.V [R][DV] each, running maxima and sums [R] each, the GEMM's packing buffers
static size_t fap_thread_bytes(const struct ggml_tensor * op) {
    const size_t R = (size_t) (fap_group(op)*fap_positions(op));
    const size_t DK = (size_t) op->src[0]->ne[0], DV = (size_t) op->src[2]->ne[0];
    return fap_pad(R*DK*sizeof(float)) + 2*fap_pad(R*FAP_KEYS*sizeof(float)) + 2*fap_pad(R*DV*sizeof(float)) +
           2*fap_pad(R*sizeof(float)) + fap_pad(GGML_MM_GEMM_SCRATCH*sizeof(float));
}

size_t ggml_cpu_attn_prompt_work_size(const struct ggml_tensor * op, int n_threads) {
    return ggml_cpu_attn_prompt_applies(op) ? fap_thread_bytes(op)*(size_t) n_threads : 0;
}

struct fap_ctx {
    const struct ggml_tensor * q, * k, * v, * mask, * sinks;
    struct ggml_tensor * dst;
    nn_vf vf;
    const struct ggml_mm_kernels * mm;
    float scale, max_bias, softcap;
    float * qs, * s, * mk, * o, * t, * M, * S, * scratch;
};

// the G heads h0 .. h0+G-1 at positions p0 .. p0+np-1 of dim-3 index i3; row r = head*np + position
static void fap_unit(const struct fap_ctx * c, int64_t G, int64_t h0, int64_t p0, int64_t np, int64_t i3) {
    const struct ggml_tensor * q = c->q, * k = c->k, * v = c->v, * mask = c->mask;
    const nn_vf   vf = c->vf;
    const int64_t DK = q->ne[0], DV = v->ne[0], KV = k->ne[1];
    const int64_t H  = q->ne[2], B = q->ne[3];
    const int64_t R  = G*np;

    const char * kbase = (const char *) k->data + (h0 / (H / k->ne[2]))*k->nb[2] + (i3 / (B / k->ne[3]))*k->nb[3];
    const char * vbase = (const char *) v->data + (h0 / (H / v->ne[2]))*v->nb[2] + (i3 / (B / v->ne[3]))*v->nb[3];
    for (int64_t r = 0; r < R; r++) {
        const int64_t h = h0 + r / np, pos = p0 + r % np;
        ggml_vec_load_f32(vf, q->type, (const char *) q->data + pos*q->nb[1] + h*q->nb[2] + i3*q->nb[3], q->nb[0], DK,
                c->qs + r*DK);
        memset(c->o + r*DV, 0, (size_t) DV*sizeof(float));
        c->M[r] = -INFINITY; // running maximum
        c->S[r] = 0.0f;      // running sum of e^{s_j - M}
    }
    const struct ggml_mm_src qsrc = { (const char *) c->qs, GGML_TYPE_F32, DK*(int64_t) sizeof(float), sizeof(float) };
    const struct ggml_mm_src ssrc = { (const char *) c->s, GGML_TYPE_F32, FAP_KEYS*(int64_t) sizeof(float), sizeof(float) };
    const size_t mes = mask != NULL ? ggml_type_size(mask->type) : 0;

    for (int64_t j0 = 0; j0 < KV; j0 += FAP_KEYS) {
        const int64_t nk = KV - j0 < FAP_KEYS ? KV - j0 : FAP_KEYS;
        // 1. mask values times the slope; skip the block when every one is -inf
        bool live = mask == NULL;
        if (mask != NULL) {
            for (int64_t r = 0; r < R; r++) {
                const int64_t h = h0 + r / np, pos = p0 + r % np;
                float * mb = c->mk + r*FAP_KEYS;
                const char * mrow = (const char *) mask->data + pos*mask->nb[1] + (h % mask->ne[2])*mask->nb[2] +
                                    (i3 % mask->ne[3])*mask->nb[3];
                ggml_vec_load_f32(vf, mask->type, mrow + j0*mes, mes, nk, mb);
                const float slope = nn_alibi_slope(c->max_bias, H, h);
                if (slope != 1.0f) {
                    vf->scale_f32(nk, mb, mb, slope, 0.0f);
                }
                live = live || vf->max_f32(nk, mb) != -INFINITY;
            }
        }
        if (!live) {
            continue;
        }
        // 2. scores
        const struct ggml_mm_src ksrc = { kbase, k->type, (int64_t) k->nb[1], (int64_t) k->nb[0] };
        ggml_mm_gemm_block(c->mm, &ksrc, &qsrc, 0, R, j0, nk, DK, c->s, FAP_KEYS, c->scratch);
        // 3. running maxima and weights
        for (int64_t r = 0; r < R; r++) {
            float * sr = c->s + r*FAP_KEYS;
            vf->scale_f32(nk, sr, sr, c->scale, 0.0f);
            if (c->softcap != 0.0f) {
                vf->scale_f32(nk, sr, sr, 1.0f/c->softcap, 0.0f);
                vf->tanh_f32(nk, sr, sr);
                vf->scale_f32(nk, sr, sr, c->softcap, 0.0f);
            }
            if (mask != NULL) {
                vf->add_f32(nk, sr, sr, c->mk + r*FAP_KEYS); // -inf where masked
            }
            const float bmax = vf->max_f32(nk, sr);
            if (bmax == -INFINITY) {
                memset(sr, 0, (size_t) nk*sizeof(float)); // the whole block is masked for this row
                continue;
            }
            if (bmax > c->M[r]) {
                if (c->M[r] != -INFINITY) {
                    const float f = expf(c->M[r] - bmax);
                    vf->scale_f32(DV, c->o + r*DV, c->o + r*DV, f, 0.0f);
                    c->S[r] *= f;
                }
                c->M[r] = bmax;
            }
            c->S[r] += (float) vf->soft_max_f32(nk, sr, sr, c->M[r]);
        }
        // 4. values: T = P . V (V element (n = dv index, k = key))
        const struct ggml_mm_src vsrc = { vbase + j0*v->nb[1], v->type, (int64_t) v->nb[0], (int64_t) v->nb[1] };
        ggml_mm_gemm_block(c->mm, &vsrc, &ssrc, 0, R, 0, DV, nk, c->t, DV, c->scratch);
        vf->add_f32(R*DV, c->o, c->o, c->t);
    }

    for (int64_t r = 0; r < R; r++) {
        const int64_t h = h0 + r / np, pos = p0 + r % np;
        float * acc = c->o + r*DV;
        float M = c->M[r], S = c->S[r];
        if (c->sinks != NULL) {
            const float sink = ((const float *) c->sinks->data)[h];
            if (sink > -INFINITY) {
                if (sink > M) {
                    const float f = M == -INFINITY ? 0.0f : expf(M - sink);
                    vf->scale_f32(DV, acc, acc, f, 0.0f);
                    S *= f;
                    M = sink;
                }
                S += expf(sink - M);
            }
        }
        float * out = (float *) ((char *) c->dst->data + h*c->dst->nb[1] + pos*c->dst->nb[2] + i3*c->dst->nb[3]);
        if (S > 0.0f) {
            vf->scale_f32(DV, out, acc, 1.0f/S, 0.0f);
        } else {
            memset(out, 0, (size_t) DV*sizeof(float)); // nothing to attend to
        }
    }
}

enum ggml_status ggml_cpu_attn_prompt_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    struct fap_ctx c;
    c.q     = op->src[0];
    c.k     = op->src[1];
    c.v     = op->src[2];
    c.mask  = op->src[3];
    c.sinks = op->src[4];
    c.dst   = op;
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    c.vf    = kt->vec;
    c.mm    = kt->mm;
    c.scale    = ggml_get_op_params_f32(op, 0);
    c.max_bias = ggml_get_op_params_f32(op, 1);
    c.softcap  = ggml_get_op_params_f32(op, 2);

    const int64_t G = fap_group(op), P = fap_positions(op), R = G*P;
    const int64_t DK = c.q->ne[0], DV = c.v->ne[0];
    const size_t per_thread = fap_thread_bytes(op);
    if (params->wdata == NULL || params->wsize < per_thread*(size_t) params->nth) {
        if (params->ith == 0) {
            GGML_LOG_ERROR("%s: %s: work buffer too small\n", __func__, op->name);
        }
        return GGML_STATUS_FAILED;
    }
    char * w = (char *) params->wdata + (size_t) params->ith*per_thread;
    c.qs = (float *) w; w += fap_pad((size_t) (R*DK)*sizeof(float));
    c.s  = (float *) w; w += fap_pad((size_t) (R*FAP_KEYS)*sizeof(float));
    c.mk = (float *) w; w += fap_pad((size_t) (R*FAP_KEYS)*sizeof(float));
    c.o  = (float *) w; w += fap_pad((size_t) (R*DV)*sizeof(float));
    c.t  = (float *) w; w += fap_pad((size_t) (R*DV)*sizeof(float));
    c.M  = (float *) w; w += fap_pad((size_t) R*sizeof(float));
    c.S  = (float *) w; w += fap_pad((size_t) R*sizeof(float));
    c.scratch = (float *) w;

    // unit u: position block nblk-1 - u % nblk (the longest first under a causal mask) of head group (u / nblk) % n_hgroups at i3 = u / (nblk*n_hgroups)
    const int64_t N = c.q->ne[1], n_hgroups = c.q->ne[2] / G, nblk = (N + P - 1) / P;
    const int64_t units = nblk*n_hgroups*c.q->ne[3];
    for (int64_t u = ggml_cpu_chunk_next(params->threadpool); u < units; u = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t pb = nblk - 1 - u % nblk, hg = (u / nblk) % n_hgroups, i3 = u / (nblk*n_hgroups);
        const int64_t p0 = pb*P, np = N - p0 < P ? N - p0 : P;
        fap_unit(&c, G, hg*G, p0, np, i3);
    }
    return GGML_STATUS_SUCCESS;
}
