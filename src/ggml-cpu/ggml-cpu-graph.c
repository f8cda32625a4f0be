// Graph planning and computation on the CPU: ggml_graph_plan, ggml_graph_compute,
// ggml_graph_compute_with_ctx.
//
// Every thread walks every node; a node is computed by the first n_tasks threads, then thread 0
// polls the abort callback and all threads meet at the barrier (except between two nodes that
// thread 0 runs alone). A failed node or an abort
// records the node index in `stop_node`; since that is written before the node's barrier and
// read after it, every thread leaves the loop at the same node.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-profile.h"
#include "cpu-ops-fused.h"
#include "ggml-backend.h"
#include "ggml-tensor-helpers.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

struct graph_job {
    struct ggml_cgraph      * cgraph;
    const struct ggml_cplan * cplan;
    void                    * wdata;
    size_t                    wsize;
    int                       n_threads;
    atomic_int                stop_node; // INT_MAX: keep going
    atomic_int                status;    // first error (GGML_STATUS_SUCCESS while none)
    struct ggml_cpu_profile * profile;   // GGML_CPU_PROFILE: thread 0's timings, else NULL
};

static void graph_job_stop(struct graph_job * job, int node_n, enum ggml_status status) {
    int expected = GGML_STATUS_SUCCESS;
    atomic_compare_exchange_strong(&job->status, &expected, (int) status);
    int cur = atomic_load(&job->stop_node);
    while (node_n < cur && !atomic_compare_exchange_weak(&job->stop_node, &cur, node_n)) {
        // cur was reloaded; retry while ours is still the smaller index
    }
}

// views, nodes the graph does not compute, and results without elements (nothing to write)
static inline bool graph_node_skipped(const struct ggml_tensor * node) {
    return ggml_cpu_op_is_noop(node) || (node->flags & GGML_TENSOR_FLAG_COMPUTE) == 0 || ggml_is_empty(node);
}


// Nodes at most this large whose op would split them run on one thread: a rotation of a few
// hundred elements costs less than waking the second thread (ROPE's own rule splits any two rows).
#define GRAPH_SOLO_ELEMS 4096

static int graph_n_tasks(const struct ggml_tensor * node, int n_threads) {
    const int nth = ggml_cpu_op_n_tasks(node, n_threads);
    if (nth > 1 && node->op == GGML_OP_ROPE && ggml_nelements(node) <= GRAPH_SOLO_ELEMS) {
        return 1;
    }
    return nth;
}

// the first node at or after i that is computed (n_nodes when none)
static int graph_next_computed(const struct ggml_cgraph * cgraph, int i) {
    while (i < cgraph->n_nodes && graph_node_skipped(cgraph->nodes[i])) {
        i++;
    }
    return i;
}

// Between two nodes that both run on thread 0 alone the barrier is left out: thread 0's program
// order already orders them, and the other threads touch neither (they wait at the next barrier
// kept). Thread 0 resets the chunk counter itself there. Every thread takes the same decisions
// (they depend on the graph only), so all meet at the same barriers; a stop inside such a run is
// seen by thread 0 at once (it alone computes there), which walks on without computing to the
// run's barrier, where every thread sees it.
static void graph_compute_thread(struct ggml_threadpool * tp, int ith, void * data) {
    struct graph_job * job = data;
    const struct ggml_cplan * cplan  = job->cplan;
    struct ggml_cgraph      * cgraph = job->cgraph;
    const int n = job->n_threads;

    struct ggml_compute_params params = {
        .ith        = ith,
        .nth        = n,
        .wsize      = job->wsize,
        .wdata      = job->wdata,
        .threadpool = tp,
        .use_ref    = cplan->use_ref,
    };

    // per-node timing by thread 0 (GGML_CPU_PROFILE)
    struct ggml_cpu_profile * prof = ith == 0 ? job->profile : NULL;

    bool stopped = false; // thread 0 only: a stop inside a run without barriers
    int i   = graph_next_computed(cgraph, 0);
    int nth = i < cgraph->n_nodes ? graph_n_tasks(cgraph->nodes[i], n) : 0;
    while (i < cgraph->n_nodes) {
        struct ggml_tensor * node = cgraph->nodes[i];
        int next = graph_next_computed(cgraph, i + 1);
        // RMS_NORM and the MUL by its weight after it: one node (the plain path keeps them apart)
        struct ggml_tensor * fused = NULL;
        if (!cplan->use_ref && next < cgraph->n_nodes && ggml_cpu_fused_rms_norm_mul_applies(node, cgraph->nodes[next])) {
            fused = cgraph->nodes[next];
            next  = graph_next_computed(cgraph, next + 1);
        }
        const int64_t t0 = prof != NULL ? ggml_cpu_profile_now_ns() : 0;
        if (ith < nth && !stopped) {
            params.nth = nth;
            if (fused != NULL) {
                ggml_cpu_fused_rms_norm_mul_forward(&params, node, fused);
            } else {
                const enum ggml_status st = ggml_cpu_op_forward(&params, node);
                if (st != GGML_STATUS_SUCCESS) {
                    graph_job_stop(job, i, st);
                }
            }
        }
        if (ith == 0 && cplan->abort_callback != NULL && cplan->abort_callback(cplan->abort_callback_data)) {
            graph_job_stop(job, i, GGML_STATUS_ABORTED);
        }
        const int64_t t1 = prof != NULL ? ggml_cpu_profile_now_ns() : 0;
        const int nth_next = next < cgraph->n_nodes ? graph_n_tasks(cgraph->nodes[next], n) : 0;
        const bool solo    = n > 1 && nth == 1 && nth_next == 1;
        if (solo) {
            if (ith == 0) {
                ggml_cpu_chunk_reset(tp);
                stopped = stopped || atomic_load_explicit(&job->stop_node, memory_order_relaxed) <= i;
            }
        } else {
            ggml_cpu_barrier(tp);
        }
        if (prof != NULL) {
            const int k = ggml_cpu_profile_key(node);
            const int64_t t2 = ggml_cpu_profile_now_ns();
            prof->node_ns[k] += t1 - t0;
            prof->wait_ns[k] += t2 - t1;
            prof->count[k]++;
            prof->n_barriers += solo ? 0 : 1;
            prof->n_skipped  += solo ? 1 : 0;
        }
        if (!solo && atomic_load_explicit(&job->stop_node, memory_order_relaxed) <= i) {
            break;
        }
        i   = next;
        nth = nth_next;
    }
}

struct ggml_cplan ggml_graph_plan(const struct ggml_cgraph * cgraph, int n_threads, struct ggml_threadpool * threadpool) {
    struct ggml_cplan cplan;
    memset(&cplan, 0, sizeof(cplan));

    if (cgraph == NULL) {
        GGML_LOG_ERROR("%s: cgraph is NULL\n", __func__);
        return cplan;
    }
    if (cgraph->overflow) {
        GGML_LOG_ERROR("%s: the graph overflowed (more tensors than its size %d): it is incomplete and cannot be computed\n",
                __func__, cgraph->size);
        return cplan;
    }

    ggml_cpu_init();

    if (threadpool != NULL) {
        n_threads = ggml_threadpool_get_n_threads(threadpool);
    } else if (n_threads <= 0) {
        n_threads = GGML_DEFAULT_N_THREADS;
    }
    if (n_threads > GGML_MAX_N_THREADS) {
        n_threads = GGML_MAX_N_THREADS;
    }

    size_t work_size = 0;
    int    max_tasks = 1;
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        if (node == NULL || graph_node_skipped(node) || !ggml_cpu_op_supports(node)) {
            continue; // unsupported nodes are reported by ggml_graph_compute
        }
        const int nt = ggml_cpu_op_n_tasks(node, n_threads);
        if (nt > max_tasks) {
            max_tasks = nt;
        }
        const size_t ws = ggml_cpu_op_work_size(node, n_threads);
        if (ws > work_size) {
            work_size = ws;
        }
    }
    if (work_size > 0) {
        // room to keep the threads' slices on separate cache lines and to align the buffer
        work_size += (size_t) GGML_CPU_CACHE_LINE * (size_t) n_threads;
    }

    cplan.threadpool = threadpool;
    cplan.n_threads  = max_tasks < n_threads ? max_tasks : n_threads;
    cplan.work_size  = work_size;
    cplan.work_data  = NULL;
    return cplan;
}

// Checks every node before anything is computed; returns the work bytes needed with n threads,
// or SIZE_MAX when a node cannot be computed (logged).
static size_t graph_check(struct ggml_cgraph * cgraph, int n_threads) {
    size_t need = 0;
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        if (node == NULL) {
            GGML_LOG_ERROR("ggml_graph_compute: node %d is NULL\n", i);
            return SIZE_MAX;
        }
        if (graph_node_skipped(node)) {
            continue;
        }
        if (!ggml_cpu_op_supports(node)) {
            ggml_cpu_log_unsupported("ggml_graph_compute", i, node);
            return SIZE_MAX;
        }
        if (node->data == NULL && ggml_nbytes(node) > 0) {
            GGML_LOG_ERROR("ggml_graph_compute: node %d '%s' (%s) has no data (not allocated)\n", i, node->name, ggml_op_desc(node));
            return SIZE_MAX;
        }
        for (int j = -1; j < GGML_MAX_SRC; j++) {
            const struct ggml_tensor * t = j < 0 ? node : node->src[j];
            if (t != NULL && !ggml_tensor_in_host_memory(t)) {
                GGML_LOG_ERROR("ggml_graph_compute: node %d '%s' (%s): tensor '%s' is in buffer %s, which is not host memory\n",
                        i, node->name, ggml_op_desc(node), t->name,
                        ggml_backend_buffer_name(ggml_tensor_data_buffer(t)));
                return SIZE_MAX;
            }
        }
        const size_t ws = ggml_cpu_op_work_size(node, n_threads);
        if (ws > need) {
            need = ws;
        }
    }
    return need;
}

enum ggml_status ggml_graph_compute(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan) {
    if (cgraph == NULL || cplan == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, cgraph == NULL ? "cgraph" : "cplan");
        return GGML_STATUS_FAILED;
    }
    if (cgraph->overflow) {
        GGML_LOG_ERROR("%s: the graph overflowed (more tensors than its size %d): it is incomplete and cannot be computed\n",
                __func__, cgraph->size);
        return GGML_STATUS_FAILED;
    }
    if (cplan->n_threads <= 0) {
        GGML_LOG_ERROR("%s: invalid plan (n_threads = %d): ggml_graph_plan failed for this graph\n", __func__, cplan->n_threads);
        return GGML_STATUS_FAILED;
    }
    if (cplan->work_size > 0 && cplan->work_data == NULL) {
        GGML_LOG_ERROR("%s: the plan needs a work buffer of %zu bytes but work_data is NULL\n", __func__, cplan->work_size);
        return GGML_STATUS_FAILED;
    }

    ggml_cpu_init();

    struct ggml_threadpool * tp = cplan->threadpool;
    bool disposable = false;
    if (tp == NULL) {
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(cplan->n_threads);
        tp = ggml_threadpool_new(&tpp);
        if (tp == NULL) {
            GGML_LOG_ERROR("%s: cannot create a threadpool of %d threads\n", __func__, cplan->n_threads);
            return GGML_STATUS_ALLOC_FAILED;
        }
        disposable = true;
    }

    int n_threads = cplan->n_threads;
    const int tp_threads = ggml_threadpool_get_n_threads(tp);
    if (n_threads > tp_threads) {
        n_threads = tp_threads;
    }

    // the work buffer is used from a cache-line boundary; the plan's padding pays for that
    uint8_t * wdata = NULL;
    size_t    wsize = 0;
    if (cplan->work_size > 0) {
        const uintptr_t p = (uintptr_t) cplan->work_data;
        const uintptr_t a = (p + GGML_CPU_CACHE_LINE - 1) & ~(uintptr_t) (GGML_CPU_CACHE_LINE - 1);
        if (a - p < cplan->work_size) {
            wdata = (uint8_t *) cplan->work_data + (a - p);
            wsize = cplan->work_size - (a - p);
        }
    }

    enum ggml_status result;
    const size_t need = graph_check(cgraph, n_threads);
    if (need == SIZE_MAX) {
        result = GGML_STATUS_FAILED;
    } else if (need > wsize) {
        GGML_LOG_ERROR("%s: the work buffer is too small: %zu bytes usable, %zu needed with %d threads (use the work_size of ggml_graph_plan)\n",
                __func__, wsize, need, n_threads);
        result = GGML_STATUS_FAILED;
    } else {
        struct graph_job job = {
            .cgraph    = cgraph,
            .cplan     = cplan,
            .wdata     = wsize > 0 ? wdata : NULL,
            .wsize     = wsize,
            .n_threads = n_threads,
        };
        atomic_init(&job.stop_node, INT_MAX);
        atomic_init(&job.status, GGML_STATUS_SUCCESS);
        struct ggml_cpu_profile * prof = NULL;
        if (ggml_cpu_profile_enabled()) {
            prof = ggml_calloc(1, sizeof(*prof)); // no profile when out of memory
        }
        job.profile = prof;
        const int64_t t0 = prof != NULL ? ggml_cpu_profile_now_ns() : 0;
        if (ggml_cpu_threadpool_execute(tp, n_threads, graph_compute_thread, &job) == 0) {
            result = GGML_STATUS_FAILED;
        } else {
            result = (enum ggml_status) atomic_load(&job.status);
        }
        if (prof != NULL) {
            ggml_cpu_profile_add(prof, ggml_cpu_profile_now_ns() - t0);
            ggml_free_mem(prof);
        }
    }

    if (disposable) {
        ggml_threadpool_free(tp);
    }
    return result;
}

enum ggml_status ggml_graph_compute_with_ctx(struct ggml_context * ctx, struct ggml_cgraph * cgraph, int n_threads) {
    if (ctx == NULL || cgraph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, ctx == NULL ? "ctx" : "cgraph");
        return GGML_STATUS_FAILED;
    }
    struct ggml_cplan cplan = ggml_graph_plan(cgraph, n_threads, NULL);
    if (cplan.n_threads <= 0) {
        return GGML_STATUS_FAILED;
    }
    if (cplan.work_size > 0) {
        cplan.work_data = ggml_new_buffer(ctx, cplan.work_size);
        if (cplan.work_data == NULL) {
            GGML_LOG_ERROR("%s: the context has no room for the work buffer of %zu bytes\n", __func__, cplan.work_size);
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    return ggml_graph_compute(cgraph, &cplan);
}
