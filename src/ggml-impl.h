#pragma once

// Internal definitions shared by the core sources and by backends built in or out of tree.

#include "ggml.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MIN
#    define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#    define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif

// alignment of tensor data inside a context arena and in host buffers
#define GGML_MEM_ALIGN_HOST 64

//
// logging
//

GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API void ggml_log_internal(enum ggml_log_level level, const char * format, ...);
GGML_API void ggml_log_callback_default(enum ggml_log_level level, const char * text, void * user_data);

#define GGML_LOG(...)       ggml_log_internal(GGML_LOG_LEVEL_NONE , __VA_ARGS__)
#define GGML_LOG_INFO(...)  ggml_log_internal(GGML_LOG_LEVEL_INFO , __VA_ARGS__)
#define GGML_LOG_WARN(...)  ggml_log_internal(GGML_LOG_LEVEL_WARN , __VA_ARGS__)
#define GGML_LOG_ERROR(...) ggml_log_internal(GGML_LOG_LEVEL_ERROR, __VA_ARGS__)
#define GGML_LOG_DEBUG(...) ggml_log_internal(GGML_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define GGML_LOG_CONT(...)  ggml_log_internal(GGML_LOG_LEVEL_CONT , __VA_ARGS__)

// Delivers text (one whole message) to the log callback in one call.
GGML_API void ggml_log_emit(enum ggml_log_level level, const char * text);

//
// errors (src/ggml-error.c, docs/errors.md): one message per error, in one log callback call,
// kept as the calling thread's last error. GGML_LOG_ERROR records its message too, with the
// code of the failure that caused it (GGML_ERROR_OK below means just that: no code of its own).
//

// Reports an error: records (code, message) as the thread's last error and logs the message at
// ERROR level in one callback; a final newline is added when missing.
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API void ggml_error_report(enum ggml_error_code code, const char * format, ...);
// Same, with "<func>: " in front of the message.
GGML_ATTRIBUTE_FORMAT(3, 4)
GGML_API void ggml_error_report_func(enum ggml_error_code code, const char * func, const char * format, ...);
// Same, for a failure whose cause may have been reported already: the code of an open chain
// (an earlier cause) wins, `code` is the guess when there is none.
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API void ggml_error_report_default(enum ggml_error_code code, const char * format, ...);
// Records a cause without logging it (the allocation wrappers: the caller logs the context).
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API void ggml_error_note(enum ggml_error_code code, const char * format, ...);
// internal to the error channel: recording of a message, end of a failure chain
GGML_API void ggml_error_record(enum ggml_error_code code, const char * text, bool logged);
GGML_API void ggml_error_alloc_succeeded(void);

#define GGML_ERROR(code, ...) ggml_error_report((code), __VA_ARGS__)
#define GGML_ERROR_DEFAULT(code, ...) ggml_error_report_default((code), __VA_ARGS__)

// Check used on paths that input can reach: reports "<func>: <message>" (a bad argument unless
// an earlier failure gave the cause) and returns `ret`.
#define GGML_CHECK_RET(cond, ret, ...) GGML_CHECK_RET_CODE(cond, ret, GGML_ERROR_OK, __VA_ARGS__)

// Same with an explicit error code.
#define GGML_CHECK_RET_CODE(cond, ret, code, ...) do {                      \
        if (!(cond)) {                                                      \
            ggml_error_report_func((code), __func__, __VA_ARGS__);          \
            return ret;                                                     \
        }                                                                   \
    } while (0)

// A message built in parts (truncated, never allocated), then logged or reported in one call.
struct ggml_msg {
    size_t len;
    char   text[1024];
};

GGML_API void ggml_msg_init(struct ggml_msg * m);
GGML_ATTRIBUTE_FORMAT(2, 3)
GGML_API void ggml_msg_append(struct ggml_msg * m, const char * format, ...);
GGML_API void ggml_msg_append_v(struct ggml_msg * m, const char * format, va_list args);

//
// allocation: every host allocation of the library goes through these, so that the fault
// injection tests can make the Nth one fail. They never abort.
//

GGML_API void * ggml_malloc(size_t size);
GGML_API void * ggml_calloc(size_t n, size_t size);
GGML_API void * ggml_realloc(void * ptr, size_t size);
// Grows an array so that it holds at least `need` elements of elem_size bytes: the capacity *cap
// doubles (starting from min_cap) until it does. Returns the array, moved as by realloc, and
// updates *cap; NULL when out of memory or past INT_MAX elements (counts must fit an int), and
// then the old array and *cap are untouched.
GGML_API void * ggml_grow_array(void * arr, size_t * cap, size_t need, size_t elem_size, size_t min_cap);
GGML_API void   ggml_free_mem(void * ptr);
GGML_API void * ggml_aligned_malloc(size_t size);   // aligned to GGML_MEM_ALIGN_HOST; NULL on failure or size 0
// Allocations of at least GGML_MEM_HUGE_MIN bytes are aligned to GGML_MEM_HUGE_ALIGN and offered
// to transparent huge pages (Linux; GGML_HUGEPAGES=0 in the environment turns it off).
#define GGML_MEM_HUGE_MIN   ((size_t) 4 << 20)
#define GGML_MEM_HUGE_ALIGN ((size_t) 2 << 20)
GGML_API bool ggml_mem_huge_pages_wanted(size_t size);
GGML_API void   ggml_aligned_free(void * ptr, size_t size);

//
// test control (tests only; src/ggml-backend-test-control.c): one entry point for every test hook, as
// SQLite's sqlite3_test_control. Ops are grouped in ranges of 100 per component; a component
// registers the handler of its range (the core's own range is built in).
//

enum ggml_test_control_op {
    // core (ggml-mem.c)
    GGML_TEST_ALLOC_FAULT_SET = 1,      // (long n): the n-th host allocation from now fails; 0 disables
    GGML_TEST_ALLOC_FAULT_COUNT,        // (long * out): allocation calls counted since the last FAULT_SET

    // CPU backend
    GGML_TEST_CPU_FIRST = 100,
    GGML_TEST_CPU_THREADPOOL_CREATE_LIMIT = GGML_TEST_CPU_FIRST, // (int n): worker threads still allowed, -1 no limit
    GGML_TEST_CPU_THREADPOOL_IS_PAUSED,     // (struct ggml_threadpool *, bool * out)
    GGML_TEST_CPU_THREADPOOL_N_SLEEPING,    // (struct ggml_threadpool *, int * out)

    // OpenCL backend
    GGML_TEST_OPENCL_FIRST = 200,
    GGML_TEST_OPENCL_SET_PROGRAM_SOURCE = GGML_TEST_OPENCL_FIRST, // (const char * program, const char * source or NULL)

    GGML_TEST_COMPONENT_END = 300,
};

#define GGML_TEST_OPS_PER_COMPONENT 100

// 0 on success; -1 (logged) for an unknown op, a component that is not built in, or bad arguments
GGML_API int ggml_test_control(int op, ...);

// A component's handler for ops [first, first + GGML_TEST_OPS_PER_COMPONENT): args holds the
// op's arguments. Registering twice replaces; NULL unregisters.
typedef int (*ggml_test_control_fn)(int op, va_list args);
GGML_API void ggml_test_control_register(int first, ggml_test_control_fn fn);

//
// contexts and objects
//

struct ggml_object {
    size_t offs;
    size_t size;
    struct ggml_object * next;
    enum ggml_object_type type;
    char padding[4];
};

#define GGML_OBJECT_SIZE sizeof(struct ggml_object)

struct ggml_context {
    size_t mem_size;
    void * mem_buffer;
    bool   mem_buffer_owned;
    bool   no_alloc;
    int    n_objects;
    struct ggml_object * objects_begin;
    struct ggml_object * objects_end;
};

// Appends an object of `size` bytes (rounded up to GGML_MEM_ALIGN) to the context's arena;
// NULL (logged) when it does not fit.
GGML_API struct ggml_object * ggml_new_object(struct ggml_context * ctx, enum ggml_object_type type, size_t size);

// Creates a tensor (or a view of view_src at view_offs when view_src is not NULL).
// Validates type, dimensions and sizes; logs and returns NULL on any failure.
GGML_API struct ggml_tensor * ggml_new_tensor_impl(
        struct ggml_context * ctx,
        enum ggml_type        type,
        int                   n_dims,
        const int64_t       * ne,
        struct ggml_tensor  * view_src,
        size_t                view_offs);

// false for a tensor (or a view of one) in a backend buffer that is not host memory: its data
// pointer must not be dereferenced by host code
GGML_API bool ggml_tensor_in_host_memory(const struct ggml_tensor * t);

// true for ids that name a type (not removed, in range)
GGML_API bool ggml_type_is_valid(enum ggml_type type);

//
// op parameters
//

static inline bool ggml_set_op_params(struct ggml_tensor * tensor, const void * params, size_t params_size) {
    if (tensor == NULL || params_size > GGML_MAX_OP_PARAMS) {
        return false;
    }
    memcpy(tensor->op_params, params, params_size);
    return true;
}

static inline int32_t ggml_get_op_params_i32(const struct ggml_tensor * tensor, uint32_t i) {
    return ((const int32_t *)(tensor->op_params))[i];
}

static inline float ggml_get_op_params_f32(const struct ggml_tensor * tensor, uint32_t i) {
    float v;
    memcpy(&v, (const char *) tensor->op_params + i*sizeof(float), sizeof(float));
    return v;
}

static inline void ggml_set_op_params_i32(struct ggml_tensor * tensor, uint32_t i, int32_t value) {
    ((int32_t *)(tensor->op_params))[i] = value;
}

static inline void ggml_set_op_params_f32(struct ggml_tensor * tensor, uint32_t i, float value) {
    memcpy((char *) tensor->op_params + i*sizeof(float), &value, sizeof(float));
}

// op_params of CUSTOM and MAP_CUSTOM1..3 nodes (the family's layout): fun is one of the
// ggml_custom*_op_t types of ggml.h, n_tasks is GGML_N_TASKS_MAX or a thread count
struct ggml_custom_op_params {
    void (*fun)(void);
    int    n_tasks;
    void * userdata;
};

static inline size_t ggml_up(size_t n, size_t m) {
    // m must be a power of two
    return (n + m - 1) & ~(m - 1);
}

//
// hash set of tensor pointers (open addressing, linear probing)
//

typedef uint32_t ggml_bitset_t;

#define BITSET_SHR 5
#define BITSET_MASK (sizeof(ggml_bitset_t)*8 - 1)

static inline size_t ggml_bitset_size(size_t n) {
    return (n + BITSET_MASK) >> BITSET_SHR;
}
static inline bool ggml_bitset_get(const ggml_bitset_t * bitset, size_t i) {
    return !!(bitset[i >> BITSET_SHR] & (1u << (i & BITSET_MASK)));
}
static inline void ggml_bitset_set(ggml_bitset_t * bitset, size_t i) {
    bitset[i >> BITSET_SHR] |= (1u << (i & BITSET_MASK));
}
static inline void ggml_bitset_clear(ggml_bitset_t * bitset, size_t i) {
    bitset[i >> BITSET_SHR] &= ~(1u << (i & BITSET_MASK));
}

struct ggml_hash_set {
    size_t size;
    ggml_bitset_t * used;       // which slots hold a key
    struct ggml_tensor ** keys;
};

#define GGML_HASHSET_FULL            ((size_t)-1)
#define GGML_HASHSET_ALREADY_EXISTS  ((size_t)-2)

// a prime >= min_sz, from a fixed table
GGML_API size_t ggml_hash_size(size_t min_sz);
// heap-allocated; on failure returns a set with size 0 and NULL arrays (check .keys)
GGML_API struct ggml_hash_set ggml_hash_set_new(size_t size);
GGML_API void   ggml_hash_set_free(struct ggml_hash_set * hash_set);
GGML_API void   ggml_hash_set_reset(struct ggml_hash_set * hash_set);

static inline size_t ggml_hash(const struct ggml_tensor * p) {
    // tensors are aligned, the low bits carry no information
    return (size_t)(uintptr_t)p >> 4;
}

static inline size_t ggml_hash_find(const struct ggml_hash_set * hash_set, const struct ggml_tensor * key) {
    size_t h = ggml_hash(key) % hash_set->size;
    size_t i = h;
    while (ggml_bitset_get(hash_set->used, i) && hash_set->keys[i] != key) {
        i = (i + 1) % hash_set->size;
        if (i == h) {
            return GGML_HASHSET_FULL;
        }
    }
    return i;
}

static inline bool ggml_hash_contains(const struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    size_t i = ggml_hash_find(hash_set, key);
    return i != GGML_HASHSET_FULL && ggml_bitset_get(hash_set->used, i);
}

// returns the slot, GGML_HASHSET_ALREADY_EXISTS, or GGML_HASHSET_FULL
static inline size_t ggml_hash_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    size_t i = ggml_hash_find(hash_set, key);
    if (i == GGML_HASHSET_FULL) {
        return GGML_HASHSET_FULL;
    }
    if (ggml_bitset_get(hash_set->used, i)) {
        return GGML_HASHSET_ALREADY_EXISTS;
    }
    ggml_bitset_set(hash_set->used, i);
    hash_set->keys[i] = key;
    return i;
}

// returns the slot or GGML_HASHSET_FULL
static inline size_t ggml_hash_find_or_insert(struct ggml_hash_set * hash_set, struct ggml_tensor * key) {
    size_t i = ggml_hash_find(hash_set, key);
    if (i == GGML_HASHSET_FULL) {
        return GGML_HASHSET_FULL;
    }
    ggml_bitset_set(hash_set->used, i);
    hash_set->keys[i] = key;
    return i;
}

//
// graphs
//

struct ggml_cgraph {
    int size;    // capacity of nodes, leafs and (if present) grads
    int n_nodes;
    int n_leafs;

    struct ggml_tensor ** nodes;     // tensors with an op, in execution order
    struct ggml_tensor ** grads;     // NULL unless created with grads
    struct ggml_tensor ** grad_accs; // NULL unless created with grads
    struct ggml_tensor ** leafs;     // tensors without an op (weights, inputs, constants)
    int32_t * use_counts;            // indexed by visited_hash_set slot: how many nodes use each tensor

    struct ggml_hash_set visited_hash_set;

    bool overflow; // set when an expand found more tensors than `size`; the graph is then incomplete
};

// A view of nodes [i0, i1) of cgraph: shares its node array, hash set and use_counts; has no
// leafs and size 0, so it cannot be expanded.
GGML_API struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * cgraph, int i0, int i1);

//
// fp16 / bf16 scalar conversion (portable, exact round-to-nearest-even)
//

GGML_API float       ggml_compute_fp16_to_fp32(ggml_fp16_t h);
GGML_API ggml_fp16_t ggml_compute_fp32_to_fp16(float f);

static inline float ggml_compute_bf16_to_fp32(ggml_bf16_t h) {
    union { float f; uint32_t i; } u;
    u.i = (uint32_t) h.bits << 16;
    return u.f;
}

static inline ggml_bf16_t ggml_compute_fp32_to_bf16(float s) {
    ggml_bf16_t h;
    union { float f; uint32_t i; } u;
    u.f = s;
    if ((u.i & 0x7fffffff) > 0x7f800000) { // NaN: keep it a (quiet) NaN
        h.bits = (uint16_t)((u.i >> 16) | 64);
        return h;
    }
    h.bits = (uint16_t)((u.i + (0x7fff + ((u.i >> 16) & 1))) >> 16);
    return h;
}

#define GGML_FP16_TO_FP32(x) ggml_compute_fp16_to_fp32(x)
#define GGML_FP32_TO_FP16(x) ggml_compute_fp32_to_fp16(x)
#define GGML_BF16_TO_FP32(x) ggml_compute_bf16_to_fp32(x)
#define GGML_FP32_TO_BF16(x) ggml_compute_fp32_to_bf16(x)

#ifdef __cplusplus
}
#endif
