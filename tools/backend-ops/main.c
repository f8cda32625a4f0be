// backend-ops: command line, device loop and summaries.
//
//   backend-ops [test|perf|support|list] [-o OP[,OP...]] [-b BACKEND] [-p REGEX] [-s SEED] [-t N] [-v]
//
// See docs/backend-ops.md.

#define _POSIX_C_SOURCE 200809L

#include "bops.h"
#include "ggml-ref.h"
#include "test-backend.h"

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

//
// log capture
//

static pthread_mutex_t bops_log_mutex = PTHREAD_MUTEX_INITIALIZER;
static char   bops_log_buf[16384];
static size_t bops_log_len = 0;
static bool   bops_log_active = false;

static void bops_log_callback(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) user_data;
    pthread_mutex_lock(&bops_log_mutex);
    if (!bops_log_active) {
        fputs(text, stderr);
    } else {
        const size_t n = strlen(text);
        const size_t room = sizeof(bops_log_buf) - 1 - bops_log_len;
        const size_t k = n < room ? n : room;
        memcpy(bops_log_buf + bops_log_len, text, k);
        bops_log_len += k;
        bops_log_buf[bops_log_len] = '\0';
    }
    pthread_mutex_unlock(&bops_log_mutex);
}

void bops_log_begin(void) {
    pthread_mutex_lock(&bops_log_mutex);
    bops_log_active = true;
    bops_log_len = 0;
    bops_log_buf[0] = '\0';
    pthread_mutex_unlock(&bops_log_mutex);
}

void bops_log_end(bool print) {
    pthread_mutex_lock(&bops_log_mutex);
    bops_log_active = false;
    if (print && bops_log_len > 0) {
        // indent every line under the case it belongs to
        const char * p = bops_log_buf;
        while (*p) {
            const char * e = strchr(p, '\n');
            const size_t n = e ? (size_t) (e - p) : strlen(p);
            printf("      | %.*s\n", (int) n, p);
            p += n + (e ? 1 : 0);
        }
    }
    bops_log_len = 0;
    bops_log_buf[0] = '\0';
    pthread_mutex_unlock(&bops_log_mutex);
}

//
// command line
//

enum bops_mode { BOPS_MODE_TEST, BOPS_MODE_PERF, BOPS_MODE_SUPPORT, BOPS_MODE_LIST, BOPS_MODE_SELFTEST };

struct bops_cli {
    enum bops_mode mode;
    const char * ops;     // comma-separated list, NULL: all
    const char * backend; // device name, NULL: all
    const char * pattern; // regex on the params, NULL: all
    bool has_regex;
    regex_t regex;
    int n_threads;
    bool test_backend;
    bool ref_backend;
    bool skip_missing;    // --skip-missing
    struct bop_options opt;
};

// the exit code ctest counts as "skipped" (SKIP_RETURN_CODE)
#define BOPS_SKIP_RETURN_CODE 77

static void bops_usage(const char * argv0) {
    printf("usage: %s [mode] [options]\n", argv0);
    printf("modes:\n");
    printf("  test     (default) compare every op with the double-precision reference\n");
    printf("  perf     time every op (median of repeated runs), GFLOP/s or GB/s\n");
    printf("  support  markdown table of supports_op: op x backend\n");
    printf("  list     print the cases (with their bounds) without running them\n");
    printf("  selftest run the cases on the built-in REF device, exact and with injected faults\n");
    printf("options:\n");
    printf("  -o OPS      comma-separated op names (ADD, MUL_MAT, SILU, SWIGLU, ...) or a full OP(params)\n");
    printf("  -b NAME     only the device with this name (e.g. CPU)\n");
    printf("  -p REGEX    only cases whose params match the (extended POSIX) regular expression\n");
    printf("  -s SEED     random seed (default: $BACKEND_OPS_SEED, else the time)\n");
    printf("  -t N        threads for backends that take a thread count (default: online CPUs)\n");
    printf("  -v          verbose: nmse of passing cases, library messages of every case\n");
    printf("  --test-backend  also register the tests' TEST backend (devices TEST, TEST1)\n");
    printf("  --ref-backend   also register the REF device (computes with the reference itself)\n");
    printf("  --skip-missing  a device -b names that is not registered: exit %d (skipped), not an error,\n"
           "                  unless GGML_TEST_REQUIRE_OPENCL is set\n", BOPS_SKIP_RETURN_CODE);
}

static bool bops_parse(int argc, char ** argv, struct bops_cli * cli) {
    memset(cli, 0, sizeof(*cli));
    cli->mode = BOPS_MODE_TEST;
    const char * seed_env = getenv("BACKEND_OPS_SEED");
    cli->opt.seed = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t) time(NULL);
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    cli->n_threads = nproc > 0 ? (int) nproc : 1;
    int i = 1;
    if (i < argc && argv[i][0] != '-') {
        if      (strcmp(argv[i], "test") == 0)    cli->mode = BOPS_MODE_TEST;
        else if (strcmp(argv[i], "perf") == 0)    cli->mode = BOPS_MODE_PERF;
        else if (strcmp(argv[i], "support") == 0) cli->mode = BOPS_MODE_SUPPORT;
        else if (strcmp(argv[i], "list") == 0)    cli->mode = BOPS_MODE_LIST;
        else if (strcmp(argv[i], "selftest") == 0) cli->mode = BOPS_MODE_SELFTEST;
        else {
            fprintf(stderr, "backend-ops: unknown mode '%s'\n", argv[i]);
            return false;
        }
        i++;
    }
    for (; i < argc; i++) {
        const char * a = argv[i];
        const bool has_val = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            bops_usage(argv[0]);
            exit(0);
        } else if (strcmp(a, "--test-backend") == 0) {
            cli->test_backend = true;
        } else if (strcmp(a, "--ref-backend") == 0) {
            cli->ref_backend = true;
        } else if (strcmp(a, "--skip-missing") == 0) {
            cli->skip_missing = true;
        } else if (strcmp(a, "-v") == 0) {
            cli->opt.verbose = true;
        } else if (strcmp(a, "-o") == 0 && has_val) {
            cli->ops = argv[++i];
        } else if (strcmp(a, "-b") == 0 && has_val) {
            cli->backend = argv[++i];
        } else if (strcmp(a, "-p") == 0 && has_val) {
            cli->pattern = argv[++i];
        } else if (strcmp(a, "-s") == 0 && has_val) {
            cli->opt.seed = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "-t") == 0 && has_val) {
            cli->n_threads = atoi(argv[++i]);
            if (cli->n_threads < 1) {
                fprintf(stderr, "backend-ops: -t needs a positive thread count\n");
                return false;
            }
        } else {
            fprintf(stderr, "backend-ops: unknown or incomplete option '%s'\n", a);
            return false;
        }
    }
    if (cli->pattern != NULL) {
        if (regcomp(&cli->regex, cli->pattern, REG_EXTENDED | REG_NOSUB) != 0) {
            fprintf(stderr, "backend-ops: invalid regular expression '%s'\n", cli->pattern);
            return false;
        }
        cli->has_regex = true;
    }
    return true;
}

// -o: a comma-separated list of op names, or full case strings OP(params)
static bool bops_op_selected(const struct bops_cli * cli, const struct bop_case * c) {
    if (cli->ops == NULL) {
        return true;
    }
    char full[sizeof(c->op) + sizeof(c->params) + 4];
    snprintf(full, sizeof(full), "%s(%s)", c->op, c->params);
    const char * p = cli->ops;
    while (*p) {
        const char * e = strchr(p, ',');
        // a full case string contains commas itself: try the rest of the list whole first
        if (strcmp(p, full) == 0) {
            return true;
        }
        const size_t n = e ? (size_t) (e - p) : strlen(p);
        if (n == strlen(c->op) && strncasecmp(p, c->op, n) == 0) {
            return true;
        }
        if (!e) {
            break;
        }
        p = e + 1;
    }
    return false;
}

// -o names only ops the table has: every item of the list is an op name of some case (any case)
// or a full case string OP(params); the first item that is neither is returned in bad
static bool bops_ops_known(const char * ops, const struct bop_cases * cases, char * bad, size_t bad_size) {
    const char * p = ops;
    while (*p) {
        size_t n = 0; // length of the item at p
        for (int i = 0; i < cases->n && n == 0; i++) {
            char full[sizeof(cases->v[i].op) + sizeof(cases->v[i].params) + 4];
            const int len = snprintf(full, sizeof(full), "%s(%s)", cases->v[i].op, cases->v[i].params);
            if (len > 0 && strncmp(p, full, (size_t) len) == 0 && (p[len] == ',' || p[len] == '\0')) {
                n = (size_t) len;
            }
        }
        if (n == 0) {
            const char * e = strchr(p, ',');
            n = e ? (size_t) (e - p) : strlen(p);
            bool known = false;
            for (int i = 0; i < cases->n && !known; i++) {
                known = n == strlen(cases->v[i].op) && strncasecmp(p, cases->v[i].op, n) == 0;
            }
            if (!known) {
                snprintf(bad, bad_size, "%.*s", (int) (n < 200 ? n : 200), p);
                return false;
            }
        }
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    return true;
}

static bool bops_selected(const struct bops_cli * cli, const struct bop_case * c, int mode_flag) {
    if (!(c->modes & mode_flag) || !bops_op_selected(cli, c)) {
        return false;
    }
    return !cli->has_regex || regexec(&cli->regex, c->params, 0, NULL, 0) == 0;
}

static bool bops_dev_selected(const struct bops_cli * cli, ggml_backend_dev_t dev) {
    return cli->backend == NULL || strcasecmp(cli->backend, ggml_backend_dev_name(dev)) == 0;
}

static void bops_set_threads(ggml_backend_t backend, ggml_backend_dev_t dev, int n_threads) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(dev);
    if (reg == NULL) {
        return;
    }
    ggml_backend_set_n_threads_t fn = (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    if (fn != NULL) {
        fn(backend, n_threads);
    }
}

//
// modes
//

// test / perf over one backend; returns the number of failures
static int bops_run_backend(const struct bops_cli * cli, const struct bop_cases * cases, ggml_backend_t backend,
        int * n_passed_total) {
    int n_pass = 0, n_fail = 0, n_unsup = 0;
    const int flag = cli->mode == BOPS_MODE_PERF ? BOP_MODE_PERF : BOP_MODE_TEST;
    for (int i = 0; i < cases->n; i++) {
        const struct bop_case * c = &cases->v[i];
        if (!bops_selected(cli, c, flag)) {
            continue;
        }
        if (cli->mode == BOPS_MODE_PERF) {
            bops_log_begin();
            bool timed = false;
            const bool ok = bops_run_perf(backend, c, &cli->opt, &timed);
            bops_log_end(!ok || cli->opt.verbose);
            n_pass += timed ? 1 : 0;
            continue;
        }
        char msg[512] = "";
        bops_log_begin();
        const enum bop_status st = bops_run_test(backend, c, &cli->opt, msg, sizeof(msg));
        printf("  %s(%s): %s\n", c->op, c->params, msg);
        bops_log_end(st == BOP_FAIL || cli->opt.verbose);
        fflush(stdout);
        switch (st) {
            case BOP_PASS:        n_pass++;  break;
            case BOP_FAIL:        n_fail++;  break;
            case BOP_UNSUPPORTED: n_unsup++; break;
        }
    }
    if (cli->mode == BOPS_MODE_TEST) {
        printf("  %d/%d tests passed\n", n_pass, n_pass + n_fail);
        if (n_unsup > 0) {
            printf("  %d cases not supported\n", n_unsup);
        }
    }
    *n_passed_total += n_pass;
    return n_fail;
}

static void bops_support_table(const struct bops_cli * cli, const struct bop_cases * cases) {
    ggml_backend_dev_t devs[16];
    int n_devs = 0;
    for (size_t i = 0; i < ggml_backend_dev_count() && n_devs < 16; i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (bops_dev_selected(cli, dev)) {
            devs[n_devs++] = dev;
        }
    }
    printf("| op | type |");
    for (int d = 0; d < n_devs; d++) {
        printf(" %s |", ggml_backend_dev_name(devs[d]));
    }
    printf("\n|---|---|");
    for (int d = 0; d < n_devs; d++) {
        printf("---|");
    }
    printf("\n");
    // one row per op name and type of the main source (every type the cases test), in order of
    // first appearance in the table
    for (int i = 0; i < cases->n; i++) {
        const struct bop_case * c = &cases->v[i];
        bool first = bops_selected(cli, c, BOP_MODE_TEST);
        for (int j = 0; j < i && first; j++) {
            if (strcmp(cases->v[j].op, c->op) == 0 && cases->v[j].t[0] == c->t[0] &&
                bops_selected(cli, &cases->v[j], BOP_MODE_TEST)) {
                first = false;
            }
        }
        if (!first) {
            continue;
        }
        printf("| %s | %s |", c->op, ggml_type_name(c->t[0]));
        for (int d = 0; d < n_devs; d++) {
            int n_yes = 0, n_total = 0, n_broken = 0;
            for (int j = i; j < cases->n; j++) {
                const struct bop_case * cj = &cases->v[j];
                if (strcmp(cj->op, c->op) != 0 || cj->t[0] != c->t[0] || !bops_selected(cli, cj, BOP_MODE_TEST)) {
                    continue;
                }
                bool built = false;
                bops_log_begin();
                const bool yes = bops_case_supported(devs[d], cj, &built);
                bops_log_end(false);
                n_total++;
                n_yes += yes ? 1 : 0;
                n_broken += built ? 0 : 1;
            }
            if (n_broken == n_total) {
                printf(" error |");
            } else if (n_yes == n_total) {
                printf(" yes |");
            } else if (n_yes == 0) {
                printf(" no |");
            } else {
                printf(" partial (%d/%d) |", n_yes, n_total);
            }
        }
        printf("\n");
    }
}

static bool bops_has_case(const struct bop_cases * cases, const char * name) {
    for (int i = 0; i < cases->n; i++) {
        if (strcmp(cases->v[i].op, name) == 0) {
            return true;
        }
    }
    return false;
}

// Names of ops (and unary / glu ops) that no case exercises, and whether the reference covers them.
static void bops_list_coverage(const struct bop_cases * cases) {
    int n_ref = 0;
    const enum ggml_op * ref_ops = ggml_ref_ops(&n_ref);
    printf("ops without a case (no constructor in ggml.h, or view ops that compute nothing):\n ");
    for (int op = GGML_OP_NONE + 1; op < GGML_OP_COUNT; op++) {
        if (op == GGML_OP_UNARY || op == GGML_OP_GLU || bops_has_case(cases, ggml_op_name((enum ggml_op) op))) {
            continue;
        }
        bool in_ref = false;
        for (int k = 0; k < n_ref; k++) {
            in_ref = in_ref || ref_ops[k] == (enum ggml_op) op;
        }
        printf(" %s%s", ggml_op_name((enum ggml_op) op), in_ref ? "(ref)" : "");
    }
    for (int op = 0; op < GGML_UNARY_OP_COUNT; op++) {
        if (!bops_has_case(cases, ggml_unary_op_name((enum ggml_unary_op) op))) {
            printf(" %s", ggml_unary_op_name((enum ggml_unary_op) op));
        }
    }
    for (int op = 0; op < GGML_GLU_OP_COUNT; op++) {
        if (!bops_has_case(cases, ggml_glu_op_name((enum ggml_glu_op) op))) {
            printf(" %s", ggml_glu_op_name((enum ggml_glu_op) op));
        }
    }
    printf("\n(ref): covered by the reference but without a case\n");
}

static void bops_list(const struct bops_cli * cli, const struct bop_cases * cases) {
    int n = 0;
    for (int i = 0; i < cases->n; i++) {
        const struct bop_case * c = &cases->v[i];
        const int flag = (c->modes & BOP_MODE_TEST) ? BOP_MODE_TEST : BOP_MODE_PERF;
        if (!bops_selected(cli, c, flag)) {
            continue;
        }
        printf("  %s(%s)%s:", c->op, c->params, (c->modes & BOP_MODE_TEST) ? "" : " [perf only]");
        // the effective comparison, which depends on the node the constructor builds
        struct bop_graph g;
        char err[256];
        bops_log_begin();
        const struct ggml_tensor * out = bops_graph_build(&g, c, err, sizeof(err));
        bops_log_end(out == NULL);
        if (out == NULL) {
            printf(" cannot be built (%s)\n", err);
        } else {
            const enum bop_cmp cmp = c->cmp != BOP_CMP_NMSE ? c->cmp : bops_default_cmp(out);
            const double bound = c->bound >= 0.0 ? c->bound : bops_default_bound(out);
            if (cmp == BOP_CMP_EXACT) {
                printf(" exact\n");
            } else if (cmp == BOP_CMP_SORT) {
                printf(" sorted values exact\n");
            } else if (bound == 0.0) {
                printf(" exact values (nmse 0)\n");
            } else {
                printf(" nmse <= %.0e\n", bound);
            }
        }
        bops_graph_free(&g);
        n++;
    }
    printf("%d cases\n", n);
    bops_list_coverage(cases);
}

static void bops_cli_free(struct bops_cli * cli, struct bop_cases * cases) {
    if (cli->has_regex) {
        regfree(&cli->regex);
        cli->has_regex = false;
    }
    bops_cases_free(cases);
}

int main(int argc, char ** argv) {
    struct bops_cli cli;
    if (!bops_parse(argc, argv, &cli)) {
        bops_usage(argv[0]);
        return 2;
    }
    ggml_time_init();
    ggml_log_set(bops_log_callback, NULL);
    if (cli.test_backend) {
        ggml_backend_register(test_backend_reg());
    }
    if (cli.ref_backend) {
        ggml_backend_register(bops_refdev_reg());
    }

    struct bop_cases cases = { 0 };
    if (!bops_cases_all(&cases)) {
        fprintf(stderr, "backend-ops: out of memory building the case table\n");
        return 2;
    }

    char bad_op[256];
    if (cli.ops != NULL && !bops_ops_known(cli.ops, &cases, bad_op, sizeof(bad_op))) {
        fprintf(stderr, "backend-ops: unknown op '%s' in -o (backend-ops list prints every case)\n", bad_op);
        bops_cli_free(&cli, &cases);
        return 2;
    }
    if (cli.backend != NULL && cli.mode != BOPS_MODE_LIST && cli.mode != BOPS_MODE_SELFTEST &&
        ggml_backend_dev_by_name(cli.backend) == NULL) {
        const bool skip = cli.skip_missing && getenv("GGML_TEST_REQUIRE_OPENCL") == NULL;
        fprintf(stderr, "backend-ops: no device named '%s'; the registered devices:", cli.backend);
        for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
            fprintf(stderr, " %s", ggml_backend_dev_name(ggml_backend_dev_get(i)));
        }
        fprintf(stderr, "%s\n", skip ? " (--skip-missing: skipped)" : "");
        bops_cli_free(&cli, &cases);
        return skip ? BOPS_SKIP_RETURN_CODE : 2;
    }

    int n_fail = 0, n_pass = 0;
    if (cli.mode == BOPS_MODE_LIST) {
        bops_list(&cli, &cases);
    } else if (cli.mode == BOPS_MODE_SELFTEST) {
        printf("backend-ops: seed %llu\n", (unsigned long long) cli.opt.seed);
        n_fail = bops_selftest(&cases, &cli.opt);
    } else if (cli.mode == BOPS_MODE_SUPPORT) {
        bops_support_table(&cli, &cases);
    } else {
        printf("backend-ops: seed %llu\n", (unsigned long long) cli.opt.seed);
        const size_t n_dev = ggml_backend_dev_count();
        int n_tested = 0;
        for (size_t i = 0; i < n_dev; i++) {
            ggml_backend_dev_t dev = ggml_backend_dev_get(i);
            if (!bops_dev_selected(&cli, dev)) {
                continue;
            }
            n_tested++;
            printf("Backend %zu/%zu: %s (%s)\n", i + 1, n_dev, ggml_backend_dev_name(dev), ggml_backend_dev_description(dev));
            ggml_backend_t backend = ggml_backend_dev_init(dev, NULL);
            if (backend == NULL) {
                printf("  failed to initialize the backend\n");
                n_fail++;
                continue;
            }
            bops_set_threads(backend, dev, cli.n_threads);
            const int f = bops_run_backend(&cli, &cases, backend, &n_pass);
            printf("  Backend %s: %s\n", ggml_backend_dev_name(dev), f == 0 ? "OK" : "FAIL");
            n_fail += f;
            ggml_backend_free(backend);
        }
        if (cli.backend != NULL && n_tested == 0) {
            printf("backend-ops: no device named '%s' (%zu devices registered)\n", cli.backend, n_dev);
            n_fail++;
        }
        if (cli.mode == BOPS_MODE_TEST) {
            printf("backend-ops: %d passed, %d failed\n", n_pass, n_fail);
        }
        if (n_pass == 0 && n_fail == 0) {
            // a filter that selects nothing, or devices that support none of the cases
            printf("backend-ops: FAILED: nothing was %s (no selected case ran on any selected device)\n",
                cli.mode == BOPS_MODE_PERF ? "timed" : "tested");
            n_fail++;
        }
    }

    bops_cli_free(&cli, &cases);
    ggml_log_set(NULL, NULL);
    return n_fail == 0 ? 0 : 1;
}
