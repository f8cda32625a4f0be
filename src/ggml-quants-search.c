// Scale searches shared by the quantizers: for a group of values and a number of integer levels,
// the scale (and for asymmetric formats the offset) that minimises the weighted error.

#include "ggml-quants.h"

#include <float.h>
#include <math.h>

GGML_QUANTS_NO_CONTRACT

#define GROUP_MAX_EPS 1e-15f

static float weight_of(const float * w, const float * x, int i) {
    return w ? w[i] : x[i] * x[i];
}

float ggml_quant_search_sym(int n, int nmax, const float * x, const float * w, uint8_t * L) {
    float amax = 0.0f, max = 0.0f;
    for (int i = 0; i < n; i++) {
        const float ax = fabsf(x[i]);
        if (ax > amax) {
            amax = ax;
            max  = x[i];
        }
    }
    if (amax < GROUP_MAX_EPS) {
        memset(L, 0, (size_t) n);
        return 0.0f;
    }
    // the largest magnitude maps to -nmax (the extra negative level); then try scales around it
    float best_scale = 0.0f, best = 0.0f;
    bool  have = false;
    for (int is = -9; is <= 9; is++) {
        const float iscale = -((float) nmax + 0.1f * (float) is) / max;
        float sumlx = 0.0f, suml2 = 0.0f;
        for (int i = 0; i < n; i++) {
            int l = ggml_nearest_int(iscale * x[i]);
            l = l < -nmax ? -nmax : (l > nmax - 1 ? nmax - 1 : l);
            const float wi = weight_of(w, x, i);
            sumlx += wi * x[i] * (float) l;
            suml2 += wi * (float) l * (float) l;
        }
        if (suml2 > 0.0f && (!have || sumlx * sumlx > best * suml2)) {
            have       = true;
            best_scale = sumlx / suml2;
            best       = best_scale * sumlx;
            for (int i = 0; i < n; i++) {
                int l = ggml_nearest_int(iscale * x[i]);
                l = l < -nmax ? -nmax : (l > nmax - 1 ? nmax - 1 : l);
                L[i] = (uint8_t)(l + nmax);
            }
        }
    }
    if (!have) {
        memset(L, 0, (size_t) n);
        for (int i = 0; i < n; i++) {
            L[i] = (uint8_t) nmax;
        }
        return 0.0f;
    }
    return best_scale;
}

float ggml_quant_search_asym(int n, int nmax, const float * x, const float * w, uint8_t * L, float * the_min,
                             uint8_t * Laux, float rmin, float rdelta, int nstep, bool use_mad) {
    float min = x[0], max = x[0];
    float sum_w = 0.0f, sum_x = 0.0f;
    for (int i = 0; i < n; i++) {
        min = x[i] < min ? x[i] : min;
        max = x[i] > max ? x[i] : max;
        const float wi = w ? w[i] : 1.0f;
        sum_w += wi;
        sum_x += wi * x[i];
    }
    if (min > 0.0f) {
        min = 0.0f;
    }
    if (max == min) {
        memset(L, 0, (size_t) n);
        *the_min = -min;
        return 0.0f;
    }
    float iscale = (float) nmax / (max - min);
    float scale  = 1.0f / iscale;
    float best   = 0.0f;
    for (int i = 0; i < n; i++) {
        int l = ggml_nearest_int(iscale * (x[i] - min));
        l = l < 0 ? 0 : (l > nmax ? nmax : l);
        L[i] = (uint8_t) l;
        const float diff = scale * (float) l + min - x[i];
        const float wi   = w ? w[i] : 1.0f;
        best += wi * (use_mad ? fabsf(diff) : diff * diff);
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float) is + (float) nmax) / (max - min);
        float sum_l = 0.0f, sum_l2 = 0.0f, sum_xl = 0.0f;
        for (int i = 0; i < n; i++) {
            int l = ggml_nearest_int(iscale * (x[i] - min));
            l = l < 0 ? 0 : (l > nmax ? nmax : l);
            Laux[i] = (uint8_t) l;
            const float wi = w ? w[i] : 1.0f;
            sum_l  += wi * (float) l;
            sum_l2 += wi * (float) l * (float) l;
            sum_xl += wi * (float) l * x[i];
        }
        const float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D <= 0.0f) {
            continue;
        }
        float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
        float this_min   = (sum_l2 * sum_x - sum_l * sum_xl) / D;
        if (this_min > 0.0f) {
            this_min   = 0.0f;
            this_scale = sum_l2 > 0.0f ? sum_xl / sum_l2 : 0.0f;
        }
        float err = 0.0f;
        for (int i = 0; i < n; i++) {
            const float diff = this_scale * (float) Laux[i] + this_min - x[i];
            const float wi   = w ? w[i] : 1.0f;
            err += wi * (use_mad ? fabsf(diff) : diff * diff);
        }
        if (err < best) {
            memcpy(L, Laux, (size_t) n);
            best  = err;
            scale = this_scale;
            min   = this_min;
        }
    }
    *the_min = -min;
    return scale;
}

int ggml_quant_best_index_int8(int n, const int8_t * val, float x) {
    if (x <= (float) val[0]) {
        return 0;
    }
    if (x >= (float) val[n - 1]) {
        return n - 1;
    }
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (x < (float) val[mid]) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return x - (float) val[lo] < (float) val[hi] - x ? lo : hi;
}
