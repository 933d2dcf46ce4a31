// libheif on first use, as CFFmpeg/FFmpegLoader.c does for FFmpeg: each function Swift calls
// (LibHeifFunctions.h) is defined here under libheif's name and calls the real one, resolved from
// libheif.so.1 when a HEIF picture is first decoded. Reading HEIF structure never needs libheif.

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"
#include <CLibraryLoader.h>

// The trampolines serve this program's (or library product's) own calls and are never exported:
// FFmpeg's calls to itself, and a program that links another copy, never reach them.
#define HIDDEN __attribute__((visibility("hidden")))

// libheif's soname has been libheif.so.1 through every 1.x release.
_Static_assert((LIBHEIF_NUMERIC_VERSION >> 24) == 1, "libheif's headers are not version 1: check its soname");
static const char soname[] = "libheif.so.1";

static struct {
#define FUNCTION(type, name, parameters, arguments) __typeof__(name) *name;
#define VOID_FUNCTION(name, parameters, arguments) __typeof__(name) *name;
#include "LibHeifFunctions.h"
#undef FUNCTION
#undef VOID_FUNCTION
} real;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool loaded;
static char failure[512];

static void load(void) {
    char reason[400] = "";
    void *library = vo_library_open(soname, reason, sizeof reason);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "libheif is not installed (%s)", reason);
        return;
    }
#define FUNCTION(type, name, parameters, arguments)                                                       \
    real.name = (__typeof__(name) *)vo_library_symbol(library, soname, #name, reason, sizeof reason);    \
    if (real.name == NULL) {                                                                              \
        snprintf(failure, sizeof failure, "libheif is not the version vidorient was built for (%s)", reason); \
        return;                                                                                           \
    }
#define VOID_FUNCTION(name, parameters, arguments) FUNCTION(void, name, parameters, arguments)
#include "LibHeifFunctions.h"
#undef FUNCTION
#undef VOID_FUNCTION
    atomic_store(&loaded, true);
}

HIDDEN int vo_libheif_load(char *error, size_t length) {
    pthread_once(&load_once, load);
    if (atomic_load(&loaded)) return 0;
    if (error != NULL && length > 0) snprintf(error, length, "%s", failure);
    return -1;
}

static void require_loaded(const char *function) {
    if (atomic_load(&loaded)) return;
    pthread_once(&load_once, load);
    if (atomic_load(&loaded)) return;
    fprintf(stderr, "vidorient: %s called before libheif was loaded: %s\n", function, failure);
    abort();
}

#define FUNCTION(type, name, parameters, arguments) \
    HIDDEN type name parameters {                         \
        require_loaded(#name);                     \
        return real.name arguments;                \
    }
#define VOID_FUNCTION(name, parameters, arguments) \
    HIDDEN void name parameters {                         \
        require_loaded(#name);                     \
        real.name arguments;                       \
    }
#include "LibHeifFunctions.h"
#undef FUNCTION
#undef VOID_FUNCTION
