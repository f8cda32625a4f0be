// Compatibility program: the helper macros the ggml family's header gives user programs, and what
// GGML_ASSERT / GGML_ABORT do in user code: call the callback set with ggml_set_abort_callback
// with the formatted message, then abort. (The library itself never aborts on bad input; user
// code may.) Each aborting case runs in a child process.

#define _POSIX_C_SOURCE 200809L // fork, pipe, waitpid

#include "ggml.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int n_failed = 0;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "assert:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            n_failed++;                                                     \
        }                                                                   \
    } while (0)

static int report_fd = -1;

static void on_abort(const char * message) {
    if (report_fd >= 0 && message != NULL) {
        ssize_t n = write(report_fd, message, strlen(message));
        (void) n;
    }
}

// Runs fn in a child that has on_abort installed; returns what the callback received and
// whether the child died of SIGABRT.
static bool run_child(void (*fn)(void), char * msg, size_t msg_size) {
    int fds[2];
    if (pipe(fds) != 0) {
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        report_fd = fds[1];
        ggml_set_abort_callback(on_abort);
        fn();
        _exit(0); // not reached when fn aborts
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t n;
    while (used + 1 < msg_size && (n = read(fds[0], msg + used, msg_size - 1 - used)) > 0) {
        used += (size_t) n;
    }
    msg[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void failing_assert(void) {
    int n_layers = 3;
    GGML_ASSERT(n_layers % 2 == 0);
}

static void passing_assert(void) {
    int n_layers = 4;
    GGML_ASSERT(n_layers % 2 == 0);
}

static void explicit_abort(void) {
    GGML_ABORT("unsupported model: %s with %d heads", "toy", 7);
}

struct shape { int64_t ne[4]; size_t nb[4]; };

// GGML_TENSOR_LOCALS works on anything with ne/nb arrays
static int64_t volume(const struct shape * s) {
    GGML_TENSOR_LOCALS(int64_t, ne, s, ne)
    GGML_TENSOR_LOCALS(size_t, nb, s, nb)
    GGML_UNUSED(nb0);
    return ne0 * ne1 * ne2 * ne3;
}

int main(void) {
    char msg[4096];

    bool aborted = run_child(failing_assert, msg, sizeof(msg));
    CHECK(aborted, "a failing GGML_ASSERT did not abort");
    CHECK(strstr(msg, "GGML_ASSERT(n_layers % 2 == 0) failed") != NULL, "callback got '%s'", msg);

    aborted = run_child(passing_assert, msg, sizeof(msg));
    CHECK(!aborted && msg[0] == '\0', "a passing GGML_ASSERT aborted ('%s')", msg);

    aborted = run_child(explicit_abort, msg, sizeof(msg));
    CHECK(aborted, "GGML_ABORT did not abort");
    CHECK(strstr(msg, "unsupported model: toy with 7 heads") != NULL, "callback got '%s'", msg);

    // the previous callback is returned, so that callbacks can be chained
    ggml_abort_callback_t prev = ggml_set_abort_callback(on_abort);
    CHECK(ggml_set_abort_callback(prev) == on_abort, "ggml_set_abort_callback does not return the previous callback");

    // helper macros
    CHECK(GGML_PAD(13, 8) == 16 && GGML_PAD(16, 8) == 16 && GGML_PAD(0, 32) == 0 && GGML_PAD(33, 32) == 64, "GGML_PAD");
    struct shape s = { { 2, 3, 5, 7 }, { 4, 8, 24, 120 } };
    CHECK(volume(&s) == 210, "GGML_TENSOR_LOCALS volume %lld", (long long) volume(&s));
    int unused_value = 3;
    GGML_UNUSED(unused_value);

    printf("assert: %s\n", n_failed == 0 ? "ok" : "FAILED");
    return n_failed == 0 ? 0 : 1;
}
