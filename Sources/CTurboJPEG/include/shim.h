#ifndef VIDORIENT_CTURBOJPEG_SHIM_H
#define VIDORIENT_CTURBOJPEG_SHIM_H

#include <stddef.h>
#include <turbojpeg.h>

// libjpeg-turbo is opened on first use (TurboJPEGLoader.c), not linked. Opens it the first time;
// 0 when it is there, else -1 with the reason in `error` ("libturbojpeg is not installed (...)").
int vo_turbojpeg_load(char *error, size_t length);

// TJSCALED is a function-like macro, which Swift cannot import.
static inline int vo_tj_scaled(int dimension, tjscalingfactor factor) { return TJSCALED(dimension, factor); }

// tjMCUWidth/tjMCUHeight are static arrays in the header; -1 for an unknown subsampling.
static inline int vo_tj_mcu_width(int subsampling) {
    return subsampling >= 0 && subsampling < TJ_NUMSAMP ? tjMCUWidth[subsampling] : -1;
}
static inline int vo_tj_mcu_height(int subsampling) {
    return subsampling >= 0 && subsampling < TJ_NUMSAMP ? tjMCUHeight[subsampling] : -1;
}

#endif
