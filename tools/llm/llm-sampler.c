// Sampling: greedy (temp <= 0), or repetition penalty, top-k, top-p, min-p and temperature then
// a draw with a seeded generator (splitmix64: the same seed gives the same text).
#include "llm.h"

#include <math.h>
#include <stdlib.h>

struct candidate { float logit; int id; };

struct llm_sampler {
    struct llm_sampler_params p;
    int      n_vocab;
    uint64_t state;
    float *  work;
    struct candidate * cand;
};

struct llm_sampler * llm_sampler_new(struct llm_sampler_params p, int n_vocab) {
    struct llm_sampler * s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->p = p;
    s->n_vocab = n_vocab;
    s->state = p.seed;
    s->work = malloc(sizeof(float) * (size_t) n_vocab);
    s->cand = malloc(sizeof(struct candidate) * (size_t) n_vocab);
    if (!s->work || !s->cand) {
        llm_sampler_free(s);
        return NULL;
    }
    return s;
}

void llm_sampler_free(struct llm_sampler * s) {
    if (!s) return;
    free(s->work);
    free(s->cand);
    free(s);
}

static uint64_t next_u64(uint64_t * x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int by_logit_desc(const void * a, const void * b) {
    float x = ((const struct candidate *) a)->logit, y = ((const struct candidate *) b)->logit;
    return (x < y) - (x > y);
}

int32_t llm_sample(struct llm_sampler * s, const float * logits, const int32_t * history, int n_history) {
    const int n = s->n_vocab;
    float * w = s->work;
    for (int i = 0; i < n; i++) w[i] = logits[i];
    if (s->p.repeat_penalty != 1.0f && s->p.repeat_penalty > 0.0f) {
        int from = s->p.repeat_last_n > 0 && n_history > s->p.repeat_last_n ? n_history - s->p.repeat_last_n : 0;
        for (int i = from; i < n_history; i++) {
            int t = history[i];
            if (t >= 0 && t < n) {
                // each token once, whatever its count (logits[] is the untouched original)
                w[t] = logits[t] > 0 ? logits[t] / s->p.repeat_penalty : logits[t] * s->p.repeat_penalty;
            }
        }
    }
    int best = 0;
    for (int i = 1; i < n; i++) if (w[i] > w[best]) best = i;
    if (s->p.temp <= 0.0f) return best;

    // candidates sorted by logit; top-k
    struct candidate * c = s->cand;
    for (int i = 0; i < n; i++) { c[i].logit = w[i]; c[i].id = i; }
    qsort(c, (size_t) n, sizeof(*c), by_logit_desc);
    int k = s->p.top_k > 0 && s->p.top_k < n ? s->p.top_k : n;
    // probabilities at the temperature
    double sum = 0.0;
    double * prob = malloc(sizeof(double) * (size_t) k);
    if (!prob) return best;
    for (int i = 0; i < k; i++) {
        prob[i] = exp((double) (c[i].logit - c[0].logit) / s->p.temp);
        sum += prob[i];
    }
    // min-p: drop candidates below min_p times the top one; top-p: the smallest prefix over top_p
    int keep = k;
    for (int i = 0; i < k; i++) {
        if (s->p.min_p > 0.0f && prob[i] < s->p.min_p * prob[0]) { keep = i; break; }
    }
    if (s->p.top_p > 0.0f && s->p.top_p < 1.0f) {
        double acc = 0.0;
        for (int i = 0; i < keep; i++) {
            acc += prob[i] / sum;
            if (acc >= s->p.top_p) { keep = i + 1; break; }
        }
    }
    if (keep < 1) keep = 1;
    double total = 0.0;
    for (int i = 0; i < keep; i++) total += prob[i];
    double r = (double) (next_u64(&s->state) >> 11) / 9007199254740992.0 * total;
    int chosen = c[keep - 1].id;
    for (int i = 0; i < keep; i++) {
        r -= prob[i];
        if (r < 0) { chosen = c[i].id; break; }
    }
    free(prob);
    return chosen;
}
