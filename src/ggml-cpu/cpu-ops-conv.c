// CPU kernels of the conv family: IM2COL (1-D and 2-D, result F32 or F16), CONV_2D (direct),
// POOL_2D (MAX, AVG). Semantics as docs/op-params.md and tests/ref/ref-conv.c. Data may be F32,
// F16 or BF16 and is read through its strides (views and permutations are fine).
//
// CONV_2D: the kernel is widened to a float matrix [OC][K], K = IC*KH*KW, in the shared work
// buffer (all threads convert a share, then meet at a barrier; skipped for a contiguous F32
// kernel). Then every thread takes tiles of P output positions of one image: it gathers the
// tile's im2col columns transposed ([K][P], rows copied in runs along the output rows) into its
// own scratch and multiplies: a micro-kernel computes 4 output channels x 16 positions at a time
// with the accumulators in registers (one column load, 4 broadcasts and 4 FMAs per k).
// With enough channels and a long K (conv2d_use_gemm) the tile is instead multiplied by the
// matrix product's packed GEMM (matmul-impl.h: C = kernel [OC][K] x tile^T, written straight into
// the output planes), which keeps the kernel rows in L2 blocks and reaches far more of the FMA
// peak; the tiles are then larger (conv2d_gemm_tile) and the work items split the channels too.

#include "cpu-ops-nn.h"
#include "cpu-ops-conv2.h"
#include "cpu-kernels.h"
#include "matmul-impl.h"

#include <float.h>
#include <string.h>

//
// geometry shared by IM2COL and CONV_2D
//

struct conv_geom {
    int64_t IW, IH, IC, N;       // data
    int64_t KW, KH;              // kernel window
    int64_t OW, OH;              // output positions
    int64_t s0, s1, p0, p1, d0, d1;
    size_t  nb_w, nb_h, nb_c, nb_n; // data strides (bytes)
};

static void conv_geom_params(const struct ggml_tensor * op, struct conv_geom * g) {
    g->s0 = ggml_get_op_params_i32(op, 0); g->s1 = ggml_get_op_params_i32(op, 1);
    g->p0 = ggml_get_op_params_i32(op, 2); g->p1 = ggml_get_op_params_i32(op, 3);
    g->d0 = ggml_get_op_params_i32(op, 4); g->d1 = ggml_get_op_params_i32(op, 5);
}

// strides and dilations of at least 1 (what the constructors make)
static bool conv_geom_steps_ok(const struct conv_geom * g) {
    return g->s0 >= 1 && g->s1 >= 1 && g->d0 >= 1 && g->d1 >= 1;
}

// ceil(a/b) for b > 0 and any a
static inline int64_t conv_ceil_div(int64_t a, int64_t b) {
    return a >= 0 ? (a + b - 1)/b : -((-a)/b);
}

// The in-bounds part [*lo, *hi) of the indices t in [t0, t1) with 0 <= t*s + off < n (s >= 1).
// Both ends lie inside [t0, t1] even when no index is in bounds: callers zero [t0, lo) and
// [hi, t1), so a lo past t1 (padding wider than the run) would write past the run.
static inline void conv_valid(int64_t t0, int64_t t1, int64_t s, int64_t off, int64_t n, int64_t * lo, int64_t * hi) {
    int64_t a = conv_ceil_div(-off, s);
    int64_t b = conv_ceil_div(n - off, s);
    a = a > t0 ? a : t0;
    a = a < t1 ? a : t1;
    b = b < t1 ? b : t1;
    *lo = a;
    *hi = b > a ? b : a;
}

// n elements of type t at stride `stride` bytes, widened into dst. Runs are short (a kernel row),
// so F32 is copied inline instead of through a call.
static inline void conv_load_run(nn_vf vf, enum ggml_type t, const char * src, size_t stride, int64_t n, float * dst) {
    if (t == GGML_TYPE_F32) {
        for (int64_t i = 0; i < n; i++) {
            memcpy(dst + i, src + (size_t) i*stride, sizeof(float));
        }
    } else {
        ggml_vec_load_f32(vf, t, src, stride, n, dst);
    }
}

static inline void conv_zero(float * dst, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        dst[i] = 0.0f;
    }
}

// IM2COL works on tiles: up to IM2COL_CHUNK positions of one output row times a block of whole
// channels, gathered into a per-thread buffer of at most IM2COL_TILE floats (L1-resident, so the
// scattered writes of the gather stay in cache; writing them straight into the result, whose rows
// are K floats apart, made the rows alias in the cache), then copied out in runs of the block.
#define IM2COL_CHUNK 32
#define IM2COL_TILE  4096

struct im2col_tiling {
    int64_t chunk;  // positions per tile
    int64_t cb;     // channels per block
    size_t  floats; // buffer size
};

static struct im2col_tiling im2col_tiling_of(const struct conv_geom * g) {
    const int64_t kpc = g->KH*g->KW > 0 ? g->KH*g->KW : 1; // floats per channel
    struct im2col_tiling t;
    t.chunk = IM2COL_TILE/kpc;
    t.chunk = t.chunk < 1 ? 1 : (t.chunk > IM2COL_CHUNK ? IM2COL_CHUNK : t.chunk);
    t.cb = IM2COL_TILE/(t.chunk*kpc);
    t.cb = t.cb < 1 ? 1 : (t.cb > g->IC ? g->IC : t.cb);
    t.floats = (size_t) (t.chunk*t.cb*kpc);
    return t;
}

// The im2col columns, channels ic0 .. ic1-1, of the len positions ox0 .. ox0+len-1 of output row
// oy of image n: element k (k = ((ic - ic0)*KH + kh)*KW + kw) of position ox0 + j goes to
// cols[j*cs + k]. For a fixed k the inputs of the positions are one run along an input row
// (stride s0), read whole.
static void im2col_gather_tile(nn_vf vf, const struct conv_geom * g, const struct ggml_tensor * b,
        int64_t ox0, int64_t len, int64_t oy, int64_t n, int64_t ic0, int64_t ic1, float * cols, size_t cs) {
    const char * base = (const char *) b->data + n*g->nb_n;
    const size_t sstep = (size_t) g->s0*g->nb_w;
    float run[IM2COL_CHUNK];
    for (int64_t ic = ic0; ic < ic1; ic++) {
        for (int64_t kh = 0; kh < g->KH; kh++) {
            const int64_t iy = oy*g->s1 + kh*g->d1 - g->p1;
            const bool row_in = iy >= 0 && iy < g->IH;
            const char * row = base + ic*g->nb_c + (row_in ? iy : 0)*g->nb_h;
            for (int64_t kw = 0; kw < g->KW; kw++) {
                float * out = cols + ((ic - ic0)*g->KH + kh)*g->KW + kw;
                const int64_t off = kw*g->d0 - g->p0;
                int64_t lo = ox0, hi = ox0;
                if (row_in) {
                    conv_valid(ox0, ox0 + len, g->s0, off, g->IW, &lo, &hi);
                }
                for (int64_t j = 0; j < lo - ox0; j++) {
                    out[(size_t) j*cs] = 0.0f;
                }
                if (hi > lo) {
                    const char * src = row + (lo*g->s0 + off)*g->nb_w;
                    float * o = out + (size_t) (lo - ox0)*cs;
                    if (b->type == GGML_TYPE_F32) {
                        for (int64_t j = 0; j < hi - lo; j++) {
                            memcpy(o + (size_t) j*cs, src + (size_t) j*sstep, sizeof(float));
                        }
                    } else {
                        ggml_vec_load_f32(vf, b->type, src, sstep, hi - lo, run);
                        for (int64_t j = 0; j < hi - lo; j++) {
                            o[(size_t) j*cs] = run[j];
                        }
                    }
                }
                for (int64_t j = hi - ox0; j < len; j++) {
                    out[(size_t) j*cs] = 0.0f;
                }
            }
        }
    }
}

// The im2col columns of positions q0 .. q0+np-1 (q = oy*OW + ox) of image n, transposed: row k
// (k = (ic*KH + kh)*KW + kw) holds the np values of kernel element k at stride P floats.
static void conv_gather_tile(nn_vf vf, const struct conv_geom * g, const struct ggml_tensor * b, int64_t n,
        int64_t q0, int64_t np, float * colsT, int64_t P) {
    const char * base = (const char *) b->data + n*g->nb_n;
    const int64_t K = g->IC*g->KH*g->KW;
    // runs of positions on one output row
    for (int64_t p = 0; p < np; ) {
        const int64_t q   = q0 + p;
        const int64_t oy  = q / g->OW;
        const int64_t ox0 = q % g->OW;
        const int64_t len = np - p < g->OW - ox0 ? np - p : g->OW - ox0;
        for (int64_t ic = 0; ic < g->IC; ic++) {
            for (int64_t kh = 0; kh < g->KH; kh++) {
                const int64_t iy = oy*g->s1 + kh*g->d1 - g->p1;
                const bool row_in = iy >= 0 && iy < g->IH;
                const char * row = base + ic*g->nb_c + (row_in ? iy : 0)*g->nb_h;
                for (int64_t kw = 0; kw < g->KW; kw++) {
                    float * out = colsT + ((ic*g->KH + kh)*g->KW + kw)*P + p;
                    int64_t lo = ox0, hi = ox0;
                    const int64_t off = kw*g->d0 - g->p0;
                    if (row_in) {
                        conv_valid(ox0, ox0 + len, g->s0, off, g->IW, &lo, &hi);
                    }
                    conv_zero(out, lo - ox0);
                    if (hi > lo) { // with left padding the run's start may lie before the row
                        conv_load_run(vf, b->type, row + (lo*g->s0 + off)*g->nb_w, (size_t) g->s0*g->nb_w, hi - lo, out + (lo - ox0));
                    }
                    conv_zero(out + (hi - ox0), ox0 + len - hi);
                }
            }
        }
        p += len;
    }
    // columns past np (last tile) take part in the SIMD blocks: keep them finite
    if (np < P) {
        for (int64_t k = 0; k < K; k++) {
            memset(colsT + k*P + np, 0, (size_t) (P - np)*sizeof(float));
        }
    }
}

//
// IM2COL: kernel [KW, KH, IC, OC] (shape only), data [IW, IH, IC, N] -> [IC*KH*KW, OW, OH, N];
// 1-D: kernel [KW, IC, OC], data [IW, IC, N] -> [IC*KW, OW, N]
//

static bool im2col_geom(const struct ggml_tensor * op, struct conv_geom * g) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    conv_geom_params(op, g);
    const bool is_2d = ggml_get_op_params_i32(op, 6) == 1;
    g->IW = b->ne[0];
    g->IH = is_2d ? b->ne[1] : 1;
    g->IC = is_2d ? b->ne[2] : b->ne[1];
    g->N  = is_2d ? b->ne[3] : b->ne[2];
    g->KW = k->ne[0];
    g->KH = is_2d ? k->ne[1] : 1;
    g->OW = op->ne[1];
    g->OH = is_2d ? op->ne[2] : 1;
    g->nb_w = b->nb[0];
    g->nb_h = is_2d ? b->nb[1] : 0;
    g->nb_c = is_2d ? b->nb[2] : b->nb[1];
    g->nb_n = is_2d ? b->nb[3] : b->nb[2];
    if (!is_2d) {
        // one output row and one kernel row: s1 and d1 multiply 0 (p1 still shifts the row, as
        // in the family, which makes every element 0 unless p1 == 0)
        g->s1 = 1; g->d1 = 1;
    }
    const int64_t n_out = is_2d ? op->ne[3] : op->ne[2];
    return op->ne[0] == g->IC*g->KH*g->KW && n_out == g->N && (is_2d || (op->ne[3] == 1 && b->ne[3] == 1));
}

static bool im2col_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (k == NULL || b == NULL || !ggml_vec_is_float_type(b->type)) {
        return false;
    }
    if (op->type != GGML_TYPE_F32 && op->type != GGML_TYPE_F16) {
        return false;
    }
    struct conv_geom g;
    return im2col_geom(op, &g) && conv_geom_steps_ok(&g);
}

static size_t im2col_thread_bytes(const struct ggml_tensor * op) {
    struct conv_geom g;
    im2col_geom(op, &g);
    return GGML_PAD(im2col_tiling_of(&g).floats*sizeof(float), GGML_CPU_CACHE_LINE);
}

static void im2col_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * b = op->src[1];
    const nn_vf vf = ggml_vec_get(params->use_ref);
    struct conv_geom g;
    im2col_geom(op, &g);
    const struct im2col_tiling t = im2col_tiling_of(&g);
    const bool is_2d = ggml_get_op_params_i32(op, 6) == 1;
    const int64_t kpc = g.KH*g.KW;
    const bool packed = op->type == GGML_TYPE_F32 && op->nb[0] == sizeof(float);
    float * tmp = (float *) ((char *) params->wdata + (size_t) params->ith*im2col_thread_bytes(op));

    // output positions r = (n*OH + oh)*OW + ow, in tiles on one output row; the channel blocks
    // outermost, so that a block's input rows are read from the cache by the KH tiles that use
    // them, not evicted in between by the writes of the other channels' columns
    int64_t r0, r1;
    ggml_cpu_split_range(g.OW*g.OH*g.N, params->ith, params->nth, &r0, &r1);
    for (int64_t ic0 = 0; ic0 < g.IC; ic0 += t.cb) {
        const int64_t ic1 = ic0 + t.cb < g.IC ? ic0 + t.cb : g.IC;
        const int64_t kb = (ic1 - ic0)*kpc;
        for (int64_t r = r0; r < r1; ) {
            const int64_t ow = r % g.OW;
            const int64_t oh = (r / g.OW) % g.OH;
            const int64_t n  = r / (g.OW*g.OH);
            int64_t len = g.OW - ow;
            len = len < r1 - r ? len : r1 - r;
            len = len < t.chunk ? len : t.chunk;
            char * dst = (char *) op->data + ow*op->nb[1] + (is_2d ? oh*op->nb[2] + n*op->nb[3] : n*op->nb[2]) +
                         ic0*kpc*op->nb[0];
            im2col_gather_tile(vf, &g, b, ow, len, oh, n, ic0, ic1, tmp, (size_t) kb);
            for (int64_t j = 0; j < len; j++) {
                if (packed) {
                    memcpy(dst + j*op->nb[1], tmp + j*kb, (size_t) kb*sizeof(float));
                } else {
                    ggml_vec_store_f32(vf, op->type, dst + j*op->nb[1], op->nb[0], kb, tmp + j*kb);
                }
            }
            r += len;
        }
    }
}

//
// CONV_2D: kernel [KW, KH, IC, OC], data [IW, IH, IC, N] -> F32 [OW, OH, OC, N]
//

static void conv2d_geom(const struct ggml_tensor * op, struct conv_geom * g) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    conv_geom_params(op, g);
    g->IW = b->ne[0]; g->IH = b->ne[1]; g->IC = b->ne[2]; g->N = b->ne[3];
    g->KW = k->ne[0]; g->KH = k->ne[1];
    g->OW = op->ne[0]; g->OH = op->ne[1];
    g->nb_w = b->nb[0]; g->nb_h = b->nb[1]; g->nb_c = b->nb[2]; g->nb_n = b->nb[3];
}

static bool conv2d_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (k == NULL || b == NULL || !ggml_vec_is_float_type(k->type) || !ggml_vec_is_float_type(b->type)) {
        return false;
    }
    struct conv_geom g;
    conv_geom_params(op, &g);
    return op->type == GGML_TYPE_F32 && op->nb[0] == sizeof(float) && conv_geom_steps_ok(&g) &&
           k->ne[2] == b->ne[2] && op->ne[2] == k->ne[3] && op->ne[3] == b->ne[3];
}

// whether the kernel can be used as the float matrix [OC][K] as it is
static bool conv2d_kernel_direct(const struct ggml_tensor * k) {
    return k->type == GGML_TYPE_F32 && ggml_is_contiguous(k);
}

// positions per tile (a multiple of 16): 64, fewer for long columns (the tile is K*P floats)
static int64_t conv2d_tile(int64_t K) {
    if (K <= 1024) return 64;
    if (K <= 2048) return 32;
    return 16;
}

static size_t conv2d_kernel_bytes(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    if (conv2d_kernel_direct(k)) {
        return 0;
    }
    return GGML_PAD((size_t) (k->ne[0]*k->ne[1]*k->ne[2]*k->ne[3])*sizeof(float), GGML_CPU_CACHE_LINE);
}

// The GEMM path: at least 16 output channels and K >= 32 (below that the packing costs more than
// it gains), and result planes of packed rows whose stride is a whole number of floats.
static bool conv2d_use_gemm(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const int64_t K = k->ne[0]*k->ne[1]*k->ne[2];
    return k->ne[3] >= 16 && K >= 32 && op->nb[0] == sizeof(float) && op->nb[1] == (size_t) op->ne[0]*sizeof(float) &&
           op->nb[2] % sizeof(float) == 0;
}

// positions per GEMM tile: about 1 MiB of gathered columns, 16 .. GGML_MM_NC, a multiple of 16,
// no more than the plane holds
static int64_t conv2d_gemm_tile(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const int64_t K = k->ne[0]*k->ne[1]*k->ne[2];
    int64_t P = (262144 / (K > 0 ? K : 1)) / 16 * 16;
    P = P < 16 ? 16 : (P > GGML_MM_NC ? GGML_MM_NC : P);
    const int64_t n_pos = (op->ne[0]*op->ne[1] + 15) / 16 * 16;
    return P < n_pos ? P : (n_pos > 0 ? n_pos : 16);
}

static size_t conv2d_thread_bytes(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const int64_t K = k->ne[0]*k->ne[1]*k->ne[2];
    if (conv2d_use_gemm(op)) {
        return GGML_PAD((size_t) (conv2d_gemm_tile(op)*K)*sizeof(float), 64) + GGML_MM_GEMM_SCRATCH*sizeof(float) + 64;
    }
    return GGML_PAD((size_t) (conv2d_tile(K)*K)*sizeof(float), GGML_CPU_CACHE_LINE);
}

// The GEMM path's items: (image, tile of positions, block of output channels). The channels are
// split only as far as needed to give every thread several items (each block re-gathers its
// tile: K*P values against 2*K*P*channels FLOPs).
static void conv2d_forward_gemm(const struct ggml_compute_params * params, struct ggml_tensor * op,
        const struct conv_geom * g, const float * kf, float * scratch) {
    const struct ggml_tensor * b = op->src[1];
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    const int64_t OC = op->ne[2];
    const int64_t K  = g->KW*g->KH*g->IC;
    const int64_t P  = conv2d_gemm_tile(op);
    float * colsT   = scratch;
    float * gemm_sc = (float *) ((char *) scratch + GGML_PAD((size_t) (P*K)*sizeof(float), 64));

    const int64_t n_pos   = g->OW*g->OH;
    const int64_t n_tiles = (n_pos + P - 1) / P;
    const int64_t MR      = kt->mm->mr;
    int64_t n_ocb = (4*(int64_t) params->nth + n_tiles*g->N - 1) / (n_tiles*g->N);
    const int64_t max_ocb = OC / 64 > 1 ? OC / 64 : 1; // blocks of at least 64 channels
    n_ocb = n_ocb < 1 ? 1 : (n_ocb > max_ocb ? max_ocb : n_ocb);
    int64_t ocb = (OC + n_ocb - 1) / n_ocb;
    ocb = (ocb + MR - 1) / MR * MR;
    n_ocb = (OC + ocb - 1) / ocb;

    const struct ggml_mm_src a_src = { (const char *) colsT, GGML_TYPE_F32, (int64_t) sizeof(float), P*(int64_t) sizeof(float) };
    const struct ggml_mm_src k_src = { (const char *) kf, GGML_TYPE_F32, K*(int64_t) sizeof(float), (int64_t) sizeof(float) };
    const int64_t ldc = (int64_t) (op->nb[2] / sizeof(float));
    const int64_t n_items = g->N*n_tiles*n_ocb;
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < n_items; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t o  = it % n_ocb;
        const int64_t t  = (it / n_ocb) % n_tiles;
        const int64_t n  = it / (n_ocb*n_tiles);
        const int64_t q0 = t*P;
        const int64_t np = n_pos - q0 < P ? n_pos - q0 : P;
        const int64_t m0 = o*ocb;
        const int64_t mm = OC - m0 < ocb ? OC - m0 : ocb;
        conv_gather_tile(kt->vec, g, b, n, q0, np, colsT, P);
        float * c = (float *) ((char *) op->data + n*op->nb[3]) + m0*ldc + q0;
        ggml_mm_gemm_block(kt->mm, &a_src, &k_src, m0, mm, 0, np, K, c, ldc, gemm_sc);
    }
}

static void conv2d_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    const nn_vf vf = kt->vec;
    struct conv_geom g;
    conv2d_geom(op, &g);
    const int64_t OC = k->ne[3];
    const int64_t K  = g.KW*g.KH*g.IC;
    const int64_t P  = conv2d_tile(K);
    if (K == 0) {
        // no input channels: every output is an empty sum; the plan gave no work buffer
        int64_t r0, r1;
        ggml_cpu_split_range(op->ne[1]*op->ne[2]*op->ne[3], params->ith, params->nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            char * row = (char *) op->data + (r % op->ne[1])*op->nb[1] + ((r / op->ne[1]) % op->ne[2])*op->nb[2] +
                         (r / (op->ne[1]*op->ne[2]))*op->nb[3];
            for (int64_t i = 0; i < op->ne[0]; i++) {
                *(float *)(row + i*op->nb[0]) = 0.0f;
            }
        }
        return;
    }

    const float * kf = (const float *) k->data;
    const size_t kbytes = conv2d_kernel_bytes(op);
    if (kbytes > 0) {
        // widen the kernel: row oc holds (ic*KH + kh)*KW + kw; every thread a share of the rows
        float * kw = (float *) params->wdata;
        int64_t o0, o1;
        ggml_cpu_split_range(OC, params->ith, params->nth, &o0, &o1);
        for (int64_t oc = o0; oc < o1; oc++) {
            for (int64_t ic = 0; ic < g.IC; ic++) {
                for (int64_t kh = 0; kh < g.KH; kh++) {
                    const char * src = (const char *) k->data + kh*k->nb[1] + ic*k->nb[2] + oc*k->nb[3];
                    ggml_vec_load_f32(vf, k->type, src, k->nb[0], g.KW, kw + oc*K + (ic*g.KH + kh)*g.KW);
                }
            }
        }
        ggml_cpu_barrier(params->threadpool);
        kf = kw;
    }
    float * colsT = (float *) ((char *) params->wdata + kbytes + (size_t) params->ith*conv2d_thread_bytes(op));
    if (conv2d_use_gemm(op)) {
        // the GEMM's scratch wants 64-byte alignment
        colsT = (float *) GGML_PAD((uintptr_t) colsT, 64);
        conv2d_forward_gemm(params, op, &g, kf, colsT);
        return;
    }
    // positions of a plane are adjacent in memory when the result rows are contiguous and packed
    const bool packed = op->nb[0] == sizeof(float) && op->nb[1] == (size_t) g.OW*sizeof(float);

    const int64_t n_pos   = g.OW*g.OH;
    const int64_t n_tiles = (n_pos + P - 1) / P;
    const int64_t n_items = n_tiles*g.N;
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < n_items; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t n  = it / n_tiles;
        const int64_t q0 = (it % n_tiles)*P;
        const int64_t np = n_pos - q0 < P ? n_pos - q0 : P;
        conv_gather_tile(vf, &g, b, n, q0, np, colsT, P);
        for (int64_t ob = 0; ob < OC; ob += 4) {
            const int64_t nob = OC - ob < 4 ? OC - ob : 4;
            const float * w[4];
            for (int o = 0; o < 4; o++) {
                w[o] = kf + (ob + (o < nob ? o : nob - 1))*K; // repeat the last row in a short block
            }
            for (int64_t p0 = 0; p0 < np; p0 += 16) {
                float out[4][16];
                kt->conv2d_tile(K, w, colsT, P, p0, out);
                const int64_t cnt = np - p0 < 16 ? np - p0 : 16;
                for (int64_t o = 0; o < nob; o++) {
                    char * plane = (char *) op->data + (ob + o)*op->nb[2] + n*op->nb[3];
                    if (packed) {
                        memcpy(plane + (q0 + p0)*sizeof(float), out[o], (size_t) cnt*sizeof(float));
                    } else {
                        for (int64_t i = 0; i < cnt; i++) {
                            const int64_t q = q0 + p0 + i;
                            *(float *) (plane + (q % g.OW)*op->nb[0] + (q / g.OW)*op->nb[1]) = out[o][i];
                        }
                    }
                }
            }
        }
    }
}

//
// POOL_2D: a [IW, IH, C, N] -> F32 [OW, OH, C, N]; window at (ox*s0 - p0, oy*s1 - p1) of k0 x k1;
// MAX of the in-bounds elements (-FLT_MAX if none), AVG = their sum / (k0*k1)
//

static bool pool2d_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    if (a == NULL || !ggml_vec_is_float_type(a->type) || op->type != GGML_TYPE_F32) {
        return false;
    }
    const int pop = ggml_get_op_params_i32(op, 0);
    const int k0 = ggml_get_op_params_i32(op, 1), k1 = ggml_get_op_params_i32(op, 2);
    return (pop == GGML_OP_POOL_MAX || pop == GGML_OP_POOL_AVG) && k0 >= 1 && k1 >= 1 &&
           op->ne[2] == a->ne[2] && op->ne[3] == a->ne[3];
}

static void pool2d_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const int     pop = ggml_get_op_params_i32(op, 0);
    const int64_t k0 = ggml_get_op_params_i32(op, 1), k1 = ggml_get_op_params_i32(op, 2);
    const int64_t s0 = ggml_get_op_params_i32(op, 3), s1 = ggml_get_op_params_i32(op, 4);
    const int64_t p0 = ggml_get_op_params_i32(op, 5), p1 = ggml_get_op_params_i32(op, 6);
    const int64_t IW = a->ne[0], IH = a->ne[1];
    const int64_t OW = op->ne[0], OH = op->ne[1];
    const bool is_max = pop == GGML_OP_POOL_MAX;
    const bool f32 = a->type == GGML_TYPE_F32;
    const double inv_area = 1.0/(double) (k0*k1);

    // output rows (oy, c, n)
    int64_t r0, r1;
    ggml_cpu_split_range(OH*op->ne[2]*op->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oy = r % OH;
        const int64_t c  = (r / OH) % op->ne[2];
        const int64_t n  = r / (OH*op->ne[2]);
        const char * plane = (const char *) a->data + c*a->nb[2] + n*a->nb[3];
        char * drow = (char *) op->data + oy*op->nb[1] + c*op->nb[2] + n*op->nb[3];
        const int64_t y0 = oy*s1 - p1;
        const int64_t ya = y0 < 0 ? 0 : y0;
        const int64_t yb = y0 + k1 < IH ? y0 + k1 : IH;
        for (int64_t ox = 0; ox < OW; ox++) {
            const int64_t x0 = ox*s0 - p0;
            const int64_t xa = x0 < 0 ? 0 : x0;
            const int64_t xb = x0 + k0 < IW ? x0 + k0 : IW;
            float mx = -FLT_MAX;
            double sum = 0.0;
            for (int64_t y = ya; y < yb; y++) {
                const char * row = plane + y*a->nb[1];
                for (int64_t x = xa; x < xb; x++) {
                    const float v = f32 ? *(const float *) (row + x*a->nb[0]) : ggml_vec_load_elem(a->type, row + x*a->nb[0]);
                    if (is_max) {
                        mx = v > mx ? v : mx;
                    } else {
                        sum += v;
                    }
                }
            }
            *(float *) (drow + ox*op->nb[0]) = is_max ? mx : (float) (sum*inv_area);
        }
    }
}

//
// family entry points
//

bool ggml_cpu_conv_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_IM2COL:  return im2col_supports(op);
        case GGML_OP_CONV_2D: return conv2d_supports(op);
        case GGML_OP_POOL_2D: return pool2d_supports(op);
        default:              return ggml_cpu_conv2_supports(op);
    }
}

size_t ggml_cpu_conv_work_size(const struct ggml_tensor * op, int n_threads) {
    switch (op->op) {
        case GGML_OP_IM2COL:
            return im2col_thread_bytes(op)*(size_t) n_threads;
        case GGML_OP_CONV_2D:
            return conv2d_kernel_bytes(op) + conv2d_thread_bytes(op)*(size_t) n_threads;
        case GGML_OP_POOL_2D:
            return 0;
        default:
            return ggml_cpu_conv2_work_size(op, n_threads);
    }
}

int ggml_cpu_conv_n_tasks(const struct ggml_tensor * op, int n_threads) {
    int64_t n;
    switch (op->op) {
        case GGML_OP_IM2COL:  n = op->ne[1]*op->ne[2]*op->ne[3]; break;
        case GGML_OP_CONV_2D: return n_threads; // it may meet at a barrier: every thread takes part
        case GGML_OP_POOL_2D: n = op->ne[1]*op->ne[2]*op->ne[3]; break;
        default:              return ggml_cpu_conv2_n_tasks(op, n_threads);
    }
    return n < 1 ? 1 : (n < n_threads ? (int) n : n_threads);
}

enum ggml_status ggml_cpu_conv_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_IM2COL:  im2col_forward(params, op); return GGML_STATUS_SUCCESS;
        case GGML_OP_CONV_2D: conv2d_forward(params, op); return GGML_STATUS_SUCCESS;
        case GGML_OP_POOL_2D: pool2d_forward(params, op); return GGML_STATUS_SUCCESS;
        default:              return ggml_cpu_conv2_forward(params, op);
    }
}
