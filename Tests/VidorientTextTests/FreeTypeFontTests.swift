import Testing
import VidorientCore
import VidorientText

@Suite struct FreeTypeFontTests {
    /// DejaVu Sans, as `.ci/setup` installs it (fonts-dejavu-core).
    static let font = FreeTypeFont.system

    @Test func aSystemFontIsFound() throws {
        let font = try #require(Self.font)
        #expect(font.path.hasSuffix(".ttf"))
    }

    @Test func linesOfOneSizeShareTheirHeight() throws {
        let font = try #require(Self.font)
        let heights = Set(["Hello", "gjpqy", "ÉÅÇ", "x", ""].map { font.mask($0, pixelSize: 14).height })
        #expect(heights.count == 1)
        #expect(try #require(heights.first) >= 14)
        #expect(font.mask("Hello", pixelSize: 28).height > font.mask("Hello", pixelSize: 14).height)
    }

    @Test func lowerCaseIsNotUpperCase() throws {
        let font = try #require(Self.font)
        let lower = font.mask("sample", pixelSize: 16), upper = font.mask("SAMPLE", pixelSize: 16)
        #expect(lower != upper)
        #expect(lower.width < upper.width)
        // Ink: lower-case letters have less of it than capitals.
        #expect(ink(lower) < ink(upper))
    }

    @Test(arguments: ["é", "ø", "ß", "ж", "λ"])
    func accentedAndOtherScriptsHaveTheirOwnGlyphs(_ letter: String) throws {
        let font = try #require(Self.font)
        let mask = font.mask(letter, pixelSize: 20)
        #expect(mask.width > 0 && ink(mask) > 0)
        // Not the face's missing-glyph box: that one is the same for every unknown character.
        let missing = font.mask("\u{E000}", pixelSize: 20)
        #expect(mask != missing)
    }

    @Test func inkIsWhereTheTextIs() throws {
        let font = try #require(Self.font)
        let mask = font.mask("|", pixelSize: 20)
        var picture = Picture(width: mask.width + 10, height: mask.height, fill: RGB(0, 0, 0))
        picture.draw(mask, x: 10, y: 0, color: RGB(255, 255, 0))
        let columns = (0..<picture.width).filter { x in (0..<picture.height).contains { picture[x, $0].red > 128 } }
        #expect(!columns.isEmpty)
        #expect(columns.allSatisfy { $0 >= 10 })
        // Yellow over black: the blue channel is untouched everywhere.
        #expect((0..<picture.height).allSatisfy { y in (0..<picture.width).allSatisfy { picture[$0, y].blue == 0 } })
    }

    @Test func aBandKeepsItsWidthAndCutsWhatDoesNotFit() throws {
        let font = try #require(Self.font)
        let long = String(repeating: "Ünïcødé file name ", count: 12) + ".mp4"
        let band = Picture.band(["short", long], width: 200, pixelSize: 14, renderer: font)
        #expect(band.width == 200)
        // The long line is cut with an ellipsis: its mask is no wider than the band's inside.
        let cut = Picture.fitted(long, width: 190, pixelSize: 8, renderer: font)
        #expect(cut.width <= 190 && cut.width > 100)
        // The last column of the band (its right padding) has no ink.
        #expect((0..<band.height).allSatisfy { band[199, $0] == RGB(24, 24, 24) })
    }

    @Test func aMissingFontFileIsNil() {
        #expect(FreeTypeFont(path: "/nonexistent/font.ttf") == nil)
        #expect(FreeTypeFont(path: "/etc/hostname") == nil)
    }

    func ink(_ mask: TextMask) -> Int { mask.coverage.reduce(0) { $0 + Int($1) } }
}
