#pragma once

// The CPU backend's kernel interface.
//
// The framework (ggml-cpu-graph.c, ggml-cpu-threadpool.c, ggml-cpu-ops.c) walks a graph on a pool
// of threads; every op is computed by one "family" of kernels living in its own file
// src/ggml-cpu/ops-<family>.c. ggml-cpu-ops.c maps each enum ggml_op to a family (a table) and
// calls the family's four functions declared at the end of this header.
//
// How a node is computed
//   1. Planning (once per graph): supports(node) must be true, else the whole graph fails with
//      GGML_STATUS_FAILED before anything is computed. work_size(node, n_threads) gives the scratch
//      bytes the node needs; the plan takes the maximum over the nodes. (ggml_graph_compute asks
//      work_size again with the thread count it actually got, and fails if the buffer is short.)
//   2. Compute: the threads the schedule's largest entry uses (thread 0 alone for a graph of tiny
//      nodes) walk the schedule (ggml-cpu-graph-sched.c). Views and nodes without
//      GGML_TENSOR_FLAG_COMPUTE are skipped; for the others nth = n_tasks(node, n_threads), clamped;
//      threads with ith < nth call forward(params, node), the others go on to the next entry.
//   3. After the node: thread 0 polls the abort callback; a barrier follows unless the schedule
//      leaves it out (nodes thread 0 runs alone, or nodes touching nothing the others write).
//
// Rules for a forward function
//   * Split the work by params->ith / params->nth yourself (typically rows, see
//     ggml_cpu_split_range), or pull chunks with ggml_cpu_chunk_next.
//   * The work buffer params->wdata (params->wsize bytes, 64-byte aligned, may be NULL when
//     work_size returned 0) is shared by all threads; carve per-thread slices out of it yourself
//     (e.g. slice ith at wdata + ith*per_thread, with work_size returning per_thread*n_threads).
//     It holds garbage on entry.
//   * ggml_cpu_barrier(params->threadpool) waits for ALL threads of the graph. Call it only in a
//     forward whose n_tasks returned n_threads (so params->nth is the whole pool), and make every
//     thread call it the same number of times, whatever happens (also on an error path):
//     otherwise the graph deadlocks.
//   * Return GGML_STATUS_SUCCESS, or an error status (logged with GGML_LOG_ERROR naming the op and
//     the problem). The graph then stops after this node and ggml_graph_compute returns that
//     status. Never abort, never assert on anything input can reach.
//   * Sources may be non-contiguous (views, permutes): read through ne/nb unless supports()
//     requires contiguity.
//
// Rules for supports(): it must tell the truth for every op/type/shape the table routes to the
// family (return false for anything the forward cannot compute); it must be cheap and must not
// log (the scheduler calls it for every node). n_tasks and work_size are only called for nodes
// whose supports() returned true.

#include "ggml-impl.h"
#include "ggml-cpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// cache line size assumed for padding shared data between threads
#define GGML_CPU_CACHE_LINE 64

struct ggml_compute_params {
    int ith;   // this thread's index, 0 <= ith < nth
    int nth;   // threads working on this node (the family's n_tasks, clamped to the pool)

    size_t wsize; // bytes of the shared work buffer
    void * wdata; // the shared work buffer (64-byte aligned; NULL when wsize == 0)

    struct ggml_threadpool * threadpool; // for ggml_cpu_barrier / ggml_cpu_chunk_next

    bool use_ref; // reference mode (ggml_backend_cpu_set_use_ref): prefer the plain code paths
};

// Waits until every thread of the current graph has arrived (spins ~50 us, then sleeps on a futex;
// the last to arrive wakes the sleepers). After it returns, the chunk counter is 0 again.
void ggml_cpu_barrier(struct ggml_threadpool * tp);

// Dynamic chunking: returns 0, 1, 2, ... to successive callers (an atomic fetch-add shared by the
// threads of the graph). The counter is 0 when a node starts and is reset to 0 by every
// ggml_cpu_barrier, so the usual loop needs no set-up:
//     for (int c = ggml_cpu_chunk_next(tp); c < n_chunks; c = ggml_cpu_chunk_next(tp)) { ... }
// Each call is acquire-release: the thread whose call returns n_chunks + nth - 1 (the last of the
// nth threads' calls past the end) sees everything the others wrote before leaving the loop.
int ggml_cpu_chunk_next(struct ggml_threadpool * tp);
// Sets the chunk counter to 0 (the graph walker, between nodes that thread 0 runs alone).
void ggml_cpu_chunk_reset(struct ggml_threadpool * tp);

// The graph walker's chunk slots: nodes that run without a barrier between them each count their
// chunks in their own slot. ggml_cpu_chunk_select(slot, n_dirty) makes this thread's
// ggml_cpu_chunk_next / ggml_cpu_chunk_reset use `slot`; a barrier resets slots 0 .. n_dirty-1.
// (ggml_cpu_chunk_select(0, 1) is the state every other job sees.)
#define GGML_CPU_CHUNK_SLOTS 8
void ggml_cpu_chunk_select(int slot, int n_dirty);

// [*start, *end) = the ith of nth nearly equal parts of [0, n).
static inline void ggml_cpu_split_range(int64_t n, int ith, int nth, int64_t * start, int64_t * end) {
    const int64_t per  = n / nth;
    const int64_t rest = n % nth;
    *start = ith*per + (ith < rest ? ith : rest);
    *end   = *start + per + (ith < rest ? 1 : 0);
}

//
// Op families. Each family file ops-<family>.c defines these four functions.
//
//   unary  : UNARY (every enum ggml_unary_op), GLU, LEAKY_RELU, CLAMP, SCALE, SQR, SQRT, LOG, SIN,
//            COS, ARANGE, FILL
//   binary : ADD, SUB, MUL, DIV, ADD1, ACC, SET, REPEAT, CONCAT
//   copy   : DUP, CPY, CONT, GET_ROWS, SET_ROWS, PAD
//   reduce : SUM, SUM_ROWS, MEAN, ARGMAX, ARGSORT, TOP_K
//   norm   : NORM, RMS_NORM, L2_NORM, GROUP_NORM, SOFT_MAX, DIAG_MASK_INF, DIAG_MASK_ZERO
//   rope   : ROPE, ROPE_BACK
//   matmul : MUL_MAT, OUT_PROD
//   moe    : MUL_MAT_ID, ADD_ID (cpu-ops-matmul-id.c)
//   conv   : IM2COL, CONV_2D, POOL_2D
//   attn   : FLASH_ATTN_EXT
//   backward: REPEAT_BACK, SILU_BACK, RMS_NORM_BACK, GET_ROWS_BACK, SOFT_MAX_BACK, COUNT_EQUAL,
//            CROSS_ENTROPY_LOSS(_BACK), OPT_STEP_ADAMW, OPT_STEP_SGD (training)
//   seq    : SSM_CONV, SSM_SCAN, RWKV_WKV6, GATED_LINEAR_ATTN, RWKV_WKV7, SOLVE_TRI, GATED_DELTA_NET
//   shape2 : UPSCALE, WIN_PART, WIN_UNPART, GET_REL_POS, ADD_REL_POS, COL2IM_1D, IM2COL_BACK,
//            FLASH_ATTN_BACK (cpu-ops-shape2.c)
//
// The CUSTOM / MAP_CUSTOM1..3 ops are handled by the framework itself (ggml-cpu-ops.c).
//

enum ggml_cpu_family {
    GGML_CPU_FAMILY_UNSUPPORTED = 0, // ops no family computes (supports_op is false)
    GGML_CPU_FAMILY_NONE,            // nothing to compute: NONE and the views
    GGML_CPU_FAMILY_UNARY,
    GGML_CPU_FAMILY_BINARY,
    GGML_CPU_FAMILY_COPY,
    GGML_CPU_FAMILY_REDUCE,
    GGML_CPU_FAMILY_NORM,
    GGML_CPU_FAMILY_ROPE,
    GGML_CPU_FAMILY_MATMUL,
    GGML_CPU_FAMILY_CONV,
    GGML_CPU_FAMILY_ATTN,
    GGML_CPU_FAMILY_MOE,
    GGML_CPU_FAMILY_MISC,            // issue 22's small ops (cpu-ops-misc.c)
    GGML_CPU_FAMILY_CUSTOM,          // implemented in ggml-cpu-ops.c
    GGML_CPU_FAMILY_BACKWARD,
    GGML_CPU_FAMILY_SEQ,             // issue 22's sequence-model ops (cpu-ops-seq.c)
    GGML_CPU_FAMILY_SHAPE2,          // issue 22's shape2 group (cpu-ops-shape2.c)
    GGML_CPU_FAMILY_DSV4,            // lightning indexer and hyper-connections (cpu-ops-dsv4.c)
    GGML_CPU_FAMILY_COUNT,
};

// family of an op (GGML_CPU_FAMILY_UNSUPPORTED for ops no family computes)
enum ggml_cpu_family ggml_cpu_op_family(enum ggml_op op);

bool             ggml_cpu_unary_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_unary_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_unary_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_unary_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_binary_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_binary_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_binary_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_binary_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_copy_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_copy_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_copy_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_copy_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_reduce_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_reduce_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_reduce_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_reduce_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_norm_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_norm_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_norm_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_norm_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_rope_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_rope_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_rope_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_rope_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_matmul_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_matmul_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_matmul_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_matmul_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_conv_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_conv_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_conv_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_conv_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_attn_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_attn_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_attn_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_attn_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_moe_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_moe_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_moe_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_moe_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);
bool             ggml_cpu_misc_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_misc_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_misc_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_misc_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_dsv4_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_dsv4_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_dsv4_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_dsv4_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);
bool             ggml_cpu_backward_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_backward_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_backward_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_backward_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);
bool             ggml_cpu_shape2_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_shape2_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_shape2_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_shape2_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

bool             ggml_cpu_seq_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_seq_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_seq_n_tasks  (const struct ggml_tensor * op, int n_threads);
enum ggml_status ggml_cpu_seq_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);

//
// Dispatch (ggml-cpu-ops.c): what the framework calls for any node.
//

bool             ggml_cpu_op_supports (const struct ggml_tensor * op);
size_t           ggml_cpu_op_work_size(const struct ggml_tensor * op, int n_threads);
int              ggml_cpu_op_n_tasks  (const struct ggml_tensor * op, int n_threads); // 1..n_threads
enum ggml_status ggml_cpu_op_forward  (const struct ggml_compute_params * params, struct ggml_tensor * op);
// views and nodes with op NONE: nothing to compute
bool             ggml_cpu_op_is_noop  (const struct ggml_tensor * op);

//
// Custom ops (the family's GGML_OP_CUSTOM / GGML_OP_MAP_CUSTOM1..3). The node's op_params start
// with one of these structs (the family's layout); the function is called on n_tasks threads
// (GGML_N_TASKS_MAX: all of them).
//

#ifndef GGML_N_TASKS_MAX
#    define GGML_N_TASKS_MAX (-1)
#endif

typedef void (*ggml_cpu_custom_fn)(struct ggml_tensor * dst, int ith, int nth, void * userdata);
typedef void (*ggml_cpu_custom1_fn)(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * userdata);
typedef void (*ggml_cpu_custom2_fn)(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b, int ith, int nth, void * userdata);
typedef void (*ggml_cpu_custom3_fn)(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b, const struct ggml_tensor * c, int ith, int nth, void * userdata);

// op_params layout of CUSTOM and MAP_CUSTOM1..3: struct ggml_custom_op_params (ggml-impl.h)

//
// Framework internals (threadpool, graph executor, features) -- kernels do not need these.
//

// Runs fn(params, user_data) on n_threads threads of tp (thread 0 is the caller), as one kickoff:
// params have ith, nth = the threads used, threadpool = tp, no work buffer. n_threads is clamped
// to the pool's size. Returns the number of threads used, 0 on bad arguments or a busy pool.
typedef void (*ggml_cpu_thread_fn)(const struct ggml_compute_params * params, void * user_data);
int ggml_cpu_threadpool_run(struct ggml_threadpool * tp, int n_threads, ggml_cpu_thread_fn fn, void * user_data);

// Runs job_fn(tp, ith, job) on threads 0..n-1 (n = min(n_threads, pool size)), then waits for all
// of them (a final barrier). One job at a time per pool. Returns n, or 0 on failure (logged).
int ggml_cpu_threadpool_execute(struct ggml_threadpool * tp, int n_threads,
        void (*job_fn)(struct ggml_threadpool * tp, int ith, void * job), void * job);

// test hooks (ggml_test_control ops GGML_TEST_CPU_*): limit on the worker threads
// ggml_threadpool_new may still create, whether a pool is paused, how many workers sleep
int ggml_cpu_test_control(int op, va_list args);

// logs "<func>: node <i> (<name>): op <op> ... not supported" with the types and shapes involved
void ggml_cpu_log_unsupported(const char * func, int i, const struct ggml_tensor * node);

// CPU features of the machine (probed once, thread-safe). Kernels choose their SIMD level with
// ggml_cpu_isa() from ggml-cpu-isa.h instead.
struct ggml_cpu_features {
    bool sse3, ssse3, avx, avx_vnni, avx2, bmi2, f16c, fma;
    bool avx512, avx512_vbmi, avx512_vnni, avx512_bf16, amx_int8;
    bool neon, arm_fma, fp16_va, dotprod, matmul_int8, sve, sme, sme2;
    int  sve_cnt;
    bool riscv_v, vsx, vxe, wasm_simd;
};
const struct ggml_cpu_features * ggml_cpu_get_features(void);

#ifdef __cplusplus
}
#endif
