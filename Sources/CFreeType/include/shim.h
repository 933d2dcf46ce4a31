#ifndef VIDORIENT_CFREETYPE_SHIM_H
#define VIDORIENT_CFREETYPE_SHIM_H

#include <stddef.h>
#include <stdint.h>

// FreeType is opened on first use (FreeTypeLoader.c), not linked. Opens it the first time; 0 when
// it is there, else -1 with the reason in `error` ("FreeType is not installed (...)").
int vo_freetype_load(char *error, size_t length);

// One face of a font file, with its own FreeType library instance; NULL when it cannot be read.
// Call vo_freetype_load first. Not thread-safe: one caller at a time per face.
typedef struct vo_ft_face vo_ft_face;
vo_ft_face *vo_ft_face_open(const char *path);
void vo_ft_face_close(vo_ft_face *face);

// Sets the size in pixels; 0 on success, with the scaled ascender and descender (whole pixels,
// the descender negative below the baseline).
int vo_ft_set_pixel_size(vo_ft_face *face, unsigned pixels, int *ascender, int *descender);

// The glyph for a Unicode code point (0: none in this face).
unsigned vo_ft_glyph_index(vo_ft_face *face, uint32_t codepoint);

// The kerning between two glyphs in whole pixels (0 when the face has none).
int vo_ft_kerning(vo_ft_face *face, unsigned left, unsigned right);

// A glyph rendered as an 8-bit coverage bitmap. `buffer` belongs to the face and is valid until
// the next glyph is rendered; `gray` is 0 for any other pixel mode (then the bitmap is not used).
typedef struct {
    int rows, width, pitch;
    int left, top;
    int advance;
    int gray;
    const unsigned char *buffer;
} vo_ft_glyph;

// 0 on success.
int vo_ft_render_glyph(vo_ft_face *face, unsigned index, vo_ft_glyph *glyph);

#endif
