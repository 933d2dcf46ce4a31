/// An 8-bit RGB picture, rows top to bottom, three bytes a pixel, no padding.
public struct Picture: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 3, "pixel count must match the size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The size only: test failures and logs must not print every pixel.
    public var description: String { "Picture(\(width)x\(height))" }

    /// A picture filled with one colour.
    public init(width: Int, height: Int, fill: RGB = RGB(0, 0, 0)) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        if fill != RGB(0, 0, 0) {
            for i in stride(from: 0, to: pixels.count, by: 3) {
                pixels[i] = fill.red
                pixels[i + 1] = fill.green
                pixels[i + 2] = fill.blue
            }
        }
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> RGB {
        get {
            let i = (y * width + x) * 3
            return RGB(pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.red
            pixels[i + 1] = newValue.green
            pixels[i + 2] = newValue.blue
        }
    }

    /// The picture as `orientation` displays it: every pixel moved exactly, no resampling.
    public func oriented(_ orientation: Orientation) -> Picture {
        if orientation == .up { return self }
        let size = orientation.displaySize(width: width, height: height)
        let moved = UprightTransform(orientation).apply(to: pixels, width: width, height: height, bytesPerPixel: 3)
        return Picture(width: size.width, height: size.height, pixels: moved)
    }

    /// The picture turned `degrees` clockwise about its centre onto its bounding box, sampled
    /// bilinearly; corners outside the picture are `background`.
    public func rotated(clockwise degrees: Double, mirrored: Bool = false, background: RGB = RGB(0, 0, 0)) -> Picture {
        let radians = degrees * Double.pi / 180
        let (c, s) = (cos(radians), sin(radians))
        let w = Double(width), h = Double(height)
        let outWidth = max(1, Int((abs(w * c) + abs(h * s)).rounded()))
        let outHeight = max(1, Int((abs(w * s) + abs(h * c)).rounded()))
        var out = Picture(width: outWidth, height: outHeight, fill: background)
        let (cx, cy) = (w / 2, h / 2)
        let (ox, oy) = (Double(outWidth) / 2, Double(outHeight) / 2)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                // Inverse map: undo the clockwise turn (y down), then the mirror.
                let px = Double(x) + 0.5 - ox, py = Double(y) + 0.5 - oy
                var sx = c * px + s * py
                let sy = -s * px + c * py
                if mirrored { sx = -sx }
                let fx = sx + cx - 0.5, fy = sy + cy - 0.5
                guard fx >= -0.5, fy >= -0.5, fx <= w - 0.5, fy <= h - 0.5 else { continue }
                out[x, y] = sample(x: fx, y: fy)
            }
        }
        return out
    }

    /// Bilinear sample at a real position, clamped to the edges.
    func sample(x: Double, y: Double) -> RGB {
        let x0 = max(0, min(width - 1, Int(x.rounded(.down))))
        let y0 = max(0, min(height - 1, Int(y.rounded(.down))))
        let x1 = min(width - 1, x0 + 1), y1 = min(height - 1, y0 + 1)
        let fx = max(0, min(1, x - Double(x0))), fy = max(0, min(1, y - Double(y0)))
        func mix(_ channel: (RGB) -> UInt8) -> UInt8 {
            let top = Double(channel(self[x0, y0])) * (1 - fx) + Double(channel(self[x1, y0])) * fx
            let bottom = Double(channel(self[x0, y1])) * (1 - fx) + Double(channel(self[x1, y1])) * fx
            return UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
        }
        return RGB(mix(\.red), mix(\.green), mix(\.blue))
    }

    /// Copies `picture` with its top-left corner at (`x`, `y`), clipped to this picture.
    public mutating func paste(_ picture: Picture, x: Int, y: Int) {
        for row in 0..<picture.height where (0..<height).contains(y + row) {
            let columns = max(0, -x)..<min(picture.width, width - x)
            guard !columns.isEmpty else { continue }
            let source = (row * picture.width + columns.lowerBound) * 3
            let target = ((y + row) * width + x + columns.lowerBound) * 3
            pixels.replaceSubrange(
                target..<target + columns.count * 3, with: picture.pixels[source..<source + columns.count * 3])
        }
    }

    /// Mean luma (0–255) and its standard deviation: a black or flat frame has a low deviation.
    public var lumaStatistics: (mean: Double, deviation: Double) {
        guard width > 0, height > 0 else { return (0, 0) }
        var sum = 0.0, squares = 0.0
        // Every fourth pixel in each direction is plenty for a verdict on a thumbnail.
        let step = max(1, min(width, height) / 64)
        var count = 0.0
        for y in stride(from: 0, to: height, by: step) {
            for x in stride(from: 0, to: width, by: step) {
                let p = self[x, y]
                let luma = 0.2126 * Double(p.red) + 0.7152 * Double(p.green) + 0.0722 * Double(p.blue)
                sum += luma
                squares += luma * luma
                count += 1
            }
        }
        let mean = sum / count
        return (mean, (max(0, squares / count - mean * mean)).squareRoot())
    }
}

public struct RGB: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8, green: UInt8, blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public var description: String { "rgb(\(red), \(green), \(blue))" }

    /// The largest per-channel difference.
    public func distance(to other: RGB) -> Int {
        max(
            abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)), abs(Int(blue) - Int(other.blue)))
    }
}
