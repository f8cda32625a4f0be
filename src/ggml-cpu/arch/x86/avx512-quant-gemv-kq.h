// The decode kernels of avx512-quant-gemv-kq.c, once per instruction set: that file includes this
// one with ZV_VNNI (0: AVX512BW, 1: AVX512-VNNI), ZV_T (the target attribute) and ZV(name) (the
// name with the set's suffix) defined. No include guard, on purpose.

// one super-block of a row (activation super-block i of the segment) into acc (the scaled sums)
// and accm (the mins, to be subtracted)
ZV_T static inline __attribute__((always_inline)) void ZV(zk_block)(enum zk_kind k, const void * xb,
        const struct zk_act * act, int i, __m512 * acc, __m256 * accm) {
    __m512i u[4], q[4];
    zk_levels(k, xb, u);
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) {
#if ZV_VNNI
        q[v] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), u[v], act->a[4*i + v]);
#else
        q[v] = _mm512_madd_epi16(_mm512_maddubs_epi16(u[v], act->a[4*i + v]), _mm512_set1_epi16(1));
#endif
    }
    __m512i is = zk_fold(q);
    if (k == ZK_Q3_K || k == ZK_Q6_K) {
        is = _mm512_add_epi32(is, act->off[i]);
    }
    const __m128i idx = zk_scale_index(k);
    __m512i sc;
    __m256i mins = _mm256_setzero_si256();
    float dw = 0.0f;
    uint32_t dmw = 0;
    if (k == ZK_Q4_K || k == ZK_Q5_K) {
        const block_q4_K * b4 = xb;
        const block_q5_K * b5 = xb;
        const __m128i s8 = zk_scales_q45(k == ZK_Q4_K ? b4->scales : b5->scales);
        sc = _mm512_cvtepi8_epi32(_mm_shuffle_epi8(s8, idx)); // 6 bits: signed widening is the same
        mins = _mm256_zextsi128_si256(_mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(s8, 8)),
                                                     _mm256_castsi256_si128(act->bs[i])));
        memcpy(&dmw, k == ZK_Q4_K ? (const void *) &b4->d : (const void *) &b5->d, sizeof(dmw)); // d, dmin
    } else if (k == ZK_Q2_K) {
        const block_q2_K * b = xb;
        const __m128i s8 = _mm_loadu_si128((const __m128i *) (const void *) b->scales);
        const __m128i m4 = _mm_set1_epi8(0x0F);
        sc = _mm512_cvtepi8_epi32(_mm_and_si128(_mm_shuffle_epi8(s8, idx), m4));
        mins = _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s8, 4), m4)), act->bs[i]);
        memcpy(&dmw, &b->d, sizeof(dmw)); // d, dmin
    } else if (k == ZK_Q3_K) {
        const block_q3_K * b = xb;
        sc = _mm512_cvtepi8_epi32(_mm_shuffle_epi8(zk_scales_q3(b->scales), idx));
        dw = _cvtsh_ss(b->d);
    } else {
        const block_q6_K * b = xb;
        sc = _mm512_cvtepi8_epi32(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *) (const void *) b->scales), idx));
        dw = _cvtsh_ss(b->d);
    }
    is = _mm512_mullo_epi32(is, sc);
    const float dy = act->d[i];
    if (k == ZK_Q2_K || k == ZK_Q4_K || k == ZK_Q5_K) {
        // d and dmin side by side: one conversion and one multiply by d_a for both
        const __m128 dd = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128((int) dmw)), _mm_set1_ps(dy));
        *acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(is), _mm512_broadcastss_ps(dd), *acc);
        *accm = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mins), _mm256_broadcastss_ps(_mm_movehdup_ps(dd)), *accm);
    } else {
        *acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(is), _mm512_set1_ps(dw*dy), *acc);
    }
}

ZV_T static inline __attribute__((always_inline)) void ZV(zk_gemv)(enum zk_kind k, int n, float * s, const char * x,
        size_t bx, const void * vy, int nr) {
    const block_q8_K * y = vy;
    const size_t xsz = zk_xsize(k);
    const int nb = n/QK_K;
    struct zk_act act;
    for (int r = 0; r < nr; r++) {
        s[r] = 0.0f;
    }
    for (int i0 = 0; i0 < nb; i0 += ZK_SEG) {
        const int ns = nb - i0 < ZK_SEG ? nb - i0 : ZK_SEG;
        zk_prepare(k, y + i0, ns, &act);
        const int q = nr/ZK_STREAMS;
        for (int i = 0; i < q; i++) {
            const char * xr[ZK_STREAMS];
            __m512 acc[ZK_STREAMS];
            __m256 accm[ZK_STREAMS];
            for (int t = 0; t < ZK_STREAMS; t++) {
                xr[t] = x + (size_t) (i + t*q)*bx + (size_t) i0*xsz;
                acc[t] = _mm512_setzero_ps();
                accm[t] = _mm256_setzero_ps();
            }
            for (int j = 0; j < ns; j++) {
                for (int t = 0; t < ZK_STREAMS; t++) {
                    ZV(zk_block)(k, xr[t] + (size_t) j*xsz, &act, j, &acc[t], &accm[t]);
                }
            }
            for (int t = 0; t < ZK_STREAMS; t++) {
                s[i + t*q] += _mm512_reduce_add_ps(acc[t]) - zk_hsum256(accm[t]);
            }
        }
        for (int r = ZK_STREAMS*q; r < nr; r++) {
            const char * xr = x + (size_t) r*bx + (size_t) i0*xsz;
            __m512 acc = _mm512_setzero_ps();
            __m256 accm = _mm256_setzero_ps();
            for (int j = 0; j < ns; j++) {
                // the rows of a call follow each other in memory: one stream
                for (size_t o = 0; o < xsz; o += 64) {
                    _mm_prefetch(xr + (size_t) j*xsz + ZK_PF + o, _MM_HINT_T0);
                }
                ZV(zk_block)(k, xr + (size_t) j*xsz, &act, j, &acc, &accm);
            }
            s[r] += _mm512_reduce_add_ps(acc) - zk_hsum256(accm);
        }
    }
}

#define ZV_DEFINE(name, kind) \
    ZV_T void ZV(ggml_cpu_q_gemv_##name)(int n, float * s, const void * x, size_t bx, const void * y, int nr) { \
        ZV(zk_gemv)(kind, n, s, x, bx, y, nr); \
    }

ZV_DEFINE(q2_K, ZK_Q2_K)
ZV_DEFINE(q3_K, ZK_Q3_K)
ZV_DEFINE(q4_K, ZK_Q4_K)
ZV_DEFINE(q5_K, ZK_Q5_K)
ZV_DEFINE(q6_K, ZK_Q6_K)

#undef ZV_DEFINE
