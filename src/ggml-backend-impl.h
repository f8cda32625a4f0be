#pragma once

// The backend interface: what a backend implements. Each object (buffer type, buffer, backend,
// event, device, registry) is a struct holding a table of function pointers (`iface`) and a
// context pointer owned by the backend. The wrappers of ggml-backend.h check their arguments and
// supply the defaults documented below for members a backend leaves NULL.
//
// Members and their order follow the ggml family's ggml-backend-impl.h, so that backends written
// for it build against this header. The layout is versioned by GGML_BACKEND_API_VERSION; a
// module built for another version is refused by ggml_backend_load.
//
// Backends must not abort either: report failures through their return values (NULL, false,
// enum ggml_status) and GGML_LOG_ERROR.

#include "ggml-backend.h"

#ifdef  __cplusplus
extern "C" {
#endif

    #define GGML_BACKEND_API_VERSION 2

    //
    // Buffer type
    //

    struct ggml_backend_buffer_type_i {
        const char *          (*get_name)      (ggml_backend_buffer_type_t buft);
        // a new buffer of size bytes (size > 0: the wrapper handles size 0), or NULL on failure
        ggml_backend_buffer_t (*alloc_buffer)  (ggml_backend_buffer_type_t buft, size_t size);
        // alignment of tensor data in buffers of this type (a power of 2)
        size_t                (*get_alignment) (ggml_backend_buffer_type_t buft);
        // optional: largest buffer that can be allocated (default SIZE_MAX)
        size_t                (*get_max_size)  (ggml_backend_buffer_type_t buft);
        // optional: bytes a tensor needs, padding included (default ggml_nbytes; never less)
        size_t                (*get_alloc_size)(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
        // optional: whether the data is host memory in the standard layout (default false)
        bool                  (*is_host)       (ggml_backend_buffer_type_t buft);
    };

    struct ggml_backend_buffer_type {
        struct ggml_backend_buffer_type_i  iface;
        ggml_backend_dev_t device;
        void * context;
    };

    //
    // Buffer
    //

    struct ggml_backend_buffer_i {
        // optional: releases the memory and the context (NULL for buffers that own nothing)
        void         (*free_buffer)  (ggml_backend_buffer_t buffer);
        // address of the first byte (required unless the buffer is empty)
        void *       (*get_base)     (ggml_backend_buffer_t buffer);
        // optional: called once a tensor has been placed in the buffer (e.g. to set tensor->extra)
        enum ggml_status (*init_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
        // tensor data access; offset is relative to tensor->data, and the wrappers have already
        // checked that [offset, offset + size) lies inside the tensor
        void         (*memset_tensor)(ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor,     uint8_t value, size_t offset, size_t size);
        void         (*set_tensor)   (ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
        void         (*get_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
        // optional: n_copies blocks of size bytes at offset + i*stride_tensor in the tensor and
        // i*stride_data in data (default: one set/get_tensor call per block)
        void         (*set_tensor_2d)(ggml_backend_buffer_t buffer,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        void         (*get_tensor_2d)(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        // optional: copies src (in any buffer) into dst (in this buffer); false when it cannot
        bool         (*cpy_tensor)   (ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst);
        // fills the whole buffer with value
        void         (*clear)        (ggml_backend_buffer_t buffer, uint8_t value);
        // optional: drops per-tensor state created by init_tensor
        void         (*reset)        (ggml_backend_buffer_t buffer);
    };

    struct ggml_backend_buffer {
        struct ggml_backend_buffer_i  iface;
        ggml_backend_buffer_type_t    buft;
        void * context;
        size_t size;
        enum ggml_backend_buffer_usage usage;
    };

    // Wraps a backend's buffer: NULL (logged) when out of memory, in which case the caller still
    // owns context. Buffer types call it from alloc_buffer.
    GGML_API ggml_backend_buffer_t ggml_backend_buffer_init(
                   ggml_backend_buffer_type_t buft,
            struct ggml_backend_buffer_i      iface,
                   void *                     context,
                   size_t                     size);

    // copies src into dst through the cpy_tensor of dst's buffer; false when that buffer has none
    // or declines (as in the family). Copies through host memory, and staging between two device
    // buffers, are ggml_backend_tensor_copy's job.
    GGML_API bool ggml_backend_buffer_copy_tensor(const struct ggml_tensor * src, struct ggml_tensor * dst);

    // A buffer bundling several buffers (used when one allocation would exceed a buffer type's
    // max size). It owns them: freeing it frees them; clear and set_usage reach all of them.
    // On failure returns NULL and leaves the buffers to the caller.
    GGML_API ggml_backend_buffer_t ggml_backend_multi_buffer_alloc_buffer(ggml_backend_buffer_t * buffers, size_t n_buffers);
    GGML_API bool                  ggml_backend_buffer_is_multi_buffer(ggml_backend_buffer_t buffer);
    GGML_API void                  ggml_backend_multi_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);

    // the meta device (ggml-backend-meta.c): which objects belong to one, and its simple backends
    GGML_API bool           ggml_backend_is_meta(ggml_backend_t backend);
    GGML_API bool           ggml_backend_buffer_is_meta(ggml_backend_buffer_t buf);
    GGML_API bool           ggml_backend_buft_is_meta(ggml_backend_buffer_type_t buft);
    GGML_API size_t         ggml_backend_meta_n_backends(ggml_backend_t meta_backend);
    GGML_API ggml_backend_t ggml_backend_meta_simple_backend(ggml_backend_t meta_backend, size_t index);
    // ggml_backend_alloc_ctx_tensors_from_buft for a meta buffer type: each device stores only
    // its part of every tensor (its slice, or the whole value when mirrored or partial)
    GGML_API ggml_backend_buffer_t ggml_backend_meta_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft);

    //
    // Backend (stream)
    //

    struct ggml_backend_i {
        const char * (*get_name)(ggml_backend_t backend);

        void (*free)(ggml_backend_t backend);

        // optional: asynchronous data access, queued on the stream
        // (default: synchronize, then the blocking buffer call)
        void (*set_tensor_async)   (ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
        void (*get_tensor_async)   (ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
        // optional (default: one set/get_tensor_async per block)
        void (*set_tensor_2d_async)(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        void (*get_tensor_2d_async)(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
        // optional: copy src (on backend_src) into dst (on backend_dst, whose iface this is);
        // false when it cannot (default: synchronize both and copy through the buffers)
        bool (*cpy_tensor_async)(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst);

        // optional: waits for everything queued (required when anything above is asynchronous)
        void (*synchronize)(ggml_backend_t backend);

        // optional: graph plans
        ggml_backend_graph_plan_t (*graph_plan_create) (ggml_backend_t backend, const struct ggml_cgraph * cgraph);
        void                      (*graph_plan_free)   (ggml_backend_t backend, ggml_backend_graph_plan_t plan);
        // reuses a plan for a graph of the same shape
        void                      (*graph_plan_update) (ggml_backend_t backend, ggml_backend_graph_plan_t plan, const struct ggml_cgraph * cgraph);
        enum ggml_status          (*graph_plan_compute)(ggml_backend_t backend, ggml_backend_graph_plan_t plan);

        // computes the graph; may return before it is done if the backend is asynchronous
        enum ggml_status          (*graph_compute)     (ggml_backend_t backend, struct ggml_cgraph * cgraph);

        // optional: events
        // record event at the current point of this stream
        void (*event_record)(ggml_backend_t backend, ggml_backend_event_t event);
        // make this stream wait for event (recorded on any stream)
        void (*event_wait)  (ggml_backend_t backend, ggml_backend_event_t event);

        // optional: reorder the nodes of a graph for this backend (results must not change)
        void (*graph_optimize)(ggml_backend_t backend, struct ggml_cgraph * cgraph);
    };

    struct ggml_backend {
        ggml_guid_t guid;
        struct ggml_backend_i iface;
        ggml_backend_dev_t device;
        void * context;
    };

    struct ggml_backend_event {
        struct ggml_backend_device * device;
        void * context;
    };

    //
    // Device
    //

    struct ggml_backend_device_i {
        // short name such as "CPU" or "CUDA0"
        const char * (*get_name)(ggml_backend_dev_t dev);

        // human-readable description, e.g. the model name
        const char * (*get_description)(ggml_backend_dev_t dev);

        // memory in bytes (0 and 0 when unknown)
        void         (*get_memory)(ggml_backend_dev_t dev, size_t * free, size_t * total);

        enum ggml_backend_dev_type (*get_type)(ggml_backend_dev_t dev);

        // fills props (zeroed by the wrapper beforehand)
        void (*get_props)(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props);

        // a new stream on this device; NULL on failure
        ggml_backend_t (*init_backend)(ggml_backend_dev_t dev, const char * params);

        // the device's preferred buffer type
        ggml_backend_buffer_type_t (*get_buffer_type)(ggml_backend_dev_t dev);

        // optional: pinned host memory for fast transfers to and from the device
        ggml_backend_buffer_type_t (*get_host_buffer_type)(ggml_backend_dev_t dev);

        // optional: a buffer over existing host memory (memory-mapped weights, foreign data)
        ggml_backend_buffer_t (*buffer_from_host_ptr)(ggml_backend_dev_t dev, void * ptr, size_t size, size_t max_tensor_size);

        // whether the device can compute op
        bool (*supports_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);

        // whether the device can use tensors in buffers of type buft
        bool (*supports_buft)(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft);

        // optional: whether the device wants to run op even though its weights are in a buffer it
        // cannot use (expensive ops that pay for the copy); default false
        bool (*offload_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);

        // optional: events
        ggml_backend_event_t (*event_new)         (ggml_backend_dev_t dev);
        void                 (*event_free)        (ggml_backend_dev_t dev, ggml_backend_event_t event);
        void                 (*event_synchronize) (ggml_backend_dev_t dev, ggml_backend_event_t event);
    };

    struct ggml_backend_device {
        struct ggml_backend_device_i iface;
        ggml_backend_reg_t reg;
        void * context;
    };

    //
    // device errors on paths that cannot return one (the void buffer functions, asynchronous
    // copies and memsets): report them here. The error is logged and set as the thread's last
    // error (GGML_ERROR_DEVICE) at once, and kept, sticky, on the backend (stream errors) or on
    // the buffer's device (buffer errors) until the next ggml_backend_graph_compute of that
    // backend, or of a backend of that device, returns it as GGML_STATUS_FAILED.
    // ggml_backend_synchronize, which returns nothing, sets it as the thread's last error and
    // keeps it. Only the first error is kept until it is returned.
    //

    GGML_ATTRIBUTE_FORMAT(2, 3)
    GGML_API void ggml_backend_report_device_error(ggml_backend_t backend, const char * format, ...);
    GGML_ATTRIBUTE_FORMAT(2, 3)
    GGML_API void ggml_backend_buffer_report_device_error(ggml_backend_buffer_t buffer, const char * format, ...);

    // the backend's kept error, or its device's (false when there is none): `take` returns and
    // clears it, logged as the failure of `func`; otherwise it is set as the last error and kept
    GGML_API bool ggml_backend_sticky_error_check(ggml_backend_t backend, const char * func, bool take);
    // drops what is kept for a backend that is being freed
    GGML_API void ggml_backend_sticky_error_forget(ggml_backend_t backend);

    //
    // Backend registry
    //

    struct ggml_backend_reg_i {
        const char * (*get_name)(ggml_backend_reg_t reg);

        // the devices of this backend
        size_t             (*get_device_count)(ggml_backend_reg_t reg);
        ggml_backend_dev_t (*get_device)(ggml_backend_reg_t reg, size_t index);

        // optional: backend-specific functions by name (see the well-known names in
        // ggml-backend.h); NULL when unknown
        void * (*get_proc_address)(ggml_backend_reg_t reg, const char * name);
    };

    struct ggml_backend_reg {
        int api_version; // GGML_BACKEND_API_VERSION
        struct ggml_backend_reg_i iface;
        void * context;
    };

    // registers a backend / a single device (also declared in ggml-backend.h)
    GGML_API void ggml_backend_register(ggml_backend_reg_t reg);
    GGML_API void ggml_backend_device_register(ggml_backend_dev_t device);

    //
    // Loadable backend modules
    //

    // entry point every module exports as "ggml_backend_init"
    typedef ggml_backend_reg_t (*ggml_backend_init_t)(void);
    // optional entry point "ggml_backend_score": 0 = cannot run on this machine, higher = better
    typedef int                (*ggml_backend_score_t)(void);

    // GGML_BACKEND_DL_IMPL(reg_fn) in a backend's source defines the exported ggml_backend_init
    // (returning reg_fn()) when the backend is built as a module (GGML_BACKEND_DL defined);
    // GGML_BACKEND_DL_SCORE_IMPL(score_fn) likewise defines ggml_backend_score. Both expand to
    // nothing in static builds.
#ifdef GGML_BACKEND_DL
#    ifdef __cplusplus
#        define GGML_BACKEND_DL_IMPL(reg_fn)                                  \
            extern "C" {                                                      \
                GGML_BACKEND_API ggml_backend_reg_t ggml_backend_init(void);  \
            }                                                                 \
            ggml_backend_reg_t ggml_backend_init(void) {                      \
                return reg_fn();                                              \
            }
#        define GGML_BACKEND_DL_SCORE_IMPL(score_fn)                          \
            extern "C" {                                                      \
                GGML_BACKEND_API int ggml_backend_score(void);                \
            }                                                                 \
            int ggml_backend_score(void) {                                    \
                return score_fn();                                            \
            }
#    else
#        define GGML_BACKEND_DL_IMPL(reg_fn)                                  \
            GGML_BACKEND_API ggml_backend_reg_t ggml_backend_init(void);      \
            ggml_backend_reg_t ggml_backend_init(void) {                      \
                return reg_fn();                                              \
            }
#        define GGML_BACKEND_DL_SCORE_IMPL(score_fn)                          \
            GGML_BACKEND_API int ggml_backend_score(void);                    \
            int ggml_backend_score(void) {                                    \
                return score_fn();                                            \
            }
#    endif
#else
#    define GGML_BACKEND_DL_IMPL(reg_fn)
#    define GGML_BACKEND_DL_SCORE_IMPL(score_fn)
#endif

#ifdef  __cplusplus
}
#endif
