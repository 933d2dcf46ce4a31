// FreeType on first use, as CLibHeif/LibHeifLoader.c does for libheif: the functions listed in
// include/FreeTypeFunctions.h are resolved from libfreetype.so.6 the first time a caption is drawn,
// and the few calls below (shim.h) make them, through the table. FreeType's headers live under
// freetype2/, off the default include path, so only this file sees them (Package.swift gives it the
// path): Swift gets the calls in shim.h, which name no FreeType type. No trampolines: FreeType
// declares its functions with default visibility, which a hidden definition cannot redeclare.

#include <stdlib.h>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "shim.h"

// FreeType 2's soname has been libfreetype.so.6 throughout.
_Static_assert(FREETYPE_MAJOR == 2, "FreeType's headers are not FreeType 2: check its soname");

#define LIBRARY_TITLE "FreeType"
#define LIBRARY_SONAME "libfreetype.so.6"
#define LIBRARY_FUNCTIONS "FreeTypeFunctions.h"
#define LIBRARY_LOAD vo_freetype_load
#define LIBRARY_CALLS_THROUGH_TABLE
#include <LibraryLoader.inc>

struct vo_ft_face {
    FT_Library library;
    FT_Face face;
};

HIDDEN vo_ft_face *vo_ft_face_open(const char *path) {
    if (!atomic_load(&loaded)) return NULL;
    vo_ft_face *result = calloc(1, sizeof *result);
    if (result == NULL) return NULL;
    if (real.FT_Init_FreeType(&result->library) != 0) {
        free(result);
        return NULL;
    }
    if (real.FT_New_Face(result->library, path, 0, &result->face) != 0) {
        real.FT_Done_FreeType(result->library);
        free(result);
        return NULL;
    }
    return result;
}

HIDDEN void vo_ft_face_close(vo_ft_face *face) {
    if (face == NULL) return;
    real.FT_Done_Face(face->face);
    real.FT_Done_FreeType(face->library);
    free(face);
}

HIDDEN int vo_ft_set_pixel_size(vo_ft_face *face, unsigned pixels, int *ascender, int *descender) {
    if (real.FT_Set_Pixel_Sizes(face->face, 0, pixels) != 0 || face->face->size == NULL) return -1;
    *ascender = (int)(face->face->size->metrics.ascender >> 6);
    *descender = (int)(face->face->size->metrics.descender >> 6);
    return 0;
}

HIDDEN unsigned vo_ft_glyph_index(vo_ft_face *face, uint32_t codepoint) {
    return real.FT_Get_Char_Index(face->face, codepoint);
}

HIDDEN int vo_ft_kerning(vo_ft_face *face, unsigned left, unsigned right) {
    if (!FT_HAS_KERNING(face->face)) return 0;
    FT_Vector delta = {0, 0};
    if (real.FT_Get_Kerning(face->face, left, right, FT_KERNING_DEFAULT, &delta) != 0) return 0;
    return (int)(delta.x >> 6);
}

HIDDEN int vo_ft_render_glyph(vo_ft_face *face, unsigned index, vo_ft_glyph *glyph) {
    if (real.FT_Load_Glyph(face->face, index, FT_LOAD_RENDER) != 0 || face->face->glyph == NULL) return -1;
    FT_GlyphSlot slot = face->face->glyph;
    glyph->rows = (int)slot->bitmap.rows;
    glyph->width = (int)slot->bitmap.width;
    glyph->pitch = slot->bitmap.pitch;
    glyph->left = slot->bitmap_left;
    glyph->top = slot->bitmap_top;
    glyph->advance = (int)(slot->advance.x >> 6);
    glyph->gray = slot->bitmap.pixel_mode == FT_PIXEL_MODE_GRAY;
    glyph->buffer = slot->bitmap.buffer;
    return 0;
}
