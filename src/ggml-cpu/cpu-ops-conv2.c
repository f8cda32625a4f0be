// CPU kernels of the family's other convolutions: IM2COL_3D, CONV_3D, CONV_2D_DW,
// CONV_TRANSPOSE_1D and CONV_TRANSPOSE_2D. Semantics as tests/ref/ref-conv.c. Data and kernels
// may be F32, F16 or BF16 and are read through their strides (views and permutations are fine);
// everything is accumulated in float.
//
// IM2COL_3D and CONV_3D gather one column (IC*KD*KH*KW values) per output position; CONV_3D then
// multiplies the kernel, as a float matrix [OC][K], by a tile of such columns with the matrix
// product's packed GEMM (matmul-impl.h), writing straight into the output planes (few channels
// or a short K: one dot product per channel and position instead).
// CONV_2D_DW accumulates one output row at a time (each kernel tap adds a strided run of the
// input row); with the channels adjacent in memory, one position at a time over all channels. The transposed convolutions scatter: both operands are first widened to float,
// then every kernel tap adds its weight times each input row to the output row it lands on (an
// axpy); the threads own whole output planes.

#include "cpu-ops-conv2.h"
#include "cpu-ops-nn.h"
#include "cpu-kernels.h"
#include "matmul-impl.h"

#include <string.h>

// ceil(a/b) for b > 0 and any a
static inline int64_t cv2_ceil_div(int64_t a, int64_t b) {
    return a >= 0 ? (a + b - 1)/b : -((-a)/b);
}

// [*lo, *hi): the t in [0, n_t) with 0 <= t*step + off < n (step >= 1); lo <= hi, both in [0, n_t]
static inline void cv2_valid(int64_t n_t, int64_t step, int64_t off, int64_t n, int64_t * lo, int64_t * hi) {
    int64_t a = cv2_ceil_div(-off, step);
    int64_t b = cv2_ceil_div(n - off, step);
    a = a < 0 ? 0 : (a > n_t ? n_t : a);
    b = b > n_t ? n_t : b;
    *lo = a;
    *hi = b > a ? b : a;
}

static inline void cv2_zero(float * x, int64_t n) {
    if (n > 0) {
        memset(x, 0, (size_t) n*sizeof(float));
    }
}

static size_t cv2_floats(int64_t n) {
    return GGML_PAD((size_t) (n > 0 ? n : 0)*sizeof(float), GGML_CPU_CACHE_LINE);
}

static bool cv2_params_ok(const int32_t * v, int n) {
    for (int i = 0; i < n; i++) {
        if (v[i] < 1) {
            return false;
        }
    }
    return true;
}

//
// 3-D geometry shared by IM2COL_3D and CONV_3D
//

struct cv3 {
    int64_t IW, IH, ID, IC, N;
    int64_t KW, KH, KD;
    int64_t OW, OH, OD;
    int64_t s0, s1, s2, p0, p1, p2, d0, d1, d2;
};

static void cv3_params(const struct ggml_tensor * op, struct cv3 * g) {
    g->s0 = ggml_get_op_params_i32(op, 0); g->s1 = ggml_get_op_params_i32(op, 1); g->s2 = ggml_get_op_params_i32(op, 2);
    g->p0 = ggml_get_op_params_i32(op, 3); g->p1 = ggml_get_op_params_i32(op, 4); g->p2 = ggml_get_op_params_i32(op, 5);
    g->d0 = ggml_get_op_params_i32(op, 6); g->d1 = ggml_get_op_params_i32(op, 7); g->d2 = ggml_get_op_params_i32(op, 8);
}

static bool cv3_steps_ok(const struct cv3 * g) {
    return g->s0 >= 1 && g->s1 >= 1 && g->s2 >= 1 && g->d0 >= 1 && g->d1 >= 1 && g->d2 >= 1;
}

// the column of output position (ox, oy, oz) of image n: col[((ic*KD + kd)*KH + kh)*KW + kw] =
// data(ox*s0 + kw*d0 - p0, oy*s1 + kh*d1 - p1, oz*s2 + kd*d2 - p2, n*IC + ic), 0 outside
static void cv3_gather(nn_vf vf, const struct cv3 * g, const struct ggml_tensor * b,
        int64_t ox, int64_t oy, int64_t oz, int64_t n, float * col) {
    int64_t kw0, kw1;
    cv2_valid(g->KW, g->d0, ox*g->s0 - g->p0, g->IW, &kw0, &kw1);
    const int64_t ix0 = ox*g->s0 + kw0*g->d0 - g->p0;
    for (int64_t ic = 0; ic < g->IC; ic++) {
        const char * plane = (const char *) b->data + (n*g->IC + ic)*b->nb[3];
        for (int64_t kd = 0; kd < g->KD; kd++) {
            const int64_t iz = oz*g->s2 + kd*g->d2 - g->p2;
            for (int64_t kh = 0; kh < g->KH; kh++) {
                const int64_t iy = oy*g->s1 + kh*g->d1 - g->p1;
                float * out = col + ((ic*g->KD + kd)*g->KH + kh)*g->KW;
                if (iz < 0 || iz >= g->ID || iy < 0 || iy >= g->IH || kw0 >= kw1) {
                    cv2_zero(out, g->KW);
                    continue;
                }
                cv2_zero(out, kw0);
                const char * src = plane + iz*b->nb[2] + iy*b->nb[1] + ix0*b->nb[0];
                const size_t step = (size_t) g->d0*b->nb[0];
                if (b->type == GGML_TYPE_F32) {
                    // runs are a kernel row (a few values): copied inline, not through a call
                    for (int64_t i = 0; i < kw1 - kw0; i++) {
                        memcpy(out + kw0 + i, src + (size_t) i*step, sizeof(float));
                    }
                } else {
                    ggml_vec_load_f32(vf, b->type, src, step, kw1 - kw0, out + kw0);
                }
                cv2_zero(out + kw1, g->KW - kw1);
            }
        }
    }
}

//
// IM2COL_3D: kernel [KW, KH, KD, OC*IC] (shape only), data [IW, IH, ID, N*IC] ->
// [IC*KD*KH*KW, OW, OH, N*OD]; op_params s0..s2, p0..p2, d0..d2, IC
//

static bool im2col3d_geom(const struct ggml_tensor * op, struct cv3 * g) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    cv3_params(op, g);
    g->IC = ggml_get_op_params_i32(op, 9);
    if (g->IC < 1) {
        return false;
    }
    g->IW = b->ne[0]; g->IH = b->ne[1]; g->ID = b->ne[2]; g->N = b->ne[3] / g->IC;
    g->KW = k->ne[0]; g->KH = k->ne[1]; g->KD = k->ne[2];
    g->OW = op->ne[1]; g->OH = op->ne[2];
    g->OD = g->N > 0 ? op->ne[3] / g->N : 0;
    return op->ne[0] == g->IC*g->KD*g->KH*g->KW && op->ne[3] == g->OD*g->N;
}

static bool im2col3d_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (k == NULL || b == NULL || !ggml_vec_is_float_type(b->type) ||
        (op->type != GGML_TYPE_F32 && op->type != GGML_TYPE_F16)) {
        return false;
    }
    struct cv3 g;
    return im2col3d_geom(op, &g) && cv3_steps_ok(&g);
}

static void im2col3d_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * b = op->src[1];
    const nn_vf vf = ggml_vec_get(params->use_ref);
    struct cv3 g;
    im2col3d_geom(op, &g);
    const int64_t K = op->ne[0];
    const bool direct = op->type == GGML_TYPE_F32 && op->nb[0] == sizeof(float);
    // (no work buffer when K == 0: nothing is gathered then)
    float * tmp = params->wdata ? (float *) ((char *) params->wdata + (size_t) params->ith*cv2_floats(K)) : NULL;

    // output rows (ow, oh, n*OD + od)
    int64_t r0, r1;
    ggml_cpu_split_range(op->ne[1]*op->ne[2]*op->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t ow = r % g.OW;
        const int64_t oh = (r / g.OW) % g.OH;
        const int64_t i3 = r / (g.OW*g.OH);
        char * dst = (char *) op->data + ow*op->nb[1] + oh*op->nb[2] + i3*op->nb[3];
        float * col = direct ? (float *) dst : tmp;
        cv3_gather(vf, &g, b, ow, oh, i3 % g.OD, i3 / g.OD, col);
        if (!direct) {
            ggml_vec_store_f32(vf, op->type, dst, op->nb[0], K, col);
        }
    }
}

//
// CONV_3D: kernel [KW, KH, KD, OC*IC] (element ne3 = oc*IC + ic), data [IW, IH, ID, N*IC] ->
// F32 [OW, OH, OD, N*OC]; op_params s0..s2, p0..p2, d0..d2, IC, N, OC
//

static bool conv3d_geom(const struct ggml_tensor * op, struct cv3 * g, int64_t * OC) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    cv3_params(op, g);
    g->IC = ggml_get_op_params_i32(op, 9);
    g->N  = ggml_get_op_params_i32(op, 10);
    *OC   = ggml_get_op_params_i32(op, 11);
    g->IW = b->ne[0]; g->IH = b->ne[1]; g->ID = b->ne[2];
    g->KW = k->ne[0]; g->KH = k->ne[1]; g->KD = k->ne[2];
    g->OW = op->ne[0]; g->OH = op->ne[1]; g->OD = op->ne[2];
    return g->IC >= 1 && g->N >= 1 && *OC >= 1 && k->ne[3] == g->IC * *OC && b->ne[3] == g->IC*g->N &&
           op->ne[3] == g->N * *OC;
}

static bool conv3d_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (k == NULL || b == NULL || !ggml_vec_is_float_type(k->type) || !ggml_vec_is_float_type(b->type) ||
        op->type != GGML_TYPE_F32) {
        return false;
    }
    struct cv3 g;
    int64_t OC;
    return conv3d_geom(op, &g, &OC) && cv3_steps_ok(&g);
}

static bool conv3d_kernel_direct(const struct ggml_tensor * k) {
    return k->type == GGML_TYPE_F32 && ggml_is_contiguous(k);
}

static int64_t conv3d_K(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    return k->ne[0]*k->ne[1]*k->ne[2]*(int64_t) ggml_get_op_params_i32(op, 9);
}

static size_t conv3d_kernel_bytes(const struct ggml_tensor * op) {
    return conv3d_kernel_direct(op->src[0]) ? 0 : cv2_floats(ggml_nelements(op->src[0]));
}

// The GEMM path: at least 8 output channels and K >= 32, and output planes of packed rows (the
// GEMM writes plane oc at a stride of whole floats).
static bool conv3d_use_gemm(const struct ggml_tensor * op) {
    const int64_t OC = ggml_get_op_params_i32(op, 11);
    return OC >= 8 && conv3d_K(op) >= 32 && op->nb[0] == sizeof(float) && op->nb[1] == (size_t) op->ne[0]*sizeof(float) &&
           op->nb[2] == (size_t) op->ne[1]*op->nb[1] && op->nb[3] % sizeof(float) == 0;
}

// positions per GEMM tile: about 1 MiB of columns, 16 .. GGML_MM_NC, a multiple of 16
static int64_t conv3d_tile(const struct ggml_tensor * op) {
    const int64_t K = conv3d_K(op);
    int64_t P = (262144 / (K > 0 ? K : 1)) / 16 * 16;
    P = P < 16 ? 16 : (P > GGML_MM_NC ? GGML_MM_NC : P);
    const int64_t n_pos = (op->ne[0]*op->ne[1]*op->ne[2] + 15) / 16 * 16;
    return P < n_pos ? P : (n_pos > 0 ? n_pos : 16);
}

static size_t conv3d_thread_bytes(const struct ggml_tensor * op) {
    if (conv3d_use_gemm(op)) {
        return GGML_PAD((size_t) (conv3d_tile(op)*conv3d_K(op))*sizeof(float), 64) + GGML_MM_GEMM_SCRATCH*sizeof(float) + 64;
    }
    return cv2_floats(conv3d_K(op));
}

// items (image, tile of positions, block of output channels), pulled dynamically
static void conv3d_forward_gemm(const struct ggml_compute_params * params, struct ggml_tensor * op,
        const struct cv3 * g, int64_t OC, const float * kf, float * scratch) {
    const struct ggml_tensor * b = op->src[1];
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    const int64_t K = conv3d_K(op);
    const int64_t P = conv3d_tile(op);
    float * cols    = scratch;                                                             // [P][K]
    float * gemm_sc = (float *) ((char *) scratch + GGML_PAD((size_t) (P*K)*sizeof(float), 64));

    const int64_t n_pos   = g->OW*g->OH*g->OD;
    const int64_t n_tiles = (n_pos + P - 1) / P;
    const int64_t MR      = kt->mm->mr;
    int64_t n_ocb = (4*(int64_t) params->nth + n_tiles*g->N - 1) / (n_tiles*g->N);
    const int64_t max_ocb = OC / 64 > 1 ? OC / 64 : 1;
    n_ocb = n_ocb < 1 ? 1 : (n_ocb > max_ocb ? max_ocb : n_ocb);
    int64_t ocb = (OC + n_ocb - 1) / n_ocb;
    ocb = (ocb + MR - 1) / MR * MR;
    n_ocb = (OC + ocb - 1) / ocb;

    const struct ggml_mm_src a_src = { (const char *) cols, GGML_TYPE_F32, K*(int64_t) sizeof(float), (int64_t) sizeof(float) };
    const struct ggml_mm_src k_src = { (const char *) kf,   GGML_TYPE_F32, K*(int64_t) sizeof(float), (int64_t) sizeof(float) };
    const int64_t ldc = (int64_t) (op->nb[3] / sizeof(float));
    const int64_t n_items = g->N*n_tiles*n_ocb;
    int64_t gathered = -1; // the (image, tile) whose columns are in cols
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < n_items; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t o  = it % n_ocb;
        const int64_t nt = it / n_ocb;
        const int64_t t  = nt % n_tiles;
        const int64_t n  = nt / n_tiles;
        const int64_t q0 = t*P;
        const int64_t np = n_pos - q0 < P ? n_pos - q0 : P;
        if (nt != gathered) {
            for (int64_t i = 0; i < np; i++) {
                const int64_t q = q0 + i;
                cv3_gather(kt->vec, g, b, q % g->OW, (q / g->OW) % g->OH, q / (g->OW*g->OH), n, cols + i*K);
            }
            gathered = nt;
        }
        const int64_t m0 = o*ocb;
        const int64_t mm = OC - m0 < ocb ? OC - m0 : ocb;
        float * c = (float *) ((char *) op->data + (n*OC + m0)*op->nb[3]) + q0;
        ggml_mm_gemm_block(kt->mm, &a_src, &k_src, m0, mm, 0, np, K, c, ldc, gemm_sc);
    }
}

static void conv3d_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const nn_vf vf = ggml_vec_get(params->use_ref);
    struct cv3 g;
    int64_t OC;
    conv3d_geom(op, &g, &OC);
    const int64_t K = conv3d_K(op);

    const float * kf = (const float *) k->data;
    const size_t kbytes = conv3d_kernel_bytes(op);
    if (kbytes > 0) {
        // widen the kernel rows (kw runs of one (kh, kd, ic*oc)); every thread a share
        float * kw = (float *) params->wdata;
        const int64_t n_rows = k->ne[1]*k->ne[2]*k->ne[3];
        int64_t r0, r1;
        ggml_cpu_split_range(n_rows, params->ith, params->nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            const int64_t i1 = r % k->ne[1];
            const int64_t i2 = (r / k->ne[1]) % k->ne[2];
            const int64_t i3 = r / (k->ne[1]*k->ne[2]);
            ggml_vec_load_f32(vf, k->type, (const char *) k->data + i1*k->nb[1] + i2*k->nb[2] + i3*k->nb[3], k->nb[0],
                    k->ne[0], kw + r*k->ne[0]);
        }
        ggml_cpu_barrier(params->threadpool);
        kf = kw;
    }
    char * mine = params->wdata ? (char *) params->wdata + kbytes + (size_t) params->ith*conv3d_thread_bytes(op) : NULL;
    if (conv3d_use_gemm(op)) {
        // the GEMM's scratch wants 64-byte alignment
        conv3d_forward_gemm(params, op, &g, OC, kf, (float *) GGML_PAD((uintptr_t) mine, 64));
        return;
    }
    float * col = (float *) mine;

    // output positions (ox, oy, oz, n)
    const int64_t n_pos = g.OW*g.OH*g.OD*g.N;
    int64_t q0, q1;
    ggml_cpu_split_range(n_pos, params->ith, params->nth, &q0, &q1);
    for (int64_t q = q0; q < q1; q++) {
        const int64_t ox = q % g.OW;
        const int64_t oy = (q / g.OW) % g.OH;
        const int64_t oz = (q / (g.OW*g.OH)) % g.OD;
        const int64_t n  = q / (g.OW*g.OH*g.OD);
        cv3_gather(vf, &g, b, ox, oy, oz, n, col);
        char * dst = (char *) op->data + ox*op->nb[0] + oy*op->nb[1] + oz*op->nb[2];
        for (int64_t oc = 0; oc < OC; oc++) {
            const float v = K > 0 ? vf->dot_f32(K, col, kf + oc*K) : 0.0f;
            memcpy(dst + (n*OC + oc)*op->nb[3], &v, sizeof(v));
        }
    }
}

//
// CONV_2D_DW: kernel [KW, KH, 1, C], data [IW, IH, C, N] -> [OW, OH, C, N] (any float type, any
// strides: the channel-adjacent layout too); op_params s0, s1, p0, p1, d0, d1
//

static bool dw_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (k == NULL || b == NULL || !ggml_vec_is_float_type(k->type) || !ggml_vec_is_float_type(b->type) ||
        !ggml_vec_is_float_type(op->type)) {
        return false;
    }
    return cv2_params_ok(op->op_params, 2) && ggml_get_op_params_i32(op, 4) >= 1 && ggml_get_op_params_i32(op, 5) >= 1 &&
           k->ne[2] == 1 && k->ne[3] == b->ne[2] && op->ne[2] == b->ne[2] && op->ne[3] == b->ne[3];
}

// channel-adjacent F32 data and result (the family's CWHN layout): a run of C floats per position
static bool dw_cwhn(const struct ggml_tensor * op) {
    const struct ggml_tensor * b = op->src[1];
    return b->type == GGML_TYPE_F32 && op->type == GGML_TYPE_F32 && b->nb[2] == sizeof(float) &&
           op->nb[2] == sizeof(float) && b->nb[0] % sizeof(float) == 0 && op->nb[0] % sizeof(float) == 0;
}

static size_t dw_thread_bytes(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    if (dw_cwhn(op)) {
        return cv2_floats(k->ne[0]*k->ne[1]*op->ne[2]) + cv2_floats(op->ne[2]);
    }
    return cv2_floats(k->ne[0]*k->ne[1]) + cv2_floats(op->ne[0]) + cv2_floats(op->src[1]->ne[0]);
}

// CWHN: items are output rows (oy, n); each position sums KH*KW runs of C channels, the kernel
// taps transposed to [tap][C] (each thread its own copy: KH*KW*C floats)
static void dw_forward_cwhn(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const int64_t s0 = ggml_get_op_params_i32(op, 0), s1 = ggml_get_op_params_i32(op, 1);
    const int64_t p0 = ggml_get_op_params_i32(op, 2), p1 = ggml_get_op_params_i32(op, 3);
    const int64_t d0 = ggml_get_op_params_i32(op, 4), d1 = ggml_get_op_params_i32(op, 5);
    const int64_t KW = k->ne[0], KH = k->ne[1];
    const int64_t IW = b->ne[0], IH = b->ne[1];
    const int64_t OW = op->ne[0], OH = op->ne[1], C = op->ne[2];

    char * buf = (char *) params->wdata + (size_t) params->ith*dw_thread_bytes(op);
    float * kt  = (float *) buf;
    float * acc = (float *) (buf + cv2_floats(KW*KH*C));
    for (int64_t c = 0; c < C; c++) {
        for (int64_t ky = 0; ky < KH; ky++) {
            for (int64_t kx = 0; kx < KW; kx++) {
                kt[(ky*KW + kx)*C + c] = ggml_vec_load_elem(k->type, (const char *) k->data + kx*k->nb[0] + ky*k->nb[1] + c*k->nb[3]);
            }
        }
    }
    int64_t r0, r1;
    ggml_cpu_split_range(OH*op->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oy = r % OH;
        const int64_t n  = r / OH;
        for (int64_t ox = 0; ox < OW; ox++) {
            cv2_zero(acc, C);
            for (int64_t ky = 0; ky < KH; ky++) {
                const int64_t iy = oy*s1 + ky*d1 - p1;
                if (iy < 0 || iy >= IH) {
                    continue;
                }
                for (int64_t kx = 0; kx < KW; kx++) {
                    const int64_t ix = ox*s0 + kx*d0 - p0;
                    if (ix < 0 || ix >= IW) {
                        continue;
                    }
                    const float * x = (const float *) ((const char *) b->data + ix*b->nb[0] + iy*b->nb[1] + n*b->nb[3]);
                    const float * w = kt + (ky*KW + kx)*C;
                    for (int64_t c = 0; c < C; c++) {
                        acc[c] += w[c]*x[c];
                    }
                }
            }
            memcpy((char *) op->data + ox*op->nb[0] + oy*op->nb[1] + n*op->nb[3], acc, (size_t) C*sizeof(float));
        }
    }
}

static void dw_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const nn_vf vf = ggml_vec_get(params->use_ref);
    const int64_t s0 = ggml_get_op_params_i32(op, 0), s1 = ggml_get_op_params_i32(op, 1);
    const int64_t p0 = ggml_get_op_params_i32(op, 2), p1 = ggml_get_op_params_i32(op, 3);
    const int64_t d0 = ggml_get_op_params_i32(op, 4), d1 = ggml_get_op_params_i32(op, 5);
    const int64_t KW = k->ne[0], KH = k->ne[1];
    const int64_t IW = b->ne[0], IH = b->ne[1];
    const int64_t OW = op->ne[0], OH = op->ne[1], C = op->ne[2];

    if (dw_cwhn(op)) {
        dw_forward_cwhn(params, op);
        return;
    }
    char * buf = (char *) params->wdata + (size_t) params->ith*dw_thread_bytes(op);
    float * kern = (float *) buf;
    float * acc  = (float *) (buf + cv2_floats(KW*KH));
    float * row  = (float *) (buf + cv2_floats(KW*KH) + cv2_floats(OW));

    // items: output rows (oy, c, n); the kernel of a channel is widened when the channel changes
    int64_t r0, r1;
    ggml_cpu_split_range(OH*C*op->ne[3], params->ith, params->nth, &r0, &r1);
    int64_t kc = -1;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t oy = r % OH;
        const int64_t c  = (r / OH) % C;
        const int64_t n  = r / (OH*C);
        if (c != kc) {
            for (int64_t ky = 0; ky < KH; ky++) {
                ggml_vec_load_f32(vf, k->type, (const char *) k->data + ky*k->nb[1] + c*k->nb[3], k->nb[0], KW, kern + ky*KW);
            }
            kc = c;
        }
        cv2_zero(acc, OW);
        for (int64_t ky = 0; ky < KH; ky++) {
            const int64_t iy = oy*s1 + ky*d1 - p1;
            if (iy < 0 || iy >= IH) {
                continue;
            }
            // the input row once as float, then every tap adds a strided run of it
            ggml_vec_load_f32(vf, b->type, (const char *) b->data + iy*b->nb[1] + c*b->nb[2] + n*b->nb[3], b->nb[0], IW, row);
            for (int64_t kx = 0; kx < KW; kx++) {
                const float w = kern[ky*KW + kx];
                int64_t lo, hi;
                cv2_valid(OW, s0, kx*d0 - p0, IW, &lo, &hi);
                const float * x = row + lo*s0 + kx*d0 - p0;
                if (s0 == 1) {
                    vf->mad_f32(hi - lo, acc + lo, x, w);
                } else {
                    for (int64_t ox = lo; ox < hi; ox++) {
                        acc[ox] += w*x[(ox - lo)*s0];
                    }
                }
            }
        }
        ggml_vec_store_f32(vf, op->type, (char *) op->data + oy*op->nb[1] + c*op->nb[2] + n*op->nb[3], op->nb[0], OW, acc);
    }
}

//
// The transposed convolutions. Their scratch holds the kernel as float [OC][IC][taps] and the
// input as float [N][IC][positions], written by all threads (a share each) before a barrier.
//

// CONV_TRANSPOSE_1D: kernel [K, OC, IC], data [L, IC] -> F32 [(L - 1)*s0 + K, OC]
// CONV_TRANSPOSE_2D: kernel [KW, KH, OC, IC], data [W, H, IC, N] -> F32 [(W - 1)*s + KW, (H - 1)*s + KH, OC, N]
struct ct_geom {
    int64_t KW, KH, OC, IC;  // kernel
    int64_t W, H, N;         // data
    int64_t s;
};

static void ct_geom_get(const struct ggml_tensor * op, struct ct_geom * g) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    g->s = ggml_get_op_params_i32(op, 0);
    if (op->op == GGML_OP_CONV_TRANSPOSE_1D) {
        g->KW = k->ne[0]; g->KH = 1; g->OC = k->ne[1]; g->IC = k->ne[2];
        g->W = b->ne[0]; g->H = 1; g->N = 1;
    } else {
        g->KW = k->ne[0]; g->KH = k->ne[1]; g->OC = k->ne[2]; g->IC = k->ne[3];
        g->W = b->ne[0]; g->H = b->ne[1]; g->N = b->ne[3];
    }
}

static bool ct_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (k == NULL || b == NULL || !ggml_vec_is_float_type(k->type) || !ggml_vec_is_float_type(b->type) ||
        op->type != GGML_TYPE_F32 || !ggml_is_contiguous(op)) {
        return false;
    }
    struct ct_geom g;
    ct_geom_get(op, &g);
    if (g.s < 1) {
        return false;
    }
    if (op->op == GGML_OP_CONV_TRANSPOSE_1D) {
        return ggml_get_op_params_i32(op, 1) == 0 && ggml_get_op_params_i32(op, 2) == 1 && k->ne[3] == 1 &&
               b->ne[1] == g.IC && b->ne[2] == 1 && b->ne[3] == 1 &&
               op->ne[0] == (g.W - 1)*g.s + g.KW && op->ne[1] == g.OC && op->ne[2] == 1 && op->ne[3] == 1;
    }
    return b->ne[2] == g.IC && op->ne[0] == (g.W - 1)*g.s + g.KW && op->ne[1] == (g.H - 1)*g.s + g.KH &&
           op->ne[2] == g.OC && op->ne[3] == g.N;
}

static size_t ct_kernel_floats(const struct ct_geom * g) {
    return cv2_floats(g->OC*g->KH*g->KW*g->IC);
}

static size_t ct_work_size(const struct ggml_tensor * op) {
    struct ct_geom g;
    ct_geom_get(op, &g);
    return ct_kernel_floats(&g) + cv2_floats(g.N*g.H*g.W*g.IC);
}

static void ct_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * k = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const nn_vf vf = ggml_vec_get(params->use_ref);
    struct ct_geom g;
    ct_geom_get(op, &g);
    const bool is_1d = op->op == GGML_OP_CONV_TRANSPOSE_1D;
    const int64_t IC = g.IC;
    char  * w  = (char *) params->wdata; // NULL when there is nothing to rearrange
    float * kt = w ? (float *) w : NULL;                             // [OC][IC][KH][KW]
    float * xt = w ? (float *) (w + ct_kernel_floats(&g)) : NULL;    // [N][IC][H][W]

    if (w != NULL) {
        // kernel rows (kx runs of one (oc, ic, ky)) and input rows (x runs of one (n, ic, y))
        int64_t r0, r1;
        ggml_cpu_split_range(g.OC*IC*g.KH, params->ith, params->nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            const int64_t ky = r % g.KH;
            const int64_t ic = (r / g.KH) % IC;
            const int64_t oc = r / (g.KH*IC);
            const char * src = (const char *) k->data + (is_1d ? oc*k->nb[1] + ic*k->nb[2] : ky*k->nb[1] + oc*k->nb[2] + ic*k->nb[3]);
            ggml_vec_load_f32(vf, k->type, src, k->nb[0], g.KW, kt + r*g.KW);
        }
        ggml_cpu_split_range(g.N*IC*g.H, params->ith, params->nth, &r0, &r1);
        for (int64_t r = r0; r < r1; r++) {
            const int64_t y  = r % g.H;
            const int64_t ic = (r / g.H) % IC;
            const int64_t n  = r / (g.H*IC);
            const char * src = (const char *) b->data + (is_1d ? ic*b->nb[1] : y*b->nb[1] + ic*b->nb[2] + n*b->nb[3]);
            ggml_vec_load_f32(vf, b->type, src, b->nb[0], g.W, xt + r*g.W);
        }
    }
    ggml_cpu_barrier(params->threadpool);

    // items: output planes (oc, n), each owned by one thread. Every kernel tap (ic, ky, kx) adds
    // w * input row y to output row y*s + ky from column kx on (a plain axpy at stride 1).
    const int64_t OW = op->ne[0], OH = is_1d ? 1 : op->ne[1];
    int64_t p0, p1;
    ggml_cpu_split_range(g.OC*g.N, params->ith, params->nth, &p0, &p1);
    for (int64_t p = p0; p < p1; p++) {
        const int64_t oc = p % g.OC;
        const int64_t n  = p / g.OC;
        float * plane = (float *) ((char *) op->data + oc*op->nb[is_1d ? 1 : 2] + (is_1d ? 0 : n*op->nb[3]));
        cv2_zero(plane, OW*OH);
        if (w == NULL) {
            continue;
        }
        for (int64_t ic = 0; ic < IC; ic++) {
            const float * xin = xt + (n*IC + ic)*g.H*g.W;
            const float * kin = kt + (oc*IC + ic)*g.KH*g.KW;
            for (int64_t ky = 0; ky < g.KH; ky++) {
                for (int64_t kx = 0; kx < g.KW; kx++) {
                    const float wk = kin[ky*g.KW + kx];
                    for (int64_t y = 0; y < g.H; y++) {
                        float * out = plane + (y*g.s + ky)*OW + kx;
                        const float * xr = xin + y*g.W;
                        if (g.s == 1) {
                            vf->mad_f32(g.W, out, xr, wk);
                        } else {
                            for (int64_t x = 0; x < g.W; x++) {
                                out[x*g.s] += wk*xr[x];
                            }
                        }
                    }
                }
            }
        }
    }
}

//
// entry points (called by cpu-ops-conv.c for these ops)
//

bool ggml_cpu_conv2_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_IM2COL_3D:         return im2col3d_supports(op);
        case GGML_OP_CONV_3D:           return conv3d_supports(op);
        case GGML_OP_CONV_2D_DW:        return dw_supports(op);
        case GGML_OP_CONV_TRANSPOSE_1D:
        case GGML_OP_CONV_TRANSPOSE_2D: return ct_supports(op);
        default:                        return false;
    }
}

size_t ggml_cpu_conv2_work_size(const struct ggml_tensor * op, int n_threads) {
    switch (op->op) {
        case GGML_OP_IM2COL_3D:  return cv2_floats(op->ne[0])*(size_t) n_threads;
        case GGML_OP_CONV_3D:    return conv3d_kernel_bytes(op) + conv3d_thread_bytes(op)*(size_t) n_threads;
        case GGML_OP_CONV_2D_DW: return dw_thread_bytes(op)*(size_t) n_threads;
        case GGML_OP_CONV_TRANSPOSE_1D:
        case GGML_OP_CONV_TRANSPOSE_2D: return ct_work_size(op);
        default:                 return 0;
    }
}

int ggml_cpu_conv2_n_tasks(const struct ggml_tensor * op, int n_threads) {
    int64_t n;
    switch (op->op) {
        case GGML_OP_IM2COL_3D:  n = op->ne[1]*op->ne[2]*op->ne[3]; break;
        case GGML_OP_CONV_2D_DW: n = op->ne[1]*op->ne[2]*op->ne[3]; break;
        // these meet at a barrier: every thread takes part
        case GGML_OP_CONV_3D:
        case GGML_OP_CONV_TRANSPOSE_1D:
        case GGML_OP_CONV_TRANSPOSE_2D: return n_threads;
        default:                 n = 1; break;
    }
    return n < 1 ? 1 : (n < n_threads ? (int) n : n_threads);
}

enum ggml_status ggml_cpu_conv2_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_IM2COL_3D:         im2col3d_forward(params, op); return GGML_STATUS_SUCCESS;
        case GGML_OP_CONV_3D:           conv3d_forward(params, op);   return GGML_STATUS_SUCCESS;
        case GGML_OP_CONV_2D_DW:        dw_forward(params, op);       return GGML_STATUS_SUCCESS;
        case GGML_OP_CONV_TRANSPOSE_1D:
        case GGML_OP_CONV_TRANSPOSE_2D: ct_forward(params, op);       return GGML_STATUS_SUCCESS;
        default:
            GGML_LOG_ERROR("%s: op %s does not belong to the conv family\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
