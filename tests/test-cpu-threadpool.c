// The CPU thread pool and graph executor: barrier and chunk counter correctness over many
// iterations and thread counts, pool creation (1..8 threads, creation failures), pause/resume,
// the disposable pool, the abort callback, unsupported and overflowed graphs.
//
// Graphs here are made of custom-op nodes (GGML_OP_MAP_CUSTOM1 / GGML_OP_CUSTOM wired by hand)
// whose callbacks record which threads ran them, so the executor is tested independently of the
// kernel families.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-impl.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-impl.h"
#include "test-common.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_T 8

//
// barrier and chunks through ggml_cpu_threadpool_run
//

struct barrier_state {
    int          iters;
    atomic_int   counter;
    atomic_int   mismatches;
    atomic_int   ran[MAX_T];
    atomic_int   bad_nth;
    int          expect_nth;
    // chunk part
    int          n_chunks;
    atomic_int * chunk_hits;
    atomic_int   chunk_errors;
};

static void barrier_fn(const struct ggml_compute_params * params, void * ud) {
    struct barrier_state * s = ud;
    const int n = params->nth;
    if (n != s->expect_nth) {
        atomic_fetch_add(&s->bad_nth, 1);
    }
    atomic_fetch_add(&s->ran[params->ith], 1);
    for (int i = 0; i < s->iters; i++) {
        atomic_fetch_add(&s->counter, 1);
        ggml_cpu_barrier(params->threadpool);
        // everyone has added exactly once more
        if (atomic_load(&s->counter) != n*(i + 1)) {
            atomic_fetch_add(&s->mismatches, 1);
        }
        ggml_cpu_barrier(params->threadpool);
    }
    // dynamic chunks: every chunk taken exactly once, twice in a row (the barrier resets)
    for (int round = 0; round < 2; round++) {
        for (int c = ggml_cpu_chunk_next(params->threadpool); c < s->n_chunks; c = ggml_cpu_chunk_next(params->threadpool)) {
            atomic_fetch_add(&s->chunk_hits[c], 1);
        }
        ggml_cpu_barrier(params->threadpool);
        for (int c = params->ith; c < s->n_chunks; c += n) {
            if (atomic_load(&s->chunk_hits[c]) != round + 1) {
                atomic_fetch_add(&s->chunk_errors, 1);
            }
        }
        ggml_cpu_barrier(params->threadpool);
    }
}

static void run_barrier_test(struct ggml_threadpool * tp, int n_threads, int iters) {
    static atomic_int hits[257];
    struct barrier_state s;
    memset(&s, 0, sizeof(s));
    s.iters      = iters;
    s.expect_nth = n_threads;
    s.n_chunks   = 257;
    s.chunk_hits = hits;
    for (int c = 0; c < s.n_chunks; c++) {
        atomic_store(&hits[c], 0);
    }
    const int used = ggml_cpu_threadpool_run(tp, n_threads, barrier_fn, &s);
    TEST_CHECK_MSG(used == n_threads, "n_threads %d: used %d", n_threads, used);
    TEST_CHECK_MSG(atomic_load(&s.counter) == n_threads*iters, "n_threads %d: counter %d, want %d",
            n_threads, atomic_load(&s.counter), n_threads*iters);
    TEST_CHECK_MSG(atomic_load(&s.mismatches) == 0, "n_threads %d: %d barrier mismatches", n_threads, atomic_load(&s.mismatches));
    TEST_CHECK_MSG(atomic_load(&s.chunk_errors) == 0, "n_threads %d: %d chunk errors", n_threads, atomic_load(&s.chunk_errors));
    TEST_CHECK(atomic_load(&s.bad_nth) == 0);
    for (int i = 0; i < MAX_T; i++) {
        TEST_CHECK_MSG(atomic_load(&s.ran[i]) == (i < n_threads ? 1 : 0), "n_threads %d: thread %d ran %d times",
                n_threads, i, atomic_load(&s.ran[i]));
    }
}

static void test_barrier(void) {
    for (int n = 1; n <= MAX_T; n++) {
        struct ggml_threadpool_params p = ggml_threadpool_params_default(n);
        struct ggml_threadpool * tp = ggml_threadpool_new(&p);
        TEST_CHECK(tp != NULL);
        if (tp == NULL) {
            continue;
        }
        TEST_CHECK(ggml_threadpool_get_n_threads(tp) == n);
        run_barrier_test(tp, n, n <= 2 ? 3000 : 400);
        // the same pool with fewer, then again all threads (kickoffs of different sizes)
        if (n > 1) {
            run_barrier_test(tp, 1, 10);
            run_barrier_test(tp, n - 1, 100);
            run_barrier_test(tp, n, 100);
        }
        ggml_threadpool_free(tp);
    }
}

//
// pool creation
//

static void test_params(void) {
    struct ggml_threadpool_params a = ggml_threadpool_params_default(3);
    struct ggml_threadpool_params b;
    ggml_threadpool_params_init(&b, 3);
    TEST_CHECK(a.n_threads == 3 && a.poll == 50 && a.prio == GGML_SCHED_PRIO_NORMAL && !a.paused && !a.strict_cpu);
    TEST_CHECK(ggml_threadpool_params_match(&a, &b));
    b.cpumask[1] = true;
    TEST_CHECK(!ggml_threadpool_params_match(&a, &b));
    b = ggml_threadpool_params_default(4);
    TEST_CHECK(!ggml_threadpool_params_match(&a, &b));

    test_log_capture_begin();
    struct ggml_threadpool_params bad = ggml_threadpool_params_default(0);
    TEST_CHECK(ggml_threadpool_new(&bad) == NULL);
    bad = ggml_threadpool_params_default(GGML_MAX_N_THREADS + 1);
    TEST_CHECK(ggml_threadpool_new(&bad) == NULL);
    bad = ggml_threadpool_params_default(2);
    bad.poll = 101;
    TEST_CHECK(ggml_threadpool_new(&bad) == NULL);
    TEST_CHECK(ggml_threadpool_new(NULL) == NULL);
    TEST_CHECK(ggml_threadpool_get_n_threads(NULL) == 0);
    ggml_threadpool_pause(NULL);
    ggml_threadpool_resume(NULL);
    ggml_threadpool_free(NULL);
    TEST_CHECK(test_log_error_count() >= 6);
    test_log_capture_end();

    // a pool pinned to CPU 0 (strict) still computes
    struct ggml_threadpool_params pin = ggml_threadpool_params_default(2);
    pin.cpumask[0] = true;
    pin.strict_cpu = true;
    struct ggml_threadpool * tp = ggml_threadpool_new(&pin);
    TEST_CHECK(tp != NULL);
    if (tp != NULL) {
        run_barrier_test(tp, 2, 50);
        ggml_threadpool_free(tp);
    }
}

static void test_create_failure(void) {
    // only 2 worker threads can be created: a pool of 5 gets 3 threads and still works
    test_log_capture_begin();
    test_cpu_threadpool_set_create_limit(2);
    struct ggml_threadpool_params p = ggml_threadpool_params_default(5);
    struct ggml_threadpool * tp = ggml_threadpool_new(&p);
    test_cpu_threadpool_set_create_limit(-1);
    test_log_capture_end();
    TEST_CHECK(tp != NULL);
    if (tp != NULL) {
        TEST_CHECK_MSG(ggml_threadpool_get_n_threads(tp) == 3, "got %d threads", ggml_threadpool_get_n_threads(tp));
        run_barrier_test(tp, 3, 100);
        ggml_threadpool_free(tp);
    }
    // no worker at all: the caller alone
    test_cpu_threadpool_set_create_limit(0);
    test_log_capture_begin();
    tp = ggml_threadpool_new(&p);
    test_log_capture_end();
    test_cpu_threadpool_set_create_limit(-1);
    TEST_CHECK(tp != NULL);
    if (tp != NULL) {
        TEST_CHECK(ggml_threadpool_get_n_threads(tp) == 1);
        run_barrier_test(tp, 1, 10);
        ggml_threadpool_free(tp);
    }
}

static void sleep_ms(int ms) {
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

// waits (up to ~10 s) until n workers sleep
static bool wait_sleeping(struct ggml_threadpool * tp, int n) {
    for (int i = 0; i < 2000; i++) {
        if (test_cpu_threadpool_n_sleeping(tp) == n) {
            return true;
        }
        sleep_ms(5);
    }
    return false;
}

static void test_pause_resume(void) {
    struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
    p.paused = true;
    struct ggml_threadpool * tp = ggml_threadpool_new(&p);
    TEST_CHECK(tp != NULL);
    if (tp == NULL) {
        return;
    }
    TEST_CHECK(test_cpu_threadpool_is_paused(tp));
    // a paused pool's workers sleep at once
    TEST_CHECK(wait_sleeping(tp, 3));

    ggml_threadpool_resume(tp);
    TEST_CHECK(!test_cpu_threadpool_is_paused(tp));
    run_barrier_test(tp, 4, 100);

    ggml_threadpool_pause(tp);
    TEST_CHECK(test_cpu_threadpool_is_paused(tp));
    TEST_CHECK(wait_sleeping(tp, 3));
    // computing on a paused pool resumes it
    run_barrier_test(tp, 4, 100);
    TEST_CHECK(!test_cpu_threadpool_is_paused(tp));

    // poll 0: workers sleep right after each job, and still wake for the next
    ggml_threadpool_free(tp);
    p = ggml_threadpool_params_default(3);
    p.poll = 0;
    tp = ggml_threadpool_new(&p);
    TEST_CHECK(tp != NULL);
    if (tp != NULL) {
        for (int i = 0; i < 20; i++) {
            run_barrier_test(tp, 3, 5);
        }
        TEST_CHECK(wait_sleeping(tp, 2));
        ggml_threadpool_free(tp);
    }
}

//
// graphs of custom nodes
//

#define MAX_NODES 300

struct graph_record {
    atomic_int calls[MAX_NODES];          // callback calls per node (one per thread)
    atomic_int thread_mask[MAX_NODES];    // bit ith set for each thread that ran the node
    atomic_int nth_seen[MAX_NODES];
    atomic_int order_errors;
    atomic_int abort_polls;
    int        abort_at;                  // the abort callback returns true on this poll (1-based)
};

struct node_ud {
    struct graph_record * rec;
    int                   index;
};

static struct node_ud g_ud[MAX_NODES];

static void node_fn(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * userdata) {
    struct node_ud * u = userdata;
    struct graph_record * r = u->rec;
    // the previous node is complete before this one starts (the barrier between nodes)
    if (u->index > 0 && atomic_load(&r->calls[u->index - 1]) != atomic_load(&r->nth_seen[u->index - 1])) {
        atomic_fetch_add(&r->order_errors, 1);
    }
    atomic_fetch_add(&r->calls[u->index], 1);
    atomic_fetch_or(&r->thread_mask[u->index], 1 << ith);
    atomic_store(&r->nth_seen[u->index], nth);
    // each thread writes its share of the rows: dst = a + 1
    const int64_t n = ggml_nelements(dst);
    for (int64_t i = ith; i < n; i += nth) {
        ((float *) dst->data)[i] = ((const float *) a->data)[i] + 1.0f;
    }
}

static struct ggml_tensor * custom_node(struct ggml_context * ctx, struct ggml_tensor * a, int n_tasks, struct node_ud * ud) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, a->ne[0]);
    if (t == NULL) {
        return NULL;
    }
    t->op     = GGML_OP_MAP_CUSTOM1;
    t->src[0] = a;
    struct ggml_custom_op_params p = { (void (*)(void)) node_fn, n_tasks, ud };
    memcpy(t->op_params, &p, sizeof(p));
    return t;
}

static bool abort_cb(void * data) {
    struct graph_record * r = data;
    const int k = atomic_fetch_add(&r->abort_polls, 1) + 1;
    return r->abort_at > 0 && k >= r->abort_at;
}

// builds a chain of n custom nodes on x (alternating n_tasks: all threads / 1 / 2)
static struct ggml_cgraph * build_chain(struct ggml_context * ctx, struct graph_record * rec, int n, struct ggml_tensor ** out, struct ggml_tensor * x) {
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 1024, false);
    struct ggml_tensor * cur = x;
    for (int i = 0; i < n; i++) {
        g_ud[i].rec   = rec;
        g_ud[i].index = i;
        const int n_tasks = i % 3 == 0 ? GGML_N_TASKS_MAX : (i % 3 == 1 ? 1 : 2);
        cur = custom_node(ctx, cur, n_tasks, &g_ud[i]);
        if (i % 10 == 5) {
            // views in between are skipped by the executor
            cur = ggml_reshape_1d(ctx, cur, cur->ne[0]);
        }
    }
    ggml_build_forward_expand(g, cur);
    *out = cur;
    return g;
}

static struct graph_record g_rec;

static void reset_record(struct graph_record * r, int abort_at) {
    for (int i = 0; i < MAX_NODES; i++) {
        atomic_store(&r->calls[i], 0);
        atomic_store(&r->thread_mask[i], 0);
        atomic_store(&r->nth_seen[i], 0);
    }
    atomic_store(&r->order_errors, 0);
    atomic_store(&r->abort_polls, 0);
    r->abort_at = abort_at;
}

static void test_graph_compute(struct ggml_threadpool * tp, int n_threads, const char * what) {
    struct ggml_init_params ip = { 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx == NULL) {
        return;
    }
    const int n_nodes = 120;
    const int ne = 37;
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, ne);
    for (int i = 0; i < ne; i++) {
        ((float *) x->data)[i] = (float) (i*i % 11) - 3.5f;
    }
    struct ggml_tensor * out = NULL;
    reset_record(&g_rec, 0);
    struct ggml_cgraph * g = build_chain(ctx, &g_rec, n_nodes, &out, x);

    struct ggml_cplan plan = ggml_graph_plan(g, n_threads, tp);
    const int pool_n = tp != NULL ? ggml_threadpool_get_n_threads(tp) : n_threads;
    TEST_CHECK_MSG(plan.n_threads == pool_n, "%s: plan n_threads %d, want %d", what, plan.n_threads, pool_n);
    TEST_CHECK(plan.work_size == 0);
    const enum ggml_status st = ggml_graph_compute(g, &plan);
    TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "%s: status %d", what, (int) st);

    int bad = 0;
    for (int i = 0; i < n_nodes; i++) {
        const int want_nth = i % 3 == 0 ? pool_n : (i % 3 == 1 ? 1 : (pool_n < 2 ? pool_n : 2));
        const int want_mask = (1 << want_nth) - 1;
        if (atomic_load(&g_rec.calls[i]) != want_nth || atomic_load(&g_rec.thread_mask[i]) != want_mask ||
            atomic_load(&g_rec.nth_seen[i]) != want_nth) {
            if (bad++ < 5) {
                TEST_CHECK_MSG(false, "%s: node %d: calls %d mask %x nth %d, want nth %d", what, i,
                        atomic_load(&g_rec.calls[i]), atomic_load(&g_rec.thread_mask[i]),
                        atomic_load(&g_rec.nth_seen[i]), want_nth);
            }
        }
    }
    TEST_CHECK_MSG(bad == 0, "%s: %d nodes ran on the wrong threads", what, bad);
    TEST_CHECK(atomic_load(&g_rec.order_errors) == 0);
    // the values: x + n_nodes
    int wrong = 0;
    for (int i = 0; i < ne; i++) {
        const float want = (float) (i*i % 11) - 3.5f + (float) n_nodes;
        wrong += ((float *) out->data)[i] != want;
    }
    TEST_CHECK_MSG(wrong == 0, "%s: %d wrong values", what, wrong);
    ggml_free(ctx);
}

static void test_graphs(void) {
    // disposable pools (cplan.threadpool == NULL)
    for (int n = 1; n <= 4; n++) {
        char what[64];
        snprintf(what, sizeof(what), "disposable pool, %d threads", n);
        test_graph_compute(NULL, n, what);
    }
    // a persistent pool, several graphs in a row
    struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
    struct ggml_threadpool * tp = ggml_threadpool_new(&p);
    TEST_CHECK(tp != NULL);
    if (tp != NULL) {
        for (int r = 0; r < 5; r++) {
            test_graph_compute(tp, 4, "persistent pool of 4");
        }
        ggml_threadpool_free(tp);
    }
}

static void test_abort(void) {
    struct ggml_init_params ip = { 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_set_zero(x);
    struct ggml_tensor * out = NULL;
    const int n_nodes = 250;
    reset_record(&g_rec, 0);
    struct ggml_cgraph * g = build_chain(ctx, &g_rec, n_nodes, &out, x);

    struct ggml_threadpool_params p = ggml_threadpool_params_default(4);
    struct ggml_threadpool * tp = ggml_threadpool_new(&p);

    for (int pass = 0; pass < 3; pass++) {
        const int abort_at = pass == 0 ? 40 : (pass == 1 ? 1 : 200);
        reset_record(&g_rec, abort_at);
        struct ggml_cplan plan = ggml_graph_plan(g, 4, pass == 2 ? NULL : tp);
        plan.abort_callback      = abort_cb;
        plan.abort_callback_data = &g_rec;
        const enum ggml_status st = ggml_graph_compute(g, &plan);
        TEST_CHECK_MSG(st == GGML_STATUS_ABORTED, "abort at %d: status %d", abort_at, (int) st);
        // polled once per computed node: the nodes up to the abort ran, none after
        TEST_CHECK_MSG(atomic_load(&g_rec.abort_polls) == abort_at, "abort at %d: %d polls", abort_at, atomic_load(&g_rec.abort_polls));
        int ran = 0, after = 0;
        for (int i = 0; i < n_nodes; i++) {
            if (atomic_load(&g_rec.calls[i]) > 0) {
                ran++;
                after += i >= abort_at;
            }
        }
        TEST_CHECK_MSG(ran == abort_at && after == 0, "abort at %d: %d nodes ran, %d after the abort", abort_at, ran, after);
    }

    // the pool still works after an aborted graph; a callback that never fires changes nothing
    reset_record(&g_rec, 0);
    struct ggml_cplan plan = ggml_graph_plan(g, 4, tp);
    plan.abort_callback      = abort_cb;
    plan.abort_callback_data = &g_rec;
    TEST_CHECK(ggml_graph_compute(g, &plan) == GGML_STATUS_SUCCESS);
    TEST_CHECK(atomic_load(&g_rec.abort_polls) == n_nodes);
    TEST_CHECK(((float *) out->data)[7] == (float) n_nodes);

    ggml_threadpool_free(tp);
    ggml_free(ctx);
}

static void test_unsupported_and_overflow(void) {
    struct ggml_init_params ip = { 16*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    ggml_set_zero(x);
    reset_record(&g_rec, 0);
    g_ud[0].rec = &g_rec;
    g_ud[0].index = 0;
    struct ggml_tensor * a = custom_node(ctx, x, GGML_N_TASKS_MAX, &g_ud[0]);
    // an op no family computes, wired by hand
    struct ggml_tensor * bad = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    bad->op = GGML_OP_WIN_PART;
    bad->src[0] = a;
    ggml_set_name(bad, "the_bad_node");
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, bad);

    TEST_CHECK(!ggml_cpu_op_supports(bad));
    TEST_CHECK(ggml_cpu_op_supports(a));

    test_log_capture_begin();
    struct ggml_cplan plan = ggml_graph_plan(g, 2, NULL);
    const enum ggml_status st = ggml_graph_compute(g, &plan);
    const int errors = test_log_error_count();
    const bool named = strstr(test_log_text(), "the_bad_node") != NULL && strstr(test_log_text(), "WIN_PART") != NULL;
    test_log_capture_end();
    TEST_CHECK_MSG(st == GGML_STATUS_FAILED, "status %d", (int) st);
    TEST_CHECK(errors >= 1);
    TEST_CHECK_MSG(named, "the log names the node and the op");
    // nothing was computed
    TEST_CHECK(atomic_load(&g_rec.calls[0]) == 0);

    // a custom node without a function is unsupported too
    struct ggml_tensor * nofn = custom_node(ctx, x, 1, &g_ud[0]);
    memset(nofn->op_params, 0, sizeof(nofn->op_params));
    TEST_CHECK(!ggml_cpu_op_supports(nofn));

    // an overflowed graph cannot be planned or computed
    struct ggml_cgraph * g2 = ggml_new_graph(ctx);
    ggml_build_forward_expand(g2, a);
    g2->overflow = true;
    test_log_capture_begin();
    plan = ggml_graph_plan(g2, 2, NULL);
    TEST_CHECK(plan.n_threads == 0);
    TEST_CHECK(ggml_graph_compute(g2, &plan) == GGML_STATUS_FAILED);
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, g2, 2) == GGML_STATUS_FAILED);
    TEST_CHECK(test_log_error_count() >= 3);
    // NULL arguments
    TEST_CHECK(ggml_graph_compute(NULL, &plan) == GGML_STATUS_FAILED);
    TEST_CHECK(ggml_graph_compute(g2, NULL) == GGML_STATUS_FAILED);
    plan = ggml_graph_plan(NULL, 2, NULL);
    TEST_CHECK(plan.n_threads == 0);
    test_log_capture_end();
    g2->overflow = false;
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, g2, 2) == GGML_STATUS_SUCCESS);
    TEST_CHECK(((float *) a->data)[3] == 1.0f);

    // a plan whose work buffer is missing
    plan = ggml_graph_plan(g2, 2, NULL);
    plan.work_size = 128;
    plan.work_data = NULL;
    test_log_capture_begin();
    TEST_CHECK(ggml_graph_compute(g2, &plan) == GGML_STATUS_FAILED);
    test_log_capture_end();

    ggml_free(ctx);
}

// a graph is computed by one pool at a time: a second caller gets an error, not a deadlock
struct busy_ctx {
    struct ggml_threadpool * tp;
    atomic_int result;
};

static void busy_inner(const struct ggml_compute_params * params, void * ud) {
    GGML_UNUSED(params);
    GGML_UNUSED(ud);
}

static void busy_outer(const struct ggml_compute_params * params, void * ud) {
    struct busy_ctx * b = ud;
    if (params->ith == 0) {
        test_log_capture_begin();
        atomic_store(&b->result, ggml_cpu_threadpool_run(b->tp, 2, busy_inner, NULL));
        test_log_capture_end();
    }
}

static void test_busy(void) {
    struct ggml_threadpool_params p = ggml_threadpool_params_default(2);
    struct busy_ctx b;
    b.tp = ggml_threadpool_new(&p);
    atomic_init(&b.result, -1);
    TEST_CHECK(ggml_cpu_threadpool_run(b.tp, 2, busy_outer, &b) == 2);
    TEST_CHECK(atomic_load(&b.result) == 0);
    ggml_threadpool_free(b.tp);
}

int main(void) {
    ggml_cpu_init();
    test_params();
    test_barrier();
    test_create_failure();
    test_pause_resume();
    test_graphs();
    test_abort();
    test_unsupported_and_overflow();
    test_busy();
    return test_finish("test-cpu-threadpool");
}
