// ABI facts of the ggml family that programs and files written for it depend on: numeric ids of
// every public enum, constants, the memory layout of public structs on x86-64 (LP64), and the
// block size / type size / name of every element type. The expected values are written out here
// from the family's public headers and quantization block layouts (not from our headers), so a
// renumbering or a layout change on our side shows up as a named failure.
//
// Everything is checked at run time (not with _Static_assert) so that a mismatch is reported as
// a failing test with the values involved instead of breaking the build of every other target.

#include "ggml-backend-impl.h" // GGML_BACKEND_API_VERSION
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-common.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPECT_EQ(what, got, want) \
    TEST_CHECK_MSG((long long) (got) == (long long) (want), "%s = %lld, the family has %lld", what, \
            (long long) (got), (long long) (want))
#define EXPECT_VAL(name, want) EXPECT_EQ(#name, name, want)

static void check_type_ids(void) {
    EXPECT_VAL(GGML_TYPE_F32, 0);
    EXPECT_VAL(GGML_TYPE_F16, 1);
    EXPECT_VAL(GGML_TYPE_Q4_0, 2);
    EXPECT_VAL(GGML_TYPE_Q4_1, 3);
    EXPECT_VAL(GGML_TYPE_Q5_0, 6);
    EXPECT_VAL(GGML_TYPE_Q5_1, 7);
    EXPECT_VAL(GGML_TYPE_Q8_0, 8);
    EXPECT_VAL(GGML_TYPE_Q8_1, 9);
    EXPECT_VAL(GGML_TYPE_Q2_K, 10);
    EXPECT_VAL(GGML_TYPE_Q3_K, 11);
    EXPECT_VAL(GGML_TYPE_Q4_K, 12);
    EXPECT_VAL(GGML_TYPE_Q5_K, 13);
    EXPECT_VAL(GGML_TYPE_Q6_K, 14);
    EXPECT_VAL(GGML_TYPE_Q8_K, 15);
    EXPECT_VAL(GGML_TYPE_IQ2_XXS, 16);
    EXPECT_VAL(GGML_TYPE_IQ2_XS, 17);
    EXPECT_VAL(GGML_TYPE_IQ3_XXS, 18);
    EXPECT_VAL(GGML_TYPE_IQ1_S, 19);
    EXPECT_VAL(GGML_TYPE_IQ4_NL, 20);
    EXPECT_VAL(GGML_TYPE_IQ3_S, 21);
    EXPECT_VAL(GGML_TYPE_IQ2_S, 22);
    EXPECT_VAL(GGML_TYPE_IQ4_XS, 23);
    EXPECT_VAL(GGML_TYPE_I8, 24);
    EXPECT_VAL(GGML_TYPE_I16, 25);
    EXPECT_VAL(GGML_TYPE_I32, 26);
    EXPECT_VAL(GGML_TYPE_I64, 27);
    EXPECT_VAL(GGML_TYPE_F64, 28);
    EXPECT_VAL(GGML_TYPE_IQ1_M, 29);
    EXPECT_VAL(GGML_TYPE_BF16, 30);
    EXPECT_VAL(GGML_TYPE_TQ1_0, 34);
    EXPECT_VAL(GGML_TYPE_TQ2_0, 35);
    EXPECT_VAL(GGML_TYPE_MXFP4, 39);
    EXPECT_VAL(GGML_TYPE_NVFP4, 40);
    EXPECT_VAL(GGML_TYPE_Q1_0, 41);
    EXPECT_VAL(GGML_TYPE_Q2_0, 42);
    EXPECT_VAL(GGML_TYPE_COUNT, 43);
}

// One row per live type: name, elements per block, bytes per block, quantized. Byte counts from
// the family's block structs (QK_K = 256 elements per super-block):
//   q4_0  = half d + 16 nibble bytes                         = 18 per 32
//   q4_1  = half d, m + 16                                   = 20 per 32
//   q5_0  = half d + 4 high-bit bytes + 16                   = 22 per 32
//   q5_1  = half d, m + 4 + 16                               = 24 per 32
//   q8_0  = half d + 32                                      = 34 per 32
//   q8_1  = half d, s + 32                                   = 36 per 32
//   q2_K  = 16 scales + 64 quants + half d, dmin             = 84
//   q3_K  = 32 hmask + 64 quants + 12 scales + half d        = 110
//   q4_K  = half d, dmin + 12 scales + 128 quants            = 144
//   q5_K  = 4 + 12 + 32 high bits + 128                      = 176
//   q6_K  = 128 low + 64 high + 16 scales + half d           = 210
//   q8_K  = float d + 256 quants + 16 int16 block sums       = 292
//   iq2_xxs = half d + 32 uint16                             = 66
//   iq2_xs  = half d + 32 uint16 + 8 scales                  = 74
//   iq3_xxs = half d + 3*256/8                               = 98
//   iq1_s   = half d + 32 + 8 uint16                         = 50
//   iq4_nl  = half d + 16                                    = 18 per 32
//   iq3_s   = half d + 64 + 8 high + 32 signs + 4 scales     = 110
//   iq2_s   = half d + 64 + 8 high + 8 scales                = 82
//   iq4_xs  = half d + uint16 scales_h + 4 scales_l + 128    = 136
//   iq1_m   = 32 + 16 + 8 scales                             = 56
//   tq1_0   = (256 - 4*256/64)/5 = 48 + 256/64 = 4 + half d  = 54
//   tq2_0   = 64 + half d                                    = 66
//   mxfp4   = e8m0 scale + 16 nibble bytes                   = 17 per 32
//   nvfp4   = 4 ue4m3 scales + 32 nibble bytes               = 36 per 64
//   q1_0    = half d + 128/8                                 = 18 per 128
//   q2_0    = half d + 64/4                                  = 18 per 64
static const struct {
    enum ggml_type type;
    const char *   name;
    int64_t        blck_size;
    size_t         type_size;
    bool           quantized;
} k_types[] = {
    { GGML_TYPE_F32,     "f32",      1,   4,   false },
    { GGML_TYPE_F16,     "f16",      1,   2,   false },
    { GGML_TYPE_Q4_0,    "q4_0",     32,  18,  true  },
    { GGML_TYPE_Q4_1,    "q4_1",     32,  20,  true  },
    { GGML_TYPE_Q5_0,    "q5_0",     32,  22,  true  },
    { GGML_TYPE_Q5_1,    "q5_1",     32,  24,  true  },
    { GGML_TYPE_Q8_0,    "q8_0",     32,  34,  true  },
    { GGML_TYPE_Q8_1,    "q8_1",     32,  36,  true  },
    { GGML_TYPE_Q2_K,    "q2_K",     256, 84,  true  },
    { GGML_TYPE_Q3_K,    "q3_K",     256, 110, true  },
    { GGML_TYPE_Q4_K,    "q4_K",     256, 144, true  },
    { GGML_TYPE_Q5_K,    "q5_K",     256, 176, true  },
    { GGML_TYPE_Q6_K,    "q6_K",     256, 210, true  },
    { GGML_TYPE_Q8_K,    "q8_K",     256, 292, true  },
    { GGML_TYPE_IQ2_XXS, "iq2_xxs",  256, 66,  true  },
    { GGML_TYPE_IQ2_XS,  "iq2_xs",   256, 74,  true  },
    { GGML_TYPE_IQ3_XXS, "iq3_xxs",  256, 98,  true  },
    { GGML_TYPE_IQ1_S,   "iq1_s",    256, 50,  true  },
    { GGML_TYPE_IQ4_NL,  "iq4_nl",   32,  18,  true  },
    { GGML_TYPE_IQ3_S,   "iq3_s",    256, 110, true  },
    { GGML_TYPE_IQ2_S,   "iq2_s",    256, 82,  true  },
    { GGML_TYPE_IQ4_XS,  "iq4_xs",   256, 136, true  },
    { GGML_TYPE_I8,      "i8",       1,   1,   false },
    { GGML_TYPE_I16,     "i16",      1,   2,   false },
    { GGML_TYPE_I32,     "i32",      1,   4,   false },
    { GGML_TYPE_I64,     "i64",      1,   8,   false },
    { GGML_TYPE_F64,     "f64",      1,   8,   false },
    { GGML_TYPE_IQ1_M,   "iq1_m",    256, 56,  true  },
    { GGML_TYPE_BF16,    "bf16",     1,   2,   false },
    { GGML_TYPE_TQ1_0,   "tq1_0",    256, 54,  true  },
    { GGML_TYPE_TQ2_0,   "tq2_0",    256, 66,  true  },
    { GGML_TYPE_MXFP4,   "mxfp4",    32,  17,  true  },
    { GGML_TYPE_NVFP4,   "nvfp4",    64,  36,  true  },
    { GGML_TYPE_Q1_0,    "q1_0",     128, 18,  true  },
    { GGML_TYPE_Q2_0,    "q2_0",     64,  18,  true  },
};

static void check_type_traits(void) {
    const size_t n = sizeof(k_types) / sizeof(k_types[0]);
    TEST_CHECK_MSG(n == 35, "the family has 35 live type ids, the table here %zu", n);
    for (size_t i = 0; i < n; i++) {
        const enum ggml_type t = k_types[i].type;
        TEST_CHECK_MSG(strcmp(ggml_type_name(t), k_types[i].name) == 0, "ggml_type_name(%d) = '%s', the family has '%s'",
                (int) t, ggml_type_name(t), k_types[i].name);
        TEST_CHECK_MSG(ggml_blck_size(t) == k_types[i].blck_size, "ggml_blck_size(%s) = %lld, the family has %lld",
                k_types[i].name, (long long) ggml_blck_size(t), (long long) k_types[i].blck_size);
        TEST_CHECK_MSG(ggml_type_size(t) == k_types[i].type_size, "ggml_type_size(%s) = %zu, the family has %zu",
                k_types[i].name, ggml_type_size(t), k_types[i].type_size);
        TEST_CHECK_MSG(ggml_is_quantized(t) == k_types[i].quantized, "ggml_is_quantized(%s) = %d", k_types[i].name,
                (int) ggml_is_quantized(t));
        TEST_CHECK_MSG(ggml_row_size(t, 4 * k_types[i].blck_size) == 4 * k_types[i].type_size, "ggml_row_size(%s)",
                k_types[i].name);

        const struct ggml_type_traits * tt = ggml_get_type_traits(t);
        TEST_CHECK_MSG(tt != NULL, "ggml_get_type_traits(%s) is NULL", k_types[i].name);
        if (tt != NULL) {
            TEST_CHECK_MSG(strcmp(tt->type_name, k_types[i].name) == 0 && tt->blck_size == k_types[i].blck_size &&
                    tt->type_size == k_types[i].type_size && tt->is_quantized == k_types[i].quantized,
                    "type traits of %s", k_types[i].name);
        }
    }
}

static void check_op_ids(void) {
    // every id of the family's enum ggml_op, in order
    static const struct { int id; const char * name; int ours; } ops[] = {
#define OP(id, name) { id, #name, GGML_OP_##name }
        OP(0, NONE), OP(1, DUP), OP(2, ADD), OP(3, ADD_ID), OP(4, ADD1), OP(5, ACC), OP(6, SUB), OP(7, MUL), OP(8, DIV),
        OP(9, SQR), OP(10, SQRT), OP(11, LOG), OP(12, SIN), OP(13, COS), OP(14, SUM), OP(15, SUM_ROWS), OP(16, CUMSUM),
        OP(17, MEAN), OP(18, ARGMAX), OP(19, COUNT_EQUAL), OP(20, REPEAT), OP(21, REPEAT_BACK), OP(22, CONCAT),
        OP(23, SILU_BACK), OP(24, NORM), OP(25, RMS_NORM), OP(26, RMS_NORM_BACK), OP(27, GROUP_NORM), OP(28, L2_NORM),
        OP(29, MUL_MAT), OP(30, MUL_MAT_ID), OP(31, OUT_PROD), OP(32, SCALE), OP(33, SET), OP(34, CPY), OP(35, CONT),
        OP(36, RESHAPE), OP(37, VIEW), OP(38, PERMUTE), OP(39, TRANSPOSE), OP(40, GET_ROWS), OP(41, GET_ROWS_BACK),
        OP(42, SET_ROWS), OP(43, DIAG), OP(44, DIAG_MASK_INF), OP(45, DIAG_MASK_ZERO), OP(46, SOFT_MAX),
        OP(47, SOFT_MAX_BACK), OP(48, ROPE), OP(49, ROPE_BACK), OP(50, CLAMP), OP(51, CONV_TRANSPOSE_1D), OP(52, IM2COL),
        OP(53, IM2COL_BACK), OP(54, IM2COL_3D), OP(55, COL2IM_1D), OP(56, CONV_2D), OP(57, CONV_3D), OP(58, CONV_2D_DW),
        OP(59, CONV_TRANSPOSE_2D), OP(60, POOL_1D), OP(61, POOL_2D), OP(62, POOL_2D_BACK), OP(63, UPSCALE), OP(64, PAD),
        OP(65, PAD_REFLECT_1D), OP(66, ROLL), OP(67, ARANGE), OP(68, TIMESTEP_EMBEDDING), OP(69, ARGSORT), OP(70, TOP_K),
        OP(71, LEAKY_RELU), OP(72, TRI), OP(73, FILL), OP(74, FLASH_ATTN_EXT), OP(75, FLASH_ATTN_BACK), OP(76, SSM_CONV),
        OP(77, SSM_SCAN), OP(78, WIN_PART), OP(79, WIN_UNPART), OP(80, GET_REL_POS), OP(81, ADD_REL_POS),
        OP(82, RWKV_WKV6), OP(83, GATED_LINEAR_ATTN), OP(84, RWKV_WKV7), OP(85, SOLVE_TRI), OP(86, GATED_DELTA_NET),
        OP(87, LIGHTNING_INDEXER), OP(88, DSV4_HC_COMB), OP(89, DSV4_HC_PRE), OP(90, DSV4_HC_POST), OP(91, UNARY),
        OP(92, MAP_CUSTOM1), OP(93, MAP_CUSTOM2), OP(94, MAP_CUSTOM3), OP(95, CUSTOM), OP(96, CROSS_ENTROPY_LOSS),
        OP(97, CROSS_ENTROPY_LOSS_BACK), OP(98, OPT_STEP_ADAMW), OP(99, OPT_STEP_SGD), OP(100, GLU),
#undef OP
    };
    const int n = (int) (sizeof(ops) / sizeof(ops[0]));
    EXPECT_VAL(GGML_OP_COUNT, 101);
    TEST_CHECK(n == 101);
    for (int i = 0; i < n; i++) {
        TEST_CHECK_MSG(ops[i].ours == ops[i].id, "GGML_OP_%s = %d, the family has %d", ops[i].name, ops[i].ours, ops[i].id);
        // the op test tool and users filter by these names: each is the enum name without its prefix
        const char * name = ggml_op_name((enum ggml_op) ops[i].ours);
        TEST_CHECK_MSG(name != NULL && strcmp(name, ops[i].name) == 0, "ggml_op_name(GGML_OP_%s) = '%s'", ops[i].name,
                name ? name : "(null)");
        TEST_CHECK_MSG(ggml_op_symbol((enum ggml_op) ops[i].ours) != NULL, "ggml_op_symbol(GGML_OP_%s) is NULL", ops[i].name);
    }
}

static void check_unary_glu_ids(void) {
    static const struct { int id; const char * name; int ours; } unary[] = {
#define U(id, name) { id, #name, GGML_UNARY_OP_##name }
        U(0, ABS), U(1, SGN), U(2, NEG), U(3, STEP), U(4, TANH), U(5, ELU), U(6, RELU), U(7, SIGMOID), U(8, GELU),
        U(9, GELU_QUICK), U(10, SILU), U(11, HARDSWISH), U(12, HARDSIGMOID), U(13, EXP), U(14, EXPM1), U(15, SOFTPLUS),
        U(16, GELU_ERF), U(17, XIELU), U(18, FLOOR), U(19, CEIL), U(20, ROUND), U(21, TRUNC),
#undef U
    };
    EXPECT_VAL(GGML_UNARY_OP_COUNT, 22);
    for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++) {
        TEST_CHECK_MSG(unary[i].ours == unary[i].id, "GGML_UNARY_OP_%s = %d, the family has %d", unary[i].name,
                unary[i].ours, unary[i].id);
        const char * name = ggml_unary_op_name((enum ggml_unary_op) unary[i].ours);
        TEST_CHECK_MSG(name != NULL && strcmp(name, unary[i].name) == 0, "ggml_unary_op_name(%s) = '%s'", unary[i].name,
                name ? name : "(null)");
    }

    static const struct { int id; const char * name; int ours; } glu[] = {
#define G(id, name) { id, #name, GGML_GLU_OP_##name }
        G(0, REGLU), G(1, GEGLU), G(2, SWIGLU), G(3, SWIGLU_OAI), G(4, GEGLU_ERF), G(5, GEGLU_QUICK),
#undef G
    };
    EXPECT_VAL(GGML_GLU_OP_COUNT, 6);
    for (size_t i = 0; i < sizeof(glu) / sizeof(glu[0]); i++) {
        TEST_CHECK_MSG(glu[i].ours == glu[i].id, "GGML_GLU_OP_%s = %d, the family has %d", glu[i].name, glu[i].ours,
                glu[i].id);
        const char * name = ggml_glu_op_name((enum ggml_glu_op) glu[i].ours);
        TEST_CHECK_MSG(name != NULL && strcmp(name, glu[i].name) == 0, "ggml_glu_op_name(%s) = '%s'", glu[i].name,
                name ? name : "(null)");
    }
}

static void check_other_enums(void) {
    EXPECT_VAL(GGML_STATUS_ALLOC_FAILED, -2);
    EXPECT_VAL(GGML_STATUS_FAILED, -1);
    EXPECT_VAL(GGML_STATUS_SUCCESS, 0);
    EXPECT_VAL(GGML_STATUS_ABORTED, 1);
    const enum ggml_status st[4] = { GGML_STATUS_ALLOC_FAILED, GGML_STATUS_FAILED, GGML_STATUS_SUCCESS, GGML_STATUS_ABORTED };
    for (int i = 0; i < 4; i++) {
        TEST_CHECK_MSG(ggml_status_to_string(st[i]) != NULL, "ggml_status_to_string(%d) is NULL", (int) st[i]);
        for (int j = 0; j < i; j++) {
            TEST_CHECK_MSG(strcmp(ggml_status_to_string(st[i]), ggml_status_to_string(st[j])) != 0,
                    "statuses %d and %d have the same text", (int) st[i], (int) st[j]);
        }
    }

    EXPECT_VAL(GGML_LOG_LEVEL_NONE, 0);
    EXPECT_VAL(GGML_LOG_LEVEL_DEBUG, 1);
    EXPECT_VAL(GGML_LOG_LEVEL_INFO, 2);
    EXPECT_VAL(GGML_LOG_LEVEL_WARN, 3);
    EXPECT_VAL(GGML_LOG_LEVEL_ERROR, 4);
    EXPECT_VAL(GGML_LOG_LEVEL_CONT, 5);

    EXPECT_VAL(GGML_TENSOR_FLAG_INPUT, 1);
    EXPECT_VAL(GGML_TENSOR_FLAG_OUTPUT, 2);
    EXPECT_VAL(GGML_TENSOR_FLAG_PARAM, 4);
    EXPECT_VAL(GGML_TENSOR_FLAG_LOSS, 8);
    EXPECT_VAL(GGML_TENSOR_FLAG_COMPUTE, 16);

    EXPECT_VAL(GGML_PREC_DEFAULT, 0);
    EXPECT_VAL(GGML_PREC_F32, 10);

    EXPECT_VAL(GGML_OBJECT_TYPE_TENSOR, 0);
    EXPECT_VAL(GGML_OBJECT_TYPE_GRAPH, 1);
    EXPECT_VAL(GGML_OBJECT_TYPE_WORK_BUFFER, 2);

    EXPECT_VAL(GGML_SORT_ORDER_ASC, 0);
    EXPECT_VAL(GGML_SORT_ORDER_DESC, 1);

    EXPECT_VAL(GGML_OP_POOL_MAX, 0);
    EXPECT_VAL(GGML_OP_POOL_AVG, 1);
    EXPECT_VAL(GGML_OP_POOL_COUNT, 2);

    EXPECT_VAL(GGML_SCHED_PRIO_LOW, -1);
    EXPECT_VAL(GGML_SCHED_PRIO_NORMAL, 0);
    EXPECT_VAL(GGML_SCHED_PRIO_MEDIUM, 1);
    EXPECT_VAL(GGML_SCHED_PRIO_HIGH, 2);
    EXPECT_VAL(GGML_SCHED_PRIO_REALTIME, 3);

    EXPECT_VAL(GGML_NUMA_STRATEGY_DISABLED, 0);
    EXPECT_VAL(GGML_NUMA_STRATEGY_DISTRIBUTE, 1);
    EXPECT_VAL(GGML_NUMA_STRATEGY_ISOLATE, 2);
    EXPECT_VAL(GGML_NUMA_STRATEGY_NUMACTL, 3);
    EXPECT_VAL(GGML_NUMA_STRATEGY_MIRROR, 4);
    EXPECT_VAL(GGML_NUMA_STRATEGY_COUNT, 5);

    EXPECT_VAL(GGML_BACKEND_BUFFER_USAGE_ANY, 0);
    EXPECT_VAL(GGML_BACKEND_BUFFER_USAGE_WEIGHTS, 1);
    EXPECT_VAL(GGML_BACKEND_BUFFER_USAGE_COMPUTE, 2);

    EXPECT_VAL(GGML_BACKEND_DEVICE_TYPE_CPU, 0);
    EXPECT_VAL(GGML_BACKEND_DEVICE_TYPE_GPU, 1);
    EXPECT_VAL(GGML_BACKEND_DEVICE_TYPE_IGPU, 2);
    EXPECT_VAL(GGML_BACKEND_DEVICE_TYPE_ACCEL, 3);
    EXPECT_VAL(GGML_BACKEND_DEVICE_TYPE_META, 4);

    EXPECT_VAL(GGML_BACKEND_API_VERSION, 2);
}

static void check_constants(void) {
    EXPECT_VAL(GGML_FILE_MAGIC, 0x67676d6c);
    EXPECT_VAL(GGML_FILE_VERSION, 2);
    EXPECT_VAL(GGML_QNT_VERSION, 2);
    EXPECT_VAL(GGML_QNT_VERSION_FACTOR, 1000);
    EXPECT_VAL(GGML_MAX_DIMS, 4);
    EXPECT_VAL(GGML_MAX_PARAMS, 2048);
    EXPECT_VAL(GGML_MAX_SRC, 10);
    EXPECT_VAL(GGML_MAX_N_THREADS, 512);
    EXPECT_VAL(GGML_MAX_OP_PARAMS, 64);
    EXPECT_VAL(GGML_MAX_NAME, 64);
    EXPECT_VAL(GGML_DEFAULT_N_THREADS, 4);
    EXPECT_VAL(GGML_DEFAULT_GRAPH_SIZE, 2048);
    EXPECT_VAL(GGML_MEM_ALIGN, 16);
    EXPECT_VAL(GGML_EXIT_SUCCESS, 0);
    EXPECT_VAL(GGML_EXIT_ABORTED, 1);
    EXPECT_VAL(GGML_ROPE_TYPE_NORMAL, 0);
    EXPECT_VAL(GGML_ROPE_TYPE_NEOX, 2);
    EXPECT_VAL(GGML_ROPE_TYPE_MROPE, 8);
    EXPECT_VAL(GGML_ROPE_TYPE_VISION, 24);
    EXPECT_VAL(GGML_ROPE_TYPE_IMROPE, 40);
    EXPECT_VAL(GGML_MROPE_SECTIONS, 4);
    EXPECT_VAL(GGML_KQ_MASK_PAD, 1);
    EXPECT_VAL(GGML_N_TASKS_MAX, -1);

    EXPECT_VAL(GGML_PAD(1, 32), 32);
    EXPECT_VAL(GGML_PAD(64, 32), 64);
    EXPECT_VAL(GGML_PAD(65, 64), 128);
    EXPECT_VAL(GGML_PAD(0, 16), 0);
}

// struct ggml_tensor on LP64, member by member (offset: size):
//   type            0: 4  (enum), then 4 bytes of padding for the pointer
//   buffer          8: 8
//   ne[4]          16: 32
//   nb[4]          48: 32
//   op             80: 4
//   op_params[16]  84: 64
//   flags         148: 4
//   src[10]       152: 80
//   view_src      232: 8
//   view_offs     240: 8
//   data          248: 8
//   name[64]      256: 64
//   extra         320: 8
//   padding[8]    328: 8
//   sizeof = 336 (a multiple of GGML_MEM_ALIGN)
static void check_tensor_layout(void) {
    EXPECT_EQ("offsetof(ggml_tensor, type)", offsetof(struct ggml_tensor, type), 0);
    EXPECT_EQ("offsetof(ggml_tensor, buffer)", offsetof(struct ggml_tensor, buffer), 8);
    EXPECT_EQ("offsetof(ggml_tensor, ne)", offsetof(struct ggml_tensor, ne), 16);
    EXPECT_EQ("offsetof(ggml_tensor, nb)", offsetof(struct ggml_tensor, nb), 48);
    EXPECT_EQ("offsetof(ggml_tensor, op)", offsetof(struct ggml_tensor, op), 80);
    EXPECT_EQ("offsetof(ggml_tensor, op_params)", offsetof(struct ggml_tensor, op_params), 84);
    EXPECT_EQ("offsetof(ggml_tensor, flags)", offsetof(struct ggml_tensor, flags), 148);
    EXPECT_EQ("offsetof(ggml_tensor, src)", offsetof(struct ggml_tensor, src), 152);
    EXPECT_EQ("offsetof(ggml_tensor, view_src)", offsetof(struct ggml_tensor, view_src), 232);
    EXPECT_EQ("offsetof(ggml_tensor, view_offs)", offsetof(struct ggml_tensor, view_offs), 240);
    EXPECT_EQ("offsetof(ggml_tensor, data)", offsetof(struct ggml_tensor, data), 248);
    EXPECT_EQ("offsetof(ggml_tensor, name)", offsetof(struct ggml_tensor, name), 256);
    EXPECT_EQ("offsetof(ggml_tensor, extra)", offsetof(struct ggml_tensor, extra), 320);
    EXPECT_EQ("offsetof(ggml_tensor, padding)", offsetof(struct ggml_tensor, padding), 328);
    EXPECT_EQ("sizeof(struct ggml_tensor)", sizeof(struct ggml_tensor), 336);
    EXPECT_EQ("GGML_TENSOR_SIZE", GGML_TENSOR_SIZE, 336);
    EXPECT_EQ("sizeof(ggml_tensor) % GGML_MEM_ALIGN", sizeof(struct ggml_tensor) % GGML_MEM_ALIGN, 0);
    EXPECT_EQ("op_params elements", sizeof(((struct ggml_tensor *) 0)->op_params) / sizeof(int32_t), 16);
}

// The other public structs (LP64; bool is 1 byte, enums 4):
//   ggml_init_params        mem_size 0, mem_buffer 8, no_alloc 16              -> 24
//   ggml_tallocr            buffer 0, base 8, alignment 16, offset 24          -> 32
//   ggml_cplan              work_size 0, work_data 8, n_threads 16, threadpool 24,
//                           abort_callback 32, abort_callback_data 40, use_ref 48 -> 56
//   ggml_threadpool_params  cpumask[512] 0, n_threads 512, prio 516, poll 520,
//                           strict_cpu 524, paused 525                          -> 528
//   ggml_type_traits        type_name 0, blck_size 8, blck_size_interleave 16,
//                           type_size 24, is_quantized 32, to_float 40, from_float_ref 48 -> 56
//   ggml_backend_dev_caps   async 0, host_buffer 1, buffer_from_host_ptr 2, events 3,
//                           mmap_support 4                                      -> 5
//   ggml_backend_dev_props  name 0, description 8, memory_free 16, memory_total 24,
//                           type 32, device_id 40, caps 48                      -> 56
//   ggml_backend_graph_copy buffer 0, ctx_allocated 8, ctx_unallocated 16, graph 24 -> 32
//   ggml_backend_feature    name 0, value 8                                     -> 16
//   ggml_bf16_t             bits 0                                              -> 2
static void check_struct_layouts(void) {
#define OFF(type, member, want) EXPECT_EQ("offsetof(" #type ", " #member ")", offsetof(struct type, member), want)
#define SIZE(type, want)        EXPECT_EQ("sizeof(" #type ")", sizeof(struct type), want)
    OFF(ggml_init_params, mem_size, 0);
    OFF(ggml_init_params, mem_buffer, 8);
    OFF(ggml_init_params, no_alloc, 16);
    SIZE(ggml_init_params, 24);

    OFF(ggml_tallocr, buffer, 0);
    OFF(ggml_tallocr, base, 8);
    OFF(ggml_tallocr, alignment, 16);
    OFF(ggml_tallocr, offset, 24);
    SIZE(ggml_tallocr, 32);

    OFF(ggml_cplan, work_size, 0);
    OFF(ggml_cplan, work_data, 8);
    OFF(ggml_cplan, n_threads, 16);
    OFF(ggml_cplan, threadpool, 24);
    OFF(ggml_cplan, abort_callback, 32);
    OFF(ggml_cplan, abort_callback_data, 40);
    OFF(ggml_cplan, use_ref, 48);
    SIZE(ggml_cplan, 56);

    OFF(ggml_threadpool_params, cpumask, 0);
    OFF(ggml_threadpool_params, n_threads, 512);
    OFF(ggml_threadpool_params, prio, 516);
    OFF(ggml_threadpool_params, poll, 520);
    OFF(ggml_threadpool_params, strict_cpu, 524);
    OFF(ggml_threadpool_params, paused, 525);
    SIZE(ggml_threadpool_params, 528);

    OFF(ggml_type_traits, type_name, 0);
    OFF(ggml_type_traits, blck_size, 8);
    OFF(ggml_type_traits, blck_size_interleave, 16);
    OFF(ggml_type_traits, type_size, 24);
    OFF(ggml_type_traits, is_quantized, 32);
    OFF(ggml_type_traits, to_float, 40);
    OFF(ggml_type_traits, from_float_ref, 48);
    SIZE(ggml_type_traits, 56);

    OFF(ggml_backend_dev_caps, async, 0);
    OFF(ggml_backend_dev_caps, host_buffer, 1);
    OFF(ggml_backend_dev_caps, buffer_from_host_ptr, 2);
    OFF(ggml_backend_dev_caps, events, 3);
    OFF(ggml_backend_dev_caps, mmap_support, 4);
    SIZE(ggml_backend_dev_caps, 5);

    OFF(ggml_backend_dev_props, name, 0);
    OFF(ggml_backend_dev_props, description, 8);
    OFF(ggml_backend_dev_props, memory_free, 16);
    OFF(ggml_backend_dev_props, memory_total, 24);
    OFF(ggml_backend_dev_props, type, 32);
    OFF(ggml_backend_dev_props, device_id, 40);
    OFF(ggml_backend_dev_props, caps, 48);
    SIZE(ggml_backend_dev_props, 56);

    OFF(ggml_backend_graph_copy, buffer, 0);
    OFF(ggml_backend_graph_copy, ctx_allocated, 8);
    OFF(ggml_backend_graph_copy, ctx_unallocated, 16);
    OFF(ggml_backend_graph_copy, graph, 24);
    SIZE(ggml_backend_graph_copy, 32);

    OFF(ggml_backend_feature, name, 0);
    OFF(ggml_backend_feature, value, 8);
    SIZE(ggml_backend_feature, 16);
#undef OFF
#undef SIZE
    EXPECT_EQ("sizeof(ggml_bf16_t)", sizeof(ggml_bf16_t), 2);
    EXPECT_EQ("sizeof(ggml_fp16_t)", sizeof(ggml_fp16_t), 2);
    EXPECT_EQ("sizeof(ggml_guid)", sizeof(ggml_guid), 16);
}

// A few values whose bit patterns are fixed by IEEE binary16 / bfloat16.
static void check_conversions(void) {
    EXPECT_EQ("ggml_fp32_to_fp16(1.0f)", ggml_fp32_to_fp16(1.0f), 0x3c00);
    EXPECT_EQ("ggml_fp32_to_fp16(-2.0f)", ggml_fp32_to_fp16(-2.0f), 0xc000);
    EXPECT_EQ("ggml_fp32_to_fp16(65504.0f)", ggml_fp32_to_fp16(65504.0f), 0x7bff);
    TEST_CHECK(ggml_fp16_to_fp32(0x3555) > 0.3332f && ggml_fp16_to_fp32(0x3555) < 0.3334f);
    EXPECT_EQ("ggml_fp32_to_bf16(1.0f)", ggml_fp32_to_bf16(1.0f).bits, 0x3f80);
    EXPECT_EQ("ggml_fp32_to_bf16(-3.0f)", ggml_fp32_to_bf16(-3.0f).bits, 0xc040);
    ggml_bf16_t half = { 0x3f00 };
    TEST_CHECK(ggml_bf16_to_fp32(half) == 0.5f);
}

int main(void) {
    check_type_ids();
    check_type_traits();
    check_op_ids();
    check_unary_glu_ids();
    check_other_enums();
    check_constants();
    check_tensor_layout();
    check_struct_layouts();
    check_conversions();
    return test_finish("test-compat-headers");
}
