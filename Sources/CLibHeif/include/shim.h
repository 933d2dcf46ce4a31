#ifndef VIDORIENT_CLIBHEIF_SHIM_H
#define VIDORIENT_CLIBHEIF_SHIM_H

#include <stddef.h>
#include <libheif/heif.h>

// libheif is opened on first use (LibHeifLoader.c), not linked: its HEVC, AV1 and x265 codecs are
// mapped only when a HEIF picture is decoded. Opens it the first time; 0 when it is there, else
// -1 with the reason in `error` ("libheif is not installed (libheif.so.1: ...)").
int vo_libheif_load(char *error, size_t length);

#endif
