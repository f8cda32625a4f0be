// The matrix-product family of the CPU backend: MUL_MAT and OUT_PROD.
//
// Both are computed as C[m][n] = sum_k B(m, k) * A(n, k) per matrix (see matmul-impl.h):
//   MUL_MAT : A = src0 (the weights, [K, N, ...]), B = src1 ([K, M, ...]), C = dst [N, M, ...]
//   OUT_PROD: A(n, k) = src0(n, k), B(m, k) = src1(m, k), C = dst [N = src0->ne0, M = src1->ne0, ...]
// with src0 broadcast over src1's dims 2 and 3. Two paths:
//   * GEMM: the output is cut into items (batch x column block x row block), pulled by the threads
//     with the shared chunk counter; each item is a packed, cache-blocked product computed with
//     the thread's own packing buffers (ggml_mm_gemm_block).
//   * GEMV (at most GGML_MM_GEMV_M rows of B, A rows contiguous along k): memory-bound, every
//     weight row streamed once; items are chunks of A's rows.
//   * few columns (MM_COLS_MIN .. GGML_MM_COLS_MAX rows of B, A rows contiguous): the same items,
//     computed by the table's gemv_cols kernel, which reads every weight once for all columns
//     (with F16 weights: gemv_cols_h, B rounded to F16 first, where the level has it).

#include "ggml-cpu-impl.h"
#include "matmul-impl.h"
#include "cpu-kernels.h"
#include "cpu-ops-matmul-quant.h"
#include "cpu-ops-outprod-quant.h"
#include "cpu-ops-hadamard.h"

#include <math.h>
#include <string.h>

// rows of B from which the few-columns kernel computes MUL_MAT (below: the GEMV kernel), and the
// most with F32 weights: past 8 rows the GEMM is faster on F32 (no widening to amortise), while
// with F16/BF16 weights gemv_cols stays ahead up to GGML_MM_COLS_MAX (docs/cpu-perf.md)
#define MM_COLS_MIN     (GGML_MM_GEMV_M + 1)
#define MM_COLS_F32_MAX 8
// few columns on more than one thread: the last nth chunks' rows are cut into chunks this many
// times shorter, so that the thread that started late or drew the last long chunk keeps the
// others waiting for a short chunk only, while the long chunks keep B's k blocks reused over
// many rows (every chunk reads all of B again: 64-row chunks throughout measured ~1.2x slower
// at 16 columns, loaded machine; docs/cpu-perf.md)
#define MM_COLS_TAIL_SPLIT 4
// GEMV: rows of B copied to scratch start on a cache line (row stride K rounded up to this many
// floats, the buffer's start rounded up within MM_SCRATCH_SLACK floats)
#define MM_COLS_B_ALIGN  32
#define MM_SCRATCH_SLACK 16
// few columns with F16 weights: the rows of B rounded to F16 once per batch, each scaled by a
// power of two that brings its largest |value| into [2^14, 2^15) (no overflow, no subnormals but
// for values 2^29 below the row's largest), for the level's gemv_cols_h kernel: half the bytes of
// B per multiply-add. Error: each element of B within 2^-11 relative (2^-39 of the row's largest
// |value| absolute), i.e. |error| <= 2^-11 sum |a*b| + the float accumulation's; the family rounds
// B to F16 unscaled for every F16 product. Rows whose largest |value| is infinite or beyond
// 2^+-100 take the float kernel.
#define MM_H_CHUNK 256
// OFF for now: the rounding gives 1.06 - 1.24x at 5 .. 16 columns (docs/cpu-perf.md, wave 5) but
// tools/llm's llm-reference and llm-meta check logits against double sums within 1e-5 of the
// largest (float activations), which F16 activations miss (1.5e-4 - 4.6e-3 of 5.3 - 5.9);
// turning it on needs those bounds moved to the family's F16 contract first.
#define MM_COLS_ROUND_B_F16 0

// A plan of one node, computed the same way by work_size (n_threads) and forward (nth).
struct mm_plan {
    struct ggml_mm_src a;    // strides of A within one matrix
    struct ggml_mm_src b;
    int64_t M, N, K;
    int64_t ne2, ne3;        // batch dims of dst
    int64_t r2, r3;          // broadcast ratios (dst batch -> A batch)
    int64_t a_nb2, a_nb3;    // batch strides (bytes)
    int64_t b_nb2, b_nb3;
    int64_t c_nb2, c_nb3;
    int64_t ldc;             // floats
    bool    gemv;
    bool    cols;            // GEMV items computed by the few-columns kernel
    bool    b_direct;        // GEMV: B rows usable in place (F32, contiguous along k)
    bool    cols_h;          // few columns, F16 weights: B also rounded to F16 rows in scratch
    int64_t n_blk, nci;      // GEMM column blocks / GEMV row chunks and their size
    int64_t n_head, nci_tail; // GEMV: the first n_head chunks have nci rows, the rest nci_tail
    int64_t m_blk, mci;      // GEMM row blocks
    int64_t n_items;
};

static int64_t mm_cdiv(int64_t a, int64_t b) {
    return (a + b - 1)/b;
}

// the types the kernels read (ggml_mm_type_size answers 0 for every other one)
static bool mm_type_ok(enum ggml_type t) {
    return ggml_mm_type_size(t) != 0;
}

// shapes consistent with the op's definition (docs/op-params.md)
static bool mm_shapes_ok(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a->ne[2] <= 0 || a->ne[3] <= 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0) {
        return false;
    }
    if (op->op == GGML_OP_MUL_MAT) {
        return a->ne[0] == b->ne[0] && op->ne[0] == a->ne[1] && op->ne[1] == b->ne[1] &&
               op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
    }
    return a->ne[1] == b->ne[1] && op->ne[0] == a->ne[0] && op->ne[1] == b->ne[0] &&
           op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
}

bool ggml_cpu_matmul_supports(const struct ggml_tensor * op) {
    if (op == NULL || (op->op != GGML_OP_MUL_MAT && op->op != GGML_OP_OUT_PROD)) {
        return false;
    }
    if (ggml_cpu_matmul_q_applies(op)) {
        return ggml_cpu_matmul_q_supports(op); // quantized weights: cpu-ops-matmul-quant.c
    }
    if (ggml_cpu_out_prod_q_applies(op)) {
        return ggml_cpu_out_prod_q_supports(op); // OUT_PROD of quantized src0: cpu-ops-outprod-quant.c
    }
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL || b == NULL || op->type != GGML_TYPE_F32 || !mm_type_ok(a->type) || !mm_type_ok(b->type)) {
        return false;
    }
    // results are written with float rows; any stride of the sources is read through the packers
    if (op->nb[0] != sizeof(float) || op->nb[1] % sizeof(float) != 0) {
        return false;
    }
    return mm_shapes_ok(op);
}

static void mm_make_plan(const struct ggml_tensor * op, int nth, struct mm_plan * p) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    memset(p, 0, sizeof(*p));
    p->a.type = a->type;
    p->b.type = b->type;
    if (op->op == GGML_OP_MUL_MAT) {
        p->K = a->ne[0];
        p->a.s_r = (int64_t) a->nb[1]; p->a.s_k = (int64_t) a->nb[0];
        p->b.s_r = (int64_t) b->nb[1]; p->b.s_k = (int64_t) b->nb[0];
    } else {
        p->K = a->ne[1];
        p->a.s_r = (int64_t) a->nb[0]; p->a.s_k = (int64_t) a->nb[1];
        p->b.s_r = (int64_t) b->nb[0]; p->b.s_k = (int64_t) b->nb[1];
    }
    p->N   = op->ne[0];
    p->M   = op->ne[1];
    p->ne2 = op->ne[2];
    p->ne3 = op->ne[3];
    p->r2  = b->ne[2]/a->ne[2];
    p->r3  = b->ne[3]/a->ne[3];
    p->a_nb2 = (int64_t) a->nb[2]; p->a_nb3 = (int64_t) a->nb[3];
    p->b_nb2 = (int64_t) b->nb[2]; p->b_nb3 = (int64_t) b->nb[3];
    p->c_nb2 = (int64_t) op->nb[2]; p->c_nb3 = (int64_t) op->nb[3];
    p->ldc   = (int64_t) (op->nb[1]/sizeof(float));

    const int64_t nbatch = p->ne2*p->ne3;
    if (p->M <= 0 || p->N <= 0 || nbatch <= 0) {
        p->n_items = 0;
        return;
    }

    const bool a_rows = p->K > 0 && p->a.s_k == (int64_t) ggml_mm_type_size(a->type);
    p->cols = a_rows && p->M >= MM_COLS_MIN &&
              p->M <= (a->type == GGML_TYPE_F32 ? MM_COLS_F32_MAX : GGML_MM_COLS_MAX);
    p->gemv = (a_rows && p->M <= GGML_MM_GEMV_M) || p->cols;
    p->cols_h = MM_COLS_ROUND_B_F16 && p->cols && a->type == GGML_TYPE_F16;
    if (p->gemv) {
        // B rows used in place: F32, contiguous along k, float-aligned (views may start anywhere)
        // (the few-columns kernel: 32-byte aligned, else every other vector load of B straddles two
        // cache lines, ~5% of its time; an aligned copy of B costs far less)
        const uintptr_t b_align = p->cols ? MM_COLS_B_ALIGN : sizeof(float);
        p->b_direct = p->b.type == GGML_TYPE_F32 && p->b.s_k == (int64_t) sizeof(float) &&
                      ((uintptr_t) b->data | (uintptr_t) b->nb[1] | (uintptr_t) b->nb[2] | (uintptr_t) b->nb[3]) % b_align == 0;
        // row chunks: enough of them for the dynamic split to even out, each still long
        const int64_t want = (int64_t) nth*8;
        int64_t chunk = mm_cdiv(p->N, MAX((int64_t) 1, mm_cdiv(want, nbatch)));
        chunk = MAX(mm_cdiv(chunk, 8)*8, (int64_t) 16); // whole groups of the kernels' 4 or 8 rows
        p->nci   = chunk;
        p->n_blk = mm_cdiv(p->N, chunk);
        p->n_head   = p->n_blk;
        p->nci_tail = chunk;
        if (p->cols && nth > 1 && p->n_blk > nth) {
            p->n_head   = p->n_blk - nth;
            p->nci_tail = MAX(mm_cdiv(chunk/MM_COLS_TAIL_SPLIT, 8)*8, (int64_t) 16);
            p->n_blk    = p->n_head + mm_cdiv(p->N - p->n_head*chunk, p->nci_tail);
        }
        p->m_blk = 1;
        p->mci   = p->M;
    } else {
        int64_t nblk = mm_cdiv(p->N, GGML_MM_NC);
        if (nbatch == 1 && nth > 1 && nblk < (int64_t) nth*8) {
            // whole rounds of column blocks, so that no thread waits for the last one
            nblk = MIN(mm_cdiv(nblk, nth)*nth, MAX((int64_t) 1, p->N/64));
        }
        int64_t nci = mm_cdiv(p->N, nblk);
        nci  = MIN((int64_t) GGML_MM_NC, mm_cdiv(nci, 32)*32);
        nblk = mm_cdiv(p->N, nci);
        int64_t mblk = 1;
        if (nblk*nbatch < nth) {
            mblk = MIN(mm_cdiv(nth, nblk*nbatch), mm_cdiv(p->M, 24));
            mblk = MAX(mblk, (int64_t) 1);
        }
        // rows in multiples of 12 (a multiple of every kernel's MR)
        int64_t mci = mm_cdiv(mm_cdiv(p->M, mblk), 12)*12;
        mblk = mm_cdiv(p->M, mci);
        p->nci = nci; p->n_blk = nblk;
        p->mci = mci; p->m_blk = mblk;
    }
    p->n_items = nbatch*p->n_blk*p->m_blk;
}

// GEMV: floats between the rows of B copied to scratch
static int64_t mm_b_row_floats(const struct mm_plan * p) {
    return (p->K + MM_SCRATCH_SLACK - 1)/MM_SCRATCH_SLACK*MM_SCRATCH_SLACK;
}

// floats of scratch per thread, rounded to a cache line
static size_t mm_thread_floats(const struct mm_plan * p) {
    size_t n = 0;
    if (p->gemv) {
        n = p->b_direct ? 0 : (size_t) p->M*(size_t) mm_b_row_floats(p) + MM_SCRATCH_SLACK;
        if (p->cols_h) {
            // the F16 rows after the float ones (half a float each), and the slack if alone
            n += (size_t) p->M*(size_t) mm_b_row_floats(p)/2 + (p->b_direct ? MM_SCRATCH_SLACK : 0);
        }
    } else {
        n = GGML_MM_GEMM_SCRATCH;
    }
    return (n + 15) & ~(size_t) 15;
}

size_t ggml_cpu_matmul_work_size(const struct ggml_tensor * op, int n_threads) {
    if (ggml_cpu_matmul_q_applies(op)) {
        return ggml_cpu_matmul_q_work_size(op, n_threads);
    }
    if (ggml_cpu_out_prod_q_applies(op)) {
        return ggml_cpu_out_prod_q_work_size(op, n_threads);
    }
    struct mm_plan p;
    const int nth = MAX(1, n_threads);
    mm_make_plan(op, nth, &p);
    if (p.n_items == 0) {
        return 0;
    }
    return mm_thread_floats(&p)*sizeof(float)*(size_t) nth;
}

// below this many multiply-adds a second thread costs more (waking it, the barrier) than it saves
#define MM_MIN_MACS_PER_THREAD (64*1024)

int ggml_cpu_matmul_n_tasks(const struct ggml_tensor * op, int n_threads) {
    if (ggml_cpu_hadamard_applies(op)) {
        return ggml_cpu_hadamard_n_tasks(op, MAX(1, n_threads));
    }
    if (ggml_cpu_matmul_q_applies(op)) {
        return ggml_cpu_matmul_q_n_tasks(op, n_threads);
    }
    if (ggml_cpu_out_prod_q_applies(op)) {
        return ggml_cpu_out_prod_q_n_tasks(op, n_threads);
    }
    struct mm_plan p;
    const int nth = MAX(1, n_threads);
    mm_make_plan(op, nth, &p);
    const double macs = (double) p.M*(double) p.N*(double) p.K*(double) p.ne2*(double) p.ne3;
    if (macs < MM_MIN_MACS_PER_THREAD) {
        return 1;
    }
    return (int) MAX((int64_t) 1, MIN((int64_t) nth, p.n_items));
}

static void mm_batch_srcs(const struct mm_plan * p, const struct ggml_tensor * op, int64_t batch,
                          struct ggml_mm_src * a, struct ggml_mm_src * b, float ** c) {
    const int64_t i2 = batch % p->ne2;
    const int64_t i3 = batch / p->ne2;
    *a = p->a;
    *b = p->b;
    a->data = (const char *) op->src[0]->data + (i2/p->r2)*p->a_nb2 + (i3/p->r3)*p->a_nb3;
    b->data = (const char *) op->src[1]->data + i2*p->b_nb2 + i3*p->b_nb3;
    *c = (float *)(void *)((char *) op->data + i2*p->c_nb2 + i3*p->c_nb3);
}

// The rows b[m] (K floats) rounded to F16 into h + m*ld, each divided by scale[m] (a power of two,
// see MM_H_CHUNK); false (nothing usable) when a row's largest |value| is not finite or its
// exponent is outside [-100, 100].
static bool mm_round_b_f16(const struct ggml_vec_funcs * vec, const float * const * b, int64_t M, int64_t K,
                           ggml_fp16_t * h, int64_t ld, float * scale) {
    float tmp[MM_H_CHUNK];
    for (int64_t m = 0; m < M; m++) {
        float amax = 0.0f;
        for (int64_t k0 = 0; k0 < K; k0 += MM_H_CHUNK) {
            const int64_t n = MIN((int64_t) MM_H_CHUNK, K - k0);
            vec->abs_f32(n, tmp, b[m] + k0);
            amax = MAX(amax, vec->max_f32(n, tmp)); // NaN ignored: it stays NaN in F16
        }
        int e = 0;
        if (amax > 0.0f) {
            if (!isfinite(amax)) {
                return false;
            }
            e = ilogbf(amax) - 14;
            if (e < -100 || e > 100) {
                return false;
            }
        }
        scale[m] = ldexpf(1.0f, e);
        const float inv = ldexpf(1.0f, -e);
        for (int64_t k0 = 0; k0 < K; k0 += MM_H_CHUNK) {
            const int64_t n = MIN((int64_t) MM_H_CHUNK, K - k0);
            vec->scale_f32(n, tmp, b[m] + k0, inv, 0.0f);
            vec->f32_to_f16(n, h + m*ld + k0, tmp);
        }
    }
    return true;
}

static void mm_zero_dst(const struct mm_plan * p, const struct ggml_compute_params * params, struct ggml_tensor * op) {
    // K == 0: every product is an empty sum
    const int64_t rows = p->M*p->ne2*p->ne3;
    int64_t r0, r1;
    ggml_cpu_split_range(rows, params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t m = r % p->M, batch = r / p->M;
        float * c;
        struct ggml_mm_src a, b;
        mm_batch_srcs(p, op, batch, &a, &b, &c);
        memset(c + m*p->ldc, 0, (size_t) p->N*sizeof(float));
    }
}

enum ggml_status ggml_cpu_matmul_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    // A hinted to be a Walsh-Hadamard matrix: the fast transform (not in the reference mode, as the
    // family); the product below when A fails the check (plan and work size are the product's)
    if (!params->use_ref && ggml_cpu_hadamard_applies(op) && ggml_cpu_hadamard_forward(params, op)) {
        return GGML_STATUS_SUCCESS;
    }
    if (ggml_cpu_matmul_q_applies(op)) {
        return ggml_cpu_matmul_q_forward(params, op);
    }
    if (ggml_cpu_out_prod_q_applies(op)) {
        return ggml_cpu_out_prod_q_forward(params, op);
    }
    if (!ggml_cpu_matmul_supports(op)) {
        GGML_LOG_ERROR("%s: %s of %s x %s into %s is not supported\n", __func__, ggml_op_desc(op),
                       op->src[0] ? ggml_type_name(op->src[0]->type) : "NULL",
                       op->src[1] ? ggml_type_name(op->src[1]->type) : "NULL", ggml_type_name(op->type));
        return GGML_STATUS_FAILED;
    }
    struct mm_plan p;
    mm_make_plan(op, params->nth, &p);
    if (p.n_items == 0) {
        return GGML_STATUS_SUCCESS;
    }
    if (p.K == 0) {
        mm_zero_dst(&p, params, op);
        return GGML_STATUS_SUCCESS;
    }

    const size_t per_thread = mm_thread_floats(&p);
    if (per_thread*sizeof(float)*(size_t) params->nth > params->wsize || (per_thread > 0 && params->wdata == NULL)) {
        GGML_LOG_ERROR("%s: %s: work buffer of %zu bytes, need %zu\n", __func__, op->name,
                       params->wsize, per_thread*sizeof(float)*(size_t) params->nth);
        return GGML_STATUS_FAILED;
    }
    float * scratch = per_thread ? (float *) params->wdata + per_thread*(size_t) params->ith : NULL;

    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    const struct ggml_mm_kernels  * kr = kt->mm;

    const int64_t per_batch = p.n_blk*p.m_blk;
    int64_t       converted = -1; // GEMV: batch whose B rows sit in scratch
    // GEMV: the copied rows of B, from the first cache line of the thread's scratch
    float * b_rows = scratch != NULL && p.gemv
        ? (float *)(void *)(((uintptr_t) scratch + 63) & ~(uintptr_t) 63) : NULL;
    const int64_t b_ld = mm_b_row_floats(&p);
    // few columns, F16 weights: the F16 rows of B (b_ld halves apart) after the float ones
    ggml_fp16_t * h_rows = MM_COLS_ROUND_B_F16 && p.cols_h && kt->gemv_cols_h != NULL
        ? (ggml_fp16_t *)(void *)(b_rows + (p.b_direct ? 0 : p.M*b_ld)) : NULL;
    float h_scale[GGML_MM_COLS_MAX];
    bool  use_h = false;
    const int h_n = (int) p.M; // every row: measured no slower than F16 in passes of 4 only
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < p.n_items; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t batch = it / per_batch;
        const int64_t rest  = it % per_batch;
        struct ggml_mm_src a, b;
        float * c;
        mm_batch_srcs(&p, op, batch, &a, &b, &c);

        if (p.gemv) {
            const bool    head = rest < p.n_head;
            const int64_t n0 = head ? rest*p.nci : p.n_head*p.nci + (rest - p.n_head)*p.nci_tail;
            const int64_t nn = MIN(head ? p.nci : p.nci_tail, p.N - n0);
            const float * brow[GGML_MM_COLS_MAX];
            for (int64_t m = 0; m < p.M; m++) {
                if (p.b_direct) {
                    brow[m] = (const float *)(const void *)(b.data + m*b.s_r);
                } else {
                    float * dstrow = b_rows + m*b_ld;
                    if (converted != batch) {
                        ggml_mm_load_f32(b.type, b.data + m*b.s_r, b.s_k, p.K, dstrow);
                    }
                    brow[m] = dstrow;
                }
            }
            if (h_rows != NULL && converted != batch) {
                use_h = mm_round_b_f16(kt->vec, brow, h_n, p.K, h_rows, b_ld, h_scale);
            }
            converted = batch;
            if (use_h) {
                const ggml_fp16_t * hrow[GGML_MM_COLS_MAX];
                for (int64_t m = 0; m < p.M; m++) {
                    hrow[m] = h_rows + m*b_ld;
                }
                kt->gemv_cols_h(&a, n0, nn, p.K, brow, hrow, h_n, (int) p.M, c + n0, p.ldc);
                for (int64_t m = 0; m < h_n; m++) {
                    if (h_scale[m] != 1.0f) {
                        kt->vec->scale_f32(nn, c + m*p.ldc + n0, c + m*p.ldc + n0, h_scale[m], 0.0f);
                    }
                }
            } else {
                (p.cols ? kt->gemv_cols : kr->gemv)(&a, n0, nn, p.K, brow, (int) p.M, c + n0, p.ldc);
            }
        } else {
            const int64_t nb_i = rest / p.m_blk;
            const int64_t mb_i = rest % p.m_blk;
            const int64_t n0 = nb_i*p.nci, nn = MIN(p.nci, p.N - n0);
            const int64_t m0 = mb_i*p.mci, mm = MIN(p.mci, p.M - m0);
            ggml_mm_gemm_block(kr, &a, &b, m0, mm, n0, nn, p.K, c + m0*p.ldc + n0, p.ldc, scratch);
        }
    }
    return GGML_STATUS_SUCCESS;
}
