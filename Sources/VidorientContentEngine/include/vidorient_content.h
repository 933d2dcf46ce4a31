#ifndef VIDORIENT_CONTENT_H
#define VIDORIENT_CONTENT_H

// The content engine's C surface: what vidorient asks of dlib and OpenCV's DNN module, which
// are C++. The engine (Sources/VidorientContentEngine, libVidorientContentEngine.so) owns every
// C++ object and lets no exception out; it is opened on first use (CContentEngine/ContentEngineLoader.c), so
// that no command that does not judge content maps dlib or OpenCV. Tesseract, for the orientation
// of text, is opened by the engine itself at the first text reading (it may be absent: then only
// that reading fails).
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
#define VO_CONTENT_INTERFACE 6

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

// vo_content_scene, and in `logits` (NULL: not wanted) the network's ImageNet class scores of the
// same passes, VO_CONTENT_CLASSES for each picture in the order of `features`: a picture of a page
// or a screen is told by its classes (web site, menu, book jacket...) at no cost of its own.
int vo_content_scene_classes(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                             int side, int mirror, float *features, float *logits, char *error, size_t length);

// What Tesseract's orientation and script detection (its `osd` data, as `tesseract --psm 0`) reads
// in a picture of text: `rotation`, the clockwise degrees (0, 90, 180, 270) that turn the picture
// upright; `confidence`, Tesseract's orientation confidence (15 is "reasonably confident", its
// header says); the script it saw, with its confidence.
typedef struct {
    int rotation;
    float confidence;
    char script[32];
    float script_confidence;
} vo_content_text;

// Reads `text` from the picture, first enlarged (bicubic, at most VO_CONTENT_TEXT_ENLARGE times) toward
// `longest_side` when it is smaller: Tesseract misses letters only a few pixels high. Returns 1 when
// it read an orientation, 0 when the picture has too little text for one, or -1 with a line in
// `error` (Tesseract or its orientation data is not installed, or it failed).
#define VO_CONTENT_TEXT_ENLARGE 2
int vo_content_text_orientation(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                                int longest_side, vo_content_text *text, char *error, size_t length);

// What Leptonica's text orientation detection (`pixOrientDetect`: the ascenders and descenders of
// Latin text counted with hit-miss templates, the method of Bloomberg, Kopec and Dasari 1995) measures
// in a picture of text, first fitted to `longest_side` (enlarged with cubic interpolation or shrunk
// by area averaging: its templates are made for text scanned at 150-300 pixels an inch), made grey
// (inverted when most of it is dark: a terminal, a dark screen) and 1-bit by an adaptive threshold.
// `up`: how far the up-pointing ascenders outnumber the down-pointing ones (positive: the text is
// upright or close to it; negative: upside down); `left`: the same of the picture turned 90 degrees
// clockwise (positive: the text's up faces left). Each is 0 when too few were counted; neither is a
// probability (Leptonica's notes: "how far you are out on the tail of a normal distribution").
// Returns 0, or -1 with a line in `error` (Leptonica is not installed, or it failed).
typedef struct {
    float up;
    float left;
} vo_content_letters;
int vo_content_letter_shapes(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                             int longest_side, vo_content_letters *letters, char *error, size_t length);

// How many words Tesseract recognises with confidence in each quarter turn of a picture of text (its
// `eng` data, its LSTM recogniser, the page taken as one column: `tesseract --psm 4`), the picture
// first fitted to `longest_side` (enlarged with cubic interpolation, at most VO_CONTENT_TEXT_ENLARGE
// times, or shrunk by area averaging). `counts[k]` is for the picture turned k quarter turns
// clockwise: the words whose confidence (0-100) is at least `minimum_confidence` and which hold at
// least `minimum_letters` letters (an ASCII letter or any character beyond ASCII). Text on its side
// or upside down reads as few or none. Each turn's recognition stops at `deadline_ms` milliseconds.
// Returns 1 with the four counts; 0 when a turn ran out of time (no counts); -1 with a line in
// `error` (Tesseract or its English data is not installed, or it failed).
typedef struct {
    int counts[4];
} vo_content_words;
int vo_content_word_counts(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                           int longest_side, float minimum_confidence, int minimum_letters, int deadline_ms,
                           vo_content_words *words, char *error, size_t length);

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
