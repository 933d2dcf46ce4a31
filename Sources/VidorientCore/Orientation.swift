/// One of the eight EXIF/TIFF orientations: the symmetries of a rectangle.
///
/// The raw value is the EXIF `Orientation` tag. Each case is what must be done to the stored
/// pixels to show them upright: an optional horizontal mirror, then a clockwise rotation.
/// Case names follow `CGImagePropertyOrientation`, whose raw values are the EXIF ones.
public enum Orientation: Int, CaseIterable, Sendable, Hashable, Codable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// The EXIF tag value, 1–8.
    public var exif: Int { rawValue }

    /// The orientation an EXIF tag value names; nil outside 1–8.
    public init?(exif: Int) { self.init(rawValue: exif) }

    /// Clockwise degrees (0, 90, 180 or 270) applied after the optional mirror.
    public var rotation: Int { quarterTurns * 90 }

    /// Whether the stored picture is mirrored horizontally before it is rotated.
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: true
        case .up, .down, .right, .left: false
        }
    }

    /// Clockwise quarter turns applied after the optional mirror.
    public var quarterTurns: Int {
        switch self {
        case .up, .upMirrored: 0
        case .right, .rightMirrored: 1
        case .down, .downMirrored: 2
        case .left, .leftMirrored: 3
        }
    }

    /// The orientation that mirrors (optionally) and then turns `rotation` degrees clockwise.
    /// Returns nil unless `rotation` is a multiple of 90 (any sign, any number of turns).
    public init?(rotation: Int, mirrored: Bool) {
        guard rotation % 90 == 0 else { return nil }
        self = RotationChoice(degrees: rotation, isRelative: false).orientation(mirrored: mirrored)
    }

    /// Whether width and height trade places on display.
    public var swapsDimensions: Bool { quarterTurns % 2 == 1 }

    /// The displayed size of a picture stored at `width`×`height`.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// The linear part of the transform from stored to displayed coordinates (y down), in tkhd
    /// order: `x' = a·x + c·y`, `y' = b·x + d·y`.
    public var linear: LinearMap {
        let mirror = isMirrored ? LinearMap.mirror : .identity
        var map = mirror
        for _ in 0..<quarterTurns { map = LinearMap.quarterTurnClockwise.after(map) }
        return map
    }

    /// The orientation whose linear map is `map`, or nil when `map` is not one of the eight.
    public init?(linear map: LinearMap) {
        guard let match = Orientation.allCases.first(where: { $0.linear == map }) else { return nil }
        self = match
    }

    /// `self` applied first, then `next`.
    public func followed(by next: Orientation) -> Orientation {
        Orientation(linear: next.linear.after(linear))!
    }

    /// The orientation that undoes this one.
    public var inverse: Orientation { Orientation(linear: linear.transposed)! }

    /// Where the stored pixel at column `x`, row `y` of a `width`×`height` picture lands on display.
    public func displayPixel(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let m = linear
        // Integer pixel indices: a negative coefficient counts back from the far edge.
        let offsetX = (m.a < 0 ? width - 1 : 0) + (m.c < 0 ? height - 1 : 0)
        let offsetY = (m.b < 0 ? width - 1 : 0) + (m.d < 0 ? height - 1 : 0)
        return (m.a * x + m.c * y + offsetX, m.b * x + m.d * y + offsetY)
    }

    /// What it does, in words: the one wording every command shows (issue 24: there were three).
    /// The turn is clockwise, after the mirror; EXIF's names for the mirrored turns follow.
    public var summary: String {
        switch self {
        case .up: "no rotation"
        case .upMirrored: "mirror"
        case .down: "rotate 180°"
        case .downMirrored: "mirror, then rotate 180° (flip vertical)"
        case .leftMirrored: "mirror, then rotate 270° clockwise (transpose)"
        case .right: "rotate 90° clockwise"
        case .rightMirrored: "mirror, then rotate 90° clockwise (transverse)"
        case .left: "rotate 270° clockwise"
        }
    }

    /// `EXIF 6: rotate 90° clockwise`: how every command names an orientation for a person
    /// (inspect, fix, normalize, orientation, thumbnail's captions). Made here only.
    public var phrase: String { "EXIF \(exif): \(summary)" }

    /// The phrase for a turn that may not be one of the eight (a video matrix's odd angle):
    /// `EXIF 6: rotate 90° clockwise`, or `no EXIF equivalent: rotate 30° clockwise`.
    public static func phrase(rotation: Double, mirrored: Bool) -> String {
        if rotation == rotation.rounded(), let whole = Int(exactly: rotation), whole % 90 == 0,
            let orientation = Orientation(rotation: whole, mirrored: mirrored)
        {
            return orientation.phrase
        }
        let degrees = rotation == rotation.rounded() && abs(rotation) < 1e9 ? String(Int(rotation)) : String(rotation)
        return "no EXIF equivalent: " + (mirrored ? "mirror, then " : "") + "rotate \(degrees)° clockwise"
    }
}

/// An integer 2×2 linear map in tkhd order: `x' = a·x + c·y`, `y' = b·x + d·y` (y points down).
public struct LinearMap: Sendable, Hashable {
    public var a: Int, b: Int, c: Int, d: Int

    public static let identity = LinearMap(a: 1, b: 0, c: 0, d: 1)
    /// `x' = -x`: the horizontal mirror.
    public static let mirror = LinearMap(a: -1, b: 0, c: 0, d: 1)
    /// `x' = -y`, `y' = x`: a quarter turn clockwise on a y-down screen.
    public static let quarterTurnClockwise = LinearMap(a: 0, b: 1, c: -1, d: 0)

    /// `first` applied, then `self`.
    public func after(_ first: LinearMap) -> LinearMap {
        LinearMap(
            a: a * first.a + c * first.b,
            b: b * first.a + d * first.b,
            c: a * first.c + c * first.d,
            d: b * first.c + d * first.d)
    }

    public var transposed: LinearMap { LinearMap(a: a, b: c, c: b, d: d) }
    public var determinant: Int { a * d - b * c }
}
