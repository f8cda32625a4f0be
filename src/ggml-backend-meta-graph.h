#pragma once

// The meta device's backend: one simple backend per device and the graph computation that
// derives every tensor's split state and runs each node on every device.

#include "ggml-backend-meta-impl.h"

struct meta_backend {
    struct meta_device * md;
    ggml_backend_t       backends[META_MAX_DEVS];
    struct meta_comm     comm;
    // time spent since creation (microseconds): device graphs, all-reduces, gathers
    int64_t              us_compute;
    int64_t              us_reduce;
    int64_t              us_gather;
};

enum ggml_status meta_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph);
void             meta_backend_set_n_threads_cpu(struct meta_backend * mb, int n_threads);
