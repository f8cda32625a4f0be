// Logging, the abort hook for user programs, status strings, time and other small utilities.

#include "ggml-impl.h"

#include <pthread.h>
#include <time.h>

//
// logging
//

static pthread_mutex_t    g_log_mutex     = PTHREAD_MUTEX_INITIALIZER;
static ggml_log_callback  g_log_callback  = ggml_log_callback_default;
static void             * g_log_user_data = NULL;

void ggml_log_callback_default(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) user_data;
    fputs(text, stderr);
    fflush(stderr);
}

void ggml_log_set(ggml_log_callback log_callback, void * user_data) {
    pthread_mutex_lock(&g_log_mutex);
    g_log_callback  = log_callback ? log_callback : ggml_log_callback_default;
    g_log_user_data = log_callback ? user_data : NULL;
    pthread_mutex_unlock(&g_log_mutex);
}

void ggml_log_get(ggml_log_callback * log_callback, void ** user_data) {
    pthread_mutex_lock(&g_log_mutex);
    if (log_callback) {
        *log_callback = g_log_callback;
    }
    if (user_data) {
        *user_data = g_log_user_data;
    }
    pthread_mutex_unlock(&g_log_mutex);
}

void ggml_log_emit(enum ggml_log_level level, const char * text) {
    ggml_log_callback cb;
    void * ud;
    ggml_log_get(&cb, &ud);
    cb(level, text, ud);
}

static void ggml_log_internal_v(enum ggml_log_level level, const char * format, va_list args) {
    if (format == NULL) {
        return;
    }
    // format on the stack; long messages are cut rather than allocated, so that logging works
    // when memory is exhausted
    char buffer[2048];
    int len = vsnprintf(buffer, sizeof(buffer), format, args);
    if (len < 0) {
        return;
    }
    if ((size_t) len >= sizeof(buffer)) {
        memcpy(buffer + sizeof(buffer) - 5, "...\n", 5);
    }
    if (level == GGML_LOG_LEVEL_ERROR) {
        // an error logged without a code: the last error keeps the code of its cause
        ggml_error_record(GGML_ERROR_OK, buffer, true);
    }
    ggml_log_emit(level, buffer);
}

void ggml_log_internal(enum ggml_log_level level, const char * format, ...) {
    va_list args;
    va_start(args, format);
    ggml_log_internal_v(level, format, args);
    va_end(args);
}

//
// abort (only reached from user programs through GGML_ASSERT / GGML_ABORT)
//

static pthread_mutex_t       g_abort_mutex    = PTHREAD_MUTEX_INITIALIZER;
static ggml_abort_callback_t g_abort_callback = NULL;

ggml_abort_callback_t ggml_set_abort_callback(ggml_abort_callback_t callback) {
    pthread_mutex_lock(&g_abort_mutex);
    ggml_abort_callback_t prev = g_abort_callback;
    g_abort_callback = callback;
    pthread_mutex_unlock(&g_abort_mutex);
    return prev;
}

void ggml_abort(const char * file, int line, const char * fmt, ...) {
    char message[2048];
    int n = snprintf(message, sizeof(message), "%s:%d: ", file, line);
    if (n < 0 || (size_t) n >= sizeof(message)) {
        n = 0;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(message + n, sizeof(message) - (size_t) n, fmt, args);
    va_end(args);

    pthread_mutex_lock(&g_abort_mutex);
    ggml_abort_callback_t cb = g_abort_callback;
    pthread_mutex_unlock(&g_abort_mutex);

    if (cb) {
        cb(message);
    } else {
        fprintf(stderr, "%s\n", message);
        fflush(stderr);
    }
    abort();
}

//
// small utilities
//

const char * ggml_status_to_string(enum ggml_status status) {
    switch (status) {
        case GGML_STATUS_ALLOC_FAILED: return "GGML status: error (failed to allocate memory)";
        case GGML_STATUS_FAILED:       return "GGML status: error (operation failed)";
        case GGML_STATUS_SUCCESS:      return "GGML status: success";
        case GGML_STATUS_ABORTED:      return "GGML status: warning (operation aborted)";
    }
    return "GGML status: unknown";
}

bool ggml_guid_matches(ggml_guid_t guid_a, ggml_guid_t guid_b) {
    if (guid_a == NULL || guid_b == NULL) {
        return guid_a == guid_b;
    }
    return memcmp(guid_a, guid_b, sizeof(ggml_guid)) == 0;
}

#ifndef GGML_VERSION_STR
#define GGML_VERSION_STR "0.0.0"
#endif

const char * ggml_version(void) {
    return GGML_VERSION_STR;
}

const char * ggml_commit(void) {
    return "unknown";
}

void ggml_time_init(void) {
    // clock_gettime needs no initialization
}

int64_t ggml_time_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + (int64_t) ts.tv_nsec / 1000000;
}

int64_t ggml_time_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + (int64_t) ts.tv_nsec / 1000;
}

int64_t ggml_cycles(void) {
    return (int64_t) clock();
}

int64_t ggml_cycles_per_ms(void) {
    return CLOCKS_PER_SEC / 1000;
}

FILE * ggml_fopen(const char * fname, const char * mode) {
    if (fname == NULL || mode == NULL) {
        GGML_LOG_ERROR("%s: NULL file name or mode\n", __func__);
        return NULL;
    }
    FILE * f = fopen(fname, mode);
    if (f == NULL) {
        // recorded, not logged: callers may probe for files
        ggml_error_note(GGML_ERROR_IO, "%s: cannot open '%s' (mode %s)", __func__, fname, mode);
    }
    return f;
}
