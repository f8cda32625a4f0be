#pragma once

// Internal state of the multi-backend scheduler (ggml_backend_sched), shared by
// ggml-backend-sched.c (public API: creation, allocation, execution) and
// ggml-backend-sched-assign.c (backend assignment, splits, input copies, the allocator's graph).
// Not installed. See docs/scheduler.md for the algorithm.

#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// most backends one scheduler drives
#ifndef GGML_SCHED_MAX_BACKENDS
#    define GGML_SCHED_MAX_BACKENDS 16
#endif

// most inputs (tensors copied in from another backend) of one split; a split that would need
// more is cut in two
#ifndef GGML_SCHED_MAX_SPLIT_INPUTS
#    define GGML_SCHED_MAX_SPLIT_INPUTS 30
#endif

// copies of the split inputs kept when the scheduler is created with parallel = true
#ifndef GGML_SCHED_MAX_COPIES
#    define GGML_SCHED_MAX_COPIES 4
#endif

// Why a tensor got its backend (printed by GGML_SCHED_DEBUG=2).
enum sched_cause {
    SCHED_CAUSE_NONE = 0,
    SCHED_CAUSE_USER,        // ggml_backend_sched_set_tensor_backend
    SCHED_CAUSE_BUFFER,      // pass 1: already in a buffer of that backend
    SCHED_CAUSE_INPUT,       // pass 1: flagged INPUT, goes to the last backend (the CPU)
    SCHED_CAUSE_WEIGHTS,     // pass 1: follows a source in a WEIGHTS buffer
    SCHED_CAUSE_OFFLOAD,     // pass 1: a higher-priority backend asked for it (offload_op)
    SCHED_CAUSE_GPU_DOWN,    // pass 2a: follows the previous node on a non-CPU backend
    SCHED_CAUSE_GPU_UP,      // pass 2b: follows the next node on a non-CPU backend
    SCHED_CAUSE_DOWN,        // pass 2c: follows the previous node
    SCHED_CAUSE_UP,          // pass 2d: follows the next node
    SCHED_CAUSE_BEST_FIT,    // pass 3: the backend that can use most of its sources
    SCHED_CAUSE_UPGRADE,     // pass 3: moved to a higher-priority backend with the same buffer type
    SCHED_CAUSE_VIEW_SRC,    // pass 4: a view, on the backend of the tensor it views
    SCHED_CAUSE_CONSUMER,    // pass 4: a source, on the backend of its first consumer
    SCHED_CAUSE_FIRST,       // pass 4: the first backend that supports the op
    SCHED_CAUSE_LEAF,        // pass 4: an unused leaf, on the last backend
    SCHED_CAUSE_COUNT,
};

// One run of consecutive nodes on one backend, with the tensors it needs copied from others.
struct sched_split {
    int backend_id;
    int i_start;   // node range [i_start, i_end) of the user's graph
    int i_end;
    int n_inputs;
    struct ggml_tensor * inputs[GGML_SCHED_MAX_SPLIT_INPUTS]; // the originals (not the copies)
    struct ggml_cgraph graph; // the split's nodes, a view of sched->graph
};

// The copies of one tensor on one backend (one per copy slot), chained per tensor.
struct sched_copy_rec {
    int backend_id;
    int next; // next record of the same tensor, -1: none
    struct ggml_tensor * t[GGML_SCHED_MAX_COPIES];
};

// A copy tensor and the tensor it copies: the sources the scheduler rewrote in the user's graph.
struct sched_origin {
    struct ggml_tensor * copy;
    struct ggml_tensor * orig;
};

struct ggml_backend_sched {
    int n_backends;
    ggml_backend_t             backends[GGML_SCHED_MAX_BACKENDS];
    ggml_backend_buffer_type_t bufts[GGML_SCHED_MAX_BACKENDS];
    ggml_gallocr_t galloc;   // one buffer id per backend
    bool op_offload;
    int  debug;              // GGML_SCHED_DEBUG

    // per-tensor state, indexed by the tensor's slot in `hash`
    struct ggml_hash_set hash;
    size_t   max_tensors;     // limit on n_nodes + n_leafs (the family's: ggml_hash_size(graph_size))
    int     * tensor_ids;     // assigned backend, -1: none
    uint8_t * tensor_cause;   // enum sched_cause
    int     * copy_head;      // first sched_copy_rec of the tensor, -1: none
    size_t  * used_slots;     // slots in use, to clear them without touching the whole table
    size_t    n_used_slots;

    struct sched_copy_rec * copy_recs;
    int n_copy_recs;
    int copy_recs_cap;

    // splits of the last graph
    struct sched_split * splits;
    int n_splits;
    int splits_cap;

    // tensors flagged INPUT that get n_copies slots on their own backend (parallel mode)
    struct ggml_tensor ** graph_inputs;
    int n_graph_inputs;
    int graph_inputs_cap;

    // the graph given to the allocator: per split its input dependencies and copies, then its
    // nodes; copies and inputs as leafs in parallel mode; the user's leafs
    struct ggml_cgraph graph;
    int   graph_nodes_cap;
    int   graph_leafs_cap;
    int * node_ids;           // buffer id (= backend id) of each node of `graph`
    int * leaf_ids;

    // buffer ids and tensor sizes of the last successful ggml_gallocr_reserve_n, to know when it
    // must run again
    int * res_node_ids;
    int * res_leaf_ids;
    size_t * res_node_sizes;
    size_t * res_leaf_sizes;
    int   res_n_nodes;
    int   res_n_leafs;
    int   res_nodes_cap;
    int   res_leafs_cap;
    bool  res_valid;

    // context (no_alloc) holding the copy tensors; its memory is kept across graphs
    struct ggml_context * ctx;
    void * ctx_mem;
    size_t ctx_mem_size;

    // sources rewritten to copies by the last split (undone when a graph is split again)
    struct sched_origin * origins;
    size_t n_origins;
    size_t origins_cap;

    // copies of the inputs for pipeline parallelism
    int n_copies;
    int cur_copy;
    int next_copy;
    ggml_backend_event_t events[GGML_SCHED_MAX_BACKENDS][GGML_SCHED_MAX_COPIES];

    // state machine
    bool split_done;   // the tables hold the state of a split graph (cleared by reset)
    bool is_alloc;     // that graph is allocated and can be computed
    const struct ggml_cgraph * alloc_graph;  // the graph that was allocated
    struct ggml_tensor ** alloc_nodes;
    int alloc_n_nodes;

    ggml_backend_sched_eval_callback eval_cb;
    void * eval_cb_data;
};

//
// ggml-backend-sched-assign.c
//

// index of backend in the scheduler, -1 when it is not one of its backends
int  ggml_sched_backend_index(const struct ggml_backend_sched * sched, ggml_backend_t backend);

// hash slot of t, inserted when `insert`; GGML_HASHSET_FULL (logged when inserting) when the table
// is full or, without insert, when t is not in it
size_t ggml_sched_slot(struct ggml_backend_sched * sched, const struct ggml_tensor * t, bool insert);

// assigned backend of t, -1 when none
int  ggml_sched_tensor_id(struct ggml_backend_sched * sched, const struct ggml_tensor * t);

// clears every assignment and copy (reset); keep_user: user assignments survive
void ggml_sched_clear_tables(struct ggml_backend_sched * sched, bool keep_user);

// Assigns backends, cuts the graph into splits, creates the input copies, rewrites the sources
// of the nodes to the copies and builds sched->graph for the allocator. false (logged) when the
// graph cannot be scheduled (too large, an op no backend supports, a pre-allocated tensor no
// backend can use, out of memory).
bool ggml_sched_split_graph(struct ggml_backend_sched * sched, struct ggml_cgraph * graph);

// copy of tensor t on backend_id in copy slot c, NULL when there is none
struct ggml_tensor * ggml_sched_get_copy(struct ggml_backend_sched * sched, const struct ggml_tensor * t, int backend_id, int c);

// GGML_SCHED_DEBUG output for the last split graph
void ggml_sched_print_assignments(struct ggml_backend_sched * sched, const struct ggml_cgraph * graph);

#ifdef __cplusplus
}
#endif
