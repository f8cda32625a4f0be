// backend-ops test mode: one case on one backend.
//
// Build the case in a no_alloc context (sentinel tensors around every input and the result),
// check supports_op for every node, allocate everything on the backend, upload random inputs,
// guard patterns and a NaN pattern in the result, compute, then check in this order: compute
// status, sentinels intact, inputs not written (unless the result is a view of them), bytes of a
// view result's base outside the view unchanged, and finally the values against the reference.

#include "bops.h"
#include "ggml-ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Walks a view chain to the tensor that owns the memory; *offs receives the byte offset of t in it.
static struct ggml_tensor * bops_root(struct ggml_tensor * t, size_t * offs) {
    size_t o = 0;
    while (t->view_src != NULL) {
        o += t->view_offs;
        t = t->view_src;
    }
    *offs = o;
    return t;
}

static int bops_input_index(const struct bop_graph * g, const struct ggml_tensor * t) {
    for (int i = 0; i < g->n_inputs; i++) {
        if (g->inputs[i].t == t) {
            return i;
        }
    }
    return -1;
}

// Bytes of the root (size root_size) that the view `out` at offset offs covers.
static unsigned char * bops_coverage(const struct ggml_tensor * out, size_t offs, size_t root_size) {
    unsigned char * mask = calloc(root_size > 0 ? root_size : 1, 1);
    if (mask == NULL) {
        return NULL;
    }
    const size_t esize = ggml_type_size(out->type);
    const int64_t n = ggml_nelements(out);
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(out, i, &i0, &i1, &i2, &i3);
        const size_t p = offs + i0*out->nb[0] + i1*out->nb[1] + i2*out->nb[2] + i3*out->nb[3];
        for (size_t b = 0; b < esize && p + b < root_size; b++) {
            mask[p + b] = 1;
        }
    }
    return mask;
}

struct bops_run {
    struct bop_graph g;
    ggml_backend_buffer_t buf;
    void * input_data[BOP_MAX_INPUTS];
    void * sentinel_data[BOP_MAX_SENTINELS];
    struct bops_host * host;
    void * scratch;
    void * root_data;
    unsigned char * mask;
    double * ref;
    float * got;
};

static void bops_run_free(struct bops_run * r) {
    for (int i = 0; i < BOP_MAX_INPUTS; i++) {
        free(r->input_data[i]);
    }
    for (int i = 0; i < BOP_MAX_SENTINELS; i++) {
        free(r->sentinel_data[i]);
    }
    bops_host_free(r->host);
    free(r->scratch);
    free(r->root_data);
    free(r->mask);
    free(r->ref);
    free(r->got);
    if (r->buf != NULL) {
        ggml_backend_buffer_free(r->buf);
    }
    bops_graph_free(&r->g);
}

// Checks that the graph can run here: UNSUPPORTED when the backend declines a node, FAIL when the
// reference cannot compute one.
static enum bop_status bops_check_support(ggml_backend_t backend, struct ggml_cgraph * graph, char * msg, size_t msg_size) {
    const int n_nodes = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n_nodes; i++) {
        struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (!ggml_backend_supports_op(backend, node)) {
            snprintf(msg, msg_size, "not supported");
            return BOP_UNSUPPORTED;
        }
    }
    for (int i = 0; i < n_nodes; i++) {
        struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (!bops_is_view_op(node->op) && !ggml_ref_supports(node)) {
            snprintf(msg, msg_size, "FAIL (the reference does not cover %s with result type %s)",
                    ggml_op_desc(node), ggml_type_name(node->type));
            return BOP_FAIL;
        }
    }
    return BOP_PASS;
}

// Uploads inputs, sentinel patterns and a NaN pattern into the result. false on failure.
static bool bops_upload(struct bops_run * r, struct ggml_tensor * out, uint64_t seed, const struct bop_case * c,
        char * msg, size_t msg_size) {
    struct bop_rng rng;
    bops_rng_seed(&rng, seed, c->op, c->params);
    for (int i = 0; i < r->g.n_inputs; i++) {
        const struct bop_input * in = &r->g.inputs[i];
        const size_t size = ggml_nbytes(in->t);
        r->input_data[i] = calloc(size > 0 ? size : 1, 1);
        if (r->input_data[i] == NULL || !bops_fill(&rng, in, r->input_data[i])) {
            snprintf(msg, msg_size, "FAIL (cannot generate input %d of type %s)", i, ggml_type_name(in->t->type));
            return false;
        }
        if (size > 0) {
            ggml_backend_tensor_set(in->t, r->input_data[i], 0, size);
        }
    }
    for (int i = 0; i < r->g.n_sentinels; i++) {
        struct ggml_tensor * s = r->g.sentinels[i];
        const size_t size = ggml_nbytes(s);
        r->sentinel_data[i] = malloc(size);
        if (r->sentinel_data[i] == NULL) {
            snprintf(msg, msg_size, "FAIL (out of memory)");
            return false;
        }
        for (size_t b = 0; b < size; b++) {
            ((unsigned char *) r->sentinel_data[i])[b] = (unsigned char) (bops_rng_u64(&rng) | 1);
        }
        ggml_backend_tensor_set(s, r->sentinel_data[i], 0, size);
    }
    // every element the op fails to write reads back as NaN, or for integers as the type's most
    // negative value, which no case's inputs reach (-1, the all-ones pattern, is a value integer
    // inputs take, so an unwritten element equal to its expected -1 went unnoticed)
    if (out->view_src == NULL && ggml_nbytes(out) > 0) {
        const size_t size = ggml_nbytes(out);
        unsigned char * p = malloc(size);
        if (p == NULL) {
            snprintf(msg, msg_size, "FAIL (out of memory)");
            return false;
        }
        memset(p, 0xFF, size);
        const size_t es = ggml_type_size(out->type);
        const bool is_int = out->type == GGML_TYPE_I8 || out->type == GGML_TYPE_I16 ||
                            out->type == GGML_TYPE_I32 || out->type == GGML_TYPE_I64;
        if (is_int) {
            // little-endian minimum: the top byte 0x80, the others 0
            for (size_t b = 0; b < size; b++) {
                p[b] = b % es == es - 1 ? 0x80 : 0x00;
            }
        }
        ggml_backend_tensor_set(out, p, 0, size);
        free(p);
    }
    return true;
}

// After computation: sentinels intact, inputs untouched (except the memory the result lives in).
static bool bops_check_guards(struct bops_run * r, const struct ggml_tensor * out_root, char * msg, size_t msg_size) {
    size_t max_size = (size_t) BOP_SENTINEL_NE * sizeof(float);
    for (int i = 0; i < r->g.n_inputs; i++) {
        const size_t s = ggml_nbytes(r->g.inputs[i].t);
        max_size = s > max_size ? s : max_size;
    }
    r->scratch = malloc(max_size > 0 ? max_size : 1);
    if (r->scratch == NULL) {
        snprintf(msg, msg_size, "FAIL (out of memory)");
        return false;
    }
    for (int i = 0; i < r->g.n_sentinels; i++) {
        const struct ggml_tensor * s = r->g.sentinels[i];
        ggml_backend_tensor_get(s, r->scratch, 0, ggml_nbytes(s));
        if (memcmp(r->scratch, r->sentinel_data[i], ggml_nbytes(s)) != 0) {
            if (i == 0) {
                snprintf(msg, msg_size, "FAIL (the sentinel before the first input was overwritten)");
            } else if (i == r->g.n_sentinels - 1) {
                snprintf(msg, msg_size, "FAIL (the sentinel after the result was overwritten)");
            } else {
                snprintf(msg, msg_size, "FAIL (the sentinel after input %d was overwritten)", i - 1);
            }
            return false;
        }
    }
    for (int i = 0; i < r->g.n_inputs; i++) {
        const struct ggml_tensor * t = r->g.inputs[i].t;
        if (t == out_root || ggml_nbytes(t) == 0) {
            continue;
        }
        ggml_backend_tensor_get(t, r->scratch, 0, ggml_nbytes(t));
        if (memcmp(r->scratch, r->input_data[i], ggml_nbytes(t)) != 0) {
            snprintf(msg, msg_size, "FAIL (input %d was modified)", i);
            return false;
        }
    }
    return true;
}

enum bop_status bops_run_test(ggml_backend_t backend, const struct bop_case * c, const struct bop_options * opt,
        char * msg, size_t msg_size) {
    struct bops_run r;
    memset(&r, 0, sizeof(r));
    enum bop_status status = BOP_FAIL;
    char err[256] = "";

    struct ggml_tensor * out = bops_graph_build(&r.g, c, err, sizeof(err));
    if (out == NULL) {
        snprintf(msg, msg_size, "FAIL (%s)", err);
        bops_run_free(&r);
        return BOP_FAIL;
    }
    struct ggml_cgraph * graph = ggml_new_graph_custom(r.g.ctx, 256, false);
    if (graph == NULL) {
        snprintf(msg, msg_size, "FAIL (cannot create the graph)");
        goto done;
    }
    ggml_build_forward_expand(graph, out);
    if (ggml_graph_n_nodes(graph) < 1 || ggml_graph_node(graph, -1) != out) {
        snprintf(msg, msg_size, "FAIL (the result is not the last node of its graph)");
        goto done;
    }

    status = bops_check_support(backend, graph, msg, msg_size);
    if (status != BOP_PASS) {
        goto done;
    }
    status = BOP_FAIL;

    r.buf = ggml_backend_alloc_ctx_tensors(r.g.ctx, backend);
    if (r.buf == NULL) {
        snprintf(msg, msg_size, "FAIL (allocating the tensors on %s failed)", ggml_backend_name(backend));
        goto done;
    }
    if (!bops_upload(&r, out, opt->seed, c, msg, msg_size)) {
        goto done;
    }

    const enum ggml_status cs = ggml_backend_graph_compute(backend, graph);
    if (cs != GGML_STATUS_SUCCESS) {
        snprintf(msg, msg_size, "FAIL (compute returned %s)", ggml_status_to_string(cs));
        goto done;
    }

    size_t offs = 0;
    struct ggml_tensor * root = bops_root(out, &offs);
    if (!bops_check_guards(&r, root, msg, msg_size)) {
        goto done;
    }

    // read the whole memory of the result (its base tensor for a view) with the device layout
    const size_t root_size = ggml_nbytes(root);
    r.root_data = malloc(root_size > 0 ? root_size : 1);
    const int64_t n = ggml_nelements(out);
    r.ref = malloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
    r.got = malloc(sizeof(float) * (size_t) (n > 0 ? n : 1));
    r.host = bops_host_new(&r.g, r.input_data);
    if (r.root_data == NULL || r.ref == NULL || r.got == NULL || r.host == NULL) {
        snprintf(msg, msg_size, "FAIL (out of memory)");
        goto done;
    }
    if (root_size > 0) {
        ggml_backend_tensor_get(root, r.root_data, 0, root_size);
    }

    // a view result must leave the rest of its base as it was
    const int root_input = bops_input_index(&r.g, root);
    if (out != root && root_input >= 0) {
        r.mask = bops_coverage(out, offs, root_size);
        if (r.mask == NULL) {
            snprintf(msg, msg_size, "FAIL (out of memory)");
            goto done;
        }
        const unsigned char * before = r.input_data[root_input];
        const unsigned char * after = r.root_data;
        for (size_t b = 0; b < root_size; b++) {
            if (!r.mask[b] && before[b] != after[b]) {
                snprintf(msg, msg_size, "FAIL (byte %zu of the result's base tensor, outside the result, was written)", b);
                goto done;
            }
        }
    }

    struct ggml_tensor got_view = *out;
    got_view.data = (char *) r.root_data + offs;
    got_view.buffer = NULL;
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(out, i, &i0, &i1, &i2, &i3);
        r.got[i] = (float) ggml_ref_get_q(&got_view, i0, i1, i2, i3); // a quantized result dequantized
    }

    if (!bops_host_reference(r.host, graph, out, r.ref, err, sizeof(err))) {
        snprintf(msg, msg_size, "FAIL (%s)", err);
        goto done;
    }

    const double bound = c->bound >= 0.0 ? c->bound : bops_default_bound(out);
    const enum bop_cmp cmp = c->cmp != BOP_CMP_NMSE ? c->cmp : bops_default_cmp(out);
    const struct ggml_tensor * sorted = out->src[0] != NULL ? bops_host_tensor(r.host, out->src[0]) : NULL;
    if (bops_compare(out, sorted, cmp, bound, r.ref, r.got, n, opt->verbose, msg, msg_size)) {
        status = BOP_PASS;
        if (opt->verbose && cmp == BOP_CMP_NMSE) {
            snprintf(msg, msg_size, "OK (nmse=%.3e, bound=%.3e)", ggml_ref_nmse(r.ref, r.got, n), bound);
        } else {
            snprintf(msg, msg_size, "OK");
        }
    }

done:
    bops_run_free(&r);
    return status;
}
