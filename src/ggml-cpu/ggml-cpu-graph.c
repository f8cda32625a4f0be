// Graph planning and computation on the CPU: ggml_graph_plan, ggml_graph_compute,
// ggml_graph_compute_with_ctx.
//
// Every thread walks the schedule (ggml-cpu-graph-sched.h); an entry is computed by the first nth
// threads, then thread 0 polls the abort callback, and all threads meet at the barrier when the
// schedule keeps one after the entry. A failed node or an abort records the node index in
// `stop_node`; since that is written before the next barrier and read after it, every thread
// leaves the loop at the same barrier. Between two barriers the entries are independent, so a
// stop there is only checked (to skip thread 0's own nodes) and takes effect at the barrier.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-graph-sched.h"
#include "ggml-cpu-profile.h"
#include "cpu-ops-fused.h"
#include "ggml-backend.h"
#include "ggml-tensor-helpers.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

struct graph_job {
    struct ggml_cgraph          * cgraph;
    const struct ggml_cplan     * cplan;
    const struct ggml_cpu_sched * sched;
    uint8_t                     * wdata;
    size_t                        wsize;
    int                           n_threads;
    atomic_int                    stop_node; // INT_MAX: keep going
    atomic_int                    status;    // first error (GGML_STATUS_SUCCESS while none)
    struct ggml_cpu_profile     * profile;   // GGML_CPU_PROFILE: thread 0's timings, else NULL
};

static void graph_job_stop(struct graph_job * job, int node_n, enum ggml_status status) {
    int expected = GGML_STATUS_SUCCESS;
    atomic_compare_exchange_strong(&job->status, &expected, (int) status);
    int cur = atomic_load(&job->stop_node);
    while (node_n < cur && !atomic_compare_exchange_weak(&job->stop_node, &cur, node_n)) {
        // cur was reloaded; retry while ours is still the smaller index
    }
}

static void graph_compute_thread(struct ggml_threadpool * tp, int ith, void * data) {
    struct graph_job * job = data;
    const struct ggml_cplan     * cplan  = job->cplan;
    const struct ggml_cpu_sched * sched  = job->sched;
    struct ggml_cgraph          * cgraph = job->cgraph;

    struct ggml_compute_params params = {
        .ith        = ith,
        .nth        = job->n_threads,
        .wsize      = 0,
        .wdata      = NULL,
        .threadpool = tp,
        .use_ref    = cplan->use_ref,
    };

    // per-node timing by thread 0 (GGML_CPU_PROFILE)
    struct ggml_cpu_profile * prof = ith == 0 ? job->profile : NULL;

    bool stopped = false; // a stop seen between two barriers: thread 0's own nodes are skipped
    for (int k = 0; k < sched->n_entries; k++) {
        const struct ggml_cpu_sched_entry * e = &sched->entries[k];
        struct ggml_tensor * node = cgraph->nodes[e->node];
        ggml_cpu_chunk_select(e->slot, e->n_dirty);
        const int64_t t0 = prof != NULL ? ggml_cpu_profile_now_ns() : 0;
        if (ith < e->nth && !(stopped && e->nth == 1)) {
            params.nth   = e->nth;
            params.wdata = e->work_size > 0 ? job->wdata + e->work_off : NULL;
            params.wsize = e->work_size > 0 ? e->work_size : 0;
            if (e->nth == 1) {
                ggml_cpu_chunk_reset(tp); // thread 0's slot, used by every node it runs alone
            }
            if (e->fused >= 0 && node->op == GGML_OP_SSM_CONV) {
                ggml_cpu_fused_ssm_conv_forward(&params, node, e->fused_mid >= 0 ? cgraph->nodes[e->fused_mid] : NULL,
                                                cgraph->nodes[e->fused]);
            } else if (e->fused >= 0) {
                ggml_cpu_fused_rms_norm_mul_forward(&params, node, cgraph->nodes[e->fused]);
            } else {
                const enum ggml_status st = ggml_cpu_op_forward(&params, node);
                if (st != GGML_STATUS_SUCCESS) {
                    graph_job_stop(job, e->node, st);
                }
            }
        }
        if (ith == 0 && !stopped && cplan->abort_callback != NULL && cplan->abort_callback(cplan->abort_callback_data)) {
            graph_job_stop(job, e->node, GGML_STATUS_ABORTED);
        }
        const int64_t t1 = prof != NULL ? ggml_cpu_profile_now_ns() : 0;
        // the last entry needs none: the pool's barrier after the job follows
        const bool barrier = e->barrier_after && k + 1 < sched->n_entries;
        if (barrier) {
            ggml_cpu_barrier(tp);
        }
        if (prof != NULL) {
            const int key = ggml_cpu_profile_key(node);
            const int64_t t2 = ggml_cpu_profile_now_ns();
            prof->node_ns[key] += t1 - t0;
            prof->wait_ns[key] += t2 - t1;
            prof->count[key]++;
            prof->n_barriers += barrier ? 1 : 0;
            prof->n_skipped  += barrier ? 0 : 1;
        }
        const bool stop = atomic_load_explicit(&job->stop_node, memory_order_relaxed) <= e->node;
        if (barrier && stop) {
            break;
        }
        stopped = stopped || stop;
    }
    ggml_cpu_chunk_select(0, 1);
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

    int max_tasks = 1;
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        if (node == NULL || ggml_cpu_sched_node_skipped(node) || !ggml_cpu_op_supports(node)) {
            continue; // unsupported nodes are reported by ggml_graph_compute
        }
        const int nt = ggml_cpu_op_n_tasks(node, n_threads);
        if (nt > max_tasks) {
            max_tasks = nt;
        }
    }
    if (max_tasks < n_threads) {
        n_threads = max_tasks;
    }
    // the work parts of the schedule ggml_graph_compute will build (nodes without data yet look
    // independent, so this is at least what it needs once they have it; it falls back to the
    // schedule without left-out barriers when the buffer is short)
    struct ggml_cpu_sched sched;
    memset(&sched, 0, sizeof(sched));
    size_t work_size = 0;
    if (ggml_cpu_sched_build(&sched, cgraph, n_threads, false, true, NULL)) {
        work_size = sched.work_size;
    }
    const size_t plain = ggml_cpu_sched_plain_work_size(cgraph, n_threads);
    work_size = plain > work_size ? plain : work_size;
    ggml_cpu_sched_free(&sched);
    if (work_size > 0) {
        // room to keep the threads' slices on separate cache lines and to align the buffer
        work_size += (size_t) GGML_CPU_CACHE_LINE * (size_t) n_threads;
    }

    cplan.threadpool = threadpool;
    cplan.n_threads  = n_threads;
    cplan.work_size  = work_size;
    cplan.work_data  = NULL;
    return cplan;
}

enum ggml_status ggml_cpu_graph_plan_sched(const struct ggml_cgraph * cgraph, int n_threads, struct ggml_threadpool * tp,
                                           bool use_ref, struct ggml_cpu_sched * sched, struct ggml_cplan * cplan) {
    memset(cplan, 0, sizeof(*cplan));
    if (cgraph == NULL || cgraph->overflow) {
        *cplan = ggml_graph_plan(cgraph, n_threads, tp); // logs why
        return GGML_STATUS_FAILED;
    }
    ggml_cpu_init();
    if (tp != NULL) {
        n_threads = ggml_threadpool_get_n_threads(tp);
    } else if (n_threads <= 0) {
        n_threads = GGML_DEFAULT_N_THREADS;
    }
    if (n_threads > GGML_MAX_N_THREADS) {
        n_threads = GGML_MAX_N_THREADS;
    }
    if (!ggml_cpu_sched_build(sched, cgraph, n_threads, use_ref, true, "ggml_graph_compute")) {
        return sched->oom ? GGML_STATUS_ALLOC_FAILED : GGML_STATUS_FAILED;
    }
    // the threads the entries use (a graph of thread-0 nodes wakes no worker); the entries do not
    // change with fewer threads than that
    sched->n_threads  = sched->max_nth;
    cplan->threadpool = tp;
    cplan->n_threads  = sched->max_nth;
    cplan->use_ref    = use_ref;
    cplan->work_size  = sched->work_size > 0 ? sched->work_size + (size_t) GGML_CPU_CACHE_LINE * (size_t) n_threads : 0;
    return GGML_STATUS_SUCCESS;
}

enum ggml_status ggml_graph_compute(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan) {
    return ggml_cpu_graph_compute_sched(cgraph, cplan, NULL);
}

enum ggml_status ggml_cpu_graph_compute_sched(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan, struct ggml_cpu_sched * cache) {
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

    enum ggml_status result = GGML_STATUS_FAILED;
    struct ggml_cpu_sched own;
    memset(&own, 0, sizeof(own));
    struct ggml_cpu_sched * sched = cache != NULL ? cache : &own;
    // a schedule planned for this compute (ggml_cpu_graph_plan_sched) is used as it is
    bool ok = sched->n_threads == n_threads && sched->use_ref == cplan->use_ref && sched->work_size <= wsize;
    if (!ok) {
        ok = ggml_cpu_sched_build(sched, cgraph, n_threads, cplan->use_ref, true, "ggml_graph_compute");
    }
    if (ok && sched->work_size > wsize) {
        // a buffer sized for the plain schedule (one node's work at a time)
        ok = ggml_cpu_sched_build(sched, cgraph, n_threads, cplan->use_ref, false, "ggml_graph_compute");
    }
    if (!ok) {
        result = GGML_STATUS_FAILED;
    } else if (sched->work_size > wsize) {
        GGML_LOG_ERROR("%s: the work buffer is too small: %zu bytes usable, %zu needed with %d threads (use the work_size of ggml_graph_plan)\n",
                __func__, wsize, sched->work_size, n_threads);
        result = GGML_STATUS_FAILED;
    } else {
        // the threads the entries use: a graph of nodes thread 0 runs alone wakes no worker (on a
        // loaded machine a woken worker may take a time slice to arrive at the final barrier)
        if (n_threads > sched->max_nth) {
            n_threads = sched->max_nth;
        }
        struct graph_job job = {
            .cgraph    = cgraph,
            .cplan     = cplan,
            .sched     = sched,
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
        if (sched->n_entries == 0) {
            result = GGML_STATUS_SUCCESS;
        } else if (ggml_cpu_threadpool_execute(tp, n_threads, graph_compute_thread, &job) == 0) {
            result = GGML_STATUS_FAILED;
        } else {
            result = (enum ggml_status) atomic_load(&job.status);
        }
        if (prof != NULL) {
            ggml_cpu_profile_add(prof, ggml_cpu_profile_now_ns() - t0);
            ggml_free_mem(prof);
        }
    }
    sched->n_threads = 0; // a kept schedule is planned again before its next use
    ggml_cpu_sched_free(&own);

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
