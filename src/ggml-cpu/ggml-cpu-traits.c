// ggml_get_type_traits_cpu and the row conversions the family's ggml-cpu.h adds to ggml.h's.
//
// The traits are built once per process (pthread_once) from the kernel table of the level in use:
// vec_dot and vec_dot_type from the type's quant slot, from_float from the activation slot's
// quantizer where the level has one, else the type's reference quantizer (ggml_get_type_traits).

#include "ggml-cpu-impl.h"
#include "cpu-kernels.h"

#include <pthread.h>
#include <string.h>

void ggml_cpu_fp32_to_fp32(const float * x, float * y, int64_t n) {
    if (n > 0 && x != y) {
        memmove(y, x, (size_t) n*sizeof(float));
    }
}

void ggml_cpu_fp32_to_i32(const float * x, int32_t * y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = (int32_t) x[i];
    }
}

static void vec_dot_f32(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx,
                        const void * GGML_RESTRICT y, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const float * a = x;
    const float * b = y;
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) a[i]*(double) b[i];
    }
    *s = (float) sum;
}

static void vec_dot_f16(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx,
                        const void * GGML_RESTRICT y, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const ggml_fp16_t * a = x;
    const ggml_fp16_t * b = y;
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) GGML_FP16_TO_FP32(a[i])*(double) GGML_FP16_TO_FP32(b[i]);
    }
    *s = (float) sum;
}

static void vec_dot_bf16(int n, float * GGML_RESTRICT s, size_t bs, const void * GGML_RESTRICT x, size_t bx,
                         const void * GGML_RESTRICT y, size_t by, int nrc) {
    (void) bs; (void) bx; (void) by; (void) nrc;
    const ggml_bf16_t * a = x;
    const ggml_bf16_t * b = y;
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) ggml_bf16_to_fp32(a[i])*(double) ggml_bf16_to_fp32(b[i]);
    }
    *s = (float) sum;
}

static void from_float_f16 (const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { ggml_fp32_to_fp16_row(x, y, k); }
static void from_float_bf16(const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { ggml_fp32_to_bf16_row(x, y, k); }
static void from_float_f32 (const float * GGML_RESTRICT x, void * GGML_RESTRICT y, int64_t k) { ggml_cpu_fp32_to_fp32(x, y, k); }

static struct ggml_type_traits_cpu g_traits[GGML_TYPE_COUNT + 1]; // the last entry: empty traits
static pthread_once_t              g_traits_once = PTHREAD_ONCE_INIT;

static void traits_build(void) {
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(false);
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        struct ggml_type_traits_cpu * tr = &g_traits[t];
        tr->nrows = 1;
        tr->vec_dot_type = (enum ggml_type) t;
        const struct ggml_type_traits * base = ggml_get_type_traits((enum ggml_type) t);
        if (base != NULL && base->from_float_ref != NULL) {
            tr->from_float = base->from_float_ref;
        }
        if (kt->quant[t].from_float != NULL) {
            tr->from_float = kt->quant[t].from_float;
        }
        if (kt->quant[t].vec_dot != NULL) {
            tr->vec_dot      = kt->quant[t].vec_dot;
            tr->vec_dot_type = kt->quant[t].vec_dot_type;
        }
    }
    g_traits[GGML_TYPE_F32].from_float  = from_float_f32;
    g_traits[GGML_TYPE_F32].vec_dot     = vec_dot_f32;
    g_traits[GGML_TYPE_F16].from_float  = from_float_f16;
    g_traits[GGML_TYPE_F16].vec_dot     = vec_dot_f16;
    g_traits[GGML_TYPE_BF16].from_float = from_float_bf16;
    g_traits[GGML_TYPE_BF16].vec_dot    = vec_dot_bf16;
    g_traits[GGML_TYPE_COUNT].vec_dot_type = GGML_TYPE_COUNT;
}

const struct ggml_type_traits_cpu * ggml_get_type_traits_cpu(enum ggml_type type) {
    pthread_once(&g_traits_once, traits_build);
    if ((int) type < 0 || type >= GGML_TYPE_COUNT) {
        GGML_LOG_ERROR("%s: invalid type %d\n", __func__, (int) type);
        return &g_traits[GGML_TYPE_COUNT];
    }
    return &g_traits[type];
}
