// OUT_PROD with a quantized src0, as the family computes it for training through quantized
// weights: dst[i0, i1, i2, i3] = sum_k a[i0, k, i2/r2, i3/r3] * b[i1, k, i2, i3], with a
// quantized [M, K, ...] (rows along i0, whole blocks), b F32 [N, K, ...] any strides, dst F32.
//
// Items are (batch, chunk of OP_Q_ROWS result rows i1), pulled with the chunk counter. An item
// zeroes its rows, then for every k dequantizes a's row k once into the thread's scratch and adds
// b[i1, k] times it to each of its rows (the rows stay in cache across k).

#include "cpu-ops-outprod-quant.h"
#include "cpu-kernels.h"

#include <string.h>

#define OP_Q_ROWS 32

bool ggml_cpu_out_prod_q_applies(const struct ggml_tensor * op) {
    return op != NULL && op->op == GGML_OP_OUT_PROD && op->src[0] != NULL && op->src[1] != NULL &&
           ggml_is_quantized(op->src[0]->type);
}

bool ggml_cpu_out_prod_q_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    if ((int) a->type < 0 || a->type >= GGML_TYPE_COUNT || ggml_get_type_traits(a->type)->to_float == NULL ||
        b->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32) {
        return false;
    }
    if (ggml_blck_size(a->type) <= 0 || a->ne[0] % ggml_blck_size(a->type) != 0 || a->nb[0] != ggml_type_size(a->type) ||
        op->nb[0] != sizeof(float)) {
        return false;
    }
    if (a->ne[2] <= 0 || a->ne[3] <= 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0) {
        return false;
    }
    return a->ne[1] == b->ne[1] && op->ne[0] == a->ne[0] && op->ne[1] == b->ne[0] && op->ne[2] == b->ne[2] &&
           op->ne[3] == b->ne[3];
}

static size_t op_q_scratch(const struct ggml_tensor * op) {
    return GGML_PAD((size_t) op->src[0]->ne[0]*sizeof(float), GGML_CPU_CACHE_LINE);
}

size_t ggml_cpu_out_prod_q_work_size(const struct ggml_tensor * op, int n_threads) {
    return op_q_scratch(op)*(size_t) (n_threads > 0 ? n_threads : 1);
}

static int64_t op_q_n_items(const struct ggml_tensor * op) {
    return (op->ne[1] + OP_Q_ROWS - 1)/OP_Q_ROWS*op->ne[2]*op->ne[3];
}

int ggml_cpu_out_prod_q_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const double macs = (double) op->src[0]->ne[1]*(double) ggml_nelements(op);
    const int64_t items = op_q_n_items(op);
    if (macs < 64.0*1024.0 || items < 2) {
        return 1;
    }
    return (int) (items < n_threads ? items : n_threads);
}

enum ggml_status ggml_cpu_out_prod_q_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    if (!ggml_cpu_out_prod_q_supports(op)) {
        GGML_LOG_ERROR("%s: %s of %s x %s into %s is not supported\n", __func__, ggml_op_desc(op),
                       ggml_type_name(op->src[0]->type), ggml_type_name(op->src[1]->type), ggml_type_name(op->type));
        return GGML_STATUS_FAILED;
    }
    const struct ggml_tensor * a = op->src[0];
    const struct ggml_tensor * b = op->src[1];
    const size_t per_thread = op_q_scratch(op);
    if (params->wdata == NULL || per_thread*(size_t) params->nth > params->wsize) {
        GGML_LOG_ERROR("%s: node '%s': work buffer too small\n", __func__, op->name);
        return GGML_STATUS_FAILED;
    }
    float * row = (float *) (void *) ((char *) params->wdata + per_thread*(size_t) params->ith);
    const struct ggml_vec_funcs * vf = ggml_cpu_kernels_get(params->use_ref)->vec;
    const ggml_to_float_t to_float = ggml_get_type_traits(a->type)->to_float;
    const int64_t M = op->ne[0], N = op->ne[1], K = a->ne[1];
    const int64_t r2 = b->ne[2]/a->ne[2], r3 = b->ne[3]/a->ne[3];
    const int64_t chunks = (N + OP_Q_ROWS - 1)/OP_Q_ROWS;
    const int64_t items = op_q_n_items(op);
    for (int64_t it = ggml_cpu_chunk_next(params->threadpool); it < items; it = ggml_cpu_chunk_next(params->threadpool)) {
        const int64_t batch = it / chunks, i2 = batch % op->ne[2], i3 = batch / op->ne[2];
        const int64_t n0 = (it % chunks)*OP_Q_ROWS, n1 = n0 + OP_Q_ROWS < N ? n0 + OP_Q_ROWS : N;
        char * dst = (char *) op->data + i2*op->nb[2] + i3*op->nb[3];
        for (int64_t n = n0; n < n1; n++) {
            memset(dst + n*op->nb[1], 0, (size_t) M*sizeof(float));
        }
        const char * arow = (const char *) a->data + (i2/r2)*a->nb[2] + (i3/r3)*a->nb[3];
        const char * bmat = (const char *) b->data + i2*b->nb[2] + i3*b->nb[3];
        for (int64_t k = 0; k < K; k++) {
            to_float(arow + k*a->nb[1], row, M);
            for (int64_t n = n0; n < n1; n++) {
                float w;
                memcpy(&w, bmat + n*b->nb[0] + k*b->nb[1], sizeof(w));
                vf->mad_f32(M, (float *) (void *) (dst + n*op->nb[1]), row, w);
            }
        }
    }
    return GGML_STATUS_SUCCESS;
}
