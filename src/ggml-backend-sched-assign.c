// The scheduler's planning: which backend runs each node, where the graph is cut into splits,
// which tensors are copied between backends, and the graph handed to the graph allocator.
//
// Assignment runs in passes over the user's graph (see docs/scheduler.md):
//   1. tensors that already have memory stay with a backend that can use it; INPUT tensors go to
//      the last backend (the CPU); ops with a source in a WEIGHTS buffer follow that source
//      (or a higher-priority backend that asks for them through offload_op);
//   2. the remaining nodes follow their neighbours: first only non-CPU backends, down and up the
//      graph, then any backend;
//   3. a node still unassigned goes to the backend that can use most of its sources; an assigned
//      node moves to a higher-priority backend with the same buffer type when it can;
//   4. views go with the tensor they view, sources with their consumer, and anything left to the
//      first backend that supports it;
//   5. consecutive nodes on one backend form a split; a source that lives where the split's
//      backend cannot read it is copied into the split's backend, and the node reads the copy.
// Assignments made with ggml_backend_sched_set_tensor_backend are never changed.

#include "ggml-backend-live.h"
#include "ggml-backend-sched-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//
// the per-tensor tables
//

int ggml_sched_backend_index(const struct ggml_backend_sched * sched, ggml_backend_t backend) {
    for (int i = 0; i < sched->n_backends; i++) {
        if (sched->backends[i] == backend) {
            return i;
        }
    }
    return -1;
}

size_t ggml_sched_slot(struct ggml_backend_sched * sched, const struct ggml_tensor * t, bool insert) {
    const size_t i = ggml_hash_find(&sched->hash, t);
    if (i == GGML_HASHSET_FULL) {
        if (insert) {
            GGML_LOG_ERROR("ggml_backend_sched: the tensor table (%zu entries) is full; create the scheduler with a larger graph_size\n",
                    sched->hash.size);
        }
        return GGML_HASHSET_FULL;
    }
    if (!ggml_bitset_get(sched->hash.used, i)) {
        if (!insert) {
            return GGML_HASHSET_FULL;
        }
        ggml_bitset_set(sched->hash.used, i);
        sched->hash.keys[i]     = (struct ggml_tensor *) t;
        sched->tensor_ids[i]    = -1;
        sched->tensor_cause[i]  = SCHED_CAUSE_NONE;
        sched->copy_head[i]     = -1;
        sched->used_slots[sched->n_used_slots++] = i;
    }
    return i;
}

int ggml_sched_tensor_id(struct ggml_backend_sched * sched, const struct ggml_tensor * t) {
    if (t == NULL) {
        return -1;
    }
    const size_t i = ggml_sched_slot(sched, t, false);
    return i == GGML_HASHSET_FULL ? -1 : sched->tensor_ids[i];
}

static void set_id(struct ggml_backend_sched * sched, size_t slot, int id, enum sched_cause cause) {
    sched->tensor_ids[slot]   = id;
    sched->tensor_cause[slot] = (uint8_t) cause;
}

void ggml_sched_clear_tables(struct ggml_backend_sched * sched, bool keep_user) {
    // user assignments are few: note them, clear everything, put them back
    enum { MAX_KEEP = 256 };
    struct ggml_tensor * keep_t[MAX_KEEP];
    int keep_id[MAX_KEEP];
    size_t n_keep = 0;
    bool too_many = false;
    if (keep_user) {
        for (size_t k = 0; k < sched->n_used_slots && !too_many; k++) {
            const size_t i = sched->used_slots[k];
            if (sched->tensor_cause[i] != SCHED_CAUSE_USER) {
                continue;
            }
            if (n_keep == MAX_KEEP) {
                too_many = true;
                break;
            }
            keep_t[n_keep]  = sched->hash.keys[i];
            keep_id[n_keep] = sched->tensor_ids[i];
            n_keep++;
        }
    }
    sched->n_copy_recs = 0;
    if (too_many) {
        // keep the table as it is and only forget what the passes did
        for (size_t k = 0; k < sched->n_used_slots; k++) {
            const size_t i = sched->used_slots[k];
            sched->copy_head[i] = -1;
            if (sched->tensor_cause[i] != SCHED_CAUSE_USER) {
                set_id(sched, i, -1, SCHED_CAUSE_NONE);
            }
        }
        return;
    }
    ggml_hash_set_reset(&sched->hash);
    sched->n_used_slots = 0;
    for (size_t k = 0; k < n_keep; k++) {
        const size_t i = ggml_sched_slot(sched, keep_t[k], true);
        set_id(sched, i, keep_id[k], SCHED_CAUSE_USER);
    }
}

//
// questions about backends and buffers
//

// the buffer type holding t's memory; NULL when t has none yet. Memory that a context allocated
// (data without a buffer) is host memory, i.e. the CPU buffer type.
static ggml_backend_buffer_type_t tensor_buft(const struct ggml_tensor * t) {
    const struct ggml_tensor * root = t->view_src != NULL ? t->view_src : t;
    if (root->buffer != NULL) {
        return root->buffer->buft;
    }
    if (t->buffer != NULL) {
        return t->buffer->buft;
    }
    if (root->data != NULL || t->data != NULL) {
        return ggml_backend_cpu_buffer_type();
    }
    return NULL;
}

static ggml_backend_buffer_t tensor_buffer(const struct ggml_tensor * t) {
    return ggml_tensor_data_buffer(t);
}

static bool backend_supports_op(const struct ggml_backend_sched * sched, int b, const struct ggml_tensor * op) {
    return op->op == GGML_OP_NONE || ggml_backend_supports_op(sched->backends[b], op);
}

// the highest-priority backend that can use buft and run op, -1 when none can
static int backend_for_buft(const struct ggml_backend_sched * sched, ggml_backend_buffer_type_t buft, const struct ggml_tensor * op) {
    for (int b = 0; b < sched->n_backends; b++) {
        if (ggml_backend_supports_buft(sched->backends[b], buft) && backend_supports_op(sched, b, op)) {
            return b;
        }
    }
    return -1;
}

// whether backend b can read t where it is (or will be: the compute buffer of its backend)
static bool buffer_supported(struct ggml_backend_sched * sched, const struct ggml_tensor * t, int b) {
    ggml_backend_buffer_type_t buft = tensor_buft(t);
    if (buft == NULL) {
        int id = ggml_sched_tensor_id(sched, t);
        if (id == -1 && t->view_src != NULL) {
            id = ggml_sched_tensor_id(sched, t->view_src);
        }
        if (id != -1) {
            buft = sched->bufts[id];
        }
    }
    return buft != NULL && ggml_backend_supports_buft(sched->backends[b], buft);
}

static void describe_tensor(struct ggml_msg * m, const char * prefix, const struct ggml_tensor * t) {
    ggml_msg_append(m, "%s'%s' (%s, %s [%lld, %lld, %lld, %lld])", prefix, t->name, ggml_op_desc(t), ggml_type_name(t->type),
            (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3]);
}

//
// pass 1: tensors with memory, inputs, users of weights
//

// the backend pass 1 gives t (-1: none); false (logged) when t has memory no backend can use for its op
static bool pass1_backend(struct ggml_backend_sched * sched, const struct ggml_tensor * t, int * id, enum sched_cause * cause) {
    *id = -1;
    ggml_backend_buffer_type_t buft = tensor_buft(t);
    if (buft != NULL) {
        *id    = backend_for_buft(sched, buft, t);
        *cause = SCHED_CAUSE_BUFFER;
        if (*id == -1) {
            struct ggml_msg m;
            ggml_msg_init(&m);
            describe_tensor(&m, "ggml_backend_sched: tensor ", t);
            ggml_error_report(GGML_ERROR_UNSUPPORTED,
                    "%s already has memory in a %s buffer, and no backend of the scheduler can both use that buffer and run the op\n",
                    m.text, ggml_backend_buft_name(buft));
            return false;
        }
        return true;
    }
    if (t->flags & GGML_TENSOR_FLAG_INPUT) {
        *id    = sched->n_backends - 1;
        *cause = SCHED_CAUSE_INPUT;
        return true;
    }
    // the small side tensors of these ops (rope frequencies, masks) should not pick the backend
    if (t->op == GGML_OP_ROPE || t->op == GGML_OP_FLASH_ATTN_EXT) {
        return true;
    }
    for (int j = 0; j < GGML_MAX_SRC; j++) {
        const struct ggml_tensor * src = t->src[j];
        if (src == NULL) {
            continue;
        }
        ggml_backend_buffer_t buf = tensor_buffer(src);
        if (buf == NULL || buf->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
            continue;
        }
        // the first weight decides
        const int b = backend_for_buft(sched, buf->buft, t);
        if (sched->op_offload && b == sched->n_backends - 1 && ggml_backend_buffer_is_host(buf)) {
            for (int o = 0; o < b; o++) {
                if (backend_supports_op(sched, o, t) && ggml_backend_offload_op(sched->backends[o], t)) {
                    *id    = o;
                    *cause = SCHED_CAUSE_OFFLOAD;
                    return true;
                }
            }
        }
        *id    = b;
        *cause = SCHED_CAUSE_WEIGHTS;
        return true;
    }
    return true;
}

static bool pass1(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    for (int k = 0; k < graph->n_leafs + graph->n_nodes; k++) {
        struct ggml_tensor * t = k < graph->n_leafs ? graph->leafs[k] : graph->nodes[k - graph->n_leafs];
        const size_t slot = ggml_sched_slot(sched, t, true);
        if (slot == GGML_HASHSET_FULL) {
            return false;
        }
        if (sched->tensor_ids[slot] != -1) {
            continue; // placed by the user (or seen before: a leaf that is also a node)
        }
        int id;
        enum sched_cause cause = SCHED_CAUSE_NONE;
        if (!pass1_backend(sched, t, &id, &cause)) {
            return false;
        }
        if (id != -1) {
            set_id(sched, slot, id, cause);
        }
    }
    return true;
}

//
// pass 2: neighbours
//

// Walks the non-view nodes carrying the backend of the last assigned one and gives it to the
// unassigned nodes it supports. cpu_breaks: a node on the last backend (the CPU) stops the carry,
// so that only other backends spread.
static void pass2_sweep(struct ggml_backend_sched * sched, struct ggml_cgraph * graph, bool forward, bool cpu_breaks, enum sched_cause cause) {
    int cur = -1;
    for (int k = 0; k < graph->n_nodes; k++) {
        struct ggml_tensor * node = graph->nodes[forward ? k : graph->n_nodes - 1 - k];
        if (ggml_op_is_view(node->op)) {
            continue;
        }
        const size_t slot = ggml_sched_slot(sched, node, false);
        const int id = sched->tensor_ids[slot];
        if (id != -1) {
            cur = cpu_breaks && id == sched->n_backends - 1 ? -1 : id;
        } else if (cur != -1 && backend_supports_op(sched, cur, node)) {
            set_id(sched, slot, cur, cause);
        }
    }
}

//
// pass 3: best fit for the rest, upgrades to equivalent higher-priority backends
//

static void pass3(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (ggml_op_is_view(node->op)) {
            continue;
        }
        const size_t slot = ggml_sched_slot(sched, node, false);
        const int id = sched->tensor_ids[slot];
        if (id == -1) {
            int best = -1;
            int best_n = -1;
            for (int b = 0; b < sched->n_backends; b++) {
                if (!backend_supports_op(sched, b, node)) {
                    continue;
                }
                int n = 0;
                for (int j = 0; j < GGML_MAX_SRC; j++) {
                    if (node->src[j] != NULL && buffer_supported(sched, node->src[j], b)) {
                        n++;
                    }
                }
                if (n > best_n) {
                    best_n = n;
                    best   = b;
                }
            }
            if (best != -1) {
                set_id(sched, slot, best, SCHED_CAUSE_BEST_FIT);
            }
        } else if (sched->tensor_cause[slot] != SCHED_CAUSE_USER) {
            for (int b = 0; b < id; b++) {
                if (sched->bufts[b] != sched->bufts[id] || !backend_supports_op(sched, b, node)) {
                    continue;
                }
                bool all = true;
                for (int j = 0; j < GGML_MAX_SRC && all; j++) {
                    all = node->src[j] == NULL || buffer_supported(sched, node->src[j], b);
                }
                if (all) {
                    set_id(sched, slot, b, SCHED_CAUSE_UPGRADE);
                    break;
                }
            }
        }
    }
}

//
// pass 4: views, sources and leftovers; then every assignment is checked
//

static bool pass4(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        const size_t slot = ggml_sched_slot(sched, node, false);
        if (sched->tensor_ids[slot] == -1 && node->view_src != NULL) {
            const int v = ggml_sched_tensor_id(sched, node->view_src);
            if (v != -1) {
                set_id(sched, slot, v, SCHED_CAUSE_VIEW_SRC);
            }
        }
        for (int b = 0; b < sched->n_backends && sched->tensor_ids[slot] == -1; b++) {
            if (backend_supports_op(sched, b, node)) {
                set_id(sched, slot, b, SCHED_CAUSE_FIRST);
            }
        }
        const int id = sched->tensor_ids[slot];
        if (id == -1) {
            continue; // reported by check_assignments
        }
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            const size_t s = ggml_sched_slot(sched, src, true);
            if (s == GGML_HASHSET_FULL) {
                return false;
            }
            if (sched->tensor_ids[s] != -1) {
                continue;
            }
            if (src->view_src != NULL) {
                // a view lives where the tensor it views lives
                const size_t vs = ggml_sched_slot(sched, src->view_src, true);
                if (vs == GGML_HASHSET_FULL) {
                    return false;
                }
                if (sched->tensor_ids[vs] == -1) {
                    set_id(sched, vs, id, SCHED_CAUSE_CONSUMER);
                }
                set_id(sched, s, sched->tensor_ids[vs], SCHED_CAUSE_VIEW_SRC);
            } else {
                set_id(sched, s, id, SCHED_CAUSE_CONSUMER);
            }
        }
    }
    // leafs no node uses
    for (int i = 0; i < graph->n_leafs; i++) {
        const size_t slot = ggml_sched_slot(sched, graph->leafs[i], false);
        if (sched->tensor_ids[slot] == -1) {
            const int v = graph->leafs[i]->view_src != NULL ? ggml_sched_tensor_id(sched, graph->leafs[i]->view_src) : -1;
            set_id(sched, slot, v != -1 ? v : sched->n_backends - 1, SCHED_CAUSE_LEAF);
        }
    }
    return true;
}

// Every node must be on a backend that runs its op, and every tensor with memory on a backend
// that can use that memory. false (logged) otherwise.
static bool check_assignments(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    for (int k = 0; k < graph->n_leafs + graph->n_nodes; k++) {
        const bool is_leaf = k < graph->n_leafs;
        struct ggml_tensor * t = is_leaf ? graph->leafs[k] : graph->nodes[k - graph->n_leafs];
        const size_t slot = ggml_sched_slot(sched, t, false);
        const int id = sched->tensor_ids[slot];
        const bool by_user = sched->tensor_cause[slot] == SCHED_CAUSE_USER;
        if (id == -1) {
            struct ggml_msg m;
            ggml_msg_init(&m);
            ggml_msg_append(&m, "ggml_backend_sched: no backend of the scheduler supports node %d ", k - graph->n_leafs);
            describe_tensor(&m, "", t);
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                if (t->src[j] != NULL) {
                    describe_tensor(&m, j == 0 ? " with sources " : ", ", t->src[j]);
                }
            }
            ggml_msg_append(&m, "; backends:");
            for (int b = 0; b < sched->n_backends; b++) {
                ggml_msg_append(&m, " %s", ggml_backend_name(sched->backends[b]));
            }
            ggml_error_report(GGML_ERROR_UNSUPPORTED, "%s\n", m.text);
            return false;
        }
        if (!is_leaf && !ggml_op_is_view(t->op) && !backend_supports_op(sched, id, t)) {
            struct ggml_msg m;
            ggml_msg_init(&m);
            describe_tensor(&m, "ggml_backend_sched: node ", t);
            ggml_error_report(GGML_ERROR_UNSUPPORTED, "%s is placed on backend %s%s, which does not support it\n", m.text,
                    ggml_backend_name(sched->backends[id]), by_user ? " by ggml_backend_sched_set_tensor_backend" : "");
            return false;
        }
        ggml_backend_buffer_type_t buft = tensor_buft(t);
        if (buft != NULL && !(ggml_op_is_view(t->op) && !by_user) && !ggml_backend_supports_buft(sched->backends[id], buft)) {
            struct ggml_msg m;
            ggml_msg_init(&m);
            describe_tensor(&m, "ggml_backend_sched: tensor ", t);
            ggml_error_report(GGML_ERROR_UNSUPPORTED, "%s has memory in a %s buffer but is placed on backend %s%s, which cannot use it\n",
                    m.text, ggml_backend_buft_name(buft), ggml_backend_name(sched->backends[id]),
                    by_user ? " by ggml_backend_sched_set_tensor_backend" : "");
            return false;
        }
    }
    return true;
}

//
// copies
//

struct ggml_tensor * ggml_sched_get_copy(struct ggml_backend_sched * sched, const struct ggml_tensor * t, int backend_id, int c) {
    const size_t slot = ggml_sched_slot(sched, t, false);
    if (slot == GGML_HASHSET_FULL) {
        return NULL;
    }
    for (int r = sched->copy_head[slot]; r != -1; r = sched->copy_recs[r].next) {
        if (sched->copy_recs[r].backend_id == backend_id) {
            return sched->copy_recs[r].t[c];
        }
    }
    return NULL;
}

// a tensor of src's layout in the scheduler's context, named "<backend>#<src>#<c>"
static struct ggml_tensor * dup_layout(struct ggml_backend_sched * sched, const struct ggml_tensor * src, int backend_id, int c) {
    struct ggml_tensor * t = ggml_new_tensor(sched->ctx, src->type, GGML_MAX_DIMS, src->ne);
    if (t == NULL) {
        GGML_LOG_ERROR("ggml_backend_sched: cannot create a copy of tensor '%s' (internal error: copy context too small)\n", src->name);
        return NULL;
    }
    memcpy(t->nb, src->nb, sizeof(t->nb));
    ggml_format_name(t, "%s#%s#%d", ggml_backend_name(sched->backends[backend_id]), src->name, c);
    return t;
}

// Creates the n_copies copies of src (in hash slot `slot`) on backend_id; copy `self_copy` is src
// itself (-1: none). Returns the record index, -1 (logged) on failure.
static int add_copies(struct ggml_backend_sched * sched, size_t slot, struct ggml_tensor * src, int backend_id, int self_copy) {
    if (sched->n_copy_recs == sched->copy_recs_cap) {
        size_t cap = (size_t) sched->copy_recs_cap;
        struct sched_copy_rec * recs = ggml_grow_array(sched->copy_recs, &cap, (size_t) sched->n_copy_recs + 1, sizeof(*recs), 64);
        if (recs == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_sched: out of memory for the copy records\n");
            return -1;
        }
        sched->copy_recs     = recs;
        sched->copy_recs_cap = (int) cap;
    }
    const int r = sched->n_copy_recs;
    struct sched_copy_rec * rec = &sched->copy_recs[r];
    memset(rec, 0, sizeof(*rec));
    rec->backend_id = backend_id;
    for (int c = 0; c < sched->n_copies; c++) {
        if (c == self_copy) {
            rec->t[c] = src;
        } else {
            rec->t[c] = dup_layout(sched, src, backend_id, c);
            if (rec->t[c] == NULL) {
                return -1;
            }
        }
        if (sched->n_copies > 1) {
            // fixed slots: the allocator must neither overlap nor reuse them
            rec->t[c]->flags |= GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT;
        }
    }
    rec->next = sched->copy_head[slot];
    sched->copy_head[slot] = r;
    sched->n_copy_recs++;
    return r;
}

static bool add_origin(struct ggml_backend_sched * sched, struct ggml_tensor * copy, struct ggml_tensor * orig) {
    if (sched->n_origins == sched->origins_cap) {
        size_t cap = sched->origins_cap;
        struct sched_origin * o = ggml_grow_array(sched->origins, &cap, sched->n_origins + 1, sizeof(*o), 64);
        if (o == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_sched: out of memory\n");
            return false;
        }
        sched->origins     = o;
        sched->origins_cap = cap;
    }
    sched->origins[sched->n_origins].copy = copy;
    sched->origins[sched->n_origins].orig = orig;
    sched->n_origins++;
    return true;
}

static int cmp_origin(const void * a, const void * b) {
    const uintptr_t x = (uintptr_t) ((const struct sched_origin *) a)->copy;
    const uintptr_t y = (uintptr_t) ((const struct sched_origin *) b)->copy;
    return x < y ? -1 : x > y;
}

static bool in_ctx_mem(const struct ggml_backend_sched * sched, const void * p) {
    const uintptr_t a = (uintptr_t) p;
    const uintptr_t lo = (uintptr_t) sched->ctx_mem;
    return sched->ctx_mem != NULL && a >= lo && a < lo + sched->ctx_mem_size;
}

// A graph split before (by reserve, a failed alloc, or an earlier alloc before a reset) reads
// copies the scheduler made; point its nodes back at the original sources. false (logged) when a
// node reads a copy the scheduler no longer knows (the graph was split before another graph was).
static bool undo_rewrites(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    if (sched->n_origins > 1) {
        qsort(sched->origins, sched->n_origins, sizeof(struct sched_origin), cmp_origin);
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL || !in_ctx_mem(sched, src)) {
                continue;
            }
            const struct sched_origin key = { src, NULL };
            const struct sched_origin * o = sched->n_origins > 0 ?
                bsearch(&key, sched->origins, sched->n_origins, sizeof(key), cmp_origin) : NULL;
            if (o == NULL) {
                GGML_LOG_ERROR("ggml_backend_sched: source %d of node '%s' is a copy made for another graph; "
                        "rebuild this graph (a graph is only valid until the scheduler splits another one)\n", j, node->name);
                return false;
            }
            node->src[j] = o->orig;
        }
    }
    sched->n_origins = 0;
    return true;
}

//
// pass 5: splits and copies
//

static struct sched_split * new_split(struct ggml_backend_sched * sched, int backend_id, int i_start) {
    if (sched->n_splits == sched->splits_cap) {
        size_t cap = (size_t) sched->splits_cap;
        struct sched_split * s = ggml_grow_array(sched->splits, &cap, (size_t) sched->n_splits + 1, sizeof(*s), 16);
        if (s == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_sched: out of memory for %d splits\n", sched->n_splits + 1);
            return NULL;
        }
        sched->splits     = s;
        sched->splits_cap = (int) cap;
    }
    struct sched_split * split = &sched->splits[sched->n_splits++];
    memset(split, 0, sizeof(*split));
    split->backend_id = backend_id;
    split->i_start    = i_start;
    split->i_end      = i_start;
    return split;
}

// whether node's source j must be copied into backend b to run there
static bool needs_copy(struct ggml_backend_sched * sched, const struct ggml_tensor * src, int b) {
    return ggml_sched_tensor_id(sched, src) != b && !buffer_supported(sched, src, b);
}

// new inputs node would add to a split on backend b
static int count_new_inputs(struct ggml_backend_sched * sched, const struct ggml_tensor * node, int b) {
    int n = 0;
    for (int j = 0; j < GGML_MAX_SRC; j++) {
        const struct ggml_tensor * src = node->src[j];
        if (src == NULL || !needs_copy(sched, src, b) || ggml_sched_get_copy(sched, src, b, 0) != NULL) {
            continue;
        }
        bool dup = false;
        for (int k = 0; k < j && !dup; k++) {
            dup = node->src[k] == src;
        }
        n += !dup;
    }
    return n;
}

// (Re)creates the context for the copy tensors, large enough for this graph.
static bool prepare_ctx(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    // every copy is a cross-backend source reference; the dependency nodes of the allocator's
    // graph are one per split input; inputs get n_copies slots in parallel mode
    size_t n_cross = 0;
    size_t n_inp   = 0;
    for (int i = 0; i < graph->n_nodes; i++) {
        const struct ggml_tensor * node = graph->nodes[i];
        if (ggml_op_is_view(node->op)) {
            continue;
        }
        const int id = ggml_sched_tensor_id(sched, node);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            const struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            n_cross += ggml_sched_tensor_id(sched, src) != id;
            n_inp   += (src->flags & GGML_TENSOR_FLAG_INPUT) != 0;
        }
    }
    const size_t n_tensors = n_cross * (size_t) (sched->n_copies + 1) + n_inp * (size_t) sched->n_copies + 1;
    const size_t size = n_tensors * ggml_tensor_overhead() + GGML_MEM_ALIGN;

    ggml_free(sched->ctx);
    sched->ctx = NULL;
    if (size > sched->ctx_mem_size) {
        ggml_free_mem(sched->ctx_mem);
        sched->ctx_mem_size = 0;
        sched->ctx_mem = ggml_malloc(size);
        if (sched->ctx_mem == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_sched: out of memory for the copy context (%zu bytes)\n", size);
            return false;
        }
        sched->ctx_mem_size = size;
    }
    struct ggml_init_params params = { sched->ctx_mem_size, sched->ctx_mem, true };
    sched->ctx = ggml_init(params);
    if (sched->ctx == NULL) {
        GGML_LOG_ERROR("ggml_backend_sched: cannot create the copy context\n");
        return false;
    }
    return true;
}

static bool pass5(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    sched->n_splits       = 0;
    sched->n_graph_inputs = 0;
    if (graph->n_nodes == 0) {
        return true;
    }
    int i = 0;
    while (i < graph->n_nodes && ggml_op_is_view(graph->nodes[i]->op)) {
        i++;
    }
    int cur = ggml_sched_tensor_id(sched, graph->nodes[i < graph->n_nodes ? i : 0]);
    struct sched_split * split = new_split(sched, cur, 0);
    if (split == NULL) {
        return false;
    }
    for (; i < graph->n_nodes; i++) {
        struct ggml_tensor * node = graph->nodes[i];
        if (ggml_op_is_view(node->op)) {
            continue;
        }
        const int id = ggml_sched_tensor_id(sched, node);
        bool cut = id != cur;
        if (!cut && split->n_inputs > 0) {
            for (int j = 0; j < GGML_MAX_SRC && !cut; j++) {
                const struct ggml_tensor * src = node->src[j];
                if (src == NULL) {
                    continue;
                }
                // a new weight from elsewhere: a new split lets the copies of the previous
                // weights be freed
                ggml_backend_buffer_t buf = tensor_buffer(src);
                cut = buf != NULL && buf->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS && needs_copy(sched, src, cur);
            }
            cut = cut || split->n_inputs + count_new_inputs(sched, node, cur) > GGML_SCHED_MAX_SPLIT_INPUTS;
        }
        if (cut) {
            split->i_end = i;
            split = new_split(sched, id, i);
            if (split == NULL) {
                return false;
            }
            cur = id;
        }

        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * src = node->src[j];
            if (src == NULL) {
                continue;
            }
            const size_t s = ggml_sched_slot(sched, src, false);
            const int src_id = s == GGML_HASHSET_FULL ? -1 : sched->tensor_ids[s];
            if (src_id == -1) {
                GGML_LOG_ERROR("ggml_backend_sched: internal error: source '%s' of node '%s' has no backend\n", src->name, node->name);
                return false;
            }
            if (sched->n_copies > 1 && (src->flags & GGML_TENSOR_FLAG_INPUT) && ggml_sched_get_copy(sched, src, src_id, 0) == NULL) {
                // a graph input: n_copies fixed slots on its own backend, the current one being
                // the tensor itself, so that consecutive graphs put their inputs in different places
                if (sched->n_graph_inputs == sched->graph_inputs_cap) {
                    size_t cap = (size_t) sched->graph_inputs_cap;
                    struct ggml_tensor ** gi = ggml_grow_array(sched->graph_inputs, &cap, (size_t) sched->n_graph_inputs + 1,
                                                               sizeof(*gi), GGML_SCHED_MAX_SPLIT_INPUTS);
                    if (gi == NULL) {
                        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_sched: out of memory for the graph inputs\n");
                        return false;
                    }
                    sched->graph_inputs     = gi;
                    sched->graph_inputs_cap = (int) cap;
                }
                if (add_copies(sched, s, src, src_id, sched->cur_copy) < 0) {
                    return false;
                }
                sched->graph_inputs[sched->n_graph_inputs++] = src;
            }
            if (src_id == cur || buffer_supported(sched, src, cur)) {
                continue;
            }
            struct ggml_tensor * cpy = ggml_sched_get_copy(sched, src, cur, sched->cur_copy);
            if (cpy == NULL) {
                if (split->n_inputs >= GGML_SCHED_MAX_SPLIT_INPUTS) {
                    GGML_LOG_ERROR("ggml_backend_sched: node '%s' needs more than GGML_SCHED_MAX_SPLIT_INPUTS (%d) inputs copied to backend %s\n",
                            node->name, GGML_SCHED_MAX_SPLIT_INPUTS, ggml_backend_name(sched->backends[cur]));
                    return false;
                }
                const int r = add_copies(sched, s, src, cur, -1);
                if (r < 0) {
                    return false;
                }
                cpy = sched->copy_recs[r].t[sched->cur_copy];
                if (!add_origin(sched, cpy, src)) {
                    return false;
                }
                split->inputs[split->n_inputs++] = src;
            }
            node->src[j] = cpy;
        }
    }
    split->i_end = graph->n_nodes;
    return true;
}

//
// the allocator's graph
//

static bool ensure_graph_capacity(struct ggml_backend_sched * sched, int n_nodes, int n_leafs) {
    if (n_nodes > sched->graph_nodes_cap) {
        struct ggml_tensor ** nodes = ggml_realloc(sched->graph.nodes, (size_t) n_nodes * sizeof(*nodes));
        int * ids = nodes != NULL ? ggml_realloc(sched->node_ids, (size_t) n_nodes * sizeof(int)) : NULL;
        if (nodes != NULL) {
            sched->graph.nodes = nodes;
        }
        if (ids == NULL) {
            return false;
        }
        sched->node_ids = ids;
        sched->graph_nodes_cap = n_nodes;
    }
    if (n_leafs > sched->graph_leafs_cap) {
        struct ggml_tensor ** leafs = ggml_realloc(sched->graph.leafs, (size_t) n_leafs * sizeof(*leafs));
        int * ids = leafs != NULL ? ggml_realloc(sched->leaf_ids, (size_t) n_leafs * sizeof(int)) : NULL;
        if (leafs != NULL) {
            sched->graph.leafs = leafs;
        }
        if (ids == NULL) {
            return false;
        }
        sched->leaf_ids = ids;
        sched->graph_leafs_cap = n_leafs;
    }
    return true;
}

static bool build_alloc_graph(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    int total_inputs = 0;
    for (int s = 0; s < sched->n_splits; s++) {
        total_inputs += sched->splits[s].n_inputs;
    }
    const int per_input = sched->n_copies > 1 ? 1 : 2;
    const int n_nodes = graph->n_nodes + total_inputs * per_input;
    const int n_leafs = graph->n_leafs + (sched->n_copies > 1 ? (sched->n_graph_inputs + total_inputs) * sched->n_copies : 0);
    if (!ensure_graph_capacity(sched, n_nodes > 0 ? n_nodes : 1, n_leafs > 0 ? n_leafs : 1)) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "ggml_backend_sched: out of memory for the allocator's graph (%d nodes, %d leafs)\n", n_nodes, n_leafs);
        return false;
    }
    struct ggml_cgraph * g = &sched->graph;
    g->size     = 0;
    g->n_nodes  = 0;
    g->n_leafs  = 0;
    g->overflow = false;
    // the splits' views share the user's hash set and use counts (backends may ask how many
    // consumers a node has); the allocator does not use them
    g->visited_hash_set = graph->visited_hash_set;
    g->use_counts       = graph->visited_hash_set.size > 0 ? graph->use_counts : NULL;
    g->grads            = NULL;
    g->grad_accs        = NULL;

    for (int s = 0; s < sched->n_splits; s++) {
        struct sched_split * split = &sched->splits[s];
        ggml_backend_t backend = sched->backends[split->backend_id];
        if (backend->iface.graph_optimize != NULL && split->i_end > split->i_start) {
            struct ggml_cgraph view = ggml_graph_view(graph, split->i_start, split->i_end);
            backend->iface.graph_optimize(backend, &view);
        }
        for (int j = 0; j < split->n_inputs; j++) {
            struct ggml_tensor * input = split->inputs[j];
            // keeps the input alive (not overwritten by its backend) until the copy has been made
            struct ggml_tensor * dep = ggml_view_tensor(sched->ctx, input);
            if (dep == NULL) {
                GGML_LOG_ERROR("ggml_backend_sched: internal error: copy context too small\n");
                return false;
            }
            dep->src[0] = input;
            sched->node_ids[g->n_nodes] = ggml_sched_tensor_id(sched, input);
            g->nodes[g->n_nodes++] = dep;
            if (sched->n_copies == 1) {
                // allocated at the start of the split
                sched->node_ids[g->n_nodes] = split->backend_id;
                g->nodes[g->n_nodes++] = ggml_sched_get_copy(sched, input, split->backend_id, 0);
            }
        }
        const int start = g->n_nodes;
        for (int i = split->i_start; i < split->i_end; i++) {
            sched->node_ids[g->n_nodes] = ggml_sched_tensor_id(sched, graph->nodes[i]);
            g->nodes[g->n_nodes++] = graph->nodes[i];
        }
        split->graph = ggml_graph_view(g, start, g->n_nodes);
    }

    if (sched->n_copies > 1) {
        // the copy slots first, so that they never share memory with anything
        for (int i = 0; i < sched->n_graph_inputs; i++) {
            struct ggml_tensor * input = sched->graph_inputs[i];
            const int id = ggml_sched_tensor_id(sched, input);
            for (int c = 0; c < sched->n_copies; c++) {
                sched->leaf_ids[g->n_leafs] = id;
                g->leafs[g->n_leafs++] = ggml_sched_get_copy(sched, input, id, c);
            }
        }
        for (int s = 0; s < sched->n_splits; s++) {
            const struct sched_split * split = &sched->splits[s];
            for (int j = 0; j < split->n_inputs; j++) {
                for (int c = 0; c < sched->n_copies; c++) {
                    sched->leaf_ids[g->n_leafs] = split->backend_id;
                    g->leafs[g->n_leafs++] = ggml_sched_get_copy(sched, split->inputs[j], split->backend_id, c);
                }
            }
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        struct ggml_tensor * leaf = graph->leafs[i];
        const int id = ggml_sched_tensor_id(sched, leaf);
        if (sched->n_copies > 1 && (leaf->flags & GGML_TENSOR_FLAG_INPUT) && ggml_sched_get_copy(sched, leaf, id, 0) != NULL) {
            continue; // already there as its copy slot
        }
        sched->leaf_ids[g->n_leafs] = id;
        g->leafs[g->n_leafs++] = leaf;
    }
    return true;
}

//
// entry point
//

bool ggml_sched_split_graph(struct ggml_backend_sched * sched, struct ggml_cgraph * graph) {
    if (graph->n_nodes < 0 || graph->n_leafs < 0 || (graph->n_nodes > 0 && graph->nodes == NULL) ||
            (graph->n_leafs > 0 && graph->leafs == NULL)) {
        GGML_LOG_ERROR("ggml_backend_sched: invalid graph (%d nodes, %d leafs)\n", graph->n_nodes, graph->n_leafs);
        return false;
    }
    if (graph->overflow) {
        GGML_LOG_ERROR("ggml_backend_sched: the graph overflowed its size (%d) when it was built; it is incomplete\n", graph->size);
        return false;
    }
    // assignment reads the buffers of tensors that have memory (weights): none may be freed
    if (!ggml_backend_graph_tensors_ready(graph, false, "ggml_backend_sched")) {
        return false;
    }
    if ((size_t) graph->n_nodes + (size_t) graph->n_leafs > sched->max_tensors) {
        GGML_LOG_ERROR("ggml_backend_sched: the graph has %d nodes and %d leafs, more than the %zu the scheduler was created for; "
                "pass a larger graph_size to ggml_backend_sched_new\n", graph->n_nodes, graph->n_leafs, sched->max_tensors);
        return false;
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        if (graph->nodes[i] == NULL) {
            GGML_LOG_ERROR("ggml_backend_sched: node %d of the graph is NULL\n", i);
            return false;
        }
    }
    for (int i = 0; i < graph->n_leafs; i++) {
        if (graph->leafs[i] == NULL) {
            GGML_LOG_ERROR("ggml_backend_sched: leaf %d of the graph is NULL\n", i);
            return false;
        }
    }

    if (sched->split_done) {
        // the tables still describe another split: forget it, keeping the user's placements
        ggml_sched_clear_tables(sched, true);
    }
    sched->split_done = true;
    sched->is_alloc   = false;
    sched->n_splits   = 0;

    if (!undo_rewrites(sched, graph)) {
        return false;
    }
    if (!pass1(sched, graph)) {
        return false;
    }
    pass2_sweep(sched, graph, true,  true,  SCHED_CAUSE_GPU_DOWN);
    pass2_sweep(sched, graph, false, true,  SCHED_CAUSE_GPU_UP);
    pass2_sweep(sched, graph, true,  false, SCHED_CAUSE_DOWN);
    pass2_sweep(sched, graph, false, false, SCHED_CAUSE_UP);
    pass3(sched, graph);
    if (!pass4(sched, graph) || !check_assignments(sched, graph)) {
        return false;
    }
    if (!prepare_ctx(sched, graph) || !pass5(sched, graph) || !build_alloc_graph(sched, graph)) {
        return false;
    }
    if (sched->debug > 0) {
        ggml_sched_print_assignments(sched, graph);
    }
    return true;
}

//
// GGML_SCHED_DEBUG
//

static const char * cause_name(int cause) {
    static const char * names[SCHED_CAUSE_COUNT] = {
        [SCHED_CAUSE_NONE]      = "?",
        [SCHED_CAUSE_USER]      = "set by the user",
        [SCHED_CAUSE_BUFFER]    = "has memory there",
        [SCHED_CAUSE_INPUT]     = "graph input",
        [SCHED_CAUSE_WEIGHTS]   = "uses weights there",
        [SCHED_CAUSE_OFFLOAD]   = "offloaded",
        [SCHED_CAUSE_GPU_DOWN]  = "after its predecessor",
        [SCHED_CAUSE_GPU_UP]    = "before its successor",
        [SCHED_CAUSE_DOWN]      = "after its predecessor (any backend)",
        [SCHED_CAUSE_UP]        = "before its successor (any backend)",
        [SCHED_CAUSE_BEST_FIT]  = "most sources usable",
        [SCHED_CAUSE_UPGRADE]   = "upgraded (same buffer type)",
        [SCHED_CAUSE_VIEW_SRC]  = "view of a tensor there",
        [SCHED_CAUSE_CONSUMER]  = "used there",
        [SCHED_CAUSE_FIRST]     = "first backend that supports it",
        [SCHED_CAUSE_LEAF]      = "unused leaf",
    };
    return cause >= 0 && cause < SCHED_CAUSE_COUNT ? names[cause] : "?";
}

static void fmt_size(char * buf, size_t n, size_t bytes) {
    if (bytes >= ((size_t) 1 << 20)) {
        snprintf(buf, n, "%.1f MiB", (double) bytes / (1 << 20));
    } else if (bytes >= 1024) {
        snprintf(buf, n, "%.1f KiB", (double) bytes / 1024);
    } else {
        snprintf(buf, n, "%zu B", bytes);
    }
}

// backend name of t for the listing
static const char * backend_name_of(struct ggml_backend_sched * sched, const struct ggml_tensor * t) {
    const int id = ggml_sched_tensor_id(sched, t);
    return id >= 0 ? ggml_backend_name(sched->backends[id]) : "-";
}

void ggml_sched_print_assignments(struct ggml_backend_sched * sched, const struct ggml_cgraph * graph) {
    char sz[32];
    int n_inputs = 0;
    for (int s = 0; s < sched->n_splits; s++) {
        n_inputs += sched->splits[s].n_inputs;
    }
    GGML_LOG_INFO("ggml_backend_sched: graph with %d nodes, %d leafs -> %d splits, %d inputs copied, copy slot %d of %d\n",
            graph->n_nodes, graph->n_leafs, sched->n_splits, n_inputs, sched->cur_copy, sched->n_copies);
    for (int s = 0; s < sched->n_splits; s++) {
        const struct sched_split * split = &sched->splits[s];
        struct ggml_msg m;
        ggml_msg_init(&m);
        ggml_msg_append(&m, "  split %d on %s: nodes [%d, %d), %d input%s%s", s, ggml_backend_name(sched->backends[split->backend_id]),
                split->i_start, split->i_end, split->n_inputs, split->n_inputs == 1 ? "" : "s", split->n_inputs > 0 ? ":" : "");
        for (int j = 0; j < split->n_inputs; j++) {
            const struct ggml_tensor * in = split->inputs[j];
            fmt_size(sz, sizeof(sz), ggml_nbytes(in));
            ggml_msg_append(&m, " '%s' from %s (%s)%s", in->name, backend_name_of(sched, in), sz, j + 1 < split->n_inputs ? "," : "");
        }
        GGML_LOG_INFO("%s\n", m.text);
        if (sched->debug < 2) {
            continue;
        }
        for (int i = split->i_start; i < split->i_end; i++) {
            const struct ggml_tensor * node = graph->nodes[i];
            const size_t slot = ggml_sched_slot(sched, node, false);
            fmt_size(sz, sizeof(sz), ggml_nbytes(node));
            ggml_msg_init(&m);
            ggml_msg_append(&m, "    node %4d %-12s '%s' (%s, %s) on %s [%s]", i, ggml_op_desc(node), node->name, ggml_type_name(node->type), sz,
                    backend_name_of(sched, node), slot == GGML_HASHSET_FULL ? "?" : cause_name(sched->tensor_cause[slot]));
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                const struct ggml_tensor * src = node->src[j];
                if (src == NULL) {
                    continue;
                }
                if (in_ctx_mem(sched, src)) {
                    ggml_msg_append(&m, "%s'%s'", j == 0 ? " <- " : ", ", src->name); // a copy: its name says where
                } else {
                    ggml_msg_append(&m, "%s'%s' on %s", j == 0 ? " <- " : ", ", src->name, backend_name_of(sched, src));
                }
            }
            GGML_LOG_INFO("%s\n", m.text);
        }
    }
}
