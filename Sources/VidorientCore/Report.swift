// The report `inspect` prints. Every key is always present (null when unknown): `JSONText` writes
// a nil optional as null, so the types rely on synthesized `Codable` with snake_case `CodingKeys`.

/// Everything `vidorient inspect` knows about one file.
public struct MediaReport: Sendable, Hashable, Codable {
    /// Bumped when a key changes meaning or disappears; new keys do not bump it.
    public static let currentSchemaVersion = 7

    public var schemaVersion: Int
    /// The path as given.
    @ReportedPath public var path: String
    /// The container: name, duration, size, tags.
    public var format: FormatReport
    /// Every stream, as `ffprobe -show_streams` lists them.
    public var streams: [StreamReport]
    /// The primary video stream's orientation; nil when the file has no video (photos included).
    public var video: VideoReport?
    /// A photo's orientation; nil for videos and audio.
    public var photo: PhotoReport?
    public var findings: [Finding]
    /// Which way the pixels say is up (`--content`); nil when not asked.
    public var content: ContentVerdict?

    public init(
        path: String, format: FormatReport, streams: [StreamReport], video: VideoReport?, photo: PhotoReport? = nil,
        findings: [Finding]
    ) {
        self.schemaVersion = MediaReport.currentSchemaVersion
        self.path = path
        self.format = format
        self.streams = streams
        self.video = video
        self.photo = photo
        self.findings = findings
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", path, format, streams, video, photo, findings
        case content, orientation
    }

    // Hand-written: `path` is read from `path_bytes` when that is set (PathBytes.swift).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        path = try decoder.decodePath(forKey: CodingKeys.path)
        format = try c.decode(FormatReport.self, forKey: .format)
        streams = try c.decode([StreamReport].self, forKey: .streams)
        video = try c.decodeIfPresent(VideoReport.self, forKey: .video)
        photo = try c.decodeIfPresent(PhotoReport.self, forKey: .photo)
        findings = try c.decode([Finding].self, forKey: .findings)
        content = try c.decodeIfPresent(ContentVerdict.self, forKey: .content)
    }

    // Hand-written for `orientation`, a key computed from `video` and `photo`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(_path, forKey: .path)
        try c.encode(format, forKey: .format)
        try c.encode(streams, forKey: .streams)
        try c.encode(video, forKey: .video)
        try c.encode(photo, forKey: .photo)
        try c.encode(findings, forKey: .findings)
        try c.encode(content, forKey: .content)
        // Computed from `video` or `photo`, so never read back.
        try c.encode(shown, forKey: .orientation)
    }
}

/// The container as a whole.
public struct FormatReport: Sendable, Hashable, Codable {
    /// The project's own name of the container (`mp4`, `mov`, `m4a`, `3gp`, `jpeg`, `heic`,
    /// `matroska/webm`…), whichever reader described the file.
    public var name: String
    public var longName: String?
    public var duration: Double?
    public var size: Int?
    public var bitRate: Int?
    public var startTime: Double?
    public var creationTime: String?
    public var streamCount: Int
    public var location: Location?
    public var tags: [String: String]
    /// FFmpeg's demuxer name (ffprobe's `format_name`) when FFmpeg read the file; nil when the
    /// project's own readers described it without FFmpeg.
    public var ffmpegDemuxer: String?

    public init(
        name: String, longName: String? = nil, duration: Double? = nil, size: Int? = nil, bitRate: Int? = nil,
        startTime: Double? = nil, creationTime: String? = nil, streamCount: Int, location: Location? = nil,
        tags: [String: String] = [:], ffmpegDemuxer: String? = nil
    ) {
        self.name = name
        self.longName = longName
        self.duration = duration
        self.size = size
        self.bitRate = bitRate
        self.startTime = startTime
        self.creationTime = creationTime
        self.streamCount = streamCount
        self.location = location
        self.tags = tags
        self.ffmpegDemuxer = ffmpegDemuxer
    }

    enum CodingKeys: String, CodingKey {
        case name, longName = "long_name", duration, size, bitRate = "bit_rate", startTime = "start_time"
        case creationTime = "creation_time", streamCount = "stream_count", location, tags
        case ffmpegDemuxer = "ffmpeg_demuxer"
    }
}

/// A place from an ISO 6709 string such as `+51.5334-000.1255+026.756/`.
public struct Location: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var iso6709: String

    public init(latitude: Double, longitude: Double, altitude: Double?, iso6709: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.iso6709 = iso6709
    }

    /// A position in degrees (EXIF's GPS IFD), its ISO 6709 form written from them
    /// (`+41.220300-096.071625+123.4/`). Nil when a coordinate is not a number or out of range.
    public init?(latitude: Double, longitude: Double, altitude: Double?) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let altitude = altitude.flatMap { $0.isFinite ? $0 : nil }
        func signed(_ value: Double, integerDigits: Int) -> String {
            let micro = Int((abs(value) * 1_000_000).rounded())
            let whole = String(micro / 1_000_000)
            let fraction = String(micro % 1_000_000)
            return (value < 0 ? "-" : "+") + String(repeating: "0", count: max(0, integerDigits - whole.count)) + whole
                + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
        }
        let height = altitude.map { ($0 < 0 ? "-" : "+") + abs($0).text(decimals: 1) } ?? ""
        self.init(
            latitude: latitude, longitude: longitude, altitude: altitude,
            iso6709: signed(latitude, integerDigits: 2) + signed(longitude, integerDigits: 3) + height + "/")
    }

    /// Parses the decimal-degree, degree-minute and degree-minute-second forms; nil otherwise.
    public init?(iso6709 text: String) {
        var numbers: [(sign: Double, digits: String)] = []
        var current: (sign: Double, digits: String)?
        for character in text {
            if character == "+" || character == "-" {
                if let done = current { numbers.append(done) }
                current = (character == "-" ? -1 : 1, "")
            } else if character.isNumber || character == "." {
                guard current != nil else { return nil }
                current!.digits.append(character)
            } else if character == "/" || character == "C" {
                break
            } else {
                return nil
            }
        }
        if let done = current { numbers.append(done) }
        guard numbers.count >= 2,
            let latitude = Location.degrees(numbers[0].digits, degreeDigits: 2),
            let longitude = Location.degrees(numbers[1].digits, degreeDigits: 3),
            abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        var altitude: Double?
        if numbers.count >= 3 {
            guard let value = Double(numbers[2].digits) else { return nil }
            altitude = numbers[2].sign * value
        }
        self.init(
            latitude: numbers[0].sign * latitude, longitude: numbers[1].sign * longitude, altitude: altitude,
            iso6709: text)
    }

    /// `DD.D`, `DDMM.M` or `DDMMSS.S` (with one more degree digit for longitude) to degrees.
    private static func degrees(_ digits: String, degreeDigits: Int) -> Double? {
        let integerPart = digits.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard let value = Double(digits), !integerPart.isEmpty else { return nil }
        switch integerPart.count - degreeDigits {
        case 0: return value
        case 2:
            let whole = (value / 100).rounded(.towardZero)
            return whole + (value - whole * 100) / 60
        case 4:
            let whole = (value / 10_000).rounded(.towardZero)
            let minutes = ((value - whole * 10_000) / 100).rounded(.towardZero)
            return whole + minutes / 60 + (value - whole * 10_000 - minutes * 100) / 3600
        default: return nil
        }
    }
}

/// One stream, with the fields a reader of `ffprobe -show_streams` looks for.
public struct StreamReport: Sendable, Hashable, Codable {
    public var index: Int
    /// video, audio, subtitle, data, attachment or unknown.
    public var type: String
    public var codec: String?
    public var codecLongName: String?
    public var codecTag: String?
    public var profile: String?
    public var pixelFormat: String?
    public var bitDepth: Int?
    public var codedWidth: Int?
    public var codedHeight: Int?
    /// As ffprobe writes it, `num:den`.
    public var sampleAspectRatio: String?
    public var frameRate: Double?
    public var duration: Double?
    public var bitRate: Int?
    public var frameCount: Int?
    public var colorPrimaries: String?
    public var colorTransfer: String?
    public var colorSpace: String?
    public var colorRange: String?
    /// `hlg` or `pq` from the transfer characteristic; nil for SDR.
    public var hdr: String?
    /// Dolby Vision `profile.compatibility`, such as `8.4` (HLG-compatible base layer).
    public var dolbyVision: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var language: String?
    public var handlerName: String?
    public var title: String?
    public var isDefault: Bool
    public var isAttachedPicture: Bool
    public var tags: [String: String]

    public init(index: Int, type: String) {
        self.index = index
        self.type = type
        self.isDefault = false
        self.isAttachedPicture = false
        self.tags = [:]
    }

    enum CodingKeys: String, CodingKey {
        case index, type, codec, codecLongName = "codec_long_name", codecTag = "codec_tag", profile
        case pixelFormat = "pix_fmt", bitDepth = "bit_depth", codedWidth = "coded_width"
        case codedHeight = "coded_height", sampleAspectRatio = "sample_aspect_ratio", frameRate = "frame_rate"
        case duration, bitRate = "bit_rate", frameCount = "frame_count", colorPrimaries = "color_primaries"
        case colorTransfer = "color_transfer", colorSpace = "color_space", colorRange = "color_range", hdr
        case dolbyVision = "dolby_vision"
        case sampleRate = "sample_rate", channels, language, handlerName = "handler_name", title
        case isDefault = "is_default", isAttachedPicture = "is_attached_picture", tags
    }
}

/// Where an orientation was read from.
public enum OrientationSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The container's display matrix (MP4/MOV `tkhd` combined with `mvhd`, as FFmpeg reads it).
    case container
    /// An H.264/HEVC display-orientation SEI message in the first decoded frame.
    case sei
    /// The EXIF `Orientation` tag of a photo.
    case exif
    /// No source carries an orientation: the picture is shown as stored.
    case none
}

/// One source's say on the orientation.
public struct OrientationEvidence: Sendable, Hashable, Codable {
    public var source: OrientationSource
    public var matrix: [Double]
    public var exifOrientation: Int?
    public var rotation: Double?
    public var mirrored: Bool?

    public init(source: OrientationSource, matrix: DisplayMatrix) {
        let analysis = matrix.analysis
        self.source = source
        self.matrix = matrix.entries.map(VideoReport.tidy)
        self.exifOrientation = analysis.orientation?.exif
        self.rotation = analysis.rotation.map(VideoReport.tidyDegrees)
        self.mirrored = analysis.mirrored
    }

    enum CodingKeys: String, CodingKey {
        case source, matrix, exifOrientation = "exif_orientation", rotation, mirrored
    }
}

public enum Layout: String, Sendable, Hashable, Codable {
    case portrait, landscape, square

    public init(width: Int, height: Int) {
        self = width > height ? .landscape : (height > width ? .portrait : .square)
    }
}

public enum CameraPosition: String, Sendable, Hashable, Codable {
    case front, back
}

/// The primary video stream: how it is stored, how it is shown, and why.
public struct VideoReport: Sendable, Hashable, Codable {
    /// The stream's index in the file, as ffprobe numbers it.
    public var index: Int
    /// FFmpeg's codec name (`h264`, `hevc`, `mjpeg`, ...).
    public var codec: String?
    public var codedWidth: Int?
    public var codedHeight: Int?
    public var sampleAspectRatio: String?
    public var displayWidth: Int?
    public var displayHeight: Int?
    /// The deciding matrix in tkhd order, real numbers.
    public var matrix: [Double]
    public var matrixValidity: MatrixAnalysis.Validity
    public var matrixScale: [Double]?
    public var matrixShear: Double?
    public var matrixTranslation: [Double]
    /// Clockwise degrees after the optional mirror; exact when not a multiple of 90.
    public var rotation: Double?
    public var mirrored: Bool?
    /// EXIF 1–8; nil when the matrix is not one of the eight.
    public var exifOrientation: Int?
    public var orientationSource: OrientationSource
    /// Every source that has a say, the deciding one first.
    public var sources: [OrientationEvidence]
    public var layout: Layout?
    public var camera: CameraPosition?
    public var cameraEvidence: String?
    /// What ffprobe prints as `rotation` for the same file (counter-clockwise, mirror-blind).
    public var ffprobeRotation: Int?
    /// The track's `tkhd` matrix and the movie's `mvhd` matrix, apart (FFmpeg shows only their
    /// product); nil when the file is not MP4/QuickTime.
    public var trackMatrix: [Double]?
    public var movieMatrix: [Double]?
    /// The video track's own metadata (such as `com.apple.quicktime.camera.identifier`).
    public var trackMetadata: [String: String]
    /// Keys declared by the file's timed-metadata (`mebx`) tracks.
    public var timedMetadataKeys: [String]
    /// `com.apple.quicktime.video-orientation` over time (iPhones write it); empty when absent.
    public var timedVideoOrientation: [TimedOrientation]

    /// Rounds away fixed-point noise (16.16 resolves 1.5e-5) so that 90 prints as 90.
    static func tidy(_ value: Double) -> Double {
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return rounded == 0 ? 0 : rounded
    }

    /// Degrees to 0.001: 16.16 fixed point cannot state an angle more finely than that, so a
    /// matrix written for 30° reads back as 30, not 29.99997.
    static func tidyDegrees(_ value: Double) -> Double {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == 0 || rounded == 360 ? 0 : rounded
    }

    enum CodingKeys: String, CodingKey {
        case index, codec, codedWidth = "coded_width", codedHeight = "coded_height"
        case sampleAspectRatio = "sample_aspect_ratio", displayWidth = "display_width"
        case displayHeight = "display_height", matrix, matrixValidity = "matrix_validity"
        case matrixScale = "matrix_scale", matrixShear = "matrix_shear", matrixTranslation = "matrix_translation"
        case rotation, mirrored, exifOrientation = "exif_orientation", orientationSource = "orientation_source"
        case sources, layout, camera, cameraEvidence = "camera_evidence", ffprobeRotation = "ffprobe_rotation"
        case trackMatrix = "track_matrix", movieMatrix = "movie_matrix", trackMetadata = "track_metadata"
        case timedMetadataKeys = "timed_metadata_keys", timedVideoOrientation = "timed_video_orientation"
    }
}

public enum Severity: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    case info, warning, error

    private var rank: Int { Severity.allCases.firstIndex(of: self)! }
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// Something about a file's orientation worth a person's attention.
public struct Finding: Sendable, Hashable, Codable {
    /// Stable, kebab-case; documented in docs/findings.md.
    public var code: String
    public var severity: Severity
    public var message: String
    /// What to do about it, often a `vidorient` command line; nil when nothing needs doing.
    public var action: String?
    /// The fix `vidorient fix --from-audit` applies, for a machine: set only where the fix is
    /// unambiguous (the file keeps showing what it shows now) and lossless (a tag or a matrix).
    /// Absent from records written before schema 2 added it: decoded as nil.
    public var suggestedFix: SuggestedFix?

    public init(
        code: String, severity: Severity, message: String, action: String? = nil, suggestedFix: SuggestedFix? = nil
    ) {
        self.code = code
        self.severity = severity
        self.message = message
        self.action = action
        self.suggestedFix = suggestedFix
    }

    enum CodingKeys: String, CodingKey { case code, severity, message, action, suggestedFix = "suggested_fix" }
}

/// A fix as `vidorient fix` takes it: `--orientation N`, and `--reset-movie-matrix` for a movie
/// whose `mvhd` matrix is not the identity. In JSON `{"orientation": 6, "reset_movie_matrix": false}`.
public struct SuggestedFix: Sendable, Hashable, Codable {
    /// The EXIF orientation (1-8) the file is to show: the one it shows now, for the findings
    /// about how it is stored; the upright one, for the content findings (`content-sideways`).
    public var orientation: Int
    public var resetMovieMatrix: Bool

    public init(orientation: Int, resetMovieMatrix: Bool = false) {
        self.orientation = orientation
        self.resetMovieMatrix = resetMovieMatrix
    }

    enum CodingKeys: String, CodingKey { case orientation, resetMovieMatrix = "reset_movie_matrix" }
}

extension Finding {
    /// The codes that say a file's bytes are cut short or damaged: what `thumbnail` repeats on
    /// stderr beside the picture it writes.
    public static let damageCodes: Set<FindingCode> = [.fileTruncated, .fileDamaged]

    /// A decoder's warning about the file, as the finding it is: libjpeg's `premature end of
    /// jpeg file` is `file-truncated`, anything else it or FFmpeg says of the data is
    /// `file-damaged`. `decoder` names who said it (`libjpeg`, `ffmpeg`).
    public static func decoderWarning(_ warning: String, decoder: String) -> Finding {
        if warning.lowercased().contains("premature end") {
            return Finding(
                .fileTruncated, severity: .error,
                message: "the file is truncated: the decoder ran out of data (\(decoder): \(warning))")
        }
        return Finding(
            .fileDamaged, severity: .warning,
            message: "the file is damaged: the decoder met bad data and stepped over it (\(decoder): \(warning))")
    }
}

extension [Finding] {
    /// The findings about damage (`Finding.damageCodes`), each code once: the reader's finding
    /// first, a decoder's warning only where the reader said nothing of that kind.
    public static func damage(reported: [Finding], decoder: [Finding]) -> [Finding] {
        var found = reported.filter { $0.kind.map(Finding.damageCodes.contains) == true }
        for warning in decoder where !found.contains(where: { $0.code == warning.code }) { found.append(warning) }
        return found
    }
}
