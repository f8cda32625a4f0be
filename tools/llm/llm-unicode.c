// The code point class lookup: a binary search of the generated ranges (ASCII answered directly).
#include "llm-unicode.h"

enum llm_unicode_class llm_unicode_class_of(uint32_t cp) {
    if (cp < 0x80) {
        if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return LLM_UC_LETTER;
        if (cp >= '0' && cp <= '9') return LLM_UC_NUMBER;
        if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D)) return LLM_UC_SPACE;
        return LLM_UC_OTHER;
    }
    int lo = 0, hi = llm_unicode_n_ranges - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (cp < llm_unicode_ranges[mid].first) {
            hi = mid - 1;
        } else if (cp > llm_unicode_ranges[mid].last) {
            lo = mid + 1;
        } else {
            return (enum llm_unicode_class) llm_unicode_ranges[mid].cls;
        }
    }
    return LLM_UC_OTHER;
}
