// One query position (a generated token) of FLASH_ATTN_EXT on several threads: each unit (a head
// group) is split along the visible keys and the parts are merged (cpu-ops-attn.c). For grouped
// and plain heads, F16 and F32 K/V, causal and windowed masks, ALiBi, sinks, and every key masked:
// the result with 1, 2, 3 and 4 threads is the same to the bit (how a unit is split depends on the
// shapes only), and within 1e-5 of max |value| of a double-precision reference computed from the
// same values.

#include "ggml.h"
#include "ggml-cpu.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct split_case {
    int64_t dk, kv, h, hk;
    enum ggml_type kv_type;
    int64_t lo, hi;  // visible keys [lo, hi); the rest -inf (no mask when lo < 0)
    float max_bias;
    bool sinks;
};

static float elem(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2) {
    const char * p = (const char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2];
    return t->type == GGML_TYPE_F16 ? ggml_fp16_to_fp32(*(const ggml_fp16_t *) p) : *(const float *) p;
}

static double alibi_slope(float max_bias, int64_t n_head, int64_t h) {
    if (max_bias <= 0.0f) {
        return 1.0;
    }
    const int64_t n_floor = (int64_t) 1 << (int64_t) floor(log2((double) n_head));
    const double m0 = pow(2.0, -(double) max_bias / (double) n_floor);
    const double m1 = pow(2.0, -(double) max_bias / 2.0 / (double) n_floor);
    return h < n_floor ? pow(m0, (double) (h + 1)) : pow(m1, (double) (2*(h - n_floor) + 1));
}

// out [dk, h] in double
static void reference(const struct split_case * c, const struct ggml_tensor * q, const struct ggml_tensor * k,
                      const struct ggml_tensor * v, const struct ggml_tensor * mask, const struct ggml_tensor * sinks,
                      float scale, double * out) {
    double * s = malloc(sizeof(double) * (size_t) c->kv);
    if (s == NULL) {
        return;
    }
    for (int64_t h = 0; h < c->h; h++) {
        const int64_t hk = h / (c->h / c->hk);
        double mx = -INFINITY;
        for (int64_t j = 0; j < c->kv; j++) {
            double d = 0.0;
            for (int64_t i = 0; i < c->dk; i++) {
                d += (double) elem(q, i, 0, h) * (double) elem(k, i, j, hk);
            }
            const double m = mask != NULL ? (double) elem(mask, j, 0, 0) : 0.0;
            s[j] = m == -INFINITY ? -INFINITY : d*scale + alibi_slope(c->max_bias, c->h, h)*m;
            mx = fmax(mx, s[j]);
        }
        const double sink = sinks != NULL ? (double) ((const float *) sinks->data)[h] : -INFINITY;
        mx = fmax(mx, sink);
        double sum = sinks != NULL ? exp(sink - mx) : 0.0;
        for (int64_t i = 0; i < c->dk; i++) {
            out[h*c->dk + i] = 0.0;
        }
        for (int64_t j = 0; j < c->kv; j++) {
            if (s[j] == -INFINITY) {
                continue;
            }
            const double e = exp(s[j] - mx);
            sum += e;
            for (int64_t i = 0; i < c->dk; i++) {
                out[h*c->dk + i] += e * (double) elem(v, i, j, hk);
            }
        }
        for (int64_t i = 0; i < c->dk; i++) {
            out[h*c->dk + i] = sum > 0.0 ? out[h*c->dk + i] / sum : 0.0;
        }
    }
    free(s);
}

static void fill(struct ggml_tensor * t, double lo, double hi) {
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        const float x = (float) test_rand_uniform(lo, hi);
        if (t->type == GGML_TYPE_F16) {
            ((ggml_fp16_t *) t->data)[i] = ggml_fp32_to_fp16(x);
        } else {
            ((float *) t->data)[i] = x;
        }
    }
}

static void check_case(const struct split_case * c) {
    struct ggml_init_params ip = { .mem_size = 64 * 1024 * 1024, .mem_buffer = NULL, .no_alloc = false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    // q [dk, 1, h]; k, v [dk, kv, hk] as a cache's view: heads interleaved in each position's row
    struct ggml_tensor * q  = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c->dk, 1, c->h);
    struct ggml_tensor * kc = ggml_new_tensor_2d(ctx, c->kv_type, c->dk * c->hk, c->kv + 7);
    struct ggml_tensor * vc = ggml_new_tensor_2d(ctx, c->kv_type, c->dk * c->hk, c->kv + 7);
    fill(q, -1.0, 1.0);
    fill(kc, -1.0, 1.0);
    fill(vc, -1.0, 1.0);
    const size_t es = ggml_type_size(c->kv_type);
    struct ggml_tensor * k = ggml_permute(ctx, ggml_view_3d(ctx, kc, c->dk, c->hk, c->kv, c->dk * es, kc->nb[1], 0), 0, 2, 1, 3);
    struct ggml_tensor * v = ggml_permute(ctx, ggml_view_3d(ctx, vc, c->dk, c->hk, c->kv, c->dk * es, vc->nb[1], 0), 0, 2, 1, 3);
    struct ggml_tensor * mask = NULL;
    if (c->lo >= 0) {
        mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, c->kv, 1);
        for (int64_t j = 0; j < c->kv; j++) {
            const float m = j >= c->lo && j < c->hi ? (float) test_rand_uniform(-1.0, 0.0) : -INFINITY;
            ((ggml_fp16_t *) mask->data)[j] = ggml_fp32_to_fp16(m);
        }
    }
    struct ggml_tensor * sinks = NULL;
    if (c->sinks) {
        sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, c->h);
        fill(sinks, -1.0, 2.0);
    }
    const float scale = 1.0f / sqrtf((float) c->dk);
    const int64_t n = c->dk * c->h;
    double * ref = malloc(sizeof(double) * (size_t) n);
    float  * one = malloc(sizeof(float) * (size_t) n);
    if (!TEST_CHECK(ref != NULL && one != NULL)) {
        goto done;
    }
    reference(c, q, k, v, mask, sinks, scale, ref);
    double mx = 0.0;
    for (int64_t i = 0; i < n; i++) {
        mx = fmax(mx, fabs(ref[i]));
    }
    const bool all_masked = c->lo >= 0 && c->lo >= c->hi;
    TEST_CHECK_MSG(all_masked ? mx == 0.0 : mx > 0.05, "reference magnitude %g", mx);

    for (int nt = 1; nt <= 4; nt++) {
        struct ggml_tensor * o = ggml_flash_attn_ext(ctx, q, k, v, mask, scale, c->max_bias, 0.0f);
        if (c->sinks) {
            ggml_flash_attn_ext_add_sinks(o, sinks);
        }
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, o);
        memset(o->data, 0xff, ggml_nbytes(o));
        if (!TEST_CHECK(ggml_graph_compute_with_ctx(ctx, gf, nt) == GGML_STATUS_SUCCESS)) {
            break;
        }
        const float * got = o->data; // [dk, h, 1]
        double err_ref = 0.0, err_one = 0.0;
        bool finite = true;
        for (int64_t i = 0; i < n; i++) {
            finite = finite && isfinite(got[i]);
            err_ref = fmax(err_ref, fabs(got[i] - ref[i]));
            if (nt > 1) {
                err_one = fmax(err_one, fabs((double) got[i] - (double) one[i]));
            }
        }
        if (nt == 1) {
            memcpy(one, got, sizeof(float) * (size_t) n);
        }
        TEST_CHECK_MSG(finite && err_ref <= 1e-5 * fmax(mx, 1e-30) && err_one == 0.0,
                       "dk %lld kv %lld heads %lld/%lld %s visible [%lld, %lld) bias %g sinks %d, %d threads: "
                       "%g from double, %g from 1 thread (max |value| %g)",
                       (long long) c->dk, (long long) c->kv, (long long) c->h, (long long) c->hk, ggml_type_name(c->kv_type),
                       (long long) c->lo, (long long) c->hi, (double) c->max_bias, (int) c->sinks, nt, err_ref, err_one, mx);
    }
done:
    free(ref);
    free(one);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    const struct split_case cases[] = {
        { 64, 96,  9, 3, GGML_TYPE_F16, 0,  81,  0.0f, false }, // SmolLM2's decode: a causal window
        { 64, 32,  9, 3, GGML_TYPE_F16, 0,  1,   0.0f, false }, // the first token
        { 64, 200, 9, 3, GGML_TYPE_F32, 0,  200, 0.0f, false },
        { 64, 160, 9, 3, GGML_TYPE_F16, 37, 150, 0.0f, false }, // a hidden prefix and tail
        { 64, 128, 2, 1, GGML_TYPE_F16, 0,  100, 0.0f, false }, // one unit: split in 8 parts (128 keys)
        { 64, 128, 4, 4, GGML_TYPE_F16, -1, 0,   0.0f, false }, // plain heads, no mask
        { 80, 96,  8, 2, GGML_TYPE_F16, 0,  90,  8.0f, true },  // ALiBi and sinks
        { 64, 64,  9, 3, GGML_TYPE_F16, 5,  5,   0.0f, false }, // every key masked: zeros
        { 64, 64,  9, 3, GGML_TYPE_F16, 5,  5,   0.0f, true },  // every key masked, sinks
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_case(&cases[i]);
    }
    return test_finish("test-cpu-attn-split");
}
