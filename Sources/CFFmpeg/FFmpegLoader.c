// FFmpeg on first use. The executable does not link FFmpeg: each function Swift calls (listed in
// FFmpegFunctions.h) is defined here under FFmpeg's own name as a trampoline that calls the real
// function, resolved with dlopen/dlsym from the libraries whose major versions the headers were
// built against the first time any of them is needed. Commands that never touch FFmpeg
// (`--version`, `orientation`, `fix`, photo `inspect`) never map its ~130 libraries.
//
// Callers ask vo_ffmpeg_load() first, which turns a missing FFmpeg into an error they can report.
// A function called without that is a programming error: it prints the reason and aborts.

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include <libavcodec/version.h>
#include <libavformat/version.h>
#include <libavutil/version.h>
#include <libswscale/version.h>
#include <CLibraryLoader.h>

// The trampolines serve this program's (or library product's) own calls and are never exported:
// FFmpeg's calls to itself, and a program that links another copy, never reach them.
#define HIDDEN __attribute__((visibility("hidden")))

// Each library and the soname its headers' major version names, as the linker would have recorded.
#define FFMPEG_LIBRARIES(LIBRARY)                                                   \
    LIBRARY(avformat, "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR))    \
    LIBRARY(avcodec, "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR))       \
    LIBRARY(avutil, "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR))          \
    LIBRARY(swscale, "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR))

enum {
#define LIBRARY_INDEX(library, soname) LIBRARY_##library,
    FFMPEG_LIBRARIES(LIBRARY_INDEX)
#undef LIBRARY_INDEX
    LIBRARY_COUNT
};

static const char *const sonames[LIBRARY_COUNT] = {
#define LIBRARY_SONAME(library, soname) soname,
    FFMPEG_LIBRARIES(LIBRARY_SONAME)
#undef LIBRARY_SONAME
};

// The real functions, one pointer each, typed by FFmpeg's own declarations.
static struct {
#define FUNCTION(library, type, name, parameters, arguments) __typeof__(name) *name;
#define VOID_FUNCTION(library, name, parameters, arguments) __typeof__(name) *name;
#include "FFmpegFunctions.h"
#undef FUNCTION
#undef VOID_FUNCTION
} real;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool loaded;
static char failure[512];
// The log level asked for before FFmpeg was loaded (INT_MIN: none), applied when it is.
static atomic_int requested_log_level = INT_MIN;

static void load(void) {
    char reason[400] = "";
    void *libraries[LIBRARY_COUNT] = {0};
    for (int index = 0; index < LIBRARY_COUNT; index++) {
        libraries[index] = vo_library_open(sonames[index], reason, sizeof reason);
        if (libraries[index] == NULL) {
            snprintf(failure, sizeof failure, "FFmpeg is not installed (%s)", reason);
            return;  // What is already open stays open: the process keeps its first answer.
        }
    }
#define FUNCTION(library, type, name, parameters, arguments)                                              \
    real.name = (__typeof__(name) *)vo_library_symbol(libraries[LIBRARY_##library], sonames[LIBRARY_##library], \
                                                      #name, reason, sizeof reason);                        \
    if (real.name == NULL) {                                                                              \
        snprintf(failure, sizeof failure, "FFmpeg is not the version vidorient was built for (%s)", reason); \
        return;                                                                                           \
    }
#define VOID_FUNCTION(library, name, parameters, arguments) FUNCTION(library, void, name, parameters, arguments)
#include "FFmpegFunctions.h"
#undef FUNCTION
#undef VOID_FUNCTION
    int level = atomic_load(&requested_log_level);
    if (level != INT_MIN) real.av_log_set_level(level);
    atomic_store(&loaded, true);
}

HIDDEN int vo_ffmpeg_load(char *error, size_t length) {
    pthread_once(&load_once, load);
    if (atomic_load(&loaded)) return 0;
    if (error != NULL && length > 0) snprintf(error, length, "%s", failure);
    return -1;
}

HIDDEN void vo_ffmpeg_set_log_level(int level) {
    atomic_store(&requested_log_level, level);
    if (atomic_load(&loaded)) real.av_log_set_level(level);
}

static void require_loaded(const char *function) {
    if (atomic_load(&loaded)) return;
    pthread_once(&load_once, load);
    if (atomic_load(&loaded)) return;
    fprintf(stderr, "vidorient: %s called before FFmpeg was loaded: %s\n", function, failure);
    abort();
}

// The trampolines: FFmpeg's names, FFmpeg's prototypes, the real function behind.
#define FUNCTION(library, type, name, parameters, arguments) \
    HIDDEN type name parameters {                                  \
        require_loaded(#name);                              \
        return real.name arguments;                         \
    }
#define VOID_FUNCTION(library, name, parameters, arguments) \
    HIDDEN void name parameters {                                  \
        require_loaded(#name);                              \
        real.name arguments;                                \
    }
#include "FFmpegFunctions.h"
#undef FUNCTION
#undef VOID_FUNCTION
