// The CPU backend's objects: the "CPU" backend (stream), its device and its registry.
//
// The backend keeps its own persistent thread pool (created at the first graph, re-created when
// the thread count changes) unless the user hands it one with ggml_backend_cpu_set_threadpool,
// and a work buffer that only grows.

#ifndef _GNU_SOURCE
#    define _GNU_SOURCE
#endif

#include "ggml-cpu-impl.h"
#include "ggml-cpu-graph-sched.h"
#include "ggml-cpu-comm.h"

#include <stdatomic.h>
#include "ggml-backend-impl.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

//
// NUMA (detection only)
//

static pthread_once_t g_numa_once = PTHREAD_ONCE_INIT;
static int            g_numa_nodes = 1;

static void numa_detect(void) {
    int n = 0;
    DIR * dir = opendir("/sys/devices/system/node");
    if (dir != NULL) {
        struct dirent * e;
        while ((e = readdir(dir)) != NULL) {
            if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9') {
                n++;
            }
        }
        closedir(dir);
    }
    g_numa_nodes = n > 0 ? n : 1;
}

void ggml_numa_init(enum ggml_numa_strategy numa) {
    if ((int) numa < 0 || numa >= GGML_NUMA_STRATEGY_COUNT) {
        GGML_LOG_ERROR("%s: unknown NUMA strategy %d\n", __func__, (int) numa);
        return;
    }
    pthread_once(&g_numa_once, numa_detect);
}

bool ggml_is_numa(void) {
    pthread_once(&g_numa_once, numa_detect);
    return g_numa_nodes > 1;
}

//
// row conversions
//

void ggml_cpu_fp32_to_fp16(const float * x, ggml_fp16_t * y, int64_t n) { ggml_fp32_to_fp16_row(x, y, n); }
void ggml_cpu_fp16_to_fp32(const ggml_fp16_t * x, float * y, int64_t n) { ggml_fp16_to_fp32_row(x, y, n); }
void ggml_cpu_fp32_to_bf16(const float * x, ggml_bf16_t * y, int64_t n) { ggml_fp32_to_bf16_row(x, y, n); }
void ggml_cpu_bf16_to_fp32(const ggml_bf16_t * x, float * y, int64_t n) { ggml_bf16_to_fp32_row(x, y, n); }

//
// backend (stream)
//

struct ggml_backend_cpu_context {
    int                      n_threads;
    struct ggml_threadpool * threadpool;     // set by the user (not owned), or NULL
    struct ggml_threadpool * own_threadpool; // ours, used when threadpool is NULL

    uint8_t * work_data;
    size_t    work_size;

    ggml_abort_callback abort_callback;
    void *              abort_callback_data;

    bool use_ref;

    struct ggml_cpu_sched sched; // the last graph's schedule (its memory is reused)

    // one graph at a time per backend: a second thread computing on the same backend would share
    // the work buffer; it is refused with an error instead
    atomic_bool busy;
};

static ggml_guid_t ggml_backend_cpu_guid(void) {
    static ggml_guid guid = { 0x3c, 0x9e, 0x51, 0x07, 0xd2, 0x4a, 0x4f, 0x88, 0xa1, 0x6b, 0x2e, 0x90, 0x5d, 0xc7, 0x13, 0xf4 };
    return &guid;
}

static const char * cpu_backend_get_name(ggml_backend_t backend) {
    GGML_UNUSED(backend);
    return "CPU";
}

static void cpu_backend_free(ggml_backend_t backend) {
    struct ggml_backend_cpu_context * ctx = backend->context;
    ggml_threadpool_free(ctx->own_threadpool);
    ggml_free_mem(ctx->work_data);
    ggml_cpu_sched_free(&ctx->sched);
    ggml_free_mem(ctx);
    ggml_free_mem(backend);
}

// the pool to compute on: the user's, else our own (created on demand); NULL when none can be
// created, in which case ggml_graph_compute makes a disposable one (and reports its failure)
static struct ggml_threadpool * cpu_backend_pool(struct ggml_backend_cpu_context * ctx) {
    if (ctx->threadpool != NULL) {
        return ctx->threadpool;
    }
    if (ctx->own_threadpool == NULL && ctx->n_threads > 1) {
        struct ggml_threadpool_params p = ggml_threadpool_params_default(ctx->n_threads);
        ctx->own_threadpool = ggml_threadpool_new(&p);
    }
    return ctx->own_threadpool;
}

static enum ggml_status cpu_backend_prepare(struct ggml_backend_cpu_context * ctx, struct ggml_cplan * cplan) {
    if (cplan->n_threads <= 0) {
        return GGML_STATUS_FAILED; // ggml_graph_plan logged why
    }
    if (cplan->work_size > ctx->work_size) {
        ggml_free_mem(ctx->work_data);
        ctx->work_data = ggml_malloc(cplan->work_size);
        if (ctx->work_data == NULL) {
            ctx->work_size = 0;
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_cpu_graph_compute: cannot allocate a work buffer of %zu bytes\n", cplan->work_size);
            return GGML_STATUS_ALLOC_FAILED;
        }
        ctx->work_size = cplan->work_size;
    }
    cplan->work_data           = ctx->work_data;
    cplan->abort_callback      = ctx->abort_callback;
    cplan->abort_callback_data = ctx->abort_callback_data;
    cplan->use_ref             = ctx->use_ref;
    return GGML_STATUS_SUCCESS;
}

static enum ggml_status cpu_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct ggml_backend_cpu_context * ctx = backend->context;
    bool expected = false;
    if (!atomic_compare_exchange_strong(&ctx->busy, &expected, true)) {
        GGML_ERROR(GGML_ERROR_BAD_STATE, "ggml_backend_cpu_graph_compute: the backend is already computing a graph "
                       "(one graph at a time per backend: give each thread its own backend)\n");
        return GGML_STATUS_FAILED;
    }
    struct ggml_threadpool * tp = cpu_backend_pool(ctx);
    struct ggml_cplan cplan;
    enum ggml_status st = ggml_cpu_graph_plan_sched(cgraph, ctx->n_threads, tp, ctx->use_ref, &ctx->sched, &cplan);
    if (st == GGML_STATUS_SUCCESS) {
        st = cpu_backend_prepare(ctx, &cplan);
    }
    if (st == GGML_STATUS_SUCCESS) {
        st = ggml_cpu_graph_compute_sched(cgraph, &cplan, &ctx->sched);
    }
    atomic_store(&ctx->busy, false);
    return st;
}

struct ggml_backend_cpu_plan {
    struct ggml_cplan  cplan;
    struct ggml_cgraph cgraph;
};

static ggml_backend_graph_plan_t cpu_backend_graph_plan_create(ggml_backend_t backend, const struct ggml_cgraph * cgraph) {
    struct ggml_backend_cpu_context * ctx = backend->context;
    struct ggml_backend_cpu_plan * plan = ggml_calloc(1, sizeof(*plan));
    if (plan == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    plan->cplan  = ggml_graph_plan(cgraph, ctx->n_threads, cpu_backend_pool(ctx));
    plan->cgraph = *cgraph;
    if (plan->cplan.n_threads <= 0) {
        ggml_free_mem(plan);
        return NULL;
    }
    if (plan->cplan.work_size > 0) {
        plan->cplan.work_data = ggml_malloc(plan->cplan.work_size);
        if (plan->cplan.work_data == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a work buffer of %zu bytes\n", __func__, plan->cplan.work_size);
            ggml_free_mem(plan);
            return NULL;
        }
    }
    plan->cplan.abort_callback      = ctx->abort_callback;
    plan->cplan.abort_callback_data = ctx->abort_callback_data;
    plan->cplan.use_ref             = ctx->use_ref;
    return plan;
}

static void cpu_backend_graph_plan_free(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    GGML_UNUSED(backend);
    struct ggml_backend_cpu_plan * p = plan;
    if (p == NULL) {
        return;
    }
    ggml_free_mem(p->cplan.work_data);
    ggml_free_mem(p);
}

static enum ggml_status cpu_backend_graph_plan_compute(ggml_backend_t backend, ggml_backend_graph_plan_t plan) {
    GGML_UNUSED(backend);
    struct ggml_backend_cpu_plan * p = plan;
    return ggml_graph_compute(&p->cgraph, &p->cplan);
}

static const struct ggml_backend_i cpu_backend_i = {
    /* .get_name            = */ cpu_backend_get_name,
    /* .free                = */ cpu_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ NULL,
    /* .graph_plan_create   = */ cpu_backend_graph_plan_create,
    /* .graph_plan_free     = */ cpu_backend_graph_plan_free,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ cpu_backend_graph_plan_compute,
    /* .graph_compute       = */ cpu_backend_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

ggml_backend_t ggml_backend_cpu_init(void) {
    ggml_cpu_init();

    struct ggml_backend_cpu_context * ctx = ggml_calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    ctx->n_threads = GGML_DEFAULT_N_THREADS;

    ggml_backend_t backend = ggml_malloc(sizeof(struct ggml_backend));
    if (backend == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        ggml_free_mem(ctx);
        return NULL;
    }
    *backend = (struct ggml_backend) {
        /* .guid    = */ ggml_backend_cpu_guid(),
        /* .iface   = */ cpu_backend_i,
        /* .device  = */ ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0),
        /* .context = */ ctx,
    };
    return backend;
}

bool ggml_backend_is_cpu(ggml_backend_t backend) {
    return backend != NULL && ggml_guid_matches(backend->guid, ggml_backend_cpu_guid());
}

static struct ggml_backend_cpu_context * cpu_context(ggml_backend_t backend, const char * func) {
    if (!ggml_backend_is_cpu(backend)) {
        GGML_LOG_ERROR("%s: backend %s is not the CPU backend\n", func,
                backend == NULL ? "(NULL)" : ggml_backend_name(backend));
        return NULL;
    }
    return backend->context;
}

void ggml_backend_cpu_set_n_threads(ggml_backend_t backend_cpu, int n_threads) {
    struct ggml_backend_cpu_context * ctx = cpu_context(backend_cpu, __func__);
    if (ctx == NULL) {
        return;
    }
    if (n_threads < 1 || n_threads > GGML_MAX_N_THREADS) {
        GGML_LOG_ERROR("%s: n_threads = %d is out of range [1, %d]\n", __func__, n_threads, GGML_MAX_N_THREADS);
        return;
    }
    if (n_threads != ctx->n_threads) {
        // our pool is re-created with the new size at the next graph
        ggml_threadpool_free(ctx->own_threadpool);
        ctx->own_threadpool = NULL;
        ctx->n_threads = n_threads;
    }
}

void ggml_backend_cpu_set_threadpool(ggml_backend_t backend_cpu, ggml_threadpool_t threadpool) {
    struct ggml_backend_cpu_context * ctx = cpu_context(backend_cpu, __func__);
    if (ctx == NULL) {
        return;
    }
    if (ctx->threadpool != NULL && ctx->threadpool != threadpool) {
        // the previous pool goes idle without spinning (as the family does)
        ggml_threadpool_pause(ctx->threadpool);
    }
    ctx->threadpool = threadpool;
}

void ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu, ggml_abort_callback abort_callback, void * abort_callback_data) {
    struct ggml_backend_cpu_context * ctx = cpu_context(backend_cpu, __func__);
    if (ctx == NULL) {
        return;
    }
    ctx->abort_callback      = abort_callback;
    ctx->abort_callback_data = abort_callback_data;
}

void ggml_backend_cpu_set_use_ref(ggml_backend_t backend_cpu, bool use_ref) {
    struct ggml_backend_cpu_context * ctx = cpu_context(backend_cpu, __func__);
    if (ctx == NULL) {
        return;
    }
    ctx->use_ref = use_ref;
}

//
// device
//

static pthread_once_t g_desc_once = PTHREAD_ONCE_INIT;
static char           g_description[256] = "CPU";

static void cpu_read_description(void) {
    FILE * f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "model name", 10) != 0) {
            continue;
        }
        const char * p = strchr(line, ':');
        if (p == NULL) {
            continue;
        }
        p++;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        size_t len = strcspn(p, "\r\n");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) {
            len--;
        }
        if (len > 0) {
            if (len >= sizeof(g_description)) {
                len = sizeof(g_description) - 1;
            }
            memcpy(g_description, p, len);
            g_description[len] = '\0';
        }
        break;
    }
    fclose(f);
}

static const char * cpu_dev_get_name(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return "CPU";
}

static const char * cpu_dev_get_description(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    pthread_once(&g_desc_once, cpu_read_description);
    return g_description;
}

static void cpu_dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    GGML_UNUSED(dev);
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    const long psize = sysconf(_SC_PAGE_SIZE);
    *total = pages > 0 && psize > 0 ? (size_t) pages * (size_t) psize : 0;
    *free  = avail > 0 && psize > 0 ? (size_t) avail * (size_t) psize : *total;
}

static enum ggml_backend_dev_type cpu_dev_get_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return GGML_BACKEND_DEVICE_TYPE_CPU;
}

static void cpu_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name        = cpu_dev_get_name(dev);
    props->description = cpu_dev_get_description(dev);
    props->type        = cpu_dev_get_type(dev);
    props->device_id   = NULL;
    cpu_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps = (struct ggml_backend_dev_caps) {
        /* .async                = */ false,
        /* .host_buffer          = */ false,
        /* .buffer_from_host_ptr = */ true,
        /* .events               = */ false,
        /* .mmap_support         = */ true,
    };
}

static ggml_backend_t cpu_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    GGML_UNUSED(dev);
    GGML_UNUSED(params);
    return ggml_backend_cpu_init();
}

static ggml_backend_buffer_type_t cpu_dev_get_buffer_type(ggml_backend_dev_t dev) {
    GGML_UNUSED(dev);
    return ggml_backend_cpu_buffer_type();
}

static ggml_backend_buffer_t cpu_dev_buffer_from_host_ptr(ggml_backend_dev_t dev, void * ptr, size_t size, size_t max_tensor_size) {
    GGML_UNUSED(dev);
    GGML_UNUSED(max_tensor_size);
    return ggml_backend_cpu_buffer_from_ptr(ptr, size);
}

static bool cpu_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    return ggml_cpu_op_supports(op);
}

static bool cpu_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(dev);
    return ggml_backend_buft_is_host(buft);
}

static bool cpu_dev_offload_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    GGML_UNUSED(dev);
    GGML_UNUSED(op);
    return false;
}


//
// registry
//

static struct ggml_backend_reg g_cpu_reg;

static struct ggml_backend_device g_cpu_device = {
    /* .iface   = */ {
        /* .get_name             = */ cpu_dev_get_name,
        /* .get_description      = */ cpu_dev_get_description,
        /* .get_memory           = */ cpu_dev_get_memory,
        /* .get_type             = */ cpu_dev_get_type,
        /* .get_props            = */ cpu_dev_get_props,
        /* .init_backend         = */ cpu_dev_init_backend,
        /* .get_buffer_type      = */ cpu_dev_get_buffer_type,
        /* .get_host_buffer_type = */ NULL,
        /* .buffer_from_host_ptr = */ cpu_dev_buffer_from_host_ptr,
        /* .supports_op          = */ cpu_dev_supports_op,
        /* .supports_buft        = */ cpu_dev_supports_buft,
        /* .offload_op           = */ cpu_dev_offload_op,
        /* .event_new            = */ NULL,
        /* .event_free           = */ NULL,
        /* .event_synchronize    = */ NULL,
    },
    /* .reg     = */ &g_cpu_reg,
    /* .context = */ NULL,
};

static const char * cpu_reg_get_name(ggml_backend_reg_t reg) {
    GGML_UNUSED(reg);
    return "CPU";
}

static size_t cpu_reg_get_device_count(ggml_backend_reg_t reg) {
    GGML_UNUSED(reg);
    return 1;
}

static ggml_backend_dev_t cpu_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    GGML_UNUSED(reg);
    if (index != 0) {
        GGML_LOG_ERROR("%s: device index %zu is out of range (the CPU registry has 1 device)\n", __func__, index);
        return NULL;
    }
    return &g_cpu_device;
}

static ggml_backend_buffer_type_t * cpu_get_extra_bufts(ggml_backend_dev_t device) {
    GGML_UNUSED(device);
    static ggml_backend_buffer_type_t none[1] = { NULL };
    return none;
}

static pthread_once_t               g_features_list_once = PTHREAD_ONCE_INIT;
static struct ggml_backend_feature  g_features_list[32];

static void cpu_build_features(void) {
    const struct ggml_cpu_features * f = ggml_cpu_get_features();
    const struct { const char * name; bool on; } all[] = {
        { "SSE3",        f->sse3        }, { "SSSE3",       f->ssse3       },
        { "AVX",         f->avx         }, { "AVX_VNNI",    f->avx_vnni    },
        { "AVX2",        f->avx2        }, { "F16C",        f->f16c        },
        { "FMA",         f->fma         }, { "BMI2",        f->bmi2        },
        { "AVX512",      f->avx512      }, { "AVX512_VBMI", f->avx512_vbmi },
        { "AVX512_VNNI", f->avx512_vnni }, { "AVX512_BF16", f->avx512_bf16 },
        { "AMX_INT8",    f->amx_int8    }, { "NEON",        f->neon        },
        { "ARM_FMA",     f->arm_fma     }, { "FP16_VA",     f->fp16_va     },
        { "DOTPROD",     f->dotprod     }, { "MATMUL_INT8", f->matmul_int8 },
        { "SVE",         f->sve         }, { "SME",         f->sme         },
        { "RISCV_V",     f->riscv_v     }, { "VSX",         f->vsx         },
        { "VXE",         f->vxe         }, { "WASM_SIMD",   f->wasm_simd   },
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof(all)/sizeof(all[0]) && n + 1 < sizeof(g_features_list)/sizeof(g_features_list[0]); i++) {
        if (all[i].on) {
            g_features_list[n].name  = all[i].name;
            g_features_list[n].value = "1";
            n++;
        }
    }
    g_features_list[n].name  = NULL;
    g_features_list[n].value = NULL;
}

static struct ggml_backend_feature * cpu_get_features(ggml_backend_reg_t reg) {
    GGML_UNUSED(reg);
    pthread_once(&g_features_list_once, cpu_build_features);
    return g_features_list;
}

static void cpu_numa_init_proc(enum ggml_numa_strategy numa) { ggml_numa_init(numa); }

static void * cpu_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    GGML_UNUSED(reg);
    if (name == NULL) {
        return NULL;
    }
    static const struct { const char * name; void * fn; } procs[] = {
        { "ggml_backend_set_n_threads",       (void *) ggml_backend_cpu_set_n_threads      },
        { "ggml_backend_dev_get_extra_bufts", (void *) cpu_get_extra_bufts                 },
        { "ggml_backend_set_abort_callback",  (void *) ggml_backend_cpu_set_abort_callback },
        { "ggml_backend_get_features",        (void *) cpu_get_features                    },
        { "ggml_backend_cpu_numa_init",       (void *) cpu_numa_init_proc                  },
        { "ggml_backend_cpu_is_numa",         (void *) ggml_is_numa                        },
        { "ggml_backend_cpu_set_use_ref",     (void *) ggml_backend_cpu_set_use_ref        },
        { "ggml_backend_cpu_set_threadpool",  (void *) ggml_backend_cpu_set_threadpool     },
        { "ggml_threadpool_new",              (void *) ggml_threadpool_new                 },
        { "ggml_threadpool_free",             (void *) ggml_threadpool_free                },
        { "ggml_backend_comm_init",             (void *) ggml_backend_cpu_comm_init             },
        { "ggml_backend_comm_free",             (void *) ggml_backend_cpu_comm_free             },
        { "ggml_backend_comm_allreduce_tensor", (void *) ggml_backend_cpu_comm_allreduce_tensor },
    };
    for (size_t i = 0; i < sizeof(procs)/sizeof(procs[0]); i++) {
        if (strcmp(procs[i].name, name) == 0) {
            return procs[i].fn;
        }
    }
    return NULL;
}

static struct ggml_backend_reg g_cpu_reg = {
    /* .api_version = */ GGML_BACKEND_API_VERSION,
    /* .iface       = */ {
        /* .get_name         = */ cpu_reg_get_name,
        /* .get_device_count = */ cpu_reg_get_device_count,
        /* .get_device       = */ cpu_reg_get_device,
        /* .get_proc_address = */ cpu_reg_get_proc_address,
    },
    /* .context     = */ NULL,
};

ggml_backend_reg_t ggml_backend_cpu_reg(void) {
    ggml_cpu_init();
    ggml_test_control_register(GGML_TEST_CPU_FIRST, ggml_cpu_test_control);
    return &g_cpu_reg;
}

// as a loadable module (GGML_BACKEND_DL): every machine can run it, the kernels pick their
// instruction set at run time
#ifdef GGML_BACKEND_DL
static int cpu_backend_score(void) {
    return 1;
}
#endif

GGML_BACKEND_DL_IMPL(ggml_backend_cpu_reg)
GGML_BACKEND_DL_SCORE_IMPL(cpu_backend_score)
