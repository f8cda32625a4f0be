// CPU kernel of the attn family: FLASH_ATTN_EXT. Semantics as docs/op-params.md and
// tests/ref/ref-attn.c:
//   q [DK, N, H, B] F32 (or F16/BF16, widened); k [DK, KV, Hk, Bk], v [DV, KV, Hv, Bv] F32, F16 or BF16 (heads and dim 3
//   broadcast: H % Hk == 0 ...), or a quantized type with a dequantizer (a quantized KV cache: each
//   row is dequantized to F32 once per work unit, so the products are those of the dequantized
//   cache); mask [KV, >= N, m2, m3] F16/F32 or NULL; sinks F32 [H] or NULL; result F32
//   [DV, H, N, B] (permuted).
//   s_j = softcap*tanh(scale*q.k_j/softcap) (scale*q.k_j without softcap) + slope(h)*mask_j
//   out = sum_j e^{s_j} v_j / (sum_j e^{s_j} + e^{sink_h}), 0 when every s_j is -inf (no sink).
//
// Work unit: up to FA_ROWS query rows that read the same K and V rows (the heads of one GQA group
// at one query position, then the next positions). Keys are taken in blocks of FA_BLOCK: each K
// row is widened once and dotted with every query row of the unit (keys that every row masks with
// -inf are skipped), then each row's running maximum is raised once per block (rescaling its
// accumulator and running sum), the block's weights are exponentiated together, and each V row is
// widened once and accumulated into every row's accumulator. Units are handed out to threads in
// chunks.
//
// One query position (a generated token) has only as many units as head groups (3 for a 9/3-head
// model), too few to keep the threads equally busy. There (not the reference mode) each unit is
// also split along the keys that some mask row leaves visible, into as many parts as the shapes
// give (the same for any thread count, so the bits do not depend on it): every part
// keeps its own running maximum, sum and accumulator in the work buffer, and the thread that
// pulls the last chunk number past the end (all others have finished) merges the parts and
// writes the rows. The result equals the unsplit one up to float rounding (other summation order).

#include "cpu-ops-nn.h"
#include "cpu-ops-attn-prompt.h"
#include "cpu-kernels.h"

#include <math.h>
#include <string.h>

#define FA_BLOCK 64 // keys per block
#define FA_ROWS  GGML_CPU_ATTN_ROWS // query rows per work unit (the kernels' row slots)
#define FA_SPLIT_MAX      16 // parts per unit at most (one query position)
#define FA_SPLIT_MIN_KEYS 16 // keys per part at least
#define FA_SPLIT_CHUNKS   16 // units x parts aimed at: enough to balance up to 8 threads

static bool fa_kv_type_ok(const struct ggml_tensor * t) {
    if (t == NULL || t->nb[0] != ggml_type_size(t->type)) {
        return false;
    }
    if (ggml_vec_is_float_type(t->type)) {
        return true;
    }
    // quantized rows: whole blocks, dequantized through the type's to_float
    return (int) t->type >= 0 && t->type < GGML_TYPE_COUNT && ggml_is_quantized(t->type) &&
           ggml_get_type_traits(t->type)->to_float != NULL && ggml_blck_size(t->type) > 0 &&
           t->ne[0] % ggml_blck_size(t->type) == 0;
}

// a K or V row as the kernels read it: quantized rows dequantized into buf (F32)
static const char * fa_kv_row(const struct ggml_tensor * t, const char * row, float * buf, enum ggml_type * type) {
    if (!ggml_is_quantized(t->type)) {
        *type = t->type;
        return row;
    }
    ggml_get_type_traits(t->type)->to_float(row, buf, t->ne[0]);
    *type = GGML_TYPE_F32;
    return (const char *) buf;
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
    if (op->op != GGML_OP_FLASH_ATTN_EXT || q == NULL || !ggml_vec_is_float_type(q->type) || !fa_kv_type_ok(k) || !fa_kv_type_ok(v)) {
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

// per-thread scratch, each piece rounded up to a cache line: FA_ROWS query rows [DK],
// FA_ROWS accumulators [DV], FA_ROWS score blocks and FA_ROWS mask blocks [FA_BLOCK], then one
// dequantized K row [DK] and one V row [DV]
static size_t fa_pad(size_t n) {
    return GGML_PAD(n, GGML_CPU_CACHE_LINE);
}

static size_t fa_thread_bytes(int64_t dk, int64_t dv) {
    return FA_ROWS*(fa_pad((size_t) dk*sizeof(float)) + fa_pad((size_t) dv*sizeof(float)) +
                    2*fa_pad(FA_BLOCK*sizeof(float))) +
           fa_pad((size_t) dk*sizeof(float)) + fa_pad((size_t) dv*sizeof(float));
}

// floats of one part's row: running maximum, running sum, accumulator [DV], to a cache line
static size_t fa_part_row_floats(int64_t dv) {
    return fa_pad((size_t) (dv + 2)*sizeof(float))/sizeof(float);
}

static int64_t fa_n_units(const struct ggml_tensor * op, int64_t * units_per_group);

// parts per unit when one query position is split along the keys (1: not split). It depends on the
// shapes only, never on the thread count, so that a generated token gives the same bits on any
// number of threads (the parts are merged in the same order whoever computed them).
static int64_t fa_n_split(const struct ggml_tensor * op) {
    int64_t upg;
    const int64_t units = fa_n_units(op, &upg);
    if (op->src[0]->ne[1] != 1 || units < 1 || units >= FA_SPLIT_CHUNKS) {
        return 1;
    }
    int64_t n = (FA_SPLIT_CHUNKS + units - 1)/units;
    const int64_t by_keys = op->src[1]->ne[1]/FA_SPLIT_MIN_KEYS;
    n = n < by_keys ? n : by_keys;
    n = n < FA_SPLIT_MAX ? n : FA_SPLIT_MAX;
    return n > 1 ? n : 1;
}

size_t ggml_cpu_attn_work_size(const struct ggml_tensor * op, int n_threads) {
    size_t rows = fa_thread_bytes(op->src[0]->ne[0], op->src[2]->ne[0])*(size_t) n_threads;
    const int64_t n_split = fa_n_split(op);
    if (n_split >= 2) {
        int64_t upg;
        const int64_t units = fa_n_units(op, &upg);
        rows += (size_t) (units*n_split*FA_ROWS)*fa_part_row_floats(op->src[2]->ne[0])*sizeof(float);
    }
    const size_t prompt = ggml_cpu_attn_prompt_work_size(op, n_threads); // 0 where it does not apply
    return rows > prompt ? rows : prompt;
}

// rows sharing K and V: the heads of a GQA group when K and V group the heads alike, else one head
static int64_t fa_group_heads(const struct ggml_tensor * op) {
    const struct ggml_tensor * q = op->src[0], * k = op->src[1], * v = op->src[2];
    const int64_t G = k->ne[2] == v->ne[2] && k->ne[3] == v->ne[3] ? q->ne[2] / k->ne[2] : 1;
    return G > 0 ? G : 1; // (no heads at all: no units either way)
}

// work units: per (i3, head group), ceil(group heads * N / FA_ROWS)
static int64_t fa_n_units(const struct ggml_tensor * op, int64_t * units_per_group) {
    const struct ggml_tensor * q = op->src[0];
    const int64_t G = fa_group_heads(op);
    *units_per_group = (G*q->ne[1] + FA_ROWS - 1) / FA_ROWS;
    return *units_per_group*(q->ne[2] / G)*q->ne[3];
}

int ggml_cpu_attn_n_tasks(const struct ggml_tensor * op, int n_threads) {
    int64_t upg;
    const int64_t units = fa_n_units(op, &upg)*fa_n_split(op);
    return units < 1 ? 1 : (units < n_threads ? (int) units : n_threads);
}

struct fa_ctx {
    const struct ggml_tensor * q, * k, * v, * mask, * sinks;
    struct ggml_tensor * dst;
    nn_vf vf;
    const struct ggml_cpu_kernels * kt;
    float scale, max_bias, softcap;
    float * qbuf[FA_ROWS], * acc[FA_ROWS], * s[FA_ROWS], * mbuf[FA_ROWS];
    float * krow, * vrow; // dequantized K / V rows (quantized caches)
};

static void fa_finish(const struct fa_ctx * c, int nr, const int64_t * i1, const int64_t * h, int64_t i3,
                      float * M, float * S);

// the FA_ROWS-or-fewer rows (i1[r], h[r]) of one unit at dim-3 index i3 over the keys [jbeg, jend);
// they share K and V rows. part NULL: the rows are written to dst; else the running maxima, sums and
// accumulators are stored in part (rows of fa_part_row_floats(DV)) for fa_merge.
static void fa_unit(const struct fa_ctx * c, int nr, const int64_t * i1, const int64_t * h, int64_t i3,
                    int64_t jbeg, int64_t jend, float * part) {
    const struct ggml_tensor * q = c->q, * k = c->k, * v = c->v, * mask = c->mask;
    const nn_vf   vf = c->vf;
    const int64_t DK = q->ne[0], DV = v->ne[0], KV = k->ne[1];
    const int64_t H  = q->ne[2], B = q->ne[3];

    const char * kbase = (const char *) k->data + (h[0] / (H / k->ne[2]))*k->nb[2] + (i3 / (B / k->ne[3]))*k->nb[3];
    const char * vbase = (const char *) v->data + (h[0] / (H / v->ne[2]))*v->nb[2] + (i3 / (B / v->ne[3]))*v->nb[3];
    const char * mrow[FA_ROWS];
    float slope[FA_ROWS];
    float M[FA_ROWS], S[FA_ROWS];
    for (int r = 0; r < nr; r++) {
        ggml_vec_load_f32(vf, q->type, (const char *) q->data + i1[r]*q->nb[1] + h[r]*q->nb[2] + i3*q->nb[3],
                q->nb[0], DK, c->qbuf[r]);
        mrow[r]  = NULL;
        slope[r] = 1.0f;
        if (mask != NULL) {
            mrow[r]  = (const char *) mask->data + i1[r]*mask->nb[1] + (h[r] % mask->ne[2])*mask->nb[2] +
                       (i3 % mask->ne[3])*mask->nb[3];
            slope[r] = nn_alibi_slope(c->max_bias, H, h[r]);
        }
        memset(c->acc[r], 0, (size_t) DV*sizeof(float));
        M[r] = -INFINITY; // running maximum
        S[r] = 0.0f;      // running sum of e^{s_j - M}
    }
    const float * const * qrows = (const float * const *) c->qbuf;
    const ggml_cpu_attn_dot_fn  dot  = c->kt->attn_dot[nr];
    const ggml_cpu_attn_axpy_fn axpy = c->kt->attn_axpy[nr];
    const size_t mes = mask != NULL ? ggml_type_size(mask->type) : 0;

    (void) KV;
    for (int64_t j0 = jbeg; j0 < jend; j0 += FA_BLOCK) {
        const int64_t nb = jend - j0 < FA_BLOCK ? jend - j0 : FA_BLOCK;
        // mask values, times the slope (0 without a mask)
        for (int r = 0; r < nr; r++) {
            float * mb = c->mbuf[r];
            if (mrow[r] != NULL) {
                ggml_vec_load_f32(vf, mask->type, mrow[r] + j0*mes, mes, nb, mb);
                if (slope[r] != 1.0f) {
                    vf->scale_f32(nb, mb, mb, slope[r], 0.0f);
                }
            } else {
                memset(mb, 0, (size_t) nb*sizeof(float));
            }
        }
        // scores
        for (int64_t jj = 0; jj < nb; jj++) {
            bool any = false;
            for (int r = 0; r < nr; r++) {
                any = any || c->mbuf[r][jj] != -INFINITY;
            }
            if (!any) {
                for (int r = 0; r < nr; r++) {
                    c->s[r][jj] = -INFINITY;
                }
                continue;
            }
            float d[FA_ROWS];
            enum ggml_type kt;
            const char * krow = fa_kv_row(k, kbase + (j0 + jj)*k->nb[1], c->krow, &kt);
            dot(DK, qrows, krow, kt, d);
            for (int r = 0; r < nr; r++) {
                float x = d[r]*c->scale;
                if (c->softcap != 0.0f) {
                    x = c->softcap*tanhf(x/c->softcap);
                }
                c->s[r][jj] = x + c->mbuf[r][jj]; // -inf where masked
            }
        }
        // running maxima and weights
        bool any_row = false;
        for (int r = 0; r < nr; r++) {
            float * sr = c->s[r];
            const float bmax = vf->max_f32(nb, sr);
            if (bmax == -INFINITY) {
                memset(sr, 0, (size_t) nb*sizeof(float)); // the whole block is masked for this row
                continue;
            }
            if (bmax > M[r]) {
                if (M[r] != -INFINITY) {
                    const float f = expf(M[r] - bmax);
                    vf->scale_f32(DV, c->acc[r], c->acc[r], f, 0.0f);
                    S[r] *= f;
                }
                M[r] = bmax;
            }
            S[r] += (float) vf->soft_max_f32(nb, sr, sr, M[r]);
            any_row = true;
        }
        if (!any_row) {
            continue;
        }
        // values
        for (int64_t jj = 0; jj < nb; jj++) {
            float w[FA_ROWS];
            bool any = false;
            for (int r = 0; r < nr; r++) {
                w[r] = c->s[r][jj];
                any = any || w[r] != 0.0f;
            }
            if (!any) {
                continue;
            }
            enum ggml_type vt;
            const char * vrow = fa_kv_row(v, vbase + (j0 + jj)*v->nb[1], c->vrow, &vt);
            axpy(DV, w, vrow, vt, c->acc);
        }
    }

    if (part != NULL) {
        const size_t prow = fa_part_row_floats(DV);
        for (int r = 0; r < nr; r++) {
            float * p = part + (size_t) r*prow;
            p[0] = M[r];
            p[1] = S[r];
            memcpy(p + 2, c->acc[r], (size_t) DV*sizeof(float));
        }
        return;
    }
    fa_finish(c, nr, i1, h, i3, M, S);
}

// the sinks, then row r = acc[r] / S[r] (0 when nothing was attended to) into dst
static void fa_finish(const struct fa_ctx * c, int nr, const int64_t * i1, const int64_t * h, int64_t i3,
                      float * M, float * S) {
    const nn_vf vf = c->vf;
    const int64_t DV = c->v->ne[0];
    for (int r = 0; r < nr; r++) {
        float * acc = c->acc[r];
        if (c->sinks != NULL) {
            const float sink = ((const float *) c->sinks->data)[h[r]];
            if (sink > -INFINITY) {
                if (sink > M[r]) {
                    const float f = M[r] == -INFINITY ? 0.0f : expf(M[r] - sink);
                    vf->scale_f32(DV, acc, acc, f, 0.0f);
                    S[r] *= f;
                    M[r] = sink;
                }
                S[r] += expf(sink - M[r]);
            }
        }
        float * out = (float *) ((char *) c->dst->data + h[r]*c->dst->nb[1] + i1[r]*c->dst->nb[2] + i3*c->dst->nb[3]);
        if (S[r] > 0.0f) {
            vf->scale_f32(DV, out, acc, 1.0f/S[r], 0.0f);
        } else {
            memset(out, 0, (size_t) DV*sizeof(float)); // nothing to attend to
        }
    }
}

// unit u: group g = u / upg of dim-3 index i3 = g / n_hgroups, rows FA_ROWS*(u % upg) ... of the
// group's list (head fastest, then query position); returns the unit's row count
static int fa_unit_rows(const struct ggml_tensor * op, int64_t u, int64_t upg, int64_t * i1, int64_t * h, int64_t * i3) {
    const int64_t N = op->src[0]->ne[1];
    const int64_t G = fa_group_heads(op);
    const int64_t n_hgroups = op->src[0]->ne[2] / G;
    const int64_t g  = u / upg;
    const int64_t hg = g % n_hgroups;
    const int64_t l0 = (u % upg)*FA_ROWS;
    const int64_t l1 = l0 + FA_ROWS < G*N ? l0 + FA_ROWS : G*N;
    *i3 = g / n_hgroups;
    for (int64_t l = l0; l < l1; l++) {
        h[l - l0]  = hg*G + l % G;
        i1[l - l0] = l / G;
    }
    return (int) (l1 - l0);
}

// [*jlo, *jhi): the keys that some mask row of query position 0 leaves visible (all keys without a
// mask; an empty range when every key is masked)
static void fa_visible_keys(const struct fa_ctx * c, int64_t * jlo, int64_t * jhi) {
    const struct ggml_tensor * m = c->mask;
    const int64_t KV = c->k->ne[1];
    *jlo = 0;
    *jhi = KV;
    if (m == NULL) {
        return;
    }
    const int64_t n2 = m->ne[2] < c->q->ne[2] ? m->ne[2] : c->q->ne[2];
    const int64_t n3 = m->ne[3] < c->q->ne[3] ? m->ne[3] : c->q->ne[3];
    int64_t lo = KV, hi = 0;
    for (int64_t i3 = 0; i3 < n3; i3++) {
        for (int64_t i2 = 0; i2 < n2; i2++) {
            const char * row = (const char *) m->data + i2*m->nb[2] + i3*m->nb[3];
            int64_t j = 0;
            while (j < lo && ggml_vec_load_elem(m->type, row + j*m->nb[0]) == -INFINITY) {
                j++;
            }
            lo = j < lo ? j : lo;
            j = KV;
            while (j > hi && ggml_vec_load_elem(m->type, row + (j - 1)*m->nb[0]) == -INFINITY) {
                j--;
            }
            hi = j > hi ? j : hi;
        }
    }
    *jlo = lo < hi ? lo : 0;
    *jhi = lo < hi ? hi : 0;
}

// One query position, every unit split into n_split parts along the visible keys; chunk v is part
// v % n_split of unit v / n_split. A thread leaves the loop after its own last part is stored; the
// one whose chunk number is the last past the end (n_chunks + nth - 1) is the last to leave, and
// the chunk counter's ordering (acquire-release) makes every part visible to it: it merges.
static void fa_forward_split(struct fa_ctx * c, const struct ggml_compute_params * params, const struct ggml_tensor * op,
                             int64_t units, int64_t upg, int64_t n_split, float * parts) {
    const int64_t DV = c->v->ne[0];
    const size_t  prow = fa_part_row_floats(DV);
    int64_t jlo, jhi;
    fa_visible_keys(c, &jlo, &jhi);
    const int64_t n_chunks = units*n_split;
    int64_t ch = ggml_cpu_chunk_next(params->threadpool);
    for (; ch < n_chunks; ch = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t u = ch / n_split, p = ch % n_split;
        int64_t i1[FA_ROWS], h[FA_ROWS], i3;
        const int nr = fa_unit_rows(op, u, upg, i1, h, &i3);
        const int64_t j0 = jlo + (jhi - jlo)*p/n_split, j1 = jlo + (jhi - jlo)*(p + 1)/n_split;
        fa_unit(c, nr, i1, h, i3, j0, j1, parts + (size_t) (ch*FA_ROWS)*prow);
    }
    if (ch != n_chunks + params->nth - 1) {
        return;
    }
    for (int64_t u = 0; u < units; u++) {
        int64_t i1[FA_ROWS], h[FA_ROWS], i3;
        const int nr = fa_unit_rows(op, u, upg, i1, h, &i3);
        float M[FA_ROWS], S[FA_ROWS];
        for (int r = 0; r < nr; r++) {
            // the largest running maximum, then every part's sum and accumulator rescaled to it
            M[r] = -INFINITY;
            for (int64_t p = 0; p < n_split; p++) {
                const float mp = parts[(size_t) ((u*n_split + p)*FA_ROWS + r)*prow];
                M[r] = mp > M[r] ? mp : M[r];
            }
            S[r] = 0.0f;
            memset(c->acc[r], 0, (size_t) DV*sizeof(float));
            if (M[r] == -INFINITY) {
                continue; // nothing visible to this row
            }
            for (int64_t p = 0; p < n_split; p++) {
                const float * pr = parts + (size_t) ((u*n_split + p)*FA_ROWS + r)*prow;
                if (pr[0] == -INFINITY) {
                    continue;
                }
                const float f = expf(pr[0] - M[r]);
                S[r] += pr[1]*f;
                c->vf->mad_f32(DV, c->acc[r], pr + 2, f);
            }
        }
        fa_finish(c, nr, i1, h, i3, M, S);
    }
}

enum ggml_status ggml_cpu_attn_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (ggml_cpu_attn_prompt_applies(op)) {
        return ggml_cpu_attn_prompt_forward(params, op); // blocks of query rows (cpu-ops-attn-prompt.c)
    }
    struct fa_ctx c;
    c.q     = op->src[0];
    c.k     = op->src[1];
    c.v     = op->src[2];
    c.mask  = op->src[3];
    c.sinks = op->src[4];
    c.dst   = op;
    c.kt    = ggml_cpu_kernels_get(params->use_ref);
    c.vf    = c.kt->vec;
    c.scale    = ggml_get_op_params_f32(op, 0);
    c.max_bias = ggml_get_op_params_f32(op, 1);
    c.softcap  = ggml_get_op_params_f32(op, 2);

    const int64_t DK = c.q->ne[0], DV = c.v->ne[0];
    char * w = (char *) params->wdata + (size_t) params->ith*fa_thread_bytes(DK, DV);
    for (int r = 0; r < FA_ROWS; r++) {
        c.qbuf[r] = (float *) w; w += fa_pad((size_t) DK*sizeof(float));
        c.acc[r]  = (float *) w; w += fa_pad((size_t) DV*sizeof(float));
        c.s[r]    = (float *) w; w += fa_pad(FA_BLOCK*sizeof(float));
        c.mbuf[r] = (float *) w; w += fa_pad(FA_BLOCK*sizeof(float));
    }
    c.krow = (float *) w; w += fa_pad((size_t) DK*sizeof(float));
    c.vrow = (float *) w;

    int64_t upg;
    const int64_t units   = fa_n_units(op, &upg);
    const int64_t n_split = params->use_ref ? 1 : fa_n_split(op);
    if (n_split > 1 && ggml_cpu_attn_work_size(op, params->nth) <= params->wsize) {
        float * parts = (float *)(void *) ((char *) params->wdata + (size_t) params->nth*fa_thread_bytes(DK, DV));
        fa_forward_split(&c, params, op, units, upg, n_split, parts);
        return GGML_STATUS_SUCCESS;
    }
    int64_t chunk = units / ((int64_t) params->nth*8);
    chunk = chunk < 1 ? 1 : chunk;
    if (units / chunk >= INT32_MAX) {
        chunk = units / (INT32_MAX/2) + 1; // chunk numbers are ints
    }
    const int64_t n_chunks = (units + chunk - 1) / chunk;
    for (int64_t ch = ggml_cpu_chunk_next(params->threadpool); ch < n_chunks; ch = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t u1 = (ch + 1)*chunk < units ? (ch + 1)*chunk : units;
        for (int64_t u = ch*chunk; u < u1; u++) {
            int64_t i1[FA_ROWS], h[FA_ROWS], i3;
            const int nr = fa_unit_rows(op, u, upg, i1, h, &i3);
            fa_unit(&c, nr, i1, h, i3, 0, c.k->ne[1], NULL);
        }
    }
    return GGML_STATUS_SUCCESS;
}
