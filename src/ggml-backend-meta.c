// The meta device and its backend: one logical device made of 1 to 16 simple devices. The
// device owns one buffer type (ggml-backend-meta-buffer.c); its backend holds one simple backend
// per device and computes graphs slice by slice (ggml-backend-meta-graph.c).

#include "ggml-backend-meta-impl.h"
#include "ggml-backend-meta-graph.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct ggml_backend_buffer_type_i meta_buft_iface;

// meta devices live as long as the process, like registered devices; the same arguments give
// the same device
static pthread_mutex_t       g_meta_lock = PTHREAD_MUTEX_INITIALIZER;
static struct meta_device ** g_meta_devs;
static size_t                g_meta_n_devs;
static size_t                g_meta_cap;

static const char * meta_dev_get_name(ggml_backend_dev_t dev) {
    return ((struct meta_device *) dev->context)->name;
}

static const char * meta_dev_get_description(ggml_backend_dev_t dev) {
    return ((struct meta_device *) dev->context)->description;
}

static void meta_dev_get_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    struct meta_device * md = dev->context;
    *free_mem = 0;
    *total = 0;
    for (size_t j = 0; j < md->n_devs; j++) {
        bool seen = false; // a device listed twice has its memory once
        for (size_t k = 0; k < j; k++) {
            seen = seen || md->devs[k] == md->devs[j];
        }
        if (!seen) {
            size_t f = 0, t = 0;
            ggml_backend_dev_memory(md->devs[j], &f, &t);
            *free_mem += f;
            *total += t;
        }
    }
}

static enum ggml_backend_dev_type meta_dev_get_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return GGML_BACKEND_DEVICE_TYPE_META;
}

static void meta_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    struct meta_device * md = dev->context;
    props->name = md->name;
    props->description = md->description;
    meta_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->type = GGML_BACKEND_DEVICE_TYPE_META;
    props->device_id = NULL;
    props->caps.async = false; // graph_compute returns when every device is done
    props->caps.host_buffer = false;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events = false;
    props->caps.mmap_support = false;
}

static ggml_backend_buffer_type_t meta_dev_get_buffer_type(ggml_backend_dev_t dev) {
    return &((struct meta_device *) dev->context)->buft;
}

static bool meta_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    struct meta_device * md = dev->context;
    // an op that writes into a split tensor is computed only as a copy into the whole tensor
    // from one split alike; refuse writes through views and in-place ops up front
    const struct ggml_tensor * vs = op->view_src;
    const bool whole_cpy = op->op == GGML_OP_CPY && op->src[1] != NULL && op->src[1]->view_src == NULL;
    if (vs != NULL && !ggml_op_is_view(op->op) && !whole_cpy && vs->buffer != NULL && meta_buffer_is_meta(vs->buffer)) {
        meta_state s;
        if (!meta_buffer_state(vs->buffer, vs, &s) || meta_state_is_split(&s)) {
            return false;
        }
    }
    // every op runs on every device (on slices or whole tensors), so each must support it
    for (size_t j = 0; j < md->n_devs; j++) {
        if (!ggml_backend_dev_supports_op(md->devs[j], op)) {
            return false;
        }
    }
    return true;
}

static bool meta_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    return buft == &((struct meta_device *) dev->context)->buft;
}

static ggml_backend_t meta_dev_init_backend(ggml_backend_dev_t dev, const char * params);

static const struct ggml_backend_device_i meta_dev_iface = {
    /* .get_name             = */ meta_dev_get_name,
    /* .get_description      = */ meta_dev_get_description,
    /* .get_memory           = */ meta_dev_get_memory,
    /* .get_type             = */ meta_dev_get_type,
    /* .get_props            = */ meta_dev_get_props,
    /* .init_backend         = */ meta_dev_init_backend,
    /* .get_buffer_type      = */ meta_dev_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ meta_dev_supports_op,
    /* .supports_buft        = */ meta_dev_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ NULL,
    /* .event_free           = */ NULL,
    /* .event_synchronize    = */ NULL,
};

ggml_backend_dev_t ggml_backend_meta_device(ggml_backend_dev_t * devs, size_t n_devs,
        ggml_backend_meta_get_split_state_t get_split_state, void * get_split_state_ud) {
    GGML_CHECK_RET(devs != NULL, NULL, "devs is NULL");
    GGML_CHECK_RET(n_devs >= 1 && n_devs <= META_MAX_DEVS, NULL, "n_devs = %zu is not in [1, %d]", n_devs, META_MAX_DEVS);
    for (size_t j = 0; j < n_devs; j++) {
        GGML_CHECK_RET(devs[j] != NULL, NULL, "devs[%zu] is NULL", j);
        GGML_CHECK_RET(devs[j]->iface.get_type != meta_dev_get_type, NULL, "devs[%zu] is a meta device", j);
    }
    pthread_mutex_lock(&g_meta_lock);
    for (size_t i = 0; i < g_meta_n_devs; i++) {
        struct meta_device * md = g_meta_devs[i];
        if (md->n_devs == n_devs && md->get_split_state == get_split_state && md->get_split_state_ud == get_split_state_ud &&
            memcmp(md->devs, devs, n_devs * sizeof(devs[0])) == 0) {
            pthread_mutex_unlock(&g_meta_lock);
            return &md->device;
        }
    }
    struct meta_device * md = ggml_calloc(1, sizeof(*md));
    struct meta_device ** grown = md ? ggml_grow_array(g_meta_devs, &g_meta_cap, g_meta_n_devs + 1, sizeof(*grown), 4) : NULL;
    if (grown == NULL) {
        pthread_mutex_unlock(&g_meta_lock);
        ggml_free_mem(md);
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    g_meta_devs = grown;
    md->n_devs = n_devs;
    memcpy(md->devs, devs, n_devs * sizeof(devs[0]));
    md->get_split_state = get_split_state;
    md->get_split_state_ud = get_split_state_ud;
    size_t p = (size_t) snprintf(md->name, sizeof(md->name), "Meta(");
    size_t q = (size_t) snprintf(md->description, sizeof(md->description), "tensor parallel over ");
    for (size_t j = 0; j < n_devs; j++) {
        if (p < sizeof(md->name)) {
            p += (size_t) snprintf(md->name + p, sizeof(md->name) - p, "%s%s", j ? "," : "", ggml_backend_dev_name(devs[j]));
        }
        if (q < sizeof(md->description)) {
            q += (size_t) snprintf(md->description + q, sizeof(md->description) - q, "%s%s", j ? ", " : "", ggml_backend_dev_description(devs[j]));
        }
    }
    if (p < sizeof(md->name)) {
        snprintf(md->name + p, sizeof(md->name) - p, ")");
    }
    md->buft.iface = meta_buft_iface;
    md->buft.device = &md->device;
    md->buft.context = md;
    md->device.iface = meta_dev_iface;
    md->device.reg = NULL; // not part of any registry, as in the family
    md->device.context = md;
    g_meta_devs[g_meta_n_devs++] = md;
    pthread_mutex_unlock(&g_meta_lock);
    return &md->device;
}

// --- backend ---

static ggml_guid_t meta_guid(void) {
    static ggml_guid guid = { 0x6d, 0x65, 0x74, 0x61, 0x2d, 0x74, 0x70, 0x21, 0x5a, 0x13, 0x8e, 0x02, 0xc4, 0x77, 0x31, 0xb9 };
    return &guid;
}

static const char * meta_backend_get_name(ggml_backend_t backend) {
    return ((struct meta_backend *) backend->context)->md->name;
}

static void meta_backend_free(ggml_backend_t backend) {
    struct meta_backend * mb = backend->context;
    meta_comm_free(&mb->comm);
    for (size_t j = 0; j < mb->md->n_devs; j++) {
        ggml_backend_free(mb->backends[j]);
    }
    ggml_free_mem(mb);
    ggml_free_mem(backend);
}

static void meta_backend_synchronize(ggml_backend_t backend) {
    struct meta_backend * mb = backend->context;
    for (size_t j = 0; j < mb->md->n_devs; j++) {
        ggml_backend_synchronize(mb->backends[j]);
    }
}

static const struct ggml_backend_i meta_backend_iface = {
    /* .get_name            = */ meta_backend_get_name,
    /* .free                = */ meta_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ meta_backend_synchronize,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ meta_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

static ggml_backend_t meta_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    struct meta_device * md = dev->context;
    struct meta_backend * mb = ggml_calloc(1, sizeof(*mb));
    ggml_backend_t backend = mb ? ggml_calloc(1, sizeof(*backend)) : NULL;
    if (backend == NULL) {
        ggml_free_mem(mb);
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    mb->md = md;
    size_t n_cpu = 0;
    for (size_t j = 0; j < md->n_devs; j++) {
        mb->backends[j] = ggml_backend_dev_init(md->devs[j], params);
        if (mb->backends[j] == NULL) {
            GGML_ERROR_DEFAULT(GGML_ERROR_DEVICE, "%s: %s: device %zu (%s) gave no backend\n", __func__, md->name, j, ggml_backend_dev_name(md->devs[j]));
            for (size_t k = 0; k < j; k++) {
                ggml_backend_free(mb->backends[k]);
            }
            ggml_free_mem(mb);
            ggml_free_mem(backend);
            return NULL;
        }
        n_cpu += ggml_backend_dev_type(md->devs[j]) == GGML_BACKEND_DEVICE_TYPE_CPU;
    }
    // CPU devices share the cores: each backend gets its share of the threads
    if (n_cpu > 1) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int share = (int) (cores > 0 ? cores : 1) / (int) n_cpu;
        meta_backend_set_n_threads_cpu(mb, share < 1 ? 1 : share);
    }
    meta_comm_init(&mb->comm, mb->backends, md->n_devs, md->devs);
    backend->guid = meta_guid();
    backend->iface = meta_backend_iface;
    backend->device = dev;
    backend->context = mb;
    return backend;
}

void meta_backend_set_n_threads_cpu(struct meta_backend * mb, int n_threads) {
    for (size_t j = 0; j < mb->md->n_devs; j++) {
        if (ggml_backend_dev_type(mb->md->devs[j]) != GGML_BACKEND_DEVICE_TYPE_CPU) {
            continue;
        }
        ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(mb->md->devs[j]);
        ggml_backend_set_n_threads_t fn = reg ? (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads") : NULL;
        if (fn != NULL) {
            fn(mb->backends[j], n_threads);
        }
    }
}

// --- helpers declared in ggml-backend-impl.h ---

bool ggml_backend_is_meta(ggml_backend_t backend) {
    return backend != NULL && ggml_guid_matches(backend->guid, meta_guid());
}

bool ggml_backend_buffer_is_meta(ggml_backend_buffer_t buf) {
    return meta_buffer_is_meta(buf);
}

bool ggml_backend_buft_is_meta(ggml_backend_buffer_type_t buft) {
    return meta_buft_is_meta(buft);
}

size_t ggml_backend_meta_n_backends(ggml_backend_t meta_backend) {
    GGML_CHECK_RET(ggml_backend_is_meta(meta_backend), 0, "not a meta backend");
    return ((struct meta_backend *) meta_backend->context)->md->n_devs;
}

ggml_backend_t ggml_backend_meta_simple_backend(ggml_backend_t meta_backend, size_t index) {
    GGML_CHECK_RET(ggml_backend_is_meta(meta_backend), NULL, "not a meta backend");
    struct meta_backend * mb = meta_backend->context;
    GGML_CHECK_RET(index < mb->md->n_devs, NULL, "index %zu is not below %zu", index, mb->md->n_devs);
    return mb->backends[index];
}
