// The meta device's buffer type and buffers: one simple buffer per device, tensor data placed
// where its split state says, and reads/writes that scatter and gather so that the user always
// sees the whole tensor.

#include "ggml-backend-meta-impl.h"
#include "ggml-impl.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// distinct fake bases per buffer (never dereferenced; 1 TiB apart)
static atomic_uint_fast64_t g_meta_fake_counter = 1;

static const char * meta_buft_get_name(ggml_backend_buffer_type_t buft) {
    struct meta_device * md = buft->context;
    return md->name;
}

static size_t meta_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    struct meta_device * md = buft->context;
    size_t a = 1;
    for (size_t j = 0; j < md->n_devs; j++) {
        size_t aj = ggml_backend_buft_get_alignment(ggml_backend_dev_buffer_type(md->devs[j]));
        a = aj > a ? aj : a;
    }
    return a;
}

static size_t meta_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    struct meta_device * md = buft->context;
    size_t m = SIZE_MAX;
    for (size_t j = 0; j < md->n_devs; j++) {
        size_t mj = ggml_backend_buft_get_max_size(ggml_backend_dev_buffer_type(md->devs[j]));
        m = mj < m ? mj : m;
    }
    return m;
}

static size_t meta_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    struct meta_device * md = buft->context;
    size_t s = ggml_nbytes(tensor);
    for (size_t j = 0; j < md->n_devs; j++) {
        size_t sj = ggml_backend_buft_get_alloc_size(ggml_backend_dev_buffer_type(md->devs[j]), tensor);
        s = sj > s ? sj : s;
    }
    return s;
}

static bool meta_buft_is_host(ggml_backend_buffer_type_t buft) {
    GGML_UNUSED(buft);
    return false; // the data is spread over devices: never the standard host layout
}

// --- records ---

static size_t slot_of(const struct meta_buffer * mb, const struct ggml_tensor * t);
static void   records_clear(struct meta_buffer * mb);

// drops the records of compute tensors; the placements of weights stay
static void records_reset(struct meta_buffer * mb) {
    struct meta_record ** fresh = mb->n_slots ? ggml_calloc(mb->n_slots, sizeof(*fresh)) : NULL;
    if (fresh == NULL) {
        // out of memory: keep every record, the compute ones are re-resolved by init_tensor
        for (size_t i = 0; i < mb->n_slots; i++) {
            if (mb->slots[i] != NULL && !mb->slots[i]->own_offsets) {
                mb->slots[i]->resolved = false;
            }
        }
        return;
    }
    struct meta_record ** old = mb->slots;
    mb->slots = fresh;
    mb->n_used = 0;
    for (size_t i = 0; i < mb->n_slots; i++) {
        struct meta_record * r = old[i];
        if (r == NULL) {
            continue;
        }
        if (!r->own_offsets) {
            ggml_free_mem(r);
            continue;
        }
        size_t k = slot_of(mb, r->tensor);
        while (fresh[k] != NULL) {
            k = (k + 1) & (mb->n_slots - 1);
        }
        fresh[k] = r;
        mb->n_used++;
    }
    ggml_free_mem(old);
}

static void records_clear(struct meta_buffer * mb) {
    for (size_t i = 0; i < mb->n_slots; i++) {
        ggml_free_mem(mb->slots[i]);
    }
    ggml_free_mem(mb->slots);
    mb->slots = NULL;
    mb->n_slots = 0;
    mb->n_used = 0;
}

static size_t slot_of(const struct meta_buffer * mb, const struct ggml_tensor * t) {
    return (size_t) (((uintptr_t) t >> 4) * 11400714819323198485ull) & (mb->n_slots - 1);
}

static bool records_grow(struct meta_buffer * mb) {
    size_t n = mb->n_slots ? mb->n_slots * 2 : 64;
    struct meta_record ** slots = ggml_calloc(n, sizeof(*slots));
    if (slots == NULL) {
        return false;
    }
    struct meta_record ** old = mb->slots;
    size_t n_old = mb->n_slots;
    mb->slots = slots;
    mb->n_slots = n;
    for (size_t i = 0; i < n_old; i++) {
        if (old[i] != NULL) {
            size_t k = slot_of(mb, old[i]->tensor);
            while (slots[k] != NULL) {
                k = (k + 1) & (n - 1);
            }
            slots[k] = old[i];
        }
    }
    ggml_free_mem(old);
    return true;
}

static struct meta_record * records_find(struct meta_buffer * mb, const struct ggml_tensor * t) {
    if (mb->n_slots == 0) {
        return NULL;
    }
    for (size_t k = slot_of(mb, t);; k = (k + 1) & (mb->n_slots - 1)) {
        if (mb->slots[k] == NULL) {
            return NULL;
        }
        if (mb->slots[k]->tensor == t) {
            return mb->slots[k];
        }
    }
}

static struct meta_record * records_add(struct meta_buffer * mb, const struct ggml_tensor * t) {
    struct meta_record * r = records_find(mb, t);
    if (r != NULL) {
        return r;
    }
    if ((mb->n_used + 1) * 2 > mb->n_slots && !records_grow(mb)) {
        return NULL;
    }
    r = ggml_calloc(1, sizeof(*r));
    if (r == NULL) {
        return NULL;
    }
    r->tensor = t;
    size_t k = slot_of(mb, t);
    while (mb->slots[k] != NULL) {
        k = (k + 1) & (mb->n_slots - 1);
    }
    mb->slots[k] = r;
    mb->n_used++;
    return r;
}

// --- buffer interface ---

static void meta_buffer_free(ggml_backend_buffer_t buffer) {
    struct meta_buffer * mb = buffer->context;
    for (size_t j = 0; j < mb->mdev->n_devs; j++) {
        ggml_backend_buffer_free(mb->bufs[j]);
    }
    records_clear(mb);
    ggml_free_mem(mb);
}

static void * meta_buffer_get_base(ggml_backend_buffer_t buffer) {
    struct meta_buffer * mb = buffer->context;
    return mb->fake_base;
}

static enum ggml_status meta_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor) {
    struct meta_buffer * mb = buffer->context;
    struct meta_record * r = records_add(mb, tensor);
    if (r == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return GGML_STATUS_ALLOC_FAILED;
    }
    if (!r->own_offsets) {
        r->resolved = false;
    }
    return GGML_STATUS_SUCCESS;
}

struct meta_record * meta_buffer_record(ggml_backend_buffer_t buffer, const struct ggml_tensor * t) {
    if (!meta_buffer_is_meta(buffer)) {
        return NULL;
    }
    return records_find(buffer->context, t);
}

void * meta_buffer_dev_data(ggml_backend_buffer_t buffer, size_t j, const struct ggml_tensor * t) {
    struct meta_buffer * mb = buffer->context;
    const struct meta_record * r = records_find(mb, t);
    const size_t off = r != NULL && r->own_offsets ? r->dev_offset[j] : (size_t) ((const char *) t->data - mb->fake_base);
    return (char *) ggml_backend_buffer_get_base(mb->bufs[j]) + off;
}

ggml_backend_buffer_t meta_buffer_dev_buffer(ggml_backend_buffer_t buffer, size_t j) {
    struct meta_buffer * mb = buffer->context;
    return mb->bufs[j];
}

bool meta_buffer_state(ggml_backend_buffer_t buffer, const struct ggml_tensor * t, meta_state * out) {
    struct meta_buffer * mb = buffer->context;
    struct meta_device * md = mb->mdev;
    struct meta_record * r = records_add(mb, t);
    if (r == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return false;
    }
    if (!r->resolved) {
        if (t->view_src != NULL) {
            // a view: mirrored when its storage is, otherwise reached through a gather
            meta_state vs;
            if (!meta_buffer_state(buffer, t->view_src, &vs)) {
                return false;
            }
            r->state = meta_state_make(vs.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED ?
                    GGML_BACKEND_SPLIT_AXIS_MIRRORED : GGML_BACKEND_SPLIT_AXIS_UNKNOWN);
        } else if (buffer->usage != GGML_BACKEND_BUFFER_USAGE_COMPUTE && md->get_split_state != NULL) {
            meta_state s = md->get_split_state(t, md->get_split_state_ud);
            if (!meta_state_validate(&s, md->n_devs, t, "get_split_state")) {
                return false;
            }
            r->state = s;
        } else {
            // compute tensors not yet computed (inputs) hold whole values everywhere
            r->state = meta_state_make(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        }
        r->resolved = true;
        if (meta_debug_enabled()) {
            meta_state_print("buffer", t, &r->state, md->n_devs);
        }
    }
    *out = r->state;
    return true;
}

// a contiguous tensor header of t's type and shape ne (no storage), for size queries
static struct ggml_tensor dev_tensor_shape(const struct ggml_tensor * t, const int64_t ne[4]) {
    struct ggml_tensor d;
    memset(&d, 0, sizeof(d));
    d.type = t->type;
    for (int i = 0; i < 4; i++) {
        d.ne[i] = ne[i];
    }
    d.nb[0] = ggml_type_size(t->type);
    d.nb[1] = ggml_row_size(t->type, ne[0]);
    for (int i = 2; i < 4; i++) {
        d.nb[i] = d.nb[i-1] * (size_t) ne[i-1];
    }
    return d;
}

// a stand-in for t on device j: same shape, the device's storage (t not a view)
static struct ggml_tensor dev_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * t, size_t j, const int64_t ne[4]) {
    struct ggml_tensor d;
    memset(&d, 0, sizeof(d));
    d.type = t->type;
    d.buffer = meta_buffer_dev_buffer(buffer, j);
    d.data = meta_buffer_dev_data(buffer, j, t);
    for (int i = 0; i < 4; i++) {
        d.ne[i] = ne[i];
    }
    d.nb[0] = ggml_type_size(t->type);
    d.nb[1] = ggml_row_size(t->type, ne[0]);
    for (int i = 2; i < 4; i++) {
        d.nb[i] = d.nb[i-1] * (size_t) ne[i-1];
    }
    return d;
}

// the storage tensor behind t and the byte offset of t's data inside it
static const struct ggml_tensor * storage_of(const struct ggml_tensor * t, size_t * offset) {
    *offset = 0;
    if (t->view_src != NULL) {
        *offset = (size_t) ((const char *) t->data - (const char *) t->view_src->data);
        return t->view_src;
    }
    return t;
}

// reads the whole storage tensor st into host memory full (ggml_nbytes(st) bytes)
static bool meta_read_whole(ggml_backend_buffer_t buffer, const struct ggml_tensor * st, char * full) {
    struct meta_buffer * mb = buffer->context;
    const size_t n = mb->mdev->n_devs;
    meta_state s;
    if (!meta_buffer_state(buffer, st, &s)) {
        return false;
    }
    const size_t nbytes = ggml_nbytes(st);
    if (s.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED || s.axis == GGML_BACKEND_SPLIT_AXIS_UNKNOWN) {
        struct ggml_tensor d = dev_tensor(buffer, st, 0, st->ne);
        ggml_backend_tensor_get(&d, full, 0, nbytes);
        return true;
    }
    if (s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL) {
        if (st->type != GGML_TYPE_F32) {
            GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: tensor '%s': partial sums of type %s cannot be added\n", __func__, st->name, ggml_type_name(st->type));
            return false;
        }
        float * acc = (float *) full;
        float * tmp = ggml_malloc(nbytes);
        if (tmp == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
            return false;
        }
        const int64_t ne = ggml_nelements(st);
        for (size_t j = 0; j < n; j++) {
            struct ggml_tensor d = dev_tensor(buffer, st, j, st->ne);
            ggml_backend_tensor_get(&d, j == 0 ? acc : tmp, 0, nbytes);
            for (int64_t i = 0; j > 0 && i < ne; i++) {
                acc[i] += tmp[i];
            }
        }
        ggml_free_mem(tmp);
        return true;
    }
    char * slices[META_MAX_DEVS] = {0};
    bool ok = true;
    for (size_t j = 0; j < n && ok; j++) {
        int64_t ne[4];
        meta_state_dev_ne(&s, n, j, st->ne, ne);
        struct ggml_tensor d = dev_tensor(buffer, st, j, ne);
        slices[j] = ggml_malloc(ggml_nbytes(&d) + 1);
        ok = slices[j] != NULL;
        if (ok && ggml_nbytes(&d) > 0) {
            ggml_backend_tensor_get(&d, slices[j], 0, ggml_nbytes(&d));
        }
    }
    if (ok) {
        meta_state_host_copy(&s, n, st->type, st->ne, full, slices, false);
    } else {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
    }
    for (size_t j = 0; j < n; j++) {
        ggml_free_mem(slices[j]);
    }
    return ok;
}

// writes the whole storage tensor st from host memory full
static bool meta_write_whole(ggml_backend_buffer_t buffer, const struct ggml_tensor * st, char * full) {
    struct meta_buffer * mb = buffer->context;
    const size_t n = mb->mdev->n_devs;
    meta_state s;
    if (!meta_buffer_state(buffer, st, &s)) {
        return false;
    }
    const size_t nbytes = ggml_nbytes(st);
    if (!meta_state_is_split(&s)) {
        for (size_t j = 0; j < n; j++) {
            struct ggml_tensor d = dev_tensor(buffer, st, j, st->ne);
            if (s.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && j > 0) {
                // the value is the sum: device 0 holds it, the others hold zeros
                ggml_backend_tensor_memset(&d, 0, 0, nbytes);
            } else {
                ggml_backend_tensor_set(&d, full, 0, nbytes);
            }
        }
        return true;
    }
    char * slices[META_MAX_DEVS] = {0};
    size_t sizes[META_MAX_DEVS] = {0};
    bool ok = true;
    for (size_t j = 0; j < n && ok; j++) {
        int64_t ne[4];
        meta_state_dev_ne(&s, n, j, st->ne, ne);
        struct ggml_tensor d = dev_tensor(buffer, st, j, ne);
        sizes[j] = ggml_nbytes(&d);
        slices[j] = ggml_malloc(sizes[j] + 1);
        ok = slices[j] != NULL;
    }
    if (ok) {
        meta_state_host_copy(&s, n, st->type, st->ne, full, slices, true);
        for (size_t j = 0; j < n; j++) {
            int64_t ne[4];
            meta_state_dev_ne(&s, n, j, st->ne, ne);
            struct ggml_tensor d = dev_tensor(buffer, st, j, ne);
            if (sizes[j] > 0) {
                ggml_backend_tensor_set(&d, slices[j], 0, sizes[j]);
            }
        }
    } else {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
    }
    for (size_t j = 0; j < n; j++) {
        ggml_free_mem(slices[j]);
    }
    return ok;
}

// a byte range of t: read (data != NULL, write false) or written (write true) through the whole
// storage tensor; value >= 0 with data == NULL fills the range with a byte
static void meta_access(ggml_backend_buffer_t buffer, const struct ggml_tensor * t, void * data, int value,
                        size_t offset, size_t size, bool write, const char * who) {
    size_t base = 0;
    const struct ggml_tensor * st = storage_of(t, &base);
    if (!ggml_is_contiguous(st)) {
        GGML_ERROR(GGML_ERROR_UNSUPPORTED, "%s: tensor '%s': its storage is not contiguous\n", who, t->name);
        return;
    }
    const size_t nbytes = ggml_nbytes(st);
    meta_state s0;
    if (meta_buffer_state(buffer, st, &s0) && (s0.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED || s0.axis == GGML_BACKEND_SPLIT_AXIS_UNKNOWN)) {
        // whole copies: straight to or from the devices, no staging
        struct meta_buffer * mb = buffer->context;
        for (size_t j = 0; j < (write ? mb->mdev->n_devs : 1); j++) {
            struct ggml_tensor d = dev_tensor(buffer, st, j, st->ne);
            if (!write) {
                ggml_backend_tensor_get(&d, data, base + offset, size);
            } else if (data != NULL) {
                ggml_backend_tensor_set(&d, data, base + offset, size);
            } else {
                ggml_backend_tensor_memset(&d, (uint8_t) value, base + offset, size);
            }
        }
        return;
    }
    char * full = ggml_malloc(nbytes + 1);
    if (full == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", who);
        return;
    }
    meta_state s;
    bool ok = meta_buffer_state(buffer, st, &s);
    // a whole write of a mirrored or split tensor needs no read first
    const bool whole = base == 0 && offset == 0 && size == nbytes;
    if (ok && !(write && whole)) {
        ok = meta_read_whole(buffer, st, full);
    }
    if (ok) {
        if (!write) {
            memcpy(data, full + base + offset, size);
        } else {
            if (data != NULL) {
                memcpy(full + base + offset, data, size);
            } else {
                memset(full + base + offset, value, size);
            }
            ok = meta_write_whole(buffer, st, full);
        }
    }
    if (!ok) {
        GGML_ERROR_DEFAULT(GGML_ERROR_DEVICE, "%s: tensor '%s': access failed\n", who, t->name);
    }
    ggml_free_mem(full);
}

static void meta_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    meta_access(buffer, tensor, NULL, value, offset, size, true, __func__);
}

static void meta_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    meta_access(buffer, tensor, (void *) data, -1, offset, size, true, __func__);
}

static void meta_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    meta_access(buffer, tensor, data, -1, offset, size, false, __func__);
}

static bool meta_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    // through host memory: the states of src and dst may differ
    const size_t nbytes = ggml_nbytes(src);
    if (nbytes != ggml_nbytes(dst) || src->buffer == NULL) {
        return false;
    }
    void * tmp = ggml_malloc(nbytes + 1);
    if (tmp == NULL) {
        return false;
    }
    ggml_backend_tensor_get(src, tmp, 0, nbytes);
    meta_buffer_set_tensor(buffer, dst, tmp, 0, nbytes);
    ggml_free_mem(tmp);
    return true;
}

static void meta_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct meta_buffer * mb = buffer->context;
    for (size_t j = 0; j < mb->mdev->n_devs; j++) {
        ggml_backend_buffer_clear(mb->bufs[j], value);
    }
}

static void meta_buffer_reset(ggml_backend_buffer_t buffer) {
    struct meta_buffer * mb = buffer->context;
    records_reset(mb);
    for (size_t j = 0; j < mb->mdev->n_devs; j++) {
        ggml_backend_buffer_reset(mb->bufs[j]);
    }
}

static const struct ggml_backend_buffer_i meta_buffer_iface = {
    /* .free_buffer   = */ meta_buffer_free,
    /* .get_base      = */ meta_buffer_get_base,
    /* .init_tensor   = */ meta_buffer_init_tensor,
    /* .memset_tensor = */ meta_buffer_memset_tensor,
    /* .set_tensor    = */ meta_buffer_set_tensor,
    /* .get_tensor    = */ meta_buffer_get_tensor,
    /* .set_tensor_2d = */ NULL,
    /* .get_tensor_2d = */ NULL,
    /* .cpy_tensor    = */ meta_buffer_cpy_tensor,
    /* .clear         = */ meta_buffer_clear,
    /* .reset         = */ meta_buffer_reset,
};

bool meta_buffer_is_meta(ggml_backend_buffer_t buffer) {
    return buffer != NULL && buffer->iface.free_buffer == meta_buffer_free;
}

static ggml_backend_buffer_t meta_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct meta_device * md = buft->context;
    struct meta_buffer * mb = ggml_calloc(1, sizeof(*mb));
    if (mb == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    mb->mdev = md;
    for (size_t j = 0; j < md->n_devs; j++) {
        mb->bufs[j] = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(md->devs[j]), size);
        if (mb->bufs[j] == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: %s: cannot allocate %zu bytes on device %zu (%s)\n", __func__, md->name, size, j,
                    ggml_backend_dev_name(md->devs[j]));
            for (size_t k = 0; k < j; k++) {
                ggml_backend_buffer_free(mb->bufs[k]);
            }
            ggml_free_mem(mb);
            return NULL;
        }
    }
    const uint64_t k = atomic_fetch_add(&g_meta_fake_counter, 1) % 4096;
    mb->fake_base = (char *) (uintptr_t) (0x1000000000000000ull + (k << 40));
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, meta_buffer_iface, mb, size);
    if (buffer == NULL) {
        for (size_t j = 0; j < md->n_devs; j++) {
            ggml_backend_buffer_free(mb->bufs[j]);
        }
        ggml_free_mem(mb);
    }
    return buffer;
}

// one meta buffer for every tensor of ctx that needs memory, each device holding only its parts
ggml_backend_buffer_t ggml_backend_meta_alloc_ctx_tensors_from_buft(struct ggml_context * ctx, ggml_backend_buffer_type_t buft) {
    GGML_CHECK_RET(ctx != NULL && meta_buft_is_meta(buft), NULL, "not a context and a meta buffer type");
    struct meta_device * md = buft->context;
    const size_t n = md->n_devs;
    const size_t align = meta_buft_get_alignment(buft);
    size_t dev_align[META_MAX_DEVS], dev_size[META_MAX_DEVS] = {0}, meta_size = 0;
    for (size_t j = 0; j < n; j++) {
        dev_align[j] = ggml_backend_buft_get_alignment(ggml_backend_dev_buffer_type(md->devs[j]));
    }
    // first pass: sizes
    size_t n_tensors = 0;
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data != NULL || t->view_src != NULL) {
            continue;
        }
        meta_state s = md->get_split_state ? md->get_split_state(t, md->get_split_state_ud) : meta_state_make(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        if (!meta_state_validate(&s, n, t, "get_split_state")) {
            return NULL;
        }
        for (size_t j = 0; j < n; j++) {
            int64_t ne[4];
            meta_state_dev_ne(&s, n, j, t->ne, ne);
            struct ggml_tensor d = dev_tensor_shape(t, ne);
            dev_size[j] += GGML_PAD(ggml_backend_buft_get_alloc_size(ggml_backend_dev_buffer_type(md->devs[j]), &d), dev_align[j]);
        }
        meta_size += GGML_PAD(ggml_nbytes(t), align);
        n_tensors++;
    }
    if (n_tensors == 0) {
        return NULL; // nothing to allocate, as for other buffer types
    }
    struct meta_buffer * mb = ggml_calloc(1, sizeof(*mb));
    if (mb == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    mb->mdev = md;
    for (size_t j = 0; j < n; j++) {
        mb->bufs[j] = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(md->devs[j]), dev_size[j]);
        if (mb->bufs[j] == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: %s: cannot allocate %zu bytes on device %zu (%s)\n", __func__, md->name, dev_size[j], j,
                    ggml_backend_dev_name(md->devs[j]));
            for (size_t k = 0; k < j; k++) {
                ggml_backend_buffer_free(mb->bufs[k]);
            }
            ggml_free_mem(mb);
            return NULL;
        }
    }
    const uint64_t k = atomic_fetch_add(&g_meta_fake_counter, 1) % 4096;
    mb->fake_base = (char *) (uintptr_t) (0x1000000000000000ull + (k << 40));
    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, meta_buffer_iface, mb, meta_size);
    if (buffer == NULL) {
        for (size_t j = 0; j < n; j++) {
            ggml_backend_buffer_free(mb->bufs[j]);
        }
        ggml_free_mem(mb);
        return NULL;
    }
    // second pass: placement
    size_t meta_off = 0, dev_off[META_MAX_DEVS] = {0};
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data != NULL || t->view_src != NULL) {
            continue;
        }
        meta_state s = md->get_split_state ? md->get_split_state(t, md->get_split_state_ud) : meta_state_make(GGML_BACKEND_SPLIT_AXIS_MIRRORED);
        struct meta_record * r = NULL;
        if (!meta_state_validate(&s, n, t, "get_split_state") ||
            ggml_backend_tensor_alloc(buffer, t, mb->fake_base + meta_off) != GGML_STATUS_SUCCESS ||
            (r = records_add(mb, t)) == NULL) {
            GGML_ERROR_DEFAULT(GGML_ERROR_DEVICE, "%s: placing '%s' failed\n", __func__, t->name);
            ggml_backend_buffer_free(buffer);
            return NULL;
        }
        r->state = s;
        r->resolved = true;
        r->own_offsets = true;
        for (size_t j = 0; j < n; j++) {
            int64_t ne[4];
            meta_state_dev_ne(&s, n, j, t->ne, ne);
            struct ggml_tensor d = dev_tensor_shape(t, ne);
            r->dev_offset[j] = dev_off[j];
            dev_off[j] += GGML_PAD(ggml_backend_buft_get_alloc_size(ggml_backend_dev_buffer_type(md->devs[j]), &d), dev_align[j]);
        }
        meta_off += GGML_PAD(ggml_nbytes(t), align);
        if (meta_debug_enabled()) {
            meta_state_print("buffer", t, &s, n);
        }
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t != NULL; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data == NULL && t->view_src != NULL && ggml_backend_view_init(t) != GGML_STATUS_SUCCESS) {
            ggml_backend_buffer_free(buffer);
            return NULL;
        }
    }
    return buffer;
}

bool meta_buft_is_meta(ggml_backend_buffer_type_t buft) {
    return buft != NULL && buft->iface.alloc_buffer == meta_buft_alloc_buffer;
}

const struct ggml_backend_buffer_type_i meta_buft_iface = {
    /* .get_name       = */ meta_buft_get_name,
    /* .alloc_buffer   = */ meta_buft_alloc_buffer,
    /* .get_alignment  = */ meta_buft_get_alignment,
    /* .get_max_size   = */ meta_buft_get_max_size,
    /* .get_alloc_size = */ meta_buft_get_alloc_size,
    /* .is_host        = */ meta_buft_is_host,
};
