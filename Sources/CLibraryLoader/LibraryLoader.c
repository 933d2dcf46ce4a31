#define _GNU_SOURCE
#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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
