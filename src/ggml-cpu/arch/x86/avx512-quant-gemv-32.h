// The decode kernels of avx512-quant-gemv.c, once per instruction set: that file includes this
// one with ZV_VNNI (0: AVX512BW, 1: AVX512-VNNI), ZV_T (the target attribute) and ZV(name) (the
// name with the set's suffix) defined. No include guard, on purpose.

// 16 int32: the partial sums of a quad's levels (lo, hi: see zg_quad_levels) times its
// activations (alo, ahi), lane L of 128 bits for block L
ZV_T static inline __attribute__((always_inline)) __m512i ZV(zg_quad_dot)(enum zg_kind k, __m512i lo, __m512i hi,
        __m512i alo, __m512i ahi) {
#if ZV_VNNI
    (void) k;
    return _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, alo), hi, ahi);
#else
    const __m512i ones = _mm512_set1_epi16(1);
    if (k == ZG_Q8_0 || k == ZG_IQ4_NL || k == ZG_MXFP4) {
        // signed levels: |w| times a with w's sign; a pair reaches 2*127*127, so the halves are
        // widened before they are added
        const __m512i z = _mm512_setzero_si512();
        const __m512i sl = _mm512_mask_sub_epi8(alo, _mm512_movepi8_mask(lo), z, alo);
        const __m512i sh = _mm512_mask_sub_epi8(ahi, _mm512_movepi8_mask(hi), z, ahi);
        return _mm512_add_epi32(_mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_abs_epi8(lo), sl), ones),
                                _mm512_madd_epi16(_mm512_maddubs_epi16(_mm512_abs_epi8(hi), sh), ones));
    }
    // levels <= 31: a pair reaches 2*31*127 and the sum of the halves 4*31*127, within int16
    return _mm512_madd_epi16(_mm512_add_epi16(_mm512_maddubs_epi16(lo, alo), _mm512_maddubs_epi16(hi, ahi)), ones);
#endif
}

// one group of a row at xg (nv <= 16 blocks of it exist) into acc
ZV_T static inline __attribute__((always_inline)) __m512 ZV(zg_group)(enum zg_kind k, const char * xg, int nv,
        const struct zg_act * act, int g, __m512 acc) {
    const size_t xsz = zg_xsize(k);
    __m512i q[4];
    for (int j = 0; j < 4; j++) {
        if (4*j >= nv) {
            q[j] = _mm512_setzero_si512();
            continue;
        }
        __m512i lo, hi;
        zg_quad_levels(k, ZV_VNNI, xg, 4*j, nv, &lo, &hi);
        q[j] = ZV(zg_quad_dot)(k, lo, hi, act->lo[4*g + j], act->hi[4*g + j]);
    }
    __m512i is = zg_reduce(q[0], q[1], q[2], q[3]);
    if (zg_offset(k, ZV_VNNI) != 0) {
        is = _mm512_sub_epi32(is, act->o[g]);
    }
    const __m512i w = zg_words(xg, xsz, nv);
    const __m512 dw = k == ZG_MXFP4 ? zg_e8m0_half(w) : _mm512_cvtph_ps(_mm512_cvtepi32_epi16(w));
    acc = _mm512_fmadd_ps(_mm512_mul_ps(dw, act->d[g]), _mm512_cvtepi32_ps(is), acc);
    if (zg_has_min(k)) {
        const __m512 mw = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32(w, 16)));
        acc = _mm512_fmadd_ps(mw, act->s[g], acc);
    }
    return acc;
}

ZV_T static inline __attribute__((always_inline)) void ZV(zg_gemv)(enum zg_kind k, int n, float * s, const char * x,
        size_t bx, const char * y, int nr) {
    const size_t xsz = zg_xsize(k), ysz = zg_ysize(k);
    const int nb = n/QK8_0;
    const int ngs = (nb + ZG_GROUP - 1)/ZG_GROUP; // groups, the last one possibly partial
    struct zg_act act;
    for (int r = 0; r < nr; r++) {
        s[r] = 0.0f;
    }
    for (int g0 = 0; g0 < ngs; g0 += ZG_SEG/ZG_GROUP) {
        const int gn = ngs - g0 < ZG_SEG/ZG_GROUP ? ngs - g0 : ZG_SEG/ZG_GROUP;
        const int nv = nb - g0*ZG_GROUP < gn*ZG_GROUP ? nb - g0*ZG_GROUP : gn*ZG_GROUP; // blocks in the segment
        const int gfull = nv/ZG_GROUP, rest = nv % ZG_GROUP;
        const size_t xoff = (size_t) g0*ZG_GROUP*xsz;
        zg_prepare(k, ZV_VNNI, y + (size_t) g0*ZG_GROUP*ysz, gn, nv, &act);
        const int q = nr/ZG_STREAMS;
        for (int i = 0; i < q; i++) {
            const char * xr[ZG_STREAMS];
            __m512 acc[ZG_STREAMS];
            for (int t = 0; t < ZG_STREAMS; t++) {
                xr[t] = x + (size_t) (i + t*q)*bx + xoff;
                acc[t] = _mm512_setzero_ps();
            }
            for (int g = 0; g < gfull; g++) {
                for (int t = 0; t < ZG_STREAMS; t++) {
                    acc[t] = ZV(zg_group)(k, xr[t] + (size_t) g*ZG_GROUP*xsz, ZG_GROUP, &act, g, acc[t]);
                }
            }
            for (int t = 0; t < ZG_STREAMS; t++) {
                if (rest > 0) {
                    acc[t] = ZV(zg_group)(k, xr[t] + (size_t) gfull*ZG_GROUP*xsz, rest, &act, gfull, acc[t]);
                }
                s[i + t*q] += _mm512_reduce_add_ps(acc[t]);
            }
        }
        for (int r = ZG_STREAMS*q; r < nr; r++) {
            const char * xr = x + (size_t) r*bx + xoff;
            __m512 acc = _mm512_setzero_ps();
            for (int g = 0; g < gfull; g++) {
                const char * xg = xr + (size_t) g*ZG_GROUP*xsz;
                // the rows of a call follow each other in memory: one stream
                for (size_t o = 0; o < ZG_GROUP*xsz; o += 64) {
                    _mm_prefetch(xg + ZG_PF + o, _MM_HINT_T0);
                }
                acc = ZV(zg_group)(k, xg, ZG_GROUP, &act, g, acc);
            }
            if (rest > 0) {
                // the row's last blocks: a partial group (nothing past them is read)
                acc = ZV(zg_group)(k, xr + (size_t) gfull*ZG_GROUP*xsz, rest, &act, gfull, acc);
            }
            s[r] += _mm512_reduce_add_ps(acc);
        }
    }
}

#define ZV_DEFINE(name, kind) \
    ZV_T void ZV(ggml_cpu_q_gemv_##name)(int n, float * s, const void * x, size_t bx, const void * y, int nr) { \
        ZV(zg_gemv)(kind, n, s, x, bx, y, nr); \
    }

ZV_DEFINE(q4_0, ZG_Q4_0)
ZV_DEFINE(q4_1, ZG_Q4_1)
ZV_DEFINE(q5_0, ZG_Q5_0)
ZV_DEFINE(q5_1, ZG_Q5_1)
ZV_DEFINE(q8_0, ZG_Q8_0)
ZV_DEFINE(iq4_nl, ZG_IQ4_NL)
ZV_DEFINE(mxfp4, ZG_MXFP4)

#undef ZV_DEFINE
