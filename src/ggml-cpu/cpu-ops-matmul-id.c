// The mixture-of-experts family of the CPU backend: MUL_MAT_ID and ADD_ID.
//
// MUL_MAT_ID: dst[:, e, t] = as[:, :, ids[e, t]] * b[:, e % n_b, t] (as: [K, N, n_expert],
// b: F32 [K, n_b, n_tok], ids: I32 [n_used, n_tok], dst: F32 [N, n_used, n_tok]). One forward:
//   1. Thread 0 groups the (e, t) pairs by expert ("rows per expert") in the shared work buffer
//      and checks every id, while all threads convert b's rows once to the weights' activation
//      type: the vec_dot_type of a quantized type (Q8_0 / Q8_1 / Q8_K), F32 for F32/F16/BF16.
//      A barrier follows.
//   2. Items = (expert with pairs, chunk of weight rows), pulled with the chunk counter. Each item
//      multiplies the chunk's weight rows with the expert's gathered columns, a tile of columns at
//      a time, with the kernels MUL_MAT uses: the quant slot's vec_dot, or for float weights the
//      gemv / gemv_cols kernels (into per-thread scratch, then scattered to the pairs' rows).
//      An expert's weights are thus read once per tile of its tokens, and experts no token chose
//      are never read.
// An id outside [0, n_expert) fails the node (GGML_STATUS_FAILED, logged): ids are data, so only
// the forward can see them.
//
// ADD_ID: dst[:, i1, i2, i3] = a[:, i1, i2, i3] + b[:, ids[i1, i2]], F32 rows split over threads.

#include "ggml-cpu-impl.h"
#include "cpu-kernels.h"
#include "matmul-impl.h"

#include <string.h>

// columns of a quantized tile (kept in L1/L2 while a weight row is dotted with each)
#define MMID_TILE_Q   32
// weight rows per item: at most this many (the float path's scratch is sized for it)
#define MMID_CHUNK_MAX 64
#define MMID_CHUNK_MIN 16

static int64_t mmid_cdiv(int64_t a, int64_t b) {
    return (a + b - 1)/b;
}

static size_t mmid_align(size_t n) {
    return (n + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
}

static bool mmid_is_float(enum ggml_type t) {
    return ggml_mm_type_size(t) != 0;
}

//
// MUL_MAT_ID: support, layout of the work buffer
//

static bool mmid_type_ok(const struct ggml_tensor * as) {
    if (mmid_is_float(as->type)) {
        return true;
    }
    if (!ggml_is_quantized(as->type)) {
        return false;
    }
    // the portable table is the lowest common level: every level has what it has
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(true);
    const struct ggml_cpu_quant_kernels * q = &kt->quant[as->type];
    if (q->vec_dot == NULL || kt->quant[q->vec_dot_type].from_float == NULL) {
        return false;
    }
    return as->ne[0] % ggml_blck_size(as->type) == 0 && as->ne[0] % ggml_blck_size(q->vec_dot_type) == 0;
}

static bool mmid_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * as  = op->src[0];
    const struct ggml_tensor * b   = op->src[1];
    const struct ggml_tensor * ids = op->src[2];
    if (as == NULL || b == NULL || ids == NULL || op->type != GGML_TYPE_F32 || b->type != GGML_TYPE_F32 ||
        ids->type != GGML_TYPE_I32 || !mmid_type_ok(as)) {
        return false;
    }
    // weight rows whole and contiguous along k; activation and result rows contiguous
    if (as->nb[0] != ggml_type_size(as->type) || b->nb[0] != sizeof(float) || op->nb[0] != sizeof(float)) {
        return false;
    }
    if (as->ne[3] != 1 || b->ne[3] != 1 || ids->ne[2] != 1 || ids->ne[3] != 1 || b->ne[1] <= 0) {
        return false;
    }
    return as->ne[0] == b->ne[0] && ids->ne[1] == b->ne[2] && ids->ne[0] % b->ne[1] == 0 &&
           op->ne[0] == as->ne[1] && op->ne[1] == ids->ne[0] && op->ne[2] == b->ne[2] && op->ne[3] == 1;
}

// bytes of one converted activation row (cache-line padded): the larger of the level's and the
// portable table's activation types, so that reference mode fits in the same plan
static size_t mmid_row_bytes(const struct ggml_tensor * op) {
    const struct ggml_tensor * as = op->src[0];
    const int64_t K = as->ne[0];
    if (mmid_is_float(as->type)) {
        return mmid_align((size_t) K*sizeof(float));
    }
    const size_t r0 = ggml_row_size(ggml_cpu_kernels_get(false)->quant[as->type].vec_dot_type, K);
    const size_t r1 = ggml_row_size(ggml_cpu_kernels_get(true)->quant[as->type].vec_dot_type, K);
    return mmid_align(r0 > r1 ? r0 : r1);
}

// The shared work buffer: the grouping (header, counts, offsets, active experts, pairs), the
// converted activation rows, then one float scratch per thread (float weights only).
struct mmid_layout {
    size_t off_cnt, off_off, off_active, off_pairs; // int64_t arrays / int32_t pairs
    size_t off_rows, row_bytes;
    size_t off_scratch, scratch_bytes;              // per thread
    size_t total;
};

// header words at the start of the buffer
enum { MMID_H_STATUS, MMID_H_N_ACTIVE, MMID_H_BAD_ID, MMID_H_BAD_E, MMID_H_BAD_T, MMID_H_COUNT };

static struct mmid_layout mmid_make_layout(const struct ggml_tensor * op, int nth) {
    const struct ggml_tensor * as  = op->src[0];
    const struct ggml_tensor * b   = op->src[1];
    const struct ggml_tensor * ids = op->src[2];
    const size_t n_expert = (size_t) as->ne[2];
    const size_t n_pairs  = (size_t) (ids->ne[0]*ids->ne[1]);
    struct mmid_layout L;
    size_t o = mmid_align(MMID_H_COUNT*sizeof(int64_t));
    L.off_cnt    = o; o = mmid_align(o + n_expert*sizeof(int64_t));
    L.off_off    = o; o = mmid_align(o + n_expert*sizeof(int64_t));
    L.off_active = o; o = mmid_align(o + n_expert*sizeof(int64_t));
    L.off_pairs  = o; o = mmid_align(o + n_pairs*2*sizeof(int32_t));
    L.row_bytes  = mmid_row_bytes(op);
    L.off_rows   = o; o += L.row_bytes*(size_t) (b->ne[1]*b->ne[2]);
    L.scratch_bytes = mmid_is_float(as->type) ? mmid_align((size_t) GGML_MM_COLS_MAX*MMID_CHUNK_MAX*sizeof(float)) : 0;
    L.off_scratch = o; o += L.scratch_bytes*(size_t) (nth > 0 ? nth : 1);
    L.total = o;
    return L;
}

// Thread 0: pairs grouped by expert, in token order within an expert. Returns false on a bad id
// (recorded in the header for the log).
static bool mmid_group(const struct ggml_tensor * op, char * w, const struct mmid_layout * L) {
    const struct ggml_tensor * as  = op->src[0];
    const struct ggml_tensor * ids = op->src[2];
    const int64_t n_expert = as->ne[2], n_used = ids->ne[0], n_tok = ids->ne[1];
    int64_t * hdr    = (int64_t *)(void *) w;
    int64_t * cnt    = (int64_t *)(void *) (w + L->off_cnt);
    int64_t * off    = (int64_t *)(void *) (w + L->off_off);
    int64_t * active = (int64_t *)(void *) (w + L->off_active);
    int32_t * pairs  = (int32_t *)(void *) (w + L->off_pairs);

    memset(cnt, 0, (size_t) n_expert*sizeof(int64_t));
    hdr[MMID_H_STATUS] = 0;
    for (int64_t t = 0; t < n_tok; t++) {
        for (int64_t e = 0; e < n_used; e++) {
            int32_t id;
            memcpy(&id, (const char *) ids->data + e*ids->nb[0] + t*ids->nb[1], sizeof(id));
            if (id < 0 || id >= n_expert) {
                hdr[MMID_H_STATUS] = 1;
                hdr[MMID_H_BAD_ID] = id;
                hdr[MMID_H_BAD_E]  = e;
                hdr[MMID_H_BAD_T]  = t;
                return false;
            }
            cnt[id]++;
        }
    }
    int64_t n_active = 0, sum = 0;
    for (int64_t x = 0; x < n_expert; x++) {
        off[x] = sum;
        sum += cnt[x];
        if (cnt[x] > 0) {
            active[n_active++] = x;
        }
        cnt[x] = 0; // the cursor of the fill below; ends as the count again
    }
    for (int64_t t = 0; t < n_tok; t++) {
        for (int64_t e = 0; e < n_used; e++) {
            int32_t id;
            memcpy(&id, (const char *) ids->data + e*ids->nb[0] + t*ids->nb[1], sizeof(id));
            int32_t * p = pairs + 2*(off[id] + cnt[id]++);
            p[0] = (int32_t) e;
            p[1] = (int32_t) t;
        }
    }
    hdr[MMID_H_N_ACTIVE] = n_active;
    return true;
}

// every thread: its share of b's rows (row r = token r / n_b, slot r % n_b) to the activation type
static void mmid_convert_rows(const struct ggml_compute_params * params, const struct ggml_tensor * op,
                              char * rows, size_t row_bytes) {
    const struct ggml_tensor * as = op->src[0];
    const struct ggml_tensor * b  = op->src[1];
    const int64_t K = b->ne[0], n_b = b->ne[1];
    ggml_cpu_quant_from_float_fn quantize = NULL;
    if (!mmid_is_float(as->type)) {
        const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
        quantize = kt->quant[kt->quant[as->type].vec_dot_type].from_float;
    }
    int64_t r0, r1;
    ggml_cpu_split_range(n_b*b->ne[2], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const char * src = (const char *) b->data + (r % n_b)*b->nb[1] + (r / n_b)*b->nb[2];
        char * dstrow = rows + (size_t) r*row_bytes;
        if (quantize != NULL) {
            quantize((const float *)(const void *) src, dstrow, K);
        } else {
            memcpy(dstrow, src, (size_t) K*sizeof(float));
        }
    }
}

static float * mmid_dst_row(const struct ggml_tensor * op, int32_t e, int32_t t) {
    return (float *)(void *) ((char *) op->data + (size_t) e*op->nb[1] + (size_t) t*op->nb[2]);
}

// rows n0..n1 of expert x's weights times its pairs p[0..np) (quantized weights)
static void mmid_item_quant(const struct ggml_cpu_quant_kernels * q, const struct ggml_tensor * op,
        const char * aw, const char * rows, size_t row_bytes, const int32_t * p, int64_t np, int64_t n0, int64_t n1) {
    const struct ggml_tensor * as = op->src[0];
    const int64_t K = as->ne[0], n_b = op->src[1]->ne[1];
    for (int64_t j0 = 0; j0 < np; j0 += MMID_TILE_Q) {
        const int64_t j1 = MIN(np, j0 + MMID_TILE_Q);
        for (int64_t n = n0; n < n1; n++) {
            const char * arow = aw + n*as->nb[1];
            for (int64_t j = j0; j < j1; j++) {
                const int32_t e = p[2*j], t = p[2*j + 1];
                const char * brow = rows + (size_t) (t*n_b + e % n_b)*row_bytes;
                q->vec_dot((int) K, mmid_dst_row(op, e, t) + n, 0, arow, 0, brow, 0, 1);
            }
        }
    }
}

// the same for float weights, GGML_MM_COLS_MAX columns at a time through scratch
static void mmid_item_float(const struct ggml_cpu_kernels * kt, const struct ggml_tensor * op,
        const char * aw, const char * rows, size_t row_bytes, const int32_t * p, int64_t np, int64_t n0, int64_t n1,
        float * scratch) {
    const struct ggml_tensor * as = op->src[0];
    const int64_t K = as->ne[0], n_b = op->src[1]->ne[1], nn = n1 - n0;
    const struct ggml_mm_src a = { aw, as->type, (int64_t) as->nb[1], (int64_t) as->nb[0] };
    for (int64_t j0 = 0; j0 < np; j0 += GGML_MM_COLS_MAX) {
        const int nb = (int) MIN((int64_t) GGML_MM_COLS_MAX, np - j0);
        const float * brow[GGML_MM_COLS_MAX];
        for (int j = 0; j < nb; j++) {
            const int32_t e = p[2*(j0 + j)], t = p[2*(j0 + j) + 1];
            brow[j] = (const float *)(const void *) (rows + (size_t) (t*n_b + e % n_b)*row_bytes);
        }
        (nb <= GGML_MM_GEMV_M ? kt->mm->gemv : kt->gemv_cols)(&a, n0, nn, K, brow, nb, scratch, nn);
        for (int j = 0; j < nb; j++) {
            const int32_t e = p[2*(j0 + j)], t = p[2*(j0 + j) + 1];
            memcpy(mmid_dst_row(op, e, t) + n0, scratch + (int64_t) j*nn, (size_t) nn*sizeof(float));
        }
    }
}

static int mmid_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const double macs = (double) op->src[0]->ne[0]*(double) ggml_nelements(op);
    return macs < 64.0*1024.0 ? 1 : MAX(1, n_threads);
}

static enum ggml_status mmid_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const bool ok = mmid_supports(op);
    const struct mmid_layout L = ok ? mmid_make_layout(op, params->nth) : (struct mmid_layout) { 0 };
    if (!ok || params->wdata == NULL || params->wsize < L.total) {
        if (params->ith == 0) {
            GGML_LOG_ERROR("%s: %s: MUL_MAT_ID of %s x %s: %s\n", __func__, op->name,
                           op->src[0] ? ggml_type_name(op->src[0]->type) : "NULL",
                           op->src[1] ? ggml_type_name(op->src[1]->type) : "NULL",
                           ok ? "work buffer too small" : "not supported");
        }
        if (params->nth > 1) {
            ggml_cpu_barrier(params->threadpool); // every thread meets the barrier the others expect
        }
        return GGML_STATUS_FAILED;
    }
    char * w = params->wdata;
    if (params->ith == 0) {
        mmid_group(op, w, &L);
    }
    mmid_convert_rows(params, op, w + L.off_rows, L.row_bytes);
    if (params->nth > 1) {
        ggml_cpu_barrier(params->threadpool);
    }

    const int64_t * hdr = (const int64_t *)(const void *) w;
    if (hdr[MMID_H_STATUS] != 0) {
        if (params->ith == 0) {
            ggml_error_report(GGML_ERROR_INVALID_ARGUMENT, "%s: %s: expert id %lld at ids[%lld, %lld] is outside [0, %lld)\n",
                    __func__, op->name, (long long) hdr[MMID_H_BAD_ID], (long long) hdr[MMID_H_BAD_E],
                    (long long) hdr[MMID_H_BAD_T], (long long) op->src[0]->ne[2]);
        }
        return GGML_STATUS_FAILED;
    }

    const struct ggml_tensor * as = op->src[0];
    const int64_t N = op->ne[0], K = as->ne[0];
    const int64_t n_active = hdr[MMID_H_N_ACTIVE];
    const int64_t * cnt    = (const int64_t *)(const void *) (w + L.off_cnt);
    const int64_t * off    = (const int64_t *)(const void *) (w + L.off_off);
    const int64_t * active = (const int64_t *)(const void *) (w + L.off_active);
    const int32_t * pairs  = (const int32_t *)(const void *) (w + L.off_pairs);
    float * scratch = L.scratch_bytes ? (float *)(void *) (w + L.off_scratch + L.scratch_bytes*(size_t) params->ith) : NULL;

    // chunks of weight rows: enough items for the dynamic split to even out, whole groups of 8
    int64_t chunk = mmid_cdiv(N, MAX((int64_t) 1, mmid_cdiv(8*(int64_t) params->nth, MAX(n_active, (int64_t) 1))));
    chunk = MIN((int64_t) MMID_CHUNK_MAX, MAX((int64_t) MMID_CHUNK_MIN, mmid_cdiv(chunk, 8)*8));
    const int64_t nchunk = mmid_cdiv(N, chunk);

    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < n_active*nchunk; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t x  = active[it / nchunk];
        const int64_t n0 = (it % nchunk)*chunk, n1 = MIN(N, n0 + chunk);
        const int32_t * p = pairs + 2*off[x];
        if (K == 0) {
            for (int64_t j = 0; j < cnt[x]; j++) {
                memset(mmid_dst_row(op, p[2*j], p[2*j + 1]) + n0, 0, (size_t) (n1 - n0)*sizeof(float));
            }
            continue;
        }
        const char * aw = (const char *) as->data + x*as->nb[2];
        if (mmid_is_float(as->type)) {
            mmid_item_float(kt, op, aw, w + L.off_rows, L.row_bytes, p, cnt[x], n0, n1, scratch);
        } else {
            mmid_item_quant(&kt->quant[as->type], op, aw, w + L.off_rows, L.row_bytes, p, cnt[x], n0, n1);
        }
    }
    return GGML_STATUS_SUCCESS;
}

//
// ADD_ID
//

static bool add_id_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a   = op->src[0];
    const struct ggml_tensor * b   = op->src[1];
    const struct ggml_tensor * ids = op->src[2];
    if (a == NULL || b == NULL || ids == NULL || op->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 ||
        b->type != GGML_TYPE_F32 || ids->type != GGML_TYPE_I32) {
        return false;
    }
    if (op->nb[0] != sizeof(float) || a->nb[0] != sizeof(float) || b->nb[0] != sizeof(float)) {
        return false;
    }
    return ggml_are_same_shape(op, a) && a->ne[0] == b->ne[0] && a->ne[1] == ids->ne[0] && a->ne[2] == ids->ne[1];
}

static enum ggml_status add_id_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (!add_id_supports(op)) {
        if (params->ith == 0) {
            ggml_cpu_log_unsupported(__func__, -1, op);
        }
        return GGML_STATUS_FAILED;
    }
    const struct ggml_tensor * a   = op->src[0];
    const struct ggml_tensor * b   = op->src[1];
    const struct ggml_tensor * ids = op->src[2];
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    const int64_t ne1 = a->ne[1], ne2 = a->ne[2];
    int64_t r0, r1;
    ggml_cpu_split_range(ne1*ne2*a->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i1 = r % ne1, i2 = (r / ne1) % ne2, i3 = r / (ne1*ne2);
        int32_t id;
        memcpy(&id, (const char *) ids->data + i1*ids->nb[0] + i2*ids->nb[1], sizeof(id));
        if (id < 0 || id >= b->ne[1]) {
            ggml_error_report(GGML_ERROR_INVALID_ARGUMENT, "%s: %s: bias id %d at ids[%lld, %lld] is outside [0, %lld)\n", __func__,
                    op->name, (int) id, (long long) i1, (long long) i2, (long long) b->ne[1]);
            return GGML_STATUS_FAILED;
        }
        vf->add_f32(a->ne[0],
                (float *)(void *) ((char *) op->data + i1*op->nb[1] + i2*op->nb[2] + i3*op->nb[3]),
                (const float *)(const void *) ((const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3]),
                (const float *)(const void *) ((const char *) b->data + (int64_t) id*b->nb[1]));
    }
    return GGML_STATUS_SUCCESS;
}

//
// the family's four functions
//

bool ggml_cpu_moe_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_MUL_MAT_ID: return mmid_supports(op);
        case GGML_OP_ADD_ID:     return add_id_supports(op);
        default:                 return false;
    }
}

size_t ggml_cpu_moe_work_size(const struct ggml_tensor * op, int n_threads) {
    if (op->op != GGML_OP_MUL_MAT_ID || !mmid_supports(op)) {
        return 0;
    }
    return mmid_make_layout(op, mmid_n_tasks(op, n_threads)).total;
}

int ggml_cpu_moe_n_tasks(const struct ggml_tensor * op, int n_threads) {
    if (op->op == GGML_OP_MUL_MAT_ID) {
        return mmid_n_tasks(op, n_threads);
    }
    return ggml_nrows(op) >= 64 && ggml_nelements(op) >= 16*1024 ? n_threads : 1;
}

enum ggml_status ggml_cpu_moe_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (op->op == GGML_OP_MUL_MAT_ID) {
        return mmid_forward(params, op);
    }
    return add_id_forward(params, op);
}
