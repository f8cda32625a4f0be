// backend-ops: seeded random numbers and the filling of inputs.

#include "bops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// splitmix64: small, fast and good enough for test data
uint64_t bops_rng_u64(struct bop_rng * rng) {
    uint64_t z = (rng->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t bops_hash_str(uint64_t h, const char * s) {
    // FNV-1a
    for (; s != NULL && *s; s++) {
        h ^= (unsigned char) *s;
        h *= 0x100000001B3ull;
    }
    return h;
}

// The data of a case depends on the seed and the case's name only, so that a case filtered with
// -o / -p sees the same data as in a full run.
void bops_rng_seed(struct bop_rng * rng, uint64_t seed, const char * salt1, const char * salt2) {
    uint64_t h = 0xCBF29CE484222325ull ^ seed;
    h = bops_hash_str(h, salt1);
    h = bops_hash_str(h, "|");
    h = bops_hash_str(h, salt2);
    rng->s = h;
    (void) bops_rng_u64(rng);
}

double bops_rng_uniform(struct bop_rng * rng, double lo, double hi) {
    const double u = (double) (bops_rng_u64(rng) >> 11) * (1.0 / 9007199254740992.0); // [0, 1)
    return lo + (hi - lo) * u;
}

static int64_t bops_rng_below(struct bop_rng * rng, int64_t n) {
    return n <= 1 ? 0 : (int64_t) (bops_rng_u64(rng) % (uint64_t) n);
}

bool bops_store(enum ggml_type type, void * p, double v) {
    switch (type) {
        case GGML_TYPE_F32:  { float       x = (float) v;              memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_F16:  { ggml_fp16_t x = ggml_fp32_to_fp16((float) v); memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_BF16: { ggml_bf16_t x = ggml_fp32_to_bf16((float) v); memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_F64:  { double      x = v;                      memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_I8:   { int8_t      x = (int8_t) v;             memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_I16:  { int16_t     x = (int16_t) v;            memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_I32:  { int32_t     x = (int32_t) v;            memcpy(p, &x, sizeof(x)); return true; }
        case GGML_TYPE_I64:  { int64_t     x = (int64_t) v;            memcpy(p, &x, sizeof(x)); return true; }
        default:             return false;
    }
}

bool bops_store_tensor(const struct ggml_tensor * t, const double * values, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        int64_t i0, i1, i2, i3;
        ggml_unravel_index(t, i, &i0, &i1, &i2, &i3);
        char * p = (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
        if (!bops_store(t->type, p, values[i])) {
            return false;
        }
    }
    return true;
}

static bool bops_is_int_type(enum ggml_type type) {
    return type == GGML_TYPE_I8 || type == GGML_TYPE_I16 || type == GGML_TYPE_I32 || type == GGML_TYPE_I64;
}

// Distinct values for a row of n: a shuffled run of integers times a power of two, so that every
// value is exact in F16 (|m| <= 1024) and, for n <= 256, in BF16 too.
static void bops_fill_distinct_row(struct bop_rng * rng, double * row, int64_t n) {
    double scale = 1.0;
    while (scale * (double) n > 4.0) {
        scale *= 0.5;
    }
    for (int64_t i = 0; i < n; i++) {
        row[i] = (double) (i - n/2) * scale;
    }
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = bops_rng_below(rng, i + 1);
        const double tmp = row[i];
        row[i] = row[j];
        row[j] = tmp;
    }
}

// The first n entries of a random permutation of [0, m) (m >= n).
static bool bops_fill_rowperm_row(struct bop_rng * rng, double * row, int64_t n, int64_t m, int64_t * scratch) {
    if (m < n) {
        return false;
    }
    for (int64_t i = 0; i < m; i++) {
        scratch[i] = i;
    }
    for (int64_t i = 0; i < n; i++) {
        const int64_t j = i + bops_rng_below(rng, m - i);
        const int64_t tmp = scratch[i];
        scratch[i] = scratch[j];
        scratch[j] = tmp;
        row[i] = (double) scratch[i];
    }
    return true;
}

static void bops_log_quiet(enum ggml_log_level level, const char * text, void * user) {
    (void) level; (void) text; (void) user;
}

// A quantized input: each row uniform in [lo, hi] (any scale), quantized with the type's
// reference quantizer (from_float_ref). Types without one (the dequantize-only formats) get
// random blocks that ggml_validate_row_data accepts and whose largest dequantized magnitude lies
// within a factor 4 of max(|lo|, |hi|): random scales would otherwise span the whole F16 range,
// so that one block would dominate every sum. The reference then reads the dequantized values,
// so any quantization error is part of the data, not of the result.
static bool bops_fill_quantized(struct bop_rng * rng, const struct bop_input * in, void * data) {
    const struct ggml_tensor * t = in->t;
    const struct ggml_type_traits * tr = ggml_get_type_traits(t->type);
    const int64_t n0 = t->ne[0];
    if (tr->blck_size <= 0 || n0 % tr->blck_size != 0) {
        return false;
    }
    const int64_t nrows = n0 > 0 ? ggml_nelements(t) / n0 : 0;
    const size_t row_bytes = ggml_row_size(t->type, n0);
    if (tr->from_float_ref != NULL) {
        float * row = malloc(sizeof(float) * (size_t) (n0 > 0 ? n0 : 1));
        if (row == NULL) {
            return false;
        }
        for (int64_t r = 0; r < nrows; r++) {
            for (int64_t i = 0; i < n0; i++) {
                row[i] = (float) bops_rng_uniform(rng, in->lo, in->hi);
            }
            tr->from_float_ref(row, (char *) data + (size_t) r*row_bytes, n0);
        }
        free(row);
        return true;
    }
    // the refused candidates would be logged by ggml_validate_row_data
    ggml_log_callback prev_cb = NULL;
    void * prev_ud = NULL;
    ggml_log_get(&prev_cb, &prev_ud);
    ggml_log_set(bops_log_quiet, NULL);
    const double range = fmax(fabs(in->lo), fabs(in->hi)) > 0.0 ? fmax(fabs(in->lo), fabs(in->hi)) : 1.0;
    float * vals = malloc(sizeof(float) * (size_t) tr->blck_size);
    bool ok = vals != NULL;
    const int64_t nblocks = nrows * (n0 / tr->blck_size);
    for (int64_t b = 0; b < nblocks && ok; b++) {
        unsigned char * blk = (unsigned char *) data + (size_t) b*tr->type_size;
        bool good = false;
        for (int tries = 0; tries < 100000 && !good; tries++) {
            for (size_t j = 0; j < tr->type_size; j++) {
                blk[j] = (unsigned char) bops_rng_u64(rng);
            }
            if (!ggml_validate_row_data(t->type, blk, tr->type_size)) {
                continue;
            }
            tr->to_float(blk, vals, tr->blck_size);
            double amax = 0.0;
            for (int64_t i = 0; i < tr->blck_size; i++) {
                amax = fmax(amax, fabs((double) vals[i]));
            }
            good = amax >= range/4.0 && amax <= range*4.0;
        }
        ok = good;
    }
    free(vals);
    ggml_log_set(prev_cb, prev_ud);
    return ok;
}

bool bops_fill(struct bop_rng * rng, const struct bop_input * in, void * data) {
    const struct ggml_tensor * t = in->t;
    const int64_t n0 = t->ne[0];
    const int64_t nrows = n0 > 0 ? ggml_nelements(t) / n0 : 0;
    const size_t esize = ggml_type_size(t->type);
    if (ggml_blck_size(t->type) != 1) {
        return bops_fill_quantized(rng, in, data);
    }
    double * row = malloc(sizeof(double) * (size_t) (n0 > 0 ? n0 : 1));
    int64_t * scratch = NULL;
    if (in->fill == BOP_FILL_ROWPERM) {
        const int64_t m = (int64_t) in->hi;
        scratch = malloc(sizeof(int64_t) * (size_t) (m > 0 ? m : 1));
    }
    if (row == NULL || (in->fill == BOP_FILL_ROWPERM && scratch == NULL)) {
        free(row);
        free(scratch);
        return false;
    }
    const bool is_int = bops_is_int_type(t->type);
    bool ok = true;
    for (int64_t r = 0; r < nrows && ok; r++) {
        switch (in->fill) {
            case BOP_FILL_UNIFORM:
                for (int64_t i = 0; i < n0; i++) {
                    const double v = bops_rng_uniform(rng, in->lo, in->hi);
                    row[i] = is_int ? floor(v) : v;
                }
                break;
            case BOP_FILL_AWAY:
                for (int64_t i = 0; i < n0; i++) {
                    const double v = bops_rng_uniform(rng, in->lo, in->hi);
                    row[i] = (bops_rng_u64(rng) & 1) ? v : -v;
                }
                break;
            case BOP_FILL_DISTINCT:
                bops_fill_distinct_row(rng, row, n0);
                break;
            case BOP_FILL_TIES: {
                static const double levels[4] = { -1.0, -0.5, 0.5, 1.0 };
                for (int64_t i = 0; i < n0; i++) {
                    row[i] = levels[bops_rng_u64(rng) & 3];
                }
                break;
            }
            case BOP_FILL_INDEX: {
                const int64_t lo = (int64_t) in->lo;
                const int64_t span = (int64_t) in->hi - lo;
                for (int64_t i = 0; i < n0; i++) {
                    row[i] = (double) (lo + bops_rng_below(rng, span));
                }
                break;
            }
            case BOP_FILL_ROWPERM:
                ok = bops_fill_rowperm_row(rng, row, n0, (int64_t) in->hi, scratch);
                break;
            case BOP_FILL_HADAMARD: {
                const uint64_t rr = (uint64_t) (r % (t->ne[1] > 0 ? t->ne[1] : 1));
                for (int64_t i = 0; i < n0; i++) {
                    uint64_t v = rr & (uint64_t) i;
                    int odd = 0;
                    for (; v != 0; v &= v - 1) {
                        odd ^= 1;
                    }
                    row[i] = odd ? -in->hi : in->hi;
                }
                break;
            }
            case BOP_FILL_MASK: {
                const int64_t keep = bops_rng_below(rng, n0);
                for (int64_t i = 0; i < n0; i++) {
                    const bool inf = i != keep && (bops_rng_u64(rng) & 7) == 0;
                    row[i] = inf ? -INFINITY : bops_rng_uniform(rng, in->lo, in->hi);
                }
                break;
            }
        }
        for (int64_t i = 0; i < n0 && ok; i++) {
            ok = bops_store(t->type, (char *) data + (size_t) (r*n0 + i)*esize, row[i]);
        }
    }
    free(row);
    free(scratch);
    return ok;
}
