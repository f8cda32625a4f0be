// backend-ops: the case list, names, and building a case's graph with its inputs and sentinels.

#include "bops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//
// case list
//

struct bop_case * bops_add(struct bop_cases * list, const char * op, bop_build_fn build, const char * fmt, ...) {
    if (list->n == list->cap) {
        const int cap = list->cap ? 2*list->cap : 256;
        struct bop_case * v = realloc(list->v, sizeof(*v) * (size_t) cap);
        if (v == NULL) {
            return NULL;
        }
        list->v = v;
        list->cap = cap;
    }
    struct bop_case * c = &list->v[list->n++];
    memset(c, 0, sizeof(*c));
    snprintf(c->op, sizeof(c->op), "%s", op);
    va_list args;
    va_start(args, fmt);
    vsnprintf(c->params, sizeof(c->params), fmt, args);
    va_end(args);
    c->build = build;
    c->lo = -1.0;
    c->hi = 1.0;
    c->bound = -1.0;
    c->cmp = BOP_CMP_NMSE;
    c->modes = BOP_MODE_TEST;
    return c;
}

void bops_cases_free(struct bop_cases * list) {
    free(list->v);
    list->v = NULL;
    list->n = list->cap = 0;
}

bool bops_cases_all(struct bop_cases * list) {
    return bops_cases_elementwise(list) &&
           bops_cases_unary(list) &&
           bops_cases_shape(list) &&
           bops_cases_reduce(list) &&
           bops_cases_nn(list) &&
           bops_cases_attn(list) &&
           bops_cases_quant(list) &&
           bops_cases_misc(list) &&
           bops_cases_backward(list) &&
           bops_cases_conv(list) &&
           bops_cases_seq(list) &&
           bops_cases_shape2(list) &&
           bops_cases_dsv4(list) &&
           bops_cases_fastpath(list);
}

//
// names
//

const char * bops_tname(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_F32:  return "f32";
        case GGML_TYPE_F16:  return "f16";
        case GGML_TYPE_BF16: return "bf16";
        case GGML_TYPE_F64:  return "f64";
        case GGML_TYPE_I8:   return "i8";
        case GGML_TYPE_I16:  return "i16";
        case GGML_TYPE_I32:  return "i32";
        case GGML_TYPE_I64:  return "i64";
        default:             return ggml_type_name(type);
    }
}

const char * bops_ne_str(const int64_t ne[4]) {
    // a ring of buffers so that several can appear in one printf; the tool is single-threaded
    static char ring[8][64];
    static int next = 0;
    char * buf = ring[next];
    next = (next + 1) % 8;
    snprintf(buf, sizeof(ring[0]), "[%lld,%lld,%lld,%lld]",
            (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3]);
    return buf;
}

const char * bops_layout_name(enum bop_layout layout) {
    switch (layout) {
        case BOP_LAYOUT_CONT:  return "cont";
        case BOP_LAYOUT_PAD:   return "pad";
        case BOP_LAYOUT_PERM:  return "perm";
        case BOP_LAYOUT_TRANS: return "trans";
        case BOP_LAYOUT_ROWS:  return "rows";
        default:               return "?";
    }
}

bool bops_is_view_op(enum ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_RESHAPE || op == GGML_OP_VIEW ||
           op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

//
// building
//

static bool bops_add_sentinel(struct bop_graph * g) {
    if (g->n_sentinels >= BOP_MAX_SENTINELS) {
        return false;
    }
    struct ggml_tensor * s = ggml_new_tensor_1d(g->ctx, GGML_TYPE_F32, BOP_SENTINEL_NE);
    if (s == NULL) {
        return false;
    }
    ggml_format_name(s, "sentinel-%d", g->n_sentinels);
    g->sentinels[g->n_sentinels++] = s;
    return true;
}

struct ggml_tensor * bops_input(struct bop_graph * g, enum ggml_type type, const int64_t ne[4],
        enum bop_layout layout, enum bop_fill fill, double lo, double hi) {
    if (g->n_inputs >= BOP_MAX_INPUTS) {
        fprintf(stderr, "backend-ops: case %s(%s) declares more than %d inputs\n", g->c->op, g->c->params, BOP_MAX_INPUTS);
        g->failed = true;
        return NULL;
    }
    int64_t bne[4] = { ne[0], ne[1], ne[2], ne[3] };
    switch (layout) {
        case BOP_LAYOUT_PAD:   bne[0] = ne[0] + 3; bne[1] = ne[1] + 1; break;
        case BOP_LAYOUT_ROWS:  bne[0] = ne[0] + 3; break;
        case BOP_LAYOUT_PERM:  bne[1] = ne[2]; bne[2] = ne[1]; break;
        case BOP_LAYOUT_TRANS: bne[0] = ne[1]; bne[1] = ne[0]; break;
        default: break;
    }
    struct ggml_tensor * base = ggml_new_tensor_4d(g->ctx, type, bne[0], bne[1], bne[2], bne[3]);
    if (base == NULL) {
        g->failed = true;
        return NULL;
    }
    ggml_format_name(base, "in-%d", g->n_inputs);
    g->inputs[g->n_inputs++] = (struct bop_input) { base, fill, lo, hi };
    if (!bops_add_sentinel(g)) {
        g->failed = true;
        return NULL;
    }

    struct ggml_tensor * t = base;
    switch (layout) {
        case BOP_LAYOUT_CONT:
            break;
        case BOP_LAYOUT_PAD:
            // starts one element in, keeps the base's (larger) row and plane strides
            t = ggml_view_4d(g->ctx, base, ne[0], ne[1], ne[2], ne[3], base->nb[1], base->nb[2], base->nb[3], base->nb[0]);
            break;
        case BOP_LAYOUT_ROWS:
            t = ggml_view_4d(g->ctx, base, ne[0], ne[1], ne[2], ne[3], base->nb[1], base->nb[1]*ne[1],
                    base->nb[1]*ne[1]*ne[2], base->nb[0]);
            break;
        case BOP_LAYOUT_PERM:
            t = ggml_permute(g->ctx, base, 0, 2, 1, 3);
            break;
        case BOP_LAYOUT_TRANS:
            t = ggml_transpose(g->ctx, base);
            break;
        default:
            t = NULL;
            break;
    }
    if (t == NULL) {
        g->failed = true;
    }
    return t;
}

struct ggml_tensor * bops_input_c(struct bop_graph * g, enum ggml_type type, const int64_t ne[4]) {
    return bops_input(g, type, ne, BOP_LAYOUT_CONT, BOP_FILL_UNIFORM, g->c->lo, g->c->hi);
}

struct ggml_tensor * bops_graph_build(struct bop_graph * g, const struct bop_case * c, char * err, size_t err_size) {
    memset(g, 0, sizeof(*g));
    g->c = c;
    const struct ggml_init_params params = {
        /*.mem_size   =*/ 256*ggml_tensor_overhead() + ggml_graph_overhead_custom(256, false),
        /*.mem_buffer =*/ NULL,
        /*.no_alloc   =*/ true,
    };
    g->ctx = ggml_init(params);
    if (g->ctx == NULL) {
        snprintf(err, err_size, "ggml_init failed");
        return NULL;
    }
    if (!bops_add_sentinel(g)) {
        snprintf(err, err_size, "cannot create the leading sentinel");
        return NULL;
    }
    struct ggml_tensor * out = c->build(g, c);
    if (g->failed) {
        snprintf(err, err_size, "could not create the inputs");
        return NULL;
    }
    if (out == NULL) {
        snprintf(err, err_size, "the op constructor returned NULL");
        return NULL;
    }
    ggml_set_name(out, "out");
    ggml_set_output(out);
    if (!bops_add_sentinel(g)) {
        snprintf(err, err_size, "cannot create the trailing sentinel");
        return NULL;
    }
    return out;
}

void bops_graph_free(struct bop_graph * g) {
    if (g->ctx != NULL) {
        ggml_free(g->ctx);
    }
    g->ctx = NULL;
}

void bops_set_param_f32(struct ggml_tensor * t, int i, float f) {
    memcpy((char *) t->op_params + (size_t) i*sizeof(float), &f, sizeof(f));
}
