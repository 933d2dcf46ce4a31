#ifndef VIDORIENT_CFFMPEG_SHIM_H
#define VIDORIENT_CFFMPEG_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libswscale/swscale.h>

// FFmpeg is opened on first use (FFmpegLoader.c), not linked. Opens it the first time; 0 when it
// is there, else -1 with the reason in `error` ("FFmpeg is not installed (libavformat.so.59: ...)").
int vo_ffmpeg_load(char *error, size_t length);

// av_log_set_level without loading FFmpeg: applied now if it is loaded, else when it is.
void vo_ffmpeg_set_log_level(int level);

// Swift cannot import function-like macros, so the codes callers branch on are functions here.
static inline int vo_averror_eof(void) { return AVERROR_EOF; }
static inline int vo_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int vo_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int vo_averror_einval(void) { return AVERROR(EINVAL); }
static inline int vo_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }

// A stream's side data of one type (display matrix, Dolby Vision configuration, ...) or NULL.
// It moved from AVStream side data (removed in 7.0) to AVCodecParameters.coded_side_data in 6.1.
static inline const uint8_t *vo_stream_side_data(const AVStream *stream, enum AVPacketSideDataType type,
                                                 size_t *size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data, type);
    if (sd == NULL) { *size = 0; return NULL; }
    *size = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data(stream, type, size);
#endif
}

// The stream's display matrix (nine int32 in native order) or NULL when the container has none.
static inline const int32_t *vo_stream_display_matrix(const AVStream *stream) {
    size_t size = 0;
    const uint8_t *data = vo_stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data == NULL || size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)data;
}

// The stream's Dolby Vision configuration record, or NULL.
static inline const AVDOVIDecoderConfigurationRecord *vo_stream_dovi(const AVStream *stream) {
    size_t size = 0;
    const uint8_t *data = vo_stream_side_data(stream, AV_PKT_DATA_DOVI_CONF, &size);
    if (data == NULL || size < sizeof(AVDOVIDecoderConfigurationRecord)) return NULL;
    return (const AVDOVIDecoderConfigurationRecord *)data;
}

// The frame's display matrix (from an H.264/HEVC display-orientation SEI or JPEG EXIF), or NULL.
static inline const int32_t *vo_frame_display_matrix(const AVFrame *frame) {
    const AVFrameSideData *sd = av_frame_get_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX);
    if (sd == NULL || sd->size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)sd->data;
}

// Gives up blocking I/O once the monotonic clock passes *deadline (microseconds, as
// av_gettime_relative), so one slow or hostile file cannot stall a batch.
static int vo_deadline_passed(void *deadline) {
    return deadline != NULL && av_gettime_relative() > *(const int64_t *)deadline;
}

static inline void vo_set_deadline(AVFormatContext *context, int64_t *deadline) {
    context->interrupt_callback.callback = vo_deadline_passed;
    context->interrupt_callback.opaque = deadline;
}

static inline int64_t vo_now(void) { return av_gettime_relative(); }

// Channel count: AVCodecParameters.ch_layout replaced .channels in 5.1 (removed in 7.0).
static inline int vo_channel_count(const AVCodecParameters *par) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(59, 24, 100)
    return par->ch_layout.nb_channels;
#else
    return par->channels;
#endif
}

// Whether the frame is a key frame: AVFrame.key_frame gave way to a flag in 6.1.
static inline int vo_frame_is_key(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 29, 100)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame;
#endif
}

#endif
