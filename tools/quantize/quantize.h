#pragma once

// The quantize tool: GGUF model in, GGUF model of a quantized type out (docs/gguf.md).

#include "ggml.h"
#include "gguf.h"

#include <stdbool.h>
#include <stdint.h>

// the model file types of the family (general.file_type; LLAMA_FTYPE_* numbers)
enum model_ftype {
    FTYPE_ALL_F32   = 0,
    FTYPE_F16       = 1,
    FTYPE_Q4_0      = 2,
    FTYPE_Q4_1      = 3,
    FTYPE_Q8_0      = 7,
    FTYPE_Q5_0      = 8,
    FTYPE_Q5_1      = 9,
    FTYPE_Q2_K      = 10,
    FTYPE_Q3_K_S    = 11,
    FTYPE_Q3_K_M    = 12,
    FTYPE_Q3_K_L    = 13,
    FTYPE_Q4_K_S    = 14,
    FTYPE_Q4_K_M    = 15,
    FTYPE_Q5_K_S    = 16,
    FTYPE_Q5_K_M    = 17,
    FTYPE_Q6_K      = 18,
    FTYPE_Q2_K_S    = 21,
    FTYPE_IQ4_NL    = 25,
    FTYPE_IQ4_XS    = 30,
    FTYPE_BF16      = 32,
    FTYPE_TQ1_0     = 36,
    FTYPE_TQ2_0     = 37,
    FTYPE_MXFP4_MOE = 38,
};

struct ftype_info {
    const char *     name;          // as given on the command line, e.g. "Q4_K_M"
    enum model_ftype ftype;
    enum ggml_type   default_type;  // the type of most quantized tensors
    const char *     description;
};

// the file type of a command-line name (case-insensitive), or NULL
const struct ftype_info * ftype_by_name(const char * name);
void ftype_print_all(void);

// what the rules need to know about the model
struct model_info {
    int  n_head;
    int  n_head_kv;
    int  n_expert;
    bool has_output;      // output.weight exists (else the embeddings are tied)
    int  n_attn_v;        // tensors of each counted category
    int  n_ffn_down;
    bool has_imatrix;
};

// counters the rules advance tensor by tensor, in file order
struct rule_state {
    int i_attn_v;
    int i_ffn_down;
    int n_fallback;  // tensors whose row length did not fit the chosen type's block
};

void model_info_init(struct model_info * mi, const struct gguf_context * g, bool has_imatrix);

// the type a tensor gets: its own type when it is not quantized (1D, norms, ...), else the
// family's choice for the file type (higher precision for output, attn_v, ffn_down ... by layer),
// with the family's fallbacks when the row length does not fit the block size
enum ggml_type choose_type(const struct ftype_info * ft, const struct model_info * mi, struct rule_state * rs,
                           const char * name, const int64_t * ne, int n_dims, enum ggml_type src_type, bool pure);

// importance matrices (--imatrix): GGUF (<name>.in_sum2 / <name>.counts) or the legacy binary format
struct imatrix;
struct imatrix * imatrix_load(const char * fname);
void             imatrix_free(struct imatrix * im);
int              imatrix_count(const struct imatrix * im);
// n_per_row * n_mat weights for the tensor, or NULL when the file has none for it (or of another size)
const float *    imatrix_find(const struct imatrix * im, const char * tensor_name, int64_t n_per_row, int64_t n_mat);
