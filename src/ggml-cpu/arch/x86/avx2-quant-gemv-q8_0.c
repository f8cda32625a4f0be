// AVX2 decode kernel (the gemv slot of cpu-kernels.h) of Q8_0 x Q8_0: s[r] = dot(weight row r,
// one activation row) for nr consecutive rows (the tied output matrix of small models: 49152 rows
// of K = 576, 18 blocks).
//
// The structure of avx2-quant-gemv.c (4 distant runs of rows in lockstep, 8 blocks reduced to one
// vector of block sums, the activation blocks read as they are), with the change of
// avx2-quant-gemv-q4_1.c for short rows: when a row ends in 1 or 2 blocks past its whole groups
// (18 = 2 x 8 + 2), the 4 runs' tails share one group (lanes 2t and 2t + 1 are run t's) instead of
// a partial group each (a whole group's reduction and scales per row); a row adds its two lanes
// after its horizontal sum, in the runs and in the single rows alike, so that a row's bits do not
// depend on the call's split. Exact integer block sums; results differ from avx2-quant-gemv.c's
// only in the order of the float additions.

#include "avx2-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define Q80_GROUP 8
#define Q80_RUNS  4
#define Q80_SEG   32   // whole groups whose activation scales are converted at a time
#define Q80_PF    2048 // software prefetch distance of the single rows after the runs, bytes
#define Q80_SZ    sizeof(block_q8_0)

#define Q80_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// the first 4 bytes of the block at b (NULL: 0): its fp16 scale in the low word
Q80_INLINE __m128i q80_word(const char * b) {
    int w = 0;
    if (b != NULL) {
        memcpy(&w, b, sizeof(w));
    }
    return _mm_cvtsi32_si128(w);
}

// 8 blocks' fp16 scales (lane j: block x[j]) as floats, built in registers (a store of the words
// and a vector load of them would stall on store forwarding)
Q80_INLINE __m256 q80_scales(const char * const * x) {
    const __m128i lo = _mm_unpacklo_epi64(_mm_unpacklo_epi32(q80_word(x[0]), q80_word(x[1])),
                                          _mm_unpacklo_epi32(q80_word(x[2]), q80_word(x[3])));
    const __m128i hi = _mm_unpacklo_epi64(_mm_unpacklo_epi32(q80_word(x[4]), q80_word(x[5])),
                                          _mm_unpacklo_epi32(q80_word(x[6]), q80_word(x[7])));
    const __m128i sel = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    return _mm256_cvtph_ps(_mm_unpacklo_epi64(_mm_shuffle_epi8(lo, sel), _mm_shuffle_epi8(hi, sel)));
}

// the 8 exact int32 sums of the block pairs (x[j], y[j]) (x[j] NULL: 0), lane j
Q80_INLINE __m256i q80_sums(const char * const * x, const char * const * y) {
    __m256i m[Q80_GROUP];
    for (int j = 0; j < Q80_GROUP; j++) {
        if (x[j] == NULL) {
            m[j] = _mm256_setzero_si256();
            continue;
        }
        const __m256i w = _mm256_loadu_si256((const __m256i *)(const void *) (x[j] + offsetof(block_q8_0, qs)));
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *) (y[j] + offsetof(block_q8_0, qs)));
        const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w));
        m[j] = _mm256_madd_epi16(p, _mm256_set1_epi16(1));
    }
    const __m256i g0 = _mm256_hadd_epi32(_mm256_hadd_epi32(m[0], m[1]), _mm256_hadd_epi32(m[2], m[3]));
    const __m256i g1 = _mm256_hadd_epi32(_mm256_hadd_epi32(m[4], m[5]), _mm256_hadd_epi32(m[6], m[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(g0, g1, 0x20), _mm256_permute2x128_si256(g0, g1, 0x31));
}

// the group of nv (<= 8) blocks at xg against the activation blocks at yg, ad their scales
Q80_INLINE __m256 q80_group(const char * xg, const char * yg, int nv, __m256 ad, __m256 acc) {
    const char * x[Q80_GROUP], * y[Q80_GROUP];
    for (int j = 0; j < Q80_GROUP; j++) {
        x[j] = j < nv ? xg + (size_t) j*Q80_SZ : NULL;
        y[j] = yg + (size_t) j*Q80_SZ;
    }
    const __m256 dd = _mm256_mul_ps(q80_scales(x), ad);
    return _mm256_fmadd_ps(dd, _mm256_cvtepi32_ps(q80_sums(x, y)), acc);
}

// a whole group of 8 blocks at xg against the activation blocks at yg (ad their scales)
Q80_INLINE __m256 q80_group_full(const char * xg, const char * yg, __m256 ad, __m256 acc) {
    __m128i w[Q80_GROUP];
    for (int j = 0; j < Q80_GROUP; j++) {
        int v;
        memcpy(&v, xg + (size_t) j*Q80_SZ, sizeof(v));
        w[j] = _mm_cvtsi32_si128(v);
    }
    const __m128i lo = _mm_unpacklo_epi64(_mm_unpacklo_epi32(w[0], w[1]), _mm_unpacklo_epi32(w[2], w[3]));
    const __m128i hi = _mm_unpacklo_epi64(_mm_unpacklo_epi32(w[4], w[5]), _mm_unpacklo_epi32(w[6], w[7]));
    const __m128i sel = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256 dw = _mm256_cvtph_ps(_mm_unpacklo_epi64(_mm_shuffle_epi8(lo, sel), _mm_shuffle_epi8(hi, sel)));
    __m256i m[Q80_GROUP];
    for (int j = 0; j < Q80_GROUP; j++) {
        const __m256i wq = _mm256_loadu_si256((const __m256i *)(const void *) (xg + (size_t) j*Q80_SZ + 2));
        const __m256i aq = _mm256_loadu_si256((const __m256i *)(const void *) (yg + (size_t) j*Q80_SZ + 2));
        m[j] = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_sign_epi8(wq, wq), _mm256_sign_epi8(aq, wq)), _mm256_set1_epi16(1));
    }
    const __m256i g0 = _mm256_hadd_epi32(_mm256_hadd_epi32(m[0], m[1]), _mm256_hadd_epi32(m[2], m[3]));
    const __m256i g1 = _mm256_hadd_epi32(_mm256_hadd_epi32(m[4], m[5]), _mm256_hadd_epi32(m[6], m[7]));
    const __m256i is = _mm256_add_epi32(_mm256_permute2x128_si256(g0, g1, 0x20), _mm256_permute2x128_si256(g0, g1, 0x31));
    return _mm256_fmadd_ps(_mm256_mul_ps(dw, ad), _mm256_cvtepi32_ps(is), acc);
}

// the last 1 or 2 blocks (from block b0 on) of 4 rows in one group: lanes 2t, 2t + 1 are row t's;
// tail[t] = their two scaled sums
Q80_INLINE void q80_tails(const char * const * xr, int b0, int rest, const char * y, __m256 ad, float * tail) {
    const char * x[Q80_GROUP], * yy[Q80_GROUP];
    for (int t = 0; t < Q80_RUNS; t++) {
        x[2*t] = xr[t] + (size_t) b0*Q80_SZ;
        x[2*t + 1] = rest == 2 ? x[2*t] + Q80_SZ : NULL;
        yy[2*t] = y + (size_t) b0*Q80_SZ;
        yy[2*t + 1] = yy[2*t] + Q80_SZ; // not read when its x is NULL
    }
    const __m256 v = _mm256_mul_ps(_mm256_mul_ps(q80_scales(x), ad), _mm256_cvtepi32_ps(q80_sums(x, yy)));
    float l[Q80_GROUP];
    _mm256_storeu_ps(l, v);
    for (int t = 0; t < Q80_RUNS; t++) {
        tail[t] = l[2*t] + l[2*t + 1];
    }
}

Q80_INLINE float q80_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// the activation scales of whole groups g0 .. g0 + ng - 1
Q80_INLINE void q80_act_scales(const char * y, int g0, int ng, __m256 * ad) {
    for (int g = 0; g < ng; g++) {
        const char * yb[Q80_GROUP];
        for (int j = 0; j < Q80_GROUP; j++) {
            yb[j] = y + (size_t) ((g0 + g)*Q80_GROUP + j)*Q80_SZ;
        }
        ad[g] = q80_scales(yb);
    }
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q8_0_avx2(int n, float * s, const void * vx, size_t bx, const void * vy, int nr) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK8_0;
    const int gfull = nb/Q80_GROUP, rest = nb % Q80_GROUP;
    // the activation scales of the tail: the shared tail's (lanes 2t: block gfull*8, 2t + 1: the
    // next one), or a partial group's
    __m256 adt = _mm256_setzero_ps();
    if (rest > 0) {
        const char * yb[Q80_GROUP];
        for (int j = 0; j < Q80_GROUP; j++) {
            const int b = gfull*Q80_GROUP + (rest <= 2 ? j % 2 : j);
            yb[j] = b < nb ? y + (size_t) b*Q80_SZ : NULL;
        }
        adt = q80_scales(yb);
    }
    const size_t rest_off = (size_t) gfull*Q80_GROUP*Q80_SZ;
    for (int r = 0; r < nr; r++) {
        s[r] = 0.0f;
    }
    // whole groups in segments of Q80_SEG (their activation scales converted once), the tail with
    // the last one
    __m256 ad[Q80_SEG];
    for (int g0 = 0; g0 < gfull || g0 == 0; g0 += Q80_SEG) {
        const int gn = gfull - g0 < Q80_SEG ? gfull - g0 : Q80_SEG;
        const bool last = g0 + Q80_SEG >= gfull;
        q80_act_scales(y, g0, gn, ad);
        const char * ys = y + (size_t) g0*Q80_GROUP*Q80_SZ;
        const int q = nr/Q80_RUNS;
        for (int i = 0; i < q; i++) {
            const char * xr[Q80_RUNS], * xs[Q80_RUNS];
            __m256 acc[Q80_RUNS];
            for (int t = 0; t < Q80_RUNS; t++) {
                xr[t] = x + (size_t) (i + t*q)*bx;
                xs[t] = xr[t] + (size_t) g0*Q80_GROUP*Q80_SZ;
                acc[t] = _mm256_setzero_ps();
            }
            for (int g = 0; g < gn; g++) {
                for (int t = 0; t < Q80_RUNS; t++) {
                    acc[t] = q80_group_full(xs[t] + (size_t) g*Q80_GROUP*Q80_SZ, ys + (size_t) g*Q80_GROUP*Q80_SZ, ad[g], acc[t]);
                }
            }
            float tail[Q80_RUNS] = { 0.0f, 0.0f, 0.0f, 0.0f };
            if (last && rest > 0 && rest <= 2) {
                q80_tails(xr, gfull*Q80_GROUP, rest, y, adt, tail);
            } else if (last && rest > 0) {
                for (int t = 0; t < Q80_RUNS; t++) {
                    acc[t] = q80_group(xr[t] + rest_off, y + rest_off, rest, adt, acc[t]);
                }
            }
            for (int t = 0; t < Q80_RUNS; t++) {
                s[i + t*q] += q80_hsum(acc[t]) + tail[t];
            }
        }
        for (int r = Q80_RUNS*q; r < nr; r++) {
            const char * xr = x + (size_t) r*bx;
            const char * xs = xr + (size_t) g0*Q80_GROUP*Q80_SZ;
            __m256 acc = _mm256_setzero_ps();
            for (int g = 0; g < gn; g++) {
                const char * xg = xs + (size_t) g*Q80_GROUP*Q80_SZ;
                // the rows of a call follow each other in memory (bx is a row): one stream
                for (size_t o = 0; o < Q80_GROUP*Q80_SZ; o += 64) {
                    _mm_prefetch(xg + Q80_PF + o, _MM_HINT_T0);
                }
                acc = q80_group_full(xg, ys + (size_t) g*Q80_GROUP*Q80_SZ, ad[g], acc);
            }
            float tail[Q80_RUNS] = { 0.0f, 0.0f, 0.0f, 0.0f };
            if (last && rest > 0 && rest <= 2) {
                const char * xr4[Q80_RUNS] = { xr, xr, xr, xr };
                q80_tails(xr4, gfull*Q80_GROUP, rest, y, adt, tail);
            } else if (last && rest > 0) {
                acc = q80_group(xr + rest_off, y + rest_off, rest, adt, acc);
            }
            s[r] += q80_hsum(acc) + tail[0];
        }
    }
}

#else

typedef int ggml_avx2_quant_gemv_q8_0_unused;

#endif // GGML_CPU_X86
