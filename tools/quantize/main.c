// quantize: a GGUF model to a quantized file type, like the family's llama-quantize.
//
//   quantize IN.gguf OUT.gguf TYPE [--imatrix FILE] [--threads N] [--pure] [--allow-requantize]
//
// Weight matrices get TYPE's types (rules.c), norms, biases and other small tensors keep their
// type; the keys are copied, general.file_type and general.quantization_version set. Progress is
// shown tensor by tensor, the sizes before and after at the end. Exit status: 0 ok, 1 error,
// 2 usage.

#define _GNU_SOURCE // sysconf(_SC_NPROCESSORS_ONLN)

#include "quantize.h"
#include "gguf-load.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void) {
    fprintf(stderr, "usage: quantize IN.gguf OUT.gguf TYPE [--imatrix FILE] [--threads N] [--pure] [--allow-requantize]\n"
                    "  --imatrix FILE       importance matrix (GGUF or legacy .dat) for better quantization\n"
                    "  --threads N          worker threads (default: all cores)\n"
                    "  --pure               TYPE for every weight matrix (no higher-precision mix)\n"
                    "  --allow-requantize   accept an input that is already quantized (loses quality)\n"
                    "TYPE is one of:\n");
    ftype_print_all();
}

// one quantization job: rows [row0, row1) of matrix m
struct job {
    int64_t m;
    int64_t row0;
    int64_t row1;
};

struct work {
    enum ggml_type type;
    const float *  src;        // the whole tensor as floats
    void *         dst;        // the whole quantized tensor
    int64_t        n_per_row;
    int64_t        rows_per_matrix;
    const float *  imatrix;    // n_per_row per matrix, or NULL
    struct job *   jobs;
    int            n_jobs;
    atomic_int     next;
    atomic_bool    failed;
};

static void * worker(void * arg) {
    struct work * w = arg;
    for (int j = atomic_fetch_add(&w->next, 1); j < w->n_jobs; j = atomic_fetch_add(&w->next, 1)) {
        const struct job * jb = &w->jobs[j];
        const int64_t first = jb->m * w->rows_per_matrix + jb->row0;
        const size_t n = ggml_quantize_chunk(w->type, w->src, w->dst, first * w->n_per_row, jb->row1 - jb->row0,
                                             w->n_per_row, w->imatrix != NULL ? w->imatrix + jb->m * w->n_per_row : NULL);
        if (n == 0) {
            atomic_store(&w->failed, true);
        }
    }
    return NULL;
}

static bool quantize_tensor(enum ggml_type type, const float * src, void * dst, const int64_t * ne, const float * imatrix,
                            int n_threads) {
    const int64_t n_mat = ne[2] * ne[3];
    const int64_t rows_per_job = ne[1] / (4 * n_threads) > 0 ? ne[1] / (4 * n_threads) : 1;
    const int64_t jobs_per_mat = (ne[1] + rows_per_job - 1) / rows_per_job;
    struct work w = { type, src, dst, ne[0], ne[1], imatrix, NULL, (int) (n_mat * jobs_per_mat), 0, false };
    w.jobs = malloc((size_t) w.n_jobs * sizeof(struct job));
    if (w.jobs == NULL) {
        return false;
    }
    int k = 0;
    for (int64_t m = 0; m < n_mat; m++) {
        for (int64_t r = 0; r < ne[1]; r += rows_per_job) {
            w.jobs[k++] = (struct job) { m, r, r + rows_per_job < ne[1] ? r + rows_per_job : ne[1] };
        }
    }
    pthread_t th[256];
    int started = 0;
    for (int t = 1; t < n_threads && t < 256; t++) {
        if (pthread_create(&th[started], NULL, worker, &w) == 0) {
            started++;
        }
    }
    worker(&w);
    for (int t = 0; t < started; t++) {
        pthread_join(th[t], NULL);
    }
    free(w.jobs);
    return !atomic_load(&w.failed);
}

// the tensor's data as floats (malloc'd), or NULL when its type cannot be converted
static float * to_floats(const struct ggml_tensor * t) {
    const int64_t n = ggml_nelements(t);
    float * f = malloc((size_t) (n > 0 ? n : 1) * sizeof(float));
    if (f == NULL) {
        return NULL;
    }
    if (t->type == GGML_TYPE_F32) {
        memcpy(f, t->data, (size_t) n * sizeof(float));
        return f;
    }
    const struct ggml_type_traits * tr = ggml_get_type_traits(t->type);
    if (tr == NULL || tr->to_float == NULL) {
        free(f);
        return NULL;
    }
    tr->to_float(t->data, f, n);
    return f;
}

static double mib(uint64_t bytes) {
    return (double) bytes / (1024.0 * 1024.0);
}

int main(int argc, char ** argv) {
    const char * pos[3] = { NULL, NULL, NULL };
    int n_pos = 0;
    const char * imatrix_file = NULL;
    int n_threads = 0;
    bool pure = false, allow_requantize = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--imatrix") == 0 && i + 1 < argc) {
            imatrix_file = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            n_threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--pure") == 0) {
            pure = true;
        } else if (strcmp(argv[i], "--allow-requantize") == 0) {
            allow_requantize = true;
        } else if (argv[i][0] != '-' && n_pos < 3) {
            pos[n_pos++] = argv[i];
        } else {
            usage();
            return 2;
        }
    }
    if (n_pos != 3) {
        usage();
        return 2;
    }
    const struct ftype_info * ft = ftype_by_name(pos[2]);
    if (ft == NULL) {
        fprintf(stderr, "quantize: unknown type '%s'\n", pos[2]);
        usage();
        return 2;
    }
    if (n_threads <= 0) {
        const long nproc = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = nproc > 0 ? (int) nproc : 1;
    }
    n_threads = n_threads > 256 ? 256 : n_threads;

    // the input, mapped
    struct ggml_context * ctx_in = NULL;
    struct gguf_init_params p = { true, &ctx_in };
    struct gguf_context * g_in = gguf_init_from_file(pos[0], p);
    struct gguf_file_map * map = g_in != NULL ? gguf_file_map_open(pos[0]) : NULL;
    ggml_backend_buffer_t buf_in = map != NULL ? gguf_map_tensors(g_in, ctx_in, map) : NULL;
    if (buf_in == NULL && (g_in == NULL || gguf_get_n_tensors(g_in) > 0)) {
        fprintf(stderr, "quantize: cannot read '%s'\n", pos[0]);
        return 1;
    }
    struct imatrix * im = NULL;
    if (imatrix_file != NULL) {
        im = imatrix_load(imatrix_file);
        if (im == NULL) {
            return 1;
        }
        printf("imatrix: %d entries from %s\n", imatrix_count(im), imatrix_file);
    }
    struct model_info mi;
    model_info_init(&mi, g_in, im != NULL);
    struct rule_state rs = { 0, 0, 0 };

    // the types, decided before anything is written (the metadata precedes the data)
    const int64_t n_tensors = gguf_get_n_tensors(g_in);
    struct ggml_init_params mp = { (size_t) (n_tensors + 1) * ggml_tensor_overhead(), NULL, true };
    struct ggml_context * ctx_out = ggml_init(mp);
    struct gguf_context * g_out = gguf_init_empty();
    int ret = ctx_out != NULL && g_out != NULL ? 0 : 1;
    gguf_set_kv(g_out, g_in);
    gguf_set_val_u32(g_out, "general.quantization_version", 2);
    gguf_set_val_u32(g_out, "general.file_type", (uint32_t) ft->ftype);
    for (int64_t i = 0; ret == 0 && i < n_tensors; i++) {
        struct ggml_tensor * t = ggml_get_tensor(ctx_in, gguf_get_tensor_name(g_in, i));
        const enum ggml_type type = choose_type(ft, &mi, &rs, t->name, t->ne, ggml_n_dims(t), t->type, pure);
        if (type != t->type && ggml_is_quantized(t->type) && !allow_requantize) {
            fprintf(stderr, "quantize: '%s' is already %s: requantizing loses quality (--allow-requantize to do it anyway)\n",
                    t->name, ggml_type_name(t->type));
            ret = 1;
            break;
        }
        struct ggml_tensor * o = ggml_new_tensor(ctx_out, type, GGML_MAX_DIMS, t->ne);
        ggml_set_name(o, t->name);
        gguf_add_tensor(g_out, o);
    }
    if (ret == 0 && gguf_get_n_tensors(g_out) != n_tensors) {
        ret = 1;
    }

    FILE * f = ret == 0 ? fopen(pos[1], "wb") : NULL;
    if (ret == 0 && (f == NULL || !gguf_write_to_file_ptr(g_out, f, true))) {
        fprintf(stderr, "quantize: cannot write '%s'\n", pos[1]);
        ret = 1;
    }
    printf("quantize: %s -> %s as %s, %d threads%s%s\n", pos[0], pos[1], ft->name, n_threads,
           im != NULL ? ", with an imatrix" : "", pure ? ", pure" : "");
    if (rs.n_fallback > 0) {
        printf("note: %d tensors have rows that do not fit their type's block size: they get the fallback type "
               "(Q2_K/Q3_K -> Q4_0, Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, IQ4_XS -> IQ4_NL, else F16)\n", rs.n_fallback);
    }
    uint64_t size_in = 0, size_out = 0;
    const size_t alignment = gguf_get_alignment(g_out);
    for (int64_t i = 0; ret == 0 && i < n_tensors; i++) {
        const char * name = gguf_get_tensor_name(g_out, i);
        struct ggml_tensor * t = ggml_get_tensor(ctx_in, name);
        const enum ggml_type type = gguf_get_tensor_type(g_out, i);
        const size_t nbytes = gguf_get_tensor_size(g_out, i);
        printf("[%4lld/%4lld] %-36s [%6lld, %6lld, %4lld, %4lld] %-6s -> %-6s ", (long long) i + 1, (long long) n_tensors,
               name, (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3],
               ggml_type_name(t->type), ggml_type_name(type));
        fflush(stdout);
        void * out = t->data;
        void * owned = NULL;
        if (type != t->type) {
            const int64_t n_mat = t->ne[2] * t->ne[3];
            const float * imatrix = im != NULL ? imatrix_find(im, name, t->ne[0], n_mat) : NULL;
            if (ggml_quantize_requires_imatrix(type) && imatrix == NULL) {
                fprintf(stderr, "\nquantize: %s needs an importance matrix for '%s' (--imatrix)\n", ggml_type_name(type), name);
                ret = 1;
                break;
            }
            float * src = to_floats(t);
            owned = malloc(nbytes > 0 ? nbytes : 1);
            if (src == NULL || owned == NULL) {
                fprintf(stderr, "\nquantize: cannot convert '%s' from %s (no conversion, or out of memory)\n", name,
                        ggml_type_name(t->type));
                free(src);
                free(owned);
                ret = 1;
                break;
            }
            if (!quantize_tensor(type, src, owned, t->ne, imatrix, n_threads)) {
                fprintf(stderr, "\nquantize: quantizing '%s' to %s failed\n", name, ggml_type_name(type));
                ret = 1;
            }
            free(src);
            out = owned;
            if (imatrix != NULL) {
                printf("(imatrix) ");
            }
        }
        static const char zeros[256] = { 0 };
        const size_t pad = (nbytes + alignment - 1) / alignment * alignment - nbytes;
        if (ret == 0 && (fwrite(out, 1, nbytes, f) != nbytes || fwrite(zeros, 1, pad, f) != pad)) {
            fprintf(stderr, "\nquantize: write error on '%s'\n", pos[1]);
            ret = 1;
        }
        free(owned);
        printf("%8.2f MiB -> %8.2f MiB\n", mib(ggml_nbytes(t)), mib(nbytes));
        size_in += ggml_nbytes(t);
        size_out += nbytes;
    }
    if (f != NULL && fclose(f) != 0) {
        ret = 1;
    }
    if (ret == 0) {
        printf("model size: %.2f MiB, quantized size: %.2f MiB (%.1f%%)\n", mib(size_in), mib(size_out),
               size_in > 0 ? 100.0 * (double) size_out / (double) size_in : 100.0);
    } else if (f != NULL) {
        remove(pos[1]);
    }
    gguf_free(g_out);
    ggml_free(ctx_out);
    imatrix_free(im);
    if (buf_in != NULL) {
        ggml_backend_buffer_free(buf_in);
    }
    gguf_file_map_free(map);
    ggml_free(ctx_in);
    gguf_free(g_in);
    return ret;
}
