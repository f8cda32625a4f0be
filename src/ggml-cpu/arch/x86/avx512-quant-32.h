// The 32-element dot products of avx512-quant.c, once per instruction set: that file includes
// this one with QV_VNNI (0: AVX512BW, 1: AVX512-VNNI), QV_T (the target attribute) and QV(name)
// (the name with the set's suffix) defined. No include guard, on purpose.

// 16 int32 sums of u*a over groups of 4 bytes; u unsigned, a signed
QV_T static inline __m512i QV(zq_dot_u8)(__m512i u, __m512i a) {
#if QV_VNNI
    return _mm512_dpbusd_epi32(_mm512_setzero_si512(), u, a);
#else
    return _mm512_madd_epi16(_mm512_maddubs_epi16(u, a), _mm512_set1_epi16(1));
#endif
}

// the same for signed w: |w| times a with w's sign
QV_T static inline __m512i QV(zq_dot_i8)(__m512i w, __m512i a) {
    const __m512i as = _mm512_mask_sub_epi8(a, _mm512_movepi8_mask(w), _mm512_setzero_si512(), a);
    return QV(zq_dot_u8)(_mm512_abs_epi8(w), as);
}

// A kernel over pairs of blocks: W(b) the 32 int8 levels of weight block b, DX(b) its scale,
// DOT the product (signed or unsigned levels), MIN(bx, by) the block's constant term (0 for the
// formats without a min).
#define ZQ_KERNEL(t, BX, BY, W, DX, DOT, MIN) \
QV_T void QV(ggml_cpu_q_dot_##t)(int n, float * s, size_t bs, const void * vx, size_t bx, const void * vy, size_t by, int nrc) { \
    (void) bs; (void) bx; (void) by; (void) nrc; \
    const BX * x = vx; \
    const BY * y = vy; \
    const int nb = n/32; \
    __m512 acc = _mm512_setzero_ps(); \
    float  mins = 0.0f; \
    for (int i = 0; i < nb; i += 2) { \
        const bool two = i + 1 < nb; \
        const __m512i w = zq_join(W(x[i]), two ? W(x[i + 1]) : _mm256_setzero_si256()); \
        const __m512i a = zq_join(zq_load32(y[i].qs), two ? zq_load32(y[i + 1].qs) : _mm256_setzero_si256()); \
        const __m512  d = zq_scales(DX(x[i])*zq_fp16(y[i].d), two ? DX(x[i + 1])*zq_fp16(y[i + 1].d) : 0.0f); \
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(DOT(w, a)), d, acc); \
        mins += MIN(x[i], y[i]) + (two ? MIN(x[i + 1], y[i + 1]) : 0.0f); \
    } \
    *s = _mm512_reduce_add_ps(acc) + mins; \
}

#define ZQ_D(b)        zq_fp16((b).d)
#define ZQ_NOMIN(b, c) 0.0f
#define ZQ_MIN(b, c)   (zq_fp16((b).m)*zq_fp16((c).s))

#define ZQ_W_Q4_0(b)   _mm256_sub_epi8(zq_nibbles((b).qs), _mm256_set1_epi8(8))
#define ZQ_W_Q4_1(b)   zq_nibbles((b).qs)
#define ZQ_W_Q5_0(b)   _mm256_sub_epi8(_mm256_or_si256(zq_nibbles((b).qs), zq_high_bits((b).qh)), _mm256_set1_epi8(16))
#define ZQ_W_Q5_1(b)   _mm256_or_si256(zq_nibbles((b).qs), zq_high_bits((b).qh))
#define ZQ_W_Q8_0(b)   zq_load32((b).qs)
#define ZQ_W_IQ4NL(b)  zq_lookup(ggml_kvalues_iq4nl, (b).qs)
#define ZQ_W_MXFP4(b)  zq_lookup(ggml_kvalues_mxfp4, (b).qs)
#define ZQ_D_MXFP4(b)  zq_e8m0_half((b).e)

ZQ_KERNEL(q4_0,   block_q4_0,   block_q8_0, ZQ_W_Q4_0,  ZQ_D,       QV(zq_dot_i8), ZQ_NOMIN)
ZQ_KERNEL(q4_1,   block_q4_1,   block_q8_1, ZQ_W_Q4_1,  ZQ_D,       QV(zq_dot_u8), ZQ_MIN)
ZQ_KERNEL(q5_0,   block_q5_0,   block_q8_0, ZQ_W_Q5_0,  ZQ_D,       QV(zq_dot_i8), ZQ_NOMIN)
ZQ_KERNEL(q5_1,   block_q5_1,   block_q8_1, ZQ_W_Q5_1,  ZQ_D,       QV(zq_dot_u8), ZQ_MIN)
ZQ_KERNEL(q8_0,   block_q8_0,   block_q8_0, ZQ_W_Q8_0,  ZQ_D,       QV(zq_dot_i8), ZQ_NOMIN)
ZQ_KERNEL(iq4_nl, block_iq4_nl, block_q8_0, ZQ_W_IQ4NL, ZQ_D,       QV(zq_dot_i8), ZQ_NOMIN)
ZQ_KERNEL(mxfp4,  block_mxfp4,  block_q8_0, ZQ_W_MXFP4, ZQ_D_MXFP4, QV(zq_dot_i8), ZQ_NOMIN)

#undef ZQ_KERNEL
#undef ZQ_D
#undef ZQ_NOMIN
#undef ZQ_MIN
#undef ZQ_W_Q4_0
#undef ZQ_W_Q4_1
#undef ZQ_W_Q5_0
#undef ZQ_W_Q5_1
#undef ZQ_W_Q8_0
#undef ZQ_W_IQ4NL
#undef ZQ_W_MXFP4
#undef ZQ_D_MXFP4
