#ifndef VIDORIENT_CWEBP_SHIM_H
#define VIDORIENT_CWEBP_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <webp/decode.h>
#include <webp/encode.h>

#endif
