// CPU kernels of the norm family: NORM, RMS_NORM, L2_NORM, GROUP_NORM, SOFT_MAX, DIAG_MASK_INF,
// DIAG_MASK_ZERO, for F32, F16 and BF16 rows (the result has the source's type; arithmetic in
// float). Semantics as docs/op-params.md and tests/ref (ref-norm.c, ref-softmax.c, ref-shape.c).
//
// Rows are read through nb1..nb3 (any layout). F32 rows with adjacent elements are used in place;
// other rows (F16/BF16, or nb0 != sizeof(float)) go through a per-thread scratch row. Work is
// split across threads by rows (GROUP_NORM: by (group, i3) pairs).

#include "cpu-ops-nn.h"
#include "cpu-ops-fused.h"

#include <math.h>
#include <string.h>

// per-thread scratch: two rows of ne0 floats, each rounded up to a cache line
static size_t norm_row_bytes(int64_t ne0) {
    return GGML_PAD((size_t) ne0*sizeof(float), GGML_CPU_CACHE_LINE);
}


// a float type, the result of the same type and shape
static bool norm_same_shape_float(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    return a != NULL && ggml_vec_is_float_type(a->type) && op->type == a->type && ggml_are_same_shape(a, op);
}

// whether rows of t can be used as float arrays in place
static bool norm_direct(const struct ggml_tensor * t) {
    return t->type == GGML_TYPE_F32 && t->nb[0] == sizeof(float);
}

static bool norm_softmax_supports(const struct ggml_tensor * op) {
    if (!norm_same_shape_float(op)) {
        return false;
    }
    const struct ggml_tensor * a     = op->src[0];
    const struct ggml_tensor * mask  = op->src[1];
    const struct ggml_tensor * sinks = op->src[2];
    if (mask != NULL) {
        if ((mask->type != GGML_TYPE_F32 && mask->type != GGML_TYPE_F16) || mask->nb[0] != ggml_type_size(mask->type)) {
            return false;
        }
        if (mask->ne[0] != a->ne[0] || mask->ne[1] < a->ne[1] || mask->ne[2] <= 0 || mask->ne[3] <= 0 ||
            a->ne[2] % mask->ne[2] != 0 || a->ne[3] % mask->ne[3] != 0) {
            return false;
        }
    }
    if (sinks != NULL) {
        if (sinks->type != GGML_TYPE_F32 || !ggml_is_contiguous(sinks) || ggml_nelements(sinks) < a->ne[2]) {
            return false;
        }
    }
    return true;
}

bool ggml_cpu_norm_supports(const struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            return norm_same_shape_float(op);
        case GGML_OP_GROUP_NORM:
            return norm_same_shape_float(op) && ggml_get_op_params_i32(op, 0) >= 1;
        case GGML_OP_SOFT_MAX:
            return norm_softmax_supports(op);
        default:
            return false;
    }
}

size_t ggml_cpu_norm_work_size(const struct ggml_tensor * op, int n_threads) {
    switch (op->op) {
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            return 0;
        default:
            return 2*norm_row_bytes(op->src[0]->ne[0])*(size_t) n_threads;
    }
}

static int64_t norm_n_items(const struct ggml_tensor * op) {
    if (op->op == GGML_OP_GROUP_NORM) {
        const int64_t n_groups = ggml_get_op_params_i32(op, 0);
        return n_groups*op->ne[3];
    }
    return op->ne[1]*op->ne[2]*op->ne[3];
}

int ggml_cpu_norm_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const int64_t n = norm_n_items(op);
    return n < 1 ? 1 : (n < n_threads ? (int) n : n_threads);
}

// scratch rows of thread ith
static float * norm_scratch(const struct ggml_compute_params * params, int64_t ne0, int k) {
    const size_t rb = norm_row_bytes(ne0);
    return (float *) ((char *) params->wdata + (2*(size_t) params->ith + (size_t) k)*rb);
}

//
// NORM, RMS_NORM, L2_NORM
//

static void norm_rows(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const nn_vf   vf  = ggml_vec_get(params->use_ref);
    const float   eps = ggml_get_op_params_f32(op, 0);
    const int64_t n   = a->ne[0];
    if (n == 0) {
        return;
    }
    const bool a_contig = norm_direct(a);
    const bool d_contig = norm_direct(op);
    float * tmp = norm_scratch(params, n, 0);

    int64_t r0, r1;
    ggml_cpu_split_range(a->ne[1]*a->ne[2]*a->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i1 = r % a->ne[1];
        const int64_t i2 = (r / a->ne[1]) % a->ne[2];
        const int64_t i3 = r / (a->ne[1]*a->ne[2]);
        const char * src = (const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3];
        char       * dst = (char *) op->data + i1*op->nb[1] + i2*op->nb[2] + i3*op->nb[3];

        const float * x = (const float *) src;
        if (!a_contig) {
            ggml_vec_load_f32(vf, a->type, src, a->nb[0], n, tmp);
            x = tmp;
        }
        float * y = d_contig ? (float *) dst : tmp;

        double scale;
        switch (op->op) {
            case GGML_OP_NORM: {
                // centre first (into y), then the variance of the centred row
                const float mean = (float) (vf->sum_f32(n, x) / (double) n);
                vf->scale_f32(n, y, x, 1.0f, -mean);
                const double var = vf->sumsq_f32(n, y) / (double) n;
                scale = 1.0/sqrt(var + eps);
                x = y;
            } break;
            case GGML_OP_RMS_NORM:
                scale = 1.0/sqrt(vf->sumsq_f32(n, x) / (double) n + eps);
                break;
            default: { // L2_NORM
                const double norm = sqrt(vf->sumsq_f32(n, x));
                scale = 1.0/(norm > eps ? norm : (double) eps);
            } break;
        }
        vf->scale_f32(n, y, x, (float) scale, 0.0f);
        if (!d_contig) {
            ggml_vec_store_f32(vf, op->type, dst, op->nb[0], n, y);
        }
    }
}

//
// RMS_NORM then MUL by a broadcast weight, fused (cpu-ops-fused.h)
//

bool ggml_cpu_fused_rms_norm_mul_applies(const struct ggml_tensor * norm, const struct ggml_tensor * mul) {
    if (norm->op != GGML_OP_RMS_NORM || mul->op != GGML_OP_MUL || mul->src[0] != norm || mul->src[1] == norm) {
        return false;
    }
    const struct ggml_tensor * a = norm->src[0];
    const struct ggml_tensor * w = mul->src[1];
    if (a == NULL || w == NULL || !norm_direct(a) || !norm_direct(norm) || !norm_direct(mul) || !norm_direct(w) ||
        a->type != GGML_TYPE_F32 || norm->type != GGML_TYPE_F32 || !ggml_are_same_shape(a, norm) ||
        mul->type != GGML_TYPE_F32 || !ggml_are_same_shape(mul, norm) || w->ne[0] != norm->ne[0]) {
        return false;
    }
    for (int k = 1; k < GGML_MAX_DIMS; k++) {
        if (w->ne[k] <= 0 || norm->ne[k] % w->ne[k] != 0) {
            return false;
        }
    }
    return true;
}

void ggml_cpu_fused_rms_norm_mul_forward(const struct ggml_compute_params * params, struct ggml_tensor * norm,
                                         struct ggml_tensor * mul) {
    const struct ggml_tensor * a = norm->src[0];
    const struct ggml_tensor * w = mul->src[1];
    const nn_vf   vf  = ggml_vec_get(params->use_ref);
    const float   eps = ggml_get_op_params_f32(norm, 0);
    const int64_t n   = a->ne[0];
    if (n == 0) {
        return;
    }
    int64_t r0, r1;
    ggml_cpu_split_range(a->ne[1]*a->ne[2]*a->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i1 = r % a->ne[1];
        const int64_t i2 = (r / a->ne[1]) % a->ne[2];
        const int64_t i3 = r / (a->ne[1]*a->ne[2]);
        const float * x = (const float *) (const void *) ((const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3]);
        float * y = (float *) (void *) ((char *) norm->data + i1*norm->nb[1] + i2*norm->nb[2] + i3*norm->nb[3]);
        float * z = (float *) (void *) ((char *) mul->data + i1*mul->nb[1] + i2*mul->nb[2] + i3*mul->nb[3]);
        const float * wr = (const float *) (const void *) ((const char *) w->data + (i1 % w->ne[1])*w->nb[1] +
                                                           (i2 % w->ne[2])*w->nb[2] + (i3 % w->ne[3])*w->nb[3]);
        // as norm_rows and the binary MUL compute them
        const double scale = 1.0/sqrt(vf->sumsq_f32(n, x) / (double) n + eps);
        vf->scale_f32(n, y, x, (float) scale, 0.0f);
        vf->mul_f32(n, z, y, wr);
    }
}

//
// GROUP_NORM: channels (dim 2) in groups of ceil(C/n_groups); one work item per (group, i3)
//

// calls of the three passes over the elements of one group
enum group_pass { GROUP_SUM, GROUP_VAR, GROUP_WRITE };

static double group_pass(nn_vf vf, const struct ggml_tensor * a, struct ggml_tensor * op, float * tmp,
        int64_t c0, int64_t c1, int64_t i3, enum group_pass pass, float mean, float scale) {
    const int64_t n = a->ne[0];
    const bool a_contig = norm_direct(a);
    const bool d_contig = norm_direct(op);
    double acc = 0.0;
    for (int64_t i2 = c0; i2 < c1; i2++) {
        for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
            const char * src = (const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3];
            const float * x = (const float *) src;
            if (!a_contig) {
                ggml_vec_load_f32(vf, a->type, src, a->nb[0], n, tmp);
                x = tmp;
            }
            switch (pass) {
                case GROUP_SUM:
                    acc += vf->sum_f32(n, x);
                    break;
                case GROUP_VAR:
                    vf->scale_f32(n, tmp, x, 1.0f, -mean);
                    acc += vf->sumsq_f32(n, tmp);
                    break;
                case GROUP_WRITE: {
                    char * dst = (char *) op->data + i1*op->nb[1] + i2*op->nb[2] + i3*op->nb[3];
                    float * y = d_contig ? (float *) dst : tmp;
                    vf->scale_f32(n, y, x, 1.0f, -mean);
                    vf->scale_f32(n, y, y, scale, 0.0f);
                    if (!d_contig) {
                        ggml_vec_store_f32(vf, op->type, dst, op->nb[0], n, y);
                    }
                } break;
            }
        }
    }
    return acc;
}

static void norm_group(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const nn_vf   vf       = ggml_vec_get(params->use_ref);
    const int64_t n_groups = ggml_get_op_params_i32(op, 0);
    const float   eps      = ggml_get_op_params_f32(op, 1);
    const int64_t C        = a->ne[2];
    const int64_t per      = (C + n_groups - 1) / n_groups;
    float * tmp = norm_scratch(params, a->ne[0], 0);

    int64_t w0, w1;
    ggml_cpu_split_range(n_groups*a->ne[3], params->ith, params->nth, &w0, &w1);
    for (int64_t w = w0; w < w1; w++) {
        const int64_t g  = w % n_groups;
        const int64_t i3 = w / n_groups;
        const int64_t c0 = g*per;
        const int64_t c1 = c0 + per < C ? c0 + per : C;
        if (c0 >= c1) {
            continue;
        }
        const double count = (double) (a->ne[0]*a->ne[1]*(c1 - c0));
        if (count == 0.0) {
            continue;
        }
        const float mean = (float) (group_pass(vf, a, op, tmp, c0, c1, i3, GROUP_SUM, 0.0f, 0.0f) / count);
        const double var = group_pass(vf, a, op, tmp, c0, c1, i3, GROUP_VAR, mean, 0.0f) / count;
        group_pass(vf, a, op, tmp, c0, c1, i3, GROUP_WRITE, mean, (float) (1.0/sqrt(var + eps)));
    }
}

//
// SOFT_MAX: w = a*scale + slope(head)*mask; result = e^w / (sum e^w + e^sink)
//

static void norm_soft_max(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a     = op->src[0];
    const struct ggml_tensor * mask  = op->src[1];
    const struct ggml_tensor * sinks = op->src[2];
    const nn_vf   vf       = ggml_vec_get(params->use_ref);
    const float   scale    = ggml_get_op_params_f32(op, 0);
    const float   max_bias = ggml_get_op_params_f32(op, 1);
    const int64_t n        = a->ne[0];
    if (n == 0) {
        return;
    }
    const bool a_contig = norm_direct(a);
    const bool d_contig = norm_direct(op);
    float * tmp  = norm_scratch(params, n, 0);
    float * mtmp = norm_scratch(params, n, 1);

    int64_t r0, r1;
    ggml_cpu_split_range(a->ne[1]*a->ne[2]*a->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i1 = r % a->ne[1];
        const int64_t i2 = (r / a->ne[1]) % a->ne[2];
        const int64_t i3 = r / (a->ne[1]*a->ne[2]);
        const char * src = (const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3];
        char       * dst = (char *) op->data + i1*op->nb[1] + i2*op->nb[2] + i3*op->nb[3];

        const float * x = (const float *) src;
        float       * y = d_contig ? (float *) dst : tmp;
        if (!a_contig) {
            ggml_vec_load_f32(vf, a->type, src, a->nb[0], n, y);
            x = y;
        }

        const float * m = NULL;
        float slope = 1.0f;
        if (mask != NULL) {
            const char * mrow = (const char *) mask->data + i1*mask->nb[1] + (i2 % mask->ne[2])*mask->nb[2] +
                                (i3 % mask->ne[3])*mask->nb[3];
            if (mask->type == GGML_TYPE_F16) {
                ggml_vec_load_f32(vf, GGML_TYPE_F16, mrow, sizeof(ggml_fp16_t), n, mtmp);
                m = mtmp;
            } else {
                m = (const float *) mrow;
            }
            slope = nn_alibi_slope(max_bias, a->ne[2], i2);
        }
        vf->scale_f32(n, y, x, scale, 0.0f);
        if (m != NULL) {
            vf->mad_f32(n, y, m, slope);
        }

        float mx = vf->max_f32(n, y);
        float sink = -INFINITY;
        if (sinks != NULL) {
            sink = ((const float *) sinks->data)[i2];
            mx = sink > mx ? sink : mx;
        }
        double sum = vf->soft_max_f32(n, y, y, mx);
        if (sinks != NULL) {
            sum += exp((double) sink - mx);
        }
        vf->scale_f32(n, y, y, (float) (1.0/sum), 0.0f);
        if (!d_contig) {
            ggml_vec_store_f32(vf, op->type, dst, op->nb[0], n, y);
        }
    }
}

//
// DIAG_MASK_INF / DIAG_MASK_ZERO: element (i0, i1) with i0 > n_past + i1 replaced
//

static void norm_diag_mask(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const int64_t n_past = ggml_get_op_params_i32(op, 0);
    const int64_t n      = a->ne[0];
    const size_t  es     = ggml_type_size(op->type);
    // the replacement value in the result's type
    unsigned char value[sizeof(float)];
    const float fv = op->op == GGML_OP_DIAG_MASK_INF ? -INFINITY : 0.0f;
    switch (op->type) {
        case GGML_TYPE_F16: { const ggml_fp16_t h = GGML_FP32_TO_FP16(fv); memcpy(value, &h, sizeof(h)); } break;
        case GGML_TYPE_BF16: { const ggml_bf16_t h = GGML_FP32_TO_BF16(fv); memcpy(value, &h, sizeof(h)); } break;
        default: memcpy(value, &fv, sizeof(fv)); break;
    }

    int64_t r0, r1;
    ggml_cpu_split_range(a->ne[1]*a->ne[2]*a->ne[3], params->ith, params->nth, &r0, &r1);
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i1 = r % a->ne[1];
        const int64_t i2 = (r / a->ne[1]) % a->ne[2];
        const int64_t i3 = r / (a->ne[1]*a->ne[2]);
        const char * src = (const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3];
        char       * dst = (char *) op->data + i1*op->nb[1] + i2*op->nb[2] + i3*op->nb[3];
        // elements [0, keep) are copied (same type: bit for bit), the rest replaced
        int64_t keep = n_past + i1 + 1;
        keep = keep < 0 ? 0 : (keep > n ? n : keep);
        ggml_vec_copy_elems(dst, op->nb[0], src, a->nb[0], keep, es);
        for (int64_t i0 = keep; i0 < n; i0++) {
            memcpy(dst + i0*op->nb[0], value, es);
        }
    }
}

enum ggml_status ggml_cpu_norm_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    switch (op->op) {
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
        case GGML_OP_L2_NORM:
            norm_rows(params, op);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_GROUP_NORM:
            norm_group(params, op);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_SOFT_MAX:
            norm_soft_max(params, op);
            return GGML_STATUS_SUCCESS;
        case GGML_OP_DIAG_MASK_INF:
        case GGML_OP_DIAG_MASK_ZERO:
            norm_diag_mask(params, op);
            return GGML_STATUS_SUCCESS;
        default:
            GGML_LOG_ERROR("%s: op %s does not belong to the norm family\n", __func__, ggml_op_desc(op));
            return GGML_STATUS_FAILED;
    }
}
