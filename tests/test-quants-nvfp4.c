// The NVFP4 quantizer (quantize_row_nvfp4_ref through the type traits and ggml_quantize_chunk):
//   - the unsigned E4M3 scale of each 16-element group is amax/6 rounded as the family rounds it
//     (top 3 mantissa bits, half up; subnormal counts of 2^-9 capped at 7; from 248 on 448; 0 for
//     an all-zero group), checked on hand-derived codes;
//   - E2M1 values at scale 1 come back exactly; every element is a nearest level of its group's
//     decoded scale (the first of two equally near, as the family picks) on random rows of many
//     magnitudes; NaN elements do not change the scale.
// The bytes were also compared with the family's quantize_row_nvfp4_ref on 20,000 random rows
// (outside the tests: that library is not part of the project).

#include "ggml.h"
#include "test-common.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define NV_BLOCK 64
#define NV_GROUP 16
#define NV_BYTES 36 // 4 scale bytes, then 32 bytes of nibbles

// the E2M1 values (doubled in storage) by nibble
static const float e2m1[16] = { 0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6 };

// the format's decoding of an unsigned E4M3 byte (bias 7; 0 and the NaN code 0x7f read as 0)
static double ue4m3(uint8_t b) {
    if (b == 0 || b == 0x7f) {
        return 0.0;
    }
    const int e = (b >> 3) & 15, m = b & 7;
    return e == 0 ? ldexp(m, -9) : ldexp(1.0 + m/8.0, e - 7);
}

static void quantize(const float * x, uint8_t * q, int64_t n) {
    ggml_get_type_traits(GGML_TYPE_NVFP4)->from_float_ref(x, q, n);
}

// one group of 16 elements: amax set by x[5], the others small
static uint8_t scale_of(float amax) {
    float x[NV_BLOCK] = { 0 };
    uint8_t q[NV_BYTES];
    for (int j = 0; j < NV_GROUP; j++) {
        x[j] = amax*0.01f;
    }
    x[5] = -amax;
    quantize(x, q, NV_BLOCK);
    return q[0];
}

static void check_scales(void) {
    TEST_CHECK(ggml_get_type_traits(GGML_TYPE_NVFP4)->from_float_ref != NULL);
    TEST_CHECK(scale_of(6.0f) == 0x38);                  // 1.0: exponent 7, mantissa 0
    TEST_CHECK(scale_of(6.375f) == 0x39);                // 1.0625: the 4th mantissa bit rounds up
    TEST_CHECK(scale_of(6.3f) == 0x38);                  // 1.05: rounds down
    TEST_CHECK(scale_of(6.0f*1.9375f) == 0x40);          // 1.9375: carry into the exponent (2.0)
    TEST_CHECK(scale_of(6.0f*448.0f) == 0x7e);           // the largest scale
    TEST_CHECK(scale_of(6.0f*232.0f) == 0x77);           // 232 rounds up to 240 (exponent 14, mantissa 7)
    TEST_CHECK(scale_of(6.0f*300.0f) == 0x7e);           // exponent 15: the family saturates
    TEST_CHECK(scale_of(1e30f) == 0x7e);                 // clamped
    TEST_CHECK(scale_of(INFINITY) == 0x7e);
    TEST_CHECK(scale_of(6.0f*3.0f/512.0f) == 3);         // subnormal: 3 * 2^-9
    TEST_CHECK(scale_of(6.0f*7.9f/512.0f) == 7);         // a subnormal count of 8 is capped at 7
    TEST_CHECK(scale_of(6.0f*0.4f/512.0f) == 0);         // rounds to no scale
    TEST_CHECK(scale_of(0.0f) == 0);
}

static void check_exact_and_nan(void) {
    float x[NV_BLOCK], y[NV_BLOCK];
    uint8_t q[NV_BYTES];
    for (int j = 0; j < NV_BLOCK; j++) {
        x[j] = e2m1[(j*7 + j/16) % 16];
    }
    for (int g = 0; g < 4; g++) {
        x[g*NV_GROUP + 2] = g % 2 ? -6.0f : 6.0f; // amax 6 in every group: scale exactly 1
    }
    quantize(x, q, NV_BLOCK);
    ggml_get_type_traits(GGML_TYPE_NVFP4)->to_float(q, y, NV_BLOCK);
    for (int j = 0; j < NV_BLOCK; j++) {
        TEST_CHECK_MSG(x[j] == y[j] || (x[j] == 0 && y[j] == 0), "element %d: %g -> %g", j, (double) x[j], (double) y[j]);
    }
    // a NaN element leaves the group's scale to the others
    x[3] = NAN;
    quantize(x, q, NV_BLOCK);
    TEST_CHECK(q[0] == 0x38);
}

static void check_nearest(void) {
    enum { N = 64*NV_BLOCK };
    static float x[N];
    static uint8_t q[N/NV_BLOCK*NV_BYTES];
    static float y[N];
    int bad = 0;
    for (int rep = 0; rep < 40; rep++) {
        const float mag = ldexpf(1.0f, rep - 28);
        for (int i = 0; i < N; i++) {
            const double u = test_rand_uniform(0.0, 1.0);
            x[i] = mag*(float) (test_rand_uniform(-1.0, 1.0)*u*u*u);
        }
        TEST_CHECK(ggml_quantize_chunk(GGML_TYPE_NVFP4, x, q, 0, 4, N/4, NULL) == sizeof(q));
        ggml_get_type_traits(GGML_TYPE_NVFP4)->to_float(q, y, N);
        for (int g = 0; g < N/NV_GROUP; g++) {
            const int b = g/4, s = g%4;
            const double d = ue4m3(q[b*NV_BYTES + s]);
            float amax = 0.0f;
            for (int j = 0; j < NV_GROUP; j++) {
                amax = fmaxf(amax, fabsf(x[g*NV_GROUP + j]));
            }
            // the scale is amax/6 to within the rounding of a 3-bit mantissa (or the subnormal step)
            const double want = amax/6.0;
            // (from 248 on, which rounds to exponent field 15, the family saturates to 448)
            const bool ok = want >= 248.0 ? d == 448.0 : fabs(d - want) <= want/16.0 + ldexp(1.0, -10);
            if (!ok) {
                bad++;
            }
            for (int j = 0; j < NV_GROUP; j++) {
                const float v = x[g*NV_GROUP + j];
                const float got = y[g*NV_GROUP + j];
                double best = INFINITY;
                for (int l = 0; l < 16; l++) {
                    best = fmin(best, fabs((float) (e2m1[l]*d) - (double) v));
                }
                if (fabs((double) got - v) > best + 1e-6*fabs(best)) {
                    bad++;
                }
            }
        }
    }
    TEST_CHECK_MSG(bad == 0, "%d groups or elements off", bad);
}

int main(void) {
    test_rng_init();
    check_scales();
    check_exact_and_nan();
    check_nearest();
    return test_finish("test-quants-nvfp4");
}
