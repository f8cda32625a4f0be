// Loading the OpenCL API at run time (see ocl-api.h).

#include "ggml-opencl-impl.h"

#include <dlfcn.h>
#include <string.h>

struct ggml_ocl_api ggml_ocl_api;

bool ggml_ocl_api_load(void) {
    const char * env = getenv("GGML_OPENCL_LIBRARY");
    const char * names[] = { "libOpenCL.so.1", "libOpenCL.so" };
    void * h = NULL;
    const char * used = NULL;
    if (env != NULL && env[0] != '\0') {
        used = env;
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; i < sizeof(names)/sizeof(names[0]) && h == NULL; i++) {
            used = names[i];
            h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (h == NULL) {
        const char * why = dlerror();
        GGML_LOG_INFO("%s: no OpenCL loader (%s: %s): the OpenCL backend lists no devices\n",
            __func__, used, why != NULL ? why : "not found");
        return false;
    }
    struct ggml_ocl_api api;
    memset(&api, 0, sizeof(api));
    const char * missing = NULL;
    // dlsym gives a data pointer: copy its bits into the function pointer
#define GGML_OCL_API_LOAD(name)                                     \
    if (missing == NULL) {                                          \
        void * sym = dlsym(h, #name);                               \
        if (sym == NULL) {                                          \
            missing = #name;                                        \
        } else {                                                    \
            memcpy(&api.name, &sym, sizeof(api.name));              \
        }                                                           \
    }
    GGML_OCL_FUNCS(GGML_OCL_API_LOAD)
#undef GGML_OCL_API_LOAD
    if (missing != NULL) {
        GGML_LOG_INFO("%s: the OpenCL loader %s has no %s (OpenCL 1.2 is needed): the OpenCL backend lists no devices\n",
            __func__, used, missing);
        dlclose(h);
        return false;
    }
    // the loader stays loaded for the life of the process
    ggml_ocl_api = api;
    return true;
}
