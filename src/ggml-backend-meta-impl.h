#pragma once

// Internals of the meta device (tensor parallelism over several simple devices).
//
// Layout: a meta buffer of size S holds one simple buffer of size S on every device. A tensor at
// offset o of the meta buffer lives at offset o of each simple buffer: its whole value when it is
// mirrored or partial, the device's slice (contiguous, in the slice's own shape) when it is split.
// The meta buffer's base is a fake, never dereferenced address.

#include "ggml-backend-impl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define META_MAX_DEVS GGML_BACKEND_META_MAX_DEVICES

typedef struct ggml_backend_meta_split_state meta_state;

struct meta_device {
    size_t                              n_devs;
    ggml_backend_dev_t                  devs[META_MAX_DEVS];
    ggml_backend_meta_get_split_state_t get_split_state;
    void *                              get_split_state_ud;
    char                                name[256];
    char                                description[512];
    struct ggml_backend_buffer_type     buft;
    struct ggml_backend_device          device;
};

// what the buffer knows about one of its tensors
struct meta_record {
    const struct ggml_tensor * tensor;
    bool       resolved; // state is valid (static tensors resolve on first use)
    meta_state state;
    // weights placed by ggml_backend_meta_alloc_ctx_tensors_from_buft: each device stores only
    // its part, at its own offset (otherwise the tensor's offset in the meta buffer)
    bool       own_offsets;
    size_t     dev_offset[META_MAX_DEVS];
};

struct meta_buffer {
    struct meta_device *  mdev;
    ggml_backend_buffer_t bufs[META_MAX_DEVS];
    char *                fake_base;
    // open-addressing map tensor -> record (records own their memory)
    struct meta_record ** slots;
    size_t                n_slots;
    size_t                n_used;
};

// --- ggml-backend-meta-state.c: split states ---

bool        meta_state_is_split(const meta_state * s);
// normalizes n_segments/nr (0 -> 1) and checks that the state fits the tensor; logs why not
bool        meta_state_validate(meta_state * s, size_t n_devs, const struct ggml_tensor * t, const char * who);
meta_state  meta_state_make(enum ggml_backend_meta_split_axis axis);
// extent of device j along the split axis (all segments and repeats)
int64_t     meta_state_dev_extent(const meta_state * s, size_t n_devs, size_t j);
bool        meta_state_equal(const meta_state * a, const meta_state * b, size_t n_devs);
// the shape of device j's part of a tensor of shape ne
void        meta_state_dev_ne(const meta_state * s, size_t n_devs, size_t j, const int64_t ne[4], int64_t out[4]);
// copies between a whole contiguous tensor (type, ne) in host memory and the devices' contiguous
// slices: to_slices = true scatters full into slices[j], false gathers
void        meta_state_host_copy(const meta_state * s, size_t n_devs, enum ggml_type type, const int64_t ne[4],
                                 char * full, char * const * slices, bool to_slices);
void        meta_state_print(const char * what, const struct ggml_tensor * t, const meta_state * s, size_t n_devs);
bool        meta_debug_enabled(void);

// --- ggml-backend-meta-buffer.c ---

bool                 meta_buft_is_meta(ggml_backend_buffer_type_t buft);
bool                 meta_buffer_is_meta(ggml_backend_buffer_t buffer);
// the record of a tensor placed in a meta buffer (NULL when unknown)
struct meta_record * meta_buffer_record(ggml_backend_buffer_t buffer, const struct ggml_tensor * t);
// the tensor's state, resolving static tensors through the user callback; false (logged) when
// the callback's answer is unusable
bool                 meta_buffer_state(ggml_backend_buffer_t buffer, const struct ggml_tensor * t, meta_state * out);
// device j's address of byte 0 of t's storage (t must not be a view)
void *               meta_buffer_dev_data(ggml_backend_buffer_t buffer, size_t j, const struct ggml_tensor * t);
ggml_backend_buffer_t meta_buffer_dev_buffer(ggml_backend_buffer_t buffer, size_t j);

// --- ggml-backend-meta-reduce.c ---

struct meta_comm {
    void *                               ctx;
    ggml_backend_comm_allreduce_tensor_t allreduce;
    ggml_backend_comm_free_t             free;
};

void meta_comm_init(struct meta_comm * comm, ggml_backend_t * backends, size_t n, ggml_backend_dev_t * devs);
void meta_comm_free(struct meta_comm * comm);
// sums tensors[0..n-1] (one per backend, F32, contiguous, equal shapes) into all of them
bool meta_allreduce(struct meta_comm * comm, ggml_backend_t * backends, size_t n, struct ggml_tensor ** tensors);
