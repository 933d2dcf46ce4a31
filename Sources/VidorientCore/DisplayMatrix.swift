/// A 3×3 display transformation in ISO-BMFF `tkhd` order `[a, b, u, c, d, v, tx, ty, w]`:
/// `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty` (y points down). FFmpeg's display matrix and
/// CGAffineTransform `(a, b, c, d, tx, ty)` use the same layout.
public struct DisplayMatrix: Sendable, Hashable {
    public var a: Double, b: Double, u: Double
    public var c: Double, d: Double, v: Double
    public var tx: Double, ty: Double, w: Double

    public static let identity = DisplayMatrix([1, 0, 0, 0, 1, 0, 0, 0, 1])!

    /// Nine entries in tkhd order; nil unless there are exactly nine.
    public init?(_ entries: [Double]) {
        guard entries.count == 9 else { return nil }
        (a, b, u) = (entries[0], entries[1], entries[2])
        (c, d, v) = (entries[3], entries[4], entries[5])
        (tx, ty, w) = (entries[6], entries[7], entries[8])
    }

    /// A CGAffineTransform's six numbers (`u`, `v` are 0 and `w` is 1).
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double = 0, ty: Double = 0) {
        self.init([a, b, 0, c, d, 0, tx, ty, 1])!
    }

    /// Fixed-point entries as stored in `tkhd` and in FFmpeg's display matrix side data:
    /// 16.16 for a, b, c, d, tx, ty and 2.30 for u, v, w.
    public init?(fixedPoint entries: [Int32]) {
        guard entries.count == 9 else { return nil }
        self.init(entries.enumerated().map { Double($1) / DisplayMatrix.fixedPointScale(at: $0) })
    }

    public var entries: [Double] { [a, b, u, c, d, v, tx, ty, w] }

    /// The entries in fixed point (16.16, and 2.30 for u, v, w), rounded to nearest and clamped.
    public var fixedPoint: [Int32] {
        entries.enumerated().map { index, value in
            let scaled = (value * DisplayMatrix.fixedPointScale(at: index)).rounded()
            guard scaled.isFinite else { return 0 }
            return Int32(max(Double(Int32.min), min(Double(Int32.max), scaled)))
        }
    }

    private static func fixedPointScale(at index: Int) -> Double {
        index % 3 == 2 ? 1_073_741_824 : 65_536
    }

    /// The matrix Apple writes for `orientation` on a picture stored at `width`×`height`: the
    /// linear part of the orientation plus the translation that keeps the picture at the origin.
    public init(_ orientation: Orientation, width: Int, height: Int) {
        let m = orientation.linear
        let w = Double(width), h = Double(height)
        let tx = (m.a < 0 ? w : 0) + (m.c < 0 ? h : 0)
        let ty = (m.b < 0 ? w : 0) + (m.d < 0 ? h : 0)
        self.init(a: Double(m.a), b: Double(m.b), c: Double(m.c), d: Double(m.d), tx: tx, ty: ty)
    }

    public var isFinite: Bool { entries.allSatisfy(\.isFinite) }
    public var determinant: Double { a * d - b * c }
    public var isIdentity: Bool { self == .identity }

    /// `first` applied, then `self` (the affine parts; u, v, w are carried from `self`).
    public func after(_ first: DisplayMatrix) -> DisplayMatrix {
        DisplayMatrix(
            a: a * first.a + c * first.b,
            b: b * first.a + d * first.b,
            c: a * first.c + c * first.d,
            d: b * first.c + d * first.d,
            tx: a * first.tx + c * first.ty + tx,
            ty: b * first.tx + d * first.ty + ty)
    }

    /// What `ffprobe` prints as `rotation` for this matrix: FFmpeg's `av_display_rotation_get`
    /// (counter-clockwise degrees, mirrors ignored) truncated to an integer as ffprobe's
    /// `print_int` does. nil where FFmpeg returns NaN (a zero column).
    public var ffprobeRotation: Int? {
        let scaleX = hypot(a, c), scaleY = hypot(b, d)
        guard scaleX != 0, scaleY != 0, isFinite else { return nil }
        let degrees = -atan2(b / scaleY, a / scaleX) * 180 / Double.pi
        guard degrees.isFinite else { return nil }
        return Int(degrees)
    }

    /// Tolerance for snapping a normalised entry to 0 or ±1, and a scale to 1. 16.16 fixed point
    /// resolves 1.5e-5; some muxers round cos/sin further. 1e-3 is about 0.06°.
    public static let tolerance = 1e-3

    /// What the matrix does to the picture.
    public var analysis: MatrixAnalysis { MatrixAnalysis(self) }
}

/// What a display matrix does, decoded the way AVFoundation's `preferredTransform` is read in
/// practice, generalised: scale is divided out, entries near 0/±1 snap to one of the eight
/// orientations, and anything else is described rather than guessed.
public struct MatrixAnalysis: Sendable, Hashable {
    public enum Validity: String, Sendable, Hashable, Codable {
        case valid
        /// An entry is NaN or infinite.
        case nonFinite = "non_finite"
        /// The 2×2 part has no inverse: the picture collapses to a line or a point.
        case singular
    }

    public let validity: Validity
    /// One of the eight, when the matrix is a right-angle rotation with an optional mirror.
    public let orientation: Orientation?
    /// Clockwise degrees after the optional mirror, in [0, 360); exact, not snapped.
    public let rotation: Double?
    public let mirrored: Bool?
    /// Lengths of the two columns of the 2×2 part (x and y scale).
    public let scale: [Double]?
    /// Degrees by which the two axes are off perpendicular (0 means no shear).
    public let shear: Double?
    public let translation: [Double]
    /// u and v are not 0, or w is not 1: a perspective term QuickTime does not allow.
    public let isProjective: Bool

    public var hasNonUnitScale: Bool {
        scale.map { $0.contains { abs($0 - 1) > DisplayMatrix.tolerance } } ?? false
    }
    public var isSheared: Bool { shear.map { abs($0) > DisplayMatrix.tolerance * 180 / .pi } ?? false }
    /// The rotation is not within tolerance of a multiple of 90°.
    public var isOddAngle: Bool { rotation != nil && orientation == nil && !isSheared }

    public init(_ m: DisplayMatrix) {
        translation = [m.tx, m.ty]
        isProjective =
            abs(m.u) > DisplayMatrix.tolerance || abs(m.v) > DisplayMatrix.tolerance
            || abs(m.w - 1) > DisplayMatrix.tolerance
        guard m.isFinite else {
            (validity, orientation, rotation, mirrored, scale, shear) = (.nonFinite, nil, nil, nil, nil, nil)
            return
        }
        let scaleX = hypot(m.a, m.b), scaleY = hypot(m.c, m.d)
        let det = m.determinant
        guard scaleX > 0, scaleY > 0, abs(det) > 1e-9 * scaleX * scaleY else {
            (validity, orientation, rotation, mirrored, scale, shear) = (.singular, nil, nil, nil, nil, nil)
            return
        }
        validity = .valid
        scale = [scaleX, scaleY]
        let isMirrored = det < 0
        mirrored = isMirrored
        // Columns (a, b) and (c, d) are the images of the x and y axes; their angle is 90° unsheared.
        let cosine = (m.a * m.c + m.b * m.d) / (scaleX * scaleY)
        shear = asin(max(-1, min(1, cosine))) * 180 / .pi
        // Undo the mirror (x' = -x) so that the rest is a rotation: the x axis goes to ±(a, b).
        let (ax, ay) = isMirrored ? (-m.a / scaleX, -m.b / scaleX) : (m.a / scaleX, m.b / scaleX)
        var degrees = atan2(ay, ax) * 180 / .pi
        if degrees < 0 { degrees += 360 }
        if degrees >= 360 { degrees -= 360 }
        rotation = degrees
        let snapped = [m.a / scaleX, m.b / scaleX, m.c / scaleY, m.d / scaleY].map { value -> Int? in
            for target in [-1.0, 0, 1] where abs(value - target) <= DisplayMatrix.tolerance { return Int(target) }
            return nil
        }
        if snapped.allSatisfy({ $0 != nil }) {
            let map = LinearMap(a: snapped[0]!, b: snapped[1]!, c: snapped[2]!, d: snapped[3]!)
            orientation = Orientation(linear: map)
        } else {
            orientation = nil
        }
    }
}

extension DisplayMatrix {
    /// Nine entries as a person reads them, a row at a time (`0 1 0 | -1 0 0 | 1080 0 1`): whole
    /// numbers as such, others to four decimals. inspect and fix show matrices so.
    public static func text(_ entries: [Double]) -> String {
        let number = { (value: Double) in
            value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : value.text(decimals: 4)
        }
        return stride(from: 0, to: entries.count, by: 3).map {
            entries[$0..<min($0 + 3, entries.count)].map(number).joined(separator: " ")
        }.joined(separator: " | ")
    }
}
