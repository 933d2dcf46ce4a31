#ifndef VIDORIENT_CFREETYPE_SHIM_H
#define VIDORIENT_CFREETYPE_SHIM_H

#include <ft2build.h>
#include FT_FREETYPE_H

/// FT_LOAD_RENDER is a macro with a shift and a long; a function keeps its type plain for Swift.
static inline FT_Int32 vidorient_ft_load_render(void) { return FT_LOAD_RENDER; }

/// FT_HAS_KERNING is a macro over the face flags.
static inline int vidorient_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }

#endif
