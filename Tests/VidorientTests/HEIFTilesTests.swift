import Foundation
import Testing
import VidorientCore
import VidorientPhotoDecoding
import VidorientTestSupport

@testable import VidorientFFmpeg

/// A HEIF coded in HEVC with no thumbnail item large enough is decoded by FFmpeg, its tiles on
/// every core (`HEIFTiles`); what that path does not know goes to libheif. Both give the same
/// picture, to a level or two (their chroma upsampling differs before the shrinking averages it).
@Suite struct HEIFTilesTests {
    /// The front door's limit (PhotoFrames.maximumEncodedBytes): 256 MiB.
    static let maximumBytes = 256 << 20

    /// The mean difference of two pictures of one size, per channel value.
    static func meanDifference(_ a: Picture, _ b: Picture) -> Double {
        var difference = 0
        for (x, y) in zip(a.pixels, b.pixels) { difference += abs(Int(x) - Int(y)) }
        return Double(difference) / Double(max(1, a.pixels.count))
    }

    /// libheif's whole picture, shrunk as every photo is.
    static func libheif(_ path: String, width: Int, height: Int) throws -> Picture {
        let full = try HEIFDecoderPicture.decode(path)
        return try PictureScaler.scale(full, width: width, height: height, path: path)
    }

    /// IMG_2682 (an iPhone's 8x6 grid of 512x512 tiles) with its thumbnail reference renamed, so
    /// that it has none: the grid path, against libheif's.
    @Test(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"))
    func aGridWithoutAThumbnailIsDecodedTileByTileAsLibheifDecodesIt() throws {
        let original = try #require(SharedMedia.existingPath("IMG_2682.heic"))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let iref = try #require(bytes.firstRange(of: Array("iref".utf8)))
        let thmb = try #require(bytes[iref.upperBound...].firstRange(of: Array("thmb".utf8)))
        bytes.replaceSubrange(thmb, with: Array("zzzz".utf8))
        let folder = try scratchFolder("heif-tiles")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("no-thumbnail.heic").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let tiles = try #require(
            try HEIFTiles.decode(
                path: path, crop: nil, width: 320, height: 240, thumbnailWidth: 320, thumbnailHeight: 240,
                maximumBytes: HEIFTilesTests.maximumBytes),
            "an 8-bit 4:2:0 HEVC grid takes the tile path")
        #expect(tiles.width == 320 && tiles.height == 240)
        let reference = try HEIFTilesTests.libheif(path, width: 320, height: 240)
        let difference = HEIFTilesTests.meanDifference(tiles, reference)
        #expect(difference < 1, "mean difference \(difference)")
        // The same picture turned over differs everywhere: the check can tell.
        #expect(HEIFTilesTests.meanDifference(tiles.oriented(.down), reference) > 10)

        // With its thumbnail item in place, a picture the item covers is libheif's to decode.
        #expect(
            try HEIFTiles.decode(
                path: original, crop: nil, width: 320, height: 240, thumbnailWidth: 320, thumbnailHeight: 240,
                maximumBytes: HEIFTilesTests.maximumBytes) == nil)
        #expect(
            try HEIFTiles.decode(
                path: original, crop: nil, width: 640, height: 480, thumbnailWidth: 640, thumbnailHeight: 480,
                maximumBytes: HEIFTilesTests.maximumBytes) != nil)
    }

    /// One HEVC image with an `irot`: the stored picture, as libheif gives it with its
    /// transformations off (the orientation is applied afterwards, once, for every photo).
    @Test func oneImageIsItsStoredPicture() throws {
        let path = Run.media("orient-6.heic")
        let tiles = try #require(
            try HEIFTiles.decode(
                path: path, crop: nil, width: 80, height: 48, thumbnailWidth: 160, thumbnailHeight: 96,
                maximumBytes: HEIFTilesTests.maximumBytes)
        )
        let reference = try HEIFTilesTests.libheif(path, width: 80, height: 48)
        #expect(HEIFTilesTests.meanDifference(tiles, reference) < 1)
    }

    /// AVIF, and what the box layer cannot read, go to libheif, which names the problem.
    @Test(arguments: ["orient-6.avif", "bad-iloc-past-end.heic", "bad-meta-truncated.heic"])
    func whatItDoesNotKnowIsLeftToLibheif(name: String) throws {
        #expect(
            try HEIFTiles.decode(
                path: Run.media(name), crop: nil, width: 16, height: 16, thumbnailWidth: 16, thumbnailHeight: 16,
                maximumBytes: HEIFTilesTests.maximumBytes)
                == nil)
    }
}

/// libheif's reasons are one line: it ends some of its messages with a newline, which a
/// terminal-safe error line would show as a literal `\n`.
@Test func libheifsReasonIsOneLine() throws {
    do {
        _ = try HEIFDecoder.decode(path: Run.media("bad-iloc-past-end.heic"))
        Issue.record("a file whose item runs past its end was decoded")
    } catch {
        #expect(error.reason.contains("outside of file bounds"), "\(error.reason)")
        let lines = error.reason.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        #expect(lines.count == 1, "\(error.reason)")
    }
}

/// libheif's stored picture, full size.
enum HEIFDecoderPicture {
    static func decode(_ path: String) throws -> Picture {
        try HEIFDecoder.decode(path: path).picture
    }
}
