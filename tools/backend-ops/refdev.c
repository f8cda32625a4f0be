// backend-ops: the "REF" device, a backend that computes every node with the double-precision
// reference (tests/ref) in host memory, optionally with a deliberate fault in the last node.
//
// It serves two purposes: running the whole case table against it checks the table and the
// runner themselves (every case must pass), and its faults check that the runner detects wrong
// values, NaN, unwritten elements, out-of-bounds writes, modified inputs, failed computations
// and wrong indices (backend-ops selftest).

#include "bops.h"
#include "ggml-backend-impl.h"
#include "ggml-ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum bops_fault g_fault = BOPS_FAULT_NONE; // the tool is single-threaded

const char * bops_fault_name(enum bops_fault fault) {
    switch (fault) {
        case BOPS_FAULT_NONE:    return "none";
        case BOPS_FAULT_NOISE:   return "noise";
        case BOPS_FAULT_NAN:     return "nan";
        case BOPS_FAULT_SKIP:    return "skip";
        case BOPS_FAULT_OOB:     return "oob";
        case BOPS_FAULT_INPUT:   return "input";
        case BOPS_FAULT_STATUS:  return "status";
        case BOPS_FAULT_OUTSIDE: return "outside";
        case BOPS_FAULT_SWAP:    return "swap";
        default:                 return "?";
    }
}

void bops_refdev_set_fault(enum bops_fault fault) {
    g_fault = fault;
}

// Perturbs the reference values of the last node as the fault says; returns how many values to
// store (the SKIP fault leaves the last one unwritten).
static int64_t ref_apply_value_fault(double * v, int64_t n) {
    switch (g_fault) {
        case BOPS_FAULT_NOISE:
            for (int64_t i = 0; i < n; i++) {
                v[i] = v[i] * (1.0 + ((i & 1) ? 0.05 : -0.05)) + ((i & 1) ? 1e-3 : -1e-3);
            }
            return n;
        case BOPS_FAULT_NAN:
            v[n/2] = NAN;
            return n;
        case BOPS_FAULT_SKIP:
            return n - 1;
        case BOPS_FAULT_SWAP:
            if (n >= 2) {
                const double t = v[0];
                v[0] = v[1];
                v[1] = t;
            }
            return n;
        default:
            return n;
    }
}

// Faults that write memory they must not: past the result, into an input, outside a view result.
static void ref_apply_memory_fault(const struct ggml_tensor * node) {
    if (g_fault == BOPS_FAULT_OOB && node->view_src == NULL) {
        // the first byte after the result's allocation: where the next tensor (a sentinel) starts
        const size_t align = ggml_backend_buft_get_alignment(ggml_backend_cpu_buffer_type());
        const size_t end = (ggml_nbytes(node) + align - 1) / align * align;
        ((unsigned char *) node->data)[end] ^= 0x5A;
    } else if (g_fault == BOPS_FAULT_INPUT && node->src[0] != NULL && node->src[0]->data != NULL) {
        ((unsigned char *) node->src[0]->data)[0] ^= 0x5A;
    } else if (g_fault == BOPS_FAULT_OUTSIDE && node->view_src != NULL && node->view_offs > 0) {
        ((unsigned char *) node->data)[-1] ^= 0x5A;
    }
}

// A byte of a quantized row that its values depend on, for marking a fault: the last one, except
// in Q8_K, whose rows end in block sums that dequantizing ignores (there: the first quant, after d).
static size_t ref_value_byte(enum ggml_type type, size_t row_bytes) {
    return type == GGML_TYPE_Q8_K ? sizeof(float) : row_bytes - 1;
}

// The values of a quantized result before its type rounds them: the node computed as an F32
// twin over a copy of its current contents, dequantized (the rows SET_ROWS keeps). NULL on failure.
static double * ref_unrounded(const struct ggml_tensor * node) {
    const int64_t n = ggml_nelements(node);
    float  * cur = malloc(sizeof(float) * (size_t) (n > 0 ? n : 1));
    double * v   = malloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
    if (cur == NULL || v == NULL) {
        free(cur);
        free(v);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(node, i, &i0, &i1, &i2, &i3);
        cur[i] = (float) ggml_ref_get_q(node, i0, i1, i2, i3);
    }
    struct ggml_tensor twin = *node;
    twin.type = GGML_TYPE_F32;
    twin.nb[0] = sizeof(float);
    for (int d = 1; d < GGML_MAX_DIMS; d++) {
        twin.nb[d] = twin.nb[d - 1] * (size_t) twin.ne[d - 1];
    }
    twin.data = cur;
    twin.view_src = NULL;
    twin.view_offs = 0;
    char err[256];
    const bool ok = ggml_ref_compute(&twin, v, err, sizeof(err));
    free(cur);
    if (!ok) {
        free(v);
        return NULL;
    }
    return v;
}

// Row (i1, i2, i3) of a quantized CONCAT result as the blocks of its sources (whose rows are whole
// contiguous blocks: the reference admits nothing else for a quantized CONCAT).
static void ref_concat_row(const struct ggml_tensor * node, int64_t i1, int64_t i2, int64_t i3, char * dst) {
    const struct ggml_tensor * a = node->src[0];
    const struct ggml_tensor * b = node->src[1];
    int32_t dim;
    memcpy(&dim, node->op_params, sizeof(dim));
    int64_t idx[4] = { 0, i1, i2, i3 };
    if (dim == 0) {
        const size_t ra = ggml_row_size(a->type, a->ne[0]);
        memcpy(dst, (const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3], ra);
        memcpy(dst + ra, (const char *) b->data + i1*b->nb[1] + i2*b->nb[2] + i3*b->nb[3], ggml_row_size(b->type, b->ne[0]));
        return;
    }
    const struct ggml_tensor * s = a;
    if (idx[dim] >= a->ne[dim]) {
        idx[dim] -= a->ne[dim];
        s = b;
    }
    memcpy(dst, (const char *) s->data + idx[1]*s->nb[1] + idx[2]*s->nb[2] + idx[3]*s->nb[3], ggml_row_size(s->type, s->ne[0]));
}

// Stores the first n_store values v of a quantized result (row-major) as its type stores them,
// row by row: a copy from the same type copies the source row's blocks (CONCAT: its sources'); a row whose blocks
// already hold v is left alone (the rows SET_ROWS does not write); any other row is quantized
// from its unrounded values with the type's reference quantizer, as the reference rounds it.
// Faulty values (which no longer match) are quantized as they are, or, for a same-type copy,
// show as a changed byte. A row not fully among the n_store values is not written.
static bool ref_store_quantized(struct ggml_tensor * node, const double * v, int64_t n_store) {
    const struct ggml_type_traits * tr = ggml_get_type_traits(node->type);
    const struct ggml_tensor * src = node->src[0];
    const int64_t n0 = node->ne[0];
    if (n0 <= 0 || tr->to_float == NULL || node->nb[0] != tr->type_size) {
        return false;
    }
    const bool concat = node->op == GGML_OP_CONCAT;
    const bool same = concat || (src != NULL && src->type == node->type && src->ne[0] == n0 && src->nb[0] == tr->type_size &&
                      (node->op == GGML_OP_DUP || node->op == GGML_OP_CONT || node->op == GGML_OP_CPY));
    double * u = same ? NULL : ref_unrounded(node);
    float * f = malloc(sizeof(float) * (size_t) n0 * 3);
    if (f == NULL || (!same && u == NULL)) {
        free(u);
        free(f);
        return false;
    }
    float * cur  = f + n0;
    float * good = f + 2*n0; // the row as stored without a fault
    const size_t row_bytes = ggml_row_size(node->type, n0);
    bool ok = true;
    for (int64_t r = 0; ok && (r + 1)*n0 <= n_store; r++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(node, r*n0, &i0, &i1, &i2, &i3);
        char * dst = (char *) node->data + i1*node->nb[1] + i2*node->nb[2] + i3*node->nb[3];
        if (concat) {
            ref_concat_row(node, i1, i2, i3, dst);
        } else if (same) {
            ggml_unravel_index(src, r*n0, &i0, &i1, &i2, &i3);
            memcpy(dst, (const char *) src->data + i1*src->nb[1] + i2*src->nb[2] + i3*src->nb[3], row_bytes);
        }
        tr->to_float(dst, cur, n0);
        bool equal = true;
        for (int64_t i = 0; i < n0; i++) {
            f[i] = (float) v[r*n0 + i];
            equal = equal && memcmp(&f[i], &cur[i], sizeof(float)) == 0;
        }
        if (equal) {
            continue;
        }
        if (same) {
            ((unsigned char *) dst)[ref_value_byte(node->type, row_bytes)] ^= 0x5A; // a fault: the values differ from the blocks'
            continue;
        }
        ok = tr->from_float_ref != NULL;
        if (!ok) {
            break;
        }
        float * uf = cur;
        for (int64_t i = 0; i < n0; i++) {
            uf[i] = (float) u[r*n0 + i];
        }
        tr->from_float_ref(uf, dst, n0);
        tr->to_float(dst, good, n0);
        if (memcmp(f, good, sizeof(float) * (size_t) n0) != 0) {
            // a fault changed the values: store them as they are; where the type cannot show the
            // change (a NaN the quantizer drops), show it as a changed byte
            tr->from_float_ref(f, dst, n0);
            tr->to_float(dst, cur, n0);
            if (memcmp(cur, good, sizeof(float) * (size_t) n0) == 0) {
                ((unsigned char *) dst)[ref_value_byte(node->type, row_bytes)] ^= 0x5A;
            }
        }
    }
    free(u);
    free(f);
    return ok;
}

static enum ggml_status ref_graph_compute(ggml_backend_t backend, struct ggml_cgraph * graph) {
    (void) backend;
    if (g_fault == BOPS_FAULT_STATUS) {
        return GGML_STATUS_FAILED;
    }
    const int n_nodes = ggml_graph_n_nodes(graph);
    // value faults go to the last node that computes: a result that is a reshape or view of it
    // (the family's composite convolutions end so) shows them
    int last_computed = -1;
    for (int i = 0; i < n_nodes; i++) {
        if (!bops_is_view_op(ggml_graph_node(graph, i)->op)) {
            last_computed = i;
        }
    }
    for (int i = 0; i < n_nodes; i++) {
        struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (bops_is_view_op(node->op)) {
            continue;
        }
        const int64_t n = ggml_nelements(node);
        double * v = malloc(sizeof(double) * (size_t) (n > 0 ? n : 1));
        char err[256] = "";
        if (v == NULL || !ggml_ref_compute(node, v, err, sizeof(err))) {
            fprintf(stderr, "REF: %s: %s\n", ggml_op_desc(node), v == NULL ? "out of memory" : err);
            free(v);
            return GGML_STATUS_FAILED;
        }
        const bool last = i == n_nodes - 1;
        const int64_t n_store = i == last_computed ? ref_apply_value_fault(v, n) : n;
        const bool ok = ggml_is_quantized(node->type) ? ref_store_quantized(node, v, n_store) : bops_store_tensor(node, v, n_store);
        free(v);
        if (!ok) {
            return GGML_STATUS_FAILED;
        }
        if (last) {
            ref_apply_memory_fault(node);
        }
    }
    return GGML_STATUS_SUCCESS;
}

static const char * ref_backend_name(ggml_backend_t backend) {
    (void) backend;
    return "REF";
}

static void ref_backend_free(ggml_backend_t backend) {
    free(backend);
}

static ggml_guid g_ref_guid = { 0x62, 0x6f, 0x70, 0x73, 0x2d, 0x72, 0x65, 0x66, 0x2d, 0x64, 0x65, 0x76, 0x69, 0x63, 0x65, 0x01 };

static const struct ggml_backend_i ref_backend_i = {
    /* .get_name            = */ ref_backend_name,
    /* .free                = */ ref_backend_free,
    /* .set_tensor_async    = */ NULL,
    /* .get_tensor_async    = */ NULL,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ NULL,
    /* .synchronize         = */ NULL,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ ref_graph_compute,
    /* .event_record        = */ NULL,
    /* .event_wait          = */ NULL,
    /* .graph_optimize      = */ NULL,
};

static const char * ref_dev_name(ggml_backend_dev_t dev) {
    (void) dev;
    return "REF";
}

static const char * ref_dev_description(ggml_backend_dev_t dev) {
    (void) dev;
    return "double-precision reference (backend-ops)";
}

static void ref_dev_memory(ggml_backend_dev_t dev, size_t * free_mem, size_t * total) {
    (void) dev;
    *free_mem = 0;
    *total = 0;
}

static enum ggml_backend_dev_type ref_dev_type(ggml_backend_dev_t dev) {
    (void) dev;
    return GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

static void ref_dev_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name = ref_dev_name(dev);
    props->description = ref_dev_description(dev);
    props->type = ref_dev_type(dev);
}

static ggml_backend_t ref_dev_init(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    if (backend != NULL) {
        backend->guid = &g_ref_guid;
        backend->iface = ref_backend_i;
        backend->device = dev;
    }
    return backend;
}

static ggml_backend_buffer_type_t ref_dev_buffer_type(ggml_backend_dev_t dev) {
    (void) dev;
    return ggml_backend_cpu_buffer_type();
}

static bool ref_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    (void) dev;
    return bops_is_view_op(op->op) || ggml_ref_supports(op);
}

static bool ref_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    (void) dev;
    return ggml_backend_buft_is_host(buft);
}

static const struct ggml_backend_device_i ref_device_i = {
    /* .get_name             = */ ref_dev_name,
    /* .get_description      = */ ref_dev_description,
    /* .get_memory           = */ ref_dev_memory,
    /* .get_type             = */ ref_dev_type,
    /* .get_props            = */ ref_dev_props,
    /* .init_backend         = */ ref_dev_init,
    /* .get_buffer_type      = */ ref_dev_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ ref_dev_supports_op,
    /* .supports_buft        = */ ref_dev_supports_buft,
    /* .offload_op           = */ NULL,
    /* .event_new            = */ NULL,
    /* .event_free           = */ NULL,
    /* .event_synchronize    = */ NULL,
};

static struct ggml_backend_reg g_ref_reg;

static struct ggml_backend_device g_ref_device = {
    /* .iface   = */ ref_device_i,
    /* .reg     = */ &g_ref_reg,
    /* .context = */ NULL,
};

static const char * ref_reg_name(ggml_backend_reg_t reg) {
    (void) reg;
    return "REF";
}

static size_t ref_reg_dev_count(ggml_backend_reg_t reg) {
    (void) reg;
    return 1;
}

static ggml_backend_dev_t ref_reg_dev_get(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    return index == 0 ? &g_ref_device : NULL;
}

static struct ggml_backend_reg g_ref_reg = {
    /* .api_version = */ GGML_BACKEND_API_VERSION,
    /* .iface       = */ { ref_reg_name, ref_reg_dev_count, ref_reg_dev_get, NULL },
    /* .context     = */ NULL,
};

ggml_backend_reg_t bops_refdev_reg(void) {
    return &g_ref_reg;
}
