// The runner on a meta device (`--device meta:CPU,CPU`): one logical device over several simple
// devices, the model split tensor-parallel by tensor name.
//
// What is split is what the meta device computes split (docs/meta-device.md):
//  - FFN gate and up split along their output rows (axis 1), FFN down along its input axis
//    (axis 0) with the same extents: the SwiGLU stays split and the down projection leaves
//    partial sums, all-reduced when the residual add needs them whole.
//  - Everything else is mirrored. The KV cache is written through views (`cpy` into a view of
//    the cache), and the meta device computes views whole and refuses a whole write into a split
//    tensor, so the cache, and with it the attention (Q/K/V/O), stays mirrored; splitting Q alone
//    would only add a gather before the attention. Norms, embeddings and the output are mirrored.
#include "llm.h"

#include <stdio.h>
#include <string.h>

// the callback's user data points at the device count (constant: no shared mutable state)
static const size_t device_counts[GGML_BACKEND_META_MAX_DEVICES + 1] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

// the shares of extent rows (a multiple of unit) in whole units, as even as possible
static void even_shares(int64_t extent, int64_t unit, size_t n, int64_t * ne) {
    const int64_t units = extent / unit;
    for (size_t j = 0; j < n; j++) {
        ne[j] = (units / (int64_t) n + ((int64_t) j < units % (int64_t) n ? 1 : 0)) * unit;
    }
}

static bool name_ends(const char * name, const char * suffix) {
    size_t a = strlen(name), b = strlen(suffix);
    return a >= b && strcmp(name + a - b, suffix) == 0 && strncmp(name, "blk.", 4) == 0;
}

static struct ggml_backend_meta_split_state split_by_name(const struct ggml_tensor * t, void * ud) {
    const size_t n_devs = *(const size_t *) ud;
    struct ggml_backend_meta_split_state s;
    memset(&s, 0, sizeof(s));
    s.axis = GGML_BACKEND_SPLIT_AXIS_MIRRORED;
    const bool gate_up = name_ends(t->name, ".ffn_gate.weight") || name_ends(t->name, ".ffn_up.weight");
    const bool down    = name_ends(t->name, ".ffn_down.weight");
    if (!gate_up && !down) {
        return s;
    }
    // the FFN width is ne[1] of gate/up and ne[0] of down; all three get the same shares, in
    // whole quantization blocks of down (whose axis 0 must not cut a block)
    const int64_t n_ff = gate_up ? t->ne[1] : t->ne[0];
    const int64_t unit = 32;   // a multiple of every block size of the family's types but the K-quants
    const int64_t unit_k = 256;
    const int64_t u = n_ff % unit_k == 0 ? unit_k : n_ff % unit == 0 ? unit : 1;
    if (n_ff < u * (int64_t) n_devs) {
        return s;   // too narrow to give every device a share
    }
    if (down && ggml_blck_size(t->type) > 1 && u % ggml_blck_size(t->type) != 0) {
        return s;
    }
    s.axis = gate_up ? GGML_BACKEND_SPLIT_AXIS_1 : GGML_BACKEND_SPLIT_AXIS_0;
    s.n_segments = 1;
    even_shares(n_ff, u, n_devs, s.ne);
    return s;
}

ggml_backend_dev_t llm_device_by_name(const char * name) {
    if (strncmp(name, "meta:", 5) != 0) {
        return ggml_backend_dev_by_name(name);
    }
    ggml_backend_dev_t devs[GGML_BACKEND_META_MAX_DEVICES];
    size_t n = 0;
    const char * p = name + 5;
    while (*p) {
        const char * end = strchr(p, ',');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        char one[128];
        if (len == 0 || len >= sizeof(one)) {
            fprintf(stderr, "error: bad meta device list '%s' (an empty or too long device name)\n", name);
            return NULL;
        }
        if (n == GGML_BACKEND_META_MAX_DEVICES) {
            fprintf(stderr, "error: bad meta device list '%s' (more than %d devices)\n", name, GGML_BACKEND_META_MAX_DEVICES);
            return NULL;
        }
        memcpy(one, p, len);
        one[len] = 0;
        ggml_backend_dev_t d = ggml_backend_dev_by_name(one);
        if (!d || ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_META) {
            fprintf(stderr, "error: unknown device '%s' in '%s' (see --verbose for the device table)\n", one, name);
            return NULL;
        }
        devs[n++] = d;
        p = end ? end + 1 : p + len;
        if (end && !*p) {
            fprintf(stderr, "error: bad meta device list '%s' (a trailing comma)\n", name);
            return NULL;
        }
    }
    if (n == 0) {
        fprintf(stderr, "error: bad meta device list '%s' (no devices)\n", name);
        return NULL;
    }
    ggml_clear_last_error();
    ggml_backend_dev_t meta = ggml_backend_meta_device(devs, n, split_by_name, (void *) &device_counts[n]);
    if (!meta) {
        llm_print_error("cannot make the meta device");
    }
    return meta;
}
