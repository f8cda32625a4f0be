// AVX-512 quantized dot products of the 32-element formats (see avx512-quant.h).

#include "avx512-quant.h"

#if GGML_CPU_X86

const struct ggml_cpu_quant_kernels ggml_cpu_quant_avx512_vnni[GGML_TYPE_COUNT] = { { 0 } };

#else

typedef int ggml_avx512_quant_unused;

#endif // GGML_CPU_X86
