/// What a probe read from a file, before any judgement: the facts `MediaReport(probe:)` decides on.
public struct MediaProbe: Sendable, Hashable {
    public var path: String
    public var format: FormatReport
    public var streams: [StreamReport]
    /// The primary video stream's orientation evidence; nil when there is no video stream.
    public var video: VideoEvidence?
    /// Where the file ends before its data does (an MP4's media data cut short), for the
    /// `file-truncated` finding; nil for a whole file.
    public var truncation: String?

    public init(path: String, format: FormatReport, streams: [StreamReport], video: VideoEvidence?) {
        self.path = path
        self.format = format
        self.streams = streams
        self.video = video
    }

    /// The stream a viewer shows: a video stream that is not cover art, preferring the default
    /// one, then the most pixels, then the lowest index. Not "stream 0": iPhones put audio first.
    public static func primaryVideoIndex(in streams: [StreamReport]) -> Int? {
        streams
            .filter { $0.type == "video" && !$0.isAttachedPicture }
            .min { lhs, rhs in
                if lhs.isDefault != rhs.isDefault { return lhs.isDefault }
                let lhsPixels = (lhs.codedWidth ?? 0) * (lhs.codedHeight ?? 0)
                let rhsPixels = (rhs.codedWidth ?? 0) * (rhs.codedHeight ?? 0)
                if lhsPixels != rhsPixels { return lhsPixels > rhsPixels }
                return lhs.index < rhs.index
            }?.index
    }
}

/// The primary video stream's orientation, as each source states it.
public struct VideoEvidence: Sendable, Hashable {
    public var streamIndex: Int
    /// The container's display matrix; nil when it has none (FFmpeg omits an identity matrix).
    public var containerMatrix: DisplayMatrix?
    /// The first decoded frame's display matrix: an H.264/HEVC SEI, or EXIF in a photo.
    public var frameMatrix: DisplayMatrix?
    /// The first frame's EXIF `Orientation` tag as FFmpeg hands it over (it pads with spaces).
    public var exifOrientationTag: String?
    /// A still-image codec (JPEG, PNG, …): its frame orientation comes from EXIF, not SEI.
    public var isStillImage: Bool
    /// Why the first frame could not be decoded, when it could not.
    public var firstFrameError: String?
    /// The MP4/QuickTime track's ID (FFmpeg's stream id for these containers).
    public var trackID: Int?
    /// The track's own `tkhd` matrix and the movie's `mvhd` matrix, which FFmpeg only shows
    /// multiplied together (nil when the box layer did not read the file).
    public var trackMatrix: DisplayMatrix?
    public var movieMatrix: DisplayMatrix?
    /// The track's own metadata (`trak/meta` keys), which libavformat 5.1 never reads.
    public var trackTags: [String: String]
    /// The keys that timed-metadata (`mebx`) tracks of the file declare.
    public var timedMetadataKeys: [String]
    /// Apple's `com.apple.quicktime.video-orientation` values over time, when a track holds them.
    public var timedOrientation: [TimedOrientation] = []
    /// Why the box layer could not read a file whose signature says MP4/QuickTime, when it could
    /// not: the report then holds FFmpeg's view alone (no separate track and movie matrices, no
    /// track metadata), and says so in a `box-layer-unreadable` finding.
    public var boxLayerError: String?

    public init(
        streamIndex: Int, containerMatrix: DisplayMatrix? = nil, frameMatrix: DisplayMatrix? = nil,
        exifOrientationTag: String? = nil, isStillImage: Bool = false, firstFrameError: String? = nil,
        trackID: Int? = nil, trackMatrix: DisplayMatrix? = nil, movieMatrix: DisplayMatrix? = nil,
        trackTags: [String: String] = [:], timedMetadataKeys: [String] = []
    ) {
        self.streamIndex = streamIndex
        self.containerMatrix = containerMatrix
        self.frameMatrix = frameMatrix
        self.exifOrientationTag = exifOrientationTag
        self.isStillImage = isStillImage
        self.firstFrameError = firstFrameError
        self.trackID = trackID
        self.trackMatrix = trackMatrix
        self.movieMatrix = movieMatrix
        self.trackTags = trackTags
        self.timedMetadataKeys = timedMetadataKeys
    }
}

/// One value of Apple's `com.apple.quicktime.video-orientation` timed metadata: the EXIF-style
/// orientation (`CGImagePropertyOrientation`) the device reported from `time` on.
public struct TimedOrientation: Sendable, Hashable, Codable {
    public var time: Double
    public var value: Int

    public init(time: Double, value: Int) {
        self.time = time
        self.value = value
    }
}

extension MediaReport {
    /// Decides the orientation from the evidence, and says what is worth saying about it.
    public init(probe: MediaProbe) {
        var findings: [Finding] = []
        if let truncation = probe.truncation {
            findings.append(
                .fileTruncated, .error,
                "the file is truncated: \(truncation): the media data is cut short (players and ffmpeg stop where it ends)"
            )
        }
        guard let evidence = probe.video,
            let stream = probe.streams.first(where: { $0.index == evidence.streamIndex })
        else {
            findings.append(.noVideo, .info, "no video stream: there is no picture to orient")
            self.init(path: probe.path, format: probe.format, streams: probe.streams, video: nil, findings: findings)
            return
        }
        let video = VideoReport(stream: stream, evidence: evidence, format: probe.format, findings: &findings)
        self.init(path: probe.path, format: probe.format, streams: probe.streams, video: video, findings: findings)
        suggestActions()
    }
}

extension VideoReport {
    init(stream: StreamReport, evidence: VideoEvidence, format: FormatReport, findings: inout [Finding]) {
        index = stream.index
        codec = stream.codec
        codedWidth = stream.codedWidth
        codedHeight = stream.codedHeight
        // Square when the file does not say, as players (and ffprobe, after decoding) assume:
        // the header-only and decoding paths then report the same value.
        sampleAspectRatio = stream.sampleAspectRatio ?? "1:1"
        ffprobeRotation = evidence.containerMatrix?.ffprobeRotation

        let frameMatrix = VideoReport.frameMatrix(evidence, findings: &findings)
        sources = VideoReport.rankedSources(evidence, frameMatrix: frameMatrix)
        orientationSource = sources.first?.source ?? .none
        let matrix = (orientationSource == .container ? evidence.containerMatrix : frameMatrix) ?? .identity
        self.matrix = matrix.entries.map(VideoReport.tidy)

        let analysis = matrix.analysis
        matrixValidity = analysis.validity
        matrixScale = analysis.scale?.map(VideoReport.tidy)
        matrixShear = analysis.shear.map(VideoReport.tidy)
        matrixTranslation = analysis.translation.map(VideoReport.tidy)
        rotation = analysis.rotation.map(VideoReport.tidyDegrees)
        mirrored = analysis.mirrored
        exifOrientation = analysis.orientation?.exif

        let shown = VideoReport.displaySize(
            width: codedWidth, height: codedHeight, sampleAspectRatio: sampleAspectRatio, analysis: analysis)
        displayWidth = shown?.width
        displayHeight = shown?.height
        layout = shown.map { Layout(width: $0.width, height: $0.height) }

        trackMatrix = evidence.trackMatrix?.entries.map(VideoReport.tidy)
        movieMatrix = evidence.movieMatrix?.entries.map(VideoReport.tidy)
        trackMetadata = evidence.trackTags
        timedMetadataKeys = evidence.timedMetadataKeys
        timedVideoOrientation = evidence.timedOrientation
        findings += VideoReport.timedOrientationFindings(evidence.timedOrientation, shown: exifOrientation)
        (camera, cameraEvidence) = VideoReport.camera(
            stream: stream, trackTags: evidence.trackTags, format: format, analysis: analysis,
            source: orientationSource, findings: &findings)
        findings += VideoReport.movieMatrixFindings(evidence.movieMatrix)
        findings += VideoReport.matrixFindings(analysis, source: orientationSource)
        findings += VideoReport.sourceFindings(sources, evidence: evidence, stream: stream)
        findings += VideoReport.sampleAspectRatioFindings(sampleAspectRatio, analysis: analysis)
    }

    /// The first frame's say: its display matrix (SEI), else its EXIF Orientation tag as a matrix.
    /// A tag that is not 1-8 is a finding.
    static func frameMatrix(_ evidence: VideoEvidence, findings: inout [Finding]) -> DisplayMatrix? {
        var exifTag: Orientation?
        if let raw = evidence.exifOrientationTag?.trimmingSpaces, !raw.isEmpty {
            exifTag = Int(raw).flatMap(Orientation.init(exif:))
            if exifTag == nil {
                findings.append(
                    .exifInvalid, .warning, "EXIF Orientation is '\(raw)', not 1-8: viewers disagree on such files")
            }
        }
        return evidence.frameMatrix ?? exifTag.map { DisplayMatrix($0, width: 0, height: 0) }
    }

    /// Each source's say, the deciding one first. The container decides when it carries a rotation:
    /// it is what AVFoundation, browsers and FFmpeg's own autorotation obey.
    static func rankedSources(_ evidence: VideoEvidence, frameMatrix: DisplayMatrix?) -> [OrientationEvidence] {
        let frameSource: OrientationSource = evidence.isStillImage ? .exif : .sei
        var sources: [OrientationEvidence] = []
        if let container = evidence.containerMatrix { sources.append(.init(source: .container, matrix: container)) }
        if let frame = frameMatrix { sources.append(.init(source: frameSource, matrix: frame)) }
        let containerRotates = evidence.containerMatrix.map { !$0.isIdentity } ?? false
        if !containerRotates, sources.count == 2 { sources.reverse() }
        return sources
    }

    /// The displayed size: the sample aspect ratio stretches the stored width, then the rotation
    /// turns it. Nil when the stored size is not known.
    static func displaySize(width: Int?, height: Int?, sampleAspectRatio: String?, analysis: MatrixAnalysis)
        -> (width: Int, height: Int)?
    {
        guard let width, let height, width > 0, height > 0 else { return nil }
        let stretched = applySampleAspectRatio(sampleAspectRatio, width: width, height: height)
        return rotatedBounds(width: stretched.width, height: stretched.height, analysis: analysis)
    }

    /// Apple's timed `video-orientation` values, when they disagree with the orientation shown.
    static func timedOrientationFindings(_ timed: [TimedOrientation], shown: Int?) -> [Finding] {
        let stated = Set(timed.map(\.value))
        guard let shown, !stated.isEmpty, stated != [shown] else { return [] }
        return [
            Finding(
                .timedOrientationDiffers, severity: .info,
                message:
                    "the timed metadata's com.apple.quicktime.video-orientation says \(stated.sorted().map(String.init).joined(separator: ", ")) but the picture is shown as orientation \(shown)"
            )
        ]
    }

    /// A movie header matrix that is not the identity, which players that read only the track's miss.
    static func movieMatrixFindings(_ movie: DisplayMatrix?) -> [Finding] {
        guard let movie, !movie.isIdentity else { return [] }
        return [
            Finding(
                .movieMatrix, severity: .warning,
                message:
                    "the movie header (mvhd) carries a matrix of its own (\(describe(OrientationEvidence(source: .container, matrix: movie)))); FFmpeg multiplies it in, but players that read only the track's disagree"
            )
        ]
    }

    /// Non-square pixels under a quarter turn, which some tools stretch the wrong way.
    static func sampleAspectRatioFindings(_ ratio: String?, analysis: MatrixAnalysis) -> [Finding] {
        guard let ratio, ratio != "1:1", analysis.orientation?.swapsDimensions == true else { return [] }
        return [
            Finding(
                .sarRotated, severity: .info,
                message:
                    "non-square pixels (\(ratio)) under a quarter turn: tools that apply the aspect ratio after swapping width and height (vcsi) draw it distorted"
            )
        ]
    }

    static func applySampleAspectRatio(_ ratio: String?, width: Int, height: Int) -> (width: Int, height: Int) {
        guard let ratio, let colon = ratio.firstIndex(of: ":"),
            let num = Int(ratio[..<colon]), let den = Int(ratio[ratio.index(after: colon)...]),
            num > 0, den > 0, num != den
        else { return (width, height) }
        return (Int((Double(width) * Double(num) / Double(den)).rounded()), height)
    }

    /// The bounding box of the picture after the matrix's rotation (scale is left out: a
    /// scaled matrix is a finding, not a new size).
    static func rotatedBounds(width: Int, height: Int, analysis: MatrixAnalysis) -> (width: Int, height: Int) {
        if let orientation = analysis.orientation { return orientation.displaySize(width: width, height: height) }
        guard let degrees = analysis.rotation else { return (width, height) }
        let radians = degrees * Double.pi / 180
        let w = Double(width), h = Double(height)
        let shownWidth = abs(w * cos(radians)) + abs(h * sin(radians))
        let shownHeight = abs(w * sin(radians)) + abs(h * cos(radians))
        return (Int(shownWidth.rounded()), Int(shownHeight.rounded()))
    }

    /// Camera metadata outranks the mirror heuristic (AVAsset `preferredTransform`: a mirrored
    /// transform means the front camera). Either way the evidence is named.
    static func camera(
        stream: StreamReport, trackTags: [String: String], format: FormatReport, analysis: MatrixAnalysis,
        source: OrientationSource, findings: inout [Finding]
    ) -> (CameraPosition?, String?) {
        var heuristic: (CameraPosition, String)?
        if let mirrored = analysis.mirrored {
            let what =
                switch source {
                case .exif: "EXIF orientation"
                case .none: "no source carries a matrix, so the identity"
                case .container, .sei: "display matrix"
                }
            heuristic =
                mirrored
                ? (.front, "\(what) is mirrored (determinant < 0): preferredTransform heuristic")
                : (.back, "\(what) is not mirrored: preferredTransform heuristic")
        }
        guard let stated = statedCamera(stream: stream, trackTags: trackTags, format: format) else {
            return heuristic.map { ($0.0, $0.1) } ?? (nil, nil)
        }
        if let heuristic, heuristic.0 != stated.0 {
            findings.append(
                .cameraConflict, .info,
                "metadata says the \(stated.0.rawValue) camera but the matrix heuristic says \(heuristic.0.rawValue); metadata decides"
            )
        }
        return (stated.0, stated.1)
    }

    /// A camera named by the file's own tags, with the tag that names it.
    static func statedCamera(stream: StreamReport, trackTags: [String: String], format: FormatReport)
        -> (CameraPosition, String)?
    {
        let keys = [
            "com.apple.quicktime.camera.identifier", "CameraIdentifier", "com.apple.quicktime.camera.lens_model",
            "camera",
        ]
        for (scope, tags) in [("track metadata", trackTags), ("stream tag", stream.tags), ("format tag", format.tags)] {
            for key in keys {
                guard let value = tags[key] else { continue }
                let words = value.lowercased().split(whereSeparator: { !$0.isLetter })
                let position: CameraPosition? =
                    words.contains("front") ? .front : (words.contains("back") || words.contains("rear") ? .back : nil)
                if let position { return (position, "\(scope) \(key) = \(value)") }
            }
        }
        return nil
    }

    static func matrixFindings(_ analysis: MatrixAnalysis, source: OrientationSource) -> [Finding] {
        var findings: [Finding] = []
        let name = source == .exif ? "EXIF orientation" : "\(source.rawValue) display matrix"
        switch analysis.validity {
        case .nonFinite:
            findings.append(.matrixInvalid, .error, "the \(name) has a non-finite entry")
        case .singular:
            findings.append(
                .matrixInvalid, .error,
                "the \(name) is singular: it collapses the picture; players show nothing or ignore it")
        case .valid:
            break
        }
        if analysis.isProjective {
            findings.append(
                .matrixProjective, .warning,
                "the \(name) has a perspective term (u, v not 0 or w not 1), which QuickTime forbids")
        }
        if analysis.mirrored == true {
            let blind =
                source == .exif
                ? "viewers that ignore EXIF, and tools that report only a rotation, miss it"
                : "ffprobe, exiftool and mediainfo report only a rotation and miss it"
            findings.append(.mirrored, .warning, "the \(name) mirrors the picture; \(blind)")
        }
        if analysis.isSheared, let shear = analysis.shear {
            findings.append(
                .matrixShear, .warning, "the \(name) shears the picture by \(VideoReport.tidyDegrees(shear).formatted)°"
            )
        } else if analysis.isOddAngle, let rotation = analysis.rotation {
            findings.append(
                .oddAngle, .warning,
                "the \(name) rotates by \(VideoReport.tidyDegrees(rotation).formatted)° clockwise, not a multiple of 90: there is no EXIF orientation for it"
            )
        }
        if analysis.hasNonUnitScale, let scale = analysis.scale {
            findings.append(
                .matrixScale, .warning,
                "the \(name) scales the picture by \(VideoReport.tidy(scale[0]).formatted)×\(VideoReport.tidy(scale[1]).formatted); players disagree on honouring it"
            )
        }
        return findings
    }

    static func sourceFindings(_ sources: [OrientationEvidence], evidence: VideoEvidence, stream: StreamReport)
        -> [Finding]
    {
        var findings: [Finding] = []
        let container = sources.first { $0.source == .container }
        let frame = sources.first { $0.source != .container }
        let containerRotates = container.map { $0.exifOrientation != 1 } ?? false
        let frameRotates = frame.map { $0.exifOrientation != 1 } ?? false
        if let container, let frame, containerRotates || frameRotates {
            if (container.exifOrientation, container.rotation, container.mirrored)
                != (frame.exifOrientation, frame.rotation, frame.mirrored)
            {
                findings.append(
                    .orientationConflict, .warning,
                    "the container says \(describe(container)) but the \(frame.source.rawValue) says \(describe(frame)); the container decides, players that read the codec disagree"
                )
            } else if containerRotates && frameRotates {
                findings.append(
                    .orientationDuplicated, .info,
                    "both the container and the \(frame.source.rawValue) carry \(describe(container)); a pipeline that applies both rotates twice"
                )
            }
        }
        if let frame, frame.source == .sei, frameRotates, !containerRotates {
            findings.append(
                .codecOrientation, .info,
                "only the SEI carries the orientation (\(describe(frame))); players that read only the container show the picture as stored"
            )
        }
        if let reason = evidence.boxLayerError {
            findings.append(
                .boxLayerUnreadable, .warning,
                "the MP4/QuickTime boxes could not be read in full (\(reason)): what is shown is FFmpeg's reading")
        }
        if let reason = evidence.firstFrameError {
            findings.append(
                .firstFrameUnreadable, .warning,
                "could not decode the first frame (\(reason)): an orientation in the codec would be missed")
        }
        if let title = stream.title ?? stream.tags["title"], let hint = htcRotationHint(title) {
            findings.append(
                .trackTitleRotation, .info,
                "the track title '\(title)' asks for \(hint)° clockwise (an HTC convention some players honour); the container carries no rotation"
            )
        }
        return findings
    }

    /// HTC's Matroska convention: a track named `htc_video_rotA-090` wants 90° clockwise.
    static func htcRotationHint(_ title: String) -> Int? {
        let prefix = "htc_video_rotA-"
        guard title.hasPrefix(prefix), let degrees = Int(title.dropFirst(prefix.count)),
            [0, 90, 180, 270].contains(degrees), degrees != 0
        else { return nil }
        return degrees
    }

    static func describe(_ evidence: OrientationEvidence) -> String {
        guard let rotation = evidence.rotation else { return "an invalid matrix" }
        let turn = "\(rotation.formatted)° clockwise"
        let orientation = evidence.exifOrientation.map { "orientation \($0), " } ?? ""
        return evidence.mirrored == true ? "\(orientation)mirror then \(turn)" : "\(orientation)\(turn)"
    }
}

extension Double {
    /// Whole numbers without a fraction: 90 rather than 90.0.
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
