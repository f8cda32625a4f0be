// llm-membw: the machine's memory read bandwidth, for the generation limit of scripts/bench-llm.sh
// (weights read per token / bandwidth). N threads (default 2) each sum their share of a buffer
// much larger than the caches; the best of several passes; prints "bandwidth: X GB/s".
//   llm-membw [threads] [MiB]
#define _POSIX_C_SOURCE 200809L   // clock_gettime
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct part {
    const uint64_t * p;
    size_t           n;
    uint64_t         sum;
};

static void * read_part(void * arg) {
    struct part * pt = arg;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= pt->n; i += 4) {
        s0 += pt->p[i]; s1 += pt->p[i + 1]; s2 += pt->p[i + 2]; s3 += pt->p[i + 3];
    }
    pt->sum = s0 + s1 + s2 + s3;   // kept so that the reads are not optimized away
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char ** argv) {
    int n_threads = argc > 1 ? atoi(argv[1]) : 2;
    size_t mib = argc > 2 ? (size_t) atoi(argv[2]) : 512;
    if (n_threads < 1 || n_threads > 64 || mib < 16) {
        fprintf(stderr, "usage: llm-membw [threads 1..64] [MiB >= 16]\n");
        return 1;
    }
    size_t n = mib * 1048576 / sizeof(uint64_t);
    uint64_t * buf = malloc(n * sizeof(uint64_t));
    if (!buf) {
        fprintf(stderr, "error: out of memory (%zu MiB)\n", mib);
        return 1;
    }
    for (size_t i = 0; i < n; i++) buf[i] = i;   // touch every page
    struct part parts[64];
    pthread_t th[64];
    double best = 1e30;
    uint64_t check = 0;
    for (int pass = 0; pass < 5; pass++) {
        double t0 = now_s();
        for (int t = 0; t < n_threads; t++) {
            parts[t] = (struct part) { buf + n / n_threads * t, n / n_threads, 0 };
            if (pthread_create(&th[t], NULL, read_part, &parts[t]) != 0) {
                fprintf(stderr, "error: cannot start a thread\n");
                free(buf);
                return 1;
            }
        }
        for (int t = 0; t < n_threads; t++) {
            pthread_join(th[t], NULL);
            check += parts[t].sum;
        }
        double dt = now_s() - t0;
        best = dt < best ? dt : best;
    }
    printf("bandwidth: %.1f GB/s (%d threads, %zu MiB, best of 5; check %llu)\n",
           (double) (n / n_threads * n_threads) * sizeof(uint64_t) / best / 1e9, n_threads, mib,
           (unsigned long long) (check & 0xff));
    free(buf);
    return 0;
}
