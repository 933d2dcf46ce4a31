/// Every name one orientation goes by: what `vidorient orientation` prints.
public struct OrientationDescription: Sendable, Hashable, Codable {
    public struct Named: Sendable, Hashable, Codable {
        public var raw: Int
        public var name: String
    }

    public var schemaVersion: Int
    public var exifOrientation: Int
    public var summary: String
    public var rotation: Int
    public var mirrored: Bool
    public var cgImagePropertyOrientation: Named
    public var uiImageOrientation: Named
    /// For an unmirrored back-camera recording; null for the mirrored four.
    public var avCaptureVideoOrientation: Named?
    /// The device orientation that records it (raw values match the capture's, names swap).
    public var uiDeviceOrientation: Named?
    /// tkhd order, with Apple's translation for the given stored size.
    public var matrix: [Double]
    /// The same in fixed point, as FFmpeg's display matrix side data and the tkhd box hold it.
    public var ffmpegDisplayMatrix: [Int32]
    /// What ffprobe prints as `rotation` for that matrix (counter-clockwise, mirror-blind).
    public var ffprobeRotation: Int?
    public var heifIrot: Int
    public var heifImir: Int?
    /// An FFmpeg filter chain that turns the stored picture upright; empty for 1.
    public var ffmpegFilter: String
    public var storedWidth: Int
    public var storedHeight: Int
    public var displayWidth: Int
    public var displayHeight: Int

    public init(_ orientation: Orientation, storedWidth: Int = 1920, storedHeight: Int = 1080) {
        let matrix = DisplayMatrix(orientation, width: storedWidth, height: storedHeight)
        schemaVersion = MediaReport.currentSchemaVersion
        exifOrientation = orientation.exif
        summary = orientation.summary
        rotation = orientation.rotation
        mirrored = orientation.isMirrored
        cgImagePropertyOrientation = Named(raw: orientation.cgImagePropertyOrientation, name: orientation.appleName)
        uiImageOrientation = Named(raw: orientation.uiImageOrientation, name: orientation.appleName)
        avCaptureVideoOrientation = orientation.captureVideoOrientation.map { Named(raw: $0.rawValue, name: $0.name) }
        uiDeviceOrientation = orientation.captureVideoOrientation.map {
            Named(raw: $0.rawValue, name: $0.deviceOrientationName)
        }
        self.matrix = matrix.entries
        ffmpegDisplayMatrix = matrix.fixedPoint
        // FFmpeg exports no identity matrix, so ffprobe prints no rotation at all for 1.
        ffprobeRotation = orientation == .up ? nil : matrix.ffprobeRotation
        heifIrot = orientation.heif.irot
        heifImir = orientation.heif.imir
        ffmpegFilter = orientation.ffmpegFilter
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        (displayWidth, displayHeight) = orientation.displaySize(width: storedWidth, height: storedHeight)
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", exifOrientation = "exif_orientation", summary, rotation, mirrored
        case cgImagePropertyOrientation = "cg_image_property_orientation", uiImageOrientation = "ui_image_orientation"
        case avCaptureVideoOrientation = "av_capture_video_orientation", uiDeviceOrientation = "ui_device_orientation"
        case matrix, ffmpegDisplayMatrix = "ffmpeg_display_matrix", ffprobeRotation = "ffprobe_rotation"
        case heifIrot = "heif_irot", heifImir = "heif_imir", ffmpegFilter = "ffmpeg_filter"
        case storedWidth = "stored_width", storedHeight = "stored_height", displayWidth = "display_width"
        case displayHeight = "display_height"
    }
}

extension Orientation {
    /// FFmpeg video filters that turn the stored picture upright.
    public var ffmpegFilter: String {
        switch self {
        case .up: ""
        case .upMirrored: "hflip"
        case .down: "hflip,vflip"
        case .downMirrored: "vflip"
        case .leftMirrored: "transpose=cclock_flip"
        case .right: "transpose=clock"
        case .rightMirrored: "transpose=clock_flip"
        case .left: "transpose=cclock"
        }
    }

    /// Reads an orientation from any of its representations, as `vidorient orientation` takes them.
    public enum Representation: String, Sendable, CaseIterable {
        case exif, uiImage = "uiimage", matrix, rotation, heif, capture, device
    }

    /// `text` as the given representation; the error says what was expected.
    public static func parse(_ text: String, as representation: Representation, mirrored: Bool = false)
        throws(OrientationParseError) -> Orientation
    {
        let trimmed = text.trimmingSpaces
        switch representation {
        case .exif:
            guard let value = Int(trimmed), let orientation = Orientation(exif: value) else {
                throw OrientationParseError("EXIF orientation must be 1-8, got '\(text)'")
            }
            return orientation
        case .uiImage:
            guard let value = Int(trimmed), let orientation = Orientation(uiImageOrientation: value) else {
                throw OrientationParseError("UIImage.Orientation raw value must be 0-7, got '\(text)'")
            }
            return orientation
        case .rotation:
            guard let value = Int(trimmed), let orientation = Orientation(rotation: value, mirrored: mirrored) else {
                throw OrientationParseError("rotation must be a multiple of 90 degrees, got '\(text)'")
            }
            return orientation
        case .matrix:
            let numbers = trimmed.split(separator: ",").map { Double($0.trimmingSpacesSubstring) }
            guard numbers.allSatisfy({ $0 != nil }), [4, 6, 9].contains(numbers.count) else {
                throw OrientationParseError("matrix must be a,b,c,d or a,b,c,d,tx,ty or 9 tkhd entries, got '\(text)'")
            }
            let n = numbers.map { $0! }
            let matrix =
                n.count == 9 ? DisplayMatrix(n)! : DisplayMatrix(a: n[0], b: n[1], c: n[2], d: n[3])
            guard let orientation = matrix.analysis.orientation else {
                throw OrientationParseError("matrix \(text) is not one of the eight orientations")
            }
            return orientation
        case .heif:
            let parts = trimmed.split(separator: ",").map { Int($0.trimmingSpacesSubstring) }
            guard (1...2).contains(parts.count), parts.allSatisfy({ $0 != nil }),
                let orientation = Orientation(
                    heif: HEIFTransform(irot: parts[0]!, imir: parts.count == 2 ? parts[1] : nil))
            else { throw OrientationParseError("HEIF takes irot[,imir] with irot 0-3 and imir 0 or 1, got '\(text)'") }
            return orientation
        case .capture, .device:
            let capture =
                Int(trimmed).flatMap(CaptureOrientation.init(rawValue:))
                ?? (representation == .capture
                    ? CaptureOrientation(name: trimmed) : CaptureOrientation(deviceOrientationName: trimmed))
            guard let capture, let orientation = Orientation(captureVideoOrientation: capture) else {
                throw OrientationParseError(
                    "\(representation == .capture ? "AVCaptureVideoOrientation" : "UIDeviceOrientation") must be 1-4 or portrait, portraitUpsideDown, landscapeLeft, landscapeRight; got '\(text)'"
                )
            }
            return orientation
        }
    }
}

public struct OrientationParseError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    var trimmingSpacesSubstring: String { String(self).trimmingSpaces }
}

extension OrientationDescription {
    /// The description as `vidorient orientation` prints it without --json.
    public func text(_ painter: TextPainter) -> String {
        let d = self
        func named(_ value: OrientationDescription.Named?) -> String {
            value.map { "\($0.name) (\($0.raw))" } ?? "none (mirrored)"
        }
        let rows: [(String, String)] = [
            ("rotation", "\(d.rotation)° clockwise" + (d.mirrored ? " after a horizontal mirror" : "")),
            ("CGImageProp", named(d.cgImagePropertyOrientation)),
            ("UIImage", named(d.uiImageOrientation)),
            (
                "AVCapture",
                named(d.avCaptureVideoOrientation) + (d.avCaptureVideoOrientation == nil ? "" : ", back camera")
            ),
            ("UIDevice", named(d.uiDeviceOrientation)),
            ("matrix", d.matrix.map(format).joined(separator: " ") + " (stored \(d.storedWidth)x\(d.storedHeight))"),
            ("ffmpeg int32", d.ffmpegDisplayMatrix.map(String.init).joined(separator: " ")),
            ("ffprobe", d.ffprobeRotation.map { "rotation \($0)" } ?? "none"),
            ("HEIF", "irot \(d.heifIrot)" + (d.heifImir.map { ", imir axis \($0)" } ?? "")),
            ("ffmpeg -vf", d.ffmpegFilter.isEmpty ? "(nothing)" : d.ffmpegFilter),
            ("displayed", "\(d.displayWidth)x\(d.displayHeight)"),
        ]
        // The title in Orientation.phrase's words.
        var block = TextBlock("EXIF \(d.exifOrientation): \(d.summary)", painter: painter, labelWidth: 13)
        for (label, value) in rows { block.row(label, value) }
        return block.text
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
