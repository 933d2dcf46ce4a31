import CFFmpeg
package import VidorientCore

/// One frame of a video, decoded and oriented as its report decides.
package struct VideoFrame {
    /// Upright: mirrored and turned as the report decides, scaled to the request.
    package var picture: Picture
    /// The stored pixels at the same scale, before the orientation.
    package var stored: Picture
    /// The frame's time in seconds, as the decoder reports it; nil when it reports none.
    package var time: Double?
    /// What FFmpeg's decoder met on the way to this frame (a packet it could not decode, a
    /// frame it concealed errors in); nil when nothing.
    package var warning: String?
}

/// One open video file and its decoder, able to grab frames at several times (one thumbnail job).
/// The orientation applied is the report's it is given (`Prober`'s, the one decision); FFmpeg's
/// own reading of the file serves only to find and decode its video stream.
package final class OpenVideo {
    let file: MediaFile
    let decoder: VideoDecoder
    /// The file's report as `Prober` decided it: its video's orientation, size and sample aspect
    /// ratio are what every frame is shown with.
    package let report: MediaReport
    let request: ThumbnailRequest
    package let isStill: Bool
    /// How long the clip is, as the demuxer that seeks in it says: the container's duration,
    /// else its video stream's; nil when neither is known.
    package let duration: Double?
    let path: String
    private var scaler: Scaler?
    /// The decoder still holds the stream's first frame, from the probe.
    private var holdsFirstFrame = false

    /// Keeps `probed` open for decoding, its frames shown as `report` (the file's, as `Prober`
    /// decided it) says.
    package init(_ probed: ProbedFile, report: MediaReport, request: ThumbnailRequest) throws(InputError) {
        let opened = probed.file
        let path = opened.path
        // FFmpeg's view of the streams: which one to decode, and how it seeks.
        let streams = MediaReport(probe: probed.probe)
        guard report.video != nil, let video = streams.video else {
            throw InputError(path: path, reason: "no video stream to render")
        }
        self.path = path
        self.report = report
        self.request = request
        duration =
            streams.format.duration ?? streams.streams.first { $0.index == video.index }?.duration
        let format = streams.format.ffmpegDemuxer ?? streams.format.name
        isStill =
            ["mjpeg", "png", "webp", "tiff", "bmp"].contains(video.codec ?? "")
            && (format.contains("pipe") || format.hasPrefix("image2"))
        if let decoder = probed.decoder {
            // The probe's file and decoder, holding the first frame.
            file = opened
            self.decoder = decoder
            holdsFirstFrame = true
            return
        }
        if !isStill, video.index < opened.streams.count,
            FFmpegProbe.seiCodec(opened.streams[video.index].pointee.codecpar.pointee.codec_id) != nil
        {
            // Probed without decoding: the same file, a full-size decoder; every grab seeks.
            file = opened
            do {
                decoder = try VideoDecoder(stream: opened.streams[video.index])
            } catch {
                throw InputError(path: path, reason: "could not open the decoder: \(error)")
            }
            return
        }
        // Photos were probed at reduced resolution: open again at full size.
        file = try MediaFile(path: path)
        if file.needsStreamInfo {
            do { try file.findStreamInfo() } catch {
                throw InputError(path: path, reason: "could not read the streams: \(error)")
            }
        }
        guard video.index < file.streams.count else {
            throw InputError(path: path, reason: "the video stream vanished")
        }
        let stream = file.streams[video.index]
        for other in file.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        // A photo much larger than the picture wanted decodes at a fraction of its size (JPEG
        // offers 1/2, 1/4, 1/8), never below what the picture needs.
        var lowres = 0
        if let width = video.codedWidth, let height = video.codedHeight, !request.asStored || request.width != nil {
            let geometry: ThumbnailGeometry
            do {
                geometry = try ThumbnailGeometry(
                    storedWidth: width, storedHeight: height, sampleAspectRatio: 1,
                    video: request.asStored ? nil : report.video,
                    request: request)
            } catch {
                throw InputError(path: path, reason: error.description)
            }
            while lowres < 3, width >> (lowres + 1) >= geometry.scaledWidth,
                height >> (lowres + 1) >= geometry.scaledHeight
            {
                lowres += 1
            }
        }
        do {
            decoder = try VideoDecoder(stream: stream, lowres: lowres)
        } catch {
            throw InputError(path: path, reason: "could not open the decoder: \(error)")
        }
    }

    /// The frame at `seconds`: the keyframe at or before it, or with `exact`, the first frame
    /// whose time is at or after it (the last frame when the time is past the end).
    ///
    /// Only what that frame needs is decoded. The keyframe alone: the decoder is drained right
    /// after its packet instead of decoding the frames B-frame reordering would make it wait
    /// for. With `exact`, the H.264 frames before the time that no other frame refers to are
    /// not decoded at all (`AVDISCARD_NONREF`); every reference frame is decoded in full, loop
    /// filter included, so the frame shown has exactly the pixels a full decode gives.
    package func grab(at seconds: Double, exact: Bool) throws(InputError) -> VideoFrame {
        // The keyframe at or before the time is the first frame, already decoded: use it.
        if holdsFirstFrame, !exact || seconds <= (decoder.frameTime ?? 0), keyframeIsFirst(atOrBefore: seconds) {
            holdsFirstFrame = false
            return try render()
        }
        holdsFirstFrame = false
        var sought = false
        do {
            if !isStill || seconds > 0 {
                try decoder.seek(in: file, to: seconds)
                sought = true
            }
        } catch {
            // Some inputs cannot seek (a lone JPEG); read from where the file is.
        }
        var found = false
        do {
            if !exact {
                found = try decoder.decodeKeyframe(from: file)
                // A keyframe packet that gave no picture alone (a lone field): decode on from it.
                if !found, sought {
                    try decoder.seek(in: file, to: seconds)
                    found = try decodeForward(to: seconds, exact: false, skipping: false).found
                }
            } else {
                let skipping = decoder.skipsNonReferenceFrames
                var reached: Bool
                (found, reached) = try decodeForward(to: seconds, exact: true, skipping: skipping)
                // Past the end, the last frame decoded is the answer, and it may be one skipped.
                if skipping, !reached, sought {
                    try decoder.seek(in: file, to: seconds)
                    (found, reached) = try decodeForward(to: seconds, exact: true, skipping: false)
                }
            }
        } catch {
            throw InputError(path: path, reason: "could not decode a frame: \(error)")
        }
        // At the end of the stream, an exact request keeps the last frame decoded.
        guard found || decoder.holdsFrame else {
            throw InputError(path: path, reason: "no frame could be decoded")
        }
        return try render()
    }

    /// Decodes from where the file is: the first frame out, or with `exact`, on until a frame's
    /// time is at or after `seconds`. `found`: a frame came out; `reached`: one at or after the
    /// time, or with no time (the stream did not end first).
    private func decodeForward(to seconds: Double, exact: Bool, skipping: Bool) throws(FFmpegError)
        -> (found: Bool, reached: Bool)
    {
        var found = false
        while try decoder.decodeNextFrame(from: file, skippingBefore: skipping ? seconds : nil) {
            found = true
            guard exact, let time = decoder.frameTime, time + 1e-6 < seconds else { return (true, true) }
        }
        return (found, false)
    }

    private func keyframeIsFirst(atOrBefore seconds: Double) -> Bool {
        guard let keyframe = keyframe(atOrBefore: seconds) else { return false }
        return keyframe == avformat_index_get_entry(file.streams[Int(decoder.streamIndex)], 0)?.pointee.timestamp
    }

    /// The keyframe a grab at `seconds` without `exact` decodes, as its timestamp in the stream's
    /// index: the entry at or before the time, the first when the time is before every entry;
    /// nil when the stream has no index.
    package func keyframe(atOrBefore seconds: Double) -> Int64? {
        let stream = file.streams[Int(decoder.streamIndex)]
        let timeBase = stream.pointee.time_base
        guard avformat_index_get_entries_count(stream) > 0, timeBase.num > 0,
            let first = avformat_index_get_entry(stream, 0)
        else { return nil }
        let wanted = VideoDecoder.timestamp(seconds: seconds, timeBase: timeBase)
        let entry = avformat_index_get_entry_from_timestamp(stream, wanted, AVSEEK_FLAG_BACKWARD) ?? first
        return entry.pointee.timestamp
    }

    private func render() throws(InputError) -> VideoFrame {
        let frame = decoder.frame
        let sar = frame.pointee.sample_aspect_ratio
        let reportedSAR = report.video?.sampleAspectRatio.flatMap(OpenVideo.ratio)
        let aspect = reportedSAR ?? (sar.num > 0 && sar.den > 0 ? Double(sar.num) / Double(sar.den) : 1)
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let geometry: ThumbnailGeometry
        do {
            geometry = try ThumbnailGeometry(
                storedWidth: width, storedHeight: height, sampleAspectRatio: request.asStored ? 1 : aspect,
                video: report.video, request: request)
        } catch {
            throw InputError(path: path, reason: error.description)
        }
        if scaler == nil || scaler!.matches(frame, width: geometry.scaledWidth, height: geometry.scaledHeight) == false
        {
            do {
                scaler = try Scaler(frame: frame, width: geometry.scaledWidth, height: geometry.scaledHeight)
            } catch {
                throw InputError(path: path, reason: "could not convert the picture: \(error)")
            }
        }
        let stored = scaler!.picture(from: frame)
        return VideoFrame(
            picture: geometry.orient(stored), stored: stored, time: decoder.frameTime, warning: decoder.damage)
    }

    static func ratio(_ text: String) -> Double? {
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return parts[0] / parts[1]
    }
}

/// Converts decoded frames of one size and format to RGB24 pictures of another size: owns one
/// `SwsContext`.
final class Scaler {
    let context: OpaquePointer
    let sourceWidth: Int32, sourceHeight: Int32, sourceFormat: Int32
    let width: Int, height: Int

    init(frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) throws(FFmpegError) {
        let f = frame.pointee
        // Area averaging for real reductions; bicubic otherwise. Full chroma interpolation and
        // accurate rounding keep small pictures crisp; bit-exact keeps output the same everywhere.
        let reduction = Double(f.width) / Double(max(1, width))
        let flags = (reduction > 2 ? SWS_AREA : SWS_BICUBIC) | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT
        guard
            let context = sws_getContext(
                f.width, f.height, AVPixelFormat(f.format), Int32(width), Int32(height), AV_PIX_FMT_RGB24, flags, nil,
                nil, nil)
        else { throw FFmpegError.invalidArgument }
        self.context = context
        (sourceWidth, sourceHeight, sourceFormat) = (f.width, f.height, f.format)
        (self.width, self.height) = (width, height)
        // YUV to RGB with the frame's own matrix and range, not swscale's BT.601 default.
        let colorspace: Int32 =
            switch f.colorspace {
            case AVCOL_SPC_BT709: SWS_CS_ITU709
            case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
            case AVCOL_SPC_SMPTE240M: SWS_CS_SMPTE240M
            default: SWS_CS_DEFAULT
            }
        let fullRange: Int32 = f.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let table = sws_getCoefficients(colorspace)
        _ = sws_setColorspaceDetails(
            context, table, fullRange, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
    }

    deinit { sws_freeContext(context) }

    func matches(_ frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int) -> Bool {
        frame.pointee.width == sourceWidth && frame.pointee.height == sourceHeight
            && frame.pointee.format == sourceFormat
            && width == self.width && height == self.height
    }

    func picture(from frame: UnsafeMutablePointer<AVFrame>) -> Picture {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { buffer in
            var planes: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(width * 3), 0, 0, 0]
            withUnsafePointer(to: frame.pointee.data) { dataTuple in
                dataTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourcePlanes in
                    withUnsafePointer(to: frame.pointee.linesize) { linesizeTuple in
                        linesizeTuple.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                            _ = sws_scale(
                                context, sourcePlanes, sourceStrides, 0, frame.pointee.height, &planes, &strides)
                        }
                    }
                }
            }
        }
        return Picture(width: width, height: height, pixels: pixels)
    }
}
