#pragma once

// The canonical text form of a GGUF file's content, the same as tests/data/gguf/canon-dump.py
// prints it from the `gguf` Python package's reader (see that script for the format). Tests
// compare the two texts.

#include "gguf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct canon_text {
    char * s;
    size_t len;
    size_t cap;
};

static inline void canon_printf(struct canon_text * t, const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if (t->len + (size_t) n + 1 > t->cap) {
        size_t cap = t->cap == 0 ? 4096 : t->cap;
        while (cap < t->len + (size_t) n + 1) {
            cap *= 2;
        }
        char * s = realloc(t->s, cap);
        if (s == NULL) {
            va_end(ap2);
            return;
        }
        t->s = s;
        t->cap = cap;
    }
    vsnprintf(t->s + t->len, (size_t) n + 1, fmt, ap2);
    va_end(ap2);
    t->len += (size_t) n;
}

static inline void canon_hex(struct canon_text * t, const char * s) {
    if (s == NULL || s[0] == '\0') {
        canon_printf(t, "-");
        return;
    }
    for (const unsigned char * p = (const unsigned char *) s; *p; p++) {
        canon_printf(t, "%02x", *p);
    }
}

static inline uint64_t canon_fnv1a64(const void * data, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    const unsigned char * p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static inline uint64_t canon_tensor_hash(struct ggml_context * ctx_data, const char * name, size_t size) {
    struct ggml_tensor * t = ctx_data != NULL ? ggml_get_tensor(ctx_data, name) : NULL;
    if (t == NULL || t->data == NULL || ggml_nbytes(t) != size) {
        return 0;
    }
    return canon_fnv1a64(t->data, size);
}

static inline void canon_value(struct canon_text * t, enum gguf_type type, const void * p) {
    switch (type) {
        case GGUF_TYPE_UINT8:   canon_printf(t, "%u", (unsigned) *(const uint8_t *) p); break;
        case GGUF_TYPE_INT8:    canon_printf(t, "%d", (int) *(const int8_t *) p); break;
        case GGUF_TYPE_UINT16:  { uint16_t v; memcpy(&v, p, 2); canon_printf(t, "%u", (unsigned) v); } break;
        case GGUF_TYPE_INT16:   { int16_t v;  memcpy(&v, p, 2); canon_printf(t, "%d", (int) v); } break;
        case GGUF_TYPE_UINT32:  { uint32_t v; memcpy(&v, p, 4); canon_printf(t, "%" PRIu32, v); } break;
        case GGUF_TYPE_INT32:   { int32_t v;  memcpy(&v, p, 4); canon_printf(t, "%" PRId32, v); } break;
        case GGUF_TYPE_FLOAT32: { float v;    memcpy(&v, p, 4); canon_printf(t, "%.9g", (double) v); } break;
        case GGUF_TYPE_BOOL:    canon_printf(t, "%d", *(const int8_t *) p != 0); break;
        case GGUF_TYPE_UINT64:  { uint64_t v; memcpy(&v, p, 8); canon_printf(t, "%" PRIu64, v); } break;
        case GGUF_TYPE_INT64:   { int64_t v;  memcpy(&v, p, 8); canon_printf(t, "%" PRId64, v); } break;
        case GGUF_TYPE_FLOAT64: { double v;   memcpy(&v, p, 8); canon_printf(t, "%.17g", v); } break;
        default: canon_printf(t, "?"); break;
    }
}

static inline size_t canon_type_size(enum gguf_type type) {
    switch (type) {
        case GGUF_TYPE_UINT8: case GGUF_TYPE_INT8: case GGUF_TYPE_BOOL: return 1;
        case GGUF_TYPE_UINT16: case GGUF_TYPE_INT16: return 2;
        case GGUF_TYPE_UINT32: case GGUF_TYPE_INT32: case GGUF_TYPE_FLOAT32: return 4;
        default: return 8;
    }
}

// ctx_data: the tensors with their data, as gguf_init_* made them (NULL: hashes printed as 0)
static inline char * canon_dump(const struct gguf_context * g, struct ggml_context * ctx_data) {
    struct canon_text t = { 0 };
    canon_printf(&t, "version %" PRIu32 "\nalignment %zu\n", gguf_get_version(g), gguf_get_alignment(g));
    if (gguf_get_n_tensors(g) > 0) {
        canon_printf(&t, "data_offset %zu\n", gguf_get_data_offset(g));
    }
    for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
        canon_printf(&t, "kv ");
        canon_hex(&t, gguf_get_key(g, i));
        const enum gguf_type type = gguf_get_kv_type(g, i);
        if (type == GGUF_TYPE_ARRAY) {
            const enum gguf_type at = gguf_get_arr_type(g, i);
            const size_t n = gguf_get_arr_n(g, i);
            canon_printf(&t, " arr[%s] %zu", gguf_type_name(at), n);
            for (size_t j = 0; j < n; j++) {
                canon_printf(&t, " ");
                if (at == GGUF_TYPE_STRING) {
                    canon_hex(&t, gguf_get_arr_str(g, i, j));
                } else {
                    canon_value(&t, at, (const char *) gguf_get_arr_data(g, i) + j * canon_type_size(at));
                }
            }
        } else {
            canon_printf(&t, " %s ", gguf_type_name(type));
            if (type == GGUF_TYPE_STRING) {
                canon_hex(&t, gguf_get_val_str(g, i));
            } else {
                canon_value(&t, type, gguf_get_val_data(g, i));
            }
        }
        canon_printf(&t, "\n");
    }
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const int64_t * ne = gguf_get_tensor_ne(g, i);
        const size_t off = gguf_get_tensor_offset(g, i);
        canon_printf(&t, "tensor ");
        canon_hex(&t, gguf_get_tensor_name(g, i));
        canon_printf(&t, " %d %" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 " %zu %016" PRIx64 "\n",
                     (int) gguf_get_tensor_type(g, i), ne[0], ne[1], ne[2], ne[3], off,
                     canon_tensor_hash(ctx_data, gguf_get_tensor_name(g, i), gguf_get_tensor_size(g, i)));
    }
    return t.s;
}

// the whole file in memory (NULL when it cannot be read); *size receives its size
static inline void * canon_read_file(const char * path, size_t * size) {
    FILE * f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void * buf = malloc(n > 0 ? (size_t) n : 1);
    if (buf != NULL && fread(buf, 1, (size_t) n, f) != (size_t) n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t) n;
    return buf;
}
