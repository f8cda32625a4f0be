// Dynamic offset allocator used by the graph allocator to plan a compute buffer.
//
// Each chunk keeps its free space as an array of blocks sorted by offset. The last block of a
// chunk is its tail: it reaches the chunk's capacity, which is the buffer type's max size (or
// unbounded for the last chunk allowed), so allocating from it may grow the chunk's high-water
// mark `max_size`, which becomes the size of the real buffer.

#include "ggml-alloc-impl.h"
#include "ggml-impl.h"

#include <stdint.h>
#include <string.h>

struct dyn_block {
    size_t offset;
    size_t size;
};

struct dyn_chunk {
    struct dyn_block * blocks; // sorted by offset, never adjacent (adjacent blocks are merged)
    int    n_blocks;
    int    cap_blocks;
    size_t max_size;           // high-water mark
};

struct ggml_dyn_tallocr {
    size_t alignment;
    size_t max_chunk_size;
    int    n_chunks;
    struct dyn_chunk chunks[GGML_DYN_MAX_CHUNKS]; // block arrays stay allocated across resets
};

// capacity of the last chunk allowed: large enough for anything, small enough that offset + size
// never overflows
#define DYN_UNBOUNDED (SIZE_MAX / 2)

bool ggml_op_can_inplace(enum ggml_op op) {
    switch (op) {
        case GGML_OP_FILL:
        case GGML_OP_SCALE:
        case GGML_OP_DIAG_MASK_ZERO:
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_ADD:
        case GGML_OP_ADD_ID:
        case GGML_OP_ADD1:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_LOG:
        case GGML_OP_UNARY:
        case GGML_OP_ROPE:
        case GGML_OP_ROPE_BACK:
        case GGML_OP_SILU_BACK:
        case GGML_OP_RMS_NORM:
        case GGML_OP_RMS_NORM_BACK:
        case GGML_OP_SOFT_MAX:
        case GGML_OP_SOFT_MAX_BACK:
            return true;
        default:
            return false;
    }
}

struct ggml_dyn_tallocr * ggml_dyn_tallocr_new(size_t alignment, size_t max_chunk_size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        GGML_LOG_ERROR("%s: alignment %zu is not a power of two\n", __func__, alignment);
        return NULL;
    }
    struct ggml_dyn_tallocr * alloc = ggml_calloc(1, sizeof(*alloc));
    if (alloc == NULL) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
        return NULL;
    }
    alloc->alignment      = alignment;
    alloc->max_chunk_size = MIN(max_chunk_size == 0 ? SIZE_MAX : max_chunk_size, (size_t) DYN_UNBOUNDED);
    return alloc;
}

void ggml_dyn_tallocr_free(struct ggml_dyn_tallocr * alloc) {
    if (alloc == NULL) {
        return;
    }
    for (int c = 0; c < GGML_DYN_MAX_CHUNKS; c++) {
        ggml_free_mem(alloc->chunks[c].blocks);
    }
    ggml_free_mem(alloc);
}

void ggml_dyn_tallocr_reset(struct ggml_dyn_tallocr * alloc) {
    for (int c = 0; c < GGML_DYN_MAX_CHUNKS; c++) {
        alloc->chunks[c].n_blocks = 0;
        alloc->chunks[c].max_size = 0;
    }
    alloc->n_chunks = 0;
}

size_t ggml_dyn_tallocr_block_size(const struct ggml_dyn_tallocr * alloc, size_t size) {
    if (size > DYN_UNBOUNDED) {
        return 0;
    }
    const size_t padded = ggml_up(size, alloc->alignment);
    return padded == 0 ? alloc->alignment : padded;
}

int ggml_dyn_tallocr_n_chunks(const struct ggml_dyn_tallocr * alloc) {
    return alloc->n_chunks;
}

size_t ggml_dyn_tallocr_chunk_size(const struct ggml_dyn_tallocr * alloc, int chunk) {
    return chunk >= 0 && chunk < alloc->n_chunks ? alloc->chunks[chunk].max_size : 0;
}

static bool dyn_chunk_reserve(struct dyn_chunk * chunk, int n) {
    if (n <= chunk->cap_blocks) {
        return true;
    }
    size_t cap = (size_t) chunk->cap_blocks;
    struct dyn_block * blocks = ggml_grow_array(chunk->blocks, &cap, (size_t) n, sizeof(*blocks), 16);
    if (blocks == NULL) {
        return false;
    }
    chunk->blocks     = blocks;
    chunk->cap_blocks = (int) cap;
    return true;
}

static void dyn_chunk_remove(struct dyn_chunk * chunk, int i) {
    memmove(&chunk->blocks[i], &chunk->blocks[i + 1], (size_t)(chunk->n_blocks - i - 1) * sizeof(chunk->blocks[0]));
    chunk->n_blocks--;
}

// inserts a block at position i (the caller has reserved room)
static void dyn_chunk_insert(struct dyn_chunk * chunk, int i, size_t offset, size_t size) {
    memmove(&chunk->blocks[i + 1], &chunk->blocks[i], (size_t)(chunk->n_blocks - i) * sizeof(chunk->blocks[0]));
    chunk->blocks[i].offset = offset;
    chunk->blocks[i].size   = size;
    chunk->n_blocks++;
}

// Opens a chunk able to hold at least size bytes; -1 when no chunk is left or memory runs out.
static int dyn_new_chunk(struct ggml_dyn_tallocr * alloc, size_t size) {
    if (alloc->n_chunks >= GGML_DYN_MAX_CHUNKS) {
        return -1;
    }
    struct dyn_chunk * chunk = &alloc->chunks[alloc->n_chunks];
    if (!dyn_chunk_reserve(chunk, 1)) {
        return -1;
    }
    // The last chunk allowed is unbounded, so that a graph always has a plan; a single tensor
    // larger than the max size gets a chunk of its own. Whether such a buffer can really be
    // allocated is the buffer type's call.
    size_t capacity = MAX(size, alloc->max_chunk_size);
    if (alloc->n_chunks == GGML_DYN_MAX_CHUNKS - 1) {
        capacity = DYN_UNBOUNDED;
    }
    chunk->n_blocks  = 0;
    chunk->max_size  = 0;
    dyn_chunk_insert(chunk, 0, 0, capacity);
    return alloc->n_chunks++;
}

bool ggml_dyn_tallocr_alloc(struct ggml_dyn_tallocr * alloc, size_t size, struct ggml_dyn_addr * addr) {
    const size_t req = ggml_dyn_tallocr_block_size(alloc, size);
    if (req == 0) {
        GGML_LOG_ERROR("%s: cannot plan %zu bytes: too large\n", __func__, size);
        return false;
    }

    int best_c = -1;
    int best_i = -1;

    // 1. best fit among the free blocks that are not a chunk's tail (reuses freed holes)
    size_t best_size = SIZE_MAX;
    for (int c = 0; c < alloc->n_chunks; c++) {
        const struct dyn_chunk * chunk = &alloc->chunks[c];
        for (int i = 0; i < chunk->n_blocks - 1; i++) {
            const size_t bs = chunk->blocks[i].size;
            if (bs >= req && bs < best_size) {
                best_size = bs;
                best_c    = c;
                best_i    = i;
            }
        }
    }

    // 2. a chunk's tail: prefer one where the request fits below the high-water mark (no growth;
    //    the tightest such), otherwise the one that needs the least growth
    if (best_c < 0) {
        bool   have_fit   = false;
        size_t best_waste = SIZE_MAX; // unused space left below max_size, when it fits
        size_t best_grow  = SIZE_MAX; // growth of max_size, when it does not
        for (int c = 0; c < alloc->n_chunks; c++) {
            const struct dyn_chunk * chunk = &alloc->chunks[c];
            if (chunk->n_blocks == 0) {
                continue;
            }
            const struct dyn_block * tail = &chunk->blocks[chunk->n_blocks - 1];
            if (tail->size < req) {
                continue;
            }
            const size_t end = tail->offset + req; // cannot overflow: both are below SIZE_MAX/2
            if (end <= chunk->max_size) {
                const size_t waste = chunk->max_size - end;
                if (!have_fit || waste < best_waste) {
                    have_fit   = true;
                    best_waste = waste;
                    best_c     = c;
                    best_i     = chunk->n_blocks - 1;
                }
            } else if (!have_fit) {
                const size_t grow = end - chunk->max_size;
                if (grow < best_grow) {
                    best_grow = grow;
                    best_c    = c;
                    best_i    = chunk->n_blocks - 1;
                }
            }
        }
    }

    // 3. a new chunk
    if (best_c < 0) {
        best_c = dyn_new_chunk(alloc, req);
        best_i = 0;
        if (best_c < 0) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: cannot plan %zu bytes: out of chunks or out of memory\n", __func__, req);
            return false;
        }
    }

    struct dyn_chunk * chunk = &alloc->chunks[best_c];
    struct dyn_block * block = &chunk->blocks[best_i];
    addr->chunk  = best_c;
    addr->offset = block->offset;
    block->offset += req;
    block->size   -= req;
    if (block->size == 0) {
        dyn_chunk_remove(chunk, best_i);
    }
    chunk->max_size = MAX(chunk->max_size, addr->offset + req);
    return true;
}

bool ggml_dyn_tallocr_release(struct ggml_dyn_tallocr * alloc, struct ggml_dyn_addr addr, size_t size) {
    const size_t len = ggml_dyn_tallocr_block_size(alloc, size);
    if (addr.chunk < 0 || addr.chunk >= alloc->n_chunks || len == 0 || addr.offset > DYN_UNBOUNDED) {
        GGML_LOG_ERROR("%s: invalid range (chunk %d, offset %zu, size %zu)\n", __func__, addr.chunk, addr.offset, size);
        return false;
    }
    struct dyn_chunk * chunk = &alloc->chunks[addr.chunk];
    const size_t begin = addr.offset;
    const size_t end   = begin + len;

    // first block after the range
    int i = 0;
    while (i < chunk->n_blocks && chunk->blocks[i].offset < begin) {
        i++;
    }
    struct dyn_block * prev = i > 0 ? &chunk->blocks[i - 1] : NULL;
    struct dyn_block * next = i < chunk->n_blocks ? &chunk->blocks[i] : NULL;

    if ((prev != NULL && prev->offset + prev->size > begin) || (next != NULL && next->offset < end)) {
        GGML_LOG_ERROR("%s: range [%zu, %zu) of chunk %d is already free\n", __func__, begin, end, addr.chunk);
        return false;
    }

    const bool merge_prev = prev != NULL && prev->offset + prev->size == begin;
    const bool merge_next = next != NULL && next->offset == end;
    if (merge_prev && merge_next) {
        prev->size += len + next->size;
        dyn_chunk_remove(chunk, i);
    } else if (merge_prev) {
        prev->size += len;
    } else if (merge_next) {
        next->offset  = begin;
        next->size   += len;
    } else {
        if (!dyn_chunk_reserve(chunk, chunk->n_blocks + 1)) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory\n", __func__);
            return false;
        }
        dyn_chunk_insert(chunk, i, begin, len);
    }
    return true;
}
