import CFFmpeg
package import VidorientCore

/// A PNG's pixels exactly as stored, in the pixel format FFmpeg's PNG decoder gives (8 or 16 bits,
/// grey or RGB, with or without alpha, or palette indices with their palette), so that they can be
/// moved whole and written back by FFmpeg's PNG encoder without any conversion.
package struct LosslessStill: Equatable {
    package var width: Int
    package var height: Int
    var pixelFormat: AVPixelFormat
    var bytesPerPixel: Int
    /// Rows top to bottom, no padding.
    var pixels: [UInt8]
    /// For palette pictures: 256 entries of 4 bytes (AVPixelFormat PAL8's native-endian ARGB).
    var palette: [UInt8]?

    /// Bytes a pixel for each pixel format kept as it is; nil for the rest.
    static func bytesPerPixel(_ format: AVPixelFormat) -> Int? {
        switch format {
        case AV_PIX_FMT_GRAY8, AV_PIX_FMT_PAL8: 1
        case AV_PIX_FMT_YA8, AV_PIX_FMT_GRAY16BE: 2
        case AV_PIX_FMT_RGB24: 3
        case AV_PIX_FMT_RGBA, AV_PIX_FMT_YA16BE: 4
        case AV_PIX_FMT_RGB48BE: 6
        case AV_PIX_FMT_RGBA64BE: 8
        default: nil
        }
    }

    /// Decodes the first picture of the file at `path` with FFmpeg, as stored.
    package static func decode(path: String) throws(VidorientError) -> LosslessStill {
        let file = try MediaFile(path: path)
        if file.needsStreamInfo {
            do { try file.findStreamInfo() } catch {
                throw .malformed("could not read the streams: \(error)")
            }
        }
        guard let stream = file.streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO })
        else {
            throw .malformed("no picture in the file")
        }
        let decoder: VideoDecoder
        let decoded: Bool
        do throws(FFmpegError) {
            decoder = try VideoDecoder(stream: stream)
            decoded = try decoder.decodeFirstFrame(from: file)
        } catch {
            throw .malformed("could not decode the picture: \(error)")
        }
        guard decoded else { throw .malformed("no frame could be decoded") }
        let frame = decoder.frame.pointee
        let format = AVPixelFormat(rawValue: frame.format)
        guard let size = bytesPerPixel(format) else {
            let name = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown"
            throw .unsupported("the decoder gives \(name) pixels, which normalize does not rewrite (1-bit and others)")
        }
        let width = Int(frame.width), height = Int(frame.height)
        let rowBytes = width * size
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        let stride = Int(frame.linesize.0)
        pixels.withUnsafeMutableBufferPointer { target in
            for row in 0..<height {
                (target.baseAddress! + row * rowBytes).update(from: frame.data.0! + row * stride, count: rowBytes)
            }
        }
        var palette: [UInt8]?
        if format == AV_PIX_FMT_PAL8, let data = frame.data.1 {
            palette = Array(UnsafeBufferPointer(start: data, count: 1024))
        }
        return LosslessStill(
            width: width, height: height, pixelFormat: format, bytesPerPixel: size, pixels: pixels, palette: palette)
    }

    /// The picture with `transform` applied: every pixel moved whole.
    package func applying(_ transform: UprightTransform) -> LosslessStill {
        var moved = self
        moved.pixels = transform.apply(to: pixels, width: width, height: height, bytesPerPixel: bytesPerPixel)
        if transform.swapsAxes { (moved.width, moved.height) = (height, width) }
        return moved
    }

    /// A PNG of these pixels in their own format, by FFmpeg's PNG encoder (bit-exact).
    package func encodePNG() throws(VidorientError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let context = avcodec_alloc_context3(codec) else {
            throw .unsupported("ffmpeg has no png encoder")
        }
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            av_frame_free(&frame)
            av_packet_free(&packet)
        }
        guard let frame, let packet else { throw .io("out of memory") }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = pixelFormat
        context.pointee.time_base = AVRational(num: 1, den: 1)
        context.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        // The best filter per row, as most PNG writers choose: smaller than FFmpeg's default of none.
        _ = av_opt_set(context.pointee.priv_data, "pred", "mixed", 0)
        var bytes: [UInt8] = []
        do {
            try FFmpegError.check(avcodec_open2(context, codec, nil))
            frame.pointee.width = Int32(width)
            frame.pointee.height = Int32(height)
            frame.pointee.format = pixelFormat.rawValue
            try FFmpegError.check(av_frame_get_buffer(frame, 0))
            let rowBytes = width * bytesPerPixel
            let stride = Int(frame.pointee.linesize.0)
            pixels.withUnsafeBufferPointer { source in
                for row in 0..<height {
                    (frame.pointee.data.0! + row * stride).update(
                        from: source.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
            if let palette, let target = frame.pointee.data.1 {
                palette.withUnsafeBufferPointer { target.update(from: $0.baseAddress!, count: min(1024, $0.count)) }
            }
            bytes = try encodeStill(frame, context: context, packet: packet)
        } catch {
            throw .unsupported("could not encode the png: \(error)")
        }
        return bytes
    }
}

/// A `LosslessStill` as a comparable, sendable value (it holds an FFmpeg enum): what a decode of
/// the written file must give.
package struct LosslessStillValue: Sendable, Equatable {
    var width: Int, height: Int, format: Int32, pixels: [UInt8], palette: [UInt8]?

    package init(_ still: LosslessStill) {
        (width, height, format, pixels, palette) = (
            still.width, still.height, still.pixelFormat.rawValue, still.pixels, still.palette
        )
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
