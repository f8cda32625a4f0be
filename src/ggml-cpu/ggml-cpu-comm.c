// All-reduce between CPU backends: every tensor is in host memory, so the sum is taken directly
// (in device order, as the meta device's tree would) and copied back to every tensor.

#include "ggml-cpu-comm.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

struct cpu_comm {
    size_t n;
};

void * ggml_backend_cpu_comm_init(ggml_backend_t * backends, size_t n_backends) {
    GGML_CHECK_RET(backends != NULL && n_backends > 0, NULL, "no backends");
    for (size_t j = 0; j < n_backends; j++) {
        if (!ggml_backend_is_cpu(backends[j])) {
            return NULL;
        }
    }
    struct cpu_comm * c = ggml_malloc(sizeof(*c));
    if (c == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    c->n = n_backends;
    return c;
}

void ggml_backend_cpu_comm_free(void * comm_ctx) {
    ggml_free_mem(comm_ctx);
}

bool ggml_backend_cpu_comm_allreduce_tensor(void * comm_ctx, struct ggml_tensor ** tensors) {
    struct cpu_comm * c = comm_ctx;
    if (c == NULL || tensors == NULL) {
        return false;
    }
    const int64_t ne = ggml_nelements(tensors[0]);
    for (size_t j = 0; j < c->n; j++) {
        const struct ggml_tensor * t = tensors[j];
        if (t == NULL || t->type != GGML_TYPE_F32 || !ggml_is_contiguous(t) || ggml_nelements(t) != ne ||
            t->buffer == NULL || !ggml_backend_buffer_is_host(t->buffer) || t->data == NULL) {
            return false; // the caller reduces by other means
        }
    }
    float * acc = tensors[0]->data;
    for (size_t j = 1; j < c->n; j++) {
        const float * x = tensors[j]->data;
        for (int64_t i = 0; i < ne; i++) {
            acc[i] += x[i];
        }
    }
    for (size_t j = 1; j < c->n; j++) {
        memcpy(tensors[j]->data, acc, ggml_nbytes(tensors[0]));
    }
    return true;
}
