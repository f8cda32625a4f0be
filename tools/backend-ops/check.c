// backend-ops: the host mirror of a case's graph, the reference evaluation over it, and the
// comparison of a backend's result with the reference.
//
// The mirror holds a host tensor for every tensor of the graph with the same type, ne and nb:
// inputs point at the data uploaded to the backend (their values before computation), views
// point into the mirror of their view_src at the same offset (so strided and permuted views read
// the same elements as on the backend), and computed nodes get host memory that the reference
// fills, node by node, so that composite graphs can be checked too.

#include "bops.h"
#include "ggml-ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOPS_HOST_MAX 256

struct bops_host {
    const struct bop_graph * g;
    void * const * input_data;
    int n;
    const struct ggml_tensor * dev[BOPS_HOST_MAX];
    struct ggml_tensor * host[BOPS_HOST_MAX];
    void * owned[BOPS_HOST_MAX]; // data allocated for computed nodes
    int n_owned;
};

struct bops_host * bops_host_new(const struct bop_graph * g, void * const * input_data) {
    struct bops_host * h = calloc(1, sizeof(*h));
    if (h != NULL) {
        h->g = g;
        h->input_data = input_data;
    }
    return h;
}

void bops_host_free(struct bops_host * h) {
    if (h == NULL) {
        return;
    }
    for (int i = 0; i < h->n; i++) {
        free(h->host[i]);
    }
    for (int i = 0; i < h->n_owned; i++) {
        free(h->owned[i]);
    }
    free(h);
}

static struct ggml_tensor * bops_host_map(struct bops_host * h, const struct ggml_tensor * dev, int depth) {
    if (dev == NULL) {
        return NULL;
    }
    for (int i = 0; i < h->n; i++) {
        if (h->dev[i] == dev) {
            return h->host[i];
        }
    }
    if (h->n >= BOPS_HOST_MAX || depth > 64) {
        return NULL;
    }
    struct ggml_tensor * t = malloc(sizeof(*t));
    if (t == NULL) {
        return NULL;
    }
    memcpy(t, dev, sizeof(*t));
    t->buffer = NULL;
    t->extra = NULL;
    t->data = NULL;
    // registered before the recursion so that cycles (which a valid graph has none of) terminate
    h->dev[h->n] = dev;
    h->host[h->n] = t;
    h->n++;

    if (dev->view_src != NULL) {
        struct ggml_tensor * vs = bops_host_map(h, dev->view_src, depth + 1);
        t->view_src = vs;
        if (vs != NULL && vs->data != NULL) {
            t->data = (char *) vs->data + dev->view_offs;
        }
    } else {
        for (int i = 0; i < h->g->n_inputs; i++) {
            if (h->g->inputs[i].t == dev) {
                t->data = h->input_data[i];
            }
        }
        if (t->data == NULL && h->n_owned < BOPS_HOST_MAX) {
            // a computed node: the reference fills it
            void * p = calloc(1, ggml_nbytes(dev) > 0 ? ggml_nbytes(dev) : 1);
            if (p != NULL) {
                h->owned[h->n_owned++] = p;
                t->data = p;
            }
        }
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        t->src[i] = bops_host_map(h, dev->src[i], depth + 1);
    }
    return t;
}

const struct ggml_tensor * bops_host_tensor(struct bops_host * h, const struct ggml_tensor * dev) {
    return bops_host_map(h, dev, 0);
}

bool bops_host_reference(struct bops_host * h, struct ggml_cgraph * graph, const struct ggml_tensor * out,
        double * ref, char * err, size_t err_size) {
    const int n_nodes = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n_nodes; i++) {
        struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (node != out && bops_is_view_op(node->op)) {
            continue; // the mirror reads views through their view_src
        }
        struct ggml_tensor * hn = bops_host_map(h, node, 0);
        if (hn == NULL || hn->data == NULL) {
            snprintf(err, err_size, "cannot mirror node %d (%s) on the host", i, ggml_op_desc(node));
            return false;
        }
        double * values = ref;
        if (node != out) {
            values = malloc(sizeof(double) * (size_t) (ggml_nelements(node) > 0 ? ggml_nelements(node) : 1));
            if (values == NULL) {
                snprintf(err, err_size, "out of memory");
                return false;
            }
        }
        char rerr[256] = "";
        const bool ok = ggml_ref_compute(hn, values, rerr, sizeof(rerr));
        if (ok && node != out && !bops_store_tensor(hn, values, ggml_nelements(hn))) {
            snprintf(rerr, sizeof(rerr), "cannot store a %s result on the host", ggml_type_name(node->type));
        }
        if (node != out) {
            free(values);
        }
        if (!ok || rerr[0] != '\0') {
            snprintf(err, err_size, "reference for %s failed: %s", ggml_op_desc(node), rerr);
            return false;
        }
        if (node == out) {
            return true;
        }
    }
    snprintf(err, err_size, "the result is not a node of the graph");
    return false;
}

//
// comparison
//

static void bops_idx_str(const struct ggml_tensor * t, int64_t i, char * buf, size_t size) {
    int64_t i0, i1, i2, i3;
    ggml_unravel_index(t, i, &i0, &i1, &i2, &i3);
    snprintf(buf, size, "[%lld,%lld,%lld,%lld]", (long long) i0, (long long) i1, (long long) i2, (long long) i3);
}

// argsort / top_k: the indices of each row must be valid and distinct, and the source values they
// pick must equal the ones the reference's indices pick (in order).
static bool bops_compare_sort(const struct ggml_tensor * out, const struct ggml_tensor * src,
        const double * ref, const float * got, char * msg, size_t msg_size) {
    if (src == NULL || src->data == NULL) {
        snprintf(msg, msg_size, "FAIL (no host copy of the sorted source)");
        return false;
    }
    const int64_t k = out->ne[0];
    const int64_t n = src->ne[0];
    const int64_t nrows = ggml_nrows(out);
    unsigned char * seen = calloc((size_t) (n > 0 ? n : 1), 1);
    if (seen == NULL) {
        snprintf(msg, msg_size, "FAIL (out of memory)");
        return false;
    }
    bool ok = true;
    for (int64_t r = 0; r < nrows && ok; r++) {
        const int64_t i1 = r % out->ne[1];
        const int64_t i2 = (r / out->ne[1]) % out->ne[2];
        const int64_t i3 = r / (out->ne[1]*out->ne[2]);
        memset(seen, 0, (size_t) n);
        for (int64_t j = 0; j < k; j++) {
            const double gi = got[r*k + j];
            const double ri = ref[r*k + j];
            if (!(gi >= 0 && gi < (double) n) || gi != floor(gi)) {
                snprintf(msg, msg_size, "FAIL (row %lld: index %g at position %lld is outside [0, %lld))",
                        (long long) r, gi, (long long) j, (long long) n);
                ok = false;
                break;
            }
            if (seen[(int64_t) gi]) {
                snprintf(msg, msg_size, "FAIL (row %lld: index %lld returned twice)", (long long) r, (long long) gi);
                ok = false;
                break;
            }
            seen[(int64_t) gi] = 1;
            const double vg = ggml_ref_get(src, (int64_t) gi, i1, i2, i3);
            const double vr = ggml_ref_get(src, (int64_t) ri, i1, i2, i3);
            if (vg != vr) {
                snprintf(msg, msg_size, "FAIL (row %lld, position %lld: index %lld (value %g), expected index %lld (value %g))",
                        (long long) r, (long long) j, (long long) gi, vg, (long long) ri, vr);
                ok = false;
                break;
            }
        }
    }
    free(seen);
    return ok;
}

bool bops_compare(const struct ggml_tensor * out, const struct ggml_tensor * src, enum bop_cmp cmp, double bound,
        const double * ref, const float * got, int64_t n, bool verbose, char * msg, size_t msg_size) {
    char where[80];
    // non-finite values first: NaN never passes unless expected, infinities must match exactly
    for (int64_t i = 0; i < n; i++) {
        const double g = got[i];
        const double r = ref[i];
        if (isfinite(g) && isfinite(r)) {
            continue;
        }
        if (isnan(g) && isnan(r)) {
            continue;
        }
        if (g == r) {
            continue;
        }
        bops_idx_str(out, i, where, sizeof(where));
        if (isnan(g)) {
            snprintf(msg, msg_size, "FAIL (NaN at %s, expected %g)", where, r);
        } else {
            snprintf(msg, msg_size, "FAIL (%g at %s, expected %g)", g, where, r);
        }
        return false;
    }

    switch (cmp) {
        case BOP_CMP_EXACT: {
            int64_t n_bad = 0;
            int64_t first = -1;
            for (int64_t i = 0; i < n; i++) {
                if ((double) got[i] != ref[i]) {
                    n_bad++;
                    first = first < 0 ? i : first;
                }
            }
            if (n_bad > 0) {
                bops_idx_str(out, first, where, sizeof(where));
                snprintf(msg, msg_size, "FAIL (%lld of %lld elements differ; at %s: got %g, expected %g)",
                        (long long) n_bad, (long long) n, where, got[first], ref[first]);
                return false;
            }
            return true;
        }
        case BOP_CMP_SORT:
            return bops_compare_sort(out, src, ref, got, msg, msg_size);
        case BOP_CMP_NMSE:
        default: {
            const double nmse = ggml_ref_nmse(ref, got, n);
            if (!(nmse <= bound)) {
                int n_len = snprintf(msg, msg_size, "FAIL (nmse=%.3e, bound=%.3e)", nmse, bound);
                if (verbose && n_len > 0 && (size_t) n_len < msg_size) {
                    double max_err = 0.0;
                    int64_t at = 0;
                    for (int64_t i = 0; i < n; i++) {
                        const double e = fabs((double) got[i] - ref[i]);
                        if (e > max_err) {
                            max_err = e;
                            at = i;
                        }
                    }
                    bops_idx_str(out, at, where, sizeof(where));
                    snprintf(msg + n_len, msg_size - (size_t) n_len, " max |err| %.3e at %s: got %.9g, expected %.9g",
                            max_err, where, got[at], ref[at]);
                }
                return false;
            }
            return true;
        }
    }
}
