#pragma once

// A minimal test harness shared by every test executable: checks that count instead of
// aborting, capture of the library's log, and a seeded random generator.

#include "ggml.h"
#include "test-control.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// Records one check; on failure prints file:line and the expression. Returns cond.
bool test_check_impl(bool cond, const char * expr, const char * file, int line);
#define TEST_CHECK(cond) test_check_impl(!!(cond), #cond, __FILE__, __LINE__)

// Like TEST_CHECK with a printf-style explanation printed on failure.
bool test_check_msg_impl(bool cond, const char * file, int line, const char * fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define TEST_CHECK_MSG(cond, ...) test_check_msg_impl(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

// Prints "<name>: N passed, N failed" and returns the process exit code (0 when nothing failed).
int test_finish(const char * name);

int test_n_failed(void);

// Log capture: while active, the library's messages go to a buffer instead of stderr.
void         test_log_capture_begin(void);
void         test_log_capture_end(void);
int          test_log_error_count(void);   // ERROR-level messages since capture began
const char * test_log_text(void);          // the captured text (truncated at 64 KiB)

// Seeded generator (xoshiro-style). Seed from TEST_SEED env var when set, else from time; the
// seed is printed so a failing run can be repeated.
void     test_rng_init(void);
uint64_t test_rng_seed(void);
uint64_t test_rand_u64(void);
double   test_rand_uniform(double lo, double hi); // [lo, hi)
int64_t  test_rand_int(int64_t lo, int64_t hi);   // [lo, hi]
// every element of the F32 tensor t (with data) drawn uniformly from [lo, hi), in order
void     test_fill_uniform_f32(struct ggml_tensor * t, double lo, double hi);

#ifdef __cplusplus
}
#endif
