// The CPU thread pool: persistent worker threads, work kickoff, the barrier between nodes and
// the dynamic chunk counter.
//
// A pool of n threads has n-1 workers; the thread that computes a graph is thread 0. Work is
// published by bumping `n_graph`, one atomic word holding (kickoff counter << 16 | threads used),
// so that a worker always reads the counter and the thread count of the same kickoff. Idle
// workers spin for a while (bounded by the pool's poll level) with a pause instruction, then
// sleep on a condition variable; kickoff broadcasts it. The barrier is two atomics on separate
// cache lines (arrivals and a generation number): the last thread to arrive resets the arrivals
// and bumps the generation, the others spin on the generation with a pause instruction for a
// bounded time (about 50 us), then sleep on it (a futex on Linux, sched_yield elsewhere), so that
// on a loaded machine a waiting thread gives its core to the thread it waits for instead of
// burning its time slice; the last arrival wakes the sleepers (a syscall only when there are).

#ifndef _GNU_SOURCE
#    define _GNU_SOURCE
#endif

#include "ggml-cpu-impl.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#    include <linux/futex.h>
#    include <sys/syscall.h>
#    include <unistd.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#    include <immintrin.h>
#    define GGML_CPU_PAUSE() _mm_pause()
#elif defined(__aarch64__) || defined(__arm__)
#    define GGML_CPU_PAUSE() __asm__ __volatile__("yield" ::: "memory")
#else
#    define GGML_CPU_PAUSE() ((void) 0)
#endif

#define GGML_CPU_KICK_BITS   16
#define GGML_CPU_KICK_NMASK  ((1u << GGML_CPU_KICK_BITS) - 1)

// the barrier spins this long before it sleeps (a node's imbalance on a quiet machine is shorter;
// a descheduled thread is away for milliseconds)
#define GGML_CPU_BARRIER_SPIN_NS 50000
// pauses between two clock reads while spinning
#define GGML_CPU_BARRIER_SPIN_CHECK 64
// idle spins per poll level before a worker sleeps
#define GGML_CPU_POLL_SPINS    1024

struct chunk_slot {
    alignas(GGML_CPU_CACHE_LINE) atomic_int next;
};

// This thread's chunk slot and how many slots (from 0) were used since the last barrier, set by
// the graph walker before every node (all threads set the same values, so whichever thread
// arrives last at a barrier resets the right ones). The defaults serve every other job: slot 0.
static _Thread_local int tl_chunk_slot  = 0;
static _Thread_local int tl_chunk_dirty = 1;

typedef void (*ggml_cpu_job_fn)(struct ggml_threadpool * tp, int ith, void * job);

struct ggml_cpu_worker {
    pthread_t                thrd;
    struct ggml_threadpool * tp;
    int                      ith;
    int                      cpu; // CPU to pin to (strict placement), -1: the pool's mask
};

struct ggml_threadpool {
    // barrier and chunk counter, each on its own cache line
    alignas(GGML_CPU_CACHE_LINE) atomic_int n_barrier;
    alignas(GGML_CPU_CACHE_LINE) atomic_int n_barrier_passed; // the generation (the futex word)
    atomic_int n_barrier_sleepers; // threads asleep on n_barrier_passed (same line: the waker reads it)
    // chunk counters: slot k is used by the k-th multi-thread node since the last barrier (the
    // graph walker leaves barriers out between independent nodes), the last slot by the nodes
    // thread 0 runs alone
    struct chunk_slot chunk[GGML_CPU_CHUNK_SLOTS];
    alignas(GGML_CPU_CACHE_LINE) atomic_uint n_graph; // kickoff counter << 16 | threads used
    atomic_int  n_threads_cur;   // threads of the current kickoff (for the barrier)
    atomic_bool stop;            // workers exit
    atomic_bool pause;           // workers do not spin while idle
    atomic_bool busy;            // a kickoff is running
    atomic_int  n_sleeping;      // workers waiting on the condition variable

    alignas(GGML_CPU_CACHE_LINE) pthread_mutex_t mutex;
    pthread_cond_t  cond;

    // the current job (written by thread 0 before the kickoff is published)
    ggml_cpu_job_fn job_fn;
    void *          job;

    struct ggml_cpu_worker * workers; // n_threads_max - 1 workers (index 0 unused: the caller)
    int      n_threads_max;
    uint32_t poll;
    enum ggml_sched_priority prio;
    bool     cpumask[GGML_MAX_N_THREADS];
    bool     has_mask;
    bool     strict_cpu;
};

// test hook: how many worker threads may still be created (-1: no limit)
static atomic_int g_create_limit = -1;

//
// parameters
//

void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads) {
    if (p == NULL) {
        GGML_LOG_ERROR("%s: params is NULL\n", __func__);
        return;
    }
    memset(p, 0, sizeof(*p));
    p->n_threads  = n_threads;
    p->prio       = GGML_SCHED_PRIO_NORMAL;
    p->poll       = 50;
    p->strict_cpu = false;
    p->paused     = false;
}

struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads) {
    struct ggml_threadpool_params p;
    ggml_threadpool_params_init(&p, n_threads);
    return p;
}

bool ggml_threadpool_params_match(const struct ggml_threadpool_params * p0, const struct ggml_threadpool_params * p1) {
    if (p0 == NULL || p1 == NULL) {
        return p0 == p1;
    }
    return p0->n_threads == p1->n_threads && p0->prio == p1->prio && p0->poll == p1->poll &&
           p0->strict_cpu == p1->strict_cpu &&
           memcmp(p0->cpumask, p1->cpumask, sizeof(p0->cpumask)) == 0;
}

//
// barrier and chunks
//

static void chunk_reset_dirty(struct ggml_threadpool * tp) {
    for (int k = 0; k < tl_chunk_dirty; k++) {
        atomic_store_explicit(&tp->chunk[k].next, 0, memory_order_relaxed);
    }
}

static int64_t barrier_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec*1000000000 + ts.tv_nsec;
}

// Sleeps while the generation is still `gen` (returns at once when it moved; may return early).
static void barrier_sleep(atomic_int * word, int gen) {
#if defined(__linux__)
    syscall(SYS_futex, (int *) word, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
#else
    (void) word;
    (void) gen;
    sched_yield();
#endif
}

static void barrier_wake(atomic_int * word) {
#if defined(__linux__)
    syscall(SYS_futex, (int *) word, FUTEX_WAKE_PRIVATE, GGML_MAX_N_THREADS, NULL, NULL, 0);
#else
    (void) word;
#endif
}

void ggml_cpu_barrier(struct ggml_threadpool * tp) {
    const int n = atomic_load_explicit(&tp->n_threads_cur, memory_order_relaxed);
    if (n <= 1) {
        chunk_reset_dirty(tp);
        return;
    }
    // read the generation before arriving: it cannot change until everyone has arrived
    const int gen = atomic_load_explicit(&tp->n_barrier_passed, memory_order_relaxed);
    if (atomic_fetch_add_explicit(&tp->n_barrier, 1, memory_order_acq_rel) == n - 1) {
        // last to arrive: reset for the next use, then release the others
        atomic_store_explicit(&tp->n_barrier, 0, memory_order_relaxed);
        chunk_reset_dirty(tp);
        // sequentially consistent with the sleepers' count below: either this load sees a
        // sleeper, or that sleeper's futex call sees the new generation and does not sleep
        atomic_fetch_add_explicit(&tp->n_barrier_passed, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&tp->n_barrier_sleepers, memory_order_seq_cst) > 0) {
            barrier_wake(&tp->n_barrier_passed);
        }
        return;
    }
    int64_t t_end = 0;
    for (int spins = 1; atomic_load_explicit(&tp->n_barrier_passed, memory_order_acquire) == gen; spins++) {
        if (spins % GGML_CPU_BARRIER_SPIN_CHECK != 0) {
            GGML_CPU_PAUSE();
            continue;
        }
        const int64_t now = barrier_now_ns();
        if (t_end == 0) {
            t_end = now + GGML_CPU_BARRIER_SPIN_NS;
        } else if (now >= t_end) {
            atomic_fetch_add_explicit(&tp->n_barrier_sleepers, 1, memory_order_seq_cst);
            while (atomic_load_explicit(&tp->n_barrier_passed, memory_order_seq_cst) == gen) {
                barrier_sleep(&tp->n_barrier_passed, gen);
            }
            atomic_fetch_sub_explicit(&tp->n_barrier_sleepers, 1, memory_order_relaxed);
            break;
        }
    }
}

void ggml_cpu_chunk_reset(struct ggml_threadpool * tp) {
    atomic_store_explicit(&tp->chunk[tl_chunk_slot].next, 0, memory_order_relaxed);
}

void ggml_cpu_chunk_select(int slot, int n_dirty) {
    tl_chunk_slot  = slot;
    tl_chunk_dirty = n_dirty < 1 ? 1 : n_dirty;
}

int ggml_cpu_chunk_next(struct ggml_threadpool * tp) {
    // acquire-release: a caller sees what every earlier caller wrote before its call (the same
    // locked instruction as relaxed on x86)
    return atomic_fetch_add_explicit(&tp->chunk[tl_chunk_slot].next, 1, memory_order_acq_rel);
}

//
// workers
//

static void worker_apply_placement(struct ggml_cpu_worker * w) {
    struct ggml_threadpool * tp = w->tp;
#if defined(__linux__)
    if (tp->has_mask) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (w->cpu >= 0) {
            CPU_SET(w->cpu, &set);
        } else {
            for (int i = 0; i < GGML_MAX_N_THREADS && i < CPU_SETSIZE; i++) {
                if (tp->cpumask[i]) {
                    CPU_SET(i, &set);
                }
            }
        }
        const int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
        if (rc != 0) {
            GGML_LOG_WARN("%s: thread %d: cannot set the CPU affinity (%s)\n", __func__, w->ith, strerror(rc));
        }
    }
#endif
    if (tp->prio != GGML_SCHED_PRIO_NORMAL) {
        struct sched_param sp;
        memset(&sp, 0, sizeof(sp));
        int policy = SCHED_OTHER;
        switch (tp->prio) {
            case GGML_SCHED_PRIO_LOW:
#if defined(SCHED_IDLE)
                policy = SCHED_IDLE;
#endif
                break;
            case GGML_SCHED_PRIO_MEDIUM:   policy = SCHED_FIFO; sp.sched_priority = 40; break;
            case GGML_SCHED_PRIO_HIGH:     policy = SCHED_FIFO; sp.sched_priority = 80; break;
            case GGML_SCHED_PRIO_REALTIME: policy = SCHED_FIFO; sp.sched_priority = 90; break;
            default: break;
        }
        const int rc = pthread_setschedparam(pthread_self(), policy, &sp);
        if (rc != 0) {
            GGML_LOG_DEBUG("%s: thread %d: cannot set priority %d (%s)\n", __func__, w->ith, (int) tp->prio, strerror(rc));
        }
    }
}

// Waits for a kickoff newer than `last`; returns the new n_graph word.
static unsigned worker_wait(struct ggml_threadpool * tp, unsigned last) {
    if (!atomic_load_explicit(&tp->pause, memory_order_relaxed)) {
        const long spins = (long) tp->poll * GGML_CPU_POLL_SPINS;
        for (long i = 0; i < spins; i++) {
            const unsigned g = atomic_load_explicit(&tp->n_graph, memory_order_acquire);
            if (g != last || atomic_load_explicit(&tp->stop, memory_order_relaxed)) {
                return g;
            }
            GGML_CPU_PAUSE();
        }
    }
    pthread_mutex_lock(&tp->mutex);
    atomic_fetch_add_explicit(&tp->n_sleeping, 1, memory_order_relaxed);
    while (atomic_load_explicit(&tp->n_graph, memory_order_acquire) == last &&
           !atomic_load_explicit(&tp->stop, memory_order_relaxed)) {
        pthread_cond_wait(&tp->cond, &tp->mutex);
    }
    atomic_fetch_sub_explicit(&tp->n_sleeping, 1, memory_order_relaxed);
    const unsigned g = atomic_load_explicit(&tp->n_graph, memory_order_acquire);
    pthread_mutex_unlock(&tp->mutex);
    return g;
}

static void * worker_main(void * arg) {
    struct ggml_cpu_worker * w  = arg;
    struct ggml_threadpool * tp = w->tp;

    worker_apply_placement(w);

    // no kickoff happens before the pool is returned to its creator: the count starts at 0 (a
    // worker that starts late must still see the first kickoff as new)
    unsigned last = 0;
    for (;;) {
        const unsigned g = worker_wait(tp, last);
        if (atomic_load_explicit(&tp->stop, memory_order_acquire)) {
            break;
        }
        last = g;
        const int n = (int) (g & GGML_CPU_KICK_NMASK);
        if (w->ith < n) {
            tp->job_fn(tp, w->ith, tp->job);
            // the caller returns once everyone is here: the job is finished
            ggml_cpu_barrier(tp);
        }
    }
    return NULL;
}

//
// pool life cycle
//

struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params) {
    if (params == NULL) {
        GGML_LOG_ERROR("%s: params is NULL\n", __func__);
        return NULL;
    }
    if (params->n_threads < 1 || params->n_threads > GGML_MAX_N_THREADS) {
        GGML_LOG_ERROR("%s: n_threads = %d is out of range [1, %d]\n", __func__, params->n_threads, GGML_MAX_N_THREADS);
        return NULL;
    }
    if (params->poll > 100) {
        GGML_LOG_ERROR("%s: poll = %u is out of range [0, 100]\n", __func__, params->poll);
        return NULL;
    }

    struct ggml_threadpool * tp = ggml_aligned_malloc(sizeof(struct ggml_threadpool));
    if (tp == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    memset(tp, 0, sizeof(*tp));

    const int n = params->n_threads;
    tp->workers = ggml_calloc((size_t) n, sizeof(struct ggml_cpu_worker));
    if (tp->workers == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        ggml_aligned_free(tp, sizeof(struct ggml_threadpool));
        return NULL;
    }
    if (pthread_mutex_init(&tp->mutex, NULL) != 0) {
        GGML_LOG_ERROR("%s: cannot create a mutex\n", __func__);
        ggml_free_mem(tp->workers);
        ggml_aligned_free(tp, sizeof(struct ggml_threadpool));
        return NULL;
    }
    if (pthread_cond_init(&tp->cond, NULL) != 0) {
        GGML_LOG_ERROR("%s: cannot create a condition variable\n", __func__);
        pthread_mutex_destroy(&tp->mutex);
        ggml_free_mem(tp->workers);
        ggml_aligned_free(tp, sizeof(struct ggml_threadpool));
        return NULL;
    }

    atomic_init(&tp->n_barrier, 0);
    atomic_init(&tp->n_barrier_passed, 0);
    atomic_init(&tp->n_barrier_sleepers, 0);
    for (int k = 0; k < GGML_CPU_CHUNK_SLOTS; k++) {
        atomic_init(&tp->chunk[k].next, 0);
    }
    atomic_init(&tp->n_graph, 0);
    atomic_init(&tp->n_threads_cur, 1);
    atomic_init(&tp->stop, false);
    atomic_init(&tp->pause, params->paused);
    atomic_init(&tp->busy, false);
    atomic_init(&tp->n_sleeping, 0);
    tp->poll       = params->poll;
    tp->prio       = params->prio;
    tp->strict_cpu = params->strict_cpu;
    memcpy(tp->cpumask, params->cpumask, sizeof(tp->cpumask));
    tp->has_mask = false;
    for (int i = 0; i < GGML_MAX_N_THREADS; i++) {
        tp->has_mask = tp->has_mask || tp->cpumask[i];
    }

    // strict placement: thread i gets the i-th CPU of the mask (cycling)
    int next_cpu = 0;
    tp->n_threads_max = 1;
    for (int i = 1; i < n; i++) {
        struct ggml_cpu_worker * w = &tp->workers[i];
        w->tp  = tp;
        w->ith = i;
        w->cpu = -1;
        if (tp->has_mask && tp->strict_cpu) {
            for (int k = 0; k < GGML_MAX_N_THREADS; k++) {
                const int c = (next_cpu + k) % GGML_MAX_N_THREADS;
                if (tp->cpumask[c]) {
                    w->cpu   = c;
                    next_cpu = c + 1;
                    break;
                }
            }
        }
        int rc;
        int limit = atomic_load(&g_create_limit);
        if (limit == 0) {
            rc = EAGAIN;
        } else {
            if (limit > 0) {
                atomic_fetch_sub(&g_create_limit, 1);
            }
            rc = pthread_create(&w->thrd, NULL, worker_main, w);
        }
        if (rc != 0) {
            GGML_LOG_WARN("%s: could only create %d of %d threads (%s); using %d\n",
                    __func__, i, n, strerror(rc), i);
            break;
        }
        tp->n_threads_max = i + 1;
    }
    return tp;
}

void ggml_threadpool_free(struct ggml_threadpool * tp) {
    if (tp == NULL) {
        return;
    }
    pthread_mutex_lock(&tp->mutex);
    atomic_store_explicit(&tp->stop, true, memory_order_release);
    pthread_cond_broadcast(&tp->cond);
    pthread_mutex_unlock(&tp->mutex);

    for (int i = 1; i < tp->n_threads_max; i++) {
        pthread_join(tp->workers[i].thrd, NULL);
    }
    pthread_cond_destroy(&tp->cond);
    pthread_mutex_destroy(&tp->mutex);
    ggml_free_mem(tp->workers);
    ggml_aligned_free(tp, sizeof(struct ggml_threadpool));
}

int ggml_threadpool_get_n_threads(struct ggml_threadpool * tp) {
    if (tp == NULL) {
        GGML_LOG_ERROR("%s: threadpool is NULL\n", __func__);
        return 0;
    }
    return tp->n_threads_max;
}

void ggml_threadpool_pause(struct ggml_threadpool * tp) {
    if (tp == NULL) {
        GGML_LOG_ERROR("%s: threadpool is NULL\n", __func__);
        return;
    }
    pthread_mutex_lock(&tp->mutex);
    atomic_store_explicit(&tp->pause, true, memory_order_relaxed);
    pthread_mutex_unlock(&tp->mutex);
}

void ggml_threadpool_resume(struct ggml_threadpool * tp) {
    if (tp == NULL) {
        GGML_LOG_ERROR("%s: threadpool is NULL\n", __func__);
        return;
    }
    pthread_mutex_lock(&tp->mutex);
    atomic_store_explicit(&tp->pause, false, memory_order_relaxed);
    pthread_cond_broadcast(&tp->cond);
    pthread_mutex_unlock(&tp->mutex);
}

// the CPU backend's test control ops (ggml_test_control, range GGML_TEST_CPU_FIRST)
int ggml_cpu_test_control(int op, va_list args) {
    switch (op) {
        case GGML_TEST_CPU_THREADPOOL_CREATE_LIMIT: {
            const int n = va_arg(args, int);
            atomic_store(&g_create_limit, n < 0 ? -1 : n);
            return 0;
        }
        case GGML_TEST_CPU_THREADPOOL_IS_PAUSED: {
            struct ggml_threadpool * tp = va_arg(args, struct ggml_threadpool *);
            bool * out = va_arg(args, bool *);
            GGML_CHECK_RET(out != NULL, -1, "NULL output");
            *out = tp != NULL && atomic_load(&tp->pause);
            return 0;
        }
        case GGML_TEST_CPU_THREADPOOL_N_SLEEPING: {
            struct ggml_threadpool * tp = va_arg(args, struct ggml_threadpool *);
            int * out = va_arg(args, int *);
            GGML_CHECK_RET(out != NULL, -1, "NULL output");
            *out = tp == NULL ? 0 : atomic_load(&tp->n_sleeping);
            return 0;
        }
        default:
            break;
    }
    GGML_LOG_ERROR("%s: unknown op %d\n", __func__, op);
    return -1;
}

//
// running a job on the pool
//

int ggml_cpu_threadpool_execute(struct ggml_threadpool * tp, int n_threads, void (*job_fn)(struct ggml_threadpool *, int, void *), void * job) {
    if (tp == NULL || job_fn == NULL || n_threads < 1) {
        GGML_LOG_ERROR("%s: invalid arguments (threadpool %p, n_threads %d)\n", __func__, (void *) tp, n_threads);
        return 0;
    }
    bool expected = false;
    if (!atomic_compare_exchange_strong(&tp->busy, &expected, true)) {
        GGML_ERROR(GGML_ERROR_BAD_STATE, "%s: the threadpool is already computing a graph (one graph at a time per pool)\n", __func__);
        return 0;
    }
    const int n = n_threads < tp->n_threads_max ? n_threads : tp->n_threads_max;

    atomic_store_explicit(&tp->n_threads_cur, n, memory_order_relaxed);
    for (int k = 0; k < GGML_CPU_CHUNK_SLOTS; k++) {
        atomic_store_explicit(&tp->chunk[k].next, 0, memory_order_relaxed);
    }

    if (n > 1) {
        pthread_mutex_lock(&tp->mutex);
        // computing on a paused pool resumes it (as the family does)
        atomic_store_explicit(&tp->pause, false, memory_order_relaxed);
        tp->job_fn = job_fn;
        tp->job    = job;
        const unsigned old = atomic_load_explicit(&tp->n_graph, memory_order_relaxed);
        const unsigned cnt = ((old >> GGML_CPU_KICK_BITS) + 1u) << GGML_CPU_KICK_BITS;
        atomic_store_explicit(&tp->n_graph, cnt | (unsigned) n, memory_order_release);
        if (atomic_load_explicit(&tp->n_sleeping, memory_order_relaxed) > 0) {
            pthread_cond_broadcast(&tp->cond);
        }
        pthread_mutex_unlock(&tp->mutex);
    }

    job_fn(tp, 0, job);
    ggml_cpu_barrier(tp); // wait for the workers to finish

    atomic_store_explicit(&tp->busy, false, memory_order_release);
    return n;
}

struct threadpool_run_job {
    ggml_cpu_thread_fn fn;
    void *             user_data;
    int                n;
    bool               use_ref;
};

static void threadpool_run_thread(struct ggml_threadpool * tp, int ith, void * job) {
    const struct threadpool_run_job * j = job;
    const struct ggml_compute_params params = {
        .ith        = ith,
        .nth        = atomic_load_explicit(&tp->n_threads_cur, memory_order_relaxed),
        .wsize      = 0,
        .wdata      = NULL,
        .threadpool = tp,
        .use_ref    = j->use_ref,
    };
    j->fn(&params, j->user_data);
}

int ggml_cpu_threadpool_run(struct ggml_threadpool * tp, int n_threads, ggml_cpu_thread_fn fn, void * user_data) {
    if (fn == NULL) {
        GGML_LOG_ERROR("%s: fn is NULL\n", __func__);
        return 0;
    }
    struct threadpool_run_job job = { fn, user_data, n_threads, false };
    return ggml_cpu_threadpool_execute(tp, n_threads, threadpool_run_thread, &job);
}
