// GGML_OPENCL_PROFILE=1: the time of every kernel a backend runs, from OpenCL profiling events.
//
// Each launch on a profiled backend keeps its event with the node's op and the kernel's name
// (both string literals). When the backend synchronizes, the finished events are read (start and
// end on the device clock), added to a table per (op, kernel) and released. At backend free the
// table is printed to stderr, the longest total first, with each row's share of the total.

#include "ggml-opencl-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// events kept before they are waited for and read in the middle of a graph
#define PROFILE_MAX_PENDING 8192

struct profile_pending {
    const char * op;
    const char * kernel;
    cl_event     event;
};

struct profile_row {
    const char * op;
    const char * kernel;
    long long    calls;
    double       ns;
};

struct ggml_ocl_profile {
    pthread_mutex_t lock;
    struct profile_pending * pending;
    int n_pending;
    size_t cap_pending;
    struct profile_row * rows;
    int n_rows;
    size_t cap_rows;
    long long n_failed; // events whose times could not be read
};

bool ggml_ocl_profile_requested(void) {
    const char * e = getenv("GGML_OPENCL_PROFILE");
    return e != NULL && e[0] != '\0' && strcmp(e, "0") != 0;
}

struct ggml_ocl_profile * ggml_ocl_profile_new(void) {
    struct ggml_ocl_profile * p = ggml_calloc(1, sizeof(*p));
    if (p == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

static void add_time(struct ggml_ocl_profile * p, const char * op, const char * kernel, double ns) {
    for (int i = 0; i < p->n_rows; i++) {
        if (p->rows[i].op == op && p->rows[i].kernel == kernel) {
            p->rows[i].calls++;
            p->rows[i].ns += ns;
            return;
        }
    }
    struct profile_row * rows = ggml_grow_array(p->rows, &p->cap_rows, (size_t) p->n_rows + 1, sizeof(*rows), 64);
    if (rows == NULL) {
        p->n_failed++;
        return;
    }
    p->rows = rows;
    p->rows[p->n_rows++] = (struct profile_row) { op, kernel, 1, ns };
}

// reads and releases the pending events (the caller has waited for them); lock held
static void collect_locked(struct ggml_ocl_profile * p) {
    for (int i = 0; i < p->n_pending; i++) {
        const struct profile_pending * e = &p->pending[i];
        cl_ulong t0 = 0, t1 = 0;
        if (clGetEventProfilingInfo(e->event, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL) == CL_SUCCESS &&
            clGetEventProfilingInfo(e->event, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL) == CL_SUCCESS && t1 >= t0) {
            add_time(p, e->op, e->kernel, (double) (t1 - t0));
        } else {
            p->n_failed++;
        }
        clReleaseEvent(e->event);
    }
    p->n_pending = 0;
}

void ggml_ocl_profile_add(struct ggml_ocl_profile * p, const char * op, const char * kernel, cl_event event) {
    pthread_mutex_lock(&p->lock);
    if (p->n_pending >= PROFILE_MAX_PENDING) {
        // a long graph: wait for what is queued so far (profiling already serializes the device)
        if (clWaitForEvents(1, &p->pending[p->n_pending - 1].event) == CL_SUCCESS) {
            collect_locked(p);
        }
    }
    struct profile_pending * pend = p->n_pending < PROFILE_MAX_PENDING ?
        ggml_grow_array(p->pending, &p->cap_pending, (size_t) p->n_pending + 1, sizeof(*pend), 256) : NULL;
    if (pend != NULL) {
        p->pending = pend;
        p->pending[p->n_pending++] = (struct profile_pending) { op, kernel, event };
    } else {
        p->n_failed++;
        clReleaseEvent(event);
    }
    pthread_mutex_unlock(&p->lock);
}

void ggml_ocl_profile_collect(struct ggml_ocl_profile * p) {
    pthread_mutex_lock(&p->lock);
    collect_locked(p);
    pthread_mutex_unlock(&p->lock);
}

static int by_time_desc(const void * a, const void * b) {
    const double x = ((const struct profile_row *) a)->ns, y = ((const struct profile_row *) b)->ns;
    return x < y ? 1 : x > y ? -1 : 0;
}

void ggml_ocl_profile_print(struct ggml_ocl_profile * p, const char * backend_name) {
    pthread_mutex_lock(&p->lock);
    collect_locked(p);
    qsort(p->rows, (size_t) p->n_rows, sizeof(p->rows[0]), by_time_desc);
    double total = 0.0;
    long long calls = 0;
    for (int i = 0; i < p->n_rows; i++) {
        total += p->rows[i].ns;
        calls += p->rows[i].calls;
    }
    fprintf(stderr, "GGML_OPENCL_PROFILE %s: %lld kernel runs, %.3f ms on the device\n", backend_name, calls, total * 1e-6);
    fprintf(stderr, "%-14s %-24s %10s %12s %10s %7s\n", "op", "kernel", "runs", "total ms", "mean us", "share");
    for (int i = 0; i < p->n_rows; i++) {
        const struct profile_row * r = &p->rows[i];
        fprintf(stderr, "%-14s %-24s %10lld %12.3f %10.2f %6.1f%%\n", r->op, r->kernel, r->calls, r->ns * 1e-6,
            r->ns * 1e-3 / (double) r->calls, total > 0.0 ? 100.0 * r->ns / total : 0.0);
    }
    if (p->n_failed > 0) {
        fprintf(stderr, "GGML_OPENCL_PROFILE %s: %lld runs not counted (no profiling times)\n", backend_name, p->n_failed);
    }
    pthread_mutex_unlock(&p->lock);
}

void ggml_ocl_profile_free(struct ggml_ocl_profile * p) {
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n_pending; i++) {
        clReleaseEvent(p->pending[i].event);
    }
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_destroy(&p->lock);
    ggml_free_mem(p->pending);
    ggml_free_mem(p->rows);
    ggml_free_mem(p);
}

cl_event * ggml_ocl_profile_slot(struct ggml_ocl_backend * be, cl_event * slot) {
    *slot = NULL;
    return be != NULL && be->profile != NULL ? slot : NULL;
}

void ggml_ocl_profile_launched(struct ggml_ocl_backend * be, const struct ggml_tensor * node, const char * kernel, cl_event ev) {
    if (be == NULL || be->profile == NULL || ev == NULL) {
        return;
    }
    ggml_ocl_profile_add(be->profile, node != NULL ? ggml_op_desc(node) : "-", kernel, ev);
}
