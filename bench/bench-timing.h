// Timing helpers shared by the bench programs: clocks in seconds and medians.
//
// Header-only (static inline) and needing nothing but the C library, because some benches
// (bench/quant-matmul.c, bench/family-perf/driver.c) are also compiled against the family's
// headers and library. Include it once per program; every program is a single file.
#pragma once

// clock_gettime is POSIX: a program that defines no feature macro gets it from here, if it
// includes this header before any system header
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <math.h>
#include <stdlib.h>
#include <time.h>

// the clock now_s() reads: CLOCK_MONOTONIC unless the program switches it (e.g. to
// CLOCK_PROCESS_CPUTIME_ID from a command-line option) before any thread starts timing
static clockid_t g_clock = CLOCK_MONOTONIC;

// seconds on the given clock
static inline double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double) ts.tv_sec + 1e-9*(double) ts.tv_nsec;
}

// seconds on g_clock
static inline double now_s(void) {
    return clock_s(g_clock);
}

// seconds of the process's CPU time (all its threads)
static inline double cpu_s(void) {
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

// qsort comparator for doubles, ascending
static inline int cmp_double(const void * a, const void * b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

// sorts v and returns its median (the mean of the two middle values when n is even); NAN when
// n <= 0
static inline double median(double * v, int n) {
    if (n <= 0) {
        return NAN;
    }
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return n % 2 ? v[n/2] : 0.5*(v[n/2 - 1] + v[n/2]);
}

// sorts v and returns v[n/2] (for even n the upper of the two middle values); NAN when n <= 0
static inline double median_upper(double * v, int n) {
    if (n <= 0) {
        return NAN;
    }
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return v[n/2];
}
