// libheif on first use, as CFFmpeg/FFmpegLoader.c does for FFmpeg: each function Swift calls
// (include/LibHeifFunctions.h) is defined here under libheif's name and calls the real one,
// resolved from libheif.so.1 when a HEIF picture is first decoded (CLibraryLoader's
// LibraryLoader.inc). Reading HEIF structure never needs libheif.

#include "shim.h"

// libheif's soname has been libheif.so.1 through every 1.x release.
_Static_assert((LIBHEIF_NUMERIC_VERSION >> 24) == 1, "libheif's headers are not version 1: check its soname");

#define LIBRARY_TITLE "libheif"
#define LIBRARY_SONAME "libheif.so.1"
#define LIBRARY_FUNCTIONS "LibHeifFunctions.h"
#define LIBRARY_LOAD vo_libheif_load
#include <LibraryLoader.inc>
