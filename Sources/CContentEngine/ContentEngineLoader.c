// The content engine on first use, as CLibHeif/LibHeifLoader.c opens libheif: each function of
// vidorient_content.h is defined here and calls the real one in libVidorientContentEngine.so,
// which links dlib and OpenCV. Nothing of them is mapped until a command judges content.

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim.h"
#include <CLibraryLoader.h>

#define HIDDEN __attribute__((visibility("hidden")))

static const char library_name[] = "libVidorientContentEngine.so";

// FUNCTION(return type, name, (parameters), (arguments))
#define CONTENT_FUNCTIONS                                                                                          \
    FUNCTION(int, vo_content_interface, (void), ())                                                                \
    VOID_FUNCTION(vo_content_set_threads, (int threads), (threads))                                                \
    FUNCTION(vo_content_engine *, vo_content_engine_create, (const char *model_path, char *error, size_t length),   \
             (model_path, error, length))                                                                          \
    FUNCTION(vo_content_engine *, vo_content_engine_create_with,                                                   \
             (const char *model_path, int options, char *error, size_t length), (model_path, options, error, length)) \
    VOID_FUNCTION(vo_content_engine_destroy, (vo_content_engine * engine), (engine))                               \
    FUNCTION(int, vo_content_faces,                                                                                \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, int longest_side,  \
              int upsample, float minimum_score, vo_content_face *faces, int capacity, char *error, size_t length), \
             (engine, rgb, width, height, stride, longest_side, upsample, minimum_score, faces, capacity, error,   \
              length))                                                                                             \
    FUNCTION(int, vo_content_scene,                                                                                \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, int side,          \
              int mirror, float *features, char *error, size_t length),                                            \
             (engine, rgb, width, height, stride, side, mirror, features, error, length))                          \
    FUNCTION(int, vo_content_scene_classes,                                                                        \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, int side, int mirror, \
              float *features, float *logits, char *error, size_t length),                                         \
             (engine, rgb, width, height, stride, side, mirror, features, logits, error, length))                  \
    FUNCTION(int, vo_content_text_orientation,                                                                     \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, int longest_side,  \
              vo_content_text *text, char *error, size_t length),                                                  \
             (engine, rgb, width, height, stride, longest_side, text, error, length))                              \
    FUNCTION(int, vo_content_letter_shapes,                                                                        \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, int longest_side,  \
              vo_content_letters *letters, char *error, size_t length),                                            \
             (engine, rgb, width, height, stride, longest_side, letters, error, length))                           \
    FUNCTION(int, vo_content_word_counts,                                                                          \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, int longest_side,  \
              float minimum_confidence, int minimum_letters, int deadline_ms, vo_content_words *words, char *error, \
              size_t length),                                                                                      \
             (engine, rgb, width, height, stride, longest_side, minimum_confidence, minimum_letters, deadline_ms,   \
              words, error, length))                                                                               \
    FUNCTION(int, vo_content_classes,                                                                              \
             (vo_content_engine * engine, const uint8_t *rgb, int width, int height, int stride, float *logits,     \
              char *error, size_t length),                                                                         \
             (engine, rgb, width, height, stride, logits, error, length))

static struct {
#define FUNCTION(type, name, parameters, arguments) __typeof__(name) *name;
#define VOID_FUNCTION(name, parameters, arguments) __typeof__(name) *name;
    CONTENT_FUNCTIONS
#undef FUNCTION
#undef VOID_FUNCTION
} real;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static atomic_bool loaded;
static char failure[600];

static void load(void) {
    char reason[500] = "";
    void *library = vo_library_open_private(library_name, reason, sizeof reason);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "the content engine cannot be loaded (%s)", reason);
        return;
    }
#define FUNCTION(type, name, parameters, arguments)                                                          \
    real.name = (__typeof__(name) *)vo_library_symbol(library, library_name, #name, reason, sizeof reason);  \
    if (real.name == NULL) {                                                                                 \
        snprintf(failure, sizeof failure, "the content engine is not the one vidorient was built with (%s)", \
                 reason);                                                                                    \
        return;                                                                                              \
    }
#define VOID_FUNCTION(name, parameters, arguments) FUNCTION(void, name, parameters, arguments)
    CONTENT_FUNCTIONS
#undef FUNCTION
#undef VOID_FUNCTION
    if (real.vo_content_interface() != VO_CONTENT_INTERFACE) {
        snprintf(failure, sizeof failure, "the content engine is not the one vidorient was built with (interface %d, not %d)",
                 real.vo_content_interface(), VO_CONTENT_INTERFACE);
        return;
    }
    atomic_store(&loaded, true);
}

HIDDEN int vo_content_load(char *error, size_t length) {
    pthread_once(&load_once, load);
    if (atomic_load(&loaded)) return 0;
    if (error != NULL && length > 0) snprintf(error, length, "%s", failure);
    return -1;
}

static void require_loaded(const char *function) {
    if (atomic_load(&loaded)) return;
    pthread_once(&load_once, load);
    if (atomic_load(&loaded)) return;
    fprintf(stderr, "vidorient: %s called before the content engine was loaded: %s\n", function, failure);
    abort();
}

#define FUNCTION(type, name, parameters, arguments) \
    HIDDEN type name parameters {                   \
        require_loaded(#name);                      \
        return real.name arguments;                 \
    }
#define VOID_FUNCTION(name, parameters, arguments) \
    HIDDEN void name parameters {                  \
        require_loaded(#name);                     \
        real.name arguments;                       \
    }
CONTENT_FUNCTIONS
#undef FUNCTION
#undef VOID_FUNCTION
