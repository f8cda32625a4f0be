#pragma once

// A backend for the tests: registry "TEST" with two GPU-type devices, "TEST" (index 0) and
// "TEST1" (index 1), each with its own buffer type.
//
// - Its memory is NOT host memory to the API (is_host false). A buffer's data lives in private
//   storage; tensor->data holds an address inside a window that is not dereferenceable
//   (non-canonical on x86-64), so any code that reads tensor data of a TEST buffer directly
//   crashes (ASan reports it). The backend reaches its memory only through its interface.
// - set/get_tensor_async really defer the copy until ggml_backend_synchronize (or a graph
//   compute, an event synchronization or a copy that needs the stream's data).
// - Events: a recorded counter per event, completed when the recording stream is flushed.
// - graph_compute runs ADD, MUL (src1 broadcast over src0), SCALE (with bias), CPY, DUP and CONT
//   on contiguous F32 tensors in its own memory, and skips the view ops (NONE, VIEW, RESHAPE,
//   PERMUTE, TRANSPOSE). supports_op answers exactly that; anything else makes graph_compute
//   return GGML_STATUS_FAILED. So do tensors that are not in a buffer of the backend's device.
// - Knobs for fault injection and for steering the library's fallback paths (below).
//
// Every allocation goes through ggml_malloc, so the library's fault injection applies too.
// Not thread-safe: use one stream from one thread at a time.

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEST_BACKEND_N_DEVICES 2

// total memory of each device; allocations beyond what is free fail like on a real device
#define TEST_BACKEND_MEMORY ((size_t) 1 << 30)

ggml_backend_reg_t         test_backend_reg(void);
ggml_backend_dev_t         test_backend_dev(int index);          // NULL when out of range
ggml_backend_buffer_type_t test_backend_buffer_type(int index);  // the device's buffer type
ggml_backend_t             test_backend_init(void);              // a new stream on device 0
ggml_backend_t             test_backend_init_dev(int index);     // a new stream on device index
bool                       test_backend_is_test(ggml_backend_t backend);
bool                       test_backend_buffer_is_test(ggml_backend_buffer_t buffer);

// alignment of the TEST buffer types (differs from the CPU's on purpose)
#define TEST_BACKEND_ALIGNMENT 128

//
// knobs (global; test_backend_reset_config() restores every default)
//

void test_backend_reset_config(void);
// the n-th TEST buffer allocation from now fails (1-based); 0 disables
void test_backend_set_alloc_fail(long n);
// the n-th init_tensor call from now returns GGML_STATUS_FAILED (1-based); 0 disables
void test_backend_set_init_tensor_fail(long n);
// the n-th set/get/memset from now (1-based; buffer and asynchronous stream paths, counted
// together) fails as a device error: reported through ggml_backend_buffer_report_device_error /
// ggml_backend_report_device_error, so the next graph_compute returns it; 0 disables
void test_backend_set_transfer_fail(long n);
// max size reported by the buffer types (default SIZE_MAX: no limit reported)
void test_backend_set_max_size(size_t size);
// alloc size = ggml_nbytes rounded up to a multiple of pad (default 1: no padding)
void test_backend_set_alloc_pad(size_t pad);
// buffers' cpy_tensor (default on); off forces copies between TEST buffers through host memory
void test_backend_set_cpy_tensor(bool enabled);
// backends' cpy_tensor_async (default on)
void test_backend_set_cpy_async(bool enabled);
// whether the devices claim (and compute) op; only ops the backend implements can be enabled
void test_backend_set_op_supported(enum ggml_op op, bool supported);
// offload_op answer for supported ops (default false)
void test_backend_set_offload(bool offload);
// graph_compute sleeps `us` microseconds before it computes (0: not), so that tests can make two calls overlap
void test_backend_set_compute_delay(long us);

//
// observation
//

struct test_backend_stats {
    long buffers_alive;     // TEST buffers allocated and not yet freed
    long bytes_alive;
    long backends_alive;
    long events_alive;
    long n_alloc;           // successful buffer allocations
    long n_alloc_failed;    // refused allocations (injected, too large, out of device memory)
    long n_init_tensor;
    long n_set, n_get, n_memset, n_set_2d, n_get_2d;
    long n_cpy_tensor;      // buffer cpy_tensor calls that copied
    long n_clear, n_reset;
    long n_set_async, n_get_async, n_cpy_async;
    long n_sync;            // synchronize calls
    long n_flushed_ops;     // deferred operations executed
    long n_compute;         // graph_compute calls
    long n_nodes_computed;  // nodes that did work
    long n_event_record, n_event_wait, n_event_sync;
    long n_bad_access;      // accesses outside TEST memory caught by the backend: library bugs
};

void test_backend_get_stats(struct test_backend_stats * stats);
// zeroes the event counters (n_*), keeps the *_alive counts
void test_backend_reset_stats(void);

// operations queued on a TEST stream and not yet executed (-1 for a non-TEST backend)
int test_backend_n_pending(ggml_backend_t backend);

// Reads a TEST tensor's bytes [offset, offset + size) straight from the private storage,
// bypassing the API (for checking what the library wrote). False when t is not in TEST memory.
bool test_backend_peek(const struct ggml_tensor * t, void * out, size_t offset, size_t size);

// the n_threads last given through the "ggml_backend_set_n_threads" proc address (-1: never)
int test_backend_get_n_threads(ggml_backend_t backend);

#ifdef __cplusplus
}
#endif
