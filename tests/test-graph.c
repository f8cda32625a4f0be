// Graphs: building (order, leafs vs nodes, use counts, params, overflow, deep chains), graph
// objects in a context (overhead, copy, dup, view, lookups, dot export) and the tensor hash set.
//
// Most graphs here are wired by hand (op and src[] set directly) so that the expected traversal
// is known independently of the op constructors; one section uses the real constructors.

#include "ggml.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "test-common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ggml_context * new_ctx(size_t mem, bool no_alloc) {
    struct ggml_init_params p = { mem, NULL, no_alloc };
    return ggml_init(p);
}

static struct ggml_tensor * mk_leaf(struct ggml_context * ctx, const char * name) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    if (t != NULL && name != NULL) {
        ggml_set_name(t, name);
    }
    return t;
}

static struct ggml_tensor * mk_op(struct ggml_context * ctx, enum ggml_op op, struct ggml_tensor * a,
        struct ggml_tensor * b, const char * name) {
    struct ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 4);
    if (t == NULL) {
        return NULL;
    }
    t->op = op;
    t->src[0] = a;
    t->src[1] = b;
    if (name != NULL) {
        ggml_set_name(t, name);
    }
    return t;
}

// use count recorded for t, or -1 when t is not in the graph's hash set
static int use_count(const struct ggml_cgraph * g, const struct ggml_tensor * t) {
    const size_t i = ggml_hash_find(&g->visited_hash_set, t);
    if (i == GGML_HASHSET_FULL || !ggml_bitset_get(g->visited_hash_set.used, i)) {
        return -1;
    }
    return g->use_counts[i];
}

static bool same_list(struct ggml_tensor * const * got, int n_got, struct ggml_tensor * const * want, int n_want) {
    if (n_got != n_want) {
        return false;
    }
    for (int i = 0; i < n_got; i++) {
        if (got[i] != want[i]) {
            return false;
        }
    }
    return true;
}

static void test_chain(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    struct ggml_tensor * x  = mk_leaf(ctx, "x");
    struct ggml_tensor * n1 = mk_op(ctx, GGML_OP_SQR, x, NULL, "n1");
    struct ggml_tensor * n2 = mk_op(ctx, GGML_OP_SQRT, n1, NULL, "n2");
    struct ggml_tensor * n3 = mk_op(ctx, GGML_OP_LOG, n2, NULL, "n3");

    struct ggml_cgraph * g = ggml_new_graph(ctx);
    TEST_CHECK(g != NULL);
    TEST_CHECK(ggml_graph_size(g) == GGML_DEFAULT_GRAPH_SIZE);
    TEST_CHECK(ggml_graph_n_nodes(g) == 0);
    ggml_build_forward_expand(g, n3);

    struct ggml_tensor * want_nodes[] = { n1, n2, n3 };
    struct ggml_tensor * want_leafs[] = { x };
    TEST_CHECK(same_list(g->nodes, g->n_nodes, want_nodes, 3));
    TEST_CHECK(same_list(g->leafs, g->n_leafs, want_leafs, 1));
    TEST_CHECK(ggml_graph_n_nodes(g) == 3);
    TEST_CHECK(ggml_graph_nodes(g) == g->nodes);
    TEST_CHECK(!g->overflow);

    // compute flag on nodes only
    TEST_CHECK((n1->flags & GGML_TENSOR_FLAG_COMPUTE) && (n2->flags & GGML_TENSOR_FLAG_COMPUTE) &&
               (n3->flags & GGML_TENSOR_FLAG_COMPUTE));
    TEST_CHECK(!(x->flags & GGML_TENSOR_FLAG_COMPUTE));

    TEST_CHECK(use_count(g, x) == 1);
    TEST_CHECK(use_count(g, n1) == 1);
    TEST_CHECK(use_count(g, n2) == 1);
    TEST_CHECK(use_count(g, n3) == 0);

    // expanding again with a tensor already in the graph changes nothing
    ggml_build_forward_expand(g, n3);
    ggml_build_forward_expand(g, n1);
    TEST_CHECK(same_list(g->nodes, g->n_nodes, want_nodes, 3));
    TEST_CHECK(g->n_leafs == 1);
    TEST_CHECK(use_count(g, n1) == 1);

    // a second output that reuses n2 is appended after the first graph
    struct ggml_tensor * y  = mk_leaf(ctx, "y");
    struct ggml_tensor * n4 = mk_op(ctx, GGML_OP_ADD, n2, y, "n4");
    ggml_build_forward_expand(g, n4);
    struct ggml_tensor * want_nodes2[] = { n1, n2, n3, n4 };
    struct ggml_tensor * want_leafs2[] = { x, y };
    TEST_CHECK(same_list(g->nodes, g->n_nodes, want_nodes2, 4));
    TEST_CHECK(same_list(g->leafs, g->n_leafs, want_leafs2, 2));
    TEST_CHECK(use_count(g, n2) == 2);
    TEST_CHECK(use_count(g, y) == 1);

    // a leaf alone: goes to leafs, nodes unchanged
    struct ggml_tensor * z = mk_leaf(ctx, "z");
    ggml_build_forward_expand(g, z);
    TEST_CHECK(g->n_leafs == 3 && g->leafs[2] == z && g->n_nodes == 4);
    TEST_CHECK(use_count(g, z) == 0);

    ggml_free(ctx);
}

static void test_diamond(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    struct ggml_tensor * a = mk_leaf(ctx, "a");
    struct ggml_tensor * b = mk_leaf(ctx, "b");
    struct ggml_tensor * c = mk_op(ctx, GGML_OP_ADD, a, b, "c");
    struct ggml_tensor * d = mk_op(ctx, GGML_OP_MUL, c, a, "d");
    struct ggml_tensor * e = mk_op(ctx, GGML_OP_SUB, c, d, "e");
    struct ggml_tensor * f = mk_op(ctx, GGML_OP_MUL, e, e, "f"); // the same src twice

    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g, f);

    // post-order through src[0] then src[1]: c is visited once although e and d both use it
    struct ggml_tensor * want_nodes[] = { c, d, e, f };
    struct ggml_tensor * want_leafs[] = { a, b };
    TEST_CHECK(same_list(g->nodes, g->n_nodes, want_nodes, 4));
    TEST_CHECK(same_list(g->leafs, g->n_leafs, want_leafs, 2));

    TEST_CHECK(use_count(g, a) == 2); // c, d
    TEST_CHECK(use_count(g, b) == 1); // c
    TEST_CHECK(use_count(g, c) == 2); // d, e
    TEST_CHECK(use_count(g, d) == 1); // e
    TEST_CHECK(use_count(g, e) == 2); // f uses it twice
    TEST_CHECK(use_count(g, f) == 0);

    // every node appears after all of its srcs
    bool topo = true;
    for (int i = 0; i < g->n_nodes; i++) {
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            struct ggml_tensor * s = g->nodes[i]->src[j];
            if (s == NULL || s->op == GGML_OP_NONE) {
                continue;
            }
            bool before = false;
            for (int k = 0; k < i; k++) {
                before = before || g->nodes[k] == s;
            }
            topo = topo && before;
        }
    }
    TEST_CHECK(topo);

    // src[] order matters: swapping the srcs of e visits d (and through it c) first
    struct ggml_tensor * e2 = mk_op(ctx, GGML_OP_SUB, d, c, "e2");
    struct ggml_cgraph * g2 = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g2, e2);
    struct ggml_tensor * want2[] = { c, d, e2 };
    TEST_CHECK(same_list(g2->nodes, g2->n_nodes, want2, 3));

    // independent branches: src[0]'s branch first, then src[1]'s, then src[2]'s
    struct ggml_tensor * x = mk_leaf(ctx, "x");
    struct ggml_tensor * y = mk_leaf(ctx, "y");
    struct ggml_tensor * p = mk_op(ctx, GGML_OP_SQR, x, NULL, "p");
    struct ggml_tensor * q = mk_op(ctx, GGML_OP_SQRT, y, NULL, "q");
    struct ggml_tensor * r = mk_op(ctx, GGML_OP_ADD, p, q, "r");
    struct ggml_tensor * w = mk_leaf(ctx, "w");
    r->src[2] = w;
    struct ggml_cgraph * g3 = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g3, r);
    struct ggml_tensor * want3_nodes[] = { p, q, r };
    struct ggml_tensor * want3_leafs[] = { x, y, w };
    TEST_CHECK(same_list(g3->nodes, g3->n_nodes, want3_nodes, 3));
    TEST_CHECK(same_list(g3->leafs, g3->n_leafs, want3_leafs, 3));

    ggml_free(ctx);
}

static void test_params_and_names(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    struct ggml_tensor * w = mk_leaf(ctx, "w");
    struct ggml_tensor * x = mk_leaf(ctx, NULL);  // unnamed
    ggml_set_param(w);
    struct ggml_tensor * y = mk_op(ctx, GGML_OP_MUL, w, x, NULL); // unnamed
    struct ggml_tensor * z = mk_op(ctx, GGML_OP_SQR, y, NULL, "z");

    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 8, false);
    ggml_build_forward_expand(g, z);

    // a parameter without an op is a node (the family keeps it with the nodes for gradients)
    struct ggml_tensor * want_nodes[] = { w, y, z };
    struct ggml_tensor * want_leafs[] = { x };
    TEST_CHECK(same_list(g->nodes, g->n_nodes, want_nodes, 3));
    TEST_CHECK(same_list(g->leafs, g->n_leafs, want_leafs, 1));
    TEST_CHECK(!(w->flags & GGML_TENSOR_FLAG_COMPUTE)); // no op to compute

    // unnamed tensors are named after their position
    TEST_CHECK(strcmp(x->name, "leaf_0") == 0);
    TEST_CHECK_MSG(strcmp(y->name, "node_1") == 0, "y is named '%s'", y->name);
    TEST_CHECK(strcmp(w->name, "w") == 0 && strcmp(z->name, "z") == 0);

    // lookups by name over nodes and leafs
    TEST_CHECK(ggml_graph_get_tensor(g, "w") == w);
    TEST_CHECK(ggml_graph_get_tensor(g, "leaf_0") == x);
    TEST_CHECK(ggml_graph_get_tensor(g, "node_1") == y);
    TEST_CHECK(ggml_graph_get_tensor(g, "z") == z);
    TEST_CHECK(ggml_graph_get_tensor(g, "nope") == NULL);
    TEST_CHECK(ggml_graph_get_tensor(g, NULL) == NULL);
    TEST_CHECK(ggml_graph_get_tensor(NULL, "z") == NULL);

    // no gradients in a graph made without them
    TEST_CHECK(ggml_graph_get_grad(g, z) == NULL);
    TEST_CHECK(ggml_graph_get_grad_acc(g, z) == NULL);
    ggml_graph_reset(g); // a no-op without gradients
    TEST_CHECK(g->n_nodes == 3 && g->n_leafs == 1);

    ggml_free(ctx);
}

static void test_node_index(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    struct ggml_tensor * prev = mk_leaf(ctx, "a");
    struct ggml_tensor * n[5];
    for (int i = 0; i < 5; i++) {
        n[i] = mk_op(ctx, GGML_OP_SCALE, prev, NULL, NULL);
        prev = n[i];
    }
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 8, false);
    ggml_build_forward_expand(g, n[4]);
    TEST_CHECK(g->n_nodes == 5);

    TEST_CHECK(ggml_graph_node(g, 0) == n[0]);
    TEST_CHECK(ggml_graph_node(g, 4) == n[4]);
    TEST_CHECK(ggml_graph_node(g, -1) == n[4]);
    TEST_CHECK(ggml_graph_node(g, -2) == n[3]);
    TEST_CHECK(ggml_graph_node(g, -5) == n[0]);

    test_log_capture_begin();
    TEST_CHECK(ggml_graph_node(g, 5) == NULL);
    TEST_CHECK(ggml_graph_node(g, -6) == NULL);
    TEST_CHECK(ggml_graph_node(NULL, 0) == NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();

    // add_node appends without a traversal and refuses when full
    struct ggml_tensor * extra[4];
    for (int i = 0; i < 4; i++) {
        extra[i] = mk_leaf(ctx, NULL);
    }
    ggml_graph_add_node(g, extra[0]);
    ggml_graph_add_node(g, extra[1]);
    ggml_graph_add_node(g, extra[2]);
    TEST_CHECK(g->n_nodes == 8 && ggml_graph_node(g, -1) == extra[2]);
    test_log_capture_begin();
    ggml_graph_add_node(g, extra[3]);
    ggml_graph_add_node(g, NULL);
    TEST_CHECK(test_log_error_count() == 2);
    test_log_capture_end();
    TEST_CHECK(g->n_nodes == 8 && ggml_graph_node(g, 7) == extra[2]);

    ggml_free(ctx);
}

static void test_overflow(void) {
    struct ggml_context * ctx = new_ctx(1 << 22, true);

    // chain of 5 nodes into a graph of size 3
    struct ggml_tensor * prev = mk_leaf(ctx, "x");
    struct ggml_tensor * n[5];
    for (int i = 0; i < 5; i++) {
        n[i] = mk_op(ctx, GGML_OP_SQR, prev, NULL, NULL);
        prev = n[i];
    }
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 3, false);
    test_log_capture_begin();
    ggml_build_forward_expand(g, n[4]);
    TEST_CHECK(g->overflow);
    TEST_CHECK(test_log_error_count() == 1);
    TEST_CHECK(strstr(test_log_text(), "ggml_build_forward_expand") != NULL);
    TEST_CHECK(g->n_nodes <= 3 && g->n_leafs <= 3);
    // what was added is a valid prefix: every node's srcs come first
    for (int i = 0; i < g->n_nodes; i++) {
        TEST_CHECK(g->nodes[i] == n[i]);
    }
    // later expands do not add, nor log again at error level
    ggml_build_forward_expand(g, n[0]);
    ggml_build_forward_expand(g, n[4]);
    TEST_CHECK(test_log_error_count() == 1);
    test_log_capture_end();

    // clear makes it usable again
    ggml_graph_clear(g);
    TEST_CHECK(!g->overflow && g->n_nodes == 0 && g->n_leafs == 0);
    ggml_build_forward_expand(g, n[1]);
    TEST_CHECK(!g->overflow && g->n_nodes == 2 && g->nodes[0] == n[0] && g->nodes[1] == n[1]);
    TEST_CHECK(use_count(g, n[2]) == -1); // forgotten by clear

    // too many leafs: one node with 4 leaf srcs in a graph of size 3
    struct ggml_tensor * l[4];
    for (int i = 0; i < 4; i++) {
        l[i] = mk_leaf(ctx, NULL);
    }
    struct ggml_tensor * m = mk_op(ctx, GGML_OP_ADD, l[0], l[1], "m");
    m->src[2] = l[2];
    m->src[3] = l[3];
    struct ggml_cgraph * g2 = ggml_new_graph_custom(ctx, 3, false);
    test_log_capture_begin();
    ggml_build_forward_expand(g2, m);
    TEST_CHECK(g2->overflow && test_log_error_count() == 1);
    TEST_CHECK(g2->n_leafs == 3 && g2->n_nodes == 0);
    test_log_capture_end();

    // exactly full is fine
    struct ggml_tensor * m3 = mk_op(ctx, GGML_OP_ADD, l[0], l[1], "m3");
    m3->src[2] = l[2];
    struct ggml_cgraph * g3 = ggml_new_graph_custom(ctx, 3, false);
    ggml_build_forward_expand(g3, m3);
    TEST_CHECK(!g3->overflow && g3->n_leafs == 3 && g3->n_nodes == 1);

    // size 1: one node and one leaf fit
    struct ggml_cgraph * g1 = ggml_new_graph_custom(ctx, 1, false);
    ggml_build_forward_expand(g1, n[0]);
    TEST_CHECK(!g1->overflow && g1->n_nodes == 1 && g1->n_leafs == 1);
    test_log_capture_begin();
    ggml_build_forward_expand(g1, n[1]);
    TEST_CHECK(g1->overflow && test_log_error_count() == 1 && g1->n_nodes == 1);
    test_log_capture_end();

    // NULL arguments
    test_log_capture_begin();
    ggml_build_forward_expand(NULL, n[0]);
    ggml_build_forward_expand(g3, NULL);
    TEST_CHECK(test_log_error_count() == 2);
    test_log_capture_end();

    ggml_free(ctx);
}

static void test_graph_memory(void) {
    const size_t ov = ggml_graph_overhead();
    TEST_CHECK(ov == ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false));
    // at least the node and leaf arrays, the hash keys (>= 2*size) and the struct
    TEST_CHECK(ov >= sizeof(struct ggml_cgraph) + 4 * GGML_DEFAULT_GRAPH_SIZE * sizeof(void *));
    TEST_CHECK(ggml_graph_overhead_custom(100, true) > ggml_graph_overhead_custom(100, false));
    TEST_CHECK(ggml_graph_overhead_custom(200, false) > ggml_graph_overhead_custom(100, false));

    // a context of exactly the overhead holds the graph, one byte less does not
    const size_t ov10 = ggml_graph_overhead_custom(10, false);
    struct ggml_context * ctx = new_ctx(ov10, true);
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 10, false);
    TEST_CHECK(g != NULL);
    TEST_CHECK(ggml_used_mem(ctx) == ov10);
    TEST_CHECK(ctx->objects_begin != NULL && ctx->objects_begin->type == GGML_OBJECT_TYPE_GRAPH);
    ggml_free(ctx);

    char * buf = aligned_alloc(64, 1 << 16);
    struct ggml_init_params p = { ov10 - 1, buf, false };
    ctx = ggml_init(p);
    test_log_capture_begin();
    TEST_CHECK(ggml_new_graph_custom(ctx, 10, false) == NULL);
    TEST_CHECK(test_log_error_count() >= 1);
    TEST_CHECK(strstr(test_log_text(), "ggml_new_graph_custom") != NULL);
    test_log_capture_end();
    TEST_CHECK(ggml_used_mem(ctx) == 0);
    ggml_free(ctx);
    free(buf);

    // invalid sizes and a NULL context
    ctx = new_ctx(1 << 20, false);
    test_log_capture_begin();
    TEST_CHECK(ggml_new_graph_custom(ctx, 0, false) == NULL);
    TEST_CHECK(ggml_new_graph_custom(ctx, (size_t) INT32_MAX + 1, false) == NULL);
    TEST_CHECK(ggml_new_graph_custom(NULL, 10, false) == NULL);
    TEST_CHECK(ggml_new_graph(NULL) == NULL);
    TEST_CHECK(test_log_error_count() == 4);
    test_log_capture_end();

    // a graph with grads has them zeroed; tensors and graphs share the arena
    struct ggml_tensor * a = mk_leaf(ctx, "a");
    struct ggml_cgraph * gg = ggml_new_graph_custom(ctx, 10, true);
    struct ggml_tensor * b = mk_op(ctx, GGML_OP_SQR, a, NULL, "b");
    TEST_CHECK(gg != NULL && gg->grads != NULL && gg->grad_accs != NULL);
    ggml_build_forward_expand(gg, b);
    TEST_CHECK(gg->n_nodes == 1 && gg->n_leafs == 1);
    TEST_CHECK(ggml_graph_get_grad(gg, b) == NULL && ggml_graph_get_grad_acc(gg, a) == NULL);
    ggml_graph_reset(gg);
    TEST_CHECK(ggml_get_first_tensor(ctx) == a && ggml_get_next_tensor(ctx, a) == b);

    // a graph in a no_alloc context
    struct ggml_context * ctx_na = new_ctx(ggml_graph_overhead() + 4 * ggml_tensor_overhead(), true);
    TEST_CHECK(ggml_new_graph(ctx_na) != NULL);
    ggml_free(ctx_na);
    ggml_free(ctx);
}

static void test_cpy_dup_view(void) {
    struct ggml_context * ctx = new_ctx(1 << 22, true);
    struct ggml_tensor * a = mk_leaf(ctx, "a");
    struct ggml_tensor * b = mk_leaf(ctx, "b");
    struct ggml_tensor * c = mk_op(ctx, GGML_OP_ADD, a, b, "c");
    struct ggml_tensor * d = mk_op(ctx, GGML_OP_MUL, c, a, "d");
    struct ggml_tensor * e = mk_op(ctx, GGML_OP_SUB, c, d, "e");
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g, e);

    // dup: same nodes, leafs and use counts; its hash set knows the tensors
    struct ggml_cgraph * g2 = ggml_graph_dup(ctx, g, false);
    TEST_CHECK(g2 != NULL && g2 != g);
    TEST_CHECK(g2->size == 16 && g2->grads == NULL);
    TEST_CHECK(same_list(g2->nodes, g2->n_nodes, g->nodes, g->n_nodes));
    TEST_CHECK(same_list(g2->leafs, g2->n_leafs, g->leafs, g->n_leafs));
    TEST_CHECK(use_count(g2, a) == 2 && use_count(g2, b) == 1 && use_count(g2, c) == 2 &&
               use_count(g2, d) == 1 && use_count(g2, e) == 0);
    // expanding the copy with a known tensor does not duplicate it; a new output appends
    ggml_build_forward_expand(g2, d);
    TEST_CHECK(g2->n_nodes == 3);
    struct ggml_tensor * f = mk_op(ctx, GGML_OP_SQR, e, NULL, "f");
    ggml_build_forward_expand(g2, f);
    TEST_CHECK(g2->n_nodes == 4 && g2->nodes[3] == f && g->n_nodes == 3);
    TEST_CHECK(use_count(g2, e) == 1 && use_count(g, e) == 0);

    // dup with gradients forced
    struct ggml_cgraph * g3 = ggml_graph_dup(ctx, g, true);
    TEST_CHECK(g3 != NULL && g3->grads != NULL && g3->grad_accs != NULL);
    TEST_CHECK(same_list(g3->nodes, g3->n_nodes, g->nodes, g->n_nodes));
    TEST_CHECK(ggml_graph_get_grad(g3, e) == NULL);

    // cpy into a bigger graph replaces its content
    struct ggml_cgraph * big = ggml_new_graph_custom(ctx, 32, false);
    ggml_build_forward_expand(big, f);
    ggml_graph_cpy(g, big);
    TEST_CHECK(same_list(big->nodes, big->n_nodes, g->nodes, g->n_nodes));
    TEST_CHECK(use_count(big, f) == -1 && use_count(big, e) == 0);

    // cpy into a graph too small: logged, dst unchanged
    struct ggml_cgraph * small = ggml_new_graph_custom(ctx, 2, false);
    ggml_build_forward_expand(small, c);
    test_log_capture_begin();
    ggml_graph_cpy(g, small);
    TEST_CHECK(test_log_error_count() == 1);
    ggml_graph_cpy(NULL, small);
    ggml_graph_cpy(g, NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();
    TEST_CHECK(small->n_nodes == 1 && small->nodes[0] == c && small->n_leafs == 2);

    // a graph with gradients cannot be copied into one without
    test_log_capture_begin();
    ggml_graph_cpy(g3, big);
    TEST_CHECK(test_log_error_count() == 1);
    test_log_capture_end();

    // view of nodes [1, 3)
    struct ggml_cgraph v = ggml_graph_view(g, 1, 3);
    TEST_CHECK(v.n_nodes == 2 && v.nodes == g->nodes + 1 && v.n_leafs == 0);
    TEST_CHECK(v.nodes[0] == d && v.nodes[1] == e);
    TEST_CHECK(v.size == 0 && v.visited_hash_set.keys == g->visited_hash_set.keys && v.use_counts == g->use_counts && v.grads == NULL);
    TEST_CHECK(ggml_graph_node(&v, -1) == e);
    test_log_capture_begin();
    ggml_build_forward_expand(&v, f); // a view cannot grow
    TEST_CHECK(test_log_error_count() == 1 && v.n_nodes == 2);
    struct ggml_cgraph bad = ggml_graph_view(g, 2, 5);
    TEST_CHECK(bad.n_nodes == 0 && test_log_error_count() == 2);
    test_log_capture_end();
    struct ggml_cgraph empty = ggml_graph_view(g, 3, 3);
    TEST_CHECK(empty.n_nodes == 0);

    // a view can be copied (and duplicated): the hash set is rebuilt from its nodes
    struct ggml_cgraph * gv = ggml_graph_dup(ctx, &v, false);
    TEST_CHECK(gv != NULL && gv->n_nodes == 2 && gv->nodes[0] == d && gv->nodes[1] == e);
    TEST_CHECK(use_count(gv, d) == 1 && use_count(gv, e) == 0 && use_count(gv, c) == -1);

    ggml_free(ctx);
}

static void test_print_and_dot(void) {
    struct ggml_context * ctx = new_ctx(1 << 22, false);
    struct ggml_tensor * a = mk_leaf(ctx, "in \"quoted\"");
    struct ggml_tensor * b = ggml_new_f32(ctx, 2.5f);
    ggml_set_name(b, "two_and_a_half");
    struct ggml_tensor * c = mk_op(ctx, GGML_OP_MUL, a, b, "prod");
    struct ggml_tensor * d = mk_op(ctx, GGML_OP_ADD, c, a, "sum");
    struct ggml_tensor * e = mk_op(ctx, GGML_OP_SQR, d, NULL, NULL);
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g, e);

    test_log_capture_begin();
    ggml_graph_print(g);
    const char * text = test_log_text();
    TEST_CHECK(strstr(text, "prod") != NULL && strstr(text, "sum") != NULL && strstr(text, "node_2") != NULL);
    TEST_CHECK(strstr(text, "two_and_a_half") != NULL);
    TEST_CHECK(strstr(text, ggml_op_name(GGML_OP_MUL)) != NULL);
    TEST_CHECK(test_log_error_count() == 0);
    test_log_capture_end();

    char path[256];
    snprintf(path, sizeof(path), "/tmp/test-graph-%ld.dot", (long) getpid());
    test_log_capture_begin();
    ggml_graph_dump_dot(g, NULL, path);
    TEST_CHECK(test_log_error_count() == 0);
    test_log_capture_end();

    FILE * fp = fopen(path, "rb");
    TEST_CHECK(fp != NULL);
    if (fp != NULL) {
        static char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
        buf[n] = '\0';
        fclose(fp);
        TEST_CHECK(strncmp(buf, "digraph", 7) == 0);
        TEST_CHECK(strstr(buf, "in \\\"quoted\\\"") != NULL); // escaped quotes
        for (int i = 0; i < g->n_nodes; i++) {
            TEST_CHECK_MSG(strstr(buf, g->nodes[i]->name) != NULL, "node '%s' missing from the dot file", g->nodes[i]->name);
        }
        TEST_CHECK(strstr(buf, "two_and_a_half") != NULL);
        TEST_CHECK(strstr(buf, "2.5") != NULL); // the value of a scalar leaf
        // one edge per (node, src): prod<-a,b  sum<-prod,a  node_2<-sum
        int edges = 0;
        for (const char * p = buf; (p = strstr(p, "->")) != NULL; p += 2) {
            edges++;
        }
        TEST_CHECK_MSG(edges == 5, "%d edges", edges);
        char edge[128];
        snprintf(edge, sizeof(edge), "\"%p\" -> \"%p\"", (void *) c, (void *) d);
        TEST_CHECK(strstr(buf, edge) != NULL);
        remove(path);
    }

    // gb NULL: draws gf
    test_log_capture_begin();
    ggml_graph_dump_dot(NULL, g, path);
    test_log_capture_end();
    fp = fopen(path, "rb");
    TEST_CHECK(fp != NULL);
    if (fp != NULL) {
        fclose(fp);
        remove(path);
    }

    // unwritable path or no graph: logged, no crash
    test_log_capture_begin();
    ggml_graph_dump_dot(g, NULL, "/nonexistent-dir-for-test-graph/x.dot");
    ggml_graph_dump_dot(NULL, NULL, path);
    ggml_graph_print(NULL);
    TEST_CHECK(test_log_error_count() == 3);
    test_log_capture_end();

    ggml_free(ctx);
}

static void test_deep_chain(void) {
    const int n = 100000;
    struct ggml_context * ctx = new_ctx((size_t)(n + 8) * ggml_tensor_overhead() + 2 * ggml_graph_overhead_custom((size_t) n + 1, false), true);
    TEST_CHECK(ctx != NULL);
    struct ggml_tensor ** chain = malloc((size_t) n * sizeof(*chain));
    struct ggml_tensor * x = mk_leaf(ctx, "x");
    struct ggml_tensor * prev = x;
    for (int i = 0; i < n; i++) {
        chain[i] = mk_op(ctx, GGML_OP_SCALE, prev, NULL, NULL);
        prev = chain[i];
    }
    TEST_CHECK(prev != NULL);

    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, (size_t) n + 1, false);
    TEST_CHECK(g != NULL);
    ggml_build_forward_expand(g, chain[n - 1]);
    TEST_CHECK(!g->overflow);
    TEST_CHECK(g->n_nodes == n && g->n_leafs == 1 && g->leafs[0] == x);
    bool in_order = true;
    for (int i = 0; i < n && i < g->n_nodes; i++) {
        in_order = in_order && g->nodes[i] == chain[i];
    }
    TEST_CHECK(in_order);
    TEST_CHECK(use_count(g, chain[n / 2]) == 1 && use_count(g, chain[n - 1]) == 0);
    TEST_CHECK(strcmp(chain[n - 1]->name, "node_99999") == 0);

    // the same chain into a small graph stops early with the overflow flag
    struct ggml_context * ctx2 = new_ctx(ggml_graph_overhead_custom(64, false), true);
    struct ggml_cgraph * gs = ggml_new_graph_custom(ctx2, 64, false);
    test_log_capture_begin();
    ggml_build_forward_expand(gs, chain[n - 1]);
    TEST_CHECK(gs->overflow && test_log_error_count() == 1 && gs->n_nodes <= 64);
    test_log_capture_end();

    // the traversal stack of a deep graph is the only allocation: when it fails, the graph
    // is flagged and nothing leaks
    ggml_graph_clear(g);
    test_log_capture_begin();
    test_alloc_fault_set(1);
    ggml_build_forward_expand(g, chain[n - 1]);
    test_alloc_fault_set(0);
    TEST_CHECK(g->overflow && test_log_error_count() == 1);
    TEST_CHECK(strstr(test_log_text(), "out of memory") != NULL);
    test_log_capture_end();
    // and it recovers after a clear
    ggml_graph_clear(g);
    ggml_build_forward_expand(g, chain[n - 1]);
    TEST_CHECK(!g->overflow && g->n_nodes == n);

    // shallow graphs allocate nothing
    struct ggml_cgraph * g5 = ggml_new_graph_custom(ctx2 == NULL ? ctx : ctx, 8, false);
    if (g5 != NULL) {
        test_alloc_fault_set(0);
        long before = test_alloc_fault_count();
        ggml_build_forward_expand(g5, chain[4]);
        TEST_CHECK(test_alloc_fault_count() == before && g5->n_nodes == 5);
    }

    free(chain);
    ggml_free(ctx2);
    ggml_free(ctx);
}

static void test_cycle(void) {
    // constructors cannot make cycles, but hand-made tensors can: the traversal must end
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    struct ggml_tensor * a = mk_leaf(ctx, "a");
    struct ggml_tensor * b = mk_op(ctx, GGML_OP_ADD, a, NULL, "b");
    struct ggml_tensor * c = mk_op(ctx, GGML_OP_MUL, b, NULL, "c");
    b->src[1] = c; // b -> c -> b
    struct ggml_tensor * s = mk_op(ctx, GGML_OP_SQR, NULL, NULL, "s");
    s->src[0] = s; // self loop
    struct ggml_cgraph * g = ggml_new_graph_custom(ctx, 16, false);
    ggml_build_forward_expand(g, c);
    ggml_build_forward_expand(g, s);
    TEST_CHECK(!g->overflow);
    TEST_CHECK(g->n_nodes == 3 && g->n_leafs == 1);
    int seen_b = 0, seen_c = 0, seen_s = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        seen_b += g->nodes[i] == b;
        seen_c += g->nodes[i] == c;
        seen_s += g->nodes[i] == s;
    }
    TEST_CHECK(seen_b == 1 && seen_c == 1 && seen_s == 1);
    ggml_free(ctx);
}

// the same traversal over graphs made by the op constructors
static void test_real_ops(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, false);
    struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4, 3);
    struct ggml_tensor * s   = ggml_add(ctx, a, b);
    struct ggml_tensor * m   = ggml_mul(ctx, s, a);
    struct ggml_tensor * v   = ggml_view_1d(ctx, m, 4, 0);
    struct ggml_tensor * sv  = ggml_sum(ctx, v);
    struct ggml_tensor * r   = ggml_reshape_2d(ctx, m, 3, 4);
    struct ggml_tensor * t   = ggml_transpose(ctx, r);
    struct ggml_tensor * c   = ggml_cont(ctx, t);
    struct ggml_tensor * sc  = ggml_sum(ctx, c);
    struct ggml_tensor * out = ggml_add(ctx, sv, sc);
    struct ggml_tensor * cst = ggml_cast(ctx, out, GGML_TYPE_F16);
    struct ggml_tensor * ar  = ggml_arange(ctx, 0.0f, 4.0f, 1.0f);
    TEST_CHECK(a && b && s && m && v && sv && r && t && c && sc && out && cst && ar);
    if (!(a && b && s && m && v && sv && r && t && c && sc && out && cst && ar)) {
        ggml_free(ctx);
        return;
    }

    struct ggml_cgraph * g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, cst);
    ggml_build_forward_expand(g, ar); // an op without inputs is a node
    struct ggml_tensor * want_nodes[] = { s, m, v, sv, r, t, c, sc, out, cst, ar };
    struct ggml_tensor * want_leafs[] = { a, b };
    TEST_CHECK(same_list(g->nodes, g->n_nodes, want_nodes, 11));
    TEST_CHECK(same_list(g->leafs, g->n_leafs, want_leafs, 2));
    TEST_CHECK(use_count(g, m) == 2);   // the view and the reshape
    TEST_CHECK(use_count(g, a) == 2);   // add and mul
    TEST_CHECK(use_count(g, out) == 1);
    TEST_CHECK(use_count(g, ar) == 0);
    // ggml_cast lists its own result as src[1], as in the family: counted, visited once
    TEST_CHECK(use_count(g, cst) == 1);
    TEST_CHECK((v->flags & GGML_TENSOR_FLAG_COMPUTE) && (ar->flags & GGML_TENSOR_FLAG_COMPUTE));
    TEST_CHECK(ggml_graph_node(g, -1) == ar && ggml_graph_node(g, -2) == cst);

    ggml_free(ctx);
}

static bool is_prime(size_t n) {
    if (n < 2) {
        return false;
    }
    for (size_t d = 2; d * d <= n; d++) {
        if (n % d == 0) {
            return false;
        }
    }
    return true;
}

static void test_hash_set(void) {
    // sizes: primes >= the request, from a table growing about 2x
    TEST_CHECK(ggml_hash_size(0) == 2);
    TEST_CHECK(ggml_hash_size(1) == 2);
    TEST_CHECK(ggml_hash_size(2) == 2);
    TEST_CHECK(ggml_hash_size(3) == 3);
    TEST_CHECK(ggml_hash_size(4) == 5);
    TEST_CHECK(ggml_hash_size(12) == 17);
    TEST_CHECK(ggml_hash_size(4096) == 4099);
    TEST_CHECK(ggml_hash_size(4099) == 4099);
    TEST_CHECK(ggml_hash_size(4100) == 8209);
    bool ok = true;
    for (size_t n = 0; n < 70000; n += 7) {
        const size_t h = ggml_hash_size(n);
        ok = ok && h >= n && is_prime(h) && h <= 2 * n + 40;
    }
    TEST_CHECK(ok);
    if (sizeof(size_t) >= 8) {
        const size_t big = (size_t) 3000000000u;
        TEST_CHECK(ggml_hash_size(big) == (big | 1));
        TEST_CHECK(ggml_hash_size(big + 1) == big + 1);
    }

    static struct ggml_tensor tensors[40];
    struct ggml_hash_set hs = ggml_hash_set_new(10);
    TEST_CHECK(hs.size == 11 && hs.keys != NULL && hs.used != NULL);

    for (int i = 0; i < 11; i++) {
        TEST_CHECK(!ggml_hash_contains(&hs, &tensors[i]));
    }
    size_t slots[11];
    for (int i = 0; i < 11; i++) {
        slots[i] = ggml_hash_insert(&hs, &tensors[i]);
        TEST_CHECK(slots[i] < hs.size);
        TEST_CHECK(hs.keys[slots[i]] == &tensors[i]);
    }
    // all slots distinct
    bool distinct = true;
    for (int i = 0; i < 11; i++) {
        for (int j = 0; j < i; j++) {
            distinct = distinct && slots[i] != slots[j];
        }
    }
    TEST_CHECK(distinct);
    for (int i = 0; i < 11; i++) {
        TEST_CHECK(ggml_hash_contains(&hs, &tensors[i]));
        TEST_CHECK(ggml_hash_find(&hs, &tensors[i]) == slots[i]);
        TEST_CHECK(ggml_hash_insert(&hs, &tensors[i]) == GGML_HASHSET_ALREADY_EXISTS);
        TEST_CHECK(ggml_hash_find_or_insert(&hs, &tensors[i]) == slots[i]);
    }
    // full: a new key finds no slot
    TEST_CHECK(ggml_hash_insert(&hs, &tensors[20]) == GGML_HASHSET_FULL);
    TEST_CHECK(ggml_hash_find_or_insert(&hs, &tensors[20]) == GGML_HASHSET_FULL);
    TEST_CHECK(!ggml_hash_contains(&hs, &tensors[20]));

    ggml_hash_set_reset(&hs);
    TEST_CHECK(!ggml_hash_contains(&hs, &tensors[0]) && !ggml_hash_contains(&hs, &tensors[10]));
    TEST_CHECK(ggml_hash_insert(&hs, &tensors[20]) < hs.size);
    TEST_CHECK(ggml_hash_contains(&hs, &tensors[20]) && !ggml_hash_contains(&hs, &tensors[21]));

    ggml_hash_set_free(&hs);
    TEST_CHECK(hs.size == 0 && hs.keys == NULL && hs.used == NULL);
    ggml_hash_set_free(&hs); // twice is harmless
    ggml_hash_set_reset(&hs);
    ggml_hash_set_free(NULL);

    // allocation failures: each of the two allocations, nothing leaks (checked by ASan)
    for (long k = 1; k <= 2; k++) {
        test_log_capture_begin();
        test_alloc_fault_set(k);
        struct ggml_hash_set f = ggml_hash_set_new(100);
        test_alloc_fault_set(0);
        TEST_CHECK(f.size == 0 && f.keys == NULL && f.used == NULL);
        TEST_CHECK(test_log_error_count() == 1);
        test_log_capture_end();
        ggml_hash_set_free(&f);
    }
}

static void fill(struct ggml_tensor * t, float v) {
    float * d = (float *) t->data;
    for (int64_t i = 0; i < ggml_nelements(t); i++) {
        d[i] = v + (float) i;
    }
}

// ggml_build_forward_select computes only the chosen branch (the graph holds all of them);
// ggml_build_forward_order adds nodes that are computed only once a computed node reaches them
static void test_select_and_order(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, false);
    struct ggml_tensor * a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    struct ggml_tensor * b = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    fill(a, 1.0f);
    fill(b, 100.0f);
    struct ggml_tensor * shared = ggml_scale(ctx, a, 2.0f);
    struct ggml_tensor * br[3] = { ggml_add(ctx, shared, b), ggml_mul(ctx, shared, b), ggml_sub(ctx, b, shared) };
    for (int idx = 0; idx < 3; idx++) {
        for (int k = 0; k < 3; k++) fill(br[k], -7.0f);
        fill(shared, -7.0f);
        struct ggml_cgraph * g = ggml_new_graph(ctx);
        struct ggml_tensor * out = ggml_build_forward_select(g, br, 3, idx);
        TEST_CHECK(out == br[idx]);
        TEST_CHECK(ggml_graph_n_nodes(g) == 4);   // shared and the three branches
        TEST_CHECK(ggml_graph_compute_with_ctx(ctx, g, 2) == GGML_STATUS_SUCCESS);
        bool ok = true;
        for (int i = 0; i < 8; i++) {
            const float x = 2.0f * (1.0f + (float) i), y = 100.0f + (float) i;
            const float want[3] = { x + y, x * y, y - x };
            for (int k = 0; k < 3; k++) {
                const float got = ((float *) br[k]->data)[i];
                ok = ok && (k == idx ? got == want[k] : got == -7.0f + (float) i);   // others untouched
            }
        }
        TEST_CHECK(ok);
        TEST_CHECK((br[idx]->flags & GGML_TENSOR_FLAG_COMPUTE) && (shared->flags & GGML_TENSOR_FLAG_COMPUTE));
        TEST_CHECK(!(br[(idx + 1) % 3]->flags & GGML_TENSOR_FLAG_COMPUTE));
        for (int k = 0; k < 3; k++) br[k]->flags &= ~GGML_TENSOR_FLAG_COMPUTE;   // fresh flags for the next graph
        shared->flags &= ~GGML_TENSOR_FLAG_COMPUTE;
    }
    struct ggml_cgraph * g = ggml_new_graph(ctx);
    test_log_capture_begin();
    TEST_CHECK(ggml_build_forward_select(g, br, 3, 3) == NULL);    // out of range: NULL, logged
    TEST_CHECK(ggml_build_forward_select(g, br, 3, -1) == NULL);
    TEST_CHECK(ggml_build_forward_select(g, NULL, 3, 0) == NULL);
    test_log_capture_end();

    // order first (nothing marked), then a computed node reaches the ordered chain: all computed
    struct ggml_tensor * s1 = ggml_scale(ctx, a, 3.0f);
    struct ggml_tensor * s2 = ggml_add(ctx, s1, b);
    struct ggml_tensor * s3 = ggml_mul(ctx, s2, s2);
    g = ggml_new_graph(ctx);
    ggml_build_forward_order(g, s2);
    TEST_CHECK(ggml_graph_n_nodes(g) == 2 && !(s1->flags & GGML_TENSOR_FLAG_COMPUTE) && !(s2->flags & GGML_TENSOR_FLAG_COMPUTE));
    ggml_build_forward_expand(g, s3);
    TEST_CHECK(ggml_graph_n_nodes(g) == 3 && g->nodes[0] == s1 && g->nodes[1] == s2 && g->nodes[2] == s3);
    TEST_CHECK((s1->flags & GGML_TENSOR_FLAG_COMPUTE) && (s2->flags & GGML_TENSOR_FLAG_COMPUTE) &&
               (s3->flags & GGML_TENSOR_FLAG_COMPUTE));
    TEST_CHECK(!(a->flags & GGML_TENSOR_FLAG_COMPUTE));   // leafs are never marked
    TEST_CHECK(ggml_graph_compute_with_ctx(ctx, g, 1) == GGML_STATUS_SUCCESS);
    const float v = 3.0f * 1.0f + 100.0f;
    TEST_CHECK(((float *) s3->data)[0] == v * v);
    ggml_free(ctx);
}

static void test_contiguity_queries(void) {
    struct ggml_context * ctx = new_ctx(1 << 20, true);
    struct ggml_tensor * t = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 8, 6, 4, 2);
    struct ggml_tensor * p = ggml_permute(ctx, t, 0, 2, 1, 3);       // dims 1 and 2 swapped
    struct ggml_tensor * v = ggml_view_3d(ctx, t, 4, 6, 4, t->nb[1], t->nb[2], 0);  // rows cut to 4
    struct ggml_tensor * q = ggml_transpose(ctx, t);
    TEST_CHECK(ggml_is_contiguous_to_1(t) && ggml_is_contiguous_to_2(t) && ggml_is_contiguous_to_3(t));
    TEST_CHECK(ggml_is_contiguous_to_1(p) && !ggml_is_contiguous_to_2(p) && !ggml_is_contiguous_to_3(p));
    TEST_CHECK(ggml_is_contiguous_to_1(v) && !ggml_is_contiguous_to_2(v));
    TEST_CHECK(!ggml_is_contiguous_to_1(q));
    TEST_CHECK(!ggml_is_view(t) && ggml_is_view(p) && ggml_is_view(v) && ggml_is_view(q) && !ggml_is_view(NULL));
    TEST_CHECK(!ggml_is_contiguous_to_1(NULL));
    ggml_free(ctx);
}

int main(void) {
    test_chain();
    test_diamond();
    test_params_and_names();
    test_node_index();
    test_overflow();
    test_graph_memory();
    test_cpy_dup_view();
    test_print_and_dot();
    test_deep_chain();
    test_cycle();
    test_real_ops();
    test_hash_set();
    test_select_and_order();
    test_contiguity_queries();
    return test_finish("test-graph");
}
