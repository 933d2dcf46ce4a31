import Testing
import VidorientCore

@Suite struct RepresentationTests {
    // UIImage.Orientation raw values and their EXIF equivalents, as Apple documents them.
    @Test(arguments: [(0, 1), (1, 3), (2, 8), (3, 6), (4, 2), (5, 4), (6, 5), (7, 7)])
    func uiImageOrientation(raw: Int, exif: Int) throws {
        let orientation = try #require(Orientation(uiImageOrientation: raw))
        #expect(orientation.exif == exif)
        #expect(orientation.uiImageOrientation == raw)
        #expect(orientation.cgImagePropertyOrientation == exif)
    }

    @Test func uiImageOutOfRange() {
        #expect(Orientation(uiImageOrientation: 8) == nil)
        #expect(Orientation(uiImageOrientation: -1) == nil)
    }

    // An unmirrored back-camera recording: the sensor's native way is landscapeRight.
    @Test(arguments: [
        (CaptureOrientation.portrait, 6), (.portraitUpsideDown, 8), (.landscapeRight, 1), (.landscapeLeft, 3),
    ])
    func captureVideoOrientation(capture: CaptureOrientation, exif: Int) throws {
        let orientation = try #require(Orientation(captureVideoOrientation: capture))
        #expect(orientation.exif == exif)
        #expect(orientation.captureVideoOrientation == capture)
    }

    @Test func deviceOrientationSwapsTheLandscapeNames() throws {
        #expect(CaptureOrientation.landscapeRight.rawValue == 3)
        #expect(CaptureOrientation.landscapeRight.deviceOrientationName == "landscapeLeft")
        #expect(CaptureOrientation(deviceOrientationName: "landscapeLeft") == .landscapeRight)
        #expect(CaptureOrientation(deviceOrientationName: "landscapeRight") == .landscapeLeft)
        #expect(try Orientation.parse("landscapeLeft", as: .device) == .up)
        #expect(try Orientation.parse("landscapeLeft", as: .capture) == .down)
        #expect(try Orientation.parse("3", as: .device) == Orientation.parse("3", as: .capture))
    }

    @Test func mirroredOrientationsHaveNoCaptureOrientation() {
        for orientation in Orientation.allCases where orientation.isMirrored {
            #expect(orientation.captureVideoOrientation == nil)
        }
    }

    @Test(arguments: Orientation.allCases)
    func heifRoundTrip(orientation: Orientation) {
        #expect(Orientation(heif: orientation.heif) == orientation)
    }

    @Test func heifRotationIsCounterClockwise() {
        #expect(Orientation(heif: HEIFTransform(irot: 1, imir: nil)) == .left)
        #expect(Orientation(heif: HEIFTransform(irot: 3, imir: nil)) == .right)
        // libheif writes EXIF 2 as imir 1 and EXIF 4 as imir 0.
        #expect(Orientation(heif: HEIFTransform(irot: 0, imir: 1)) == .upMirrored)
        #expect(Orientation(heif: HEIFTransform(irot: 0, imir: 0)) == .downMirrored)
        // libheif's EXIF 5: "rotate 90 cw then flip horizontally"; EXIF 7: "... then flip vertically".
        #expect(Orientation(heif: HEIFTransform(irot: 3, imir: 1)) == .leftMirrored)
        #expect(Orientation(heif: HEIFTransform(irot: 3, imir: 0)) == .rightMirrored)
        #expect(Orientation(heif: HEIFTransform(irot: 4, imir: nil)) == nil)
        #expect(Orientation(heif: HEIFTransform(irot: 0, imir: 2)) == nil)
    }

    @Test func everyHEIFPairIsOneOfTheEight() {
        var seen = Set<Orientation>()
        for irot in 0...3 {
            for imir in [nil, 0, 1] as [Int?] {
                if let orientation = Orientation(heif: HEIFTransform(irot: irot, imir: imir)) {
                    seen.insert(orientation)
                }
            }
        }
        #expect(seen.count == 8)
    }

    @Test(arguments: Orientation.allCases)
    func ffmpegFilterChainsAreNamedForTheirDirection(orientation: Orientation) {
        let expected: [Int: String] = [
            1: "", 2: "hflip", 3: "hflip,vflip", 4: "vflip", 5: "transpose=cclock_flip", 6: "transpose=clock",
            7: "transpose=clock_flip", 8: "transpose=cclock",
        ]
        #expect(orientation.ffmpegFilter == expected[orientation.exif])
    }

    @Test(arguments: Orientation.allCases)
    func parseEveryRepresentation(orientation: Orientation) throws {
        #expect(try Orientation.parse(String(orientation.exif), as: .exif) == orientation)
        #expect(try Orientation.parse(String(orientation.uiImageOrientation), as: .uiImage) == orientation)
        #expect(
            try Orientation.parse(String(orientation.rotation), as: .rotation, mirrored: orientation.isMirrored)
                == orientation)
        let m = orientation.linear
        #expect(try Orientation.parse("\(m.a),\(m.b),\(m.c),\(m.d)", as: .matrix) == orientation)
        let heif = orientation.heif
        #expect(try Orientation.parse("\(heif.irot)" + (heif.imir.map { ",\($0)" } ?? ""), as: .heif) == orientation)
    }

    @Test func parseRejectsWhatIsNotAnOrientation() {
        #expect(throws: OrientationParseError.self) { try Orientation.parse("9", as: .exif) }
        #expect(throws: OrientationParseError.self) { try Orientation.parse("45", as: .rotation) }
        #expect(throws: OrientationParseError.self) { try Orientation.parse("1,2,3", as: .matrix) }
        #expect(throws: OrientationParseError.self) { try Orientation.parse("0.87,0.5,-0.5,0.87", as: .matrix) }
        #expect(throws: OrientationParseError.self) { try Orientation.parse("sideways", as: .capture) }
    }

    @Test(arguments: Orientation.allCases)
    func descriptionIsConsistent(orientation: Orientation) {
        let d = OrientationDescription(orientation, storedWidth: 1920, storedHeight: 1080)
        #expect(DisplayMatrix(d.matrix)?.analysis.orientation == orientation)
        #expect(DisplayMatrix(fixedPoint: d.ffmpegDisplayMatrix)?.analysis.orientation == orientation)
        #expect(d.exifOrientation == orientation.exif)
        #expect((d.displayWidth, d.displayHeight) == orientation.displaySize(width: 1920, height: 1080))
    }
}
