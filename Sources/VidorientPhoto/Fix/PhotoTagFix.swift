public import VidorientCore
public import VidorientISOBMFF

/// A planned change of a photo's orientation tag: what the file showed, what it will show, each
/// place that changes (for people), and the bytes (`FileEdit`, against the original file).
public struct OrientationEdit: Sendable, Hashable {
    public var format: MediaFormat
    /// What the file showed before, by `PhotoReport`'s decision; nil when not one of the eight.
    public var before: Orientation?
    public var after: Orientation
    /// Each place written, for a person: `APP1 EXIF IFD0 Orientation: 6 -> 1`,
    /// `new eXIf chunk before IDAT`, `irot of item 1: 3 -> 0`, `XMP tiff:Orientation: 6 -> 1`.
    public var places: [String]
    public var edit: FileEdit

    public init(format: MediaFormat, before: Orientation?, after: Orientation, places: [String], edit: FileEdit) {
        self.format = format
        self.before = before
        self.after = after
        self.places = places
        self.edit = edit
    }
}

/// Plans the byte-minimal change that makes a photo show `target`: only the tag's bytes where the
/// tag exists (and a PNG chunk's CRC), else the smallest correct insertion. One function per
/// format family; this enum sends each file to its planner.
public enum PhotoTagFix {
    /// `source` is the whole file; `format` is `MediaFormat(signature:)`'s answer for it.
    public static func plan(_ source: some ByteSource, format: MediaFormat, target: Orientation) throws(PhotoFormatError)
        -> OrientationEdit
    {
        switch format {
        case .movie, .other: throw PhotoFormatError("not a photo (\(format))")
        default: throw PhotoFormatError("fixing \(format) is not built yet")
        }
    }
}
