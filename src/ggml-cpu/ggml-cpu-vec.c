// Strided row conversions of the float types (see ggml-cpu-vec.h). The per-level row helpers
// live under arch/ (docs/cpu-kernels.md); ggml_vec_get picks them through cpu-kernels.c.

#include "ggml-cpu-vec.h"
#include "cpu-kernels.h"
#include "ggml-impl.h"

#include <string.h>

const struct ggml_vec_funcs * ggml_vec_get_level(enum ggml_cpu_isa_level level) {
    return ggml_cpu_kernels_level(level)->vec;
}

const struct ggml_vec_funcs * ggml_vec_get(bool use_ref) {
    return ggml_cpu_kernels_get(use_ref)->vec;
}

//
// strided rows
//

void ggml_vec_load_f32(const struct ggml_vec_funcs * vf, enum ggml_type type, const void * x, size_t stride,
        int64_t n, float * y) {
    const char * p = (const char *) x;
    switch (type) {
        case GGML_TYPE_F32:
            if (stride == sizeof(float)) {
                if ((const void *) y != x) {
                    memmove(y, x, (size_t) n*sizeof(float));
                }
            } else {
                for (int64_t i = 0; i < n; i++) {
                    memcpy(&y[i], p + (size_t) i*stride, sizeof(float));
                }
            }
            break;
        case GGML_TYPE_F16:
            if (stride == sizeof(ggml_fp16_t) && (uintptr_t) x % sizeof(ggml_fp16_t) == 0) {
                vf->f16_to_f32(n, y, (const ggml_fp16_t *) x);
            } else {
                for (int64_t i = 0; i < n; i++) {
                    ggml_fp16_t h;
                    memcpy(&h, p + (size_t) i*stride, sizeof(h));
                    y[i] = GGML_FP16_TO_FP32(h);
                }
            }
            break;
        case GGML_TYPE_BF16:
            if (stride == sizeof(ggml_bf16_t) && (uintptr_t) x % sizeof(ggml_bf16_t) == 0) {
                vf->bf16_to_f32(n, y, (const ggml_bf16_t *) x);
            } else {
                for (int64_t i = 0; i < n; i++) {
                    ggml_bf16_t h;
                    memcpy(&h, p + (size_t) i*stride, sizeof(h));
                    y[i] = GGML_BF16_TO_FP32(h);
                }
            }
            break;
        default:
            // not a float type: callers check ggml_vec_is_float_type first
            memset(y, 0, (size_t) n*sizeof(float));
            break;
    }
}

void ggml_vec_store_f32(const struct ggml_vec_funcs * vf, enum ggml_type type, void * y, size_t stride,
        int64_t n, const float * x) {
    char * p = (char *) y;
    switch (type) {
        case GGML_TYPE_F32:
            if (stride == sizeof(float)) {
                if ((const void *) x != y) {
                    memmove(y, x, (size_t) n*sizeof(float));
                }
            } else {
                for (int64_t i = 0; i < n; i++) {
                    memcpy(p + (size_t) i*stride, &x[i], sizeof(float));
                }
            }
            break;
        case GGML_TYPE_F16:
            if (stride == sizeof(ggml_fp16_t) && (uintptr_t) y % sizeof(ggml_fp16_t) == 0) {
                vf->f32_to_f16(n, (ggml_fp16_t *) y, x);
            } else {
                for (int64_t i = 0; i < n; i++) {
                    const ggml_fp16_t h = GGML_FP32_TO_FP16(x[i]);
                    memcpy(p + (size_t) i*stride, &h, sizeof(h));
                }
            }
            break;
        case GGML_TYPE_BF16:
            if (stride == sizeof(ggml_bf16_t) && (uintptr_t) y % sizeof(ggml_bf16_t) == 0) {
                vf->f32_to_bf16(n, (ggml_bf16_t *) y, x);
            } else {
                for (int64_t i = 0; i < n; i++) {
                    const ggml_bf16_t h = GGML_FP32_TO_BF16(x[i]);
                    memcpy(p + (size_t) i*stride, &h, sizeof(h));
                }
            }
            break;
        default:
            break;
    }
}
