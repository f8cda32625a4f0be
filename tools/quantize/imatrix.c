// Importance matrices for --imatrix, in either of the family's formats:
//   GGUF: for each weight X, tensors "X.in_sum2" (F32, [n_per_row, n_mat]: sums of squared
//         activations) and "X.counts" (F32, [1, n_mat]: how many were summed); weight = sum / count
//   legacy binary: int32 entry count, then per entry: int32 name length, name, int32 ncall,
//         int32 nval, nval floats (sums over ncall chunks; divided by ncall here)

#include "quantize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct imatrix_entry {
    char *  name;
    int64_t n;        // n_per_row * n_mat values
    float * values;
};

struct imatrix {
    struct imatrix_entry * e;
    int                    n;
};

void imatrix_free(struct imatrix * im) {
    if (im == NULL) {
        return;
    }
    for (int i = 0; i < im->n; i++) {
        free(im->e[i].name);
        free(im->e[i].values);
    }
    free(im->e);
    free(im);
}

int imatrix_count(const struct imatrix * im) {
    return im != NULL ? im->n : 0;
}

static bool add_entry(struct imatrix * im, const char * name, size_t name_len, int64_t n, float ** values) {
    struct imatrix_entry * e = realloc(im->e, (size_t) (im->n + 1) * sizeof(*e));
    if (e == NULL) {
        return false;
    }
    im->e = e;
    struct imatrix_entry * x = &im->e[im->n];
    x->name = malloc(name_len + 1);
    x->values = malloc((size_t) (n > 0 ? n : 1) * sizeof(float));
    if (x->name == NULL || x->values == NULL) {
        free(x->name);
        free(x->values);
        return false;
    }
    memcpy(x->name, name, name_len);
    x->name[name_len] = '\0';
    x->n = n;
    *values = x->values;
    im->n++;
    return true;
}

static struct imatrix * load_gguf(const char * fname) {
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { false, &cd };
    struct gguf_context * g = gguf_init_from_file(fname, p);
    if (g == NULL) {
        return NULL;
    }
    struct imatrix * im = calloc(1, sizeof(*im));
    bool ok = im != NULL;
    const char * suffix = ".in_sum2";
    for (struct ggml_tensor * t = ggml_get_first_tensor(cd); ok && t != NULL; t = ggml_get_next_tensor(cd, t)) {
        const size_t len = strlen(t->name);
        if (len <= strlen(suffix) || strcmp(t->name + len - strlen(suffix), suffix) != 0) {
            continue;
        }
        const size_t base_len = len - strlen(suffix);
        char counts_name[GGML_MAX_NAME + 8];
        snprintf(counts_name, sizeof(counts_name), "%.*s.counts", (int) base_len, t->name);
        struct ggml_tensor * c = ggml_get_tensor(cd, counts_name);
        if (t->type != GGML_TYPE_F32 || c == NULL || c->type != GGML_TYPE_F32 || ggml_nelements(c) != t->ne[1] * t->ne[2]) {
            fprintf(stderr, "imatrix: %s: '%s' has no matching F32 counts; skipped\n", fname, t->name);
            continue;
        }
        float * v = NULL;
        const int64_t n = ggml_nelements(t);
        ok = add_entry(im, t->name, base_len, n, &v);
        for (int64_t i = 0; ok && i < n; i++) {
            const float count = ((const float *) c->data)[i / t->ne[0]];
            v[i] = count > 0.0f ? ((const float *) t->data)[i] / count : 1.0f;
        }
    }
    gguf_free(g);
    ggml_free(cd);
    if (!ok) {
        imatrix_free(im);
        return NULL;
    }
    return im;
}

static bool read_i32(FILE * f, int32_t * v) {
    return fread(v, sizeof(*v), 1, f) == 1;
}

static struct imatrix * load_legacy(const char * fname) {
    FILE * f = fopen(fname, "rb");
    if (f == NULL) {
        perror(fname);
        return NULL;
    }
    struct imatrix * im = calloc(1, sizeof(*im));
    int32_t n_entries = 0;
    bool ok = im != NULL && read_i32(f, &n_entries) && n_entries >= 0 && n_entries < (1 << 24);
    for (int32_t i = 0; ok && i < n_entries; i++) {
        int32_t len = 0, ncall = 0, nval = 0;
        char name[1024];
        ok = read_i32(f, &len) && len > 0 && len < (int32_t) sizeof(name) && fread(name, 1, (size_t) len, f) == (size_t) len &&
             read_i32(f, &ncall) && read_i32(f, &nval) && nval > 0 && nval < (1 << 30);
        float * v = NULL;
        ok = ok && add_entry(im, name, (size_t) len, nval, &v) && fread(v, sizeof(float), (size_t) nval, f) == (size_t) nval;
        for (int32_t j = 0; ok && ncall > 0 && j < nval; j++) {
            v[j] /= (float) ncall;
        }
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "imatrix: %s: not a GGUF imatrix and not a valid legacy imatrix file\n", fname);
        imatrix_free(im);
        return NULL;
    }
    return im;
}

struct imatrix * imatrix_load(const char * fname) {
    FILE * f = fopen(fname, "rb");
    if (f == NULL) {
        perror(fname);
        return NULL;
    }
    char magic[4] = { 0 };
    const bool is_gguf = fread(magic, 1, 4, f) == 4 && memcmp(magic, GGUF_MAGIC, 4) == 0;
    fclose(f);
    return is_gguf ? load_gguf(fname) : load_legacy(fname);
}

const float * imatrix_find(const struct imatrix * im, const char * tensor_name, int64_t n_per_row, int64_t n_mat) {
    for (int i = 0; im != NULL && i < im->n; i++) {
        if (strcmp(im->e[i].name, tensor_name) == 0) {
            if (im->e[i].n != n_per_row * n_mat) {
                fprintf(stderr, "imatrix: '%s' has %lld values, the tensor needs %lld; not used\n", tensor_name,
                        (long long) im->e[i].n, (long long) (n_per_row * n_mat));
                return NULL;
            }
            return im->e[i].values;
        }
    }
    return NULL;
}
