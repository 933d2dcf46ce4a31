import CFFmpeg
package import VidorientCore

/// PNG or JPEG bytes through libavcodec's own encoders: no extra dependency, and bit-exact
/// flags so the same picture gives the same bytes on every run and machine.
package enum StillEncoder {
    /// Encodes `picture`. `quality` (1–100, higher is better) applies to JPEG.
    package static func encode(_ picture: Picture, as format: ImageFormat, quality: Int) throws(VidorientError)
        -> [UInt8]
    {
        if let failure = FFmpegLibraries.loadFailure { throw .io("could not encode \(format.rawValue): \(failure)") }
        do {
            return try OpenStillEncoder(format: format, picture: picture, quality: quality).bytes
        } catch {
            throw .unsupported("could not encode \(format.rawValue): \(error)")
        }
    }
}

/// Owns the codec context, frame and packet for one encode.
private final class OpenStillEncoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    let packet: UnsafeMutablePointer<AVPacket>
    private(set) var bytes: [UInt8] = []

    init(format: ImageFormat, picture: Picture, quality: Int) throws(FFmpegError) {
        let codecID = format == .png ? AV_CODEC_ID_PNG : AV_CODEC_ID_MJPEG
        // PNG stores RGB as it is; JPEG wants full-range YUV 4:2:0, as cameras write it.
        let pixelFormat = format == .png ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUVJ420P
        guard let codec = avcodec_find_encoder(codecID), let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: vo_averror_decoder_not_found())
        }
        guard let frame = av_frame_alloc() else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw FFmpegError.outOfMemory
        }
        guard let packet = av_packet_alloc() else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            var ownedFrame: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&ownedFrame)
            throw FFmpegError.outOfMemory
        }
        self.context = context
        self.frame = frame
        self.packet = packet

        context.pointee.width = Int32(picture.width)
        context.pointee.height = Int32(picture.height)
        context.pointee.pix_fmt = pixelFormat
        context.pointee.time_base = AVRational(num: 1, den: 25)
        context.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        context.pointee.thread_count = 1
        // zlib at 2 instead of 6: a thumbnail a few percent larger, written several times faster.
        if format == .png { context.pointee.compression_level = 2 }
        if format == .jpg {
            // ffmpeg's -q:v scale, 2 (best) to 31, from a 1–100 quality.
            let scale = 2 + (100 - max(1, min(100, quality))) * 29 / 99
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = Int32(scale) * FF_QP2LAMBDA
            context.pointee.color_range = AVCOL_RANGE_JPEG
        }
        try FFmpegError.check(avcodec_open2(context, codec, nil))

        frame.pointee.width = Int32(picture.width)
        frame.pointee.height = Int32(picture.height)
        frame.pointee.format = pixelFormat.rawValue
        if format == .jpg {
            frame.pointee.quality = context.pointee.global_quality
            frame.pointee.color_range = AVCOL_RANGE_JPEG
        }
        try FFmpegError.check(av_frame_get_buffer(frame, 0))
        try fill(picture, format: pixelFormat)

        bytes += try encodeStill(frame, context: context, packet: packet)
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        avcodec_free_context(&context)
    }

    /// Copies the picture into the frame, converting to YUV for JPEG with swscale.
    private func fill(_ picture: Picture, format: AVPixelFormat) throws(FFmpegError) {
        if format == AV_PIX_FMT_RGB24 {
            let stride = Int(frame.pointee.linesize.0)
            picture.pixels.withUnsafeBufferPointer { source in
                for row in 0..<picture.height {
                    (frame.pointee.data.0! + row * stride).update(
                        from: source.baseAddress! + row * picture.width * 3, count: picture.width * 3)
                }
            }
            return
        }
        guard
            let scaler = sws_getContext(
                Int32(picture.width), Int32(picture.height), AV_PIX_FMT_RGB24, Int32(picture.width),
                Int32(picture.height), format, SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT, nil, nil, nil)
        else { throw FFmpegError.invalidArgument }
        defer { sws_freeContext(scaler) }
        // Full-range BT.601, as JFIF defines it.
        _ = sws_setColorspaceDetails(
            scaler, sws_getCoefficients(SWS_CS_DEFAULT), 1, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
        picture.pixels.withUnsafeBufferPointer { source in
            var sourcePlanes: [UnsafePointer<UInt8>?] = [source.baseAddress, nil, nil, nil]
            var sourceStrides: [Int32] = [Int32(picture.width * 3), 0, 0, 0]
            withUnsafeMutablePointer(to: &frame.pointee.data) { dataTuple in
                dataTuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { targetPlanes in
                    withUnsafePointer(to: frame.pointee.linesize) { linesizeTuple in
                        linesizeTuple.withMemoryRebound(to: Int32.self, capacity: 8) { targetStrides in
                            _ = sws_scale(
                                scaler, &sourcePlanes, &sourceStrides, 0, Int32(picture.height), targetPlanes,
                                targetStrides)
                        }
                    }
                }
            }
        }
    }
}

/// Sends one frame and the end of the stream to an opened encoder and returns every byte it
/// writes (one still image: PNG, JPEG).
func encodeStill(
    _ frame: UnsafeMutablePointer<AVFrame>, context: UnsafeMutablePointer<AVCodecContext>,
    packet: UnsafeMutablePointer<AVPacket>
) throws(FFmpegError) -> [UInt8] {
    var bytes: [UInt8] = []
    try FFmpegError.check(avcodec_send_frame(context, frame))
    try FFmpegError.check(avcodec_send_frame(context, nil))
    while true {
        let code = avcodec_receive_packet(context, packet)
        if code == FFmpegError.endOfFile.code || code == FFmpegError.tryAgain.code { break }
        try FFmpegError.check(code)
        bytes += UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
        av_packet_unref(packet)
    }
    return bytes
}
