// docs snippet: README.md 2
// The README's scheduler example, compiled and run: the graph of the tour (y = soft_max(a^T x))
// built for backend memory, computed on OpenCL0 and the CPU through the scheduler (the CPU alone
// where there is no OpenCL device), the result checked against a double precision computation.
#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>

static float a_data[32*4096], x_data[8*4096], y_data[32*8];

static void fill(float * d, int n, unsigned seed) {
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        d[i] = (float) ((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static double max_error(void) {
    double worst = 0.0;
    for (int j = 0; j < 8; j++) {
        double dot[32], mx = -INFINITY, z = 0.0;
        for (int i = 0; i < 32; i++) {
            dot[i] = 0.0;
            for (int k = 0; k < 4096; k++) {
                dot[i] += (double) a_data[i*4096 + k] * x_data[j*4096 + k];
            }
            mx = dot[i] > mx ? dot[i] : mx;
        }
        for (int i = 0; i < 32; i++) {
            z += exp(dot[i] - mx);
        }
        for (int i = 0; i < 32; i++) {
            const double err = fabs(y_data[j*32 + i] - exp(dot[i] - mx) / z);
            worst = err > worst ? err : worst;
        }
    }
    return worst;
}

int main(void) {
    fill(a_data, 32*4096, 1);
    fill(x_data, 8*4096, 2);
    struct ggml_init_params params = { .mem_size = 16*ggml_tensor_overhead() + ggml_graph_overhead(), .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        return 1;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 32);
    struct ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 8);
    ggml_set_input(a);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_soft_max(ctx, ggml_mul_mat(ctx, a, x));
    ggml_set_output(y);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);

    ggml_backend_t dev = ggml_backend_init_by_name("OpenCL0", NULL);   // NULL (logged) when there is none
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (cpu == NULL) {
        return 1;
    }
    ggml_backend_t backends[] = { dev != NULL ? dev : cpu, cpu };      // priority order, the CPU last
    ggml_backend_sched_t sched = ggml_backend_sched_new(backends, NULL, dev != NULL ? 2 : 1, GGML_DEFAULT_GRAPH_SIZE, false);
    int failures = sched != NULL ? 0 : 1;
    if (sched != NULL) {
    ggml_backend_sched_alloc_graph(sched, gf);                 // assigns every node a device, allocates
    ggml_backend_tensor_set(a, a_data, 0, ggml_nbytes(a));     // inputs, wherever they were placed
    ggml_backend_tensor_set(x, x_data, 0, ggml_nbytes(x));
    ggml_backend_sched_graph_compute(sched, gf);               // splits the graph, copies inputs between devices
    ggml_backend_tensor_get(y, y_data, 0, ggml_nbytes(y));
        const double err = max_error();
        printf("readme-backends: %s%s: max |error| %.2e (bound 1e-4)\n", dev != NULL ? "OpenCL0 + " : "",
            "CPU", err);
        failures += err <= 1e-4 ? 0 : 1;
    ggml_backend_sched_free(sched);
    }
    if (dev != NULL) {
        ggml_backend_free(dev);
    }
    ggml_backend_free(cpu);
    ggml_free(ctx);
    printf("readme-backends: %s\n", failures == 0 ? "passed" : "FAILED");
    return failures == 0 ? 0 : 1;
}
