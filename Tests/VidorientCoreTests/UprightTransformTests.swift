import Testing
import VidorientCore

/// The transform each orientation names, as jpegtran spells it (the table of issue 10, checked
/// against jpegtran's output in the command tests), and the pixels it moves.
struct UprightTransformTests {
    @Test(arguments: [
        (1, UprightTransform.none), (2, .flipHorizontal), (3, .rotate180), (4, .flipVertical), (5, .transpose),
        (6, .rotate90), (7, .transverse), (8, .rotate270),
    ])
    func eachOrientationNamesItsTransform(exif: Int, transform: UprightTransform) throws {
        let orientation = try #require(Orientation(exif: exif))
        #expect(UprightTransform(orientation) == transform)
        #expect(transform.orientation == orientation)
        #expect(transform.swapsAxes == (exif >= 5))
    }

    /// Every pixel lands where `Orientation.displayPixel` (the one convention) puts it, whole,
    /// for pixels of one to eight bytes.
    @Test(arguments: Orientation.allCases, [1, 3, 8])
    func movesWholePixelsWhereTheOrientationShowsThem(orientation: Orientation, bytesPerPixel: Int) {
        let (width, height) = (5, 3)
        var pixels: [UInt8] = []
        for index in 0..<width * height {
            for byte in 0..<bytesPerPixel { pixels.append(UInt8(index * 8 + byte)) }
        }
        let moved = UprightTransform(orientation).apply(
            to: pixels, width: width, height: height, bytesPerPixel: bytesPerPixel)
        let displayWidth = orientation.swapsDimensions ? height : width
        for y in 0..<height {
            for x in 0..<width {
                let target = orientation.displayPixel(x: x, y: y, width: width, height: height)
                let s = (y * width + x) * bytesPerPixel, t = (target.y * displayWidth + target.x) * bytesPerPixel
                #expect(Array(moved[t..<t + bytesPerPixel]) == Array(pixels[s..<s + bytesPerPixel]))
            }
        }
    }
}
