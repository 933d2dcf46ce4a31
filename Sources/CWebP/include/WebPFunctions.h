// Every libwebp function vidorient calls, one line each, with the header's own prototype (see
// CFFmpeg/FFmpegFunctions.h). WebPConfigInit and WebPPictureInit are inline in the header and call
// the ...Internal functions listed here; WebPMemoryWrite is handed to libwebp as a callback.
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(int, WebPGetInfo, (const uint8_t *data, size_t data_size, int *width, int *height), (data, data_size, width, height))
FUNCTION(uint8_t *, WebPDecodeRGBA, (const uint8_t *data, size_t data_size, int *width, int *height), (data, data_size, width, height))
VOID_FUNCTION(WebPFree, (void *ptr), (ptr))
FUNCTION(int, WebPConfigInitInternal, (WebPConfig *config, WebPPreset preset, float quality, int version), (config, preset, quality, version))
FUNCTION(int, WebPPictureInitInternal, (WebPPicture *picture, int version), (picture, version))
FUNCTION(int, WebPPictureImportRGBA, (WebPPicture *picture, const uint8_t *rgba, int rgba_stride), (picture, rgba, rgba_stride))
VOID_FUNCTION(WebPPictureFree, (WebPPicture *picture), (picture))
VOID_FUNCTION(WebPMemoryWriterInit, (WebPMemoryWriter *writer), (writer))
VOID_FUNCTION(WebPMemoryWriterClear, (WebPMemoryWriter *writer), (writer))
FUNCTION(int, WebPMemoryWrite, (const uint8_t *data, size_t data_size, const WebPPicture *picture), (data, data_size, picture))
FUNCTION(int, WebPEncode, (const WebPConfig *config, WebPPicture *picture), (config, picture))
FUNCTION(int, WebPInitDecoderConfigInternal, (WebPDecoderConfig *config, int version), (config, version))
FUNCTION(VP8StatusCode, WebPDecode, (const uint8_t *data, size_t data_size, WebPDecoderConfig *config), (data, data_size, config))
VOID_FUNCTION(WebPFreeDecBuffer, (WebPDecBuffer *buffer), (buffer))
FUNCTION(VP8StatusCode, WebPGetFeaturesInternal, (const uint8_t *data, size_t data_size, WebPBitstreamFeatures *features, int version), (data, data_size, features, version))
