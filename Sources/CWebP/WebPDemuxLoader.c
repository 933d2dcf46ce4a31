// libwebpdemux on first use, as WebPLoader.c opens libwebp: the animation decoder that composes an
// animated WebP's first frame on its canvas (include/WebPDemuxFunctions.h), resolved from
// libwebpdemux.so.2 the first time such a file is thumbnailed or judged.

#include "shim.h"

// libwebpdemux.so.2 from libwebp 0.5 on (Debian 9 and later).
#define LIBRARY_TITLE "libwebpdemux"
#define LIBRARY_SONAME "libwebpdemux.so.2"
#define LIBRARY_FUNCTIONS "WebPDemuxFunctions.h"
#define LIBRARY_LOAD vo_webpdemux_load
#include <LibraryLoader.inc>
