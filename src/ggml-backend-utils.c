// Utilities over whole graphs: copying a graph with its data to another backend, and running a
// graph on two backends node by node to compare their results.

#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <string.h>

//
// graph copy
//

struct graph_copy_state {
    struct ggml_hash_set  hash_set;
    struct ggml_tensor ** copies;      // by hash slot: the copy of the tensor in that slot
    bool                * initialized; // by hash slot: data copied / view initialized
    struct ggml_context * ctx_allocated;   // copies that get memory of their own
    struct ggml_context * ctx_unallocated; // copies that are views
    bool failed;
};

static void graph_copy_state_free(struct graph_copy_state * st) {
    ggml_hash_set_free(&st->hash_set);
    ggml_free_mem(st->copies);
    ggml_free_mem(st->initialized);
    st->copies      = NULL;
    st->initialized = NULL;
}

// The copy of src (created on first use together with the copies of its sources and view
// source), or NULL after a failure (logged, st->failed set).
static struct ggml_tensor * graph_copy_dup(struct graph_copy_state * st, struct ggml_tensor * src) {
    if (st->failed) {
        return NULL;
    }
    if (src->data == NULL && ggml_nbytes(src) != 0) {
        GGML_LOG_ERROR("ggml_backend_graph_copy: tensor '%s' has no data; the graph must be allocated\n", src->name);
        st->failed = true;
        return NULL;
    }
    size_t slot = ggml_hash_find(&st->hash_set, src);
    if (slot == GGML_HASHSET_FULL) {
        GGML_LOG_ERROR("ggml_backend_graph_copy: too many tensors for the copy's hash set (size %zu)\n", st->hash_set.size);
        st->failed = true;
        return NULL;
    }
    if (ggml_bitset_get(st->hash_set.used, slot)) {
        return st->copies[slot];
    }
    ggml_hash_insert(&st->hash_set, src);

    struct ggml_context * ctx = src->view_src != NULL ? st->ctx_unallocated : st->ctx_allocated;
    struct ggml_tensor * dst = ggml_new_tensor(ctx, src->type, GGML_MAX_DIMS, src->ne);
    if (dst == NULL) {
        GGML_LOG_ERROR("ggml_backend_graph_copy: cannot create the copy of tensor '%s'\n", src->name);
        st->failed = true;
        return NULL;
    }
    st->copies[slot] = dst;

    memcpy(dst->nb, src->nb, sizeof(dst->nb));
    dst->op    = src->op;
    dst->flags = src->flags;
    memcpy(dst->op_params, src->op_params, sizeof(dst->op_params));
    ggml_set_name(dst, src->name);

    if (src->view_src != NULL) {
        dst->view_src  = graph_copy_dup(st, src->view_src);
        dst->view_offs = src->view_offs;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (src->src[i] != NULL) {
            dst->src[i] = graph_copy_dup(st, src->src[i]);
        }
    }
    return st->failed ? NULL : dst;
}

// Gives the copy of src its data: views are attached to their (initialized) view source, other
// tensors receive a copy of src's data. False on failure (logged).
static bool graph_copy_init(struct graph_copy_state * st, struct ggml_tensor * src) {
    size_t slot = ggml_hash_find(&st->hash_set, src);
    if (slot == GGML_HASHSET_FULL || !ggml_bitset_get(st->hash_set.used, slot)) {
        GGML_LOG_ERROR("ggml_backend_graph_copy: tensor '%s' was not duplicated\n", src->name);
        return false;
    }
    if (st->initialized[slot]) {
        return true;
    }
    st->initialized[slot] = true;

    struct ggml_tensor * dst = st->copies[slot];
    if (dst->view_src != NULL) {
        if (!graph_copy_init(st, src->view_src)) {
            return false;
        }
        if (ggml_backend_view_init(dst) != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("ggml_backend_graph_copy: cannot initialize view '%s'\n", dst->name);
            return false;
        }
    } else if (ggml_nbytes(src) != 0) {
        ggml_backend_tensor_copy(src, dst);
    }

    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (src->src[i] != NULL && !graph_copy_init(st, src->src[i])) {
            return false;
        }
    }
    return true;
}

struct ggml_backend_graph_copy ggml_backend_graph_copy(ggml_backend_t backend, struct ggml_cgraph * graph) {
    struct ggml_backend_graph_copy result = { NULL, NULL, NULL, NULL };
    if (backend == NULL || graph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, backend == NULL ? "backend" : "graph");
        return result;
    }
    if (graph->overflow) {
        GGML_LOG_ERROR("%s: the graph overflowed its size when it was built; it is incomplete\n", __func__);
        return result;
    }
    if (graph->n_nodes <= 0) {
        GGML_LOG_ERROR("%s: the graph has no nodes\n", __func__);
        return result;
    }

    // a graph view has no hash set of its own: size for every source of every node
    size_t n_slots = graph->visited_hash_set.size;
    const size_t n_min = (size_t) graph->n_nodes * (GGML_MAX_SRC + 2);
    if (n_slots < n_min) {
        n_slots = ggml_hash_size(n_min);
    }
    const int graph_size = graph->size > graph->n_nodes ? graph->size : graph->n_nodes;

    struct graph_copy_state st;
    memset(&st, 0, sizeof(st));
    st.hash_set    = ggml_hash_set_new(n_slots);
    st.copies      = (struct ggml_tensor **) ggml_calloc(st.hash_set.size ? st.hash_set.size : 1, sizeof(struct ggml_tensor *));
    st.initialized = (bool *) ggml_calloc(st.hash_set.size ? st.hash_set.size : 1, sizeof(bool));
    if (st.hash_set.keys == NULL || st.copies == NULL || st.initialized == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory (hash set of %zu slots)\n", __func__, n_slots);
        graph_copy_state_free(&st);
        return result;
    }

    struct ggml_init_params params = {
        /* .mem_size   = */ ggml_tensor_overhead()*st.hash_set.size + ggml_graph_overhead_custom(graph_size, false),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    st.ctx_allocated   = ggml_init(params);
    st.ctx_unallocated = ggml_init(params);
    ggml_backend_buffer_t buffer = NULL;
    struct ggml_cgraph * copy = NULL;

    if (st.ctx_allocated == NULL || st.ctx_unallocated == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: cannot create the contexts for the copy (%zu bytes each)\n", __func__, params.mem_size);
        goto fail;
    }

    for (int i = 0; i < graph->n_nodes; i++) {
        if (graph->nodes[i] == NULL) {
            GGML_LOG_ERROR("%s: node %d is NULL\n", __func__, i);
            goto fail;
        }
        if (graph_copy_dup(&st, graph->nodes[i]) == NULL) {
            goto fail;
        }
    }

    buffer = ggml_backend_alloc_ctx_tensors(st.ctx_allocated, backend);
    if (buffer == NULL) {
        GGML_LOG_ERROR("%s: cannot allocate the copy's tensors on backend %s\n", __func__, ggml_backend_name(backend));
        goto fail;
    }

    for (int i = 0; i < graph->n_nodes; i++) {
        if (!graph_copy_init(&st, graph->nodes[i])) {
            goto fail;
        }
    }

    copy = ggml_new_graph_custom(st.ctx_allocated, graph_size, false);
    if (copy == NULL) {
        GGML_LOG_ERROR("%s: cannot create the copy's graph (size %d)\n", __func__, graph_size);
        goto fail;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        size_t slot = ggml_hash_find(&st.hash_set, graph->nodes[i]);
        ggml_graph_add_node(copy, st.copies[slot]);
    }
    if (copy->n_nodes != graph->n_nodes) {
        GGML_LOG_ERROR("%s: the copy holds %d of %d nodes\n", __func__, copy->n_nodes, graph->n_nodes);
        goto fail;
    }

    graph_copy_state_free(&st);
    result.buffer          = buffer;
    result.ctx_allocated   = st.ctx_allocated;
    result.ctx_unallocated = st.ctx_unallocated;
    result.graph           = copy;
    return result;

fail:
    ggml_backend_buffer_free(buffer);
    if (st.ctx_allocated != NULL) {
        ggml_free(st.ctx_allocated);
    }
    if (st.ctx_unallocated != NULL) {
        ggml_free(st.ctx_unallocated);
    }
    graph_copy_state_free(&st);
    return result;
}

void ggml_backend_graph_copy_free(struct ggml_backend_graph_copy copy) {
    ggml_backend_buffer_free(copy.buffer);
    if (copy.ctx_allocated != NULL) {
        ggml_free(copy.ctx_allocated);
    }
    if (copy.ctx_unallocated != NULL) {
        ggml_free(copy.ctx_unallocated);
    }
}

//
// graph comparison
//

// no computation: a leaf-like node or a view
static bool op_is_view(enum ggml_op op) {
    return op == GGML_OP_NONE || ggml_op_is_view(op);
}

static bool compute_checked(const char * func, ggml_backend_t backend, struct ggml_cgraph * g, int node) {
    enum ggml_status status = ggml_backend_graph_compute(backend, g);
    if (status != GGML_STATUS_SUCCESS) {
        if (node >= 0) {
            GGML_LOG_ERROR("%s: backend %s failed on node %d (%s): %s\n", func, ggml_backend_name(backend), node,
                    g->n_nodes > 0 ? ggml_op_desc(g->nodes[0]) : "?", ggml_status_to_string(status));
        } else {
            GGML_LOG_ERROR("%s: backend %s failed to compute the graph: %s\n", func, ggml_backend_name(backend),
                    ggml_status_to_string(status));
        }
        return false;
    }
    return true;
}

bool ggml_backend_compare_graph_backend_ext(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph,
        ggml_backend_eval_callback callback, void * user_data, struct ggml_tensor const * const * test_nodes, size_t num_test_nodes) {
    if (backend1 == NULL || backend2 == NULL || graph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, backend1 == NULL ? "backend1" : backend2 == NULL ? "backend2" : "graph");
        return false;
    }
    if (num_test_nodes > 0 && test_nodes == NULL) {
        GGML_LOG_ERROR("%s: test_nodes is NULL but num_test_nodes is %zu\n", __func__, num_test_nodes);
        return false;
    }

    struct ggml_backend_graph_copy copy = ggml_backend_graph_copy(backend2, graph);
    if (copy.graph == NULL) {
        GGML_LOG_ERROR("%s: cannot copy the graph to backend %s\n", __func__, ggml_backend_name(backend2));
        return false;
    }
    struct ggml_cgraph * g1 = graph;
    struct ggml_cgraph * g2 = copy.graph;
    bool ok = true;

    if (num_test_nodes > 0) {
        // compute everything, then look only at the requested nodes
        ok = compute_checked(__func__, backend1, g1, -1) && compute_checked(__func__, backend2, g2, -1);
        bool found = false;
        for (int i = 0; ok && i < g1->n_nodes; i++) {
            bool wanted = false;
            for (size_t j = 0; j < num_test_nodes; j++) {
                wanted = wanted || g1->nodes[i] == test_nodes[j];
            }
            if (!wanted) {
                continue;
            }
            found = true;
            if (callback != NULL && !callback(i, g1->nodes[i], g2->nodes[i], user_data)) {
                break;
            }
        }
        if (ok && !found) {
            GGML_LOG_ERROR("%s: none of the %zu test nodes is a node of the graph\n", __func__, num_test_nodes);
            ok = false;
        }
    } else {
        for (int i = 0; i < g1->n_nodes; i++) {
            struct ggml_tensor * t1 = g1->nodes[i];
            struct ggml_tensor * t2 = g2->nodes[i];

            struct ggml_cgraph g1v = ggml_graph_view(g1, i, i + 1);
            struct ggml_cgraph g2v = ggml_graph_view(g2, i, i + 1);
            if (!compute_checked(__func__, backend1, &g1v, i) || !compute_checked(__func__, backend2, &g2v, i)) {
                ok = false;
                break;
            }
            if (op_is_view(t1->op)) {
                continue;
            }
            if (callback != NULL && !callback(i, t1, t2, user_data)) {
                break;
            }
        }
    }

    ggml_backend_graph_copy_free(copy);
    return ok;
}

bool (ggml_backend_compare_graph_backend)(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph,
        ggml_backend_eval_callback callback, void * user_data) {
    return ggml_backend_compare_graph_backend_ext(backend1, backend2, graph, callback, user_data, NULL, 0);
}
