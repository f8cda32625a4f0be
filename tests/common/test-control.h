#pragma once

// Typed wrappers over the library's one test-control entry point (ggml_test_control), and the
// check that a failed call left the right last error.

#include "ggml.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

// the n-th host allocation from now fails (1-based); 0 disables
void test_alloc_fault_set(long n);
// host allocation calls counted since the last test_alloc_fault_set
long test_alloc_fault_count(void);

// CPU backend: worker threads ggml_threadpool_new may still create (-1: no limit)
void test_cpu_threadpool_set_create_limit(int n);
bool test_cpu_threadpool_is_paused(struct ggml_threadpool * tp);
int  test_cpu_threadpool_n_sleeping(struct ggml_threadpool * tp);

// OpenCL backend: replaces program `name`'s source for the builds that follow (NULL restores it)
void test_opencl_set_program_source(const char * name, const char * source);

// Checks that the thread's last error has `code` (printing the code and message otherwise),
// then clears it so that the next check starts afresh. Returns the check's result.
bool test_check_last_error_impl(enum ggml_error_code code, const char * file, int line);
#define TEST_CHECK_LAST_ERROR(code) test_check_last_error_impl((code), __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif
