// Questions about a tensor's shape and layout. All accept NULL (answering 0 / false).

#include "ggml-impl.h"

int64_t ggml_nelements(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return 0;
    }
    return tensor->ne[0]*tensor->ne[1]*tensor->ne[2]*tensor->ne[3];
}

int64_t ggml_nrows(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return 0;
    }
    return tensor->ne[1]*tensor->ne[2]*tensor->ne[3];
}

size_t ggml_nbytes(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return 0;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] <= 0) {
            return 0;
        }
    }
    // the distance from the first byte to one past the last byte the strides address
    const int64_t blck = ggml_blck_size(tensor->type);
    if (blck <= 0) {
        return 0;
    }
    size_t nbytes;
    if (blck == 1) {
        nbytes = ggml_type_size(tensor->type);
        for (int i = 0; i < GGML_MAX_DIMS; i++) {
            nbytes += (size_t)(tensor->ne[i] - 1)*tensor->nb[i];
        }
    } else {
        nbytes = (size_t)(tensor->ne[0]/blck)*tensor->nb[0];
        for (int i = 1; i < GGML_MAX_DIMS; i++) {
            nbytes += (size_t)(tensor->ne[i] - 1)*tensor->nb[i];
        }
    }
    return nbytes;
}

size_t ggml_nbytes_pad(const struct ggml_tensor * tensor) {
    return GGML_PAD(ggml_nbytes(tensor), GGML_MEM_ALIGN);
}

size_t ggml_element_size(const struct ggml_tensor * tensor) {
    return tensor ? ggml_type_size(tensor->type) : 0;
}

bool ggml_is_transposed(const struct ggml_tensor * tensor) {
    return tensor != NULL && tensor->nb[0] > tensor->nb[1];
}

bool ggml_is_permuted(const struct ggml_tensor * tensor) {
    return tensor != NULL &&
        (tensor->nb[0] > tensor->nb[1] || tensor->nb[1] > tensor->nb[2] || tensor->nb[2] > tensor->nb[3]);
}

bool ggml_is_empty(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return true;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] == 0) {
            return true;
        }
    }
    return false;
}

bool ggml_is_scalar(const struct ggml_tensor * tensor) {
    return tensor != NULL && tensor->ne[0] == 1 && tensor->ne[1] == 1 && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_vector(const struct ggml_tensor * tensor) {
    return tensor != NULL && tensor->ne[1] == 1 && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_matrix(const struct ggml_tensor * tensor) {
    return tensor != NULL && tensor->ne[2] == 1 && tensor->ne[3] == 1;
}

bool ggml_is_3d(const struct ggml_tensor * tensor) {
    return tensor != NULL && tensor->ne[3] == 1;
}

int ggml_n_dims(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return 0;
    }
    for (int i = GGML_MAX_DIMS - 1; i >= 1; --i) {
        if (tensor->ne[i] > 1) {
            return i + 1;
        }
    }
    return 1;
}

// Contiguous in memory for dimensions above n: dimensions 1..n may have gaps between them.
static bool ggml_is_contiguous_n(const struct ggml_tensor * tensor, int n) {
    if (tensor == NULL) {
        return false;
    }
    const int64_t blck = ggml_blck_size(tensor->type);
    size_t next_nb = ggml_type_size(tensor->type);
    if (blck <= 0) {
        return false;
    }
    if (tensor->ne[0] != blck && tensor->nb[0] != next_nb) {
        return false;
    }
    next_nb *= (size_t)(tensor->ne[0]/blck);
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (tensor->ne[i] == 1) {
            continue; // a dimension of size one has no stride to check
        }
        if (i > n) {
            if (tensor->nb[i] != next_nb) {
                return false;
            }
            next_nb *= (size_t) tensor->ne[i];
        } else {
            next_nb = (size_t) tensor->ne[i]*tensor->nb[i];
        }
    }
    return true;
}

bool ggml_is_contiguous(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_n(tensor, 0);
}

bool ggml_is_contiguous_0(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_n(tensor, 0);
}

bool ggml_is_contiguous_1(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_n(tensor, 1);
}

bool ggml_is_contiguous_2(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_n(tensor, 2);
}

// Contiguous in memory for the dimensions below n; dimensions n.. may have any strides.
static bool ggml_is_contiguous_below(const struct ggml_tensor * tensor, int n) {
    if (tensor == NULL) {
        return false;
    }
    const int64_t blck = ggml_blck_size(tensor->type);
    size_t next_nb = ggml_type_size(tensor->type);
    if (blck <= 0 || (tensor->ne[0] != blck && tensor->nb[0] != next_nb)) {
        return false;
    }
    next_nb *= (size_t)(tensor->ne[0]/blck);
    for (int i = 1; i < n; i++) {
        if (tensor->ne[i] != 1 && tensor->nb[i] != next_nb) {
            return false;
        }
        next_nb *= (size_t) tensor->ne[i];
    }
    return true;
}

bool ggml_is_contiguous_to_1(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_below(tensor, 1);
}

bool ggml_is_contiguous_to_2(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_below(tensor, 2);
}

bool ggml_is_contiguous_to_3(const struct ggml_tensor * tensor) {
    return ggml_is_contiguous_below(tensor, 3);
}

bool ggml_is_view(const struct ggml_tensor * tensor) {
    return tensor != NULL && tensor->view_src != NULL;
}

bool ggml_is_contiguously_allocated(const struct ggml_tensor * tensor) {
    if (tensor == NULL) {
        return false;
    }
    const int64_t blck = ggml_blck_size(tensor->type);
    if (blck <= 0) {
        return false;
    }
    return ggml_nbytes(tensor) == (size_t)(ggml_nelements(tensor)/blck)*ggml_type_size(tensor->type);
}

bool ggml_is_contiguous_channels(const struct ggml_tensor * tensor) {
    return tensor != NULL &&
        tensor->nb[0] > tensor->nb[2] &&
        tensor->nb[1] > tensor->nb[0] &&
        tensor->nb[2] == ggml_type_size(tensor->type);
}

bool ggml_is_contiguous_rows(const struct ggml_tensor * tensor) {
    return tensor != NULL &&
        (tensor->ne[0] == ggml_blck_size(tensor->type) || tensor->nb[0] == ggml_type_size(tensor->type));
}

bool ggml_are_same_shape(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    if (t0 == NULL || t1 == NULL) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t0->ne[i] != t1->ne[i]) {
            return false;
        }
    }
    return true;
}

bool ggml_are_same_stride(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    if (t0 == NULL || t1 == NULL) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t0->nb[i] != t1->nb[i]) {
            return false;
        }
    }
    return true;
}

// true when t0 can be repeated (broadcast) to the shape of t1
bool ggml_can_repeat(const struct ggml_tensor * t0, const struct ggml_tensor * t1) {
    if (t0 == NULL || t1 == NULL) {
        return false;
    }
    if (ggml_is_empty(t0)) {
        return ggml_is_empty(t1);
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t1->ne[i] % t0->ne[i] != 0) {
            return false;
        }
    }
    return true;
}
