/// Lines of text as 8-bit coverage masks. Core lays captions out but draws no glyphs itself:
/// the font library lives in `VidorientText`, so Core stays free of C libraries.
public protocol TextRenderer: Sendable {
    /// `text` on one line at `pixelSize` (the em size in pixels). Every mask of one size has the
    /// same height, the font's line height, with the baseline at the same row, so lines stack.
    func mask(_ text: String, pixelSize: Int) -> TextMask
}

/// Coverage of one line of text: 0 is background, 255 is ink; rows top to bottom.
public struct TextMask: Sendable, Hashable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    public var coverage: [UInt8]

    public init(width: Int, height: Int, coverage: [UInt8]) {
        precondition(width >= 0 && height >= 0 && coverage.count == width * height, "coverage must match the size")
        self.width = width
        self.height = height
        self.coverage = coverage
    }

    public var description: String { "TextMask(\(width)x\(height))" }
}

extension Picture {
    /// Blends `color` through `mask` with its top-left corner at (`x`, `y`), clipped to the picture.
    public mutating func draw(_ mask: TextMask, x: Int, y: Int, color: RGB = RGB(255, 255, 255)) {
        for row in 0..<mask.height where (0..<height).contains(y + row) {
            for column in 0..<mask.width where (0..<width).contains(x + column) {
                let alpha = Int(mask.coverage[row * mask.width + column])
                guard alpha > 0 else { continue }
                let under = self[x + column, y + row]
                func mix(_ a: UInt8, _ b: UInt8) -> UInt8 {
                    UInt8((Int(a) * (255 - alpha) + Int(b) * alpha + 127) / 255)
                }
                self[x + column, y + row] = RGB(
                    mix(under.red, color.red), mix(under.green, color.green), mix(under.blue, color.blue))
            }
        }
    }

    /// Draws `text` with its top-left corner at (`x`, `y`) at `pixelSize`, clipped to the picture.
    public mutating func draw(
        _ text: String, x: Int, y: Int, pixelSize: Int, renderer: any TextRenderer, color: RGB = RGB(255, 255, 255)
    ) {
        draw(renderer.mask(text, pixelSize: pixelSize), x: x, y: y, color: color)
    }

    /// Lines of text on a dark band, as wide as `width`: at `pixelSize`, or smaller (down to 8
    /// pixels) when a line would not fit; a line too long even then is cut and ends in "…".
    public static func band(_ lines: [String], width: Int, pixelSize: Int = 14, renderer: any TextRenderer)
        -> Picture
    {
        let padding = max(2, pixelSize / 3)
        var size = max(8, pixelSize)
        var masks = lines.map { renderer.mask($0, pixelSize: size) }
        while size > 8, (masks.map(\.width).max() ?? 0) + 2 * padding > width {
            size -= 1
            masks = lines.map { renderer.mask($0, pixelSize: size) }
        }
        for (index, mask) in masks.enumerated() where mask.width + 2 * padding > width {
            masks[index] = fitted(lines[index], width: width - 2 * padding, pixelSize: size, renderer: renderer)
        }
        let lineHeight = masks.map(\.height).max() ?? 0
        var band = Picture(width: width, height: masks.count * lineHeight + 2 * padding, fill: RGB(24, 24, 24))
        for (index, mask) in masks.enumerated() {
            band.draw(mask, x: padding, y: padding + index * lineHeight)
        }
        return band
    }

    /// The longest prefix of `text` that, with "…", fits `width`; found by halving.
    public static func fitted(_ text: String, width: Int, pixelSize: Int, renderer: any TextRenderer) -> TextMask {
        let characters = Array(text)
        var (low, high) = (0, characters.count)
        var best = renderer.mask("…", pixelSize: pixelSize)
        while low < high {
            let middle = (low + high + 1) / 2
            let mask = renderer.mask(String(characters[..<middle]) + "…", pixelSize: pixelSize)
            if mask.width <= width {
                (low, best) = (middle, mask)
            } else {
                high = middle - 1
            }
        }
        return best
    }

    /// This picture with `lines` of text on a band above it.
    public func captioned(_ lines: [String], pixelSize: Int = 14, renderer: any TextRenderer) -> Picture {
        let band = Picture.band(lines, width: width, pixelSize: pixelSize, renderer: renderer)
        var out = Picture(width: width, height: band.height + height)
        out.paste(band, x: 0, y: 0)
        out.paste(self, x: 0, y: band.height)
        return out
    }
    /// Pictures side by side on a dark background, tops aligned, `gap` pixels apart.
    public static func sideBySide(_ pictures: [Picture], gap: Int = 8, background: RGB = RGB(24, 24, 24)) -> Picture {
        let width = pictures.map(\.width).reduce(0, +) + gap * max(0, pictures.count - 1)
        let height = pictures.map(\.height).max() ?? 0
        var out = Picture(width: width, height: height, fill: background)
        var x = 0
        for picture in pictures {
            out.paste(picture, x: x, y: 0)
            x += picture.width + gap
        }
        return out
    }

    /// Pictures in a grid of `columns`, each cell the size of the largest, centred.
    public static func grid(_ pictures: [Picture], columns: Int, gap: Int = 4, background: RGB = RGB(24, 24, 24))
        -> Picture
    {
        let columns = max(1, columns)
        let cellWidth = pictures.map(\.width).max() ?? 0
        let cellHeight = pictures.map(\.height).max() ?? 0
        let rows = (pictures.count + columns - 1) / columns
        var out = Picture(
            width: columns * cellWidth + (columns + 1) * gap, height: rows * cellHeight + (rows + 1) * gap,
            fill: background)
        for (index, picture) in pictures.enumerated() {
            let column = index % columns, row = index / columns
            out.paste(
                picture, x: gap + column * (cellWidth + gap) + (cellWidth - picture.width) / 2,
                y: gap + row * (cellHeight + gap) + (cellHeight - picture.height) / 2)
        }
        return out
    }
}
