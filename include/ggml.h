#pragma once

// Core tensor library: element types, contexts, tensors, op constructors and graphs.
//
// Names, signatures and enum values follow the ggml family's public header so that programs
// written for it compile unchanged. Unlike the family, no function of this library aborts on bad
// input or on out-of-memory: it logs through the callback set with ggml_log_set() and returns
// NULL / false / an error status. GGML_ASSERT and GGML_ABORT remain available to user programs.

#ifdef GGML_SHARED
#    if defined(_WIN32) && !defined(__MINGW32__)
#        ifdef GGML_BUILD
#            define GGML_API __declspec(dllexport) extern
#        else
#            define GGML_API __declspec(dllimport) extern
#        endif
#    else
#        define GGML_API __attribute__ ((visibility ("default"))) extern
#    endif
#else
#    define GGML_API extern
#endif

#ifdef __GNUC__
#    define GGML_DEPRECATED(func, hint) func __attribute__((deprecated(hint)))
#else
#    define GGML_DEPRECATED(func, hint) func
#endif

#ifndef __GNUC__
#    define GGML_ATTRIBUTE_FORMAT(...)
#else
#    define GGML_ATTRIBUTE_FORMAT(...) __attribute__((format(printf, __VA_ARGS__)))
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GGML_FILE_MAGIC   0x67676d6c
#define GGML_FILE_VERSION 2

#define GGML_QNT_VERSION        2
#define GGML_QNT_VERSION_FACTOR 1000

#define GGML_MAX_DIMS           4
#define GGML_MAX_PARAMS         2048
#define GGML_MAX_SRC            10
#define GGML_MAX_N_THREADS      512
#define GGML_MAX_OP_PARAMS      64

#ifndef GGML_MAX_NAME
#   define GGML_MAX_NAME        64
#endif

#define GGML_DEFAULT_N_THREADS  4
#define GGML_DEFAULT_GRAPH_SIZE 2048

#if UINTPTR_MAX == 0xFFFFFFFF
    #define GGML_MEM_ALIGN 4
#else
    #define GGML_MEM_ALIGN 16
#endif

#define GGML_EXIT_SUCCESS 0
#define GGML_EXIT_ABORTED 1

#define GGML_ROPE_TYPE_NORMAL 0
#define GGML_ROPE_TYPE_NEOX   2
#define GGML_ROPE_TYPE_MROPE  8
#define GGML_ROPE_TYPE_VISION 24
#define GGML_ROPE_TYPE_IMROPE 40

#define GGML_MROPE_SECTIONS   4

#define GGML_UNUSED(x) (void)(x)

#define GGML_PAD(x, n) (((x) + (n) - 1) & ~((n) - 1))

#ifndef NDEBUG
#   define GGML_UNREACHABLE() do { fprintf(stderr, "statement should be unreachable\n"); abort(); } while (0)
#elif defined(__GNUC__)
#   define GGML_UNREACHABLE() __builtin_unreachable()
#else
#   define GGML_UNREACHABLE() ((void) 0)
#endif

#ifdef __cplusplus
#   define GGML_NORETURN [[noreturn]]
#else
#   define GGML_NORETURN _Noreturn
#endif

// For user programs. The library itself never uses these on a path that input can reach.
#define GGML_ABORT(...) ggml_abort(__FILE__, __LINE__, __VA_ARGS__)
#define GGML_ASSERT(x) if (!(x)) GGML_ABORT("GGML_ASSERT(%s) failed", #x)

#define GGML_TENSOR_LOCALS_1(type, prefix, pointer, array) \
    const type prefix##0 = (pointer) ? (pointer)->array[0] : 0; \
    GGML_UNUSED(prefix##0);
#define GGML_TENSOR_LOCALS_2(type, prefix, pointer, array) \
    GGML_TENSOR_LOCALS_1    (type, prefix, pointer, array) \
    const type prefix##1 = (pointer) ? (pointer)->array[1] : 0; \
    GGML_UNUSED(prefix##1);
#define GGML_TENSOR_LOCALS_3(type, prefix, pointer, array) \
    GGML_TENSOR_LOCALS_2    (type, prefix, pointer, array) \
    const type prefix##2 = (pointer) ? (pointer)->array[2] : 0; \
    GGML_UNUSED(prefix##2);
#define GGML_TENSOR_LOCALS(type, prefix, pointer, array) \
    GGML_TENSOR_LOCALS_3  (type, prefix, pointer, array) \
    const type prefix##3 = (pointer) ? (pointer)->array[3] : 0; \
    GGML_UNUSED(prefix##3);

#define GGML_TENSOR_UNARY_OP_LOCALS \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne,  dst,  ne) \
    GGML_TENSOR_LOCALS(size_t,  nb,  dst,  nb)

static inline void ggml_unused_vars_impl(int unused, ...) { (void) unused; }
#define GGML_UNUSED_VARS(...) ggml_unused_vars_impl(0, __VA_ARGS__)

#define GGML_TENSOR_BINARY_OP_LOCALS01 \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne1, src1, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb1, src1, nb)

#define GGML_TENSOR_TERNARY_OP_LOCALS \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne1, src1, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb1, src1, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne2, src2, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb2, src2, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne,  dst,  ne) \
    GGML_TENSOR_LOCALS(size_t,  nb,  dst,  nb)

#define GGML_TENSOR_BINARY_OP_LOCALS \
    GGML_TENSOR_LOCALS(int64_t, ne0, src0, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb0, src0, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne1, src1, ne) \
    GGML_TENSOR_LOCALS(size_t,  nb1, src1, nb) \
    GGML_TENSOR_LOCALS(int64_t, ne,  dst,  ne) \
    GGML_TENSOR_LOCALS(size_t,  nb,  dst,  nb)

#ifdef  __cplusplus
extern "C" {
#endif

    GGML_NORETURN GGML_ATTRIBUTE_FORMAT(3, 4)
    GGML_API void ggml_abort(const char * file, int line, const char * fmt, ...);

    // Called by ggml_abort() before it aborts; returns the previous callback.
    typedef void (*ggml_abort_callback_t)(const char * error_message);
    GGML_API ggml_abort_callback_t ggml_set_abort_callback(ggml_abort_callback_t callback);

    enum ggml_status {
        GGML_STATUS_ALLOC_FAILED = -2,
        GGML_STATUS_FAILED       = -1,
        GGML_STATUS_SUCCESS      =  0,
        GGML_STATUS_ABORTED      =  1,
    };

    GGML_API const char * ggml_status_to_string(enum ggml_status status);

    // IEEE 754 binary16
    typedef uint16_t ggml_fp16_t;
    GGML_API float       ggml_fp16_to_fp32(ggml_fp16_t);
    GGML_API ggml_fp16_t ggml_fp32_to_fp16(float);
    GGML_API void        ggml_fp16_to_fp32_row(const ggml_fp16_t *, float *, int64_t);
    GGML_API void        ggml_fp32_to_fp16_row(const float *, ggml_fp16_t *, int64_t);

    // bfloat16
    typedef struct { uint16_t bits; } ggml_bf16_t;
    GGML_API ggml_bf16_t ggml_fp32_to_bf16(float);
    GGML_API float       ggml_bf16_to_fp32(ggml_bf16_t);
    GGML_API void        ggml_bf16_to_fp32_row(const ggml_bf16_t *, float *, int64_t);
    GGML_API void        ggml_fp32_to_bf16_row_ref(const float *, ggml_bf16_t *, int64_t);
    GGML_API void        ggml_fp32_to_bf16_row(const float *, ggml_bf16_t *, int64_t);

    struct ggml_object;
    struct ggml_context;
    struct ggml_cgraph;

    // Numeric ids are those of the ggml family (and of GGUF files); never renumber.
    enum ggml_type {
        GGML_TYPE_F32     = 0,
        GGML_TYPE_F16     = 1,
        GGML_TYPE_Q4_0    = 2,
        GGML_TYPE_Q4_1    = 3,
        // 4 and 5 were removed
        GGML_TYPE_Q5_0    = 6,
        GGML_TYPE_Q5_1    = 7,
        GGML_TYPE_Q8_0    = 8,
        GGML_TYPE_Q8_1    = 9,
        GGML_TYPE_Q2_K    = 10,
        GGML_TYPE_Q3_K    = 11,
        GGML_TYPE_Q4_K    = 12,
        GGML_TYPE_Q5_K    = 13,
        GGML_TYPE_Q6_K    = 14,
        GGML_TYPE_Q8_K    = 15,
        GGML_TYPE_IQ2_XXS = 16,
        GGML_TYPE_IQ2_XS  = 17,
        GGML_TYPE_IQ3_XXS = 18,
        GGML_TYPE_IQ1_S   = 19,
        GGML_TYPE_IQ4_NL  = 20,
        GGML_TYPE_IQ3_S   = 21,
        GGML_TYPE_IQ2_S   = 22,
        GGML_TYPE_IQ4_XS  = 23,
        GGML_TYPE_I8      = 24,
        GGML_TYPE_I16     = 25,
        GGML_TYPE_I32     = 26,
        GGML_TYPE_I64     = 27,
        GGML_TYPE_F64     = 28,
        GGML_TYPE_IQ1_M   = 29,
        GGML_TYPE_BF16    = 30,
        // 31..33 were removed
        GGML_TYPE_TQ1_0   = 34,
        GGML_TYPE_TQ2_0   = 35,
        // 36..38 were removed
        GGML_TYPE_MXFP4   = 39,
        GGML_TYPE_NVFP4   = 40,
        GGML_TYPE_Q1_0    = 41,
        GGML_TYPE_Q2_0    = 42,
        GGML_TYPE_COUNT   = 43,
    };

    enum ggml_prec {
        GGML_PREC_DEFAULT =  0,
        GGML_PREC_F32     = 10,
    };

    // hints a backend may use to pick a faster kernel; the result is the same without them
    enum ggml_op_hint {
        GGML_HINT_NONE             = 0,
        GGML_HINT_SRC0_IS_HADAMARD = 1, // MUL_MAT: a is a (scaled) Hadamard matrix
    };

    // the weight type of a whole model file (older file formats store it)
    enum ggml_ftype {
        GGML_FTYPE_UNKNOWN              = -1,
        GGML_FTYPE_ALL_F32              = 0,
        GGML_FTYPE_MOSTLY_F16           = 1,  // "MOSTLY": 1-D tensors stay F32
        GGML_FTYPE_MOSTLY_Q4_0          = 2,
        GGML_FTYPE_MOSTLY_Q4_1          = 3,
        GGML_FTYPE_MOSTLY_Q4_1_SOME_F16 = 4,  // token embeddings and output in F16
        GGML_FTYPE_MOSTLY_Q8_0          = 7,
        GGML_FTYPE_MOSTLY_Q5_0          = 8,
        GGML_FTYPE_MOSTLY_Q5_1          = 9,
        GGML_FTYPE_MOSTLY_Q2_K          = 10,
        GGML_FTYPE_MOSTLY_Q3_K          = 11,
        GGML_FTYPE_MOSTLY_Q4_K          = 12,
        GGML_FTYPE_MOSTLY_Q5_K          = 13,
        GGML_FTYPE_MOSTLY_Q6_K          = 14,
        GGML_FTYPE_MOSTLY_IQ2_XXS       = 15,
        GGML_FTYPE_MOSTLY_IQ2_XS        = 16,
        GGML_FTYPE_MOSTLY_IQ3_XXS       = 17,
        GGML_FTYPE_MOSTLY_IQ1_S         = 18,
        GGML_FTYPE_MOSTLY_IQ4_NL        = 19,
        GGML_FTYPE_MOSTLY_IQ3_S         = 20,
        GGML_FTYPE_MOSTLY_IQ2_S         = 21,
        GGML_FTYPE_MOSTLY_IQ4_XS        = 22,
        GGML_FTYPE_MOSTLY_IQ1_M         = 23,
        GGML_FTYPE_MOSTLY_BF16          = 24,
        GGML_FTYPE_MOSTLY_MXFP4         = 25,
        GGML_FTYPE_MOSTLY_NVFP4         = 26,
        GGML_FTYPE_MOSTLY_Q1_0          = 27,
        GGML_FTYPE_MOSTLY_Q2_0          = 28,
    };

    enum ggml_op {
        GGML_OP_NONE = 0,

        GGML_OP_DUP,
        GGML_OP_ADD,
        GGML_OP_ADD_ID,
        GGML_OP_ADD1,
        GGML_OP_ACC,
        GGML_OP_SUB,
        GGML_OP_MUL,
        GGML_OP_DIV,
        GGML_OP_SQR,
        GGML_OP_SQRT,
        GGML_OP_LOG,
        GGML_OP_SIN,
        GGML_OP_COS,
        GGML_OP_SUM,
        GGML_OP_SUM_ROWS,
        GGML_OP_CUMSUM,
        GGML_OP_MEAN,
        GGML_OP_ARGMAX,
        GGML_OP_COUNT_EQUAL,
        GGML_OP_REPEAT,
        GGML_OP_REPEAT_BACK,
        GGML_OP_CONCAT,
        GGML_OP_SILU_BACK,
        GGML_OP_NORM,
        GGML_OP_RMS_NORM,
        GGML_OP_RMS_NORM_BACK,
        GGML_OP_GROUP_NORM,
        GGML_OP_L2_NORM,

        GGML_OP_MUL_MAT,
        GGML_OP_MUL_MAT_ID,
        GGML_OP_OUT_PROD,

        GGML_OP_SCALE,
        GGML_OP_SET,
        GGML_OP_CPY,
        GGML_OP_CONT,
        GGML_OP_RESHAPE,
        GGML_OP_VIEW,
        GGML_OP_PERMUTE,
        GGML_OP_TRANSPOSE,
        GGML_OP_GET_ROWS,
        GGML_OP_GET_ROWS_BACK,
        GGML_OP_SET_ROWS,
        GGML_OP_DIAG,
        GGML_OP_DIAG_MASK_INF,
        GGML_OP_DIAG_MASK_ZERO,
        GGML_OP_SOFT_MAX,
        GGML_OP_SOFT_MAX_BACK,
        GGML_OP_ROPE,
        GGML_OP_ROPE_BACK,
        GGML_OP_CLAMP,
        GGML_OP_CONV_TRANSPOSE_1D,
        GGML_OP_IM2COL,
        GGML_OP_IM2COL_BACK,
        GGML_OP_IM2COL_3D,
        GGML_OP_COL2IM_1D,
        GGML_OP_CONV_2D,
        GGML_OP_CONV_3D,
        GGML_OP_CONV_2D_DW,
        GGML_OP_CONV_TRANSPOSE_2D,
        GGML_OP_POOL_1D,
        GGML_OP_POOL_2D,
        GGML_OP_POOL_2D_BACK,
        GGML_OP_UPSCALE,
        GGML_OP_PAD,
        GGML_OP_PAD_REFLECT_1D,
        GGML_OP_ROLL,
        GGML_OP_ARANGE,
        GGML_OP_TIMESTEP_EMBEDDING,
        GGML_OP_ARGSORT,
        GGML_OP_TOP_K,
        GGML_OP_LEAKY_RELU,
        GGML_OP_TRI,
        GGML_OP_FILL,

        GGML_OP_FLASH_ATTN_EXT,
        GGML_OP_FLASH_ATTN_BACK,
        GGML_OP_SSM_CONV,
        GGML_OP_SSM_SCAN,
        GGML_OP_WIN_PART,
        GGML_OP_WIN_UNPART,
        GGML_OP_GET_REL_POS,
        GGML_OP_ADD_REL_POS,
        GGML_OP_RWKV_WKV6,
        GGML_OP_GATED_LINEAR_ATTN,
        GGML_OP_RWKV_WKV7,
        GGML_OP_SOLVE_TRI,
        GGML_OP_GATED_DELTA_NET,
        GGML_OP_LIGHTNING_INDEXER,
        GGML_OP_DSV4_HC_COMB,
        GGML_OP_DSV4_HC_PRE,
        GGML_OP_DSV4_HC_POST,

        GGML_OP_UNARY,

        GGML_OP_MAP_CUSTOM1,
        GGML_OP_MAP_CUSTOM2,
        GGML_OP_MAP_CUSTOM3,

        GGML_OP_CUSTOM,

        GGML_OP_CROSS_ENTROPY_LOSS,
        GGML_OP_CROSS_ENTROPY_LOSS_BACK,
        GGML_OP_OPT_STEP_ADAMW,
        GGML_OP_OPT_STEP_SGD,

        GGML_OP_GLU,

        GGML_OP_COUNT,
    };

    enum ggml_unary_op {
        GGML_UNARY_OP_ABS,
        GGML_UNARY_OP_SGN,
        GGML_UNARY_OP_NEG,
        GGML_UNARY_OP_STEP,
        GGML_UNARY_OP_TANH,
        GGML_UNARY_OP_ELU,
        GGML_UNARY_OP_RELU,
        GGML_UNARY_OP_SIGMOID,
        GGML_UNARY_OP_GELU,
        GGML_UNARY_OP_GELU_QUICK,
        GGML_UNARY_OP_SILU,
        GGML_UNARY_OP_HARDSWISH,
        GGML_UNARY_OP_HARDSIGMOID,
        GGML_UNARY_OP_EXP,
        GGML_UNARY_OP_EXPM1,
        GGML_UNARY_OP_SOFTPLUS,
        GGML_UNARY_OP_GELU_ERF,
        GGML_UNARY_OP_XIELU,
        GGML_UNARY_OP_FLOOR,
        GGML_UNARY_OP_CEIL,
        GGML_UNARY_OP_ROUND,
        GGML_UNARY_OP_TRUNC,

        GGML_UNARY_OP_COUNT,
    };

    enum ggml_glu_op {
        GGML_GLU_OP_REGLU,
        GGML_GLU_OP_GEGLU,
        GGML_GLU_OP_SWIGLU,
        GGML_GLU_OP_SWIGLU_OAI,
        GGML_GLU_OP_GEGLU_ERF,
        GGML_GLU_OP_GEGLU_QUICK,

        GGML_GLU_OP_COUNT,
    };

    enum ggml_object_type {
        GGML_OBJECT_TYPE_TENSOR,
        GGML_OBJECT_TYPE_GRAPH,
        GGML_OBJECT_TYPE_WORK_BUFFER
    };

    enum ggml_log_level {
        GGML_LOG_LEVEL_NONE  = 0,
        GGML_LOG_LEVEL_DEBUG = 1,
        GGML_LOG_LEVEL_INFO  = 2,
        GGML_LOG_LEVEL_WARN  = 3,
        GGML_LOG_LEVEL_ERROR = 4,
        GGML_LOG_LEVEL_CONT  = 5, // continues the previous message
    };

    enum ggml_tensor_flag {
        GGML_TENSOR_FLAG_INPUT   =  1, // graph input
        GGML_TENSOR_FLAG_OUTPUT  =  2, // graph output: its memory is never reused
        GGML_TENSOR_FLAG_PARAM   =  4, // trainable parameter
        GGML_TENSOR_FLAG_LOSS    =  8, // loss term
        GGML_TENSOR_FLAG_COMPUTE = 16, // set on nodes that a graph computes
    };

    struct ggml_init_params {
        size_t mem_size;   // bytes of the context's arena
        void * mem_buffer; // NULL: the context allocates (and later frees) the arena itself
        bool   no_alloc;   // true: tensors get no data (a backend buffer provides it later)
    };

    // An n-dimensional tensor (n <= 4). Layout identical to the ggml family's.
    struct ggml_tensor {
        enum ggml_type type;

        struct ggml_backend_buffer * buffer;

        int64_t ne[GGML_MAX_DIMS]; // elements per dimension
        size_t  nb[GGML_MAX_DIMS]; // stride in bytes per dimension:
                                   // nb[0] = type size, nb[1] = nb[0]*(ne[0]/block size), nb[i] = nb[i-1]*ne[i-1]

        enum ggml_op op;

        int32_t op_params[GGML_MAX_OP_PARAMS / sizeof(int32_t)];

        int32_t flags;

        struct ggml_tensor * src[GGML_MAX_SRC];

        struct ggml_tensor * view_src;  // the tensor whose memory this view shares
        size_t               view_offs; // byte offset into view_src

        void * data;

        char name[GGML_MAX_NAME];

        void * extra; // backend-specific

        char padding[8];
    };

    static const size_t GGML_TENSOR_SIZE = sizeof(struct ggml_tensor);

    // Polled during computation; returning true aborts it (status GGML_STATUS_ABORTED).
    typedef bool (*ggml_abort_callback)(void * data);

    typedef uint8_t ggml_guid[16];
    typedef ggml_guid * ggml_guid_t;

    GGML_API bool ggml_guid_matches(ggml_guid_t guid_a, ggml_guid_t guid_b);

    // misc

    GGML_API const char * ggml_version(void);
    GGML_API const char * ggml_commit(void);

    GGML_API void    ggml_time_init(void);
    GGML_API int64_t ggml_time_ms(void);
    GGML_API int64_t ggml_time_us(void);
    GGML_API int64_t ggml_cycles(void);
    GGML_API int64_t ggml_cycles_per_ms(void);

    GGML_API FILE *  ggml_fopen(const char * fname, const char * mode);

    GGML_API void    ggml_print_object (const struct ggml_object * obj);
    GGML_API void    ggml_print_objects(const struct ggml_context * ctx);

    GGML_API int64_t ggml_nelements (const struct ggml_tensor * tensor);
    GGML_API int64_t ggml_nrows     (const struct ggml_tensor * tensor);
    GGML_API size_t  ggml_nbytes    (const struct ggml_tensor * tensor);
    GGML_API size_t  ggml_nbytes_pad(const struct ggml_tensor * tensor);

    GGML_API int64_t ggml_blck_size(enum ggml_type type);
    GGML_API size_t  ggml_type_size(enum ggml_type type);             // bytes of one block
    GGML_API size_t  ggml_row_size (enum ggml_type type, int64_t ne); // bytes of ne elements

    GGML_DEPRECATED(
    GGML_API double ggml_type_sizef(enum ggml_type type),
    "use ggml_row_size() instead");

    GGML_API const char * ggml_type_name(enum ggml_type type);
    // the weight type of a file type; GGML_TYPE_COUNT (with a logged error) for UNKNOWN,
    // Q4_1_SOME_F16 and values that are not file types
    GGML_API enum ggml_type ggml_ftype_to_ggml_type(enum ggml_ftype ftype);
    GGML_API const char * ggml_op_name  (enum ggml_op   op);
    GGML_API const char * ggml_op_symbol(enum ggml_op   op);

    GGML_API const char * ggml_unary_op_name(enum ggml_unary_op op);
    GGML_API const char * ggml_glu_op_name(enum ggml_glu_op op);
    GGML_API const char * ggml_op_desc(const struct ggml_tensor * t); // unary/glu op name or op name

    GGML_API size_t  ggml_element_size(const struct ggml_tensor * tensor);

    GGML_API bool    ggml_is_quantized(enum ggml_type type);

    GGML_API bool ggml_is_transposed(const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_permuted  (const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_empty     (const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_scalar    (const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_vector    (const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_matrix    (const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_3d        (const struct ggml_tensor * tensor);
    GGML_API int  ggml_n_dims       (const struct ggml_tensor * tensor); // 1 for scalars

    GGML_API bool ggml_is_contiguous  (const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_contiguous_0(const struct ggml_tensor * tensor); // same as ggml_is_contiguous()
    GGML_API bool ggml_is_contiguous_1(const struct ggml_tensor * tensor); // contiguous for dims >= 1
    GGML_API bool ggml_is_contiguous_2(const struct ggml_tensor * tensor); // contiguous for dims >= 2
    GGML_API bool ggml_is_contiguous_to_1(const struct ggml_tensor * tensor); // contiguous for dims < 1
    GGML_API bool ggml_is_contiguous_to_2(const struct ggml_tensor * tensor); // contiguous for dims < 2
    GGML_API bool ggml_is_contiguous_to_3(const struct ggml_tensor * tensor); // contiguous for dims < 3
    GGML_API bool ggml_is_view(const struct ggml_tensor * tensor);            // a view of another tensor's data
    GGML_API bool ggml_is_contiguously_allocated(const struct ggml_tensor * tensor); // no gaps, any order
    GGML_API bool ggml_is_contiguous_channels(const struct ggml_tensor * tensor);
    GGML_API bool ggml_is_contiguous_rows(const struct ggml_tensor * tensor); // elements of a row contiguous

    GGML_API bool ggml_are_same_shape (const struct ggml_tensor * t0, const struct ggml_tensor * t1);
    GGML_API bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1);

    GGML_API bool ggml_can_repeat(const struct ggml_tensor * t0, const struct ggml_tensor * t1);

    GGML_API size_t ggml_tensor_overhead(void);

    GGML_API bool ggml_validate_row_data(enum ggml_type type, const void * data, size_t nbytes);

    // quantization
    //
    // ggml_quantize_chunk quantizes nrows rows of n_per_row floats from src + start into dst
    // (start must be on a row; dst is the start of the whole tensor). imatrix: n_per_row
    // importance weights, or NULL. Returns the bytes written, 0 after logging on bad arguments or
    // a type without a quantizer (IQ1/IQ2/IQ3 and NVFP4 are dequantize-only for now).
    GGML_API void   ggml_quantize_init(enum ggml_type type); // nothing to prepare; kept for the family's callers
    GGML_API void   ggml_quantize_free(void);
    GGML_API bool   ggml_quantize_requires_imatrix(enum ggml_type type);
    GGML_API size_t ggml_quantize_chunk(
            enum ggml_type   type,
               const float * src,
                      void * dst,
                   int64_t   start,
                   int64_t   nrows,
                   int64_t   n_per_row,
               const float * imatrix);

    // contexts

    GGML_API struct ggml_context * ggml_init (struct ggml_init_params params); // NULL on failure
    GGML_API void                  ggml_reset(struct ggml_context * ctx);
    GGML_API void                  ggml_free (struct ggml_context * ctx);

    GGML_API size_t  ggml_used_mem(const struct ggml_context * ctx);

    GGML_API bool    ggml_get_no_alloc(struct ggml_context * ctx);
    GGML_API void    ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc);

    GGML_API void *  ggml_get_mem_buffer     (const struct ggml_context * ctx);
    GGML_API size_t  ggml_get_mem_size       (const struct ggml_context * ctx);
    GGML_API size_t  ggml_get_max_tensor_size(const struct ggml_context * ctx);

    // tensors (NULL when the context is full or the arguments are invalid)

    GGML_API struct ggml_tensor * ggml_new_tensor(
            struct ggml_context * ctx,
            enum   ggml_type type,
            int    n_dims,
            const int64_t *ne);

    GGML_API struct ggml_tensor * ggml_new_tensor_1d(
            struct ggml_context * ctx,
            enum   ggml_type type,
            int64_t ne0);

    GGML_API struct ggml_tensor * ggml_new_tensor_2d(
            struct ggml_context * ctx,
            enum   ggml_type type,
            int64_t ne0,
            int64_t ne1);

    GGML_API struct ggml_tensor * ggml_new_tensor_3d(
            struct ggml_context * ctx,
            enum   ggml_type type,
            int64_t ne0,
            int64_t ne1,
            int64_t ne2);

    GGML_API struct ggml_tensor * ggml_new_tensor_4d(
            struct ggml_context * ctx,
            enum   ggml_type type,
            int64_t ne0,
            int64_t ne1,
            int64_t ne2,
            int64_t ne3);

    GGML_API void * ggml_new_buffer(struct ggml_context * ctx, size_t nbytes);

    GGML_API struct ggml_tensor * ggml_dup_tensor (struct ggml_context * ctx, const struct ggml_tensor * src);
    GGML_API struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src);

    GGML_API struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx);
    GGML_API struct ggml_tensor * ggml_get_next_tensor (const struct ggml_context * ctx, struct ggml_tensor * tensor);
    GGML_API struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name);

    GGML_API void ggml_unravel_index(const struct ggml_tensor * tensor, int64_t i, int64_t * i0, int64_t * i1, int64_t * i2, int64_t * i3);

    GGML_API enum ggml_unary_op ggml_get_unary_op(const struct ggml_tensor * tensor);
    GGML_API enum ggml_glu_op   ggml_get_glu_op(const struct ggml_tensor * tensor);

    GGML_API void *  ggml_get_data    (const struct ggml_tensor * tensor);
    GGML_API float * ggml_get_data_f32(const struct ggml_tensor * tensor);

    GGML_API const char *         ggml_get_name   (const struct ggml_tensor * tensor);
    GGML_API struct ggml_tensor * ggml_set_name   (      struct ggml_tensor * tensor, const char * name);
    GGML_ATTRIBUTE_FORMAT(2, 3)
    GGML_API struct ggml_tensor * ggml_format_name(      struct ggml_tensor * tensor, const char * fmt, ...);

    GGML_API void ggml_set_input (struct ggml_tensor * tensor);
    GGML_API void ggml_set_output(struct ggml_tensor * tensor);
    GGML_API void ggml_set_param (struct ggml_tensor * tensor);
    GGML_API void ggml_set_loss  (struct ggml_tensor * tensor);

    // Element access for tensors whose data is in host memory (not for backend buffers that are
    // not host memory). Out-of-range indices log an error; getters then return 0.
    GGML_API struct ggml_tensor * ggml_new_i32(struct ggml_context * ctx, int32_t value);
    GGML_API struct ggml_tensor * ggml_new_f32(struct ggml_context * ctx, float value);

    GGML_API struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor);
    GGML_API struct ggml_tensor * ggml_set_i32 (struct ggml_tensor * tensor, int32_t value);
    GGML_API struct ggml_tensor * ggml_set_f32 (struct ggml_tensor * tensor, float value);

    GGML_API int32_t ggml_get_i32_1d(const struct ggml_tensor * tensor, int i);
    GGML_API void    ggml_set_i32_1d(const struct ggml_tensor * tensor, int i, int32_t value);
    GGML_API int32_t ggml_get_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3);
    GGML_API void    ggml_set_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, int32_t value);

    GGML_API float   ggml_get_f32_1d(const struct ggml_tensor * tensor, int i);
    GGML_API void    ggml_set_f32_1d(const struct ggml_tensor * tensor, int i, float value);
    GGML_API float   ggml_get_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3);
    GGML_API void    ggml_set_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, float value);

    //
    // Op constructors. Each builds a graph node and computes nothing. Any NULL tensor argument,
    // or shapes/types the op cannot take, give NULL (with a logged message naming the shapes).
    // *_inplace variants return a view of their first argument and write into its memory.
    //

    GGML_API struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_dup_inplace(struct ggml_context * ctx, struct ggml_tensor * a);

    // binary element-wise ops: b is broadcast (repeated) to the shape of a
    GGML_API struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_add_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_add_cast(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, enum ggml_type type);
    // dst[i0, i1, i2] = a[i0, i1, i2] + b[i0, ids[i1, i2]]  (ids: I32 [a->ne[1], a->ne[2]], b: one row per id)
    GGML_API struct ggml_tensor * ggml_add_id(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * ids);
    // b is a scalar (one element)
    GGML_API struct ggml_tensor * ggml_add1(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_add1_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

    // dst = a; view(dst, nb1, nb2, nb3, offset) += b
    GGML_API struct ggml_tensor * ggml_acc(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            size_t nb1, size_t nb2, size_t nb3, size_t offset);
    GGML_API struct ggml_tensor * ggml_acc_inplace(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            size_t nb1, size_t nb2, size_t nb3, size_t offset);

    GGML_API struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_sub_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_mul_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_div_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

    GGML_API struct ggml_tensor * ggml_sqr(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sqr_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sqrt_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_log(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_log_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sin(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sin_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_cos(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_cos_inplace(struct ggml_context * ctx, struct ggml_tensor * a);

    // reductions
    GGML_API struct ggml_tensor * ggml_sum(struct ggml_context * ctx, struct ggml_tensor * a);      // -> [1,1,1,1]
    GGML_API struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a); // [a,b,c,d] -> [1,b,c,d]
    GGML_API struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a);     // along rows
    GGML_API struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a);   // I32, along rows of a matrix

    // repeat a to the shape of b
    GGML_API struct ggml_tensor * ggml_repeat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_repeat_4d(struct ggml_context * ctx, struct ggml_tensor * a,
            int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

    // concatenate a and b along dim (0..3)
    GGML_API struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim);

    // unary ops
    GGML_API struct ggml_tensor * ggml_abs(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_abs_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sgn(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sgn_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_neg(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_neg_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_step(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_step_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_tanh(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_tanh_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_elu(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_elu_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_relu(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_relu_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_leaky_relu(struct ggml_context * ctx, struct ggml_tensor * a, float negative_slope, bool inplace);
    GGML_API struct ggml_tensor * ggml_sigmoid(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_sigmoid_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_gelu(struct ggml_context * ctx, struct ggml_tensor * a);       // tanh approximation
    GGML_API struct ggml_tensor * ggml_gelu_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_gelu_erf(struct ggml_context * ctx, struct ggml_tensor * a);   // exact (erf)
    GGML_API struct ggml_tensor * ggml_gelu_erf_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_gelu_quick(struct ggml_context * ctx, struct ggml_tensor * a); // x*sigmoid(1.702x)
    GGML_API struct ggml_tensor * ggml_gelu_quick_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_silu(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_silu_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_hardswish(struct ggml_context * ctx, struct ggml_tensor * a);   // x*relu6(x+3)/6
    GGML_API struct ggml_tensor * ggml_hardsigmoid(struct ggml_context * ctx, struct ggml_tensor * a); // relu6(x+3)/6
    GGML_API struct ggml_tensor * ggml_exp(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_exp_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_expm1(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_expm1_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_softplus(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_softplus_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_floor(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_floor_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_ceil(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_ceil_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_round(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_round_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_trunc(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_trunc_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    // xIELU activation with its trained parameters
    GGML_API struct ggml_tensor * ggml_xielu(struct ggml_context * ctx, struct ggml_tensor * a,
            float alpha_n, float alpha_p, float beta, float eps);
    GGML_API struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op);
    GGML_API struct ggml_tensor * ggml_unary_inplace(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op);

    // gated linear units. One-tensor form: a's rows hold [x | g] halves (swapped: [g | x]), the
    // result has half the row length. Split form: x = a, g = b, same shapes.
    // reglu = relu(x)*g, geglu = gelu(x)*g, swiglu = silu(x)*g
    GGML_API struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped);
    GGML_API struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, enum ggml_glu_op op);
    GGML_API struct ggml_tensor * ggml_reglu(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_reglu_swapped(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_geglu(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_geglu_swapped(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_swiglu(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_swiglu_swapped(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_geglu_erf(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_geglu_erf_swapped(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_geglu_quick(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_geglu_quick_swapped(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_reglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_geglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_swiglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_geglu_erf_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_geglu_quick_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // gpt-oss SwiGLU: x*sigmoid(alpha*x)*(g + 1) with x clamped above at limit and g to [-limit, limit]; b NULL: one-tensor form
    GGML_API struct ggml_tensor * ggml_swiglu_oai(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, float alpha, float limit);

    // normalization along rows
    GGML_API struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
    GGML_API struct ggml_tensor * ggml_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
    GGML_API struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
    GGML_API struct ggml_tensor * ggml_rms_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
    // groups of channels (dim 2), each normalized over ne0*ne1*(channels per group)
    GGML_API struct ggml_tensor * ggml_group_norm(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps);
    GGML_API struct ggml_tensor * ggml_group_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_groups, float eps);
    GGML_API struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps);
    GGML_API struct ggml_tensor * ggml_l2_norm_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float eps);

    // a: [k, n, ne2, ne3], b: [k, m, ne2*x, ne3*y] -> [n, m, ne2*x, ne3*y]  (result = b * a^T per matrix)
    GGML_API struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API void ggml_mul_mat_set_prec(struct ggml_tensor * a, enum ggml_prec prec);
    // stored in op_params[1]; a hint only (this library's kernels compute the product either way)
    GGML_API void ggml_mul_mat_set_hint(struct ggml_tensor * a, enum ggml_op_hint hint);

    // indirect product (mixture of experts): as: [k, n, n_expert], b: [k, n_b, n_tokens], ids: I32 [n_used, n_tokens]
    // -> F32 [n, n_used, n_tokens]: result[:, e, t] = as[:, :, ids[e, t]] * b[:, e % n_b, t]  (n_b divides n_used)
    GGML_API struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as, struct ggml_tensor * b, struct ggml_tensor * ids);

    // a: [m, n, ...], b: [p, n, ...] -> [m, p, ...]
    GGML_API struct ggml_tensor * ggml_out_prod(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);

    GGML_API struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s);
    GGML_API struct ggml_tensor * ggml_scale_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s);
    // a*s + b
    GGML_API struct ggml_tensor * ggml_scale_bias(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b);
    GGML_API struct ggml_tensor * ggml_scale_bias_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b);

    // b -> view(a, nb1, nb2, nb3, offset); ggml_set returns the modified copy of a, _inplace a view of a
    GGML_API struct ggml_tensor * ggml_set(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            size_t nb1, size_t nb2, size_t nb3, size_t offset);
    GGML_API struct ggml_tensor * ggml_set_inplace(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            size_t nb1, size_t nb2, size_t nb3, size_t offset);
    GGML_API struct ggml_tensor * ggml_set_1d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t offset);
    GGML_API struct ggml_tensor * ggml_set_1d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t offset);
    GGML_API struct ggml_tensor * ggml_set_2d(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1, size_t offset);
    GGML_API struct ggml_tensor * ggml_set_2d_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, size_t nb1, size_t offset);

    // a -> b (same number of elements, converting types), returns a view of b
    GGML_API struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_cast(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_type type);

    // make contiguous (optionally with a new shape of the same element count)
    GGML_API struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_cont_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0);
    GGML_API struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1);
    GGML_API struct ggml_tensor * ggml_cont_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2);
    GGML_API struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

    // views of a contiguous a with a new shape of the same element count
    GGML_API struct ggml_tensor * ggml_reshape(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    GGML_API struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0);
    GGML_API struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1);
    GGML_API struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2);
    GGML_API struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3);

    // strided views; offset and strides in bytes; must stay inside a's memory
    GGML_API struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset);
    GGML_API struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
            size_t nb1, size_t offset);
    GGML_API struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2,
            size_t nb1, size_t nb2, size_t offset);
    GGML_API struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
            size_t nb1, size_t nb2, size_t nb3, size_t offset);

    // axis i of a becomes axis axis_i of the result; the four axes must be a permutation of 0..3
    GGML_API struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1, int axis2, int axis3);
    GGML_API struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a); // permute(a, 1, 0, 2, 3)

    // rows of a picked by the I32 indices in b: a [n, rows, ne2, ne3], b [k, ne2, ne3] -> [n, k, ne2, ne3] (F32 unless a is I32)
    GGML_API struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // writes the rows of b into a at the I64/I32 indices c: a [n, rows, ne2, ne3], b [n, k, ne2', ne3'], c [k, ne2', ne3']; returns a view of a
    GGML_API struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c);

    GGML_API struct ggml_tensor * ggml_diag_mask_inf(struct ggml_context * ctx, struct ggml_tensor * a, int n_past);
    GGML_API struct ggml_tensor * ggml_diag_mask_inf_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past);
    GGML_API struct ggml_tensor * ggml_diag_mask_zero(struct ggml_context * ctx, struct ggml_tensor * a, int n_past);
    GGML_API struct ggml_tensor * ggml_diag_mask_zero_inplace(struct ggml_context * ctx, struct ggml_tensor * a, int n_past);

    GGML_API struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a);
    GGML_API struct ggml_tensor * ggml_soft_max_inplace(struct ggml_context * ctx, struct ggml_tensor * a);
    // soft_max(a*scale + mask*(ALiBi slope)); mask optional (F32 or F16, broadcast over dims 2,3); max_bias 0: no ALiBi
    GGML_API struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
            float scale, float max_bias);
    GGML_API struct ggml_tensor * ggml_soft_max_ext_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
            float scale, float max_bias);
    // adds per-head "sink" logits (F32 [ne2]) to the soft_max denominator
    GGML_API void ggml_soft_max_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks);

    // rotary position embedding; b: I32 positions [a->ne[2]] (4x that for MROPE); c: optional freq factors [n_dims/2]
    GGML_API struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims, int mode);
    GGML_API struct ggml_tensor * ggml_rope_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int n_dims, int mode);
    GGML_API struct ggml_tensor * ggml_rope_ext(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            int n_dims, int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow);
    GGML_API struct ggml_tensor * ggml_rope_ext_inplace(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            int n_dims, int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow);
    GGML_API struct ggml_tensor * ggml_rope_multi(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            int n_dims, int sections[GGML_MROPE_SECTIONS], int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow);
    GGML_API struct ggml_tensor * ggml_rope_multi_inplace(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            int n_dims, int sections[GGML_MROPE_SECTIONS], int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow);
    // ggml_rope_ext without frequency factors (the family's older name)
    GGML_DEPRECATED(GGML_API struct ggml_tensor * ggml_rope_custom(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int n_dims, int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow),
        "use ggml_rope_ext instead");
    GGML_DEPRECATED(GGML_API struct ggml_tensor * ggml_rope_custom_inplace(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int n_dims, int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow),
        "use ggml_rope_ext_inplace instead");
    // rotates elements [n_offs, n_offs + n_dims) of each row instead of [0, n_dims) (op_params[15]);
    // a: a ROPE node of a mode other than VISION, n_offs even and >= 0. Returns a (NULL on bad input).
    GGML_API struct ggml_tensor * ggml_rope_set_offset(struct ggml_tensor * a, int n_offs);
    // YaRN correction dims
    GGML_API void ggml_rope_yarn_corr_dims(int n_dims, int n_ctx_orig, float freq_base, float beta_fast, float beta_slow, float dims[2]);

    GGML_API struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float min, float max);

    // a: kernel [KW, KH, IC, OC], b: data [W, H, IC, N] (1-D: [KW, IC, OC] and [W, IC, N])
    // -> [IC*KH*KW, OW, OH, N] (1-D: [IC*KW, OW, N]) of dst_type (F32 or F16)
    GGML_API struct ggml_tensor * ggml_im2col(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D, enum ggml_type dst_type);

    // 2-D convolution through im2col + mul_mat: a [KW, KH, IC, OC], b [W, H, IC, N] -> [OW, OH, OC, N]
    GGML_API struct ggml_tensor * ggml_conv_2d(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int s0, int s1, int p0, int p1, int d0, int d1);
    // the same result as one op (GGML_OP_CONV_2D)
    GGML_API struct ggml_tensor * ggml_conv_2d_direct(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int s0, int s1, int p0, int p1, int d0, int d1);

    // The family's other convolutions (src/ggml-ops-conv.c). The composites build the family's
    // own graphs (im2col + mul_mat + reshapes); the others are one op each.
    // 1-D: a [K, IC, OC], b [L, IC, N] -> [OL, OC, N] (im2col + mul_mat; as the family, the
    // result's rows are ordered correctly for N == 1 only)
    GGML_API struct ggml_tensor * ggml_conv_1d(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int p0, int d0);
    // ggml_conv_1d with padding a->ne[0]/2
    GGML_API struct ggml_tensor * ggml_conv_1d_ph(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s, int d);
    // depthwise 1-D: a [K, 1, C], b [L, C] -> [OL, C, 1] (im2col + mul_mat)
    GGML_API struct ggml_tensor * ggml_conv_1d_dw(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int p0, int d0);
    GGML_API struct ggml_tensor * ggml_conv_1d_dw_ph(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int d0);
    // GGML_OP_CONV_TRANSPOSE_1D: a [K, OC, IC], b [L, IC] -> F32 [(L - 1)*s0 + K, OC];
    // p0 must be 0 and d0 1 (as the family); op_params s0, p0, d0
    GGML_API struct ggml_tensor * ggml_conv_transpose_1d(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int s0, int p0, int d0);
    // GGML_OP_CONV_TRANSPOSE_2D: a [KW, KH, OC, IC], b [W, H, IC, N] -> F32 [(W - 1)*stride + KW,
    // (H - 1)*stride + KH, OC, N]; op_params stride
    GGML_API struct ggml_tensor * ggml_conv_transpose_2d_p0(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int stride);
    // ggml_conv_2d with stride = kernel size, no padding
    GGML_API struct ggml_tensor * ggml_conv_2d_sk_p0(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // ggml_conv_2d with stride 1 and padding half the kernel
    GGML_API struct ggml_tensor * ggml_conv_2d_s1_ph(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // depthwise 2-D: a [KW, KH, 1, C], b [W, H, C, N] -> [OW, OH, C, N] (im2col + mul_mat)
    GGML_API struct ggml_tensor * ggml_conv_2d_dw(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int s0, int s1, int p0, int p1, int d0, int d1);
    // GGML_OP_CONV_2D_DW, the same as one op: a [KW, KH, 1, C], b [W, H, C, N] -> [OW, OH, C, N] of
    // b's type; when b's channels are adjacent in memory (ggml_is_contiguous_channels) the result
    // has the same layout. op_params stride0, stride1, pad0, pad1, dilation0, dilation1
    GGML_API struct ggml_tensor * ggml_conv_2d_dw_direct(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int stride0, int stride1, int pad0, int pad1, int dilation0, int dilation1);
    // GGML_OP_IM2COL_3D: a [KW, KH, KD, OC*IC] (shape only), b [W, H, D, N*IC] ->
    // [IC*KD*KH*KW, OW, OH, N*OD] of dst_type (F32 or F16); op_params s0, s1, s2, p0, p1, p2,
    // d0, d1, d2, IC
    GGML_API struct ggml_tensor * ggml_im2col_3d(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int64_t IC,
            int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2, enum ggml_type dst_type);
    // 3-D through im2col_3d + mul_mat: a [KW, KH, KD, OC*IC], b [W, H, D, N*IC] -> [OW, OH, OD, N*OC]
    GGML_API struct ggml_tensor * ggml_conv_3d(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int64_t IC,
            int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2);
    // GGML_OP_CONV_3D: the same as one op, F32 result; a [KW, KH, KD, n_channels*n_channels_out],
    // b [W, H, D, n_channels*n_batch]; op_params s0..s2, p0..p2, d0..d2, n_channels, n_batch, n_channels_out
    GGML_API struct ggml_tensor * ggml_conv_3d_direct(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int s0, int s1, int s2, int p0, int p1, int p2, int d0, int d1, int d2,
            int n_channels, int n_batch, int n_channels_out);

    enum ggml_op_pool {
        GGML_OP_POOL_MAX,
        GGML_OP_POOL_AVG,
        GGML_OP_POOL_COUNT,
    };

    // dim 0 only: windows of k0 at stride s0, p0 virtual elements at both ends; AVG divides by the
    // in-bounds elements of a window (as the family's CPU backend), MAX of no element is -FLT_MAX
    GGML_API struct ggml_tensor * ggml_pool_1d(
            struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op, int k0, int s0, int p0);

    // a [W, H, C, N] -> [(W + 2*p0 - k0)/s0 + 1, (H + 2*p1 - k1)/s1 + 1, C, N]; AVG divides by k0*k1 (padding counts as zeros)
    GGML_API struct ggml_tensor * ggml_pool_2d(
            struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op_pool op,
            int k0, int k1, int s0, int s1, float p0, float p1);

    //
    // issue 22, group "shape2": interpolation, segment-anything windows and relative positions,
    // col2im / im2col_back, flash_attn_back (src/ggml-ops-shape2.c)
    //

    // interpolation mode of ggml_upscale / ggml_interpolate: the mode is the low byte, flags are or'ed in
    enum ggml_scale_mode {
        GGML_SCALE_MODE_NEAREST  = 0,
        GGML_SCALE_MODE_BILINEAR = 1,
        GGML_SCALE_MODE_BICUBIC  = 2,

        GGML_SCALE_MODE_COUNT
    };

    enum ggml_scale_flag {
        GGML_SCALE_FLAG_ALIGN_CORNERS = (1 << 8),
        GGML_SCALE_FLAG_ANTIALIAS     = (1 << 9),
    };

    // F32 a resampled to [ne0, ne1, ne2, ne3] (op UPSCALE, i32[0] = mode | flags). NEAREST in every dim;
    // BILINEAR / BICUBIC (a = -0.75) in dims 0 and 1, nearest in dims 2 and 3. Source coordinate of
    // result index i: (i + 0.5)/sf - 0.5 with sf = ne/ne_a, or i/sf with sf = (ne - 1)/(ne_a - 1) for
    // ALIGN_CORNERS; borders clamp. ANTIALIAS (BILINEAR only): a triangle filter widened by 1/sf when
    // shrinking, normalized by its weights.
    GGML_API struct ggml_tensor * ggml_interpolate(struct ggml_context * ctx, struct ggml_tensor * a,
            int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3, uint32_t mode);
    // dims 0 and 1 times scale_factor (> 1)
    GGML_API struct ggml_tensor * ggml_upscale(struct ggml_context * ctx, struct ggml_tensor * a, int scale_factor,
            enum ggml_scale_mode mode);
    GGML_DEPRECATED(GGML_API struct ggml_tensor * ggml_upscale_ext(struct ggml_context * ctx, struct ggml_tensor * a,
            int ne0, int ne1, int ne2, int ne3, enum ggml_scale_mode mode),
        "use ggml_interpolate instead");

    // segment-anything windows: F32 a [C, W, H, 1] -> [C, w, w, npx*npy] with npx = ceil(W/w),
    // npy = ceil(H/w), window py*npx + px holding a[:, px*w + i1, py*w + i2] (zero past the edges);
    // i32[0..2] = npx, npy, w
    GGML_API struct ggml_tensor * ggml_win_part(struct ggml_context * ctx, struct ggml_tensor * a, int w);
    // the inverse: F32 a [C, w, w, >= npx*npy] -> [C, w0, h0, 1] (the padding dropped); i32[0] = w
    GGML_API struct ggml_tensor * ggml_win_unpart(struct ggml_context * ctx, struct ggml_tensor * a, int w0, int h0, int w);
    // a [C, 2*qh - 1] (F16, BF16 or F32) -> F16 [C, kh, qh]: row (k, q) is a's row (kh - 1 - k) + q (qh == kh)
    GGML_API struct ggml_tensor * ggml_get_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a, int qh, int kh);
    // F32 a [K*K, Q1*Q2, B] plus decomposed relative positions pw, ph (F32 [K, Q1, Q2, B]; all three
    // contiguous): out[kw + K*kh, q1 + Q1*q2, b] = a[same] + pw[kw, q1, q2, b] + ph[kh, q1, q2, b];
    // i32[0] = inplace
    GGML_API struct ggml_tensor * ggml_add_rel_pos(struct ggml_context * ctx, struct ggml_tensor * a,
            struct ggml_tensor * pw, struct ggml_tensor * ph);
    GGML_API struct ggml_tensor * ggml_add_rel_pos_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
            struct ggml_tensor * pw, struct ggml_tensor * ph);

    // overlap-add of columns a [K*OC, T_in] (F32, F16 or BF16; row t_in holds OC blocks of K taps)
    // into a signal [T_out, OC] of a's type, T_out = (T_in - 1)*s0 + K - 2*p0:
    // out[t, c] = sum of a[c*K + k, t_in] over t_in*s0 + k == t + p0 (accumulated in F32);
    // i32[0..2] = s0, oc, p0. With mul_mat, a transposed 1-d convolution.
    GGML_API struct ggml_tensor * ggml_col2im_1d(struct ggml_context * ctx, struct ggml_tensor * a, int s0, int oc, int p0);
    // gradient of ggml_im2col with respect to its data: a is the gradient of im2col's result
    // [IC*KH*KW, OW, OH, N] (1-d: [IC*KW, OW, N]), b the kernel (only its shape is read), ne the
    // data's shape; F32 result of shape ne summing every column element the data element was copied
    // to. op_params as ggml_im2col's. (The family's header names a the kernel and b the gradient, but
    // its backward pass and CPU kernel use this order.)
    GGML_API struct ggml_tensor * ggml_im2col_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            int64_t * ne, int s0, int s1, int p0, int p1, int d0, int d1, bool is_2D);
    // gradients of attention O = V softmax(K^T Q / sqrt(D)) (the family's FLASH_ATTN_BACK, whose own
    // constructor is disabled): q [D, N, H, B], k [D, M, Hkv, B], v [M, D, Hkv, B] (transposed), d [D, N, H, B]
    // the gradient of O, all F32, H a multiple of Hkv (query head h uses kv head h % Hkv), M >= N; masked:
    // query i sees keys j <= (M - N) + i. 1-d F32 result: grad q, grad k and grad v (shaped and laid out
    // like q, k, v), each starting at a multiple of GGML_MEM_ALIGN bytes, zeros between; i32[0] = masked
    GGML_API struct ggml_tensor * ggml_flash_attn_back(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
            struct ggml_tensor * v, struct ggml_tensor * d, bool masked);

    // zero padding at the end of each dimension
    GGML_API struct ggml_tensor * ggml_pad(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3);
    // zero padding at both ends: lp = left, rp = right
    GGML_API struct ggml_tensor * ggml_pad_ext(struct ggml_context * ctx, struct ggml_tensor * a,
            int lp0, int rp0, int lp1, int rp1, int lp2, int rp2, int lp3, int rp3);

    //
    // issue 22, group "misc": small shape and fill ops of the family (src/ggml-ops-misc.c)
    //

    // inclusive running sum along dim 0 (F32)
    GGML_API struct ggml_tensor * ggml_cumsum(struct ggml_context * ctx, struct ggml_tensor * a);

    enum ggml_tri_type {
        GGML_TRI_TYPE_UPPER_DIAG = 0, // keeps a[i0, i1] with i0 >= i1
        GGML_TRI_TYPE_UPPER      = 1, // i0 >  i1
        GGML_TRI_TYPE_LOWER_DIAG = 2, // i0 <= i1
        GGML_TRI_TYPE_LOWER      = 3  // i0 <  i1
    };

    // zeros outside the triangle of each square F32 matrix [n, n, ...]
    GGML_API struct ggml_tensor * ggml_tri(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_tri_type type);

    // a tensor like a (F32 or F16) with every element c (a's values are not read)
    GGML_API struct ggml_tensor * ggml_fill(struct ggml_context * ctx, struct ggml_tensor * a, float c);
    GGML_API struct ggml_tensor * ggml_fill_inplace(struct ggml_context * ctx, struct ggml_tensor * a, float c);

    // a [n, 1, ne2, ne3] -> [n, n, ne2, ne3] with a on the diagonal, zeros elsewhere
    GGML_API struct ggml_tensor * ggml_diag(struct ggml_context * ctx, struct ggml_tensor * a);

    // element i of each dim moves to (i + shift) mod ne (|shift| < ne)
    GGML_API struct ggml_tensor * ggml_roll(struct ggml_context * ctx, struct ggml_tensor * a,
            int shift0, int shift1, int shift2, int shift3);

    // ggml_pad / ggml_pad_ext with the source repeated around the borders instead of zeros
    GGML_API struct ggml_tensor * ggml_pad_circular(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1, int p2, int p3);
    GGML_API struct ggml_tensor * ggml_pad_ext_circular(struct ggml_context * ctx, struct ggml_tensor * a,
            int lp0, int rp0, int lp1, int rp1, int lp2, int rp2, int lp3, int rp3);

    // dim 0 padded by reflection without repeating the edge: [a, b, c, d] -> [b, a, b, c, d, c] (p < ne0, F32)
    GGML_API struct ggml_tensor * ggml_pad_reflect_1d(struct ggml_context * ctx, struct ggml_tensor * a, int p0, int p1);

    // timesteps F32 [N] -> F32 [dim, N]: cos(t*f_j) for j < dim/2, then sin(t*f_j),
    // f_j = max_period^(-j/(dim/2)); a zero last column when dim is odd
    GGML_API struct ggml_tensor * ggml_timestep_embedding(struct ggml_context * ctx, struct ggml_tensor * timesteps,
            int dim, int max_period);

    // F32 [ceil((stop - start)/step)]
    GGML_API struct ggml_tensor * ggml_arange(struct ggml_context * ctx, float start, float stop, float step);

    enum ggml_sort_order {
        GGML_SORT_ORDER_ASC,
        GGML_SORT_ORDER_DESC,
    };

    // I32 indices that sort each row
    GGML_API struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order);
    // view of the first k columns of ggml_argsort(a, DESC): the indices of the k largest, largest first
    GGML_API struct ggml_tensor * ggml_argsort_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k);
    // I32 indices of the k largest elements of each row: [k, ne1, ne2, ne3], largest first
    GGML_API struct ggml_tensor * ggml_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k);

    //
    // issue 22, group "seq": sequence-model ops of the family (src/ggml-ops-seq.c), all F32.
    // The recurrent ops return their outputs followed by the new states in one tensor.
    //

    // sx [d_conv - 1 + n_t, d_inner, n_s], c [d_conv, d_inner] -> [d_inner, n_t, n_s]:
    // out[r, t, s] = sum_i sx[t + i, r, s]*c[i, r]
    GGML_API struct ggml_tensor * ggml_ssm_conv(struct ggml_context * ctx, struct ggml_tensor * sx, struct ggml_tensor * c);

    // Mamba selective scan. s [d_state, head_dim, n_head, >= n_seqs] (rows picked by ids, I32 [n_seqs]),
    // x [head_dim, n_head, n_tokens, n_seqs], dt [n_head, n_tokens, n_seqs], A [1 or d_state, n_head],
    // B, C [d_state, n_group, n_tokens, n_seqs] -> 1-d: y (x's shape), then K state slots
    // [d_state, head_dim, n_head, n_seqs], slot k = the state k tokens before the last (K > 1 needs A [1, n_head])
    GGML_API struct ggml_tensor * ggml_ssm_scan(struct ggml_context * ctx, struct ggml_tensor * s, struct ggml_tensor * x,
            struct ggml_tensor * dt, struct ggml_tensor * A, struct ggml_tensor * B, struct ggml_tensor * C,
            struct ggml_tensor * ids, int64_t K);

    // k, v, r, td [S, H, n_tokens], tf [S, H], state [S*S*H, n_seqs] -> [S*H, n_tokens + S*n_seqs]
    GGML_API struct ggml_tensor * ggml_rwkv_wkv6(struct ggml_context * ctx, struct ggml_tensor * k, struct ggml_tensor * v,
            struct ggml_tensor * r, struct ggml_tensor * tf, struct ggml_tensor * td, struct ggml_tensor * state);

    // k, v, q, g [S, H, n_tokens], state [S*S*H, n_seqs] -> [S*H, n_tokens + S*n_seqs]
    GGML_API struct ggml_tensor * ggml_gated_linear_attn(struct ggml_context * ctx, struct ggml_tensor * k,
            struct ggml_tensor * v, struct ggml_tensor * q, struct ggml_tensor * g, struct ggml_tensor * state, float scale);

    // r, w, k, v, a, b [S, H, n_tokens], state [S*S*H, n_seqs] -> [S*H, n_tokens + S*n_seqs]
    GGML_API struct ggml_tensor * ggml_rwkv_wkv7(struct ggml_context * ctx, struct ggml_tensor * r, struct ggml_tensor * w,
            struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * a, struct ggml_tensor * b,
            struct ggml_tensor * state);

    // X with A X = B: a [n, n, ...] triangular, b [m, n, ...] -> [m, n, ...]. As in the family only
    // left = true, lower = true, uni = false is implemented (other variants give NULL).
    GGML_API struct ggml_tensor * ggml_solve_tri(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            bool left, bool lower, bool uni);

    // q, k [S, H_k, n_tokens, n_seqs_k], v [S, H, n_tokens, n_seqs] (H % H_k == 0, n_seqs % n_seqs_k == 0),
    // g [1 or S, H, n_tokens, n_seqs], beta [1, H, n_tokens, n_seqs], state [S, S, H, n_seqs]
    // -> [S*H, n_tokens*n_seqs + K*S*n_seqs]: the outputs, then K state slots (slot k = k tokens back;
    // slots k >= n_tokens are not written)
    GGML_API struct ggml_tensor * ggml_gated_delta_net(struct ggml_context * ctx, struct ggml_tensor * q,
            struct ggml_tensor * k, struct ggml_tensor * v, struct ggml_tensor * g, struct ggml_tensor * beta,
            struct ggml_tensor * state, int64_t K);

#define GGML_KQ_MASK_PAD 1

    // q:    [n_embd_k, n_batch,     n_head,    ne3 ]
    // k:    [n_embd_k, n_kv,        n_head_kv, ne3 ]
    // v:    [n_embd_v, n_kv,        n_head_kv, ne3 ] (not transposed)
    // mask: [n_kv,     n_batch_pad, ne32,      ne33] (optional, F16 or F32, n_batch_pad >= n_batch)
    // res:  [n_embd_v, n_head,      n_batch,   ne3 ] (permuted)
    GGML_API struct ggml_tensor * ggml_flash_attn_ext(
            struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k, struct ggml_tensor * v,
            struct ggml_tensor * mask, float scale, float max_bias, float logit_softcap);
    GGML_API void ggml_flash_attn_ext_set_prec(struct ggml_tensor * a, enum ggml_prec prec);
    GGML_API enum ggml_prec ggml_flash_attn_ext_get_prec(const struct ggml_tensor * a);
    GGML_API void ggml_flash_attn_ext_add_sinks(struct ggml_tensor * a, struct ggml_tensor * sinks);

    //
    // Thread pool parameters (the pools themselves are made by ggml-cpu.h's ggml_threadpool_new)
    //

    enum ggml_sched_priority {
        GGML_SCHED_PRIO_LOW = -1,
        GGML_SCHED_PRIO_NORMAL,
        GGML_SCHED_PRIO_MEDIUM,
        GGML_SCHED_PRIO_HIGH,
        GGML_SCHED_PRIO_REALTIME
    };

    // Fill with ggml_threadpool_params_default() or ggml_threadpool_params_init().
    struct ggml_threadpool_params {
        bool                     cpumask[GGML_MAX_N_THREADS]; // CPUs the threads may run on (all false: no affinity set)
        int                      n_threads;                   // threads of the pool, the caller included
        enum ggml_sched_priority prio;                        // thread priority (best effort)
        uint32_t                 poll;                        // 0: sleep at once when idle ... 100: spin longest
        bool                     strict_cpu;                  // one CPU of the mask per thread
        bool                     paused;                      // create the pool paused
    };

    struct ggml_threadpool;
    typedef struct ggml_threadpool * ggml_threadpool_t;

    GGML_API struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads);
    GGML_API void                          ggml_threadpool_params_init   (struct ggml_threadpool_params * p, int n_threads);
    GGML_API bool                          ggml_threadpool_params_match  (const struct ggml_threadpool_params * p0, const struct ggml_threadpool_params * p1);

    //
    // training: gradients of forward ops, loss, optimizer steps (the family's signatures and op_params)
    //

    // sums the repeats of a back into the shape of b (ggml_can_repeat(b, a)); a's type
    GGML_API struct ggml_tensor * ggml_repeat_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // a: gradient of silu's result, b: silu's input x -> a * silu'(x)
    GGML_API struct ggml_tensor * ggml_silu_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // a: gradient of rms_norm's result, b: rms_norm's input; f32[0] = eps
    GGML_API struct ggml_tensor * ggml_rms_norm_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, float eps);
    // a: gradient of get_rows' result [n, rows], b: I32 row indices [rows], c: get_rows' data (shape only) -> F32 like c
    GGML_API struct ggml_tensor * ggml_get_rows_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            struct ggml_tensor * c);
    // a: gradient of soft_max_ext's result, b: soft_max_ext's result; f32[0] = scale, f32[1] = max_bias
    GGML_API struct ggml_tensor * ggml_soft_max_ext_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            float scale, float max_bias);
    GGML_API struct ggml_tensor * ggml_soft_max_ext_back_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            float scale, float max_bias);
    // a: gradient of rope_ext's (rope_multi's) result; the other arguments as the forward call's: the
    // rotation by the opposite angles (op ROPE_BACK, the forward op_params)
    GGML_API struct ggml_tensor * ggml_rope_ext_back(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            int n_dims, int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow);
    GGML_API struct ggml_tensor * ggml_rope_multi_back(
            struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            int n_dims, int sections[GGML_MROPE_SECTIONS], int mode, int n_ctx_orig,
            float freq_base, float freq_scale, float ext_factor, float attn_factor, float beta_fast, float beta_slow);
    // a: gradient of pool_2d's result, af: pool_2d's input -> F32 shaped like af (MAX: to the first maximum
    // of each window, AVG: spread over the window / (k0*k1)); op_params as pool_2d's
    GGML_API struct ggml_tensor * ggml_pool_2d_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * af,
            enum ggml_op_pool op, int k0, int k1, int s0, int s1, float p0, float p1);
    // number of equal elements of two same-shaped tensors -> I64 [1]
    GGML_API struct ggml_tensor * ggml_count_equal(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // -sum(b * log_softmax(a)) / rows, a: logits, b: labels (same shape) -> [1] of a's type
    GGML_API struct ggml_tensor * ggml_cross_entropy_loss(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b);
    // a: gradient of the loss (scalar), b: logits, c: labels -> a * (softmax(b) - c) / rows
    GGML_API struct ggml_tensor * ggml_cross_entropy_loss_back(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            struct ggml_tensor * c);
    // one AdamW step on the parameter a (updated in place, m and v too); adamw_params: F32 [7] =
    // alpha, beta1, beta2, eps, wd, beta1h = 1/(1 - beta1^t), beta2h = 1/(1 - beta2^t)
    GGML_API struct ggml_tensor * ggml_opt_step_adamw(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
            struct ggml_tensor * m, struct ggml_tensor * v, struct ggml_tensor * adamw_params);
    // one SGD step on the parameter a (in place); sgd_params: F32 [2] = alpha, wd
    GGML_API struct ggml_tensor * ggml_opt_step_sgd(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * grad,
            struct ggml_tensor * sgd_params);

    // issue 22, group "dsv4": DeepSeek-V4's sparse-attention indexer and hyper-connection ops
    // (src/ggml-ops-dsv4.c). F32 results; bad shapes or types give NULL and a logged message.
    //
    // lightning indexer: q F32 [D, H, T, S], k [D, 1, KV, S] (F32, F16, BF16 or a quantized type),
    // weights F32 [H, T, 1, S] (already scaled), mask F16 [KV, T, 1, S'] with S % S' == 0
    // -> F32 [KV, T, 1, S]: res[j, t, s] = sum_h max(q[:, h, t, s].k[:, 0, j, s], 0)*weights[h, t, s]
    //                                      + mask[j, t, s % S']
    GGML_API struct ggml_tensor * ggml_lightning_indexer(struct ggml_context * ctx, struct ggml_tensor * q,
            struct ggml_tensor * k, struct ggml_tensor * weights, struct ggml_tensor * mask);
    // hyper-connection mixing matrices (hc = 4 streams): mixes F32 [(2 + hc)*hc, T], scale F32 [>= 3],
    // base F32 [(2 + hc)*hc] -> F32 [hc (dst), hc (src), T]: logits mixes[2*hc + dst + hc*src]*scale[2]
    // + base[2*hc + dst + hc*src], softmax over dst plus eps, then n_iter - 1 rounds of
    // (normalize over dst, normalize over src) after a first normalization over src (sums plus eps);
    // op_params: eps (f32), n_iter (i32)
    GGML_API struct ggml_tensor * ggml_dsv4_hc_comb(struct ggml_context * ctx, struct ggml_tensor * mixes,
            struct ggml_tensor * scale, struct ggml_tensor * base, float eps, int32_t n_iter);
    // x F32 [E, hc, T], weights F32 [hc, T] -> F32 [E, T]: res[i, t] = sum_h x[i, h, t]*weights[h, t]
    GGML_API struct ggml_tensor * ggml_dsv4_hc_pre(struct ggml_context * ctx, struct ggml_tensor * x,
            struct ggml_tensor * weights);
    // x F32 [E, T], residual F32 [E, hc, T], post F32 [hc, T], comb F32 [hc, hc, T] -> F32 [E, hc, T]:
    // res[i, d, t] = x[i, t]*post[d, t] + sum_s residual[i, s, t]*comb[d, s, t]
    GGML_API struct ggml_tensor * ggml_dsv4_hc_post(struct ggml_context * ctx, struct ggml_tensor * x,
            struct ggml_tensor * residual, struct ggml_tensor * post, struct ggml_tensor * comb);

    //
    // custom ops: user functions run by the CPU backend on n_tasks threads (GGML_N_TASKS_MAX: all)
    //

    typedef void (*ggml_custom1_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a, int ith, int nth, void * userdata);
    typedef void (*ggml_custom2_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b, int ith, int nth, void * userdata);
    typedef void (*ggml_custom3_op_t)(struct ggml_tensor * dst, const struct ggml_tensor * a, const struct ggml_tensor * b, const struct ggml_tensor * c, int ith, int nth, void * userdata);
    typedef void (*ggml_custom_op_t)(struct ggml_tensor * dst, int ith, int nth, void * userdata);

#define GGML_N_TASKS_MAX (-1)

    // the result has a's shape and type (_inplace: a view of a)
    GGML_API struct ggml_tensor * ggml_map_custom1(struct ggml_context * ctx, struct ggml_tensor * a,
            ggml_custom1_op_t fun, int n_tasks, void * userdata);
    GGML_API struct ggml_tensor * ggml_map_custom1_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
            ggml_custom1_op_t fun, int n_tasks, void * userdata);
    GGML_API struct ggml_tensor * ggml_map_custom2(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            ggml_custom2_op_t fun, int n_tasks, void * userdata);
    GGML_API struct ggml_tensor * ggml_map_custom2_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
            ggml_custom2_op_t fun, int n_tasks, void * userdata);
    GGML_API struct ggml_tensor * ggml_map_custom3(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            ggml_custom3_op_t fun, int n_tasks, void * userdata);
    GGML_API struct ggml_tensor * ggml_map_custom3_inplace(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, struct ggml_tensor * c,
            ggml_custom3_op_t fun, int n_tasks, void * userdata);

    // a new tensor of the given shape computed by fun from up to GGML_MAX_SRC arguments
    GGML_API struct ggml_tensor * ggml_custom_4d(struct ggml_context * ctx, enum ggml_type type,
            int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
            struct ggml_tensor ** args, int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata);
    // the same, writing into a view of a (a is the first source, then args)
    GGML_API struct ggml_tensor * ggml_custom_inplace(struct ggml_context * ctx, struct ggml_tensor * a,
            struct ggml_tensor ** args, int n_args, ggml_custom_op_t fun, int n_tasks, void * userdata);

    //
    // graphs
    //

    GGML_API void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);
    // adds tensor and its parents without marking them to compute (GGML_TENSOR_FLAG_COMPUTE): they are
    // computed only once a later ggml_build_forward_expand reaches them from a computed node
    GGML_API void ggml_build_forward_order(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);
    // adds all n_tensors (a graph whose topology stays the same) and marks only tensors[idx] and what it
    // depends on to compute; returns tensors[idx], NULL (logged) when idx is out of range
    GGML_API struct ggml_tensor * ggml_build_forward_select(struct ggml_cgraph * cgraph, struct ggml_tensor ** tensors,
                                                            int n_tensors, int idx);
    // appends the gradients of the loss (ggml_set_loss) for every parameter (ggml_set_param) of a graph
    // created with grads = true; grad_accs: optional accumulators per node index (NULL: only the loss has one)
    GGML_API void ggml_build_backward_expand(struct ggml_context * ctx, struct ggml_cgraph * cgraph, struct ggml_tensor ** grad_accs);

    // NULL when the context has no room
    GGML_API struct ggml_cgraph * ggml_new_graph       (struct ggml_context * ctx); // size GGML_DEFAULT_GRAPH_SIZE, no grads
    GGML_API struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads);
    GGML_API struct ggml_cgraph * ggml_graph_dup       (struct ggml_context * ctx, struct ggml_cgraph * cgraph, bool force_grads);
    GGML_API void                 ggml_graph_cpy       (struct ggml_cgraph * src, struct ggml_cgraph * dst);
    GGML_API void                 ggml_graph_reset     (struct ggml_cgraph * cgraph);
    GGML_API void                 ggml_graph_clear     (struct ggml_cgraph * cgraph);

    GGML_API int                   ggml_graph_size   (struct ggml_cgraph * cgraph);
    GGML_API struct ggml_tensor *  ggml_graph_node   (struct ggml_cgraph * cgraph, int i); // i < 0: from the end
    GGML_API struct ggml_tensor ** ggml_graph_nodes  (struct ggml_cgraph * cgraph);
    GGML_API int                   ggml_graph_n_nodes(struct ggml_cgraph * cgraph);

    GGML_API void   ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor);

    GGML_API size_t ggml_graph_overhead(void);
    GGML_API size_t ggml_graph_overhead_custom(size_t size, bool grads);

    GGML_API struct ggml_tensor * ggml_graph_get_tensor  (const struct ggml_cgraph * cgraph, const char * name);
    GGML_API struct ggml_tensor * ggml_graph_get_grad    (const struct ggml_cgraph * cgraph, const struct ggml_tensor * node);
    GGML_API struct ggml_tensor * ggml_graph_get_grad_acc(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node);

    GGML_API void ggml_graph_print(const struct ggml_cgraph * cgraph);

    // writes the graph in Graphviz dot format; gb may be NULL
    GGML_API void ggml_graph_dump_dot(const struct ggml_cgraph * gb, const struct ggml_cgraph * gf, const char * filename);

    //
    // logging
    //

    typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);

    // NULL restores the default (stderr). Thread-safe.
    GGML_API void ggml_log_set(ggml_log_callback log_callback, void * user_data);
    GGML_API void ggml_log_get(ggml_log_callback * log_callback, void ** user_data);

    //
    // last error of the calling thread (this library's extension, see docs/errors.md)
    //

    enum ggml_error_code {
        GGML_ERROR_OK = 0,
        GGML_ERROR_INVALID_ARGUMENT, // a bad argument, shape, type or parameter
        GGML_ERROR_OUT_OF_MEMORY,    // host or device memory exhausted
        GGML_ERROR_UNSUPPORTED,      // an op, type or feature the backend does not have
        GGML_ERROR_DEVICE,           // the device or its driver failed
        GGML_ERROR_BAD_STATE,        // misuse: wrong order of calls, object busy or in the wrong state
        GGML_ERROR_IO,               // a file could not be read or written
        GGML_ERROR_CORRUPT_DATA,     // a file or buffer holds data that is not valid
    };

    // Every failing call sets the calling thread's last error (code and the message it logged).
    // A successful call leaves it as it was: read it right after a call that failed.
    GGML_API enum ggml_error_code ggml_last_error(void);
    GGML_API const char *         ggml_last_error_message(void);   // "" when GGML_ERROR_OK
    GGML_API void                 ggml_clear_last_error(void);
    GGML_API const char *         ggml_error_code_name(enum ggml_error_code code);

    //
    // type traits
    //

#ifdef __cplusplus
#    if defined(__GNUC__)
#        define GGML_RESTRICT __restrict__
#    else
#        define GGML_RESTRICT
#    endif
#else
#    define GGML_RESTRICT restrict
#endif
    typedef void (*ggml_to_float_t)  (const void  * GGML_RESTRICT x, float * GGML_RESTRICT y, int64_t k);
    typedef void (*ggml_from_float_t)(const float * GGML_RESTRICT x, void  * GGML_RESTRICT y, int64_t k);

    struct ggml_type_traits {
        const char             * type_name;
        int64_t                  blck_size;
        int64_t                  blck_size_interleave;
        size_t                   type_size;
        bool                     is_quantized;
        ggml_to_float_t          to_float;       // NULL where this library cannot yet convert the type
        ggml_from_float_t        from_float_ref;
    };

    // NULL for an id that is not a type (removed ids, out of range)
    GGML_API const struct ggml_type_traits * ggml_get_type_traits(enum ggml_type type);

#ifdef  __cplusplus
}
#endif
