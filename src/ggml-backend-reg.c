// The global backend registry: backends built into the library, backends registered by the
// program, and backend modules loaded at run time from shared libraries (dlopen).
//
// Module search order of ggml_backend_load_all_from_path(dir_path) (also in docs/backend-loading.md):
//   1. env GGML_BACKEND_PATH: one module file, loaded as is, before any directory is searched
//   2. env GGML_BACKEND_DIR:  a directory, searched first
//   3. dir_path when it is not NULL; otherwise (ggml_backend_load_all) the default directories:
//      3a. the directory of the running executable (/proc/self/exe)
//      3b. the install library directory GGML_BACKEND_INSTALL_DIR (a compile definition)
// The current working directory is not searched: loading code from wherever the program happens
// to run is a needless risk. In each directory, files named libggml-<name>.so and
// libggml-<name>-<variant>.so are candidates for backend <name>; the candidate with the highest
// ggml_backend_score() wins (ties: earlier directory, then file name order), and a backend name
// that is already registered (built in, from GGML_BACKEND_PATH, or loaded before) is skipped.

#ifndef _GNU_SOURCE
#    define _GNU_SOURCE // dladdr, dlinfo, recursive mutexes
#endif

#include "ggml-backend-impl.h"
#include "ggml-backend.h"
#include "ggml-impl.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef GGML_USE_OPENCL
#    include "ggml-opencl.h"
#endif
#ifdef GGML_USE_CPU
#    include "ggml-cpu.h"
#endif

// progress messages for developers; silent in release builds, as in upstream ggml
#ifdef NDEBUG
#    define REG_DEBUG(...) ((void) 0)
#else
#    define REG_DEBUG(...) GGML_LOG_DEBUG(__VA_ARGS__)
#endif

// sanity limit on a registry's device count: a larger count is a broken backend, not a machine
#define GGML_BACKEND_REG_MAX_DEVICES 4096

#ifndef PATH_MAX
#    define PATH_MAX 4096
#endif

//
// built-in backends: registered on the first use of the registry, in this order (accelerators
// first so that enumeration and ggml_backend_init_best see them before the CPU). A backend that
// is compiled into the library adds its reg function here under its GGML_USE_* definition.
//

typedef ggml_backend_reg_t (*ggml_backend_builtin_reg_fn)(void);

static const ggml_backend_builtin_reg_fn ggml_backend_builtin_regs[] = {
#ifdef GGML_USE_OPENCL
    ggml_backend_opencl_reg,
#endif
#ifdef GGML_USE_CPU
    ggml_backend_cpu_reg,
#endif
    NULL, // keeps the array non-empty when no backend is built in
};

//
// registry state. One recursive mutex guards everything: a backend's callbacks, which run with
// the lock held (get_name, get_device_count, ...), may call back into the registry.
//

struct ggml_backend_reg_entry {
    ggml_backend_reg_t reg;
    void             * handle; // dlopen handle, NULL for built-in and program-registered backends
    char             * path;   // the module path (for messages), NULL when handle is NULL
};

struct ggml_backend_registry {
    pthread_mutex_t mutex;
    bool            builtins_done;

    struct ggml_backend_reg_entry * regs;
    size_t n_regs;
    size_t cap_regs;

    ggml_backend_dev_t * devs;
    size_t n_devs;
    size_t cap_devs;
};

static struct ggml_backend_registry g_registry;
static pthread_once_t               g_registry_once = PTHREAD_ONCE_INIT;

// serializes whole directory scans so that two threads do not load the same modules twice
static pthread_mutex_t g_load_all_mutex = PTHREAD_MUTEX_INITIALIZER;

static void registry_mutex_init(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_registry.mutex, &attr);
    pthread_mutexattr_destroy(&attr);
}

enum registry_add_result {
    REGISTRY_ADDED,
    REGISTRY_DUPLICATE,
    REGISTRY_FAILED,
};

static enum registry_add_result registry_add_reg_locked(ggml_backend_reg_t reg, void * handle, const char * path);

static void registry_lock(void) {
    pthread_once(&g_registry_once, registry_mutex_init);
    pthread_mutex_lock(&g_registry.mutex);
    if (!g_registry.builtins_done) {
        // set first: a built-in reg function that uses the registry must not recurse into this
        g_registry.builtins_done = true;
        for (size_t i = 0; ggml_backend_builtin_regs[i] != NULL; i++) {
            ggml_backend_reg_t reg = ggml_backend_builtin_regs[i]();
            if (reg == NULL) {
                GGML_LOG_WARN("%s: built-in backend #%zu returned no registry, skipped\n", __func__, i);
                continue;
            }
            registry_add_reg_locked(reg, NULL, NULL);
        }
    }
}

static void registry_unlock(void) {
    pthread_mutex_unlock(&g_registry.mutex);
}

// grows *arr to hold at least `need` elements of `elem` bytes; false (and *arr untouched) on OOM
static bool registry_reserve(void ** arr, size_t * cap, size_t need, size_t elem) {
    void * p = ggml_grow_array(*arr, cap, need, elem, 8);
    if (p == NULL) {
        return false;
    }
    *arr = p;
    return true;
}

static bool registry_has_dev_locked(ggml_backend_dev_t dev) {
    for (size_t i = 0; i < g_registry.n_devs; i++) {
        if (g_registry.devs[i] == dev) {
            return true;
        }
    }
    return false;
}

static const char * reg_name_or(ggml_backend_reg_t reg, const char * fallback) {
    if (reg == NULL || reg->iface.get_name == NULL) {
        return fallback;
    }
    const char * name = reg->iface.get_name(reg);
    return name ? name : fallback;
}

static char * str_dup_mem(const char * s) {
    const size_t len = strlen(s);
    char * copy = ggml_malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, s, len + 1);
    }
    return copy;
}

static enum registry_add_result registry_add_reg_locked(ggml_backend_reg_t reg, void * handle, const char * path) {
    for (size_t i = 0; i < g_registry.n_regs; i++) {
        struct ggml_backend_reg_entry * e = &g_registry.regs[i];
        if (e->reg != reg) {
            continue;
        }
        if (e->handle == NULL && handle != NULL) {
            // the module registered itself from ggml_backend_init: the entry adopts the library
            // handle, so that the library stays loaded until ggml_backend_unload
            e->handle = handle;
            e->path   = str_dup_mem(path); // only for messages: NULL on OOM is fine
            return REGISTRY_ADDED;
        }
        return REGISTRY_DUPLICATE;
    }
    if (reg->api_version != GGML_BACKEND_API_VERSION) {
        GGML_LOG_ERROR("%s: backend '%s' has API version %d, this library needs %d\n", __func__,
            reg_name_or(reg, "?"), reg->api_version, GGML_BACKEND_API_VERSION);
        return REGISTRY_FAILED;
    }
    if (reg->iface.get_name == NULL || reg->iface.get_device_count == NULL || reg->iface.get_device == NULL) {
        GGML_LOG_ERROR("%s: backend '%s' lacks a required callback (get_name, get_device_count or get_device)\n",
            __func__, reg_name_or(reg, "?"));
        return REGISTRY_FAILED;
    }

    const size_t n_dev = reg->iface.get_device_count(reg);
    if (n_dev > GGML_BACKEND_REG_MAX_DEVICES) {
        GGML_LOG_ERROR("%s: backend '%s' reports %zu devices, more than the %d a registry may have\n",
            __func__, reg_name_or(reg, "?"), n_dev, GGML_BACKEND_REG_MAX_DEVICES);
        return REGISTRY_FAILED;
    }
    char * path_copy = NULL;
    if (path != NULL) {
        path_copy = str_dup_mem(path);
        if (path_copy == NULL) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory registering backend '%s'\n", __func__, reg_name_or(reg, "?"));
            return REGISTRY_FAILED;
        }
    }
    // reserve everything first so that a failure leaves the registry as it was
    if (!registry_reserve((void **) &g_registry.regs, &g_registry.cap_regs, g_registry.n_regs + 1, sizeof(*g_registry.regs)) ||
        !registry_reserve((void **) &g_registry.devs, &g_registry.cap_devs, g_registry.n_devs + n_dev, sizeof(*g_registry.devs))) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory registering backend '%s' (%zu devices)\n", __func__, reg_name_or(reg, "?"), n_dev);
        ggml_free_mem(path_copy);
        return REGISTRY_FAILED;
    }

    g_registry.regs[g_registry.n_regs].reg    = reg;
    g_registry.regs[g_registry.n_regs].handle = handle;
    g_registry.regs[g_registry.n_regs].path   = path_copy;
    g_registry.n_regs++;

    for (size_t i = 0; i < n_dev; i++) {
        ggml_backend_dev_t dev = reg->iface.get_device(reg, i);
        if (dev == NULL) {
            GGML_LOG_WARN("%s: backend '%s' returned no device %zu, skipped\n", __func__, reg_name_or(reg, "?"), i);
            continue;
        }
        if (registry_has_dev_locked(dev)) {
            continue;
        }
        // space was reserved above, unless the backend's callbacks registered devices meanwhile
        if (!registry_reserve((void **) &g_registry.devs, &g_registry.cap_devs, g_registry.n_devs + 1, sizeof(*g_registry.devs))) {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory registering the devices of backend '%s'\n", __func__, reg_name_or(reg, "?"));
            break;
        }
        g_registry.devs[g_registry.n_devs++] = dev;
    }
    REG_DEBUG("%s: registered backend %s (%zu devices)\n", __func__, reg_name_or(reg, "?"), n_dev);
    return REGISTRY_ADDED;
}

// the registry index of reg, or SIZE_MAX
static size_t registry_find_locked(ggml_backend_reg_t reg) {
    for (size_t i = 0; i < g_registry.n_regs; i++) {
        if (g_registry.regs[i].reg == reg) {
            return i;
        }
    }
    return SIZE_MAX;
}

static bool str_ieq(const char * a, const char * b) {
    if (a == NULL || b == NULL) {
        return false;
    }
    for (; *a && *b; a++, b++) {
        if (tolower((unsigned char) *a) != tolower((unsigned char) *b)) {
            return false;
        }
    }
    return *a == *b;
}

//
// backend registry objects
//

const char * ggml_backend_reg_name(ggml_backend_reg_t reg) {
    GGML_CHECK_RET(reg != NULL, "NULL", "reg is NULL"); // as every name getter (see ggml_backend_name)
    if (reg->iface.get_name == NULL) {
        return "unnamed";
    }
    return reg->iface.get_name(reg);
}

size_t ggml_backend_reg_dev_count(ggml_backend_reg_t reg) {
    GGML_CHECK_RET(reg != NULL, 0, "reg is NULL");
    GGML_CHECK_RET(reg->iface.get_device_count != NULL, 0, "backend '%s' has no get_device_count callback",
        reg_name_or(reg, "?"));
    return reg->iface.get_device_count(reg);
}

ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index) {
    GGML_CHECK_RET(reg != NULL, NULL, "reg is NULL");
    GGML_CHECK_RET(reg->iface.get_device != NULL, NULL, "backend '%s' has no get_device callback", reg_name_or(reg, "?"));
    const size_t n = ggml_backend_reg_dev_count(reg);
    GGML_CHECK_RET(index < n, NULL, "device index %zu out of range: backend '%s' has %zu devices",
        index, reg_name_or(reg, "?"), n);
    return reg->iface.get_device(reg, index);
}

void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    GGML_CHECK_RET(reg != NULL, NULL, "reg is NULL");
    GGML_CHECK_RET(name != NULL, NULL, "name is NULL");
    if (reg->iface.get_proc_address == NULL) {
        return NULL; // optional: the backend has no extensions
    }
    return reg->iface.get_proc_address(reg, name);
}

//
// registration and enumeration
//

void ggml_backend_register(ggml_backend_reg_t reg) {
    GGML_CHECK_RET(reg != NULL, , "reg is NULL");
    registry_lock();
    registry_add_reg_locked(reg, NULL, NULL);
    registry_unlock();
}

void ggml_backend_device_register(ggml_backend_dev_t device) {
    GGML_CHECK_RET(device != NULL, , "device is NULL");
    registry_lock();
    if (!registry_has_dev_locked(device)) {
        if (registry_reserve((void **) &g_registry.devs, &g_registry.cap_devs, g_registry.n_devs + 1, sizeof(*g_registry.devs))) {
            g_registry.devs[g_registry.n_devs++] = device;
        } else {
            GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory registering device '%s'\n", __func__, ggml_backend_dev_name(device));
        }
    }
    registry_unlock();
}

size_t ggml_backend_reg_count(void) {
    registry_lock();
    const size_t n = g_registry.n_regs;
    registry_unlock();
    return n;
}

ggml_backend_reg_t ggml_backend_reg_get(size_t index) {
    registry_lock();
    const size_t n = g_registry.n_regs;
    ggml_backend_reg_t reg = index < n ? g_registry.regs[index].reg : NULL;
    registry_unlock();
    GGML_CHECK_RET(reg != NULL, NULL, "index %zu out of range: %zu backends registered", index, n);
    return reg;
}

ggml_backend_reg_t ggml_backend_reg_by_name(const char * name) {
    GGML_CHECK_RET(name != NULL, NULL, "name is NULL");
    ggml_backend_reg_t found = NULL;
    registry_lock();
    for (size_t i = 0; i < g_registry.n_regs && found == NULL; i++) {
        if (str_ieq(reg_name_or(g_registry.regs[i].reg, NULL), name)) {
            found = g_registry.regs[i].reg;
        }
    }
    registry_unlock();
    if (found == NULL) {
        // a lookup miss is not an error: programs probe for optional backends this way
        GGML_LOG_INFO("%s: no backend named '%s' is registered\n", __func__, name);
    }
    return found;
}

size_t ggml_backend_dev_count(void) {
    registry_lock();
    const size_t n = g_registry.n_devs;
    registry_unlock();
    return n;
}

ggml_backend_dev_t ggml_backend_dev_get(size_t index) {
    registry_lock();
    const size_t n = g_registry.n_devs;
    ggml_backend_dev_t dev = index < n ? g_registry.devs[index] : NULL;
    registry_unlock();
    GGML_CHECK_RET(dev != NULL, NULL, "index %zu out of range: %zu devices registered", index, n);
    return dev;
}

ggml_backend_dev_t ggml_backend_dev_by_name(const char * name) {
    GGML_CHECK_RET(name != NULL, NULL, "name is NULL");
    ggml_backend_dev_t found = NULL;
    registry_lock();
    for (size_t i = 0; i < g_registry.n_devs && found == NULL; i++) {
        if (str_ieq(ggml_backend_dev_name(g_registry.devs[i]), name)) {
            found = g_registry.devs[i];
        }
    }
    registry_unlock();
    if (found == NULL) {
        GGML_LOG_INFO("%s: no device named '%s' is registered\n", __func__, name);
    }
    return found;
}

static ggml_backend_dev_t dev_by_type_quiet(enum ggml_backend_dev_type type) {
    ggml_backend_dev_t found = NULL;
    registry_lock();
    for (size_t i = 0; i < g_registry.n_devs && found == NULL; i++) {
        if (ggml_backend_dev_type(g_registry.devs[i]) == type) {
            found = g_registry.devs[i];
        }
    }
    registry_unlock();
    return found;
}

ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type) {
    ggml_backend_dev_t found = dev_by_type_quiet(type);
    if (found == NULL) {
        GGML_LOG_INFO("%s: no device of type %d is registered\n", __func__, (int) type);
    }
    return found;
}

//
// direct backend initialization
//

// logs the registered device names after a failed lookup, to help the caller spell them
static void log_available_devices(const char * func) {
    registry_lock();
    struct ggml_msg m;
    ggml_msg_init(&m);
    ggml_msg_append(&m, "%s: %zu devices registered:", func, g_registry.n_devs);
    for (size_t i = 0; i < g_registry.n_devs; i++) {
        ggml_msg_append(&m, " %s", ggml_backend_dev_name(g_registry.devs[i]));
    }
    GGML_LOG_ERROR("%s\n", m.text);
    registry_unlock();
}

ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params) {
    GGML_CHECK_RET(name != NULL, NULL, "name is NULL");
    ggml_backend_dev_t dev = NULL;
    registry_lock();
    for (size_t i = 0; i < g_registry.n_devs && dev == NULL; i++) {
        if (str_ieq(ggml_backend_dev_name(g_registry.devs[i]), name)) {
            dev = g_registry.devs[i];
        }
    }
    // also accept a backend (reg) name, meaning its first device: "OpenCL", "CPU"
    for (size_t i = 0; i < g_registry.n_regs && dev == NULL; i++) {
        ggml_backend_reg_t reg = g_registry.regs[i].reg;
        if (str_ieq(reg_name_or(reg, NULL), name) && reg->iface.get_device_count(reg) > 0) {
            dev = reg->iface.get_device(reg, 0);
        }
    }
    registry_unlock();
    if (dev == NULL) {
        GGML_LOG_ERROR("%s: no device or backend named '%s'\n", __func__, name);
        log_available_devices(__func__);
        return NULL;
    }
    return ggml_backend_dev_init(dev, params);
}

ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params) {
    ggml_backend_dev_t dev = dev_by_type_quiet(type);
    if (dev == NULL) {
        GGML_LOG_ERROR("%s: no device of type %d is registered\n", __func__, (int) type);
        log_available_devices(__func__);
        return NULL;
    }
    return ggml_backend_dev_init(dev, params);
}

ggml_backend_t ggml_backend_init_best(void) {
    ggml_backend_dev_t dev = dev_by_type_quiet(GGML_BACKEND_DEVICE_TYPE_GPU);
    if (dev == NULL) {
        dev = dev_by_type_quiet(GGML_BACKEND_DEVICE_TYPE_IGPU);
    }
    if (dev == NULL) {
        dev = dev_by_type_quiet(GGML_BACKEND_DEVICE_TYPE_CPU);
    }
    if (dev == NULL) {
        GGML_LOG_ERROR("%s: no GPU, integrated GPU or CPU device is registered\n", __func__);
        return NULL;
    }
    return ggml_backend_dev_init(dev, NULL);
}

//
// dynamic loading
//

// dlsym through a data pointer, converted without a cast between object and function pointers
static bool module_symbol(void * handle, const char * name, void * fn_out, size_t fn_size) {
    void * sym = dlsym(handle, name);
    if (sym == NULL) {
        return false;
    }
#if defined(RTLD_DI_LINKMAP)
    // dlsym also searches the module's dependencies: accept only a symbol defined by the module
    // itself, so that a library which merely links another backend is not taken for a backend
    Dl_info info;
    struct link_map * map = NULL;
    if (dladdr(sym, &info) != 0 && info.dli_fname != NULL &&
        dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL &&
        strcmp(info.dli_fname, map->l_name) != 0) {
        return false;
    }
#endif
    memcpy(fn_out, &sym, fn_size);
    return true;
}

static const char * dl_error_text(void) {
    const char * e = dlerror();
    return e ? e : "unknown error";
}

static void module_close(void * handle, const char * path) {
    if (dlclose(handle) != 0) {
        GGML_LOG_WARN("%s: dlclose(%s) failed: %s\n", __func__, path ? path : "?", dl_error_text());
    }
}

ggml_backend_reg_t ggml_backend_load(const char * path) {
    GGML_CHECK_RET(path != NULL && path[0] != '\0', NULL, "path is NULL or empty");

    dlerror(); // clear a stale error
    void * handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        GGML_LOG_ERROR("%s: failed to load %s: %s\n", __func__, path, dl_error_text());
        return NULL;
    }

    ggml_backend_score_t score_fn = NULL;
    if (module_symbol(handle, "ggml_backend_score", &score_fn, sizeof(score_fn))) {
        const int score = score_fn();
        if (score <= 0) {
            GGML_LOG_ERROR("%s: %s: ggml_backend_score() returned %d: the backend is not supported on this machine\n",
                __func__, path, score);
            module_close(handle, path);
            return NULL;
        }
    }

    ggml_backend_init_t init_fn = NULL;
    if (!module_symbol(handle, "ggml_backend_init", &init_fn, sizeof(init_fn))) {
        GGML_LOG_ERROR("%s: %s does not export ggml_backend_init: not a backend module\n", __func__, path);
        module_close(handle, path);
        return NULL;
    }

    ggml_backend_reg_t reg = init_fn();
    if (reg == NULL) {
        GGML_LOG_ERROR("%s: %s: ggml_backend_init() returned NULL\n", __func__, path);
        module_close(handle, path);
        return NULL;
    }
    if (reg->api_version != GGML_BACKEND_API_VERSION) {
        GGML_LOG_ERROR("%s: %s: backend API version %d, this library needs %d\n",
            __func__, path, reg->api_version, GGML_BACKEND_API_VERSION);
        module_close(handle, path);
        return NULL;
    }

    registry_lock();
    // the same backend already present under another registry object (built into this library,
    // or a copy of the module loaded from another path): registering it again would list its
    // devices twice, so the registry already there is kept and this one dropped
    ggml_backend_reg_t present = NULL;
    for (size_t i = 0; i < g_registry.n_regs && present == NULL; i++) {
        if (g_registry.regs[i].reg != reg && str_ieq(reg_name_or(g_registry.regs[i].reg, NULL), reg_name_or(reg, NULL))) {
            present = g_registry.regs[i].reg;
        }
    }
    if (present != NULL) {
        GGML_LOG_INFO("%s: %s provides backend %s, which is already registered: not registered again\n",
            __func__, path, reg_name_or(reg, "?"));
        registry_unlock();
        // the handle stays open: the module's init may have created device contexts whose
        // driver callbacks point into its code
        return present;
    }
    const enum registry_add_result res = registry_add_reg_locked(reg, handle, path);
    const char * name = reg_name_or(reg, "?");
    if (res == REGISTRY_ADDED) {
        GGML_LOG_INFO("%s: loaded backend %s from %s\n", __func__, name, path);
    } else if (res == REGISTRY_DUPLICATE) {
        GGML_LOG_INFO("%s: backend %s from %s is already loaded\n", __func__, name, path);
    }
    registry_unlock();

    if (res == REGISTRY_FAILED) {
        GGML_LOG_ERROR("%s: failed to register the backend from %s\n", __func__, path);
        module_close(handle, path);
        return NULL;
    }
    if (res == REGISTRY_DUPLICATE) {
        // the same library opened twice: drop this reference, the first one keeps it loaded
        module_close(handle, path);
    }
    return reg;
}

void ggml_backend_unload(ggml_backend_reg_t reg) {
    GGML_CHECK_RET(reg != NULL, , "reg is NULL");

    registry_lock();
    const size_t idx = registry_find_locked(reg);
    if (idx == SIZE_MAX) {
        registry_unlock();
        GGML_LOG_ERROR("%s: backend %p is not registered\n", __func__, (void *) reg);
        return;
    }
    struct ggml_backend_reg_entry entry = g_registry.regs[idx];
    REG_DEBUG("%s: unloading backend %s\n", __func__, reg_name_or(reg, "?"));

    // drop the backend's devices, keeping the order of the others
    size_t n_keep = 0;
    for (size_t i = 0; i < g_registry.n_devs; i++) {
        if (g_registry.devs[i]->reg != reg) {
            g_registry.devs[n_keep++] = g_registry.devs[i];
        }
    }
    g_registry.n_devs = n_keep;
    memmove(&g_registry.regs[idx], &g_registry.regs[idx + 1], (g_registry.n_regs - idx - 1) * sizeof(*g_registry.regs));
    g_registry.n_regs--;
    registry_unlock();

    if (entry.handle != NULL) {
        module_close(entry.handle, entry.path);
    }
    ggml_free_mem(entry.path);
}

//
// directory search (ggml_backend_load_all*)
//

// a module file found by the scan, with the backend name taken from its file name
struct module_candidate {
    char   name[64];  // lower case
    char * path;
    int    score;
    size_t order;     // discovery order: earlier directories and file names first
};

struct candidate_list {
    struct module_candidate * items;
    size_t n;
    size_t cap;
};

// messages of the directory scan name the public function the user called
#define LOAD_ALL_FUNC "ggml_backend_load_all_from_path"

static const char MODULE_PREFIX[] = "libggml-";
static const char MODULE_SUFFIX[] = ".so";

// "libggml-<name>.so" or "libggml-<name>-<variant>.so" -> <name> (lower case); false otherwise
static bool module_name_from_file(const char * file, char * name, size_t name_size) {
    const size_t len = strlen(file);
    const size_t pre = sizeof(MODULE_PREFIX) - 1;
    const size_t suf = sizeof(MODULE_SUFFIX) - 1;
    if (len <= pre + suf || strncmp(file, MODULE_PREFIX, pre) != 0 || strcmp(file + len - suf, MODULE_SUFFIX) != 0) {
        return false;
    }
    size_t n = 0;
    for (const char * p = file + pre; p < file + len - suf && *p != '-'; p++) {
        if (n + 1 >= name_size) {
            return false;
        }
        name[n++] = (char) tolower((unsigned char) *p);
    }
    name[n] = '\0';
    return n > 0;
}

static bool backend_name_registered(const char * name) {
    bool found = false;
    registry_lock();
    for (size_t i = 0; i < g_registry.n_regs && !found; i++) {
        found = str_ieq(reg_name_or(g_registry.regs[i].reg, NULL), name);
    }
    registry_unlock();
    return found;
}

// opens a candidate only to read its score; 0 when it cannot be used (the reason is logged)
static int module_probe_score(const char * path) {
    dlerror();
    void * handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        GGML_LOG_WARN("%s: skipping %s: cannot load it: %s\n", LOAD_ALL_FUNC, path, dl_error_text());
        return 0;
    }
    int score = 1; // a module without ggml_backend_score supports every machine, at the lowest rank
    ggml_backend_score_t score_fn = NULL;
    ggml_backend_init_t  init_fn  = NULL;
    if (!module_symbol(handle, "ggml_backend_init", &init_fn, sizeof(init_fn))) {
        GGML_LOG_WARN("%s: skipping %s: it does not export ggml_backend_init\n", LOAD_ALL_FUNC, path);
        score = 0;
    } else if (module_symbol(handle, "ggml_backend_score", &score_fn, sizeof(score_fn))) {
        score = score_fn();
        if (score <= 0) {
            GGML_LOG_INFO("%s: skipping %s: score %d, not supported on this machine\n", LOAD_ALL_FUNC, path, score);
            score = 0;
        }
    }
    module_close(handle, path);
    return score;
}

static void candidates_free(struct candidate_list * list) {
    for (size_t i = 0; i < list->n; i++) {
        ggml_free_mem(list->items[i].path);
    }
    ggml_free_mem(list->items);
    list->items = NULL;
    list->n = list->cap = 0;
}

static int cmp_cstr(const void * a, const void * b) {
    return strcmp(*(char * const *) a, *(char * const *) b);
}

// appends the module files of one directory, in file name order
static void scan_directory(const char * dir, bool explicit_dir, struct candidate_list * list) {
    DIR * d = opendir(dir);
    if (d == NULL) {
        if (explicit_dir) {
            GGML_LOG_WARN("%s: cannot search %s: %s\n", LOAD_ALL_FUNC, dir, strerror(errno));
        } else {
            REG_DEBUG("%s: cannot search %s: %s\n", LOAD_ALL_FUNC, dir, strerror(errno));
        }
        return;
    }

    char ** files = NULL;
    size_t n_files = 0;
    size_t cap_files = 0;
    bool oom = false;
    struct dirent * ent;
    while ((ent = readdir(d)) != NULL) {
        char name[64];
        if (!module_name_from_file(ent->d_name, name, sizeof(name))) {
            continue;
        }
        const size_t len = strlen(ent->d_name);
        char * copy = ggml_malloc(len + 1);
        if (copy == NULL || !registry_reserve((void **) &files, &cap_files, n_files + 1, sizeof(*files))) {
            ggml_free_mem(copy);
            oom = true;
            break;
        }
        memcpy(copy, ent->d_name, len + 1);
        files[n_files++] = copy;
    }
    closedir(d);
    if (oom) {
        GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory listing %s\n", LOAD_ALL_FUNC, dir);
    }
    if (n_files > 1) {
        qsort(files, n_files, sizeof(*files), cmp_cstr);
    }

    for (size_t i = 0; i < n_files; i++) {
        char path[PATH_MAX];
        const int len = snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        struct stat st;
        struct module_candidate c;
        memset(&c, 0, sizeof(c));
        module_name_from_file(files[i], c.name, sizeof(c.name));
        if (len < 0 || (size_t) len >= sizeof(path)) {
            GGML_LOG_WARN("%s: skipping %s/%s: path too long\n", LOAD_ALL_FUNC, dir, files[i]);
        } else if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            GGML_LOG_INFO("%s: skipping %s: not a regular file\n", LOAD_ALL_FUNC, path);
        } else if (strcmp(c.name, "base") == 0) {
            GGML_LOG_INFO("%s: skipping %s: the core library of another ggml build, not a backend\n", LOAD_ALL_FUNC, path);
        } else if (backend_name_registered(c.name)) {
            GGML_LOG_INFO("%s: skipping %s: a backend named '%s' is already registered\n", LOAD_ALL_FUNC, path, c.name);
        } else if ((c.score = module_probe_score(path)) > 0) {
            c.path = ggml_malloc((size_t) len + 1);
            if (c.path == NULL || !registry_reserve((void **) &list->items, &list->cap, list->n + 1, sizeof(*list->items))) {
                GGML_ERROR(GGML_ERROR_OUT_OF_MEMORY, "%s: out of memory, skipping %s\n", LOAD_ALL_FUNC, path);
                ggml_free_mem(c.path);
            } else {
                memcpy(c.path, path, (size_t) len + 1);
                c.order = list->n;
                list->items[list->n++] = c;
                REG_DEBUG("%s: found %s (backend %s, score %d)\n", LOAD_ALL_FUNC, path, c.name, c.score);
            }
        }
        ggml_free_mem(files[i]);
    }
    ggml_free_mem(files);
}

// backend name ascending ("cpu" last: accelerators are registered first), then score descending,
// then discovery order
static int cmp_candidate(const void * a, const void * b) {
    const struct module_candidate * x = a;
    const struct module_candidate * y = b;
    const bool x_cpu = strcmp(x->name, "cpu") == 0;
    const bool y_cpu = strcmp(y->name, "cpu") == 0;
    if (x_cpu != y_cpu) {
        return x_cpu ? 1 : -1;
    }
    const int c = strcmp(x->name, y->name);
    if (c != 0) {
        return c;
    }
    if (x->score != y->score) {
        return x->score > y->score ? -1 : 1;
    }
    return x->order < y->order ? -1 : (x->order > y->order);
}

// the directory of the running executable, without the trailing slash; false when unknown
static bool executable_dir(char * out, size_t size) {
    const ssize_t len = readlink("/proc/self/exe", out, size - 1);
    if (len <= 0 || (size_t) len >= size - 1) {
        return false;
    }
    out[len] = '\0';
    char * slash = strrchr(out, '/');
    if (slash == NULL) {
        return false;
    }
    if (slash == out) {
        slash[1] = '\0'; // the root directory
    } else {
        *slash = '\0';
    }
    return true;
}

#define GGML_BACKEND_MAX_SEARCH_DIRS 4

void ggml_backend_load_all_from_path(const char * dir_path) {
    pthread_mutex_lock(&g_load_all_mutex);

    // 1. an explicit module file beats everything found in directories
    const char * env_path = getenv("GGML_BACKEND_PATH");
    if (env_path != NULL && env_path[0] != '\0') {
        GGML_LOG_INFO("%s: loading GGML_BACKEND_PATH=%s\n", __func__, env_path);
        ggml_backend_load(env_path);
    }

    // 2. the directories, in priority order
    const char * dirs[GGML_BACKEND_MAX_SEARCH_DIRS];
    bool explicit_dir[GGML_BACKEND_MAX_SEARCH_DIRS];
    size_t n_dirs = 0;
    char exe_dir[PATH_MAX];

    const char * env_dir = getenv("GGML_BACKEND_DIR");
    if (env_dir != NULL && env_dir[0] != '\0') {
        dirs[n_dirs] = env_dir;
        explicit_dir[n_dirs++] = true;
    }
    if (dir_path != NULL) {
        dirs[n_dirs] = dir_path;
        explicit_dir[n_dirs++] = true;
    } else {
        if (executable_dir(exe_dir, sizeof(exe_dir))) {
            dirs[n_dirs] = exe_dir;
            explicit_dir[n_dirs++] = false;
        }
#ifdef GGML_BACKEND_INSTALL_DIR
        dirs[n_dirs] = GGML_BACKEND_INSTALL_DIR;
        explicit_dir[n_dirs++] = false;
#endif
    }

    struct candidate_list list = { NULL, 0, 0 };
    for (size_t i = 0; i < n_dirs; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            seen = strcmp(dirs[i], dirs[j]) == 0;
        }
        if (!seen) {
            REG_DEBUG("%s: searching %s\n", __func__, dirs[i]);
            scan_directory(dirs[i], explicit_dir[i], &list);
        }
    }

    // 3. per backend name, load the best candidate; fall back to the next one if loading fails
    if (list.n > 1) {
        qsort(list.items, list.n, sizeof(*list.items), cmp_candidate);
    }
    for (size_t i = 0; i < list.n; ) {
        size_t end = i;
        while (end < list.n && strcmp(list.items[end].name, list.items[i].name) == 0) {
            end++;
        }
        const struct module_candidate * loaded = NULL;
        for (size_t k = i; k < end; k++) {
            const struct module_candidate * c = &list.items[k];
            if (loaded != NULL) {
                GGML_LOG_INFO("%s: skipping %s (score %d): %s (score %d) is loaded for backend %s\n",
                    __func__, c->path, c->score, loaded->path, loaded->score, c->name);
            } else if (backend_name_registered(c->name)) {
                GGML_LOG_INFO("%s: skipping %s: a backend named '%s' is already registered\n", __func__, c->path, c->name);
            } else if (ggml_backend_load(c->path) != NULL) {
                loaded = c;
            }
        }
        i = end;
    }
    candidates_free(&list);

    pthread_mutex_unlock(&g_load_all_mutex);
}

void ggml_backend_load_all(void) {
    ggml_backend_load_all_from_path(NULL);
}
