// The error channel: every error is one formatted message, delivered in one log callback call,
// and kept as the calling thread's last error (code and message) for the caller to read.
//
// How a failure gets its code (see docs/errors.md): the first failure of a chain is its cause,
// either an allocation that failed in the wrappers of ggml-mem.c (out of memory, not logged
// there) or an error reported with an explicit code (device, unsupported, ...). The callers that
// then log their own context without a code keep the cause's code; the message kept is the first
// one logged in the chain (the most precise). A chain ends at the next cause, at
// ggml_clear_last_error(), or when an allocation succeeds after the chain's first message was
// logged (the work after a failure allocates, the unwinding does not). A logged error with no
// cause before it is a bad argument.

#include "ggml-impl.h"

#include <stdio.h>

#define GGML_ERROR_MESSAGE_MAX 1024

struct ggml_thread_error {
    enum ggml_error_code code;
    bool chain_open;      // a cause was recorded and no allocation has succeeded since
    bool message_logged;  // the message was logged (a noted cause's message was not)
    char message[GGML_ERROR_MESSAGE_MAX];
};

static _Thread_local struct ggml_thread_error g_error;

// copies text without its trailing newlines
static void set_message(const char * text) {
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) {
        n--;
    }
    if (n >= sizeof(g_error.message)) {
        n = sizeof(g_error.message) - 1;
    }
    memcpy(g_error.message, text, n);
    g_error.message[n] = '\0';
}

void ggml_error_record(enum ggml_error_code code, const char * text, bool logged) {
    if (text == NULL) {
        text = "";
    }
    if (code == GGML_ERROR_OK) {
        // no code of its own: part of the open chain, or a bad argument
        if (g_error.chain_open) {
            if (!g_error.message_logged && logged) {
                set_message(text);
                g_error.message_logged = true;
            }
            return;
        }
        code = GGML_ERROR_INVALID_ARGUMENT;
    }
    g_error.code           = code;
    g_error.chain_open     = true;
    g_error.message_logged = logged;
    set_message(text);
}

void ggml_error_alloc_succeeded(void) {
    // a cause nobody has logged yet stays open: code that makes several allocations before
    // checking them reports the failed one after the others succeeded
    if (g_error.message_logged) {
        g_error.chain_open = false;
    }
}

static void report_v(enum ggml_error_code code, const char * func, const char * format, va_list args) {
    struct ggml_msg m;
    ggml_msg_init(&m);
    if (func != NULL) {
        ggml_msg_append(&m, "%s: ", func);
    }
    ggml_msg_append_v(&m, format, args);
    const size_t n = strlen(m.text);
    if (n == 0 || m.text[n - 1] != '\n') {
        ggml_msg_append(&m, "\n");
    }
    ggml_error_record(code, m.text, true);
    ggml_log_emit(GGML_LOG_LEVEL_ERROR, m.text);
}

void ggml_error_report(enum ggml_error_code code, const char * format, ...) {
    va_list args;
    va_start(args, format);
    report_v(code, NULL, format, args);
    va_end(args);
}

void ggml_error_report_default(enum ggml_error_code code, const char * format, ...) {
    va_list args;
    va_start(args, format);
    report_v(g_error.chain_open ? GGML_ERROR_OK : code, NULL, format, args);
    va_end(args);
}

void ggml_error_report_func(enum ggml_error_code code, const char * func, const char * format, ...) {
    va_list args;
    va_start(args, format);
    report_v(code, func, format, args);
    va_end(args);
}

void ggml_error_note(enum ggml_error_code code, const char * format, ...) {
    char text[256];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    ggml_error_record(code, text, false);
}

//
// message builder
//

void ggml_msg_init(struct ggml_msg * m) {
    m->len     = 0;
    m->text[0] = '\0';
}

void ggml_msg_append_v(struct ggml_msg * m, const char * format, va_list args) {
    const size_t room = sizeof(m->text) - m->len;
    if (room <= 1) {
        return;
    }
    const int n = vsnprintf(m->text + m->len, room, format, args);
    if (n < 0) {
        m->text[m->len] = '\0';
        return;
    }
    if ((size_t) n >= room) {
        // cut: mark it, keeping a final newline
        m->len = sizeof(m->text) - 1;
        memcpy(m->text + sizeof(m->text) - 5, "...\n", 5);
        return;
    }
    m->len += (size_t) n;
}

void ggml_msg_append(struct ggml_msg * m, const char * format, ...) {
    va_list args;
    va_start(args, format);
    ggml_msg_append_v(m, format, args);
    va_end(args);
}

//
// public API
//

enum ggml_error_code ggml_last_error(void) {
    return g_error.code;
}

const char * ggml_last_error_message(void) {
    return g_error.code == GGML_ERROR_OK ? "" : g_error.message;
}

void ggml_clear_last_error(void) {
    g_error.code           = GGML_ERROR_OK;
    g_error.chain_open     = false;
    g_error.message_logged = false;
    g_error.message[0]     = '\0';
}

const char * ggml_error_code_name(enum ggml_error_code code) {
    switch (code) {
        case GGML_ERROR_OK:               return "ok";
        case GGML_ERROR_INVALID_ARGUMENT: return "invalid argument";
        case GGML_ERROR_OUT_OF_MEMORY:    return "out of memory";
        case GGML_ERROR_UNSUPPORTED:      return "unsupported";
        case GGML_ERROR_DEVICE:           return "device error";
        case GGML_ERROR_BAD_STATE:        return "bad state";
        case GGML_ERROR_IO:               return "I/O error";
        case GGML_ERROR_CORRUPT_DATA:     return "corrupt data";
    }
    return "unknown error code";
}
