// GGUF key/value store: context lifetime, typed getters and setters, arrays, key removal.
// Every misuse (wrong type, id out of range, NULL argument) logs and gives a neutral result.

#include "gguf-impl.h"

#include <inttypes.h>

static const char * const GGUF_TYPE_NAMES[GGUF_TYPE_COUNT] = {
    [GGUF_TYPE_UINT8]   = "u8",
    [GGUF_TYPE_INT8]    = "i8",
    [GGUF_TYPE_UINT16]  = "u16",
    [GGUF_TYPE_INT16]   = "i16",
    [GGUF_TYPE_UINT32]  = "u32",
    [GGUF_TYPE_INT32]   = "i32",
    [GGUF_TYPE_FLOAT32] = "f32",
    [GGUF_TYPE_BOOL]    = "bool",
    [GGUF_TYPE_STRING]  = "str",
    [GGUF_TYPE_ARRAY]   = "arr",
    [GGUF_TYPE_UINT64]  = "u64",
    [GGUF_TYPE_INT64]   = "i64",
    [GGUF_TYPE_FLOAT64] = "f64",
};

const char * gguf_type_name(enum gguf_type type) {
    if ((int) type < 0 || type >= GGUF_TYPE_COUNT) {
        return NULL;
    }
    return GGUF_TYPE_NAMES[type];
}

size_t gguf_type_size(enum gguf_type type) {
    switch (type) {
        case GGUF_TYPE_UINT8:   case GGUF_TYPE_INT8:  case GGUF_TYPE_BOOL:  return 1;
        case GGUF_TYPE_UINT16:  case GGUF_TYPE_INT16:                       return 2;
        case GGUF_TYPE_UINT32:  case GGUF_TYPE_INT32: case GGUF_TYPE_FLOAT32: return 4;
        case GGUF_TYPE_UINT64:  case GGUF_TYPE_INT64: case GGUF_TYPE_FLOAT64: return 8;
        default: return 0;
    }
}

static const char * type_name_or_unknown(enum gguf_type type) {
    const char * name = gguf_type_name(type);
    return name != NULL ? name : "invalid";
}

struct gguf_context * gguf_init_empty(void) {
    struct gguf_context * ctx = ggml_calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return NULL;
    }
    ctx->version   = GGUF_VERSION;
    ctx->alignment = GGUF_DEFAULT_ALIGNMENT;
    return ctx;
}

void gguf_kv_clear(struct gguf_kv * kv) {
    ggml_free_mem(kv->key);
    ggml_free_mem(kv->data);
    if (kv->strs != NULL) {
        for (size_t i = 0; i < kv->n; i++) {
            ggml_free_mem(kv->strs[i]);
        }
        ggml_free_mem(kv->strs);
    }
    memset(kv, 0, sizeof(*kv));
}

void gguf_free(struct gguf_context * ctx) {
    if (ctx == NULL) {
        return;
    }
    for (int64_t i = 0; i < ctx->n_kv; i++) {
        gguf_kv_clear(&ctx->kv[i]);
    }
    ggml_free_mem(ctx->kv);
    ggml_free_mem(ctx->info);
    ggml_free_mem(ctx);
}

#define CTX_CHECK(ctx, ret) GGML_CHECK_RET((ctx) != NULL, ret, "ctx is NULL")

uint32_t gguf_get_version(const struct gguf_context * ctx) {
    CTX_CHECK(ctx, 0);
    return ctx->version;
}

size_t gguf_get_alignment(const struct gguf_context * ctx) {
    CTX_CHECK(ctx, 0);
    return ctx->alignment;
}

size_t gguf_get_data_offset(const struct gguf_context * ctx) {
    CTX_CHECK(ctx, 0);
    return ctx->offset;
}

int64_t gguf_get_n_kv(const struct gguf_context * ctx) {
    CTX_CHECK(ctx, 0);
    return ctx->n_kv;
}

int64_t gguf_find_key(const struct gguf_context * ctx, const char * key) {
    CTX_CHECK(ctx, -1);
    GGML_CHECK_RET(key != NULL, -1, "key is NULL");
    for (int64_t i = 0; i < ctx->n_kv; i++) {
        if (strcmp(ctx->kv[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

bool gguf_kv_valid_id(const struct gguf_context * ctx, int64_t key_id, const char * func) {
    if (ctx == NULL) {
        GGML_LOG_ERROR("%s: ctx is NULL\n", func);
        return false;
    }
    if (key_id < 0 || key_id >= ctx->n_kv) {
        GGML_LOG_ERROR("%s: key id %" PRId64 " out of range [0, %" PRId64 ")\n", func, key_id, ctx->n_kv);
        return false;
    }
    return true;
}

const char * gguf_get_key(const struct gguf_context * ctx, int64_t key_id) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return NULL;
    }
    return ctx->kv[key_id].key;
}

enum gguf_type gguf_get_kv_type(const struct gguf_context * ctx, int64_t key_id) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return GGUF_TYPE_COUNT;
    }
    return ctx->kv[key_id].is_array ? GGUF_TYPE_ARRAY : ctx->kv[key_id].type;
}

enum gguf_type gguf_get_arr_type(const struct gguf_context * ctx, int64_t key_id) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return GGUF_TYPE_COUNT;
    }
    if (!ctx->kv[key_id].is_array) {
        GGML_LOG_ERROR("%s: key '%s' is not an array\n", __func__, ctx->kv[key_id].key);
        return GGUF_TYPE_COUNT;
    }
    return ctx->kv[key_id].type;
}

size_t gguf_get_arr_n(const struct gguf_context * ctx, int64_t key_id) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return 0;
    }
    return ctx->kv[key_id].n;
}

const void * gguf_get_arr_data(const struct gguf_context * ctx, int64_t key_id) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return NULL;
    }
    const struct gguf_kv * kv = &ctx->kv[key_id];
    if (kv->type == GGUF_TYPE_STRING) {
        GGML_LOG_ERROR("%s: key '%s' holds strings: use gguf_get_arr_str\n", __func__, kv->key);
        return NULL;
    }
    return kv->data;
}

const char * gguf_get_arr_str(const struct gguf_context * ctx, int64_t key_id, size_t i) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return NULL;
    }
    const struct gguf_kv * kv = &ctx->kv[key_id];
    if (kv->type != GGUF_TYPE_STRING) {
        GGML_LOG_ERROR("%s: key '%s' has type %s, not str\n", __func__, kv->key, type_name_or_unknown(kv->type));
        return NULL;
    }
    if (i >= kv->n) {
        GGML_LOG_ERROR("%s: index %zu out of range for key '%s' (%zu strings)\n", __func__, i, kv->key, kv->n);
        return NULL;
    }
    return kv->strs[i];
}

// the single value of a scalar key of the given type, or NULL (logged)
static const struct gguf_kv * scalar_of_type(const struct gguf_context * ctx, int64_t key_id,
                                             enum gguf_type type, const char * func) {
    if (!gguf_kv_valid_id(ctx, key_id, func)) {
        return NULL;
    }
    const struct gguf_kv * kv = &ctx->kv[key_id];
    if (kv->is_array || kv->n != 1) {
        GGML_LOG_ERROR("%s: key '%s' is an array of %zu, not a single value\n", func, kv->key, kv->n);
        return NULL;
    }
    if (kv->type != type) {
        GGML_LOG_ERROR("%s: key '%s' has type %s, not %s\n", func, kv->key,
                       type_name_or_unknown(kv->type), type_name_or_unknown(type));
        return NULL;
    }
    return kv;
}

#define GGUF_GETTER(suffix, ctype, gtype)                                              \
    ctype gguf_get_val_##suffix(const struct gguf_context * ctx, int64_t key_id) {     \
        const struct gguf_kv * kv = scalar_of_type(ctx, key_id, gtype, __func__);     \
        ctype v = 0;                                                                   \
        if (kv != NULL) {                                                              \
            memcpy(&v, kv->data, sizeof(v));                                           \
        }                                                                              \
        return v;                                                                      \
    }

GGUF_GETTER(u8,  uint8_t,  GGUF_TYPE_UINT8)
GGUF_GETTER(i8,  int8_t,   GGUF_TYPE_INT8)
GGUF_GETTER(u16, uint16_t, GGUF_TYPE_UINT16)
GGUF_GETTER(i16, int16_t,  GGUF_TYPE_INT16)
GGUF_GETTER(u32, uint32_t, GGUF_TYPE_UINT32)
GGUF_GETTER(i32, int32_t,  GGUF_TYPE_INT32)
GGUF_GETTER(f32, float,    GGUF_TYPE_FLOAT32)
GGUF_GETTER(u64, uint64_t, GGUF_TYPE_UINT64)
GGUF_GETTER(i64, int64_t,  GGUF_TYPE_INT64)
GGUF_GETTER(f64, double,   GGUF_TYPE_FLOAT64)

bool gguf_get_val_bool(const struct gguf_context * ctx, int64_t key_id) {
    const struct gguf_kv * kv = scalar_of_type(ctx, key_id, GGUF_TYPE_BOOL, __func__);
    return kv != NULL && *(const int8_t *) kv->data != 0;
}

const char * gguf_get_val_str(const struct gguf_context * ctx, int64_t key_id) {
    const struct gguf_kv * kv = scalar_of_type(ctx, key_id, GGUF_TYPE_STRING, __func__);
    return kv != NULL ? kv->strs[0] : NULL;
}

const void * gguf_get_val_data(const struct gguf_context * ctx, int64_t key_id) {
    if (!gguf_kv_valid_id(ctx, key_id, __func__)) {
        return NULL;
    }
    const struct gguf_kv * kv = &ctx->kv[key_id];
    if (kv->is_array || kv->n != 1 || kv->type == GGUF_TYPE_STRING) {
        GGML_LOG_ERROR("%s: key '%s' is not a single non-string value\n", __func__, kv->key);
        return NULL;
    }
    return kv->data;
}

//
// setters
//

int64_t gguf_remove_key(struct gguf_context * ctx, const char * key) {
    const int64_t id = gguf_find_key(ctx, key);
    if (id < 0) {
        return -1;
    }
    // key may be the pair's own string (gguf_get_key): compare before it is freed
    const bool is_alignment = strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0;
    gguf_kv_clear(&ctx->kv[id]);
    memmove(&ctx->kv[id], &ctx->kv[id + 1], (size_t) (ctx->n_kv - id - 1) * sizeof(ctx->kv[0]));
    ctx->n_kv--;
    if (is_alignment) {
        gguf_update_alignment(ctx);
    }
    return id;
}

bool gguf_kv_init(struct gguf_kv * kv, const char * key, enum gguf_type type, bool is_array, size_t n) {
    memset(kv, 0, sizeof(*kv));
    const size_t klen = strlen(key);
    kv->key = ggml_malloc(klen + 1);
    bool ok = kv->key != NULL;
    if (ok) {
        memcpy(kv->key, key, klen + 1);
    }
    kv->type     = type;
    kv->is_array = is_array;
    if (ok && n > 0) {
        if (type == GGUF_TYPE_STRING) {
            kv->strs = ggml_calloc(n, sizeof(char *));
            ok = kv->strs != NULL;
        } else {
            kv->data = ggml_malloc(n * gguf_type_size(type)); // n is bounded by the caller
            ok = kv->data != NULL;
        }
    }
    kv->n = kv->strs != NULL ? n : 0; // so that a partial init is cleared correctly
    if (!ok) {
        gguf_kv_clear(kv);
        GGML_LOG_ERROR("gguf: out of memory for key '%s' (%zu elements)\n", key, n);
        return false;
    }
    kv->n = n;
    return true;
}

bool gguf_kv_push(struct gguf_context * ctx, struct gguf_kv * kv) {
    if (ctx->n_kv == ctx->cap_kv) {
        const int64_t cap = ctx->cap_kv == 0 ? 16 : 2 * ctx->cap_kv;
        struct gguf_kv * arr = ggml_realloc(ctx->kv, (size_t) cap * sizeof(*arr));
        if (arr == NULL) {
            GGML_LOG_ERROR("gguf: out of memory for key '%s'\n", kv->key);
            gguf_kv_clear(kv);
            return false;
        }
        ctx->kv     = arr;
        ctx->cap_kv = cap;
    }
    ctx->kv[ctx->n_kv++] = *kv;
    memset(kv, 0, sizeof(*kv));
    return true;
}

static bool set_key_valid(struct gguf_context * ctx, const char * key, const char * func) {
    if (ctx == NULL || key == NULL) {
        GGML_LOG_ERROR("%s: %s is NULL\n", func, ctx == NULL ? "ctx" : "key");
        return false;
    }
    if (key[0] == '\0') {
        GGML_LOG_ERROR("%s: the key is empty\n", func);
        return false;
    }
    return true;
}

// replaces the key's pair by kv (complete, built before anything is removed: its value may have
// been copied from the pair it replaces)
static void replace_pair(struct gguf_context * ctx, struct gguf_kv * kv) {
    gguf_remove_key(ctx, kv->key);
    const bool is_alignment = strcmp(kv->key, GGUF_KEY_GENERAL_ALIGNMENT) == 0;
    if (gguf_kv_push(ctx, kv) && is_alignment) {
        gguf_update_alignment(ctx);
    }
}

static void set_scalar(struct gguf_context * ctx, const char * key, enum gguf_type type,
                       const void * val, const char * func) {
    if (!set_key_valid(ctx, key, func)) {
        return;
    }
    if (strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0) {
        uint32_t a = 0;
        if (type == GGUF_TYPE_UINT32) {
            memcpy(&a, val, sizeof(a));
        }
        if (type != GGUF_TYPE_UINT32 || a == 0 || (a & (a - 1)) != 0) {
            GGML_LOG_ERROR("%s: %s must be a u32 power of 2\n", func, GGUF_KEY_GENERAL_ALIGNMENT);
            return;
        }
    }
    struct gguf_kv kv;
    if (!gguf_kv_init(&kv, key, type, false, 1)) {
        return;
    }
    if (type == GGUF_TYPE_STRING) {
        const size_t len = strlen(val);
        kv.strs[0] = ggml_malloc(len + 1);
        if (kv.strs[0] == NULL) {
            GGML_LOG_ERROR("%s: out of memory\n", func);
            gguf_kv_clear(&kv);
            return;
        }
        memcpy(kv.strs[0], val, len + 1);
    } else {
        memcpy(kv.data, val, gguf_type_size(type));
    }
    replace_pair(ctx, &kv);
}

#define GGUF_SETTER(suffix, ctype, gtype)                                                   \
    void gguf_set_val_##suffix(struct gguf_context * ctx, const char * key, ctype val) {    \
        set_scalar(ctx, key, gtype, &val, __func__);                                        \
    }

GGUF_SETTER(u8,  uint8_t,  GGUF_TYPE_UINT8)
GGUF_SETTER(i8,  int8_t,   GGUF_TYPE_INT8)
GGUF_SETTER(u16, uint16_t, GGUF_TYPE_UINT16)
GGUF_SETTER(i16, int16_t,  GGUF_TYPE_INT16)
GGUF_SETTER(u32, uint32_t, GGUF_TYPE_UINT32)
GGUF_SETTER(i32, int32_t,  GGUF_TYPE_INT32)
GGUF_SETTER(f32, float,    GGUF_TYPE_FLOAT32)
GGUF_SETTER(u64, uint64_t, GGUF_TYPE_UINT64)
GGUF_SETTER(i64, int64_t,  GGUF_TYPE_INT64)
GGUF_SETTER(f64, double,   GGUF_TYPE_FLOAT64)

void gguf_set_val_bool(struct gguf_context * ctx, const char * key, bool val) {
    const int8_t v = val ? 1 : 0;
    set_scalar(ctx, key, GGUF_TYPE_BOOL, &v, __func__);
}

void gguf_set_val_str(struct gguf_context * ctx, const char * key, const char * val) {
    if (val == NULL) {
        GGML_LOG_ERROR("%s: the value of key '%s' is NULL\n", __func__, key != NULL ? key : "(null)");
        return;
    }
    set_scalar(ctx, key, GGUF_TYPE_STRING, val, __func__);
}

// checks an array setter's key and prepares a pair of n elements; false (logged) when it cannot
static bool array_init(struct gguf_kv * kv, struct gguf_context * ctx, const char * key, enum gguf_type type,
                       size_t n, const char * func) {
    if (!set_key_valid(ctx, key, func)) {
        return false;
    }
    if (strcmp(key, GGUF_KEY_GENERAL_ALIGNMENT) == 0) {
        GGML_LOG_ERROR("%s: %s must be a u32 power of 2, not an array\n", func, GGUF_KEY_GENERAL_ALIGNMENT);
        return false;
    }
    const size_t esize = type == GGUF_TYPE_STRING ? sizeof(char *) : gguf_type_size(type);
    if (n > SIZE_MAX / esize) {
        GGML_LOG_ERROR("%s: %zu elements for key '%s' overflow the address space\n", func, n, key);
        return false;
    }
    return gguf_kv_init(kv, key, type, true, n);
}

void gguf_set_arr_data(struct gguf_context * ctx, const char * key, enum gguf_type type, const void * data, size_t n) {
    if (gguf_type_size(type) == 0) {
        GGML_LOG_ERROR("%s: type %s (%d) is not a type of array elements with data (strings: gguf_set_arr_str)\n",
                       __func__, type_name_or_unknown(type), (int) type);
        return;
    }
    if (n > 0 && data == NULL) {
        GGML_LOG_ERROR("%s: data is NULL for %zu elements\n", __func__, n);
        return;
    }
    struct gguf_kv kv;
    if (!array_init(&kv, ctx, key, type, n, __func__)) {
        return;
    }
    if (n > 0) {
        memcpy(kv.data, data, n * gguf_type_size(type));
    }
    replace_pair(ctx, &kv);
}

void gguf_set_arr_str(struct gguf_context * ctx, const char * key, const char ** data, size_t n) {
    if (n > 0 && data == NULL) {
        GGML_LOG_ERROR("%s: data is NULL for %zu strings\n", __func__, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (data[i] == NULL) {
            GGML_LOG_ERROR("%s: string %zu of key '%s' is NULL\n", __func__, i, key != NULL ? key : "(null)");
            return;
        }
    }
    struct gguf_kv kv;
    if (!array_init(&kv, ctx, key, GGUF_TYPE_STRING, n, __func__)) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const size_t len = strlen(data[i]);
        kv.strs[i] = ggml_malloc(len + 1);
        if (kv.strs[i] == NULL) {
            GGML_LOG_ERROR("%s: out of memory for key '%s'\n", __func__, kv.key);
            gguf_kv_clear(&kv);
            return;
        }
        memcpy(kv.strs[i], data[i], len + 1);
    }
    replace_pair(ctx, &kv);
}

void gguf_set_kv(struct gguf_context * ctx, const struct gguf_context * src) {
    GGML_CHECK_RET(ctx != NULL && src != NULL, , "ctx or src is NULL");
    if (ctx == src) {
        return; // every pair would replace itself
    }
    for (int64_t i = 0; i < src->n_kv; i++) {
        const struct gguf_kv * kv = &src->kv[i];
        if (kv->type == GGUF_TYPE_STRING) {
            if (kv->is_array) {
                gguf_set_arr_str(ctx, kv->key, (const char **) kv->strs, kv->n);
            } else {
                gguf_set_val_str(ctx, kv->key, kv->strs[0]);
            }
        } else if (kv->is_array) {
            gguf_set_arr_data(ctx, kv->key, kv->type, kv->data, kv->n);
        } else {
            set_scalar(ctx, kv->key, kv->type, kv->data, __func__);
        }
    }
}
