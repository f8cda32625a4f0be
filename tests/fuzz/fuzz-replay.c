// Feeds files to a fuzz target's LLVMFuzzerTestOneInput, so that saved inputs (the corpus and the
// inputs of past findings) run as regression tests in any build, with gcc as well as clang.
// Usage: fuzz-replay-<target> FILE_OR_DIR...   (a directory: every regular file in it, sorted)

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size);

static int g_runs;

static int run_file(const char * path) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "fuzz-replay: cannot open %s\n", path);
        return 1;
    }
    uint8_t * buf = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap == 0 ? 4096 : cap * 2;
            uint8_t * nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = nb;
        }
        const size_t k = fread(buf + size, 1, cap - size, f);
        if (k == 0) {
            break;
        }
        size += k;
    }
    fclose(f);
    if (getenv("FUZZ_REPLAY_VERBOSE") != NULL) {
        fprintf(stderr, "fuzz-replay: %s (%zu bytes)\n", path, size);
    }
    LLVMFuzzerTestOneInput(buf, size);
    free(buf);
    g_runs++;
    return 0;
}

static int cmp_str(const void * a, const void * b) {
    return strcmp(*(char * const *) a, *(char * const *) b);
}

static int run_dir(const char * dir) {
    DIR * d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "fuzz-replay: cannot open directory %s\n", dir);
        return 1;
    }
    char ** names = NULL;
    size_t n = 0, cap = 0;
    struct dirent * e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue; // also skips README-like dot files
        }
        if (n == cap) {
            cap = cap == 0 ? 64 : cap * 2;
            char ** nn = realloc(names, cap * sizeof(*names));
            if (nn == NULL) {
                break;
            }
            names = nn;
        }
        const size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (names[n] == NULL) {
            break;
        }
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc |= run_file(names[i]);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char ** argv) {
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz-replay: %s does not exist\n", argv[i]);
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            rc |= run_dir(argv[i]);
        } else {
            rc |= run_file(argv[i]);
        }
    }
    printf("fuzz-replay: %d inputs replayed\n", g_runs);
    if (g_runs == 0) {
        fprintf(stderr, "fuzz-replay: no input found\n");
        rc = 1;
    }
    return rc;
}
