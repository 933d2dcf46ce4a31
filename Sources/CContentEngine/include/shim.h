#ifndef VIDORIENT_CCONTENTENGINE_SHIM_H
#define VIDORIENT_CCONTENTENGINE_SHIM_H

#include <stddef.h>

// The engine's own header: its C surface, declared once, where the engine defines it.
#include "../../VidorientContentEngine/include/vidorient_content.h"

// Opens the content engine the first time; 0 when it is there, else -1 with the reason in `error`
// ("the content engine cannot be loaded (libopencv_dnn.so.406: cannot open shared object file...)").
int vo_content_load(char *error, size_t length);

#endif
