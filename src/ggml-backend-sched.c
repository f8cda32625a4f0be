// The multi-backend scheduler (ggml_backend_sched): the public API. Creation and destruction,
// allocation of the compute buffers through the graph allocator (one buffer id per backend),
// execution of the splits with their input copies, events and the eval callback.
// Planning (backend assignment, splits, copies) is in ggml-backend-sched-assign.c; the whole
// design is described in docs/scheduler.md.

#include "ggml-backend-sched-impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if GGML_SCHED_MAX_COPIES < 1
#    error "GGML_SCHED_MAX_COPIES must be at least 1"
#endif

//
// creation
//

void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    if (sched == NULL) {
        return;
    }
    for (int b = 0; b < sched->n_backends; b++) {
        for (int c = 0; c < sched->n_copies; c++) {
            ggml_backend_event_free(sched->events[b][c]);
        }
    }
    ggml_gallocr_free(sched->galloc);
    ggml_hash_set_free(&sched->hash);
    ggml_free_mem(sched->tensor_ids);
    ggml_free_mem(sched->tensor_cause);
    ggml_free_mem(sched->copy_head);
    ggml_free_mem(sched->used_slots);
    ggml_free_mem(sched->copy_recs);
    ggml_free_mem(sched->splits);
    ggml_free_mem(sched->graph_inputs);
    // sched->graph borrows the user's hash set: only its own arrays are freed
    ggml_free_mem(sched->graph.nodes);
    ggml_free_mem(sched->graph.leafs);
    ggml_free_mem(sched->node_ids);
    ggml_free_mem(sched->leaf_ids);
    ggml_free_mem(sched->res_node_ids);
    ggml_free_mem(sched->res_leaf_ids);
    ggml_free_mem(sched->res_node_sizes);
    ggml_free_mem(sched->res_leaf_sizes);
    ggml_free(sched->ctx);
    ggml_free_mem(sched->ctx_mem);
    ggml_free_mem(sched->origins);
    ggml_free_mem(sched);
}

static bool check_backends(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends, size_t graph_size) {
    const char * func = "ggml_backend_sched_new";
    if (backends == NULL || n_backends < 1 || n_backends > GGML_SCHED_MAX_BACKENDS) {
        GGML_LOG_ERROR("%s: need 1 to %d backends (got %d%s)\n", func, GGML_SCHED_MAX_BACKENDS, n_backends,
                backends == NULL ? ", backends is NULL" : "");
        return false;
    }
    if (graph_size < 1 || graph_size > INT_MAX) {
        GGML_LOG_ERROR("%s: graph_size %zu is not in [1, %d]\n", func, graph_size, INT_MAX);
        return false;
    }
    for (int i = 0; i < n_backends; i++) {
        if (backends[i] == NULL || backends[i]->device == NULL) {
            GGML_LOG_ERROR("%s: backend %d is %s\n", func, i, backends[i] == NULL ? "NULL" : "without a device");
            return false;
        }
        for (int j = 0; j < i; j++) {
            if (backends[j] == backends[i]) {
                GGML_LOG_ERROR("%s: backend %s is given twice (%d and %d)\n", func, ggml_backend_name(backends[i]), j, i);
                return false;
            }
        }
        ggml_backend_buffer_type_t buft = bufts != NULL && bufts[i] != NULL ? bufts[i] : ggml_backend_get_default_buffer_type(backends[i]);
        if (buft == NULL || !ggml_backend_supports_buft(backends[i], buft)) {
            GGML_LOG_ERROR("%s: backend %s cannot use its compute buffer type %s\n", func, ggml_backend_name(backends[i]),
                    buft != NULL ? ggml_backend_buft_name(buft) : "(none)");
            return false;
        }
    }
    // the last backend takes graph inputs and whatever no other backend can run
    ggml_backend_t last = backends[n_backends - 1];
    if (ggml_backend_dev_type(last->device) != GGML_BACKEND_DEVICE_TYPE_CPU) {
        GGML_LOG_ERROR("%s: the last backend must be the CPU backend; got %s (device %s)\n", func, ggml_backend_name(last),
                ggml_backend_dev_name(last->device));
        return false;
    }
    return true;
}

ggml_backend_sched_t ggml_backend_sched_new_ext(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends,
        size_t graph_size, bool parallel, bool op_offload) {
    if (!check_backends(backends, bufts, n_backends, graph_size)) {
        return NULL;
    }
    struct ggml_backend_sched * sched = ggml_calloc(1, sizeof(*sched));
    if (sched == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    sched->n_backends = n_backends;
    sched->n_copies   = parallel ? GGML_SCHED_MAX_COPIES : 1;
    sched->op_offload = op_offload;
    for (int i = 0; i < n_backends; i++) {
        sched->backends[i] = backends[i];
        sched->bufts[i]    = bufts != NULL && bufts[i] != NULL ? bufts[i] : ggml_backend_get_default_buffer_type(backends[i]);
    }

    // the family's limit on n_nodes + n_leafs; the table itself is a third larger so that
    // probing stays short at the limit
    sched->max_tensors = ggml_hash_size(graph_size);
    sched->hash = ggml_hash_set_new(sched->max_tensors + sched->max_tensors / 3 + 16);
    if (sched->hash.keys != NULL) {
        const size_t n = sched->hash.size;
        sched->tensor_ids   = ggml_malloc(n * sizeof(int));
        sched->tensor_cause = ggml_malloc(n * sizeof(uint8_t));
        sched->copy_head    = ggml_malloc(n * sizeof(int));
        sched->used_slots   = ggml_malloc(n * sizeof(size_t));
    }
    sched->galloc = ggml_gallocr_new_n(sched->bufts, n_backends);
    if (sched->hash.keys == NULL || sched->tensor_ids == NULL || sched->tensor_cause == NULL || sched->copy_head == NULL ||
            sched->used_slots == NULL || sched->galloc == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory for a scheduler of graph_size %zu\n", __func__, graph_size);
        ggml_backend_sched_free(sched);
        return NULL;
    }

    if (sched->n_copies > 1) {
        // NULL events (devices without them) make the scheduler synchronize instead
        for (int b = 0; b < n_backends; b++) {
            for (int c = 0; c < sched->n_copies; c++) {
                sched->events[b][c] = ggml_backend_event_new(backends[b]->device);
            }
        }
    }

    const char * debug = getenv("GGML_SCHED_DEBUG");
    sched->debug = debug != NULL ? atoi(debug) : 0;
    return sched;
}

ggml_backend_sched_t (ggml_backend_sched_new)(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts, int n_backends,
        size_t graph_size, bool parallel) {
    return ggml_backend_sched_new_ext(backends, bufts, n_backends, graph_size, parallel, true);
}

//
// accessors
//

#define SCHED_CHECK(sched, ret) do {                              \
        if ((sched) == NULL) {                                    \
            GGML_LOG_ERROR("%s: sched is NULL\n", __func__);      \
            return ret;                                           \
        }                                                         \
    } while (0)

int ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched) {
    SCHED_CHECK(sched, 0);
    return sched->n_backends;
}

ggml_backend_t ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i) {
    SCHED_CHECK(sched, NULL);
    if (i < 0 || i >= sched->n_backends) {
        GGML_LOG_ERROR("%s: index %d is not in [0, %d)\n", __func__, i, sched->n_backends);
        return NULL;
    }
    return sched->backends[i];
}

int ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched) {
    SCHED_CHECK(sched, 0);
    return sched->n_splits;
}

int ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched) {
    SCHED_CHECK(sched, 0);
    return sched->n_copies;
}

// index of backend, -1 (logged) when it is not one of the scheduler's
static int backend_index_checked(ggml_backend_sched_t sched, ggml_backend_t backend, const char * func) {
    const int i = ggml_sched_backend_index(sched, backend);
    if (i < 0) {
        GGML_LOG_ERROR("%s: backend %s is not one of the scheduler's backends\n", func, ggml_backend_name(backend));
    }
    return i;
}

ggml_backend_buffer_type_t ggml_backend_sched_get_buffer_type(ggml_backend_sched_t sched, ggml_backend_t backend) {
    SCHED_CHECK(sched, NULL);
    const int i = backend_index_checked(sched, backend, __func__);
    return i < 0 ? NULL : sched->bufts[i];
}

size_t ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend) {
    SCHED_CHECK(sched, 0);
    const int i = backend_index_checked(sched, backend, __func__);
    return i < 0 ? 0 : ggml_gallocr_get_buffer_size(sched->galloc, i);
}

void ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node, ggml_backend_t backend) {
    SCHED_CHECK(sched, );
    if (node == NULL) {
        GGML_LOG_ERROR("%s: node is NULL\n", __func__);
        return;
    }
    const int i = backend_index_checked(sched, backend, __func__);
    if (i < 0) {
        return;
    }
    const size_t slot = ggml_sched_slot(sched, node, true);
    if (slot == GGML_HASHSET_FULL) {
        return;
    }
    sched->tensor_ids[slot]   = i;
    sched->tensor_cause[slot] = SCHED_CAUSE_USER;
}

ggml_backend_t ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node) {
    SCHED_CHECK(sched, NULL);
    if (node == NULL) {
        GGML_LOG_ERROR("%s: node is NULL\n", __func__);
        return NULL;
    }
    const int id = ggml_sched_tensor_id(sched, node);
    return id < 0 ? NULL : sched->backends[id];
}

void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback, void * user_data) {
    SCHED_CHECK(sched, );
    sched->eval_cb      = callback;
    sched->eval_cb_data = user_data;
}

//
// reset, synchronize
//

void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    SCHED_CHECK(sched, );
    // the copy context and the record of rewritten sources survive: a graph split before can
    // still be split again (its sources are then restored)
    ggml_sched_clear_tables(sched, false);
    sched->split_done    = false;
    sched->is_alloc      = false;
    sched->alloc_graph   = NULL;
    sched->alloc_nodes   = NULL;
    sched->alloc_n_nodes = 0;
}

static void synchronize_all(ggml_backend_sched_t sched) {
    for (int b = 0; b < sched->n_backends; b++) {
        ggml_backend_synchronize(sched->backends[b]);
    }
}

void ggml_backend_sched_synchronize(ggml_backend_sched_t sched) {
    SCHED_CHECK(sched, );
    synchronize_all(sched);
    if (!sched->is_alloc) {
        // the next graph uses copy slot 0 again, so that identical graphs get identical addresses
        sched->next_copy = 0;
    }
}

//
// allocation
//

// grows the two arrays *ids and *sizes (capacity *cap) to need entries
static bool grow_records(int ** ids, size_t ** sizes, int * cap, int need) {
    if (need <= *cap) {
        return true;
    }
    int * a = ggml_realloc(*ids, (size_t) need * sizeof(int));
    if (a == NULL) {
        return false;
    }
    *ids = a;
    size_t * b = ggml_realloc(*sizes, (size_t) need * sizeof(size_t));
    if (b == NULL) {
        return false;
    }
    *sizes = b;
    *cap = need;
    return true;
}

// reserves the compute buffers for sched->graph and remembers the buffer ids and tensor sizes it
// was reserved with
static bool reserve_current(ggml_backend_sched_t sched, const char * func) {
    sched->res_valid = false;
    if (!ggml_gallocr_reserve_n(sched->galloc, &sched->graph, sched->node_ids, sched->leaf_ids)) {
        GGML_ERROR_DEFAULT(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate the compute buffers\n", func);
        return false;
    }
    const int nn = sched->graph.n_nodes;
    const int nl = sched->graph.n_leafs;
    if (!grow_records(&sched->res_node_ids, &sched->res_node_sizes, &sched->res_nodes_cap, nn > 0 ? nn : 1) ||
            !grow_records(&sched->res_leaf_ids, &sched->res_leaf_sizes, &sched->res_leafs_cap, nl > 0 ? nl : 1)) {
        return true; // reserved all the same; the next graph will be reserved again
    }
    for (int i = 0; i < nn; i++) {
        sched->res_node_ids[i]   = sched->node_ids[i];
        sched->res_node_sizes[i] = ggml_nbytes(sched->graph.nodes[i]);
    }
    for (int i = 0; i < nl; i++) {
        sched->res_leaf_ids[i]   = sched->leaf_ids[i];
        sched->res_leaf_sizes[i] = ggml_nbytes(sched->graph.leafs[i]);
    }
    sched->res_n_nodes = nn;
    sched->res_n_leafs = nl;
    sched->res_valid   = true;
    return true;
}

// Whether sched->graph has the shape of the last reserved graph: every tensor in the same buffer
// (the allocator takes the ids of the last reserve by position) and no tensor larger. Then it
// almost always fits the buffers without a new reserve.
static bool fits_last_reserve(ggml_backend_sched_t sched) {
    if (!sched->res_valid || sched->res_n_nodes != sched->graph.n_nodes || sched->res_n_leafs != sched->graph.n_leafs) {
        return false;
    }
    for (int i = 0; i < sched->graph.n_nodes; i++) {
        if (sched->bufts[sched->node_ids[i]] != sched->bufts[sched->res_node_ids[i]] ||
                ggml_nbytes(sched->graph.nodes[i]) > sched->res_node_sizes[i]) {
            return false;
        }
    }
    for (int i = 0; i < sched->graph.n_leafs; i++) {
        if (sched->bufts[sched->leaf_ids[i]] != sched->bufts[sched->res_leaf_ids[i]] ||
                ggml_nbytes(sched->graph.leafs[i]) > sched->res_leaf_sizes[i]) {
            return false;
        }
    }
    return true;
}

static bool alloc_splits(ggml_backend_sched_t sched, const char * func) {
    if (fits_last_reserve(sched) && ggml_gallocr_alloc_graph(sched->galloc, &sched->graph)) {
        return true;
    }
    // the buffers may be reallocated: nothing may still be running in them
    synchronize_all(sched);
    if (!reserve_current(sched, func)) {
        return false;
    }
    if (!ggml_gallocr_alloc_graph(sched->galloc, &sched->graph)) {
        GGML_ERROR_DEFAULT(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate the graph\n", func);
        return false;
    }
    return true;
}

static bool same_graph(ggml_backend_sched_t sched, const struct ggml_cgraph * graph) {
    return graph == sched->alloc_graph || (graph->nodes == sched->alloc_nodes && graph->n_nodes == sched->alloc_n_nodes);
}

static enum ggml_status sched_alloc(ggml_backend_sched_t sched, struct ggml_cgraph * graph, const char * func) {
    sched->cur_copy  = sched->next_copy;
    sched->next_copy = (sched->next_copy + 1) % sched->n_copies;
    if (!ggml_sched_split_graph(sched, graph)) {
        GGML_LOG_ERROR("%s: cannot schedule the graph\n", func);
        return GGML_STATUS_FAILED;
    }
    if (!alloc_splits(sched, func)) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    sched->is_alloc      = true;
    sched->alloc_graph   = graph;
    sched->alloc_nodes   = graph->nodes;
    sched->alloc_n_nodes = graph->n_nodes;
    return GGML_STATUS_SUCCESS;
}

bool ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    SCHED_CHECK(sched, false);
    if (graph == NULL) {
        GGML_LOG_ERROR("%s: graph is NULL\n", __func__);
        return false;
    }
    if (sched->is_alloc) {
        if (same_graph(sched, graph)) {
            return true;
        }
        GGML_ERROR(GGML_ERROR_BAD_STATE, "%s: another graph is allocated; call ggml_backend_sched_reset first\n", __func__);
        return false;
    }
    return sched_alloc(sched, graph, __func__) == GGML_STATUS_SUCCESS;
}

void ggml_backend_sched_split_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    SCHED_CHECK(sched, );
    if (graph == NULL) {
        GGML_LOG_ERROR("%s: graph is NULL\n", __func__);
        return;
    }
    if (!ggml_sched_split_graph(sched, graph)) {
        GGML_LOG_ERROR("%s: cannot schedule the graph\n", __func__);
    }
}

bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph) {
    SCHED_CHECK(sched, false);
    if (measure_graph == NULL) {
        GGML_LOG_ERROR("%s: measure_graph is NULL\n", __func__);
        return false;
    }
    ggml_backend_sched_synchronize(sched);
    bool ok = ggml_sched_split_graph(sched, measure_graph);
    if (!ok) {
        GGML_LOG_ERROR("%s: cannot schedule the graph\n", __func__);
    } else {
        ok = reserve_current(sched, __func__);
    }
    ggml_backend_sched_reset(sched);
    return ok;
}

void ggml_backend_sched_reserve_size(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph, size_t * sizes) {
    SCHED_CHECK(sched, );
    if (measure_graph == NULL || sizes == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, measure_graph == NULL ? "measure_graph" : "sizes");
        return;
    }
    for (int b = 0; b < sched->n_backends; b++) {
        sizes[b] = 0;
    }
    if (ggml_sched_split_graph(sched, measure_graph)) {
        ggml_gallocr_reserve_n_size(sched->galloc, &sched->graph, sched->node_ids, sched->leaf_ids, sizes);
    } else {
        GGML_LOG_ERROR("%s: cannot schedule the graph\n", __func__);
    }
    ggml_backend_sched_reset(sched);
}

//
// execution
//

// copies the inputs of split s into its backend
static void copy_inputs(ggml_backend_sched_t sched, const struct sched_split * split) {
    const int b = split->backend_id;
    ggml_backend_t backend = sched->backends[b];
    ggml_backend_event_t event = sched->events[b][sched->cur_copy];
    for (int j = 0; j < split->n_inputs; j++) {
        struct ggml_tensor * input = split->inputs[j];
        struct ggml_tensor * cpy = ggml_sched_get_copy(sched, input, b, sched->cur_copy);
        const int in_id = ggml_sched_tensor_id(sched, input);
        ggml_backend_t in_backend = sched->backends[in_id];
        if (input->flags & GGML_TENSOR_FLAG_INPUT) {
            // the user may overwrite an input as soon as the compute call returns: copy it now,
            // once the slot is no longer read by an earlier graph
            if (event != NULL) {
                ggml_backend_event_synchronize(event);
            } else {
                ggml_backend_synchronize(backend);
            }
            ggml_backend_tensor_copy(input, cpy);
            continue;
        }
        // the split's backend must be done with this copy slot before it is overwritten
        if (event != NULL) {
            ggml_backend_event_wait(backend, event);
        } else {
            ggml_backend_synchronize(backend);
        }
        if (backend->iface.cpy_tensor_async != NULL && input->buffer != NULL && cpy->buffer != NULL &&
                backend->iface.cpy_tensor_async(in_backend, backend, input, cpy)) {
            continue;
        }
        ggml_backend_synchronize(in_backend);
        if (event != NULL) {
            ggml_backend_event_synchronize(event);
        } else {
            ggml_backend_synchronize(backend);
        }
        ggml_backend_tensor_copy(input, cpy);
    }
}

// Runs the split's nodes, asking the eval callback which ones the user wants to see and running
// the others in batches. *stop is set when the callback asks to stop.
static enum ggml_status compute_with_callback(ggml_backend_sched_t sched, struct sched_split * split, bool * stop) {
    ggml_backend_t backend = sched->backends[split->backend_id];
    struct ggml_cgraph * g = &split->graph;
    for (int j0 = 0; j0 < g->n_nodes; j0++) {
        struct ggml_tensor * t = g->nodes[j0];
        bool want = sched->eval_cb(t, true, sched->eval_cb_data);
        int j1 = j0;
        while (!want && j1 < g->n_nodes - 1) {
            t = g->nodes[++j1];
            want = sched->eval_cb(t, true, sched->eval_cb_data);
        }
        struct ggml_cgraph view = ggml_graph_view(g, j0, j1 + 1);
        const enum ggml_status st = ggml_backend_graph_compute_async(backend, &view);
        if (st != GGML_STATUS_SUCCESS) {
            return st;
        }
        ggml_backend_synchronize(backend);
        if (want && !sched->eval_cb(t, false, sched->eval_cb_data)) {
            *stop = true;
            return GGML_STATUS_SUCCESS;
        }
        j0 = j1;
    }
    return GGML_STATUS_SUCCESS;
}

static enum ggml_status compute_splits(ggml_backend_sched_t sched, const char * func) {
    // backends with queued work since the host last waited for them
    bool busy[GGML_SCHED_MAX_BACKENDS] = { false };
    for (int s = 0; s < sched->n_splits; s++) {
        struct sched_split * split = &sched->splits[s];
        const int b = split->backend_id;
        ggml_backend_t backend = sched->backends[b];

        // Backends sharing a buffer type share one compute buffer: memory this split reuses may
        // still be read by work queued on such a backend.
        for (int o = 0; o < sched->n_backends; o++) {
            if (o != b && busy[o] && sched->bufts[o] == sched->bufts[b]) {
                ggml_backend_synchronize(sched->backends[o]);
                busy[o] = false;
            }
        }

        copy_inputs(sched, split);

        enum ggml_status st;
        bool stop = false;
        if (sched->eval_cb == NULL) {
            st = ggml_backend_graph_compute_async(backend, &split->graph);
        } else {
            st = compute_with_callback(sched, split, &stop);
        }
        busy[b] = true;
        if (st != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("%s: split %d of %d (nodes [%d, %d) on %s) failed: %s\n", func, s, sched->n_splits, split->i_start,
                    split->i_end, ggml_backend_name(backend), ggml_status_to_string(st));
            synchronize_all(sched);
            return st;
        }
        if (split->n_inputs > 0 && sched->events[b][sched->cur_copy] != NULL) {
            ggml_backend_event_record(sched->events[b][sched->cur_copy], backend);
        }
        if (stop) {
            break; // the eval callback asked to stop: the rest of the graph is not computed
        }
    }
    return GGML_STATUS_SUCCESS;
}

enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    SCHED_CHECK(sched, GGML_STATUS_FAILED);
    if (graph == NULL) {
        GGML_LOG_ERROR("%s: graph is NULL\n", __func__);
        return GGML_STATUS_FAILED;
    }
    if (sched->is_alloc && !same_graph(sched, graph)) {
        GGML_LOG_WARN("%s: the graph is not the one allocated; resetting the scheduler and allocating it "
                "(call ggml_backend_sched_reset before computing another graph)\n", __func__);
        ggml_backend_sched_reset(sched);
    }
    if (!sched->is_alloc) {
        const enum ggml_status st = sched_alloc(sched, graph, __func__);
        if (st != GGML_STATUS_SUCCESS) {
            return st;
        }
    }
    return compute_splits(sched, __func__);
}

enum ggml_status ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    const enum ggml_status st = ggml_backend_sched_graph_compute_async(sched, graph);
    if (sched != NULL) {
        ggml_backend_sched_synchronize(sched);
    }
    return st;
}
