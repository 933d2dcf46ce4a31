import Foundation
import Testing
import VidorientTestSupport

/// `vidorient normalize`, run as a user runs it, on copies in a temporary folder, checked by
/// other tools: jpegtran and djpeg (the pixels), exiftool (the metadata), ffmpeg (decodes).
enum NormalizeFixture {
    static func folder(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-normalize-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func copy(_ source: String, to folder: URL, as name: String) throws -> String {
        let destination = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    /// A tool's standard output; the test fails when it exits non-zero.
    @discardableResult
    static func tool(_ executable: String, _ arguments: [String]) throws -> Data {
        let run = try run(executable, arguments)
        try #require(run.status == 0, "failed: \(executable) \(arguments.joined(separator: " "))")
        return run.stdout
    }

    static func shell(_ command: String) throws { try tool("sh", ["-c", command]) }

    /// True when the shell command exits 0; its failure is an answer here, not a test failure.
    static func succeeds(_ command: String) -> Bool {
        (try? run("sh", ["-c", command]).status) == 0
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The stored pixels (no orientation applied) and the size: JPEG through djpeg, the others
    /// through ffmpeg, sized by exiftool.
    static func decode(_ path: String, pixelFormat: String = "rgb24") throws -> (
        width: Int, height: Int, pixels: [UInt8]
    ) {
        if path.hasSuffix(".jpg") && pixelFormat == "rgb24" {
            // P6, width, height, 255, each followed by one white-space byte, then RGB.
            let ppm = [UInt8](try tool("djpeg", ["-ppm", path]))
            var fields: [String] = [], index = 0
            while fields.count < 4 {
                let start = index
                while ppm[index] > 0x20 { index += 1 }
                fields.append(String(decoding: ppm[start..<index], as: UTF8.self))
                index += 1
            }
            return (Int(fields[1])!, Int(fields[2])!, Array(ppm[index...]))
        }
        let text = String(
            decoding: try tool("exiftool", ["-s3", "-n", "-ImageWidth", "-ImageHeight", path]), as: UTF8.self)
        let parts = text.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        try #require(parts.count >= 2)
        let raw = try tool(
            "ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
        return (parts[0], parts[1], [UInt8](raw))
    }

    /// The colour nearest each quadrant's centre, top-left, top-right, bottom-left, bottom-right.
    static func quadrants(_ path: String) throws -> [String] {
        let picture = try decode(path)
        let named: [(String, (Int, Int, Int))] = [
            ("red", (255, 0, 0)), ("green", (0, 255, 0)), ("blue", (0, 0, 255)), ("white", (255, 255, 255)),
        ]
        return [(1, 1), (3, 1), (1, 3), (3, 3)].map { (qx, qy) in
            let x = picture.width * qx / 4, y = picture.height * qy / 4
            let i = (y * picture.width + x) * 3
            let (r, g, b) = (Int(picture.pixels[i]), Int(picture.pixels[i + 1]), Int(picture.pixels[i + 2]))
            return named.min { a, c in
                let da = (a.1.0 - r) * (a.1.0 - r) + (a.1.1 - g) * (a.1.1 - g) + (a.1.2 - b) * (a.1.2 - b)
                let dc = (c.1.0 - r) * (c.1.0 - r) + (c.1.1 - g) * (c.1.1 - g) + (c.1.2 - b) * (c.1.2 - b)
                return da < dc
            }!.0
        }
    }

    /// The upright test picture of TestMedia: red | green over blue | white.
    static let upright = ["red", "green", "blue", "white"]

    /// exiftool's view, `Group1:Tag` to the value (numbers as numbers), less the file system's.
    static func metadata(_ path: String) throws -> [String: String] {
        let data = try tool("exiftool", ["-j", "-a", "-G1", "-n", "-b", "--System:all", "--ExifTool:all", path])
        let object = try #require((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
        return object.filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
    }

    /// The keys whose values differ (or that one side lacks).
    static func differences(_ a: [String: String], _ b: [String: String]) -> Set<String> {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }
    }

    static func exifOrientation(_ path: String) throws -> String {
        String(decoding: try tool("exiftool", ["-s3", "-n", "-IFD0:Orientation", path]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// jpegtran's options for the transform that shows orientation `n` (issue 10's table).
    static let jpegtran: [Int: [String]] = [
        2: ["-flip", "horizontal"], 3: ["-rotate", "180"], 4: ["-flip", "vertical"], 5: ["-transpose"],
        6: ["-rotate", "90"], 7: ["-transverse"], 8: ["-rotate", "270"],
    ]

    /// Where displayed pixel (X, Y) comes from in a stored w×h picture, for orientation `n`: the
    /// EXIF specification's words, written out apart from the code under test.
    static func source(_ n: Int, x: Int, y: Int, width w: Int, height h: Int) -> (Int, Int) {
        switch n {
        case 1: (x, y)
        case 2: (w - 1 - x, y)
        case 3: (w - 1 - x, h - 1 - y)
        case 4: (x, h - 1 - y)
        case 5: (y, x)
        case 6: (y, h - 1 - x)
        case 7: (w - 1 - y, h - 1 - x)
        default: (w - 1 - y, x)
        }
    }

    /// The stored picture as orientation `n` displays it, pixels of `size` bytes.
    static func displayed(_ n: Int, _ picture: (width: Int, height: Int, pixels: [UInt8]), bytesPerPixel size: Int)
        -> [UInt8]
    {
        let (w, h) = (picture.width, picture.height)
        let displayWidth = n >= 5 ? h : w, displayHeight = n >= 5 ? w : h
        var out: [UInt8] = []
        out.reserveCapacity(picture.pixels.count)
        for y in 0..<displayHeight {
            for x in 0..<displayWidth {
                let (sx, sy) = source(n, x: x, y: y, width: w, height: h)
                let i = (sy * w + sx) * size
                out += picture.pixels[i..<i + size]
            }
        }
        return out
    }

    static func leftovers(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }
    }
}

private typealias F = NormalizeFixture

@Suite struct NormalizeCommandTests {
    /// The keys every place may change, and nothing else: the orientation, the sizes the turn
    /// swaps, the thumbnail's place and size, the MPF offsets the new image length moves.
    static let expectedChanges: Set<String> = [
        "IFD0:Orientation", "XMP-tiff:Orientation", "ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight",
        "File:ImageWidth", "File:ImageHeight", "Composite:ImageSize", "IFD1:ThumbnailOffset", "IFD1:ThumbnailLength",
        "IFD1:ThumbnailImage", "MPImage1:MPImageLength", "MPImage2:MPImageStart", "PNG:ImageWidth", "PNG:ImageHeight",
        "RIFF:ImageWidth", "RIFF:ImageHeight",
    ]

    /// A copy of orient-n.jpg carrying what a camera's JPEG carries: XMP with tiff:Orientation,
    /// make and model, Exif sizes, GPS, a thumbnail, an ICC profile, a comment, an MPF preview.
    static func richJPEG(_ n: Int, in folder: URL) throws -> (path: String, preview: Data) {
        let path = try F.copy(Run.media("orient-\(n).jpg"), to: folder, as: "orient-\(n).jpg")
        let stored = try F.decode(path)
        let thumbnail = folder.appendingPathComponent("thumb.jpg").path
        let preview = folder.appendingPathComponent("preview.jpg").path
        // -noautorotate: ffmpeg would show the picture turned by its EXIF orientation; a thumbnail is stored as the picture is.
        try F.tool(
            "ffmpeg",
            [
                "-v", "error", "-noautorotate", "-i", path, "-vf", "scale=\(stored.width / 2):\(stored.height / 2)",
                thumbnail,
            ])
        try F.tool(
            "ffmpeg",
            [
                "-v", "error", "-noautorotate", "-i", path, "-vf", "scale=\(stored.width / 4):\(stored.height / 4)",
                preview,
            ])
        try F.tool(
            "exiftool",
            [
                "-q", "-overwrite_original", "-XMP-tiff:Orientation#=\(n)", "-XMP-dc:Title=kept", "-Make=Vidorient",
                "-Model=Normalize", "-ExifIFD:ExifImageWidth=\(stored.width)",
                "-ExifIFD:ExifImageHeight=\(stored.height)",
                "-GPSLatitude=48.1", "-GPSLatitudeRef=N", "-ThumbnailImage<=\(thumbnail)", path,
            ])
        let rich = folder.appendingPathComponent("rich-\(n).jpg").path
        try F.tool(
            "python3",
            [Run.packageRoot.appendingPathComponent("TestMedia/normalize_fixtures.py").path, path, preview, rich])
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: rich, toPath: path)
        return (path, try F.bytes(preview))
    }

    @Test(arguments: LargeRounds.turns)
    func jpegIsTurnedLosslesslyAsJpegtranDoesAndKeepsItsMetadata(n: Int) throws {
        let folder = try F.folder("jpeg-\(n)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, preview) = try Self.richJPEG(n, in: folder)
        let original = try F.copy(path, to: folder, as: "original.jpg")
        let stored = try F.decode(path)
        // 4:2:0, so a 16x16 MCU: both sides fit, every transform is perfect.
        #expect(stored.width % 16 == 0 && stored.height % 16 == 0)
        let before = try F.metadata(path)

        let run = try Run.vidorient(["normalize", path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderrLines.count == 1 && run.stderr.contains("mpf"), "\(run.stderr)")
        let object = try #require(run.json as? [String: Any])
        #expect(object["status"] as? String == "normalized")
        #expect(object["orientation_before"] as? Int == n)
        #expect(object["thumbnail"] as? String == "transformed")
        #expect(object["verified"] as? Bool == true)

        // (b) EXIF and XMP say 1.
        #expect(try F.exifOrientation(path) == "1")
        // (c) the pixels are jpegtran -perfect's, decoded.
        let reference = folder.appendingPathComponent("jpegtran.jpg").path
        try F.shell(
            "jpegtran -perfect -copy none \(F.jpegtran[n]!.joined(separator: " ")) '\(original)' > '\(reference)'")
        #expect(try F.tool("djpeg", ["-ppm", path]) == (try F.tool("djpeg", ["-ppm", reference])))
        // (a) the same picture: stored upright now, as it was displayed; its thumbnail too.
        #expect(try F.quadrants(path) == F.upright)
        let thumbnail = folder.appendingPathComponent("thumbnail-after.jpg").path
        try F.tool("exiftool", ["-b", "-ThumbnailImage", path]).write(to: URL(fileURLWithPath: thumbnail))
        #expect(try F.quadrants(thumbnail) == F.upright)
        let shown = try Run.vidorient(["thumbnail", path, "-o", folder.appendingPathComponent("shown.png").path])
        #expect(shown.status == 0)
        #expect(try F.quadrants(folder.appendingPathComponent("shown.png").path) == F.upright)
        // (d) everything else kept: ICC, comment, XMP, GPS, make, the MPF preview (still found).
        let after = try F.metadata(path)
        let changed = F.differences(before, after)
        #expect(changed.isSubset(of: Self.expectedChanges), "unexpected: \(changed.subtracting(Self.expectedChanges))")
        #expect(after["XMP-tiff:Orientation"] == "1")
        #expect(after["ICC_Profile:MediaWhitePoint"] != nil && after["File:Comment"] == "kept by normalize")
        #expect(try F.tool("exiftool", ["-b", "-MPImage2:PreviewImage", path]) == preview)
        if n >= 5 {
            #expect(after["ExifIFD:ExifImageWidth"] == before["ExifIFD:ExifImageHeight"])
            #expect(after["ExifIFD:ExifImageHeight"] == before["ExifIFD:ExifImageWidth"])
        }
        #expect(try F.leftovers(folder).isEmpty)
    }

    @Test func aSizeThatIsNotAnMCUMultipleIsRefusedUnlessTrimmed() throws {
        let folder = try F.folder("mcu")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("odd.jpg").path
        try F.tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=100x60", "-frames:v", "1", path])
        try F.tool("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", path])
        let original = try F.bytes(path)

        let refused = try Run.vidorient(["normalize", path])
        #expect(refused.status == 2)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderrLines.count == 1)
        #expect(refused.stderr.contains("could not normalize '\(path)': "))
        #expect(
            refused.stderr.contains("16x16 mcu") && refused.stderr.contains("height 60")
                && refused.stderr.contains("--trim"))
        #expect(try F.bytes(path) == original)

        let copy = try F.copy(path, to: folder, as: "original.jpg")
        let trimmed = try Run.vidorient(["normalize", "--trim", "--json", path])
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        let object = try #require(trimmed.json as? [String: Any])
        #expect(object["trimmed"] as? Bool == true)
        #expect(object["width_after"] as? Int == 48 && object["height_after"] as? Int == 100)
        let reference = folder.appendingPathComponent("jpegtran.jpg").path
        try F.shell("jpegtran -trim -rotate 90 '\(copy)' > '\(reference)'")
        #expect(try F.tool("djpeg", ["-ppm", path]) == (try F.tool("djpeg", ["-ppm", reference])))
        #expect(try F.exifOrientation(path) == "1")
    }

    @Test func aThumbnailThatCannotBeTurnedLosslesslyIsDropped() throws {
        let folder = try F.folder("thumbnail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try F.copy(Run.media("orient-6.jpg"), to: folder, as: "orient-6.jpg")
        let thumbnail = folder.appendingPathComponent("thumb.jpg").path
        // 40x24 at 4:2:0: a quarter turn clockwise would move the partial bottom row of blocks.
        try F.tool("ffmpeg", ["-v", "error", "-noautorotate", "-i", path, "-vf", "scale=40:24", thumbnail])
        try F.tool("exiftool", ["-q", "-overwrite_original", "-ThumbnailImage<=\(thumbnail)", path])
        let run = try Run.vidorient(["normalize", "--json", path])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(run.json as? [String: Any])
        #expect(object["thumbnail"] as? String == "dropped")
        #expect((object["thumbnail_reason"] as? String)?.contains("mcu") == true)
        #expect(try F.metadata(path)["IFD1:ThumbnailImage"] == nil)
        #expect(try F.quadrants(path) == F.upright)
        let human = try Run.vidorient([
            "normalize", "--dry-run", try F.copy(Run.media("orient-6.jpg"), to: folder, as: "again.jpg"),
        ])
        #expect(human.stdout.contains("dry run"))
    }

    /// PNG and lossless WebP: the pixels are the original's, moved exactly as the orientation
    /// shows them (decoded with ffmpeg, turned here), and the other chunks stay.
    @Test(arguments: ["png", "webp"], LargeRounds.turns)
    func losslessFormatsKeepEveryPixel(format: String, n: Int) throws {
        let folder = try F.folder("\(format)-\(n)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try F.copy(Run.media("orient-\(n).\(format)"), to: folder, as: "orient-\(n).\(format)")
        try F.tool(
            "exiftool", ["-q", "-overwrite_original", "-XMP-dc:Title=kept", "-XMP-tiff:Orientation#=\(n)", path])
        let stored = try F.decode(path, pixelFormat: "rgba")
        let before = try F.metadata(path)
        let run = try Run.vidorient(["normalize", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let after = try F.decode(path, pixelFormat: "rgba")
        #expect(after.width == (n >= 5 ? stored.height : stored.width))
        #expect(after.pixels == F.displayed(n, stored, bytesPerPixel: 4))
        #expect(try F.exifOrientation(path) == "1")
        let metadata = try F.metadata(path)
        let changed = F.differences(before, metadata)
        #expect(changed.isSubset(of: Self.expectedChanges), "unexpected: \(changed.subtracting(Self.expectedChanges))")
        #expect(metadata["XMP-dc:Title"] == "kept" && metadata["XMP-tiff:Orientation"] == "1")
    }

    /// 16-bit, palette and alpha PNGs come back in their own format, every sample the same.
    @Test(arguments: ["rgba64be", "rgb48be", "pal8", "ya16be", "ya8", "gray"])
    func pngKeepsItsDepthPaletteAndAlpha(pixelFormat: String) throws {
        let folder = try F.folder("png-\(pixelFormat)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("deep.png").path
        let filter =
            pixelFormat == "pal8"
            ? "split[a][b];[a]palettegen=max_colors=200[p];[b][p]paletteuse" : "format=\(pixelFormat)"
        try F.tool(
            "ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.04", "-frames:v", "1",
                "-vf", filter, path,
            ])
        try F.tool("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", "-PNG:Comment=kept", path])
        let stored = try F.decode(path, pixelFormat: "rgba64be")
        let before = try F.metadata(path)
        let run = try Run.vidorient(["normalize", path])
        #expect(run.status == 0, "\(run.stderr)")
        let after = try F.decode(path, pixelFormat: "rgba64be")
        #expect(after.pixels == F.displayed(6, stored, bytesPerPixel: 8))
        let metadata = try F.metadata(path)
        for key in ["PNG:BitDepth", "PNG:ColorType", "PNG:Comment"] { #expect(metadata[key] == before[key], "\(key)") }
        #expect(metadata["IFD0:Orientation"] == "1")
    }

    /// Formats whose turn would lose quality, and videos: one line pointing to `fix`, nothing written.
    @Test(arguments: ["orient-6.heic", "orient-6.avif", "orient-6-ii.tif", "orient-6.mp4", "lossy.webp"])
    func whatWouldNeedAReencodeIsRefused(name: String) throws {
        let folder = try F.folder("refuse")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path: String
        if name == "lossy.webp" {
            path = folder.appendingPathComponent(name).path
            try F.tool("cwebp", ["-quiet", "-q", "80", Run.media("orient-1.png"), "-o", path])
            try F.tool("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", path])
        } else {
            path = try F.copy(Run.media(name), to: folder, as: name)
        }
        let original = try F.bytes(path)
        let run = try Run.vidorient(["normalize", path])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("could not normalize '\(path)': "))
        #expect(run.stderr.contains("`vidorient fix`"))
        #expect(try F.bytes(path) == original)
        #expect(try F.leftovers(folder).isEmpty)
    }

    @Test func optionsDryRunOutputPermissionsAndModificationTime() throws {
        let folder = try F.folder("options")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try F.copy(Run.media("orient-8.jpg"), to: folder, as: "orient-8.jpg")
        let original = try F.bytes(path)

        let dry = try Run.vidorient(["normalize", "--dry-run", "--json", path])
        #expect(dry.status == 0)
        #expect((dry.json as? [String: Any])?["status"] as? String == "would_normalize")
        #expect(try F.bytes(path) == original)

        let copy = folder.appendingPathComponent("copy.jpg").path
        let out = try Run.vidorient(["normalize", path, "-o", copy])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try F.bytes(path) == original)
        #expect(try F.exifOrientation(copy) == "1")

        try F.shell("chmod 640 '\(path)' && touch -d '2001-02-03 04:05:06' '\(path)'")
        let kept = try Run.vidorient(["normalize", "--preserve-mtime", "--json", path])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect((kept.json as? [String: Any])?["mtime_preserved"] as? Bool == true)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect(
            (attributes[.modificationDate] as? Date).map { Calendar(identifier: .gregorian).component(.year, from: $0) }
                == 2001)
        #expect(try F.bytes(path) == (try F.bytes(copy)))

        let upright = try Run.vidorient(["normalize", path])
        #expect(upright.status == 0)
        #expect(upright.stdout.contains("already upright"))
    }

    /// libjpeg-turbo's coefficient arrays (the original's and the turned copy's, 11.5 MB for this
    /// 1600x1200 4:2:0 JPEG) come from a stretch of the heap marked for huge pages
    /// (`System.withHugePageHeap`): 4 KiB pages were 18,000 page faults on a 12 MP photo, the
    /// most of normalize's time over jpegtran's (docs/performance.md). The pixels are still
    /// jpegtran's.
    @Test func theTransformsArraysAreAskedForInHugePages() throws {
        try #require(isInstalled("strace"), "strace is installed by .ci/setup")
        let folder = try F.folder("huge")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("p.jpg").path
        try F.tool(
            "ffmpeg",
            ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1600x1200", "-frames:v", "1", "-q:v", "3", path])
        try F.tool("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", path])
        let expected = folder.appendingPathComponent("jpegtran.jpg").path
        try F.tool("jpegtran", ["-perfect", "-rotate", "90", "-outfile", expected, path])
        let log = folder.appendingPathComponent("trace").path
        let run = try Run.vidorient(["normalize", path], prefix: ["strace", "-e", "trace=madvise", "-o", log])
        #expect(run.status == 0, "\(run.stderr)")
        // "madvise(0x55d1f2a00000, 46137344, MADV_HUGEPAGE) = 0": the lengths asked for.
        let lengths = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            line.hasPrefix("madvise(") && line.contains("MADV_HUGEPAGE") && line.hasSuffix("= 0")
                ? line.split(separator: ",").dropFirst().first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                : nil
        }
        #expect(lengths.contains { $0 >= 2 * 128 * (100 * 75 * 6) }, "\(lengths)")
        #expect(try F.decode(path).pixels == (try F.decode(expected).pixels))
    }

    /// Every key of docs/normalize.md is present, with null where unknown.
    @Test func jsonHasEveryDocumentedKey() throws {
        let run = try Run.vidorient(["normalize", "--dry-run", "--json", Run.media("orient-6.jpg")])
        let object = try #require(run.json as? [String: Any])
        let documented: Set<String> = [
            "schema_version", "path", "path_bytes", "format", "status", "dry_run", "orientation_before",
            "orientation_after", "transform", "method", "stored_width_before", "stored_height_before", "width_after",
            "height_after", "trimmed", "thumbnail", "thumbnail_reason", "changes", "warnings", "size_before",
            "size_after", "written_path", "written_path_bytes", "verified", "mtime_preserved",
        ]
        #expect(Set(object.keys) == documented)
        #expect(object["written_path"] is NSNull)
    }

    /// The real camera JPEGs of ../shared/media: where jpegtran -perfect can turn one, normalize
    /// gives its pixels; where it cannot (1800 is not a multiple of 16), normalize refuses and
    /// --trim gives jpegtran -trim's.
    @Test(.enabled(if: SharedMedia.isPresent, "../shared/media is absent"), arguments: 1...8)
    func realPhotosMatchJpegtran(n: Int) throws {
        let source = try #require(SharedMedia.existingPath("Landscape_\(n).jpg"))
        let folder = try F.folder("landscape-\(n)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try F.copy(source, to: folder, as: "Landscape_\(n).jpg")
        // The shared files are read-only, which normalize (rightly) refuses to replace.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let reference = folder.appendingPathComponent("jpegtran.jpg").path
        let run = try Run.vidorient(["normalize", path])
        if n == 1 {
            #expect(run.stdout.contains("already upright"))
            return
        }
        let options = F.jpegtran[n]!.joined(separator: " ")
        let perfect = F.succeeds("jpegtran -perfect \(options) '\(source)' > '\(reference)'")
        if perfect {
            #expect(run.status == 0, "\(run.stderr)")
        } else {
            #expect(run.status == 2)
            #expect(run.stderr.contains("16x16 mcu"))
            let trimmed = try Run.vidorient(["normalize", "--trim", path])
            #expect(trimmed.status == 0, "\(trimmed.stderr)")
            try F.shell("jpegtran -trim \(options) '\(source)' > '\(reference)'")
        }
        #expect(try F.tool("djpeg", ["-ppm", path]) == (try F.tool("djpeg", ["-ppm", reference])))
        #expect(try F.exifOrientation(path) == "1")
        let size = String(decoding: try F.tool("exiftool", ["-s3", "-ImageSize", path]), as: UTF8.self)
        #expect(size.hasPrefix("1800x") || size.hasPrefix("1792x"))
    }
}
