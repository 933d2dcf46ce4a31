import Testing
import VidorientCore

/// Each value a person types is read once, by its own type; a refusal says what was expected.
@Suite struct ArgumentValueTests {
    @Test(arguments: [
        ("1920x1080", 1920, 1080), ("1X1", 1, 1), ("32767x32767", 32767, 32767), ("320x240", 320, 240),
    ])
    func sizesRead(text: String, width: Int, height: Int) throws {
        #expect(try PixelSize.parse(text) == PixelSize(width: width, height: height))
    }

    @Test(arguments: [
        "", "x", "1920", "1920x", "x1080", "0x10", "10x0", "-1x10", "32768x10", "1x2x3", "12xx34", "a x b",
        "9223372036854775807x9223372036854775807", " 1x1",
    ])
    func badSizesAreRefused(text: String) {
        #expect(throws: ValueError("must be WxH with each side 1-32767, for example 1920x1080")) {
            try PixelSize.parse(text)
        }
    }

    @Test func aSmallerLargestSideIsTheLimit() throws {
        #expect(try PixelSize.parse("16384x1", largestSide: 16384).width == 16384)
        #expect(throws: ValueError("must be WxH with each side 1-16384, for example 1920x1080")) {
            try PixelSize.parse("16385x1", largestSide: 16384)
        }
    }

    @Test func gridsRead() throws {
        #expect(try ContactSheetGrid.parse("4x3") == ContactSheetGrid(columns: 4, rows: 3))
        #expect(try ContactSheetGrid.parse("20X20").description == "20x20")
        for bad in ["0x3", "21x1", "4", "4x3x2", ""] {
            #expect(throws: ValueError.self, "\(bad)") { try ContactSheetGrid.parse(bad) }
        }
    }

    @Test(arguments: [
        ("12.5", TimePoint.seconds(12.5)), ("2:03", .seconds(123)), ("01:02:03.25", .seconds(3723.25)),
        ("25%", .fraction(0.25)),
        ("1000000", .seconds(1_000_000)),
    ])
    func timesRead(text: String, point: TimePoint) throws {
        #expect(try TimePoint.parse(text) == point)
    }

    @Test(arguments: ["-1", "1e18", "1000001", "99999999:00", "1:60", "101%", "nan", "inf", ""])
    func badTimesAreRefused(text: String) {
        #expect(throws: ValueError.self) { try TimePoint.parse(text) }
    }

    @Test func severitiesAndOrientationsRead() throws {
        #expect(try Severity.parse("info") == .info)
        #expect(throws: ValueError("must be error, warning or info")) { try Severity.parse("Warning") }
        for n in 1...8 { #expect(try OrientationChoice.parse(String(n)).orientation.rawValue == n) }
        for bad in ["0", "9", "six", "", "6.0"] {
            #expect(throws: ValueError("takes an EXIF orientation, 1 to 8"), "\(bad)") {
                try OrientationChoice.parse(bad)
            }
        }
    }

    /// `--rotate`: clockwise degrees after an optional mirror, so 90 is EXIF 6 and mirrored 90 is EXIF 7;
    /// a sign makes the turn relative; any multiple of 90 wraps.
    @Test(arguments: [
        ("90", false, 6, false), ("270", false, 8, false), ("+90", false, 6, true), ("-90", false, 8, true),
        ("0", true, 2, false), ("90", true, 7, false), ("180", true, 4, false), ("-270", true, 7, true),
        ("450", false, 6, false), ("+0", false, 1, true),
    ])
    func rotationsRead(text: String, mirrored: Bool, exif: Int, relative: Bool) throws {
        let rotation = try RotationChoice.parse(text)
        #expect(rotation.orientation(mirrored: mirrored).rawValue == exif)
        #expect(rotation.isRelative == relative)
        #expect(try RotationChoice.parse(rotation.description) == rotation)
    }

    @Test func rotationsThatAreNotQuarterTurnsAreRefused() {
        for bad in ["45", "ninety", "", "90.0", "1e2"] {
            #expect(throws: ValueError("takes a multiple of 90 degrees, such as 90, 270, +90 or -90"), "\(bad)") {
                try RotationChoice.parse(bad)
            }
        }
    }
}
