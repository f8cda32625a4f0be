// CPU kernels of the training family: REPEAT_BACK, SILU_BACK, RMS_NORM_BACK, GET_ROWS_BACK,
// SOFT_MAX_BACK, COUNT_EQUAL, CROSS_ENTROPY_LOSS(_BACK), OPT_STEP_ADAMW, OPT_STEP_SGD.
// Semantics as the family's CPU code and tests/ref/ref-backward.c; float arithmetic with double
// accumulators for row sums.
//
// Float operands are F32 with adjacent elements (nb[0] == 4); rows are read through nb1..nb3, so
// views and permuted tensors work. Work is split by rows; COUNT_EQUAL and CROSS_ENTROPY_LOSS
// reduce over the whole tensor and combine per-thread partial sums after a barrier.

#include "ggml-cpu-impl.h"
#include "ggml-cpu-vec.h"

#include <math.h>
#include <string.h>

static bool bw_f32_rows(const struct ggml_tensor * t) {
    return t != NULL && t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float);
}

static inline float * bw_row(const struct ggml_tensor * t, int64_t i1, int64_t i2, int64_t i3) {
    return (float *) ((char *) t->data + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3]);
}

// the row of t with the same (i1, i2, i3) as row r of shape ne
static inline float * bw_row_r(const struct ggml_tensor * t, const int64_t ne[4], int64_t r) {
    int64_t i1, i2, i3;
    ggml_vec_row_index(ne, r, &i1, &i2, &i3);
    return bw_row(t, i1, i2, i3);
}

static bool bw_same_f32(const struct ggml_tensor * op, int n_src) {
    if (!bw_f32_rows(op)) {
        return false;
    }
    for (int i = 0; i < n_src; i++) {
        if (!bw_f32_rows(op->src[i]) || !ggml_are_same_shape(op->src[i], op)) {
            return false;
        }
    }
    return true;
}

// GET_ROWS_BACK's gradient rows: F32, F16, BF16, I32 (summed as floats), or a quantized type with a
// dequantizer (the family's CPU takes F32 and F16 only)
static bool bw_rows_back_type_ok(const struct ggml_tensor * a) {
    if (a->nb[0] != ggml_type_size(a->type)) {
        return false;
    }
    if (ggml_vec_is_float_type(a->type) || a->type == GGML_TYPE_I32) {
        return true;
    }
    const struct ggml_type_traits * tr = ggml_get_type_traits(a->type);
    return ggml_is_quantized(a->type) && tr->to_float != NULL && a->ne[0] % tr->blck_size == 0;
}

bool ggml_cpu_backward_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if (a == NULL) {
        return false;
    }
    switch (op->op) {
        case GGML_OP_REPEAT_BACK:
            return bw_f32_rows(op) && bw_f32_rows(a) && ggml_can_repeat(op, a);
        case GGML_OP_SILU_BACK:
        case GGML_OP_RMS_NORM_BACK:
            return bw_same_f32(op, 2);
        case GGML_OP_SOFT_MAX_BACK:
            // any max_bias: the ALiBi slope only scales the mask, an additive input that is not
            // differentiated, so dx is the same (the family's CPU declines max_bias != 0)
            return bw_same_f32(op, 2);
        case GGML_OP_GET_ROWS_BACK:
            return bw_rows_back_type_ok(a) && b != NULL && b->type == GGML_TYPE_I32 && ggml_is_vector(b) &&
                   ggml_is_matrix(a) && a->ne[1] >= b->ne[0] && op->type == GGML_TYPE_F32 && ggml_is_contiguous(op) &&
                   op->ne[0] == a->ne[0];
        case GGML_OP_POOL_2D_BACK: {
            const int32_t pop = ggml_get_op_params_i32(op, 0);
            return b != NULL && a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 && ggml_is_contiguous(a) &&
                   ggml_is_contiguous(b) && op->type == GGML_TYPE_F32 && ggml_is_contiguous(op) && ggml_are_same_shape(op, b) &&
                   a->ne[2] == op->ne[2] && a->ne[3] == op->ne[3] && (pop == GGML_OP_POOL_MAX || pop == GGML_OP_POOL_AVG);
        }
        case GGML_OP_COUNT_EQUAL:
            return b != NULL && a->type == GGML_TYPE_I32 && b->type == GGML_TYPE_I32 && a->nb[0] == sizeof(int32_t) &&
                   b->nb[0] == sizeof(int32_t) && ggml_are_same_shape(a, b) && op->type == GGML_TYPE_I64;
        case GGML_OP_CROSS_ENTROPY_LOSS:
            return b != NULL && bw_f32_rows(a) && bw_f32_rows(b) && ggml_are_same_shape(a, b) &&
                   op->type == GGML_TYPE_F32 && ggml_nelements(op) == 1;
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK:
            return a->type == GGML_TYPE_F32 && ggml_nelements(a) == 1 && bw_f32_rows(op) && bw_f32_rows(b) &&
                   bw_f32_rows(op->src[2]) && ggml_are_same_shape(b, op) && ggml_are_same_shape(op->src[2], op);
        case GGML_OP_OPT_STEP_ADAMW:
            return bw_same_f32(op, 4) && op->src[4] != NULL && op->src[4]->type == GGML_TYPE_F32 &&
                   ggml_is_contiguous(op->src[4]) && ggml_nelements(op->src[4]) == 7;
        case GGML_OP_OPT_STEP_SGD:
            return bw_same_f32(op, 2) && op->src[2] != NULL && op->src[2]->type == GGML_TYPE_F32 &&
                   ggml_is_contiguous(op->src[2]) && ggml_nelements(op->src[2]) == 2;
        default:
            return false;
    }
}

// bytes of one thread's dequantized row (GET_ROWS_BACK), whole cache lines
static size_t bw_rows_back_stride(const struct ggml_tensor * op) {
    const size_t line = GGML_CPU_CACHE_LINE;
    return ((size_t) op->ne[0]*sizeof(float) + line - 1)/line*line;
}

// one cache line per thread for a partial sum
size_t ggml_cpu_backward_work_size(const struct ggml_tensor * op, int n_threads) {
    switch (op->op) {
        case GGML_OP_COUNT_EQUAL:
        case GGML_OP_CROSS_ENTROPY_LOSS:
            return (size_t) n_threads*GGML_CPU_CACHE_LINE;
        case GGML_OP_GET_ROWS_BACK:
            // a row of dequantized gradient per thread
            return ggml_is_quantized(op->src[0]->type) ? (size_t) n_threads*bw_rows_back_stride(op) : 0;
        default:
            return 0;
    }
}

int ggml_cpu_backward_n_tasks(const struct ggml_tensor * op, int n_threads) {
    switch (op->op) {
        case GGML_OP_COUNT_EQUAL:
        case GGML_OP_CROSS_ENTROPY_LOSS:
            return n_threads; // the barrier needs the whole pool
        default:
            return ggml_nrows(op) < n_threads ? (int) ggml_nrows(op) : n_threads;
    }
}

// REPEAT_BACK: each destination element sums the source elements that repeat it
static enum ggml_status bw_repeat_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const int64_t * ne = dst->ne;
    const int64_t nr[4] = { a->ne[0]/ne[0], a->ne[1]/ne[1], a->ne[2]/ne[2], a->ne[3]/ne[3] };
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        int64_t k1, k2, k3;
        ggml_vec_row_index(ne, r, &k1, &k2, &k3);
        float * y = bw_row(dst, k1, k2, k3);
        for (int64_t i0 = 0; i0 < ne[0]; i0++) {
            y[i0] = 0.0f;
        }
        for (int64_t j3 = 0; j3 < nr[3]; j3++) {
            for (int64_t j2 = 0; j2 < nr[2]; j2++) {
                for (int64_t j1 = 0; j1 < nr[1]; j1++) {
                    const float * x = bw_row(a, j1*ne[1] + k1, j2*ne[2] + k2, j3*ne[3] + k3);
                    for (int64_t j0 = 0; j0 < nr[0]; j0++) {
                        for (int64_t i0 = 0; i0 < ne[0]; i0++) {
                            y[i0] += x[j0*ne[0] + i0];
                        }
                    }
                }
            }
        }
    }
    return GGML_STATUS_SUCCESS;
}

// SILU_BACK: dx = dy * s * (1 + x*(1 - s)), s = sigmoid(x)
static enum ggml_status bw_silu_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const float * dy = bw_row_r(dst->src[0], dst->ne, r);
        const float * x  = bw_row_r(dst->src[1], dst->ne, r);
        float * dx = bw_row_r(dst, dst->ne, r);
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            const float s = 1.0f/(1.0f + expf(-x[i]));
            dx[i] = dy[i]*s*(1.0f + x[i]*(1.0f - s));
        }
    }
    return GGML_STATUS_SUCCESS;
}

// RMS_NORM_BACK: y = x*r, r = (mean(x^2) + eps)^-1/2 -> dx = r*dy - x*r^3*sum(x*dy)/n
static enum ggml_status bw_rms_norm_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    float eps;
    memcpy(&eps, dst->op_params, sizeof(float));
    const int64_t n = dst->ne[0];
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const float * dy = bw_row_r(dst->src[0], dst->ne, r);
        const float * x  = bw_row_r(dst->src[1], dst->ne, r);
        float * dx = bw_row_r(dst, dst->ne, r);
        double sxx = 0.0, sxdy = 0.0;
        for (int64_t i = 0; i < n; i++) {
            sxx  += (double) x[i]*x[i];
            sxdy += (double) x[i]*dy[i];
        }
        const double rr = 1.0/sqrt(sxx/(double) n + eps);
        const float fr = (float) rr;
        const float fx = (float) (-rr*rr*rr*sxdy/(double) n);
        for (int64_t i = 0; i < n; i++) {
            dx[i] = fr*dy[i] + fx*x[i];
        }
    }
    return GGML_STATUS_SUCCESS;
}

// SOFT_MAX_BACK: dx = scale * y * (dy - dot(y, dy)); dst may be dy itself (in place)
static enum ggml_status bw_soft_max_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    float scale;
    memcpy(&scale, dst->op_params, sizeof(float));
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const float * dy = bw_row_r(dst->src[0], dst->ne, r);
        const float * y  = bw_row_r(dst->src[1], dst->ne, r);
        float * dx = bw_row_r(dst, dst->ne, r);
        double dot = 0.0;
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            dot += (double) y[i]*dy[i];
        }
        const float fdot = (float) dot;
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            dx[i] = scale*y[i]*(dy[i] - fdot);
        }
    }
    return GGML_STATUS_SUCCESS;
}

// GET_ROWS_BACK: row idx[i] of dst accumulates row i of a; each thread owns a range of dst rows
static enum ggml_status bw_get_rows_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t nc = dst->ne[0];
    int64_t r0, r1;
    ggml_cpu_split_range(dst->ne[1], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        memset((char *) dst->data + r*dst->nb[1], 0, (size_t) nc*sizeof(float));
    }
    for (int64_t i = 0; i < b->ne[0]; i++) {
        const int64_t idx = *(const int32_t *) ((const char *) b->data + i*b->nb[0]);
        if (idx < 0 || idx >= dst->ne[1]) {
            if (params->ith == 0) {
                GGML_LOG_ERROR("%s: node '%s': index %lld at %lld is outside the %lld rows of the result\n",
                        __func__, dst->name, (long long) idx, (long long) i, (long long) dst->ne[1]);
            }
            return GGML_STATUS_FAILED;
        }
        if (idx < r0 || idx >= r1) {
            continue;
        }
        float * y = (float *) ((char *) dst->data + idx*dst->nb[1]);
        const char * x = (const char *) a->data + i*a->nb[1];
        switch (a->type) {
            case GGML_TYPE_F32:
                for (int64_t k = 0; k < nc; k++) {
                    y[k] += ((const float *) x)[k];
                }
                break;
            case GGML_TYPE_F16:
                for (int64_t k = 0; k < nc; k++) {
                    y[k] += ggml_fp16_to_fp32(((const ggml_fp16_t *) x)[k]);
                }
                break;
            case GGML_TYPE_BF16:
                for (int64_t k = 0; k < nc; k++) {
                    y[k] += ggml_bf16_to_fp32(((const ggml_bf16_t *) x)[k]);
                }
                break;
            case GGML_TYPE_I32:
                for (int64_t k = 0; k < nc; k++) {
                    y[k] += (float) ((const int32_t *) x)[k];
                }
                break;
            default: {
                float * tmp = (float *) ((char *) params->wdata + (size_t) params->ith*bw_rows_back_stride(dst));
                ggml_get_type_traits(a->type)->to_float(x, tmp, nc);
                for (int64_t k = 0; k < nc; k++) {
                    y[k] += tmp[k];
                }
                break;
            }
        }
    }
    return GGML_STATUS_SUCCESS;
}

// POOL_2D_BACK: each output gradient goes to the first maximum of its window (MAX) or spreads
// evenly over the window's in-bounds elements, divided by k0*k1 (AVG); planes split between threads
static enum ggml_status bw_pool_2d_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * g  = dst->src[0];
    const struct ggml_tensor * af = dst->src[1];
    const int32_t * p = dst->op_params;
    const bool is_max = p[0] == GGML_OP_POOL_MAX;
    const int k0 = p[1], k1 = p[2], s0 = p[3], s1 = p[4], p0 = p[5], p1 = p[6];
    const int64_t W = dst->ne[0], H = dst->ne[1];
    const int64_t OW = g->ne[0], OH = g->ne[1];
    const float inv_k = 1.0f/(float) (k0*k1);
    int64_t q0, q1;
    ggml_cpu_split_range(dst->ne[2]*dst->ne[3], params->ith, params->nth, &q0, &q1);
    for (int64_t q = q0; q < q1; q++) {
        float * out = (float *) dst->data + q*W*H;
        const float * x = (const float *) af->data + q*W*H;
        const float * gp = (const float *) g->data + q*OW*OH;
        memset(out, 0, (size_t) (W*H)*sizeof(float));
        for (int64_t oy = 0; oy < OH; oy++) {
            for (int64_t ox = 0; ox < OW; ox++) {
                const float d = gp[oy*OW + ox];
                const int64_t ix = ox*s0 - p0, iy = oy*s1 - p1;
                int64_t best = -1;
                float best_v = -INFINITY;
                for (int64_t ky = iy; ky < iy + k1; ky++) {
                    if (ky < 0 || ky >= H) {
                        continue;
                    }
                    for (int64_t kx = ix; kx < ix + k0; kx++) {
                        if (kx < 0 || kx >= W) {
                            continue;
                        }
                        if (!is_max) {
                            out[ky*W + kx] += d*inv_k;
                        } else if (best < 0 || x[ky*W + kx] > best_v) {
                            best = ky*W + kx;
                            best_v = x[best];
                        }
                    }
                }
                if (is_max && best >= 0) {
                    out[best] += d;
                }
            }
        }
    }
    return GGML_STATUS_SUCCESS;
}

// per-thread partial sums in the work buffer, one cache line each
static double * bw_partial(const struct ggml_compute_params * params, int ith) {
    return (double *) ((char *) params->wdata + (size_t) ith*GGML_CPU_CACHE_LINE);
}

// COUNT_EQUAL: number of equal I32 elements, exact in int64
static enum ggml_status bw_count_equal(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(a), params->ith, params->nth, &r0, &r1);
    int64_t count = 0;
    for (int64_t r = r0; r < r1; r++) {
        int64_t i1, i2, i3;
        ggml_vec_row_index(a->ne, r, &i1, &i2, &i3);
        const int32_t * x = (const int32_t *) ((const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3]);
        const int32_t * y = (const int32_t *) ((const char *) b->data + i1*b->nb[1] + i2*b->nb[2] + i3*b->nb[3]);
        for (int64_t i = 0; i < a->ne[0]; i++) {
            count += x[i] == y[i];
        }
    }
    memcpy(bw_partial(params, params->ith), &count, sizeof(count));
    ggml_cpu_barrier(params->threadpool);
    if (params->ith == 0) {
        int64_t total = 0;
        for (int t = 0; t < params->nth; t++) {
            int64_t c;
            memcpy(&c, bw_partial(params, t), sizeof(c));
            total += c;
        }
        *(int64_t *) dst->data = total;
    }
    return GGML_STATUS_SUCCESS;
}

// max and log(sum(exp(x - max))) of a row
static void bw_log_sum_exp(const float * x, int64_t n, float * max, double * log_sum) {
    float m = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        m = x[i] > m ? x[i] : m;
    }
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s += expf(x[i] - m);
    }
    *max = m;
    *log_sum = log(s);
}

// CROSS_ENTROPY_LOSS: -sum over rows of sum(b * log_softmax(a)), divided by the number of rows
static enum ggml_status bw_cross_entropy_loss(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const struct ggml_tensor * a = dst->src[0];
    const struct ggml_tensor * b = dst->src[1];
    const int64_t nrows = ggml_nrows(a);
    int64_t r0, r1;
    ggml_cpu_split_range(nrows, params->ith, params->nth, &r0, &r1);
    double sum = 0.0;
    for (int64_t r = r0; r < r1; r++) {
        const float * x = bw_row_r(a, a->ne, r);
        const float * y = bw_row_r(b, a->ne, r);
        float max;
        double log_sum;
        bw_log_sum_exp(x, a->ne[0], &max, &log_sum);
        for (int64_t i = 0; i < a->ne[0]; i++) {
            sum += (double) y[i]*((double) (x[i] - max) - log_sum);
        }
    }
    *bw_partial(params, params->ith) = sum;
    ggml_cpu_barrier(params->threadpool);
    if (params->ith == 0) {
        double total = 0.0;
        for (int t = 0; t < params->nth; t++) {
            total += *bw_partial(params, t);
        }
        *(float *) dst->data = nrows > 0 ? (float) (-total/(double) nrows) : 0.0f;
    }
    return GGML_STATUS_SUCCESS;
}

// CROSS_ENTROPY_LOSS_BACK: d * (softmax(logits) - labels) / rows
static enum ggml_status bw_cross_entropy_loss_back(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const float d = *(const float *) dst->src[0]->data;
    const float d_rows = d/(float) ggml_nrows(dst);
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const float * x = bw_row_r(dst->src[1], dst->ne, r);
        const float * y = bw_row_r(dst->src[2], dst->ne, r);
        float * dx = bw_row_r(dst, dst->ne, r);
        float max;
        double log_sum;
        bw_log_sum_exp(x, dst->ne[0], &max, &log_sum);
        const float lse = (float) log_sum;
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            dx[i] = (expf(x[i] - max - lse) - y[i])*d_rows;
        }
    }
    return GGML_STATUS_SUCCESS;
}

// OPT_STEP_ADAMW / OPT_STEP_SGD: the parameter (and AdamW's moments) updated in place
static enum ggml_status bw_opt_step(const struct ggml_compute_params * params, struct ggml_tensor * dst) {
    const bool adamw = dst->op == GGML_OP_OPT_STEP_ADAMW;
    const float * p = (const float *) dst->src[adamw ? 4 : 2]->data;
    const float alpha = p[0];
    const float beta1  = adamw ? p[1] : 0.0f;
    const float beta2  = adamw ? p[2] : 0.0f;
    const float eps    = adamw ? p[3] : 0.0f;
    const float wd     = adamw ? p[4] : p[1];
    const float beta1h = adamw ? p[5] : 0.0f;
    const float beta2h = adamw ? p[6] : 0.0f;
    const float keep = 1.0f - alpha*wd;
    int64_t r0, r1;
    ggml_cpu_split_range(ggml_nrows(dst), params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        float * w = bw_row_r(dst->src[0], dst->ne, r);
        const float * g = bw_row_r(dst->src[1], dst->ne, r);
        if (!adamw) {
            for (int64_t i = 0; i < dst->ne[0]; i++) {
                w[i] = w[i]*keep - alpha*g[i];
            }
            continue;
        }
        float * m = bw_row_r(dst->src[2], dst->ne, r);
        float * v = bw_row_r(dst->src[3], dst->ne, r);
        for (int64_t i = 0; i < dst->ne[0]; i++) {
            m[i] = m[i]*beta1 + g[i]*(1.0f - beta1);
            v[i] = v[i]*beta2 + g[i]*g[i]*(1.0f - beta2);
            const float mh = m[i]*beta1h;
            const float vh = sqrtf(v[i]*beta2h) + eps;
            w[i] = w[i]*keep - alpha*mh/vh;
        }
    }
    return GGML_STATUS_SUCCESS;
}

enum ggml_status ggml_cpu_backward_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_REPEAT_BACK:             return bw_repeat_back(params, op);
        case GGML_OP_SILU_BACK:               return bw_silu_back(params, op);
        case GGML_OP_RMS_NORM_BACK:           return bw_rms_norm_back(params, op);
        case GGML_OP_SOFT_MAX_BACK:           return bw_soft_max_back(params, op);
        case GGML_OP_GET_ROWS_BACK:           return bw_get_rows_back(params, op);
        case GGML_OP_COUNT_EQUAL:             return bw_count_equal(params, op);
        case GGML_OP_POOL_2D_BACK:            return bw_pool_2d_back(params, op);
        case GGML_OP_CROSS_ENTROPY_LOSS:      return bw_cross_entropy_loss(params, op);
        case GGML_OP_CROSS_ENTROPY_LOSS_BACK: return bw_cross_entropy_loss_back(params, op);
        case GGML_OP_OPT_STEP_ADAMW:
        case GGML_OP_OPT_STEP_SGD:            return bw_opt_step(params, op);
        default:
            if (params->ith == 0) {
                ggml_cpu_log_unsupported(__func__, -1, op);
            }
            return GGML_STATUS_FAILED;
    }
}
