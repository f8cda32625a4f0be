// Compatibility program (PENDING: needs ggml-cpp.h, the family's C++ header of unique_ptr aliases,
// which this project does not ship yet; see docs/compatibility.md).
//
// llama.cpp and the family's C++ tests hold every handle in these smart pointers.

#include "ggml-cpp.h"
#include "ggml-cpu.h"

#include <cstdio>
#include <vector>

int main() {
    int n_failed = 0;

    ggml_init_params params = { 4 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true };
    ggml_context_ptr ctx(ggml_init(params));
    ggml_backend_ptr backend(ggml_backend_cpu_init());
    if (!ctx || !backend) {
        std::printf("cpp-wrappers: FAILED\n");
        return 1;
    }

    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 16);
    ggml_tensor * b = ggml_neg(ctx.get(), a);
    ggml_cgraph * gf = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(gf, b);

    ggml_backend_buffer_ptr buf(ggml_backend_alloc_ctx_tensors(ctx.get(), backend.get()));
    std::vector<float> in(16), out(16);
    for (int i = 0; i < 16; i++) in[i] = (float) i;
    ggml_backend_tensor_set(a, in.data(), 0, ggml_nbytes(a));

    ggml_backend_t backends[1] = { backend.get() };
    ggml_backend_sched_ptr sched(ggml_backend_sched_new(backends, nullptr, 1, GGML_DEFAULT_GRAPH_SIZE, false, true));
    ggml_gallocr_ptr galloc(ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend.get())));
    ggml_backend_event_ptr event(ggml_backend_event_new(ggml_backend_get_device(backend.get()))); // NULL: no events on the CPU

    if (ggml_backend_graph_compute(backend.get(), gf) != GGML_STATUS_SUCCESS) n_failed++;
    ggml_backend_tensor_get(b, out.data(), 0, ggml_nbytes(b));
    for (int i = 0; i < 16; i++) if (out[i] != -(float) i) n_failed++;
    if (!sched || !galloc) n_failed++;

    std::printf("cpp-wrappers: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
