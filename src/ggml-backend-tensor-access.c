// Element access for tensors whose data is in host memory.
//
// Part of the backend layer, not of the core: whether a tensor's data may be dereferenced depends
// on its buffer (the family declares these accessors in ggml-cpu.h for the same reason).
//
// Indices are checked: an out-of-range index or a tensor without data logs an error; getters
// then return 0 and setters do nothing.

#include "ggml-impl.h"
#include "ggml-backend.h"
#include "ggml-tensor-helpers.h"

bool ggml_tensor_in_host_memory(const struct ggml_tensor * t) {
    ggml_backend_buffer_t buffer = ggml_tensor_data_buffer(t);
    return buffer == NULL || ggml_backend_buffer_is_host(buffer);
}

static bool ggml_access_type_ok(enum ggml_type type) {
    switch (type) {
        case GGML_TYPE_I8:
        case GGML_TYPE_I16:
        case GGML_TYPE_I32:
        case GGML_TYPE_I64:
        case GGML_TYPE_F16:
        case GGML_TYPE_BF16:
        case GGML_TYPE_F32:
        case GGML_TYPE_F64:
            return true;
        default:
            return false;
    }
}

// address of element (i0, i1, i2, i3), or NULL (logged) when it does not exist
static void * ggml_element_ptr(const struct ggml_tensor * t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, const char * func) {
    if (t == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", func);
        return NULL;
    }
    if (t->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' has no data\n", func, t->name);
        return NULL;
    }
    if (!ggml_tensor_in_host_memory(t)) {
        GGML_LOG_ERROR("%s: tensor '%s' is in a device buffer; use ggml_backend_tensor_get/set\n", func, t->name);
        return NULL;
    }
    if (!ggml_access_type_ok(t->type)) {
        GGML_LOG_ERROR("%s: tensor '%s' has type %s, which has no element access\n", func, t->name, ggml_type_name(t->type));
        return NULL;
    }
    if (i0 < 0 || i0 >= t->ne[0] || i1 < 0 || i1 >= t->ne[1] || i2 < 0 || i2 >= t->ne[2] || i3 < 0 || i3 >= t->ne[3]) {
        GGML_LOG_ERROR("%s: index [%lld, %lld, %lld, %lld] is outside tensor '%s' of shape [%lld, %lld, %lld, %lld]\n",
                func, (long long) i0, (long long) i1, (long long) i2, (long long) i3, t->name,
                (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3]);
        return NULL;
    }
    return (char *) t->data + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3];
}

static double ggml_load_element(enum ggml_type type, const void * p) {
    switch (type) {
        case GGML_TYPE_I8:   return *(const int8_t  *) p;
        case GGML_TYPE_I16:  return *(const int16_t *) p;
        case GGML_TYPE_I32:  return *(const int32_t *) p;
        case GGML_TYPE_I64:  return (double) *(const int64_t *) p;
        case GGML_TYPE_F16:  return GGML_FP16_TO_FP32(*(const ggml_fp16_t *) p);
        case GGML_TYPE_BF16: return GGML_BF16_TO_FP32(*(const ggml_bf16_t *) p);
        case GGML_TYPE_F32:  return *(const float *) p;
        case GGML_TYPE_F64:  return *(const double *) p;
        default:             return 0.0;
    }
}

// integers are stored exactly (not through double) so that large int64 values survive
static void ggml_store_int(enum ggml_type type, void * p, int32_t v) {
    switch (type) {
        case GGML_TYPE_I8:   *(int8_t  *) p = (int8_t)  v; break;
        case GGML_TYPE_I16:  *(int16_t *) p = (int16_t) v; break;
        case GGML_TYPE_I32:  *(int32_t *) p = v; break;
        case GGML_TYPE_I64:  *(int64_t *) p = v; break;
        case GGML_TYPE_F16:  *(ggml_fp16_t *) p = GGML_FP32_TO_FP16((float) v); break;
        case GGML_TYPE_BF16: *(ggml_bf16_t *) p = GGML_FP32_TO_BF16((float) v); break;
        case GGML_TYPE_F32:  *(float  *) p = (float) v; break;
        case GGML_TYPE_F64:  *(double *) p = v; break;
        default: break;
    }
}

static void ggml_store_float(enum ggml_type type, void * p, float v) {
    switch (type) {
        case GGML_TYPE_I8:   *(int8_t  *) p = (int8_t)  v; break;
        case GGML_TYPE_I16:  *(int16_t *) p = (int16_t) v; break;
        case GGML_TYPE_I32:  *(int32_t *) p = (int32_t) v; break;
        case GGML_TYPE_I64:  *(int64_t *) p = (int64_t) v; break;
        case GGML_TYPE_F16:  *(ggml_fp16_t *) p = GGML_FP32_TO_FP16(v); break;
        case GGML_TYPE_BF16: *(ggml_bf16_t *) p = GGML_FP32_TO_BF16(v); break;
        case GGML_TYPE_F32:  *(float  *) p = v; break;
        case GGML_TYPE_F64:  *(double *) p = v; break;
        default: break;
    }
}

static void * ggml_element_ptr_1d(const struct ggml_tensor * t, int i, const char * func) {
    if (t == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", func);
        return NULL;
    }
    if (i < 0 || (int64_t) i >= ggml_nelements(t)) {
        GGML_LOG_ERROR("%s: index %d is outside tensor '%s' of %lld elements\n", func, i, t->name, (long long) ggml_nelements(t));
        return NULL;
    }
    int64_t i0, i1, i2, i3;
    ggml_unravel_index(t, i, &i0, &i1, &i2, &i3);
    return ggml_element_ptr(t, i0, i1, i2, i3, func);
}

int32_t ggml_get_i32_1d(const struct ggml_tensor * tensor, int i) {
    const void * p = ggml_element_ptr_1d(tensor, i, __func__);
    if (p == NULL) {
        return 0;
    }
    if (tensor->type == GGML_TYPE_I64) {
        return (int32_t) *(const int64_t *) p;
    }
    return (int32_t) ggml_load_element(tensor->type, p);
}

void ggml_set_i32_1d(const struct ggml_tensor * tensor, int i, int32_t value) {
    void * p = ggml_element_ptr_1d(tensor, i, __func__);
    if (p != NULL) {
        ggml_store_int(tensor->type, p, value);
    }
}

int32_t ggml_get_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3) {
    const void * p = ggml_element_ptr(tensor, i0, i1, i2, i3, __func__);
    if (p == NULL) {
        return 0;
    }
    if (tensor->type == GGML_TYPE_I64) {
        return (int32_t) *(const int64_t *) p;
    }
    return (int32_t) ggml_load_element(tensor->type, p);
}

void ggml_set_i32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, int32_t value) {
    void * p = ggml_element_ptr(tensor, i0, i1, i2, i3, __func__);
    if (p != NULL) {
        ggml_store_int(tensor->type, p, value);
    }
}

float ggml_get_f32_1d(const struct ggml_tensor * tensor, int i) {
    const void * p = ggml_element_ptr_1d(tensor, i, __func__);
    return p ? (float) ggml_load_element(tensor->type, p) : 0.0f;
}

void ggml_set_f32_1d(const struct ggml_tensor * tensor, int i, float value) {
    void * p = ggml_element_ptr_1d(tensor, i, __func__);
    if (p != NULL) {
        ggml_store_float(tensor->type, p, value);
    }
}

float ggml_get_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3) {
    const void * p = ggml_element_ptr(tensor, i0, i1, i2, i3, __func__);
    return p ? (float) ggml_load_element(tensor->type, p) : 0.0f;
}

void ggml_set_f32_nd(const struct ggml_tensor * tensor, int i0, int i1, int i2, int i3, float value) {
    void * p = ggml_element_ptr(tensor, i0, i1, i2, i3, __func__);
    if (p != NULL) {
        ggml_store_float(tensor->type, p, value);
    }
}

// checks shared by the whole-tensor setters; false (logged) when the tensor cannot be written
static bool ggml_tensor_writable(const struct ggml_tensor * tensor, const char * func) {
    if (tensor == NULL) {
        GGML_LOG_ERROR("%s: tensor is NULL\n", func);
        return false;
    }
    if (tensor->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' has no data\n", func, tensor->name);
        return false;
    }
    if (!ggml_tensor_in_host_memory(tensor)) {
        GGML_LOG_ERROR("%s: tensor '%s' is in a device buffer; use ggml_backend_tensor_memset/set\n", func, tensor->name);
        return false;
    }
    if (!ggml_access_type_ok(tensor->type)) {
        GGML_LOG_ERROR("%s: tensor '%s' has type %s, which has no element access\n", func, tensor->name, ggml_type_name(tensor->type));
        return false;
    }
    return true;
}

#define GGML_FOR_EACH_ELEMENT(t, p, body)                                                      \
    for (int64_t i3 = 0; i3 < (t)->ne[3]; i3++)                                                \
    for (int64_t i2 = 0; i2 < (t)->ne[2]; i2++)                                                \
    for (int64_t i1 = 0; i1 < (t)->ne[1]; i1++)                                                \
    for (int64_t i0 = 0; i0 < (t)->ne[0]; i0++) {                                              \
        void * p = (char *)(t)->data + i0*(t)->nb[0] + i1*(t)->nb[1] + i2*(t)->nb[2] + i3*(t)->nb[3]; \
        body;                                                                                  \
    }

struct ggml_tensor * ggml_set_i32(struct ggml_tensor * tensor, int32_t value) {
    if (ggml_tensor_writable(tensor, __func__)) {
        GGML_FOR_EACH_ELEMENT(tensor, p, ggml_store_int(tensor->type, p, value));
    }
    return tensor;
}

struct ggml_tensor * ggml_set_f32(struct ggml_tensor * tensor, float value) {
    if (ggml_tensor_writable(tensor, __func__)) {
        GGML_FOR_EACH_ELEMENT(tensor, p, ggml_store_float(tensor->type, p, value));
    }
    return tensor;
}

struct ggml_tensor * ggml_set_zero(struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return NULL;
    }
    if (ggml_is_empty(tensor)) {
        return tensor;
    }
    if (tensor->data == NULL) {
        GGML_LOG_ERROR("%s: tensor '%s' has no data\n", __func__, tensor->name);
        return tensor;
    }
    if (!ggml_tensor_in_host_memory(tensor)) {
        GGML_LOG_ERROR("%s: tensor '%s' is in a device buffer; use ggml_backend_tensor_memset\n", __func__, tensor->name);
        return tensor;
    }
    if (ggml_is_contiguous(tensor)) {
        memset(tensor->data, 0, ggml_nbytes(tensor));
    } else {
        const size_t es = ggml_type_size(tensor->type);
        GGML_FOR_EACH_ELEMENT(tensor, p, memset(p, 0, es));
    }
    return tensor;
}

struct ggml_tensor * ggml_new_i32(struct ggml_context * ctx, int32_t value) {
    GGML_CHECK_RET(ctx != NULL, NULL, "ctx is NULL");
    GGML_CHECK_RET(!ctx->no_alloc, NULL, "the context has no_alloc set; the value cannot be stored");
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
    if (result != NULL) {
        ggml_set_i32(result, value);
    }
    return result;
}

struct ggml_tensor * ggml_new_f32(struct ggml_context * ctx, float value) {
    GGML_CHECK_RET(ctx != NULL, NULL, "ctx is NULL");
    GGML_CHECK_RET(!ctx->no_alloc, NULL, "the context has no_alloc set; the value cannot be stored");
    struct ggml_tensor * result = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    if (result != NULL) {
        ggml_set_f32(result, value);
    }
    return result;
}

// One value into every element of t for ggml_graph_reset: host memory (a context's own or a host
// buffer) element by element, a device buffer through its backend (zero: a memset; the loss
// gradient, a scalar F32 as in the family: one float). A tensor not allocated yet is skipped.
static void graph_reset_fill(struct ggml_tensor * t, float value) {
    if (t->data == NULL) {
        return;
    }
    if (ggml_tensor_in_host_memory(t)) {
        if (value == 0.0f) {
            ggml_set_zero(t);
        } else {
            ggml_set_f32(t, value);
        }
    } else if (value == 0.0f) {
        ggml_backend_tensor_memset(t, 0, 0, ggml_nbytes(t));
    } else if (t->type == GGML_TYPE_F32 && ggml_nelements(t) == 1) {
        ggml_backend_tensor_set(t, &value, 0, sizeof(value));
    } else {
        GGML_LOG_ERROR("ggml_graph_reset: '%s' in a device buffer must be a scalar F32 to be set to %g (%s, %lld elements)\n",
                t->name, (double) value, ggml_type_name(t->type), (long long) ggml_nelements(t));
    }
}

// Here rather than with the graph code: gradients and optimizer moments may live in backend buffers.
void ggml_graph_reset(struct ggml_cgraph * cgraph) {
    if (cgraph == NULL || cgraph->grads == NULL) {
        return; // nothing to reset without gradients
    }
    for (int i = 0; i < cgraph->n_nodes; i++) {
        struct ggml_tensor * node = cgraph->nodes[i];
        struct ggml_tensor * grad_acc = ggml_graph_get_grad_acc(cgraph, node);
        if (node->op == GGML_OP_OPT_STEP_ADAMW) {
            for (int j = 2; j <= 3; j++) {
                if (node->src[j] != NULL) {
                    graph_reset_fill(node->src[j], 0.0f); // the moments m and v
                }
            }
        }
        if (grad_acc != NULL) {
            graph_reset_fill(grad_acc, (node->flags & GGML_TENSOR_FLAG_LOSS) ? 1.0f : 0.0f); // d loss / d loss = 1
        }
    }
}
