public import VidorientCore
import VidorientFFmpeg
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto

/// What `vidorient inspect` reports of a file, asked in one place: what the file is decides which
/// reader answers. Photos are read by the pure-Swift photo readers and MP4/MOV/3GP/M4A by the box
/// layer's `MovieDescription` (neither loads FFmpeg); everything else, `--deep`, and a movie the
/// box layer cannot describe alone go to FFmpeg.
public struct Prober: Sendable {
    /// Seconds after which reading a file gives up; nil waits as long as it takes.
    public var timeout: Double?
    /// Decode the first video frame even where reading its NAL units is enough (H.264, HEVC):
    /// slower, but it also proves the frame decodes.
    public var decodesFirstFrame: Bool
    /// Told why, when an MP4/MOV that the box layer could not describe alone goes to FFmpeg
    /// (`inspect --verbose` prints it); nil says nothing.
    public var fallbackNote: (@Sendable (_ path: String, _ reason: String) -> Void)?

    /// A prober with no time limit that reads H.264/HEVC orientation from the bitstream, as
    /// `vidorient inspect` does; `inspect --deep` is `decodesFirstFrame: true`.
    public init(timeout: Double? = nil, decodesFirstFrame: Bool = false) {
        self.timeout = timeout
        self.decodesFirstFrame = decodesFirstFrame
    }

    /// The report `vidorient inspect` prints. What the file is decides the path: photos are read
    /// by the pure-Swift photo readers and MP4/MOV/3GP/M4A by the box layer's `MovieDescription`
    /// (neither loads FFmpeg); everything else, `--deep`, and a movie the box layer cannot
    /// describe alone (`fallbackNote` says why) by FFmpeg.
    public func inspect(_ path: String) throws(InputError) -> MediaReport {
        try read(path, headersSuffice: false)
    }

    /// `inspect`'s orientation decision, without FFmpeg where FFmpeg could add nothing to it: as
    /// `inspect`, except that a movie the box layer does not describe alone (a sample table it
    /// refuses, a fragmented file) is answered from its box headers (`MovieStructure.mediaProbe`)
    /// when its video is not a codec that carries a display-orientation SEI: only H.264 and HEVC
    /// do, which only a reading of the bitstream sees; for any other codec the matrices decide,
    /// and FFmpeg reads the same boxes. The box layer's reason for not describing it stays in the
    /// report (`box-layer-unreadable`). What `audit` reports and `fix` plans and verifies against:
    /// loading FFmpeg's ~140 libraries cost more than either.
    public func inspectOrientation(_ path: String) throws(InputError) -> MediaReport {
        try read(path, headersSuffice: true)
    }

    /// The one place that decides which reader answers a file, and what happens when it cannot:
    /// photo readers, else the box layer, else FFmpeg; `--deep` decodes.
    private func read(_ path: String, headersSuffice: Bool) throws(InputError) -> MediaReport {
        let format = try PhotoReader.format(of: path)
        if format.isPhoto {
            if decodesFirstFrame { return try Prober.inspectPhotoDecoding(path, format: format) }
            return MediaReport(photo: try PhotoReader.read(path: path, format: format))
        }
        var boxLayerError: String?
        if format == .movie && !decodesFirstFrame {
            let refusal: ISOBMFFError
            do throws(ISOBMFFError) {
                switch try MovieDescription.read(path: path) {
                case .described(let probe): return MediaReport(probe: probe)
                case .headers(var probe, let why):
                    if headersSuffice && Prober.headersDecide(probe) {
                        if why.kind != .unsupported { probe.video?.boxLayerError = why.reason }
                        return MediaReport(probe: probe)
                    }
                    refusal = why
                }
            } catch {
                refusal = error
            }
            // An unreadable file is FFmpeg's to judge too: it reads some that the box layer refuses.
            fallbackNote?(path, refusal.reason)
            // Unsupported (a fragmented file) is not an error in the file; anything else is said.
            if refusal.kind != .unsupported { boxLayerError = refusal.reason }
        }
        var probe: MediaProbe
        do { probe = try self.probe(path) } catch {
            // A movie cut before its `moov`: FFmpeg says only "invalid data"; the boxes say where it ends.
            guard let boxLayerError, boxLayerError.contains("cut short") else { throw error }
            throw InputError(path: path, reason: "\(error.reason) (\(boxLayerError))", kind: error.kind)
        }
        if let boxLayerError, probe.video != nil, probe.video?.boxLayerError == nil {
            probe.video?.boxLayerError = boxLayerError
        }
        return MediaReport(probe: probe)
    }

    /// Whether a movie's box headers decide its orientation alone: a video track whose codec
    /// carries no display-orientation SEI (not H.264 or HEVC, nor an encrypted entry that could
    /// hide one).
    static func headersDecide(_ probe: MediaProbe) -> Bool {
        guard let video = probe.video, video.streamIndex < probe.streams.count else { return false }
        let stream = probe.streams[video.streamIndex]
        // `encv`: an encrypted track, whose sample entry hides the codec.
        return !["h264", "hevc"].contains(stream.codec ?? "") && stream.codecTag != "encv"
    }

    /// `--deep` on a photo: the report from its headers, and proof that its pixels decode.
    static func inspectPhotoDecoding(_ path: String, format: MediaFormat) throws(InputError) -> MediaReport {
        let frames = try PhotoFrames(path: path, format: format)
        var report = frames.report
        do {
            let frame = try frames.frame(ThumbnailRequest(width: 64, height: 64))
            // What the decoder said of the data (libjpeg's warnings), where the reader said nothing of the kind.
            for warning in frame.decoderWarnings where !report.findings.contains(where: { $0.code == warning.code }) {
                report.findings.append(warning)
            }
        } catch {
            report.findings.append(
                Finding(
                    code: "first-frame-unreadable", severity: .warning,
                    message: "could not decode the picture (\(error.reason))"))
        }
        return report
    }

    /// The raw facts as FFmpeg reads them, before `MediaReport` judges them.
    public func probe(_ path: String) throws(InputError) -> MediaProbe {
        try FFmpegProbe.probe(path: path, timeout: timeout, decode: decodesFirstFrame)
    }
}
