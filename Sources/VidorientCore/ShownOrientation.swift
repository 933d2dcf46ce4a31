/// What a file shows, whatever its kind: the top-level `orientation` of inspect's JSON (so that
/// `jq .orientation.exif_orientation` works on a photo and a video alike) and the fields of
/// `inspect --print`. Read from the report's `video` or `photo`, which decided it; nothing is
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

    /// The fields `inspect --print` knows, in the order `--help` lists them.
    public static let fieldNames = [
        "path", "orientation", "rotation", "mirrored", "summary", "width", "height", "kind", "source",
    ]

    /// One field as `inspect --print` writes it: `-` when unknown (as exiftool's `-T`), a name's
    /// control characters escaped. Nil for a name that is not a field.
    public func field(_ name: String, path: String) -> String? {
        func number(_ value: Double?) -> String {
            guard let value else { return "-" }
            return value == value.rounded() ? String(Int(value)) : String(value)
        }
        switch name {
        case "path": return path.escapingControlCharacters
        case "orientation": return exifOrientation.map(String.init) ?? "-"
        case "rotation": return number(rotation)
        case "mirrored": return mirrored.map { $0 ? "yes" : "no" } ?? "-"
        case "summary": return exifOrientation.flatMap(Orientation.init(exif:))?.summary ?? "-"
        case "width": return displayWidth.map(String.init) ?? "-"
        case "height": return displayHeight.map(String.init) ?? "-"
        case "kind": return kind
        case "source": return source
        default: return nil
        }
    }
}

extension MediaReport {
    /// What the file shows (`video` first, then `photo`); nil for a file with neither (audio).
    public var shown: ShownOrientation? {
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
