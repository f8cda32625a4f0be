#include "test-common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int n_passed;
static int n_failed;

bool test_check_impl(bool cond, const char * expr, const char * file, int line) {
    if (cond) {
        n_passed++;
    } else {
        n_failed++;
        fprintf(stderr, "FAILED %s:%d: %s\n", file, line, expr);
    }
    return cond;
}

bool test_check_msg_impl(bool cond, const char * file, int line, const char * fmt, ...) {
    if (cond) {
        n_passed++;
        return true;
    }
    n_failed++;
    fprintf(stderr, "FAILED %s:%d: ", file, line);
    va_list args;
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    return false;
}

int test_n_failed(void) {
    return n_failed;
}

int test_finish(const char * name) {
    printf("%s: %d passed, %d failed\n", name, n_passed, n_failed);
    fflush(stdout);
    return n_failed == 0 ? 0 : 1;
}

#define LOG_CAP 65536
static char   log_buf[LOG_CAP];
static size_t log_len;
static int    log_errors;

static void capture_cb(enum ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        log_errors++;
    }
    size_t n = strlen(text);
    if (log_len + n >= LOG_CAP) {
        n = LOG_CAP - 1 - log_len;
    }
    memcpy(log_buf + log_len, text, n);
    log_len += n;
    log_buf[log_len] = '\0';
}

void test_log_capture_begin(void) {
    log_len = 0;
    log_buf[0] = '\0';
    log_errors = 0;
    ggml_log_set(capture_cb, NULL);
}

void test_log_capture_end(void) {
    ggml_log_set(NULL, NULL);
}

int test_log_error_count(void) {
    return log_errors;
}

const char * test_log_text(void) {
    return log_buf;
}

static uint64_t rng_state[4];
static uint64_t rng_seed_value;
static bool     rng_ready;

static uint64_t splitmix(uint64_t * x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void test_rng_init(void) {
    const char * env = getenv("TEST_SEED");
    rng_seed_value = env ? strtoull(env, NULL, 0) : (uint64_t) time(NULL) ^ ((uint64_t) clock() << 20);
    uint64_t s = rng_seed_value;
    for (int i = 0; i < 4; i++) {
        rng_state[i] = splitmix(&s);
    }
    rng_ready = true;
    printf("random seed: %llu (set TEST_SEED to repeat)\n", (unsigned long long) rng_seed_value);
}

uint64_t test_rng_seed(void) {
    return rng_seed_value;
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t test_rand_u64(void) {
    if (!rng_ready) {
        test_rng_init();
    }
    uint64_t * s = rng_state;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double test_rand_uniform(double lo, double hi) {
    return lo + (hi - lo) * ((double)(test_rand_u64() >> 11) * (1.0 / 9007199254740992.0));
}

int64_t test_rand_int(int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(test_rand_u64() % span);
}

void test_fill_uniform_f32(struct ggml_tensor * t, double lo, double hi) {
    float * x = (float *) t->data;
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        x[i] = (float) test_rand_uniform(lo, hi);
    }
}
