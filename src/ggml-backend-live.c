// The set of live buffers: every buffer made by ggml_backend_buffer_init is in it until
// ggml_backend_buffer_free. Graph computation and tensor copies consult it before they first read
// a buffer object, so that a graph whose weights' buffer was freed fails with an error instead of
// reading freed memory. Only the buffer's address is compared: nothing of a freed buffer is read.
//
// A freed buffer whose address the allocator hands to a new buffer looks live again; the check
// catches the common mistake, not every one.
//
// An open-addressing hash set of pointers (linear probing, deletion by backward shift) under one
// mutex; it grows when half full.

#include "ggml-backend-impl.h"
#include "ggml-impl.h"

#include <pthread.h>
#include <stdint.h>

static pthread_mutex_t         g_live_lock = PTHREAD_MUTEX_INITIALIZER;
static ggml_backend_buffer_t * g_live_slots = NULL; // NULL: empty slot
static size_t                  g_live_cap   = 0;    // a power of two, or 0
static size_t                  g_live_count = 0;

static size_t live_hash(ggml_backend_buffer_t buffer, size_t cap) {
    uint64_t h = (uint64_t) (uintptr_t) buffer;
    h ^= h >> 29;
    h *= UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 32;
    return (size_t) h & (cap - 1);
}

// the slot holding buffer, or the empty slot where it would go
static size_t live_find(ggml_backend_buffer_t buffer) {
    size_t i = live_hash(buffer, g_live_cap);
    while (g_live_slots[i] != NULL && g_live_slots[i] != buffer) {
        i = (i + 1) & (g_live_cap - 1);
    }
    return i;
}

static bool live_grow(void) {
    const size_t new_cap = g_live_cap == 0 ? 64 : 2 * g_live_cap;
    ggml_backend_buffer_t * slots = ggml_calloc(new_cap, sizeof(*slots));
    if (slots == NULL) {
        return false;
    }
    ggml_backend_buffer_t * old = g_live_slots;
    const size_t old_cap = g_live_cap;
    g_live_slots = slots;
    g_live_cap   = new_cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i] != NULL) {
            g_live_slots[live_find(old[i])] = old[i];
        }
    }
    ggml_free_mem(old);
    return true;
}

bool ggml_backend_buffer_live_add(ggml_backend_buffer_t buffer) {
    pthread_mutex_lock(&g_live_lock);
    bool ok = true;
    if (2 * (g_live_count + 1) > g_live_cap) {
        ok = live_grow();
    }
    if (ok) {
        const size_t i = live_find(buffer);
        if (g_live_slots[i] == NULL) {
            g_live_slots[i] = buffer;
            g_live_count++;
        }
    }
    pthread_mutex_unlock(&g_live_lock);
    return ok;
}

void ggml_backend_buffer_live_remove(ggml_backend_buffer_t buffer) {
    pthread_mutex_lock(&g_live_lock);
    if (g_live_cap > 0) {
        size_t i = live_find(buffer);
        if (g_live_slots[i] == buffer) {
            g_live_slots[i] = NULL;
            g_live_count--;
            // move back the entries of the probe run that follows, so that lookups still find them
            size_t j = i;
            for (;;) {
                j = (j + 1) & (g_live_cap - 1);
                if (g_live_slots[j] == NULL) {
                    break;
                }
                const size_t home = live_hash(g_live_slots[j], g_live_cap);
                // the entry at j may move to the hole at i when its home is not in (i, j]
                const bool between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
                if (!between) {
                    g_live_slots[i] = g_live_slots[j];
                    g_live_slots[j] = NULL;
                    i = j;
                }
            }
        }
        if (g_live_count == 0) {
            ggml_free_mem(g_live_slots); // nothing left behind at exit
            g_live_slots = NULL;
            g_live_cap   = 0;
        }
    }
    pthread_mutex_unlock(&g_live_lock);
}

void ggml_backend_buffer_live_lock(void) {
    pthread_mutex_lock(&g_live_lock);
}

void ggml_backend_buffer_live_unlock(void) {
    pthread_mutex_unlock(&g_live_lock);
}

bool ggml_backend_buffer_live_has_locked(ggml_backend_buffer_t buffer) {
    return g_live_cap > 0 && g_live_slots[live_find(buffer)] == buffer;
}

bool ggml_backend_buffer_is_live(ggml_backend_buffer_t buffer) {
    pthread_mutex_lock(&g_live_lock);
    const bool live = ggml_backend_buffer_live_has_locked(buffer);
    pthread_mutex_unlock(&g_live_lock);
    return live;
}
