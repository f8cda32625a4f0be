// Compatibility program (PENDING: needs ggml_conv_1d_ph, ggml_pad_reflect_1d, ggml_pool_1d,
// ggml_upscale with enum ggml_scale_mode, and ggml_timestep_embedding, which our ggml.h does not
// declare yet; see docs/compatibility.md).
//
// The building blocks of the family's audio and image programs (whisper.cpp's encoder front end,
// stable-diffusion's U-Net): a padded 1-D convolution, reflection padding, 1-D pooling, nearest
// upscaling and sinusoidal timestep embeddings. Checked against direct loops in double precision.

#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "audio-vision:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
            n_failed++;                                                           \
        }                                                                         \
    } while (0)

static float sig(int i, int c) { return (float) sin(0.3 * i + c) * 0.7f; }
static float ker(int k, int ic, int oc) { return 0.1f * (float) ((k * 5 + ic * 3 + oc * 7) % 9) - 0.4f; }

int main(void) {
    struct ggml_init_params params = { 32 * 1024 * 1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);

    // conv_1d_ph: kernel [K, IC, OC], signal [L, IC, 1] -> [L, OC, 1] with stride 1, padding K/2
    enum { L = 20, IC = 3, OC = 4, KW = 3 };
    struct ggml_tensor * kernel = ggml_new_tensor_3d(ctx, GGML_TYPE_F16, KW, IC, OC);
    struct ggml_tensor * signal = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, L, IC, 1);
    for (int oc = 0; oc < OC; oc++) for (int ic = 0; ic < IC; ic++) for (int k = 0; k < KW; k++)
        ((ggml_fp16_t *) kernel->data)[(oc * IC + ic) * KW + k] = ggml_fp32_to_fp16(ker(k, ic, oc));
    for (int c = 0; c < IC; c++) for (int i = 0; i < L; i++) ggml_set_f32_nd(signal, i, c, 0, 0, sig(i, c));
    struct ggml_tensor * conv = ggml_conv_1d_ph(ctx, kernel, signal, 1, 1);

    // pad_reflect_1d: [1, 2, 3, 4] padded by 2 and 1 -> [3, 2, 1, 2, 3, 4, 3]
    struct ggml_tensor * v = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    for (int i = 0; i < 4; i++) ggml_set_f32_1d(v, i, (float) (i + 1));
    struct ggml_tensor * refl = ggml_pad_reflect_1d(ctx, v, 2, 1);

    // pool_1d max, kernel 2, stride 2: [L] -> [L/2]
    struct ggml_tensor * pool = ggml_pool_1d(ctx, ggml_cont(ctx, ggml_view_1d(ctx, signal, L, 0)), GGML_OP_POOL_MAX, 2, 2, 0);

    // nearest upscale by 2 of a 3x2 image
    struct ggml_tensor * img = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, 2);
    for (int i = 0; i < 6; i++) ggml_set_f32_1d(img, i, (float) (10 * i));
    struct ggml_tensor * up = ggml_upscale(ctx, img, 2, GGML_SCALE_MODE_NEAREST);

    // timestep embedding of two timesteps, dim 8, max period 10000
    struct ggml_tensor * ts = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2);
    ggml_set_f32_1d(ts, 0, 3.0f);
    ggml_set_f32_1d(ts, 1, 250.0f);
    struct ggml_tensor * emb = ggml_timestep_embedding(ctx, ts, 8, 10000);

    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, conv);
    ggml_build_forward_expand(gf, refl);
    ggml_build_forward_expand(gf, pool);
    ggml_build_forward_expand(gf, up);
    ggml_build_forward_expand(gf, emb);
    enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, 2);
    CHECK(st == GGML_STATUS_SUCCESS, "compute: %s", ggml_status_to_string(st));

    // convolution (cross-correlation, zero padding), computed through F16 in the family
    CHECK(conv->ne[0] == L && conv->ne[1] == OC, "conv shape %lld x %lld", (long long) conv->ne[0], (long long) conv->ne[1]);
    double max_err = 0.0;
    for (int oc = 0; oc < OC; oc++) {
        for (int o = 0; o < L; o++) {
            double acc = 0.0;
            for (int ic = 0; ic < IC; ic++) {
                for (int k = 0; k < KW; k++) {
                    const int i = o + k - KW / 2;
                    if (i >= 0 && i < L) {
                        acc += (double) ggml_fp16_to_fp32(ggml_fp32_to_fp16(ker(k, ic, oc))) * (double) sig(i, ic);
                    }
                }
            }
            max_err = fmax(max_err, fabs(ggml_get_f32_nd(conv, o, oc, 0, 0) - acc));
        }
    }
    CHECK(max_err < 2e-2, "conv_1d_ph max error %g", max_err);

    const float refl_ref[7] = { 3, 2, 1, 2, 3, 4, 3 };
    CHECK(refl->ne[0] == 7, "pad_reflect_1d length %lld", (long long) refl->ne[0]);
    for (int i = 0; i < 7 && refl->ne[0] == 7; i++) {
        CHECK(ggml_get_f32_1d(refl, i) == refl_ref[i], "reflect[%d] = %g", i, ggml_get_f32_1d(refl, i));
    }

    CHECK(pool->ne[0] == L / 2, "pool length %lld", (long long) pool->ne[0]);
    for (int i = 0; i < L / 2; i++) {
        const float ref = fmaxf(sig(2 * i, 0), sig(2 * i + 1, 0));
        CHECK(ggml_get_f32_1d(pool, i) == ref, "pool[%d] = %g, expected %g", i, ggml_get_f32_1d(pool, i), ref);
    }

    CHECK(up->ne[0] == 6 && up->ne[1] == 4, "upscale shape %lld x %lld", (long long) up->ne[0], (long long) up->ne[1]);
    for (int y = 0; y < 4; y++) {
        for (int x = 0; x < 6; x++) {
            const float ref = (float) (10 * ((y / 2) * 3 + x / 2));
            CHECK(ggml_get_f32_nd(up, x, y, 0, 0) == ref, "up[%d,%d] = %g, expected %g", x, y,
                    ggml_get_f32_nd(up, x, y, 0, 0), ref);
        }
    }

    // emb[j] = cos(t * f_j), emb[j + half] = sin(t * f_j), f_j = exp(-ln(max_period) * j / half)
    CHECK(emb->ne[0] == 8 && emb->ne[1] == 2, "embedding shape");
    for (int n = 0; n < 2; n++) {
        const double t = n == 0 ? 3.0 : 250.0;
        for (int j = 0; j < 4; j++) {
            const double f = exp(-log(10000.0) * j / 4.0);
            CHECK(fabs(ggml_get_f32_nd(emb, j, n, 0, 0) - cos(t * f)) < 1e-4, "emb cos %d %d", n, j);
            CHECK(fabs(ggml_get_f32_nd(emb, j + 4, n, 0, 0) - sin(t * f)) < 1e-4, "emb sin %d %d", n, j);
        }
    }

    ggml_free(ctx);
    printf("audio-vision: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
