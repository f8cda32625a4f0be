#pragma once

// The OpenCL API as the backend calls it: through function pointers loaded at run time from the
// ICD loader (libOpenCL.so.1, see ocl-api.c), not through link-time symbols. The library then
// loads and the CPU works on machines without any OpenCL installed; the registry lists no
// devices there.
//
// Each cl* function used by the backend is a function-like macro that calls the loaded pointer,
// so the code reads as plain OpenCL. A function used for the first time must be added to
// GGML_OCL_FUNCS and given a macro below.

#ifndef CL_TARGET_OPENCL_VERSION
#    define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <stdbool.h>

#define GGML_OCL_FUNCS(X) \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) \
    X(clCreateContext) X(clCreateCommandQueue) X(clReleaseCommandQueue) \
    X(clCreateBuffer) X(clReleaseMemObject) \
    X(clCreateProgramWithSource) X(clCreateProgramWithBinary) X(clBuildProgram) X(clGetProgramInfo) \
    X(clGetProgramBuildInfo) X(clRetainProgram) X(clReleaseProgram) \
    X(clCreateKernel) X(clSetKernelArg) X(clReleaseKernel) \
    X(clEnqueueNDRangeKernel) X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer) X(clEnqueueReadBufferRect) \
    X(clEnqueueWriteBufferRect) X(clEnqueueCopyBuffer) X(clEnqueueFillBuffer) X(clEnqueueMapBuffer) \
    X(clEnqueueUnmapMemObject) X(clEnqueueMarkerWithWaitList) X(clEnqueueBarrierWithWaitList) \
    X(clWaitForEvents) X(clReleaseEvent) X(clFlush) X(clFinish) X(clGetEventProfilingInfo)

struct ggml_ocl_api {
#define GGML_OCL_API_MEMBER(name) __typeof__(name) * name;
    GGML_OCL_FUNCS(GGML_OCL_API_MEMBER)
#undef GGML_OCL_API_MEMBER
};

extern struct ggml_ocl_api ggml_ocl_api;

// Loads the ICD loader and every function above, once. false (logged at INFO) when OpenCL is not
// installed or the loader lacks a function (an OpenCL 1.1 loader). The loader is
// $GGML_OPENCL_LIBRARY when set, else libOpenCL.so.1, else libOpenCL.so.
bool ggml_ocl_api_load(void);

#define clGetPlatformIDs(...)             (ggml_ocl_api.clGetPlatformIDs)(__VA_ARGS__)
#define clGetPlatformInfo(...)            (ggml_ocl_api.clGetPlatformInfo)(__VA_ARGS__)
#define clGetDeviceIDs(...)               (ggml_ocl_api.clGetDeviceIDs)(__VA_ARGS__)
#define clGetDeviceInfo(...)              (ggml_ocl_api.clGetDeviceInfo)(__VA_ARGS__)
#define clCreateContext(...)              (ggml_ocl_api.clCreateContext)(__VA_ARGS__)
#define clCreateCommandQueue(...)         (ggml_ocl_api.clCreateCommandQueue)(__VA_ARGS__)
#define clReleaseCommandQueue(...)        (ggml_ocl_api.clReleaseCommandQueue)(__VA_ARGS__)
#define clCreateBuffer(...)               (ggml_ocl_api.clCreateBuffer)(__VA_ARGS__)
#define clReleaseMemObject(...)           (ggml_ocl_api.clReleaseMemObject)(__VA_ARGS__)
#define clCreateProgramWithSource(...)    (ggml_ocl_api.clCreateProgramWithSource)(__VA_ARGS__)
#define clCreateProgramWithBinary(...)    (ggml_ocl_api.clCreateProgramWithBinary)(__VA_ARGS__)
#define clBuildProgram(...)               (ggml_ocl_api.clBuildProgram)(__VA_ARGS__)
#define clGetProgramInfo(...)             (ggml_ocl_api.clGetProgramInfo)(__VA_ARGS__)
#define clGetProgramBuildInfo(...)        (ggml_ocl_api.clGetProgramBuildInfo)(__VA_ARGS__)
#define clRetainProgram(...)              (ggml_ocl_api.clRetainProgram)(__VA_ARGS__)
#define clReleaseProgram(...)             (ggml_ocl_api.clReleaseProgram)(__VA_ARGS__)
#define clCreateKernel(...)               (ggml_ocl_api.clCreateKernel)(__VA_ARGS__)
#define clSetKernelArg(...)               (ggml_ocl_api.clSetKernelArg)(__VA_ARGS__)
#define clReleaseKernel(...)              (ggml_ocl_api.clReleaseKernel)(__VA_ARGS__)
#define clEnqueueNDRangeKernel(...)       (ggml_ocl_api.clEnqueueNDRangeKernel)(__VA_ARGS__)
#define clEnqueueReadBuffer(...)          (ggml_ocl_api.clEnqueueReadBuffer)(__VA_ARGS__)
#define clEnqueueWriteBuffer(...)         (ggml_ocl_api.clEnqueueWriteBuffer)(__VA_ARGS__)
#define clEnqueueReadBufferRect(...)      (ggml_ocl_api.clEnqueueReadBufferRect)(__VA_ARGS__)
#define clEnqueueWriteBufferRect(...)     (ggml_ocl_api.clEnqueueWriteBufferRect)(__VA_ARGS__)
#define clEnqueueCopyBuffer(...)          (ggml_ocl_api.clEnqueueCopyBuffer)(__VA_ARGS__)
#define clEnqueueFillBuffer(...)          (ggml_ocl_api.clEnqueueFillBuffer)(__VA_ARGS__)
#define clEnqueueMapBuffer(...)           (ggml_ocl_api.clEnqueueMapBuffer)(__VA_ARGS__)
#define clEnqueueUnmapMemObject(...)      (ggml_ocl_api.clEnqueueUnmapMemObject)(__VA_ARGS__)
#define clEnqueueMarkerWithWaitList(...)  (ggml_ocl_api.clEnqueueMarkerWithWaitList)(__VA_ARGS__)
#define clEnqueueBarrierWithWaitList(...) (ggml_ocl_api.clEnqueueBarrierWithWaitList)(__VA_ARGS__)
#define clWaitForEvents(...)              (ggml_ocl_api.clWaitForEvents)(__VA_ARGS__)
#define clReleaseEvent(...)               (ggml_ocl_api.clReleaseEvent)(__VA_ARGS__)
#define clFlush(...)                      (ggml_ocl_api.clFlush)(__VA_ARGS__)
#define clFinish(...)                     (ggml_ocl_api.clFinish)(__VA_ARGS__)
#define clGetEventProfilingInfo(...)      (ggml_ocl_api.clGetEventProfilingInfo)(__VA_ARGS__)
