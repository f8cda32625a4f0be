// MUL_MAT with GGML_HINT_SRC0_IS_HADAMARD as a fast Walsh-Hadamard transform (cpu-ops-hadamard.h).
//
// The hint promises that A is the Sylvester-ordered Hadamard matrix scaled by 1/sqrt(n) (the
// family's graphs build it so, and the family's CPU backend then transforms B without reading A).
// Here A is not trusted blindly: three of its rows (0, 1, n-1; O(n) reads per matrix) are compared
// exactly with s times the Sylvester rows, s = A[0][0]. They pin down the ordering and the scale,
// not every element: a matrix matching there but not elsewhere would be taken for H (the hint's
// promise covers it). The result is s*H*b, with b scaled by s before the butterflies, as the
// family scales by 1/sqrt(n): for A = H/sqrt(n) the same value s.
//
// Error against the product: both are sums of the same n terms +-s*b[k], rounded in a different
// order (a butterfly tree of depth log2(n) against the product's accumulation), so within the
// product's own bound.

#include "cpu-ops-hadamard.h"
#include "cpu-kernels.h"

#include <math.h>
#include <string.h>

static bool hadamard_pow2(int64_t n) {
    return n >= 1 && (n & (n - 1)) == 0;
}

bool ggml_cpu_hadamard_applies(const struct ggml_tensor * op) {
    if (op == NULL || op->op != GGML_OP_MUL_MAT || ggml_get_op_params_i32(op, 1) != GGML_HINT_SRC0_IS_HADAMARD) {
        return false;
    }
    const struct ggml_tensor * a = op->src[0], * b = op->src[1];
    if (a == NULL || b == NULL || a->type != GGML_TYPE_F32 || b->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32) {
        return false;
    }
    const int64_t n = a->ne[0];
    return hadamard_pow2(n) && a->ne[1] == n && b->ne[0] == n && op->ne[0] == n && op->ne[1] == b->ne[1] &&
           op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3] && a->ne[2] >= 1 && a->ne[3] >= 1 &&
           b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0 &&
           a->nb[0] == sizeof(float) && b->nb[0] == sizeof(float) && op->nb[0] == sizeof(float);
}

// whether row r of the matrix at `base` equals s*H[r] exactly. H[r][c] = (-1)^parity(r & c), so
// the first min(n, 8) elements are compared with that directly, and by the Sylvester
// construction, per m = 8, 16, .. n/2, the second half of the first 2m elements must equal the
// first half (r & m zero) or its negation: one loop of m comparisons per m, without exits, which
// the compiler vectorizes. (Halves down to m = 1 as loops, as before, took 2.4x the transform's
// time at n = 64: short loops and their branches.)
static bool hadamard_row_ok(const char * base, size_t nb1, int64_t n, int64_t r, float s) {
    const float * row = (const float *) (const void *) (base + (size_t) r*nb1);
    int bad = 0;
    for (int64_t c = 0; c < n && c < 8; c++) {
        // 0x96: bit x set where the 3-bit x has odd parity
        bad |= row[c] != (((0x96 >> (r & c & 7)) & 1) ? -s : s);
    }
    for (int64_t m = 8; m < n; m *= 2) {
        const float * lo = row, * hi = row + m;
        if (r & m) {
            for (int64_t i = 0; i < m; i++) {
                bad |= hi[i] != -lo[i];
            }
        } else {
            for (int64_t i = 0; i < m; i++) {
                bad |= hi[i] != lo[i];
            }
        }
    }
    return !bad;
}

// below this many butterfly sums per thread a second thread costs more than it saves
#define HADAMARD_MIN_SUMS_PER_THREAD (64*1024)

int ggml_cpu_hadamard_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const int64_t n = op->src[0]->ne[0], cols = op->src[1]->ne[1]*op->src[1]->ne[2]*op->src[1]->ne[3];
    int64_t log2n = 0;
    while (((int64_t) 1 << log2n) < n) {
        log2n++;
    }
    const int64_t by_work = cols*n*(log2n > 0 ? log2n : 1) / HADAMARD_MIN_SUMS_PER_THREAD;
    int64_t nth = n_threads < cols ? n_threads : cols;
    nth = nth < by_work ? nth : by_work;
    return nth < 1 ? 1 : (int) nth;
}

static float hadamard_a00(const struct ggml_tensor * a, int64_t i2, int64_t i3) {
    float s;
    memcpy(&s, (const char *) a->data + (size_t) i2*a->nb[2] + (size_t) i3*a->nb[3], sizeof(s));
    return s;
}

// s of the matrix of A at batch (i2, i3), or 0 when it fails the check
static float hadamard_scale(const struct ggml_tensor * a, int64_t i2, int64_t i3) {
    const char * base = (const char *) a->data + (size_t) i2*a->nb[2] + (size_t) i3*a->nb[3];
    const int64_t n = a->ne[0];
    const float s = hadamard_a00(a, i2, i3);
    if (!isfinite(s) || s == 0.0f) {
        return 0.0f;
    }
    const int64_t rows[3] = { 0, n > 1 ? 1 : 0, n - 1 };
    for (int k = 0; k < 3; k++) {
        if (!hadamard_row_ok(base, a->nb[1], n, rows[k], s)) {
            return 0.0f;
        }
    }
    return s;
}

bool ggml_cpu_hadamard_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0], * b = op->src[1];
    // every matrix of A first (each thread alike), so that nothing is written unless all pass
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            if (hadamard_scale(a, i2, i3) == 0.0f) {
                return false;
            }
        }
    }
    const ggml_cpu_fwht_fn fwht = ggml_cpu_kernels_get(params->use_ref)->fwht;
    const int64_t n = a->ne[0], M = b->ne[1], ne2 = b->ne[2];
    const int64_t r2 = b->ne[2]/a->ne[2], r3 = b->ne[3]/a->ne[3];
    int64_t r0, r1;
    ggml_cpu_split_range(M*ne2*b->ne[3], params->ith, params->nth, &r0, &r1);
    if (r0 >= r1) {
        return true;
    }
    // the column's indices by counters (divisions only for the first: they showed in the profile
    // of one-column products)
    int64_t m = r0 % M, i2 = (r0 / M) % ne2, i3 = r0 / (M*ne2);
    float s = hadamard_a00(a, i2/r2, i3/r3); // checked above
    for (int64_t r = r0; r < r1; r++) {
        if (r > r0 && ++m == M) {
            m = 0;
            if (++i2 == ne2) {
                i2 = 0;
                i3++;
            }
            s = hadamard_a00(a, i2/r2, i3/r3);
        }
        const float * x = (const float *) (const void *) ((const char *) b->data + (size_t) m*b->nb[1] +
                                                          (size_t) i2*b->nb[2] + (size_t) i3*b->nb[3]);
        float * y = (float *) (void *) ((char *) op->data + (size_t) m*op->nb[1] + (size_t) i2*op->nb[2] +
                                        (size_t) i3*op->nb[3]);
        fwht(n, y, x, s);
    }
    return true;
}
