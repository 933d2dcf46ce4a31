/// What a file shows, whatever its kind: the top-level `orientation` of inspect's JSON (so that
/// `jq .orientation.exif_orientation` works on a photo and a video alike) and the orientation
/// fields of `inspect --print` (`ReportFacts`). Read from the report's `video` or `photo`, which decided it; nothing is
/// decided here.
public struct ShownOrientation: Sendable, Hashable, Codable {
    /// `video` or `photo`: which object of the report it comes from.
    public var kind: String
    /// EXIF 1–8; nil for a video whose matrix is not one of the eight (an odd angle).
    public var exifOrientation: Int?
    /// Clockwise degrees after the optional mirror.
    public var rotation: Double?
    public var mirrored: Bool?
    /// The displayed size.
    public var displayWidth: Int?
    public var displayHeight: Int?
    /// What decided it: a video's `orientation_source` (`container`, `sei`, …), a photo's
    /// (`exif`, `xmp`, `heif`, `none`).
    public var source: String

    enum CodingKeys: String, CodingKey {
        case kind, exifOrientation = "exif_orientation", rotation, mirrored, displayWidth = "display_width"
        case displayHeight = "display_height", source
    }
}

extension MediaReport {
    /// What the file shows (`video` first, then `photo`); nil for a file with neither (audio).
    public var shown: ShownOrientation? { MediaReport.shown(video: video, photo: photo) }

    /// What a report's `video` or `photo` shows (an audit record's too).
    public static func shown(video: VideoReport?, photo: PhotoReport?) -> ShownOrientation? {
        if let video {
            return ShownOrientation(
                kind: "video", exifOrientation: video.exifOrientation, rotation: video.rotation,
                mirrored: video.mirrored, displayWidth: video.displayWidth, displayHeight: video.displayHeight,
                source: video.orientationSource.rawValue)
        }
        if let photo {
            return ShownOrientation(
                kind: "photo", exifOrientation: photo.exifOrientation, rotation: Double(photo.rotation),
                mirrored: photo.mirrored, displayWidth: photo.displayWidth, displayHeight: photo.displayHeight,
                source: photo.orientationSource.rawValue)
        }
        return nil
    }
}
