#pragma once

// The backend API: buffer types, buffers, backends (streams), events, devices, registries,
// dynamic loading, the multi-backend scheduler and a few utilities.
//
// Names, signatures and enum values follow the ggml family's ggml-backend.h (the seed-001
// generation), so programs written against it compile unchanged. Programs written for the
// family's current release also compile: the few calls that gained trailing parameters
// (ggml_backend_sched_new, ggml_backend_compare_graph_backend) accept both argument counts
// through a macro of the same name (see the end of this file).
//
// No function here aborts. Bad arguments and failures are reported through the log callback
// (ggml_log_set) and by the return value: NULL, false, 0 or an enum ggml_status. Functions that
// return nothing log and leave every object unchanged.

#include "ggml.h"
#include "ggml-alloc.h"

#ifdef GGML_BACKEND_SHARED
#    if defined(_WIN32) && !defined(__MINGW32__)
#        ifdef GGML_BACKEND_BUILD
#            define GGML_BACKEND_API __declspec(dllexport) extern
#        else
#            define GGML_BACKEND_API __declspec(dllimport) extern
#        endif
#    else
#        define GGML_BACKEND_API __attribute__ ((visibility ("default"))) extern
#    endif
#else
#    define GGML_BACKEND_API extern
#endif

#ifdef  __cplusplus
extern "C" {
#endif

    typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
    typedef struct ggml_backend_buffer * ggml_backend_buffer_t;
    typedef struct ggml_backend_event * ggml_backend_event_t;
    typedef struct ggml_backend * ggml_backend_t;
    typedef void * ggml_backend_graph_plan_t;
    typedef struct ggml_backend_reg * ggml_backend_reg_t;
    typedef struct ggml_backend_device * ggml_backend_dev_t;


    //
    // Buffer types: where and how a kind of memory is allocated
    //

    GGML_API const char *          ggml_backend_buft_name          (ggml_backend_buffer_type_t buft);
    // size 0 gives a valid empty buffer; NULL (logged) when the memory cannot be had
    GGML_API ggml_backend_buffer_t ggml_backend_buft_alloc_buffer  (ggml_backend_buffer_type_t buft, size_t size);
    GGML_API size_t                ggml_backend_buft_get_alignment (ggml_backend_buffer_type_t buft);
    // largest single buffer (SIZE_MAX when the type sets no limit)
    GGML_API size_t                ggml_backend_buft_get_max_size  (ggml_backend_buffer_type_t buft);
    // bytes the tensor takes in a buffer of this type (at least ggml_nbytes)
    GGML_API size_t                ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor);
    // true when the memory is host memory with the standard tensor layout
    GGML_API bool                  ggml_backend_buft_is_host       (ggml_backend_buffer_type_t buft);
    GGML_API ggml_backend_dev_t    ggml_backend_buft_get_device    (ggml_backend_buffer_type_t buft);

    //
    // Buffers
    //

    enum ggml_backend_buffer_usage {
        GGML_BACKEND_BUFFER_USAGE_ANY = 0,
        GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
        GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
    };

    GGML_API const char *                   ggml_backend_buffer_name          (ggml_backend_buffer_t buffer);
    GGML_API void                           ggml_backend_buffer_free          (ggml_backend_buffer_t buffer);
    // NULL for an empty buffer
    GGML_API void *                         ggml_backend_buffer_get_base      (ggml_backend_buffer_t buffer);
    GGML_API size_t                         ggml_backend_buffer_get_size      (ggml_backend_buffer_t buffer);
    GGML_API enum ggml_status               ggml_backend_buffer_init_tensor   (ggml_backend_buffer_t buffer, struct ggml_tensor * tensor);
    GGML_API size_t                         ggml_backend_buffer_get_alignment (ggml_backend_buffer_t buffer);
    GGML_API size_t                         ggml_backend_buffer_get_max_size  (ggml_backend_buffer_t buffer);
    GGML_API size_t                         ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor);
    GGML_API void                           ggml_backend_buffer_clear         (ggml_backend_buffer_t buffer, uint8_t value);
    GGML_API bool                           ggml_backend_buffer_is_host       (ggml_backend_buffer_t buffer);
    GGML_API void                           ggml_backend_buffer_set_usage     (ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage);
    GGML_API enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage     (ggml_backend_buffer_t buffer);
    GGML_API ggml_backend_buffer_type_t     ggml_backend_buffer_get_type      (ggml_backend_buffer_t buffer);
    GGML_API void                           ggml_backend_buffer_reset         (ggml_backend_buffer_t buffer);

    // Copies the data of src into dst (same layout required); the two may live in buffers of
    // different backends. Goes through host memory when neither buffer can copy directly.
    GGML_API void ggml_backend_tensor_copy(const struct ggml_tensor * src, struct ggml_tensor * dst);

    //
    // Backends (streams): execute graphs on a device
    //

    GGML_API ggml_guid_t  ggml_backend_guid(ggml_backend_t backend);
    GGML_API const char * ggml_backend_name(ggml_backend_t backend);
    GGML_API void         ggml_backend_free(ggml_backend_t backend);

    GGML_API ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend);
    GGML_API ggml_backend_buffer_t      ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size);
    GGML_API size_t                     ggml_backend_get_alignment(ggml_backend_t backend);
    GGML_API size_t                     ggml_backend_get_max_size(ggml_backend_t backend);

    // Queued on the backend's stream; the data must stay valid until ggml_backend_synchronize.
    // Backends without asynchronous copies do them at once.
    GGML_API void ggml_backend_tensor_set_async(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
    GGML_API void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
    // n_copies blocks of size bytes: block i is at offset + i*stride_tensor in the tensor and at
    // i*stride_data in data
    GGML_API void ggml_backend_tensor_set_2d_async(ggml_backend_t backend,       struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
    GGML_API void ggml_backend_tensor_get_2d_async(ggml_backend_t backend, const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);

    // Blocking access to tensor data in any buffer. "offset" is a byte offset from the start of
    // the tensor's data; offset + size must not exceed ggml_nbytes(tensor) (else: logged, no-op).
    GGML_API void ggml_backend_tensor_set(      struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
    GGML_API void ggml_backend_tensor_get(const struct ggml_tensor * tensor,       void * data, size_t offset, size_t size);
    GGML_API void ggml_backend_tensor_set_2d(   struct ggml_tensor * tensor, const void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
    GGML_API void ggml_backend_tensor_get_2d(const struct ggml_tensor * tensor,    void * data, size_t offset, size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data);
    GGML_API void ggml_backend_tensor_memset(   struct ggml_tensor * tensor,     uint8_t value, size_t offset, size_t size);

    // waits until everything queued on the backend has completed
    GGML_API void ggml_backend_synchronize(ggml_backend_t backend);

    // Graph plans (optional for backends: NULL / GGML_STATUS_FAILED when the backend has none)
    GGML_API ggml_backend_graph_plan_t ggml_backend_graph_plan_create(ggml_backend_t backend, struct ggml_cgraph * cgraph);
    GGML_API void                      ggml_backend_graph_plan_free  (ggml_backend_t backend, ggml_backend_graph_plan_t plan);

    GGML_API enum ggml_status ggml_backend_graph_plan_compute (ggml_backend_t backend, ggml_backend_graph_plan_t plan);
    // computes the graph and waits for the result
    GGML_API enum ggml_status ggml_backend_graph_compute      (ggml_backend_t backend, struct ggml_cgraph * cgraph);
    // queues the graph; call ggml_backend_synchronize before reading the results
    GGML_API enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * cgraph);

    // the same questions asked of the backend's device (prefer the ggml_backend_dev_* forms)
    GGML_API bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op);
    GGML_API bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft);
    GGML_API bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op);

    // Copy between backends that does not block the host where the backends allow it: the copy
    // starts after the work already queued on backend_src, and work queued on backend_dst later
    // starts after the copy. Otherwise both backends are synchronized and the copy is blocking.
    GGML_API void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst);

    GGML_API ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend);

    //
    // Events: points in a backend's stream that the host or other streams can wait for
    //

    // NULL when the device has no events
    GGML_API ggml_backend_event_t ggml_backend_event_new(ggml_backend_dev_t device);
    GGML_API void                 ggml_backend_event_free(ggml_backend_event_t event);
    GGML_API void                 ggml_backend_event_record(ggml_backend_event_t event, ggml_backend_t backend);
    GGML_API void                 ggml_backend_event_synchronize(ggml_backend_event_t event);
    GGML_API void                 ggml_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event);

    //
    // Devices
    //

    enum ggml_backend_dev_type {
        // the CPU, computing in system memory
        GGML_BACKEND_DEVICE_TYPE_CPU,
        // a GPU with its own memory
        GGML_BACKEND_DEVICE_TYPE_GPU,
        // a GPU that uses system memory
        GGML_BACKEND_DEVICE_TYPE_IGPU,
        // an accelerator meant to work next to the CPU backend (BLAS and the like)
        GGML_BACKEND_DEVICE_TYPE_ACCEL,
        // one logical device made of several devices (tensor parallelism)
        GGML_BACKEND_DEVICE_TYPE_META,
    };

    // what a device can do
    struct ggml_backend_dev_caps {
        bool async;                // asynchronous set/get/compute
        bool host_buffer;          // has a pinned host buffer type
        bool buffer_from_host_ptr; // can wrap existing host memory in a buffer
        bool events;               // has events
        bool mmap_support;         // tensors may be loaded from memory-mapped files
    };

    // everything known about a device
    struct ggml_backend_dev_props {
        const char * name;
        const char * description;
        size_t memory_free;  // bytes; 0 when unknown
        size_t memory_total; // bytes; 0 when unknown
        enum ggml_backend_dev_type type;
        // PCI bus id "domain:bus:device.function" in lower case, or NULL when unknown
        const char * device_id;
        struct ggml_backend_dev_caps caps;
    };

    GGML_API const char *                  ggml_backend_dev_name(ggml_backend_dev_t device);
    GGML_API const char *                  ggml_backend_dev_description(ggml_backend_dev_t device);
    GGML_API void                          ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
    GGML_API enum ggml_backend_dev_type    ggml_backend_dev_type(ggml_backend_dev_t device);
    GGML_API void                          ggml_backend_dev_get_props(ggml_backend_dev_t device, struct ggml_backend_dev_props * props);
    GGML_API ggml_backend_reg_t            ggml_backend_dev_backend_reg(ggml_backend_dev_t device);
    GGML_API ggml_backend_t                ggml_backend_dev_init(ggml_backend_dev_t device, const char * params);
    GGML_API ggml_backend_buffer_type_t    ggml_backend_dev_buffer_type(ggml_backend_dev_t device);
    // NULL when the device has no pinned host buffer type
    GGML_API ggml_backend_buffer_type_t    ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device);
    // NULL (logged) when the device cannot wrap host memory
    GGML_API ggml_backend_buffer_t         ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size, size_t max_tensor_size);

    GGML_API bool                          ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op);
    GGML_API bool                          ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft);
    GGML_API bool                          ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op);

    //
    // Backend registries: one per backend family, listing its devices
    //

    GGML_API const char *       ggml_backend_reg_name(ggml_backend_reg_t reg);
    GGML_API size_t             ggml_backend_reg_dev_count(ggml_backend_reg_t reg);
    GGML_API ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index);
    // a backend-specific function by name, NULL when the backend does not provide it
    GGML_API void *             ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);

    // Well-known functions a backend may provide through ggml_backend_reg_get_proc_address

    // "ggml_backend_split_buffer_type": a buffer type that splits matrices across devices
    typedef ggml_backend_buffer_type_t   (*ggml_backend_split_buffer_type_t)(int main_device, const float * tensor_split);
    // "ggml_backend_set_n_threads"
    typedef void                         (*ggml_backend_set_n_threads_t)(ggml_backend_t backend, int n_threads);
    // "ggml_backend_dev_get_extra_bufts": extra buffer types of a device, NULL-terminated
    typedef ggml_backend_buffer_type_t * (*ggml_backend_dev_get_extra_bufts_t)(ggml_backend_dev_t device);
    // "ggml_backend_set_abort_callback"
    typedef void                         (*ggml_backend_set_abort_callback_t)(ggml_backend_t backend, ggml_abort_callback abort_callback, void * abort_callback_data);
    // "ggml_backend_get_features": {name, value} pairs, terminated by an entry with a NULL name
    struct ggml_backend_feature {
        const char * name;
        const char * value;
    };
    typedef struct ggml_backend_feature * (*ggml_backend_get_features_t)(ggml_backend_reg_t reg);

    // "ggml_backend_comm_init", "ggml_backend_comm_free", "ggml_backend_comm_allreduce_tensor":
    // fast communication between the backends of one registry, used by the meta device.
    // init returns a context for the n_backends backends (NULL when it cannot); allreduce sums
    // tensors[0..n_backends-1] (one per backend, same shape, F32) element-wise into all of them
    // and returns false when it cannot (the caller then reduces by other means).
    typedef void * (*ggml_backend_comm_init_t)(ggml_backend_t * backends, size_t n_backends);
    typedef void   (*ggml_backend_comm_free_t)(void * comm_ctx);
    typedef bool   (*ggml_backend_comm_allreduce_tensor_t)(void * comm_ctx, struct ggml_tensor ** tensors);

    //
    // The global registry of backends and devices
    //

    GGML_API void ggml_backend_register(ggml_backend_reg_t reg);

    GGML_API void ggml_backend_device_register(ggml_backend_dev_t device);

    // registries, in registration order
    GGML_API size_t             ggml_backend_reg_count(void);
    GGML_API ggml_backend_reg_t ggml_backend_reg_get(size_t index);
    GGML_API ggml_backend_reg_t ggml_backend_reg_by_name(const char * name);

    // devices of all registries, in registration order
    GGML_API size_t             ggml_backend_dev_count(void);
    GGML_API ggml_backend_dev_t ggml_backend_dev_get(size_t index);
    GGML_API ggml_backend_dev_t ggml_backend_dev_by_name(const char * name);
    GGML_API ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type);

    // shortcuts for creating a backend:
    // ggml_backend_dev_init(ggml_backend_dev_by_name(name), params)
    GGML_API ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params);
    // ggml_backend_dev_init(ggml_backend_dev_by_type(type), params)
    GGML_API ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params);
    // the first GPU, else the first integrated GPU, else the CPU
    GGML_API ggml_backend_t ggml_backend_init_best(void);

    // loads a backend module (a shared library exporting ggml_backend_init) and registers it
    GGML_API ggml_backend_reg_t ggml_backend_load(const char * path);
    // unregisters a loaded backend and unloads its module
    GGML_API void               ggml_backend_unload(ggml_backend_reg_t reg);
    // loads the best variant of every known backend found in the default search paths
    GGML_API void               ggml_backend_load_all(void);
    // the same, searching only dir_path
    GGML_API void               ggml_backend_load_all_from_path(const char * dir_path);

    //
    // The scheduler: runs one graph on several backends
    //

    // Given backends in priority order (lowest index first), the scheduler assigns every node of
    // a graph to a backend (ops follow the buffers their inputs live in, and move to the next
    // backend that can run them), cuts the graph into splits of consecutive nodes on one backend,
    // copies each split's inputs to the backend that needs them, allocates one compute buffer per
    // backend and runs the splits in order.
    /*
      Example:

        // weights in this buffer pull the ops that use them to the buffer's backend
        ggml_backend_buffer_set_usage(buf_weights, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);

        ggml_backend_t backends[] = { backend_gpu, backend_cpu };
        sched = ggml_backend_sched_new(backends, NULL, 2, GGML_DEFAULT_GRAPH_SIZE, false);

        // optional: size the compute buffers once with the largest graph
        ggml_backend_sched_reserve(sched, build_graph(max_batch));

        // optional: pin a node to a backend
        ggml_backend_sched_set_tensor_backend(sched, node, backend_gpu);

        graph = build_graph(batch);
        ggml_backend_sched_alloc_graph(sched, graph);   // allocates, computes nothing
        ggml_backend_tensor_set(input, data, 0, size);  // fill the inputs
        ggml_backend_sched_graph_compute(sched, graph);

        // before allocating another graph:
        ggml_backend_sched_reset(sched);
    */

    typedef struct ggml_backend_sched * ggml_backend_sched_t;

    // Called for the nodes of the graph during ggml_backend_sched_graph_compute.
    // ask == true: return whether you want to see node t once it is computed (the scheduler can
    // then run the nodes you do not want together).
    // ask == false: t has been computed; return false to stop the computation.
    typedef bool (*ggml_backend_sched_eval_callback)(struct ggml_tensor * t, bool ask, void * user_data);

    // backends with a lower index are preferred; bufts may be NULL (each backend's default);
    // parallel: keep several copies of the split inputs so that splits of consecutive graphs
    // overlap (pipeline parallelism)
    GGML_API ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends, size_t graph_size, bool parallel);
    // the same with op_offload: let a higher-priority backend take expensive ops whose weights
    // live in host memory (ggml_backend_sched_new behaves as op_offload = true)
    GGML_API ggml_backend_sched_t ggml_backend_sched_new_ext(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends, size_t graph_size, bool parallel, bool op_offload);
    GGML_API void                 ggml_backend_sched_free(ggml_backend_sched_t sched);

    // sizes[i] = the compute buffer size backend i would need for measure_graph (nothing allocated)
    GGML_API void                 ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes);
    // allocates the compute buffers for measure_graph; returns success
    GGML_API bool                 ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph);

    GGML_API int                  ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched);
    GGML_API ggml_backend_t       ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i);

    // splits and input copies of the last graph
    GGML_API int                  ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched);
    GGML_API int                  ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched);

    GGML_API ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend);
    GGML_API size_t                     ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend);

    GGML_API void                 ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend);
    GGML_API ggml_backend_t       ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node);

    // assigns backends and cuts the graph into splits, without allocating
    GGML_API void                 ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);

    // allocate (returns success) and compute a graph
    GGML_API bool                 ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
    GGML_API enum ggml_status     ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
    GGML_API enum ggml_status     ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
    GGML_API void                 ggml_backend_sched_synchronize(ggml_backend_sched_t sched);

    // Forgets all assignments and allocations. Needed before allocating another graph or changing
    // node backends. The tensors of the previous graph lose their memory: build new ones.
    GGML_API void                 ggml_backend_sched_reset(ggml_backend_sched_t sched);

    GGML_API void                 ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback, void * user_data);

    //
    // The meta device: one logical device made of 1 to GGML_BACKEND_META_MAX_DEVICES simple
    // devices (tensor parallelism). Every tensor has a split state; see docs/meta-device.md.
    //

    #define GGML_BACKEND_META_MAX_DEVICES 16

    enum ggml_backend_meta_split_axis {
        // each device holds a slice along this dimension
        GGML_BACKEND_SPLIT_AXIS_0 = 0,
        GGML_BACKEND_SPLIT_AXIS_1 = 1,
        GGML_BACKEND_SPLIT_AXIS_2 = 2,
        GGML_BACKEND_SPLIT_AXIS_3 = 3,

        GGML_BACKEND_SPLIT_AXIS_MIRRORED = 10, // every device holds all values
        GGML_BACKEND_SPLIT_AXIS_PARTIAL  = 11, // the value is the sum of the devices' tensors

        // internal bookkeeping
        GGML_BACKEND_SPLIT_AXIS_NONE    = 98,
        GGML_BACKEND_SPLIT_AXIS_UNKNOWN = 99,
    };
    GGML_API const char * ggml_backend_meta_split_axis_name(enum ggml_backend_meta_split_axis split_axis);

    struct ggml_backend_meta_split_state {
        enum ggml_backend_meta_split_axis axis;
        // for a dimension split: ne[s*n_devs + j] is device j's share of segment s; segment s
        // repeats nr[s] times (0 reads as 1), so the full extent along the axis is
        // sum_s nr[s] * sum_j ne[s*n_devs + j], laid out as
        // [seg0_dev0_r0, seg0_dev1_r0, ..., seg0_dev0_r1, ..., seg1_dev0_r0, ...]
        int64_t  ne[16*GGML_BACKEND_META_MAX_DEVICES];
        uint32_t nr[16];
        uint32_t n_segments; // 0 reads as 1
    };

    // the split state of a statically allocated tensor (weights); compute tensors get theirs
    // from their sources
    typedef struct ggml_backend_meta_split_state (*ggml_backend_meta_get_split_state_t)(const struct ggml_tensor * tensor, void * userdata);

    // a meta device over devs[0..n_devs-1] (repeats allowed); the same arguments give the same
    // device; NULL (logged) on bad arguments
    GGML_API ggml_backend_dev_t ggml_backend_meta_device(
            ggml_backend_dev_t * devs, size_t n_devs, ggml_backend_meta_get_split_state_t get_split_state, void * get_split_state_ud);

    //
    // Utilities
    //

    // A graph duplicated on another backend together with its data; free with
    // ggml_backend_graph_copy_free. On failure every member is NULL.
    struct ggml_backend_graph_copy {
        ggml_backend_buffer_t buffer;
        struct ggml_context * ctx_allocated;
        struct ggml_context * ctx_unallocated;
        struct ggml_cgraph * graph;
    };

    GGML_API struct ggml_backend_graph_copy ggml_backend_graph_copy(ggml_backend_t backend, struct ggml_cgraph * graph);
    GGML_API void                           ggml_backend_graph_copy_free(struct ggml_backend_graph_copy copy);

    // receives node node_index as computed by each backend; return false to stop
    typedef bool (*ggml_backend_eval_callback)(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2, void * user_data);

    // Runs graph on backend1 and a copy of it on backend2 node by node, handing each pair of
    // results to callback. Returns false when the comparison could not be run.
    GGML_API bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph, ggml_backend_eval_callback callback, void * user_data);
    // The same; when num_test_nodes > 0 both graphs are computed whole and only the nodes listed
    // in test_nodes are handed to callback.
    GGML_API bool ggml_backend_compare_graph_backend_ext(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph, ggml_backend_eval_callback callback, void * user_data, struct ggml_tensor const * const * test_nodes, size_t num_test_nodes);

    // Places tensor at addr inside buffer (addr in [base, base + size)) and initializes it
    GGML_API enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, void * addr);
    // Gives a view the buffer and address of its view_src (which must be allocated)
    GGML_API enum ggml_status ggml_backend_view_init(struct ggml_tensor * tensor);

    // CPU buffers, always available
    // wraps existing host memory; the buffer does not own (and never frees) it
    GGML_API ggml_backend_buffer_t      ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size);
    GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);

#ifdef  __cplusplus
}
#endif

//
// Two call forms for the calls that gained parameters in the family's later releases.
//
// ggml_backend_sched_new(backends, bufts, n, graph_size, parallel)              -> op_offload = true
// ggml_backend_sched_new(backends, bufts, n, graph_size, parallel, op_offload)
// ggml_backend_compare_graph_backend(b1, b2, graph, callback, user_data)
// ggml_backend_compare_graph_backend(b1, b2, graph, callback, user_data, test_nodes, num_test_nodes)
//
// The macros pick the function from the number of arguments. They only apply to calls: taking
// the address of ggml_backend_sched_new or ggml_backend_compare_graph_backend still names the
// exported seed-form functions. A source file that defines these functions must write the name
// in parentheses, e.g. `ggml_backend_sched_t (ggml_backend_sched_new)(...) { ... }`.
//
#define GGML_BACKEND_EXPAND_(x) x
#define GGML_BACKEND_NARGS_SEL_(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define GGML_BACKEND_NARGS_(...) GGML_BACKEND_EXPAND_(GGML_BACKEND_NARGS_SEL_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0))
#define GGML_BACKEND_CAT2_(a, b) a##b
#define GGML_BACKEND_CAT_(a, b) GGML_BACKEND_CAT2_(a, b)

#define GGML_BACKEND_SCHED_NEW_5_(backends, bufts, n_backends, graph_size, parallel) \
    (ggml_backend_sched_new)(backends, bufts, n_backends, graph_size, parallel)
#define GGML_BACKEND_SCHED_NEW_6_(backends, bufts, n_backends, graph_size, parallel, op_offload) \
    ggml_backend_sched_new_ext(backends, bufts, n_backends, graph_size, parallel, op_offload)
#define ggml_backend_sched_new(...) \
    GGML_BACKEND_EXPAND_(GGML_BACKEND_CAT_(GGML_BACKEND_SCHED_NEW_, GGML_BACKEND_CAT_(GGML_BACKEND_NARGS_(__VA_ARGS__), _))(__VA_ARGS__))

#define GGML_BACKEND_COMPARE_5_(backend1, backend2, graph, callback, user_data) \
    (ggml_backend_compare_graph_backend)(backend1, backend2, graph, callback, user_data)
// the cast lets C callers pass a `struct ggml_tensor **` as C++ callers can
#define GGML_BACKEND_COMPARE_7_(backend1, backend2, graph, callback, user_data, test_nodes, num_test_nodes) \
    ggml_backend_compare_graph_backend_ext(backend1, backend2, graph, callback, user_data, \
        (struct ggml_tensor const * const *)(test_nodes), num_test_nodes)
#define ggml_backend_compare_graph_backend(...) \
    GGML_BACKEND_EXPAND_(GGML_BACKEND_CAT_(GGML_BACKEND_COMPARE_, GGML_BACKEND_CAT_(GGML_BACKEND_NARGS_(__VA_ARGS__), _))(__VA_ARGS__))
