// Reference: issue 22's "misc" group: CUMSUM, TRI, FILL, DIAG, ROLL, PAD_REFLECT_1D,
// TIMESTEP_EMBEDDING (circular PAD is in ref-shape.c with PAD).
//   CUMSUM              out[i0] = sum over j <= i0 of a[j] (each row of dim 0)
//   TRI                 i32[0] = enum ggml_tri_type; a where the triangle holds (i0 >= i1 for
//                       UPPER_DIAG, > for UPPER, <= for LOWER_DIAG, < for LOWER), else 0
//   FILL                f32[0] = the value of every element
//   DIAG                out[i0, i1, i2, i3] = a[i0, 0, i2, i3] when i0 == i1, else 0
//   ROLL                i32[0..3] = shifts; out[i] = a[(i - shift) mod ne] in every dim
//   PAD_REFLECT_1D      i32[0], i32[1] = left, right padding; out[i0] = a[reflect(i0 - p0)]
//                       with reflect(j) = -j below 0 and 2*(n-1) - j past n-1
//   TIMESTEP_EMBEDDING  i32[0] = dim, i32[1] = max_period; row i: cos(t_i*f_j) at j, sin(t_i*f_j)
//                       at j + dim/2 for j < dim/2, f_j = max_period^(-j/(dim/2)); 0 at dim-1
//                       when dim is odd
//   POOL_1D             i32[0..3] = op, k0, s0, p0; out[o] = max or mean of a[o*s0 - p0 + k] over the
//                       k < k0 inside [0, ne0) (the family's CPU rule; -FLT_MAX / 0 for none)

#define GGML_REF_INTERNAL
#include "ggml-ref.h"

#include <float.h>
#include <math.h>

static int64_t ref_mod(int64_t i, int64_t n) {
    const int64_t j = i % n;
    return j < 0 ? j + n : j;
}

bool ggml_ref_op_misc(const struct ggml_tensor * node, double * out, char * err, size_t err_size) {
    if (node->op == GGML_OP_FILL) {
        const double v = ggml_ref_round_to_type(node->type, ggml_ref_param_f32(node, 0));
        for (int64_t i = 0; i < ggml_ref_nel(node); i++) {
            out[i] = v;
        }
        return true;
    }
    if (!ggml_ref_need_src(node, 0, err, err_size)) {
        return false;
    }
    const struct ggml_tensor * a = node->src[0];
    const int64_t * ne = node->ne;
    for (int64_t i3 = 0; i3 < ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < ne[1]; i1++) {
                double acc = 0.0;
                for (int64_t i0 = 0; i0 < ne[0]; i0++) {
                    double v;
                    switch (node->op) {
                        case GGML_OP_CUMSUM:
                            acc += ggml_ref_get(a, i0, i1, i2, i3);
                            v = acc;
                            break;
                        case GGML_OP_TRI: {
                            const int t = ggml_ref_param_i32(node, 0);
                            const bool keep = t == GGML_TRI_TYPE_UPPER_DIAG ? i0 >= i1 : t == GGML_TRI_TYPE_UPPER ? i0 > i1 :
                                              t == GGML_TRI_TYPE_LOWER_DIAG ? i0 <= i1 : i0 < i1;
                            v = keep ? ggml_ref_get(a, i0, i1, i2, i3) : 0.0;
                            break;
                        }
                        case GGML_OP_DIAG:
                            v = i0 == i1 ? ggml_ref_get(a, i0, 0, i2, i3) : 0.0;
                            break;
                        case GGML_OP_ROLL:
                            v = ggml_ref_get(a, ref_mod(i0 - ggml_ref_param_i32(node, 0), ne[0]),
                                    ref_mod(i1 - ggml_ref_param_i32(node, 1), ne[1]),
                                    ref_mod(i2 - ggml_ref_param_i32(node, 2), ne[2]),
                                    ref_mod(i3 - ggml_ref_param_i32(node, 3), ne[3]));
                            break;
                        case GGML_OP_PAD_REFLECT_1D: {
                            const int64_t n = a->ne[0];
                            int64_t j = i0 - ggml_ref_param_i32(node, 0);
                            if (j < 0) {
                                j = -j;
                            } else if (j >= n) {
                                j = 2*(n - 1) - j;
                            }
                            if (j < 0 || j >= n) {
                                return ggml_ref_fail(err, err_size, "PAD_REFLECT_1D: padding too large for rows of %lld", (long long) n);
                            }
                            v = ggml_ref_get(a, j, i1, i2, i3);
                            break;
                        }
                        case GGML_OP_TIMESTEP_EMBEDDING: {
                            const int64_t dim = ggml_ref_param_i32(node, 0);
                            const int64_t half = dim / 2;
                            const double t = ggml_ref_get(a, i1, 0, 0, 0);
                            const int64_t j = i0 < half ? i0 : i0 - half;
                            const double arg = t*pow((double) ggml_ref_param_i32(node, 1), -(double) j / (double) half);
                            v = i0 >= 2*half ? 0.0 : (i0 < half ? cos(arg) : sin(arg));
                            break;
                        }
                        case GGML_OP_POOL_1D: {
                            const int pop = ggml_ref_param_i32(node, 0), k0 = ggml_ref_param_i32(node, 1);
                            const int s0 = ggml_ref_param_i32(node, 2), p0 = ggml_ref_param_i32(node, 3);
                            double m = -FLT_MAX, sum = 0.0;
                            int count = 0;
                            for (int k = 0; k < k0; k++) {
                                const int64_t j = i0*s0 - p0 + k;
                                if (j >= 0 && j < a->ne[0]) {
                                    const double x = ggml_ref_get(a, j, i1, i2, i3);
                                    m = x > m ? x : m;
                                    sum += x;
                                    count++;
                                }
                            }
                            v = pop == GGML_OP_POOL_MAX ? m : (count > 0 ? sum / count : 0.0);
                            break;
                        }
                        default:
                            return ggml_ref_fail(err, err_size, "op %s is not in the misc group", ggml_op_name(node->op));
                    }
                    out[ggml_ref_idx(node, i0, i1, i2, i3)] = v;
                }
            }
        }
    }
    return true;
}
