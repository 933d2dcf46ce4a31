#ifndef VIDORIENT_CLIBPNG_SHIM_H
#define VIDORIENT_CLIBPNG_SHIM_H

#include <stddef.h>
#include <stdint.h>

// libpng is opened on first use (LibPNGLoader.c), not linked. Opens it the first time; 0 when it
// is there, else -1 with the reason in `error` ("libpng is not installed (...)").
int vo_libpng_load(char *error, size_t length);

// A PNG being read from memory (`data` must outlive it); NULL with the reason in `error` when its
// header cannot be read. Call vo_libpng_load first. One caller at a time.
typedef struct vo_png vo_png;
vo_png *vo_png_open(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, char *error, size_t length);

// Every pixel as 8-bit RGB, `stride` bytes a row (at least width × 3): a palette, grey, 16 bits and
// interlacing turned into that, transparency composited onto black; 0, or -1 with the reason.
int vo_png_read_rgb(vo_png *png, uint8_t *pixels, size_t stride, char *error, size_t length);

void vo_png_close(vo_png *png);

#endif
