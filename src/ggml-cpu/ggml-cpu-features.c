// CPU feature probes.
//
// x86: probed at run time with CPUID, and for the AVX / AVX-512 / AMX register states also
// with XGETBV (the OS must save those registers, or using them faults). The vectorized kernels
// choose their code path from these answers at run time. Other architectures: what the compiler
// targets (their kernels are chosen at compile time).
// These report what the machine offers; the level the kernels actually use is ggml_cpu_isa()
// (ggml-cpu-isa.h), which GGML_CPU_ISA can cap.

#ifndef _GNU_SOURCE
#    define _GNU_SOURCE
#endif

#include "ggml-cpu-impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__riscv_v_intrinsic)
#    include <riscv_vector.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#    include <cpuid.h>
#    define GGML_CPU_FEAT_X86 1
#endif

#if defined(__aarch64__) && defined(__linux__) && defined(__ARM_FEATURE_SVE)
#    include <sys/prctl.h>
#endif

static struct ggml_cpu_features g_features;
static pthread_once_t           g_features_once = PTHREAD_ONCE_INIT;

#if defined(GGML_CPU_FEAT_X86)
static uint64_t cpu_xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t) hi << 32) | lo;
}

static void probe_x86(struct ggml_cpu_features * f) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) {
        return;
    }
    const bool osxsave = (c >> 27) & 1;
    const uint64_t xcr0 = osxsave ? cpu_xgetbv0() : 0;
    const bool os_avx    = (xcr0 & 0x6) == 0x6;           // SSE and AVX state
    const bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0; // opmask, ZMM_Hi256, Hi16_ZMM
    const bool os_amx    = (xcr0 & 0x60000) == 0x60000;    // XTILECFG, XTILEDATA

    f->sse3  = (c >> 0) & 1;
    f->ssse3 = (c >> 9) & 1;
    f->avx   = os_avx && ((c >> 28) & 1);
    f->fma   = os_avx && ((c >> 12) & 1);
    f->f16c  = os_avx && ((c >> 29) & 1);

    unsigned max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        f->avx2        = os_avx && ((b >> 5) & 1);
        f->bmi2        = (b >> 8) & 1;
        f->avx512      = os_avx512 && ((b >> 16) & 1);
        f->avx512_vbmi = os_avx512 && ((c >> 1) & 1);
        f->avx512_vnni = os_avx512 && ((c >> 11) & 1);
        f->amx_int8    = os_amx && ((d >> 25) & 1);
        const unsigned max_sub = a;
        if (max_sub >= 1) {
            __cpuid_count(7, 1, a, b, c, d);
            f->avx_vnni    = os_avx && ((a >> 4) & 1);
            f->avx512_bf16 = os_avx512 && ((a >> 5) & 1);
        }
    }
}
#endif

static void probe_features(void) {
    struct ggml_cpu_features f;
    memset(&f, 0, sizeof(f));
#if defined(GGML_CPU_FEAT_X86)
    probe_x86(&f);
#endif
#if defined(__ARM_NEON)
    f.neon = true;
#endif
#if defined(__ARM_FEATURE_FMA)
    f.arm_fma = true;
#endif
#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
    f.fp16_va = true;
#endif
#if defined(__ARM_FEATURE_DOTPROD)
    f.dotprod = true;
#endif
#if defined(__ARM_FEATURE_MATMUL_INT8)
    f.matmul_int8 = true;
#endif
#if defined(__ARM_FEATURE_SVE)
    f.sve = true;
#    if defined(__aarch64__) && defined(__linux__)
    {
        const int vl = prctl(PR_SVE_GET_VL);
        f.sve_cnt = vl > 0 ? (vl & PR_SVE_VL_LEN_MASK) : 0;
    }
#    endif
#endif
#if defined(__ARM_FEATURE_SME)
    f.sme = true;
#endif
#if defined(__ARM_FEATURE_SME2)
    f.sme2 = true;
#endif
#if defined(__riscv_v)
    f.riscv_v = true;
#endif
#if defined(__POWER9_VECTOR__)
    f.vsx = true;
#endif
#if defined(__s390x__) && defined(__VEC__)
    f.vxe = true;
#endif
#if defined(__wasm_simd128__)
    f.wasm_simd = true;
#endif
    g_features = f;
}

void ggml_cpu_init(void) {
    pthread_once(&g_features_once, probe_features);
}

const struct ggml_cpu_features * ggml_cpu_get_features(void) {
    ggml_cpu_init();
    return &g_features;
}

#define GGML_CPU_HAS(name, field) \
    int ggml_cpu_has_##name(void) { return ggml_cpu_get_features()->field ? 1 : 0; }

GGML_CPU_HAS(sse3,        sse3)
GGML_CPU_HAS(ssse3,       ssse3)
GGML_CPU_HAS(avx,         avx)
GGML_CPU_HAS(avx_vnni,    avx_vnni)
GGML_CPU_HAS(avx2,        avx2)
GGML_CPU_HAS(bmi2,        bmi2)
GGML_CPU_HAS(f16c,        f16c)
GGML_CPU_HAS(fma,         fma)
GGML_CPU_HAS(avx512,      avx512)
GGML_CPU_HAS(avx512_vbmi, avx512_vbmi)
GGML_CPU_HAS(avx512_vnni, avx512_vnni)
GGML_CPU_HAS(avx512_bf16, avx512_bf16)
GGML_CPU_HAS(amx_int8,    amx_int8)
GGML_CPU_HAS(neon,        neon)
GGML_CPU_HAS(arm_fma,     arm_fma)
GGML_CPU_HAS(fp16_va,     fp16_va)
GGML_CPU_HAS(dotprod,     dotprod)
GGML_CPU_HAS(matmul_int8, matmul_int8)
GGML_CPU_HAS(sve,         sve)
GGML_CPU_HAS(sme,         sme)
GGML_CPU_HAS(sme2,        sme2)
GGML_CPU_HAS(riscv_v,     riscv_v)
GGML_CPU_HAS(vsx,         vsx)
GGML_CPU_HAS(vxe,         vxe)
GGML_CPU_HAS(wasm_simd,   wasm_simd)

int ggml_cpu_get_sve_cnt(void) {
    return ggml_cpu_get_features()->sve_cnt;
}

int ggml_cpu_get_rvv_vlen(void) {
#if defined(__riscv_v_intrinsic)
    return (int) __riscv_vlenb();
#else
    return 0;
#endif
}

int ggml_cpu_has_llamafile(void) {
    return 0;
}
