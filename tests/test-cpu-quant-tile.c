// The quantized register tiles (the tile slots of cpu-kernels.h; docs/cpu-kernels.md, "Quantized
// mat-mul design") and the MUL_MAT paths built on them:
//   - every tile slot at every level this CPU runs (levels above it are reported and skipped),
//     for every shape nr x nc up to GGML_CPU_QTILE_ROWS x GGML_CPU_QTILE_COLS, two row lengths,
//     row and column strides larger than a row, Gaussian data of several scales: each output
//     against the double dot of the dequantized weight and activation rows (2e-5 of the sum of
//     |products|) and against the portable vec_dot;
//   - every decode slot (gemv) of every level: 1 .. 9, 13 and 37 rows (the 4-row lockstep and its
//     tail), contiguous and strided, row lengths that exercise its groups, tail and activation
//     segments, weight rows of scales 1e-4 .. 1e4 and activations of 1e-3 .. 1e3, same bounds;
//   - the activation quantizers (Q8_0, Q8_1, Q8_K) of every level, byte for byte as the reference;
//   - MUL_MAT with quantized weights through a graph at odd sizes (N not a multiple of the tile's
//     rows, M of 1, 2, 3, 5 and 67 columns, a broadcast batch) with 1 and 2 threads at the level
//     in use, against the double-precision product of the dequantized weights: normalized squared
//     error <= 5e-4 (the family's bound).

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng = 0xD1B54A32D192ED03ull;

static uint32_t rnd_u32(void) {
    g_rng = g_rng*6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t) (g_rng >> 33);
}

static float rnd_gauss(void) {
    const double u1 = ((double) rnd_u32() + 1.0)/4294967296.0, u2 = (double) rnd_u32()/4294967296.0;
    return (float) (sqrt(-2.0*log(u1))*cos(6.283185307179586*u2));
}

// the grid formats (IQ1, IQ2, IQ3) have no quantizer here: random blocks (every grid index is
// valid) whose fp16 block scale is about scale/64; IQ1_M's scale is spread over the top nibbles
// of its 4 scale words at byte 48, the others' is the block's first word
static bool fill_grid_blocks(enum ggml_type t, int64_t k, float scale, uint8_t * out) {
    const size_t bs = ggml_type_size(t), bytes = ggml_row_size(t, k);
    for (size_t i = 0; i < bytes; i++) {
        out[i] = (uint8_t) rnd_u32();
    }
    for (size_t b = 0; b < bytes; b += bs) {
        const ggml_fp16_t d = ggml_fp32_to_fp16(scale*(0.5f + (float) (rnd_u32() & 1023)/1024.0f)/64.0f);
        if (t == GGML_TYPE_IQ1_M) {
            for (int j = 0; j < 4; j++) {
                uint8_t * hi = out + b + 48 + 2*(size_t) j + 1;
                *hi = (uint8_t) ((*hi & 0x0F) | ((d >> (4*j)) & 0x0F) << 4);
            }
        } else {
            memcpy(out + b, &d, sizeof(d));
        }
    }
    return true;
}

// k Gaussian values of the given scale quantized to t (the grid formats: fill_grid_blocks)
static bool quantize_gauss(enum ggml_type t, int64_t k, float scale, void * out) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(t);
    switch (t) {
        case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ2_S: case GGML_TYPE_IQ3_XXS:
        case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ1_S: case GGML_TYPE_IQ1_M:
            return fill_grid_blocks(t, k, scale, out);
        default:
            break;
    }
    float * x = malloc((size_t) k*sizeof(float));
    if (x == NULL || tr->from_float_ref == NULL) {
        free(x);
        return false;
    }
    for (int64_t i = 0; i < k; i++) {
        x[i] = scale*rnd_gauss();
    }
    tr->from_float_ref(x, out, k);
    free(x);
    return true;
}

// double dot of the dequantized rows; *sabs = the sum of |products|. For the Q8_1 activations of
// Q4_1/Q5_1 the kernels use the block's stored s = d*sum(q) (fp16) for the min term, as the
// family's do: the reference adds what that rounding changes, m*(s - d*sum(q)).
static double ref_dot(enum ggml_type tx, const void * x, enum ggml_type ty, const void * y, int64_t k, double * sabs) {
    float * xf = malloc((size_t) k*sizeof(float));
    float * yf = malloc((size_t) k*sizeof(float));
    double s = 0.0, a = 0.0;
    if (xf != NULL && yf != NULL) {
        ggml_get_type_traits(tx)->to_float(x, xf, k);
        ggml_get_type_traits(ty)->to_float(y, yf, k);
        for (int64_t i = 0; i < k; i++) {
            s += (double) xf[i]*yf[i];
            a += fabs((double) xf[i]*yf[i]);
        }
    }
    free(xf);
    free(yf);
    if (tx == GGML_TYPE_Q4_1 || tx == GGML_TYPE_Q5_1) {
        const size_t bx = ggml_type_size(tx), by = ggml_type_size(GGML_TYPE_Q8_1);
        for (int64_t i = 0; i < k/32; i++) {
            const uint8_t * xb = (const uint8_t *) x + i*bx;
            const uint8_t * yb = (const uint8_t *) y + i*by;
            ggml_fp16_t h[3];
            memcpy(&h[0], xb + 2, 2); // m follows d in both weight blocks
            memcpy(&h[1], yb, 2);
            memcpy(&h[2], yb + 2, 2);
            int sum = 0;
            for (int j = 0; j < 32; j++) {
                sum += (int8_t) yb[4 + j];
            }
            s += (double) ggml_fp16_to_fp32(h[0])*((double) ggml_fp16_to_fp32(h[2]) - (double) ggml_fp16_to_fp32(h[1])*sum);
        }
    }
    *sabs = a;
    return s;
}

// every nr x nc shape of the slot of type t; K = 768 (3 super-blocks, 24 blocks of 32) and 4864
// (19 super-blocks, 152 blocks: longer than the prefetch and unrolling patterns)
static void check_tile(const struct ggml_cpu_kernels * kt, enum ggml_type t, const char * lv, int64_t K) {
    const struct ggml_cpu_quant_kernels * q = &kt->quant[t];
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    const enum ggml_type vt = q->vec_dot_type;
    const size_t rx = ggml_row_size(t, K) + 64, ry = ggml_row_size(vt, K) + 96; // strides past a row
    const size_t ldc = GGML_CPU_QTILE_ROWS + 3;
    uint8_t * x = malloc(rx*GGML_CPU_QTILE_ROWS);
    uint8_t * y = malloc(ry*GGML_CPU_QTILE_COLS);
    float * yf = malloc((size_t) K*sizeof(float));
    float out[GGML_CPU_QTILE_COLS*(GGML_CPU_QTILE_ROWS + 3)];
    TEST_CHECK(x != NULL && y != NULL && yf != NULL);
    for (int rep = 0; rep < 3 && x != NULL && y != NULL && yf != NULL; rep++) {
        const float scale = rep == 2 ? 1e-3f : 1.0f + 2.0f*(float) rep;
        for (int r = 0; r < GGML_CPU_QTILE_ROWS; r++) {
            TEST_CHECK(quantize_gauss(t, K, 1.0f + (float) r, x + r*rx));
        }
        for (int c = 0; c < GGML_CPU_QTILE_COLS; c++) {
            for (int64_t i = 0; i < K; i++) {
                yf[i] = scale*rnd_gauss();
            }
            kt->quant[vt].from_float(yf, y + c*ry, K);
        }
        for (int nr = 1; nr <= GGML_CPU_QTILE_ROWS; nr++) {
            for (int nc = 1; nc <= GGML_CPU_QTILE_COLS; nc++) {
                for (size_t i = 0; i < sizeof(out)/sizeof(out[0]); i++) {
                    out[i] = NAN;
                }
                q->tile((int) K, out, ldc, x, rx, y, ry, nr, nc);
                for (int r = 0; r < nr; r++) {
                    for (int c = 0; c < nc; c++) {
                        double sabs;
                        const double ref = ref_dot(t, x + r*rx, vt, y + c*ry, K, &sabs);
                        float sp = NAN;
                        kp->quant[t].vec_dot((int) K, &sp, 0, x + r*rx, 0, y + c*ry, 0, 1);
                        const float s = out[c*ldc + r];
                        const double tol = 2e-5*sabs + 1e-30;
                        TEST_CHECK_MSG(isfinite(s) && fabs(s - ref) <= tol,
                                       "[%s] %s K=%d tile %dx%d (%d,%d) rep %d: %.9g vs double %.9g (tol %.3g)", lv,
                                       ggml_type_name(t), (int) K, nr, nc, r, c, rep, (double) s, ref, tol);
                        TEST_CHECK_MSG(fabs((double) s - sp) <= 2.0*tol, "[%s] %s tile %dx%d: %.9g vs portable %.9g", lv,
                                       ggml_type_name(t), nr, nc, (double) s, (double) sp);
                    }
                }
                // nothing outside the nr x nc outputs is written
                for (int c = 0; c < GGML_CPU_QTILE_COLS; c++) {
                    for (size_t r = 0; r < ldc; r++) {
                        if ((int) r >= nr || c >= nc) {
                            TEST_CHECK_MSG(isnan(out[c*ldc + r]), "[%s] %s tile %dx%d wrote (%d,%d)", lv,
                                           ggml_type_name(t), nr, nc, (int) r, c);
                        }
                    }
                }
            }
        }
    }
    free(x);
    free(y);
    free(yf);
}

// the panel pair (unpack + tile_panel) of type t: nr = 1 .. 9 and 17 rows (the kernel's groups of 8
// and their tails) unpacked at once from rows strided past a row, then every nc = 1 .. 8 column
// group, against the double reference and bit for bit against the level's tile (same sums)
static void check_panel(const struct ggml_cpu_kernels * kt, enum ggml_type t, const char * lv, int64_t K) {
    const struct ggml_cpu_quant_kernels * q = &kt->quant[t];
    const enum ggml_type vt = q->vec_dot_type;
    enum { MAXR = 17 };
    const size_t rx = ggml_row_size(t, K) + 48, ry = ggml_row_size(vt, K) + 96;
    const size_t ldc = MAXR + 2;
    uint8_t * x = malloc(rx*MAXR);
    uint8_t * y = malloc(ry*GGML_CPU_QTILE_COLS);
    float * yf = malloc((size_t) K*sizeof(float));
    void * panel = malloc(GGML_CPU_QPANEL_ROW_BYTES(K)*MAXR);
    float out[GGML_CPU_QTILE_COLS*(MAXR + 2)];
    TEST_CHECK(x != NULL && y != NULL && yf != NULL && panel != NULL);
    for (int rep = 0; rep < 2 && x != NULL && y != NULL && yf != NULL && panel != NULL; rep++) {
        const float scale = rep == 1 ? 1e-3f : 2.0f;
        for (int r = 0; r < MAXR; r++) {
            TEST_CHECK(quantize_gauss(t, K, 1.0f + (float) (r % 5), x + r*rx));
        }
        for (int c = 0; c < GGML_CPU_QTILE_COLS; c++) {
            for (int64_t i = 0; i < K; i++) {
                yf[i] = scale*rnd_gauss();
            }
            kt->quant[vt].from_float(yf, y + c*ry, K);
        }
        const int rows[] = { 1, 2, 3, 4, 5, 7, 8, 9, 17 };
        for (size_t ir = 0; ir < sizeof(rows)/sizeof(rows[0]); ir++) {
            const int nr = rows[ir];
            q->unpack((int) K, panel, x, rx, nr);
            for (int nc = 1; nc <= GGML_CPU_QTILE_COLS; nc++) {
                for (size_t i = 0; i < sizeof(out)/sizeof(out[0]); i++) {
                    out[i] = NAN;
                }
                q->tile_panel((int) K, out, ldc, panel, y, ry, nr, nc);
                for (int c = 0; c < GGML_CPU_QTILE_COLS; c++) {
                    for (int r = 0; r < (int) ldc; r++) {
                        const float s = out[c*ldc + r];
                        if (r >= nr || c >= nc) {
                            TEST_CHECK_MSG(isnan(s), "[%s] %s panel %dx%d wrote (%d,%d)", lv, ggml_type_name(t), nr, nc, r, c);
                            continue;
                        }
                        double sabs;
                        const double ref = ref_dot(t, x + r*rx, vt, y + c*ry, K, &sabs);
                        const double tol = 2e-5*sabs + 1e-30;
                        TEST_CHECK_MSG(isfinite(s) && fabs(s - ref) <= tol,
                                       "[%s] %s K=%d panel %dx%d (%d,%d) rep %d: %.9g vs double %.9g (tol %.3g)", lv,
                                       ggml_type_name(t), (int) K, nr, nc, r, c, rep, (double) s, ref, tol);
                        if (q->tile != NULL && nc > 1) {
                            // a 1 x 2 call (its register-tile path, not vec_dot) on this column twice
                            float st[2] = { NAN, NAN };
                            q->tile((int) K, st, 1, x + r*rx, rx, y + c*ry, 0, 1, 2);
                            TEST_CHECK_MSG(memcmp(&st[0], &s, sizeof(s)) == 0, "[%s] %s K=%d panel (%d,%d): %.9g vs tile %.9g",
                                           lv, ggml_type_name(t), (int) K, r, c, (double) s, (double) st[0]);
                        }
                    }
                }
            }
        }
    }
    free(x);
    free(y);
    free(yf);
    free(panel);
}

// the decode slot (gemv) of type t: nr rows (consecutive in memory, and strided past a row) against
// one activation row of K elements (the lengths in main)
static void check_gemv(const struct ggml_cpu_kernels * kt, enum ggml_type t, const char * lv, int64_t K) {
    const struct ggml_cpu_quant_kernels * q = &kt->quant[t];
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    const enum ggml_type vt = q->vec_dot_type;
    enum { NR = 37 };
    const size_t row = ggml_row_size(t, K), ry = ggml_row_size(vt, K);
    uint8_t * y = malloc(ry);
    float * yf = malloc((size_t) K*sizeof(float));
    float out[NR + 1];
    TEST_CHECK(y != NULL && yf != NULL);
    // rep 3: activations of 1e3 and extreme weight scales on every third row from 9 on; rep 4:
    // row by row 5e3 (fp16 block scales and mins in the thousands), 1e-5 (subnormal fp16 block
    // scales) and 1
    for (int rep = 0; rep < 5 && y != NULL && yf != NULL; rep++) {
        const float scale = rep == 2 ? 1e-3f : rep == 3 ? 1e3f : rep == 4 ? 1.0f : 1.0f + 2.0f*(float) rep;
        const size_t rx = rep == 1 ? row + 64 : row; // contiguous rows, and rows with gaps
        // exactly the rows (the sanitizer build sees any read past the last one)
        uint8_t * x = malloc(rx*(NR - 1) + row);
        TEST_CHECK(x != NULL);
        if (x == NULL) {
            break;
        }
        for (int r = 0; r < NR; r++) {
            // rep < 4: extreme scales on every third row from 9 on (rows 9, 15, ...: 1e4; 12, 18, ...: 1e-4)
            const float ws = rep == 4 ? (r % 3 == 0 ? 5e3f : r % 3 == 1 ? 1e-5f : 1.0f) :
                             r >= 9 && r % 3 == 0 ? (r % 2 ? 1e4f : 1e-4f) : 1.0f + 0.25f*(float) r;
            TEST_CHECK(quantize_gauss(t, K, ws, x + r*rx));
        }
        for (int64_t i = 0; i < K; i++) {
            yf[i] = scale*rnd_gauss();
        }
        kt->quant[vt].from_float(yf, y, K);
        // 1 .. 9 rows: the 4-row lockstep with 0 .. 3 single rows after it, twice; 37: 9 x 4 + 1
        const int nrs[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, NR };
        for (size_t ni = 0; ni < sizeof(nrs)/sizeof(nrs[0]); ni++) {
            const int nr = nrs[ni];
            for (int r = 0; r <= NR; r++) {
                out[r] = NAN;
            }
            q->gemv((int) K, out, x, rx, y, nr);
            for (int r = 0; r < nr; r++) {
                double sabs;
                const double ref = ref_dot(t, x + r*rx, vt, y, K, &sabs);
                float sp = NAN;
                kp->quant[t].vec_dot((int) K, &sp, 0, x + r*rx, 0, y, 0, 1);
                const double tol = 2e-5*sabs + 1e-30;
                TEST_CHECK_MSG(isfinite(out[r]) && fabs(out[r] - ref) <= tol,
                               "[%s] %s K=%d gemv nr=%d row %d rep %d: %.9g vs double %.9g (tol %.3g)", lv,
                               ggml_type_name(t), (int) K, nr, r, rep, (double) out[r], ref, tol);
                TEST_CHECK_MSG(fabs((double) out[r] - sp) <= 2.0*tol, "[%s] %s K=%d gemv row %d: %.9g vs portable %.9g",
                               lv, ggml_type_name(t), (int) K, r, (double) out[r], (double) sp);
            }
            TEST_CHECK_MSG(isnan(out[nr]), "[%s] %s gemv nr=%d wrote past its rows", lv, ggml_type_name(t), nr);
        }
        free(x);
    }
    free(y);
    free(yf);
}

// MXFP4's decode and tile slots on raw blocks of extreme E8M0 scales (the quantizer never writes
// them): random nibbles, scale bytes cycling through the set of the rep; rep 0 the smallest
// scales (0 and 1 are the subnormal halves 2^-128, 2^-127) against activations of 1e2, rep 1 the
// largest (255 reads as 2^127 in the family's dequantization, not NaN) against 1e-6, so that the
// products stay finite. Each output against the double reference and the portable vec_dot.
// double dot of an MXFP4 row with a Q8_0 row decoded here in double: the family's to_float
// overflows to inf for scale bytes 254 and 255 (2^126 and 2^127 times levels up to 12), which the
// kernels never form (they multiply the two block scales first). The E2M1 values, doubled, and
// the half scale 2^(e - 128) are the format's definition.
static double ref_dot_mxfp4(const uint8_t * x, const uint8_t * y, int64_t k, double * sabs) {
    static const int e2m1x2[16] = { 0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12 };
    double s = 0.0, a = 0.0;
    for (int64_t b = 0; b < k/32; b++) {
        const uint8_t * xb = x + b*17;
        const uint8_t * yb = y + b*ggml_type_size(GGML_TYPE_Q8_0);
        ggml_fp16_t h;
        memcpy(&h, yb, sizeof(h));
        const double d = ldexp(1.0, (int) xb[0] - 128)*(double) ggml_fp16_to_fp32(h);
        for (int j = 0; j < 32; j++) {
            const int v = e2m1x2[j < 16 ? xb[1 + j] & 0x0F : xb[1 + j - 16] >> 4];
            const double p = d*v*(int8_t) yb[2 + j];
            s += p;
            a += fabs(p);
        }
    }
    *sabs = a;
    return s;
}

static void check_mxfp4_extremes(const struct ggml_cpu_kernels * kt, const char * lv) {
    const struct ggml_cpu_quant_kernels * q = &kt->quant[GGML_TYPE_MXFP4];
    const struct ggml_cpu_kernels * kp = ggml_cpu_kernels_get(true);
    if (q->gemv == NULL && q->tile == NULL) {
        return;
    }
    const int64_t K = 21*32; // two groups of 8 (AVX2) / one of 16 (AVX-512) and a tail
    enum { NR = 9, NC = GGML_CPU_QTILE_COLS };
    const size_t row = ggml_row_size(GGML_TYPE_MXFP4, K), ry = ggml_row_size(GGML_TYPE_Q8_0, K);
    uint8_t * x = malloc(row*NR), * y = malloc(ry*NC);
    float * yf = malloc((size_t) K*sizeof(float));
    TEST_CHECK(x != NULL && y != NULL && yf != NULL);
    static const uint8_t sets[2][5] = { { 0, 1, 2, 3, 127 }, { 127, 200, 253, 254, 255 } };
    for (int rep = 0; rep < 2 && x != NULL && y != NULL && yf != NULL; rep++) {
        for (size_t i = 0; i < row*NR; i++) {
            x[i] = (uint8_t) rnd_u32();
        }
        for (int64_t b = 0; b < (K/32)*NR; b++) {
            x[b*17] = sets[rep][(b + rep) % 5]; // the scale byte leads each 17-byte block
        }
        for (int c = 0; c < NC; c++) {
            for (int64_t i = 0; i < K; i++) {
                yf[i] = (rep == 0 ? 1e2f : 1e-6f)*rnd_gauss();
            }
            kt->quant[GGML_TYPE_Q8_0].from_float(yf, y + c*ry, K);
        }
        float out[NR*NC + 1];
        for (int nr = 1; nr <= NR && q->gemv != NULL; nr++) {
            for (int r = 0; r <= nr; r++) {
                out[r] = NAN;
            }
            q->gemv((int) K, out, x, row, y, nr);
            for (int r = 0; r < nr; r++) {
                double sabs;
                const double ref = ref_dot_mxfp4(x + r*row, y, K, &sabs);
                float sp = NAN;
                kp->quant[GGML_TYPE_MXFP4].vec_dot((int) K, &sp, 0, x + r*row, 0, y, 0, 1);
                const double tol = 2e-5*sabs + 1e-30;
                TEST_CHECK_MSG(isfinite(out[r]) && fabs(out[r] - ref) <= tol && fabs((double) out[r] - sp) <= 2.0*tol,
                               "[%s] mxfp4 extreme scales rep %d gemv nr=%d row %d: %.9g vs double %.9g, portable %.9g", lv,
                               rep, nr, r, (double) out[r], ref, (double) sp);
            }
            TEST_CHECK_MSG(isnan(out[nr]), "[%s] mxfp4 gemv nr=%d wrote past its rows", lv, nr);
        }
        for (int nr = 1; nr <= GGML_CPU_QTILE_ROWS && q->tile != NULL; nr++) {
            for (int nc = 1; nc <= NC; nc++) {
                q->tile((int) K, out, (size_t) nr, x, row, y, ry, nr, nc);
                for (int c = 0; c < nc; c++) {
                    for (int r = 0; r < nr; r++) {
                        double sabs;
                        const double ref = ref_dot_mxfp4(x + r*row, y + c*ry, K, &sabs);
                        const float v = out[c*nr + r];
                        TEST_CHECK_MSG(isfinite(v) && fabs(v - ref) <= 2e-5*sabs + 1e-30,
                                       "[%s] mxfp4 extreme scales rep %d tile %dx%d (%d,%d): %.9g vs double %.9g", lv,
                                       rep, nr, nc, r, c, (double) v, ref);
                    }
                }
            }
        }
    }
    free(x);
    free(y);
    free(yf);
}

// the activation quantizers of a level (from_float of the Q8_0 / Q8_1 / Q8_K slots) against the
// reference quantizers, byte for byte: Gaussian rows of several scales, a zero block, a constant
// block and values on the rounding halves
static void check_act_quantizers(const struct ggml_cpu_kernels * kt, const char * lv) {
    const enum ggml_type acts[] = { GGML_TYPE_Q8_0, GGML_TYPE_Q8_1, GGML_TYPE_Q8_K };
    const int64_t K = 1024;
    float * x = malloc((size_t) K*sizeof(float));
    for (size_t a = 0; a < sizeof(acts)/sizeof(acts[0]) && x != NULL; a++) {
        const enum ggml_type t = acts[a];
        const size_t rs = ggml_row_size(t, K);
        uint8_t * q = malloc(rs), * r = malloc(rs);
        for (int rep = 0; rep < 4 && q != NULL && r != NULL; rep++) {
            const float scale = rep == 3 ? 1e-4f : (float) (1 << (3*rep));
            for (int64_t i = 0; i < K; i++) {
                x[i] = scale*rnd_gauss();
            }
            for (int64_t i = 0; i < 32; i++) {
                x[i] = 0.0f;            // a zero block
                x[32 + i] = -2.5f;      // a constant one
            }
            x[64] = 127.0f/16.0f;       // d = 1/16 exactly: the others land on halves of the grid
            for (int64_t i = 1; i < 32; i++) {
                x[64 + i] = ((float) (i % 15) - 7.0f + 0.5f)/16.0f;
            }
            kt->quant[t].from_float(x, q, K);
            ggml_get_type_traits(t)->from_float_ref(x, r, K);
            TEST_CHECK_MSG(memcmp(q, r, rs) == 0, "[%s] from_float %s rep %d differs from the reference", lv,
                           ggml_type_name(t), rep);
        }
        free(q);
        free(r);
    }
    free(x);
}

// MUL_MAT of a [K, N, 2] quantized weight by [K, M, 4] F32 activations (weights broadcast over
// dim 2) through a graph with nth threads
static void check_mul_mat(enum ggml_type t, int64_t K, int64_t N, int64_t M, int nth) {
    const size_t mem = ggml_row_size(t, K)*N*2 + (size_t) (K*M*4 + N*M*4)*sizeof(float) + 64*ggml_tensor_overhead() +
                       ggml_graph_overhead() + 1024*1024;
    struct ggml_init_params ip = { mem, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    TEST_CHECK(ctx != NULL);
    if (ctx == NULL) {
        return;
    }
    struct ggml_tensor * a = ggml_new_tensor_4d(ctx, t, K, N, 2, 1);
    struct ggml_tensor * b = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, K, M, 4, 1);
    TEST_CHECK(quantize_gauss(t, K*N*2, 1.0f, a->data));
    float * bf = b->data;
    for (int64_t i = 0; i < K*M*4; i++) {
        bf[i] = rnd_gauss();
    }
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);
    struct ggml_cplan plan = ggml_graph_plan(gf, nth, NULL);
    uint8_t * work = plan.work_size ? malloc(plan.work_size) : NULL;
    plan.work_data = work;
    const enum ggml_status st = ggml_graph_compute(gf, &plan);
    TEST_CHECK_MSG(st == GGML_STATUS_SUCCESS, "mul_mat %s N=%d M=%d: status %d", ggml_type_name(t), (int) N, (int) M, (int) st);
    float * af = malloc((size_t) (K*N*2)*sizeof(float));
    if (st == GGML_STATUS_SUCCESS && af != NULL) {
        ggml_get_type_traits(t)->to_float(a->data, af, K*N*2);
        double err = 0.0, ref2 = 0.0;
        const float * cf = c->data;
        for (int64_t i2 = 0; i2 < 4; i2++) {
            for (int64_t m = 0; m < M; m++) {
                for (int64_t n = 0; n < N; n++) {
                    const float * ar = af + ((i2/2)*N + n)*K;
                    const float * br = bf + (i2*M + m)*K;
                    double r = 0.0;
                    for (int64_t kk = 0; kk < K; kk++) {
                        r += (double) ar[kk]*br[kk];
                    }
                    const double d = cf[(i2*M + m)*N + n] - r;
                    err += d*d;
                    ref2 += r*r;
                }
            }
        }
        const double nmse = err/(ref2 > 0 ? ref2 : 1.0);
        TEST_CHECK_MSG(nmse <= 5e-4 && ref2 > 0, "mul_mat %s N=%d M=%d nth=%d: normalized error %.3g", ggml_type_name(t),
                       (int) N, (int) M, nth, nmse);
    }
    free(af);
    free(work);
    ggml_free(ctx);
}

int main(void) {
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    for (int level = GGML_CPU_ISA_PORTABLE; level <= GGML_CPU_ISA_AVX512; level++) {
        const char * lv = ggml_cpu_isa_name((enum ggml_cpu_isa_level) level);
        if (level > (int) top) {
            printf("test-cpu-quant-tile: level %s not available here (GGML_CPU_ISA or the CPU): skipped\n", lv);
            continue;
        }
        const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level);
        int n = 0;
        for (int t = 0; t < GGML_TYPE_COUNT; t++) {
            if (kt->quant[t].tile != NULL) {
                check_tile(kt, (enum ggml_type) t, lv, 768);
                check_tile(kt, (enum ggml_type) t, lv, 4864);
                n++;
            }
        }
        int ng = 0;
        for (int t = 0; t < GGML_TYPE_COUNT; t++) {
            if (kt->quant[t].gemv != NULL) {
                // in blocks of 32: one block, only the tail, one whole group, groups + tail (K = 576:
                // the family's output matrix), many groups, two activation segments, tails of 1 and 5
                // blocks after whole groups; the 256-blocks: 1, 2, 3, 8, 19, 34, 5 and 7 super-blocks
                const int64_t k32[] = { 32, 7*32, 8*32, 18*32, 152*32, 265*32, 17*32, 21*32 };
                const int64_t k256[] = { 256, 2*256, 3*256, 8*256, 19*256, 34*256, 5*256, 7*256 };
                for (size_t i = 0; i < sizeof(k32)/sizeof(k32[0]); i++) {
                    check_gemv(kt, (enum ggml_type) t, lv, ggml_blck_size((enum ggml_type) t) == 256 ? k256[i] : k32[i]);
                }
                ng++;
            }
        }
        int np = 0;
        for (int t = 0; t < GGML_TYPE_COUNT; t++) {
            if (kt->quant[t].unpack != NULL) {
                TEST_CHECK_MSG(kt->quant[t].tile_panel != NULL, "[%s] %s: unpack without tile_panel", lv,
                               ggml_type_name((enum ggml_type) t));
                if (kt->quant[t].tile_panel == NULL) {
                    continue;
                }
                const int64_t ks[] = { 256, 768, 4096 };
                for (size_t i = 0; i < sizeof(ks)/sizeof(ks[0]); i++) {
                    check_panel(kt, (enum ggml_type) t, lv, ks[i]);
                }
                np++;
            }
        }
        printf("test-cpu-quant-tile: [%s] tiles of %d quantized types checked, decode kernels of %d, panels of %d\n", lv, n,
               ng, np);
        if (level == GGML_CPU_ISA_AVX512) {
            // the AVX-512 level's own decode kernels, not AVX2's inherited ones (in the SIMDe runs
            // of tests/avx512-emu: the emulated kernels are what the checks above called)
            const struct ggml_cpu_kernels * k2 = ggml_cpu_kernels_level(GGML_CPU_ISA_AVX2);
            const enum ggml_type own[] = { GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                                           GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_Q2_K,
                                           GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,
                                           GGML_TYPE_MXFP4 };
            for (size_t i = 0; i < sizeof(own)/sizeof(own[0]); i++) {
                TEST_CHECK_MSG(kt->quant[own[i]].gemv != NULL && kt->quant[own[i]].gemv != k2->quant[own[i]].gemv,
                               "[%s] %s: the decode slot is not the AVX-512 level's own", lv, ggml_type_name(own[i]));
            }
        }
        check_mxfp4_extremes(kt, lv);
        check_act_quantizers(kt, lv);
    }
    const struct ggml_cpu_kernels * kl = ggml_cpu_kernels_get(false);
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const bool panel = kl->quant[t].unpack != NULL; // the grid formats: random blocks (quantize_gauss)
        if (kl->quant[t].vec_dot == NULL || (ggml_get_type_traits((enum ggml_type) t)->from_float_ref == NULL && !panel)) {
            continue;
        }
        const int64_t cols[] = { 1, 2, 3, 5, 67 };
        for (size_t i = 0; i < sizeof(cols)/sizeof(cols[0]); i++) {
            check_mul_mat((enum ggml_type) t, 512, 43, cols[i], 1);
            check_mul_mat((enum ggml_type) t, 512, 43, cols[i], 2);
        }
        if (panel) {
            // the panel path's chunks: several per thread (N = 200), row lengths of 1 and 16 super-blocks
            check_mul_mat((enum ggml_type) t, 256, 200, 19, 2);
            check_mul_mat((enum ggml_type) t, 4096, 43, 9, 1);
            check_mul_mat((enum ggml_type) t, 4096, 77, 11, 2);
        }
    }
    return test_finish("test-cpu-quant-tile");
}
