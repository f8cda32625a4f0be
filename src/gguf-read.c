// GGUF reader: parses a file from any byte source (memory, FILE, user callback) into a
// gguf_context, and optionally creates the tensors in a ggml_context with their data.
//
// Every count and length is bounded by the bytes the source still holds before anything is
// allocated, every size computation is overflow-checked, and each refusal names the offset and
// the field, e.g. "gguf: offset 1234: tensor 7 ('blk.0.attn_q.weight'): n_dims 9 > 4".

#include "gguf-impl.h"

#include <errno.h>
#include <inttypes.h>

struct gguf_src {
    gguf_reader_callback_t read;
    void *   userdata;
    uint64_t size;       // bytes the source holds
    uint64_t pos;
    size_t   max_chunk;  // largest request to the callback (never 0)
};

#define SRC_ERROR(src, ...) do {                                              \
        GGML_LOG_ERROR("gguf: offset %" PRIu64 ": ", (src)->pos);             \
        GGML_LOG_CONT(__VA_ARGS__);                                           \
        GGML_LOG_CONT("\n");                                                  \
    } while (0)

static uint64_t src_left(const struct gguf_src * src) {
    return src->pos <= src->size ? src->size - src->pos : 0;
}

static bool src_read(struct gguf_src * src, void * dst, size_t n, const char * field) {
    if (n > src_left(src)) {
        SRC_ERROR(src, "truncated: %s needs %zu bytes, %" PRIu64 " left", field, n, src_left(src));
        return false;
    }
    size_t done = 0;
    while (done < n) {
        const size_t want = n - done < src->max_chunk ? n - done : src->max_chunk;
        const size_t got = src->read(src->userdata, (char *) dst + done, src->pos, want);
        if (got == 0 || got > want) {
            SRC_ERROR(src, "read error in %s (%zu of %zu bytes read)", field, done, n);
            return false;
        }
        done     += got;
        src->pos += got;
    }
    return true;
}

static bool read_u32(struct gguf_src * s, uint32_t * v, const char * f) { return src_read(s, v, sizeof(*v), f); }
static bool read_i32(struct gguf_src * s, int32_t  * v, const char * f) { return src_read(s, v, sizeof(*v), f); }
static bool read_u64(struct gguf_src * s, uint64_t * v, const char * f) { return src_read(s, v, sizeof(*v), f); }
static bool read_i64(struct gguf_src * s, int64_t  * v, const char * f) { return src_read(s, v, sizeof(*v), f); }

// a length-prefixed string, returned NUL-terminated in *out (caller frees)
static bool read_str(struct gguf_src * src, char ** out, const char * field) {
    uint64_t len;
    *out = NULL;
    if (!read_u64(src, &len, field)) {
        return false;
    }
    if (len > src_left(src) || len >= SIZE_MAX) {
        SRC_ERROR(src, "%s: string length %" PRIu64 " exceeds the %" PRIu64 " bytes left", field, len, src_left(src));
        return false;
    }
    char * s = ggml_malloc((size_t) len + 1);
    if (s == NULL) {
        SRC_ERROR(src, "%s: out of memory for a string of %" PRIu64 " bytes", field, len);
        return false;
    }
    if (!src_read(src, s, (size_t) len, field)) {
        ggml_free_mem(s);
        return false;
    }
    s[len] = '\0';
    *out = s;
    return true;
}

// reads the value of one pair (after its key) into kv
static bool read_value(struct gguf_src * src, struct gguf_kv * kv, const char * key) {
    int32_t type;
    char field[96];
    snprintf(field, sizeof(field), "type of key '%.60s'", key);
    if (!read_i32(src, &type, field)) {
        return false;
    }
    bool is_array = false;
    uint64_t n = 1;
    if (type == GGUF_TYPE_ARRAY) {
        is_array = true;
        snprintf(field, sizeof(field), "element type of array '%.60s'", key);
        if (!read_i32(src, &type, field)) {
            return false;
        }
        snprintf(field, sizeof(field), "length of array '%.60s'", key);
        if (!read_u64(src, &n, field)) {
            return false;
        }
    }
    if (type < 0 || type >= GGUF_TYPE_COUNT || type == GGUF_TYPE_ARRAY) {
        SRC_ERROR(src, "key '%s' has invalid %stype %d", key, is_array ? "element " : "", (int) type);
        return false;
    }
    // each element takes at least one byte in the file (a string at least its 8-byte length)
    const uint64_t min_size = type == GGUF_TYPE_STRING ? 8 : gguf_type_size((enum gguf_type) type);
    if (n > src_left(src) / min_size) {
        SRC_ERROR(src, "array '%s' of %" PRIu64 " elements of %s does not fit in the %" PRIu64 " bytes left",
                  key, n, gguf_type_name((enum gguf_type) type), src_left(src));
        return false;
    }
    if (!gguf_kv_init(kv, key, (enum gguf_type) type, is_array, (size_t) n)) {
        SRC_ERROR(src, "out of memory for the value of key '%s'", key);
        return false;
    }
    snprintf(field, sizeof(field), "value of key '%.60s'", key);
    if (type == GGUF_TYPE_STRING) {
        for (size_t i = 0; i < kv->n; i++) {
            if (!read_str(src, &kv->strs[i], field)) {
                return false;
            }
        }
        return true;
    }
    return src_read(src, kv->data, (size_t) n * (size_t) min_size, field);
}

static bool read_kv_section(struct gguf_src * src, struct gguf_context * ctx, int64_t n_kv) {
    for (int64_t i = 0; i < n_kv; i++) {
        char field[48];
        snprintf(field, sizeof(field), "key %" PRId64, i);
        char * key = NULL;
        if (!read_str(src, &key, field)) {
            return false;
        }
        if (key[0] == '\0') {
            SRC_ERROR(src, "key %" PRId64 " is empty", i);
            ggml_free_mem(key);
            return false;
        }
        if (gguf_find_key(ctx, key) >= 0) {
            SRC_ERROR(src, "duplicate key '%s' (key %" PRId64 ")", key, i);
            ggml_free_mem(key);
            return false;
        }
        struct gguf_kv kv;
        memset(&kv, 0, sizeof(kv));
        const bool ok = read_value(src, &kv, key) && gguf_kv_push(ctx, &kv);
        gguf_kv_clear(&kv);
        ggml_free_mem(key);
        if (!ok) {
            return false;
        }
    }
    return true;
}

static bool read_tensor_info(struct gguf_src * src, struct gguf_context * ctx, int64_t i) {
    char field[48];
    snprintf(field, sizeof(field), "name of tensor %" PRId64, i);
    char * name = NULL;
    if (!read_str(src, &name, field)) {
        return false;
    }
    bool ok = false;
    uint32_t n_dims;
    int64_t ne[GGML_MAX_DIMS] = { 1, 1, 1, 1 };
    int32_t type;
    uint64_t offset;
    if (strlen(name) >= GGML_MAX_NAME) {
        SRC_ERROR(src, "tensor %" PRId64 ": name '%.40s...' is %zu bytes, at most %d", i, name, strlen(name), GGML_MAX_NAME - 1);
        goto done;
    }
    if (gguf_find_tensor(ctx, name) >= 0) {
        SRC_ERROR(src, "tensor %" PRId64 ": duplicate tensor name '%s'", i, name);
        goto done;
    }
    snprintf(field, sizeof(field), "n_dims of tensor %" PRId64, i);
    if (!read_u32(src, &n_dims, field)) {
        goto done;
    }
    if (n_dims > GGML_MAX_DIMS) {
        SRC_ERROR(src, "tensor %" PRId64 " ('%s'): n_dims %" PRIu32 " > %d", i, name, n_dims, GGML_MAX_DIMS);
        goto done;
    }
    snprintf(field, sizeof(field), "shape of tensor %" PRId64, i);
    for (uint32_t d = 0; d < n_dims; d++) {
        if (!read_i64(src, &ne[d], field)) {
            goto done;
        }
    }
    snprintf(field, sizeof(field), "type of tensor %" PRId64, i);
    if (!read_i32(src, &type, field)) {
        goto done;
    }
    snprintf(field, sizeof(field), "offset of tensor %" PRId64, i);
    if (!read_u64(src, &offset, field)) {
        goto done;
    }
    if (!gguf_tensor_shape_valid(name, (enum ggml_type) type, ne, "gguf")) {
        SRC_ERROR(src, "tensor %" PRId64 " ('%s') refused", i, name);
        goto done;
    }
    struct ggml_tensor t;
    gguf_tensor_fill(&t, name, (enum ggml_type) type, ne);
    ok = gguf_tensor_info_push(ctx, &t, offset);
done:
    ggml_free_mem(name);
    return ok;
}

// the data section: tensors in order, each at the padded end of the one before
static bool check_layout(struct gguf_src * src, struct gguf_context * ctx) {
    uint64_t expected = 0;
    for (int64_t i = 0; i < ctx->n_tensors; i++) {
        const struct gguf_tensor_info * ti = &ctx->info[i];
        if (ti->offset != expected) {
            SRC_ERROR(src, "tensor %" PRId64 " ('%s') has data offset %" PRIu64 ", expected %" PRIu64
                      " (tensors must be contiguous, in order, padded to %zu)",
                      i, ti->t.name, ti->offset, expected, ctx->alignment);
            return false;
        }
        const uint64_t padded = gguf_pad(ggml_nbytes(&ti->t), ctx->alignment);
        if (padded > UINT64_MAX - expected || expected + padded > SIZE_MAX / 2) {
            SRC_ERROR(src, "tensor %" PRId64 " ('%s'): the data section overflows", i, ti->t.name);
            return false;
        }
        expected += padded;
    }
    ctx->size = (size_t) expected;
    if (ctx->n_tensors > 0) {
        // the last tensor's padding may be missing at the end of the file
        const struct gguf_tensor_info * last = &ctx->info[ctx->n_tensors - 1];
        const uint64_t end = last->offset + ggml_nbytes(&last->t);
        if (end > src_left(src)) {
            SRC_ERROR(src, "truncated: the tensor data needs %" PRIu64 " bytes from here, the source has %" PRIu64,
                      end, src_left(src));
            return false;
        }
    }
    return true;
}

static bool read_header(struct gguf_src * src, struct gguf_context * ctx, int64_t * n_tensors, int64_t * n_kv) {
    char magic[4];
    if (!src_read(src, magic, 4, "magic")) {
        return false;
    }
    if (memcmp(magic, GGUF_MAGIC, 4) != 0) {
        src->pos = 0;
        SRC_ERROR(src, "bad magic %02x %02x %02x %02x, expected \"GGUF\"",
                  (uint8_t) magic[0], (uint8_t) magic[1], (uint8_t) magic[2], (uint8_t) magic[3]);
        return false;
    }
    if (!read_u32(src, &ctx->version, "version")) {
        return false;
    }
    if (ctx->version == 1 || ctx->version > GGUF_VERSION || ctx->version == 0) {
        if ((ctx->version & 0xFFFF) == 0) {
            SRC_ERROR(src, "version %" PRIu32 ": a big-endian file? only little-endian files are read", ctx->version);
        } else {
            SRC_ERROR(src, "version %" PRIu32 " is not supported (2 and %d are)", ctx->version, GGUF_VERSION);
        }
        return false;
    }
    if (!read_i64(src, n_tensors, "tensor count") || !read_i64(src, n_kv, "key/value count")) {
        return false;
    }
    // a tensor info takes at least 8+4+4+8 bytes, a pair at least 8+1+4+1
    if (*n_tensors < 0 || (uint64_t) *n_tensors > src_left(src) / 24) {
        SRC_ERROR(src, "tensor count %" PRId64 " is negative or more than the file can hold", *n_tensors);
        return false;
    }
    if (*n_kv < 0 || (uint64_t) *n_kv > src_left(src) / 14) {
        SRC_ERROR(src, "key/value count %" PRId64 " is negative or more than the file can hold", *n_kv);
        return false;
    }
    return true;
}

// parses the metadata; on success src->pos is the start of the data section
static struct gguf_context * read_meta(struct gguf_src * src) {
    struct gguf_context * ctx = gguf_init_empty();
    if (ctx == NULL) {
        return NULL;
    }
    int64_t n_tensors = 0;
    int64_t n_kv = 0;
    bool ok = read_header(src, ctx, &n_tensors, &n_kv) && read_kv_section(src, ctx, n_kv);
    if (ok) {
        const int64_t id = gguf_find_key(ctx, GGUF_KEY_GENERAL_ALIGNMENT);
        if (id >= 0) {
            const struct gguf_kv * kv = &ctx->kv[id];
            uint32_t a = 0;
            if (!kv->is_array && kv->type == GGUF_TYPE_UINT32) {
                memcpy(&a, kv->data, sizeof(a));
            }
            if (kv->is_array || kv->type != GGUF_TYPE_UINT32 || a == 0 || (a & (a - 1)) != 0) {
                SRC_ERROR(src, "%s must be a u32 power of 2", GGUF_KEY_GENERAL_ALIGNMENT);
                ok = false;
            } else {
                ctx->alignment = a;
            }
        }
    }
    for (int64_t i = 0; ok && i < n_tensors; i++) {
        ok = read_tensor_info(src, ctx, i);
    }
    if (ok && n_tensors > 0) {
        const uint64_t start = gguf_pad(src->pos, ctx->alignment);
        if (start > src->size) {
            SRC_ERROR(src, "truncated: the data section would start at %" PRIu64 ", past the end (%" PRIu64 ")",
                      start, src->size);
            ok = false;
        }
        src->pos = start;
    }
    ctx->offset = (size_t) src->pos;
    ok = ok && check_layout(src, ctx);
    if (!ok) {
        gguf_free(ctx);
        return NULL;
    }
    return ctx;
}

// creates the tensors in a new ggml_context, reading the data section unless no_alloc
static bool create_tensors(struct gguf_src * src, struct gguf_context * ctx, struct gguf_init_params params) {
    const int64_t n = ctx->n_tensors;
    const size_t overhead = ggml_tensor_overhead();
    if ((uint64_t) n + 1 > SIZE_MAX / overhead) {
        SRC_ERROR(src, "%" PRId64 " tensors overflow the context size", n);
        return false;
    }
    size_t mem_size = (size_t) (n + 1) * overhead;
    if (!params.no_alloc) {
        if (ctx->size > SIZE_MAX - mem_size) {
            SRC_ERROR(src, "the data section (%zu bytes) overflows the context size", ctx->size);
            return false;
        }
        mem_size += ctx->size;
    }
    struct ggml_init_params ip = { mem_size, NULL, params.no_alloc };
    struct ggml_context * ctx_data = ggml_init(ip);
    if (ctx_data == NULL) {
        SRC_ERROR(src, "cannot create a ggml context of %zu bytes for the tensors", mem_size);
        return false;
    }
    bool ok = true;
    char * blob = NULL;
    if (!params.no_alloc) {
        struct ggml_tensor * data = ggml_new_tensor_1d(ctx_data, GGML_TYPE_I8, (int64_t) ctx->size);
        ok = data != NULL;
        if (ok) {
            ggml_set_name(data, "GGUF tensor data binary blob");
            blob = data->data;
            // the last tensor's padding may be missing at the end of the source
            const size_t avail = (size_t) (src_left(src) < ctx->size ? src_left(src) : ctx->size);
            ok = src_read(src, blob, avail, "tensor data");
            if (ok && avail < ctx->size) {
                memset(blob + avail, 0, ctx->size - avail);
            }
            ctx->data = blob;
        }
        ggml_set_no_alloc(ctx_data, true);
    }
    for (int64_t i = 0; ok && i < n; i++) {
        const struct gguf_tensor_info * ti = &ctx->info[i];
        struct ggml_tensor * t = ggml_new_tensor(ctx_data, ti->t.type, GGML_MAX_DIMS, ti->t.ne);
        ok = t != NULL;
        if (ok) {
            ggml_set_name(t, ti->t.name);
            if (blob != NULL) {
                t->data = blob + ti->offset;
                // so that the context read can be written out again as it is
                ctx->info[i].t.data = t->data;
            }
        }
    }
    if (!ok) {
        GGML_LOG_ERROR("gguf: failed to create the tensors\n");
        ggml_free(ctx_data);
        ctx->data = NULL;
        for (int64_t i = 0; i < n; i++) {
            ctx->info[i].t.data = NULL;
        }
        return false;
    }
    ggml_set_no_alloc(ctx_data, params.no_alloc);
    *params.ctx = ctx_data;
    return true;
}

static struct gguf_context * read_all(struct gguf_src * src, struct gguf_init_params params) {
    if (params.ctx != NULL) {
        *params.ctx = NULL;
    }
    struct gguf_context * ctx = read_meta(src);
    if (ctx == NULL) {
        return NULL;
    }
    if (params.ctx != NULL && !create_tensors(src, ctx, params)) {
        gguf_free(ctx);
        return NULL;
    }
    return ctx;
}

struct gguf_context * gguf_init_from_callback(gguf_reader_callback_t callback, void * userdata, size_t max_chunk_read,
                                              uint64_t max_expected_size, struct gguf_init_params params) {
    GGML_CHECK_RET(callback != NULL, NULL, "callback is NULL");
    struct gguf_src src = { callback, userdata, max_expected_size, 0, max_chunk_read == 0 ? SIZE_MAX : max_chunk_read };
    return read_all(&src, params);
}

struct buffer_source {
    const uint8_t * data;
    size_t          size;
};

static size_t read_from_buffer(void * userdata, void * output, uint64_t offset, size_t len) {
    const struct buffer_source * b = userdata;
    if (offset >= b->size) {
        return 0;
    }
    const size_t n = b->size - (size_t) offset < len ? b->size - (size_t) offset : len;
    memcpy(output, b->data + offset, n);
    return n;
}

struct gguf_context * gguf_init_from_buffer(const void * data, size_t size, struct gguf_init_params params) {
    GGML_CHECK_RET(data != NULL || size == 0, NULL, "data is NULL");
    struct buffer_source b = { data, size };
    struct gguf_src src = { read_from_buffer, &b, size, 0, SIZE_MAX };
    return read_all(&src, params);
}

struct file_source {
    FILE *   file;
    uint64_t start;     // the file position the GGUF data starts at
    uint64_t pos;       // where the next fread reads (relative to start)
};

static size_t read_from_file(void * userdata, void * output, uint64_t offset, size_t len) {
    struct file_source * f = userdata;
    if (offset != f->pos) {
        if (offset > (uint64_t) INT64_MAX - f->start || fseeko(f->file, (off_t) (f->start + offset), SEEK_SET) != 0) {
            return 0;
        }
        f->pos = offset;
    }
    const size_t n = fread(output, 1, len, f->file);
    f->pos += n;
    return n;
}

struct gguf_context * gguf_init_from_file_ptr(FILE * file, struct gguf_init_params params) {
    GGML_CHECK_RET(file != NULL, NULL, "file is NULL");
    // the size bounds every count and length read; a stream without one reads unbounded
    const off_t start = ftello(file);
    uint64_t size = UINT64_MAX;
    if (start >= 0 && fseeko(file, 0, SEEK_END) == 0) {
        const off_t end = ftello(file);
        if (end >= start && fseeko(file, start, SEEK_SET) == 0) {
            size = (uint64_t) (end - start);
        }
    }
    struct file_source f = { file, start >= 0 ? (uint64_t) start : 0, 0 };
    struct gguf_src src = { read_from_file, &f, size, 0, SIZE_MAX };
    return read_all(&src, params);
}

struct gguf_context * gguf_init_from_file(const char * fname, struct gguf_init_params params) {
    if (params.ctx != NULL) {
        *params.ctx = NULL;
    }
    GGML_CHECK_RET(fname != NULL, NULL, "fname is NULL");
    FILE * file = fopen(fname, "rb");
    if (file == NULL) {
        GGML_LOG_ERROR("%s: cannot open '%s': %s\n", __func__, fname, strerror(errno));
        return NULL;
    }
    struct gguf_context * ctx = gguf_init_from_file_ptr(file, params);
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: '%s' is not a valid GGUF file (see the message above)\n", __func__, fname);
    }
    fclose(file);
    return ctx;
}
