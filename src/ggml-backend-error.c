// Sticky device errors (declared in ggml-backend-impl.h): a device failure on a path that cannot
// return one is kept for the backend or for the buffer's device, as IREE keeps a failed queue's
// status, and returned by the next graph_compute instead of vanishing into the log.
//
// The kept errors live in a small table here rather than in the backend and device objects,
// whose layout backends written for the family's headers fill in themselves.

#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <pthread.h>
#include <stdio.h>

// more owners with an unreturned error at once than this only lose the keeping (still reported)
#define STICKY_MAX 64

struct sticky_entry {
    const void * owner;    // a ggml_backend_t or a ggml_backend_dev_t; NULL: free slot
    char message[256];
};

// errors are rare: one lock for the table is enough
static pthread_mutex_t     g_sticky_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sticky_entry g_sticky[STICKY_MAX];

// the entry of owner, or NULL; call with the lock held
static struct sticky_entry * find(const void * owner) {
    for (int i = 0; i < STICKY_MAX; i++) {
        if (g_sticky[i].owner == owner) {
            return &g_sticky[i];
        }
    }
    return NULL;
}

// keeps the first unreturned error of owner; false when the table is full
static bool keep(const void * owner, const char * text) {
    bool kept = true;
    pthread_mutex_lock(&g_sticky_lock);
    if (find(owner) == NULL) {
        struct sticky_entry * e = find(NULL);
        if (e != NULL) {
            e->owner = owner;
            snprintf(e->message, sizeof(e->message), "%.255s", text);
        } else {
            kept = false;
        }
    }
    pthread_mutex_unlock(&g_sticky_lock);
    return kept;
}

static void report_v(const void * owner, const char * format, va_list args) {
    struct ggml_msg m;
    ggml_msg_init(&m);
    ggml_msg_append_v(&m, format, args);
    // the kept copy has no final newline; the report adds one back
    if (m.len > 0 && m.text[m.len - 1] == '\n') {
        m.text[--m.len] = '\0';
    }
    ggml_error_report(GGML_ERROR_DEVICE, "%s\n", m.text);
    if (owner != NULL && !keep(owner, m.text)) {
        GGML_LOG_WARN("ggml_backend: too many device errors kept at once; this one is not kept for the next graph_compute\n");
    }
}

void ggml_backend_report_device_error(ggml_backend_t backend, const char * format, ...) {
    va_list args;
    va_start(args, format);
    report_v(backend, format, args);
    va_end(args);
}

void ggml_backend_buffer_report_device_error(ggml_backend_buffer_t buffer, const char * format, ...) {
    ggml_backend_dev_t dev = buffer != NULL && buffer->buft != NULL ? buffer->buft->device : NULL;
    va_list args;
    va_start(args, format);
    report_v(dev, format, args);
    va_end(args);
}

bool ggml_backend_sticky_error_check(ggml_backend_t backend, const char * func, bool take) {
    if (backend == NULL) {
        return false;
    }
    char message[sizeof(g_sticky[0].message)];
    bool found = false;
    pthread_mutex_lock(&g_sticky_lock);
    const void * owners[2] = { backend, backend->device };
    for (int i = 0; i < 2 && !found; i++) {
        struct sticky_entry * e = owners[i] != NULL ? find(owners[i]) : NULL;
        if (e != NULL) {
            found = true;
            memcpy(message, e->message, sizeof(message));
            if (take) {
                e->owner = NULL;
            }
        }
    }
    pthread_mutex_unlock(&g_sticky_lock);
    if (!found) {
        return false;
    }
    if (take) {
        ggml_error_report(GGML_ERROR_DEVICE, "%s: backend %s: an earlier operation failed on the device: %s\n",
                func, ggml_backend_name(backend), message);
    } else {
        // logged when it happened: only the last error is set
        ggml_error_record(GGML_ERROR_DEVICE, message, true);
    }
    return true;
}

void ggml_backend_sticky_error_forget(ggml_backend_t backend) {
    pthread_mutex_lock(&g_sticky_lock);
    struct sticky_entry * e = find(backend);
    if (e != NULL) {
        e->owner = NULL;
    }
    pthread_mutex_unlock(&g_sticky_lock);
}
