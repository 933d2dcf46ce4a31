/// The other names the eight orientations go by, each convertible both ways.
extension Orientation {
    /// `UIImage.Orientation` raw values: up 0, down 1, left 2, right 3, upMirrored 4,
    /// downMirrored 5, leftMirrored 6, rightMirrored 7.
    public static let uiImageOrder: [Orientation] = [
        .up, .down, .left, .right, .upMirrored, .downMirrored, .leftMirrored, .rightMirrored,
    ]

    public var uiImageOrientation: Int { Orientation.uiImageOrder.firstIndex(of: self)! }

    public init?(uiImageOrientation raw: Int) {
        guard Orientation.uiImageOrder.indices.contains(raw) else { return nil }
        self = Orientation.uiImageOrder[raw]
    }

    /// The `UIImage.Orientation` / `CGImagePropertyOrientation` case name (the same names).
    public var appleName: String {
        switch self {
        case .up: "up"
        case .upMirrored: "upMirrored"
        case .down: "down"
        case .downMirrored: "downMirrored"
        case .leftMirrored: "leftMirrored"
        case .right: "right"
        case .rightMirrored: "rightMirrored"
        case .left: "left"
        }
    }

    /// `CGImagePropertyOrientation` raw value: the EXIF value.
    public var cgImagePropertyOrientation: Int { exif }

    /// The `AVCaptureVideoOrientation` (portrait 1, portraitUpsideDown 2, landscapeRight 3,
    /// landscapeLeft 4) at which an unmirrored back-camera recording gets this orientation.
    /// The sensor's native orientation is landscapeRight. nil for the mirrored four.
    public var captureVideoOrientation: CaptureOrientation? {
        switch self {
        case .right: .portrait
        case .left: .portraitUpsideDown
        case .up: .landscapeRight
        case .down: .landscapeLeft
        default: nil
        }
    }

    public init?(captureVideoOrientation capture: CaptureOrientation) {
        guard let match = Orientation.allCases.first(where: { $0.captureVideoOrientation == capture }) else {
            return nil
        }
        self = match
    }

    /// HEIF's transformative properties as libheif writes them: `irot` (counter-clockwise
    /// quarter turns) first, then `imir`, whose axis follows ISO/IEC 23008-12:2022, libheif and
    /// libavif: 0 flips top and bottom, 1 swaps left and right (the 2017 text read the other way).
    public var heif: HEIFTransform {
        switch self {
        case .up: HEIFTransform(irot: 0, imir: nil)
        case .upMirrored: HEIFTransform(irot: 0, imir: 1)
        case .down: HEIFTransform(irot: 2, imir: nil)
        case .downMirrored: HEIFTransform(irot: 0, imir: 0)
        case .leftMirrored: HEIFTransform(irot: 3, imir: 1)
        case .right: HEIFTransform(irot: 3, imir: nil)
        case .rightMirrored: HEIFTransform(irot: 3, imir: 0)
        case .left: HEIFTransform(irot: 1, imir: nil)
        }
    }

    /// The orientation of any `irot` then `imir` pair; nil for an `irot` outside 0–3 or an
    /// `imir` axis other than 0 or 1.
    public init?(heif transform: HEIFTransform) {
        let mirror = transform.imir.map { [HEIFItemTransform.mirror(axis: $0)] } ?? []
        self.init(heifTransforms: [.rotation(anticlockwiseQuarterTurns: transform.irot)] + mirror)
    }
}

/// `AVCaptureVideoOrientation` by raw value. `UIDeviceOrientation` shares raw values 1–4, but
/// its landscape names are the other way round: the device's landscapeLeft (raw 3) is the
/// capture's landscapeRight (raw 3).
public enum CaptureOrientation: Int, CaseIterable, Sendable, Hashable {
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeRight = 3
    case landscapeLeft = 4

    public var name: String {
        switch self {
        case .portrait: "portrait"
        case .portraitUpsideDown: "portraitUpsideDown"
        case .landscapeRight: "landscapeRight"
        case .landscapeLeft: "landscapeLeft"
        }
    }

    /// The `UIDeviceOrientation` name with the same raw value.
    public var deviceOrientationName: String {
        switch self {
        case .portrait: "portrait"
        case .portraitUpsideDown: "portraitUpsideDown"
        case .landscapeRight: "landscapeLeft"
        case .landscapeLeft: "landscapeRight"
        }
    }

    public init?(name: String) {
        guard let match = CaptureOrientation.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public init?(deviceOrientationName name: String) {
        guard let match = CaptureOrientation.allCases.first(where: { $0.deviceOrientationName == name }) else {
            return nil
        }
        self = match
    }
}

/// HEIF `irot` and `imir`, applied in that order.
public struct HEIFTransform: Sendable, Hashable {
    /// Counter-clockwise quarter turns, 0–3.
    public var irot: Int
    /// Mirror axis: nil for none, 0 top-bottom flip, 1 left-right mirror (ISO/IEC 23008-12:2022).
    public var imir: Int?

    public init(irot: Int, imir: Int?) {
        self.irot = irot
        self.imir = imir
    }
}
