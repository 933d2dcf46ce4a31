#ifndef VIDORIENT_CLIBHEIF_SHIM_H
#define VIDORIENT_CLIBHEIF_SHIM_H

#include <libheif/heif.h>

#endif
