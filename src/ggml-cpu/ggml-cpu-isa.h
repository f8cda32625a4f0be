#pragma once

// Which SIMD level the CPU kernels use, chosen once at run time.
//
// Kernels are compiled for several levels (function attributes, not -march flags) and pick one
// through ggml_cpu_isa(). The environment variable GGML_CPU_ISA=portable|avx2|avx512 caps the
// level, so that the tests can check every path on one machine (the portable path in CI too).

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ggml_cpu_isa_level {
    GGML_CPU_ISA_PORTABLE = 0, // plain C (what the compiler makes of it for the build's -march)
    GGML_CPU_ISA_AVX2     = 1, // AVX2 + FMA + F16C
    GGML_CPU_ISA_AVX512   = 2, // AVX-512 F/BW/DQ/VL + FMA + F16C
};

// The level in use: the best the CPU and OS support, capped by GGML_CPU_ISA. Thread-safe.
enum ggml_cpu_isa_level ggml_cpu_isa(void);

const char * ggml_cpu_isa_name(enum ggml_cpu_isa_level level);

// true when the level in use is AVX-512 and the CPU (and OS) also has AVX512-VNNI: the AVX-512 table
// then carries the VNNI quantized kernels (avx512-quant.h). GGML_CPU_AVX512_VNNI=0 turns them off.
bool ggml_cpu_isa_avx512_vnni(void);

// Kernel helpers are force-inlined so that each call site specialises them. In builds with
// sanitizers (GGML_SANITIZER_BUILD, defined by GGML_SANITIZE) the compiler decides what to inline:
// instrumenting the fully expanded kernels took gcc and clang 10 to over 20 minutes per file in CI.
#ifdef GGML_SANITIZER_BUILD
#    define GGML_KERNEL_INLINE static inline
#else
#    define GGML_KERNEL_INLINE static inline __attribute__((always_inline))
#endif

#if defined(__x86_64__) || defined(__i386__)
#    define GGML_CPU_X86 1
#    if defined(GGML_CPU_SIMD_EMULATED)
// the test-only build of the x86 kernels on SIMDe (tests/avx512-emu/): plain code for any x86-64
#        define GGML_TARGET_AVX2
#        define GGML_TARGET_AVX512
#        define GGML_TARGET_AVX512_VNNI
#    else
#        define GGML_TARGET_AVX2   __attribute__((target("avx2,fma,f16c")))
#        define GGML_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c")))
#        define GGML_TARGET_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma,f16c")))
#    endif
#else
#    define GGML_CPU_X86 0
#endif

#ifdef __cplusplus
}
#endif
