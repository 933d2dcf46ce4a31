import CFreeType
import Synchronization
public import VidorientCore

/// A TrueType or OpenType face drawn through FreeType: captions in mixed case and any script the
/// face covers. One face serves every thread; FreeType faces are not thread-safe, so drawing is
/// serialised by a lock (a caption is a few hundred glyphs, far cheaper than the decode beside it).
public final class FreeTypeFont: TextRenderer, @unchecked Sendable {
    /// The font file this face was loaded from.
    public let path: String
    private let face: OpaquePointer
    private let lock = Mutex(())

    /// Loads the first face of the font file at `path`; nil when FreeType cannot read it, or is not
    /// installed (`unavailable` says so).
    public init?(path: String) {
        guard FreeTypeFont.unavailable == nil, let face = path.withPathCString({ vo_ft_face_open($0) }) else {
            return nil
        }
        self.path = path
        self.face = face
    }

    deinit { vo_ft_face_close(face) }

    /// Why FreeType cannot be used (`FreeType is not installed (libfreetype.so.6: ...)`), nil when
    /// it can. FreeType is opened the first time a caption needs it, never when the program starts
    /// (Sources/CFreeType/FreeTypeLoader.c).
    public static let unavailable: String? = {
        var error = [CChar](repeating: 0, count: 512)
        guard vo_freetype_load(&error, error.count) != 0 else { return nil }
        return String(cMessage: error)
    }()

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
        var ascender: Int32 = 0, descender: Int32 = 0
        guard vo_ft_set_pixel_size(face, UInt32(pixelSize), &ascender, &descender) == 0 else {
            return TextMask(width: 0, height: 0, coverage: [])
        }
        let height = max(1, Int(ascender) - Int(descender))

        // First pass: place every glyph; second: copy their bitmaps into one mask.
        struct Placed { var x: Int, top: Int, width: Int, rows: Int, pitch: Int, pixels: [UInt8] }
        var placed: [Placed] = []
        var pen = 0, right = 0
        var previous: UInt32 = 0
        for scalar in text.unicodeScalars {
            let index = vo_ft_glyph_index(face, scalar.value)
            if previous != 0, index != 0 { pen += Int(vo_ft_kerning(face, previous, index)) }
            previous = index
            var glyph = vo_ft_glyph()
            guard vo_ft_render_glyph(face, index, &glyph) == 0 else { continue }
            let (rows, width, pitch) = (Int(glyph.rows), Int(glyph.width), Int(glyph.pitch))
            if rows > 0, width > 0, let buffer = glyph.buffer, glyph.gray != 0, pitch > 0 {
                let pixels = Array(UnsafeBufferPointer(start: buffer, count: rows * pitch))
                let x = pen + Int(glyph.left)
                placed.append(
                    Placed(
                        x: x, top: Int(ascender) - Int(glyph.top), width: width, rows: rows, pitch: pitch,
                        pixels: pixels))
                right = max(right, x + width)
            }
            pen += Int(glyph.advance)
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
