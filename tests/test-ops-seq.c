// The sequence-model ops (ggml_ssm_conv, ggml_ssm_scan, ggml_rwkv_wkv6, ggml_gated_linear_attn,
// ggml_rwkv_wkv7, ggml_solve_tri, ggml_gated_delta_net): result shapes, sources and op_params as
// in the ggml family; bad calls giving NULL with a logged error; the CPU backend on hand-worked
// one-element recurrences (values worked out below), the same results on 1 and 3 threads, and a
// state row id out of range failing the graph instead of aborting.

#include "test-common.h"
#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ggml_tensor * f32(struct ggml_context * ctx, int64_t n0, int64_t n1, int64_t n2, int64_t n3) {
    return ggml_new_tensor_4d(ctx, GGML_TYPE_F32, n0, n1, n2, n3);
}

static void set(struct ggml_tensor * t, const float * v) {
    memcpy(t->data, v, (size_t) ggml_nelements(t)*sizeof(float));
}

static void set1(struct ggml_tensor * t, float v) {
    set(t, &v);
}

static enum ggml_status compute(struct ggml_context * ctx, struct ggml_tensor * out, int n_threads) {
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    return ggml_graph_compute_with_ctx(ctx, gf, n_threads);
}

static bool near(float got, double want) {
    return fabs(got - want) <= 1e-5*(1.0 + fabs(want));
}

static void test_shapes(struct ggml_context * ctx) {
    struct ggml_tensor * r = ggml_ssm_conv(ctx, f32(ctx, 6, 16, 2, 1), f32(ctx, 4, 16, 1, 1));
    TEST_CHECK(r != NULL && r->op == GGML_OP_SSM_CONV && r->ne[0] == 16 && r->ne[1] == 3 && r->ne[2] == 2 && r->ne[3] == 1);

    struct ggml_tensor * s = f32(ctx, 8, 4, 6, 3), * x = f32(ctx, 4, 6, 5, 2), * dt = f32(ctx, 6, 5, 2, 1);
    struct ggml_tensor * A1 = f32(ctx, 1, 6, 1, 1), * B = f32(ctx, 8, 3, 5, 2), * C = f32(ctx, 8, 3, 5, 2);
    struct ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 2);
    r = ggml_ssm_scan(ctx, s, x, dt, A1, B, C, ids, 3);
    TEST_CHECK(r != NULL && r->op == GGML_OP_SSM_SCAN && ggml_n_dims(r) == 1 &&
               r->ne[0] == ggml_nelements(x) + 3*8*4*6*2 && ggml_get_op_params_i32(r, 0) == 3 && r->src[6] == ids);

    struct ggml_tensor * tok = f32(ctx, 8, 3, 10, 1), * st = f32(ctx, 8*8*3, 2, 1, 1), * tf = f32(ctx, 8, 3, 1, 1);
    r = ggml_rwkv_wkv6(ctx, tok, tok, tok, tf, tok, st);
    TEST_CHECK(r != NULL && r->op == GGML_OP_RWKV_WKV6 && r->ne[0] == 24 && r->ne[1] == 10 + 16 && r->src[3] == tf &&
               r->src[5] == st);
    r = ggml_gated_linear_attn(ctx, tok, tok, tok, tok, st, 0.25f);
    TEST_CHECK(r != NULL && r->op == GGML_OP_GATED_LINEAR_ATTN && r->ne[1] == 26 && ggml_get_op_params_f32(r, 0) == 0.25f);
    r = ggml_rwkv_wkv7(ctx, tok, tok, tok, tok, tok, tok, st);
    TEST_CHECK(r != NULL && r->op == GGML_OP_RWKV_WKV7 && r->ne[0] == 24 && r->src[6] == st);

    r = ggml_solve_tri(ctx, f32(ctx, 5, 5, 2, 3), f32(ctx, 7, 5, 2, 3), true, true, false);
    TEST_CHECK(r != NULL && r->op == GGML_OP_SOLVE_TRI && r->ne[0] == 7 && r->ne[1] == 5 && r->ne[2] == 2 && r->ne[3] == 3);

    struct ggml_tensor * q = f32(ctx, 16, 2, 3, 1), * v = f32(ctx, 16, 4, 3, 2), * g = f32(ctx, 16, 4, 3, 2);
    struct ggml_tensor * beta = f32(ctx, 1, 4, 3, 2), * gst = f32(ctx, 16, 16, 4, 2);
    r = ggml_gated_delta_net(ctx, q, q, v, g, beta, gst, 2);
    TEST_CHECK(r != NULL && r->op == GGML_OP_GATED_DELTA_NET && r->ne[0] == 64 && r->ne[1] == 3*2 + 2*16*2 &&
               ggml_get_op_params_i32(r, 0) == 2);

    test_log_capture_begin();
    int n_bad = 0;
    struct ggml_tensor * h = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, 6, 16, 2, 1);
    n_bad += TEST_CHECK(ggml_ssm_conv(ctx, NULL, f32(ctx, 4, 16, 1, 1)) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_conv(ctx, h, f32(ctx, 4, 16, 1, 1)) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_conv(ctx, f32(ctx, 6, 15, 2, 1), f32(ctx, 4, 16, 1, 1)) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_conv(ctx, f32(ctx, 2, 16, 2, 1), f32(ctx, 4, 16, 1, 1)) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_scan(ctx, s, x, dt, A1, B, C, ids, 0) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_scan(ctx, s, x, dt, f32(ctx, 8, 6, 1, 1), B, C, ids, 2) == NULL); // Mamba-1 A, K > 1
    n_bad += TEST_CHECK(ggml_ssm_scan(ctx, s, x, dt, A1, f32(ctx, 8, 4, 5, 2), f32(ctx, 8, 4, 5, 2), ids, 1) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_scan(ctx, s, x, dt, A1, B, C, ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2), 1) == NULL);
    n_bad += TEST_CHECK(ggml_ssm_scan(ctx, s, ggml_transpose(ctx, f32(ctx, 6, 4, 5, 2)), dt, A1, B, C, ids, 1) == NULL);
    n_bad += TEST_CHECK(ggml_rwkv_wkv6(ctx, tok, tok, tok, f32(ctx, 8, 2, 1, 1), tok, st) == NULL);
    n_bad += TEST_CHECK(ggml_rwkv_wkv6(ctx, tok, tok, tok, tf, tok, f32(ctx, 8*8*3, 3, 1, 1)) == NULL); // 3 seqs, 10 tokens
    n_bad += TEST_CHECK(ggml_gated_linear_attn(ctx, tok, f32(ctx, 8, 3, 9, 1), tok, tok, st, 1.0f) == NULL);
    n_bad += TEST_CHECK(ggml_rwkv_wkv7(ctx, tok, tok, tok, tok, tok, NULL, st) == NULL);
    n_bad += TEST_CHECK(ggml_solve_tri(ctx, f32(ctx, 5, 5, 1, 1), f32(ctx, 7, 5, 1, 1), false, true, false) == NULL);
    n_bad += TEST_CHECK(ggml_solve_tri(ctx, f32(ctx, 5, 5, 1, 1), f32(ctx, 7, 5, 1, 1), true, false, false) == NULL);
    n_bad += TEST_CHECK(ggml_solve_tri(ctx, f32(ctx, 5, 5, 1, 1), f32(ctx, 7, 5, 1, 1), true, true, true) == NULL);
    n_bad += TEST_CHECK(ggml_solve_tri(ctx, f32(ctx, 5, 4, 1, 1), f32(ctx, 7, 4, 1, 1), true, true, false) == NULL);
    n_bad += TEST_CHECK(ggml_solve_tri(ctx, f32(ctx, 5, 5, 2, 1), f32(ctx, 7, 5, 1, 1), true, true, false) == NULL);
    n_bad += TEST_CHECK(ggml_gated_delta_net(ctx, q, q, v, g, f32(ctx, 2, 4, 3, 2), gst, 1) == NULL);
    n_bad += TEST_CHECK(ggml_gated_delta_net(ctx, q, q, v, f32(ctx, 8, 4, 3, 2), beta, gst, 1) == NULL);
    n_bad += TEST_CHECK(ggml_gated_delta_net(ctx, f32(ctx, 16, 3, 3, 1), f32(ctx, 16, 3, 3, 1), v, g, beta, gst, 1) == NULL);
    n_bad += TEST_CHECK(ggml_gated_delta_net(ctx, q, q, v, g, beta, gst, 0) == NULL);
    TEST_CHECK(n_bad == 22 && test_log_error_count() >= 22);
    test_log_capture_end();
}

// one-element heads, two tokens: the recurrences by hand
static void test_values(void) {
    struct ggml_init_params ip = { 4*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    // SSM_CONV: d_conv 2, two tokens: out[t] = sx[t]*c0 + sx[t + 1]*c1
    struct ggml_tensor * sx = f32(ctx, 3, 1, 1, 1), * cw = f32(ctx, 2, 1, 1, 1);
    set(sx, (const float[]) { 1, 2, 3 });
    set(cw, (const float[]) { 0.5f, -1 });
    struct ggml_tensor * out = ggml_ssm_conv(ctx, sx, cw);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), -1.5) &&
               near(ggml_get_f32_1d(out, 1), -2.0));

    // SOLVE_TRI: A = [[2, 0], [1, 4]], B = [4, 6]^T: x0 = 2, x1 = (6 - 2)/4 = 1
    struct ggml_tensor * a = f32(ctx, 2, 2, 1, 1), * b = f32(ctx, 1, 2, 1, 1);
    set(a, (const float[]) { 2, 99, 1, 4 }); // the upper element is never read
    set(b, (const float[]) { 4, 6 });
    out = ggml_solve_tri(ctx, a, b, true, true, false);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), 2) &&
               near(ggml_get_f32_1d(out, 1), 1));

    // S = 1, H = 1, two tokens of one sequence; state 0.5
    struct ggml_tensor * k = f32(ctx, 1, 1, 2, 1), * v = f32(ctx, 1, 1, 2, 1), * r = f32(ctx, 1, 1, 2, 1);
    struct ggml_tensor * w = f32(ctx, 1, 1, 2, 1), * s = f32(ctx, 1, 1, 1, 1), * tf = f32(ctx, 1, 1, 1, 1);
    set(k, (const float[]) { 2, -1 });
    set(v, (const float[]) { 3, 4 });
    set(r, (const float[]) { 0.5f, 2 });
    set(w, (const float[]) { 0.25f, 0.5f });
    set1(s, 0.5f);
    set1(tf, 0.1f);
    // WKV6 (td = w): out0 = 0.5*(0.1*6 + 0.5) = 0.55, s = 0.5*0.25 + 6 = 6.125;
    //                out1 = 2*(0.1*-4 + 6.125) = 11.45, s = 6.125*0.5 - 4 = -0.9375
    out = ggml_rwkv_wkv6(ctx, k, v, r, tf, w, s);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), 0.55) &&
               near(ggml_get_f32_1d(out, 1), 11.45) && near(ggml_get_f32_1d(out, 2), -0.9375));
    // GLA (q = r, g = w, scale 2): s = 0.5*0.25 + 6 = 6.125, out0 = 2*0.5*6.125 = 6.125;
    //                              s = 6.125*0.5 - 4 = -0.9375, out1 = 2*2*-0.9375 = -3.75
    out = ggml_gated_linear_attn(ctx, k, v, r, w, s, 2.0f);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), 6.125) &&
               near(ggml_get_f32_1d(out, 1), -3.75) && near(ggml_get_f32_1d(out, 2), -0.9375));
    // WKV7 (a = 1, b = -0.5): sa = s; s = s*w + v*k - 0.5*s; out = s*r
    //   token 0: s = 0.125 + 6 - 0.25 = 5.875, out = 2.9375; token 1: s = 2.9375 - 4 - 2.9375 = -4, out = -8
    struct ggml_tensor * one = f32(ctx, 1, 1, 2, 1), * half = f32(ctx, 1, 1, 2, 1);
    set(one, (const float[]) { 1, 1 });
    set(half, (const float[]) { -0.5f, -0.5f });
    out = ggml_rwkv_wkv7(ctx, r, w, k, v, one, half, s);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), 2.9375) &&
               near(ggml_get_f32_1d(out, 1), -8) && near(ggml_get_f32_1d(out, 2), -4));
    // GATED_DELTA_NET (q = r, g = log 0.5, beta 0.5, K = 2): S = 0.25; delta = (3 - 0.25*2)*0.5 = 1.25;
    //   S = 0.25 + 2*1.25 = 2.75, out0 = 2.75*0.5 = 1.375; S = 1.375; delta = (4 + 1.375)*0.5 = 2.6875;
    //   S = 1.375 - 2.6875 = -1.3125, out1 = -2.625; slot 0 = -1.3125, slot 1 = 2.75
    struct ggml_tensor * g = f32(ctx, 1, 1, 2, 1), * beta = f32(ctx, 1, 1, 2, 1);
    set(g, (const float[]) { logf(0.5f), logf(0.5f) });
    set(beta, (const float[]) { 0.5f, 0.5f });
    out = ggml_gated_delta_net(ctx, r, k, v, g, beta, s, 2);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), 1.375) &&
               near(ggml_get_f32_1d(out, 1), -2.625) && near(ggml_get_f32_1d(out, 2), -1.3125) &&
               near(ggml_get_f32_1d(out, 3), 2.75));
    // SSM_SCAN (Mamba-2, dt = 0: softplus 0 = ln 2, A = -1, x = 1, B = 2, C = 3, s = 0.5, one token):
    //   st = 0.5*exp(-ln 2) + 2*ln 2 = 0.25 + 2 ln 2, y = 3*st
    struct ggml_tensor * ss = f32(ctx, 1, 1, 1, 1), * x = f32(ctx, 1, 1, 1, 1), * dt = f32(ctx, 1, 1, 1, 1);
    struct ggml_tensor * A = f32(ctx, 1, 1, 1, 1), * B = f32(ctx, 1, 1, 1, 1), * C = f32(ctx, 1, 1, 1, 1);
    struct ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
    set1(ss, 0.5f); set1(x, 1); set1(dt, 0); set1(A, -1); set1(B, 2); set1(C, 3);
    ggml_set_i32_1d(ids, 0, 0);
    out = ggml_ssm_scan(ctx, ss, x, dt, A, B, C, ids, 1);
    const double st = 0.25 + 2*log(2.0);
    TEST_CHECK(compute(ctx, out, 1) == GGML_STATUS_SUCCESS && near(ggml_get_f32_1d(out, 0), 3*st) &&
               near(ggml_get_f32_1d(out, 1), st));
    // a state row that s does not have: the graph fails, nothing aborts
    ggml_set_i32_1d(ids, 0, 1);
    test_log_capture_begin();
    TEST_CHECK(compute(ctx, out, 2) != GGML_STATUS_SUCCESS && test_log_error_count() >= 1);
    test_log_capture_end();
    ggml_free(ctx);
}

// the work is split over (sequence, head) pairs: every thread count gives the same bits
static void test_threads(void) {
    struct ggml_init_params ip = { 64*1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(ip);
    if (!TEST_CHECK(ctx != NULL)) {
        return;
    }
    struct ggml_tensor * q = f32(ctx, 32, 2, 5, 1), * k = f32(ctx, 32, 2, 5, 1), * v = f32(ctx, 32, 6, 5, 3);
    struct ggml_tensor * g = f32(ctx, 32, 6, 5, 3), * beta = f32(ctx, 1, 6, 5, 3), * st = f32(ctx, 32, 32, 6, 3);
    test_fill_uniform_f32(q, -0.2, 0.2); test_fill_uniform_f32(k, -0.2, 0.2); test_fill_uniform_f32(v, -1, 1); test_fill_uniform_f32(g, -2, -0.01); test_fill_uniform_f32(beta, 0, 1); test_fill_uniform_f32(st, -1, 1);
    struct ggml_tensor * a = f32(ctx, 37, 37, 3, 2), * b = f32(ctx, 70, 37, 3, 2);
    test_fill_uniform_f32(a, 0.5, 1); test_fill_uniform_f32(b, -1, 1);
    struct ggml_tensor * outs[2] = { ggml_gated_delta_net(ctx, q, k, v, g, beta, st, 3), ggml_solve_tri(ctx, a, b, true, true, false) };
    for (int i = 0; i < 2; i++) {
        if (!TEST_CHECK(outs[i] != NULL) || !TEST_CHECK(compute(ctx, outs[i], 1) == GGML_STATUS_SUCCESS)) {
            continue;
        }
        const size_t n = ggml_nbytes(outs[i]);
        float * one = malloc(n);
        if (!TEST_CHECK(one != NULL)) {
            continue;
        }
        memcpy(one, outs[i]->data, n);
        TEST_CHECK(compute(ctx, outs[i], 3) == GGML_STATUS_SUCCESS && memcmp(one, outs[i]->data, n) == 0);
        free(one);
    }
    ggml_free(ctx);
}

int main(void) {
    test_rng_init();
    struct ggml_init_params ip = { 128*ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    if (TEST_CHECK(ctx != NULL)) {
        test_shapes(ctx);
        ggml_free(ctx);
    }
    test_values();
    test_threads();
    return test_finish("test-ops-seq");
}
