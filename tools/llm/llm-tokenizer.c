// Byte-level BPE (GPT-2 style) from the GGUF vocabulary and merges. The pre-tokenizer splits as
// the family's `smollm` and `gpt2` pre-tokenizers do (contractions, letter / number / other runs
// with one leading space, whitespace runs; smollm first splits off every number code point), with
// the Unicode classes of llm-unicode.h. Other pre-tokenizer names get the gpt2 split.
#include "llm.h"
#include "llm-unicode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char * dup_n(const char * s, size_t n) {   // strndup is not C11
    char * d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}


struct str_map {                 // open addressing: string -> int
    char ** keys;
    int *   vals;
    size_t  cap;
};

struct llm_vocab {
    int       n;
    char **   text;                // each token's text (GPT-2 byte-mapped characters)
    bool *    special;             // control tokens: matched verbatim in the text
    struct str_map ids, ranks;
    int32_t   eos, bos;
    bool      split_numbers;       // smollm: every \p{N} code point is a pre-token of its own
    int       byte_token[256];     // the token of each single byte
};

static uint64_t hash_str(const char * s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h = (h ^ (uint8_t) *s) * 1099511628211ull;
    }
    return h;
}

static bool map_init(struct str_map * m, size_t n) {
    m->cap = 16;
    while (m->cap < n * 2) {
        m->cap *= 2;
    }
    m->keys = calloc(m->cap, sizeof(char *));
    m->vals = calloc(m->cap, sizeof(int));
    return m->keys && m->vals;
}

static void map_put(struct str_map * m, char * key, int val) {   // key is borrowed, first one wins
    size_t i = hash_str(key) & (m->cap - 1);
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0) {
            return;
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = key;
    m->vals[i] = val;
}

static int map_get(const struct str_map * m, const char * key) {
    size_t i = hash_str(key) & (m->cap - 1);
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0) {
            return m->vals[i];
        }
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

// GPT-2's reversible byte -> code point table: printable bytes stand for themselves, the others
// are moved to 256 + n
static int byte_to_cp(int b) {
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) {
        return b;
    }
    int n = 0;
    for (int c = 0; c < b; c++) {
        if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255))) {
            n++;
        }
    }
    return 256 + n;
}

static int utf8_encode(int cp, char * out) {
    if (cp < 0x80) { out[0] = (char) cp; return 1; }
    if (cp < 0x800) { out[0] = (char) (0xC0 | (cp >> 6)); out[1] = (char) (0x80 | (cp & 0x3F)); return 2; }
    out[0] = (char) (0xE0 | (cp >> 12)); out[1] = (char) (0x80 | ((cp >> 6) & 0x3F)); out[2] = (char) (0x80 | (cp & 0x3F));
    return 3;
}

static int utf8_len(uint8_t c) {
    return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

static int utf8_decode(const char * s, int * len) {
    const uint8_t * u = (const uint8_t *) s;
    int n = utf8_len(u[0]);
    int cp = n == 1 ? u[0] : n == 2 ? (u[0] & 0x1F) : n == 3 ? (u[0] & 0x0F) : (u[0] & 0x07);
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) { *len = 1; return u[0]; }
        cp = (cp << 6) | (u[i] & 0x3F);
    }
    *len = n;
    return cp;
}

// the GPT-2 character of byte b, as UTF-8 (exported for the tiny-model generator)
int llm_byte_char(uint8_t b, char out[4]);
int llm_byte_char(uint8_t b, char out[4]) {
    return utf8_encode(byte_to_cp(b), out);
}

void llm_vocab_free(struct llm_vocab * v) {
    if (!v) {
        return;
    }
    for (size_t i = 0; v->ranks.keys && i < v->ranks.cap; i++) {
        free(v->ranks.keys[i]);
    }
    free(v->ranks.keys); free(v->ranks.vals);
    free(v->ids.keys); free(v->ids.vals);
    if (v->text) {
        for (int i = 0; i < v->n; i++) {
            free(v->text[i]);
        }
    }
    free(v->text);
    free(v->special);
    free(v);
}

static int32_t key_id(const struct gguf_context * g, const char * key) {
    int64_t id = gguf_find_key(g, key);
    if (id < 0) {
        return -1;
    }
    enum gguf_type t = gguf_get_kv_type(g, id);
    return t == GGUF_TYPE_UINT32 ? (int32_t) gguf_get_val_u32(g, id) : t == GGUF_TYPE_INT32 ? gguf_get_val_i32(g, id) : -1;
}

struct llm_vocab * llm_vocab_load(const struct gguf_context * g) {
    int64_t kmodel = gguf_find_key(g, "tokenizer.ggml.model");
    int64_t ktok = gguf_find_key(g, "tokenizer.ggml.tokens");
    int64_t kmerges = gguf_find_key(g, "tokenizer.ggml.merges");
    if (kmodel < 0 || ktok < 0 || kmerges < 0 || gguf_get_kv_type(g, kmodel) != GGUF_TYPE_STRING ||
        strcmp(gguf_get_val_str(g, kmodel), "gpt2") != 0 || gguf_get_arr_type(g, ktok) != GGUF_TYPE_STRING ||
        gguf_get_arr_type(g, kmerges) != GGUF_TYPE_STRING) {
        fprintf(stderr, "error: the model has no byte-level BPE tokenizer (tokenizer.ggml.model gpt2 with tokens and merges)\n");
        return NULL;
    }
    struct llm_vocab * v = calloc(1, sizeof(*v));
    if (!v) {
        return NULL;
    }
    v->n = (int) gguf_get_arr_n(g, ktok);
    size_t n_merges = gguf_get_arr_n(g, kmerges);
    v->text = calloc((size_t) v->n, sizeof(char *));
    v->special = calloc((size_t) v->n, sizeof(bool));
    if (!v->text || !v->special || !map_init(&v->ids, (size_t) v->n) || !map_init(&v->ranks, n_merges)) {
        llm_vocab_free(v);
        return NULL;
    }
    int64_t ktype = gguf_find_key(g, "tokenizer.ggml.token_type");
    const int32_t * types = ktype >= 0 && gguf_get_arr_type(g, ktype) == GGUF_TYPE_INT32 &&
                            gguf_get_arr_n(g, ktype) == (size_t) v->n ? gguf_get_arr_data(g, ktype) : NULL;
    for (int i = 0; i < v->n; i++) {
        v->text[i] = dup_n(gguf_get_arr_str(g, ktok, (size_t) i), strlen(gguf_get_arr_str(g, ktok, (size_t) i)));
        if (!v->text[i]) {
            llm_vocab_free(v);
            return NULL;
        }
        v->special[i] = types ? types[i] == 3 : false;   // 3: control
        map_put(&v->ids, v->text[i], i);
    }
    for (size_t i = 0; i < n_merges; i++) {
        char * m = dup_n(gguf_get_arr_str(g, kmerges, i), strlen(gguf_get_arr_str(g, kmerges, i)));
        if (!m) {
            llm_vocab_free(v);
            return NULL;
        }
        size_t before = map_get(&v->ranks, m) < 0;
        map_put(&v->ranks, m, (int) i);
        if (!before || map_get(&v->ranks, m) != (int) i) {
            free(m);   // a duplicate merge: the first rank stays
        }
    }
    for (int b = 0; b < 256; b++) {
        char c[5] = {0};
        llm_byte_char((uint8_t) b, c);
        v->byte_token[b] = map_get(&v->ids, c);
    }
    v->eos = key_id(g, "tokenizer.ggml.eos_token_id");
    v->bos = -1;
    int64_t kadd = gguf_find_key(g, "tokenizer.ggml.add_bos_token");
    if (kadd >= 0 && gguf_get_kv_type(g, kadd) == GGUF_TYPE_BOOL && gguf_get_val_bool(g, kadd)) {
        v->bos = key_id(g, "tokenizer.ggml.bos_token_id");
    }
    int64_t kpre = gguf_find_key(g, "tokenizer.ggml.pre");
    v->split_numbers = kpre >= 0 && gguf_get_kv_type(g, kpre) == GGUF_TYPE_STRING &&
                       strcmp(gguf_get_val_str(g, kpre), "smollm") == 0;
    return v;
}

int32_t llm_vocab_eos(const struct llm_vocab * v) { return v->eos; }
int32_t llm_vocab_bos(const struct llm_vocab * v) { return v->bos; }
int     llm_vocab_size(const struct llm_vocab * v) { return v->n; }

#define CPT_NONE 0xFFFFFFFFu   // past the end of the text being split

// the code point at p (its byte length in *len): U+FFFD for a malformed byte, CPT_NONE at end
static uint32_t cpt_at(const char * p, const char * end, int * len) {
    if (p >= end) {
        *len = 0;
        return CPT_NONE;
    }
    int cp = utf8_decode(p, len);
    if (*len == 1 && (uint8_t) *p >= 0x80) {
        cp = 0xFFFD;
    }
    return (uint32_t) cp;
}

// the class of the code point at p, -1 at end
static int class_at(const char * p, const char * end, int * len) {
    uint32_t c = cpt_at(p, end, len);
    return c == CPT_NONE ? -1 : (int) llm_unicode_class_of(c);
}

// the byte length of the next pre-token of [p, end) (p < end), by the GPT-2 pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
static int gpt2_piece(const char * p, const char * end) {
    int l0, l1, l2;
    uint32_t c = cpt_at(p, end, &l0);
    if (c == '\'') {
        uint32_t c1 = cpt_at(p + 1, end, &l1);
        if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') return 2;
        uint32_t c2 = c1 == CPT_NONE ? CPT_NONE : cpt_at(p + 2, end, &l2);
        if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) return 3;
    }
    const char * q = c == ' ' ? p + 1 : p;   // one leading space joins a letter, number or other run
    int len;
    int cls = class_at(q, end, &len);
    if (cls == LLM_UC_LETTER || cls == LLM_UC_NUMBER || cls == LLM_UC_OTHER) {
        while (class_at(q, end, &len) == cls) q += len;
        return (int) (q - p);
    }
    // whitespace: all of it, but the last one when more text follows (it leads the next piece)
    const char * w = p, * before_last = p;
    int n = 0;
    while (class_at(w, end, &len) == LLM_UC_SPACE) {
        before_last = w;
        w += len;
        n++;
    }
    if (n > 1 && w < end) return (int) (before_last - p);
    return n > 0 ? (int) (w - p) : l0;
}

// the end of the segment starting at p: the smollm pre-tokenizer first splits every \p{N} code
// point off on its own; the GPT-2 pattern then splits each segment apart
static const char * segment_end(const struct llm_vocab * v, const char * p, const char * end) {
    if (!v->split_numbers) return end;
    int len;
    if (class_at(p, end, &len) == LLM_UC_NUMBER) return p + len;
    while (p < end && class_at(p, end, &len) != LLM_UC_NUMBER) p += len;
    return p;
}

// BPE of one pre-token; appends its tokens to out, returns the new count or -1 when max is exceeded
static int bpe_piece(const struct llm_vocab * v, const char * s, int len, int32_t * out, int n, int max) {
    // symbols: the byte-mapped characters of the piece
    char ** sym = calloc((size_t) len + 1, sizeof(char *));
    int ns = 0;
    if (!sym) return -1;
    for (int i = 0; i < len; i++) {
        sym[ns] = calloc(5, 1);
        if (!sym[ns]) { n = -1; goto done; }
        llm_byte_char((uint8_t) s[i], sym[ns]);
        ns++;
    }
    for (;;) {
        int best = -1, best_rank = 0;
        for (int i = 0; i + 1 < ns; i++) {
            size_t la = strlen(sym[i]), lb = strlen(sym[i + 1]);
            char * pair = malloc(la + lb + 2);
            if (!pair) { n = -1; goto done; }
            memcpy(pair, sym[i], la); pair[la] = ' '; memcpy(pair + la + 1, sym[i + 1], lb + 1);
            int r = map_get(&v->ranks, pair);
            free(pair);
            if (r >= 0 && (best < 0 || r < best_rank)) { best = i; best_rank = r; }
        }
        if (best < 0) break;
        size_t la = strlen(sym[best]), lb = strlen(sym[best + 1]);
        char * merged = malloc(la + lb + 1);
        if (!merged) { n = -1; goto done; }
        memcpy(merged, sym[best], la); memcpy(merged + la, sym[best + 1], lb + 1);
        free(sym[best]); free(sym[best + 1]);
        sym[best] = merged;
        memmove(sym + best + 1, sym + best + 2, sizeof(char *) * (size_t) (ns - best - 2));
        ns--;
    }
    for (int i = 0; i < ns && n >= 0; i++) {
        int id = map_get(&v->ids, sym[i]);
        if (id >= 0) {
            if (n >= max) { n = -1; break; }
            out[n++] = id;
        } else {
            // not in the vocabulary: its bytes one by one
            for (const char * p = sym[i]; *p && n >= 0; ) {
                int l; int cp = utf8_decode(p, &l);
                p += l;
                for (int b = 0; b < 256; b++) {
                    if (byte_to_cp(b) == cp && v->byte_token[b] >= 0) {
                        if (n >= max) { n = -1; break; }
                        out[n++] = v->byte_token[b];
                    }
                }
            }
        }
    }
done:
    for (int i = 0; i < ns; i++) free(sym[i]);
    free(sym);
    return n;
}

static int match_special(const struct llm_vocab * v, const char * s, int * len) {
    int best = -1; size_t best_len = 0;
    for (int i = 0; i < v->n; i++) {
        if (v->special[i]) {
            size_t l = strlen(v->text[i]);
            if (l > best_len && strncmp(s, v->text[i], l) == 0) { best = i; best_len = l; }
        }
    }
    *len = (int) best_len;
    return best;
}

int llm_tokenize(const struct llm_vocab * v, const char * text, bool parse_special, int32_t * out, int max) {
    int n = 0;
    if (v->bos >= 0) {
        if (max < 1) return -1;
        out[n++] = v->bos;
    }
    const char * s = text;
    while (*s && n >= 0) {
        // the plain text up to the next special token
        const char * end = s;
        int sl = 0, sid = -1;
        while (*end) {
            if (parse_special && *end == '<' && (sid = match_special(v, end, &sl)) >= 0) break;
            end++;
        }
        char * chunk = dup_n(s, (size_t) (end - s));
        if (!chunk) return -1;
        const char * cend = chunk + strlen(chunk);
        for (const char * p = chunk; p < cend && n >= 0; ) {
            const char * seg_end = segment_end(v, p, cend);
            while (p < seg_end && n >= 0) {
                int l = gpt2_piece(p, seg_end);
                n = bpe_piece(v, p, l, out, n, max);
                p += l;
            }
        }
        free(chunk);
        if (n < 0) return -1;
        s = end;
        if (sid >= 0) {
            if (n >= max) return -1;
            out[n++] = sid;
            s += sl;
        }
    }
    return n;
}

int llm_token_to_bytes(const struct llm_vocab * v, int32_t token, char * out, int max) {
    if (token < 0 || token >= v->n) return 0;
    const char * t = v->text[token];
    int n = 0;
    if (v->special[token]) {
        int l = (int) strlen(t);
        if (l > max) return 0;
        memcpy(out, t, (size_t) l);
        return l;
    }
    while (*t && n < max) {
        int l; int cp = utf8_decode(t, &l);
        t += l;
        for (int b = 0; b < 256; b++) {
            if (byte_to_cp(b) == cp) { out[n++] = (char) b; break; }
        }
    }
    return n;
}
