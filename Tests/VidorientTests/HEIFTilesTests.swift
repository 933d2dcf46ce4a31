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

    /// The whole stored picture through this path at 16x16, under `limit` pixels decoded whole.
    static func small(_ path: String, limit: Int = HEIFDecoder.maximumDecodedPixels) throws -> Picture? {
        try HEIFTiles.decode(
            path: path, crop: nil, width: 16, height: 16, thumbnailWidth: 16, thumbnailHeight: 16,
            maximumBytes: maximumBytes, maximumTilePixels: limit)
    }

    /// libheif's whole picture, shrunk as every photo is.
    static func libheif(_ path: String, width: Int, height: Int) throws -> Picture {
        let full = try HEIFDecoderPicture.decode(path)
        return full.resized(width: width, height: height)
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
                maximumBytes: HEIFTilesTests.maximumBytes, maximumTilePixels: HEIFDecoder.maximumDecodedPixels),
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
                maximumBytes: HEIFTilesTests.maximumBytes, maximumTilePixels: HEIFDecoder.maximumDecodedPixels) == nil)
        #expect(
            try HEIFTiles.decode(
                path: original, crop: nil, width: 640, height: 480, thumbnailWidth: 640, thumbnailHeight: 480,
                maximumBytes: HEIFTilesTests.maximumBytes, maximumTilePixels: HEIFDecoder.maximumDecodedPixels) != nil)
    }

    /// One HEVC image with an `irot` (stored 96x160): the stored picture, as libheif gives it with
    /// its transformations off (the orientation is applied afterwards, once, for every photo). HEVC
    /// is decoded here only when shrunk to half or less.
    @Test func oneImageIsItsStoredPicture() throws {
        let path = Run.media("orient-6.heic")
        let tiles = try #require(
            try HEIFTiles.decode(
                path: path, crop: nil, width: 48, height: 80, thumbnailWidth: 96, thumbnailHeight: 160,
                maximumBytes: HEIFTilesTests.maximumBytes, maximumTilePixels: HEIFDecoder.maximumDecodedPixels)
        )
        let reference = try HEIFTilesTests.libheif(path, width: 48, height: 80)
        #expect(HEIFTilesTests.meanDifference(tiles, reference) < 1)
        #expect(
            try HEIFTiles.decode(
                path: path, crop: nil, width: 60, height: 100, thumbnailWidth: 96, thumbnailHeight: 160,
                maximumBytes: HEIFTilesTests.maximumBytes, maximumTilePixels: HEIFDecoder.maximumDecodedPixels) == nil)
    }

    /// What the box layer cannot read goes to libheif, which names the problem.
    @Test(arguments: ["bad-iloc-past-end.heic", "bad-meta-truncated.heic"])
    func whatItDoesNotKnowIsLeftToLibheif(name: String) throws {
        #expect(try HEIFTilesTests.small(Run.media(name)) == nil)
    }

    /// 8-bit AV1 (TestMedia's are 4:4:4) is decoded here at any size, full size included, as libheif
    /// decodes it.
    @Test(arguments: ["orient-1.avif", "orient-6.avif"])
    func anAVIFIsDecodedThroughFFmpegAsLibheifDecodesIt(name: String) throws {
        let path = Run.media(name)
        let full = try HEIFDecoderPicture.decode(path)
        for (width, height) in [(full.width, full.height), (full.width / 4, full.height / 4)] {
            let ours = try #require(
                try HEIFTiles.decode(
                    path: path, crop: nil, width: width, height: height, thumbnailWidth: width,
                    thumbnailHeight: height, maximumBytes: HEIFTilesTests.maximumBytes,
                    maximumTilePixels: HEIFDecoder.maximumDecodedPixels),
                "an 8-bit AV1 image takes this path")
            let reference = full.resized(width: width, height: height)
            let difference = HEIFTilesTests.meanDifference(ours, reference)
            #expect(difference < 1, "\(name) at \(width)x\(height): mean difference \(difference)")
            #expect(HEIFTilesTests.meanDifference(ours.oriented(.down), reference) > 10)
        }
    }

    /// Deeper samples (two bytes each) and other chroma layouts, made here from a 16-bit picture:
    /// AV1 of 10 bits 4:2:0 and 12 bits 4:4:4 (avifenc), HEVC of 10 bits 4:2:0 (heif-enc, shrunk
    /// to half), each decoded here as libheif decodes it.
    @Test(
        .enabled(if: isInstalled("ffmpeg") && isInstalled("avifenc") && isInstalled("heif-enc")),
        arguments: [
            ("10-420.avif", ["avifenc", "-d", "10", "-y", "420", "IN", "OUT"]),
            ("12-444.avif", ["avifenc", "-d", "12", "-y", "444", "IN", "OUT"]),
            ("10-420.heic", ["heif-enc", "-b", "10", "-p", "chroma=420", "-o", "OUT", "IN"]),
        ])
    func deeperSamplesAreDecodedAsLibheifDecodesThem(name: String, encoder: [String]) throws {
        let folder = try scratchFolder("heif-deep")
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("picture.png").path, path = folder.appendingPathComponent(name).path
        let made = try run(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x480", "-frames:v", "1", "-pix_fmt", "rgb48be", png])
        try #require(made.status == 0, "\(made.stderr)")
        let encoded = try run(encoder[0], encoder.dropFirst().map { $0 == "IN" ? png : $0 == "OUT" ? path : $0 })
        try #require(encoded.status == 0, "\(encoded.stderr)")
        let ours = try #require(
            try HEIFTiles.decode(
                path: path, crop: nil, width: 320, height: 240, thumbnailWidth: 320, thumbnailHeight: 240,
                maximumBytes: HEIFTilesTests.maximumBytes, maximumTilePixels: HEIFDecoder.maximumDecodedPixels),
            "\(name) takes this path")
        let reference = try HEIFTilesTests.libheif(path, width: 320, height: 240)
        let difference = HEIFTilesTests.meanDifference(ours, reference)
        #expect(difference < 1, "\(name): mean difference \(difference)")
        #expect(HEIFTilesTests.meanDifference(ours.oriented(.down), reference) > 10)
    }

    /// A coded picture larger than its item says is held to the same limit as a whole decode:
    /// refused before the decoder allocates it (a 5000x5000 AVIF whose `ispe` says 1000x1000 took
    /// 349 MB through libheif). TestMedia's 160x96 AVIF, its `ispe` set to 16x16, under a limit of
    /// 1,000 pixels.
    @Test func aCodedPictureLargerThanItsItemSaysIsHeldToTheLimit() throws {
        let folder = try scratchFolder("heif-liar")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try TestMedia.mutated("orient-1.avif", in: folder) { bytes in
            let ispe = try #require(bytes.firstRange(of: Array("ispe".utf8)))
            bytes.replaceSubrange(ispe.upperBound + 4..<ispe.upperBound + 12, with: [0, 0, 0, 16, 0, 0, 0, 16])
        }
        #expect {
            _ = try HEIFTilesTests.small(path, limit: 1000)
        } throws: { "\($0)".contains("its coded picture is larger than the 1000 pixels decoded whole") }
        // Under the real limit it decodes, as libheif would show it.
        #expect(try HEIFTilesTests.small(path) != nil)
    }

    /// An AVIF whose AV1 data is damaged (one byte of orient-5.avif's, as the decode sweep found
    /// it) is refused in vidorient's one line: libheif's dav1d printed "Error parsing OBU data"
    /// on stderr before it.
    @Test func aDamagedAVIFIsRefusedInOneLine() throws {
        let folder = try scratchFolder("heif-av1")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try TestMedia.mutated("orient-5.avif", in: folder) { $0[317] = 0xFF }
        #expect {
            _ = try HEIFTilesTests.small(path)
        } throws: { "\($0)".contains("the AV1 data does not decode") }
        let run = try Run.vidorient(["thumbnail", path, "-o", folder.appendingPathComponent("out.png").path])
        #expect(run.status == 2)
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("vidorient: could not read '\(path)'"), "\(run.stderr)")
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
