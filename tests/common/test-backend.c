// The TEST backend: a device with private (non-host) memory, deferred asynchronous copies and
// events, computing a handful of F32 ops. See test-backend.h.

#define _POSIX_C_SOURCE 200809L // nanosleep

#include "test-backend.h"

#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-tensor-helpers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

//
// configuration and statistics
//

static struct {
    atomic_long alloc_fail_at;   // countdown: fails when it reaches 1 at an allocation
    atomic_long init_fail_at;
    atomic_long transfer_fail_at; // countdown over set/get/memset, buffer and asynchronous
    _Atomic size_t max_size;
    _Atomic size_t alloc_pad;
    atomic_bool cpy_tensor;
    atomic_bool cpy_async;
    atomic_bool offload;
    atomic_bool op_disabled[GGML_OP_COUNT];
    atomic_long compute_delay_us; // graph_compute sleeps this long first (to make calls overlap)
} g_cfg = { 0, 0, 0, SIZE_MAX, 1, true, true, false, { false }, 0 };

static struct {
    atomic_long buffers_alive, bytes_alive, backends_alive, events_alive;
    atomic_long n_alloc, n_alloc_failed, n_init_tensor;
    atomic_long n_set, n_get, n_memset, n_set_2d, n_get_2d, n_cpy_tensor, n_clear, n_reset;
    atomic_long n_set_async, n_get_async, n_cpy_async, n_sync, n_flushed_ops;
    atomic_long n_compute, n_nodes_computed;
    atomic_long n_event_record, n_event_wait, n_event_sync;
    atomic_long n_bad_access;
} g_st;

// bytes allocated per device (for get_memory and the capacity check)
static atomic_size_t g_dev_used[TEST_BACKEND_N_DEVICES];

// next fake address window: each buffer gets its own 1 TiB window in the non-canonical range
static atomic_uint_fast64_t g_next_window = 1;
#define TB_WINDOW_BASE  ((uint64_t) 0x4000000000000000ull)
#define TB_WINDOW_SHIFT 40

void test_backend_reset_config(void) {
    atomic_store(&g_cfg.alloc_fail_at, 0);
    atomic_store(&g_cfg.init_fail_at, 0);
    atomic_store(&g_cfg.transfer_fail_at, 0);
    atomic_store(&g_cfg.max_size, SIZE_MAX);
    atomic_store(&g_cfg.alloc_pad, 1);
    atomic_store(&g_cfg.cpy_tensor, true);
    atomic_store(&g_cfg.cpy_async, true);
    atomic_store(&g_cfg.offload, false);
    for (int i = 0; i < GGML_OP_COUNT; i++) {
        atomic_store(&g_cfg.op_disabled[i], false);
    }
    atomic_store(&g_cfg.compute_delay_us, 0);
}

void test_backend_set_alloc_fail(long n)       { atomic_store(&g_cfg.alloc_fail_at, n > 0 ? n : 0); }
void test_backend_set_init_tensor_fail(long n) { atomic_store(&g_cfg.init_fail_at, n > 0 ? n : 0); }
void test_backend_set_transfer_fail(long n)    { atomic_store(&g_cfg.transfer_fail_at, n > 0 ? n : 0); }
void test_backend_set_max_size(size_t size)    { atomic_store(&g_cfg.max_size, size); }
void test_backend_set_alloc_pad(size_t pad)    { atomic_store(&g_cfg.alloc_pad, pad > 0 ? pad : 1); }
void test_backend_set_cpy_tensor(bool enabled) { atomic_store(&g_cfg.cpy_tensor, enabled); }
void test_backend_set_cpy_async(bool enabled)  { atomic_store(&g_cfg.cpy_async, enabled); }
void test_backend_set_offload(bool offload)    { atomic_store(&g_cfg.offload, offload); }
void test_backend_set_compute_delay(long us)   { atomic_store(&g_cfg.compute_delay_us, us > 0 ? us : 0); }

void test_backend_set_op_supported(enum ggml_op op, bool supported) {
    if ((int) op >= 0 && op < GGML_OP_COUNT) {
        atomic_store(&g_cfg.op_disabled[op], !supported);
    }
}

// true when this call is the one the countdown selects
static bool countdown_hit(atomic_long * at) {
    long cur = atomic_load(at);
    while (cur > 0) {
        if (atomic_compare_exchange_weak(at, &cur, cur - 1)) {
            return cur == 1;
        }
    }
    return false;
}

void test_backend_get_stats(struct test_backend_stats * s) {
    s->buffers_alive    = atomic_load(&g_st.buffers_alive);
    s->bytes_alive      = atomic_load(&g_st.bytes_alive);
    s->backends_alive   = atomic_load(&g_st.backends_alive);
    s->events_alive     = atomic_load(&g_st.events_alive);
    s->n_alloc          = atomic_load(&g_st.n_alloc);
    s->n_alloc_failed   = atomic_load(&g_st.n_alloc_failed);
    s->n_init_tensor    = atomic_load(&g_st.n_init_tensor);
    s->n_set            = atomic_load(&g_st.n_set);
    s->n_get            = atomic_load(&g_st.n_get);
    s->n_memset         = atomic_load(&g_st.n_memset);
    s->n_set_2d         = atomic_load(&g_st.n_set_2d);
    s->n_get_2d         = atomic_load(&g_st.n_get_2d);
    s->n_cpy_tensor     = atomic_load(&g_st.n_cpy_tensor);
    s->n_clear          = atomic_load(&g_st.n_clear);
    s->n_reset          = atomic_load(&g_st.n_reset);
    s->n_set_async      = atomic_load(&g_st.n_set_async);
    s->n_get_async      = atomic_load(&g_st.n_get_async);
    s->n_cpy_async      = atomic_load(&g_st.n_cpy_async);
    s->n_sync           = atomic_load(&g_st.n_sync);
    s->n_flushed_ops    = atomic_load(&g_st.n_flushed_ops);
    s->n_compute        = atomic_load(&g_st.n_compute);
    s->n_nodes_computed = atomic_load(&g_st.n_nodes_computed);
    s->n_event_record   = atomic_load(&g_st.n_event_record);
    s->n_event_wait     = atomic_load(&g_st.n_event_wait);
    s->n_event_sync     = atomic_load(&g_st.n_event_sync);
    s->n_bad_access     = atomic_load(&g_st.n_bad_access);
}

void test_backend_reset_stats(void) {
    atomic_long * counters[] = {
        &g_st.n_alloc, &g_st.n_alloc_failed, &g_st.n_init_tensor, &g_st.n_set, &g_st.n_get, &g_st.n_memset,
        &g_st.n_set_2d, &g_st.n_get_2d, &g_st.n_cpy_tensor, &g_st.n_clear, &g_st.n_reset, &g_st.n_set_async,
        &g_st.n_get_async, &g_st.n_cpy_async, &g_st.n_sync, &g_st.n_flushed_ops, &g_st.n_compute,
        &g_st.n_nodes_computed, &g_st.n_event_record, &g_st.n_event_wait, &g_st.n_event_sync, &g_st.n_bad_access,
    };
    for (size_t i = 0; i < sizeof(counters)/sizeof(counters[0]); i++) {
        atomic_store(counters[i], 0);
    }
}

//
// buffers: private storage behind a fake address window
//

struct tb_buffer {
    uint8_t * mem;
    uintptr_t base;
    size_t    size;
    int       dev;
};

static void * tb_buffer_get_base(ggml_backend_buffer_t buffer);

bool test_backend_buffer_is_test(ggml_backend_buffer_t buffer) {
    return buffer != NULL && buffer->iface.get_base == tb_buffer_get_base;
}

static struct tb_buffer * tb_buffer_of_tensor(const struct ggml_tensor * t) {
    ggml_backend_buffer_t buf = ggml_tensor_data_buffer(t);
    return test_backend_buffer_is_test(buf) ? (struct tb_buffer *) buf->context : NULL;
}

// private memory for [addr, addr + size) of buffer b, or NULL (counted as a bad access)
static uint8_t * tb_translate(const struct tb_buffer * b, const void * addr, size_t size, const char * what) {
    const uintptr_t a = (uintptr_t) addr;
    if (b == NULL || a < b->base || a - b->base > b->size || size > b->size - (a - b->base)) {
        atomic_fetch_add(&g_st.n_bad_access, 1);
        GGML_LOG_ERROR("test-backend: bad access (%s): %p + %zu is outside the TEST buffer [%p, +%zu)\n",
                what, addr, size, b ? (void *) b->base : NULL, b ? b->size : 0);
        return NULL;
    }
    return b->mem + (a - b->base);
}

// private memory of t's bytes [offset, offset + size), or NULL (counted as a bad access)
static uint8_t * tb_tensor_mem(const struct ggml_tensor * t, size_t offset, size_t size, const char * what) {
    struct tb_buffer * b = tb_buffer_of_tensor(t);
    if (b == NULL) {
        atomic_fetch_add(&g_st.n_bad_access, 1);
        GGML_LOG_ERROR("test-backend: bad access (%s): tensor '%s' is not in a TEST buffer\n", what, t->name);
        return NULL;
    }
    return tb_translate(b, (const uint8_t *) t->data + offset, size, what);
}

static void * tb_buffer_get_base(ggml_backend_buffer_t buffer) {
    return (void *) ((struct tb_buffer *) buffer->context)->base;
}

static void tb_buffer_free(ggml_backend_buffer_t buffer) {
    struct tb_buffer * b = (struct tb_buffer *) buffer->context;
    atomic_fetch_sub(&g_dev_used[b->dev], b->size);
    atomic_fetch_sub(&g_st.buffers_alive, 1);
    atomic_fetch_sub(&g_st.bytes_alive, (long) b->size);
    ggml_free_mem(b->mem);
    ggml_free_mem(b);
}

static enum ggml_status tb_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor) {
    atomic_fetch_add(&g_st.n_init_tensor, 1);
    if (countdown_hit(&g_cfg.init_fail_at)) {
        ggml_error_report(GGML_ERROR_DEVICE, "test-backend: injected init_tensor failure for '%s'\n", tensor->name);
        return GGML_STATUS_FAILED;
    }
    if (tb_translate((struct tb_buffer *) buffer->context, tensor->data, ggml_nbytes(tensor), "init_tensor") == NULL) {
        return GGML_STATUS_FAILED;
    }
    return GGML_STATUS_SUCCESS;
}

// the injected device failure of a transfer on a path that returns nothing: reported as a
// device error, kept for the next graph_compute; the transfer does not happen
static bool tb_buffer_transfer_fails(ggml_backend_buffer_t buffer, const char * what) {
    if (!countdown_hit(&g_cfg.transfer_fail_at)) {
        return false;
    }
    ggml_backend_buffer_report_device_error(buffer, "test-backend: %s: injected device failure", what);
    return true;
}

static bool tb_stream_transfer_fails(ggml_backend_t backend, const char * what) {
    if (!countdown_hit(&g_cfg.transfer_fail_at)) {
        return false;
    }
    ggml_backend_report_device_error(backend, "test-backend: %s: injected device failure", what);
    return true;
}

static void tb_buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    atomic_fetch_add(&g_st.n_memset, 1);
    if (tb_buffer_transfer_fails(buffer, "memset_tensor")) {
        return;
    }
    uint8_t * p = tb_tensor_mem(tensor, offset, size, "memset_tensor");
    if (p != NULL) {
        memset(p, value, size);
    }
}

static void tb_buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    atomic_fetch_add(&g_st.n_set, 1);
    if (tb_buffer_transfer_fails(buffer, "set_tensor")) {
        return;
    }
    uint8_t * p = tb_tensor_mem(tensor, offset, size, "set_tensor");
    if (p != NULL) {
        memcpy(p, data, size);
    }
}

static void tb_buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    atomic_fetch_add(&g_st.n_get, 1);
    if (tb_buffer_transfer_fails(buffer, "get_tensor")) {
        return;
    }
    const uint8_t * p = tb_tensor_mem(tensor, offset, size, "get_tensor");
    if (p != NULL) {
        memcpy(data, p, size);
    }
}

static void tb_buffer_set_tensor_2d(ggml_backend_buffer_t buffer, struct ggml_tensor * tensor, const void * data, size_t offset,
        size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    (void) buffer;
    atomic_fetch_add(&g_st.n_set_2d, 1);
    for (size_t i = 0; i < n_copies; i++) {
        uint8_t * p = tb_tensor_mem(tensor, offset + i*stride_tensor, size, "set_tensor_2d");
        if (p != NULL) {
            memcpy(p, (const uint8_t *) data + i*stride_data, size);
        }
    }
}

static void tb_buffer_get_tensor_2d(ggml_backend_buffer_t buffer, const struct ggml_tensor * tensor, void * data, size_t offset,
        size_t size, size_t n_copies, size_t stride_tensor, size_t stride_data) {
    (void) buffer;
    atomic_fetch_add(&g_st.n_get_2d, 1);
    for (size_t i = 0; i < n_copies; i++) {
        const uint8_t * p = tb_tensor_mem(tensor, offset + i*stride_tensor, size, "get_tensor_2d");
        if (p != NULL) {
            memcpy((uint8_t *) data + i*stride_data, p, size);
        }
    }
}

static bool tb_buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    (void) buffer;
    if (!atomic_load(&g_cfg.cpy_tensor)) {
        return false;
    }
    const size_t n = ggml_nbytes(src);
    if (n != ggml_nbytes(dst)) {
        return false;
    }
    ggml_backend_buffer_t src_buf = ggml_tensor_data_buffer(src);
    const uint8_t * from = NULL;
    if (test_backend_buffer_is_test(src_buf)) {
        from = tb_tensor_mem(src, 0, n, "cpy_tensor (src)");
    } else if (src_buf != NULL && ggml_backend_buffer_is_host(src_buf)) {
        from = (const uint8_t *) src->data;
    } else {
        return false;
    }
    uint8_t * to = tb_tensor_mem(dst, 0, n, "cpy_tensor (dst)");
    if (from == NULL || to == NULL) {
        return false;
    }
    memmove(to, from, n);
    atomic_fetch_add(&g_st.n_cpy_tensor, 1);
    return true;
}

static void tb_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    struct tb_buffer * b = (struct tb_buffer *) buffer->context;
    atomic_fetch_add(&g_st.n_clear, 1);
    memset(b->mem, value, b->size);
}

static void tb_buffer_reset(ggml_backend_buffer_t buffer) {
    (void) buffer;
    atomic_fetch_add(&g_st.n_reset, 1);
}

static const struct ggml_backend_buffer_i tb_buffer_iface = {
    /* .free_buffer   = */ tb_buffer_free,
    /* .get_base      = */ tb_buffer_get_base,
    /* .init_tensor   = */ tb_buffer_init_tensor,
    /* .memset_tensor = */ tb_buffer_memset_tensor,
    /* .set_tensor    = */ tb_buffer_set_tensor,
    /* .get_tensor    = */ tb_buffer_get_tensor,
    /* .set_tensor_2d = */ tb_buffer_set_tensor_2d,
    /* .get_tensor_2d = */ tb_buffer_get_tensor_2d,
    /* .cpy_tensor    = */ tb_buffer_cpy_tensor,
    /* .clear         = */ tb_buffer_clear,
    /* .reset         = */ tb_buffer_reset,
};

//
// buffer types
//

struct tb_buft_context {
    int dev;
};

static const char * tb_buft_get_name(ggml_backend_buffer_type_t buft) {
    return ((struct tb_buft_context *) buft->context)->dev == 0 ? "TEST" : "TEST1";
}

static ggml_backend_buffer_t tb_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    const int dev = ((struct tb_buft_context *) buft->context)->dev;
    if (countdown_hit(&g_cfg.alloc_fail_at)) {
        atomic_fetch_add(&g_st.n_alloc_failed, 1);
        ggml_error_report(GGML_ERROR_OUT_OF_MEMORY, "test-backend: injected allocation failure (%zu bytes)\n", size);
        return NULL;
    }
    if (size > atomic_load(&g_cfg.max_size) || size > TEST_BACKEND_MEMORY - atomic_load(&g_dev_used[dev])) {
        atomic_fetch_add(&g_st.n_alloc_failed, 1);
        ggml_error_report(GGML_ERROR_OUT_OF_MEMORY, "test-backend: out of device memory (%zu bytes requested, %zu in use)\n", size, atomic_load(&g_dev_used[dev]));
        return NULL;
    }
    struct tb_buffer * b = (struct tb_buffer *) ggml_calloc(1, sizeof(*b));
    uint8_t * mem = (uint8_t *) ggml_malloc(size);
    if (b == NULL || mem == NULL) {
        ggml_free_mem(b);
        ggml_free_mem(mem);
        atomic_fetch_add(&g_st.n_alloc_failed, 1);
        return NULL;
    }
    // fill with a pattern so that reading memory nobody wrote is noticed
    memset(mem, 0xA5, size);
    b->mem  = mem;
    b->size = size;
    b->dev  = dev;
    b->base = (uintptr_t) (TB_WINDOW_BASE + (atomic_fetch_add(&g_next_window, 1) << TB_WINDOW_SHIFT));

    ggml_backend_buffer_t buffer = ggml_backend_buffer_init(buft, tb_buffer_iface, b, size);
    if (buffer == NULL) {
        ggml_free_mem(mem);
        ggml_free_mem(b);
        atomic_fetch_add(&g_st.n_alloc_failed, 1);
        return NULL;
    }
    atomic_fetch_add(&g_dev_used[dev], size);
    atomic_fetch_add(&g_st.n_alloc, 1);
    atomic_fetch_add(&g_st.buffers_alive, 1);
    atomic_fetch_add(&g_st.bytes_alive, (long) size);
    return buffer;
}

static size_t tb_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return TEST_BACKEND_ALIGNMENT;
}

static size_t tb_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    (void) buft;
    return atomic_load(&g_cfg.max_size);
}

static size_t tb_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * tensor) {
    (void) buft;
    const size_t pad = atomic_load(&g_cfg.alloc_pad);
    const size_t n = ggml_nbytes(tensor);
    return (n + pad - 1) / pad * pad;
}

//
// streams
//

enum tb_op_kind { TB_OP_SET, TB_OP_GET, TB_OP_RECORD };

struct tb_event;

struct tb_op {
    enum tb_op_kind   kind;
    uint8_t         * dst;
    const uint8_t   * src;
    size_t            size;
    struct tb_event * event;
    uint64_t          value;
};

struct tb_stream {
    int            dev;
    struct tb_op * ops;
    int            n_ops;
    int            cap;
    int            n_threads;
    atomic_bool    busy; // a graph is running: a second caller is refused, as by the CPU backend
    pthread_mutex_t run; // held while a graph runs; synchronize takes it, so that it waits for
                         // that graph (a synchronize from another thread, e.g. the one that a
                         // refused graph_compute does, must not drain the queue under it)
};

struct tb_event {
    uint64_t           recorded;  // times recorded
    uint64_t           completed; // value of the last record that has executed
    struct tb_stream * stream;    // stream of the last record (NULL once that stream is gone)
    struct tb_event  * next;      // list of live events
};

static pthread_mutex_t   g_events_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct tb_event * g_events       = NULL;

static void tb_exec(const struct tb_op * op) {
    switch (op->kind) {
        case TB_OP_SET:
        case TB_OP_GET:
            memcpy(op->dst, op->src, op->size);
            break;
        case TB_OP_RECORD:
            pthread_mutex_lock(&g_events_mutex);
            if (op->event->completed < op->value) {
                op->event->completed = op->value;
            }
            pthread_mutex_unlock(&g_events_mutex);
            break;
    }
    atomic_fetch_add(&g_st.n_flushed_ops, 1);
}

static void tb_flush(struct tb_stream * s) {
    for (int i = 0; i < s->n_ops; i++) {
        tb_exec(&s->ops[i]);
    }
    s->n_ops = 0;
}

// queues op; when the queue cannot grow, runs everything queued and then op (same order)
static void tb_enqueue(struct tb_stream * s, struct tb_op op) {
    if (s->n_ops == s->cap) {
        size_t cap = (size_t) s->cap;
        struct tb_op * ops = (struct tb_op *) ggml_grow_array(s->ops, &cap, (size_t) s->n_ops + 1, sizeof(struct tb_op), 16);
        if (ops == NULL) {
            tb_flush(s);
            tb_exec(&op);
            return;
        }
        s->ops = ops;
        s->cap = (int) cap;
    }
    s->ops[s->n_ops++] = op;
}

static ggml_guid tb_guid_value = { 0x7e, 0x57, 0xba, 0xc4, 0xe2, 0xd0, 0x11, 0xee, 0x9a, 0x01, 0x42, 0x54, 0x45, 0x53, 0x54, 0x00 };

static ggml_guid_t tb_guid(void) {
    return &tb_guid_value;
}

bool test_backend_is_test(ggml_backend_t backend) {
    return backend != NULL && ggml_guid_matches(backend->guid, tb_guid());
}

static struct tb_stream * tb_stream_of(ggml_backend_t backend) {
    return test_backend_is_test(backend) ? (struct tb_stream *) backend->context : NULL;
}

int test_backend_n_pending(ggml_backend_t backend) {
    struct tb_stream * s = tb_stream_of(backend);
    return s ? s->n_ops : -1;
}

int test_backend_get_n_threads(ggml_backend_t backend) {
    struct tb_stream * s = tb_stream_of(backend);
    return s ? s->n_threads : -1;
}

bool test_backend_peek(const struct ggml_tensor * t, void * out, size_t offset, size_t size) {
    if (t == NULL || tb_buffer_of_tensor(t) == NULL) {
        return false;
    }
    const uint8_t * p = tb_tensor_mem(t, offset, size, "peek");
    if (p == NULL) {
        return false;
    }
    memcpy(out, p, size);
    return true;
}

static const char * tb_backend_get_name(ggml_backend_t backend) {
    return ((struct tb_stream *) backend->context)->dev == 0 ? "TEST" : "TEST1";
}

static void tb_backend_free(ggml_backend_t backend) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    tb_flush(s);
    pthread_mutex_lock(&g_events_mutex);
    for (struct tb_event * e = g_events; e != NULL; e = e->next) {
        if (e->stream == s) {
            e->stream = NULL;
        }
    }
    pthread_mutex_unlock(&g_events_mutex);
    pthread_mutex_destroy(&s->run);
    ggml_free_mem(s->ops);
    ggml_free_mem(s);
    ggml_free_mem(backend);
    atomic_fetch_sub(&g_st.backends_alive, 1);
}

static void tb_backend_set_tensor_async(ggml_backend_t backend, struct ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    atomic_fetch_add(&g_st.n_set_async, 1);
    if (tb_stream_transfer_fails(backend, "set_tensor_async")) {
        return;
    }
    uint8_t * p = tb_tensor_mem(tensor, offset, size, "set_tensor_async");
    if (p == NULL) {
        return;
    }
    struct tb_op op = { TB_OP_SET, p, (const uint8_t *) data, size, NULL, 0 };
    tb_enqueue(s, op);
}

static void tb_backend_get_tensor_async(ggml_backend_t backend, const struct ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    atomic_fetch_add(&g_st.n_get_async, 1);
    if (tb_stream_transfer_fails(backend, "get_tensor_async")) {
        return;
    }
    const uint8_t * p = tb_tensor_mem(tensor, offset, size, "get_tensor_async");
    if (p == NULL) {
        return;
    }
    struct tb_op op = { TB_OP_GET, (uint8_t *) data, p, size, NULL, 0 };
    tb_enqueue(s, op);
}

static bool tb_backend_cpy_tensor_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    struct tb_stream * ss = tb_stream_of(backend_src);
    struct tb_stream * sd = tb_stream_of(backend_dst);
    if (!atomic_load(&g_cfg.cpy_async) || ss == NULL || sd == NULL ||
        tb_buffer_of_tensor(src) == NULL || tb_buffer_of_tensor(dst) == NULL || ggml_nbytes(src) != ggml_nbytes(dst)) {
        return false;
    }
    const size_t n = ggml_nbytes(src);
    const uint8_t * from = tb_tensor_mem(src, 0, n, "cpy_tensor_async (src)");
    uint8_t * to = tb_tensor_mem(dst, 0, n, "cpy_tensor_async (dst)");
    if (from == NULL || to == NULL) {
        return false;
    }
    // keep the order of both streams: what they queued before the copy happens before it
    tb_flush(ss);
    tb_flush(sd);
    memmove(to, from, n);
    atomic_fetch_add(&g_st.n_cpy_async, 1);
    return true;
}

static void tb_backend_synchronize(ggml_backend_t backend) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    atomic_fetch_add(&g_st.n_sync, 1);
    pthread_mutex_lock(&s->run);
    tb_flush(s);
    pthread_mutex_unlock(&s->run);
}

static void tb_backend_event_record(ggml_backend_t backend, ggml_backend_event_t event) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    struct tb_event * e = (struct tb_event *) event->context;
    atomic_fetch_add(&g_st.n_event_record, 1);
    // the event list is walked by other threads freeing their streams: update under its lock
    pthread_mutex_lock(&g_events_mutex);
    const uint64_t value = ++e->recorded;
    e->stream = s;
    pthread_mutex_unlock(&g_events_mutex);
    struct tb_op op = { TB_OP_RECORD, NULL, NULL, 0, e, value };
    tb_enqueue(s, op);
}

// the stream an event still waits on (NULL when it has completed), read under the events lock
static struct tb_stream * tb_event_pending_stream(struct tb_event * e) {
    pthread_mutex_lock(&g_events_mutex);
    struct tb_stream * s = e->completed < e->recorded ? e->stream : NULL;
    pthread_mutex_unlock(&g_events_mutex);
    return s;
}

static void tb_backend_event_wait(ggml_backend_t backend, ggml_backend_event_t event) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    struct tb_event * e = (struct tb_event *) event->context;
    atomic_fetch_add(&g_st.n_event_wait, 1);
    // a wait on another stream's event: that stream's work up to the record must be done before
    // anything this stream does later; doing it now is the simplest way to keep that order
    struct tb_stream * pending = tb_event_pending_stream(e);
    if (pending != NULL && pending != s) {
        tb_flush(pending);
    }
}

//
// compute
//

static bool tb_is_view_op(enum ggml_op op) {
    return op == GGML_OP_NONE || ggml_op_is_view(op);
}

static bool tb_f32_contiguous(const struct ggml_tensor * t) {
    return t != NULL && t->type == GGML_TYPE_F32 && ggml_is_contiguous(t);
}

static bool tb_supports_op(const struct ggml_tensor * op) {
    if ((int) op->op < 0 || op->op >= GGML_OP_COUNT || atomic_load(&g_cfg.op_disabled[op->op])) {
        return false;
    }
    if (tb_is_view_op(op->op)) {
        return true;
    }
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    switch (op->op) {
        case GGML_OP_ADD:
        case GGML_OP_MUL:
            return tb_f32_contiguous(op) && tb_f32_contiguous(a) && tb_f32_contiguous(b) &&
                   ggml_are_same_shape(op, a) && ggml_can_repeat(b, a);
        case GGML_OP_SCALE:
            return tb_f32_contiguous(op) && tb_f32_contiguous(a) && ggml_are_same_shape(op, a);
        case GGML_OP_CPY:
            return tb_f32_contiguous(op) && tb_f32_contiguous(a) && tb_f32_contiguous(b) &&
                   ggml_nelements(op) == ggml_nelements(a);
        case GGML_OP_DUP:
        case GGML_OP_CONT:
            return tb_f32_contiguous(op) && tb_f32_contiguous(a) && ggml_nelements(op) == ggml_nelements(a);
        default:
            return false;
    }
}

static enum ggml_status tb_compute_node(struct tb_stream * s, struct ggml_tensor * node) {
    if (tb_is_view_op(node->op) || ggml_nelements(node) == 0) {
        return GGML_STATUS_SUCCESS; // nothing to compute
    }
    if (!tb_supports_op(node)) {
        ggml_error_report(GGML_ERROR_UNSUPPORTED, "test-backend: unsupported op %s for node '%s'\n", ggml_op_desc(node), node->name);
        return GGML_STATUS_FAILED;
    }
    // every tensor must be in a buffer of this stream's device
    struct ggml_tensor * ts[3] = { node, node->src[0], node->src[1] };
    float * p[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; i++) {
        if (ts[i] == NULL) {
            continue;
        }
        struct tb_buffer * b = tb_buffer_of_tensor(ts[i]);
        if (b == NULL || b->dev != s->dev) {
            GGML_LOG_ERROR("test-backend: tensor '%s' of node '%s' is not in this device's memory\n", ts[i]->name, node->name);
            return GGML_STATUS_FAILED;
        }
        p[i] = (float *) tb_tensor_mem(ts[i], 0, ggml_nbytes(ts[i]), "compute");
        if (p[i] == NULL) {
            return GGML_STATUS_FAILED;
        }
    }
    float * d = p[0];
    const float * a = p[1];
    const float * b = p[2];
    const int64_t n = ggml_nelements(node);

    switch (node->op) {
        case GGML_OP_ADD:
        case GGML_OP_MUL: {
            const struct ggml_tensor * tb = node->src[1];
            const int64_t * ne = node->ne;
            int64_t i = 0;
            for (int64_t i3 = 0; i3 < ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < ne[1]; i1++) {
                        const int64_t jrow = ((i3 % tb->ne[3])*tb->ne[2] + i2 % tb->ne[2])*tb->ne[1] + i1 % tb->ne[1];
                        for (int64_t i0 = 0; i0 < ne[0]; i0++, i++) {
                            const float y = b[jrow*tb->ne[0] + i0 % tb->ne[0]];
                            d[i] = node->op == GGML_OP_ADD ? a[i] + y : a[i] * y;
                        }
                    }
                }
            }
        } break;
        case GGML_OP_SCALE: {
            const float sc   = ggml_get_op_params_f32(node, 0);
            const float bias = ggml_get_op_params_f32(node, 1);
            for (int64_t i = 0; i < n; i++) {
                d[i] = a[i]*sc + bias;
            }
        } break;
        case GGML_OP_CPY:
        case GGML_OP_DUP:
        case GGML_OP_CONT:
            memmove(d, a, (size_t) n * sizeof(float));
            break;
        default:
            return GGML_STATUS_FAILED;
    }
    atomic_fetch_add(&g_st.n_nodes_computed, 1);
    return GGML_STATUS_SUCCESS;
}

static enum ggml_status tb_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * cgraph) {
    struct tb_stream * s = (struct tb_stream *) backend->context;
    bool expected = false;
    if (!atomic_compare_exchange_strong(&s->busy, &expected, true)) {
        GGML_LOG_ERROR("test-backend: %s is already computing a graph "
                       "(one graph at a time per backend: give each thread its own backend)\n", tb_backend_get_name(backend));
        return GGML_STATUS_FAILED;
    }
    pthread_mutex_lock(&s->run);
    atomic_fetch_add(&g_st.n_compute, 1);
    const long delay = atomic_load(&g_cfg.compute_delay_us);
    if (delay > 0) {
        const struct timespec ts = { delay / 1000000, (delay % 1000000) * 1000 };
        nanosleep(&ts, NULL);
    }
    tb_flush(s); // the graph reads what was queued before it
    enum ggml_status st = GGML_STATUS_SUCCESS;
    for (int i = 0; i < cgraph->n_nodes && st == GGML_STATUS_SUCCESS; i++) {
        st = tb_compute_node(s, cgraph->nodes[i]);
    }
    pthread_mutex_unlock(&s->run);
    atomic_store(&s->busy, false);
    return st;
}

static const struct ggml_backend_i tb_backend_iface = {
    /* .get_name            = */ tb_backend_get_name,
    /* .free                = */ tb_backend_free,
    /* .set_tensor_async    = */ tb_backend_set_tensor_async,
    /* .get_tensor_async    = */ tb_backend_get_tensor_async,
    /* .set_tensor_2d_async = */ NULL,
    /* .get_tensor_2d_async = */ NULL,
    /* .cpy_tensor_async    = */ tb_backend_cpy_tensor_async,
    /* .synchronize         = */ tb_backend_synchronize,
    /* .graph_plan_create   = */ NULL,
    /* .graph_plan_free     = */ NULL,
    /* .graph_plan_update   = */ NULL,
    /* .graph_plan_compute  = */ NULL,
    /* .graph_compute       = */ tb_backend_graph_compute,
    /* .event_record        = */ tb_backend_event_record,
    /* .event_wait          = */ tb_backend_event_wait,
    /* .graph_optimize      = */ NULL,
};

//
// devices and registry
//

static struct tb_buft_context tb_buft_ctx[TEST_BACKEND_N_DEVICES] = { { 0 }, { 1 } };
static struct ggml_backend_buffer_type tb_bufts[TEST_BACKEND_N_DEVICES];
static struct ggml_backend_device      tb_devs[TEST_BACKEND_N_DEVICES];
static struct ggml_backend_reg         tb_reg;
static pthread_once_t                  tb_once = PTHREAD_ONCE_INIT;

static int tb_dev_index(ggml_backend_dev_t dev) {
    return (int) (dev - tb_devs);
}

static const char * tb_dev_get_name(ggml_backend_dev_t dev) {
    return tb_dev_index(dev) == 0 ? "TEST" : "TEST1";
}

static const char * tb_dev_get_description(ggml_backend_dev_t dev) {
    return tb_dev_index(dev) == 0 ? "test device 0 (private memory)" : "test device 1 (private memory)";
}

static void tb_dev_get_memory(ggml_backend_dev_t dev, size_t * free, size_t * total) {
    *total = TEST_BACKEND_MEMORY;
    *free  = TEST_BACKEND_MEMORY - atomic_load(&g_dev_used[tb_dev_index(dev)]);
}

static enum ggml_backend_dev_type tb_dev_get_type(ggml_backend_dev_t dev) {
    (void) dev;
    return GGML_BACKEND_DEVICE_TYPE_GPU;
}

static void tb_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name        = tb_dev_get_name(dev);
    props->description = tb_dev_get_description(dev);
    props->type        = tb_dev_get_type(dev);
    props->device_id   = NULL;
    tb_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = true;
    props->caps.host_buffer          = false;
    props->caps.buffer_from_host_ptr = false;
    props->caps.events               = true;
    props->caps.mmap_support         = false;
}

static ggml_backend_t tb_dev_init_backend(ggml_backend_dev_t dev, const char * params) {
    (void) params;
    struct tb_stream * s = (struct tb_stream *) ggml_calloc(1, sizeof(*s));
    ggml_backend_t backend = (ggml_backend_t) ggml_calloc(1, sizeof(struct ggml_backend));
    if (s == NULL || backend == NULL || pthread_mutex_init(&s->run, NULL) != 0) {
        ggml_free_mem(s);
        ggml_free_mem(backend);
        return NULL;
    }
    s->dev       = tb_dev_index(dev);
    s->n_threads = -1;
    atomic_init(&s->busy, false);
    backend->guid    = tb_guid();
    backend->iface   = tb_backend_iface;
    backend->device  = dev;
    backend->context = s;
    atomic_fetch_add(&g_st.backends_alive, 1);
    return backend;
}

static ggml_backend_buffer_type_t tb_dev_get_buffer_type(ggml_backend_dev_t dev) {
    return &tb_bufts[tb_dev_index(dev)];
}

static bool tb_dev_supports_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    (void) dev;
    return tb_supports_op(op);
}

static bool tb_dev_supports_buft(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft) {
    return buft == &tb_bufts[tb_dev_index(dev)];
}

static bool tb_dev_offload_op(ggml_backend_dev_t dev, const struct ggml_tensor * op) {
    (void) dev;
    return atomic_load(&g_cfg.offload) && tb_supports_op(op);
}

static ggml_backend_event_t tb_dev_event_new(ggml_backend_dev_t dev) {
    struct tb_event * e = (struct tb_event *) ggml_calloc(1, sizeof(*e));
    ggml_backend_event_t event = (ggml_backend_event_t) ggml_calloc(1, sizeof(struct ggml_backend_event));
    if (e == NULL || event == NULL) {
        ggml_free_mem(e);
        ggml_free_mem(event);
        return NULL;
    }
    event->device  = dev;
    event->context = e;
    pthread_mutex_lock(&g_events_mutex);
    e->next  = g_events;
    g_events = e;
    pthread_mutex_unlock(&g_events_mutex);
    atomic_fetch_add(&g_st.events_alive, 1);
    return event;
}

static void tb_dev_event_free(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    (void) dev;
    struct tb_event * e = (struct tb_event *) event->context;
    pthread_mutex_lock(&g_events_mutex);
    for (struct tb_event ** pp = &g_events; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_events_mutex);
    ggml_free_mem(e);
    ggml_free_mem(event);
    atomic_fetch_sub(&g_st.events_alive, 1);
}

static void tb_dev_event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t event) {
    (void) dev;
    struct tb_event * e = (struct tb_event *) event->context;
    atomic_fetch_add(&g_st.n_event_sync, 1);
    struct tb_stream * pending = tb_event_pending_stream(e);
    if (pending != NULL) {
        tb_flush(pending);
    }
}

static const struct ggml_backend_device_i tb_dev_iface = {
    /* .get_name             = */ tb_dev_get_name,
    /* .get_description      = */ tb_dev_get_description,
    /* .get_memory           = */ tb_dev_get_memory,
    /* .get_type             = */ tb_dev_get_type,
    /* .get_props            = */ tb_dev_get_props,
    /* .init_backend         = */ tb_dev_init_backend,
    /* .get_buffer_type      = */ tb_dev_get_buffer_type,
    /* .get_host_buffer_type = */ NULL,
    /* .buffer_from_host_ptr = */ NULL,
    /* .supports_op          = */ tb_dev_supports_op,
    /* .supports_buft        = */ tb_dev_supports_buft,
    /* .offload_op           = */ tb_dev_offload_op,
    /* .event_new            = */ tb_dev_event_new,
    /* .event_free           = */ tb_dev_event_free,
    /* .event_synchronize    = */ tb_dev_event_synchronize,
};

static const char * tb_reg_get_name(ggml_backend_reg_t reg) {
    (void) reg;
    return "TEST";
}

static size_t tb_reg_get_device_count(ggml_backend_reg_t reg) {
    (void) reg;
    return TEST_BACKEND_N_DEVICES;
}

static ggml_backend_dev_t tb_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    (void) reg;
    return index < TEST_BACKEND_N_DEVICES ? &tb_devs[index] : NULL;
}

static void tb_set_n_threads(ggml_backend_t backend, int n_threads) {
    struct tb_stream * s = tb_stream_of(backend);
    if (s != NULL) {
        s->n_threads = n_threads;
    }
}

static struct ggml_backend_feature tb_features[] = {
    { "TEST_FEATURE", "1" },
    { NULL, NULL },
};

static struct ggml_backend_feature * tb_get_features(ggml_backend_reg_t reg) {
    (void) reg;
    return tb_features;
}

static void * tb_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    (void) reg;
    if (name == NULL) {
        return NULL;
    }
    if (strcmp(name, "ggml_backend_set_n_threads") == 0) {
        ggml_backend_set_n_threads_t fn = tb_set_n_threads;
        return (void *) fn;
    }
    if (strcmp(name, "ggml_backend_get_features") == 0) {
        ggml_backend_get_features_t fn = tb_get_features;
        return (void *) fn;
    }
    return NULL;
}

static const struct ggml_backend_reg_i tb_reg_iface = {
    /* .get_name         = */ tb_reg_get_name,
    /* .get_device_count = */ tb_reg_get_device_count,
    /* .get_device       = */ tb_reg_get_device,
    /* .get_proc_address = */ tb_reg_get_proc_address,
};

static void tb_init_once(void) {
    tb_reg.api_version = GGML_BACKEND_API_VERSION;
    tb_reg.iface       = tb_reg_iface;
    tb_reg.context     = NULL;
    for (int i = 0; i < TEST_BACKEND_N_DEVICES; i++) {
        tb_devs[i].iface   = tb_dev_iface;
        tb_devs[i].reg     = &tb_reg;
        tb_devs[i].context = NULL;

        tb_bufts[i].iface.get_name       = tb_buft_get_name;
        tb_bufts[i].iface.alloc_buffer   = tb_buft_alloc_buffer;
        tb_bufts[i].iface.get_alignment  = tb_buft_get_alignment;
        tb_bufts[i].iface.get_max_size   = tb_buft_get_max_size;
        tb_bufts[i].iface.get_alloc_size = tb_buft_get_alloc_size;
        tb_bufts[i].iface.is_host        = NULL; // the default (false) is the truth here
        tb_bufts[i].device               = &tb_devs[i];
        tb_bufts[i].context              = &tb_buft_ctx[i];
    }
}

ggml_backend_reg_t test_backend_reg(void) {
    pthread_once(&tb_once, tb_init_once);
    return &tb_reg;
}

ggml_backend_dev_t test_backend_dev(int index) {
    pthread_once(&tb_once, tb_init_once);
    return index >= 0 && index < TEST_BACKEND_N_DEVICES ? &tb_devs[index] : NULL;
}

ggml_backend_buffer_type_t test_backend_buffer_type(int index) {
    pthread_once(&tb_once, tb_init_once);
    return index >= 0 && index < TEST_BACKEND_N_DEVICES ? &tb_bufts[index] : NULL;
}

ggml_backend_t test_backend_init_dev(int index) {
    ggml_backend_dev_t dev = test_backend_dev(index);
    return dev ? ggml_backend_dev_init(dev, NULL) : NULL;
}

ggml_backend_t test_backend_init(void) {
    return test_backend_init_dev(0);
}
