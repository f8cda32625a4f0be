// Compute graphs: the tensor hash set, graphs stored in a context, building a graph from its
// outputs (ggml_build_forward_expand), and printing / Graphviz export.
//
// A graph object lives in the context arena: the struct, then its arrays (nodes, leafs,
// use_counts, hash keys, optional grads and grad_accs, hash bitset). The hash set holds every
// tensor the graph has visited; use_counts and grads are indexed by the tensor's hash slot.

#include "ggml-impl.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

//
// hash set
//

size_t ggml_hash_size(size_t min_sz) {
    // a prime just above each power of two: open addressing wants a prime table size
    static const size_t primes[] = {
        2, 3, 5, 11, 17, 37, 67, 131, 257, 521, 1031, 2053, 4099, 8209, 16411, 32771, 65537,
        131101, 262147, 524309, 1048583, 2097169, 4194319, 8388617, 16777259, 33554467,
        67108879, 134217757, 268435459, 536870923, 1073741827, 2147483659u,
    };
    const size_t n = sizeof(primes) / sizeof(primes[0]);

    // lower bound: first entry >= min_sz
    size_t lo = 0;
    size_t hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (primes[mid] < min_sz) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n ? primes[lo] : (min_sz | 1);
}

struct ggml_hash_set ggml_hash_set_new(size_t size) {
    struct ggml_hash_set result = { 0, NULL, NULL };

    const size_t n = ggml_hash_size(size);
    if (n > SIZE_MAX / sizeof(struct ggml_tensor *)) {
        GGML_LOG_ERROR("%s: a hash set of %zu entries is too large\n", __func__, size);
        return result;
    }
    struct ggml_tensor ** keys = ggml_malloc(n * sizeof(struct ggml_tensor *));
    ggml_bitset_t * used = ggml_calloc(ggml_bitset_size(n), sizeof(ggml_bitset_t));
    if (keys == NULL || used == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: failed to allocate a hash set of %zu entries\n", __func__, n);
        ggml_free_mem(keys);
        ggml_free_mem(used);
        return result;
    }
    result.size = n;
    result.keys = keys;
    result.used = used;
    return result;
}

void ggml_hash_set_free(struct ggml_hash_set * hash_set) {
    if (hash_set == NULL) {
        return;
    }
    ggml_free_mem(hash_set->used);
    ggml_free_mem(hash_set->keys);
    hash_set->used = NULL;
    hash_set->keys = NULL;
    hash_set->size = 0;
}

void ggml_hash_set_reset(struct ggml_hash_set * hash_set) {
    if (hash_set == NULL || hash_set->used == NULL) {
        return;
    }
    memset(hash_set->used, 0, ggml_bitset_size(hash_set->size) * sizeof(ggml_bitset_t));
}

// a graph whose hash set can be used (views and zeroed structs have none)
static bool graph_has_hash(const struct ggml_cgraph * cgraph) {
    return cgraph->visited_hash_set.size > 0 && cgraph->visited_hash_set.keys != NULL &&
           cgraph->visited_hash_set.used != NULL && cgraph->use_counts != NULL;
}

// hash slot of t in the graph, or GGML_HASHSET_FULL when the graph has not visited t
static size_t graph_slot_of(const struct ggml_cgraph * cgraph, const struct ggml_tensor * t) {
    if (!graph_has_hash(cgraph)) {
        return GGML_HASHSET_FULL;
    }
    const size_t i = ggml_hash_find(&cgraph->visited_hash_set, t);
    if (i == GGML_HASHSET_FULL || !ggml_bitset_get(cgraph->visited_hash_set.used, i)) {
        return GGML_HASHSET_FULL;
    }
    return i;
}

//
// memory layout of a graph object
//

struct graph_layout {
    size_t hash_size;
    size_t off_nodes, off_leafs, off_use_counts, off_keys, off_grads, off_grad_accs, off_used;
    size_t total; // bytes from the start of the struct; SIZE_MAX when it does not fit in size_t
};

// appends `count` elements of `elem` bytes aligned to `align`; false on size_t overflow
static bool layout_add(size_t * cur, size_t * off, size_t count, size_t elem, size_t align) {
    const size_t start = (*cur + align - 1) / align * align;
    if (start < *cur || (count != 0 && elem > (SIZE_MAX - start) / count)) {
        return false;
    }
    *off = start;
    *cur = start + count * elem;
    return true;
}

static struct graph_layout graph_layout_of(size_t size, bool grads) {
    struct graph_layout l;
    memset(&l, 0, sizeof(l));
    l.total = SIZE_MAX;

    // the hash set holds nodes and leafs: twice the graph size
    if (size > SIZE_MAX / 2) {
        return l;
    }
    l.hash_size = ggml_hash_size(size * 2);

    const size_t ptr = sizeof(struct ggml_tensor *);
    size_t cur = sizeof(struct ggml_cgraph);
    bool ok = layout_add(&cur, &l.off_nodes,      size,        ptr,             ptr) &&
              layout_add(&cur, &l.off_leafs,      size,        ptr,             ptr) &&
              layout_add(&cur, &l.off_use_counts, l.hash_size, sizeof(int32_t), sizeof(int32_t)) &&
              layout_add(&cur, &l.off_keys,       l.hash_size, ptr,             ptr);
    if (ok && grads) {
        ok = layout_add(&cur, &l.off_grads,     l.hash_size, ptr, ptr) &&
             layout_add(&cur, &l.off_grad_accs, l.hash_size, ptr, ptr);
    }
    ok = ok && layout_add(&cur, &l.off_used, ggml_bitset_size(l.hash_size), sizeof(ggml_bitset_t), sizeof(ggml_bitset_t));
    if (ok) {
        l.total = cur;
    }
    return l;
}

size_t ggml_graph_overhead_custom(size_t size, bool grads) {
    const struct graph_layout l = graph_layout_of(size, grads);
    if (l.total == SIZE_MAX || l.total > SIZE_MAX - GGML_OBJECT_SIZE - GGML_MEM_ALIGN) {
        GGML_LOG_ERROR("%s: a graph of size %zu is too large\n", __func__, size);
        return SIZE_MAX;
    }
    return GGML_OBJECT_SIZE + GGML_PAD(l.total, GGML_MEM_ALIGN);
}

size_t ggml_graph_overhead(void) {
    return ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false);
}

//
// graphs in a context
//

struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads) {
    GGML_CHECK_RET(ctx != NULL, NULL, "ctx is NULL");
    GGML_CHECK_RET(size >= 1 && size <= INT_MAX, NULL, "size %zu is not in [1, %d]", size, INT_MAX);

    const struct graph_layout l = graph_layout_of(size, grads);
    GGML_CHECK_RET(l.total != SIZE_MAX, NULL, "a graph of size %zu is too large", size);

    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_GRAPH, l.total);
    if (obj == NULL) {
        GGML_LOG_ERROR("%s: not enough space in the context for a graph of size %zu (%zu bytes needed, see ggml_graph_overhead_custom)\n",
                __func__, size, ggml_graph_overhead_custom(size, grads));
        return NULL;
    }
    char * mem = (char *) ctx->mem_buffer + obj->offs;

    struct ggml_cgraph * cgraph = (struct ggml_cgraph *) mem;
    memset(cgraph, 0, sizeof(*cgraph));
    cgraph->size       = (int) size;
    cgraph->nodes      = (struct ggml_tensor **)(mem + l.off_nodes);
    cgraph->leafs      = (struct ggml_tensor **)(mem + l.off_leafs);
    cgraph->use_counts = (int32_t *)(mem + l.off_use_counts);
    cgraph->grads      = grads ? (struct ggml_tensor **)(mem + l.off_grads)     : NULL;
    cgraph->grad_accs  = grads ? (struct ggml_tensor **)(mem + l.off_grad_accs) : NULL;
    cgraph->visited_hash_set.size = l.hash_size;
    cgraph->visited_hash_set.keys = (struct ggml_tensor **)(mem + l.off_keys);
    cgraph->visited_hash_set.used = (ggml_bitset_t *)(mem + l.off_used);
    cgraph->overflow = false;

    ggml_hash_set_reset(&cgraph->visited_hash_set);
    if (grads) {
        memset(cgraph->grads,     0, l.hash_size * sizeof(struct ggml_tensor *));
        memset(cgraph->grad_accs, 0, l.hash_size * sizeof(struct ggml_tensor *));
    }
    return cgraph;
}

struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx) {
    return ggml_new_graph_custom(ctx, GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * cgraph0, int i0, int i1) {
    struct ggml_cgraph view;
    memset(&view, 0, sizeof(view));
    if (cgraph0 == NULL) {
        GGML_LOG_ERROR("%s: cgraph is NULL\n", __func__);
        return view;
    }
    if (i0 < 0 || i1 < i0 || i1 > cgraph0->n_nodes) {
        GGML_LOG_ERROR("%s: range [%d, %d) is not inside the graph's %d nodes\n", __func__, i0, i1, cgraph0->n_nodes);
        return view;
    }
    // like the family: the view shares the parent's hash set and use counts (so that a backend
    // can ask how many users a node has) but has size 0, so it can never be expanded
    view.n_nodes          = i1 - i0;
    view.nodes            = cgraph0->nodes + i0;
    view.grads            = cgraph0->grads;
    view.grad_accs        = cgraph0->grad_accs;
    view.use_counts       = cgraph0->use_counts;
    view.visited_hash_set = cgraph0->visited_hash_set;
    view.overflow         = cgraph0->overflow;
    return view;
}

void ggml_graph_cpy(struct ggml_cgraph * src, struct ggml_cgraph * dst) {
    if (src == NULL || dst == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, src == NULL ? "src" : "dst");
        return;
    }
    if (src == dst) {
        return;
    }
    if (dst->size < src->n_nodes || dst->size < src->n_leafs) {
        GGML_LOG_ERROR("%s: dst (size %d) is too small for src (%d nodes, %d leafs); dst is unchanged\n",
                __func__, dst->size, src->n_nodes, src->n_leafs);
        return;
    }
    if (!graph_has_hash(dst) || dst->visited_hash_set.size < (size_t) src->n_nodes + (size_t) src->n_leafs) {
        GGML_LOG_ERROR("%s: dst has no hash set or one too small for %d tensors; dst is unchanged\n",
                __func__, src->n_nodes + src->n_leafs);
        return;
    }
    if (src->grads != NULL && dst->grads == NULL) {
        GGML_LOG_ERROR("%s: src has gradients but dst has no room for them; dst is unchanged\n", __func__);
        return;
    }

    dst->n_nodes  = src->n_nodes;
    dst->n_leafs  = src->n_leafs;
    dst->overflow = src->overflow;
    if (src->n_nodes > 0) {
        memmove(dst->nodes, src->nodes, (size_t) src->n_nodes * sizeof(struct ggml_tensor *));
    }
    if (src->n_leafs > 0) {
        memmove(dst->leafs, src->leafs, (size_t) src->n_leafs * sizeof(struct ggml_tensor *));
    }

    // rebuild the hash set from the tensors (works for sources without one, e.g. views);
    // use counts are recounted from the srcs, which is what expanding the graph counts
    struct ggml_hash_set * hs = &dst->visited_hash_set;
    ggml_hash_set_reset(hs);
    for (int k = 0; k < 2; k++) {
        struct ggml_tensor ** arr = k == 0 ? dst->leafs : dst->nodes;
        const int n = k == 0 ? dst->n_leafs : dst->n_nodes;
        for (int i = 0; i < n; i++) {
            const size_t slot = ggml_hash_insert(hs, arr[i]);
            if (slot != GGML_HASHSET_FULL && slot != GGML_HASHSET_ALREADY_EXISTS) {
                dst->use_counts[slot] = 0;
            }
        }
    }
    for (int k = 0; k < 2; k++) {
        struct ggml_tensor ** arr = k == 0 ? dst->leafs : dst->nodes;
        const int n = k == 0 ? dst->n_leafs : dst->n_nodes;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                if (arr[i]->src[j] == NULL) {
                    continue;
                }
                const size_t slot = graph_slot_of(dst, arr[i]->src[j]);
                if (slot != GGML_HASHSET_FULL) {
                    dst->use_counts[slot]++;
                }
            }
        }
    }

    if (dst->grads != NULL) {
        memset(dst->grads,     0, hs->size * sizeof(struct ggml_tensor *));
        memset(dst->grad_accs, 0, hs->size * sizeof(struct ggml_tensor *));
        if (src->grads != NULL) {
            for (int i = 0; i < src->n_nodes; i++) {
                const size_t is = graph_slot_of(src, src->nodes[i]);
                const size_t id = graph_slot_of(dst, src->nodes[i]);
                if (is != GGML_HASHSET_FULL && id != GGML_HASHSET_FULL) {
                    dst->grads[id]     = src->grads[is];
                    dst->grad_accs[id] = src->grad_accs[is];
                }
            }
        }
    }
}

struct ggml_cgraph * ggml_graph_dup(struct ggml_context * ctx, struct ggml_cgraph * cgraph, bool force_grads) {
    GGML_CHECK_RET(cgraph != NULL, NULL, "cgraph is NULL");
    int size = MAX(cgraph->size, MAX(cgraph->n_nodes, cgraph->n_leafs));
    size = MAX(size, 1);
    struct ggml_cgraph * result = ggml_new_graph_custom(ctx, (size_t) size, cgraph->grads != NULL || force_grads);
    if (result == NULL) {
        GGML_LOG_ERROR("%s: cannot create the copy\n", __func__);
        return NULL;
    }
    ggml_graph_cpy(cgraph, result);
    return result;
}

// ggml_graph_reset is in ggml-backend-tensor-access.c: gradients may live in backend buffers.

void ggml_graph_clear(struct ggml_cgraph * cgraph) {
    if (cgraph == NULL) {
        return;
    }
    cgraph->n_nodes  = 0;
    cgraph->n_leafs  = 0;
    cgraph->overflow = false;
    ggml_hash_set_reset(&cgraph->visited_hash_set);
}

int ggml_graph_size(struct ggml_cgraph * cgraph) {
    GGML_CHECK_RET(cgraph != NULL, 0, "cgraph is NULL");
    return cgraph->size;
}

struct ggml_tensor * ggml_graph_node(struct ggml_cgraph * cgraph, int i) {
    GGML_CHECK_RET(cgraph != NULL, NULL, "cgraph is NULL");
    const int idx = i < 0 ? cgraph->n_nodes + i : i;
    GGML_CHECK_RET(idx >= 0 && idx < cgraph->n_nodes, NULL,
            "index %d is out of range for a graph of %d nodes", i, cgraph->n_nodes);
    return cgraph->nodes[idx];
}

struct ggml_tensor ** ggml_graph_nodes(struct ggml_cgraph * cgraph) {
    GGML_CHECK_RET(cgraph != NULL, NULL, "cgraph is NULL");
    return cgraph->nodes;
}

int ggml_graph_n_nodes(struct ggml_cgraph * cgraph) {
    GGML_CHECK_RET(cgraph != NULL, 0, "cgraph is NULL");
    return cgraph->n_nodes;
}

void ggml_graph_add_node(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    if (cgraph == NULL || tensor == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, cgraph == NULL ? "cgraph" : "tensor");
        return;
    }
    if (cgraph->n_nodes >= cgraph->size) {
        GGML_LOG_ERROR("%s: the graph is full (size %d); tensor '%s' is not added\n", __func__, cgraph->size, tensor->name);
        return;
    }
    cgraph->nodes[cgraph->n_nodes++] = tensor;
}

struct ggml_tensor * ggml_graph_get_tensor(const struct ggml_cgraph * cgraph, const char * name) {
    if (cgraph == NULL || name == NULL) {
        return NULL;
    }
    for (int i = 0; i < cgraph->n_leafs; i++) {
        if (strcmp(cgraph->leafs[i]->name, name) == 0) {
            return cgraph->leafs[i];
        }
    }
    for (int i = 0; i < cgraph->n_nodes; i++) {
        if (strcmp(cgraph->nodes[i]->name, name) == 0) {
            return cgraph->nodes[i];
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_graph_get_grad(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    if (cgraph == NULL || node == NULL || cgraph->grads == NULL) {
        return NULL;
    }
    const size_t slot = graph_slot_of(cgraph, node);
    return slot == GGML_HASHSET_FULL ? NULL : cgraph->grads[slot];
}

struct ggml_tensor * ggml_graph_get_grad_acc(const struct ggml_cgraph * cgraph, const struct ggml_tensor * node) {
    if (cgraph == NULL || node == NULL || cgraph->grad_accs == NULL) {
        return NULL;
    }
    const size_t slot = graph_slot_of(cgraph, node);
    return slot == GGML_HASHSET_FULL ? NULL : cgraph->grad_accs[slot];
}

//
// building: iterative depth-first post-order from the output tensor through src[]
//

// tensors without an op are leafs (weights, inputs), unless they are trainable parameters
static inline bool graph_is_leaf(const struct ggml_tensor * t) {
    return t->op == GGML_OP_NONE && !(t->flags & GGML_TENSOR_FLAG_PARAM);
}

static inline bool graph_has_srcs(const struct ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (t->src[i] != NULL) {
            return true;
        }
    }
    return false;
}

// writes "<prefix><n>" into the unnamed tensor's name (cheaper than snprintf on the hot path)
static void graph_auto_name(struct ggml_tensor * t, const char * prefix, int n) {
    char digits[16];
    int nd = 0;
    unsigned int v = (unsigned int) n;
    do {
        digits[nd++] = (char) ('0' + v % 10);
        v /= 10;
    } while (v != 0);
    size_t k = 0;
    for (; prefix[k] != '\0'; k++) {
        t->name[k] = prefix[k];
    }
    while (nd > 0) {
        t->name[k++] = digits[--nd];
    }
    t->name[k] = '\0';
}

struct graph_frame {
    struct ggml_tensor * t;
    int next_src; // next src[] index to look at
};

// frames kept on the C stack; deeper graphs move the stack to the heap
#define GRAPH_LOCAL_FRAMES 256

struct graph_builder {
    struct ggml_cgraph * g;
    int pending_nodes; // discovered, not yet appended (slots reserved in nodes[])
    int pending_leafs; // same for leafs[]
    bool compute;      // mark the visited nodes GGML_TENSOR_FLAG_COMPUTE (ggml_build_forward_order does not)
};

static void graph_overflow(struct graph_builder * b, const struct ggml_tensor * t, const char * why) {
    struct ggml_cgraph * g = b->g;
    if (!g->overflow) {
        GGML_LOG_ERROR("ggml_build_forward_expand: %s while adding tensor '%s' (op %s); graph size %d, %d nodes, %d leafs; "
                "the graph is incomplete (create it with ggml_new_graph_custom and a larger size)\n",
                why, t->name, ggml_op_name(t->op), g->size, g->n_nodes, g->n_leafs);
    }
    g->overflow = true;
}

// reserves a slot for t in nodes[] or leafs[]; false (graph flagged) when it is full
static inline bool graph_reserve(struct graph_builder * b, const struct ggml_tensor * t) {
    if (graph_is_leaf(t)) {
        if (b->g->n_leafs + b->pending_leafs >= b->g->size) {
            graph_overflow(b, t, "too many leafs");
            return false;
        }
        b->pending_leafs++;
    } else {
        if (b->g->n_nodes + b->pending_nodes >= b->g->size) {
            graph_overflow(b, t, "too many nodes");
            return false;
        }
        b->pending_nodes++;
    }
    return true;
}

// appends a tensor whose srcs are all in the graph; its slot was reserved
static inline void graph_append(struct graph_builder * b, struct ggml_tensor * t) {
    struct ggml_cgraph * g = b->g;
    if (graph_is_leaf(t)) {
        b->pending_leafs--;
        if (t->name[0] == '\0') {
            graph_auto_name(t, "leaf_", g->n_leafs);
        }
        g->leafs[g->n_leafs++] = t;
    } else {
        b->pending_nodes--;
        if (t->name[0] == '\0') {
            graph_auto_name(t, "node_", g->n_nodes);
        }
        g->nodes[g->n_nodes++] = t;
    }
}

// Marks t visited. Returns 1 when t is new, 0 when it was visited before, -1 when the hash
// set is full (graph flagged). *slot receives its hash slot.
// A node added by ggml_build_forward_order and reached later from a computed node: it and every
// uncomputed node it depends on become computed (each is pushed once, so the stack needs at most
// as many entries as the graph has nodes).
static bool graph_mark_compute_srcs(struct graph_builder * b, struct ggml_tensor * t) {
    struct ggml_tensor ** stack = ggml_malloc(((size_t) b->g->n_nodes + 1) * sizeof(*stack));
    if (stack == NULL) {
        graph_overflow(b, t, "out of memory while marking nodes to compute");
        return false;
    }
    size_t n = 0;
    stack[n++] = t;
    while (n > 0) {
        struct ggml_tensor * x = stack[--n];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * s = x->src[j];
            if (s != NULL && s->op != GGML_OP_NONE && (s->flags & GGML_TENSOR_FLAG_COMPUTE) == 0 &&
                n < (size_t) b->g->n_nodes + 1) {
                s->flags |= GGML_TENSOR_FLAG_COMPUTE;
                stack[n++] = s;
            }
        }
    }
    ggml_free_mem(stack);
    return true;
}

static inline int graph_visit(struct graph_builder * b, struct ggml_tensor * t, size_t * slot) {
    struct ggml_hash_set * hs = &b->g->visited_hash_set;
    const bool was_computed = (t->flags & GGML_TENSOR_FLAG_COMPUTE) != 0;
    if (t->op != GGML_OP_NONE && b->compute) {
        t->flags |= GGML_TENSOR_FLAG_COMPUTE;
    }
    const size_t i = ggml_hash_find(hs, t);
    if (i == GGML_HASHSET_FULL) {
        graph_overflow(b, t, "the hash set is full");
        return -1;
    }
    *slot = i;
    if (ggml_bitset_get(hs->used, i)) {
        if (b->compute && !was_computed && t->op != GGML_OP_NONE && !graph_mark_compute_srcs(b, t)) {
            return -1;
        }
        return 0;
    }
    ggml_bitset_set(hs->used, i);
    hs->keys[i] = t;
    b->g->use_counts[i] = 0;
    return 1;
}

static void graph_build_forward(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor, bool compute);

void ggml_build_forward_expand(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    graph_build_forward(cgraph, tensor, true);
}

void ggml_build_forward_order(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor) {
    graph_build_forward(cgraph, tensor, false);
}

struct ggml_tensor * ggml_build_forward_select(struct ggml_cgraph * cgraph, struct ggml_tensor ** tensors,
                                               int n_tensors, int idx) {
    if (tensors == NULL || n_tensors <= 0 || idx < 0 || idx >= n_tensors) {
        GGML_LOG_ERROR("%s: index %d is not one of the %d tensors given\n", __func__, idx, tensors ? n_tensors : 0);
        return NULL;
    }
    for (int i = 0; i < n_tensors; i++) {
        graph_build_forward(cgraph, tensors[i], i == idx);
    }
    return tensors[idx];
}

// adds tensor and its parents; with compute, marks them GGML_TENSOR_FLAG_COMPUTE (also the nodes
// added earlier without it that they depend on)
static void graph_build_forward(struct ggml_cgraph * cgraph, struct ggml_tensor * tensor, bool compute) {
    if (cgraph == NULL || tensor == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, cgraph == NULL ? "cgraph" : "tensor");
        return;
    }
    if (cgraph->size == 0 || !graph_has_hash(cgraph)) {
        GGML_LOG_ERROR("%s: the graph has no room of its own (a graph view cannot be expanded)\n", __func__);
        return;
    }
    if (cgraph->overflow) {
        // reported when it happened; the graph stays incomplete until ggml_graph_clear
        GGML_LOG_DEBUG("%s: graph already overflowed; tensor '%s' is not added\n", __func__, tensor->name);
        return;
    }

    struct graph_builder b = { cgraph, 0, 0, compute };
    size_t slot;
    const int r = graph_visit(&b, tensor, &slot);
    if (r <= 0) {
        return; // already in the graph, or the hash set is full
    }
    if (!graph_reserve(&b, tensor)) {
        return;
    }
    if (!graph_has_srcs(tensor)) {
        graph_append(&b, tensor);
        return;
    }

    struct graph_frame local[GRAPH_LOCAL_FRAMES];
    struct graph_frame * frames = local;
    size_t cap = GRAPH_LOCAL_FRAMES;
    size_t depth = 0;
    frames[depth++] = (struct graph_frame) { tensor, 0 };

    while (depth > 0) {
        struct graph_frame * f = &frames[depth - 1];
        struct ggml_tensor * t = f->t;
        bool descended = false;

        while (f->next_src < GGML_MAX_SRC) {
            struct ggml_tensor * s = t->src[f->next_src++];
            if (s == NULL) {
                continue;
            }
            const int rs = graph_visit(&b, s, &slot);
            if (rs < 0) {
                goto done;
            }
            if (rs == 0) {
                cgraph->use_counts[slot]++;
                continue;
            }
            cgraph->use_counts[slot] = 1;
            if (!graph_reserve(&b, s)) {
                goto done;
            }
            if (!graph_has_srcs(s)) {
                graph_append(&b, s); // a leaf (or a source-less node): done at once
                continue;
            }
            if (depth == cap) {
                // the depth is bounded by the reserved slots, so this stays below 2*size frames
                const size_t new_cap = cap * 2;
                struct graph_frame * nf = frames == local
                    ? ggml_malloc(new_cap * sizeof(struct graph_frame))
                    : ggml_realloc(frames, new_cap * sizeof(struct graph_frame));
                if (nf == NULL) {
                    graph_overflow(&b, s, "out of memory for the traversal stack");
                    goto done;
                }
                if (frames == local) {
                    memcpy(nf, local, sizeof(local));
                }
                frames = nf;
                cap = new_cap;
            }
            frames[depth++] = (struct graph_frame) { s, 0 };
            descended = true;
            break;
        }

        if (!descended) {
            graph_append(&b, t);
            depth--;
        }
    }

done:
    if (frames != local) {
        ggml_free_mem(frames);
    }
}

//
// printing
//

void ggml_graph_print(const struct ggml_cgraph * cgraph) {
    if (cgraph == NULL) {
        GGML_LOG_ERROR("%s: cgraph is NULL\n", __func__);
        return;
    }
    GGML_LOG_INFO("=== graph: %d nodes, %d leafs, size %d%s ===\n", cgraph->n_nodes, cgraph->n_leafs, cgraph->size,
            cgraph->overflow ? " (OVERFLOWED: incomplete)" : "");
    for (int i = 0; i < cgraph->n_nodes; i++) {
        const struct ggml_tensor * t = cgraph->nodes[i];
        GGML_LOG_INFO(" node %4d: [%6" PRId64 ", %6" PRId64 ", %6" PRId64 ", %6" PRId64 "] %-6s %-16s %s%s\n",
                i, t->ne[0], t->ne[1], t->ne[2], t->ne[3], ggml_type_name(t->type), ggml_op_desc(t), t->name,
                (t->flags & GGML_TENSOR_FLAG_PARAM) ? " (param)" : "");
    }
    for (int i = 0; i < cgraph->n_leafs; i++) {
        const struct ggml_tensor * t = cgraph->leafs[i];
        GGML_LOG_INFO(" leaf %4d: [%6" PRId64 ", %6" PRId64 ", %6" PRId64 ", %6" PRId64 "] %-6s %-16s %s\n",
                i, t->ne[0], t->ne[1], t->ne[2], t->ne[3], ggml_type_name(t->type), ggml_op_name(t->op), t->name);
    }
    GGML_LOG_INFO("=== end of graph ===\n");
}

// writes s as the inside of a double-quoted Graphviz string
static void dot_escaped(FILE * fp, const char * s) {
    for (; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', fp);
        }
        if (*s == '\n') {
            fputs("\\n", fp);
            continue;
        }
        fputc(*s, fp);
    }
}

static bool graph_contains(const struct ggml_cgraph * g, const struct ggml_tensor * t) {
    if (g == NULL) {
        return false;
    }
    if (graph_has_hash(g)) {
        return graph_slot_of(g, t) != GGML_HASHSET_FULL;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i] == t) {
            return true;
        }
    }
    return false;
}

static void dot_tensor(FILE * fp, const struct ggml_tensor * t, const char * color, bool leaf) {
    fprintf(fp, "  \"%p\" [shape = box; style = \"filled,rounded\"; fillcolor = \"%s\"; label = \"", (const void *) t, color);
    dot_escaped(fp, t->name[0] != '\0' ? t->name : "(unnamed)");
    fprintf(fp, "\\n%s\\n[%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "] %s",
            leaf ? "leaf" : ggml_op_desc(t), t->ne[0], t->ne[1], t->ne[2], t->ne[3], ggml_type_name(t->type));
    if (leaf && t->type == GGML_TYPE_F32 && ggml_nelements(t) == 1 && t->buffer == NULL && t->data != NULL) {
        fprintf(fp, "\\nvalue %g", (double) *(const float *) t->data);
    }
    fputs("\"];\n", fp);
}

void ggml_graph_dump_dot(const struct ggml_cgraph * gb, const struct ggml_cgraph * gf, const char * filename) {
    // the graph to draw is gb; when gb is NULL, gf. With both, nodes of gb also in gf are the
    // forward part and drawn in another color.
    const struct ggml_cgraph * g = gb != NULL ? gb : gf;
    const struct ggml_cgraph * fwd = gb != NULL ? gf : NULL;
    if (g == NULL || filename == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", __func__, g == NULL ? "the graph" : "filename");
        return;
    }
    FILE * fp = ggml_fopen(filename, "w");
    if (fp == NULL) {
        GGML_LOG_ERROR("%s: cannot open '%s' for writing\n", __func__, filename);
        return;
    }

    fputs("digraph ggml_graph {\n  newrank = true;\n  rankdir = TB;\n", fp);
    for (int i = 0; i < g->n_nodes; i++) {
        const struct ggml_tensor * t = g->nodes[i];
        const char * color = (t->flags & GGML_TENSOR_FLAG_PARAM)  ? "yellow" :
                             (t->flags & GGML_TENSOR_FLAG_OUTPUT) ? "palegreen" :
                             (fwd != NULL && graph_contains(fwd, t)) ? "lightblue" : "white";
        dot_tensor(fp, t, color, false);
    }
    for (int i = 0; i < g->n_leafs; i++) {
        const struct ggml_tensor * t = g->leafs[i];
        dot_tensor(fp, t, (t->flags & GGML_TENSOR_FLAG_INPUT) ? "orange" : "pink", true);
    }
    for (int k = 0; k < 2; k++) {
        struct ggml_tensor * const * arr = k == 0 ? g->nodes : g->leafs;
        const int n = k == 0 ? g->n_nodes : g->n_leafs;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                if (arr[i]->src[j] != NULL) {
                    fprintf(fp, "  \"%p\" -> \"%p\" [label = \"src%d\"];\n", (const void *) arr[i]->src[j], (const void *) arr[i], j);
                }
            }
        }
    }
    fputs("}\n", fp);

    if (fclose(fp) != 0) {
        GGML_LOG_ERROR("%s: error while writing '%s'\n", __func__, filename);
        return;
    }
    GGML_LOG_INFO("%s: wrote %s (dot -Tpng %s -o %s.png)\n", __func__, filename, filename, filename);
}
