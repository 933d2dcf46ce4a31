import CFFmpeg

/// A decoder for one video stream: owns its `AVCodecContext`, a packet and a frame.
final class VideoDecoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    let packet: UnsafeMutablePointer<AVPacket>
    /// The last frame decoded. It stays when a later attempt gives none (the end of the
    /// stream), since frames are received into `incoming` and then swapped in.
    private(set) var frame: UnsafeMutablePointer<AVFrame>
    private var incoming: UnsafeMutablePointer<AVFrame>
    /// `frame` holds a frame decoded since the last seek.
    private(set) var holdsFrame = false
    let streamIndex: Int32
    /// The end of the stream was signalled: only frames already inside are left.
    private var drained = false
    /// What the decoder met since the last seek: a packet it refused (`avcodec_send_packet`'s
    /// error), or a frame it decoded with errors concealed (`decode_error_flags`, or
    /// `AV_FRAME_FLAG_CORRUPT`); nil when nothing. For the user: the picture may show it.
    private(set) var damage: String?

    /// - Parameter lowres: decode at 1/2^lowres of the size, where the decoder can (JPEG down
    ///   to 1/8), capped at what it offers; `Int.max` for the smallest, enough when only side
    ///   data and metadata are wanted.
    /// `maximumPixels`: the decoder refuses (EINVAL) a frame larger, before it allocates it
    /// (`max_pixels`, checked by `ff_get_buffer`); nil: FFmpeg's own limit.
    init(stream: UnsafeMutablePointer<AVStream>, lowres: Int = 0, maximumPixels: Int? = nil) throws(FFmpegError) {
        guard let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id) else {
            throw FFmpegError(code: vo_averror_decoder_not_found())
        }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError.outOfMemory }
        guard let packet = av_packet_alloc() else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw FFmpegError.outOfMemory
        }
        var frames: [UnsafeMutablePointer<AVFrame>?] = [av_frame_alloc(), av_frame_alloc()]
        guard let frame = frames[0], let incoming = frames[1] else {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            var ownedPacket: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&ownedPacket)
            for index in frames.indices { av_frame_free(&frames[index]) }
            throw FFmpegError.outOfMemory
        }
        // From here on deinit frees them all, whatever fails next.
        self.context = context
        self.packet = packet
        self.frame = frame
        self.incoming = incoming
        self.streamIndex = stream.pointee.index
        try FFmpegError.check(avcodec_parameters_to_context(context, stream.pointee.codecpar))
        context.pointee.pkt_timebase = stream.pointee.time_base
        // One thread. Frame threading cannot share one frame's work and delays the first frame
        // by a frame per thread; slice threading gains nothing on single-slice frames (x264's,
        // and those of the phone clips in ../shared/media) and costs CPU (docs/thumbnail.md).
        // A batch already decodes one file per core.
        context.pointee.thread_count = 1
        context.pointee.lowres = Int32(min(max(0, lowres), Int(codec.pointee.max_lowres)))
        if let maximumPixels { context.pointee.max_pixels = Int64(maximumPixels) }
        try FFmpegError.check(avcodec_open2(context, codec, nil))
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
        var incoming: UnsafeMutablePointer<AVFrame>? = self.incoming
        av_frame_free(&incoming)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        avcodec_free_context(&context)
    }

    /// Decodes until the first frame of the stream is in `frame`, reading at most
    /// `packetLimit` packets of the stream. Returns false when the stream ends without a frame.
    func decodeFirstFrame(from file: MediaFile, packetLimit: Int = 256) throws(FFmpegError) -> Bool {
        try decodeNextFrame(from: file, packetLimit: packetLimit)
    }

    /// Decodes the next frame into `frame`; false when the stream ends first.
    ///
    /// - Parameter skippingBefore: a time in seconds: a packet whose time is earlier is decoded
    ///   only when it is a reference for others (`AVDISCARD_NONREF`), so its own picture never
    ///   comes out. Only for codecs where a non-reference picture is never used by another
    ///   (`skipsNonReferenceFrames`); nil decodes everything.
    func decodeNextFrame(from file: MediaFile, skippingBefore: Double? = nil, packetLimit: Int = 1024)
        throws(FFmpegError) -> Bool
    {
        if try receive() { return true }
        if drained { return false }
        let received = try sendPackets(from: file, limit: packetLimit) { () throws(FFmpegError) -> Bool in
            let early = skippingBefore.flatMap { before in packetTime.map { $0 + 1e-6 < before } } ?? false
            context.pointee.skip_frame = early ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
            guard send() else { return false }
            return try receive()
        }
        if received { return true }
        return try drain()
    }

    /// Decodes the first keyframe from where the file is (just after a seek) into `frame`, and
    /// nothing after it: once the keyframe's packet is in, the decoder is told the stream ends,
    /// so it gives that picture at once instead of first decoding the frames that reordering
    /// (B-frames) would make it wait for. Packets before a keyframe decode as in
    /// `decodeNextFrame`, and a frame they give is the one returned. Afterwards the decoder is
    /// drained: only `seek` makes it decode again. False when no frame came out.
    func decodeKeyframe(from file: MediaFile, packetLimit: Int = 1024) throws(FFmpegError) -> Bool {
        if try receive() { return true }
        if drained { return false }
        context.pointee.skip_frame = AVDISCARD_DEFAULT
        var keyframeSent = false
        let received = try sendPackets(from: file, limit: packetLimit) { () throws(FFmpegError) -> Bool in
            let isKeyframe = packet.pointee.flags & AV_PKT_FLAG_KEY != 0
            guard send() else { return false }
            keyframeSent = isKeyframe
            if isKeyframe { return true }
            return try receive()
        }
        // Once the keyframe is in, the decoder is told the stream ends (below), so it gives that picture now.
        if received && !keyframeSent { return true }
        return try drain()
    }

    /// Reads this stream's packets from `file` into `packet`, at most `limit` of them, and hands
    /// each to `body` until it returns true (then true); false when the file or the limit ends
    /// first. Each packet is let go after `body`.
    private func sendPackets(from file: MediaFile, limit: Int, _ body: () throws(FFmpegError) -> Bool)
        throws(FFmpegError) -> Bool
    {
        var sent = 0
        while sent < limit {
            guard try file.read(into: packet) else { return false }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            sent += 1
            if try body() { return true }
        }
        return false
    }

    /// Sends `packet` to the decoder; false when it refused it as damaged (noted), so that the
    /// caller skips it: the next keyframe may still decode.
    private func send() -> Bool {
        let code = avcodec_send_packet(context, packet)
        guard code < 0 && code != FFmpegError.tryAgain.code else { return true }
        noteRefused(code)
        return false
    }

    /// Tells the decoder no more packets are coming, so that it gives the frames it held back
    /// (reordering), and takes the next of them.
    private func drain() throws(FFmpegError) -> Bool {
        _ = avcodec_send_packet(context, nil)
        drained = true
        return try receive()
    }

    /// Whether dropping non-reference pictures (`AVDISCARD_NONREF`) can never change another
    /// picture: true for H.264, where such a picture (nal_ref_idc 0) is by definition used by no
    /// other. Not for HEVC, whose "sub-layer non-reference" pictures may still be used by
    /// pictures of a higher temporal layer, as phones write them.
    var skipsNonReferenceFrames: Bool { context.pointee.codec_id == AV_CODEC_ID_H264 }

    /// The time of the packet in `packet`, in seconds; nil when it has none.
    private var packetTime: Double? {
        let pts = packet.pointee.pts
        let timeBase = context.pointee.pkt_timebase
        guard pts != Int64.min, timeBase.num > 0, timeBase.den > 0 else { return nil }
        return Double(pts) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// `seconds` in `timeBase` units, saturated: a time a file merely claims (a duration of
    /// 1e300 seconds, say) must not trap the conversion to an integer.
    static func timestamp(seconds: Double, timeBase: AVRational) -> Int64 {
        guard timeBase.num > 0, timeBase.den > 0, !seconds.isNaN else { return 0 }
        let ticks = (seconds * Double(timeBase.den) / Double(timeBase.num)).rounded(.down)
        return ticks >= 9.2e18 ? Int64.max / 2 : (ticks <= -9.2e18 ? Int64.min / 2 : Int64(ticks))
    }

    /// Seeks to the keyframe at or before `seconds` and forgets what the decoder holds.
    func seek(in file: MediaFile, to seconds: Double) throws(FFmpegError) {
        let timeBase = file.streams[Int(streamIndex)].pointee.time_base
        let timestamp = VideoDecoder.timestamp(seconds: seconds, timeBase: timeBase)
        try FFmpegError.check(av_seek_frame(file.context, streamIndex, max(0, timestamp), AVSEEK_FLAG_BACKWARD))
        avcodec_flush_buffers(context)
        context.pointee.skip_frame = AVDISCARD_DEFAULT
        drained = false
        holdsFrame = false
        damage = nil
    }

    /// The decoded frame's time in seconds, when known.
    var frameTime: Double? {
        let timestamp = frame.pointee.best_effort_timestamp
        let timeBase = context.pointee.pkt_timebase
        guard timestamp != Int64.min, timeBase.den > 0 else { return nil }
        return Double(timestamp) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// Receives a frame into `incoming` (which FFmpeg empties first, whatever it then returns)
    /// and, when one came, makes it `frame`.
    private func receive() throws(FFmpegError) -> Bool {
        let code = avcodec_receive_frame(context, incoming)
        if code == FFmpegError.tryAgain.code || code == FFmpegError.endOfFile.code { return false }
        try FFmpegError.check(code)
        swap(&frame, &incoming)
        holdsFrame = true
        if damage == nil, frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 {
            damage = "a frame was decoded with errors concealed"
        }
        return true
    }

    private func noteRefused(_ code: Int32) {
        if damage == nil { damage = "a packet could not be decoded (\(FFmpegError(code: code)))" }
    }
}

/// libavcodec's bitstream parser for one stream: reads parameter sets (SPS/PPS/VPS) from
/// extradata and packets and reports the pixel format and profile, decoding no picture.
final class ParameterSetParser {
    private let parser: UnsafeMutablePointer<AVCodecParserContext>
    private let context: UnsafeMutablePointer<AVCodecContext>

    init?(stream: UnsafeMutablePointer<AVStream>) {
        guard let parser = av_parser_init(Int32(stream.pointee.codecpar.pointee.codec_id.rawValue)) else { return nil }
        guard let context = avcodec_alloc_context3(nil) else {
            av_parser_close(parser)
            return nil
        }
        self.parser = parser
        self.context = context
        // Whole access units come from the demuxer: nothing to reassemble.
        parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        _ = avcodec_parameters_to_context(context, stream.pointee.codecpar)
    }

    deinit {
        av_parser_close(parser)
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    func parse(_ bytes: [UInt8]) {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: Int32 = 0
        _ = bytes.withUnsafeBufferPointer { buffer in
            av_parser_parse2(
                parser, context, &output, &outputSize, buffer.baseAddress, Int32(buffer.count), Int64.min, Int64.min, 0)
        }
    }

    /// AV_PIX_FMT_NONE (-1) until a sequence parameter set has been read.
    var pixelFormat: Int32 { parser.pointee.format }
    var profile: Int32 { context.pointee.profile }
}
