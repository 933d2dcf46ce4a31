#ifndef VIDORIENT_CTURBOJPEG_SHIM_H
#define VIDORIENT_CTURBOJPEG_SHIM_H

#include <stddef.h>
#include <turbojpeg.h>

// TJSCALED is a function-like macro, which Swift cannot import.
static inline int vo_tj_scaled(int dimension, tjscalingfactor factor) { return TJSCALED(dimension, factor); }

#endif
