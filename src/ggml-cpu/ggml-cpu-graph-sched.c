// The CPU graph walker's schedule (ggml-cpu-graph-sched.h).
//
// A barrier after entry i is left out when the next entry j may start while other threads are
// still in the entries since the last barrier (the "run"): for every entry i of the run, unless
// both i and j run on thread 0 alone (program order orders them), the bytes j reads or writes do
// not overlap the bytes i writes, and the bytes j writes do not overlap the bytes i reads. Bytes
// are the address ranges of the tensors (views included: a view's range is inside its parent's).
// Only ops known to read their sources and write their own result and nothing else take part;
// any other op has a barrier before and after it. Each multi-thread entry of a run counts its
// chunks in its own slot (GGML_CPU_CHUNK_SLOTS - 1 of them; the last slot is thread 0's, reset
// before each of its nodes), and each entry that needs work memory gets its own part of the work
// buffer (an entry on thread 0 alone reuses the part of the entry on thread 0 alone before it).

#include "ggml-cpu-graph-sched.h"
#include "cpu-ops-fused.h"
#include "ggml-backend.h"
#include "ggml-tensor-helpers.h"

#include <stdint.h>
#include <string.h>

// Nodes at most this large whose op would split them run on one thread: a rotation of a few
// hundred elements costs less than waking the second thread (ROPE's own rule splits any two rows).
#define SCHED_SOLO_ELEMS 4096

// ranges remembered per run; a run that would need more ends with a barrier
#define SCHED_RUN_RANGES 96

#define SCHED_SOLO_SLOT (GGML_CPU_CHUNK_SLOTS - 1)

bool ggml_cpu_sched_node_skipped(const struct ggml_tensor * node) {
    return ggml_cpu_op_is_noop(node) || (node->flags & GGML_TENSOR_FLAG_COMPUTE) == 0 || ggml_is_empty(node);
}

static int sched_n_tasks(const struct ggml_tensor * node, int n_threads) {
    int nth = ggml_cpu_op_n_tasks(node, n_threads);
    if (nth > 1 && node->op == GGML_OP_ROPE && ggml_nelements(node) <= SCHED_SOLO_ELEMS) {
        nth = 1;
    }
    return nth < 1 ? 1 : (nth > n_threads ? n_threads : nth);
}

// ops that read only their sources and write only their own result
static bool sched_op_pure(enum ggml_op op) {
    switch (op) {
        case GGML_OP_MUL_MAT:
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_SCALE:
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_ROPE:
        case GGML_OP_GET_ROWS:
        case GGML_OP_SET_ROWS:
        case GGML_OP_CPY:
        case GGML_OP_CONT:
        case GGML_OP_DUP:
        case GGML_OP_GLU:
        case GGML_OP_UNARY:
        case GGML_OP_SOFT_MAX:
        case GGML_OP_FLASH_ATTN_EXT:
            return true;
        default:
            return false;
    }
}

struct sched_range {
    uintptr_t lo, hi;
    bool      write;
    bool      solo;
};

struct sched_run {
    struct sched_range r[SCHED_RUN_RANGES];
    int  n;
    bool impure;    // one of them is not a pure op
    int  n_par;     // multi-thread entries (chunk slots used)
    bool last_work_solo; // the last entry with work memory ran on thread 0 alone
    size_t last_work_off;
    size_t end;     // end of the work parts used
};

static int sched_tensor_ranges(const struct ggml_tensor * node, const struct ggml_tensor * mid, const struct ggml_tensor * fused,
                               struct sched_range * out, bool solo) {
    int n = 0;
    const struct ggml_tensor * nodes[3] = { node, mid, fused };
    for (int k = 0; k < 3; k++) {
        const struct ggml_tensor * t = nodes[k];
        if (t == NULL) {
            continue;
        }
        for (int j = -1; j < GGML_MAX_SRC; j++) {
            const struct ggml_tensor * s = j < 0 ? t : t->src[j];
            if (s == NULL || s->data == NULL || (k > 0 && j >= 0 && (s == node || s == mid))) {
                continue;
            }
            const size_t nb = ggml_nbytes(s);
            if (nb == 0) {
                continue;
            }
            out[n].lo    = (uintptr_t) s->data;
            out[n].hi    = (uintptr_t) s->data + nb;
            out[n].write = j < 0;
            out[n].solo  = solo;
            n++;
        }
    }
    return n;
}

// whether the entry with ranges `r` can join the run without a barrier
static bool sched_independent(const struct sched_run * run, const struct sched_range * r, int n) {
    for (int a = 0; a < run->n; a++) {
        const struct sched_range * x = &run->r[a];
        for (int b = 0; b < n; b++) {
            const struct sched_range * y = &r[b];
            if ((x->write || y->write) && !(x->solo && y->solo) && x->lo < y->hi && y->lo < x->hi) {
                return false;
            }
        }
    }
    return true;
}

static bool sched_reserve(struct ggml_cpu_sched * s, int n) {
    if (n <= s->cap) {
        return true;
    }
    const int cap = n > 2*s->cap ? n : 2*s->cap;
    struct ggml_cpu_sched_entry * e = ggml_malloc((size_t) cap*sizeof(*e));
    if (e == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_graph_compute: cannot allocate the schedule of %d nodes\n", n);
        return false;
    }
    ggml_free_mem(s->entries);
    s->entries = e;
    s->cap     = cap;
    return true;
}

// Checks a node before anything is computed (logged)
static bool sched_check_node(const struct ggml_tensor * node, int i, const char * func) {
    if (!ggml_cpu_op_supports(node)) {
        ggml_cpu_log_unsupported(func, i, node);
        return false;
    }
    if (node->data == NULL && ggml_nbytes(node) > 0) {
        GGML_LOG_ERROR("%s: node %d '%s' (%s) has no data (not allocated)\n", func, i, node->name, ggml_op_desc(node));
        return false;
    }
    for (int j = -1; j < GGML_MAX_SRC; j++) {
        const struct ggml_tensor * t = j < 0 ? node : node->src[j];
        if (t != NULL && !ggml_tensor_in_host_memory(t)) {
            GGML_LOG_ERROR("%s: node %d '%s' (%s): tensor '%s' is in buffer %s, which is not host memory\n",
                    func, i, node->name, ggml_op_desc(node), t->name, ggml_backend_buffer_name(ggml_tensor_data_buffer(t)));
            return false;
        }
    }
    return true;
}

static size_t sched_align(size_t n) {
    return (n + GGML_CPU_CACHE_LINE - 1) & ~(size_t) (GGML_CPU_CACHE_LINE - 1);
}

// the index of the first node after i that is computed (cgraph->n_nodes: none; a NULL node stops)
static int sched_next_computed(const struct ggml_cgraph * cgraph, int i) {
    int next = i + 1;
    while (next < cgraph->n_nodes && cgraph->nodes[next] != NULL && ggml_cpu_sched_node_skipped(cgraph->nodes[next])) {
        next++;
    }
    return next;
}

bool ggml_cpu_sched_build(struct ggml_cpu_sched * s, const struct ggml_cgraph * cgraph, int n_threads, bool use_ref,
                          bool elide, const char * func) {
    s->n_entries  = 0;
    s->work_size  = 0;
    s->n_barriers = 0;
    s->n_elided   = 0;
    s->n_threads  = 0; // not usable until the build succeeds
    s->max_nth    = 1;
    s->use_ref    = use_ref;
    s->oom        = false;
    if (!sched_reserve(s, cgraph->n_nodes)) {
        s->oom = true;
        return false;
    }
    struct sched_run run;
    memset(&run, 0, sizeof(run));
    struct sched_range mine[3*(GGML_MAX_SRC + 1)];
    struct ggml_cpu_sched_entry * prev = NULL;

    for (int i = 0; i < cgraph->n_nodes; i++) {
        struct ggml_tensor * node = cgraph->nodes[i];
        if (node == NULL) {
            if (func != NULL) {
                GGML_LOG_ERROR("%s: node %d is NULL\n", func, i);
            }
            return false;
        }
        if (ggml_cpu_sched_node_skipped(node)) {
            continue;
        }
        if (func == NULL ? !ggml_cpu_op_supports(node) : !sched_check_node(node, i, func)) {
            if (func == NULL) {
                continue; // planning: ggml_graph_compute reports it
            }
            return false;
        }
        struct ggml_cpu_sched_entry * e = &s->entries[s->n_entries];
        e->node  = i;
        e->fused     = -1;
        e->fused_mid = -1;
        e->nth       = sched_n_tasks(node, n_threads);
        // RMS_NORM and the MUL by its weight after it: one entry (the plain path keeps them apart)
        int next = sched_next_computed(cgraph, i);
        const struct ggml_tensor * fused = NULL;
        const struct ggml_tensor * mid   = NULL;
        if (!use_ref && next < cgraph->n_nodes && cgraph->nodes[next] != NULL &&
            ggml_cpu_fused_rms_norm_mul_applies(node, cgraph->nodes[next])) {
            if (func == NULL ? !ggml_cpu_op_supports(cgraph->nodes[next]) : !sched_check_node(cgraph->nodes[next], next, func)) {
                return false;
            }
            fused    = cgraph->nodes[next];
            e->fused = next;
        }
        // SSM_CONV, its bias ADD (optional) and the SILU after them: one entry
        if (!use_ref && node->op == GGML_OP_SSM_CONV && next < cgraph->n_nodes && cgraph->nodes[next] != NULL) {
            const int after = sched_next_computed(cgraph, next);
            struct ggml_tensor * n1 = cgraph->nodes[next];
            struct ggml_tensor * n2 = after < cgraph->n_nodes ? cgraph->nodes[after] : NULL;
            int last = -1, m = -1;
            if (n1->op == GGML_OP_ADD && n2 != NULL && ggml_cpu_fused_ssm_conv_applies(node, n1, n2)) {
                last = after;
                m    = next;
            } else if (ggml_cpu_fused_ssm_conv_applies(node, NULL, n1)) {
                last = next;
            }
            if (last >= 0) {
                if (func == NULL ? !ggml_cpu_op_supports(cgraph->nodes[last]) || (m >= 0 && !ggml_cpu_op_supports(cgraph->nodes[m]))
                                 : !sched_check_node(cgraph->nodes[last], last, func) || (m >= 0 && !sched_check_node(cgraph->nodes[m], m, func))) {
                    return false;
                }
                fused        = cgraph->nodes[last];
                mid          = m >= 0 ? cgraph->nodes[m] : NULL;
                e->fused     = last;
                e->fused_mid = m;
                next         = last;
            }
        }
        const size_t ws = ggml_cpu_op_work_size(node, n_threads);
        s->max_nth = e->nth > s->max_nth ? e->nth : s->max_nth;
        const bool solo = e->nth == 1;
        const bool pure = sched_op_pure(node->op) && (fused == NULL || sched_op_pure(fused->op)) &&
                          (mid == NULL || sched_op_pure(mid->op));
        // (one thread: every node is thread 0's, no range is ever compared)
        const int  nr   = elide && n_threads > 1 ? sched_tensor_ranges(node, mid, fused, mine, solo) : 0;

        // join the open run, or end it with a barrier after the previous entry
        bool join = false;
        if (prev != NULL) {
            if (solo && run.n_par == 0) {
                join = true; // thread 0 alone since the last barrier: program order suffices
            } else if (elide && pure && !run.impure && (solo || run.n_par < SCHED_SOLO_SLOT) &&
                       run.n + nr <= SCHED_RUN_RANGES && sched_independent(&run, mine, nr)) {
                join = true;
                s->n_elided++;
            }
        }
        if (prev != NULL && !join) {
            prev->barrier_after = true;
            s->n_barriers++;
            memset(&run, 0, sizeof(run));
        }
        // keep the run's ranges (a run of thread-0 nodes with an impure one keeps none: it ends at
        // the next multi-thread entry anyway)
        run.impure = run.impure || !pure;
        if (run.n + nr <= SCHED_RUN_RANGES) {
            memcpy(&run.r[run.n], mine, (size_t) nr*sizeof(mine[0]));
            run.n += nr;
        } else {
            run.impure = true; // no room to remember it: nothing more joins this run
        }
        if (solo) {
            e->slot = SCHED_SOLO_SLOT;
        } else {
            e->slot = run.n_par++;
        }
        e->n_dirty = run.n_par;
        // work memory
        e->work_size = ws;
        e->work_off  = 0;
        if (ws > 0) {
            if (solo && run.last_work_solo) {
                e->work_off = run.last_work_off;
            } else {
                e->work_off = run.end;
            }
            run.last_work_solo = solo;
            run.last_work_off  = e->work_off;
            const size_t end = e->work_off + sched_align(ws);
            run.end = end > run.end ? end : run.end;
            const size_t used = e->work_off + ws;
            s->work_size = used > s->work_size ? used : s->work_size;
        }
        e->barrier_after = false;
        prev = e;
        s->n_entries++;
        if (fused != NULL) {
            i = next;
        }
    }
    // the last entry: the pool's own barrier after the job follows
    s->n_threads = n_threads;
    return true;
}

size_t ggml_cpu_sched_plain_work_size(const struct ggml_cgraph * cgraph, int n_threads) {
    size_t ws = 0;
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * node = cgraph->nodes[i];
        if (node == NULL || ggml_cpu_sched_node_skipped(node) || !ggml_cpu_op_supports(node)) {
            continue;
        }
        const size_t w = ggml_cpu_op_work_size(node, n_threads);
        ws = w > ws ? w : ws;
    }
    return ws;
}

void ggml_cpu_sched_free(struct ggml_cpu_sched * s) {
    if (s == NULL) {
        return;
    }
    ggml_free_mem(s->entries);
    memset(s, 0, sizeof(*s));
}
