#pragma once

// MUL_MAT carrying the hint GGML_HINT_SRC0_IS_HADAMARD (cpu-ops-hadamard.c), reached from the
// matrix-product family's forward (cpu-ops-matmul.c): the product with an n x n Walsh-Hadamard
// matrix computed as a fast transform, n log2(n) sums per column of B instead of n^2 products.

#include "ggml-cpu-impl.h"

// whether op carries the hint and has the transform's shape: A, B and the result F32, A square
// n x n with n a power of two, B rows of n adjacent floats, result rows adjacent floats
bool ggml_cpu_hadamard_applies(const struct ggml_tensor * op);

// threads for op (ggml_cpu_hadamard_applies): by the transform's n log2(n) sums per column, not the
// product's n^2 (the product, should A fail the check, runs on as many)
int ggml_cpu_hadamard_n_tasks(const struct ggml_tensor * op, int n_threads);

// Computes op (ggml_cpu_hadamard_applies) as s*H*b per column, s = A[0][0], when every matrix of A
// passes the check (rows 0, 1 and n-1 are s times those of the Sylvester matrix H, s finite and
// non-zero); true when computed. false, with nothing written, when the check fails: the caller
// computes the product. Every thread gets the same answer (the same check on the same data).
bool ggml_cpu_hadamard_forward(const struct ggml_compute_params * params, struct ggml_tensor * op);
