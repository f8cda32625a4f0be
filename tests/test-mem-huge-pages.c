// The huge-page offer of large host buffers (ggml_aligned_malloc, src/ggml-mem.c): which sizes get
// it, the 2 MiB alignment, that the kernel takes the offer where its transparent huge pages are
// in "madvise" or "always" mode (the buffer's mapping is THP-eligible in /proc/self/smaps), that
// GGML_HUGEPAGES=0 turns it off, and that CPU backend buffers and contexts inherit it.

#define _GNU_SOURCE // setenv, unsetenv

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "test-common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// whether the kernel takes madvise(MADV_HUGEPAGE) offers: "[always]" or "[madvise]" selected
static bool thp_takes_offers(void) {
#if defined(__linux__)
    FILE * f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == NULL) {
        return false;
    }
    char line[256] = { 0 };
    const bool ok = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    return ok && (strstr(line, "[always]") != NULL || strstr(line, "[madvise]") != NULL);
#else
    return false;
#endif
}

// the "THPeligible" value of the mapping that holds p (-1: not found)
static int thp_eligible(const void * p) {
    FILE * f = fopen("/proc/self/smaps", "r");
    if (f == NULL) {
        return -1;
    }
    const uintptr_t a = (uintptr_t) p;
    char line[512];
    bool inside = false;
    int result = -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo = 0, hi = 0;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ':') != NULL && line[0] != ' ') {
            inside = a >= lo && a < hi;
            continue;
        }
        int v = 0;
        if (inside && sscanf(line, "THPeligible: %d", &v) == 1) {
            result = v;
            break;
        }
    }
    fclose(f);
    return result;
}

static void check_sizes(void) {
    unsetenv("GGML_HUGEPAGES");
#if defined(__linux__)
    TEST_CHECK(ggml_mem_huge_pages_wanted(GGML_MEM_HUGE_MIN));
    TEST_CHECK(ggml_mem_huge_pages_wanted((size_t) 1 << 30));
#endif
    TEST_CHECK(!ggml_mem_huge_pages_wanted(GGML_MEM_HUGE_MIN - 1));
    TEST_CHECK(!ggml_mem_huge_pages_wanted(4096));
    TEST_CHECK(!ggml_mem_huge_pages_wanted(0));
    setenv("GGML_HUGEPAGES", "0", 1);
    TEST_CHECK(!ggml_mem_huge_pages_wanted((size_t) 1 << 30));
    setenv("GGML_HUGEPAGES", "1", 1);
#if defined(__linux__)
    TEST_CHECK(ggml_mem_huge_pages_wanted((size_t) 1 << 30));
#endif
    unsetenv("GGML_HUGEPAGES");
}

// a large allocation: aligned, written whole, eligible where the kernel takes offers
static void check_block(const char * what, void * p, size_t size) {
    if (!TEST_CHECK_MSG(p != NULL, "%s: no memory", what)) {
        return;
    }
    const bool wanted = ggml_mem_huge_pages_wanted(size);
    if (wanted) {
        TEST_CHECK_MSG((uintptr_t) p % GGML_MEM_HUGE_ALIGN == 0, "%s: %p not on a 2 MiB boundary", what, p);
    }
    TEST_CHECK_MSG((uintptr_t) p % 64 == 0, "%s: %p not 64-byte aligned", what, p);
    memset(p, 0x5a, size);
    const unsigned char * b = p;
    TEST_CHECK(b[0] == 0x5a && b[size - 1] == 0x5a);
    // kernels older than 4.15 have no THPeligible line (-1): nothing to check there
    if (wanted && thp_takes_offers() && thp_eligible(p) != -1) {
        TEST_CHECK_MSG(thp_eligible(p) == 1, "%s: the mapping of %p is not THP-eligible (%d)", what, p, thp_eligible(p));
    }
}

static void check_allocations(void) {
    const size_t big = (size_t) 24 << 20;

    unsetenv("GGML_HUGEPAGES");
    void * p = ggml_aligned_malloc(big);
    check_block("ggml_aligned_malloc", p, big);
    ggml_aligned_free(p, big);

    // small ones keep the ordinary alignment and are never advised
    void * s = ggml_aligned_malloc(1000);
    TEST_CHECK(s != NULL && (uintptr_t) s % 64 == 0);
    ggml_aligned_free(s, 1000);

    // a CPU backend buffer and a context's memory come from the same function
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_cpu_buffer_type(), big);
    if (TEST_CHECK(buf != NULL)) {
        check_block("CPU buffer", ggml_backend_buffer_get_base(buf), big);
        ggml_backend_buffer_free(buf);
    }
    struct ggml_init_params ip = { big, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (TEST_CHECK(ctx != NULL)) {
        struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) (big / 8));
        const void * mem = ggml_get_mem_buffer(ctx);
        if (ggml_mem_huge_pages_wanted(big)) {
            TEST_CHECK_MSG((uintptr_t) mem % GGML_MEM_HUGE_ALIGN == 0, "context memory %p not on a 2 MiB boundary", mem);
        }
        if (TEST_CHECK(t != NULL)) {
            memset(t->data, 0x5a, ggml_nbytes(t));
            if (ggml_mem_huge_pages_wanted(big) && thp_takes_offers() && thp_eligible(t->data) != -1) {
                TEST_CHECK_MSG(thp_eligible(t->data) == 1, "the context's mapping is not THP-eligible");
            }
        }
        ggml_free(ctx);
    }

    // turned off: still a valid, aligned block
    setenv("GGML_HUGEPAGES", "0", 1);
    p = ggml_aligned_malloc(big);
    check_block("ggml_aligned_malloc, GGML_HUGEPAGES=0", p, big);
    ggml_aligned_free(p, big);
    unsetenv("GGML_HUGEPAGES");
}

int main(void) {
    check_sizes();
    check_allocations();
    printf("transparent huge pages take offers here: %s\n", thp_takes_offers() ? "yes" : "no (the eligibility checks were skipped)");
    return test_finish("test-mem-huge-pages");
}
