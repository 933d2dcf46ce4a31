public import VidorientCore
import VidorientFFmpeg
import VidorientIO
package import VidorientISOBMFF
import VidorientPhoto

/// What `vidorient inspect` reports of a file, asked in one place: what the file is decides which
/// reader answers. Photos are read by the pure-Swift photo readers and MP4/MOV/3GP/M4A by the box
/// layer's `MovieDescription` (neither loads FFmpeg); everything else, `--deep`, and a movie the
/// box layer cannot describe alone go to FFmpeg. The reading is one value, `InspectedFile`, which
/// `audit`, `thumbnail` and the content judge take as `inspect` does (`PictureSource` opens its
/// pictures): the orientation is decided here once.
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
        try read(path, headersSuffice: false).inspected.report
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
        try read(path, headersSuffice: true).inspected.report
    }

    /// The whole inspection of `path`: `inspect`'s report (`orientationOnly`: `inspectOrientation`'s)
    /// with what the file is and which reader answered. What `Thumbnailer` and `ContentJudge`
    /// take, so that the orientation they apply is the one decided here.
    public func inspection(_ path: String, orientationOnly: Bool = false) throws(InputError) -> InspectedFile {
        try read(path, headersSuffice: orientationOnly).inspected
    }

    /// What the file is, from its first bytes: the one look every command takes before it chooses
    /// what to do with a file (fix's and normalize's refusals included).
    public static func format(of path: String) throws(InputError) -> MediaFormat {
        try PhotoReader.format(of: path)
    }

    /// A photo's statements as its reader finds them (`format`, a photo's, known already): the
    /// evidence `inspect`'s report is decided from, and normalize's plan and read-back.
    static func photoEvidence(_ path: String, format: MediaFormat) throws(InputError) -> PhotoEvidence {
        try PhotoReader.read(path: path, format: format)
    }

    /// `inspect`'s reading of `path` with, where FFmpeg answered, the file it opened kept open:
    /// a thumbnail or the content judge decodes its frames from it (`PictureSource`).
    func open(_ path: String) throws(InputError) -> (inspected: InspectedFile, probed: ProbedFile?) {
        try read(path, headersSuffice: false)
    }

    /// The one place that decides which reader answers a file, and what happens when it cannot:
    /// photo readers, else the box layer, else FFmpeg; `--deep` decodes. Where FFmpeg answered, the
    /// file it opened comes back too (`probed`), for the pictures.
    private func read(_ path: String, headersSuffice: Bool) throws(InputError) -> (
        inspected: InspectedFile, probed: ProbedFile?
    ) {
        let format = try Prober.format(of: path)
        if format.isPhoto {
            if decodesFirstFrame {
                return (try Prober.inspectPhotoDecoding(path, format: format), nil)
            }
            let evidence = try Prober.photoEvidence(path, format: format)
            return (InspectedFile(path: path, format: format, photo: evidence), nil)
        }
        var boxLayerError: ISOBMFFError?
        // A movie's structure, parsed once: the fix plans from it (`InspectedFile.movie`).
        var movie: MovieStructure?
        if format == .movie && !decodesFirstFrame {
            let refusal: ISOBMFFError
            do throws(ISOBMFFError) {
                let source = ReadAheadBytes(try FileBytes(path: path))
                let structure = try MovieStructure(source)
                movie = structure
                switch MovieDescription.read(structure, path: path, source: source) {
                case .described(let probe):
                    return (
                        InspectedFile(path: path, format: format, probe: probe, reader: .boxLayer, movie: movie), nil
                    )
                case .headers(var probe, let why):
                    if headersSuffice && Prober.headersDecide(probe) {
                        if why.kind != .unsupported { probe.video?.boxLayerError = why.reason }
                        return (
                            InspectedFile(path: path, format: format, probe: probe, reader: .boxHeaders, movie: movie),
                            nil
                        )
                    }
                    refusal = why
                }
            } catch {
                refusal = error
            }
            // An unreadable file is FFmpeg's to judge too: it reads some that the box layer refuses.
            fallbackNote?(path, refusal.reason)
            // Unsupported (a fragmented file) is not an error in the file; anything else is said.
            if refusal.kind != .unsupported { boxLayerError = refusal }
        }
        let probed: ProbedFile
        do { probed = try ProbedFile(path: path, format: format, timeout: timeout, decode: decodesFirstFrame) } catch {
            // A movie cut before its `moov`: FFmpeg says only "invalid data"; the boxes say where it ends.
            guard let boxLayerError, boxLayerError.condition == .cutShort else { throw error }
            throw InputError(path: path, reason: "\(error.reason) (\(boxLayerError.reason))", kind: error.kind)
        }
        var probe = probed.probe
        if let boxLayerError, probe.video != nil, probe.video?.boxLayerError == nil {
            probe.video?.boxLayerError = boxLayerError.reason
        }
        return (InspectedFile(path: path, format: format, probe: probe, reader: .ffmpeg, movie: movie), probed)
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
    static func inspectPhotoDecoding(_ path: String, format: MediaFormat) throws(InputError) -> InspectedFile {
        let evidence = try Prober.photoEvidence(path, format: format)
        var inspected = InspectedFile(path: path, format: format, photo: evidence)
        let frames = PhotoFrames(path: path, evidence: evidence, report: inspected.report)
        var report = frames.report
        do {
            let frame = try frames.frame(ThumbnailRequest(width: 64, height: 64))
            // What the decoder said of the data (libjpeg's warnings), where the reader said nothing of the kind.
            for warning in frame.decoderWarnings where !report.findings.contains(where: { $0.code == warning.code }) {
                report.findings.append(warning)
            }
        } catch {
            report.findings.append(.firstFrameUnreadable, .warning, "could not decode the picture (\(error.reason))")
        }
        inspected.report = report
        return inspected
    }

    /// The raw facts as FFmpeg reads them, before `MediaReport` judges them.
    public func probe(_ path: String) throws(InputError) -> MediaProbe {
        try ProbedFile(path: path, format: Prober.format(of: path), timeout: timeout, decode: decodesFirstFrame).probe
    }
}

/// One file as `Prober` read it: what it is, which reader answered, the report decided from what
/// that reader found, and (for a photo) the photo readers' evidence that its pictures are decoded
/// from. `inspect`, `audit`, `thumbnail` and the content judge all take this one value, so the
/// orientation they show and apply is decided once.
public struct InspectedFile: Sendable {
    /// Which reader answered the file.
    public enum Reader: String, Sendable {
        /// The pure-Swift photo readers (`--deep` also decoded the picture).
        case photo
        /// The box layer's `MovieDescription`, the whole report.
        case boxLayer = "box-layer"
        /// The box layer's headers alone: a movie whose codec carries no display-orientation SEI
        /// (`Prober.inspectOrientation`).
        case boxHeaders = "box-headers"
        /// FFmpeg.
        case ffmpeg
    }

    public let path: String
    /// What the file is, from its first bytes (`Prober.format(of:)`).
    public let format: MediaFormat
    public let reader: Reader
    /// The report `inspect` prints: its orientation is the one every command applies.
    public internal(set) var report: MediaReport
    /// A photo's statements as its reader found them; nil for a video.
    public let photo: PhotoEvidence?
    /// A movie's box structure as it was parsed for this reading (nil when it could not be, or
    /// for anything but an MP4/MOV, or with `--deep`): what a fix plans from, so that its `moov`
    /// is parsed once.
    package let movie: MovieStructure?

    init(path: String, format: MediaFormat, photo: PhotoEvidence) {
        self.path = path
        self.format = format
        self.reader = .photo
        self.report = MediaReport(photo: photo)
        self.photo = photo
        self.movie = nil
    }

    init(path: String, format: MediaFormat, probe: MediaProbe, reader: Reader, movie: MovieStructure? = nil) {
        self.path = path
        self.format = format
        self.reader = reader
        self.report = MediaReport(probe: probe)
        self.photo = nil
        self.movie = movie
    }
}

/// Where a file's pictures come from, opened from its inspection: a photo's decoders, or a clip
/// that FFmpeg keeps open. Every picture is shown as the inspection's report decides; FFmpeg's
/// own reading of a clip only finds and decodes its video stream.
enum PictureSource {
    case photo(PhotoFrames)
    case video(OpenVideo)

    /// `path` read as `inspect` reads it; where FFmpeg answered, the file it opened is decoded from.
    init(_ path: String, request: ThumbnailRequest) throws(InputError) {
        let (inspected, probed) = try Prober().open(path)
        try self.init(inspected, probed: probed, request: request)
    }

    init(_ inspected: InspectedFile, probed: ProbedFile? = nil, request: ThumbnailRequest) throws(InputError) {
        if let evidence = inspected.photo {
            self = .photo(PhotoFrames(path: inspected.path, evidence: evidence, report: inspected.report))
            return
        }
        // A movie the box layer answered: FFmpeg opens it now only to decode it (its own reading
        // of the boxes would be a second decision).
        let opened: ProbedFile
        if let probed {
            opened = probed
        } else {
            opened = try ProbedFile(path: inspected.path, format: inspected.format, decode: false, boxEvidence: false)
        }
        self = .video(try OpenVideo(opened, report: inspected.report, request: request))
    }
}
