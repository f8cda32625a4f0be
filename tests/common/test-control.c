#include "test-control.h"
#include "test-common.h"

#include "ggml-impl.h" // ggml_test_control

void test_alloc_fault_set(long n) {
    TEST_CHECK(ggml_test_control(GGML_TEST_ALLOC_FAULT_SET, n) == 0);
}

long test_alloc_fault_count(void) {
    long n = -1;
    TEST_CHECK(ggml_test_control(GGML_TEST_ALLOC_FAULT_COUNT, &n) == 0);
    return n;
}

void test_cpu_threadpool_set_create_limit(int n) {
    TEST_CHECK(ggml_test_control(GGML_TEST_CPU_THREADPOOL_CREATE_LIMIT, n) == 0);
}

bool test_cpu_threadpool_is_paused(struct ggml_threadpool * tp) {
    bool paused = false;
    TEST_CHECK(ggml_test_control(GGML_TEST_CPU_THREADPOOL_IS_PAUSED, tp, &paused) == 0);
    return paused;
}

int test_cpu_threadpool_n_sleeping(struct ggml_threadpool * tp) {
    int n = -1;
    TEST_CHECK(ggml_test_control(GGML_TEST_CPU_THREADPOOL_N_SLEEPING, tp, &n) == 0);
    return n;
}

void test_opencl_set_program_source(const char * name, const char * source) {
    TEST_CHECK(ggml_test_control(GGML_TEST_OPENCL_SET_PROGRAM_SOURCE, name, source) == 0);
}

bool test_check_last_error_impl(enum ggml_error_code code, const char * file, int line) {
    const enum ggml_error_code got = ggml_last_error();
    const bool ok = test_check_msg_impl(got == code, file, line, "last error: expected %s, got %s ('%s')",
        ggml_error_code_name(code), ggml_error_code_name(got), ggml_last_error_message());
    ggml_clear_last_error();
    return ok;
}
