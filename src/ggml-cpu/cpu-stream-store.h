#pragma once

// Streaming (non-temporal) stores for results far larger than the caches: the stored lines go to
// memory without being read first (a plain store reads each line before writing it, a third of
// a copy's memory traffic) and without evicting the data the next node reads. x86-64 only (SSE2
// is part of the base ISA, so no target attribute is needed); elsewhere they are plain copies.
// After its last streaming store a thread calls ggml_cpu_stream_fence() (before any barrier or
// chunk counter publishes the result to other threads).

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#    include <immintrin.h>
#    define GGML_CPU_HAS_STREAM_STORE 1
#else
#    define GGML_CPU_HAS_STREAM_STORE 0
#endif

// results at least this large are written with streaming stores (larger than the last-level
// cache of the machines this runs on, so the next node would not find them in it anyway)
#define GGML_CPU_STREAM_MIN_BYTES ((size_t) 32 << 20)

// n bytes from src to dst (not overlapping): streaming stores for the aligned part of dst (32-byte
// stores where the build has AVX, else 16-byte SSE2 ones)
static inline void ggml_cpu_stream_copy(void * dst, const void * src, size_t n) {
#if GGML_CPU_HAS_STREAM_STORE
#    if defined(__AVX__)
    enum { ALIGN = 32 };
#    else
    enum { ALIGN = 16 };
#    endif
    char       * d = dst;
    const char * s = src;
    size_t head = (ALIGN - ((uintptr_t) d & (ALIGN - 1))) & (ALIGN - 1);
    if (head > n) {
        head = n;
    }
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
#    if defined(__AVX__)
        const __m256i a = _mm256_loadu_si256((const __m256i *) (const void *) s);
        const __m256i b = _mm256_loadu_si256((const __m256i *) (const void *) (s + 32));
        _mm256_stream_si256((__m256i *) (void *) d, a);
        _mm256_stream_si256((__m256i *) (void *) (d + 32), b);
#    else
        const __m128i a = _mm_loadu_si128((const __m128i *) (const void *) s);
        const __m128i b = _mm_loadu_si128((const __m128i *) (const void *) (s + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *) (const void *) (s + 32));
        const __m128i e = _mm_loadu_si128((const __m128i *) (const void *) (s + 48));
        _mm_stream_si128((__m128i *) (void *) d, a);
        _mm_stream_si128((__m128i *) (void *) (d + 16), b);
        _mm_stream_si128((__m128i *) (void *) (d + 32), c);
        _mm_stream_si128((__m128i *) (void *) (d + 48), e);
#    endif
    }
    memcpy(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}

static inline void ggml_cpu_stream_fence(void) {
#if GGML_CPU_HAS_STREAM_STORE
    _mm_sfence();
#endif
}
