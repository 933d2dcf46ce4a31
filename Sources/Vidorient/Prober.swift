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
        let format = try PhotoReader.format(of: path)
        if format.isPhoto && !decodesFirstFrame {
            return MediaReport(photo: try PhotoReader.read(path: path, format: format))
        }
        if format.isPhoto { return try Prober.inspectPhotoDecoding(path, format: format) }
        var boxLayerError: String?
        if format == .movie && !decodesFirstFrame {
            do throws(ISOBMFFError) {
                return MediaReport(probe: try MovieDescription.probe(path: path))
            } catch {
                // An unreadable file is FFmpeg's to judge too: it reads some that the box layer refuses.
                fallbackNote?(path, error.reason)
                // Unsupported (a fragmented file) is not an error in the file; anything else is said.
                if error.kind != .unsupported { boxLayerError = error.reason }
            }
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

    /// `inspect`'s orientation decision, without FFmpeg where FFmpeg could add nothing to it: as
    /// `inspect`, except that a movie the box layer does not describe alone because its video is
    /// not a codec it knows (uncompressed `2vuy`, DV, …) is read from its box headers
    /// (`MovieStructure.mediaProbe`, the audit's fast path). Only H.264 and HEVC carry a
    /// display-orientation SEI, which only a reading of the bitstream sees; for any other codec
    /// the matrices decide, and FFmpeg reads the same boxes. What `fix` plans and verifies
    /// against (`FixIntent`): loading FFmpeg's ~140 libraries cost more than the fix itself.
    public func inspectOrientation(_ path: String) throws(InputError) -> MediaReport {
        if !decodesFirstFrame, try PhotoReader.format(of: path) == .movie, let probe = Prober.boxesDecide(path) {
            return MediaReport(probe: probe)
        }
        return try inspect(path)
    }

    /// The box layer's view of a movie when it decides the orientation alone: its description
    /// (what `inspect` says), or, when it does not describe the file only as unsupported and the
    /// video track is not H.264 or HEVC (nor an encrypted entry that could hide one), the box
    /// headers. Nil otherwise: `inspect` then reads it (FFmpeg).
    static func boxesDecide(_ path: String) -> MediaProbe? {
        switch MovieDescription.read(path: path) {
        case nil: return nil
        // Described: the same description `inspect` answers with.
        case .described(let probe): return probe
        case .headers(let probe, let refusal, let fragmented):
            guard refusal.kind == .unsupported, !fragmented else { return nil }
            guard let video = probe.video, video.streamIndex < probe.streams.count else { return nil }
            let stream = probe.streams[video.streamIndex]
            // `encv`: an encrypted track, whose sample entry hides the codec.
            guard !["h264", "hevc"].contains(stream.codec ?? ""), stream.codecTag != "encv" else { return nil }
            return probe
        }
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
