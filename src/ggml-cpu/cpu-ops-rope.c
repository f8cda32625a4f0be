// CPU kernel of the rope family: ROPE for F32, F16 and BF16 rows, modes NORMAL, NEOX, MROPE, IMROPE and
// VISION, optional frequency factors, YaRN. Semantics as docs/op-params.md and tests/ref/ref-rope.c.
//
// Each thread first tabulates what depends only on the pair index p (which of the four positions
// the pair uses, its inverse frequency theta_scale^exponent/freq_factor and its YaRN mix),
// then walks its rows; for each new token (i2) it fills a cos/sin cache (in double, stored as
// float) that serves the ne1 rows (heads) of that token, and rotates rows with the kernel table's
// rope kernels (cpu-kernels.h). When a token's position is the previous token's plus one (the
// usual case), the cache is advanced by a rotation instead of new cos/sin calls: with few heads
// per token those calls, not the rotations, were most of the op's time.

#include "cpu-ops-nn.h"
#include "cpu-kernels.h"

#include <math.h>
#include <string.h>

#define ROPE_PI 3.14159265358979323846
#define ROPE_PW_LANES 8 // independent product chains of the frequency table

struct rope_params {
    int     n_dims, mode, n_ctx_orig;
    float   freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;
    int     sections[4];
    int     n_offs;   // first rotated element of a row (ggml_rope_set_offset)
    bool    multi;    // MROPE, IMROPE or VISION: four positions per token
    int64_t n_pairs;  // rotated pairs per row
    int64_t half;     // distance between the two members of a pair (not NORMAL)
    double  sin_sign; // -1 for ROPE_BACK: the gradient rotates by the opposite angle
};

static bool rope_mode_known(int mode) {
    return mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX || mode == GGML_ROPE_TYPE_MROPE ||
           mode == GGML_ROPE_TYPE_IMROPE || mode == GGML_ROPE_TYPE_VISION;
}

static void rope_get_params(const struct ggml_tensor * op, struct rope_params * rp) {
    rp->n_dims      = ggml_get_op_params_i32(op, 1);
    rp->mode        = ggml_get_op_params_i32(op, 2);
    rp->n_ctx_orig  = ggml_get_op_params_i32(op, 4);
    rp->freq_base   = ggml_get_op_params_f32(op, 5);
    rp->freq_scale  = ggml_get_op_params_f32(op, 6);
    rp->ext_factor  = ggml_get_op_params_f32(op, 7);
    rp->attn_factor = ggml_get_op_params_f32(op, 8);
    rp->beta_fast   = ggml_get_op_params_f32(op, 9);
    rp->beta_slow   = ggml_get_op_params_f32(op, 10);
    for (int k = 0; k < 4; k++) {
        rp->sections[k] = ggml_get_op_params_i32(op, 11 + k);
    }
    rp->n_offs = ggml_get_op_params_i32(op, 15);
    rp->sin_sign = op->op == GGML_OP_ROPE_BACK ? -1.0 : 1.0;
    rp->multi = rp->mode == GGML_ROPE_TYPE_MROPE || rp->mode == GGML_ROPE_TYPE_IMROPE || rp->mode == GGML_ROPE_TYPE_VISION;
    if (rp->mode == GGML_ROPE_TYPE_VISION) {
        rp->n_pairs = op->src[0]->ne[0]/2;
        rp->half    = rp->n_dims;
    } else {
        rp->n_pairs = rp->n_dims/2;
        rp->half    = rp->n_dims/2;
    }
}

bool ggml_cpu_rope_supports(const struct ggml_tensor * op) {
    const struct ggml_tensor * a   = op->src[0];
    const struct ggml_tensor * pos = op->src[1];
    const struct ggml_tensor * ff  = op->src[2];
    if ((op->op != GGML_OP_ROPE && op->op != GGML_OP_ROPE_BACK) || a == NULL || pos == NULL) {
        return false;
    }
    if (!ggml_vec_is_float_type(a->type) || op->type != a->type || !ggml_are_same_shape(a, op)) {
        return false;
    }
    struct rope_params rp;
    rope_get_params(op, &rp);
    if (!rope_mode_known(rp.mode) || rp.n_dims <= 0 || rp.n_dims % 2 != 0 || rp.n_dims > a->ne[0]) {
        return false;
    }
    if (rp.mode == GGML_ROPE_TYPE_VISION && 2*(int64_t) rp.n_dims != a->ne[0]) {
        return false;
    }
    if (rp.n_offs < 0 || rp.n_offs % 2 != 0 || (int64_t) rp.n_offs + rp.n_dims > a->ne[0] ||
        (rp.n_offs != 0 && rp.mode == GGML_ROPE_TYPE_VISION)) {
        return false;
    }
    if (rp.multi) {
        int64_t total = 0;
        for (int k = 0; k < 4; k++) {
            if (rp.sections[k] < 0) {
                return false;
            }
            total += rp.sections[k];
        }
        if (total <= 0) {
            return false;
        }
    }
    if (pos->type != GGML_TYPE_I32 || !ggml_is_contiguous(pos) || ggml_nelements(pos) < (rp.multi ? 4 : 1)*a->ne[2]) {
        return false;
    }
    if (ff != NULL && (ff->type != GGML_TYPE_F32 || !ggml_is_contiguous(ff) || ggml_nelements(ff) < rp.n_pairs)) {
        return false;
    }
    return true;
}

// per-thread scratch, each piece rounded up to a cache line:
//   w     double [n_pairs]   angle of pair p per unit of position (frequency, freq factor, YaRN mix)
//   cd,sd double [n_pairs]   cos/sin of pair p at the last cached position (before mscale)
//   c1,s1 double [n_pairs]   cos/sin of w[p]: one position further is a rotation by them
//   th    double [n_pairs]   angles of a fresh cos/sin fill
//   which int    [n_pairs]   position (0..3) pair p rotates by
//   cs    float  [2*ne0]     cos/sin cache of the current token
//   row   float  [ne0]       a row converted to float
struct rope_scratch {
    double  * w;
    double  * cd, * sd;
    double  * c1, * s1;
    double  * th;
    int32_t * which;
    float   * cs;
    float   * row;
};

static size_t rope_pad(size_t n) {
    return GGML_PAD(n, GGML_CPU_CACHE_LINE);
}

static size_t rope_thread_bytes(int64_t ne0, int64_t n_pairs) {
    return 6*rope_pad((size_t) n_pairs*sizeof(double)) + rope_pad((size_t) n_pairs*sizeof(int32_t)) +
           rope_pad((size_t) 2*ne0*sizeof(float)) + rope_pad((size_t) ne0*sizeof(float));
}

size_t ggml_cpu_rope_work_size(const struct ggml_tensor * op, int n_threads) {
    struct rope_params rp;
    rope_get_params(op, &rp);
    return rope_thread_bytes(op->src[0]->ne[0], rp.n_pairs)*(size_t) n_threads;
}

int ggml_cpu_rope_n_tasks(const struct ggml_tensor * op, int n_threads) {
    const int64_t rows = op->ne[1]*op->ne[2]*op->ne[3];
    return rows < 1 ? 1 : (rows < n_threads ? (int) rows : n_threads);
}

static struct rope_scratch rope_scratch_of(const struct ggml_compute_params * params, int64_t ne0, int64_t n_pairs) {
    char * p = (char *) params->wdata + (size_t) params->ith*rope_thread_bytes(ne0, n_pairs);
    struct rope_scratch s;
    s.w     = (double *)  p; p += rope_pad((size_t) n_pairs*sizeof(double));
    s.cd    = (double *)  p; p += rope_pad((size_t) n_pairs*sizeof(double));
    s.sd    = (double *)  p; p += rope_pad((size_t) n_pairs*sizeof(double));
    s.c1    = (double *)  p; p += rope_pad((size_t) n_pairs*sizeof(double));
    s.s1    = (double *)  p; p += rope_pad((size_t) n_pairs*sizeof(double));
    s.th    = (double *)  p; p += rope_pad((size_t) n_pairs*sizeof(double));
    s.which = (int32_t *) p; p += rope_pad((size_t) n_pairs*sizeof(int32_t));
    s.cs    = (float *)   p; p += rope_pad((size_t) 2*ne0*sizeof(float));
    s.row   = (float *)   p;
    return s;
}

// YaRN: the pair index at which a rotation of n_rot full turns spans the original context
static double rope_corr_dim(int n_dims, int n_ctx_orig, double n_rot, double base) {
    return n_dims * log((double) n_ctx_orig / (n_rot * 2.0 * ROPE_PI)) / (2.0 * log(base));
}

// which position (0 t, 1 h, 2 w, 3 e) pair p of a multi-section mode rotates by
static int rope_which(const struct rope_params * rp, int64_t p) {
    const int * sec = rp->sections;
    const int64_t sect_dims = (int64_t) sec[0] + sec[1] + sec[2] + sec[3];
    const int64_t sector = p % sect_dims;
    if (rp->mode == GGML_ROPE_TYPE_IMROPE) {
        // interleaved: t, h, w repeat with period 3 while each section lasts
        if (sector % 3 == 1 && sector < 3*(int64_t) sec[1]) return 1;
        if (sector % 3 == 2 && sector < 3*(int64_t) sec[2]) return 2;
        if (sector % 3 == 0 && sector < 3*(int64_t) sec[0]) return 0;
        return 3;
    }
    if (sector >= sec[0] && sector < (int64_t) sec[0] + sec[1]) return 1;
    if (sector >= (int64_t) sec[0] + sec[1] && sector < (int64_t) sec[0] + sec[1] + sec[2]) return 2;
    if (sector >= (int64_t) sec[0] + sec[1] + sec[2]) return 3;
    return 0;
}

// VISION: the frequency exponent of pair p restarts where the pair's section last started
// (sections start at sectors 0, s0, s0+s1, s0+s1+s2; the first matching start names the
// section that restarts at a sector)
static int64_t rope_vision_exponent(const struct rope_params * rp, int64_t p, int which) {
    const int * sec = rp->sections;
    const int64_t sect_dims = (int64_t) sec[0] + sec[1] + sec[2] + sec[3];
    const int64_t starts[4] = { 0, sec[0], (int64_t) sec[0] + sec[1], (int64_t) sec[0] + sec[1] + sec[2] };
    for (int64_t q = p; q >= 0; q--) {
        const int64_t sq = q % sect_dims;
        int restarted = -1;
        for (int k = 0; k < 4; k++) {
            if (sq == starts[k]) {
                restarted = k;
                break;
            }
        }
        if (restarted == which) {
            return p - q;
        }
    }
    return p;
}

// the per-pair tables; returns the magnitude factor
static double rope_tables(const struct rope_params * rp, const struct ggml_tensor * ff, struct rope_scratch * s) {
    const double theta_scale = pow((double) rp->freq_base, -2.0/rp->n_dims);
    double corr0 = 0.0, corr1 = 0.0;
    if (rp->ext_factor != 0.0f) {
        const double start = floor(rope_corr_dim(rp->n_dims, rp->n_ctx_orig, rp->beta_fast, rp->freq_base));
        const double end   = ceil (rope_corr_dim(rp->n_dims, rp->n_ctx_orig, rp->beta_slow, rp->freq_base));
        corr0 = start > 0.0 ? start : 0.0;
        corr1 = end < rp->n_dims - 1 ? end : rp->n_dims - 1;
    }
    const float * f = ff != NULL ? (const float *) ff->data : NULL;
    // theta_scale^e for e = 0 .. n_pairs-1 by repeated products (a pow per pair cost more than
    // rotating a one-token row), in ROPE_PW_LANES independent chains (one chain's latency was
    // most of a one-token call); e products drift by ~e/ROPE_PW_LANES + 2 roundings of a double
    double * pw = s->c1; // free until the first recurrence step needs it
    const int64_t n_pw = MIN((int64_t) ROPE_PW_LANES, rp->n_pairs);
    pw[0] = 1.0;
    for (int64_t e = 1; e < n_pw; e++) {
        pw[e] = pw[e - 1]*theta_scale;
    }
    const double step_pw = pw[n_pw - 1]*theta_scale; // theta_scale^ROPE_PW_LANES
    for (int64_t e = n_pw; e < rp->n_pairs; e++) {
        pw[e] = pw[e - ROPE_PW_LANES]*step_pw;
    }
    if (!rp->multi && rp->ext_factor == 0.0f) {
        // the usual case: no sections, no YaRN mix; one loop the compiler vectorizes
        const double fs = rp->freq_scale;
        for (int64_t p = 0; p < rp->n_pairs; p++) {
            s->which[p] = 0;
        }
        if (f != NULL) {
            for (int64_t p = 0; p < rp->n_pairs; p++) {
                s->w[p] = pw[p] / (double) f[p] * fs;
            }
        } else {
            for (int64_t p = 0; p < rp->n_pairs; p++) {
                s->w[p] = pw[p]*fs;
            }
        }
        return rp->attn_factor;
    }
    for (int64_t p = 0; p < rp->n_pairs; p++) {
        int which = 0;
        int64_t exponent = p;
        if (rp->multi) {
            which = rope_which(rp, p);
            if (rp->mode == GGML_ROPE_TYPE_VISION) {
                exponent = rope_vision_exponent(rp, p, which);
            }
        }
        s->which[p] = which;
        const double inv = f != NULL ? pw[exponent] / (double) f[p] : pw[exponent];
        double mix = 0.0;
        if (rp->ext_factor != 0.0f) {
            // 1 below corr0, 0 above corr1, linear in between
            const double span = corr1 - corr0 > 0.001 ? corr1 - corr0 : 0.001;
            double y = ((double) p - corr0) / span;
            y = y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
            mix = (1.0 - y)*rp->ext_factor;
        }
        // theta = interp*(1 - mix) + extrap*mix with extrap = pos*inv, interp = freq_scale*extrap
        s->w[p]  = inv*((double) rp->freq_scale*(1.0 - mix) + mix);
    }
    double mscale = rp->attn_factor;
    if (rp->ext_factor != 0.0f) {
        mscale *= 1.0 + 0.1*log(1.0/rp->freq_scale);
    }
    return mscale;
}

// cos and sin of theta[0..n) in double, without the C library for |theta| < 2^20*pi/2 (positions
// up to ~1.6e6 at the highest frequency): a one-token call needs a cos and a sin per pair, and the
// library's calls cost more than the rotations. theta = k*pi/2 + r with pi/2 in three 33-bit parts
// (k*part is exact for |k| < 2^20, so r is exact to ~1e-16), then the Taylor series of sin to r^15
// and cos to r^16 on |r| <= pi/4 (truncation below 5e-17). The loop has no branch, so the compiler
// vectorizes it; k is rounded by adding 1.5*2^52, whose low mantissa bits then hold k mod 4.
static void rope_sincos_rows(int64_t n, const double * restrict theta, double * restrict c, double * restrict sn) {
    for (int64_t i = 0; i < n; i++) {
        const double t   = theta[i];
        const double big = t*0.63661977236758134308 + 6755399441055744.0; // t*2/pi + 1.5*2^52
        const double k   = big - 6755399441055744.0;
        uint64_t q;
        memcpy(&q, &big, sizeof(q));
        const double r  = ((t - k*1.57079632673412561417e+00) - k*6.07710050630396597660e-11) - k*2.02226624871116645580e-21;
        const double r2 = r*r;
        double ps = 1.0/1307674368000.0;               // 1/15!
        ps = ps*r2 - 1.0/6227020800.0;                 // 1/13!
        ps = ps*r2 + 1.0/39916800.0;                   // 1/11!
        ps = ps*r2 - 1.0/362880.0;                     // 1/9!
        ps = ps*r2 + 1.0/5040.0;
        ps = ps*r2 - 1.0/120.0;
        ps = ps*r2 + 1.0/6.0;
        const double sr = r - r*r2*ps;                 // r - r^3/3! + ...
        double pc = 1.0/20922789888000.0;              // 1/16!
        pc = pc*r2 - 1.0/87178291200.0;                // 1/14!
        pc = pc*r2 + 1.0/479001600.0;                  // 1/12!
        pc = pc*r2 - 1.0/3628800.0;                    // 1/10!
        pc = pc*r2 + 1.0/40320.0;
        pc = pc*r2 - 1.0/720.0;
        pc = pc*r2 + 1.0/24.0;
        pc = pc*r2 - 0.5;
        const double cr = 1.0 + r2*pc;
        // quadrant q mod 4: (cos, sin) = (cr, sr), (-sr, cr), (-cr, -sr), (sr, -cr)
        const double cq = (q & 1) ? sr : cr;
        const double sq = (q & 1) ? cr : sr;
        c[i]  = ((q + 1) & 2) ? -cq : cq;
        sn[i] = (q & 2) ? -sq : sq;
    }
    for (int64_t i = 0; i < n; i++) {
        if (!(fabs(theta[i]) < 1647099.0)) { // 2^20*pi/2, less a margin; also NaN
            c[i]  = cos(theta[i]);
            sn[i] = sin(theta[i]);
        }
    }
}

// a position one further than the cached one is computed by rotating the cached cos/sin (two
// multiply-adds per pair instead of a cos and a sin); every this many steps the angles are computed
// afresh, which bounds the drift of the recurrence to a few hundred double roundings (~1e-14)
#define ROPE_MAX_STEPS 64

// cos/sin cache of a token with positions pos[4]. NORMAL: cc[j], ss[j] for j < n_dims with the
// pair's cos twice and its sin as (-s, s), so a row rotates as x*cc + swap_pairs(x)*ss.
// Other modes: cos at cs[p], sin at cs[n_pairs + p]. step: true when pos is the cached position
// plus one (single-position modes), so that the angles advance by w[p].
static void rope_cache(const struct rope_params * rp, const struct rope_scratch * s, const double pos[4], double mscale,
                       bool step) {
    const int64_t n = rp->n_pairs;
    if (!step) {
        if (rp->multi) {
            for (int64_t p = 0; p < n; p++) {
                s->th[p] = pos[s->which[p]]*s->w[p];
            }
        } else {
            for (int64_t p = 0; p < n; p++) {
                s->th[p] = pos[0]*s->w[p];
            }
        }
        rope_sincos_rows(n, s->th, s->cd, s->sd);
    } else {
        for (int64_t p = 0; p < n; p++) {
            const double c0 = s->cd[p], s0 = s->sd[p];
            s->cd[p] = c0*s->c1[p] - s0*s->s1[p];
            s->sd[p] = s0*s->c1[p] + c0*s->s1[p];
        }
    }
    const double ms = mscale*rp->sin_sign;
    if (rp->mode == GGML_ROPE_TYPE_NORMAL) {
        float * cc = s->cs, * ss = s->cs + rp->n_dims;
        for (int64_t p = 0; p < n; p++) {
            const float c  = (float) (s->cd[p]*mscale);
            const float si = (float) (s->sd[p]*ms);
            cc[2*p] = c;   cc[2*p + 1] = c;
            ss[2*p] = -si; ss[2*p + 1] = si;
        }
    } else {
        for (int64_t p = 0; p < n; p++) {
            s->cs[p]     = (float) (s->cd[p]*mscale);
            s->cs[n + p] = (float) (s->sd[p]*ms);
        }
    }
}

enum ggml_status ggml_cpu_rope_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    const struct ggml_tensor * a  = op->src[0];
    const struct ggml_tensor * b  = op->src[1];
    const struct ggml_tensor * ff = op->src[2];
    const struct ggml_cpu_kernels * kt = ggml_cpu_kernels_get(params->use_ref);
    const nn_vf vf = kt->vec;

    struct rope_params rp;
    rope_get_params(op, &rp);
    const int64_t ne0 = a->ne[0], ne1 = a->ne[1], ne2 = a->ne[2];
    struct rope_scratch s = rope_scratch_of(params, ne0, rp.n_pairs);
    const double mscale = rope_tables(&rp, ff, &s);

    // F32 rows with adjacent elements are rotated in place in memory; others go through s.row
    const bool a_direct = a->type == GGML_TYPE_F32 && a->nb[0] == sizeof(float);
    const bool d_direct = op->type == GGML_TYPE_F32 && op->nb[0] == sizeof(float);
    const int32_t * positions = (const int32_t *) b->data;
    const int64_t rot_end = rp.mode == GGML_ROPE_TYPE_VISION ? ne0 : rp.n_dims; // rotated elements

    int64_t r0, r1;
    ggml_cpu_split_range(ne1*ne2*op->ne[3], params->ith, params->nth, &r0, &r1);
    int64_t cached_i2 = -1;
    int64_t cached_pos = 0;
    int     steps = 0;      // recurrence steps since the angles were last computed afresh
    bool    have_c1 = false; // c1/s1 filled (only when a step happens: one-token calls skip them)
    // row r = i1 + ne1*(i2 + ne2*i3), advanced by counters (three divisions per row showed)
    int64_t i1 = r0 % ne1;
    int64_t i2 = (r0 / ne1) % ne2;
    int64_t i3 = r0 / (ne1*ne2);
    for (int64_t r = r0; r < r1; r++, i1++) {
        if (i1 == ne1) {
            i1 = 0;
            if (++i2 == ne2) {
                i2 = 0;
                i3++;
            }
        }
        if (i2 != cached_i2) {
            double pos[4] = { positions[i2], 0.0, 0.0, 0.0 };
            if (rp.multi) {
                for (int k = 1; k < 4; k++) {
                    pos[k] = positions[i2 + k*ne2];
                }
            }
            const bool step = !rp.multi && cached_i2 >= 0 && positions[i2] == cached_pos + 1 && steps < ROPE_MAX_STEPS;
            if (step && !have_c1) {
                rope_sincos_rows(rp.n_pairs, s.w, s.c1, s.s1);
                have_c1 = true;
            }
            rope_cache(&rp, &s, pos, mscale, step);
            steps      = step ? steps + 1 : 0;
            cached_i2  = i2;
            cached_pos = positions[i2];
        }
        const char * src = (const char *) a->data + i1*a->nb[1] + i2*a->nb[2] + i3*a->nb[3];
        char       * dst = (char *) op->data + i1*op->nb[1] + i2*op->nb[2] + i3*op->nb[3];
        const float * x = (const float *) src;
        if (!a_direct) {
            ggml_vec_load_f32(vf, a->type, src, a->nb[0], ne0, s.row);
            x = s.row;
        }
        float * y = d_direct ? (float *) dst : s.row;

        const int64_t offs = rp.n_offs;
        if (rp.mode == GGML_ROPE_TYPE_NORMAL) {
            kt->rope_normal(rp.n_dims, x + offs, y + offs, s.cs, s.cs + rp.n_dims);
        } else {
            kt->rope_half(rp.n_pairs, rp.half, x + offs, y + offs, s.cs, s.cs + rp.n_pairs);
        }
        if (x != y && offs + rot_end < ne0) {
            memmove(y + offs + rot_end, x + offs + rot_end, (size_t) (ne0 - offs - rot_end)*sizeof(float));
        }
        if (x != y && offs > 0) {
            memmove(y, x, (size_t) offs*sizeof(float));
        }
        if (!d_direct) {
            ggml_vec_store_f32(vf, op->type, dst, op->nb[0], ne0, y);
        }
    }
    return GGML_STATUS_SUCCESS;
}
