// Per-node timing of CPU graphs (GGML_CPU_PROFILE=1): process totals, printed at exit.

#include "ggml-cpu-profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_once_t          g_profile_once  = PTHREAD_ONCE_INIT;
static bool                    g_profile_on    = false;
static pthread_mutex_t         g_profile_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct ggml_cpu_profile g_profile_total; // guarded by g_profile_mutex
static int64_t                 g_profile_graphs;
static int64_t                 g_profile_graph_ns;

static void profile_print(void) {
    pthread_mutex_lock(&g_profile_mutex);
    const struct ggml_cpu_profile * p = &g_profile_total;
    int64_t node = 0, wait = 0;
    for (int k = 0; k < GGML_CPU_PROFILE_KEYS; k++) {
        node += p->node_ns[k];
        wait += p->wait_ns[k];
    }
    fprintf(stderr, "ggml-cpu profile: %lld graphs, %.3f ms in graphs; thread 0: %.3f ms in nodes, %.3f ms at barriers;"
            " %lld barriers between nodes, %lld left out\n", (long long) g_profile_graphs, g_profile_graph_ns * 1e-6,
            node * 1e-6, wait * 1e-6, (long long) p->n_barriers, (long long) p->n_skipped);
    fprintf(stderr, "ggml-cpu profile: %-22s %10s %10s %10s %7s\n", "op", "nodes", "node ms", "wait ms", "share");
    const double total = (double) (node + wait);
    for (int k = 0; k < GGML_CPU_PROFILE_KEYS; k++) {
        if (p->count[k] == 0) {
            continue;
        }
        char name[64];
        if (k < GGML_OP_COUNT) {
            snprintf(name, sizeof(name), "%s", ggml_op_name((enum ggml_op) k));
        } else {
            snprintf(name, sizeof(name), "MUL_MAT %s", ggml_type_name((enum ggml_type) (k - GGML_OP_COUNT)));
        }
        fprintf(stderr, "ggml-cpu profile: %-22s %10lld %10.3f %10.3f %6.1f%%\n", name, (long long) p->count[k],
                p->node_ns[k] * 1e-6, p->wait_ns[k] * 1e-6, total > 0 ? 100.0 * (double) (p->node_ns[k] + p->wait_ns[k]) / total : 0.0);
    }
    pthread_mutex_unlock(&g_profile_mutex);
}

static void profile_init(void) {
    const char * v = getenv("GGML_CPU_PROFILE");
    g_profile_on = v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
    if (g_profile_on && atexit(profile_print) != 0) {
        g_profile_on = false;
    }
}

bool ggml_cpu_profile_enabled(void) {
    pthread_once(&g_profile_once, profile_init);
    return g_profile_on;
}

int64_t ggml_cpu_profile_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int ggml_cpu_profile_key(const struct ggml_tensor * node) {
    if (node->op == GGML_OP_MUL_MAT && node->src[0] != NULL && (int) node->src[0]->type < GGML_TYPE_COUNT) {
        return GGML_OP_COUNT + (int) node->src[0]->type;
    }
    return (int) node->op < GGML_OP_COUNT ? (int) node->op : 0;
}

void ggml_cpu_profile_add(const struct ggml_cpu_profile * p, int64_t graph_ns) {
    pthread_mutex_lock(&g_profile_mutex);
    for (int k = 0; k < GGML_CPU_PROFILE_KEYS; k++) {
        g_profile_total.node_ns[k] += p->node_ns[k];
        g_profile_total.wait_ns[k] += p->wait_ns[k];
        g_profile_total.count[k]   += p->count[k];
    }
    g_profile_total.n_barriers += p->n_barriers;
    g_profile_total.n_skipped  += p->n_skipped;
    g_profile_graphs++;
    g_profile_graph_ns += graph_ns;
    pthread_mutex_unlock(&g_profile_mutex);
}
