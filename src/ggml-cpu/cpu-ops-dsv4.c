// CPU kernels of issue 22's "dsv4" group: LIGHTNING_INDEXER, DSV4_HC_COMB, DSV4_HC_PRE and
// DSV4_HC_POST (semantics as tests/ref/ref-dsv4.c and include/ggml.h). Sources are read through
// their strides; only the rows the dot products walk must have adjacent elements.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"
#include "cpu-kernels.h"
#include "matmul-impl.h"

#include <math.h>
#include <string.h>

// below this many multiply-adds one thread computes the node
#define DSV4_MIN_WORK 32768
// the largest stream count the hyper-connection kernels take (as the constructor)
#define DSV4_HC_MAX 16

static inline const char * dsv4_cptr(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (const char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

static inline float dsv4_f32(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    float v;
    memcpy(&v, dsv4_cptr(t, i0, i1, i2, i3), sizeof(v));
    return v;
}

static inline void dsv4_set_f32(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, float v) {
    memcpy((char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3], &v, sizeof(v));
}

static bool dsv4_all_f32(const struct ggml_tensor * op, int n_src) {
    if (op->type != GGML_TYPE_F32) {
        return false;
    }
    for (int i = 0; i < n_src; i++) {
        if (op->src[i] == NULL || op->src[i]->type != GGML_TYPE_F32) {
            return false;
        }
    }
    return true;
}

static bool dsv4_shape(const struct ggml_tensor * t, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3) {
    return t->ne[0] == ne0 && t->ne[1] == ne1 && t->ne[2] == ne2 && t->ne[3] == ne3;
}

static bool indexer_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * w = op->src[2], * m = op->src[3];
    if (q == NULL || k == NULL || w == NULL || m == NULL || op->type != GGML_TYPE_F32 || q->type != GGML_TYPE_F32 ||
        w->type != GGML_TYPE_F32 || m->type != GGML_TYPE_F16 || (int) k->type < 0 || k->type >= GGML_TYPE_COUNT) {
        return false;
    }
    const struct ggml_type_traits * kt = ggml_get_type_traits(k->type);
    if (k->type != GGML_TYPE_F32 && (kt->to_float == NULL || kt->blck_size <= 0 || k->ne[0] % kt->blck_size != 0)) {
        return false;
    }
    const int64_t D = q->ne[0], H = q->ne[1], T = q->ne[2], S = q->ne[3], KV = k->ne[2];
    // rows walked by the dot products and the conversion must be adjacent elements
    if (q->nb[0] != sizeof(float) || k->nb[0] != ggml_type_size(k->type) || op->nb[0] != sizeof(float)) {
        return false;
    }
    return dsv4_shape(k, D, 1, KV, S) && dsv4_shape(w, H, T, 1, S) && m->ne[0] == KV && m->ne[1] == T &&
           m->ne[2] == 1 && m->ne[3] > 0 && S % m->ne[3] == 0 && dsv4_shape(op, KV, T, 1, S);
}

static bool hc_comb_supports(const struct ggml_tensor * op) {
    if (!dsv4_all_f32(op, 3)) {
        return false;
    }
    const struct ggml_tensor * mixes = op->src[0], * scale = op->src[1], * base = op->src[2];
    const int64_t hc = op->ne[0];
    return hc > 0 && hc <= DSV4_HC_MAX && ggml_get_op_params_i32(op, 1) > 0 &&
           dsv4_shape(mixes, (2 + hc)*hc, op->ne[2], 1, 1) && scale->ne[0] >= 3 &&
           dsv4_shape(base, (2 + hc)*hc, 1, 1, 1) && dsv4_shape(op, hc, hc, mixes->ne[1], 1);
}

static bool hc_pre_supports(const struct ggml_tensor * op) {
    if (!dsv4_all_f32(op, 2)) {
        return false;
    }
    const struct ggml_tensor * x = op->src[0], * w = op->src[1];
    return x->ne[3] == 1 && dsv4_shape(w, x->ne[1], x->ne[2], 1, 1) && dsv4_shape(op, x->ne[0], x->ne[2], 1, 1);
}

static bool hc_post_supports(const struct ggml_tensor * op) {
    if (!dsv4_all_f32(op, 4)) {
        return false;
    }
    const struct ggml_tensor * x = op->src[0], * r = op->src[1], * p = op->src[2], * c = op->src[3];
    const int64_t E = x->ne[0], T = x->ne[1], hc = r->ne[1];
    return dsv4_shape(x, E, T, 1, 1) && dsv4_shape(r, E, hc, T, 1) && dsv4_shape(p, hc, T, 1, 1) &&
           dsv4_shape(c, hc, hc, T, 1) && dsv4_shape(op, E, hc, T, 1);
}

bool ggml_cpu_dsv4_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_LIGHTNING_INDEXER: return indexer_supports(op);
        case GGML_OP_DSV4_HC_COMB:      return hc_comb_supports(op);
        case GGML_OP_DSV4_HC_PRE:       return hc_pre_supports(op);
        case GGML_OP_DSV4_HC_POST:      return hc_post_supports(op);
        default:                        return false;
    }
}

// The indexer's scores q.k as float GEMMs (ggml_mm_gemm_block): per work unit the query rows of
// up to DSV4_IDX_ROWS (token, head) pairs of one stream against a block of DSV4_IDX_KEYS K rows.
#define DSV4_IDX_KEYS 256
#define DSV4_IDX_ROWS 256

// tokens per unit: whole tokens (all H heads) up to DSV4_IDX_ROWS rows, at least one
static int64_t indexer_tokens(const struct ggml_tensor * op) {
    const int64_t H = op->src[0]->ne[1];
    return H >= DSV4_IDX_ROWS ? 1 : DSV4_IDX_ROWS / H;
}

// K rows the GEMM reads directly (F32, F16, BF16); the others are converted into scratch first
static bool indexer_k_direct(const struct ggml_tensor * op) {
    return ggml_mm_type_size(op->src[1]->type) != 0;
}

// per-thread scratch (floats): the GEMM's packing buffers, the scores, the sums per key, and the
// converted K block when K is not read directly; each part rounded up to a cache line
static size_t indexer_part(size_t floats) {
    return GGML_PAD(floats, GGML_CPU_CACHE_LINE/sizeof(float));
}

static size_t indexer_thread_floats(const struct ggml_tensor * op) {
    const int64_t D = op->src[0]->ne[0], H = op->src[0]->ne[1];
    const size_t rows = (size_t) (indexer_tokens(op)*H);
    return indexer_part(GGML_MM_GEMM_SCRATCH) + indexer_part(rows*DSV4_IDX_KEYS) + indexer_part(DSV4_IDX_KEYS) +
           (indexer_k_direct(op) ? 0 : indexer_part((size_t) DSV4_IDX_KEYS*(size_t) D));
}

size_t ggml_cpu_dsv4_work_size(const struct ggml_tensor * op, int n_threads) {
    if (op->op != GGML_OP_LIGHTNING_INDEXER || op->src[0] == NULL || op->src[1] == NULL) {
        return 0;
    }
    return indexer_thread_floats(op)*sizeof(float)*(size_t) n_threads;
}

int ggml_cpu_dsv4_n_tasks(const struct ggml_tensor * op, int n_threads) {
    int64_t work = ggml_nelements(op);
    switch (op->op) {
        case GGML_OP_LIGHTNING_INDEXER: work *= op->src[0]->ne[0]*op->src[0]->ne[1]; break;
        case GGML_OP_DSV4_HC_COMB:      work *= 8*op->src[0]->ne[0]; break;
        case GGML_OP_DSV4_HC_PRE:       work *= op->src[0]->ne[1]; break;
        case GGML_OP_DSV4_HC_POST:      work *= op->src[1]->ne[1] + 1; break;
        default:                        break;
    }
    return work < DSV4_MIN_WORK ? 1 : n_threads;
}

// res[j, t, s] = sum_h relu(q[:, h, t, s].k[:, 0, j, s])*w[h, t, s] + mask[j, t, s % S'].
// Work units: (stream, block of DSV4_IDX_KEYS keys, block of indexer_tokens tokens), the token
// blocks of one key block next to each other, so that a thread converts a K block (types the GEMM
// does not read) once for its run of units. Per unit one GEMM gives the scores of every
// (token, head) row against the block's keys; then per token and key the heads are summed in
// order, relu(score)*w, plus the mask.
static void indexer_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * w = op->src[2], * m = op->src[3];
    const int64_t D = q->ne[0], H = q->ne[1], T = q->ne[2], S = q->ne[3], KV = k->ne[2];
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    const bool direct = indexer_k_direct(op);
    const ggml_to_float_t to_float = direct ? NULL : ggml_get_type_traits(k->type)->to_float;
    const int64_t TB = indexer_tokens(op);
    const int64_t n_tb = (T + TB - 1)/TB, n_kb = (KV + DSV4_IDX_KEYS - 1)/DSV4_IDX_KEYS;

    float * scratch = (float *) params->wdata + (size_t) params->ith*indexer_thread_floats(op);
    float * scores  = scratch + indexer_part(GGML_MM_GEMM_SCRATCH);
    float * acc     = scores + indexer_part((size_t) (TB*H)*DSV4_IDX_KEYS);
    float * k_f32   = acc + indexer_part(DSV4_IDX_KEYS);

    int64_t u0, u1;
    ggml_cpu_split_range(S*n_kb*n_tb, params->ith, params->nth, &u0, &u1);
    int64_t converted = -1; // (stream, key block) whose K rows sit in k_f32
    for (int64_t u = u0; u < u1; u++) {
        const int64_t tb = u % n_tb, kb = (u / n_tb) % n_kb, s = u / (n_tb*n_kb);
        const int64_t j0 = kb*DSV4_IDX_KEYS, nk = KV - j0 < DSV4_IDX_KEYS ? KV - j0 : DSV4_IDX_KEYS;
        const int64_t t0 = tb*TB, nt = T - t0 < TB ? T - t0 : TB;
        struct ggml_mm_src ksrc = { dsv4_cptr(k, 0, 0, j0, s), k->type, (int64_t) k->nb[2], (int64_t) k->nb[0] };
        if (!direct) {
            if (converted != u / n_tb) {
                for (int64_t j = 0; j < nk; j++) {
                    to_float(dsv4_cptr(k, 0, 0, j0 + j, s), k_f32 + j*D, D);
                }
                converted = u / n_tb;
            }
            ksrc = (struct ggml_mm_src) { (const char *) k_f32, GGML_TYPE_F32, D*(int64_t) sizeof(float), (int64_t) sizeof(float) };
        }
        // the (token, head) rows: one GEMM when the tokens' heads follow each other in memory
        if (nt == 1 || q->nb[2] == (size_t) H*q->nb[1]) {
            const struct ggml_mm_src qsrc = { dsv4_cptr(q, 0, 0, t0, s), GGML_TYPE_F32, (int64_t) q->nb[1], (int64_t) sizeof(float) };
            ggml_mm_gemm_block(kt->mm, &ksrc, &qsrc, 0, nt*H, 0, nk, D, scores, DSV4_IDX_KEYS, scratch);
        } else {
            for (int64_t t = 0; t < nt; t++) {
                const struct ggml_mm_src qsrc = { dsv4_cptr(q, 0, 0, t0 + t, s), GGML_TYPE_F32, (int64_t) q->nb[1], (int64_t) sizeof(float) };
                ggml_mm_gemm_block(kt->mm, &ksrc, &qsrc, 0, H, 0, nk, D, scores + t*H*DSV4_IDX_KEYS, DSV4_IDX_KEYS, scratch);
            }
        }
        for (int64_t t = 0; t < nt; t++) {
            for (int64_t j = 0; j < nk; j++) {
                acc[j] = 0.0f;
            }
            for (int64_t h = 0; h < H; h++) {
                const float wh = dsv4_f32(w, h, t0 + t, 0, s);
                const float * sr = scores + (t*H + h)*DSV4_IDX_KEYS;
                for (int64_t j = 0; j < nk; j++) {
                    acc[j] += (sr[j] > 0.0f ? sr[j] : 0.0f)*wh;
                }
            }
            const char * mrow = dsv4_cptr(m, j0, t0 + t, 0, s % m->ne[3]);
            float * out = (float *)(void *) ((char *) op->data + j0*op->nb[0] + (t0 + t)*op->nb[1] + s*op->nb[3]);
            for (int64_t j = 0; j < nk; j++) {
                ggml_fp16_t mv;
                memcpy(&mv, mrow + j*m->nb[0], sizeof(mv));
                out[j] = acc[j] + ggml_fp16_to_fp32(mv);
            }
        }
    }
}

// divides each row (fixed first index when over_dst is false) of the hc x hc matrix c[d + hc*s]
// by eps plus its sum: over_dst normalizes each source column over the destinations
static void hc_normalize(float * c, int64_t hc, float eps, bool over_dst) {
    for (int64_t a = 0; a < hc; a++) {
        float sum = eps;
        for (int64_t b = 0; b < hc; b++) {
            sum += over_dst ? c[b + hc*a] : c[a + hc*b];
        }
        const float inv = 1.0f/sum;
        for (int64_t b = 0; b < hc; b++) {
            if (over_dst) {
                c[b + hc*a] *= inv;
            } else {
                c[a + hc*b] *= inv;
            }
        }
    }
}

static void hc_comb_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * mixes = op->src[0], * scale = op->src[1], * base = op->src[2];
    const int64_t hc = op->ne[0], off = 2*hc;
    const float eps = ggml_get_op_params_f32(op, 0);
    const int32_t n_iter = ggml_get_op_params_i32(op, 1);
    const float sc = dsv4_f32(scale, 2, 0, 0, 0);
    float c[DSV4_HC_MAX*DSV4_HC_MAX];
    int64_t t0, t1;
    ggml_cpu_split_range(op->ne[2], params->ith, params->nth, &t0, &t1);
    for (int64_t t = t0; t < t1; t++) {
        for (int64_t s = 0; s < hc; s++) {
            float mx = -INFINITY;
            for (int64_t d = 0; d < hc; d++) {
                const int64_t i = d + hc*s;
                c[i] = dsv4_f32(mixes, off + i, t, 0, 0)*sc + dsv4_f32(base, off + i, 0, 0, 0);
                mx = fmaxf(mx, c[i]);
            }
            float sum = 0.0f;
            for (int64_t d = 0; d < hc; d++) {
                c[d + hc*s] = expf(c[d + hc*s] - mx);
                sum += c[d + hc*s];
            }
            for (int64_t d = 0; d < hc; d++) {
                c[d + hc*s] = c[d + hc*s]/sum + eps;
            }
        }
        hc_normalize(c, hc, eps, false);
        for (int32_t it = 1; it < n_iter; it++) {
            hc_normalize(c, hc, eps, true);
            hc_normalize(c, hc, eps, false);
        }
        for (int64_t s = 0; s < hc; s++) {
            for (int64_t d = 0; d < hc; d++) {
                dsv4_set_f32(op, d, s, t, 0, c[d + hc*s]);
            }
        }
    }
}

static void hc_pre_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * x = op->src[0], * w = op->src[1];
    const int64_t E = x->ne[0], hc = x->ne[1];
    int64_t r0, r1;
    ggml_cpu_split_range(E*op->ne[1], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i = r % E, t = r / E;
        float sum = 0.0f;
        for (int64_t h = 0; h < hc; h++) {
            sum += dsv4_f32(x, i, h, t, 0)*dsv4_f32(w, h, t, 0, 0);
        }
        dsv4_set_f32(op, i, t, 0, 0, sum);
    }
}

static void hc_post_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * x = op->src[0], * res = op->src[1], * post = op->src[2], * comb = op->src[3];
    const int64_t E = op->ne[0], hc = op->ne[1];
    int64_t r0, r1;
    ggml_cpu_split_range(E*hc*op->ne[2], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i = r % E, d = (r / E) % hc, t = r / (E*hc);
        float sum = dsv4_f32(x, i, t, 0, 0)*dsv4_f32(post, d, t, 0, 0);
        for (int64_t s = 0; s < hc; s++) {
            sum += dsv4_f32(res, i, s, t, 0)*dsv4_f32(comb, d, s, t, 0);
        }
        dsv4_set_f32(op, i, d, t, 0, sum);
    }
}

enum ggml_status ggml_cpu_dsv4_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (!ggml_cpu_dsv4_supports(op) ||
        (op->op == GGML_OP_LIGHTNING_INDEXER && (params->wdata == NULL || params->wsize < ggml_cpu_dsv4_work_size(op, params->nth)))) {
        if (params->ith == 0) {
            ggml_cpu_log_unsupported(__func__, -1, op);
        }
        return GGML_STATUS_FAILED;
    }
    switch (op->op) {
        case GGML_OP_LIGHTNING_INDEXER: indexer_forward(params, op); break;
        case GGML_OP_DSV4_HC_COMB:      hc_comb_forward(params, op); break;
        case GGML_OP_DSV4_HC_PRE:       hc_pre_forward(params, op);  break;
        case GGML_OP_DSV4_HC_POST:      hc_post_forward(params, op); break;
        default:                        return GGML_STATUS_FAILED;
    }
    return GGML_STATUS_SUCCESS;
}
