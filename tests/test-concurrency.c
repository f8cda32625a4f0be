// Threads using the library at the same time:
//   - several threads, each with its own CPU backend, computing graphs at once and checking the
//     numbers against double-precision sums computed here;
//   - several threads, each with its own scheduler over its own TEST stream and CPU backend;
//   - the log callback changed from one thread while the others log: every message reaches one
//     of the callbacks, none is lost or torn;
//   - registry lookups from many threads while another thread loads and unloads a module;
//   - misuse: one thread pool, and one CPU backend, used by two threads at once. The family
//     documents this as not allowed; the library must detect it (an error status and a logged
//     error) rather than corrupt memory;
//   - the same misuse on one TEST stream and on one OpenCL backend (skipped, with a note, when
//     the machine has no OpenCL device): every backend refuses the second graph.
// Run it in the ThreadSanitizer build (-DGGML_SANITIZE=thread) to check for data races.

#define _GNU_SOURCE // readlink

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-backend.h"
#include "test-common.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_THREADS 4

//
// a graph with a work buffer: softmax(scale * (W16 x X)) + bias, checked in double
//

enum { K = 128, M = 48, N = 8 };

struct job {
    int id;
    struct ggml_context * ctx;
    struct ggml_tensor * w, * x, * bias, * out;
    struct ggml_cgraph * gf;
    float vw[K * M], vx[K * N], vb[M];
    double expected[M * N];
};

// values exactly representable in F16 (multiples of 1/64), different per job
static float val(int i, int salt) {
    const int v = ((i * 29 + salt * 53 + 7) % 97) - 48;
    return (float) (v == 0 ? 5 : v) / 64.0f;
}

// adds to j's graph a product that takes a few milliseconds and whose result nobody reads, so
// that two computations started together overlap
static bool job_add_load(struct job * j) {
    struct ggml_tensor * a = ggml_new_tensor_2d(j->ctx, GGML_TYPE_F16, 1024, 256);
    struct ggml_tensor * b = ggml_new_tensor_2d(j->ctx, GGML_TYPE_F32, 1024, 64);
    if (a == NULL || b == NULL) {
        return false;
    }
    memset(a->data, 0, ggml_nbytes(a));
    memset(b->data, 0, ggml_nbytes(b));
    struct ggml_tensor * c = ggml_mul_mat(j->ctx, a, b);
    if (c == NULL) {
        return false;
    }
    ggml_build_forward_expand(j->gf, c);
    return true;
}

static bool job_init(struct job * j, int id, bool allocate) {
    memset(j, 0, sizeof(*j));
    j->id = id;
    for (int i = 0; i < K * M; i++) {
        j->vw[i] = val(i, id);
    }
    for (int i = 0; i < K * N; i++) {
        j->vx[i] = val(i, id + 100);
    }
    for (int i = 0; i < M; i++) {
        j->vb[i] = val(i, id + 200);
    }
    for (int n = 0; n < N; n++) {
        double row[M], mx = -INFINITY, sum = 0;
        for (int m = 0; m < M; m++) {
            double s = 0;
            for (int k = 0; k < K; k++) {
                s += (double) j->vw[m * K + k] * j->vx[n * K + k];
            }
            row[m] = 0.25 * s;
            mx = row[m] > mx ? row[m] : mx;
        }
        for (int m = 0; m < M; m++) {
            row[m] = exp(row[m] - mx);
            sum += row[m];
        }
        for (int m = 0; m < M; m++) {
            j->expected[n * M + m] = row[m] / sum + j->vb[m];
        }
    }
    // room for two graphs: the scheduler test rebuilds the graph
    struct ggml_init_params p = { 2 * ggml_graph_overhead() + 16 * ggml_tensor_overhead() + (allocate ? (size_t) 4 << 20 : 0), NULL, !allocate };
    j->ctx = ggml_init(p);
    if (j->ctx == NULL) {
        return false;
    }
    j->w = ggml_new_tensor_2d(j->ctx, GGML_TYPE_F16, K, M);
    j->x = ggml_new_tensor_2d(j->ctx, GGML_TYPE_F32, K, N);
    j->bias = ggml_new_tensor_1d(j->ctx, GGML_TYPE_F32, M);
    ggml_set_input(j->x);
    j->out = ggml_add(j->ctx, ggml_soft_max_ext(j->ctx, ggml_mul_mat(j->ctx, j->w, j->x), NULL, 0.25f, 0.0f), j->bias);
    if (j->out == NULL) {
        return false;
    }
    ggml_set_output(j->out);
    j->gf = ggml_new_graph(j->ctx);
    if (j->gf == NULL) {
        return false;
    }
    ggml_build_forward_expand(j->gf, j->out);
    if (allocate) {
        ggml_fp32_to_fp16_row(j->vw, j->w->data, K * M);
        memcpy(j->x->data, j->vx, sizeof(j->vx));
        memcpy(j->bias->data, j->vb, sizeof(j->vb));
    }
    return true;
}

// weights and input through the backend API (the tensors must be allocated)
static void job_upload(struct job * j) {
    ggml_fp16_t w16[K * M];
    ggml_fp32_to_fp16_row(j->vw, w16, K * M);
    ggml_backend_tensor_set(j->w, w16, 0, sizeof(w16));
    ggml_backend_tensor_set(j->x, j->vx, 0, sizeof(j->vx));
}

static bool job_check(const struct job * j) {
    float out[M * N];
    ggml_backend_tensor_get(j->out, out, 0, sizeof(out));
    for (int i = 0; i < M * N; i++) {
        if (!(fabs(out[i] - j->expected[i]) <= 1e-3 * (1.0 + fabs(j->expected[i])))) {
            return false;
        }
    }
    return true;
}

static bool job_check_host(const struct job * j) {
    const float * out = j->out->data;
    for (int i = 0; i < M * N; i++) {
        if (!(fabs(out[i] - j->expected[i]) <= 1e-3 * (1.0 + fabs(j->expected[i])))) {
            return false;
        }
    }
    return true;
}

//
// a log callback that counts, thread-safely, what reaches it
//

struct log_counter {
    atomic_long errors;
    atomic_long other;
    atomic_long torn; // a message that does not look like the ones sent
};

static void count_log(enum ggml_log_level level, const char * text, void * user_data) {
    struct log_counter * c = user_data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        atomic_fetch_add(&c->errors, 1);
    } else {
        atomic_fetch_add(&c->other, 1);
    }
    if (text == NULL || strlen(text) > 2048) {
        atomic_fetch_add(&c->torn, 1);
    }
}

//
// 1. threads with their own CPU backends
//

#define ITERS 20

struct own_cpu_arg {
    int id;
    int ok, wrong, failed;
};

static void * own_cpu_thread(void * p) {
    struct own_cpu_arg * a = p;
    struct job j;
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (cpu == NULL || !job_init(&j, a->id, true)) {
        a->failed++;
        ggml_backend_free(cpu);
        return NULL;
    }
    ggml_backend_cpu_set_n_threads(cpu, 1 + a->id % 2);
    for (int it = 0; it < ITERS; it++) {
        memset(j.out->data, 0, ggml_nbytes(j.out));
        const enum ggml_status st = ggml_backend_graph_compute(cpu, j.gf);
        if (st != GGML_STATUS_SUCCESS) {
            a->failed++;
        } else if (job_check_host(&j)) {
            a->ok++;
        } else {
            a->wrong++;
        }
    }
    ggml_free(j.ctx);
    ggml_backend_free(cpu);
    return NULL;
}

static void test_own_cpu_backends(void) {
    pthread_t th[N_THREADS];
    struct own_cpu_arg args[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct own_cpu_arg) { .id = i };
        TEST_CHECK(pthread_create(&th[i], NULL, own_cpu_thread, &args[i]) == 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
        TEST_CHECK_MSG(args[i].ok == ITERS && args[i].wrong == 0 && args[i].failed == 0,
                "own CPU backend, thread %d: %d right, %d wrong, %d failed", i, args[i].ok, args[i].wrong, args[i].failed);
    }
}

//
// 2. threads with their own schedulers (TEST stream + CPU backend each)
//

static void * own_sched_thread(void * p) {
    struct own_cpu_arg * a = p;
    ggml_backend_t tb = test_backend_init_dev(a->id % TEST_BACKEND_N_DEVICES);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    struct job j;
    memset(&j, 0, sizeof(j));
    ggml_backend_sched_t sched = NULL;
    if (tb == NULL || cpu == NULL || !job_init(&j, a->id + 10, false)) {
        a->failed++;
        goto done;
    }
    ggml_backend_cpu_set_n_threads(cpu, 1);
    // the bias in TEST memory pulls the add there; the matrix product runs on the CPU
    ggml_backend_buffer_t wbuf = NULL;
    {
        struct ggml_init_params p = { 4 * ggml_tensor_overhead(), NULL, true };
        struct ggml_context * wctx = ggml_init(p);
        struct ggml_tensor * bias_t = ggml_new_tensor_1d(wctx, GGML_TYPE_F32, M);
        wbuf = ggml_backend_alloc_ctx_tensors(wctx, tb);
        ggml_backend_t backends[2] = { tb, cpu };
        sched = ggml_backend_sched_new(backends, NULL, 2, 64, a->id % 2 == 1);
        if (wbuf == NULL || sched == NULL) {
            a->failed++;
            ggml_backend_buffer_free(wbuf);
            ggml_free(wctx);
            goto done;
        }
        ggml_backend_tensor_set(bias_t, j.vb, 0, sizeof(j.vb));
        // rebuild the graph's last node on the TEST bias
        struct ggml_tensor * sm = j.out->src[0];
        j.out = ggml_add(j.ctx, sm, bias_t);
        ggml_set_output(j.out);
        j.gf = ggml_new_graph(j.ctx);
        ggml_build_forward_expand(j.gf, j.out);
        for (int it = 0; it < ITERS / 2; it++) {
            ggml_backend_sched_reset(sched);
            if (!ggml_backend_sched_alloc_graph(sched, j.gf)) {
                a->failed++;
                continue;
            }
            job_upload(&j);
            ggml_backend_tensor_set(bias_t, j.vb, 0, sizeof(j.vb));
            if (ggml_backend_sched_graph_compute(sched, j.gf) != GGML_STATUS_SUCCESS) {
                a->failed++;
            } else if (job_check(&j)) {
                a->ok++;
            } else {
                a->wrong++;
            }
        }
        ggml_backend_sched_free(sched);
        sched = NULL;
        ggml_backend_buffer_free(wbuf);
        ggml_free(wctx);
    }
done:
    ggml_backend_sched_free(sched);
    if (j.ctx != NULL) {
        ggml_free(j.ctx);
    }
    ggml_backend_free(cpu);
    ggml_backend_free(tb);
    return NULL;
}

static void test_own_schedulers(void) {
    pthread_t th[N_THREADS];
    struct own_cpu_arg args[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct own_cpu_arg) { .id = i };
        TEST_CHECK(pthread_create(&th[i], NULL, own_sched_thread, &args[i]) == 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
        TEST_CHECK_MSG(args[i].ok == ITERS / 2 && args[i].wrong == 0 && args[i].failed == 0,
                "own scheduler, thread %d: %d right, %d wrong, %d failed", i, args[i].ok, args[i].wrong, args[i].failed);
    }
}

//
// 3. the log callback changed while other threads log
//

#define LOG_CALLS 2000

static atomic_bool g_stop;

static void * logging_thread(void * p) {
    (void) p;
    for (int i = 0; i < LOG_CALLS; i++) {
        // one ERROR message each (plus continuation parts)
        float * f = ggml_get_data_f32(NULL);
        (void) f;
    }
    return NULL;
}

static void test_log_switching(void) {
    static struct log_counter c1, c2;
    atomic_store(&g_stop, false);
    ggml_log_set(count_log, &c1);
    pthread_t th[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        TEST_CHECK(pthread_create(&th[i], NULL, logging_thread, NULL) == 0);
    }
    // switch back and forth while they log
    for (int i = 0; i < 4000; i++) {
        ggml_log_set(count_log, i % 2 ? &c1 : &c2);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
    }
    ggml_log_set(NULL, NULL);
    const long errors = atomic_load(&c1.errors) + atomic_load(&c2.errors);
    TEST_CHECK_MSG(errors == (long) N_THREADS * LOG_CALLS, "log switching: %ld errors counted, %d sent", errors, N_THREADS * LOG_CALLS);
    TEST_CHECK(atomic_load(&c1.torn) + atomic_load(&c2.torn) == 0);
    TEST_CHECK(atomic_load(&c1.errors) > 0 || atomic_load(&c2.errors) > 0);
}

//
// 4. registry lookups from many threads (while another thread loads and unloads a module)
//

static char g_module_path[1200];

struct lookup_arg {
    int n_ok, n_bad;
};

static atomic_int g_n_loaded;

static void * lookup_thread(void * p) {
    struct lookup_arg * a = p;
    // at least 300 rounds, and on while the loader has not cycled 20 times (at most 100000 rounds)
    for (int i = 0; i < 300 || (atomic_load(&g_n_loaded) < 20 && !atomic_load(&g_stop) && i < 100000); i++) {
        const size_t n_reg = ggml_backend_reg_count();
        const size_t n_dev = ggml_backend_dev_count();
        ggml_backend_reg_t cpu_reg = ggml_backend_reg_by_name("CPU");
        ggml_backend_dev_t cpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
        bool ok = n_reg >= 1 && n_dev >= 1 && cpu_reg == ggml_backend_cpu_reg() && cpu_dev != NULL;
        ok = ok && ggml_backend_dev_by_name("CPU") == cpu_dev;
        ok = ok && ggml_backend_reg_get(0) != NULL && ggml_backend_dev_get(0) != NULL;
        if (i % 50 == 0) {
            ggml_backend_t be = ggml_backend_init_by_name("CPU", NULL);
            ok = ok && be != NULL && ggml_backend_is_cpu(be);
            ggml_backend_free(be);
        }
        if (ok) {
            a->n_ok++;
        } else {
            a->n_bad++;
        }
    }
    return NULL;
}

static void * load_unload_thread(void * p) {
    (void) p;
    while (!atomic_load(&g_stop)) {
        ggml_backend_reg_t reg = ggml_backend_load(g_module_path);
        if (reg == NULL) {
            break; // the module cannot be loaded: nothing to cycle
        }
        atomic_fetch_add(&g_n_loaded, 1);
        ggml_backend_unload(reg);
    }
    return NULL;
}

static void test_registry_threads(void) {
    // quiet: the module may be missing, and a lookup of it may race with its unloading (not an
    // error here); counts come from the results
    static struct log_counter lc;
    ggml_log_set(count_log, &lc);
    atomic_store(&g_stop, false);
    atomic_store(&g_n_loaded, 0);
    pthread_t loader;
    const bool have_module = g_module_path[0] != '\0' && access(g_module_path, R_OK) == 0;
    if (have_module) {
        TEST_CHECK(pthread_create(&loader, NULL, load_unload_thread, NULL) == 0);
    } else {
        atomic_store(&g_stop, true); // nothing to wait for
    }
    pthread_t th[N_THREADS];
    struct lookup_arg args[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        args[i] = (struct lookup_arg) { 0, 0 };
        TEST_CHECK(pthread_create(&th[i], NULL, lookup_thread, &args[i]) == 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
        TEST_CHECK_MSG(args[i].n_bad == 0, "registry lookups, thread %d: %d wrong answers", i, args[i].n_bad);
    }
    atomic_store(&g_stop, true);
    if (have_module) {
        pthread_join(loader, NULL);
        TEST_CHECK_MSG(atomic_load(&g_n_loaded) > 0, "the module was never loaded");
        printf("  registry: %d loads/unloads during the lookups\n", atomic_load(&g_n_loaded));
    } else {
        printf("  registry: no test module at %s; lookups only\n", g_module_path);
    }
    ggml_log_set(NULL, NULL);
}

//
// 5. misuse: one thread pool, one CPU backend, two threads at once
//

struct misuse_arg {
    struct job * j;
    ggml_backend_t cpu;                 // a backend shared by the threads, or
    struct ggml_threadpool * tp;        // a thread pool shared by the threads
    uint8_t * work;
    pthread_barrier_t * start;
    int ok, wrong, failed;
};

static void * misuse_thread(void * p) {
    struct misuse_arg * a = p;
    for (int it = 0; it < ITERS; it++) {
        pthread_barrier_wait(a->start);
        memset(a->j->out->data, 0, ggml_nbytes(a->j->out));
        enum ggml_status st;
        if (a->cpu != NULL) {
            st = ggml_backend_graph_compute(a->cpu, a->j->gf);
        } else {
            struct ggml_cplan plan = ggml_graph_plan(a->j->gf, 2, a->tp);
            plan.work_data = a->work;
            st = ggml_graph_compute(a->j->gf, &plan);
        }
        if (st != GGML_STATUS_SUCCESS) {
            a->failed++;
        } else if (job_check_host(a->j)) {
            a->ok++;
        } else {
            a->wrong++;
        }
    }
    return NULL;
}

// runs two threads on the shared object; every result is right or refused, refusals are logged
static void run_misuse(const char * what, ggml_backend_t cpu, struct ggml_threadpool * tp, bool expect_refusals) {
    static struct log_counter lc;
    atomic_store(&lc.errors, 0);
    struct job jobs[2];
    uint8_t * work[2] = { NULL, NULL };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    struct misuse_arg args[2];
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        ok = job_init(&jobs[i], 40 + i, true) && job_add_load(&jobs[i]) && ok;
        if (tp != NULL && ok) {
            struct ggml_cplan plan = ggml_graph_plan(jobs[i].gf, 2, tp);
            work[i] = malloc(plan.work_size + 1);
        }
        args[i] = (struct misuse_arg) { .j = &jobs[i], .cpu = cpu, .tp = tp, .work = work[i], .start = &start };
    }
    TEST_CHECK(ok);
    if (ok) {
        // one computation first, so that the backend has its pool and work buffer
        if (cpu != NULL) {
            ggml_backend_graph_compute(cpu, jobs[0].gf);
        }
        ggml_log_set(count_log, &lc);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            pthread_create(&th[i], NULL, misuse_thread, &args[i]);
        }
        for (int i = 0; i < 2; i++) {
            pthread_join(th[i], NULL);
        }
        ggml_log_set(NULL, NULL);
        const int refused = args[0].failed + args[1].failed;
        const int wrong = args[0].wrong + args[1].wrong;
        printf("  %s: %d right, %d refused, %d wrong (%ld errors logged)\n", what, args[0].ok + args[1].ok, refused, wrong,
                atomic_load(&lc.errors));
        TEST_CHECK_MSG(wrong == 0, "%s: %d wrong results (memory shared by the two computations)", what, wrong);
        TEST_CHECK_MSG(atomic_load(&lc.errors) >= refused, "%s: %d refusals but %ld errors logged", what, refused, atomic_load(&lc.errors));
        // whether the two computations overlapped at all depends on timing: that the overlap is
        // refused is checked deterministically by check_misuse_refused
        (void) expect_refusals;
    }
    for (int i = 0; i < 2; i++) {
        ggml_free(jobs[i].ctx);
        free(work[i]);
    }
    pthread_barrier_destroy(&start);
}

// A deterministic overlap: thread A computes a graph whose custom op holds the backend until
// thread B has tried its own graph on the same backend; B's attempt must be refused with an error
// and A must finish correctly.
static atomic_int g_a_inside;
static atomic_int g_b_attempted;

static void hold_backend(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * ud) {
    (void) ith; (void) nth; (void) ud;
    atomic_store(&g_a_inside, 1);
    for (int i = 0; i < 5000 && !atomic_load(&g_b_attempted); i++) {
        usleep(1000);
    }
    memcpy(dst->data, a->data, ggml_nbytes(dst));
}

struct hold_arg {
    ggml_backend_t cpu;
    struct ggml_cgraph * gf;
    enum ggml_status st;
};

static void * hold_thread(void * p) {
    struct hold_arg * a = p;
    a->st = ggml_backend_graph_compute(a->cpu, a->gf);
    return NULL;
}

static void check_misuse_refused(const char * what, ggml_backend_t cpu) {
    struct ggml_init_params ip = { 1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    for (int i = 0; i < 64; i++) {
        ((float *) x->data)[i] = (float) i - 20.5f;
    }
    struct ggml_tensor * held = ggml_map_custom1(ctx, x, hold_backend, 1, NULL);
    struct ggml_cgraph * ga = ggml_new_graph(ctx);
    ggml_build_forward_expand(ga, held);
    struct ggml_cgraph * gb = ggml_new_graph(ctx);
    ggml_build_forward_expand(gb, ggml_scale(ctx, x, 2.0f));

    atomic_store(&g_a_inside, 0);
    atomic_store(&g_b_attempted, 0);
    struct hold_arg a = { cpu, ga, GGML_STATUS_FAILED };
    pthread_t th;
    pthread_create(&th, NULL, hold_thread, &a);
    for (int i = 0; i < 5000 && !atomic_load(&g_a_inside); i++) {
        usleep(1000);
    }
    static struct log_counter lc;
    atomic_store(&lc.errors, 0);
    ggml_log_set(count_log, &lc);
    const enum ggml_status st_b = ggml_backend_graph_compute(cpu, gb);
    ggml_log_set(NULL, NULL);
    atomic_store(&g_b_attempted, 1);
    pthread_join(th, NULL);

    TEST_CHECK_MSG(atomic_load(&g_a_inside) == 1, "%s: the holding graph never started", what);
    TEST_CHECK_MSG(st_b != GGML_STATUS_SUCCESS && atomic_load(&lc.errors) >= 1,
            "%s: a second graph while the first runs was not refused with an error (status %d)", what, (int) st_b);
    TEST_CHECK_MSG(a.st == GGML_STATUS_SUCCESS && memcmp(held->data, x->data, ggml_nbytes(x)) == 0,
            "%s: the first graph did not finish correctly", what);
    ggml_free(ctx);
}

static void test_misuse(void) {
    // a thread pool shared by two plans: the pool refuses the second graph while it runs one
    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(2);
    struct ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    TEST_CHECK(tp != NULL);
    if (tp != NULL) {
        run_misuse("one thread pool, two threads", NULL, tp, true);
        ggml_threadpool_free(tp);
    }
    // one CPU backend with 2 threads (it owns a pool): same
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(cpu, 2);
    run_misuse("one CPU backend (2 threads), two threads", cpu, NULL, true);
    check_misuse_refused("one CPU backend (2 threads)", cpu);
    ggml_backend_free(cpu);
    // one CPU backend with 1 thread: no pool of its own, the two computations share its work
    // buffer. Regression for finding F6 (fixed): this was not detected and gave wrong results.
    cpu = ggml_backend_cpu_init();
    ggml_backend_cpu_set_n_threads(cpu, 1);
    run_misuse("one CPU backend (1 thread), two threads", cpu, NULL, true);
    check_misuse_refused("one CPU backend (1 thread)", cpu);
    ggml_backend_free(cpu);
}

//
// 6. one stream of another backend (the TEST backend, OpenCL when a device exists) used by two
//    threads at once: every backend refuses the second graph as the CPU backend does
//

enum { SN = 4096, S_STEPS = 8 };

struct stream_job {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * x, * b, * out;
    struct ggml_cgraph * gf;
    float vx[SN], vb[SN];
    double expected[SN];
};

// out = (...((x*0.5 + b)*0.5 + b)...) over S_STEPS steps of scale and add, in the backend's memory
static bool stream_job_init(struct stream_job * j, ggml_backend_t backend, int salt) {
    memset(j, 0, sizeof(*j));
    for (int i = 0; i < SN; i++) {
        j->vx[i] = val(i, salt);
        j->vb[i] = val(i, salt + 1);
        double e = j->vx[i];
        for (int s = 0; s < S_STEPS; s++) {
            e = e * 0.5 + j->vb[i];
        }
        j->expected[i] = e;
    }
    struct ggml_init_params p = { ggml_graph_overhead() + (2 * S_STEPS + 4) * ggml_tensor_overhead(), NULL, true };
    j->ctx = ggml_init(p);
    if (j->ctx == NULL) {
        return false;
    }
    j->x = ggml_new_tensor_1d(j->ctx, GGML_TYPE_F32, SN);
    j->b = ggml_new_tensor_1d(j->ctx, GGML_TYPE_F32, SN);
    struct ggml_tensor * t = j->x;
    for (int s = 0; s < S_STEPS && t != NULL; s++) {
        t = ggml_add(j->ctx, ggml_scale(j->ctx, t, 0.5f), j->b);
    }
    j->out = t;
    j->gf = ggml_new_graph(j->ctx);
    if (j->out == NULL || j->gf == NULL) {
        return false;
    }
    ggml_build_forward_expand(j->gf, j->out);
    for (int i = 0; i < ggml_graph_n_nodes(j->gf); i++) {
        struct ggml_tensor * node = ggml_graph_node(j->gf, i);
        if (!ggml_backend_supports_op(backend, node)) {
            printf("  %s does not support %s: skipped\n", ggml_backend_name(backend), ggml_op_desc(node));
            return false;
        }
    }
    j->buf = ggml_backend_alloc_ctx_tensors(j->ctx, backend);
    if (j->buf == NULL) {
        return false;
    }
    ggml_backend_tensor_set(j->x, j->vx, 0, sizeof(j->vx));
    ggml_backend_tensor_set(j->b, j->vb, 0, sizeof(j->vb));
    return true;
}

static bool stream_job_check(const struct stream_job * j) {
    float * out = malloc(SN * sizeof(float));
    if (out == NULL) {
        return false;
    }
    ggml_backend_tensor_get(j->out, out, 0, SN * sizeof(float));
    bool ok = true;
    for (int i = 0; i < SN && ok; i++) {
        ok = fabs(out[i] - j->expected[i]) <= 1e-5 * (1.0 + fabs(j->expected[i]));
    }
    free(out);
    return ok;
}

static void stream_job_free(struct stream_job * j) {
    ggml_backend_buffer_free(j->buf);
    if (j->ctx != NULL) {
        ggml_free(j->ctx);
    }
}

struct stream_arg {
    ggml_backend_t backend;
    struct stream_job * j;
    pthread_barrier_t * start;
    int ok, wrong, failed;
};

static void * stream_misuse_thread(void * p) {
    struct stream_arg * a = p;
    for (int it = 0; it < ITERS; it++) {
        pthread_barrier_wait(a->start);
        const enum ggml_status st = ggml_backend_graph_compute(a->backend, a->j->gf);
        ggml_backend_synchronize(a->backend);
        if (st != GGML_STATUS_SUCCESS) {
            a->failed++;
        } else if (stream_job_check(a->j)) {
            a->ok++;
        } else {
            a->wrong++;
        }
    }
    return NULL;
}

// two threads compute their own graphs on one stream: every result is right or refused (logged)
static void run_stream_misuse(const char * what, ggml_backend_t backend) {
    static struct log_counter lc;
    static struct stream_job jobs[2];
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        ok = stream_job_init(&jobs[i], backend, 60 + 7 * i) && ok;
    }
    if (ok) {
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 2);
        struct stream_arg args[2];
        for (int i = 0; i < 2; i++) {
            args[i] = (struct stream_arg) { .backend = backend, .j = &jobs[i], .start = &start };
        }
        atomic_store(&lc.errors, 0);
        ggml_log_set(count_log, &lc);
        pthread_t th[2];
        for (int i = 0; i < 2; i++) {
            pthread_create(&th[i], NULL, stream_misuse_thread, &args[i]);
        }
        for (int i = 0; i < 2; i++) {
            pthread_join(th[i], NULL);
        }
        ggml_log_set(NULL, NULL);
        pthread_barrier_destroy(&start);
        const int refused = args[0].failed + args[1].failed;
        const int wrong = args[0].wrong + args[1].wrong;
        printf("  %s: %d right, %d refused, %d wrong (%ld errors logged)\n", what, args[0].ok + args[1].ok, refused, wrong,
                atomic_load(&lc.errors));
        TEST_CHECK_MSG(wrong == 0, "%s: %d wrong results", what, wrong);
        TEST_CHECK_MSG(atomic_load(&lc.errors) >= refused, "%s: %d refusals but %ld errors logged", what, refused, atomic_load(&lc.errors));
        TEST_CHECK_MSG(args[0].ok + args[1].ok > 0, "%s: no graph computed at all", what);
    }
    for (int i = 0; i < 2; i++) {
        stream_job_free(&jobs[i]);
    }
}

struct stream_hold_arg {
    ggml_backend_t backend;
    struct stream_job * j;
    enum ggml_status st;
};

static void * stream_hold_thread(void * p) {
    struct stream_hold_arg * a = p;
    a->st = ggml_backend_graph_compute(a->backend, a->j->gf);
    return NULL;
}

// deterministic overlap on the TEST backend: its graph_compute waits before computing, and a
// second graph started meanwhile must be refused with an error while the first finishes right
static void check_test_backend_refuses(void) {
    ggml_backend_t tb = test_backend_init();
    static struct stream_job ja, jb;
    memset(&ja, 0, sizeof(ja));
    memset(&jb, 0, sizeof(jb));
    TEST_CHECK(tb != NULL);
    const bool ok = tb != NULL && stream_job_init(&ja, tb, 80) && stream_job_init(&jb, tb, 90);
    TEST_CHECK(ok);
    if (ok) {
        test_backend_reset_stats();
        test_backend_set_compute_delay(300 * 1000);
        struct stream_hold_arg a = { tb, &ja, GGML_STATUS_FAILED };
        pthread_t th;
        pthread_create(&th, NULL, stream_hold_thread, &a);
        struct test_backend_stats stats;
        for (int i = 0; i < 5000; i++) {
            test_backend_get_stats(&stats);
            if (stats.n_compute > 0) {
                break; // the first graph holds the stream
            }
            usleep(100);
        }
        static struct log_counter lc;
        atomic_store(&lc.errors, 0);
        ggml_log_set(count_log, &lc);
        const enum ggml_status st_b = ggml_backend_graph_compute(tb, jb.gf);
        ggml_log_set(NULL, NULL);
        pthread_join(th, NULL);
        test_backend_set_compute_delay(0);
        TEST_CHECK_MSG(st_b != GGML_STATUS_SUCCESS && atomic_load(&lc.errors) >= 1,
                "TEST: a second graph while the first runs was not refused with an error (status %d)", (int) st_b);
        TEST_CHECK_MSG(a.st == GGML_STATUS_SUCCESS && stream_job_check(&ja), "TEST: the first graph did not finish correctly");
        // once the first is done, the stream takes graphs again
        TEST_CHECK(ggml_backend_graph_compute(tb, jb.gf) == GGML_STATUS_SUCCESS && stream_job_check(&jb));
    }
    stream_job_free(&ja);
    stream_job_free(&jb);
    ggml_backend_free(tb);
}

static void test_stream_misuse(void) {
    check_test_backend_refuses();
    ggml_backend_t tb = test_backend_init();
    TEST_CHECK(tb != NULL);
    if (tb != NULL) {
        test_backend_set_compute_delay(2000); // long enough for the two threads' graphs to meet
        run_stream_misuse("one TEST stream, two threads", tb);
        test_backend_set_compute_delay(0);
        ggml_backend_free(tb);
    }
    ggml_backend_reg_t ocl = ggml_backend_reg_by_name("OpenCL");
    ggml_backend_dev_t dev = ocl != NULL && ggml_backend_reg_dev_count(ocl) > 0 ? ggml_backend_reg_dev_get(ocl, 0) : NULL;
    if (dev == NULL) {
        printf("  one OpenCL backend, two threads: skipped (no OpenCL device)\n");
        return;
    }
    ggml_backend_t cl = ggml_backend_dev_init(dev, NULL);
    TEST_CHECK(cl != NULL);
    if (cl != NULL) {
        run_stream_misuse("one OpenCL backend, two threads", cl);
        ggml_backend_free(cl);
    }
}

static void find_module(int argc, char ** argv) {
    if (argc > 1) {
        snprintf(g_module_path, sizeof(g_module_path), "%s/libggml-testmod.so", argv[1]);
        return;
    }
#ifdef TEST_MODULES_DIR
    snprintf(g_module_path, sizeof(g_module_path), "%s/libggml-testmod.so", TEST_MODULES_DIR);
#else
    char exe[1024];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char * slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            snprintf(g_module_path, sizeof(g_module_path), "%s/../modules/libggml-testmod.so", exe);
        }
    }
#endif
}

int main(int argc, char ** argv) {
    test_rng_init();
    find_module(argc, argv);
    ggml_cpu_init();
    test_own_cpu_backends();
    test_own_schedulers();
    test_log_switching();
    test_registry_threads();
    test_misuse();
    test_stream_misuse();
    return test_finish("test-concurrency");
}
