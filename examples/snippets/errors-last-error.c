// docs snippet: docs/errors.md 1
// docs/errors.md's example: a refused ggml_mul_mat leaves a last error that names its cause.
// The program checks the code, that the message is the one logged, and that the log saw it once.
#include "ggml.h"

#include <stdio.h>
#include <string.h>

static int  g_error_calls;
static char g_logged[1024];

static void on_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        g_error_calls++;
        snprintf(g_logged, sizeof(g_logged), "%s", text);
    }
}

int main(void) {
    struct ggml_init_params params = { .mem_size = 1024*1024, .mem_buffer = NULL, .no_alloc = true };
    struct ggml_context * ctx = ggml_init(params);
    if (ctx == NULL) {
        return 1;
    }
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 32);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 48, 8);
    ggml_log_set(on_log, NULL);

    int refused = 0;
    ggml_clear_last_error();
    struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);   // inner sizes differ: NULL
    if (c == NULL && ggml_last_error() == GGML_ERROR_INVALID_ARGUMENT) {
        printf("refused (%s): %s\n", ggml_error_code_name(ggml_last_error()), ggml_last_error_message());
        refused = 1;
    }

    ggml_log_set(NULL, NULL);
    int ok = refused && g_error_calls == 1 &&
             strncmp(g_logged, ggml_last_error_message(), strlen(ggml_last_error_message())) == 0 &&
             strstr(ggml_last_error_message(), "ggml_mul_mat") != NULL;
    ggml_clear_last_error();
    ok = ok && ggml_last_error() == GGML_ERROR_OK && strcmp(ggml_last_error_message(), "") == 0;
    ggml_free(ctx);
    printf("%s\n", ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
    return ok ? 0 : 1;
}
