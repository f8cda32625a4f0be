#pragma once

// Rules about tensors that several layers need, written once. Internal to the library (and its
// in-tree backends and tests); they read tensor fields only and call nothing above the core.

#include "ggml.h"

#include <stdbool.h>
#include <stddef.h>

// The buffer that holds a tensor's data. A view's data lies in the memory of its source (view_src
// is always the tensor that owns the memory, never another view), so the source's buffer wins;
// ggml_backend_view_init copies it into the view, and before that the view's own field is NULL.
// A tensor that is not a view, or a view of a tensor in a context's own memory, answers its own
// field. NULL: the data (if any) is in plain host memory.
static inline struct ggml_backend_buffer * ggml_tensor_data_buffer(const struct ggml_tensor * t) {
    return t->view_src != NULL && t->view_src->buffer != NULL ? t->view_src->buffer : t->buffer;
}

// ops whose result is a view of their first source: no computation, no memory of their own
static inline bool ggml_op_is_view(enum ggml_op op) {
    return op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

// same type, shape and strides: the bytes of one can be copied over the other as they are
static inline bool ggml_tensors_same_layout(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->type == b->type && ggml_are_same_shape(a, b) && ggml_are_same_stride(a, b);
}
