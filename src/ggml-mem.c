// Host memory for the whole library, with a fault-injection hook for the tests.
//
// Every host allocation goes through these functions. A failure is recorded as the thread's
// last error (out of memory) for the caller's report to keep. The test control op
// GGML_TEST_ALLOC_FAULT_SET makes the n-th allocation from then on fail, so that tests can walk
// every allocation of a program and check that each failure is reported and nothing leaks.

#include "ggml-impl.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

static atomic_long g_alloc_count;
static atomic_long g_alloc_fault_at;

void ggml_mem_test_fault_set(long n) {
    atomic_store(&g_alloc_count, 0);
    atomic_store(&g_alloc_fault_at, n > 0 ? n : 0);
}

long ggml_mem_test_fault_count(void) {
    return atomic_load(&g_alloc_count);
}

// true when this allocation must fail
static bool ggml_alloc_fault_hit(void) {
    long n = atomic_fetch_add(&g_alloc_count, 1) + 1;
    long at = atomic_load(&g_alloc_fault_at);
    return at > 0 && n == at;
}

// records the outcome for the error channel; returns ptr
static void * ggml_alloc_result(void * ptr, size_t size, const char * func) {
    if (ptr == NULL) {
        ggml_error_note(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory (%zu bytes)", func, size);
    } else {
        ggml_error_alloc_succeeded();
    }
    return ptr;
}

void * ggml_malloc(size_t size) {
    if (ggml_alloc_fault_hit()) {
        return ggml_alloc_result(NULL, size, __func__);
    }
    return ggml_alloc_result(malloc(size == 0 ? 1 : size), size, __func__);
}

void * ggml_calloc(size_t n, size_t size) {
    if (ggml_alloc_fault_hit()) {
        return ggml_alloc_result(NULL, n*size, __func__);
    }
    if (n == 0 || size == 0) {
        return ggml_alloc_result(calloc(1, 1), 0, __func__);
    }
    return ggml_alloc_result(calloc(n, size), n*size, __func__);
}

void * ggml_realloc(void * ptr, size_t size) {
    if (ggml_alloc_fault_hit()) {
        return ggml_alloc_result(NULL, size, __func__);
    }
    return ggml_alloc_result(realloc(ptr, size == 0 ? 1 : size), size, __func__);
}

void * ggml_grow_array(void * arr, size_t * cap, size_t need, size_t elem_size, size_t min_cap) {
    if (need <= *cap && arr != NULL) {
        return arr;
    }
    const size_t max_elems = elem_size > 0 && SIZE_MAX / elem_size < (size_t) INT_MAX ? SIZE_MAX / elem_size : (size_t) INT_MAX;
    if (need > max_elems) {
        return NULL;
    }
    size_t new_cap = *cap > min_cap ? *cap : (min_cap > 0 ? min_cap : 1);
    while (new_cap < need) {
        new_cap = new_cap > max_elems / 2 ? max_elems : 2 * new_cap;
    }
    void * p = ggml_realloc(arr, new_cap * elem_size);
    if (p != NULL) {
        *cap = new_cap;
    }
    return p;
}

void ggml_free_mem(void * ptr) {
    free(ptr);
}

bool ggml_mem_huge_pages_wanted(size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (size < GGML_MEM_HUGE_MIN) {
        return false;
    }
    const char * e = getenv("GGML_HUGEPAGES");
    return e == NULL || strcmp(e, "0") != 0;
#else
    (void) size;
    return false;
#endif
}

// Large buffers (weights, KV caches, big contexts) start on a 2 MiB boundary and are offered to
// the kernel's transparent huge pages: the products stream such buffers, and with 4 KiB pages
// every 4 KiB of a weight row costs a TLB miss (the few-columns products walk many rows at once
// and measurably pay for it). Only an offer: where the kernel has THP off or no huge page is
// free, the memory is ordinary. GGML_HUGEPAGES=0 turns the offer off.
void * ggml_aligned_malloc(size_t size) {
    if (size == 0) {
        return NULL;
    }
    if (ggml_alloc_fault_hit()) {
        return ggml_alloc_result(NULL, size, __func__);
    }
    const bool huge = ggml_mem_huge_pages_wanted(size);
    void * ptr = NULL;
    if (posix_memalign(&ptr, huge ? GGML_MEM_HUGE_ALIGN : GGML_MEM_ALIGN_HOST, size) != 0) {
        ptr = NULL;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (ptr != NULL && huge) {
        (void) madvise(ptr, size, MADV_HUGEPAGE); // a refusal leaves ordinary pages: nothing to report
    }
#endif
    return ggml_alloc_result(ptr, size, __func__);
}

void ggml_aligned_free(void * ptr, size_t size) {
    (void) size;
    free(ptr);
}
