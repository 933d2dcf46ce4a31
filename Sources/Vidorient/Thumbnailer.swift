import CFFmpeg
public import VidorientCore
import VidorientPhoto
public import VidorientText

/// Upright pictures of videos and photos, with the orientation `inspect` reports: the report is
/// made first, by the same `Prober`, and its decision is what gets applied.
public struct Thumbnailer: Sendable {
    /// What draws captions on contact sheets and comparisons; nil leaves the captions out (the
    /// pictures keep their layout without the text bands).
    public var font: (any TextRenderer)?

    /// A thumbnailer whose captions use `font`: by default the system's sans face
    /// (`FreeTypeFont.system`, DejaVu Sans on Debian), nil when no font is installed.
    public init(font: (any TextRenderer)? = FreeTypeFont.system) {
        self.font = font
    }

    /// One frame, as a viewer shows it.
    public struct Frame: Sendable {
        /// The frame upright: mirrored and turned as `report` decides, scaled to the request.
        public var picture: Picture
        /// The stored pixels at the same scale, before the orientation.
        public var stored: Picture
        /// The frame's time in seconds, as the decoder reports it; nil when it reports none.
        public var time: Double?
        /// The same report `Prober().inspect(path)` gives: the orientation applied is its decision.
        public var report: MediaReport
    }

    /// The frame `request` asks for; a representative one when it names no time (10% in,
    /// skipping black or flat frames). Throws one `InputError` naming the file and the reason
    /// when it cannot be read or has no picture.
    public func frame(_ path: String, request: ThumbnailRequest) throws(InputError) -> Frame {
        let format = try PhotoReader.format(of: path)
        if format.isPhoto { return try PhotoFrames(path: path, format: format).frame(request) }
        let session = try OpenVideo(path: path, request: request)
        let report = session.report
        let still = session.isStill
        let duration =
            report.format.duration
            ?? report.video.flatMap { video in
                report.streams.first { $0.index == video.index }?.duration
            }
        if let at = request.at {
            return try session.grab(at: still ? 0 : at.seconds(in: duration), exact: request.exact)
        }
        if still || duration == nil { return try session.grab(at: 0, exact: false) }
        // A representative frame: 10% in, unless that one is black or flat and a nearby one is not.
        var best: Frame?
        var bestDeviation = -1.0
        for fraction in RepresentativeFrame.candidateFractions {
            let frame = try session.grab(at: duration! * fraction, exact: request.exact)
            if !RepresentativeFrame.isFlat(frame.picture) { return frame }
            let deviation = frame.picture.lumaStatistics.deviation
            if deviation > bestDeviation { (best, bestDeviation) = (frame, deviation) }
        }
        return best!
    }

    /// `columns`×`rows` evenly spaced frames, each upright at `tileWidth`, under a header with
    /// the file name, duration, displayed size and orientation.
    public func contactSheet(_ path: String, columns: Int, rows: Int, tileWidth: Int, exact: Bool = false)
        throws(InputError) -> Picture
    {
        let request = ThumbnailRequest(exact: exact, width: tileWidth, height: tileWidth)
        let format = try PhotoReader.format(of: path)
        if format.isPhoto {
            // A photo has one picture: the sheet shows it once per tile, as contact sheets of stills do.
            let frames = try PhotoFrames(path: path, format: format)
            let tile = try frames.frame(request).picture
            let grid = Picture.grid(Array(repeating: tile, count: max(1, columns * rows)), columns: columns)
            guard let font else { return grid }
            return grid.captioned(Thumbnailer.header(frames.report, path: path), renderer: font)
        }
        let session = try OpenVideo(path: path, request: request)
        let report = session.report
        let count = max(1, columns * rows)
        let duration = report.format.duration ?? 0
        var tiles: [Picture] = []
        for index in 0..<count {
            let time = session.isStill ? 0 : duration * (Double(index) + 0.5) / Double(count)
            var tile = try session.grab(at: time, exact: exact).picture
            if let font {
                // The time in the bottom-left corner, white on a dark box so it reads on any frame.
                let size = tile.width >= 160 ? 13 : 10
                let label = font.mask(Thumbnailer.timestamp(time), pixelSize: size)
                let box = Picture(
                    width: min(tile.width, label.width + 6), height: label.height + 2, fill: RGB(24, 24, 24))
                tile.paste(box, x: 0, y: tile.height - box.height)
                tile.draw(label, x: 3, y: tile.height - box.height + 1)
            }
            tiles.append(tile)
        }
        let grid = Picture.grid(tiles, columns: columns)
        guard let font else { return grid }
        return grid.captioned(Thumbnailer.header(report, path: path), renderer: font)
    }

    /// Stored and displayed side by side, each labelled: the picture an audit wants.
    public func comparison(_ path: String, request: ThumbnailRequest) throws(InputError) -> Picture {
        let frame = try frame(path, request: request)
        let video = frame.report.video
        let stored = ["Stored", "\(frame.stored.width)×\(frame.stored.height)", "as decoded"]
        var shown = ["Displayed", "\(frame.picture.width)×\(frame.picture.height)"]
        if let photo = frame.report.photo {
            shown.append(
                "EXIF \(photo.exifOrientation): " + (photo.mirrored ? "mirror, " : "") + "\(photo.rotation)° cw")
        } else if let rotation = video?.rotation {
            let exif = video?.exifOrientation.map { "EXIF \($0): " } ?? ""
            shown.append(exif + (video?.mirrored == true ? "mirror, " : "") + "\(Thumbnailer.degrees(rotation))° cw")
        } else {
            shown.append("as stored")
        }
        guard let font else { return Picture.sideBySide([frame.stored, frame.picture]) }
        let size = min(frame.stored.width, frame.picture.width) >= 120 ? 14 : 11
        return Picture.sideBySide([
            frame.stored.captioned(stored, pixelSize: size, renderer: font),
            frame.picture.captioned(shown, pixelSize: size, renderer: font),
        ])
    }

    static func header(_ report: MediaReport, path: String) -> [String] {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var second: [String] = []
        if let duration = report.format.duration { second.append(timestamp(duration)) }
        var third: [String] = []
        if let photo = report.photo {
            if let width = photo.displayWidth, let height = photo.displayHeight { second.append("\(width)×\(height)") }
            third.append("EXIF \(photo.exifOrientation):")
            third.append((photo.mirrored ? "mirror, " : "") + "\(photo.rotation)° clockwise")
        }
        if let video = report.video {
            if let width = video.displayWidth, let height = video.displayHeight { second.append("\(width)×\(height)") }
            if let exif = video.exifOrientation { third.append("EXIF \(exif):") }
            if let rotation = video.rotation {
                third.append((video.mirrored == true ? "mirror, " : "") + "\(degrees(rotation))° clockwise")
            }
        }
        return [name, second.joined(separator: " · "), third.joined(separator: " ")]
    }

    static func timestamp(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let millis = Int(((seconds - Double(total)) * 1000).rounded(.down))
        let text = "\(total / 60):" + (total % 60 < 10 ? "0" : "") + "\(total % 60)"
        return text + "." + String(repeating: "0", count: max(0, 3 - String(millis).count)) + "\(millis)"
    }

    static func degrees(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// One open video file and its decoder, able to grab frames at several times (one thumbnail job).
final class OpenVideo {
    let file: MediaFile
    let decoder: VideoDecoder
    let report: MediaReport
    let request: ThumbnailRequest
    let isStill: Bool
    let path: String
    private var scaler: Scaler?
    /// The decoder still holds the stream's first frame, from the probe.
    private var holdsFirstFrame = false

    /// Probes the file (the report decides the orientation) and keeps it open for decoding.
    init(path: String, request: ThumbnailRequest) throws(InputError) {
        let opened = try MediaFile(path: path)
        // The probe `inspect` makes: H.264 and HEVC are read without decoding (their SEI from the
        // NAL units), since the frame a thumbnail wants is rarely the first; other codecs decode
        // their first frame, which is kept for a thumbnail that wants it.
        let probed = try Prober.probe(opened, decode: false)
        report = MediaReport(probe: probed.probe)
        guard let video = report.video else { throw InputError(path: path, reason: "no video stream to render") }
        self.path = path
        self.request = request
        let format = report.format.ffmpegDemuxer ?? report.format.name
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
            Prober.seiCodec(opened.streams[video.index].pointee.codecpar.pointee.codec_id) != nil
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
                    video: request.asStored ? nil : video,
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
    func grab(at seconds: Double, exact: Bool) throws(InputError) -> Thumbnailer.Frame {
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
        let stream = file.streams[Int(decoder.streamIndex)]
        let timeBase = stream.pointee.time_base
        guard avformat_index_get_entries_count(stream) > 0, timeBase.num > 0,
            let first = avformat_index_get_entry(stream, 0)
        else { return false }
        let wanted = VideoDecoder.timestamp(seconds: seconds, timeBase: timeBase)
        guard let entry = avformat_index_get_entry_from_timestamp(stream, wanted, AVSEEK_FLAG_BACKWARD) else {
            return true
        }
        return entry.pointee.timestamp == first.pointee.timestamp
    }

    private func render() throws(InputError) -> Thumbnailer.Frame {
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
        return Thumbnailer.Frame(
            picture: geometry.orient(stored), stored: stored, time: decoder.frameTime, report: report)
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
