// AVX2 decode kernel (the gemv slot of cpu-kernels.h) of Q4_1 x Q8_1: s[r] = dot(weight row r,
// one activation row) for nr consecutive rows.
//
// The structure of avx2-quant-gemv.c (4 distant runs of rows in lockstep, the activation row
// prepared once per call, 8 blocks reduced to one vector of block sums), with three changes for
// the short rows of small models (SmolLM2: K = 576, 18 blocks a row), where that kernel ran at
// ~15 GB/s in cache on one core, below the memory's ~19, so that it was compute-bound:
//   - the lanes of a group's 8 block sums are in the order block b -> lane 5b mod 8, in which the
//     8 (d, m) words of the 20-byte blocks come with 5 plain 32-byte loads and 4 blends (blocks 2i
//     and 2i+1 lie 5 dwords apart, as lanes 5b and 5b + 5 do), instead of 8 scalar loads, 8 moves
//     and 6 unpacks;
//   - a row's last blocks past its whole groups (18 = 2 x 8 + 2) cost a whole group's scales and
//     reduction per row: when there are at most 2, the 4 runs' tails share one group (pair t of
//     it is run t's tail), and each row adds its two lanes of the result to its sum;
//   - no per-lane branches in the whole groups.
// Exact integer block sums as before, so results differ from avx2-quant-gemv.c's only in the
// order of the float additions.

#include "avx2-quant.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#if GGML_CPU_X86

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define Q41_GROUP 8
#define Q41_SEG   256 // blocks of activation prepared at a time
#define Q41_RUNS  4
#define Q41_PF    2048 // software prefetch distance of the single rows after the runs, bytes
#define Q41_XSZ   sizeof(block_q4_1)
#define Q41_YSZ   sizeof(block_q8_1)

#define Q41_INLINE GGML_TARGET_AVX2 GGML_KERNEL_INLINE

// the block of a group whose sum lands in lane j (lane = 5 x block mod 8), and the two blocks
// each of the 4 pair registers holds (low half: lane j, high half: lane j + 4)
static const int q41_lane_block[Q41_GROUP] = { 0, 5, 2, 7, 4, 1, 6, 3 };

struct q41_act {
    __m256i lo[Q41_SEG/2]; // elements 0..15 of the pair's two blocks
    __m256i hi[Q41_SEG/2]; // elements 16..31
    __m256  d[Q41_SEG/Q41_GROUP]; // activation scales in lane order
    __m256  s[Q41_SEG/Q41_GROUP]; // the Q8_1 blocks' s = d*sum(q), in lane order
    __m256i tlo, thi;      // the shared tail group (<= 2 blocks): elements of tail blocks 0 | 1
    __m256  td, ts;        // its scales: lanes 0..3 tail block 0, lanes 4..7 tail block 1
};

Q41_INLINE float q41_h2f(const char * p) {
    ggml_fp16_t h;
    memcpy(&h, p, sizeof(h));
    return _cvtsh_ss(h);
}

Q41_INLINE __m128i q41_qs(const char * y, int b, int nv) {
    return b < nv ? _mm_loadu_si128((const __m128i *)(const void *) (y + (size_t) b*Q41_YSZ + offsetof(block_q8_1, qs))) :
                    _mm_setzero_si128();
}

Q41_INLINE __m128i q41_qs_hi(const char * y, int b, int nv) {
    return b < nv ? _mm_loadu_si128((const __m128i *)(const void *) (y + (size_t) b*Q41_YSZ + offsetof(block_q8_1, qs) + 16)) :
                    _mm_setzero_si128();
}

// ng groups of Q8_1 blocks at y (nv of them exist; the others are zeros) in the loop's layout;
// tail: the blocks from gfull*8 on (at most 2) as the shared tail group
Q41_INLINE void q41_prepare(const char * y, int ng, int nv, int gfull, struct q41_act * act) {
    for (int g = 0; g < ng; g++) {
        float d[Q41_GROUP], s[Q41_GROUP];
        for (int j = 0; j < Q41_GROUP; j++) {
            const int b = g*Q41_GROUP + q41_lane_block[j];
            d[j] = b < nv ? q41_h2f(y + (size_t) b*Q41_YSZ) : 0.0f;
            s[j] = b < nv ? q41_h2f(y + (size_t) b*Q41_YSZ + 2) : 0.0f;
        }
        act->d[g] = _mm256_loadu_ps(d);
        act->s[g] = _mm256_loadu_ps(s);
        for (int j = 0; j < 4; j++) {
            const int a = g*Q41_GROUP + q41_lane_block[j], b = g*Q41_GROUP + q41_lane_block[j + 4];
            act->lo[4*g + j] = _mm256_set_m128i(q41_qs(y, b, nv), q41_qs(y, a, nv));
            act->hi[4*g + j] = _mm256_set_m128i(q41_qs_hi(y, b, nv), q41_qs_hi(y, a, nv));
        }
    }
    const int t0 = gfull*Q41_GROUP, t1 = t0 + 1;
    act->tlo = _mm256_set_m128i(q41_qs(y, t1, nv), q41_qs(y, t0, nv));
    act->thi = _mm256_set_m128i(q41_qs_hi(y, t1, nv), q41_qs_hi(y, t0, nv));
    const float d0 = t0 < nv ? q41_h2f(y + (size_t) t0*Q41_YSZ) : 0.0f, d1 = t1 < nv ? q41_h2f(y + (size_t) t1*Q41_YSZ) : 0.0f;
    const float s0 = t0 < nv ? q41_h2f(y + (size_t) t0*Q41_YSZ + 2) : 0.0f, s1 = t1 < nv ? q41_h2f(y + (size_t) t1*Q41_YSZ + 2) : 0.0f;
    act->td = _mm256_setr_ps(d0, d0, d0, d0, d1, d1, d1, d1);
    act->ts = _mm256_setr_ps(s0, s0, s0, s0, s1, s1, s1, s1);
}

// the (d | m << 16) words of 8 blocks in lane order -> 8 float scales and 8 float mins
Q41_INLINE void q41_split(__m256i dm, __m256 * dw, __m256 * mw) {
    const __m256i sel = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                         0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    const __m256i p = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(dm, sel), 0xD8);
    *dw = _mm256_cvtph_ps(_mm256_castsi256_si128(p));
    *mw = _mm256_cvtph_ps(_mm256_extracti128_si256(p, 1));
}

// the (d, m) words of a whole group at xg: block b's word is at byte 20b, lane 5b mod 8
Q41_INLINE __m256i q41_dm_full(const char * xg) {
    const __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *) xg);          // b0: dw0, b1: dw5
    const __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *) (xg + 32));   // b2: dw2, b3: dw7
    const __m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *) (xg + 64));   // b4: dw4
    const __m256i v3 = _mm256_loadu_si256((const __m256i *)(const void *) (xg + 96));   // b5: dw1, b6: dw6
    const __m256i v4 = _mm256_loadu_si256((const __m256i *)(const void *) (xg + 128));  // b7: dw3
    __m256i dm = _mm256_blend_epi32(v0, v1, 0x84);
    dm = _mm256_blend_epi32(dm, v2, 0x10);
    dm = _mm256_blend_epi32(dm, v3, 0x42);
    return _mm256_blend_epi32(dm, v4, 0x08);
}

// the (d, m) words of 8 blocks given by address (NULL: missing, 0); built in registers (a store
// of 8 words and a vector load of them would stall on store forwarding)
Q41_INLINE int q41_word(const char * b) {
    int w = 0;
    if (b != NULL) {
        memcpy(&w, b, sizeof(w));
    }
    return w;
}

Q41_INLINE __m256i q41_dm_gather(const char * const * blk) {
    return _mm256_setr_epi32(q41_word(blk[0]), q41_word(blk[1]), q41_word(blk[2]), q41_word(blk[3]), q41_word(blk[4]),
                             q41_word(blk[5]), q41_word(blk[6]), q41_word(blk[7]));
}

// the nibbles of the blocks at a (low half) and b (high half; either NULL: zeros) times the prepared
// activation pair: 16 int16 partial sums (at most 2 x 2 x 15 x 127 each)
Q41_INLINE __m256i q41_pair(const char * a, const char * b, __m256i alo, __m256i ahi) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m128i wa = a != NULL ? _mm_loadu_si128((const __m128i *)(const void *) (a + offsetof(block_q4_1, qs))) :
                                   _mm_setzero_si128();
    const __m128i wb = b != NULL ? _mm_loadu_si128((const __m128i *)(const void *) (b + offsetof(block_q4_1, qs))) :
                                   _mm_setzero_si128();
    const __m256i w = _mm256_set_m128i(wb, wa);
    const __m256i lo = _mm256_and_si256(w, m4);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), m4);
    return _mm256_add_epi16(_mm256_maddubs_epi16(lo, alo), _mm256_maddubs_epi16(hi, ahi));
}

// 4 pair sums -> the 8 exact int32 block sums (lane j: low half of pair j, j + 4: its high half)
Q41_INLINE __m256i q41_reduce(const __m256i * p) {
    const __m256i h = _mm256_hadd_epi16(_mm256_hadd_epi16(p[0], p[1]), _mm256_hadd_epi16(p[2], p[3]));
    return _mm256_madd_epi16(h, _mm256_set1_epi16(1));
}

Q41_INLINE __m256 q41_scale(__m256i isum, __m256i dm, __m256 ad, __m256 as, __m256 acc) {
    __m256 dw, mw;
    q41_split(dm, &dw, &mw);
    acc = _mm256_fmadd_ps(_mm256_mul_ps(dw, ad), _mm256_cvtepi32_ps(isum), acc);
    return _mm256_fmadd_ps(mw, as, acc);
}

// a whole group of 8 blocks at xg (group g of the segment)
Q41_INLINE __m256 q41_group_full(const char * xg, const struct q41_act * act, int g, __m256 acc) {
    __m256i p[4];
    for (int j = 0; j < 4; j++) {
        p[j] = q41_pair(xg + (size_t) q41_lane_block[j]*Q41_XSZ, xg + (size_t) q41_lane_block[j + 4]*Q41_XSZ,
                        act->lo[4*g + j], act->hi[4*g + j]);
    }
    return q41_scale(q41_reduce(p), q41_dm_full(xg), act->d[g], act->s[g], acc);
}

// a partial group: its first nv (< 8) blocks exist
Q41_INLINE __m256 q41_group_part(const char * xg, int nv, const struct q41_act * act, int g, __m256 acc) {
    const char * blk[Q41_GROUP];
    for (int j = 0; j < Q41_GROUP; j++) {
        blk[j] = q41_lane_block[j] < nv ? xg + (size_t) q41_lane_block[j]*Q41_XSZ : NULL;
    }
    __m256i p[4];
    for (int j = 0; j < 4; j++) {
        p[j] = q41_pair(blk[j], blk[j + 4], act->lo[4*g + j], act->hi[4*g + j]);
    }
    return q41_scale(q41_reduce(p), q41_dm_gather(blk), act->d[g], act->s[g], acc);
}

Q41_INLINE float q41_hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// the last 1 or 2 blocks (after gfull whole groups) of 4 rows in one group: pair t holds row t's
// tail blocks (lanes t and t + 4); tail[t] = their two scaled sums
Q41_INLINE void q41_tails(const char * const * xr, int gfull, int rest, const struct q41_act * act, float * tail) {
    const char * blk[Q41_GROUP];
    __m256i p[4];
    for (int t = 0; t < Q41_RUNS; t++) {
        blk[t] = xr[t] + (size_t) gfull*Q41_GROUP*Q41_XSZ;
        blk[t + 4] = rest == 2 ? blk[t] + Q41_XSZ : NULL;
        p[t] = q41_pair(blk[t], blk[t + 4], act->tlo, act->thi);
    }
    const __m256 v = q41_scale(q41_reduce(p), q41_dm_gather(blk), act->td, act->ts, _mm256_setzero_ps());
    _mm_storeu_ps(tail, _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}

GGML_TARGET_AVX2 void ggml_cpu_q_gemv_q4_1_avx2(int n, float * s, const void * vx, size_t bx, const void * vy, int nr) {
    const char * x = vx;
    const char * y = vy;
    const int nb = n/QK4_1;
    const int ngs = (nb + Q41_GROUP - 1)/Q41_GROUP;
    struct q41_act act;
    for (int r = 0; r < nr; r++) {
        s[r] = 0.0f;
    }
    for (int g0 = 0; g0 < ngs; g0 += Q41_SEG/Q41_GROUP) {
        const int gn = ngs - g0 < Q41_SEG/Q41_GROUP ? ngs - g0 : Q41_SEG/Q41_GROUP;
        const int nv = nb - g0*Q41_GROUP < gn*Q41_GROUP ? nb - g0*Q41_GROUP : gn*Q41_GROUP;
        const int gfull = nv/Q41_GROUP, rest = nv % Q41_GROUP;
        const size_t xoff = (size_t) g0*Q41_GROUP*Q41_XSZ;
        q41_prepare(y + (size_t) g0*Q41_GROUP*Q41_YSZ, gn, nv, gfull, &act);
        const int q = nr/Q41_RUNS;
        for (int i = 0; i < q; i++) {
            const char * xr[Q41_RUNS];
            __m256 acc[Q41_RUNS];
            for (int t = 0; t < Q41_RUNS; t++) {
                xr[t] = x + (size_t) (i + t*q)*bx + xoff;
                acc[t] = _mm256_setzero_ps();
            }
            for (int g = 0; g < gfull; g++) {
                for (int t = 0; t < Q41_RUNS; t++) {
                    acc[t] = q41_group_full(xr[t] + (size_t) g*Q41_GROUP*Q41_XSZ, &act, g, acc[t]);
                }
            }
            float tail[Q41_RUNS] = { 0.0f, 0.0f, 0.0f, 0.0f };
            if (rest > 0 && rest <= 2) {
                q41_tails(xr, gfull, rest, &act, tail);
            } else if (rest > 0) {
                for (int t = 0; t < Q41_RUNS; t++) {
                    acc[t] = q41_group_part(xr[t] + (size_t) gfull*Q41_GROUP*Q41_XSZ, rest, &act, gfull, acc[t]);
                }
            }
            for (int t = 0; t < Q41_RUNS; t++) {
                s[i + t*q] += q41_hsum(acc[t]) + tail[t];
            }
        }
        for (int r = Q41_RUNS*q; r < nr; r++) {
            const char * xr = x + (size_t) r*bx + xoff;
            __m256 acc = _mm256_setzero_ps();
            for (int g = 0; g < gfull; g++) {
                const char * xg = xr + (size_t) g*Q41_GROUP*Q41_XSZ;
                for (size_t o = 0; o < Q41_GROUP*Q41_XSZ; o += 64) {
                    _mm_prefetch(xg + Q41_PF + o, _MM_HINT_T0);
                }
                acc = q41_group_full(xg, &act, g, acc);
            }
            float tail[Q41_RUNS] = { 0.0f, 0.0f, 0.0f, 0.0f };
            if (rest > 0 && rest <= 2) {
                // the same lanes and additions as a row of the runs, so that a row's bits do not
                // depend on where the call's split put it
                const char * xr4[Q41_RUNS] = { xr, xr, xr, xr };
                q41_tails(xr4, gfull, rest, &act, tail);
            } else if (rest > 0) {
                acc = q41_group_part(xr + (size_t) gfull*Q41_GROUP*Q41_XSZ, rest, &act, gfull, acc);
            }
            s[r] += q41_hsum(acc) + tail[0];
        }
    }
}

#else

typedef int ggml_avx2_quant_gemv_q4_1_unused;

#endif // GGML_CPU_X86
