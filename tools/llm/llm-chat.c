// The ChatML chat template (SmolLM2, Qwen): one user turn, then the assistant's turn opened.
#include "llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char * llm_chat_apply(const char * user_message) {
    static const char head[] = "<|im_start|>user\n";
    static const char tail[] = "<|im_end|>\n<|im_start|>assistant\n";
    size_t n = strlen(head) + strlen(user_message) + strlen(tail) + 1;
    char * s = malloc(n);
    if (s) {
        snprintf(s, n, "%s%s%s", head, user_message, tail);
    }
    return s;
}
