// backend-ops selftest: the tool checked against the REF device (refdev.c).
//
// 1. Every test case on REF without a fault must pass: this validates the case table (the
//    constructors accept every case, the reference covers it) and the runner's bookkeeping
//    (views, in-place results, sentinels, the host mirror).
// 2. For each fault, a sample of the cases it applies to runs on REF with that fault; every one
//    of them must be reported as a failure, showing that each check of the runner can fail.

#include "bops.h"

#include <stdio.h>
#include <string.h>

// about this many applicable cases are run with each fault (spread over the table)
#define BOPS_SELFTEST_SAMPLES 150

static const struct ggml_tensor * bops_root_of(const struct ggml_tensor * t) {
    while (t->view_src != NULL) {
        t = t->view_src;
    }
    return t;
}

static bool bops_is_input(const struct bop_graph * g, const struct ggml_tensor * t) {
    for (int i = 0; i < g->n_inputs; i++) {
        if (g->inputs[i].t == t) {
            return true;
        }
    }
    return false;
}

// Whether the fault is one the runner is expected to catch for case c.
static bool bops_fault_applies(enum bops_fault fault, const struct bop_case * c) {
    struct bop_graph g;
    char err[256];
    const struct ggml_tensor * out = bops_graph_build(&g, c, err, sizeof(err));
    bool applies = false;
    if (out != NULL) {
        const bool is_view = out->view_src != NULL;
        const bool int_out = out->type == GGML_TYPE_I32 || out->type == GGML_TYPE_I64;
        const struct ggml_tensor * src0 = out->src[0];
        switch (fault) {
            case BOPS_FAULT_NONE:
            case BOPS_FAULT_NOISE:
            case BOPS_FAULT_STATUS:
                applies = true;
                break;
            case BOPS_FAULT_NAN:
                applies = !int_out;
                break;
            case BOPS_FAULT_SKIP:
            case BOPS_FAULT_OOB:
                // view results have no NaN pattern and share their allocation with an input
                applies = !is_view && ggml_nelements(out) > 0;
                break;
            case BOPS_FAULT_INPUT:
                applies = src0 != NULL && bops_is_input(&g, bops_root_of(src0)) &&
                          bops_root_of(src0) != bops_root_of(out) && ggml_nbytes(src0) > 0;
                break;
            case BOPS_FAULT_OUTSIDE:
                applies = is_view && out->view_offs > 0 && bops_is_input(&g, bops_root_of(out));
                break;
            case BOPS_FAULT_SWAP:
                // two indices of one row of distinct values: swapping them always changes the order
                applies = (out->op == GGML_OP_ARGSORT || out->op == GGML_OP_TOP_K) &&
                          strstr(c->params, "distinct") != NULL && out->ne[0] >= 2;
                break;
            default:
                break;
        }
    }
    bops_graph_free(&g);
    return applies;
}

int bops_selftest(const struct bop_cases * cases, const struct bop_options * opt) {
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(bops_refdev_reg(), 0);
    ggml_backend_t backend = dev != NULL ? ggml_backend_dev_init(dev, NULL) : NULL;
    if (backend == NULL) {
        printf("backend-ops selftest: cannot create the REF backend\n");
        printf("backend-ops: 0 passed, 1 failed\n");
        return 1;
    }
    int n_pass = 0;
    int n_fail = 0;

    // 1. the whole table on the exact reference
    bops_refdev_set_fault(BOPS_FAULT_NONE);
    int n_ok = 0, n_run = 0;
    for (int i = 0; i < cases->n; i++) {
        const struct bop_case * c = &cases->v[i];
        if (!(c->modes & BOP_MODE_TEST)) {
            continue;
        }
        char msg[512] = "";
        bops_log_begin();
        const enum bop_status st = bops_run_test(backend, c, opt, msg, sizeof(msg));
        n_run++;
        if (st == BOP_PASS) {
            n_ok++;
        } else {
            printf("  %s(%s): %s\n", c->op, c->params, st == BOP_UNSUPPORTED ? "not supported by REF" : msg);
        }
        bops_log_end(st != BOP_PASS || opt->verbose);
    }
    printf("  REF without faults: %d/%d cases passed\n", n_ok, n_run);
    n_pass += n_ok;
    n_fail += n_run - n_ok;

    // 2. each fault on a sample of the cases it applies to
    for (int f = BOPS_FAULT_NONE + 1; f < BOPS_FAULT_COUNT; f++) {
        const enum bops_fault fault = (enum bops_fault) f;
        int n_applicable = 0, n_detected = 0, n_tried = 0;
        bops_log_begin();
        for (int i = 0; i < cases->n; i++) {
            n_applicable += (cases->v[i].modes & BOP_MODE_TEST) && bops_fault_applies(fault, &cases->v[i]);
        }
        bops_log_end(false);
        const int stride = n_applicable > BOPS_SELFTEST_SAMPLES ? n_applicable / BOPS_SELFTEST_SAMPLES : 1;
        int k = 0;
        for (int i = 0; i < cases->n; i++) {
            const struct bop_case * c = &cases->v[i];
            if (!(c->modes & BOP_MODE_TEST)) {
                continue;
            }
            bops_log_begin();
            const bool applies = bops_fault_applies(fault, c);
            bops_log_end(false);
            if (!applies || (k++ % stride) != 0) {
                continue;
            }
            char msg[512] = "";
            bops_refdev_set_fault(fault);
            bops_log_begin();
            const enum bop_status st = bops_run_test(backend, c, opt, msg, sizeof(msg));
            bops_log_end(opt->verbose);
            bops_refdev_set_fault(BOPS_FAULT_NONE);
            n_tried++;
            if (st == BOP_FAIL) {
                n_detected++;
                if (opt->verbose) {
                    printf("  [%s] %s(%s): %s\n", bops_fault_name(fault), c->op, c->params, msg);
                }
            } else {
                printf("  [%s] %s(%s): fault not detected (%s)\n", bops_fault_name(fault), c->op, c->params, msg);
            }
        }
        printf("  REF with fault '%s': %d/%d detected\n", bops_fault_name(fault), n_detected, n_tried);
        n_pass += n_detected;
        n_fail += n_tried - n_detected;
        if (n_tried == 0) {
            printf("  REF with fault '%s': no case to try\n", bops_fault_name(fault));
            n_fail++;
        }
    }
    ggml_backend_free(backend);
    printf("backend-ops: %d passed, %d failed\n", n_pass, n_fail);
    return n_fail;
}
