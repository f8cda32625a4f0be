// The tables that the emulated kernel tests (emu-shim.h) see. Levels below AVX-512 are the
// library's own; the AVX-512 level is completed (ggml_cpu_kernels_complete) from the AVX2 level and
// one of these kernel sets, chosen with the environment variable GGML_TEST_AVX512:
//   emulated       (default) the SIMDe build of src/ggml-cpu/arch/x86/avx512*.c, whose symbols
//                  carry the prefix ggml_emu_ (CMakeLists.txt renames them after the build)
//   emulated-vnni  the same with the AVX512-VNNI quantized slots laid over it
//   native         the library's own AVX-512 table without VNNI: exit 77 on a CPU without AVX-512
//   native-vnni    with the VNNI slots: exit 77 on a CPU without AVX512-VNNI
// The level reported is AVX-512 whatever the CPU, so the tests walk all three levels.

#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "ggml-cpu/arch/x86/avx512-quant.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ggml_cpu_kernels       ggml_emu_ggml_cpu_kernels_avx512;
extern const struct ggml_cpu_quant_kernels ggml_emu_ggml_cpu_quant_avx512_vnni[GGML_TYPE_COUNT];

enum ggml_cpu_isa_level ggml_emu_cpu_isa(void);
const struct ggml_cpu_kernels * ggml_emu_cpu_kernels_level(enum ggml_cpu_isa_level level);
const struct ggml_cpu_kernels * ggml_emu_cpu_kernels_get(bool use_ref);
const struct ggml_vec_funcs * ggml_emu_vec_get_level(enum ggml_cpu_isa_level level);
const struct ggml_vec_funcs * ggml_emu_vec_get(bool use_ref);

static pthread_once_t          g_once = PTHREAD_ONCE_INIT;
static struct ggml_cpu_kernels g_table;
static struct ggml_vec_funcs   g_vec;

static void emu_init(void) {
    const char * mode = getenv("GGML_TEST_AVX512");
    if (mode == NULL || mode[0] == '\0') {
        mode = "emulated";
    }
    const bool native = strncmp(mode, "native", 6) == 0;
    const bool vnni   = strstr(mode, "vnni") != NULL;
    if (!native && strncmp(mode, "emulated", 8) != 0) {
        fprintf(stderr, "GGML_TEST_AVX512=%s: expected emulated, emulated-vnni, native or native-vnni\n", mode);
        exit(1);
    }
    if (native && (ggml_cpu_isa() < GGML_CPU_ISA_AVX512 || (vnni && !ggml_cpu_has_avx512_vnni()))) {
        printf("GGML_TEST_AVX512=%s: this CPU lacks AVX-512%s (or GGML_CPU_ISA caps it): skipped\n", mode, vnni ? " VNNI" : "");
        exit(77);
    }
    const struct ggml_cpu_kernels * own = native ? &ggml_cpu_kernels_avx512 : &ggml_emu_ggml_cpu_kernels_avx512;
    const struct ggml_cpu_quant_kernels * vq = native ? ggml_cpu_quant_avx512_vnni : ggml_emu_ggml_cpu_quant_avx512_vnni;
    struct ggml_cpu_kernels raw = *own;
    if (vnni) {
        ggml_cpu_quant_overlay(raw.quant, vq);
    }
    ggml_cpu_kernels_complete(&g_table, &g_vec, &raw, ggml_cpu_kernels_level(GGML_CPU_ISA_AVX2));
    printf("AVX-512 level of this run: %s kernels%s\n", native ? "native" : "SIMDe-emulated", vnni ? " with the VNNI slots" : "");
}

enum ggml_cpu_isa_level ggml_emu_cpu_isa(void) {
    pthread_once(&g_once, emu_init);
    return GGML_CPU_ISA_AVX512;
}

const struct ggml_cpu_kernels * ggml_emu_cpu_kernels_level(enum ggml_cpu_isa_level level) {
    pthread_once(&g_once, emu_init);
    return level >= GGML_CPU_ISA_AVX512 ? &g_table : ggml_cpu_kernels_level(level);
}

const struct ggml_cpu_kernels * ggml_emu_cpu_kernels_get(bool use_ref) {
    return ggml_emu_cpu_kernels_level(use_ref ? GGML_CPU_ISA_PORTABLE : GGML_CPU_ISA_AVX512);
}

const struct ggml_vec_funcs * ggml_emu_vec_get_level(enum ggml_cpu_isa_level level) {
    return ggml_emu_cpu_kernels_level(level)->vec;
}

const struct ggml_vec_funcs * ggml_emu_vec_get(bool use_ref) {
    return ggml_emu_cpu_kernels_get(use_ref)->vec;
}
