// The layer check's own test: compiled as if it were a core file (src/ggml-layer-probe.c), this
// calls up into the backend layer, an edge the allow-list does not contain; the check must fail.

#include "ggml-backend.h"

int ggml_layer_probe(ggml_backend_buffer_t buffer);

int ggml_layer_probe(ggml_backend_buffer_t buffer) {
    return ggml_backend_buffer_is_host(buffer) ? 1 : 0;
}
