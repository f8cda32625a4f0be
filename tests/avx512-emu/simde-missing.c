// Stands in for the emulated AVX-512 kernel tests where they cannot be built (tests/avx512-emu/):
// reports the test skipped (exit 77), or, on x86 when GGML_TEST_REQUIRE_SIMDE is set, failed
// (scripts/test.sh installs SIMDe, so there its absence is an error).

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char ** argv) {
    const char * name = argc > 1 ? argv[1] : "avx512-emu";
    const char * req  = getenv("GGML_TEST_REQUIRE_SIMDE");
    if (GGML_EMU_X86 && req != NULL && req[0] != '\0' && req[0] != '0') {
        printf("%s: FAILED: %s, and GGML_TEST_REQUIRE_SIMDE is set (install libsimde-dev and configure again)\n", name, GGML_EMU_WHY);
        return 1;
    }
    printf("%s: skipped: %s\n", name, GGML_EMU_WHY);
    return 77;
}
