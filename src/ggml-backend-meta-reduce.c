// All-reduce for the meta device: the simple devices' registry's communication hooks when they
// all share one registry that has them, otherwise a binary tree over the devices' own
// tensor copies (each one ordered with both streams) and one-node ADD graphs.

#include "ggml-backend-meta-impl.h"
#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

void meta_comm_init(struct meta_comm * comm, ggml_backend_t * backends, size_t n, ggml_backend_dev_t * devs) {
    memset(comm, 0, sizeof(*comm));
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(devs[0]);
    for (size_t j = 1; j < n; j++) {
        if (ggml_backend_dev_backend_reg(devs[j]) != reg) {
            return; // mixed registries: the built-in reduction
        }
    }
    const char * env = getenv("GGML_META_COMM");
    if (reg == NULL || n < 2 || (env != NULL && strcmp(env, "0") == 0)) {
        return; // GGML_META_COMM=0: always the built-in reduction (for tests and comparisons)
    }
    ggml_backend_comm_init_t             init = (ggml_backend_comm_init_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_init");
    ggml_backend_comm_free_t             fr   = (ggml_backend_comm_free_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_free");
    ggml_backend_comm_allreduce_tensor_t ar   = (ggml_backend_comm_allreduce_tensor_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_comm_allreduce_tensor");
    if (init == NULL || fr == NULL || ar == NULL) {
        return;
    }
    comm->ctx = init(backends, n);
    if (comm->ctx != NULL) {
        comm->allreduce = ar;
        comm->free = fr;
    }
}

void meta_comm_free(struct meta_comm * comm) {
    if (comm->ctx != NULL && comm->free != NULL) {
        comm->free(comm->ctx);
    }
    memset(comm, 0, sizeof(*comm));
}

// a copy between two devices' streams, ordered with what both have queued: the streams are not
// ordered with each other, and a copy queued on one can otherwise overtake an ADD still queued on
// the other that reads the same temporary (seen as a wrong sum with OpenCL0 + CPU + OpenCL0)
static void copy_between(ggml_backend_t from, ggml_backend_t to, struct ggml_tensor * src, struct ggml_tensor * dst) {
    ggml_backend_synchronize(from);
    ggml_backend_synchronize(to);
    ggml_backend_tensor_copy_async(from, to, src, dst);
    ggml_backend_synchronize(from);
    ggml_backend_synchronize(to);
}

// tensors[j] += tmp on backend j (queued)
static bool add_into(ggml_backend_t backend, struct ggml_tensor * dst, struct ggml_tensor * tmp, struct ggml_context * ctx) {
    struct ggml_tensor * sum = ggml_add_inplace(ctx, dst, tmp);
    if (sum == NULL) {
        return false;
    }
    sum->buffer = dst->buffer;
    sum->flags |= GGML_TENSOR_FLAG_COMPUTE;
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, 4, false);
    if (gf == NULL) {
        return false;
    }
    ggml_graph_add_node(gf, sum); // only this node: dst's own sources are not to be recomputed
    return ggml_backend_graph_compute_async(backend, gf) == GGML_STATUS_SUCCESS;
}

static bool tree_allreduce(ggml_backend_t * backends, size_t n, struct ggml_tensor ** tensors) {
    struct ggml_context * ctx[META_MAX_DEVS] = {0};
    ggml_backend_buffer_t tmp_buf[META_MAX_DEVS] = {0};
    struct ggml_tensor * tmp[META_MAX_DEVS] = {0};
    const size_t nbytes = ggml_nbytes(tensors[0]);
    bool ok = true;

    // receivers (even positions at the first step) need a temporary tensor
    for (size_t j = 0; j < n && ok; j += 2) {
        if (j + 1 >= n) {
            break;
        }
        struct ggml_init_params ip = { ggml_tensor_overhead()*8 + ggml_graph_overhead_custom(4, false)*6, NULL, true };
        ctx[j] = ggml_init(ip);
        tmp_buf[j] = ctx[j] ? ggml_backend_alloc_buffer(backends[j], nbytes) : NULL;
        tmp[j] = tmp_buf[j] ? ggml_new_tensor(ctx[j], GGML_TYPE_F32, 4, tensors[0]->ne) : NULL;
        ok = tmp[j] != NULL && ggml_backend_tensor_alloc(tmp_buf[j], tmp[j], ggml_backend_buffer_get_base(tmp_buf[j])) == GGML_STATUS_SUCCESS;
    }
    if (ok) {
        for (size_t s = 1; s < n && ok; s *= 2) {
            for (size_t j = 0; j + s < n && ok; j += 2*s) {
                copy_between(backends[j + s], backends[j], tensors[j + s], tmp[j]);
                ok = add_into(backends[j], tensors[j], tmp[j], ctx[j]);
            }
        }
        size_t top = 1;
        while (top < n) {
            top *= 2;
        }
        for (size_t s = top / 2; s >= 1 && ok; s /= 2) {
            for (size_t j = 0; j + s < n; j += 2*s) {
                copy_between(backends[j], backends[j + s], tensors[j], tensors[j + s]);
            }
        }
        for (size_t j = 0; j < n; j++) {
            ggml_backend_synchronize(backends[j]);
        }
    }
    if (!ok) {
        GGML_ERROR_DEFAULT(GGML_ERROR_DEVICE, "%s: the reduction of '%s' failed\n", __func__, tensors[0]->name);
    }
    for (size_t j = 0; j < n; j++) {
        ggml_backend_buffer_free(tmp_buf[j]);
        ggml_free(ctx[j]);
    }
    return ok;
}

bool meta_allreduce(struct meta_comm * comm, ggml_backend_t * backends, size_t n, struct ggml_tensor ** tensors) {
    if (n < 2) {
        return true;
    }
    if (tensors[0]->type != GGML_TYPE_F32) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: partial sums of type %s cannot be reduced\n", __func__, ggml_type_name(tensors[0]->type));
        return false;
    }
    if (comm->allreduce != NULL && comm->allreduce(comm->ctx, tensors)) {
        return true;
    }
    return tree_allreduce(backends, n, tensors);
}
