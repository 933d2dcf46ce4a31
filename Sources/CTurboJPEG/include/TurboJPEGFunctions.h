// Every libjpeg-turbo (TurboJPEG API) function vidorient calls, one line each, with the header's own
// prototype (see CFFmpeg/FFmpegFunctions.h: a missing line is a link error, a wrong one a
// conflicting-types error).
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(tjhandle, tjInitDecompress, (void), ())
FUNCTION(tjhandle, tjInitTransform, (void), ())
FUNCTION(int, tjDestroy, (tjhandle handle), (handle))
FUNCTION(int, tjDecompressHeader3, (tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, int *width, int *height, int *jpegSubsamp, int *jpegColorspace), (handle, jpegBuf, jpegSize, width, height, jpegSubsamp, jpegColorspace))
FUNCTION(int, tjDecompress2, (tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, unsigned char *dstBuf, int width, int pitch, int height, int pixelFormat, int flags), (handle, jpegBuf, jpegSize, dstBuf, width, pitch, height, pixelFormat, flags))
FUNCTION(int, tjTransform, (tjhandle handle, const unsigned char *jpegBuf, unsigned long jpegSize, int n, unsigned char **dstBufs, unsigned long *dstSizes, tjtransform *transforms, int flags), (handle, jpegBuf, jpegSize, n, dstBufs, dstSizes, transforms, flags))
FUNCTION(tjscalingfactor *, tjGetScalingFactors, (int *numScalingFactors), (numScalingFactors))
FUNCTION(int, tjGetErrorCode, (tjhandle handle), (handle))
FUNCTION(char *, tjGetErrorStr2, (tjhandle handle), (handle))
FUNCTION(unsigned char *, tjAlloc, (int bytes), (bytes))
FUNCTION(unsigned long, tjBufSize, (int width, int height, int jpegSubsamp), (width, height, jpegSubsamp))
VOID_FUNCTION(tjFree, (unsigned char *buffer), (buffer))
FUNCTION(tjhandle, tjInitCompress, (void), ())
FUNCTION(int, tjCompress2, (tjhandle handle, const unsigned char *srcBuf, int width, int pitch, int height, int pixelFormat, unsigned char **jpegBuf, unsigned long *jpegSize, int jpegSubsamp, int jpegQual, int flags), (handle, srcBuf, width, pitch, height, pixelFormat, jpegBuf, jpegSize, jpegSubsamp, jpegQual, flags))
