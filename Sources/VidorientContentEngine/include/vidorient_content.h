#ifndef VIDORIENT_CONTENT_H
#define VIDORIENT_CONTENT_H

// The content engine's C surface: what vidorient asks of dlib and OpenCV's DNN module, which
// are C++. The engine (Sources/VidorientContentEngine, libVidorientContentEngine.so) owns every
// C++ object and lets no exception out; it is opened on first use (CContentEngine/ContentEngineLoader.c), so
// that no command that does not judge content maps dlib or OpenCV.
//
// Pictures are 8-bit RGB, three bytes a pixel, rows top to bottom, `stride` bytes apart. The
// engine judges nothing: it finds faces and measures scene features of the picture it is given.
// Which way the picture is turned, and what the numbers mean, is decided in Swift
// (VidorientCore/ContentVerdict.swift).

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The length of one scene feature vector (EfficientNet-Lite0's pooled features).
#define VO_CONTENT_FEATURES 1280
// The sides of the square the scene network may be shown: a multiple of 32 (its total stride)
// from 96 to 320; it was trained at 224.
#define VO_CONTENT_SCENE_SIDE_MIN 96
#define VO_CONTENT_SCENE_SIDE_MAX 320
// The engine's interface version: the loader refuses a library built for another.
#define VO_CONTENT_INTERFACE 3

typedef struct vo_content_engine vo_content_engine;

// One face: its box in the picture's pixels and dlib's detection score (the SVM margin; 0 is
// dlib's own threshold).
typedef struct {
    float x, y, width, height;
    float score;
} vo_content_face;

int vo_content_interface(void);

// Sets the threads OpenCV may use inside one network pass (the process's setting: 1 when
// several engines run side by side, one per worker).
void vo_content_set_threads(int threads);

// An engine with the scene network read from `model_path` (ONNX). NULL on failure, with one
// line in `error`.
vo_content_engine *vo_content_engine_create(const char *model_path, char *error, size_t length);
// As vo_content_engine_create, with options: VO_CONTENT_OPENCV_CONVOLUTIONS has OpenCV compute
// every convolution, the depthwise ones the engine otherwise computes itself included (the same
// features within rounding; what the tests compare the engine's own against).
#define VO_CONTENT_OPENCV_CONVOLUTIONS 1
vo_content_engine *vo_content_engine_create_with(const char *model_path, int options, char *error, size_t length);
void vo_content_engine_destroy(vo_content_engine *engine);

// dlib's HOG frontal face detector on the picture, first scaled down (area averaging) so that its
// longest side is at most `longest_side`, then upsampled `upsample` times (each doubles the sides,
// so smaller faces are found); every detection scoring at least `minimum_score`, best first, at
// most `capacity` of them, boxes in the given picture's pixels. Returns how many, or -1 with a
// line in `error`.
int vo_content_faces(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                     int longest_side, int upsample, float minimum_score, vo_content_face *faces, int capacity,
                     char *error, size_t length);

// The scene features of the picture's centred square, scaled to `side` × `side` with area
// averaging, one pass of the network each: with `mirror` 0, VO_CONTENT_FEATURES for the picture as
// given; 1, those and then the next VO_CONTENT_FEATURES for its horizontal mirror image; 2, the
// mirror image's alone. Returns 0, or -1 with a line in `error`.
int vo_content_scene(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride, int side,
                     int mirror, float *features, char *error, size_t length);

// The network's ImageNet class scores (1,000 logits, in ImageNet's class order) for the picture's
// centred square at VO_CONTENT_SCENE_SIDE: what proves the conversion from PyTorch kept the network
// (a cat photo must come out a cat). Returns 0, or -1 with a line in `error`.
#define VO_CONTENT_CLASSES 1000
#define VO_CONTENT_SCENE_SIDE 224
int vo_content_classes(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                       float *logits, char *error, size_t length);

#ifdef __cplusplus
}
#endif

#endif
