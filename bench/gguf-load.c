// GB/s of loading a GGUF file's weights, beside `cat FILE > /dev/null` on the same file:
//   cat          the file read by cat (the page cache or disk speed this machine offers)
//   read         gguf_init_from_file with the data (one read of the data section into a context)
//   mmap         gguf_file_map_open + gguf_map_tensors, then one byte of every page touched (the
//                cost of faulting the mapping in; the data itself is never copied)
//   chunked      gguf_load_tensors into tensors of a CPU backend buffer (pread straight into them),
//                timed with the buffer's allocation (new host memory: first-touch page faults
//                included, like `read`) and with a buffer already faulted in (like device memory)
// Each is run `reps` times; the best time is reported. Warm page cache: the file is read once
// before timing (drop the caches yourself for cold numbers: echo 3 > /proc/sys/vm/drop_caches).
//
// Usage: gguf-load [FILE.gguf | --make SIZE_MB FILE.gguf] [reps]
//   --make writes a synthetic model of about SIZE_MB MB (F16 matrices of 16 MiB) and benches it.

#define _POSIX_C_SOURCE 200809L

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "gguf.h"
#include "gguf-load.h"
#include "bench-timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool make_model(const char * fname, long size_mb) {
    const int64_t cols = 4096, rows = 2048;   // 16 MiB per F16 tensor
    const long n = size_mb / 16 > 0 ? size_mb / 16 : 1;
    struct ggml_init_params ip = { (size_t) n * ggml_tensor_overhead() + 1024, NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    struct gguf_context * g = gguf_init_empty();
    void * data = malloc((size_t) (cols * rows) * sizeof(ggml_fp16_t));
    if (ctx == NULL || g == NULL || data == NULL) {
        return false;
    }
    for (int64_t i = 0; i < cols * rows; i++) {
        ((ggml_fp16_t *) data)[i] = ggml_fp32_to_fp16((float) (i % 1000) / 1000.0f);
    }
    gguf_set_val_str(g, "general.architecture", "bench");
    for (long i = 0; i < n; i++) {
        struct ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, cols, rows);
        ggml_format_name(t, "blk.%ld.weight", i);
        t->data = data;   // every tensor writes the same bytes
        gguf_add_tensor(g, t);
    }
    const bool ok = gguf_write_to_file(g, fname, false);
    gguf_free(g);
    ggml_free(ctx);
    free(data);
    return ok;
}

static double time_cat(const char * fname) {
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "cat '%s' > /dev/null", fname);
    const double t0 = now_s();
    if (system(cmd) != 0) {
        return -1;
    }
    return now_s() - t0;
}

static double time_read(const char * fname) {
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { false, &cd };
    const double t0 = now_s();
    struct gguf_context * g = gguf_init_from_file(fname, p);
    const double t = now_s() - t0;
    if (g == NULL) {
        return -1;
    }
    gguf_free(g);
    ggml_free(cd);
    return t;
}

static double time_mmap(const char * fname, volatile unsigned * sink) {
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { true, &cd };
    const double t0 = now_s();
    struct gguf_context * g = gguf_init_from_file(fname, p);
    struct gguf_file_map * map = gguf_file_map_open(fname);
    ggml_backend_buffer_t buf = g != NULL && map != NULL ? gguf_map_tensors(g, cd, map) : NULL;
    if (buf == NULL) {
        return -1;
    }
    unsigned acc = 0;
    const long page = sysconf(_SC_PAGESIZE);
    for (struct ggml_tensor * t = ggml_get_first_tensor(cd); t != NULL; t = ggml_get_next_tensor(cd, t)) {
        const unsigned char * d = t->data;
        for (size_t i = 0; i < ggml_nbytes(t); i += (size_t) page) {
            acc += d[i];
        }
    }
    const double t = now_s() - t0;
    *sink += acc;
    ggml_backend_buffer_free(buf);
    gguf_file_map_free(map);
    ggml_free(cd);
    gguf_free(g);
    return t;
}

// prefault: the buffer's pages are touched before timing (as device memory would be ready);
// otherwise the time includes the kernel's first-touch page faults of the new host memory
static double time_chunked(const char * fname, ggml_backend_t backend, bool prefault) {
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { true, &cd };
    double t0 = now_s();
    struct gguf_context * g = gguf_init_from_file(fname, p);
    ggml_backend_buffer_t buf = g != NULL ? ggml_backend_alloc_ctx_tensors(cd, backend) : NULL;
    if (buf == NULL) {
        return -1;
    }
    if (prefault) {
        ggml_backend_buffer_clear(buf, 0);
        t0 = now_s();
    }
    const bool ok = gguf_load_tensors(g, cd, fname, 0, NULL, NULL);
    const double t = now_s() - t0;
    ggml_backend_buffer_free(buf);
    ggml_free(cd);
    gguf_free(g);
    return ok ? t : -1;
}

int main(int argc, char ** argv) {
    const char * fname = NULL;
    int reps = 5;
    if (argc >= 4 && strcmp(argv[1], "--make") == 0) {
        fname = argv[3];
        printf("writing %s (about %ld MB)...\n", fname, atol(argv[2]));
        if (!make_model(fname, atol(argv[2]))) {
            fprintf(stderr, "cannot write %s\n", fname);
            return 1;
        }
        reps = argc >= 5 ? atoi(argv[4]) : reps;
    } else if (argc >= 2) {
        fname = argv[1];
        reps = argc >= 3 ? atoi(argv[2]) : reps;
    } else {
        fprintf(stderr, "usage: gguf-load FILE.gguf [reps] | gguf-load --make SIZE_MB FILE.gguf [reps]\n");
        return 2;
    }
    struct stat st;
    if (stat(fname, &st) != 0) {
        fprintf(stderr, "cannot stat %s\n", fname);
        return 1;
    }
    const double gb = (double) st.st_size / 1e9;
    ggml_backend_t cpu = ggml_backend_cpu_init();
    volatile unsigned sink = 0;
    time_cat(fname);   // warm the page cache
    double best[5] = { 1e30, 1e30, 1e30, 1e30, 1e30 };
    for (int r = 0; r < reps; r++) {
        const double t[5] = { time_cat(fname), time_read(fname), time_mmap(fname, &sink), time_chunked(fname, cpu, false),
                              time_chunked(fname, cpu, true) };
        for (int k = 0; k < 5; k++) {
            if (t[k] < 0) {
                fprintf(stderr, "a load failed\n");
                return 1;
            }
            best[k] = t[k] < best[k] ? t[k] : best[k];
        }
    }
    const char * names[5] = { "cat FILE > /dev/null", "gguf_init_from_file (read)", "mmap + touch every page",
                              "chunked, new host buffer", "chunked, buffer ready" };
    printf("%s: %.3f GB, best of %d, warm page cache\n", fname, gb, reps);
    for (int k = 0; k < 5; k++) {
        printf("  %-28s %8.1f ms  %6.2f GB/s\n", names[k], best[k] * 1e3, gb / best[k]);
    }
    ggml_backend_free(cpu);
    return 0;
}
