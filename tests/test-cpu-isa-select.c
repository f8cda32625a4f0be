// Run-time selection of the AVX-512 quantized kernels: the table in use carries an AVX512-VNNI
// kernel (avx512-quant.h) only when the level in use is AVX-512 and the CPU has AVX512-VNNI
// (ggml_cpu_has_avx512_vnni), and every level below AVX-512 carries none of the AVX-512 kernels.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-kernels.h"
#include "ggml-cpu/arch/x86/avx512-quant.h"
#include "test-common.h"

#include <stdio.h>

int main(void) {
#if GGML_CPU_X86
    const enum ggml_cpu_isa_level top = ggml_cpu_isa();
    const bool vnni = ggml_cpu_isa_avx512_vnni();
    TEST_CHECK_MSG(!vnni || (top == GGML_CPU_ISA_AVX512 && ggml_cpu_has_avx512_vnni()), "VNNI kernels chosen without VNNI");
    int n_vnni = 0;
    for (int level = GGML_CPU_ISA_PORTABLE; level <= (int) top; level++) {
        const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_level((enum ggml_cpu_isa_level) level);
        for (int t = 0; t < GGML_TYPE_COUNT; t++) {
            const ggml_cpu_quant_dot_fn f = kt->quant[t].vec_dot;
            const bool is_vnni = f != NULL && f == ggml_cpu_quant_avx512_vnni[t].vec_dot;
            const bool is_512  = f != NULL && f == ggml_cpu_kernels_avx512.quant[t].vec_dot;
            n_vnni += is_vnni;
            TEST_CHECK_MSG(!is_vnni || (level == GGML_CPU_ISA_AVX512 && vnni), "[%s] %s: a VNNI kernel", ggml_cpu_isa_name((enum ggml_cpu_isa_level) level),
                           ggml_type_name((enum ggml_type) t));
            TEST_CHECK_MSG(!is_512 || level == GGML_CPU_ISA_AVX512, "[%s] %s: an AVX-512 kernel", ggml_cpu_isa_name((enum ggml_cpu_isa_level) level),
                           ggml_type_name((enum ggml_type) t));
        }
    }
    TEST_CHECK_MSG(vnni == (n_vnni > 0), "VNNI in use: %d, VNNI slots in the table: %d", (int) vnni, n_vnni);
    printf("test-cpu-isa-select: level %s, CPU AVX512-VNNI %d, VNNI kernels in use %d (%d slots)\n", ggml_cpu_isa_name(top),
           ggml_cpu_has_avx512_vnni(), (int) vnni, n_vnni);
#endif
    return test_finish("test-cpu-isa-select");
}
