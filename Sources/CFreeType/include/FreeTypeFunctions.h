// Every FreeType function vidorient calls, one line each, with FreeType's own prototype (see
// CFFmpeg/FFmpegFunctions.h: a missing line is a link error, a wrong one a conflicting-types error).
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(FT_Error, FT_Init_FreeType, (FT_Library *alibrary), (alibrary))
FUNCTION(FT_Error, FT_Done_FreeType, (FT_Library library), (library))
FUNCTION(FT_Error, FT_New_Face, (FT_Library library, const char *filepathname, FT_Long face_index, FT_Face *aface), (library, filepathname, face_index, aface))
FUNCTION(FT_Error, FT_Done_Face, (FT_Face face), (face))
FUNCTION(FT_Error, FT_Set_Pixel_Sizes, (FT_Face face, FT_UInt pixel_width, FT_UInt pixel_height), (face, pixel_width, pixel_height))
FUNCTION(FT_UInt, FT_Get_Char_Index, (FT_Face face, FT_ULong charcode), (face, charcode))
FUNCTION(FT_Error, FT_Load_Glyph, (FT_Face face, FT_UInt glyph_index, FT_Int32 load_flags), (face, glyph_index, load_flags))
FUNCTION(FT_Error, FT_Get_Kerning, (FT_Face face, FT_UInt left_glyph, FT_UInt right_glyph, FT_UInt kern_mode, FT_Vector *akerning), (face, left_glyph, right_glyph, kern_mode, akerning))
