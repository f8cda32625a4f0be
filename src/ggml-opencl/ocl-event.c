// Events of the OpenCL backend: an event holds the cl_event of a marker enqueued on a backend's
// queue (record); another queue waits for it with a barrier (wait); the host waits with
// clWaitForEvents (synchronize). An event never recorded is complete.

#include "ggml-opencl-impl.h"

struct ggml_ocl_event {
    struct ggml_ocl_device * dev;
    cl_event ev; // NULL until recorded
};

ggml_backend_event_t ggml_ocl_event_new(ggml_backend_dev_t dev) {
    struct ggml_ocl_device * d = ggml_ocl_device_from_dev(dev);
    if (d == NULL) {
        GGML_LOG_ERROR("%s: not an OpenCL device\n", __func__);
        return NULL;
    }
    struct ggml_ocl_event * e = ggml_calloc(1, sizeof(*e));
    struct ggml_backend_event * event = ggml_calloc(1, sizeof(*event));
    if (e == NULL || event == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        ggml_free_mem(e);
        ggml_free_mem(event);
        return NULL;
    }
    e->dev = d;
    event->device  = dev;
    event->context = e;
    return event;
}

void ggml_ocl_event_free(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    (void) dev;
    if (event == NULL) {
        return;
    }
    struct ggml_ocl_event * e = event->context;
    if (e != NULL && e->ev != NULL) {
        GGML_OCL_OK(clReleaseEvent(e->ev), "clReleaseEvent");
    }
    ggml_free_mem(e);
    ggml_free_mem(event);
}

void ggml_ocl_event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    (void) dev;
    struct ggml_ocl_event * e = event->context;
    if (e->ev != NULL) {
        GGML_OCL_OK(clWaitForEvents(1, &e->ev), "clWaitForEvents");
    }
}

void ggml_ocl_event_record(ggml_backend_t backend, ggml_backend_event_t event) {
    struct ggml_ocl_backend * be = ggml_ocl_backend_ctx(backend);
    struct ggml_ocl_event * e = event->context;
    if (be == NULL || e == NULL) {
        GGML_LOG_ERROR("%s: not an OpenCL backend or event\n", __func__);
        return;
    }
    if (e->dev->platform != be->dev->platform) {
        GGML_LOG_ERROR("%s: event of %s recorded on %s, which is in another OpenCL context\n", __func__, e->dev->name, be->name);
        return;
    }
    cl_event marker = NULL;
    // a stream whose events fail loses its ordering: kept for its next graph_compute
    if (!GGML_OCL_STREAM_OK(backend, clEnqueueMarkerWithWaitList(be->queue, 0, NULL, &marker), "clEnqueueMarkerWithWaitList")) {
        return;
    }
    if (e->ev != NULL) {
        GGML_OCL_OK(clReleaseEvent(e->ev), "clReleaseEvent");
    }
    e->ev = marker;
    // markers are not sent to the device until the queue is flushed: without this, a host
    // waiting for the event (or another queue) could wait forever
    GGML_OCL_STREAM_OK(backend, clFlush(be->queue), "clFlush");
}

void ggml_ocl_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    struct ggml_ocl_backend * be = ggml_ocl_backend_ctx(backend);
    struct ggml_ocl_event * e = event->context;
    if (be == NULL || e == NULL) {
        GGML_LOG_ERROR("%s: not an OpenCL backend or event\n", __func__);
        return;
    }
    if (e->ev == NULL) {
        return;
    }
    if (e->dev->platform != be->dev->platform) {
        // another context: the queue cannot wait for it, the host can
        GGML_OCL_STREAM_OK(backend, clWaitForEvents(1, &e->ev), "clWaitForEvents");
        return;
    }
    GGML_OCL_STREAM_OK(backend, clEnqueueBarrierWithWaitList(be->queue, 1, &e->ev, NULL), "clEnqueueBarrierWithWaitList");
}
