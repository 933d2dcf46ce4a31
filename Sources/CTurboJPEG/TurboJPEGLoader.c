// libjpeg-turbo on first use, as CLibHeif/LibHeifLoader.c does for libheif: each function Swift
// calls (include/TurboJPEGFunctions.h) is defined here under its own name and calls the real one,
// resolved from libturbojpeg.so.0 the first time a JPEG is decoded or turned losslessly. Reading a
// JPEG's tags never needs it, so `fix`, `inspect` and the audit never map it.

#include "shim.h"

// The TurboJPEG API's soname has been libturbojpeg.so.0 since it was introduced.
#define LIBRARY_TITLE "libturbojpeg"
#define LIBRARY_SONAME "libturbojpeg.so.0"
#define LIBRARY_FUNCTIONS "TurboJPEGFunctions.h"
#define LIBRARY_LOAD vo_turbojpeg_load
#include <LibraryLoader.inc>
