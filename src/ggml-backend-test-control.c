// One entry point for the test hooks (tests only), as SQLite's sqlite3_test_control: the core's
// ops are handled here and the others are dispatched by range to the handler their component
// registered when it was initialized. It lives in the backend layer because it may start the
// registry (which makes the built-in backends register their handlers); it never calls into a
// backend's folder directly.

#include "ggml-impl.h"
#include "ggml-backend.h"

#include <pthread.h>

#define N_COMPONENTS (GGML_TEST_COMPONENT_END / GGML_TEST_OPS_PER_COMPONENT)

static pthread_mutex_t      g_lock = PTHREAD_MUTEX_INITIALIZER;
static ggml_test_control_fn g_handlers[N_COMPONENTS];

// ggml-mem.c
void ggml_mem_test_fault_set(long n);
long ggml_mem_test_fault_count(void);

void ggml_test_control_register(int first, ggml_test_control_fn fn) {
    if (first <= 0 || first >= GGML_TEST_COMPONENT_END || first % GGML_TEST_OPS_PER_COMPONENT != 0) {
        GGML_LOG_ERROR("%s: %d is not the first op of a component's range\n", __func__, first);
        return;
    }
    pthread_mutex_lock(&g_lock);
    g_handlers[first / GGML_TEST_OPS_PER_COMPONENT] = fn;
    pthread_mutex_unlock(&g_lock);
}

static ggml_test_control_fn handler_of(int op) {
    pthread_mutex_lock(&g_lock);
    ggml_test_control_fn fn = g_handlers[op / GGML_TEST_OPS_PER_COMPONENT];
    pthread_mutex_unlock(&g_lock);
    return fn;
}

static int core_test_control(int op, va_list args) {
    switch (op) {
        case GGML_TEST_ALLOC_FAULT_SET:
            ggml_mem_test_fault_set(va_arg(args, long));
            return 0;
        case GGML_TEST_ALLOC_FAULT_COUNT: {
            long * out = va_arg(args, long *);
            GGML_CHECK_RET(out != NULL, -1, "GGML_TEST_ALLOC_FAULT_COUNT: NULL output");
            *out = ggml_mem_test_fault_count();
            return 0;
        }
        default:
            break;
    }
    GGML_LOG_ERROR("ggml_test_control: unknown core op %d\n", op);
    return -1;
}

int ggml_test_control(int op, ...) {
    if (op <= 0 || op >= GGML_TEST_COMPONENT_END) {
        GGML_LOG_ERROR("%s: unknown op %d\n", __func__, op);
        return -1;
    }
    va_list args;
    va_start(args, op);
    int ret;
    if (op < GGML_TEST_OPS_PER_COMPONENT) {
        ret = core_test_control(op, args);
    } else {
        ggml_test_control_fn fn = handler_of(op);
        if (fn == NULL) {
            // the built-in backends register their handler when the registry first starts
            (void) ggml_backend_reg_count();
            fn = handler_of(op);
        }
        if (fn == NULL) {
            GGML_LOG_ERROR("%s: op %d: its component is not built in\n", __func__, op);
            ret = -1;
        } else {
            ret = fn(op, args);
        }
    }
    va_end(args);
    return ret;
}
