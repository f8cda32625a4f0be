// docs snippet: README.md 1
// The README's short tour, compiled and run: every line of the README's first C block appears
// below in order (check-snippets verifies it); fill() and use() are the README's placeholders for
// the program's own data and its use of the results, which here checks them against a double
// precision computation of the same values.
#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>

static unsigned g_seed = 12345;
static int      g_failures;

static float next_value(void) { // uniform in [-1, 1), never all zeros
    g_seed = g_seed * 1103515245u + 12345u;
    return (float) ((g_seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void fill(struct ggml_tensor * t) {
    float * d = ggml_get_data_f32(t);
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        d[i] = next_value();
    }
}

static const struct ggml_tensor * g_a, * g_x;

// y = soft_max(a^T x) per column; sum = a + x repeated along dim 1; both against doubles
static void use(const struct ggml_tensor * y, const struct ggml_tensor * sum) {
    const float * a = ggml_get_data_f32(g_a), * x = ggml_get_data_f32(g_x);
    const float * py = ggml_get_data_f32(y), * ps = ggml_get_data_f32(sum);
    double max_err_y = 0.0, max_err_sum = 0.0;
    for (int j = 0; j < 8; j++) {
        double dot[32], mx = -INFINITY, z = 0.0;
        for (int i = 0; i < 32; i++) {
            dot[i] = 0.0;
            for (int k = 0; k < 4096; k++) {
                dot[i] += (double) a[i*4096 + k] * x[j*4096 + k];
            }
            mx = dot[i] > mx ? dot[i] : mx;
        }
        for (int i = 0; i < 32; i++) {
            z += exp(dot[i] - mx);
        }
        for (int i = 0; i < 32; i++) {
            const double want = exp(dot[i] - mx) / z;
            const double err = fabs(py[j*32 + i] - want);
            max_err_y = err > max_err_y ? err : max_err_y;
        }
    }
    for (int r = 0; r < 32; r++) {
        for (int k = 0; k < 4096; k++) {
            const double want = (double) a[r*4096 + k] + x[(r % 8)*4096 + k];
            const double err = fabs(ps[r*4096 + k] - want);
            max_err_sum = err > max_err_sum ? err : max_err_sum;
        }
    }
    // probabilities: F32 dot products of 4096 terms of size about 1 (error about 1e-5 relative)
    printf("readme-tour: soft_max(mul_mat) max |error| %.2e (bound 1e-4), add max |error| %.2e (bound 1e-6)\n",
        max_err_y, max_err_sum);
    g_failures += max_err_y <= 1e-4 ? 0 : 1;
    g_failures += max_err_sum <= 1e-6 ? 0 : 1;
}

int main(void) {
struct ggml_init_params params = { .mem_size = 16*1024*1024, .mem_buffer = NULL, .no_alloc = false };
struct ggml_context * ctx = ggml_init(params);            // NULL if the arena cannot be allocated
if (ctx == NULL) {
    return 1;
}

struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 32);   // ne0 = row length
struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 8);
fill(a); fill(x);                                         // your data, written to a->data, x->data
g_a = a; g_x = x;
struct ggml_tensor * y = ggml_soft_max(ctx, ggml_mul_mat(ctx, a, x));        // [32, 8]; nothing computed yet

struct ggml_tensor * sum = ggml_add(ctx, a, x);          // [4096, 32] + [4096, 8]: x repeats 4 times along dim 1
struct ggml_tensor * bad = ggml_add(ctx, x, a);          // [4096, 8] + [4096, 32]: a cannot repeat into x:
                                                          // logs both shapes, returns NULL
g_failures += y != NULL && sum != NULL && sum->ne[0] == 4096 && sum->ne[1] == 32 && bad == NULL ? 0 : 1;
struct ggml_cgraph * gf = ggml_new_graph(ctx);
ggml_build_forward_expand(gf, y);
ggml_build_forward_expand(gf, sum);
enum ggml_status st = ggml_graph_compute_with_ctx(ctx, gf, 2);   // on the CPU, 2 threads
g_failures += st == GGML_STATUS_SUCCESS ? 0 : 1;
use(y, sum);                                              // read the results (ggml_get_data_f32) before freeing
ggml_free(ctx);
printf("readme-tour: %s\n", g_failures == 0 ? "passed" : "FAILED");
return g_failures == 0 ? 0 : 1;
}
