import Foundation
import Testing
import Vidorient
import VidorientCore
import VidorientTestSupport

/// The upright test picture: red | green over blue | white, in quadrants.
private let quadrants: [(x: Double, y: Double, color: RGB)] = [
    (0.25, 0.25, RGB(255, 0, 0)), (0.75, 0.25, RGB(0, 255, 0)), (0.25, 0.75, RGB(0, 0, 255)),
    (0.75, 0.75, RGB(255, 255, 255)),
]

/// Lossy codecs blur edges and shift colours a little; the quadrant centres stay far apart.
private func expectUpright(_ picture: Picture, sourceLocation: SourceLocation = #_sourceLocation) {
    for quadrant in quadrants {
        let x = Int(quadrant.x * Double(picture.width)), y = Int(quadrant.y * Double(picture.height))
        let seen = picture[x, y]
        #expect(
            seen.distance(to: quadrant.color) < 48, "at (\(x), \(y)): \(seen), want \(quadrant.color)",
            sourceLocation: sourceLocation)
    }
}

@Suite struct ThumbnailTests {
    static let oriented = TestMedia.good.filter {
        $0.videoIndex != nil && $0.attachedPic != true && $0.showsUpright
            && $0.rotation.map { $0.truncatingRemainder(dividingBy: 90) == 0 } == true
    }

    @Test(arguments: oriented)
    func everyOrientationComesOutUpright(entry: TestMedia.Entry) throws {
        let frame = try Thumbnailer().frame(entry.path, request: ThumbnailRequest())
        #expect(frame.picture.width == entry.displayWidth)
        #expect(frame.picture.height == entry.displayHeight)
        expectUpright(frame.picture)
    }

    @Test func oddAngleIsRenderedTurnedClockwise() throws {
        let path = TestMedia.folder.appendingPathComponent("odd-angle-30.mp4").path
        let picture = try Thumbnailer().frame(path, request: ThumbnailRequest()).picture
        #expect(picture.width == 187 && picture.height == 163)
        // Each quadrant's centre, 40 and 24 pixels off the picture's centre, turned 30° clockwise.
        let r = 30 * Double.pi / 180
        for quadrant in quadrants {
            let dx = (quadrant.x - 0.5) * 160, dy = (quadrant.y - 0.5) * 96
            let x = Int(Double(picture.width) / 2 + cos(r) * dx - sin(r) * dy)
            let y = Int(Double(picture.height) / 2 + sin(r) * dx + cos(r) * dy)
            #expect(picture[x, y].distance(to: quadrant.color) < 48, "at (\(x), \(y))")
        }
        #expect(picture[1, 1] == RGB(0, 0, 0))
    }

    @Test(
        arguments: [(80, nil, 80, 48), (nil, 48, 80, 48), (100, 100, 100, 60), (40, 40, 40, 24)]
            as [(Int?, Int?, Int, Int)])
    func requestedSizesKeepTheDisplayedAspect(width: Int?, height: Int?, wantWidth: Int, wantHeight: Int) throws {
        for name in ["orient-6.mp4", "orient-7-hevc.mov", "anamorphic-6.mp4", "orient-5.jpg"] {
            let path = TestMedia.folder.appendingPathComponent(name).path
            let picture = try Thumbnailer().frame(path, request: ThumbnailRequest(width: width, height: height)).picture
            #expect(picture.width == wantWidth && picture.height == wantHeight, "\(name)")
            expectUpright(picture)
        }
    }

    @Test(arguments: oriented.filter { $0.name.hasPrefix("orient-") })
    func asStoredShowsTheStoredPixels(entry: TestMedia.Entry) throws {
        let frame = try Thumbnailer().frame(entry.path, request: ThumbnailRequest(asStored: true))
        let orientation = try #require(entry.exifOrientation.flatMap(Orientation.init(exif:)))
        #expect(frame.picture.width == entry.storedWidth && frame.picture.height == entry.storedHeight)
        // Where each upright quadrant centre is stored: the inverse orientation maps display to stored.
        for quadrant in quadrants {
            let (w, h) = (entry.displayWidth!, entry.displayHeight!)
            let stored = orientation.inverse.displayPixel(
                x: Int(quadrant.x * Double(w)), y: Int(quadrant.y * Double(h)), width: w, height: h)
            #expect(frame.picture[stored.x, stored.y].distance(to: quadrant.color) < 48)
        }
    }

    @Test func comparisonShowsBothLabelled() throws {
        let path = TestMedia.folder.appendingPathComponent("orient-6.mp4").path
        let picture = try Thumbnailer().comparison(path, request: ThumbnailRequest())
        // Stored 96x160 and displayed 160x96 side by side with a gap, under their captions.
        #expect(picture.width == 96 + 8 + 160)
        #expect(picture.height > 160)
    }

    @Test func contactSheetHasEveryTile() throws {
        let path = TestMedia.folder.appendingPathComponent("orient-8.mp4").path
        let sheet = try Thumbnailer().contactSheet(path, columns: 3, rows: 2, tileWidth: 80)
        // 3 tiles of 80x48 and 4-pixel gaps across; a header above 2 rows.
        #expect(sheet.width == 3 * 80 + 4 * 4)
        #expect(sheet.height > 2 * 48 + 3 * 4)
    }

    @Test func withoutAFontTheLayoutStaysAndTheCaptionsGo() throws {
        let path = TestMedia.folder.appendingPathComponent("orient-8.mp4").path
        let sheet = try Thumbnailer(font: nil).contactSheet(path, columns: 3, rows: 2, tileWidth: 80)
        #expect(sheet.width == 3 * 80 + 4 * 4 && sheet.height == 2 * 48 + 3 * 4)
        let comparison = try Thumbnailer(font: nil).comparison(
            TestMedia.folder.appendingPathComponent("orient-6.mp4").path, request: ThumbnailRequest())
        #expect(comparison.width == 96 + 8 + 160 && comparison.height == 160)
    }

    @Test func captionsAreDrawnInTheHeaderBand() throws {
        let path = TestMedia.folder.appendingPathComponent("orient-8.mp4").path
        let sheet = try Thumbnailer().contactSheet(path, columns: 3, rows: 2, tileWidth: 80)
        let bandHeight = sheet.height - (2 * 48 + 3 * 4)
        try #require(bandHeight > 0)
        // Light text pixels on the dark band.
        let light = (0..<bandHeight).reduce(0) { count, y in
            count + (0..<sheet.width).filter { sheet[$0, y].red > 180 && sheet[$0, y].blue > 180 }.count
        }
        #expect(light > 50)
    }

    @Test func blackOpeningIsSkippedForARepresentativeFrame() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-black-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("black-start.mp4").path
        // Half a second black, then 1.5 s of the quadrants; every frame a keyframe.
        let status = try runFFmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=160x96:r=10:d=0.5", "-f", "lavfi", "-i",
            "color=c=red:s=80x48:r=10:d=1.5[a];color=c=lime:s=80x48:r=10:d=1.5[b];color=c=blue:s=80x48:r=10:d=1.5[c];color=c=white:s=80x48:r=10:d=1.5[d];[a][b][c][d]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0",
            "-filter_complex", "[0][1]concat=n=2:v=1", "-c:v", "libx264", "-g", "1", "-pix_fmt", "yuv420p", clip,
        ])
        try #require(status == 0)
        let frame = try Thumbnailer().frame(clip, request: ThumbnailRequest())
        #expect(!RepresentativeFrame.isFlat(frame.picture))
        expectUpright(frame.picture)
        #expect(try #require(frame.time) >= 0.5)
        // An explicit time is obeyed, black or not.
        let black = try Thumbnailer().frame(clip, request: ThumbnailRequest(at: .seconds(0.2)))
        #expect(RepresentativeFrame.isFlat(black.picture))
    }

    /// A short clip with one keyframe (a second each of red, green and blue): without `--exact`
    /// each of three tiles at 0.5, 1.5 and 2.5 s would show that keyframe, the same red frame three
    /// times under three times (issue 29); each tile shows its own second.
    @Test func aContactSheetShowsNoFrameTwice() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-sheet-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("one-keyframe.mp4").path
        let status = try runFFmpeg([
            "-f", "lavfi", "-i",
            "color=c=red:s=80x48:r=10:d=1[a];color=c=lime:s=80x48:r=10:d=1[b];color=c=blue:s=80x48:r=10:d=1[c];[a][b][c]concat=n=3:v=1",
            "-c:v", "libx264", "-x264-params", "keyint=1000:min-keyint=1000:scenecut=0", "-pix_fmt", "yuv420p", clip,
        ])
        try #require(status == 0)
        let sheet = try Thumbnailer(font: nil).contactSheet(clip, columns: 3, rows: 1, tileWidth: 80)
        try #require(sheet.width == 3 * 80 + 4 * 4 && sheet.height == 48 + 2 * 4)
        // Each tile's centre: 4-pixel gaps around 80x48 tiles.
        let centres = (0..<3).map { sheet[4 + $0 * 84 + 40, 4 + 24] }
        #expect(centres[0].red > 200 && centres[0].green < 60, "\(centres)")
        #expect(centres[1].green > 200 && centres[1].red < 60, "\(centres)")
        #expect(centres[2].blue > 200 && centres[2].red < 60, "\(centres)")
    }

    @Test func exactTimeDecodesForward() throws {
        let path = TestMedia.folder.appendingPathComponent("orient-6.mp4").path
        let keyframe = try Thumbnailer().frame(path, request: ThumbnailRequest(at: .seconds(0.55)))
        let exact = try Thumbnailer().frame(path, request: ThumbnailRequest(at: .seconds(0.55), exact: true))
        #expect(keyframe.time == 0)
        #expect(abs(try #require(exact.time) - 0.6) < 1e-6)
    }

    @Test(arguments: [ImageFormat.png, .jpg])
    func encodingIsDeterministicAndDecodesBack(format: ImageFormat) throws {
        let path = TestMedia.folder.appendingPathComponent("orient-7.mp4").path
        let picture = try Thumbnailer().frame(path, request: ThumbnailRequest()).picture
        let first = try format.encode(picture)
        #expect(try format.encode(picture) == first)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-\(getpid()).\(format.rawValue)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(first).write(to: file)
        let decoded = try Thumbnailer().frame(file.path, request: ThumbnailRequest())
        #expect(decoded.picture.width == 160 && decoded.picture.height == 96)
        expectUpright(decoded.picture)
    }

    /// Our PNG (zlib) and JPEG (libjpeg-turbo) read back by FFmpeg, a decoder that is not ours:
    /// the PNG pixel for pixel, the JPEG close, and smaller at a lower quality.
    @Test func encodedPicturesReadBackInAnotherDecoder() throws {
        let path = TestMedia.folder.appendingPathComponent("orient-7.mp4").path
        let picture = try Thumbnailer().frame(path, request: ThumbnailRequest(width: 320)).picture
        let folder = try scratchFolder("encode")
        defer { try? FileManager.default.removeItem(at: folder) }
        func readBack(_ bytes: [UInt8], _ name: String) throws -> DecodedRGB {
            let file = folder.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            return try DecodedRGB(decoding: file.path)
        }
        let png = try readBack(try ImageFormat.png.encode(picture), "picture.png")
        #expect(png.width == picture.width && png.height == picture.height)
        #expect(png.pixels == picture.pixels)
        var sizes: [Int] = []
        for quality in [50, 90] {
            let bytes = try ImageFormat.jpg.encode(picture, quality: quality)
            sizes.append(bytes.count)
            let jpeg = try readBack(bytes, "picture-\(quality).jpg")
            #expect(jpeg.width == picture.width && jpeg.height == picture.height)
            var difference = 0
            for (a, b) in zip(jpeg.pixels, picture.pixels) { difference += abs(Int(a) - Int(b)) }
            #expect(Double(difference) / Double(picture.pixels.count) < (quality == 90 ? 3 : 6), "quality \(quality)")
        }
        #expect(sizes[0] < sizes[1], "\(sizes)")
    }

    /// A photo decoded whole and shrunk by `Picture.resized` is the area mean of its pixels
    /// (`areaMean`, a direct two-dimensional integration), within a level: a real 1800x1200 camera
    /// photo where ../shared/media is present, TestMedia's otherwise.
    @Test func aPhotoShrunkIsTheMeanOfItsPixels() throws {
        let path =
            SharedMedia.existingPath("Landscape_1.jpg") ?? TestMedia.folder.appendingPathComponent("orient-1.jpg").path
        let full = try Thumbnailer().frame(path, request: ThumbnailRequest()).picture
        let (width, height) = (full.width * 2 / 7, full.height * 2 / 7)
        let small = full.resized(width: width, height: height)
        let reference = areaMean(
            full.pixels, width: full.width, height: full.height, newWidth: width, newHeight: height)
        let worst = zip(small.pixels, reference).map { abs(Double($0) - $1) }.max() ?? 0
        #expect(worst <= 1.01, "worst \(worst)")
    }

    @Test(arguments: TestMedia.bad)
    func badFilesGiveNoPicture(entry: TestMedia.Entry) throws {
        #expect(throws: InputError.self) { try Thumbnailer().frame(entry.path, request: ThumbnailRequest()) }
    }

    /// A PNG header may claim 60000x60000 (14 GB of RGB) on a file of a few bytes: refused before
    /// any decoder allocates, with the size in the message.
    @Test func aClaimedHugePhotoIsRefusedBeforeDecoding() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-huge-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = """
            import struct, sys, zlib
            def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
            ihdr = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
            data = zlib.compress(b"\\0" * 64)
            open(sys.argv[1], "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
            """
        try #require(try run("python3", ["-c", script, path]).status == 0)
        #expect(try Prober().inspect(path).photo?.storedWidth == 60000)
        let error = try #require(throws: InputError.self) {
            try Thumbnailer().frame(path, request: ThumbnailRequest(width: 100))
        }
        #expect(error.reason.contains("60000x60000"))
    }

    @Test func audioOnlyHasNothingToRender() throws {
        let path = TestMedia.folder.appendingPathComponent("audio-only.m4a").path
        let error = try #require(throws: InputError.self) { try Thumbnailer().frame(path, request: ThumbnailRequest()) }
        #expect(error.reason == "no video stream to render")
    }
}

@Suite(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"))
struct SharedMediaThumbnailTests {
    @Test func allNineLandscapesShowTheSameUprightPicture() throws {
        let reference = try Thumbnailer().frame(
            try #require(SharedMedia.existingPath("Landscape_1.jpg")), request: ThumbnailRequest(width: 180)
        ).picture
        #expect(reference.width == 180 && reference.height == 120)
        for n in [0, 2, 3, 4, 5, 6, 7, 8] {
            let full = try Thumbnailer().frame(
                try #require(SharedMedia.existingPath("Landscape_\(n).jpg")), request: ThumbnailRequest())
            #expect(full.picture.width == 1800 && full.picture.height == 1200, "Landscape_\(n)")
            let small = try Thumbnailer().frame(
                try #require(SharedMedia.existingPath("Landscape_\(n).jpg")), request: ThumbnailRequest(width: 180)
            ).picture
            var difference = 0
            for (a, b) in zip(small.pixels, reference.pixels) { difference += abs(Int(a) - Int(b)) }
            // The pictures differ only in the digit drawn on each; a wrong turn differs everywhere.
            #expect(Double(difference) / Double(small.pixels.count) < 12, "Landscape_\(n)")
        }
    }

    @Test(arguments: [
        ("sample_rotate_and_reflect.mp4", 720, 1080), ("dolbyVision-hdr.MOV", 720, 1280),
        ("iphone_rotated.mov", 320, 568),
    ])
    func phoneFilesComeOutAtTheirDisplayedSize(name: String, width: Int, height: Int) throws {
        let frame = try Thumbnailer().frame(try #require(SharedMedia.existingPath(name)), request: ThumbnailRequest())
        #expect(frame.picture.width == width && frame.picture.height == height)
        // 10-bit HLG and 8-bit alike give a real picture, not black, white or noise.
        let stats = frame.picture.lumaStatistics
        #expect(stats.mean > 40 && stats.mean < 230 && stats.deviation > 5)
    }

    @Test func mirroredTransposeMovesTheStoredTopRowToTheLeftColumn() throws {
        // sample_rotate_and_reflect.mp4 holds sample.mp4's pixels with a transpose matrix.
        let plain = try Thumbnailer().frame(
            try #require(SharedMedia.existingPath("sample.mp4")), request: ThumbnailRequest(at: .seconds(0))
        ).picture
        let transposed = try Thumbnailer().frame(
            try #require(SharedMedia.existingPath("sample_rotate_and_reflect.mp4")),
            request: ThumbnailRequest(at: .seconds(0))
        ).picture
        #expect(transposed.width == plain.height && transposed.height == plain.width)
        var difference = 0
        for y in stride(from: 0, to: plain.height, by: 7) {
            for x in stride(from: 0, to: plain.width, by: 7) {
                difference += plain[x, y].distance(to: transposed[y, x])
            }
        }
        #expect(difference == 0)
    }
}

/// HEIF pictures: vidorient decodes with libheif's transformations off and applies its own
/// decision; libheif's `heif-convert` applies `irot`/`imir` itself. Both must give the same picture,
/// on the phone files and on a grid with a thumbnail item as much as on TestMedia's.
@Suite(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"))
struct HEIFAgreesWithLibheifTests {
    /// IMG_2682 at 240 comes from its 320x240 thumbnail item, at 640 from its 8x6 grid of HEVC tiles
    /// (FFmpeg's decoder, `HEIFTiles`), as Samsung's at 1000; the AVIF from libheif. libheif decodes
    /// each file once, for all its widths.
    @Test(arguments: [
        ("IMG_2682.heic", [240, 640]), ("8bit-sRGB.avif", [240]), ("samsung-one-ui-6.heic", [1000]),
    ])
    func sameAsLibheifApplyingItsOwnTransforms(name: String, widths: [Int]) throws {
        let path = try #require(SharedMedia.existingPath(name))
        let folder = try scratchFolder("heif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = folder.appendingPathComponent("libheif.png").path
        try #require(try run("heif-convert", [path, full]).status == 0)
        for width in widths {
            let ours = try Thumbnailer().frame(path, request: ThumbnailRequest(width: width)).picture
            // The same size, scaled by ffmpeg's area filter, then decoded by our own reader.
            let small = folder.appendingPathComponent("small-\(width).png").path
            #expect(try runFFmpeg(["-i", full, "-vf", "scale=\(ours.width):\(ours.height):flags=area", small]) == 0)
            let theirs = try Thumbnailer().frame(small, request: ThumbnailRequest()).picture
            try #require(theirs.width == ours.width && theirs.height == ours.height)
            func meanDifference(_ other: Picture) -> Double {
                var difference = 0
                for (a, b) in zip(ours.pixels, other.pixels) { difference += abs(Int(a) - Int(b)) }
                return Double(difference) / Double(ours.pixels.count)
            }
            // Scalers and a thumbnail item's own coding differ by a few levels; the same picture
            // mirrored or turned over differs everywhere, and that is what this must tell apart.
            let same = meanDifference(theirs)
            #expect(same < 12, "\(name) at \(width)")
            for wrong in [Orientation.upMirrored, .down] {
                #expect(meanDifference(theirs.oriented(wrong)) > same + 4, "\(name) against \(wrong)")
            }
        }
    }
}

func runFFmpeg(_ arguments: [String]) throws -> Int32 {
    try run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments).status
}
