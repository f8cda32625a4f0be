// Run-time choice of the SIMD level (see ggml-cpu-isa.h).

#include "ggml-cpu-isa.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t          g_isa_once  = PTHREAD_ONCE_INIT;
static enum ggml_cpu_isa_level g_isa_level = GGML_CPU_ISA_PORTABLE;

static enum ggml_cpu_isa_level ggml_cpu_isa_detect(void) {
#if GGML_CPU_X86
    __builtin_cpu_init();
    // __builtin_cpu_supports also checks that the OS saves the wide registers (XGETBV)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2")) {
        return GGML_CPU_ISA_AVX512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        return GGML_CPU_ISA_AVX2;
    }
#endif
    return GGML_CPU_ISA_PORTABLE;
}

static void ggml_cpu_isa_init(void) {
    enum ggml_cpu_isa_level level = ggml_cpu_isa_detect();
    const char * cap = getenv("GGML_CPU_ISA");
    if (cap != NULL && cap[0] != '\0') {
        enum ggml_cpu_isa_level want;
        if (strcasecmp(cap, "portable") == 0) {
            want = GGML_CPU_ISA_PORTABLE;
        } else if (strcasecmp(cap, "avx2") == 0) {
            want = GGML_CPU_ISA_AVX2;
        } else if (strcasecmp(cap, "avx512") == 0) {
            want = GGML_CPU_ISA_AVX512;
        } else {
            GGML_LOG_WARN("GGML_CPU_ISA=%s is not one of portable, avx2, avx512; ignored\n", cap);
            want = level;
        }
        if (want < level) {
            level = want;
        }
    }
    g_isa_level = level;
}

enum ggml_cpu_isa_level ggml_cpu_isa(void) {
    pthread_once(&g_isa_once, ggml_cpu_isa_init);
    return g_isa_level;
}

bool ggml_cpu_isa_avx512_vnni(void) {
    if (ggml_cpu_isa() != GGML_CPU_ISA_AVX512 || !ggml_cpu_has_avx512_vnni()) {
        return false;
    }
    const char * off = getenv("GGML_CPU_AVX512_VNNI");
    return off == NULL || strcmp(off, "0") != 0;
}

const char * ggml_cpu_isa_name(enum ggml_cpu_isa_level level) {
    switch (level) {
        case GGML_CPU_ISA_PORTABLE: return "portable";
        case GGML_CPU_ISA_AVX2:     return "avx2";
        case GGML_CPU_ISA_AVX512:   return "avx512";
    }
    return "unknown";
}
