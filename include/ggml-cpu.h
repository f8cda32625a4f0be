#pragma once

// The CPU backend: thread pools, graph planning and computation on the host, CPU feature
// queries, and the "CPU" backend/device/registry of ggml-backend.h.
//
// Names and signatures follow the ggml family's ggml-cpu.h. As everywhere in this library,
// nothing here aborts: bad arguments are logged and reported through the return value.

#include "ggml.h"
#include "ggml-backend.h"

#ifdef  __cplusplus
extern "C" {
#endif

    // thread pool parameters (struct ggml_threadpool_params and its helpers) are in ggml.h

    // the compute plan that ggml_graph_plan() prepares for ggml_graph_compute()
    struct ggml_cplan {
        size_t    work_size; // bytes of work buffer the graph needs (set by ggml_graph_plan)
        uint8_t * work_data; // work buffer of at least work_size bytes, provided by the caller

        int n_threads;
        struct ggml_threadpool * threadpool; // NULL: a pool is created for each compute call

        // polled after each node; returning true stops the computation (GGML_STATUS_ABORTED)
        ggml_abort_callback abort_callback;
        void *              abort_callback_data;

        bool use_ref; // reference mode: plain code paths only
    };

    // NUMA strategies (accepted; this library does not place memory or threads by node)
    enum ggml_numa_strategy {
        GGML_NUMA_STRATEGY_DISABLED   = 0,
        GGML_NUMA_STRATEGY_DISTRIBUTE = 1,
        GGML_NUMA_STRATEGY_ISOLATE    = 2,
        GGML_NUMA_STRATEGY_NUMACTL    = 3,
        GGML_NUMA_STRATEGY_MIRROR     = 4,
        GGML_NUMA_STRATEGY_COUNT
    };

    GGML_BACKEND_API void ggml_numa_init(enum ggml_numa_strategy numa);
    GGML_BACKEND_API bool ggml_is_numa(void); // true when the system has more than one NUMA node

    // element helpers (defined with ggml.h; repeated here as the family's header has them)
    GGML_API struct ggml_tensor * ggml_new_i32(struct ggml_context * ctx, int32_t value);
    GGML_API struct ggml_tensor * ggml_new_f32(struct ggml_context * ctx, float value);

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

    // NULL when no thread could be created or the parameters are invalid (logged). When only some
    // of the worker threads can be created, the pool has fewer threads (see get_n_threads).
    GGML_BACKEND_API struct ggml_threadpool * ggml_threadpool_new          (struct ggml_threadpool_params * params);
    GGML_BACKEND_API void                     ggml_threadpool_free         (struct ggml_threadpool * threadpool);
    GGML_BACKEND_API int                      ggml_threadpool_get_n_threads(struct ggml_threadpool * threadpool);
    // a paused pool's workers sleep; computing a graph on it resumes it
    GGML_BACKEND_API void                     ggml_threadpool_pause        (struct ggml_threadpool * threadpool);
    GGML_BACKEND_API void                     ggml_threadpool_resume       (struct ggml_threadpool * threadpool);

    // Call ggml_graph_plan() before ggml_graph_compute(); when plan.work_size > 0 the caller
    // provides plan.work_data. A graph that cannot be planned (overflowed, NULL) gives a plan
    // with n_threads == 0, which ggml_graph_compute() refuses with GGML_STATUS_FAILED.
    GGML_BACKEND_API struct ggml_cplan ggml_graph_plan(
                  const struct ggml_cgraph * cgraph,
                                       int   n_threads, /* = GGML_DEFAULT_N_THREADS */
                    struct ggml_threadpool * threadpool /* = NULL */ );
    GGML_BACKEND_API enum ggml_status  ggml_graph_compute(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan);

    // ggml_graph_plan + ggml_graph_compute with the work buffer allocated in ctx
    // (GGML_STATUS_ALLOC_FAILED when ctx has no room for it)
    GGML_BACKEND_API enum ggml_status  ggml_graph_compute_with_ctx(struct ggml_context * ctx, struct ggml_cgraph * cgraph, int n_threads);

    //
    // CPU features: 1 when the running CPU has the feature and this build uses it, else 0
    //

    // x86
    GGML_BACKEND_API int ggml_cpu_has_sse3       (void);
    GGML_BACKEND_API int ggml_cpu_has_ssse3      (void);
    GGML_BACKEND_API int ggml_cpu_has_avx        (void);
    GGML_BACKEND_API int ggml_cpu_has_avx_vnni   (void);
    GGML_BACKEND_API int ggml_cpu_has_avx2       (void);
    GGML_BACKEND_API int ggml_cpu_has_bmi2       (void);
    GGML_BACKEND_API int ggml_cpu_has_f16c       (void);
    GGML_BACKEND_API int ggml_cpu_has_fma        (void);
    GGML_BACKEND_API int ggml_cpu_has_avx512     (void);
    GGML_BACKEND_API int ggml_cpu_has_avx512_vbmi(void);
    GGML_BACKEND_API int ggml_cpu_has_avx512_vnni(void);
    GGML_BACKEND_API int ggml_cpu_has_avx512_bf16(void);
    GGML_BACKEND_API int ggml_cpu_has_amx_int8   (void);
    // ARM
    GGML_BACKEND_API int ggml_cpu_has_neon       (void);
    GGML_BACKEND_API int ggml_cpu_has_arm_fma    (void);
    GGML_BACKEND_API int ggml_cpu_has_fp16_va    (void);
    GGML_BACKEND_API int ggml_cpu_has_dotprod    (void);
    GGML_BACKEND_API int ggml_cpu_has_matmul_int8(void);
    GGML_BACKEND_API int ggml_cpu_has_sve        (void);
    GGML_BACKEND_API int ggml_cpu_get_sve_cnt    (void); // SVE vector length in bytes
    GGML_BACKEND_API int ggml_cpu_has_sme        (void);
    GGML_BACKEND_API int ggml_cpu_has_sme2       (void);
    // other
    GGML_BACKEND_API int ggml_cpu_has_riscv_v    (void);
    GGML_BACKEND_API int ggml_cpu_get_rvv_vlen   (void); // RISC-V vector register length in bytes (0: none)
    GGML_BACKEND_API int ggml_cpu_has_vsx        (void);
    GGML_BACKEND_API int ggml_cpu_has_vxe        (void);
    GGML_BACKEND_API int ggml_cpu_has_wasm_simd  (void);
    GGML_BACKEND_API int ggml_cpu_has_llamafile  (void);

    // Probes the CPU once (thread-safe; later calls return at once). Called by
    // ggml_backend_cpu_init and ggml_graph_plan; user programs may call it first.
    GGML_BACKEND_API void ggml_cpu_init(void);

    //
    // The CPU backend
    //

    // NULL on failure (logged); GGML_DEFAULT_N_THREADS threads
    GGML_BACKEND_API ggml_backend_t ggml_backend_cpu_init(void);

    GGML_BACKEND_API bool ggml_backend_is_cpu                (ggml_backend_t backend);
    GGML_BACKEND_API void ggml_backend_cpu_set_n_threads     (ggml_backend_t backend_cpu, int n_threads);
    GGML_BACKEND_API void ggml_backend_cpu_set_threadpool    (ggml_backend_t backend_cpu, ggml_threadpool_t threadpool);
    GGML_BACKEND_API void ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu, ggml_abort_callback abort_callback, void * abort_callback_data);
    GGML_BACKEND_API void ggml_backend_cpu_set_use_ref       (ggml_backend_t backend_cpu, bool use_ref);

    GGML_BACKEND_API ggml_backend_reg_t ggml_backend_cpu_reg(void);

    // Dot product of n elements: s[0] = x . y, x of the traits' type, y of its vec_dot_type. bs, bx,
    // by and nrc serve kernels that compute several rows per call; this library's kernels compute
    // one (nrows = 1; pass nrc = 1).
    typedef void (*ggml_vec_dot_t)  (int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx,
                                       const void * GGML_RESTRICT y, size_t by, int nrc);

    struct ggml_type_traits_cpu {
        ggml_from_float_t     from_float;   // floats to this type (NULL: no quantizer)
        ggml_vec_dot_t        vec_dot;      // NULL: this type has no dot product
        enum ggml_type        vec_dot_type; // the type of vec_dot's y
        int64_t               nrows;        // rows vec_dot computes per call
    };

    // The kernels of the level in use (GGML_CPU_ISA). Never NULL: an invalid type gives empty traits.
    GGML_BACKEND_API const struct ggml_type_traits_cpu * ggml_get_type_traits_cpu(enum ggml_type type);

    // row conversions
    GGML_BACKEND_API void ggml_cpu_fp32_to_fp32(const float *, float *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp32_to_i32 (const float *, int32_t *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp32_to_fp16(const float *, ggml_fp16_t *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp16_to_fp32(const ggml_fp16_t *, float *, int64_t);
    GGML_BACKEND_API void ggml_cpu_fp32_to_bf16(const float *, ggml_bf16_t *, int64_t);
    GGML_BACKEND_API void ggml_cpu_bf16_to_fp32(const ggml_bf16_t *, float *, int64_t);

#ifdef __cplusplus
}
#endif
