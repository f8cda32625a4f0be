#pragma once

// The CPU graph walker's schedule: which nodes are computed, by how many threads, fused with the
// next one or not, where each finds its work memory, and after which a barrier is needed. Built
// once per compute call (or kept by the CPU backend for a graph it computes again) from the graph
// and the thread count; ggml-cpu-graph.c walks it. The rule for leaving a barrier out is in
// docs/llm.md ("Executor").

#include "ggml-cpu-impl.h"

struct ggml_cpu_sched_entry {
    int    node;          // index in cgraph->nodes
    int    fused;         // index of the last node computed with this one, -1: none (cpu-ops-fused.h):
                          // the MUL after an RMS_NORM, or the SILU after an SSM_CONV (and its ADD)
    int    fused_mid;     // SSM_CONV chain: index of the ADD between, -1: none
    int    nth;           // threads computing it (1: thread 0 alone)
    int    slot;          // chunk slot (ggml_cpu_chunk_select)
    int    n_dirty;       // chunk slots used since the last barrier, this entry's included
    bool   barrier_after; // all threads meet after this entry
    size_t work_off;      // its part of the work buffer: [work_off, work_off + work_size)
    size_t work_size;
};

struct ggml_cpu_sched {
    struct ggml_cpu_sched_entry * entries;
    int    n_entries;
    int    cap;
    size_t work_size;  // work bytes the entries use (the largest end of a part)
    int    n_barriers; // barriers met per compute
    int    n_elided;   // barriers left out between multi-thread nodes (by the dependency rule)
    // what it was built for (a schedule built by ggml_cpu_graph_plan_sched is used as it is)
    int    n_threads;
    int    max_nth;    // the most threads an entry uses
    bool   use_ref;
    bool   oom;        // the last build failed for want of memory
};

// Builds the schedule of cgraph for n_threads (elide: leave out barriers between independent
// nodes; otherwise only between nodes that thread 0 runs alone). Checks every node first (NULL,
// unsupported, unallocated, not in host memory): false with the reason logged. false also when
// out of memory. s is reused (its memory grows as needed); zero-initialise it once.
bool ggml_cpu_sched_build(struct ggml_cpu_sched * s, const struct ggml_cgraph * cgraph, int n_threads, bool use_ref,
                          bool elide, const char * func);
void ggml_cpu_sched_free(struct ggml_cpu_sched * s);
// (func NULL: planning, nothing is checked or logged and unsupported nodes are passed over)

// the work bytes of the schedule without left-out barriers: the largest node's
size_t ggml_cpu_sched_plain_work_size(const struct ggml_cgraph * cgraph, int n_threads);

// ggml_graph_plan for the CPU backend: builds (and checks) the schedule of cgraph into `sched`
// and sizes the work buffer for it; GGML_STATUS_FAILED (logged) or ALLOC_FAILED on failure.
// ggml_cpu_graph_compute_sched then uses that schedule as it is.
enum ggml_status ggml_cpu_graph_plan_sched(const struct ggml_cgraph * cgraph, int n_threads, struct ggml_threadpool * tp,
                                           bool use_ref, struct ggml_cpu_sched * sched, struct ggml_cplan * cplan);

// ggml_graph_compute with the schedule built in `cache` (kept by the caller, memory reused), or
// in a temporary one when cache is NULL
enum ggml_status ggml_cpu_graph_compute_sched(struct ggml_cgraph * cgraph, struct ggml_cplan * cplan, struct ggml_cpu_sched * cache);

// views, nodes the graph does not compute, and results without elements (nothing to write)
bool ggml_cpu_sched_node_skipped(const struct ggml_tensor * node);
