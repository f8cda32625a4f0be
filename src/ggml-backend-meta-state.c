// Split states of the meta device: validation, per-device shapes, and the host-side mapping
// between a whole tensor and the devices' slices.

#include "ggml-backend-meta-impl.h"
#include "ggml-impl.h"

#include <stdlib.h>
#include <string.h>

const char * ggml_backend_meta_split_axis_name(enum ggml_backend_meta_split_axis split_axis) {
    switch (split_axis) {
        case GGML_BACKEND_SPLIT_AXIS_0:        return "AXIS_0";
        case GGML_BACKEND_SPLIT_AXIS_1:        return "AXIS_1";
        case GGML_BACKEND_SPLIT_AXIS_2:        return "AXIS_2";
        case GGML_BACKEND_SPLIT_AXIS_3:        return "AXIS_3";
        case GGML_BACKEND_SPLIT_AXIS_MIRRORED: return "MIRRORED";
        case GGML_BACKEND_SPLIT_AXIS_PARTIAL:  return "PARTIAL";
        case GGML_BACKEND_SPLIT_AXIS_NONE:     return "NONE";
        case GGML_BACKEND_SPLIT_AXIS_UNKNOWN:  return "UNKNOWN";
    }
    return "(invalid)";
}

bool meta_state_is_split(const meta_state * s) {
    return (int) s->axis >= 0 && (int) s->axis < GGML_MAX_DIMS;
}

meta_state meta_state_make(enum ggml_backend_meta_split_axis axis) {
    meta_state s;
    memset(&s, 0, sizeof(s));
    s.axis = axis;
    s.n_segments = 1;
    s.nr[0] = 1;
    return s;
}

bool meta_debug_enabled(void) {
    const char * v = getenv("GGML_META_DEBUG");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

bool meta_state_validate(meta_state * s, size_t n_devs, const struct ggml_tensor * t, const char * who) {
    switch (s->axis) {
        case GGML_BACKEND_SPLIT_AXIS_MIRRORED:
        case GGML_BACKEND_SPLIT_AXIS_PARTIAL:
            return true;
        case GGML_BACKEND_SPLIT_AXIS_0:
        case GGML_BACKEND_SPLIT_AXIS_1:
        case GGML_BACKEND_SPLIT_AXIS_2:
        case GGML_BACKEND_SPLIT_AXIS_3:
            break;
        default:
            GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': split axis %d is not a valid state\n", who, t->name, (int) s->axis);
            return false;
    }
    if (s->n_segments == 0) {
        s->n_segments = 1;
    }
    if (s->n_segments > 16 || s->n_segments * n_devs > 16*META_MAX_DEVS) {
        GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': %u segments are more than 16\n", who, t->name, s->n_segments);
        return false;
    }
    const int    axis = (int) s->axis;
    const int64_t blck = axis == 0 ? ggml_blck_size(t->type) : 1;
    int64_t total = 0;
    for (uint32_t seg = 0; seg < s->n_segments; seg++) {
        if (s->nr[seg] == 0) {
            s->nr[seg] = 1;
        }
        if (s->nr[seg] > (1u << 20)) {
            GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': segment %u repeats %u times\n", who, t->name, seg, s->nr[seg]);
            return false;
        }
        for (size_t j = 0; j < n_devs; j++) {
            const int64_t e = s->ne[seg*n_devs + j];
            if (e < 0 || e > t->ne[axis] || e % blck != 0) {
                GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': segment %u of device %zu has extent %lld (axis %d of size %lld, block %lld)\n",
                        who, t->name, seg, j, (long long) e, axis, (long long) t->ne[axis], (long long) blck);
                return false;
            }
            total += e * (int64_t) s->nr[seg];
            if (total > t->ne[axis]) {
                break;
            }
        }
    }
    if (total != t->ne[axis]) {
        GGML_ERROR(GGML_ERROR_INVALID_ARGUMENT, "%s: tensor '%s': the split extents add up to %lld, not to ne[%d] = %lld\n",
                who, t->name, (long long) total, axis, (long long) t->ne[axis]);
        return false;
    }
    return true;
}

int64_t meta_state_dev_extent(const meta_state * s, size_t n_devs, size_t j) {
    int64_t e = 0;
    for (uint32_t seg = 0; seg < s->n_segments; seg++) {
        e += s->ne[seg*n_devs + j] * (int64_t) s->nr[seg];
    }
    return e;
}

bool meta_state_equal(const meta_state * a, const meta_state * b, size_t n_devs) {
    if (a->axis != b->axis) {
        return false;
    }
    if (!meta_state_is_split(a)) {
        return true;
    }
    if (a->n_segments != b->n_segments) {
        return false;
    }
    for (uint32_t seg = 0; seg < a->n_segments; seg++) {
        if (a->nr[seg] != b->nr[seg]) {
            return false;
        }
        for (size_t j = 0; j < n_devs; j++) {
            if (a->ne[seg*n_devs + j] != b->ne[seg*n_devs + j]) {
                return false;
            }
        }
    }
    return true;
}

void meta_state_dev_ne(const meta_state * s, size_t n_devs, size_t j, const int64_t ne[4], int64_t out[4]) {
    for (int i = 0; i < 4; i++) {
        out[i] = ne[i];
    }
    if (meta_state_is_split(s)) {
        out[s->axis] = meta_state_dev_extent(s, n_devs, j);
    }
}

// bytes of `count` consecutive indices along `axis` of a contiguous tensor
static size_t axis_bytes(enum ggml_type type, const int64_t ne[4], int axis, int64_t count) {
    if (axis == 0) {
        return ggml_row_size(type, count);
    }
    size_t b = ggml_row_size(type, ne[0]);
    for (int i = 1; i < axis; i++) {
        b *= (size_t) ne[i];
    }
    return b * (size_t) count;
}

void meta_state_host_copy(const meta_state * s, size_t n_devs, enum ggml_type type, const int64_t ne[4],
                          char * full, char * const * slices, bool to_slices) {
    const int axis = (int) s->axis;
    int64_t outer = 1;
    for (int i = axis + 1; i < 4; i++) {
        outer *= ne[i];
    }
    size_t dev_block[META_MAX_DEVS];
    for (size_t j = 0; j < n_devs; j++) {
        dev_block[j] = axis_bytes(type, ne, axis, meta_state_dev_extent(s, n_devs, j));
    }
    const size_t full_block = axis_bytes(type, ne, axis, ne[axis]);
    for (int64_t o = 0; o < outer; o++) {
        char * f = full + (size_t) o * full_block;
        size_t pos[META_MAX_DEVS] = {0};
        for (uint32_t seg = 0; seg < s->n_segments; seg++) {
            for (uint32_t r = 0; r < s->nr[seg]; r++) {
                for (size_t j = 0; j < n_devs; j++) {
                    const size_t b = axis_bytes(type, ne, axis, s->ne[seg*n_devs + j]);
                    char * d = slices[j] + (size_t) o * dev_block[j] + pos[j];
                    if (b > 0) {
                        if (to_slices) {
                            memcpy(d, f, b);
                        } else {
                            memcpy(f, d, b);
                        }
                    }
                    f      += b;
                    pos[j] += b;
                }
            }
        }
    }
}

void meta_state_print(const char * what, const struct ggml_tensor * t, const meta_state * s, size_t n_devs) {
    char buf[512];
    int  n = snprintf(buf, sizeof(buf), "%s", ggml_backend_meta_split_axis_name(s->axis));
    if (meta_state_is_split(s)) {
        for (uint32_t seg = 0; seg < s->n_segments && n < (int) sizeof(buf) - 32; seg++) {
            n += snprintf(buf + n, sizeof(buf) - (size_t) n, " [");
            for (size_t j = 0; j < n_devs && n < (int) sizeof(buf) - 32; j++) {
                n += snprintf(buf + n, sizeof(buf) - (size_t) n, "%s%lld", j ? "," : "", (long long) s->ne[seg*n_devs + j]);
            }
            n += snprintf(buf + n, sizeof(buf) - (size_t) n, "]x%u", s->nr[seg]);
        }
    }
    GGML_LOG_INFO("meta: %-9s %-24s %-10s %s\n", what, t->name[0] ? t->name : "(unnamed)", ggml_op_desc(t), buf);
}
