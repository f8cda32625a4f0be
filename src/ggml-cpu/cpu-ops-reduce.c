// CPU kernels of the reduce family: SUM, SUM_ROWS, MEAN, ARGMAX, ARGSORT, TOP_K.
//
// Sources are F32, F16 or BF16 with any strides. Sums accumulate in double. ARGMAX gives the last
// index of the maximum (NaN ignored); ARGSORT and TOP_K order by value (NaN last in both orders,
// -0 equal to +0) and keep the lower index first among equal values: every value becomes a 32-bit
// key whose unsigned order is the wanted order, the key and the index are packed into 64 bits, and
// an LSD radix sort over the key bits (stable, on items already in index order) sorts them.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"

#include <math.h>
#include <string.h>

#define REDUCE_CHUNK 512

// below this many source elements one thread computes the node
#define REDUCE_MIN_ELEMS 32768
#define SORT_MIN_ELEMS   4096

static bool reduce_f32_rows(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float) &&
        (((uintptr_t) t->data | t->nb[1] | t->nb[2] | t->nb[3]) % sizeof(float)) == 0;
}

static inline const char * reduce_row_ptr(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (const char *) t->data + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

// sum of a row of any float type
static double reduce_row_sum(const struct ggml_vec_funcs * vf, const struct ggml_tensor * t, bool direct, const char * row) {
    const int64_t n = t->ne[0];
    if (direct) {
        return vf->sum_f32(n, (const float *) row);
    }
    float  buf[REDUCE_CHUNK];
    double s = 0.0;
    for (int64_t c = 0; c < n; c += REDUCE_CHUNK) {
        const int64_t m = n - c < REDUCE_CHUNK ? n - c : REDUCE_CHUNK;
        ggml_vec_load_f32(vf, t->type, row + c*t->nb[0], t->nb[0], m, buf);
        s += vf->sum_f32(m, buf);
    }
    return s;
}

//
// SUM
//

#define SUM_SLOT 64 // bytes per thread's partial sum (one cache line)

static double sum_rows_range(const struct ggml_vec_funcs * vf, const struct ggml_tensor * a, int64_t r0, int64_t r1) {
    const bool direct = reduce_f32_rows(a);
    double s = 0.0;
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(a->ne, r, &i1, &i2, &i3);
        s += reduce_row_sum(vf, a, direct, reduce_row_ptr(a, i1, i2, i3));
    }
    return s;
}

static void sum_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst, const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t nrows = ggml_nrows(a);
    const int ith = params->ith;
    const int nth = params->nth;
    float result;
    if (nth == 1 || params->wdata == NULL || params->wsize < (size_t) nth*SUM_SLOT) {
        // one thread does all (every thread takes this branch alike)
        if (ith != 0) {
            return;
        }
        result = (float) sum_rows_range(vf, a, 0, nrows);
    } else {
        int64_t r0, r1;
        ggml_cpu_split_range(nrows, ith, nth, &r0, &r1);
        const double part = sum_rows_range(vf, a, r0, r1);
        memcpy((char *) params->wdata + (size_t) ith*SUM_SLOT, &part, sizeof(part));
        ggml_cpu_barrier(params->threadpool);
        if (ith != 0) {
            return;
        }
        double s = 0.0;
        for (int t = 0; t < nth; t++) {
            double p;
            memcpy(&p, (const char *) params->wdata + (size_t) t*SUM_SLOT, sizeof(p));
            s += p;
        }
        result = (float) s;
    }
    ggml_vec_store_f32(vf, dst->type, dst->data, dst->nb[0], 1, &result);
}

//
// SUM_ROWS, MEAN
//

static void sum_rows_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst, const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * a = dst->src[0];
    const bool direct = reduce_f32_rows(a);
    const bool mean   = dst->op == GGML_OP_MEAN;
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(a), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(a->ne, r, &i1, &i2, &i3);
        double s = reduce_row_sum(vf, a, direct, reduce_row_ptr(a, i1, i2, i3));
        if (mean) {
            s /= (double) a->ne[0];
        }
        const float v = (float) s;
        ggml_vec_store_f32(vf, dst->type, (char *) reduce_row_ptr(dst, i1, i2, i3), dst->nb[0], 1, &v);
    }
}

//
// ARGMAX: I32 [rows of a], the last index of each row's maximum
//

static void argmax_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst, const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * a = dst->src[0];
    const bool    direct = reduce_f32_rows(a);
    const int64_t n      = a->ne[0];
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(a), params->ith, params->nth, &r0, &r1);
    float buf[REDUCE_CHUNK];
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(a->ne, r, &i1, &i2, &i3);
        const char * row = reduce_row_ptr(a, i1, i2, i3);
        int64_t best_i = 0;
        if (direct) {
            best_i = vf->argmax_f32(n, (const float *) row);
        } else {
            float best = -INFINITY;
            for (int64_t c = 0; c < n; c += REDUCE_CHUNK) {
                const int64_t m = n - c < REDUCE_CHUNK ? n - c : REDUCE_CHUNK;
                ggml_vec_load_f32(vf, a->type, row + c*a->nb[0], a->nb[0], m, buf);
                for (int64_t k = 0; k < m; k++) {
                    if (buf[k] >= best) {
                        best   = buf[k];
                        best_i = c + k;
                    }
                }
            }
        }
        const int32_t v = (int32_t) best_i;
        memcpy((char *) dst->data + r*sizeof(int32_t), &v, sizeof(v));
    }
}

//
// ARGSORT, TOP_K
//

// unsigned order of the key = ascending (or descending) order of v, NaN last, -0 == +0
static inline uint32_t sort_key(float v, bool desc) {
    if (isnan(v)) {
        return UINT32_MAX;
    }
    if (v == 0.0f) {
        v = 0.0f;
    }
    uint32_t u;
    memcpy(&u, &v, sizeof(u));
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return desc ? ~u : u;
}

// sorts items (key << 32 | index) by key; the indices are ascending on entry, so the sort being
// stable keeps equal keys in index order
static void sort_items(uint64_t * items, uint64_t * tmp, int64_t n) {
    if (n <= 64) {
        for (int64_t i = 1; i < n; i++) {
            const uint64_t v = items[i];
            int64_t j = i;
            while (j > 0 && items[j - 1] > v) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = v;
        }
        return;
    }
    size_t count[4][256];
    memset(count, 0, sizeof(count));
    for (int64_t i = 0; i < n; i++) {
        const uint32_t k = (uint32_t) (items[i] >> 32);
        count[0][k & 255]++;
        count[1][(k >> 8) & 255]++;
        count[2][(k >> 16) & 255]++;
        count[3][k >> 24]++;
    }
    uint64_t * src = items;
    uint64_t * dst = tmp;
    for (int pass = 0; pass < 4; pass++) {
        const int shift = 32 + 8*pass;
        bool trivial = false;
        size_t offs[256];
        size_t total = 0;
        for (int d = 0; d < 256; d++) {
            if (count[pass][d] == (size_t) n) {
                trivial = true; // every item has this digit: the pass would not move anything
            }
            offs[d] = total;
            total  += count[pass][d];
        }
        if (trivial) {
            continue;
        }
        for (int64_t i = 0; i < n; i++) {
            dst[offs[(src[i] >> shift) & 255]++] = src[i];
        }
        uint64_t * t = src;
        src = dst;
        dst = t;
    }
    if (src != items) {
        memcpy(items, src, (size_t) n*sizeof(uint64_t));
    }
}

// TOP_K with k small against n selects instead of sorting: up to this k a sorted buffer with
// insertion, above it (while k <= n/TOPK_HEAP_RATIO) a max-heap of the k smallest items
#define TOPK_INSERT_MAX 32
#define TOPK_HEAP_RATIO 8

static inline void heap_sift_down(uint64_t * h, int64_t i, int64_t n) {
    const uint64_t v = h[i];
    for (;;) {
        int64_t c = 2*i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && h[c + 1] > h[c]) {
            c++;
        }
        if (h[c] <= v) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
}

// leaves the k smallest of the n items in items[0..k), ascending. The items (key << 32 | index)
// are distinct, so the result is the first k of the full sort, ties and NaN included.
static void select_items(uint64_t * items, int64_t n, int64_t k) {
    if (k <= TOPK_INSERT_MAX) {
        for (int64_t i = 1; i < n; i++) {
            const uint64_t v = items[i];
            int64_t j = i < k ? i : k;
            if (j == k && v >= items[k - 1]) {
                continue;
            }
            if (j == k) {
                j = k - 1; // the largest kept item drops out
            }
            while (j > 0 && items[j - 1] > v) {
                items[j] = items[j - 1];
                j--;
            }
            items[j] = v;
        }
        return;
    }
    for (int64_t i = k/2 - 1; i >= 0; i--) {
        heap_sift_down(items, i, k);
    }
    for (int64_t i = k; i < n; i++) {
        if (items[i] < items[0]) {
            items[0] = items[i];
            heap_sift_down(items, 0, k);
        }
    }
    for (int64_t end = k - 1; end > 0; end--) {
        const uint64_t t = items[0];
        items[0] = items[end];
        items[end] = t;
        heap_sift_down(items, 0, end);
    }
}

// per thread: the row as float, the items and the radix sort's second buffer
static size_t sort_thread_bytes(int64_t n) {
    const size_t bytes = (size_t) n*(sizeof(float) + 2*sizeof(uint64_t));
    return (bytes + GGML_CPU_CACHE_LINE - 1) / GGML_CPU_CACHE_LINE * GGML_CPU_CACHE_LINE;
}

static enum ggml_status sort_forward(const struct ggml_compute_params * params, struct ggml_tensor * dst,
        const struct ggml_vec_funcs * vf) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t n   = a->ne[0];
    const int64_t k   = dst->ne[0];
    const bool    desc = dst->op == GGML_OP_TOP_K || ggml_get_op_params_i32(dst, 0) == GGML_SORT_ORDER_DESC;
    const size_t  per = sort_thread_bytes(n);
    if (n == 0 || k == 0) {
        return GGML_STATUS_SUCCESS;
    }
    if (params->wdata == NULL || params->wsize < per*(size_t) (params->ith + 1)) {
        GGML_LOG_ERROR("%s: node '%s': work buffer of %zu bytes, %zu needed\n", __func__, dst->name, params->wsize,
                per*(size_t) params->nth);
        return GGML_STATUS_FAILED;
    }
    char     * base  = (char *) params->wdata + per*(size_t) params->ith;
    uint64_t * items = (uint64_t *) base;
    uint64_t * tmp   = items + n;
    float    * row_f = (float *) (tmp + n);

    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(a), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(a->ne, r, &i1, &i2, &i3);
        ggml_vec_load_f32(vf, a->type, reduce_row_ptr(a, i1, i2, i3), a->nb[0], n, row_f);
        for (int64_t i = 0; i < n; i++) {
            items[i] = (uint64_t) sort_key(row_f[i], desc) << 32 | (uint64_t) i;
        }
        if (dst->op == GGML_OP_TOP_K && k < n && (k <= TOPK_INSERT_MAX || k <= n/TOPK_HEAP_RATIO)) {
            select_items(items, n, k);
        } else {
            sort_items(items, tmp, n);
        }
        char * out = (char *) reduce_row_ptr(dst, i1, i2, i3);
        for (int64_t i = 0; i < k; i++) {
            const int32_t v = (int32_t) (items[i] & 0xffffffffu);
            memcpy(out + i*sizeof(int32_t), &v, sizeof(v));
        }
    }
    return GGML_STATUS_SUCCESS;
}

//
// family entry points
//

static bool reduce_src_ok(const struct ggml_tensor * op) {
    return op->src[0] != NULL && ggml_vec_is_float_type(op->src[0]->type);
}

bool ggml_cpu_reduce_supports(const struct ggml_tensor * op) {
    if (!reduce_src_ok(op)) {
        return false;
    }
    const struct ggml_tensor * a = op->src[0];
    switch (op->op) {
        case GGML_OP_SUM:
            return ggml_vec_is_float_type(op->type) && ggml_nelements(op) == 1;
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            return ggml_vec_is_float_type(op->type) && op->ne[0] == 1 && op->ne[1] == a->ne[1] &&
                op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
        case GGML_OP_ARGMAX:
            return op->type == GGML_TYPE_I32 && a->ne[0] > 0 && a->ne[0] <= INT32_MAX && ggml_is_contiguous(op) &&
                ggml_nelements(op) == ggml_nrows(a);
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K: {
            if (op->type != GGML_TYPE_I32 || op->nb[0] != sizeof(int32_t) || a->ne[0] > INT32_MAX ||
                op->ne[1] != a->ne[1] || op->ne[2] != a->ne[2] || op->ne[3] != a->ne[3]) {
                return false;
            }
            if (op->op == GGML_OP_TOP_K) {
                return op->ne[0] <= a->ne[0];
            }
            const int32_t order = ggml_get_op_params_i32(op, 0);
            return op->ne[0] == a->ne[0] && (order == GGML_SORT_ORDER_ASC || order == GGML_SORT_ORDER_DESC);
        }
        default:
            return false;
    }
}

size_t ggml_cpu_reduce_work_size(const struct ggml_tensor * op, int n_threads) {
    switch (op->op) {
        case GGML_OP_SUM:
            return (size_t) n_threads*SUM_SLOT;
        case GGML_OP_ARGSORT:
        case GGML_OP_TOP_K:
            return (size_t) n_threads*sort_thread_bytes(op->src[0]->ne[0]);
        default:
            return 0;
    }
}

int ggml_cpu_reduce_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const struct ggml_tensor * a = op->src[0];
    const int64_t n = ggml_nelements(a);
    if (op->op == GGML_OP_ARGSORT || op->op == GGML_OP_TOP_K) {
        return n < SORT_MIN_ELEMS || ggml_nrows(a) < 2 ? 1 : n_threads;
    }
    if (op->op != GGML_OP_SUM && ggml_nrows(a) < 2) {
        return 1;
    }
    return n < REDUCE_MIN_ELEMS ? 1 : n_threads;
}

enum ggml_status ggml_cpu_reduce_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_vec_funcs * vf = ggml_vec_get(params->use_ref);
    if (!ggml_cpu_reduce_supports(op)) {
        if (params->ith == 0) {
            GGML_LOG_ERROR("%s: cannot compute %s (node '%s', type %s, shape [%lld, %lld, %lld, %lld])\n", __func__,
                    ggml_op_desc(op), op->name, ggml_type_name(op->type),
                    (long long) op->ne[0], (long long) op->ne[1], (long long) op->ne[2], (long long) op->ne[3]);
        }
        return GGML_STATUS_FAILED;
    }
    switch (op->op) {
        case GGML_OP_SUM:
            sum_forward(params, op, vf);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            sum_rows_forward(params, op, vf);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_ARGMAX:
            argmax_forward(params, op, vf);
            return GGML_STATUS_SUCCESS;
        default:
            return sort_forward(params, op, vf);
    }
}
