#define _GNU_SOURCE
#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((visibility("hidden"))) void *vo_library_open(const char *soname, char *error, size_t length) {
    // secure_getenv: a set-user-ID run never takes its libraries from the environment.
    const char *directory = secure_getenv("VIDORIENT_LIBRARY_DIR");
    char path[4096];
    const char *name = soname;
    if (directory != NULL && directory[0] != '\0') {
        int written = snprintf(path, sizeof path, "%s/%s", directory, soname);
        if (written < 0 || (size_t)written >= sizeof path) {
            snprintf(error, length, "%s: VIDORIENT_LIBRARY_DIR is too long", soname);
            return NULL;
        }
        name = path;
    }
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, length, "%s", reason != NULL ? reason : soname);
    }
    return library;
}

__attribute__((visibility("hidden"))) void *vo_library_symbol(void *library, const char *soname, const char *name, char *error, size_t length) {
    void *address = dlsym(library, name);
    if (address == NULL) snprintf(error, length, "%s has no %s", soname, name);
    return address;
}

__attribute__((visibility("hidden"))) void *vo_library_open_private(const char *name, char *error, size_t length) {
    const char *directory = secure_getenv("VIDORIENT_LIBRARY_DIR");
    if (directory != NULL && directory[0] != '\0') return vo_library_open(name, error, length);
    // Beside the program (a build folder), then where `make install` puts it (PREFIX/lib/vidorient).
    char program[4096];
    ssize_t size = readlink("/proc/self/exe", program, sizeof program - 1);
    if (size > 0) {
        program[size] = '\0';
        char *slash = strrchr(program, '/');
        if (slash != NULL) {
            *slash = '\0';
            const char *places[] = {"%s/%s", "%s/../lib/vidorient/%s"};
            for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
                char path[4096 + 256];
                int written = snprintf(path, sizeof path, places[i], program, name);
                if (written < 0 || (size_t)written >= sizeof path || access(path, F_OK) != 0) continue;
                void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
                if (library != NULL) return library;
                const char *reason = dlerror();
                snprintf(error, length, "%s", reason != NULL ? reason : path);
                return NULL;
            }
        }
    }
    return vo_library_open(name, error, length);
}
