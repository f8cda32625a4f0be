// The Walsh-Hadamard transform of the AVX2 level (ggml_cpu_fwht_fn, cpu-kernels.h). The scaled copy
// and the stages of pair distance 1, 2 and 4 in one pass over the row, inside each 8-float vector
// (the partner lanes brought over by a permute; u + v and u - v as one fused multiply-add of the
// lane by +-1 with the partner, which rounds once like the plain sum); then the stages of distance
// 8 and up two at a time (4 vectors loaded, two stages, 4 stored), the last one alone when their
// count is odd. Same sums in the same stage order as the portable level, so the same bits.

#include "x86-kernels.h"

#if GGML_CPU_X86

#include <immintrin.h>

GGML_TARGET_AVX2 void ggml_cpu_fwht_avx2(int64_t n, float * y, const float * x, float s) {
    if (n < 8) {
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
        return;
    }
    // lanes whose partner is above them keep +1 (they become u + v), the others -1 (u - v)
    const __m256 sg1 = _mm256_setr_ps(1.0f, -1.0f, 1.0f, -1.0f, 1.0f, -1.0f, 1.0f, -1.0f);
    const __m256 sg2 = _mm256_setr_ps(1.0f, 1.0f, -1.0f, -1.0f, 1.0f, 1.0f, -1.0f, -1.0f);
    const __m256 sg4 = _mm256_setr_ps(1.0f, 1.0f, 1.0f, 1.0f, -1.0f, -1.0f, -1.0f, -1.0f);
    const __m256 vs  = _mm256_set1_ps(s);
    for (int64_t i = 0; i < n; i += 8) {
        __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), vs);
        v = _mm256_fmadd_ps(v, sg1, _mm256_permute_ps(v, 0xB1));
        v = _mm256_fmadd_ps(v, sg2, _mm256_permute_ps(v, 0x4E));
        v = _mm256_fmadd_ps(v, sg4, _mm256_permute2f128_ps(v, v, 0x01));
        _mm256_storeu_ps(y + i, v);
    }
    int64_t len = 8;
    for (; 4*len <= n; len *= 4) {
        for (int64_t i = 0; i < n; i += 4*len) {
            for (int64_t j = i; j < i + len; j += 8) {
                const __m256 a = _mm256_loadu_ps(y + j);
                const __m256 b = _mm256_loadu_ps(y + j + len);
                const __m256 c = _mm256_loadu_ps(y + j + 2*len);
                const __m256 d = _mm256_loadu_ps(y + j + 3*len);
                const __m256 ab = _mm256_add_ps(a, b), amb = _mm256_sub_ps(a, b);
                const __m256 cd = _mm256_add_ps(c, d), cmd = _mm256_sub_ps(c, d);
                _mm256_storeu_ps(y + j,         _mm256_add_ps(ab, cd));
                _mm256_storeu_ps(y + j + len,   _mm256_add_ps(amb, cmd));
                _mm256_storeu_ps(y + j + 2*len, _mm256_sub_ps(ab, cd));
                _mm256_storeu_ps(y + j + 3*len, _mm256_sub_ps(amb, cmd));
            }
        }
    }
    if (len < n) {
        for (int64_t j = 0; j < len; j += 8) {
            const __m256 a = _mm256_loadu_ps(y + j);
            const __m256 b = _mm256_loadu_ps(y + j + len);
            _mm256_storeu_ps(y + j,       _mm256_add_ps(a, b));
            _mm256_storeu_ps(y + j + len, _mm256_sub_ps(a, b));
        }
    }
}

#else

// nothing to build on other architectures (ISO C wants a declaration in every file)
typedef int ggml_avx2_fwht_unused;

#endif // GGML_CPU_X86
