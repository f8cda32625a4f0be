// Element types: type-traits table and size queries, fp16 / bf16 conversions (against decoders and
// nearest-value references written here in double precision), row converters, row validation.

#include "ggml.h"
#include "ggml-impl.h"
#include "test-common.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

//
// independent references
//

// value of a binary16 pattern: (-1)^s * m * 2^e, assembled in double from the fields
static double ref_half_decode(uint16_t h) {
    const int s = h >> 15;
    const int e = (h >> 10) & 31;
    const int m = h & 1023;
    double v;
    if (e == 31) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = ldexp((double) m, -24);
    } else {
        v = ldexp((double) (1024 + m), e - 25);
    }
    return s ? -v : v;
}

static bool half_is_nan(uint16_t h) {
    return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
}

// value of the binary16 nearest to x (ties to even), infinities for overflow; x not NaN
static double ref_half_round(float x) {
    const double ax = fabs((double) x);
    if (isinf(ax)) {
        return (double) x;
    }
    if (ax >= 65520.0) { // midpoint of 65504 and 2^16 and above
        return copysign(INFINITY, (double) x);
    }
    double q; // spacing of halves around ax
    if (ax < ldexp(1.0, -14)) {
        q = ldexp(1.0, -24);
    } else {
        int e;
        frexp(ax, &e);          // ax in [2^(e-1), 2^e), 11 significant bits
        q = ldexp(1.0, e - 11);
    }
    const double n = ax / q;    // exact: a power-of-two division
    double f = floor(n);
    const double r = n - f;
    if (r > 0.5 || (r == 0.5 && fmod(f, 2.0) != 0.0)) {
        f += 1.0;
    }
    return copysign(f * q, (double) x);
}

static double ref_bf16_decode(uint16_t h) {
    const int s = h >> 15;
    const int e = (h >> 7) & 255;
    const int m = h & 127;
    double v;
    if (e == 255) {
        v = m ? NAN : INFINITY;
    } else if (e == 0) {
        v = ldexp((double) m, -133);
    } else {
        v = ldexp((double) (128 + m), e - 134);
    }
    return s ? -v : v;
}

static bool bf16_is_nan(uint16_t h) {
    return (h & 0x7f80) == 0x7f80 && (h & 0x007f) != 0;
}

static double ref_bf16_round(float x) {
    const double ax = fabs((double) x);
    if (isinf(ax)) {
        return (double) x;
    }
    double q;
    if (ax < ldexp(1.0, -126)) {
        q = ldexp(1.0, -133);
    } else {
        int e;
        frexp(ax, &e);          // 8 significant bits
        q = ldexp(1.0, e - 8);
    }
    const double n = ax / q;
    double f = floor(n);
    const double r = n - f;
    if (r > 0.5 || (r == 0.5 && fmod(f, 2.0) != 0.0)) {
        f += 1.0;
    }
    double v = f * q;
    if (v >= ldexp(1.0, 128)) {
        v = INFINITY;
    }
    return copysign(v, (double) x);
}

// same value and same sign (so -0 and +0 differ)
static bool same_value(double a, double b) {
    return a == b && signbit(a) == signbit(b);
}

//
// fp16
//

static void test_fp16_all_patterns(void) {
    int bad_dec = 0, bad_rt = 0, bad_nan = 0, bad_impl = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        const uint16_t h = (uint16_t) i;
        const float    f = ggml_fp16_to_fp32(h);
        if (bits_of(f) != bits_of(ggml_compute_fp16_to_fp32(h)) || bits_of(f) != bits_of(GGML_FP16_TO_FP32(h))) {
            bad_impl++;
        }
        if (half_is_nan(h)) {
            // NaN: a NaN of the same sign; back to half it is the quiet form of the same payload
            const uint16_t back = ggml_fp32_to_fp16(f);
            if (!isnan(f) || (signbit(f) != 0) != ((h & 0x8000) != 0) || back != (h | 0x0200)) {
                if (bad_nan++ < 5) {
                    fprintf(stderr, "nan 0x%04x -> 0x%08x -> 0x%04x\n", h, bits_of(f), back);
                }
            }
            continue;
        }
        if (!same_value((double) f, ref_half_decode(h))) {
            if (bad_dec++ < 5) {
                fprintf(stderr, "decode 0x%04x: got %.9g want %.9g\n", h, (double) f, ref_half_decode(h));
            }
        }
        const uint16_t back = ggml_fp32_to_fp16(f);
        if (back != h || ggml_compute_fp32_to_fp16(f) != h) {
            if (bad_rt++ < 5) {
                fprintf(stderr, "round trip 0x%04x -> %.9g -> 0x%04x\n", h, (double) f, back);
            }
        }
    }
    TEST_CHECK_MSG(bad_dec == 0, "fp16 -> fp32: %d patterns decoded wrongly", bad_dec);
    TEST_CHECK_MSG(bad_rt == 0, "fp16 -> fp32 -> fp16: %d patterns changed", bad_rt);
    TEST_CHECK_MSG(bad_nan == 0, "fp16 NaN patterns: %d mishandled", bad_nan);
    TEST_CHECK_MSG(bad_impl == 0, "public and internal fp16 decoders differ on %d patterns", bad_impl);

    // a few values spelled out
    TEST_CHECK(ggml_fp16_to_fp32(0x3c00) == 1.0f);
    TEST_CHECK(ggml_fp16_to_fp32(0xc000) == -2.0f);
    TEST_CHECK(ggml_fp16_to_fp32(0x7bff) == 65504.0f);
    TEST_CHECK(ggml_fp16_to_fp32(0x0001) == 0x1p-24f);
    TEST_CHECK(ggml_fp16_to_fp32(0x0400) == 0x1p-14f);
    TEST_CHECK(bits_of(ggml_fp16_to_fp32(0x8000)) == 0x80000000u);
    TEST_CHECK(isinf(ggml_fp16_to_fp32(0xfc00)) && ggml_fp16_to_fp32(0xfc00) < 0);
}

static int check_fp32_to_fp16(float x) {
    const uint16_t h = ggml_fp32_to_fp16(x);
    if (isnan(x)) {
        return half_is_nan(h) && ((h >> 15) == (bits_of(x) >> 31)) ? 0 : 1;
    }
    const double want = ref_half_round(x);
    const double got  = ref_half_decode(h);
    if (!same_value(got, want) || h != ggml_compute_fp32_to_fp16(x)) {
        return 1;
    }
    return 0;
}

static void test_fp16_rounding(void) {
    const int N = 1000000;
    int bad = 0;
    uint32_t first_bad = 0;
    // uniform bit patterns: the whole range, with subnormals, infinities and NaNs
    for (int i = 0; i < N; i++) {
        const float x = float_of((uint32_t) test_rand_u64());
        if (check_fp32_to_fp16(x) && bad++ == 0) {
            first_bad = bits_of(x);
        }
    }
    TEST_CHECK_MSG(bad == 0, "fp32 -> fp16 random bits: %d wrong, first 0x%08x", bad, first_bad);

    // magnitudes around the half range (underflow, subnormal, normal, overflow)
    bad = 0;
    for (int i = 0; i < N; i++) {
        const uint32_t r    = (uint32_t) test_rand_u64();
        const int      e    = (int) test_rand_int(-28, 17);
        const uint32_t bits = (r & 0x80000000u) | ((uint32_t)(e + 127) << 23) | (r & 0x7fffffu);
        const float    x    = float_of(bits);
        if (check_fp32_to_fp16(x) && bad++ == 0) {
            first_bad = bits;
        }
    }
    TEST_CHECK_MSG(bad == 0, "fp32 -> fp16 half range: %d wrong, first 0x%08x", bad, first_bad);

    // every exact midpoint between neighbouring halves, and the floats just beside it
    int bad_tie = 0, bad_near = 0;
    for (uint32_t h = 0; h < 0x7c00; h++) {
        const double lo  = ref_half_decode((uint16_t) h);
        const double hi  = h + 1 == 0x7c00 ? 65536.0 : ref_half_decode((uint16_t)(h + 1));
        const float  mid = (float) ((lo + hi) / 2);         // 12 significant bits: exact in float
        if ((double) mid != (lo + hi) / 2) {
            bad_tie++;
            continue;
        }
        const uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t) h;
        for (int s = 0; s < 2; s++) {
            const float    sx = s ? -mid : mid;
            const uint16_t sb = s ? 0x8000 : 0;
            if (ggml_fp32_to_fp16(sx) != (uint16_t)(even | sb)) {
                if (bad_tie++ < 5) {
                    fprintf(stderr, "tie %.9g: got 0x%04x want 0x%04x\n", (double) sx, ggml_fp32_to_fp16(sx), even | sb);
                }
            }
            const float below = s ? -nextafterf(mid, 0.0f) : nextafterf(mid, 0.0f);
            const float above = s ? -nextafterf(mid, INFINITY) : nextafterf(mid, INFINITY);
            if (ggml_fp32_to_fp16(below) != (uint16_t)(h | sb) || ggml_fp32_to_fp16(above) != (uint16_t)((h + 1) | sb)) {
                bad_near++;
            }
            bad_near += check_fp32_to_fp16(below) + check_fp32_to_fp16(above);
        }
    }
    TEST_CHECK_MSG(bad_tie == 0, "fp32 -> fp16 exact ties: %d not rounded to even", bad_tie);
    TEST_CHECK_MSG(bad_near == 0, "fp32 -> fp16 next to ties: %d wrong", bad_near);

    // spelled out
    TEST_CHECK(ggml_fp32_to_fp16(65519.996f) == 0x7bff);
    TEST_CHECK(ggml_fp32_to_fp16(65520.0f) == 0x7c00);
    TEST_CHECK(ggml_fp32_to_fp16(-1e10f) == 0xfc00);
    TEST_CHECK(ggml_fp32_to_fp16(INFINITY) == 0x7c00);
    TEST_CHECK(ggml_fp32_to_fp16(-0.0f) == 0x8000);
    TEST_CHECK(ggml_fp32_to_fp16(0x1p-25f) == 0x0000);            // tie between 0 and 2^-24: even
    TEST_CHECK(ggml_fp32_to_fp16(nextafterf(0x1p-25f, 1.0f)) == 0x0001);
    TEST_CHECK(ggml_fp32_to_fp16(0x1.8p-24f) == 0x0002);          // 1.5 units: tie to even 2
    TEST_CHECK(ggml_fp32_to_fp16(0x1p-149f) == 0x0000);           // smallest fp32 subnormal
    TEST_CHECK(ggml_fp32_to_fp16(-0x1p-149f) == 0x8000);
    TEST_CHECK(ggml_fp32_to_fp16(0x1.ff8p-15f) == 0x03ff);         // largest subnormal
    TEST_CHECK(ggml_fp32_to_fp16(0x1.ffcp-15f) == 0x0400);         // tie just below 2^-14 -> min normal
    TEST_CHECK(ggml_fp32_to_fp16(1.0f + 0x1p-11f) == 0x3c00);     // tie, 1.0 even
    TEST_CHECK(ggml_fp32_to_fp16(1.0f + 0x1.8p-10f) == 0x3c02);   // tie, odd below -> up
    TEST_CHECK(half_is_nan(ggml_fp32_to_fp16(float_of(0x7f800001u))));   // signalling, low payload
    TEST_CHECK(half_is_nan(ggml_fp32_to_fp16(float_of(0xff800001u))) && (ggml_fp32_to_fp16(float_of(0xff800001u)) & 0x8000));
    TEST_CHECK(ggml_fp32_to_fp16(NAN) == 0x7e00 || ggml_fp32_to_fp16(NAN) == 0xfe00);
}

//
// bf16
//

static void test_bf16(void) {
    int bad_dec = 0, bad_rt = 0, bad_nan = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        const ggml_bf16_t h = { (uint16_t) i };
        const float f = ggml_bf16_to_fp32(h);
        if (bf16_is_nan(h.bits)) {
            const ggml_bf16_t back = ggml_fp32_to_bf16(f);
            if (!isnan(f) || back.bits != (h.bits | 0x0040)) {
                bad_nan++;
            }
            continue;
        }
        if (!same_value((double) f, ref_bf16_decode(h.bits))) {
            bad_dec++;
        }
        if (ggml_fp32_to_bf16(f).bits != h.bits) {
            bad_rt++;
        }
    }
    TEST_CHECK_MSG(bad_dec == 0, "bf16 -> fp32: %d patterns decoded wrongly", bad_dec);
    TEST_CHECK_MSG(bad_rt == 0, "bf16 -> fp32 -> bf16: %d patterns changed", bad_rt);
    TEST_CHECK_MSG(bad_nan == 0, "bf16 NaN patterns: %d mishandled", bad_nan);

    const int N = 1000000;
    int bad = 0;
    uint32_t first_bad = 0;
    for (int i = 0; i < N; i++) {
        const float x = float_of((uint32_t) test_rand_u64());
        const ggml_bf16_t h = ggml_fp32_to_bf16(x);
        bool ok;
        if (isnan(x)) {
            ok = bf16_is_nan(h.bits) && (h.bits >> 15) == (bits_of(x) >> 31);
        } else {
            ok = same_value(ref_bf16_decode(h.bits), ref_bf16_round(x));
        }
        if (!ok && bad++ == 0) {
            first_bad = bits_of(x);
        }
    }
    TEST_CHECK_MSG(bad == 0, "fp32 -> bf16 random bits: %d wrong, first 0x%08x", bad, first_bad);

    // exact ties between random neighbours (incl. subnormals and the largest finite), and beside
    int bad_tie = 0, bad_near = 0;
    for (int i = 0; i < N; i++) {
        uint16_t h = (uint16_t)(test_rand_u64() & 0x7fff);
        if (i < 4) {
            h = (uint16_t[]){ 0x0000, 0x0001, 0x007f, 0x7f7f }[i];
        }
        if (h >= 0x7f80) {
            continue;
        }
        const double lo  = ref_bf16_decode(h);
        const double hi  = h + 1 == 0x7f80 ? ldexp(1.0, 128) : ref_bf16_decode((uint16_t)(h + 1));
        const double mid = (lo + hi) / 2;
        const float  fm  = (float) mid;
        if ((double) fm != mid) {
            bad_tie++;
            continue;
        }
        const uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
        const uint16_t sb   = (i & 1) ? 0x8000 : 0;
        const float    sx   = sb ? -fm : fm;
        if (ggml_fp32_to_bf16(sx).bits != (even | sb)) {
            bad_tie++;
        }
        const float below = nextafterf(sx, 0.0f);
        const float above = nextafterf(sx, sb ? -INFINITY : INFINITY);
        if (ggml_fp32_to_bf16(below).bits != (h | sb) || ggml_fp32_to_bf16(above).bits != ((h + 1) | sb)) {
            bad_near++;
        }
    }
    TEST_CHECK_MSG(bad_tie == 0, "fp32 -> bf16 exact ties: %d not rounded to even", bad_tie);
    TEST_CHECK_MSG(bad_near == 0, "fp32 -> bf16 next to ties: %d wrong", bad_near);

    TEST_CHECK(ggml_fp32_to_bf16(1.0f).bits == 0x3f80);
    TEST_CHECK(ggml_fp32_to_bf16(-0.0f).bits == 0x8000);
    TEST_CHECK(ggml_fp32_to_bf16(INFINITY).bits == 0x7f80);
    TEST_CHECK(ggml_fp32_to_bf16(FLT_MAX).bits == 0x7f80);       // rounds past the largest bf16
    TEST_CHECK(ggml_fp32_to_bf16(float_of(0x7f7f7fffu)).bits == 0x7f7f);
    TEST_CHECK(bf16_is_nan(ggml_fp32_to_bf16(float_of(0x7f800001u)).bits)); // payload only in low bits
    TEST_CHECK(ggml_bf16_to_fp32((ggml_bf16_t){ 0x4049 }) == 3.140625f);
}

//
// row converters
//

#define ROW_MAX 100
#define ROW_PAD 16

static void fill_random_bits(void * p, size_t nbytes) {
    uint8_t * b = (uint8_t *) p;
    for (size_t i = 0; i < nbytes; i++) {
        b[i] = (uint8_t) test_rand_u64();
    }
}

// random floats: mostly in the half range, some arbitrary bit patterns (NaN, Inf, huge, tiny)
static void fill_floats(float * x, int n) {
    for (int i = 0; i < n; i++) {
        const uint32_t r = (uint32_t) test_rand_u64();
        if (i % 4 == 3) {
            x[i] = float_of(r);
        } else if (i % 8 == 2) {
            // an exact bf16 tie (low 16 bits 1000...0) somewhere in the float range
            x[i] = float_of((r & 0xffff0000u) | 0x8000u);
            if (isnan(x[i])) {
                x[i] = 1.0f;
            }
        } else if (i % 8 == 5) {
            // an exact fp16 tie among normal halves (low 13 bits 1000...0)
            const int e = (int) test_rand_int(-14, 15);
            x[i] = float_of((r & 0x807fe000u) | 0x1000u | ((uint32_t)(e + 127) << 23));
        } else {
            const int e = (int) test_rand_int(-26, 16);
            x[i] = float_of((r & 0x807fffffu) | ((uint32_t)(e + 127) << 23));
        }
    }
}

static void test_rows(void) {
    int bad = 0;
    for (int n = 0; n <= ROW_MAX; n++) {
        for (int off = 0; off < 8; off++) {
            // sources and destinations start `off` elements into their buffers (misaligned for SIMD)
            float       xf[ROW_MAX + ROW_PAD], yf[ROW_MAX + ROW_PAD];
            ggml_fp16_t xh[ROW_MAX + ROW_PAD], yh[ROW_MAX + ROW_PAD];
            ggml_bf16_t xb[ROW_MAX + ROW_PAD], yb[ROW_MAX + ROW_PAD], yb_ref[ROW_MAX + ROW_PAD];
            fill_floats(xf, ROW_MAX + ROW_PAD);
            fill_random_bits(xh, sizeof(xh));
            fill_random_bits(xb, sizeof(xb));

            // fp16 -> fp32
            memset(yf, 0xa5, sizeof(yf));
            ggml_fp16_to_fp32_row(xh + off, yf + off, n);
            for (int i = 0; i < ROW_MAX + ROW_PAD; i++) {
                const bool in = i >= off && i < off + n;
                const uint32_t want = in ? bits_of(ggml_fp16_to_fp32(xh[i])) : 0xa5a5a5a5u;
                if (bits_of(yf[i]) != want) {
                    if (bad++ < 5) fprintf(stderr, "fp16->fp32 row n=%d off=%d i=%d\n", n, off, i);
                }
            }
            // fp32 -> fp16
            memset(yh, 0xa5, sizeof(yh));
            ggml_fp32_to_fp16_row(xf + off, yh + off, n);
            for (int i = 0; i < ROW_MAX + ROW_PAD; i++) {
                const bool in = i >= off && i < off + n;
                const uint16_t want = in ? ggml_fp32_to_fp16(xf[i]) : 0xa5a5;
                if (yh[i] != want) {
                    if (bad++ < 5) fprintf(stderr, "fp32->fp16 row n=%d off=%d i=%d: 0x%08x -> 0x%04x want 0x%04x\n",
                                           n, off, i, bits_of(xf[i]), yh[i], want);
                }
            }
            // bf16 -> fp32
            memset(yf, 0xa5, sizeof(yf));
            ggml_bf16_to_fp32_row(xb + off, yf + off, n);
            for (int i = 0; i < ROW_MAX + ROW_PAD; i++) {
                const bool in = i >= off && i < off + n;
                const uint32_t want = in ? bits_of(ggml_bf16_to_fp32(xb[i])) : 0xa5a5a5a5u;
                if (bits_of(yf[i]) != want) {
                    bad++;
                }
            }
            // fp32 -> bf16, both row functions
            memset(yb, 0xa5, sizeof(yb));
            memset(yb_ref, 0xa5, sizeof(yb_ref));
            ggml_fp32_to_bf16_row(xf + off, yb + off, n);
            ggml_fp32_to_bf16_row_ref(xf + off, yb_ref + off, n);
            for (int i = 0; i < ROW_MAX + ROW_PAD; i++) {
                const bool in = i >= off && i < off + n;
                const uint16_t want = in ? ggml_fp32_to_bf16(xf[i]).bits : 0xa5a5;
                if (yb[i].bits != want || yb_ref[i].bits != want) {
                    bad++;
                }
            }
        }
    }
    TEST_CHECK_MSG(bad == 0, "row converters differ from the scalar ones in %d elements", bad);

    // every half pattern in one long row (covers every NaN payload through the vector path)
    {
        ggml_fp16_t * h = malloc(65536 * sizeof(*h));
        float       * f = malloc(65536 * sizeof(*f));
        ggml_fp16_t * h2 = malloc(65536 * sizeof(*h2));
        TEST_CHECK(h && f && h2);
        if (h && f && h2) {
            for (uint32_t i = 0; i < 65536; i++) {
                h[i] = (ggml_fp16_t) i;
            }
            ggml_fp16_to_fp32_row(h, f, 65536);
            ggml_fp32_to_fp16_row(f, h2, 65536);
            int bad_d = 0, bad_e = 0;
            for (uint32_t i = 0; i < 65536; i++) {
                bad_d += bits_of(f[i]) != bits_of(ggml_fp16_to_fp32((ggml_fp16_t) i));
                bad_e += h2[i] != ggml_fp32_to_fp16(f[i]);
            }
            TEST_CHECK_MSG(bad_d == 0, "fp16->fp32 row over all patterns: %d differ", bad_d);
            TEST_CHECK_MSG(bad_e == 0, "fp32->fp16 row over all patterns: %d differ", bad_e);
        }
        free(h); free(f); free(h2);
    }

    // special floats through the vector path: signalling NaNs, payloads, subnormals, ties, overflow
    {
        const uint32_t specials[] = {
            0x7f800001u, 0xff800001u, 0x7fa00000u, 0x7fc00000u, 0xffffffffu, 0x7f802000u, 0x7fbfe000u,
            0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x33000000u,
            0x33000001u, 0xb3000000u, 0x387fc000u, 0x387fe000u, 0x477fe000u, 0x477fefffu, 0x477ff000u,
            0xc77ff000u, 0x3f801000u, 0x3f803000u, 0x7f7fffffu, 0x38800000u, 0x337fffffu, 0x33c00000u,
            0x3f808000u, 0x3f818000u, 0xbf818000u, 0x00008000u, 0x00018000u, 0x7f7f8000u, 0x7f7e8000u,
        };
        const int n = (int) (sizeof(specials) / sizeof(specials[0]));
        float x[64];
        ggml_fp16_t y[64];
        ggml_bf16_t b[64];
        for (int i = 0; i < n; i++) {
            x[i] = float_of(specials[i]);
        }
        ggml_fp32_to_fp16_row(x, y, n);
        ggml_fp32_to_bf16_row(x, b, n);
        int bad_s = 0;
        for (int i = 0; i < n; i++) {
            if (y[i] != ggml_fp32_to_fp16(x[i]) || b[i].bits != ggml_fp32_to_bf16(x[i]).bits) {
                bad_s++;
                fprintf(stderr, "special 0x%08x: fp16 row 0x%04x scalar 0x%04x, bf16 row 0x%04x scalar 0x%04x\n", specials[i], y[i], ggml_fp32_to_fp16(x[i]), b[i].bits, ggml_fp32_to_bf16(x[i]).bits);
            }
            bad_s += check_fp32_to_fp16(x[i]);
        }
        TEST_CHECK_MSG(bad_s == 0, "special values: %d differ", bad_s);
    }

    // long rows, unaligned start
    {
        enum { LONG = 4099 };
        float * x = malloc((LONG + 1) * sizeof(float));
        ggml_fp16_t * y = malloc((LONG + 1) * sizeof(ggml_fp16_t));
        float * z = malloc((LONG + 1) * sizeof(float));
        TEST_CHECK(x && y && z);
        if (x && y && z) {
            fill_floats(x, LONG + 1);
            ggml_fp32_to_fp16_row(x + 1, y + 1, LONG);
            ggml_fp16_to_fp32_row(y + 1, z + 1, LONG);
            int bad_l = 0;
            for (int i = 1; i <= LONG; i++) {
                bad_l += y[i] != ggml_fp32_to_fp16(x[i]);
                bad_l += bits_of(z[i]) != bits_of(ggml_fp16_to_fp32(y[i]));
            }
            TEST_CHECK_MSG(bad_l == 0, "long rows: %d differ", bad_l);
        }
        free(x); free(y); free(z);
    }

    // traits converters agree with the row functions
    {
        float x[40], y[40];
        ggml_fp16_t h[40];
        ggml_bf16_t b[40];
        fill_floats(x, 40);
        const struct ggml_type_traits * t16 = ggml_get_type_traits(GGML_TYPE_F16);
        const struct ggml_type_traits * tb  = ggml_get_type_traits(GGML_TYPE_BF16);
        const struct ggml_type_traits * t32 = ggml_get_type_traits(GGML_TYPE_F32);
        TEST_CHECK(t16 && t16->to_float && t16->from_float_ref);
        TEST_CHECK(tb && tb->to_float && tb->from_float_ref);
        TEST_CHECK(t32 && t32->to_float && t32->from_float_ref);
        if (t16 && t16->to_float && t16->from_float_ref && tb && tb->to_float && tb->from_float_ref &&
            t32 && t32->to_float && t32->from_float_ref) {
            int bad_t = 0;
            t16->from_float_ref(x, h, 40);
            t16->to_float(h, y, 40);
            for (int i = 0; i < 40; i++) {
                bad_t += h[i] != ggml_fp32_to_fp16(x[i]);
                bad_t += bits_of(y[i]) != bits_of(ggml_fp16_to_fp32(h[i]));
            }
            tb->from_float_ref(x, b, 40);
            tb->to_float(b, y, 40);
            for (int i = 0; i < 40; i++) {
                bad_t += b[i].bits != ggml_fp32_to_bf16(x[i]).bits;
                bad_t += bits_of(y[i]) != bits_of(ggml_bf16_to_fp32(b[i]));
            }
            float c[40];
            t32->from_float_ref(x, c, 40);
            t32->to_float(c, y, 40);
            bad_t += memcmp(x, y, sizeof(x)) != 0;
            TEST_CHECK_MSG(bad_t == 0, "traits converters: %d differ", bad_t);
        }
    }

    // NULL pointers with a non-zero count: logged, no crash; negative counts do nothing
    test_log_capture_begin();
    ggml_fp16_to_fp32_row(NULL, NULL, 10);
    ggml_fp32_to_bf16_row(NULL, NULL, 10);
    const int errs = test_log_error_count();
    float one = 1.0f;
    ggml_fp16_t dst = 0x1234;
    ggml_fp32_to_fp16_row(&one, &dst, -5);
    test_log_capture_end();
    TEST_CHECK(errs == 2);
    TEST_CHECK(dst == 0x1234);
}

//
// type table and sizes
//

struct type_expect {
    enum ggml_type type;
    const char   * name;
    int64_t        blck;
    size_t         size;
    bool           quantized;
};

// the ggml family's block sizes and block byte sizes (ggml-common.h block structs)
static const struct type_expect expected_types[] = {
    { GGML_TYPE_F32,     "f32",       1,   4, false },
    { GGML_TYPE_F16,     "f16",       1,   2, false },
    { GGML_TYPE_Q4_0,    "q4_0",     32,  18, true  },
    { GGML_TYPE_Q4_1,    "q4_1",     32,  20, true  },
    { GGML_TYPE_Q5_0,    "q5_0",     32,  22, true  },
    { GGML_TYPE_Q5_1,    "q5_1",     32,  24, true  },
    { GGML_TYPE_Q8_0,    "q8_0",     32,  34, true  },
    { GGML_TYPE_Q8_1,    "q8_1",     32,  36, true  },
    { GGML_TYPE_Q2_K,    "q2_K",    256,  84, true  },
    { GGML_TYPE_Q3_K,    "q3_K",    256, 110, true  },
    { GGML_TYPE_Q4_K,    "q4_K",    256, 144, true  },
    { GGML_TYPE_Q5_K,    "q5_K",    256, 176, true  },
    { GGML_TYPE_Q6_K,    "q6_K",    256, 210, true  },
    { GGML_TYPE_Q8_K,    "q8_K",    256, 292, true  },
    { GGML_TYPE_IQ2_XXS, "iq2_xxs", 256,  66, true  },
    { GGML_TYPE_IQ2_XS,  "iq2_xs",  256,  74, true  },
    { GGML_TYPE_IQ3_XXS, "iq3_xxs", 256,  98, true  },
    { GGML_TYPE_IQ1_S,   "iq1_s",   256,  50, true  },
    { GGML_TYPE_IQ4_NL,  "iq4_nl",   32,  18, true  },
    { GGML_TYPE_IQ3_S,   "iq3_s",   256, 110, true  },
    { GGML_TYPE_IQ2_S,   "iq2_s",   256,  82, true  },
    { GGML_TYPE_IQ4_XS,  "iq4_xs",  256, 136, true  },
    { GGML_TYPE_I8,      "i8",        1,   1, false },
    { GGML_TYPE_I16,     "i16",       1,   2, false },
    { GGML_TYPE_I32,     "i32",       1,   4, false },
    { GGML_TYPE_I64,     "i64",       1,   8, false },
    { GGML_TYPE_F64,     "f64",       1,   8, false },
    { GGML_TYPE_IQ1_M,   "iq1_m",   256,  56, true  },
    { GGML_TYPE_BF16,    "bf16",      1,   2, false },
    { GGML_TYPE_TQ1_0,   "tq1_0",   256,  54, true  },
    { GGML_TYPE_TQ2_0,   "tq2_0",   256,  66, true  },
    { GGML_TYPE_MXFP4,   "mxfp4",    32,  17, true  },
    { GGML_TYPE_NVFP4,   "nvfp4",    64,  36, true  },
    { GGML_TYPE_Q1_0,    "q1_0",    128,  18, true  },
    { GGML_TYPE_Q2_0,    "q2_0",     64,  18, true  },
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static double type_sizef(enum ggml_type t) {
    return ggml_type_sizef(t);
}
#pragma GCC diagnostic pop

static void test_sizes(void) {
    const int n_expected = (int) (sizeof(expected_types) / sizeof(expected_types[0]));
    TEST_CHECK(n_expected == 35);

    bool listed[GGML_TYPE_COUNT] = { false };
    test_log_capture_begin();
    for (int i = 0; i < n_expected; i++) {
        const struct type_expect * e = &expected_types[i];
        listed[e->type] = true;
        const struct ggml_type_traits * tt = ggml_get_type_traits(e->type);
        TEST_CHECK_MSG(ggml_type_is_valid(e->type), "%s should be valid", e->name);
        TEST_CHECK_MSG(tt != NULL, "traits of %s", e->name);
        TEST_CHECK_MSG(strcmp(ggml_type_name(e->type), e->name) == 0, "name of id %d: %s, want %s",
                       (int) e->type, ggml_type_name(e->type), e->name);
        TEST_CHECK_MSG(ggml_blck_size(e->type) == e->blck, "%s block size %lld, want %lld",
                       e->name, (long long) ggml_blck_size(e->type), (long long) e->blck);
        TEST_CHECK_MSG(ggml_type_size(e->type) == e->size, "%s type size %zu, want %zu",
                       e->name, ggml_type_size(e->type), e->size);
        TEST_CHECK_MSG(ggml_is_quantized(e->type) == e->quantized, "%s is_quantized", e->name);
        TEST_CHECK(type_sizef(e->type) == (double) e->size / (double) e->blck);
        if (tt) {
            TEST_CHECK(tt->blck_size == e->blck && tt->type_size == e->size && tt->is_quantized == e->quantized);
            TEST_CHECK(strcmp(tt->type_name, e->name) == 0);
            if (e->quantized) {
                TEST_CHECK_MSG(tt->to_float != NULL, "%s: to_float", e->name); // every quantized type
            }
        }
        TEST_CHECK(ggml_row_size(e->type, 0) == 0);
        for (int64_t k = 1; k <= 1000; k = k * 7 + 3) {
            TEST_CHECK_MSG(ggml_row_size(e->type, k * e->blck) == (size_t) k * e->size,
                           "%s row size of %lld blocks", e->name, (long long) k);
        }
        // a large row: 2^30 blocks
        TEST_CHECK(ggml_row_size(e->type, ((int64_t) 1 << 30) * e->blck) == ((size_t) 1 << 30) * e->size);
    }
    TEST_CHECK_MSG(test_log_error_count() == 0, "no errors for valid types: %s", test_log_text());
    test_log_capture_end();

    // ids 0..42: valid exactly when listed above
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        TEST_CHECK_MSG(ggml_type_is_valid((enum ggml_type) t) == listed[t], "validity of id %d", t);
    }

    // row sizes that are not a whole number of blocks, negative counts, overflow
    const enum ggml_type blocked[] = { GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_NVFP4, GGML_TYPE_Q1_0 };
    for (size_t i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++) {
        test_log_capture_begin();
        const size_t r1 = ggml_row_size(blocked[i], ggml_blck_size(blocked[i]) + 1);
        const size_t r2 = ggml_row_size(blocked[i], 1);
        test_log_capture_end();
        TEST_CHECK(r1 == 0 && r2 == 0);
        TEST_CHECK(test_log_error_count() == 2);
    }
    test_log_capture_begin();
    TEST_CHECK(ggml_row_size(GGML_TYPE_F32, -1) == 0);
    TEST_CHECK(ggml_row_size(GGML_TYPE_F32, INT64_MIN) == 0);
    TEST_CHECK(ggml_row_size(GGML_TYPE_F64, INT64_MAX) == 0);   // 8 * (2^63 - 1) bytes overflows
    test_log_capture_end();
    TEST_CHECK(test_log_error_count() == 3);

    // removed ids: an entry of zeros with the family's name, as the family's library answers, so
    // that loops over every id work; only the calls that need a real type log an error
    const int removed[] = { 4, 5, 31, 32, 33, 36, 37, 38 };
    for (size_t i = 0; i < sizeof(removed) / sizeof(removed[0]); i++) {
        const enum ggml_type t = (enum ggml_type) removed[i];
        test_log_capture_begin();
        const struct ggml_type_traits * tt = ggml_get_type_traits(t);
        const bool ok_quiet = ggml_blck_size(t) == 0 && ggml_type_size(t) == 0 && !ggml_is_quantized(t) &&
                              test_log_error_count() == 0;
        const uint8_t data[36] = { 1 };
        const bool    refused  = ggml_row_size(t, 32) == 0 && type_sizef(t) == 0.0 && !ggml_validate_row_data(t, data, sizeof(data));
        const int     errs     = test_log_error_count();
        test_log_capture_end();
        TEST_CHECK_MSG(!ggml_type_is_valid(t) && tt != NULL && tt->blck_size == 0 && tt->type_size == 0, "removed id %d", removed[i]);
        TEST_CHECK_MSG(ok_quiet && refused && errs == 3, "removed id %d: quiet queries, 3 refusals logged (got %d)", removed[i], errs);
        const char * name = ggml_type_name(t);
        TEST_CHECK_MSG(strcmp(name, removed[i] < 6 ? "DEPRECATED" : removed[i] < 36 ?
                "TYPE_Q4_0_4_4 REMOVED, use Q4_0 with runtime repacking" : "TYPE_IQ4_NL_4_4 REMOVED, use IQ4_NL with runtime repacking") == 0 ||
                (removed[i] != 4 && removed[i] != 5 && removed[i] != 31 && removed[i] != 36 && strstr(name, "REMOVED") != NULL),
                "name of removed id %d: %s", removed[i], name);
    }

    // ids outside the enum: out of range, negative
    const int invalid[] = { 43, -1, 1000, INT_MAX, INT_MIN };
    for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        const enum ggml_type t = (enum ggml_type) invalid[i];
        test_log_capture_begin();
        const bool                      valid = ggml_type_is_valid(t);
        const struct ggml_type_traits * tt    = ggml_get_type_traits(t);
        const int64_t                   blck  = ggml_blck_size(t);
        const size_t                    size  = ggml_type_size(t);
        const size_t                    row   = ggml_row_size(t, 32);
        const double                    sizef = type_sizef(t);
        const bool                      quant = ggml_is_quantized(t);
        const char *                    name  = ggml_type_name(t);
        const uint8_t                   data[36] = { 1 };
        const bool                      ok    = ggml_validate_row_data(t, data, sizeof(data));
        const int                       errs  = test_log_error_count();
        test_log_capture_end();
        TEST_CHECK_MSG(!valid && tt == NULL && blck == 0 && size == 0 && row == 0 && sizef == 0.0 && !quant && !ok,
                       "id %d must not be a type", invalid[i]);
        TEST_CHECK_MSG(name != NULL && strcmp(name, "NONE") == 0, "name of id %d", invalid[i]);
        // traits, blck, size, row, sizef, quantized, validate: one error each
        TEST_CHECK_MSG(errs == 7, "id %d: %d errors logged, want 7", invalid[i], errs);
    }
}

//
// row data validation
//

static void test_validate(void) {
    enum { N = 257 };
    float       f32[N];
    ggml_fp16_t f16[N];
    ggml_bf16_t b16[N];
    double      f64[N];
    for (int i = 0; i < N; i++) {
        const float v = (float) test_rand_uniform(-1000.0, 1000.0);
        f32[i] = v;
        f16[i] = ggml_fp32_to_fp16(v);
        b16[i] = ggml_fp32_to_bf16(v);
        f64[i] = (double) v * 1e300;
    }
    // extremes that are still finite
    f32[0] = FLT_MAX; f32[1] = -FLT_MAX; f32[2] = 0x1p-149f; f32[3] = -0.0f;
    f16[0] = 0x7bff;  f16[1] = 0xfbff;   f16[2] = 0x0001;
    b16[0].bits = 0x7f7f; b16[1].bits = 0xff7f; b16[2].bits = 0x0001;
    f64[0] = DBL_MAX; f64[1] = 4.9e-324;

    test_log_capture_begin();
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_F32, f32, sizeof(f32)));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_F16, f16, sizeof(f16)));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_BF16, b16, sizeof(b16)));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_F64, f64, sizeof(f64)));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_F32, NULL, 0));
    TEST_CHECK(test_log_error_count() == 0);
    test_log_capture_end();

    // one bad value at a random place (and at the ends) is found
    const uint32_t bad32[] = { 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7f800000u, 0xff800000u };
    const uint16_t bad16[] = { 0x7e00, 0xfe00, 0x7c01, 0x7c00, 0xfc00 };
    const uint16_t badb[]  = { 0x7fc0, 0xffc0, 0x7f81, 0x7f80, 0xff80 };
    int missed = 0, errors = 0;
    for (int k = 0; k < 5; k++) {
        for (int rep = 0; rep < 3; rep++) {
            const int pos = rep == 0 ? 0 : rep == 1 ? N - 1 : (int) test_rand_int(1, N - 2);
            test_log_capture_begin();

            const float sf = f32[pos];
            f32[pos] = float_of(bad32[k]);
            missed += ggml_validate_row_data(GGML_TYPE_F32, f32, sizeof(f32));
            f32[pos] = sf;

            const ggml_fp16_t sh = f16[pos];
            f16[pos] = bad16[k];
            missed += ggml_validate_row_data(GGML_TYPE_F16, f16, sizeof(f16));
            f16[pos] = sh;

            const ggml_bf16_t sb = b16[pos];
            b16[pos].bits = badb[k];
            missed += ggml_validate_row_data(GGML_TYPE_BF16, b16, sizeof(b16));
            b16[pos] = sb;

            const double sd = f64[pos];
            f64[pos] = k < 3 ? NAN : (k == 3 ? INFINITY : -INFINITY);
            missed += ggml_validate_row_data(GGML_TYPE_F64, f64, sizeof(f64));
            f64[pos] = sd;

            errors += test_log_error_count();
            test_log_capture_end();
        }
    }
    TEST_CHECK_MSG(missed == 0, "%d NaN/Inf values not found", missed);
    TEST_CHECK_MSG(errors == 5 * 3 * 4, "%d errors logged, want %d", errors, 5 * 3 * 4);

    // the data is intact again: accepted; and at an odd (unaligned) address too
    {
        uint8_t buf[sizeof(f32) + 1];
        memcpy(buf + 1, f32, sizeof(f32));
        test_log_capture_begin();
        TEST_CHECK(ggml_validate_row_data(GGML_TYPE_F32, f32, sizeof(f32)));
        TEST_CHECK(ggml_validate_row_data(GGML_TYPE_F32, buf + 1, sizeof(f32)));
        memcpy(buf + 1 + 100 * sizeof(float), &(uint32_t){ 0x7fc00000u }, sizeof(uint32_t));
        TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_F32, buf + 1, sizeof(f32)));
        TEST_CHECK(test_log_error_count() == 1);
        test_log_capture_end();
    }

    // sizes that are not a multiple of the type (block) size
    uint8_t raw[18 * 4 + 3];
    fill_random_bits(raw, sizeof(raw));
    // the fp16 block scales (first 2 bytes of a Q4_0 block of 18, of a Q8_0 block of 34) must be
    // finite to be valid: clear one exponent bit of each
    for (size_t off = 1; off < sizeof(raw); off += 18) {
        raw[off] &= 0xbf;
    }
    raw[35] &= 0xbf;
    test_log_capture_begin();
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_F32, f32, 7));
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_F16, f16, 3));
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_Q4_0, raw, 18 * 4 + 1));
    TEST_CHECK(!ggml_validate_row_data(GGML_TYPE_F32, NULL, 8));
    TEST_CHECK(test_log_error_count() == 4);
    test_log_capture_end();

    // integer data: any bits are fine (a NaN pattern is just a number); quantized: finite scales
    test_log_capture_begin();
    const int32_t ints[4] = { 0x7fc00000, -1, 0x7f800000, 12345 };
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_I32, ints, sizeof(ints)));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_I16, ints, sizeof(ints)));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_Q4_0, raw, 18 * 4));
    TEST_CHECK(ggml_validate_row_data(GGML_TYPE_Q8_0, raw, 34 * 2));
    TEST_CHECK(test_log_error_count() == 0);
    test_log_capture_end();
}

int main(void) {
    test_rng_init();
    test_fp16_all_patterns();
    test_fp16_rounding();
    test_bf16();
    test_rows();
    test_sizes();
    test_validate();
    return test_finish("test-types");
}
