// ggml-llm: generates text with a llama-architecture GGUF model on one device.
//   ggml-llm -m MODEL.gguf -p "prompt" [-n N] [--chat] [--temp T] [--device CPU|OpenCL0|...]
//            [--threads N] [--batch N] [--ctx N] [--top-k K] [--top-p P] [--min-p P]
//            [--repeat-penalty R] [--seed S] [--flash-attn on|off|auto] [--no-fuse] [--ids] [--ignore-eos] [--verbose]
// The text streams to stdout as it is generated; then (with --ids) the generated token ids on one
// line, and the lines "prompt: ..." and "generation: ...". Errors: one line on stderr, exit 1.
#include "llm.h"

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


struct options {
    const char * model, * prompt, * device;
    int n_predict, n_threads, n_batch, n_ctx, flash_attn;
    int random_prompt;   // > 0: a prompt of that many pseudo-random token ids instead of -p (benchmarks)
    bool chat, ids, ignore_eos, verbose, list_devices, help, no_fuse;
    struct llm_sampler_params sp;
};

static double now_ms(void) {
    return (double) ggml_time_us() / 1e3;
}

static void usage(void) {
    fprintf(stderr, "usage: ggml-llm -m MODEL.gguf -p PROMPT [-n N] [--chat] [--temp T] [--device NAME] [--threads N]"
                    " [--batch N] [--ctx N] [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S]"
                    " [--flash-attn on|off|auto] [--no-fuse] [--ids] [--ignore-eos] [--verbose] [--random-prompt N]\n"
                    "       ggml-llm --list-devices | --help\n");
}

static void help(void) {
    printf("ggml-llm: runs a llama-architecture GGUF model; streams the generated text, then prints the prompt and\n"
           "generation speed. Options:\n"
           "  -m, --model FILE        the GGUF file (F32, F16, BF16, Q8_0, Q4_0/1, K-quants ...)\n"
           "  -p, --prompt TEXT       the prompt (special tokens such as <|im_start|> are parsed)\n"
           "  -n N                    tokens to generate (default 64)\n"
           "  --chat                  wrap the prompt in the model's chat template (ChatML)\n"
           "  --device NAME           CPU (default), OpenCL0, ..., or meta:DEV1,DEV2 (see --list-devices)\n"
           "  -t, --threads N         CPU threads (default 2)\n"
           "  -b, --batch N           prompt tokens per graph (default 512)\n"
           "  -c, --ctx N             context length (default 2048)\n"
           "  --flash-attn on|off|auto  flash attention (default auto: where the device supports it)\n"
           "  --no-fuse               separate Q/K/V and gate/up products (default: fused where the device allows;\n"
           "                          also GGML_LLM_FUSE=0)\n"
           "  --temp T                temperature; 0 (default) is greedy\n"
           "  --top-k K, --top-p P, --min-p P, --repeat-penalty R, --seed S   sampling (defaults 40, 0.95, 0.05, 1.0, 42)\n"
           "  --ids                   print the generated token ids, one line\n"
           "  --ignore-eos            keep generating past the end-of-sequence token\n"
           "  --random-prompt N       a prompt of N random tokens (for benchmarks)\n"
           "  --verbose               the device table, where each layer went, the library's log\n"
           "  --list-devices          the devices, then exit\n"
           "  -h, --help              this text\n");
}

static bool parse(int argc, char ** argv, struct options * o) {
    *o = (struct options) { .device = "CPU", .n_predict = 64, .n_threads = 2, .n_batch = 512, .n_ctx = 2048, .flash_attn = -1,
                            .sp = { .temp = 0.0f, .top_k = 40, .top_p = 0.95f, .min_p = 0.05f, .repeat_penalty = 1.0f,
                                    .repeat_last_n = 64, .seed = 42 } };
    for (int i = 1; i < argc; i++) {
        const char * a = argv[i];
        const char * val = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if      (!strcmp(a, "-m") || !strcmp(a, "--model")) { if (val) o->model = val; }
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) { if (val) o->prompt = val; }
        else if (!strcmp(a, "-n")) { if (val) o->n_predict = atoi(val); }
        else if (!strcmp(a, "--device")) { if (val) o->device = val; }
        else if (!strcmp(a, "--threads") || !strcmp(a, "-t")) { if (val) o->n_threads = atoi(val); }
        else if (!strcmp(a, "--batch") || !strcmp(a, "-b")) { if (val) o->n_batch = atoi(val); }
        else if (!strcmp(a, "--ctx") || !strcmp(a, "-c")) { if (val) o->n_ctx = atoi(val); }
        else if (!strcmp(a, "--flash-attn")) {
            if (val) o->flash_attn = !strcmp(val, "on") ? 1 : !strcmp(val, "off") ? 0 : -1;
        }
        else if (!strcmp(a, "--temp")) { if (val) o->sp.temp = (float) atof(val); }
        else if (!strcmp(a, "--top-k")) { if (val) o->sp.top_k = atoi(val); }
        else if (!strcmp(a, "--top-p")) { if (val) o->sp.top_p = (float) atof(val); }
        else if (!strcmp(a, "--min-p")) { if (val) o->sp.min_p = (float) atof(val); }
        else if (!strcmp(a, "--repeat-penalty")) { if (val) o->sp.repeat_penalty = (float) atof(val); }
        else if (!strcmp(a, "--seed")) { if (val) o->sp.seed = strtoull(val, NULL, 10); }
        else if (!strcmp(a, "--random-prompt")) { if (val) o->random_prompt = atoi(val); }
        else {
            takes = false;
            if      (!strcmp(a, "--chat")) o->chat = true;
            else if (!strcmp(a, "--ids")) o->ids = true;
            else if (!strcmp(a, "--no-fuse")) o->no_fuse = true;
            else if (!strcmp(a, "--ignore-eos")) o->ignore_eos = true;
            else if (!strcmp(a, "--verbose")) o->verbose = true;
            else if (!strcmp(a, "--list-devices")) o->list_devices = true;
            else if (!strcmp(a, "-h") || !strcmp(a, "--help")) o->help = true;
            else { fprintf(stderr, "error: unknown option '%s'\n", a); usage(); return false; }
        }
        if (takes) {
            if (!val) { fprintf(stderr, "error: option '%s' needs a value\n", a); return false; }
            i++;
        }
    }
    if (o->list_devices || o->help) {
        return true;
    }
    if (!o->model || (!o->prompt && o->random_prompt <= 0)) {
        usage();
        return false;
    }
    if (o->n_threads < 1 || o->n_batch < 1 || o->n_ctx < 1 || o->n_predict < 0) {
        fprintf(stderr, "error: --threads, --batch, --ctx must be positive and -n not negative\n");
        return false;
    }
    return true;
}

// writes the bytes of generated text, holding back an incomplete UTF-8 sequence at the end
static void stream(char * pending, int * n_pending, const char * bytes, int n) {
    for (int i = 0; i < n; i++) pending[(*n_pending)++] = bytes[i];
    int complete = *n_pending;
    for (int back = 1; back <= 3 && back <= *n_pending; back++) {
        unsigned char c = (unsigned char) pending[*n_pending - back];
        if ((c & 0xC0) == 0x80) continue;            // continuation byte: look further back
        int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (need > back) complete = *n_pending - back;
        break;
    }
    fwrite(pending, 1, (size_t) complete, stdout);
    fflush(stdout);
    memmove(pending, pending + complete, (size_t) (*n_pending - complete));
    *n_pending -= complete;
}

// the library logs its errors as they happen; the runner prints one line per error itself (with
// the library's last error message), so the library's log shows only with --verbose
static void quiet_log(enum ggml_log_level level, const char * text, void * user_data) {
    (void) level; (void) text; (void) user_data;
}

int main(int argc, char ** argv) {
    struct options o;
    if (!parse(argc, argv, &o)) {
        return 1;
    }
    ggml_time_init();
    if (!o.verbose) {
        ggml_log_set(quiet_log, NULL);
    }
    if (o.help) {
        help();
        return 0;
    }
    if (o.list_devices) {
        llm_print_devices(stdout);
        return 0;
    }
    if (o.verbose) {
        llm_print_devices(stderr);
    }
    struct llm_context * lctx = llm_context_new_fuse(o.model, o.device, o.n_threads, (uint32_t) o.n_ctx, o.n_batch,
                                                     GGML_TYPE_F16, o.flash_attn, o.no_fuse ? 0 : -1);
    if (!lctx) {
        return 1;
    }
    int rc = 1;
    int32_t * tokens = NULL;
    char * text = NULL;
    struct llm_sampler * sampler = NULL;
    struct llm_vocab * vocab = llm_vocab_load(lctx->model->gguf);
    if (!vocab) goto out;
    if (o.verbose) {
        llm_print_placement(stderr, lctx);
    }
    text = !o.prompt ? dup_n("", 0) : o.chat ? llm_chat_apply(o.prompt) : dup_n(o.prompt, strlen(o.prompt));
    int cap = (int) lctx->kv.n_ctx;
    tokens = malloc(sizeof(int32_t) * (size_t) cap);
    sampler = llm_sampler_new(o.sp, (int) lctx->model->hp.n_vocab);
    if (!text || !tokens || !sampler) { fprintf(stderr, "error: out of memory\n"); goto out; }
    int n_prompt = o.random_prompt > 0 ? o.random_prompt : llm_tokenize(vocab, text, true, tokens, cap);
    for (int i = 0; o.random_prompt > 0 && i < n_prompt && i < cap; i++) {   // like the family's llama-bench
        tokens[i] = (int32_t) ((1103515245u * (uint32_t) i + 12345u) % (uint32_t) lctx->model->hp.n_vocab);
    }
    if (n_prompt < 0 || n_prompt >= cap) {
        fprintf(stderr, "error: the prompt is longer than the context (%d tokens)\n", cap);
        goto out;
    }
    if (n_prompt == 0) { fprintf(stderr, "error: the prompt is empty\n"); goto out; }

    double t0 = now_ms();
    if (!llm_eval(lctx, tokens, n_prompt, false)) goto out;
    double t_prompt = now_ms() - t0;

    char pending[16]; int n_pending = 0;
    int n_gen = 0, n = n_prompt;
    double t1 = now_ms();
    while (n_gen < o.n_predict && n < cap) {
        int32_t t = llm_sample(sampler, lctx->logits, tokens, n);
        tokens[n++] = t;
        n_gen++;
        if (t == llm_vocab_eos(vocab) && !o.ignore_eos) break;
        char bytes[256];
        int nb = llm_token_to_bytes(vocab, t, bytes, (int) sizeof(bytes) - 4);
        stream(pending, &n_pending, bytes, nb);
        if (n_gen < o.n_predict && n < cap && !llm_eval(lctx, &t, 1, false)) goto out;
    }
    double t_gen = now_ms() - t1;
    fwrite(pending, 1, (size_t) n_pending, stdout);
    printf("\n");
    if (o.ids) {
        for (int i = n_prompt; i < n; i++) printf(i > n_prompt ? " %d" : "%d", tokens[i]);
        printf("\n");
    }
    printf("prompt: %d tokens in %.1f ms, %.1f tokens/s\n", n_prompt, t_prompt, n_prompt * 1e3 / (t_prompt > 0 ? t_prompt : 1e-9));
    printf("generation: %d tokens in %.1f ms, %.1f tokens/s\n", n_gen, t_gen, n_gen * 1e3 / (t_gen > 0 ? t_gen : 1e-9));
    rc = 0;
out:
    llm_sampler_free(sampler);
    free(tokens);
    free(text);
    llm_vocab_free(vocab);
    llm_context_free(lctx);
    return rc;
}
