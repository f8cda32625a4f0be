// Reference buffers for the bandwidth figures (the plain read, the copy): large ones get the same
// transparent-huge-page offer as the library's large buffers (ggml_aligned_malloc, src/ggml-mem.c),
// so that "the read" stays the machine's best read rather than one slowed by 4 KiB pages. The
// environment variable GGML_HUGEPAGES=0 turns the offer off here as it does in the library.
// Include it first, or after defining _DEFAULT_SOURCE / _GNU_SOURCE (madvise).

#pragma once

#if !defined(_DEFAULT_SOURCE) && !defined(_GNU_SOURCE)
#define _DEFAULT_SOURCE
#endif

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define BENCH_HUGE_MIN   ((size_t) 4 << 20)
#define BENCH_HUGE_ALIGN ((size_t) 2 << 20)

// bytes of memory (free() it), NULL on failure
static inline void * bench_alloc_big(size_t bytes) {
    const char * e = getenv("GGML_HUGEPAGES");
    const int huge = bytes >= BENCH_HUGE_MIN && (e == NULL || strcmp(e, "0") != 0);
    void * p = NULL;
    if (posix_memalign(&p, huge ? BENCH_HUGE_ALIGN : 64, bytes) != 0) {
        return NULL;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (huge) {
        (void) madvise(p, bytes, MADV_HUGEPAGE);
    }
#endif
    return p;
}
