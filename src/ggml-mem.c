// Host memory for the whole library, with a fault-injection hook for the tests.
//
// Every host allocation goes through these functions. ggml_alloc_fault_set(n) makes the n-th
// allocation from then on fail, so that tests can walk every allocation of a program and check
// that each failure is reported and nothing leaks.

#include "ggml-impl.h"

#include <stdatomic.h>

static atomic_long g_alloc_count;
static atomic_long g_alloc_fault_at;

void ggml_alloc_fault_set(long n) {
    atomic_store(&g_alloc_count, 0);
    atomic_store(&g_alloc_fault_at, n > 0 ? n : 0);
}

long ggml_alloc_fault_count(void) {
    return atomic_load(&g_alloc_count);
}

// true when this allocation must fail
static bool ggml_alloc_fault_hit(void) {
    long n = atomic_fetch_add(&g_alloc_count, 1) + 1;
    long at = atomic_load(&g_alloc_fault_at);
    return at > 0 && n == at;
}

void * ggml_malloc(size_t size) {
    if (ggml_alloc_fault_hit()) {
        return NULL;
    }
    return malloc(size == 0 ? 1 : size);
}

void * ggml_calloc(size_t n, size_t size) {
    if (ggml_alloc_fault_hit()) {
        return NULL;
    }
    if (n == 0 || size == 0) {
        return calloc(1, 1);
    }
    return calloc(n, size);
}

void * ggml_realloc(void * ptr, size_t size) {
    if (ggml_alloc_fault_hit()) {
        return NULL;
    }
    return realloc(ptr, size == 0 ? 1 : size);
}

void ggml_free_mem(void * ptr) {
    free(ptr);
}

void * ggml_aligned_malloc(size_t size) {
    if (size == 0) {
        return NULL;
    }
    if (ggml_alloc_fault_hit()) {
        return NULL;
    }
    void * ptr = NULL;
    if (posix_memalign(&ptr, GGML_MEM_ALIGN_HOST, size) != 0) {
        return NULL;
    }
    return ptr;
}

void ggml_aligned_free(void * ptr, size_t size) {
    (void) size;
    free(ptr);
}
