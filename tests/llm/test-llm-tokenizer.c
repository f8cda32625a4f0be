// The byte-level BPE tokenizer on the tiny model's vocabulary (gen-tiny-llama: ids 0..2 special,
// 3 + b the byte b, then the merges "Ġ t" "h e" "Ġt he" ... as ids 259, 260, 261, ...):
// merges by rank, the pre-tokenizer's pieces, special tokens, and the exact round trip
// bytes -> tokens -> bytes of text with UTF-8, emoji, whitespace runs and control bytes.
#include "llm.h"
#include "llm-unicode.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect_ids(const struct llm_vocab * v, const char * text, bool special, const int32_t * want, int n_want) {
    int32_t got[64];
    int n = llm_tokenize(v, text, special, got, 64);
    bool ok = n == n_want && memcmp(got, want, sizeof(int32_t) * (size_t) n_want) == 0;
    printf("%s ids of \"%s\":", ok ? "ok  " : "FAIL", text);
    for (int i = 0; i < n; i++) printf(" %d", got[i]);
    printf("\n");
    failures += !ok;
}

static void round_trip(const struct llm_vocab * v, const char * text) {
    int32_t ids[512];
    char back[1024];
    int n = llm_tokenize(v, text, false, ids, 512), len = 0;
    for (int i = 0; i < n; i++) len += llm_token_to_bytes(v, ids[i], back + len, (int) sizeof(back) - len);
    bool ok = n > 0 && len == (int) strlen(text) && memcmp(back, text, (size_t) len) == 0;
    printf("%s round trip of %d bytes in %d tokens\n", ok ? "ok  " : "FAIL", (int) strlen(text), n);
    failures += !ok;
}

// the generated class table (llm-unicode-tables.c) on code points of each class and script
static void check_classes(void) {
    static const struct { uint32_t cp; enum llm_unicode_class cls; } cases[] = {
        { 'a', LLM_UC_LETTER }, { 0xE9, LLM_UC_LETTER }, { 0x65E5, LLM_UC_LETTER }, { 0xD55C, LLM_UC_LETTER },
        { 0x0627, LLM_UC_LETTER }, { 0x1D518, LLM_UC_LETTER }, { 0x02B0, LLM_UC_LETTER },     // Lm
        { '7', LLM_UC_NUMBER }, { 0x0663, LLM_UC_NUMBER }, { 0xFF11, LLM_UC_NUMBER }, { 0xBD, LLM_UC_NUMBER },
        { 0x216B, LLM_UC_NUMBER }, { 0x2460, LLM_UC_NUMBER }, { 0x1D7D9, LLM_UC_NUMBER },
        { ' ', LLM_UC_SPACE }, { '\t', LLM_UC_SPACE }, { 0x85, LLM_UC_SPACE }, { 0xA0, LLM_UC_SPACE },
        { 0x3000, LLM_UC_SPACE }, { 0x2028, LLM_UC_SPACE }, { 0x2029, LLM_UC_SPACE },
        { 0x1C, LLM_UC_OTHER }, { 0x200B, LLM_UC_OTHER }, { 0x0301, LLM_UC_OTHER }, { 0x1F600, LLM_UC_OTHER },
        { 0x201C, LLM_UC_OTHER }, { '!', LLM_UC_OTHER }, { 0xE000, LLM_UC_OTHER }, { 0x10FFFF, LLM_UC_OTHER },
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (llm_unicode_class_of(cases[i].cp) != cases[i].cls) {
            printf("FAIL class of U+%04X: %d, want %d\n", (unsigned) cases[i].cp, llm_unicode_class_of(cases[i].cp), cases[i].cls);
            bad++;
        }
    }
    printf("%s %d code point classes\n", bad ? "FAIL" : "ok  ", (int) (sizeof(cases) / sizeof(cases[0])));
    failures += bad;
}

int main(int argc, char ** argv) {
    if (argc < 2) return 1;
    check_classes();
    struct gguf_init_params ip = { .no_alloc = true, .ctx = NULL };
    struct gguf_context * g = gguf_init_from_file(argv[1], ip);
    struct llm_vocab * v = g ? llm_vocab_load(g) : NULL;
    if (!v) { printf("FAIL cannot load the vocabulary\n"); gguf_free(g); return 1; }
    const int B = 3;   // the id of byte 0
    expect_ids(v, " the", false, (int32_t[]) { 261 }, 1);
    expect_ids(v, "the", false, (int32_t[]) { B + 't', 260 }, 2);
    expect_ids(v, "in the", false, (int32_t[]) { 262, 261 }, 2);
    expect_ids(v, "12", false, (int32_t[]) { B + '1', B + '2' }, 2);      // smollm: digits one by one
    expect_ids(v, "a  b", false, (int32_t[]) { B + 'a', B + ' ', B + ' ', B + 'b' }, 4);
    // a number code point ends the segment, so the two spaces before it stay one piece: "a", "  ", "5"
    expect_ids(v, "a  5", false, (int32_t[]) { B + 'a', B + ' ', B + ' ', B + '5' }, 4);
    expect_ids(v, "<|im_start|>user", true, (int32_t[]) { 1, B + 'u', B + 's', 264 }, 4);
    expect_ids(v, "<|im_start|>", false, (int32_t[]) { B + '<', B + '|', B + 'i', B + 'm', B + '_', B + 's', B + 't', B + 'a', B + 'r', B + 't', B + '|', B + '>' }, 12);
    round_trip(v, "The weather in the north is on the way, isn't it? 42 + 7 = 49.");
    round_trip(v, "  leading and trailing   spaces\n\n\tand tabs\r\n");
    round_trip(v, "Unicode: caf\xc3\xa9, \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e, emoji \xf0\x9f\x98\x80\xf0\x9f\x91\x8d and control \x01\x7f");
    round_trip(v, "def f(x):\n    return x ** 2  # code\n");
    llm_vocab_free(v);
    gguf_free(g);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
