#pragma once

// Force-included (-include) into a second build of the CPU kernel tests (test-cpu-kernels.c,
// test-cpu-vec.c, test-cpu-quant.c, test-cpu-mm-kernels.c): the calls by which they pick the
// tables of each level go to emu-tables.c instead, whose AVX-512 level is the SIMDe build of the
// AVX-512 kernels (or, with GGML_TEST_AVX512=native..., the real ones). Everything else (graphs,
// backends, the lower levels) is the ordinary library.

#define ggml_cpu_isa           ggml_emu_cpu_isa
#define ggml_cpu_kernels_level ggml_emu_cpu_kernels_level
#define ggml_cpu_kernels_get   ggml_emu_cpu_kernels_get
#define ggml_vec_get_level     ggml_emu_vec_get_level
#define ggml_vec_get           ggml_emu_vec_get
