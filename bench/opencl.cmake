# bench/opencl-matmul: the OpenCL backend's MUL_MAT against CLBlast (Debian libclblast-dev) on the
# same OpenCL device, and against the CPU backend. Included from bench/CMakeLists.txt; the target
# exists only when the OpenCL backend is built and CLBlast is found (a benchmark-only dependency).

get_property(ggml_bench_opencl GLOBAL PROPERTY GGML_OPENCL_ENABLED)
if (ggml_bench_opencl)
    find_package(OpenCL QUIET) # imported targets are per directory
    if (NOT TARGET OpenCL::OpenCL)
        set(ggml_bench_opencl OFF)
    endif()
endif()
find_path(GGML_CLBLAST_INCLUDE_DIR NAMES clblast_c.h)
find_library(GGML_CLBLAST_LIBRARY NAMES clblast)

if (ggml_bench_opencl AND GGML_CLBLAST_INCLUDE_DIR AND GGML_CLBLAST_LIBRARY)
    add_executable(bench-opencl-matmul ${CMAKE_CURRENT_LIST_DIR}/opencl-matmul.c)
    target_include_directories(bench-opencl-matmul PRIVATE ${GGML_CLBLAST_INCLUDE_DIR})
    target_compile_definitions(bench-opencl-matmul PRIVATE CL_TARGET_OPENCL_VERSION=120)
    target_link_libraries(bench-opencl-matmul PRIVATE ggml-static ${GGML_CLBLAST_LIBRARY} OpenCL::OpenCL m)
    set_target_properties(bench-opencl-matmul PROPERTIES OUTPUT_NAME opencl-matmul)
    message(STATUS "bench: bench/opencl-matmul with CLBlast ${GGML_CLBLAST_LIBRARY}")
elseif (NOT ggml_bench_opencl)
    message(STATUS "bench: the OpenCL backend is not built; bench/opencl-matmul is not built")
else()
    message(STATUS "bench: CLBlast not found (install libclblast-dev); bench/opencl-matmul is not built")
endif()
