// Graph computation on the meta device.
//
// Nodes are visited in order. Each node's split state is derived from its sources' states by the
// rules in meta_decide (column-parallel and row-parallel matrix products, ops that keep a split
// along axes they do not mix, shape ops that move the split axis); when no rule applies, the
// sources are made whole (partial sums all-reduced, slices gathered) and the node is computed
// whole on every device. For every device a stand-in of each node is built over the device's
// memory and queued in a per-device graph; the queued graphs run (one thread per device) before
// any reduction or gather that needs their results, and at the end.

#include "ggml-backend-meta-graph.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <stdlib.h>
#include <string.h>

struct ginfo {
    const struct ggml_tensor * t;
    meta_state                 st;                 // the state of the device tensors in dev
    struct ggml_tensor *       dev[META_MAX_DEVS]; // per-device stand-ins in state st
    struct ggml_tensor *       mir[META_MAX_DEVS]; // whole per-device values, once made
};

struct gctx {
    struct meta_backend *  mb;
    size_t                 n;
    struct ggml_context *  ctx[META_MAX_DEVS];
    struct ggml_cgraph *   pend[META_MAX_DEVS];
    struct ginfo **        slots;
    size_t                 n_slots;
    size_t                 n_used;
    ggml_backend_buffer_t * scratch;
    size_t                 n_scratch;
    size_t                 cap_scratch;
    bool                   debug;
};

enum form { FORM_NATIVE, FORM_MIR };

// --- tensor info map ---

static size_t gslot(const struct gctx * g, const struct ggml_tensor * t) {
    return (size_t) (((uintptr_t) t >> 4) * 11400714819323198485ull) & (g->n_slots - 1);
}

static struct ginfo * info_find(struct gctx * g, const struct ggml_tensor * t) {
    for (size_t k = gslot(g, t);; k = (k + 1) & (g->n_slots - 1)) {
        if (g->slots[k] == NULL) {
            return NULL;
        }
        if (g->slots[k]->t == t) {
            return g->slots[k];
        }
    }
}

static struct ginfo * info_add(struct gctx * g, const struct ggml_tensor * t) {
    if ((g->n_used + 1) * 2 > g->n_slots) {
        size_t n = g->n_slots * 2;
        struct ginfo ** slots = ggml_calloc(n, sizeof(*slots));
        if (slots == NULL) {
            return NULL;
        }
        struct ginfo ** old = g->slots;
        size_t n_old = g->n_slots;
        g->slots = slots;
        g->n_slots = n;
        for (size_t i = 0; i < n_old; i++) {
            if (old[i] != NULL) {
                size_t k = gslot(g, old[i]->t);
                while (slots[k] != NULL) {
                    k = (k + 1) & (n - 1);
                }
                slots[k] = old[i];
            }
        }
        ggml_free_mem(old);
    }
    struct ginfo * gi = ggml_calloc(1, sizeof(*gi));
    if (gi == NULL) {
        return NULL;
    }
    gi->t = t;
    size_t k = gslot(g, t);
    while (g->slots[k] != NULL) {
        k = (k + 1) & (g->n_slots - 1);
    }
    g->slots[k] = gi;
    g->n_used++;
    return gi;
}

// --- helpers ---

static bool is_split(const struct ginfo * gi) {
    return meta_state_is_split(&gi->st);
}

static bool in_this_device(struct gctx * g, const struct ggml_tensor * t) {
    ggml_backend_buffer_t buf = ggml_tensor_data_buffer(t);
    return buf != NULL && meta_buffer_is_meta(buf) &&
           ((struct meta_buffer *) buf->context)->mdev == g->mb->md && t->data != NULL;
}

static struct ggml_tensor * new_dev(struct gctx * g, size_t j, const struct ggml_tensor * like, const int64_t ne[4]) {
    struct ggml_tensor * d = ggml_new_tensor(g->ctx[j], like->type, 4, ne);
    if (d != NULL) {
        memcpy(d->name, like->name, sizeof(d->name));
    } else {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "meta: out of graph memory for '%s'\n", like->name);
    }
    return d;
}

// turns d into a view of `over` at byte offset offs with the strides nb
static void make_view(struct ggml_tensor * d, struct ggml_tensor * over, size_t offs, const size_t nb[4]) {
    struct ggml_tensor * base = over->view_src != NULL ? over->view_src : over;
    offs += over->view_src != NULL ? over->view_offs : 0;
    for (int i = 0; i < 4; i++) {
        d->nb[i] = nb[i];
    }
    d->view_src = base;
    d->view_offs = offs;
    d->data = (char *) base->data + offs;
    d->buffer = base->buffer;
}

static bool track_scratch(struct gctx * g, ggml_backend_buffer_t buf) {
    ggml_backend_buffer_t * s = ggml_grow_array(g->scratch, &g->cap_scratch, g->n_scratch + 1, sizeof(*s), 16);
    if (s == NULL) {
        ggml_backend_buffer_free(buf);
        return false;
    }
    g->scratch = s;
    g->scratch[g->n_scratch++] = buf;
    return true;
}

// --- running the queued per-device graphs ---

struct dev_job {
    ggml_backend_t       backend;
    struct ggml_cgraph * graph;
    enum ggml_status     status;
};

static void * dev_job_run(void * p) {
    struct dev_job * job = p;
    job->status = ggml_backend_graph_compute(job->backend, job->graph);
    return NULL;
}

static enum ggml_status flush(struct gctx * g) {
    struct dev_job jobs[META_MAX_DEVS];
    pthread_t      threads[META_MAX_DEVS];
    bool           started[META_MAX_DEVS] = {0};
    size_t         n_busy = 0;
    for (size_t j = 0; j < g->n; j++) {
        jobs[j].backend = g->mb->backends[j];
        jobs[j].graph = g->pend[j];
        jobs[j].status = GGML_STATUS_SUCCESS;
        n_busy += g->pend[j]->n_nodes > 0;
    }
    if (n_busy == 0) {
        return GGML_STATUS_SUCCESS;
    }
    const int64_t t0 = ggml_time_us();
    for (size_t j = 1; j < g->n; j++) {
        if (g->pend[j]->n_nodes > 0) {
            started[j] = pthread_create(&threads[j], NULL, dev_job_run, &jobs[j]) == 0;
            if (!started[j]) {
                dev_job_run(&jobs[j]); // no thread to be had: run it here
            }
        }
    }
    if (g->pend[0]->n_nodes > 0) {
        dev_job_run(&jobs[0]);
    }
    enum ggml_status status = GGML_STATUS_SUCCESS;
    for (size_t j = 0; j < g->n; j++) {
        if (started[j]) {
            pthread_join(threads[j], NULL);
        }
        if (jobs[j].status != GGML_STATUS_SUCCESS && status == GGML_STATUS_SUCCESS) {
            GGML_ERROR_DEFAULT(GGML_ERROR_DEVICE, "meta: device %zu (%s) failed: %s\n", j, ggml_backend_name(g->mb->backends[j]), ggml_status_to_string(jobs[j].status));
            status = jobs[j].status;
        }
        g->pend[j]->n_nodes = 0;
    }
    g->mb->us_compute += ggml_time_us() - t0;
    return status;
}

// --- device stand-ins ---

static bool make_storage(struct gctx * g, struct ginfo * gi) {
    const struct ggml_tensor * t = gi->t;
    for (size_t j = 0; j < g->n; j++) {
        int64_t ne[4];
        meta_state_dev_ne(&gi->st, g->n, j, t->ne, ne);
        struct ggml_tensor * d = new_dev(g, j, t, ne);
        if (d == NULL) {
            return false;
        }
        d->data = meta_buffer_dev_data(t->buffer, j, t);
        d->buffer = meta_buffer_dev_buffer(t->buffer, j);
        gi->dev[j] = d;
    }
    if (gi->st.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
        memcpy(gi->mir, gi->dev, sizeof(gi->mir));
    }
    return true;
}

static struct ginfo * src_info(struct gctx * g, const struct ggml_tensor * t);
static bool           get_mir(struct gctx * g, struct ginfo * gi, enum ggml_status * status);

// a whole (mirrored) view: t's strides and offset over the whole value of its storage
static bool make_mirrored_view(struct gctx * g, struct ginfo * gi, enum ggml_status * status) {
    const struct ggml_tensor * t = gi->t;
    struct ginfo * vs = src_info(g, t->view_src);
    if (vs == NULL || !get_mir(g, vs, status)) {
        return false;
    }
    for (size_t j = 0; j < g->n; j++) {
        struct ggml_tensor * d = new_dev(g, j, t, t->ne);
        if (d == NULL) {
            return false;
        }
        make_view(d, vs->mir[j], t->view_offs, t->nb);
        gi->mir[j] = d;
    }
    return true;
}

// the info of a tensor this graph has not computed (weights, inputs, earlier results)
static struct ginfo * src_info(struct gctx * g, const struct ggml_tensor * t) {
    struct ginfo * gi = info_find(g, t);
    if (gi != NULL) {
        return gi;
    }
    if (!in_this_device(g, t)) {
        GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "meta: tensor '%s' is not in a buffer of %s\n", t->name, g->mb->md->name);
        return NULL;
    }
    gi = info_add(g, t);
    if (gi == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "meta: out of memory\n");
        return NULL;
    }
    if (t->view_src != NULL) {
        enum ggml_status status = GGML_STATUS_SUCCESS;
        gi->st = meta_state_make(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        if (!make_mirrored_view(g, gi, &status)) {
            return NULL;
        }
        memcpy(gi->dev, gi->mir, sizeof(gi->dev));
        return gi;
    }
    if (!meta_buffer_state(t->buffer, t, &gi->st) || !make_storage(g, gi)) {
        return NULL;
    }
    return gi;
}

// makes gi->mir: the whole value on every device (reduces partial sums in place, gathers slices)
static bool get_mir(struct gctx * g, struct ginfo * gi, enum ggml_status * status) {
    if (gi->mir[0] != NULL) {
        return true;
    }
    const struct ggml_tensor * t = gi->t;
    if (t->view_src != NULL) {
        return make_mirrored_view(g, gi, status);
    }
    if ((*status = flush(g)) != GGML_STATUS_SUCCESS) {
        return false;
    }
    if (gi->st.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL) {
        if (g->debug) {
            GGML_LOG_INFO("meta: all-reduce '%s' (%zu bytes)\n", t->name, ggml_nbytes(t));
        }
        const int64_t t0 = ggml_time_us();
        const bool ok = meta_allreduce(&g->mb->comm, g->mb->backends, g->n, gi->dev);
        g->mb->us_reduce += ggml_time_us() - t0;
        if (!ok) {
            *status = GGML_STATUS_FAILED;
            return false;
        }
        gi->st = meta_state_make(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        memcpy(gi->mir, gi->dev, sizeof(gi->mir));
        return true;
    }
    // a split tensor: gather the slices through host memory into whole copies
    if (g->debug) {
        GGML_LOG_INFO("meta: gather '%s' (%zu bytes)\n", t->name, ggml_nbytes(t));
    }
    const int64_t t0 = ggml_time_us();
    const size_t nbytes = ggml_nbytes(t);
    char * full = ggml_malloc(nbytes + 1);
    char * slices[META_MAX_DEVS] = {0};
    bool ok = full != NULL;
    for (size_t j = 0; j < g->n && ok; j++) {
        const size_t sz = ggml_nbytes(gi->dev[j]);
        slices[j] = ggml_malloc(sz + 1);
        ok = slices[j] != NULL;
        if (ok && sz > 0) {
            ggml_backend_tensor_get(gi->dev[j], slices[j], 0, sz);
        }
    }
    if (ok) {
        meta_state_host_copy(&gi->st, g->n, t->type, t->ne, full, slices, false);
    }
    for (size_t j = 0; j < g->n && ok; j++) {
        ggml_backend_buffer_t buf = ggml_backend_alloc_buffer(g->mb->backends[j], nbytes);
        ok = buf != NULL && track_scratch(g, buf);
        struct ggml_tensor * d = ok ? new_dev(g, j, t, t->ne) : NULL;
        ok = d != NULL && ggml_backend_tensor_alloc(buf, d, ggml_backend_buffer_get_base(buf)) == GGML_STATUS_SUCCESS;
        if (ok) {
            ggml_backend_tensor_set(d, full, 0, nbytes);
            gi->mir[j] = d;
        }
    }
    for (size_t j = 0; j < g->n; j++) {
        ggml_free_mem(slices[j]);
    }
    ggml_free_mem(full);
    g->mb->us_gather += ggml_time_us() - t0;
    if (!ok) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "meta: gathering '%s' failed (out of memory)\n", t->name);
        gi->mir[0] = NULL;
        *status = GGML_STATUS_ALLOC_FAILED;
    }
    return ok;
}

// --- split-state rules ---

// the state a contiguous reshape gives a split tensor, when the split survives it
static bool reshape_map(const meta_state * s, size_t n, const struct ggml_tensor * src, const struct ggml_tensor * dst, meta_state * out) {
    const int a = (int) s->axis;
    int64_t inner = 1;
    for (int i = 0; i < a; i++) {
        inner *= src->ne[i];
    }
    const int64_t full = inner * src->ne[a];
    int64_t q = 1;
    for (int b = 0; b < 4; b++) {
        if (q * dst->ne[b] == full) {
            bool ok = true;
            for (uint32_t e = 0; e < s->n_segments * n && ok; e++) {
                ok = (inner * s->ne[e]) % q == 0 && (b != 0 || ((inner * s->ne[e]) / q) % ggml_blck_size(dst->type) == 0);
            }
            if (ok) {
                *out = *s;
                out->axis = (enum ggml_backend_meta_split_axis) b;
                for (uint32_t e = 0; e < s->n_segments * n; e++) {
                    out->ne[e] = inner * s->ne[e] / q;
                }
                return true;
            }
        }
        q *= dst->ne[b];
        if (q > full) {
            break;
        }
    }
    return false;
}

// b's extents are r times a's along the same axis, segment by segment
static bool scaled_states(const meta_state * a, const meta_state * b, size_t n, int64_t r) {
    if (a->axis != b->axis || a->n_segments != b->n_segments) {
        return false;
    }
    for (uint32_t s = 0; s < a->n_segments; s++) {
        if (a->nr[s] != b->nr[s]) {
            return false;
        }
        for (size_t j = 0; j < n; j++) {
            if (b->ne[s*n + j] != r * a->ne[s*n + j]) {
                return false;
            }
        }
    }
    return true;
}

// a source that is used whole and broadcast along axis
static bool whole_bcast(const struct ggml_tensor * t, const struct ginfo * gi, int axis) {
    return t == NULL || (!is_split(gi) && t->ne[axis] == 1);
}

// Chooses the node's state and how each source is used. Returns false for "compute it whole".
static bool meta_decide(struct gctx * g, const struct ggml_tensor * t, struct ginfo ** si, meta_state * out, enum form * forms) {
    const size_t n = g->n;
    struct ginfo * a = si[0];
    struct ginfo * b = si[1];
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        forms[k] = FORM_NATIVE;
    }
    switch (t->op) {
        case GGML_OP_RESHAPE:
            return is_split(a) && reshape_map(&a->st, n, t->src[0], t, out);
        case GGML_OP_PERMUTE:
            if (is_split(a)) {
                *out = a->st;
                out->axis = (enum ggml_backend_meta_split_axis) ggml_get_op_params_i32(t, (uint32_t) a->st.axis);
                return true;
            }
            return false;
        case GGML_OP_TRANSPOSE:
            if (is_split(a) && a->st.axis <= GGML_BACKEND_SPLIT_AXIS_1) {
                *out = a->st;
                out->axis = a->st.axis == GGML_BACKEND_SPLIT_AXIS_0 ? GGML_BACKEND_SPLIT_AXIS_1 : GGML_BACKEND_SPLIT_AXIS_0;
                return true;
            }
            if (is_split(a)) {
                *out = a->st;
                return true;
            }
            return false;
        case GGML_OP_CPY:
            if (is_split(a) && is_split(b) && meta_state_equal(&a->st, &b->st, n) && ggml_are_same_shape(t->src[0], t->src[1])) {
                *out = b->st;
                return true;
            }
            return false;
        case GGML_OP_MUL_MAT:
            if (is_split(a) && a->st.axis == GGML_BACKEND_SPLIT_AXIS_1 && !is_split(b)) {
                // column parallel: each device computes its output features
                *out = a->st;
                out->axis = GGML_BACKEND_SPLIT_AXIS_0;
                forms[1] = FORM_MIR;
                return true;
            }
            if (is_split(a) && a->st.axis == GGML_BACKEND_SPLIT_AXIS_0 && is_split(b) &&
                meta_state_equal(&a->st, &b->st, n) && t->type == GGML_TYPE_F32 && n > 1) {
                // row parallel: a contraction over the split axis leaves partial sums
                *out = meta_state_make(GGML_BACKEND_SPLIT_AXIS_PARTIAL);
                return true;
            }
            if (!is_split(a) && is_split(b) && b->st.axis == GGML_BACKEND_SPLIT_AXIS_1) {
                *out = b->st;
                forms[0] = FORM_MIR;
                return true;
            }
            if (is_split(b) && b->st.axis >= GGML_BACKEND_SPLIT_AXIS_2) {
                const int ax = (int) b->st.axis;
                if (is_split(a) && a->st.axis == b->st.axis && t->src[1]->ne[ax] % t->src[0]->ne[ax] == 0 &&
                    scaled_states(&a->st, &b->st, n, t->src[1]->ne[ax] / t->src[0]->ne[ax])) {
                    *out = b->st; // batched product (attention heads), broadcast groups kept whole per device
                    return true;
                }
                if (!is_split(a) && t->src[0]->ne[ax] == 1) {
                    *out = b->st;
                    forms[0] = FORM_MIR;
                    return true;
                }
            }
            return false;
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            if (is_split(a)) {
                const int ax = (int) a->st.axis;
                if (whole_bcast(t->src[1], b, ax)) {
                    *out = a->st;
                    forms[1] = FORM_MIR;
                    return true;
                }
                if (is_split(b) && meta_state_equal(&a->st, &b->st, n) && t->src[1]->ne[ax] == t->src[0]->ne[ax]) {
                    *out = a->st;
                    return true;
                }
            }
            if (t->op == GGML_OP_ADD && a->st.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL &&
                b->st.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && ggml_are_same_shape(t->src[0], t->src[1])) {
                *out = a->st; // a sum of partial sums stays partial
                return true;
            }
            return false;
        case GGML_OP_SOFT_MAX:
            if (ggml_get_op_params_f32(t, 1) != 0.0f || t->src[2] != NULL) {
                return false; // ALiBi slopes and sinks depend on the head index
            }
            // fall through
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            // row-wise ops keep a split that is not along the rows
            if (is_split(a) && a->st.axis != GGML_BACKEND_SPLIT_AXIS_0 && whole_bcast(t->src[1], b, (int) a->st.axis)) {
                *out = a->st;
                forms[1] = FORM_MIR;
                return true;
            }
            return false;
        case GGML_OP_GLU:
            if (is_split(a) && a->st.axis != GGML_BACKEND_SPLIT_AXIS_0 && t->src[1] == NULL) {
                *out = a->st;
                return true;
            }
            if (is_split(a) && b != NULL && is_split(b) && meta_state_equal(&a->st, &b->st, n)) {
                *out = a->st;
                return true;
            }
            return false;
        case GGML_OP_ROPE:
            if (is_split(a) && (a->st.axis == GGML_BACKEND_SPLIT_AXIS_1 || a->st.axis == GGML_BACKEND_SPLIT_AXIS_3) &&
                !is_split(b) && (t->src[2] == NULL || !is_split(si[2]))) {
                *out = a->st; // heads are independent; positions are used whole
                forms[1] = FORM_MIR;
                forms[2] = FORM_MIR;
                return true;
            }
            return false;
        case GGML_OP_GET_ROWS:
            if (is_split(a) && a->st.axis == GGML_BACKEND_SPLIT_AXIS_0 && !is_split(b)) {
                *out = a->st;
                forms[1] = FORM_MIR;
                return true;
            }
            return false;
        case GGML_OP_FLASH_ATTN_EXT: {
            struct ginfo * v = si[2];
            if (is_split(a) && is_split(b) && is_split(v) && a->st.axis == GGML_BACKEND_SPLIT_AXIS_2 &&
                t->src[0]->ne[2] % t->src[1]->ne[2] == 0 &&
                scaled_states(&b->st, &a->st, n, t->src[0]->ne[2] / t->src[1]->ne[2]) && meta_state_equal(&b->st, &v->st, n) &&
                (t->src[3] == NULL || (!is_split(si[3]) && t->src[3]->ne[2] == 1)) && t->src[4] == NULL &&
                ggml_get_op_params_f32(t, 1) == 0.0f) {
                *out = a->st; // heads: the output is [dv, heads, tokens]
                out->axis = GGML_BACKEND_SPLIT_AXIS_1;
                forms[3] = FORM_MIR;
                return true;
            }
            return false;
        }
        case GGML_OP_SCALE:
        case GGML_OP_UNARY:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_SIN:
        case GGML_OP_COS:
        case GGML_OP_CLAMP:
        case GGML_OP_CONT:
        case GGML_OP_DUP:
        case GGML_OP_LEAKY_RELU:
            // elementwise on one source
            if (is_split(a) && t->src[1] == NULL && ggml_are_same_shape(t, t->src[0])) {
                *out = a->st;
                return true;
            }
            return false;
        default:
            return false;
    }
}

// --- one node ---

static enum ggml_status meta_node(struct gctx * g, struct ggml_tensor * t) {
    const size_t n = g->n;
    struct ginfo * si[GGML_MAX_SRC] = {0};
    enum ggml_status status = GGML_STATUS_SUCCESS;
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        if (t->src[k] != NULL && (si[k] = src_info(g, t->src[k])) == NULL) {
            return GGML_STATUS_FAILED;
        }
    }
    if (!in_this_device(g, t)) {
        GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "meta: node '%s' is not in a buffer of %s\n", t->name, g->mb->md->name);
        return GGML_STATUS_FAILED;
    }
    if (info_find(g, t) != NULL) {
        GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "meta: node '%s' appears twice in the graph\n", t->name);
        return GGML_STATUS_FAILED;
    }
    meta_state out;
    enum form forms[GGML_MAX_SRC];
    if (!meta_decide(g, t, si, &out, forms)) {
        out = meta_state_make(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            forms[k] = FORM_MIR;
        }
    }
    // sources used whole
    for (int k = 0; k < GGML_MAX_SRC; k++) {
        if (si[k] != NULL && forms[k] == FORM_MIR && !get_mir(g, si[k], &status)) {
            return status != GGML_STATUS_SUCCESS ? status : GGML_STATUS_FAILED;
        }
    }
    struct ginfo * gi = info_add(g, t);
    if (gi == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "meta: out of memory\n");
        return GGML_STATUS_ALLOC_FAILED;
    }
    gi->st = out;
    const bool mirrored = out.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    if (g->debug) {
        meta_state_print("node", t, &out, n);
    }

    if (ggml_op_is_view(t->op)) {
        if (mirrored) {
            if (!make_mirrored_view(g, gi, &status)) {
                return status != GGML_STATUS_SUCCESS ? status : GGML_STATUS_FAILED;
            }
            memcpy(gi->dev, gi->mir, sizeof(gi->dev));
            return GGML_STATUS_SUCCESS;
        }
        for (size_t j = 0; j < n; j++) {
            struct ggml_tensor * s = si[0]->dev[j];
            struct ggml_tensor * d = NULL;
            if (t->op == GGML_OP_RESHAPE) {
                int64_t ne[4];
                meta_state_dev_ne(&out, n, j, t->ne, ne);
                d = ggml_is_contiguous(s) ? ggml_reshape_4d(g->ctx[j], s, ne[0], ne[1], ne[2], ne[3]) : NULL;
            } else if (t->op == GGML_OP_PERMUTE) {
                d = ggml_permute(g->ctx[j], s, ggml_get_op_params_i32(t, 0), ggml_get_op_params_i32(t, 1),
                        ggml_get_op_params_i32(t, 2), ggml_get_op_params_i32(t, 3));
            } else {
                d = ggml_transpose(g->ctx[j], s);
            }
            if (d == NULL) {
                GGML_ERROR(GGML_ERROR_UNSUPPORTED, "meta: cannot form the slice of '%s' on device %zu\n", t->name, j);
                return GGML_STATUS_FAILED;
            }
            d->buffer = s->view_src != NULL ? s->view_src->buffer : s->buffer;
            gi->dev[j] = d;
        }
        return GGML_STATUS_SUCCESS;
    }

    if (t->view_src != NULL && mirrored) {
        // an op writing into a view (cpy into a cache, in-place ops): only into whole storage
        struct ginfo * vs = src_info(g, t->view_src);
        if (vs == NULL || !get_mir(g, vs, &status)) {
            return status != GGML_STATUS_SUCCESS ? status : GGML_STATUS_FAILED;
        }
        if (vs->st.axis != GGML_BACKEND_SPLIT_AXIS_MIRRORED) {
            GGML_ERROR(GGML_ERROR_UNSUPPORTED, "meta: '%s' (%s) writes whole values into '%s', which is split (%s): not supported\n",
                    t->name, ggml_op_desc(t), t->view_src->name, ggml_backend_meta_split_axis_name(vs->st.axis));
            return GGML_STATUS_FAILED;
        }
    }

    for (size_t j = 0; j < n; j++) {
        int64_t ne[4];
        meta_state_dev_ne(&out, n, j, t->ne, ne);
        struct ggml_tensor * d = new_dev(g, j, t, ne);
        if (d == NULL) {
            return GGML_STATUS_ALLOC_FAILED;
        }
        if (t->view_src == NULL) {
            d->data = meta_buffer_dev_data(t->buffer, j, t);
            d->buffer = meta_buffer_dev_buffer(t->buffer, j);
        } else if (mirrored) {
            make_view(d, info_find(g, t->view_src)->mir[j], t->view_offs, t->nb);
        } else {
            // a split op writing into a view: the slice of its target (cpy) or of its source
            struct ggml_tensor * over = t->op == GGML_OP_CPY ? si[1]->dev[j] : si[0]->dev[j];
            if (!ggml_are_same_shape(over, d) || t->view_src != (t->src[t->op == GGML_OP_CPY]->view_src ?
                    t->src[t->op == GGML_OP_CPY]->view_src : t->src[t->op == GGML_OP_CPY])) {
                GGML_ERROR(GGML_ERROR_UNSUPPORTED, "meta: in-place '%s' (%s) on a split tensor is not supported\n", t->name, ggml_op_desc(t));
                return GGML_STATUS_FAILED;
            }
            make_view(d, over, 0, over->nb);
        }
        d->op = t->op;
        memcpy(d->op_params, t->op_params, sizeof(d->op_params));
        d->flags = t->flags | GGML_TENSOR_FLAG_COMPUTE;
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            if (si[k] != NULL) {
                d->src[k] = forms[k] == FORM_MIR ? si[k]->mir[j] : si[k]->dev[j];
            }
        }
        gi->dev[j] = d;
        ggml_graph_add_node(g->pend[j], d);
    }
    if (mirrored) {
        memcpy(gi->mir, gi->dev, sizeof(gi->mir));
    }
    return GGML_STATUS_SUCCESS;
}

// --- the graph ---

static void gctx_free(struct gctx * g) {
    for (size_t i = 0; i < g->n_slots; i++) {
        ggml_free_mem(g->slots[i]);
    }
    ggml_free_mem(g->slots);
    for (size_t i = 0; i < g->n_scratch; i++) {
        ggml_backend_buffer_free(g->scratch[i]);
    }
    ggml_free_mem(g->scratch);
    for (size_t j = 0; j < g->n; j++) {
        ggml_free(g->ctx[j]);
    }
}

enum ggml_status meta_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct meta_backend * mb = backend->context;
    struct gctx g;
    memset(&g, 0, sizeof(g));
    g.mb = mb;
    g.n = mb->md->n_devs;
    g.debug = meta_debug_enabled();

    const int n_nodes = ggml_graph_n_nodes(cgraph);
    size_t n_refs = 64 + (size_t) cgraph->n_leafs;
    for (int i = 0; i < n_nodes; i++) {
        n_refs += 1;
        for (int k = 0; k < GGML_MAX_SRC; k++) {
            n_refs += ggml_graph_node(cgraph, i)->src[k] != NULL;
        }
    }
    g.n_slots = 64;
    while (g.n_slots < 2 * n_refs) {
        g.n_slots *= 2;
    }
    g.slots = ggml_calloc(g.n_slots, sizeof(*g.slots));
    if (g.slots == NULL) {
        g.n_slots = 0;
    }
    enum ggml_status status = g.slots != NULL ? GGML_STATUS_SUCCESS : GGML_STATUS_ALLOC_FAILED;
    for (size_t j = 0; j < g.n && status == GGML_STATUS_SUCCESS; j++) {
        // each referenced tensor needs at most a stand-in, a whole copy and a view per device
        struct ggml_init_params ip = {
            /* .mem_size   = */ 3 * n_refs * ggml_tensor_overhead() + ggml_graph_overhead_custom((size_t) n_nodes + 16, false),
            /* .mem_buffer = */ NULL,
            /* .no_alloc   = */ true,
        };
        g.ctx[j] = ggml_init(ip);
        g.pend[j] = g.ctx[j] ? ggml_new_graph_custom(g.ctx[j], (size_t) n_nodes + 16, false) : NULL;
        if (g.pend[j] == NULL) {
            status = GGML_STATUS_ALLOC_FAILED;
        }
    }
    if (status != GGML_STATUS_SUCCESS) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
    }
    for (int i = 0; i < n_nodes && status == GGML_STATUS_SUCCESS; i++) {
        struct ggml_tensor * t = ggml_graph_node(cgraph, i);
        if (t->op == GGML_OP_NONE) {
            continue;
        }
        status = meta_node(&g, t);
    }
    if (status == GGML_STATUS_SUCCESS) {
        status = flush(&g);
    }
    // what the devices now hold: the states get_tensor and later graphs read
    for (size_t i = 0; i < g.n_slots; i++) {
        struct ginfo * gi = g.slots[i];
        if (gi != NULL && gi->t->view_src == NULL) {
            struct meta_record * r = meta_buffer_record(gi->t->buffer, gi->t);
            if (r != NULL) {
                r->state = gi->st;
                r->resolved = true;
            }
        }
    }
    gctx_free(&g);
    return status;
}
