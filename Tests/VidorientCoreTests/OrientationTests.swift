import Testing
import VidorientCore

/// Where the stored picture's 0th row and 0th column end up, in the words of the EXIF
/// specification (TIFF 6.0 tag 274), written out independently of `Orientation.linear`.
/// For a stored W×H picture: where stored pixel (x, 0) and stored pixel (0, y) are displayed.
private func exifSpecification(_ exif: Int, x: Int, y: Int, width w: Int, height h: Int)
    -> (row: (Int, Int), column: (Int, Int))
{
    switch exif {
    case 1: ((x, 0), (0, y))  // 0th row top, 0th column left
    case 2: ((w - 1 - x, 0), (w - 1, y))  // 0th row top, 0th column right
    case 3: ((w - 1 - x, h - 1), (w - 1, h - 1 - y))  // 0th row bottom, 0th column right
    case 4: ((x, h - 1), (0, h - 1 - y))  // 0th row bottom, 0th column left
    case 5: ((0, x), (y, 0))  // 0th row left, 0th column top
    case 6: ((h - 1, x), (h - 1 - y, 0))  // 0th row right, 0th column top
    case 7: ((h - 1, w - 1 - x), (h - 1 - y, w - 1))  // 0th row right, 0th column bottom
    case 8: ((0, w - 1 - x), (y, w - 1))  // 0th row left, 0th column bottom
    default: fatalError("not an EXIF orientation")
    }
}

@Suite struct OrientationTests {
    @Test(arguments: [
        (1, 0, false), (2, 0, true), (3, 180, false), (4, 180, true),
        (5, 270, true), (6, 90, false), (7, 90, true), (8, 270, false),
    ])
    func rotationAfterOptionalMirror(exif: Int, rotation: Int, mirrored: Bool) throws {
        let orientation = try #require(Orientation(exif: exif))
        #expect(orientation.rotation == rotation)
        #expect(orientation.isMirrored == mirrored)
        #expect(Orientation(rotation: rotation, mirrored: mirrored) == orientation)
        #expect(Orientation(rotation: rotation + 360, mirrored: mirrored) == orientation)
        #expect(Orientation(rotation: rotation - 720, mirrored: mirrored) == orientation)
    }

    @Test func rotationMustBeARightAngle() {
        #expect(Orientation(rotation: 45, mirrored: false) == nil)
        #expect(Orientation(rotation: -90, mirrored: false) == .left)
        #expect(Orientation(exif: 0) == nil)
        #expect(Orientation(exif: 9) == nil)
    }

    @Test(arguments: Orientation.allCases)
    func pixelsLandWhereTheEXIFSpecificationSays(orientation: Orientation) {
        let (w, h) = (5, 3)
        for x in 0..<w {
            let spec = exifSpecification(orientation.exif, x: x, y: 0, width: w, height: h)
            let shown = orientation.displayPixel(x: x, y: 0, width: w, height: h)
            #expect(shown == spec.row, "stored (\(x), 0)")
        }
        for y in 0..<h {
            let spec = exifSpecification(orientation.exif, x: 0, y: y, width: w, height: h)
            let shown = orientation.displayPixel(x: 0, y: y, width: w, height: h)
            #expect(shown == spec.column, "stored (0, \(y))")
        }
    }

    @Test(arguments: Orientation.allCases)
    func everyPixelLandsInsideTheDisplayedPictureOnce(orientation: Orientation) {
        let (w, h) = (4, 3)
        let shown = orientation.displaySize(width: w, height: h)
        var seen = Set<[Int]>()
        for x in 0..<w {
            for y in 0..<h {
                let p = orientation.displayPixel(x: x, y: y, width: w, height: h)
                #expect((0..<shown.width).contains(p.x) && (0..<shown.height).contains(p.y))
                seen.insert([p.x, p.y])
            }
        }
        #expect(seen.count == w * h)
    }

    @Test(arguments: Orientation.allCases, Orientation.allCases)
    func compositionIsApplyingOneThenTheOther(first: Orientation, second: Orientation) {
        let (w, h) = (5, 3)
        let middle = first.displaySize(width: w, height: h)
        let composed = first.followed(by: second)
        for x in 0..<w {
            for y in 0..<h {
                let once = first.displayPixel(x: x, y: y, width: w, height: h)
                let twice = second.displayPixel(x: once.x, y: once.y, width: middle.width, height: middle.height)
                #expect(composed.displayPixel(x: x, y: y, width: w, height: h) == twice)
            }
        }
    }

    @Test(arguments: Orientation.allCases)
    func inverseUndoes(orientation: Orientation) {
        #expect(orientation.followed(by: orientation.inverse) == .up)
        #expect(orientation.inverse.followed(by: orientation) == .up)
        #expect(orientation.followed(by: .up) == orientation)
    }

    @Test func theGroupIsAssociativeAndClosed() {
        for a in Orientation.allCases {
            for b in Orientation.allCases {
                for c in Orientation.allCases {
                    #expect(a.followed(by: b).followed(by: c) == a.followed(by: b.followed(by: c)))
                }
            }
        }
        // Mirrors do not commute with quarter turns: this is what blind tools get wrong.
        #expect(Orientation.upMirrored.followed(by: .right) == .rightMirrored)
        #expect(Orientation.right.followed(by: .upMirrored) == .leftMirrored)
    }

    @Test(arguments: Orientation.allCases)
    func displayedSize(orientation: Orientation) {
        let size = orientation.displaySize(width: 1920, height: 1080)
        #expect(orientation.swapsDimensions ? (size == (1080, 1920)) : (size == (1920, 1080)))
        #expect(orientation.swapsDimensions == [5, 6, 7, 8].contains(orientation.exif))
    }
}
