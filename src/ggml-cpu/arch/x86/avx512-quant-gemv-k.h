// The decode kernel of avx512-quant-gemv-k.c, once per instruction set: that file includes this
// one with ZV_VNNI (0: AVX512BW, 1: AVX512-VNNI), ZV_T (the target attribute) and ZV(name) (the
// name with the set's suffix) defined. No include guard, on purpose.

// one IQ4_XS super-block of a row (activation super-block i of the segment) into acc
ZV_T static inline __attribute__((always_inline)) __m512 ZV(zx_iq4xs_block)(const block_iq4_xs * b,
        const struct zx_act * act, int i, __m512 acc) {
    const __m512i m4 = _mm512_set1_epi8(0x0F);
#if ZV_VNNI
    const __m512i t = _mm512_broadcast_i32x4(_mm_xor_si128(zx_load128(ggml_kvalues_iq4nl), _mm_set1_epi8((char) 0x80)));
#else
    const __m512i t = _mm512_broadcast_i32x4(zx_load128(ggml_kvalues_iq4nl));
    const __m512i ones = _mm512_set1_epi16(1);
    const __m512i z = _mm512_setzero_si512();
#endif
    const __m128i sc8 = zx_iq4xs_scales(b);
    __m512i isum = _mm512_setzero_si512();
    for (int v = 0; v < 2; v++) {
        const __m512i w = _mm512_loadu_si512((const void *) (b->qs + 64*v));
        const __m512i lo = _mm512_shuffle_epi8(t, _mm512_and_si512(w, m4));
        const __m512i hi = _mm512_shuffle_epi8(t, _mm512_and_si512(_mm512_srli_epi16(w, 4), m4));
        const __m512i alo = act->lo[2*i + v], ahi = act->hi[2*i + v];
#if ZV_VNNI
        const __m512i dot = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(act->neg[2*i + v], lo, alo), hi, ahi);
#else
        // a pair reaches 2*127*127: the halves are widened before they are added
        const __m512i sl = _mm512_mask_sub_epi8(alo, _mm512_movepi8_mask(lo), z, alo);
        const __m512i sh = _mm512_mask_sub_epi8(ahi, _mm512_movepi8_mask(hi), z, ahi);
        const __m512i dot = _mm512_add_epi32(_mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_abs_epi8(lo), sl), ones),
                                             _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_abs_epi8(hi), sh), ones));
#endif
        isum = _mm512_add_epi32(isum, _mm512_mullo_epi32(dot, zx_scales_half(sc8, v)));
    }
    const __m512 dd = _mm512_set1_ps(_cvtsh_ss(b->d)*act->d[i]);
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), dd, acc);
}

ZV_T void ZV(ggml_cpu_q_gemv_iq4_xs)(int n, float * s, const void * vx, size_t bx, const void * vy, int nr) {
    const char * x = vx;
    const block_q8_K * y = vy;
    const int nb = n/QK_K;
    struct zx_act act;
    for (int r = 0; r < nr; r++) {
        s[r] = 0.0f;
    }
    for (int i0 = 0; i0 < nb; i0 += ZX_SEG) {
        const int ns = nb - i0 < ZX_SEG ? nb - i0 : ZX_SEG;
        zx_prepare(y + i0, ns, &act);
        const int q = nr/ZX_STREAMS;
        for (int i = 0; i < q; i++) {
            const block_iq4_xs * xr[ZX_STREAMS];
            __m512 acc[ZX_STREAMS];
            for (int t = 0; t < ZX_STREAMS; t++) {
                xr[t] = (const block_iq4_xs *) (const void *) (x + (size_t) (i + t*q)*bx) + i0;
                acc[t] = _mm512_setzero_ps();
            }
            for (int j = 0; j < ns; j++) {
                for (int t = 0; t < ZX_STREAMS; t++) {
                    acc[t] = ZV(zx_iq4xs_block)(xr[t] + j, &act, j, acc[t]);
                }
            }
            for (int t = 0; t < ZX_STREAMS; t++) {
                s[i + t*q] += _mm512_reduce_add_ps(acc[t]);
            }
        }
        for (int r = ZX_STREAMS*q; r < nr; r++) {
            const block_iq4_xs * xr = (const block_iq4_xs *) (const void *) (x + (size_t) r*bx) + i0;
            __m512 acc = _mm512_setzero_ps();
            for (int j = 0; j < ns; j++) {
                // the rows of a call follow each other in memory: one stream
                for (size_t o = 0; o < sizeof(block_iq4_xs); o += 64) {
                    _mm_prefetch((const char *) (xr + j) + ZX_PF + o, _MM_HINT_T0);
                }
                acc = ZV(zx_iq4xs_block)(xr + j, &act, j, acc);
            }
            s[r] += _mm512_reduce_add_ps(acc);
        }
    }
}
