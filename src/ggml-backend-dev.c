// The wrapper layer for events and devices: argument checks and the defaults for interface
// members a device leaves NULL. Nothing here aborts.

#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <string.h>

//
// events
//

ggml_backend_event_t ggml_backend_event_new(ggml_backend_dev_t device) {
    if (device == NULL) {
        GGML_LOG_ERROR("%s: device is NULL\n", __func__);
        return NULL;
    }
    if (device->iface.event_new == NULL) {
        // not an error: callers fall back to full synchronization
        return NULL;
    }
    ggml_backend_event_t event = device->iface.event_new(device);
    if (event == NULL) {
        GGML_LOG_ERROR("%s: device %s failed to create an event\n", __func__, ggml_backend_dev_name(device));
    }
    return event;
}

void ggml_backend_event_free(ggml_backend_event_t event) {
    if (event == NULL) {
        return;
    }
    if (event->device == NULL || event->device->iface.event_free == NULL) {
        GGML_LOG_ERROR("%s: the event's device cannot free it\n", __func__);
        return;
    }
    event->device->iface.event_free(event->device, event);
}

void ggml_backend_event_record(ggml_backend_event_t event, ggml_backend_t backend) {
    if (event == NULL || backend == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, event == NULL ? "event" : "backend");
        return;
    }
    if (backend->iface.event_record == NULL) {
        GGML_LOG_ERROR("%s: backend %s does not support events\n", __func__, ggml_backend_name(backend));
        return;
    }
    backend->iface.event_record(backend, event);
}

void ggml_backend_event_synchronize(ggml_backend_event_t event) {
    if (event == NULL) {
        GGML_LOG_ERROR("%s: event is NULL\n", __func__);
        return;
    }
    if (event->device == NULL || event->device->iface.event_synchronize == NULL) {
        GGML_LOG_ERROR("%s: the event's device cannot synchronize it\n", __func__);
        return;
    }
    event->device->iface.event_synchronize(event->device, event);
}

void ggml_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    if (event == NULL || backend == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, event == NULL ? "event" : "backend");
        return;
    }
    if (backend->iface.event_wait == NULL) {
        GGML_LOG_ERROR("%s: backend %s does not support events\n", __func__, ggml_backend_name(backend));
        return;
    }
    backend->iface.event_wait(backend, event);
}

//
// device
//

#define DEV_CHECK(device, ret) do {                                   \
        if ((device) == NULL) {                                       \
            GGML_LOG_ERROR("%s: device is NULL\n", __func__);         \
            return ret;                                               \
        }                                                             \
    } while (0)

const char * ggml_backend_dev_name(ggml_backend_dev_t device) {
    DEV_CHECK(device, "NULL");
    if (device->iface.get_name == NULL) {
        return "unnamed";
    }
    return device->iface.get_name(device);
}

const char * ggml_backend_dev_description(ggml_backend_dev_t device) {
    DEV_CHECK(device, "NULL");
    if (device->iface.get_description == NULL) {
        return "";
    }
    return device->iface.get_description(device);
}

void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total) {
    size_t f = 0;
    size_t t = 0;
    if (device == NULL) {
        GGML_LOG_ERROR("%s: device is NULL\n", __func__);
    } else if (device->iface.get_memory != NULL) {
        device->iface.get_memory(device, &f, &t);
    }
    if (free != NULL) {
        *free = f;
    }
    if (total != NULL) {
        *total = t;
    }
}

enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device) {
    DEV_CHECK(device, GGML_BACKEND_DEVICE_TYPE_CPU);
    if (device->iface.get_type == NULL) {
        GGML_LOG_ERROR("%s: device %s does not report its type\n", __func__, ggml_backend_dev_name(device));
        return GGML_BACKEND_DEVICE_TYPE_CPU;
    }
    return device->iface.get_type(device);
}

void ggml_backend_dev_get_props(ggml_backend_dev_t device, struct ggml_backend_dev_props * props) {
    if (props == NULL) {
        GGML_LOG_ERROR("%s: props is NULL\n", __func__);
        return;
    }
    memset(props, 0, sizeof(*props));
    DEV_CHECK(device, );
    if (device->iface.get_props == NULL) {
        // assemble what the other members can tell
        props->name        = ggml_backend_dev_name(device);
        props->description = ggml_backend_dev_description(device);
        props->type        = ggml_backend_dev_type(device);
        ggml_backend_dev_memory(device, &props->memory_free, &props->memory_total);
        return;
    }
    device->iface.get_props(device, props);
}

ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device) {
    DEV_CHECK(device, NULL);
    return device->reg;
}

ggml_backend_t ggml_backend_dev_init(ggml_backend_dev_t device, const char * params) {
    DEV_CHECK(device, NULL);
    if (device->iface.init_backend == NULL) {
        GGML_LOG_ERROR("%s: device %s cannot create backends\n", __func__, ggml_backend_dev_name(device));
        return NULL;
    }
    ggml_backend_t backend = device->iface.init_backend(device, params);
    if (backend == NULL) {
        GGML_LOG_ERROR("%s: device %s failed to create a backend (params: %s)\n",
                __func__, ggml_backend_dev_name(device), params ? params : "none");
    }
    return backend;
}

ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device) {
    DEV_CHECK(device, NULL);
    if (device->iface.get_buffer_type == NULL) {
        GGML_LOG_ERROR("%s: device %s has no buffer type\n", __func__, ggml_backend_dev_name(device));
        return NULL;
    }
    return device->iface.get_buffer_type(device);
}

ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device) {
    DEV_CHECK(device, NULL);
    if (device->iface.get_host_buffer_type == NULL) {
        return NULL;
    }
    return device->iface.get_host_buffer_type(device);
}

ggml_backend_buffer_t ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size, size_t max_tensor_size) {
    DEV_CHECK(device, NULL);
    if (ptr == NULL && size != 0) {
        GGML_LOG_ERROR("%s: ptr is NULL (size %zu)\n", __func__, size);
        return NULL;
    }
    if (device->iface.buffer_from_host_ptr == NULL) {
        GGML_LOG_ERROR("%s: device %s cannot create buffers from host memory\n", __func__, ggml_backend_dev_name(device));
        return NULL;
    }
    return device->iface.buffer_from_host_ptr(device, ptr, size, max_tensor_size);
}

bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    DEV_CHECK(device, false);
    if (op == NULL) {
        GGML_LOG_ERROR("%s: op is NULL\n", __func__);
        return false;
    }
    if (device->iface.supports_op == NULL) {
        return false;
    }
    return device->iface.supports_op(device, op);
}

bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft) {
    DEV_CHECK(device, false);
    if (buft == NULL) {
        GGML_LOG_ERROR("%s: buffer type is NULL\n", __func__);
        return false;
    }
    if (device->iface.supports_buft == NULL) {
        return false;
    }
    return device->iface.supports_buft(device, buft);
}

bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    DEV_CHECK(device, false);
    if (op == NULL) {
        GGML_LOG_ERROR("%s: op is NULL\n", __func__);
        return false;
    }
    if (device->iface.offload_op == NULL) {
        return false;
    }
    return device->iface.offload_op(device, op);
}
