#pragma once

// Per-node timing of CPU graphs for profiling (debug only): set GGML_CPU_PROFILE=1 and every
// ggml_graph_compute adds, per op (mat-muls per weight type), thread 0's time in the node and its
// wait at the barrier after it; the totals are printed to stderr when the process exits.

#include "ggml.h"

#include <stdbool.h>
#include <stdint.h>

#define GGML_CPU_PROFILE_KEYS (GGML_OP_COUNT + GGML_TYPE_COUNT)

struct ggml_cpu_profile {
    int64_t node_ns[GGML_CPU_PROFILE_KEYS];
    int64_t wait_ns[GGML_CPU_PROFILE_KEYS];
    int64_t count[GGML_CPU_PROFILE_KEYS];
    int64_t n_barriers;   // barriers met between nodes
    int64_t n_skipped;    // barriers left out (thread 0 alone on both sides)
};

// whether GGML_CPU_PROFILE is set (read once)
bool    ggml_cpu_profile_enabled(void);
int64_t ggml_cpu_profile_now_ns(void);
int     ggml_cpu_profile_key(const struct ggml_tensor * node);
// adds one graph's figures (thread 0's) and the graph's wall time to the process totals
void    ggml_cpu_profile_add(const struct ggml_cpu_profile * p, int64_t graph_ns);
