// Compatibility program in C++17: most programs of the ggml family (llama.cpp, whisper.cpp, the
// family's own tests) are C++. Every public header is included (in an order other than the
// natural one, so that each must stand on its own), and the calls those programs make are written
// the way C++ writes them: no `struct` keyword, nullptr, std::vector::data() and size(),
// captureless lambdas as callbacks, both forms of the two calls that gained parameters.
// Built with -Wall -Wextra -Werror.

#include "ggml-cpu.h"
#include "ggml-backend.h"
#include "ggml-alloc.h"
#include "ggml.h"
#if __has_include("ggml-opencl.h")
#    include "ggml-opencl.h"
#endif
#if __has_include("ggml-backend-meta.h")
#    include "ggml-backend-meta.h"
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

static int n_failed = 0;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            std::fprintf(stderr, "compat-cpp:%d: check failed: %s: ", __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                               \
            std::fprintf(stderr, "\n");                                      \
            n_failed++;                                                      \
        }                                                                    \
    } while (0)

// the C++ programs of the family wrap handles in unique_ptr with deleters like these
struct ctx_deleter     { void operator()(ggml_context * ctx)        { ggml_free(ctx); } };
struct backend_deleter { void operator()(ggml_backend_t b)          { ggml_backend_free(b); } };
struct buffer_deleter  { void operator()(ggml_backend_buffer_t b)   { ggml_backend_buffer_free(b); } };
struct sched_deleter   { void operator()(ggml_backend_sched_t s)    { ggml_backend_sched_free(s); } };
struct gallocr_deleter { void operator()(ggml_gallocr_t g)          { ggml_gallocr_free(g); } };
typedef std::unique_ptr<ggml_context, ctx_deleter>                       ctx_ptr;
typedef std::unique_ptr<ggml_backend, backend_deleter>                   backend_ptr;
typedef std::unique_ptr<ggml_backend_buffer, buffer_deleter>             buffer_ptr;
typedef std::unique_ptr<ggml_backend_sched, sched_deleter>               sched_ptr;
typedef std::unique_ptr<ggml_gallocr, gallocr_deleter>                   gallocr_ptr;

// the seed-form functions keep their exported signatures
static_assert(std::is_same<decltype(&ggml_backend_sched_new),
        ggml_backend_sched_t (*)(ggml_backend_t *, ggml_backend_buffer_type_t *, int, size_t, bool)>::value,
        "ggml_backend_sched_new signature");
static_assert(std::is_same<decltype(&ggml_backend_compare_graph_backend),
        bool (*)(ggml_backend_t, ggml_backend_t, ggml_cgraph *, ggml_backend_eval_callback, void *)>::value,
        "ggml_backend_compare_graph_backend signature");
static_assert(sizeof(ggml_tensor) == GGML_TENSOR_SIZE, "GGML_TENSOR_SIZE");
static_assert(GGML_PAD(30, 16) == 32, "GGML_PAD");

static float in_value(int i) { return 0.01f * (float) ((i * 37) % 101) - 0.5f; }

struct model {
    ctx_ptr ctx;
    buffer_ptr buf;
    ggml_tensor * w = nullptr;
    ggml_tensor * x = nullptr;
    std::vector<float> w_data, x_data;
};

static void load(model & m, ggml_backend_t backend, int64_t k, int64_t rows, int64_t cols) {
    ggml_init_params params = { 2 * ggml_tensor_overhead(), nullptr, true };
    m.ctx.reset(ggml_init(params));
    GGML_ASSERT(m.ctx);
    m.w = ggml_new_tensor_2d(m.ctx.get(), GGML_TYPE_F32, k, rows);
    m.x = ggml_new_tensor_2d(m.ctx.get(), GGML_TYPE_F32, k, cols);
    m.buf.reset(ggml_backend_alloc_ctx_tensors(m.ctx.get(), backend));
    GGML_ASSERT(m.buf);
    m.w_data.resize(k * rows);
    m.x_data.resize(k * cols);
    for (size_t i = 0; i < m.w_data.size(); i++) m.w_data[i] = in_value((int) i);
    for (size_t i = 0; i < m.x_data.size(); i++) m.x_data[i] = in_value((int) i + 7) * 0.5f;
    ggml_backend_tensor_set(m.w, m.w_data.data(), 0, ggml_nbytes(m.w));
    ggml_backend_tensor_set(m.x, m.x_data.data(), 0, ggml_nbytes(m.x));
}

static ggml_cgraph * build(const model & m, std::vector<uint8_t> & buf) {
    buf.resize(ggml_tensor_overhead() * GGML_DEFAULT_GRAPH_SIZE + ggml_graph_overhead());
    ggml_init_params params = { buf.size(), buf.data(), true };
    ggml_context * ctx0 = ggml_init(params);
    ggml_cgraph * gf = ggml_new_graph(ctx0);
    ggml_tensor * y = ggml_tanh(ctx0, ggml_mul_mat(ctx0, m.w, m.x));
    ggml_set_name(y, "y");
    ggml_build_forward_expand(gf, y);
    ggml_free(ctx0);
    return gf;
}

static double check_result(const model & m, ggml_tensor * y, int64_t k, const char * what) {
    std::vector<float> out(ggml_nelements(y));
    ggml_backend_tensor_get(y, out.data(), 0, ggml_nbytes(y));
    const int64_t rows = y->ne[0], cols = y->ne[1];
    double max_err = 0.0;
    for (int64_t j = 0; j < cols; j++) {
        for (int64_t i = 0; i < rows; i++) {
            double acc = 0.0;
            for (int64_t l = 0; l < k; l++) acc += (double) m.w_data[i * k + l] * (double) m.x_data[j * k + l];
            max_err = std::fmax(max_err, std::fabs(out[j * rows + i] - std::tanh(acc)));
        }
    }
    CHECK(max_err < 1e-5, "%s: max error %g", what, max_err);
    return max_err;
}

static void test_sched(ggml_backend_t best, ggml_backend_t cpu) {
    std::vector<ggml_backend_t> backends = { best, cpu };
    std::vector<ggml_backend_buffer_type_t> bufts;
    for (auto * b : backends) bufts.push_back(ggml_backend_get_default_buffer_type(b));

    model m;
    load(m, best, 29, 11, 4);
    std::vector<uint8_t> buf;

    for (int form = 0; form < 3; form++) {
        sched_ptr sched;
        if (form == 0) {
            sched.reset(ggml_backend_sched_new(backends.data(), nullptr, (int) backends.size(), GGML_DEFAULT_GRAPH_SIZE, false));
        } else if (form == 1) {
            sched.reset(ggml_backend_sched_new(backends.data(), bufts.data(), backends.size(), GGML_DEFAULT_GRAPH_SIZE, false, true));
        } else {
            sched.reset(ggml_backend_sched_new(backends.data(), nullptr, backends.size(), 512, true, false));
        }
        CHECK(sched != nullptr, "sched form %d", form);
        if (!sched) continue;
        ggml_cgraph * gf = build(m, buf);
        CHECK(ggml_backend_sched_alloc_graph(sched.get(), gf), "alloc form %d", form);
        ggml_status st = ggml_backend_sched_graph_compute(sched.get(), gf);
        CHECK(st == GGML_STATUS_SUCCESS, "compute form %d: %s", form, ggml_status_to_string(st));
        check_result(m, ggml_graph_node(gf, -1), 29, "sched");
    }
}

static void test_compare(ggml_backend_t b1, ggml_backend_t b2) {
    model m;
    load(m, b1, 17, 6, 3);
    ggml_init_params params = { 16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true };
    ctx_ptr ctx(ggml_init(params));
    ggml_tensor * mm = ggml_mul_mat(ctx.get(), m.w, m.x);
    ggml_tensor * y = ggml_tanh(ctx.get(), mm);
    buffer_ptr buf(ggml_backend_alloc_ctx_tensors(ctx.get(), b1));
    ggml_cgraph * gf = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(gf, y);

    struct ud_t { int calls; double max_diff; } ud = { 0, 0.0 };
    auto cb = [](int node_index, ggml_tensor * t1, ggml_tensor * t2, void * user_data) -> bool {
        auto * u = static_cast<ud_t *>(user_data);
        std::vector<float> a(ggml_nelements(t1)), b(ggml_nelements(t2));
        ggml_backend_tensor_get(t1, a.data(), 0, ggml_nbytes(t1));
        ggml_backend_tensor_get(t2, b.data(), 0, ggml_nbytes(t2));
        for (size_t i = 0; i < a.size(); i++) u->max_diff = std::fmax(u->max_diff, std::fabs(a[i] - b[i]));
        u->calls++;
        GGML_UNUSED(node_index);
        return true;
    };

    bool ok = ggml_backend_compare_graph_backend(b1, b2, gf, cb, &ud);
    CHECK(ok && ud.calls == 2 && ud.max_diff < 1e-5, "5 args: ok %d, %d calls, diff %g", ok, ud.calls, ud.max_diff);

    ud = { 0, 0.0 };
    ok = ggml_backend_compare_graph_backend(b1, b2, gf, cb, &ud, nullptr, 0);
    CHECK(ok && ud.calls == 2 && ud.max_diff < 1e-5, "7 args, no nodes: ok %d, %d calls", ok, ud.calls);

    ud = { 0, 0.0 };
    std::vector<ggml_tensor *> nodes = { y };
    ok = ggml_backend_compare_graph_backend(b1, b2, gf, cb, &ud, nodes.data(), nodes.size());
    CHECK(ok && ud.calls == 1 && ud.max_diff < 1e-5, "7 args, one node: ok %d, %d calls", ok, ud.calls);
}

static void test_ctx_and_threadpool() {
    ggml_init_params params = { 4 * 1024 * 1024, nullptr, false };
    ctx_ptr ctx(ggml_init(params));
    GGML_ASSERT(ctx);
    ggml_tensor * a = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 64);
    ggml_tensor * b = ggml_new_tensor_1d(ctx.get(), GGML_TYPE_F32, 64);
    for (int i = 0; i < 64; i++) {
        ggml_set_f32_1d(a, i, (float) i);
        ggml_set_f32_1d(b, i, 2.0f);
    }
    ggml_tensor * c = ggml_div(ctx.get(), a, b);
    ggml_tensor * dst = c;
    ggml_tensor * src0 = a;
    GGML_TENSOR_UNARY_OP_LOCALS
    CHECK(ne0 == 64 && ne00 == 64 && nb0 == sizeof(float) && nb00 == sizeof(float), "GGML_TENSOR_UNARY_OP_LOCALS");

    ggml_cgraph * gf = ggml_new_graph(ctx.get());
    ggml_build_forward_expand(gf, c);
    ggml_status st = ggml_graph_compute_with_ctx(ctx.get(), gf, 2);
    CHECK(st == GGML_STATUS_SUCCESS && ggml_get_f32_1d(c, 63) == 31.5f, "compute_with_ctx: %s", ggml_status_to_string(st));

    ggml_threadpool_params tpp = ggml_threadpool_params_default(2);
    ggml_threadpool * tp = ggml_threadpool_new(&tpp);
    CHECK(tp != nullptr, "ggml_threadpool_new");
    ggml_cplan plan = ggml_graph_plan(gf, 2, tp);
    std::vector<uint8_t> work(plan.work_size);
    plan.work_data = work.data();
    ggml_set_zero(c);
    st = ggml_graph_compute(gf, &plan);
    CHECK(st == GGML_STATUS_SUCCESS && ggml_get_f32_1d(c, 10) == 5.0f, "compute on a pool: %s", ggml_status_to_string(st));
    ggml_threadpool_free(tp);
}

int main() {
    ggml_log_set([](ggml_log_level level, const char * text, void *) {
        if (level >= GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
    }, nullptr);

    ggml_backend_load_all();
    backend_ptr best(ggml_backend_init_best());
    backend_ptr cpu(ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr));
    GGML_ASSERT(best && cpu);

    ggml_backend_dev_t dev = ggml_backend_get_device(cpu.get());
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    auto set_n_threads = reinterpret_cast<ggml_backend_set_n_threads_t>(
            ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads"));
    if (set_n_threads) {
        set_n_threads(cpu.get(), 2);
    }

    test_sched(best.get(), cpu.get());
    test_compare(cpu.get(), best.get());
    test_ctx_and_threadpool();

    // a graph allocator on the default buffer type, seed-001 style
    {
        model m;
        load(m, cpu.get(), 8, 5, 2);
        gallocr_ptr galloc(ggml_gallocr_new(ggml_backend_get_default_buffer_type(cpu.get())));
        std::vector<uint8_t> buf;
        ggml_cgraph * gf = build(m, buf);
        CHECK(ggml_gallocr_alloc_graph(galloc.get(), gf), "gallocr");
        ggml_backend_cpu_set_n_threads(cpu.get(), 2);
        CHECK(ggml_backend_graph_compute(cpu.get(), gf) == GGML_STATUS_SUCCESS, "graph_compute");
        check_result(m, ggml_graph_node(gf, -1), 8, "gallocr");
    }

    ggml_log_set(nullptr, nullptr);
    std::printf("compat-cpp: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
