// The CPU graph walker computes SSM_CONV, an ADD of a per-channel bias and the SILU after them as
// one node (cpu-ops-fused.h, cpu-ops-ssm-conv.c); also SSM_CONV then SILU without the bias. For
// random inputs, shapes with partial tiles (channels not a multiple of 32, tokens of 128), several
// sequences and 1, 2 and 3 threads:
//   - the schedule holds one entry for the three nodes (the fusion applies; none in the
//     reference mode);
//   - the fused results (the SILU's, and the conv's and the sum's, which it writes too) equal bit
//     for bit the nodes computed one per graph (bound 0), which are within 1e-5 of max |value| of
//     a double-precision reference;
//   - a graph that reads the conv's result again (conv + silu(conv + bias)) gives the reference.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-graph-sched.h"
#include "test-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ggml_context * new_ctx(void) {
    struct ggml_init_params ip = { .mem_size = 64 * 1024 * 1024, .mem_buffer = NULL, .no_alloc = false };
    return ggml_init(ip);
}

static bool run(struct ggml_context * ctx, struct ggml_tensor * out, int n_threads) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    return ggml_graph_compute_with_ctx(ctx, gf, n_threads) == GGML_STATUS_SUCCESS;
}

// entries of the schedule of out's graph (-1 when it cannot be built)
static int sched_entries(struct ggml_context * ctx, struct ggml_tensor * out, int n_threads, bool use_ref) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    struct ggml_cpu_sched s;
    memset(&s, 0, sizeof(s));
    const int n = ggml_cpu_sched_build(&s, gf, n_threads, use_ref, true, "test") ? s.n_entries : -1;
    ggml_cpu_sched_free(&s);
    return n;
}

static bool close_to(const float * got, const double * want, int64_t n) {
    double mx = 0.0, err = 0.0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(got[i])) {
            return false;
        }
        mx  = fmax(mx, fabs(want[i]));
        err = fmax(err, fabs(got[i] - want[i]));
    }
    return mx > 0.1 && err <= 1e-5 * mx;
}

static bool same(const struct ggml_tensor * t, const float * want) {
    return memcmp(t->data, want, ggml_nbytes(t)) == 0;
}

// dc taps, di channels, nt tokens, ns sequences
static void check_shape(int64_t dc, int64_t di, int64_t nt, int64_t ns, bool with_bias) {
    struct ggml_context * ctx = new_ctx();
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * sx = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, dc - 1 + nt, di, ns);
    struct ggml_tensor * c  = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, dc, di);
    struct ggml_tensor * b  = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, di);
    test_fill_uniform_f32(sx, -2.0, 2.0);
    test_fill_uniform_f32(c, -1.0, 1.0);
    test_fill_uniform_f32(b, -1.0, 1.0);
    const int64_t n = di*nt*ns;
    double * ref = malloc(sizeof(double) * (size_t) n);
    float * u_conv = malloc(sizeof(float) * (size_t) n), * u_add = malloc(sizeof(float) * (size_t) n);
    float * u_out = malloc(sizeof(float) * (size_t) n);
    if (!TEST_CHECK(ref && u_conv && u_add && u_out)) {
        goto done;
    }
    // double reference: out[r, t, s] = silu(sum_i sx[t + i, r, s] c[i, r] + b[r])
    for (int64_t s = 0; s < ns; s++) {
        for (int64_t t = 0; t < nt; t++) {
            for (int64_t r = 0; r < di; r++) {
                double v = with_bias ? ((const float *) b->data)[r] : 0.0;
                for (int64_t i = 0; i < dc; i++) {
                    v += (double) ((const float *) sx->data)[(s*di + r)*(dc - 1 + nt) + t + i] * ((const float *) c->data)[r*dc + i];
                }
                ref[(s*nt + t)*di + r] = v / (1.0 + exp(-v));
            }
        }
    }
    // unfused: each node in its own graph, from a copy of the previous result
    struct ggml_tensor * conv1 = ggml_ssm_conv(ctx, sx, c);
    TEST_CHECK(run(ctx, conv1, 1));
    memcpy(u_conv, conv1->data, ggml_nbytes(conv1));
    struct ggml_tensor * t1 = ggml_dup_tensor(ctx, conv1);
    memcpy(t1->data, u_conv, ggml_nbytes(conv1));
    if (with_bias) {
        struct ggml_tensor * add1 = ggml_add(ctx, t1, b);
        TEST_CHECK(run(ctx, add1, 1));
        memcpy(u_add, add1->data, ggml_nbytes(add1));
        memcpy(t1->data, u_add, ggml_nbytes(add1));
    }
    struct ggml_tensor * silu1 = ggml_silu(ctx, t1);
    TEST_CHECK(run(ctx, silu1, 1));
    memcpy(u_out, silu1->data, ggml_nbytes(silu1));
    TEST_CHECK_MSG(close_to(u_out, ref, n), "unfused dc=%lld di=%lld nt=%lld ns=%lld bias=%d vs double",
                   (long long) dc, (long long) di, (long long) nt, (long long) ns, (int) with_bias);

    for (int nth = 1; nth <= 3; nth++) {
        struct ggml_tensor * conv = ggml_ssm_conv(ctx, sx, c);
        struct ggml_tensor * add  = with_bias ? ggml_add(ctx, conv, b) : NULL;
        struct ggml_tensor * out  = ggml_silu(ctx, add != NULL ? add : conv);
        TEST_CHECK_MSG(sched_entries(ctx, out, nth, false) == 1 && sched_entries(ctx, out, nth, true) == (with_bias ? 3 : 2),
                       "dc=%lld di=%lld: the fusion does not apply (or applies in the reference mode)", (long long) dc, (long long) di);
        memset(conv->data, 0xff, ggml_nbytes(conv));
        memset(out->data, 0xff, ggml_nbytes(out));
        if (add != NULL) {
            memset(add->data, 0xff, ggml_nbytes(add));
        }
        TEST_CHECK(run(ctx, out, nth));
        TEST_CHECK_MSG(same(out, u_out) && same(conv, u_conv) && (add == NULL || same(add, u_add)),
                       "fused != unfused: dc=%lld di=%lld nt=%lld ns=%lld bias=%d, %d threads", (long long) dc,
                       (long long) di, (long long) nt, (long long) ns, (int) with_bias, nth);
    }

    // the conv's result read again after the chain
    if (with_bias) {
        struct ggml_tensor * conv = ggml_ssm_conv(ctx, sx, c);
        struct ggml_tensor * out  = ggml_add(ctx, ggml_silu(ctx, ggml_add(ctx, conv, b)), conv);
        TEST_CHECK(run(ctx, out, 2));
        for (int64_t i = 0; i < n; i++) {
            ref[i] += u_conv[i];
        }
        TEST_CHECK_MSG(close_to(out->data, ref, n), "conv + silu(conv + b) vs double, di=%lld", (long long) di);
    }
done:
    free(ref);
    free(u_conv);
    free(u_add);
    free(u_out);
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    static const struct { int64_t dc, di, nt, ns; } shapes[] = {
        { 4, 1000, 1, 1 },  // one token (generation), a partial channel tile
        { 4, 1024, 70, 2 }, // a prompt: a partial token tile, two sequences
        { 3, 64, 33, 1 },
        { 9, 130, 5, 3 },
        { 1, 7, 40, 1 },
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        check_shape(shapes[i].dc, shapes[i].di, shapes[i].nt, shapes[i].ns, true);
        check_shape(shapes[i].dc, shapes[i].di, shapes[i].nt, shapes[i].ns, false);
    }
    return test_finish("test-cpu-fused-ssm-conv");
}
