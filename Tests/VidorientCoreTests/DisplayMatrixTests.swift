import Foundation
import Testing
import VidorientCore

@Suite struct DisplayMatrixTests {
    @Test(arguments: Orientation.allCases)
    func eachOrientationsMatrixDecodesBack(orientation: Orientation) throws {
        let matrix = DisplayMatrix(orientation, width: 568, height: 320)
        let analysis = matrix.analysis
        #expect(analysis.validity == .valid)
        #expect(analysis.orientation == orientation)
        #expect(analysis.rotation == Double(orientation.rotation))
        #expect(analysis.mirrored == orientation.isMirrored)
        #expect(analysis.scale == [1, 1])
        #expect(!analysis.isOddAngle && !analysis.isSheared && !analysis.hasNonUnitScale)
        // Apple's translation keeps the displayed picture at the origin: map the stored corners.
        let shown = orientation.displaySize(width: 568, height: 320)
        for (x, y) in [(0.0, 0.0), (568.0, 0.0), (0.0, 320.0), (568.0, 320.0)] {
            let px = matrix.a * x + matrix.c * y + matrix.tx
            let py = matrix.b * x + matrix.d * y + matrix.ty
            #expect((0...Double(shown.width)).contains(px) && (0...Double(shown.height)).contains(py))
        }
    }

    // The matrix iphone_rotated.mov carries, as ffprobe prints it (16.16 and 2.30 fixed point).
    @Test func fixedPointFromFFmpeg() throws {
        let fixed: [Int32] = [0, 65536, 0, -65536, 0, 0, 20_971_520, 0, 1_073_741_824]
        let matrix = try #require(DisplayMatrix(fixedPoint: fixed))
        #expect(matrix.entries == [0, 1, 0, -1, 0, 0, 320, 0, 1])
        #expect(matrix.fixedPoint == fixed)
        #expect(matrix.analysis.orientation == .right)
        #expect(matrix.ffprobeRotation == -90)
        #expect(DisplayMatrix(fixedPoint: [1, 2, 3]) == nil)
    }

    // What ffprobe 5.1 printed as `rotation` for Landscape_2..8.jpg (frame side data): it
    // cannot tell 2 from 3, 5 from 6, or 7 from 8, and says 0 for a vertical flip.
    @Test(arguments: [(2, -180), (3, -180), (4, 0), (5, -90), (6, -90), (7, 90), (8, 90), (1, 0)])
    func ffprobeRotationIsCounterClockwiseAndMirrorBlind(exif: Int, printed: Int) throws {
        let orientation = try #require(Orientation(exif: exif))
        #expect(DisplayMatrix(orientation, width: 10, height: 10).ffprobeRotation == printed)
    }

    @Test func snapsFixedPointNoise() throws {
        let matrix = DisplayMatrix(a: 0.99999, b: 0.00001, c: -0.00002, d: 1.00001)
        #expect(matrix.analysis.orientation == .up)
        #expect(!matrix.analysis.hasNonUnitScale)
    }

    @Test func scaleIsDividedOutAndReported() throws {
        let analysis = DisplayMatrix(a: 0, b: 2, c: -2, d: 0, tx: 640).analysis
        #expect(analysis.orientation == .right)
        #expect(analysis.scale == [2, 2])
        #expect(analysis.hasNonUnitScale)
        #expect(analysis.translation == [640, 0])
    }

    @Test(arguments: [30.0, 45, 100, 200, 359])
    func oddAnglesAreExactDegreesWithNoOrientation(degrees: Double) throws {
        let r = degrees * Double.pi / 180
        let analysis = DisplayMatrix(a: cos(r), b: sin(r), c: -sin(r), d: cos(r)).analysis
        #expect(analysis.orientation == nil)
        #expect(abs(try #require(analysis.rotation) - degrees) < 1e-9)
        #expect(analysis.isOddAngle)
        #expect(analysis.mirrored == false)
        // Mirrored first, then the same turn.
        let mirrored = DisplayMatrix(a: -cos(r), b: -sin(r), c: -sin(r), d: cos(r)).analysis
        #expect(mirrored.mirrored == true)
        #expect(abs(try #require(mirrored.rotation) - degrees) < 1e-9)
    }

    @Test func shearIsReportedNotGuessed() {
        let analysis = DisplayMatrix(a: 1, b: 0, c: 0.5, d: 1).analysis
        #expect(analysis.validity == .valid)
        #expect(analysis.orientation == nil)
        #expect(analysis.isSheared)
        #expect(!analysis.isOddAngle)
    }

    @Test(arguments: [
        [0.0, 0, 0, 0, 0, 0, 0, 0, 1], [1.0, 1, 0, 1, 1, 0, 0, 0, 1], [0.0, 1, 0, 0, 2, 0, 0, 0, 1],
    ])
    func singularMatricesAreInvalid(entries: [Double]) throws {
        let analysis = try #require(DisplayMatrix(entries)).analysis
        #expect(analysis.validity == .singular)
        #expect(analysis.orientation == nil && analysis.rotation == nil && analysis.mirrored == nil)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteMatricesAreInvalid(bad: Double) throws {
        let matrix = try #require(DisplayMatrix([1, 0, 0, 0, bad, 0, 0, 0, 1]))
        #expect(matrix.analysis.validity == .nonFinite)
        #expect(matrix.ffprobeRotation == nil)
        #expect(matrix.fixedPoint.count == 9)
    }

    @Test func perspectiveTermsAreFlagged() throws {
        #expect(try #require(DisplayMatrix([1, 0, 0.5, 0, 1, 0, 0, 0, 1])).analysis.isProjective)
        #expect(try #require(DisplayMatrix([1, 0, 0, 0, 1, 0, 0, 0, 2])).analysis.isProjective)
        #expect(!DisplayMatrix.identity.analysis.isProjective)
    }

    @Test(arguments: Orientation.allCases, Orientation.allCases)
    func matrixProductIsOrientationComposition(first: Orientation, second: Orientation) {
        let product = DisplayMatrix(second, width: 1, height: 1).after(DisplayMatrix(first, width: 1, height: 1))
        #expect(product.analysis.orientation == first.followed(by: second))
    }
}
