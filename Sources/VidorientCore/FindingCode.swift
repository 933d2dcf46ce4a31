/// Every code a `Finding` can carry, as docs/findings.md lists them (in its order): the JSON's
/// `code` strings, unchanged. Sources make findings and decide on them with these cases, never
/// with the strings (`FindingCodeDocumentationTests` holds the enum, the sources and the page
/// to each other). A record read back keeps a code this version does not know as its string
/// (`Finding.code`), so an audit from another version still reads.
public enum FindingCode: String, Sendable, Hashable, CaseIterable, Codable {
    case mirrored
    case oddAngle = "odd-angle"
    case matrixScale = "matrix-scale"
    case matrixShear = "matrix-shear"
    case matrixProjective = "matrix-projective"
    case matrixInvalid = "matrix-invalid"
    case orientationConflict = "orientation-conflict"
    case orientationDuplicated = "orientation-duplicated"
    case sidecarConflict = "sidecar-conflict"
    case pixelsAlreadyRotated = "pixels-already-rotated"
    case thumbnailShapeDiffers = "thumbnail-shape-differs"
    case heifTransformInvalid = "heif-transform-invalid"
    case codecOrientation = "codec-orientation"
    case exifInvalid = "exif-invalid"
    case cameraConflict = "camera-conflict"
    case trackTitleRotation = "track-title-rotation"
    case boxLayerUnreadable = "box-layer-unreadable"
    case orientationMisplaced = "orientation-misplaced"
    case orientationType = "orientation-type"
    case pngExifPrefix = "png-exif-prefix"
    case heifRepeatedAssociation = "heif-repeated-association"
    case heifReferenceIgnored = "heif-reference-ignored"
    case cr3RepeatedMetadata = "cr3-repeated-metadata"
    case fileDamaged = "file-damaged"
    case fileTruncated = "file-truncated"
    case firstFrameUnreadable = "first-frame-unreadable"
    case movieMatrix = "movie-matrix"
    case timedOrientationDiffers = "timed-orientation-differs"
    case sarRotated = "sar-rotated"
    case contentSideways = "content-sideways"
    case contentUpsideDown = "content-upside-down"
    case contentUnreadable = "content-unreadable"
    case exifUnreadable = "exif-unreadable"
    case exifIfdUnreadable = "exif-ifd-unreadable"
    case exifIfdLoop = "exif-ifd-loop"
    case exifIfdLimit = "exif-ifd-limit"
    case exifBadEntry = "exif-bad-entry"
    case jpegSecondExif = "jpeg-second-exif"
    case pngBadCrc = "png-bad-crc"
    case pngExifAfterIdat = "png-exif-after-idat"
    case pngInflateFailed = "png-inflate-failed"
    case pngRawProfileUnreadable = "png-raw-profile-unreadable"
    case webpSecondExif = "webp-second-exif"
    case webpTrailingData = "webp-trailing-data"
    case xmpUnreadable = "xmp-unreadable"
    case unreadable
    case timeout
    case readerCrashed = "reader-crashed"
    case noVideo = "no-video"

    /// A judgment of the picture, not of its tags: its suggested fix is applied only when a person
    /// approved it (`fix --from-audit`), and the review page offers it for review.
    public var isJudgment: Bool { self == .contentSideways || self == .contentUpsideDown }
}

extension Finding {
    /// A finding of a known kind: what every source that makes one calls.
    public init(
        _ code: FindingCode, severity: Severity, message: String, action: String? = nil,
        suggestedFix: SuggestedFix? = nil
    ) {
        self.init(code: code.rawValue, severity: severity, message: message, action: action, suggestedFix: suggestedFix)
    }

    /// The code as the enum; nil for a code this version does not know (a record written by another).
    public var kind: FindingCode? { FindingCode(rawValue: code) }
}

extension [Finding] {
    /// Appends a finding of a known kind that suggests no action and no fix: how a reader notes
    /// what it saw (`findings.append(.fileTruncated, .warning, "…")`).
    public mutating func append(_ code: FindingCode, _ severity: Severity, _ message: String) {
        append(Finding(code, severity: severity, message: message))
    }
}
