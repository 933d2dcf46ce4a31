import Foundation
import Testing
import VidorientCore
import VidorientPhoto
import VidorientPhotoDecoding
import VidorientTestSupport

/// libjpeg-turbo through `JPEGLosslessTransform` and `JPEGDecoder`, held to jpegtran and djpeg run
/// on the same file (orient-6.jpg: stored 96x160, 4:2:0, so every transform is perfect).
@Suite struct JPEGLosslessTransformTests {
    static let jpegtranArguments: [UprightTransform: [String]] = [
        .flipHorizontal: ["-flip", "horizontal"], .flipVertical: ["-flip", "vertical"], .transpose: ["-transpose"],
        .transverse: ["-transverse"], .rotate90: ["-rotate", "90"], .rotate180: ["-rotate", "180"],
        .rotate270: ["-rotate", "270"],
    ]

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Each transform gives the pixels jpegtran's gives (both decoded by the same decoder), and the
    /// header says the turned size.
    @Test(.enabled(if: isInstalled("jpegtran")), arguments: Array(jpegtranArguments.keys))
    func pixelsAreJpegtrans(transform: UprightTransform) throws {
        let folder = try TemporaryFolder("transform")
        defer { folder.remove() }
        let original = try Self.bytes(TestMedia.path("orient-6.jpg"))
        let turned = try JPEGLosslessTransform.apply(transform, to: original, edges: .perfect)
        let reference = folder.path("jpegtran.jpg")
        let run = try run(
            "jpegtran",
            ["-perfect", "-copy", "none"] + Self.jpegtranArguments[transform]! + [
                "-outfile", reference, TestMedia.path("orient-6.jpg"),
            ])
        try #require(run.status == 0, "\(run.stderr)")
        let ours = try JPEGDecoder.decode(turned)
        let theirs = try JPEGDecoder.decode(try Self.bytes(reference))
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        #expect(ours.pixels == theirs.pixels, "\(transform): the pixels differ from jpegtran's")
        let header = try JPEGLosslessTransform.header(of: turned)
        let swaps = [.transpose, .transverse, .rotate90, .rotate270].contains(transform)
        #expect((header.width, header.height) == (swaps ? (160, 96) : (96, 160)))
        // Only the image: no marker of the input (its EXIF APP1) is copied.
        #expect(!turned.starts(with: [0xFF, 0xD8, 0xFF, 0xE1]))
    }

    /// DCT scaling: asked for at least 24x40, the decoder stops at 2/8 (24x40), not at full size.
    @Test func decodingScalesInTheDCT() throws {
        let original = try Self.bytes(TestMedia.path("orient-6.jpg"))
        let full = try JPEGDecoder.decode(original)
        #expect((full.width, full.height) == (96, 160))
        let quarter = try JPEGDecoder.decode(original, minimumWidth: 24, minimumHeight: 40)
        #expect((quarter.width, quarter.height) == (24, 40))
        // One pixel more: the next of libjpeg-turbo's scales (n/8), 3/8.
        let more = try JPEGDecoder.decode(original, minimumWidth: 25, minimumHeight: 40)
        #expect((more.width, more.height) == (36, 60))
        #expect(try JPEGDecoder.size(of: original) == (96, 160))
    }

    /// Damaged input is an error with a reason, never a crash: random bytes after a start marker,
    /// nothing at all. (A file cut after its headers still has a header; libjpeg-turbo pads its
    /// missing data, which is why normalize's reader refuses a file without its end marker first.)
    @Test func damagedInputIsAnError() throws {
        let original = try Self.bytes(TestMedia.path("orient-6.jpg"))
        #expect(try JPEGLosslessTransform.header(of: Array(original.prefix(1000))).width == 96)
        var random = SplitMix64(state: 22)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for bytes in [[0xFF, 0xD8] + noise, []] {
            #expect(throws: VidorientError.self) {
                try JPEGLosslessTransform.apply(.rotate90, to: bytes, edges: .perfect)
            }
            #expect(throws: VidorientError.self) { try JPEGLosslessTransform.header(of: bytes) }
        }
    }
}

/// normalize's JPEG layout (`JPEGUpright.Layout`): the segments before the image, where the image
/// ends and a trailer begins, and the application segments taken off libjpeg-turbo's output.
@Suite struct JPEGUprightLayoutTests {
    @Test func segmentsAndTheTrailer() throws {
        let original = try JPEGLosslessTransformTests.bytes(TestMedia.path("orient-6.jpg"))
        let layout = try JPEGUpright.Layout(original)
        #expect(layout.imageEnd == original.count)
        #expect(!layout.isProgressive)
        #expect(layout.segments.contains { $0.marker == 0xE1 && $0.isApplication }, "the EXIF APP1")
        #expect(layout.segments.contains { $0.marker == 0xC0 && !$0.isApplication }, "the frame header")
        for segment in layout.segments {
            #expect(original[segment.start] == 0xFF && original[segment.start + 1] == segment.marker)
        }
        // A trailer (as a motion photo's video) is after the image: the image ends where it did.
        let withTrailer = try JPEGUpright.Layout(original + Array("trailer".utf8))
        #expect(withTrailer.imageEnd == original.count)
        #expect(throws: VidorientError.self) { try JPEGUpright.Layout(Array(original.dropFirst(2))) }
    }

    @Test func applicationSegmentsAreTakenOff() throws {
        let original = try JPEGLosslessTransformTests.bytes(TestMedia.path("orient-6.jpg"))
        let bare = JPEGUpright.withoutApplicationSegments(original)
        let layout = try JPEGUpright.Layout(bare)
        #expect(!layout.segments.contains { $0.isApplication })
        #expect(bare.count < original.count)
        #expect(try JPEGDecoder.decode(bare).pixels == JPEGDecoder.decode(original).pixels)
    }
}
