// Kernel programs: the .cl sources of src/ggml-opencl/kernels/ are embedded into the library at
// build time (CMake writes them into ggml-opencl-kernels.h as byte arrays). Each program is
// kernels/common.cl followed by kernels/<name>.cl, built once per device on first use and kept
// for the device's life. With GGML_OPENCL_CACHE=1 the program binary is also kept on disk under
// $XDG_CACHE_HOME/ggml-opencl (or ~/.cache/ggml-opencl), in a file named by a hash of the source,
// the build options, the device and the driver version.
//
// A failed build logs the compiler's log once and marks the program failed: supports_op is
// then false for the ops of that program and the rest of the device keeps working.

#include "ggml-opencl-impl.h"
#include "ggml-opencl-kernels.h" // generated: ggml_ocl_kernel_sources[], ggml_ocl_n_kernel_sources

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static const char * const prog_names[GGML_OCL_PROG_COUNT] = {
    [GGML_OCL_PROG_ELTWISE] = "eltwise",
    [GGML_OCL_PROG_COPY]    = "copy",
    [GGML_OCL_PROG_REDUCE]  = "reduce",
    [GGML_OCL_PROG_SORT]    = "sort",
    [GGML_OCL_PROG_NORM]    = "norm",
    [GGML_OCL_PROG_ROPE]    = "rope",
    [GGML_OCL_PROG_CONV]    = "conv",
    [GGML_OCL_PROG_ATTN]    = "attn",
    [GGML_OCL_PROG_MATMUL]  = "matmul",
    [GGML_OCL_PROG_OUTPROD] = "outprod",
    [GGML_OCL_PROG_MATMUL_TILED] = "mul_mat_tiled",
    [GGML_OCL_PROG_QUANT]   = "quant",
    [GGML_OCL_PROG_QUANT_MM] = "quant_mm",
    [GGML_OCL_PROG_ELTWISE_VEC] = "eltwise_vec",
    [GGML_OCL_PROG_ATTN_ROWS] = "attn_rows",
    [GGML_OCL_PROG_QUANT_STORE] = "quant_store",
    [GGML_OCL_PROG_MISC2] = "misc2",
    [GGML_OCL_PROG_SEQ] = "seq",
};

const char * ggml_ocl_prog_name(enum ggml_ocl_prog prog) {
    return (int) prog >= 0 && prog < GGML_OCL_PROG_COUNT ? prog_names[prog] : "?";
}

static const char * embedded_source(const char * name, size_t * len) {
    for (size_t i = 0; i < ggml_ocl_n_kernel_sources; i++) {
        if (strcmp(ggml_ocl_kernel_sources[i].name, name) == 0) {
            *len = ggml_ocl_kernel_sources[i].len;
            return ggml_ocl_kernel_sources[i].text;
        }
    }
    *len = 0;
    return NULL;
}

//
// test hook: source overrides
//

static pthread_mutex_t g_override_lock = PTHREAD_MUTEX_INITIALIZER;
static char * g_override[GGML_OCL_PROG_COUNT];

static int set_program_source(const char * name, const char * source) {
    int prog = -1;
    for (int i = 0; i < GGML_OCL_PROG_COUNT; i++) {
        if (name != NULL && strcmp(prog_names[i], name) == 0) {
            prog = i;
        }
    }
    if (prog < 0) {
        GGML_LOG_ERROR("%s: unknown program '%s'\n", __func__, name ? name : "(null)");
        return -1;
    }
    char * copy = NULL;
    if (source != NULL) {
        const size_t n = strlen(source);
        copy = ggml_malloc(n + 1);
        if (copy == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
            return -1;
        }
        memcpy(copy, source, n + 1);
    }
    pthread_mutex_lock(&g_override_lock);
    ggml_free_mem(g_override[prog]);
    g_override[prog] = copy;
    pthread_mutex_unlock(&g_override_lock);

    for (size_t i = 0; i < ggml_ocl_n_devices(); i++) {
        struct ggml_ocl_device * d = ggml_ocl_device_at(i);
        pthread_mutex_lock(&d->lock);
        if (d->programs[prog] != NULL) {
            // kernels made from it keep their own reference
            GGML_OCL_OK(clReleaseProgram(d->programs[prog]), "clReleaseProgram");
            d->programs[prog] = NULL;
        }
        d->prog_state[prog] = GGML_OCL_PROG_NOT_BUILT;
        pthread_mutex_unlock(&d->lock);
    }
    return 0;
}

int ggml_ocl_test_control(int op, va_list args) {
    if (op == GGML_TEST_OPENCL_SET_PROGRAM_SOURCE) {
        const char * name   = va_arg(args, const char *);
        const char * source = va_arg(args, const char *);
        return set_program_source(name, source);
    }
    GGML_LOG_ERROR("%s: unknown op %d\n", __func__, op);
    return -1;
}

// common.cl + the program's source, NUL-terminated (ggml_free_mem it); NULL (logged) on failure
static char * program_text(enum ggml_ocl_prog prog, size_t * out_len) {
    size_t common_len = 0, body_len = 0;
    const char * common = embedded_source("common", &common_len);
    pthread_mutex_lock(&g_override_lock);
    const char * body = g_override[prog];
    if (body != NULL) {
        body_len = strlen(body);
    } else {
        body = embedded_source(prog_names[prog], &body_len);
    }
    char * text = NULL;
    if (common == NULL || body == NULL) {
        GGML_LOG_ERROR("%s: the library has no kernel source %s.cl\n", __func__, common == NULL ? "common" : prog_names[prog]);
    } else {
        char line[96];
        // line numbers of the compiler's messages then refer to <name>.cl itself
        const int n_line = snprintf(line, sizeof(line), "\n#line 1 \"%s.cl\"\n", prog_names[prog]);
        const size_t len = common_len + (size_t) n_line + body_len;
        text = ggml_malloc(len + 1);
        if (text == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
        } else {
            memcpy(text, common, common_len);
            memcpy(text + common_len, line, (size_t) n_line);
            memcpy(text + common_len + n_line, body, body_len);
            text[len] = '\0';
            *out_len = len;
        }
    }
    pthread_mutex_unlock(&g_override_lock);
    return text;
}

//
// disk cache
//

static uint64_t fnv1a(uint64_t h, const void * data, size_t n) {
    const unsigned char * p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static bool cache_enabled(void) {
    const char * e = getenv("GGML_OPENCL_CACHE");
    return e != NULL && strcmp(e, "1") == 0;
}

// mkdir -p for the cache directory; false when it cannot be had
static bool make_dirs(char * path) {
    for (char * p = path + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            const bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
            *p = '/';
            if (!ok) {
                return false;
            }
        }
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

// the cache file of this program on this device; false when there is no cache directory
static bool cache_path(const struct ggml_ocl_device * d, enum ggml_ocl_prog prog, const char * text, size_t len,
                       char * out, size_t out_size, bool create_dir) {
    char dir[1024];
    const char * xdg  = getenv("XDG_CACHE_HOME");
    const char * home = getenv("HOME");
    int n;
    if (xdg != NULL && xdg[0] == '/') {
        n = snprintf(dir, sizeof(dir), "%s/ggml-opencl", xdg);
    } else if (home != NULL && home[0] == '/') {
        n = snprintf(dir, sizeof(dir), "%s/.cache/ggml-opencl", home);
    } else {
        return false;
    }
    if (n < 0 || (size_t) n >= sizeof(dir) || (create_dir && !make_dirs(dir))) {
        return false;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a(h, text, len);
    h = fnv1a(h, d->build_options, strlen(d->build_options) + 1);
    h = fnv1a(h, d->description, strlen(d->description) + 1);
    h = fnv1a(h, d->vendor, strlen(d->vendor) + 1);
    h = fnv1a(h, d->version, strlen(d->version) + 1);
    h = fnv1a(h, d->driver, strlen(d->driver) + 1);
    h = fnv1a(h, d->platform->version, strlen(d->platform->version) + 1);
    n = snprintf(out, out_size, "%s/%s-%016llx.bin", dir, prog_names[prog], (unsigned long long) h);
    return n > 0 && (size_t) n < out_size;
}

static cl_program cache_load(struct ggml_ocl_device * d, cl_context ctx, const char * path) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    cl_program program = NULL;
    unsigned char * bin = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (bin = ggml_malloc((size_t) size)) != NULL && fread(bin, 1, (size_t) size, f) == (size_t) size) {
        const size_t len = (size_t) size;
        const unsigned char * bins[1] = { bin };
        cl_int status = CL_SUCCESS, err = CL_SUCCESS;
        program = clCreateProgramWithBinary(ctx, 1, &d->id, &len, bins, &status, &err);
        if (err != CL_SUCCESS || status != CL_SUCCESS) {
            if (program != NULL) {
                GGML_OCL_OK(clReleaseProgram(program), "clReleaseProgram");
            }
            program = NULL;
        } else if (clBuildProgram(program, 1, &d->id, d->build_options, NULL, NULL) != CL_SUCCESS) {
            GGML_OCL_OK(clReleaseProgram(program), "clReleaseProgram");
            program = NULL;
        }
    }
    ggml_free_mem(bin);
    fclose(f);
    if (program == NULL) {
        GGML_LOG_WARN("%s: ignoring unusable cached program %s\n", __func__, path);
    }
    return program;
}

static void cache_store(struct ggml_ocl_device * d, cl_program program, const char * path) {
    cl_uint n_dev = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof(n_dev), &n_dev, NULL) != CL_SUCCESS || n_dev == 0 || n_dev > 256) {
        return;
    }
    cl_device_id ids[256];
    size_t sizes[256];
    unsigned char * bins[256];
    memset(bins, 0, sizeof(bins));
    if (clGetProgramInfo(program, CL_PROGRAM_DEVICES, n_dev*sizeof(cl_device_id), ids, NULL) != CL_SUCCESS ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, n_dev*sizeof(size_t), sizes, NULL) != CL_SUCCESS) {
        return;
    }
    cl_uint mine = n_dev;
    for (cl_uint i = 0; i < n_dev; i++) {
        if (ids[i] == d->id) {
            mine = i;
        }
    }
    if (mine == n_dev || sizes[mine] == 0 || (bins[mine] = ggml_malloc(sizes[mine])) == NULL) {
        ggml_free_mem(mine < n_dev ? bins[mine] : NULL);
        return;
    }
    // entries with a NULL pointer are skipped by the driver
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, n_dev*sizeof(unsigned char *), bins, NULL) == CL_SUCCESS) {
        char tmp[1200];
        const int n = snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long) getpid());
        FILE * f = n > 0 && (size_t) n < sizeof(tmp) ? fopen(tmp, "wb") : NULL;
        bool ok = f != NULL && fwrite(bins[mine], 1, sizes[mine], f) == sizes[mine];
        if (f != NULL) {
            ok = fclose(f) == 0 && ok;
        }
        if (ok && rename(tmp, path) == 0) {
            GGML_LOG_DEBUG("%s: cached %s\n", __func__, path);
        } else {
            remove(tmp);
            GGML_LOG_WARN("%s: cannot write the program cache %s\n", __func__, path);
        }
    }
    ggml_free_mem(bins[mine]);
}

//
// builds
//

static void log_build_failure(const struct ggml_ocl_device * d, enum ggml_ocl_prog prog, cl_program program, cl_int err) {
    GGML_LOG_ERROR("%s: building OpenCL program '%s' for %s (%s) failed: %s (%d); its ops will run elsewhere\n",
        __func__, prog_names[prog], d->name, d->description, ggml_ocl_errstr(err), (int) err);
    size_t len = 0;
    if (program == NULL || clGetProgramBuildInfo(program, d->id, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS || len == 0) {
        return;
    }
    char * log = ggml_malloc(len + 1);
    if (log == NULL) {
        return;
    }
    if (clGetProgramBuildInfo(program, d->id, CL_PROGRAM_BUILD_LOG, len, log, NULL) == CL_SUCCESS) {
        log[len] = '\0';
        GGML_LOG_ERROR("%s: build log of '%s':\n%s\n", __func__, prog_names[prog], log);
    }
    ggml_free_mem(log);
}

// builds program prog; called with d->lock held
static cl_program build_program(struct ggml_ocl_device * d, enum ggml_ocl_prog prog) {
    cl_context ctx = ggml_ocl_device_context(d);
    if (ctx == NULL) {
        return NULL;
    }
    size_t len = 0;
    char * text = program_text(prog, &len);
    if (text == NULL) {
        return NULL;
    }
    char path[1100];
    const bool use_cache = cache_enabled() && cache_path(d, prog, text, len, path, sizeof(path), true);
    cl_program program = use_cache ? cache_load(d, ctx, path) : NULL;
    if (program != NULL) {
        GGML_LOG_DEBUG("%s: program '%s' for %s loaded from %s\n", __func__, prog_names[prog], d->name, path);
        ggml_free_mem(text);
        return program;
    }

    cl_int err = CL_SUCCESS;
    const char * srcs[1] = { text };
    program = clCreateProgramWithSource(ctx, 1, srcs, &len, &err);
    if (err != CL_SUCCESS || program == NULL) {
        log_build_failure(d, prog, NULL, err);
        ggml_free_mem(text);
        return NULL;
    }
    err = clBuildProgram(program, 1, &d->id, d->build_options, NULL, NULL);
    if (err != CL_SUCCESS) {
        log_build_failure(d, prog, program, err);
        GGML_OCL_OK(clReleaseProgram(program), "clReleaseProgram");
        ggml_free_mem(text);
        return NULL;
    }
    if (use_cache) {
        cache_store(d, program, path);
    }
    ggml_free_mem(text);
    return program;
}

bool ggml_ocl_program_ready(struct ggml_ocl_device * d, enum ggml_ocl_prog prog) {
    if ((int) prog < 0 || prog >= GGML_OCL_PROG_COUNT) {
        return false;
    }
    pthread_mutex_lock(&d->lock);
    if (d->prog_state[prog] == GGML_OCL_PROG_NOT_BUILT) {
        d->programs[prog] = build_program(d, prog);
        d->prog_state[prog] = d->programs[prog] != NULL ? GGML_OCL_PROG_READY : GGML_OCL_PROG_FAILED;
    }
    const bool ready = d->prog_state[prog] == GGML_OCL_PROG_READY;
    pthread_mutex_unlock(&d->lock);
    return ready;
}

cl_program ggml_ocl_program_get(struct ggml_ocl_device * d, enum ggml_ocl_prog prog) {
    if (!ggml_ocl_program_ready(d, prog)) {
        return NULL;
    }
    pthread_mutex_lock(&d->lock);
    cl_program p = d->programs[prog];
    if (p != NULL && !GGML_OCL_OK(clRetainProgram(p), "clRetainProgram")) {
        p = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    return p;
}

void ggml_ocl_programs_hold(struct ggml_ocl_device * d) {
    pthread_mutex_lock(&d->lock);
    d->n_backends++;
    pthread_mutex_unlock(&d->lock);
}

void ggml_ocl_programs_drop(struct ggml_ocl_device * d) {
    pthread_mutex_lock(&d->lock);
    if (d->n_backends > 0 && --d->n_backends == 0) {
        for (int i = 0; i < GGML_OCL_PROG_COUNT; i++) {
            if (d->programs[i] != NULL) {
                GGML_OCL_OK(clReleaseProgram(d->programs[i]), "clReleaseProgram");
                d->programs[i]   = NULL;
                d->prog_state[i] = GGML_OCL_PROG_NOT_BUILT;
            }
        }
    }
    pthread_mutex_unlock(&d->lock);
}

//
// kernels: one cl_kernel per (backend, name), created on first use
//

cl_kernel ggml_ocl_get_kernel(struct ggml_ocl_backend * be, enum ggml_ocl_prog prog, const char * name) {
    for (int i = 0; i < be->n_kernels; i++) {
        if (be->kernels[i].prog == prog && strcmp(be->kernels[i].name, name) == 0) {
            return be->kernels[i].kernel;
        }
    }
    cl_program program = ggml_ocl_program_get(be->dev, prog);
    if (program == NULL) {
        GGML_LOG_ERROR("%s: %s: program '%s' is not available (its build failed)\n", __func__, be->name, ggml_ocl_prog_name(prog));
        return NULL;
    }
    if (be->n_kernels == be->cap_kernels) {
        size_t cap = (size_t) be->cap_kernels;
        struct ggml_ocl_kernel_slot * k = ggml_grow_array(be->kernels, &cap, (size_t) be->n_kernels + 1, sizeof(*k), 32);
        if (k == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of host memory\n", __func__);
            GGML_OCL_OK(clReleaseProgram(program), "clReleaseProgram");
            return NULL;
        }
        be->kernels = k;
        be->cap_kernels = (int) cap;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    GGML_OCL_OK(clReleaseProgram(program), "clReleaseProgram"); // the kernel holds its own reference
    if (err != CL_SUCCESS || kernel == NULL) {
        GGML_LOG_ERROR("%s: %s: clCreateKernel(%s) from program '%s' failed: %s (%d)\n",
            __func__, be->name, name, ggml_ocl_prog_name(prog), ggml_ocl_errstr(err), (int) err);
        return NULL;
    }
    be->kernels[be->n_kernels++] = (struct ggml_ocl_kernel_slot) { prog, name, kernel };
    return kernel;
}
