#pragma once

// The OpenCL backend: one device "OpenCL<i>" per OpenCL device found (GPUs, and CPU drivers such
// as PoCL alike: their memory is reached only through the device's command queue, so every device
// is typed GGML_BACKEND_DEVICE_TYPE_GPU and its buffers are not host buffers). Kernels are
// compiled from sources embedded in the library, once per device, on first use.
//
// Environment:
//   GGML_OPENCL_DISABLE=1  the registry lists no devices (the library and the CPU work as usual)
//   GGML_OPENCL_CACHE=1    keep compiled kernel programs on disk under $XDG_CACHE_HOME/ggml-opencl
//                          (or ~/.cache/ggml-opencl); off by default
//   GGML_OPENCL_LIBRARY    the OpenCL loader to use (default libOpenCL.so.1, loaded at run time: the
//                          library itself does not depend on OpenCL being installed)
//
// Names follow the ggml family's ggml-opencl.h. No function here aborts: NULL / false when there
// is no OpenCL device (the reason is logged). See docs/opencl.md.

#include "ggml.h"
#include "ggml-backend.h"

#ifdef  __cplusplus
extern "C" {
#endif

// the registry "OpenCL" (always valid; it may list no devices)
GGML_BACKEND_API ggml_backend_reg_t ggml_backend_opencl_reg(void);

// a backend (command queue) on the first OpenCL device; NULL when there is none
GGML_BACKEND_API ggml_backend_t ggml_backend_opencl_init(void);
GGML_BACKEND_API bool           ggml_backend_is_opencl(ggml_backend_t backend);

// buffer types of the first OpenCL device (NULL when there is none): device memory, and pinned
// host memory (host-visible, fast to transfer from and to the device)
GGML_BACKEND_API ggml_backend_buffer_type_t ggml_backend_opencl_buffer_type(void);
GGML_BACKEND_API ggml_backend_buffer_type_t ggml_backend_opencl_host_buffer_type(void);

#ifdef  __cplusplus
}
#endif
