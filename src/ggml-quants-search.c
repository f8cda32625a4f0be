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

float ggml_quant_search_sym(int n, int nmax, const float * x, const float * w, uint8_t * L, int ncand, bool refine) {
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
    // the largest magnitude maps to -nmax (the extra negative level) first; then the candidates
    // -(nmax + 0.1 is) / max for |is| <= ncand replace it only when strictly better
    float best_scale = 0.0f, best = 0.0f;
    for (int c = 0; c <= 2*ncand + 1; c++) {
        const int   is     = c == 0 ? 0 : c - 1 - ncand;
        const float iscale = -((float) nmax + 0.1f * (float) is) / max;
        float sumlx = 0.0f, suml2 = 0.0f;
        for (int i = 0; i < n; i++) {
            int l = ggml_nearest_int(iscale * x[i]);
            l = l < -nmax ? -nmax : (l > nmax - 1 ? nmax - 1 : l);
            const float wi = weight_of(w, x, i);
            sumlx += wi * x[i] * (float) l;
            suml2 += wi * (float) l * (float) l;
        }
        if (c == 0 || (suml2 > 0.0f && sumlx * sumlx > best * suml2)) {
            best_scale = suml2 > 0.0f ? sumlx / suml2 : 0.0f;
            best       = best_scale * sumlx;
            for (int i = 0; i < n; i++) {
                int l = ggml_nearest_int(iscale * x[i]);
                l = l < -nmax ? -nmax : (l > nmax - 1 ? nmax - 1 : l);
                L[i] = (uint8_t)(l + nmax);
            }
        }
    }
    if (!refine) {
        return best_scale;
    }
    // coordinate descent: move one level at a time to the best level for the scale fitted to the
    // others, while that raises sumlx^2 / suml2 (equivalently lowers the weighted error)
    float sumlx = 0.0f, suml2 = 0.0f;
    for (int i = 0; i < n; i++) {
        const float l = (float) (L[i] - nmax), wi = weight_of(w, x, i);
        sumlx += wi * x[i] * l;
        suml2 += wi * l * l;
    }
    for (int pass = 0; pass < 5; pass++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            const float wi = weight_of(w, x, i);
            const float l  = (float) (L[i] - nmax);
            float slx = sumlx - wi * x[i] * l;
            float sl2 = suml2 - wi * l * l;
            if (slx <= 0.0f) {
                continue;
            }
            int nl = ggml_nearest_int(x[i] * sl2 / slx);
            nl = nl < -nmax ? -nmax : (nl > nmax - 1 ? nmax - 1 : nl);
            if (nl == L[i] - nmax) {
                continue;
            }
            slx += wi * x[i] * (float) nl;
            sl2 += wi * (float) nl * (float) nl;
            if (sl2 > 0.0f && slx * slx * suml2 > sumlx * sumlx * sl2) {
                L[i]  = (uint8_t)(nl + nmax);
                sumlx = slx;
                suml2 = sl2;
                changed++;
            }
        }
        if (!changed) {
            break;
        }
    }
    return suml2 > 0.0f ? sumlx / suml2 : best_scale;
}

float ggml_quant_search_pos(int n, int nmax, const float * x, const float * w, uint8_t * L) {
    float max = 0.0f;
    for (int i = 0; i < n; i++) {
        max = fmaxf(max, x[i]);
    }
    if (!(max > 0.0f)) {
        memset(L, 0, (size_t) n);
        return 0.0f;
    }
    float best_scale = max / (float) nmax, best = -1.0f;
    for (int is = -4; is <= 4; is++) {
        const float iscale = ((float) nmax + 0.1f * (float) is) / max;
        float sumlx = 0.0f, suml2 = 0.0f;
        for (int i = 0; i < n; i++) {
            const int l = ggml_nearest_int(iscale * x[i]);
            const float lf = (float) (l < 0 ? 0 : (l > nmax ? nmax : l));
            sumlx += w[i] * x[i] * lf;
            suml2 += w[i] * lf * lf;
        }
        if (suml2 > 0.0f && sumlx * sumlx > best * suml2) {
            best_scale = sumlx / suml2;
            best       = best_scale * sumlx;
        }
    }
    // levels for the chosen scale, then one level at a time while the weighted fit improves
    float sumlx = 0.0f, suml2 = 0.0f;
    for (int i = 0; i < n; i++) {
        const int l = ggml_nearest_int(x[i] / best_scale);
        L[i] = (uint8_t)(l < 0 ? 0 : (l > nmax ? nmax : l));
        sumlx += w[i] * x[i] * (float) L[i];
        suml2 += w[i] * (float) L[i] * (float) L[i];
    }
    for (int pass = 0; pass < 5; pass++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            float slx = sumlx - w[i] * x[i] * (float) L[i];
            float sl2 = suml2 - w[i] * (float) L[i] * (float) L[i];
            if (!(slx > 0.0f && sl2 > 0.0f)) {
                continue;
            }
            int nl = ggml_nearest_int(x[i] * sl2 / slx);
            nl = nl < 0 ? 0 : (nl > nmax ? nmax : nl);
            if (nl == L[i]) {
                continue;
            }
            slx += w[i] * x[i] * (float) nl;
            sl2 += w[i] * (float) nl * (float) nl;
            if (slx * slx * suml2 > sumlx * sumlx * sl2) {
                L[i]  = (uint8_t) nl;
                sumlx = slx;
                suml2 = sl2;
                changed++;
            }
        }
        if (!changed) {
            break;
        }
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
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
