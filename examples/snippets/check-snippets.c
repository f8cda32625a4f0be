// Checks that every C snippet of the documentation is compiled and run: each ```c block of the
// markdown files given must be declared by one of the example files given, with a line
//     // docs snippet: <markdown path relative to the source root> <n>
// (n = the block's position among that file's ```c blocks, from 1), and every non-blank line of
// the block must appear in that example, in the same order (leading and trailing blanks aside;
// the example adds what a fragment needs around it: main, data, checks). The examples themselves
// are ctest tests, so a snippet that stops compiling or computing fails the build or its test.
//
// usage: check-snippets <source root> --docs <file.md>... --examples <file.c>...

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 4096
#define MAX_LINE  512

struct text {
    int n;
    char * line[MAX_LINES];
};

static char * trim(char * s) {
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    size_t n = strlen(s);
    while (n > 0 && (s[n-1] == ' ' || s[n-1] == '\t' || s[n-1] == '\n' || s[n-1] == '\r')) {
        s[--n] = '\0';
    }
    return s;
}

static bool text_read(struct text * t, const char * path) {
    FILE * f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "check-snippets: cannot open %s\n", path);
        return false;
    }
    char buf[MAX_LINE];
    t->n = 0;
    bool ok = true;
    while (fgets(buf, sizeof(buf), f) != NULL) {
        if (t->n == MAX_LINES) {
            fprintf(stderr, "check-snippets: %s has more than %d lines\n", path, MAX_LINES);
            ok = false;
            break;
        }
        char * copy = malloc(strlen(buf) + 1);
        if (copy == NULL) {
            ok = false;
            break;
        }
        strcpy(copy, buf);
        t->line[t->n++] = copy;
    }
    fclose(f);
    return ok;
}

static void text_free(struct text * t) {
    for (int i = 0; i < t->n; i++) {
        free(t->line[i]);
    }
    t->n = 0;
}

// does example e declare block k of doc?
static bool declares(const struct text * e, const char * doc, int k) {
    char want[MAX_LINE];
    snprintf(want, sizeof(want), "// docs snippet: %s %d", doc, k);
    for (int i = 0; i < e->n; i++) {
        char tmp[MAX_LINE];
        snprintf(tmp, sizeof(tmp), "%s", e->line[i]);
        if (strcmp(trim(tmp), want) == 0) {
            return true;
        }
    }
    return false;
}

// lines [first, last) of doc, non-blank ones, in order among e's lines; the first missing one in *missing
static bool contains_in_order(const struct text * e, const struct text * doc, int first, int last, int * missing) {
    int j = 0;
    for (int i = first; i < last; i++) {
        char want[MAX_LINE];
        snprintf(want, sizeof(want), "%s", doc->line[i]);
        const char * w = trim(want);
        if (*w == '\0') {
            continue;
        }
        bool found = false;
        for (; j < e->n && !found; j++) {
            char have[MAX_LINE];
            snprintf(have, sizeof(have), "%s", e->line[j]);
            found = strcmp(trim(have), w) == 0;
        }
        if (!found) {
            *missing = i;
            return false;
        }
    }
    return true;
}

int main(int argc, char ** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: check-snippets <source root> --docs <file.md>... --examples <file.c>...\n");
        return 2;
    }
    const char * root = argv[1];
    const char * docs[64], * examples[64];
    int n_docs = 0, n_ex = 0, mode = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--docs") == 0) {
            mode = 1;
        } else if (strcmp(argv[i], "--examples") == 0) {
            mode = 2;
        } else if (mode == 1 && n_docs < 64) {
            docs[n_docs++] = argv[i];
        } else if (mode == 2 && n_ex < 64) {
            examples[n_ex++] = argv[i];
        } else {
            fprintf(stderr, "check-snippets: unexpected argument %s\n", argv[i]);
            return 2;
        }
    }
    static struct text ex[64];
    for (int i = 0; i < n_ex; i++) {
        if (!text_read(&ex[i], examples[i])) {
            return 1;
        }
    }
    int n_blocks = 0, n_bad = 0;
    for (int d = 0; d < n_docs; d++) {
        static struct text doc;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", root, docs[d]);
        if (!text_read(&doc, path)) {
            return 1;
        }
        int k = 0;
        for (int i = 0; i < doc.n; i++) {
            char tmp[MAX_LINE];
            snprintf(tmp, sizeof(tmp), "%s", doc.line[i]);
            if (strcmp(trim(tmp), "```c") != 0) {
                continue;
            }
            int end = i + 1;
            while (end < doc.n && strncmp(doc.line[end], "```", 3) != 0) {
                end++;
            }
            k++;
            n_blocks++;
            bool ok = false;
            int missing = -1;
            const char * where = NULL;
            for (int e = 0; e < n_ex && !ok; e++) {
                if (declares(&ex[e], docs[d], k)) {
                    where = examples[e];
                    ok = contains_in_order(&ex[e], &doc, i + 1, end, &missing);
                }
            }
            if (where == NULL) {
                printf("FAILED: %s, C block %d (line %d): no example declares '// docs snippet: %s %d'\n",
                    docs[d], k, i + 1, docs[d], k);
                n_bad++;
            } else if (!ok) {
                printf("FAILED: %s, C block %d: line %d is not in %s (in order): %s", docs[d], k, missing + 1,
                    where, doc.line[missing]);
                n_bad++;
            } else {
                printf("ok: %s, C block %d (line %d) is compiled and run by %s\n", docs[d], k, i + 1, where);
            }
            i = end;
        }
        text_free(&doc);
    }
    for (int i = 0; i < n_ex; i++) {
        text_free(&ex[i]);
    }
    printf("check-snippets: %d C blocks, %d not covered\n", n_blocks, n_bad);
    return n_bad == 0 ? 0 : 1;
}
