// A program written against the installed headers only: builds a small graph and checks that a
// bad op is reported instead of aborting.
#include <ggml.h>
#include <stdio.h>

int main(void) {
    struct ggml_init_params params = { 1024*1024, NULL, false };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        return 1;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5, 3);
    int ok = a != NULL && b != NULL && ggml_nbytes(a) == 48 && ggml_add(ctx, a, b) == NULL;
    ggml_free(ctx);
    printf("consumer: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
