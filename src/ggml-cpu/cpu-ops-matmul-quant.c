// MUL_MAT with quantized weights: dst[n][m] = vec_dot(A row n, B row m quantized to vec_dot_type).
//
// Two phases in one forward:
//   1. The F32 activations (every row of B, all batches) are quantized once to the weight type's
//      vec_dot_type (Q8_0 / Q8_1 / Q8_K) into the shared work buffer, rows split over the threads;
//      a barrier follows. A single row (decode) is quantized by every thread into its own slot
//      instead (the same bytes), which saves the barrier.
//   2. Items = batch x chunk of weight rows, pulled with the chunk counter. Within an item the
//      columns are walked in tiles of QMM_TILE_M: each weight row of the chunk is dotted with the
//      tile's columns while the tile (a few tens of KiB of quantized activations) stays in cache,
//      and the chunk's weight rows stay in L2 across tiles. Decode (one to a few columns) is then a
//      plain stream over the weight rows, every row read once.
// The dot products are the quant slots of the kernel table (cpu-kernels.h) of the level in use:
// the slot's register tile (GGML_CPU_QTILE_ROWS weight rows x GGML_CPU_QTILE_COLS columns per
// call: several rows' loads in flight for decode, unpacked weights shared by columns for prompts)
// where the level has one, else one vec_dot per output. One column (decode) goes to the slot's
// gemv where there is one: the item's rows as one stream (docs/cpu-kernels.md, "Quantized decode").
// Prompts of the types with a panel pair (unpack + tile_panel: the grid formats) unpack each weight
// row of an item once into the thread's panel (in the work buffer after the activations; the
// chunk is cut so that the panel stays within QMM_PANEL_BYTES) and run the panel kernel for every
// group of GGML_CPU_QTILE_COLS columns.

#include "cpu-ops-matmul-quant.h"
#include "cpu-kernels.h"

#include <string.h>

#define QMM_TILE_M 32
#define QMM_PANEL_BYTES (192*1024)

bool ggml_cpu_matmul_q_applies(const struct ggml_tensor * op) {
    return op != NULL && op->op == GGML_OP_MUL_MAT && op->src[0] != NULL && op->src[1] != NULL &&
           ggml_is_quantized(op->src[0]->type);
}

bool ggml_cpu_matmul_q_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const struct ggml_cpu_quant_kernels * q = &ggml_cpu_kernels_get(true)->quant[a->type];
    if (q->vec_dot == NULL || b->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32) {
        return false;
    }
    const enum ggml_type vt = q->vec_dot_type;
    const struct ggml_cpu_quant_kernels * qa = &ggml_cpu_kernels_get(true)->quant[vt];
    if (qa->from_float == NULL || a->ne[0] % ggml_blck_size(a->type) != 0 || a->ne[0] % ggml_blck_size(vt) != 0) {
        return false;
    }
    // weight rows whole blocks, activation and result rows contiguous along k / n
    if (a->nb[0] != ggml_type_size(a->type) || b->nb[0] != sizeof(float) || op->nb[0] != sizeof(float) ||
        op->nb[1] % sizeof(float) != 0) {
        return false;
    }
    if (a->ne[2] <= 0 || a->ne[3] <= 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0) {
        return false;
    }
    return a->ne[0] == b->ne[0] && op->ne[0] == a->ne[1] && op->ne[1] == b->ne[1] &&
           op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
}

static enum ggml_type qmm_vec_dot_type(const struct ggml_tensor * op, bool use_ref) {
    return ggml_cpu_kernels_get(use_ref)->quant[op->src[0]->type].vec_dot_type;
}

// bytes of one quantized activation row, padded to a cache line
static size_t qmm_row_bytes(const struct ggml_tensor * op, enum ggml_type vt) {
    const size_t r = ggml_row_size(vt, op->src[0]->ne[0]);
    return (r + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
}

// bytes of the quantized activations at the start of the work buffer
static size_t qmm_act_bytes(const struct ggml_tensor * op, int n_threads) {
    const struct ggml_tensor * b = op->src[1];
    // the level's and the portable table's activation types agree (a slot is one unit); take the
    // larger row so that reference mode fits too
    const size_t r0 = qmm_row_bytes(op, qmm_vec_dot_type(op, false));
    const size_t r1 = qmm_row_bytes(op, qmm_vec_dot_type(op, true));
    const int64_t nrows = b->ne[1]*b->ne[2]*b->ne[3];
    return (r0 > r1 ? r0 : r1)*(size_t) (nrows == 1 && n_threads > 1 ? n_threads : nrows);
}

// the panel path applies (the table's panel pair, a prompt); else 0 rows. The panel's rows per
// chunk: as many as fit QMM_PANEL_BYTES, a multiple of 8 in 8 .. 64.
static int64_t qmm_panel_rows(const struct ggml_tensor * op, const struct ggml_cpu_quant_kernels * q) {
    if (q->unpack == NULL || q->tile_panel == NULL || op->src[1]->ne[1] < 2 || op->src[0]->ne[0] % 256 != 0) {
        return 0;
    }
    const int64_t rows = (int64_t) (QMM_PANEL_BYTES/GGML_CPU_QPANEL_ROW_BYTES(op->src[0]->ne[0]))/8*8;
    return MAX((int64_t) 8, MIN(rows, (int64_t) 64));
}

static size_t qmm_panel_bytes(const struct ggml_tensor * op, int64_t rows) {
    const size_t n = (size_t) rows*GGML_CPU_QPANEL_ROW_BYTES(op->src[0]->ne[0]);
    return (n + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
}

size_t ggml_cpu_matmul_q_work_size(const struct ggml_tensor * op, int n_threads) {
    size_t n = qmm_act_bytes(op, n_threads);
    const int64_t prow = qmm_panel_rows(op, &ggml_cpu_kernels_get(false)->quant[op->src[0]->type]);
    if (prow > 0) {
        n = (n + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
        n += qmm_panel_bytes(op, prow)*(size_t) MAX(1, n_threads);
    }
    return n;
}

int ggml_cpu_matmul_q_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const double macs = (double) op->src[0]->ne[0]*(double) ggml_nelements(op);
    return macs < 64.0*1024.0 ? 1 : MAX(1, n_threads);
}

enum ggml_status ggml_cpu_matmul_q_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const bool ok = ggml_cpu_matmul_q_supports(op);
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const size_t need = ok ? ggml_cpu_matmul_q_work_size(op, params->nth) : 0;
    if (!ok || (need > 0 && (params->wdata == NULL || params->wsize < need))) {
        if (params->ith == 0) {
            GGML_LOG_ERROR("%s: %s: MUL_MAT of %s x %s: %s\n", __func__, op->name, ggml_type_name(a->type),
                           ggml_type_name(b->type), ok ? "work buffer too small" : "not supported");
        }
        if (params->nth > 1) {
            ggml_cpu_barrier(params->threadpool); // every thread meets the barrier the others expect
        }
        return GGML_STATUS_FAILED;
    }
    const struct ggml_cpu_quant_kernels * q = &ggml_cpu_kernels_get(params->use_ref)->quant[a->type];
    const enum ggml_type vt = q->vec_dot_type;
    const ggml_cpu_quant_from_float_fn quantize = ggml_cpu_kernels_get(params->use_ref)->quant[vt].from_float;
    const size_t rb = qmm_row_bytes(op, vt);

    const int64_t K = a->ne[0], N = op->ne[0], M = op->ne[1], ne2 = op->ne[2], ne3 = op->ne[3];
    char * wq = params->wdata;

    // phase 1: quantize every activation row once
    const int64_t nrows_b = M*ne2*ne3;
    const bool own_row = nrows_b == 1 && params->nth > 1; // decode: every thread its own copy
    if (own_row) {
        wq += (size_t) params->ith*rb;
        quantize((const float *) b->data, wq, K);
    } else {
        int64_t r0, r1;
        ggml_cpu_split_range(nrows_b, params->ith, params->nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            const int64_t m = r % M, i2 = (r / M) % ne2, i3 = r / (M*ne2);
            const float * src = (const float *)(const void *)((const char *) b->data + m*b->nb[1] + i2*b->nb[2] + i3*b->nb[3]);
            quantize(src, wq + (size_t) r*rb, K);
        }
        if (params->nth > 1) {
            ggml_cpu_barrier(params->threadpool);
        }
    }

    // phase 2: chunks of weight rows (a multiple of the tile's rows); enough of them for the
    // dynamic split to even out
    const int64_t nbatch = ne2*ne3;
    // Decode through the gemv slot: long chunks, each one contiguous stream of weight rows
    const bool decode = M == 1 && q->gemv != NULL;
    int64_t chunk;
    if (decode) {
        chunk = (N + 4*params->nth - 1)/(4*params->nth);
        chunk = MAX((int64_t) 8, MIN((chunk + 7)/8*8, (int64_t) 1024));
    } else {
        chunk = (N + 8*params->nth - 1)/(8*params->nth);
        chunk = MAX((int64_t) 4, MIN(chunk, (int64_t) 64));
        chunk = (chunk + GGML_CPU_QTILE_ROWS - 1)/GGML_CPU_QTILE_ROWS*GGML_CPU_QTILE_ROWS;
    }
    // the panel path: the thread's panel after the activations (work size: see above)
    const int64_t prow = decode ? 0 : qmm_panel_rows(op, q);
    char * panel = NULL;
    if (prow > 0) {
        const size_t act = (qmm_act_bytes(op, params->nth) + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
        panel = (char *) params->wdata + act + (size_t) params->ith*qmm_panel_bytes(op, prow);
        chunk = MIN(chunk, prow);
    }
    const int64_t nchunk = (N + chunk - 1)/chunk;
    const int64_t r2 = b->ne[2]/a->ne[2], r3 = b->ne[3]/a->ne[3];
    const size_t  ldc = op->nb[1]/sizeof(float);
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < nbatch*nchunk; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t batch = it / nchunk, i2 = batch % ne2, i3 = batch / ne2;
        const int64_t n0 = (it % nchunk)*chunk, n1 = MIN(N, n0 + chunk);
        const char * abase = (const char *) a->data + (i2/r2)*a->nb[2] + (i3/r3)*a->nb[3];
        const char * bbase = wq + (size_t) (batch*M)*rb;
        char * cbase = (char *) op->data + i2*op->nb[2] + i3*op->nb[3];
        if (decode) {
            q->gemv((int) K, (float *)(void *) cbase + n0, abase + n0*a->nb[1], a->nb[1], bbase, (int) (n1 - n0));
            continue;
        }
        if (panel != NULL) {
            // every row of the item unpacked once, then every group of columns against the panel
            q->unpack((int) K, panel, abase + n0*a->nb[1], a->nb[1], (int) (n1 - n0));
            for (int64_t m = 0; m < M; m += GGML_CPU_QTILE_COLS) {
                const int nc = (int) MIN((int64_t) GGML_CPU_QTILE_COLS, M - m);
                float * c = (float *)(void *)(cbase + m*op->nb[1]) + n0;
                q->tile_panel((int) K, c, ldc, panel, bbase + (size_t) m*rb, rb, (int) (n1 - n0), nc);
            }
            continue;
        }
        for (int64_t m0 = 0; m0 < M; m0 += QMM_TILE_M) {
            const int64_t m1 = MIN(M, m0 + QMM_TILE_M);
            if (q->tile != NULL) {
                // register tiles: a group of columns stays in L1 while the chunk's weight rows
                // (fewer bytes per block than the columns' activations) stream from L2
                for (int64_t m = m0; m < m1; m += GGML_CPU_QTILE_COLS) {
                    const int nc = (int) MIN((int64_t) GGML_CPU_QTILE_COLS, m1 - m);
                    for (int64_t n = n0; n < n1; n += GGML_CPU_QTILE_ROWS) {
                        const int nr = (int) MIN((int64_t) GGML_CPU_QTILE_ROWS, n1 - n);
                        float * c = (float *)(void *)(cbase + m*op->nb[1]) + n;
                        q->tile((int) K, c, ldc, abase + n*a->nb[1], a->nb[1], bbase + (size_t) m*rb, rb, nr, nc);
                    }
                }
                continue;
            }
            for (int64_t n = n0; n < n1; n++) {
                const char * arow = abase + n*a->nb[1];
                for (int64_t m = m0; m < m1; m++) {
                    float * c = (float *)(void *)(cbase + m*op->nb[1]) + n;
                    q->vec_dot((int) K, c, 0, arow, 0, bbase + (size_t) m*rb, 0, 1);
                }
            }
        }
    }
    return GGML_STATUS_SUCCESS;
}
