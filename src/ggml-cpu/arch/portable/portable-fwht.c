// The Walsh-Hadamard transform of the portable level (ggml_cpu_fwht_fn, cpu-kernels.h): the scaled
// copy, then one butterfly stage per power of two. The reference the SIMD levels equal bit for bit.

#include "portable-kernels.h"

void ggml_cpu_fwht_portable(int64_t n, float * y, const float * x, float s) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = x[i]*s;
    }
    for (int64_t len = 1; len < n; len *= 2) {
        for (int64_t i = 0; i < n; i += 2*len) {
            for (int64_t j = i; j < i + len; j++) {
                const float u = y[j], v = y[j + len];
                y[j]       = u + v;
                y[j + len] = u - v;
            }
        }
    }
}
