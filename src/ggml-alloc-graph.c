// Graph allocator (ggml_gallocr): plans one compute buffer per buffer type for a graph and gives
// every tensor of the graph its address in it.
//
// Planning walks the graph in execution order with reference counts (pending consumers and live
// views per tensor) and a dynamic offset allocator per buffer type (ggml-alloc-dyn.c):
//   1. leafs, then tensors flagged INPUT, get memory first and keep it for the whole graph;
//   2. for each node: its sources get memory if they have none yet, then the node itself (in the
//      memory of a dying source when the op can run in place), then every source whose last
//      consumer this was releases its memory (a view releases its view_src's, once no view and no
//      consumer of it is left);
//   3. leafs, inputs, outputs and the last node are never released.
// Tensors that already have memory (data or buffer set) are left alone, except those in this
// allocator's own buffers, which come from a previous allocation and are planned again.
//
// alloc_graph plans every graph it is given (cheap compared to computing it), so the addresses
// always follow the graph's real lifetimes; the buffers only grow.

#include "ggml-alloc.h"
#include "ggml-alloc-impl.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdint.h>
#include <string.h>

// per-tensor planning state, indexed by the tensor's slot in the allocator's hash set
enum {
    TI_ALLOCATED = 1 << 0, // has memory: its own planned block, a view of one, or external
    TI_EXTERNAL  = 1 << 1, // memory that this allocator does not manage
    TI_PLANNED   = 1 << 2, // has a planned address (pool, addr)
    TI_OWNED     = 1 << 3, // still holds its planned block (released when it dies)
    TI_KEEP      = 1 << 4, // leaf, input, output or last node: never released
};

struct tensor_info {
    int32_t n_children;       // consumers that have not run yet
    int32_t n_views;          // views of it not yet released
    int32_t pool;             // index of the pool its memory comes from, -1: none
    uint32_t flags;
    struct ggml_dyn_addr addr;
    size_t  size;             // size of the block it holds (aligned)
};

// one per distinct buffer type: identical buffer types share the planner and the buffers
struct galloc_pool {
    ggml_backend_buffer_type_t buft;
    struct ggml_dyn_tallocr  * dyn;
    ggml_backend_buffer_t      chunks[GGML_DYN_MAX_CHUNKS];
    int                        n_chunks;
};

struct ggml_gallocr {
    int   n_bufs;
    int * pool_of;               // [n_bufs] buffer id -> pool
    int   n_pools;
    struct galloc_pool * pools;  // [n_pools]

    struct ggml_hash_set hash;
    struct tensor_info * info;   // [hash.size]
    size_t * order;              // [hash.size] used slots, in the order the tensors were first seen
    size_t   n_order;
    bool     table_full;         // the table was too small for the graph: plan again with a larger one

    // buffer ids given to the last reserve (used by alloc_graph with several buffers)
    int * node_ids;
    int * leaf_ids;
    int   n_node_ids;
    int   n_leaf_ids;
    bool  have_ids;
};

//
// creation
//

ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    if (bufts == NULL || n_bufs <= 0) {
        GGML_LOG_ERROR("%s: need at least one buffer type (bufts %p, n_bufs %d)\n", __func__, (void *) bufts, n_bufs);
        return NULL;
    }
    for (int i = 0; i < n_bufs; i++) {
        if (bufts[i] == NULL) {
            GGML_LOG_ERROR("%s: buffer type %d is NULL\n", __func__, i);
            return NULL;
        }
    }

    ggml_gallocr_t galloc = ggml_calloc(1, sizeof(*galloc));
    if (galloc == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    galloc->pool_of = ggml_calloc((size_t) n_bufs, sizeof(int));
    galloc->pools   = ggml_calloc((size_t) n_bufs, sizeof(struct galloc_pool));
    if (galloc->pool_of == NULL || galloc->pools == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        ggml_gallocr_free(galloc);
        return NULL;
    }
    galloc->n_bufs = n_bufs;

    for (int i = 0; i < n_bufs; i++) {
        int p = 0;
        while (p < galloc->n_pools && galloc->pools[p].buft != bufts[i]) {
            p++;
        }
        if (p == galloc->n_pools) {
            const size_t align = ggml_backend_buft_get_alignment(bufts[i]);
            const size_t max   = ggml_backend_buft_get_max_size(bufts[i]);
            struct ggml_dyn_tallocr * dyn = ggml_dyn_tallocr_new(align, max);
            if (dyn == NULL) {
                GGML_LOG_ERROR("%s: cannot create the planner for buffer type %s\n", __func__, ggml_backend_buft_name(bufts[i]));
                ggml_gallocr_free(galloc);
                return NULL;
            }
            galloc->pools[p].buft = bufts[i];
            galloc->pools[p].dyn  = dyn;
            galloc->n_pools++;
        }
        galloc->pool_of[i] = p;
    }
    return galloc;
}

ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft) {
    return ggml_gallocr_new_n(&buft, 1);
}

static void pool_free_buffers(struct galloc_pool * pool) {
    for (int c = 0; c < pool->n_chunks; c++) {
        ggml_backend_buffer_free(pool->chunks[c]);
        pool->chunks[c] = NULL;
    }
    pool->n_chunks = 0;
}

void ggml_gallocr_free(ggml_gallocr_t galloc) {
    if (galloc == NULL) {
        return;
    }
    if (galloc->pools != NULL) {
        for (int p = 0; p < galloc->n_pools; p++) {
            pool_free_buffers(&galloc->pools[p]);
            ggml_dyn_tallocr_free(galloc->pools[p].dyn);
        }
    }
    ggml_hash_set_free(&galloc->hash);
    ggml_free_mem(galloc->info);
    ggml_free_mem(galloc->order);
    ggml_free_mem(galloc->node_ids);
    ggml_free_mem(galloc->leaf_ids);
    ggml_free_mem(galloc->pools);
    ggml_free_mem(galloc->pool_of);
    ggml_free_mem(galloc);
}

//
// planning
//

struct plan_ctx {
    ggml_gallocr_t       galloc;
    struct ggml_cgraph * graph;
    const int          * node_ids; // NULL: all 0
    const int          * leaf_ids; // NULL: all 0
};

static bool galloc_owns_buffer(const struct ggml_gallocr * galloc, const struct ggml_backend_buffer * buffer) {
    if (buffer == NULL) {
        return false;
    }
    for (int p = 0; p < galloc->n_pools; p++) {
        for (int c = 0; c < galloc->pools[p].n_chunks; c++) {
            if (galloc->pools[p].chunks[c] == buffer) {
                return true;
            }
        }
    }
    return false;
}

// memory that the user or another allocator gave the tensor
static bool tensor_is_external(const struct ggml_gallocr * galloc, const struct ggml_tensor * t) {
    if (t->buffer != NULL) {
        return !galloc_owns_buffer(galloc, t->buffer);
    }
    return t->data != NULL;
}

// The state of t, registered on first sight (a view then counts as a live view of its view_src).
// NULL when the table is full (table_full is set; plan_graph then retries with a larger table).
static struct tensor_info * info_get(ggml_gallocr_t galloc, struct ggml_tensor * t) {
    const size_t slot = ggml_hash_find(&galloc->hash, t);
    if (slot == GGML_HASHSET_FULL) {
        galloc->table_full = true;
        return NULL;
    }
    struct tensor_info * info = &galloc->info[slot];
    if (!ggml_bitset_get(galloc->hash.used, slot)) {
        if (galloc->n_order >= galloc->hash.size / 4 * 3) {
            // kept under 3/4 full so that probing stays short
            galloc->table_full = true;
            return NULL;
        }
        ggml_bitset_set(galloc->hash.used, slot);
        galloc->hash.keys[slot] = t;
        galloc->order[galloc->n_order++] = slot;
        memset(info, 0, sizeof(*info));
        info->pool = -1;
        if (t->view_src != NULL) {
            struct tensor_info * src_info = info_get(galloc, t->view_src);
            if (src_info == NULL) {
                return NULL;
            }
            src_info->n_views++;
            // the table has not been resized: info is still valid
        }
    }
    return info;
}

// Which sources an in-place op may overwrite: the first; for the purely element-wise binary ops
// also the second (each output element depends only on the elements at the same position).
static int inplace_max_src(enum ggml_op op) {
    switch (op) {
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return 2;
        default:
            return 1;
    }
}

// Gives node the block of a source that dies at this node, when that is safe.
// 1: done, 0: not possible, -1: failure (logged).
static int try_inplace(ggml_gallocr_t galloc, struct ggml_tensor * node, struct tensor_info * ni, size_t node_size) {
    const int n_src = inplace_max_src(node->op);
    for (int s = 0; s < n_src; s++) {
        struct ggml_tensor * parent = node->src[s];
        if (parent == NULL || !ggml_tensors_same_layout(node, parent)) {
            continue;
        }
        struct tensor_info * pi = info_get(galloc, parent);
        if (pi == NULL) {
            return -1;
        }
        // this node must be the parent's last pending consumer, and nothing may see the parent
        // through a view afterwards
        if ((pi->flags & TI_KEEP) || pi->n_children != 1 || pi->n_views != 0) {
            continue;
        }
        struct tensor_info * owner_in = pi; // holder of the memory
        if (parent->view_src != NULL) {
            // a view: only when it starts at its view_src and is that tensor's last use
            if (parent->view_offs != 0) {
                continue;
            }
            owner_in = info_get(galloc, parent->view_src);
            if (owner_in == NULL) {
                return -1;
            }
            if ((owner_in->flags & TI_KEEP) || owner_in->n_views != 1 || owner_in->n_children != 0) {
                continue;
            }
        }
        if (!(owner_in->flags & TI_OWNED) || owner_in->pool != ni->pool || owner_in->size < node_size) {
            continue;
        }

        // take the block over; the owner keeps its address (it is used until this node runs)
        ni->addr  = owner_in->addr;
        ni->size  = owner_in->size;
        ni->flags |= TI_ALLOCATED | TI_PLANNED | TI_OWNED;
        owner_in->flags &= ~(uint32_t) TI_OWNED;

        if (ni->size > node_size) {
            struct ggml_dyn_addr tail = ni->addr;
            tail.offset += node_size;
            if (!ggml_dyn_tallocr_release(galloc->pools[ni->pool].dyn, tail, ni->size - node_size)) {
                return -1;
            }
            ni->size = node_size;
        }
        return 1;
    }
    return 0;
}

// Gives t (whose state is ti, or NULL to look it up) memory if it has none. pool: where a new block
// goes. inplace: may reuse a source's block.
static bool plan_alloc(ggml_gallocr_t galloc, struct ggml_tensor * t, struct tensor_info * ti, int pool, bool inplace) {
    if (ti == NULL) {
        ti = info_get(galloc, t);
        if (ti == NULL) {
            return false;
        }
    }
    if (ti->flags & TI_ALLOCATED) {
        return true;
    }
    if (tensor_is_external(galloc, t)) {
        ti->flags |= TI_ALLOCATED | TI_EXTERNAL;
        return true;
    }
    if (t->view_src != NULL) {
        // memory of its view_src (given memory here when nothing else did)
        if (!plan_alloc(galloc, t->view_src, NULL, pool, false)) {
            return false;
        }
        ti->flags |= TI_ALLOCATED; // the table never moves during planning: ti is still valid
        return true;
    }

    struct galloc_pool * gp = &galloc->pools[pool];
    const size_t need = ggml_backend_buft_get_alloc_size(gp->buft, t);
    const size_t size = ggml_dyn_tallocr_block_size(gp->dyn, need);
    if (size == 0) {
        GGML_LOG_ERROR("ggml_gallocr: tensor '%s' needs %zu bytes: too large\n", t->name, need);
        return false;
    }
    ti->pool = pool;

    if (inplace && ggml_op_can_inplace(t->op)) {
        const int done = try_inplace(galloc, t, ti, size);
        if (done != 0) {
            return done > 0;
        }
    }

    if (!ggml_dyn_tallocr_alloc(gp->dyn, size, &ti->addr)) {
        GGML_LOG_ERROR("ggml_gallocr: cannot plan tensor '%s' (%zu bytes) in buffer type %s\n",
                t->name, size, ggml_backend_buft_name(gp->buft));
        return false;
    }
    ti->size   = size;
    ti->flags |= TI_ALLOCATED | TI_PLANNED | TI_OWNED;
    return true;
}

// t's last consumer has run: return its memory (or its view's share of its view_src's)
static bool plan_release(ggml_gallocr_t galloc, struct ggml_tensor * t) {
    for (;;) {
        struct tensor_info * ti = info_get(galloc, t);
        if (ti == NULL) {
            return false;
        }
        if (ti->flags & TI_KEEP) {
            return true;
        }
        if (t->view_src != NULL) {
            struct tensor_info * si = info_get(galloc, t->view_src);
            if (si == NULL) {
                return false;
            }
            si->n_views--;
            if (si->n_views == 0 && si->n_children == 0) {
                t = t->view_src;
                continue;
            }
            return true;
        }
        if (ti->flags & TI_OWNED) {
            ti->flags &= ~(uint32_t) TI_OWNED;
            return ggml_dyn_tallocr_release(galloc->pools[ti->pool].dyn, ti->addr, ti->size);
        }
        return true;
    }
}

static int node_pool(const struct plan_ctx * pc, int i) {
    return pc->galloc->pool_of[pc->node_ids != NULL ? pc->node_ids[i] : 0];
}

static int leaf_pool(const struct plan_ctx * pc, int i) {
    return pc->galloc->pool_of[pc->leaf_ids != NULL ? pc->leaf_ids[i] : 0];
}

// checks the arguments, sizes the tensor table for the graph and resets all state
// large: size the table for the worst case (every reference a distinct tensor with its own view_src)
// instead of for the usual case (the graph's nodes and leafs, and a few more)
static bool plan_prepare(const struct plan_ctx * pc, const char * func, bool large) {
    ggml_gallocr_t galloc = pc->galloc;
    struct ggml_cgraph * graph = pc->graph;

    if (graph->n_nodes < 0 || graph->n_leafs < 0 || (graph->n_nodes > 0 && graph->nodes == NULL) ||
            (graph->n_leafs > 0 && graph->leafs == NULL)) {
        GGML_LOG_ERROR("%s: invalid graph (%d nodes, %d leafs)\n", func, graph->n_nodes, graph->n_leafs);
        return false;
    }
    size_t n_refs = (size_t) graph->n_leafs;
    for (int i = 0; i < graph->n_nodes; i++) {
        const struct ggml_tensor * node = graph->nodes[i];
        if (node == NULL) {
            GGML_LOG_ERROR("%s: node %d of the graph is NULL\n", func, i);
            return false;
        }
        n_refs++;
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            n_refs += node->src[s] != NULL;
        }
        if (pc->node_ids != NULL && (pc->node_ids[i] < 0 || pc->node_ids[i] >= galloc->n_bufs)) {
            GGML_LOG_ERROR("%s: node %d ('%s') has buffer id %d, the allocator has %d buffers\n",
                    func, i, node->name, pc->node_ids[i], galloc->n_bufs);
            return false;
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        if (graph->leafs[i] == NULL) {
            GGML_LOG_ERROR("%s: leaf %d of the graph is NULL\n", func, i);
            return false;
        }
        if (pc->leaf_ids != NULL && (pc->leaf_ids[i] < 0 || pc->leaf_ids[i] >= galloc->n_bufs)) {
            GGML_LOG_ERROR("%s: leaf %d ('%s') has buffer id %d, the allocator has %d buffers\n",
                    func, i, graph->leafs[i]->name, pc->leaf_ids[i], galloc->n_bufs);
            return false;
        }
    }

    const size_t n_usual = (size_t) graph->n_nodes + (size_t) graph->n_leafs;
    const size_t want = ggml_hash_size(large ? 3 * n_refs + 64 : 2 * n_usual + 64);
    if (galloc->hash.size < want) {
        ggml_hash_set_free(&galloc->hash);
        ggml_free_mem(galloc->info);
        ggml_free_mem(galloc->order);
        galloc->info  = NULL;
        galloc->order = NULL;
        galloc->hash  = ggml_hash_set_new(want);
        if (galloc->hash.keys != NULL) {
            galloc->info  = ggml_malloc(galloc->hash.size * sizeof(struct tensor_info));
            galloc->order = ggml_malloc(galloc->hash.size * sizeof(size_t));
        }
        if (galloc->hash.keys == NULL || galloc->info == NULL || galloc->order == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory for the tensor table of %zu entries\n", func, want);
            ggml_hash_set_free(&galloc->hash);
            ggml_free_mem(galloc->info);
            ggml_free_mem(galloc->order);
            galloc->info  = NULL;
            galloc->order = NULL;
            return false;
        }
    } else {
        ggml_hash_set_reset(&galloc->hash);
    }
    galloc->n_order    = 0;
    galloc->table_full = false;
    for (int p = 0; p < galloc->n_pools; p++) {
        ggml_dyn_tallocr_reset(galloc->pools[p].dyn);
    }
    return true;
}

static bool plan_graph_once(const struct plan_ctx * pc, const char * func, bool large) {
    ggml_gallocr_t galloc = pc->galloc;
    struct ggml_cgraph * graph = pc->graph;

    if (!plan_prepare(pc, func, large)) {
        return false;
    }

    // register everything, count consumers (and, through info_get, views), mark what is kept
    for (int i = 0; i < graph->n_leafs; i++) {
        struct tensor_info * li = info_get(galloc, graph->leafs[i]);
        if (li == NULL) {
            return false;
        }
        li->flags |= TI_KEEP;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        struct tensor_info * ni = info_get(galloc, node);
        if (ni == NULL) {
            return false;
        }
        if ((node->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT)) || i == graph->n_nodes - 1) {
            ni->flags |= TI_KEEP;
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            struct ggml_tensor * src = node->src[s];
            if (src == NULL) {
                continue;
            }
            struct tensor_info * si = info_get(galloc, src);
            if (si == NULL) {
                return false;
            }
            si->n_children++;
            if (src->flags & (GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT)) {
                si->flags |= TI_KEEP;
            }
        }
    }

    // leafs, then inputs: allocated before anything else, so nothing else shares their memory
    for (int i = 0; i < graph->n_leafs; i++) {
        if (!plan_alloc(galloc, graph->leafs[i], NULL, leaf_pool(pc, i), false)) {
            return false;
        }
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        const int pool = node_pool(pc, i);
        if ((node->flags & GGML_TENSOR_FLAG_INPUT) && !plan_alloc(galloc, node, NULL, pool, false)) {
            return false;
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            struct ggml_tensor * src = node->src[s];
            if (src != NULL && (src->flags & GGML_TENSOR_FLAG_INPUT) && !plan_alloc(galloc, src, NULL, pool, false)) {
                return false;
            }
        }
    }

    // the nodes in execution order
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        const int pool = node_pool(pc, i);
        struct tensor_info * src_info[GGML_MAX_SRC];
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            src_info[s] = NULL;
            if (node->src[s] == NULL) {
                continue;
            }
            src_info[s] = info_get(galloc, node->src[s]);
            if (src_info[s] == NULL || !plan_alloc(galloc, node->src[s], src_info[s], pool, false)) {
                return false;
            }
        }
        if (!plan_alloc(galloc, node, NULL, pool, true)) {
            return false;
        }
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            struct tensor_info * si = src_info[s];
            if (si == NULL) {
                continue;
            }
            si->n_children--;
            if (si->n_children == 0 && si->n_views == 0 && !plan_release(galloc, node->src[s])) {
                return false;
            }
        }
    }
    return true;
}

// Plans the graph; afterwards the tensor table holds every tensor's planned place and each pool's
// planner its chunk sizes. false (logged) on failure.
static bool plan_graph(const struct plan_ctx * pc, const char * func) {
    if (plan_graph_once(pc, func, false)) {
        return true;
    }
    if (!pc->galloc->table_full) {
        return false;
    }
    // more distinct tensors than the graph's nodes and leafs suggested: once more, sized for the worst case
    if (plan_graph_once(pc, func, true)) {
        return true;
    }
    if (pc->galloc->table_full) {
        GGML_LOG_ERROR("%s: internal error: the tensor table is full\n", func);
    }
    return false;
}

// the size buffer id `id` needs for the current plan (0 for an id sharing an earlier id's pool)
static size_t plan_buffer_size(const struct ggml_gallocr * galloc, int id) {
    const int p = galloc->pool_of[id];
    for (int j = 0; j < id; j++) {
        if (galloc->pool_of[j] == p) {
            return 0;
        }
    }
    const struct ggml_dyn_tallocr * dyn = galloc->pools[p].dyn;
    size_t total = 0;
    for (int c = 0; c < ggml_dyn_tallocr_n_chunks(dyn); c++) {
        total += ggml_dyn_tallocr_chunk_size(dyn, c);
    }
    return total;
}

// whether the pool's buffers can hold the current plan
static bool pool_fits(const struct galloc_pool * pool) {
    const int n = ggml_dyn_tallocr_n_chunks(pool->dyn);
    if (n > pool->n_chunks) {
        return false;
    }
    for (int c = 0; c < n; c++) {
        if (ggml_dyn_tallocr_chunk_size(pool->dyn, c) > ggml_backend_buffer_get_size(pool->chunks[c])) {
            return false;
        }
    }
    return true;
}

// (Re)allocates the buffers of every pool that cannot hold the current plan. Buffers never
// shrink. On failure the pool is left without buffers (a later reserve can try again).
static bool pools_realloc(ggml_gallocr_t galloc, const char * func) {
    for (int p = 0; p < galloc->n_pools; p++) {
        struct galloc_pool * pool = &galloc->pools[p];
        if (pool_fits(pool)) {
            continue;
        }
        const int n = ggml_dyn_tallocr_n_chunks(pool->dyn);
        size_t sizes[GGML_DYN_MAX_CHUNKS];
        for (int c = 0; c < n; c++) {
            // keep what an existing chunk had, so that alternating graphs do not reallocate
            const size_t old = c < pool->n_chunks ? ggml_backend_buffer_get_size(pool->chunks[c]) : 0;
            sizes[c] = MAX(old, ggml_dyn_tallocr_chunk_size(pool->dyn, c));
        }
        // free first: the old and the new buffers may not fit in device memory together
        pool_free_buffers(pool);
        for (int c = 0; c < n; c++) {
            ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(pool->buft, sizes[c]);
            if (buf == NULL) {
                GGML_ERROR_DEFAULT(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate %s buffer of size %zu\n", func, ggml_backend_buft_name(pool->buft), sizes[c]);
                pool_free_buffers(pool);
                return false;
            }
            ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_COMPUTE);
            pool->chunks[c] = buf;
            pool->n_chunks  = c + 1;
        }
    }
    return true;
}

static bool record_ids(ggml_gallocr_t galloc, const struct ggml_cgraph * graph, const int * node_ids, const int * leaf_ids) {
    const int nn = graph->n_nodes;
    const int nl = graph->n_leafs;
    int * n_arr = ggml_realloc(galloc->node_ids, (size_t) (nn > 0 ? nn : 1) * sizeof(int));
    if (n_arr == NULL) {
        return false;
    }
    galloc->node_ids = n_arr;
    int * l_arr = ggml_realloc(galloc->leaf_ids, (size_t) (nl > 0 ? nl : 1) * sizeof(int));
    if (l_arr == NULL) {
        return false;
    }
    galloc->leaf_ids = l_arr;
    for (int i = 0; i < nn; i++) {
        n_arr[i] = node_ids != NULL ? node_ids[i] : 0;
    }
    for (int i = 0; i < nl; i++) {
        l_arr[i] = leaf_ids != NULL ? leaf_ids[i] : 0;
    }
    galloc->n_node_ids = nn;
    galloc->n_leaf_ids = nl;
    galloc->have_ids   = true;
    return true;
}

bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids, const int * leaf_buffer_ids) {
    if (galloc == NULL || graph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, galloc == NULL ? "galloc" : "graph");
        return false;
    }
    const struct plan_ctx pc = { galloc, graph, node_buffer_ids, leaf_buffer_ids };
    if (!plan_graph(&pc, __func__)) {
        return false;
    }
    galloc->have_ids = false;
    if (!record_ids(galloc, graph, node_buffer_ids, leaf_buffer_ids)) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return false;
    }
    return pools_realloc(galloc, __func__);
}

bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    return ggml_gallocr_reserve_n(galloc, graph, NULL, NULL);
}

void ggml_gallocr_reserve_n_size(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
        const int * leaf_buffer_ids, size_t * sizes) {
    if (galloc == NULL || graph == NULL || sizes == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, galloc == NULL ? "galloc" : graph == NULL ? "graph" : "sizes");
        return;
    }
    const struct plan_ctx pc = { galloc, graph, node_buffer_ids, leaf_buffer_ids };
    const bool ok = plan_graph(&pc, __func__);
    for (int i = 0; i < galloc->n_bufs; i++) {
        sizes[i] = ok ? plan_buffer_size(galloc, i) : 0;
    }
}

//
// assigning addresses
//

static enum ggml_status apply_view(ggml_gallocr_t galloc, struct ggml_tensor * t, int depth) {
    if (t->buffer != NULL || t->data != NULL) {
        return GGML_STATUS_SUCCESS; // already has its memory
    }
    struct ggml_tensor * vs = t->view_src;
    if (vs->view_src != NULL && depth < 8) {
        enum ggml_status st = apply_view(galloc, vs, depth + 1);
        if (st != GGML_STATUS_SUCCESS) {
            return st;
        }
    }
    if (vs->buffer == NULL) {
        // memory that ggml-backend does not know about (a context's own memory): nothing to do
        return GGML_STATUS_SUCCESS;
    }
    return ggml_backend_view_init(t);
}

// gives every planned tensor its address; false (logged) on failure
static bool apply_plan(ggml_gallocr_t galloc, const char * func) {
    for (int p = 0; p < galloc->n_pools; p++) {
        for (int c = 0; c < galloc->pools[p].n_chunks; c++) {
            ggml_backend_buffer_reset(galloc->pools[p].chunks[c]);
        }
    }
    const size_t n = galloc->n_order;

    // Every tensor the plan manages gets its address now; the ones that had an address from an
    // earlier allocation of this allocator forget it first (its buffer may be gone by now).
    for (size_t k = 0; k < n; k++) {
        const size_t i = galloc->order[k];
        if (!(galloc->info[i].flags & TI_EXTERNAL)) {
            struct ggml_tensor * t = galloc->hash.keys[i];
            t->buffer = NULL;
            t->data   = NULL;
        }
    }

    for (size_t k = 0; k < n; k++) {
        const size_t i = galloc->order[k];
        if (!(galloc->info[i].flags & TI_PLANNED)) {
            continue;
        }
        struct ggml_tensor * t = galloc->hash.keys[i];
        const struct tensor_info * ti = &galloc->info[i];
        ggml_backend_buffer_t buf = galloc->pools[ti->pool].chunks[ti->addr.chunk];
        char * base = ggml_backend_buffer_get_base(buf);
        if (base == NULL) {
            GGML_LOG_ERROR("%s: buffer %s has no base address\n", func, ggml_backend_buffer_name(buf));
            return false;
        }
        const enum ggml_status st = ggml_backend_tensor_alloc(buf, t, base + ti->addr.offset);
        if (st != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("%s: failed to place tensor '%s' in its buffer: %s\n", func, t->name, ggml_status_to_string(st));
            return false;
        }
    }

    for (size_t k = 0; k < n; k++) {
        const size_t i = galloc->order[k];
        struct ggml_tensor * t = galloc->hash.keys[i];
        if (t->view_src == NULL || (galloc->info[i].flags & TI_EXTERNAL)) {
            continue;
        }
        const enum ggml_status st = apply_view(galloc, t, 0);
        if (st != GGML_STATUS_SUCCESS) {
            GGML_LOG_ERROR("%s: failed to initialize view '%s' of '%s': %s\n", func, t->name, t->view_src->name, ggml_status_to_string(st));
            return false;
        }
    }
    return true;
}

bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph) {
    if (galloc == NULL || graph == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, galloc == NULL ? "galloc" : "graph");
        return false;
    }
    const int * node_ids = NULL;
    const int * leaf_ids = NULL;
    if (galloc->n_bufs > 1) {
        // the buffer of each tensor comes from the last reserve_n, by position in the graph
        if (!galloc->have_ids || galloc->n_node_ids != graph->n_nodes || galloc->n_leaf_ids != graph->n_leafs) {
            // DEBUG, as in the family: callers such as the scheduler take this as "reserve again"
            GGML_LOG_DEBUG("%s: the graph (%d nodes, %d leafs) differs from the one reserved; with %d buffers, "
                    "call ggml_gallocr_reserve_n with it first\n", __func__, graph->n_nodes, graph->n_leafs, galloc->n_bufs);
            return false;
        }
        node_ids = galloc->node_ids;
        leaf_ids = galloc->leaf_ids;
    }
    const struct plan_ctx pc = { galloc, graph, node_ids, leaf_ids };
    if (!plan_graph(&pc, __func__)) {
        return false;
    }
    bool fits = true;
    for (int p = 0; p < galloc->n_pools; p++) {
        fits = fits && pool_fits(&galloc->pools[p]);
    }
    if (!fits) {
        if (galloc->n_bufs > 1) {
            GGML_LOG_DEBUG("%s: the graph needs larger buffers than reserved; with %d buffers, call ggml_gallocr_reserve_n with it first\n",
                    __func__, galloc->n_bufs);
            return false;
        }
        if (!record_ids(galloc, graph, NULL, NULL) || !pools_realloc(galloc, __func__)) {
            GGML_LOG_ERROR("%s: cannot reserve the buffers this graph needs\n", __func__);
            return false;
        }
    }
    return apply_plan(galloc, __func__);
}

size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id) {
    if (galloc == NULL || buffer_id < 0 || buffer_id >= galloc->n_bufs) {
        GGML_LOG_ERROR("%s: invalid buffer id %d\n", __func__, buffer_id);
        return 0;
    }
    const int p = galloc->pool_of[buffer_id];
    for (int j = 0; j < buffer_id; j++) {
        if (galloc->pool_of[j] == p) {
            return 0; // shared with an earlier id: counted there
        }
    }
    size_t total = 0;
    for (int c = 0; c < galloc->pools[p].n_chunks; c++) {
        total += ggml_backend_buffer_get_size(galloc->pools[p].chunks[c]);
    }
    return total;
}
