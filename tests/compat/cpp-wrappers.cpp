// Compatibility program: ggml-cpp.h, the family's C++ header of unique_ptr aliases.
//
// llama.cpp and the family's C++ tests hold every handle in these smart pointers. The program
// also uses the small C++-visible additions of issue 22 (GGML_UNUSED_VARS, ggml_ftype,
// ggml_op_hint, enums used as the family's test program uses them).

#include "ggml-cpp.h"
#include "ggml-cpu.h"

#include <cstdio>
#include <type_traits>
#include <utility>
#include <vector>

// the aliases are unique_ptr of the family's handle types with its deleter names
static_assert(std::is_same<ggml_context_ptr, std::unique_ptr<ggml_context, ggml_context_deleter>>::value, "ggml_context_ptr");
static_assert(std::is_same<gguf_context_ptr, std::unique_ptr<gguf_context, gguf_context_deleter>>::value, "gguf_context_ptr");
static_assert(std::is_same<ggml_backend_sched_ptr::pointer, ggml_backend_sched_t>::value, "ggml_backend_sched_ptr");
static_assert(std::is_same<ggml_gallocr_ptr::pointer, ggml_gallocr_t>::value, "ggml_gallocr_ptr");

static int unused_vars_compile(int a, float b, const char * c) {
    GGML_UNUSED_VARS(a, b, c);
    return 0;
}

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

    // moving and resetting free exactly once; a null handle is fine for every deleter
    ggml_backend_buffer_ptr moved = std::move(buf);
    if (buf || !moved) n_failed++;
    moved.reset();
    ggml_backend_event_ptr no_event;
    no_event.reset();

    gguf_context_ptr gctx(gguf_init_empty());
    if (!gctx) n_failed++;
    gguf_set_val_u32(gctx.get(), "general.answer", 42);
    if (gguf_get_n_kv(gctx.get()) != 1 || gguf_get_val_u32(gctx.get(), gguf_find_key(gctx.get(), "general.answer")) != 42) n_failed++;

    n_failed += unused_vars_compile(1, 2.0f, "x");
    if (ggml_ftype_to_ggml_type(GGML_FTYPE_MOSTLY_Q4_K) != GGML_TYPE_Q4_K) n_failed++;
    if (ggml_ftype_to_ggml_type(GGML_FTYPE_MOSTLY_Q2_0) != GGML_TYPE_Q2_0) n_failed++;
    if (ggml_ftype_to_ggml_type(GGML_FTYPE_UNKNOWN) != GGML_TYPE_COUNT) n_failed++;
    if (GGML_HINT_SRC0_IS_HADAMARD != 1 || GGML_FTYPE_MOSTLY_BF16 != 24) n_failed++;

    std::printf("cpp-wrappers: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
