#ifndef VIDORIENT_CWEBP_SHIM_H
#define VIDORIENT_CWEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>
// libwebp's functions are declared with default visibility; WebPLoader.c defines hidden trampolines
// under their names, which may not redeclare that. Plain `extern` declarations mean the same to C.
#ifndef WEBP_EXTERN
#define WEBP_EXTERN extern
#endif
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>

// libwebp is opened on first use (WebPLoader.c), not linked. Opens it the first time; 0 when it is
// there, else -1 with the reason in `error` ("libwebp is not installed (...)").
int vo_webp_load(char *error, size_t length);

// libwebpdemux the same way (WebPDemuxLoader.c), for an animated WebP's first frame.
int vo_webpdemux_load(char *error, size_t length);

#endif
