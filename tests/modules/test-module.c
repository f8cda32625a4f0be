// A tiny backend module for the registry tests (tests/test-backend-reg.c), built several times as
// libggml-<name>[-<variant>].so with different compile definitions:
//
//   TESTMOD_SCORE=n       value returned by ggml_backend_score (0: "not supported here")
//   TESTMOD_VARIANT="s"   name of the build, returned by the proc address "testmod_variant"
//   TESTMOD_NO_INIT       export no ggml_backend_init at all
//   TESTMOD_INIT_NULL     ggml_backend_init returns NULL
//   TESTMOD_BAD_VERSION   the registry carries a wrong api_version
//   TESTMOD_SELF_REGISTER ggml_backend_init also calls ggml_backend_register on its registry
//   TESTMOD_REG_NAME="s"  the registry's name (default "TESTMOD")
//
// The backend ("TESTMOD", one GPU-type device "TestMod0") keeps tensor data in memory of its own
// (its buffers are not host buffers, so everything goes through set/get_tensor) and computes
// GGML_OP_ADD on F32 tensors, with src1 broadcast over src0 as ggml_add allows.

#include "ggml-backend-impl.h"
#include "ggml-backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TESTMOD_SCORE
#    define TESTMOD_SCORE 10
#endif
#ifndef TESTMOD_VARIANT
#    define TESTMOD_VARIANT "base"
#endif
#ifndef TESTMOD_REG_NAME
#    define TESTMOD_REG_NAME "TESTMOD"
#endif

#define TESTMOD_ALIGNMENT 32

// live buffers and backends, so that the test can check that everything was released
static int g_live_objects;

//
// buffers: plain heap memory owned by the module
//

struct testmod_buffer {
    unsigned char * data;
    size_t size;
};

static void testmod_buffer_free(ggml_backend_buffer_t buffer) {
    struct testmod_buffer * ctx = buffer->context;
    free(ctx->data);
    free(ctx);
    g_live_objects--;
}

static void * testmod_buffer_get_base(ggml_backend_buffer_t buffer) {
    struct testmod_buffer * ctx = buffer->context;
    return ctx->data;
}

static unsigned char * testmod_tensor_ptr(const struct ggml_tensor * tensor, size_t offset) {
    return (unsigned char *) tensor->data + offset;
}

static void testmod_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    (void) buffer;
    memset(testmod_tensor_ptr(tensor, offset), value, size);
}

static void testmod_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy(testmod_tensor_ptr(tensor, offset), data, size);
}

static void testmod_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy(data, testmod_tensor_ptr(tensor, offset), size);
}

static void testmod_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct testmod_buffer * ctx = buffer->context;
    memset(ctx->data, value, ctx->size);
}

static const struct ggml_backend_buffer_i testmod_buffer_iface = {
    /* .free_buffer   = */ testmod_buffer_free,
    /* .get_base      = */ testmod_buffer_get_base,
    /* .init_tensor   = */ NULL,
    /* .memset_tensor = */ testmod_buffer_memset_tensor,
    /* .set_tensor    = */ testmod_buffer_set_tensor,
    /* .get_tensor    = */ testmod_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ NULL,
    /* .clear         = */ testmod_buffer_clear,
    /* .reset         = */ NULL,
};

static const char * testmod_buft_get_name(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return "TESTMOD";
}

static ggml_backend_buffer_t testmod_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct testmod_buffer * ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        return NULL;
    }
    ctx->size = size;
    ctx->data = aligned_alloc(TESTMOD_ALIGNMENT, (size + TESTMOD_ALIGNMENT - 1) / TESTMOD_ALIGNMENT * TESTMOD_ALIGNMENT);
    if (ctx->data == NULL) {
        free(ctx);
        return NULL;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, testmod_buffer_iface, ctx, size);
    if (buffer == NULL) {
        free(ctx->data);
        free(ctx);
        return NULL;
    }
    g_live_objects++;
    return buffer;
}

static size_t testmod_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return TESTMOD_ALIGNMENT;
}

static struct ggml_backend_buffer_type testmod_buft = {
    /* .iface = */ {
        /* .get_name       = */ testmod_buft_get_name,
        /* .alloc_buffer   = */ testmod_buft_alloc_buffer,
        /* .get_alignment  = */ testmod_buft_get_alignment,
        /* .get_max_size   = */ NULL,
        /* .get_alloc_size = */ NULL,
        /* .is_host        = */ NULL, // not host memory as far as the framework knows
    },
    /* .device  = */ NULL, // set at registry creation
    /* .context = */ NULL,
};

//
// backend (stream)
//

static const char * testmod_backend_get_name(ggml_backend_t backend) {
    (void) backend;
    return "TestMod";
}

static void testmod_backend_free(ggml_backend_t backend) {
    free(backend);
    g_live_objects--;
}

static bool testmod_is_noop(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE ||
           op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

static bool testmod_add_ok(const struct ggml_tensor * t) {
    const struct ggml_tensor * a = t->src[0];
    const struct ggml_tensor * b = t->src[1];
    if (a == NULL || b == NULL || t->type != GGML_TYPE_F32 || a->type != GGML_TYPE_F32 || b->type != GGML_TYPE_F32) {
        return false;
    }
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        if (a->ne[d] != t->ne[d] || b->ne[d] == 0 || a->ne[d] % b->ne[d] != 0) {
            return false;
        }
    }
    return true;
}

// dst = src0 + src1, src1 repeated along every dimension where it is smaller
static void testmod_compute_add(struct ggml_tensor * t) {
    const struct ggml_tensor * a = t->src[0];
    const struct ggml_tensor * b = t->src[1];
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < t->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < t->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
                    const char * pa = (const char *) a->data + i0*a->nb[0] + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3];
                    const char * pb = (const char *) b->data + (i0 % b->ne[0])*b->nb[0] + (i1 % b->ne[1])*b->nb[1] +
                                                               (i2 % b->ne[2])*b->nb[2] + (i3 % b->ne[3])*b->nb[3];
                    char * pd = (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
                    *(float *) pd = *(const float *) pa + *(const float *) pb;
                }
            }
        }
    }
}

static enum ggml_status testmod_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    (void) backend;
    const int n = ggml_graph_n_nodes(cgraph);
    for (int i = 0; i < n; i++) {
        struct ggml_tensor * t = ggml_graph_node(cgraph, i);
        if (testmod_is_noop(t->op)) {
            continue;
        }
        if (t->op != GGML_OP_ADD || !testmod_add_ok(t)) {
            return GGML_STATUS_FAILED;
        }
        testmod_compute_add(t);
    }
    return GGML_STATUS_SUCCESS;
}

static const struct ggml_backend_i testmod_backend_iface = {
    /* .get_name            = */ testmod_backend_get_name,
    /* .free                = */ testmod_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ NULL,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ testmod_backend_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

static ggml_guid testmod_guid = { 0x7e, 0x57, 0x30, 0x0d, 0x01, 0x02, 0x03, 0x04,
                                  0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c };

//
// device
//

static const char * testmod_dev_get_name(ggml_backend_dev_t dev) {
    (void) dev;
    return "TestMod0";
}

static const char * testmod_dev_get_description(ggml_backend_dev_t dev) {
    (void) dev;
    return "registry test module, variant " TESTMOD_VARIANT;
}

static void testmod_dev_get_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = (size_t) 1 << 30;
    *total    = (size_t) 1 << 30;
}

static enum ggml_backend_dev_type testmod_dev_get_type(ggml_backend_dev_t dev) {
    (void) dev;
    return GGML_BACKEND_DEVICE_TYPE_GPU;
}

static void testmod_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name        = testmod_dev_get_name(dev);
    props->description = testmod_dev_get_description(dev);
    props->type        = testmod_dev_get_type(dev);
    testmod_dev_get_memory(dev, &props->memory_free, &props->memory_total);
}

static ggml_backend_t testmod_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    if (backend == NULL) {
        return NULL;
    }
    backend->guid    = &testmod_guid;
    backend->iface   = testmod_backend_iface;
    backend->device  = dev;
    backend->context = NULL;
    g_live_objects++;
    return backend;
}

static ggml_backend_buffer_type_t testmod_dev_get_buffer_type(ggml_backend_dev_t dev) {
    (void) dev;
    return &testmod_buft;
}

static bool testmod_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    (void) dev;
    return testmod_is_noop(op->op) || (op->op == GGML_OP_ADD && testmod_add_ok(op));
}

static bool testmod_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    (void) dev;
    return buft == &testmod_buft;
}

static const struct ggml_backend_device_i testmod_dev_iface = {
    /* .get_name             = */ testmod_dev_get_name,
    /* .get_description      = */ testmod_dev_get_description,
    /* .get_memory           = */ testmod_dev_get_memory,
    /* .get_type             = */ testmod_dev_get_type,
    /* .get_props            = */ testmod_dev_get_props,
    /* .init_backend         = */ testmod_dev_init_backend,
    /* .get_buffer_type      = */ testmod_dev_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ testmod_dev_supports_op,
    /* .supports_buft        = */ testmod_dev_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ NULL,
    /* .event_free           = */ NULL,
    /* .event_synchronize    = */ NULL,
};

//
// registry and entry points
//

static const char * testmod_variant(void) {
    return TESTMOD_VARIANT;
}

static int testmod_live_objects(void) {
    return g_live_objects;
}

static const char * testmod_reg_get_name(ggml_backend_reg_t reg) {
    (void) reg;
    return TESTMOD_REG_NAME;
}

static size_t testmod_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    return 1;
}

static struct ggml_backend_device testmod_device;

static ggml_backend_dev_t testmod_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    return index == 0 ? &testmod_device : NULL;
}

static void * testmod_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    (void) reg;
    // function pointers handed out through void *, as the proc-address mechanism requires
    void * p = NULL;
    if (strcmp(name, "testmod_variant") == 0) {
        const char * (*fn)(void) = testmod_variant;
        memcpy(&p, &fn, sizeof(p));
    } else if (strcmp(name, "testmod_live_objects") == 0) {
        int (*fn)(void) = testmod_live_objects;
        memcpy(&p, &fn, sizeof(p));
    }
    return p;
}

static struct ggml_backend_reg testmod_reg = {
#ifdef TESTMOD_BAD_VERSION
    /* .api_version = */ GGML_BACKEND_API_VERSION + 1000,
#else
    /* .api_version = */ GGML_BACKEND_API_VERSION,
#endif
    /* .iface = */ {
        /* .get_name         = */ testmod_reg_get_name,
        /* .get_device_count = */ testmod_reg_get_device_count,
        /* .get_device       = */ testmod_reg_get_device,
        /* .get_proc_address = */ testmod_reg_get_proc_address,
    },
    /* .context = */ NULL,
};

static ggml_backend_reg_t testmod_backend_reg(void) {
    testmod_device.iface   = testmod_dev_iface;
    testmod_device.reg     = &testmod_reg;
    testmod_device.context = NULL;
    testmod_buft.device    = &testmod_device;
#if defined(TESTMOD_INIT_NULL)
    return NULL;
#elif defined(TESTMOD_SELF_REGISTER)
    ggml_backend_register(&testmod_reg);
    return &testmod_reg;
#else
    return &testmod_reg;
#endif
}

static int testmod_score(void) {
    return TESTMOD_SCORE;
}

GGML_BACKEND_DL_SCORE_IMPL(testmod_score)

#ifdef TESTMOD_NO_INIT
// exports something, just not the entry point
GGML_BACKEND_API ggml_backend_reg_t testmod_not_the_entry_point(void);
ggml_backend_reg_t testmod_not_the_entry_point(void) {
    return testmod_backend_reg();
}
#else
GGML_BACKEND_DL_IMPL(testmod_backend_reg)
#endif
