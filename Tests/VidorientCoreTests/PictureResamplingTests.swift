import Testing
import VidorientCore
import VidorientTestSupport

/// `Picture.resized`: area averaging where an axis shrinks, Catmull-Rom where it grows.
struct PictureResamplingTests {
    static func random(width: Int, height: Int, seed: UInt64) -> Picture {
        var generator = SplitMix64(state: seed)
        return Picture(
            width: width, height: height,
            pixels: (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test(arguments: [(64, 48, 32, 24), (97, 61, 13, 7), (300, 200, 179, 119), (50, 40, 1, 1), (7, 5, 6, 4)])
    func shrinkingIsTheMeanOfTheAreaCovered(width: Int, height: Int, newWidth: Int, newHeight: Int) {
        let picture = Self.random(width: width, height: height, seed: UInt64(width * 1000 + newWidth))
        let small = picture.resized(width: newWidth, height: newHeight)
        #expect(small.width == newWidth && small.height == newHeight)
        let reference = areaMean(
            picture.pixels, width: width, height: height, newWidth: newWidth, newHeight: newHeight)
        // Two passes each round to a level: at most one level apart.
        let worst = zip(small.pixels, reference).map { abs(Double($0) - $1) }.max() ?? 0
        #expect(worst <= 1.01, "worst \(worst)")
    }

    @Test func halvingAveragesEachSquareOfFour() {
        var picture = Picture(width: 4, height: 2)
        let levels: [UInt8] = [0, 40, 100, 200, 80, 120, 2, 6]
        for (i, level) in levels.enumerated() { picture[i % 4, i / 4] = RGB(level, 255 - level, level / 2) }
        let half = picture.resized(width: 2, height: 1)
        // (0 + 40 + 80 + 120) / 4 = 60 and (100 + 200 + 2 + 6) / 4 = 77.
        #expect(half[0, 0] == RGB(60, 195, 30))
        #expect(half[1, 0] == RGB(77, 178, 39))  // 38.5 rounds up
    }

    @Test(arguments: [(10, 10, 3, 7), (3, 7, 10, 10), (1, 1, 5, 3), (5, 3, 1, 1), (200, 1, 33, 2)])
    func aFlatColourStaysExactAtAnySize(width: Int, height: Int, newWidth: Int, newHeight: Int) {
        let colour = RGB(17, 200, 255)
        let resized = Picture(width: width, height: height, fill: colour).resized(width: newWidth, height: newHeight)
        #expect(resized.pixels == Picture(width: newWidth, height: newHeight, fill: colour).pixels)
    }

    /// Growing: each old pixel's level is kept where its centre falls, and a ramp stays in order.
    @Test func growingKeepsARampInOrder() {
        var ramp = Picture(width: 8, height: 1)
        for x in 0..<8 { ramp[x, 0] = RGB(UInt8(x * 30), UInt8(x * 30), UInt8(x * 30)) }
        let grown = ramp.resized(width: 32, height: 3)
        for y in 0..<3 {
            let row = (0..<32).map { grown[$0, y].red }
            #expect(row == row.sorted(), "\(row)")
            // Past the last centre the cubic overshoots a little (Catmull-Rom's ring), never far.
            #expect(row.first == 0 && (210...213).contains(row.last!), "\(row)")
        }
        // An odd factor puts every third new pixel on an old centre: exactly its level.
        let thrice = ramp.resized(width: 24, height: 1)
        for x in 0..<8 { #expect(thrice[3 * x + 1, 0] == ramp[x, 0], "\(x)") }
    }

    @Test func theSameSizeIsTheSamePicture() {
        let picture = Self.random(width: 9, height: 4, seed: 3)
        #expect(picture.resized(width: 9, height: 4) == picture)
        // One axis alone: the other is untouched.
        let narrowed = picture.resized(width: 3, height: 4)
        #expect(narrowed.height == 4)
        let mean = Double(Int(picture[0, 2].red) + Int(picture[1, 2].red) + Int(picture[2, 2].red)) / 3
        #expect(abs(Double(narrowed[0, 2].red) - mean) <= 0.51)
    }
}
