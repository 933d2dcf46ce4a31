import CFreeType
import Synchronization
public import VidorientCore

/// A TrueType or OpenType face drawn through FreeType: captions in mixed case and any script the
/// face covers. One face serves every thread; FreeType faces are not thread-safe, so drawing is
/// serialised by a lock (a caption is a few hundred glyphs, far cheaper than the decode beside it).
public final class FreeTypeFont: TextRenderer, @unchecked Sendable {
    /// The font file this face was loaded from.
    public let path: String
    private let library: FT_Library
    private let face: FT_Face
    private let lock = Mutex(())

    /// Loads the first face of the font file at `path`; nil when FreeType cannot read it.
    public init?(path: String) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return nil }
        var face: FT_Face?
        guard path.withPathCString({ FT_New_Face(library, $0, 0, &face) }) == 0, let face else {
            FT_Done_FreeType(library)
            return nil
        }
        self.path = path
        self.library = library
        self.face = face
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// Where a sans-serif face is looked for, in order: `VIDORIENT_FONT`, then DejaVu Sans
    /// (Debian's `fonts-dejavu-core`), then the same and other common sans faces where other
    /// distributions put them.
    public static let searchPaths = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
        "/usr/share/fonts/noto/NotoSans-Regular.ttf",
    ]

    /// The caption face: the first of `searchPaths` that loads, after `VIDORIENT_FONT` when set.
    /// Nil when no font is installed; callers then leave captions out and say so.
    public static let system: FreeTypeFont? = {
        var candidates = searchPaths
        if let chosen = getenv("VIDORIENT_FONT"), chosen.pointee != 0 {
            // A font the user named wins; when it does not load, none is chosen silently instead.
            return FreeTypeFont(path: String(cString: chosen))
        }
        candidates.removeAll { $0.withPathCString { access($0, R_OK) } != 0 }
        return candidates.lazy.compactMap { FreeTypeFont(path: $0) }.first
    }()

    public func mask(_ text: String, pixelSize: Int) -> TextMask {
        lock.withLock { _ in render(text, pixelSize: max(1, pixelSize)) }
    }

    private func render(_ text: String, pixelSize: Int) -> TextMask {
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize)) == 0, let size = face.pointee.size else {
            return TextMask(width: 0, height: 0, coverage: [])
        }
        let ascender = Int(size.pointee.metrics.ascender >> 6)
        let descender = Int(size.pointee.metrics.descender >> 6)
        let height = max(1, ascender - descender)
        let kerning = vidorient_ft_has_kerning(face) != 0

        // First pass: place every glyph; second: copy their bitmaps into one mask.
        struct Placed { var x: Int, top: Int, width: Int, rows: Int, pitch: Int, pixels: [UInt8] }
        var placed: [Placed] = []
        var pen = 0, right = 0
        var previous: FT_UInt = 0
        for scalar in text.unicodeScalars {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if kerning, previous != 0, index != 0 {
                var delta = FT_Vector()
                if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_DEFAULT.rawValue), &delta) == 0 {
                    pen += Int(delta.x >> 6)
                }
            }
            previous = index
            guard FT_Load_Glyph(face, index, vidorient_ft_load_render()) == 0, let glyph = face.pointee.glyph else {
                continue
            }
            let bitmap = glyph.pointee.bitmap
            let (rows, width, pitch) = (Int(bitmap.rows), Int(bitmap.width), Int(bitmap.pitch))
            if rows > 0, width > 0, let buffer = bitmap.buffer,
                bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue), pitch > 0
            {
                let pixels = Array(UnsafeBufferPointer(start: buffer, count: rows * pitch))
                let x = pen + Int(glyph.pointee.bitmap_left)
                placed.append(
                    Placed(
                        x: x, top: ascender - Int(glyph.pointee.bitmap_top), width: width, rows: rows, pitch: pitch,
                        pixels: pixels))
                right = max(right, x + width)
            }
            pen += Int(glyph.pointee.advance.x >> 6)
            right = max(right, pen)
        }
        let left = min(0, placed.map(\.x).min() ?? 0)
        let width = right - left
        var coverage = [UInt8](repeating: 0, count: width * height)
        for glyph in placed {
            for row in 0..<glyph.rows where (0..<height).contains(glyph.top + row) {
                for column in 0..<glyph.width {
                    let value = glyph.pixels[row * glyph.pitch + column]
                    let target = (glyph.top + row) * width + glyph.x - left + column
                    coverage[target] = max(coverage[target], value)
                }
            }
        }
        return TextMask(width: width, height: height, coverage: coverage)
    }
}
