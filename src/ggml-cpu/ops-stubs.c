// TEMPORARY stubs so the library links before the kernel families exist.
//
// Each family below is one self-contained section between its BEGIN and END markers. When
// src/ggml-cpu/ops-<family>.c lands, delete that family's whole section (markers included);
// when every section is gone, delete this file.
//
// A stubbed family supports nothing: graphs using its ops fail with GGML_STATUS_FAILED at
// planning time and supports_op says false.

#include "ggml-cpu-impl.h"

// ===== BEGIN STUB norm =====
bool ggml_cpu_norm_supports(const struct ggml_tensor * op) {
    GGML_UNUSED(op);
    return false;
}
size_t ggml_cpu_norm_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 0;
}
int ggml_cpu_norm_n_tasks(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 1;
}
enum ggml_status ggml_cpu_norm_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    GGML_UNUSED(params);
    GGML_LOG_ERROR("%s: op %s is not implemented on the CPU backend yet\n", __func__, ggml_op_desc(op));
    return GGML_STATUS_FAILED;
}
// ===== END STUB norm =====

// ===== BEGIN STUB rope =====
bool ggml_cpu_rope_supports(const struct ggml_tensor * op) {
    GGML_UNUSED(op);
    return false;
}
size_t ggml_cpu_rope_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 0;
}
int ggml_cpu_rope_n_tasks(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 1;
}
enum ggml_status ggml_cpu_rope_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    GGML_UNUSED(params);
    GGML_LOG_ERROR("%s: op %s is not implemented on the CPU backend yet\n", __func__, ggml_op_desc(op));
    return GGML_STATUS_FAILED;
}
// ===== END STUB rope =====


// ===== BEGIN STUB conv =====
bool ggml_cpu_conv_supports(const struct ggml_tensor * op) {
    GGML_UNUSED(op);
    return false;
}
size_t ggml_cpu_conv_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 0;
}
int ggml_cpu_conv_n_tasks(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 1;
}
enum ggml_status ggml_cpu_conv_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    GGML_UNUSED(params);
    GGML_LOG_ERROR("%s: op %s is not implemented on the CPU backend yet\n", __func__, ggml_op_desc(op));
    return GGML_STATUS_FAILED;
}
// ===== END STUB conv =====

// ===== BEGIN STUB attn =====
bool ggml_cpu_attn_supports(const struct ggml_tensor * op) {
    GGML_UNUSED(op);
    return false;
}
size_t ggml_cpu_attn_work_size(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 0;
}
int ggml_cpu_attn_n_tasks(const struct ggml_tensor * op, int n_threads) {
    GGML_UNUSED(op); GGML_UNUSED(n_threads);
    return 1;
}
enum ggml_status ggml_cpu_attn_forward(const struct ggml_compute_params * params, struct ggml_tensor * op) {
    GGML_UNUSED(params);
    GGML_LOG_ERROR("%s: op %s is not implemented on the CPU backend yet\n", __func__, ggml_op_desc(op));
    return GGML_STATUS_FAILED;
}
// ===== END STUB attn =====
