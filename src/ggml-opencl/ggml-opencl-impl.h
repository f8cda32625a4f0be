#pragma once

// Internals of the OpenCL backend, shared by the files of src/ggml-opencl/.
//
//   ggml-opencl.c      registry, devices, backends (streams): the glue of ggml-backend-impl.h
//   ocl-api.c          the OpenCL API loaded from libOpenCL.so.1 at run time (ocl-api.h)
//   ocl-device-info.c  device properties from clGetDeviceInfo, error names
//   ocl-buffer.c       buffer types: device memory, pinned host memory, wrapped host memory
//   ocl-event.c        events (cl_event markers)
//   ocl-program.c      kernel sources (embedded .cl files), builds, in-memory and disk caches
//   ocl-launch.c       kernel arguments and launches
//   ocl-ops.c          op dispatch: supports_op and graph_compute
//   ocl-op-*.c         host code of the kernel families (kernels/<family>.cl)
//   ocl-matmul.c       MUL_MAT (see ggml_ocl_mul_mat below)
//   ocl-quant.c        quantized weights: MUL_MAT, GET_ROWS, CPY / SET_ROWS into quantized types
//
// Memory model: a device buffer is one cl_mem. ggml sees it at a fake, never dereferenced base
// address (a private 1 TiB window per buffer), so tensor->data - base is the byte offset of the
// tensor inside the cl_mem. Kernels receive the cl_mem and a descriptor with that offset and the
// tensor's ne/nb (struct ggml_ocl_tdesc), so views, permutations and padding need no copies.
//
// Threads: the registry and the devices are shared; program builds and lazy set-up take the
// device's mutex. A backend (stream) owns an in-order command queue and its own cl_kernel
// objects (clSetKernelArg is not thread-safe), and is used by one thread at a time, as the
// backend API requires of every backend.

#include "ocl-api.h" // the OpenCL API, loaded at run time

#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-opencl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GGML_OCL_REG_NAME "OpenCL"

//
// errors
//

// "CL_OUT_OF_RESOURCES", ... ("CL_UNKNOWN_ERROR" for codes it does not know)
const char * ggml_ocl_errstr(cl_int err);

// true when err == CL_SUCCESS; otherwise logs "<func>: <what>: <name> (<code>)" and returns false
bool ggml_ocl_check(cl_int err, const char * func, const char * what);
#define GGML_OCL_OK(err, what) ggml_ocl_check((err), __func__, (what))

// The same on paths that return nothing (void buffer functions, asynchronous transfers): the
// error is also kept, sticky, for the buffer's device or the backend, and returned by the next
// graph_compute (ggml_backend_buffer_report_device_error / ggml_backend_report_device_error).
bool ggml_ocl_check_buffer(ggml_backend_buffer_t buffer, cl_int err, const char * func, const char * what);
bool ggml_ocl_check_stream(ggml_backend_t backend, cl_int err, const char * func, const char * what);
#define GGML_OCL_BUF_OK(buffer, err, what)     ggml_ocl_check_buffer((buffer), (err), __func__, (what))
#define GGML_OCL_STREAM_OK(backend, err, what) ggml_ocl_check_stream((backend), (err), __func__, (what))

//
// programs: one per kernel source file kernels/<name>.cl (each built with kernels/common.cl in
// front of it)
//

enum ggml_ocl_prog {
    GGML_OCL_PROG_ELTWISE, // unary, glu, binary, scale, clamp, ... (eltwise.cl)
    GGML_OCL_PROG_COPY,    // cpy, get/set_rows, repeat, concat, pad, acc/set, diag_mask (copy.cl)
    GGML_OCL_PROG_REDUCE,  // sum, sum_rows, mean, argmax (reduce.cl)
    GGML_OCL_PROG_SORT,    // argsort, top_k (sort.cl)
    GGML_OCL_PROG_NORM,    // norm, rms_norm, l2_norm, group_norm, soft_max (norm.cl)
    GGML_OCL_PROG_ROPE,    // rope (rope.cl)
    GGML_OCL_PROG_CONV,    // im2col, pool_2d, conv_2d (conv.cl)
    GGML_OCL_PROG_ATTN,    // flash_attn_ext (attn.cl)
    GGML_OCL_PROG_MATMUL,  // mul_mat (matmul.cl, owned by ocl-matmul.c)
    GGML_OCL_PROG_OUTPROD, // out_prod (outprod.cl)
    GGML_OCL_PROG_MATMUL_TILED, // mul_mat fast paths (mul_mat_tiled.cl, owned by ocl-matmul-tiled.c)
    GGML_OCL_PROG_QUANT,   // quantized mul_mat and get_rows (quant.cl, owned by ocl-quant.c)
    GGML_OCL_PROG_QUANT_MM, // quantized mul_mat fast paths (quant_mm.cl, owned by ocl-quant-mm.c)
    GGML_OCL_PROG_ELTWISE_VEC, // contiguous F32 element-wise fast paths (eltwise_vec.cl, ocl-op-eltwise-vec.c)
    GGML_OCL_PROG_ATTN_ROWS, // flash_attn_ext on CPU devices, a work-item per row (attn_rows.cl, ocl-op-attn.c)
    GGML_OCL_PROG_QUANT_STORE, // cpy / set_rows into quantized types (quant_store.cl, ocl-quant.c)
    GGML_OCL_PROG_MISC2,   // cumsum, tri, fill, diag, timestep_embedding, upscale (misc2.cl, ocl-op-misc2.c)
    GGML_OCL_PROG_SEQ,     // ssm_conv/scan, solve_tri, gated_delta_net, rwkv_wkv6/7, gla (seq.cl, ocl-op-seq.c)
    GGML_OCL_PROG_COUNT,
};

// the .cl file name without extension
const char * ggml_ocl_prog_name(enum ggml_ocl_prog prog);

enum ggml_ocl_prog_state {
    GGML_OCL_PROG_NOT_BUILT = 0,
    GGML_OCL_PROG_READY,
    GGML_OCL_PROG_FAILED, // the build failed (logged once); the family's ops are unsupported
};

//
// devices
//

struct ggml_ocl_platform {
    cl_platform_id  id;
    char            name[128];
    char            version[128];
    pthread_mutex_t lock;     // guards the lazy creation of context
    cl_context      context;  // shared by the platform's devices; created on first use
    bool            context_failed;
    cl_device_id  * device_ids;
    cl_uint         n_device_ids;
};

struct ggml_ocl_device {
    int    index;                  // position in the registry: name "OpenCL<index>"
    char   name[32];
    char   description[256];       // CL_DEVICE_NAME
    char   vendor[128];
    char   version[128];           // CL_DEVICE_VERSION
    char   driver[128];            // CL_DRIVER_VERSION
    char   pci_id[32];             // "dddd:bb:dd.f" when the driver tells (cl_khr_pci_bus_info), else ""
    int    cl_major, cl_minor;     // from CL_DEVICE_VERSION

    struct ggml_ocl_platform * platform;
    cl_device_id   id;
    cl_device_type cl_type;

    cl_ulong global_mem;           // CL_DEVICE_GLOBAL_MEM_SIZE
    cl_ulong max_alloc;            // CL_DEVICE_MAX_MEM_ALLOC_SIZE
    cl_ulong local_mem;            // CL_DEVICE_LOCAL_MEM_SIZE
    size_t   max_wg;               // CL_DEVICE_MAX_WORK_GROUP_SIZE
    size_t   alignment;            // buffer alignment in bytes (>= CL_DEVICE_MEM_BASE_ADDR_ALIGN)
    bool     fp16;                 // cl_khr_fp16 (half arithmetic; half storage is always there)
    bool     fp64;                 // cl_khr_fp64
    bool     unified_memory;       // CL_DEVICE_HOST_UNIFIED_MEMORY
    bool     cpu_kernels;          // pick the kernels shaped for CPU devices (few work-items, long
                                   // rows each): CL_DEVICE_TYPE_CPU, or GGML_OPENCL_KERNELS=cpu|gpu
    bool     exact_div_sqrt;       // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: programs are built with
                                   // -cl-fp32-correctly-rounded-divide-sqrt
    char     build_options[96];    // the options every program of this device is built with

    atomic_size_t allocated;       // bytes of device buffers alive (for memory_free)

    pthread_mutex_t  lock;         // programs and the transfer queue
    cl_command_queue xfer_queue;   // blocking buffer operations (created on first use)
    enum ggml_ocl_prog_state prog_state[GGML_OCL_PROG_COUNT];
    cl_program               programs[GGML_OCL_PROG_COUNT];
    int                      n_backends; // streams alive on the device (under lock)

    struct ggml_backend_device      dev;
    struct ggml_backend_buffer_type buft;      // device memory
    struct ggml_backend_buffer_type buft_host; // pinned host memory
    char buft_name[48];
    char buft_host_name[48];
};

// the device behind a ggml device / buffer type of this backend (NULL for other backends')
struct ggml_ocl_device * ggml_ocl_device_from_dev(ggml_backend_dev_t dev);

// the devices of the registry (initialized on first call)
size_t                   ggml_ocl_n_devices(void);
struct ggml_ocl_device * ggml_ocl_device_at(size_t i);

// Fills everything clGetDeviceInfo tells about id. false (logged at INFO) when the device cannot
// be used: OpenCL below 1.2, no compiler, not available.
bool ggml_ocl_device_query(struct ggml_ocl_device * d, struct ggml_ocl_platform * p, cl_device_id id);

// the platform's context, created on first use; NULL (logged) on failure
cl_context ggml_ocl_device_context(struct ggml_ocl_device * d);

// the device's transfer queue for blocking buffer operations, created on first use
cl_command_queue ggml_ocl_device_xfer_queue(struct ggml_ocl_device * d);

// a new in-order command queue on the device; NULL (logged) on failure
cl_command_queue ggml_ocl_queue_new(struct ggml_ocl_device * d, cl_command_queue_properties props);

//
// buffers
//

struct ggml_ocl_buffer {
    struct ggml_ocl_device * dev;
    cl_mem  mem;
    size_t  size;
    char  * base;      // device buffers: the fake address window; wrapped host memory: the pointer
    bool    counted;   // counted in dev->allocated (false when wrapping user memory)
};

void ggml_ocl_buffer_types_init(struct ggml_ocl_device * d);

// a buffer over existing host memory (CL_MEM_USE_HOST_PTR), of the device buffer type
ggml_backend_buffer_t ggml_ocl_buffer_from_host_ptr(struct ggml_ocl_device * d, void * ptr, size_t size);

// whether buffer is an OpenCL device buffer (device memory or wrapped host memory)
bool ggml_ocl_buffer_is_device(ggml_backend_buffer_t buffer);

// The cl_mem of t's buffer and t's byte offset in it. false (logged, naming `who`) when t is not
// in an OpenCL device buffer or does not lie inside it.
bool ggml_ocl_tensor_mem(const struct ggml_tensor * t, const char * who, cl_mem * mem, size_t * offset);

//
// backends (streams)
//

struct ggml_ocl_kernel_slot {
    enum ggml_ocl_prog prog;
    const char *       name;  // a string literal of the caller
    cl_kernel          kernel;
};

struct ggml_ocl_backend {
    struct ggml_ocl_device * dev;
    cl_command_queue queue;
    char name[48];

    struct ggml_ocl_kernel_slot * kernels;
    int n_kernels;
    int cap_kernels;

    // set while a graph runs: kernel arguments and the kernel cache belong to one caller at a time
    atomic_bool busy;

    struct ggml_ocl_profile * profile; // GGML_OPENCL_PROFILE: kernel times (ocl-profile.c); else NULL

    // device memory for one node's intermediate data (grown on demand, ggml_ocl_scratch); kernels
    // of one queue run in order, so each node may reuse it
    cl_mem scratch;
    size_t scratch_size;

    // F16 -> F16 tables of the unary functions (ocl-unary-table.c), created on first use
    cl_mem unary_tables[GGML_UNARY_OP_COUNT];
    bool   unary_table_failed[GGML_UNARY_OP_COUNT];
};

// the backend's scratch memory of at least `bytes` (NULL, logged, when it cannot be allocated)
cl_mem ggml_ocl_scratch(struct ggml_ocl_backend * be, size_t bytes);

// exact F16 -> F16 unary functions by table (ocl-unary-table.c): whether op has one; the 65536
// entries (f of the F16 value with bits i in double, rounded to F16 once); the backend's device
// copy (created on first use, NULL, logged, when it cannot be: the computed kernel runs then)
bool     ggml_ocl_unary_table_has(int op);
bool     ggml_ocl_unary_table_fill(int op, uint16_t * table);
uint16_t ggml_ocl_double_to_half(double x);
cl_mem   ggml_ocl_unary_table(struct ggml_ocl_backend * be, int op);

//
// kernel profiling (ocl-profile.c), GGML_OPENCL_PROFILE=1: the backend's queue is created with
// CL_QUEUE_PROFILING_ENABLE and every kernel launch hands its event to ggml_ocl_profile_add
//

struct ggml_ocl_profile;
bool                      ggml_ocl_profile_requested(void); // GGML_OPENCL_PROFILE set and not "0"
struct ggml_ocl_profile * ggml_ocl_profile_new(void);       // NULL (logged) when out of memory
// keeps the event (released later) of one run of kernel for a node of op (both string literals)
void ggml_ocl_profile_add(struct ggml_ocl_profile * p, const char * op, const char * kernel, cl_event event);
// reads the times of the kept events, which must be complete (after clFinish)
void ggml_ocl_profile_collect(struct ggml_ocl_profile * p);
// the table per (op, kernel) to stderr
void ggml_ocl_profile_print(struct ggml_ocl_profile * p, const char * backend_name);
void ggml_ocl_profile_free(struct ggml_ocl_profile * p);
// the event pointer for a launch's clEnqueue* call: &slot when be profiles, else NULL; after a
// successful enqueue, ggml_ocl_profile_launched hands the event to the profile
cl_event * ggml_ocl_profile_slot(struct ggml_ocl_backend * be, cl_event * slot);
void       ggml_ocl_profile_launched(struct ggml_ocl_backend * be, const struct ggml_tensor * node, const char * kernel, cl_event ev);

struct ggml_ocl_backend * ggml_ocl_backend_ctx(ggml_backend_t backend); // NULL if not OpenCL

// the kernel `name` of program prog for this backend (created on first use); NULL (logged)
cl_kernel ggml_ocl_get_kernel(struct ggml_ocl_backend * be, enum ggml_ocl_prog prog, const char * name);

//
// events
//

ggml_backend_event_t ggml_ocl_event_new(ggml_backend_dev_t dev);
void ggml_ocl_event_free(ggml_backend_dev_t dev, ggml_backend_event_t event);
void ggml_ocl_event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t event);
void ggml_ocl_event_record(ggml_backend_t backend, ggml_backend_event_t event);
void ggml_ocl_event_wait(ggml_backend_t backend, ggml_backend_event_t event);

//
// programs (ocl-program.c)
//

// Builds program prog for the device on first use (thread-safe); true when it is ready.
bool       ggml_ocl_program_ready(struct ggml_ocl_device * d, enum ggml_ocl_prog prog);
cl_program ggml_ocl_program_get(struct ggml_ocl_device * d, enum ggml_ocl_prog prog); // NULL unless ready
// A backend (stream) on the device starts / ends. When the last one ends, the device's built
// programs are released (kernels hold their own references, and are released first); they are
// built again, from the on-disk cache when it has them, if the device is used again. Programs
// whose build failed stay failed.
void       ggml_ocl_programs_hold(struct ggml_ocl_device * d);
void       ggml_ocl_programs_drop(struct ggml_ocl_device * d);

// Test hooks (ggml_test_control ops GGML_TEST_OPENCL_*). GGML_TEST_OPENCL_SET_PROGRAM_SOURCE
// replaces the source of program `name` ("norm", ...) for the builds that follow; NULL restores
// the embedded source. Programs already built for a device are dropped so that the next use
// rebuilds them. Call it while no backend of the registry is alive.
int ggml_ocl_test_control(int op, va_list args);

//
// kernel launches (ocl-launch.c)
//

// Layout of a tensor as the kernels see it (struct tdesc in kernels/common.cl; keep in sync).
typedef struct {
    cl_ulong offs;  // byte offset of element (0, 0, 0, 0) in the cl_mem
    cl_long  ne[4];
    cl_long  nb[4]; // byte strides
    cl_int   type;  // enum ggml_type
    cl_int   pad_;
} ggml_ocl_tdesc;

// Collects the arguments of one launch; the first failure is kept and reported by the launch.
struct ggml_ocl_args {
    struct ggml_ocl_backend * be;
    const struct ggml_tensor * node; // for messages
    const char * kname;
    cl_kernel kernel;
    cl_uint   n;
    cl_int    err;
    cl_uint   bad_index;
    bool      failed;   // a tensor argument was not usable (already logged)
};

// false (logged) when the kernel cannot be had
bool ggml_ocl_args_begin(struct ggml_ocl_args * a, struct ggml_ocl_backend * be, const struct ggml_tensor * node,
                         enum ggml_ocl_prog prog, const char * kname);
void ggml_ocl_arg_raw  (struct ggml_ocl_args * a, size_t size, const void * value);
void ggml_ocl_arg_i32  (struct ggml_ocl_args * a, int32_t v);
void ggml_ocl_arg_i64  (struct ggml_ocl_args * a, int64_t v);
void ggml_ocl_arg_f32  (struct ggml_ocl_args * a, float v);
void ggml_ocl_arg_local(struct ggml_ocl_args * a, size_t bytes);
// two arguments: the tensor's cl_mem and its ggml_ocl_tdesc. t may be NULL when `fallback` is
// given: fallback's memory is passed (never read by the kernel) with a zeroed descriptor.
void ggml_ocl_arg_tensor(struct ggml_ocl_args * a, const struct ggml_tensor * t);
void ggml_ocl_arg_tensor_opt(struct ggml_ocl_args * a, const struct ggml_tensor * t, const struct ggml_tensor * fallback);

// descriptor of t with its own ne/nb (offset filled by ggml_ocl_arg_tensor)
ggml_ocl_tdesc ggml_ocl_tdesc_of(const struct ggml_tensor * t);

// Enqueues the kernel on the backend's queue over n_groups work-groups of `local` items
// (1-D: global = n_groups*local). Logs and returns GGML_STATUS_FAILED on any error.
enum ggml_status ggml_ocl_launch_groups(struct ggml_ocl_args * a, size_t n_groups, size_t local);
// dims-D launch (1 to 3) over global items in groups of local (local may be NULL: the driver picks)
enum ggml_status ggml_ocl_launch_nd(struct ggml_ocl_args * a, unsigned dims, const size_t * global, const size_t * local);
// 1-D launch over n items (rounded up to a multiple of local; kernels check their index)
enum ggml_status ggml_ocl_launch_items(struct ggml_ocl_args * a, size_t n, size_t local);

// One work-item per element of t's shape, for kernels that use elem_of (kernels/common.cl): a 3-D
// launch over (ne0 rounded up to the work-group size, ne1, ne2*ne3). Cheaper than flat indices,
// which cost three 64-bit divisions per element.
enum ggml_status ggml_ocl_launch_shape(struct ggml_ocl_args * a, const struct ggml_tensor * t);

// a work-group size for the device: the power of two <= want and <= the device limit
size_t ggml_ocl_wg_size(const struct ggml_ocl_device * d, size_t want);

// Byte copy of src's data to dst's on the queue (both contiguous, same size). For ops whose
// result starts as a copy of a source (ACC, SET).
enum ggml_status ggml_ocl_copy_tensor_bytes(struct ggml_ocl_backend * be, const struct ggml_tensor * src, struct ggml_tensor * dst);

// whether a and b use the same memory at the same offset
bool ggml_ocl_same_memory(const struct ggml_tensor * a, const struct ggml_tensor * b);

//
// op dispatch (ocl-ops.c) and the kernel families (ocl-op-*.c). A family's supports() must tell
// the truth for every node routed to it, be cheap and not log; compute() enqueues the node's
// kernels on be's queue without waiting and returns an error status (logged) on failure.
//

bool             ggml_ocl_supports_op(struct ggml_ocl_device * d, const struct ggml_tensor * op);
enum ggml_status ggml_ocl_graph_compute(struct ggml_ocl_backend * be, struct ggml_cgraph * graph);

// float types the kernels load and store (F32, F16, BF16)
static inline bool ggml_ocl_type_is_float(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}
// types the kernels' generic loads and stores handle (floats and I8..I64)
static inline bool ggml_ocl_type_is_plain(enum ggml_type t) {
    return ggml_ocl_type_is_float(t) || t == GGML_TYPE_I8 || t == GGML_TYPE_I16 || t == GGML_TYPE_I32 || t == GGML_TYPE_I64;
}

#define GGML_OCL_FAMILY(fam) \
    bool             ggml_ocl_##fam##_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op); \
    enum ggml_status ggml_ocl_##fam##_compute (struct ggml_ocl_backend * be, struct ggml_tensor * op)

GGML_OCL_FAMILY(eltwise); // ocl-op-eltwise.c
// its fast paths for contiguous F32 tensors, RMS_NORM's too (ocl-op-eltwise-vec.c): whether one takes the node
// (cheap; the caller also checks that GGML_OCL_PROG_ELTWISE_VEC builds), and the launch
bool             ggml_ocl_eltwise_vec_takes(const struct ggml_ocl_device * d, const struct ggml_tensor * op);
enum ggml_status ggml_ocl_eltwise_vec(struct ggml_ocl_backend * be, struct ggml_tensor * op);
// RMS_NORM (mode 0) or NORM (mode 1) of a's contiguous F32 rows into dst on the GPU-shaped kernel
// (a work-group per row); with b, the sum a + b (b one row or a's shape) is stored to `sum` and
// normalized; with w, the result is multiplied by w (one row or the rows' shape). For ocl-fuse.c;
// label (a string literal, or NULL for the kernel's name) names the launch in messages and profiles.
enum ggml_status ggml_ocl_norm_rows_gpu(struct ggml_ocl_backend * be, const struct ggml_tensor * node, const char * label, int mode,
                                        const struct ggml_tensor * a, const struct ggml_tensor * b,
                                        const struct ggml_tensor * sum, const struct ggml_tensor * w,
                                        struct ggml_tensor * dst, float eps);
GGML_OCL_FAMILY(copy);    // ocl-op-copy.c
GGML_OCL_FAMILY(reduce);  // ocl-op-reduce.c (also ARGSORT / TOP_K with the sort program)
GGML_OCL_FAMILY(sort);    // ocl-op-reduce.c
GGML_OCL_FAMILY(norm);    // ocl-op-norm.c
GGML_OCL_FAMILY(rope);    // ocl-op-rope.c
GGML_OCL_FAMILY(conv);    // ocl-op-conv.c
GGML_OCL_FAMILY(attn);    // ocl-op-attn.c
GGML_OCL_FAMILY(outprod); // ocl-op-outprod.c
GGML_OCL_FAMILY(misc2);   // ocl-op-misc2.c
GGML_OCL_FAMILY(seq);     // ocl-op-seq.c
GGML_OCL_FAMILY(quant);   // ocl-quant.c: nodes with quantized weights (see ggml_ocl_quant_claims)

// Kernel fusion (ocl-fuse.c): when nodes i, i + 1, ... of g form a pattern it fuses, launches them
// as one kernel, sets *status and returns how many nodes it computed; 0 when node i runs alone
int ggml_ocl_fuse(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i, enum ggml_status * status);
// the same for ROPE(K), SET_ROWS(K), SET_ROWS(V), ROPE(Q) of one layer (ocl-fuse-rope-kv.c)
int ggml_ocl_fuse_rope_kv(struct ggml_ocl_backend * be, struct ggml_cgraph * g, int i, enum ggml_status * status);
// for the pattern checks: whether a node from index `from` on reads t (directly or through a view
// of it); whether the byte ranges of a and b in their buffers meet
bool ggml_ocl_fuse_read_after(const struct ggml_cgraph * g, int from, const struct ggml_tensor * t);
bool ggml_ocl_fuse_overlap(const struct ggml_tensor * a, const struct ggml_tensor * b);

// whether the node has quantized weights (MUL_MAT / GET_ROWS with a quantized src0), or is a
// MUL_MAT_ID (any weights): then ggml_ocl_quant_supports / ggml_ocl_quant_compute decide and
// compute it, not the op's family
bool ggml_ocl_quant_claims(const struct ggml_tensor * op);
// the program whose kernels compute a node ggml_ocl_quant_claims
enum ggml_ocl_prog ggml_ocl_quant_program(const struct ggml_tensor * op);

// The fast quantized MUL_MAT (ocl-quant-mm.c): for nodes ggml_ocl_quant_supports accepts whose b is
// F32 with contiguous, aligned rows (builds its program on first use: call it on the compute path).
bool             ggml_ocl_quant_mm_supports(struct ggml_ocl_device * d, const struct ggml_tensor * op);
enum ggml_status ggml_ocl_quant_mm(struct ggml_ocl_backend * be, struct ggml_tensor * op);
// SWIGLU (not swapped, one source) of a few-column quantized product, as one launch (ocl-fuse.c
// checks the graph): whether this pair fits, and the launch writing glu's result
bool             ggml_ocl_quant_mm_swiglu_takes(struct ggml_ocl_device * d, const struct ggml_tensor * mm, const struct ggml_tensor * glu);
enum ggml_status ggml_ocl_quant_mm_swiglu(struct ggml_ocl_backend * be, const struct ggml_tensor * mm, struct ggml_tensor * glu);
// MUL_MAT_ID on the same program (GGML_OCL_PROG_QUANT_MM): shapes, types and alignment (cheap)
bool             ggml_ocl_quant_mm_id_supports(const struct ggml_tensor * op);
enum ggml_status ggml_ocl_quant_mm_id(struct ggml_ocl_backend * be, struct ggml_tensor * op);

//
// MUL_MAT (ocl-matmul.c). The file is replaceable as a whole: the rest of the backend only calls
// these two functions and builds GGML_OCL_PROG_MATMUL from kernels/matmul.cl.
//
// ggml_ocl_mul_mat_supports: whether ggml_ocl_mul_mat computes this MUL_MAT node (types of
// op->src[0], op->src[1] and op; layouts). Cheap, no logging, no program build (the dispatcher
// checks that GGML_OCL_PROG_MATMUL builds).
//
// ggml_ocl_mul_mat: enqueues dst = mul_mat(src0, src1) on be->queue (no wait): src0 [K, N, A2, A3],
// src1 [K, M, B2, B3] with B2 % A2 == 0 and B3 % A3 == 0, dst [N, M, B2, B3] F32, any strides
// (views, permutations). Get kernels with ggml_ocl_get_kernel(be, GGML_OCL_PROG_MATMUL, "name"),
// set arguments and launch with the ggml_ocl_args / ggml_ocl_launch_* helpers (or plain OpenCL
// calls on be->queue). Returns false (logged) on failure.
//
bool ggml_ocl_mul_mat_supports(const struct ggml_ocl_device * d, const struct ggml_tensor * op);
bool ggml_ocl_mul_mat(struct ggml_ocl_backend * be, const struct ggml_tensor * src0, const struct ggml_tensor * src1,
                      struct ggml_tensor * dst);
