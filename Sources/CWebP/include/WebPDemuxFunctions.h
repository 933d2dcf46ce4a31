// Every libwebpdemux function vidorient calls (an animated WebP's first frame), one line each, with
// the header's own prototype (see WebPFunctions.h). WebPAnimDecoderOptionsInit and
// WebPAnimDecoderNew are inline in the header and call the ...Internal functions listed here.
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(int, WebPAnimDecoderOptionsInitInternal, (WebPAnimDecoderOptions *options, int version), (options, version))
FUNCTION(WebPAnimDecoder *, WebPAnimDecoderNewInternal, (const WebPData *data, const WebPAnimDecoderOptions *options, int version), (data, options, version))
FUNCTION(int, WebPAnimDecoderGetInfo, (const WebPAnimDecoder *decoder, WebPAnimInfo *info), (decoder, info))
FUNCTION(int, WebPAnimDecoderGetNext, (WebPAnimDecoder *decoder, uint8_t **buffer, int *timestamp), (decoder, buffer, timestamp))
VOID_FUNCTION(WebPAnimDecoderDelete, (WebPAnimDecoder *decoder), (decoder))
