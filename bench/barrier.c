// The CPU executor's barrier: nanoseconds per ggml_cpu_barrier with 2 (or N) threads of a pool,
// every thread calling it back to back (the hand-over latency, nothing else), and the same with
// a little uneven work before each barrier (the case between two graph nodes, where one thread
// arrives first and waits).
//
//   barrier [n_threads] [iterations]     (default 2 and 200000)

#include "bench-timing.h" // first: it selects POSIX for clock_gettime

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-impl.h"

#include <stdio.h>
#include <stdlib.h>

struct barrier_job {
    int iters;
    int work; // spin iterations before each barrier on thread 0 (the others arrive first)
};

static void barrier_loop(const struct ggml_compute_params * params, void * ud) {
    const struct barrier_job * j = ud;
    volatile int sink = 0;
    for (int i = 0; i < j->iters; i++) {
        if (params->ith == 0) {
            for (int k = 0; k < j->work; k++) {
                sink += k;
            }
        }
        ggml_cpu_barrier(params->threadpool);
    }
    (void) sink;
}

// nanoseconds per barrier, median of 5 runs
static double ns_per_barrier(struct ggml_threadpool * tp, int n_threads, int iters, int work) {
    double v[5];
    struct barrier_job job = { iters, work };
    for (int r = 0; r < 5; r++) {
        const int64_t t0 = ggml_time_us();
        ggml_cpu_threadpool_run(tp, n_threads, barrier_loop, &job);
        v[r] = 1e3 * (double) (ggml_time_us() - t0) / iters;
    }
    return median(v, 5);
}

int main(int argc, char ** argv) {
    const int n_threads = argc > 1 ? atoi(argv[1]) : 2;
    const int iters     = argc > 2 ? atoi(argv[2]) : 200000;
    if (n_threads < 1 || iters < 1) {
        fprintf(stderr, "usage: %s [n_threads >= 1] [iterations >= 1]\n", argv[0]);
        return 1;
    }
    ggml_time_init();
    struct ggml_threadpool_params p = ggml_threadpool_params_default(n_threads);
    struct ggml_threadpool * tp = ggml_threadpool_new(&p);
    if (tp == NULL) {
        return 1;
    }
    // the spin loop's cost alone, to subtract from the uneven case
    const double work_alone = ns_per_barrier(tp, 1, iters, 200);
    printf("barrier: %d threads, %d iterations, median of 5\n", n_threads, iters);
    printf("  back to back:                 %8.1f ns/barrier\n", ns_per_barrier(tp, n_threads, iters, 0));
    printf("  thread 0 arrives last (~%3.0f ns of work first): %8.1f ns/barrier over the work alone\n",
           work_alone, ns_per_barrier(tp, n_threads, iters, 200) - work_alone);
    ggml_threadpool_free(tp);
    return 0;
}
