// gguf: inspect and check GGUF files.
//
//   gguf info  FILE   keys and values (long ones shortened) and the tensor table (shape, type,
//                     size, offset), in the layout of the gguf package's gguf-dump
//   gguf check FILE   reads every key and validates every tensor's data (ggml_validate_row_data:
//                     NaN/Inf in float types, bad scales in quantized blocks); exit 1 on a finding
//
// Exit status: 0 ok, 1 invalid file or finding, 2 usage.

#include "ggml.h"
#include "gguf.h"
#include "gguf-load.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ARRAY_SHOWN = 8, MAX_STRING_SHOWN = 60 };

static void upper(char * dst, size_t n, const char * src) {
    size_t i = 0;
    for (; src[i] != '\0' && i + 1 < n; i++) {
        dst[i] = (char) toupper((unsigned char) src[i]);
    }
    dst[i] = '\0';
}

static const char * value_type_name(enum gguf_type t) {
    static const char * const names[GGUF_TYPE_COUNT] = {
        "UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY",
        "UINT64", "INT64", "FLOAT64",
    };
    return (int) t >= 0 && t < GGUF_TYPE_COUNT ? names[t] : "?";
}

// a string in quotes, control characters escaped, shortened to MAX_STRING_SHOWN bytes
static void print_str(const char * s) {
    putchar('\'');
    size_t n = 0;
    for (const unsigned char * p = (const unsigned char *) s; *p != '\0'; p++, n++) {
        if (n == MAX_STRING_SHOWN) {
            // do not cut a UTF-8 sequence in the middle
            while ((*p & 0xC0) == 0x80) {
                putchar(*p++);
            }
            fputs("...", stdout);
            break;
        }
        if (*p == '\n') fputs("\\n", stdout);
        else if (*p == '\t') fputs("\\t", stdout);
        else if (*p == '\'') fputs("\\'", stdout);
        else if (*p < 0x20) printf("\\x%02x", *p);
        else putchar(*p);
    }
    putchar('\'');
}

static void print_scalar(enum gguf_type t, const void * p) {
    switch (t) {
        case GGUF_TYPE_UINT8:   printf("%u", (unsigned) *(const uint8_t *) p); break;
        case GGUF_TYPE_INT8:    printf("%d", (int) *(const int8_t *) p); break;
        case GGUF_TYPE_UINT16:  { uint16_t v; memcpy(&v, p, 2); printf("%u", (unsigned) v); } break;
        case GGUF_TYPE_INT16:   { int16_t v;  memcpy(&v, p, 2); printf("%d", (int) v); } break;
        case GGUF_TYPE_UINT32:  { uint32_t v; memcpy(&v, p, 4); printf("%" PRIu32, v); } break;
        case GGUF_TYPE_INT32:   { int32_t v;  memcpy(&v, p, 4); printf("%" PRId32, v); } break;
        case GGUF_TYPE_FLOAT32: { float v;    memcpy(&v, p, 4); printf("%.9g", (double) v); } break;
        case GGUF_TYPE_BOOL:    fputs(*(const int8_t *) p ? "True" : "False", stdout); break;
        case GGUF_TYPE_UINT64:  { uint64_t v; memcpy(&v, p, 8); printf("%" PRIu64, v); } break;
        case GGUF_TYPE_INT64:   { int64_t v;  memcpy(&v, p, 8); printf("%" PRId64, v); } break;
        case GGUF_TYPE_FLOAT64: { double v;   memcpy(&v, p, 8); printf("%.17g", v); } break;
        default: fputs("?", stdout); break;
    }
}

static size_t elem_size(enum gguf_type t) {
    switch (t) {
        case GGUF_TYPE_UINT8: case GGUF_TYPE_INT8: case GGUF_TYPE_BOOL: return 1;
        case GGUF_TYPE_UINT16: case GGUF_TYPE_INT16: return 2;
        case GGUF_TYPE_UINT32: case GGUF_TYPE_INT32: case GGUF_TYPE_FLOAT32: return 4;
        default: return 8;
    }
}

static void print_kv(const struct gguf_context * g, int64_t i) {
    const enum gguf_type t = gguf_get_kv_type(g, i);
    char type_col[16];
    size_t n = 1;
    if (t == GGUF_TYPE_ARRAY) {
        n = gguf_get_arr_n(g, i);
        snprintf(type_col, sizeof(type_col), "[%s]", value_type_name(gguf_get_arr_type(g, i)));
    } else {
        snprintf(type_col, sizeof(type_col), "%s", value_type_name(t));
    }
    printf("%7" PRId64 ": %-10s | %8zu | %s = ", i + 4, type_col, n, gguf_get_key(g, i));
    if (t == GGUF_TYPE_STRING) {
        print_str(gguf_get_val_str(g, i));
    } else if (t != GGUF_TYPE_ARRAY) {
        print_scalar(t, gguf_get_val_data(g, i));
    } else {
        const enum gguf_type at = gguf_get_arr_type(g, i);
        putchar('[');
        for (size_t j = 0; j < n && j < MAX_ARRAY_SHOWN; j++) {
            if (j > 0) fputs(", ", stdout);
            if (at == GGUF_TYPE_STRING) {
                print_str(gguf_get_arr_str(g, i, j));
            } else {
                print_scalar(at, (const char *) gguf_get_arr_data(g, i) + j * elem_size(at));
            }
        }
        if (n > MAX_ARRAY_SHOWN) fputs(", ...", stdout);
        putchar(']');
    }
    putchar('\n');
}

static int cmd_info(const char * fname) {
    struct gguf_init_params p = { true, NULL };
    struct gguf_context * g = gguf_init_from_file(fname, p);
    if (g == NULL) {
        return 1;
    }
    const int64_t n_kv = gguf_get_n_kv(g);
    const int64_t n_tensors = gguf_get_n_tensors(g);
    printf("* File: %s: GGUF version %" PRIu32 ", alignment %zu, tensor data at offset %zu\n",
           fname, gguf_get_version(g), gguf_get_alignment(g), gguf_get_data_offset(g));
    printf("* Dumping %" PRId64 " key/value pair(s)\n", n_kv + 3);
    printf("%7d: %-10s | %8d | GGUF.version = %" PRIu32 "\n", 1, "UINT32", 1, gguf_get_version(g));
    printf("%7d: %-10s | %8d | GGUF.tensor_count = %" PRId64 "\n", 2, "UINT64", 1, n_tensors);
    printf("%7d: %-10s | %8d | GGUF.kv_count = %" PRId64 "\n", 3, "UINT64", 1, n_kv);
    for (int64_t i = 0; i < n_kv; i++) {
        print_kv(g, i);
    }
    printf("* Dumping %" PRId64 " tensor(s)\n", n_tensors);
    printf("%7s: %10s | %26s | %-7s | %12s | %12s | %s\n", "#", "elements", "shape (ne0..ne3)", "type", "bytes", "offset", "name");
    uint64_t total = 0;
    for (int64_t i = 0; i < n_tensors; i++) {
        const int64_t * ne = gguf_get_tensor_ne(g, i);
        char type[16];
        upper(type, sizeof(type), ggml_type_name(gguf_get_tensor_type(g, i)));
        const size_t size = gguf_get_tensor_size(g, i);
        total += size;
        printf("%7" PRId64 ": %10" PRId64 " | %5" PRId64 ", %5" PRId64 ", %5" PRId64 ", %5" PRId64 " | %-7s | %12zu | %12zu | %s\n",
               i + 1, ne[0] * ne[1] * ne[2] * ne[3], ne[0], ne[1], ne[2], ne[3], type, size,
               gguf_get_data_offset(g) + gguf_get_tensor_offset(g, i), gguf_get_tensor_name(g, i));
    }
    printf("* %" PRId64 " tensor(s), %" PRIu64 " bytes of tensor data (%.2f MiB)\n", n_tensors, total, (double) total / (1 << 20));
    gguf_free(g);
    return 0;
}

static int cmd_check(const char * fname) {
    struct ggml_context * cd = NULL;
    struct gguf_init_params p = { true, &cd };
    struct gguf_context * g = gguf_init_from_file(fname, p);
    if (g == NULL) {
        fprintf(stderr, "gguf check: %s: the metadata is invalid\n", fname);
        return 1;
    }
    // every value is reachable through its getter
    int bad_keys = 0;
    for (int64_t i = 0; i < gguf_get_n_kv(g); i++) {
        const enum gguf_type t = gguf_get_kv_type(g, i);
        if (t == GGUF_TYPE_STRING ? gguf_get_val_str(g, i) == NULL :
            t == GGUF_TYPE_ARRAY ? (gguf_get_arr_n(g, i) > 0 && gguf_get_arr_type(g, i) != GGUF_TYPE_STRING &&
                                    gguf_get_arr_data(g, i) == NULL) :
            gguf_get_val_data(g, i) == NULL) {
            fprintf(stderr, "gguf check: key '%s' cannot be read\n", gguf_get_key(g, i));
            bad_keys++;
        }
    }
    struct gguf_file_map * map = gguf_file_map_open(fname);
    ggml_backend_buffer_t buf = map != NULL ? gguf_map_tensors(g, cd, map) : NULL;
    if (buf == NULL && gguf_get_n_tensors(g) > 0) {
        fprintf(stderr, "gguf check: %s: cannot map the tensor data\n", fname);
        ggml_free(cd);
        gguf_free(g);
        gguf_file_map_free(map);
        return 1;
    }
    int bad = 0;
    int64_t n = 0;
    uint64_t bytes = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(cd); t != NULL; t = ggml_get_next_tensor(cd, t)) {
        n++;
        bytes += ggml_nbytes(t);
        if (!ggml_validate_row_data(t->type, t->data, ggml_nbytes(t))) {
            fprintf(stderr, "gguf check: tensor '%s' (%s): invalid data (see the message above)\n", t->name, ggml_type_name(t->type));
            bad++;
        }
    }
    printf("gguf check: %s: %" PRId64 " keys%s, %" PRId64 " tensors, %" PRIu64 " bytes validated: %s\n",
           fname, gguf_get_n_kv(g), bad_keys ? " (some unreadable)" : "", n, bytes,
           bad == 0 && bad_keys == 0 ? "all valid" : "INVALID");
    if (buf != NULL) {
        ggml_backend_buffer_free(buf);
    }
    ggml_free(cd);
    gguf_free(g);
    gguf_file_map_free(map);
    return bad == 0 && bad_keys == 0 ? 0 : 1;
}

int main(int argc, char ** argv) {
    if (argc == 3 && strcmp(argv[1], "info") == 0) {
        return cmd_info(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "check") == 0) {
        return cmd_check(argv[2]);
    }
    fprintf(stderr, "usage: gguf info FILE    keys, values and the tensor table\n"
                    "       gguf check FILE   read every key, validate every tensor's data\n");
    return 2;
}
