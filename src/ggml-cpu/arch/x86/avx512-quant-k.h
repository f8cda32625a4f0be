// The 256-element dot products of avx512-quant-k.c, once per instruction set: that file includes
// this one with QV_VNNI (0: AVX512BW, 1: AVX512-VNNI), QV_T (the target attribute) and QV(name)
// (the name with the set's suffix) defined. No include guard, on purpose.

// sum over the 16 groups g of sc[g] * (u_g . a_g): u[v], a[v] hold elements 64v .. 64v+63
QV_T static inline int QV(zk_dot)(const __m512i u[4], const __m512i a[4], const int16_t sc[16]) {
    const __m256i sc16 = _mm256_loadu_si256((const __m256i *) (const void *) sc);
    __m512i acc = _mm512_setzero_si512();
    for (int v = 0; v < 4; v++) {
#if QV_VNNI
        // int32 lane m sums elements 4m .. 4m+3 of the 64: group 4v + m/4
        const __m512i idx = _mm512_add_epi32(_mm512_set1_epi32(4*v),
            _mm512_srli_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), 2));
        const __m512i s32 = _mm512_permutexvar_epi32(idx, _mm512_cvtepi16_epi32(sc16));
        acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), u[v], a[v]), s32));
#else
        // int16 lane j sums elements 2j, 2j+1: group 4v + j/8
        const __m512i idx = _mm512_add_epi16(_mm512_set1_epi16((short) (4*v)),
            _mm512_srli_epi16(_mm512_set_epi32(0x001f001e, 0x001d001c, 0x001b001a, 0x00190018, 0x00170016, 0x00150014,
                0x00130012, 0x00110010, 0x000f000e, 0x000d000c, 0x000b000a, 0x00090008, 0x00070006, 0x00050004,
                0x00030002, 0x00010000), 3));
        const __m512i s16 = _mm512_permutexvar_epi16(idx, _mm512_castsi256_si512(sc16));
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(u[v], a[v]), s16));
#endif
    }
    return _mm512_reduce_add_epi32(acc);
}

QV_T static inline void QV(zk_load_a)(const block_q8_K * y, __m512i a[4]) {
    for (int v = 0; v < 4; v++) {
        a[v] = _mm512_loadu_si512((const void *) (y->qs + 64*v));
    }
}

QV_T void QV(ggml_cpu_q_dot_q4_K)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q4_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int16_t sc[16];
        int mins = 0;
        for (int j = 0; j < 8; j++) {
            int d, m;
            zk_scale_min(j, x[i].scales, &d, &m);
            sc[2*j] = sc[2*j + 1] = (int16_t) d;
            mins += m*(y[i].bsums[2*j] + y[i].bsums[2*j + 1]);
        }
        __m512i u[4], a[4];
        for (int v = 0; v < 4; v++) {
            const __m256i b = zk_load256(x[i].qs + 32*v);
            u[v] = zk_join(_mm256_and_si256(b, m4), _mm256_and_si256(_mm256_srli_epi16(b, 4), m4));
        }
        QV(zk_load_a)(&y[i], a);
        sum += zk_fp16(x[i].d)*y[i].d*(float) QV(zk_dot)(u, a, sc) - zk_fp16(x[i].dmin)*y[i].d*(float) mins;
    }
    *s = sum;
}

QV_T void QV(ggml_cpu_q_dot_q5_K)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q5_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m1 = _mm256_set1_epi8(0x01);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int16_t sc[16];
        int mins = 0;
        for (int j = 0; j < 8; j++) {
            int d, m;
            zk_scale_min(j, x[i].scales, &d, &m);
            sc[2*j] = sc[2*j + 1] = (int16_t) d;
            mins += m*(y[i].bsums[2*j] + y[i].bsums[2*j + 1]);
        }
        const __m256i hb = zk_load256(x[i].qh);
        __m512i u[4], a[4];
        for (int v = 0; v < 4; v++) {
            // the 5th bit of element l of sub-block 2v is bit 2v of qh[l], of sub-block 2v+1 bit 2v+1
            const __m256i b  = zk_load256(x[i].qs + 32*v);
            const __m256i h0 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2*v), m1), 4);
            const __m256i h1 = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2*v + 1), m1), 4);
            u[v] = zk_join(_mm256_or_si256(_mm256_and_si256(b, m4), h0),
                           _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b, 4), m4), h1));
        }
        QV(zk_load_a)(&y[i], a);
        sum += zk_fp16(x[i].d)*y[i].d*(float) QV(zk_dot)(u, a, sc) - zk_fp16(x[i].dmin)*y[i].d*(float) mins;
    }
    *s = sum;
}

QV_T void QV(ggml_cpu_q_dot_q6_K)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q6_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m3 = _mm256_set1_epi8(0x03);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int16_t sc[16];
        int offs = 0;
        for (int g = 0; g < 16; g++) {
            sc[g] = x[i].scales[g];
            offs += sc[g]*y[i].bsums[g];
        }
        __m512i u[4], a[4];
        for (int h = 0; h < 2; h++) {
            const __m256i l0 = zk_load256(x[i].ql + 64*h);
            const __m256i l1 = zk_load256(x[i].ql + 64*h + 32);
            const __m256i hb = zk_load256(x[i].qh + 32*h);
            const __m256i u0 = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(hb, m3), 4));
            const __m256i u1 = _mm256_or_si256(_mm256_and_si256(l1, m4),
                                               _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 2), m3), 4));
            const __m256i u2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                                               _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 4), m3), 4));
            const __m256i u3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                               _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hb, 6), m3), 4));
            u[2*h]     = zk_join(u0, u1);
            u[2*h + 1] = zk_join(u2, u3);
        }
        QV(zk_load_a)(&y[i], a);
        sum += zk_fp16(x[i].d)*y[i].d*(float) (QV(zk_dot)(u, a, sc) - 32*offs);
    }
    *s = sum;
}

QV_T void QV(ggml_cpu_q_dot_q2_K)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q2_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m3 = _mm256_set1_epi8(0x03);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int16_t sc[16];
        int mins = 0;
        for (int g = 0; g < 16; g++) {
            sc[g] = (int16_t) (x[i].scales[g] & 0xF);
            mins += (x[i].scales[g] >> 4)*y[i].bsums[g];
        }
        __m512i u[4], a[4];
        for (int h = 0; h < 2; h++) {
            // element 128h + 32j + l is bits 2j, 2j+1 of qs[32h + l]
            const __m256i q = zk_load256(x[i].qs + 32*h);
            u[2*h]     = zk_join(_mm256_and_si256(q, m3), _mm256_and_si256(_mm256_srli_epi16(q, 2), m3));
            u[2*h + 1] = zk_join(_mm256_and_si256(_mm256_srli_epi16(q, 4), m3), _mm256_and_si256(_mm256_srli_epi16(q, 6), m3));
        }
        QV(zk_load_a)(&y[i], a);
        sum += zk_fp16(x[i].d)*y[i].d*(float) QV(zk_dot)(u, a, sc) - zk_fp16(x[i].dmin)*y[i].d*(float) mins;
    }
    *s = sum;
}

QV_T void QV(ggml_cpu_q_dot_q3_K)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_q3_K * x = vx;
    const block_q8_K * y = vy;
    const __m256i m3 = _mm256_set1_epi8(0x03);
    const __m256i m1 = _mm256_set1_epi8(0x01);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int16_t sc[16];
        int offs = 0;
        for (int g = 0; g < 16; g++) {
            sc[g] = (int16_t) zk_q3_scale(x[i].scales, g);
            offs += sc[g]*y[i].bsums[g];
        }
        const __m256i hm = zk_load256(x[i].hmask);
        __m256i w[8];
        for (int h = 0; h < 2; h++) {
            // element 128h + 32j + l: bits 2j, 2j+1 of qs[32h + l], plus 4 when bit 4h+j of hmask[l] is set
            const __m256i q = zk_load256(x[i].qs + 32*h);
            for (int j = 0; j < 4; j++) {
                const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(q, 2*j), m3);
                const __m256i hi = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hm, 4*h + j), m1), 2);
                w[4*h + j] = _mm256_or_si256(lo, hi);
            }
        }
        __m512i u[4], a[4];
        for (int v = 0; v < 4; v++) {
            u[v] = zk_join(w[2*v], w[2*v + 1]);
        }
        QV(zk_load_a)(&y[i], a);
        sum += zk_fp16(x[i].d)*y[i].d*(float) (QV(zk_dot)(u, a, sc) - 4*offs);
    }
    *s = sum;
}

QV_T void QV(ggml_cpu_q_dot_iq4_xs)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const block_iq4_xs * x = vx;
    const block_q8_K * y = vy;
    const __m128i t128 = _mm_loadu_si128((const __m128i *) (const void *) ggml_kvalues_iq4nl);
    const __m256i vals = _mm256_set_m128i(t128, t128);
    const __m128i m4   = _mm_set1_epi8(0x0F);
    float sum = 0.0f;
    for (int i = 0; i < n/QK_K; i++) {
        int16_t sc[16];
        __m256i w[8];
        for (int ib = 0; ib < QK_K/32; ib++) {
            const int ls = ((x[i].scales_l[ib/2] >> (4*(ib%2))) & 0xF) | (((x[i].scales_h >> (2*ib)) & 3) << 4);
            sc[2*ib] = sc[2*ib + 1] = (int16_t) (ls - 32);
            const __m128i b = _mm_loadu_si128((const __m128i *) (const void *) (x[i].qs + 16*ib));
            w[ib] = _mm256_shuffle_epi8(vals, _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(b, 4), m4), _mm_and_si128(b, m4)));
        }
        __m512i u[4], a[4];
        QV(zk_load_a)(&y[i], a);
        for (int v = 0; v < 4; v++) {
            const __m512i wv = zk_join(w[2*v], w[2*v + 1]);
            a[v] = _mm512_mask_sub_epi8(a[v], _mm512_movepi8_mask(wv), _mm512_setzero_si512(), a[v]);
            u[v] = _mm512_abs_epi8(wv);
        }
        sum += zk_fp16(x[i].d)*y[i].d*(float) QV(zk_dot)(u, a, sc);
    }
    *s = sum;
}
