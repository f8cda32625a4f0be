// Compatibility program: device discovery as programs of the ggml family's current release do it.
// ggml_backend_load_all(), then enumeration of registries and devices with their properties and
// capabilities, lookups by name and type, ggml_backend_init_best(), backend-specific functions
// fetched through ggml_backend_reg_get_proc_address (set_n_threads, extra buffer types,
// features), and a small graph computed on the best backend with a graph allocator on
// ggml_backend_get_default_buffer_type.

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "registry:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            n_failed++;                                                       \
        }                                                                     \
    } while (0)

static const char * type_str(enum ggml_backend_dev_type t) {
    switch (t) {
        case GGML_BACKEND_DEVICE_TYPE_CPU:   return "CPU";
        case GGML_BACKEND_DEVICE_TYPE_GPU:   return "GPU";
        case GGML_BACKEND_DEVICE_TYPE_IGPU:  return "IGPU";
        case GGML_BACKEND_DEVICE_TYPE_ACCEL: return "ACCEL";
        case GGML_BACKEND_DEVICE_TYPE_META:  return "META";
    }
    return "?";
}

// What model loaders and runners do with each device: a backend on it, buffers of its type,
// asynchronous uploads, an asynchronous compute, events when the device has them, and pinned host
// memory when it offers a host buffer type.
static void use_device(ggml_backend_dev_t dev, const struct ggml_backend_dev_props * props) {
    ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
    CHECK(backend != NULL, "%s: ggml_backend_dev_init", props->name);
    if (backend == NULL) {
        return;
    }
    CHECK(ggml_backend_get_device(backend) == dev, "%s: backend's device", props->name);

    struct ggml_init_params params = { 8 * ggml_tensor_overhead() + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    struct ggml_tensor * c = ggml_mul(ctx, a, b);
    CHECK(ggml_backend_dev_supports_op(dev, c) && ggml_backend_supports_op(backend, c), "%s: MUL not supported", props->name);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, c);

    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_dev_buffer_type(dev));
    CHECK(buf != NULL, "%s: alloc_ctx_tensors_from_buft", props->name);
    if (buf != NULL) {
        ggml_backend_buffer_clear(buf, 0);
        float xa[64], xb[64], out[64];
        for (int i = 0; i < 64; i++) {
            xa[i] = (float) i - 31.5f;
            xb[i] = 0.25f * (float) (i % 9);
        }
        ggml_backend_tensor_get(c, out, 0, sizeof(out));
        CHECK(out[17] == 0.0f, "%s: buffer_clear left %g", props->name, out[17]);

        ggml_backend_tensor_set_async(backend, a, xa, 0, sizeof(xa));
        ggml_backend_tensor_set_async(backend, b, xb, 0, sizeof(xb));
        if (props->caps.events) {
            ggml_backend_event_t ev = ggml_backend_event_new(dev);
            CHECK(ev != NULL, "%s: events cap without ggml_backend_event_new", props->name);
            if (ev != NULL) {
                ggml_backend_event_record(ev, backend);
                ggml_backend_event_synchronize(ev);
                ggml_backend_event_wait(backend, ev);
                ggml_backend_event_free(ev);
            }
        }
        enum ggml_status st = ggml_backend_graph_compute_async(backend, gf);
        CHECK(st == GGML_STATUS_SUCCESS, "%s: graph_compute_async: %s", props->name, ggml_status_to_string(st));
        memset(out, 0, sizeof(out));
        ggml_backend_tensor_get_async(backend, c, out, 0, sizeof(out));
        ggml_backend_synchronize(backend);
        for (int i = 0; i < 64; i++) {
            CHECK(out[i] == xa[i] * xb[i], "%s: c[%d] = %g, expected %g", props->name, i, out[i], xa[i] * xb[i]);
        }
        ggml_backend_buffer_free(buf);
    }

    ggml_backend_buffer_type_t host = ggml_backend_dev_host_buffer_type(dev);
    if (host != NULL) {
        ggml_backend_buffer_t hb = ggml_backend_buft_alloc_buffer(host, 4096);
        CHECK(hb != NULL && ggml_backend_buffer_is_host(hb) && ggml_backend_buffer_get_base(hb) != NULL,
                "%s: pinned host buffer", props->name);
        if (hb != NULL && ggml_backend_buffer_get_base(hb) != NULL) {
            memset(ggml_backend_buffer_get_base(hb), 0x5a, 4096); // host memory: writable directly
            CHECK(ggml_backend_buffer_get_size(hb) >= 4096, "%s: host buffer size", props->name);
        }
        ggml_backend_buffer_free(hb);
    }

    ggml_free(ctx);
    ggml_backend_free(backend);
}

static void list_devices(void) {
    const size_t n_regs = ggml_backend_reg_count();
    CHECK(n_regs >= 1, "no registry");
    size_t devs_in_regs = 0;
    for (size_t i = 0; i < n_regs; i++) {
        ggml_backend_reg_t reg = ggml_backend_reg_get(i);
        CHECK(reg != NULL && ggml_backend_reg_name(reg) != NULL, "registry %zu", i);
        CHECK(ggml_backend_reg_by_name(ggml_backend_reg_name(reg)) == reg, "reg_by_name(%s)", ggml_backend_reg_name(reg));
        devs_in_regs += ggml_backend_reg_dev_count(reg);
        for (size_t j = 0; j < ggml_backend_reg_dev_count(reg); j++) {
            ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, j);
            CHECK(ggml_backend_dev_backend_reg(dev) == reg, "device %s does not name its registry", ggml_backend_dev_name(dev));
        }
    }
    CHECK(devs_in_regs == ggml_backend_dev_count(), "%zu devices in registries, %zu in the device list", devs_in_regs,
            ggml_backend_dev_count());

    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        struct ggml_backend_dev_props props;
        ggml_backend_dev_get_props(dev, &props);
        size_t free_mem = 0, total_mem = 0;
        ggml_backend_dev_memory(dev, &free_mem, &total_mem);

        printf("  device %zu: %s (%s), type %s, %zu/%zu MiB free, async %d, host buffer %d, from host ptr %d, events %d\n",
                i, props.name, props.description, type_str(props.type), free_mem / (1024 * 1024), total_mem / (1024 * 1024),
                props.caps.async, props.caps.host_buffer, props.caps.buffer_from_host_ptr, props.caps.events);

        CHECK(props.name != NULL && strcmp(props.name, ggml_backend_dev_name(dev)) == 0, "props.name");
        CHECK(props.description != NULL && strcmp(props.description, ggml_backend_dev_description(dev)) == 0, "props.description");
        CHECK(props.type == ggml_backend_dev_type(dev), "props.type");
        CHECK(props.memory_free == free_mem && props.memory_total == total_mem, "props memory");
        CHECK(free_mem <= total_mem, "free %zu > total %zu", free_mem, total_mem);
        CHECK(ggml_backend_dev_by_name(props.name) == dev, "dev_by_name(%s)", props.name);
        CHECK(ggml_backend_dev_buffer_type(dev) != NULL, "%s has no buffer type", props.name);
        // the shared host buffer type names no device (as in the family); any other names its own
        ggml_backend_dev_t buft_dev = ggml_backend_buft_get_device(ggml_backend_dev_buffer_type(dev));
        CHECK(buft_dev == dev || (buft_dev == NULL && ggml_backend_buft_is_host(ggml_backend_dev_buffer_type(dev))),
                "%s: buffer type's device", props.name);
        CHECK(ggml_backend_dev_supports_buft(dev, ggml_backend_dev_buffer_type(dev)), "%s: own buffer type", props.name);
        if (props.caps.host_buffer) {
            CHECK(ggml_backend_dev_host_buffer_type(dev) != NULL, "%s: host_buffer cap without a host buffer type", props.name);
        }
        use_device(dev, &props);
    }
}

static void cpu_device(void) {
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    CHECK(cpu != NULL, "no CPU device");
    if (cpu == NULL) {
        return;
    }
    // lookups by name ignore case
    CHECK(ggml_backend_dev_by_name("cpu") == cpu, "dev_by_name(\"cpu\")");
    CHECK(ggml_backend_dev_by_name("no such device") == NULL, "unknown device name found");
    CHECK(ggml_backend_reg_by_name("cpu") == ggml_backend_dev_backend_reg(cpu), "reg_by_name(\"cpu\")");
    CHECK(ggml_backend_buft_is_host(ggml_backend_dev_buffer_type(cpu)), "CPU buffer type is not host memory");

    struct ggml_backend_dev_props props;
    ggml_backend_dev_get_props(cpu, &props);
    CHECK(props.caps.buffer_from_host_ptr, "CPU device cannot wrap host memory");

    // wrap existing memory in a buffer, as mmap-based model loaders do
    static float host_mem[256];
    for (int i = 0; i < 256; i++) {
        host_mem[i] = (float) i;
    }
    ggml_backend_buffer_t wrapped = ggml_backend_dev_buffer_from_host_ptr(cpu, host_mem, sizeof(host_mem), sizeof(host_mem));
    CHECK(wrapped != NULL && ggml_backend_buffer_get_base(wrapped) == (void *) host_mem, "buffer_from_host_ptr");
    ggml_backend_buffer_free(wrapped);
    CHECK(host_mem[255] == 255.0f, "freeing a wrapping buffer touched the memory");

    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(cpu);

    // backend-specific functions by name: the set_n_threads hook the op test tool uses
    ggml_backend_set_n_threads_t set_n_threads =
        (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    CHECK(set_n_threads != NULL, "CPU registry lacks ggml_backend_set_n_threads");

    // extra buffer types (NULL-terminated list), as llama.cpp walks them
    ggml_backend_dev_get_extra_bufts_t get_extra_bufts =
        (ggml_backend_dev_get_extra_bufts_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts");
    if (get_extra_bufts != NULL) {
        ggml_backend_buffer_type_t * extra = get_extra_bufts(cpu);
        int n = 0;
        while (extra != NULL && *extra != NULL && n < 64) {
            printf("  extra buffer type: %s\n", ggml_backend_buft_name(*extra));
            extra++;
            n++;
        }
        CHECK(n < 64, "extra buffer type list not terminated");
    }

    // features: {name, value} pairs ending with a NULL name
    ggml_backend_get_features_t get_features =
        (ggml_backend_get_features_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features");
    if (get_features != NULL) {
        int n = 0;
        for (struct ggml_backend_feature * f = get_features(reg); f != NULL && f->name != NULL && n < 256; f++, n++) {
            CHECK(f->value != NULL, "feature %s has no value", f->name);
        }
        CHECK(n < 256, "feature list not terminated");
    }
    CHECK(ggml_backend_reg_get_proc_address(reg, "ggml_backend_no_such_function") == NULL, "unknown proc address found");

    // backends by name and by type
    ggml_backend_t b1 = ggml_backend_init_by_name("CPU", NULL);
    ggml_backend_t b2 = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    CHECK(b1 != NULL && b2 != NULL && b1 != b2, "init_by_name / init_by_type");
    if (b1 != NULL && b2 != NULL) {
        CHECK(ggml_backend_is_cpu(b1) && ggml_backend_is_cpu(b2), "not CPU backends");
        CHECK(ggml_backend_get_device(b1) == cpu, "backend's device");
        if (set_n_threads != NULL) {
            set_n_threads(b1, 2);
        }
    }
    ggml_backend_free(b1);
    ggml_backend_free(b2);
    CHECK(ggml_backend_init_by_name("no such device", NULL) == NULL, "init_by_name of an unknown device");
}

static void compute_on_best(void) {
    ggml_backend_t backend = ggml_backend_init_best();
    CHECK(backend != NULL, "ggml_backend_init_best returned NULL");
    if (backend == NULL) {
        return;
    }
    ggml_backend_dev_t dev = ggml_backend_get_device(backend);
    printf("  best backend: %s on %s\n", ggml_backend_name(backend), ggml_backend_dev_name(dev));

    // the best device is a GPU when there is one, else an integrated GPU, else the CPU
    bool has_gpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU) != NULL;
    bool has_igpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU) != NULL;
    enum ggml_backend_dev_type want = has_gpu ? GGML_BACKEND_DEVICE_TYPE_GPU
                                    : has_igpu ? GGML_BACKEND_DEVICE_TYPE_IGPU : GGML_BACKEND_DEVICE_TYPE_CPU;
    CHECK(ggml_backend_dev_type(dev) == want, "best device is %s, expected %s", type_str(ggml_backend_dev_type(dev)),
            type_str(want));

    struct ggml_init_params params = { ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true };
    struct ggml_context * ctx = ggml_init(params);
    GGML_ASSERT(ctx != NULL);
    struct ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 100);
    ggml_set_input(x);
    struct ggml_tensor * y = ggml_sqr(ctx, ggml_add1(ctx, x, ggml_arange(ctx, 1.0f, 2.0f, 1.0f)));
    ggml_set_output(y);
    struct ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);

    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(backend));
    GGML_ASSERT(galloc != NULL);
    CHECK(ggml_gallocr_alloc_graph(galloc, gf), "alloc_graph");
    float xs[100];
    for (int i = 0; i < 100; i++) {
        xs[i] = 0.5f * (float) i - 20.0f;
    }
    ggml_backend_tensor_set(x, xs, 0, sizeof(xs));
    enum ggml_status st = ggml_backend_graph_compute(backend, gf);
    CHECK(st == GGML_STATUS_SUCCESS, "compute on %s: %s", ggml_backend_name(backend), ggml_status_to_string(st));
    float ys[100];
    ggml_backend_tensor_get(y, ys, 0, sizeof(ys));
    for (int i = 0; i < 100; i++) {
        const double ref = ((double) xs[i] + 1.0) * ((double) xs[i] + 1.0);
        CHECK(fabs(ys[i] - ref) <= 1e-6 * (1.0 + ref), "y[%d] = %g, expected %g", i, ys[i], ref);
    }
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
    ggml_backend_free(backend);
}

int main(void) {
    ggml_backend_load_all();
    // loading twice registers nothing twice
    const size_t n_devs = ggml_backend_dev_count();
    const size_t n_regs = ggml_backend_reg_count();
    ggml_backend_load_all();
    CHECK(ggml_backend_dev_count() == n_devs && ggml_backend_reg_count() == n_regs,
            "second load_all changed the counts: %zu/%zu devices, %zu/%zu registries", ggml_backend_dev_count(), n_devs,
            ggml_backend_reg_count(), n_regs);

    printf("registry: %zu registries, %zu devices\n", n_regs, n_devs);
    list_devices();
    cpu_device();
    compute_on_best();

    printf("registry: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
