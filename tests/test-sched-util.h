#pragma once

// Helpers shared by the scheduler tests (test-sched.c, test-sched-errors.c): contexts, weights in
// a chosen buffer type, host data, and the "chain" graph both files use.
//
// The chain (ne0 x ne1 F32 tensors; W1, W2 weights; x a graph input):
//     h1 = x * W1      MUL    (the test backend runs it)
//     h2 = h1 + W2     ADD    (test backend)
//     h3 = h2^2        SQR    (CPU only)
//     h4 = 0.5 * h3    SCALE  (test backend)
//     h5 = h4 + x      ADD    (test backend), the output
// With W1, W2 in a WEIGHTS buffer of the test backend TEST and the scheduler [TEST, CPU], the
// passes put h1, h2 on TEST (their weights are there), h3 on the CPU (TEST cannot run SQR),
// h4, h5 on TEST (they follow h2 in pass 2a). Every op is one IEEE operation per element, so
// every backend gives the same bits.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "test-backend.h"
#include "test-common.h"

#include <stdlib.h>
#include <string.h>

static inline struct ggml_context * su_ctx(size_t n_tensors) {
    struct ggml_init_params params = {
        n_tensors * ggml_tensor_overhead() + ggml_graph_overhead_custom(4096, false) + 1024,
        NULL,
        true,
    };
    return ggml_init(params);
}

static inline void su_fill(float * x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) {
        x[i] = (float) test_rand_uniform(lo, hi);
    }
}

static inline float * su_rand(size_t n, float lo, float hi) {
    float * x = (float *) malloc(n * sizeof(float));
    su_fill(x, n, lo, hi);
    return x;
}

// allocates every tensor of wctx in buft and marks the buffer as holding weights
static inline ggml_backend_buffer_t su_weights(struct ggml_context * wctx, ggml_backend_buffer_type_t buft) {
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft);
    if (buf != NULL) {
        ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    }
    return buf;
}

static inline void su_set(struct ggml_tensor * t, const float * data) {
    ggml_backend_tensor_set(t, data, 0, ggml_nbytes(t));
}

static inline float * su_get(const struct ggml_tensor * t) {
    float * out = (float *) malloc(ggml_nbytes(t));
    memset(out, 0xff, ggml_nbytes(t)); // NaN pattern: a value never written does not match
    ggml_backend_tensor_get(t, out, 0, ggml_nbytes(t));
    return out;
}

static inline bool su_same_bits(const float * a, const float * b, size_t n) {
    return memcmp(a, b, n * sizeof(float)) == 0;
}

static inline struct test_backend_stats su_stats(void) {
    struct test_backend_stats st;
    test_backend_get_stats(&st);
    return st;
}

//
// the chain graph
//

struct su_weights_pair {
    struct ggml_context * ctx;
    ggml_backend_buffer_t buf;
    struct ggml_tensor * w1;
    struct ggml_tensor * w2;
};

// W1 and W2 of ne0 x ne1 in a WEIGHTS buffer of buft, filled with w1, w2
static inline struct su_weights_pair su_chain_weights(ggml_backend_buffer_type_t buft, int64_t ne0, int64_t ne1, const float * w1, const float * w2) {
    struct su_weights_pair p;
    p.ctx = su_ctx(4);
    p.w1 = ggml_new_tensor_2d(p.ctx, GGML_TYPE_F32, ne0, ne1);
    p.w2 = ggml_new_tensor_2d(p.ctx, GGML_TYPE_F32, ne0, ne1);
    ggml_set_name(p.w1, "W1");
    ggml_set_name(p.w2, "W2");
    p.buf = su_weights(p.ctx, buft);
    su_set(p.w1, w1);
    su_set(p.w2, w2);
    return p;
}

static inline void su_weights_free(struct su_weights_pair * p) {
    ggml_backend_buffer_free(p->buf);
    ggml_free(p->ctx);
}

struct su_chain {
    struct ggml_context * ctx;
    struct ggml_cgraph  * gf;
    struct ggml_tensor  * x;
    struct ggml_tensor  * h[6]; // h[1] .. h[5]
};

// x has w1's ne0 and ne1 rows (0: as many as w1); W1, W2 with one row are broadcast over x's rows
static inline void su_chain_build_rows(struct su_chain * c, struct ggml_tensor * w1, struct ggml_tensor * w2, int64_t ne1) {
    c->ctx = su_ctx(32);
    c->x = ggml_new_tensor_2d(c->ctx, GGML_TYPE_F32, w1->ne[0], ne1 > 0 ? ne1 : w1->ne[1]);
    ggml_set_name(c->x, "x");
    ggml_set_input(c->x);
    c->h[0] = NULL;
    c->h[1] = ggml_mul(c->ctx, c->x, w1);
    c->h[2] = ggml_add(c->ctx, c->h[1], w2);
    c->h[3] = ggml_sqr(c->ctx, c->h[2]);
    c->h[4] = ggml_scale(c->ctx, c->h[3], 0.5f);
    c->h[5] = ggml_add(c->ctx, c->h[4], c->x);
    for (int i = 1; i <= 5; i++) {
        ggml_format_name(c->h[i], "h%d", i);
    }
    ggml_set_output(c->h[5]);
    c->gf = ggml_new_graph(c->ctx);
    ggml_build_forward_expand(c->gf, c->h[5]);
}

static inline void su_chain_build(struct su_chain * c, struct ggml_tensor * w1, struct ggml_tensor * w2) {
    su_chain_build_rows(c, w1, w2, 0);
}

// The chain on the host, one rounding per op as every backend does it: h[k] gets n values each.
// The weights have nw elements and repeat over x (nw = n when they have x's shape).
static inline void su_chain_expect_w(const float * x, const float * w1, const float * w2, size_t n, size_t nw, float * h[6]) {
    for (size_t i = 0; i < n; i++) {
        h[1][i] = x[i] * w1[i % nw];
    }
    for (size_t i = 0; i < n; i++) {
        h[2][i] = h[1][i] + w2[i % nw];
    }
    for (size_t i = 0; i < n; i++) {
        h[3][i] = h[2][i] * h[2][i];
    }
    for (size_t i = 0; i < n; i++) {
        h[4][i] = h[3][i] * 0.5f;
    }
    for (size_t i = 0; i < n; i++) {
        h[5][i] = h[4][i] + x[i];
    }
}

static inline void su_chain_expect(const float * x, const float * w1, const float * w2, size_t n, float * h[6]) {
    su_chain_expect_w(x, w1, w2, n, n, h);
}

// expected h5 only (malloc'ed)
static inline float * su_chain_out_w(const float * x, const float * w1, const float * w2, size_t n, size_t nw) {
    float * h[6];
    for (int k = 1; k <= 5; k++) {
        h[k] = (float *) malloc(n * sizeof(float));
    }
    su_chain_expect_w(x, w1, w2, n, nw, h);
    for (int k = 1; k <= 4; k++) {
        free(h[k]);
    }
    return h[5];
}

static inline float * su_chain_out(const float * x, const float * w1, const float * w2, size_t n) {
    return su_chain_out_w(x, w1, w2, n, n);
}
