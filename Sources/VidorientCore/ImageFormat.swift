/// The picture formats thumbnails are written in: PNG or JPEG, encoded without FFmpeg (`encode`,
/// in Vidorient: libjpeg-turbo and zlib), so the same picture gives the same bytes on every run
/// and machine.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpg

    /// From a file name's extension (`.jpeg` counts as jpg); nil for anything else.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpg
        default: return nil
        }
    }

    /// `png`, `jpg` or `jpeg`.
    public static func parse(_ text: String) throws(ValueError) -> ImageFormat {
        guard let format = ImageFormat(rawValue: text == "jpeg" ? "jpg" : text) else {
            throw ValueError("must be png or jpg")
        }
        return format
    }
}
