/// A 5×7 bitmap font, enough for file names, sizes, times and orientations in contact sheets
/// and comparison pictures without a font library. Letters print in capitals.
enum BitmapFont {
    static let glyphWidth = 5
    static let glyphHeight = 7

    /// Seven rows a glyph, five bits a row, the high bit on the left.
    static let glyphs: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        "A": [0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        "x": [0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11], " ": [0, 0, 0, 0, 0, 0, 0],
        ".": [0, 0, 0, 0, 0, 0x0C, 0x0C], ",": [0, 0, 0, 0, 0x0C, 0x04, 0x08], ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0],
        "-": [0, 0, 0, 0x1F, 0, 0, 0], "_": [0, 0, 0, 0, 0, 0, 0x1F], "(": [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ")": [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08], "/": [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0],
        "%": [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03], "+": [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
        "=": [0, 0, 0x1F, 0, 0x1F, 0, 0], "°": [0x0C, 0x12, 0x12, 0x0C, 0, 0, 0], "'": [0x0C, 0x04, 0x08, 0, 0, 0, 0],
        "?": [0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04],
    ]

    static func glyph(_ character: Character) -> [UInt8] {
        glyphs[character] ?? glyphs[Character(character.uppercased())] ?? glyphs["?"]!
    }
}

extension Picture {
    /// Width in pixels of `text` drawn at `scale`.
    public static func textWidth(_ text: String, scale: Int) -> Int {
        text.isEmpty ? 0 : text.count * (BitmapFont.glyphWidth + 1) * scale - scale
    }

    /// Draws `text` with its top-left corner at (`x`, `y`), clipped to the picture.
    public mutating func draw(_ text: String, x: Int, y: Int, scale: Int = 2, color: RGB = RGB(255, 255, 255)) {
        var penX = x
        for character in text {
            let rows = BitmapFont.glyph(character)
            for (row, bits) in rows.enumerated() {
                for column in 0..<BitmapFont.glyphWidth where bits & (0x10 >> UInt8(column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px = penX + column * scale + dx, py = y + row * scale + dy
                            if (0..<width).contains(px) && (0..<height).contains(py) { self[px, py] = color }
                        }
                    }
                }
            }
            penX += (BitmapFont.glyphWidth + 1) * scale
        }
    }

    /// Lines of text on a dark band, as wide as `width`: at `scale`, or smaller when a line
    /// would not fit; a line too long even then is cut with "..".
    public static func band(_ lines: [String], width: Int, scale: Int = 2) -> Picture {
        let widest = lines.map(\.count).max() ?? 0
        var scale = max(1, scale)
        while scale > 1 && textWidth(String(repeating: " ", count: widest), scale: scale) + 4 * scale > width { scale -= 1 }
        let lineHeight = (BitmapFont.glyphHeight + 3) * scale
        var band = Picture(width: width, height: lines.count * lineHeight + 2 * scale, fill: RGB(24, 24, 24))
        let fits = max(1, (width - 2 * scale) / ((BitmapFont.glyphWidth + 1) * scale))
        for (index, line) in lines.enumerated() {
            let shown = line.count <= fits ? line : String(line.prefix(max(0, fits - 2))) + ".."
            band.draw(shown, x: 2 * scale, y: scale * 2 + index * lineHeight, scale: scale)
        }
        return band
    }

    /// This picture with `lines` of text on a band above it.
    public func captioned(_ lines: [String], scale: Int = 2) -> Picture {
        let band = Picture.band(lines, width: width, scale: scale)
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
