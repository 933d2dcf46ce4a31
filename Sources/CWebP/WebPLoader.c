// libwebp on first use, as CLibHeif/LibHeifLoader.c does for libheif: each function Swift calls
// (include/WebPFunctions.h) is defined here under its own name and calls the real one, resolved
// from libwebp.so.7 the first time `normalize` turns a lossless WebP.

#include "shim.h"

// libwebp.so.7 from libwebp 1.0 on (Debian 10 and later); the headers say no soname of their own.
#define LIBRARY_TITLE "libwebp"
#define LIBRARY_SONAME "libwebp.so.7"
#define LIBRARY_FUNCTIONS "WebPFunctions.h"
#define LIBRARY_LOAD vo_webp_load
#include <LibraryLoader.inc>
