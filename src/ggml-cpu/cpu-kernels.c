// Run-time choice of the kernel table (see cpu-kernels.h): the complete table of every level is
// built once, each gap filled from the level below, and handed out capped at ggml_cpu_isa().

#include "cpu-kernels.h"
#include "ggml-impl.h"
#if GGML_CPU_X86
#include "arch/x86/avx512-quant.h"
#endif

#include <pthread.h>

#define N_LEVELS (GGML_CPU_ISA_AVX512 + 1)

// the complete tables, and the complete row-helper tables they point to
static struct ggml_cpu_kernels g_tables[N_LEVELS];
static struct ggml_vec_funcs   g_vec[N_LEVELS];
static pthread_once_t          g_once = PTHREAD_ONCE_INIT;

#define FILL(member) if (t->member == NULL) { t->member = lower->member; }

static void fill_vec(struct ggml_vec_funcs * t, const struct ggml_vec_funcs * lower) {
    FILL(add_f32)
    FILL(sub_f32)
    FILL(mul_f32)
    FILL(div_f32)
    FILL(scale_f32)
    FILL(mad_f32)
    FILL(clamp_f32)
    FILL(leaky_relu_f32)
    FILL(dot_f32)
    FILL(sum_f32)
    FILL(sumsq_f32)
    FILL(max_f32)
    FILL(argmax_f32)
    FILL(exp_f32)
    FILL(expm1_f32)
    FILL(tanh_f32)
    FILL(sigmoid_f32)
    FILL(silu_f32)
    FILL(gelu_f32)
    FILL(gelu_quick_f32)
    FILL(gelu_erf_f32)
    FILL(soft_max_f32)
    FILL(swiglu_f32)
    FILL(relu_f32)
    FILL(abs_f32)
    FILL(neg_f32)
    FILL(sgn_f32)
    FILL(step_f32)
    FILL(sqr_f32)
    FILL(sqrt_f32)
    FILL(hardsigmoid_f32)
    FILL(hardswish_f32)
    FILL(floor_f32)
    FILL(ceil_f32)
    FILL(round_f32)
    FILL(trunc_f32)
    FILL(f16_to_f32)
    FILL(f32_to_f16)
    FILL(bf16_to_f32)
    FILL(f32_to_bf16)
}

static void fill_table(struct ggml_cpu_kernels * t, const struct ggml_cpu_kernels * lower) {
    FILL(mm) // a kernel set is one unit (its tile sizes belong to its kernels)
    for (int r = 0; r <= GGML_CPU_ATTN_ROWS; r++) {
        FILL(attn_dot[r])
        FILL(attn_axpy[r])
    }
    FILL(gemv_cols)
    FILL(conv2d_tile)
    FILL(rope_normal)
    FILL(rope_half)
    FILL(fwht)
    for (int type = 0; type < GGML_TYPE_COUNT; type++) {
        // a quantized slot is one unit too: vec_dot and the activation type it reads go together
        if (t->quant[type].vec_dot == NULL) {
            t->quant[type].vec_dot      = lower->quant[type].vec_dot;
            t->quant[type].vec_dot_type = lower->quant[type].vec_dot_type;
        }
        if (t->quant[type].tile == NULL && t->quant[type].vec_dot_type == lower->quant[type].vec_dot_type) {
            t->quant[type].tile = lower->quant[type].tile;
        }
        if (t->quant[type].gemv == NULL && t->quant[type].vec_dot_type == lower->quant[type].vec_dot_type) {
            t->quant[type].gemv = lower->quant[type].gemv;
        }
        // the panel pair only where the level's tile is the lower level's too (a level's own tile
        // is preferred to a lower level's panel)
        if (t->quant[type].unpack == NULL && t->quant[type].vec_dot_type == lower->quant[type].vec_dot_type &&
            t->quant[type].tile == lower->quant[type].tile) {
            t->quant[type].unpack     = lower->quant[type].unpack;
            t->quant[type].tile_panel = lower->quant[type].tile_panel;
        }
        FILL(quant[type].from_float)
    }
}

#undef FILL

void ggml_cpu_kernels_complete(struct ggml_cpu_kernels * t, struct ggml_vec_funcs * vec,
                               const struct ggml_cpu_kernels * own, const struct ggml_cpu_kernels * lower) {
    *t   = *own;
    *vec = own->vec != NULL ? *own->vec : *lower->vec;
    fill_vec(vec, lower->vec);
    fill_table(t, lower);
    t->vec = vec;
}

// level l > 0 from its own table, gaps filled from level l - 1 (a copy of level l - 1 when this
// build has no code for level l)
static void build_level(int l, const struct ggml_cpu_kernels * own) {
    if (own == NULL) {
        g_tables[l] = g_tables[l - 1];
        g_vec[l]    = g_vec[l - 1];
        g_tables[l].vec = &g_vec[l];
    } else {
        ggml_cpu_kernels_complete(&g_tables[l], &g_vec[l], own, &g_tables[l - 1]);
    }
}

static void kernels_init(void) {
    // the portable table is complete by contract (cpu-kernels.h)
    g_tables[GGML_CPU_ISA_PORTABLE]     = ggml_cpu_kernels_portable;
    g_vec[GGML_CPU_ISA_PORTABLE]        = *ggml_cpu_kernels_portable.vec;
    g_tables[GGML_CPU_ISA_PORTABLE].vec = &g_vec[GGML_CPU_ISA_PORTABLE];
#if GGML_CPU_X86
    build_level(GGML_CPU_ISA_AVX2,   &ggml_cpu_kernels_avx2);
    // the VNNI quantized kernels only where the CPU has VNNI (ggml_cpu_isa_avx512_vnni)
    struct ggml_cpu_kernels avx512 = ggml_cpu_kernels_avx512;
    if (ggml_cpu_isa_avx512_vnni()) {
        ggml_cpu_quant_overlay(avx512.quant, ggml_cpu_quant_avx512_vnni);
    }
    build_level(GGML_CPU_ISA_AVX512, &avx512);
#else
    build_level(GGML_CPU_ISA_AVX2,   NULL);
    build_level(GGML_CPU_ISA_AVX512, NULL);
#endif
}

const struct ggml_cpu_kernels * ggml_cpu_kernels_level(enum ggml_cpu_isa_level level) {
    pthread_once(&g_once, kernels_init);
    const enum ggml_cpu_isa_level cap = ggml_cpu_isa();
    if ((int) level < 0) {
        level = GGML_CPU_ISA_PORTABLE;
    }
    if (level > cap) {
        level = cap;
    }
    return &g_tables[level];
}

const struct ggml_cpu_kernels * ggml_cpu_kernels_get(bool use_ref) {
    return ggml_cpu_kernels_level(use_ref ? GGML_CPU_ISA_PORTABLE : ggml_cpu_isa());
}
