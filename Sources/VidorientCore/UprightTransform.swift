/// The one pixel operation that takes a picture's stored pixels to the ones `Orientation`
/// displays, named as libjpeg-turbo's lossless transforms (and jpegtran's options) name them.
/// `normalize` applies it to the pixels and then sets the orientation to 1, so the file shows
/// exactly what it showed before.
public enum UprightTransform: String, Sendable, Hashable, Codable, CaseIterable {
    case none
    /// Mirror left to right (`jpegtran -flip horizontal`).
    case flipHorizontal = "flip_horizontal"
    /// Mirror top to bottom (`jpegtran -flip vertical`).
    case flipVertical = "flip_vertical"
    /// Mirror about the top-left to bottom-right diagonal (`jpegtran -transpose`).
    case transpose
    /// Mirror about the top-right to bottom-left diagonal (`jpegtran -transverse`).
    case transverse
    /// A quarter turn clockwise (`jpegtran -rotate 90`).
    case rotate90 = "rotate_90"
    case rotate180 = "rotate_180"
    /// A quarter turn anticlockwise (`jpegtran -rotate 270`).
    case rotate270 = "rotate_270"

    /// The transform that moves stored pixels to where `orientation` shows them.
    public init(_ orientation: Orientation) {
        switch orientation {
        case .up: self = .none
        case .upMirrored: self = .flipHorizontal
        case .down: self = .rotate180
        case .downMirrored: self = .flipVertical
        case .leftMirrored: self = .transpose
        case .right: self = .rotate90
        case .rightMirrored: self = .transverse
        case .left: self = .rotate270
        }
    }

    /// The orientation whose display this transform performs.
    public var orientation: Orientation {
        Orientation.allCases.first { UprightTransform($0) == self }!
    }

    /// True when width and height trade places.
    public var swapsAxes: Bool { orientation.swapsDimensions }

    /// Moves every pixel of a `width`×`height` grid of `bytesPerPixel`-byte pixels (rows top to
    /// bottom, no padding) to where the orientation shows it. Any pixel layout works (RGBA,
    /// 16-bit, palette indices): pixels are moved whole, never looked into.
    public func apply(to pixels: [UInt8], width: Int, height: Int, bytesPerPixel: Int) -> [UInt8] {
        precondition(pixels.count == width * height * bytesPerPixel, "pixel count must match the size")
        if self == .none { return pixels }
        let displayWidth = swapsAxes ? height : width
        let m = orientation.linear
        let offsetX = (m.a < 0 ? width - 1 : 0) + (m.c < 0 ? height - 1 : 0)
        let offsetY = (m.b < 0 ? width - 1 : 0) + (m.d < 0 ? height - 1 : 0)
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    for x in 0..<width {
                        let dx = m.a * x + m.c * y + offsetX
                        let dy = m.b * x + m.d * y + offsetY
                        let s = (y * width + x) * bytesPerPixel
                        let t = (dy * displayWidth + dx) * bytesPerPixel
                        // RGB, the most common, spelled out: a loop of three per pixel is slower.
                        if bytesPerPixel == 3 {
                            (target[t], target[t + 1], target[t + 2]) = (source[s], source[s + 1], source[s + 2])
                        } else {
                            for k in 0..<bytesPerPixel { target[t + k] = source[s + k] }
                        }
                    }
                }
            }
        }
        return out
    }
}
